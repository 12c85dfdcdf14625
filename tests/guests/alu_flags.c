/* Integer ALU semantics and the architecturally defined flags.
 * SDM Vol.1 3.4.3.1 (status flags), Appendix A (EFLAGS cross-reference);
 * per-instruction rules from SDM Vol.2 instruction pages. Flags an
 * instruction leaves undefined are masked out of every comparison. */
#include "lib/guest.h"

#define CF 0x001
#define PF 0x004
#define AF 0x010
#define ZF 0x040
#define SF 0x080
#define OF 0x800
#define ARITH (CF | PF | AF | ZF | SF | OF)
#define LOGIC (CF | PF | ZF | SF | OF)   /* AND/OR/XOR: AF undefined */

struct res { uint32_t r, f; };

/* dst = dst OP src, with EFLAGS preloaded from fin. W is the gcc operand
 * modifier for the width (b, w, k). */
#define BINOP(insn, W, a, b, fin) ({ uint32_t _r = (a), _f; \
	__asm__ volatile("pushl %[fi]; popfl; " insn " %" W "[s], %" W "[r]; pushfl; popl %[f]" \
		: [r] "+q"(_r), [f] "=&r"(_f) : [s] "q"((uint32_t)(b)), [fi] "r"((uint32_t)(fin)) : "cc"); \
	(struct res){ _r, _f }; })
#define UNOP(insn, W, a, fin) ({ uint32_t _r = (a), _f; \
	__asm__ volatile("pushl %[fi]; popfl; " insn " %" W "[r]; pushfl; popl %[f]" \
		: [r] "+q"(_r), [f] "=&r"(_f) : [fi] "r"((uint32_t)(fin)) : "cc"); \
	(struct res){ _r, _f }; })
#define SHIFTOP(insn, W, a, cnt, fin) ({ uint32_t _r = (a), _f; \
	__asm__ volatile("pushl %[fi]; popfl; " insn " %%cl, %" W "[r]; pushfl; popl %[f]" \
		: [r] "+q"(_r), [f] "=&r"(_f) : "c"((uint32_t)(cnt)), [fi] "r"((uint32_t)(fin)) : "cc"); \
	(struct res){ _r, _f }; })
#define DSHIFT(insn, W, a, b, cnt, fin) ({ uint32_t _r = (a), _f; \
	__asm__ volatile("pushl %[fi]; popfl; " insn " %%cl, %" W "[s], %" W "[r]; pushfl; popl %[f]" \
		: [r] "+r"(_r), [f] "=&r"(_f) : [s] "r"((uint32_t)(b)), "c"((uint32_t)(cnt)), [fi] "r"((uint32_t)(fin)) : "cc"); \
	(struct res){ _r, _f }; })

static void chk(const char *name, struct res got, uint32_t mask, uint32_t w, uint32_t er, uint32_t ef)
{
	uint32_t wm = w == 32 ? 0xffffffff : (1u << w) - 1;
	char buf[80];
	int n = 0;
	for (const char *p = name; *p && n < 70; p++)
		buf[n++] = *p;
	buf[n] = 0;
	check(buf, got.r & wm, er & wm);
	buf[n] = ' '; buf[n + 1] = 'f'; buf[n + 2] = 'l'; buf[n + 3] = 'a'; buf[n + 4] = 'g'; buf[n + 5] = 's'; buf[n + 6] = 0;
	check(buf, got.f & mask, ef);
}

