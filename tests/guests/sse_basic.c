/* SSE/SSE2 integer, move and logic instructions: results byte-compared, 16-byte
 * alignment #GP(0) for MOVAPS/MOVDQA/PXOR m128 but not MOVUPS/MOVDQU (SDM Vol.1
 * 11.4.1), #UD with CR4.OSFXSR = 0 or CR0.EM = 1, #NM with CR0.TS (SDM Vol.3 2.5
 * Table 2-2, 13.1), LDMXCSR reserved bits #GP(0), MXCSR reset value 1F80H
 * (SDM Vol.3 9.1.1 Table 9-1). SSE2 parts are skipped when CPUID lacks SSE2. */
#include "lib/guest.h"

static uint32_t cr0(void) { uint32_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static void set_cr0(uint32_t v) { __asm__ volatile("mov %0, %%cr0" :: "r"(v)); }
static uint32_t cr4(void) { uint32_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static void set_cr4(uint32_t v) { __asm__ volatile("mov %0, %%cr4" :: "r"(v)); }
#define CR0_MP (1u << 1)
#define CR0_EM (1u << 2)
#define CR0_TS (1u << 3)
#define CR4_OSFXSR (1u << 9)
#define CR4_OSXMMEXCPT (1u << 10)

static uint8_t buf[64] __attribute__((aligned(16)));
static uint8_t a16[16] __attribute__((aligned(16)));
static uint8_t b16[16] __attribute__((aligned(16)));
static uint8_t out[16] __attribute__((aligned(16)));

static uint32_t out32(unsigned i) { uint32_t v; gmemcpy(&v, out + 4 * i, 4); return v; }

static void test_sse1(void)
{
	uint32_t m;
	__asm__ volatile("stmxcsr %0" : "=m"(m));
	check("MXCSR after RESET = 1F80H", m, 0x1f80);
	for (int i = 0; i < 16; i++)
		a16[i] = (uint8_t)(0x10 + i), b16[i] = (uint8_t)(0xf0 ^ i);
	__asm__ volatile("movaps %1, %%xmm1; movaps %2, %%xmm2; xorps %%xmm2, %%xmm1; movaps %%xmm1, %0"
			 : "=m"(out) : "m"(a16), "m"(b16));
	int ok = 1;
	for (int i = 0; i < 16; i++)
		ok &= out[i] == (uint8_t)(a16[i] ^ b16[i]);
	check_true("MOVAPS/XORPS/MOVAPS", ok);
	__asm__ volatile("movaps %1, %%xmm3; shufps $0x1b, %%xmm3, %%xmm3; movups %%xmm3, %0"
			 : "=m"(out) : "m"(a16));
	check("SHUFPS 1BH reverses dwords (0)", out32(0), 0x1f1e1d1c);
	check("SHUFPS 1BH reverses dwords (3)", out32(3), 0x13121110);
	gmemcpy(buf + 1, a16, 16);
	__asm__ volatile("movups %1, %%xmm4; movups %%xmm4, %0" : "=m"(out) : "m"(*(uint8_t(*)[16])(buf + 1)));
	check("MOVUPS misaligned load/store", out32(1), 0x17161514);
	m = 0x1f80 | (1u << 15);   /* FZ */
	__asm__ volatile("ldmxcsr %1; stmxcsr %0" : "=m"(m) : "m"(m));
	check("LDMXCSR/STMXCSR FZ", m, 0x9f80);
	m = 0x1f80;
	__asm__ volatile("ldmxcsr %0" :: "m"(m));
}

static void movaps_mis(void *p) { __asm__ volatile(MARK "movaps (%0), %%xmm0" :: "r"(p)); }
static void movups_mis(void *p) { __asm__ volatile(MARK "movups (%0), %%xmm0" :: "r"(p)); }
static void xorps_mis(void *p) { __asm__ volatile(MARK "xorps (%0), %%xmm0" :: "r"(p)); }
static void ldmxcsr_bad(void *p) { (void)p; uint32_t v = 0x11f80; __asm__ volatile(MARK "ldmxcsr %0" :: "m"(v)); }

static void test_faults(void)
{
	expect_fault("MOVAPS misaligned -> #GP(0)", movaps_mis, buf + 8, 13, 0);
	if (!skip_quirk("XORPS m128 misaligned -> #GP(0)", "QEMU TCG checks alignment on moves only"))
		expect_fault("XORPS m128 misaligned -> #GP(0)", xorps_mis, buf + 4, 13, 0);
	expect_no_fault("MOVUPS misaligned: no fault", movups_mis, buf + 8);
	if (!skip_quirk("LDMXCSR reserved bit 16 -> #GP(0)", "QEMU TCG ignores MXCSR reserved bits"))
		expect_fault("LDMXCSR reserved bit 16 -> #GP(0)", ldmxcsr_bad, 0, 13, 0);
	uint32_t c4 = cr4(), c0 = cr0();
	set_cr4(c4 & ~CR4_OSFXSR);
	expect_fault("CR4.OSFXSR = 0: MOVUPS -> #UD", movups_mis, buf, 6, -1);
	set_cr4(c4);
	set_cr0(c0 | CR0_EM);
	expect_fault("CR0.EM = 1: MOVUPS -> #UD", movups_mis, buf, 6, -1);
	set_cr0(c0 | CR0_TS);
	expect_fault("CR0.TS = 1: MOVUPS -> #NM", movups_mis, buf, 7, -1);
	set_cr0(c0);
	__asm__ volatile("clts");
}

static void test_sse2(void)
{
	for (int i = 0; i < 16; i++)
		a16[i] = (uint8_t)i, b16[i] = (uint8_t)i;
	b16[3] = 0x80;
	b16[9] = 0;
	uint32_t mask;
	__asm__ volatile("movdqa %1, %%xmm0; pcmpeqb %2, %%xmm0; pmovmskb %%xmm0, %0"
			 : "=r"(mask) : "m"(a16), "m"(b16));
	check("PCMPEQB + PMOVMSKB", mask, 0xffffu & ~((1u << 3) | (1u << 9)));
	__asm__ volatile("pxor %%xmm5, %%xmm5; pcmpeqd %%xmm6, %%xmm6; psubd %%xmm6, %%xmm5; movdqu %%xmm5, %0"
			 : "=m"(out) :);
	check("PXOR/PCMPEQD/PSUBD: 0 - (-1) = 1 (dword 0)", out32(0), 1);
	check("PXOR/PCMPEQD/PSUBD: 0 - (-1) = 1 (dword 3)", out32(3), 1);
	__asm__ volatile("movdqa %1, %%xmm1; pshufd $0x1b, %%xmm1, %%xmm2; movdqa %%xmm2, %0"
			 : "=m"(out) : "m"(a16));
	check("PSHUFD 1BH (dword 0)", out32(0), 0x0f0e0d0c);
	check("PSHUFD 1BH (dword 3)", out32(3), 0x03020100);
	__asm__ volatile("movdqa %1, %%xmm1; movdqa %2, %%xmm2; punpcklbw %%xmm2, %%xmm1; movdqa %%xmm1, %0"
			 : "=m"(out) : "m"(a16), "m"(b16));
	check("PUNPCKLBW (dword 0)", out32(0), 0x01010000);
	check("PUNPCKLBW (dword 1)", out32(1), 0x80030202);
	__asm__ volatile("movdqa %1, %%xmm1; paddq %1, %%xmm1; paddb %2, %%xmm1; movdqa %%xmm1, %0"
			 : "=m"(out) : "m"(a16), "m"(b16));
	check("PADDQ then PADDB (dword 0)", out32(0), 0x86060300);
	uint32_t v = 0xdeadbeef, r;
	__asm__ volatile("movd %1, %%xmm7; movd %%xmm7, %0" : "=r"(r) : "r"(v));
	check("MOVD r32 round trip", r, 0xdeadbeef);
	uint64_t q = 0x0123456789abcdefull;
	__asm__ volatile("pcmpeqd %%xmm3, %%xmm3; movq %1, %%xmm3; movdqu %%xmm3, %0"
			 : "=m"(out) : "m"(q));
	check("MOVQ m64 load zeroes the high qword", out32(2) | out32(3), 0);
	check("MOVQ m64 load (low)", out32(0), 0x89abcdef);
	uint32_t nt = 0;
	__asm__ volatile("movnti %1, %0; sfence; lfence; mfence" : "=m"(nt) : "r"(0x12345678u));
	check("MOVNTI + fences", nt, 0x12345678);
	__asm__ volatile("clflush %0" :: "m"(buf[0]));
	check_true("CLFLUSH of a mapped line runs", 1);
}

/* a16 op b16 (b16 as the m128 operand) into out. */
#define BINOP(insn) __asm__ volatile("movdqa %1, %%xmm1; " insn " %2, %%xmm1; movdqa %%xmm1, %0" \
				     : "=m"(out) : "m"(a16), "m"(b16))
/* An imm8 form on a16 (register operand) into out. */
#define IMMOP(insn) __asm__ volatile("movdqa %1, %%xmm2; " insn ", %%xmm2; movdqa %%xmm2, %0" \
				     : "=m"(out) : "m"(a16))

