/* Check suite for the system instructions (emu/system.c, control_regs.c,
 * descriptor_tables.c, msr.c, io.c): a CPU from cpu_init() over a 1 MiB fake
 * physmem, a few bytes of code, run to HLT; faults go through the real delivery
 * path to one-HLT handlers, so each case sees the vector and error code the guest
 * would. Code bytes were assembled with GNU as (the source is beside each). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/hv.h"
#include "suite_runner.h"

#define RAM_SIZE   (1u << 20)
#define GDT_BASE   0x0500
#define TSS_BASE   0x0600
#define TSS2_BASE  0x0700
#define IDT_BASE   0x0800
#define LDT_BASE   0x0a00
#define CODE_BASE  0x1000
#define DATA_BASE  0x2000
#define HANDLERS   0x3000      /* vector v: one HLT at HANDLERS + 4*v */
#define STACK0     0x9000      /* ring-0 stack (TSS.ESP0) */
#define STACK3     0x7000      /* ring-3 stack */
#define IOMAP_OFF  0x68        /* I/O bitmap offset inside the TSS */
#define TSS_LIMIT  (IOMAP_OFF + 0x80)   /* ports 0-3FFH plus the trailing byte */

/* GDT selectors of the test machine. */
enum {
	SEL_CODE0 = 0x08, SEL_DATA0 = 0x10, SEL_CODE3 = 0x18, SEL_DATA3 = 0x20,
	SEL_TSS = 0x28, SEL_LDT = 0x30, SEL_CONFORMING = 0x38, SEL_XONLY = 0x40,
	SEL_NOTPRESENT = 0x48, SEL_CALLGATE = 0x50, SEL_INTGATE = 0x58, SEL_TSS2 = 0x60,
	SEL_LDT_NP = 0x68, GDT_ENTRIES = 14,
};

struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;
	/* Fake device on ports 80H-8FH. */
	uint16_t last_port;
	unsigned last_size, writes, reads;
	uint32_t last_value;
	uint8_t in_next;
};

struct outcome {
	status_t st;
	int vector;                /* -1: no exception reached a handler */
	uint32_t error;            /* error code on the handler's stack (prot. mode) */
};

static uint32_t dev_read(void *opaque, uint16_t port, unsigned size)
{
	struct machine *m = opaque;
	m->reads++;
	m->last_port = port;
	m->last_size = size;
	return m->in_next++;
}

static void dev_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct machine *m = opaque;
	m->writes++;
	m->last_port = port;
	m->last_size = size;
	m->last_value = value;
}

static const struct pio_ops dev_ops = { dev_read, dev_write };

/* Port F4H: a debug-exit-like device that asks the machine to stop. */
static void stop_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct machine *m = opaque;
	cpu_request_stop(&m->cpu);
}

static uint32_t stop_read(void *opaque, uint16_t port, unsigned size) { return 0; }
static const struct pio_ops stop_ops = { stop_read, stop_write };

static uint64_t make_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) |
	       ((uint64_t)access << 40) | ((uint64_t)((limit >> 16) & 0xf) << 48) |
	       ((uint64_t)(flags & 0xf) << 52) | ((uint64_t)(base >> 24) << 56);
}

static uint64_t gdt_entry(struct machine *m, unsigned sel)
{
	return physmem_read(&m->pm, GDT_BASE + (sel & ~7u), 8);
}

static void machine_init(struct machine *m, const char *model)
{
	memset(m, 0, sizeof(*m));
	ck_assert(physmem_init(&m->pm, RAM_SIZE));
	iobus_init(&m->io);
	ck_assert(iobus_register(&m->io, 0x80, 0x10, &dev_ops, m, "test"));
	ck_assert(iobus_register(&m->io, 0xf4, 1, &stop_ops, m, "stop"));
	const struct cpu_model *cm = cpu_model_find(model);
	ck_assert_ptr_nonnull(cm);
	cpu_init(&m->cpu, cm, &m->pm, &m->io);

	/* Real-mode start at 0000:1000, stack 0000:8000, IVT -> HLT handlers. */
	struct cpu *c = &m->cpu;
	for (unsigned v = 0; v < 32; v++) {
		physmem_write(&m->pm, v * 4, 4, (uint32_t)(HANDLERS + v * 4));
		physmem_write(&m->pm, HANDLERS + v * 4, 1, 0xf4);
	}
	c->seg[SR_CS].selector = 0;
	c->seg[SR_CS].base = 0;
	/* A code type in the real-mode CS cache, as the SDM Vol.3 9.1.1 reset state
	 * has in practice (VMX requires type 3 or 11 for it), so that code keeps
	 * running after LMSW / MOV CR0 set PE and before a far jump reloads CS. */
	c->seg[SR_CS].attr |= SEG_TYPE_CODE | SEG_TYPE_RW;
	seg_refresh(&c->seg[SR_CS]);
	c->rip = CODE_BASE;
	c->regs[R_SP] = 0x8000;
	c->idtr.base = 0;
	c->idtr.limit = 0x3ff;
}

static void machine_free(struct machine *m)
{
	cpu_destroy(&m->cpu);
	physmem_destroy(&m->pm);
}

static void load_seg(struct machine *m, struct segment *s, uint16_t sel)
{
	seg_load_descriptor(s, sel, gdt_entry(m, sel));
}

/* Switch the machine to 32-bit protected mode at the given CPL with flat
 * segments, a busy 32-bit TSS (all ports denied in its bitmap), an LDT in the
 * GDT and an IDT of interrupt gates to the HLT handlers. */
