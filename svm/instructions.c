/* The SVM instructions (APM3 VMRUN, VMLOAD, VMSAVE, STGI, CLGI, VMMCALL,
 * INVLPGA, SKINIT; APM2 15.5, 15.17, 15.27): their #UD and #GP rules, then,
 * in a guest, their intercepts (APM2 15.9: "after simple exceptions such as
 * #GP when CPL is incorrect, or #UD, have been checked, but before exceptions
 * ... based on specific operand values"), then what they do.
 */
#include "emu/canonical.h"
#include "emu/operand.h"
#include "mmu/nested.h"
#include "svm/exit_codes.h"
#include "svm/model.h"
#include "svm/vmcb_rows.h"

/* The intercept of each instruction and its exit code (APM2 Table B-1,
 * Appendix C). */
static const struct {
	uint8_t kind;              /* enum intercept_kind */
	uint16_t intercept;        /* enum svm_intercept */
	uint16_t code;             /* enum svm_exit_code */
} svm_insns[] = {
	{ IK_VMRUN,   SVM_INTERCEPT_VMRUN,   SVM_EXIT_VMRUN },
	{ IK_VMMCALL, SVM_INTERCEPT_VMMCALL, SVM_EXIT_VMMCALL },
	{ IK_VMLOAD,  SVM_INTERCEPT_VMLOAD,  SVM_EXIT_VMLOAD },
	{ IK_VMSAVE,  SVM_INTERCEPT_VMSAVE,  SVM_EXIT_VMSAVE },
	{ IK_STGI,    SVM_INTERCEPT_STGI,    SVM_EXIT_STGI },
	{ IK_CLGI,    SVM_INTERCEPT_CLGI,    SVM_EXIT_CLGI },
	{ IK_SKINIT,  SVM_INTERCEPT_SKINIT,  SVM_EXIT_SKINIT },
	{ IK_INVLPGA, SVM_INTERCEPT_INVLPGA, SVM_EXIT_INVLPGA },
};

/* APM3 pseudocode: PROTECTED_MODE is CR0.PE = 1 outside virtual-8086 mode. */
static bool protected_mode(const struct cpu *cpu)
{
	return cpu->mode != MODE_REAL && cpu->mode != MODE_V86;
}

/* rAX as the instruction's address size reads it (APM3 VMRUN: "the portion of
 * RAX used to form the address is determined by the effective address size"). */
static uint64_t rax_address(const struct cpu *cpu, const struct insn *in)
{
	return cpu->regs[R_AX] & size_mask(in->asize);
}

/* VMRUN, VMLOAD, VMSAVE: #GP(0) unless rAX is 4 KiB aligned and below
 * 2^MAXPHYADDR (APM3). */
static bool vmcb_address_ok(const struct cpu *cpu, uint64_t pa)
{
	return (pa & 0xfff) == 0 && (cpu->maxphyaddr >= 64 || (pa >> cpu->maxphyaddr) == 0);
}

/* APM2 15.33.1: virtual VMLOAD/VMSAVE needs nested paging; enabled without
 * it, the two instructions exit as if intercepted. */
static bool virtual_vmload_without_np(const struct svm *s, const struct cpu *cpu, enum intercept_kind kind)
{
	return (kind == IK_VMLOAD || kind == IK_VMSAVE) && svm_feature(s, SVM_FEAT_VMSAVE_VIRT) &&
	       (s->ctl.virt_ext & SVM_VMSAVE_VMLOAD_VIRT) && !cpu->stage2_on;
}

/* The exit of an intercepted SVM instruction, if the guest's VMCB asks. */
static status_t intercept(struct svm *s, struct cpu *cpu, const struct insn *in, enum intercept_kind kind,
			  bool *taken)
{
	*taken = false;
	if (!cpu->in_guest)
		return ST_OK;
	for (unsigned i = 0; i < sizeof(svm_insns) / sizeof(svm_insns[0]); i++) {
		if (svm_insns[i].kind != kind)
			continue;
		if (!svm_intercepted(s, (enum svm_intercept)svm_insns[i].intercept) &&
		    !virtual_vmload_without_np(s, cpu, kind))
			return ST_OK;
		*taken = true;
		struct svm_exit x = { .code = svm_insns[i].code, .guest_rip = cpu->insn_start,
				      .nrip = cpu->rip };
		(void)in;
		return svm_vmexit(s, &x);
	}
	return ST_OK;
}

/* ---- VMLOAD / VMSAVE: the state APM2 15.5.2 lists (the L rows of
 * svm/vmcb_fields.def, svm/vmcb_rows.h): FS, GS, TR, LDTR with their hidden
 * state, KernelGsBase, STAR, LSTAR, CSTAR, SFMASK, SYSENTER_CS/ESP/EIP ---- */

void svm_vmload_state(struct svm *s, uint64_t pa)
{
	struct cpu *cpu = s->cpu;
	struct vmcb v;
	physmem_read_bytes(cpu->mem, pa + offsetof(struct vmcb, save), &v.save, sizeof(v.save));
	vmcb_rows_vmload(cpu, &v, cpu_la57_supported(cpu) ? 57 : 48);
}

