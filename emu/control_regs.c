/* Control and debug registers and the TLB/cache maintenance instructions:
 * MOV to/from CR0/CR2/CR3/CR4 and DR0-DR7, LMSW, SMSW, CLTS, INVLPG, INVD, WBINVD
 * (SDM Vol.2 instruction pages; register layouts SDM Vol.3 2.5, 17.2). Paging
 * itself lives in the memory path: this file keeps the registers consistent and
 * tells the TLB and the mode cache when they change. */
#include <string.h>

#include "mmu/nested.h"
#include "mmu/paging.h"
#include "emu/apic.h"
#include "emu/canonical.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/paging_env.h"
#include "emu/quirks.h"
#include "isa_handlers.h"


/* CR0 bits software can change on P6 and later; ET (bit 4) is hardwired to 1 and
 * writes to the reserved bits of CR0[31:0] are ignored (SDM Vol.3 2.5: "Bits
 * 63:32 of CR0 are reserved and must be written with zeros"; the low reserved
 * bits are not checked). */
#define CR0_WRITABLE (CR0_PE | CR0_MP | CR0_EM | CR0_TS | CR0_NE | CR0_WP | CR0_AM | \
		      CR0_NW | CR0_CD | CR0_PG)

/* DR6/DR7 fixed bits (SDM Vol.3 17.2.3, 17.2.4): DR6 bits 4-11 and 16-31 read as
 * 1, bit 12 as 0 (no RTM, no bus-lock detection); DR7 bit 10 reads as 1 and bits
 * 11, 12, 14 and 15 as 0. */
#define DR6_WRITABLE 0x0000e00full            /* B0-B3, BD, BS, BT */
#define DR6_ONES     0xffff0ff0ull
#define DR7_WRITABLE 0xffff23ffull            /* L0-G3, LE, GE, GD, R/W0-LEN3 */
#define DR7_ONES     0x00000400ull

/* CR4 bits and the CPUID feature that makes each one exist (SDM Vol.3 2.5, the
 * CR4 bit descriptions; SDM Vol.2 MOV CR: "#GP(0) If an attempt is made
 * to write a 1 to any reserved bit in CR4"). A bit whose feature the model does not
 * report is reserved. */
static const struct {
	uint32_t cr4_bit;
	uint32_t leaf;
	uint8_t reg, bit;          /* CPUID register 0-3 = EAX..EDX, bit */
} cr4_features[] = {
	{ CR4_VME,        1, 3, 1 },   /* VME */
	{ CR4_PVI,        1, 3, 1 },   /* VME */
	{ CR4_TSD,        1, 3, 4 },   /* TSC */
	{ CR4_DE,         1, 3, 2 },   /* DE */
	{ CR4_PSE,        1, 3, 3 },   /* PSE */
	{ CR4_PAE,        1, 3, 6 },   /* PAE */
	{ CR4_MCE,        1, 3, 7 },   /* MCE */
	{ CR4_PGE,        1, 3, 13 },  /* PGE */
	{ CR4_OSFXSR,     1, 3, 24 },  /* FXSR */
	{ CR4_OSXMMEXCPT, 1, 3, 25 },  /* SSE */
	{ CR4_VMXE,       1, 2, 5 },   /* VMX */
	{ CR4_SMXE,       1, 2, 6 },   /* SMX */
	{ CR4_PCIDE,      1, 2, 17 },  /* PCID */
	{ CR4_OSXSAVE,    1, 2, 26 },  /* XSAVE */
	{ CR4_FSGSBASE,   7, 1, 0 },   /* FSGSBASE */
	{ CR4_SMEP,       7, 1, 7 },   /* SMEP */
	{ CR4_SMAP,       7, 1, 20 },  /* SMAP */
	{ CR4_UMIP,       7, 2, 2 },   /* UMIP */
	{ CR4_PKE,        7, 2, 3 },   /* PKU */
	{ CR4_LA57,       7, 2, 16 },  /* LA57 */
};

