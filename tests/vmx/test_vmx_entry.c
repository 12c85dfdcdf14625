/* Check suite for the VMX world switch (vmx/world_switch.c, vmx/events.c):
 * a 64-bit L1 at CPL 0 in VMX root operation writes a VMCS (with VMWRITE)
 * whose host state is L1's own and whose guest is a flat 64-bit L2 sharing
 * L1's page tables, then runs "vmlaunch; hlt" (or "vmresume; hlt") with
 * cpu_run(): the VM exit lands on the HLT, and each case checks what the VMCS
 * and the CPU hold against SDM Vol.3 Ch.26 (VM entries) and Ch.27 (VM exits).
 *
 * The cases marked "both TLB modes" run again with --tlb flush (nothing
 * cached: the VMCS region is the only copy of the VMCS).
 *
 * The world and its physical layout are vmx_world.h's, shared with
 * test_vmx_events.c.
 */
#include <check.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/exit_report.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx_world.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

/* ---- VM entry and the exit of an unconditional instruction ---- */

/* SDM Vol.3 26.3.2 loads the guest, 25.1.2 makes CPUID exit, 27.2 writes the
 * exit information (reason 10, instruction length 2), 27.3 saves the guest
 * state as it was (guest RIP: the CPUID, 27.3.3), 27.5 loads the host with
 * its fixed parts. */
START_TEST(launch_cpuid_exit)
{
	struct world w;
	world_init_mode(&w, _i);
	struct cpu *c = &w.m.cpu;
	/* L2: SUB RSP, 16; STI; CPUID: RSP and IF changed, CPUID in the STI
	 * shadow. */
	L2(&w, 0x48, 0x83, 0xec, 0x10, 0xfb, 0x0f, 0xa2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	/* 27.2.1, 27.2.5 */
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), 2);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INTR_INFO), 0);
	/* 27.3.3: RIP of the CPUID, RSP and RFLAGS as L2 left them. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 5);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RSP), L2_STACK - 16);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RFLAGS) & (FLAG_IF | FLAG_FIXED1), FLAG_IF | FLAG_FIXED1);
	/* 27.3.4: blocking by STI (the CPUID ran in its shadow), active. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTERRUPTIBILITY), VMX_INTERRUPTIBILITY_STI);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_ACTIVE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_PENDING_DBG_EXCEPTIONS), 0);
	/* 27.3.1: control registers, SYSENTER MSRs. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CR0), CR0_PE | CR0_ET | CR0_NE | CR0_PG);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CR3), PML4);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CR4), CR4_PAE | CR4_VMXE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_IA32_SYSENTER_CS), 0x33);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_IA32_SYSENTER_ESP), 0x3333);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_IA32_SYSENTER_EIP), 0x4444);
	/* 27.3.2: segments in access-rights form, unusable ones with bit 16. */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CS_SELECTOR), SEL_CODE64);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CS_AR), 0xa09b);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CS_LIMIT), 0xffffffff);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_SS_AR), 0xc093);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_DS_SELECTOR), SEL_DATA);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_FS_AR) & VMX_AR_UNUSABLE, VMX_AR_UNUSABLE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_FS_BASE), 0x3000);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_GS_BASE), 0x4000);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_LDTR_AR) & VMX_AR_UNUSABLE, VMX_AR_UNUSABLE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_TR_SELECTOR), SEL_TSS);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_TR_AR), 0x8b);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_TR_LIMIT), 0x67);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_TR_BASE), TSS64);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_GDTR_BASE), GDT_BASE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_GDTR_LIMIT), 0x2f);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_IDTR_BASE), L2_IDT);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_IDTR_LIMIT), 0xfff);

	/* 27.5.1: host CRs, DR7 = 400H, DEBUGCTL 0, SYSENTER MSRs, EFER.LMA/LME
	 * by "host address-space size". */
	ck_assert_uint_eq(c->cr0, CR0_PE | CR0_ET | CR0_NE | CR0_PG);
	ck_assert_uint_eq(c->cr3, PML4);
	ck_assert_uint_eq(c->cr4, CR4_PAE | CR4_VMXE);
	ck_assert_uint_eq(c->dr[7], 0x400);
	ck_assert_uint_eq(c->debugctl, 0);
	ck_assert_uint_eq(c->sysenter_cs, 0x11);
	ck_assert_uint_eq(c->sysenter_esp, 0x1111);
	ck_assert_uint_eq(c->sysenter_eip, 0x2222);
	ck_assert_uint_eq(c->efer & (EFER_LMA | EFER_LME), EFER_LMA | EFER_LME);
	ck_assert_int_eq(c->mode, MODE_LONG64);
	/* 27.5.2: CS 64-bit code, base 0, limit 4G; DS/ES/SS flat data; FS, GS
	 * null (unusable) with their bases; TR a busy 32-bit TSS, limit 67H;
	 * LDTR unusable; GDTR/IDTR limits FFFFH. */
	ck_assert_uint_eq(c->seg[SR_CS].selector, SEL_CODE64);
	ck_assert_uint_eq(c->seg[SR_CS].attr, 0xa9b);
	ck_assert_uint_eq(c->seg[SR_CS].limit, 0xffffffff);
	ck_assert_uint_eq(c->seg[SR_CS].base, 0);
	ck_assert_uint_eq(c->seg[SR_DS].selector, SEL_DATA);
	ck_assert_uint_eq(c->seg[SR_DS].attr, 0xc93);
	ck_assert_uint_eq(c->seg[SR_SS].attr, 0xc93);
	ck_assert_uint_eq(c->seg[SR_FS].base, HOST_FS);
	ck_assert_uint_eq(c->seg[SR_GS].base, HOST_GS);
	ck_assert_uint_eq(c->seg[SR_FS].attr & SEG_P, 0);
	ck_assert_uint_eq(c->tr.selector, SEL_TSS);
	ck_assert_uint_eq(c->tr.attr, 0x8b);
	ck_assert_uint_eq(c->tr.limit, 0x67);
	ck_assert_uint_eq(c->tr.base, TSS64);
	ck_assert_uint_eq(c->ldtr.selector, 0);
	ck_assert_uint_eq(c->ldtr.attr & SEG_P, 0);
	ck_assert_uint_eq(c->gdtr.base, GDT_BASE);
	ck_assert_uint_eq(c->gdtr.limit, 0xffff);
	ck_assert_uint_eq(c->idtr.base, L1_IDT);
	ck_assert_uint_eq(c->idtr.limit, 0xffff);
	/* 27.5.3: RSP from its field, RFLAGS = 2. */
	ck_assert_uint_eq(c->regs[R_SP], L1_STACK);
	ck_assert_uint_eq(cpu_get_flags(c), FLAG_FIXED1);
	/* The exit report of --trace vmexit. */
	ck_assert_uint_eq(w.observed, 1);
	ck_assert_int_eq(w.last.kind, EXIT_REPORT_VMEXIT);
	ck_assert_uint_eq(w.last.code, VMX_EXIT_CPUID);
	ck_assert_str_eq(w.last.name, "CPUID");
	ck_assert_uint_eq(w.last.rip, L2_CODE + 5);
	ck_assert_uint_eq(w.last.words[EXIT_WORD_VMX_INSN_LENGTH], 2);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 30.3 VMLAUNCH: "launch state := launched" after a successful
 * entry; VMRESUME then enters again, VMCALL exits with reason 18 (25.1.2),
 * length 3. A second VMLAUNCH fails with error 4. In both TLB modes (with
 * --tlb flush the VMCS region is the only copy: the fields are there). */
