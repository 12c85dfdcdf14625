/* kvm-vmx-cr3-exiting: the KVM control-adjustment mistake, as two L1s.
 *
 * KVM's setup asked for CR3-load, CR3-store and INVLPG exiting in its
 * minimum primary processor-based controls, adjusted them through the
 * capability MSR, and under EPT meant to drop the three (the guest owns CR3
 * and its TLB then). It adjusted a second time, feeding the first result back
 * as the wanted value, so the three exits came back and every guest context
 * switch and INVLPG trapped to the host: about 40 % more CPU.
 *
 * Both L1s here run the same L2 under EPT (an identity map of the first GiB):
 * a loop of context switches (MOV to CR3 between two page directories, MOV
 * from CR3) and INVLPGs, ended by VMCALL. L1 "adjusted twice" builds its
 * controls as KVM did; L1 "adjusted once" keeps the value with the three
 * cleared. Each prints its exit counts per reason and the L1 time spent
 * handling them (TSC ticks from an exit to the next VM entry), side by side,
 * with what the capability MSRs allow. The checks are the SDM's: with
 * CR3-load exiting 1 and a CR3-target count of 0 every MOV to CR3 exits, with
 * CR3-store exiting every MOV from CR3, with INVLPG exiting every INVLPG
 * (SDM Vol.3 25.1.3); with the three 0, none do. */
#include "vmx/lib_vmx.h"

#define ROUNDS 500                 /* L2 loop: 2 CR3 loads, 1 CR3 store, 2 INVLPGs each */
#define THREE (PROC_CR3_LOAD | PROC_CR3_STORE | PROC_INVLPG)

/* L2: the workload, then VMCALL (which always exits: 25.1.2). */
uint32_t l2_cr3_a, l2_cr3_b;
extern const char kvm_l2[];
__asm__(".pushsection .text\n\t.code32\n\t.globl kvm_l2\nkvm_l2:\n\t"
	"mov $500, %esi\n"
	"1:\tmov l2_cr3_a, %eax\n\tmov %eax, %cr3\n\t"
	"invlpg 0x200000\n\t"
	"mov %cr3, %ecx\n\t"
	"mov l2_cr3_b, %eax\n\tmov %eax, %cr3\n\t"
	"invlpg 0x201000\n\t"
	"dec %esi\n\tjnz 1b\n\t"
	"vmcall\n\tud2\n\t.popsection");
_Static_assert(ROUNDS == 500, "the loop count in kvm_l2");

static uint32_t pd_copy[1024] __attribute__((aligned(4096)));

/* EPT (SDM Vol.3 28.2.2): 4-level identity map of the first GiB with 2 MB
 * pages, read/write/execute, memory type WB (6) in bits 5:3 of the leaves. */
static uint64_t ept_pml4[512] __attribute__((aligned(4096)));
static uint64_t ept_pdpt[512] __attribute__((aligned(4096)));
static uint64_t ept_pd[512] __attribute__((aligned(4096)));
static uint64_t ept_build(void)
{
	for (int i = 0; i < 512; i++)
		ept_pd[i] = ((uint64_t)i << 21) | 7u | (6u << 3) | (1u << 7);
	ept_pdpt[0] = (uint32_t)(uintptr_t)ept_pd | 7u;
	ept_pml4[0] = (uint32_t)(uintptr_t)ept_pdpt | 7u;
	/* 24.6.11: EPTP memory type WB (6), page-walk length 4 - 1 in 5:3. */
	return (uint32_t)(uintptr_t)ept_pml4 | 6u | (3u << 3);
}

struct tally {
	uint32_t cr3_load, cr3_store, invlpg, vmcall, other, total;
	uint64_t l1_ticks;             /* from each exit to the next VM entry */
	uint32_t rounds_left;          /* L2's ESI at its VMCALL: 0 if it finished */
	int fault;                     /* VMLAUNCH/VMRESUME raised a vector in L1 */
	uint32_t failed;               /* VMfail flags, or 0 */
};

