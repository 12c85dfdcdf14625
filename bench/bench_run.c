/* Benchmark runner: boots each multiboot guest given on the command line in a
 * bare machine (RAM, isa-debug-exit), runs it to its debug-exit write, and prints
 *     NAME: N instructions in S s = M MIPS
 * (wall-clock time, retired instructions from cpu->icount). Not a test. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devices/bus.h"
#include "devices/debug_exit.h"
#include "devices/loader.h"
#include "devices/multiboot.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"

#define RAM_SIZE (32u << 20)

static void stop_cpu(void *opaque, uint32_t value)
{
	(void)value;
	cpu_request_stop((struct cpu *)opaque);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

/* Multiboot 3.2 machine state: flat code/data from the loader's GDT, PE=1. */
static void enter_multiboot(struct cpu *cpu, struct physmem *pm, const struct multiboot_boot *b)
{
	cpu->regs[R_AX] = MB_BOOT_MAGIC;
	cpu->regs[R_BX] = b->info_addr;
	cpu->cr0 |= CR0_PE;
	seg_load_descriptor(&cpu->seg[SR_CS], MB_GDT_CODE_SEL,
			    physmem_read(pm, b->gdt_addr + MB_GDT_CODE_SEL, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], MB_GDT_DATA_SEL,
					    physmem_read(pm, b->gdt_addr + MB_GDT_DATA_SEL, 8));
	cpu->gdtr.base = b->gdt_addr;
	cpu->gdtr.limit = b->gdt_limit;
	cpu_set_flags(cpu, FLAG_FIXED1);
	cpu->rip = b->entry;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}

static int bench_one(const char *path)
{
	char err[256], name[256];
	uint8_t *image;
	size_t size;
	struct physmem pm;
	struct iobus io;
	struct debug_exit dexit;
	struct multiboot_boot boot;
	static struct cpu cpu;

	snprintf(name, sizeof(name), "%s", path);
	char *base = basename(name);
	char *dot = strrchr(base, '.');
	if (dot)
		*dot = 0;
	if (!loader_read_file(path, 64u << 20, &image, &size, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err);
		return 1;
	}
	if (!physmem_init(&pm, RAM_SIZE)) {
		perror("physmem_init");
		return 1;
	}
	iobus_init(&io);
	debug_exit_init(&dexit, DEBUG_EXIT_PORT, stop_cpu, &cpu);
	if (!debug_exit_register(&dexit, &io) ||
	    !multiboot_load(&pm, image, size, path, "", NULL, 0, &boot, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", path, err[0] ? err : "cannot set up the machine");
		return 1;
	}
	free(image);
	/* The 64-bit guests (NAME64_...) need a model with long mode. */
	const struct cpu_model *model = strstr(base, "64") ? cpu_model_find("skylake-lite") : cpu_models[0];
	cpu_init(&cpu, model, &pm, &io);
	pm.on_ram_write = ram_written;
	pm.on_ram_write_opaque = &cpu;
	enter_multiboot(&cpu, &pm, &boot);

	/* CPU time of this process: on a shared machine wall time measures the
	 * neighbours; hvemu is single-threaded, so CPU time is its speed. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	status_t st = cpu_run(&cpu);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	int rc = 0;
	if (st != ST_STOP || !dexit.exited || dexit.value != 0) {
		fprintf(stderr, "%s: did not finish by debug-exit 0 (status %d, wrote %u, rip %#llx)\n",
			base, (int)st, dexit.value, (unsigned long long)cpu.rip);
		rc = 1;
	}
	printf("%s: %llu instructions in %.3f s of CPU time = %.1f MIPS\n", base,
	       (unsigned long long)cpu.icount, s, (double)cpu.icount / s / 1e6);
	/* page_touch leaves its count of page touches in EDI. */
	if (strstr(base, "page_touch"))
		printf("%s: %llu page touches = %.2f M touches/s\n", base,
		       (unsigned long long)(uint32_t)cpu.regs[R_DI], (double)(uint32_t)cpu.regs[R_DI] / s / 1e6);
	pm.on_ram_write = NULL;
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: bench_run GUEST.elf...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		rc |= bench_one(argv[i]);
	return rc;
}
