/* Check suite for the SVM model (svm/): an L1 at CPL 0 in 32-bit protected
 * mode runs "vmrun; hlt" on a VMCB whose guest runs a few bytes of L2 code;
 * each case checks what the #VMEXIT wrote against the APM.
 *
 * Physical layout (16 MiB of RAM):
 *   1000H GDT (machine_fixture.h)   20000H L1 code     30000H VMCB
 *   40000H L2 code   48000H L2 IDT   4C000H L2 handlers   70000H L2 stack top
 *   50000H IOPM (12 KiB)   54000H MSRPM (8 KiB)   60000H host save area
 *   80000H L2's 2-level page directory   90000H nested 2-level page directory
 *   98000H L1's own page directory (when L1 pages and the nested tables do not
 *   map identity)
 */
#include <check.h>
#include <string.h>

#include "devices/lapic.h"
#include "emu/apic.h"
#include "emu/event_step.h"
#include "emu/hv.h"
#include "machine_fixture.h"
#include "suite_runner.h"
#include "svm/exit_codes.h"
#include "svm/svm.h"
#include "svm/vmcb.h"

#define L1_CODE  0x20000u
#define VMCB_PA  0x30000u
#define L2_CODE  0x40000u
#define L2_IDT   0x48000u
#define L2_ISR   0x4c000u
#define L2_STACK 0x70000u
#define IOPM     0x50000u
#define MSRPM    0x54000u
#define HSAVE    0x60000u
#define L2_PD    0x80000u
#define NPT_PD   0x90000u
#define L1_PD    0x98000u
#define RAM      (16u << 20)

struct world {
	struct test_machine m;
	struct svm *svm;
	struct vmcb *v;
	unsigned observed;
	struct vm_exit_report last;
	struct vm_exit_observer obs;
};

static void observe(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	(void)cpu;
	struct world *w = ctx;
	w->observed++;
	w->last = *r;
}

static struct vmcb_seg seg_of(const struct segment *s)
{
	return (struct vmcb_seg){ .selector = s->selector, .attrib = s->attr, .limit = s->limit, .base = s->base };
}

/* L1 with EFER.SVME and VM_HSAVE_PA set, a VMCB for an L2 that shares L1's
 * flat segments and runs at L2_CODE with paging off; VMRUN and VMMCALL
 * intercepted, ASID 1. quirks: svm_create()'s. */
static void world_init_cpu(struct world *w, const struct cpu_model *model, unsigned quirks)
{
	memset(w, 0, sizeof(*w));
	machine_init_bare(&w->m, model, RAM);
	struct cpu *c = &w->m.cpu;
	physmem_write(&w->m.pm, GDT_BASE + SEL_CODE32, 8, make_desc(0, 0xfffff, 0x9b, 0xc));
	physmem_write(&w->m.pm, GDT_BASE + SEL_DATA, 8, make_desc(0, 0xfffff, 0x93, 0xc));
	c->gdtr.base = GDT_BASE;
	c->gdtr.limit = 0x2f;
	for (unsigned s = 0; s < SR_COUNT; s++)
		seg_load_descriptor(&c->seg[s], s == SR_CS ? SEL_CODE32 : SEL_DATA,
				    physmem_read(&w->m.pm, GDT_BASE + (s == SR_CS ? SEL_CODE32 : SEL_DATA), 8));
	c->cr0 = CR0_PE | CR0_ET;
	cpu_update_mode(c);
	w->svm = svm_create(c, quirks);
	ck_assert_ptr_nonnull(w->svm);
	ck_assert_int_eq(wrmsr(&w->m, MSR_EFER, EFER_SVME), ST_OK);
	ck_assert_int_eq(wrmsr(&w->m, MSR_VM_HSAVE_PA, HSAVE), ST_OK);
	w->obs = (struct vm_exit_observer){ .exit = observe, .ctx = w, .want_insn = true };
	c->exit_observer = &w->obs;

	w->v = (struct vmcb *)(void *)physmem_ram_ptr(&w->m.pm, VMCB_PA);
	memset(w->v, 0, sizeof(*w->v));
	struct vmcb_control *ctl = &w->v->control;
	vmcb_set_intercept(ctl, SVM_INTERCEPT_VMRUN, 1);
	vmcb_set_intercept(ctl, SVM_INTERCEPT_VMMCALL, 1);
	ctl->guest_asid = 1;
	ctl->iopm_base_pa = IOPM;
	ctl->msrpm_base_pa = MSRPM;
	struct vmcb_save *g = &w->v->save;
	g->es = seg_of(&c->seg[SR_ES]);
	g->cs = seg_of(&c->seg[SR_CS]);
	g->ss = seg_of(&c->seg[SR_SS]);
	g->ds = seg_of(&c->seg[SR_DS]);
	g->gdtr = (struct vmcb_seg){ .base = GDT_BASE, .limit = 0x2f };
	g->idtr = (struct vmcb_seg){ .base = L2_IDT, .limit = 0x7ff };
	g->cr0 = CR0_PE | CR0_ET;
	g->efer = EFER_SVME;
	g->rflags = FLAG_FIXED1;
	g->rip = L2_CODE;
	g->rsp = L2_STACK;
	g->dr6 = 0xffff0ff0;
	g->dr7 = 0x400;

	physmem_write_bytes(&w->m.pm, L1_CODE, (const uint8_t[]){ 0x0f, 0x01, 0xd8, 0xf4 }, 4);
	c->rip = L1_CODE;
	c->regs[R_AX] = VMCB_PA;
}

/* A present 32-bit interrupt gate (DPL 0) to SEL_CODE32:off (SDM Vol.3
 * Figure 6-2), or the same gate not present. */
static uint64_t int_gate32(uint32_t off, bool present)
{
	return (off & 0xffff) | ((uint64_t)SEL_CODE32 << 16) | ((uint64_t)(present ? 0x8e : 0x0e) << 40) |
	       ((uint64_t)(off >> 16) << 48);
}

static void world_init_quirks(struct world *w, const char *model, unsigned quirks)
{
	world_init_cpu(w, model_named(model), quirks);
}

static void world_init(struct world *w, const char *model)
{
	world_init_quirks(w, model, 0);
}

static void world_free(struct world *w)
{
	svm_destroy(w->svm);
	machine_free(&w->m);
}

/* Run L1 from VMRUN until its HLT (the exit, then hlt): ST_HALT. */
static status_t world_run(struct world *w, const uint8_t *l2, unsigned len)
{
	struct cpu *c = &w->m.cpu;
	if (l2)
		physmem_write_bytes(&w->m.pm, L2_CODE, l2, len);
	c->icount_limit = c->icount + 10000;
	return cpu_run(c);
}
#define RUN_L2(w, ...) world_run((w), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* The L1 after an exit: back at its HLT, CPL 0, GIF 0, not in the guest. */
static void assert_back_in_l1(struct world *w)
{
	struct cpu *c = &w->m.cpu;
	ck_assert(!c->in_guest);
	ck_assert(!c->gif);
	ck_assert_uint_eq(c->rip, L1_CODE + 4);
	ck_assert_uint_eq(c->regs[R_AX], VMCB_PA);
	ck_assert_uint_eq(c->cpl, 0);
	ck_assert_uint_eq(c->dr[7], 0x400);
}

