/* Check suite for the APIC-access page (vmx/apic_access.c through the core's
 * slow path, emu/memory.c): a 64-bit L1 runs VMLAUNCH on a VMCS with
 * "virtualize APIC accesses"; L2 reads, writes, fetches from or delivers an
 * event onto the APIC-access page (identity-mapped, L2 shares L1's page
 * tables), and each row checks the outcome against SDM Vol.3 29.4: an
 * APIC-access VM exit (reason 44, fault-like: RIP of the access, with the
 * Table 27-6 qualification) or a virtualized access of the virtual-APIC page
 * (L2 goes on to its CPUID, which exits with reason 10).
 *
 * The world is vmx_world.h's.
 */
#include <check.h>
#include <string.h>

#include "emu/event_step.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "machine_fixture.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx_world.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"

#define VAPIC    0x102000u        /* virtual-APIC page */
#define AAPAGE   0x103000u        /* APIC-access page */
#define CPUID    0x0f, 0xa2

/* The 32-bit absolute address operand of "[disp32]" (ModRM 04, SIB 25). */
#define ABS(a) 0x04, 0x25, (uint8_t)(a), (uint8_t)((a) >> 8), (uint8_t)((a) >> 16), (uint8_t)((a) >> 24)
#define IMM32(v) (uint8_t)(v), (uint8_t)((v) >> 8), (uint8_t)((v) >> 16), (uint8_t)((v) >> 24)

/* The controls of a row. */
enum { TPR_SHADOW = 1, NO_VAA = 2, ARV = 4 /* APIC-register virtualization */,
       VID = 8 /* virtual-interrupt delivery */, X2A = 16 /* virtualize x2APIC mode, MSR bitmaps (empty) */,
       BITMAPS = 32 /* MSR bitmaps (empty), #GP exits */ };
#define X2 (TPR_SHADOW | NO_VAA | X2A | BITMAPS)
#define MSRBM    0x104000u        /* MSR bitmaps */

static void setup(struct world *w, unsigned flags, bool tlb_flush)
{
	world_init_mode(w, tlb_flush);
	uint64_t proc = vmr(w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_SECONDARY_CONTROLS);
	if (flags & TPR_SHADOW)
		proc |= VMX_CTL(VMX_PROC_TPR_SHADOW);
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS, proc);
	uint64_t proc2 = flags & NO_VAA ? 0 : VMX_CTL(VMX_PROC2_VIRTUALIZE_APIC);
	if (flags & ARV)
		proc2 |= VMX_CTL(VMX_PROC2_APIC_REGISTER_VIRT);
	if (flags & VID) {
		/* 26.2.1.1: virtual-interrupt delivery wants external-interrupt
		 * exiting. */
		proc2 |= VMX_CTL(VMX_PROC2_VIRTUAL_INTR_DELIVERY);
		vmw(w, VMCS_PIN_BASED_CONTROLS, vmr(w, VMCS_PIN_BASED_CONTROLS) | VMX_CTL(VMX_PIN_EXT_INTR_EXITING));
		vmw(w, VMCS_GUEST_INTR_STATUS, 0);
	}
	if (flags & X2A)
		proc2 |= VMX_CTL(VMX_PROC2_VIRTUALIZE_X2APIC);
	if (flags & BITMAPS) {
		vmw(w, VMCS_PRIMARY_PROC_CONTROLS, vmr(w, VMCS_PRIMARY_PROC_CONTROLS) | VMX_CTL(VMX_PROC_MSR_BITMAPS));
		vmw(w, VMCS_MSR_BITMAP, MSRBM);
		vmw(w, VMCS_EXCEPTION_BITMAP, 1u << 13);
	}
	vmw(w, VMCS_SECONDARY_PROC_CONTROLS, proc2);
	vmw(w, VMCS_VIRTUAL_APIC_ADDR, VAPIC);
	vmw(w, VMCS_APIC_ACCESS_ADDR, AAPAGE);
	vmw(w, VMCS_TPR_THRESHOLD, 0);
	for (unsigned off = 0; off < 0x1000; off += 4)
		physmem_write(&w->m.pm, MSRBM + off, 4, 0);
	/* What each page holds, to tell them apart. */
	for (unsigned off = 0; off < 0x1000; off += 4) {
		physmem_write(&w->m.pm, VAPIC + off, 4, 0x11110000u | off);
		physmem_write(&w->m.pm, AAPAGE + off, 4, 0x22220000u | off);
	}
	physmem_write(&w->m.pm, VAPIC + 0x80, 4, 0x50);
}

