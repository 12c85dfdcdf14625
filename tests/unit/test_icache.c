/* The decoded-instruction cache: self-modifying code under both TLB modes
 * (exact and --tlb flush), writes beside code that must not drop it, the
 * per-page block lists, the cheap reset, and an instruction whose bytes cross
 * into a page that is remapped (the cache must follow the remap).
 *
 * Cases named *_tlb run twice: _i = 0 with the TLB caching translations, _i = 1
 * with cpu.tlb_uncached (--tlb flush), where no translation is ever cached. */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/icache.h"
#include "suite_runner.h"

#define RAM (1u << 20)
#define PD 0x10000
#define PT 0x11000

static struct physmem pm;
static struct iobus io;
static struct cpu cpu;

/* Flat 4 GiB descriptor (SDM Vol.3 3.4.5). */
static uint64_t flat(unsigned access)
{
	return 0xffff | ((uint64_t)access << 40) | (0xfull << 48) | (0xcull << 52);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void setup(void)
{
	ck_assert(physmem_init(&pm, RAM));
	iobus_init(&io);
	cpu_init(&cpu, cpu_model_find("core2"), &pm, &io);
	pm.on_ram_write = ram_written;
	pm.on_ram_write_opaque = &cpu;
	cpu.cr0 |= CR0_PE;
	seg_load_descriptor(&cpu.seg[SR_CS], 0x08, flat(0x9b));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu.seg[s], 0x10, flat(0x93));
	cpu.cpl = 0;
	cpu_update_mode(&cpu);
}

static void teardown(void)
{
	cpu_destroy(&cpu);
	physmem_destroy(&pm);
}

/* Run from rip until HLT. */
static void run_to_hlt(uint64_t rip)
{
	cpu.rip = rip;
	cpu.icount_limit = cpu.icount + 100;
	ck_assert_int_eq(cpu_run(&cpu), ST_HALT);
}

/* SDM Vol.3 4.10: instruction fetches use the current translation. MOV EAX,imm32
 * at linear 0x1ffd has its last two immediate bytes on linear page 0x2000; after
 * that page is remapped (and the TLB flushed, as MOV CR3 would), the same
 * instruction must read the new bytes. */
START_TEST(page_crossing_instruction_follows_remap)
{
	/* 32-bit paging: linear 0x1000 -> 0x1000, 0x2000 -> 0x3000 (then 0x4000). */
	physmem_write(&pm, PD, 4, PT | 3);
	physmem_write(&pm, PT + 1 * 4, 4, 0x1000 | 3);
	physmem_write(&pm, PT + 2 * 4, 4, 0x3000 | 3);
	static const uint8_t head[] = { 0xb8, 0x11, 0x22, 0x33 };   /* mov eax, 0x..332211 */
	physmem_write_bytes(&pm, 0x1ffd, head, 3);
	physmem_write(&pm, 0x3000, 1, 0x33);                       /* imm byte 2 */
	physmem_write(&pm, 0x3001, 1, 0x44);                       /* imm byte 3 */
	physmem_write(&pm, 0x3002, 1, 0xf4);                       /* hlt */
	physmem_write(&pm, 0x4000, 1, 0x55);
	physmem_write(&pm, 0x4001, 1, 0x66);
	physmem_write(&pm, 0x4002, 1, 0xf4);
	cpu.cr3 = PD;
	cpu.cr0 |= CR0_PG;
	tlb_flush_all(&cpu.tlb);

	run_to_hlt(0x1ffd);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x44332211);
	physmem_write(&pm, PT + 2 * 4, 4, 0x4000 | 3);
	tlb_flush_all(&cpu.tlb);
	/* The new translation of the second page in the TLB first (the HLT at
	 * 0x4002), so that the kept instruction meets it at its lookup. */
	run_to_hlt(0x2002);
	run_to_hlt(0x1ffd);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x66552211);
}
END_TEST

/* A guest store through the CPU, from a page of its own: mov byte [at], v;
 * hlt at 6000H. */