static void enter_prot(struct machine *m, unsigned cpl)
{
	struct cpu *c = &m->cpu;
	uint64_t gdt[GDT_ENTRIES] = {
		0,
		make_desc(0, 0xfffff, 0x9b, 0xc), make_desc(0, 0xfffff, 0x93, 0xc),
		make_desc(0, 0xfffff, 0xfb, 0xc), make_desc(0, 0xfffff, 0xf3, 0xc),
		make_desc(TSS_BASE, TSS_LIMIT, 0x8b, 0),      /* busy: it is TR */
		make_desc(LDT_BASE, 0x17, 0x82, 0),
		make_desc(0, 0xfffff, 0x9f, 0xc),             /* conforming code DPL0 */
		make_desc(0, 0xfffff, 0x99, 0xc),             /* execute-only code */
		make_desc(0, 0xfff, 0x13, 0x4),               /* not present data */
		make_desc(0, 0, 0xec, 0),                     /* call gate DPL3 */
		make_desc(0, 0, 0x8e, 0),                     /* interrupt gate */
		make_desc(TSS2_BASE, 0x67, 0x89, 0),          /* available TSS */
		make_desc(LDT_BASE, 0x17, 0x02, 0),           /* not-present LDT */
	};
	for (unsigned i = 0; i < GDT_ENTRIES; i++)
		physmem_write(&m->pm, GDT_BASE + i * 8, 8, gdt[i]);
	for (unsigned v = 0; v < 32; v++) {
		uint32_t off = HANDLERS + v * 4;
		uint64_t gate = (off & 0xffff) | ((uint64_t)SEL_CODE0 << 16) | (0x8eull << 40) |
				((uint64_t)(off >> 16) << 48);
		physmem_write(&m->pm, IDT_BASE + v * 8, 8, gate);
	}
	physmem_write(&m->pm, TSS_BASE + 4, 4, STACK0);      /* ESP0 */
	physmem_write(&m->pm, TSS_BASE + 8, 4, SEL_DATA0);   /* SS0 */
	physmem_write(&m->pm, TSS_BASE + 0x66, 2, IOMAP_OFF);
	for (unsigned i = 0; i <= 0x80; i++)
		physmem_write(&m->pm, TSS_BASE + IOMAP_OFF + i, 1, 0xff);

	c->gdtr.base = GDT_BASE;
	c->gdtr.limit = GDT_ENTRIES * 8 - 1;
	c->idtr.base = IDT_BASE;
	c->idtr.limit = 32 * 8 - 1;
	c->cr0 |= CR0_PE;
	c->cr0 &= ~(uint64_t)(CR0_CD | CR0_NW);
	load_seg(m, &c->seg[SR_CS], cpl ? SEL_CODE3 | 3 : SEL_CODE0);
	uint16_t ds = cpl ? SEL_DATA3 | 3 : SEL_DATA0;
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			load_seg(m, &c->seg[s], ds);
	load_seg(m, &c->tr, SEL_TSS);
	c->ldtr.selector = 0;
	c->ldtr.attr = 0;
	seg_refresh(&c->ldtr);
	c->cpl = (uint8_t)cpl;
	c->regs[R_SP] = cpl ? STACK3 : STACK0;
	cpu_set_flags(c, FLAG_FIXED1);
	cpu_update_mode(c);
	tlb_flush_all(&c->tlb);
}

/* Copy code to CODE_BASE and run until HLT (or at most 200 instructions). */
static struct outcome run(struct machine *m, const uint8_t *code, size_t len)
{
	struct cpu *c = &m->cpu;
	struct outcome o = { .vector = -1 };

	physmem_write_bytes(&m->pm, CODE_BASE, code, len);
	cpu_notify_phys_write(c, CODE_BASE, (unsigned)len);
	c->rip = CODE_BASE;
	c->icount_limit = c->icount + 200;
	o.st = cpu_run(c);
	uint64_t lin = c->seg[SR_CS].base + c->rip - 1;
	if (o.st == ST_HALT && lin >= HANDLERS && lin < HANDLERS + 32 * 4 && (lin & 3) == 0) {
		o.vector = (int)((lin - HANDLERS) / 4);
		if (c->mode != MODE_REAL)
			o.error = (uint32_t)physmem_read(&m->pm, c->seg[SR_SS].base +
							 (uint32_t)c->regs[R_SP], 4);
	}
	return o;
}

#define RUN(m, ...) run((m), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void assert_fault(struct outcome o, int vector, int64_t error)
{
	ck_assert_int_eq(o.st, ST_HALT);
	ck_assert_int_eq(o.vector, vector);
	if (error >= 0)
		ck_assert_uint_eq(o.error, (uint32_t)error);
}

static void assert_ok(struct outcome o)
{
	ck_assert_int_eq(o.st, ST_HALT);
	ck_assert_int_eq(o.vector, -1);
}

/* ---- identification and time ---- */

START_TEST(cpuid_vendor)
{
	struct machine m;
	machine_init(&m, "opteron-g3");
	/* xor eax,eax; cpuid; hlt */
	assert_ok(RUN(&m, 0x66, 0x31, 0xc0, 0x0f, 0xa2, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x68747541);   /* "Auth" */
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x69746e65);   /* "enti" */
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0x444d4163);   /* "cAMD" */
	machine_free(&m);
}
END_TEST

START_TEST(cpuid_osxsave_follows_cr4)
{
	struct machine m;
	machine_init(&m, "core2");
	/* mov eax,1; cpuid; hlt: CR4.OSXSAVE=0 -> CPUID.1:ECX[27]=0, XSAVE[26]=1 */
	assert_ok(RUN(&m, 0x66, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0xa2, 0xf4));
	ck_assert(m.cpu.regs[R_CX] & (1u << 26));
	ck_assert(!(m.cpu.regs[R_CX] & (1u << 27)));
	machine_free(&m);
	machine_init(&m, "core2");
	/* mov eax,40000h; mov cr4,eax; mov eax,1; cpuid; hlt: OSXSAVE mirrors CR4 */
	assert_ok(RUN(&m, 0x66, 0xb8, 0x00, 0x00, 0x04, 0x00, 0x0f, 0x22, 0xe0,
		      0x66, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0xa2, 0xf4));
	ck_assert(m.cpu.regs[R_CX] & (1u << 27));
	machine_free(&m);
}
END_TEST

START_TEST(fwait_pending_x87_exception)
{
	struct machine m;
	machine_init(&m, "core2");
	/* fwait; hlt with FSW.ES set: #MF with CR0.NE, nothing with NE=0 (IGNNE#) */
	m.cpu.fpu.fsw |= FSW_ES;
	m.cpu.cr0 |= CR0_NE;
	assert_fault(RUN(&m, 0x9b, 0xf4), EXC_MF, -1);
	machine_free(&m);
	machine_init(&m, "core2");
	m.cpu.fpu.fsw |= FSW_ES;
	m.cpu.cr0 &= ~(uint64_t)CR0_NE;
	assert_ok(RUN(&m, 0x9b, 0xf4));
	machine_free(&m);
}
END_TEST