START_TEST(resume_round_trip)
{
	struct world w;
	world_init_mode(&w, _i);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	/* L1 skips the CPUID, as a VMM does. */
	vmw(&w, VMCS_GUEST_RIP, vmr(&w, VMCS_GUEST_RIP) + vmr(&w, VMCS_EXIT_INSTRUCTION_LEN));
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_VMCALL);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), 3);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 2);
	ck_assert_uint_eq(w.observed, 2);
	/* Launched: VMLAUNCH is VMfailValid(4) (SDM Vol.3 30.3). */
	ck_assert_int_eq(EXEC(&w.m, VMLAUNCH), ST_OK);
	ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_VMLAUNCH_NOT_CLEAR);
	if (_i) {
		size_t n;
		const struct vmcs_field *t = vmcs_field_table(&n);
		unsigned row = (unsigned)(vmcs_field_lookup(VMCS_EXIT_REASON, NULL) - t);
		ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_PA + vmcs_row_offset(row), 4), VMX_EXIT_VMCALL);
	}
	world_free(&w);
}
END_TEST

/* SDM Vol.3 28.3.3.1: with "enable VPID" the round trip keeps every TLB
 * context (the host's context id is the same after it); without, VM entry
 * and VM exit invalidate VPID 0's mappings (the host's get a new id). */
START_TEST(tlb_contexts_by_vpid)
{
	for (int vpid = 0; vpid < 2; vpid++) {
		struct world w;
		world_init(&w);
		if (vpid) {
			vmw(&w, VMCS_PRIMARY_PROC_CONTROLS, must_be_1(&w, MSR_VMX_TRUE_PROCBASED_CTLS) |
								    VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
			vmw(&w, VMCS_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_VPID));
			vmw(&w, VMCS_VPID, 5);
		}
		ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
		vmw(&w, VMCS_GUEST_RIP, L2_CODE + 2);
		uint16_t host_id = w.m.cpu.tlb.cur;
		ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
		ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_VMCALL);
		if (vpid)
			ck_assert_uint_eq(w.m.cpu.tlb.cur, host_id);
		else
			ck_assert_uint_ne(w.m.cpu.tlb.cur, host_id);
		world_free(&w);
	}
}
END_TEST

/* SDM Vol.3 26.3.2.4, 26.3.1.6, 26.8: a PAE guest without EPT loads its
 * PDPTEs from its CR3 at VM entry; one with a reserved bit (bit 1) is a
 * VM-entry failure with exit reason 33 and qualification 2. With a good
 * PDPTE the 32-bit PAE guest runs (its CPUID exits). */
