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
 * How (the exact path): FRSTOR of an image built from the guest state (its
 * exception flags, SF, ES and B cleared, so the host never has an exception
 * pending), a call to a stub holding the instruction's two bytes and a RET,
 * FNSAVE (which does not wait, so an unmasked exception the instruction raised
 * stays a flag and never becomes a host #MF; FNSAVE then reinitialises the
 * host FPU), and the host's own control word reloaded. Memory forms run with a
 * ModRM of [rDI] on a host buffer the caller filled from, or copies to, guest
 * memory. The pointers FIP/FDP/FOP are kept by emu/x87.c, not taken from the
 * host.
 *
 * FRSTOR and FNSAVE cost about 300 ns together, ten times an FADD's whole
 * emulation otherwise, so the common case takes a fast path: the operands
 * alone are loaded (FLD m80), the same stub runs with every exception masked,
 * and the results are stored back (FSTP m80), FSW with FNSTSW. Its conditions
 * (no stack fault possible, no exception the guest has unmasked) make it give
 * what the exact path gives; the host-differential test compares both with
 * the host.
 */
#include <stddef.h>
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
 * ST(0)..ST(7), 10 bytes each. */
enum { IMG_FCW = 0, IMG_FSW = 4, IMG_FTW = 8, IMG_ST = 28, IMG_SIZE = FPU_ENV32_SIZE + FPU_SAVE_REGS_SIZE };
_Static_assert(IMG_ST == FPU_ENV32_SIZE, "SDM Figure 8-9: registers follow the 28-byte environment");

/* The status flags an instruction may read (FCMOVcc) or write (FCOMI). */
#define STATUS_FLAGS 0x8d5ul      /* OF SF ZF AF PF CF */

/* What a run shares with its assembly, addressed through one register. */
struct host_io {
	uint16_t host_cw;          /* the host's FCW, kept across the run */
	uint16_t fast_cw;          /* fast path: the guest's FCW, exceptions masked */
	uint16_t fast_sw;          /* fast path: FSW after the instruction */
	uint16_t pad;
	uint32_t prepare;          /* fast path: PREP_* */
	unsigned long flags;       /* EFLAGS for the instruction (IF, bit 1, status), then after it */
	const uint8_t *stub;
	unsigned long nin, nout;   /* fast path: values loaded, values stored */
	uint8_t *last_in;          /* fast path: the value loaded first (ST(reads)) */
	uint8_t img[IMG_SIZE];     /* exact path: FRSTOR/FNSAVE image */
	uint8_t in[8][10];         /* fast path: ST(0)..ST(reads) */
	uint8_t out[9][10];        /* fast path: ST(0).. after the instruction */
	uint8_t mem[10];           /* fast path: the memory operand, kept only with the result */
	uint8_t env[FPU_ENV32_SIZE];   /* fast path with PREP_ENV: FCW, FSW (C0-C3, TOP), all empty */
};

/* How the fast path prepares the host: FLDCW alone; FNCLEX first (the host
 * has an exception flag the guest has not); FLDENV (the host's condition
 * codes are not the guest's: loaded with FCW, flags clear, stack empty). */
enum { PREP_FLDCW = 0, PREP_FNCLEX = 1, PREP_ENV = 2 };

/* The pieces of assembly both paths use. The stack pointer moves below the
 * x86-64 red zone before anything is pushed or called, and every memory
 * operand is relative to the host_io register, never to the stack. EFLAGS:
 * the host's are pushed, the instruction's loaded (status flags from the
 * guest; DF = 0, as the ABI has it), and the host's restored afterwards. */
#ifdef __x86_64__
#define RED_ZONE_SKIP "lea -128(%%rsp), %%rsp\n\t"
#define RED_ZONE_BACK "lea 128(%%rsp), %%rsp\n\t"
#define FLAGS_IN "pushf\n\tpushq %c[fl](%[io])\n\tpopf\n\t"
#define FLAGS_OUT "pushf\n\tpopq %c[fl](%[io])\n\tpopf\n\t"
#else
#define RED_ZONE_SKIP ""
#define RED_ZONE_BACK ""
#define FLAGS_IN "pushf\n\tpushl %c[fl](%[io])\n\tpopf\n\t"
#define FLAGS_OUT "pushf\n\tpopl %c[fl](%[io])\n\tpopf\n\t"
#endif
#define IO_OPERANDS [io] "r"(io), "D"(mem), [hcw] "i"(offsetof(struct host_io, host_cw)), \
	[fcw] "i"(offsetof(struct host_io, fast_cw)), [fsw] "i"(offsetof(struct host_io, fast_sw)), \
	[fl] "i"(offsetof(struct host_io, flags)), [stub] "i"(offsetof(struct host_io, stub)), \
	[nin] "i"(offsetof(struct host_io, nin)), [nout] "i"(offsetof(struct host_io, nout)), \
	[first] "i"(offsetof(struct host_io, last_in)), [img] "i"(offsetof(struct host_io, img)), \
	[out] "i"(offsetof(struct host_io, out)), [prep] "i"(offsetof(struct host_io, prepare)), \
	[env] "i"(offsetof(struct host_io, env))