static void test_addsub(void)
{
	/* SDM Vol.2 ADD/ADC/SUB/SBB/CMP: OF, SF, ZF, AF, CF, PF set per result. */
	chk("add32 7fffffff+1", BINOP("addl", "k", 0x7fffffff, 1, 2), ARITH, 32, 0x80000000, PF | AF | SF | OF);
	chk("add32 ffffffff+1", BINOP("addl", "k", 0xffffffff, 1, 2), ARITH, 32, 0, CF | PF | AF | ZF);
	chk("add8 80+80", BINOP("addb", "b", 0x80, 0x80, 2), ARITH, 8, 0, CF | PF | ZF | OF);
	chk("add16 1234+4321", BINOP("addw", "w", 0x1234, 0x4321, 2), ARITH, 16, 0x5555, PF);
	chk("adc32 ffffffff+0+CF", BINOP("adcl", "k", 0xffffffff, 0, 3), ARITH, 32, 0, CF | PF | AF | ZF);
	chk("adc8 7f+0+CF", BINOP("adcb", "b", 0x7f, 0, 3), ARITH, 8, 0x80, AF | SF | OF);
	chk("sub32 0-1", BINOP("subl", "k", 0, 1, 2), ARITH, 32, 0xffffffff, CF | PF | AF | SF);
	chk("sub32 80000000-1", BINOP("subl", "k", 0x80000000, 1, 2), ARITH, 32, 0x7fffffff, PF | AF | OF);
	chk("sbb16 0-0-CF", BINOP("sbbw", "w", 0, 0, 3), ARITH, 16, 0xffff, CF | PF | AF | SF);
	chk("sbb8 80-7f", BINOP("sbbb", "b", 0x80, 0x7f, 2), ARITH, 8, 0x01, AF | OF);
	chk("cmp32 5,5", BINOP("cmpl", "k", 5, 5, 2), ARITH, 32, 5, PF | ZF);
	chk("cmp8 1,2", BINOP("cmpb", "b", 1, 2, 2), ARITH, 8, 1, CF | PF | AF | SF);
	/* 8/16-bit ops must not touch the upper register bits. */
	struct res r = BINOP("addb", "b", 0xabcdef01, 0x01, 2);
	check("add8 preserves bits 31:8", r.r, 0xabcdef02);
	r = BINOP("addw", "w", 0xabcdffff, 0x0001, 2);
	check("add16 preserves bits 31:16", r.r, 0xabcd0000);
}

static void test_logic_incdec(void)
{
	/* SDM AND/OR/XOR: OF=CF=0; SF, ZF, PF per result; AF undefined. */
	chk("and32", BINOP("andl", "k", 0xf0f0f0f0, 0x0f0f0f0f, 2 | CF | OF), LOGIC, 32, 0, PF | ZF);
	chk("or16", BINOP("orw", "w", 0x8000, 0x0001, 2 | CF), LOGIC, 16, 0x8001, SF);
	chk("xor8", BINOP("xorb", "b", 0xff, 0x0f, 2), LOGIC, 8, 0xf0, PF | SF);
	/* SDM INC/DEC: CF not affected; others per result. */
	chk("inc32 7fffffff CF kept", UNOP("incl", "k", 0x7fffffff, 2 | CF), ARITH, 32, 0x80000000, CF | PF | AF | SF | OF);
	chk("inc8 ff CF clear kept", UNOP("incb", "b", 0xff, 2), ARITH, 8, 0, PF | AF | ZF);
	chk("dec16 8000", UNOP("decw", "w", 0x8000, 2 | CF), ARITH, 16, 0x7fff, CF | PF | AF | OF);
	chk("dec32 1", UNOP("decl", "k", 1, 2), ARITH, 32, 0, PF | ZF);
	/* SDM NEG: CF = 0 if the source is 0, else 1. */
	chk("neg32 0", UNOP("negl", "k", 0, 2 | CF), ARITH, 32, 0, PF | ZF);
	chk("neg8 80", UNOP("negb", "b", 0x80, 2), ARITH, 8, 0x80, CF | SF | OF);
	chk("neg16 1", UNOP("negw", "w", 1, 2), ARITH, 16, 0xffff, CF | PF | AF | SF);
	chk("not32 (no flags)", UNOP("notl", "k", 0x0f0f0f0f, 2 | ARITH), ARITH, 32, 0xf0f0f0f0, ARITH);
}

