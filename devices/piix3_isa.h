/* The PIIX3 PCI-to-ISA bridge, function 0 of device 1 on bus 0 as in QEMU's
 * pc machine (Intel 82371SB PIIX3 datasheet, order 290550-002, section 2.2
 * "PCI to ISA bridge configuration space"): vendor 8086h, device 7000h, class
 * 060100h (ISA bridge). Its header type has bit 7 set, a multi-function
 * device (2.2.6 HEDT reads 80h), which is how enumerators (SeaBIOS, Linux)
 * find the other functions of device 1, the PIIX4 power management function
 * 00:01.3 among them (devices/piix4_pm.h).
 *
 * PIRQRC[A:D] at 60h-63h (2.2.16): bit 7 IRQROUTEN, set to disable the
 * routing, bits 3:0 the ISA IRQ (3-7, 9-12, 14, 15) PIRQx# goes to, bits 6:4
 * reserved; reset 80h. They read back as written: hvemu has no PCI device
 * raising PIRQx#, so nothing is routed. */
#ifndef HVEMU_DEVICES_PIIX3_ISA_H
#define HVEMU_DEVICES_PIIX3_ISA_H

#include <stdbool.h>

#include "devices/pci.h"

enum {
	PIIX3_PIRQRC = 0x60,       /* PIRQRC[A] .. [D] at 60h-63h */
	PIIX3_PIRQ_DISABLE = 0x80, /* IRQROUTEN */
	PIIX3_HEADER_MULTI = 0x80,
};

/* Add the bridge at 00:01.0; false if the slot is taken or the table full. */
bool piix3_isa_attach(struct pci_host *h);

#endif
