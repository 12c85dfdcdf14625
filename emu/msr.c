/* Model-specific registers: RDMSR and WRMSR (SDM Vol.2 RDMSR/WRMSR; MSR layouts
 * SDM Vol.4 Table 2-2, APM2 Appendix A).
 *
 * The MSR set is a table: index, whether the CPU has it (by vendor and CPUID
 * feature, so one table serves every model), and read/write functions that
 * check the value (#GP(0) on reserved bits) before storing it. Model-specific
 * values (IA32_MISC_ENABLE's bits, the VMX capability MSRs) are data in the
 * model (emu/cpu_models.c).
 */
#include "emu/debug.h"
#include "emu/amd_cfg_msrs.h"
#include "emu/apic.h"
#include "emu/canonical.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "emu/hv.h"
#include "emu/mtrr.h"
#include "emu/operand.h"
#include "emu/quirks.h"
#include "mmu/x86_vmx.h"
#include "isa_handlers.h"

/* ---- which MSRs a CPU has ----
 * By its model's vendor and by what its CPUID reports (cpu_has(): VMX and SVM
 * only while the hypervisor extension is available, emu/cpu_model.h), as SDM
 * Vol.4 Table 2-2 and APM2 Appendix A make each MSR depend on a CPUID bit. */

static inline bool feat(const struct cpu *cpu, uint32_t leaf, unsigned reg, unsigned bit)
{
	return cpu_has(cpu, leaf, reg, bit);
}
static inline unsigned family(const struct cpu *cpu)
{
	return cpu->model ? (cpu->model->signature >> 8) & 0xf : 0;
}

static bool has_tsc(const struct cpu *cpu) { return feat(cpu, 1, CPUID_EDX, FEATURE_BIT_tsc); }
/* IA32_APIC_BASE is architectural from the P6 family on (SDM Vol.4 Table 2-2),
 * also when the APIC itself is not reported. */
static bool has_apic_base(const struct cpu *cpu) { return family(cpu) >= 6 || cpu_is_amd(cpu); }
static bool has_sep(const struct cpu *cpu) { return feat(cpu, 1, CPUID_EDX, FEATURE_BIT_sep); }
static bool has_pat(const struct cpu *cpu) { return feat(cpu, 1, CPUID_EDX, FEATURE_BIT_pat); }
/* IA32_MISC_ENABLE: the models that list its bits (the family-6 Intel ones,
 * SDM Vol.4 Table 2-2, 1A0H). */
static bool has_misc_enable(const struct cpu *cpu)
{
	return cpu->model && cpu->model->misc_enable.writable != 0;
}
static bool has_vmx(const struct cpu *cpu) { return cpu_is_intel(cpu) && feat(cpu, 1, CPUID_ECX, FEATURE_BIT_vmx); }
static bool has_smx(const struct cpu *cpu) { return cpu_is_intel(cpu) && feat(cpu, 1, CPUID_ECX, FEATURE_BIT_smx); }
/* IA32_FEATURE_CONTROL: "If any one enumeration condition for defined bit field
 * holds": VMX or SMX (SDM Vol.4 Table 2-2, 3AH). Intel only. */
static bool has_feature_control(const struct cpu *cpu) { return has_vmx(cpu) || has_smx(cpu); }
static bool has_syscall(const struct cpu *cpu) { return feat(cpu, 0x80000001, CPUID_EDX, FEATURE_BIT_syscall); }
static bool has_nx(const struct cpu *cpu) { return feat(cpu, 0x80000001, CPUID_EDX, FEATURE_BIT_nx); }
static bool has_lm(const struct cpu *cpu) { return feat(cpu, 0x80000001, CPUID_EDX, FEATURE_BIT_lm); }
static bool has_rdtscp(const struct cpu *cpu) { return feat(cpu, 0x80000001, CPUID_EDX, FEATURE_BIT_rdtscp); }
static bool has_svm(const struct cpu *cpu) { return cpu_is_amd(cpu) && feat(cpu, 0x80000001, CPUID_ECX, FEATURE_BIT_svm); }
/* IA32_EFER: Intel "If CPUID.80000001H:EDX.[20] || CPUID.80000001H:EDX.[29]"
 * (SDM Vol.4 Table 2-2); AMD: whenever one of its bits is implemented (APM2 3.1.7). */
static bool has_efer(const struct cpu *cpu)
{
	return has_nx(cpu) || has_lm(cpu) || (cpu_is_amd(cpu) && (has_syscall(cpu) || has_svm(cpu)));
}

/* The MAXPHYADDR of the model (SDM Vol.3 4.1.4): CPUID.80000008H:EAX[7:0] if
 * present, else 36 with PAE/PSE-36, else 32. */
static unsigned maxphyaddr(const struct cpu_model *m)
{
	uint32_t out[4];

	if (m) {
		cpu_model_cpuid(m, 0x80000000, 0, out);
		if (out[0] >= 0x80000008 && out[0] <= 0x8000ffff) {
			cpu_model_cpuid(m, 0x80000008, 0, out);
			if (out[0] & 0xff)
				return out[0] & 0xff;
		}
	}
	return (cpu_model_has(m, 1, CPUID_EDX, FEATURE_BIT_pae) ||
		cpu_model_has(m, 1, CPUID_EDX, FEATURE_BIT_pse36)) ? 36 : 32;
}