/* ---- the world switch ---- */

START_TEST(vmmcall_round_trip)
{
	struct world w;
	world_init(&w, "epyc-lite");
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);
	assert_back_in_l1(&w);
	/* APM2 Appendix C: VMEXIT_VMMCALL 81h; 15.7.1 NRIP; the guest's RIP is
	 * the VMMCALL itself (intercepted instructions do not execute). */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.v->control.nrip, L2_CODE + 3);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE);
	ck_assert_uint_eq(w.v->control.exitintinfo, 0);
	ck_assert_uint_eq(w.observed, 1);
	ck_assert_str_eq(w.last.name, "VMEXIT_VMMCALL");
	ck_assert_uint_eq(w.last.insn_len, 15);
	ck_assert_uint_eq(w.last.insn[2], 0xd9);
	world_free(&w);
}
END_TEST

START_TEST(vmmcall_without_intercept_is_ud)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_VMMCALL, 0);
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_UD), 1);
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);
	/* APM3 VMMCALL: #UD when not intercepted; the #UD intercept takes it. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_UD);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE);
	world_free(&w);
}
END_TEST

START_TEST(guest_state_round_trip)
{
	struct world w;
	world_init(&w, "epyc-lite");
	w.v->save.rax = 0x11223344;
	/* mov ebx, 0x5a5a; vmmcall */
	ck_assert_int_eq(RUN_L2(&w, 0xbb, 0x5a, 0x5a, 0, 0, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.v->save.rax, 0x11223344);   /* the guest's RAX, saved */
	ck_assert_uint_eq(w.m.cpu.regs[R_BX], 0x5a5a);  /* RBX is not switched */
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 5);
	ck_assert_uint_eq(w.v->save.cpl, 0);
	ck_assert_uint_eq(w.v->save.cs.selector, SEL_CODE32);
	world_free(&w);
}
END_TEST

/* ---- the instructions' own rules ---- */

START_TEST(vmrun_ud_without_svme)
{
	struct world w;
	world_init(&w, "epyc-lite");
	ck_assert_int_eq(wrmsr(&w.m, MSR_EFER, 0), ST_OK);
	/* APM3 VMRUN: #UD with EFER.SVME = 0. */
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xd8), ST_FAULT);
	ck_assert_uint_eq(w.m.cpu.event.vector, EXC_UD);
	world_free(&w);
}
END_TEST

START_TEST(vmrun_gp_rules)
{
	struct world w;
	world_init(&w, "epyc-lite");
	/* APM3 VMRUN: #GP(0) for rAX not 4 KiB aligned, beyond MAXPHYADDR. */
	w.m.cpu.regs[R_AX] = VMCB_PA + 8;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xd8), ST_FAULT);
	ck_assert_uint_eq(w.m.cpu.event.vector, EXC_GP);
	/* #GP(0) at CPL > 0. */
	w.m.cpu.regs[R_AX] = VMCB_PA;
	w.m.cpu.cpl = 3;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xd8), ST_FAULT);
	ck_assert_uint_eq(w.m.cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(w.m.cpu.event.error_code, 0);
	world_free(&w);
}
END_TEST

START_TEST(svm_insns_ud_in_real_mode)
{
	struct world w;
	world_init(&w, "epyc-lite");
	w.m.cpu.cr0 &= ~(uint64_t)CR0_PE;
	cpu_update_mode(&w.m.cpu);
	/* APM3: VMRUN, VMLOAD, VMSAVE, STGI, CLGI, INVLPGA are #UD outside
	 * protected mode. */
	static const uint8_t modrm[] = { 0xd8, 0xda, 0xdb, 0xdc, 0xdd, 0xdf };
	for (unsigned i = 0; i < sizeof(modrm); i++) {
		ck_assert_int_eq(exec(&w.m, (const uint8_t[]){ 0x0f, 0x01, modrm[i] }, 3), ST_FAULT);
		ck_assert_uint_eq(w.m.cpu.event.vector, EXC_UD);
	}
	world_free(&w);
}
END_TEST

START_TEST(clgi_stgi_hold_gif)
{
	struct world w;
	world_init(&w, "epyc-lite");
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xdd), ST_OK);   /* clgi */
	ck_assert(!w.m.cpu.gif);
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xdc), ST_OK);   /* stgi */
	ck_assert(w.m.cpu.gif);
	world_free(&w);
}
END_TEST

START_TEST(vmsave_vmload_move_the_listed_state)
{
	struct world w;
	world_init(&w, "epyc-lite");
	struct cpu *c = &w.m.cpu;
	c->star = 0x1234;
	c->sysenter_eip = 0x5678;
	c->seg[SR_FS].base = 0xabc000;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xdb), ST_OK);   /* vmsave */
	ck_assert_uint_eq(w.v->save.star, 0x1234);
	ck_assert_uint_eq(w.v->save.sysenter_eip, 0x5678);
	ck_assert_uint_eq(w.v->save.fs.base, 0xabc000);
	w.v->save.lstar = 0xfeed;
	w.v->save.gs.base = 0x777000;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xda), ST_OK);   /* vmload */
	ck_assert_uint_eq(c->lstar, 0xfeed);
	ck_assert_uint_eq(c->seg[SR_GS].base, 0x777000);
	world_free(&w);
}
END_TEST

START_TEST(vmrun_single_step_traps_after_vmexit)
{
	/* The host's TF at VMRUN: no trap in the guest; the #DB (DR6.BS) comes
	 * once the #VMEXIT has returned to the host, with the instruction after
	 * VMRUN as its return address (APM2, as kvm-unit-tests' host_rflags
	 * tests it). L1's #DB gate leads to a HLT. */
	struct world w;
	world_init(&w, "epyc-lite");
	struct cpu *c = &w.m.cpu;
	const uint32_t l1_idt = 0xa0000, l1_db = 0xa8000, l1_stack = 0x78000;
	physmem_write(&w.m.pm, l1_idt + EXC_DB * 8, 8, int_gate32(l1_db, true));
	physmem_write_bytes(&w.m.pm, l1_db, (const uint8_t[]){ 0xf4 }, 1);
	c->idtr = (struct dtr){ .base = l1_idt, .limit = 0x7ff };
	c->regs[R_SP] = l1_stack;
	c->rflags |= FLAG_TF;
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);        /* vmmcall */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(c->rip, l1_db + 1);
	ck_assert_uint_eq(physmem_read(&w.m.pm, l1_stack - 12, 4), L1_CODE + 3);
	ck_assert(c->dr[6] & (1u << 14));
	world_free(&w);
}
END_TEST

START_TEST(vmload_canonicalizes_bases)
{
	/* AMD processors sign-extend the bases VMLOAD loads from the 48-bit
	 * linear-address width (epyc-lite has no LA57); APM2 15.5.2 is silent. */
	struct world w;
	world_init(&w, "epyc-lite");
	struct cpu *c = &w.m.cpu;
	w.v->save.fs.base = 0xaaaa000000001000ull;
	w.v->save.gs.base = 0x0000900000002000ull;
	w.v->save.tr.base = 0x1234800000003000ull;
	w.v->save.ldtr.base = 0x00007fff00004000ull;
	w.v->save.kernel_gs_base = 0xaaaa000000005000ull;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xda), ST_OK);   /* vmload */
	ck_assert_uint_eq(c->seg[SR_FS].base, 0x0000000000001000ull);
	ck_assert_uint_eq(c->seg[SR_GS].base, 0xffff900000002000ull);
	ck_assert_uint_eq(c->tr.base, 0xffff800000003000ull);
	ck_assert_uint_eq(c->ldtr.base, 0x00007fff00004000ull);
	ck_assert_uint_eq(c->kernel_gs_base, 0x0000000000005000ull);
	world_free(&w);
}
END_TEST

