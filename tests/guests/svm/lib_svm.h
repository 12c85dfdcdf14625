/* A small L1 hypervisor library for the nested-SVM guests (tests/guests/svm/).
 *
 * Each SVM guest is an L1 hypervisor: it enables SVM, and runs a TABLE of
 * rows {name, APM section, VMCB set-up, L2 body, expected #VMEXIT}. For each
 * row the runner builds a fresh VMCB (a flat 32-bit L2 at CPL 0 that shares
 * L1's memory, GDT and TSS, with its own IDT of recording stubs), lets the
 * row edit it, poisons the fields the processor must write, executes VMRUN
 * and compares EXITCODE, EXITINFO1/2, EXITINTINFO, the saved rIP, nRIP and the
 * decode-assist instruction bytes with the manual's values: one TAP line per
 * row, the mismatching fields as "#" lines before it.
 *
 * The VMCB layout below is written from AMD APM vol.2 Appendix B (Tables B-1,
 * B-2), independently of hvemu's svm/vmcb.h, so the guests check the model
 * rather than share its mistakes. Section numbers are those of APM2 rev. 3.42
 * (15.5.1 VMRUN, 15.7 intercept operation, 15.8 decode assists, 15.9
 * instruction intercepts, 15.10 IOIO, 15.11 MSR, 15.12 exceptions, ...).
 */
#ifndef GUEST_SVM_LIB_SVM_H
#define GUEST_SVM_LIB_SVM_H

#include "lib/paging.h"

/* ---- VMCB (APM2 Appendix B) ------------------------------------------- */

struct vmcb_seg {
	uint16_t sel;
	uint16_t attr;              /* descriptor bits 47:40 | 55:52 << 8 */
	uint32_t limit;             /* expanded, byte granular */
	uint64_t base;
};

struct vmcb {
	/* Control area, Table B-1 (VMCB offsets). */
	uint32_t icpt_cr;           /* 0x000: 15:0 CRn read, 31:16 CRn write */
	uint32_t icpt_dr;           /* 0x004: 15:0 DRn read, 31:16 DRn write */
	uint32_t icpt_exc;          /* 0x008: exception vector n */
	uint32_t icpt_misc1;        /* 0x00c: ICPT1_* */
	uint32_t icpt_misc2;        /* 0x010: ICPT2_* */
	uint32_t icpt_misc3;        /* 0x014 */
	uint8_t  rsvd_018[0x03c - 0x018];
	uint16_t pause_threshold;   /* 0x03c */
	uint16_t pause_count;       /* 0x03e */
	uint64_t iopm_base;         /* 0x040 */
	uint64_t msrpm_base;        /* 0x048 */
	uint64_t tsc_offset;        /* 0x050 */
	uint32_t asid;              /* 0x058 */
	uint8_t  tlb_control;       /* 0x05c */
	uint8_t  rsvd_05d[3];
	uint64_t vintr;             /* 0x060: V_TPR, V_IRQ, V_GIF, V_INTR_PRIO, ... */
	uint64_t int_shadow;        /* 0x068: bit 0 INTERRUPT_SHADOW */
	uint64_t exitcode;          /* 0x070 */
	uint64_t exitinfo1;         /* 0x078 */
	uint64_t exitinfo2;         /* 0x080 */
	uint64_t exitintinfo;       /* 0x088 */
	uint64_t np_control;        /* 0x090: bit 0 NP_ENABLE */
	uint64_t avic_bar;          /* 0x098 */
	uint64_t ghcb_pa;           /* 0x0a0 */
	uint64_t eventinj;          /* 0x0a8 */
	uint64_t ncr3;              /* 0x0b0 */
	uint64_t virt_ext;          /* 0x0b8: bit 1 virtual VMSAVE/VMLOAD */
	uint32_t clean;             /* 0x0c0 */
	uint32_t rsvd_0c4;
	uint64_t nrip;              /* 0x0c8 */
	uint8_t  insn_len;          /* 0x0d0: bytes fetched (3:0) */
	uint8_t  insn_bytes[15];    /* 0x0d1 */
	uint8_t  rsvd_0e0[0x400 - 0x0e0];
	/* State-save area, Table B-2 (offsets + 0x400). */
	struct vmcb_seg es, cs, ss, ds, fs, gs, gdtr, ldtr, idtr, tr; /* 0x400 - 0x49f */
	uint8_t  rsvd_4a0[0x4cb - 0x4a0];
	uint8_t  cpl;               /* 0x4cb */
	uint32_t rsvd_4cc;
	uint64_t efer;              /* 0x4d0 */
	uint8_t  rsvd_4d8[0x548 - 0x4d8];
	uint64_t cr4;               /* 0x548 */
	uint64_t cr3;               /* 0x550 */
	uint64_t cr0;               /* 0x558 */
	uint64_t dr7;               /* 0x560 */
	uint64_t dr6;               /* 0x568 */
	uint64_t rflags;            /* 0x570 */
	uint64_t rip;               /* 0x578 */
	uint8_t  rsvd_580[0x5d8 - 0x580];
	uint64_t rsp;               /* 0x5d8 */
	uint64_t s_cet, ssp, isst;  /* 0x5e0 */
	uint64_t rax;               /* 0x5f8 */
	uint64_t star;              /* 0x600 */
	uint64_t lstar;             /* 0x608 */
	uint64_t cstar;             /* 0x610 */
	uint64_t sfmask;            /* 0x618 */
	uint64_t kernel_gs_base;    /* 0x620 */
	uint64_t sysenter_cs;       /* 0x628 */
	uint64_t sysenter_esp;      /* 0x630 */
	uint64_t sysenter_eip;      /* 0x638 */
	uint64_t cr2;               /* 0x640 */
	uint8_t  rsvd_648[0x668 - 0x648];
	uint64_t g_pat;             /* 0x668 */
	uint64_t dbgctl;            /* 0x670 */
	uint8_t  rsvd_678[0x1000 - 0x678];
};

