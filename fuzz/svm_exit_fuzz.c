/* Fuzz target: the SVM #VMEXIT encodings against an executable reading of
 * the APM (fuzz/svm_oracle.c). An L1 stopped at its VMRUN is restored from a
 * snapshot (fuzz/snapshot.h); the input, read as a structure, builds the
 * VMCB (intercepts, permission-map bits, guest state mutated through typed
 * operators) and 1..64 L2 instruction templates; the L1 runs one VMRUN, the
 * guest runs to its #VMEXIT (or halts), and the oracle's prediction of every
 * field of the exit is compared with what hvemu wrote. A disagreement prints
 * the field, both values and the rule's citation, then aborts: a finding.
 *
 * Environment (besides fuzz/exit_fuzz_common.h's STATS, NOABORT, VERIFY,
 * BENCH, SAVE, ROW, STATUS, EXPECT):
 *   HVEMU_FUZZ_QUIRK=name     create the SVM model with that quirk (emu/quirks.def)
 *   HVEMU_FUZZ_TRACE=list     hvemu's trace classes (emu/trace.h: insn,exc,io,pf)
 *   HVEMU_FUZZ_STRICT=1       the oracle decides its open questions by the APM's
 *                             general rules (fuzz/findings/README.md)
 * The bench exec: one entry + 64 templates that do not exit + an intercepted
 * HLT. The row (fuzz/svm_exit_row.h): with several inputs, the last one's.
 *
 * Input (bytes past the end read as 0):
 *   0      guest: bit 0 64-bit; bit 1 data segment bases 4000_0000h (32-bit);
 *          bits 3:2 IDT (L2 IDT, the hole page, base FFFF_FF00h, L2 IDT limit 3Fh);
 *          bit 4 CR4.OSXSAVE; bit 5 16-bit gates in the L2 IDT
 *   1-4    CR read/write intercepts (word 0), 5-8 DR (word 1)
 *   9      exception intercepts: #DE #BP #UD #GP #PF #SS #DB #NP
 *   10-13  instruction intercepts, one bit per entry of svm_exit_misc_intercepts[]
 *   14     mutations: count in bits 2:0, then 3 bytes each
 *   ...    templates: count 1..64, then 5 bytes each (op, 4 operands)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/exit_fuzz_common.h"
#include "fuzz/fuzz.h"
#include "fuzz/svm_exit_fuzz.h"
#include "fuzz/svm_exit_row.h"
#include "svm/bitmaps.h"

static struct machine m;

/* The status line's part (fuzz/status.h) from the oracle's coverage: rules
 * seen to hold and not to hold, exit x EXITINFO shape cells, and findings. */
static void status_extra(char *buf, size_t size, uint64_t disagreements)
{
	struct oracle_coverage_summary c;
	oracle_coverage_summary(&c);
	snprintf(buf, size, "rules %u both ways + %u one way of %u, %u exit cells, %.0f%% unknown, %llu findings",
		 c.rules_both_ways, c.rules_one_way, c.rules, c.cells,
		 c.predictions ? 100.0 * (double)c.unknown / (double)c.predictions : 0.0,
		 (unsigned long long)disagreements);
}

/* The bench input up to its template count: a 32-bit guest, no CR/DR or
 * exception intercepts, HLT intercepted, no mutations. */
static const uint8_t bench_header[] = {
	0,                                 /* 32-bit guest */
	0, 0, 0, 0, 0, 0, 0, 0,            /* no CR/DR intercepts */
	0,                                 /* no exception intercepts */
	1u << 4, 0, 0, 0,                  /* misc: HLT */
	0,                                 /* no mutations */
};

