/* The Virtual Machine Control Block (APM2 15.5, Appendix B).
 *
 * One 4 KB page: the control area (Table B-1) at 0x000-0x3FF, the state-save
 * area (Table B-2) at 0x400-0xFFF. Offsets in the comments are the manual's:
 * control-area offsets from the VMCB start, state-save offsets from the start
 * of the save area (add 0x400 for the VMCB offset). Every named field's offset
 * is checked below, so a row can be diffed against the tables.
 *
 * The VMCB is guest memory: code that reads it copies a struct vmcb out of
 * physical memory and never trusts a count or length found in it.
 * Little-endian host assumed (x86 VMCB layout == host struct layout).
 */
#ifndef HVEMU_SVM_VMCB_H
#define HVEMU_SVM_VMCB_H

#include <stddef.h>
#include <stdint.h>

/* ---- Intercepts (APM2 15.9-15.14; Table B-1 0x000-0x017) -----------------
 *
 * The six 32-bit intercept words are numbered as one bit vector: an intercept
 * is word * 32 + bit, so "is X intercepted?" is one table-free bit test.
 */
enum svm_intercept_word {
	SVM_IW_CR = 0,             /* 0x000: 15:0 CRn reads, 31:16 CRn writes */
	SVM_IW_DR,                 /* 0x004: 15:0 DRn reads, 31:16 DRn writes */
	SVM_IW_EXCEPTION,          /* 0x008: bit n = exception vector n */
	SVM_IW_MISC1,              /* 0x00C */
	SVM_IW_MISC2,              /* 0x010 */
	SVM_IW_MISC3,              /* 0x014 */
	SVM_IW_COUNT,
};

enum svm_intercept {
	SVM_INTERCEPT_CR_READ = SVM_IW_CR * 32,        /* + n: read of CRn */
	SVM_INTERCEPT_CR_WRITE = SVM_IW_CR * 32 + 16,  /* + n: write of CRn */
	SVM_INTERCEPT_DR_READ = SVM_IW_DR * 32,        /* + n: read of DRn */
	SVM_INTERCEPT_DR_WRITE = SVM_IW_DR * 32 + 16,  /* + n: write of DRn */
	SVM_INTERCEPT_EXCEPTION = SVM_IW_EXCEPTION * 32, /* + vector */

	/* 0x00C: APM2 Table B-1, vector 3 */
	SVM_INTERCEPT_INTR = SVM_IW_MISC1 * 32,
	SVM_INTERCEPT_NMI,
	SVM_INTERCEPT_SMI,
	SVM_INTERCEPT_INIT,
	SVM_INTERCEPT_VINTR,
	SVM_INTERCEPT_CR0_SEL_WRITE,  /* CR0 writes that change bits other than TS and MP */
	SVM_INTERCEPT_IDTR_READ,
	SVM_INTERCEPT_GDTR_READ,
	SVM_INTERCEPT_LDTR_READ,
	SVM_INTERCEPT_TR_READ,
	SVM_INTERCEPT_IDTR_WRITE,
	SVM_INTERCEPT_GDTR_WRITE,
	SVM_INTERCEPT_LDTR_WRITE,
	SVM_INTERCEPT_TR_WRITE,
	SVM_INTERCEPT_RDTSC,
	SVM_INTERCEPT_RDPMC,
	SVM_INTERCEPT_PUSHF,
	SVM_INTERCEPT_POPF,
	SVM_INTERCEPT_CPUID,
	SVM_INTERCEPT_RSM,
	SVM_INTERCEPT_IRET,
	SVM_INTERCEPT_INTN,
	SVM_INTERCEPT_INVD,
	SVM_INTERCEPT_PAUSE,
	SVM_INTERCEPT_HLT,
	SVM_INTERCEPT_INVLPG,
	SVM_INTERCEPT_INVLPGA,
	SVM_INTERCEPT_IOIO_PROT,      /* consult the IOPM (APM2 15.10.1) */
	SVM_INTERCEPT_MSR_PROT,       /* consult the MSRPM (APM2 15.11) */
	SVM_INTERCEPT_TASK_SWITCH,
	SVM_INTERCEPT_FERR_FREEZE,
	SVM_INTERCEPT_SHUTDOWN,

