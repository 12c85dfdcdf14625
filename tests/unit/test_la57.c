/* Check suite for 57-bit linear addresses (emu/canonical.h and its callers):
 * which width each canonical check uses with and without 5-level paging, on a
 * model with LA57 (icelake-lite) and one without (skylake-lite); and
 * RDFSBASE/RDGSBASE/WRFSBASE/WRGSBASE, which load FS/GS bases directly.
 * One instruction at a time, as in test_long.c: decoded with decode_insn() and
 * run through its handler. Code bytes were assembled with GNU as (the source is
 * beside each). */
#include "emu/canonical.h"
#include "emu/operand.h"
#include "mmu/paging.h"
#include "machine_fixture.h"
#include "suite_runner.h"

#define PML5      0x13000       /* PML5[0], [128], [256] -> the fixture's PML4 */

/* 57-bit canonical but not 48-bit canonical: PML5 index 128 (bits 56:48). */
#define LA57_LOW  0x0080000000000000ull
/* PML5 index 256, the bottom of the upper half with 57 bits. */
#define LA57_HIGH 0xff00000000000000ull
/* Canonical under neither width (bit 56 = 1, bits 63:57 = 0). */
#define NONCANON  0x0100000000000000ull

/* IA-32e mode in 64-bit code: 5-level paging if la57, else 4-level. LA57 is set
 * before PG, the only time it may change (SDM Vol.2 MOV CR). */
static void enter64(struct test_machine *m, bool la57)
{
	physmem_write(&m->pm, PML5, 8, PML4 | 3);
	physmem_write(&m->pm, PML5 + 128 * 8, 8, PML4 | 3);
	physmem_write(&m->pm, PML5 + 256 * 8, 8, PML4 | 3);
	activate_ia32e(m, CR4_PAE | (la57 ? CR4_LA57 : 0), la57 ? PML5 : PML4);
	to64(m);
	ck_assert_int_eq(m->cpu.mode, MODE_LONG64);
	ck_assert_uint_eq(cpu_paging_mode(&m->cpu), la57 ? PAGING_5LEVEL : PAGING_4LEVEL);
}

/* SDM Vol.1 3.3.7.1: bits 63 to width-1 all equal. */
START_TEST(canonical_widths)
{
	static const struct { uint64_t a; bool c48, c57; } rows[] = {
		{ 0x0000000000000000ull, true,  true },
		{ 0x00007fffffffffffull, true,  true },
		{ 0x0000800000000000ull, false, true },
		{ 0x00ffffffffffffffull, false, true },
		{ 0x0100000000000000ull, false, false },
		{ 0xfeffffffffffffffull, false, false },
		{ 0xff00000000000000ull, false, true },
		{ 0xffff7fffffffffffull, false, true },
		{ 0xffff800000000000ull, true,  true },
		{ 0xffffffffffffffffull, true,  true },
		{ 0x8000000000000000ull, false, false },
	};
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_msg(canonical_bits(rows[i].a, 48) == rows[i].c48, "48: %llx",
			      (unsigned long long)rows[i].a);
		ck_assert_msg(canonical_bits(rows[i].a, 57) == rows[i].c57, "57: %llx",
			      (unsigned long long)rows[i].a);
	}
}
END_TEST

/* White paper 335252 2.3: data accesses are 57-bit canonical with 5-level
 * paging; #GP(0), or #SS(0) through SS, beyond. With 4-level paging the same
 * LA57 processor checks 48 bits. */