static void test_shifts(void)
{
	/* SDM SAL/SAR/SHL/SHR: count masked to 5 bits; count 0 leaves flags;
	 * OF defined only for 1-bit shifts; AF undefined. */
	chk("shl32 by 33 (masked to 1)", SHIFTOP("shll", "k", 0x80000001, 33, 2), LOGIC, 32, 2, CF | OF);
	chk("shl8 by 32 (masked to 0)", SHIFTOP("shlb", "b", 0x81, 32, 2 | ARITH), ARITH, 8, 0x81, ARITH);
	chk("shr16 8001 by 1", SHIFTOP("shrw", "w", 0x8001, 1, 2), LOGIC, 16, 0x4000, CF | PF | OF);
	chk("sar32 80000000 by 31", SHIFTOP("sarl", "k", 0x80000000, 31, 2), CF | PF | ZF | SF, 32, 0xffffffff, PF | SF);
	chk("sar8 80 by 3", SHIFTOP("sarb", "b", 0x84, 3, 2), CF | PF | ZF | SF, 8, 0xf0, CF | PF | SF);
	chk("shr8 by 9", SHIFTOP("shrb", "b", 0xff, 9, 2), ZF, 8, 0, ZF);
	/* SDM RCL/RCR/ROL/ROR: only CF and OF; OF defined for 1-bit rotates.
	 * ROL/ROR: CF updated whenever (COUNT & 1FH) != 0, even if COUNT MOD SIZE = 0. */
	chk("rol32 80000001 by 1", SHIFTOP("roll", "k", 0x80000001, 1, 2), CF | OF, 32, 3, CF | OF);
	chk("ror8 01 by 1", SHIFTOP("rorb", "b", 0x01, 1, 2), CF | OF, 8, 0x80, CF | OF);
	chk("rol8 81 by 9", SHIFTOP("rolb", "b", 0x81, 9, 2), CF, 8, 0x03, CF);
	chk("rol16 0001 by 16", SHIFTOP("rolw", "w", 0x0001, 16, 2), CF, 16, 0x0001, CF);
	chk("ror16 8000 by 16", SHIFTOP("rorw", "w", 0x8000, 16, 2), CF, 16, 0x8000, CF);
	chk("rol32 by 32 (masked 0)", SHIFTOP("roll", "k", 0x12345678, 32, 2 | CF | OF), CF | OF, 32, 0x12345678, CF | OF);
	chk("rcl8 80 by 1 CF=0", SHIFTOP("rclb", "b", 0x80, 1, 2), CF | OF, 8, 0x00, CF | OF);
	chk("rcl8 by 9 (mod 9 = 0)", SHIFTOP("rclb", "b", 0x00, 9, 2 | CF), CF, 8, 0x00, CF);
	chk("rcl8 01 by 8 CF=1", SHIFTOP("rclb", "b", 0x01, 8, 2 | CF), CF, 8, 0x80, CF);
	chk("rcr32 1 by 1 CF=1", SHIFTOP("rcrl", "k", 1, 1, 2 | CF), CF | OF, 32, 0x80000000, CF | OF);
	chk("rcr16 by 17 (mod 17 = 0)", SHIFTOP("rcrw", "w", 0x1234, 17, 2), CF, 16, 0x1234, 0);
	chk("rcl16 8000 by 2 CF=0", SHIFTOP("rclw", "w", 0x8000, 2, 2), CF, 16, 0x0001, 0);
	/* SDM SHLD/SHRD: count masked to 5 bits, CF = last bit out, OF only for 1. */
	chk("shld32 by 8", DSHIFT("shldl", "k", 0x12345678, 0x9abcdef0, 8, 2), CF | PF | ZF | SF, 32, 0x3456789a, PF);
	chk("shrd16 by 4", DSHIFT("shrdw", "w", 0x1234, 0xabcd, 4, 2), CF | PF | ZF | SF, 16, 0xd123, SF);
	chk("shrd32 by 1", DSHIFT("shrdl", "k", 0x00000001, 0x00000001, 1, 2), CF | PF | ZF | SF | OF, 32, 0x80000000, CF | PF | SF | OF);
	chk("shld32 by 32 (masked 0)", DSHIFT("shldl", "k", 0x11111111, 0xffffffff, 32, 2 | ARITH), ARITH, 32, 0x11111111, ARITH);
}

