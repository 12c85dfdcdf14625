/* The host-differential generators' shared state: a deterministic xorshift
 * generator, the code buffer, and the bookkeeping that keeps a random sequence
 * fault-free and its compared flags defined (see gen32.c, gen64.c). */
#ifndef HVEMU_TESTS_DIFF_GEN_H
#define HVEMU_TESTS_DIFF_GEN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "mmu/x86.h"
#include "tests/diff/diff_case.h"

#define ARITH FLAGS_ARITH
#define SEQ_MAX 24

struct gen {
	uint64_t rng;
	uint8_t *code;
	unsigned len;
	uint32_t undef;            /* status flags currently undefined */
	unsigned pushed;           /* stack slots (32-bit run) or bytes (64-bit run) pushed */
	bool m64;                  /* the 64-bit run */
	bool x87_on;               /* this case uses the x87 */
	bool x87_unmask;           /* x87 exceptions may be unmasked (64-bit run: #MF is compared) */
	bool simd;                 /* the SIMD-extensions run (host_diff -m simd, gen_simd.c) */
	bool avx;                  /* the AVX run (host_diff -m avx, gen_avx.c) */
	bool no_env_stores;        /* the host's FNSTENV/FNSAVE images hold fields hvemu keeps
				      otherwise (native_x87_gaps): store none */
	/* 64-bit run only */
	unsigned drift;            /* bound on how far string instructions moved RSI/RDI */
	uint64_t r12, r13, r15;    /* the fixed address registers (see gen64.c) */
};

static inline uint32_t rnd(struct gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return (uint32_t)(g->rng >> 16);
}
static inline uint64_t rnd64(struct gen *g) { return (uint64_t)rnd(g) << 32 | rnd(g); }
static inline unsigned pick(struct gen *g, unsigned n) { return rnd(g) % n; }

static inline void emit(struct gen *g, unsigned b) { g->code[g->len++] = (uint8_t)b; }
static inline void emit_imm(struct gen *g, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		emit(g, (v >> (8 * i)) & 0xff);
}

/* A valid MXCSR (SDM Vol.1 10.2.3): all exceptions masked, random rounding,
 * FZ, DAZ and sticky status flags. */
static inline uint32_t rand_mxcsr(struct gen *g)
{
	return 0x1f80u | (rnd(g) & (0x3fu | 1u << 6 | 3u << 13 | 1u << 15));
}

/* Sixteen bytes of floating-point data: four singles or two doubles, each of a
 * class that reaches the special cases (SDM Vol.1 4.2.2, 4.8.3): zeros and
 * denormals, tiny and huge normals, infinities and NaNs (quiet or signalling),
 * values near 1, and magnitudes around the integer conversion limits. */
static inline void fill_fp(struct gen *g, uint8_t *p)
{
	bool dbl = rnd(g) & 1;
	unsigned size = dbl ? 8 : 4, mbits = dbl ? 52 : 23, ebits = dbl ? 11 : 8;
	uint64_t emax = (1u << ebits) - 1, bias = emax >> 1;
	for (unsigned i = 0; i < 16 / size; i++) {
		uint64_t man = rnd64(g) & ((1ull << mbits) - 1), e;
		switch (pick(g, 8)) {
		case 0: e = 0; man = pick(g, 2) ? 0 : man; break;
		case 1: e = emax; man = pick(g, 3) ? man : 0; break;
		case 2: e = 1 + pick(g, 4); break;
		case 3: e = emax - 1 - pick(g, 4); break;
		case 4: e = bias + 14 + pick(g, 52); break;
		case 5: e = bias - 2 + pick(g, 4); man &= ~0ull << (mbits - 3); break;
		default: e = bias - 12 + pick(g, 24); break;
		}
		uint64_t v = (uint64_t)(rnd(g) & 1) << (ebits + mbits) | e << mbits | man;
		memcpy(p + i * size, &v, size);
	}
}

/* An instruction defines the flags in `defined` and leaves those in `undefined`
 * undefined (SDM Vol.1 Appendix A, each instruction's "Flags Affected"). */
static inline void flags_written(struct gen *g, uint32_t defined, uint32_t undefined)
{
	g->undef = (g->undef & ~defined) | undefined;
}

/* The code of a case without x87, after its state is set: 1 to SEQ_MAX
 * instructions from insn, stopping while an instruction's longest form still
 * fits in DIFF_CODE_MAX; the status flags left undefined, as gen_case*. */