START_TEST(data_accesses_follow_paging_mode)
{
	struct test_machine m;
	machine_init(&m, "icelake-lite");
	enter64(&m, true);
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, 0x5000, 8, 0x1122334455667788ull);
	c->regs[R_BX] = LA57_LOW | 0x5000;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x8b, 0x03), ST_OK);          /* mov rax, [rbx] */
	ck_assert_uint_eq(c->regs[R_AX], 0x1122334455667788ull);
	c->regs[R_BX] = LA57_HIGH | 0x5000;
	c->regs[R_AX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x8b, 0x03), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0x1122334455667788ull);
	c->regs[R_BX] = NONCANON | 0x5000;
	assert_fault(&m, EXEC(&m, 0x48, 0x8b, 0x03), EXC_GP, 0);
	c->regs[R_BP] = NONCANON | 0x5000;
	assert_fault(&m, EXEC(&m, 0x48, 0x8b, 0x45, 0x00), EXC_SS, 0); /* mov rax, [rbp] */
	/* The last byte decides: 8 bytes ending past 00FF_FFFF_FFFF_FFFFH. */
	c->regs[R_BX] = 0x00fffffffffffffcull;
	assert_fault(&m, EXEC(&m, 0x48, 0x8b, 0x03), EXC_GP, 0);
	/* PUSH onto a 57-bit stack. */
	c->regs[R_SP] = LA57_HIGH | 0x6000;
	c->regs[R_AX] = 0xabcdef;
	ck_assert_int_eq(EXEC(&m, 0x50), ST_OK);                      /* push rax */
	ck_assert_uint_eq(physmem_read(&m.pm, 0x5ff8, 8), 0xabcdef);
	machine_free(&m);

	machine_init(&m, "icelake-lite");
	enter64(&m, false);
	m.cpu.regs[R_BX] = LA57_LOW | 0x5000;
	assert_fault(&m, EXEC(&m, 0x48, 0x8b, 0x03), EXC_GP, 0);
	m.cpu.regs[R_BP] = LA57_HIGH | 0x5000;
	assert_fault(&m, EXEC(&m, 0x48, 0x8b, 0x45, 0x00), EXC_SS, 0);
	machine_free(&m);
}
END_TEST

/* White paper 335252 2.5.1: loads of RIP check the paging mode's width: near
 * and far branches, SYSEXIT's RDX, SYSRET's RCX (SDM Vol.2 SYSRET). */
START_TEST(rip_loads_follow_paging_mode)
{
	for (int la57 = 0; la57 < 2; la57++) {
		struct test_machine m;
		machine_init(&m, "icelake-lite");
		enter64(&m, la57);
		struct cpu *c = &m.cpu;
		c->regs[R_AX] = LA57_LOW | 0x7000;
		status_t st = EXEC(&m, 0xff, 0xe0);                   /* jmp rax */
		if (la57) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->rip, LA57_LOW | 0x7000);
		} else {
			assert_fault(&m, st, EXC_GP, 0);
		}
		c->regs[R_AX] = NONCANON;
		assert_fault(&m, EXEC(&m, 0xff, 0xe0), EXC_GP, 0);
		/* JMP FAR m16:64 (SDM Vol.2 JMP: "IF tempRIP is non-canonical"). */
		physmem_write(&m.pm, 0x8000, 8, LA57_HIGH | 0x7000);
		physmem_write(&m.pm, 0x8008, 2, SEL_CODE64);
		c->regs[R_BX] = 0x8000;
		st = EXEC(&m, 0x48, 0xff, 0x2b);                      /* jmp far [rbx] (REX.W) */
		if (la57) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->rip, LA57_HIGH | 0x7000);
		} else {
			assert_fault(&m, st, EXC_GP, 0);
		}
		/* SYSRET to a 57-bit RCX: #GP(0) at CPL 0 (Intel) unless LA57. */
		c->star = 0x23ull << 48;
		c->regs[R_CX] = LA57_HIGH | 0x401000;
		c->regs[R_R11] = FLAG_FIXED1;
		st = EXEC(&m, 0x48, 0x0f, 0x07);                      /* sysretq */
		if (la57) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->rip, LA57_HIGH | 0x401000);
			ck_assert_uint_eq(c->cpl, 3);
		} else {
			assert_fault(&m, st, EXC_GP, 0);
			ck_assert_uint_eq(c->cpl, 0);
		}
		machine_free(&m);

		/* SYSEXIT to 64-bit mode: RDX becomes RIP (SDM Vol.2 SYSEXIT). */
		machine_init(&m, "icelake-lite");
		enter64(&m, la57);
		c->sysenter_cs = SEL_CODE32;
		c->regs[R_DX] = LA57_LOW | 0x401000;
		c->regs[R_CX] = 0x9000;
		st = EXEC(&m, 0x48, 0x0f, 0x35);                      /* sysexitq */
		if (la57) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->rip, LA57_LOW | 0x401000);
			ck_assert_uint_eq(c->cpl, 3);
		} else {
			assert_fault(&m, st, EXC_GP, 0);
		}
		machine_free(&m);
	}
}
END_TEST

