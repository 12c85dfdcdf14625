/* Threaded dispatch (emu/threaded.h): a block whose pure instructions skip
 * rIP, the instruction's start and the time must leave the same state as the
 * loop that stores them for every instruction:
 *   fault_after_pure_insns      a #GP after three pure instructions reports the
 *                               faulting instruction (SDM Vol.3 6.5), with the
 *                               pure ones' results and their time retired
 *   pure_insn_ends_block        a block cut by the page end after a pure
 *                               instruction leaves rIP at the page's end
 *   store_ends_threaded_block   a store into the running block's own later
 *                               bytes is seen by the next execution of them
 *                               (SDM Vol.3 11.6): the chain stops after it
 *   deadline_inside_block       an instruction limit inside a block stops at
 *                               it exactly (the loop runs that block)
 *   memory_mov_ends_block       a MOV to memory that hits in the TLB, the last
 *                               of its block (here the next instruction is
 *                               in the next page), leaves rIP after it
 *   page_crossing_load_misses   a load whose first page is in the TLB but
 *                               whose last bytes lie in a not-present page
 *                               takes the slow path and its #PF (CR2: the
 *                               first byte of that page), not a host read
 *                               past the page (mmu/tlb.h tlb_lookup)
 *   deadline_in_chained_loop    a threaded run going on from block to block
 *                               (emu/run.c thread_next_block) stops at an
 *                               instruction limit inside its 51st block,
 *                               the instruction's start there the next one's
 *   fault_in_chained_block      a #DE in the fifth run of a chained loop
 *                               reports that DIV, with the loop's results
 *                               and time up to it
 *   call_ret_chain              near CALL and RET blocks chain: a loop of
 *                               calls ends with the same registers, stack
 *                               and time as the single-step loop (32-bit:
 *                               the generic handlers; 64-bit: the inline case)
 *   imul_movsxd_forms           IMUL r,r/m and MOVSXD with 32- and 64-bit
 *                               registers (their decode-time forms): the
 *                               truncated product with CF = OF = the lost
 *                               bits (SDM Vol.2 IMUL), sign- or zero-extension
 *                               (SDM Vol.2 MOVSX/MOVSXD); SETcc and CMOVcc of
 *                               a byte and a 32-bit register read the flags
 *   alu_memory_forms            ALU with a 32- or 64-bit memory operand
 *                               (pure on a TLB hit): G op= [m], [m] op= G/imm,
 *                               CMP [m] and ADC's carry in; a read-modify-write
 *                               of a page read before but not writable (CR0.WP)
 *                               is a #PF with W=1 that changes neither the
 *                               memory nor the flags (SDM Vol.3 4.6, 6.5)
 *   branch_past_cs_limit        a taken Jcc or a JMP to a target beyond the CS
 *                               limit is #GP(0) at the branch (SDM Vol.2 Jcc,
 *                               JMP), with what ran before it retired; a Jcc
 *                               not taken goes on
 *   push_pop_forms              PUSH/POP of a register, pure on a TLB hit:
 *                               PUSH RSP stores the old value, POP RSP leaves
 *                               the popped one (SDM Vol.2 PUSH, POP); a 16-bit
 *                               stack under 32-bit code wraps SP at 64 KiB
 *   dead_flags_kept_live        an ALU result's flags stay visible when the
 *                               next instruction does not replace all six:
 *                               INC/DEC keep CF (SDM Vol.2 INC, DEC), a shift
 *                               by a count of 0 changes no flag (SDM Vol.2
 *                               SAL/SAR/SHL/SHR), ADC reads CF
 *   flagless_forms_agree        a block of ALU, TEST, INC/DEC and shift
 *                               register forms whose flags the next one
 *                               replaces (their flagless thread forms) ends
 *                               with the registers and flags of the single-step
 *                               loop, in 32- and 64-bit mode
 *   self_modifying_loop         a loop that rewrites its own immediate: the
 *                               loop's next round runs the new bytes (SDM Vol.3
 *                               11.6), though it jumps back to its own block */
