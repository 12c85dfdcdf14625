/* The state a BIOS leaves in low memory; see devices/bios_data_area.h. */
#include "devices/bios_data_area.h"

#include "devices/e820.h"

/* BIOS data area offsets (segment 40h). */
enum {
	BDA = 0x400, BDA_COM1 = 0x00, BDA_EBDA_SEG = 0x0e, BDA_EQUIPMENT = 0x10, BDA_BASE_KIB = 0x13,
	BDA_VIDEO_MODE = 0x49, BDA_COLUMNS = 0x4a, BDA_CRTC = 0x63, BDA_ROWS = 0x84,
};

/* Equipment word: bits 11:9 the serial ports (1), bits 5:4 the initial video
 * mode (10b: 80x25 colour). */
#define EQUIPMENT (1u << 9 | 2u << 4)

void bios_data_area_write(struct physmem *pm)
{
	/* push bp; mov bp, sp; or byte [bp+6], 1 (CF in the FLAGS the INT
	 * pushed); pop bp; mov ah, 86h; iret */
	static const uint8_t int15[] = { 0x55, 0x89, 0xe5, 0x80, 0x4e, 0x06, 0x01, 0x5d, 0xb4, 0x86, 0xcf };
	physmem_write(pm, BDA_IRET_STUB, 1, 0xcf);                   /* iret */
	physmem_write_bytes(pm, BDA_INT15_STUB, int15, sizeof(int15));
	for (unsigned v = 0; v < 256; v++) {
		uint32_t stub = v == 0x15 ? BDA_INT15_STUB : BDA_IRET_STUB;
		physmem_write(pm, 4 * v, 2, stub & 0xffff);          /* offset */
		physmem_write(pm, 4 * v + 2, 2, 0xf000);             /* segment */
	}
	for (unsigned off = 0; off < 0x100; off++)
		physmem_write(pm, BDA + off, 1, 0);
	physmem_write(pm, BDA + BDA_COM1, 2, 0x3f8);
	physmem_write(pm, BDA + BDA_EBDA_SEG, 2, E820_EBDA_BASE >> 4);
	physmem_write(pm, BDA + BDA_EQUIPMENT, 2, EQUIPMENT);
	physmem_write(pm, BDA + BDA_BASE_KIB, 2, E820_EBDA_BASE >> 10);   /* 639 */
	physmem_write(pm, BDA + BDA_VIDEO_MODE, 1, 3);
	physmem_write(pm, BDA + BDA_COLUMNS, 2, 80);
	physmem_write(pm, BDA + BDA_CRTC, 2, 0x3d4);
	physmem_write(pm, BDA + BDA_ROWS, 1, 24);                      /* rows less one */
	physmem_write(pm, E820_EBDA_BASE, 1, (0xa0000 - E820_EBDA_BASE) >> 10);   /* 1 KiB */
}
