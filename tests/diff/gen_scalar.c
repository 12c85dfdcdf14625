/* The -m scalar run's generator: random sequences of the scalar instructions
 * of issue 21 in 64-bit code: POPCNT, LZCNT, TZCNT, MOVBE, CRC32, ADCX, ADOX
 * (legacy encodings) and BMI1/BMI2 (VEX-encoded: ANDN BEXTR BLSI BLSMSK BLSR
 * BZHI MULX PDEP PEXT RORX SARX SHLX SHRX), on the registers and memory forms
 * of enc64.h. RDRAND, RDSEED and RDPID are not compared: their values are the
 * host's own (entropy, IA32_TSC_AUX).
 *
 * hvemu runs them as the model of the host's vendor (host_diff.c), so the
 * choices the SDM leaves open are compared on an Intel host (all flags);
 * on another host the flags the SDM leaves undefined are masked (g->undef).
 * An instruction the host lacks (CPUID) is never generated; scalar_host_ops()
 * says which ones those are.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "tests/diff/enc64.h"

enum {
	S_POPCNT, S_LZCNT, S_TZCNT, S_MOVBE, S_CRC32, S_ADCX, S_ADOX,
	S_ANDN, S_BEXTR, S_BLSR, S_BLSMSK, S_BLSI, S_BZHI,
	S_MULX, S_PDEP, S_PEXT, S_RORX, S_SARX, S_SHLX, S_SHRX, S_COUNT
};

/* Each instruction's name and CPUID bit: leaf, register (0 EBX, 1 ECX), bit. */
static const struct scalar_op {
	const char *name;
	uint32_t leaf;
	uint8_t reg, bit;
} scalar_ops[S_COUNT] = {
	[S_POPCNT] = { "popcnt", 1, 1, 23 },   [S_LZCNT] = { "lzcnt", 0x80000001, 1, 5 },
	[S_TZCNT] = { "tzcnt", 7, 0, 3 },      [S_MOVBE] = { "movbe", 1, 1, 22 },
	[S_CRC32] = { "crc32", 1, 1, 20 },     [S_ADCX] = { "adcx", 7, 0, 19 },
	[S_ADOX] = { "adox", 7, 0, 19 },       [S_ANDN] = { "andn", 7, 0, 3 },
	[S_BEXTR] = { "bextr", 7, 0, 3 },      [S_BLSR] = { "blsr", 7, 0, 3 },
	[S_BLSMSK] = { "blsmsk", 7, 0, 3 },    [S_BLSI] = { "blsi", 7, 0, 3 },
	[S_BZHI] = { "bzhi", 7, 0, 8 },        [S_MULX] = { "mulx", 7, 0, 8 },
	[S_PDEP] = { "pdep", 7, 0, 8 },        [S_PEXT] = { "pext", 7, 0, 8 },
	[S_RORX] = { "rorx", 7, 0, 8 },        [S_SARX] = { "sarx", 7, 0, 8 },
	[S_SHLX] = { "shlx", 7, 0, 8 },        [S_SHRX] = { "shrx", 7, 0, 8 },
};

static unsigned host_ops[S_COUNT], host_op_count;

unsigned scalar_host_ops(FILE *report)
{
	host_op_count = 0;
	for (unsigned i = 0; i < S_COUNT; i++) {
		const struct scalar_op *o = &scalar_ops[i];
		unsigned r[4] = { 0 };
		bool has = __get_cpuid_count(o->leaf, 0, &r[0], &r[1], &r[2], &r[3]) &&
			   ((r[1 + o->reg] >> o->bit) & 1);
		if (has)
			host_ops[host_op_count++] = i;
		else if (report)
			fprintf(report, "host-diff: the host lacks %s (CPUID %#x %s[%u]): not generated\n", o->name,
				o->leaf, o->reg ? "ECX" : "EBX", o->bit);
	}
	return host_op_count;
}

/* CMP r64, r64 so that ADCX/ADOX read a defined CF/OF. */
static void define_flags(struct gen *g)
{
	if (g->undef & (FLAG_CF | FLAG_OF)) {
		struct rm rm = reg_rm(dreg(g));
		encode(g, 0, true, false, dreg(g), 0x39, 1, &rm, 0, 0);
		g->undef = 0;
	}
}

/* A register holding a BEXTR control or BZHI index: mostly small fields, with
 * random bits above (which both ignore). */
static unsigned control_reg(struct gen *g, bool bextr)
{
	unsigned r = dreg(g);
	uint32_t v = pick(g, 72) | (bextr ? pick(g, 72) << 8 : 0);
	if (pick(g, 4) == 0)
		v = rnd(g);
	else
		v |= rnd(g) & (bextr ? 0xffff0000u : 0xffffff00u);
	mov_imm32(g, r, v);
	return r;
}

static const uint32_t SZOC = FLAG_SF | FLAG_ZF | FLAG_OF | FLAG_CF;