START_TEST(stac_clac_rules)
{
	struct machine m;
	/* SDM Vol.2 STAC/CLAC: AC set/cleared at CPL 0 with SMAP in CPUID. */
	machine_init(&m, "skylake-lite");
	enter_prot(&m, 0);
	assert_ok(RUN(&m, 0x0f, 0x01, 0xcb, 0xf4));           /* stac; hlt */
	ck_assert(cpu_get_flags(&m.cpu) & FLAG_AC);
	enter_prot(&m, 0);
	assert_ok(RUN(&m, 0x0f, 0x01, 0xcb, 0x0f, 0x01, 0xca, 0xf4)); /* stac; clac; hlt */
	ck_assert(!(cpu_get_flags(&m.cpu) & FLAG_AC));
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x01, 0xcb, 0xf4), EXC_UD, -1);    /* CPL 3 */
	machine_free(&m);
	machine_init(&m, "skylake-lite");
	assert_fault(RUN(&m, 0x0f, 0x01, 0xcb, 0xf4), EXC_UD, -1);    /* real mode */
	machine_free(&m);
	machine_init(&m, "core2");                                  /* no SMAP */
	enter_prot(&m, 0);
	assert_fault(RUN(&m, 0x0f, 0x01, 0xca, 0xf4), EXC_UD, -1);
	machine_free(&m);
}
END_TEST

START_TEST(rdtsc_deterministic)
{
	struct machine m;
	machine_init(&m, "core2");
	/* nop; nop; rdtsc; hlt: two instructions retired before RDTSC */
	uint64_t start = m.cpu.icount;
	assert_ok(RUN(&m, 0x90, 0x90, 0x0f, 0x31, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_AX], start + 2);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0);
	/* mov ecx,10h; mov eax,1000h; mov edx,1; wrmsr; rdtsc; hlt: the TSC read one
	 * instruction after the write is the written value + 1 */
	assert_ok(RUN(&m, 0x66, 0xb9, 0x10, 0x00, 0x00, 0x00, 0x66, 0xb8, 0x00, 0x10, 0x00, 0x00,
		      0x66, 0xba, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x30, 0x0f, 0x31, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_DX], 1);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x1001);
	machine_free(&m);
}
END_TEST

/* ---- descriptor-table registers ---- */

START_TEST(lgdt_operand_size)
{
	struct machine m;
	machine_init(&m, "core2");
	physmem_write(&m.pm, DATA_BASE, 2, 0x1234);
	physmem_write(&m.pm, DATA_BASE + 2, 4, 0xaabbccdd);
	/* lgdt [2000h]; sgdt [2100h]; hlt (16-bit operand size: 24-bit base) */
	assert_ok(RUN(&m, 0x0f, 0x01, 0x16, 0x00, 0x20, 0x0f, 0x01, 0x06, 0x00, 0x21, 0xf4));
	ck_assert_uint_eq(m.cpu.gdtr.limit, 0x1234);
	ck_assert_uint_eq(m.cpu.gdtr.base, 0xbbccdd);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x2100, 2), 0x1234);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x2102, 4), 0x00bbccdd);
	/* o32 lgdt; o32 sgdt: the full 32-bit base */
	assert_ok(RUN(&m, 0x66, 0x0f, 0x01, 0x16, 0x00, 0x20, 0x66, 0x0f, 0x01, 0x06, 0x00, 0x21,
		      0xf4));
	ck_assert_uint_eq(m.cpu.gdtr.base, 0xaabbccdd);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x2102, 4), 0xaabbccdd);
	/* sgdt [2100h] with a 16-bit operand: 24-bit base, sixth byte 0 */
	assert_ok(RUN(&m, 0x0f, 0x01, 0x06, 0x00, 0x21, 0xf4));
	ck_assert_uint_eq(physmem_read(&m.pm, 0x2102, 4), 0x00bbccdd);
	machine_free(&m);
}
END_TEST

START_TEST(ltr_sets_busy)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	/* mov ax,60h; ltr ax; str ebx; hlt */
	m.cpu.regs[R_BX] = 0xffffffff;
	assert_ok(RUN(&m, 0x66, 0xb8, 0x60, 0x00, 0x0f, 0x00, 0xd8, 0x0f, 0x00, 0xcb, 0xf4));
	ck_assert_uint_eq(m.cpu.tr.selector, SEL_TSS2);
	ck_assert_uint_eq(m.cpu.tr.base, TSS2_BASE);
	ck_assert_uint_eq((gdt_entry(&m, SEL_TSS2) >> 40) & 0xf, SYS_TSS32_BUSY);
	ck_assert_uint_eq(m.cpu.regs[R_BX], SEL_TSS2);   /* zero-extended */
	/* LTR of a busy TSS: #GP(selector) (SDM Vol.2 LTR) */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x28, 0x00, 0x0f, 0x00, 0xd8, 0xf4), EXC_GP, SEL_TSS);
	machine_free(&m);
}
END_TEST

START_TEST(lldt_checks)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	/* mov ax,30h; lldt ax; sldt ebx; hlt */
	assert_ok(RUN(&m, 0x66, 0xb8, 0x30, 0x00, 0x0f, 0x00, 0xd0, 0x0f, 0x00, 0xc3, 0xf4));
	ck_assert_uint_eq(m.cpu.ldtr.base, LDT_BASE);
	ck_assert_uint_eq(m.cpu.ldtr.limit, 0x17);
	ck_assert_uint_eq(m.cpu.regs[R_BX], SEL_LDT);
	/* a code segment is not an LDT: #GP(08h) */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x08, 0x00, 0x0f, 0x00, 0xd0, 0xf4), EXC_GP, SEL_CODE0);
	enter_prot(&m, 0);
	/* not present: #NP(68h) */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x68, 0x00, 0x0f, 0x00, 0xd0, 0xf4), EXC_NP, SEL_LDT_NP);
	enter_prot(&m, 0);
	/* a null selector (RPL 3) makes LDTR unusable without a fault */
	assert_ok(RUN(&m, 0x66, 0xb8, 0x03, 0x00, 0x0f, 0x00, 0xd0, 0x0f, 0x00, 0xc3, 0xf4));
	ck_assert_uint_eq(m.cpu.ldtr.attr & SEG_P, 0);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 3);
	machine_free(&m);
}
END_TEST

START_TEST(prot_only_in_real_mode)
{
	struct machine m;
	machine_init(&m, "core2");
	/* sldt ax in real mode: #UD */
	assert_fault(RUN(&m, 0x0f, 0x00, 0xc0, 0xf4), EXC_UD, -1);
	machine_free(&m);
}
END_TEST

