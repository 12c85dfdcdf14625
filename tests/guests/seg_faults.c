/* Segment-register loads and segment-limit/type checks with their exact
 * fault and error code. SDM Vol.3 5.4-5.6 (selector/descriptor/privilege
 * checks), 6.13 (error code = selector with EXT/IDT/TI, RPL bits cleared),
 * 6.15 (#NP, #SS, #GP), Vol.2 "MOV—Move to/from segment registers"
 * Protected Mode Exceptions, LAR/LSL/VERR/VERW/ARPL. */
#include "lib/guest.h"

#define ZF 0x40
#define BASE 0x200000u

static void set_gdt(int i, uint64_t d) { gdt[i] = d; }

/* ---- loads ---- */
static void ld_ds(void *sel)
{
	__asm__ volatile(MARK "mov %0, %%ds\n\tmov %%ss, %0\n\tmov %0, %%ds" : "+r"(sel));
}
static void ld_ss(void *sel)
{
	__asm__ volatile("mov %%ss, %%dx\n\t" MARK "mov %0, %%ss\n\tmov %%dx, %%ss" :: "r"(sel) : "edx");
}
static void ld_es(void *sel)
{
	__asm__ volatile(MARK "mov %0, %%es\n\tmov %%ss, %0\n\tmov %0, %%es" : "+r"(sel));
}

/* Read/write ES:offset with a given selector loaded into ES first. */
struct acc { uint32_t sel, off, width, write; };
static void es_access(void *p)
{
	struct acc *a = p;
	__asm__ volatile("mov %0, %%es" :: "r"(a->sel));
	if (a->write)
		__asm__ volatile(MARK "movl %%eax, %%es:(%0)" :: "r"(a->off), "a"(0x5a5a5a5a) : "memory");
	else if (a->width == 4)
		__asm__ volatile(MARK "movl %%es:(%0), %%eax" :: "r"(a->off) : "eax");
	else
		__asm__ volatile(MARK "movb %%es:(%0), %%al" :: "r"(a->off) : "eax");
	__asm__ volatile("mov %%ss, %%ax\n\tmov %%ax, %%es" ::: "eax");
}
static void cs_write(void *p)
{
	(void)p;
	static uint32_t victim;
	__asm__ volatile(MARK "movl %%eax, %%cs:(%0)" :: "r"(&victim), "a"(1) : "memory");
}
static void ljmp_sel(void *sel)
{
	struct __attribute__((packed)) { uint32_t off; uint16_t sel; } p = { 0, (uint16_t)(uintptr_t)sel };
	__asm__ volatile(MARK "ljmp *%0" :: "m"(p));
}

