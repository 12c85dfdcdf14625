/* Check suite for long mode (emu/control_regs.c, emu/syscall.c, msr.c,
 * descriptor_tables.c): IA-32e activation rules at MOV CR0/CR4/CR3 and WRMSR
 * EFER, PCID, SYSCALL/SYSRET per vendor, SWAPGS, MOVSXD, 64-bit LTR.
 * One instruction at a time: decoded with decode_insn() and run through its
 * handler, so each case sees the handler's status and the raised event. Code
 * bytes were assembled with GNU as (the source is beside each). */
#include <check.h>
#include <string.h>

#include "emu/cpu.h"
#include "emu/hooks.h"
#include "emu/cpu_model.h"
#include "emu/insn.h"

#define RAM_SIZE  (4u << 20)
#define GDT_BASE  0x1000
#define PML4      0x10000       /* identity map of the first 1 GiB with 2 MiB pages */
#define PDPT      0x11000
#define PD        0x12000
#define TSS64     0x3000

enum { SEL_CODE32 = 0x08, SEL_DATA = 0x10, SEL_CODE64 = 0x18, SEL_TSS = 0x20 /* 16 bytes */ };

struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;
};

static uint64_t make_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)(flags & 0xf) << 52) |
	       ((uint64_t)(base >> 24) << 56);
}

/* 32-bit protected mode, CPL 0, flat segments, paging off, EFER.SCE|LME clear. */
static void machine_init_model(struct machine *m, const struct cpu_model *model)
{
	ck_assert(physmem_init(&m->pm, RAM_SIZE));
	iobus_init(&m->io);
	cpu_init(&m->cpu, model, &m->pm, &m->io);
	struct cpu *c = &m->cpu;
	physmem_write(&m->pm, GDT_BASE + SEL_CODE32, 8, make_desc(0, 0xfffff, 0x9b, 0xc));
	physmem_write(&m->pm, GDT_BASE + SEL_DATA, 8, make_desc(0, 0xfffff, 0x93, 0xc));
	physmem_write(&m->pm, GDT_BASE + SEL_CODE64, 8, make_desc(0, 0xfffff, 0x9b, 0xa));
	physmem_write(&m->pm, GDT_BASE + SEL_TSS, 8, make_desc(TSS64, 0x67, 0x89, 0));
	physmem_write(&m->pm, GDT_BASE + SEL_TSS + 8, 8, 0);
	c->gdtr.base = GDT_BASE;
	c->gdtr.limit = 0x2f;
	for (unsigned s = 0; s < SR_COUNT; s++)
		seg_load_descriptor(&c->seg[s], s == SR_CS ? SEL_CODE32 : SEL_DATA,
				    physmem_read(&m->pm, GDT_BASE + (s == SR_CS ? SEL_CODE32 : SEL_DATA), 8));
	c->cr0 = CR0_PE | CR0_ET;
	c->cpl = 0;
	cpu_update_mode(c);
	physmem_write(&m->pm, PML4, 8, PDPT | 3);
	physmem_write(&m->pm, PDPT, 8, PD | 3);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(&m->pm, PD + i * 8, 8, ((uint64_t)i << 21) | 0x83);
}

static void machine_init(struct machine *m, const char *model)
{
	machine_init_model(m, cpu_model_find(model));
}

static void machine_free(struct machine *m)
{
	cpu_destroy(&m->cpu);
	physmem_destroy(&m->pm);
}

/* Decode and execute one instruction; returns its status. On ST_FAULT the
 * vector/error code are in cpu->event. */
static status_t exec(struct machine *m, const uint8_t *bytes, unsigned len)
{
	struct insn in;
	struct cpu *c = &m->cpu;
	memset(&in, 0, sizeof(in));
	int n = decode_insn(bytes, len, cpu_code_size(c), &in);
	ck_assert_int_eq(n, (int)len);
	c->event.pending = false;
	c->insn_start = c->rip;
	c->rip += (unsigned)n;
	return in.exec(c, &in);
}
#define EXEC(m, ...) exec((m), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void assert_gp0(struct machine *m, status_t st)
{
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m->cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(m->cpu.event.error_code, 0);
}

