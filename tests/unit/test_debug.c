/* Check suite for the debug registers (emu/debug.c) and their place in the
 * execution loop: breakpoint matching as table rows (SDM Vol.3 17.2.4, 17.2.5),
 * then small programs run by cpu_run() on a fake physmem, flat 32-bit ring 0,
 * every IDT vector an interrupt gate to a one-byte HLT, so each case sees the
 * #DB frame and DR6 a guest would (SDM Vol.3 17.3.1, 6.9 Table 6-2). */
#include <check.h>
#include <string.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/debug.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "emu/segload.h"
#include "suite_runner.h"
#include "desc_encode.h"

enum {
	GDT = 0x1000, IDT = 0x2000, CODE = 0x4000, DATA = 0x6000, HANDLERS = 0x8000,
	STACK0 = 0x9000,
};
enum { CS0 = 0x08, DS0 = 0x10 };

static struct physmem pm;
static struct iobus io;
static struct cpu cpu;

static uint64_t rd(uint64_t pa, unsigned size) { return physmem_read(&pm, pa, size); }

static void setup(void)
{
	ck_assert(physmem_init(&pm, 1 << 20));
	iobus_init(&io);
	cpu_init(&cpu, NULL, &pm, &io);
	physmem_write(&pm, GDT + CS0, 8, mkdesc(0, 0xfffff, 0xb, true, 0, true, true, true));
	physmem_write(&pm, GDT + DS0, 8, mkdesc(0, 0xfffff, 0x3, true, 0, true, true, true));
	for (unsigned v = 0; v < 32; v++) {
		uint32_t h = HANDLERS + v;
		physmem_write(&pm, IDT + 8 * v, 8, (h & 0xffff) | (uint64_t)CS0 << 16 |
			      (uint64_t)SYS_INT_GATE32 << 40 | 1ull << 47 | (uint64_t)(h >> 16) << 48);
		physmem_write(&pm, h, 1, 0xf4);   /* HLT */
	}
	cpu.gdtr = (struct dtr){ GDT, 0x17 };
	cpu.idtr = (struct dtr){ IDT, 0xff };
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], CS0, rd(GDT + CS0, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], DS0, rd(GDT + DS0, 8));
	cpu.regs[R_SP] = STACK0;
	cpu.rip = CODE;
	cpu_set_flags(&cpu, 0);
	cpu_update_mode(&cpu);
}

static void teardown(void)
{
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
}

static void code(const uint8_t *bytes, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		physmem_write(&pm, CODE + i, 1, bytes[i]);
}

/* Run to the next HLT; return the vector whose handler halted, or -1 when
 * the program's own HLT was reached. */
static int run(void)
{
	cpu.icount_limit = cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&cpu), ST_HALT);
	uint64_t hlt = cpu.rip - 1;
	return hlt >= HANDLERS && hlt < HANDLERS + 32 ? (int)(hlt - HANDLERS) : -1;
}

/* The frame of a same-level interrupt gate: EIP, CS, EFLAGS. */
static uint32_t frame_eip(void) { return (uint32_t)rd(cpu.regs[R_SP], 4); }
static uint32_t frame_eflags(void) { return (uint32_t)rd(cpu.regs[R_SP] + 8, 4); }

static uint64_t dr7_bp(unsigned n, unsigned rw, unsigned len)
{
	return 0x400 | 1ull << (2 * n) | (uint64_t)rw << (16 + 4 * n) | (uint64_t)len << (18 + 4 * n);
}

/* ---- matching (SDM Vol.3 17.2.4 R/W and LEN, 17.2.5 alignment) ---- */

