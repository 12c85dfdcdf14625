/* The -m avx2 run's generator: random 64-bit sequences of the VEX-only
 * instructions of issue 21 (emu/isa/avx_permute.isa, gather.isa, fma.isa,
 * f16c.isa), 128- and 256-bit, on whole YMM registers: broadcasts, lane
 * insert/extract/permute, VPERMIL*, VPERMD/PS/Q/PD, VPBLENDD, the variable
 * shifts, masked loads and stores, VTESTPS/PD, VZEROUPPER/VZEROALL, the
 * gathers, FMA and F16C. Whole YMM registers, MXCSR, the flags and the data
 * pages are compared (host_diff.c).
 *
 * The state (gen_case64's registers and data, then YMM0-15 two thirds
 * floating point) starts under a random MXCSR: rounding, DAZ, FTZ, and in a
 * quarter of the cases some exceptions unmasked, so that #XM (SIGFPE on the
 * host) ends a case with the flags of SDM Vol.1 11.5.3 compared. Masked loads
 * and stores sometimes straddle the end of the data pages (202000H, absent on
 * both sides): an enabled element there is #PF, a masked-off one must not
 * fault. Gathers use base R12 and the index registers YMM14 (qword indices)
 * and YMM15 (dword indices), which nothing else writes; their indices are
 * small, some negative, and now and then one reaches past the data pages, so
 * a gather faults midway and the completed elements and mask bits are
 * compared at the #PF.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "tests/diff/enc64.h"

enum family { F_AVX, F_AVX2, F_FMA, F_F16C, F_COUNT };

static const struct {
	const char *name;
	uint32_t leaf;
	uint8_t reg, bit;          /* reg 0-3: EAX..EDX */
} families[F_COUNT] = {
	[F_AVX] = { "avx", 1, 2, 28 }, [F_AVX2] = { "avx2", 7, 1, 5 },
	[F_FMA] = { "fma", 1, 2, 12 }, [F_F16C] = { "f16c", 1, 2, 29 },
};

/* Operand shapes. */
enum kind {
	K_VHW,       /* V, H, W */
	K_VW,        /* V, W (vvvv = 1111b) */
	K_VWI,       /* V, W, imm8 */
	K_VHWI,      /* V, H, W, imm8 */
	K_WVI,       /* W, V, imm8 (the store/extract direction) */
	K_VU,        /* V, U: register source only */
	K_VM,        /* V, M: memory source only */
	K_VHM,       /* masked load: V, H, M */
	K_MHV,       /* masked store: M, H, V */
	K_GATHER,    /* V, VSIB, H */
	K_ZERO,      /* VZEROUPPER/VZEROALL: no operands */
};

/* Memory operand bytes: 0 the vector width, HALF half of it, else fixed. */
#define HALF 0xff

struct avx_op {
	uint8_t map, op, w;
	uint8_t ls;                /* bit 0: VEX.128 taken, bit 1: VEX.256 */
	uint8_t kind, family, mem;
};