/* LAR/LSL/VERR/VERW on one selector (ESI) in one run:
 * mov ebx,-1; mov ecx,ebx; mov edx,ebx; lar ebx,si; pushf; pop eax;
 * lsl ecx,si; verr si; pushf; pop edx; verw si; pushf; pop edi; hlt */
static const uint8_t verify_code[] = {
	0xbb, 0xff, 0xff, 0xff, 0xff, 0x89, 0xd9, 0x89, 0xda, 0x0f, 0x02, 0xde, 0x9c, 0x58,
	0x0f, 0x03, 0xce, 0x0f, 0x00, 0xe6, 0x9c, 0x5a, 0x0f, 0x00, 0xee, 0x9c, 0x5f, 0xf4,
};

struct verify_result { uint32_t lar, lsl; bool lar_zf, verr, verw; };

static struct verify_result verify(struct machine *m, uint16_t sel, unsigned cpl)
{
	enter_prot(m, cpl);
	m->cpu.regs[R_SI] = sel;
	struct outcome o = run(m, verify_code, sizeof(verify_code));
	if (cpl)
		assert_fault(o, EXC_GP, 0);          /* the final HLT at CPL 3 */
	else
		assert_ok(o);
	return (struct verify_result){
		.lar = (uint32_t)m->cpu.regs[R_BX], .lsl = (uint32_t)m->cpu.regs[R_CX],
		.lar_zf = (m->cpu.regs[R_AX] & FLAG_ZF) != 0,
		.verr = (m->cpu.regs[R_DX] & FLAG_ZF) != 0,
		.verw = (m->cpu.regs[R_DI] & FLAG_ZF) != 0,
	};
}

START_TEST(lar_lsl_verr_verw)
{
	struct machine m;
	machine_init(&m, "core2");
	struct verify_result r = verify(&m, SEL_DATA0, 0);
	ck_assert(r.lar_zf && r.verr && r.verw);
	ck_assert_uint_eq(r.lar, 0x00cf9300);          /* masked 00FxFF00H */
	ck_assert_uint_eq(r.lsl, 0xffffffff);          /* G applied */
	/* execute-only code: readable for LAR, not for VERR, never writable */
	r = verify(&m, SEL_XONLY, 0);
	ck_assert(r.lar_zf && !r.verr && !r.verw);
	/* DPL 0 data from CPL 3: invisible */
	r = verify(&m, SEL_DATA0 | 3, 3);
	ck_assert(!r.lar_zf && !r.verr && !r.verw);
	ck_assert_uint_eq(r.lar, 0xffffffff);          /* unchanged on failure */
	/* conforming code ignores DPL: visible from CPL 3 */
	r = verify(&m, SEL_CONFORMING | 3, 3);
	ck_assert(r.lar_zf && r.verr && !r.verw);
	/* call gate: LAR yes, LSL no (ECX unchanged), VERR/VERW no */
	r = verify(&m, SEL_CALLGATE, 0);
	ck_assert(r.lar_zf && !r.verr);
	ck_assert_uint_eq(r.lsl, 0xffffffff);
	ck_assert_uint_eq(r.lar, 0x0000ec00);
	/* interrupt gate: not valid for LAR */
	r = verify(&m, SEL_INTGATE, 0);
	ck_assert(!r.lar_zf);
	/* TSS: LAR and LSL */
	r = verify(&m, SEL_TSS, 0);
	ck_assert(r.lar_zf);
	ck_assert_uint_eq(r.lsl, TSS_LIMIT);
	/* not present is still visible to LAR */
	r = verify(&m, SEL_NOTPRESENT, 0);
	ck_assert(r.lar_zf && r.verr);
	/* null, beyond the GDT limit, and LDT selectors with no LDT: ZF=0, no fault */
	ck_assert(!verify(&m, 0, 0).lar_zf);
	ck_assert(!verify(&m, 0x1f8, 0).lar_zf);
	ck_assert(!verify(&m, 0x0c, 0).lar_zf);
	machine_free(&m);
}
END_TEST

START_TEST(arpl_adjusts)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	/* mov ax,10h; mov bx,3; arpl ax,bx; pushf; pop ecx; arpl ax,bx; pushf; pop edx; hlt */
	assert_ok(RUN(&m, 0x66, 0xb8, 0x10, 0x00, 0x66, 0xbb, 0x03, 0x00, 0x63, 0xd8, 0x9c, 0x59,
		      0x63, 0xd8, 0x9c, 0x5a, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_AX] & 0xffff, 0x13);
	ck_assert(m.cpu.regs[R_CX] & FLAG_ZF);
	ck_assert(!(m.cpu.regs[R_DX] & FLAG_ZF));
	machine_free(&m);
}
END_TEST

/* ---- control and debug registers ---- */

START_TEST(cr0_invalid_combinations)
{
	struct machine m;
	machine_init(&m, "core2");
	/* mov eax,80000010h; mov cr0,eax: PG without PE */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x10, 0x00, 0x00, 0x80, 0x0f, 0x22, 0xc0, 0xf4), EXC_GP, -1);
	ck_assert_uint_eq(m.cpu.cr0 & (CR0_PG | CR0_PE), 0);
	machine_free(&m);
	machine_init(&m, "core2");
	/* mov eax,20000010h; mov cr0,eax: NW without CD */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x10, 0x00, 0x00, 0x20, 0x0f, 0x22, 0xc0, 0xf4), EXC_GP, -1);
	ck_assert_uint_eq(m.cpu.cr0 & (CR0_CD | CR0_NW), CR0_CD | CR0_NW);   /* unchanged */
	machine_free(&m);
}
END_TEST