#include <check.h>
#include <string.h>

#include "emu/flags.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static struct test_machine m;

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void setup(void)
{
	machine_init(&m, "core2");
	m.pm.on_ram_write = ram_written;
	m.pm.on_ram_write_opaque = &m.cpu;
}

static void teardown(void)
{
	machine_free(&m);
}

static void put(uint64_t pa, const uint8_t *bytes, unsigned len)
{
	physmem_write_bytes(&m.pm, pa, bytes, len);
}
#define PUT(pa, ...) put((pa), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

START_TEST(fault_after_pure_insns)
{
	struct event seen = { 0 };
	activate(&m);
	to64(&m);
	stop_at_events(&m, &seen);
	PUT(0x40000, 0xb8, 0x05, 0x00, 0x00, 0x00,   /* mov eax, 5 */
	    0x01, 0xc0,                               /* add eax, eax */
	    0xc1, 0xe0, 0x02,                         /* shl eax, 2 */
	    0x48, 0x8b, 0x19,                         /* mov rbx, [rcx]: rcx non-canonical */
	    0xf4);
	m.cpu.regs[R_CX] = 0x8000000000000000ull;
	m.cpu.rip = 0x40000;
	uint64_t before = m.cpu.icount;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);   /* stop_at_events */
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(m.cpu.rip, 0x4000a);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 40);
	/* Three retired, and the delivered exception (emu/run.c). */
	ck_assert_uint_eq(m.cpu.icount - before, 4);
}
END_TEST

START_TEST(pure_insn_ends_block)
{
	PUT(0x40ffb, 0xb8, 0x44, 0x33, 0x22, 0x11);   /* mov eax, 11223344h: ends at the page */
	PUT(0x41000, 0x89, 0xc3,                      /* mov ebx, eax */
	    0xf4);
	m.cpu.rip = 0x40ffb;
	m.cpu.icount_limit = m.cpu.icount + 10;
	uint64_t before = m.cpu.icount;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x11223344);
	ck_assert_uint_eq(m.cpu.rip, 0x41003);
	ck_assert_uint_eq(m.cpu.icount - before, 3);
}
END_TEST

START_TEST(store_ends_threaded_block)
{
	/* The store rewrites the immediate of the MOV after it, in its own block. */
	PUT(0x40000, 0xc6, 0x05, 0x08, 0x00, 0x04, 0x00, 0x77,   /* mov byte [40008h], 77h */
	    0xb0, 0x11,                                         /* mov al, 11h -> 77h */
	    0x89, 0xc3,                                         /* mov ebx, eax */
	    0xf4);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0;
	m.cpu.icount_limit = m.cpu.icount + 10;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x77);
}
END_TEST

START_TEST(deadline_inside_block)
{
	PUT(0x40000, 0x40,          /* inc eax */
	    0x40, 0x40, 0x40, 0x40,
	    0xf4);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0;
	/* Whole, then from the same cached block with a limit inside it. */
	m.cpu.icount_limit = m.cpu.icount + 10;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 5);
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
	m.cpu.icount_limit = m.cpu.icount + 3;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 8);
	ck_assert_uint_eq(m.cpu.rip, 0x40003);
}
END_TEST

START_TEST(memory_mov_ends_block)
{
	activate(&m);
	to64(&m);
	PUT(0x40ff2, 0x89, 0x04, 0x25, 0x00, 0x00, 0x05, 0x00,   /* mov [50000h], eax: fills the TLB */
	    0x89, 0x1c, 0x25, 0x04, 0x00, 0x05, 0x00);          /* mov [50004h], ebx: ends at the page */
	PUT(0x41000, 0xf4);
	m.cpu.regs[R_AX] = 0x11111111;
	m.cpu.regs[R_BX] = 0x22222222;
	m.cpu.rip = 0x40ff2;
	m.cpu.icount_limit = m.cpu.icount + 10;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.rip, 0x41001);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x50004, 4), 0x22222222);
}
END_TEST

