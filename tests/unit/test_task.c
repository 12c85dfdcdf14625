/* Check suite for hardware task switches (emu/task.c) and the v8086 interrupt
 * redirection that reads the TSS (emu/exception.c): a CPU on a fake physical
 * memory with a hand-built GDT, IDT and TSSs; every expectation from SDM Vol.3
 * 7.3 (steps), 7.4 (Table 7-2), Table 7-1 (checks), 20.3.3 (Table 20-2) and
 * SDM Vol.2 JMP/CALL/IRET/INT n. No paging: linear = physical. */
#include <check.h>

#include "emu/cpu.h"
#include "emu/insn.h"
#include "emu/operand.h"
#include "emu/segload.h"
#include "emu/task.h"
#include "isa_handlers.h"
#include "suite_runner.h"
#include "desc_encode.h"

/* Memory map. */
enum {
	GDT = 0x1000, IDT = 0x2000, TSS_A = 0x3000, TSS_C = 0x3400, STACK_C = 0xb000, TSS_B = 0x3800, TSS_16 = 0x3c00,
	CODE = 0x4000, HANDLER = 0x5000, TASK_EIP = 0x6000, STACK0 = 0x9000, STACK_B = 0xa000,
	IVT_HANDLER_SEG = 0x0700,
};
/* Selectors. */
enum {
	CS0 = 0x08, DS0 = 0x10, SEL_A = 0x18, SEL_B = 0x20, GATE_B = 0x28, SEL_16 = 0x30,
	XO_CODE = 0x38, SEL_SMALL = 0x40, CS16 = 0x48, LDT_SEL = 0x50, SEL_C = 0x58,
};

static struct physmem pm;
static struct iobus io;
static struct cpu cpu;

static void set_gdt(unsigned sel, uint64_t d) { physmem_write(&pm, GDT + (sel & ~7u), 8, d); }
static void set_idt(unsigned vec, uint64_t g) { physmem_write(&pm, IDT + vec * 8, 8, g); }
static uint64_t rd(uint64_t pa, unsigned size) { return physmem_read(&pm, pa, size); }
static void wr(uint64_t pa, unsigned size, uint64_t v) { physmem_write(&pm, pa, size, v); }
static unsigned gdt_type(unsigned sel) { return (unsigned)(rd(GDT + (sel & ~7u) + 5, 1) & 0xf); }

/* A 32-bit TSS image at base (SDM Vol.3 Figure 7-2): flat ring-0 segments,
 * EIP eip, ESP esp, EFLAGS eflags, EAX..EDI = 0x100 + register number. */
static void tss32_image(uint32_t base, uint32_t eip, uint32_t esp, uint32_t eflags)
{
	for (unsigned off = 0; off < 0x68; off += 4)
		wr(base + off, 4, 0);
	wr(base + 0x20, 4, eip);
	wr(base + 0x24, 4, eflags);
	for (unsigned r = 0; r < 8; r++)
		wr(base + 0x28 + 4 * r, 4, 0x100 + r);
	wr(base + 0x38, 4, esp);
	wr(base + 0x48, 2, DS0);                  /* ES */
	wr(base + 0x4c, 2, CS0);
	wr(base + 0x50, 2, DS0);
	wr(base + 0x54, 2, DS0);
	wr(base + 0x58, 2, DS0);
	wr(base + 0x5c, 2, DS0);
	wr(base + 0x66, 2, 0x68);                 /* I/O map base */
}

