/* The cryptographic extensions in their legacy encodings (SDM Vol.2 instruction
 * pages): AES-NI (AESENC, AESENCLAST, AESDEC, AESDECLAST, AESIMC,
 * AESKEYGENASSIST; FIPS-197 transformations), PCLMULQDQ and the SHA extensions
 * (SHA1RNDS4, SHA1NEXTE, SHA1MSG1/2, SHA256RNDS2, SHA256MSG1/2; FIPS 180-4
 * functions). 128-bit memory operands are 16-byte aligned or #GP(0) (Type 4).
 *
 * The AES state is the XMM register column by column (FIPS-197 3.4): byte
 * 4c + r is row r of column c. The S-box is computed, not tabulated: the
 * multiplicative inverse in GF(2^8) then the affine map (FIPS-197 5.1.1).
 */
#include <string.h>

#include "emu/simd_operand.h"
#include "isa_handlers.h"

/* ---- GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1 ---- */

static uint8_t gmul(uint8_t a, uint8_t b)
{
	uint8_t p = 0;
	while (b) {
		if (b & 1)
			p ^= a;
		a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
		b >>= 1;
	}
	return p;
}

static uint8_t ginv(uint8_t a)           /* a^254; 0 maps to 0 */
{
	uint8_t r = 1, x = a;
	for (unsigned e = 254; e; e >>= 1, x = gmul(x, x))
		if (e & 1)
			r = gmul(r, x);
	return r;
}

static inline uint8_t rotl8(uint8_t v, unsigned n) { return (uint8_t)(v << n | v >> (8 - n)); }

/* FIPS-197 5.1.1: b' = b ^ rotl(b,1) ^ rotl(b,2) ^ rotl(b,3) ^ rotl(b,4) ^ 63H. */
static uint8_t sbox(uint8_t v)
{
	uint8_t b = ginv(v);
	return b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63;
}

/* FIPS-197 5.3.2: the inverse affine map, then the inverse. */
static uint8_t inv_sbox(uint8_t v)
{
	uint8_t b = rotl8(v, 1) ^ rotl8(v, 3) ^ rotl8(v, 6) ^ 0x05;
	return ginv(b);
}

/* ShiftRows (FIPS-197 5.1.2): row r rotated left by r columns; inverse right. */
static void shift_rows(union xmm_reg *s, bool inverse)
{
	union xmm_reg t = *s;
	for (unsigned c = 0; c < 4; c++)
		for (unsigned r = 0; r < 4; r++)
			s->b[4 * c + r] = t.b[4 * ((inverse ? c + 4 - r : c + r) % 4) + r];
}

/* MixColumns (FIPS-197 5.1.3) with {02 03 01 01}, InvMixColumns (5.3.3) with
 * {0e 0b 0d 09}, each column a polynomial times the fixed one. */
static void mix_columns(union xmm_reg *s, bool inverse)
{
	static const uint8_t fwd[4] = { 2, 3, 1, 1 }, inv[4] = { 14, 11, 13, 9 };
	const uint8_t *m = inverse ? inv : fwd;
	for (unsigned c = 0; c < 4; c++) {
		uint8_t col[4];
		memcpy(col, s->b + 4 * c, 4);
		for (unsigned r = 0; r < 4; r++)
			s->b[4 * c + r] = gmul(col[0], m[(4 - r) % 4]) ^ gmul(col[1], m[(5 - r) % 4]) ^
					  gmul(col[2], m[(6 - r) % 4]) ^ gmul(col[3], m[(7 - r) % 4]);
	}
}

/* 66 0F 38 DC AESENC, DD AESENCLAST, DE AESDEC, DF AESDECLAST: one round on
 * the state xmm1 with the round key xmm2/m128 (SDM Vol.2 AESENC "Operation":
 * ShiftRows, SubBytes, MixColumns unless last, AddRoundKey; the decryption
 * rounds with the inverses); DB AESIMC: InvMixColumns of the source. */
