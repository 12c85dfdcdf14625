/* Block links (emu/run.c follow_link) against cache slots reused under them
 * (issue 14 item 1). A page-crossing instruction is decoded into the slot its
 * physical address hashes to and kept under its first page; a link to it
 * must compare its second page's bytes when followed, or a later decode into
 * the same slot (another page-crossing instruction, a failed decode) or a
 * store to its bytes goes unseen:
 *   failed_decode_behind_link            the 9 KiB real-mode image: a #GP
 *                                        handler re-runs a block whose
 *                                        successor's slot a 16-prefix decode
 *                                        (#GP) reused; it crashed the host
 *   same_slot_page_crossers_64           two page-crossing instructions of one
 *                                        slot (the ioapic.flat #PF in printf)
 *   self_modified_page_crosser_{real,64} a store to a page-crossing instruction
 *                                        run before, by the same CPU (_i = 0)
 *                                        or the other of two (_i = 1); SDM Vol.3
 *                                        11.6 and 8.1.3: the next execution
 *                                        runs the new bytes
 *   page_crosser_in_a_loop               a hot loop through a page-crossing
 *                                        instruction follows a link to it,
 *                                        and sees each round's store to its
 *                                        bytes on the second page, where no
 *                                        block lies to be dropped
 *   block_past_another_cs_limit          a block decoded at 1000:0018 and
 *                                        found again at 0002:FFF8 (the same
 *                                        bytes): its instructions past IP
 *                                        FFFFH are #GP(0) there (SDM Vol.3
 *                                        5.3), not run
 *   invlpg_of_code_page_voids_links      INVLPG of a page a link goes into
 *                                        voids the link (SDM Vol.3 4.10.4.1:
 *                                        the next fetch from the page walks
 *                                        anew), INVLPG of a data page leaves
 *                                        every link standing */
#include <check.h>
#include <string.h>

#include "emu/icache.h"
#include "machine_fixture.h"
#include "suite_runner.h"

static struct test_machine m;
static struct cpu cpu1;            /* the second processor of the _i = 1 cases */

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void setup(void)
{
	machine_init(&m, "core2");
	m.pm.on_ram_write = ram_written;
	m.pm.on_ram_write_opaque = &m.cpu;
	memset(&cpu1, 0, sizeof(cpu1));
	cpu_init(&cpu1, model_named("core2"), &m.pm, &m.io);
}

static void teardown(void)
{
	cpu_destroy(&cpu1);
	machine_free(&m);
}

/* Two processors whose stores reach each other's decoded code (machine/smp.c). */
static void join_cpus(void)
{
	m.cpu.next_cpu = &cpu1;
	cpu1.next_cpu = &m.cpu;
}

static void put(uint64_t pa, const uint8_t *bytes, unsigned len)
{
	physmem_write_bytes(&m.pm, pa, bytes, len);
}
#define PUT(pa, ...) put((pa), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* Run c from rip until HLT, within limit instructions. */
static void run_to_hlt(struct cpu *c, uint64_t rip, uint64_t limit)
{
	c->rip = rip;
	c->halted = false;
	c->icount_limit = c->icount + limit;
	ck_assert_int_eq(cpu_run(c), ST_HALT);
}

/* Real mode at CS = 0 after a reset. */
static void real_mode(struct cpu *c)
{
	cpu_reset(c);
	seg_load_real(&c->seg[SR_CS], 0);
	cpu_update_mode(c);
}

/* cpu1 in the mode and address space m.cpu is in. */
static void same_mode(struct cpu *c)
{
	c->cr0 = m.cpu.cr0;
	c->cr3 = m.cpu.cr3;
	c->cr4 = m.cpu.cr4;
	c->efer = m.cpu.efer;
	memcpy(c->seg, m.cpu.seg, sizeof(c->seg));
	c->gdtr = m.cpu.gdtr;
	c->cpl = m.cpu.cpl;
	cpu_update_mode(c);
	tlb_flush_all(&c->tlb);
}