static void setup(void)
{
	ck_assert(physmem_init(&pm, 1 << 20));
	iobus_init(&io);
	cpu_init(&cpu, NULL, &pm, &io);

	set_gdt(CS0, mkdesc(0, 0xfffff, 0xb, true, 0, true, true, true));
	set_gdt(DS0, mkdesc(0, 0xfffff, 0x3, true, 0, true, true, true));
	set_gdt(SEL_A, mkdesc(TSS_A, 0x67, SYS_TSS32_BUSY, false, 0, true, false, false));
	set_gdt(SEL_B, mkdesc(TSS_B, 0x67 + 32 + 0x2000, SYS_TSS32_AVAIL, false, 0, true, false, false));
	set_gdt(GATE_B, mkgate(SEL_B, 0, SYS_TASK_GATE, 0, true, 0));
	set_gdt(SEL_16, mkdesc(TSS_16, 0x2c, SYS_TSS16_AVAIL, false, 0, true, false, false));
	set_gdt(XO_CODE, mkdesc(0, 0xfffff, 0x9, true, 0, true, true, true));
	set_gdt(SEL_SMALL, mkdesc(TSS_B, 0x66, SYS_TSS32_AVAIL, false, 0, true, false, false));
	set_gdt(CS16, mkdesc(0, 0xffff, 0xb, true, 0, true, false, false));
	set_gdt(LDT_SEL, mkdesc(0x7000, 0xf, SYS_LDT, false, 0, true, false, false));
	set_gdt(SEL_C, mkdesc(TSS_C, 0x67, SYS_TSS32_AVAIL, false, 0, true, false, false));
	for (unsigned v = 0; v < 32; v++)
		set_idt(v, mkgate(CS0, HANDLER + v, SYS_INT_GATE32, 0, true, 0));
	cpu.gdtr = (struct dtr){ GDT, 0x7f };
	cpu.idtr = (struct dtr){ IDT, 0x7ff };
	tss32_image(TSS_A, 0, 0, 2);
	tss32_image(TSS_B, TASK_EIP, STACK_B, 0x2 | FLAG_CF);
	tss32_image(TSS_C, HANDLER + 0x100, STACK_C, 0x2);
	seg_load_descriptor(&cpu.tr, SEL_A, rd(GDT + SEL_A, 8));
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], CS0, rd(GDT + CS0, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], DS0, rd(GDT + DS0, 8));
	cpu.cpl = 0;
	cpu_set_flags(&cpu, FLAG_IF | FLAG_ZF);
	for (unsigned r = 0; r < 8; r++)
		cpu.regs[r] = 0xa00 + r;
	cpu.regs[R_SP] = STACK0;
	cpu.rip = CODE + 7;                       /* the instruction after the JMP/CALL */
	cpu.insn_start = CODE;
	cpu_update_mode(&cpu);
}

static void teardown(void)
{
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
}

static status_t far_jmp(uint16_t sel)
{
	struct insn in = { .imm = 0, .imm2 = sel, .osize = 4, .opcode = 0xea };
	return op_jmp_far(&cpu, &in);
}

static status_t far_call(uint16_t sel)
{
	struct insn in = { .imm = 0, .imm2 = sel, .osize = 4, .opcode = 0x9a };
	return op_call_far(&cpu, &in);
}

static status_t iret32(void)
{
	struct insn in = { .osize = 4, .opcode = 0xcf };
	return op_iret(&cpu, &in);
}

/* ---- JMP (SDM Vol.3 7.3, Table 7-2: JMP column) ---- */

START_TEST(jmp_saves_loads_and_moves_busy)
{
	cpu.dr[7] = 0x400 | 0x1ff;                /* L0-L3, G0-G3, LE */
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	/* Step 8: the old state, EIP of the next instruction, NT as it was. */
	ck_assert_uint_eq(rd(TSS_A + 0x20, 4), CODE + 7);
	ck_assert_uint_eq(rd(TSS_A + 0x24, 4) & (FLAG_IF | FLAG_ZF), FLAG_IF | FLAG_ZF);
	for (unsigned r = 0; r < 8; r++)
		ck_assert_uint_eq(rd(TSS_A + 0x28 + 4 * r, 4), r == R_SP ? STACK0 : 0xa00 + r);
	ck_assert_uint_eq(rd(TSS_A + 0x4c, 2), CS0);
	/* Steps 6 and 10: old not busy, new busy; JMP writes no link. */
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_AVAIL);
	ck_assert_uint_eq(gdt_type(SEL_B), SYS_TSS32_BUSY);
	ck_assert_uint_eq(rd(TSS_B, 2), 0);
	/* Steps 11-13: TR and the new task's registers. */
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.tr.attr & SEG_TYPE_MASK, SYS_TSS32_BUSY);
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK_B);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x100);
	ck_assert_uint_eq(cpu.regs[R_DI], 0x107);
	ck_assert_uint_eq(cpu_get_flags(&cpu), 0x2 | FLAG_CF);
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, CS0);
	ck_assert(cpu.seg[SR_SS].attr & SEG_P);
	/* SDM Vol.3 2.5: CR0.TS; 17.2.4: local enables cleared, globals kept. */
	ck_assert(cpu.cr0 & CR0_TS);
	ck_assert_uint_eq(cpu.dr[7], 0x400 | 0xaa);
}
END_TEST

START_TEST(jmp_through_task_gate)
{
	ck_assert_int_eq(far_jmp(GATE_B), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_AVAIL);
}
END_TEST

/* ---- CALL and IRET (SDM Vol.3 7.4: link field, NT, busy) ---- */

