/* Check suite for the integer instruction handlers (emu/alu.c, shift.c, muldiv.c,
 * bitops.c, bcd.c, datamove.c, branch.c, string.c): real instruction bytes are
 * decoded by the generated decoder and executed on a CPU in flat 32-bit
 * protected mode at CPL 0 over 1 MiB of RAM. A small stepper runs them one at a
 * time the way cpu_run() does (RIP advanced before the handler, put back on a
 * fault), so faults can be inspected before any delivery. */
#include <check.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/flags.h"
#include "emu/insn.h"
#include "mmu/segment.h"
#include "suite_runner.h"

#define RAM_SIZE (1u << 20)
#define CODE 0x1000u

static struct physmem pm;
static struct iobus io;
static struct cpu cpu;

/* Flat descriptor, 4 KiB granular, base 0 (SDM Vol.3 3.4.5). */
static uint64_t flat(unsigned access, uint32_t limit, bool gran)
{
	return (limit & 0xffff) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)(gran ? 0xc : 0x4) << 52);
}

static void machine_on(const char *model)
{
	ck_assert(physmem_init(&pm, RAM_SIZE));
	iobus_init(&io);
	cpu_init(&cpu, cpu_model_find(model), &pm, &io);
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], 0x08, flat(0x9b, 0xfffff, true));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], 0x10, flat(0x93, 0xfffff, true));
	cpu.cpl = 0;
	cpu_update_mode(&cpu);
	cpu.regs[R_SP] = 0x8000;
	cpu.rip = CODE;
}

static void setup(void) { machine_on("core2"); }

static void teardown(void)
{
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
}

/* Real mode: CS base 0x1000 (so the code at linear CODE is at IP 0), DS base
 * 0x2000, ES base 0x3000, SS:SP = 0000:8000, as after RESET otherwise. */
static void setup_real(void)
{
	ck_assert(physmem_init(&pm, RAM_SIZE));
	iobus_init(&io);
	cpu_init(&cpu, cpu_model_find("core2"), &pm, &io);
	seg_load_real(&cpu.seg[SR_CS], CODE >> 4);
	seg_load_real(&cpu.seg[SR_DS], 0x200);
	seg_load_real(&cpu.seg[SR_ES], 0x300);
	seg_load_real(&cpu.seg[SR_SS], 0);
	cpu_update_mode(&cpu);
	cpu.regs[R_SP] = 0x8000;
}

/* Default code size of the current CS (16 in real mode or with CS.D = 0). */
static unsigned code_size(void)
{
	return cpu_is_prot(&cpu) && (cpu.seg[SR_CS].attr & SEG_DB) ? 32 : 16;
}

/* IP of the code placed at linear CODE. */
static uint64_t code_ip(void)
{
	return CODE - cpu.seg[SR_CS].base;
}

/* Execute the instruction at CS:RIP. */
static status_t step(void)
{
	struct insn in;
	unsigned mode = code_size();
	uint64_t lin = (uint32_t)(cpu.seg[SR_CS].base + cpu.rip);
	int len = decode_insn(pm.ram + lin, INSN_MAX_LEN, mode, &in);
	ck_assert_int_gt(len, 0);
	cpu.insn_start = cpu.rip;
	cpu.rip = (cpu.rip + (unsigned)len) & (mode == 32 ? 0xffffffffu : 0xffffu);
	status_t st = in.exec(&cpu, &in);
	if (st == ST_FAULT)
		cpu.rip = cpu.insn_start;
	return st;
}

/* Place code at linear CODE and run it until RIP reaches its end. */
static void run(const uint8_t *code, unsigned len)
{
	memcpy(pm.ram + CODE, code, len);
	cpu.rip = code_ip();
	for (unsigned n = 0; cpu.rip != code_ip() + len; n++) {
		ck_assert_uint_lt(n, 1000000);
		status_t st = step();
		ck_assert_msg(st == ST_OK, "status %d at %#llx", (int)st, (unsigned long long)cpu.insn_start);
	}
}
#define RUN(...) do { static const uint8_t c_[] = { __VA_ARGS__ }; run(c_, sizeof(c_)); } while (0)

/* Run one instruction that must fault with vector vec; RIP stays on it. */
static void expect_fault(const uint8_t *code, unsigned len, uint8_t vec)
{
	memcpy(pm.ram + CODE, code, len);
	cpu.rip = code_ip();
	ck_assert_int_eq(step(), ST_FAULT);
	ck_assert_uint_eq(cpu.event.vector, vec);
	ck_assert_uint_eq(cpu.rip, code_ip());
}
#define FAULT(vec, ...) do { static const uint8_t c_[] = { __VA_ARGS__ }; expect_fault(c_, sizeof(c_), vec); } while (0)

static uint64_t flags(void) { return cpu_get_flags(&cpu) & FLAGS_ARITH; }
static uint32_t reg(unsigned r) { return (uint32_t)cpu.regs[r]; }
static uint32_t mem32(uint32_t a) { uint32_t v; memcpy(&v, pm.ram + a, 4); return v; }
static void put32(uint32_t a, uint32_t v) { memcpy(pm.ram + a, &v, 4); }

/* --- ALU --- */

START_TEST(sum_loop)
{
	/* mov ecx,10; xor eax,eax; L: add eax,ecx; dec ecx; jnz L */
	RUN(0xb9, 10, 0, 0, 0, 0x31, 0xc0, 0x01, 0xc8, 0x49, 0x75, 0xfb);
	ck_assert_uint_eq(reg(R_AX), 55);
	ck_assert_uint_eq(reg(R_CX), 0);
	ck_assert_uint_eq(flags() & (FLAG_ZF | FLAG_CF), FLAG_ZF);
}
END_TEST

START_TEST(adc_sbb_chain)
{
	/* 64-bit add in two halves: edx:eax = 0x00000001_ffffffff + 0x00000000_00000001 */
	cpu.regs[R_AX] = 0xffffffff; cpu.regs[R_DX] = 1;
	cpu.regs[R_BX] = 1; cpu.regs[R_CX] = 0;
	RUN(0x01, 0xd8, 0x11, 0xca);                /* add eax,ebx; adc edx,ecx */
	ck_assert_uint_eq(reg(R_AX), 0);
	ck_assert_uint_eq(reg(R_DX), 2);
	RUN(0x29, 0xd8, 0x19, 0xca);                /* sub eax,ebx; sbb edx,ecx */
	ck_assert_uint_eq(reg(R_AX), 0xffffffff);
	ck_assert_uint_eq(reg(R_DX), 1);
	ck_assert_uint_eq(flags() & FLAG_CF, 0);
}
END_TEST

