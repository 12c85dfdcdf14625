/* svm_exit_fuzz's L2 code: each template is a few set-up MOVs and one key
 * instruction, assembled from 5 input bytes; the oracle is told where the key
 * instruction starts and how long it is, and the IOPM/MSRPM bits a template
 * looks at are set as its operands choose. */
#include "fuzz/svm_exit_fuzz.h"

#include <string.h>

#include "fuzz/l2_templates.h"

/* The template numbers that are a plain instruction (fuzz/l2_templates.h). */
static const uint8_t plain[OP_COUNT] = {
	[OP_NOP] = L2_NOP, [OP_CPUID] = L2_CPUID, [OP_RDTSC] = L2_RDTSC, [OP_RDTSCP] = L2_RDTSCP,
	[OP_RDPMC] = L2_RDPMC, [OP_HLT] = L2_HLT, [OP_PAUSE] = L2_PAUSE, [OP_INVD] = L2_INVD,
	[OP_WBINVD] = L2_WBINVD, [OP_VMMCALL] = L2_VMMCALL, [OP_PUSHF] = L2_PUSHF, [OP_RDMSR] = L2_RDMSR,
	[OP_WRMSR] = L2_WRMSR, [OP_INT3] = L2_INT3, [OP_UD2] = L2_UD2, [OP_DIV0] = L2_DIV_ECX,
	[OP_ICEBP] = L2_ICEBP, [OP_RETF16] = L2_RETF16, [OP_XSETBV] = L2_XSETBV, [OP_MONITOR] = L2_MONITOR,
	[OP_MWAIT] = L2_MWAIT, [OP_RSM] = L2_RSM, [OP_INVLPGA] = L2_INVLPGA, [OP_VMLOAD] = L2_VMLOAD,
	[OP_VMSAVE] = L2_VMSAVE, [OP_STGI] = L2_STGI, [OP_CLGI] = L2_CLGI,
};