status_t op_aes(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	union xmm_reg r = a.d;
	if (in->opcode == 0xdb) {
		r = a.s;
		mix_columns(&r, true);
	} else {
		bool dec = in->opcode >= 0xde, last = in->opcode & 1;
		shift_rows(&r, dec);
		for (unsigned i = 0; i < 16; i++)
			r.b[i] = dec ? inv_sbox(r.b[i]) : sbox(r.b[i]);
		if (!last)
			mix_columns(&r, dec);
		r.q[0] ^= a.s.q[0];
		r.q[1] ^= a.s.q[1];
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

static uint32_t sub_word(uint32_t w)
{
	return (uint32_t)sbox(w & 0xff) | (uint32_t)sbox((w >> 8) & 0xff) << 8 |
	       (uint32_t)sbox((w >> 16) & 0xff) << 16 | (uint32_t)sbox(w >> 24) << 24;
}
static inline uint32_t ror32(uint32_t v, unsigned n) { return v >> n | v << (32 - n); }
static inline uint32_t rol32(uint32_t v, unsigned n) { return v << n | v >> (32 - n); }

/* 66 0F 3A DF AESKEYGENASSIST: from dwords X1 and X3 of the source,
 * SubWord(X1), RotWord(SubWord(X1)) ^ RCON, SubWord(X3), RotWord(SubWord(X3))
 * ^ RCON, RCON = imm8 (SDM Vol.2 AESKEYGENASSIST; RotWord [a0 a1 a2 a3] ->
 * [a1 a2 a3 a0] is a right rotation of the little-endian dword). */
status_t op_aeskeygenassist(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	uint32_t rcon = (uint32_t)in->imm & 0xff, x1 = sub_word(a.s.d[1]), x3 = sub_word(a.s.d[3]);
	union xmm_reg r = { .d = { x1, ror32(x1, 8) ^ rcon, x3, ror32(x3, 8) ^ rcon } };
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* 66 0F 3A 44 PCLMULQDQ: the carry-less product of quadword imm8[0] of the
 * destination and quadword imm8[4] of the source, 128 bits. */
status_t op_pclmulqdq(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	uint64_t x = a.d.q[in->imm & 1], y = a.s.q[(in->imm >> 4) & 1];
	union xmm_reg r = { .q = { 0, 0 } };
	for (unsigned i = 0; i < 64; i++) {
		if (!((y >> i) & 1))
			continue;
		r.q[0] ^= x << i;
		if (i)
			r.q[1] ^= x >> (64 - i);
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}

/* ---- SHA (FIPS 180-4 4.1.1, 4.1.2; SDM Vol.2 SHA1RNDS4 .. SHA256MSG2) ---- */

static uint32_t sha1_f(unsigned fn, uint32_t b, uint32_t c, uint32_t d)
{
	switch (fn) {
	case 0:  return (b & c) ^ (~b & d);
	case 2:  return (b & c) ^ (b & d) ^ (c & d);
	default: return b ^ c ^ d;
	}
}

/* NP 0F 3A CC SHA1RNDS4: four rounds on A B C D = xmm1 dwords 3..0 with W0+E,
 * W1, W2, W3 = xmm2 dwords 3..0; imm8[1:0] picks f and K. */
static void sha1rnds4(unsigned fn, const union xmm_reg *d, const union xmm_reg *s, union xmm_reg *r)
{
	static const uint32_t k[4] = { 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6 };
	uint32_t A = d->d[3], B = d->d[2], C = d->d[1], D = d->d[0], E = 0;
	for (unsigned i = 0; i < 4; i++) {
		uint32_t t = sha1_f(fn, B, C, D) + rol32(A, 5) + s->d[3 - i] + E + k[fn];
		E = D;
		D = C;
		C = rol32(B, 30);
		B = A;
		A = t;
	}
	*r = (union xmm_reg){ .d = { D, C, B, A } };
}

static inline uint32_t sigma0(uint32_t w) { return ror32(w, 7) ^ ror32(w, 18) ^ (w >> 3); }
static inline uint32_t sigma1(uint32_t w) { return ror32(w, 17) ^ ror32(w, 19) ^ (w >> 10); }

/* NP 0F 38 CB SHA256RNDS2: two rounds; C D G H from xmm1 dwords 3, 2, 1, 0,
 * A B E F from xmm2, the WK values from XMM0's low two dwords; the result is
 * A B E F of the new state. */
static void sha256rnds2(const union xmm_reg *d, const union xmm_reg *s, const union xmm_reg *wk, union xmm_reg *r)
{
	uint32_t A = s->d[3], B = s->d[2], C = d->d[3], D = d->d[2];
	uint32_t E = s->d[1], F = s->d[0], G = d->d[1], H = d->d[0];
	for (unsigned i = 0; i < 2; i++) {
		uint32_t ch = (E & F) ^ (~E & G), maj = (A & B) ^ (A & C) ^ (B & C);
		uint32_t s1 = ror32(E, 6) ^ ror32(E, 11) ^ ror32(E, 25), s0 = ror32(A, 2) ^ ror32(A, 13) ^ ror32(A, 22);
		uint32_t t1 = ch + s1 + wk->d[i] + H;
		H = G;
		G = F;
		F = E;
		E = t1 + D;
		D = C;
		C = B;
		B = A;
		A = t1 + maj + s0;
	}
	*r = (union xmm_reg){ .d = { F, E, B, A } };
}

/* NP 0F 38 C8 SHA1NEXTE, C9 SHA1MSG1, CA SHA1MSG2, CB SHA256RNDS2, CC
 * SHA256MSG1, CD SHA256MSG2; NP 0F 3A CC SHA1RNDS4 (imm8). */
status_t op_sha(struct cpu *cpu, const struct insn *in)
{
	struct simd_args a;
	status_t st = simd_load(cpu, in, false, 16, SIMD_ALIGNED, &a);
	if (st != ST_OK)
		return st;
	const union xmm_reg *d = &a.d, *s = &a.s;
	union xmm_reg r;
	if (in->map == 3) {
		sha1rnds4((unsigned)in->imm & 3, d, s, &r);
	} else {
		switch (in->opcode) {
		case 0xc8:      /* E of the next rounds: ROL(A, 30) added to the source's top dword */
			r = *s;
			r.d[3] = s->d[3] + rol32(d->d[3], 30);
			break;
		case 0xc9:      /* W0 ^ W2 .. W3 ^ W5: W0-W3 = xmm1 dwords 3..0, W4 W5 = xmm2 dwords 3, 2 */
			r = (union xmm_reg){ .d = { d->d[0] ^ s->d[2], d->d[1] ^ s->d[3], d->d[2] ^ d->d[0],
						    d->d[3] ^ d->d[1] } };
			break;
		case 0xca: {    /* W16..W19 = ROL(xmm1 ^ (W13, W14, W15, W16), 1) */
			uint32_t w16 = rol32(d->d[3] ^ s->d[2], 1), w17 = rol32(d->d[2] ^ s->d[1], 1);
			uint32_t w18 = rol32(d->d[1] ^ s->d[0], 1), w19 = rol32(d->d[0] ^ w16, 1);
			r = (union xmm_reg){ .d = { w19, w18, w17, w16 } };
			break;
		}
		case 0xcb:
			sha256rnds2(d, s, &cpu->fpu.xmm[0], &r);
			break;
		case 0xcc:      /* W[i] + sigma0(W[i+1]) for W0..W3 = xmm1, W4 = xmm2 dword 0 */
			r = (union xmm_reg){ .d = { d->d[0] + sigma0(d->d[1]), d->d[1] + sigma0(d->d[2]),
						    d->d[2] + sigma0(d->d[3]), d->d[3] + sigma0(s->d[0]) } };
			break;
		default: {      /* W16..W19 from xmm1 and sigma1 of W14, W15 (xmm2 dwords 2, 3) and W16, W17 */
			uint32_t w16 = d->d[0] + sigma1(s->d[2]), w17 = d->d[1] + sigma1(s->d[3]);
			r = (union xmm_reg){ .d = { w16, w17, d->d[2] + sigma1(w16), d->d[3] + sigma1(w17) } };
			break;
		}
		}
	}
	simd_store(cpu, in, &a, &r);
	return ST_OK;
}