	/* 0x010: vector 4 */
	SVM_INTERCEPT_VMRUN = SVM_IW_MISC2 * 32, /* must be 1 for VMRUN to succeed (APM2 15.5.1) */
	SVM_INTERCEPT_VMMCALL,
	SVM_INTERCEPT_VMLOAD,
	SVM_INTERCEPT_VMSAVE,
	SVM_INTERCEPT_STGI,
	SVM_INTERCEPT_CLGI,
	SVM_INTERCEPT_SKINIT,
	SVM_INTERCEPT_RDTSCP,
	SVM_INTERCEPT_ICEBP,
	SVM_INTERCEPT_WBINVD,         /* also WBNOINVD */
	SVM_INTERCEPT_MONITOR,        /* also MONITORX */
	SVM_INTERCEPT_MWAIT,          /* MWAIT/MWAITX, unconditionally */
	SVM_INTERCEPT_MWAIT_ARMED,    /* MWAIT/MWAITX, only if the monitor is armed */
	SVM_INTERCEPT_XSETBV,
	SVM_INTERCEPT_RDPRU,
	SVM_TRAP_EFER_WRITE,          /* trap (after the write) of EFER writes */
	SVM_TRAP_CR_WRITE,            /* + n: trap of CRn writes, n = 0..15 */

	/* 0x014: vector 5 */
	SVM_INTERCEPT_INVLPGB = SVM_IW_MISC3 * 32,
	SVM_INTERCEPT_INVLPGB_ILLEGAL,
	SVM_INTERCEPT_INVPCID,
	SVM_INTERCEPT_MCOMMIT,
	SVM_INTERCEPT_TLBSYNC,
	SVM_INTERCEPT_BUS_LOCK,
	SVM_INTERCEPT_IDLE_HLT,
};

_Static_assert(SVM_INTERCEPT_SHUTDOWN == SVM_IW_MISC1 * 32 + 31, "vector 3 has 32 bits");
_Static_assert(SVM_TRAP_EFER_WRITE == SVM_IW_MISC2 * 32 + 15, "APM2 Table B-1 0x010 bit 15");
_Static_assert(SVM_INTERCEPT_IDLE_HLT == SVM_IW_MISC3 * 32 + 6, "APM2 Table B-1 0x014 bit 6");

/* ---- Field encodings within the control area ---------------------------- */

/* TLB_CONTROL (0x05C), APM2 15.16 (TLB control). Other values are reserved:
 * VMRUN fails. */
enum svm_tlb_control {
	SVM_TLB_DO_NOTHING = 0,
	SVM_TLB_FLUSH_ALL = 1,            /* every ASID, every entry */
	SVM_TLB_FLUSH_ASID = 3,           /* this guest's ASID */
	SVM_TLB_FLUSH_ASID_NONGLOBAL = 7, /* this guest's ASID, non-global entries */
};