static void guest_store_byte(uint32_t at, uint8_t v)
{
	const uint8_t store[] = { 0xc6, 0x05, at & 0xff, (at >> 8) & 0xff, (at >> 16) & 0xff, at >> 24, v, 0xf4 };
	physmem_write_bytes(&pm, 0x6000, store, sizeof(store));
	run_to_hlt(0x6000);
}

/* Is the block decoded from pa still cached? */
static bool cached(uint64_t pa)
{
	return icache_find(cpu.icache, pa) != NULL;
}

/* An instruction that runs into the next page is kept (with the TLB caching:
 * a hot loop must not decode it at every entry) and still sees every change
 * to its bytes on the second page, where no block lies to be dropped (SDM
 * Vol.3 11.6): a write by a device (physmem) and a guest store, each to the
 * second page only. Under --tlb flush it is decoded afresh every time.
 *   1ffd: mov eax, 0x44332211    (its last two bytes at 2000)
 *   2002: hlt */
START_TEST(page_crossing_instruction_kept_and_checked_tlb)
{
	cpu.tlb_uncached = _i;
	static const uint8_t code[] = { 0xb8, 0x11, 0x22, 0x33, 0x44, 0xf4 };
	physmem_write_bytes(&pm, 0x1ffd, code, sizeof(code));
	run_to_hlt(0x1ffd);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x44332211);
	ck_assert(cached(0x1ffd) == !_i);
	physmem_write(&pm, 0x2000, 1, 0x55);
	run_to_hlt(0x1ffd);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x44552211);
	guest_store_byte(0x2001, 0x66);
	run_to_hlt(0x1ffd);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x66552211);
	ck_assert(cached(0x1ffd) == !_i);
}
END_TEST

/* SDM Vol.3 11.6: a store into code that has been decoded takes effect for the
 * next execution of it (here: the immediate of an instruction run before). */
START_TEST(self_modifying_code_tlb)
{
	cpu.tlb_uncached = _i;
	/* mov eax, 1; hlt */
	static const uint8_t code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xf4 };
	physmem_write_bytes(&pm, 0x5000, code, sizeof(code));
	run_to_hlt(0x5000);
	ck_assert_uint_eq(cpu.regs[R_AX], 1);
	guest_store_byte(0x5001, 7);
	run_to_hlt(0x5000);
	ck_assert_uint_eq(cpu.regs[R_AX], 7);
}
END_TEST

/* SDM Vol.3 11.6 (and 8.1.3: P6 and later detect a store to the instructions
 * already fetched): a store to the immediate of the next instruction of the
 * same block is seen, whether or not the TLB caches (the bundled misc guest's
 * check 49).
 *   5000: mov dword [0x500b], 0x5a5a5a5a
 *   500a: mov eax, 0x11111111          (immediate at 500b)
 *   500f: hlt */
START_TEST(store_to_next_instruction_tlb)
{
	static const uint8_t code[] = {
		0xc7, 0x05, 0x0b, 0x50, 0x00, 0x00, 0x5a, 0x5a, 0x5a, 0x5a,
		0xb8, 0x11, 0x11, 0x11, 0x11, 0xf4,
	};
	cpu.tlb_uncached = _i;
	physmem_write_bytes(&pm, 0x5000, code, sizeof(code));
	run_to_hlt(0x5000);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x5a5a5a5a);
}
END_TEST

/* The same in real mode after a reset, as a flat image at 0000:7C00 would do it
 * (hvemu run --load IMAGE@0x7c00 --entry 0x7c00):
 *   7c00: mov byte [0x7c06], 0         (the immediate of the next instruction)
 *   7c05: mov al, 1
 *   7c07: hlt */