static const struct {
	uint32_t addr;
	unsigned rw, len;          /* DR7 encodings */
	uint32_t lin;
	unsigned size;
	bool write, hit;
} data_rows[] = {
	{ 0x6000, DR_RW_WRITE, 0, 0x6000, 1, true,  true  },  /* 1 byte, exact */
	{ 0x6000, DR_RW_WRITE, 0, 0x6000, 1, false, false },  /* write-only bp, a read */
	{ 0x6000, DR_RW_RDWR,  0, 0x6000, 1, false, true  },  /* read/write bp, a read */
	{ 0x6001, DR_RW_WRITE, 0, 0x6000, 4, true,  true  },  /* access covers it */
	{ 0x6004, DR_RW_WRITE, 0, 0x6000, 4, true,  false },  /* just after */
	{ 0x6003, DR_RW_WRITE, 3, 0x6000, 1, true,  true  },  /* LEN 4 ignores bits 1:0 */
	{ 0x6003, DR_RW_WRITE, 3, 0x6004, 1, true,  false },
	{ 0x6005, DR_RW_WRITE, 1, 0x6004, 1, true,  true  },  /* LEN 2 ignores bit 0 */
	{ 0x6005, DR_RW_WRITE, 1, 0x6006, 1, true,  false },
	{ 0x6007, DR_RW_WRITE, 2, 0x6000, 1, true,  true  },  /* LEN 8 ignores bits 2:0 */
	{ 0x6000, DR_RW_WRITE, 1, 0x5fff, 2, true,  true  },  /* misaligned access overlaps */
	{ 0x6000, DR_RW_EXEC,  0, 0x6000, 1, false, false },  /* instruction bp: never data */
};

START_TEST(data_matching_rows)
{
	for (unsigned i = 0; i < sizeof(data_rows) / sizeof(data_rows[0]); i++) {
		cpu.dr[1] = data_rows[i].addr;
		cpu.dr[7] = dr7_bp(1, data_rows[i].rw, data_rows[i].len);
		unsigned got = debug_match_data(&cpu, data_rows[i].lin, data_rows[i].size,
						data_rows[i].write);
		ck_assert_msg(got == (data_rows[i].hit ? 2u : 0u), "row %u: hits %x", i, got);
	}
}
END_TEST

START_TEST(insn_matching_and_enables)
{
	cpu.dr[0] = 0x4003;
	cpu.dr[2] = 0x4003;
	cpu.dr[7] = dr7_bp(0, DR_RW_EXEC, 0);
	ck_assert_uint_eq(debug_match_insn(&cpu, 0x4003), 1);
	ck_assert_uint_eq(debug_match_insn(&cpu, 0x4002), 0);
	/* G2 enables breakpoint 2 as L2 would; disabled ones never match. */
	cpu.dr[7] |= 1ull << 5;
	ck_assert_uint_eq(debug_match_insn(&cpu, 0x4003), 5);
	cpu.dr[7] = 0x400 | (DR_RW_EXEC << 16);
	ck_assert_uint_eq(debug_match_insn(&cpu, 0x4003), 0);
	ck_assert(!debug_active(&cpu));
	/* Outside 64-bit mode addresses compare in 32 bits. */
	cpu.dr[0] = 0x100004003ull;
	cpu.dr[7] = dr7_bp(0, DR_RW_EXEC, 0);
	ck_assert_uint_eq(debug_match_insn(&cpu, 0x4003), 1);
}
END_TEST

START_TEST(io_matching)
{
	cpu.dr[2] = 0x3f9;
	cpu.dr[7] = dr7_bp(2, DR_RW_IO, 1);       /* ports 3F8H-3F9H */
	ck_assert_uint_eq(debug_match_io(&cpu, 0x3f8, 1), 0);   /* CR4.DE = 0 */
	cpu.cr4 |= CR4_DE;
	ck_assert_uint_eq(debug_match_io(&cpu, 0x3f8, 1), 4);
	ck_assert_uint_eq(debug_match_io(&cpu, 0x3f6, 2), 0);
	ck_assert_uint_eq(debug_match_io(&cpu, 0x3f6, 4), 4);
	ck_assert_uint_eq(debug_match_io(&cpu, 0x3fa, 1), 0);
	/* An I/O breakpoint is never a data breakpoint. */
	ck_assert_uint_eq(debug_match_data(&cpu, 0x3f8, 1, true), 0);
	ck_assert(!debug_page_watched(&cpu, 0x3f8));
}
END_TEST

/* ---- in the loop ---- */