#define B 3                        /* both lengths */
static const struct avx_op ops[] = {
	/* broadcasts */
	{ 2, 0x18, 0, B, K_VM, F_AVX, 4 }, { 2, 0x19, 0, 2, K_VM, F_AVX, 8 }, { 2, 0x1a, 0, 2, K_VM, F_AVX, 16 },
	{ 2, 0x18, 0, B, K_VU, F_AVX2, 0 }, { 2, 0x19, 0, 2, K_VU, F_AVX2, 0 }, { 2, 0x5a, 0, 2, K_VM, F_AVX2, 16 },
	{ 2, 0x78, 0, B, K_VW, F_AVX2, 1 }, { 2, 0x79, 0, B, K_VW, F_AVX2, 2 }, { 2, 0x58, 0, B, K_VW, F_AVX2, 4 },
	{ 2, 0x59, 0, B, K_VW, F_AVX2, 8 },
	/* lanes */
	{ 3, 0x18, 0, 2, K_VHWI, F_AVX, 16 }, { 3, 0x38, 0, 2, K_VHWI, F_AVX2, 16 },
	{ 3, 0x19, 0, 2, K_WVI, F_AVX, 16 }, { 3, 0x39, 0, 2, K_WVI, F_AVX2, 16 },
	{ 3, 0x06, 0, 2, K_VHWI, F_AVX, 0 }, { 3, 0x46, 0, 2, K_VHWI, F_AVX2, 0 },
	/* permutes */
	{ 2, 0x0c, 0, B, K_VHW, F_AVX, 0 }, { 2, 0x0d, 0, B, K_VHW, F_AVX, 0 },
	{ 3, 0x04, 0, B, K_VWI, F_AVX, 0 }, { 3, 0x05, 0, B, K_VWI, F_AVX, 0 },
	{ 2, 0x36, 0, 2, K_VHW, F_AVX2, 0 }, { 2, 0x16, 0, 2, K_VHW, F_AVX2, 0 },
	{ 3, 0x00, 1, 2, K_VWI, F_AVX2, 0 }, { 3, 0x01, 1, 2, K_VWI, F_AVX2, 0 },
	/* blend, variable shifts */
	{ 3, 0x02, 0, B, K_VHWI, F_AVX2, 0 },
	{ 2, 0x47, 0, B, K_VHW, F_AVX2, 0 }, { 2, 0x47, 1, B, K_VHW, F_AVX2, 0 },
	{ 2, 0x45, 0, B, K_VHW, F_AVX2, 0 }, { 2, 0x45, 1, B, K_VHW, F_AVX2, 0 },
	{ 2, 0x46, 0, B, K_VHW, F_AVX2, 0 },
	/* masked moves, tests, zeroing */
	{ 2, 0x2c, 0, B, K_VHM, F_AVX, 4 }, { 2, 0x2d, 0, B, K_VHM, F_AVX, 8 },
	{ 2, 0x2e, 0, B, K_MHV, F_AVX, 4 }, { 2, 0x2f, 0, B, K_MHV, F_AVX, 8 },
	{ 2, 0x8c, 0, B, K_VHM, F_AVX2, 4 }, { 2, 0x8c, 1, B, K_VHM, F_AVX2, 8 },
	{ 2, 0x8e, 0, B, K_MHV, F_AVX2, 4 }, { 2, 0x8e, 1, B, K_MHV, F_AVX2, 8 },
	{ 2, 0x0e, 0, B, K_VW, F_AVX, 0 }, { 2, 0x0f, 0, B, K_VW, F_AVX, 0 },
	{ 1, 0x77, 0, B, K_ZERO, F_AVX, 0 },
	/* gathers: opcode 90-93, W the element size */
	{ 2, 0x90, 0, B, K_GATHER, F_AVX2, 0 }, { 2, 0x90, 1, B, K_GATHER, F_AVX2, 0 },
	{ 2, 0x91, 0, B, K_GATHER, F_AVX2, 0 }, { 2, 0x91, 1, B, K_GATHER, F_AVX2, 0 },
	{ 2, 0x92, 0, B, K_GATHER, F_AVX2, 0 }, { 2, 0x92, 1, B, K_GATHER, F_AVX2, 0 },
	{ 2, 0x93, 0, B, K_GATHER, F_AVX2, 0 }, { 2, 0x93, 1, B, K_GATHER, F_AVX2, 0 },
	/* F16C */
	{ 2, 0x13, 0, B, K_VW, F_F16C, HALF }, { 3, 0x1d, 0, B, K_WVI, F_F16C, HALF },
};
/* FMA: 96-9F, A6-AF, B6-BF, W0 and W1; the scalar ones (low nibble 9, B, D, F)
 * read an element from memory. Generated from the opcode, not listed. */
#define FMA_OPS (3 * 10 * 2)

static uint32_t host_set;              /* families the host and the model have */

