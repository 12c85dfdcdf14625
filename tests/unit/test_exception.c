/* Check suite for event delivery and far transfers (emu/exception.c, emu/far.c,
 * emu/segload.c): a CPU on a fake physical memory, flat GDT/IDT/TSS built by
 * hand, and the stack frames the SDM prescribes (SDM Vol.3 6.12, 6.13, 6.15,
 * 20.1.4, 20.3.1; SDM Vol.2 INT n, IRET, CALL, RET). No paging: linear =
 * physical. */
#include <check.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/insn.h"
#include "emu/segload.h"
#include "isa_handlers.h"
#include "suite_runner.h"
#include "desc_encode.h"

/* Memory map. */
enum {
	GDT = 0x1000, IDT = 0x2000, TSS = 0x3000, CODE3 = 0x4000, HANDLER = 0x5000,
	STACK3 = 0x7000, STACK0 = 0x9000,
};
/* Selectors. */
enum {
	CS0 = 0x08, DS0 = 0x10, CS3 = 0x1b, DS3 = 0x23, TSS_SEL = 0x28, GATE_SEL = 0x33,
	CS0_NP = 0x38, CS0_CONF = 0x40, DS1 = 0x49,
};

static struct physmem pm;
static struct iobus io;
static struct cpu cpu;

static void set_gdt(unsigned sel, uint64_t d) { physmem_write(&pm, GDT + (sel & ~7u), 8, d); }
static void set_idt(unsigned vec, uint64_t g) { physmem_write(&pm, IDT + vec * 8, 8, g); }
static uint64_t rd(uint64_t pa, unsigned size) { return physmem_read(&pm, pa, size); }

static void load(enum sreg sr, uint16_t sel)
{
	seg_load_descriptor(&cpu.seg[sr], sel, rd(GDT + (sel & ~7u), 8));
}

static void setup(void)
{
	ck_assert(physmem_init(&pm, 1 << 20));
	iobus_init(&io);
	cpu_init(&cpu, NULL, &pm, &io);
}

static void teardown(void)
{
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
}

/* Protected mode at privilege cpl with flat segments, a 32-bit TSS giving
 * SS0:ESP0 = DS0:STACK0 and SS1:ESP1 = DS1:STACK0-0x400, and every IDT
 * vector an interrupt gate to CS0:HANDLER+vector. */
static void prot_mode(unsigned cpl)
{
	set_gdt(CS0, mkdesc(0, 0xfffff, 0xb, true, 0, true, true, true));
	set_gdt(DS0, mkdesc(0, 0xfffff, 0x3, true, 0, true, true, true));
	set_gdt(CS3, mkdesc(0, 0xfffff, 0xb, true, 3, true, true, true));
	set_gdt(DS3, mkdesc(0, 0xfffff, 0x3, true, 3, true, true, true));
	set_gdt(TSS_SEL, mkdesc(TSS, 0x67, SYS_TSS32_BUSY, false, 0, true, false, false));
	set_gdt(CS0_NP, mkdesc(0, 0xfffff, 0xb, true, 0, false, true, true));
	set_gdt(CS0_CONF, mkdesc(0, 0xfffff, 0xf, true, 0, true, true, true));
	set_gdt(DS1, mkdesc(0, 0xfffff, 0x3, true, 1, true, true, true));
	physmem_write(&pm, TSS + 4, 4, STACK0);
	physmem_write(&pm, TSS + 8, 2, DS0);
	physmem_write(&pm, TSS + 12, 4, STACK0 - 0x400);
	physmem_write(&pm, TSS + 16, 2, DS1);
	for (unsigned v = 0; v < 256; v++)
		set_idt(v, mkgate(CS0, HANDLER + v, SYS_INT_GATE32, 0, true, 0));
	cpu.gdtr = (struct dtr){ GDT, 0x7f };
	cpu.idtr = (struct dtr){ IDT, 0x7ff };
	seg_load_descriptor(&cpu.tr, TSS_SEL, rd(GDT + TSS_SEL, 8));
	cpu.cr0 |= CR0_PE;
	uint16_t cs = cpl ? CS3 : CS0, ds = cpl ? DS3 : DS0;
	load(SR_CS, cs);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			load((enum sreg)s, ds);
	cpu.cpl = (uint8_t)cpl;
	cpu_set_flags(&cpu, FLAG_IF | FLAG_CF);
	cpu.regs[R_SP] = cpl ? STACK3 : STACK0;
	cpu.rip = cpu.insn_start = CODE3;
	cpu_update_mode(&cpu);
}

/* ---- real mode (SDM Vol.3 20.1.4) ---- */

START_TEST(real_gp_frame)
{
	physmem_write(&pm, 13 * 4, 4, 0x10000010);      /* IVT[13] = 1000:0010 */
	cpu.idtr = (struct dtr){ 0, 0x3ff };
	cpu.rip = 0x1234;
	seg_load_real(&cpu.seg[SR_CS], 0x2000);
	cpu.regs[R_SP] = 0x8000;
	cpu_set_flags(&cpu, FLAG_IF | FLAG_TF | FLAG_ZF);
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0x55), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, 0x1000);
	ck_assert_uint_eq(cpu.seg[SR_CS].base, 0x10000);
	ck_assert_uint_eq(cpu.rip, 0x10);
	ck_assert_uint_eq(cpu.regs[R_SP], 0x7ffa);          /* no error code in real mode */
	ck_assert_uint_eq(rd(0x7ffa, 2), 0x1234);
	ck_assert_uint_eq(rd(0x7ffc, 2), 0x2000);
	ck_assert_uint_eq(rd(0x7ffe, 2), FLAG_IF | FLAG_TF | FLAG_ZF | FLAG_FIXED1);
	ck_assert_uint_eq(cpu_get_flags(&cpu) & (FLAG_IF | FLAG_TF), 0);
	ck_assert(cpu_get_flags(&cpu) & FLAG_ZF);
}
END_TEST

