/* The shared unit-test machine (machine_fixture.h). */
#include "machine_fixture.h"

#include <string.h>

#include "emu/hv.h"
#include "emu/icache.h"
#include "emu/insn.h"

uint64_t make_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)(flags & 0xf) << 52) |
	       ((uint64_t)(base >> 24) << 56);
}

const struct cpu_model *model_named(const char *name)
{
	const struct cpu_model *cm = cpu_model_find(name);
	ck_assert_ptr_nonnull(cm);
	return cm;
}

void machine_init_bare(struct test_machine *m, const struct cpu_model *model, uint32_t ram_size)
{
	ck_assert(bare_machine_init(m, model, ram_size));
	/* A test's code runs once or a few times: translated from its first
	 * entry, so that every test meets the translator (emu/jit.h). */
	m->cpu.icache->jit_hot = 1;
}

void machine_init_model(struct test_machine *m, const struct cpu_model *model)
{
	machine_init_bare(m, model, RAM_SIZE);
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

void machine_init(struct test_machine *m, const char *model)
{
	machine_init_model(m, model_named(model));
}

void machine_free(struct test_machine *m)
{
	bare_machine_destroy(m);
}

status_t exec(struct test_machine *m, const uint8_t *bytes, unsigned len)
{
	struct insn in;
	struct cpu *c = &m->cpu;
	memset(&in, 0, sizeof(in));
	int n = decode_insn(bytes, len, cpu_code_size(c), &in);
	if (n > 0)
		(void)insn_gate(c, &in);
	ck_assert_int_eq(n, (int)len);
	c->event.pending = false;
	c->insn_start = c->rip;
	c->rip += (unsigned)n;
	return in.exec(c, &in);
}

status_t wrmsr(struct test_machine *m, uint32_t idx, uint64_t v)
{
	m->cpu.regs[R_CX] = idx;
	m->cpu.regs[R_AX] = (uint32_t)v;
	m->cpu.regs[R_DX] = v >> 32;
	return EXEC(m, 0x0f, 0x30);                       /* wrmsr */
}

status_t mov_cr(struct test_machine *m, unsigned cr, uint64_t v)
{
	/* mov crN, eax/rax: 64-bit operand in 64-bit mode (SDM Vol.2 MOV CR). */
	m->cpu.regs[R_AX] = v;
	return exec(m, (const uint8_t[]){ 0x0f, 0x22, (uint8_t)(0xc0 | cr << 3) }, 3);
}

void activate_ia32e(struct test_machine *m, uint64_t cr4, uint64_t cr3)
{
	ck_assert_int_eq(mov_cr(m, 4, cr4), ST_OK);
	ck_assert_int_eq(mov_cr(m, 3, cr3), ST_OK);
	ck_assert_int_eq(wrmsr(m, MSR_EFER, EFER_LME | EFER_SCE), ST_OK);
	ck_assert_int_eq(mov_cr(m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
}

void activate(struct test_machine *m)
{
	activate_ia32e(m, CR4_PAE, PML4);
}

void load_cs(struct test_machine *m, uint16_t sel)
{
	seg_load_descriptor(&m->cpu.seg[SR_CS], sel, physmem_read(&m->pm, GDT_BASE + sel, 8));
}

void switch_cs(struct test_machine *m, uint16_t sel)
{
	load_cs(m, sel);
	cpu_update_mode(&m->cpu);
}

void to64(struct test_machine *m)
{
	switch_cs(m, SEL_CODE64);
}

void to_compat(struct test_machine *m)
{
	switch_cs(m, SEL_CODE32);
}

/* A hypervisor model that takes every exception and interrupt as an exit and
 * lets everything else run. */
static status_t stop_at_event(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	if (rec->kind != IK_EXCEPTION && rec->kind != IK_INTR && rec->kind != IK_NMI)
		return ST_OK;
	*(struct event *)ctx = rec->event;
	cpu_request_stop(cpu);     /* a VM exit continues in the run loop: end the run */
	return ST_VMEXIT;
}

void stop_at_events(struct test_machine *m, struct event *seen)
{
	static const struct hv_model model = { .name = "stop-at-events", .intercept = stop_at_event };
	m->cpu.hv = &model;
	m->cpu.hv_ctx = seen;
	m->cpu.in_guest = true;
}

void assert_fault(struct test_machine *m, status_t st, unsigned vector, uint32_t error)
{
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m->cpu.event.vector, vector);
	ck_assert_uint_eq(m->cpu.event.error_code, error);
}

void assert_gp0(struct test_machine *m, status_t st)
{
	assert_fault(m, st, EXC_GP, 0);
}

void assert_ud(struct test_machine *m, status_t st)
{
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m->cpu.event.vector, EXC_UD);
}
