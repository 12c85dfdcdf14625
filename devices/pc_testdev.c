/* QEMU's pc-testdev; see devices/pc_testdev.h. */
#include "devices/pc_testdev.h"

#include <string.h>

void pc_testdev_init(struct pc_testdev *t, const struct irq_line *irq,
		     void (*flush_page)(void *opaque, uint64_t pa), void *flush_opaque)
{
	memset(t, 0, sizeof(*t));
	t->irq = irq;
	t->flush_page = flush_page;
	t->flush_opaque = flush_opaque;
}

/* Bytes [n, n + size) of the 32-bit register, n = port & 3. */
static uint32_t reg_mask(uint16_t port, unsigned size, unsigned *shift)
{
	*shift = 8 * (port & 3);
	uint32_t m = size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	return m << *shift;
}

/* 0xE0-0xE3 or 0xE8-0xEB (the register windows), 0xE4-0xE7 flush-page. */
static bool in_flush(uint16_t port)
{
	return port >= PC_TESTDEV_FLUSH && port < PC_TESTDEV_FLUSH + 4;
}

/* QEMU (memory_region_access_valid): an access to the register must be
 * aligned to its size, so it also stays inside its window. */
static bool aligned(uint16_t port, unsigned size)
{
	return (port & (size - 1)) == 0;
}

static uint32_t testdev_read(void *opaque, uint16_t port, unsigned size)
{
	struct pc_testdev *t = opaque;
	if (port >= PC_TESTDEV_IRQ || in_flush(port) || !aligned(port, size))
		return 0;          /* IRQ lines and flush-page read 0; so do unaligned accesses */
	unsigned shift;
	uint32_t m = reg_mask(port, size, &shift);
	return (t->ioport_data & m) >> shift;
}

static void testdev_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct pc_testdev *t = opaque;
	if (port >= PC_TESTDEV_IRQ) {
		if (size == 1 && t->irq)
			irq_set(&t->irq[port - PC_TESTDEV_IRQ], value != 0);
		return;
	}
	if (in_flush(port)) {
		if (port == PC_TESTDEV_FLUSH && size == 4 && t->flush_page)
			t->flush_page(t->flush_opaque, value & ~0xfffull);
		return;
	}
	if (!aligned(port, size))
		return;
	unsigned shift;
	uint32_t m = reg_mask(port, size, &shift);
	t->ioport_data = (t->ioport_data & ~m) | ((value << shift) & m);
}

static const struct pio_ops testdev_ops = { .read = testdev_read, .write = testdev_write };

bool pc_testdev_register_io(struct pc_testdev *t, struct iobus *io)
{
	/* 0xE0-0xEB as one range, so an access across a window's end reaches
	 * the device whole (and is refused as unaligned, as under QEMU). */
	return iobus_register(io, PC_TESTDEV_IOPORT, 12, &testdev_ops, t, "pc-testdev ports") &&
	       iobus_register(io, PC_TESTDEV_IRQ, PC_TESTDEV_IRQS, &testdev_ops, t, "pc-testdev irq");
}

static uint64_t iomem_read(void *opaque, uint64_t offset, unsigned size)
{
	struct pc_testdev *t = opaque;
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)t->iomem[offset + i] << (8 * i);
	return v;
}

static void iomem_write(void *opaque, uint64_t offset, unsigned size, uint64_t value)
{
	struct pc_testdev *t = opaque;
	for (unsigned i = 0; i < size; i++)
		t->iomem[offset + i] = (uint8_t)(value >> (8 * i));
}

static const struct mmio_ops iomem_ops = { .read = iomem_read, .write = iomem_write };

bool pc_testdev_register_mmio(struct pc_testdev *t, struct physmem *pm)
{
	return physmem_add_mmio(pm, PC_TESTDEV_IOMEM, PC_TESTDEV_IOMEM_SIZE, &iomem_ops, t, "pc-testdev iomem");
}
