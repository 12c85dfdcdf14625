/* Check suite for the scalar instructions of issue 21 and the VEX prefix
 * (emu/decode.c decode_vex, emu/bitcount.c, bmi.c, movbe.c, crc32.c,
 * random.c, multiprecision.c): the rules a random host comparison cannot
 * reach -- CPUID gating and the LZCNT/TZCNT fallback per model, VEX's #UD
 * rules (mode, prefixes, VEX.L, VEX.vvvv), LES/LDS versus VEX, CMPXCHG16B
 * alignment, RDRAND's determinism, RDPID, MOVBE's forms and CRC32's
 * polynomial. Values are checked by the host comparison (tests/diff -m
 * scalar). One instruction at a time through exec() (machine_fixture.h);
 * the bytes were assembled with GNU as (the source is beside each). */
#include <string.h>

#include "machine_fixture.h"
#include "suite_runner.h"

#define DATA 0x20000u

static uint64_t flags_of(struct test_machine *m) { return cpu_get_flags(&m->cpu) & FLAGS_ARITH; }

/* The model called name with extra bits in CPUID.1:ECX (SSE4.2 for CRC32,
 * which no model reports until its string instructions exist). */
static const struct cpu_model *with_ecx1(const char *name, uint32_t extra)
{
	static struct cpuid_leaf leaves[64];
	static struct cpu_model m;
	const struct cpu_model *base = model_named(name);
	ck_assert_uint_le(base->cpuid_count, 64);
	m = *base;
	memcpy(leaves, base->cpuid, base->cpuid_count * sizeof(leaves[0]));
	for (unsigned i = 0; i < base->cpuid_count; i++)
		if (leaves[i].leaf == 1)
			leaves[i].ecx |= extra;
	m.cpuid = leaves;
	return &m;
}

/* SDM Vol.2 LZCNT/TZCNT/POPCNT: the counts and the flags they define. */
START_TEST(bit_counts)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *c = &m.cpu;
	c->regs[R_CX] = 0xf0;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbd, 0xc1), ST_OK);      /* lzcnt eax,ecx */
	ck_assert_uint_eq(c->regs[R_AX], 24);
	ck_assert_uint_eq(flags_of(&m), 0);
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbc, 0xc1), ST_OK);      /* tzcnt eax,ecx */
	ck_assert_uint_eq(c->regs[R_AX], 4);
	/* SDM LZCNT: "CF flag is set to 1 if input was zero"; the result is the
	 * operand size, ZF clear (the output is not zero). */
	c->regs[R_CX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x66, 0xf3, 0x0f, 0xbd, 0xc1), ST_OK); /* lzcnt ax,cx */
	ck_assert_uint_eq(c->regs[R_AX], 16);
	ck_assert_uint_eq(flags_of(&m), FLAG_CF);
	/* SDM TZCNT: ZF set for a zero output (bit 0 set). */
	c->regs[R_CX] = 0x81;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbc, 0xc1), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0);
	ck_assert_uint_eq(flags_of(&m), FLAG_ZF);
	/* SDM POPCNT: all flags cleared, ZF set for a zero source. */
	c->regs[R_CX] = 0;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xb8, 0xc1), ST_OK);      /* popcnt eax,ecx */
	ck_assert_uint_eq(c->regs[R_AX], 0);
	ck_assert_uint_eq(flags_of(&m), FLAG_ZF);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 LZCNT/TZCNT: without the feature the encoding runs as BSR/BSF
 * (F3 ignored); POPCNT without its CPUID bit is #UD. core2 has neither;
 * nehalem-lite has POPCNT but no LZCNT. */