static void test_muldiv(void)
{
	uint32_t a, d, f;
	/* SDM MUL: CF=OF=1 iff the upper half of the product is nonzero. */
	__asm__ volatile("mulb %b3; pushfl; popl %2" : "=a"(a), "=d"(d), "=r"(f) : "q"(2), "a"(0x80), "d"(0x5555) : "cc");
	check("mul8 80*2 AX", a & 0xffff, 0x0100);
	check("mul8 CF/OF", f & (CF | OF), CF | OF);
	check("mul8 leaves DX", d, 0x5555);
	__asm__ volatile("mull %3; pushfl; popl %2" : "=a"(a), "=d"(d), "=r"(f) : "r"(0xffffffff), "a"(0xffffffff) : "cc");
	check("mul32 EDX", d, 0xfffffffe);
	check("mul32 EAX", a, 1);
	check("mul32 CF/OF", f & (CF | OF), CF | OF);
	__asm__ volatile("mulw %w3; pushfl; popl %2" : "=a"(a), "=d"(d), "=r"(f) : "r"(0xff), "a"(0x0100), "d"(0x12340000) : "cc");
	check("mul16 DX:AX", ((d & 0xffff) << 16) | (a & 0xffff), 0x0000ff00);
	check("mul16 upper DX kept", d >> 16, 0x1234);
	check("mul16 CF/OF clear", f & (CF | OF), 0);
	/* SDM IMUL: CF=OF=1 iff the result had to be truncated (sign extension differs). */
	__asm__ volatile("imulb %b3; pushfl; popl %2" : "=a"(a), "=d"(d), "=r"(f) : "q"(2), "a"(0xff) : "cc");
	check("imul8 -1*2 AX", a & 0xffff, 0xfffe);
	check("imul8 CF/OF clear", f & (CF | OF), 0);
	__asm__ volatile("imull %3; pushfl; popl %2" : "=a"(a), "=d"(d), "=r"(f) : "r"(2), "a"(0x80000000) : "cc");
	check("imul32 1-op EDX:EAX hi", d, 0xffffffff);
	check("imul32 1-op lo", a, 0);
	check("imul32 1-op CF/OF", f & (CF | OF), CF | OF);
	a = 0x40000000;
	__asm__ volatile("imull %2, %0; pushfl; popl %1" : "+r"(a), "=r"(f) : "r"(2) : "cc");
	check("imul32 2-op overflow result", a, 0x80000000);
	check("imul32 2-op CF/OF", f & (CF | OF), CF | OF);
	__asm__ volatile("imulw $-3, %w2, %w0; pushfl; popl %1" : "=r"(a), "=r"(f) : "r"(1000) : "cc");
	check("imul16 3-op -3*1000", a & 0xffff, 0xf448);
	check("imul16 3-op CF/OF clear", f & (CF | OF), 0);
	__asm__ volatile("imull $2, %2, %0; pushfl; popl %1" : "=r"(a), "=r"(f) : "r"(0x7fffffff) : "cc");
	check("imul32 3-op imm8", a, 0xfffffffe);
	check("imul32 3-op CF/OF", f & (CF | OF), CF | OF);

	/* SDM DIV/IDIV: quotient/remainder; #DE on /0 or quotient overflow. */
	__asm__ volatile("divb %b2" : "=a"(a) : "a"(0x0123), "q"(0x10) : "cc");
	check("div8 0123/10 AL", a & 0xff, 0x12);
	check("div8 0123/10 AH", (a >> 8) & 0xff, 0x03);
	__asm__ volatile("divl %2" : "=a"(a), "=d"(d) : "r"(2), "a"(0), "d"(1) : "cc");
	check("div32 1:0/2 EAX", a, 0x80000000);
	check("div32 1:0/2 EDX", d, 0);
	__asm__ volatile("idivl %2" : "=a"(a), "=d"(d) : "r"(2), "a"(-7), "d"(-1) : "cc");
	check("idiv32 -7/2 quotient truncates", a, 0xfffffffd);
	check("idiv32 -7/2 remainder sign of dividend", d, 0xffffffff);
	__asm__ volatile("idivw %w2" : "=a"(a), "=d"(d) : "r"(7), "a"(0x1234ffff), "d"(0xffff) : "cc");
	check("idiv16 -1/7 AX", a & 0xffff, 0);
	check("idiv16 -1/7 DX", d & 0xffff, 0xffff);
	__asm__ volatile("divw %w2" : "=a"(a), "=d"(d) : "r"(0x100), "a"(0xabcd0234), "d"(0x12340012) : "cc");
	check("div16 0012:0234/0100 AX", a, 0xabcd1202);
	check("div16 remainder DX (upper half kept)", d, 0x12340034);
	__asm__ volatile("idivb %b2" : "=a"(a) : "a"(0xff9c), "q"(7) : "cc");
	check("idiv8 -100/7: AL=-14 AH=-2", a & 0xffff, 0xfef2);
}

static void de_div0(void *p) { (void)p; __asm__ volatile(MARK "divl %0" :: "r"(0), "a"(1), "d"(0) : "cc"); }
static void de_div8_ovf(void *p) { (void)p; __asm__ volatile(MARK "divb %b0" :: "q"(0x10), "a"(0x1000) : "cc"); }
static void de_idiv32_ovf(void *p) { (void)p; __asm__ volatile(MARK "idivl %0" :: "r"(-1), "a"(0x80000000), "d"(0xffffffff) : "cc"); }
static void de_idiv8_ovf(void *p) { (void)p; __asm__ volatile(MARK "idivb %b0" :: "q"(0xff), "a"(0xff80) : "cc"); }
static void de_idiv16_ovf(void *p) { (void)p; __asm__ volatile(MARK "idivw %w0" :: "r"(0xffff), "a"(0x8000), "d"(0xffff) : "cc"); }
static void de_aam0(void *p) { (void)p; __asm__ volatile(MARK ".byte 0xd4, 0x00" ::: "eax", "cc"); }

