/* Odd but legal VM exits: vmx/exit_perturb.h. The rules are the SDM Vol.3's
 * (325462-075US numbering) for each VM-exit information field, 27.2.1-27.2.5. */
#include "vmx/exit_perturb.h"
#include "emu/perturb_random.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"
#include "vmx/vmcs.h"

/* Bits of instruction-information formats (Tables 27-8 to 27-14). */
#define II_SCALING     0x00000003u  /* 1:0 */
#define II_REG1        0x00000078u  /* 6:3 */
#define II_ADDR_SIZE   0x00000380u  /* 9:7 */
#define II_MEM_REG     0x00000400u  /* 10: 1 = register operand */
#define II_OPSIZE      0x00000800u  /* 11 (Table 27-10) */
#define II_SEGMENT     0x00038000u  /* 17:15 */
#define II_INDEX       0x003c0000u  /* 21:18 */
#define II_INDEX_BAD   0x00400000u  /* 22: no index register */
#define II_BASE        0x07800000u  /* 26:23 */
#define II_BASE_BAD    0x08000000u  /* 27: no base register */
#define II_MEMORY_FORM (II_SCALING | II_ADDR_SIZE | II_SEGMENT | II_INDEX | II_INDEX_BAD | II_BASE | II_BASE_BAD)

enum ii_format { II_NONE, II_INS_OUTS, II_INV, II_DESC_TABLE, II_LDT_TR, II_RDRAND, II_VMPTR, II_VMREAD };

/* The format of the exit's instruction-information field (27.2.5: "For all
 * other VM exits, the field is undefined"). */
static enum ii_format format_of(const struct vmx_perturb_ctx *ctx, const struct vmx_exit *x)
{
	switch (x->reason & VMX_EXIT_BASIC_MASK) {
	case VMX_EXIT_IO_INSTRUCTION:
		/* INS/OUTS (qualification bit 4: string), when IA32_VMX_BASIC[54]. */
		return (x->qualification & 0x10) && ctx->ins_outs_info ? II_INS_OUTS : II_NONE;
	case VMX_EXIT_INVEPT: case VMX_EXIT_INVVPID: case VMX_EXIT_INVPCID:
		return II_INV;
	case VMX_EXIT_GDTR_IDTR_ACCESS:
		return II_DESC_TABLE;
	case VMX_EXIT_LDTR_TR_ACCESS:
		return II_LDT_TR;
	case VMX_EXIT_RDRAND: case VMX_EXIT_RDSEED:
		return II_RDRAND;
	case VMX_EXIT_VMCLEAR: case VMX_EXIT_VMPTRLD: case VMX_EXIT_VMPTRST: case VMX_EXIT_VMXON:
	case VMX_EXIT_XSAVES: case VMX_EXIT_XRSTORS:
		return II_VMPTR;
	case VMX_EXIT_VMREAD: case VMX_EXIT_VMWRITE:
		return II_VMREAD;
	default:
		return II_NONE;
	}
}

/* The bits of a defined instruction-information value the format calls
 * undefined. */
static uint32_t undefined_bits(enum ii_format f, const struct vmx_perturb_ctx *ctx, const struct vmx_exit *x)
{
	uint32_t info = x->insn_info, u;
	/* Tables 27-9, -10, -11, -13, -14: scaling and IndexReg undefined with
	 * no index register (bit 22), BaseReg with no base register (bit 27). */
	uint32_t mem = ((info & II_INDEX_BAD) ? II_SCALING | II_INDEX : 0) | ((info & II_BASE_BAD) ? II_BASE : 0);
	switch (f) {
	case II_INS_OUTS:
		/* Table 27-8: 6:0, 14:10, 31:18 undefined; the segment (17:15)
		 * undefined for INS (qualification bit 3: IN). */
		u = 0x0000007fu | 0x00007c00u | 0xfffc0000u;
		if (x->qualification & 0x8)
			u |= II_SEGMENT;
		return u;
	case II_INV:
		/* Table 27-9: 6:2 and 14:11 undefined (bit 10 is cleared to 0). */
		return 0x0000007cu | 0x00007800u | mem;
	case II_DESC_TABLE:
		/* Table 27-10: 6:2, 14:12, 31:30 undefined; operand size (11)
		 * undefined for exits from 64-bit mode. */
		return 0x0000007cu | 0x00007000u | 0xc0000000u | (ctx->from_64bit ? II_OPSIZE : 0) | mem;
	case II_LDT_TR:
	case II_VMREAD:
		/* Tables 27-11 and 27-14: bit 2 and 14:11 undefined (27-11 also
		 * 31:30; 27-14's 31:28 are Reg2); a register form (bit 10) leaves
		 * the memory-operand bits undefined, a memory form Reg1 (6:3). */
		u = 0x00000004u | 0x00007800u | (f == II_LDT_TR ? 0xc0000000u : 0);
		return u | ((info & II_MEM_REG) ? II_MEMORY_FORM : II_REG1 | mem);
	case II_RDRAND:
		/* Table 27-12: 2:0, 10:7, 31:13 undefined. */
		return 0x00000007u | 0x00000780u | 0xffffe000u;
	case II_VMPTR:
		/* Table 27-13: 6:2, 14:11, 31:28 undefined (bit 10 cleared to 0). */
		return 0x0000007cu | 0x00007800u | 0xf0000000u | mem;
	case II_NONE:
		break;
	}
	return 0;
}

