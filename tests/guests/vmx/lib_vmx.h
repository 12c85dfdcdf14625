/* A small L1 hypervisor library for the nested-VMX guests (tests/guests/vmx/).
 *
 * Each VMX guest is an L1 hypervisor in 32-bit protected mode with 32-bit
 * paging (CR0.PG is fixed to 1 in VMX operation without unrestricted guest).
 * It detects VMX, enables it (IA32_FEATURE_CONTROL, CR4.VMXE, the CR0/CR4
 * fixed bits), enters VMX operation and runs TABLES of rows: VMX instructions
 * with their expected fault, VMsucceed/VMfailInvalid/VMfailValid outcome and
 * VM-instruction error (vmx_insns), or {VMCS set-up, L2 body, expected exit}
 * (vmx_exits), one TAP line per row with the fields that differ printed as
 * "#" lines before a "not ok".
 *
 * Every encoding, bit and number below is written from the Intel SDM Vol.3,
 * edition 325462-075US (June 2021): chapter 24 (the VMCS), 25 (non-root
 * operation), 26 (VM entries), 27 (VM exits), 30 (the VMX instructions),
 * Appendix A (capability MSRs), B (field encodings), C (exit reasons);
 * independently of the headers in hvemu's vmx/, so the guests check the model rather
 * than share its mistakes.
 */
#ifndef GUEST_VMX_LIB_VMX_H
#define GUEST_VMX_LIB_VMX_H

#include "lib/paging.h"

/* ---- MSRs and CPUID (SDM Vol.3 23.6, 23.7, Appendix A) ----------------- */

#define MSR_FEATURE_CONTROL  0x03au
#define FC_LOCK              (1u << 0)
#define FC_VMX_IN_SMX        (1u << 1)
#define FC_VMX_OUTSIDE_SMX   (1u << 2)

#define MSR_VMX_BASIC            0x480u   /* A.1 */
#define MSR_VMX_PINBASED_CTLS    0x481u   /* A.3.1 */
#define MSR_VMX_PROCBASED_CTLS   0x482u   /* A.3.2 */
#define MSR_VMX_EXIT_CTLS        0x483u   /* A.4 */
#define MSR_VMX_ENTRY_CTLS       0x484u   /* A.5 */
#define MSR_VMX_MISC             0x485u   /* A.6 */
#define MSR_VMX_CR0_FIXED0       0x486u   /* A.7 */
#define MSR_VMX_CR0_FIXED1       0x487u
#define MSR_VMX_CR4_FIXED0       0x488u   /* A.8 */
#define MSR_VMX_CR4_FIXED1       0x489u
#define MSR_VMX_VMCS_ENUM        0x48au   /* A.9 */
#define MSR_VMX_PROCBASED_CTLS2  0x48bu   /* A.3.3 */
#define MSR_VMX_EPT_VPID_CAP     0x48cu   /* A.10 */
#define MSR_VMX_TRUE_PINBASED    0x48du
#define MSR_VMX_TRUE_PROCBASED   0x48eu
#define MSR_VMX_TRUE_EXIT        0x48fu
#define MSR_VMX_TRUE_ENTRY       0x490u
#define MSR_VMX_VMFUNC           0x491u   /* A.11 */

/* IA32_VMX_BASIC (A.1). */
#define BASIC_REVISION(b)    ((uint32_t)(b) & 0x7fffffffu)
#define BASIC_SIZE(b)        ((uint32_t)((b) >> 32) & 0x1fffu)
#define BASIC_ADDR32         (1ull << 48)   /* VMXON/VMCS/... addresses limited to 32 bits */
#define BASIC_INSOUTS_INFO   (1ull << 54)   /* INS/OUTS instruction information */
#define BASIC_TRUE_CTLS      (1ull << 55)   /* the TRUE_* control MSRs exist */

/* IA32_VMX_MISC (A.6). */
#define MISC_VMWRITE_EXIT_INFO (1ull << 29) /* VMWRITE to the exit-information fields */

/* IA32_VMX_EPT_VPID_CAP (A.10). */
#define CAP_INVEPT           (1ull << 20)
#define CAP_INVEPT_SINGLE    (1ull << 25)
#define CAP_INVEPT_ALL       (1ull << 26)
#define CAP_INVVPID          (1ull << 32)
#define CAP_INVVPID_ADDR     (1ull << 40)
#define CAP_INVVPID_SINGLE   (1ull << 41)
#define CAP_INVVPID_ALL      (1ull << 42)
#define CAP_INVVPID_SINGLE_G (1ull << 43)
#define CAP_EPT_WALK4        (1ull << 6)
#define CAP_EPT_WB           (1ull << 14)