START_TEST(real_mode_image_patches_next_instruction_tlb)
{
	static const uint8_t image[] = { 0xc6, 0x06, 0x06, 0x7c, 0x00, 0xb0, 0x01, 0xf4 };
	cpu_reset(&cpu);
	cpu.tlb_uncached = _i;
	seg_load_real(&cpu.seg[SR_CS], 0);
	physmem_write_bytes(&pm, 0x7c00, image, sizeof(image));
	run_to_hlt(0x7c00);
	ck_assert_uint_eq(cpu.regs[R_AX] & 0xff, 0);
}
END_TEST

/* A store to bytes of the code's page that no decoded instruction came from
 * changes no instruction (SDM Vol.3 11.6 asks only that a write to a fetched
 * instruction be seen): the block stays cached and keeps running.
 *   5000: mov dword [0x5010], 7        (data right after the code)
 *   500a: mov eax, 1
 *   500f: hlt */
START_TEST(store_beside_code_keeps_the_block_tlb)
{
	static const uint8_t code[] = {
		0xc7, 0x05, 0x10, 0x50, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
		0xb8, 0x01, 0x00, 0x00, 0x00, 0xf4,
	};
	cpu.tlb_uncached = _i;
	physmem_write_bytes(&pm, 0x5000, code, sizeof(code));
	run_to_hlt(0x5000);
	ck_assert_uint_eq(physmem_read(&pm, 0x5010, 4), 7);
	ck_assert(cached(0x5000));
	ck_assert(!(cpu.attention & ATT_CODE));   /* the block ran to its HLT in one go */
	run_to_hlt(0x5000);                 /* the same block, from the cache */
	ck_assert(cached(0x5000) && !(cpu.attention & ATT_CODE));
}
END_TEST

/* Two blocks in one page: a write to the first byte after a block drops
 * nothing, a write to its last byte drops that block only.
 *   5000: mov eax, 1; hlt              (bytes 5000-5005)
 *   5010: mov ebx, 2; hlt              (bytes 5010-5015) */
START_TEST(write_drops_only_the_blocks_it_overlaps_tlb)
{
	static const uint8_t a[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xf4 };
	static const uint8_t b[] = { 0xbb, 0x02, 0x00, 0x00, 0x00, 0xf4 };
	cpu.tlb_uncached = _i;
	physmem_write_bytes(&pm, 0x5000, a, sizeof(a));
	physmem_write_bytes(&pm, 0x5010, b, sizeof(b));
	run_to_hlt(0x5000);
	run_to_hlt(0x5010);
	ck_assert(cached(0x5000) && cached(0x5010));

	guest_store_byte(0x5006, 0x90);              /* beside block a */
	ck_assert(cached(0x5000) && cached(0x5010));

	guest_store_byte(0x5005, 0x90);              /* over block a's HLT */
	ck_assert(!cached(0x5000));
	ck_assert(cached(0x5010));
}
END_TEST

/* A dword store at 5FFE reaches two pages; its last two bytes rewrite the
 * opcode and first immediate byte of the block at 6000, which must go.
 *   6000: mov eax, 0x11111111; hlt
 *   7000: mov dword [0x5ffe], 0x33b80000; hlt */
START_TEST(store_across_pages_reaches_code_on_the_second_tlb)
{
	static const uint8_t code[] = { 0xb8, 0x11, 0x11, 0x11, 0x11, 0xf4 };
	static const uint8_t store[] = {
		0xc7, 0x05, 0xfe, 0x5f, 0x00, 0x00, 0x00, 0x00, 0xb8, 0x33, 0xf4,
	};
	cpu.tlb_uncached = _i;
	physmem_write_bytes(&pm, 0x6000, code, sizeof(code));
	physmem_write_bytes(&pm, 0x7000, store, sizeof(store));
	run_to_hlt(0x6000);
	run_to_hlt(0x7000);
	ck_assert(!cached(0x6000));
	run_to_hlt(0x6000);
	ck_assert_uint_eq(cpu.regs[R_AX], 0x11111133);
}
END_TEST

/* With translations cached, a page whose code is all gone takes stores on the
 * inline path again: its TLB_WRITE tag comes back (mmu/tlb.h). */
