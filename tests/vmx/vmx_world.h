/* The world of the VMX world-switch suites (test_vmx_entry.c,
 * test_vmx_events.c): skylake-lite in 64-bit mode at CPL 0 in VMX root
 * operation with a current, clear VMCS whose host state is L1's own and whose
 * guest is a flat 64-bit L2 sharing L1's page tables; L1 runs "vmlaunch; hlt"
 * or "vmresume; hlt" with cpu_run(), so a VM exit lands on the HLT.
 *
 * Physical layout (machine_fixture.h's 4 MiB, GDT, TSS descriptor, 64-bit
 * identity page tables at PML4):
 *   20000H L1 code   40000H L2 code   48000H L2 IDT   4C000H L2 handler
 *   60000H VM-entry MSR-load area   70000H L2 stack top   80000H L1 stack top
 *   100000H VMXON region   101000H VMCS
 */
#ifndef HVEMU_TESTS_VMX_WORLD_H
#define HVEMU_TESTS_VMX_WORLD_H

#include <check.h>
#include <stdbool.h>

#include "emu/exit_report.h"
#include "machine_fixture.h"
#include "vmx/vmx.h"

#define L1_CODE   0x20000u
#define L2_CODE   0x40000u
#define L2_IDT    0x48000u
#define L2_ISR    0x4c000u
#define MSR_AREA  0x60000u
#define L2_STACK  0x70000u
#define L1_STACK  0x80000u
#define VMXON_PA  0x100000u
#define VMCS_PA   0x101000u
#define PTR       0x200000u

#define HOST_FS   0x5000u        /* host FS/GS bases, distinct from 0 */
#define HOST_GS   0x6000u
#define L1_IDT    0x7000u

/* The L1 programs: "vmlaunch; hlt" and "vmresume; hlt". */
#define L1_LAUNCH  L1_CODE
#define L1_RESUME  (L1_CODE + 0x10)
#define HOST_RIP   (L1_CODE + 3)     /* the HLT after VMLAUNCH */

struct world {
	struct test_machine m;
	struct vmx *vmx;
	unsigned observed;
	struct vm_exit_report last;
	struct vm_exit_observer obs;
};

#define SUCCEED(w, what, ...) must_succeed((w), (const uint8_t[]){ __VA_ARGS__ }, \
					   sizeof((const uint8_t[]){ __VA_ARGS__ }), (what))

#define VMXON_RAX       0xf3, 0x0f, 0xc7, 0x30
#define VMCLEAR_RAX     0x66, 0x0f, 0xc7, 0x30
#define VMPTRLD_RAX     0x0f, 0xc7, 0x30
#define VMREAD_RBX_RCX  0x0f, 0x78, 0xcb
#define VMWRITE_RCX_RBX 0x0f, 0x79, 0xcb
#define VMLAUNCH        0x0f, 0x01, 0xc2
#define VMRESUME        0x0f, 0x01, 0xc3

#define L2(w, ...) l2_code((w), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

uint64_t model_cap(const struct cpu_model *m, uint32_t index);
uint64_t arith_flags(struct world *w);
/* One VMX instruction in L1 that must VMsucceed. */
void must_succeed(struct world *w, const uint8_t *bytes, unsigned len, const char *what);
void vmw(struct world *w, uint32_t enc, uint64_t value);
uint64_t vmr(struct world *w, uint32_t enc);
/* A 64-bit interrupt gate (SDM Vol.3 6.14.1) for vector to handler. */
void idt_gate(struct world *w, unsigned vector, uint64_t handler);
/* L2's code at L2_CODE (the decoded copy of what was there dropped). */
void l2_code(struct world *w, const uint8_t *bytes, unsigned len);
/* The "default1" controls of a TRUE_* capability MSR: its allowed-0 half
 * (SDM Vol.3 A.2, A.3). */
uint32_t must_be_1(struct world *w, uint32_t msr);
/* The world: skylake-lite in 64-bit mode, VMXON, the VMCS current and
 * clear, host and guest state valid, L2 = CPUID; VMCALL; HLT. tlb_flush:
 * --tlb flush, where nothing is cached, the VMCS region included. */
void world_init_mode(struct world *w, bool tlb_flush);
void world_init(struct world *w);
void world_free(struct world *w);
/* Run L1 from rip until it halts (after the VM exit, at HOST_RIP). */
status_t run_from(struct world *w, uint64_t rip);
/* L1 is back at its HLT after an exit: root operation, CPL 0. */
void assert_in_l1(struct world *w);
uint32_t exit_reason(struct world *w);

/* The frame an L2 handler found: [RSP + 8 * i]. */
uint64_t l2_stack(struct world *w, unsigned i);

#endif