/* ---- consistency checks: one mutation per APM2 15.5.1 row ---- */

static void no_svme(struct vmcb *v) { v->save.efer &= ~(uint64_t)EFER_SVME; }
static void cd0_nw1(struct vmcb *v) { v->save.cr0 |= CR0_NW; }
static void cr0_high(struct vmcb *v) { v->save.cr0 |= 1ull << 32; }
static void cr3_high(struct vmcb *v) { v->save.cr3 = 1ull << 33; }
static void cr4_mbz(struct vmcb *v) { v->save.cr4 = 1ull << 31; }
static void dr6_high(struct vmcb *v) { v->save.dr6 |= 1ull << 32; }
static void dr7_high(struct vmcb *v) { v->save.dr7 |= 1ull << 40; }
static void efer_mbz(struct vmcb *v) { v->save.efer |= 1ull << 20; }
static void lm_no_pae(struct vmcb *v) { v->save.efer |= EFER_LME; v->save.cr0 |= CR0_PG; }
static void lm_cs_ld(struct vmcb *v)
{
	v->save.efer |= EFER_LME;
	v->save.cr0 |= CR0_PG;
	v->save.cr4 |= CR4_PAE;
	v->save.cs.attrib |= SVM_SEG_ATTR_L | SVM_SEG_ATTR_DB;
}
static void no_vmrun_intercept(struct vmcb *v) { vmcb_set_intercept(&v->control, SVM_INTERCEPT_VMRUN, 0); }
static void msrpm_beyond(struct vmcb *v)
{
	vmcb_set_intercept(&v->control, SVM_INTERCEPT_MSR_PROT, 1);
	v->control.msrpm_base_pa = (1ull << 40) - 0x1000;
}
static void iopm_beyond(struct vmcb *v)
{
	vmcb_set_intercept(&v->control, SVM_INTERCEPT_IOIO_PROT, 1);
	v->control.iopm_base_pa = (1ull << 40) - 0x2000;
}
static void eventinj_reserved_type(struct vmcb *v) { v->control.eventinj = SVM_EVENT_VALID | (1u << 8) | 32; }
static void eventinj_nmi_as_exception(struct vmcb *v) { v->control.eventinj = SVM_EVENT_VALID | (3u << 8) | 2; }
static void asid_zero(struct vmcb *v) { v->control.guest_asid = 0; }
/* The world's L1 runs unpaged: APM2 15.25.3 forbids nested paging then. */
static void np_host_unpaged(struct vmcb *v) { v->control.np_control = SVM_NP_ENABLE; }
static void br_into_64bit(struct vmcb *v)
{
	v->save.efer |= EFER_LME;
	v->save.cr0 |= CR0_PG;
	v->save.cr4 |= CR4_PAE;
	v->save.cs.attrib |= SVM_SEG_ATTR_L;
	v->save.cs.attrib &= (uint16_t)~SVM_SEG_ATTR_DB;
	v->control.eventinj = SVM_EVENT_VALID | (3u << 8) | EXC_BR;
}

static void (*const illegal[])(struct vmcb *) = {
	no_svme, cd0_nw1, cr0_high, cr3_high, cr4_mbz, dr6_high, dr7_high, efer_mbz, lm_no_pae,
	lm_cs_ld, no_vmrun_intercept, msrpm_beyond, iopm_beyond, eventinj_reserved_type,
	eventinj_nmi_as_exception, asid_zero, np_host_unpaged, br_into_64bit,
};

START_TEST(consistency_check_fails_vmrun)
{
	struct world w;
	world_init(&w, "epyc-lite");
	illegal[_i](w.v);
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);
	/* APM2 15.5.1: VMEXIT_INVALID (-1); the host continues after VMRUN. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_INVALID);
	assert_back_in_l1(&w);
	ck_assert_uint_eq(w.observed, 1);
	ck_assert_ptr_nonnull(w.last.failed_check);
	world_free(&w);
}
END_TEST

/* ---- intercepts and their information ---- */

START_TEST(cpuid_intercept)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CPUID, 1);
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0xa2), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CPUID);
	ck_assert_uint_eq(w.v->control.nrip, L2_CODE + 2);
	world_free(&w);
}
END_TEST

START_TEST(ioio_encoding)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_IOIO_PROT, 1);
	physmem_write(&w.m.pm, IOPM + 0x3f9 / 8, 1, 1u << (0x3f9 % 8));
	/* mov dx, 0x3f8; in ax, dx: a 16-bit read of 3F8-3F9 reaches the bit of 3F9. */
	ck_assert_int_eq(RUN_L2(&w, 0x66, 0xba, 0xf8, 0x03, 0x66, 0xed), ST_HALT);
	/* APM2 15.10.2: port 31:16, SZ16, A32, IN; EXITINFO2 the next RIP. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_IOIO);
	ck_assert_uint_eq(w.v->control.exitinfo1,
			  (0x3f8ull << 16) | SVM_IOIO_SZ16 | SVM_IOIO_A32 | SVM_IOIO_TYPE_IN);
	ck_assert_uint_eq(w.v->control.exitinfo2, L2_CODE + 6);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 4);
	world_free(&w);
}
END_TEST

START_TEST(ioio_string_rep_segment)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_IOIO_PROT, 1);
	physmem_write(&w.m.pm, IOPM + 0x80 / 8, 1, 1u << (0x80 % 8));
	/* mov dx, 0x80; mov ecx, 1; rep outsb with an FS override */
	ck_assert_int_eq(RUN_L2(&w, 0x66, 0xba, 0x80, 0x00, 0xb9, 1, 0, 0, 0, 0x64, 0xf3, 0x6e), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitinfo1, (0x80ull << 16) | SVM_IOIO_SZ8 | SVM_IOIO_A32 | SVM_IOIO_STR |
							  SVM_IOIO_REP | ((uint64_t)SR_FS << SVM_IOIO_SEG_SHIFT));
	world_free(&w);
}
END_TEST

START_TEST(msr_intercepts)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_MSR_PROT, 1);
	/* APM2 15.11: EFER (C000_0080h) read: bit 2*0x80 of the 800h range. */
	physmem_write(&w.m.pm, MSRPM + 0x800 + 0x80 * 2 / 8, 1, 1u << ((0x80 * 2) % 8));
	/* mov ecx, 0xc0000080; rdmsr */
	ck_assert_int_eq(RUN_L2(&w, 0xb9, 0x80, 0, 0, 0xc0, 0x0f, 0x32), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_MSR);
	ck_assert_uint_eq(w.v->control.exitinfo1, 0);
	world_free(&w);

	/* An MSR in no range is always intercepted; WRMSR: EXITINFO1 = 1. */
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_MSR_PROT, 1);
	ck_assert_int_eq(RUN_L2(&w, 0xb9, 0, 0, 0, 0x40, 0x0f, 0x30), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_MSR);
	ck_assert_uint_eq(w.v->control.exitinfo1, 1);
	world_free(&w);
}
END_TEST