static void test_selector_loads(void)
{
	/* SDM 5.4.1: a null selector may be loaded into DS..GS, not SS. */
	expect_no_fault("mov null -> DS allowed", ld_ds, (void *)0);
	struct acc a = { 0, 0x1000, 4, 0 };
	trap_reset();
	int v = trap_catch(es_access, &a);
	check_quirk("access through null ES -> #GP", (uint32_t)v, 13, "TCG does not check null data segments on access");
	check_quirk("  error code 0", v == 13 ? trap_last.error : 0, 0, "TCG does not check null data segments on access");
	expect_fault("mov null -> SS -> #GP(0)", ld_ss, (void *)0, 13, 0);
	/* SDM MOV: index outside the table limit -> #GP(selector). */
	expect_fault("mov 0x80 (beyond GDT limit 0x7f) -> DS -> #GP(0x80)", ld_ds, (void *)0x80, 13, 0x80);
	expect_fault("mov 0x83 (RPL ignored in code) -> #GP(0x80)", ld_ds, (void *)0x83, 13, 0x80);
	expect_fault("mov 0x0c (LDT, LDTR null) -> DS -> #GP(0x0c)", ld_ds, (void *)0x0c, 13, 0x0c);
	/* Type checks: system descriptor / execute-only code are not data. */
	expect_fault("mov TSS selector -> DS -> #GP(0x28)", ld_ds, (void *)SEL_TSS, 13, SEL_TSS);
	set_gdt(8, seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_CODE, FL_G | FL_DB));             /* exec-only */
	expect_fault("mov exec-only code -> DS -> #GP(0x40)", ld_ds, (void *)0x40, 13, 0x40);
	expect_no_fault("mov readable code -> DS allowed", ld_ds, (void *)SEL_KCODE);
	/* SS must be a writable data segment with RPL = DPL = CPL. */
	expect_fault("mov readable code -> SS -> #GP(0x08)", ld_ss, (void *)SEL_KCODE, 13, 0x08);
	set_gdt(9, seg_desc(BASE, 0xfff, ACC_P | ACC_S | ACC_DATA_R, 0));                     /* read-only */
	expect_fault("mov read-only data -> SS -> #GP(0x48)", ld_ss, (void *)0x48, 13, 0x48);
	expect_fault("mov DPL3 data (RPL3) -> SS at CPL0 -> #GP(0x20)", ld_ss, (void *)SEL_UDATA, 13, 0x20);
	expect_fault("mov KDATA|RPL3 -> SS at CPL0 -> #GP(0x10)", ld_ss, (void *)0x13, 13, 0x10);
	/* SDM 5.4.1.1 / 6.15: not-present -> #NP(sel), but #SS(sel) for SS. */
	set_gdt(10, seg_desc(0, 0xfffff, ACC_S | ACC_DATA_W, FL_G | FL_DB));                  /* P=0 */
	expect_fault("mov not-present data -> DS -> #NP(0x50)", ld_ds, (void *)0x50, 11, 0x50);
	expect_fault("mov not-present data -> SS -> #SS(0x50)", ld_ss, (void *)0x50, 12, 0x50);
	expect_fault("mov not-present data -> ES -> #NP(0x50)", ld_es, (void *)0x50, 11, 0x50);
	/* Type check comes before the present check (SDM MOV pseudocode order). */
	set_gdt(11, seg_desc(0, 0xfffff, ACC_S | ACC_CODE, FL_G | FL_DB));                   /* P=0 exec-only */
	expect_fault("mov not-present exec-only -> DS -> #GP(0x58) first", ld_ds, (void *)0x58, 13, 0x58);
	/* Far JMP: CS must be code (#GP) and present (#NP). */
	expect_fault("ljmp to data selector -> #GP(0x10)", ljmp_sel, (void *)SEL_KDATA, 13, 0x10);
	set_gdt(12, seg_desc(0, 0xfffff, ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_DB));      /* P=0 code */
	expect_fault("ljmp to not-present code -> #NP(0x60)", ljmp_sel, (void *)0x60, 11, 0x60);
	expect_fault("ljmp to null selector -> #GP(0)", ljmp_sel, (void *)0, 13, 0);
}

