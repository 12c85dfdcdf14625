/* Processor-state and identification instructions: CLI, STI, PUSHF, POPF,
 * LAHF, SAHF, CLC, STC, CMC, CLD, STD, CPUID, RDTSC, RDPMC, RDPRU, RSM, SYSENTER,
 * SYSEXIT, UD2, WAIT and the hint NOPs (SDM Vol.2 instruction pages of the same names;
 * EFLAGS SDM Vol.1 3.4.3, SDM Vol.3 2.3). Descriptor-table instructions are in
 * descriptor_tables.c, control/debug registers in control_regs.c, MSRs in msr.c,
 * HLT/PAUSE/MONITOR/MWAIT in wait.c. */
#include "emu/canonical.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "isa_handlers.h"

static inline unsigned iopl_of(uint64_t flags)
{
	return (unsigned)((flags & FLAG_IOPL) >> FLAG_IOPL_SHIFT);
}

static inline unsigned model_family(const struct cpu *cpu)
{
	return cpu->model ? (cpu->model->signature >> 8) & 0xf : 0;
}

static inline bool has_feature(const struct cpu *cpu, uint32_t leaf, unsigned reg, unsigned bit)
{
	return cpu_has(cpu, leaf, reg, bit);
}

/* --- CLI, STI --- */

/* SDM Vol.2 CLI Operation (Table "Decision Table for CLI Results"): real mode
 * clears IF; protected mode clears IF when IOPL >= CPL, else VIF at CPL 3 with
 * CR4.PVI, else #GP(0); virtual-8086 mode clears IF when IOPL = 3, else VIF with
 * CR4.VME, else #GP(0). */
status_t op_cli(struct cpu *cpu, const struct insn *in)
{
	uint64_t fl = cpu_get_flags(cpu);
	unsigned iopl = iopl_of(fl);
	uint64_t clear;

	switch (cpu->mode) {
	case MODE_REAL:
		clear = FLAG_IF;
		break;
	case MODE_V86:
		if (iopl == 3)
			clear = FLAG_IF;
		else if (cpu->cr4 & CR4_VME)
			clear = FLAG_VIF;
		else
			return cpu_raise_err(cpu, EXC_GP, 0);
		break;
	default:
		if (iopl >= cpu->cpl)
			clear = FLAG_IF;
		else if (cpu->cpl == 3 && (cpu->cr4 & CR4_PVI))
			clear = FLAG_VIF;
		else
			return cpu_raise_err(cpu, EXC_GP, 0);
		break;
	}
	cpu->rflags &= ~clear;     /* IF/VIF are never lazy */
	return ST_OK;
}

/* SDM Vol.2 STI Operation: the mirror of CLI, except that setting VIF with VIP
 * pending is #GP(0). "If IF = 0, maskable hardware interrupts remain inhibited on
 * the instruction boundary following an execution of STI" (SDM Vol.3 6.8.3):
 * the shadow exists only when IF goes from 0 to 1. */
status_t op_sti(struct cpu *cpu, const struct insn *in)
{
	uint64_t fl = cpu_get_flags(cpu);
	unsigned iopl = iopl_of(fl);
	bool set_if;

	switch (cpu->mode) {
	case MODE_REAL:
		set_if = true;
		break;
	case MODE_V86:
		if (iopl == 3)
			set_if = true;
		else if ((cpu->cr4 & CR4_VME) && !(fl & FLAG_VIP))
			set_if = false;
		else
			return cpu_raise_err(cpu, EXC_GP, 0);
		break;
	default:
		if (iopl >= cpu->cpl)
			set_if = true;
		else if (cpu->cpl == 3 && (cpu->cr4 & CR4_PVI) && !(fl & FLAG_VIP))
			set_if = false;
		else
			return cpu_raise_err(cpu, EXC_GP, 0);
		break;
	}
	if (!set_if) {
		cpu->rflags |= FLAG_VIF;
		return ST_OK;
	}
	if (!(fl & FLAG_IF)) {
		cpu->shadow = SHADOW_STI;
		/* The next instruction runs alone; interrupts may be taken after it. */
		cpu_attend(cpu, ATT_EVENT | ATT_STEP);
	}
	cpu->rflags |= FLAG_IF;
	return ST_OK;
}

/* --- PUSHF, POPF --- */

/* Every flag POPF can ever write; RF, VM, VIF and VIP are handled separately
 * (SDM Vol.2 POPF: "VIP, VIF, VM, and all reserved bits are unaffected. RF is
 * cleared"). */