/* The first address of pa's set (emu/icache.h) from `from` on that lies
 * before_end bytes before the end of its page. */
static uint64_t in_set_before_page_end(uint64_t pa, uint64_t from, unsigned before_end)
{
	uint64_t a = (from | (PAGE_SIZE - 1)) + 1 - before_end;
	while (icache_set_of(a) != icache_set_of(pa))
		a += PAGE_SIZE;
	return a;
}

/* Make the next two new blocks of pa's set share a slot (emu/icache.h; no
 * test runs code from 200000H on). */
static void crowd_set(uint64_t pa)
{
	icache_crowd_set(m.cpu.icache, pa, 0x200000);
}

/*   IVT[13] -> 0000:0600 (#GP)
 *   0600: inc byte [0x500]; cmp byte [0x500], 3; jae 0613
 *         add sp, 6; xor ax, ax; jmp 7ffc           (re-run the block)
 *   0613: hlt
 *   7ffc: nop; nop                                   (block A: links to 7ffe)
 *   7ffe: mov ax, 0x1234                             (crosses into page 8000)
 *   8001: jmp far to P - 16, the first address of 7ffe's set from 10000H
 *         on that is 16 bytes before its page's end:
 *   P - 16: 16 ES prefixes: over 15 bytes, #GP(0) (SDM Vol.2 2.3.11); decoded
 *         into the slot of 7ffe (crowd_set) and failed */
START_TEST(failed_decode_behind_link)
{
	real_mode(&m.cpu);
	physmem_write(&m.pm, 13 * 4, 4, 0x0600);
	PUT(0x600, 0xfe, 0x06, 0x00, 0x05, 0x80, 0x3e, 0x00, 0x05, 0x03, 0x73, 0x08,
	    0x83, 0xc4, 0x06, 0x31, 0xc0, 0xe9, 0xe9, 0x79, 0xf4);
	PUT(0x7ffc, 0x90, 0x90, 0xb8, 0x34);
	uint64_t prefixes = in_set_before_page_end(0x7ffe, 0x10000, 16);
	uint16_t seg = (uint16_t)((prefixes >> 4) & 0xf000), off = (uint16_t)(prefixes - seg * 16u);
	PUT(0x8000, 0x12, 0xea, off & 0xff, off >> 8, seg & 0xff, seg >> 8);
	memset(m.pm.ram + prefixes, 0x26, 16);
	m.pm.ram[prefixes + 16] = 0x90;
	crowd_set(0x7ffe);
	m.cpu.regs[R_SP] = 0x7000;
	run_to_hlt(&m.cpu, 0x7ffc, 200);
	ck_assert_uint_eq(m.pm.ram[0x500], 3);
	ck_assert_uint_eq(m.cpu.regs[R_AX] & 0xffff, 0x1234);
	ck_assert_uint_eq(m.cpu.rip, 0x614);
}
END_TEST

/* 64-bit, identity-mapped:
 *   40ffd: nop; nop                     (block A: links to 40fff)
 *   40fff: shl r12, 8                   (crosses into page 41000)
 *   41003: jmp S, the first address of 40fff's set from 42000H on that is 2
 *          bytes before its page's end:
 *   S:     sub rsp, 0x828               (crosses into the next page; slot of 40fff)
 *   S + 7: dec ecx; jnz 40ffd
 *   S + 15: hlt */