#define PAE_PDPT 0x18000u
#define PAE_PD   0x19000u
START_TEST(pae_guest_pdptes)
{
	struct world w;
	world_init(&w);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(&w.m.pm, PAE_PD + 8 * i, 8, ((uint64_t)i << 21) | 0x83);
	physmem_write(&w.m.pm, PAE_PDPT, 8, PAE_PD | 1 | 2);          /* bit 1 reserved */
	vmw(&w, VMCS_ENTRY_CONTROLS, must_be_1(&w, MSR_VMX_TRUE_ENTRY_CTLS));
	vmw(&w, VMCS_GUEST_CR3, PAE_PDPT);
	vmw(&w, VMCS_GUEST_CS_SELECTOR, SEL_CODE32);
	vmw(&w, VMCS_GUEST_CS_AR, 0xc09b);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 2);
	ck_assert_int_eq(w.m.cpu.mode, MODE_LONG64);                 /* the host's, loaded */

	physmem_write(&w.m.pm, PAE_PDPT, 8, PAE_PD | 1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CS_AR), 0xc09b);
	/* 27.2, A.6: EFER.LMA (0) stored into "IA-32e mode guest". */
	ck_assert_uint_eq(vmr(&w, VMCS_ENTRY_CONTROLS) & VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST), 0);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.7.1: blocking by NMI from the interruptibility state (no
 * "virtual NMIs"); 27.3.4: saved back at the exit; 27.1: the host has no
 * blocking by NMI after an exit that an NMI did not cause. */
START_TEST(nmi_blocking_round_trip)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_GUEST_INTERRUPTIBILITY, VMX_INTERRUPTIBILITY_NMI);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTERRUPTIBILITY), VMX_INTERRUPTIBILITY_NMI);
	ck_assert(!w.m.cpu.nmi_blocked);
	world_free(&w);
}
END_TEST

/* ---- failed entries ---- */

/* SDM Vol.3 26.2.1.1: a reserved pin-based control is VMfailValid(7); L1
 * goes on after VMLAUNCH, nothing entered, the report names the row. */
START_TEST(fail_controls_7)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_PIN_BASED_CONTROLS, 0);
	w.m.cpu.rip = L1_LAUNCH;
	ck_assert_int_eq(EXEC(&w.m, VMLAUNCH), ST_OK);
	ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);
	ck_assert(!w.m.cpu.in_guest);
	ck_assert_uint_eq(w.m.cpu.rip, L1_LAUNCH + 3);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_ENTRY_INVALID_CONTROL);
	ck_assert_uint_eq(w.observed, 1);
	ck_assert_int_eq(w.last.kind, EXIT_REPORT_VMFAIL_VALID);
	ck_assert_uint_eq(w.last.code, 7);
	ck_assert_ptr_nonnull(strstr(w.last.failed_check, "26.2.1.1"));
	/* Still clear: VMRESUME is error 5. */
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_VMRESUME_NOT_LAUNCHED);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.2.2: a host CR4 without VMXE is VMfailValid(8). */
START_TEST(fail_host_state_8)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_HOST_CR4, CR4_PAE);
	ck_assert_int_eq(EXEC(&w.m, VMLAUNCH), ST_OK);
	ck_assert_uint_eq(arith_flags(&w), FLAG_ZF);
	ck_assert(!w.m.cpu.in_guest);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_ENTRY_INVALID_HOST_STATE);
	ck_assert_int_eq(w.last.kind, EXIT_REPORT_VMFAIL_VALID);
	ck_assert_ptr_nonnull(strstr(w.last.failed_check, "26.2.2"));
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.3.1.1, 26.8: a guest CR0 without NE is a VM-entry failure:
 * exit reason 33 with bit 31, qualification 0, the host state loaded as by a
 * VM exit (L1 at HOST_RIP), no guest state saved, launch state still clear. */