#define POPF_FLAGS (FLAGS_ARITH | FLAG_TF | FLAG_IF | FLAG_DF | FLAG_IOPL | FLAG_NT | \
		    FLAG_AC | FLAG_ID)

/* SDM Vol.2 PUSHF Operation: outside virtual-8086 mode, or there with IOPL = 3,
 * push the flags (32/64-bit: "EFLAGS AND 00FCFFFFH", i.e. VM and RF read as 0).
 * Virtual-8086 mode with IOPL < 3: a 16-bit PUSHF under CR4.VME pushes IF := VIF
 * and IOPL := 3; anything else is #GP(0). */
status_t op_pushf(struct cpu *cpu, const struct insn *in)
{
	uint64_t fl = cpu_get_flags(cpu);
	status_t st;

	if (cpu->mode == MODE_V86 && iopl_of(fl) < 3) {
		if (!((cpu->cr4 & CR4_VME) && in->osize == 2))
			return cpu_raise_err(cpu, EXC_GP, 0);
		fl = (fl & ~(uint64_t)FLAG_IF) | ((fl & FLAG_VIF) ? FLAG_IF : 0) | FLAG_IOPL;
	}
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t v = in->osize == 2 ? (fl & 0xffff) : (fl & 0x00fcffffull);
	return push(cpu, in->osize, v);
}

/* SDM Vol.2 POPF Operation. Which flags change:
 *   not v8086, CPL 0:         all of POPF_FLAGS
 *   not v8086, 0 < CPL <= IOPL: all but IOPL
 *   not v8086, CPL > IOPL:    all but IOPL and IF
 *   v8086, IOPL = 3:          all but IOPL
 *   v8086, IOPL < 3:          16-bit with CR4.VME: all but IOPL and IF, IF goes to
 *                             VIF, #GP(0) if TF is set or VIP and IF are; else #GP(0)
 * A 16-bit POPF changes only bits 15:0; wider forms clear RF. The stack is read
 * before anything changes, and rSP moves only when no fault is raised. */
status_t op_popf(struct cpu *cpu, const struct insn *in)
{
	uint64_t fl = cpu_get_flags(cpu), v;
	unsigned iopl = iopl_of(fl);
	uint64_t mask = POPF_FLAGS;
	bool vme16 = false;
	status_t st;

	if (cpu->mode == MODE_V86 && iopl < 3) {
		if (!((cpu->cr4 & CR4_VME) && in->osize == 2))
			return cpu_raise_err(cpu, EXC_GP, 0);
		vme16 = true;
	}
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if ((st = stack_read(cpu, 0, in->osize, &v)) != ST_OK)
		return st;

	if (vme16) {
		if ((v & FLAG_TF) || ((fl & FLAG_VIP) && (v & FLAG_IF)))
			return cpu_raise_err(cpu, EXC_GP, 0);
		mask &= ~(uint64_t)(FLAG_IOPL | FLAG_IF);
		fl = (fl & ~(uint64_t)FLAG_VIF) | ((v & FLAG_IF) ? FLAG_VIF : 0);
	} else if (cpu->mode == MODE_V86) {
		mask &= ~(uint64_t)FLAG_IOPL;
	} else if (cpu->mode != MODE_REAL && cpu->cpl > 0) {
		mask &= ~(uint64_t)FLAG_IOPL;
		if (cpu->cpl > iopl)
			mask &= ~(uint64_t)FLAG_IF;
	}
	if (in->osize == 2)
		mask &= 0xffff;
	uint64_t nf = (fl & ~mask) | (v & mask);
	if (in->osize != 2)
		nf &= ~(uint64_t)FLAG_RF;
	stack_adjust(cpu, in->osize);
	cpu_set_flags(cpu, nf);
	return ST_OK;
}

/* --- LAHF, SAHF --- */

/* SDM Vol.2 LAHF/SAHF: in 64-bit mode valid only if CPUID.80000001H:ECX.LAHF-SAHF
 * [bit 0] = 1, else #UD. */
static inline bool lahf_sahf_ud(const struct cpu *cpu)
{
	return cpu_is_mode64(cpu) && !has_feature(cpu, 0x80000001, 2, 0);
}