#define CR0_PE   (1u << 0)
#define CR0_NE   (1u << 5)
#define CR4_VMXE (1u << 13)

/* ---- VMCS field encodings (SDM Vol.3 Appendix B; 24.11.2: bit 0 = access
 * type, 9:1 index, 11:10 type, 14:13 width) ------------------------------- */

/* 16-bit (B.1) */
#define VMCS_VPID                 0x0000u
#define VMCS_GUEST_ES_SEL         0x0800u
#define VMCS_GUEST_CS_SEL         0x0802u
#define VMCS_GUEST_SS_SEL         0x0804u
#define VMCS_GUEST_DS_SEL         0x0806u
#define VMCS_GUEST_FS_SEL         0x0808u
#define VMCS_GUEST_GS_SEL         0x080au
#define VMCS_GUEST_LDTR_SEL       0x080cu
#define VMCS_GUEST_TR_SEL         0x080eu
#define VMCS_HOST_ES_SEL          0x0c00u
#define VMCS_HOST_CS_SEL          0x0c02u
#define VMCS_HOST_SS_SEL          0x0c04u
#define VMCS_HOST_DS_SEL          0x0c06u
#define VMCS_HOST_FS_SEL          0x0c08u
#define VMCS_HOST_GS_SEL          0x0c0au
#define VMCS_HOST_TR_SEL          0x0c0cu
/* 64-bit (B.2) */
#define VMCS_IO_BITMAP_A          0x2000u
#define VMCS_IO_BITMAP_B          0x2002u
#define VMCS_MSR_BITMAP           0x2004u
#define VMCS_EXIT_MSR_STORE_ADDR  0x2006u
#define VMCS_EXIT_MSR_LOAD_ADDR   0x2008u
#define VMCS_ENTRY_MSR_LOAD_ADDR  0x200au
#define VMCS_TSC_OFFSET           0x2010u
#define VMCS_EPT_POINTER          0x201au
#define VMCS_GUEST_PHYS_ADDR      0x2400u   /* read-only */
#define VMCS_LINK_POINTER         0x2800u
#define VMCS_GUEST_DEBUGCTL       0x2802u
#define VMCS_GUEST_PAT            0x2804u
#define VMCS_GUEST_EFER           0x2806u
#define VMCS_HOST_PAT             0x2c00u
#define VMCS_HOST_EFER            0x2c02u
#define VMCS_HIGH(enc)            ((enc) | 1u)   /* the high 32 bits of a 64-bit field */
/* 32-bit (B.3) */
#define VMCS_PIN_CTLS             0x4000u
#define VMCS_PROC_CTLS            0x4002u
#define VMCS_EXCEPTION_BITMAP     0x4004u
#define VMCS_PF_ERROR_MASK        0x4006u
#define VMCS_PF_ERROR_MATCH       0x4008u
#define VMCS_CR3_TARGET_COUNT     0x400au
#define VMCS_EXIT_CTLS            0x400cu
#define VMCS_EXIT_MSR_STORE_COUNT 0x400eu
#define VMCS_EXIT_MSR_LOAD_COUNT  0x4010u
#define VMCS_ENTRY_CTLS           0x4012u
#define VMCS_ENTRY_MSR_LOAD_COUNT 0x4014u
#define VMCS_ENTRY_INTR_INFO      0x4016u
#define VMCS_ENTRY_EXC_ERROR      0x4018u
#define VMCS_ENTRY_INSN_LEN       0x401au
#define VMCS_TPR_THRESHOLD        0x401cu
#define VMCS_PROC_CTLS2           0x401eu
#define VMCS_INSN_ERROR           0x4400u   /* read-only from here to 0x440e */
#define VMCS_EXIT_REASON          0x4402u
#define VMCS_EXIT_INTR_INFO       0x4404u
#define VMCS_EXIT_INTR_ERROR      0x4406u
#define VMCS_IDT_VECTORING_INFO   0x4408u
#define VMCS_IDT_VECTORING_ERROR  0x440au
#define VMCS_EXIT_INSN_LEN        0x440cu
#define VMCS_EXIT_INSN_INFO       0x440eu
#define VMCS_GUEST_ES_LIMIT       0x4800u   /* ES CS SS DS FS GS LDTR TR: +2 each */
#define VMCS_GUEST_GDTR_LIMIT     0x4810u
#define VMCS_GUEST_IDTR_LIMIT     0x4812u
#define VMCS_GUEST_ES_AR          0x4814u   /* ES CS SS DS FS GS LDTR TR: +2 each */
#define VMCS_GUEST_INTERRUPTIBILITY 0x4824u
#define VMCS_GUEST_ACTIVITY       0x4826u
#define VMCS_GUEST_SYSENTER_CS    0x482au
#define VMCS_PREEMPT_TIMER        0x482eu   /* VMX-preemption timer value */
#define VMCS_HOST_SYSENTER_CS     0x4c00u
/* Natural width (B.4) */
#define VMCS_CR0_MASK             0x6000u
#define VMCS_CR4_MASK             0x6002u
#define VMCS_CR0_SHADOW           0x6004u
#define VMCS_CR4_SHADOW           0x6006u
#define VMCS_CR3_TARGET0          0x6008u
#define VMCS_EXIT_QUALIFICATION   0x6400u   /* read-only */
#define VMCS_GUEST_LINEAR_ADDR    0x640au   /* read-only */
#define VMCS_GUEST_CR0            0x6800u
#define VMCS_GUEST_CR3            0x6802u
#define VMCS_GUEST_CR4            0x6804u
#define VMCS_GUEST_ES_BASE        0x6806u   /* ES CS SS DS FS GS LDTR TR: +2 each */
#define VMCS_GUEST_GDTR_BASE      0x6816u
#define VMCS_GUEST_IDTR_BASE      0x6818u
#define VMCS_GUEST_DR7            0x681au
#define VMCS_GUEST_RSP            0x681cu
#define VMCS_GUEST_RIP            0x681eu
#define VMCS_GUEST_RFLAGS         0x6820u
#define VMCS_GUEST_PENDING_DBG    0x6822u
#define VMCS_GUEST_SYSENTER_ESP   0x6824u
#define VMCS_GUEST_SYSENTER_EIP   0x6826u
#define VMCS_HOST_CR0             0x6c00u
#define VMCS_HOST_CR3             0x6c02u
#define VMCS_HOST_CR4             0x6c04u
#define VMCS_HOST_FS_BASE         0x6c06u
#define VMCS_HOST_GS_BASE         0x6c08u
#define VMCS_HOST_TR_BASE         0x6c0au
#define VMCS_HOST_GDTR_BASE       0x6c0cu
#define VMCS_HOST_IDTR_BASE       0x6c0eu
#define VMCS_HOST_SYSENTER_ESP    0x6c10u
#define VMCS_HOST_SYSENTER_EIP    0x6c12u
#define VMCS_HOST_RSP             0x6c14u
#define VMCS_HOST_RIP             0x6c16u