#define VMCB_AT(field, off) _Static_assert(__builtin_offsetof(struct vmcb, field) == (off), "APM2 App. B " #field)
VMCB_AT(pause_threshold, 0x03c);
VMCB_AT(iopm_base, 0x040);
VMCB_AT(asid, 0x058);
VMCB_AT(vintr, 0x060);
VMCB_AT(exitcode, 0x070);
VMCB_AT(exitintinfo, 0x088);
VMCB_AT(eventinj, 0x0a8);
VMCB_AT(clean, 0x0c0);
VMCB_AT(nrip, 0x0c8);
VMCB_AT(insn_len, 0x0d0);
VMCB_AT(es, 0x400);
VMCB_AT(tr, 0x490);
VMCB_AT(cpl, 0x4cb);
VMCB_AT(efer, 0x4d0);
VMCB_AT(cr4, 0x548);
VMCB_AT(rip, 0x578);
VMCB_AT(rsp, 0x5d8);
VMCB_AT(rax, 0x5f8);
VMCB_AT(sysenter_eip, 0x638);
VMCB_AT(cr2, 0x640);
VMCB_AT(g_pat, 0x668);
_Static_assert(sizeof(struct vmcb) == 4096, "APM2 15.5.1: the VMCB is one 4 KB page");
#undef VMCB_AT