/* The guest-linear address is defined for LMSW with a memory operand, INS
 * and OUTS, and EPT violations with qualification bit 7 (27.2.1); "for all
 * other VM exits, the field is undefined". */
static bool guest_linear_defined(const struct vmx_exit *x)
{
	switch (x->reason & VMX_EXIT_BASIC_MASK) {
	case VMX_EXIT_CR_ACCESS:
		/* Table 27-3: access type (5:4) 3 = LMSW, bit 6 = memory operand. */
		return ((x->qualification >> 4) & 3) == 3 && (x->qualification & 0x40);
	case VMX_EXIT_IO_INSTRUCTION:
		return x->qualification & 0x10;
	case VMX_EXIT_EPT_VIOLATION:
		return x->qualification & 0x80;
	default:
		return false;
	}
}

unsigned vmx_perturb_exit(uint64_t *state, const struct vmx_perturb_ctx *ctx, struct vmx_exit *x)
{
	if (x->reason & VMX_EXIT_ENTRY_FAILURE)
		return 0;
	unsigned changed = 0;
	unsigned reason = x->reason & VMX_EXIT_BASIC_MASK;
	/* 27.2.5: the instruction length is written for exits due to
	 * instructions and the event-delivery cases it lists, "for all other VM
	 * exits, the field is undefined"; the model writes 0 exactly there (no
	 * instruction is 0 bytes long). */
	if (x->insn_len == 0) {
		x->insn_len = (uint32_t)perturb_random_next(state);
		changed |= VMX_PERTURB_INSN_LEN;
	}
	enum ii_format f = format_of(ctx, x);
	uint32_t undef = f == II_NONE ? 0xffffffffu : undefined_bits(f, ctx, x);
	uint32_t info = (x->insn_info & ~undef) | ((uint32_t)perturb_random_next(state) & undef);
	if (info != x->insn_info) {
		x->insn_info = info;
		changed |= VMX_PERTURB_INSN_INFO;
	}
	if (!guest_linear_defined(x)) {
		x->guest_linear = perturb_random_next(state);
		changed |= VMX_PERTURB_GUEST_LINEAR;
	}
	/* 27.2.1: the guest-physical address is written for EPT violations and
	 * misconfigurations (undefined for other exits). */
	if (ctx->has_guest_physical && reason != VMX_EXIT_EPT_VIOLATION && reason != VMX_EXIT_EPT_MISCONFIG) {
		x->guest_physical = perturb_random_next(state);
		changed |= VMX_PERTURB_GUEST_PHYSICAL;
	}
	/* 27.2.2, 27.2.4: an error code field is defined only when its
	 * information field is valid with bit 11 ("error code valid") set. */
	if ((x->intr_info & (VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR)) != (VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR)) {
		x->intr_error = (uint32_t)perturb_random_next(state);
		changed |= VMX_PERTURB_INTR_ERROR;
	}
	if ((x->idt_vectoring_info & (VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR)) !=
	    (VMX_INTR_VALID | VMX_INTR_DELIVER_ERROR)) {
		x->idt_vectoring_error = (uint32_t)perturb_random_next(state);
		changed |= VMX_PERTURB_IDT_ERROR;
	}
	return changed;
}
