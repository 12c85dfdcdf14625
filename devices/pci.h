/* PCI configuration mechanism #1 (PCI Local Bus Specification 3.0, 3.2.2.3.2)
 * and the functions on bus 0 of hvemu's machine.
 *
 * CONFIG_ADDRESS at 0xCF8 (doubleword accesses only): bit 31 enable, bits
 * 23:16 bus, 15:11 device, 10:8 function, 7:2 register; bits 30:24 and 1:0
 * read as 0. CONFIG_DATA at 0xCFC-0xCFF: byte, word or doubleword accesses
 * reach the register CONFIG_ADDRESS names, plus the port's offset in the
 * doubleword. A function that does not exist reads all ones and ignores
 * writes (a master abort, PCI 3.0 6.1), as does CONFIG_DATA while the enable
 * bit is clear. Byte and word accesses to 0xCF8-0xCFB are not CONFIG_ADDRESS:
 * they go on to the ISA side, where the PIIX's reset control register answers
 * at 0xCF9 (devices/reset.h); pci_host.isa_ops receives them a byte at a time.
 *
 * Bus 0, device 0, function 0 is the host bridge of QEMU's pc machine, an
 * Intel 82441FX (i440FX) PMC: vendor 8086h, device 1237h, revision 02h, class
 * 060000h (host bridge), header type 00h. Beyond its header the PAM and SMRAM
 * registers (devices/i440fx.h); the other chipset registers (DRAM rows...)
 * read 0 and ignore writes, since hvemu's memory map is fixed. */
#ifndef HVEMU_DEVICES_PCI_H
#define HVEMU_DEVICES_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define PCI_CONFIG_ENABLE 0x80000000u
#define PCI_MAX_FUNCTIONS 8

/* Type 0 configuration header offsets (PCI 3.0 6.1). */
enum {
	PCI_VENDOR_ID = 0x00, PCI_DEVICE_ID = 0x02, PCI_COMMAND = 0x04, PCI_STATUS = 0x06,
	PCI_REVISION_ID = 0x08, PCI_CLASS_PROG = 0x09, PCI_CLASS_DEVICE = 0x0a,
	PCI_HEADER_TYPE = 0x0e,
};

struct pci_function {
	uint8_t bus, device, function;
	uint8_t config[256];
	uint8_t wmask[256];        /* the bits of config software may change */
	const char *name;
	/* After a write has changed config (registers reg .. reg+size-1), for a
	 * function whose registers decode something (a base address); NULL:
	 * nothing to do. */
	void (*written)(void *ctx, unsigned reg, unsigned size);
	void *written_ctx;
};

struct pci_host {
	uint32_t config_address;   /* CONFIG_ADDRESS as read back */
	/* CONFIG_ADDRESS keeps every bit written, its reserved 30:24 and 1:0 too:
	 * the quirk qemu-pci-config-address-all-bits (emu/quirks.def), set by
	 * machine set-up. */
	bool config_address_all_bits;
	struct pci_function fn[PCI_MAX_FUNCTIONS];
	unsigned n_fn;
	const struct pio_ops *isa_ops;   /* byte accesses to 0xCF8-0xCFB, or NULL */
	void *isa_opaque;
};

void pci_host_init(struct pci_host *h, const struct pio_ops *isa_ops, void *isa_opaque);
/* A function with an all-zero, read-only configuration space, or NULL when the
 * table is full or the address is taken. */
struct pci_function *pci_add_function(struct pci_host *h, uint8_t bus, uint8_t device,
				      uint8_t function, const char *name);
/* The function at bus:device.function, or NULL. */
struct pci_function *pci_function_at(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function);
/* A configuration access of size bytes (1, 2 or 4, within a doubleword) at
 * register reg of bus:device.function, as mechanism #1 or a PCIe ECAM window
 * (devices/q35.h) makes it. A function that does not exist reads all ones and
 * ignores writes (PCI 3.0 6.1); the functions here are conventional ones, so
 * the PCIe extended space from 100h reads 0, a capability header saying there
 * are no extended capabilities (PCIe 3.0 7.9.1), and ignores writes. */
uint32_t pci_config_read(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function, unsigned reg,
			 unsigned size);
void pci_config_write(struct pci_host *h, uint8_t bus, uint8_t device, uint8_t function, unsigned reg,
		      unsigned size, uint32_t value);
/* The i440FX host bridge at 00:00.0 (see above). */
bool pci_add_i440fx(struct pci_host *h);
/* Ports 0xCF8-0xCFF. */
bool pci_host_register(struct pci_host *h, struct iobus *io);

#endif