START_TEST(same_slot_page_crossers_64)
{
	activate(&m);
	to64(&m);
	PUT(0x40ffd, 0x90, 0x90, 0x49);
	uint64_t sub = in_set_before_page_end(0x40fff, 0x42000, 2);
	uint32_t to_sub = (uint32_t)(sub - 0x41008), back = (uint32_t)(0x40ffd - (sub + 15));
	PUT(0x41000, 0xc1, 0xe4, 0x08, 0xe9, to_sub & 0xff, (to_sub >> 8) & 0xff, (to_sub >> 16) & 0xff, to_sub >> 24);
	PUT(sub, 0x48, 0x81);
	PUT(sub + 2, 0xec, 0x28, 0x08, 0x00, 0x00, 0xff, 0xc9, 0x0f, 0x85, back & 0xff, (back >> 8) & 0xff,
	    (back >> 16) & 0xff, back >> 24, 0xf4);
	crowd_set(0x40fff);
	m.cpu.regs[R_R12] = 1;
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.regs[R_CX] = 3;
	run_to_hlt(&m.cpu, 0x40ffd, 100);
	ck_assert_uint_eq(m.cpu.regs[R_R12], 1u << 24);
	ck_assert_uint_eq(m.cpu.regs[R_SP], 0x80000 - 3 * 0x828);
	ck_assert_uint_eq(m.cpu.regs[R_CX], 0);
	ck_assert_uint_eq(m.cpu.rip, sub + 16);
}
END_TEST

/* Real mode:
 *   7ffc: nop; nop                       (block A: links to 7ffe)
 *   7ffe: mov ax, 0x1234                 (crosses into page 8000)
 *   8001: hlt
 * then the storer (this CPU or the other) runs at 9000:
 *   mov byte [0x7fff], 0x56; mov byte [0x8000], 0x78; hlt
 * and A runs again: AX must be 0x7856. */
START_TEST(self_modified_page_crosser_real)
{
	struct cpu *storer = _i ? &cpu1 : &m.cpu;
	if (_i)
		join_cpus();
	real_mode(&m.cpu);
	real_mode(&cpu1);
	PUT(0x7ffc, 0x90, 0x90, 0xb8, 0x34);
	PUT(0x8000, 0x12, 0xf4);
	PUT(0x9000, 0xc6, 0x06, 0xff, 0x7f, 0x56, 0xc6, 0x06, 0x00, 0x80, 0x78, 0xf4);
	run_to_hlt(&m.cpu, 0x7ffc, 50);
	ck_assert_uint_eq(m.cpu.regs[R_AX] & 0xffff, 0x1234);
	run_to_hlt(storer, 0x9000, 50);
	run_to_hlt(&m.cpu, 0x7ffc, 50);
	ck_assert_uint_eq(m.cpu.regs[R_AX] & 0xffff, 0x7856);
}
END_TEST

/* 64-bit, identity-mapped:
 *   40ffc: nop; nop                      (block A: links to 40ffe)
 *   40ffe: mov eax, 0x11223344           (crosses into page 41000)
 *   41003: hlt
 * the storer at 50000: mov byte [0x40fff], 0x55; mov byte [0x41000], 0x66; hlt */
START_TEST(self_modified_page_crosser_64)
{
	struct cpu *storer = _i ? &cpu1 : &m.cpu;
	if (_i)
		join_cpus();
	activate(&m);
	to64(&m);
	same_mode(&cpu1);
	PUT(0x40ffc, 0x90, 0x90, 0xb8, 0x44);
	PUT(0x41000, 0x33, 0x22, 0x11, 0xf4);
	PUT(0x50000, 0xc6, 0x04, 0x25, 0xff, 0x0f, 0x04, 0x00, 0x55,
	    0xc6, 0x04, 0x25, 0x00, 0x10, 0x04, 0x00, 0x66, 0xf4);
	run_to_hlt(&m.cpu, 0x40ffc, 50);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x11223344);
	run_to_hlt(storer, 0x50000, 50);
	run_to_hlt(&m.cpu, 0x40ffc, 50);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 0x11226655);
}
END_TEST

/* 64-bit, identity-mapped, 100 rounds (ECX), EDX = the round:
 *   40ff8: add ebx, eax; nop x 4          (block A: falls through to 40ffe)
 *   40ffe: mov eax, 0x11223344            (crosses into page 41000)
 *   41003: mov byte [0x41000], dl         (the immediate's second byte)
 *          inc edx; dec ecx; jnz 40ff8
 *   41010: hlt
 * Round 0 loads 11223344H, round r > 0 11220044H | (r - 1) << 8. */
