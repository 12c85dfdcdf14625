/* The boot-contract devices and firmware data of the machine; see
 * machine/pc_boot.h. */
#include "machine/pc_boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/acpi_table_loader.h"
#include "devices/e820.h"
#include "devices/piix3_isa.h"
#include "devices/q35.h"

/* A reset or power-off: the running CPU stops after the current instruction
 * (the machine restarts or ends the run, machine/machine.c), with the first
 * request's source kept for the report (README "Exit status"). */
static void on_power_request(void *opaque, enum power_request what, const char *source)
{
	struct pc_boot *b = opaque;
	if (b->requested.what)
		return;
	b->requested.what = what;
	snprintf(b->requested.source, sizeof(b->requested.source), "%s", source);
	b->stop(b->stop_ctx);
}

static void stop_cpu(void *opaque)
{
	cpu_request_stop(opaque);
}

/* The CPU's A20 is enabled while either gate enables it: outside the chip,
 * port 0x92's ALT_A20 is ORed with the keyboard controller's A20GATE to drive
 * A20M# (SMSC LPC47M102 datasheet, "Port 92"), so a 0 written there leaves
 * A20 on while the 8042 enables it. QEMU differs: both of its gates drive the
 * CPU's A20 directly, the last change counting (hw/i386/pc.c,
 * handle_a20_line_change; tests/guests/a20.c reports it as a TODO there). */
static void update_a20(struct pc_boot *b)
{
	cpu_set_a20(b->cpu, b->a20_port92 || b->a20_8042);
}

static void port92_a20(void *opaque, bool enabled)
{
	struct pc_boot *b = opaque;
	b->a20_port92 = enabled;
	update_a20(b);
}

static void i8042_a20(void *opaque, bool enabled)
{
	struct pc_boot *b = opaque;
	b->a20_8042 = enabled;
	update_a20(b);
}

/* pc-testdev's flush-page port: drop the decoded instructions of the page, the
 * only thing hvemu caches about guest memory beside the TLB, whose entries
 * stay right (the page's contents do not move). */
static void flush_page(void *opaque, uint64_t pa)
{
	cpu_notify_phys_write(opaque, pa, 4096);
}

bool pc_boot_devices(struct pc_boot *b, enum pc_chipset chipset, struct cpu *cpu, struct iobus *io,
		     struct physmem *pm)
{
	b->chipset = chipset;
	b->cpu = cpu;
	b->stop = stop_cpu;
	b->stop_ctx = cpu;
	b->power = (struct power_control){ .request = on_power_request, .opaque = b };
	fw_cfg_init(&b->fw_cfg);
	/* The 8042 first: port 0x92's set-up sets the CPU's A20 from both gates.
	 * The 8042's output port leaves its reset with A20 enabled (i8042_init). */
	i8042_init(&b->i8042, &b->power);
	b->a20_8042 = b->i8042.output_port & I8042_OUT_A20;
	i8042_connect_a20(&b->i8042, i8042_a20, b);
	reset_ports_init(&b->reset, &b->power, port92_a20, b);
	pci_host_init(&b->pci, &reset_control_ops, &b->reset);
	shutdown_port_init(&b->shutdown, &b->power);
	pc_testdev_init(&b->testdev, b->gsi, flush_page, cpu);
	if (chipset == PC_Q35 ? !q35_attach(&b->pci, pm) : !pci_add_i440fx(&b->pci))
		return false;
	if (!fw_cfg_register(&b->fw_cfg, io) || !fw_cfg_register_dma(&b->fw_cfg, io, pm) || !pci_host_register(&b->pci, io) ||
	    !reset_ports_register(&b->reset, io) || !shutdown_port_register(&b->shutdown, io) ||
	    !i8042_register(&b->i8042, io) || !pc_testdev_register_io(&b->testdev, io))
		return false;
	(void)pc_testdev_register_mmio(&b->testdev, pm);   /* absent under a 16 MiB BIOS */
	return true;
}

bool pc_boot_add_pm(struct pc_boot *b, struct vclock *clock, struct iobus *io)
{
	if (b->chipset == PC_Q35) {
		ich9_lpc_init(&b->lpc, clock, &b->power, b->gsi[ICH9_PM_SCI_IRQ]);
		return ich9_lpc_attach(&b->lpc, &b->pci, io);
	}
	piix4_pm_init(&b->pm, clock, &b->power, b->gsi[PIIX4_PM_SCI_IRQ]);
	/* Function 0 first: a multi-function device is found through it. */
	return piix3_isa_attach(&b->pci) && piix4_pm_attach(&b->pm, &b->pci, io);
}

/* fw_cfg's "etc/e820": the machine's memory map as QEMU's struct e820_entry
 * array (little-endian address, length, type; 20 bytes each). */
static bool add_e820_file(struct fw_cfg *f, uint64_t ram_size)
{
	struct e820_entry map[E820_MAX_ENTRIES];
	unsigned n = e820_map(ram_size, map);
	uint8_t raw[E820_MAX_ENTRIES * 20];
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < 8; k++) {
			raw[20 * i + k] = (uint8_t)(map[i].base >> (8 * k));
			raw[20 * i + 8 + k] = (uint8_t)(map[i].length >> (8 * k));
			if (k < 4)
				raw[20 * i + 16 + k] = (uint8_t)(map[i].type >> (8 * k));
		}
	return fw_cfg_add_file(f, "etc/e820", raw, 20 * n);
}