static void test_limits(void)
{
	const char *q = "TCG does not check data segment limits/types";
	struct acc a;
	int v;
	/* SDM 5.3 / 6.15 #GP: access beyond the limit -> #GP(0) (non-stack). */
	set_gdt(8, seg_desc(BASE, 0xfff, ACC_P | ACC_S | ACC_DATA_W, 0));                     /* byte limit 0xfff */
	a = (struct acc){ 0x40, 0xffc, 4, 0 };
	expect_no_fault("dword at limit-3 ok", es_access, &a);
	a.off = 0xffd;
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("dword crossing byte limit 0xfff -> #GP", (uint32_t)v, 13, q);
	check_quirk("  error code 0", v == 13 ? trap_last.error : 0, 0, q);
	a = (struct acc){ 0x40, 0x1000, 1, 0 };
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("byte at limit+1 -> #GP(0)", (uint32_t)v, 13, q);
	/* G=1: limit 0 scales to 0xfff (SDM 3.4.5 G flag). */
	set_gdt(9, seg_desc(BASE, 0, ACC_P | ACC_S | ACC_DATA_W, FL_G));
	a = (struct acc){ 0x48, 0xfff, 1, 0 };
	expect_no_fault("G=1 limit 0: byte at 0xfff ok", es_access, &a);
	a.off = 0x1000;
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("G=1 limit 0: byte at 0x1000 -> #GP", (uint32_t)v, 13, q);
	/* Expand-down (SDM 3.4.5.1): valid offsets limit+1 .. 0xffffffff (B=1) or 0xffff (B=0). */
	set_gdt(10, seg_desc(0, 0xfff, ACC_P | ACC_S | ACC_DATA_W | ACC_DATA_ED, FL_DB));
	a = (struct acc){ 0x50, 0x1000, 4, 0 };
	expect_no_fault("expand-down B=1: offset limit+1 ok", es_access, &a);
	a.off = 0x800;
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("expand-down B=1: offset below limit -> #GP", (uint32_t)v, 13, q);
	set_gdt(11, seg_desc(0, 0xfff, ACC_P | ACC_S | ACC_DATA_W | ACC_DATA_ED, 0));
	a = (struct acc){ 0x58, 0xfffc, 4, 0 };
	expect_no_fault("expand-down B=0: dword at 0xfffc ok", es_access, &a);
	a.off = 0xfffe;
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("expand-down B=0: dword crossing 0xffff -> #GP", (uint32_t)v, 13, q);
	/* Writes to read-only data or through CS -> #GP(0) (SDM 5.5 / Vol.2 MOV). */
	set_gdt(12, seg_desc(BASE, 0xfff, ACC_P | ACC_S | ACC_DATA_R, 0));
	a = (struct acc){ 0x60, 0x10, 4, 0 };
	expect_no_fault("read from read-only data ok", es_access, &a);
	a.write = 1;
	trap_reset(); v = trap_catch(es_access, &a);
	check_quirk("write to read-only data -> #GP", (uint32_t)v, 13, q);
	trap_reset(); v = trap_catch(cs_write, 0);
	check_quirk("write through CS override -> #GP", (uint32_t)v, 13, q);
}

/* ---- CPL3 ---- */
static void u_ld_ds(void *sel)
{
	__asm__ volatile(MARK "mov %0, %%ds\n\tmov $0x23, %0\n\tmov %0, %%ds" : "+r"(sel));
}
static void u_push_ss(void *p)
{
	uint32_t *sp = p;   /* sp[0] = SS selector, sp[1] = ESP */
	__asm__ volatile("mov %%esp, %%ebx\n\tmov %%ss, %%ecx\n\t"
			 "mov %0, %%ss\n\tmov %1, %%esp\n\t"
			 MARK "pushl $0\n\t"
			 "mov %%ecx, %%ss\n\tmov %%ebx, %%esp" :: "r"(sp[0]), "r"(sp[1]) : "ebx", "ecx", "memory");
}

uint32_t lar_val, lar_fl;
static void u_lar(void *sel)
{
	__asm__ volatile("xor %0, %0\n\tlarl %2, %0\n\tpushfl\n\tpopl %1" : "=&r"(lar_val), "=r"(lar_fl) : "r"(sel) : "cc");
}
static void u_verr(void *sel)
{
	__asm__ volatile("verr %w1\n\tpushfl\n\tpopl %0" : "=r"(lar_fl) : "r"(sel) : "cc");
}