START_TEST(alu_memory_and_bytes)
{
	put32(0x2000, 0x000000ff);
	/* add byte [0x2000],1 (80 /0) */
	RUN(0x80, 0x05, 0x00, 0x20, 0x00, 0x00, 0x01);
	ck_assert_uint_eq(mem32(0x2000), 0);
	ck_assert_uint_eq(flags(), FLAG_CF | FLAG_PF | FLAG_AF | FLAG_ZF);
	RUN(0x83, 0x0d, 0x00, 0x20, 0x00, 0x00, 0xf0);  /* or dword [0x2000], -16 */
	ck_assert_uint_eq(mem32(0x2000), 0xfffffff0);
	ck_assert_uint_eq(flags(), FLAG_PF | FLAG_SF);
	/* AH/CH byte registers without REX: mov ah,0x7f; add ah,1 */
	RUN(0xb4, 0x7f, 0x80, 0xc4, 0x01);
	ck_assert_uint_eq((reg(R_AX) >> 8) & 0xff, 0x80);
	ck_assert_uint_eq(flags() & FLAG_OF, FLAG_OF);
	/* cmp with no store; test */
	cpu.regs[R_AX] = 5;
	RUN(0x3d, 5, 0, 0, 0, 0xa9, 0, 0, 0, 0x80);  /* cmp eax,5; test eax,0x80000000 */
	ck_assert_uint_eq(reg(R_AX), 5);
	ck_assert_uint_eq(flags(), FLAG_ZF | FLAG_PF);
}
END_TEST

START_TEST(inc_keeps_cf_neg_not)
{
	cpu.regs[R_AX] = 0xffffffff;
	RUN(0xf9, 0x40);                            /* stc; inc eax */
	ck_assert_uint_eq(reg(R_AX), 0);
	ck_assert_uint_eq(flags(), FLAG_CF | FLAG_ZF | FLAG_PF | FLAG_AF);
	cpu.regs[R_BX] = 0x80;
	RUN(0xf6, 0xdb);                            /* neg bl */
	ck_assert_uint_eq(reg(R_BX), 0x80);
	ck_assert_uint_eq(flags(), FLAG_CF | FLAG_OF | FLAG_SF);
	RUN(0xf7, 0xd3);                            /* not ebx: no flags */
	ck_assert_uint_eq(reg(R_BX), 0xffffff7f);
	ck_assert_uint_eq(flags(), FLAG_CF | FLAG_OF | FLAG_SF);
}
END_TEST

START_TEST(xadd_cmpxchg)
{
	cpu.regs[R_AX] = 3; cpu.regs[R_CX] = 4;
	RUN(0x0f, 0xc1, 0xc8);                      /* xadd eax,ecx */
	ck_assert_uint_eq(reg(R_AX), 7);
	ck_assert_uint_eq(reg(R_CX), 3);
	put32(0x2000, 5);
	cpu.regs[R_AX] = 5; cpu.regs[R_CX] = 9;
	RUN(0xf0, 0x0f, 0xb1, 0x0d, 0x00, 0x20, 0x00, 0x00);   /* lock cmpxchg [0x2000],ecx */
	ck_assert_uint_eq(mem32(0x2000), 9);
	ck_assert_uint_eq(flags() & FLAG_ZF, FLAG_ZF);
	RUN(0x0f, 0xb1, 0x0d, 0x00, 0x20, 0x00, 0x00);
	ck_assert_uint_eq(reg(R_AX), 9);
	ck_assert_uint_eq(flags() & FLAG_ZF, 0);
	/* cmpxchg8b [0x2000]: edx:eax == m64 -> m64 = ecx:ebx */
	put32(0x2000, 1); put32(0x2004, 2);
	cpu.regs[R_AX] = 1; cpu.regs[R_DX] = 2; cpu.regs[R_BX] = 0x33; cpu.regs[R_CX] = 0x44;
	RUN(0x0f, 0xc7, 0x0d, 0x00, 0x20, 0x00, 0x00);
	ck_assert_uint_eq(mem32(0x2000), 0x33);
	ck_assert_uint_eq(mem32(0x2004), 0x44);
	ck_assert_uint_eq(flags() & FLAG_ZF, FLAG_ZF);
	/* LOCK on a register destination is #UD (SDM Vol.2 LOCK). */
	FAULT(EXC_UD, 0xf0, 0x01, 0xc0);
}
END_TEST

/* --- multiply / divide --- */

START_TEST(mul_div)
{
	cpu.regs[R_AX] = 0x12345678; cpu.regs[R_CX] = 0x100;
	RUN(0xf7, 0xe1);                            /* mul ecx */
	ck_assert_uint_eq(reg(R_DX), 0x12);
	ck_assert_uint_eq(reg(R_AX), 0x34567800);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_OF), FLAG_CF | FLAG_OF);
	RUN(0xf7, 0xf1);                            /* div ecx */
	ck_assert_uint_eq(reg(R_AX), 0x12345678);
	ck_assert_uint_eq(reg(R_DX), 0);
	/* byte forms: mov ax,1000; mov cl,7; div cl -> al=142, ah=6 */
	cpu.regs[R_AX] = 1000; cpu.regs[R_CX] = 7;
	RUN(0xf6, 0xf1);
	ck_assert_uint_eq(reg(R_AX) & 0xffff, (6 << 8) | 142);
	/* idiv: -7 / 2 = -3 rem -1 */
	cpu.regs[R_AX] = (uint32_t)-7; cpu.regs[R_DX] = 0xffffffff; cpu.regs[R_CX] = 2;
	RUN(0xf7, 0xf9);
	ck_assert_uint_eq(reg(R_AX), (uint32_t)-3);
	ck_assert_uint_eq(reg(R_DX), (uint32_t)-1);
}
END_TEST

