/* svm_exit_fuzz's L2 code: each template is a few set-up MOVs and one key
 * instruction, assembled from 5 input bytes; the oracle is told where the key
 * instruction starts and how long it is, and the IOPM/MSRPM bits a template
 * looks at are set as its operands choose. */
#include "fuzz/svm_exit_fuzz.h"

#include <string.h>

/* An address for a data access: present, a hole, page 0, a page crossing
 * into the hole, a 32-bit wrap onto the hole through a base of 4000_0000h,
 * non-canonical, beyond the mapping. */
static uint64_t pick_address(bool m64, uint8_t a, uint8_t off)
{
	switch (a % 8) {
	case 0: return DATA + off;
	case 1: return HOLE + off * 4u;
	case 2: return off;
	case 3: return DATA + 0xffe;
	case 4: return (uint32_t)(HOLE - SEG_BASE_ESCAPE) + off;
	case 5: return m64 ? 0x8000000000000000ull + off : 0xfffffffeu;
	case 6: return m64 ? 0x40000000ull : 0x00400000u;
	default: return L2_STACK - 0x100 + off;
	}
}

void svm_exit_assemble(struct assembler *as, struct oracle_insn *in, const struct vmcb *v, const uint8_t op[5],
		       uint8_t *iopm_bits, uint8_t *msrpm_bits)
{
	bool m64 = as->m64;
	uint8_t a = op[1], b = op[2], c = op[3], d = op[4];
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
		in->imm = a % 8 == 7 ? (uint32_t)(b | c << 8) : ports[a % 8];
		in->size = (const uint8_t[]){ 1, 2, 4 }[b % 3];
		bool str = in->op == OP_INS || in->op == OP_OUTS;
		if (str || !(c & 1) || in->imm > 0xff) {
			in->flags |= OI_PORT_DX;
			mov_imm32(as, 2, in->imm);
		}
		if (str) {
			if (c & 2)
				in->flags |= OI_REP;
			if (c & 4)
				in->flags |= OI_ADDR_OVR;
			bool a16 = !m64 && (in->flags & OI_ADDR_OVR);
			in->value = a16 ? (DATA & 0xffff) : DATA;
			mov_imm32(as, in->op == OP_INS ? 7 : 6, (uint32_t)in->value);
			mov_imm32(as, 1, 1);
			if (in->op == OP_OUTS && (c >> 3) % 7 < 6)
				in->seg = (int8_t)((c >> 3) % 7);
		}
		/* The IOPM bits this access looks at: its first port, or its last. */
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
		unsigned rex = 0x40 | (in->imm >= 8 ? 4 : 0) | (in->reg >= 8 ? 1 : 0);
		if (rex != 0x40)
			emit1(as, (uint8_t)rex);
		emit1(as, 0x0f);
		emit1(as, (uint8_t)((cr ? 0x20 : 0x21) | (wr ? 2 : 0)));
		in->rip = L2_CODE + as->len - 2 - (rex != 0x40);
		emit1(as, (uint8_t)(0xc0 | (in->imm & 7) << 3 | (in->reg & 7)));
		in->len = (uint8_t)(L2_CODE + as->len - in->rip);
		return;
	}
	case OP_LOAD:
	case OP_STORE:
	case OP_INVLPG:
		in->value = pick_address(m64, a, b);
		if (c % 4 == 1)
			in->seg = 2;       /* SS */
		else if (c % 4 == 2)
			in->seg = 0;       /* ES */
		if (in->op == OP_INVLPG && m64 && (in->value >> 31))
			in->value = DATA;  /* disp32 only */
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
		in->value = (const uint8_t[]){ 1, 3, 0, 2 }[a % 4];
		mov_imm32(as, 1, 0);
		mov_imm32(as, 0, (uint32_t)in->value);
		mov_imm32(as, 2, 0);
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
	case OP_NOP: emit1(as, 0x90); break;
	case OP_CPUID: emit(as, (const uint8_t[]){ 0x0f, 0xa2 }, 2); break;
	case OP_RDTSC: emit(as, (const uint8_t[]){ 0x0f, 0x31 }, 2); break;
	case OP_RDTSCP: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xf9 }, 3); break;
	case OP_RDPMC: emit(as, (const uint8_t[]){ 0x0f, 0x33 }, 2); break;
	case OP_HLT: emit1(as, 0xf4); break;
	case OP_PAUSE: emit(as, (const uint8_t[]){ 0xf3, 0x90 }, 2); break;
	case OP_INVD: emit(as, (const uint8_t[]){ 0x0f, 0x08 }, 2); break;
	case OP_WBINVD: emit(as, (const uint8_t[]){ 0x0f, 0x09 }, 2); break;
	case OP_VMMCALL: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xd9 }, 3); break;
	case OP_PUSHF: emit1(as, 0x9c); break;
	case OP_INVLPG:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		if (m64) {
			emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3c, 0x25 }, 4);   /* [disp32] via SIB */
		} else {
			emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3d }, 3);
		}
		emit32(as, (uint32_t)in->value);
		break;
	case OP_IN:
	case OP_OUT: {
		bool out = in->op == OP_OUT;
		if (in->size == 2)
			emit1(as, 0x66);
		unsigned opc = (in->flags & OI_PORT_DX ? 0xec : 0xe4) + (out ? 2 : 0) + (in->size > 1);
		emit1(as, (uint8_t)opc);
		if (!(in->flags & OI_PORT_DX))
			emit1(as, (uint8_t)in->imm);
		break;
	}
	case OP_INS:
	case OP_OUTS:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		if (in->flags & OI_ADDR_OVR)
			emit1(as, 0x67);
		if (in->size == 2)
			emit1(as, 0x66);
		if (in->flags & OI_REP)
			emit1(as, 0xf3);
		emit1(as, (uint8_t)((in->op == OP_INS ? 0x6c : 0x6e) + (in->size > 1)));
		break;
	case OP_RDMSR: emit(as, (const uint8_t[]){ 0x0f, 0x32 }, 2); break;
	case OP_WRMSR: emit(as, (const uint8_t[]){ 0x0f, 0x30 }, 2); break;
	case OP_INTN: emit1(as, 0xcd); emit1(as, (uint8_t)in->imm); break;
	case OP_INT3: emit1(as, 0xcc); break;
	case OP_UD2: emit(as, (const uint8_t[]){ 0x0f, 0x0b }, 2); break;
	case OP_DIV0: emit(as, (const uint8_t[]){ 0xf7, 0xf1 }, 2); break;
	case OP_ICEBP: emit1(as, 0xf1); break;
	case OP_LOAD:
	case OP_STORE:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		emit1(as, in->op == OP_LOAD ? 0xa1 : 0xa3);    /* mov eax, moffs / mov moffs, eax */
		emit32(as, (uint32_t)in->value);
		if (m64)
			emit32(as, (uint32_t)(in->value >> 32));
		break;
	case OP_RETF16: emit(as, (const uint8_t[]){ 0x66, 0xcb }, 2); break;
	case OP_XSETBV: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xd1 }, 3); break;
	case OP_MONITOR: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xc8 }, 3); break;
	case OP_MWAIT: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xc9 }, 3); break;
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
	case OP_RSM: emit(as, (const uint8_t[]){ 0x0f, 0xaa }, 2); break;
	case OP_INVLPGA: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdf }, 3); break;
	case OP_VMLOAD: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xda }, 3); break;
	case OP_VMSAVE: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdb }, 3); break;
	case OP_STGI: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdc }, 3); break;
	case OP_CLGI: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdd }, 3); break;
	default: emit1(as, 0x90); in->op = OP_NOP; break;
	}
	in->len = (uint8_t)(L2_CODE + as->len - in->rip);
}
