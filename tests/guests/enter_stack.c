/* ENTER across operand size x stack-address size x nesting level, and its
 * faults (SDM Vol.2 ENTER, "Operation" and "Protected Mode Exceptions").
 *
 * The pseudo-code, for the cases below: push rBP; FrameTemp = the stack pointer
 * at the operand size (ESP is all 32 bits even on a 16-bit stack, where only SP
 * moves); for i = 1 .. L-1 push [rBP - i*size] with rBP at the stack-address
 * size; push FrameTemp if L > 0; rBP = FrameTemp (at the operand size); the
 * stack pointer drops by imm16 at the stack-address size. L = imm8 MOD 32.
 * Faults: #SS(0) when the new SP/ESP is outside the stack segment limit, #PF
 * when the final stack location cannot be written, and nothing changes when
 * ENTER faults (SDM Vol.3 6.5: faults report the state before the instruction).
 */
#include "lib/guest.h"
#include "lib/paging.h"

/* Inputs and outputs of one ENTER, shared with the inline assembly. */
uint32_t en_in_esp, en_in_ebp, en_out_esp, en_out_ebp, en_saved_esp, en_saved_ebp;
uint32_t en_fault_ebp;
uint16_t en_in_ss, en_saved_ss;

/* Runs one ENTER (given as bytes, so the operand size is explicit) on
 * en_in_ss:en_in_esp with EBP = en_in_ebp; en_out_* receive ESP and EBP. The
 * ENTER is MARKed for the fault checks. */
#define ENTER_RUN(bytes) __asm__ volatile(                                         \
	"mov %%esp, en_saved_esp\n\tmov %%ebp, en_saved_ebp\n\t"                  \
	"movw %%ss, en_saved_ss\n\t"                                              \
	"movw en_in_ss, %%ss\n\tmov en_in_esp, %%esp\n\tmov en_in_ebp, %%ebp\n\t" \
	MARK ".byte " bytes "\n\t"                                                \
	"mov %%esp, en_out_esp\n\tmov %%ebp, en_out_ebp\n\t"                      \
	"movw en_saved_ss, %%ss\n\tmov en_saved_esp, %%esp\n\tmov en_saved_ebp, %%ebp" \
	::: "memory")

/* 0x11000 bytes addressed by the CPL 0 stack segments (base = area). */
static uint8_t area[0x11000] __attribute__((aligned(4096)));
/* The CPL 3 fault cases' stack segments (base = ubuf). */
static uint8_t ubuf[0x3000] __attribute__((aligned(4096)));

#define SEL_SS16  0x40          /* base area, limit 0xffff, B = 0 */
#define SEL_SS32  0x48          /* base area, limit 0x10fff, B = 1 */
#define SEL_US16  (0x50 | 3)    /* DPL 3, base ubuf, limit 0xfff, B = 0 */
#define SEL_USED  (0x58 | 3)    /* DPL 3, expand-down, base ubuf, limit 0xfff, B = 0 */
#define SEL_US32  (0x60 | 3)    /* DPL 3, base ubuf, limit 0x1fff, B = 1 */

static uint32_t a32(uint32_t o) { return rd32(area, o); }
static uint32_t a16(uint32_t o) { return rd16(area, o); }
static void set32(uint32_t o, uint32_t v) { wr32(area, o, v); }
static void set16(uint32_t o, uint16_t v) { gmemcpy(area + o, &v, 2); }

static void setup(uint16_t ss, uint32_t esp, uint32_t ebp)
{
	gmemset(area, 0x77, sizeof(area));
	en_in_ss = ss;
	en_in_esp = esp;
	en_in_ebp = ebp;
}

#define QEMU_FRAMETEMP "FrameTemp is ESP - 4 without the 16-bit wrap of SP (0xFFFC, not 0x1FFFC)"
#define QEMU_NO_FINAL_CHECK "ENTER does not check the final stack location"
#define QEMU_NO_LIMITS "data accesses are not checked against segment limits"

