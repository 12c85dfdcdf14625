/* The x87 FPU, SSE and XSAVE-managed register file, and the memory images
 * hypervisors save it in: the FXSAVE area (SDM Vol.1 10.5.1, Table 10-2) and the
 * XSAVE area's legacy region and header (SDM Vol.1 13.4). The images are
 * declared as packed structs whose offsets are checked against the manual's
 * tables, so a reviewer can diff a field against the SDM row.
 *
 * The x87 registers are kept PHYSICALLY (R0-R7, SDM Vol.1 8.1.2): ST(i) is
 * R((TOP + i) mod 8), TOP lives in FSW[13:11], and the tag word has two bits per
 * physical register, as FSTENV/FSAVE write it.
 */
#ifndef HVEMU_EMU_FPU_STATE_H
#define HVEMU_EMU_FPU_STATE_H

#include <stddef.h>
#include <stdint.h>

/* An 80-bit double extended-precision value (SDM Vol.1 4.2.2, Figure 4-3):
 * 64-bit significand with explicit integer bit 63, then sign (bit 15) and
 * 15-bit biased exponent. */
struct fpu_reg {
	uint64_t mant;             /* significand, bit 63 = integer bit J */
	uint16_t sexp;             /* bit 15 sign, bits 14:0 biased exponent (bias 16383) */
};

/* An XMM register: 128 bits, little-endian, viewed as bytes or quadwords. */
union xmm_reg {
	uint8_t b[16];
	uint16_t w[8];
	uint32_t d[4];
	uint64_t q[2];
};

/* A YMM register as one value (SDM Vol.1 14.1.1): x[0] is XMMi (bits 127:0),
 * x[1] bits 255:128. */
union ymm_reg {
	uint8_t b[32];
	uint16_t w[16];
	uint32_t d[8];
	uint64_t q[4];
	union xmm_reg x[2];
};

/* x87 control word FCW (SDM Vol.1 8.1.5, Figure 8-6). */
enum {
	FCW_IM = 1u << 0, FCW_DM = 1u << 1, FCW_ZM = 1u << 2, FCW_OM = 1u << 3,
	FCW_UM = 1u << 4, FCW_PM = 1u << 5,       /* exception masks */
	FCW_EXC_MASKS = 0x3f,
	FCW_PC_SHIFT = 8,                         /* precision control, 2 bits */
	FCW_RC_SHIFT = 10,                        /* rounding control, 2 bits */
	FCW_X = 1u << 12,                         /* infinity control (287 only) */
	FCW_INIT = 0x037f,                        /* after FNINIT (SDM Vol.1 8.1.5) */
	FCW_RESET = 0x0040,                       /* after RESET (SDM Vol.3 9.1.1 Table 9-1) */
};

/* x87 status word FSW (SDM Vol.1 8.1.3, Figure 8-4). */
enum {
	FSW_IE = 1u << 0, FSW_DE = 1u << 1, FSW_ZE = 1u << 2, FSW_OE = 1u << 3,
	FSW_UE = 1u << 4, FSW_PE = 1u << 5,       /* exception flags */
	FSW_EXC = 0x3f,
	FSW_SF = 1u << 6,                         /* stack fault (with IE) */
	FSW_ES = 1u << 7,                         /* exception summary: an unmasked flag is set */
	FSW_C0 = 1u << 8, FSW_C1 = 1u << 9, FSW_C2 = 1u << 10,
	FSW_TOP_SHIFT = 11,                       /* TOP, 3 bits */
	FSW_TOP_MASK = 7u << 11,
	FSW_C3 = 1u << 14,
	FSW_B = 1u << 15,                         /* busy: mirrors ES (SDM Vol.1 8.1.3.6) */
};

/* Tag values, two bits per physical register (SDM Vol.1 8.1.7, Figure 8-7). */
enum { TAG_VALID = 0, TAG_ZERO = 1, TAG_SPECIAL = 2, TAG_EMPTY = 3 };

/* MXCSR (SDM Vol.1 10.2.3, Figure 10-3). Bits 31:16 are reserved: a 1 there is
 * #GP for LDMXCSR, FXRSTOR and XRSTOR. DAZ (bit 6) is implemented, so the
 * MXCSR_MASK the FXSAVE image reports is 0000FFFFH (SDM Vol.1 11.6.6). */
enum {
	MXCSR_IE = 1u << 0, MXCSR_DE = 1u << 1, MXCSR_ZE = 1u << 2, MXCSR_OE = 1u << 3,
	MXCSR_UE = 1u << 4, MXCSR_PE = 1u << 5,   /* exception flags (sticky) */
	MXCSR_FLAGS = 0x3f,
	MXCSR_DAZ = 1u << 6,                      /* denormal operands are zero */
	MXCSR_MASK_SHIFT = 7,                     /* IM..PM: bits 12:7, flag bit i << 7 */
	MXCSR_MASKS = 0x3fu << 7,
	MXCSR_OM = 1u << 10, MXCSR_UM = 1u << 11,
	MXCSR_RC = 3u << 13,                      /* rounding control */
	MXCSR_FTZ = 1u << 15,                     /* flush tiny masked-underflow results to 0 */
	MXCSR_RESET = 0x1f80,                     /* all exceptions masked, RC nearest */
	MXCSR_MASK = 0x0000ffff,                  /* writable bits */
};

