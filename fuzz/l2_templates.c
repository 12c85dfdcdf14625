/* The L2 instruction templates both exit fuzzers assemble alike:
 * fuzz/l2_templates.h. */
#include "fuzz/l2_templates.h"

#include "fuzz/exit_machine.h"

static const struct {
	uint8_t len;
	uint8_t bytes[3];
} plain[L2_PLAIN_COUNT] = {
	[L2_NOP] = { 1, { 0x90 } },
	[L2_CPUID] = { 2, { 0x0f, 0xa2 } },
	[L2_RDTSC] = { 2, { 0x0f, 0x31 } },
	[L2_RDTSCP] = { 3, { 0x0f, 0x01, 0xf9 } },
	[L2_RDPMC] = { 2, { 0x0f, 0x33 } },
	[L2_HLT] = { 1, { 0xf4 } },
	[L2_PAUSE] = { 2, { 0xf3, 0x90 } },
	[L2_INVD] = { 2, { 0x0f, 0x08 } },
	[L2_WBINVD] = { 2, { 0x0f, 0x09 } },
	[L2_RDMSR] = { 2, { 0x0f, 0x32 } },
	[L2_WRMSR] = { 2, { 0x0f, 0x30 } },
	[L2_INT3] = { 1, { 0xcc } },
	[L2_UD2] = { 2, { 0x0f, 0x0b } },
	[L2_DIV_ECX] = { 2, { 0xf7, 0xf1 } },
	[L2_ICEBP] = { 1, { 0xf1 } },
	[L2_PUSHF] = { 1, { 0x9c } },
	[L2_RETF16] = { 2, { 0x66, 0xcb } },   /* 16-bit far return */
	[L2_XSETBV] = { 3, { 0x0f, 0x01, 0xd1 } },
	[L2_MONITOR] = { 3, { 0x0f, 0x01, 0xc8 } },
	[L2_MWAIT] = { 3, { 0x0f, 0x01, 0xc9 } },
	[L2_CLTS] = { 2, { 0x0f, 0x06 } },
	[L2_RSM] = { 2, { 0x0f, 0xaa } },
	[L2_VMMCALL] = { 3, { 0x0f, 0x01, 0xd9 } },
	[L2_INVLPGA] = { 3, { 0x0f, 0x01, 0xdf } },
	[L2_VMLOAD] = { 3, { 0x0f, 0x01, 0xda } },
	[L2_VMSAVE] = { 3, { 0x0f, 0x01, 0xdb } },
	[L2_STGI] = { 3, { 0x0f, 0x01, 0xdc } },
	[L2_CLGI] = { 3, { 0x0f, 0x01, 0xdd } },
	[L2_VMCALL] = { 3, { 0x0f, 0x01, 0xc1 } },
	[L2_VMLAUNCH] = { 3, { 0x0f, 0x01, 0xc2 } },
	[L2_VMRESUME] = { 3, { 0x0f, 0x01, 0xc3 } },
	[L2_VMXOFF] = { 3, { 0x0f, 0x01, 0xc4 } },
};

void l2_emit_plain(struct assembler *as, enum l2_plain insn)
{
	emit(as, plain[insn].bytes, plain[insn].len);
}

uint64_t l2_pick_address(bool m64, uint8_t a, uint8_t off)
{
	switch (a % 8) {
	case 0: return DATA + off;
	case 1: return HOLE + off * 4u;
	case 2: return off;
	case 3: return DATA + 0xffe;
	case 4: return (uint32_t)(HOLE - SEG_BASE_ESCAPE) + off;
	case 5: return m64 ? 0x8000000000000000ull + off : 0xfffffffeu;
	/* Bit 47 alone: non-canonical with 48-bit linear addresses (the
	 * canonical check looks at 63:47, not only the top bit). */
	case 6: return m64 ? ((off & 1) ? 0x0000800000000000ull + off : 0x40000000ull) : 0x00400000u;
	default: return L2_STACK - 0x100 + off;
	}
}