START_TEST(page_without_code_gets_inline_writes_back)
{
	static const uint8_t code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xf4 };
	/* mov byte [0x5000], 0xb8; mov byte [0x5000], 0xb8; hlt */
	static const uint8_t store[] = {
		0xc6, 0x05, 0x00, 0x50, 0x00, 0x00, 0xb8,
		0xc6, 0x05, 0x00, 0x50, 0x00, 0x00, 0xb8, 0xf4,
	};
	physmem_write_bytes(&pm, 0x5000, code, sizeof(code));
	physmem_write_bytes(&pm, 0x6000, store, sizeof(store));
	run_to_hlt(0x5000);
	struct tlb_entry *e = tlb_find(&cpu.tlb, TLB_SUPERVISOR, TLB_WRITE_CODE, 0x5000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->tag[TLB_WRITE], TLB_TAG_INVALID);     /* code: withheld */
	run_to_hlt(0x6000);
	ck_assert(!icache_page_has_code(cpu.icache, 0x5000));
	ck_assert_uint_eq(e->tag[TLB_WRITE], e->tag[TLB_WRITE_CODE]);
}
END_TEST

/* Entries the current context can use. */
static unsigned tlb_live(const struct tlb *t)
{
	unsigned n = 0;
	for (unsigned i = 0; i < TLB_SLOTS; i++)
		for (unsigned k = 0; k < TLB_ACCESS_KINDS; k++) {
			uint64_t id = t->e[i].tag[k] & TLB_ID_MASK;
			n += id == t->cur || id == t->cur_global;
		}
	return n;
}

/* cpu_reset(): the RESET state of cpu_init() on the same machine, with the TLB
 * and the cache empty; code that ran before runs the same way again. */
START_TEST(reset_empties_the_caches)
{
	static const uint8_t code[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0xf4 };
	physmem_write_bytes(&pm, 0x5000, code, sizeof(code));
	run_to_hlt(0x5000);
	ck_assert(cached(0x5000));
	ck_assert_uint_ne(tlb_live(&cpu.tlb), 0);
	const struct cpu_model *model = cpu.model;
	struct icache *ic = cpu.icache;

	cpu_reset(&cpu);
	static struct cpu fresh;
	cpu_init(&fresh, model, &pm, &io);
	ck_assert(memcmp(&cpu, &fresh, offsetof(struct cpu, model)) == 0);
	ck_assert_uint_eq(cpu.maxphyaddr, fresh.maxphyaddr);
	cpu_destroy(&fresh);
	ck_assert_ptr_eq(cpu.model, model);
	ck_assert_ptr_eq(cpu.icache, ic);
	ck_assert_ptr_eq(cpu.mem, &pm);
	ck_assert_uint_eq(cpu.rip, 0xfff0);                  /* SDM Vol.3 9.1.1 Table 9-1 */
	ck_assert_uint_eq(cpu.seg[SR_CS].base, 0xffff0000);
	ck_assert_uint_eq(cpu.regs[R_AX], 0);
	ck_assert_uint_eq(cpu.icount, 0);
	ck_assert_uint_eq(cpu.fault_chain.count, 0);
	ck_assert_int_eq(cpu.mode, MODE_REAL);
	ck_assert_uint_eq(tlb_live(&cpu.tlb), 0);
	ck_assert_uint_eq(ic->n_used, 0);
	ck_assert(!cached(0x5000));
	ck_assert(!icache_page_has_code(ic, 0x5000));

	seg_load_real(&cpu.seg[SR_CS], 0x500);
	cpu.rip = 0;
	cpu.icount_limit = 100;
	ck_assert_int_eq(cpu_run(&cpu), ST_HALT);
	ck_assert_uint_eq(cpu.regs[R_AX] & 0xffff, 1);      /* 16-bit: mov ax, 1 */
}
END_TEST

/* --- the cache on its own --- */

