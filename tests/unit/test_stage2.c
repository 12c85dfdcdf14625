/* Check suite for the CPU's two-stage translation (emu/memory.c with
 * mmu/nested.h): a hypervisor model sets cpu->stage2 and runs the guest; the
 * guest's own faults stay #PF, nested-paging faults reach the model as exit
 * records (STAGE2_FAULT, STAGE2_MISCONFIG) with what #VMEXIT(NPF) (APM2
 * 15.25.6) and EPT violations (SDM Vol.3 28.2.3) report; the TLB caches the
 * combined translation in the guest's context.
 *
 * Host-physical layout: NPT/EPT tables at 100000H (PML4), 101000H (PDPT),
 * 102000H (PD): 2 MiB pages identity-mapped, except PD[1] (200000H-3FFFFFH),
 * absent, and PD[0] (0-1FFFFFH) present. Guest code at 8000H, guest data at
 * 20000H. */
#include <check.h>
#include <string.h>

#include "emu/hv.h"
#include "emu/insn.h"
#include "machine_fixture.h"
#include "mmu/nested.h"
#include "suite_runner.h"

#define S2_PML4  0x100000ull
#define S2_PDPT  0x101000ull
#define S2_PD    0x102000ull
#define CODE     0x8000u
#define ABSENT   0x250000u       /* in the absent 2 MiB region */

struct seen {
	unsigned records;
	struct exit_record rec;
	unsigned kinds[IK_COUNT];
};

/* Takes stage-2 faults as exits (and ends the run); lets everything else go. */
static status_t stage2_model(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	struct seen *s = ctx;
	s->kinds[r->kind]++;
	if (r->kind != IK_STAGE2_FAULT && r->kind != IK_STAGE2_MISCONFIG && r->kind != IK_EXCEPTION)
		return ST_OK;
	s->records++;
	s->rec = *r;
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

static const struct hv_model model = { .name = "stage2", .intercept = stage2_model };

/* 4-level nested tables in the host's format (APM2 15.25.4), P|RW|US. */
static void npt_tables(struct test_machine *m, uint64_t pd0_flags, uint64_t pd2_flags)
{
	physmem_write(&m->pm, S2_PML4, 8, S2_PDPT | 7);
	physmem_write(&m->pm, S2_PDPT, 8, S2_PD | 7);
	physmem_write(&m->pm, S2_PD + 0, 8, 0x000000 | 0x80 | pd0_flags);
	physmem_write(&m->pm, S2_PD + 8, 8, 0);                      /* absent */
	physmem_write(&m->pm, S2_PD + 16, 8, 0x400000 | 0x80 | pd2_flags);
}

static void enter_guest(struct test_machine *m, struct seen *s, const uint8_t *code, unsigned len)
{
	machine_init(m, "epyc-lite");
	physmem_write_bytes(&m->pm, CODE, code, len);
	physmem_write_bytes(&m->pm, CODE + len, (const uint8_t[]){ 0xf4 }, 1);    /* hlt */
	struct paging_env host = { .mem = &m->pm, .mode = PAGING_4LEVEL, .nxe = true, .gbpages = true,
				   .maxphyaddr = 40 };
	m->cpu.stage2 = nested_npt_env(&host, S2_PML4);
	m->cpu.stage2_on = true;
	m->cpu.hv = &model;
	m->cpu.hv_ctx = s;
	m->cpu.in_guest = true;
	tlb_select(&m->cpu.tlb, 1, 0);        /* the guest's ASID 1 */
	m->cpu.rip = CODE;
	m->cpu.icount_limit = m->cpu.icount + 100;
}

/* A final access to a guest-physical page the nested tables do not map: an
 * #NPF with EXITINFO1 = P=0 | RW | US | final (bit 32), EXITINFO2 = the gpa. */
START_TEST(final_translation_absent)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* mov dword [ABSENT], 5 */
	enter_guest(&m, &s, (const uint8_t[]){ 0xc7, 0x05, 0x00, 0x00, 0x25, 0x00, 0x05, 0, 0, 0 }, 10);
	npt_tables(&m, 7, 7);
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(s.records, 1);
	ck_assert_int_eq(s.rec.kind, IK_STAGE2_FAULT);
	ck_assert_uint_eq(s.rec.rip, CODE);
	ck_assert_uint_eq(s.rec.fault.nested.gpa, ABSENT);
	ck_assert(s.rec.fault.nested.final && s.rec.fault.nested.gla_valid);
	ck_assert_uint_eq(s.rec.fault.nested.gla, ABSENT);
	ck_assert_uint_eq(npf_exitinfo1(&s.rec.fault), NPF_INFO1_FINAL | 2 | 4);   /* RW, US */
	ck_assert_uint_eq(physmem_read(&m.pm, ABSENT, 4), 0);    /* nothing written */
	machine_free(&m);
}
END_TEST