/* o32 ENTER 8,36 on a 16-bit stack: L = 4; BP (not EBP) walks the enclosing
 * frames; FrameTemp = ESP = 0x0001FFFC (the upper half of ESP stays). */
static void o32_on_16bit_stack(void)
{
	setup(SEL_SS16, 0x00010000, 0x0001f000);
	set32(0xeffc, 0x11111111);
	set32(0xeff8, 0x22222222);
	set32(0xeff4, 0x33333333);
	ENTER_RUN("0xc8, 8, 0, 36");
	check_quirk("o32 ENTER 8,36, 16-bit stack: EBP = FrameTemp = whole ESP", en_out_ebp, 0x0001fffc,
		    QEMU_FRAMETEMP);
	check("  ESP = 0x0001FFE4 (SP moved, upper half kept)", en_out_esp, 0x0001ffe4);
	check("  [FFFC] = old EBP", a32(0xfffc), 0x0001f000);
	check("  [FFF8] = [BP-4]", a32(0xfff8), 0x11111111);
	check("  [FFF4] = [BP-8]", a32(0xfff4), 0x22222222);
	check("  [FFF0] = [BP-12]", a32(0xfff0), 0x33333333);
	check_quirk("  [FFEC] = FrameTemp (32 bits)", a32(0xffec), 0x0001fffc, QEMU_FRAMETEMP);
	check("  allocated bytes untouched", a32(0xffe8), 0x77777777);
}

/* o16 ENTER 8,3 on a 32-bit stack: EBP (not BP) walks the enclosing frames,
 * FrameTemp = SP, and only BP is written. */
static void o16_on_32bit_stack(void)
{
	setup(SEL_SS32, 0x00010000, 0x00010800);
	set16(0x107fe, 0x1111);
	set16(0x107fc, 0x2222);
	set16(0x07fe, 0xdead);       /* where BP - 2 would point */
	set16(0x07fc, 0xbeef);
	ENTER_RUN("0x66, 0xc8, 8, 0, 3");
	check("o16 ENTER 8,3, 32-bit stack: BP = SP, EBP[31:16] kept", en_out_ebp, 0x0001fffe);
	check("  ESP = 0xFFF0", en_out_esp, 0x0000fff0);
	check("  [FFFE] = old BP", a16(0xfffe), 0x0800);
	check("  [FFFC] = [EBP-2]", a16(0xfffc), 0x1111);
	check("  [FFFA] = [EBP-4]", a16(0xfffa), 0x2222);
	check("  [FFF8] = FrameTemp (SP)", a16(0xfff8), 0xfffe);
}

static void level0_and_masking(void)
{
	setup(SEL_SS32, 0x00010000, 0xcafebabe);
	ENTER_RUN("0xc8, 5, 0, 0");
	check("o32 ENTER 5,0: EBP = ESP after the push", en_out_ebp, 0x0000fffc);
	check("  ESP = 0xFFF7", en_out_esp, 0x0000fff7);
	check("  [FFFC] = old EBP", a32(0xfffc), 0xcafebabe);
	check("  nothing else pushed", a32(0xfff8), 0x77777777);

	setup(SEL_SS32, 0x00010000, 0x00002000);
	ENTER_RUN("0xc8, 0, 0, 33");
	check("o32 ENTER 0,33 is level 1 (imm8 MOD 32): EBP", en_out_ebp, 0x0000fffc);
	check("  ESP = 0xFFF8", en_out_esp, 0x0000fff8);
	check("  [FFFC] = old EBP", a32(0xfffc), 0x00002000);
	check("  [FFF8] = FrameTemp", a32(0xfff8), 0x0000fffc);

	setup(SEL_SS32, 0x00010000, 0x00003000);
	ENTER_RUN("0xc8, 4, 0, 32");
	check("o32 ENTER 4,32 is level 0: ESP = 0xFFF8", en_out_esp, 0x0000fff8);
	check("  EBP = 0xFFFC", en_out_ebp, 0x0000fffc);
	check("  no FrameTemp pushed", a32(0xfff8), 0x77777777);
}

