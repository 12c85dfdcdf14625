/* The q35 host bridge and its ECAM window; see devices/q35.h. */
#include "devices/q35.h"

#include "devices/le_bytes.h"

/* PCIe 3.0 Table 7-1: the window's address bits name bus, device, function
 * and register. */
static uint32_t ecam_read32(struct pci_host *h, uint64_t off, unsigned size)
{
	return pci_config_read(h, (uint8_t)(off >> 20), (uint8_t)((off >> 15) & 0x1f), (uint8_t)((off >> 12) & 7),
			       (unsigned)(off & 0xfff), size);
}

static uint64_t ecam_read(void *opaque, uint64_t off, unsigned size)
{
	struct pci_host *h = opaque;
	if ((off & 3) + size <= 4)
		return ecam_read32(h, off, size);
	uint64_t v = 0;                          /* across doublewords: a byte at a time */
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)(ecam_read32(h, off + i, 1) & 0xff) << (8 * i);
	return v;
}

static void ecam_write(void *opaque, uint64_t off, unsigned size, uint64_t value)
{
	struct pci_host *h = opaque;
	if ((off & 3) + size <= 4) {
		pci_config_write(h, (uint8_t)(off >> 20), (uint8_t)((off >> 15) & 0x1f), (uint8_t)((off >> 12) & 7),
				 (unsigned)(off & 0xfff), size, (uint32_t)value);
		return;
	}
	for (unsigned i = 0; i < size; i++)
		ecam_write(h, off + i, 1, (value >> (8 * i)) & 0xff);
}

static const struct mmio_ops ecam_ops = { .read = ecam_read, .write = ecam_write };

bool q35_attach(struct pci_host *h, struct physmem *pm)
{
	struct pci_function *f = pci_add_function(h, 0, 0, 0, "Q35 host bridge (MCH)");
	if (!f)
		return false;
	put16(f->config + PCI_VENDOR_ID, 0x8086);
	put16(f->config + PCI_DEVICE_ID, 0x29c0);
	/* PCICMD: memory space and bus master enabled, read-only here as in
	 * the i440FX's header (devices/pci.c). */
	put16(f->config + PCI_COMMAND, 0x0006);
	put16(f->config + PCI_CLASS_DEVICE, 0x0600);   /* bridge, host */
	f->config[PCI_HEADER_TYPE] = 0x00;
	/* PCIEXBAR: base B0000000h, LENGTH 00b (256 MB), PCIEXBAREN. */
	put32(f->config + Q35_PCIEXBAR, Q35_ECAM_BASE | Q35_PCIEXBAREN);
	return physmem_add_mmio(pm, Q35_ECAM_BASE, Q35_ECAM_SIZE, &ecam_ops, h, "PCIe ECAM (MCFG)");
}