static inline uint64_t phys_mask(const struct cpu_model *m)
{
	return (1ull << maxphyaddr(m)) - 1;
}

/* ---- the registers ---- */

/* Each writer returns false for a value the MSR rejects (#GP(0)). */
struct msr_def {
	uint32_t index;
	const char *name;
	bool (*exists)(const struct cpu *cpu);
	uint64_t (*read)(struct cpu *cpu);
	bool (*write)(struct cpu *cpu, uint64_t v);
};

/* IA32_TIME_STAMP_COUNTER (SDM Vol.3 17.17): writing sets the counter, which
 * hvemu keeps as an offset from the retired-instruction count. */
static uint64_t tsc_read(struct cpu *cpu) { return cpu_now(cpu) + cpu->tsc_offset; }
static bool tsc_write(struct cpu *cpu, uint64_t v)
{
	cpu->tsc_offset = v - cpu_now(cpu);
	cpu_apic_tsc_changed(cpu);
	return true;
}

/* IA32_APIC_BASE (SDM Vol.3 10.4.4, Figure 10-5): bit 8 BSP (read-only), bit 10
 * x2APIC enable (reserved without x2APIC), bit 11 global enable, bits 12 to
 * MAXPHYADDR-1 the base; everything else reserved. The mode transitions and
 * the local APIC are emu/apic.c's. */
static uint64_t apic_base_read(struct cpu *cpu) { return cpu->apic_base; }
static bool apic_base_write(struct cpu *cpu, uint64_t v) { return cpu_apic_base_write(cpu, v); }

/* IA32_TSC_DEADLINE (SDM Vol.3 10.5.4.1): with an APIC in TSC-deadline mode. */
static bool has_tsc_deadline(const struct cpu *cpu) { return cpu_has_tsc_deadline(cpu); }
static uint64_t tsc_deadline_read(struct cpu *cpu) { return cpu_tsc_deadline_read(cpu); }
static bool tsc_deadline_write(struct cpu *cpu, uint64_t v)
{
	cpu_tsc_deadline_write(cpu, v);
	return true;
}

/* IA32_SYSENTER_CS/ESP/EIP (SDM Vol.3 5.8.7): on processors without Intel 64 only
 * bits 31:0 exist; with long mode ESP/EIP must be canonical (to the processor's
 * linear-address width, emu/canonical.h addr_canonical_reg()). */
static uint64_t sysenter_cs_read(struct cpu *cpu) { return cpu->sysenter_cs; }
static bool sysenter_cs_write(struct cpu *cpu, uint64_t v)
{
	cpu->sysenter_cs = has_lm(cpu) ? v : (uint32_t)v;
	return true;
}
static bool sysenter_addr_write(struct cpu *cpu, uint64_t v, uint64_t *dst)
{
	if (has_lm(cpu)) {
		if (!addr_canonical_reg(cpu, v))
			return false;
		*dst = v;
	} else {
		*dst = (uint32_t)v;
	}
	return true;
}
static uint64_t sysenter_esp_read(struct cpu *cpu) { return cpu->sysenter_esp; }
static bool sysenter_esp_write(struct cpu *cpu, uint64_t v)
{
	return sysenter_addr_write(cpu, v, &cpu->sysenter_esp);
}
static uint64_t sysenter_eip_read(struct cpu *cpu) { return cpu->sysenter_eip; }
static bool sysenter_eip_write(struct cpu *cpu, uint64_t v)
{
	return sysenter_addr_write(cpu, v, &cpu->sysenter_eip);
}

/* IA32_PAT (SDM Vol.3 13.12.2): eight 3-bit memory types in bytes 0-7; types 2
 * and 3 and bits 7:3 of each byte are reserved: "#GP(0) if an attempt is made to
 * write an undefined memory type encoding". */
static uint64_t pat_read(struct cpu *cpu) { return cpu->pat; }
static bool pat_write(struct cpu *cpu, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++) {
		unsigned t = (v >> (i * 8)) & 0xff;
		if (t > 7 || t == 2 || t == 3)
			return false;
	}
	cpu->pat = v;
	return true;
}

/* IA32_MISC_ENABLE (SDM Vol.4 Table 2-2): the model's reset value and writable
 * bits (emu/cpu_models.c); bits outside them that are 1 after reset are
 * read-only (a write leaves them), the others reserved. Bit 34 (XD bit
 * disable) exists only with NX, bit 22 (limit CPUID maxval) only where
 * CPUID.0:EAX is above 2 ("BIOS must ... examine the maximum value"); "R/WO"
 * bits stay 1 once written 1. cpu_init() loads the reset value. */