unsigned avx2_families(const struct cpu_model *model, FILE *report)
{
	host_set = 0;
	for (unsigned f = 0; f < F_COUNT; f++) {
		unsigned r[4] = { 0, 0, 0, 0 };
		bool host = __get_cpuid_count(families[f].leaf, 0, &r[0], &r[1], &r[2], &r[3]) &&
			    (r[families[f].reg] >> families[f].bit & 1);
		if (f != F_AVX && !(host_set & 1u << F_AVX))
			host = false;          /* nothing VEX runs without AVX */
		bool emu = cpu_model_has(model, families[f].leaf, families[f].reg, families[f].bit);
		if (host && emu)
			host_set |= 1u << f;
		else
			fprintf(report, "host-diff: %s not compared (%s lacks it)\n", families[f].name,
				host ? model->name : "the host");
	}
	return (unsigned)__builtin_popcount(host_set);
}

static unsigned dst_ymm(struct gen *g) { return pick(g, 14); }   /* not YMM14/15, the gather indices */
static unsigned src_ymm(struct gen *g) { return pick(g, 16); }
static struct rm ymm_rm(unsigned x)
{
	struct rm r = { .reg = x, .mod = 3, .rm = x & 7, .rexxb = (x & 8) ? 1 : 0 };
	return r;
}

/* [R12 + disp32] with the operand's elements ending around 202000H, where the
 * data pages end: some elements inside, the rest on the absent page. */
static struct rm straddle_rm(struct gen *g, unsigned esize, unsigned n)
{
	uint32_t target = DIFF_DATA_ADDR + DIFF_DATA_SIZE - esize * (1 + pick(g, n - 1));
	struct rm r = { .mem = true, .rexxb = 1, .mod = 2, .rm = 4, .has_sib = true, .sib = 0x24, .disp_len = 4 };
	r.disp = target - (uint32_t)g->r12;
	return r;
}

static void gen_gather(struct gen *g, const struct avx_op *o, bool l)
{
	bool qidx = o->op & 1;
	unsigned idx = qidx ? 14 : 15, d, m;
	do {
		d = dst_ymm(g);
		m = dst_ymm(g);
	} while (d == m);
	/* VSIB: base R12 (REX.B), index YMM14/15 (VEX.X), scale 1-8, disp8 0..63. */
	struct rm rm = { .mem = true, .rexxb = 3, .mod = 1, .rm = 4, .has_sib = true, .disp_len = 1 };
	rm.sib = (uint8_t)(pick(g, 4) << 6 | (idx & 7) << 3 | 4);
	rm.disp = pick(g, 64);
	encode_vex3(g, 1, 2, o->w, l, m, d, o->op, &rm, -1);
}

/* A floating-point register value now and then: FMA and F16C compute on them. */
static void gen_fma(struct gen *g)
{
	unsigned k = pick(g, FMA_OPS), order = k / 20, lo = 6 + (k % 20) / 2;
	bool w = k & 1, scalar = (lo & 9) == 9, l = pick(g, 2);
	unsigned op = (0x90 + 0x10 * order) | lo, d = dst_ymm(g), h = src_ymm(g);
	struct rm rm = pick(g, 3) ? ymm_rm(src_ymm(g)) :
		       mem_rm(g, scalar ? (w ? 8 : 4) : l ? 32 : 16, 1, true, true);
	encode_vex3(g, 1, 2, w, l, h, d, op, &rm, -1);
}

