/* AVX as an OS enables it and a program sees it: CPUID.01H:ECX.AVX and
 * OSXSAVE, XSETBV of XCR0 bit 2 (SDM Vol.1 13.3: #GP(0) for AVX without SSE),
 * CPUID leaf 0DH sizes following XCR0 (SDM Vol.2 CPUID), the VEX state gate
 * (SDM Vol.2 2.5 Table 2-18: #UD with CR4.OSXSAVE = 0 or XCR0[2:1] != 11b,
 * #NM with CR0.TS), VEX.256 and VEX.128 results with bits 255:128 zeroed by
 * VEX.128 and kept by legacy SSE (SDM Vol.2 2.3.10), alignment of exception
 * type 1 only (SDM Vol.2 2.5.1), and the YMM_Hi128 component of XSAVE/XRSTOR
 * at offset 576 (SDM Vol.1 13.5.3, 13.8.1) and of XSAVEC and the compacted
 * XRSTOR (13.10, 13.8.2). Skipped without AVX. */
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
#define CR4_OSXSAVE (1u << 18)

static uint8_t a32[32] __attribute__((aligned(32)));
static uint8_t b32[32] __attribute__((aligned(32)));
static uint8_t out[32] __attribute__((aligned(32)));
static uint8_t buf[96] __attribute__((aligned(32)));
static uint8_t area[1024] __attribute__((aligned(64)));

static uint32_t rd(const uint8_t *p, unsigned i) { uint32_t v; gmemcpy(&v, p + 4 * i, 4); return v; }

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static void xsetbv_at(void *p)
{
	uint32_t v = (uint32_t)(uintptr_t)p;
	__asm__ volatile(MARK "xsetbv" :: "a"(v), "d"(0), "c"(0));
}

static uint32_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return lo;
}

static void vaddps_xmm(void *p) { (void)p; __asm__ volatile(MARK "vaddps %%xmm2, %%xmm1, %%xmm0" ::: "memory"); }
static void vmovaps_ymm(void *p) { __asm__ volatile(MARK "vmovaps (%0), %%ymm0" :: "r"(p)); }
static void vmovaps_xmm(void *p) { __asm__ volatile(MARK "vmovaps (%0), %%xmm0" :: "r"(p)); }
static void vmovups_ymm(void *p) { __asm__ volatile(MARK "vmovups (%0), %%ymm0" :: "r"(p)); }
static void vaddps_mem(void *p) { __asm__ volatile(MARK "vaddps (%0), %%ymm1, %%ymm0" :: "r"(p)); }

static void test_enable(void)
{
	uint32_t r[4];
	/* Before the OS sets CR4.OSXSAVE: no XSETBV, no VEX. */
	expect_fault("CR4.OSXSAVE = 0: VADDPS -> #UD", vaddps_xmm, 0, 6, -1);
	set_cr4(cr4() | CR4_OSXSAVE);
	cpuid(1, 0, r);
	check("CPUID.01H:ECX.OSXSAVE follows CR4", r[2] >> 27 & 1, 1);
	cpuid(0xd, 0, r);
	check("CPUID.(0DH,0):EAX lists x87, SSE, AVX", r[0] & 7, 7);
	check_true("CPUID.(0DH,0):ECX >= 832 (legacy, header, YMM_Hi128, more on larger parts)", r[2] >= 832);
	check("CPUID.(0DH,0):EBX = 576 while XCR0 = 1", r[1], 576);
	cpuid(0xd, 2, r);
	check("CPUID.(0DH,2): YMM_Hi128 is 256 bytes", r[0], 256);
	check("CPUID.(0DH,2): at offset 576", r[1], 576);
	expect_fault("XSETBV XCR0 = 5 (AVX without SSE) -> #GP(0)", xsetbv_at, (void *)5, 13, 0);
	expect_no_fault("XSETBV XCR0 = 3", xsetbv_at, (void *)3);
	expect_fault("XCR0[2:1] = 01b: VADDPS -> #UD", vaddps_xmm, 0, 6, -1);
	expect_no_fault("XSETBV XCR0 = 7", xsetbv_at, (void *)7);
	check("XGETBV reads 7", xgetbv0(), 7);
	cpuid(0xd, 0, r);
	check("CPUID.(0DH,0):EBX = 832 with XCR0 = 7", r[1], 832);
	expect_no_fault("XCR0 = 7: VADDPS runs", vaddps_xmm, 0);
	uint32_t c0 = cr0();
	set_cr0(c0 | CR0_TS);
	expect_fault("CR0.TS = 1: VADDPS -> #NM", vaddps_xmm, 0, 7, -1);
	set_cr0(c0);
	__asm__ volatile("clts");
}