START_TEST(cr4_reserved_and_de)
{
	struct machine m;
	machine_init(&m, "pentium");
	/* mov eax,200h; mov cr4,eax: OSFXSR, but the Pentium model has no FXSR */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x00, 0x02, 0x00, 0x00, 0x0f, 0x22, 0xe0, 0xf4), EXC_GP, -1);
	machine_free(&m);
	machine_init(&m, "core2");
	/* mov eax,8; mov cr4,eax; mov ebx,cr4; mov eax,dr4; hlt: DE=1 makes DR4 #UD */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x08, 0x00, 0x00, 0x00, 0x0f, 0x22, 0xe0, 0x0f, 0x20, 0xe3,
			 0x0f, 0x21, 0xe0, 0xf4), EXC_UD, -1);
	ck_assert_uint_eq(m.cpu.regs[R_BX], CR4_DE);
	machine_free(&m);
	/* VMXE exists on a VMX model only, and only while its VMX is available
	 * (emu/cpu_model.h hv_ext: no hypervisor model, no VMX) */
	machine_init(&m, "opteron-g3");
	m.cpu.hv_available = true;
	/* mov eax,2000h; mov cr4,eax; hlt */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x00, 0x20, 0x00, 0x00, 0x0f, 0x22, 0xe0, 0xf4), EXC_GP, -1);
	machine_free(&m);
	machine_init(&m, "core2");
	assert_fault(RUN(&m, 0x66, 0xb8, 0x00, 0x20, 0x00, 0x00, 0x0f, 0x22, 0xe0, 0xf4), EXC_GP, -1);
	machine_free(&m);
	machine_init(&m, "core2");
	m.cpu.hv_available = true;
	assert_ok(RUN(&m, 0x66, 0xb8, 0x00, 0x20, 0x00, 0x00, 0x0f, 0x22, 0xe0, 0xf4));
	ck_assert_uint_eq(m.cpu.cr4, CR4_VMXE);
	machine_free(&m);
}
END_TEST

START_TEST(debug_registers)
{
	struct machine m;
	machine_init(&m, "core2");
	/* xor eax,eax; mov dr7,eax; mov dr6,eax; mov ebx,dr7; mov ecx,dr6; mov edx,dr5; hlt */
	assert_ok(RUN(&m, 0x66, 0x31, 0xc0, 0x0f, 0x23, 0xf8, 0x0f, 0x23, 0xf0, 0x0f, 0x21, 0xfb,
		      0x0f, 0x21, 0xf1, 0x0f, 0x21, 0xea, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x400);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0xffff0ff0);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x400);       /* DR5 aliases DR7 (CR4.DE=0) */
	/* mov eax,2000h; mov dr7,eax; mov eax,dr0: GD -> #DB, DR6.BD, GD cleared */
	assert_fault(RUN(&m, 0x66, 0xb8, 0x00, 0x20, 0x00, 0x00, 0x0f, 0x23, 0xf8, 0x0f, 0x21, 0xc0,
			 0xf4), EXC_DB, -1);
	ck_assert(m.cpu.dr[6] & (1u << 13));
	ck_assert(!(m.cpu.dr[7] & (1u << 13)));
	machine_free(&m);
}
END_TEST

START_TEST(lmsw_smsw)
{
	struct machine m;
	machine_init(&m, "core2");
	/* mov ax,0fh; lmsw ax; smsw ebx; hlt: enters protected mode */
	assert_ok(RUN(&m, 0xb8, 0x0f, 0x00, 0x0f, 0x01, 0xf0, 0x66, 0x0f, 0x01, 0xe3, 0xf4));
	ck_assert_uint_eq(m.cpu.cr0 & 0xf, 0xf);
	ck_assert_int_eq(m.cpu.mode, MODE_PROT);
	ck_assert_uint_eq(m.cpu.regs[R_BX], (uint32_t)m.cpu.cr0);
	/* mov ax,0; lmsw ax: PE stays set, MP/EM/TS clear */
	assert_ok(RUN(&m, 0xb8, 0x00, 0x00, 0x0f, 0x01, 0xf0, 0xf4));
	ck_assert_uint_eq(m.cpu.cr0 & 0xf, CR0_PE);
	machine_free(&m);
}
END_TEST

/* RDPMC on an AMD model reads PerfCtr0-3 (APM2 13.2.1, APM3 RDPMC); another
 * counter, or any on an Intel model (no leaf 0AH), is #GP(0). */
START_TEST(rdpmc_counters)
{
	struct machine m;
	machine_init(&m, "opteron-g3");
	m.cpu.amd_perf_ctr[1] = 0x123456789aull;
	m.cpu.regs[R_CX] = 1;
	assert_ok(RUN(&m, 0x0f, 0x33, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x3456789a);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x12);
	m.cpu.regs[R_CX] = 4;
	assert_fault(RUN(&m, 0x0f, 0x33, 0xf4), EXC_GP, 0);
	machine_free(&m);
	machine_init(&m, "core2");
	m.cpu.regs[R_CX] = 0;
	assert_fault(RUN(&m, 0x0f, 0x33, 0xf4), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

START_TEST(privileged_at_cpl3)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0xf4), EXC_GP, 0);                              /* hlt */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x32, 0xf4), EXC_GP, 0);                  /* rdmsr */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x20, 0xc0, 0xf4), EXC_GP, 0);            /* mov eax,cr0 */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x06, 0xf4), EXC_GP, 0);                  /* clts */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x01, 0x38, 0xf4), EXC_GP, 0);            /* invlpg [eax] */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x33, 0xf4), EXC_GP, 0);                  /* rdpmc */
	/* RDTSC at CPL 3: allowed until CR4.TSD */
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x0f, 0x31, 0x0f, 0x0b), EXC_UD, -1);           /* rdtsc; ud2 */
	enter_prot(&m, 3);
	m.cpu.cr4 |= CR4_TSD;
	assert_fault(RUN(&m, 0x0f, 0x31, 0xf4), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

/* ---- flags ---- */

START_TEST(flag_instructions)
{
	struct machine m;
	machine_init(&m, "core2");
	/* stc; cmc; cmc; std; lahf; mov bl,ah; mov ah,0d5h; sahf; cld; pushf; pop cx; hlt */
	assert_ok(RUN(&m, 0xf9, 0xf5, 0xf5, 0xfd, 0x9f, 0x88, 0xe3, 0xb4, 0xd5, 0x9e, 0xfc, 0x9c,
		      0x59, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_BX] & 0x03, 0x03);   /* LAHF: CF and bit 1 */
	ck_assert_uint_eq(m.cpu.regs[R_CX] & 0xff, 0xd7);   /* SAHF: SF ZF AF PF CF + bit 1 */
	ck_assert(!(m.cpu.regs[R_CX] & FLAG_DF));
	machine_free(&m);
}
END_TEST

START_TEST(sti_shadow_and_cli)
{
	struct machine m;
	machine_init(&m, "core2");
	/* cli; sti; hlt: HLT runs in the STI shadow */
	assert_ok(RUN(&m, 0xfa, 0xfb, 0xf4));
	ck_assert(m.cpu.rflags & FLAG_IF);
	machine_free(&m);
}
END_TEST

START_TEST(popf_user_iopl0)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 3);
	/* push 3ed7h; popf; pushf; pop ebx; cli; hlt: IOPL and IF are kept at CPL 3 >
	 * IOPL 0, the rest changes; CLI is then #GP(0) */
	assert_fault(RUN(&m, 0x68, 0xd7, 0x3e, 0x00, 0x00, 0x9d, 0x9c, 0x5b, 0xfa, 0xf4), EXC_GP, 0);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x0cd7);
	machine_free(&m);
}
END_TEST

