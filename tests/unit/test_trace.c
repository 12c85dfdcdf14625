/* Check suite for emu/trace.c and its code reader emu/peek.c, built against a
 * hand-made struct cpu on a real struct physmem and the real page walker, nested
 * walk included (the rest of the core is not linked: cpu_get_flags and
 * cpu_paging_mode are test doubles below). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "emu/insn.h"
#include "emu/peek.h"
#include "emu/trace.h"
#include "mmu/nested.h"
#include "mmu/paging.h"
#include "suite_runner.h"

/* The core functions trace.c calls; lazy flags are not in play here. */
uint64_t cpu_get_flags(struct cpu *cpu)
{
	return cpu->rflags;
}

unsigned cpu_paging_mode(const struct cpu *cpu)
{
	if (!(cpu->cr0 & CR0_PG))
		return PAGING_OFF;
	return (cpu->cr4 & CR4_PAE) ? PAGING_PAE : PAGING_32;   /* no long mode in these cases */
}

static struct physmem pm;
static struct cpu cpu;
static struct trace tr;
static char *text;
static size_t text_len;
static FILE *out;

static void setup(void)
{
	ck_assert(physmem_init(&pm, 1 << 20));
	memset(&cpu, 0, sizeof(cpu));
	cpu.mem = &pm;
	cpu.rflags = 0x2;
	cpu.a20_mask = ~0ull;
	tlb_flush_all(&cpu.tlb);                 /* no entry matches: every read walks */
	out = open_memstream(&text, &text_len);
	trace_init(&tr, out);
}

static void teardown(void)
{
	trace_destroy(&tr);
	fclose(out);
	free(text);
	physmem_destroy(&pm);
}

/* Flat 32-bit protected mode, code at 0x1000. */
static void prot32(const uint8_t *code, size_t n)
{
	cpu.mode = MODE_PROT;
	cpu.cr0 = CR0_PE;
	cpu.seg[SR_CS] = (struct segment){ .selector = 0x08, .attr = SEG_P | SEG_S | SEG_TYPE_CODE |
					   SEG_TYPE_RW | SEG_DB | SEG_G, .limit = 0xffffffff };
	memcpy(pm.ram + 0x1000, code, n);
	cpu.rip = cpu.insn_start = 0x1000;
}

static const char *output(void)
{
	fflush(out);
	return text;
}

START_TEST(parse_classes)
{
	unsigned c = 0;
	ck_assert(trace_parse("insn", &c));
	ck_assert_uint_eq(c, TRACE_INSN);
	ck_assert(trace_parse("exc,io,pf", &c));
	ck_assert_uint_eq(c, TRACE_EXC | TRACE_IO | TRACE_PF);
	ck_assert(trace_parse("vmexit,pf", &c));
	ck_assert_uint_eq(c, TRACE_VMEXIT | TRACE_PF);
	ck_assert(trace_parse("all", &c));
	ck_assert_uint_eq(c, TRACE_INSN | TRACE_EXC | TRACE_IO | TRACE_PF | TRACE_VMEXIT);
	c = 77;
	ck_assert(!trace_parse("", &c));
	ck_assert(!trace_parse("insn,", &c));
	ck_assert(!trace_parse("ins", &c));
	ck_assert(!trace_parse("insn,,io", &c));
	ck_assert(!trace_parse("instructions", &c));
	ck_assert_uint_eq(c, 77);                    /* untouched on failure */
}
END_TEST

START_TEST(insn_line_32)
{
	static const uint8_t code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00 };   /* mov eax, 1 */
	prot32(code, sizeof(code));
	trace_attach(&tr, &cpu, TRACE_INSN);
	ck_assert_uint_eq(trace_code_bits(&cpu), 32);
	struct insn in = { .len = 5 };
	trace_insn(&cpu, &in);
	/* The byte column is 33 wide, then two spaces. */
	ck_assert_str_eq(output(), "insn: 0008:00001000  b8 01 00 00 00" "                  " "  "
			 "mov eax, 1\n");
}
END_TEST