START_TEST(divide_errors)
{
	cpu.regs[R_AX] = 1; cpu.regs[R_DX] = 0; cpu.regs[R_CX] = 0;
	FAULT(EXC_DE, 0xf7, 0xf1);                  /* div ecx, ecx = 0 */
	ck_assert_uint_eq(reg(R_AX), 1);
	cpu.regs[R_DX] = 1; cpu.regs[R_CX] = 1;
	FAULT(EXC_DE, 0xf7, 0xf1);                  /* quotient 2^32 does not fit */
	cpu.regs[R_AX] = 0x80000000; cpu.regs[R_DX] = 0xffffffff; cpu.regs[R_CX] = 0xffffffff;
	FAULT(EXC_DE, 0xf7, 0xf9);                  /* idiv: -2^31 / -1 */
	cpu.regs[R_AX] = 0xff80; cpu.regs[R_CX] = 0xff;
	FAULT(EXC_DE, 0xf6, 0xf9);                  /* idiv cl: -128 / -1 = 128 does not fit */
	cpu.regs[R_CX] = 1;
	RUN(0xf6, 0xf9);                            /* -128 / 1 = -128 fits: AL=80h, AH=0 */
	ck_assert_uint_eq(reg(R_AX) & 0xffff, 0x0080);
}
END_TEST

START_TEST(imul_forms)
{
	cpu.regs[R_CX] = 7;
	RUN(0x6b, 0xc1, 0xfd);                      /* imul eax,ecx,-3 */
	ck_assert_uint_eq(reg(R_AX), (uint32_t)-21);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_OF), 0);
	cpu.regs[R_CX] = 4;
	RUN(0x69, 0xc1, 0x00, 0x00, 0x00, 0x40);    /* imul eax,ecx,0x40000000 */
	ck_assert_uint_eq(reg(R_AX), 0);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_OF), FLAG_CF | FLAG_OF);
	/* Intel model: SF/ZF/PF from the low result (emu/muldiv.c). */
	ck_assert_uint_eq(flags() & FLAG_ZF, FLAG_ZF);
	cpu.regs[R_AX] = (uint32_t)-2; cpu.regs[R_BX] = 3;
	RUN(0xf7, 0xeb);                            /* imul ebx: edx:eax = -6 */
	ck_assert_uint_eq(reg(R_AX), (uint32_t)-6);
	ck_assert_uint_eq(reg(R_DX), 0xffffffff);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_OF), 0);
	/* The Intel model's choice for the undefined ones (emu/muldiv.c, kept
	 * lazily as LAZY_MUL): AF = 0 whatever it was, SF/ZF/PF of the low half. */
	cpu_set_flags(&cpu, FLAG_FIXED1 | FLAG_AF | FLAG_ZF);
	cpu.regs[R_AX] = (uint32_t)-1; cpu.regs[R_BX] = 1;
	RUN(0x0f, 0xaf, 0xc3);                      /* imul eax, ebx = -1 */
	ck_assert_uint_eq(flags() & FLAGS_ARITH, FLAG_SF | FLAG_PF);
	cpu_set_flags(&cpu, FLAG_FIXED1 | FLAG_AF);
	cpu.regs[R_AX] = 0x40; cpu.regs[R_BX] = 0x41;
	RUN(0xf7, 0xe3);                            /* mul ebx: 1040h, one bit set in 40h */
	ck_assert_uint_eq(flags() & FLAGS_ARITH, 0);
	cpu.regs[R_AX] = 0x80000000; cpu.regs[R_BX] = 2;
	RUN(0xf7, 0xe3);                            /* mul ebx: edx:eax = 1:0 */
	ck_assert_uint_eq(flags() & FLAGS_ARITH, FLAG_CF | FLAG_OF | FLAG_ZF | FLAG_PF);
}
END_TEST

/* --- shifts and rotates --- */

START_TEST(shifts)
{
	cpu.regs[R_AX] = 0x80000001;
	RUN(0xd1, 0xc0);                            /* rol eax,1 */
	ck_assert_uint_eq(reg(R_AX), 3);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_OF), FLAG_CF | FLAG_OF);
	cpu.regs[R_AX] = 0x80000000;
	RUN(0xc1, 0xf8, 0x1f);                      /* sar eax,31 */
	ck_assert_uint_eq(reg(R_AX), 0xffffffff);
	ck_assert_uint_eq(flags() & FLAG_CF, 0);
	RUN(0xc1, 0xe8, 0x1c);                      /* shr eax,28 */
	ck_assert_uint_eq(reg(R_AX), 0xf);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	/* count 0 (after masking: 32 & 31): value and flags unchanged */
	cpu.regs[R_CX] = 32;
	RUN(0x39, 0xc0, 0xd3, 0xe0);                /* cmp eax,eax; shl eax,cl */
	ck_assert_uint_eq(reg(R_AX), 0xf);
	ck_assert_uint_eq(flags(), FLAG_ZF | FLAG_PF);
	/* rcl al,9: rotate by 9 mod 9 = 0 through CF: value and CF unchanged */
	cpu.regs[R_AX] = 0x81;
	RUN(0xf9, 0xc0, 0xd0, 0x09);                /* stc; rcl al,9 */
	ck_assert_uint_eq(reg(R_AX) & 0xff, 0x81);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	/* rcr al,1 with CF=1: 0x81 -> 0xc0, CF=1 */
	RUN(0xd0, 0xd8);
	ck_assert_uint_eq(reg(R_AX) & 0xff, 0xc0);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	/* shl bl,8: everything out, CF = old bit 0 */
	cpu.regs[R_BX] = 0x81;
	RUN(0xc0, 0xe3, 0x08);
	ck_assert_uint_eq(reg(R_BX) & 0xff, 0);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_ZF), FLAG_CF | FLAG_ZF);
}
END_TEST

START_TEST(double_shifts)
{
	cpu.regs[R_AX] = 0x12345678; cpu.regs[R_DX] = 0x9abcdef0;
	RUN(0x0f, 0xa4, 0xd0, 0x04);                /* shld eax,edx,4 */
	ck_assert_uint_eq(reg(R_AX), 0x23456789);
	cpu.regs[R_AX] = 0x12345678;
	RUN(0x0f, 0xac, 0xd0, 0x08);                /* shrd eax,edx,8 */
	ck_assert_uint_eq(reg(R_AX), 0xf0123456);
	ck_assert_uint_eq(flags() & FLAG_CF, 0);    /* bit 7 of 0x12345678 */
	cpu.regs[R_CX] = 16;
	cpu.regs[R_AX] = 0x1234; cpu.regs[R_DX] = 0x5678;
	RUN(0x66, 0x0f, 0xa5, 0xd0);                /* shld ax,dx,cl (16): ax = dx */
	ck_assert_uint_eq(reg(R_AX) & 0xffff, 0x5678);
}
END_TEST

/* --- bits --- */