static void test_de(void)
{
	/* SDM 6.15 "Interrupt 0 - Divide Error": fault, EIP = the DIV. */
	expect_fault("div32 by zero -> #DE", de_div0, 0, 0, -1);
	expect_fault("div8 quotient overflow -> #DE", de_div8_ovf, 0, 0, -1);
	expect_fault("idiv32 80000000/-1 -> #DE", de_idiv32_ovf, 0, 0, -1);
	expect_fault("idiv8 -128/-1 -> #DE", de_idiv8_ovf, 0, 0, -1);
	expect_fault("idiv16 -32768/-1 -> #DE", de_idiv16_ovf, 0, 0, -1);
	expect_fault("aam 0 -> #DE", de_aam0, 0, 0, -1);
}

#define BCD(seq, ax, fin) ({ uint32_t _a = (ax), _f; \
	__asm__ volatile("pushl %[fi]; popfl; " seq "; pushfl; popl %[f]" \
		: "+a"(_a), [f] "=r"(_f) : [fi] "r"((uint32_t)(fin)) : "cc"); (struct res){ _a, _f }; })

static void test_bcd(void)
{
	/* SDM DAA/DAS examples (Vol.2 DAA, DAS "Example"). */
	chk("daa after 79+35", BCD("addb $0x35, %%al; daa", 0x79, 2), CF | PF | AF | ZF | SF, 8, 0x14, CF | PF | AF);
	chk("das after 35-47", BCD("subb $0x47, %%al; das", 0x35, 2), CF | PF | AF | ZF | SF, 8, 0x88, CF | PF | AF | SF);
	/* SDM AAA: if (AL&0F)>9 or AF: AX += 106H, AF=CF=1; AL &= 0FH. */
	chk("aaa after 09+08", BCD("addb $0x08, %%al; aaa", 0x0009, 2), CF | AF, 16, 0x0107, CF | AF);
	chk("aaa no adjust", BCD("aaa", 0x0205, 2), CF | AF, 16, 0x0205, 0);
	/* SDM AAS: if (AL&0F)>9 or AF: AX -= 6, AH -= 1, AF=CF=1; AL &= 0FH. */
	chk("aas after 0102-05", BCD("subb $0x05, %%al; aas", 0x0102, 2), CF | AF, 16, 0x0007, CF | AF);
	/* The carry/borrow between AL and AH of the AX-wide +106H / -6: */
	struct res r = BCD("aaa", 0x00fa, 2);
	check("aaa AX+106H carries into AH (00fa -> 0200)", r.r & 0xffff, 0x0200);
	r = BCD("aas", 0x0203, 2 | AF);
	check("aas AX-6 borrows from AH (0203,AF -> 000d)", r.r & 0xffff, 0x000d);
	/* SDM AAM/AAD: SF, ZF, PF from AL; imm8 is the base. */
	chk("aam 10 of 3f", BCD("aam", 0x003f, 2), PF | ZF | SF, 16, 0x0603, PF);
	chk("aam 16 of 3f", BCD(".byte 0xd4, 0x10", 0x003f, 2), PF | ZF | SF, 16, 0x030f, PF);
	chk("aad 10 of 0607", BCD("aad", 0x0607, 2), PF | ZF | SF, 16, 0x0043, 0);
	chk("aad 16 of 0102", BCD(".byte 0xd5, 0x10", 0x0102, 2), PF | ZF | SF, 16, 0x0012, PF);
}