START_TEST(fail_guest_state_33)
{
	struct world w;
	world_init_mode(&w, _i);
	vmw(&w, VMCS_GUEST_CR0, CR0_PE | CR0_ET | CR0_PG);
	vmw(&w, VMCS_GUEST_RSP, 0x1234);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RSP), 0x1234);            /* not saved */
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_CR0), CR0_PE | CR0_ET | CR0_PG);
	ck_assert_uint_eq(w.m.cpu.regs[R_SP], L1_STACK);
	ck_assert_uint_eq(w.m.cpu.tr.attr, 0x8b);
	ck_assert_int_eq(w.last.kind, EXIT_REPORT_ENTRY_FAILURE);
	ck_assert_uint_eq(w.last.code, VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE);
	ck_assert_ptr_nonnull(strstr(w.last.failed_check, "26.3.1.1"));
	w.m.cpu.rip = L1_RESUME;
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_VMRESUME_NOT_LAUNCHED);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 26.4, 26.8: the VM-entry MSR-load area; its second entry (FS
 * base, which no MSR list may load) fails the entry: reason 34 with bit 31,
 * qualification 2 (the entry's 1-based index). The first entry stays loaded
 * (STAR is not host state). */
START_TEST(fail_msr_loading_34)
{
	struct world w;
	world_init_mode(&w, _i);
	physmem_write(&w.m.pm, MSR_AREA, 8, MSR_STAR);
	physmem_write(&w.m.pm, MSR_AREA + 8, 8, 0x0023001000000000ull);
	physmem_write(&w.m.pm, MSR_AREA + 16, 8, MSR_FS_BASE);
	physmem_write(&w.m.pm, MSR_AREA + 24, 8, 0x1000);
	vmw(&w, VMCS_ENTRY_MSR_LOAD_ADDR, MSR_AREA);
	vmw(&w, VMCS_ENTRY_MSR_LOAD_COUNT, 2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_MSR_LOADING);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 2);
	ck_assert_uint_eq(w.m.cpu.star, 0x0023001000000000ull);
	ck_assert_int_eq(w.last.kind, EXIT_REPORT_ENTRY_FAILURE);
	/* Not launched (SDM Vol.3 30.3: only a VM entry that loaded its MSRs). */
	w.m.cpu.rip = L1_RESUME;
	ck_assert_int_eq(EXEC(&w.m, VMRESUME), ST_OK);
	ck_assert_uint_eq(vmr(&w, VMCS_VM_INSTRUCTION_ERROR), VMXERR_VMRESUME_NOT_LAUNCHED);
	/* The same list with a good second entry enters. */
	physmem_write(&w.m.pm, MSR_AREA + 16, 8, MSR_LSTAR);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.4: the VM-exit MSR-store area receives the MSR as RDMSR reads
 * it at the exit (STAR: L1 and L2 share it, no control switches it); 27.6:
 * the VM-exit MSR-load area loads the host's LSTAR after the host state. */
START_TEST(exit_msr_store_and_load)
{
	struct world w;
	world_init_mode(&w, _i);
	ck_assert_int_eq(wrmsr(&w.m, MSR_STAR, 0x0023001000000000ull), ST_OK);
	physmem_write(&w.m.pm, MSR_AREA, 8, MSR_STAR);
	physmem_write(&w.m.pm, MSR_AREA + 8, 8, 0xdeadbeef);
	physmem_write(&w.m.pm, MSR_AREA + 0x100, 8, MSR_LSTAR);
	physmem_write(&w.m.pm, MSR_AREA + 0x108, 8, 0xffff800000001000ull);
	vmw(&w, VMCS_EXIT_MSR_STORE_ADDR, MSR_AREA);
	vmw(&w, VMCS_EXIT_MSR_STORE_COUNT, 1);
	vmw(&w, VMCS_EXIT_MSR_LOAD_ADDR, MSR_AREA + 0x100);
	vmw(&w, VMCS_EXIT_MSR_LOAD_COUNT, 1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(physmem_read(&w.m.pm, MSR_AREA + 8, 8), 0x0023001000000000ull);
	ck_assert_uint_eq(w.m.cpu.lstar, 0xffff800000001000ull);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.3, 27.4: with "use TSC offsetting", L2's RDTSC reads the TSC
 * plus the offset, but the VM-exit MSR-store area receives IA32_TSC as it is
 * (the store is part of the VM exit, no instruction in non-root operation):
 * a value near L1's clock, far below the 2^40 offset. kvm-unit-tests'
 * vmx_store_tsc_test checks the same. */
START_TEST(exit_msr_store_tsc_not_offset)
{
	struct world w;
	world_init(&w);
	const uint64_t offset = 1ull << 40;
	vmw(&w, VMCS_PRIMARY_PROC_CONTROLS, must_be_1(&w, MSR_VMX_TRUE_PROCBASED_CTLS) |
					     VMX_CTL(VMX_PROC_TSC_OFFSETTING));
	vmw(&w, VMCS_TSC_OFFSET, offset);
	physmem_write(&w.m.pm, MSR_AREA, 8, MSR_TSC);
	physmem_write(&w.m.pm, MSR_AREA + 8, 8, 0);
	vmw(&w, VMCS_EXIT_MSR_STORE_ADDR, MSR_AREA);
	vmw(&w, VMCS_EXIT_MSR_STORE_COUNT, 1);
	L2(&w, 0x0f, 0x31, 0x0f, 0xa2);          /* rdtsc; cpuid */
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	/* 25.3: L2's RDTSC saw the offset. */
	ck_assert_uint_ge(w.m.cpu.regs[R_AX] | (w.m.cpu.regs[R_DX] << 32), offset);
	uint64_t stored = physmem_read(&w.m.pm, MSR_AREA + 8, 8);
	uint64_t l1_tsc = cpu_now(&w.m.cpu) + w.m.cpu.tsc_offset;
	ck_assert_msg(stored <= l1_tsc && l1_tsc - stored < 1000, "stored %llu, L1's TSC %llu",
		      (unsigned long long)stored, (unsigned long long)l1_tsc);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.6, 27.7: a VM-exit MSR-load entry that may not be loaded (FS
 * base) is a VMX abort: indicator 4 in the VMCS region (24.2, offset 4),
 * and the logical processor shuts down. */
START_TEST(exit_msr_load_abort)
{
	struct world w;
	world_init(&w);
	physmem_write(&w.m.pm, MSR_AREA, 8, MSR_FS_BASE);
	physmem_write(&w.m.pm, MSR_AREA + 8, 8, 0x1000);
	vmw(&w, VMCS_EXIT_MSR_LOAD_ADDR, MSR_AREA);
	vmw(&w, VMCS_EXIT_MSR_LOAD_COUNT, 1);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_SHUTDOWN);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VMCS_PA + 4, 4), 4);
	world_free(&w);
}
END_TEST

/* ---- event injection (SDM Vol.3 26.6) ---- */

/* An external interrupt (type 0, vector 40H) is delivered through L2's IDT
 * before its first instruction, with the entry's RIP as return address
 * (26.6.1.1); the handler's CPUID exits; the VM exit clears the valid bit of
 * the VM-entry interruption information (27.2). */
START_TEST(inject_external_interrupt)
{
	struct world w;
	world_init(&w);
	/* 26.3.1.4: an injected external interrupt needs RFLAGS.IF = 1. */
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	vmw(&w, VMCS_ENTRY_INTR_INFO, VMX_INTR_VALID | (VMX_INTR_EXTERNAL << VMX_INTR_TYPE_SHIFT) | 0x40);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RSP), L2_STACK - 40);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE);
	ck_assert_uint_eq(l2_stack(&w, 1), SEL_CODE64);
	ck_assert_uint_eq(vmr(&w, VMCS_ENTRY_INTR_INFO) & VMX_INTR_VALID, 0);
	world_free(&w);
}
END_TEST