START_TEST(bit_ops)
{
	put32(0x2000, 0);
	cpu.regs[R_BX] = 0x2004; cpu.regs[R_AX] = (uint32_t)-1;
	RUN(0x0f, 0xab, 0x03);                      /* bts [ebx],eax: bit -1 = bit 31 of [0x2000] */
	ck_assert_uint_eq(mem32(0x2000), 0x80000000);
	ck_assert_uint_eq(flags() & FLAG_CF, 0);
	RUN(0x0f, 0xa3, 0x03);                      /* bt [ebx],eax */
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	cpu.regs[R_AX] = 35;
	RUN(0x0f, 0xbb, 0x03);                      /* btc [ebx],35: bit 3 of [0x2008] */
	ck_assert_uint_eq(mem32(0x2008), 8);
	cpu.regs[R_SI] = 0xff;
	RUN(0x0f, 0xba, 0xf6, 0x24);                /* btr esi,36 -> bit 4 */
	ck_assert_uint_eq(reg(R_SI), 0xef);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	/* bsf with a zero source: ZF=1, destination unchanged */
	cpu.regs[R_DX] = 0x1234; cpu.regs[R_AX] = 0;
	RUN(0x0f, 0xbc, 0xd0);
	ck_assert_uint_eq(reg(R_DX), 0x1234);
	ck_assert_uint_eq(flags() & FLAG_ZF, FLAG_ZF);
	cpu.regs[R_AX] = 0x00f00080;
	RUN(0x0f, 0xbc, 0xd0, 0x0f, 0xbd, 0xc8);    /* bsf edx,eax; bsr ecx,eax */
	ck_assert_uint_eq(reg(R_DX), 7);
	ck_assert_uint_eq(reg(R_CX), 23);
	ck_assert_uint_eq(flags() & FLAG_ZF, 0);
	cpu.regs[R_BX] = 0x11223344;
	RUN(0x0f, 0xcb);                            /* bswap ebx */
	ck_assert_uint_eq(reg(R_BX), 0x44332211);
}
END_TEST

/* --- decimal --- */

START_TEST(bcd)
{
	RUN(0xb0, 0x79, 0x04, 0x35, 0x27);          /* mov al,79h; add al,35h; daa */
	ck_assert_uint_eq(reg(R_AX) & 0xff, 0x14);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	RUN(0xb0, 0x35, 0x2c, 0x47, 0x2f);          /* mov al,35h; sub al,47h; das */
	ck_assert_uint_eq(reg(R_AX) & 0xff, 0x88);
	ck_assert_uint_eq(flags() & FLAG_CF, FLAG_CF);
	cpu.regs[R_AX] = 0x0008;
	RUN(0x04, 0x09, 0x37);                      /* add al,9; aaa: AX = 0x0107 */
	ck_assert_uint_eq(reg(R_AX) & 0xffff, 0x0107);
	ck_assert_uint_eq(flags() & (FLAG_CF | FLAG_AF), FLAG_CF | FLAG_AF);
	cpu.regs[R_AX] = 63;
	RUN(0xd4, 0x0a);                            /* aam: AH=6, AL=3 */
	ck_assert_uint_eq(reg(R_AX) & 0xffff, 0x0603);
	RUN(0xd5, 0x0a);                            /* aad: AL=63, AH=0 */
	ck_assert_uint_eq(reg(R_AX) & 0xffff, 63);
	FAULT(EXC_DE, 0xd4, 0x00);                  /* aam 0 */
}
END_TEST

/* --- data movement --- */

START_TEST(moves)
{
	cpu.regs[R_CX] = 0x80;
	RUN(0x0f, 0xbe, 0xc1, 0x0f, 0xb6, 0xd9);    /* movsx eax,cl; movzx ebx,cl */
	ck_assert_uint_eq(reg(R_AX), 0xffffff80);
	ck_assert_uint_eq(reg(R_BX), 0x80);
	RUN(0xa3, 0x00, 0x30, 0x00, 0x00);          /* mov [0x3000],eax */
	ck_assert_uint_eq(mem32(0x3000), 0xffffff80);
	RUN(0x66, 0xa1, 0x02, 0x30, 0x00, 0x00);    /* mov ax,[0x3002] */
	ck_assert_uint_eq(reg(R_AX), 0xffffffff);
	RUN(0xc7, 0x05, 0x04, 0x30, 0, 0, 0x78, 0x56, 0x34, 0x12); /* mov dword [0x3004],imm */
	ck_assert_uint_eq(mem32(0x3004), 0x12345678);
	/* lea with 16-bit addressing wraps at 64 KiB: lea eax,[bx+si-1] */
	cpu.regs[R_BX] = 0xffff; cpu.regs[R_SI] = 2;
	RUN(0x67, 0x8d, 0x40, 0xff);
	ck_assert_uint_eq(reg(R_AX), 0);
	FAULT(EXC_UD, 0x8d, 0xc0);                  /* lea eax,eax */
	cpu.regs[R_AX] = 0x8000; cpu.regs[R_DX] = 7;
	RUN(0x98, 0x99);                            /* cwde (ax=0x8000 -> ffff8000); cdq */
	ck_assert_uint_eq(reg(R_AX), 0xffff8000);
	ck_assert_uint_eq(reg(R_DX), 0xffffffff);
	cpu.regs[R_BX] = 0x3000; cpu.regs[R_AX] = 4;
	RUN(0xd7);                                  /* xlat: al = [ebx+4] */
	ck_assert_uint_eq(reg(R_AX), 0x78);
	cpu.regs[R_AX] = 1; cpu.regs[R_CX] = 2;
	RUN(0x90, 0x91, 0x87, 0x05, 0x04, 0x30, 0, 0);  /* nop; xchg eax,ecx; xchg [0x3004],eax */
	ck_assert_uint_eq(reg(R_CX), 1);
	ck_assert_uint_eq(reg(R_AX), 0x12345678);
	ck_assert_uint_eq(mem32(0x3004), 2);
	RUN(0x0f, 0x1f, 0x44, 0x00, 0x00);          /* nop dword [eax+eax] */
}
END_TEST

START_TEST(conditions)
{
	cpu.regs[R_AX] = (uint32_t)-1; cpu.regs[R_BX] = 1; cpu.regs[R_DX] = 0x55;
	/* cmp eax,ebx; setl cl; setb ch; cmovl edx,ebx; cmovb edx,eax */
	RUN(0x39, 0xd8, 0x0f, 0x9c, 0xc1, 0x0f, 0x92, 0xc5, 0x0f, 0x4c, 0xd3, 0x0f, 0x42, 0xd0);
	ck_assert_uint_eq(reg(R_CX) & 0xffff, 0x0001);
	ck_assert_uint_eq(reg(R_DX), 1);
}
END_TEST