/* The CR4 bits the CPU implements (CR4.VMXE only while it reports VMX,
 * emu/cpu_model.h cpu_has()). CR4.PCE has no CPUID bit: it exists on P6-family
 * and later processors (family >= 6, SDM Vol.3 2.5). */
uint64_t cpu_cr4_valid_bits(const struct cpu *cpu)
{
	const struct cpu_model *m = cpu->model;
	uint64_t valid = 0;

	for (unsigned i = 0; i < sizeof(cr4_features) / sizeof(cr4_features[0]); i++)
		if (cpu_has(cpu, cr4_features[i].leaf, cr4_features[i].reg, cr4_features[i].bit))
			valid |= cr4_features[i].cr4_bit;
	if (m && ((m->signature >> 8) & 0xf) >= 6)
		valid |= CR4_PCE;
	return valid;
}

/* Register operand of MOV CR/DR: ModRM.rm with REX.B. The mod field is ignored
 * (SDM Vol.2 MOV—Move to/from Control Registers: "The 2 bits in the mod field are
 * ignored"), so in->rm is not relied on. */
static inline unsigned crdr_gpr(const struct insn *in)
{
	return (in->modrm & 7u) | ((in->rex & 1u) << 3);
}

/* Operand size of MOV CR/DR: 32 bits, 64 in 64-bit mode, whatever the prefixes
 * (SDM Vol.2 MOV CR/DR: "operand size is 32 bits ... 64 bits in 64-bit mode"). */
static inline unsigned crdr_size(const struct cpu *cpu)
{
	return cpu_is_mode64(cpu) ? 8 : 4;
}

/* MOV CR/DR, LMSW, CLTS, INVLPG, INVD, WBINVD: #GP(0) unless CPL 0. Real mode is
 * CPL 0; virtual-8086 mode is CPL 3 (SDM Vol.2 exception lists). */
static inline bool not_cpl0(const struct cpu *cpu)
{
	return cpu->mode != MODE_REAL && cpu->cpl != 0;
}

/* SDM Vol.3 4.4.1: with PAE paging in effect after the write, MOV to CR3, and a
 * MOV to CR0/CR4 that changes the bits listed there, load the four PDPTE
 * registers; a present PDPTE with a reserved bit set makes the MOV #GP(0) with
 * nothing changed. (IA-32e paging has no PDPTE registers.) */
static status_t load_pdptes(struct cpu *cpu, uint64_t cr0, uint64_t cr3, uint64_t cr4)
{
	uint64_t pdpte[4];
	if (!(cr0 & CR0_PG) || !(cr4 & CR4_PAE) || (cpu->efer & EFER_LME))
		return ST_OK;
	/* APM2 15.25.10: under nested paging a legacy-PAE guest's PDPTEs are not
	 * loaded (by VMRUN or MOV CR); each walk reads them from guest memory and
	 * a reserved bit is a #PF there (cpu_paging_env() gives no registers). */
	if (cpu_npt_active(cpu))
		return ST_OK;
	if (cpu->stage2_on) {
		/* A guest's PDPTEs are guest-physical: loaded through stage 2, whose
		 * fault goes to the hypervisor model (mmu/nested.h). */
		struct fault f;
		switch (nested_load_pdptes(&cpu->stage2, cr3, cpu->maxphyaddr, pdpte, &f)) {
		case PDPTE_FAULT: return cpu_raise_fault(cpu, &f);
		case PDPTE_RESERVED: return cpu_raise_err(cpu, EXC_GP, 0);
		case PDPTE_LOADED: break;
		}
	} else if (!paging_load_pdptes(cpu->mem, cr3, cpu->maxphyaddr, pdpte)) {
		return cpu_raise_err(cpu, EXC_GP, 0);
	}
	memcpy(cpu->pdpte, pdpte, sizeof(pdpte));
	return ST_OK;
}

status_t cpu_load_pdptes(struct cpu *cpu)
{
	return load_pdptes(cpu, cpu->cr0, cpu->cr3, cpu->cr4);
}

/* CR0 writes from MOV, LMSW and CLTS after their own checks. Changes of PE, PG
 * or WP change translations and privilege (TLB banks) and the mode. */