START_TEST(cr_access_decode_assists)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_CR_READ + 3), 1);
	/* mov esi, cr3 (0F 20 DE): APM2 15.33 EXITINFO1 bit 63 | GPR 6. */
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x20, 0xde), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CR_READ + 3);
	ck_assert_uint_eq(w.v->control.exitinfo1, SVM_CRDR_MOV | 6);
	world_free(&w);
}
END_TEST

START_TEST(cr0_selective_write)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CR0_SEL_WRITE, 1);
	/* mov eax, cr0; or al, 8 (TS); mov cr0, eax: only TS changes, no exit;
	 * then or eax, 0x20000 (AM); mov cr0, eax: APM2 15.8.1 exit 65h. */
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x20, 0xc0, 0x0c, 0x08, 0x0f, 0x22, 0xc0, 0x0d, 0x00, 0x00, 0x04, 0x00,
				0x0f, 0x22, 0xc0),
			 ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CR0_SEL_WRITE);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 13);
	ck_assert(w.v->save.cr0 & CR0_TS);
	world_free(&w);
}
END_TEST

START_TEST(pause_filter)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_PAUSE, 1);
	w.v->control.pause_filter_count = 3;
	/* pause x3: APM2 15.14.4, the third brings the count to 0 and exits. */
	ck_assert_int_eq(RUN_L2(&w, 0xf3, 0x90, 0xf3, 0x90, 0xf3, 0x90), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_PAUSE);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 4);
	world_free(&w);
}
END_TEST

/* L2 with 2-level paging: PD at L2_PD, 4 MiB pages identity for 0-16 MiB
 * except PD[0] (0-4 MiB) absent; L2 code moves to 4 MiB. */
static void l2_paging(struct world *w)
{
	for (unsigned i = 1; i < 4; i++)
		physmem_write(&w->m.pm, L2_PD + i * 4, 4, (i << 22) | 0x83);
	w->v->save.cr0 |= CR0_PG;
	w->v->save.cr4 |= CR4_PSE;
	w->v->save.cr3 = L2_PD;
	w->v->save.rip = 0x400000;
	w->v->save.rsp = 0x800000;
	w->v->save.gdtr.base = 0x500000;
	physmem_write(&w->m.pm, 0x500000 + SEL_CODE32, 8, make_desc(0, 0xfffff, 0x9b, 0xc));
	physmem_write(&w->m.pm, 0x500000 + SEL_DATA, 8, make_desc(0, 0xfffff, 0x93, 0xc));
}

START_TEST(pf_intercept_exitinfo)
{
	struct world w;
	world_init(&w, "epyc-lite");
	l2_paging(&w);
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_PF), 1);
	/* mov eax, [0x1234] */
	physmem_write_bytes(&w.m.pm, 0x400000, (const uint8_t[]){ 0xa1, 0x34, 0x12, 0, 0 }, 5);
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	/* APM2 15.12: error code in EXITINFO1 (read, supervisor, not present),
	 * the address in EXITINFO2, CR2 untouched; 15.33 the instruction bytes. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_PF);
	ck_assert_uint_eq(w.v->control.exitinfo1, 0);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x1234);
	ck_assert_uint_eq(w.v->save.cr2, 0);
	ck_assert_uint_eq(w.v->save.rip, 0x400000);
	ck_assert_uint_eq(w.v->control.insn_len, 15);
	ck_assert_uint_eq(w.v->control.insn_bytes[0], 0xa1);
	world_free(&w);
}
END_TEST

/* The Escape/NOVA case: a GDT read at GDTR.base + index past 4 GiB wraps to a
 * 32-bit linear address (APM2 15.12: EXITINFO2 the faulting linear address);
 * the qemu-exitinfo2-nowrap quirk reports the unwrapped sum as QEMU 7.2 did. */
static void gdt_read_past_4g(struct world *w)
{
	l2_paging(w);
	vmcb_set_intercept(&w->v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_PF), 1);
	w->v->save.gdtr = (struct vmcb_seg){ .base = 0xfffff000, .limit = 0xffff };
	/* mov ax, 0x1010; mov ds, ax: descriptor at 0xfffff000 + 0x1010. */
	physmem_write_bytes(&w->m.pm, 0x400000, (const uint8_t[]){ 0x66, 0xb8, 0x10, 0x10, 0x8e, 0xd8 }, 6);
}

START_TEST(pf_exitinfo2_wraps_32bit)
{
	struct world w;
	world_init(&w, "epyc-lite");
	gdt_read_past_4g(&w);
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_PF);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x10);
	world_free(&w);
}
END_TEST

START_TEST(pf_exitinfo2_quirk_nowrap)
{
	struct world w;
	world_init_quirks(&w, "epyc-lite", QUIRK_BIT(QK_QEMU_EXITINFO2_NOWRAP));
	gdt_read_past_4g(&w);
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_PF);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x100000010ull);
	world_free(&w);
}
END_TEST

START_TEST(npf_2level_host)
{
	struct world w;
	world_init(&w, "epyc-lite");
	/* Nested tables in the host's format (L1: no PAE -> 2-level, APM2
	 * 15.25.4, with the host's CR4.PSE for 4 MiB pages): identity 4 MiB
	 * pages for 0-8 MiB, 8-12 MiB absent. */
	w.m.cpu.cr4 |= CR4_PSE;
	physmem_write(&w.m.pm, NPT_PD + 0, 4, 0x000000 | 0x87);
	physmem_write(&w.m.pm, NPT_PD + 4, 4, 0x400000 | 0x87);
	/* APM2 15.25.3: the host must page; the same identity tables serve. */
	w.m.cpu.cr3 = NPT_PD;
	w.m.cpu.cr0 |= CR0_PG;
	cpu_update_mode(&w.m.cpu);
	w.v->control.np_control = SVM_NP_ENABLE;
	w.v->control.n_cr3 = NPT_PD;
	/* mov [0x900000], eax */
	ck_assert_int_eq(RUN_L2(&w, 0xa3, 0x00, 0x00, 0x90, 0x00), ST_HALT);
	/* APM2 15.25.6: EXITINFO1 = US | RW (not present) | final (bit 32);
	 * EXITINFO2 = the guest-physical address. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_NPF);
	ck_assert_uint_eq(w.v->control.exitinfo1, SVM_NPF_FINAL_ADDR | 0x6);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x900000);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE);
	world_free(&w);
}
END_TEST

START_TEST(npf_insn_bytes_through_nested_tables)
{
	struct world w;
	world_init(&w, "epyc-lite");
	/* Case 1 as --tlb flush: no TLB entry, the bytes come from a walk. */
	w.m.cpu.tlb_uncached = _i == 1;
	/* L1 pages with identity 4 MiB pages for 0-8 MiB (APM2 15.25.3); the
	 * nested tables map guest-physical 0-4 MiB to host 4-8 MiB and nothing
	 * else, so L2's code at guest-physical L2_CODE is at host L2_CODE +
	 * 400000H, and host L2_CODE holds other bytes. */
	const uint32_t g2h = 0x400000;
	w.m.cpu.cr4 |= CR4_PSE;
	physmem_write(&w.m.pm, L1_PD + 0, 4, 0x000000 | 0x87);
	physmem_write(&w.m.pm, L1_PD + 4, 4, 0x400000 | 0x87);
	physmem_write(&w.m.pm, NPT_PD + 0, 4, g2h | 0x87);
	w.m.cpu.cr3 = L1_PD;
	w.m.cpu.cr0 |= CR0_PG;
	cpu_update_mode(&w.m.cpu);
	w.v->control.np_control = SVM_NP_ENABLE;
	w.v->control.n_cr3 = NPT_PD;
	/* mov [0x500000], eax: guest-physical 500000H is not mapped. */
	physmem_write_bytes(&w.m.pm, L2_CODE + g2h, (const uint8_t[]){ 0xa3, 0x00, 0x00, 0x50, 0x00 }, 5);
	physmem_write_bytes(&w.m.pm, L2_CODE, (const uint8_t[]){ 0xcc, 0xcc, 0xcc, 0xcc, 0xcc }, 5);
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_NPF);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x500000);
	/* APM2 15.33: the bytes at CS:rIP as the guest fetches them, through
	 * the nested tables; the observer's report shows the same ones. */
	ck_assert_uint_eq(w.v->control.insn_len, 15);
	ck_assert_uint_eq(w.v->control.insn_bytes[0], 0xa3);
	ck_assert_uint_eq(w.v->control.insn_bytes[3], 0x50);
	ck_assert_uint_eq(w.last.insn_len, 15);
	ck_assert_uint_eq(w.last.insn[0], 0xa3);
	ck_assert_uint_eq(w.last.insn[3], 0x50);
	world_free(&w);
}
END_TEST