/* A hardware exception with an error code (type 3, #GP, deliver-error-code):
 * the error code is pushed (26.6.1.1). */
START_TEST(inject_gp_with_error_code)
{
	struct world w;
	world_init_mode(&w, _i);
	vmw(&w, VMCS_ENTRY_INTR_INFO, VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR |
					     (VMX_INTR_HW_EXCEPTION << VMX_INTR_TYPE_SHIFT) | EXC_GP);
	vmw(&w, VMCS_ENTRY_EXCEPTION_ERROR_CODE, 0x1234);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RSP), L2_STACK - 48);
	ck_assert_uint_eq(l2_stack(&w, 0), 0x1234);
	ck_assert_uint_eq(l2_stack(&w, 1), L2_CODE);
	world_free(&w);
}
END_TEST

/* A software interrupt (type 4) returns past the instruction that would
 * have raised it: RIP + the VM-entry instruction length (26.6.1.1). */
START_TEST(inject_software_interrupt)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_ENTRY_INTR_INFO, VMX_INTR_VALID | (VMX_INTR_SOFT_INT << VMX_INTR_TYPE_SHIFT) | 0x41);
	vmw(&w, VMCS_ENTRY_INSTRUCTION_LEN, 2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE + 2);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.2.4: an exit while an event was being delivered (here a
 * CPUID record carrying a #PF in flight, as the core describes one,
 * emu/exit_record.h) writes the event as IDT-vectoring information: vector,
 * type 3, error code valid, valid; and its error code. */
START_TEST(idt_vectoring_of_event_in_flight)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(c->in_guest);
	struct exit_record rec = { .kind = IK_CPUID, .rip = L2_CODE, .next_rip = L2_CODE + 2,
				   .vectoring_valid = true,
				   .vectoring = { .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
						  .error_code = 2 } };
	ck_assert_int_eq(c->hv->intercept(c->hv_ctx, c, &rec), ST_VMEXIT);
	ck_assert(!c->in_guest);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO), VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR |
							       (VMX_INTR_HW_EXCEPTION << VMX_INTR_TYPE_SHIFT) | EXC_PF);
	ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_ERROR_CODE), 2);
	ck_assert_uint_eq(w.last.event.ev.vector, EXC_PF);
	world_free(&w);
}
END_TEST

/* Type 7 (other event), vector 0: nothing is delivered through the IDT; an
 * MTF VM exit is pending before the first instruction (SDM Vol.3 26.6.2),
 * "even if the monitor trap flag VM-execution control is 0": reason 37 at
 * the guest's first RIP, no frame pushed. */
START_TEST(inject_pending_mtf)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_ENTRY_INTR_INFO, VMX_INTR_VALID | (VMX_INTR_OTHER << VMX_INTR_TYPE_SHIFT));
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_MONITOR_TRAP_FLAG);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RSP), L2_STACK);
	world_free(&w);
}
END_TEST

/* ---- activity state (SDM Vol.3 26.7.2) ---- */

static int ack_40(void *ctx)
{
	struct world *w = ctx;
	cpu_set_line(&w->m.cpu, LINE_INTR, false);
	return 0x40;
}

/* HLT and not vectoring: the guest starts halted (nothing runs; the run
 * ends halted in L2 at its RIP); an interrupt wakes it and is delivered
 * through L2's IDT (no external-interrupt exiting); the handler's CPUID
 * exits with the interrupted RIP in the frame and the activity state
 * active. */
