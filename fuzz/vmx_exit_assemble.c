/* vmx_exit_fuzz's L2 code: each template is a few set-up MOVs and one key
 * instruction, assembled from 5 input bytes; the oracle is told where the
 * key instruction starts, how long it is and how its ModRM memory operand is
 * encoded (base, index, scale, displacement, segment, address size: what the
 * VM-exit instruction information describes), and the I/O- and MSR-bitmap
 * bits a template looks at are set as its operands choose. */
#include "fuzz/vmx_exit_fuzz.h"

#include <string.h>

#include "fuzz/l2_templates.h"

/* An operand: a register (rm) or [base + index * scale + disp]. */
struct operand {
	bool mem;
	unsigned rm;                       /* register operand */
	struct l2_modrm m;
	int seg_override;                  /* -1: none */
};

/* Choose a memory operand from c and d and emit the MOVs that make its
 * effective address DATA + a little; describe it in in->mem. */
static void choose_mem(struct assembler *as, struct l2_insn *in, struct operand *o, uint8_t c, uint8_t d)
{
	bool m64 = as->m64;
	static const int8_t bases[8] = { 3, 6, 7, 5, 1, 2, -1, 0 };
	static const int8_t indexes[4] = { -1, 6, 7, 2 };
	int base = bases[c % 8], index = indexes[(c >> 3) % 4];
	if (m64 && base >= 0 && (c & 0x20))
		base += 8;
	if (m64 && index >= 0 && (d & 1))
		index += 8;
	if (index == base)
		index = -1;
	unsigned scale = (d >> 1) & 3;
	static const int32_t disps[4] = { 0x10, -0x10, 0x1234, -0x100 };
	int32_t disp = base < 0 ? (int32_t)DATA + 0x40 : disps[(d >> 3) % 4];
	uint64_t ea = DATA + 0x40;
	/* 64-bit mode: [RIP + disp32] instead of the absolute disp32. */
	bool rip_relative = m64 && base < 0 && (c & 0x40);
	if (rip_relative)
		index = -1;
	if (base >= 0)
		mov_imm(as, (unsigned)base, ea - (uint64_t)(int64_t)disp);
	if (index >= 0)
		mov_imm(as, (unsigned)index, 0);
	/* The segment: an override (64-bit mode: FS or GS only, the others are
	 * ignored there), else SS for an rBP or rSP base, else DS. */
	o->seg_override = -1;
	unsigned pick = (d >> 5) & 7;
	if (pick >= 2)
		o->seg_override = m64 ? 4 + (int)(pick & 1) : (int)(pick - 2) % 6;
	int seg = o->seg_override >= 0 ? o->seg_override : (base == 5 || base == 4) ? 2 : 3;
	o->mem = true;
	o->m = (struct l2_modrm){ .base = (int8_t)base, .index = (int8_t)index, .scale = (uint8_t)scale,
				.seg = (int8_t)seg, .disp = disp, .asize = m64 ? 8 : 4, .ea = ea,
				.rip_relative = rip_relative };
	in->flags |= L2_MEM;
	in->mem = o->m;
}

/* Emit the key instruction: [segment override] prefixes [REX] opcode ModRM
 * [SIB] [disp]; record its RIP and length in *in. reg: the ModRM reg field
 * (a register number or an opcode extension). */