/* Fetching at a 57-bit RIP runs under 5-level paging; a RIP canonical under
 * neither width is #GP(0) before any translation (SDM Vol.3 6.15). */
START_TEST(fetch_at_57bit_rip)
{
	struct test_machine m;
	machine_init(&m, "icelake-lite");
	enter64(&m, true);
	struct event seen = { 0 };
	stop_at_events(&m, &seen);
	/* mov eax, 42; ud2 at physical 7000H, reached through PML5[256]. */
	static const uint8_t code[] = { 0xb8, 42, 0, 0, 0, 0x0f, 0x0b };
	for (unsigned i = 0; i < sizeof(code); i++)
		physmem_write(&m.pm, 0x7000 + i, 1, code[i]);
	m.cpu.rip = LA57_HIGH | 0x7000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_UD);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 42);
	m.cpu.rip = NONCANON;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(seen.error_code, 0);
	machine_free(&m);
}
END_TEST

/* A non-canonical page never enters the TLB, so the 64-bit fast path (which
 * relies on that instead of checking) still raises #GP(0) (SDM Vol.1 3.3.7.1):
 * an implicit access that the walker translates through the index bits alone
 * must not leave a translation behind for a later data access. */
START_TEST(noncanonical_pages_stay_out_of_the_tlb)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	enter64(&m, false);
	uint64_t v = 0;
	ck_assert_int_eq(lin_read_sys(&m.cpu, LA57_LOW | 0x1000, 8, &v), ST_OK);
	m.cpu.regs[R_BX] = LA57_LOW | 0x1000;
	assert_gp0(&m, EXEC(&m, 0x48, 0x8b, 0x03));          /* mov rax, [rbx] */
	machine_free(&m);
}
END_TEST

/* An instruction that starts in the last canonical page and runs on into the
 * non-canonical half is #GP(0) at its first byte (SDM Vol.1 3.3.7.1, Vol.3
 * 6.15); with 5-level paging the same bytes continue in a canonical page,
 * here not present: #PF with CR2 at the page boundary. */
START_TEST(fetch_running_into_noncanonical)
{
	for (int la57 = 0; la57 < 2; la57++) {
		struct test_machine m;
		machine_init(&m, "icelake-lite");
		/* 7FFF_FFE0_0000 (PML4[255], PDPT[511], PD[511]) -> the 2 MiB page at 200000H. */
		physmem_write(&m.pm, PML4 + 255 * 8, 8, 0x14000 | 3);
		physmem_write(&m.pm, 0x14000 + 511 * 8, 8, 0x15000 | 3);
		physmem_write(&m.pm, 0x15000 + 511 * 8, 8, 0x200000 | 0x83);
		enter64(&m, la57);
		struct event seen = { 0 };
		stop_at_events(&m, &seen);
		physmem_write(&m.pm, 0x3ffffe, 1, 0x48);                  /* mov rax, imm64 */
		physmem_write(&m.pm, 0x3fffff, 1, 0xb8);
		m.cpu.rip = 0x00007ffffffffffeull;
		ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
		if (!la57) {
			ck_assert_int_eq(seen.vector, EXC_GP);
			ck_assert_uint_eq(seen.error_code, 0);
		} else {
			ck_assert_int_eq(seen.vector, EXC_PF);
			ck_assert_uint_eq(seen.cr2, 0x0000800000000000ull);   /* CR2 is written at delivery */
		}
		ck_assert_uint_eq(m.cpu.rip, 0x00007ffffffffffeull);
		machine_free(&m);
	}
}
END_TEST

/* White paper 335252 2.5.2: MSRs holding linear addresses and the bases
 * LGDT/LLDT/LTR load take the processor's width, 57 bits on icelake-lite even
 * with 4-level paging; 48 on skylake-lite. */