START_TEST(page_crosser_in_a_loop)
{
	activate(&m);
	to64(&m);
	PUT(0x40ff8, 0x01, 0xc3, 0x90, 0x90, 0x90, 0x90, 0xb8, 0x44);
	PUT(0x41000, 0x33, 0x22, 0x11, 0x88, 0x14, 0x25, 0x00, 0x10, 0x04, 0x00, 0xff, 0xc2, 0xff, 0xc9, 0x75, 0xe8,
	    0xf4);
	m.cpu.regs[R_AX] = m.cpu.regs[R_BX] = m.cpu.regs[R_DX] = 0;
	m.cpu.regs[R_CX] = 100;
	run_to_hlt(&m.cpu, 0x40ff8, 2000);
	uint32_t eax = 0, ebx = 0;
	for (unsigned r = 0; r < 100; r++) {
		ebx += eax;
		eax = r == 0 ? 0x11223344 : 0x11220044 | (r - 1) << 8;
	}
	ck_assert_uint_eq(m.cpu.regs[R_AX], eax);
	ck_assert_uint_eq(m.cpu.regs[R_BX], ebx);
	/* A went on to the crosser by its link, marked for the compare. */
	const struct block *a = icache_find(m.cpu.icache, 0x40ff8);
	ck_assert_ptr_nonnull(a);
	bool linked = false;
	for (unsigned i = 0; i < 2; i++)
		linked = linked || (a->links[i].rip == 0x40ffe && (a->links[i].gen & LINK_SECOND_PAGE));
	ck_assert(linked);
}
END_TEST

/* Real mode, IVT[13] -> 0000:0600 (#GP): mov bx, 0x0d0d; hlt
 *   10018: inc ax x 8; hlt
 * run at 1000:0018 (a block of all nine), then at 0002:FFF8: the eighth INC
 * ends at IP FFFFH, the limit, and the fetch of the HLT at IP 10000H is
 * #GP(0) (SDM Vol.3 5.3; real mode's limit is FFFFH, emu/fetch.c). */
START_TEST(block_past_another_cs_limit)
{
	real_mode(&m.cpu);
	physmem_write(&m.pm, 13 * 4, 4, 0x0600);
	PUT(0x600, 0xbb, 0x0d, 0x0d, 0xf4);
	PUT(0x10018, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0xf4);
	m.cpu.regs[R_SP] = 0x7000;
	m.cpu.regs[R_AX] = m.cpu.regs[R_BX] = 0;
	seg_load_real(&m.cpu.seg[SR_CS], 0x1000);
	run_to_hlt(&m.cpu, 0x18, 20);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 8);
	ck_assert_uint_eq(m.cpu.rip, 0x21);
	seg_load_real(&m.cpu.seg[SR_CS], 0x0002);
	run_to_hlt(&m.cpu, 0xfff8, 20);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 16);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 0x0d0d);
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0);
	ck_assert_uint_eq(m.cpu.rip, 0x604);
}
END_TEST

/* 64-bit, the first 2 MiB in 4-KiB pages mapped one to one by the page
 * table at pt, which the page directory pd points to. */
static void identity_4k_pages(uint64_t pd, uint64_t pt)
{
	activate(&m);
	to64(&m);
	for (uint64_t pa = 0; pa < (2u << 20); pa += PAGE_SIZE)
		physmem_write(&m.pm, pt + (pa >> 12) * 8, 8, pa | 3);
	physmem_write(&m.pm, pd, 8, pt | 3);
	tlb_flush_all(&m.cpu.tlb);
}

/* The two callees of the tests below: 42000 returns 1 in EAX, 43000 2. */
static void put_callees(void)
{
	PUT(0x42000, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3);
	PUT(0x43000, 0xb8, 0x02, 0x00, 0x00, 0x00, 0xc3);
}