/* A PAE L2 under nested paging whose PDPTE 0 has reserved bit 1 set: VMRUN
 * accepts it (APM2 15.5.1 has no PDPTE check; 15.25.10: with NP the PDPTEs are
 * read at each walk) and the first fetch is the guest's #PF with P and RSVD
 * (APM2 8.4.2), here intercepted. Also after the guest's own MOV CR3. */
#define L2_PDPT 0xa0000u
START_TEST(npt_pae_guest_reserved_pdpte_faults_at_walk)
{
	for (unsigned reload = 0; reload < 2; reload++) {
		struct world w;
		world_init(&w, "epyc-lite");
		w.m.cpu.cr4 |= CR4_PSE;
		physmem_write(&w.m.pm, NPT_PD + 0, 4, 0x000000 | 0x87);
		physmem_write(&w.m.pm, NPT_PD + 4, 4, 0x400000 | 0x87);
		w.m.cpu.cr3 = NPT_PD;
		w.m.cpu.cr0 |= CR0_PG;
		cpu_update_mode(&w.m.cpu);
		w.v->control.np_control = SVM_NP_ENABLE;
		w.v->control.n_cr3 = NPT_PD;
		vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_PF), 1);
		/* PDPTE 0 -> a PD of one 2 MiB identity page; bit 1 is reserved. */
		physmem_write(&w.m.pm, L2_PDPT, 8, (L2_PD | PTE_P) | (reload ? 0 : 2));
		physmem_write(&w.m.pm, L2_PD, 8, 0x83 | 0x4);
		w.v->save.cr0 = CR0_PE | CR0_ET | CR0_PG;
		w.v->save.cr4 = CR4_PAE;
		w.v->save.cr3 = L2_PDPT;
		w.v->save.rsp = L2_STACK;
		/* reload: a clean PDPTE at VMRUN; the guest sets bit 1 (or [eax], 2)
		 * and reloads CR3 (mov cr3, ebx), which loads nothing; the next
		 * fetch walks. */
		w.m.cpu.regs[R_AX] = VMCB_PA;
		physmem_write_bytes(&w.m.pm, L2_CODE, (const uint8_t[]){
			0xb9, L2_PDPT & 0xff, (L2_PDPT >> 8) & 0xff, (L2_PDPT >> 16) & 0xff, 0,  /* mov ecx, pdpt */
			0x83, 0x09, 0x02,                   /* or dword [ecx], 2 */
			0x0f, 0x22, 0xd9,                   /* mov cr3, ecx */
			0x90 }, 12);
		w.m.cpu.icount_limit = w.m.cpu.icount + 10000;
		ck_assert_int_eq(cpu_run(&w.m.cpu), ST_HALT);
		ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_PF);
		ck_assert_uint_eq(w.v->control.exitinfo1 & 0x9, 0x9);   /* P | RSVD */
		ck_assert_uint_eq(w.v->control.exitinfo2, reload ? L2_CODE + 11 : L2_CODE);
		world_free(&w);
	}
}
END_TEST

/* --cpu epyc-lite,-npt: the SVM model sees a CPU without nested paging
 * (CPUID Fn8000_000A_EDX[NP] = 0) and fails a VMRUN with NP_ENABLE, as KVM
 * does; without NP_ENABLE the guest runs. */
START_TEST(no_npt_model_fails_np_enable)
{
	char err[128];
	const struct cpu_model *cm = cpu_model_parse("epyc-lite,-npt", err, sizeof(err));
	ck_assert_ptr_nonnull(cm);
	struct world w;
	world_init_cpu(&w, cm, 0);
	uint32_t r[4];
	cpu_cpuid(&w.m.cpu, 0x8000000a, 0, r);
	ck_assert_uint_eq(r[3] & 1, 0);
	w.m.cpu.cr0 |= CR0_PG;         /* host paging on an identity 4 MiB map */
	w.m.cpu.cr4 |= CR4_PSE;
	physmem_write(&w.m.pm, NPT_PD, 4, 0x87);
	w.m.cpu.cr3 = NPT_PD;
	cpu_update_mode(&w.m.cpu);
	w.v->control.np_control = SVM_NP_ENABLE;
	w.v->control.n_cr3 = NPT_PD;
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_INVALID);
	w.v->control.np_control = 0;
	w.m.cpu.rip = L1_CODE;
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	world_free(&w);
	cpu_model_release(cm);
}
END_TEST

/* L2's IDT: gate vec -> a handler at L2_ISR that does VMMCALL. */
static void l2_gate(struct world *w, unsigned vec, bool present)
{
	physmem_write(&w->m.pm, L2_IDT + vec * 8, 8, int_gate32(L2_ISR, present));
	physmem_write_bytes(&w->m.pm, L2_ISR, (const uint8_t[]){ 0x0f, 0x01, 0xd9 }, 3);
}