/* A row: L2's code, the controls, and the exit it ends with. */
struct row {
	const char *name;          /* with its SDM section */
	unsigned flags;
	uint8_t code[24];
	unsigned len;
	uint32_t reason;           /* exit reason */
	uint64_t qualification;    /* reason 44's and 56's */
	unsigned rip_off;          /* guest RIP - L2_CODE */
	uint64_t rax;              /* L2's RAX at the exit (UINT64_MAX: not checked) */
	uint32_t vtpr;             /* the virtual-APIC page's 080H-083H afterwards */
};

#define MOV_ECX(v) 0xb9, IMM32(v)
#define MOV_EAX(v) 0xb8, IMM32(v)
#define MOV_EDX(v) 0xba, IMM32(v)
#define XOR_EAX    0x31, 0xc0
#define XOR_EDX    0x31, 0xd2
#define RDMSR      0x0f, 0x32
#define WRMSR      0x0f, 0x30
#define CODE(...) { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ })

static const struct row rows[] = {
	/* 29.4.2, 29.4.3.1: without "use TPR shadow" every access exits. */
	{ "29.4.2 read, no TPR shadow: exit", 0, CODE(0x8b, ABS(AAPAGE + 0x80), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x080, 0, UINT64_MAX, 0x50 },
	{ "29.4.3.1 write, no TPR shadow: exit (type 1)", 0, CODE(0xc7, ABS(AAPAGE + 0x80), IMM32(0x30), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x1080, 0, UINT64_MAX, 0x50 },
	/* 29.4.2: the TPR read is virtualized: VTPR from the virtual-APIC page. */
	{ "29.4.2 read of 080H virtualized", TPR_SHADOW, CODE(0x8b, ABS(AAPAGE + 0x80), CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x50, 0x50 },
	{ "29.4.2 16-bit read of 082H virtualized", TPR_SHADOW, CODE(0x31, 0xc0, 0x66, 0x8b, ABS(AAPAGE + 0x82), CPUID),
	  VMX_EXIT_CPUID, 0, 10, 0, 0x50 },
	/* 29.4.2: more than 32 bits, or not within the low 4 bytes of its
	 * 16-byte region, exits. */
	{ "29.4.2 64-bit read of 080H: exit", TPR_SHADOW, CODE(0x48, 0x8b, ABS(AAPAGE + 0x80), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x080, 0, UINT64_MAX, 0x50 },
	{ "29.4.2 32-bit read of 082H: exit", TPR_SHADOW, CODE(0x8b, ABS(AAPAGE + 0x82), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x082, 0, UINT64_MAX, 0x50 },
	{ "29.4.2 read of 084H: exit", TPR_SHADOW, CODE(0x8b, ABS(AAPAGE + 0x84), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x084, 0, UINT64_MAX, 0x50 },
	/* 29.4.2: without "APIC-register virtualization" only the TPR. */
	{ "29.4.2 read of 020H (APIC ID): exit", TPR_SHADOW, CODE(0x8b, ABS(AAPAGE + 0x20), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x020, 0, UINT64_MAX, 0x50 },
	/* 29.4.3.1, 29.4.3.2: the TPR write goes to the virtual-APIC page,
	 * bytes 081H-083H cleared, then TPR virtualization (no exit: the
	 * threshold is 0). */
	{ "29.4.3.2 write of 080H virtualized, 081H-083H cleared", TPR_SHADOW,
	  CODE(0xc7, ABS(AAPAGE + 0x80), IMM32(0x12345670), CPUID), VMX_EXIT_CPUID, 0, 11, UINT64_MAX, 0x70 },
	{ "29.4.3.2 byte write of 080H virtualized", TPR_SHADOW,
	  CODE(0xc6, ABS(AAPAGE + 0x80), 0x20, CPUID), VMX_EXIT_CPUID, 0, 8, UINT64_MAX, 0x20 },
	/* 29.4.3.1: with both "APIC-register virtualization" and "virtual-
	 * interrupt delivery" 0, a write is virtualized at 080H only. */
	{ "29.4.3.1 write of 081H: exit", TPR_SHADOW, CODE(0xc6, ABS(AAPAGE + 0x81), 0x20, CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x1081, 0, UINT64_MAX, 0x50 },
	{ "29.4.3.1 write of 0B0H (EOI): exit", TPR_SHADOW, CODE(0xc7, ABS(AAPAGE + 0xb0), IMM32(0), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x10b0, 0, UINT64_MAX, 0x50 },
	{ "29.4.3.1 64-bit write of 080H: exit", TPR_SHADOW,
	  CODE(0x48, 0xc7, ABS(AAPAGE + 0x80), IMM32(0), CPUID), VMX_EXIT_APIC_ACCESS, 0x1080, 0, UINT64_MAX, 0x50 },
	/* 29.4.2: an instruction fetch always exits (access type 2). */
	{ "29.4.2 fetch: exit (type 2)", TPR_SHADOW, CODE(0xb8, IMM32(AAPAGE + 0x80), 0xff, 0xe0),
	  VMX_EXIT_APIC_ACCESS, 0x2080, 0x80 + AAPAGE - L2_CODE, UINT64_MAX, 0x50 },
	/* An access crossing into the page is not within the low 4 bytes of a
	 * 16-byte region: it exits (its offset on the page: 000H). */
	{ "29.4.2 read crossing into the page: exit", TPR_SHADOW, CODE(0x8b, ABS(AAPAGE - 2), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x000, 0, UINT64_MAX, 0x50 },
	/* 29.4.2 with "APIC-register virtualization": the listed registers'
	 * low 4 bytes are read from the virtual-APIC page; PPR (0A0H) and the
	 * current count (390H) are not listed. */
	{ "29.4.2 ARV: read of 020H (APIC ID) virtualized", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0x20), CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110020, 0x50 },
	{ "29.4.2 ARV: 16-bit read of 022H virtualized", TPR_SHADOW | ARV,
	  CODE(0x31, 0xc0, 0x66, 0x8b, ABS(AAPAGE + 0x22), CPUID), VMX_EXIT_CPUID, 0, 10, 0x1111, 0x50 },
	{ "29.4.2 ARV: read of 170H (ISR) virtualized", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0x170), CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110170, 0x50 },
	{ "29.4.2 ARV: read of 3E0H (divide) virtualized", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0x3e0), CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x111103e0, 0x50 },
	{ "29.4.2 ARV: read of 0A0H (PPR): exit", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0xa0), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x0a0, 0, UINT64_MAX, 0x50 },
	{ "29.4.2 ARV: read of 390H (current count): exit", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0x390), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x390, 0, UINT64_MAX, 0x50 },
	{ "29.4.2 ARV: read of 024H: exit", TPR_SHADOW | ARV, CODE(0x8b, ABS(AAPAGE + 0x24), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x024, 0, UINT64_MAX, 0x50 },
	/* 29.4.3.1 with it: the listed registers' writes are virtualized;
	 * 29.4.3.2: APIC-write emulation; 29.4.3.3: an APIC-write VM exit
	 * (reason 56, trap-like: RIP past the store) for offsets it has no
	 * action for. */
	{ "29.4.3.3 ARV: write of 0D0H (LDR): APIC-write exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0xd0), IMM32(0x01000000), CPUID), VMX_EXIT_APIC_WRITE, 0x0d0, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.3 ARV: write of 380H (initial count): APIC-write exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0x380), IMM32(0x1000), CPUID), VMX_EXIT_APIC_WRITE, 0x380, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.3 ARV: write of 300H without VID: APIC-write exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0x300), IMM32(0x40031), CPUID), VMX_EXIT_APIC_WRITE, 0x300, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.3 ARV: write of 0B0H without VID: APIC-write exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0xb0), IMM32(0), CPUID), VMX_EXIT_APIC_WRITE, 0x0b0, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 ARV: write of 310H: no exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0x310), IMM32(0x12345678), CPUID), VMX_EXIT_CPUID, 0, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 ARV: byte write of 081H: VTPR bytes 3:1 cleared", TPR_SHADOW | ARV,
	  CODE(0xc6, ABS(AAPAGE + 0x81), 0x20, CPUID), VMX_EXIT_CPUID, 0, 8, UINT64_MAX, 0x50 },
	{ "29.4.3.1 ARV: write of 0A0H (PPR): exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0xa0), IMM32(0), CPUID), VMX_EXIT_APIC_ACCESS, 0x10a0, 0, UINT64_MAX, 0x50 },
	{ "29.4.3.1 ARV: write of 030H (version): exit", TPR_SHADOW | ARV,
	  CODE(0xc7, ABS(AAPAGE + 0x30), IMM32(0), CPUID), VMX_EXIT_APIC_ACCESS, 0x1030, 0, UINT64_MAX, 0x50 },
	/* 29.4.3.1 with virtual-interrupt delivery and without APIC-register
	 * virtualization: writes at 080H, 0B0H and 300H; reads still only the
	 * TPR. 29.4.3.2: EOI virtualization; self-IPI virtualization only for
	 * a fixed, edge, self-shorthand ICR, otherwise an APIC-write exit. */
	{ "29.4.3.2 VID: write of 0B0H: EOI virtualization", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0xb0), IMM32(0), CPUID), VMX_EXIT_CPUID, 0, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 VID: write of 300H, no shorthand: APIC-write exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0x300), IMM32(0x31), CPUID), VMX_EXIT_APIC_WRITE, 0x300, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 VID: write of 300H, self level-triggered: APIC-write exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0x300), IMM32(0x48031), CPUID), VMX_EXIT_APIC_WRITE, 0x300, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 VID: write of 300H, self NMI: APIC-write exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0x300), IMM32(0x40431), CPUID), VMX_EXIT_APIC_WRITE, 0x300, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.2 VID: write of 300H, self vector 0FH: APIC-write exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0x300), IMM32(0x4000f), CPUID), VMX_EXIT_APIC_WRITE, 0x300, 11, UINT64_MAX, 0x50 },
	{ "29.4.3.1 VID: write of 310H: exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0x310), IMM32(0), CPUID), VMX_EXIT_APIC_ACCESS, 0x1310, 0, UINT64_MAX, 0x50 },
	{ "29.4.3.1 VID: write of 0B4H: exit", TPR_SHADOW | VID,
	  CODE(0xc7, ABS(AAPAGE + 0xb4), IMM32(0), CPUID), VMX_EXIT_APIC_ACCESS, 0x10b4, 0, UINT64_MAX, 0x50 },
	{ "29.4.2 VID: read of 0B0H: exit", TPR_SHADOW | VID, CODE(0x8b, ABS(AAPAGE + 0xb0), CPUID),
	  VMX_EXIT_APIC_ACCESS, 0x0b0, 0, UINT64_MAX, 0x50 },
	/* 29.5 "virtualize x2APIC mode" (MSR bitmaps all 0): RDMSR of 808H
	 * reads VTPR whatever the local APIC's mode; with "APIC-register
	 * virtualization" every MSR of 800H-8FFH reads its offset; the others
	 * operate normally (L1's local APIC is in xAPIC mode: #GP, which
	 * exits). */
	{ "29.5 RDMSR 808H virtualized", X2, CODE(MOV_ECX(0x808), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x50, 0x50 },
	{ "29.5 RDMSR 802H without ARV: normal (#GP)", X2, CODE(MOV_ECX(0x802), RDMSR, CPUID),
	  VMX_EXIT_EXCEPTION_NMI, 0, 5, UINT64_MAX, 0x50 },
	{ "29.5 ARV: RDMSR 802H (APIC ID) virtualized", X2 | ARV, CODE(MOV_ECX(0x802), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110020, 0x50 },
	{ "29.5 ARV: RDMSR 80AH (PPR) virtualized", X2 | ARV, CODE(MOV_ECX(0x80a), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x111100a0, 0x50 },
	{ "29.5 ARV: RDMSR 827H (IRR7) virtualized", X2 | ARV, CODE(MOV_ECX(0x827), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110270, 0x50 },
	{ "29.5 ARV: RDMSR 839H (current count) virtualized", X2 | ARV, CODE(MOV_ECX(0x839), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110390, 0x50 },
	{ "29.5 ARV: RDMSR 80BH (EOI) virtualized", X2 | ARV, CODE(MOV_ECX(0x80b), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x111100b0, 0x50 },
	{ "29.5 ARV: RDMSR 8FFH virtualized", X2 | ARV, CODE(MOV_ECX(0x8ff), RDMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x11110ff0, 0x50 },
	{ "29.5 ARV: RDMSR 900H: normal (#GP)", X2 | ARV, CODE(MOV_ECX(0x900), RDMSR, CPUID),
	  VMX_EXIT_EXCEPTION_NMI, 0, 5, UINT64_MAX, 0x50 },
	/* 29.5 WRMSR: 808H (#GP if bits 63:8 are set), with virtual-interrupt
	 * delivery 80BH (#GP unless 0) and 83FH (#GP if bits 63:8 are set). */
	{ "29.5 WRMSR 808H virtualized", X2, CODE(MOV_ECX(0x808), MOV_EAX(0x30), XOR_EDX, WRMSR, CPUID),
	  VMX_EXIT_CPUID, 0, 14, UINT64_MAX, 0x30 },
	{ "29.5 WRMSR 808H bit 8: #GP", X2, CODE(MOV_ECX(0x808), MOV_EAX(0x130), XOR_EDX, WRMSR, CPUID),
	  VMX_EXIT_EXCEPTION_NMI, 0, 12, UINT64_MAX, 0x50 },
	{ "29.5 WRMSR 808H EDX 1: #GP", X2, CODE(MOV_ECX(0x808), MOV_EAX(0x30), MOV_EDX(1), WRMSR, CPUID),
	  VMX_EXIT_EXCEPTION_NMI, 0, 15, UINT64_MAX, 0x50 },
	{ "29.5 VID: WRMSR 80BH 0: EOI virtualization", X2 | VID,
	  CODE(MOV_ECX(0x80b), XOR_EAX, XOR_EDX, WRMSR, CPUID), VMX_EXIT_CPUID, 0, 11, UINT64_MAX, 0x50 },
	{ "29.5 VID: WRMSR 80BH 1: #GP", X2 | VID,
	  CODE(MOV_ECX(0x80b), MOV_EAX(1), XOR_EDX, WRMSR, CPUID), VMX_EXIT_EXCEPTION_NMI, 0, 12, UINT64_MAX, 0x50 },
	{ "29.5 WRMSR 80BH without VID: normal (#GP)", X2,
	  CODE(MOV_ECX(0x80b), XOR_EAX, XOR_EDX, WRMSR, CPUID), VMX_EXIT_EXCEPTION_NMI, 0, 9, UINT64_MAX, 0x50 },
	{ "29.5 VID: WRMSR 83FH 161H: #GP", X2 | VID,
	  CODE(MOV_ECX(0x83f), MOV_EAX(0x161), XOR_EDX, WRMSR, CPUID), VMX_EXIT_EXCEPTION_NMI, 0, 12, UINT64_MAX, 0x50 },
	{ "29.5 WRMSR 83FH without VID: normal (#GP)", X2,
	  CODE(MOV_ECX(0x83f), MOV_EAX(0x61), XOR_EDX, WRMSR, CPUID), VMX_EXIT_EXCEPTION_NMI, 0, 12, UINT64_MAX, 0x50 },
	{ "29.5 WRMSR 802H: normal (#GP)", X2 | ARV | VID,
	  CODE(MOV_ECX(0x802), XOR_EAX, XOR_EDX, WRMSR, CPUID), VMX_EXIT_EXCEPTION_NMI, 0, 9, UINT64_MAX, 0x50 },
	{ "29.5 control 0: RDMSR 808H normal (#GP)", TPR_SHADOW | NO_VAA | BITMAPS, CODE(MOV_ECX(0x808), RDMSR, CPUID),
	  VMX_EXIT_EXCEPTION_NMI, 0, 5, UINT64_MAX, 0x50 },
	/* 29.4: without "virtualize APIC accesses" the page is memory. */
	{ "29.4 control 0: the page is memory", TPR_SHADOW | NO_VAA, CODE(0x8b, ABS(AAPAGE + 0x80), CPUID),
	  VMX_EXIT_CPUID, 0, 7, 0x22220080, 0x50 },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static void run_row(const struct row *r, bool tlb_flush)
{
	struct world w;
	setup(&w, r->flags, tlb_flush);
	w.m.cpu.regs[0] = 0xdeadbeefull;
	l2_code(&w, r->code, r->len);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	assert_in_l1(&w);
	ck_assert_msg(exit_reason(&w) == r->reason, "%s: reason %u", r->name, exit_reason(&w));
	if (r->reason == VMX_EXIT_APIC_ACCESS || r->reason == VMX_EXIT_APIC_WRITE) {
		ck_assert_msg(vmr(&w, VMCS_EXIT_QUALIFICATION) == r->qualification, "%s: qualification %llx", r->name,
			      (unsigned long long)vmr(&w, VMCS_EXIT_QUALIFICATION));
		ck_assert_uint_eq(vmr(&w, VMCS_IDT_VECTORING_INFO) & VMX_INTR_VALID, 0);
	}
	/* 27.2.5 leaves it undefined for a data access; hvemu: the length of
	 * the instruction (the first of the row's code). */
	if (r->reason == VMX_EXIT_APIC_ACCESS && (r->qualification >> 12) <= 1) {
		bool rex = r->code[0] == 0x48;
		unsigned op = r->code[rex];
		unsigned want = rex + (op == 0x8b ? 7 : op == 0xc6 ? 8 : 11);
		ck_assert_msg(vmr(&w, VMCS_EXIT_INSTRUCTION_LEN) == want, "%s: length %u", r->name,
			      (unsigned)vmr(&w, VMCS_EXIT_INSTRUCTION_LEN));
	}
	ck_assert_msg(vmr(&w, VMCS_GUEST_RIP) == L2_CODE + r->rip_off, "%s: rip %llx", r->name,
		      (unsigned long long)vmr(&w, VMCS_GUEST_RIP));
	if (r->rax != UINT64_MAX)
		ck_assert_msg(w.m.cpu.regs[0] == r->rax, "%s: rax %llx", r->name, (unsigned long long)w.m.cpu.regs[0]);
	ck_assert_msg(physmem_read(&w.m.pm, VAPIC + 0x80, 4) == r->vtpr, "%s: vtpr %llx", r->name,
		      (unsigned long long)physmem_read(&w.m.pm, VAPIC + 0x80, 4));
	/* The APIC-access page is memory again (and its bytes untouched). */
	ck_assert_uint_eq(w.m.cpu.apic_access_page, UINT64_MAX);
	ck_assert_uint_eq(physmem_read(&w.m.pm, AAPAGE + 0x80, 4), 0x22220080);
	world_free(&w);
}

START_TEST(access_rows)
{
	run_row(&rows[_i], false);
}
END_TEST

/* The same with --tlb flush (nothing cached: every access is a slow one). */
START_TEST(access_rows_uncached)
{
	run_row(&rows[_i], true);
}
END_TEST

/* The page is never cached in the TLB: a virtualized read, then the same
 * address again, still reads the virtual-APIC page. */
START_TEST(never_cached)
{
	struct world w;
	setup(&w, TPR_SHADOW, false);
	L2(&w, 0x8b, ABS(AAPAGE + 0x80), 0x8b, 0x34, 0x25, IMM32(AAPAGE + 0x80), CPUID);
	physmem_write(&w.m.pm, VAPIC + 0x80, 4, 0x40);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(w.m.cpu.regs[0], 0x40);
	ck_assert_uint_eq(w.m.cpu.regs[6], 0x40);
	world_free(&w);
}
END_TEST

/* 29.4.2, Table 27-6: an access during event delivery exits with access
 * type 3; the exit is during delivery (27.2.4: IDT-vectoring information
 * valid, the INT 30H as a software interrupt). L2's stack is on the page. */
START_TEST(delivery_access)
{
	struct world w;
	setup(&w, TPR_SHADOW, false);
	idt_gate(&w, 0x30, L2_ISR);
	vmw(&w, VMCS_GUEST_RSP, AAPAGE + 0x100);
	L2(&w, 0xcd, 0x30, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_APIC_ACCESS);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x3000 | 0xf8);
	uint32_t info = (uint32_t)vmr(&w, VMCS_IDT_VECTORING_INFO);
	ck_assert_uint_eq(info, VMX_INTR_VALID | VMX_INTR_SOFT_INT << VMX_INTR_TYPE_SHIFT | 0x30);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* 29.1.2: a virtualized TPR write below TPR threshold makes a TPR-below-
 * threshold VM exit after the instruction (trap-like: RIP past it). */
START_TEST(tpr_write_below_threshold)
{
	struct world w;
	setup(&w, TPR_SHADOW, false);
	vmw(&w, VMCS_TPR_THRESHOLD, 3);
	L2(&w, 0xc7, ABS(AAPAGE + 0x80), IMM32(0x10), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_TPR_BELOW_THRESHOLD);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 11);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x80, 4), 0x10);
	world_free(&w);
}
END_TEST

/* 26.2.1.1 lets VTPR[7:4] be below the threshold at entry with "virtualize
 * APIC accesses"; 26.7.7: the TPR-below-threshold exit comes right after
 * the entry, before any L2 instruction. */
START_TEST(tpr_below_threshold_at_entry)
{
	struct world w;
	setup(&w, TPR_SHADOW, false);
	vmw(&w, VMCS_TPR_THRESHOLD, 6);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_TPR_BELOW_THRESHOLD);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE);
	world_free(&w);
}
END_TEST

/* L1's own accesses to the page after the exit are memory's (the page is the
 * guest's only while it runs): L1 reads it through the TLB-filled path. */
START_TEST(l1_sees_memory)
{
	struct world w;
	setup(&w, 0, false);
	L2(&w, 0x8b, ABS(AAPAGE + 0x80), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_APIC_ACCESS);
	uint64_t v = 0;
	ck_assert_int_eq(lin_read_sys(&w.m.cpu, AAPAGE + 0x80, 4, &v), ST_OK);
	ck_assert_uint_eq(v, 0x22220080);
	world_free(&w);
}
END_TEST

/* 29.4.3.2, 29.1.5: a self IPI written to VICR_LO with virtual-interrupt
 * delivery is virtualized: VIRR and RVI take the vector (L2 runs with
 * RFLAGS.IF = 0, so it stays pending); the write itself is in VICR_LO. */
START_TEST(self_ipi_virtualized)
{
	struct world w;
	setup(&w, TPR_SHADOW | VID, false);
	L2(&w, 0xc7, ABS(AAPAGE + 0x300), IMM32(0x40061), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS) & 0xff, 0x61);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x200 + 0x10 * (0x61 / 32), 4),
			  (0x11110200u | 0x10 * (0x61 / 32)) | 1u << (0x61 % 32));
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x300, 4), 0x40061);
	world_free(&w);
}
END_TEST