/* o16 on a 16-bit stack: only SP and BP change; the pushes wrap at 64 KiB. */
static void o16_on_16bit_stack(void)
{
	setup(SEL_SS16, 0xabcd0000, 0x56784321);
	ENTER_RUN("0x66, 0xc8, 6, 0, 1");
	check("o16 ENTER 6,1, 16-bit stack: EBP[31:16] kept, BP = SP", en_out_ebp, 0x5678fffe);
	check("  ESP[31:16] kept, SP = 0xFFF6", en_out_esp, 0xabcdfff6);
	check("  [FFFE] = old BP", a16(0xfffe), 0x4321);
	check("  [FFFC] = FrameTemp", a16(0xfffc), 0xfffe);

	setup(SEL_SS16, 0x00050002, 0x9999aaaa);
	ENTER_RUN("0x66, 0xc8, 0, 0, 1");
	check("o16 ENTER 0,1 at SP = 2: BP = 0", en_out_ebp, 0x99990000);
	check("  SP wraps to 0xFFFE", en_out_esp, 0x0005fffe);
	check("  [0000] = old BP", a16(0x0000), 0xaaaa);
	check("  [FFFE] = FrameTemp 0", a16(0xfffe), 0x0000);
}

/* --- faults at CPL 3: nothing may change --- */

static int record_ebp(struct trap_frame *f)
{
	en_fault_ebp = f->ebp;
	return 0;                /* then unwind as usual */
}

static void user_enter_1_0(void *arg) { (void)arg; ENTER_RUN("0xc8, 1, 0, 0"); }
static void user_enterw_8_0(void *arg) { (void)arg; ENTER_RUN("0x66, 0xc8, 8, 0, 0"); }
static void user_enterw_4_0(void *arg) { (void)arg; ENTER_RUN("0x66, 0xc8, 4, 0, 0"); }
static void user_enter_0_3(void *arg) { (void)arg; ENTER_RUN("0xc8, 0, 0, 3"); }

/* After a fault at CPL 3 the frame holds the user ESP; EBP was recorded. */
static void unchanged(const char *what, uint32_t esp, uint32_t ebp, uint32_t mem_got,
		      uint32_t mem_want, const char *why)
{
	char name[96];
	check_quirk(pg_name(name, sizeof(name), "  %s: ESP unchanged", what), trap_last.esp, esp, why);
	check_quirk(pg_name(name, sizeof(name), "  %s: EBP unchanged", what), en_fault_ebp, ebp, why);
	check_quirk(pg_name(name, sizeof(name), "  %s: nothing pushed", what), mem_got, mem_want, why);
}

static void page_fault(void)
{
	uint32_t cr3 = pg32_build();
	/* TEST_LIN: a supervisor page below a user page. */
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W;
	pg32_test_pt[1] = frame_pa(1) | PG_P | PG_W | PG_U;
	paging_on(cr3, 0);
	wr32(pg_frames[1], 0, 0x12345678);

	en_in_ss = SEL_UDATA;
	en_in_esp = TEST_LIN + 0x1004;
	en_in_ebp = 0x5eb05eb0;
	en_fault_ebp = 0;
	trap_handlers[14] = record_ebp;
	int v = pf_check_quirk("CPL3 ENTER 1,0 with the final ESP on a supervisor page: #PF(P|W|U)",
			       user_enter_1_0, 0, 3, PF_P | PF_W | PF_U, TEST_LIN + 0xfff, 0,
			       QEMU_NO_FINAL_CHECK);
	trap_handlers[14] = 0;
	if (v == 14)
		unchanged("#PF", TEST_LIN + 0x1004, 0x5eb05eb0, rd32(pg_frames[1], 0), 0x12345678, 0);

	/* The same on a user page: no fault. */
	pg32_test_pt[0] |= PG_U;
	invlpg(TEST_LIN);
	v = run_user(user_enter_1_0, 0, 0);
	check("CPL3 ENTER 1,0 with both pages user: no fault", (uint32_t)v, (uint32_t)NO_FAULT);
	check("  EBP = ESP after the push", en_out_ebp, TEST_LIN + 0x1000);
	check("  ESP = EBP - 1", en_out_esp, TEST_LIN + 0xfff);
	check("  [EBP] = old EBP", rd32(pg_frames[1], 0), 0x5eb05eb0);
	paging_off();
}