START_TEST(insn_breakpoint_fault_and_rf)
{
	static const uint8_t prog[] = { 0x90, 0x40, 0xf4 };   /* nop; inc eax; hlt */
	code(prog, sizeof(prog));
	cpu.dr[0] = CODE + 1;
	cpu.dr[7] = dr7_bp(0, DR_RW_EXEC, 0);
	ck_assert_int_eq(run(), EXC_DB);
	/* A fault: before INC executes, the frame holds its address, RF=0 in the
	 * image (the handler sets it, SDM Vol.3 17.3.1.1). */
	ck_assert_uint_eq(frame_eip(), CODE + 1);
	ck_assert_uint_eq(cpu.regs[R_AX], 0);
	ck_assert_uint_eq(cpu.dr[6] & 0xf, 1);
	ck_assert(!(frame_eflags() & FLAG_RF));
	/* Resume at INC with RF=1: no second #DB; RF cleared afterwards. */
	cpu.regs[R_SP] = STACK0;
	cpu.rip = CODE + 1;
	cpu_set_flags(&cpu, FLAG_RF);
	ck_assert_int_eq(run(), -1);
	ck_assert_uint_eq(cpu.regs[R_AX], 1);
	ck_assert(!(cpu_get_flags(&cpu) & FLAG_RF));
}
END_TEST

START_TEST(data_write_breakpoint_trap)
{
	/* mov %eax, DATA+2 (a3 imm32); nop; hlt */
	static const uint8_t prog[] = { 0xa3, 0x02, 0x60, 0, 0, 0x90, 0xf4 };
	code(prog, sizeof(prog));
	cpu.regs[R_AX] = 0x11223344;
	/* Warm the TLB with the data page first: the breakpoint must still be seen. */
	uint64_t v;
	ck_assert_int_eq(lin_read_sys(&cpu, DATA, 4, &v), ST_OK);
	cpu.dr[3] = DATA + 4;                     /* LEN 4 at DATA+4: bytes 4-7 */
	cpu.dr[7] = dr7_bp(3, DR_RW_WRITE, 3);
	ck_assert_int_eq(run(), EXC_DB);
	/* A trap: the write is done and the frame holds the next instruction. */
	ck_assert_uint_eq(rd(DATA + 2, 4), 0x11223344);
	ck_assert_uint_eq(frame_eip(), CODE + 5);
	ck_assert_uint_eq(cpu.dr[6] & 0xf, 8);
	ck_assert(!(cpu.dr[6] & DR6_BS));
}
END_TEST

START_TEST(data_read_needs_rw11)
{
	/* mov DATA, %eax (a1 imm32); hlt */
	static const uint8_t prog[] = { 0xa1, 0x00, 0x60, 0, 0, 0xf4 };
	code(prog, sizeof(prog));
	cpu.dr[0] = DATA;
	cpu.dr[7] = dr7_bp(0, DR_RW_WRITE, 0);
	ck_assert_int_eq(run(), -1);              /* a read: R/W=01 ignores it */
	cpu.rip = CODE;
	cpu.dr[7] = dr7_bp(0, DR_RW_RDWR, 0);
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(frame_eip(), CODE + 5);
	ck_assert_uint_eq(cpu.dr[6] & 0xf, 1);
}
END_TEST

START_TEST(single_step_and_data_merged)
{
	/* TF set: the write both single-steps and hits the breakpoint: one #DB
	 * with BS and B1 (SDM Vol.3 6.9 Table 6-2, 17.3.1.2, 17.3.1.4). */
	static const uint8_t prog[] = { 0xa3, 0x00, 0x60, 0, 0, 0xf4 };
	code(prog, sizeof(prog));
	cpu.dr[1] = DATA;
	cpu.dr[7] = dr7_bp(1, DR_RW_WRITE, 0);
	cpu_set_flags(&cpu, FLAG_TF);
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(frame_eip(), CODE + 5);
	ck_assert_uint_eq(cpu.dr[6] & (DR6_BS | 0xf), DR6_BS | 2);
	ck_assert_uint_eq(cpu.icount, 3);         /* the MOV, one #DB (not two), the HLT */
}
END_TEST

START_TEST(single_step_alone)
{
	static const uint8_t prog[] = { 0x90, 0x90, 0xf4 };
	code(prog, sizeof(prog));
	cpu_set_flags(&cpu, FLAG_TF);
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(frame_eip(), CODE + 1);
	ck_assert(cpu.dr[6] & DR6_BS);
	ck_assert(frame_eflags() & FLAG_TF);
}
END_TEST

