/* The host x87 unit as the guest's: one guest instruction runs as the very
 * same encoding on the host FPU, loaded with the guest's state.
 *
 * Why the whole state and the instruction itself, not just the operands: the
 * host then decides everything the SDM says an x87 decides, bit-exactly and
 * with nothing re-derived here: stack overflow and underflow (SF, C1, the
 * indefinite or no store, SDM Vol.1 8.5.1.1), the masked and unmasked
 * responses to #IA/#D/#Z/#O/#U/#P (SDM Vol.1 8.5; an unmasked #O/#U stores the
 * exponent-adjusted result, an unmasked #IA stores nothing), condition codes,
 * tags, the rounding of FLDPI and the other constants under RC (SDM Vol.1
 * 8.3.8), FPREM's partial remainders, and the transcendentals' results, which
 * are micro-architecture specific: the host x87 IS the reference (an AMD EPYC
 * for hvemu's CI), even when the selected CPU model names another vendor.
 *
 * How: FRSTOR of an image built from the guest state (its exception flags,
 * SF, ES and B cleared, so the host never has an exception pending), a call to
 * a stub holding the instruction's two bytes and a RET, FNSAVE (which does not
 * wait, so an unmasked exception the instruction raised stays a flag and never
 * becomes a host #MF; FNSAVE then reinitialises the host FPU), and the host's
 * own control word reloaded. Memory forms run with a ModRM of [rDI] on a host
 * buffer the caller filled from, or copies to, guest memory. The pointers
 * FIP/FDP/FOP are kept by emu/x87.c, not taken from the host.
 */
#include <string.h>

#include "emu/x87_host.h"

#if !defined(__x86_64__) && !defined(__i386__)
#error "emu/x87_host.c runs x87 instructions on the host x87 unit: x86 hosts only"
#endif

/* The stubs, as data the assembler lays out: for each escape byte D8..DF, 64
 * register forms (ModRM C0..FF) and then 8 memory forms (ModRM reg<<3 | 7:
 * [rDI]), each "escape, ModRM, RET, NOP". Only encodings emu/isa/x87.isa routes
 * here are ever called. */
#define STUB_BYTES 4u
#define STUBS_PER_ESCAPE 72u
__asm__(".pushsection .text\n"
	".balign 16\n"
	".globl hvemu_x87_stubs\n"
	".hidden hvemu_x87_stubs\n"
	"hvemu_x87_stubs:\n"
	".set hvemu_x87_esc, 0xd8\n"
	".rept 8\n"
	"  .set hvemu_x87_modrm, 0xc0\n"
	"  .rept 64\n"
	"    .byte hvemu_x87_esc, hvemu_x87_modrm, 0xc3, 0x90\n"
	"    .set hvemu_x87_modrm, hvemu_x87_modrm + 1\n"
	"  .endr\n"
	"  .set hvemu_x87_modrm, 0x07\n"
	"  .rept 8\n"
	"    .byte hvemu_x87_esc, hvemu_x87_modrm, 0xc3, 0x90\n"
	"    .set hvemu_x87_modrm, hvemu_x87_modrm + 8\n"
	"  .endr\n"
	"  .set hvemu_x87_esc, hvemu_x87_esc + 1\n"
	".endr\n"
	".popsection\n");
extern const uint8_t hvemu_x87_stubs[];

/* The FNSAVE/FRSTOR image in the host's format: 32-bit protected mode (SDM
 * Vol.1 8.1.10, Figure 8-9; in 64-bit mode the same without REX.W), then
 * ST(0)..ST(7), 10 bytes each. Two more bytes hold the host's FCW meanwhile. */
enum { IMG_FCW = 0, IMG_FSW = 4, IMG_FTW = 8, IMG_ST = 28, IMG_SIZE = FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE };
_Static_assert(IMG_ST == FPU_ENV32_SIZE, "SDM Figure 8-9: registers follow the 28-byte environment");

/* The status flags an instruction may read (FCMOVcc) or write (FCOMI). */
#define STATUS_FLAGS 0x8d5ul      /* OF SF ZF AF PF CF */