static uint32_t *gpr(uint32_t n)
{
	/* Table 27-3: bits 11:8 name the GPR: 0 EAX, 1 ECX, 2 EDX, 3 EBX, 4 ESP,
	 * 5 EBP, 6 ESI, 7 EDI. ESP is not one an L2 here uses. */
	static uint32_t none;
	switch (n) {
	case 0: return &l2_regs.eax;
	case 1: return &l2_regs.ecx;
	case 2: return &l2_regs.edx;
	case 3: return &l2_regs.ebx;
	case 5: return &l2_regs.ebp;
	case 6: return &l2_regs.esi;
	case 7: return &l2_regs.edi;
	}
	return &none;
}

static inline uint64_t rdtsc64(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Runs L2 under the given primary controls and counts its exits. */
static void run_l1(uint32_t proc, uint64_t eptp, struct tally *t)
{
	static const struct vmx_row row = { .name = "kvm_l2", .sdm = "25.1.3" };
	struct vmx_case c = { &row, 1, 0 };
	gmemset(t, 0, sizeof(*t));
	vmx_vmcs_init(1, kvm_l2, 0, 0, PROC2_EPT, 0, 0);
	vmwrite(VMCS_PROC_CTLS, proc);
	vmwrite64(VMCS_EPT_POINTER, eptp);
	uint32_t resume = 0;
	for (;;) {
		if (vmx_enter_caught(&c, resume) != NO_FAULT) {
			t->fault = 1;
			return;
		}
		uint64_t t0 = rdtsc64();
		if (c.outcome != VMX_EXITED) {
			t->failed = c.outcome;
			return;
		}
		resume = 1;
		t->total++;
		uint32_t reason = vmread(VMCS_EXIT_REASON), q = vmread(VMCS_EXIT_QUALIFICATION);
		if (reason == EXIT_VMCALL) {
			t->vmcall++;
			t->rounds_left = l2_regs.esi;
			return;
		}
		if (reason == EXIT_CR_ACCESS && (q & 15) == 3 && ((q >> 4) & 3) == QCR_TO_CR) {
			t->cr3_load++;
			vmwrite(VMCS_GUEST_CR3, *gpr((q >> 8) & 15));
		} else if (reason == EXIT_CR_ACCESS && (q & 15) == 3 && ((q >> 4) & 3) == QCR_FROM_CR) {
			t->cr3_store++;
			*gpr((q >> 8) & 15) = vmread(VMCS_GUEST_CR3);
		} else if (reason == EXIT_INVLPG) {
			t->invlpg++;     /* identity EPT, no VPID: nothing to invalidate */
		} else {
			t->other++;
			note("unexpected exit %u (qualification 0x%x) at 0x%x", reason, q, vmread(VMCS_GUEST_RIP));
			return;
		}
		vmwrite(VMCS_GUEST_RIP, vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSN_LEN));
		t->l1_ticks += rdtsc64() - t0;
	}
}