START_TEST(real_ivt_limit_double_fault)
{
	/* IVT limit covers vectors 0-12 only: #GP cannot be delivered, #GP while
	 * delivering #GP is contributory/contributory: #DF through IVT[8]. */
	physmem_write(&pm, 8 * 4, 4, 0x30000040);
	cpu.idtr = (struct dtr){ 0, 13 * 4 - 1 };
	cpu.regs[R_SP] = 0x8000;
	cpu.rip = 0x100;
	ck_assert_int_eq(cpu_raise(&cpu, EXC_GP), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, 0x3000);
	ck_assert_uint_eq(cpu.rip, 0x40);
	ck_assert_uint_eq(rd(0x7ffa, 2), 0x100);
}
END_TEST

START_TEST(real_ivt_limit_triple_fault)
{
	cpu.idtr = (struct dtr){ 0, 8 * 4 - 1 };          /* not even #DF */
	cpu.regs[R_SP] = 0x8000;
	ck_assert_int_eq(cpu_raise(&cpu, EXC_GP), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_SHUTDOWN);
}
END_TEST

START_TEST(real_int_n_and_iret)
{
	physmem_write(&pm, 0x21 * 4, 4, 0x20000300);
	cpu.idtr = (struct dtr){ 0, 0x3ff };
	seg_load_real(&cpu.seg[SR_CS], 0x1000);
	cpu.regs[R_SP] = 0x8000;
	cpu_set_flags(&cpu, FLAG_IF | FLAG_CF);
	cpu.insn_start = 0x50;
	cpu.rip = 0x52;
	struct insn in = { .imm = 0x21, .osize = 2 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, 0x2000);
	ck_assert_uint_eq(cpu.rip, 0x300);
	ck_assert_uint_eq(rd(0x7ffa, 2), 0x52);              /* INT n: the next instruction */
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, 0x1000);
	ck_assert_uint_eq(cpu.rip, 0x52);
	ck_assert_uint_eq(cpu.regs[R_SP], 0x8000);
	ck_assert_uint_eq(cpu_get_flags(&cpu), FLAG_IF | FLAG_CF | FLAG_FIXED1);
}
END_TEST

/* ---- protected mode ---- */

START_TEST(prot_same_level_frame)
{
	prot_mode(0);
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0x28), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 16);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 0x28);          /* error code */
	ck_assert_uint_eq(rd(STACK0 - 12, 4), CODE3);
	ck_assert_uint_eq(rd(STACK0 - 8, 4), CS0);
	/* SDM Vol.3 17.3.1.1: a fault pushes RF=1. */
	ck_assert_uint_eq(rd(STACK0 - 4, 4), FLAG_IF | FLAG_CF | FLAG_RF | FLAG_FIXED1);
	ck_assert_uint_eq(cpu_get_flags(&cpu) & (FLAG_IF | FLAG_RF), 0);   /* interrupt gate */
	/* The accessed bit of the handler's CS was set in the GDT. */
	ck_assert(rd(GDT + CS0 + 5, 1) & 1);
}
END_TEST

START_TEST(prot_trap_gate_keeps_if)
{
	prot_mode(0);
	set_idt(3, mkgate(CS0, HANDLER, SYS_TRAP_GATE32, 3, true, 0));
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 1;
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_int3(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 12);      /* no error code */
	ck_assert_uint_eq(rd(STACK0 - 12, 4), CODE3 + 1);     /* trap: next instruction */
	ck_assert_uint_eq(rd(STACK0 - 4, 4), FLAG_IF | FLAG_CF | FLAG_FIXED1);  /* no RF */
	ck_assert(cpu_get_flags(&cpu) & FLAG_IF);
}
END_TEST

START_TEST(prot_16bit_gate)
{
	prot_mode(0);
	set_idt(13, mkgate(CS0, 0x12345678, SYS_INT_GATE16, 0, true, 0));
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0x10), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, 0x5678);                   /* 16-bit offset */
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 8);
	ck_assert_uint_eq(rd(STACK0 - 8, 2), 0x10);
	ck_assert_uint_eq(rd(STACK0 - 6, 2), CODE3);
	ck_assert_uint_eq(rd(STACK0 - 4, 2), CS0);
}
END_TEST

START_TEST(prot_ring3_stack_switch_and_iret)
{
	prot_mode(3);
	cpu.regs[R_AX] = 0;
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 0);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS0);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 24);
	ck_assert_uint_eq(rd(STACK0 - 24, 4), 0);             /* error code */
	ck_assert_uint_eq(rd(STACK0 - 20, 4), CODE3);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), CS3);
	ck_assert_uint_eq(rd(STACK0 - 12, 4) & ~(uint64_t)FLAG_RF, FLAG_IF | FLAG_CF | FLAG_FIXED1);
	ck_assert_uint_eq(rd(STACK0 - 8, 4), STACK3);
	ck_assert_uint_eq(rd(STACK0 - 4, 4), DS3);
	ck_assert_uint_eq(cpu.seg[SR_DS].selector, DS3);      /* data segments untouched */

	/* The handler drops the error code and IRETs back to ring 3. */
	cpu.regs[R_SP] += 4;
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.rip, CODE3);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS3);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3);
	ck_assert(cpu_get_flags(&cpu) & FLAG_IF);
}
END_TEST