START_TEST(call_nests_and_iret_returns)
{
	ck_assert_int_eq(far_call(SEL_B), ST_OK);
	ck_assert_uint_eq(rd(TSS_B, 2), SEL_A);                  /* link */
	ck_assert(cpu_get_flags(&cpu) & FLAG_NT);                /* step 9 */
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_BUSY);      /* CALL keeps it */
	ck_assert_uint_eq(gdt_type(SEL_B), SYS_TSS32_BUSY);
	ck_assert_uint_eq(rd(TSS_A + 0x20, 4), CODE + 7);

	/* The nested task runs a little, then IRET with NT=1: TASK-RETURN. */
	cpu.regs[R_AX] = 0x5555;
	cpu.rip = TASK_EIP + 1;
	ck_assert_int_eq(iret32(), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_A);
	ck_assert_uint_eq(cpu.rip, CODE + 7);
	ck_assert_uint_eq(cpu.regs[R_AX], 0xa00);
	ck_assert_uint_eq(gdt_type(SEL_B), SYS_TSS32_AVAIL);     /* abandoned: not busy */
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_BUSY);      /* IRET leaves it busy */
	/* Step 7: NT cleared in the saved image of the task left by IRET. */
	ck_assert(!(rd(TSS_B + 0x24, 4) & FLAG_NT));
	ck_assert_uint_eq(rd(TSS_B + 0x28, 4), 0x5555);
	ck_assert_uint_eq(rd(TSS_B + 0x20, 4), TASK_EIP + 1);
	ck_assert(!(cpu_get_flags(&cpu) & FLAG_NT));
}
END_TEST

START_TEST(iret_link_checks)
{
	/* SDM Vol.2 IRET TASK-RETURN: link to a TSS that is not busy: #TS(link). */
	cpu_set_flags(&cpu, FLAG_NT);
	wr(TSS_A, 2, SEL_B);
	ck_assert_int_eq(iret32(), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_TS);
	ck_assert_uint_eq(cpu.event.error_code, SEL_B);
	/* A local selector: #TS(link). */
	wr(TSS_A, 2, SEL_B | SEL_TI);
	ck_assert_int_eq(iret32(), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_TS);
	ck_assert_uint_eq(cpu.event.error_code, SEL_B | SEL_TI);
	/* Busy but not present: #NP(link). */
	set_gdt(SEL_B, mkdesc(TSS_B, 0x67, SYS_TSS32_BUSY, false, 0, false, false, false));
	wr(TSS_A, 2, SEL_B);
	ck_assert_int_eq(iret32(), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_NP);
	ck_assert_uint_eq(cpu.tr.selector, SEL_A);
}
END_TEST

/* ---- checks before the commit point (Table 7-1; SDM Vol.2 JMP/CALL) ---- */

START_TEST(precommit_checks)
{
	/* Limit below 67H: #TS(new TSS), nothing changed. */
	ck_assert_int_eq(far_jmp(SEL_SMALL), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_TS);
	ck_assert_uint_eq(cpu.event.error_code, SEL_SMALL);
	ck_assert_uint_eq(cpu.tr.selector, SEL_A);
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_BUSY);
	/* A busy TSS as a JMP target: #GP(selector). */
	ck_assert_int_eq(far_jmp(SEL_A), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, SEL_A);
	/* DPL < CPL: #GP(selector). */
	cpu.cpl = 3;
	ck_assert_int_eq(far_jmp(SEL_B), ST_FAULT);
	ck_assert_uint_eq(cpu.event.error_code, SEL_B);
	cpu.cpl = 0;
	/* Task gate naming a busy TSS: #GP(TSS selector); an LDT selector too. */
	set_gdt(GATE_B, mkgate(SEL_A, 0, SYS_TASK_GATE, 0, true, 0));
	ck_assert_int_eq(far_jmp(GATE_B), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, SEL_A);
	set_gdt(GATE_B, mkgate(SEL_B | SEL_TI, 0, SYS_TASK_GATE, 0, true, 0));
	ck_assert_int_eq(far_call(GATE_B), ST_FAULT);
	ck_assert_uint_eq(cpu.event.error_code, SEL_B | SEL_TI);
	/* Not-present TSS: #NP(selector). */
	set_gdt(SEL_B, mkdesc(TSS_B, 0x67, SYS_TSS32_AVAIL, false, 0, false, false, false));
	ck_assert_int_eq(far_call(SEL_B), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_NP);
	ck_assert_uint_eq(cpu.event.error_code, SEL_B);
	ck_assert_uint_eq(cpu.rip, CODE + 7);
}
END_TEST