/* ---- SYSENTER / SYSEXIT ---- */

START_TEST(sysenter_sysexit)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	/* at 1200h (ring 3): sysenter; at 1100h (ring 0): hlt */
	physmem_write(&m.pm, 0x1200, 2, 0x340f);
	physmem_write(&m.pm, 0x1100, 1, 0xf4);
	/* wrmsr SYSENTER_CS=8, ESP=8800h, EIP=1100h; mov edx,1200h; mov ecx,7000h; sysexit */
	assert_ok(RUN(&m, 0xb9, 0x74, 0x01, 0x00, 0x00, 0xb8, 0x08, 0x00, 0x00, 0x00, 0x31, 0xd2,
		      0x0f, 0x30, 0xb9, 0x75, 0x01, 0x00, 0x00, 0xb8, 0x00, 0x88, 0x00, 0x00, 0x0f,
		      0x30, 0xb9, 0x76, 0x01, 0x00, 0x00, 0xb8, 0x00, 0x11, 0x00, 0x00, 0x0f, 0x30,
		      0xba, 0x00, 0x12, 0x00, 0x00, 0xb9, 0x00, 0x70, 0x00, 0x00, 0x0f, 0x35));
	ck_assert_uint_eq(m.cpu.rip, 0x1101);
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0x08);
	ck_assert_uint_eq(m.cpu.seg[SR_SS].selector, 0x10);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x8800);
	ck_assert_uint_eq(m.cpu.cpl, 0);
	machine_free(&m);

	/* SYSENTER with SYSENTER_CS = 0: #GP(0); on the Pentium model: #UD */
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	assert_fault(RUN(&m, 0x0f, 0x34), EXC_GP, 0);
	machine_free(&m);
	machine_init(&m, "pentium");
	assert_fault(RUN(&m, 0x0f, 0x34), EXC_UD, -1);
	machine_free(&m);
}
END_TEST

/* ---- MSRs ---- */

START_TEST(msr_sets_per_vendor)
{
	struct machine m;
	machine_init(&m, "pentium");
	enter_prot(&m, 0);
	/* mov ecx,0c0000080h; rdmsr; hlt: no EFER without NX/LM on Intel */
	assert_fault(RUN(&m, 0xb9, 0x80, 0x00, 0x00, 0xc0, 0x0f, 0x32, 0xf4), EXC_GP, 0);
	machine_free(&m);
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	/* mov ecx,12345h; rdmsr: unknown */
	assert_fault(RUN(&m, 0xb9, 0x45, 0x23, 0x01, 0x00, 0x0f, 0x32, 0xf4), EXC_GP, 0);
	enter_prot(&m, 0);
	/* PAT type 2 is reserved */
	assert_fault(RUN(&m, 0xb9, 0x77, 0x02, 0x00, 0x00, 0xb8, 0x02, 0x00, 0x00, 0x00, 0x31, 0xd2,
			 0x0f, 0x30, 0xf4), EXC_GP, 0);
	enter_prot(&m, 0);
	/* PAT 01000706_07060504h; xor eax,eax; rdmsr */
	assert_ok(RUN(&m, 0xb9, 0x77, 0x02, 0x00, 0x00, 0xb8, 0x04, 0x05, 0x06, 0x07, 0xba, 0x06,
		      0x07, 0x00, 0x01, 0x0f, 0x30, 0x31, 0xc0, 0x0f, 0x32, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x07060504);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x01000706);
	machine_free(&m);

	machine_init(&m, "opteron-g3");
	enter_prot(&m, 0);
	/* EFER.SVME := 1: reserved while SVM is not available (emu/cpu_model.h hv_ext) */
	assert_fault(RUN(&m, 0xb9, 0x80, 0x00, 0x00, 0xc0, 0xb8, 0x00, 0x10, 0x00, 0x00, 0x31, 0xd2,
			 0x0f, 0x30, 0xf4), EXC_GP, 0);
	enter_prot(&m, 0);
	m.cpu.hv_available = true;
	/* EFER.SVME := 1; rdmsr */
	assert_ok(RUN(&m, 0xb9, 0x80, 0x00, 0x00, 0xc0, 0xb8, 0x00, 0x10, 0x00, 0x00, 0x31, 0xd2,
		      0x0f, 0x30, 0x0f, 0x32, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_AX], EFER_SVME);
	ck_assert_uint_eq(m.cpu.efer, EFER_SVME);
	enter_prot(&m, 0);
	/* EFER.LME: no long mode yet -> #GP(0) */
	assert_fault(RUN(&m, 0xb9, 0x80, 0x00, 0x00, 0xc0, 0xb8, 0x00, 0x01, 0x00, 0x00, 0x31, 0xd2,
			 0x0f, 0x30, 0xf4), EXC_GP, 0);
	machine_free(&m);
}
END_TEST

/* ---- port I/O ---- */

START_TEST(in_out_basic)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	m.in_next = 0x42;
	/* mov dx,80h; mov al,5ah; out dx,al; in al,81h; mov bl,al; mov eax,12345678h;
	 * out 84h,eax; hlt */
	assert_ok(RUN(&m, 0x66, 0xba, 0x80, 0x00, 0xb0, 0x5a, 0xee, 0xe4, 0x81, 0x88, 0xc3, 0xb8,
		      0x78, 0x56, 0x34, 0x12, 0xe7, 0x84, 0xf4));
	ck_assert_uint_eq(m.cpu.regs[R_BX] & 0xff, 0x42);
	ck_assert_uint_eq(m.last_port, 0x84);
	ck_assert_uint_eq(m.last_size, 4);
	ck_assert_uint_eq(m.last_value, 0x12345678);
	ck_assert_uint_eq(m.writes, 2);
	machine_free(&m);
}
END_TEST