START_TEST(eventinj_exception_with_error)
{
	struct world w;
	world_init(&w, "epyc-lite");
	l2_gate(&w, EXC_GP, true);
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_GP), 1);
	w.v->control.eventinj = SVM_EVENT_VALID | SVM_EVENT_ERROR_VALID | (3u << 8) | EXC_GP | (0x1234ull << 32);
	ck_assert_int_eq(RUN_L2(&w, 0x90), ST_HALT);
	/* APM2 15.20: taken before the first instruction, whatever the
	 * intercepts; the handler's VMMCALL exits with the frame on the stack. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.v->save.rip, L2_ISR);
	ck_assert_uint_eq(w.v->save.rsp, L2_STACK - 16);
	ck_assert_uint_eq(physmem_read(&w.m.pm, L2_STACK - 16, 4), 0x1234);
	ck_assert_uint_eq(physmem_read(&w.m.pm, L2_STACK - 12, 4), L2_CODE);
	ck_assert(!(w.v->control.eventinj & SVM_EVENT_VALID));
	world_free(&w);
}
END_TEST

START_TEST(eventinj_softint_returns_to_nrip)
{
	struct world w;
	world_init(&w, "epyc-lite");
	l2_gate(&w, 0x40, true);
	/* APM2 15.20 with NRIP_SAVE: an injected INTn returns to NRIP. */
	w.v->control.eventinj = SVM_EVENT_VALID | (4u << 8) | 0x40;
	w.v->control.nrip = L2_CODE + 2;
	ck_assert_int_eq(RUN_L2(&w, 0xcd, 0x40), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.v->save.rip, L2_ISR);
	ck_assert_uint_eq(physmem_read(&w.m.pm, L2_STACK - 12, 4), L2_CODE + 2);
	world_free(&w);
}
END_TEST

START_TEST(exitintinfo_during_delivery)
{
	struct world w;
	world_init(&w, "epyc-lite");
	l2_gate(&w, 0x30, false);
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_NP), 1);
	w.v->control.eventinj = SVM_EVENT_VALID | (0u << 8) | 0x30;
	ck_assert_int_eq(RUN_L2(&w, 0x90), ST_HALT);
	/* The gate is not present: #NP(vector*8+2+EXT) while delivering the
	 * injected interrupt; APM2 15.7.2 EXITINTINFO = that interrupt. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_NP);
	ck_assert_uint_eq(w.v->control.exitinfo1, 0x30 * 8 + 2 + 1);
	ck_assert_uint_eq(w.v->control.exitintinfo, SVM_EVENT_VALID | 0x30);
	world_free(&w);
}
END_TEST

START_TEST(vintr_intercept)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_VINTR, 1);
	w.v->control.vintr = SVM_VINTR_IRQ | SVM_VINTR_IGN_TPR | (0x41ull << SVM_VINTR_VECTOR_SHIFT);
	/* sti; nop; nop: after the STI shadow the virtual interrupt would be
	 * taken: APM2 15.21.4 VINTR exit, V_IRQ still set. */
	ck_assert_int_eq(RUN_L2(&w, 0xfb, 0x90, 0x90), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VINTR);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 2);
	ck_assert(w.v->control.vintr & SVM_VINTR_IRQ);
	world_free(&w);
}
END_TEST

START_TEST(virtual_interrupt_taken)
{
	struct world w;
	world_init(&w, "epyc-lite");
	l2_gate(&w, 0x41, true);
	w.v->control.vintr = SVM_VINTR_IRQ | SVM_VINTR_IGN_TPR | (0x41ull << SVM_VINTR_VECTOR_SHIFT);
	w.v->save.rflags |= FLAG_IF;
	ck_assert_int_eq(RUN_L2(&w, 0x90), ST_HALT);
	/* Delivered through vector 41h (the handler's VMMCALL exits); V_IRQ is
	 * written back clear. */
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.v->save.rip, L2_ISR);
	ck_assert(!(w.v->control.vintr & SVM_VINTR_IRQ));
	world_free(&w);
}
END_TEST

START_TEST(clean_bits_keep_cached_intercepts)
{
	struct world w;
	world_init(&w, "epyc-lite");
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CPUID, 1);
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0xa2, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CPUID);
	/* Drop the CPUID intercept but mark the intercepts clean: APM2 15.15
	 * lets the processor use its cached copy, and hvemu (--tlb exact) does. */
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CPUID, 0);
	w.v->control.clean = 1u << SVM_CLEAN_I;
	w.m.cpu.rip = L1_CODE;
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CPUID);
	/* With the bit clear the new vector is used: VMMCALL is next. */
	w.v->control.clean = 0;
	w.m.cpu.rip = L1_CODE;
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	world_free(&w);
}
END_TEST

START_TEST(clean_bits_ignored_under_tlb_flush)
{
	struct world w;
	world_init(&w, "epyc-lite");
	w.m.cpu.tlb_uncached = true;
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CPUID, 1);
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0xa2, 0x0f, 0x01, 0xd9), ST_HALT);
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_CPUID, 0);
	w.v->control.clean = ~0u;
	w.m.cpu.rip = L1_CODE;
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	world_free(&w);
}
END_TEST

START_TEST(tsc_offset_applies_in_guest)
{
	struct world w;
	world_init(&w, "epyc-lite");
	w.v->control.tsc_offset = 1000000;
	/* rdtsc; vmmcall */
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x31, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_ge(w.v->save.rax, 1000000);
	ck_assert_uint_lt(w.m.cpu.tsc_offset, 1000000);
	world_free(&w);
}
END_TEST

START_TEST(opteron_has_no_nrip_or_decode_assists)
{
	struct world w;
	world_init(&w, "opteron-g3");
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_CR_READ + 0), 1);
	w.v->control.nrip = 0xdead;
	ck_assert_int_eq(RUN_L2(&w, 0x0f, 0x20, 0xc0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_CR_READ);
	ck_assert_uint_eq(w.v->control.exitinfo1, 0);
	ck_assert_uint_eq(w.v->control.nrip, 0xdead);
	world_free(&w);
}
END_TEST

/* The L1 in 64-bit mode (the fixture's 4-level identity tables, 1 GiB). */
static void host_to_long_mode(struct world *w)
{
	physmem_write(&w->m.pm, GDT_BASE + SEL_CODE64, 8, make_desc(0, 0xfffff, 0x9b, 0xa));
	w->m.cpu.gdtr.limit = 0x2f;
	physmem_write(&w->m.pm, PML4, 8, PDPT | 3);
	physmem_write(&w->m.pm, PDPT, 8, PD | 3);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(&w->m.pm, PD + i * 8, 8, ((uint64_t)i << 21) | 0x83);
	activate(&w->m);
	to64(&w->m);
	ck_assert_int_eq(wrmsr(&w->m, MSR_EFER, w->m.cpu.efer | EFER_SVME), ST_OK);
	w->m.cpu.rip = L1_CODE;    /* the fixture's exec() and wrmsr() moved them */
	w->m.cpu.regs[R_AX] = VMCB_PA;
	ck_assert(cpu_is_mode64(&w->m.cpu));
}