START_TEST(registers_follow_the_processor)
{
	static const uint32_t msrs[] = {
		MSR_FS_BASE, MSR_GS_BASE, MSR_KERNEL_GS_BASE, MSR_LSTAR, MSR_SYSENTER_ESP,
		MSR_SYSENTER_EIP,
	};
	for (int la57cpu = 0; la57cpu < 2; la57cpu++) {
		struct test_machine m;
		machine_init(&m, la57cpu ? "icelake-lite" : "skylake-lite");
		enter64(&m, false);
		struct cpu *c = &m.cpu;
		for (unsigned i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
			status_t st = wrmsr(&m, msrs[i], LA57_LOW);
			if (la57cpu)
				ck_assert_msg(st == ST_OK, "MSR %x", msrs[i]);
			else
				assert_fault(&m, st, EXC_GP, 0);
			assert_fault(&m, wrmsr(&m, msrs[i], NONCANON), EXC_GP, 0);
		}
		if (la57cpu) {
			ck_assert_uint_eq(c->seg[SR_FS].base, LA57_LOW);
			ck_assert_uint_eq(c->lstar, LA57_LOW);
		}
		/* LGDT from a pseudo-descriptor at 8000H with a 57-bit base. */
		physmem_write(&m.pm, 0x8000, 2, 0x2f);
		physmem_write(&m.pm, 0x8002, 8, LA57_HIGH | GDT_BASE);
		c->regs[R_BX] = 0x8000;
		status_t st = EXEC(&m, 0x0f, 0x01, 0x13);              /* lgdt [rbx] */
		if (la57cpu) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->gdtr.base, LA57_HIGH | GDT_BASE);
			c->gdtr.base = GDT_BASE;
		} else {
			assert_fault(&m, st, EXC_GP, 0);
		}
		physmem_write(&m.pm, 0x8002, 8, NONCANON);
		assert_fault(&m, EXEC(&m, 0x0f, 0x01, 0x13), EXC_GP, 0);
		/* LTR with base 63:32 = 0080_0000H: #GP(selector) only without LA57. */
		physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, LA57_LOW >> 32);
		c->regs[R_AX] = SEL_TSS;
		st = EXEC(&m, 0x0f, 0x00, 0xd8);                      /* ltr ax */
		if (la57cpu) {
			ck_assert_int_eq(st, ST_OK);
			ck_assert_uint_eq(c->tr.base, LA57_LOW | TSS64);
		} else {
			assert_fault(&m, st, EXC_GP, SEL_TSS);
		}
		machine_free(&m);
	}
}
END_TEST