/* ---- after the commit point: faults in the new task (7.3 step 13) ---- */

START_TEST(postcommit_fault_in_new_task)
{
	/* DS names execute-only code: #TS(DS selector) with the new task's
	 * CS:EIP on the new task's stack. */
	wr(TSS_B + 0x54, 2, XO_CODE);
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.rip, HANDLER + EXC_TS);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK_B - 16);
	ck_assert_uint_eq(rd(STACK_B - 16, 4), XO_CODE);       /* error code, EXT=0 */
	ck_assert_uint_eq(rd(STACK_B - 12, 4), TASK_EIP);
	ck_assert_uint_eq(cpu.seg[SR_DS].selector, XO_CODE);
	ck_assert(!(cpu.seg[SR_DS].attr & SEG_P));
	ck_assert_uint_eq(gdt_type(SEL_B), SYS_TSS32_BUSY);
}
END_TEST

START_TEST(postcommit_eip_beyond_limit)
{
	wr(TSS_B + 0x4c, 2, CS16);                /* limit FFFFH */
	wr(TSS_B + 0x20, 4, 0x12345);
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.rip, HANDLER + EXC_GP);
	ck_assert_uint_eq(rd(STACK_B - 16, 4), 0);             /* #GP(0) */
	ck_assert_uint_eq(rd(STACK_B - 12, 4), 0x12345);
}
END_TEST

START_TEST(ldt_loaded_and_checked)
{
	wr(TSS_B + 0x60, 2, LDT_SEL);
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.ldtr.selector, LDT_SEL);
	ck_assert_uint_eq(cpu.ldtr.base, 0x7000);
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
}
END_TEST

START_TEST(ldt_selector_not_ldt)
{
	/* An LDT fault comes before any segment register is usable, so its
	 * handler must be a task (SDM Vol.3 6.15 "Interrupt 10"): #TS through a
	 * task gate, raised in the new task -- whose TSS gets its EIP and which
	 * becomes the #TS task's back link. */
	set_idt(EXC_TS, mkgate(SEL_C, 0, SYS_TASK_GATE, 0, true, 0));
	wr(TSS_B + 0x60, 2, DS0);                 /* not an LDT descriptor: #TS(sel) */
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_C);
	ck_assert_uint_eq(cpu.rip, HANDLER + 0x100);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK_C - 4);
	ck_assert_uint_eq(rd(STACK_C - 4, 4), DS0);
	ck_assert_uint_eq(rd(TSS_C, 2), SEL_B);
	ck_assert_uint_eq(rd(TSS_B + 0x20, 4), TASK_EIP);
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_AVAIL);
	ck_assert_uint_eq(gdt_type(SEL_B), SYS_TSS32_BUSY);
	ck_assert_uint_eq(gdt_type(SEL_C), SYS_TSS32_BUSY);
}
END_TEST

/* ---- the IDT task gate (SDM Vol.2 INT n TASK-GATE, Vol.3 6.12.2) ---- */