static status_t wrmsr(struct machine *m, uint32_t idx, uint64_t v)
{
	m->cpu.regs[R_CX] = idx;
	m->cpu.regs[R_AX] = (uint32_t)v;
	m->cpu.regs[R_DX] = v >> 32;
	return EXEC(m, 0x0f, 0x30);                       /* wrmsr */
}

static status_t mov_cr(struct machine *m, unsigned cr, uint64_t v)
{
	/* mov crN, eax/rax: 64-bit operand in 64-bit mode (SDM Vol.2 MOV CR). */
	m->cpu.regs[R_AX] = v;
	return exec(m, (const uint8_t[]){ 0x0f, 0x22, (uint8_t)(0xc0 | cr << 3) }, 3);
}

/* EFER.LME, CR4.PAE, CR3, then CR0.PG: IA-32e active, compatibility mode. */
static void activate(struct machine *m)
{
	ck_assert_int_eq(mov_cr(m, 4, CR4_PAE), ST_OK);
	ck_assert_int_eq(mov_cr(m, 3, PML4), ST_OK);
	ck_assert_int_eq(wrmsr(m, MSR_EFER, EFER_LME | EFER_SCE), ST_OK);
	ck_assert_int_eq(mov_cr(m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
}

static void to64(struct machine *m)
{
	seg_load_descriptor(&m->cpu.seg[SR_CS], SEL_CODE64, physmem_read(&m->pm, GDT_BASE + SEL_CODE64, 8));
	cpu_update_mode(&m->cpu);
}

/* SDM Vol.3 9.8.5: PG with LME sets LMA; compat mode until CS.L = 1. */
START_TEST(activation)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	ck_assert(m.cpu.efer & EFER_LMA);
	ck_assert_int_eq(m.cpu.mode, MODE_COMPAT);
	to64(&m);
	ck_assert_int_eq(m.cpu.mode, MODE_LONG64);
	/* SDM Vol.2 MOV CR 64-bit mode: clearing PG is #GP(0). */
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET));
	/* SDM Vol.3 9.8.5.4: clearing PAE in IA-32e mode is #GP(0). */
	assert_gp0(&m, mov_cr(&m, 4, 0));
	/* EFER.LME change with PG = 1 is #GP(0) (SDM Vol.3 2.2.1, APM2 14.6.1). */
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_SCE));
	/* CR3 bits above MAXPHYADDR (39 on skylake-lite). */
	assert_gp0(&m, mov_cr(&m, 3, PML4 | (1ull << 39)));
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | (1ull << 38)), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	/* Back to compatibility mode: PG may be cleared, LMA follows (9.8.5.4). */
	seg_load_descriptor(&m.cpu.seg[SR_CS], SEL_CODE32, physmem_read(&m.pm, GDT_BASE + SEL_CODE32, 8));
	cpu_update_mode(&m.cpu);
	ck_assert_int_eq(mov_cr(&m, 0, CR0_PE | CR0_ET), ST_OK);
	ck_assert(!(m.cpu.efer & EFER_LMA));
	ck_assert_int_eq(m.cpu.mode, MODE_PROT);
	machine_free(&m);
}
END_TEST