START_TEST(iret_outer_nulls_inner_data_segments)
{
	/* SDM Vol.2 IRET: on a return to an outer level DS/ES/FS/GS holding data
	 * segments with DPL < the new CPL become null. */
	prot_mode(0);
	load(SR_FS, DS3);
	cpu.regs[R_SP] = STACK0 - 20;
	physmem_write(&pm, STACK0 - 20, 4, CODE3);
	physmem_write(&pm, STACK0 - 16, 4, CS3);
	physmem_write(&pm, STACK0 - 12, 4, FLAG_IF | FLAG_IOPL | FLAG_FIXED1);
	physmem_write(&pm, STACK0 - 8, 4, STACK3);
	physmem_write(&pm, STACK0 - 4, 4, DS3);
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.seg[SR_DS].selector, 0);
	ck_assert(!(cpu.seg[SR_DS].attr & SEG_P));
	ck_assert_uint_eq(cpu.seg[SR_ES].selector, 0);
	ck_assert_uint_eq(cpu.seg[SR_FS].selector, DS3);      /* DPL 3 survives */
	ck_assert_uint_eq((cpu_get_flags(&cpu) & FLAG_IOPL), FLAG_IOPL);   /* CPL 0 may set IOPL */
}
END_TEST

START_TEST(iret_cpl3_cannot_change_iopl_or_if)
{
	prot_mode(3);
	cpu_set_flags(&cpu, 0);                               /* IOPL 0, IF 0 */
	cpu.regs[R_SP] = STACK3 - 12;
	physmem_write(&pm, STACK3 - 12, 4, CODE3 + 8);
	physmem_write(&pm, STACK3 - 8, 4, CS3);
	physmem_write(&pm, STACK3 - 4, 4, FLAG_IF | FLAG_IOPL | FLAG_CF | FLAG_FIXED1);
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, CODE3 + 8);
	ck_assert_uint_eq(cpu_get_flags(&cpu), FLAG_CF | FLAG_FIXED1);
}
END_TEST

START_TEST(int_n_gate_dpl)
{
	/* SDM Vol.3 6.12.1.1: INT n at CPL 3 through a DPL-0 gate is
	 * #GP(vector*8+2), EXT=0, reported at the INT instruction. */
	prot_mode(3);
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 2;
	struct insn in = { .imm = 0x80, .osize = 4 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(rd(STACK0 - 24, 4), 0x80 * 8 + 2);
	ck_assert_uint_eq(rd(STACK0 - 20, 4), CODE3);
}
END_TEST

START_TEST(int_n_dpl3_gate)
{
	prot_mode(3);
	set_idt(0x80, mkgate(CS0, HANDLER + 0x80, SYS_TRAP_GATE32, 3, true, 0));
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 2;
	struct insn in = { .imm = 0x80, .osize = 4 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 0x80);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 20);      /* no error code */
	ck_assert_uint_eq(rd(STACK0 - 20, 4), CODE3 + 2);
}
END_TEST

START_TEST(int1_ignores_gate_dpl)
{
	prot_mode(3);
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 1;
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_int1(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 1);
	ck_assert_uint_eq(rd(STACK0 - 20, 4), CODE3 + 1);
}
END_TEST

START_TEST(into_only_with_of)
{
	prot_mode(0);
	struct insn in = { .osize = 4 };
	cpu.rip = CODE3 + 1;
	ck_assert_int_eq(op_into(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, CODE3 + 1);                /* OF=0: nothing */
	cpu_set_flags(&cpu, FLAG_OF);
	ck_assert_int_eq(op_into(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 4);
}
END_TEST

START_TEST(gate_not_present_ext)
{
	/* #UD with its gate not present: #NP(6*8 + IDT + EXT). */
	prot_mode(0);
	set_idt(6, mkgate(CS0, HANDLER, SYS_INT_GATE32, 0, false, 0));
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 11);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 6 * 8 + 3);
}
END_TEST

START_TEST(gate_bad_type_and_limit)
{
	prot_mode(0);
	set_idt(6, mkgate(CS0, HANDLER, SYS_CALL_GATE32, 0, true, 0));   /* not an IDT type */
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 6 * 8 + 3);

	prot_mode(0);
	cpu.idtr.limit = 0x40 * 8 - 1;
	struct insn in = { .imm = 0x40, .osize = 4 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);          /* software: EXT = 0 */
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 0x40 * 8 + 2);
}
END_TEST

START_TEST(target_cs_checks)
{
	prot_mode(0);
	set_idt(0x30, mkgate(CS0_NP, HANDLER, SYS_INT_GATE32, 0, true, 0));
	cpu.event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = 0x30 };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 11);             /* #NP(sel + EXT) */
	ck_assert_uint_eq(rd(STACK0 - 16, 4), CS0_NP | 1);

	prot_mode(0);
	set_idt(0x31, mkgate(DS0, HANDLER, SYS_INT_GATE32, 0, true, 0));
	cpu.event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = 0x31 };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);             /* data segment: #GP(sel + EXT) */
	ck_assert_uint_eq(rd(STACK0 - 16, 4), DS0 | 1);

	prot_mode(0);
	set_idt(0x32, mkgate(0, HANDLER, SYS_INT_GATE32, 0, true, 0));
	cpu.event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = 0x32 };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);             /* null: #GP(EXT) */
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 1);
}
END_TEST

