/* The VMRUN consistency checks (APM2 15.5.1 "Canonicalization and
 * Consistency Checks", 15.10.1/15.11 map limits, 15.25.3 nested paging,
 * 15.5.1 PAE PDPEs): one row per illegal state, each a good VMCB with one
 * field broken, expecting #VMEXIT(VMEXIT_INVALID) = -1 in the 64-bit
 * EXITCODE; the legal neighbours of some of them (paged real mode, a map
 * ending just below MAXPHYADDR, EFER.LME with paging off, rIP beyond the CS
 * limit); and that a failed VMRUN leaves the host running with its state. */
#include "svm/lib_svm.h"

#define EXC(v) (1u << (v))

L2_INSN(b_vmmcall, "vmmcall");

static const char *have_lm(void) { return svm_caps.lm ? "the CPU has long mode (Fn8000_0001_EDX[LM] = 1)" : 0; }
static const char *no_lm(void) { return svm_caps.lm ? 0 : "CPUID Fn8000_0001_EDX[LM] = 0"; }

static void efer_no_svme(struct svm_case *c) { c->vmcb->efer &= ~(uint64_t)EFER_SVME; }
static void cr0_nw(struct svm_case *c) { c->vmcb->cr0 = (c->vmcb->cr0 & ~(1ull << 30)) | (1ull << 29); }
static void cr0_hi(struct svm_case *c) { c->vmcb->cr0 |= 1ull << 32; }
static void cr4_bit15(struct svm_case *c) { c->vmcb->cr4 |= 1ull << 15; }
static void cr4_hi(struct svm_case *c) { c->vmcb->cr4 |= 1ull << 63; }
static void dr6_hi(struct svm_case *c) { c->vmcb->dr6 |= 1ull << 32; }
static void dr7_hi(struct svm_case *c) { c->vmcb->dr7 |= 1ull << 40; }
static void efer_hi(struct svm_case *c) { c->vmcb->efer |= 1ull << 63; }
static void efer_lme(struct svm_case *c) { c->vmcb->efer |= EFER_LME; }
/* EFER.LME with CR0.PG: paging structures are never walked, VMRUN fails first. */
static void lme_pg_nopae(struct svm_case *c)
{
	c->vmcb->efer |= EFER_LME | EFER_LMA;
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr4 &= ~(uint64_t)CR4_PAE;
}
static void lme_pg_nope(struct svm_case *c)
{
	c->vmcb->efer |= EFER_LME | EFER_LMA;
	c->vmcb->cr0 = (c->vmcb->cr0 | CR0_PG) & ~1ull;
	c->vmcb->cr4 |= CR4_PAE;
}
static void lme_cs_l_d(struct svm_case *c)
{
	c->vmcb->efer |= EFER_LME | EFER_LMA;
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr4 |= CR4_PAE;
	c->vmcb->cs.attr |= 1u << 9;        /* L, with D = 1 from the flat segment */
}
/* CET (15.5.1): CR4.CET (bit 23) with CR0.WP = 0; S_CET reserved bits. */
static void cet_nowp(struct svm_case *c) { c->vmcb->cr4 |= 1ull << 23; c->vmcb->cr0 &= ~(uint64_t)CR0_WP; }
static void s_cet_rsvd(struct svm_case *c) { c->vmcb->s_cet = 1ull << 63; }
static const char *no_cet(void)
{
	return cpu_has(7, 2, 7) ? 0 : "CPUID Fn0000_0007_ECX[CET_SS] = 0 (no S_CET)";
}
static void no_vmrun_icpt(struct svm_case *c) { c->vmcb->icpt_misc2 &= ~ICPT2_VMRUN; }
static void asid0(struct svm_case *c) { c->vmcb->asid = 0; }
/* The map's last byte at MAXPHYADDR (row->arg: map size, row->arg2: 1 for
 * the IOPM) minus arg2-dependent slack: invalid when it reaches 2^MAXPHYADDR. */
static uint64_t top(void) { return 1ull << svm_caps.maxphy; }
static void iopm_over(struct svm_case *c) { c->vmcb->iopm_base = top() - 0x2000; }
static void iopm_fits(struct svm_case *c) { c->vmcb->iopm_base = top() - 0x3000 + 0xfff; }
static void msrpm_over(struct svm_case *c) { c->vmcb->msrpm_base = top() - 0x1000; }
static void msrpm_fits(struct svm_case *c) { c->vmcb->msrpm_base = top() - 0x2000; }
static void np_host_nopg(struct svm_case *c) { c->vmcb->np_control = 1; c->vmcb->ncr3 = (uint32_t)(uintptr_t)pg_frames[3]; }

