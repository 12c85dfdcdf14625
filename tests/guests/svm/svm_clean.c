/* VMCB state caching and TLB control (APM2 15.15, 15.16).
 *
 * Clean bits are a hint: with a bit set the processor MAY use its cached copy
 * of that group, with the bit clear it MUST load the VMCB (15.15.1). Only the
 * second direction is architectural, and is checked everywhere: after a
 * first run, L1 edits one group, clears its bit (all others set) and the
 * second run sees the new value. The first direction is checked only under
 * hvemu, which documents what it does: with --tlb exact (the guest is told
 * "tlb=exact") it caches every group the clean bits allow, so the second run
 * sees the state of the first #VMEXIT; with --tlb flush it reloads everything.
 * Likewise for TLB_CONTROL = 0 (stale translations kept under --tlb exact)
 * against flushes 1, 3 and 7, a new ASID and INVLPGA (15.16). */
#include "svm/lib_svm.h"

#define EFL_IF (1u << 9)

/* What the hvemu run was told; 0 elsewhere (QEMU, hardware): skip. */
static const char *hvemu_mode(void)
{
	if (cmdline_has("tlb=exact"))
		return "exact";
	if (cmdline_has("tlb=flush"))
		return "flush";
	return 0;
}

L2_BODY(b_cpuid, "", "cpuid", "");
L2_BODY(b_rdtsc, "", "rdtsc", "");
L2_BODY(b_out80, "mov $0x80, %edx", "outb %al, %dx", "");
L2_BODY(b_nop, "", "nop", "");
L2_BODY(b_rd_cr4, "", "mov %cr4, %eax", "");
L2_BODY(b_rd_dr7, "", "mov %db7, %eax", "");
L2_BODY(b_sidt, "", "sidt l2_scratch", "");
L2_BODY(b_rd_ds, "", "mov l2_scratch + 16, %eax", "");
L2_BODY(b_rd_cr2, "", "mov %cr2, %eax", "");
L2_BODY(b_rd_lin, "mov $0x40000000, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_rax, "", "mov %eax, %ecx", "");

static uint8_t iopm2[3 * 4096] __attribute__((aligned(4096)));
static uint32_t pg32_cr3;

/* Two frames the TEST_LIN page maps to, with different contents. */
static void frames_init(void)
{
	*(volatile uint32_t *)pg_frames[0] = 0xaaaa0000;
	*(volatile uint32_t *)pg_frames[1] = 0xbbbb1111;
}
static void l2_paging(struct vmcb *v)
{
	v->cr0 |= CR0_PG;
	v->cr3 = pg32_cr3;
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U;
}

/* One VMCB group: prepare run 1, edit for run 2, observe the second run. */
struct group {
	const char *name;
	unsigned bit;                       /* clean bit, APM2 Figure 15-4 */
	const struct l2_body *body;
	void (*prep)(struct vmcb *v);
	void (*edit)(struct vmcb *v);
	uint64_t (*observe)(struct vmcb *v);
	uint64_t old, new;                  /* observed with the old / new value */
	uint32_t need;
};

static uint64_t obs_exit(struct vmcb *v) { return v->exitcode; }
static uint64_t obs_eax(struct vmcb *v) { return (uint32_t)v->rax; }
static uint64_t obs_edx(struct vmcb *v) { (void)v; return l2_regs.edx >> 8; }  /* TSC bits 63:40 */
static uint64_t obs_idt_limit(struct vmcb *v) { (void)v; return *(volatile uint16_t *)l2_scratch; }
static uint64_t obs_v_irq(struct vmcb *v) { return l2_event_count * 0x100 + ((v->vintr >> 8) & 1); }

static void none(struct vmcb *v) { (void)v; }
static void e_cpuid(struct vmcb *v) { v->icpt_misc1 |= ICPT1_CPUID; }
static void e_tsc(struct vmcb *v) { v->tsc_offset = 1ull << 40; }
static void p_ioio(struct vmcb *v) { v->icpt_misc1 |= ICPT1_IOIO; }
static void e_iopm(struct vmcb *v) { v->iopm_base = (uint32_t)(uintptr_t)iopm2; }
static void p_asid(struct vmcb *v) { l2_paging(v); }
static void e_asid(struct vmcb *v) { v->asid = 2; pg32_test_pt[0] = frame_pa(1) | PG_P | PG_W | PG_U; }
static void e_virq(struct vmcb *v) { v->vintr = VINTR_IRQ | VINTR_PRIO(15) | VINTR_VECTOR(0x60); v->rflags |= EFL_IF; }
static void e_cr4(struct vmcb *v) { v->cr4 |= 1u << 8; /* PCE */ }
static void e_dr7(struct vmcb *v) { v->dr7 = 0x700; /* LE, GE: no breakpoint */ }
static void e_idtr(struct vmcb *v) { v->idtr.limit = 0x3ff; }
static void e_ds(struct vmcb *v) { v->ds.base = 4; }
static void p_cr2(struct vmcb *v) { v->cr2 = 0x1000; }
static void e_cr2(struct vmcb *v) { v->cr2 = 0x2000; }

static const struct group groups[] = {
	{ "intercepts (CPUID intercept set)", 0, &b_cpuid_body, none, e_cpuid, obs_exit, EXIT_VMMCALL, EXIT_CPUID, 0 },
	{ "TSC_OFFSET (+2^40)", 0, &b_rdtsc_body, none, e_tsc, obs_edx, 0, 1, 0 },
	{ "IOPM_BASE (a map with port 80h)", 1, &b_out80_body, p_ioio, e_iopm, obs_exit, EXIT_VMMCALL, EXIT_IOIO, 0 },
	{ "ASID (2, a guest PTE changed)", 2, &b_rd_lin_body, p_asid, e_asid, obs_eax, 0xaaaa0000, 0xbbbb1111, 0 },
	{ "V_IRQ (virtual interrupt 60h)", 3, &b_nop_body, none, e_virq, obs_v_irq, 0, 0x100, 0 },
	{ "CR4 (PCE set)", 5, &b_rd_cr4_body, none, e_cr4, obs_eax, 0, 1u << 8, 0 },
	{ "DR7 (700h)", 6, &b_rd_dr7_body, none, e_dr7, obs_eax, 0x400, 0x700, 0 },
	{ "IDTR limit (3FFh)", 7, &b_sidt_body, none, e_idtr, obs_idt_limit, 0x7ff, 0x3ff, 0 },
	{ "DS base (4)", 8, &b_rd_ds_body, none, e_ds, obs_eax, 0x44444444, 0x55555555, 0 },
	{ "CR2 (2000h)", 9, &b_rd_cr2_body, p_cr2, e_cr2, obs_eax, 0x1000, 0x2000, 0 },
};

/* Run 1 with clean = 0, then run 2 with the group edited and clean =
 * all ones except (bit_set ? nothing : the group's bit). */
static void run_group(const struct group *g, int bit_set, const char *why_skip, int expect_new)
{
	char name[160];
	pg_name(name, sizeof(name), "%s %s", g->name, bit_set ? "edited, clean bit SET" : "edited, clean bit clear: new value used");
	struct svm_row row = { .name = name, .apm = bit_set ? "15.15.1, hvemu --tlb" : "15.15.1", .body = g->body,
			       .need = NEED(F_VMCBCLEAN) | g->need };
	if (!svm_has(F_VMCBCLEAN) || why_skip) {
		char full[200];
		skip(pg_name(full, sizeof(full), "%s [APM2 %s]", name, row.apm), "%s",
		     why_skip ? why_skip : "CPUID Fn8000_000A_EDX[VmcbClean] = 0");
		return;
	}
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb;
	uint32_t *scratch = (uint32_t *)l2_scratch;
	scratch[4] = 0x44444444;
	scratch[5] = 0x55555555;
	frames_init();
	svm_vmcb_init(v, g->body->start);
	g->prep(v);
	v->clean = 0;
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, "run 1 EXITCODE", v->exitcode, g->observe == obs_exit ? g->old : EXIT_VMMCALL);
	if (g->observe != obs_exit)
		svm_expect(&c, "run 1 observed", g->observe(v), g->old);

	v->rip = (uint32_t)(uintptr_t)g->body->start;
	v->tlb_control = 0;
	g->edit(v);
	v->clean = bit_set ? 0xffffffffu : ~(1u << g->bit);
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, expect_new ? "run 2 observed (new value)" : "run 2 observed (cached value)",
		   g->observe(v), expect_new ? g->new : g->old);
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U;
	svm_case_report(&c);
}

