/* FXSAVE/FXRSTOR and XSAVE/XRSTOR images byte-compared to the manual's layout:
 * SDM Vol.1 10.5.1 Table 10-2 (legacy region), 13.4.2 (XSAVE header at 512),
 * 13.7/13.8 (which bytes XSAVE writes, XRSTOR's init of components absent from
 * XSTATE_BV); XCR0 rules of SDM Vol.2 XSETBV. XSAVE parts are skipped without
 * CPUID.01H:ECX.XSAVE. */
#include "lib/guest.h"

static uint32_t cr0(void) { uint32_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static void set_cr0(uint32_t v) { __asm__ volatile("mov %0, %%cr0" :: "r"(v)); }
static uint32_t cr4(void) { uint32_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static void set_cr4(uint32_t v) { __asm__ volatile("mov %0, %%cr4" :: "r"(v)); }

static uint8_t area[1024 + 64] __attribute__((aligned(64)));
static uint8_t area2[1024] __attribute__((aligned(64)));
static uint8_t pat[16] __attribute__((aligned(16)));
static uint8_t out[16] __attribute__((aligned(16)));

/* Known state: FCW 027FH, ST(0) = +0.0, ST(1) = 1.0 (TOP = 6), MXCSR 9F80H,
 * XMM0 = XMM7 = pattern. */
static void load_state(void)
{
	uint16_t cw = 0x027f;
	uint32_t mx = 0x9f80;
	for (int i = 0; i < 16; i++)
		pat[i] = (uint8_t)(0x40 + i);
	__asm__ volatile("fninit; fldcw %0; fld1; fldz" :: "m"(cw));
	__asm__ volatile("ldmxcsr %0; movdqu %1, %%xmm0; movdqu %1, %%xmm7" :: "m"(mx), "m"(pat));
}

/* The legacy-region fields load_state() defines (SDM Vol.1 Table 10-2). */
static void check_legacy(const char *what, const uint8_t *img)
{
	note("%s image:", what);
	check("  FCW at 0", rd16(img, 0), 0x027f);
	check("  FSW at 2 (TOP = 6)", rd16(img, 2), 0x3000);
	check("  abridged FTW at 4 (R6, R7 in use)", img[4], 0xc0);
	check("  MXCSR at 24", rd32(img, 24), 0x9f80);
	check("  MXCSR_MASK at 28 has the architectural bits (FFBFH)", rd32(img, 28) & 0xffbf, 0xffbf);
	check("  ST0 at 32 = +0.0", rd32(img, 32) | rd32(img, 36) | rd16(img, 40), 0);
	check("  ST1 at 48 significand high", rd32(img, 52), 0x80000000);
	check("  ST1 at 56 exponent 3FFFH", rd16(img, 56), 0x3fff);
	check("  XMM0 at 160", (rd32(img, 160) ^ rd32(pat, 0)) | (rd32(img, 172) ^ rd32(pat, 12)), 0);
	check("  XMM7 at 272", (rd32(img, 272) ^ rd32(pat, 0)) | (rd32(img, 284) ^ rd32(pat, 12)), 0);
}

static void fxsave_mis(void *p) { __asm__ volatile(MARK "fxsave (%0)" :: "r"(p) : "memory"); }
static void fxrstor_at(void *p) { __asm__ volatile(MARK "fxrstor (%0)" :: "r"(p)); }

static void test_fxsave(void)
{
	gmemset(area, 0xa5, sizeof(area));
	load_state();
	__asm__ volatile("fxsave %0" : "=m"(*(uint8_t(*)[512])area));
	check_legacy("FXSAVE", area);
	check_true("FXSAVE leaves bytes 464-511 (available to software) alone", all_bytes(area + 464, 48, 0xa5));
	check_true("FXSAVE writes nothing past 512", all_bytes(area + 512, 64, 0xa5));
	/* Round trip: clobber, FXRSTOR, FXSAVE again, compare the defined bytes. */
	__asm__ volatile("fninit; pxor %%xmm0, %%xmm0" ::);
	__asm__ volatile("fxrstor %0" :: "m"(*(uint8_t(*)[512])area));
	gmemset(area2, 0x5a, 512);
	__asm__ volatile("fxsave %0" : "=m"(*(uint8_t(*)[512])area2));
	check_legacy("FXRSTOR then FXSAVE", area2);
	expect_fault("FXSAVE misaligned (16n+8) -> #GP(0)", fxsave_mis, area2 + 8, 13, 0);
	wr32(area, 24, 0x00011f80);
	if (!skip_quirk("FXRSTOR with MXCSR bit 16 -> #GP(0)", "QEMU TCG ignores MXCSR reserved bits"))
		expect_fault("FXRSTOR with MXCSR bit 16 -> #GP(0)", fxrstor_at, area, 13, 0);
	wr32(area, 24, 0x1f80);
	expect_no_fault("FXRSTOR of a valid image", fxrstor_at, area);
}

static uint64_t xgetbv0(void)
{
	uint32_t a, d;
	__asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
	return ((uint64_t)d << 32) | a;
}
static void xsetbv_v(void *p) { __asm__ volatile(MARK "xsetbv" :: "a"((uint32_t)(uintptr_t)p), "d"(0), "c"(0)); }
static void xsetbv_ecx1(void *p) { (void)p; __asm__ volatile(MARK "xsetbv" :: "a"(1), "d"(0), "c"(1)); }
static void xsave_mis(void *p) { __asm__ volatile(MARK "xsave (%0)" :: "r"(p), "a"(3), "d"(0) : "memory"); }
static void xrstor_at(void *p) { __asm__ volatile(MARK "xrstor (%0)" :: "r"(p), "a"(3), "d"(0)); }
static void xsetbv_hi(void *p) { (void)p; __asm__ volatile(MARK "xsetbv" :: "a"(3), "d"(1), "c"(0)); }
static void xgetbv_ecx(void *p) { uint32_t a, d; __asm__ volatile(MARK "xgetbv" : "=a"(a), "=d"(d) : "c"((uint32_t)(uintptr_t)p)); }
static void u_xgetbv(void *p) { (void)p; uint32_t a, d; __asm__ volatile(MARK "xgetbv" : "=a"(a), "=d"(d) : "c"(0)); }
static void u_xsetbv(void *p) { (void)p; __asm__ volatile(MARK "xsetbv" :: "a"(3), "d"(0), "c"(0)); }

static void test_xsave(void)
{
	uint32_t a, b, c, d;
	set_cr4(cr4() | (1u << 18));   /* OSXSAVE */
	check("XCR0 after RESET = 1 (x87)", (uint32_t)xgetbv0(), 1);
	expect_fault("XSETBV XCR0 = 2 (x87 clear) -> #GP(0)", xsetbv_v, (void *)2, 13, 0);
	expect_fault("XSETBV ECX = 1 -> #GP(0)", xsetbv_ecx1, 0, 13, 0);
	expect_no_fault("XSETBV XCR0 = 3", xsetbv_v, (void *)3);
	check("XGETBV = 3", (uint32_t)xgetbv0(), 3);
	/* SDM Vol.2 XSETBV: #GP(0) for a bit the processor does not support (AVX is
	 * not advertised by CPUID.(0DH,0).EAX here: also the "AVX needs SSE" case)
	 * and for bits 63:32. */
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(0));
	if (!(a & 4)) {
		expect_fault("XSETBV XCR0 = 7 (AVX not supported) -> #GP(0)", xsetbv_v, (void *)7, 13, 0);
		expect_fault("XSETBV XCR0 = 5 (AVX without SSE) -> #GP(0)", xsetbv_v, (void *)5, 13, 0);
	}
	expect_fault("XSETBV XCR0 bit 32 -> #GP(0)", xsetbv_hi, 0, 13, 0);
	check("XCR0 unchanged by the refused XSETBVs", (uint32_t)xgetbv0(), 3);
	/* XGETBV ECX = 1 (XINUSE AND XCR0) only with CPUID.(0DH,1):EAX[2]; ECX = 2 never. */
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(1));
	if (a & 4)
		expect_no_fault("XGETBV ECX = 1 (XGETBV1 advertised)", xgetbv_ecx, (void *)1);
	else
		expect_fault("XGETBV ECX = 1 without CPUID XGETBV1 -> #GP(0)", xgetbv_ecx, (void *)1, 13, 0);
	expect_fault("XGETBV ECX = 2 -> #GP(0)", xgetbv_ecx, (void *)2, 13, 0);
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(0));
	check("CPUID.(0DH,0).EAX has x87|SSE", a & 3, 3);
	check("CPUID.(0DH,0).EBX = 576 for XCR0 = 3", b, 576);
	check_true("user XGETBV allowed", run_user(u_xgetbv, 0, 0) == NO_FAULT);
	run_user_catch("user XSETBV -> #GP(0)", u_xsetbv, 0, 0, 13, 0);

	gmemset(area, 0xa5, sizeof(area));
	gmemset(area + 512, 0, 64);
	load_state();
	__asm__ volatile("xsave %0" : "=m"(*(uint8_t(*)[576])area) : "a"(3), "d"(0));
	check_legacy("XSAVE RFBM=3", area);
	check("XSAVE header XSTATE_BV at 512", rd32(area, 512), 3);
	check("XSAVE header XCOMP_BV at 520 untouched", rd32(area, 520) | rd32(area, 524), 0);
	check_true("XSAVE leaves bytes 464-511 alone", all_bytes(area + 464, 48, 0xa5));

	/* RFBM = 1: x87 only; MXCSR and XMM bytes stay as they were. */
	gmemset(area2, 0xa5, 576);
	gmemset(area2 + 512, 0, 64);
	__asm__ volatile("xsave %0" : "=m"(*(uint8_t(*)[576])area2) : "a"(1), "d"(0));
	check("XSAVE RFBM=1: FCW written", rd16(area2, 0), 0x027f);
	check("XSAVE RFBM=1: MXCSR not written", rd32(area2, 24), 0xa5a5a5a5);
	check_true("XSAVE RFBM=1: XMM area not written", all_bytes(area2 + 160, 256, 0xa5));
	check("XSAVE RFBM=1: XSTATE_BV = 1", rd32(area2, 512), 1);

	/* XRSTOR with XSTATE_BV = 1, RFBM = 3: SSE is initialised (XMM = 0) while
	 * MXCSR still comes from memory (SDM Vol.1 13.8.1). */
	wr32(area, 512, 1);
	wr32(area, 24, 0x1f80);
	__asm__ volatile("xrstor %0" :: "m"(*(uint8_t(*)[576])area), "a"(3), "d"(0));
	__asm__ volatile("movdqu %%xmm7, %0" : "=m"(out));
	check_true("XRSTOR XSTATE_BV[1] = 0: XMM7 initialised to 0", all_bytes(out, 16, 0));
	uint32_t mx;
	__asm__ volatile("stmxcsr %0" : "=m"(mx));
	check("XRSTOR: MXCSR loaded from memory anyway", mx, 0x1f80);
	uint16_t sw;
	__asm__ volatile("fnstsw %%ax" : "=a"(sw));
	check("XRSTOR: x87 state loaded (TOP = 6)", (sw >> 11) & 7, 6);

	wr32(area, 512, 4);   /* AVX bit, not in XCR0 */
	expect_fault("XRSTOR XSTATE_BV not a subset of XCR0 -> #GP(0)", xrstor_at, area, 13, 0);
	wr32(area, 512, 3);
	wr32(area, 520, 1);   /* XCOMP_BV */
	expect_fault("XRSTOR standard form with XCOMP_BV != 0 -> #GP(0)", xrstor_at, area, 13, 0);
	wr32(area, 520, 0);
	wr32(area, 528, 1);   /* header bytes 23:16 (SDM Vol.1 13.8.1: bytes 23:8 must be 0) */
	expect_fault("XRSTOR header byte 16 != 0 -> #GP(0)", xrstor_at, area, 13, 0);
	wr32(area, 528, 0);
	expect_no_fault("XRSTOR with a clean header", xrstor_at, area);
	expect_fault("XSAVE misaligned (64n+16) -> #GP(0)", xsave_mis, area + 16, 13, 0);
	__asm__ volatile("fninit");
}

void guest_main(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	if (!((d >> 24) & 1) || !((d >> 26) & 1)) {
		skip_all("CPUID.01H:EDX.FXSR/SSE2 = 0");
	}
	set_cr0((cr0() | (1u << 1) | (1u << 5)) & ~((1u << 2) | (1u << 3)));
	set_cr4(cr4() | (1u << 9) | (1u << 10));
	test_fxsave();
	if ((c >> 26) & 1)
		test_xsave();
	else
		skip("XSAVE layout", "CPUID.01H:ECX.XSAVE = 0");
	tap_finish();
}