START_TEST(fallback_without_feature)
{
	struct test_machine m;
	machine_init(&m, "core2");
	struct cpu *c = &m.cpu;
	c->regs[R_CX] = 0xf0;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbd, 0xc1), ST_OK);      /* lzcnt eax,ecx = bsr */
	ck_assert_uint_eq(c->regs[R_AX], 7);
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbc, 0xc1), ST_OK);      /* tzcnt eax,ecx = bsf */
	ck_assert_uint_eq(c->regs[R_AX], 4);
	/* BSR of zero: ZF = 1, the destination unchanged (emu/bitops.c). */
	c->regs[R_CX] = 0;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbd, 0xc1), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 4);
	ck_assert(flags_of(&m) & FLAG_ZF);
	assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0xb8, 0xc1));                /* popcnt */
	/* LOCK stays #UD on the fallback row. */
	assert_ud(&m, EXEC(&m, 0xf0, 0xf3, 0x0f, 0xbd, 0x05, 0x00, 0x00, 0x02, 0x00));
	machine_free(&m);

	machine_init(&m, "nehalem-lite");
	c = &m.cpu;
	c->regs[R_CX] = 0xf0;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xb8, 0xc1), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 4);
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xbd, 0xc1), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 7);                              /* BSR */
	machine_free(&m);
}
END_TEST

/* C4 E2 70 F2 C1: andn eax,ecx,ecx (VEX.LZ.0F38.W0 F2 /r, vvvv = ECX). */
#define ANDN_EAX_ECX_ECX 0xc4, 0xe2, 0x70, 0xf2, 0xc1

/* SDM Vol.2 2.3.2 / Table 2-29 (type 13): VEX in real-address and
 * virtual-8086 mode is #UD;
 * outside 64-bit mode C4/C5 with ModRM.mod != 11b are LES/LDS (2.3.5). */
START_TEST(vex_real_mode_and_les)
{
	struct test_machine m;
	machine_init_bare(&m, model_named("skylake-lite"), RAM_SIZE);
	struct cpu *c = &m.cpu;
	ck_assert_int_eq(c->mode, MODE_REAL);
	assert_ud(&m, EXEC(&m, ANDN_EAX_ECX_ECX));
	/* les ax,[0x2000]: C4 06 00 20 -- mod 00, a far pointer load. */
	physmem_write(&m.pm, 0x2000, 4, 0x12345678u);
	ck_assert_int_eq(EXEC(&m, 0xc4, 0x06, 0x00, 0x20), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX] & 0xffff, 0x5678);
	ck_assert_uint_eq(c->seg[SR_ES].selector, 0x1234);
	machine_free(&m);

	/* Virtual-8086 mode: #UD too (SDM Table 2-29). */
	machine_init(&m, "skylake-lite");
	c = &m.cpu;
	cpu_set_flags(c, cpu_get_flags(c) | FLAG_VM);
	cpu_update_mode(c);
	ck_assert_int_eq(c->mode, MODE_V86);
	assert_ud(&m, EXEC(&m, ANDN_EAX_ECX_ECX));
	machine_free(&m);

	/* Protected mode: the same register-form bytes are ANDN. */
	machine_init(&m, "skylake-lite");
	c = &m.cpu;
	c->regs[R_CX] = 0x1234;
	c->regs[R_AX] = 0xffff;
	ck_assert_int_eq(EXEC(&m, ANDN_EAX_ECX_ECX), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0);
	/* SDM ANDN: ZF from the result, CF = OF = 0. */
	ck_assert_uint_eq(flags_of(&m), FLAG_ZF);
	/* les eax,[0x20000]: C4 05 00 00 02 00 -- mod 00: LES, six bytes. */
	physmem_write(&m.pm, DATA, 4, 0x11223344u);
	physmem_write(&m.pm, DATA + 4, 2, SEL_DATA);
	ck_assert_int_eq(EXEC(&m, 0xc4, 0x05, 0x00, 0x00, 0x02, 0x00), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0x11223344u);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 2.3.2: a VEX prefix after 66, F2, F3, LOCK or REX is #UD. */
