/* Fuzz target: VMX VM entries and VM exits against an executable reading of
 * the SDM (fuzz/vmx_oracle.c). A 64-bit L1 stopped at its VMLAUNCH with the
 * VMCS current is restored from a snapshot (fuzz/snapshot.h: dirty pages, the
 * CPU, the VMX model with its copy of the VMCS); the input, read as a
 * structure, builds the VMCS (exiting controls within the capability MSRs,
 * masks and shadows, the exception bitmap, guest and host state mutated
 * through typed operators at the boundaries of the entry checks), the
 * bitmaps' bits and 1..64 L2 instruction templates; the L1 runs one
 * VMLAUNCH, and the oracle's prediction (VMfailValid and its error, a
 * VM-entry failure, or the exit with every field) is compared with what
 * hvemu did. A disagreement prints the field, both values and the rule's
 * citation, then aborts: a finding.
 *
 * Environment (besides fuzz/exit_fuzz_common.h's STATS, NOABORT, VERIFY,
 * BENCH, SAVE, ROW, STATUS, EXPECT):
 *   HVEMU_FUZZ_TRACE=list     hvemu's trace classes (emu/trace.h)
 *   HVEMU_FUZZ_MIN_COVERAGE=1 at exit: fail (exit 1) unless every modelled entry check was
 *                             seen passing and failing and 90 % of the cells were reached
 *   HVEMU_FUZZ_STRICT=1       the oracle decides its open questions by its own reading
 *                             (fuzz/findings/README.md) instead of calling them unknown
 *
 * Input (bytes past the end read as 0):
 *   0      guest: bit 0 64-bit; bit 1 SS/DS/ES bases 4000_0000h (32-bit); bits 3:2 IDT
 *          (L2 IDT, the hole page, base FFFF_FF00h, limit 3Fh); bit 4 CR4.OSXSAVE
 *   1-4    controls (vmx_exit_controls): bits 0-14 primary exiting controls, 15-19
 *          secondary, 20 activate secondary, 21-22 CR3-target count, 23-26 targets,
 *          27-29 CR0/CR4 masks and shadows
 *   5      the CR0/CR4 mask and shadow bits
 *   6      exception bitmap: #DE #DB #BP #UD #GP #PF #SS #NP
 *   7      #PF error-code mask (bits 1:0) and match (bits 3:2)
 *   8      mutations: count in bits 2:0, then 3 bytes each (vmx_exit_mutate)
 *   ...    templates: count 1..64, then 5 bytes each (op, 4 operands)
 * The bench exec: one entry + 64 templates that do not exit + an exiting HLT.
 * The row: fuzz/vmx_exit_row.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/exit_fuzz_common.h"
#include "fuzz/fuzz.h"
#include "fuzz/vmx_exit_fuzz.h"
#include "fuzz/vmx_exit_row.h"

/* Issue 19's coverage targets as a test: every modelled VM-entry check hit
 * both ways, at least 90 % of the (exit reason x shape) cells. */
static void require_coverage(void)
{
	struct vo_coverage_summary c;
	vo_coverage_summary(&c);
	bool ok = c.checks_both_ways == c.checks && c.cells * 10 >= c.cells_possible * 9;
	fprintf(stderr, "vmx_exit_fuzz: entry checks both ways %u of %u, cells %u of %u: %s\n", c.checks_both_ways,
		c.checks, c.cells, c.cells_possible, ok ? "coverage met" : "COVERAGE NOT MET");
	if (!ok) {
		vo_print_coverage();
		_Exit(1);
	}
}

static struct machine m;

/* The status line's part from the oracle's coverage: entry checks seen to
 * pass and to fail, rules both ways, (reason x shape) cells, findings. */
static void status_extra(char *buf, size_t size, uint64_t disagreements)
{
	struct vo_coverage_summary c;
	vo_coverage_summary(&c);
	snprintf(buf, size,
		 "checks %u/%u both ways, rules %u both + %u one way of %u, cells %u/%u, %.0f%% unknown, "
		 "reset median %.2f us, %llu findings",
		 c.checks_both_ways, c.checks, c.rules_both_ways, c.rules_one_way, c.rules, c.cells, c.cells_possible,
		 c.predictions ? 100.0 * (double)c.unknown / (double)c.predictions : 0.0,
		 exit_fuzz_reset_median(), (unsigned long long)disagreements);
}

