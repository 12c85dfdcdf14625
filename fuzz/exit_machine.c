/* The machine pieces svm_exit_fuzz and vmx_exit_fuzz build alike: the L2
 * world of fuzz/exit_machine.h and the plumbing between the machine and the
 * harness. Each vendor's *_exit_machine.c adds its L1 and its model. */
#include "fuzz/exit_machine.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu_model.h"
#include "emu/exit_report.h"
#include "emu/trace.h"
#include "fuzz/l2_assembler.h"

void exit_machine_init_cpu(struct physmem *pm, struct iobus *io, struct cpu *cpu, const char *model)
{
	const struct cpu_model *cm = cpu_model_find(model);
	if (!cm || !physmem_init(pm, RAM_SIZE))
		abort();
	iobus_init(io);
	cpu_init(cpu, cm, pm, io);
}

void exit_machine_read_cpuid(struct cpu *cpu, struct oracle_cpuid *id)
{
	uint32_t r[4];
	cpu_cpuid(cpu, 1, 0, r);
	id->cpuid1_ecx = r[2], id->cpuid1_edx = r[3];
	cpu_cpuid(cpu, 7, 0, r);
	id->cpuid7_ebx = r[1], id->cpuid7_ecx = r[2];
	cpu_cpuid(cpu, 0x80000001, 0, r);
	id->cpuid81_ecx = r[2], id->cpuid81_edx = r[3];
	cpu_cpuid(cpu, 0x80000008, 0, r);
	id->maxphyaddr = r[0] & 0xff;
}

uint64_t exit_descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

void exit_machine_build_l2(struct physmem *pm)
{
	memset(pm->ram, 0, pm->ram_size);
	physmem_write(pm, L2_GDT + 0x08, 8, exit_descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L2_GDT + 0x10, 8, exit_descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(pm, L2_GDT + 0x18, 8, exit_descriptor(0, 0xfffff, 0x9b, 0xa));
	physmem_write(pm, L2_GDT + 0x28, 8, exit_descriptor(L2_TSS, 0x67, 0x8b, 0));
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT + v * 8, 8, (L2_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40) |
						      ((uint64_t)(L2_HANDLER >> 16) << 48));
	memset(pm->ram + L2_HANDLER, 0xf4, 0x1000);
	for (uint32_t i = 0; i < MAPPED_TOP >> 12; i++) {
		uint32_t pa = i << 12;
		bool hole = pa == 0 || pa == HOLE;
		physmem_write(pm, PT32 + i * 4, 4, hole ? 0 : pa | 0x63);
		physmem_write(pm, PT64 + i * 8, 8, hole ? 0 : pa | 0x63);
	}
	physmem_write(pm, PD32, 4, PT32 | 0x23);
	physmem_write(pm, PD64, 8, PT64 | 0x23);
	physmem_write(pm, PDPT, 8, PD64 | 0x23);
	physmem_write(pm, PML4, 8, PDPT | 0x23);
	memset(pm->ram + L2_CODE, 0xf4, L2_CODE_MAX);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

void exit_machine_watch_ram(struct physmem *pm, struct cpu *cpu)
{
	pm->on_ram_write = ram_written;
	pm->on_ram_write_opaque = cpu;
}

static void observe(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	(void)cpu;
	*(const char **)ctx = r->failed_check;
}

void exit_machine_observe(struct cpu *cpu, const char **failed_check)
{
	/* One machine per process: the observer lives as long as it. */
	static struct vm_exit_observer observer = { .exit = observe };
	observer.ctx = (void *)failed_check;
	cpu->exit_observer = &observer;
}

void exit_machine_trace_from_env(struct cpu *cpu)
{
	const char *tr = getenv("HVEMU_FUZZ_TRACE");
	unsigned classes;
	if (tr && *tr && trace_parse(tr, &classes)) {
		static struct trace t;
		trace_init(&t, stderr);
		trace_attach(&t, cpu, classes);
	}
}