/* XCR0 state-component bits (SDM Vol.1 13.1, 13.3). x87, SSE and AVX (YMM_Hi128)
 * are implemented; a model allows the ones its CPUID.(EAX=0DH,ECX=0):EAX lists
 * (AVX only where it advertises AVX). */
enum {
	XSTATE_X87 = 1u << 0,
	XSTATE_SSE = 1u << 1,
	XSTATE_AVX = 1u << 2,
	XSTATE_SUPPORTED = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX,
};

/* The register file. */
struct fpu_state {
	/* --- x87 (SDM Vol.1 8.1) --- */
	uint16_t fcw;              /* control word */
	uint16_t fsw;              /* status word, TOP in bits 13:11 */
	uint16_t ftw;              /* full tag word: 2 bits per physical register R0..R7 */
	uint16_t fop;              /* last non-control instruction's opcode, 11 bits (8.1.9) */
	uint64_t fip;              /* its instruction pointer (offset in CS) */
	uint64_t fdp;              /* its memory operand's offset (8.1.8) */
	uint16_t fcs;              /* its CS selector */
	uint16_t fds;              /* its memory operand's segment selector */
	struct fpu_reg r[8];       /* physical data registers R0..R7 */

	/* --- SSE (SDM Vol.1 10.2) --- */
	uint32_t mxcsr;            /* control/status */
	union xmm_reg xmm[16];     /* XMM0-7; XMM8-15 in 64-bit mode */

	/* --- AVX (SDM Vol.1 14.1.1): bits 255:128 of YMM0-15, XSAVE state
	 * component 2; bits 127:0 are xmm[] --- */
	union xmm_reg ymm_hi[16];
};

/* ---- the FXSAVE image (SDM Vol.1 10.5.1, Table 10-2 and 10-3) ---- */

/* One 16-byte ST(i)/MMi slot: the 80-bit value, then 6 reserved bytes. */
struct __attribute__((packed)) fxsave_st {
	uint64_t mant;
	uint16_t sexp;
	uint8_t reserved[6];
};

/* The 512-byte image, 16-byte aligned. Two formats differ in bytes 8-23: the
 * 32-bit one (FIP/FCS, FDP/FDS) and the 64-bit one (REX.W: 64-bit FIP and FDP). */
struct __attribute__((packed)) fxsave_area {
	uint16_t fcw;              /*   0 */
	uint16_t fsw;              /*   2 */
	uint8_t ftw;               /*   4: abridged tag, 1 bit per register = not empty */
	uint8_t reserved5;         /*   5 */
	uint16_t fop;              /*   6 */
	union {
		struct __attribute__((packed)) {
			uint32_t fip;      /*   8 */
			uint16_t fcs;      /*  12 */
			uint16_t reserved14;
			uint32_t fdp;      /*  16 */
			uint16_t fds;      /*  20 */
			uint16_t reserved22;
		} f32;
		struct __attribute__((packed)) {
			uint64_t fip;      /*   8 */
			uint64_t fdp;      /*  16 */
		} f64;
	} ptr;
	uint32_t mxcsr;            /*  24 */
	uint32_t mxcsr_mask;       /*  28 */
	struct fxsave_st st[8];    /*  32: ST0/MM0 .. ST7/MM7, 16 bytes each */
	uint8_t xmm[16][16];       /* 160: XMM0 .. XMM15 (XMM8-15 in 64-bit mode only) */
	uint8_t reserved416[48];   /* 416 */
	uint8_t available[48];     /* 464: for software, never written */
};