START_TEST(activation_needs_pae_and_not_cs_l)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_LME), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	/* SDM Vol.2 MOV CR: PG with LME and PAE = 0 is #GP(0); nothing changes. */
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG));
	ck_assert(!(m.cpu.cr0 & CR0_PG));
	ck_assert(!(m.cpu.efer & EFER_LMA));
	/* Intel: activating with CS.L = 1 is #GP(0). */
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE), ST_OK);
	seg_load_descriptor(&m.cpu.seg[SR_CS], SEL_CODE64, physmem_read(&m.pm, GDT_BASE + SEL_CODE64, 8));
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG));
	machine_free(&m);
	/* AMD (APM2 14.6.1) lists PAE only. */
	machine_init(&m, "epyc-lite");
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_LME), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE), ST_OK);
	seg_load_descriptor(&m.cpu.seg[SR_CS], SEL_CODE64, physmem_read(&m.pm, GDT_BASE + SEL_CODE64, 8));
	ck_assert_int_eq(mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
	ck_assert(m.cpu.efer & EFER_LMA);
	machine_free(&m);
	/* A model without long mode: EFER.LME is reserved. */
	machine_init(&m, "core2");
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_LME));
	machine_free(&m);
}
END_TEST

/* SDM Vol.3 4.10.1, Vol.2 MOV CR: PCIDE only in IA-32e mode with CR3[11:0] = 0;
 * CR3 bit 63 is not stored; clearing PG with PCIDE is #GP. */
START_TEST(pcid_rules)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	assert_gp0(&m, mov_cr(&m, 4, CR4_PCIDE));
	activate(&m);
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | 0x18), ST_OK);    /* PWT|PCD */
	assert_gp0(&m, mov_cr(&m, 4, CR4_PAE | CR4_PCIDE));
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE | CR4_PCIDE), ST_OK);
	to64(&m);
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | 5 | (1ull << 63)), ST_OK);
	ck_assert_uint_eq(m.cpu.cr3, PML4 | 5);
	seg_load_descriptor(&m.cpu.seg[SR_CS], SEL_CODE32, physmem_read(&m.pm, GDT_BASE + SEL_CODE32, 8));
	cpu_update_mode(&m.cpu);
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET));
	machine_free(&m);
	/* epyc-lite has no PCID: the bit is reserved. */
	machine_init(&m, "epyc-lite");
	activate(&m);
	assert_gp0(&m, mov_cr(&m, 4, CR4_PAE | CR4_PCIDE));
	machine_free(&m);
}
END_TEST

/* SYSCALL/SYSRET round trip in 64-bit mode; Intel #UD in compatibility mode;
 * the non-canonical SYSRET per vendor. */
START_TEST(syscall_sysret)
{
	for (int amd = 0; amd < 2; amd++) {
		struct machine m;
		machine_init(&m, amd ? "epyc-lite" : "skylake-lite");
		activate(&m);
		struct cpu *c = &m.cpu;
		c->star = (0x23ull << 48) | (0x08ull << 32);     /* SYSRET base 23H, SYSCALL CS 08H */
		c->lstar = 0xffff800000001000ull;
		c->cstar = 0x2000;
		c->sfmask = FLAG_IF | FLAG_TF;
		cpu_set_flags(c, FLAG_IF | FLAG_CF);
		c->rip = 0x5000;
		status_t st = EXEC(&m, 0x0f, 0x05);               /* syscall (compat mode) */
		if (!amd) {
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			to64(&m);
			c->rip = 0x5000;
			st = EXEC(&m, 0x0f, 0x05);
			ck_assert_uint_eq(c->rip, 0xffff800000001000ull);
		} else {
			ck_assert_uint_eq(c->rip, 0x2000);          /* CSTAR */
		}
		ck_assert_int_eq(st, ST_OK);
		ck_assert_uint_eq(c->regs[R_CX], 0x5002);
		ck_assert_uint_eq(c->regs[R_R11] & (FLAG_IF | FLAG_CF), FLAG_IF | FLAG_CF);
		ck_assert(!(cpu_get_flags(c) & FLAG_IF));
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x08);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x10);
		ck_assert_int_eq(c->mode, MODE_LONG64);
		ck_assert_uint_eq(c->cpl, 0);
		/* SWAPGS */
		c->seg[SR_GS].base = 0x1111;
		c->kernel_gs_base = 0x2222;
		ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0xf8), ST_OK);
		ck_assert_uint_eq(c->seg[SR_GS].base, 0x2222);
		ck_assert_uint_eq(c->kernel_gs_base, 0x1111);
		/* sysretq to a non-canonical RCX */
		c->regs[R_CX] = 0x0000800000000000ull;
		c->regs[R_R11] = FLAG_IF | FLAG_FIXED1;
		st = EXEC(&m, 0x48, 0x0f, 0x07);
		ck_assert_int_eq(st, ST_FAULT);
		ck_assert_int_eq(c->event.vector, EXC_GP);
		ck_assert_uint_eq(c->cpl, amd ? 3 : 0);          /* AMD faults at CPL 3 */
		if (amd) {
			machine_free(&m);
			continue;
		}
		c->regs[R_CX] = 0x401000;
		ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0x07), ST_OK);   /* sysretq */
		ck_assert_uint_eq(c->rip, 0x401000);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x33);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x2b);
		ck_assert_int_eq(c->mode, MODE_LONG64);
		ck_assert_uint_eq(c->cpl, 3);
		ck_assert(cpu_get_flags(c) & FLAG_IF);
		/* SWAPGS and SYSRET at CPL 3: #GP(0) */
		assert_gp0(&m, EXEC(&m, 0x0f, 0x01, 0xf8));
		assert_gp0(&m, EXEC(&m, 0x48, 0x0f, 0x07));
		machine_free(&m);
	}
}
END_TEST