static void report(const char *who, const struct tally *t, int exits_expected)
{
	char name[120];
	if (t->fault || t->failed) {
		gprintf("# %s: VM entry %s\n", who, t->fault ? "raised a fault in L1" : vmx_outcome_name(t->failed));
		check_true(pg_name(name, sizeof(name), "%s: L2 runs to its VMCALL", who), 0);
		return;
	}
	check(pg_name(name, sizeof(name), "%s: L2 ran its %u rounds to the VMCALL", who, ROUNDS),
	      t->vmcall == 1 && t->rounds_left == 0, 1);
	uint32_t loads = exits_expected ? 2 * ROUNDS : 0, stores = exits_expected ? ROUNDS : 0;
	check(pg_name(name, sizeof(name), "%s: CR3-load exits [SDM 25.1.3]", who), t->cr3_load, loads);
	check(pg_name(name, sizeof(name), "%s: CR3-store exits [SDM 25.1.3]", who), t->cr3_store, stores);
	check(pg_name(name, sizeof(name), "%s: INVLPG exits [SDM 25.1.3]", who), t->invlpg, loads);
}

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_has_proc2(PROC2_EPT))
		skip_all("no EPT (secondary processor-based control 1): the KVM case is about EPT");
	if (!vmx_on())
		skip_all("VMXON failed");

	/* The two page directories L2 switches between (the same identity map). */
	l2_cr3_a = read_cr3();
	gmemcpy(pd_copy, (void *)(uintptr_t)l2_cr3_a, sizeof(pd_copy));
	l2_cr3_b = (uint32_t)(uintptr_t)pd_copy;
	uint64_t eptp = ept_build();

	/* What the capability MSRs allow (A.3.2): the CR3 controls are default1
	 * in IA32_VMX_PROCBASED_CTLS; with IA32_VMX_BASIC[55] the TRUE MSR may
	 * let them be 0. */
	uint64_t plain = rdmsr64(MSR_VMX_PROCBASED_CTLS);
	int has_true = (vmx_caps.basic & BASIC_TRUE_CTLS) != 0;
	note("IA32_VMX_PROCBASED_CTLS: allowed-0 0x%08x allowed-1 0x%08x", (uint32_t)plain,
	     (uint32_t)(plain >> 32));
	if (has_true)
		note("IA32_VMX_TRUE_PROCBASED_CTLS: allowed-0 0x%08x allowed-1 0x%08x", (uint32_t)vmx_caps.proc,
		     (uint32_t)(vmx_caps.proc >> 32));
	note("CR3-load/CR3-store default1 in PROCBASED_CTLS: %s; may be 0 (%s): %s",
	     ((uint32_t)plain & (PROC_CR3_LOAD | PROC_CR3_STORE)) ? "yes" : "no",
	     has_true ? "TRUE_PROCBASED_CTLS" : "no TRUE MSRs",
	     ((uint32_t)vmx_caps.proc & (PROC_CR3_LOAD | PROC_CR3_STORE)) ? "no" : "yes");
	note("INVLPG exiting may be 0: %s", ((uint32_t)vmx_caps.proc & PROC_INVLPG) ? "no" : "yes");

	/* KVM's sequence: the minimum with the three exits, adjusted; under EPT
	 * the three dropped from that result... */
	uint32_t min = THREE | PROC_SECONDARY;
	uint32_t first = ctl_adjust(vmx_caps.proc, min);
	uint32_t once = first & ~THREE;
	/* ...and then adjusted again with the first result as the wanted value,
	 * which asks for the three once more. */
	uint32_t twice = ctl_adjust(vmx_caps.proc, first);
	if ((uint32_t)vmx_caps.proc & THREE) {
		/* The processor forces one of them: the fixed L1 cannot drop it. */
		skip_all("the capability MSRs force CR3/INVLPG exiting to 1 (no TRUE controls)");
	}
	note("primary controls: adjusted once (EPT drops the three) 0x%08x, adjusted twice 0x%08x", once,
	     twice);

	struct tally a, b;
	run_l1(twice, eptp, &a);
	run_l1(once, eptp, &b);
	gprintf("#                            twice       once\n");
	gprintf("# CR3-load exits (28)   %10u %10u\n", a.cr3_load, b.cr3_load);
	gprintf("# CR3-store exits (28)  %10u %10u\n", a.cr3_store, b.cr3_store);
	gprintf("# INVLPG exits (14)     %10u %10u\n", a.invlpg, b.invlpg);
	gprintf("# VMCALL exits (18)     %10u %10u\n", a.vmcall, b.vmcall);
	gprintf("# all exits             %10u %10u\n", a.total, b.total);
	gprintf("# L1 handling (TSC)     %10u %10u\n", (uint32_t)a.l1_ticks, (uint32_t)b.l1_ticks);
	report("adjusted twice (KVM)", &a, 1);
	report("adjusted once (fixed)", &b, 0);
}