/* Segment registers in the guest-state area's order (B.1-B.4). */
enum vmx_seg { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS, SEG_LDTR, SEG_TR };

/* ---- VM-execution, exit and entry controls (24.6, 24.7.1, 24.8.1) ------- */

#define PIN_EXT_INTR         (1u << 0)
#define PIN_NMI              (1u << 3)
#define PIN_VIRTUAL_NMI      (1u << 5)
#define PIN_PREEMPT_TIMER    (1u << 6)

#define PROC_INTR_WINDOW     (1u << 2)
#define PROC_TSC_OFFSET      (1u << 3)
#define PROC_HLT             (1u << 7)
#define PROC_INVLPG          (1u << 9)
#define PROC_MWAIT           (1u << 10)
#define PROC_RDPMC           (1u << 11)
#define PROC_RDTSC           (1u << 12)
#define PROC_CR3_LOAD        (1u << 15)
#define PROC_CR3_STORE       (1u << 16)
#define PROC_CR8_LOAD        (1u << 19)
#define PROC_CR8_STORE       (1u << 20)
#define PROC_TPR_SHADOW      (1u << 21)
#define PROC_NMI_WINDOW      (1u << 22)
#define PROC_MOV_DR          (1u << 23)
#define PROC_UNCOND_IO       (1u << 24)
#define PROC_IO_BITMAPS      (1u << 25)
#define PROC_MTF             (1u << 27)
#define PROC_MSR_BITMAPS     (1u << 28)
#define PROC_MONITOR         (1u << 29)
#define PROC_PAUSE           (1u << 30)
#define PROC_SECONDARY       (1u << 31)