START_TEST(insn_line_16_and_64)
{
	/* Real mode: CS base 0xf0000, the same bytes decode as mov ax, 1. */
	cpu.mode = MODE_REAL;
	cpu.seg[SR_CS] = (struct segment){ .selector = 0xf000, .base = 0xf0000, .limit = 0xffff,
					   .attr = SEG_P | SEG_S | SEG_TYPE_RW };
	static const uint8_t code[] = { 0xb8, 0x01, 0x00 };
	memcpy(pm.ram + 0xf0010, code, sizeof(code));
	cpu.rip = 0x10;
	trace_attach(&tr, &cpu, TRACE_INSN);
	ck_assert_uint_eq(trace_code_bits(&cpu), 16);
	struct insn in = { .len = 3 };
	trace_insn(&cpu, &in);
	ck_assert_ptr_nonnull(strstr(output(), "insn: f000:00000010  b8 01 00"));
	ck_assert_ptr_nonnull(strstr(output(), "mov ax, 1\n"));

	/* 64-bit mode: 16-digit RIP, REX.W decoded. */
	static const uint8_t c64[] = { 0x48, 0x89, 0xd8 };                 /* mov rax, rbx */
	cpu.mode = MODE_LONG64;
	cpu.seg[SR_CS] = (struct segment){ .selector = 0x10, .attr = SEG_P | SEG_S | SEG_TYPE_CODE | SEG_L };
	memcpy(pm.ram + 0x2000, c64, sizeof(c64));
	cpu.rip = 0x2000;
	in.len = 3;
	trace_insn(&cpu, &in);
	ck_assert_ptr_nonnull(strstr(output(), "insn: 0010:0000000000002000  48 89 d8"));
	ck_assert_ptr_nonnull(strstr(output(), "mov rax, rbx\n"));
}
END_TEST

START_TEST(insn_off_no_output)
{
	static const uint8_t code[] = { 0x90 };
	prot32(code, 1);
	trace_attach(&tr, &cpu, TRACE_EXC);
	struct insn in = { .len = 1 };
	trace_insn(&cpu, &in);
	ck_assert_uint_eq(strlen(output()), 0);
}
END_TEST

START_TEST(events_filtered)
{
	static const uint8_t code[] = { 0x0f, 0x0b };                     /* ud2 */
	prot32(code, sizeof(code));
	struct event ud = { .type = EV_EXCEPTION, .vector = EXC_UD };
	struct event pf = { .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .error_code = 2, .cr2 = 0xdead000 };
	struct event gp = { .type = EV_EXCEPTION, .vector = EXC_GP, .has_error = true,
			    .error_code = 0x10 };

	trace_attach(&tr, &cpu, 0);                  /* no tracing: only triple faults */
	trace_event(&cpu, &ud, "exc");
	ck_assert_uint_eq(strlen(output()), 0);
	trace_event(&cpu, &gp, "triple-fault");
	ck_assert_ptr_nonnull(strstr(output(), "triple-fault: vector 13 (#GP) err=0x10 at 0008:00001000  0f 0b"));
	ck_assert_ptr_nonnull(strstr(output(), "ud2\n"));
	ck_assert_ptr_nonnull(strstr(output(), "eax=00000000"));
	ck_assert_ptr_nonnull(strstr(output(), "eflags=00000002"));

	size_t before = strlen(output());
	trace_attach(&tr, &cpu, TRACE_PF);           /* pf: #PF only */
	trace_event(&cpu, &ud, "exc");
	ck_assert_uint_eq(strlen(output()), before);
	trace_event(&cpu, &pf, "exc");
	ck_assert_ptr_nonnull(strstr(output() + before, "exc: vector 14 (#PF) err=0x2 cr2=0xdead000 at"));

	before = strlen(output());
	trace_attach(&tr, &cpu, TRACE_EXC);
	trace_event(&cpu, &ud, "exc");
	ck_assert_ptr_nonnull(strstr(output() + before, "exc: vector 6 (#UD) at 0008:00001000"));
	ck_assert_ptr_null(strstr(output() + before, "[exc]"));
}
END_TEST

