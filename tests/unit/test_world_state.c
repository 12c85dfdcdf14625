/* The world-switch state API (emu/world_state.h), event injection
 * (emu/event_inject.c), the checked MSR write (emu/msr.c) and the VMCB rows
 * (svm/vmcb_fields.def expanded by svm/vmcb_rows.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/hv.h"
#include "machine_fixture.h"
#include "svm/vmcb_fields.h"
#include "svm/vmcb_rows.h"

/* SDM Vol.3 24.4.1 Table 24-2: the access-rights word against hvemu's form. */
START_TEST(vmx_access_rights)
{
	/* 64-bit code: type B, S, DPL 0, P; L, G. */
	ck_assert_uint_eq(seg_attr_from_vmx_ar(0xa09b), 0xa9b);
	ck_assert_uint_eq(seg_attr_to_vmx_ar(0xa9b), 0xa09b);
	/* The unusable bit: P clear in hvemu's form, and back. */
	ck_assert_uint_eq(seg_attr_from_vmx_ar(0x1c093), 0xc13);
	ck_assert_uint_eq(seg_attr_to_vmx_ar(0xc13) & VMX_AR_UNUSABLE, VMX_AR_UNUSABLE);
	/* APM2 15.5.1: the VMCB attrib is hvemu's form, bits 15:12 ignored. */
	ck_assert_uint_eq(seg_attr_from_vmcb(0xfa9b), 0xa9b);
}
END_TEST

START_TEST(control_regs_together)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	/* SDM Vol.3 9.8.5: LMA = LME and PG; SDM Vol.3 2.5: CR0.ET reads 1. */
	cpu_set_control_regs(cpu, CR0_PE | CR0_PG, PML4, CR4_PAE, EFER_LME);
	ck_assert(cpu->efer & EFER_LMA);
	ck_assert(cpu->cr0 & CR0_ET);
	cpu_set_control_regs(cpu, CR0_PE, 0, 0, EFER_LME | EFER_LMA);
	ck_assert(!(cpu->efer & EFER_LMA));
	ck_assert_uint_eq(cpu->efer, EFER_LME);
	machine_free(&m);
}
END_TEST

START_TEST(fixed_bits)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	/* SDM Vol.3 17.2.3, 17.2.4: DR6 31:16 and 11:4 read 1, DR7 bit 10; 63:32 are 0. */
	cpu_set_debug_regs(cpu, 0xffffffff00000000ull, 0xffffffff00000000ull);
	ck_assert_uint_eq(cpu->dr[6], 0xffff0ff0u);
	ck_assert_uint_eq(cpu->dr[7], 0x400u);
	/* SDM Vol.1 3.4.3: reserved RFLAGS bits; the lazy flags dropped. */
	cpu->lazy.op = 1;
	cpu_set_rflags(cpu, ~0ull);
	ck_assert_uint_eq(cpu->rflags, 0x3f7fd7u);
	ck_assert_uint_eq(cpu_get_flags(cpu), 0x3f7fd7u);
	/* Slots: descriptor-table limits are 16 bits, CPL 2 bits, attributes 12
	 * bits after the commit, unmodelled state reads 0. */
	ws_set(cpu, WS_GDTR_LIMIT, 0x12345);
	ck_assert_uint_eq(cpu->gdtr.limit, 0x2345);
	ws_set(cpu, WS_CPL, 7);
	ck_assert_uint_eq(cpu->cpl, 3);
	ws_set(cpu, WS_FS_ATTR, 0xf093);
	ws_set(cpu, WS_FS_LIMIT, 0xffff);
	ws_commit(cpu, WSG_SEG << SR_FS);
	ck_assert_uint_eq(cpu->seg[SR_FS].attr, 0x093);
	ck_assert_uint_eq(cpu->seg[SR_FS].hi, 0xffff);
	ws_set(cpu, WS_PKRS, 5);
	ck_assert_uint_eq(ws_get(cpu, WS_PKRS), 0);
	ws_set(cpu, WS_KERNEL_GS_BASE, 0x1234);
	ck_assert_uint_eq(ws_get(cpu, WS_KERNEL_GS_BASE), 0x1234);
	machine_free(&m);
}
END_TEST