static uint64_t misc_enable_read(struct cpu *cpu) { return cpu->misc_enable; }
static bool misc_enable_write(struct cpu *cpu, uint64_t v)
{
	const struct model_msr_bits *bits = &cpu->model->misc_enable;
	uint64_t writable = bits->writable;
	uint32_t r[4];

	if (!cpu_model_has(cpu->model, 0x80000001, 3, 20))
		writable &= ~MISC_ENABLE_XD_DISABLE;
	cpu_model_cpuid(cpu->model, 0, 0, r);
	if (r[0] <= 2)
		writable &= ~MISC_ENABLE_LIMIT_CPUID;
	uint64_t read_only = bits->reset & ~writable;
	if (v & ~(writable | read_only))
		return false;
	cpu->misc_enable = (v & writable) | (cpu->misc_enable & bits->write_once) | read_only;
	return true;
}

/* ---- machine-check architecture (SDM Vol.3 15.3; APM2 9.3) ----
 * With CPUID.1:EDX.MCA: IA32_MCG_CAP (the model's, read-only), IA32_MCG_STATUS
 * (RIPV, EIPV, MCIP; bits 63:3 reserved), IA32_MCG_CTL when MCG_CAP.MCG_CTL_P
 * (all 1s or all 0s, 15.3.1.3: other values are undefined, #GP(0) as KVM), and
 * per bank i < MCG_CAP[7:0] the four MSRs at 400H + 4i (15.3.2):
 *   MCi_CTL    all 1s or all 0s ("P6 family processors only allow the writing
 *              of all 1s or all 0s", 15.3.2.1; the same on AMD as KVM has it);
 *   MCi_STATUS only 0 ("software is responsible for clearing ... by explicitly
 *              writing 0s", 15.3.2.2; a non-zero write is #GP(0)), or on AMD
 *              any value while HWCR.McStatusWrEn = 1 (PPR MSRC001_0015:
 *              then non-zero writes do not fault);
 *   MCi_ADDR, MCi_MISC  any value (no error ever fills them).
 * A bank beyond the count does not exist (#GP(0)). hvemu signals no machine
 * checks: the registers only hold what software wrote. */
#define MSR_MCG_CAP    0x179u
#define MSR_MCG_STATUS 0x17au
#define MSR_MCG_CTL    0x17bu
#define MSR_MC0_CTL    0x400u
#define MCG_CTL_P      (1ull << 8)
#define MCG_STATUS_BITS 0x7ull        /* RIPV, EIPV, MCIP */

static bool has_mca(const struct cpu *cpu) { return feat(cpu, 1, CPUID_EDX, FEATURE_BIT_mca); }
static bool has_mcg_ctl(const struct cpu *cpu)
{
	return has_mca(cpu) && (cpu->model->mcg_cap & MCG_CTL_P);
}
static uint64_t mcg_cap_read(struct cpu *cpu) { return cpu->model->mcg_cap; }
static uint64_t mcg_status_read(struct cpu *cpu) { return cpu->mcg_status; }
static bool mcg_status_write(struct cpu *cpu, uint64_t v)
{
	if (v & ~MCG_STATUS_BITS)
		return false;
	cpu->mcg_status = v;
	return true;
}
static uint64_t mcg_ctl_read(struct cpu *cpu) { return cpu->mcg_ctl; }
static bool all_or_nothing(uint64_t v) { return v == 0 || v == ~0ull; }
static bool mcg_ctl_write(struct cpu *cpu, uint64_t v)
{
	if (!all_or_nothing(v))
		return false;
	cpu->mcg_ctl = v;
	return true;
}

/* The bank register RDMSR/WRMSR names: ECX - 400H = 4 * bank + register. */
static unsigned mc_offset(const struct cpu *cpu) { return (uint32_t)cpu->regs[R_CX] - MSR_MC0_CTL; }
static bool has_mc_bank(const struct cpu *cpu)
{
	return has_mca(cpu) && mc_offset(cpu) / 4 < (cpu->model->mcg_cap & 0xff);
}
static uint64_t mc_bank_read(struct cpu *cpu)
{
	unsigned o = mc_offset(cpu);
	return cpu->mc_bank[o / 4][o % 4];
}
static bool mc_bank_write(struct cpu *cpu, uint64_t v)
{
	unsigned o = mc_offset(cpu);
	bool status_writable = amd_cfg_value(cpu, MSR_AMD_HWCR) & HWCR_MC_STATUS_WR_EN;
	if (o % 4 == 1 && v != 0 && !status_writable && cpu_quirk(cpu, QK_QEMU_MC_STATUS_WRITE_IGNORED))
		return true;
	if ((o % 4 == 0 && !all_or_nothing(v)) || (o % 4 == 1 && v != 0 && !status_writable))
		return false;
	cpu->mc_bank[o / 4][o % 4] = v;
	return true;
}

/* IA32_FEATURE_CONTROL (SDM Vol.3 23.7): bit 0 lock; bit 1 VMX inside SMX (SMX
 * and VMX), bit 2 VMX outside SMX (VMX only; both reserved while the CPU does not
 * report VMX). "WRMSR to this MSR will cause a #GP once the lock bit is set." */