/* Virtual interrupt control (0x060), APM2 15.21. */
#define SVM_VINTR_TPR_MASK          0x0full               /* 3:0 V_TPR (7:4 reserved) */
#define SVM_VINTR_IRQ               (1ull << 8)           /* V_IRQ pending */
#define SVM_VINTR_GIF               (1ull << 9)           /* V_GIF value (virtual GIF) */
#define SVM_VINTR_NMI               (1ull << 11)          /* V_NMI pending */
#define SVM_VINTR_NMI_MASK          (1ull << 12)          /* V_NMI blocked */
#define SVM_VINTR_PRIO_SHIFT        16                    /* 19:16 V_INTR_PRIO */
#define SVM_VINTR_PRIO_MASK         (0xfull << 16)
#define SVM_VINTR_IGN_TPR           (1ull << 20)
#define SVM_VINTR_MASKING           (1ull << 24)          /* V_INTR_MASKING */
#define SVM_VINTR_GIF_ENABLE        (1ull << 25)
#define SVM_VINTR_NMI_ENABLE        (1ull << 26)
#define SVM_VINTR_X2AVIC_ENABLE     (1ull << 30)
#define SVM_VINTR_AVIC_ENABLE       (1ull << 31)
#define SVM_VINTR_VECTOR_SHIFT      32                    /* 39:32 V_INTR_VECTOR */
#define SVM_VINTR_VECTOR_MASK       (0xffull << 32)

/* Interrupt shadow word (0x068), APM2 15.21.5. */
#define SVM_INTERRUPT_SHADOW        (1ull << 0)   /* guest is in an STI/MOV SS shadow */
#define SVM_GUEST_INTERRUPT_MASK    (1ull << 1)   /* guest RFLAGS.IF (written on #VMEXIT) */

/* Nested paging / SEV enables (0x090), APM2 Table B-1, 15.25 (nested paging). */
#define SVM_NP_ENABLE               (1ull << 0)
#define SVM_SEV_ENABLE              (1ull << 1)
#define SVM_SEV_ES_ENABLE           (1ull << 2)
#define SVM_GMET_ENABLE             (1ull << 3)   /* guest-mode execute trap */
#define SVM_SSS_CHECK_ENABLE        (1ull << 4)   /* supervisor shadow stack check */
#define SVM_VTE_ENABLE              (1ull << 5)   /* virtual transparent encryption */
#define SVM_ROGPT_ENABLE            (1ull << 6)   /* read-only guest page tables */
#define SVM_INVLPGB_TLBSYNC_ENABLE  (1ull << 7)

/* Virtualization extensions (0x0B8): LBR virtualization (APM2 15.23),
 * VMSAVE/VMLOAD virtualization (15.33.1), IBS virtualization. */
#define SVM_LBR_VIRT_ENABLE         (1ull << 0)
#define SVM_VMSAVE_VMLOAD_VIRT      (1ull << 1)
#define SVM_IBS_VIRT_ENABLE         (1ull << 2)

/* EVENTINJ (0x0A8) and EXITINTINFO (0x088) share one format, APM2 15.20. */
#define SVM_EVENT_VECTOR_MASK       0xffull               /* 7:0 */
#define SVM_EVENT_TYPE_SHIFT        8                     /* 10:8, enum svm_event_type */
#define SVM_EVENT_TYPE_MASK         (7ull << 8)
#define SVM_EVENT_ERROR_VALID       (1ull << 11)          /* EV: push ERRORCODE */
#define SVM_EVENT_VALID             (1ull << 31)          /* V */
#define SVM_EVENT_ERROR_SHIFT       32                    /* 63:32 ERRORCODE */
#define SVM_EVENT_RESERVED          0x7ffff000ull         /* 30:12 must be zero */

enum svm_event_type {
	SVM_EVENT_INTR = 0,        /* external or virtual interrupt */
	SVM_EVENT_NMI = 2,
	SVM_EVENT_EXCEPTION = 3,   /* fault or trap */
	SVM_EVENT_SOFT_INT = 4,    /* INTn */
};

/* VMCB clean bits (0x0C0), APM2 15.15 (VMCB state caching): a set bit lets the CPU reuse its
 * cached copy of that group; software clears a bit after editing the group. */