/* 42000's PTE (in the page table at 20000) to frame 43000, with flags. */
static void map_42000_to_43000(uint64_t flags)
{
	physmem_write(&m.pm, 0x20000 + 0x42 * 8, 8, 0x43000 | flags);
}

/* ECX = n rounds of the loop at 40000 (the tests below), within limit
 * instructions. */
static void rounds_at_40000(unsigned n, uint64_t limit)
{
	m.cpu.regs[R_CX] = n;
	run_to_hlt(&m.cpu, 0x40000, limit);
}

/* 64-bit, the first 2 MiB in 4-KiB pages (identity), ECX rounds of:
 *   40000: call 42000; add ebx, eax; invlpg [rsi]; dec ecx; jnz 40000
 *   4000e: hlt
 *   42000: mov eax, 1; ret        (frame 42000)
 *   43000: mov eax, 2; ret        (frame 43000, mapped at 42000 later) */
START_TEST(invlpg_of_code_page_voids_links)
{
	identity_4k_pages(PD, 0x20000);
	PUT(0x40000, 0xe8, 0xfb, 0x1f, 0x00, 0x00, 0x01, 0xc3, 0x0f, 0x01, 0x3e, 0xff, 0xc9, 0x75, 0xf2, 0xf4);
	put_callees();
	m.cpu.regs[R_SP] = 0x80000;
	/* INVLPG of a page no code lies in: the links stay (no new epoch). */
	m.cpu.regs[R_SI] = 0x50000;
	rounds_at_40000(100, 1000);
	uint32_t epoch = m.cpu.tlb.epoch;
	rounds_at_40000(100, 1000);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 200);
	ck_assert_uint_eq(m.cpu.tlb.epoch, epoch);
	/* 42000 remapped to frame 43000 without an INVLPG: the first round may
	 * still use the cached translation (SDM Vol.3 4.10.4.3; hvemu's TLB
	 * does), the round after INVLPG 42000 must not. */
	map_42000_to_43000(3);
	m.cpu.regs[R_SI] = 0x42000;
	m.cpu.regs[R_BX] = 0;
	rounds_at_40000(2, 100);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 1 + 2);
}
END_TEST

/* A TLB flush that leaves the translations of the code pages links lead into
 * as they were keeps the links: the processor may fill its TLB again at once
 * (SDM Vol.3 4.10.2.3), and the link context goes on (emu/link_pages.h).
 * ECX rounds of:
 *   40000: mov cr4, rdi; mov cr4, rbp     (CR4.PGE toggled: a flush of all)
 *   40006: call 42000; add ebx, eax; dec ecx; jnz 40000
 *   40011: hlt
 * Once 42000 is mapped to frame 43000, the flush before the call must let
 * the call reach the new frame. */
START_TEST(flush_keeps_links_to_unchanged_pages)
{
	identity_4k_pages(PD, 0x20000);
	PUT(0x40000, 0x0f, 0x22, 0xe7, 0x0f, 0x22, 0xe5, 0xe8, 0xf5, 0x1f, 0x00, 0x00, 0x01, 0xc3, 0xff, 0xc9, 0x75,
	    0xef, 0xf4);
	put_callees();
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.regs[R_DI] = CR4_PAE | CR4_PGE;
	m.cpu.regs[R_BP] = CR4_PAE;
	rounds_at_40000(100, 1000);
	uint32_t id = m.cpu.link_contexts[0].id;
	unsigned long carried = m.cpu.icache->link_pages.carried;
	rounds_at_40000(100, 1000);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 200);
	ck_assert_uint_eq(m.cpu.link_contexts[0].id, id);
	ck_assert_uint_eq(m.cpu.icache->link_pages.carried, carried + 200);
	map_42000_to_43000(PTE_A | 3);
	m.cpu.regs[R_BX] = 0;
	rounds_at_40000(2, 100);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 2 + 2);
}
END_TEST