static uint64_t feature_control_read(struct cpu *cpu) { return cpu->feature_control; }
static bool feature_control_write(struct cpu *cpu, uint64_t v)
{
	uint64_t writable = FEATURE_CONTROL_LOCK;
	if (has_smx(cpu) && has_vmx(cpu))
		writable |= FEATURE_CONTROL_VMX_IN_SMX;
	if (has_vmx(cpu))
		writable |= FEATURE_CONTROL_VMX_NO_SMX;
	if ((cpu->feature_control & FEATURE_CONTROL_LOCK) || (v & ~writable))
		return false;
	cpu->feature_control = v;
	return true;
}

/* IA32_EFER (SDM Vol.3 2.2.1, APM2 3.1.7): SCE with SYSCALL, LME with long mode,
 * NXE with NX, SVME with SVM (while the CPU reports it); LMA is read-only (written by the processor when
 * paging is enabled with LME=1), writes to it are ignored. LME cannot change
 * while paging is on (SDM Vol.3 9.8.5, APM2 14.6.1). SVME cannot be set while
 * VM_CR.SVMDIS = 1 (APM2 15.4). A change of NXE changes translations. */
static uint64_t efer_writable(const struct cpu *cpu)
{
	uint64_t writable = 0;

	if (has_syscall(cpu))
		writable |= EFER_SCE;
	if (has_lm(cpu))
		writable |= EFER_LME;
	if (has_nx(cpu))
		writable |= EFER_NXE;
	if (has_svm(cpu))
		writable |= EFER_SVME;
	return writable;
}

uint64_t cpu_efer_valid_bits(const struct cpu *cpu)
{
	return efer_writable(cpu) | (has_lm(cpu) ? EFER_LMA : 0);
}

static uint64_t efer_read(struct cpu *cpu) { return cpu->efer; }
static bool efer_write(struct cpu *cpu, uint64_t v)
{
	uint64_t writable = efer_writable(cpu);

	if (v & ~(writable | EFER_LMA))
		return false;
	if (((v ^ cpu->efer) & EFER_LME) && (cpu->cr0 & CR0_PG) &&
	    !cpu_quirk(cpu, QK_QEMU_EFER_LME_UNCHECKED))
		return false;
	if ((v & EFER_SVME) && !(cpu->efer & EFER_SVME) && (cpu->vm_cr & VM_CR_SVMDIS))
		return false;
	uint64_t nv = (v & writable) | (cpu->efer & EFER_LMA);
	if ((nv ^ cpu->efer) & EFER_NXE)
		tlb_flush_space(&cpu->tlb, cpu->tlb.space, false);
	cpu->efer = nv;
	return true;
}

/* STAR (SYSCALL) and the long-mode MSRs (SDM Vol.4 Table 2-2 C000_0081H-
 * C000_0103H; APM2 6.1.1). Addresses must be canonical (addr_canonical_reg():
 * 57 bits on an LA57 processor whatever CR4.LA57 is); SFMASK and TSC_AUX have
 * bits 63:32 reserved. */
static uint64_t star_read(struct cpu *cpu) { return cpu->star; }
static bool star_write(struct cpu *cpu, uint64_t v) { cpu->star = v; return true; }
static bool canonical_store(const struct cpu *cpu, uint64_t v, uint64_t *dst)
{
	if (!addr_canonical_reg(cpu, v))
		return false;
	*dst = v;
	return true;
}
static uint64_t lstar_read(struct cpu *cpu) { return cpu->lstar; }
static bool lstar_write(struct cpu *cpu, uint64_t v) { return canonical_store(cpu, v, &cpu->lstar); }
static uint64_t cstar_read(struct cpu *cpu) { return cpu->cstar; }
static bool cstar_write(struct cpu *cpu, uint64_t v) { return canonical_store(cpu, v, &cpu->cstar); }
static uint64_t sfmask_read(struct cpu *cpu) { return cpu->sfmask; }
static bool sfmask_write(struct cpu *cpu, uint64_t v)
{
	if (v >> 32)
		return false;
	cpu->sfmask = v;
	return true;
}
static uint64_t fs_base_read(struct cpu *cpu) { return cpu->seg[SR_FS].base; }
static bool fs_base_write(struct cpu *cpu, uint64_t v)
{
	return canonical_store(cpu, v, &cpu->seg[SR_FS].base);
}
static uint64_t gs_base_read(struct cpu *cpu) { return cpu->seg[SR_GS].base; }
static bool gs_base_write(struct cpu *cpu, uint64_t v)
{
	return canonical_store(cpu, v, &cpu->seg[SR_GS].base);
}
static uint64_t kgs_base_read(struct cpu *cpu) { return cpu->kernel_gs_base; }
static bool kgs_base_write(struct cpu *cpu, uint64_t v)
{
	return canonical_store(cpu, v, &cpu->kernel_gs_base);
}
static uint64_t tsc_aux_read(struct cpu *cpu) { return cpu->tsc_aux; }
static bool tsc_aux_write(struct cpu *cpu, uint64_t v)
{
	if (v >> 32)
		return false;
	cpu->tsc_aux = v;
	return true;
}

/* VM_CR (APM2 15.30.1; the bits in mmu/x86.h): bits 63:5 reserved. "When
 * [LOCK] is set, writes to LOCK and SVMDIS are silently
 * ignored" (it is cleared only through SVM_KEY, not modelled). */