static void test_cpl3(void)
{
	/* SDM 5.6: data load needs max(CPL, RPL) <= DPL. */
	run_user_catch("CPL3 mov KDATA(DPL0) -> DS -> #GP(0x10)", u_ld_ds, (void *)SEL_KDATA, 0, 13, 0x10);
	run_user_catch("CPL3 mov 0x13 (RPL3, DPL0) -> DS -> #GP(0x10)", u_ld_ds, (void *)0x13, 0, 13, 0x10);
	set_gdt(8, seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R | ACC_CODE_C, FL_G | FL_DB));
	run_user_catch("CPL3 mov conforming readable code(DPL0) -> DS ok", u_ld_ds, (void *)0x43, 0, NO_FAULT, -1);
	set_gdt(9, seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_DB));
	run_user_catch("CPL3 mov DPL3 readable code -> DS ok", u_ld_ds, (void *)0x4b, 0, NO_FAULT, -1);
	/* Stack limit -> #SS(0) (SDM 6.15 Interrupt 12); raised at CPL3 so the
	 * handler runs on the TSS ring-0 stack. */
	set_gdt(10, seg_desc(0x300000, 0xfff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_DB));
	uint32_t ok_push[2] = { 0x53, 0x800 };
	run_user_catch("CPL3 push inside SS limit ok", u_push_ss, ok_push, 0, NO_FAULT, -1);
	uint32_t bad_push[2] = { 0x53, 0x2000 };
	trap_reset();
	int v = run_user(u_push_ss, bad_push, 0);
	check_quirk("CPL3 push beyond SS limit -> #SS", (uint32_t)v, 12, "TCG does not check stack segment limits");
	check_quirk("  error code 0", v == 12 ? trap_last.error : 0, 0, "TCG does not check stack segment limits");
	set_gdt(11, seg_desc(0x300000, 0xfff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W | ACC_DATA_ED, FL_DB));
	uint32_t ed_ok[2] = { 0x5b, 0x2000 };
	run_user_catch("CPL3 push in expand-down SS above limit ok", u_push_ss, ed_ok, 0, NO_FAULT, -1);
	uint32_t ed_bad[2] = { 0x5b, 0x1002 };
	trap_reset();
	v = run_user(u_push_ss, ed_bad, 0);
	check_quirk("CPL3 push into expand-down SS at/below limit -> #SS", (uint32_t)v, 12, "TCG does not check stack segment limits");
	/* LAR/VERR privilege: DPL < max(CPL,RPL) -> ZF=0, except conforming code. */
	run_user(u_lar, (void *)SEL_KDATA, 0);
	check("CPL3 LAR of DPL0 data: ZF=0", lar_fl & ZF, 0);
	run_user(u_lar, (void *)SEL_UDATA, 0);
	check("CPL3 LAR of DPL3 data: ZF=1", lar_fl & ZF, ZF);
	run_user(u_verr, (void *)SEL_KCODE, 0);
	check("CPL3 VERR of DPL0 code: ZF=0", lar_fl & ZF, 0);
	run_user(u_verr, (void *)0x43, 0);
	check("CPL3 VERR of conforming readable DPL0 code: ZF=1", lar_fl & ZF, ZF);
}

static void test_lar_lsl(void)
{
	uint32_t v, f;
#define LAR(sel) __asm__ volatile("movl $0xdeadbeef, %0\n\tlarl %2, %0\n\tpushfl\n\tpopl %1" : "=&r"(v), "=r"(f) : "r"((uint32_t)(sel)) : "cc")
#define LSL(sel) __asm__ volatile("movl $0xdeadbeef, %0\n\tlsll %2, %0\n\tpushfl\n\tpopl %1" : "=&r"(v), "=r"(f) : "r"((uint32_t)(sel)) : "cc")
#define VER(insn, sel) __asm__ volatile(insn " %w1\n\tpushfl\n\tpopl %0" : "=r"(f) : "r"((uint32_t)(sel)) : "cc")
	/* SDM LAR: dest = dword2 & 00FxFF00H; bits 19:16 undefined -> masked out. */
	LAR(SEL_KCODE);
	check("LAR KCODE ZF", f & ZF, ZF);
	check("LAR KCODE access rights", v & 0x00f0ff00, 0x00c09b00);
	LAR(SEL_TSS);
	check("LAR busy TSS (type B valid)", (f & ZF) ? (v & 0x00f0ff00) : 0xffffffff, 0x00008b00);
	LAR(0);
	check("LAR null: ZF=0", f & ZF, 0);
	check("LAR null: dest unchanged", v, 0xdeadbeef);
	LAR(0x80);
	check("LAR beyond GDT limit: ZF=0", f & ZF, 0);
	set_gdt(13, gate_desc(SEL_KCODE, 0x1234, SYS_INTGATE, 0, 0));
	LAR(0x68);
	check("LAR interrupt gate (invalid type): ZF=0", f & ZF, 0);
	set_gdt(14, gate_desc(SEL_KCODE, 0x1234, SYS_CALLGATE, 0, 0));
	LAR(0x70);
	check("LAR call gate valid: ZF=1", f & ZF, ZF);
	/* SDM LSL: byte-granular limit, or (limit << 12) | FFFH when G=1. */
	LSL(SEL_KDATA);
	check("LSL flat G=1", v, 0xffffffff);
	set_gdt(15, seg_desc(BASE, 0x1234, ACC_P | ACC_S | ACC_DATA_W, 0));
	LSL(0x78);
	check("LSL byte limit 0x1234", v, 0x1234);
	set_gdt(15, seg_desc(BASE, 0x12, ACC_P | ACC_S | ACC_DATA_W, FL_G));
	LSL(0x78);
	check("LSL G=1 limit 0x12", v, 0x12fff);
	LSL(0x70);
	check("LSL call gate: ZF=0", f & ZF, 0);
	LSL(SEL_TSS);
	check("LSL TSS", v, sizeof(tss) - 1);
	/* SDM VERR/VERW */
	VER("verr", SEL_KCODE);
	check("VERR readable code: ZF=1", f & ZF, ZF);
	set_gdt(15, seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_CODE, FL_G | FL_DB));
	VER("verr", 0x78);
	check("VERR exec-only code: ZF=0", f & ZF, 0);
	VER("verw", SEL_KDATA);
	check("VERW writable data: ZF=1", f & ZF, ZF);
	set_gdt(15, seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_R, FL_G | FL_DB));
	VER("verw", 0x78);
	check("VERW read-only data: ZF=0", f & ZF, 0);
	VER("verw", SEL_KCODE);
	check("VERW code: ZF=0", f & ZF, 0);
	VER("verr", 0);
	check("VERR null: ZF=0", f & ZF, 0);
	/* SDM ARPL: raise dest RPL to src RPL; ZF=1 if changed. */
	v = 0x10;
	__asm__ volatile("arpl %w2, %w0\n\tpushfl\n\tpopl %1" : "+r"(v), "=r"(f) : "r"(3) : "cc");
	check("ARPL raises RPL 0 -> 3", v & 0xffff, 0x13);
	check("ARPL changed: ZF=1", f & ZF, ZF);
	v = 0x13;
	__asm__ volatile("arpl %w2, %w0\n\tpushfl\n\tpopl %1" : "+r"(v), "=r"(f) : "r"(1) : "cc");
	check("ARPL keeps higher RPL", v & 0xffff, 0x13);
	check("ARPL unchanged: ZF=0", f & ZF, 0);
}

