/* The ACPI tables through QEMU's linker/loader; see devices/acpi_table_loader.h. */
#include "devices/acpi_table_loader.h"

#include <stdlib.h>
#include <string.h>

#include "devices/le_bytes.h"

/* ACPI 6.0 5.2.6: every table but the FACS starts with a 36-byte header
 * whose length is at 4 and checksum at 9. */
#define HEADER_SIZE 36
#define HEADER_LENGTH 4
#define HEADER_CHECKSUM 9
/* ACPI 6.0 5.2.5.3: the RSDP's RsdtAddress (4 bytes at 16) and XsdtAddress
 * (8 at 24); its checksum over the first 20 bytes at 8, the extended one
 * over all 36 at 32. */
#define RSDP_SIZE 36
/* ACPI 6.0 5.2.9, Table 5-34: FIRMWARE_CTRL (4 at 36), DSDT (4 at 40),
 * X_DSDT (8 at 140). X_FIRMWARE_CTRL stays 0: FIRMWARE_CTRL is set. */
#define FADT_FIRMWARE_CTRL 36
#define FADT_DSDT 40
#define FADT_X_DSDT 140

struct script {
	uint8_t *buf;
	size_t len, cap;
	bool failed;
};

static uint8_t *command(struct script *s, uint32_t cmd)
{
	if (s->len + ACPI_LOADER_ENTRY_SIZE > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32 * ACPI_LOADER_ENTRY_SIZE;
		uint8_t *b = realloc(s->buf, cap);
		if (!b) {
			s->failed = true;
			return NULL;
		}
		s->buf = b, s->cap = cap;
	}
	uint8_t *e = s->buf + s->len;
	memset(e, 0, ACPI_LOADER_ENTRY_SIZE);
	put32(e, cmd);
	s->len += ACPI_LOADER_ENTRY_SIZE;
	return e;
}

/* A file name field: NUL-padded (names here are short constants). */
static void name(uint8_t *field, const char *file)
{
	memcpy(field, file, strlen(file));
}

static void allocate(struct script *s, const char *file, uint32_t align, uint8_t zone)
{
	uint8_t *e = command(s, ACPI_LOADER_ALLOCATE);
	if (e) {
		name(e + 4, file);
		put32(e + 4 + ACPI_LOADER_NAME_SIZE, align);
		e[8 + ACPI_LOADER_NAME_SIZE] = zone;
	}
}

/* The size-byte field at offset in dest_file holds an offset into the
 * tables file: the firmware adds that file's address. */
static void add_pointer(struct script *s, const char *dest_file, uint32_t offset, uint8_t size)
{
	uint8_t *e = command(s, ACPI_LOADER_ADD_POINTER);
	if (e) {
		name(e + 4, dest_file);
		name(e + 4 + ACPI_LOADER_NAME_SIZE, ACPI_LOADER_TABLES);
		put32(e + 4 + 2 * ACPI_LOADER_NAME_SIZE, offset);
		e[8 + 2 * ACPI_LOADER_NAME_SIZE] = size;
	}
}

static void add_checksum(struct script *s, const char *file, uint32_t offset, uint32_t start, uint32_t length)
{
	uint8_t *e = command(s, ACPI_LOADER_ADD_CHECKSUM);
	if (e) {
		name(e + 4, file);
		put32(e + 4 + ACPI_LOADER_NAME_SIZE, offset);
		put32(e + 8 + ACPI_LOADER_NAME_SIZE, start);
		put32(e + 12 + ACPI_LOADER_NAME_SIZE, length);
	}
}

/* The table at offset t of the tables file (0: absent): its checksum,
 * cleared for the firmware to compute. */
static void checksum_table(struct script *s, uint8_t *tables, uint32_t t)
{
	tables[t + HEADER_CHECKSUM] = 0;
	add_checksum(s, ACPI_LOADER_TABLES, t + HEADER_CHECKSUM, t, get32(tables + t + HEADER_LENGTH));
}

bool acpi_table_loader_add(struct fw_cfg *f, const struct acpi_machine *m)
{
	uint8_t *buf = malloc(ACPI_AREA_SIZE);
	if (!buf)
		return false;
	/* Built once to learn where the tables file starts (the FACS, right
	 * after the RSDP), then again at the base that makes every address in
	 * them an offset from that start: the RSDP lies before it, in its own
	 * file, and 32-bit arithmetic wraps its offset. */
	struct acpi_layout at;
	size_t n = acpi_build(buf, ACPI_AREA_SIZE, 0, m, &at);
	uint32_t start = at.facs, base = 0u - start;
	if (n)
		n = acpi_build(buf, ACPI_AREA_SIZE, base, m, &at);
	if (!n || at.rsdp - base + RSDP_SIZE > start) {
		free(buf);
		return false;
	}
	uint8_t *rsdp = buf + (at.rsdp - base), *tables = buf + start;
	uint32_t fadt = at.fadt, rsdt = at.rsdt, xsdt = at.xsdt;   /* file offsets now */
	struct script s = { 0 };
	allocate(&s, ACPI_LOADER_RSDP, 16, ACPI_LOADER_ZONE_FSEG);
	allocate(&s, ACPI_LOADER_TABLES, 64, ACPI_LOADER_ZONE_HIGH);
	add_pointer(&s, ACPI_LOADER_RSDP, 16, 4);
	add_pointer(&s, ACPI_LOADER_RSDP, 24, 8);
	add_pointer(&s, ACPI_LOADER_TABLES, fadt + FADT_FIRMWARE_CTRL, 4);
	add_pointer(&s, ACPI_LOADER_TABLES, fadt + FADT_DSDT, 4);
	add_pointer(&s, ACPI_LOADER_TABLES, fadt + FADT_X_DSDT, 8);
	for (uint32_t e = HEADER_SIZE; e < get32(tables + rsdt + HEADER_LENGTH); e += 4)
		add_pointer(&s, ACPI_LOADER_TABLES, rsdt + e, 4);
	for (uint32_t e = HEADER_SIZE; e < get32(tables + xsdt + HEADER_LENGTH); e += 8)
		add_pointer(&s, ACPI_LOADER_TABLES, xsdt + e, 8);
	const uint32_t summed[] = { at.dsdt, at.fadt, at.madt, at.hpet, at.mcfg, at.rsdt, at.xsdt };
	for (size_t i = 0; i < sizeof(summed) / sizeof(summed[0]); i++)
		if (summed[i])
			checksum_table(&s, tables, summed[i]);
	rsdp[8] = rsdp[32] = 0;
	add_checksum(&s, ACPI_LOADER_RSDP, 8, 0, 20);
	add_checksum(&s, ACPI_LOADER_RSDP, 32, 0, RSDP_SIZE);
	bool ok = !s.failed && fw_cfg_set_file(f, ACPI_LOADER_RSDP, rsdp, RSDP_SIZE) &&
		  fw_cfg_set_file(f, ACPI_LOADER_TABLES, tables, (uint32_t)(n - start)) &&
		  fw_cfg_set_file(f, ACPI_LOADER_SCRIPT, s.buf, (uint32_t)s.len);
	free(s.buf);
	free(buf);
	return ok;
}