START_TEST(hlt_activity_woken_by_interrupt)
{
	struct world w;
	world_init(&w);
	struct cpu *c = &w.m.cpu;
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert(c->in_guest);
	ck_assert(c->halted);
	ck_assert_uint_eq(c->rip, L2_CODE);
	ck_assert_uint_eq(w.observed, 0);
	c->intr_ack = ack_40;
	c->intr_ctx = &w;
	cpu_set_line(c, LINE_INTR, true);
	c->icount_limit = c->icount + 10000;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_ACTIVITY_STATE), VMX_ACTIVITY_ACTIVE);
	world_free(&w);
}
END_TEST

/* HLT with an event to inject: "If the VM entry is vectoring, the logical
 * processor is in the active state after VM entry" (26.7.2). */
START_TEST(hlt_activity_vectoring_entry_is_active)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_GUEST_ACTIVITY_STATE, VMX_ACTIVITY_HLT);
	vmw(&w, VMCS_GUEST_RFLAGS, FLAG_FIXED1 | FLAG_IF);
	vmw(&w, VMCS_ENTRY_INTR_INFO, VMX_INTR_VALID | (VMX_INTR_EXTERNAL << VMX_INTR_TYPE_SHIFT) | 0x40);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	world_free(&w);
}
END_TEST

/* ---- VMX instructions in VMX non-root operation (SDM Vol.3 25.1.2) ---- */

struct insn_row {
	const char *name;
	uint8_t bytes[8];
	uint8_t len;
	uint32_t reason;
};
#define B(...) { __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

static const struct insn_row insn_rows[] = {
	{ "vmxon", B(0xf3, 0x0f, 0xc7, 0x30), VMX_EXIT_VMXON },
	{ "vmxoff", B(0x0f, 0x01, 0xc4), VMX_EXIT_VMXOFF },
	{ "vmclear", B(0x66, 0x0f, 0xc7, 0x30), VMX_EXIT_VMCLEAR },
	{ "vmptrld", B(0x0f, 0xc7, 0x30), VMX_EXIT_VMPTRLD },
	{ "vmptrst", B(0x0f, 0xc7, 0x38), VMX_EXIT_VMPTRST },
	{ "vmread", B(0x0f, 0x78, 0xcb), VMX_EXIT_VMREAD },
	{ "vmwrite", B(0x0f, 0x79, 0xcb), VMX_EXIT_VMWRITE },
	{ "vmlaunch", B(0x0f, 0x01, 0xc2), VMX_EXIT_VMLAUNCH },
	{ "vmresume", B(0x0f, 0x01, 0xc3), VMX_EXIT_VMRESUME },
	{ "vmcall", B(0x0f, 0x01, 0xc1), VMX_EXIT_VMCALL },
	{ "invept", B(0x66, 0x0f, 0x38, 0x80, 0x08), VMX_EXIT_INVEPT },
	{ "invvpid", B(0x66, 0x0f, 0x38, 0x81, 0x08), VMX_EXIT_INVVPID },
};
#define N_INSN_ROWS (sizeof(insn_rows) / sizeof(insn_rows[0]))

START_TEST(vmx_insn_in_guest_exits)
{
	const struct insn_row *r = &insn_rows[_i];
	struct world w;
	world_init(&w);
	l2_code(&w, r->bytes, r->len);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_msg(exit_reason(&w) == r->reason, "%s: exit reason %u", r->name, exit_reason(&w));
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), r->len);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* VMFUNC without "enable VM functions" is #UD in the guest (SDM Vol.3 30.3
 * VMFUNC), delivered through L2's IDT: the handler's CPUID exits. */
START_TEST(vmfunc_disabled_is_ud)
{
	struct world w;
	world_init(&w);
	L2(&w, 0x0f, 0x01, 0xd4);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_ISR);
	ck_assert_uint_eq(l2_stack(&w, 0), L2_CODE);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.3: RDTSCP with "enable RDTSCP" 0 and INVPCID with "enable
 * INVPCID" 0 are #UD with priority over every other exception: at CPL 3,
 * with CR4.TSD for RDTSCP, the #GP they would otherwise raise comes second.
 * L2 runs at CPL 3 on its own page tables (a user 1-GiB page); the
 * exception bitmap makes any exception an exit, whose vector tells. */
#define USER_PML4 0x18000u
#define USER_PDPT 0x19000u
static const struct disabled_row {
	const char *name;
	uint8_t bytes[6];
	unsigned len;
} disabled_rows[] = {
	{ "rdtscp", { 0x0f, 0x01, 0xf9 }, 3 },
	{ "invpcid rcx, [rbx]", { 0x66, 0x0f, 0x38, 0x82, 0x0b }, 5 },
};