/* fw_cfg's select hook under a BIOS: the FADT's PM blocks follow the
 * firmware's PMBA/PMBASE (the tables' sizes stay: the block is there). */
static void refresh_firmware_acpi(void *opaque, uint16_t key)
{
	struct pc_boot *b = opaque;
	(void)key;
	struct acpi_machine *am = &b->acpi_for_firmware;
	const struct acpi_pm *pm = b->chipset == PC_Q35 ? &b->lpc.acpi : &b->pm.acpi;
	if (!am->pm_base || pm->decode.base == am->pm_base || !pm->decode.base)
		return;
	am->pm_base = pm->decode.base;
	(void)acpi_table_loader_add(&b->fw_cfg, am);   /* same sizes as before: fits */
}

bool pc_boot_firmware(struct pc_boot *b, struct physmem *pm, const struct pc_description *d,
		      bool bios, char *err, size_t errlen)
{
	static const uint8_t null_uuid[16];
	struct fw_cfg *f = &b->fw_cfg;
	if (!fw_cfg_add_bytes(f, FW_CFG_SIGNATURE, "QEMU", 4) ||
	    !fw_cfg_add_i32(f, FW_CFG_ID, FW_CFG_ID_TRADITIONAL | FW_CFG_ID_DMA) ||
	    !fw_cfg_add_bytes(f, FW_CFG_UUID, null_uuid, sizeof(null_uuid)) ||
	    !fw_cfg_add_i64(f, FW_CFG_RAM_SIZE, pm->ram_size) ||
	    !fw_cfg_add_i16(f, FW_CFG_NB_CPUS, (uint16_t)d->n_cpus) ||
	    !fw_cfg_add_i16(f, FW_CFG_MAX_CPUS, (uint16_t)d->max_cpus) ||
	    !add_e820_file(f, pm->ram_size)) {
		snprintf(err, errlen, "out of memory building the fw_cfg items");
		return false;
	}
	/* The machine as the ACPI tables describe it (devices/acpi.h); both
	 * chipsets put the PM block at 600h with the SCI on IRQ 9. */
	bool q35 = d->chipset == PC_Q35;
	struct acpi_machine am = {
		.n_cpus = d->n_cpus, .lapic = d->lapic, .lapic_addr = 0xfee00000u, .lint1_nmi = d->lapic,
		.ioapic = d->ioapic, .ioapic_id = 0, .ioapic_addr = 0xfec00000u, .irq0_on_gsi2 = d->ioapic,
		.pic = d->pic, .hpet = d->hpet, .hpet_addr = 0xfed00000u, .hpet_block_id = d->hpet_block_id,
		.hpet_min_tick = d->hpet_min_tick, .legacy_devices = true, .i8042 = d->keyboard,
		.vga = d->vga, .rtc = d->rtc, .rtc_century = d->rtc_century,
		.reset_port = RESET_CONTROL_PORT, .reset_value = RCR_HARD_RESET, .sci_irq = PIIX4_PM_SCI_IRQ,
		.pm_base = d->acpi_pm ? (q35 ? ICH9_PM_BASE : PIIX4_PM_BASE) : 0,
		.gpe0_off = q35 ? ICH9_GPE0 : PIIX4_GPE0, .gpe0_len = q35 ? 2 * ICH9_GPE0_HALF : 4,
		.s5_slp_typ = q35 ? ICH9_SLP_TYP_SOFT_OFF : PIIX4_SLP_TYP_SOFT_OFF,
		.ecam_base = q35 ? Q35_ECAM_BASE : 0,
		.pci_root = true, .pci_mem_start = pm->ram_size < 0xfec00000u ? (uint32_t)pm->ram_size : 0,
	};
	/* A BIOS places the tables itself, as QEMU's firmware does
	 * (devices/acpi_table_loader.h), after it has put the PM block where
	 * it wants it. */
	if (bios) {
		b->acpi_for_firmware = am;
		f->on_select = refresh_firmware_acpi;
		f->on_select_opaque = b;
		if (!acpi_table_loader_add(f, &am)) {
			snprintf(err, errlen, "the ACPI tables for %u CPUs do not fit in 0x%x bytes", d->n_cpus,
				 ACPI_AREA_SIZE);
			return false;
		}
		return true;
	}
	uint8_t *tables = malloc(ACPI_AREA_SIZE);
	if (!tables) {
		snprintf(err, errlen, "out of memory building the ACPI tables");
		return false;
	}
	size_t n = acpi_build(tables, ACPI_AREA_SIZE, ACPI_AREA_BASE, &am, &b->acpi);
	if (n)
		physmem_write_bytes(pm, ACPI_AREA_BASE, tables, n);
	free(tables);
	if (!n) {
		snprintf(err, errlen, "the ACPI tables for %u CPUs do not fit in 0x%x bytes", d->n_cpus,
			 ACPI_AREA_SIZE);
		return false;
	}
	b->acpi_built = true;
	return true;
}

void pc_boot_destroy(struct pc_boot *b)
{
	fw_cfg_destroy(&b->fw_cfg);
}
