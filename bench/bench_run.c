/* Benchmark runner: boots each multiboot guest given on the command line in
 * the machine hvemu runs (machine/machine.h) with 64 MiB, as vs_qemu.py gives
 * QEMU (the page-touch loops write to every page from 8 to 64 MiB), runs it to its
 * debug-exit write, and prints
 *     NAME: N instructions in S s = M MIPS
 * (CPU time, retired instructions from cpu->icount), and for the guests that
 * count something in EDI (page touches, VMMCALL and VMCALL round trips) that
 * rate too.
 * Not a test. */
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/cpu_model.h"
#include "machine/machine.h"

#define RAM_SIZE (64u << 20)

/* The round-trip rates of this run (M/s), 0 until measured: VMX's against
 * SVM's, side by side (issue 16: at least 0.8x). */
struct round_trips {
	double svm, vmx;
};

static int bench_one(const char *path, struct round_trips *rt)
{
	char err[512], name[256];
	snprintf(name, sizeof(name), "%s", path);
	char *base = basename(name);
	char *dot = strrchr(base, '.');
	if (dot)
		*dot = 0;
	/* The 64-bit guests (NAME64_...) need a model with long mode; the SVM
	 * guests (vmmcall*) an AMD model with SVM, the VMX guests (vmcall*) the
	 * Intel one with VMX (skylake-lite), each vendor's model installed by the
	 * machine. */
	int vmmcall = strstr(base, "vmmcall") != NULL;
	int vmcall = strstr(base, "vmcall") != NULL;
	const struct cpu_model *model = vmmcall ? cpu_model_find("epyc-lite") :
					strstr(base, "64") ? cpu_model_find("skylake-lite") : cpu_models[0];
	const struct machine_config cfg = { .ram_size = RAM_SIZE, .model = model, .kernel = path };
	static struct machine m;
	if (!machine_setup(&m, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err);
		machine_destroy(&m);
		return 1;
	}
	struct cpu *cpu = &m.cpu;

	/* CPU time of this process: on a shared machine wall time measures the
	 * neighbours; hvemu is single-threaded, so CPU time is its speed. */
	static const volatile sig_atomic_t no_stop;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	status_t st = machine_run(&m, &no_stop);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	int rc = 0;
	if (st != ST_STOP || !m.dexit.exited || m.dexit.value != 0) {
		fprintf(stderr, "%s: did not finish by debug-exit 0 (status %d, wrote %u, rip %#llx)\n",
			base, (int)st, m.dexit.value, (unsigned long long)cpu->rip);
		rc = 1;
	}
	printf("%s: %llu instructions in %.3f s of CPU time = %.1f MIPS\n", base,
	       (unsigned long long)cpu->icount, s, (double)cpu->icount / s / 1e6);
	/* page_touch leaves its count of page touches in EDI. */
	if (strstr(base, "page_touch"))
		printf("%s: %llu page touches = %.2f M touches/s\n", base,
		       (unsigned long long)(uint32_t)cpu->regs[R_DI], (double)(uint32_t)cpu->regs[R_DI] / s / 1e6);
	/* vmmcall* leaves its count of VMRUN-VMMCALL-#VMEXIT round trips in EDI. */
	double trips = (double)(uint32_t)cpu->regs[R_DI] / s / 1e6;
	if (vmmcall) {
		printf("%s: %llu VMMCALL round trips = %.3f M round trips/s\n", base,
		       (unsigned long long)(uint32_t)cpu->regs[R_DI], trips);
		rt->svm = trips;
	}
	/* vmcall* leaves its count of VMRESUME-VMCALL-VM exit round trips in EDI. */
	if (vmcall) {
		printf("%s: %llu VMCALL round trips = %.3f M round trips/s\n", base,
		       (unsigned long long)(uint32_t)cpu->regs[R_DI], trips);
		rt->vmx = trips;
	}
	machine_destroy(&m);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: bench_run GUEST.elf...\n");
		return 2;
	}
	struct round_trips rt = { 0, 0 };
	for (int i = 1; i < argc; i++)
		rc |= bench_one(argv[i], &rt);
	if (rt.svm > 0 && rt.vmx > 0)
		printf("VMCALL/VMMCALL round trips: %.2fx\n", rt.vmx / rt.svm);
	return rc;
}
