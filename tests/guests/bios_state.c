/* What a BIOS leaves below 1 MiB for the kernel it starts (IBM PC/AT BIOS
 * data area and interrupt vectors; devices/bios_data_area.h): hvemu's direct
 * start writes it, SeaBIOS under QEMU leaves its own. Only what both must
 * agree on is checked: the base memory size at 40:13 is multiboot's
 * mem_lower, the EBDA that 40:0E names lies between it and A0000H and is not
 * RAM in the memory map, COM1 at 40:00 is 3F8H with the equipment word
 * counting it, every interrupt vector the BIOS owns (00h-1Fh, 70h-77h)
 * points somewhere, and in real mode an INT 15h E820 call and an INT to IRQ 7's
 * vector with no interrupt pending return (a BIOS's answer
 * or "not supported" with CF set). */
#include "lib/guest.h"

#define R8(a) (*(volatile uint8_t *)(uintptr_t)(a))
#define R16(a) (*(volatile uint16_t *)(uintptr_t)(a))
#define R32(a) (*(volatile uint32_t *)(uintptr_t)(a))

/* Real mode at 0900:0000, far-called by realmode_call: INT 15h with
 * EAX=E820h, EBX=0, ECX=20, EDX='SMAP', ES:DI=0:7E40 (ACPI 6.0 15.1), its
 * FLAGS and EAX stored at 7E00/7E04, then INT 0Fh and a marker at 7E08. */
static const uint8_t rm_code[] = {
	0x31, 0xc0,                               /* xor ax, ax */
	0x8e, 0xd8,                               /* mov ds, ax */
	0x8e, 0xc0,                               /* mov es, ax */
	0xb8, 0x20, 0xe8,                         /* mov ax, 0E820h */
	0x66, 0x31, 0xdb,                         /* xor ebx, ebx */
	0x66, 0xb9, 0x14, 0x00, 0x00, 0x00,       /* mov ecx, 20 */
	0x66, 0xba, 0x50, 0x41, 0x4d, 0x53,       /* mov edx, 'SMAP' */
	0xbf, 0x40, 0x7e,                         /* mov di, 7E40h */
	0xcd, 0x15,                               /* int 15h */
	0x9c,                                     /* pushf */
	0x8f, 0x06, 0x00, 0x7e,                   /* pop word [7E00h] */
	0x66, 0xa3, 0x04, 0x7e,                   /* mov [7E04h], eax */
	0xcd, 0x0f,                               /* int 0Fh (IRQ 7's vector, nothing pending) */
	0xc7, 0x06, 0x08, 0x7e, 0x34, 0x12,       /* mov word [7E08h], 1234h */
	0xcb,                                     /* retf */
};

void guest_main(void)
{
	if (!mb_info || !(mb_info->flags & 1))
		skip_all("no multiboot memory sizes");
	uint32_t base_kib = R16(0x413);
	note("BDA: base memory %u KiB, EBDA segment 0x%x, COM1 0x%x, equipment 0x%x", base_kib, R16(0x40e),
	     R16(0x400), R16(0x410));
	check("40:13 base memory (KiB) is multiboot's mem_lower", base_kib, mb_info->mem_lower);
	uint32_t ebda = (uint32_t)R16(0x40e) << 4;
	check_true("40:0E names an EBDA at or above the base memory's end", ebda && ebda >= base_kib * 1024);
	check_true("the EBDA lies below A0000H", ebda < 0xa0000);
	check_true("the EBDA's size byte (KiB) keeps it below A0000H",
		   R8(ebda) && ebda + R8(ebda) * 1024u <= 0xa0000);
	check("40:00 COM1 at 3F8H", R16(0x400), 0x3f8);
	check_true("the equipment word counts a serial port", ((R16(0x410) >> 9) & 7) >= 1);
	if (mb_info->flags & (1u << 6)) {
		int ram = 0;
		for (uint32_t o = 0; o < mb_info->mmap_length;) {
			const uint8_t *e = (const uint8_t *)(uintptr_t)(mb_info->mmap_addr + o);
			uint32_t b = rd32(e, 4), l = rd32(e, 12);
			if (rd32(e, 20) == 1 && rd32(e, 8) == 0 && b < 0xa0000 && b + l > ebda)
				ram = 1;
			o += rd32(e, 0) + 4;
		}
		check("the EBDA is not RAM in the memory map", ram, 0);
	}
	/* The vectors a BIOS owns: 00h-1Fh (exceptions, the master 8259's
	 * IRQs at 08h-0Fh, the BIOS services) and 70h-77h (the slave 8259's
	 * IRQs). Others (60h-67h for user programs, SeaBIOS's 79h) may be 0. */
	int zero = 0;
	for (uint32_t v = 0; v < 256; v++)
		if (R32(4 * v) == 0 && (v < 0x20 || (v >= 0x70 && v <= 0x77))) {
			note("vector %x is 0000:0000", v);
			zero++;
		}
	check("BIOS-owned interrupt vectors (00h-1Fh, 70h-77h) left 0000:0000", zero, 0);

	gmemcpy((void *)0x9000, rm_code, sizeof(rm_code));
	gmemset((void *)0x7e00, 0, 0x100);
	realmode_call(0, 0x0900, 0);
	uint16_t flags = R16(0x7e00);
	uint32_t eax = R32(0x7e04);
	note("INT 15h E820: CF %u, EAX 0x%x", flags & 1, eax);
	check_true("INT 15h E820 returned: a map entry ('SMAP') or CF set (not supported)",
		   (!(flags & 1) && eax == 0x534d4150) || (flags & 1));
	check("INT 0Fh (IRQ 7's vector, no interrupt pending) returned", R16(0x7e08), 0x1234);
	tap_finish();
}
