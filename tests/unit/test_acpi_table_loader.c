/* devices/acpi_table_loader.c: QEMU's linker/loader script for hvemu's ACPI
 * tables, run here as a firmware runs it (SeaBIOS src/fw/romfile_loader.c's
 * rules: ALLOCATE places a file, ADD_POINTER adds the source file's address
 * to a little-endian field, ADD_CHECKSUM subtracts a range's byte sum from
 * a checksum byte). The linked tables must be byte for byte what acpi_build()
 * writes for the same addresses: the loader changes where, never what. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/acpi.h"
#include "devices/acpi_table_loader.h"
#include "devices/fw_cfg.h"
#include "devices/le_bytes.h"
#include "suite_runner.h"

#define MEM_SIZE (1u << 20)        /* the test's address space: files land in it */
#define FSEG_AT 0xf5a40u           /* where this firmware puts the RSDP (16-aligned) */
#define HIGH_AT 0x80000u           /* and the tables (64-aligned) */

static const struct fw_cfg_item *file(const struct fw_cfg *f, const char *name)
{
	for (unsigned i = 0; i < f->n_files; i++)
		if (!strcmp(f->file_name[i], name))
			return &f->generic[FW_CFG_FILE_FIRST + i];
	return NULL;
}

struct placed {
	const char *name;
	uint32_t at, len;
};

static struct placed *find(struct placed *p, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strncmp(p[i].name, name, ACPI_LOADER_NAME_SIZE))
			return &p[i];
	return NULL;
}

/* Run f's script over mem; the placed files in p (at most 2). */
static unsigned run_script(const struct fw_cfg *f, uint8_t *mem, struct placed *p)
{
	const struct fw_cfg_item *script = file(f, ACPI_LOADER_SCRIPT);
	ck_assert_ptr_nonnull(script);
	ck_assert_uint_eq(script->len % ACPI_LOADER_ENTRY_SIZE, 0);
	unsigned n = 0;
	for (uint32_t o = 0; o < script->len; o += ACPI_LOADER_ENTRY_SIZE) {
		const uint8_t *e = script->data + o;
		const char *name = (const char *)e + 4;
		switch (get32(e)) {
		case ACPI_LOADER_ALLOCATE: {
			const struct fw_cfg_item *it = file(f, name);
			ck_assert_ptr_nonnull(it);
			uint32_t align = get32(e + 4 + ACPI_LOADER_NAME_SIZE);
			uint8_t zone = e[8 + ACPI_LOADER_NAME_SIZE];
			uint32_t at = zone == ACPI_LOADER_ZONE_FSEG ? FSEG_AT : HIGH_AT;
			ck_assert(zone == ACPI_LOADER_ZONE_FSEG || zone == ACPI_LOADER_ZONE_HIGH);
			ck_assert_uint_eq(at % align, 0);
			ck_assert_uint_le(at + it->len, MEM_SIZE);
			memcpy(mem + at, it->data, it->len);
			ck_assert_uint_lt(n, 2);
			p[n++] = (struct placed){ .name = name, .at = at, .len = it->len };
			break;
		}
		case ACPI_LOADER_ADD_POINTER: {
			struct placed *dst = find(p, n, name);
			struct placed *src = find(p, n, name + ACPI_LOADER_NAME_SIZE);
			uint32_t off = get32(e + 4 + 2 * ACPI_LOADER_NAME_SIZE);
			uint8_t size = e[8 + 2 * ACPI_LOADER_NAME_SIZE];
			ck_assert(dst && src);
			ck_assert(size == 1 || size == 2 || size == 4 || size == 8);
			ck_assert_uint_le(off + size, dst->len);
			uint8_t *field = mem + dst->at + off;
			uint64_t v = 0;
			for (unsigned i = 0; i < size; i++)
				v |= (uint64_t)field[i] << (8 * i);
			ck_assert_uint_lt(v, src->len);            /* an offset into the source file */
			v += src->at;
			for (unsigned i = 0; i < size; i++)
				field[i] = (uint8_t)(v >> (8 * i));
			break;
		}
		case ACPI_LOADER_ADD_CHECKSUM: {
			struct placed *t = find(p, n, name);
			uint32_t off = get32(e + 4 + ACPI_LOADER_NAME_SIZE), start = get32(e + 8 + ACPI_LOADER_NAME_SIZE);
			uint32_t len = get32(e + 12 + ACPI_LOADER_NAME_SIZE);
			ck_assert_ptr_nonnull(t);
			ck_assert_uint_le(start + len, t->len);
			ck_assert(off >= start && off < start + len);
			mem[t->at + off] = (uint8_t)(mem[t->at + off] - acpi_checksum(mem + t->at + start, len));
			break;
		}
		default:
			ck_abort_msg("unknown command %u", get32(e));
		}
	}
	return n;
}

/* Every table the machine can have: MADT, HPET, MCFG, the PM blocks. */
static const struct acpi_machine q35_like = {
	.n_cpus = 3, .lapic = true, .lapic_addr = 0xfee00000u, .lint1_nmi = true, .ioapic = true,
	.ioapic_addr = 0xfec00000u, .irq0_on_gsi2 = true, .pic = true, .hpet = true, .hpet_addr = 0xfed00000u,
	.hpet_block_id = 0x8086a201u, .hpet_min_tick = 128, .legacy_devices = true, .i8042 = true, .rtc = true,
	.rtc_century = 0x32, .reset_port = 0xcf9, .reset_value = 6, .sci_irq = 9, .pm_base = 0x600,
	.gpe0_off = 0x20, .gpe0_len = 16, .s5_slp_typ = 7, .ecam_base = 0xb0000000u, .pci_root = true,
	.pci_mem_start = 0x8000000u,
};