static void test_bits(void)
{
	uint32_t v, f;
	/* SDM BT/BTS/BTR/BTC: CF = selected bit; register offset mod operand size. */
	v = 0x20;
	__asm__ volatile("btl $5, %0; pushfl; popl %1" : "+r"(v), "=r"(f) :: "cc");
	check("bt 5 of 0x20 CF", f & CF, CF);
	v = 0;
	__asm__ volatile("btsl $31, %0; pushfl; popl %1" : "+r"(v), "=r"(f) :: "cc");
	check("bts 31", v, 0x80000000);
	check("bts CF old bit", f & CF, 0);
	v = 1;
	__asm__ volatile("btrl $0, %0; pushfl; popl %1" : "+r"(v), "=r"(f) :: "cc");
	check("btr 0", v, 0);
	check("btr CF", f & CF, CF);
	v = 0;
	__asm__ volatile("btcl %2, %0; pushfl; popl %1" : "+r"(v), "=r"(f) : "r"(35) : "cc");
	check("btc reg offset 35 -> bit 3 (register operand mod 32)", v, 8);
	v = 0x0002;
	__asm__ volatile("btw $17, %w0; pushfl; popl %1" : "+r"(v), "=r"(f) :: "cc");
	check("bt16 imm 17 -> bit 1", f & CF, CF);
	/* SDM BT: a register bit offset on a memory operand addresses beyond it
	 * (signed, Vol.2 Table 3-? "bit base / bit offset"). */
	static volatile uint32_t arr[3] = { 0x80000000, 0, 0x8 };
	__asm__ volatile("btl %2, %1; pushfl; popl %0" : "=r"(f) : "m"(arr[1]), "r"(35) : "cc");
	check("bt mem bit 35 -> next dword bit 3", f & CF, CF);
	__asm__ volatile("btl %2, %1; pushfl; popl %0" : "=r"(f) : "m"(arr[1]), "r"(-1) : "cc");
	check("bt mem bit -1 -> previous dword bit 31", f & CF, CF);
	__asm__ volatile("btsl %1, %0" : "+m"(arr[1]) : "r"(-32) : "cc");
	check("bts mem bit -32 -> previous dword bit 0", arr[0], 0x80000001);
	/* SDM BSF/BSR: index of lowest/highest set bit; ZF=1 iff source 0. */
	v = 0x00080000;
	__asm__ volatile("bsfl %2, %0; pushfl; popl %1" : "=r"(v), "=r"(f) : "r"(v) : "cc");
	check("bsf 00080000", v, 19);
	check("bsf ZF clear", f & ZF, 0);
	v = 0;
	__asm__ volatile("bsrl %2, %0; pushfl; popl %1" : "=r"(v), "=r"(f) : "r"(0x80001) : "cc");
	check("bsr 00080001", v, 19);
	__asm__ volatile("bsfl %1, %%eax; pushfl; popl %0" : "=r"(f) : "r"(0) : "eax", "cc");
	check("bsf 0 sets ZF", f & ZF, ZF);
}

/* SDM Vol.1 Appendix B, Table B-1: condition codes. */
static int cond(int cc, uint32_t f)
{
	int cf = !!(f & CF), zf = !!(f & ZF), sf = !!(f & SF), of = !!(f & OF), pf = !!(f & PF);
	int r;
	switch (cc >> 1) {
	case 0: r = of; break;
	case 1: r = cf; break;
	case 2: r = zf; break;
	case 3: r = cf | zf; break;
	case 4: r = sf; break;
	case 5: r = pf; break;
	case 6: r = sf != of; break;
	default: r = zf | (sf != of); break;
	}
	return (cc & 1) ? !r : r;
}

#define SETCC(n) case n: __asm__ volatile("pushl %1; popfl; .byte 0x0f, 0x90 + " #n ", 0xc0" : "=a"(v) : "r"(f), "a"(0) : "cc"); break
#define CMOVCC(n) case n: __asm__ volatile("pushl %2; popfl; .byte 0x0f, 0x40 + " #n ", 0xc1" : "=a"(v) : "c"(1), "r"(f), "a"(0) : "cc"); break

static void test_cc(void)
{
	static const uint32_t fl[] = { 2, 2 | CF, 2 | ZF, 2 | SF, 2 | OF, 2 | PF, 2 | SF | OF, 2 | CF | ZF | SF, 2 | ZF | OF };
	uint32_t bad_set = 0, bad_cmov = 0;
	for (unsigned i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		for (int cc = 0; cc < 16; cc++) {
			uint32_t f = fl[i], v = 0;
			switch (cc) {
			SETCC(0); SETCC(1); SETCC(2); SETCC(3); SETCC(4); SETCC(5); SETCC(6); SETCC(7);
			SETCC(8); SETCC(9); SETCC(10); SETCC(11); SETCC(12); SETCC(13); SETCC(14); SETCC(15);
			}
			if (v != (uint32_t)cond(cc, f)) {
				gprintf("# setcc %x flags %x got %x\n", cc, f, v);
				bad_set++;
			}
			switch (cc) {
			CMOVCC(0); CMOVCC(1); CMOVCC(2); CMOVCC(3); CMOVCC(4); CMOVCC(5); CMOVCC(6); CMOVCC(7);
			CMOVCC(8); CMOVCC(9); CMOVCC(10); CMOVCC(11); CMOVCC(12); CMOVCC(13); CMOVCC(14); CMOVCC(15);
			}
			if (v != (uint32_t)cond(cc, f)) {
				gprintf("# cmovcc %x flags %x got %x\n", cc, f, v);
				bad_cmov++;
			}
		}
	}
	check("SETcc all 16 conditions x 9 flag sets", bad_set, 0);
	check("CMOVcc all 16 conditions x 9 flag sets", bad_cmov, 0);
}