#define X87_CLOBBERS "memory", "cc", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)"

/* The exact path: FRSTOR io->img, the stub with rDI = mem, FNSAVE io->img. */
static void exact_run(struct host_io *io, uint8_t *mem)
{
	__asm__ volatile(RED_ZONE_SKIP
			 "fnstcw %c[hcw](%[io])\n\t"
			 "frstor %c[img](%[io])\n\t"
			 FLAGS_IN
			 "call *%c[stub](%[io])\n\t"
			 FLAGS_OUT
			 "fnsave %c[img](%[io])\n\t"
			 "fldcw %c[hcw](%[io])\n\t"
			 RED_ZONE_BACK
			 : : IO_OPERANDS : X87_CLOBBERS);
}

/* The fast path on the empty host stack (the ABI's state between calls):
 * prepare (PREP_*), FLD io->nin values from io->last_in down, run the stub
 * with all exceptions masked, FNSTSW, FSTP io->nout values to io->out. */
#define FAST_LOAD "fnstcw %c[hcw](%[io])\n\t" \
	"cmpl $1, %c[prep](%[io])\n\t" \
	"jb 5f\n\t" \
	"je 4f\n\t" \
	"fldenv %c[env](%[io])\n\t" \
	"jmp 6f\n" \
	"4:\tfnclex\n" \
	"5:\tfldcw %c[fcw](%[io])\n" \
	"6:\tmov %c[nin](%[io]), %[n]\n\t" \
	"mov %c[first](%[io]), %[p]\n\t" \
	"test %[n], %[n]\n\t" \
	"jz 2f\n" \
	"1:\tfldt (%[p])\n\t" \
	"sub $10, %[p]\n\t" \
	"dec %[n]\n\t" \
	"jnz 1b\n" \
	"2:\t"
#define FAST_STORE "fnstsw %c[fsw](%[io])\n\t" \
	"lea %c[out](%[io]), %[p]\n\t" \
	"mov %c[nout](%[io]), %[n]\n\t" \
	"test %[n], %[n]\n\t" \
	"jz 8f\n" \
	"7:\tfstpt (%[p])\n\t" \
	"add $10, %[p]\n\t" \
	"dec %[n]\n\t" \
	"jnz 7b\n" \
	"8:\tfldcw %c[hcw](%[io])\n\t"