/* SDM Vol.3 26.4: an MSR load is WRMSR's effect, failing where WRMSR would #GP. */
START_TEST(msr_write_checked)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	cpu->regs[R_CX] = 0x77;
	ck_assert(cpu_msr_write_checked(cpu, MSR_PAT, 0x0007040600070406ull));
	ck_assert_uint_eq(cpu->pat, 0x0007040600070406ull);
	ck_assert(!cpu_msr_write_checked(cpu, MSR_PAT, 0x02));      /* type 2 is reserved */
	ck_assert_uint_eq(cpu->pat, 0x0007040600070406ull);
	uint64_t efer = cpu->efer;
	ck_assert(!cpu_msr_write_checked(cpu, MSR_EFER, 1ull << 63));
	ck_assert_uint_eq(cpu->efer, efer);
	ck_assert(!cpu_msr_write_checked(cpu, 0x12345678, 0));     /* no such MSR */
	ck_assert_uint_eq(cpu->regs[R_CX], 0x77);                   /* ECX as it was */
	machine_free(&m);
}
END_TEST

/* APM2 15.20, SDM Vol.3 26.6: an injected software interrupt returns to
 * return_rip; an injected NMI leaves NMIs blocked until IRET (SDM Vol.3 6.7.1). */
START_TEST(inject_events)
{
	struct test_machine m;
	machine_init_bare(&m, model_named("skylake-lite"), RAM_SIZE);
	struct cpu *cpu = &m.cpu;
	/* Real mode: IVT entries 2 and 0x20 -> 0000:0500; SS:SP = 0:8000. */
	physmem_write(&m.pm, 2 * 4, 4, 0x00000500);
	physmem_write(&m.pm, 0x20 * 4, 4, 0x00000500);
	seg_load_real(&cpu->seg[SR_CS], 0);
	seg_load_real(&cpu->seg[SR_SS], 0);
	cpu->regs[R_SP] = 0x8000;
	struct event ev = { .type = EV_SOFTINT, .vector = 0x20, .insn_len = 2 };
	ck_assert_int_eq(cpu_inject_event(cpu, &ev, 0x100, 0x102), ST_OK);
	ck_assert_uint_eq(cpu->rip, 0x500);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x8000 - 6, 2), 0x102);  /* the return IP */
	ck_assert(!cpu->event.pending);
	ck_assert(!cpu->nmi_blocked);
	cpu->regs[R_SP] = 0x8000;
	ev = (struct event){ .type = EV_NMI, .vector = EXC_NMI };
	ck_assert_int_eq(cpu_inject_event(cpu, &ev, 0x200, 0x200), ST_OK);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x8000 - 6, 2), 0x200);
	ck_assert(cpu->nmi_blocked);
	machine_free(&m);
}
END_TEST

/* A model that lets injected events be delivered and records the first other
 * event as an exit, with what was being delivered. */
static struct exit_record seen_exit;
static status_t record_nested(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	(void)ctx;
	(void)cpu;
	if (rec->kind != IK_EXCEPTION || rec->event.injected)
		return ST_OK;
	seen_exit = *rec;
	return ST_VMEXIT;
}

/* APM2 15.7.2, SDM Vol.3 26.6.1.1 / 27.2.4: a fault while delivering an
 * injected event exits with the injected event as EXITINTINFO / IDT-vectoring
 * information, marked injected, the guest at the entry's rIP. */
START_TEST(inject_fault_in_delivery)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	static const struct hv_model model = { .name = "record-nested", .intercept = record_nested };
	cpu->hv = &model;
	cpu->in_guest = true;
	cpu->idtr = (struct dtr){ .base = 0x9000, .limit = 0 };     /* no gate: #GP */
	struct event ev = { .type = EV_EXCEPTION, .vector = EXC_UD };
	memset(&seen_exit, 0, sizeof(seen_exit));
	ck_assert_int_eq(cpu_inject_event(cpu, &ev, 0x300, 0x300), ST_VMEXIT);
	ck_assert_uint_eq(seen_exit.event.vector, EXC_GP);
	ck_assert(seen_exit.vectoring_valid);
	ck_assert_uint_eq(seen_exit.vectoring.vector, EXC_UD);
	ck_assert(seen_exit.vectoring.injected);
	ck_assert_uint_eq(seen_exit.rip, 0x300);
	cpu->hv = NULL;
	cpu->in_guest = false;
	machine_free(&m);
}
END_TEST