enum svm_clean_bit {
	SVM_CLEAN_I = 0,           /* intercept vectors, TSC_OFFSET, pause filter */
	SVM_CLEAN_IOPM,            /* IOPM_BASE_PA, MSRPM_BASE_PA */
	SVM_CLEAN_ASID,
	SVM_CLEAN_TPR,             /* V_TPR .. V_INTR_VECTOR (0x060) */
	SVM_CLEAN_NP,              /* NP_ENABLE, N_CR3, G_PAT */
	SVM_CLEAN_CRX,             /* CR0, CR3, CR4, EFER */
	SVM_CLEAN_DRX,             /* DR6, DR7 */
	SVM_CLEAN_DT,              /* GDTR, IDTR */
	SVM_CLEAN_SEG,             /* ES/CS/SS/DS, CPL */
	SVM_CLEAN_CR2,
	SVM_CLEAN_LBR,             /* DBGCTL, BR_FROM/TO, LASTEXCP_FROM/TO */
	SVM_CLEAN_AVIC,            /* AVIC APIC_BAR, backing page, table pointers */
	SVM_CLEAN_CET,             /* S_CET, SSP, ISST_ADDR */
	SVM_CLEAN_COUNT,
};

/* Segment attribute word (vmcb_seg.attrib), APM2 15.5.1: descriptor bits
 * 47:40 and 55:52 packed together ("attrib = type|S|DPL|P|AVL|L|D/B|G"). */
#define SVM_SEG_ATTR_TYPE_MASK      0x000f
#define SVM_SEG_ATTR_S              (1u << 4)
#define SVM_SEG_ATTR_DPL_SHIFT      5
#define SVM_SEG_ATTR_DPL_MASK       (3u << 5)
#define SVM_SEG_ATTR_P              (1u << 7)
#define SVM_SEG_ATTR_AVL            (1u << 8)
#define SVM_SEG_ATTR_L              (1u << 9)
#define SVM_SEG_ATTR_DB             (1u << 10)
#define SVM_SEG_ATTR_G              (1u << 11)

/* ---- The control area, APM2 Table B-1 ---------------------------------- */

struct vmcb_control {
	uint32_t intercepts[SVM_IW_COUNT]; /* 0x000-0x017, enum svm_intercept */
	uint8_t reserved_018[0x24];
	uint16_t pause_filter_threshold;   /* 0x03C */
	uint16_t pause_filter_count;       /* 0x03E */
	uint64_t iopm_base_pa;             /* 0x040: 12 KB I/O permission map, bits 11:0 ignored */
	uint64_t msrpm_base_pa;            /* 0x048: 8 KB MSR permission map, bits 11:0 ignored */
	uint64_t tsc_offset;               /* 0x050: added to the TSC the guest reads */
	uint32_t guest_asid;               /* 0x058: 0 is the host's: VMRUN fails */
	uint8_t tlb_control;               /* 0x05C: enum svm_tlb_control */
	uint8_t reserved_05d[3];
	uint64_t vintr;                    /* 0x060: V_TPR, V_IRQ, ... V_INTR_VECTOR */
	uint64_t interrupt_shadow;         /* 0x068: SVM_INTERRUPT_SHADOW, GUEST_INTERRUPT_MASK */
	uint64_t exitcode;                 /* 0x070: enum svm_exit_code (svm/exit_codes.h) */
	uint64_t exitinfo1;                /* 0x078 */
	uint64_t exitinfo2;                /* 0x080 */
	uint64_t exitintinfo;              /* 0x088: event being delivered at #VMEXIT */
	uint64_t np_control;               /* 0x090: NP_ENABLE, SEV, SEV-ES, ... */
	uint64_t avic_apic_bar;            /* 0x098: 51:0 */
	uint64_t ghcb_pa;                  /* 0x0A0: guest physical address of the GHCB */
	uint64_t eventinj;                 /* 0x0A8: event to inject on VMRUN */
	uint64_t n_cr3;                    /* 0x0B0: nested page table root */
	uint64_t virt_ext;                 /* 0x0B8: LBR virtualization, VMSAVE/VMLOAD virt. */
	uint32_t clean;                    /* 0x0C0: enum svm_clean_bit */
	uint32_t reserved_0c4;
	uint64_t nrip;                     /* 0x0C8: next sequential RIP (NRIP_SAVE) */
	uint8_t insn_len;                  /* 0x0D0: bytes fetched (decode assists) */
	uint8_t insn_bytes[15];            /* 0x0D1-0x0DF: guest instruction bytes */
	uint64_t avic_backing_page;        /* 0x0E0: APIC backing page pointer, 51:12 */
	uint64_t reserved_0e8;
	uint64_t avic_logical_table;       /* 0x0F0: logical APIC ID table pointer, 51:12 */
	uint64_t avic_physical_table;      /* 0x0F8: 51:12 pointer, 7:0 max index */
	uint64_t reserved_100;
	uint64_t vmsa_pa;                  /* 0x108: SEV-ES VM save area pointer */
	uint8_t reserved_110[0x10];
	uint16_t bus_lock_counter;         /* 0x120: bus lock threshold counter */
	uint8_t reserved_122[0x16];
	uint64_t allowed_sev_features;     /* 0x138 */
	uint64_t guest_sev_features;       /* 0x140 */
	uint8_t reserved_148[0x3e0 - 0x148];
	uint8_t reserved_for_host[0x20];   /* 0x3E0-0x3FF: software use, never read by the CPU */
};