static void commit_cr0(struct cpu *cpu, uint64_t val)
{
	uint64_t changed = cpu->cr0 ^ val;

	cpu->cr0 = val;
	/* SDM Vol.3 9.8.5, APM2 14.6.1: setting PG with EFER.LME = 1 activates IA-32e
	 * mode (EFER.LMA := 1); clearing PG deactivates it (SDM Vol.3 9.8.5.4). The
	 * mode after activation is compatibility or 64-bit by CS.L. */
	if ((changed & CR0_PG) && (val & CR0_PG) && (cpu->efer & EFER_LME))
		cpu->efer |= EFER_LMA;
	else if ((changed & CR0_PG) && !(val & CR0_PG))
		cpu->efer &= ~(uint64_t)EFER_LMA;
	if (changed & (CR0_PE | CR0_PG | CR0_WP))
		tlb_flush_space(&cpu->tlb, cpu->tlb.space, false);
	if (changed & (CR0_PE | CR0_PG))
		cpu_update_mode(cpu);
}

/* The IA-32e activation checks of a MOV CR0 that sets PG with EFER.LME = 1
 * (SDM Vol.2 MOV CR, Protected Mode Exceptions; SDM Vol.3 9.8.5): CR4.PAE must
 * be 1 (also APM2 14.6.1), and on Intel the current CS must not have L = 1 and TR
 * must not reference a 16-bit TSS. AMD documents neither of the last two
 * (APM2 14.6.1 lists only PAE), so they are applied on Intel models only. */
static bool ia32e_activation_ok(const struct cpu *cpu)
{
	if (!(cpu->cr4 & CR4_PAE))
		return false;
	if (cpu_is_amd(cpu))
		return true;
	if (cpu->seg[SR_CS].attr & SEG_L)
		return false;
	/* "TR references a 16-bit TSS": the reset-state TR (selector 0, a 16-bit busy
	 * type in the cache, SDM Vol.3 Table 9-1) references no TSS, so a guest that
	 * never executed LTR may still enter long mode, as on hardware. */
	unsigned tr_type = cpu->tr.attr & SEG_TYPE_MASK;
	return (cpu->tr.selector & 0xfffc) == 0 ||
	       (tr_type != SYS_TSS16_AVAIL && tr_type != SYS_TSS16_BUSY);
}

/* The #GP(0) checks of a MOV to CR0 on its value (SDM Vol.2 MOV CR exceptions;
 * SDM Vol.3 2.5), without side effects. */
static bool cr0_value_ok(const struct cpu *cpu, uint64_t val)
{
	/* Bits 63:32 must be zero (only reachable with a 64-bit operand). */
	if (val >> 32)
		return false;
	val = (val & CR0_WRITABLE) | CR0_ET;
	/* "setting the PG flag to 1 when the PE flag is set to 0" and "setting the CD
	 * flag to 0 when the NW flag is set to 1" are invalid combinations: #GP(0). */
	if ((val & CR0_PG) && !(val & CR0_PE))
		return false;
	if ((val & CR0_NW) && !(val & CR0_CD) && !cpu_quirk(cpu, QK_QEMU_CR0_NW_NO_CD))
		return false;
	/* SDM Vol.3 9.8.5: enabling paging with EFER.LME=1 activates IA-32e mode. */
	if ((val & CR0_PG) && !(cpu->cr0 & CR0_PG) && (cpu->efer & EFER_LME) &&
	    !ia32e_activation_ok(cpu))
		return false;
	/* SDM Vol.2 MOV CR, 64-bit Mode Exceptions: "#GP(0) If an attempt is made to
	 * clear CR0.PG[bit 31]" (leaving long mode goes through compatibility mode,
	 * SDM Vol.3 9.8.5.4); Protected Mode Exceptions: clearing PG while
	 * CR4.PCIDE = 1 is #GP(0). */
	if (!(val & CR0_PG) && (cpu->cr0 & CR0_PG) && (cpu_is_mode64(cpu) || (cpu->cr4 & CR4_PCIDE)))
		return false;
	return true;
}