/* Intercept vector 3 (VMCB 0x00c), APM2 Table B-1. */
#define ICPT1_INTR        (1u << 0)
#define ICPT1_NMI         (1u << 1)
#define ICPT1_SMI         (1u << 2)
#define ICPT1_INIT        (1u << 3)
#define ICPT1_VINTR       (1u << 4)
#define ICPT1_CR0_SEL     (1u << 5)
#define ICPT1_IDTR_READ   (1u << 6)
#define ICPT1_GDTR_READ   (1u << 7)
#define ICPT1_LDTR_READ   (1u << 8)
#define ICPT1_TR_READ     (1u << 9)
#define ICPT1_IDTR_WRITE  (1u << 10)
#define ICPT1_GDTR_WRITE  (1u << 11)
#define ICPT1_LDTR_WRITE  (1u << 12)
#define ICPT1_TR_WRITE    (1u << 13)
#define ICPT1_RDTSC       (1u << 14)
#define ICPT1_RDPMC       (1u << 15)
#define ICPT1_PUSHF       (1u << 16)
#define ICPT1_POPF        (1u << 17)
#define ICPT1_CPUID       (1u << 18)
#define ICPT1_RSM         (1u << 19)
#define ICPT1_IRET        (1u << 20)
#define ICPT1_INTN        (1u << 21)
#define ICPT1_INVD        (1u << 22)
#define ICPT1_PAUSE       (1u << 23)
#define ICPT1_HLT         (1u << 24)
#define ICPT1_INVLPG      (1u << 25)
#define ICPT1_INVLPGA     (1u << 26)
#define ICPT1_IOIO        (1u << 27)
#define ICPT1_MSR         (1u << 28)
#define ICPT1_TASKSW      (1u << 29)
#define ICPT1_FERR        (1u << 30)
#define ICPT1_SHUTDOWN    (1u << 31)
/* Intercept vector 4 (VMCB 0x010). */
#define ICPT2_VMRUN       (1u << 0)
#define ICPT2_VMMCALL     (1u << 1)
#define ICPT2_VMLOAD      (1u << 2)
#define ICPT2_VMSAVE      (1u << 3)
#define ICPT2_STGI        (1u << 4)
#define ICPT2_CLGI        (1u << 5)
#define ICPT2_SKINIT      (1u << 6)
#define ICPT2_RDTSCP      (1u << 7)
#define ICPT2_ICEBP       (1u << 8)
#define ICPT2_WBINVD      (1u << 9)
#define ICPT2_MONITOR     (1u << 10)
#define ICPT2_MWAIT       (1u << 11)
#define ICPT2_MWAIT_ARMED (1u << 12)
#define ICPT2_XSETBV      (1u << 13)
#define ICPT2_RDPRU       (1u << 14)

/* V_INTR fields at VMCB 0x060 (APM2 15.21.4, 15.33.2). */
#define VINTR_TPR(n)      ((uint64_t)(n) & 0xf)
#define VINTR_IRQ         (1ull << 8)
#define VINTR_GIF         (1ull << 9)
#define VINTR_PRIO(n)     ((uint64_t)((n) & 0xf) << 16)
#define VINTR_IGN_TPR     (1ull << 20)
#define VINTR_MASKING     (1ull << 24)
#define VINTR_GIF_ENABLE  (1ull << 25)
#define VINTR_VECTOR(v)   ((uint64_t)((v) & 0xff) << 32)

/* EVENTINJ / EXITINTINFO (APM2 15.20, Figure 15-1). */
#define EV_VALID          (1ull << 31)
#define EV_ERR            (1ull << 11)
#define EV_TYPE(t)        ((uint64_t)(t) << 8)
#define EV_INTR           0
#define EV_NMI            2
#define EV_EXC            3
#define EV_SWINT          4
#define EV_CODE(e)        ((uint64_t)(uint32_t)(e) << 32)
#define EVENT(type, vec)  (EV_VALID | EV_TYPE(type) | (uint64_t)((vec) & 0xff))

/* #VMEXIT codes (APM2 Appendix C, Table C-1). */
#define EXIT_CR_READ(n)   (0x000u + (n))
#define EXIT_CR_WRITE(n)  (0x010u + (n))
#define EXIT_DR_READ(n)   (0x020u + (n))
#define EXIT_DR_WRITE(n)  (0x030u + (n))
#define EXIT_EXC(v)       (0x040u + (v))
#define EXIT_INTR         0x060
#define EXIT_NMI          0x061
#define EXIT_VINTR        0x064
#define EXIT_CR0_SEL      0x065
#define EXIT_IDTR_READ    0x066
#define EXIT_GDTR_READ    0x067
#define EXIT_LDTR_READ    0x068
#define EXIT_TR_READ      0x069
#define EXIT_IDTR_WRITE   0x06a
#define EXIT_GDTR_WRITE   0x06b
#define EXIT_LDTR_WRITE   0x06c
#define EXIT_TR_WRITE     0x06d
#define EXIT_RDTSC        0x06e
#define EXIT_RDPMC        0x06f
#define EXIT_PUSHF        0x070
#define EXIT_POPF         0x071
#define EXIT_CPUID        0x072
#define EXIT_RSM          0x073
#define EXIT_IRET         0x074
#define EXIT_SWINT        0x075
#define EXIT_INVD         0x076
#define EXIT_PAUSE        0x077
#define EXIT_HLT          0x078
#define EXIT_INVLPG       0x079
#define EXIT_INVLPGA      0x07a
#define EXIT_IOIO         0x07b
#define EXIT_MSR          0x07c
#define EXIT_TASK_SWITCH  0x07d
#define EXIT_SHUTDOWN     0x07f
#define EXIT_VMRUN        0x080
#define EXIT_VMMCALL      0x081
#define EXIT_VMLOAD       0x082
#define EXIT_VMSAVE       0x083
#define EXIT_STGI         0x084
#define EXIT_CLGI         0x085
#define EXIT_SKINIT       0x086
#define EXIT_RDTSCP       0x087
#define EXIT_ICEBP        0x088
#define EXIT_WBINVD       0x089
#define EXIT_MONITOR      0x08a
#define EXIT_MWAIT        0x08b
#define EXIT_MWAIT_ARMED  0x08c
#define EXIT_XSETBV       0x08d
#define EXIT_RDPRU        0x08e
#define EXIT_NPF          0x400
#define EXIT_INVALID      0xffffffffffffffffull