static void gen_avx2_insn(struct gen *g)
{
	if ((host_set >> F_FMA & 1) && pick(g, 4) == 0) {
		gen_fma(g);
		return;
	}
	const struct avx_op *o;
	do
		o = &ops[pick(g, sizeof(ops) / sizeof(ops[0]))];
	while (!(host_set >> o->family & 1));
	bool l;
	do
		l = pick(g, 2);
	while (!(o->ls >> l & 1));
	unsigned width = l ? 32 : 16, mem = o->mem == HALF ? width / 2 : o->mem ? o->mem : width;
	unsigned d = dst_ymm(g), h = src_ymm(g), pp = o->map == 1 ? 0 : 1;
	bool use_mem = pick(g, 3) == 0;
	struct rm rm = use_mem ? mem_rm(g, mem, 1, true, true) : ymm_rm(src_ymm(g));
	int imm = (int)pick(g, 256);
	switch (o->kind) {
	case K_VHW: encode_vex3(g, pp, o->map, o->w, l, h, d, o->op, &rm, -1); break;
	case K_VW: encode_vex3(g, pp, o->map, o->w, l, 0, d, o->op, &rm, -1); break;
	case K_VWI: encode_vex3(g, pp, o->map, o->w, l, 0, d, o->op, &rm, imm); break;
	case K_VHWI: encode_vex3(g, pp, o->map, o->w, l, h, d, o->op, &rm, imm); break;
	case K_WVI:
		if (!use_mem)
			rm = ymm_rm(dst_ymm(g));
		encode_vex3(g, pp, o->map, o->w, l, 0, src_ymm(g), o->op, &rm, imm);
		break;
	case K_VU: rm = ymm_rm(src_ymm(g)); encode_vex3(g, pp, o->map, o->w, l, 0, d, o->op, &rm, -1); break;
	case K_VM: rm = mem_rm(g, mem, 1, true, true); encode_vex3(g, pp, o->map, o->w, l, 0, d, o->op, &rm, -1); break;
	case K_VHM: case K_MHV:
		rm = pick(g, 4) == 0 && midway_faults_on ? straddle_rm(g, mem, width / mem) :
							   mem_rm(g, width, 1, true, true);
		encode_vex3(g, pp, o->map, o->w, l, h, o->kind == K_VHM ? d : src_ymm(g), o->op, &rm, -1);
		break;
	case K_GATHER: gen_gather(g, o, l); break;
	default:                                    /* VZEROUPPER/VZEROALL: C5 form */
		emit(g, 0xc5);
		emit(g, 0xf8 | (unsigned)l << 2);
		emit(g, 0x77);
		break;
	}
	if (o->op == 0x0e || o->op == 0x0f)
		flags_written(g, ARITH, 0);     /* VTESTPS/PD: all six defined */
}

/* Gather indices: small (some negative), and one in 24 far enough that,
 * scaled by 2 to 8, it lands on the absent page 202000H-20FFFFH. */
bool midway_faults_on = true;
bool unmasked_post_on = true;

static uint64_t gather_index(struct gen *g)
{
	if (pick(g, 24) == 0 && midway_faults_on)
		return 0x1000;
	return (uint64_t)(int64_t)((int)pick(g, 400) - 16);
}

uint32_t gen_case_avx2(struct gen *g, struct diff_request *rq)
{
	(void)gen_case64(g, rq);                    /* the registers, flags and data */
	rq->x87 = 0;
	rq->avx = 1;
	for (unsigned x = 0; x < 14; x++) {
		if (pick(g, 3)) {
			fill_fp(g, rq->in.xmm[x]);
			fill_fp(g, rq->in.ymm_hi[x]);
		} else {
			for (unsigned i = 0; i < 16; i++)
				rq->in.ymm_hi[x][i] = (uint8_t)rnd(g);
		}
	}
	for (unsigned i = 0; i < 8; i++) {
		uint32_t v = (uint32_t)gather_index(g);
		memcpy(i < 4 ? &rq->in.xmm[15][4 * i] : &rq->in.ymm_hi[15][4 * (i - 4)], &v, 4);
	}
	for (unsigned i = 0; i < 4; i++) {
		uint64_t v = gather_index(g);
		memcpy(i < 2 ? &rq->in.xmm[14][8 * i] : &rq->in.ymm_hi[14][8 * (i - 2)], &v, 8);
	}
	/* A quarter of the cases unmask some exceptions (MXCSR bits 12:7; not
	 * OM/UM without unmasked_post_on). */
	if (pick(g, 4) == 0)
		rq->in.mxcsr &= ~((rnd(g) & (unmasked_post_on ? 0x3fu : 0x27u)) << 7);
	return gen_sequence(g, rq, gen_avx2_insn);
}