START_TEST(double_fault_then_triple)
{
	/* #GP whose gate is not present: #NP while delivering #GP is
	 * contributory/contributory: #DF with error code 0 (SDM Vol.3 6.15). */
	prot_mode(0);
	set_idt(13, mkgate(CS0, HANDLER, SYS_INT_GATE32, 0, false, 0));
	cpu.rip = CODE3;
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0x18), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 8);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 0);
	ck_assert_uint_eq(rd(STACK0 - 12, 4), CODE3);
	ck_assert_uint_eq(cpu.delivering, 0);

	/* And with #DF not deliverable either: shutdown. */
	prot_mode(0);
	set_idt(13, mkgate(CS0, HANDLER, SYS_INT_GATE32, 0, false, 0));
	set_idt(8, mkgate(CS0, HANDLER, SYS_INT_GATE32, 0, false, 0));
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_SHUTDOWN);
}
END_TEST

START_TEST(benign_then_contributory_is_serial)
{
	/* #UD (benign) whose delivery faults with #NP: the #NP is delivered. And
	 * #PF then #NP is a double fault. */
	prot_mode(0);
	set_idt(6, mkgate(CS0_NP, HANDLER, SYS_INT_GATE32, 0, true, 0));
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 11);

	prot_mode(0);
	set_idt(14, mkgate(CS0_NP, HANDLER, SYS_INT_GATE32, 0, true, 0));
	struct fault f = fault_make(EXC_PF, 2);
	f.address = 0xdead000;
	ck_assert_int_eq(cpu_raise_fault(&cpu, &f), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 8);
	ck_assert_uint_eq(cpu.cr2, 0xdead000);
}
END_TEST

/* Identity 32-bit paging of the first 4 MiB (PD 20000H, PT 21000H), every
 * page present and writable but the one at not_present. */
static void paging_without(uint32_t not_present)
{
	enum { PD = 0x20000, PT = 0x21000 };
	physmem_write(&pm, PD, 4, PT | 3);
	for (uint32_t i = 0; i < 1024; i++)
		physmem_write(&pm, PT + 4 * i, 4, i << 12 == not_present ? 0 : (i << 12) | 3);
	cpu.cr3 = PD;
	cpu.cr0 |= CR0_PG;
	tlb_flush_all(&cpu.tlb);
}

START_TEST(pf_during_pf_delivery_sets_cr2)
{
	/* The #PF gate lies on a not-present page, the #DF gate on the present one
	 * before it: reading gate 14 page-faults, #PF then #PF is #DF (Table 6-5),
	 * and CR2 holds the gate's address, the second fault's (SDM Vol.3 6.15,
	 * the CR2 footnote of "Interrupt 14"). */
	enum { GATES = 0x6000 - 8 * 9 };          /* gate 8 at 5FF8H, gate 14 at 6028H */
	prot_mode(0);
	physmem_write(&pm, GATES + 8 * 8, 8, mkgate(CS0, HANDLER + 8, SYS_INT_GATE32, 0, true, 0));
	physmem_write(&pm, GATES + 14 * 8, 8, mkgate(CS0, HANDLER + 14, SYS_INT_GATE32, 0, true, 0));
	cpu.idtr = (struct dtr){ GATES, 0xff };
	paging_without(0x6000);
	struct fault f = fault_make(EXC_PF, 2);
	f.address = 0xdead000;
	ck_assert_int_eq(cpu_raise_fault(&cpu, &f), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 8);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 0);            /* #DF's error code */
	ck_assert_uint_eq(cpu.cr2, GATES + 14 * 8);
}
END_TEST

START_TEST(tss_stack_checks)
{
	/* A software INT from ring 3 whose TSS SS0 has the wrong RPL: #TS(SS0)
	 * with EXT=0, delivered through a conforming ring-0 handler on the ring-3
	 * stack. A hardware interrupt instead gets EXT=1. */
	prot_mode(3);
	physmem_write(&pm, TSS + 8, 2, DS3);
	set_idt(0x80, mkgate(CS0, HANDLER, SYS_INT_GATE32, 3, true, 0));
	set_idt(10, mkgate(CS0_CONF, HANDLER + 10, SYS_INT_GATE32, 0, true, 0));
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 2;
	struct insn in = { .imm = 0x80, .osize = 4 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 10);
	ck_assert_uint_eq(cpu.cpl, 3);                         /* conforming: CPL kept */
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS0_CONF | 3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3 - 16);
	ck_assert_uint_eq(rd(STACK3 - 16, 4), DS3 & ~3u);
	ck_assert_uint_eq(rd(STACK3 - 12, 4), CODE3);          /* the INT instruction */

	prot_mode(3);
	physmem_write(&pm, TSS + 8, 2, 0);                      /* null SS0 */
	set_idt(10, mkgate(CS0_CONF, HANDLER + 10, SYS_INT_GATE32, 0, true, 0));
	cpu.event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = 0x20 };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 10);
	ck_assert_uint_eq(rd(STACK3 - 16, 4), 1);              /* #TS(0 + EXT) */

	prot_mode(3);
	cpu.tr.limit = 0x8;                                     /* ESP0/SS0 beyond the limit */
	set_idt(10, mkgate(CS0_CONF, HANDLER + 10, SYS_INT_GATE32, 0, true, 0));
	cpu.event = (struct event){ .pending = true, .type = EV_EXTINT, .vector = 0x20 };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(rd(STACK3 - 16, 4), TSS_SEL | 1);    /* #TS(TR + EXT) */
}
END_TEST