/* 29.4.3.1, 29.4.3.2: a virtualized write lands on the virtual-APIC page
 * (the bytes the access covers only) before the APIC-write exit; VICR_HI
 * keeps only byte 3. */
START_TEST(written_values)
{
	struct world w;
	setup(&w, TPR_SHADOW | ARV, false);
	L2(&w, 0x66, 0xc7, ABS(AAPAGE + 0xd2), 0xcd, 0xab, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_APIC_WRITE);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x0d0);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0xd0, 4), 0xabcd00d0);
	world_free(&w);

	setup(&w, TPR_SHADOW | ARV, false);
	L2(&w, 0xc7, ABS(AAPAGE + 0x310), IMM32(0x12345678), CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x310, 4), 0x12000000);
	world_free(&w);
}
END_TEST

/* 29.5: RDMSR 808H returns the 64 bits at 080H in EDX:EAX; WRMSR 808H
 * below TPR threshold: TPR virtualization's trap-like exit (29.1.2). */
START_TEST(x2apic_tpr)
{
	struct world w;
	setup(&w, X2, false);
	L2(&w, MOV_ECX(0x808), RDMSR, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(w.m.cpu.regs[0], 0x50);
	ck_assert_uint_eq(w.m.cpu.regs[2], 0x11110084);
	world_free(&w);

	setup(&w, X2, false);
	vmw(&w, VMCS_TPR_THRESHOLD, 3);
	L2(&w, MOV_ECX(0x808), MOV_EAX(0x10), XOR_EDX, WRMSR, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_TPR_BELOW_THRESHOLD);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 14);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x80, 8), 0x10);
	world_free(&w);
}
END_TEST