static void words(uint8_t *p, uint16_t w0, uint16_t w1, uint16_t w2, uint16_t w3)
{
	const uint16_t w[8] = { w0, w1, w2, w3, w0, w1, w2, w3 };
	gmemcpy(p, w, 16);
}

static uint16_t out16(unsigned i) { uint16_t v; gmemcpy(&v, out + 2 * i, 2); return v; }

/* The SSE2 packed-integer instructions beyond the basic subset; every
 * expected value follows from the instruction's SDM Vol.2 "Operation". */
static void test_sse2_int(void)
{
	words(a16, 0x7000, 0x8000, 0xf000, 0x0010);
	words(b16, 0x2000, 0xffff, 0x2000, 0x0020);
	BINOP("paddsw");
	check("PADDSW saturates 7000H+2000H to 7FFFH", out16(0), 0x7fff);
	check("PADDSW saturates 8000H+FFFFH to 8000H", out16(1), 0x8000);
	BINOP("paddusw");
	check("PADDUSW saturates F000H+2000H to FFFFH", out16(2), 0xffff);
	BINOP("psubusb");
	check("PSUBUSB 10H-20H = 0, 00H-00H = 0", out16(3), 0);
	BINOP("psubsw");
	check("PSUBSW 8000H-FFFFH = 8001H", out16(1), 0x8001);
	BINOP("pcmpgtw");
	check("PCMPGTW 7000H > 2000H, 8000H > FFFFH false (signed)", out32(0), 0x0000ffff);
	BINOP("pminsw");
	check("PMINSW picks signed minima", out32(0), 0x80002000);
	BINOP("pmaxub");
	check("PMAXUB bytes 00/F0 vs 20/FF", out32(0) >> 16, 0xffff);
	BINOP("pavgw");
	check("PAVGW (10H+20H+1)>>1 = 18H", out16(3), 0x18);
	BINOP("pmulhw");
	check("PMULHW 8000H*FFFFH (signed) high word = 0", out16(1), 0);
	check("PMULHW 7000H*2000H high word = 0E00H", out16(0), 0x0e00);
	BINOP("pmulhuw");
	check("PMULHUW 8000H*FFFFH high word = 7FFFH", out16(1), 0x7fff);
	BINOP("pmullw");
	check("PMULLW F000H*2000H low word = 0", out16(2), 0);
	check("PMULLW 10H*20H = 200H", out16(3), 0x200);

	words(a16, 0x8000, 0x8000, 0xffff, 0xffff);
	words(b16, 0x8000, 0x8000, 0xffff, 0xffff);
	BINOP("pmaddwd");
	check("PMADDWD 8000H*8000H twice wraps to 80000000H", out32(0), 0x80000000);
	check("PMADDWD (-1)*(-1) twice = 2", out32(1), 2);
	BINOP("pmuludq");
	check("PMULUDQ low dword 80008000H squared (low)", out32(0), 0x40000000);
	check("PMULUDQ low dword 80008000H squared (high)", out32(1), 0x40008000);

	words(a16, 0x0100, 0xff00, 0x0005, 0xfffb);
	BINOP("packsswb");
	check("PACKSSWB 256, -256, 5, -5", out32(0), 0xfb05807f);
	BINOP("packuswb");
	check("PACKUSWB 256, -256, 5, -5", out32(0), 0x000500ff);
	BINOP("packssdw");
	check("PACKSSDW FF000100H, FFFB0005H", out32(0), 0x80008000);

	for (int i = 0; i < 16; i++)
		a16[i] = (uint8_t)i, b16[i] = (uint8_t)(7 - (i & 7));
	BINOP("psadbw");
	check("PSADBW sum |i - (7 - i)| = 32", out32(0), 32);
	check("PSADBW upper words zero", out32(1), 0);
	BINOP("pavgb");
	check("PAVGB rounds up", out32(0), 0x04040404);
	IMMOP("psrldq $3");
	check("PSRLDQ 3", out32(0), 0x06050403);
	check("PSRLDQ 3 fills zeroes", out32(3), 0x0f);
	IMMOP("pslldq $17");
	check("PSLLDQ 17 clears the register", out32(0) | out32(3), 0);
	IMMOP("pshuflw $0x1b, %%xmm2");
	check("PSHUFLW 1BH reverses the low words", out32(0), 0x05040706);
	check("PSHUFLW keeps the high quadword", out32(2), 0x0b0a0908);

	words(a16, 0x8001, 0x7fff, 0x0001, 0x4000);
	IMMOP("psraw $4");
	check("PSRAW 4 keeps the sign", out16(0), 0xf800);
	IMMOP("psrlw $4");
	check("PSRLW 4", out16(0), 0x0800);
	IMMOP("psllw $17");
	check("PSLLW 17 (count > 15) gives 0", out32(0), 0);
	IMMOP("psrad $40");
	check("PSRAD 40 (count > 31) fills with the sign", out32(0), 0);
	check("PSRAD 40 of 40000001H", out32(1), 0);
	IMMOP("pslld $1");
	check("PSLLD 1", out32(0), 0xffff0002);
	static uint64_t cnt[2] __attribute__((aligned(16)));
	cnt[0] = 0x100000004ull;
	cnt[1] = 0;
	__asm__ volatile("movdqa %1, %%xmm1; psraw %2, %%xmm1; movdqa %%xmm1, %0" : "=m"(out) : "m"(a16), "m"(cnt));
	check("PSRAW by m128: the whole quadword is the count", out16(0), 0xffff);
	cnt[0] = 8;
	__asm__ volatile("movdqa %1, %%xmm1; movdqa %2, %%xmm3; psrlq %%xmm3, %%xmm1; movdqa %%xmm1, %0"
			 : "=m"(out) : "m"(a16), "m"(cnt));
	check("PSRLQ by 8 (xmm count)", out32(0), 0x017fff80);

	uint32_t r = 0;
	__asm__ volatile("movdqa %1, %%xmm4; pextrw $7, %%xmm4, %0" : "=r"(r) : "m"(a16));
	check("PEXTRW word 7", r, 0x4000);
	uint16_t m16 = 0xbeef;
	__asm__ volatile("movdqa %1, %%xmm4; pinsrw $9, %2, %%xmm4; pinsrw $2, %3, %%xmm4; movdqa %%xmm4, %0"
			 : "=m"(out) : "m"(a16), "m"(m16), "r"(0x12345678u));
	check("PINSRW m16 into word 1 (imm8 9 & 7)", out16(1), 0xbeef);
	check("PINSRW r32 low word into word 2", out16(2), 0x5678);

	for (int i = 0; i < 16; i++)
		a16[i] = (uint8_t)(0xa0 + i), b16[i] = (i & 1) ? 0x80 : 0x7f, buf[i] = 0x55;
	__asm__ volatile("movdqa %0, %%xmm5; movdqa %1, %%xmm6; maskmovdqu %%xmm6, %%xmm5"
			 :: "m"(a16), "m"(b16), "D"(buf) : "memory");
	check("MASKMOVDQU stores the selected bytes", buf[1] == 0xa1 && buf[15] == 0xaf, 1);
	check("MASKMOVDQU leaves the others", buf[0] == 0x55 && buf[14] == 0x55, 1);
}