START_TEST(v86_interrupt_frame_and_iret)
{
	prot_mode(0);
	cpu_set_flags(&cpu, FLAG_VM | FLAG_IF | FLAG_IOPL);
	seg_load_v86(&cpu.seg[SR_CS], 0x1000);
	seg_load_v86(&cpu.seg[SR_SS], 0x2000);
	seg_load_v86(&cpu.seg[SR_DS], 0x3000);
	seg_load_v86(&cpu.seg[SR_ES], 0x4000);
	seg_load_v86(&cpu.seg[SR_FS], 0x5000);
	seg_load_v86(&cpu.seg[SR_GS], 0x6000);
	cpu.regs[R_SP] = 0xfff0;
	cpu.rip = 0x123;
	cpu_update_mode(&cpu);
	ck_assert_int_eq(cpu.mode, MODE_V86);
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_int_eq(cpu.mode, MODE_PROT);
	ck_assert_uint_eq(cpu.cpl, 0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 40);
	static const uint32_t want[] = { 0, 0x123, 0x1000, 0, 0xfff0, 0x2000, 0x4000, 0x3000,
					 0x5000, 0x6000 };
	for (unsigned i = 0; i < 10; i++)
		if (i != 3)
			ck_assert_uint_eq(rd(STACK0 - 40 + 4 * i, 4), want[i]);
	ck_assert(rd(STACK0 - 28, 4) & FLAG_VM);
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS && s != SR_SS) {
			ck_assert_uint_eq(cpu.seg[s].selector, 0);
			ck_assert(!(cpu.seg[s].attr & SEG_P));
		}

	cpu.regs[R_SP] += 4;
	struct insn in = { .osize = 4 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_int_eq(cpu.mode, MODE_V86);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.rip, 0x123);
	ck_assert_uint_eq(cpu.regs[R_SP], 0xfff0);
	ck_assert_uint_eq(cpu.seg[SR_DS].base, 0x30000);
	ck_assert_uint_eq(cpu.seg[SR_GS].selector, 0x6000);
	ck_assert_uint_eq(cpu.seg[SR_CS].attr, 0xf3);
}
END_TEST

START_TEST(v86_int_n_iopl)
{
	prot_mode(0);
	cpu_set_flags(&cpu, FLAG_VM);                          /* IOPL 0 */
	for (unsigned s = 0; s < SR_COUNT; s++)
		seg_load_v86(&cpu.seg[s], 0x1000);
	cpu_update_mode(&cpu);
	struct insn in = { .imm = 0x21, .osize = 2 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, 0);
}
END_TEST

/* ---- IA-32e mode (SDM Vol.3 6.14) ---- */

enum { LCS0 = 0x50, LCS3 = 0x5b, IST1 = 0xa000 };

/* 64-bit gate, 16 bytes. */
static void set_idt64(unsigned vec, uint16_t sel, uint64_t off, unsigned type, unsigned dpl,
		      unsigned ist)
{
	uint64_t lo = (off & 0xffff) | (uint64_t)sel << 16 | (uint64_t)(ist & 7) << 32 |
		      (uint64_t)type << 40 | (uint64_t)dpl << 45 | 1ull << 47 |
		      ((off >> 16) & 0xffff) << 48;
	physmem_write(&pm, IDT + vec * 16, 8, lo);
	physmem_write(&pm, IDT + vec * 16 + 8, 8, off >> 32);
}

/* 64-bit mode at CPL cpl (no paging: linear = physical, which the memory path
 * allows; the point is the delivery logic), 64-bit TSS with RSP0 and IST1. */
static void long_mode(unsigned cpl)
{
	prot_mode(cpl);
	uint64_t l = 1ull << 53;
	set_gdt(LCS0, mkdesc(0, 0xfffff, 0xb, true, 0, true, false, true) | l);
	set_gdt(LCS3, mkdesc(0, 0xfffff, 0xb, true, 3, true, false, true) | l);
	physmem_write(&pm, TSS + 4, 8, STACK0 + 8);             /* RSP0, not aligned */
	physmem_write(&pm, TSS + 36, 8, IST1);                  /* IST1 */
	for (unsigned v = 0; v < 32; v++)
		set_idt64(v, LCS0, HANDLER + v, SYS_INT_GATE32, 0, 0);
	cpu.idtr = (struct dtr){ IDT, 32 * 16 - 1 };
	cpu.efer |= EFER_LME | EFER_LMA;
	load(SR_CS, cpl ? LCS3 : LCS0);
	cpu.regs[R_SP] = (cpl ? STACK3 : STACK0) + 8;
	cpu_update_mode(&cpu);
	ck_assert_int_eq(cpu.mode, MODE_LONG64);
}

START_TEST(long_ring3_frame_and_iretq)
{
	long_mode(3);
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_GP, 0x10), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 0);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, LCS0);
	/* SS is null with RPL = new CPL; RSP aligned down to 16 first. */
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, 0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 48);
	ck_assert_uint_eq(rd(STACK0 - 48, 8), 0x10);
	ck_assert_uint_eq(rd(STACK0 - 40, 8), CODE3);
	ck_assert_uint_eq(rd(STACK0 - 32, 8), LCS3);
	ck_assert_uint_eq(rd(STACK0 - 16, 8), STACK3 + 8);
	ck_assert_uint_eq(rd(STACK0 - 8, 8), DS3);

	cpu.regs[R_SP] += 8;
	struct insn in = { .osize = 8 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_int_eq(cpu.mode, MODE_LONG64);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.rip, CODE3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3 + 8);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS3);
}
END_TEST