/* ---- The state-save area, APM2 Table B-2 ------------------------------- */

struct vmcb_seg {
	uint16_t selector;
	uint16_t attrib;                   /* SVM_SEG_ATTR_* */
	uint32_t limit;                    /* expanded (byte-granular) limit */
	uint64_t base;
};

struct vmcb_save {
	struct vmcb_seg es;                /* 0x000 */
	struct vmcb_seg cs;                /* 0x010 */
	struct vmcb_seg ss;                /* 0x020 */
	struct vmcb_seg ds;                /* 0x030 */
	struct vmcb_seg fs;                /* 0x040 */
	struct vmcb_seg gs;                /* 0x050 */
	struct vmcb_seg gdtr;              /* 0x060: only limit, base */
	struct vmcb_seg ldtr;              /* 0x070 */
	struct vmcb_seg idtr;              /* 0x080: only limit, base */
	struct vmcb_seg tr;                /* 0x090 */
	uint8_t reserved_0a0[0x2a];
	uint8_t vmpl;                      /* 0x0CA: SEV-SNP only */
	uint8_t cpl;                       /* 0x0CB: the CPL (not CS.DPL) */
	uint32_t reserved_0cc;
	uint64_t efer;                     /* 0x0D0 */
	uint8_t reserved_0d8[0x148 - 0x0d8];
	uint64_t cr4;                      /* 0x148 */
	uint64_t cr3;                      /* 0x150 */
	uint64_t cr0;                      /* 0x158 */
	uint64_t dr7;                      /* 0x160 */
	uint64_t dr6;                      /* 0x168 */
	uint64_t rflags;                   /* 0x170 */
	uint64_t rip;                      /* 0x178 */
	uint8_t reserved_180[0x1d8 - 0x180];
	uint64_t rsp;                      /* 0x1D8 */
	uint64_t s_cet;                    /* 0x1E0 */
	uint64_t ssp;                      /* 0x1E8 */
	uint64_t isst_addr;                /* 0x1F0 */
	uint64_t rax;                      /* 0x1F8 */
	uint64_t star;                     /* 0x200 */
	uint64_t lstar;                    /* 0x208 */
	uint64_t cstar;                    /* 0x210 */
	uint64_t sfmask;                   /* 0x218 */
	uint64_t kernel_gs_base;           /* 0x220 */
	uint64_t sysenter_cs;              /* 0x228 */
	uint64_t sysenter_esp;             /* 0x230 */
	uint64_t sysenter_eip;             /* 0x238 */
	uint64_t cr2;                      /* 0x240 */
	uint8_t reserved_248[0x268 - 0x248];
	uint64_t g_pat;                    /* 0x268: guest PAT, used only with nested paging */
	uint64_t dbgctl;                   /* 0x270: DebugCtl MSR (LBR virtualization) */
	uint64_t br_from;                  /* 0x278 */
	uint64_t br_to;                    /* 0x280 */
	uint64_t lastexcp_from;            /* 0x288 */
	uint64_t lastexcp_to;              /* 0x290 */
	uint8_t reserved_298[0x2e0 - 0x298];
	uint64_t spec_ctrl;                /* 0x2E0 */
	uint8_t reserved_2e8[0xc00 - 0x2e8];
};