static void emit_insn(struct assembler *as, struct l2_insn *in, const uint8_t *pfx, unsigned npfx, bool rex_w,
		      const uint8_t *opc, unsigned nopc, unsigned reg, const struct operand *o)
{
	in->rip = L2_CODE + as->len;
	if (o->mem && o->seg_override >= 0)
		emit1(as, seg_prefix[o->seg_override]);
	emit(as, pfx, npfx);
	if (as->m64) {
		unsigned rex = 0x40 | (rex_w ? 8 : 0) | (reg >= 8 ? 4 : 0);
		if (o->mem) {
			rex |= (o->m.index >= 8 ? 2 : 0) | (o->m.base >= 8 ? 1 : 0);
		} else {
			rex |= o->rm >= 8 ? 1 : 0;
		}
		if (rex != 0x40)
			emit1(as, (uint8_t)rex);
	}
	emit(as, opc, nopc);
	if (!o->mem) {
		emit1(as, (uint8_t)(0xc0 | (reg & 7) << 3 | (o->rm & 7)));
	} else if (o->m.rip_relative) {
		emit1(as, (uint8_t)((reg & 7) << 3 | 5));   /* mod 00, r/m 101: RIP + disp32 */
		emit32(as, 0);                               /* the last bytes: set below */
	} else {
		/* Always a SIB byte: index 100 without REX.X is "none"; base
		 * 101 with mod 00 is "disp32, no base". */
		unsigned mod = o->m.base < 0 ? 0 : (o->m.disp >= -128 && o->m.disp <= 127) ? 1 : 2;
		emit1(as, (uint8_t)(mod << 6 | (reg & 7) << 3 | 4));
		unsigned idx = o->m.index < 0 ? 4 : (unsigned)o->m.index & 7;
		unsigned bse = o->m.base < 0 ? 5 : (unsigned)o->m.base & 7;
		emit1(as, (uint8_t)(o->m.scale << 6 | idx << 3 | bse));
		if (mod == 1)
			emit1(as, (uint8_t)o->m.disp);
		else
			emit32(as, (uint32_t)o->m.disp);
	}
	in->len = (uint8_t)(L2_CODE + as->len - in->rip);
	if (o->mem && o->m.rip_relative) {
		/* The operand is at the next instruction's RIP + disp: make
		 * that DATA + 40h, never the code itself. */
		int32_t disp = (int32_t)(int64_t)(in->mem.ea - (in->rip + in->len));
		for (unsigned k = 0; k < 4; k++)
			as->buf[as->len - 4 + k] = (uint8_t)((uint32_t)disp >> (8 * k));
		in->mem.disp = disp;
	}
}

/* The template numbers that are a plain instruction (fuzz/l2_templates.h). */
static const uint8_t plain[VO_COUNT] = {
	[VO_NOP] = L2_NOP, [VO_CPUID] = L2_CPUID, [VO_RDTSC] = L2_RDTSC, [VO_RDTSCP] = L2_RDTSCP,
	[VO_RDPMC] = L2_RDPMC, [VO_HLT] = L2_HLT, [VO_PAUSE] = L2_PAUSE, [VO_INVD] = L2_INVD,
	[VO_WBINVD] = L2_WBINVD, [VO_VMCALL] = L2_VMCALL, [VO_VMLAUNCH] = L2_VMLAUNCH,
	[VO_VMRESUME] = L2_VMRESUME, [VO_VMXOFF] = L2_VMXOFF, [VO_CLTS] = L2_CLTS, [VO_RDMSR] = L2_RDMSR,
	[VO_WRMSR] = L2_WRMSR, [VO_INT3] = L2_INT3, [VO_UD2] = L2_UD2, [VO_DIV0] = L2_DIV_ECX,
	[VO_XSETBV] = L2_XSETBV, [VO_MONITOR] = L2_MONITOR, [VO_MWAIT] = L2_MWAIT,
};

