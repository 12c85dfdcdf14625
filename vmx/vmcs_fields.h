/* VMCS fields: their 32-bit encodings (SDM Vol.3 24.11.2) and the table of
 * every field (SDM Vol.3 Appendix B, rows in vmx/vmcs_fields.def).
 *
 * An encoding, as VMREAD/VMWRITE take it in a register:
 *
 *   31          15 14 13 12 11 10 9           1  0
 *  +--------------+-----+--+-----+-------------+---+
 *  |   reserved   |width|0 |type |    index    |A/T|
 *  +--------------+-----+--+-----+-------------+---+
 *   A/T: access type, 0 = full, 1 = high (upper 32 bits of a 64-bit field)
 *   type: 0 control, 1 VM-exit information (read-only), 2 guest, 3 host
 *   width: 0 16-bit, 1 64-bit, 2 32-bit, 3 natural-width
 *
 * Encodings are guest-supplied (VMREAD/VMWRITE operands): every helper here is
 * total over uint64_t and never indexes out of bounds.
 */
#ifndef HVEMU_VMX_VMCS_FIELDS_H
#define HVEMU_VMX_VMCS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/state_slots.h"           /* names only: no dependency on the core's code */

enum vmcs_width { VMCS_W16 = 0, VMCS_W64 = 1, VMCS_W32 = 2, VMCS_WNAT = 3 };
enum vmcs_type { VMCS_CTL = 0, VMCS_RO = 1, VMCS_GUEST = 2, VMCS_HOST = 3 };

/* Every field's full encoding: VMCS_GUEST_RIP == 0x681e, ... */
enum vmcs_field_encoding {
#define X(id, enc, width, type, slot, name) VMCS_##id = enc,
#include "vmx/vmcs_fields.def"
#undef X
};

#define VMCS_ENC_ACCESS_HIGH     0x00000001u  /* bit 0 */
#define VMCS_ENC_INDEX_SHIFT     1            /* 9:1 */
#define VMCS_ENC_INDEX_MASK      0x000003feu
#define VMCS_ENC_TYPE_SHIFT      10           /* 11:10 */
#define VMCS_ENC_TYPE_MASK       0x00000c00u
#define VMCS_ENC_WIDTH_SHIFT     13           /* 14:13 */
#define VMCS_ENC_WIDTH_MASK      0x00006000u
#define VMCS_ENC_RESERVED        0xffff9000ull /* bit 12, bits 31:15 must be 0 */

/* Decoding the bit fields of an encoding (SDM Vol.3 24.11.2). */
static inline bool vmcs_enc_high(uint64_t enc) { return enc & VMCS_ENC_ACCESS_HIGH; }
static inline unsigned vmcs_enc_index(uint64_t enc)
{
	return (unsigned)((enc & VMCS_ENC_INDEX_MASK) >> VMCS_ENC_INDEX_SHIFT);
}
static inline enum vmcs_type vmcs_enc_type(uint64_t enc)
{
	return (enum vmcs_type)((enc & VMCS_ENC_TYPE_MASK) >> VMCS_ENC_TYPE_SHIFT);
}
static inline enum vmcs_width vmcs_enc_width(uint64_t enc)
{
	return (enum vmcs_width)((enc & VMCS_ENC_WIDTH_MASK) >> VMCS_ENC_WIDTH_SHIFT);
}

/* Compose an encoding; the inverse of the four decoders above. */
static inline uint32_t vmcs_enc_make(enum vmcs_width w, enum vmcs_type t, unsigned index, bool high)
{
	return ((uint32_t)w << VMCS_ENC_WIDTH_SHIFT) | ((uint32_t)t << VMCS_ENC_TYPE_SHIFT) |
	       ((index << VMCS_ENC_INDEX_SHIFT) & VMCS_ENC_INDEX_MASK) | (high ? 1u : 0u);
}

/* Is enc shaped like an encoding at all? Bits 63:32 (the register's upper half
 * in 64-bit mode), bit 12 and 31:15 are zero, and "high" access is used only
 * with a 64-bit field. (SDM Vol.3 24.11.2; whether the field exists is a
 * separate question: vmcs_field_lookup.) */
static inline bool vmcs_enc_well_formed(uint64_t enc)
{
	if (enc >> 32 || (enc & VMCS_ENC_RESERVED))
		return false;
	return !vmcs_enc_high(enc) || vmcs_enc_width(enc) == VMCS_W64;
}

/* Bytes a field of width w occupies in hvemu's VMCS storage: natural-width
 * fields are kept at 64 bits (the 32-bit view truncates). */
static inline unsigned vmcs_width_bytes(enum vmcs_width w)
{
	static const unsigned bytes[4] = { 2, 8, 4, 8 };
	return bytes[w & 3];
}

/* One row of Appendix B. */
struct vmcs_field {
	uint32_t encoding;                 /* full encoding (access type 0) */
	uint8_t width;                     /* enum vmcs_width */
	uint8_t type;                      /* enum vmcs_type */
	uint8_t slot;                      /* enum ws_slot (emu/state_slots.h), WS_NONE: none */
	const char *id;                    /* "GUEST_RIP" (VMCS_<id> in the enum) */
	const char *name;                  /* the SDM's name: "guest RIP" */
	uint16_t row;                      /* its index in the table (enum vmcs_row, vmx/vmcs.h) */
};

/* The row for enc, or NULL if no such field exists (VMREAD/VMWRITE then fail
 * with VM-instruction error 12, SDM Vol.3 30.3). A high-access encoding of a
 * 64-bit field finds the field's row and sets *high (high may be NULL). */
const struct vmcs_field *vmcs_field_lookup(uint64_t enc, bool *high);

/* Does the row's encoding agree with its declared width and type, with full
 * access, no reserved bits? The table self-check (every row must pass). */
bool vmcs_field_check(const struct vmcs_field *f);

/* The whole table, sorted by encoding, for tests, dumps and fuzzers. */
const struct vmcs_field *vmcs_field_table(size_t *count);

/* The highest index (bits 9:1) of any field in the table: the value
 * IA32_VMX_VMCS_ENUM bits 9:1 report (SDM Vol.3 A.9). */
unsigned vmcs_field_max_index(void);

#endif
