/* Fuzz target: the input is a VMCB and the code of the guest it runs. An L1
 * at CPL 0 (32-bit protected mode, or 64-bit mode by the input's first byte)
 * executes VMRUN on it; whatever the VMCB holds (illegal state, any intercept
 * vector, EVENTINJ, nested paging with garbage tables, clean bits, a guest
 * that itself runs VMRUN/VMLOAD/VMSAVE on wild addresses) must end as an
 * architectural event: VMEXIT_INVALID, a #VMEXIT, a guest fault, shutdown,
 * the instruction limit. Never a host crash, hang or access outside guest RAM.
 *
 * Input: byte 0 flags (bit 0: 64-bit L1; bit 1: --tlb flush), then up to
 * 4096 bytes of VMCB, then guest code (placed at 0x40000; the VMCB's RIP
 * decides where the guest starts).
 *
 * Guest-physical layout (2 MiB of RAM):
 *   0x01000 GDT (null, code32 08h, data 10h, code64 18h)   0x02000 IDT
 *   0x03000 L1 handler: JMP 0x20000   0x10000-0x13FFF 4-level identity tables (2 MiB pages, user)
 *   0x20000 L1 code: VMRUN; JMP 0x20000   0x30000 VMCB   0x40000 guest code
 *   0x60000 host save area   0x80000 stack top
 * The L1 runs VMRUN again after every #VMEXIT and after its own exceptions, up
 * to the instruction limit: the guest resumes where it exited (an intercepted
 * fault: at the faulting instruction), so its blocks run again with what the
 * cache kept from their last run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "fuzz/fuzz.h"
#include "svm/svm.h"

#define RAM_SIZE (2u << 20)
#define GDT 0x1000u
#define IDT 0x2000u
#define HANDLER 0x3000u
#define PML4 0x10000u
#define L1_CODE 0x20000u
#define VMCB 0x30000u
#define GUEST_CODE 0x40000u
#define GUEST_CODE_MAX 0x10000u
#define HSAVE 0x60000u
#define STACK_TOP 0x80000u
#define INSN_LIMIT 512

static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void build_memory(struct physmem *pm)
{
	memset(pm->ram, 0xf4, pm->ram_size);    /* HLT wherever code runs off */
	memset(pm->ram, 0, 0x20000);
	physmem_write(pm, GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(pm, GDT + 0x18, 8, descriptor(0, 0xfffff, 0x9b, 0xa));
	/* jmp L1_CODE (E9 rel32) */
	pm->ram[HANDLER] = 0xe9;
	physmem_write(pm, HANDLER + 1, 4, (uint32_t)(L1_CODE - (HANDLER + 5)));
	for (unsigned v = 0; v < 256; v++) {
		/* 64-bit gates are 16 bytes: the 32-bit table's layout is read as
		 * half-gates in 64-bit mode, which the L1 never takes. */
		uint64_t gate = (HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40) | ((uint64_t)(HANDLER >> 16) << 48);
		physmem_write(pm, IDT + v * 8, 8, gate);
	}
	physmem_write(pm, PML4, 8, (PML4 + 0x1000) | 7);
	physmem_write(pm, PML4 + 0x1000, 8, (PML4 + 0x2000) | 7);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(pm, PML4 + 0x2000 + i * 8, 8, ((uint64_t)i << 21) | 0x87);
	static const uint8_t l1[] = { 0x0f, 0x01, 0xd8, 0xeb, 0xfb };   /* 1: vmrun; jmp 1b */
	memcpy(pm->ram + L1_CODE, l1, sizeof(l1));
	memset(pm->ram + VMCB, 0, 4096);
}

static void check_status(status_t st)
{
	switch (st) {
	case ST_HALT: case ST_SHUTDOWN: case ST_STOP: case ST_UNSUPPORTED:
		return;
	default:
		fprintf(stderr, "vmcb_fuzz: cpu_run returned %d\n", (int)st);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct physmem pm;
	static struct iobus io;
	static struct cpu cpu;
	static bool ready;

	if (!ready) {
		const struct cpu_model *epyc = cpu_model_find("epyc-lite");
		if (!epyc || !physmem_init(&pm, RAM_SIZE))
			abort();
		iobus_init(&io);
		cpu_init(&cpu, epyc, &pm, &io);
		if (!svm_create(&cpu, 0))
			abort();
		ready = true;
	}
	if (size == 0)
		return 0;
	uint8_t flags = data[0];
	data++;
	size--;

	build_memory(&pm);
	size_t vmcb_len = size < 4096 ? size : 4096;
	memcpy(pm.ram + VMCB, data, vmcb_len);
	if (size > 4096) {
		size_t code = size - 4096 < GUEST_CODE_MAX ? size - 4096 : GUEST_CODE_MAX;
		memcpy(pm.ram + GUEST_CODE, data + 4096, code);
	}

	cpu_reset(&cpu);
	cpu.tlb_uncached = flags & 2;
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], 0x08, physmem_read(&pm, GDT + 0x08, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], 0x10, physmem_read(&pm, GDT + 0x10, 8));
	cpu.gdtr = (struct dtr){ .base = GDT, .limit = 0x1f };
	cpu.idtr = (struct dtr){ .base = IDT, .limit = 256 * 8 - 1 };
	cpu.efer = EFER_SVME;
	if (flags & 1) {
		/* IA-32e mode on the identity tables, 64-bit code. */
		cpu.cr4 = CR4_PAE;
		cpu.cr3 = PML4;
		cpu.efer |= EFER_LME | EFER_LMA | EFER_NXE;
		cpu.cr0 |= CR0_PG;
		seg_load_descriptor(&cpu.seg[SR_CS], 0x18, physmem_read(&pm, GDT + 0x18, 8));
	}
	cpu.vm_hsave_pa = HSAVE;
	cpu.cpl = 0;
	cpu.rip = L1_CODE;
	cpu.regs[R_AX] = VMCB;
	cpu.regs[R_SP] = STACK_TOP;
	cpu_update_mode(&cpu);

	pm.on_ram_write = ram_written;
	pm.on_ram_write_opaque = &cpu;
	cpu.icount_limit = INSN_LIMIT;
	check_status(cpu_run(&cpu));
	pm.on_ram_write = NULL;
	pm.on_ram_write_opaque = NULL;
	return 0;
}