/* Decoded bytes [first, first + len) of page 0x3000, three blocks, then one on
 * page 0x4000. */
START_TEST(page_lists_and_write_ranges)
{
	struct icache *ic = icache_create(64 * 1024);
	ck_assert_ptr_nonnull(ic);
	struct block *b1 = icache_victim(ic, 0x3000), *b2 = icache_victim(ic, 0x3100),
		     *b3 = icache_victim(ic, 0x3200), *b4 = icache_victim(ic, 0x4000);
	ck_assert(icache_insert(ic, b1, 0x3000, 0x10));     /* first block of its page */
	ck_assert(!icache_insert(ic, b2, 0x3100, 0x10));
	ck_assert(!icache_insert(ic, b3, 0x3200, 0x10));
	ck_assert(icache_insert(ic, b4, 0x4000, 0x10));

	/* Half-open ranges: the bytes just before and just after a block. */
	ck_assert(!icache_write(ic, 0x30ff, 1));
	ck_assert(!icache_write(ic, 0x3110, 4));
	ck_assert(!icache_write(ic, 0x3800, 8));            /* beyond every block */
	ck_assert(b1->pa == 0x3000 && b2->pa == 0x3100 && b3->pa == 0x3200);
	/* The middle of the list goes; its neighbours stay linked. */
	ck_assert(icache_write(ic, 0x310f, 1));
	ck_assert_uint_eq(b2->pa, BLOCK_INVALID);
	ck_assert(b1->pa == 0x3000 && b3->pa == 0x3200);
	/* One write over two blocks. */
	ck_assert(icache_write(ic, 0x3008, 0x200));
	ck_assert(b1->pa == BLOCK_INVALID && b3->pa == BLOCK_INVALID);
	ck_assert(!icache_page_has_code(ic, 0x3000));
	ck_assert(icache_page_has_code(ic, 0x4000));
	/* Outside RAM: nothing cached, nothing to drop. */
	ck_assert(!icache_write(ic, 64 * 1024, 4));
	ck_assert(!icache_page_has_code(ic, 64 * 1024));

	/* A slot reused for another block leaves its old page's list. */
	ck_assert(icache_insert(ic, b2, 0x3100, 0x10));
	icache_drop(ic, b4);
	ck_assert(!icache_page_has_code(ic, 0x4000));
	ck_assert(icache_page_has_code(ic, 0x3000));

	icache_flush(ic);
	ck_assert_uint_eq(ic->n_used, 0);
	ck_assert(!icache_page_has_code(ic, 0x3000));
	/* No slot holds a block: dropped, or never filled (no lookup matches
	 * code size 0). */
	for (unsigned i = 0; i < ICACHE_BLOCKS; i++)
		ck_assert(ic->blocks[i].pa == BLOCK_INVALID || ic->blocks[i].code_size == 0);
	ck_assert(icache_insert(ic, b3, 0x3200, 0x10));     /* usable after a flush */
	ck_assert(icache_write(ic, 0x3200, 1));
	icache_destroy(ic);
}
END_TEST

/* Keep a block of 32-bit code decoded from [pa, pa + len), where the cache
 * puts a new one; returns its slot. */
static struct block *keep_new_block(struct icache *ic, uint64_t pa, unsigned len)
{
	struct block *b = icache_victim(ic, pa);
	b->code_size = 32;
	icache_insert(ic, b, pa, len);
	return b;
}

/* ICACHE_WAYS blocks whose addresses share a set are cached together; one
 * more replaces them in turn, the one decoded first first. A slot never
 * filled (pa 0, code size 0) is found for no address, 0 included. */