/* ---- the exec/s measure ---- */

/* The bench input up to its template count: a 32-bit guest, HLT exiting
 * (no I/O exiting, no bitmaps), no mutations. */
static const uint8_t bench_header[] = {
	0,                                 /* 32-bit guest */
	1, 0, 0, 0,                        /* HLT exiting */
	0, 0, 0,                           /* masks, exception bitmap, #PF mask/match */
	0,                                 /* no mutations */
};

static void setup_once(void)
{
	vo_strict = exit_fuzz_env_on("HVEMU_FUZZ_STRICT");
	vmx_exit_machine_init(&m);
	static const struct exit_fuzz_target target = {
		.name = "vmx_exit_fuzz", .snap = &m.snap, .cpu = &m.cpu, .print_coverage = vo_print_coverage,
		.status_extra = status_extra,
		.bench_header = bench_header, .bench_header_len = sizeof(bench_header),
		.bench_ops = { [EXIT_BENCH_NOP] = VO_NOP, [EXIT_BENCH_LOAD] = VO_LOAD, [EXIT_BENCH_STORE] = VO_STORE,
			       [EXIT_BENCH_PAUSE] = VO_PAUSE, [EXIT_BENCH_OUT] = VO_OUT, [EXIT_BENCH_INVLPG] = VO_INVLPG,
			       [EXIT_BENCH_MOV_FROM_DR] = VO_MOV_FROM_DR, [EXIT_BENCH_WBINVD] = VO_WBINVD },
	};
	exit_fuzz_start(&target);
	if (exit_fuzz_env_on("HVEMU_FUZZ_MIN_COVERAGE"))
		atexit(require_coverage);
	exit_fuzz_bench_from_env();
}