START_TEST(stack_ops)
{
	RUN(0x68, 0x78, 0x56, 0x34, 0x12, 0x5b);    /* push imm32; pop ebx */
	ck_assert_uint_eq(reg(R_BX), 0x12345678);
	ck_assert_uint_eq(reg(R_SP), 0x8000);
	RUN(0x6a, 0xfe, 0x8f, 0x04, 0x24);          /* push -2; pop dword [esp] */
	/* SDM POP: the address uses the incremented ESP */
	ck_assert_uint_eq(reg(R_SP), 0x8000);
	ck_assert_uint_eq(mem32(0x8000), 0xfffffffe);
	for (unsigned r = 0; r < 8; r++)
		if (r != R_SP)
			cpu.regs[r] = 0x100 + r;
	RUN(0x60);                                  /* pusha */
	ck_assert_uint_eq(reg(R_SP), 0x8000 - 32);
	ck_assert_uint_eq(mem32(0x8000 - 20), 0x8000);   /* the original ESP */
	for (unsigned r = 0; r < 8; r++)
		if (r != R_SP)
			cpu.regs[r] = 0;
	RUN(0x61);                                  /* popa */
	ck_assert_uint_eq(reg(R_SP), 0x8000);
	for (unsigned r = 0; r < 8; r++)
		if (r != R_SP)
			ck_assert_uint_eq(reg(r), 0x100 + r);
	/* enter 16,2; leave */
	cpu.regs[R_BP] = 0x7f00;
	put32(0x7f00 - 4, 0xaaaa);
	RUN(0xc8, 0x10, 0x00, 0x02);
	ck_assert_uint_eq(reg(R_BP), 0x8000 - 4);
	ck_assert_uint_eq(mem32(0x8000 - 4), 0x7f00);       /* old EBP */
	ck_assert_uint_eq(mem32(0x8000 - 8), 0xaaaa);       /* enclosing frame pointer */
	ck_assert_uint_eq(mem32(0x8000 - 12), 0x8000 - 4);  /* FrameTemp */
	ck_assert_uint_eq(reg(R_SP), 0x8000 - 12 - 16);
	RUN(0xc9);
	ck_assert_uint_eq(reg(R_SP), 0x8000);
	ck_assert_uint_eq(reg(R_BP), 0x7f00);
}
END_TEST

/* --- branches --- */

START_TEST(branches)
{
	/* call +1; inc eax (skipped) ; target: pop ebx  -> ebx = return address */
	RUN(0xe8, 0x01, 0x00, 0x00, 0x00, 0x40, 0x5b);
	ck_assert_uint_eq(reg(R_BX), CODE + 5);
	ck_assert_uint_eq(reg(R_AX), 0);
	/* mov ecx,3; L: inc eax; loop L */
	RUN(0xb9, 3, 0, 0, 0, 0x40, 0xe2, 0xfd);
	ck_assert_uint_eq(reg(R_AX), 3);
	ck_assert_uint_eq(reg(R_CX), 0);
	/* jecxz taken over one byte; jmp short over one byte */
	RUN(0xe3, 0x01, 0x40, 0xeb, 0x01, 0x40);
	ck_assert_uint_eq(reg(R_AX), 3);
	cpu.regs[R_BX] = CODE + 3;
	RUN(0xff, 0xd3, 0x40, 0x40);                /* call ebx -> lands on the last inc */
	ck_assert_uint_eq(reg(R_AX), 4);
	ck_assert_uint_eq(reg(R_SP), 0x8000 - 4);
	ck_assert_uint_eq(mem32(0x8000 - 4), CODE + 2);
	/* ret 8 pops the return address and 8 more bytes */
	put32(0x8000 - 16, CODE + 3); cpu.regs[R_SP] = 0x8000 - 16;
	RUN(0xc2, 0x08, 0x00);
	ck_assert_uint_eq(reg(R_SP), 0x8000 - 4);
	/* 16-bit jmp truncates the target to IP (SDM Vol.2 JMP): 0x1004 - 0x2000 -> 0xf004 */
	memcpy(pm.ram + CODE, (const uint8_t[]){ 0x66, 0xe9, 0x00, 0xe0 }, 4);
	cpu.rip = CODE;
	ck_assert_int_eq(step(), ST_OK);
	ck_assert_uint_eq(cpu.rip, 0xf004);
}
END_TEST

/* --- strings --- */

START_TEST(rep_movs_long)
{
	for (unsigned i = 0; i < 10000; i++)
		pm.ram[0x10000 + i] = (uint8_t)(i * 7);
	cpu.regs[R_SI] = 0x10000; cpu.regs[R_DI] = 0x20001; cpu.regs[R_CX] = 10000;
	/* The first call stops after a chunk, with RIP back on the instruction. */
	memcpy(pm.ram + CODE, (const uint8_t[]){ 0xf3, 0xa4 }, 2);
	cpu.rip = CODE;
	ck_assert_int_eq(step(), ST_OK);
	ck_assert_uint_eq(cpu.rip, CODE);
	ck_assert_uint_lt(reg(R_CX), 10000);
	ck_assert_uint_gt(reg(R_CX), 0);
	RUN(0xf3, 0xa4);
	ck_assert_int_eq(memcmp(pm.ram + 0x10000, pm.ram + 0x20001, 10000), 0);
	ck_assert_uint_eq(reg(R_CX), 0);
	ck_assert_uint_eq(reg(R_SI), 0x10000 + 10000);
	ck_assert_uint_eq(reg(R_DI), 0x20001 + 10000);
}
END_TEST