/* The VMCB rows (svm/vmcb_fields.def through svm/vmcb_rows.h). */

/* Every row a world switch moves by slot has the slot's width. */
START_TEST(vmcb_rows_fit_their_slots)
{
	size_t n;
	const struct vmcb_field *t = vmcb_field_table(&n);
	for (size_t i = 0; i < n; i++)
		if (t[i].slot != WS_NONE && (t[i].xfer & (VMCB_XFER_R | VMCB_XFER_X | VMCB_XFER_L)) &&
		    !(t[i].xfer & VMCB_XFER_H))
			ck_assert_msg(ws_slot((enum ws_slot)t[i].slot)->size == t[i].size, "%s", t[i].name);
}
END_TEST

static struct vmcb vmcb_a, vmcb_b, vmcb_c;

/* APM2 15.15: a clean group's rows come from the cache, every other row from
 * the VMCB; the cache keeps the state as the #VMEXIT wrote it and the
 * controls as VMRUN latched them. */
START_TEST(vmcb_rows_clean_bits)
{
	struct vmcb *v = &vmcb_a, *cache = &vmcb_b, *e = &vmcb_c;
	memset(v, 0, sizeof(*v));
	memset(cache, 0, sizeof(*cache));
	v->save.cr3 = 0x1000;
	v->save.rip = 0x2000;
	v->control.guest_asid = 1;
	cache->save.cr3 = 0x3000;
	cache->save.rip = 0x4000;
	cache->control.guest_asid = 2;
	vmcb_rows_read(e, v, cache, 1u << SVM_CLEAN_CRX);
	ck_assert_uint_eq(e->save.cr3, 0x3000);
	ck_assert_uint_eq(e->save.rip, 0x2000);                 /* no clean bit covers RIP */
	ck_assert_uint_eq(e->control.guest_asid, 1);
	vmcb_rows_read(e, v, cache, 0);
	ck_assert_uint_eq(e->save.cr3, 0x1000);
	/* At the #VMEXIT: CR3 as saved (the VMCB), the ASID as latched (e). */
	v->save.cr3 = 0x5000;
	v->control.guest_asid = 9;
	vmcb_rows_fill_cache(cache, v, e);
	ck_assert_uint_eq(cache->save.cr3, 0x5000);
	ck_assert_uint_eq(cache->control.guest_asid, 1);
}
END_TEST

/* APM2 15.5.1 / 15.6: VMRUN loads the R rows into the CPU with the state's
 * own rules, #VMEXIT saves the E rows. */
START_TEST(vmcb_rows_load_save)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	struct vmcb *v = &vmcb_a;
	memset(v, 0, sizeof(*v));
	v->save.cs = (struct vmcb_seg){ .selector = 8, .attrib = 0xfa9b, .limit = 0xffffffff, .base = 0 };
	v->save.cr0 = CR0_PE | CR0_PG;
	v->save.cr4 = CR4_PAE;
	v->save.efer = EFER_LME | EFER_SVME;
	v->save.dr6 = 0;
	v->save.dr7 = 0;
	v->save.rflags = ~0ull;
	v->save.rip = 0x1234;
	v->save.cpl = 0;
	v->save.gdtr.limit = 0x1ffff;
	vmcb_rows_load(cpu, v);
	ck_assert_uint_eq(cpu->seg[SR_CS].attr, 0xa9b);
	ck_assert(cpu->seg[SR_CS].perm & SEG_PERM_EXEC);       /* hidden part recomputed */
	ck_assert(cpu->efer & EFER_LMA);
	ck_assert(cpu->cr0 & CR0_ET);
	ck_assert_uint_eq(cpu->dr[6], 0xffff0ff0u);
	ck_assert_uint_eq(cpu->dr[7], 0x400u);
	ck_assert_uint_eq(cpu->rflags, 0x3f7fd7u);
	ck_assert_uint_eq(cpu->rip, 0x1234);
	ck_assert_uint_eq(cpu->gdtr.limit, 0xffff);
	memset(v, 0, sizeof(*v));
	v->save.star = 0x77;                                     /* not an E row */
	vmcb_rows_save(cpu, v);
	ck_assert_uint_eq(v->save.cs.attrib, 0xa9b);
	ck_assert_uint_eq(v->save.efer, EFER_LME | EFER_LMA | EFER_SVME);
	ck_assert_uint_eq(v->save.rflags, 0x3f7fd7u);
	ck_assert_uint_eq(v->save.dr7, 0x400u);
	ck_assert_uint_eq(v->save.star, 0x77);
	machine_free(&m);
}
END_TEST