static void test_xchg_misc(void)
{
	uint32_t a, m, f, d;
	/* SDM CMPXCHG: equal -> dest=src, ZF=1; else accumulator=dest, ZF=0. */
	m = 5;
	__asm__ volatile("cmpxchgl %3, %1; pushfl; popl %2" : "=a"(a), "+m"(m), "=r"(f) : "r"(7), "a"(5) : "cc");
	check("cmpxchg equal stores", m, 7);
	check("cmpxchg equal ZF", f & ZF, ZF);
	m = 6;
	__asm__ volatile("cmpxchgl %3, %1; pushfl; popl %2" : "=a"(a), "+m"(m), "=r"(f) : "r"(7), "a"(5) : "cc");
	check("cmpxchg unequal loads EAX", a, 6);
	check("cmpxchg unequal keeps dest", m, 6);
	check("cmpxchg unequal ZF", f & ZF, 0);
	/* SDM CMPXCHG8B */
	static volatile uint32_t q[2] = { 0x11111111, 0x22222222 };
	a = 0x11111111; d = 0x22222222;
	__asm__ volatile("cmpxchg8b %2; pushfl; popl %0" : "=r"(f), "+a"(a), "+m"(*(volatile uint64_t *)q), "+d"(d)
			 : "b"(0x33333333), "c"(0x44444444) : "cc");
	check("cmpxchg8b equal stores ECX:EBX", q[0] ^ q[1], 0x33333333 ^ 0x44444444);
	check("cmpxchg8b equal ZF", f & ZF, ZF);
	a = 0; d = 0;
	__asm__ volatile("cmpxchg8b %2; pushfl; popl %0" : "=r"(f), "+a"(a), "+m"(*(volatile uint64_t *)q), "+d"(d)
			 : "b"(0), "c"(0) : "cc");
	check("cmpxchg8b unequal loads EDX", d, 0x44444444);
	check("cmpxchg8b unequal loads EAX", a, 0x33333333);
	check("cmpxchg8b unequal ZF", f & ZF, 0);
	/* SDM XADD: temp = src + dest; src = dest; dest = temp. */
	a = 1; m = 2;
	__asm__ volatile("xaddl %0, %1" : "+r"(a), "+m"(m) :: "cc");
	check("xadd dest", m, 3);
	check("xadd src gets old dest", a, 2);
	a = 0x12345678;
	__asm__ volatile("bswap %0" : "+r"(a));
	check("bswap", a, 0x78563412);
	/* SDM MOVZX/MOVSX */
	__asm__ volatile("movzbl %b1, %0" : "=r"(a) : "q"(0x1280));
	check("movzx byte", a, 0x80);
	__asm__ volatile("movsbl %b1, %0" : "=r"(a) : "q"(0x1280));
	check("movsx byte", a, 0xffffff80);
	__asm__ volatile("movswl %w1, %0" : "=r"(a) : "r"(0x8000));
	check("movsx word", a, 0xffff8000);
	a = 0xdeadbeef;
	__asm__ volatile("movsbw %b1, %w0" : "+r"(a) : "q"(0xfe));
	check("movsx byte->word keeps bits 31:16", a, 0xdeadfffe);
}

/* ENTER with nesting level 2 and LEAVE (SDM Vol.2 ENTER Operation).
 * enter_probe(out): out[0]=ESP before, [1]=EBP after ENTER, [2]=ESP after,
 * [3..5]=stack words at EBP, EBP-4, EBP-8, [6]=ESP after LEAVE, [7]=EBP after LEAVE. */
void enter_probe(uint32_t *out);
__asm__(".text\nenter_probe:\n\t"
	"push %ebp\n\tpush %ebx\n\tpush %esi\n\tpush %edi\n\t"
	"mov 20(%esp), %edi\n\t"
	"mov $enter_fake_frame + 16, %ebp\n\t"   /* outer frame: [ebp-4] = 0x11111111 */
	"mov %esp, 0(%edi)\n\t"
	"enter $16, $2\n\t"
	"mov %ebp, 4(%edi)\n\t"
	"mov %esp, 8(%edi)\n\t"
	"mov 0(%ebp), %eax\n\tmov %eax, 12(%edi)\n\t"
	"mov -4(%ebp), %eax\n\tmov %eax, 16(%edi)\n\t"
	"mov -8(%ebp), %eax\n\tmov %eax, 20(%edi)\n\t"
	"leave\n\t"
	"mov %esp, 24(%edi)\n\t"
	"mov %ebp, 28(%edi)\n\t"
	"pop %edi\n\tpop %esi\n\tpop %ebx\n\tpop %ebp\n\tret\n"
	".data\n.align 4\nenter_fake_frame: .long 0, 0, 0, 0x11111111, 0\n.text\n");