/* MOV CR0 with a new value (SDM Vol.2 MOV CR exceptions; SDM Vol.3 2.5). */
static status_t write_cr0(struct cpu *cpu, uint64_t val)
{
	if (!cr0_value_ok(cpu, val))
		return cpu_raise_err(cpu, EXC_GP, 0);
	val = (val & CR0_WRITABLE) | CR0_ET;
	if ((cpu->cr0 ^ val) & (CR0_PG | CR0_CD | CR0_NW)) {
		status_t st = load_pdptes(cpu, val, cpu->cr3, cpu->cr4);
		if (st != ST_OK)
			return st;
	}
	commit_cr0(cpu, val);
	return ST_OK;
}

/* The current PCID: CR3[11:0] with CR4.PCIDE = 1, else 000H (SDM Vol.3 4.10.1). */
static inline uint16_t current_pcid(const struct cpu *cpu)
{
	return (cpu->cr4 & CR4_PCIDE) ? (uint16_t)(cpu->cr3 & 0xfff) : 0;
}

/* MOV CR3: store the page-directory base and flags (SDM Vol.3 4.10.4.1). Bits
 * 63:32 must be zero outside long mode paging (only reachable with a 64-bit
 * operand); no further reserved-bit checks in 32-bit paging (SDM Vol.3 4.3:
 * the other bits are ignored).
 *
 * IA-32e mode (SDM Vol.2 MOV CR, 64-bit Mode Exceptions; SDM Vol.3 4.5, Table
 * 4-12): bits 63:MAXPHYADDR are reserved, #GP(0). With CR4.PCIDE = 1, bits 11:0
 * are the PCID and bit 63 of the source, which is not stored, says whether the
 * new PCID's translations may stay.
 *
 * Invalidation (SDM Vol.3 4.10.4.1): with CR4.PCIDE = 0 or bit 63 clear, the
 * non-global translations of the new PCID go; with bit 63 set none need to.
 * Other PCIDs keep theirs, and global ones stay (4.10.2.4): a switch to
 * another PCID saves the current one's translations in a TLB context and, with
 * bit 63 set, brings the new one's back (mmu/tlb.h). */
static bool cr3_value_ok(const struct cpu *cpu, uint64_t val)
{
	if (cpu->efer & EFER_LMA) {
		if (cpu->cr4 & CR4_PCIDE)
			val &= ~(1ull << 63);
		return !(val >> cpu->maxphyaddr);
	}
	return !(val >> 32);
}

static status_t write_cr3(struct cpu *cpu, uint64_t val)
{
	bool no_flush = false;

	if (!cr3_value_ok(cpu, val))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((cpu->efer & EFER_LMA) && (cpu->cr4 & CR4_PCIDE) && (val >> 63)) {
		no_flush = true;
		val &= ~(1ull << 63);
	}
	status_t st = load_pdptes(cpu, cpu->cr0, val, cpu->cr4);
	if (st != ST_OK)
		return st;
	cpu->cr3 = val;
	/* The new PCID's translations (the TLB keeps every PCID's apart). */
	uint16_t to = current_pcid(cpu);
	if (to != cpu->tlb.pcid)
		tlb_select(&cpu->tlb, cpu->tlb.space, to);
	if (!no_flush)
		tlb_flush_nonglobal(&cpu->tlb);
	return ST_OK;
}

/* The #GP(0) checks of a MOV to CR4 on its value (SDM Vol.2 MOV CR: a
 * reserved bit), without side effects. */