static void fast_run(struct host_io *io, uint8_t *mem, bool eflags)
{
	unsigned long n;
	uint8_t *p;
	if (eflags)
		__asm__ volatile(RED_ZONE_SKIP FAST_LOAD FLAGS_IN "call *%c[stub](%[io])\n\t" FLAGS_OUT FAST_STORE
				 RED_ZONE_BACK
				 : [n] "=&r"(n), [p] "=&r"(p) : IO_OPERANDS : X87_CLOBBERS);
	else
		__asm__ volatile(RED_ZONE_SKIP FAST_LOAD "call *%c[stub](%[io])\n\t" FAST_STORE RED_ZONE_BACK
				 : [n] "=&r"(n), [p] "=&r"(p) : IO_OPERANDS : X87_CLOBBERS);
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void reg_to(uint8_t *p, const struct fpu_reg *r) { memcpy(p, &r->mant, 8); memcpy(p + 8, &r->sexp, 2); }
static void reg_from(struct fpu_reg *r, const uint8_t *p) { memcpy(&r->mant, p, 8); memcpy(&r->sexp, p + 8, 2); }

static const uint8_t *stub_of(const struct x87_host_insn *in)
{
	unsigned idx = (in->escape - 0xd8u) * STUBS_PER_ESCAPE +
		       (in->mem ? 64u + ((in->modrm >> 3) & 7u) : in->modrm - 0xc0u);
	return hvemu_x87_stubs + STUB_BYTES * idx;
}

static bool filled(const uint8_t *p, unsigned n, uint8_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

static unsigned long flags_in(uint64_t rflags)
{
	return 0x202ul | (unsigned long)(rflags & STATUS_FLAGS);   /* IF (as the host has it), bit 1 */
}

/* The exact path: the whole state through FRSTOR/FNSAVE. With a store form
 * (n > 0 bytes), *stored tells whether the host wrote its operand: an
 * unmasked exception may keep it from storing (#IA always, SDM Vol.1 8.5.1.2;
 * for some stores #O, #U and #P too, 8.5.4.2, 8.5.5.2). The host answers that
 * by a second run from the same image on a buffer of the opposite fill: a
 * store changes at least one of the two. Returns whether the instruction
 * raised an unmasked exception. */
static bool exec_exact(struct fpu_state *f, const struct x87_host_insn *in, uint64_t *rflags, unsigned n,
		       bool *stored)
{
	struct host_io io;
	unsigned top = (f->fsw >> FSW_TOP_SHIFT) & 7;

	memset(io.img, 0, sizeof(io.img));
	put16(io.img + IMG_FCW, (uint16_t)(f->fcw | in->fcw_or));
	put16(io.img + IMG_FSW, (uint16_t)(f->fsw & ~(FSW_EXC | FSW_SF | FSW_ES | FSW_B)));
	put16(io.img + IMG_FTW, f->ftw);
	for (unsigned i = 0; i < 8; i++)
		reg_to(io.img + IMG_ST + 10 * i, &f->r[(top + i) & 7]);
	io.stub = stub_of(in);
	io.flags = flags_in(*rflags);
	struct host_io again = io;             /* the same run, for a store's second fill */
	if (n)
		memset(in->buf, 0, n);
	exact_run(&io, in->buf);
	*rflags = io.flags & STATUS_FLAGS;
	uint16_t sw = get16(io.img + IMG_FSW);
	bool unmasked = (sw & FSW_ES) != 0;
	if (n) {
		*stored = true;
		if (unmasked) {
			uint8_t other[10];
			memset(other, 0xff, n);
			exact_run(&again, other);
			*stored = !filled(in->buf, n, 0) || !filled(other, n, 0xff);
		}
	}

	top = (sw >> FSW_TOP_SHIFT) & 7;
	/* FNSAVE writes the tags the contents give (SDM Vol.1 8.1.7). */
	f->ftw = get16(io.img + IMG_FTW);
	for (unsigned i = 0; i < 8; i++)
		reg_from(&f->r[(top + i) & 7], io.img + IMG_ST + 10 * i);
	/* SDM Vol.1 8.1.3: the exception flags and SF are sticky; ES (and B, its
	 * copy, 8.1.3.6) stays set while an unmasked exception is pending. */
	uint16_t pending = (uint16_t)((sw | f->fsw) & FSW_ES);
	f->fsw = (uint16_t)((sw & ~(FSW_ES | FSW_B)) | (f->fsw & (FSW_EXC | FSW_SF)) | pending);
	if (pending)
		f->fsw |= FSW_B;
	return unmasked;
}

static uint16_t host_fsw(void)
{
	uint16_t sw;
	__asm__ volatile("fnstsw %0" : "=m"(sw));
	return sw;
}

/* Empty the host's stack and clear its flags, keeping its control word. */
static void host_reset(void)
{
	uint16_t cw;
	__asm__ volatile("fnstcw %0\n\tfninit\n\tfldcw %0" : "=m"(cw) : : X87_CLOBBERS);
}

/* The fast path: only the operands go to the host, the instruction runs with
 * every exception masked, and the results come back with FSTP. It applies when
 * nothing can fault on the stack (every register read is in use, a push finds
 * ST(7) empty) and the guest masks underflow: a masked #U is only signalled
 * for an inexact tiny result, an unmasked one for every tiny result (SDM
 * Vol.1 4.9.1.5), so only then does the masked run raise every flag the
 * guest's run would. The host's condition codes are the guest's before the
 * instruction (they stay so from one run to the next; FLDENV when not), so
 * all four are the host's afterwards, whichever the instruction defines for
 * which operands; C1 only if the instruction writes it, since the loads of the
 * operands (FLD) clear it. The result is kept only when the host raised no exception
 * the guest has unmasked and moved TOP as the shape says (FPTAN and FSINCOS
 * push nothing for an argument out of range); otherwise the exact path runs
 * from the unchanged state. Returns whether it was kept. */
static bool exec_fast(struct fpu_state *f, const struct x87_host_insn *in, uint64_t *rflags)
{
	unsigned top = (f->fsw >> FSW_TOP_SHIFT) & 7, nin = (unsigned)(in->reads + 1);
	/* Also not with an unmasked flag already set (CR0.NE = 0 lets the guest
	 * go on with an exception pending): its instruction would give the
	 * unmasked response again, which the flags could not tell. */
	if (!(f->fcw & FCW_UM) || (f->fsw & ~f->fcw & FSW_EXC))
		return false;
	for (unsigned i = 0; i < nin; i++)
		if (((f->ftw >> (2 * ((top + i) & 7))) & 3) == TAG_EMPTY)
			return false;
	if (in->pushes && ((f->ftw >> (2 * ((top + 7) & 7))) & 3) != TAG_EMPTY)
		return false;

	struct host_io io;
	enum { CC = FSW_C0 | FSW_C1 | FSW_C2 | FSW_C3 };
	uint16_t hsw = host_fsw();
	io.fast_cw = (uint16_t)(f->fcw | in->fcw_or | FCW_EXC_MASKS);
	if ((hsw ^ f->fsw) & CC) {
		memset(io.env, 0, sizeof(io.env));
		put16(io.env, io.fast_cw);
		put16(io.env + 4, (uint16_t)((hsw & FSW_TOP_MASK) | (f->fsw & CC)));
		put16(io.env + 8, 0xffff);
		io.prepare = PREP_ENV;
	} else {
		/* The host's flags must be a subset of the guest's (all masked). */
		io.prepare = hsw & FSW_EXC & ~f->fsw ? PREP_FNCLEX : PREP_FLDCW;
	}
	for (unsigned i = 0; i < nin; i++)
		reg_to(io.in[i], &f->r[(top + i) & 7]);
	io.last_in = io.in[nin ? nin - 1 : 0];
	io.nin = nin;
	io.nout = nin + in->pushes - in->pops;
	io.stub = stub_of(in);
	io.flags = flags_in(*rflags);
	if (in->mem)
		memcpy(io.mem, in->buf, sizeof(io.mem));
	fast_run(&io, io.mem, in->eflags);

	/* The host's flags now: those the guest has (all masked) and the new ones. */
	unsigned exc = io.fast_sw & FSW_EXC;
	unsigned moved = ((hsw >> FSW_TOP_SHIFT) - nin - in->pushes + in->pops) & 7;
	if (moved != ((io.fast_sw >> FSW_TOP_SHIFT) & 7u)) {
		host_reset();          /* whatever the stores left behind */
		return false;
	}
	if (exc & ~f->fcw)
		return false;
	if (in->mem)
		memcpy(in->buf, io.mem, sizeof(io.mem));
	*rflags = io.flags & STATUS_FLAGS;
	/* Pops leave their registers' contents (FNSAVE shows them), only empty. */
	for (unsigned i = 0; i < in->pops; i++)
		f->ftw |= (uint16_t)(TAG_EMPTY << (2 * ((top + i) & 7)));
	top = (top + in->pops - in->pushes) & 7;
	for (unsigned i = 0; i < io.nout; i++) {
		unsigned p = (top + i) & 7;
		reg_from(&f->r[p], io.out[i]);
		f->ftw = (uint16_t)((f->ftw & ~(3u << (2 * p))) | fpu_tag_of(&f->r[p]) << (2 * p));
	}
	unsigned cc = in->keeps_c1 ? CC & ~FSW_C1 : CC;
	f->fsw = (uint16_t)((f->fsw & ~(FSW_TOP_MASK | cc)) | top << FSW_TOP_SHIFT | (io.fast_sw & cc) | exc);
	return true;
}

bool x87_host_exec(struct fpu_state *f, const struct x87_host_insn *in, uint64_t *rflags)
{
	if (in->reads != X87_EXACT && exec_fast(f, in, rflags))
		return false;
	return exec_exact(f, in, rflags, 0, NULL);
}

bool x87_host_store(struct fpu_state *f, const struct x87_host_insn *in, unsigned n)
{
	uint64_t fl = 0;
	bool stored;
	if (in->reads != X87_EXACT && exec_fast(f, in, &fl))
		return true;
	(void)exec_exact(f, in, &fl, n, &stored);
	return stored;
}