#define PROC2_EPT            (1u << 1)
#define PROC2_DESC_TABLE     (1u << 2)
#define PROC2_RDTSCP         (1u << 3)
#define PROC2_VPID           (1u << 5)
#define PROC2_WBINVD         (1u << 6)
#define PROC2_UNRESTRICTED   (1u << 7)

#define EXIT_SAVE_DEBUG      (1u << 2)
#define EXIT_HOST_LONG_MODE  (1u << 9)     /* host address-space size */
#define EXIT_ACK_INTR        (1u << 15)
#define EXIT_SAVE_PAT        (1u << 18)
#define EXIT_LOAD_PAT        (1u << 19)
#define EXIT_SAVE_EFER       (1u << 20)
#define EXIT_LOAD_EFER       (1u << 21)
#define EXIT_SAVE_PREEMPT    (1u << 22)    /* save VMX-preemption timer value */

#define ENTRY_LOAD_DEBUG     (1u << 2)
#define ENTRY_IA32E_GUEST    (1u << 9)
#define ENTRY_LOAD_PAT       (1u << 14)
#define ENTRY_LOAD_EFER      (1u << 15)

/* ---- exit reasons (Appendix C) and VM-instruction errors (30.4) -------- */

#define EXIT_EXCEPTION_NMI   0
#define EXIT_EXTERNAL_INTR   1
#define EXIT_TRIPLE_FAULT    2
#define EXIT_INIT            3
#define EXIT_INTR_WINDOW     7
#define EXIT_NMI_WINDOW      8
#define EXIT_CPUID           10
#define EXIT_HLT             12
#define EXIT_INVD            13
#define EXIT_INVLPG          14
#define EXIT_RDPMC           15
#define EXIT_RDTSC           16
#define EXIT_VMCALL          18
#define EXIT_VMCLEAR         19
#define EXIT_VMLAUNCH        20
#define EXIT_VMPTRLD         21
#define EXIT_VMPTRST         22
#define EXIT_VMREAD          23
#define EXIT_VMRESUME        24
#define EXIT_VMWRITE         25
#define EXIT_VMXOFF          26
#define EXIT_VMXON           27
#define EXIT_CR_ACCESS       28
#define EXIT_MOV_DR          29
#define EXIT_IO              30
#define EXIT_RDMSR           31
#define EXIT_WRMSR           32
#define EXIT_INVALID_GUEST   33
#define EXIT_MSR_LOADING     34
#define EXIT_MWAIT           36
#define EXIT_MTF             37
#define EXIT_PAUSE           40
#define EXIT_INVEPT          50
#define EXIT_PREEMPT_TIMER   52
#define EXIT_INVVPID         53
#define EXIT_FAILED_ENTRY    0x80000000u   /* bit 31: VM-entry failure (24.9.1) */

#define VMERR_VMCALL_ROOT        1
#define VMERR_VMCLEAR_BAD_ADDR   2
#define VMERR_VMCLEAR_VMXON_PTR  3
#define VMERR_VMLAUNCH_NOT_CLEAR 4
#define VMERR_VMRESUME_NOT_LAUNCHED 5
#define VMERR_ENTRY_BAD_CONTROLS 7
#define VMERR_ENTRY_BAD_HOST     8
#define VMERR_VMPTRLD_BAD_ADDR   9
#define VMERR_VMPTRLD_VMXON_PTR  10
#define VMERR_VMPTRLD_BAD_REV    11
#define VMERR_UNSUPPORTED_FIELD  12
#define VMERR_READ_ONLY_FIELD    13
#define VMERR_VMXON_IN_ROOT      15
#define VMERR_MOV_SS_BLOCKING    26
#define VMERR_INVEPT_INVVPID     28

/* Interruption information (24.8.3, 24.9.2): vector 7:0, type 10:8, error
 * code valid 11, valid 31. */
#define INTR_VALID           (1u << 31)
#define INTR_ERROR_VALID     (1u << 11)
#define INTR_TYPE_EXT        (0u << 8)
#define INTR_TYPE_NMI        (2u << 8)
#define INTR_TYPE_HW_EXC     (3u << 8)
#define INTR_TYPE_SW_INT     (4u << 8)
#define INTR_TYPE_PRIV_SW    (5u << 8)
#define INTR_TYPE_SW_EXC     (6u << 8)
#define INTR_TYPE_OTHER      (7u << 8)   /* vector 0: a pending MTF VM exit (24.8.3) */