START_TEST(set_holds_its_ways_then_replaces_in_turn)
{
	struct icache *ic = icache_create(1ull << 30);   /* room for a set's addresses, 64 MiB apart */
	ck_assert_ptr_nonnull(ic);
	ck_assert_ptr_null(icache_find(ic, 0));
	uint64_t pa[ICACHE_WAYS + 2];
	unsigned n = 0;
	for (uint64_t a = 0x10000; n < ICACHE_WAYS + 2; a += PAGE_SIZE)
		if (icache_set_of(a) == icache_set_of(0x10000))
			pa[n++] = a;
	struct block *slot[ICACHE_WAYS + 2];
	for (unsigned i = 0; i < ICACHE_WAYS + 2; i++) {
		ck_assert_ptr_null(icache_find(ic, pa[i]));
		slot[i] = keep_new_block(ic, pa[i], 0x10);
		ck_assert_ptr_eq(icache_find(ic, pa[i]), slot[i]);
		if (i < ICACHE_WAYS) {
			for (unsigned j = 0; j < i; j++)    /* every earlier one still cached */
				ck_assert_ptr_eq(icache_find(ic, pa[j]), slot[j]);
		} else {
			ck_assert_ptr_eq(slot[i], slot[i - ICACHE_WAYS]);
			ck_assert_ptr_null(icache_find(ic, pa[i - ICACHE_WAYS]));
			ck_assert_ptr_eq(icache_find(ic, pa[i - ICACHE_WAYS + 1]), slot[i - ICACHE_WAYS + 1]);
		}
	}
	/* A dropped block's way is the next one filled. */
	icache_drop(ic, slot[ICACHE_WAYS + 1]);
	ck_assert_ptr_eq(icache_victim(ic, pa[1]), slot[ICACHE_WAYS + 1]);
	icache_destroy(ic);
}
END_TEST

/* icache_crowd_set: the next two new blocks of the set share one slot, and
 * the blocks it fills the set with are found by no lookup of code. */
START_TEST(crowded_set_shares_one_slot)
{
	struct icache *ic = icache_create(1ull << 30);
	ck_assert_ptr_nonnull(ic);
	const uint64_t x = 0x16ff8;
	/* The set full and its round robin past way 0 first. */
	for (uint64_t a = 0x200000, n = 0; n < ICACHE_WAYS + 1; a++)
		if (icache_set_of(a) == icache_set_of(x)) {
			keep_new_block(ic, a, 1);
			n++;
		}
	icache_crowd_set(ic, x, 0x100000);
	uint64_t y = x + PAGE_SIZE;
	while (icache_set_of(y) != icache_set_of(x))
		y++;
	struct block *bx = keep_new_block(ic, x, 4);
	ck_assert_ptr_eq(icache_victim(ic, y), bx);
	for (uint64_t a = 0x100000; a < 0x100000 + 8 * ICACHE_SETS; a++) {
		const struct block *b = icache_find(ic, a);
		ck_assert(!b || b->code_size == 0);
	}
	icache_destroy(ic);
}
END_TEST

static Suite *icache_suite(void)
{
	Suite *s = suite_create("icache");
	TCase *tc = tcase_create("icache");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, page_crossing_instruction_follows_remap);
	tcase_add_test(tc, set_holds_its_ways_then_replaces_in_turn);
	tcase_add_test(tc, crowded_set_shares_one_slot);
	tcase_add_loop_test(tc, page_crossing_instruction_kept_and_checked_tlb, 0, 2);
	tcase_add_loop_test(tc, self_modifying_code_tlb, 0, 2);
	tcase_add_loop_test(tc, store_to_next_instruction_tlb, 0, 2);
	tcase_add_loop_test(tc, real_mode_image_patches_next_instruction_tlb, 0, 2);
	tcase_add_loop_test(tc, store_beside_code_keeps_the_block_tlb, 0, 2);
	tcase_add_loop_test(tc, write_drops_only_the_blocks_it_overlaps_tlb, 0, 2);
	tcase_add_loop_test(tc, store_across_pages_reaches_code_on_the_second_tlb, 0, 2);
	tcase_add_test(tc, page_without_code_gets_inline_writes_back);
	tcase_add_test(tc, reset_empties_the_caches);
	tcase_add_test(tc, page_lists_and_write_ranges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(icache_suite());
}
