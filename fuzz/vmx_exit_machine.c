/* vmx_exit_fuzz's machine: 2 MiB of RAM laid out as fuzz/vmx_exit_fuzz.h
 * says, an L1 in 64-bit mode that ran VMXON, VMCLEAR and VMPTRLD and stops at
 * its VMLAUNCH with the VMCS current and its host state written; the L2's
 * GDT, IDT, TSS and page tables; what the oracle knows of the processor
 * (capability MSRs, CPUID); and the snapshot every exec restores (RAM by
 * dirty page, the CPU, the VMX model with its copy of the current VMCS). */
#include "fuzz/vmx_exit_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu_model.h"
#include "vmx/model.h"             /* sizeof(struct vmx), for the snapshot only */
#include "vmx/vmx.h"

static void build_memory(struct physmem *pm, uint32_t revision)
{
	exit_machine_build_l2(pm);
	/* L1: 64-bit code at 18H, data at 10H, a 64-bit TSS at 28H. */
	physmem_write(pm, L1_GDT + 0x08, 8, exit_descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L1_GDT + 0x10, 8, exit_descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(pm, L1_GDT + 0x18, 8, exit_descriptor(0, 0xfffff, 0x9b, 0xa));
	physmem_write(pm, L1_GDT + 0x28, 8, exit_descriptor(L1_TSS, 0x67, 0x8b, 0));
	pm->ram[L1_HANDLER] = 0xf4;
	for (unsigned v = 0; v < 256; v++) {
		physmem_write(pm, L1_IDT + v * 16, 8, (L1_HANDLER & 0xffff) | (0x18ull << 16) | (0x8eull << 40));
		physmem_write(pm, L1_IDT + v * 16 + 8, 8, 0);
	}
	/* vmxon [rax]; vmclear [rbx]; vmptrld [rbx]; vmlaunch; hlt */
	static const uint8_t l1[] = { 0xf3, 0x0f, 0xc7, 0x30, 0x66, 0x0f, 0xc7, 0x33, 0x0f, 0xc7, 0x33,
				      0x0f, 0x01, 0xc2, 0xf4 };
	memcpy(pm->ram + L1_CODE, l1, sizeof(l1));
	physmem_write(pm, VMX_PTRS, 8, VMXON_PA);
	physmem_write(pm, VMX_PTRS + 8, 8, VMCS_PA);
	physmem_write(pm, VMXON_PA, 4, revision);
	physmem_write(pm, VMCS_PA, 4, revision);
	physmem_write(pm, LINK_VMCS_PA, 4, revision);

	/* A VM-entry MSR-load area (SDM Vol.3 24.8.2, Table 24-15: index, 32
	 * reserved bits, the value), entries a mutation picks a run of: the
	 * SYSENTER MSRs with values WRMSR takes, FS_BASE, a non-canonical
	 * SYSENTER_EIP, reserved bits set, an x2APIC MSR, a PAT with a reserved
	 * memory type, and SYSENTER_ESP again. */
	static const struct { uint32_t index, reserved; uint64_t value; } msrs[8] = {
		{ 0x174, 0, 0x10 }, { 0x175, 0, 0x1000 }, { 0xc0000100u, 0, 0 }, { 0x176, 0, 0x8000000000000000ull },
		{ 0x174, 1, 0x10 }, { 0x808, 0, 0 }, { 0x277, 0, 0x0007040600070402ull }, { 0x175, 0, 0x2000 },
	};
	for (unsigned k = 0; k < 8; k++) {
		physmem_write(pm, MSR_AREA_PA + 16 * k, 4, msrs[k].index);
		physmem_write(pm, MSR_AREA_PA + 16 * k + 4, 4, msrs[k].reserved);
		physmem_write(pm, MSR_AREA_PA + 16 * k + 8, 8, msrs[k].value);
	}

	/* L2 (the rest is exit_machine_build_l2's): an IDT of 64-bit gates to
	 * the same HLT handler. */
	for (unsigned v = 0; v < 256; v++) {
		physmem_write(pm, L2_IDT64 + v * 16, 8, (L2_HANDLER & 0xffff) | (0x18ull << 16) | (0x8eull << 40) |
							((uint64_t)(L2_HANDLER >> 16) << 48));
		physmem_write(pm, L2_IDT64 + v * 16 + 8, 8, 0);
	}
}

static uint64_t cap(const struct cpu *cpu, uint32_t index)
{
	uint64_t v = 0;
	return cpu_model_vmx_cap(cpu->model, index, &v) ? v : 0;
}

/* The host-state area: the L1 itself, back at the HLT after VMLAUNCH. */
static void write_host_state(struct machine *m)
{
	struct cpu *c = &m->cpu;
	static const struct { enum vmcs_row row; uint64_t value; } host[] = {
		{ VMCS_ROW_HOST_CS_SELECTOR, 0x18 }, { VMCS_ROW_HOST_SS_SELECTOR, 0x10 },
		{ VMCS_ROW_HOST_DS_SELECTOR, 0x10 }, { VMCS_ROW_HOST_ES_SELECTOR, 0x10 },
		{ VMCS_ROW_HOST_FS_SELECTOR, 0 }, { VMCS_ROW_HOST_GS_SELECTOR, 0 },
		{ VMCS_ROW_HOST_TR_SELECTOR, 0x28 }, { VMCS_ROW_HOST_TR_BASE, L1_TSS },
		{ VMCS_ROW_HOST_GDTR_BASE, L1_GDT }, { VMCS_ROW_HOST_IDTR_BASE, L1_IDT },
		{ VMCS_ROW_HOST_RSP, L1_STACK }, { VMCS_ROW_HOST_RIP, L1_AFTER },
	};
	for (unsigned k = 0; k < sizeof(host) / sizeof(host[0]); k++)
		if (!vmx_poke_vmcs_row(m->vmx, host[k].row, host[k].value))
			abort();
	if (!vmx_poke_vmcs_row(m->vmx, VMCS_ROW_HOST_CR0, c->cr0) ||
	    !vmx_poke_vmcs_row(m->vmx, VMCS_ROW_HOST_CR3, c->cr3) ||
	    !vmx_poke_vmcs_row(m->vmx, VMCS_ROW_HOST_CR4, c->cr4))
		abort();
}

void vmx_exit_machine_init(struct machine *m)
{
	exit_machine_init_cpu(&m->pm, &m->io, &m->cpu, "skylake-lite");
	m->vmx = vmx_create(&m->cpu, 0);
	if (!m->vmx)
		abort();
	struct cpu *cpu = &m->cpu;
	uint64_t basic = cap(cpu, MSR_VMX_BASIC);
	build_memory(&m->pm, (uint32_t)(basic & 0x7fffffff));

	/* The L1 at CPL 0 in 64-bit mode, CR0/CR4 as VMX operation wants them
	 * (IA32_VMX_CR0_FIXED0: PE, NE, PG; CR4.VMXE), VMXON allowed by
	 * IA32_FEATURE_CONTROL (SDM Vol.3 23.7, 23.8). */
	cpu->cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	cpu->cr4 = CR4_PAE | CR4_VMXE;
	cpu->cr3 = PML4;
	cpu->efer = EFER_LME | EFER_LMA;
	cpu->feature_control = FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_NO_SMX;
	seg_load_descriptor(&cpu->seg[SR_CS], 0x18, physmem_read(&m->pm, L1_GDT + 0x18, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], s == SR_FS || s == SR_GS ? 0 : 0x10,
					    s == SR_FS || s == SR_GS ? 0 : physmem_read(&m->pm, L1_GDT + 0x10, 8));
	seg_load_descriptor(&cpu->tr, 0x28, physmem_read(&m->pm, L1_GDT + 0x28, 8));
	cpu->gdtr = (struct dtr){ .base = L1_GDT, .limit = 0x2f };
	cpu->idtr = (struct dtr){ .base = L1_IDT, .limit = 256 * 16 - 1 };
	cpu->cpl = 0;
	cpu->rip = L1_CODE;
	cpu->regs[R_AX] = VMX_PTRS;
	cpu->regs[R_BX] = VMX_PTRS + 8;
	cpu->regs[R_SP] = L1_STACK;
	cpu_update_mode(cpu);
	exit_machine_watch_ram(&m->pm, cpu);

	/* VMXON; VMCLEAR; VMPTRLD: three instructions up to the VMLAUNCH. */
	cpu->icount_limit = cpu->icount + 3;
	status_t st = cpu_run(cpu);
	bool launched;
	if (st == ST_FAULT || st == ST_SHUTDOWN || cpu->rip != L1_VMLAUNCH ||
	    vmx_current_vmcs(m->vmx, &launched) != VMCS_PA) {
		fprintf(stderr, "vmx_exit_fuzz: the L1 did not reach its VMLAUNCH (rip %#llx)\n",
			(unsigned long long)cpu->rip);
		abort();
	}
	write_host_state(m);
	cpu->icount_limit = cpu->icount + INSN_LIMIT;
	exit_machine_observe(cpu, &m->failed_check);
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		if (!vmx_peek_vmcs_row(m->vmx, row, &m->vmcs_at_launch[row]))
			m->vmcs_at_launch[row] = 0;

	/* What the oracle knows of the processor: the capability MSRs a VMM
	 * reads (SDM Vol.3 A.2: the TRUE_* ones when IA32_VMX_BASIC[55] is 1),
	 * CPUID, and its own IA32_EFER. */
	bool true_ctls = (basic >> 55) & 1;
	m->ocpu = (struct vo_cpu){
		.basic = basic, .misc = cap(cpu, MSR_VMX_MISC),
		.pin = cap(cpu, true_ctls ? MSR_VMX_TRUE_PINBASED_CTLS : MSR_VMX_PINBASED_CTLS),
		.proc = cap(cpu, true_ctls ? MSR_VMX_TRUE_PROCBASED_CTLS : MSR_VMX_PROCBASED_CTLS),
		.exit = cap(cpu, true_ctls ? MSR_VMX_TRUE_EXIT_CTLS : MSR_VMX_EXIT_CTLS),
		.entry = cap(cpu, true_ctls ? MSR_VMX_TRUE_ENTRY_CTLS : MSR_VMX_ENTRY_CTLS),
		.proc2 = cap(cpu, MSR_VMX_PROCBASED_CTLS2),
		.cr0_fixed0 = cap(cpu, MSR_VMX_CR0_FIXED0), .cr0_fixed1 = cap(cpu, MSR_VMX_CR0_FIXED1),
		.cr4_fixed0 = cap(cpu, MSR_VMX_CR4_FIXED0), .cr4_fixed1 = cap(cpu, MSR_VMX_CR4_FIXED1),
		.efer = cpu->efer, .cr0 = cpu->cr0,
	};
	exit_machine_read_cpuid(cpu, &m->ocpu.id);
	m->layout = (struct oracle_l2_layout){
		.cr3_32 = PD32, .cr3_64 = PML4, .mapped_top = MAPPED_TOP, .holes = { 0, HOLE },
		.data = DATA, .start_rip = L2_CODE, .idt32 = L2_IDT, .idt64 = L2_IDT64, .handler32 = L2_HANDLER,
		.ram = m->pm.ram, .ram_size = RAM_SIZE,
	};
	exit_machine_trace_from_env(cpu);
	if (!snapshot_take(&m->snap, cpu, &m->pm, m->vmx, sizeof(*m->vmx)))
		abort();
}

void vmx_exit_load_vmcs(struct machine *m, uint64_t *v)
{
	/* What the processor holds is what the oracle must see: a field it
	 * lacks reads 0, a narrow field keeps its width. */
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		if (v[row] != m->vmcs_at_launch[row] &&
		    (!vmx_poke_vmcs_row(m->vmx, row, v[row]) || !vmx_peek_vmcs_row(m->vmx, row, &v[row])))
			v[row] = 0;
}

void vmx_exit_read_vmcs(struct machine *m, uint64_t *v)
{
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		if (!vmx_peek_vmcs_row(m->vmx, row, &v[row]))
			v[row] = 0;
}