/* SYSCALL/SYSRET in legacy protected mode (IA-32e off): AMD runs them with
 * STAR[31:0] as the target EIP, ECX = next EIP, VM/IF/RF cleared; SYSRET sets
 * IF and returns to CPL 3 at ECX with CS = STAR[63:48] | 3 and SS selector
 * + 8 (APM3 SYSCALL, SYSRET, legacy-mode operation). Intel: #UD (SDM Vol.2). */
START_TEST(syscall_legacy_mode)
{
	for (int amd = 0; amd < 2; amd++) {
		struct machine m;
		machine_init(&m, amd ? "epyc-lite" : "skylake-lite");
		struct cpu *c = &m.cpu;
		ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_SCE), ST_OK);
		c->star = (0x1bull << 48) | (0x08ull << 32) | 0x7000;
		cpu_set_flags(c, FLAG_IF | FLAG_CF | FLAG_FIXED1);
		c->rip = 0x5000;
		status_t st = EXEC(&m, 0x0f, 0x05);               /* syscall */
		if (!amd) {
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			st = EXEC(&m, 0x0f, 0x07);                /* sysret */
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			machine_free(&m);
			continue;
		}
		ck_assert_int_eq(st, ST_OK);
		ck_assert_uint_eq(c->rip, 0x7000);
		ck_assert_uint_eq(c->regs[R_CX], 0x5002);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x08);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x10);
		ck_assert(!(cpu_get_flags(c) & FLAG_IF));
		ck_assert(cpu_get_flags(c) & FLAG_CF);              /* no SFMASK in legacy mode */
		ck_assert_int_eq(c->mode, MODE_PROT);
		c->regs[R_CX] = 0x6000;
		ck_assert_int_eq(EXEC(&m, 0x0f, 0x07), ST_OK);     /* sysret */
		ck_assert_uint_eq(c->rip, 0x6000);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x1b);
		ck_assert_uint_eq(c->seg[SR_SS].selector & 0xfffc, 0x20);
		ck_assert_uint_eq(c->cpl, 3);
		ck_assert(cpu_get_flags(c) & FLAG_IF);
		/* At CPL 3 SYSRET is #GP(0). */
		assert_gp0(&m, EXEC(&m, 0x0f, 0x07));
		machine_free(&m);
	}
}
END_TEST

