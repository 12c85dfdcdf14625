/* svm_exit_fuzz's machine: 2 MiB of RAM laid out as fuzz/svm_exit_fuzz.h
 * says, an L1 in flat 32-bit protected mode stopped at its VMRUN, the L2's
 * GDT, IDTs, TSS and page tables; what the oracle knows of the processor
 * (its CPUID) and of the L2 world; and the snapshot every exec restores. */
#include "fuzz/svm_exit_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu_model.h"
#include "emu/exit_report.h"
#include "emu/quirks.h"
#include "emu/trace.h"
#include "svm/model.h"             /* sizeof(struct svm), for the snapshot only */
#include "svm/svm.h"

static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void observe(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	(void)cpu;
	((struct machine *)ctx)->failed_check = r->failed_check;
}

static struct vm_exit_observer observer = { .exit = observe };

static void build_memory(struct physmem *pm)
{
	memset(pm->ram, 0, pm->ram_size);
	/* L1: flat 32-bit protected mode without paging. */
	physmem_write(pm, L1_GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L1_GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	pm->ram[L1_HANDLER] = 0xf4;
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L1_IDT + v * 8, 8, (L1_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40));
	static const uint8_t l1[] = { 0x0f, 0x01, 0xd8, 0xf4 };   /* vmrun; hlt */
	memcpy(pm->ram + L1_CODE, l1, sizeof(l1));

	/* L2: GDT, an IDT whose gates lead to HLT, a TSS, and the page tables:
	 * present, writable, accessed and dirty (the walker writes nothing). */
	physmem_write(pm, L2_GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L2_GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(pm, L2_GDT + 0x18, 8, descriptor(0, 0xfffff, 0x9b, 0xa));
	physmem_write(pm, L2_GDT + 0x28, 8, descriptor(L2_TSS, 0x67, 0x8b, 0));
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT + v * 8, 8, (L2_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40) |
						      ((uint64_t)(L2_HANDLER >> 16) << 48));
	memset(pm->ram + L2_HANDLER, 0xf4, 0x1000);
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT16 + v * 8, 8, L2_HANDLER16 | (0x08ull << 16) | (0x86ull << 40));
	memset(pm->ram + L2_HANDLER16, 0xf4, 0x1000);
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

void svm_exit_machine_init(struct machine *m)
{
	const struct cpu_model *epyc = cpu_model_find("epyc-lite");
	if (!epyc || !physmem_init(&m->pm, RAM_SIZE))
		abort();
	iobus_init(&m->io);
	cpu_init(&m->cpu, epyc, &m->pm, &m->io);
	const char *q = getenv("HVEMU_FUZZ_QUIRK");
	if (q && *q) {
		const struct quirk_info *qi = quirk_find(q);
		if (!qi) {
			fprintf(stderr, "svm_exit_fuzz: no quirk %s\n", q);
			exit(2);
		}
		m->quirks = qi->bit;
		fprintf(stderr, "svm_exit_fuzz: quirk %s on\n", q);
	}
	m->svm = svm_create(&m->cpu, m->quirks);
	if (!m->svm)
		abort();
	build_memory(&m->pm);

	/* The L1 at CPL 0 about to execute VMRUN with rAX = the VMCB. */
	struct cpu *cpu = &m->cpu;
	cpu->cr0 |= CR0_PE;
	seg_load_descriptor(&cpu->seg[SR_CS], 0x08, physmem_read(&m->pm, L1_GDT + 0x08, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], 0x10, physmem_read(&m->pm, L1_GDT + 0x10, 8));
	cpu->gdtr = (struct dtr){ .base = L1_GDT, .limit = 0x17 };
	cpu->idtr = (struct dtr){ .base = L1_IDT, .limit = 256 * 8 - 1 };
	cpu->efer = EFER_SVME;
	cpu->vm_hsave_pa = HSAVE;
	cpu->cpl = 0;
	cpu->rip = L1_CODE;
	cpu->regs[R_AX] = VMCB_PA;
	cpu->regs[R_SP] = L1_STACK;
	cpu->icount_limit = INSN_LIMIT;
	cpu->exit_observer = &observer;
	observer.ctx = m;
	cpu_update_mode(cpu);
	m->pm.on_ram_write = ram_written;
	m->pm.on_ram_write_opaque = cpu;

	/* What the oracle knows of the processor: its CPUID. */
	uint32_t r[4];
	cpu_cpuid(cpu, 1, 0, r);
	m->ocpu.cpuid1_ecx = r[2], m->ocpu.cpuid1_edx = r[3];
	cpu_cpuid(cpu, 7, 0, r);
	m->ocpu.cpuid7_ebx = r[1], m->ocpu.cpuid7_ecx = r[2];
	cpu_cpuid(cpu, 0x80000001, 0, r);
	m->ocpu.cpuid81_ecx = r[2], m->ocpu.cpuid81_edx = r[3];
	cpu_cpuid(cpu, 0x80000008, 0, r);
	m->ocpu.maxphyaddr = r[0] & 0xff;
	cpu_cpuid(cpu, 0x8000000a, 0, r);
	m->ocpu.svm_edx = r[3];
	m->layout = (struct oracle_layout){
		.cr3_32 = PD32, .cr3_64 = PML4, .mapped_top = MAPPED_TOP, .holes = { 0, HOLE },
		.data = DATA, .start_rip = L2_CODE, .ram = m->pm.ram, .ram_size = RAM_SIZE,
		.idt32 = L2_IDT, .idt16 = L2_IDT16, .handler32 = L2_HANDLER, .handler16 = L2_HANDLER16,
	};
	const char *tr = getenv("HVEMU_FUZZ_TRACE");
	unsigned classes;
	if (tr && *tr && trace_parse(tr, &classes)) {
		static struct trace t;
		trace_init(&t, stderr);
		trace_attach(&t, cpu, classes);
	}
	if (!snapshot_take(&m->snap, cpu, &m->pm, m->svm, sizeof(*m->svm)))
		abort();
}
