/* Finding ACPI tables as an OS does (ACPI 6.0 5.2.5.1: the RSDP on a 16-byte
 * boundary of E0000H-FFFFFH, its first 20 bytes summing to 0; 5.2.7 the RSDT). */
#ifndef GUEST_LIB_ACPI_TABLES_H
#define GUEST_LIB_ACPI_TABLES_H

#include <stdint.h>

/* The 8-bit sum of n bytes (0 for a table whose checksum is right). */
uint8_t acpi_sum(const uint8_t *p, uint32_t n);
/* The table the RSDT lists with signature sig, or 0. */
const uint8_t *acpi_find_table(const char sig[4]);

#endif