static void test_results(void)
{
	for (int i = 0; i < 32; i++)
		a32[i] = (uint8_t)i, b32[i] = (uint8_t)(0xa0 + i);
	/* VPXOR/VXORPS over 256 bits. */
	__asm__ volatile("vmovdqa %1, %%ymm1; vmovdqa %2, %%ymm2; vxorps %%ymm2, %%ymm1, %%ymm3; vmovdqu %%ymm3, %0"
			 : "=m"(out) : "m"(a32), "m"(b32));
	check("VXORPS ymm (dword 0)", rd(out, 0), 0xa0a0a0a0);
	check("VXORPS ymm (dword 7)", rd(out, 7), 0xa0a0a0a0 ^ 0x1f1e1d1c ^ 0x1f1e1d1c);
	/* Floats: 1.0 + 2.0 in every element of a ymm. */
	for (int i = 0; i < 8; i++) {
		uint32_t one = 0x3f800000, two = 0x40000000;
		gmemcpy(a32 + 4 * i, &one, 4);
		gmemcpy(b32 + 4 * i, &two, 4);
	}
	__asm__ volatile("vmovaps %1, %%ymm1; vaddps %2, %%ymm1, %%ymm0; vmovups %%ymm0, %0"
			 : "=m"(out) : "m"(a32), "m"(b32));
	check("VADDPS ymm: 1 + 2 = 3 (element 0)", rd(out, 0), 0x40400000);
	check("VADDPS ymm: 1 + 2 = 3 (element 7)", rd(out, 7), 0x40400000);
	/* VCMPPS predicate 13 (GE_OS, a VEX-only one): 2 >= 1 in all elements. */
	__asm__ volatile("vmovaps %1, %%ymm1; vcmpps $13, %2, %%ymm1, %%ymm0; vmovups %%ymm0, %0"
			 : "=m"(out) : "m"(b32), "m"(a32));
	check("VCMPPS GE_OS ymm (element 5)", rd(out, 5), 0xffffffff);
	/* Legacy SSE leaves bits 255:128; VEX.128 zeroes them (VCMPPS TRUE_UQ: all
	 * ones, an AVX way to fill a ymm; VPCMPEQD ymm is AVX2). */
	__asm__ volatile("vcmpps $15, %%ymm4, %%ymm4, %%ymm4; pxor %%xmm4, %%xmm4; vmovdqu %%ymm4, %0" : "=m"(out));
	check("PXOR xmm4 keeps YMM4[255:128]", rd(out, 4) & rd(out, 7), 0xffffffff);
	check("PXOR xmm4 zeroes XMM4", rd(out, 0) | rd(out, 3), 0);
	__asm__ volatile("vcmpps $15, %%ymm4, %%ymm4, %%ymm4; vpxor %%xmm4, %%xmm4, %%xmm4; vmovdqu %%ymm4, %0" : "=m"(out));
	check("VPXOR xmm4 zeroes YMM4[255:128]", rd(out, 4) | rd(out, 7), 0);
	/* VADDSS: the upper elements from the first source. */
	__asm__ volatile("vmovaps %1, %%xmm1; vaddss %2, %%xmm1, %%xmm0; vmovups %%ymm0, %0"
			 : "=m"(out) : "m"(a32), "m"(b32));
	check("VADDSS element 0 = 3", rd(out, 0), 0x40400000);
	check("VADDSS elements 1-3 from the first source", rd(out, 3), 0x3f800000);
	check("VADDSS zeroes bits 255:128", rd(out, 5), 0);
}

static void test_alignment(void)
{
	expect_fault("VMOVAPS ymm, m256 at 16 mod 32 -> #GP(0)", vmovaps_ymm, buf + 16, 13, 0);
	expect_no_fault("VMOVAPS xmm, m128 at 16 mod 32", vmovaps_xmm, buf + 16);
	expect_fault("VMOVAPS xmm, m128 at 8 mod 16 -> #GP(0)", vmovaps_xmm, buf + 8, 13, 0);
	expect_no_fault("VMOVUPS ymm, m256 misaligned", vmovups_ymm, buf + 3);
	expect_no_fault("VADDPS ymm, m256 misaligned (type 4)", vaddps_mem, buf + 4);
}