/* AH := SF:ZF:0:AF:0:PF:1:CF. */
status_t op_lahf(struct cpu *cpu, const struct insn *in)
{
	if (lahf_sahf_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	uint64_t fl = cpu_get_flags(cpu);
	uint64_t ah = (fl & (FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF | FLAG_CF)) | FLAG_FIXED1;
	reg_write(cpu, R_SP, 1, false, ah);   /* register 4 without REX is AH */
	return ST_OK;
}

/* SF, ZF, AF, PF, CF := AH bits 7, 6, 4, 2, 0. */
status_t op_sahf(struct cpu *cpu, const struct insn *in)
{
	if (lahf_sahf_ud(cpu))
		return cpu_raise(cpu, EXC_UD);
	uint64_t ah = reg_read(cpu, R_SP, 1, false);
	flags_update(cpu, FLAG_SF | FLAG_ZF | FLAG_AF | FLAG_PF | FLAG_CF, ah);
	return ST_OK;
}

/* --- CLC, STC, CMC, CLD, STD (SDM Vol.2, one line each) --- */

status_t op_clc(struct cpu *cpu, const struct insn *in)
{
	flags_update(cpu, FLAG_CF, 0);
	return ST_OK;
}

status_t op_stc(struct cpu *cpu, const struct insn *in)
{
	flags_update(cpu, FLAG_CF, FLAG_CF);
	return ST_OK;
}

status_t op_cmc(struct cpu *cpu, const struct insn *in)
{
	flags_update(cpu, FLAG_CF, flags_cf(cpu) ? 0 : FLAG_CF);
	return ST_OK;
}

status_t op_cld(struct cpu *cpu, const struct insn *in)
{
	flags_update(cpu, FLAG_DF, 0);
	return ST_OK;
}

status_t op_std(struct cpu *cpu, const struct insn *in)
{
	flags_update(cpu, FLAG_DF, FLAG_DF);
	return ST_OK;
}

/* --- CPUID --- */

/* IA32_APIC_BASE.EN (SDM Vol.3 10.4.3) and IA32_MISC_ENABLE bit 22 (Limit CPUID
 * Maxval, SDM Vol.4 Table 2-2). */
#define APIC_BASE_EN (1ull << 11)

/* SDM Vol.2 CPUID: the model's table (emu/cpu_models.c; VMX/SVM only while
 * cpu->hv_available), with the fields that reflect run-time state:
 * CPUID.1:EDX.APIC reads 0 while the APIC is globally disabled (SDM Vol.3
 * 10.4.3), and CPUID.0:EAX is at most 2 while Limit CPUID Maxval is set (Intel). */
status_t op_cpuid(struct cpu *cpu, const struct insn *in)
{
	uint32_t out[4] = { 0, 0, 0, 0 };
	uint32_t leaf = (uint32_t)cpu->regs[R_AX], subleaf = (uint32_t)cpu->regs[R_CX];
	status_t st;

	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	if (cpu->model)
		cpu_cpuid(cpu, leaf, subleaf, out);
	if (leaf == 1 && !(cpu->apic_base & APIC_BASE_EN))
		out[3] &= ~(1u << 9);
	/* SDM Vol.2 CPUID leaf 1 ECX[27] OSXSAVE: reflects CR4.OSXSAVE (when the
	 * model has XSAVE, ECX[26]). */
	if (leaf == 1) {
		out[2] &= ~(1u << 27);
		if ((cpu->cr4 & CR4_OSXSAVE) && (out[2] & (1u << 26)))
			out[2] |= 1u << 27;
	}
	if (leaf == 0 && cpu_is_intel(cpu) &&
	    (cpu->misc_enable & MISC_ENABLE_LIMIT_CPUID) && out[0] > 2)
		out[0] = 2;
	reg_write(cpu, R_AX, 4, false, out[0]);
	reg_write(cpu, R_BX, 4, false, out[1]);
	reg_write(cpu, R_CX, 4, false, out[2]);
	reg_write(cpu, R_DX, 4, false, out[3]);
	return ST_OK;
}

/* --- RDTSC, RDPMC --- */

/* SDM Vol.2 RDTSC: #UD without CPUID.1:EDX.TSC; "#GP(0) If the TSD flag in
 * register CR4 is set and the CPL is greater than 0". The counter is virtual and
 * deterministic: retired instructions plus the offset WRMSR(TSC) set. */
status_t op_rdtsc(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if ((cpu->cr4 & CR4_TSD) && cpu->mode != MODE_REAL && cpu->cpl > 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t tsc = cpu_now(cpu) + cpu->tsc_offset;
	reg_write(cpu, R_AX, 4, false, (uint32_t)tsc);
	reg_write(cpu, R_DX, 4, false, tsc >> 32);
	return ST_OK;
}

/* SDM Vol.2 RDPMC: P6 family and later (#UD before); "#GP(0) If the current
 * privilege level is not 0 and the PCE flag in the CR4 register is clear", then
 * (after the intercept, SDM Vol.3 25.1.1, APM2 15.9) #GP(0) for a counter that
 * is not implemented. Intel models have none (CPUID leaf 0AH is absent); AMD
 * models have the legacy PerfCtr0-3 (APM2 13.2.1, the MSRs of emu/msr.c),
 * which ECX = 0-3 read into EDX:EAX (APM3 RDPMC; svm_exit_fuzz's
 * fuzz/findings/rdpmc_counter0_cpl0). */
status_t op_rdpmc(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if (model_family(cpu) < 6)
		return cpu_raise(cpu, EXC_UD);
	if (cpu->mode != MODE_REAL && cpu->cpl > 0 && !(cpu->cr4 & CR4_PCE))
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint32_t counter = (uint32_t)cpu->regs[R_CX];
	if (!cpu_is_amd(cpu) || counter > 3)
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t v = cpu->amd_perf_ctr[counter];
	reg_write(cpu, R_AX, 4, false, (uint32_t)v);
	reg_write(cpu, R_DX, 4, false, v >> 32);
	return ST_OK;
}

/* RDPRU (0F 01 FD, APM3 RDPRU): #UD unless CPUID Fn8000_0008_EBX[4] (the
 * row's feature). No model advertises it, so it is #UD everywhere; a model
 * that did would reach the intercept (APM2 15.9) and then hvemu's "not
 * modelled" stop. */
status_t op_rdpru(struct cpu *cpu, const struct insn *in)
{
	status_t st = intercept_insn(cpu, in);
	return st != ST_OK ? st : ST_UNSUPPORTED;
}

/* RSM (0F AA): "#UD If an attempt is made to execute this instruction when the
 * processor is not in SMM" (SDM Vol.2 RSM). hvemu models no SMM, so RSM is
 * always #UD; in a guest the intercept comes first (APM2 15.9 RSM intercept:
 * a hypervisor that emulates SMM for its guest gets the exit). */
status_t op_rsm(struct cpu *cpu, const struct insn *in)
{
	status_t st = intercept_insn(cpu, in);
	if (st != ST_OK)
		return st;
	return cpu_raise(cpu, EXC_UD);
}

/* --- SYSENTER, SYSEXIT --- */

/* SDM Vol.2 SYSENTER: #UD without CPUID.1:EDX.SEP (and on AMD in long mode,
 * APM3 SYSENTER); "#GP(0) If IA32_SYSENTER_CS[15:2] = 0" and in real-address mode
 * (CR0.PE = 0). Clears VM, IF and RF, enters CPL 0 at SYSENTER_EIP with
 * SYSENTER_ESP, CS = SYSENTER_CS & FFFCH and SS = CS + 8. */
status_t op_sysenter(struct cpu *cpu, const struct insn *in)
{
	/* Without CPUID.SEP the row is #UD (emu/isa/system.isa). */
	if (cpu_is_amd(cpu) && (cpu->efer & EFER_LMA))
		return cpu_raise(cpu, EXC_UD);
	if (!(cpu->cr0 & CR0_PE) || (cpu->sysenter_cs & 0xfffc) == 0)
		return cpu_raise_err(cpu, EXC_GP, 0);

	bool lm = (cpu->efer & EFER_LMA) != 0;
	uint16_t cs = (uint16_t)(cpu->sysenter_cs & 0xfffc);
	cpu_set_flags(cpu, cpu_get_flags(cpu) & ~(uint64_t)(FLAG_VM | FLAG_IF | FLAG_RF));
	seg_load_flat(&cpu->seg[SR_CS], cs, true, 0, lm);
	seg_load_flat(&cpu->seg[SR_SS], (uint16_t)(cs + 8), false, 0, false);
	cpu->cpl = 0;
	if (lm) {
		cpu->regs[R_SP] = cpu->sysenter_esp;
		cpu->rip = cpu->sysenter_eip;
	} else {
		cpu->regs[R_SP] = (uint32_t)cpu->sysenter_esp;
		cpu->rip = (uint32_t)cpu->sysenter_eip;
	}
	cpu_update_mode(cpu);
	return ST_OK;
}

/* SDM Vol.2 SYSEXIT: "#GP(0) If IA32_SYSENTER_CS[15:2] = 0", if CR0.PE = 0 and if
 * CPL != 0 (so always in virtual-8086 mode). Returns to CPL 3 at EDX with ESP =
 * ECX; CS = SYSENTER_CS + 16 and SS = + 24 (REX.W in 64-bit mode: + 32 / + 40,
 * 64-bit CS, RIP = RDX which must be canonical). */
status_t op_sysexit(struct cpu *cpu, const struct insn *in)
{
	if (cpu_is_amd(cpu) && (cpu->efer & EFER_LMA))
		return cpu_raise(cpu, EXC_UD);
	if (!(cpu->cr0 & CR0_PE) || cpu->mode == MODE_V86 || cpu->cpl != 0 ||
	    (cpu->sysenter_cs & 0xfffc) == 0)
		return cpu_raise_err(cpu, EXC_GP, 0);

	bool to64 = in->osize == 8;
	if (to64 && !addr_canonical(cpu, cpu->regs[R_DX]))
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint16_t base = (uint16_t)cpu->sysenter_cs;
	uint16_t cs = (uint16_t)((base + (to64 ? 32 : 16)) | 3);
	uint16_t ss = (uint16_t)((base + (to64 ? 40 : 24)) | 3);
	seg_load_flat(&cpu->seg[SR_CS], cs, true, 3, to64);
	seg_load_flat(&cpu->seg[SR_SS], ss, false, 3, false);
	cpu->cpl = 3;
	if (to64) {
		cpu->regs[R_SP] = cpu->regs[R_CX];
		cpu->rip = cpu->regs[R_DX];
	} else {
		cpu->regs[R_SP] = (uint32_t)cpu->regs[R_CX];
		cpu->rip = (uint32_t)cpu->regs[R_DX];
	}
	cpu_update_mode(cpu);
	return ST_OK;
}

/* --- UD2, WAIT, hint NOPs --- */

/* SDM Vol.2 UD: "Raises an invalid opcode exception in all operating modes". */
status_t op_ud2(struct cpu *cpu, const struct insn *in)
{
	return cpu_raise(cpu, EXC_UD);
}

/* SDM Vol.2 WAIT/FWAIT: "#NM If CR0.MP[bit 1] = 1 and CR0.TS[bit 3] = 1". With no
 * x87 unit there is never a pending floating-point exception to report. */
status_t op_wait(struct cpu *cpu, const struct insn *in)
{
	if ((cpu->cr0 & (CR0_MP | CR0_TS)) == (CR0_MP | CR0_TS))
		return cpu_raise(cpu, EXC_NM);
	/* SDM Vol.2 WAIT/FWAIT: "#MF If there is a pending x87 FPU exception" —
	 * reported as #MF with CR0.NE (SDM Vol.1 8.7; NE=0 is modelled as IGNNE#). */
	if ((cpu->fpu.fsw & FSW_ES) && (cpu->cr0 & CR0_NE))
		return cpu_raise(cpu, EXC_MF);
	return ST_OK;
}

/* 0F 18-0F 1E: prefetch hints and reserved-NOP space (SDM Vol.2 Table A-3 and
 * NOP: "The multi-byte NOP ... 0F 1F /0"; PREFETCHh): no architectural effect and
 * no memory access, so no fault either. Introduced with the P6 family: #UD before. */
status_t op_nop_hint(struct cpu *cpu, const struct insn *in)
{
	if (model_family(cpu) < 6)
		return cpu_raise(cpu, EXC_UD);
	return ST_OK;
}

/* STAC / CLAC (0F 01 CB / CA): set or clear EFLAGS.AC, the SMAP override for
 * explicit supervisor accesses. SDM Vol.2 STAC/CLAC: #UD if CPUID.(7,0):EBX.SMAP
 * is 0 (the rows' feature, emu/isa/system.isa), in real-address and
 * virtual-8086 mode, and at CPL > 0. */
static status_t set_ac(struct cpu *cpu, bool on)
{
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86 || cpu->cpl != 0)
		return cpu_raise(cpu, EXC_UD);
	cpu->rflags = on ? cpu->rflags | FLAG_AC : cpu->rflags & ~(uint64_t)FLAG_AC;
	return ST_OK;
}

status_t op_stac(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	return set_ac(cpu, true);
}

status_t op_clac(struct cpu *cpu, const struct insn *in)
{
	(void)in;
	return set_ac(cpu, false);
}