/* PAE guest without nested paging: VMRUN loads the four PDPEs (15.5.1). */
static uint64_t pdpt[4] __attribute__((aligned(32)));
static uint32_t pae_cr3;
static void pae_guest(struct svm_case *c)
{
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr4 |= CR4_PAE;
	c->vmcb->cr3 = c->row->arg ? (uint32_t)(uintptr_t)pdpt : pae_cr3;
	for (int i = 0; i < 4; i++)
		pdpt[i] = pae_pdpt[i];
	pdpt[3] |= PG_W;    /* a PDPE reserved bit (APM2 5.3.4: bits 2:1 reserved in PAE mode) */
}

/* Paged real mode: PE = 0, PG = 1 (15.19); CS.base = the VMMCALL, IP = 0. */
static uint32_t pg32_cr3;
static void paged_real(struct svm_case *c)
{
	struct vmcb *v = c->vmcb;
	v->cr0 = (v->cr0 | CR0_PG) & ~1ull;
	v->cr3 = pg32_cr3;
	v->cs.sel = 0;
	v->cs.base = (uint32_t)(uintptr_t)c->row->body->start;
	v->cs.limit = 0xffff;
	v->cs.attr = 0x9b;
	v->ss.limit = v->ds.limit = v->es.limit = 0xffff;
	v->ss.attr = v->ds.attr = v->es.attr = 0x93;
	v->rip = 0;
	v->rsp = 0xfff0;
}
static void real_rip(struct svm_case *c)
{
	svm_expect(c, "saved rIP (IP within CS)", c->vmcb->rip, 0);
	svm_expect(c, "saved CR0.PE:PG", c->vmcb->cr0 & (CR0_PG | 1), CR0_PG);
}
/* rIP beyond the CS limit is not illegal state: #GP in the guest (15.5.1). */
static void cs_limit(struct svm_case *c) { c->vmcb->cs.limit = 0xfff; c->vmcb->cs.attr &= ~(1u << 11); }
static void rip_beyond(struct svm_case *c)
{
	svm_expect(c, "saved rIP (beyond the CS limit)", c->vmcb->rip, (uint32_t)(uintptr_t)c->row->body->start);
}

#define BAD(nm, sec, fn) { .name = nm, .apm = sec, .body = &b_vmmcall_body, .setup = fn, .exitcode = EXIT_INVALID }
#define GOOD(nm, sec, fn) { .name = nm, .apm = sec, .body = &b_vmmcall_body, .setup = fn, \
	.exitcode = EXIT_VMMCALL, .check = C_NRIP_NEXT }

static const struct svm_row rows[] = {
	BAD("EFER.SVME = 0", "15.5.1", efer_no_svme),
	BAD("CR0.CD = 0 with CR0.NW = 1", "15.5.1", cr0_nw),
	BAD("CR0[63:32] not zero (bit 32)", "15.5.1", cr0_hi),
	BAD("CR4 MBZ bit 15 set", "15.5.1", cr4_bit15),
	BAD("CR4 MBZ bit 63 set", "15.5.1", cr4_hi),
	BAD("DR6[63:32] not zero (bit 32)", "15.5.1", dr6_hi),
	BAD("DR7[63:32] not zero (bit 40)", "15.5.1", dr7_hi),
	BAD("EFER MBZ bit 63 set", "15.5.1", efer_hi),
	{ .name = "EFER.LME = 1 on a CPU without long mode", .apm = "15.5.1", .body = &b_vmmcall_body,
	  .setup = efer_lme, .exitcode = EXIT_INVALID, .skip = have_lm },
	{ .name = "EFER.LME = 1 with CR0.PG = 0 on a long-mode CPU is legal", .apm = "15.5.1",
	  .body = &b_vmmcall_body, .setup = efer_lme, .exitcode = EXIT_VMMCALL, .check = C_NRIP_NEXT,
	  .skip = no_lm },
	BAD("EFER.LME and CR0.PG with CR4.PAE = 0", "15.5.1", lme_pg_nopae),
	BAD("EFER.LME and CR0.PG with CR0.PE = 0", "15.5.1", lme_pg_nope),
	BAD("EFER.LME, CR0.PG, CR4.PAE, CS.L and CS.D all set", "15.5.1", lme_cs_l_d),
	BAD("VMRUN intercept clear", "15.5.1", no_vmrun_icpt),
	BAD("CR4.CET = 1 with CR0.WP = 0 (or CR4.CET reserved)", "15.5.1", cet_nowp),
	{ .name = "S_CET reserved bit 63", .apm = "15.5.1", .body = &b_vmmcall_body, .setup = s_cet_rsvd,
	  .exitcode = EXIT_INVALID, .skip = no_cet },
	BAD("IOPM ends at 2^MAXPHYADDR + FFFh", "15.10.1", iopm_over),
	GOOD("IOPM ends at 2^MAXPHYADDR - 1 (low 12 bits of the base ignored)", "15.10.1", iopm_fits),
	BAD("MSRPM ends at 2^MAXPHYADDR + FFFh", "15.11", msrpm_over),
	GOOD("MSRPM ends at 2^MAXPHYADDR - 1", "15.11", msrpm_fits),
	BAD("ASID 0", "15.5.1", asid0),
	{ .name = "NP_ENABLE with host paging off", .apm = "15.25.3", .body = &b_vmmcall_body,
	  .setup = np_host_nopg, .exitcode = EXIT_INVALID, .need = NEED(F_NP) },
	{ .name = "PAE guest without NP, a PDPE with a reserved bit", .apm = "15.5.1",
	  .body = &b_vmmcall_body, .setup = pae_guest, .arg = 1, .exitcode = EXIT_INVALID },
	{ .name = "PAE guest without NP, legal PDPEs", .apm = "15.5.1", .body = &b_vmmcall_body,
	  .setup = pae_guest, .arg = 0, .exitcode = EXIT_VMMCALL, .check = C_NRIP_NEXT },
	{ .name = "paged real mode (CR0.PE = 0, PG = 1) is legal", .apm = "15.19",
	  .body = &b_vmmcall_body, .icpt_exc = EXC(14), .setup = paged_real, .exitcode = EXIT_VMMCALL,
	  .check = C_NO_RIP | C_NO_NRIP, .extra = real_rip },
	{ .name = "rIP beyond the CS limit: #GP in the guest, not VMEXIT_INVALID", .apm = "15.5.1",
	  .body = &b_vmmcall_body, .icpt_exc = EXC(13), .setup = cs_limit, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 | C_NO_RIP, .extra = rip_beyond },
};