extern uint32_t enter_fake_frame[];

/* ENTER level 0 and 1 (SDM ENTER: level 1 pushes only the frame temp). */
void enter01_probe(uint32_t *out);
__asm__(".text\nenter01_probe:\n\t"
	"push %ebp\n\tpush %edi\n\t"
	"mov 12(%esp), %edi\n\t"
	"mov %esp, 0(%edi)\n\t"
	"enter $12, $0\n\t"
	"mov %ebp, 4(%edi)\n\tmov %esp, 8(%edi)\n\t"
	"leave\n\t"
	"enter $4, $1\n\t"
	"mov %ebp, 12(%edi)\n\tmov %esp, 16(%edi)\n\t"
	"mov -4(%ebp), %eax\n\tmov %eax, 20(%edi)\n\t"
	"leave\n\t"
	"mov %esp, 24(%edi)\n\t"
	"pop %edi\n\tpop %ebp\n\tret\n");

uint32_t pusha_before, pusha_pushed, pusha_after;

static void test_stack_loop(void)
{
	uint32_t o[8];
	enter_probe(o);
	uint32_t fp = (uint32_t)(uintptr_t)&enter_fake_frame[4];
	check("enter level 2: EBP = frame temp", o[1], o[0] - 4);
	check("enter level 2: ESP = EBP - 8 - size", o[2], o[0] - 4 - 8 - 16);
	check("enter: [EBP] = old EBP", o[3], fp);
	check("enter: [EBP-4] = copied outer frame pointer", o[4], 0x11111111);
	check("enter: [EBP-8] = frame temp", o[5], o[1]);
	check("leave restores ESP", o[6], o[0]);
	check("leave restores EBP", o[7], fp);
	uint32_t e[7];
	enter01_probe(e);
	check("enter level 0: EBP = ESP after push", e[1], e[0] - 4);
	check("enter level 0: ESP = EBP - size", e[2], e[0] - 4 - 12);
	check("enter level 1: EBP", e[3], e[0] - 4);
	check("enter level 1: ESP = EBP - 4 - size", e[4], e[0] - 4 - 4 - 4);
	check("enter level 1: [EBP-4] = frame temp", e[5], e[3]);
	check("leave after level 1 restores ESP", e[6], e[0]);

	/* SDM PUSHA: pushes the ESP value from before the instruction; POPA skips it. */
	__asm__ volatile("mov %%esp, pusha_before\n\tpusha\n\tmov 12(%%esp), %%eax\n\tmov %%eax, pusha_pushed\n\t"
			 "popa\n\tmov %%esp, pusha_after" ::: "eax", "memory");
	check("pusha pushes original ESP", pusha_pushed, pusha_before);
	check("popa restores ESP", pusha_after, pusha_before);
	uint32_t eax_after;
	__asm__ volatile("pushl $1; pushl $2; pushl $3; pushl $4; pushl $0xdead; pushl %%ebp; pushl $7; pushl $8\n\t"
			 "popa\n\tmov %%eax, %0" : "=m"(eax_after) :: "eax", "ebx", "ecx", "edx", "esi", "edi", "memory");
	check("popa order (EAX last pushed first)", eax_after, 1);

	/* SDM LOOP/LOOPcc/JCXZ */
	uint32_t n = 0, c = 5;
	__asm__ volatile("1: incl %0\n\tloop 1b" : "+r"(n), "+c"(c));
	check("loop 5 iterations", n, 5);
	check("loop leaves ECX=0", c, 0);
	n = 0; c = 10;
	__asm__ volatile("1: incl %0\n\tcmpl $3, %0\n\tloopne 1b" : "+r"(n), "+c"(c) :: "cc");
	check("loopne stops on ZF=1", n, 3);
	check("loopne ECX", c, 7);
	uint32_t taken;
	__asm__ volatile("movl $0, %0\n\tjecxz 1f\n\tjmp 2f\n1: movl $1, %0\n2:" : "=r"(taken) : "c"(0));
	check("jecxz taken on ECX=0", taken, 1);
	__asm__ volatile("movl $0, %0\n\t.byte 0x67\n\tjecxz 1f\n\tjmp 2f\n1: movl $1, %0\n2:" : "=r"(taken) : "c"(0x10000));
	check("jcxz (0x67) tests CX only", taken, 1);
}

void guest_main(void)
{
	test_addsub();
	test_logic_incdec();
	test_shifts();
	test_muldiv();
	test_de();
	test_bcd();
	test_bits();
	test_cc();
	test_xchg_misc();
	test_stack_loop();
}