START_TEST(rep_ins_outs)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	m.in_next = 1;
	/* std; mov edi,2003h; mov ecx,4; mov dx,82h; rep insb; cld; mov esi,2000h;
	 * mov ecx,4; mov dx,83h; rep outsb; hlt */
	assert_ok(RUN(&m, 0xfd, 0xbf, 0x03, 0x20, 0x00, 0x00, 0xb9, 0x04, 0x00, 0x00, 0x00, 0x66,
		      0xba, 0x82, 0x00, 0xf3, 0x6c, 0xfc, 0xbe, 0x00, 0x20, 0x00, 0x00, 0xb9, 0x04,
		      0x00, 0x00, 0x00, 0x66, 0xba, 0x83, 0x00, 0xf3, 0x6e, 0xf4));
	/* INS with DF=1 filled 2003h down to 2000h with 1, 2, 3, 4 */
	ck_assert_uint_eq(physmem_read(&m.pm, DATA_BASE, 4), 0x01020304);
	ck_assert_uint_eq(m.cpu.regs[R_DI], 0x1fff);
	ck_assert_uint_eq(m.cpu.regs[R_SI], 0x2004);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	ck_assert_uint_eq(m.writes, 4);
	ck_assert_uint_eq(m.last_value, 0x01);           /* the byte at 2003h, written last */
	machine_free(&m);
}
END_TEST

START_TEST(io_bitmap_user)
{
	struct machine m;
	machine_init(&m, "core2");
	enter_prot(&m, 3);
	/* mov dx,80h; in al,dx; mov dx,81h; in al,dx; hlt: all ports denied */
	static const uint8_t code[] = { 0x66, 0xba, 0x80, 0x00, 0xec, 0x66, 0xba, 0x81, 0x00, 0xec, 0xf4 };
	assert_fault(run(&m, code, sizeof(code)), EXC_GP, 0);
	ck_assert_uint_eq(m.reads, 0);
	/* allow 80h only: the second IN faults */
	enter_prot(&m, 3);
	physmem_write(&m.pm, TSS_BASE + IOMAP_OFF + 0x10, 1, 0xfe);
	assert_fault(run(&m, code, sizeof(code)), EXC_GP, 0);
	ck_assert_uint_eq(m.reads, 1);
	/* IOPL 3: no bitmap check; the run ends with HLT #GP at CPL 3 */
	enter_prot(&m, 3);
	cpu_set_flags(&m.cpu, FLAG_FIXED1 | FLAG_IOPL);
	assert_fault(run(&m, code, sizeof(code)), EXC_GP, 0);
	ck_assert_uint_eq(m.reads, 3);
	/* a TSS limit that cuts the second bitmap byte: #GP(0) */
	enter_prot(&m, 3);
	m.cpu.tr.limit = IOMAP_OFF + 0x10;
	seg_refresh(&m.cpu.tr);
	assert_fault(run(&m, code, sizeof(code)), EXC_GP, 0);
	ck_assert_uint_eq(m.reads, 3);
	machine_free(&m);
}
END_TEST

START_TEST(out_stops_machine)
{
	struct machine m;
	machine_init(&m, "core2");
	/* mov dx,0f4h; out dx,al; nop; hlt */
	struct outcome o = RUN(&m, 0xba, 0xf4, 0x00, 0xee, 0x90, 0xf4);
	ck_assert_int_eq(o.st, ST_STOP);
	ck_assert_uint_eq(m.cpu.rip, CODE_BASE + 4);       /* OUT completed, NOP not run */
	machine_free(&m);
}
END_TEST

/* ---- virtual-8086 mode ---- */

/* Enter virtual-8086 mode at 0000:1000 (tables from enter_prot) with IOPL iopl. */
static void enter_v86(struct machine *m, unsigned iopl)
{
	struct cpu *c = &m->cpu;
	enter_prot(m, 0);
	cpu_set_flags(c, FLAG_FIXED1 | FLAG_VM | ((uint64_t)iopl << FLAG_IOPL_SHIFT));
	for (unsigned s = 0; s < SR_COUNT; s++)
		seg_load_v86(&c->seg[s], 0);
	c->cpl = 3;
	c->regs[R_SP] = STACK3;
	cpu_update_mode(c);
	ck_assert_int_eq(c->mode, MODE_V86);
}

START_TEST(v86_iopl_sensitive)
{
	struct machine m;
	machine_init(&m, "core2");
	/* pushf; cli; hlt with IOPL 0: PUSHF is #GP(0) (SDM Vol.2 PUSHF, no VME) */
	enter_v86(&m, 0);
	assert_fault(RUN(&m, 0x9c, 0xfa, 0xf4), EXC_GP, 0);
	ck_assert_uint_eq(m.cpu.regs[R_SP], STACK0 - 9 * 4 - 4);   /* v86 frame + error */
	/* push 0; popf with IOPL 0: #GP(0) */
	enter_v86(&m, 0);
	assert_fault(RUN(&m, 0x6a, 0x00, 0x9d, 0xf4), EXC_GP, 0);
	/* IOPL 3: PUSHF and CLI work; HLT (CPL 3) is #GP(0) */
	enter_v86(&m, 3);
	m.cpu.rflags |= FLAG_IF;
	assert_fault(RUN(&m, 0x9c, 0xfa, 0xf4), EXC_GP, 0);
	uint32_t pushed = (uint32_t)physmem_read(&m.pm, STACK3 - 2, 2);
	ck_assert_uint_eq(pushed & (FLAG_IF | FLAG_IOPL), FLAG_IF | FLAG_IOPL);
	/* the interrupted EFLAGS image (above EIP and CS) has VM=1 and IF=0 */
	uint32_t eflags = (uint32_t)physmem_read(&m.pm, m.cpu.regs[R_SP] + 12, 4);
	ck_assert(eflags & FLAG_VM);
	ck_assert(!(eflags & FLAG_IF));
	machine_free(&m);
}
END_TEST

/* ---- hypervisor hooks: called after the instruction's own checks ---- */

struct hook_log {
	unsigned insn, io, msr, cr;
	uint16_t port;
	uint32_t msr_index;
	unsigned cr_reg[4];
	bool cr_write[4];
	uint64_t cr_value[4];
	bool exit_on_io;
};