/* A write to a page the nested tables map read-only: P | RW | US, final. */
START_TEST(final_write_read_only)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* mov dword [0x400010], 5 */
	enter_guest(&m, &s, (const uint8_t[]){ 0xc7, 0x05, 0x10, 0x00, 0x40, 0x00, 0x05, 0, 0, 0 }, 10);
	npt_tables(&m, 7, 5);                                      /* PD[2]: P|US, read-only */
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(s.rec.kind, IK_STAGE2_FAULT);
	ck_assert_uint_eq(s.rec.fault.nested.gpa, 0x400010);
	ck_assert_uint_eq(npf_exitinfo1(&s.rec.fault), NPF_INFO1_FINAL | 1 | 2 | 4);
	machine_free(&m);
}
END_TEST

/* The guest's own page directory lies in the absent region: the fault is on
 * the guest's table walk (EXITINFO1 bit 33), at the entry's guest-physical
 * address, with the linear address valid. */
START_TEST(guest_walk_absent)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* mov eax, [0x1000] with 32-bit paging, CR3 = 300000H (absent in stage 2) */
	enter_guest(&m, &s, (const uint8_t[]){ 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 }, 6);
	npt_tables(&m, 7, 7);
	m.cpu.cr3 = 0x300000;
	m.cpu.cr0 |= CR0_PG;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(s.rec.kind, IK_STAGE2_FAULT);
	/* The first table the fetch at CODE reads: PDE 0 of the guest's directory. */
	ck_assert_uint_eq(s.rec.fault.nested.gpa, 0x300000);
	ck_assert(!s.rec.fault.nested.final);
	ck_assert_uint_eq(npf_exitinfo1(&s.rec.fault) & (NPF_INFO1_FINAL | NPF_INFO1_GUEST_WALK),
			  NPF_INFO1_GUEST_WALK);
	machine_free(&m);
}
END_TEST

/* A guest #PF stays the guest's: stage 2 maps its tables, its own PTE is not
 * present: EXCEPTION #PF with the linear address, no stage-2 record. */
START_TEST(guest_pf_is_guests)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* 32-bit paging at 30000H (PDE 0 -> PT 31000H: only 8000H mapped) */
	enter_guest(&m, &s, (const uint8_t[]){ 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00 }, 6);
	npt_tables(&m, 7, 7);
	physmem_write(&m.pm, 0x30000, 4, 0x31000 | 7);
	physmem_write(&m.pm, 0x31000 + 8 * 4, 4, 0x8000 | 7);
	m.cpu.cr3 = 0x30000;
	m.cpu.cr0 |= CR0_PG;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(s.rec.kind, IK_EXCEPTION);
	ck_assert_uint_eq(s.rec.event.vector, EXC_PF);
	ck_assert_uint_eq(s.rec.event.cr2, 0x1000);
	ck_assert_uint_eq(s.kinds[IK_STAGE2_FAULT], 0);
	/* Both stages' accessed bits: the guest PDE/PTE (through stage 2), the
	 * nested entries (APM2 15.25.6: A/D updates of nested tables). */
	ck_assert(physmem_read(&m.pm, 0x30000, 4) & PTE_A);
	ck_assert(physmem_read(&m.pm, S2_PD, 8) & PTE_A);
	machine_free(&m);
}
END_TEST

/* A successful two-stage read is cached in the guest's TLB context: the same
 * access again needs no walk, and the host context (space 0) does not see it. */
START_TEST(combined_translation_cached_per_context)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* mov eax, [0x20000] */
	enter_guest(&m, &s, (const uint8_t[]){ 0x8b, 0x05, 0x00, 0x00, 0x02, 0x00 }, 6);
	npt_tables(&m, 7, 7);
	physmem_write(&m.pm, 0x20000, 4, 0x11223344);
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq((uint32_t)m.cpu.regs[R_AX], 0x11223344);
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x20000, 4));
	tlb_select(&m.cpu.tlb, 0, 0);
	ck_assert_ptr_null(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x20000, 4));
	tlb_select(&m.cpu.tlb, 1, 0);       /* back: still there, nothing was flushed */
	ck_assert_ptr_nonnull(tlb_lookup(&m.cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x20000, 4));
	machine_free(&m);
}
END_TEST

/* EPT: a write-without-read entry is a misconfiguration (SDM Vol.3 28.2.3.1):
 * the STAGE2_MISCONFIG record. */