/* MOV CR3 to another root: the links stay where the new root's walk of each
 * page they lead into gives the same frame, and no further. ECX rounds of:
 *   40000: mov cr3, rdi; call 42000; add ebx, eax
 *   4000a: mov cr3, rbp; call 42000; add ebx, eax; dec ecx; jnz 40000
 *   40018: hlt
 * First RDI's tables share the PDPT (the same walk below the root); then
 * theirs map 42000 to frame 43000. */
START_TEST(cr3_switch_keeps_links_where_walks_agree)
{
	identity_4k_pages(PD, 0x20000);
	PUT(0x40000, 0x0f, 0x22, 0xdf, 0xe8, 0xf8, 0x1f, 0x00, 0x00, 0x01, 0xc3, 0x0f, 0x22, 0xdd, 0xe8, 0xee, 0x1f,
	    0x00, 0x00, 0x01, 0xc3, 0xff, 0xc9, 0x75, 0xe8, 0xf4);
	put_callees();
	const uint64_t pml4b = 0x14000;
	physmem_write(&m.pm, pml4b, 8, PDPT | 3);
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.regs[R_DI] = pml4b;
	m.cpu.regs[R_BP] = PML4;
	rounds_at_40000(100, 2000);
	uint32_t id = m.cpu.link_contexts[0].id;
	rounds_at_40000(100, 2000);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 400);
	ck_assert_uint_eq(m.cpu.link_contexts[0].id, id);
	/* The other root's own PDPT, PD and page table, 42000 on frame 43000. */
	for (uint64_t pa = 0; pa < (2u << 20); pa += PAGE_SIZE)
		physmem_write(&m.pm, 0x30000 + (pa >> 12) * 8, 8, (pa == 0x42000 ? 0x43000 : pa) | 3);
	physmem_write(&m.pm, 0x15000, 8, 0x30000 | 3);
	physmem_write(&m.pm, 0x16000, 8, 0x15000 | 3);
	physmem_write(&m.pm, pml4b, 8, 0x16000 | 3);
	m.cpu.regs[R_BX] = 0;
	rounds_at_40000(10, 200);
	ck_assert_uint_eq(m.cpu.regs[R_BX], 10 * (2 + 1));
}
END_TEST

/* A link is carried over a flush only where the walk that would refill its
 * page's translation writes nothing: its accessed flags set (SDM Vol.3 4.8).
 * Here the guest clears the accessed flag of 43000's PTE while the TLB still
 * holds the page, so the next link into it is made without a walk:
 *   40000: call 43000; mov [rsi], rdx (A clear); invlpg [rdi] (40000: a new
 *          epoch, the notes dropped, 43000 still cached); jmp 40020
 *   40020: call 43000; mov cr4, rbp; mov cr4, rbx (a flush); dec ecx; jnz 40020
 *   4002f: hlt
 * The second round's call must walk again, setting the flag. */
START_TEST(flush_after_accessed_flag_cleared_walks_again)
{
	identity_4k_pages(PD, 0x20000);
	PUT(0x40000, 0xe8, 0xfb, 0x2f, 0x00, 0x00, 0x48, 0x89, 0x16, 0x0f, 0x01, 0x3f, 0xeb, 0x13);
	PUT(0x40020, 0xe8, 0xdb, 0x2f, 0x00, 0x00, 0x0f, 0x22, 0xe5, 0x0f, 0x22, 0xe3, 0xff, 0xc9, 0x75, 0xf1, 0xf4);
	put_callees();
	const uint64_t pte = 0x20000 + 0x43 * 8;
	m.cpu.regs[R_SP] = 0x80000;
	m.cpu.regs[R_SI] = pte;
	m.cpu.regs[R_DX] = 0x43000 | 3;
	m.cpu.regs[R_DI] = 0x40000;
	m.cpu.regs[R_BP] = CR4_PAE | CR4_PGE;
	m.cpu.regs[R_BX] = CR4_PAE;
	rounds_at_40000(2, 100);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 2);
	ck_assert_uint_eq(physmem_read(&m.pm, pte, 8) & PTE_A, PTE_A);
}
END_TEST