START_TEST(read_code_paging)
{
	static const uint8_t code[] = { 0xc3 };
	prot32(code, 1);
	uint8_t b[4];
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x1000, b, 1), 1);
	ck_assert_uint_eq(b[0], 0xc3);
	/* As the fetch: no byte past the CS limit (SDM Vol.3 5.3), the offset
	 * does not wrap. */
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0xfffffffe, b, 4), 2);
	cpu.seg[SR_CS].limit = 0x1000;
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0xfff, b, 4), 2);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x1001, b, 4), 0);
	/* Outside RAM: the bus answers all ones, no host access out of bounds;
	 * the linear address wraps at 4 GiB (SDM Vol.3 3.4). */
	cpu.seg[SR_CS].limit = 0xffffffff;
	cpu.seg[SR_CS].base = 0xfffffff0;
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0xe, b, 4), 4);
	ck_assert_uint_eq(b[0], 0xff);
	ck_assert_uint_eq(b[2], 0x00);           /* linear 0 */
	cpu.seg[SR_CS].base = 0;

	/* 32-bit paging (SDM Vol.3 4.3): CR3 -> PD at 0x10000; PDE 1 -> PT at
	 * 0x11000; PTE 0 maps linear 0x400000 to physical 0x3000. */
	uint32_t pde = 0x11000 | PTE_P | PTE_RW | PTE_A, pte = 0x3000 | PTE_P | PTE_A;
	memcpy(pm.ram + 0x10000 + 4 * 1, &pde, 4);
	memcpy(pm.ram + 0x11000, &pte, 4);
	pm.ram[0x3000] = 0x90;
	pm.ram[0x3001] = 0xc3;
	cpu.cr3 = 0x10000;
	cpu.cr0 |= CR0_PG;
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400000, b, 2), 2);
	ck_assert_uint_eq(b[0], 0x90);
	ck_assert_uint_eq(b[1], 0xc3);
	/* The last bytes of the mapped page, then an unmapped one: cut short. */
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400ffe, b, 4), 2);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x800000, b, 1), 0);
	trace_attach(&tr, &cpu, TRACE_INSN);
	cpu.rip = 0x800000;
	struct insn in = { .len = 1 };
	trace_insn(&cpu, &in);
	ck_assert_ptr_nonnull(strstr(output(), "?? (paged)"));
	cpu.rip = 0x400000;
	trace_insn(&cpu, &in);
	ck_assert_ptr_nonnull(strstr(output(), "insn: 0008:00400000  90"));
	ck_assert_ptr_nonnull(strstr(output(), "nop\n"));
}
END_TEST

/* Guest 32-bit paging (SDM Vol.3 4.3) with tables at guest-physical 10000H
 * (PD) and 11000H (PT): linear 400000H -> guest-physical 3000H; no entry has
 * A set. The tables are written at host-physical base + 10000H. */
#define G_PD   0x10000u
#define G_PT   0x11000u
#define G_CODE 0x3000u
static void guest_tables(uint64_t base)
{
	physmem_write(&pm, base + G_PD + 4 * 1, 4, G_PT | PTE_P | PTE_RW);
	physmem_write(&pm, base + G_PT, 4, G_CODE | PTE_P | PTE_RW);
}

/* Any A or D flag in the 4-byte entries of [from, to). */
static uint32_t ad_in(uint64_t from, uint64_t to)
{
	uint32_t any = 0;
	for (uint64_t a = from; a < to; a += 4)
		any |= (uint32_t)physmem_read(&pm, a, 4) & (uint32_t)(PTE_A | PTE_D);
	return any;
}

