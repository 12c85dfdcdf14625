/* The host bridge of QEMU's q35 machine: the Intel 82G33/P35 memory
 * controller hub (Intel 3 Series Express Chipset Family datasheet 316966,
 * "Host Bridge/DRAM Controller Registers (D0:F0)", cited by register name)
 * with its PCI Express enhanced configuration window (PCI Express Base
 * Specification 3.0, 7.2.2 "PCI Express Enhanced Configuration Access
 * Mechanism (ECAM)"):
 *
 *   00:00.0: vendor 8086h, device 29C0h, class 060000h (host bridge),
 *     header type 00h. PCIEXBAR at 60h (64-bit): bit 0 PCIEXBAREN, bits 2:1
 *     LENGTH (00b: 256 MB, buses 0-255), bits 35:28 the base. No firmware
 *     runs before an hvemu kernel, so the machine programs it as SeaBIOS
 *     does under QEMU, B0000000h enabled, 256 MB; like the rest of the memory
 *     map it is fixed, so the register is read-only here (a write that would
 *     move or disable the window is ignored).
 *   ECAM window Q35_ECAM_BASE..+256 MB: address bits 27:20 the bus, 19:15
 *     the device, 14:12 the function, 11:0 the register (PCIe 3.0 Table
 *     7-1), reaching the same configuration space as ports CF8h/CFCh
 *     (devices/pci.h), the extended space from 100h included. An access
 *     that crosses a doubleword is taken a byte at a time. The ACPI MCFG
 *     table names the window (devices/acpi.h). */
#ifndef HVEMU_DEVICES_Q35_H
#define HVEMU_DEVICES_Q35_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/bus.h"
#include "devices/pci.h"

#define Q35_ECAM_BASE 0xb0000000u
#define Q35_ECAM_SIZE 0x10000000u  /* 256 buses of 1 MiB */
#define Q35_PCIEXBAR 0x60
#define Q35_PCIEXBAREN 1u

/* The MCH at 00:00.0 of h, and the ECAM window on pm. False on a clash. */
bool q35_attach(struct pci_host *h, struct physmem *pm);

#endif
