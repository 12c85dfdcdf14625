/* The Intel 82441FX PMC's chipset registers beyond the PCI header (Intel
 * 440FX PCIset datasheet, 82441FX PMC and 82442FX DBX, order 290549-001,
 * section 3.2 "PMC Register Description"): the Programmable Attribute Map
 * registers PAM0-PAM6 (59h-5Fh) that give each segment of C0000h-FFFFFh its
 * DRAM read and write enables, and the System Management RAM control
 * register SMRAM (72h).
 *
 * PAM (3.2.18): each register holds two 4-bit fields, bits 3:0 for the lower
 * 16 KiB segment and bits 7:4 for the upper; in each field bit 0 is RE (reads
 * go to DRAM, else to PCI) and bit 1 WE (writes go to DRAM, else to PCI),
 * bits 3:2 reserved. PAM0 bits 7:4 cover the whole 64 KiB BIOS area
 * F0000h-FFFFFh and its bits 3:0 are reserved; PAM1-PAM6 cover C0000h-EFFFFh
 * in 16 KiB steps. Reset value 00h: every segment goes to PCI (the BIOS ROM).
 *
 * hvemu's memory map is fixed: RAM stays at C0000h-FFFFFh with the BIOS
 * image's copy in it, which is what a BIOS that shadows itself (SeaBIOS
 * sets RE|WE, copies, then RE only) ends up reading. The registers read back
 * as written and i440fx_pam_attr() decodes them for the machine and the
 * tests; writes to a segment set read-only still reach RAM.
 *
 * SMRAM (3.2.23): bits 2:0 C_BASE_SEG fixed 010b (A0000h), bit 3 G_SMRAME,
 * bit 4 D_LCK, bit 5 D_CLS, bit 6 D_OPEN, bit 7 reserved; reset 02h. Setting
 * D_LCK clears D_OPEN and makes D_OPEN, G_SMRAME and D_LCK itself read-only
 * until reset. hvemu has no SMM: the register is kept for the firmware's
 * sake and A0000h-BFFFFh stays the VGA window. */
#ifndef HVEMU_DEVICES_I440FX_H
#define HVEMU_DEVICES_I440FX_H

#include <stdint.h>

#include "devices/pci.h"

enum {
	I440FX_PAM0 = 0x59, I440FX_PAM6 = 0x5f, I440FX_SMRAM = 0x72,
	PAM_RE = 1u << 0, PAM_WE = 1u << 1,
	SMRAM_C_BASE_SEG = 0x02, SMRAM_G_SMRAME = 1u << 3, SMRAM_D_LCK = 1u << 4,
	SMRAM_D_CLS = 1u << 5, SMRAM_D_OPEN = 1u << 6,
};

#define PAM_AREA_START 0xc0000u
#define PAM_AREA_END 0x100000u

/* The PAM and SMRAM registers of the host bridge f at their reset values,
 * with their writable bits, and the SMRAM lock as f's write hook. */
void i440fx_chipset_init(struct pci_function *f);

/* The attributes (PAM_RE | PAM_WE) of the segment holding physical address
 * pa, from the configuration space config; RE|WE (DRAM) outside C0000h-FFFFFh. */
unsigned i440fx_pam_attr(const uint8_t *config, uint32_t pa);

#endif