/* IOIO EXITINFO1 (APM2 15.10.2, Figure 15-2). */
#define IO_IN             (1u << 0)
#define IO_STR            (1u << 2)
#define IO_REP            (1u << 3)
#define IO_SZ8            (1u << 4)
#define IO_SZ16           (1u << 5)
#define IO_SZ32           (1u << 6)
#define IO_A16            (1u << 7)
#define IO_A32            (1u << 8)
#define IO_A64            (1u << 9)
#define IO_SEG(s)         ((uint32_t)(s) << 10)
#define IO_PORT(p)        ((uint32_t)(p) << 16)
#define SEG_ES 0
#define SEG_CS 1
#define SEG_SS 2
#define SEG_DS 3
#define SEG_FS 4
#define SEG_GS 5

/* Decode assists: MOV CRx EXITINFO1 (APM2 15.8.1, Table 15-2). */
#define CR_MOV            (1ull << 63)

/* Task-switch EXITINFO2 (APM2 15.14.1): bit 44, the error code in 31:0. */
#define TS_HAS_ERROR      (1ull << 44)

/* #NPF EXITINFO1 (APM2 15.25.6). */
#define NPF_P             (1ull << 0)
#define NPF_RW            (1ull << 1)
#define NPF_US            (1ull << 2)
#define NPF_RSVD          (1ull << 3)
#define NPF_ID            (1ull << 4)
#define NPF_FINAL         (1ull << 32)
#define NPF_WALK          (1ull << 33)

/* ---- SVM MSRs and CPUID (APM2 15.4, 15.30, APM3 Fn8000_000A) ---------- */

#define MSR_VM_CR        0xc0010114u
#define MSR_VM_HSAVE_PA  0xc0010117u
#define VM_CR_LOCK       (1u << 3)
#define VM_CR_SVMDIS     (1u << 4)
#define EFER_SVME        (1u << 12)
#ifndef EFER_LME
#define EFER_LME         (1u << 8)
#define EFER_LMA         (1u << 10)
#endif
#define PAT_DEFAULT      0x0007040600070406ull

/* CPUID Fn8000_000A_EDX feature bits. */
enum svm_feature {
	F_NP = 0, F_LBRV = 1, F_SVML = 2, F_NRIPS = 3, F_TSCRATE = 4, F_VMCBCLEAN = 5,
	F_FLUSHASID = 6, F_DECODE = 7, F_PAUSEFILTER = 10, F_PFTHRESHOLD = 12,
	F_VMSAVE_VIRT = 15, F_VGIF = 16,
};
#define NEED(f) (1u << (f))

struct svm_caps {
	uint32_t svm;               /* Fn8000_0001_ECX[SVM] */
	uint32_t skinit;            /* Fn8000_0001_ECX[SKINIT] */
	uint32_t lm;                /* Fn8000_0001_EDX[LM] */
	uint32_t rev, nasid, features; /* Fn8000_000A EAX, EBX, EDX */
	unsigned maxphy;
};
extern struct svm_caps svm_caps;

static inline int svm_has(enum svm_feature f) { return (svm_caps.features >> f) & 1; }
const char *svm_feature_name(enum svm_feature f);

/* Reads CPUID into svm_caps; 0 if the CPU has no SVM. */
int svm_probe(void);
/* svm_probe, then EFER.SVME := 1 and VM_HSAVE_PA := a zeroed page; ends the
 * guest as skipped (skip_all) when the CPU has no SVM or SVMDIS is set. */