START_TEST(single_step_after_hlt)
{
	/* SDM Vol.3 17.3.1.4: HLT completes, then its single-step trap is
	 * taken; the pending #DB ends the halt (Table 6-2) and returns after
	 * HLT. STI first: its shadow blocks interrupts, not the trap (6.8.3). */
	static const uint8_t prog[] = { 0xfb, 0xf4, 0x90, 0xf4 };   /* sti; hlt; nop; hlt */
	code(prog, sizeof(prog));
	cpu_set_flags(&cpu, FLAG_TF);
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(frame_eip(), CODE + 1);
	cpu.regs[R_SP] = STACK0;
	cpu.rip = CODE + 1;
	cpu.dr[6] = 0xffff0ff0;
	cpu_set_flags(&cpu, FLAG_TF);
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(frame_eip(), CODE + 2);
	ck_assert(cpu.dr[6] & DR6_BS);
}
END_TEST

START_TEST(rf_cleared_without_breakpoints)
{
	/* SDM Vol.3 17.3.1.1: RF is cleared once an instruction completes, with
	 * or without enabled breakpoints (an IRET from a fault handler sets it). */
	static const uint8_t prog[] = { 0x90, 0x90, 0xf4 };
	code(prog, sizeof(prog));
	cpu_set_flags(&cpu, FLAG_RF);
	ck_assert(debug_active(&cpu));
	ck_assert_int_eq(run(), -1);
	ck_assert(!(cpu_get_flags(&cpu) & FLAG_RF));
	ck_assert(!debug_active(&cpu));
}
END_TEST

START_TEST(insn_breakpoint_lost_after_mov_ss)
{
	/* SDM Vol.3 6.8.3: MOV SS and POP SS inhibit debug exceptions until the
	 * boundary after the next instruction, so a code breakpoint on that
	 * instruction is never reported; the one after it still is. APM3 MOV,
	 * POP: the same on the AMD models (kvm-unit-tests' emulator "#DB
	 * suppressed after MOV SS / POP SS"). */
	static const uint8_t mov_ss[] = { 0x8c, 0xd0, 0x8e, 0xd0, 0x90, 0x90, 0xf4 }; /* mov ax,ss; mov ss,ax; nop; nop; hlt */
	static const uint8_t pop_ss[] = { 0x16, 0x17, 0x90, 0x90, 0xf4 };             /* push ss; pop ss; nop; nop; hlt */
	static const struct { const uint8_t *prog; unsigned len, shadowed; } rows[] = {
		{ mov_ss, sizeof(mov_ss), 4 },
		{ pop_ss, sizeof(pop_ss), 2 },
	};
	static const char *const models[] = { "skylake-lite", "epyc-lite" };
	for (unsigned m = 0; m < 2; m++)
		for (unsigned i = 0; i < 2; i++) {
			cpu.model = cpu_model_find(models[m]);
			ck_assert_ptr_nonnull(cpu.model);
			/* Each program at its own address: the decoded-block cache
			 * does not see physmem_write(). */
			uint32_t at = CODE + 0x40 * i;
			for (unsigned b = 0; b < rows[i].len; b++)
				physmem_write(&pm, at + b, 1, rows[i].prog[b]);
			cpu.rip = at;
			cpu.regs[R_SP] = STACK0;
			cpu.dr[6] = 0xffff0ff0;
			cpu.dr[0] = at + rows[i].shadowed;
			cpu.dr[7] = dr7_bp(0, DR_RW_EXEC, 0);
			int v = run();
			ck_assert_msg(v == -1, "%s row %u: #DB in the shadow (vector %d)", models[m], i, v);
			ck_assert_uint_eq(cpu.dr[6] & 0xf, 0);
			/* Past the shadow the same breakpoint faults. */
			cpu.rip = at;
			cpu.regs[R_SP] = STACK0;
			cpu.dr[0] = at + rows[i].shadowed + 1;
			ck_assert_int_eq(run(), EXC_DB);
			ck_assert_uint_eq(frame_eip(), at + rows[i].shadowed + 1);
			ck_assert_uint_eq(cpu.dr[6] & 0xf, 1);
		}
}
END_TEST

/* ---- DR6 and DR7 at delivery ---- */

/* A model that intercepts #DB (as a VMX exception bitmap would) and stops. */
struct db_catch {
	bool seen;
	struct event ev;
};

