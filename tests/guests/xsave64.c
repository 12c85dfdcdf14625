/* FXSAVE/FXRSTOR and XSAVE/XRSTOR in 64-bit mode, byte-compared to the manual:
 * XMM8-XMM15 at 288-415 of the legacy region (SDM Vol.1 10.5.1 Table 10-2), the
 * REX.W forms' 64-bit FPU IP/DP without selectors (Table 10-3) against the
 * 32-bit form's FIP/FCS/FDP/FDS, only XMM0-7 outside 64-bit mode (compatibility
 * mode), XSTATE_BV and the XRSTOR init rule for clear XSTATE_BV bits (SDM Vol.1
 * 13.8.1), XRSTOR #GP for reserved header bits; plus REX.R/B/W on SSE
 * instructions (XMM8-15, 64-bit integer conversions). The C code runs in
 * compatibility mode; xsave64.S holds the 64-bit routines, lib/long the IA-32e
 * set-up and the 64-bit IDT stubs. Skipped without
 * CPUID LM (--cpu pentium or opteron-g3; hvemu's default model runs it);
 * the XSAVE part is skipped without CPUID XSAVE. */
#include "lib/long.h"

#define X87_PTRS  "TCG does not keep the last x87 instruction's FOP/FIP/FCS/FDP/FDS"

/* Shared with xsave64.S. */
volatile uint32_t x64_ptr, x64_rfbm;
uint8_t x64_in[256] __attribute__((aligned(16)));
uint8_t x64_out[256] __attribute__((aligned(16)));
uint16_t x64_cw = 0x027f;
uint64_t x64_one = 0x3ff0000000000000ull;                 /* 1.0 */
volatile uint64_t x64_q[8];
uint64_t x64_a[5] = { 0x3ff8000000000000ull, 0x4004000000000000ull,     /* 1.5, 2.5 */
		      0x3fd0000000000000ull, 0x4010000000000000ull,     /* 0.25, 4.0 */
		      0x43e158e460913d00ull };                          /* 1e19 */
extern char x64_fld_insn[];

static uint8_t area[1024] __attribute__((aligned(64)));
static uint8_t area2[1024] __attribute__((aligned(64)));

static void enter_long_mode(void)
{
	uint32_t cr3 = long_identity_map(PG_P | PG_W);
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	long_enter(read_cr4() | CR4_PAE, cr3);
}

/* Pattern of XMMi: bytes 0x10*i + 0..15 (XMM15: F0..FF). */
static void make_patterns(void)
{
	for (unsigned i = 0; i < 256; i++)
		x64_in[i] = (uint8_t)i;
}