struct vmcb {
	struct vmcb_control control;       /* 0x000 */
	struct vmcb_save save;             /* 0x400 */
};

/* Layout checks against APM2 Table B-1 (control area, VMCB offsets). */
#define VMCB_CHECK(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), "APM2 App. B: " #type "." #field)
VMCB_CHECK(vmcb_control, intercepts, 0x000);
VMCB_CHECK(vmcb_control, pause_filter_threshold, 0x03c);
VMCB_CHECK(vmcb_control, pause_filter_count, 0x03e);
VMCB_CHECK(vmcb_control, iopm_base_pa, 0x040);
VMCB_CHECK(vmcb_control, msrpm_base_pa, 0x048);
VMCB_CHECK(vmcb_control, tsc_offset, 0x050);
VMCB_CHECK(vmcb_control, guest_asid, 0x058);
VMCB_CHECK(vmcb_control, tlb_control, 0x05c);
VMCB_CHECK(vmcb_control, vintr, 0x060);
VMCB_CHECK(vmcb_control, interrupt_shadow, 0x068);
VMCB_CHECK(vmcb_control, exitcode, 0x070);
VMCB_CHECK(vmcb_control, exitinfo1, 0x078);
VMCB_CHECK(vmcb_control, exitinfo2, 0x080);
VMCB_CHECK(vmcb_control, exitintinfo, 0x088);
VMCB_CHECK(vmcb_control, np_control, 0x090);
VMCB_CHECK(vmcb_control, avic_apic_bar, 0x098);
VMCB_CHECK(vmcb_control, ghcb_pa, 0x0a0);
VMCB_CHECK(vmcb_control, eventinj, 0x0a8);
VMCB_CHECK(vmcb_control, n_cr3, 0x0b0);
VMCB_CHECK(vmcb_control, virt_ext, 0x0b8);
VMCB_CHECK(vmcb_control, clean, 0x0c0);
VMCB_CHECK(vmcb_control, nrip, 0x0c8);
VMCB_CHECK(vmcb_control, insn_len, 0x0d0);
VMCB_CHECK(vmcb_control, insn_bytes, 0x0d1);
VMCB_CHECK(vmcb_control, avic_backing_page, 0x0e0);
VMCB_CHECK(vmcb_control, avic_logical_table, 0x0f0);
VMCB_CHECK(vmcb_control, avic_physical_table, 0x0f8);
VMCB_CHECK(vmcb_control, vmsa_pa, 0x108);
VMCB_CHECK(vmcb_control, bus_lock_counter, 0x120);
VMCB_CHECK(vmcb_control, allowed_sev_features, 0x138);
VMCB_CHECK(vmcb_control, guest_sev_features, 0x140);
VMCB_CHECK(vmcb_control, reserved_for_host, 0x3e0);
_Static_assert(sizeof(struct vmcb_control) == 0x400, "APM2 Table B-1: control area is 1 KB");