/* Interruptibility state (24.4.2, Table 24-3) and activity state (24.4.2). */
#define INTERRUPTIBILITY_STI (1u << 0)
#define INTERRUPTIBILITY_NMI (1u << 3)
#define ACTIVITY_ACTIVE      0
#define ACTIVITY_HLT         1
#define ACTIVITY_SHUTDOWN    2
/* IA32_VMX_MISC bit 7: the shutdown activity state (A.6). */
#define MISC_ACTIVITY_SHUTDOWN (1u << 7)

/* Control-register access qualification (27.2.1, Table 27-3). */
#define QCR(cr, type, gpr)   ((uint32_t)(cr) | ((uint32_t)(type) << 4) | ((uint32_t)(gpr) << 8))
#define QCR_TO_CR            0
#define QCR_FROM_CR          1
#define QCR_CLTS             2
#define QCR_LMSW             3
/* I/O qualification (Table 27-5). */
#define QIO_SIZE(n)          ((uint32_t)(n) - 1)
#define QIO_IN               (1u << 3)
#define QIO_STRING           (1u << 4)
#define QIO_REP              (1u << 5)
#define QIO_IMM              (1u << 6)
#define QIO_PORT(p)          ((uint32_t)(p) << 16)

/* Guest segment access rights (24.4.1, Table 24-2). */
#define AR_UNUSABLE          (1u << 16)
#define AR_CODE32            0xc09bu     /* G, D, P, S, type 11 (execute/read, accessed) */
#define AR_DATA32            0xc093u     /* G, B, P, S, type 3 (read/write, accessed) */
#define AR_TSS32_BUSY        0x008bu     /* P, type 11 */

/* ---- the capabilities ---------------------------------------------------- */

struct vmx_caps {
	uint64_t basic, pin, proc, proc2, exit, entry, misc;   /* the control MSRs in use
							       * (TRUE_* when BASIC[55]) */
	uint64_t cr0_fixed0, cr0_fixed1, cr4_fixed0, cr4_fixed1;
	uint64_t vmcs_enum, ept_vpid, vmfunc;
	uint32_t fc_boot;          /* IA32_FEATURE_CONTROL as the firmware left it */
	unsigned maxphy;
};
extern struct vmx_caps vmx_caps;

/* 1 if the control bit may be 1 (allowed-1 settings: bits 63:32 of its MSR). */
static inline int ctl_allows(uint64_t msr, uint32_t bit) { return ((uint32_t)(msr >> 32) & bit) == bit; }
/* A.3-A.5: the value to write for the wanted bits: the allowed-0 settings
 * (bits 31:0, must be 1) ORed in, then the allowed-1 settings kept. */
static inline uint32_t ctl_adjust(uint64_t msr, uint32_t want) { return (want | (uint32_t)msr) & (uint32_t)(msr >> 32); }
/* 1 if the processor supports the secondary control bit. */
int vmx_has_proc2(uint32_t bit);

/* Reads CPUID.1:ECX.VMX[5] and the capability MSRs; 0 if the CPU has no VMX. */
int vmx_probe(void);
/* vmx_probe, then 32-bit paging (an identity map), CR0/CR4 fixed to the
 * FIXED0/FIXED1 MSRs, CR4.VMXE and IA32_FEATURE_CONTROL (locked with VMX
 * outside SMX if the firmware left it unlocked); ends the guest as skipped
 * when the CPU has no VMX or the firmware locked VMX off. */
void vmx_host_init(void);
/* The same without IA32_FEATURE_CONTROL and CR4.VMXE (vmx_insns tests them). */
void vmx_host_prepare(void);

/* ---- the VMX instructions (30.3), each returning the six arithmetic flags
 * it left (the flags are all set before it: VMsucceed must clear them) --- */

#define VMX_ARITH_FLAGS     0x8d5u    /* CF PF AF ZF SF OF */
#define VM_SUCCEED          0u
#define VM_FAIL_INVALID     0x001u    /* CF = 1 */
#define VM_FAIL_VALID       0x040u    /* ZF = 1 */
const char *vmx_outcome_name(uint32_t flags);

/* The preset and the read-back around a VMX instruction; MARK (lib/guest.h)
 * records the instruction's address for trap_catch's expectations. */