void svm_host_init(void);

static inline void stgi(void) { __asm__ volatile("stgi" ::: "memory"); }
static inline void clgi(void) { __asm__ volatile("clgi" ::: "memory"); }

/* ---- L2 state and VMRUN ------------------------------------------------ */

/* The L2 general registers VMRUN does not switch (RAX and RSP live in the
 * VMCB): loaded before VMRUN, stored after #VMEXIT by svm_vmrun. */
struct l2_gprs {
	uint32_t ebx, ecx, edx, esi, edi, ebp;
};
extern struct l2_gprs l2_regs;

/* CLGI; VMRUN vmcb_pa with l2_regs; STGI. Returns after the #VMEXIT (or the
 * failed VMRUN) with l2_regs holding the L2 registers. */
void svm_vmrun(uint32_t vmcb_pa);
/* The same without the CLGI/STGI around it (GIF stays 0 after #VMEXIT). */
void svm_vmrun_raw(uint32_t vmcb_pa);
/* What svm_run_row and svm_rerun call: svm_vmrun, or a 64-bit L1's own. */
extern void (*svm_vmrun_fn)(uint32_t vmcb_pa);

/* L2 bodies leave through VMMCALL, which every VMCB intercepts. */
#define L2_EXIT_INSN "vmmcall"
#include "lib/l2_body.h"

/* What the L2 IDT stubs saw: every vector 0-255 goes to a stub that records
 * the vector, ESP after the CPU's frame (the frame is at l2_event_esp) and a
 * count, then executes VMMCALL. */
extern volatile uint32_t l2_event_vector, l2_event_esp, l2_event_count;
extern uint64_t l2_idt[256];
/* Scratch memory for L2 bodies (descriptor-table stores, I/O strings). */
extern uint8_t l2_scratch[256];
extern uint8_t l2_stack[8192];
#define L2_STACK_TOP ((uint32_t)(uintptr_t)(l2_stack + sizeof(l2_stack)))
uint32_t l2_stub_addr(int vec);
/* Offset of the VMMCALL in a stub (lib_svm_asm.S: MOV imm32 to memory, MOV
 * ESP to memory, INC memory: 10 + 6 + 6 bytes). */
#define L2_STUB_VMMCALL 22
/* Depth of the frame the L2 stub saw (bytes between l2_event_esp and the top
 * of the L2 stack): 12 without an error code, 16 with one (same CPL). */
static inline uint32_t l2_frame_depth(void) { return L2_STACK_TOP - l2_event_esp; }
static inline uint32_t l2_frame(unsigned i) { return ((volatile uint32_t *)(uintptr_t)l2_event_esp)[i]; }

/* Permission maps (APM2 15.10.1, 15.11): 12 KB and 8 KB, page aligned,
 * cleared by svm_vmcb_init. */
extern uint8_t svm_iopm[3 * 4096];
extern uint8_t svm_msrpm[2 * 4096];
void iopm_set(uint32_t port, int on);
/* Sets or clears the read (write = 0) or write intercept bit of an MSR in one
 * of the three MSRPM ranges. */
void msrpm_set(uint32_t msr, int write, int on);

/* VMCBs: page aligned, identity mapped. */
extern struct vmcb svm_vmcbs[4];
static inline uint32_t vmcb_pa(const struct vmcb *v) { return (uint32_t)(uintptr_t)v; }

/* A fresh VMCB for a flat 32-bit protected-mode L2 at CPL 0 entering at rip:
 * L1's CR0/CR3/CR4 and GDT, EFER = SVME, the recording L2 IDT, the L2 stack,
 * ASID 1, intercepts VMRUN, VMMCALL and shutdown, zeroed IOPM/MSRPM. */
void svm_vmcb_init(struct vmcb *v, const void *rip);
/* Loads the hidden state of a flat segment (P, S, DPL 0, 4 GiB) into a VMCB
 * segment: code = 1 for CS (type 0x0b, D = 1), else data (type 0x03, B = 1). */
void vmcb_flat_seg(struct vmcb_seg *s, uint16_t sel, int code);

/* L2 at CPL 3: CS 0x1b, SS/DS/ES 0x23 (lib/guest.h DPL 3 flat segments). */
void vmcb_user(struct vmcb *v);

/* ---- The row table -------------------------------------------------- */

