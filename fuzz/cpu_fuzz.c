/* Fuzz target: the input is guest code, run in a small machine twice -- once in
 * real mode and once in flat 32-bit protected mode at CPL 0 -- for a bounded
 * number of instructions. Whatever the bytes do (fault, reload descriptor
 * tables, enable paging with a garbage CR3, write over their own code, I/O to
 * nothing) is an architectural event: the host must not crash, hang or touch
 * memory outside guest RAM. A run ends by HLT, shutdown (triple fault), the
 * instruction limit, or an instruction hvemu does not model (ST_UNSUPPORTED).
 * The exception handlers return into the code (fuzz_machine.h), so blocks run
 * again after a fault with whatever the cache kept from their last run.
 *
 * One machine serves every input: between runs cpu_reset() empties the TLB and
 * the decoded-instruction cache at the cost of what the last run used, so an
 * input costs its own instructions, not a fresh 6 MiB cache. The layout is
 * fuzz_machine.h's.
 */
#include "fuzz/fuzz.h"
#include "fuzz/fuzz_machine.h"

/* A REP chunk (up to 4096 iterations) counts as one instruction, so a run does
 * at most 1M string iterations: over unclaimed memory, element by element,
 * that takes a second with libFuzzer's instrumentation (at 1000 instructions
 * the fuzzer found half as many inputs in the same time). */
#define INSN_LIMIT 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The machine lives as long as the process (the fuzzer's). */
	static struct fuzz_machine m;
	static bool ready;

	if (!ready) {
		fuzz_machine_init(&m);
		ready = true;
	}
	static const enum fuzz_mode modes[] = { FUZZ_REAL, FUZZ_PROT32 };
	for (unsigned i = 0; i < 2; i++) {
		fuzz_machine_load(&m, modes[i], data, size);
		fuzz_check_status("cpu_fuzz", fuzz_machine_run(&m, INSN_LIMIT));
	}
	return 0;
}