static void lldt_sel(void *sel) { __asm__ volatile(MARK "lldt %w0" :: "r"(sel)); }

static void test_ldt(void)
{
	/* An LDT with two data descriptors (limit 0xf): selectors 0x04, 0x0c. */
	static uint64_t ldt[2] __attribute__((aligned(8)));
	ldt[0] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	ldt[1] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt[13] = seg_desc((uint32_t)(uintptr_t)ldt, sizeof(ldt) - 1, ACC_P | SYS_LDT, 0);
	/* SDM LLDT: the selector must name an LDT descriptor in the GDT. */
	expect_fault("LLDT of a data descriptor -> #GP(0x10)", lldt_sel, (void *)SEL_KDATA, 13, SEL_KDATA);
	expect_fault("LLDT with TI=1 selector -> #GP(0x6c)", lldt_sel, (void *)0x6c, 13, 0x6c);
	gdt[14] = gdt[13] & ~(1ull << 47);
	expect_fault("LLDT of a not-present LDT -> #NP(0x70)", lldt_sel, (void *)0x70, 11, 0x70);
	expect_no_fault("LLDT 0x68", lldt_sel, (void *)0x68);
	/* Index 0 of the LDT is a usable descriptor (only GDT index 0 is null). */
	expect_no_fault("mov 0x04 (LDT index 0) -> DS", ld_ds, (void *)0x04);
	expect_no_fault("mov 0x0f (LDT index 1, RPL3) -> DS", ld_ds, (void *)0x0f);
	expect_fault("mov 0x14 (beyond LDT limit) -> DS -> #GP(0x14)", ld_ds, (void *)0x14, 13, 0x14);
	__asm__ volatile("lldt %w0" :: "r"(0));
	expect_fault("after LLDT 0: mov 0x04 -> DS -> #GP(0x04)", ld_ds, (void *)0x04, 13, 0x04);
}

void guest_main(void)
{
	test_selector_loads();
	test_ldt();
	test_limits();
	test_cpl3();
	test_lar_lsl();
}