_Static_assert(offsetof(struct fxsave_area, fcw) == 0, "SDM Table 10-2 FCW");
_Static_assert(offsetof(struct fxsave_area, fsw) == 2, "SDM Table 10-2 FSW");
_Static_assert(offsetof(struct fxsave_area, ftw) == 4, "SDM Table 10-2 FTW");
_Static_assert(offsetof(struct fxsave_area, fop) == 6, "SDM Table 10-2 FOP");
_Static_assert(offsetof(struct fxsave_area, ptr.f32.fip) == 8, "SDM Table 10-2 FIP");
_Static_assert(offsetof(struct fxsave_area, ptr.f32.fcs) == 12, "SDM Table 10-2 FCS");
_Static_assert(offsetof(struct fxsave_area, ptr.f32.fdp) == 16, "SDM Table 10-2 FDP");
_Static_assert(offsetof(struct fxsave_area, ptr.f32.fds) == 20, "SDM Table 10-2 FDS");
_Static_assert(offsetof(struct fxsave_area, ptr.f64.fip) == 8, "SDM Table 10-3 FIP 64");
_Static_assert(offsetof(struct fxsave_area, ptr.f64.fdp) == 16, "SDM Table 10-3 FDP 64");
_Static_assert(offsetof(struct fxsave_area, mxcsr) == 24, "SDM Table 10-2 MXCSR");
_Static_assert(offsetof(struct fxsave_area, mxcsr_mask) == 28, "SDM Table 10-2 MXCSR_MASK");
_Static_assert(offsetof(struct fxsave_area, st) == 32, "SDM Table 10-2 ST0/MM0");
_Static_assert(offsetof(struct fxsave_area, st[7]) == 144, "SDM Table 10-2 ST7/MM7");
_Static_assert(offsetof(struct fxsave_area, xmm) == 160, "SDM Table 10-2 XMM0");
_Static_assert(offsetof(struct fxsave_area, xmm[7]) == 272, "SDM Table 10-2 XMM7");
_Static_assert(offsetof(struct fxsave_area, xmm[15]) == 400, "SDM Table 10-2 XMM15");
_Static_assert(offsetof(struct fxsave_area, available) == 464, "SDM Table 10-2 available");
_Static_assert(sizeof(struct fxsave_area) == 512, "SDM 10.5.1: 512-byte image");

/* ---- the XSAVE area (SDM Vol.1 13.4) ---- */

/* The XSAVE header at byte 512 (SDM Vol.1 13.4.2). */
struct __attribute__((packed)) xsave_header {
	uint64_t xstate_bv;        /* 512: components saved (0: in init state) */
	uint64_t xcomp_bv;         /* 520: compaction; 0 for the standard form */
	uint64_t reserved[6];      /* 528: must be 0 (bytes 23:8 checked by XRSTOR) */
};

/* Legacy region + header: the whole area for XCR0 = x87|SSE. */
struct __attribute__((packed)) xsave_area {
	struct fxsave_area legacy; /*   0: same layout as FXSAVE (13.4.1) */
	struct xsave_header hdr;   /* 512 */
};

_Static_assert(offsetof(struct xsave_area, hdr.xstate_bv) == 512, "SDM 13.4.2 XSTATE_BV");
_Static_assert(offsetof(struct xsave_area, hdr.xcomp_bv) == 520, "SDM 13.4.2 XCOMP_BV");
_Static_assert(sizeof(struct xsave_area) == 576, "SDM 13.4: legacy region + header");
#define XSAVE_AREA_SIZE 576u       /* CPUID.(EAX=0DH,ECX=0):EBX/ECX for x87|SSE */

/* ---- the x87 environment images of FSTENV/FSAVE (SDM Vol.1 8.1.10, Figures
 * 8-9..8-12): 14 bytes with a 16-bit operand size, 28 with 32-bit; FSAVE adds
 * the eight registers ST(0)..ST(7), 10 bytes each, in stack order. ---- */
#define FPU_ENV16_SIZE 14u
#define FPU_ENV32_SIZE 28u
#define FPU_SAVE_REGS_SIZE 80u

struct cpu;

/* RESET state (SDM Vol.3 9.1.1 Table 9-1): FCW 0040H, FSW 0, FTW 5555H (all
 * registers tagged "zero" holding +0.0), pointers 0; MXCSR 1F80H; XMM 0; XCR0 is
 * 1 (x87 only), set by the caller. */
void fpu_reset(struct fpu_state *f);

/* FNINIT (SDM Vol.2 FINIT/FNINIT): FCW 037FH, FSW 0, FTW FFFFH (empty), pointers 0.
 * The data registers and SSE state are unchanged. */
void fpu_init_x87(struct fpu_state *f);

/* Tag of a physical register computed from its contents (SDM Vol.1 8.1.7):
 * valid, zero or special (NaN, infinity, denormal, unsupported). */
unsigned fpu_tag_of(const struct fpu_reg *r);

/* Abridged FXSAVE tag byte (bit i = R(i) not empty) from the full tag word, and
 * the full tag word from an abridged byte and the register contents (SDM Vol.1
 * 10.5.1.1). */
uint8_t fpu_tag_abridge(uint16_t ftw);
uint16_t fpu_tag_expand(uint8_t abridged, const struct fpu_reg r[8]);

/* Fill / load an FXSAVE image in host memory (no guest access, no checks): the
 * bytes the instruction defines. nxmm is 8 or 16; wide selects the 64-bit
 * (REX.W) pointer format. fxsave_from_image returns 0 if MXCSR has a reserved bit
 * set (the caller raises #GP and nothing is loaded). */
void fxsave_to_image(const struct fpu_state *f, struct fxsave_area *img, unsigned nxmm, int wide,
		     uint64_t components);
int fxsave_from_image(struct fpu_state *f, const struct fxsave_area *img, unsigned nxmm, int wide,
		      uint64_t components);

/* XCR0 validity (SDM Vol.2 XSETBV, SDM Vol.1 13.3): bit 0 set, only supported
 * bits, and never AVX without SSE. */
int xcr0_valid(uint64_t value, uint64_t supported);

#endif
