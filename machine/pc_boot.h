/* The devices and firmware data of the boot contract QEMU-style test kernels
 * rely on, as the machine wires them: fw_cfg, PCI configuration with the
 * i440FX host bridge, QEMU's pc-testdev, the reset paths (port 0x92, 0xCF9,
 * the 8042's reset command), A20 through port 0x92 and the 8042, the 8042
 * keyboard controller itself (devices/i8042.h), the Bochs "Shutdown" port,
 * the PIIX4's ACPI power management (PM timer, SCI, soft off), and the ACPI
 * tables. The machine describes itself in struct pc_description
 * (filled where its devices are built), and fw_cfg and ACPI are written from
 * that description, so they say what the machine is. */
#ifndef HVEMU_MACHINE_PC_BOOT_H
#define HVEMU_MACHINE_PC_BOOT_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/acpi.h"
#include "devices/bus.h"
#include "devices/fw_cfg.h"
#include "devices/i8042.h"
#include "devices/ich9_lpc.h"
#include "devices/irq.h"
#include "devices/pc_testdev.h"
#include "devices/pci.h"
#include "devices/piix4_pm.h"
#include "devices/power.h"
#include "devices/reset.h"
#include "devices/shutdown_port.h"
#include "emu/cpu.h"

/* The chipset: QEMU's pc machine (i440FX host bridge, PIIX4 power
 * management at 00:01.3) or its q35 (Q35 MCH with a PCIe ECAM window, ICH9
 * LPC bridge at 00:1F.0 with its power management). */
enum pc_chipset { PC_I440FX, PC_Q35 };

/* What the machine is made of, for the tables that describe it. Each device's
 * set-up sets its own fields; what is not there stays false. */
struct pc_description {
	unsigned n_cpus;           /* CPUs present (local APIC IDs 0 .. n_cpus-1) */
	unsigned max_cpus;         /* CPUs the machine can have (no hot-plug: n_cpus) */
	bool lapic;                /* local APICs at 0xFEE00000, LINT1 wired to NMI */
	bool ioapic;               /* I/O APIC at 0xFEC00000, ID 0, ISA IRQ 0 at pin 2 */
	bool pic;                  /* the 8259 pair */
	bool hpet;                 /* HPET at 0xFED00000 */
	uint32_t hpet_block_id;    /* its capabilities register, bits 31:0 */
	uint16_t hpet_min_tick;
	bool rtc;                  /* CMOS RTC; rtc_century its century register, 0: none */
	uint8_t rtc_century;
	bool keyboard;             /* an 8042 with a keyboard behind it */
	bool vga;
	enum pc_chipset chipset;
	bool acpi_pm;              /* the chipset's ACPI PM hardware (PIIX4 or ICH9), at 600h */
};

/* Where a reset or power-off request came from (the first one counts). */
struct pc_power_state {
	enum power_request what;   /* 0: none yet */
	char source[96];
};

struct pc_boot {
	struct cpu *cpu;           /* A20 from port 0x92 and the 8042 */
	/* Ends the run after the current instruction on a power request
	 * (default: stops cpu; a machine with several CPUs stops the running one). */
	void (*stop)(void *ctx);
	void *stop_ctx;
	struct power_control power;
	struct pc_power_state requested;
	struct fw_cfg fw_cfg;
	struct pci_host pci;
	struct reset_ports reset;
	struct shutdown_port shutdown;
	struct i8042 i8042;        /* with its keyboard; the machine wires IRQ1/IRQ12 */
	bool a20_port92, a20_8042; /* the two A20 gate outputs, ORed into the CPU's A20 */
	struct pc_testdev testdev;
	/* ISA IRQ / GSI lines 0-23 as pc-testdev drives them: the interrupt
	 * controllers' set-up connects them (unconnected lines do nothing). */
	struct irq_line gsi[PC_TESTDEV_IRQS];
	enum pc_chipset chipset;
	struct piix4_pm pm;        /* i440FX: PCI 00:01.3, its SCI on ISA IRQ 9 (pc_boot_add_pm) */
	struct ich9_lpc lpc;       /* Q35: PCI 00:1F.0, its SCI on ISA IRQ 9 (pc_boot_add_pm) */
	bool acpi_built;
	struct acpi_layout acpi;
	/* Under a BIOS: the machine the fw_cfg ACPI files describe, its PM
	 * block where the firmware last put it. */
	struct acpi_machine acpi_for_firmware;
};

/* Build and register the devices on io and pm, the chipset's host bridge
 * among them (pc-testdev's scratch memory only if nothing else is mapped at
 * 0xFF000000, e.g. a 16 MiB BIOS). False on a port or address clash. */
bool pc_boot_devices(struct pc_boot *b, enum pc_chipset chipset, struct cpu *cpu, struct iobus *io,
		     struct physmem *pm);

/* The chipset's power management (devices/piix4_pm.h, devices/ich9_lpc.h)
 * on the PCI bus and io, its timer on clock, its SCI on gsi[9] (wired first). */
bool pc_boot_add_pm(struct pc_boot *b, struct vclock *clock, struct iobus *io);

/* Fill fw_cfg from the machine's description, and the ACPI tables: without
 * a BIOS written at ACPI_AREA_BASE, with one (bios) as fw_cfg files the
 * firmware places and links (devices/acpi_table_loader.h). False with a
 * reason in err (out of memory, tables too large). */
bool pc_boot_firmware(struct pc_boot *b, struct physmem *pm, const struct pc_description *d,
		      bool bios, char *err, size_t errlen);

void pc_boot_destroy(struct pc_boot *b);

#endif