static void linked_equals_built(const struct acpi_machine *m)
{
	struct fw_cfg f;
	fw_cfg_init(&f);
	ck_assert(acpi_table_loader_add(&f, m));
	uint8_t *mem = calloc(1, MEM_SIZE);
	struct placed p[2];
	ck_assert_uint_eq(run_script(&f, mem, p), 2);
	struct placed *rsdp = find(p, 2, ACPI_LOADER_RSDP), *tables = find(p, 2, ACPI_LOADER_TABLES);
	ck_assert(rsdp && tables);
	ck_assert_uint_eq(rsdp->len, 36);

	/* The same machine built directly with the FACS (the tables file's
	 * first table) where the loader put the file. */
	uint8_t *want = calloc(1, ACPI_AREA_SIZE);
	struct acpi_layout at;
	size_t n = acpi_build(want, ACPI_AREA_SIZE, 0, m, &at);
	uint32_t facs = at.facs;
	n = acpi_build(want, ACPI_AREA_SIZE, tables->at - facs, m, &at);
	ck_assert_uint_eq(n - facs, tables->len);
	ck_assert_mem_eq(mem + tables->at, want + facs, tables->len);
	ck_assert_mem_eq(mem + rsdp->at, want, 36);                   /* RSDP: pointers and both checksums */
	ck_assert_uint_eq(acpi_checksum(mem + rsdp->at, 20), 0);
	ck_assert_uint_eq(acpi_checksum(mem + rsdp->at, 36), 0);
	ck_assert_uint_eq(get32(mem + rsdp->at + 16), at.rsdt);
	ck_assert_uint_eq(get32(mem + at.fadt + 40), at.dsdt);        /* FADT.DSDT */
	ck_assert_mem_eq(mem + at.dsdt, "DSDT", 4);
	ck_assert_mem_eq(mem + get32(mem + at.fadt + 36), "FACS", 4); /* FIRMWARE_CTRL */
	free(want);
	free(mem);
	fw_cfg_destroy(&f);
}

START_TEST(linked_tables_are_the_built_ones)
{
	linked_equals_built(&q35_like);
	/* A machine without a local APIC, HPET or ECAM: RSDT/XSDT with the FADT
	 * alone, and no PM blocks. */
	struct acpi_machine pentium = { .n_cpus = 1, .pic = true, .legacy_devices = true, .rtc = true,
					.reset_port = 0xcf9, .reset_value = 6, .sci_irq = 9 };
	linked_equals_built(&pentium);
}
END_TEST

/* The checksum fields start at 0, as QEMU leaves them for the firmware. */
START_TEST(checksums_left_to_the_firmware)
{
	struct fw_cfg f;
	fw_cfg_init(&f);
	ck_assert(acpi_table_loader_add(&f, &q35_like));
	const struct fw_cfg_item *rsdp = file(&f, ACPI_LOADER_RSDP), *tables = file(&f, ACPI_LOADER_TABLES);
	ck_assert_uint_eq(rsdp->data[8], 0);
	ck_assert_uint_eq(rsdp->data[32], 0);
	unsigned sums = 0;
	const struct fw_cfg_item *script = file(&f, ACPI_LOADER_SCRIPT);
	for (uint32_t o = 0; o < script->len; o += ACPI_LOADER_ENTRY_SIZE)
		if (get32(script->data + o) == ACPI_LOADER_ADD_CHECKSUM &&
		    !strcmp((const char *)script->data + o + 4, ACPI_LOADER_TABLES)) {
			ck_assert_uint_eq(tables->data[get32(script->data + o + 4 + ACPI_LOADER_NAME_SIZE)], 0);
			sums++;
		}
	ck_assert_uint_eq(sums, 7);   /* DSDT, FADT, MADT, HPET, MCFG, RSDT, XSDT */
	fw_cfg_destroy(&f);
}
END_TEST

/* Replacing the files (the PM block moved): same names, new contents, the
 * directory's sizes follow. */
START_TEST(files_replaced_in_place)
{
	struct fw_cfg f;
	fw_cfg_init(&f);
	ck_assert(acpi_table_loader_add(&f, &q35_like));
	ck_assert_uint_eq(f.n_files, 3);
	struct acpi_machine moved = q35_like;
	moved.pm_base = 0xb000;
	ck_assert(acpi_table_loader_add(&f, &moved));
	ck_assert_uint_eq(f.n_files, 3);
	uint8_t *mem = calloc(1, MEM_SIZE);
	struct placed p[2];
	run_script(&f, mem, p);
	struct placed *tables = find(p, 2, ACPI_LOADER_TABLES);
	/* FADT PM1a_EVT_BLK (ACPI 6.0 Table 5-34, offset 56): the new base. */
	uint8_t *t = mem + tables->at;
	const uint8_t *fadt = NULL;
	for (uint32_t o = 0; o + 4 <= tables->len; o += 16)
		if (!memcmp(t + o, "FACP", 4))
			fadt = t + o;
	ck_assert_ptr_nonnull(fadt);
	ck_assert_uint_eq(get32(fadt + 56), 0xb000);
	free(mem);
	fw_cfg_destroy(&f);
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("acpi_table_loader");
	TCase *t = tcase_create("linker");
	tcase_add_test(t, linked_tables_are_the_built_ones);
	tcase_add_test(t, checksums_left_to_the_firmware);
	tcase_add_test(t, files_replaced_in_place);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(loader_suite());
}