static void psrlw_mem(void *p) { __asm__ volatile(MARK "psrlw (%0), %%xmm0" :: "r"(p)); }
static void pinsrw_mis(void *p) { __asm__ volatile(MARK "pinsrw $0, (%0), %%xmm0" :: "r"(p)); }

/* 66 0F 73 /3 ib with a memory ModRM (PSRLDQ takes a register only, SDM Vol.2
 * Table A-6 group 14: "mod = 11B"); the NP form is MMX, which CPUID does not
 * report here. */
static void psrldq_mem(void *p) { __asm__ volatile(MARK ".byte 0x66, 0x0f, 0x73, 0x18, 0x05" :: "a"(p)); }

static void test_int_faults(void)
{
	expect_fault("PSRLDQ with a memory operand -> #UD", psrldq_mem, buf, 6, -1);
	if (!skip_quirk("PSRLW m128 misaligned -> #GP(0)", "QEMU TCG checks alignment on moves only"))
		expect_fault("PSRLW m128 misaligned -> #GP(0)", psrlw_mem, buf + 8, 13, 0);
	expect_no_fault("PINSRW m16 misaligned: no fault", pinsrw_mis, buf + 1);
	uint32_t c0 = cr0();
	set_cr0(c0 | CR0_TS);
	expect_fault("CR0.TS = 1: PSRLW -> #NM", psrlw_mem, buf, 7, -1);
	set_cr0(c0);
	__asm__ volatile("clts");
}

void guest_main(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!((d >> 25) & 1) || !((d >> 24) & 1)) {
		skip_all("CPUID.01H:EDX.SSE/FXSR = 0");
	}
	/* SDM Vol.3 13.1.3: OSFXSR (and OSXMMEXCPT) set, CR0.EM clear, MP set. */
	set_cr0((cr0() | CR0_MP) & ~(CR0_EM | CR0_TS));
	set_cr4(cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	test_sse1();
	test_faults();
	if ((d >> 26) & 1) {
		test_sse2();
		test_sse2_int();
		test_int_faults();
	}
	else
		skip("SSE2 subset", "CPUID.01H:EDX.SSE2 = 0");
	tap_finish();
}