/* SDM Vol.2 MOV CR: changing CR4.LA57 while IA-32e mode is active is #GP(0). */
START_TEST(la57_fixed_in_ia32e)
{
	struct test_machine m;
	machine_init(&m, "icelake-lite");
	enter64(&m, false);
	assert_fault(&m, mov_cr(&m, 4, CR4_PAE | CR4_LA57), EXC_GP, 0);
	ck_assert(!(m.cpu.cr4 & CR4_LA57));
	machine_free(&m);
	machine_init(&m, "icelake-lite");
	enter64(&m, true);
	assert_fault(&m, mov_cr(&m, 4, CR4_PAE), EXC_GP, 0);
	ck_assert(m.cpu.cr4 & CR4_LA57);
	machine_free(&m);
	/* Reserved without CPUID.7.0:ECX[16]. */
	machine_init(&m, "skylake-lite");
	assert_fault(&m, mov_cr(&m, 4, CR4_PAE | CR4_LA57), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

/* SDM Vol.2 RDFSBASE/WRFSBASE: #UD while CR4.FSGSBASE = 0 and outside 64-bit
 * mode; CR4.FSGSBASE exists only with CPUID.(EAX=7,ECX=0):EBX[0]. */
START_TEST(fsgsbase_enabling)
{
	static const char *const with[] = { "skylake-lite", "icelake-lite", "epyc-lite" };
	for (unsigned i = 0; i < 3; i++) {
		struct test_machine m;
		machine_init(&m, with[i]);
		ck_assert(cpu_model_has(m.cpu.model, 7, 1, 0));
		enter64(&m, false);
		assert_ud(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xc0));   /* rdfsbase rax */
		assert_ud(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xdb));   /* wrgsbase rbx */
		ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE | CR4_FSGSBASE), ST_OK);
		m.cpu.seg[SR_FS].base = 0x1234;
		ck_assert_int_eq(EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xc0), ST_OK);
		ck_assert_uint_eq(m.cpu.regs[R_AX], 0x1234);
		/* Compatibility mode: #UD whatever CR4 says. */
		to_compat(&m);
		assert_ud(&m, EXEC(&m, 0xf3, 0x0f, 0xae, 0xc0));         /* rdfsbase eax */
		machine_free(&m);
	}
	struct test_machine m;
	machine_init(&m, "core2");
	assert_fault(&m, mov_cr(&m, 4, CR4_FSGSBASE), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

START_TEST(fsgsbase_semantics)
{
	struct test_machine m;
	machine_init(&m, "icelake-lite");
	enter64(&m, false);
	struct cpu *c = &m.cpu;
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE | CR4_FSGSBASE), ST_OK);
	/* 64-bit forms; REX.B selects R9. */
	c->regs[R_R9] = 0xffff800012345678ull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x49, 0x0f, 0xae, 0xd1), ST_OK);  /* wrfsbase r9 */
	ck_assert_uint_eq(c->seg[SR_FS].base, 0xffff800012345678ull);
	c->regs[R_BX] = 0x00007fffdeadb000ull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xdb), ST_OK);  /* wrgsbase rbx */
	ck_assert_uint_eq(c->seg[SR_GS].base, 0x00007fffdeadb000ull);
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xc9), ST_OK);  /* rdgsbase rcx */
	ck_assert_uint_eq(c->regs[R_CX], 0x00007fffdeadb000ull);
	/* 32-bit forms: the read gives base[31:0] zero-extended, the write
	 * loads the zero-extended register. */
	c->regs[R_R10] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x41, 0x0f, 0xae, 0xc2), ST_OK);  /* rdfsbase r10d */
	ck_assert_uint_eq(c->regs[R_R10], 0x12345678);
	c->regs[R_AX] = 0xffffffff89abcdefull;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x0f, 0xae, 0xd0), ST_OK);        /* wrfsbase eax */
	ck_assert_uint_eq(c->seg[SR_FS].base, 0x89abcdef);
	/* Canonical to the processor's width (57 bits here, with 4-level
	 * paging): #GP(0) and the base unchanged beyond it. */
	c->regs[R_AX] = LA57_LOW;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xd0), ST_OK);  /* wrfsbase rax */
	ck_assert_uint_eq(c->seg[SR_FS].base, LA57_LOW);
	c->regs[R_AX] = NONCANON;
	assert_fault(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xd0), EXC_GP, 0);
	ck_assert_uint_eq(c->seg[SR_FS].base, LA57_LOW);
	assert_fault(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xd8), EXC_GP, 0);  /* wrgsbase rax */
	ck_assert_uint_eq(c->seg[SR_GS].base, 0x00007fffdeadb000ull);
	/* Any CPL; LOCK and the memory form are #UD. */
	c->cpl = 3;
	c->regs[R_AX] = 0x5000;
	ck_assert_int_eq(EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xd0), ST_OK);
	ck_assert_uint_eq(c->seg[SR_FS].base, 0x5000);
	c->cpl = 0;
	assert_ud(&m, EXEC(&m, 0xf0, 0xf3, 0x48, 0x0f, 0xae, 0xc0));      /* lock rdfsbase rax */
	assert_ud(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0x00));            /* F3 0F AE /0 m */
	machine_free(&m);

	/* skylake-lite: 48-bit check. */
	machine_init(&m, "skylake-lite");
	enter64(&m, false);
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE | CR4_FSGSBASE), ST_OK);
	m.cpu.regs[R_AX] = LA57_LOW;
	assert_fault(&m, EXEC(&m, 0xf3, 0x48, 0x0f, 0xae, 0xd8), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

static Suite *la57_suite(void)
{
	Suite *s = suite_create("la57");
	TCase *t = tcase_create("canonical");
	tcase_add_test(t, canonical_widths);
	tcase_add_test(t, data_accesses_follow_paging_mode);
	tcase_add_test(t, rip_loads_follow_paging_mode);
	tcase_add_test(t, fetch_at_57bit_rip);
	tcase_add_test(t, noncanonical_pages_stay_out_of_the_tlb);
	tcase_add_test(t, fetch_running_into_noncanonical);
	tcase_add_test(t, registers_follow_the_processor);
	tcase_add_test(t, la57_fixed_in_ia32e);
	suite_add_tcase(s, t);
	t = tcase_create("fsgsbase");
	tcase_add_test(t, fsgsbase_enabling);
	tcase_add_test(t, fsgsbase_semantics);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(la57_suite());
}