static void setup_once(void)
{
	svm_exit_machine_init(&m);
	static const struct exit_fuzz_target target = {
		.name = "svm_exit_fuzz", .snap = &m.snap, .cpu = &m.cpu, .print_coverage = oracle_print_coverage,
		.status_extra = status_extra,
		.bench_header = bench_header, .bench_header_len = sizeof(bench_header),
		.bench_ops = { [EXIT_BENCH_NOP] = OP_NOP, [EXIT_BENCH_LOAD] = OP_LOAD, [EXIT_BENCH_STORE] = OP_STORE,
			       [EXIT_BENCH_PAUSE] = OP_PAUSE, [EXIT_BENCH_OUT] = OP_OUT, [EXIT_BENCH_INVLPG] = OP_INVLPG,
			       [EXIT_BENCH_MOV_FROM_DR] = OP_MOV_FROM_DR, [EXIT_BENCH_WBINVD] = OP_WBINVD },
	};
	exit_fuzz_start(&target);
	oracle_strict = exit_fuzz_env_on("HVEMU_FUZZ_STRICT");
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

	static struct svm_exit_exec e;
	svm_exit_decode(&e, data, size);
	svm_exit_load(&m, &e);
	uint8_t guest = e.guest;
	const struct l2_insn *insns = e.insns;
	unsigned n = e.n_insns - 1;
	struct oracle_input oin = svm_exit_oracle_input(&m, &e);
	struct oracle_prediction pred;
	oracle_predict(&oin, &pred);

	m.failed_check = NULL;
	status_t st = cpu_run(&m.cpu);
	struct oracle_actual act = { .vmcb = (const struct vmcb *)(const void *)(m.pm.ram + VMCB_PA),
				     .halted_in_guest = m.cpu.in_guest, .failed_check = m.failed_check };
	unsigned bad = 0;
	if (st != ST_HALT) {
		/* The L1 halts after the #VMEXIT; a guest that neither exits nor
		 * halts within the limit is a disagreement only where the oracle
		 * predicted something. */
		if (pred.outcome != OUT_UNKNOWN) {
			fprintf(stderr, "svm_exit_fuzz: cpu_run returned %d (in guest %d), the oracle predicted %s\n",
				(int)st, (int)m.cpu.in_guest, pred.outcome == OUT_EXIT ? "an exit" : "a halt");
			bad = 1;
		}
	} else if (pred.outcome != OUT_UNKNOWN && !m.cpu.in_guest && m.cpu.rip != L1_AFTER + 1) {
		/* Only where the oracle predicted: a guest it does not model may
		 * overwrite the L1's code (without paging all of RAM is its). */
		fprintf(stderr, "svm_exit_fuzz: the L1 did not return to its HLT (rip %#llx)\n",
			(unsigned long long)m.cpu.rip);
		bad = 1;
	} else {
		bad = oracle_compare(&oin, &pred, &act);
	}
	const char *row_path = exit_fuzz_row_path();
	if (row_path && st == ST_HALT) {
		/* The exec as a reproducer row, hvemu's exit as its expectation. */
		char comment[256];
		exit_fuzz_row_comment(comment, sizeof(comment), "hvemu's exit when the row was written", bad,
				      oracle_last_disagreement, pred.outcome == OUT_UNKNOWN, pred.unknown_why);
		struct svm_exit_image image = { .vmcb = &e.vmcb, .code = e.as.buf, .code_len = e.as.len,
						.iopm = e.iopm_bits, .msrpm = e.msrpm_bits };
		if (!svm_exit_row_write(row_path, comment, &image, act.vmcb, m.cpu.in_guest))
			fprintf(stderr, "svm_exit_fuzz: %s: cannot write the row\n", row_path);
	}
	if (bad) {
		fprintf(stderr, "svm_exit_fuzz: %s guest, %u templates:", guest & 1 ? "64-bit" : "32-bit", n);
		for (unsigned k = 0; k <= n; k++)
			fprintf(stderr, " %u@%llx", insns[k].op, (unsigned long long)insns[k].rip);
		fprintf(stderr, "\n");
		exit_fuzz_disagreed(data, size, oracle_last_disagreement);
	}
	return 0;
}