START_TEST(return_outward_nullify_keeps_base)
{
	/* IRETQ and RETF to CPL 3 make a null GS (its base written as WRMSR
	 * GS_BASE would) and a DPL-0 DS null again: the selector is 0 and the
	 * register unusable, the base stays (emu/segload.c seg_nullify(): SDM
	 * Vol.2 IRET/RET name the selector only; kvm-unit-tests "Test ret/iret
	 * with a nullified segment"), on the Intel and the AMD models alike. */
	static const char *const models[] = { "skylake-lite", "epyc-lite" };
	for (unsigned m = 0; m < 2; m++)
		for (unsigned retf = 0; retf < 2; retf++) {
			long_mode(0);
			cpu.model = cpu_model_find(models[m]);
			ck_assert_ptr_nonnull(cpu.model);
			seg_load_null(&cpu.seg[SR_GS], 0);
			cpu.seg[SR_GS].base = 0x400000;
			cpu.seg[SR_DS].base = 0x1234000;      /* kept too, unused in 64-bit mode */
			uint64_t sp = STACK0 - 40;
			cpu.regs[R_SP] = sp;
			physmem_write(&pm, sp, 8, CODE3);
			physmem_write(&pm, sp + 8, 8, LCS3);
			unsigned at = retf ? 16 : 24;        /* RETF: RIP, CS, RSP, SS; IRET: RFLAGS too */
			if (!retf)
				physmem_write(&pm, sp + 16, 8, FLAG_IF | FLAG_FIXED1);
			physmem_write(&pm, sp + at, 8, STACK3);
			physmem_write(&pm, sp + at + 8, 8, DS3);
			struct insn in = { .osize = 8 };
			ck_assert_int_eq(retf ? op_ret_far(&cpu, &in) : op_iret(&cpu, &in), ST_OK);
			ck_assert_uint_eq(cpu.cpl, 3);
			ck_assert_uint_eq(cpu.seg[SR_GS].selector, 0);
			ck_assert(!(cpu.seg[SR_GS].attr & SEG_P));
			ck_assert_msg(cpu.seg[SR_GS].base == 0x400000, "%s %s: GS.base %llx", models[m],
				      retf ? "RETF" : "IRETQ", (unsigned long long)cpu.seg[SR_GS].base);
			ck_assert_uint_eq(cpu.seg[SR_DS].selector, 0);
			ck_assert(!(cpu.seg[SR_DS].attr & SEG_P));
			ck_assert_uint_eq(cpu.seg[SR_DS].base, 0x1234000);
		}
}
END_TEST

START_TEST(long_same_level_ist_and_iretq)
{
	/* IST switches stacks even without a privilege change; IRETQ at the same
	 * level pops SS:RSP, and a null SS is fine at CPL 0. */
	long_mode(0);
	set_idt64(2, LCS0, HANDLER + 2, SYS_INT_GATE32, 0, 1);
	seg_load_null(&cpu.seg[SR_SS], 0);
	cpu.event = (struct event){ .pending = true, .type = EV_NMI, .vector = EXC_NMI };
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 2);
	ck_assert_uint_eq(cpu.regs[R_SP], IST1 - 40);
	ck_assert_uint_eq(rd(IST1 - 16, 8), STACK0 + 8);
	ck_assert_uint_eq(rd(IST1 - 8, 8), 0);
	struct insn in = { .osize = 8 };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.rip, CODE3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 + 8);
	ck_assert(cpu_get_flags(&cpu) & FLAG_IF);
}
END_TEST

START_TEST(long_gate_checks)
{
	long_mode(0);
	/* A 32-bit-style handler segment (L=0) is #GP(sel + EXT). */
	set_idt64(6, CS0, HANDLER, SYS_INT_GATE32, 0, 0);
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + 13);
	ck_assert_uint_eq(rd(STACK0 - 48, 8), CS0 | 1);
	/* A 16-bit gate type is not valid in IA-32e mode: #GP(6*8+2+EXT). */
	long_mode(0);
	set_idt64(6, LCS0, HANDLER, SYS_INT_GATE16, 0, 0);
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(rd(STACK0 - 48, 8), 6 * 8 + 3);
}
END_TEST