/* 15.15.3: RAX, RIP, RSP, RFLAGS, EVENTINJ, TLB_CONTROL, the interrupt
 * shadow are never cached: clean = all ones still loads them. */
static void uncached(void)
{
	static const struct svm_row row = { .name = "clean = FFFF_FFFFh: RAX, RIP and EVENTINJ still loaded",
		.apm = "15.15.3", .body = &b_rax_body };
	if (!svm_has(F_VMCBCLEAN)) {
		skip("clean = FFFF_FFFFh: RAX, RIP and EVENTINJ still loaded [APM2 15.15.3]",
		     "CPUID Fn8000_000A_EDX[VmcbClean] = 0");
		return;
	}
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb;
	svm_vmcb_init(v, b_rax_body.start);
	v->rax = 0x1111;
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, "run 1 ECX", l2_regs.ecx, 0x1111);
	v->rip = (uint32_t)(uintptr_t)b_rax_body.start;
	v->rax = 0x2222;
	v->clean = 0xffffffffu;
	v->tlb_control = 0;
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, "run 2 ECX (new RAX)", l2_regs.ecx, 0x2222);
	v->rip = (uint32_t)(uintptr_t)b_rax_body.start;
	v->eventinj = EVENT(EV_INTR, 0x61);
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, "run 3: the injected event taken", l2_event_vector, 0x61);
	svm_case_report(&c);
}

