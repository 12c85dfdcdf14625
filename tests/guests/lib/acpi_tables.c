/* ACPI table lookup for guests; see lib/acpi_tables.h. */
#include "lib/acpi_tables.h"

#include "lib/guest.h"

uint8_t acpi_sum(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

const uint8_t *acpi_find_table(const char sig[4])
{
	for (uint32_t a = 0xe0000; a < 0x100000; a += 16) {
		const uint8_t *rsdp = (const uint8_t *)(uintptr_t)a;
		if (gstrncmp((const char *)rsdp, "RSD PTR ", 8) || acpi_sum(rsdp, 20))
			continue;
		const uint8_t *rsdt = (const uint8_t *)(uintptr_t)rd32(rsdp, 16);
		for (uint32_t o = 36; o + 4 <= rd32(rsdt, 4); o += 4) {
			const uint8_t *t = (const uint8_t *)(uintptr_t)rd32(rsdt, o);
			if (!gstrncmp((const char *)t, sig, 4))
				return t;
		}
		return 0;
	}
	return 0;
}