START_TEST(vex_after_prefix)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	assert_ud(&m, EXEC(&m, 0x66, ANDN_EAX_ECX_ECX));
	assert_ud(&m, EXEC(&m, 0xf2, ANDN_EAX_ECX_ECX));
	assert_ud(&m, EXEC(&m, 0xf3, ANDN_EAX_ECX_ECX));
	assert_ud(&m, EXEC(&m, 0xf0, ANDN_EAX_ECX_ECX));
	/* A segment override or 67 is allowed. */
	ck_assert_int_eq(EXEC(&m, 0x3e, ANDN_EAX_ECX_ECX), ST_OK);
	activate(&m);
	to64(&m);
	ck_assert_int_eq(EXEC(&m, ANDN_EAX_ECX_ECX), ST_OK);
	assert_ud(&m, EXEC(&m, 0x40, ANDN_EAX_ECX_ECX));
	assert_ud(&m, EXEC(&m, 0x48, ANDN_EAX_ECX_ECX));
	machine_free(&m);
}
END_TEST

/* The row's VEX constraints: BMI with VEX.L = 1 is #UD (SDM Vol.2 ANDN ...
 * "VEX.L not equal to 0 will cause #UD"); an instruction without a VEX.vvvv
 * operand needs vvvv = 1111b (2.3.6); a map other than 0F/0F38/0F3A is
 * reserved; without BMI1 ANDN is #UD. */
START_TEST(vex_row_rules)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	assert_ud(&m, EXEC(&m, 0xc4, 0xe2, 0x74, 0xf2, 0xc1));           /* VEX.L = 1 */
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe3, 0x7b, 0xf0, 0xc1, 0x03), ST_OK); /* rorx eax,ecx,3 */
	/* vvvv = 0001b: no row matches, so the length stops at ModRM. */
	assert_ud(&m, EXEC(&m, 0xc4, 0xe3, 0x73, 0xf0, 0xc1));
	assert_ud(&m, EXEC(&m, 0xc4, 0xe4, 0x70, 0xf2));                 /* mmmmm = 4: ends at the opcode */
	assert_ud(&m, EXEC(&m, 0xc4, 0xe2, 0x70, 0xf3, 0xc1));           /* F3 /0: no row */
	machine_free(&m);
	machine_init(&m, "core2");
	assert_ud(&m, EXEC(&m, ANDN_EAX_ECX_ECX));
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 ANDN: "VEX.W1 is ignored in non-64-bit modes"; in 64-bit mode
 * VEX.W1 makes the operation 64 bits, VEX.W0 32 (zero-extended). */
START_TEST(vex_w)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *c = &m.cpu;
	/* andn eax,ecx,edx with W1: 32 bits, whatever the upper register halves hold. */
	c->regs[R_CX] = 0xf0f0f0f0u;
	c->regs[R_DX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0xf0, 0xf2, 0xc2), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0x0f0f0f0fu);
	activate(&m);
	to64(&m);
	c->regs[R_CX] = 0xffffffff0000ffffull;
	c->regs[R_DX] = 0x00000000ffffffffull;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0xf0, 0xf2, 0xc2), ST_OK); /* andn rax,rcx,rdx */
	ck_assert_uint_eq(c->regs[R_AX], 0x00000000ffff0000ull);
	c->regs[R_AX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0x70, 0xf2, 0xc2), ST_OK); /* andn eax,ecx,edx */
	ck_assert_uint_eq(c->regs[R_AX], 0xffff0000ull);
	/* SDM BLSMSK: CF set for a zero source, ZF cleared. */
	c->regs[R_CX] = 0;
	ck_assert_int_eq(EXEC(&m, 0xc4, 0xe2, 0xf8, 0xf3, 0xd1), ST_OK); /* blsmsk rax,rcx */
	ck_assert_uint_eq(c->regs[R_AX], ~0ull);
	ck_assert_uint_eq(flags_of(&m), FLAG_CF | FLAG_SF);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 CMPXCHG16B: "#GP(0) If the memory operand is not aligned on a
 * 16-byte boundary"; aligned, it compares RDX:RAX and stores RCX:RBX. */