/* ---- one exec ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		ready = true;
		setup_once();
	}
	exit_fuzz_restore();

	struct reader r = { data, size };
	uint8_t guest = byte(&r);
	static uint64_t v[VMCS_ROW_COUNT];
	vmx_exit_vmcs_base(&m, v, guest);
	uint32_t bits = word32(&r);
	vmx_exit_controls(&m, v, bits, byte(&r));
	static const uint8_t exc[8] = { 0, 1, 3, 6, 13, 14, 12, 11 };
	uint8_t eb = byte(&r);
	for (unsigned k = 0; k < 8; k++)
		if ((eb >> k) & 1)
			v[VMCS_ROW_EXCEPTION_BITMAP] |= 1u << exc[k];
	uint8_t pf = byte(&r);
	v[VMCS_ROW_PF_ERROR_CODE_MASK] = (const uint32_t[]){ 0, 2, 3, 0xffffffff }[pf & 3];
	v[VMCS_ROW_PF_ERROR_CODE_MATCH] = (const uint32_t[]){ 0, 2, 1, 3 }[(pf >> 2) & 3];
	unsigned n_mut = byte(&r) & 7;
	for (unsigned k = 0; k < n_mut; k++) {
		uint8_t op = byte(&r), a = byte(&r), b = byte(&r);
		vmx_exit_mutate(&m, v, op, a, b);
	}

	static struct assembler as;
	static struct l2_insn insns[MAX_TEMPLATES + 1];
	static uint8_t io_bits[0x2000], msr_bits[0x1000];
	memset(io_bits, 0, sizeof(io_bits));
	memset(msr_bits, 0, sizeof(msr_bits));
	as.len = 0;
	as.m64 = guest & 1;
	unsigned n = 1 + byte(&r) % MAX_TEMPLATES;
	for (unsigned k = 0; k < n; k++) {
		uint8_t op[5];
		for (unsigned j = 0; j < 5; j++)
			op[j] = byte(&r);
		vmx_exit_assemble(&as, &insns[k], v, op, io_bits, msr_bits);
	}
	insns[n] = (struct l2_insn){ .op = VO_HLT, .seg = -1, .rip = L2_CODE + as.len, .len = 1 };
	emit1(&as, 0xf4);

	snapshot_write(&m.snap, L2_CODE, as.buf, as.len);
	for (unsigned k = 0; k < sizeof(io_bits); k += 8)
		if (*(const uint64_t *)(const void *)(io_bits + k))
			snapshot_write(&m.snap, (k < 0x1000 ? IO_BITMAP_A_PA : IO_BITMAP_B_PA - 0x1000) + k,
				       io_bits + k, 8);
	for (unsigned k = 0; k < sizeof(msr_bits); k += 8)
		if (*(const uint64_t *)(const void *)(msr_bits + k))
			snapshot_write(&m.snap, MSR_BITMAP_PA + k, msr_bits + k, 8);
	vmx_exit_load_vmcs(&m, v);

	struct vo_input oin = { .cpu = &m.ocpu, .layout = &m.layout, .vmcs = v, .insns = insns, .n_insns = n + 1 };
	struct vo_prediction pred;
	vo_predict(&oin, &pred);

	m.failed_check = NULL;
	status_t st = cpu_run(&m.cpu);
	static uint64_t after[VMCS_ROW_COUNT];
	vmx_exit_read_vmcs(&m, after);
	struct vo_actual act = { .vmcs = after, .halted_in_guest = m.cpu.in_guest,
				 .vmfail = !m.cpu.in_guest && (cpu_get_flags(&m.cpu) & FLAG_ZF),
				 .failed_check = m.failed_check, .rax = m.cpu.regs[R_AX] };
	/* A host state the mutations changed may be legal yet leave the L1
	 * unable to run after the exit (a host RIP or CR3 elsewhere): the exit
	 * information is still the VMCS's to check. */
	bool host_as_taken = true;
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		if (vmcs_row_is_host(row) && v[row] != m.vmcs_at_launch[row])
			host_as_taken = false;
	bool l1_back = st == ST_HALT && !m.cpu.in_guest && m.cpu.rip == L1_AFTER + 1;
	unsigned bad = 0;
	if (pred.outcome == VO_OUT_UNKNOWN) {
		/* nothing predicted, nothing to compare */
	} else if (st != ST_HALT && (host_as_taken || m.cpu.in_guest)) {
		fprintf(stderr, "vmx_exit_fuzz: cpu_run returned %d (in guest %d), the oracle predicted outcome %d\n",
			(int)st, (int)m.cpu.in_guest, (int)pred.outcome);
		bad = 1;
	} else if (!m.cpu.in_guest && !l1_back && host_as_taken) {
		fprintf(stderr, "vmx_exit_fuzz: the L1 did not come back to its HLT (rip %#llx)\n",
			(unsigned long long)m.cpu.rip);
		bad = 1;
	} else {
		act.vmfail = l1_back && act.vmfail;
		bad = vo_compare(&oin, &pred, &act);
	}
	const char *row_path = exit_fuzz_row_path();
	if (row_path && st == ST_HALT) {
		char comment[256];
		exit_fuzz_row_comment(comment, sizeof(comment), "hvemu's outcome when the row was written", bad,
				      vo_last_disagreement, pred.outcome == VO_OUT_UNKNOWN, pred.unknown_why);
		struct vmx_exit_image image = { .vmcs = v, .base = m.vmcs_at_launch, .code = as.buf, .code_len = as.len,
						.io = io_bits, .msr = msr_bits };
		if (!vmx_exit_row_write(row_path, comment, &image, &act))
			fprintf(stderr, "vmx_exit_fuzz: %s: cannot write the row\n", row_path);
	}
	if (bad) {
		fprintf(stderr, "vmx_exit_fuzz: %s guest, %u templates:", guest & 1 ? "64-bit" : "32-bit", n);
		for (unsigned k = 0; k <= n; k++)
			fprintf(stderr, " %u@%llx", insns[k].op, (unsigned long long)insns[k].rip);
		fprintf(stderr, "\n");
		exit_fuzz_disagreed(data, size, vo_last_disagreement);
	}
	return 0;
}
