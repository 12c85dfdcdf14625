/* QEMU's pc-testdev (hw/misc/pc-testdev.c behaviour), the ISA test device of
 * kvm-unit-tests:
 *   0xE0-0xE3   a 32-bit register; a byte, word or doubleword access at port
 *               0xE0 + n reads or writes its bytes n.. (little-endian). As
 *               QEMU's memory core takes only naturally aligned accesses to it
 *               (words at 0xE0/0xE2, the doubleword at 0xE0), an unaligned one
 *               reads 0 and writes nothing
 *   0xE4-0xE7   "flush page": a doubleword write of a physical address asks the
 *               host to drop what it caches about that 4 KiB page (for KVM,
 *               its mappings; for hvemu, decoded instructions); no guest-visible
 *               effect; reads return 0
 *   0xE8-0xEB   the same register as 0xE0, taken a byte at a time (QEMU splits
 *               wider accesses there; the result is the same, alignment rule
 *               included)
 *   0x2000-0x2017  IRQ lines: a byte write of V to 0x2000 + n drives ISA/GSI
 *               line n to (V != 0); reads return 0; wider writes are ignored
 *   0xFF000000-0xFF00FFFF  64 KiB of scratch memory, any access width
 */
#ifndef HVEMU_DEVICES_PC_TESTDEV_H
#define HVEMU_DEVICES_PC_TESTDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/irq.h"

#define PC_TESTDEV_IOPORT 0xe0
#define PC_TESTDEV_FLUSH 0xe4
#define PC_TESTDEV_IOPORT_BYTE 0xe8
#define PC_TESTDEV_IRQ 0x2000
#define PC_TESTDEV_IRQS 24
#define PC_TESTDEV_IOMEM 0xff000000u
#define PC_TESTDEV_IOMEM_SIZE 0x10000u

struct pc_testdev {
	uint32_t ioport_data;
	uint8_t iomem[PC_TESTDEV_IOMEM_SIZE];
	const struct irq_line *irq;      /* PC_TESTDEV_IRQS lines (unconnected ones do nothing) */
	void (*flush_page)(void *opaque, uint64_t pa);   /* NULL: nothing cached */
	void *flush_opaque;
};

void pc_testdev_init(struct pc_testdev *t, const struct irq_line *irq,
		     void (*flush_page)(void *opaque, uint64_t pa), void *flush_opaque);
/* The ports. */
bool pc_testdev_register_io(struct pc_testdev *t, struct iobus *io);
/* The scratch memory at 0xFF000000 (false if something is mapped there). */
bool pc_testdev_register_mmio(struct pc_testdev *t, struct physmem *pm);

#endif
