/* A guest's reset of the machine (port 0xCF9, port 0x92, the 8042's pulse,
 * the ACPI reset register): the hardware half of a reboot. Every CPU goes
 * back to its RESET state and every chipset device to its power-on state, as
 * QEMU's system reset does for each of these sources; RAM (and the CMOS,
 * battery-backed) is kept, virtual time goes on. The machine then enters the
 * firmware or the kernel again (machine/machine.c). */
#ifndef HVEMU_MACHINE_REBOOT_H
#define HVEMU_MACHINE_REBOOT_H

struct machine;

/* Reset the CPUs (SDM Vol.3 9.1.1 Table 9-1, RESET column; the APs waiting
 * for a SIPI, SDM Vol.3 8.4.1), their local APICs and TLBs and decoded
 * instructions, the I/O APIC, the 8259A pair, the 8254, the HPET, COM1, the
 * 8042 and the A20 gates, and the RTC's interrupt enables (its time and CMOS
 * RAM stay). Deterministic: nothing depends on the host. */
void reboot_reset_hardware(struct machine *m);

#endif