static bool cr4_value_ok(const struct cpu *cpu, uint64_t val)
{
	uint64_t valid = cpu_cr4_valid_bits(cpu);
	if (cpu_quirk(cpu, QK_QEMU_PCIDE_WITHOUT_PCID))
		valid |= CR4_PCIDE;
	if (val & ~valid)
		return false;
	/* SDM Vol.3 9.8.5.4: CR4.PAE cannot be cleared while IA-32e mode is active. */
	if ((cpu->efer & EFER_LMA) && !(val & CR4_PAE))
		return false;
	uint64_t changed = cpu->cr4 ^ val;
	/* SDM Vol.2 MOV CR, #GP(0): "change CR4.LA57 while IA-32e mode is active";
	 * setting PCIDE outside IA-32e mode (SDM Vol.3 4.10.1: "CR4.PCIDE can be set
	 * to 1 only in IA-32e mode") or while CR3[11:0] != 0. */
	if ((changed & CR4_LA57) && (cpu->efer & EFER_LMA))
		return false;
	if ((changed & CR4_PCIDE) && (val & CR4_PCIDE) && (!(cpu->efer & EFER_LMA) || (cpu->cr3 & 0xfff)))
		return false;
	return true;
}

/* MOV CR4. */
static status_t write_cr4(struct cpu *cpu, uint64_t val)
{
	if (!cr4_value_ok(cpu, val))
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t changed = cpu->cr4 ^ val;
	if (changed & (CR4_PAE | CR4_PGE | CR4_PSE | CR4_SMEP)) {
		status_t st = load_pdptes(cpu, cpu->cr0, cpu->cr3, val);
		if (st != ST_OK)
			return st;
	}
	cpu->cr4 = val;
	/* SDM Vol.3 4.10.4.1: changing PGE or clearing PCIDE invalidates every
	 * translation of every PCID; changing PAE or setting SMEP those of the
	 * current PCID. A TLB entry also holds the rights and page size the walk
	 * computed with PSE, SMEP, SMAP and LA57, so any change of those drops every
	 * PCID's entries as well (invalidating more is allowed, 4.10.4.1). Setting
	 * PCIDE keeps the live entries: they are PCID 000H's, the current PCID
	 * before and after (CR3[11:0] = 0). */
	if ((changed & (CR4_PGE | CR4_PAE | CR4_PSE | CR4_SMEP | CR4_SMAP | CR4_LA57)) ||
	    ((changed & CR4_PCIDE) && !(val & CR4_PCIDE)))
		tlb_flush_space(&cpu->tlb, cpu->tlb.space, false);
	if (changed & CR4_PCIDE)
		tlb_select(&cpu->tlb, cpu->tlb.space, current_pcid(cpu));
	return ST_OK;
}

/* CR0, CR2, CR3 and CR4 exist everywhere; CR8 only in 64-bit mode (SDM Vol.3
 * 2.5). Others: #UD (SDM Vol.2 MOV CR: "#UD If an attempt is made to access CR1,
 * CR5, CR6, or CR7"). */
static inline bool cr_exists(const struct cpu *cpu, unsigned n)
{
	return n == 0 || n == 2 || n == 3 || n == 4 || (n == 8 && cpu_is_mode64(cpu));
}

bool cpu_mov_cr_value_ok(const struct cpu *cpu, unsigned cr, uint64_t val)
{
	switch (cr) {
	case 0: return cr0_value_ok(cpu, val);
	case 3: return cr3_value_ok(cpu, val);
	case 4: return cr4_value_ok(cpu, val);
	case 8: return !(val >> 4);
	default: return true;
	}
}