START_TEST(long_call_gate_and_retfq)
{
	/* IA-32e call gate (16 bytes at 0x60): ring 3 -> ring 0, null SS with
	 * RPL 0, quadword frame, no parameter copy; RETFQ back to ring 3. */
	long_mode(3);
	enum { GATE64 = 0x63 };
	set_gdt(0x60, mkgate(LCS0, HANDLER, SYS_CALL_GATE32, 3, true, 0));
	set_gdt(0x68, 0);                                     /* upper: offset 63:32, type 0 */
	cpu.rip = CODE3 + 7;
	struct insn call = { .imm2 = GATE64, .osize = 8, .opcode = 0xff, .mem = false };
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 0);
	ck_assert_int_eq(cpu.mode, MODE_LONG64);
	ck_assert_uint_eq(cpu.rip, HANDLER);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, 0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 + 8 - 32);
	ck_assert_uint_eq(rd(STACK0 + 8 - 32, 8), CODE3 + 7);
	ck_assert_uint_eq(rd(STACK0 + 8 - 24, 8), LCS3);
	ck_assert_uint_eq(rd(STACK0 + 8 - 16, 8), STACK3 + 8);
	ck_assert_uint_eq(rd(STACK0 + 8 - 8, 8), DS3);
	struct insn ret = { .osize = 8, .opcode = 0xcb };
	ck_assert_int_eq(op_ret_far(&cpu, &ret), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.rip, CODE3 + 7);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3 + 8);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS3);

	/* A 16-bit call gate type is invalid in IA-32e mode: #GP(sel). */
	set_gdt(0x60, mkgate(LCS0, HANDLER, SYS_CALL_GATE16, 3, true, 0));
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, 0x60);
	/* Non-zero upper type field: #GP(sel). */
	set_gdt(0x60, mkgate(LCS0, HANDLER, SYS_CALL_GATE32, 3, true, 0));
	set_gdt(0x68, 1ull << 40);
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_FAULT);
	ck_assert_uint_eq(cpu.event.error_code, 0x60);
}
END_TEST

/* ---- far transfers ---- */

START_TEST(call_gate_inner_with_params_and_retf)
{
	prot_mode(3);
	set_gdt(GATE_SEL, mkgate(CS0, HANDLER, SYS_CALL_GATE32, 3, true, 2));
	cpu.regs[R_SP] = STACK3 - 8;
	physmem_write(&pm, STACK3 - 8, 4, 0x1111);             /* last pushed param */
	physmem_write(&pm, STACK3 - 4, 4, 0x2222);             /* first pushed param */
	cpu.insn_start = CODE3;
	cpu.rip = CODE3 + 7;
	struct insn call = { .imm = 0, .imm2 = GATE_SEL, .osize = 4, .opcode = 0x9a };
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 0);
	ck_assert_uint_eq(cpu.rip, HANDLER);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS0);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 24);
	ck_assert_uint_eq(rd(STACK0 - 24, 4), CODE3 + 7);
	ck_assert_uint_eq(rd(STACK0 - 20, 4), CS3);
	ck_assert_uint_eq(rd(STACK0 - 16, 4), 0x1111);
	ck_assert_uint_eq(rd(STACK0 - 12, 4), 0x2222);
	ck_assert_uint_eq(rd(STACK0 - 8, 4), STACK3 - 8);
	ck_assert_uint_eq(rd(STACK0 - 4, 4), DS3);

	struct insn ret = { .imm = 8, .osize = 4, .opcode = 0xca };
	ck_assert_int_eq(op_ret_far(&cpu, &ret), ST_OK);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.rip, CODE3 + 7);
	ck_assert_uint_eq(cpu.seg[SR_SS].selector, DS3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3);              /* parameters released */
}
END_TEST

START_TEST(call_gate_checks)
{
	prot_mode(3);
	struct insn call = { .imm2 = GATE_SEL, .osize = 4, .opcode = 0x9a };
	/* Gate DPL 0 < CPL 3: #GP(gate). */
	set_gdt(GATE_SEL, mkgate(CS0, HANDLER, SYS_CALL_GATE32, 0, true, 0));
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, GATE_SEL & ~3u);
	/* Not present: #NP(gate). */
	set_gdt(GATE_SEL, mkgate(CS0, HANDLER, SYS_CALL_GATE32, 3, false, 0));
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_NP);
	/* Target not present: #NP(target). */
	set_gdt(GATE_SEL, mkgate(CS0_NP, HANDLER, SYS_CALL_GATE32, 3, true, 0));
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_NP);
	ck_assert_uint_eq(cpu.event.error_code, CS0_NP);
	/* JMP through a gate to a more privileged non-conforming segment: #GP(target). */
	set_gdt(GATE_SEL, mkgate(CS0, HANDLER, SYS_CALL_GATE32, 3, true, 0));
	struct insn jmp = { .imm2 = GATE_SEL, .osize = 4, .opcode = 0xea };
	ck_assert_int_eq(op_jmp_far(&cpu, &jmp), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, CS0);
	/* Nothing changed. */
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS3);
}
END_TEST

START_TEST(far_jmp_direct)
{
	prot_mode(0);
	struct insn jmp = { .imm = 0x6000, .imm2 = CS0_CONF, .osize = 4, .opcode = 0xea };
	ck_assert_int_eq(op_jmp_far(&cpu, &jmp), ST_OK);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS0_CONF);
	ck_assert_uint_eq(cpu.rip, 0x6000);
	/* Non-conforming DPL 3 from CPL 0: #GP(sel). */
	jmp.imm2 = CS3;
	ck_assert_int_eq(op_jmp_far(&cpu, &jmp), ST_FAULT);
	ck_assert_uint_eq(cpu.event.error_code, CS3 & ~3u);
	/* Null: #GP(0); beyond the GDT: #GP(sel). */
	jmp.imm2 = 0;
	ck_assert_int_eq(op_jmp_far(&cpu, &jmp), ST_FAULT);
	ck_assert_uint_eq(cpu.event.error_code, 0);
	jmp.imm2 = 0x80;
	ck_assert_int_eq(op_jmp_far(&cpu, &jmp), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, 0x80);
	/* TSS targets (task switches) are tested in test_task.c. */
}
END_TEST

