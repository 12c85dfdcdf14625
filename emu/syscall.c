/* Instructions that exist for long mode: SYSCALL/SYSRET (the fast system-call
 * pair driven by STAR/LSTAR/CSTAR/SFMASK), SWAPGS, RD/WR FS/GS BASE, RDTSCP and
 * MOVSXD (SDM Vol.2
 * instruction pages; APM3 instruction pages; SDM Vol.3 5.8.8, APM2 6.1.1).
 * The rows are in emu/isa/long.isa.
 *
 * Vendor differences, chosen by cpu->model->vendor:
 *   - SYSCALL/SYSRET outside 64-bit mode: #UD on Intel (SDM Vol.2 SYSCALL, SYSRET
 *     "IF (CS.L != 1) or (IA32_EFER.LMA != 1) ... #UD"); on AMD they also work in
 *     legacy protected mode (STAR[31:0] target) and SYSCALL in compatibility mode
 *     (CSTAR target) (APM3 SYSCALL, SYSRET).
 *   - SYSRET to 64-bit mode with a non-canonical RCX: Intel raises #GP(0) at CPL 0
 *     before anything changes (SDM Vol.2 SYSRET); AMD completes the return and the
 *     fetch at the non-canonical RIP faults (#GP(0)) at CPL 3 (APM3 SYSRET; the
 *     fault is raised here, after the state change, with the new RIP as the
 *     faulting instruction's address).
 *   - SS after SYSRET: Intel loads a flat DPL-3 SS cache (SDM Vol.2 SYSRET); AMD
 *     changes only the selector and keeps the hidden SS attributes (APM3 SYSRET:
 *     "SS.attr unchanged"; the behaviour Linux calls SYSRET_SS_ATTRS).
 */
#include "emu/canonical.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/debug.h"
#include "emu/flags.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/fast_forms.h"
#include "emu/threaded.h"
#include "isa_handlers.h"

/* SYSCALL and SYSRET single-step by the TF they leave, not the one they
 * found: the RFLAGS load (SYSCALL's "RFLAGS := RFLAGS AND NOT(IA32_FMASK)",
 * SYSRET's R11) is part of the instruction (SDM Vol.2 SYSCALL, SYSRET; APM3
 * SYSCALL, SYSRET), and the single-step condition of SDM Vol.3 17.3.1.4
 * follows the flags as it completes. So a kernel whose FMASK clears TF takes
 * no #DB on its entry point, and a SYSRET that sets TF traps at once, in user
 * mode (the XSA-204 fix to Xen's emulator, kvm-unit-tests' syscall "TF
 * handling", Linux's entry_64.S note on SYSRET and TF). With TF set at the
 * start, run_one() steps this instruction and reads the new TF; without, the
 * trap is armed here. */
static void step_by_new_tf(struct cpu *cpu, bool tf_before)
{
	if (tf_before)
		cpu->step_by_result = true;
	else if (cpu->rflags & FLAG_TF)
		debug_arm_trap(cpu, true);
}

/* SYSCALL (0F 05). SDM Vol.2 SYSCALL; APM3 SYSCALL. */
status_t op_syscall(struct cpu *cpu, const struct insn *in)
{
	if (!(cpu->efer & EFER_SCE))
		return cpu_raise(cpu, EXC_UD);
	if (!cpu_is_amd(cpu) && !cpu_is_mode64(cpu))
		return cpu_raise(cpu, EXC_UD);
	/* APM3 SYSCALL: #UD in real and virtual-8086 mode as well. */
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86)
		return cpu_raise(cpu, EXC_UD);

	uint16_t cs = (uint16_t)((cpu->star >> 32) & 0xfffc);
	/* RF is cleared in both the saved and the new flags (APM3 SYSCALL; for Intel
	 * RF is 0 once the instruction completes, SDM Vol.3 17.3.1.1). */
	uint64_t flags = cpu_get_flags(cpu) & ~(uint64_t)FLAG_RF;
	bool tf_before = flags & FLAG_TF;

	if (cpu->efer & EFER_LMA) {
		/* Long mode: RCX = next RIP, R11 = RFLAGS, RFLAGS &= ~SFMASK; the target is
		 * LSTAR from 64-bit mode and CSTAR from compatibility mode (AMD only). */
		cpu->regs[R_CX] = cpu->rip;
		cpu->regs[R_R11] = flags;
		cpu_set_flags(cpu, flags & ~cpu->sfmask);
		seg_load_flat(&cpu->seg[SR_CS], cs, true, 0, true);
		cpu->rip = cpu_is_mode64(cpu) ? cpu->lstar : cpu->cstar;
	} else {
		/* AMD legacy mode: ECX = next EIP, EIP = STAR[31:0]; VM, IF and RF are
		 * cleared (APM3 SYSCALL, legacy-mode operation). */
		cpu->regs[R_CX] = (uint32_t)cpu->rip;
		cpu_set_flags(cpu, flags & ~(uint64_t)(FLAG_VM | FLAG_IF));
		seg_load_flat(&cpu->seg[SR_CS], cs, true, 0, false);
		cpu->rip = (uint32_t)cpu->star;
	}
	seg_load_flat(&cpu->seg[SR_SS], (uint16_t)(cs + 8), false, 0, false);
	cpu->cpl = 0;
	cpu_update_mode(cpu);
	step_by_new_tf(cpu, tf_before);
	return ST_OK;
}