/* Which fields a row checks besides EXITCODE (always) and EXITINTINFO.V. */
#define C_INFO1     (1u << 0)    /* EXITINFO1 == row value */
#define C_INFO2     (1u << 1)    /* EXITINFO2 == row value */
#define C_INFO2_NEXT (1u << 2)   /* EXITINFO2 == body next (IOIO) */
#define C_INTINFO   (1u << 3)    /* whole EXITINTINFO == row value (else V = 0) */
#define C_NRIP_NEXT (1u << 4)    /* instruction-type exit: nRIP == body next (else 0) */
#define C_RIP_NEXT  (1u << 5)    /* saved rIP == body next (trap), else body at */
#define C_NO_RIP    (1u << 6)    /* saved rIP undefined (APM), not checked */
#define C_NO_NRIP   (1u << 7)    /* nRIP not checked (e.g. VMEXIT_INVALID) */
#define C_INSN_BYTES (1u << 8)   /* decode assists: 15 bytes from rIP (#PF/#NPF data) */
#define C_NO_INSN   (1u << 9)    /* instruction bytes not checked (fetch faults) */
#define C_INFO1_DA  (1u << 10)   /* EXITINFO1 checked only with decode assists */
#define C_INFO1_MASK_SEG (1u << 11) /* IOIO: SEG (12:10) checked only with decode assists */
#define C_L2_EVENT  (1u << 12)   /* the L2 IDT stub saw vector row->l2_vector; with
				  * exit VMMCALL, rIP/nRIP are the stub's VMMCALL */
#define C_NO_INTINFO (1u << 14)  /* EXITINTINFO left unchecked (APM ambiguous) */
#define C_AT_END    (1u << 13)   /* the body ran to its closing VMMCALL: saved rIP =
				  * next, nRIP = next + 3 (for exit VMMCALL) */

struct svm_row;
struct svm_case {
	const struct svm_row *row;
	struct vmcb *vmcb;
	uint64_t info1, info2, intinfo; /* expected values, fixed up by row->fix */
	uint32_t pass;                  /* cleared by a failing field check */
};

struct svm_row {
	const char *name;
	const char *apm;                   /* the APM2 section that decides */
	const struct l2_body *body;
	/* Intercept bits ORed into the fresh VMCB (0x000-0x010) before setup. */
	uint32_t icpt_cr, icpt_dr, icpt_exc, icpt1, icpt2;
	void (*setup)(struct svm_case *c); /* edits c->vmcb before VMRUN */
	uint64_t exitcode;
	uint64_t info1, info2, intinfo;
	uint64_t info1_mask;               /* EXITINFO1 bits compared; 0 = all */
	uint32_t check;                    /* C_* */
	uint32_t need;                     /* NEED(F_*) bits the row requires */
	uint32_t l2_vector;                /* with C_L2_EVENT */
	uint32_t arg, arg2;                /* parameters for setup/extra */
	/* After the exit and the generic field checks: more checks (via
	 * svm_expect*), possibly further VMRUNs. */
	void (*extra)(struct svm_case *c);
	/* Returns a reason to skip the row (CPU lacks something), or 0. */
	const char *(*skip)(void);
};

/* Runs one row, printing its TAP line. */
void svm_run_row(const struct svm_row *row);
void svm_run_rows(const struct svm_row *rows, unsigned n);
#define RUN_ROWS(t) svm_run_rows((t), sizeof(t) / sizeof((t)[0]))

/* Field checks inside a row: on mismatch print "# name: field got X want Y"
 * and mark the case failed. */
void svm_expect(struct svm_case *c, const char *field, uint64_t got, uint64_t want);
void svm_expect_true(struct svm_case *c, const char *what, int cond);
/* Prints the row's TAP line for a row run by hand (not svm_run_row). */
void svm_case_report(struct svm_case *c);
/* VMRUN c->vmcb again after poisoning the exit fields (for rows that resume
 * L2 in their extra function). */
void svm_rerun(struct svm_case *c);
/* Pre-VMRUN poisoning of EXITCODE/EXITINFO/EXITINTINFO/nRIP/insn bytes. */
void svm_poison(struct vmcb *v);

/* 64-bit helpers for the table literals. */
#define U64(hi, lo) (((uint64_t)(hi) << 32) | (uint32_t)(lo))

#endif