START_TEST(read_code_sets_no_accessed_bit)
{
	/* SDM Vol.3 4.8: the processor sets A when it uses an entry for an
	 * access; a tracer's look is none (earlier readers set it). */
	static const uint8_t code[] = { 0x90 };
	prot32(code, 1);
	guest_tables(0);
	pm.ram[G_CODE] = 0xf4;
	cpu.cr3 = G_PD;
	cpu.cr0 |= CR0_PG;
	uint8_t b[2];
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400000, b, 1), 1);
	ck_assert_uint_eq(b[0], 0xf4);
	ck_assert_uint_eq(ad_in(G_PD, G_PT + 0x1000), 0);
	/* At CPL 3 a supervisor page is no fetch of a user (SDM Vol.3 4.6). */
	cpu.cpl = 3;
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400000, b, 1), 0);
}
END_TEST

START_TEST(read_code_through_stage2)
{
	/* AMD nested paging in the 2-level format (APM2 15.25): nested PD at
	 * host 20000H, PT at 21000H mapping guest-physical page g to host
	 * g + 40000H (no identity). The guest's tables sit at host 50000H/51000H
	 * and its code at host 43000H (Y); a copy of the tables at host
	 * 10000H/11000H leads a stage-1-only reader to host 3000H (X). */
	static const uint8_t code[] = { 0x90 };
	prot32(code, 1);
	const uint32_t npd = 0x20000, npt = 0x21000, g2h = 0x40000;
	physmem_write(&pm, npd, 4, npt | PTE_P | PTE_RW | PTE_US);
	for (uint32_t g = 0; g < 0x40000; g += 0x1000)
		physmem_write(&pm, npt + (g >> 12) * 4, 4, (g + g2h) | PTE_P | PTE_RW | PTE_US);
	guest_tables(g2h);
	guest_tables(0);
	static const uint8_t x[] = { 0xcc, 0xcc }, y[] = { 0x90, 0xc3 };
	memcpy(pm.ram + G_CODE, x, 2);
	memcpy(pm.ram + G_CODE + g2h, y, 2);
	cpu.cr3 = G_PD;
	cpu.cr0 |= CR0_PG;
	struct paging_env host = { .mem = &pm, .mode = PAGING_32, .maxphyaddr = 36 };
	cpu.stage2 = nested_npt_env(&host, npd);
	cpu.stage2_on = true;

	uint8_t b[4];
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400000, b, 2), 2);
	ck_assert_uint_eq(b[0], 0x90);
	ck_assert_uint_eq(b[1], 0xc3);
	/* Neither stage's A (nor D) set: guest entries, nested entries. */
	ck_assert_uint_eq(ad_in(g2h + G_PD, g2h + G_PT + 0x1000), 0);
	ck_assert_uint_eq(ad_in(npd, npt + 0x1000), 0);
	/* --trace insn and the end-of-run reports (triple fault) print Y. */
	trace_attach(&tr, &cpu, TRACE_INSN);
	cpu.rip = 0x400000;
	struct insn in = { .len = 1 };
	trace_insn(&cpu, &in);
	ck_assert_ptr_nonnull(strstr(output(), "insn: 0008:00400000  90"));
	ck_assert_ptr_nonnull(strstr(output(), "nop\n"));
	trace_print_site(&tr, &cpu, 0x400001);
	ck_assert_ptr_nonnull(strstr(output(), "0008:00400001  c3"));
	/* Where stage 2 would fault (the code page absent), nothing. */
	physmem_write(&pm, npt + (G_CODE >> 12) * 4, 4, 0);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x400000, b, 2), 0);
	ck_assert_uint_eq(ad_in(npd, npt + 0x1000), 0);
}
END_TEST

static unsigned device_reads;
static uint64_t device_read(void *opaque, uint64_t offset, unsigned size)
{
	(void)opaque, (void)offset, (void)size;
	device_reads++;
	return 0x90;
}