status_t op_mov_to_cr(struct cpu *cpu, const struct insn *in)
{
	unsigned n = in->reg;
	uint64_t val = reg_read(cpu, crdr_gpr(in), crdr_size(cpu), true);
	status_t st;

	if (!cr_exists(cpu, n))
		return cpu_raise(cpu, EXC_UD);
	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* ST_HANDLED: the model wrote its virtual register (SVM's V_TPR). */
	if ((st = intercept_cr(cpu, in, IK_CR_ACCESS, n, CR_MOV_TO, &val)) != ST_OK)
		return st == ST_HANDLED ? ST_OK : st;
	/* The model's rules of VMX operation (fixed bits, CR4.VMXE), emu/hv.h. */
	if ((n == 0 || n == 4) && (st = hv_check_cr_write(cpu, n, CR_MOV_TO, val)) != ST_OK)
		return st;
	switch (n) {
	case 0: return write_cr0(cpu, val);
	case 2: cpu->cr2 = val; return ST_OK;
	case 3: return write_cr3(cpu, val);
	case 4: return write_cr4(cpu, val);
	default:
		/* CR8: the task-priority register, TPR bits 3:0 (SDM Vol.3 10.8.6.1). */
		if (val >> 4)
			return cpu_raise_err(cpu, EXC_GP, 0);
		cpu_cr8_write(cpu, val);
		return ST_OK;
	}
}

status_t op_mov_from_cr(struct cpu *cpu, const struct insn *in)
{
	unsigned n = in->reg;
	uint64_t val;
	status_t st;

	if (!cr_exists(cpu, n))
		return cpu_raise(cpu, EXC_UD);
	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	switch (n) {
	case 0: val = cpu->cr0; break;
	case 2: val = cpu->cr2; break;
	case 3: val = cpu->cr3; break;
	case 4: val = cpu->cr4; break;
	default: val = cpu_cr8_read(cpu); break;
	}
	/* The model may return a read shadow instead (SDM Vol.3 25.3 CR0/CR4), or
	 * its virtual register (ST_HANDLED: SVM's V_TPR). */
	if ((st = intercept_cr(cpu, in, IK_CR_ACCESS, n, CR_MOV_FROM, &val)) != ST_OK && st != ST_HANDLED)
		return st;
	reg_write(cpu, crdr_gpr(in), crdr_size(cpu), true, val);
	return ST_OK;
}

/* The checks every MOV DR makes, in the order the SDM lists them (SDM Vol.2 MOV
 * DR, Protected Mode Exceptions): #GP(0) at CPL > 0; #UD for DR4/DR5 with
 * CR4.DE = 1; #DB when DR7.GD is set (SDM Vol.3 17.2.4: the general-detect
 * fault happens before the access, sets DR6.BD, and the processor clears GD on
 * entry to the handler so the handler can use the registers). After them an
 * SVM hypervisor is asked (APM2 15.9); *value is the value written, or for a
 * read the register's, which a model may replace. */
static status_t dr_access_check(struct cpu *cpu, const struct insn *in, enum cr_access access,
				uint64_t *value)
{
	unsigned n = in->reg;

	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((n == 4 || n == 5) && (cpu->cr4 & CR4_DE))
		return cpu_raise(cpu, EXC_UD);
	if (cpu->dr[7] & DR7_GD) {
		/* DR6.BD and the clearing of GD travel with the #DB (emu/debug.h). */
		status_t st = cpu_raise(cpu, EXC_DB);
		cpu->event.dr6 = DR6_BD;
		return st;
	}
	/* APM2 15.9 Table 15-7: the SVM DR intercepts come after #UD, #GP and the
	 * general-detect #DB (VMX asks before all of them, above). */
	return intercept_cr(cpu, in, IK_DR_ACCESS, n, access, value);
}

/* The register MOV DR reaches: DR4/DR5 alias DR6/DR7 with CR4.DE = 0 (SDM
 * Vol.3 17.2.2; with CR4.DE = 1 they are #UD above). */
static inline unsigned dr_index(unsigned n)
{
	return (n == 4 || n == 5) ? n + 2 : n;
}

/* REX.R would name DR8-DR15, which do not exist: #UD (SDM Vol.2 MOV DR), an
 * invalid opcode and so ahead of every intercept (SDM Vol.3 25.1.1). */
static inline bool dr_undefined(const struct insn *in)
{
	return in->reg > 7;
}

status_t op_mov_to_dr(struct cpu *cpu, const struct insn *in)
{
	uint64_t val = reg_read(cpu, crdr_gpr(in), crdr_size(cpu), true);
	status_t st;

	if (dr_undefined(in))
		return cpu_raise(cpu, EXC_UD);
	if ((st = intercept_dr_early(cpu, in, CR_MOV_TO, &val)) != ST_OK)
		return st;
	if ((st = dr_access_check(cpu, in, CR_MOV_TO, &val)) != ST_OK)
		return st;
	unsigned idx = dr_index(in->reg);
	switch (idx) {
	case 6:
	case 7:
		/* SDM Vol.2 MOV DR, 64-bit mode: "#GP(0) If an attempt is made to write a
		 * 1 to any of bits 63:32 in DR6/DR7". */
		if (val >> 32)
			return cpu_raise_err(cpu, EXC_GP, 0);
		cpu->dr[idx] = idx == 6 ? (val & DR6_WRITABLE) | DR6_ONES
					: (val & DR7_WRITABLE) | DR7_ONES;
		break;
	default:
		/* DR0-DR3 hold linear addresses, matched by emu/debug.c. */
		cpu->dr[idx] = val;
		break;
	}
	/* Breakpoints may be armed now: instructions run one at a time. */
	cpu_attend(cpu, ATT_STEP);
	return ST_OK;
}

status_t op_mov_from_dr(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if (dr_undefined(in))
		return cpu_raise(cpu, EXC_UD);
	uint64_t val = cpu->dr[dr_index(in->reg)];
	if ((st = intercept_dr_early(cpu, in, CR_MOV_FROM, &val)) != ST_OK)
		return st;
	if ((st = dr_access_check(cpu, in, CR_MOV_FROM, &val)) != ST_OK)
		return st;
	reg_write(cpu, crdr_gpr(in), crdr_size(cpu), true, val);
	return ST_OK;
}

/* LMSW: loads CR0 bits 3:0 (PE, MP, EM, TS); it can set PE but never clear it
 * (SDM Vol.2 LMSW). */
status_t op_lmsw(struct cpu *cpu, const struct insn *in)
{
	uint64_t src;
	status_t st;

	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* APM2 15.9 Table 15-7: SVM checks the LMSW intercept before the memory
	 * operand's exceptions (it reports no source value). */
	if (cpu->in_guest) {
		uint64_t none = 0;
		if ((st = hv_intercept_cr(cpu, in, IK_CR_ACCESS, 0, CR_LMSW, &none, PHASE_BEFORE_OPERAND)) != ST_OK)
			return st;
	}
	if ((st = rm_read(cpu, in, 2, &src)) != ST_OK)
		return st;
	/* The record carries the 16-bit source (SDM Vol.3 Table 27-3 "LMSW source
	 * data"); the intercept follows the operand read (SDM Vol.3 25.1.1). */
	src &= 0xffff;
	if ((st = intercept_cr(cpu, in, IK_CR_ACCESS, 0, CR_LMSW, &src)) != ST_OK)
		return st;
	uint64_t val = (cpu->cr0 & ~0xfull) | (src & 0xf) | (cpu->cr0 & CR0_PE);
	if ((st = hv_check_cr_write(cpu, 0, CR_LMSW, val)) != ST_OK)
		return st;
	commit_cr0(cpu, val);
	return ST_OK;
}

/* SMSW: allowed at any CPL (no UMIP). A memory destination receives CR0[15:0];
 * a register destination CR0 truncated to the operand size (SDM Vol.2 SMSW: the
 * upper bits for a 32-bit register are "undefined"; hvemu stores CR0[31:16] as
 * P6-family and AMD processors do). APM2 15.9: SMSW is a CR0 read for the SVM
 * intercept. */
status_t op_smsw(struct cpu *cpu, const struct insn *in)
{
	uint64_t val = cpu->cr0;
	status_t st;

	if ((st = intercept_cr(cpu, in, IK_CR_ACCESS, 0, CR_SMSW, &val)) != ST_OK)
		return st;
	if (in->mem)
		return rm_write(cpu, in, 2, val & 0xffff);
	reg_write(cpu, in->rm, in->osize, in->rex != 0, val & size_mask(in->osize));
	return ST_OK;
}

/* CLTS: CR0.TS := 0 (SDM Vol.2 CLTS). */
status_t op_clts(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t val = cpu->cr0 & ~(uint64_t)CR0_TS;
	if ((st = intercept_cr(cpu, in, IK_CR_ACCESS, 0, CR_CLTS, &val)) != ST_OK)
		return st;
	if ((st = hv_check_cr_write(cpu, 0, CR_CLTS, val)) != ST_OK)
		return st;
	/* TS as the model left it in val: SDM Vol.3 25.3, a CLTS that does not
	 * exit leaves a host-owned CR0.TS alone. */
	cpu->cr0 = (cpu->cr0 & ~(uint64_t)CR0_TS) | (val & CR0_TS);
	return ST_OK;
}

/* INVLPG m: drop the translations of the page holding the linear address of m.
 * No access is made and no segment-limit check applies (SDM Vol.2 INVLPG lists
 * only #GP(0) for CPL > 0 and #UD for a register operand). */
status_t op_invlpg(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t lin = seg_linear(&cpu->seg[in->seg], insn_ea(cpu, in), cpu_is_mode64(cpu));
	tlb_flush_page(&cpu->tlb, lin);
	return ST_OK;
}

/* INVD/WBINVD: CPL 0 only (SDM Vol.2 INVD, WBINVD). hvemu has no caches, so
 * after the intercept check there is nothing to write back or invalidate. */
status_t op_invd(struct cpu *cpu, const struct insn *in)
{
	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return intercept_insn(cpu, in);
}

status_t op_wbinvd(struct cpu *cpu, const struct insn *in)
{
	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return intercept_insn(cpu, in);
}

/* INVPCID Gy, M128 (66 0F 38 82): invalidate by PCID (SDM Vol.2 INVPCID; SDM
 * Vol.3 4.10.4.1). The register (64 bits in 64-bit mode, else 32) holds the type;
 * the descriptor holds the PCID in bits 11:0 (bits 63:12 reserved) and a linear
 * address in bits 127:64. Exceptions: #UD without CPUID.(EAX=7,ECX=0):EBX[10]
 * and in virtual-8086 mode; #GP(0) at CPL > 0, for a type > 3, reserved
 * descriptor bits, a non-canonical address with type 0, and type 0/1 with a
 * PCID other than 000H while CR4.PCIDE = 0.
 *
 * Type 0 drops the PCID's non-global translations of one page, type 1 all its
 * non-global translations, type 2 everything, type 3 every PCID's non-global
 * translations; global translations stay except with type 2. A PCID other than
 * the current one is one of the TLB's saved contexts (mmu/tlb.h). */
status_t op_invpcid(struct cpu *cpu, const struct insn *in)
{
	uint64_t lo, hi;
	status_t st;

	if ((st = intercept_insn_before_checks(cpu, in)) != ST_OK)
		return st;
	if (cpu->mode == MODE_V86)
		return cpu_raise(cpu, EXC_UD);
	if (not_cpl0(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* The intercept follows the #UD and CPL checks and precedes the
	 * descriptor's read and the checks of its values (SDM Vol.3 25.1.1: only
	 * #UD, CPL and I/O-permission faults have priority over VM exits; APM2
	 * 15.9: before memory exceptions and "exceptions based on specific
	 * operand values"). */
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t type = reg_read(cpu, in->reg, cpu_is_mode64(cpu) ? 8 : 4, true);
	uint64_t ea = insn_ea(cpu, in);
	if ((st = mem_read(cpu, in->seg, ea, 8, &lo)) != ST_OK)
		return st;
	if ((st = mem_read(cpu, in->seg, (ea + 8) & size_mask(in->asize), 8, &hi)) != ST_OK)
		return st;
	if (type > 3 || (lo >> 12))
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint16_t pcid = (uint16_t)(lo & 0xfff);
	/* Canonical to the processor's width, whatever CR4.LA57 says (white paper
	 * 335252 on TLB invalidation; emu/canonical.h). */
	if (type == 0 && !addr_canonical_reg(cpu, hi))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if (type <= 1 && !(cpu->cr4 & CR4_PCIDE) && pcid != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	switch (type) {
	case 0:
		tlb_flush_pcid_page(&cpu->tlb, pcid, hi);
		break;
	case 1:
		tlb_flush_pcid(&cpu->tlb, pcid);
		break;
	case 2:
		tlb_flush_space(&cpu->tlb, cpu->tlb.space, false);
		break;
	default:
		tlb_flush_nonglobal_all_pcids(&cpu->tlb);
		break;
	}
	return ST_OK;
}
