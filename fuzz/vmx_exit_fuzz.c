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
 * Environment (as svm_exit_fuzz's):
 *   HVEMU_FUZZ_STATS=1        at exit: rule coverage, execs/s, reset median
 *   HVEMU_FUZZ_NOABORT=1      count disagreements instead of aborting
 *   HVEMU_FUZZ_VERIFY=1       after each restore compare all of RAM with the snapshot
 *   HVEMU_FUZZ_TRACE=list     hvemu's trace classes (emu/trace.h)
 *   HVEMU_FUZZ_BENCH=n        time n execs of one entry + 64 templates that do not exit +
 *                             an exiting HLT, print execs/s and the reset median, exit
 *   HVEMU_FUZZ_SAVE=dir       write each disagreeing input to dir (with HVEMU_FUZZ_NOABORT)
 *   HVEMU_FUZZ_ROW=file       write the exec as a reproducer row (fuzz/vmx_exit_row.h)
 *   HVEMU_FUZZ_STATUS=1/0     the live status line (fuzz/status.h)
 *   HVEMU_FUZZ_MIN_COVERAGE=1 at exit: fail (exit 1) unless every modelled entry check was
 *                             seen passing and failing and 90 % of the cells were reached
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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/fuzz.h"
#include "fuzz/status.h"
#include "fuzz/vmx_exit_fuzz.h"
#include "fuzz/vmx_exit_row.h"

#define RESET_SAMPLES 8192
static struct {
	bool on, no_abort, verify;
	uint64_t execs, disagreements;
	struct timespec start;
	double reset_us[RESET_SAMPLES];
	unsigned n_reset;
} stats;

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double reset_median(void)
{
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	return stats.n_reset ? stats.reset_us[stats.n_reset / 2] : 0.0;
}

static void print_stats(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double secs = (double)(now.tv_sec - stats.start.tv_sec) + (double)(now.tv_nsec - stats.start.tv_nsec) / 1e9;
	vo_print_coverage();
	fprintf(stderr, "vmx_exit_fuzz: %llu execs in %.1f s: %.0f execs/s; %llu disagreements\n",
		(unsigned long long)stats.execs, secs, secs > 0 ? (double)stats.execs / secs : 0.0,
		(unsigned long long)stats.disagreements);
	if (stats.n_reset)
		fprintf(stderr, "vmx_exit_fuzz: reset median %.2f us, p90 %.2f us (%u samples)\n", reset_median(),
			stats.reset_us[stats.n_reset * 9 / 10], stats.n_reset);
}

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

static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && *v != '0';
}

static struct machine m;
static struct fuzz_status status;
static const char *row_path;

/* The status line with the oracle's coverage: entry checks seen to pass
 * and to fail, rules both ways, (reason x shape) cells, findings. */
static void print_status(void)
{
	struct vo_coverage_summary c;
	vo_coverage_summary(&c);
	char extra[224];
	snprintf(extra, sizeof(extra),
		 "checks %u/%u both ways, rules %u both + %u one way of %u, cells %u/%u, %.0f%% unknown, "
		 "reset median %.2f us, %llu findings",
		 c.checks_both_ways, c.checks, c.rules_both_ways, c.rules_one_way, c.rules, c.cells, c.cells_possible,
		 c.predictions ? 100.0 * (double)c.unknown / (double)c.predictions : 0.0,
		 reset_median(), (unsigned long long)stats.disagreements);
	fuzz_status_print(&status, stats.execs, extra);
}

static void end_status(void)
{
	fuzz_status_break(&status);
}

/* ---- the exec/s measure ---- */

/* One bench exec: a 32-bit guest, HLT exiting, and 64 templates that do not
 * exit (no I/O exiting, no bitmaps): about 100 guest instructions. */
static size_t bench_input(uint8_t *buf)
{
	size_t n = 0;
	buf[n++] = 0;                      /* 32-bit guest */
	buf[n++] = 1, buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;   /* HLT exiting */
	buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;
	buf[n++] = 0;                      /* no mutations */
	buf[n++] = 63;                     /* 64 templates */
	static const uint8_t ops[8][5] = {
		{ VO_NOP }, { VO_LOAD, 0, 8 }, { VO_STORE, 0, 16 }, { VO_PAUSE },
		{ VO_OUT, 0, 0, 0, 0 }, { VO_INVLPG, 0, 0 }, { VO_MOV_FROM_DR, 0, 1 }, { VO_WBINVD },
	};
	for (unsigned k = 0; k < 64; k++)
		for (unsigned j = 0; j < 5; j++)
			buf[n++] = ops[k % 8][j];
	return n;
}