START_TEST(rep_movs_overlap_and_df)
{
	/* Forward overlapping copy replicates the first byte, as element order demands. */
	memcpy(pm.ram + 0x3000, "abcdefgh", 8);
	cpu.regs[R_SI] = 0x3000; cpu.regs[R_DI] = 0x3001; cpu.regs[R_CX] = 7;
	RUN(0xf3, 0xa4);
	ck_assert_int_eq(memcmp(pm.ram + 0x3000, "aaaaaaaa", 8), 0);
	/* std; rep stosd backwards from 0x4010 */
	cpu.regs[R_DI] = 0x4010; cpu.regs[R_CX] = 4; cpu.regs[R_AX] = 0xdeadbeef;
	RUN(0xfd, 0xf3, 0xab, 0xfc);
	ck_assert_uint_eq(mem32(0x4010), 0xdeadbeef);
	ck_assert_uint_eq(mem32(0x4004), 0xdeadbeef);
	ck_assert_uint_eq(mem32(0x4000), 0);
	ck_assert_uint_eq(reg(R_DI), 0x4000);
	/* Backward overlapping movsd: dst above src by 4, walked from the top. */
	for (unsigned i = 0; i < 4; i++)
		put32(0x5000 + 4 * i, i + 1);
	cpu.regs[R_SI] = 0x500c; cpu.regs[R_DI] = 0x5010; cpu.regs[R_CX] = 4;
	RUN(0xfd, 0xf3, 0xa5, 0xfc);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_uint_eq(mem32(0x5004 + 4 * i), i + 1);
}
END_TEST

START_TEST(rep_cmps_scas_lods)
{
	memcpy(pm.ram + 0x3000, "hello world", 11);
	memcpy(pm.ram + 0x3100, "hello there", 11);
	cpu.regs[R_SI] = 0x3000; cpu.regs[R_DI] = 0x3100; cpu.regs[R_CX] = 11;
	RUN(0xf3, 0xa6);                            /* repe cmpsb */
	ck_assert_uint_eq(reg(R_CX), 4);            /* stopped after 'w' vs 't' */
	ck_assert_uint_eq(reg(R_SI), 0x3007);
	ck_assert_uint_eq(flags() & FLAG_ZF, 0);
	memcpy(pm.ram + 0x3200, "abc\0xyz", 8);
	cpu.regs[R_DI] = 0x3200; cpu.regs[R_CX] = 100; cpu.regs[R_AX] = 0;
	RUN(0xf2, 0xae);                            /* repne scasb */
	ck_assert_uint_eq(reg(R_DI), 0x3204);
	ck_assert_uint_eq(reg(R_CX), 96);
	ck_assert_uint_eq(flags() & FLAG_ZF, FLAG_ZF);
	cpu.regs[R_SI] = 0x3200; cpu.regs[R_CX] = 3;
	RUN(0xf3, 0xac);                            /* rep lodsb: last one stays */
	ck_assert_uint_eq(reg(R_AX) & 0xff, 'c');
	cpu.regs[R_CX] = 0; cpu.regs[R_DI] = 0x3300;
	RUN(0xf3, 0xaa);                            /* count 0: nothing */
	ck_assert_uint_eq(reg(R_DI), 0x3300);
}
END_TEST

START_TEST(rep_addr16_and_fault)
{
	/* 67: CX/SI/DI; the upper halves stay. */
	cpu.regs[R_CX] = 0xabcd0003; cpu.regs[R_SI] = 0x11113000; cpu.regs[R_DI] = 0x22223100;
	memcpy(pm.ram + 0x3000, "xyz", 3);
	RUN(0x67, 0xf3, 0xa4);
	ck_assert_uint_eq(reg(R_CX), 0xabcd0000);
	ck_assert_uint_eq(reg(R_SI), 0x11113003);
	ck_assert_uint_eq(reg(R_DI), 0x22223103);
	ck_assert_int_eq(memcmp(pm.ram + 0x3100, "xyz", 3), 0);
	/* ES limit 0x20ff: rep stosb from 0x2000 faults after 0x100 bytes with the
	 * registers showing the completed iterations (SDM Vol.2 REP). */
	seg_load_descriptor(&cpu.seg[SR_ES], 0x10, flat(0x93, 0x20ff, false));
	cpu.regs[R_DI] = 0x2000; cpu.regs[R_CX] = 0x200; cpu.regs[R_AX] = 0x5a;
	FAULT(EXC_GP, 0xf3, 0xaa);
	ck_assert_uint_eq(reg(R_CX), 0x100);
	ck_assert_uint_eq(reg(R_DI), 0x2100);
	ck_assert_uint_eq(pm.ram[0x20ff], 0x5a);
	ck_assert_uint_eq(pm.ram[0x2100], 0);
}
END_TEST

/* --- real mode (16-bit code, segment bases) --- */

START_TEST(real_mode)
{
	ck_assert_uint_eq(cpu.mode, MODE_REAL);
	memcpy(pm.ram + 0x2010, "12345", 5);
	/* mov si,10h; mov di,20h; mov cx,5; rep movsb: DS:SI (0x2010) -> ES:DI (0x3020) */
	RUN(0xbe, 0x10, 0x00, 0xbf, 0x20, 0x00, 0xb9, 0x05, 0x00, 0xf3, 0xa4);
	ck_assert_int_eq(memcmp(pm.ram + 0x3020, "12345", 5), 0);
	ck_assert_uint_eq(reg(R_SI), 0x15);
	ck_assert_uint_eq(reg(R_DI), 0x25);
	/* The source segment can be overridden, the destination cannot:
	 * mov si,20h; mov di,40h; es movsw: ES:0x20 -> ES:0x40 */
	RUN(0xbe, 0x20, 0x00, 0xbf, 0x40, 0x00, 0x26, 0xa5);
	ck_assert_int_eq(memcmp(pm.ram + 0x3040, "12", 2), 0);
	/* push at SP = 0 wraps to SS:FFFE (SDM Vol.1 6.2.3, 16-bit stack) */
	cpu.regs[R_SP] = 0; cpu.regs[R_AX] = 0xbeef;
	RUN(0x50, 0x5b);                            /* push ax; pop bx */
	ck_assert_uint_eq(pm.ram[0xfffe] | (pm.ram[0xffff] << 8), 0xbeef);
	ck_assert_uint_eq(reg(R_BX) & 0xffff, 0xbeef);
	ck_assert_uint_eq(reg(R_SP), 0);
	/* 66: a 32-bit operation in 16-bit code; loop counts CX only */
	cpu.regs[R_CX] = 0x12340003;
	RUN(0x66, 0xb8, 0x78, 0x56, 0x34, 0x12, 0x66, 0x40, 0xe2, 0xfc);  /* mov eax,imm; L: inc eax; loop L */
	ck_assert_uint_eq(reg(R_AX), 0x1234567b);
	ck_assert_uint_eq(reg(R_CX), 0x12340000);
	/* pusha/popa with 16-bit registers */
	cpu.regs[R_SP] = 0x8000; cpu.regs[R_BP] = 0x1111;
	RUN(0x60, 0x31, 0xed, 0x61);                /* pusha; xor bp,bp; popa */
	ck_assert_uint_eq(reg(R_BP) & 0xffff, 0x1111);
	ck_assert_uint_eq(reg(R_SP), 0x8000);
	/* mov [bp+2],ax defaults to SS; xlat uses DS:BX */
	cpu.regs[R_BP] = 0x100; cpu.regs[R_AX] = 0x4321;
	RUN(0x89, 0x46, 0x02);
	ck_assert_uint_eq(pm.ram[0x102], 0x21);
	pm.ram[0x2000 + 0x50 + 3] = 0x99;
	cpu.regs[R_BX] = 0x50; cpu.regs[R_AX] = 3;
	RUN(0xd7);
	ck_assert_uint_eq(reg(R_AX) & 0xff, 0x99);
}
END_TEST