void svm_exit_assemble(struct assembler *as, struct l2_insn *in, const struct vmcb *v, const uint8_t op[5],
		       uint8_t *iopm_bits, uint8_t *msrpm_bits)
{
	bool m64 = as->m64;
	uint8_t a = op[1], b = op[2], c = op[3], d = op[4];
	struct l2_port_access port = { .string = false };
	memset(in, 0, sizeof(*in));
	in->op = op[0] % OP_COUNT;
	in->seg = -1;
	in->size = 4;
	if (in->op == OP_RETF16 && m64)
		in->op = OP_NOP;
	switch (in->op) {
	case OP_RDPMC:
	case OP_DIV0:
		mov_imm32(as, 1, 0);       /* ECX = 0 */
		break;
	case OP_IN:
	case OP_OUT:
	case OP_INS:
	case OP_OUTS: {
		static const uint16_t ports[] = { 0x80, 0x70, 0x3f8, 0xcf8, 0xffff, 0xfffe, 0x60, 0 };
		port = (struct l2_port_access){ .string = in->op == OP_INS || in->op == OP_OUTS,
						 .out = in->op == OP_OUT || in->op == OP_OUTS };
		l2_io_setup(as, in, port, ports, a, b, c);
		/* The IOPM bits this access looks at: its first port, or its last.
		 * The 12-KiB IOPM (APM2 15.10.1) has bits past port FFFFh, so an
		 * access's last port is marked even there (unlike the VMX bitmaps). */
		if (d & 1)
			iopm_bits[in->imm / 8] |= (uint8_t)(1u << (in->imm % 8));
		if (d & 2) {
			uint32_t last = in->imm + in->size - 1;
			iopm_bits[last / 8] |= (uint8_t)(1u << (last % 8));
		}
		break;
	}
	case OP_RDMSR:
	case OP_WRMSR: {
		static const uint32_t msrs[] = { 0x10, 0x1b, 0x174, 0xc0000080u, 0xc0000081u, 0xc0010000u,
						 0xc0011fffu, 0x2000, 0xc0002000u, 0x40000000u, 0x1fff, 0 };
		in->imm = a % 12 == 11 ? (uint32_t)(b | c << 8 | (uint32_t)d << 24) : msrs[a % 12];
		mov_imm32(as, 1, in->imm);
		if (in->op == OP_WRMSR) {
			in->value = (uint64_t)b << 8;
			mov_imm32(as, 0, (uint32_t)in->value);
			mov_imm32(as, 2, 0);
		}
		uint32_t byte_in_map, ranges[3] = { 0, 0xc0000000u, 0xc0010000u };
		for (unsigned r = 0; r < 3; r++) {
			if (in->imm - ranges[r] < 0x2000u) {
				uint32_t bit = r * 0x4000u + (in->imm - ranges[r]) * 2;
				byte_in_map = bit / 8;
				if (d & 1)
					msrpm_bits[byte_in_map] |= (uint8_t)(1u << (bit % 8 + (in->op == OP_WRMSR)));
				if (d & 2)
					msrpm_bits[byte_in_map] |= (uint8_t)(1u << (bit % 8 + (in->op != OP_WRMSR)));
			}
		}
		break;
	}
	case OP_MOV_FROM_CR:
	case OP_MOV_TO_CR:
	case OP_MOV_FROM_DR:
	case OP_MOV_TO_DR: {
		bool cr = in->op == OP_MOV_FROM_CR || in->op == OP_MOV_TO_CR;
		bool wr = in->op == OP_MOV_TO_CR || in->op == OP_MOV_TO_DR;
		static const uint8_t crs[] = { 0, 2, 3, 4, 8 }, drs[] = { 0, 1, 2, 3, 6, 7 };
		in->imm = cr ? crs[a % (m64 ? 5 : 4)] : drs[a % 6];
		in->reg = (uint8_t)pick_gpr(m64, b);
		if (wr) {
			uint64_t cur = 0;
			if (cr)
				cur = in->imm == 0 ? v->save.cr0 : in->imm == 2 ? v->save.cr2 : in->imm == 3 ? v->save.cr3 :
				      in->imm == 4 ? v->save.cr4 : 0;
			else
				cur = in->imm == 6 ? v->save.dr6 : in->imm == 7 ? v->save.dr7 : (uint64_t)c << 12;
			if (c % 4 == 0)
				cur ^= 1ull << (d % (m64 ? 64 : 32));
			in->value = cur;
			mov_imm(as, in->reg, cur);
		}
		in->rip = L2_CODE + as->len;
		l2_emit_mov_crdr(as, cr, wr, in->imm, in->reg);
		in->len = (uint8_t)(L2_CODE + as->len - in->rip);
		return;
	}
	case OP_LOAD:
	case OP_STORE:
	case OP_INVLPG:
		l2_moffs_operand(in, m64, in->op == OP_INVLPG, a, b, c);
		break;
	case OP_RETF16: {
		uint32_t ss_base = (uint32_t)v->save.ss.base;
		static const uint32_t targets[] = { HOLE, 0, DATA };
		in->value = (uint32_t)(targets[a % 3] + (b & 0xf0) - ss_base);
		mov_imm32(as, 4, (uint32_t)in->value);
		break;
	}
	case OP_SETSP: {
		/* ESP where a frame's push lands: in the hole (through the
		 * Escape base, wrapping at 4 GiB), page 0, the stack, data. */
		uint32_t ss_base = (uint32_t)v->save.ss.base;
		static const uint32_t targets[] = { HOLE + 0x10, 0x10, L2_STACK, DATA + 0x100, HOLE + 0x1000 + 6 };
		in->value = (uint32_t)(targets[a % 5] + (b & 0x0e) - ss_base);
		mov_imm32(as, 4, (uint32_t)in->value);
		in->rip = L2_CODE + as->len - 5;
		in->len = 5;
		return;
	}
	case OP_XSETBV:
		in->value = l2_xsetbv_setup(as, a);
		break;
	case OP_INTN:
		in->imm = a;
		break;
	case OP_VMLOAD:
	case OP_VMSAVE:
		mov_imm32(as, 0, DATA);    /* rAX: a page-aligned address in RAM */
		break;
	default:
		break;
	}

	in->rip = L2_CODE + as->len;
	switch (in->op) {
	case OP_INVLPG: l2_emit_invlpg(as, in); break;
	case OP_IN:
	case OP_OUT:
	case OP_INS:
	case OP_OUTS: l2_emit_io(as, in, port); break;
	case OP_INTN: emit1(as, 0xcd); emit1(as, (uint8_t)in->imm); break;
	case OP_LOAD:
	case OP_STORE: l2_emit_moffs(as, in->op == OP_STORE, in); break;
	case OP_SIDT:
	case OP_SGDT:
	case OP_LIDT:
	case OP_LGDT: {
		/* 0F 01 /0 SGDT, /1 SIDT, /2 LGDT, /3 LIDT with [data]. */
		static const uint8_t ext[] = { [OP_SGDT - OP_SIDT] = 0, [OP_SIDT - OP_SIDT] = 1,
					       [OP_LGDT - OP_SIDT] = 2, [OP_LIDT - OP_SIDT] = 3 };
		unsigned r = ext[in->op - OP_SIDT];
		emit1(as, 0x0f);
		emit1(as, 0x01);
		if (m64) {
			emit1(as, (uint8_t)(0x04 | r << 3));
			emit1(as, 0x25);   /* SIB: disp32, no base */
		} else {
			emit1(as, (uint8_t)(0x05 | r << 3));
		}
		emit32(as, DATA);
		break;
	}
	case OP_SLDT:
	case OP_STR:
	case OP_LLDT:
	case OP_LTR: {
		/* 0F 00 /0 SLDT, /1 STR, /2 LLDT, /3 LTR with AX. */
		static const uint8_t ext[] = { [OP_SLDT - OP_SLDT] = 0, [OP_STR - OP_SLDT] = 1,
					       [OP_LLDT - OP_SLDT] = 2, [OP_LTR - OP_SLDT] = 3 };
		emit(as, (const uint8_t[]){ 0x0f, 0x00, (uint8_t)(0xc0 | ext[in->op - OP_SLDT] << 3) }, 3);
		break;
	}
	default:
		if (plain[in->op] == L2_NONE)
			in->op = OP_NOP;
		l2_emit_plain(as, plain[in->op]);
		break;
	}
	in->len = (uint8_t)(L2_CODE + as->len - in->rip);
}