START_TEST(page_crossing_load_misses)
{
	struct event seen = { 0 };
	activate(&m);
	to64(&m);
	stop_at_events(&m, &seen);
	physmem_write(&m.pm, PD + 8, 8, 0);            /* 200000H-3FFFFFH not present */
	PUT(0x40000, 0x8b, 0x04, 0x25, 0xf0, 0xff, 0x1f, 0x00,   /* mov eax, [1FFFF0h]: fills the TLB */
	    0x8b, 0x04, 0x25, 0xfe, 0xff, 0x1f, 0x00,           /* mov eax, [1FFFFEh]: crosses */
	    0xf4);
	m.cpu.rip = 0x40000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_PF);
	ck_assert_uint_eq(seen.cr2, 0x200000);
	ck_assert_uint_eq(m.cpu.rip, 0x40007);
}
END_TEST

START_TEST(deadline_in_chained_loop)
{
	PUT(0x40000, 0x40,          /* 1: inc eax */
	    0x49,                   /* dec ecx */
	    0x75, 0xfc,             /* jnz 1b */
	    0xf4);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_CX] = 100;
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 100);
	/* Again from the linked blocks: 50 iterations and two instructions. */
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_CX] = 100;
	uint64_t before = m.cpu.icount;
	m.cpu.icount_limit = before + 3 * 50 + 2;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(m.cpu.icount - before, 3 * 50 + 2);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 51);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 49);
	ck_assert_uint_eq(m.cpu.rip, 0x40002);
	/* Stopped at a boundary: the instruction a report there names is the
	 * one that comes next, not the last that ran (emu/run.c cpu_run). */
	ck_assert_uint_eq(m.cpu.insn_start, 0x40002);
}
END_TEST

START_TEST(fault_in_chained_block)
{
	struct event seen = { 0 };
	activate(&m);
	to_compat(&m);
	stop_at_events(&m, &seen);
	PUT(0x40000, 0x49,                        /* 1: dec ecx */
	    0x31, 0xd2,                           /* xor edx, edx */
	    0xb8, 0x64, 0x00, 0x00, 0x00,         /* mov eax, 100 */
	    0xf7, 0xf1,                           /* div ecx: #DE once ecx is 0 */
	    0xeb, 0xf4);                          /* jmp 1b */
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_CX] = 5;
	uint64_t before = m.cpu.icount;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_DE);
	ck_assert_uint_eq(m.cpu.rip, 0x40008);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 100);
	/* Four whole iterations, three instructions and the exception. */
	ck_assert_uint_eq(m.cpu.icount - before, 4 * 5 + 3 + 1);
}
END_TEST

/* Run to HLT one instruction at a time (TF's path without the trap: an
 * instruction limit of one each time), so that no block runs threaded. */
static void run_single_steps_to_halt(void)
{
	status_t st;
	do {
		m.cpu.icount_limit = m.cpu.icount + 1;
		st = cpu_run(&m.cpu);
	} while (st == ST_STOP);
	ck_assert_int_eq(st, ST_HALT);
}

/* 40000: 1: call 40010; dec ecx; jnz 1b; hlt    40010: add eax, ebx; inc ebx; ret
 * (the same bytes in 32-bit and 64-bit mode) */
static void call_ret_program(void)
{
	PUT(0x40000, 0xe8, 0x0b, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xf7, 0xf4);
	PUT(0x40010, 0x01, 0xd8, 0xff, 0xc3, 0xc3);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_BX] = 1;
	m.cpu.regs[R_CX] = 40;
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.halted = false;
}