static status_t catch_db(void *ctx, struct cpu *c, struct exit_record *r)
{
	struct db_catch *k = ctx;
	if (r->kind != IK_EXCEPTION || r->event.vector != EXC_DB || k->seen)
		return ST_OK;
	k->seen = true;
	k->ev = r->event;
	cpu_request_stop(c);
	return ST_VMEXIT;
}

static const struct hv_model db_model = { .name = "catch #DB", .intercept = catch_db };

/* Each #DB condition, its DR6 bits and whether it is the general-detect one. */
static const struct db_row {
	const char *name;
	uint8_t prog[8];
	unsigned len;
	uint64_t dr0, dr7;
	bool tf;
	uint16_t dr6;              /* the bits the #DB reports */
} db_rows[] = {
	/* nop; nop; hlt with TF: BS */
	{ "single step", { 0x90, 0x90, 0xf4 }, 3, 0, 0x400, true, DR6_BS },
	/* instruction breakpoint 0 on the second NOP: B0 */
	{ "instruction breakpoint", { 0x90, 0x90, 0xf4 }, 3, CODE + 1, 0x401, false, 1 },
	/* mov DATA, eax with a write breakpoint 0 on DATA: B0 */
	{ "data breakpoint", { 0xa3, 0x00, 0x60, 0, 0, 0xf4 }, 6, DATA, 0x10401, false, 1 },
	/* mov eax, dr0 with DR7.GD: BD, and GD cleared (SDM Vol.3 17.2.4) */
	{ "general detect", { 0x0f, 0x21, 0xc0, 0xf4 }, 4, 0, 0x400 | DR7_GD, false, DR6_BD },
};
#define N_DB_ROWS (sizeof(db_rows) / sizeof(db_rows[0]))

/* _i: row x {delivered, intercepted}. A #DB's DR6 bits and DR7.GD travel in
 * the event and are written as it is delivered (emu/debug.h); a VM exit in
 * its place leaves DR6 and DR7 alone (SDM Vol.3 27.1), the record carries the
 * bits (the exit qualification's, SDM Vol.3 Table 27-1). */
START_TEST(dr6_written_at_delivery)
{
	const struct db_row *r = &db_rows[_i / 2];
	bool intercepted = _i & 1;
	struct db_catch k = { 0 };
	code(r->prog, r->len);
	cpu.dr[0] = r->dr0;
	cpu.dr[7] = r->dr7;
	cpu_set_flags(&cpu, r->tf ? FLAG_TF : 0);
	if (intercepted) {
		cpu.hv = &db_model;
		cpu.hv_ctx = &k;
		cpu.in_guest = true;
		cpu.icount_limit = cpu.icount + 100;
		ck_assert_int_eq(cpu_run(&cpu), ST_STOP);
		ck_assert_msg(k.seen, "%s: no #DB asked", r->name);
		ck_assert_uint_eq(k.ev.dr6, r->dr6);
		ck_assert_uint_eq(cpu.dr[6], 0xffff0ff0);
		ck_assert_uint_eq(cpu.dr[7], r->dr7);
		return;
	}
	ck_assert_int_eq(run(), EXC_DB);
	ck_assert_uint_eq(cpu.dr[6], 0xffff0ff0 | r->dr6);
	ck_assert_uint_eq(cpu.dr[7], r->dr7 & ~DR7_GD);
}
END_TEST

static Suite *debug_suite(void)
{
	Suite *s = suite_create("debug");
	TCase *tc = tcase_create("matching");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, data_matching_rows);
	tcase_add_test(tc, insn_matching_and_enables);
	tcase_add_test(tc, io_matching);
	suite_add_tcase(s, tc);
	tc = tcase_create("loop");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, insn_breakpoint_fault_and_rf);
	tcase_add_test(tc, data_write_breakpoint_trap);
	tcase_add_test(tc, data_read_needs_rw11);
	tcase_add_test(tc, single_step_and_data_merged);
	tcase_add_test(tc, single_step_alone);
	tcase_add_test(tc, single_step_after_hlt);
	tcase_add_test(tc, rf_cleared_without_breakpoints);
	tcase_add_test(tc, insn_breakpoint_lost_after_mov_ss);
	tcase_add_loop_test(tc, dr6_written_at_delivery, 0, (int)N_DB_ROWS * 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(debug_suite());
}