/* 29.5, 29.1.5: WRMSR 83FH with virtual-interrupt delivery: offset 3F0H
 * gets the value, VIRR and RVI the vector. */
START_TEST(x2apic_self_ipi)
{
	struct world w;
	setup(&w, X2 | VID, false);
	L2(&w, MOV_ECX(0x83f), MOV_EAX(0x61), XOR_EDX, WRMSR, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_CPUID);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS) & 0xff, 0x61);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x3f0, 8), 0x61);
	world_free(&w);

	/* A vector below 16: an APIC-write VM exit, trap-like, offset 3F0H. */
	setup(&w, X2 | VID, false);
	L2(&w, MOV_ECX(0x83f), MOV_EAX(0x0f), XOR_EDX, WRMSR, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_APIC_WRITE);
	ck_assert_uint_eq(vmr(&w, VMCS_EXIT_QUALIFICATION), 0x3f0);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 14);
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x3f0, 8), 0x0f);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_INTR_STATUS) & 0xff, 0);
	world_free(&w);
}
END_TEST

/* 25.1.3 before 29.5: an MSR bitmap bit set for 808H makes RDMSR exit. */
START_TEST(x2apic_bitmap_first)
{
	struct world w;
	setup(&w, X2, false);
	physmem_write(&w.m.pm, MSRBM + 0x808 / 8, 1, 1u << (0x808 % 8));
	L2(&w, MOV_ECX(0x808), RDMSR, CPUID);
	ck_assert_int_eq(run_from(&w, L1_LAUNCH), ST_HALT);
	ck_assert_uint_eq(exit_reason(&w), VMX_EXIT_RDMSR);
	ck_assert_uint_eq(vmr(&w, VMCS_GUEST_RIP), L2_CODE + 5);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_apicv");
	TCase *tc = tcase_create("rows");
	tcase_add_loop_test(tc, access_rows, 0, (int)N_ROWS);
	tcase_add_loop_test(tc, access_rows_uncached, 0, (int)N_ROWS);
	suite_add_tcase(s, tc);
	tc = tcase_create("flows");
	tcase_add_test(tc, never_cached);
	tcase_add_test(tc, delivery_access);
	tcase_add_test(tc, tpr_write_below_threshold);
	tcase_add_test(tc, tpr_below_threshold_at_entry);
	tcase_add_test(tc, l1_sees_memory);
	tcase_add_test(tc, self_ipi_virtualized);
	tcase_add_test(tc, written_values);
	tcase_add_test(tc, x2apic_tpr);
	tcase_add_test(tc, x2apic_self_ipi);
	tcase_add_test(tc, x2apic_bitmap_first);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