START_TEST(ept_misconfiguration)
{
	struct test_machine m;
	struct seen s = { 0 };
	enter_guest(&m, &s, (const uint8_t[]){ 0x8b, 0x05, 0x00, 0x00, 0x02, 0x00 }, 6);
	/* EPT PML4 -> PDPT -> PD, RWX = 7 on the tables; PD[0] a 2 MiB page with W only. */
	physmem_write(&m.pm, S2_PML4, 8, S2_PDPT | 7);
	physmem_write(&m.pm, S2_PDPT, 8, S2_PD | 7);
	physmem_write(&m.pm, S2_PD, 8, 0x000000 | 0x80 | (6 << 3) | 2);
	uint64_t caps = EPT_CAP_WALK4 | EPT_CAP_WB | EPT_CAP_2M;
	uint64_t eptp = S2_PML4 | 6 | (3 << EPTP_WALK_SHIFT);
	ck_assert_int_eq(ept_eptp_check(eptp, caps, 40), EPTP_OK);
	m.cpu.stage2 = nested_ept_env(&m.pm, eptp, caps, false, 40);
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(s.rec.kind, IK_STAGE2_MISCONFIG);
	ck_assert(s.rec.fault.nested.misconfig && s.rec.fault.nested.ept);
	machine_free(&m);
}
END_TEST

/* Under nested paging a PAE guest's MOV CR3 loads no PDPTEs (APM2 15.25.10):
 * with the PDPT in the absent region the MOV completes and the next fetch's
 * walk exits on the PDPTE read, a table access, not final (APM2 15.25.6). */
START_TEST(pae_pdpte_load_through_stage2)
{
	struct test_machine m;
	struct seen s = { 0 };
	/* mov cr3, eax with EAX = 300000H */
	enter_guest(&m, &s, (const uint8_t[]){ 0x0f, 0x22, 0xd8 }, 3);
	npt_tables(&m, 7, 7);
	/* The running tables: PDPT at 20000H, PDPTE 0 -> PD at 21000H, one 2 MiB page. */
	physmem_write(&m.pm, 0x20000, 8, 0x21000 | 1);
	physmem_write(&m.pm, 0x21000, 8, 0x000000 | 0x83);
	m.cpu.cr4 |= CR4_PAE;
	m.cpu.cr0 |= CR0_PG;
	m.cpu.cr3 = 0x20000;
	memset(m.cpu.pdpte, 0, sizeof(m.cpu.pdpte));
	m.cpu.pdpte[0] = 0x21000 | 1;
	m.cpu.regs[R_AX] = 0x300000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(s.rec.kind, IK_STAGE2_FAULT);
	ck_assert_uint_eq(s.rec.fault.nested.gpa, 0x300000);
	ck_assert(!s.rec.fault.nested.final);
	ck_assert_uint_eq(m.cpu.cr3, 0x300000);    /* the MOV completed */
	machine_free(&m);
}
END_TEST

/* tlb_flush_spaces (INVEPT, INVVPID, VM entry without VPID: SDM Vol.3
 * 28.3.3.1): only the spaces the predicate names get new ids; the current
 * one is selected again with its new id; keep_global spares the global
 * contexts. */
static bool space_is_odd(uint64_t space, const void *arg)
{
	(void)arg;
	return space & 1;
}

START_TEST(tlb_flush_spaces_named_only)
{
	static struct tlb t;
	memset(&t, 0, sizeof(t));
	tlb_select(&t, 1, 0);
	tlb_select(&t, 2, 0);
	tlb_select(&t, 3, 0);
	uint16_t one = tlb_context_of(&t, 1, 0)->id, one_g = tlb_context_of(&t, 1, TLB_GLOBAL)->id;
	uint16_t two = tlb_context_of(&t, 2, 0)->id, three = t.cur;
	tlb_flush_spaces(&t, space_is_odd, NULL, true, false, 0);
	ck_assert_uint_ne(tlb_context_of(&t, 1, 0)->id, one);
	ck_assert_uint_eq(tlb_context_of(&t, 1, TLB_GLOBAL)->id, one_g);   /* kept */
	ck_assert_uint_eq(tlb_context_of(&t, 2, 0)->id, two);
	ck_assert_uint_ne(t.cur, three);
	ck_assert_uint_eq(t.cur, tlb_context_of(&t, 3, 0)->id);
	tlb_flush_spaces(&t, space_is_odd, NULL, false, false, 0);
	ck_assert_uint_ne(tlb_context_of(&t, 1, TLB_GLOBAL)->id, one_g);
	ck_assert_uint_eq(tlb_context_of(&t, 2, 0)->id, two);
}
END_TEST

static Suite *stage2_suite(void)
{
	Suite *s = suite_create("stage2");
	TCase *t = tcase_create("npt");
	tcase_add_test(t, final_translation_absent);
	tcase_add_test(t, final_write_read_only);
	tcase_add_test(t, guest_walk_absent);
	tcase_add_test(t, guest_pf_is_guests);
	tcase_add_test(t, combined_translation_cached_per_context);
	tcase_add_test(t, pae_pdpte_load_through_stage2);
	suite_add_tcase(s, t);
	t = tcase_create("ept");
	tcase_add_test(t, ept_misconfiguration);
	tcase_add_test(t, tlb_flush_spaces_named_only);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(stage2_suite());
}