/* Layout checks against APM2 Table B-2 (save-area offsets). */
_Static_assert(sizeof(struct vmcb_seg) == 16, "APM2 Table B-2: segment is 16 bytes");
VMCB_CHECK(vmcb_seg, attrib, 0x2);
VMCB_CHECK(vmcb_seg, limit, 0x4);
VMCB_CHECK(vmcb_seg, base, 0x8);
VMCB_CHECK(vmcb_save, es, 0x000);
VMCB_CHECK(vmcb_save, cs, 0x010);
VMCB_CHECK(vmcb_save, ss, 0x020);
VMCB_CHECK(vmcb_save, ds, 0x030);
VMCB_CHECK(vmcb_save, fs, 0x040);
VMCB_CHECK(vmcb_save, gs, 0x050);
VMCB_CHECK(vmcb_save, gdtr, 0x060);
VMCB_CHECK(vmcb_save, ldtr, 0x070);
VMCB_CHECK(vmcb_save, idtr, 0x080);
VMCB_CHECK(vmcb_save, tr, 0x090);
VMCB_CHECK(vmcb_save, vmpl, 0x0ca);
VMCB_CHECK(vmcb_save, cpl, 0x0cb);
VMCB_CHECK(vmcb_save, efer, 0x0d0);
VMCB_CHECK(vmcb_save, cr4, 0x148);
VMCB_CHECK(vmcb_save, cr3, 0x150);
VMCB_CHECK(vmcb_save, cr0, 0x158);
VMCB_CHECK(vmcb_save, dr7, 0x160);
VMCB_CHECK(vmcb_save, dr6, 0x168);
VMCB_CHECK(vmcb_save, rflags, 0x170);
VMCB_CHECK(vmcb_save, rip, 0x178);
VMCB_CHECK(vmcb_save, rsp, 0x1d8);
VMCB_CHECK(vmcb_save, s_cet, 0x1e0);
VMCB_CHECK(vmcb_save, ssp, 0x1e8);
VMCB_CHECK(vmcb_save, isst_addr, 0x1f0);
VMCB_CHECK(vmcb_save, rax, 0x1f8);
VMCB_CHECK(vmcb_save, star, 0x200);
VMCB_CHECK(vmcb_save, lstar, 0x208);
VMCB_CHECK(vmcb_save, cstar, 0x210);
VMCB_CHECK(vmcb_save, sfmask, 0x218);
VMCB_CHECK(vmcb_save, kernel_gs_base, 0x220);
VMCB_CHECK(vmcb_save, sysenter_cs, 0x228);
VMCB_CHECK(vmcb_save, sysenter_esp, 0x230);
VMCB_CHECK(vmcb_save, sysenter_eip, 0x238);
VMCB_CHECK(vmcb_save, cr2, 0x240);
VMCB_CHECK(vmcb_save, g_pat, 0x268);
VMCB_CHECK(vmcb_save, dbgctl, 0x270);
VMCB_CHECK(vmcb_save, br_from, 0x278);
VMCB_CHECK(vmcb_save, br_to, 0x280);
VMCB_CHECK(vmcb_save, lastexcp_from, 0x288);
VMCB_CHECK(vmcb_save, lastexcp_to, 0x290);
VMCB_CHECK(vmcb_save, spec_ctrl, 0x2e0);
VMCB_CHECK(vmcb, save, 0x400);
_Static_assert(sizeof(struct vmcb) == 4096, "APM2 15.5: the VMCB is one 4 KB page");
#undef VMCB_CHECK

/* Is intercept i set in the control area? (APM2 Table B-1) */
static inline int vmcb_intercepted(const struct vmcb_control *c, enum svm_intercept i)
{
	unsigned n = (unsigned)i;
	return n < SVM_IW_COUNT * 32 && ((c->intercepts[n / 32] >> (n % 32)) & 1u);
}

/* Set or clear intercept i. Out-of-range i is ignored. */
static inline void vmcb_set_intercept(struct vmcb_control *c, enum svm_intercept i, int on)
{
	unsigned n = (unsigned)i;
	if (n >= SVM_IW_COUNT * 32)
		return;
	if (on)
		c->intercepts[n / 32] |= 1u << (n % 32);
	else
		c->intercepts[n / 32] &= ~(1u << (n % 32));
}

#endif