static uint64_t vm_cr_read(struct cpu *cpu) { return cpu->vm_cr; }
static bool vm_cr_write(struct cpu *cpu, uint64_t v)
{
	if (v & ~VM_CR_DEFINED)
		return false;
	if (cpu->vm_cr & VM_CR_LOCK)
		v = (v & ~(VM_CR_LOCK | VM_CR_SVMDIS)) | (cpu->vm_cr & (VM_CR_LOCK | VM_CR_SVMDIS));
	/* APM2 15.30.1: setting SVMDIS while EFER.SVME = 1 is #GP(0). */
	if ((v & VM_CR_SVMDIS) && !(cpu->vm_cr & VM_CR_SVMDIS) && (cpu->efer & EFER_SVME))
		return false;
	cpu->vm_cr = v;
	return true;
}

/* VM_HSAVE_PA (APM2 15.30.4): the host save area, 4 KiB aligned, below
 * MAXPHYADDR; other values are #GP. */
static uint64_t vm_hsave_read(struct cpu *cpu) { return cpu->vm_hsave_pa; }
static bool vm_hsave_write(struct cpu *cpu, uint64_t v)
{
	if ((v & 0xfff) || (v & ~phys_mask(cpu->model)))
		return false;
	cpu->vm_hsave_pa = v;
	return true;
}

/* ---- the MSRs an OS kernel reads at boot ----
 * Linux's microcode loader reads the platform ID and the microcode revision on
 * every Intel family-6 part, and AMD's patch level; its perf code probes AMD's
 * four legacy performance counters. Each exists on the real part a model
 * imitates; hvemu gives the values of a part with no microcode update loaded. */
#define MSR_PLATFORM_ID  0x17u         /* Intel IA32_PLATFORM_ID */
#define MSR_BIOS_SIGN_ID 0x8bu         /* Intel IA32_BIOS_SIGN_ID, AMD PATCH_LEVEL */
#define MSR_PERF_EVTSEL0 0xc0010000u   /* AMD PerfEvtSel0-3 */
#define MSR_PERF_CTR0    0xc0010004u   /* AMD PerfCtr0-3 */

static bool is_intel_p6(const struct cpu *cpu) { return cpu_is_intel(cpu) && family(cpu) >= 6; }

/* IA32_PLATFORM_ID (SDM Vol.4 Table 2-2, 17H, "06_01H"; read-only): bits 52:50
 * the platform the processor is for, which selects the microcode update that
 * fits it (SDM Vol.3 10.11.2); 0 on hvemu's models. */
static uint64_t platform_id_read(struct cpu *cpu)
{
	(void)cpu;
	return 0;
}
static bool read_only_write(struct cpu *cpu, uint64_t v)
{
	(void)cpu;
	(void)v;
	return false;
}

/* IA32_BIOS_SIGN_ID (SDM Vol.4 Table 2-2, 8BH, "06_01H"): bits 63:32 hold the
 * signature of the loaded microcode update after CPUID.01H; software writes 0
 * first, then executes CPUID, then reads (SDM Vol.3 10.11.7.1). The model's
 * revision is the update its firmware loaded (emu/cpu_models.c): kernels
 * compare it with their errata tables (Linux's TSC-deadline one). hvemu loads
 * no update itself, and the revision is in place whether or not CPUID ran
 * since the write of 0, which the write therefore leaves. */
static uint64_t bios_sign_id_read(struct cpu *cpu)
{
	return (uint64_t)cpu->model->microcode_rev << 32;
}
static bool bios_sign_id_write(struct cpu *cpu, uint64_t v)
{
	(void)cpu;
	(void)v;
	return true;
}

/* AMD MSR0000_008B PATCH_LEVEL (BKDG for family 10h, 31116, and PPR for family
 * 17h, read-only): the loaded microcode patch, the model's revision (0 for
 * none). */
static uint64_t patch_level_read(struct cpu *cpu)
{
	return cpu->model->microcode_rev;
}

/* AMD PerfEvtSel0-3 (APM2 13.2.1, Figure 13-7): event select 7:0 and 35:32,
 * unit mask, USR, OS, edge, INT, EN, INV, counter mask, GuestOnly (40) and
 * HostOnly (41); bits 19, 21, 39:36 and 63:42 are reserved (#GP on a 1). Present
 * on every AMD64 part, with no CPUID bit. hvemu models no performance events:
 * an enabled counter does not advance (its value stays what software wrote). */
#define PERF_EVTSEL_RESERVED 0xfffffcf000280000ull
static unsigned perf_index(const struct cpu *cpu)
{
	return (uint32_t)cpu->regs[R_CX] & 3;    /* the MSR the instruction names */
}
static uint64_t perf_sel_read(struct cpu *cpu) { return cpu->amd_perf_sel[perf_index(cpu)]; }
static bool perf_sel_write(struct cpu *cpu, uint64_t v)
{
	if (v & PERF_EVTSEL_RESERVED)
		return false;
	cpu->amd_perf_sel[perf_index(cpu)] = v;
	return true;
}