START_TEST(cmpxchg16b_alignment)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *c = &m.cpu;
	activate(&m);
	to64(&m);
	c->regs[R_SI] = DATA + 8;
	assert_gp0(&m, EXEC(&m, 0x48, 0x0f, 0xc7, 0x0e));               /* cmpxchg16b [rsi] */
	c->regs[R_SI] = DATA;
	physmem_write(&m.pm, DATA, 8, 1);
	physmem_write(&m.pm, DATA + 8, 8, 2);
	c->regs[R_AX] = 1, c->regs[R_DX] = 2, c->regs[R_BX] = 3, c->regs[R_CX] = 4;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0x0e), ST_OK);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA, 8), 3);
	ck_assert_uint_eq(physmem_read(&m.pm, DATA + 8, 8), 4);
	ck_assert(flags_of(&m) & FLAG_ZF);
	machine_free(&m);
}
END_TEST

/* Four RDRAND values of a CPU seeded with seed. */
static void rdrand_values(uint64_t seed, uint64_t out[4])
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	cpu_seed_random(&m.cpu, seed);
	activate(&m);
	to64(&m);
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0xf0), ST_OK);  /* rdrand rax */
		/* SDM Vol.2 RDRAND: CF = 1 (a value is returned); "The OF, SF, ZF,
		 * AF, and PF flags are set to 0." */
		ck_assert_uint_eq(flags_of(&m), FLAG_CF);
		out[i] = m.cpu.regs[R_AX];
	}
	machine_free(&m);
}

/* RDRAND is deterministic: the run's seed decides the values. */
START_TEST(rdrand_seeded)
{
	uint64_t a[4], b[4], c[4];
	rdrand_values(1, a);
	rdrand_values(1, b);
	rdrand_values(2, c);
	ck_assert(!memcmp(a, b, sizeof(a)));
	ck_assert(memcmp(a, c, sizeof(a)));
	ck_assert_uint_ne(a[0], a[1]);
}
END_TEST

/* SDM Vol.2 RDRAND/RDSEED: "NFx" (66 gives 16 bits, F2/F3 are other
 * instructions), register form only (the memory forms are VMPTRLD/VMPTRST),
 * #UD without their CPUID bits. */
START_TEST(rdrand_forms)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *c = &m.cpu;
	c->regs[R_AX] = 0xaaaa0000u;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0xc7, 0xf0), ST_OK);       /* rdrand ax */
	ck_assert_uint_eq(c->regs[R_AX] >> 16, 0xaaaa);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0xc7, 0xf8), ST_OK);             /* rdseed eax */
	assert_ud(&m, EXEC(&m, 0xf2, 0x0f, 0xc7, 0xf0));
	assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0xc7, 0xf0));
	assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0xc7, 0xf8));                 /* rdpid: not on Skylake */
	machine_free(&m);
	machine_init(&m, "core2");
	assert_ud(&m, EXEC(&m, 0x0f, 0xc7, 0xf0));
	assert_ud(&m, EXEC(&m, 0x0f, 0xc7, 0xf8));
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 RDPID: IA32_TSC_AUX, 32 bits outside 64-bit mode, 64 in it. */
START_TEST(rdpid)
{
	struct test_machine m;
	machine_init(&m, "icelake-lite");
	struct cpu *c = &m.cpu;
	ck_assert_int_eq(wrmsr(&m, MSR_TSC_AUX, 0x1234), ST_OK);
	c->regs[R_BX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xc7, 0xfb), ST_OK);       /* rdpid ebx */
	ck_assert_uint_eq(c->regs[R_BX], 0x1234);
	activate(&m);
	to64(&m);
	c->regs[R_BX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xc7, 0xfb), ST_OK);       /* rdpid rbx */
	ck_assert_uint_eq(c->regs[R_BX], 0x1234);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 MOVBE: memory operands only; F3 is not MOVBE; F2 is CRC32. */