/* --- against the host CPU ---
 * The same instruction bytes run natively (x86-64 host, 32-bit and smaller
 * operands encode identically) and in hvemu, from random and edge-case register
 * and flag values. On an AMD host the AMD model must match all six arithmetic
 * flags, the undefined ones included (they were measured on such a host); on
 * other hosts the registers and, for the add/sub/logic family, the flags are
 * compared. */
#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/mman.h>

struct host_state { uint64_t r[4]; uint64_t fl; };   /* eax, ebx, ecx, edx; rflags */

/* Build "load state; insn; store state; ret" in an executable page and call it. */
static void host_exec(uint8_t *page, const uint8_t *insn, unsigned n, struct host_state *s)
{
	static const uint8_t pro[] = {
		0x53,                                   /* push rbx */
		0x48, 0x8b, 0x07, 0x48, 0x8b, 0x5f, 0x08,  /* mov rax,[rdi]; mov rbx,[rdi+8] */
		0x48, 0x8b, 0x4f, 0x10, 0x48, 0x8b, 0x57, 0x18, /* rcx, rdx */
		0xff, 0x77, 0x20, 0x9d,                 /* push [rdi+32]; popfq */
	};
	static const uint8_t epi[] = {
		0x9c, 0x8f, 0x47, 0x20,                 /* pushfq; pop [rdi+32] */
		0x48, 0x89, 0x07, 0x48, 0x89, 0x5f, 0x08,
		0x48, 0x89, 0x4f, 0x10, 0x48, 0x89, 0x57, 0x18,
		0x5b, 0xfc, 0xc3,                       /* pop rbx; cld; ret */
	};
	uint8_t *p = page;
	memcpy(p, pro, sizeof(pro));
	p += sizeof(pro);
	memcpy(p, insn, n);
	p += n;
	memcpy(p, epi, sizeof(epi));
	void (*fn)(struct host_state *);
	void *entry = page;
	memcpy(&fn, &entry, sizeof(fn));
	fn(s);
}

static uint32_t edge_value(unsigned *seed)
{
	static const uint32_t e[] = { 0, 1, 2, 8, 9, 0xf, 0x10, 0x7f, 0x80, 0x99, 0x9a, 0xff,
				      0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff,
				      0x80000000, 0xffffffff };
	uint32_t r = (uint32_t)rand_r(seed) * 2654435761u ^ (uint32_t)rand_r(seed);
	switch (r & 3) {
	case 0: return e[(r >> 2) % (sizeof(e) / sizeof(e[0]))];
	case 1: return r >> 24;
	case 2: return r >> 16;
	default: return r;
	}
}

/* Would DIV/IDIV of this state raise #DE? (The host must not take it.) */
static bool divide_faults(const uint8_t *b, unsigned n, const struct host_state *s)
{
	unsigned size = b[0] == 0x66 ? 2 : (b[n - 2] == 0xf6 ? 1 : 4), w = size * 8;
	bool sgn = (b[n - 1] & 0x38) == 0x38;
	uint64_t m = size == 4 ? 0xffffffffu : size == 2 ? 0xffff : 0xff;
	uint64_t d = s->r[1] & m;
	if (!d)
		return true;
	uint64_t lo = s->r[0] & m, hi = size == 1 ? (s->r[0] >> 8) & 0xff : s->r[3] & m;
	__extension__ unsigned __int128 u = ((unsigned __int128)hi << w) | lo;
	if (!sgn)
		return u / d > m;
	__extension__ __int128 num = (__int128)(u << (128 - 2 * w)) >> (128 - 2 * w);
	int64_t dv = (int64_t)(d << (64 - w)) >> (64 - w);
	__extension__ __int128 q = num / dv, lim = (__int128)1 << (w - 1);
	return q >= lim || q < -lim;
}