static int same(const uint8_t *x, const uint8_t *y, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

static int xmm_in_image(const uint8_t *img, unsigned first, unsigned last)
{
	for (unsigned r = first; r <= last; r++)
		for (unsigned b = 0; b < 16; b++)
			if (img[160 + 16 * r + b] != x64_in[16 * r + b])
				return 0;
	return 1;
}

/* The 64-bit-mode state x64_load() sets: FCW 027FH, TOP 6, R6/R7 in use, FOP of
 * FLD m64fp with a RIP-relative ModRM (DD 05: 505H), MXCSR 9F80H, XMM0-15. */
static void check_image(const char *what, const uint8_t *img, int wide)
{
	note("%s image:", what);
	check("  FCW at 0", rd16(img, 0), 0x027f);
	check("  FSW at 2 (TOP = 6)", rd16(img, 2), 0x3000);
	check("  abridged FTW at 4", img[4], 0xc0);
	check_quirk("  FOP at 6 (DD 05)", rd16(img, 6), 0x505, X87_PTRS);
	check_quirk("  FIP[31:0] at 8 = the FLD", rd32(img, 8), (uint32_t)(uintptr_t)x64_fld_insn, X87_PTRS);
	check_quirk("  FDP[31:0] at 16 = its operand", rd32(img, 16), (uint32_t)(uintptr_t)&x64_one, X87_PTRS);
	if (wide) {
		/* Table 10-3: 64-bit FIP at 8-15 and FDP at 16-23, no selectors. */
		check("  FIP[63:32] at 12 (REX.W: 64-bit offset)", rd32(img, 12), 0);
		check("  FDP[63:32] at 20 (REX.W: 64-bit offset)", rd32(img, 20), 0);
	} else {
		/* Table 10-2: FCS at 12, FDS at 20. */
		check_quirk("  FCS at 12 = 64-bit CS (no REX.W: 32-bit format)", rd16(img, 12), LM_CS64,
			    X87_PTRS);
		check_quirk("  FDS at 20 = DS", rd16(img, 20), SEL_KDATA,
			    X87_PTRS);
	}
	check("  MXCSR at 24", rd32(img, 24), 0x9f80);
	check_true("  XMM0-XMM7 at 160-287", xmm_in_image(img, 0, 7));
	check_true("  XMM8-XMM15 at 288-415 (64-bit mode)", xmm_in_image(img, 8, 15));
	check_true("  bytes 416-511 not written", all_bytes(img + 416, 96, 0xa5));
}

static void load_state(void)
{
	uint32_t mx = 0x9f80;
	__asm__ volatile("ldmxcsr %0" :: "m"(mx));
	CALL64(x64_load);
}

static void test_fxsave64(void)
{
	load_state();
	gmemset(area, 0xa5, sizeof(area));
	x64_ptr = (uint32_t)(uintptr_t)area;
	lm_vec = 0xff;
	CALL64(x64_fxsave64);
	check("FXSAVE64: no fault", lm_vec, 0xff);
	check_image("FXSAVE64 (REX.W)", area, 1);

	gmemset(area2, 0xa5, sizeof(area2));
	x64_ptr = (uint32_t)(uintptr_t)area2;
	CALL64(x64_fxsave);
	check_image("FXSAVE in 64-bit mode (no REX.W)", area2, 0);

	/* Compatibility mode is not 64-bit mode: XMM8-15 are not saved (10.5.1). */
	gmemset(area2, 0xa5, sizeof(area2));
	__asm__ volatile("fxsave %0" : "=m"(*(uint8_t(*)[512])area2));
	check_true("FXSAVE in compatibility mode: XMM0-7 saved", xmm_in_image(area2, 0, 7));
	check_true("FXSAVE in compatibility mode: 288-415 not written", all_bytes(area2 + 288, 128, 0xa5));

	/* FXRSTOR64 loads a 64-bit FIP and XMM8-15. */
	wr32(area, 8, 0x56789abc);
	wr32(area, 12, 0x1234);
	gmemset(area + 160 + 16 * 12, 0x77, 16);
	x64_ptr = (uint32_t)(uintptr_t)area;
	CALL64(x64_fxrstor64);
	CALL64(x64_store);
	check_true("FXRSTOR64 loaded XMM12", all_bytes(x64_out + 16 * 12, 16, 0x77));
	check_true("FXRSTOR64 left XMM15 as in the image", all_bytes(x64_out + 16 * 15, 1, 0xf0));
	gmemset(area2, 0xa5, sizeof(area2));
	x64_ptr = (uint32_t)(uintptr_t)area2;
	CALL64(x64_fxsave64);
	check_quirk("FXRSTOR64 -> FXSAVE64: FIP[31:0]", rd32(area2, 8), 0x56789abc, X87_PTRS);
	check_quirk("FXRSTOR64 -> FXSAVE64: FIP[63:32]", rd32(area2, 12), 0x1234, X87_PTRS);
	/* The 32-bit form reads bytes 12-13 as FCS: FIP becomes 32 bits. */
	x64_ptr = (uint32_t)(uintptr_t)area;
	CALL64(x64_fxrstor);
	x64_ptr = (uint32_t)(uintptr_t)area2;
	CALL64(x64_fxsave64);
	check("FXRSTOR (no REX.W) -> FXSAVE64: FIP[63:32] = 0", rd32(area2, 12), 0);
	check_quirk("FXRSTOR (no REX.W) -> FXSAVE64: FIP[31:0]", rd32(area2, 8), 0x56789abc, X87_PTRS);

	x64_ptr = (uint32_t)(uintptr_t)(area + 8);
	lm_vec = 0xff;
	CALL64(x64_fxsave64);
	check("FXSAVE64 misaligned -> #GP", lm_vec, 13);
	check("FXSAVE64 misaligned: error code 0", lm_err, 0);
}

static void xrstor64(uint8_t *img, uint32_t rfbm)
{
	x64_ptr = (uint32_t)(uintptr_t)img;
	x64_rfbm = rfbm;
	lm_vec = 0xff;
	CALL64(x64_xrstor64);
}

static void test_xsave64(void)
{
	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4 | (1u << 18)) : "memory");   /* OSXSAVE */
	__asm__ volatile("xsetbv" :: "a"(3), "d"(0), "c"(0));

	load_state();
	gmemset(area, 0xa5, sizeof(area));
	gmemset(area + 512, 0, 64);
	x64_ptr = (uint32_t)(uintptr_t)area;
	x64_rfbm = 3;
	lm_vec = 0xff;
	CALL64(x64_xsave64);
	check("XSAVE64: no fault", lm_vec, 0xff);
	check_image("XSAVE64 RFBM=3", area, 1);
	check("XSAVE64: XSTATE_BV at 512 = 3", rd32(area, 512) | rd32(area, 516), 3);
	check("XSAVE64: XCOMP_BV at 520 = 0", rd32(area, 520) | rd32(area, 524), 0);

	gmemset(area2, 0xa5, sizeof(area2));
	gmemset(area2 + 512, 0, 64);
	x64_ptr = (uint32_t)(uintptr_t)area2;
	CALL64(x64_xsave);
	check_image("XSAVE in 64-bit mode (no REX.W)", area2, 0);

	/* XSTATE_BV[1] = 0, RFBM = 3: SSE initialised, XMM0-15 all 0; MXCSR is
	 * still loaded from the image (SDM Vol.1 13.8.1). */
	wr32(area, 512, 1);
	wr32(area, 24, 0x1f80);
	xrstor64(area, 3);
	check("XRSTOR64 XSTATE_BV=1: no fault", lm_vec, 0xff);
	CALL64(x64_store);
	check_true("XRSTOR64 XSTATE_BV[1]=0: XMM0-15 = 0", all_bytes(x64_out, 256, 0));
	uint32_t mx;
	__asm__ volatile("stmxcsr %0" : "=m"(mx));
	check("XRSTOR64: MXCSR from the image anyway", mx, 0x1f80);

	/* XSTATE_BV[0] = 0: x87 initialised (FCW 037FH, FSW 0, all empty); XMM from
	 * the image. */
	wr32(area, 512, 2);
	xrstor64(area, 3);
	CALL64(x64_store);
	check_true("XRSTOR64 XSTATE_BV=2: XMM0-15 from the image", same(x64_out, x64_in, 256));
	uint16_t cw, sw;
	uint8_t env[28];
	__asm__ volatile("fnstcw %0\n\tfnstsw %1\n\tfnstenv %2" : "=m"(cw), "=m"(sw), "=m"(env));
	check("XRSTOR64 x87 init: FCW = 037FH", cw, 0x037f);
	check("XRSTOR64 x87 init: FSW = 0", sw, 0);
	check("XRSTOR64 x87 init: FTW all empty", rd16(env, 8), 0xffff);

	/* RFBM = 1: only x87; XMM and MXCSR untouched. */
	gmemset(area + 160, 0x33, 256);
	wr32(area, 24, 0x9f80);
	wr32(area, 512, 3);
	xrstor64(area, 1);
	CALL64(x64_store);
	check_true("XRSTOR64 RFBM=1: XMM untouched", same(x64_out, x64_in, 256));
	__asm__ volatile("stmxcsr %0" : "=m"(mx));
	check("XRSTOR64 RFBM=1: MXCSR untouched", mx, 0x1f80);

	/* #GP(0): XSTATE_BV bit outside XCR0, header bytes 23:8 not zero (SDM Vol.1
	 * 13.8.1), misaligned. */
	wr32(area, 512, 7);
	xrstor64(area, 3);
	check("XRSTOR64 XSTATE_BV = 7 (AVX not in XCR0) -> #GP", lm_vec, 13);
	wr32(area, 512, 3);
	wr32(area, 532, 0x100);   /* byte 21 of the header */
	xrstor64(area, 3);
	check("XRSTOR64 header byte 21 != 0 -> #GP", lm_vec, 13);
	wr32(area, 532, 0);
	xrstor64(area + 16, 3);
	check("XRSTOR64 misaligned -> #GP", lm_vec, 13);
	x64_ptr = (uint32_t)(uintptr_t)area;
	xrstor64(area, 3);
	check("XRSTOR64 of the repaired image: no fault", lm_vec, 0xff);
	CALL64(x64_store);
	check_true("XRSTOR64: XMM0-15 from the image", all_bytes(x64_out, 256, 0x33));
}