static void run_bench(unsigned long count)
{
	static uint8_t buf[512];
	size_t len = bench_input(buf);
	stats.on = true;
	stats.n_reset = 0;
	uint64_t insns = 0;
	struct timespec a, b;
	LLVMFuzzerTestOneInput(buf, len);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < count; i++) {
		LLVMFuzzerTestOneInput(buf, len);
		insns += m.cpu.icount - m.snap.cpu_state.icount;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("vmx_exit_fuzz bench: %lu execs (entry + %.0f instructions + exit) in %.2f s: %.0f execs/s; "
	       "reset median %.2f us\n", count, count ? (double)insns / (double)count : 0.0, secs,
	       secs > 0 ? (double)count / secs : 0.0, reset_median());
	exit(0);
}

/* ---- one exec ---- */

static void setup_once(void)
{
	vmx_exit_machine_init(&m);
	stats.on = env_on("HVEMU_FUZZ_STATS");
	stats.no_abort = env_on("HVEMU_FUZZ_NOABORT");
	stats.verify = env_on("HVEMU_FUZZ_VERIFY");
	clock_gettime(CLOCK_MONOTONIC, &stats.start);
	if (stats.on)
		atexit(print_stats);
	fuzz_status_init(&status, "vmx_exit_fuzz");
	if (status.on)
		atexit(end_status);
	if (env_on("HVEMU_FUZZ_MIN_COVERAGE"))
		atexit(require_coverage);
	row_path = getenv("HVEMU_FUZZ_ROW");
	if (row_path && !*row_path)
		row_path = NULL;
	const char *bench = getenv("HVEMU_FUZZ_BENCH");
	if (bench && *bench)
		run_bench(strtoul(bench, NULL, 0));
}

static void reset(void)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snapshot_restore(&m.snap);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (stats.n_reset < RESET_SAMPLES)
		stats.reset_us[stats.n_reset++] =
			(double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	else
		stats.reset_us[stats.execs % RESET_SAMPLES] =
			(double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		ready = true;
		setup_once();
	}
	reset();
	if (stats.verify && snapshot_ram_differs(&m.snap)) {
		fprintf(stderr, "vmx_exit_fuzz: RAM differs from the snapshot after a restore\n");
		abort();
	}
	stats.execs++;
	if (fuzz_status_due(&status) && fuzz_status_tick(&status, stats.execs))
		print_status();

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
	static struct vo_insn insns[MAX_TEMPLATES + 1];
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
	insns[n] = (struct vo_insn){ .op = VO_HLT, .seg = -1, .rip = L2_CODE + as.len, .len = 1 };
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
	if (row_path && st == ST_HALT) {
		char comment[256];
		snprintf(comment, sizeof(comment), "expect: hvemu's outcome when the row was written\noracle: %s%s",
			 bad ? "DISAGREED on " : pred.outcome == VO_OUT_UNKNOWN ? "unknown: " : "agreed",
			 bad ? (vo_last_disagreement ? vo_last_disagreement : "?") :
			 pred.outcome == VO_OUT_UNKNOWN ? pred.unknown_why : "");
		struct vmx_exit_image image = { .vmcs = v, .base = m.vmcs_at_launch, .code = as.buf, .code_len = as.len,
						.io = io_bits, .msr = msr_bits };
		if (!vmx_exit_row_write(row_path, comment, &image, &act))
			fprintf(stderr, "vmx_exit_fuzz: %s: cannot write the row\n", row_path);
	}
	if (bad) {
		stats.disagreements++;
		fprintf(stderr, "vmx_exit_fuzz: %s guest, %u templates:", guest & 1 ? "64-bit" : "32-bit", n);
		for (unsigned k = 0; k <= n; k++)
			fprintf(stderr, " %u@%llx", insns[k].op, (unsigned long long)insns[k].rip);
		fprintf(stderr, "\n");
		const char *dir = getenv("HVEMU_FUZZ_SAVE");
		if (dir && *dir) {
			char path[512];
			snprintf(path, sizeof(path), "%s/disagree-%llu", dir, (unsigned long long)stats.disagreements);
			FILE *f = fopen(path, "wb");
			if (f) {
				fwrite(data, 1, size, f);
				fclose(f);
			}
		}
		if (!stats.no_abort)
			abort();
	}
	return 0;
}