static void call_ret_run(bool long_mode)
{
	if (long_mode) {
		activate(&m);
		to64(&m);
	}
	call_ret_program();
	uint64_t before = m.cpu.icount;
	m.cpu.icount_limit = before + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	uint64_t threaded_time = m.cpu.icount - before;
	/* sum of 1..40 */
	ck_assert_uint_eq(m.cpu.regs[R_AX], 820);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x80000);
	ck_assert_uint_eq(m.cpu.rip, 0x4000a);
	/* The same one instruction at a time. */
	call_ret_program();
	before = m.cpu.icount;
	run_single_steps_to_halt();
	ck_assert_uint_eq(m.cpu.icount - before, threaded_time);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 820);
	ck_assert_uint_eq(threaded_time, 40 * 6 + 1);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x80000);
}

START_TEST(call_ret_chain)
{
	call_ret_run(false);
	call_ret_run(true);
}
END_TEST

START_TEST(imul_movsxd_forms)
{
	activate(&m);
	to64(&m);
	PUT(0x40000, 0x48, 0x0f, 0xaf, 0xc3,   /* imul rax, rbx: 2^32 * 2^32 overflows to 0 */
	    0x0f, 0x92, 0xc1,                   /* setc cl */
	    0x0f, 0x94, 0xc5,                   /* setz ch */
	    0x0f, 0xaf, 0xfe,                   /* imul edi, esi: -3 * -2^31+5 overflows */
	    0x41, 0x0f, 0x92, 0xc0,             /* setc r8b */
	    0x48, 0x63, 0xd6,                   /* movsxd rdx, esi */
	    0x63, 0xee,                         /* movsxd ebp, esi (32-bit: a move) */
	    0x4d, 0x0f, 0xaf, 0xca,             /* imul r9, r10 */
	    0x0f, 0x40, 0xdf,                   /* cmovo ebx, edi (OF clear: upper half cleared) */
	    0xf4);
	m.cpu.regs[R_AX] = 1ull << 32;
	m.cpu.regs[R_BX] = 1ull << 32;
	m.cpu.regs[R_CX] = 0x5555;
	m.cpu.regs[R_DI] = (uint32_t)-3;
	m.cpu.regs[R_SI] = 0x80000005;
	m.cpu.regs[R_R8] = 0x77;
	m.cpu.regs[R_R9] = (uint64_t)-7;
	m.cpu.regs[R_R10] = 6;
	m.cpu.rip = 0x40000;
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0x0101);                 /* CF = 1, ZF = 1 */
	ck_assert_uint_eq(m.cpu.regs[R_DI], (uint32_t)(-3 * (int64_t)(int32_t)0x80000005));
	ck_assert_uint_eq(m.cpu.regs[R_R8], 0x01);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0xffffffff80000005ull);
	ck_assert_uint_eq(m.cpu.regs[R_BP], 0x80000005);
	ck_assert_uint_eq(m.cpu.regs[R_R9], (uint64_t)-42);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0);                      /* 2^32 with bits 63:32 cleared */
	ck_assert_uint_eq(cpu_get_flags(&m.cpu) & (FLAG_CF | FLAG_OF | FLAG_SF), FLAG_SF);
}
END_TEST