void svm_vmsave_state(struct svm *s, uint64_t pa)
{
	vmcb_rows_vmsave(s->cpu, pa);
}

/* APM2 15.33.1 (virtual VMSAVE/VMLOAD): in a guest with the feature, NP and
 * virt_ext bit 1, rAX is a guest-physical address translated by the nested
 * tables; elsewhere it is a (system) physical address. false: the nested
 * walk faulted and the #NPF exit was taken (*st). */
static bool vmcb_target(struct svm *s, struct cpu *cpu, bool write, uint64_t *pa, status_t *st)
{
	*st = ST_OK;
	bool virt = cpu->in_guest && cpu->stage2_on && svm_feature(s, SVM_FEAT_VMSAVE_VIRT) &&
		    (s->ctl.virt_ext & SVM_VMSAVE_VMLOAD_VIRT);
	if (!virt)
		return true;
	const struct paging_env guest_physical = { .mem = cpu->mem, .mode = PAGING_OFF,
						   .maxphyaddr = cpu->maxphyaddr };
	struct nested_result r;
	struct fault f;
	if (!nested_walk(&guest_physical, &cpu->stage2, *pa, write ? WALK_WRITE : WALK_READ, 0, &r, &f)) {
		*st = cpu_raise_fault(cpu, &f);
		return false;
	}
	*pa = r.pa;
	return true;
}

/* ---- the instructions ---- */

status_t svm_vm_insn(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind)
{
	struct svm *s = ctx;
	bool svme = cpu->efer & EFER_SVME;
	bool taken;
	status_t st;

	if (kind == IK_VMMCALL) {
		/* APM3 VMMCALL: any CPL; #UD unless intercepted. */
		if ((st = intercept(s, cpu, in, kind, &taken)) != ST_OK || taken)
			return st;
		return cpu_raise(cpu, EXC_UD);
	}
	/* APM3: #UD with EFER.SVME = 0, except STGI and SKINIT where SVM-Lock
	 * or the SKINIT feature (which no hvemu model has) is available (APM2
	 * 15.31: a secure loader's STGI runs before SVM is enabled); #UD outside
	 * protected mode; #GP(0) at CPL > 0. */
	bool svme_optional = (kind == IK_STGI || kind == IK_SKINIT) && svm_feature(s, SVM_FEAT_SVM_LOCK);
	if ((!svme && !svme_optional) || !protected_mode(cpu))
		return cpu_raise(cpu, EXC_UD);
	/* The quirk qemu-skinit-ud: #UD instead of the CPL check's #GP. */
	if (kind == IK_SKINIT && cpu->cpl != 0 && (s->quirks & QUIRK_BIT(QK_QEMU_SKINIT_UD)))
		return cpu_raise(cpu, EXC_UD);
	if (cpu->cpl != 0)
		return cpu_raise_err(cpu, EXC_GP, 0);
	if ((st = intercept(s, cpu, in, kind, &taken)) != ST_OK || taken)
		return st;

	switch (kind) {
	case IK_VMRUN: {
		uint64_t pa = rax_address(cpu, in);
		if (!vmcb_address_ok(cpu, pa))
			return cpu_raise_err(cpu, EXC_GP, 0);
		return svm_vmrun(s, pa, cpu->rip);
	}
	case IK_VMLOAD:
	case IK_VMSAVE: {
		uint64_t pa = rax_address(cpu, in);
		if (!vmcb_address_ok(cpu, pa))
			return cpu_raise_err(cpu, EXC_GP, 0);
		if (!vmcb_target(s, cpu, kind == IK_VMSAVE, &pa, &st))
			return st;
		if (kind == IK_VMLOAD)
			svm_vmload_state(s, pa);
		else
			svm_vmsave_state(s, pa);
		cpu_update_mode(cpu);
		return ST_OK;
	}
	case IK_STGI:
	case IK_CLGI:
		/* APM2 15.17: GIF; APM2 15.33.2: a guest with vGIF sets V_GIF. */
		if (cpu->in_guest && s->vgif_enabled)
			svm_vgif_set(s, kind == IK_STGI);
		else
			cpu->gif = kind == IK_STGI;
		cpu_attend(cpu, ATT_EVENT);
		return ST_OK;
	case IK_INVLPGA: {
		/* APM3 INVLPGA: the translation of the page at rAX in ASID ECX. */
		uint64_t lin = rax_address(cpu, in);
		uint32_t asid = (uint32_t)cpu->regs[R_CX];
		tlb_flush_space_page(&cpu->tlb, asid, lin);
		return ST_OK;
	}
	default:
		/* SKINIT: hvemu models no secure loader (no DEV, no TPM), and CPUID
		 * Fn8000_0001_ECX[SKINIT] is 0 on every model: #UD once the intercept
		 * had its say (APM3 SKINIT: #UD without the feature). */
		return cpu_raise(cpu, EXC_UD);
	}
}