START_TEST(movsxd_and_rdtscp)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	c->regs[R_BX] = 0xffffffff80000000ull | 0x1234;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x63, 0xc3), ST_OK);       /* movsxd rax, ebx */
	ck_assert_uint_eq(c->regs[R_AX], 0xffffffff80001234ull);
	c->regs[R_BX] = 0x7fffffff;
	ck_assert_int_eq(EXEC(&m, 0x4c, 0x63, 0xc3), ST_OK);       /* movsxd r8, ebx */
	ck_assert_uint_eq(c->regs[R_R8], 0x7fffffff);
	c->tsc_aux = 0xabcd;
	c->regs[R_CX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0xf9), ST_OK);       /* rdtscp */
	ck_assert_uint_eq(c->regs[R_CX], 0xabcd);
	/* TSC_AUX bits 63:32 reserved; FS base canonical (SDM Vol.4, APM2 6.1.1). */
	assert_gp0(&m, wrmsr(&m, MSR_TSC_AUX, 1ull << 32));
	assert_gp0(&m, wrmsr(&m, MSR_FS_BASE, 0x0000800000000000ull));
	assert_gp0(&m, wrmsr(&m, MSR_KERNEL_GS_BASE, 0x0000800000000000ull));
	assert_gp0(&m, wrmsr(&m, MSR_LSTAR, 0x0000800000000000ull));
	ck_assert_int_eq(wrmsr(&m, MSR_FS_BASE, 0xffff800000000000ull), ST_OK);
	ck_assert_uint_eq(c->seg[SR_FS].base, 0xffff800000000000ull);
	machine_free(&m);
	/* RDTSCP absent on core2: #UD. */
	machine_init(&m, "core2");
	status_t st = EXEC(&m, 0x0f, 0x01, 0xf9);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m.cpu.event.vector, EXC_UD);
	machine_free(&m);
}
END_TEST

/* CR8 (SDM Vol.3 2.5, 10.8.6.1; Vol.2 MOV CR): the TPR in bits 3:0, only in
 * 64-bit mode, bits 63:4 reserved (#GP(0)), CPL 0. */
START_TEST(cr8_tpr)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	struct cpu *c = &m.cpu;
	to64(&m);
	/* Outside 64-bit mode CR8 has no encoding (REX.R); LOCK MOV CR0 is AMD's
	 * alternative, which these models do not advertise: #UD (APM3 MOV CRn). */
	c->regs[R_AX] = 5;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);   /* mov cr8, rax (REX.R) */
	ck_assert_uint_eq(c->cr8, 5);
	status_t st = EXEC(&m, 0xf0, 0x0f, 0x22, 0xc0);              /* lock mov cr0, rax */
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(c->event.vector, EXC_UD);
	ck_assert_uint_eq(c->cr8, 5);
	c->regs[R_AX] = 0xf;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);
	c->regs[R_BX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x20, 0xc3), ST_OK);   /* mov rbx, cr8 */
	ck_assert_uint_eq(c->regs[R_BX], 0xf);
	c->regs[R_AX] = 0x10;
	assert_gp0(&m, EXEC(&m, 0x44, 0x0f, 0x22, 0xc0));
	c->cpl = 3;
	c->regs[R_AX] = 1;
	assert_gp0(&m, EXEC(&m, 0x44, 0x0f, 0x22, 0xc0));
	machine_free(&m);
}
END_TEST

/* CMPXCHG16B (SDM Vol.2): 16-byte aligned operand or #GP(0); #UD without
 * CPUID.01H:ECX[13], shown with a test-only model: a 64-bit part without CX16
 * (as the first AMD64 parts were). */
static const struct cpuid_leaf no_cx16_leaves[] = {
	{ .leaf = 0, .eax = 1 },
	{ .leaf = 1, .eax = 0xf41, .edx = 1u << 5 | 1u << 6 | 1u << 8 },   /* MSR, PAE, CX8 */
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .edx = 1u << 11 | 1u << 29 },               /* SYSCALL, LM */
	{ .leaf = 0x80000008, .eax = 0x00003028 },
};
static const struct cpu_model no_cx16_model = {
	.name = "test-no-cx16", .vendor = VENDOR_AMD, .signature = 0xf41,
	.cpuid = no_cx16_leaves, .cpuid_count = sizeof(no_cx16_leaves) / sizeof(no_cx16_leaves[0]),
};

