/* String instructions: MOVS/CMPS/SCAS/LODS/STOS in all sizes, REP/REPE/REPNE,
 * DF=1, ECX=0 and 16-bit address size (SDM Vol.2 "MOVS", "CMPS", "SCAS",
 * "LODS", "STOS", "REP/REPE/REPZ/REPNE/REPNZ"; Vol.1 7.3.9). */
#include "lib/guest.h"

#define CF 0x001
#define ZF 0x040
#define SF 0x080

static uint8_t src[64], dst[64];

struct sregs { uint32_t esi, edi, ecx, eax, fl; };

#define STR(insn, s, d, c, a, fin) ({ struct sregs _o; \
	__asm__ volatile("pushl %[fi]; popfl; " insn "; pushfl; popl %[f]; cld" \
		: "=S"(_o.esi), "=D"(_o.edi), "=c"(_o.ecx), "=a"(_o.eax), [f] "=r"(_o.fl) \
		: "S"(s), "D"(d), "c"(c), "a"(a), [fi] "r"((uint32_t)(fin)) : "cc", "memory"); _o; })

static void fill(void)
{
	for (int i = 0; i < 64; i++) {
		src[i] = (uint8_t)(i + 1);
		dst[i] = 0;
	}
}

#define A(p) ((uint32_t)(uintptr_t)(p))

static void test_movs(void)
{
	struct sregs r;
	fill();
	r = STR("rep movsb", src, dst, 5, 0, 2);
	check("rep movsb copies 5", dst[4] == 5 && dst[5] == 0, 1);
	check("rep movsb ESI", r.esi, A(src) + 5);
	check("rep movsb EDI", r.edi, A(dst) + 5);
	check("rep movsb ECX", r.ecx, 0);
	fill();
	r = STR("rep movsw", src, dst, 3, 0, 2);
	check("rep movsw copies 6 bytes", dst[5] == 6 && dst[6] == 0, 1);
	check("rep movsw ESI", r.esi, A(src) + 6);
	fill();
	r = STR("rep movsl", src, dst, 4, 0, 2);
	check("rep movsd copies 16 bytes", dst[15] == 16 && dst[16] == 0, 1);
	check("rep movsd EDI", r.edi, A(dst) + 16);
	/* SDM Vol.1 7.3.9: DF=1 decrements ESI/EDI by the element size. */
	fill();
	r = STR("std; rep movsl", src + 12, dst + 12, 3, 0, 2);
	check("DF=1 rep movsd copies downward", dst[12] == 13 && dst[4] == 5 && dst[3] == 0 && dst[16] == 0, 1);
	check("DF=1 rep movsd ESI", r.esi, A(src) + 0);
	check("DF=1 rep movsd EDI", r.edi, A(dst) + 0);
	/* SDM REP: ECX=0 executes no iteration and changes nothing. */
	fill();
	r = STR("rep movsb", src, dst, 0, 0, 2);
	check("rep movsb ECX=0 copies nothing", dst[0], 0);
	check("rep movsb ECX=0 ESI unchanged", r.esi, A(src));
	check("rep movsb ECX=0 EDI unchanged", r.edi, A(dst));
	r = STR("movsb", src, dst, 7, 0, 2);
	check("movsb without REP ignores ECX", r.ecx, 7);
	check("movsb without REP ESI+1", r.esi, A(src) + 1);
}

static void test_cmps_scas(void)
{
	struct sregs r;
	fill();
	for (int i = 0; i < 64; i++)
		dst[i] = src[i];
	dst[6] = 0x80;
	/* SDM CMPS: flags from [DS:ESI] - [ES:EDI]; REPE stops when ZF=0. */
	r = STR("repe cmpsb", src, dst, 20, 0, 2);
	check("repe cmpsb stops after mismatch: ECX", r.ecx, 20 - 7);
	check("repe cmpsb ESI past mismatch", r.esi, A(src) + 7);
	check("repe cmpsb flags 07-80: CF=1 ZF=0 SF=1", r.fl & (CF | ZF | SF), CF | SF);
	r = STR("repe cmpsb", src, dst, 5, 0, 2);
	check("repe cmpsb all equal: ECX=0", r.ecx, 0);
	check("repe cmpsb all equal: ZF=1", r.fl & ZF, ZF);
	r = STR("repne cmpsb", src, dst, 10, 0, 2);
	check("repne cmpsb stops at first equal", r.ecx, 9);
	r = STR("cmpsl", src, dst, 0, 0, 2);
	check("cmpsd equal ZF", r.fl & ZF, ZF);
	r = STR("cmpsw", dst + 6, src + 6, 0, 0, 2);
	check("cmpsw 0880-0807 flags CF=0 ZF=0", r.fl & (CF | ZF), 0);
	/* SDM SCAS: flags from AL/AX/EAX - [ES:EDI]. */
	r = STR("repne scasb", 0, src, 64, 10, 2);
	check("repne scasb finds 10 at index 9: EDI", r.edi, A(src) + 10);
	check("repne scasb ECX", r.ecx, 64 - 10);
	check("repne scasb ZF", r.fl & ZF, ZF);
	r = STR("repne scasb", 0, src, 8, 0xee, 2);
	check("repne scasb not found: ECX=0", r.ecx, 0);
	check("repne scasb not found: ZF=0", r.fl & ZF, 0);
	r = STR("repe scasw", 0, src, 4, 0x0201, 2);
	check("repe scasw stops after the mismatching 2nd word", r.ecx, 2);
	check("repe scasw EDI", r.edi, A(src) + 4);
	r = STR("scasl", 0, src, 0, 0x04030201, 2);
	check("scasd equal", r.fl & ZF, ZF);
	r = STR("std; scasb", 0, src + 3, 0, 1, 2);
	check("DF=1 scasb EDI decrements", r.edi, A(src) + 2);
	check("scasb 1-4 CF", r.fl & CF, CF);
}

