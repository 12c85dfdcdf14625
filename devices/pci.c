/* PCI configuration mechanism #1 and the host bridge; see devices/pci.h. */
#include "devices/pci.h"

#include "devices/i440fx.h"

#include <string.h>

#include "devices/le_bytes.h"

void pci_host_init(struct pci_host *h, const struct pio_ops *isa_ops, void *isa_opaque)
{
	memset(h, 0, sizeof(*h));
	h->isa_ops = isa_ops;
	h->isa_opaque = isa_opaque;
}

static struct pci_function *find(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function)
{
	for (unsigned i = 0; i < h->n_fn; i++) {
		struct pci_function *f = &h->fn[i];
		if (f->bus == bus && f->device == device && f->function == function)
			return f;
	}
	return NULL;
}

struct pci_function *pci_add_function(struct pci_host *h, uint8_t bus, uint8_t device,
				      uint8_t function, const char *name)
{
	if (h->n_fn == PCI_MAX_FUNCTIONS || device > 31 || function > 7 || find(h, bus, device, function))
		return NULL;
	struct pci_function *f = &h->fn[h->n_fn++];
	memset(f, 0, sizeof(*f));
	f->bus = bus;
	f->device = device;
	f->function = function;
	f->name = name;
	return f;
}

struct pci_function *pci_function_at(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function)
{
	return find(h, bus, device, function);
}

bool pci_add_i440fx(struct pci_host *h)
{
	struct pci_function *f = pci_add_function(h, 0, 0, 0, "i440FX host bridge");
	if (!f)
		return false;
	put16(f->config + PCI_VENDOR_ID, 0x8086);
	put16(f->config + PCI_DEVICE_ID, 0x1237);
	/* 82441FX PCICMD: its reset value 0006h (memory space and bus master
	 * enabled); read-only here, like the rest of the header. */
	put16(f->config + PCI_COMMAND, 0x0006);
	f->config[PCI_REVISION_ID] = 0x02;
	f->config[PCI_CLASS_PROG] = 0x00;
	put16(f->config + PCI_CLASS_DEVICE, 0x0600);   /* bridge, host */
	f->config[PCI_HEADER_TYPE] = 0x00;             /* type 0, single function */
	i440fx_chipset_init(f);
	return true;
}

uint32_t pci_config_read(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function, unsigned reg,
			 unsigned size)
{
	struct pci_function *f = find(h, bus, device, function);
	if (!f)
		return 0xffffffffu;      /* master abort: all ones */
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++)
		if (reg + i < sizeof(f->config))   /* PCIe extended space: no capabilities, 0 */
			v |= (uint32_t)f->config[reg + i] << (8 * i);
	return v;
}

void pci_config_write(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function, unsigned reg,
		      unsigned size, uint32_t value)
{
	struct pci_function *f = find(h, bus, device, function);
	if (!f || reg >= sizeof(f->config))
		return;
	for (unsigned i = 0; i < size && reg + i < sizeof(f->config); i++) {
		uint8_t m = f->wmask[reg + i], b = (uint8_t)(value >> (8 * i));
		f->config[reg + i] = (uint8_t)((f->config[reg + i] & ~m) | (b & m));
	}
	if (f->written)
		f->written(f->written_ctx, reg, size);
}

/* An access that is neither CONFIG_ADDRESS (a doubleword at 0xCF8) nor within
 * CONFIG_DATA: it is taken a byte at a time, each byte by its own port. */
static bool split(uint16_t port, unsigned size)
{
	return size > 1 && port < PCI_CONFIG_DATA && !(port == PCI_CONFIG_ADDRESS && size == 4);
}

static uint32_t pci_read(void *opaque, uint16_t port, unsigned size)
{
	struct pci_host *h = opaque;
	if (split(port, size)) {
		uint32_t v = 0;
		for (unsigned i = 0; i < size; i++)
			v |= (pci_read(h, (uint16_t)(port + i), 1) & 0xff) << (8 * i);
		return v;
	}
	if (port == PCI_CONFIG_ADDRESS && size == 4)
		return h->config_address;
	if (port < PCI_CONFIG_DATA)       /* a byte on the ISA side */
		return h->isa_ops && h->isa_ops->read ? h->isa_ops->read(h->isa_opaque, port, 1) : 0xff;
	uint32_t a = h->config_address;
	if (!(a & PCI_CONFIG_ENABLE))
		return 0xffffffffu;
	return pci_config_read(h, (uint8_t)(a >> 16), (uint8_t)((a >> 11) & 0x1f), (uint8_t)((a >> 8) & 7),
			       (a & 0xfc) + (port - PCI_CONFIG_DATA), size);
}

static void pci_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct pci_host *h = opaque;
	if (split(port, size)) {
		for (unsigned i = 0; i < size; i++)
			pci_write(h, (uint16_t)(port + i), 1, (value >> (8 * i)) & 0xff);
		return;
	}
	if (port == PCI_CONFIG_ADDRESS && size == 4) {
		/* Bits 30:24 are reserved and bits 1:0 read-only, all reading 0. */
		h->config_address = h->config_address_all_bits ? value : value & 0x80fffffcu;
		return;
	}
	if (port < PCI_CONFIG_DATA) {
		if (h->isa_ops && h->isa_ops->write)
			h->isa_ops->write(h->isa_opaque, port, 1, value & 0xff);
		return;
	}
	uint32_t a = h->config_address;
	if (a & PCI_CONFIG_ENABLE)
		pci_config_write(h, (uint8_t)(a >> 16), (uint8_t)((a >> 11) & 0x1f), (uint8_t)((a >> 8) & 7),
				 (a & 0xfc) + (port - PCI_CONFIG_DATA), size, value);
}

static const struct pio_ops pci_ops = { .read = pci_read, .write = pci_write };

bool pci_host_register(struct pci_host *h, struct iobus *io)
{
	return iobus_register(io, PCI_CONFIG_ADDRESS, 8, &pci_ops, h, "PCI configuration");
}