START_TEST(matches_host)
{
	static const struct { const char *name; uint8_t b[5]; uint8_t n; bool flags_defined; } ops[] = {
		{ "add32", { 0x01, 0xd8 }, 2, true }, { "add8", { 0x00, 0xd8 }, 2, true },
		{ "add16", { 0x66, 0x01, 0xd8 }, 3, true }, { "adc32", { 0x11, 0xd8 }, 2, true },
		{ "adc8", { 0x10, 0xd8 }, 2, true }, { "sbb32", { 0x19, 0xd8 }, 2, true },
		{ "sbb16", { 0x66, 0x19, 0xd8 }, 3, true }, { "sub8", { 0x28, 0xd8 }, 2, true },
		{ "cmp32", { 0x39, 0xd8 }, 2, true }, { "and8", { 0x20, 0xd8 }, 2, false },
		{ "or32", { 0x09, 0xd8 }, 2, false }, { "xor16", { 0x66, 0x31, 0xd8 }, 3, false },
		{ "inc32", { 0xff, 0xc0 }, 2, true }, { "dec8", { 0xfe, 0xc8 }, 2, true },
		{ "neg32", { 0xf7, 0xd8 }, 2, true }, { "neg16", { 0x66, 0xf7, 0xd8 }, 3, true },
		{ "rol32", { 0xd3, 0xc0 }, 2, false }, { "ror8", { 0xd2, 0xc8 }, 2, false },
		{ "rcl16", { 0x66, 0xd3, 0xd0 }, 3, false }, { "rcr8", { 0xd2, 0xd8 }, 2, false },
		{ "rcl32", { 0xd3, 0xd0 }, 2, false }, { "rcr32", { 0xd3, 0xd8 }, 2, false },
		{ "shl8", { 0xd2, 0xe0 }, 2, false }, { "shr16", { 0x66, 0xd3, 0xe8 }, 3, false },
		{ "sal32", { 0xd3, 0xf0 }, 2, false }, { "sar32", { 0xd3, 0xf8 }, 2, false },
		{ "shld32", { 0x0f, 0xa5, 0xd8 }, 3, false }, { "shrd32", { 0x0f, 0xad, 0xd8 }, 3, false },
		{ "shld16", { 0x66, 0x0f, 0xa5, 0xd8 }, 4, false },
		{ "shrd16", { 0x66, 0x0f, 0xad, 0xd8 }, 4, false },
		{ "mul32", { 0xf7, 0xe3 }, 2, false }, { "mul8", { 0xf6, 0xe3 }, 2, false },
		{ "imul16", { 0x66, 0xf7, 0xeb }, 3, false }, { "imul2", { 0x0f, 0xaf, 0xc3 }, 3, false },
		{ "div32", { 0xf7, 0xf3 }, 2, false }, { "div8", { 0xf6, 0xf3 }, 2, false },
		{ "idiv32", { 0xf7, 0xfb }, 2, false }, { "idiv16", { 0x66, 0xf7, 0xfb }, 3, false },
		{ "bt32", { 0x0f, 0xa3, 0xd8 }, 3, false }, { "btc16", { 0x66, 0x0f, 0xbb, 0xd8 }, 4, false },
		{ "bsf32", { 0x0f, 0xbc, 0xc3 }, 3, false }, { "bsr16", { 0x66, 0x0f, 0xbd, 0xc3 }, 4, false },
		{ "xadd32", { 0x0f, 0xc1, 0xd8 }, 3, true }, { "cmpxchg8", { 0x0f, 0xb0, 0xd9 }, 3, true },
	};
	unsigned a, b, c, d;
	ck_assert(__get_cpuid(0, &a, &b, &c, &d));
	bool amd_host = b == 0x68747541;              /* "Auth"enticAMD */
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
	machine_on(amd_host ? "opteron-g3" : "core2");
	uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(page != MAP_FAILED);
	unsigned seed = 12345;

	for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (unsigned it = 0; it < 3000; it++) {
			struct host_state in = {
				{ edge_value(&seed), edge_value(&seed), edge_value(&seed), edge_value(&seed) },
				FLAG_FIXED1 | ((uint64_t)rand_r(&seed) & FLAGS_ARITH),
			};
			if (it % 2)
				in.r[2] = (unsigned)rand_r(&seed) % 40;      /* shift counts */
			if (it % 5 == 0)
				in.r[2] = in.r[0];                          /* cmpxchg: equal */
			if ((ops[o].b[ops[o].n - 1] & 0xf0) == 0xf0 &&
			    (ops[o].b[ops[o].n - 2] & 0xfe) == 0xf6 && divide_faults(ops[o].b, ops[o].n, &in))
				continue;
			struct host_state h = in;
			host_exec(page, ops[o].b, ops[o].n, &h);

			for (unsigned r = 0; r < 4; r++)
				cpu.regs[r == 0 ? R_AX : r == 1 ? R_BX : r == 2 ? R_CX : R_DX] = (uint32_t)in.r[r];
			cpu_set_flags(&cpu, in.fl);
			memcpy(pm.ram + CODE, ops[o].b, ops[o].n);
			cpu.rip = CODE;
			ck_assert_int_eq(step(), ST_OK);
			ck_assert_msg(reg(R_AX) == (uint32_t)h.r[0] && reg(R_BX) == (uint32_t)h.r[1] &&
				      reg(R_CX) == (uint32_t)h.r[2] && reg(R_DX) == (uint32_t)h.r[3],
				      "%s: registers differ from the host (in %08x %08x %08x %08x)",
				      ops[o].name, (unsigned)in.r[0], (unsigned)in.r[1],
				      (unsigned)in.r[2], (unsigned)in.r[3]);
			if (amd_host || ops[o].flags_defined) {
				uint64_t mask = amd_host ? FLAGS_ARITH
					: FLAGS_ARITH & ~(uint64_t)(ops[o].b[ops[o].n - 2] == 0x20 ||
								    ops[o].b[ops[o].n - 2] == 0x09 ||
								    ops[o].b[ops[o].n - 2] == 0x31 ? FLAG_AF : 0);
				ck_assert_msg((flags() & mask) == (h.fl & mask),
					      "%s: flags %#llx, host %#llx (in %08x %08x %08x %08x f=%#llx)",
					      ops[o].name, (unsigned long long)(flags() & mask),
					      (unsigned long long)(h.fl & mask), (unsigned)in.r[0],
					      (unsigned)in.r[1], (unsigned)in.r[2], (unsigned)in.r[3],
					      (unsigned long long)(in.fl & FLAGS_ARITH));
			}
		}
	}
	munmap(page, 4096);
}
END_TEST
#endif

static Suite *alu_suite(void)
{
	Suite *s = suite_create("alu");
	TCase *tc = tcase_create("arith");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sum_loop);
	tcase_add_test(tc, adc_sbb_chain);
	tcase_add_test(tc, alu_memory_and_bytes);
	tcase_add_test(tc, inc_keeps_cf_neg_not);
	tcase_add_test(tc, xadd_cmpxchg);
	tcase_add_test(tc, mul_div);
	tcase_add_test(tc, divide_errors);
	tcase_add_test(tc, imul_forms);
	tcase_add_test(tc, shifts);
	tcase_add_test(tc, double_shifts);
	tcase_add_test(tc, bit_ops);
	tcase_add_test(tc, bcd);
	suite_add_tcase(s, tc);
	tc = tcase_create("move");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, moves);
	tcase_add_test(tc, conditions);
	tcase_add_test(tc, stack_ops);
	tcase_add_test(tc, branches);
	suite_add_tcase(s, tc);
	tc = tcase_create("string");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rep_movs_long);
	tcase_add_test(tc, rep_movs_overlap_and_df);
	tcase_add_test(tc, rep_cmps_scas_lods);
	tcase_add_test(tc, rep_addr16_and_fault);
	suite_add_tcase(s, tc);
	tc = tcase_create("real");
	tcase_add_checked_fixture(tc, setup_real, teardown);
	tcase_add_test(tc, real_mode);
	suite_add_tcase(s, tc);
#if defined(__x86_64__) && defined(__linux__)
	tc = tcase_create("host");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, matches_host);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int main(void)
{
	return run_suite(alu_suite());
}