START_TEST(long_mode_host_npt_4level)
{
	struct world w;
	world_init(&w, "epyc-lite");
	host_to_long_mode(&w);
	/* Nested tables in the host's 4-level format (APM2 15.25.4), user pages:
	 * 2 MiB identity pages for 0-16 MiB except 10-12 MiB. */
	const uint64_t n4 = 0x100000, n3 = 0x101000, n2 = 0x102000;
	physmem_write(&w.m.pm, n4, 8, n3 | 7);
	physmem_write(&w.m.pm, n3, 8, n2 | 7);
	for (unsigned i = 0; i < 8; i++)
		physmem_write(&w.m.pm, n2 + i * 8, 8, i == 5 ? 0 : ((uint64_t)i << 21) | 0x87);
	w.v->control.np_control = SVM_NP_ENABLE;
	w.v->control.n_cr3 = n4;
	/* A 32-bit guest, paging off: mov eax, [0xa00010] */
	ck_assert_int_eq(RUN_L2(&w, 0xa1, 0x10, 0x00, 0xa0, 0x00), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_NPF);
	ck_assert_uint_eq(w.v->control.exitinfo1, SVM_NPF_FINAL_ADDR | 0x4);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0xa00010);
	/* Back in 64-bit mode after the hlt that followed VMRUN. */
	ck_assert(cpu_is_mode64(&w.m.cpu));
	ck_assert_uint_eq(w.m.cpu.rip, L1_CODE + 4);
	world_free(&w);
}
END_TEST

START_TEST(long_mode_guest_pf_exitinfo2_64bit)
{
	struct world w;
	world_init(&w, "epyc-lite");
	host_to_long_mode(&w);
	/* The guest: IA-32e mode on the same tables, 64-bit code segment. */
	struct segment cs64;
	seg_load_descriptor(&cs64, SEL_CODE64, physmem_read(&w.m.pm, GDT_BASE + SEL_CODE64, 8));
	w.v->save.cs = seg_of(&cs64);
	w.v->save.efer = EFER_SVME | EFER_LME | EFER_LMA;
	w.v->save.cr0 = CR0_PE | CR0_ET | CR0_PG;
	w.v->save.cr4 = CR4_PAE;
	w.v->save.cr3 = PML4;
	vmcb_set_intercept(&w.v->control, (enum svm_intercept)(SVM_INTERCEPT_EXCEPTION + EXC_PF), 1);
	/* mov rax, 0x123456789; mov rbx, [rax] */
	ck_assert_int_eq(RUN_L2(&w, 0x48, 0xb8, 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0, 0x48, 0x8b, 0x18), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_EXCEPTION + EXC_PF);
	ck_assert_uint_eq(w.v->control.exitinfo2, 0x123456789ull);
	ck_assert_uint_eq(w.v->control.exitinfo1, 0);   /* not present, read, supervisor */
	ck_assert_uint_eq(w.v->save.rip, L2_CODE + 10);
	ck_assert(w.v->save.efer & EFER_LMA);
	world_free(&w);
}
END_TEST

/* The SVM model on a CPU with a local APIC (the machine's CPUs): physical
 * interrupts come from the APIC's INTR output, masked by the host's TPR. */
struct apic_rig {
	struct vclock clock;
	struct apic_bus bus;
	struct lapic lapic;
};

static uint64_t apic_rig_now(void *ctx)
{
	return cpu_now(ctx);
}

static void apic_rig_line(void *opaque, unsigned line, bool level)
{
	cpu_set_line(opaque, line, level);
}

/* A software-enabled local APIC on w's CPU, TPR tpr, and fixed vectors
 * pending in its IRR. */
static void attach_apic(struct world *w, struct apic_rig *r, uint8_t tpr)
{
	struct cpu *c = &w->m.cpu;
	memset(r, 0, sizeof(*r));
	vclock_init(&r->clock, 1000000000ull);
	r->clock.now = apic_rig_now;
	r->clock.now_ctx = c;
	lapic_init(&r->lapic, 0, false, false, &r->clock, 1000000000ull, &r->bus);
	r->lapic.core = (struct lapic_core){
		.intr = { apic_rig_line, c, LINE_INTR }, .nmi = { apic_rig_line, c, LINE_NMI },
		.smi = { apic_rig_line, c, LINE_SMI }, .init = { apic_rig_line, c, LINE_INIT },
	};
	r->bus.n = 1;
	r->bus.lapic[0] = &r->lapic;
	c->intr_ack = lapic_intr_ack;
	c->intr_ctx = &r->lapic;
	cpu_attach_lapic(c, &r->lapic, 0);
	lapic_mmio_write(&r->lapic, 0xf0, 0x1ff);    /* SVR: enabled */
	lapic_set_tpr(&r->lapic, tpr);
}

static void apic_raise(struct apic_rig *r, uint8_t vector)
{
	struct apic_msg m = { .vector = vector, .delivery = APIC_DM_FIXED };
	ck_assert(lapic_accept(&r->lapic, &m));
}

/* A 64-bit L2 (on the host's IA-32e tables). */
static void guest_long_mode(struct world *w)
{
	struct segment cs64;
	seg_load_descriptor(&cs64, SEL_CODE64, physmem_read(&w->m.pm, GDT_BASE + SEL_CODE64, 8));
	w->v->save.cs = seg_of(&cs64);
	w->v->save.efer = EFER_SVME | EFER_LME | EFER_LMA;
	w->v->save.cr0 = CR0_PE | CR0_ET | CR0_PG;
	w->v->save.cr4 = CR4_PAE;
	w->v->save.cr3 = PML4;
}