/* AMD PerfCtr0-3 (APM2 13.2.1): 48-bit counters; bits 63:48 read as 0 and
 * writes to them are dropped (as the counters' width gives them). */
#define PERF_CTR_MASK ((1ull << 48) - 1)
static uint64_t perf_ctr_read(struct cpu *cpu) { return cpu->amd_perf_ctr[perf_index(cpu)]; }
static bool perf_ctr_write(struct cpu *cpu, uint64_t v)
{
	cpu->amd_perf_ctr[perf_index(cpu)] = v & PERF_CTR_MASK;
	return true;
}

/* DebugCtl (SDM Vol.4 Table 2-2 1D9H "06_01H"; APM2 13.1.1.6): on the P6
 * family and every AMD64 part; reserved bits #GP (emu/debug.h). The four
 * records (1DBH-1DEH) are read-only. */
#define MSR_DEBUGCTL          0x1d9u
#define MSR_LAST_BRANCH_FROM  0x1dbu
#define MSR_LAST_BRANCH_TO    0x1dcu
#define MSR_LAST_EXCEPT_FROM  0x1ddu
#define MSR_LAST_EXCEPT_TO    0x1deu
static bool has_debugctl(const struct cpu *cpu) { return family(cpu) >= 6 || cpu_is_amd(cpu); }
static uint64_t debugctl_read(struct cpu *cpu) { return cpu->debugctl; }
static bool debugctl_write(struct cpu *cpu, uint64_t v)
{
	if (v & ~debugctl_writable(cpu))
		return false;
	cpu->debugctl = v;
	cpu_attend(cpu, ATT_EVENT);    /* LBR: the loop now runs one instruction at a time */
	return true;
}
static uint64_t lbr_from_read(struct cpu *cpu) { return cpu->last_branch_from; }
static uint64_t lbr_to_read(struct cpu *cpu) { return cpu->last_branch_to; }
static uint64_t lex_from_read(struct cpu *cpu) { return cpu->last_exception_from; }
static uint64_t lex_to_read(struct cpu *cpu) { return cpu->last_exception_to; }

static const struct msr_def msrs[] = {
	{ MSR_TSC,              "IA32_TIME_STAMP_COUNTER", has_tsc, tsc_read, tsc_write },
	{ MSR_APIC_BASE,        "IA32_APIC_BASE", has_apic_base, apic_base_read, apic_base_write },
	{ MSR_FEATURE_CONTROL,  "IA32_FEATURE_CONTROL", has_feature_control,
	  feature_control_read, feature_control_write },
	{ MSR_SYSENTER_CS,      "IA32_SYSENTER_CS", has_sep, sysenter_cs_read, sysenter_cs_write },
	{ MSR_SYSENTER_ESP,     "IA32_SYSENTER_ESP", has_sep, sysenter_esp_read, sysenter_esp_write },
	{ MSR_SYSENTER_EIP,     "IA32_SYSENTER_EIP", has_sep, sysenter_eip_read, sysenter_eip_write },
	{ MSR_MISC_ENABLE,      "IA32_MISC_ENABLE", has_misc_enable, misc_enable_read,
	  misc_enable_write },
	{ MSR_MCG_CAP,          "IA32_MCG_CAP", has_mca, mcg_cap_read, read_only_write },
	{ MSR_MCG_STATUS,       "IA32_MCG_STATUS", has_mca, mcg_status_read, mcg_status_write },
	{ MSR_MCG_CTL,          "IA32_MCG_CTL", has_mcg_ctl, mcg_ctl_read, mcg_ctl_write },
	{ MSR_PAT,              "IA32_PAT", has_pat, pat_read, pat_write },
	{ MSR_TSC_DEADLINE,     "IA32_TSC_DEADLINE", has_tsc_deadline, tsc_deadline_read,
	  tsc_deadline_write },
	{ MSR_EFER,             "IA32_EFER", has_efer, efer_read, efer_write },
	{ MSR_STAR,             "IA32_STAR", has_syscall, star_read, star_write },
	{ MSR_LSTAR,            "IA32_LSTAR", has_lm, lstar_read, lstar_write },
	{ MSR_CSTAR,            "IA32_CSTAR", has_lm, cstar_read, cstar_write },
	{ MSR_SFMASK,           "IA32_FMASK", has_lm, sfmask_read, sfmask_write },
	{ MSR_FS_BASE,          "IA32_FS_BASE", has_lm, fs_base_read, fs_base_write },
	{ MSR_GS_BASE,          "IA32_GS_BASE", has_lm, gs_base_read, gs_base_write },
	{ MSR_KERNEL_GS_BASE,   "IA32_KERNEL_GS_BASE", has_lm, kgs_base_read, kgs_base_write },
	{ MSR_TSC_AUX,          "IA32_TSC_AUX", has_rdtscp, tsc_aux_read, tsc_aux_write },
	{ MSR_VM_CR,            "VM_CR", has_svm, vm_cr_read, vm_cr_write },
	{ MSR_VM_HSAVE_PA,      "VM_HSAVE_PA", has_svm, vm_hsave_read, vm_hsave_write },
	{ MSR_PLATFORM_ID,      "IA32_PLATFORM_ID", is_intel_p6, platform_id_read, read_only_write },
	{ MSR_BIOS_SIGN_ID,     "IA32_BIOS_SIGN_ID", is_intel_p6, bios_sign_id_read, bios_sign_id_write },
	{ MSR_BIOS_SIGN_ID,     "PATCH_LEVEL", cpu_is_amd, patch_level_read, read_only_write },
	{ MSR_PERF_EVTSEL0,     "PerfEvtSel0", cpu_is_amd, perf_sel_read, perf_sel_write },
	{ MSR_PERF_EVTSEL0 + 1, "PerfEvtSel1", cpu_is_amd, perf_sel_read, perf_sel_write },
	{ MSR_PERF_EVTSEL0 + 2, "PerfEvtSel2", cpu_is_amd, perf_sel_read, perf_sel_write },
	{ MSR_PERF_EVTSEL0 + 3, "PerfEvtSel3", cpu_is_amd, perf_sel_read, perf_sel_write },
	{ MSR_PERF_CTR0,        "PerfCtr0", cpu_is_amd, perf_ctr_read, perf_ctr_write },
	{ MSR_PERF_CTR0 + 1,    "PerfCtr1", cpu_is_amd, perf_ctr_read, perf_ctr_write },
	{ MSR_PERF_CTR0 + 2,    "PerfCtr2", cpu_is_amd, perf_ctr_read, perf_ctr_write },
	{ MSR_PERF_CTR0 + 3,    "PerfCtr3", cpu_is_amd, perf_ctr_read, perf_ctr_write },
	{ MSR_DEBUGCTL,         "DebugCtl", has_debugctl, debugctl_read, debugctl_write },
	{ MSR_LAST_BRANCH_FROM, "LastBranchFromIP", has_debugctl, lbr_from_read, read_only_write },
	{ MSR_LAST_BRANCH_TO,   "LastBranchToIP", has_debugctl, lbr_to_read, read_only_write },
	{ MSR_LAST_EXCEPT_FROM, "LastExceptionFromIP", has_debugctl, lex_from_read, read_only_write },
	{ MSR_LAST_EXCEPT_TO,   "LastExceptionToIP", has_debugctl, lex_to_read, read_only_write },
	/* Last: the table is searched in order, and the MTRRs are set once at boot. */
#define MTRR_ROW(index, name) { index, name, mtrr_exists, mtrr_read, mtrr_write },
	MTRR_MSRS(MTRR_ROW)           /* emu/mtrr.c */
#undef MTRR_ROW
};