static void test_xsave(void)
{
	gmemset(area, 0, sizeof(area));
	for (int i = 0; i < 32; i++)
		a32[i] = (uint8_t)(0x50 + i);
	__asm__ volatile("vmovdqa %0, %%ymm3" :: "m"(a32));
	__asm__ volatile("xsave %0" : "=m"(*(uint8_t(*)[832])area) : "a"(7), "d"(0));
	check("XSAVE: XSTATE_BV[2] = 1", area[512] >> 2 & 1, 1);
	check("XSAVE: YMM3[159:128] at 576 + 48", rd(area + 576 + 48, 0), rd(a32 + 16, 0));
	check("XSAVE: YMM3[255:224] at 576 + 60", rd(area + 576 + 60, 0), rd(a32 + 28, 0));
	/* XRSTOR with XSTATE_BV[2] = 0: the init state, zeros. */
	area[512] &= (uint8_t)~4;
	__asm__ volatile("xrstor %0" : : "m"(*(uint8_t(*)[832])area), "a"(7), "d"(0));
	__asm__ volatile("vmovdqu %%ymm3, %0" : "=m"(out));
	check("XRSTOR XSTATE_BV[2] = 0: YMM3[255:128] = 0", rd(out, 4) | rd(out, 7), 0);
	check("XRSTOR: XMM3 loaded", rd(out, 0), rd(a32, 0));
	area[512] |= 4;
	__asm__ volatile("xrstor %0" : : "m"(*(uint8_t(*)[832])area), "a"(7), "d"(0));
	__asm__ volatile("vmovdqu %%ymm3, %0" : "=m"(out));
	check("XRSTOR XSTATE_BV[2] = 1: YMM3[255:224] loaded", rd(out, 7), rd(a32 + 28, 0));
}

/* XSAVEC (SDM Vol.2 XSAVEC): XCOMP_BV = RFBM | bit 63; YMM_Hi128 first in the
 * compacted extended region, at 576; XSTATE_BV may leave out components in
 * their init state (XINUSE), so only a saved one is compared. The compacted
 * XRSTOR puts it back. */
static void test_xsavec(void)
{
	uint32_t r[4];
	cpuid(0xd, 1, r);
	if (!(r[0] >> 1 & 1)) {
		skip("XSAVEC", "CPUID.(EAX=0DH,ECX=1):EAX[1] = 0");
		return;
	}
	gmemset(area, 0, sizeof(area));
	__asm__ volatile("vmovdqa %0, %%ymm3" :: "m"(a32));
	__asm__ volatile("xsavec %0" : "=m"(*(uint8_t(*)[832])area) : "a"(7), "d"(0));
	check("XSAVEC: XCOMP_BV[31:0] = RFBM", rd(area + 520, 0), 7);
	check("XSAVEC: XCOMP_BV[63:32] = 80000000H", rd(area + 524, 0), 0x80000000);
	check("XSAVEC: XSTATE_BV[2] (YMM3 not in its init state)", area[512] >> 2 & 1, 1);
	check("XSAVEC: YMM3[255:224] at 576 + 60", rd(area + 576 + 60, 0), rd(a32 + 28, 0));
	__asm__ volatile("vxorps %%xmm3, %%xmm3, %%xmm3" ::: "memory");
	__asm__ volatile("xrstor %0" : : "m"(*(uint8_t(*)[832])area), "a"(7), "d"(0));
	__asm__ volatile("vmovdqu %%ymm3, %0" : "=m"(out));
	check("compacted XRSTOR: YMM3[255:224] back", rd(out, 7), rd(a32 + 28, 0));
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	if (!(r[2] >> 26 & 1) || !(r[2] >> 28 & 1))
		skip_all("CPUID.01H:ECX.XSAVE/AVX = 0");
	set_cr0((cr0() | CR0_MP) & ~(CR0_EM | CR0_TS));
	set_cr4(cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	test_enable();
	test_results();
	test_alignment();
	test_xsave();
	test_xsavec();
	tap_finish();
}