/* One #SS(0) case at CPL 3 on en_in_ss: the fault at the ENTER, with ESP, EBP
 * and the rBP slot (size bytes at ubuf + slot) as they were. */
static void ss_case(const char *name, trap_fn fn, uint32_t esp, uint32_t ebp, uint32_t slot,
		    unsigned size)
{
	gmemset(ubuf, 0x66, sizeof(ubuf));
	en_in_esp = esp;
	en_in_ebp = ebp;
	en_fault_ebp = 0;
	trap_reset();
	int v = run_user(fn, 0, 0);
	check_quirk(name, (uint32_t)v, 12, QEMU_NO_LIMITS);
	if (v != 12)
		return;
	check("  error code 0", trap_last.error, 0);
	check("  EIP = the ENTER", trap_last.eip, trap_mark_ip);
	uint32_t got = size == 2 ? rd16(ubuf, slot) : rd32(ubuf, slot);
	unchanged("#SS", esp, ebp, got, size == 2 ? 0x6666 : 0x66666666, 0);
}

static void stack_faults(void)
{
	uint32_t base = (uint32_t)(uintptr_t)ubuf;
	gdt[10] = seg_desc(base, 0xfff, ACC_P | ACC_S | ACC_DPL(3) | ACC_DATA_W, 0);
	gdt[11] = seg_desc(base, 0xfff, ACC_P | ACC_S | ACC_DPL(3) | ACC_DATA_W | ACC_DATA_ED, 0);
	gdt[12] = seg_desc(base, 0x1fff, ACC_P | ACC_S | ACC_DPL(3) | ACC_DATA_W, FL_DB);
	trap_handlers[12] = record_ebp;

	/* 16-bit stack, limit 0xFFF: the push at 6 fits, the new SP wraps to 0xFFFE. */
	en_in_ss = SEL_US16;
	ss_case("o16 ENTER 8,0 at SP 8, limit 0xFFF: new SP 0xFFFE -> #SS(0)", user_enterw_8_0,
		0x00000008, 0x0000abcd, 6, 2);
	/* Expand-down 16-bit stack, limit 0xFFF (offsets 0x1000-0xFFFF valid). */
	en_in_ss = SEL_USED;
	ss_case("o16 ENTER 4,0 at SP 0x1004, expand-down limit 0xFFF -> #SS(0)", user_enterw_4_0,
		0x00001004, 0x0000abcd, 0x1002, 2);
	/* 32-bit stack, limit 0x1FFF: EBP would go to 0xFFC, then [EBP-4] = [0x2000]
	 * is beyond the limit: #SS(0), and the push before it did not happen. */
	en_in_ss = SEL_US32;
	ss_case("o32 ENTER 0,3 reading [EBP-4] beyond the limit -> #SS(0)", user_enter_0_3,
		0x00001000, 0x00002004, 0xffc, 4);
	trap_handlers[12] = 0;
}

void guest_main(void)
{
	gdt[8] = seg_desc((uint32_t)(uintptr_t)area, 0xffff, ACC_P | ACC_S | ACC_DATA_W, 0);
	gdt[9] = seg_desc((uint32_t)(uintptr_t)area, 0x10fff, ACC_P | ACC_S | ACC_DATA_W, FL_DB);
	o32_on_16bit_stack();
	o16_on_32bit_stack();
	level0_and_masking();
	o16_on_16bit_stack();
	page_fault();
	stack_faults();
}