START_TEST(disabled_insn_ud_before_gp)
{
	const struct disabled_row *r = &disabled_rows[_i];
	struct world w;
	world_init(&w);
	physmem_write(&w.m.pm, USER_PML4, 8, USER_PDPT | 7);
	physmem_write(&w.m.pm, USER_PDPT, 8, 0x80 | 7);   /* PS, U, RW, P: 0-1 GiB */
	vmw(&w, VMCS_GUEST_CR3, USER_PML4);
	vmw(&w, VMCS_GUEST_CR4, vmr(&w, VMCS_GUEST_CR4) | CR4_TSD);
	vmw(&w, VMCS_GUEST_CS_SELECTOR, SEL_CODE64 | 3);
	vmw(&w, VMCS_GUEST_CS_AR, 0xa0fb);
	static const uint32_t sel[] = { VMCS_GUEST_SS_SELECTOR, VMCS_GUEST_DS_SELECTOR, VMCS_GUEST_ES_SELECTOR };
	static const uint32_t ar[] = { VMCS_GUEST_SS_AR, VMCS_GUEST_DS_AR, VMCS_GUEST_ES_AR };
	for (unsigned i = 0; i < 3; i++) {
		vmw(&w, sel[i], SEL_DATA | 3);
		vmw(&w, ar[i], 0xc0f3);
	}
	vmw(&w, VMCS_EXCEPTION_BITMAP, 0xffffffffu);
	l2_code(&w, r->bytes, r->len);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_msg(exit_reason(&w) == VMX_EXIT_EXCEPTION_NMI, "%s: exit reason %u", r->name, exit_reason(&w));
	ck_assert_msg((vmr(&w, VMCS_EXIT_INTR_INFO) & 0xff) == EXC_UD, "%s: vector %u", r->name,
		      (unsigned)(vmr(&w, VMCS_EXIT_INTR_INFO) & 0xff));
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* ---- EPT and VMFUNC ---- */

#define EPT_PML4   0x14000u
#define EPT_PML4B  0x16000u
#define EPT_PDPT   0x15000u
#define EPTP_LIST  0x17000u
/* EPTP: WB paging structures (6), a 4-level walk (3 in bits 5:3); SDM Vol.3
 * 24.6.11. */
#define EPTP_OF(pml4) ((uint64_t)(pml4) | (3u << 3) | 6u)

/* Identity EPT for the first GiB: a 1-GiB page, RWX, WB (SDM Vol.3 28.2.2);
 * two PML4s (two EP4TAs) share the PDPT. */
static void ept_identity(struct world *w)
{
	physmem_write(&w->m.pm, EPT_PML4, 8, EPT_PDPT | 7);
	physmem_write(&w->m.pm, EPT_PML4B, 8, EPT_PDPT | 7);
	physmem_write(&w->m.pm, EPT_PDPT, 8, 0x80 | (6u << 3) | 7);
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS, must_be_1(w, MSR_VMX_TRUE_PROCBASED_CTLS) |
					       VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_EPT) | VMX_CTL(VMX_PROC2_VPID) |
						 VMX_CTL(VMX_PROC2_VM_FUNCTIONS));
	vmw(w, VMCS_VPID, 7);
	vmw(w, VMCS_EPT_POINTER, EPTP_OF(EPT_PML4));
	vmw(w, VMCS_VM_FUNCTION_CONTROLS, 1);             /* EPTP switching */
	physmem_write(&w->m.pm, EPTP_LIST + 8, 8, EPTP_OF(EPT_PML4B));
	vmw(w, VMCS_EPTP_LIST_ADDR, EPTP_LIST);
}

/* SDM Vol.3 28.2: with "enable EPT" the guest's physical addresses go
 * through the EPT of the EPTP; the VM exit leaves stage 2 (27.5). */
START_TEST(ept_guest_runs)
{
	struct world w;
	world_init(&w);
	ept_identity(&w);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert(!w.m.cpu.stage2_on);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.5.6.3: VMFUNC 0 (EPTP switching) with ECX = 1 loads the
 * EPTP-list entry 1 into the EPT pointer and the guest goes on (its CPUID
 * then exits); ECX beyond the 512 entries is a VM exit with reason 59 and
 * the instruction's length (25.5.6, 27.2.5). */
START_TEST(vmfunc_eptp_switching)
{
	struct world w;
	world_init_mode(&w, _i);
	ept_identity(&w);
	/* mov eax, 0; mov ecx, 1; vmfunc; cpuid */
	L2(&w, 0xb8, 0, 0, 0, 0, 0xb9, 1, 0, 0, 0, 0x0f, 0x01, 0xd4, 0x0f, 0xa2);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 13);
	ck_assert_uint_eq(vmr(&w, VMCS_EPT_POINTER), EPTP_OF(EPT_PML4B));

	/* mov ecx, 512; vmfunc */
	L2(&w, 0xb8, 0, 0, 0, 0, 0xb9, 0, 2, 0, 0, 0x0f, 0x01, 0xd4, 0x0f, 0xa2);
	vmw(&w, VMCS_GUEST_RIP, L2_CODE);
	ck_assert_int_eq(run_from(&w, L1_RESUME), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_VMFUNC);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 10);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN), 3);
	world_free(&w);
}
END_TEST

/* ---- the exit report (--trace vmexit) ---- */

/* The report's decoding of the exit qualification (SDM Vol.3 27.2.1, Tables
 * 27-2 .. 27-7), and of a failed entry: its check. */