START_TEST(double_fault_task_gate)
{
	set_idt(EXC_DF, mkgate(SEL_B, 0, SYS_TASK_GATE, 0, true, 0));
	/* #GP while delivering #NP (contributory + contributory) -> #DF. */
	set_idt(EXC_NP, 0);
	cpu.rip = CODE;
	ck_assert_int_eq(cpu_raise_err(&cpu, EXC_NP, 0x18), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
	ck_assert_uint_eq(rd(TSS_B, 2), SEL_A);                  /* back link */
	ck_assert(cpu_get_flags(&cpu) & FLAG_NT);
	ck_assert_uint_eq(gdt_type(SEL_A), SYS_TSS32_BUSY);
	ck_assert_uint_eq(rd(TSS_A + 0x20, 4), CODE);            /* the faulting EIP */
	/* #DF is an abort: the old EFLAGS image keeps RF = 0 (SDM Vol.3 17.3.1.1). */
	ck_assert_uint_eq(rd(TSS_A + 0x24, 4) & FLAG_RF, 0);
	/* The #DF error code (0) on the new task's stack, 4 bytes (32-bit TSS). */
	ck_assert_uint_eq(cpu.regs[R_SP], STACK_B - 4);
	ck_assert_uint_eq(rd(STACK_B - 4, 4), 0);
}
END_TEST

START_TEST(task_gate_postcommit_fault_ext)
{
	/* A fault after the commit of a switch started by an exception carries
	 * EXT=1 (SDM Vol.3 6.13); for INT n it would be 0. */
	set_idt(EXC_UD, mkgate(SEL_B, 0, SYS_TASK_GATE, 0, true, 0));
	wr(TSS_B + 0x54, 2, XO_CODE);
	cpu.rip = CODE;
	ck_assert_int_eq(cpu_raise(&cpu, EXC_UD), ST_FAULT);
	ck_assert_int_eq(cpu_deliver_event(&cpu), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.rip, HANDLER + EXC_TS);
	ck_assert_uint_eq(rd(cpu.regs[R_SP], 4), XO_CODE | 1);
	ck_assert_uint_eq(rd(cpu.regs[R_SP] + 4, 4), TASK_EIP);
	/* #UD, a fault, saved RF = 1 in the old TSS as it would on the stack
	 * (SDM Vol.3 17.3.1.1), so that the instruction restarts past its
	 * instruction breakpoint. */
	ck_assert_uint_eq(rd(TSS_A + 0x24, 4) & FLAG_RF, FLAG_RF);

	/* The same through INT 20h: EXT=0. */
	set_idt(0x20, mkgate(SEL_C, 0, SYS_TASK_GATE, 0, true, 0));
	wr(TSS_C + 0x54, 2, XO_CODE);
	struct insn in = { .imm = 0x20, .opcode = 0xcd, .len = 2 };
	cpu.insn_start = cpu.rip;
	cpu.rip += 2;
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_C);
	ck_assert_uint_eq(rd(cpu.regs[R_SP], 4), XO_CODE);
}
END_TEST

START_TEST(int_n_task_gate_no_error_code)
{
	set_idt(0x20, mkgate(SEL_B, 0, SYS_TASK_GATE, 0, true, 0));
	struct insn in = { .imm = 0x20, .opcode = 0xcd, .len = 2 };
	cpu.insn_start = CODE;
	cpu.rip = CODE + 2;
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_B);
	ck_assert_uint_eq(cpu.regs[R_SP], STACK_B);
	ck_assert_uint_eq(rd(TSS_A + 0x20, 4), CODE + 2);
	ck_assert_uint_eq(rd(TSS_A + 0x24, 4) & FLAG_RF, 0);     /* a trap: RF as it was */
}
END_TEST

/* ---- T bit, 16-bit TSS, v8086 task ---- */

START_TEST(t_bit_debug_trap)
{
	wr(TSS_B + 0x64, 2, 1);
	cpu.dr[6] = 0xffff0ff0;
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.dr[6] & DR6_BT, DR6_BT);
	ck_assert_uint_eq(cpu.rip, HANDLER + EXC_DB);
	ck_assert_uint_eq(rd(STACK_B - 12, 4), TASK_EIP);        /* trap: the new task's EIP */
}
END_TEST

START_TEST(tss16_switch)
{
	/* SDM Vol.3 7.6, Figure 7-11. */
	for (unsigned off = 0; off < 0x2c; off += 2)
		wr(TSS_16 + off, 2, 0);
	wr(TSS_16 + 0x0e, 2, 0x1234);             /* IP */
	wr(TSS_16 + 0x10, 2, 0x0003);             /* FLAGS: CF */
	wr(TSS_16 + 0x12, 2, 0xaaaa);             /* AX */
	wr(TSS_16 + 0x1a, 2, 0x8000);             /* SP */
	wr(TSS_16 + 0x22, 2, DS0);
	wr(TSS_16 + 0x24, 2, CS16);
	wr(TSS_16 + 0x26, 2, DS0);
	wr(TSS_16 + 0x28, 2, DS0);
	/* SDM Vol.3 Table 6-6: a 16-bit TSS limit below 2CH is #TS(selector). */
	set_gdt(SEL_16, mkdesc(TSS_16, 0x2b, SYS_TSS16_AVAIL, false, 0, true, false, false));
	ck_assert_int_eq(far_call(SEL_16), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_TS);
	ck_assert_uint_eq(cpu.event.error_code, SEL_16);
	set_gdt(SEL_16, mkdesc(TSS_16, 0x2c, SYS_TSS16_AVAIL, false, 0, true, false, false));
	ck_assert_int_eq(far_call(SEL_16), ST_OK);
	ck_assert_uint_eq(cpu.rip, 0x1234);
	ck_assert_uint_eq(cpu.regs[R_AX] & 0xffff, 0xaaaa);
	ck_assert_uint_eq(cpu.regs[R_SP] & 0xffff, 0x8000);
	ck_assert_uint_eq(cpu_get_flags(&cpu), 0x3 | FLAG_NT);
	ck_assert_uint_eq(cpu.seg[SR_FS].selector, 0);
	ck_assert_uint_eq(rd(TSS_16, 2), SEL_A);
	ck_assert_uint_eq(gdt_type(SEL_16), SYS_TSS16_BUSY);
	ck_assert_uint_eq(cpu_code_size(&cpu), 16);
	/* Back with IRET: the 16-bit image holds the state saved on the way out. */
	cpu.rip = 0x1236;
	struct insn in = { .osize = 2, .opcode = 0xcf };
	ck_assert_int_eq(op_iret(&cpu, &in), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_A);
	ck_assert_uint_eq(rd(TSS_16 + 0x0e, 2), 0x1236);
	ck_assert_uint_eq(gdt_type(SEL_16), SYS_TSS16_AVAIL);
}
END_TEST