START_TEST(vintr_masking_keeps_host_apic_tpr)
{
	struct world w;
	struct apic_rig r;
	world_init(&w, "epyc-lite");
	host_to_long_mode(&w);
	guest_long_mode(&w);
	attach_apic(&w, &r, 0x60);                 /* host TPR class 6 */
	apic_raise(&r, 0x50);                      /* pending, below the host's TPR */
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_INTR, 1);
	w.v->control.vintr = SVM_VINTR_MASKING | 0x3;   /* V_TPR 3 */
	cpu_set_flags(&w.m.cpu, cpu_get_flags(&w.m.cpu) | FLAG_IF);   /* host IF */
	/* mov rax, cr8; mov rbx, rax; xor eax, eax; mov cr8, rax; nop; vmmcall:
	 * APM2 15.21.2: the guest reads and writes V_TPR; lowering it does not
	 * unmask the host's pending 50H (no INTR exit), the APIC's TPR stays. */
	ck_assert_int_eq(RUN_L2(&w, 0x44, 0x0f, 0x20, 0xc0, 0x48, 0x89, 0xc3, 0x31, 0xc0,
				0x44, 0x0f, 0x22, 0xc0, 0x90, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(w.m.cpu.regs[R_BX], 3);                /* the guest read V_TPR */
	ck_assert_uint_eq(w.v->control.vintr & SVM_VINTR_TPR_MASK, 0);   /* written back */
	ck_assert_uint_eq(lapic_tpr(&r.lapic), 0x60);
	ck_assert_uint_eq(r.lapic.irr[0x50 / 32] >> (0x50 % 32) & 1, 1);
	/* The host's CR8 is its APIC's TPR again after the exit. */
	ck_assert_uint_eq(cpu_cr8_read(&w.m.cpu), 6);
	/* 70H, above the host's TPR: with V_INTR_MASKING the guest's IF=0 does
	 * not hold it (APM2 15.21.1): #VMEXIT(INTR) at the first boundary, the
	 * vector still requested in the APIC (no INTA: APM2 15.21.3). */
	apic_raise(&r, 0x70);
	w.v->save.rip = L2_CODE;
	w.m.cpu.rip = L1_CODE;
	ck_assert_int_eq(RUN_L2(&w, 0x90, 0x0f, 0x01, 0xd9), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_INTR);
	ck_assert_uint_eq(w.v->save.rip, L2_CODE);
	ck_assert_uint_eq(r.lapic.irr[0x70 / 32] >> (0x70 % 32) & 1, 1);
	ck_assert_uint_eq(r.lapic.isr[0x70 / 32] >> (0x70 % 32) & 1, 0);
	world_free(&w);
}
END_TEST

/* --perturb-exits' exit timing (emu/event_step.h): with the INTR intercept
 * a spinning L2 takes #VMEXIT(INTR) at the boundary of an interrupt request
 * that is gone when the host looks (APM2 15.13.1; EXITINTINFO.V = 0, the
 * rIP the next instruction's); without it, none is ever armed. */
START_TEST(spurious_intr_exit_only_with_intercept)
{
	for (int intercept = 0; intercept < 2; intercept++) {
		struct world w;
		world_init(&w, "epyc-lite");
		struct cpu *c = &w.m.cpu;
		svm_perturb_exits(w.svm, 7);
		vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_INTR, intercept);
		w.v->save.rflags |= FLAG_IF;              /* no V_INTR_MASKING: the guest's IF decides */
		status_t st = RUN_L2(&w, 0xeb, 0xfe);     /* jmp $ */
		/* Each entry's request comes within 2^16 instructions. */
		for (unsigned i = 0; i < 20 && st == ST_STOP && c->in_guest; i++) {
			if (!intercept)
				ck_assert_uint_eq(c->deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
			c->icount_limit = c->icount + 10000;
			st = cpu_run(c);
		}
		if (!intercept) {
			ck_assert_int_eq(st, ST_STOP);
			ck_assert(c->in_guest);
			ck_assert_uint_eq(c->spurious_intr_exits, 0);
		} else {
			ck_assert_int_eq(st, ST_HALT);
			assert_back_in_l1(&w);
			ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_INTR);
			ck_assert_uint_eq(w.v->control.exitintinfo & SVM_EVENT_VALID, 0);
			ck_assert_uint_eq(w.v->save.rip, L2_CODE);
			ck_assert_uint_eq(c->spurious_intr_exits, 1);
			ck_assert(!(c->lines & (LINE_INTR | LINE_INTR_PULSE)));
			ck_assert_uint_eq(c->deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
		}
		world_free(&w);
	}
}
END_TEST

/* The request ends with the guest: one that came while the guest's IF held
 * it (no V_INTR_MASKING, APM2 15.21.1) is gone after an exit for another
 * cause, and so is one not yet due. */
START_TEST(spurious_intr_withdrawn_by_other_exit)
{
	struct world w;
	world_init(&w, "epyc-lite");
	struct cpu *c = &w.m.cpu;
	svm_perturb_exits(w.svm, 7);
	vmcb_set_intercept(&w.v->control, SVM_INTERCEPT_INTR, 1);
	/* mov ecx, 70000; loop $; vmmcall: past any entry's request (< 2^16). */
	status_t st = RUN_L2(&w, 0xb9, 0x70, 0x11, 0x01, 0x00, 0xe2, 0xfe, 0x0f, 0x01, 0xd9);
	bool held = false;
	for (unsigned i = 0; i < 20 && st == ST_STOP && c->in_guest; i++) {
		held |= (c->lines & LINE_INTR_PULSE) != 0;
		c->icount_limit = c->icount + 10000;
		st = cpu_run(c);
	}
	ck_assert(held);
	ck_assert_int_eq(st, ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(c->spurious_intr_exits, 0);
	ck_assert(!(c->lines & LINE_INTR_PULSE));
	/* Armed by the next VMRUN (seed 7's second draw: not at its boundary),
	 * not yet due at the VMMCALL's exit: gone too. */
	w.v->save.rip = L2_CODE + 7;               /* the VMMCALL */
	c->rip = L1_CODE;
	ck_assert_int_eq(world_run(&w, NULL, 0), ST_HALT);
	ck_assert_uint_eq(w.v->control.exitcode, SVM_EXIT_VMMCALL);
	ck_assert_uint_eq(c->deadlines[DEADLINE_SPURIOUS_INTR].at, UINT64_MAX);
	world_free(&w);
}
END_TEST

static Suite *svm_model_suite(void)
{
	Suite *s = suite_create("svm_model");
	TCase *t = tcase_create("world_switch");
	tcase_add_test(t, vmmcall_round_trip);
	tcase_add_test(t, vmmcall_without_intercept_is_ud);
	tcase_add_test(t, guest_state_round_trip);
	tcase_add_test(t, tsc_offset_applies_in_guest);
	tcase_add_test(t, long_mode_host_npt_4level);
	tcase_add_test(t, long_mode_guest_pf_exitinfo2_64bit);
	suite_add_tcase(s, t);
	t = tcase_create("instructions");
	tcase_add_test(t, vmrun_ud_without_svme);
	tcase_add_test(t, vmrun_gp_rules);
	tcase_add_test(t, svm_insns_ud_in_real_mode);
	tcase_add_test(t, clgi_stgi_hold_gif);
	tcase_add_test(t, vmsave_vmload_move_the_listed_state);
	tcase_add_test(t, vmload_canonicalizes_bases);
	tcase_add_test(t, vmrun_single_step_traps_after_vmexit);
	suite_add_tcase(s, t);
	t = tcase_create("consistency");
	tcase_add_loop_test(t, consistency_check_fails_vmrun, 0, (int)(sizeof(illegal) / sizeof(illegal[0])));
	suite_add_tcase(s, t);
	t = tcase_create("intercepts");
	tcase_add_test(t, cpuid_intercept);
	tcase_add_test(t, ioio_encoding);
	tcase_add_test(t, ioio_string_rep_segment);
	tcase_add_test(t, msr_intercepts);
	tcase_add_test(t, cr_access_decode_assists);
	tcase_add_test(t, cr0_selective_write);
	tcase_add_test(t, pause_filter);
	tcase_add_test(t, pf_intercept_exitinfo);
	tcase_add_test(t, pf_exitinfo2_wraps_32bit);
	tcase_add_test(t, pf_exitinfo2_quirk_nowrap);
	tcase_add_test(t, npf_2level_host);
	tcase_add_loop_test(t, npf_insn_bytes_through_nested_tables, 0, 2);
	tcase_add_test(t, npt_pae_guest_reserved_pdpte_faults_at_walk);
	tcase_add_test(t, no_npt_model_fails_np_enable);
	tcase_add_test(t, opteron_has_no_nrip_or_decode_assists);
	suite_add_tcase(s, t);
	t = tcase_create("events");
	tcase_add_test(t, eventinj_exception_with_error);
	tcase_add_test(t, exitintinfo_during_delivery);
	tcase_add_test(t, eventinj_softint_returns_to_nrip);
	tcase_add_test(t, vintr_intercept);
	tcase_add_test(t, virtual_interrupt_taken);
	tcase_add_test(t, vintr_masking_keeps_host_apic_tpr);
	tcase_add_test(t, spurious_intr_exit_only_with_intercept);
	tcase_add_test(t, spurious_intr_withdrawn_by_other_exit);
	suite_add_tcase(s, t);
	t = tcase_create("clean_bits");
	tcase_add_test(t, clean_bits_keep_cached_intercepts);
	tcase_add_test(t, clean_bits_ignored_under_tlb_flush);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(svm_model_suite());
}