static void gen_scalar_insn(struct gen *g)
{
	unsigned op = host_ops[pick(g, host_op_count)];
	unsigned size = pick(g, 3) ? 8 : 4, dst = dreg(g);
	bool w = size == 8;
	struct rm rm = pick(g, 3) ? reg_rm(sreg(g)) : mem_rm(g, size, 1, true, true);
	switch (op) {
	case S_POPCNT: case S_LZCNT: case S_TZCNT: {
		size = (const unsigned[]){ 2, 4, 8, 8 }[pick(g, 4)];
		if (rm.mem)
			rm = mem_rm(g, size, 1, true, true);
		unsigned opc = op == S_POPCNT ? 0x0fb8 : op == S_LZCNT ? 0x0fbd : 0x0fbc;
		encode(g, P_F3 | (size == 2 ? P_66 : 0), size == 8, false, dst, opc, 2, &rm, 0, 0);
		/* SDM Vol.2 POPCNT: all six defined; LZCNT/TZCNT: CF ZF, the rest undefined. */
		if (op == S_POPCNT)
			flags_written(g, ARITH, 0);
		else
			flags_written(g, FLAG_CF | FLAG_ZF, FLAG_OF | FLAG_SF | FLAG_PF | FLAG_AF);
		break;
	}
	case S_MOVBE:
		size = (const unsigned[]){ 2, 4, 8, 8 }[pick(g, 4)];
		rm = mem_rm(g, size, 1, true, true);
		encode(g, size == 2 ? P_66 : 0, size == 8, false, dst, pick(g, 2) ? 0x0f38f0 : 0x0f38f1, 3, &rm, 0, 0);
		break;
	case S_CRC32:
		if (pick(g, 3) == 0) {              /* CRC32 r32/r64, r/m8: with REX, SPL..DIL */
			if (!rm.mem)
				rm = reg_rm(rreg(g, 1, true));
			encode(g, P_F2, w, force_rex(1, true, 0, &rm), dst, 0x0f38f0, 3, &rm, 0, 0);
		} else {                            /* CRC32 r32, r/m16/32, r64, r/m64 */
			unsigned src = w ? 8 : pick(g, 2) ? 4 : 2;
			if (rm.mem)
				rm = mem_rm(g, src, 1, true, true);
			encode(g, P_F2 | (src == 2 ? P_66 : 0), w, false, dst, 0x0f38f1, 3, &rm, 0, 0);
		}
		break;
	case S_ADCX: case S_ADOX:
		define_flags(g);
		encode(g, op == S_ADCX ? P_66 : P_F3, w, false, dst, 0x0f38f6, 3, &rm, 0, 0);
		break;
	case S_ANDN:
		encode_vex3(g, 0, 2, w, 0, sreg(g), dst, 0xf2, &rm, -1);
		flags_written(g, SZOC, FLAG_AF | FLAG_PF);
		break;
	case S_BEXTR:
		encode_vex3(g, 0, 2, w, 0, control_reg(g, true), dst, 0xf7, &rm, -1);
		flags_written(g, FLAG_ZF | FLAG_CF | FLAG_OF, FLAG_AF | FLAG_SF | FLAG_PF);
		break;
	case S_BLSR: case S_BLSMSK: case S_BLSI:
		encode_vex3(g, 0, 2, w, 0, dst, 1 + (op - S_BLSR), 0xf3, &rm, -1);
		flags_written(g, SZOC, FLAG_AF | FLAG_PF);
		break;
	case S_BZHI:
		encode_vex3(g, 0, 2, w, 0, control_reg(g, false), dst, 0xf5, &rm, -1);
		flags_written(g, SZOC, FLAG_AF | FLAG_PF);
		break;
	case S_MULX:
		encode_vex3(g, 3, 2, w, 0, dreg(g), dst, 0xf6, &rm, -1);
		break;
	case S_PDEP: case S_PEXT:
		encode_vex3(g, op == S_PDEP ? 3 : 2, 2, w, 0, sreg(g), dst, 0xf5, &rm, -1);
		break;
	case S_RORX:
		encode_vex3(g, 3, 3, w, 0, 0, dst, 0xf0, &rm, (int)pick(g, 256));
		break;
	default:                                    /* SARX SHLX SHRX */
		encode_vex3(g, op == S_SARX ? 2 : op == S_SHLX ? 1 : 3, 2, w, 0, sreg(g), dst, 0xf7, &rm, -1);
		break;
	}
}

uint32_t gen_case_scalar(struct gen *g, struct diff_request *rq)
{
	(void)gen_case64(g, rq);                    /* the registers, flags and data */
	rq->x87 = 0;
	g->code = rq->code;
	g->len = 0;
	g->undef = 0;
	g->x87_on = false;
	unsigned n = 1 + pick(g, SEQ_MAX);
	for (unsigned i = 0; i < n && g->len < DIFF_CODE_MAX - 64; i++) {
		if (pick(g, 4) == 0) {              /* new sources: MOV r64, imm64 */
			uint64_t v = rnd64(g);
			if (pick(g, 3) == 0)
				v = pick(g, 2) ? 0 : (uint64_t)1 << pick(g, 64);
			mov_imm(g, dreg(g), v);
		}
		gen_scalar_insn(g);
	}
	rq->code_len = g->len;
	return g->undef;
}