void vmx_exit_assemble(struct assembler *as, struct l2_insn *in, const uint64_t *v, const uint8_t op[5],
		       uint8_t *io_bits, uint8_t *msr_bits)
{
	bool m64 = as->m64;
	uint8_t a = op[1], b = op[2], c = op[3], d = op[4];
	struct operand o = { 0 };
	struct l2_port_access port = { .string = false };
	memset(in, 0, sizeof(*in));
	in->op = op[0] % VO_COUNT;
	in->seg = -1;
	in->size = 4;

	switch (in->op) {
	case VO_IN:
	case VO_OUT:
	case VO_INS:
	case VO_OUTS: {
		static const uint16_t ports[] = { 0x80, 0x70, 0x3f8, 0xcf8, 0xffff, 0x7fff, 0x8000, 0 };
		port = (struct l2_port_access){ .string = in->op == VO_INS || in->op == VO_OUTS,
						 .out = in->op == VO_OUT || in->op == VO_OUTS };
		l2_io_setup(as, in, port, ports, a, b, c);
		/* The bitmap bits this access looks at: its first port, or its last.
		 * Bitmap B ends at port FFFFh (SDM Vol.3 24.6.4); an access past it
		 * exits whatever the bits (25.1.3), so there is none to set. */
		if (d & 1)
			io_bits[in->imm / 8] |= (uint8_t)(1u << (in->imm % 8));
		if (d & 2) {
			uint32_t last = in->imm + in->size - 1;
			if (last <= 0xffff)
				io_bits[last / 8] |= (uint8_t)(1u << (last % 8));
		}
		in->rip = L2_CODE + as->len;
		l2_emit_io(as, in, port);
		in->len = (uint8_t)(L2_CODE + as->len - in->rip);
		return;
	}
	case VO_RDMSR:
	case VO_WRMSR: {
		static const uint32_t msrs[] = { 0x10, 0x1b, 0x174, 0xc0000080u, 0xc0000081u, 0x1fff,
						 0xc0001fffu, 0x2000, 0xc0002000u, 0x40000000u, 0xc0010000u, 0 };
		in->imm = a % 12 == 11 ? (uint32_t)(b | c << 8 | (uint32_t)d << 24) : msrs[a % 12];
		mov_imm32(as, 1, in->imm);
		bool wr = in->op == VO_WRMSR;
		if (wr) {
			in->value = (uint64_t)b << 8;
			mov_imm32(as, 0, (uint32_t)in->value);
			mov_imm32(as, 2, 0);
		}
		/* read low 0, read high 400H, write low 800H, write high C00H */
		uint32_t m = in->imm;
		if (m <= 0x1fff || (m >= 0xc0000000u && m <= 0xc0001fffu)) {
			uint32_t byte_at = (m >= 0xc0000000u ? 0x400 : 0) + (m & 0x1fff) / 8;
			if (d & 1)
				msr_bits[byte_at + (wr ? 0x800 : 0)] |= (uint8_t)(1u << (m % 8));
			if (d & 2)
				msr_bits[byte_at + (wr ? 0 : 0x800)] |= (uint8_t)(1u << (m % 8));
		}
		break;
	}
	case VO_MOV_FROM_CR:
	case VO_MOV_TO_CR:
	case VO_MOV_FROM_DR:
	case VO_MOV_TO_DR: {
		bool cr = in->op == VO_MOV_FROM_CR || in->op == VO_MOV_TO_CR;
		bool wr = in->op == VO_MOV_TO_CR || in->op == VO_MOV_TO_DR;
		static const uint8_t crs[] = { 0, 3, 4, 2, 8 }, drs[] = { 0, 1, 2, 3, 6, 7 };
		in->imm = cr ? crs[a % (m64 ? 5 : 4)] : drs[a % 6];
		in->reg = (uint8_t)pick_gpr(m64, b);
		if (wr) {
			uint64_t cur = 0;
			if (cr)
				cur = in->imm == 0 ? v[VMCS_ROW_GUEST_CR0] : in->imm == 3 ? v[VMCS_ROW_GUEST_CR3] :
				      in->imm == 4 ? v[VMCS_ROW_GUEST_CR4] : 0;
			else
				cur = (uint64_t)c << 12;
			if (c % 4 == 0)
				cur ^= 1ull << (d % (m64 ? 64 : 32));
			else if (cr && in->imm == 3 && c % 4 == 1)
				cur = v[VMCS_ROW_CR3_TARGET_VALUE0 + (d % 4)];
			in->value = cur;
			mov_imm(as, in->reg, cur);
		}
		in->rip = L2_CODE + as->len;
		l2_emit_mov_crdr(as, cr, wr, in->imm, in->reg);
		in->len = (uint8_t)(L2_CODE + as->len - in->rip);
		return;
	}
	case VO_LMSW:
		in->reg = (uint8_t)pick_gpr(m64, b);
		in->value = (v[VMCS_ROW_GUEST_CR0] & 0xffff) ^ (c & 0xf);
		mov_imm32(as, in->reg, (uint32_t)in->value);
		o = (struct operand){ .rm = in->reg };
		emit_insn(as, in, NULL, 0, false, (const uint8_t[]){ 0x0f, 0x01 }, 2, 6, &o);
		return;
	case VO_LOAD:
	case VO_STORE:
	case VO_INVLPG:
		l2_moffs_operand(in, m64, in->op == VO_INVLPG, a, b, c);
		break;
	case VO_SETSP: {
		uint32_t ss_base = (uint32_t)v[VMCS_ROW_GUEST_SS_BASE];
		static const uint32_t targets[] = { HOLE + 0x10, 0x10, L2_STACK, DATA + 0x100, HOLE + 0x1000 + 6 };
		in->value = (uint32_t)(targets[a % 5] + (b & 0x0c) - ss_base);
		in->rip = L2_CODE + as->len;
		mov_imm32(as, 4, (uint32_t)in->value);
		in->len = 5;
		return;
	}
	case VO_XSETBV:
		in->value = l2_xsetbv_setup(as, a);
		break;
	case VO_DIV0:
		mov_imm32(as, 1, 0);       /* ECX = 0 */
		break;
	case VO_INTN:
		in->imm = a;
		break;
	case VO_SGDT:
	case VO_SIDT:
	case VO_LGDT:
	case VO_LIDT: {
		static const uint8_t ext[] = { [VO_SGDT - VO_SGDT] = 0, [VO_SIDT - VO_SGDT] = 1,
					       [VO_LGDT - VO_SGDT] = 2, [VO_LIDT - VO_SGDT] = 3 };
		choose_mem(as, in, &o, c, d);
		/* A 66 prefix: the 16-bit operand size the information reports
		 * outside 64-bit mode. */
		static const uint8_t p66 = 0x66;
		in->size = !m64 && (a & 1) ? 2 : 4;
		emit_insn(as, in, &p66, in->size == 2 ? 1 : 0, false, (const uint8_t[]){ 0x0f, 0x01 }, 2,
			  ext[in->op - VO_SGDT], &o);
		return;
	}
	case VO_SLDT:
	case VO_STR:
	case VO_LLDT:
	case VO_LTR: {
		if (a & 1) {
			choose_mem(as, in, &o, c, d);
		} else {
			in->reg = (uint8_t)pick_gpr(m64, b);
			o = (struct operand){ .rm = in->reg };
		}
		emit_insn(as, in, NULL, 0, false, (const uint8_t[]){ 0x0f, 0x00 }, 2, (unsigned)(in->op - VO_SLDT), &o);
		return;
	}
	case VO_VMCLEAR:
	case VO_VMPTRLD:
	case VO_VMPTRST:
	case VO_VMXON: {
		/* 66 0F C7 /6, 0F C7 /6, 0F C7 /7, F3 0F C7 /6 */
		static const uint8_t pfx[] = { [VO_VMCLEAR - VO_VMCLEAR] = 0x66, [VO_VMPTRLD - VO_VMCLEAR] = 0,
					       [VO_VMPTRST - VO_VMCLEAR] = 0, [VO_VMXON - VO_VMCLEAR] = 0xf3 };
		unsigned k = (unsigned)(in->op - VO_VMCLEAR);
		choose_mem(as, in, &o, c, d);
		emit_insn(as, in, &pfx[k], pfx[k] ? 1 : 0, false, (const uint8_t[]){ 0x0f, 0xc7 }, 2,
			  in->op == VO_VMPTRST ? 7 : 6, &o);
		return;
	}
	case VO_VMREAD:
	case VO_VMWRITE: {
		/* VMREAD r/m, r (0F 78): reg = the encoding; VMWRITE r, r/m
		 * (0F 79): reg = the encoding. reg2 is the encoding register,
		 * reg1 the r/m register. */
		if (a & 1) {
			choose_mem(as, in, &o, c, d);
		} else {
			in->reg = (uint8_t)pick_gpr(m64, c);
			o = (struct operand){ .rm = in->reg };
		}
		/* The encoding register: not one the operand uses. */
		for (unsigned k = 0;; k++) {
			in->reg2 = (uint8_t)pick_gpr(m64, (uint8_t)(b + k));
			bool used = (in->flags & L2_MEM) &&
				    (in->reg2 == (unsigned)in->mem.base || in->reg2 == (unsigned)in->mem.index);
			if (!used)
				break;
		}
		mov_imm32(as, in->reg2, 0x4400);   /* VM-instruction error: any field will do */
		emit_insn(as, in, NULL, 0, false, (const uint8_t[]){ 0x0f, in->op == VO_VMREAD ? 0x78 : 0x79 }, 2,
			  in->reg2, &o);
		return;
	}
	case VO_RDRAND:
	case VO_RDSEED: {
		in->reg = (uint8_t)pick_gpr(m64, b);
		in->size = (const uint8_t[]){ 2, 4, 8 }[a % (m64 ? 3 : 2)];
		o = (struct operand){ .rm = in->reg };
		static const uint8_t p66 = 0x66;
		emit_insn(as, in, &p66, in->size == 2 ? 1 : 0, in->size == 8, (const uint8_t[]){ 0x0f, 0xc7 }, 2,
			  in->op == VO_RDSEED ? 7 : 6, &o);
		return;
	}
	default:
		break;
	}

	in->rip = L2_CODE + as->len;
	switch (in->op) {
	case VO_INVLPG: l2_emit_invlpg(as, in); break;
	case VO_INTN: emit1(as, 0xcd); emit1(as, (uint8_t)in->imm); break;
	case VO_LOAD:
	case VO_STORE: l2_emit_moffs(as, in->op == VO_STORE, in); break;
	default:
		if (plain[in->op] == L2_NONE)
			in->op = VO_NOP;
		l2_emit_plain(as, plain[in->op]);
		break;
	}
	in->len = (uint8_t)(L2_CODE + as->len - in->rip);
}
