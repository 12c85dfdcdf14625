/* Architectural constants shared by every layer: register bits, exception
 * vectors, descriptor and selector layouts. Names follow the SDM/APM. */
#ifndef HVEMU_MMU_X86_H
#define HVEMU_MMU_X86_H

#include <stdint.h>

/* Exception vectors (SDM Vol.3 6.3.1, Table 6-1). */
enum {
	EXC_DE = 0, EXC_DB = 1, EXC_NMI = 2, EXC_BP = 3, EXC_OF = 4, EXC_BR = 5,
	EXC_UD = 6, EXC_NM = 7, EXC_DF = 8, EXC_TS = 10, EXC_NP = 11, EXC_SS = 12,
	EXC_GP = 13, EXC_PF = 14, EXC_MF = 16, EXC_AC = 17, EXC_MC = 18, EXC_XM = 19,
	EXC_VE = 20, EXC_CP = 21,
};

/* EFLAGS (SDM Vol.1 3.4.3). */
enum {
	FLAG_CF = 1u << 0, FLAG_FIXED1 = 1u << 1, FLAG_PF = 1u << 2, FLAG_AF = 1u << 4,
	FLAG_ZF = 1u << 6, FLAG_SF = 1u << 7, FLAG_TF = 1u << 8, FLAG_IF = 1u << 9,
	FLAG_DF = 1u << 10, FLAG_OF = 1u << 11, FLAG_IOPL = 3u << 12, FLAG_NT = 1u << 14,
	FLAG_RF = 1u << 16, FLAG_VM = 1u << 17, FLAG_AC = 1u << 18, FLAG_VIF = 1u << 19,
	FLAG_VIP = 1u << 20, FLAG_ID = 1u << 21,
};
#define FLAGS_ARITH (FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF | FLAG_SF | FLAG_OF)
#define FLAG_IOPL_SHIFT 12

/* CR0 / CR4 / EFER (SDM Vol.3 2.5, APM2 3.1). */
#define CR0_PE (1u << 0)
#define CR0_MP (1u << 1)
#define CR0_EM (1u << 2)
#define CR0_TS (1u << 3)
#define CR0_ET (1u << 4)
#define CR0_NE (1u << 5)
#define CR0_WP (1u << 16)
#define CR0_AM (1u << 18)
#define CR0_NW (1u << 29)
#define CR0_CD (1u << 30)
#define CR0_PG (1u << 31)
enum {
	CR4_VME = 1u << 0, CR4_PVI = 1u << 1, CR4_TSD = 1u << 2, CR4_DE = 1u << 3,
	CR4_PSE = 1u << 4, CR4_PAE = 1u << 5, CR4_MCE = 1u << 6, CR4_PGE = 1u << 7,
	CR4_PCE = 1u << 8, CR4_OSFXSR = 1u << 9, CR4_OSXMMEXCPT = 1u << 10,
	CR4_UMIP = 1u << 11, CR4_LA57 = 1u << 12, CR4_VMXE = 1u << 13, CR4_SMXE = 1u << 14,
	CR4_FSGSBASE = 1u << 16, CR4_PCIDE = 1u << 17, CR4_OSXSAVE = 1u << 18,
	CR4_SMEP = 1u << 20, CR4_SMAP = 1u << 21, CR4_PKE = 1u << 22,
};
enum {
	EFER_SCE = 1u << 0, EFER_LME = 1u << 8, EFER_LMA = 1u << 10, EFER_NXE = 1u << 11,
	EFER_SVME = 1u << 12, EFER_LMSLE = 1u << 13, EFER_FFXSR = 1u << 14,
};

/* Segment attributes, packed as in the VMCB segment "attrib" field (APM2 15.5.1,
 * Appendix B): descriptor bits 40-47 in 0-7, bits 52-55 in 8-11. */
enum {
	SEG_TYPE_MASK = 0xf,       /* descriptor type (for S=1: bit0 accessed, bit1 R/W,
	                              bit2 C/E, bit3 code) */
	SEG_TYPE_ACCESSED = 1u << 0,
	SEG_TYPE_RW = 1u << 1,     /* data: writable; code: readable */
	SEG_TYPE_CE = 1u << 2,     /* data: expand-down; code: conforming */
	SEG_TYPE_CODE = 1u << 3,
	SEG_S = 1u << 4,           /* code/data (1) vs system (0) */
	SEG_DPL_SHIFT = 5, SEG_DPL = 3u << 5,
	SEG_P = 1u << 7,
	SEG_AVL = 1u << 8, SEG_L = 1u << 9, SEG_DB = 1u << 10, SEG_G = 1u << 11,
};