/* 15.5.1 / 15.6: a VMRUN that fails its checks writes EXITCODE and resumes
 * the host after the VMRUN with its own state; the next VMRUN works. */
static void failed_vmrun_keeps_host(void)
{
	static const struct svm_row row = { .name = "failed VMRUN: host state intact, next VMRUN runs the guest",
		.apm = "15.5.1", .body = &b_vmmcall_body, .exitcode = EXIT_INVALID };
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb;
	struct dtr g0, i0, g1, i1;
	uint32_t esp0, esp1;
	uint16_t cs0, ss0, ds0, es0, cs1, ss1, ds1, es1;
	uint32_t cr0 = read_cr0(), cr3 = read_cr3(), cr4 = read_cr4();
	uint64_t efer = rdmsr64(EFER_MSR);

	svm_vmcb_init(v, row.body->start);
	v->asid = 0;
	svm_poison(v);
	__asm__ volatile("sgdt %0\n\tsidt %1" : "=m"(g0), "=m"(i0));
	__asm__ volatile("mov %%cs, %0\n\tmov %%ss, %1\n\tmov %%ds, %2\n\tmov %%es, %3\n\tmov %%esp, %4"
			 : "=r"(cs0), "=r"(ss0), "=r"(ds0), "=r"(es0), "=r"(esp0));
	svm_vmrun(vmcb_pa(v));
	__asm__ volatile("mov %%cs, %0\n\tmov %%ss, %1\n\tmov %%ds, %2\n\tmov %%es, %3\n\tmov %%esp, %4"
			 : "=r"(cs1), "=r"(ss1), "=r"(ds1), "=r"(es1), "=r"(esp1));
	__asm__ volatile("sgdt %0\n\tsidt %1" : "=m"(g1), "=m"(i1));
	svm_expect(&c, "EXITCODE", v->exitcode, EXIT_INVALID);
	svm_expect(&c, "host CR0", read_cr0(), cr0);
	svm_expect(&c, "host CR3", read_cr3(), cr3);
	svm_expect(&c, "host CR4", read_cr4(), cr4);
	svm_expect(&c, "host EFER", rdmsr64(EFER_MSR), efer);
	svm_expect(&c, "host ESP", esp1, esp0);
	svm_expect(&c, "host CS", cs1, cs0);
	svm_expect(&c, "host SS", ss1, ss0);
	svm_expect(&c, "host DS", ds1, ds0);
	svm_expect(&c, "host ES", es1, es0);
	svm_expect(&c, "host GDTR", ((uint64_t)g1.limit << 32) | g1.base, ((uint64_t)g0.limit << 32) | g0.base);
	svm_expect(&c, "host IDTR", ((uint64_t)i1.limit << 32) | i1.base, ((uint64_t)i0.limit << 32) | i0.base);
	svm_expect(&c, "L2 events taken", l2_event_count, 0);
	v->asid = 1;
	svm_rerun(&c);
	svm_expect(&c, "EXITCODE of the next VMRUN", v->exitcode, EXIT_VMMCALL);
	svm_case_report(&c);
}

void guest_main(void)
{
	svm_host_init();
	pg32_cr3 = pg32_build();
	pae_cr3 = pae_build();
	RUN_ROWS(rows);
	failed_vmrun_keeps_host();
}
