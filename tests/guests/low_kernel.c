/* A kernel linked at 0x8000 (lib/link_low.ld), over the 0x9000-0x96ff QEMU's
 * multiboot loader keeps its memory map and information structure in: hvemu
 * puts the information after the image, so the kernel boots with all of it
 * intact, and a page of zeros of its own at 0x9000 stays zero. Then the usual
 * machinery (GDT, IDT, exception catching) works from low memory. QEMU's
 * loader writes its information at the fixed 0x9500, inside this image, which
 * its loading of the image then overwrites: there (EBX = 0x9500) the checks of
 * the information's contents are skipped. */
#include "lib/guest.h"

extern char _end[];
/* The page QEMU writes its information into; hvemu's loader must not. */
__attribute__((section(".qemu_area"), used)) static volatile uint8_t qemu_area[0x1000];

static void ud2(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "ud2");
}

void guest_main(void)
{
	check_true("running below 1 MiB, linked at 0x8000", (uint32_t)(uintptr_t)guest_main < 0x100000);
	uint32_t written = 0;
	for (unsigned i = 0; i < sizeof(qemu_area); i++)
		written += qemu_area[i] != 0;
	check("the loader wrote nothing at 0x9000-0x9fff (the image's zeros)", written, 0);
	uint32_t info = (uint32_t)(uintptr_t)mb_info;
	if (info == 0x9500) {
		skip("the multiboot information", "the loader put it at the fixed 0x9500 (QEMU), inside "
		     "this image, which overwrote it");
	} else {
		check_true("multiboot magic and information", mb_info != 0);
		check("information flags", mb_info ? mb_info->flags : 0, 0x24f);
	}
	if (mb_info && mb_info->flags == 0x24f) {
		check("information structure on the page after the image", info,
		      ((uint32_t)(uintptr_t)_end + 0xfff) & ~0xfffu);
		check("memory map after it, clear of the image", (uint32_t)(mb_info->mmap_addr >= (uint32_t)(uintptr_t)_end), 1);
		int named = 0;
		for (const char *p = mb_cmdline; *p && !named; p++)
			named = !gstrncmp(p, "low_kernel.elf", 14);
		check_true("command line names the kernel", named);
		check("mem_lower", mb_info->mem_lower, 639);
	}
	/* The IDT and trap harness, in low memory. */
	expect_fault("UD2 -> #UD through the IDT in low memory", ud2, 0, 6, -1);
}