START_TEST(movbe_forms)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, DATA, 4, 0x11223344u);
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x38, 0xf0, 0x05, 0x00, 0x00, 0x02, 0x00), ST_OK); /* movbe eax,[DATA] */
	ck_assert_uint_eq(c->regs[R_AX], 0x44332211u);
	c->regs[R_CX] = 0xaabb;
	ck_assert_int_eq(EXEC(&m, 0x66, 0x0f, 0x38, 0xf1, 0x0d, 0x00, 0x00, 0x02, 0x00), ST_OK); /* movbe [DATA],cx */
	ck_assert_uint_eq(physmem_read(&m.pm, DATA, 4), 0x1122bbaau);
	assert_ud(&m, EXEC(&m, 0x0f, 0x38, 0xf0, 0xc1));                 /* register form */
	assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0x38, 0xf0, 0xc1));           /* no row: ends at ModRM */
	/* F2 0F 38 F0 is CRC32, never MOVBE: with SSE4.2 it accumulates the
	 * byte's CRC into EAX (a MOVBE would have loaded 44h into AL)... */
	c->regs[R_AX] = 0;
	ck_assert_int_eq(EXEC(&m, 0xf2, 0x0f, 0x38, 0xf0, 0x05, 0x00, 0x00, 0x02, 0x00), ST_OK);
	ck_assert_uint_ne(c->regs[R_AX] & 0xff, 0x44);
	machine_free(&m);
	/* ... and without SSE4.2 (core2) it is #UD. */
	machine_init(&m, "core2");
	assert_ud(&m, EXEC(&m, 0xf2, 0x0f, 0x38, 0xf0, 0x05, 0x00, 0x00, 0x02, 0x00));
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 CRC32: CRC-32C (polynomial 11EDC6F41H). With the customary
 * initial value FFFFFFFFH and a final inversion, "123456789" gives E3069283H
 * (the CRC-32C check value, RFC 3720 B.4's polynomial); a doubleword at a
 * time gives the same as its four bytes. */
START_TEST(crc32c)
{
	struct test_machine m;
	machine_init_model(&m, with_ecx1("skylake-lite", 1u << 20));
	struct cpu *c = &m.cpu;
	const char *s = "123456789";
	c->regs[R_AX] = 0xffffffffu;
	for (unsigned i = 0; i < 9; i++) {
		c->regs[R_CX] = (uint8_t)s[i];
		ck_assert_int_eq(EXEC(&m, 0xf2, 0x0f, 0x38, 0xf0, 0xc1), ST_OK);   /* crc32 eax,cl */
	}
	ck_assert_uint_eq(~(uint32_t)c->regs[R_AX], 0xe3069283u);
	c->regs[R_AX] = 0xffffffffu;
	c->regs[R_CX] = 0x34333231u;                                              /* "1234" */
	ck_assert_int_eq(EXEC(&m, 0xf2, 0x0f, 0x38, 0xf1, 0xc1), ST_OK);       /* crc32 eax,ecx */
	uint32_t dword = (uint32_t)c->regs[R_AX];
	c->regs[R_AX] = 0xffffffffu;
	for (unsigned i = 0; i < 4; i++) {
		c->regs[R_CX] = (uint8_t)s[i];
		ck_assert_int_eq(EXEC(&m, 0xf2, 0x0f, 0x38, 0xf0, 0xc1), ST_OK);
	}
	ck_assert_uint_eq(c->regs[R_AX], dword);
	machine_free(&m);
}
END_TEST

static Suite *scalar_suite(void)
{
	Suite *s = suite_create("scalar_isa");
	TCase *t = tcase_create("legacy");
	tcase_add_test(t, bit_counts);
	tcase_add_test(t, fallback_without_feature);
	tcase_add_test(t, cmpxchg16b_alignment);
	tcase_add_test(t, rdrand_seeded);
	tcase_add_test(t, rdrand_forms);
	tcase_add_test(t, rdpid);
	tcase_add_test(t, movbe_forms);
	tcase_add_test(t, crc32c);
	suite_add_tcase(s, t);
	t = tcase_create("vex");
	tcase_add_test(t, vex_real_mode_and_les);
	tcase_add_test(t, vex_after_prefix);
	tcase_add_test(t, vex_row_rules);
	tcase_add_test(t, vex_w);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(scalar_suite());
}