/* System-descriptor types (S=0) (SDM Vol.3 3.5, Table 3-2). */
enum {
	SYS_TSS16_AVAIL = 1, SYS_LDT = 2, SYS_TSS16_BUSY = 3, SYS_CALL_GATE16 = 4,
	SYS_TASK_GATE = 5, SYS_INT_GATE16 = 6, SYS_TRAP_GATE16 = 7,
	SYS_TSS32_AVAIL = 9, SYS_TSS32_BUSY = 11, SYS_CALL_GATE32 = 12,
	SYS_INT_GATE32 = 14, SYS_TRAP_GATE32 = 15,
};

/* DR6 status bits (SDM Vol.3 17.2.3). */
#define DR6_B0 (1u << 0)
#define DR6_BD (1u << 13)
#define DR6_BS (1u << 14)
#define DR6_BT (1u << 15)

/* Selector fields (SDM Vol.3 3.4.2). */
#define SEL_RPL(s)   ((s) & 3u)
#define SEL_TI       4u
#define SEL_INDEX(s) ((s) >> 3)

/* Segment registers in instruction-encoding order (Sreg field). */
enum sreg { SR_ES, SR_CS, SR_SS, SR_DS, SR_FS, SR_GS, SR_COUNT };

/* General registers in encoding order. */
enum gpr { R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI,
	   R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15 };

/* MSR indices (SDM Vol.4; APM2 Appendix A). */
#define MSR_TSC                0x10u
#define MSR_APIC_BASE          0x1bu
#define MSR_FEATURE_CONTROL    0x3au
#define MSR_SYSENTER_CS        0x174u
#define MSR_SYSENTER_ESP       0x175u
#define MSR_SYSENTER_EIP       0x176u
#define MSR_PAT                0x277u
#define MSR_MISC_ENABLE        0x1a0u
#define MSR_EFER               0xc0000080u
#define MSR_STAR               0xc0000081u
#define MSR_LSTAR              0xc0000082u
#define MSR_CSTAR              0xc0000083u
#define MSR_SFMASK             0xc0000084u
#define MSR_FS_BASE            0xc0000100u
#define MSR_GS_BASE            0xc0000101u
#define MSR_KERNEL_GS_BASE     0xc0000102u
#define MSR_TSC_AUX            0xc0000103u
#define MSR_VM_CR              0xc0010114u   /* APM2 15.30.1 */
#define MSR_VM_HSAVE_PA        0xc0010117u   /* APM2 15.30.4 */

/* The VMX capability MSRs (SDM Vol.3 Appendix A, Vol.4 Table 2-2); their
 * layouts are in mmu/x86_vmx.h. */
#define MSR_VMX_BASIC                0x480u   /* A.1 */
#define MSR_VMX_PINBASED_CTLS        0x481u   /* A.3.1 */
#define MSR_VMX_PROCBASED_CTLS       0x482u   /* A.3.2 */
#define MSR_VMX_EXIT_CTLS            0x483u   /* A.4.1 */
#define MSR_VMX_ENTRY_CTLS           0x484u   /* A.5 */
#define MSR_VMX_MISC                 0x485u   /* A.6 */
#define MSR_VMX_CR0_FIXED0           0x486u   /* A.7 */
#define MSR_VMX_CR0_FIXED1           0x487u
#define MSR_VMX_CR4_FIXED0           0x488u   /* A.8 */
#define MSR_VMX_CR4_FIXED1           0x489u
#define MSR_VMX_VMCS_ENUM            0x48au   /* A.9 */
#define MSR_VMX_PROCBASED_CTLS2      0x48bu   /* A.3.3 */
#define MSR_VMX_EPT_VPID_CAP         0x48cu   /* A.10 */
#define MSR_VMX_TRUE_PINBASED_CTLS   0x48du   /* A.3.1 */
#define MSR_VMX_TRUE_PROCBASED_CTLS  0x48eu   /* A.3.2 */
#define MSR_VMX_TRUE_EXIT_CTLS       0x48fu   /* A.4.1 */
#define MSR_VMX_TRUE_ENTRY_CTLS      0x490u   /* A.5 */
#define MSR_VMX_VMFUNC               0x491u   /* A.11 */
#define MSR_VMX_PROCBASED_CTLS3      0x492u   /* A.3.4: 64-bit allowed-1 only */
#define MSR_VMX_EXIT_CTLS2           0x493u   /* A.4.2: 64-bit allowed-1 only */
#define MSR_VMX_FIRST                MSR_VMX_BASIC
#define MSR_VMX_LAST                 MSR_VMX_EXIT_CTLS2

/* VM_CR (APM2 15.30.1): bits 63:5 reserved. */
#define VM_CR_DPD              (1ull << 0)   /* debug port disable */
#define VM_CR_R_INIT           (1ull << 1)   /* INIT is redirected to #SX */
#define VM_CR_DIS_A20M         (1ull << 2)
#define VM_CR_LOCK             (1ull << 3)   /* SVMDIS is read-only */
#define VM_CR_SVMDIS           (1ull << 4)   /* EFER.SVME cannot be set */
#define VM_CR_DEFINED          0x1full

#endif