START_TEST(alu_memory_forms)
{
	struct event seen = { 0 };
	activate(&m);
	to64(&m);
	physmem_write(&m.pm, 0x50000, 8, 0x100000005ull);
	physmem_write(&m.pm, 0x50008, 4, 0x7);
	PUT(0x40000, 0x48, 0x01, 0x04, 0x25, 0x00, 0x00, 0x05, 0x00,   /* add [50000h], rax */
	    0x48, 0x2b, 0x1c, 0x25, 0x00, 0x00, 0x05, 0x00,             /* sub rbx, [50000h] */
	    0x39, 0x0c, 0x25, 0x08, 0x00, 0x05, 0x00,                   /* cmp [50008h], ecx */
	    0x0f, 0x92, 0xc2,                                           /* setc dl: 7 < 9 */
	    0x83, 0x14, 0x25, 0x08, 0x00, 0x05, 0x00, 0x10,             /* adc dword [50008h], 10h */
	    0x81, 0x34, 0x25, 0x0c, 0x00, 0x05, 0x00, 0x78, 0x56, 0x34, 0x12, /* xor dword [5000Ch], 12345678h */
	    0xf4);
	m.cpu.regs[R_AX] = 0xfffffffffffffffeull;   /* + 100000005h: carry out */
	m.cpu.regs[R_BX] = 0x100000003ull;
	m.cpu.regs[R_CX] = 9;
	m.cpu.rip = 0x40000;
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x50000, 8), 0x100000003ull);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0);
	ck_assert_uint_eq(m.cpu.regs[R_DX] & 0xff, 1);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x50008, 4), 0x7 + 0x10 + 1);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x5000c, 4), 0x12345678);

	/* 200000H-3FFFFFH read-only, CR0.WP = 1: read, then a read-modify-write. */
	physmem_write(&m.pm, PD + 8, 8, 0x200000 | 0x81);
	m.cpu.cr0 |= CR0_WP;
	tlb_flush_all(&m.cpu.tlb);
	stop_at_events(&m, &seen);
	physmem_write(&m.pm, 0x200000, 4, 40);
	PUT(0x40000, 0x03, 0x04, 0x25, 0x00, 0x00, 0x20, 0x00,         /* add eax, [200000h] */
	    0x31, 0xdb,                                                 /* xor ebx, ebx: ZF = 1 */
	    0x01, 0x04, 0x25, 0x00, 0x00, 0x20, 0x00,                   /* add [200000h], eax: #PF */
	    0xf4);
	m.cpu.regs[R_AX] = 2;
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_PF);
	ck_assert_uint_eq(seen.error_code, PFEC_P | PFEC_W);
	ck_assert_uint_eq(m.cpu.rip, 0x40009);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 42);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x200000, 4), 40);
	ck_assert_uint_eq(cpu_get_flags(&m.cpu) & FLAG_ZF, FLAG_ZF);
}
END_TEST

START_TEST(branch_past_cs_limit)
{
	struct event seen = { 0 };
	stop_at_events(&m, &seen);
	m.cpu.seg[SR_CS].limit = 0x40fff;
	PUT(0x40000, 0x40,                        /* inc eax */
	    0x85, 0xc0,                           /* test eax, eax: ZF = 0 */
	    0x0f, 0x84, 0xf7, 0x0f, 0x00, 0x00,   /* jz 41000h: not taken */
	    0x0f, 0x85, 0xf1, 0x0f, 0x00, 0x00,   /* jnz 41000h: #GP */
	    0xf4);
	m.cpu.regs[R_AX] = 0;
	m.cpu.rip = 0x40000;
	uint64_t before = m.cpu.icount;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(m.cpu.rip, 0x40009);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 1);
	ck_assert_uint_eq(m.cpu.icount - before, 3 + 1);
	PUT(0x40100, 0xe9, 0xfb, 0x0e, 0x00, 0x00);   /* jmp 41000h: #GP */
	seen.vector = 0;
	m.cpu.rip = 0x40100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(m.cpu.rip, 0x40100);
}
END_TEST

START_TEST(dead_flags_kept_live)
{
	PUT(0x40000, 0x01, 0xd8,             /* add eax, ebx: CF = 1, ZF = 1 */
	    0x41,                           /* inc ecx: CF stays */
	    0x0f, 0x92, 0xc2,               /* setc dl */
	    0x29, 0xc0,                     /* sub eax, eax: ZF = 1, CF = 0 */
	    0xd3, 0xe3,                     /* shl ebx, cl: cl = 0, no flag changes */
	    0x0f, 0x94, 0xc6,               /* setz dh */
	    0x01, 0xf6,                     /* add esi, esi: CF = 1 */
	    0xc1, 0xe7, 0x20,               /* shl edi, 32: a count of 0 after masking */
	    0x11, 0xed,                     /* adc ebp, ebp: 0 + 0 + CF */
	    0xf4);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0xffffffff;
	m.cpu.regs[R_BX] = 1;
	m.cpu.regs[R_CX] = 0xfffffeff;   /* CL = 0 after the INC */
	m.cpu.regs[R_DX] = 0;
	m.cpu.regs[R_SI] = 0x80000000;
	m.cpu.regs[R_DI] = 3;
	m.cpu.regs[R_BP] = 0;
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_DX], 0x0101);
	ck_assert_uint_eq(m.cpu.regs[R_DI], 3);
	ck_assert_uint_eq(m.cpu.regs[R_BP], 1);
}
END_TEST

