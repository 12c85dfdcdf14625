/* DR0-DR7 breakpoints (SDM Vol.3 17.2.4 DR7 fields, 17.2.5 breakpoint
 * alignment, 17.3.1.1 instruction breakpoints are faults and RF suppresses
 * one, 17.3.1.2 data breakpoints are traps; 6.9 Table 6-2). */
#include "lib/guest.h"

static volatile uint32_t hits, hit_eip, hit_dr6, set_rf;
static volatile uint32_t watched[4] __attribute__((aligned(16)));

static int db_handler(struct trap_frame *f)
{
	uint32_t dr6;
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	hits++;
	hit_eip = f->eip;
	hit_dr6 = dr6;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));
	/* SDM Vol.3 17.3.1.1: the handler sets RF so that the instruction
	 * breakpoint does not fire again when the instruction restarts. */
	if (set_rf)
		f->eflags |= 0x10000;
	return 1;
}

static void set_dr7(uint32_t v) { __asm__ volatile("mov %0, %%dr7" :: "r"(v)); }
static void set_dr(int n, uint32_t a)
{
	switch (n) {
	case 0: __asm__ volatile("mov %0, %%dr0" :: "r"(a)); break;
	case 1: __asm__ volatile("mov %0, %%dr1" :: "r"(a)); break;
	case 2: __asm__ volatile("mov %0, %%dr2" :: "r"(a)); break;
	default: __asm__ volatile("mov %0, %%dr3" :: "r"(a)); break;
	}
}
/* DR7 for breakpoint n: Ln, R/Wn, LENn, plus LE/GE (bits 8, 9) as the SDM
 * recommends for data breakpoints. */
static uint32_t dr7_bp(int n, uint32_t rw, uint32_t len)
{
	return 0x300u | 1u << (2 * n) | rw << (16 + 4 * n) | len << (18 + 4 * n);
}

extern char icebp_next[], ib_at[], ib_next[], w_next[], r_next[];

static void reset(void) { hits = 0; hit_eip = 0; hit_dr6 = 0; set_rf = 0; }

void guest_main(void)
{
	trap_handlers[1] = db_handler;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));

	/* Instruction breakpoint: a fault at the instruction, before it runs. */
	reset();
	set_rf = 1;
	set_dr(0, (uint32_t)(uintptr_t)ib_at);
	set_dr7(dr7_bp(0, 0, 0));
	uint32_t eax = 0;
	__asm__ volatile(".globl ib_at\nib_at:\tincl %0\n.globl ib_next\nib_next:\tnop"
			 : "+r"(eax));
	set_dr7(0);
	check("instruction breakpoint: one #DB", hits, 1);
	check("  fault: EIP = the breakpoint address", hit_eip, (uint32_t)(uintptr_t)ib_at);
	check("  DR6.B0", hit_dr6 & 0xf, 1);
	check("  RF=1 let the instruction run once", eax, 1);

	/* Data write breakpoint, LEN 4 (R/W=01): a trap after the write. */
	reset();
	set_dr(1, (uint32_t)(uintptr_t)&watched[1]);
	set_dr7(dr7_bp(1, 1, 3));
	__asm__ volatile("movl $5, %0\n.globl w_next\nw_next:\tnop" : "=m"(watched[1]));
	uint32_t v;
	__asm__ volatile("movl %1, %0" : "=r"(v) : "m"(watched[1]));
	set_dr7(0);
	check("write breakpoint: one #DB (the read does not hit)", hits, 1);
	check("  trap: EIP = the next instruction", hit_eip, (uint32_t)(uintptr_t)w_next);
	check("  the write completed", watched[1], 5);
	check("  DR6.B1", hit_dr6 & 0xf, 2);

	/* Read/write breakpoint (R/W=11) sees reads. */
	reset();
	set_dr(2, (uint32_t)(uintptr_t)&watched[2]);
	set_dr7(dr7_bp(2, 3, 3));
	__asm__ volatile("movl %1, %0\n.globl r_next\nr_next:\tnop" : "=r"(v) : "m"(watched[2]));
	set_dr7(0);
	check("read/write breakpoint on a read", hits, 1);
	check("  trap EIP", hit_eip, (uint32_t)(uintptr_t)r_next);
	check("  DR6.B2", hit_dr6 & 0xf, 4);

	/* LEN 2 covers its aligned word: any byte of it hits, neighbours do not
	 * (SDM 17.2.5; unaligned breakpoint addresses give undefined results). */
	reset();
	volatile uint8_t *bytes = (volatile uint8_t *)&watched[3];
	set_dr(3, (uint32_t)(uintptr_t)&bytes[2]);
	set_dr7(dr7_bp(3, 1, 1));
	bytes[3] = 1;
	uint32_t after_first = hits;
	bytes[1] = 1;
	bytes[0] = 1;
	set_dr7(0);
	check("LEN 2 at addr: a byte write to addr+1 hits", after_first, 1);
	check("  byte writes to addr-1 and addr-2 do not", hits, 1);

	/* Disabled breakpoint (L/G clear): nothing. */
	reset();
	set_dr(0, (uint32_t)(uintptr_t)&watched[0]);
	set_dr7(0x300u | 1u << 16 | 3u << 18);
	watched[0] = 7;
	set_dr7(0);
	check("breakpoint with L0=G0=0 never fires", hits, 0);

	/* A read breakpoint on the word MOV SS loads: its #DB is held by the
	 * shadow (SDM Vol.3 6.8.3). ICEBP next raises its own #DB, which carries
	 * the held hit (one #DB, DR6.B0, at the instruction after ICEBP); INT 1 in
	 * its place is a software interrupt, and the held #DB follows it. */
	uint16_t ss;
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	*(volatile uint16_t *)&watched[0] = ss;
	set_dr(0, (uint32_t)(uintptr_t)&watched[0]);
	if (!skip_quirk("MOV SS watchpoint + ICEBP", "QEMU 7.2 TCG raises #UD for ICEBP here")) {
		set_dr7(dr7_bp(0, 3, 1));
		reset();
		__asm__ volatile("mov %0, %%ss\n\t.byte 0xf1\n.globl icebp_next\nicebp_next:"
				 :: "m"(watched[0]) : "memory");
		set_dr7(0);
		check("MOV SS watchpoint + ICEBP: one #DB", hits, 1);
		check("  after the ICEBP", hit_eip, (uint32_t)(uintptr_t)icebp_next);
		check("  DR6.B0 with it", hit_dr6 & 0xf, 1);
	}
	set_dr7(dr7_bp(0, 3, 1));
	reset();
	__asm__ volatile("mov %0, %%ss\n\tint $1" :: "m"(watched[0]) : "memory");
	set_dr7(0);
	check("MOV SS watchpoint + INT 1: the interrupt, and the held #DB", hits, 2);

	trap_handlers[1] = 0;
}
