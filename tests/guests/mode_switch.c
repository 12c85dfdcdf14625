/* Protected mode -> 16-bit protected mode -> real mode -> protected mode,
 * using the lib trampoline (SDM Vol.3 10.9.1/10.9.2) and the 16-bit payload
 * in mode_switch16.S. Checks real-mode addressing, the real-mode IVT,
 * operand sizes of 16-bit code, and that segment limits cached in protected
 * mode survive into real mode ("unreal" mode, SDM 20.1.1). */
#include "lib/guest.h"

extern char ms16_start[], ms16_end[];
#define R32(a) (*(volatile uint32_t *)(a))
#define R16(a) (*(volatile uint16_t *)(a))

static void gp_after(void *p) { (void)p; __asm__ volatile(MARK "mov %0, %%ds\n\tmov %%ss, %0\n\tmov %0, %%ds" :: "r"(0x80)); }

void guest_main(void)
{
	gmemcpy((void *)0x9000, ms16_start, (uint32_t)(ms16_end - ms16_start));
	gmemset((void *)0x7e00, 0, 0x100);
	R32(0x200000) = 0x600df00d;
	R32(0x200004) = 0x0badcafe;
	R32(0x10010) = 0;

	/* Real mode round trip. */
	realmode_call(0, 0x0900, 0);
	gputs("# back from real mode\n");
	check("real mode: CR0.PE = 0", R32(0x7e00) & 1, 0);
	check("real mode: ES=0x1000 addresses 0x10010", R32(0x10010), 0xcafebabe);
	check("unreal: FS keeps its 4 GiB limit across PE=0", R32(0x7e08), 0x600df00d);
	check("unreal: real-mode FS reload keeps the limit", R32(0x7e0c), 0x0badcafe);
	check("real mode: INT 0x50 through the IVT ran", R16(0x7e10), 0x1234);
	check("real mode: INT pushed CS", R16(0x7e12), 0x0900);
	check("real mode: INT pushed IP within payload", R16(0x7e14) < (uint32_t)(ms16_end - ms16_start), 1);
	check("real mode: PUSH r16 moves SP by 2", R16(0x7e16), 2);
	check("real mode: 66 PUSH r32 moves SP by 4", R16(0x7e18), 4);
	uint32_t cr0;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	check("back in protected mode: CR0.PE = 1", cr0 & 1, 1);
	expect_fault("IDT restored: #GP(0x80) delivered after the round trip", gp_after, 0, 13, 0x80);

	/* 16-bit protected mode: code segment with D=0 at base 0x9000. */
	gdt[8] = seg_desc(0x9000, 0xffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R, 0);
	realmode_call(1, 0x40, 0);
	check("16-bit PM: CR0.PE = 1", R32(0x7e20) & 1, 1);
	check("16-bit PM: CS = 0x40", R16(0x7e24), 0x40);
	check("16-bit PM: SS.B=0 PUSH moves SP by 2", R16(0x7e26), 2);
	check("16-bit PM: 32-bit addressing through flat FS", R32(0x7e28), 0x600df00d);

	/* A second real-mode trip works (trampoline state is reusable). */
	R32(0x10010) = 0;
	realmode_call(0, 0x0900, 0);
	check("second real-mode round trip", R32(0x10010), 0xcafebabe);
}