static inline uint32_t gen_sequence(struct gen *g, struct diff_request *rq, void (*insn)(struct gen *g))
{
	g->code = rq->code;
	g->len = 0;
	g->undef = 0;
	g->x87_on = false;
	unsigned n = 1 + pick(g, SEQ_MAX);
	for (unsigned i = 0; i < n && g->len < DIFF_CODE_MAX - 64; i++)
		insn(g);
	rq->code_len = g->len;
	return g->undef;
}

/* A random case for each mode; both return the status flags still undefined
 * at the end (not compared in the 32-bit run). */
uint32_t gen_case32(struct gen *g, struct diff_request *rq);
uint32_t gen_case64(struct gen *g, struct diff_request *rq);
/* The -m scalar run (gen_scalar.c): 64-bit cases of the scalar instructions
 * the host has; scalar_host_ops() finds those (printing the others to report,
 * if not NULL) and returns how many. */
uint32_t gen_case_scalar(struct gen *g, struct diff_request *rq);
unsigned scalar_host_ops(FILE *report);

/* The -m avx2 run (gen_avx2.c): 64-bit cases of the VEX-only AVX/AVX2, FMA
 * and F16C instructions; avx2_families() picks the families both the host
 * and the model have (printing the others to report) and returns how many. */
struct cpu_model;
uint32_t gen_case_avx2(struct gen *g, struct diff_request *rq);
unsigned avx2_families(const struct cpu_model *model, FILE *report);
/* Masked moves across the end of the data pages and gathers reaching past it,
 * faulting midway, with midway_faults_on: not on an AMD host. There a
 * masked move's #PF reports another CR2 and a gather leaves the mask of the
 * elements it did not reach as it was, where hvemu's models, epyc-lite too,
 * follow the SDM (the first faulting element's first byte; the mask made
 * all ones or zeros before any element loads), as Intel hosts do. A model
 * gap: every other case of these instructions is still compared. */
extern bool midway_faults_on;
/* Cases that unmask overflow or underflow (MXCSR.OM/UM), with
 * unmasked_post_on: not on an AMD host, where VCVTPS2PH's unmasked underflow
 * leaves PE clear; the models set it with UE for an inexact result, as the SDM
 * (11.5.2.2: "the inexact-result exception ... is also reported") and Intel
 * hosts do. A model gap: the other four exceptions are still unmasked. */
extern bool unmasked_post_on;

/* The x87 family (gen_x87.c): the set-up that starts an x87 case (FRSTOR of a
 * random image at [rSI-128]; sets rq->x87), one random x87
 * instruction, and 16 bytes of x87 memory data (an 80-bit value or packed BCD). */
void gen_x87_start(struct gen *g, struct diff_request *rq);
void gen_x87(struct gen *g);
void fill_x87(struct gen *g, uint8_t *p);
/* An x87 instruction that faults, ending a 64-bit case: #UD (a reserved
 * encoding) or #PF (an operand past the data pages). */
void gen_x87_fault(struct gen *g);

/* The SIMD-extensions run (gen_simd.c): instruction families by the CPUID
 * bit that gates them, and those both the host and the model have. */
enum simd_family {
	SF_MMX, SF_SSE, SF_SSE2, SF_SSE3, SF_SSSE3, SF_SSE41, SF_SSE42, SF_AES, SF_PCLMUL, SF_SHA,
	SF_COUNT,
};
extern uint32_t simd_families;
/* One random instruction of the families in simd_families. */
void gen_simd(struct gen *g);
/* The AVX run (gen_avx.c): one random VEX instruction; 256-bit integer forms
 * only with avx2_on (the host has AVX2), VAESxxx and VPCLMULQDQ with aes_on. */
extern bool avx2_on, aes_on;
/* DPPS and DPPD, with dpp_on: not on an AMD host. Where several products
 * or sums of a dot product are NaNs, which NaN the result is depends on the
 * order the hardware combines them in; hvemu's models, AMD's too, follow the
 * SDM's operation (products, pairwise sums, then their sum, each NaN the
 * first operand's), which Intel hosts match and an AMD Zen 5 host (6 Dec
 * 2026) does not. A model gap, not compared until epyc-lite has AMD's order. */
extern bool dpp_on;
void gen_avx(struct gen *g);
/* The -m avx64 run: 64-bit cases of the same rows, all sixteen registers. */
uint32_t gen_case_avx64(struct gen *g, struct diff_request *rq);

#endif