#define VMX_PRE  "pushl $0x8d7\n\tpopfl\n\t" MARK
#define VMX_POST "\n\tpushfl\n\tpopl %0"

static inline uint32_t vmxon(const uint64_t *pa)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmxon (%1)" VMX_POST : "=&r"(f) : "r"(pa) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmxoff(void)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmxoff" VMX_POST : "=&r"(f) :: "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmclear(const uint64_t *pa)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmclear (%1)" VMX_POST : "=&r"(f) : "r"(pa) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmptrld(const uint64_t *pa)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmptrld (%1)" VMX_POST : "=&r"(f) : "r"(pa) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmptrst(uint64_t *pa)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmptrst (%1)" VMX_POST : "=&r"(f) : "r"(pa) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmread_f(uint32_t enc, uint32_t *val)
{
	uint32_t f, v = 0xdeadbeefu;
	__asm__ volatile(VMX_PRE "vmread %2, %1" VMX_POST : "=&r"(f), "+r"(v) : "r"(enc) : "memory", "cc");
	*val = v;
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmwrite_f(uint32_t enc, uint32_t val)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmwrite %2, %1" VMX_POST : "=&r"(f) : "r"(enc), "r"(val) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmcall_f(void)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmcall" VMX_POST : "=&r"(f) :: "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmlaunch_f(void)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmlaunch" VMX_POST : "=&r"(f) :: "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t vmresume_f(void)
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "vmresume" VMX_POST : "=&r"(f) :: "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
/* INVEPT/INVVPID: type in a register, the 128-bit descriptor in memory. */
static inline uint32_t invept_f(uint32_t type, const uint64_t desc[2])
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "invept (%2), %1" VMX_POST : "=&r"(f) : "r"(type), "r"(desc) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}
static inline uint32_t invvpid_f(uint32_t type, const uint64_t desc[2])
{
	uint32_t f;
	__asm__ volatile(VMX_PRE "invvpid (%2), %1" VMX_POST : "=&r"(f) : "r"(type), "r"(desc) : "memory", "cc");
	return f & VMX_ARITH_FLAGS;
}

/* VMREAD/VMWRITE for set-up code: a failure is reported as a failed check
 * (with the field and the error) and counted in vmx_setup_errors. */
uint32_t vmread(uint32_t enc);
void vmwrite(uint32_t enc, uint32_t val);
/* A 64-bit field from a 32-bit L1: the full encoding then the high one. */
void vmwrite64(uint32_t enc, uint64_t val);
uint64_t vmread64(uint32_t enc);
extern uint32_t vmx_setup_errors;

/* ---- regions ------------------------------------------------------------ */

/* Page-aligned, identity-mapped 4 KB regions: [0] the VMXON region, [1..]
 * VMCSs. */
#define VMX_REGIONS 6
extern uint8_t vmx_region[VMX_REGIONS][4096];
static inline uint64_t region_pa(int i) { return (uint32_t)(uintptr_t)vmx_region[i]; }
/* Zeroes region i and writes the revision identifier (bit 31 clear). */
void region_init(int i);
extern uint64_t vmxon_ptr;       /* the memory operand of VMXON: region 0 */
/* VMXON with region 0: 1 on VMsucceed. */
int vmx_on(void);

/* ---- L2 state, VM entry ------------------------------------------------- */

/* The L2 general registers VM entry does not load (24.4: only RSP, RIP,
 * RFLAGS come from the VMCS): loaded by vmx_enter, stored after the exit. */
struct l2_gprs {
	uint32_t eax, ebx, ecx, edx, esi, edi, ebp;
};
extern struct l2_gprs l2_regs;

/* VMLAUNCH (resume = 0) or VMRESUME (1) the current VMCS with l2_regs;
 * HOST_RSP is written just before. Returns VMX_EXITED after a VM exit (or a
 * VM-entry failure, which also lands at HOST_RIP: 26.8), else the six
 * arithmetic flags of a VMfail. */
#define VMX_EXITED 0x80000000u
uint32_t vmx_enter(uint32_t resume);
/* The HOST_RIP of every VMCS: saves the L2 GPRs, returns from vmx_enter. */
void vmx_exit_stub(void);

/* L2 bodies leave through VMCALL, which always exits (SDM Vol.3 25.1.2). */
#define L2_EXIT_INSN "vmcall"
#include "lib/l2_body.h"

/* What the L2 IDT stubs saw: every vector goes to a stub that records it and
 * executes VMCALL. */
