/* The PIIX3 ISA bridge's configuration space; see devices/piix3_isa.h. */
#include "devices/piix3_isa.h"

bool piix3_isa_attach(struct pci_host *h)
{
	struct pci_function *f = pci_add_function(h, 0, 1, 0, "PIIX3 ISA bridge");
	if (!f)
		return false;
	f->config[PCI_VENDOR_ID] = 0x86;
	f->config[PCI_VENDOR_ID + 1] = 0x80;
	f->config[PCI_DEVICE_ID] = 0x00;
	f->config[PCI_DEVICE_ID + 1] = 0x70;
	/* 2.2.2 PCICMD: reset 0007h (I/O and memory space, bus master). */
	f->config[PCI_COMMAND] = 0x07;
	f->config[PCI_CLASS_PROG] = 0x00;
	f->config[PCI_CLASS_DEVICE] = 0x01;         /* sub-class: ISA bridge */
	f->config[PCI_CLASS_DEVICE + 1] = 0x06;     /* base class: bridge */
	f->config[PCI_HEADER_TYPE] = PIIX3_HEADER_MULTI;   /* 2.2.6 HEDT */
	/* 2.2.16 PIRQRC[A:D]: reset 80h; bits 7 and 3:0 writable. */
	for (unsigned i = 0; i < 4; i++) {
		f->config[PIIX3_PIRQRC + i] = PIIX3_PIRQ_DISABLE;
		f->wmask[PIIX3_PIRQRC + i] = PIIX3_PIRQ_DISABLE | 0x0f;
	}
	return true;
}