/* Every flagless thread form, each followed by a full flag writer, then the
 * last one's flags read. The same bytes mean the same in 32- and 64-bit mode
 * but for 48h (REX.W there, DEC EAX in 32-bit mode: not a full writer). */
static const uint8_t flagless_program[] = {
	0x01, 0xd8, 0x29, 0xcb, 0x21, 0xd1, 0x09, 0xda,   /* add eax,ebx; sub ebx,ecx; and ecx,edx; or edx,ebx */
	0x31, 0xc6, 0x03, 0xfe, 0x2b, 0xc7, 0x23, 0xd8,   /* xor esi,eax; add edi,esi; sub eax,edi; and ebx,eax */
	0x0b, 0xcb, 0x33, 0xd1, 0x39, 0xc2, 0x3b, 0xd9,   /* or ecx,ebx; xor edx,ecx; cmp edx,eax; cmp ebx,ecx */
	0x85, 0xc9, 0x83, 0xc0, 0x7f, 0x81, 0xeb, 0x44,   /* test ecx,ecx; add eax,7fh; sub ebx,11223344h */
	0x33, 0x22, 0x11, 0x83, 0xe1, 0xf0, 0x83, 0xca,
	0x05, 0x83, 0xf6, 0x5a, 0x83, 0xf8, 0x10, 0xff,   /* and ecx,-16; or edx,5; xor esi,5ah; cmp eax,10h */
	0xc7, 0x21, 0xc0, 0xff, 0xcf, 0x01, 0xf8, 0xc1,   /* inc edi; and eax,eax; dec edi; add eax,edi */
	0xe0, 0x05, 0x09, 0xc3, 0xc1, 0xeb, 0x03, 0x31,   /* shl eax,5; or ebx,eax; shr ebx,3; xor ... */
	0xd8, 0xc1, 0xf8, 0x02, 0x29, 0xc6, 0xd1, 0xe6,   /* eax,ebx; sar eax,2; sub esi,eax; shl esi,1 */
	0x01, 0xf1, 0xd3, 0xe2, 0x85, 0xd2, 0x48, 0x01,   /* add ecx,esi; shl edx,cl; test edx,edx; [rex.w] add */
	0xc8, 0x48, 0x29, 0xd8, 0x48, 0xc1, 0xe0, 0x07,   /* eax,ecx; [rex.w] sub eax,ebx; [rex.w] shl eax,7 */
	0x48, 0x83, 0xe8, 0x01, 0x0f, 0x92, 0xc1,         /* [rex.w] sub eax,1; setc cl */
	0xf4,
};

static void flagless_start(void)
{
	put(0x40000, flagless_program, sizeof(flagless_program));
	static const uint64_t start[8] = { 0x80000001, 0x7fffffff, 0xdeadbeef, 0x01234567,
					   0, 0x55aa55aa, 0xfffffff0, 3 };
	for (unsigned r = 0; r < 8; r++)
		if (r != R_SP)
			m.cpu.regs[r] = start[r];
	m.cpu.rip = 0x40000;
	m.cpu.halted = false;
}

static void flagless_run(bool long_mode)
{
	if (long_mode) {
		activate(&m);
		to64(&m);
	}
	flagless_start();
	m.cpu.icount_limit = m.cpu.icount + 1000;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	uint64_t threaded[8];
	memcpy(threaded, m.cpu.regs, sizeof(threaded));
	flags_materialize(&m.cpu);
	uint64_t threaded_flags = m.cpu.rflags;
	flagless_start();
	run_single_steps_to_halt();
	for (unsigned r = 0; r < 8; r++)
		ck_assert_uint_eq(m.cpu.regs[r], threaded[r]);
	flags_materialize(&m.cpu);
	ck_assert_uint_eq(m.cpu.rflags, threaded_flags);
}