/* The machine-check banks: one row for the whole range, the register picked
 * by the index (mc_offset). */
static const struct msr_def mc_banks =
	{ MSR_MC0_CTL, "IA32_MCi_CTL/STATUS/ADDR/MISC", has_mc_bank, mc_bank_read, mc_bank_write };

/* AMD's configuration MSRs: the model's rows (emu/amd_cfg_msrs.c), the
 * register picked by the index. */
static const struct msr_def amd_cfg =
	{ 0, "AMD configuration MSR", amd_cfg_exists, amd_cfg_read, amd_cfg_write };

/* The row for index that this CPU has (an index may have one row per vendor). */
static const struct msr_def *find_msr(const struct cpu *cpu, uint32_t index)
{
	/* 400H-47FH: 32 banks at most before the VMX MSRs (SDM Vol.4 Table 2-2). */
	if (index >= MSR_MC0_CTL && index < MSR_MC0_CTL + 4 * MC_BANKS_MAX)
		return mc_banks.exists(cpu) ? &mc_banks : NULL;
	/* The quirk qemu-no-lbr: DebugCtl and the last-branch MSRs are not there. */
	if (index >= MSR_DEBUGCTL && index <= MSR_LAST_EXCEPT_TO && index != MSR_DEBUGCTL + 1 &&
	    cpu_quirk(cpu, QK_QEMU_NO_LBR))
		return NULL;
	for (unsigned i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++)
		if (msrs[i].index == index && msrs[i].exists(cpu))
			return &msrs[i];
	return amd_cfg.exists(cpu) ? &amd_cfg : NULL;
}

/* The VMX capability MSRs are the model's data (SDM Vol.3 Appendix A): they
 * "do not exist on processors that do not support VMX operation" (nor while
 * this CPU does not report VMX), and not every part has each one (A.2-A.11
 * say which exist when); they are read-only, WRMSR to them is #GP(0). */
static bool vmx_cap(const struct cpu *cpu, uint32_t index, uint64_t *value)
{
	return index >= MSR_VMX_FIRST && index <= MSR_VMX_LAST && has_vmx(cpu) &&
	       cpu_model_vmx_cap(cpu->model, index, value);
}