/* A hypervisor model that logs what it is asked and exits on I/O if told to. */
static status_t log_intercept(void *ctx, struct cpu *cpu, struct exit_record *r)
{
	struct hook_log *l = ctx;
	switch (r->kind) {
	case IK_IO:
		l->io++;
		l->port = r->port;
		if (!l->exit_on_io)
			return ST_OK;
		cpu_request_stop(cpu);     /* the exit is a world switch: end the run here */
		return ST_VMEXIT;
	case IK_MSR:
		l->msr++;
		l->msr_index = r->msr;
		return ST_OK;
	case IK_CR_ACCESS:
		if (l->cr < 4) {
			l->cr_reg[l->cr] = r->cr;
			l->cr_write[l->cr] = r->cr_access == CR_MOV_TO;
			l->cr_value[l->cr] = r->value;
		}
		l->cr++;
		return ST_OK;
	case IK_EXCEPTION:
		return ST_OK;
	default:
		l->insn++;
		return ST_OK;
	}
}

static const struct hv_model log_model = { .name = "log", .intercept = log_intercept };

START_TEST(hooks_called_in_order)
{
	struct machine m;
	struct hook_log log = { 0 };
	machine_init(&m, "core2");
	enter_prot(&m, 0);
	m.cpu.hv = &log_model;
	m.cpu.hv_ctx = &log;
	m.cpu.in_guest = true;
	/* mov dx,80h; in al,dx; mov ecx,174h; rdmsr; mov eax,cr0; mov cr0,eax; cpuid; hlt */
	assert_ok(RUN(&m, 0x66, 0xba, 0x80, 0x00, 0xec, 0xb9, 0x74, 0x01, 0x00, 0x00, 0x0f, 0x32,
		      0x0f, 0x20, 0xc0, 0x0f, 0x22, 0xc0, 0x0f, 0xa2, 0xf4));
	ck_assert_uint_eq(log.io, 1);
	ck_assert_uint_eq(log.port, 0x80);
	ck_assert_uint_eq(log.msr, 1);
	ck_assert_uint_eq(log.msr_index, 0x174);
	ck_assert_uint_eq(log.cr, 2);
	ck_assert(!log.cr_write[0] && log.cr_write[1]);
	ck_assert_uint_eq(log.cr_reg[1], 0);
	ck_assert_uint_eq(log.cr_value[1], m.cpu.cr0);
	ck_assert_uint_eq(log.insn, 2);                    /* CPUID, HLT */

	/* A faulting privilege / I/O-bitmap check comes before the intercept
	 * (SDM Vol.3 25.1.1): at CPL 3 with the port denied, no io hook call. */
	memset(&log, 0, sizeof(log));
	enter_prot(&m, 3);
	assert_fault(RUN(&m, 0x66, 0xba, 0x80, 0x00, 0xec, 0xf4), EXC_GP, 0);
	ck_assert_uint_eq(log.io, 0);

	/* A hook that exits: the instruction has no effect and the run ends. */
	memset(&log, 0, sizeof(log));
	log.exit_on_io = true;
	enter_prot(&m, 0);
	struct outcome o = RUN(&m, 0x66, 0xba, 0x80, 0x00, 0xec, 0xf4);
	ck_assert_int_eq(o.st, ST_STOP);
	ck_assert_uint_eq(m.reads, 1);                     /* only the first run's IN */
	machine_free(&m);
}
END_TEST

START_TEST(rep_insb_16bit_wrap)
{
	struct machine m;
	machine_init(&m, "core2");
	m.in_next = 0x11;
	/* mov di,0ffffh; mov cx,2; mov dx,80h; rep insb; hlt: DI wraps at 16 bits */
	assert_ok(RUN(&m, 0xbf, 0xff, 0xff, 0xb9, 0x02, 0x00, 0xba, 0x80, 0x00, 0xf3, 0x6c, 0xf4));
	ck_assert_uint_eq(physmem_read(&m.pm, 0xffff, 1), 0x11);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x0000, 1), 0x12);
	ck_assert_uint_eq(m.cpu.regs[R_DI] & 0xffff, 1);
	ck_assert_uint_eq(m.cpu.regs[R_CX] & 0xffff, 0);
	machine_free(&m);
}
END_TEST

static Suite *system_suite(void)
{
	Suite *s = suite_create("system");
	TCase *t = tcase_create("identification");
	tcase_add_test(t, cpuid_vendor);
	tcase_add_test(t, cpuid_osxsave_follows_cr4);
	tcase_add_test(t, stac_clac_rules);
	tcase_add_test(t, fwait_pending_x87_exception);
	tcase_add_test(t, rdtsc_deterministic);
	suite_add_tcase(s, t);
	t = tcase_create("descriptor_tables");
	tcase_add_test(t, lgdt_operand_size);
	tcase_add_test(t, ltr_sets_busy);
	tcase_add_test(t, lldt_checks);
	tcase_add_test(t, prot_only_in_real_mode);
	tcase_add_test(t, lar_lsl_verr_verw);
	tcase_add_test(t, arpl_adjusts);
	suite_add_tcase(s, t);
	t = tcase_create("control_regs");
	tcase_add_test(t, cr0_invalid_combinations);
	tcase_add_test(t, cr4_reserved_and_de);
	tcase_add_test(t, debug_registers);
	tcase_add_test(t, lmsw_smsw);
	tcase_add_test(t, rdpmc_counters);
	tcase_add_test(t, privileged_at_cpl3);
	suite_add_tcase(s, t);
	t = tcase_create("flags");
	tcase_add_test(t, flag_instructions);
	tcase_add_test(t, sti_shadow_and_cli);
	tcase_add_test(t, popf_user_iopl0);
	suite_add_tcase(s, t);
	t = tcase_create("sysenter");
	tcase_add_test(t, sysenter_sysexit);
	suite_add_tcase(s, t);
	t = tcase_create("msr");
	tcase_add_test(t, msr_sets_per_vendor);
	suite_add_tcase(s, t);
	t = tcase_create("io");
	tcase_add_test(t, in_out_basic);
	tcase_add_test(t, rep_ins_outs);
	tcase_add_test(t, io_bitmap_user);
	tcase_add_test(t, out_stops_machine);
	tcase_add_test(t, rep_insb_16bit_wrap);
	suite_add_tcase(s, t);
	t = tcase_create("v86");
	tcase_add_test(t, v86_iopl_sensitive);
	suite_add_tcase(s, t);
	t = tcase_create("hooks");
	tcase_add_test(t, hooks_called_in_order);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(system_suite());
}