START_TEST(flagless_forms_agree)
{
	flagless_run(false);
	flagless_run(true);
}
END_TEST

START_TEST(self_modifying_loop)
{
	PUT(0x40000, 0x83, 0xc0, 0x01,                   /* 1: add eax, 1 */
	    0xc6, 0x05, 0x02, 0x00, 0x04, 0x00, 0x02,     /* mov byte [40002h], 2 */
	    0x49,                                       /* dec ecx */
	    0x75, 0xf3,                                 /* jnz 1b */
	    0xf4);
	m.cpu.rip = 0x40000;
	m.cpu.regs[R_AX] = 0;
	m.cpu.regs[R_CX] = 3;
	m.cpu.icount_limit = m.cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 1 + 2 + 2);
}
END_TEST

START_TEST(push_pop_forms)
{
	activate(&m);
	to64(&m);
	PUT(0x40000, 0x54,          /* push rsp */
	    0x58,                   /* pop rax: the old rsp */
	    0x53,                   /* push rbx */
	    0x5c,                   /* pop rsp: rbx */
	    0x41, 0x50,             /* push r8 */
	    0x41, 0x59,             /* pop r9 */
	    0xf4);
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.regs[R_BX] = 0x70008;
	m.cpu.regs[R_R8] = 0x1122334455667788ull;
	m.cpu.rip = 0x40000;
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x80000);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x70008);
	ck_assert_uint_eq(m.cpu.regs[R_R9], 0x1122334455667788ull);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x70000, 8), 0x1122334455667788ull);
}
END_TEST

START_TEST(push_pop_16bit_stack)
{
	/* 32-bit code, SS.B = 0: PUSH EAX writes at SS:(SP - 4) & FFFFh and
	 * changes SP only (SDM Vol.3 3.4.5, Vol.2 PUSH). */
	activate(&m);
	to_compat(&m);
	m.cpu.seg[SR_SS].attr &= ~(uint32_t)SEG_DB;
	PUT(0x40000, 0x89, 0x05, 0x10, 0x00, 0x02, 0x00,   /* mov [20010h], eax: where ESP - 4 lies */
	    0x50,                   /* push eax */
	    0x5b,                   /* pop ebx */
	    0x50,                   /* push eax */
	    0xf4);
	m.cpu.regs[R_AX] = 0xcafef00d;
	m.cpu.regs[R_SP] = 0x00020006;
	m.cpu.rip = 0x40000;
	m.cpu.icount_limit = m.cpu.icount + 20;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_HALT);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0xcafef00d);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x00020002);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x0002, 4), 0xcafef00d);
}
END_TEST

static Suite *threaded_suite(void)
{
	Suite *s = suite_create("threaded");
	TCase *tc = tcase_create("threaded");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, fault_after_pure_insns);
	tcase_add_test(tc, pure_insn_ends_block);
	tcase_add_test(tc, store_ends_threaded_block);
	tcase_add_test(tc, deadline_inside_block);
	tcase_add_test(tc, memory_mov_ends_block);
	tcase_add_test(tc, page_crossing_load_misses);
	tcase_add_test(tc, deadline_in_chained_loop);
	tcase_add_test(tc, fault_in_chained_block);
	tcase_add_test(tc, call_ret_chain);
	tcase_add_test(tc, imul_movsxd_forms);
	tcase_add_test(tc, alu_memory_forms);
	tcase_add_test(tc, branch_past_cs_limit);
	tcase_add_test(tc, push_pop_forms);
	tcase_add_test(tc, push_pop_16bit_stack);
	tcase_add_test(tc, dead_flags_kept_live);
	tcase_add_test(tc, flagless_forms_agree);
	tcase_add_test(tc, self_modifying_loop);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(threaded_suite());
}
