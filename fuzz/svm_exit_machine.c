/* svm_exit_fuzz's machine: 2 MiB of RAM laid out as fuzz/svm_exit_fuzz.h
 * says, an L1 in flat 32-bit protected mode stopped at its VMRUN, the L2's
 * GDT, IDTs, TSS and page tables; what the oracle knows of the processor
 * (its CPUID) and of the L2 world; and the snapshot every exec restores. */
#include "fuzz/svm_exit_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/quirks.h"
#include "svm/model.h"             /* sizeof(struct svm), for the snapshot only */
#include "svm/svm.h"

static void build_memory(struct physmem *pm)
{
	exit_machine_build_l2(pm);
	/* L1: flat 32-bit protected mode without paging. */
	physmem_write(pm, L1_GDT + 0x08, 8, exit_descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L1_GDT + 0x10, 8, exit_descriptor(0, 0xfffff, 0x93, 0xc));
	pm->ram[L1_HANDLER] = 0xf4;
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L1_IDT + v * 8, 8, (L1_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40));
	static const uint8_t l1[] = { 0x0f, 0x01, 0xd8, 0xf4 };   /* vmrun; hlt */
	memcpy(pm->ram + L1_CODE, l1, sizeof(l1));

	/* L2 (the rest is exit_machine_build_l2's): an IDT of 16-bit gates to
	 * a HLT below 64 KiB, for a guest whose IDTR the input points at it. */
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT16 + v * 8, 8, L2_HANDLER16 | (0x08ull << 16) | (0x86ull << 40));
	memset(pm->ram + L2_HANDLER16, 0xf4, 0x1000);
}

void svm_exit_machine_init(struct machine *m)
{
	exit_machine_init_cpu(&m->pm, &m->io, &m->cpu, "epyc-lite");
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
	exit_machine_observe(cpu, &m->failed_check);
	cpu_update_mode(cpu);
	exit_machine_watch_ram(&m->pm, cpu);

	/* What the oracle knows of the processor: its CPUID. */
	exit_machine_read_cpuid(cpu, &m->ocpu.id);
	uint32_t r[4];
	cpu_cpuid(cpu, 0x8000000a, 0, r);
	m->ocpu.svm_edx = r[3];
	m->layout = (struct oracle_l2_layout){
		.cr3_32 = PD32, .cr3_64 = PML4, .mapped_top = MAPPED_TOP, .holes = { 0, HOLE },
		.data = DATA, .start_rip = L2_CODE, .ram = m->pm.ram, .ram_size = RAM_SIZE,
		.idt32 = L2_IDT, .idt16 = L2_IDT16, .handler32 = L2_HANDLER, .handler16 = L2_HANDLER16,
	};
	exit_machine_trace_from_env(cpu);
	if (!snapshot_take(&m->snap, cpu, &m->pm, m->svm, sizeof(*m->svm)))
		abort();
}