/* SYSRET (0F 07; REX.W: return to 64-bit mode). SDM Vol.2 SYSRET; APM3 SYSRET. */
status_t op_sysret(struct cpu *cpu, const struct insn *in)
{
	bool to64 = in->osize == 8;

	if (!(cpu->efer & EFER_SCE))
		return cpu_raise(cpu, EXC_UD);
	if (!cpu_is_amd(cpu) && !cpu_is_mode64(cpu))
		return cpu_raise(cpu, EXC_UD);
	if (cpu->mode == MODE_REAL || cpu->mode == MODE_V86 || cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	/* Intel: "IF (RCX is not canonical) THEN #GP(0)" before any state changes;
	 * RCX becomes RIP, so the width is the paging mode's (addr_canonical()). */
	bool bad_rip = to64 && !addr_canonical(cpu, cpu->regs[R_CX]);
	if (bad_rip && !cpu_is_amd(cpu))
		return cpu_raise_err(cpu, EXC_GP, 0);

	uint16_t base = (uint16_t)(cpu->star >> 48);
	uint16_t ss = (uint16_t)((base + 8) | 3);
	bool tf_before = cpu->rflags & FLAG_TF;

	if (cpu->efer & EFER_LMA) {
		/* RFLAGS = (R11 & 3C7FD7H) | 2: RF and VM are never restored. */
		cpu_set_flags(cpu, (cpu->regs[R_R11] & 0x3c7fd7) | FLAG_FIXED1);
		if (to64) {
			seg_load_flat(&cpu->seg[SR_CS], (uint16_t)((base + 16) | 3), true, 3, true);
			cpu->rip = cpu->regs[R_CX];
		} else {
			seg_load_flat(&cpu->seg[SR_CS], (uint16_t)(base | 3), true, 3, false);
			cpu->rip = (uint32_t)cpu->regs[R_CX];
		}
	} else {
		/* AMD legacy mode: EFLAGS.IF = 1, return to 32-bit code at ECX. */
		cpu_set_flags(cpu, cpu_get_flags(cpu) | FLAG_IF);
		seg_load_flat(&cpu->seg[SR_CS], (uint16_t)(base | 3), true, 3, false);
		cpu->rip = (uint32_t)cpu->regs[R_CX];
	}
	if (cpu_is_amd(cpu)) {
		cpu->seg[SR_SS].selector = ss;
	} else {
		seg_load_flat(&cpu->seg[SR_SS], ss, false, 3, false);
	}
	cpu->cpl = 3;
	cpu_update_mode(cpu);
	if (bad_rip) {
		/* AMD: the next fetch faults at CPL 3; report the new RIP. */
		cpu->insn_start = cpu->rip;
		return cpu_raise_err(cpu, EXC_GP, 0);
	}
	step_by_new_tf(cpu, tf_before);
	return ST_OK;
}

/* SWAPGS (0F 01 F8, 64-bit mode only): exchange GS.base with IA32_KERNEL_GS_BASE
 * (SDM Vol.2 SWAPGS: "#GP(0) If CPL != 0"). */
status_t op_swapgs(struct cpu *cpu, const struct insn *in)
{
	if (cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	uint64_t t = cpu->seg[SR_GS].base;
	cpu->seg[SR_GS].base = cpu->kernel_gs_base;
	cpu->kernel_gs_base = t;
	return ST_OK;
}

/* RDFSBASE, RDGSBASE, WRFSBASE, WRGSBASE (F3 0F AE /0-/3, register form, 64-bit
 * mode only; SDM Vol.2 RDFSBASE/RDGSBASE, WRFSBASE/WRGSBASE). #UD while
 * CR4.FSGSBASE = 0 (which emu/control_regs.c allows to be set only where
 * CPUID.(EAX=7,ECX=0):EBX.FSGSBASE[0] is advertised). With a 32-bit operand
 * size the read returns base[31:0] (zero-extended into the 64-bit register) and
 * the write loads the zero-extended value, which is always canonical; a 64-bit
 * write is #GP(0) unless canonical to the processor's width (a hidden segment
 * base: emu/canonical.h addr_canonical_reg()). Available at any CPL. */
status_t op_fsgsbase(struct cpu *cpu, const struct insn *in)
{
	if (!(cpu->cr4 & CR4_FSGSBASE))
		return cpu_raise(cpu, EXC_UD);
	unsigned op = (in->modrm >> 3) & 7;       /* /0 RDFS, /1 RDGS, /2 WRFS, /3 WRGS */
	uint64_t *base = &cpu->seg[(op & 1) ? SR_GS : SR_FS].base;
	if (op < 2) {
		reg_write(cpu, in->rm, in->size, true, in->size == 8 ? *base : (uint32_t)*base);
		return ST_OK;
	}
	uint64_t v = reg_read(cpu, in->rm, in->size, true);
	if (in->size == 8 && !addr_canonical_reg(cpu, v))
		return cpu_raise_err(cpu, EXC_GP, 0);
	*base = v;
	return ST_OK;
}

/* RDTSCP (0F 01 F9): EDX:EAX = TSC, ECX = IA32_TSC_AUX[31:0] (SDM Vol.2 RDTSCP:
 * #UD unless CPUID.80000001H:EDX.RDTSCP[27]; #GP(0) with CR4.TSD = 1 at CPL > 0). */
status_t op_rdtscp(struct cpu *cpu, const struct insn *in)
{
	status_t st;

	if ((st = intercept_insn_before_checks(cpu, in)) != ST_OK)
		return st;
	if ((cpu->cr4 & CR4_TSD) && cpu->mode != MODE_REAL && cpu->cpl > 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	uint64_t tsc = cpu_now(cpu) + cpu->tsc_offset;
	reg_write(cpu, R_AX, 4, false, (uint32_t)tsc);
	reg_write(cpu, R_DX, 4, false, tsc >> 32);
	reg_write(cpu, R_CX, 4, false, (uint32_t)cpu->tsc_aux);
	return ST_OK;
}

/* RDPID (F3 0F C7 /7, register form): IA32_TSC_AUX into the register, all 64
 * bits in 64-bit mode and the low 32 elsewhere, whatever REX.W says (SDM Vol.2
 * RDPID Operation); #UD unless CPUID.7.0:ECX.RDPID[22] (the row's feature).
 * CR4.TSD does not apply. A VMX guest whose "enable RDTSCP" is 0 gets #UD
 * (SDM Vol.3 25.3), asked first as for RDTSCP. */
status_t op_rdpid(struct cpu *cpu, const struct insn *in)
{
	status_t st;
	if ((st = intercept_insn_before_checks(cpu, in)) != ST_OK)
		return st;
	if ((st = intercept_insn(cpu, in)) != ST_OK)
		return st;
	reg_write(cpu, in->rm, cpu->mode == MODE_LONG64 ? 8 : 4, false, cpu->tsc_aux);
	return ST_OK;
}

/* MOVSXD Gv, Ed (63 /r, 64-bit mode): REX.W sign-extends the doubleword; without
 * it the SDM calls the 32/16-bit forms "discouraged": a plain move of that size,
 * reading a word for the 16-bit form (SDM Vol.2 MOVSX/MOVSXD; a 32-bit destination
 * is zero-extended as every 32-bit write). */
status_t op_movsxd(struct cpu *cpu, const struct insn *in)
{
	uint64_t v;
	status_t st = rm_read(cpu, in, in->osize == 2 ? 2 : 4, &v);
	if (st != ST_OK)
		return st;
	if (in->osize == 8)
		v = (uint64_t)sign_extend(v, 4);
	greg_write(cpu, in, in->osize, v);
	return ST_OK;
}
/* With 32- or 64-bit registers (decode-time fast forms): a 32-bit operand
 * size moves the doubleword, zero-extended as every 32-bit write is. */
status_t op_movsxd_r32(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->reg] = (uint32_t)cpu->regs[in->rm];
	return ST_OK;
}
status_t op_movsxd_r64(struct cpu *cpu, const struct insn *in)
{
	cpu->regs[in->reg] = (uint64_t)(int64_t)(int32_t)cpu->regs[in->rm];
	return ST_OK;
}
THREADED_PURE(movsxd_r32) THREADED_PURE(movsxd_r64) THREADED_PURE_REG(movsxd)