/* Load img, run the stub with rDI = mem and the status flags of *flags, store
 * img back; *flags gets the host's status flags afterwards. The stack pointer
 * moves below the x86-64 red zone before the CALL, and every operand is a
 * register, so nothing is addressed relative to the moved stack. */
static void host_run(uint8_t img[IMG_SIZE + 2], const uint8_t *stub, uint8_t *mem, uint64_t *flags)
{
	unsigned long fl = (unsigned long)(*flags & STATUS_FLAGS), tmp;
	__asm__ volatile(
#ifdef __x86_64__
		"lea -128(%%rsp), %%rsp\n\t"
#endif
		"fnstcw %c[cw](%[img])\n\t"
		"frstor (%[img])\n\t"
		"pushf\n\t"                     /* the host's flags, restored below */
		"pushf\n\t"
		"pop %[tmp]\n\t"
		"and %[keep], %[tmp]\n\t"
		"or %[fl], %[tmp]\n\t"
		"push %[tmp]\n\t"
		"popf\n\t"
		"call *%[stub]\n\t"
		"pushf\n\t"
		"pop %[fl]\n\t"
		"popf\n\t"
		"fnsave (%[img])\n\t"
		"fldcw %c[cw](%[img])\n\t"
#ifdef __x86_64__
		"lea 128(%%rsp), %%rsp\n\t"
#endif
		: [fl] "+&r"(fl), [tmp] "=&r"(tmp)
		: [img] "r"(img), [stub] "r"(stub), "D"(mem), [cw] "i"(IMG_SIZE), [keep] "i"(~(long)STATUS_FLAGS)
		: "memory", "cc", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)");
	*flags = fl & STATUS_FLAGS;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

bool x87_host_exec(struct fpu_state *f, const struct x87_host_insn *in, uint64_t *rflags)
{
	uint8_t img[IMG_SIZE + 2];
	unsigned top = (f->fsw >> FSW_TOP_SHIFT) & 7;

	memset(img, 0, sizeof(img));
	put16(img + IMG_FCW, (uint16_t)(f->fcw | in->fcw_or));
	put16(img + IMG_FSW, (uint16_t)(f->fsw & ~(FSW_EXC | FSW_SF | FSW_ES | FSW_B)));
	put16(img + IMG_FTW, f->ftw);
	for (unsigned i = 0; i < 8; i++) {
		const struct fpu_reg *r = &f->r[(top + i) & 7];
		memcpy(img + IMG_ST + 10 * i, &r->mant, 8);
		memcpy(img + IMG_ST + 10 * i + 8, &r->sexp, 2);
	}
	unsigned idx = (in->escape - 0xd8u) * STUBS_PER_ESCAPE +
		       (in->mem ? 64u + ((in->modrm >> 3) & 7u) : in->modrm - 0xc0u);
	host_run(img, hvemu_x87_stubs + STUB_BYTES * idx, in->buf, rflags);

	uint16_t sw = get16(img + IMG_FSW);
	top = (sw >> FSW_TOP_SHIFT) & 7;
	/* FNSAVE writes the tags the contents give (SDM Vol.1 8.1.7). */
	f->ftw = get16(img + IMG_FTW);
	for (unsigned i = 0; i < 8; i++) {
		struct fpu_reg *r = &f->r[(top + i) & 7];
		memcpy(&r->mant, img + IMG_ST + 10 * i, 8);
		memcpy(&r->sexp, img + IMG_ST + 10 * i + 8, 2);
	}
	/* SDM Vol.1 8.1.3: the exception flags and SF are sticky; ES (and B, its
	 * copy, 8.1.3.6) stays set while an unmasked exception is pending. */
	bool unmasked = (sw & FSW_ES) != 0;
	uint16_t pending = (uint16_t)((sw | f->fsw) & FSW_ES);
	f->fsw = (uint16_t)((sw & ~(FSW_ES | FSW_B)) | (f->fsw & (FSW_EXC | FSW_SF)) | pending);
	if (pending)
		f->fsw |= FSW_B;
	return unmasked;
}