/* ---- TLB control (15.16) ---- */

struct tlb_case {
	const char *name;
	const char *apm;
	uint8_t tlb_control;
	uint32_t asid2;
	int invlpga;       /* L1 INVLPGA of TEST_LIN for ASID 1 before run 2 */
	int global;        /* the guest PTE is global (guest CR4.PGE) */
	uint32_t need;
	int hvemu_only;    /* a translation MAY be kept: the value hvemu documents */
};

static const struct tlb_case tlbs[] = {
	{ "TLB_CONTROL 0, same ASID, PTE changed without INVLPG: kept", "15.16.1, hvemu --tlb", 0, 1, 0, 0, 0, 1 },
	{ "TLB_CONTROL 1 (flush all): the new PTE used", "15.16.1", 1, 1, 0, 0, 0, 0 },
	{ "TLB_CONTROL 3 (flush this guest): the new PTE used", "15.16.1", 3, 1, 0, 0, NEED(F_FLUSHASID), 0 },
	{ "TLB_CONTROL 7 (non-global), non-global PTE: the new PTE used", "15.16.1", 7, 1, 0, 0,
	  NEED(F_FLUSHASID), 0 },
	{ "TLB_CONTROL 7 (non-global), global PTE: kept", "15.16.1, hvemu --tlb", 7, 1, 0, 1,
	  NEED(F_FLUSHASID), 1 },
	{ "TLB_CONTROL 0, a fresh ASID: the new PTE used", "15.16", 0, 2, 0, 0, 0, 0 },
	{ "TLB_CONTROL 0, INVLPGA of the page for ASID 1: the new PTE used", "15.16.2", 0, 1, 1, 0, 0, 0 },
};

static void run_tlb(const struct tlb_case *t)
{
	char name[160];
	pg_name(name, sizeof(name), "%s [APM2 %s]", t->name, t->apm);
	static struct svm_row row;
	row.name = t->name;
	row.apm = t->apm;
	row.body = &b_rd_lin_body;
	for (unsigned f = 0; f < 32; f++)
		if (((t->need >> f) & 1) && !svm_has((enum svm_feature)f)) {
			skip(name, "CPUID Fn8000_000A_EDX[%s] = 0", svm_feature_name((enum svm_feature)f));
			return;
		}
	const char *m = hvemu_mode();
	if (t->hvemu_only && !m) {
		skip(name, "hardware may keep or drop the translation; checked under hvemu only");
		return;
	}
	int expect_new = !t->hvemu_only || gstrncmp(m, "flush", 5) == 0;
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb;
	frames_init();
	svm_vmcb_init(v, b_rd_lin_body.start);
	l2_paging(v);
	if (t->global) {
		v->cr4 |= CR4_PGE;
		pg32_test_pt[0] |= PG_G;
	}
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, "run 1 read", (uint32_t)v->rax, 0xaaaa0000);
	pg32_test_pt[0] = frame_pa(1) | PG_P | PG_W | PG_U | (t->global ? PG_G : 0);
	if (t->invlpga)
		__asm__ volatile("invlpga %%eax, %%ecx" :: "a"(TEST_LIN), "c"(1) : "memory");
	v->rip = (uint32_t)(uintptr_t)b_rd_lin_body.start;
	v->tlb_control = t->tlb_control;
	v->asid = t->asid2;
	svm_poison(v);
	svm_vmrun(vmcb_pa(v));
	svm_expect(&c, expect_new ? "run 2 read (new PTE)" : "run 2 read (kept translation)",
		   (uint32_t)v->rax, expect_new ? 0xbbbb1111 : 0xaaaa0000);
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U;
	svm_case_report(&c);
}

void guest_main(void)
{
	svm_host_init();
	pg32_cr3 = pg32_build();
	gmemset(iopm2, 0, sizeof(iopm2));
	iopm2[0x80 / 8] = 1u << (0x80 % 8);
	const char *m = hvemu_mode();
	note("cache rows: %s", m ? m : "not hvemu (cmdline has no tlb=): the clean-bit-set rows skip");
	for (unsigned i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		run_group(&groups[i], 0, 0, 1);
		run_group(&groups[i], 1, m ? 0 : "hardware may use either value; checked under hvemu only",
			  m && gstrncmp(m, "flush", 5) == 0);
	}
	uncached();
	for (unsigned i = 0; i < sizeof(tlbs) / sizeof(tlbs[0]); i++)
		run_tlb(&tlbs[i]);
}