/* The notes are kept and carried per bank (emu/link_pages.h): a changed page
 * that links made at CPL 3 rely on ends the epoch's CPL-3 link contexts and
 * no others, and the same the other way round. Every level user-accessible,
 * its accessed flag set (as walks would have left it). */
START_TEST(link_pages_carried_per_bank)
{
	identity_4k_pages(PD, 0x20000);
	for (uint64_t pa = 0; pa < (2u << 20); pa += PAGE_SIZE)
		physmem_write(&m.pm, 0x20000 + (pa >> 12) * 8, 8, pa | PTE_A | 7);
	physmem_write(&m.pm, PD, 8, 0x20000 | PTE_A | 7);
	physmem_write(&m.pm, PDPT, 8, PD | PTE_A | 7);
	physmem_write(&m.pm, PML4, 8, PDPT | PTE_A | 7);
	tlb_flush_all(&m.cpu.tlb);
	struct link_context *kernel = &m.cpu.link_contexts[0], *user = &m.cpu.link_contexts[1];
	const struct tlb *t = &m.cpu.tlb;
	link_pages_carry(&m.cpu);
	*kernel = (struct link_context){ .id = 1, .tlb_epoch = t->epoch, .cpl = 0, .mode = (uint8_t)m.cpu.mode };
	*user = (struct link_context){ .id = 2, .tlb_epoch = t->epoch, .cpl = 3, .mode = (uint8_t)m.cpu.mode };
	m.cpu.cpl = 0;
	link_pages_note(&m.cpu, 0x42000, 0x42000);
	m.cpu.cpl = 3;
	link_pages_note(&m.cpu, 0x43000, 0x43000);
	tlb_flush_nonglobal(&m.cpu.tlb);
	link_pages_carry(&m.cpu);
	ck_assert_uint_eq(kernel->tlb_epoch, t->epoch);
	ck_assert_uint_eq(user->tlb_epoch, t->epoch);
	/* The CPL-3 page moves: the kernel's links go on. */
	physmem_write(&m.pm, 0x20000 + 0x43 * 8, 8, 0x44000 | PTE_A | 7);
	tlb_flush_nonglobal(&m.cpu.tlb);
	link_pages_carry(&m.cpu);
	ck_assert_uint_eq(kernel->tlb_epoch, t->epoch);
	ck_assert_uint_ne(user->tlb_epoch, t->epoch);
	/* The other way round, with a fresh CPL-3 context and note. */
	user->tlb_epoch = t->epoch;
	link_pages_note(&m.cpu, 0x43000, 0x44000);
	map_42000_to_43000(PTE_A | 7);
	tlb_flush_nonglobal(&m.cpu.tlb);
	link_pages_carry(&m.cpu);
	ck_assert_uint_ne(kernel->tlb_epoch, t->epoch);
	ck_assert_uint_eq(user->tlb_epoch, t->epoch);
}
END_TEST

static Suite *block_links_suite(void)
{
	Suite *s = suite_create("block_links");
	TCase *tc = tcase_create("block_links");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, failed_decode_behind_link);
	tcase_add_test(tc, same_slot_page_crossers_64);
	tcase_add_loop_test(tc, self_modified_page_crosser_real, 0, 2);
	tcase_add_loop_test(tc, self_modified_page_crosser_64, 0, 2);
	tcase_add_test(tc, page_crosser_in_a_loop);
	tcase_add_test(tc, block_past_another_cs_limit);
	tcase_add_test(tc, invlpg_of_code_page_voids_links);
	tcase_add_test(tc, flush_keeps_links_to_unchanged_pages);
	tcase_add_test(tc, cr3_switch_keeps_links_where_walks_agree);
	tcase_add_test(tc, flush_after_accessed_flag_cleared_walks_again);
	tcase_add_test(tc, link_pages_carried_per_bank);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(block_links_suite());
}
