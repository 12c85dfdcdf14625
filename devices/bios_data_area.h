/* The state a PC BIOS leaves in low memory, for kernels hvemu starts
 * directly (--kernel, no firmware): software that reads it, as hypervisors
 * do in their real-mode set-up (Xen sizes its trampoline from it), must not
 * find zeros. The layout is the IBM PC/AT BIOS's (IBM Personal Computer AT
 * Technical Reference, "BIOS Data Area" and interrupt vectors), which
 * SeaBIOS keeps under QEMU:
 *
 *   0000:0000 interrupt vector table: each of the 256 vectors points at an
 *     IRET in the BIOS segment (F000:FF53, the AT BIOS's dummy handler), so
 *     a stray INT returns; INT 15h (system services) instead returns with
 *     CF set and AH = 86h, "function not supported", so a caller asking for
 *     the E820 map, E801 or 88h falls back to the multiboot/boot-protocol
 *     memory map. No handler sends an EOI: the machine's interrupt
 *     controllers start masked, as a BIOS leaves them before its POST.
 *   0040:0000 BIOS data area: COM1 at 3F8h (COM2-4 and the LPT ports 0);
 *     0040:000E the EBDA's segment; 0040:0010 the equipment word (one serial
 *     port, 80x25 colour video); 0040:0013 base memory in KiB, below the
 *     EBDA; 0040:0049.. the video state of text mode 3 (mode, 80 columns,
 *     CRT controller at 3D4h, 25 rows).
 *   EBDA: 1 KiB at E820_EBDA_BASE (devices/e820.h), its first byte its size
 *     in KiB; the memory map and multiboot's mem_lower (639) agree. */
#ifndef HVEMU_DEVICES_BIOS_DATA_AREA_H
#define HVEMU_DEVICES_BIOS_DATA_AREA_H

#include "devices/bus.h"

#define BDA_IRET_STUB 0xfff53u     /* F000:FF53 */
#define BDA_INT15_STUB 0xfff54u    /* F000:FF54 */

/* Write the IVT, the BIOS data area, the EBDA's size byte and the two stubs. */
void bios_data_area_write(struct physmem *pm);

#endif