START_TEST(switch_to_v86_task)
{
	/* SDM Vol.3 20.2.5: EFLAGS.VM in the new TSS enters virtual-8086 mode. */
	wr(TSS_B + 0x24, 4, 0x2 | FLAG_VM);
	wr(TSS_B + 0x20, 4, 0x100);
	wr(TSS_B + 0x4c, 2, 0x2000);
	wr(TSS_B + 0x50, 2, 0x3000);
	wr(TSS_B + 0x54, 2, 0x4000);
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_int_eq(cpu.mode, MODE_V86);
	ck_assert_uint_eq(cpu.cpl, 3);
	ck_assert_uint_eq(cpu.seg[SR_CS].base, 0x20000);
	ck_assert_uint_eq(cpu.seg[SR_DS].base, 0x40000);
	ck_assert_uint_eq(cpu.rip, 0x100);
}
END_TEST

/* ---- CR3 from a 32-bit TSS (SDM Vol.3 7.3 step 12, 4.4.1, 4.10.4.1) ---- */

enum { PD_A = 0x10000, PD_B = 0x11000, PDPT_A = 0x12000, PAE_PD = 0x13000, PDPT_B = 0x14000,
       PDPT_BAD = 0x15000 };

START_TEST(cr3_load_flushes_nonglobal)
{
	/* 32-bit paging, 4 MiB identity page; CR4.PGE and a global 4 MiB page
	 * in both directories at 4 MiB..8 MiB (mapping physical 0). Slots 7 and 8
	 * of the direct-mapped TLB. */
	wr(PD_A, 4, 0x83);                         /* P RW PS */
	wr(PD_B, 4, 0x83);
	wr(PD_A + 4, 4, 0x183);                    /* P RW PS G */
	wr(PD_B + 4, 4, 0x183);
	cpu.cr4 |= CR4_PSE | CR4_PGE;
	cpu.cr3 = PD_A;
	cpu.cr0 |= CR0_PG;
	wr(TSS_A + 0x1c, 4, PD_A);
	wr(TSS_B + 0x1c, 4, PD_B);
	uint64_t v;
	ck_assert_int_eq(lin_read_sys(&cpu, 0x7000, 4, &v), ST_OK);
	ck_assert_int_eq(lin_read_sys(&cpu, 0x408000, 4, &v), ST_OK);
	ck_assert_ptr_nonnull(tlb_lookup(&cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x7000, 4));
	ck_assert_ptr_nonnull(tlb_lookup(&cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x408000, 4));
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.cr3, PD_B);
	ck_assert_ptr_null(tlb_lookup(&cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x7000, 4));
	ck_assert_ptr_nonnull(tlb_lookup(&cpu.tlb, TLB_SUPERVISOR, TLB_READ, 0x408000, 4));
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
	/* Back to A: the old task's CR3 field is only read, never saved. */
	ck_assert_uint_eq(rd(TSS_B + 0x1c, 4), PD_B);
}
END_TEST