START_TEST(report_describes_qualification)
{
	struct world w;
	world_init(&w);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	struct vm_exit_report r = w.last;
	ck_assert(r.describe != NULL);
	char buf[160];
	static const struct { uint32_t reason; uint64_t q; const char *text; } rows[] = {
		{ VMX_EXIT_CR_ACCESS, 3 | 1u << 4 | 5u << 8, "cr3 mov from gpr=5" },
		{ VMX_EXIT_DR_ACCESS, 7 | 0u << 4 | 2u << 8, "dr7 mov to gpr=2" },
		{ VMX_EXIT_IO_INSTRUCTION, 0x700000u | 8 | 0x40, "port=0x70 in size=1 imm" },
		{ VMX_EXIT_TASK_SWITCH, 0x28 | 2ull << 30, "tss=0x28 source=jmp" },
		{ VMX_EXIT_INVLPG, 0x1000, "address=0x1000" },
	};
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		r.code = rows[i].reason;
		r.words[EXIT_WORD_VMX_QUALIFICATION] = rows[i].q;
		r.describe(&r, buf, sizeof(buf));
		ck_assert_str_eq(buf, rows[i].text);
	}
	r.failed_check = "SDM Vol.3 26.4: x";
	r.describe(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "failed: SDM Vol.3 26.4: x");
	world_free(&w);
}
END_TEST

/* ---- the VMX-preemption timer (SDM Vol.3 25.5.1, 26.7.4, 27.3.4) ---- */

/* VM entry starts the timer at the field's value; the CPUID exit, some 400
 * guest instructions later, saves what is left with "save VMX-preemption
 * timer value" (skylake-lite: one tick per 2^5 TSC ticks, IA32_VMX_MISC 4:0,
 * so 12 or 13 ticks), and the timer stops in root operation. */
START_TEST(preemption_timer_saved)
{
	struct world w;
	world_init(&w);
	vmw(&w, VMCS_PIN_BASED_CONTROLS, must_be_1(&w, MSR_VMX_TRUE_PINBASED_CTLS) |
					     VMX_CTL(VMX_PIN_PREEMPTION_TIMER));
	vmw(&w, VMCS_EXIT_CONTROLS, must_be_1(&w, MSR_VMX_TRUE_EXIT_CTLS) | VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) |
					VMX_CTL(VMX_EXITCTL_SAVE_PREEMPTION_TIMER));
	vmw(&w, VMCS_PREEMPTION_TIMER_VALUE, 1000);
	L2(&w, 0xb9, 200, 0, 0, 0, 0xff, 0xc9, 0x75, 0xfc, 0x0f, 0xa2);   /* mov ecx, 200; 1: dec ecx; jnz 1b; cpuid */
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	uint64_t left = vmr(&w, VMCS_PREEMPTION_TIMER_VALUE);
	ck_assert_msg(left >= 985 && left <= 988, "timer value %llu", (unsigned long long)left);
	ck_assert_uint_eq(w.m.cpu.deadlines[DEADLINE_HV].at, UINT64_MAX);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_entry");
	TCase *tc = tcase_create("entry_exit");
	tcase_add_loop_test(tc, launch_cpuid_exit, 0, 2);   /* both TLB modes */
	tcase_add_loop_test(tc, resume_round_trip, 0, 2);
	tcase_add_test(tc, tlb_contexts_by_vpid);
	tcase_add_test(tc, pae_guest_pdptes);
	tcase_add_test(tc, nmi_blocking_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("failures");
	tcase_add_test(tc, fail_controls_7);
	tcase_add_test(tc, fail_host_state_8);
	tcase_add_loop_test(tc, fail_guest_state_33, 0, 2);   /* both TLB modes */
	tcase_add_loop_test(tc, fail_msr_loading_34, 0, 2);   /* both TLB modes */
	tcase_add_loop_test(tc, exit_msr_store_and_load, 0, 2);   /* both TLB modes */
	tcase_add_test(tc, exit_msr_store_tsc_not_offset);
	tcase_add_test(tc, exit_msr_load_abort);
	suite_add_tcase(s, tc);
	tc = tcase_create("events");
	tcase_add_test(tc, inject_external_interrupt);
	tcase_add_loop_test(tc, inject_gp_with_error_code, 0, 2);   /* both TLB modes */
	tcase_add_test(tc, inject_software_interrupt);
	tcase_add_test(tc, idt_vectoring_of_event_in_flight);
	tcase_add_test(tc, inject_pending_mtf);
	tcase_add_test(tc, hlt_activity_woken_by_interrupt);
	tcase_add_test(tc, hlt_activity_vectoring_entry_is_active);
	suite_add_tcase(s, tc);
	tc = tcase_create("nonroot");
	tcase_add_loop_test(tc, vmx_insn_in_guest_exits, 0, (int)N_INSN_ROWS);
	tcase_add_test(tc, vmfunc_disabled_is_ud);
	tcase_add_loop_test(tc, disabled_insn_ud_before_gp, 0,
			    (int)(sizeof(disabled_rows) / sizeof(disabled_rows[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("ept");
	tcase_add_test(tc, ept_guest_runs);
	tcase_add_loop_test(tc, vmfunc_eptp_switching, 0, 2);   /* both TLB modes */
	suite_add_tcase(s, tc);
	tc = tcase_create("timer");
	tcase_add_test(tc, preemption_timer_saved);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, report_describes_qualification);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