void l2_io_setup(struct assembler *as, struct l2_insn *in, struct l2_port_access k, const uint16_t ports[8],
		 uint8_t a, uint8_t b, uint8_t c)
{
	in->imm = a % 8 == 7 ? (uint32_t)(b | c << 8) : ports[a % 8];
	in->size = (const uint8_t[]){ 1, 2, 4 }[b % 3];
	if (k.string || !(c & 1) || in->imm > 0xff) {
		in->flags |= L2_PORT_DX;
		mov_imm32(as, 2, in->imm);
	}
	if (k.string) {
		if (c & 2)
			in->flags |= L2_REP;
		if (c & 4)
			in->flags |= L2_ADDR_OVR;
		/* 67h outside 64-bit mode: 16-bit addressing, DI/SI. */
		bool a16 = !as->m64 && (in->flags & L2_ADDR_OVR);
		in->value = a16 ? (DATA & 0xffff) : DATA;
		mov_imm32(as, k.out ? 6 : 7, (uint32_t)in->value);
		mov_imm32(as, 1, 1);
		if (k.out && (c >> 3) % 7 < 6)
			in->seg = (int8_t)((c >> 3) % 7);
	}
}

void l2_emit_io(struct assembler *as, const struct l2_insn *in, struct l2_port_access k)
{
	if (k.string) {
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		if (in->flags & L2_ADDR_OVR)
			emit1(as, 0x67);
		if (in->size == 2)
			emit1(as, 0x66);
		if (in->flags & L2_REP)
			emit1(as, 0xf3);
		emit1(as, (uint8_t)((k.out ? 0x6e : 0x6c) + (in->size > 1)));
		return;
	}
	if (in->size == 2)
		emit1(as, 0x66);
	emit1(as, (uint8_t)((in->flags & L2_PORT_DX ? 0xec : 0xe4) + (k.out ? 2 : 0) + (in->size > 1)));
	if (!(in->flags & L2_PORT_DX))
		emit1(as, (uint8_t)in->imm);
}

void l2_moffs_operand(struct l2_insn *in, bool m64, bool invlpg, uint8_t a, uint8_t b, uint8_t c)
{
	in->value = l2_pick_address(m64, a, b);
	if (c % 4 == 1)
		in->seg = 2;               /* SS */
	else if (c % 4 == 2)
		in->seg = 0;               /* ES */
	if (invlpg && m64 && (in->value >> 31))
		in->value = DATA;          /* disp32 only */
}

void l2_emit_moffs(struct assembler *as, bool store, const struct l2_insn *in)
{
	if (in->seg >= 0)
		emit1(as, seg_prefix[in->seg]);
	emit1(as, store ? 0xa3 : 0xa1);    /* mov [moffs], eax / mov eax, [moffs] */
	emit32(as, (uint32_t)in->value);
	if (as->m64)
		emit32(as, (uint32_t)(in->value >> 32));
}

void l2_emit_invlpg(struct assembler *as, const struct l2_insn *in)
{
	if (in->seg >= 0)
		emit1(as, seg_prefix[in->seg]);
	if (as->m64)
		emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3c, 0x25 }, 4);   /* [disp32] via SIB */
	else
		emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3d }, 3);
	emit32(as, (uint32_t)in->value);
}

void l2_emit_mov_crdr(struct assembler *as, bool cr, bool write, unsigned n, unsigned gpr)
{
	unsigned rex = 0x40 | (n >= 8 ? 4 : 0) | (gpr >= 8 ? 1 : 0);
	if (rex != 0x40)
		emit1(as, (uint8_t)rex);
	emit1(as, 0x0f);
	emit1(as, (uint8_t)((cr ? 0x20 : 0x21) | (write ? 2 : 0)));
	emit1(as, (uint8_t)(0xc0 | (n & 7) << 3 | (gpr & 7)));
}

uint32_t l2_xsetbv_setup(struct assembler *as, uint8_t a)
{
	uint32_t xcr0 = (const uint8_t[]){ 1, 3, 0, 2 }[a % 4];
	mov_imm32(as, 1, 0);
	mov_imm32(as, 0, xcr0);
	mov_imm32(as, 2, 0);
	return xcr0;
}