START_TEST(cr3_pae_loads_pdptes)
{
	wr(PAE_PD, 8, 0x83);                       /* 2 MiB identity page */
	wr(PDPT_A, 8, PAE_PD | 1);
	wr(PDPT_B, 8, PAE_PD | 1);
	wr(PDPT_B + 8, 8, 0);
	wr(PDPT_BAD, 8, PAE_PD | 1 | (1u << 5));   /* bits 8:5 reserved */
	cpu.cr4 |= CR4_PAE;
	cpu.cr3 = PDPT_A;
	cpu.pdpte[0] = PAE_PD | 1;
	cpu.cr0 |= CR0_PG;
	wr(TSS_A + 0x1c, 4, PDPT_A);
	wr(TSS_B + 0x1c, 4, PDPT_B);
	ck_assert_int_eq(far_call(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.cr3, PDPT_B);
	ck_assert_uint_eq(cpu.pdpte[0], PAE_PD | 1);
	ck_assert_uint_eq(cpu.rip, TASK_EIP);
	/* Back, then into a task whose PDPTE has a reserved bit: #GP(0) in the
	 * new task (after the commit point, before any segment register is
	 * usable: the #GP handler is a task, as for the LDT case). */
	set_idt(EXC_GP, mkgate(SEL_C, 0, SYS_TASK_GATE, 0, true, 0));
	wr(TSS_C + 0x1c, 4, PDPT_A);
	cpu.rip = TASK_EIP + 1;
	ck_assert_int_eq(iret32(), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_A);
	wr(TSS_B + 0x1c, 4, PDPT_BAD);
	wr(TSS_B + 0x20, 4, TASK_EIP);
	wr(TSS_B + 0x38, 4, STACK_B);
	ck_assert_int_eq(far_jmp(SEL_B), ST_OK);
	ck_assert_uint_eq(cpu.tr.selector, SEL_C);
	ck_assert_uint_eq(rd(TSS_C, 2), SEL_B);                  /* raised in task B */
	ck_assert_uint_eq(rd(TSS_B + 0x1c, 4), PDPT_BAD);
	ck_assert_uint_eq(cpu.rip, HANDLER + 0x100);
	ck_assert_uint_eq(rd(STACK_C - 4, 4), 0);                /* #GP(0) */
	ck_assert_uint_eq(cpu.cr3, PDPT_A);
	ck_assert_uint_eq(cpu.pdpte[0], PAE_PD | 1);
}
END_TEST

/* ---- v8086 INT n with CR4.VME (SDM Vol.3 20.3.3 Table 20-2) ---- */

static void v86_at(unsigned iopl)
{
	cpu.cr4 |= CR4_VME;
	cpu_set_flags(&cpu, FLAG_VM | FLAG_VIF | FLAG_IF | ((uint64_t)iopl << FLAG_IOPL_SHIFT));
	seg_load_v86(&cpu.seg[SR_CS], 0x1000);
	seg_load_v86(&cpu.seg[SR_SS], 0x2000);
	cpu.regs[R_SP] = 0x100;
	cpu.rip = 0x52;
	cpu_update_mode(&cpu);
	/* IVT entry 0x21 -> 0700:0010; TSS A's redirection bitmap: all clear
	 * except vector 0x22 (the I/O map base is 68H + 32). */
	wr(0x21 * 4, 4, (uint32_t)IVT_HANDLER_SEG << 16 | 0x10);
	set_gdt(SEL_A, mkdesc(TSS_A, 0x67 + 32 + 8, SYS_TSS32_BUSY, false, 0, true, false, false));
	seg_load_descriptor(&cpu.tr, SEL_A, rd(GDT + SEL_A, 8));
	wr(TSS_A + 0x66, 2, 0x68 + 32);
	for (unsigned i = 0; i < 32; i++)
		wr(TSS_A + 0x68 + i, 1, i == 4 ? 0x04 : 0);
}

START_TEST(vme_redirect_iopl3)
{
	v86_at(3);
	struct insn in = { .imm = 0x21, .opcode = 0xcd, .len = 2 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	/* Method 5: FLAGS, CS, IP on the v8086 stack; IF and TF cleared. */
	ck_assert_uint_eq(cpu.seg[SR_CS].selector, IVT_HANDLER_SEG);
	ck_assert_uint_eq(cpu.rip, 0x10);
	ck_assert_uint_eq(cpu.regs[R_SP], 0xfa);
	ck_assert_uint_eq(rd(0x20000 + 0xfa, 2), 0x52);
	ck_assert_uint_eq(rd(0x20000 + 0xfc, 2), 0x1000);
	ck_assert_uint_eq(rd(0x20000 + 0xfe, 2), 0x2 | FLAG_IF | FLAG_IOPL);
	ck_assert(!(cpu_get_flags(&cpu) & FLAG_IF));
	ck_assert(cpu_get_flags(&cpu) & FLAG_VIF);
}
END_TEST

START_TEST(vme_redirect_iopl0_and_iret)
{
	v86_at(0);
	cpu_set_flags(&cpu, FLAG_VM | FLAG_VIF);  /* IF = 0, VIF = 1, IOPL 0 */
	struct insn in = { .imm = 0x21, .opcode = 0xcd, .len = 2 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	/* Method 6: FLAGS pushed with IOPL = 3 and IF = VIF; VIF cleared. */
	ck_assert_uint_eq(rd(0x20000 + 0xfe, 2), 0x2 | FLAG_IF | FLAG_IOPL);
	ck_assert(!(cpu_get_flags(&cpu) & FLAG_VIF));
	ck_assert_uint_eq(cpu.rip, 0x10);
	/* 16-bit IRET with VME: popped IF -> VIF, IOPL and IF unchanged. */
	struct insn iret = { .osize = 2, .opcode = 0xcf };
	ck_assert_int_eq(op_iret(&cpu, &iret), ST_OK);
	ck_assert_uint_eq(cpu.rip, 0x52);
	ck_assert_uint_eq(cpu.regs[R_SP], 0x100);
	uint64_t fl = cpu_get_flags(&cpu);
	ck_assert(fl & FLAG_VIF);
	ck_assert(!(fl & FLAG_IF));
	ck_assert_uint_eq(fl & FLAG_IOPL, 0);
	/* A 32-bit IRET at IOPL < 3 is #GP(0) even with VME. */
	struct insn iretd = { .osize = 4, .opcode = 0xcf };
	ck_assert_int_eq(op_iret(&cpu, &iretd), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
}
END_TEST

START_TEST(vme_iret_vip_gp)
{
	v86_at(0);
	cpu_set_flags(&cpu, FLAG_VM | FLAG_VIP);
	wr(0x20000 + 0x100, 2, 0x10);
	wr(0x20000 + 0x102, 2, 0x1000);
	wr(0x20000 + 0x104, 2, 0x2 | FLAG_IF);    /* would set VIF with VIP pending */
	struct insn iret = { .osize = 2, .opcode = 0xcf };
	ck_assert_int_eq(op_iret(&cpu, &iret), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.regs[R_SP], 0x100);
}
END_TEST

START_TEST(vme_bitmap_set_bit)
{
	/* Bit 0x22 set: method 3 (IOPL < 3) #GP(0), method 4 (IOPL 3) the IDT. */
	v86_at(0);
	struct insn in = { .imm = 0x22, .opcode = 0xcd, .len = 2 };
	ck_assert_int_eq(op_int(&cpu, &in), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, EXC_GP);
	ck_assert_uint_eq(cpu.event.error_code, 0);
	v86_at(3);
	set_idt(0x22, mkgate(CS0, HANDLER + 0x22, SYS_INT_GATE32, 3, true, 0));
	wr(TSS_A + 4, 4, STACK0);                 /* SS0:ESP0 for the ring-0 handler */
	wr(TSS_A + 8, 2, DS0);
	ck_assert_int_eq(op_int(&cpu, &in), ST_OK);
	ck_assert_int_eq(cpu.mode, MODE_PROT);
	ck_assert_uint_eq(cpu.rip, HANDLER + 0x22);
}
END_TEST

static Suite *task_suite(void)
{
	Suite *s = suite_create("task");
	TCase *tc = tcase_create("switch");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, jmp_saves_loads_and_moves_busy);
	tcase_add_test(tc, jmp_through_task_gate);
	tcase_add_test(tc, call_nests_and_iret_returns);
	tcase_add_test(tc, iret_link_checks);
	tcase_add_test(tc, precommit_checks);
	tcase_add_test(tc, postcommit_fault_in_new_task);
	tcase_add_test(tc, postcommit_eip_beyond_limit);
	tcase_add_test(tc, ldt_loaded_and_checked);
	tcase_add_test(tc, ldt_selector_not_ldt);
	tcase_add_test(tc, t_bit_debug_trap);
	tcase_add_test(tc, tss16_switch);
	tcase_add_test(tc, switch_to_v86_task);
	tcase_add_test(tc, cr3_load_flushes_nonglobal);
	tcase_add_test(tc, cr3_pae_loads_pdptes);
	suite_add_tcase(s, tc);
	tc = tcase_create("idt");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, double_fault_task_gate);
	tcase_add_test(tc, int_n_task_gate_no_error_code);
	tcase_add_test(tc, task_gate_postcommit_fault_ext);
	suite_add_tcase(s, tc);
	tc = tcase_create("v86_vme");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, vme_redirect_iopl3);
	tcase_add_test(tc, vme_redirect_iopl0_and_iret);
	tcase_add_test(tc, vme_iret_vip_gp);
	tcase_add_test(tc, vme_bitmap_set_bit);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(task_suite());
}