static void test_sse_rex(void)
{
	uint32_t mx = 0x1f80;
	__asm__ volatile("ldmxcsr %0" :: "m"(mx));
	CALL64(x64_sse);
	check("CVTSI2SD xmm10, r9 (REX.W): -7.0 high", (uint32_t)(x64_q[0] >> 32), 0xc01c0000);
	check("CVTTSD2SI r11, xmm10 (REX.W): -7", (uint32_t)x64_q[1], 0xfffffff9u);
	check("  bits 63:32", (uint32_t)(x64_q[1] >> 32), 0xffffffffu);
	check("CVTSI2SS xmm9, r9 (REX.W): 2^63-1 rounds to 2^63", (uint32_t)x64_q[2], 0x5f000000);
	check("  MXCSR.PE (inexact)", (uint32_t)x64_q[3] & 0x3f, 0x20);
	check("CVTSI2SS xmm9, r9d (no REX.W): -1.0", (uint32_t)x64_q[4], 0xbf800000u);
	check("ADDPD xmm14, xmm13: 0.25 + 1.5", (uint32_t)(x64_q[5] >> 32), 0x3ffc0000);
	check("ADDPD xmm14, xmm13: 4.0 + 2.5", (uint32_t)(x64_q[6] >> 32), 0x401a0000);
	check("CVTTSD2SI r12, xmm8: 1e19 -> indefinite 8000000000000000H",
	      (uint32_t)(x64_q[7] >> 32) | (uint32_t)x64_q[7], 0x80000000u);
}

void guest_main(void)
{
	uint32_t a, b, c1, d1;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c1), "=d"(d1) : "a"(1), "c"(0));
	if (!long_mode_supported() || !((d1 >> 24) & 1) || !((d1 >> 26) & 1)) {
		skip_all("CPUID LM, FXSR or SSE2 = 0");
	}
	uint32_t cr0, cr4;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %0, %%cr0" :: "r"((cr0 | (1u << 1) | (1u << 5)) & ~((1u << 2) | (1u << 3))));
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4 | (1u << 9) | (1u << 10)));
	make_patterns();
	enter_long_mode();
	test_fxsave64();
	test_sse_rex();
	if ((c1 >> 26) & 1)
		test_xsave64();
	else
		skip("XSAVE64", "CPUID.01H:ECX.XSAVE = 0");
	tap_finish();
}