static void test_lods_stos(void)
{
	struct sregs r;
	fill();
	r = STR("lodsb", src, 0, 0, 0xaabbccdd, 2);
	check("lodsb loads AL only", r.eax, 0xaabbcc01);
	r = STR("lodsw", src, 0, 0, 0xaabbccdd, 2);
	check("lodsw loads AX only", r.eax, 0xaabb0201);
	r = STR("lodsl", src + 4, 0, 0, 0, 2);
	check("lodsd", r.eax, 0x08070605);
	check("lodsd ESI+4", r.esi, A(src) + 8);
	r = STR("rep lodsb", src, 0, 3, 0, 2);
	check("rep lodsb leaves last byte", r.eax & 0xff, 3);
	r = STR("rep stosl", 0, dst, 4, 0x11223344, 2);
	check("rep stosd fills", *(uint32_t *)(dst + 12), 0x11223344);
	check("rep stosd stops", dst[16], 0);
	check("rep stosd EDI", r.edi, A(dst) + 16);
	r = STR("rep stosw", 0, dst + 20, 2, 0x5566, 2);
	check("rep stosw", *(uint32_t *)(dst + 20), 0x55665566);
	r = STR("std; rep stosb", 0, dst + 40, 3, 0x77, 2);
	check("DF=1 rep stosb fills downward", dst[40] == 0x77 && dst[38] == 0x77 && dst[37] != 0x77 && dst[41] != 0x77, 1);
	check("DF=1 rep stosb EDI", r.edi, A(dst) + 37);
	/* One byte repeated in the element (a fill hvemu does as a memset),
	 * forward and backward, beside an element that is not. */
	r = STR("rep stosl", 0, dst + 48, 3, 0xabababab, 2);
	check("rep stosd of one repeated byte", *(uint32_t *)(dst + 56) == 0xabababab && dst[47] == 0 && dst[60] == 0, 1);
	r = STR("rep stosb", 0, dst + 22, 12, 0xff, 2);
	r = STR("std; rep stosw", 0, dst + 30, 3, 0x0000, 2);
	check("DF=1 rep stosw of zero", *(uint16_t *)(dst + 26) == 0 && *(uint16_t *)(dst + 30) == 0 &&
	      *(uint16_t *)(dst + 32) == 0xffff && *(uint16_t *)(dst + 24) == 0xffff, 1);
	check("DF=1 rep stosw EDI", r.edi, A(dst) + 24);
	r = STR("rep stosw", 0, dst + 24, 2, 0x00ab, 2);
	check("rep stosw of two bytes", *(uint32_t *)(dst + 24), 0x00ab00ab);
}

static void test_addr16(void)
{
	/* SDM Vol.2 REP: with a 16-bit address size (0x67) the count is CX and
	 * the pointers are SI/DI; the upper halves are not changed. Buffers
	 * below 64 KiB so DS.base + SI addresses them (flat DS). */
	volatile uint8_t *lo_src = (volatile uint8_t *)0x5000, *lo_dst = (volatile uint8_t *)0x5100;
	for (int i = 0; i < 16; i++) {
		lo_src[i] = (uint8_t)(0xa0 + i);
		lo_dst[i] = 0;
	}
	struct sregs r = STR(".byte 0x67; rep movsb", 0x12345000, 0xabcd5100, 0xffff0003, 0, 2);
	check("addr16 rep movsb copies CX=3 bytes", lo_dst[2] == 0xa2 && lo_dst[3] == 0, 1);
	check("addr16 rep movsb ECX upper kept", r.ecx, 0xffff0000);
	check("addr16 rep movsb ESI upper kept", r.esi, 0x12345003);
	check("addr16 rep movsb EDI upper kept", r.edi, 0xabcd5103);
	r = STR(".byte 0x67; rep stosw", 0, 0x00015108, 0x00010002, 0x9999, 2);
	check("addr16 rep stosw uses DI and CX only", lo_dst[8] == 0x99 && lo_dst[11] == 0x99 && lo_dst[12] == 0, 1);
	check("addr16 rep stosw ECX", r.ecx, 0x00010000);
	check("addr16 rep stosw EDI", r.edi, 0x0001510c);
	*(volatile uint8_t *)0xffff = 0x42;
	r = STR(".byte 0x67; lodsb", 0x7777ffff, 0, 0, 0, 2);
	check("addr16 lodsb at SI=ffff", r.eax & 0xff, 0x42);
	check("addr16 lodsb SI wraps to 0, upper kept", r.esi, 0x77770000);
}

void guest_main(void)
{
	test_movs();
	test_cmps_scas();
	test_lods_stos();
	test_addr16();
}