START_TEST(cmpxchg16b)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, 0x3000, 8, 0x1111);
	physmem_write(&m.pm, 0x3008, 8, 0x2222);
	c->regs[R_DI] = 0x3000;
	c->regs[R_AX] = 0x1111; c->regs[R_DX] = 0x2222;
	c->regs[R_BX] = 0xaaaa5555aaaa5555ull; c->regs[R_CX] = 0x123456789ull;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f), ST_OK);    /* cmpxchg16b [rdi] */
	ck_assert_uint_eq(physmem_read(&m.pm, 0x3000, 8), 0xaaaa5555aaaa5555ull);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x3008, 8), 0x123456789ull);
	ck_assert(c->rflags & FLAG_ZF);
	/* Not equal: RDX:RAX loaded, ZF = 0. */
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0xaaaa5555aaaa5555ull);
	ck_assert_uint_eq(c->regs[R_DX], 0x123456789ull);
	ck_assert(!(c->rflags & FLAG_ZF));
	c->regs[R_DI] = 0x3008;
	assert_gp0(&m, EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f));
	machine_free(&m);

	machine_init_model(&m, &no_cx16_model);
	activate(&m);
	to64(&m);
	m.cpu.regs[R_DI] = 0x3000;
	status_t st = EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m.cpu.event.vector, EXC_UD);
	machine_free(&m);
}
END_TEST

/* An event hook that stops the run at the first exception, so a test sees
 * which one the core raised. */
static status_t stop_at_event(void *ctx, struct cpu *cpu, const struct event *ev)
{
	(void)cpu;
	*(struct event *)ctx = *ev;
	return ST_VMEXIT;
}

/* SDM Vol.3 6.15 "Interrupt 13": fetching from a non-canonical RIP is #GP(0),
 * raised before any translation (no #PF). */
START_TEST(noncanonical_fetch)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	static const struct cpu_hooks hooks = { .event = stop_at_event };
	struct event seen = { 0 };
	m.cpu.hooks = &hooks;
	m.cpu.hooks_ctx = &seen;
	m.cpu.rip = 0x0000800000000000ull;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_VMEXIT);
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(seen.error_code, 0);
	machine_free(&m);
}
END_TEST

/* LTR in IA-32e mode reads the 16-byte descriptor (SDM Vol.3 8.2.3). */
START_TEST(ltr64)
{
	struct machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0xffff8000ull);
	c->regs[R_AX] = SEL_TSS;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x00, 0xd8), ST_OK);         /* ltr ax */
	ck_assert_uint_eq(c->tr.base, 0xffff800000000000ull | TSS64);
	/* Upper type bits set: #GP(selector). */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS, 8, make_desc(TSS64, 0x67, 0x89, 0));
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 1ull << 40);
	status_t st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(c->event.vector, EXC_GP);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	/* Non-canonical base: #GP(selector). */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0x00008000ull);
	st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	/* Beyond the GDT limit for the upper half. */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0);
	c->gdtr.limit = SEL_TSS + 7;
	st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	machine_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("long");
	TCase *t = tcase_create("activation");
	tcase_add_test(t, activation);
	tcase_add_test(t, activation_needs_pae_and_not_cs_l);
	tcase_add_test(t, pcid_rules);
	suite_add_tcase(s, t);
	t = tcase_create("instructions");
	tcase_add_test(t, syscall_sysret);
	tcase_add_test(t, syscall_legacy_mode);
	tcase_add_test(t, movsxd_and_rdtscp);
	tcase_add_test(t, cmpxchg16b);
	tcase_add_test(t, cr8_tpr);
	tcase_add_test(t, ltr64);
	tcase_add_test(t, noncanonical_fetch);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