extern volatile uint32_t l2_event_vector, l2_event_count;
extern uint64_t l2_idt[256];
extern uint8_t l2_stack[8192];
#define L2_STACK_TOP ((uint32_t)(uintptr_t)(l2_stack + sizeof(l2_stack)))
uint32_t l2_stub_addr(int vec);

/* VMCLEAR and VMPTRLD region i, then write a complete VMCS for a flat 32-bit
 * protected-mode L2 at CPL 0 entering at rip: L1's CR0/CR3/CR4 and GDT, its
 * own IDT of recording stubs, the L2 stack; the host state is L1's own with
 * HOST_RIP = vmx_exit_stub; the controls are the default settings plus the
 * given ones (ctl_adjust; bits the processor does not allow are dropped, the
 * rows check vmx_allows first). */
void vmx_vmcs_init(int region, const void *rip, uint32_t pin, uint32_t proc, uint32_t proc2,
		   uint32_t exit, uint32_t entry);
/* 1 if every wanted bit of each control may be 1. */
int vmx_allows(uint32_t pin, uint32_t proc, uint32_t proc2, uint32_t exit, uint32_t entry);

/* ---- the row table ------------------------------------------------------ */

/* Which VM-exit information fields a row checks besides the exit reason. */
#define C_QUAL        (1u << 0)   /* exit qualification == row qual */
#define C_LEN         (1u << 1)   /* VM-exit instruction length == next - at */
#define C_INFO        (1u << 2)   /* VM-exit instruction information == row info */
#define C_INTR        (1u << 3)   /* VM-exit interruption information == row intr */
#define C_INTR_ERR    (1u << 4)   /* VM-exit interruption error code == row intr_err */
#define C_RIP_NEXT    (1u << 5)   /* guest RIP saved == next (a trap), else at */
#define C_NO_RIP      (1u << 6)   /* guest RIP not checked */
#define C_VMFAIL      (1u << 7)   /* VMLAUNCH fails: VMfailValid(row vmfail) */
#define C_ENTRY_FAIL  (1u << 8)   /* a VM-entry failure: guest state not saved */
#define C_LINEAR      (1u << 9)   /* guest-linear address == row linear */
#define C_IDT_VEC     (1u << 10)  /* IDT-vectoring information == row idt_vec (an exit
				     during event delivery, 27.2.4), else it must be invalid */

struct vmx_row;
struct vmx_case {
	const struct vmx_row *row;
	uint32_t pass;              /* cleared by a failing field check */
	uint32_t outcome;           /* vmx_enter's result */
};

struct vmx_row {
	const char *name;
	const char *sdm;                  /* the SDM Vol.3 section that decides */
	const struct l2_body *body;
	uint32_t pin, proc, proc2, exit, entry;   /* controls wanted on top of the defaults */
	uint32_t exc_bitmap;
	void (*setup)(struct vmx_case *c);        /* VMWRITEs after vmx_vmcs_init */
	uint32_t reason;                  /* expected exit reason (bit 31 for a failed entry) */
	uint32_t qual, info, intr, intr_err, linear;
	uint32_t info_mask;               /* the defined bits of info (27.2.4); 0 = all */
	uint32_t vmfail;                  /* with C_VMFAIL: the VM-instruction error */
	uint32_t check;                   /* C_* */
	uint32_t arg;                     /* for setup/extra */
	void (*extra)(struct vmx_case *c);/* more checks after the generic ones */
	const char *(*skip)(void);        /* a reason to skip, or 0 */
	uint32_t idt_vec;                 /* with C_IDT_VEC */
};

/* vmx_enter under trap_catch (c->outcome := its result): a fault in L1
 * (VMLAUNCH raising #UD or #GP) fails the row instead of ending the guest.
 * Returns the vector or NO_FAULT. */
int vmx_enter_caught(struct vmx_case *c, uint32_t resume);
void vmx_run_row(const struct vmx_row *row);
void vmx_run_rows(const struct vmx_row *rows, unsigned n);
#define RUN_ROWS(t) vmx_run_rows((t), sizeof(t) / sizeof((t)[0]))

/* A mismatch prints "# row: field got X want Y" and fails the case. */
void vmx_expect(struct vmx_case *c, const char *field, uint64_t got, uint64_t want);
void vmx_case_report(struct vmx_case *c);

#define U64(hi, lo) (((uint64_t)(hi) << 32) | (uint32_t)(lo))

#endif