/* RDMSR/WRMSR common checks (SDM Vol.2 RDMSR: #UD without CPUID.1:EDX.MSR;
 * "#GP(0) If the current privilege level is not 0" — virtual-8086 mode included,
 * real mode is CPL 0). The intercept comes next; an MSR the CPU lacks is
 * #GP(0) after it ("If the value in ECX specifies a reserved or unimplemented
 * MSR address"; SDM Vol.3 25.1.1: RDMSR of a non-existent MSR exits). *value
 * is what a write stores, or for a read the MSR's value (0 if there is none),
 * which a hypervisor model may replace (emu/hv.h). *def is the writable MSR
 * (NULL for the read-only VMX capability MSRs). */
static status_t msr_prologue(struct cpu *cpu, const struct insn *in, bool is_write,
			    const struct msr_def **def, uint64_t *value)
{
	status_t st;
	uint32_t index = (uint32_t)cpu->regs[R_CX];

	if (cpu->mode != MODE_REAL && cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	*def = find_msr(cpu, index);
	bool exists = *def != NULL;
	if (is_write)
		*value = (cpu->regs[R_DX] << 32) | (uint32_t)cpu->regs[R_AX];
	else if (vmx_cap(cpu, index, value))
		exists = true;
	else if (cpu_apic_msr(cpu, index))       /* x2APIC registers (emu/apic.c) */
		exists = cpu_apic_msr_read(cpu, index, value);
	else
		*value = *def ? (*def)->read(cpu) : 0;
	if (is_write && cpu_apic_msr(cpu, index))
		exists = true;                     /* op_wrmsr checks the register */
	/* ST_HANDLED (the model virtualized it, emu/hv.h) goes back to the
	 * instruction as it is: no #GP for an MSR the core lacks. */
	if ((st = intercept_msr(cpu, in, index, is_write, value)) != ST_OK)
		return st;
	if (!exists) {
		/* Quirk: read as 0, the write dropped (ST_HANDLED skips it). */
		if (cpu_quirk(cpu, QK_QEMU_UNKNOWN_MSR_ZERO))
			return ST_HANDLED;
		return cpu_raise_err(cpu, EXC_GP, 0);
	}
	return ST_OK;
}

/* EDX:EAX := MSR[ECX]; the upper halves of RAX/RDX are cleared. */
status_t op_rdmsr(struct cpu *cpu, const struct insn *in)
{
	const struct msr_def *def = NULL;
	uint64_t v = 0;
	status_t st = msr_prologue(cpu, in, false, &def, &v);
	if (st != ST_OK && st != ST_HANDLED)
		return st;
	reg_write(cpu, R_AX, 4, false, (uint32_t)v);
	reg_write(cpu, R_DX, 4, false, v >> 32);
	return ST_OK;
}

/* MSR[ECX] := EDX:EAX, or #GP(0) for a value with reserved bits set (SDM Vol.2
 * WRMSR: "If the value in EDX:EAX sets bits that are reserved in the MSR"). The
 * VMX capability MSRs are read-only: WRMSR to them is #GP(0) (SDM Appendix A). */
status_t op_wrmsr(struct cpu *cpu, const struct insn *in)
{
	const struct msr_def *def = NULL;
	uint64_t v = 0;
	status_t st = msr_prologue(cpu, in, true, &def, &v);
	if (st == ST_HANDLED)
		return ST_OK;
	if (st != ST_OK)
		return st;
	if (def ? !def->write(cpu, v) : !cpu_apic_msr_write(cpu, (uint32_t)cpu->regs[R_CX], v))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return ST_OK;
}

/* WRMSR's value checks and effect by index (emu/world_state.h): for the VMX
 * MSR-load lists, which load "as WRMSR would" and fail on what WRMSR would
 * refuse (SDM Vol.3 26.4 "Loading MSRs", 27.6). The machine-check banks and
 * AMD's counters name their register by ECX, as the instructions give it, so
 * ECX holds the index during the write. */
bool cpu_msr_write_checked(struct cpu *cpu, uint32_t index, uint64_t value)
{
	uint64_t rcx = cpu->regs[R_CX];
	cpu->regs[R_CX] = index;
	const struct msr_def *def = find_msr(cpu, index);
	bool ok = def ? def->write(cpu, value) :
		  cpu_apic_msr(cpu, index) && cpu_apic_msr_write(cpu, index, value);
	cpu->regs[R_CX] = rcx;
	return ok;
}

/* RDMSR's value by index without the instruction (emu/world_state.h): for
 * the VM-exit MSR-store list, which stores "as RDMSR would" and fails on
 * what RDMSR would refuse (SDM Vol.3 27.4). The same sources as RDMSR's:
 * the VMX capability MSRs, the x2APIC registers, the table. */
bool cpu_msr_read_checked(struct cpu *cpu, uint32_t index, uint64_t *value)
{
	uint64_t rcx = cpu->regs[R_CX];
	cpu->regs[R_CX] = index;
	const struct msr_def *def = find_msr(cpu, index);
	bool ok = true;
	*value = 0;
	if (vmx_cap(cpu, index, value))
		ok = true;
	else if (cpu_apic_msr(cpu, index))
		ok = cpu_apic_msr_read(cpu, index, value);
	else if (def)
		*value = def->read(cpu);
	else
		ok = false;
	cpu->regs[R_CX] = rcx;
	return ok;
}