START_TEST(far_call_same_level_and_retf)
{
	prot_mode(0);
	cpu.rip = CODE3 + 7;
	struct insn call = { .imm = 0x6000, .imm2 = CS0, .osize = 4, .opcode = 0x9a };
	ck_assert_int_eq(op_call_far(&cpu, &call), ST_OK);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0 - 8);
	ck_assert_uint_eq(rd(STACK0 - 8, 4), CODE3 + 7);
	ck_assert_uint_eq(rd(STACK0 - 4, 4), CS0);
	struct insn ret = { .osize = 4, .opcode = 0xcb };
	ck_assert_int_eq(op_ret_far(&cpu, &ret), ST_OK);
	ck_assert_uint_eq(cpu.rip, CODE3 + 7);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK0);
	/* RET to a more privileged level (RPL < CPL) is #GP(sel). */
	prot_mode(3);
	cpu.regs[R_SP] = STACK3 - 8;
	physmem_write(&pm, STACK3 - 8, 4, 0x1000);
	physmem_write(&pm, STACK3 - 4, 4, CS0);
	ck_assert_int_eq(op_ret_far(&cpu, &ret), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, CS0);
}
END_TEST

START_TEST(segment_loads)
{
	prot_mode(3);
	struct insn mov = { .modrm = 0xd8 /* mov ds, ax */, .rm = R_AX, .osize = 4 };
	cpu.regs[R_AX] = DS0;                                   /* DPL 0 from CPL 3 */
	ck_assert_int_eq(op_mov_to_sreg(&cpu, &mov), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, DS0);
	cpu.regs[R_AX] = 0;                                     /* null DS is fine */
	ck_assert_int_eq(op_mov_to_sreg(&cpu, &mov), ST_OK);
	ck_assert(!(cpu.seg[SR_DS].attr & SEG_P));
	struct insn movss = { .modrm = 0xd0 /* mov ss, ax */, .rm = R_AX, .osize = 4 };
	ck_assert_int_eq(op_mov_to_sreg(&cpu, &movss), ST_FAULT);     /* null SS */
	ck_assert_uint_eq(cpu.event.error_code, 0);
	cpu.regs[R_AX] = DS3;
	cpu.shadow = 0;
	ck_assert_int_eq(op_mov_to_sreg(&cpu, &movss), ST_OK);
	ck_assert(cpu.shadow);
	struct insn movcs = { .modrm = 0xc8, .rm = R_AX, .osize = 4 };
	ck_assert_int_eq(op_mov_to_sreg(&cpu, &movcs), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_UD);
	/* POP DS with a bad selector leaves ESP alone. */
	cpu.regs[R_SP] = STACK3 - 4;
	physmem_write(&pm, STACK3 - 4, 4, CS0);                 /* exec/read, DPL 0 */
	struct insn pop = { .opcode = 0x1f, .osize = 4 };
	ck_assert_int_eq(op_pop_sreg(&cpu, &pop), ST_FAULT);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3 - 4);
	physmem_write(&pm, STACK3 - 4, 4, DS3);
	ck_assert_int_eq(op_pop_sreg(&cpu, &pop), ST_OK);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK3);
	ck_assert_uint_eq(cpu.seg[SR_DS].selector, DS3);
}
END_TEST

static Suite *exception_suite(void)
{
	Suite *s = suite_create("exception");
	TCase *tc = tcase_create("real");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, real_gp_frame);
	tcase_add_test(tc, real_ivt_limit_double_fault);
	tcase_add_test(tc, real_ivt_limit_triple_fault);
	tcase_add_test(tc, real_int_n_and_iret);
	suite_add_tcase(s, tc);

	tc = tcase_create("protected");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, prot_same_level_frame);
	tcase_add_test(tc, prot_trap_gate_keeps_if);
	tcase_add_test(tc, prot_16bit_gate);
	tcase_add_test(tc, prot_ring3_stack_switch_and_iret);
	tcase_add_test(tc, iret_outer_nulls_inner_data_segments);
	tcase_add_test(tc, iret_cpl3_cannot_change_iopl_or_if);
	tcase_add_test(tc, int_n_gate_dpl);
	tcase_add_test(tc, int_n_dpl3_gate);
	tcase_add_test(tc, int1_ignores_gate_dpl);
	tcase_add_test(tc, into_only_with_of);
	tcase_add_test(tc, gate_not_present_ext);
	tcase_add_test(tc, gate_bad_type_and_limit);
	tcase_add_test(tc, target_cs_checks);
	tcase_add_test(tc, double_fault_then_triple);
	tcase_add_test(tc, pf_during_pf_delivery_sets_cr2);
	tcase_add_test(tc, benign_then_contributory_is_serial);
	tcase_add_test(tc, tss_stack_checks);
	suite_add_tcase(s, tc);

	tc = tcase_create("v86");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, v86_interrupt_frame_and_iret);
	tcase_add_test(tc, v86_int_n_iopl);
	suite_add_tcase(s, tc);

	tc = tcase_create("long");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, long_ring3_frame_and_iretq);
	tcase_add_test(tc, return_outward_nullify_keeps_base);
	tcase_add_test(tc, long_same_level_ist_and_iretq);
	tcase_add_test(tc, long_gate_checks);
	tcase_add_test(tc, long_call_gate_and_retfq);
	suite_add_tcase(s, tc);

	tc = tcase_create("far");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, call_gate_inner_with_params_and_retf);
	tcase_add_test(tc, call_gate_checks);
	tcase_add_test(tc, far_jmp_direct);
	tcase_add_test(tc, far_call_same_level_and_retf);
	tcase_add_test(tc, segment_loads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(exception_suite());
}