START_TEST(read_code_rom_device_canonical)
{
	/* ROM bytes are read; a device's MMIO is not (a read may change it),
	 * so the count stops there; unclaimed addresses read FFh as the bus. */
	static const uint8_t code[] = { 0x90 };
	static const uint8_t rom[] = { 0xea, 0x5b, 0xe0 };
	static const struct mmio_ops dev = { .read = device_read };
	prot32(code, 1);
	ck_assert(physmem_add_rom(&pm, 0xfffffffd, rom, sizeof rom, "rom"));
	ck_assert(physmem_add_mmio(&pm, 0xfee00000, 0x1000, &dev, NULL, "dev"));
	uint8_t b[4];
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0xfffffffd, b, 3), 3);
	ck_assert_uint_eq(b[0], 0xea);
	ck_assert_uint_eq(b[2], 0xe0);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0xfedffffe, b, 4), 2);
	ck_assert_uint_eq(b[0], 0xff);
	ck_assert_uint_eq(device_reads, 0);
	/* 64-bit mode: no CS limit, no byte at a non-canonical address (SDM
	 * Vol.1 3.3.7.1); the test double's paging is off, so lin = pa. */
	cpu.mode = MODE_LONG64;
	cpu.seg[SR_CS].limit = 0xffff;
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x1000, b, 1), 1);
	ck_assert_uint_eq(b[0], 0x90);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x00007ffffffffffeull, b, 4), 2);
	ck_assert_uint_eq(cpu_peek_code(&cpu, 0x0000800000000000ull, b, 4), 0);
}
END_TEST

START_TEST(walk_and_note)
{
	static const uint8_t code[] = { 0xcf };                           /* iret */
	prot32(code, 1);
	struct walk_result r = { .levels = 2, .entry = { 0x11027, 0x0 },
				 .entry_addr = { 0x10004, 0x11000 } };
	struct fault f = { .vector = EXC_PF, .has_error = true, .error_code = 0x4 };
	trace_attach(&tr, &cpu, TRACE_EXC);
	trace_walk(&cpu, 0x400000, &r, &f);
	ck_assert_uint_eq(strlen(output()), 0);      /* walks only with pf */
	trace_attach(&tr, &cpu, TRACE_PF);
	trace_walk(&cpu, 0x400000, &r, &f);
	ck_assert_str_eq(output(), "pf: lin 0x400000 -> #PF err=0x4: [0x10004]=0x11027 [0x11000]=0x0\n");

	/* The core naming an unmodelled feature: kept as the note, printed with exc. */
	struct event none = { .vector = 0 };
	ck_assert_ptr_null(tr.note);
	trace_event(&cpu, &none, "IRET with NT=1 (task return)");
	ck_assert_str_eq(tr.note, "IRET with NT=1 (task return)");
	ck_assert_ptr_null(strstr(output(), "unsupported"));
	trace_attach(&tr, &cpu, TRACE_EXC);
	trace_event(&cpu, &none, "IRET with NT=1 (task return)");
	ck_assert_ptr_nonnull(strstr(output(), "unsupported: IRET with NT=1 (task return) at 0008:00001000  cf"));
	ck_assert_ptr_null(strstr(output(), "exc: vector 0"));
}
END_TEST

START_TEST(io_lines)
{
	struct iobus io;
	iobus_init(&io);
	cpu.io = &io;
	trace_attach(&tr, &cpu, TRACE_IO);
	ck_assert_ptr_eq(io.trace_opaque, &tr);
	iobus_write(&io, 0x3f8, 1, 0x41);
	(void)iobus_read(&io, 0x64, 2);
	ck_assert_str_eq(output(), "io: out port 0x03f8 size 1 <- 0x41\n"
				   "io: in  port 0x0064 size 2 -> 0xffff\n");
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_classes);
	tcase_add_test(tc, insn_line_32);
	tcase_add_test(tc, insn_line_16_and_64);
	tcase_add_test(tc, insn_off_no_output);
	tcase_add_test(tc, events_filtered);
	tcase_add_test(tc, read_code_paging);
	tcase_add_test(tc, read_code_sets_no_accessed_bit);
	tcase_add_test(tc, read_code_through_stage2);
	tcase_add_test(tc, read_code_rom_device_canonical);
	tcase_add_test(tc, walk_and_note);
	tcase_add_test(tc, io_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(trace_suite());
}