/* APM2 15.5.2: VMLOAD/VMSAVE move FS, GS, TR, LDTR and eight MSRs, nothing
 * else; VMLOAD sign-extends the bases and KernelGsBase. */
START_TEST(vmcb_rows_vmload_vmsave)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *cpu = &m.cpu;
	struct vmcb *v = &vmcb_a;
	memset(v, 0, sizeof(*v));
	v->save.fs = (struct vmcb_seg){ .selector = 0x10, .attrib = 0x093, .limit = 0xffff,
					.base = 0x0000800000001000ull };
	v->save.kernel_gs_base = 0x0000900000000000ull;
	v->save.star = 0x0023001000000000ull;
	v->save.cr3 = 0x5000;                                    /* VMRUN's, not VMLOAD's */
	uint64_t cr3 = cpu->cr3;
	vmcb_rows_vmload(cpu, v, 48);
	ck_assert_uint_eq(cpu->seg[SR_FS].base, 0xffff800000001000ull);
	ck_assert_uint_eq(cpu->kernel_gs_base, 0xffff900000000000ull);
	ck_assert_uint_eq(cpu->star, 0x0023001000000000ull);
	ck_assert_uint_eq(cpu->seg[SR_FS].hi, 0xffff);
	ck_assert_uint_eq(cpu->cr3, cr3);
	/* VMSAVE writes the rows' bytes and nothing between them. */
	const uint64_t pa = 0x200000;
	for (unsigned i = 0; i < sizeof(struct vmcb); i += 8)
		physmem_write(&m.pm, pa + i, 8, 0xaaaaaaaaaaaaaaaaull);
	vmcb_rows_vmsave(cpu, pa);
	unsigned changed = 0;
	for (unsigned i = 0; i < sizeof(struct vmcb); i++)
		changed += physmem_read(&m.pm, pa + i, 1) != 0xaa;
	ck_assert_uint_le(changed, 4 * 16 + 8 * 8);
	ck_assert_uint_eq(physmem_read(&m.pm, pa + 0x400 + 0x048, 8), 0xffff800000001000ull);
	ck_assert_uint_eq(physmem_read(&m.pm, pa + 0x400 + 0x060, 8), 0xaaaaaaaaaaaaaaaaull); /* GDTR */
	ck_assert_uint_eq(physmem_read(&m.pm, pa + 0x400 + 0x200, 8), 0x0023001000000000ull); /* STAR */
	machine_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("world_state");
	TCase *tc = tcase_create("state");
	tcase_add_test(tc, vmx_access_rights);
	tcase_add_test(tc, control_regs_together);
	tcase_add_test(tc, fixed_bits);
	tcase_add_test(tc, msr_write_checked);
	tcase_add_test(tc, inject_events);
	tcase_add_test(tc, inject_fault_in_delivery);
	tcase_add_test(tc, vmcb_rows_fit_their_slots);
	tcase_add_test(tc, vmcb_rows_clean_bits);
	tcase_add_test(tc, vmcb_rows_load_save);
	tcase_add_test(tc, vmcb_rows_vmload_vmsave);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
