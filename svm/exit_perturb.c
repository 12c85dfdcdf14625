/* Odd but legal #VMEXITs: svm/exit_perturb.h. The rules are the APM vol.2's
 * (rev. 3.42 numbering, as tests/guests/svm/ uses): 15.6 ("the contents of
 * the EXITINFO1 and EXITINFO2 fields are undefined for intercepts where
 * their use is not indicated"), the intercept sections that indicate them
 * (15.8-15.14, 15.25.6), 15.7.2/15.7.3 (EXITINTINFO) and 15.8.4 (guest
 * instruction bytes).
 *
 * Of the guest state only #DF's saved rIP (15.12.9) is perturbed; a
 * shutdown's whole saved state is undefined too (15.14.3), but an L1 that
 * resumes after a shutdown exit has no state to resume from either way.
 *
 * Not perturbed, because the APM defines them: nRIP (15.7.1: the next rIP,
 * or "reset to zero" on the other intercepts), the byte count of the guest
 * instruction bytes (15.8.4: 15 unless a fetch faults, 0 on other
 * intercepts), EXITINTINFO's V and its reserved bits 30:12, IOIO's and NPF's
 * EXITINFO1/2 (15.10.2, 15.25.6 call none of their bits undefined; reserved
 * is not undefined). Reserved VMCB bytes are the software's ("SBZ"), not
 * undefined exit information. */
#include "svm/exit_perturb.h"
#include "emu/perturb_random.h"
#include "svm/exit_codes.h"
#include "svm/model.h"

/* What an intercept's section says of one EXITINFO field. */
enum info_rule {
	KEEP,        /* defined (or an exit code this table does not know) */
	UNDEF,       /* not indicated: undefined (15.6) */
	DECODE,      /* a decode assist (15.8): defined with DecodeAssists, else not indicated */
	ERROR_CODE,  /* exceptions: the error code of one that defines it (15.12) */
	PF_ADDRESS,  /* exceptions: #PF's faulting address (15.12.15) */
	SMI_IO,      /* SMI: the I/O description, undefined unless VAL (15.13.3) */
	TS_ERROR,    /* task switch: 31:0 the error code if bit 44, else undefined (15.14.1) */
};

/* One range of exit codes (APM2 Appendix C) and its EXITINFO1/2 rules. */
static const struct {
	uint16_t first, last;
	uint8_t info1, info2;      /* enum info_rule */
} rules[] = {
	/* 15.8.1: MOV CRx/DRx give the GPR in EXITINFO1 (decode assists). */
	{ SVM_EXIT_CR_READ, SVM_EXIT_DR_WRITE + 15, DECODE, UNDEF },
	/* 15.12: the error code in EXITINFO1 "when intercepting exceptions that
	 * define an error code"; EXITINFO2 only for #PF (15.12.15); every other
	 * subsection: "The EXITINFO1 and EXITINFO2 fields are undefined". */
	{ SVM_EXIT_EXCEPTION, SVM_EXIT_EXCEPTION + 31, ERROR_CODE, PF_ADDRESS },
	/* 15.13.1, 15.13.2: INTR and NMI indicate neither. */
	{ SVM_EXIT_INTR, SVM_EXIT_NMI, UNDEF, UNDEF },
	/* 15.13.3: bit 0 SMISRC, bit 1 MCREDIR, bit 33 VAL; "If the SMI wasn't
	 * asserted during an I/O instruction, the extra EXITINFO1 and EXITINFO2
	 * bits are undefined". */
	{ SVM_EXIT_SMI, SVM_EXIT_SMI, SMI_IO, SMI_IO },
	/* 15.13.4, 15.13.5: INIT and VINTR indicate neither. */
	{ SVM_EXIT_INIT, SVM_EXIT_VINTR, UNDEF, UNDEF },
	/* 15.8.1 (MOV-to-CR0 special case): the selective CR0 write. */
	{ SVM_EXIT_CR0_SEL_WRITE, SVM_EXIT_CR0_SEL_WRITE, DECODE, UNDEF },
	/* 15.9 Table 15-7: descriptor-table accesses, RDTSC, RDPMC, PUSHF, POPF,
	 * CPUID, RSM, IRET indicate neither. */
	{ SVM_EXIT_IDTR_READ, SVM_EXIT_IRET, UNDEF, UNDEF },
	/* 15.8.2: INTn's vector (decode assists). */
	{ SVM_EXIT_SWINT, SVM_EXIT_SWINT, DECODE, UNDEF },
	{ SVM_EXIT_INVD, SVM_EXIT_HLT, UNDEF, UNDEF },
	/* 15.8.3: INVLPG's linear address (decode assists); INVLPGA's "is not
	 * provided in EXITINFO1". */
	{ SVM_EXIT_INVLPG, SVM_EXIT_INVLPG, DECODE, UNDEF },
	{ SVM_EXIT_INVLPGA, SVM_EXIT_INVLPGA, UNDEF, UNDEF },
	/* 15.10.2: IOIO defines both (EXITINFO1 Figure 15-2, EXITINFO2 the next rIP). */
	{ SVM_EXIT_IOIO, SVM_EXIT_IOIO, KEEP, KEEP },
	/* 15.11: EXITINFO1 0 = RDMSR, 1 = WRMSR; EXITINFO2 not indicated. */
	{ SVM_EXIT_MSR, SVM_EXIT_MSR, KEEP, UNDEF },
	/* 15.14.1: EXITINFO1[15:0] the TSS selector, EXITINFO2[63:32] the flags. */
	{ SVM_EXIT_TASK_SWITCH, SVM_EXIT_TASK_SWITCH, KEEP, TS_ERROR },
	/* 15.14.2, 15.14.3 (FERR_FREEZE, shutdown), 15.9 Table 15-7 (VMRUN,
	 * VMMCALL, VMLOAD, VMSAVE, STGI, CLGI, SKINIT, RDTSCP, ICEBP, WBINVD,
	 * MONITOR, MWAIT, MWAIT conditional, XSETBV, RDPRU) indicate neither. */
	{ SVM_EXIT_FERR_FREEZE, SVM_EXIT_RDPRU, UNDEF, UNDEF },
	/* Everything else (NPF, the traps, AVIC, VMEXIT_INVALID...): KEEP. */
};

/* APM2 8.2 (each vector's description, via 15.12): the exceptions that push
 * an error code: #DF, #TS, #NP, #SS, #GP, #PF, #AC, #CP, #VC, #SX. 15.12.9 and
 * 15.12.11 call #DF's and #TS's EXITINFO1 undefined, against 15.12's own
 * rule; a field one sentence defines is kept. */
static bool defines_error_code(unsigned vector)
{
	return vector == 8 || (vector >= 10 && vector <= 14) || vector == 17 || vector == 21 || vector == 29 ||
	       vector == 30;
}

/* 15.13.3 Figure 15-3: PORT 63:48, BRP 47:44, TF 43, A64-A16 41:39,
 * SZ32-SZ8 38:36, REP 35, STR 34, TYPE 32 (42 is RAZ, 33 is VAL). */
#define SMI_IO_BITS 0xfffffbfd00000000ull
#define SMI_VAL (1ull << 33)

/* The undefined bits of one EXITINFO field under rule r. */
static uint64_t undefined_bits(enum info_rule r, bool info2, const struct svm_perturb_ctx *ctx,
			       const struct svm_exit *x)
{
	unsigned vector = (unsigned)(x->code - SVM_EXIT_EXCEPTION);
	switch (r) {
	case UNDEF:
		return UINT64_MAX;
	case DECODE:
		return ctx->decode_assists ? 0 : UINT64_MAX;
	case ERROR_CODE:
		return defines_error_code(vector) ? 0 : UINT64_MAX;
	case PF_ADDRESS:
		return vector == EXC_PF ? 0 : UINT64_MAX;
	case SMI_IO:
		if (x->info1 & SMI_VAL)
			return 0;
		return info2 ? UINT64_MAX : SMI_IO_BITS;
	case TS_ERROR:
		return (x->info2 & SVM_TASK_SWITCH_HAS_ERROR) ? 0 : 0xffffffffull;
	case KEEP:
		break;
	}
	return 0;
}

/* EXITINTINFO (15.7.2, Figure 15-1). */
#define INTINFO_VALID  (1ull << 31)
#define INTINFO_EV     (1ull << 11)
#define INTINFO_ERROR  0xffffffff00000000ull

/* 15.7.3: on a delivery that succeeds, "EXITINTINFO.V = 0": only V is
 * cleared, the word otherwise keeps the last event the guest delivered.
 * So an exit with V = 0 may show any event's VECTOR, TYPE (Table 15-1: 0,
 * 2, 3, 4), EV and ERRORCODE; this one is drawn from the generator. */
static uint64_t leftover_event(uint64_t *state)
{
	static const uint8_t types[] = { 0, 2, 3, 4 };
	uint64_t r = perturb_random_next(state);
	unsigned type = types[r & 3];
	unsigned vector = (unsigned)(r >> 8) & 0xff;
	if (type == 2)
		vector = 2;                        /* an NMI's vector is 2 */
	else if (type == 3 && ((vector &= 31) == 2))
		vector = 3;                        /* exceptions are 0-31, not 2 */
	uint64_t w = vector | ((uint64_t)type << 8);
	if (type == 3 && ((r >> 16) & 1))
		w |= INTINFO_EV;
	return w | (perturb_random_next(state) & INTINFO_ERROR);
}

unsigned svm_perturb_exit(uint64_t *state, const struct svm_perturb_ctx *ctx, struct svm_exit *x)
{
	if (x->code == SVM_EXIT_INVALID)
		return 0;
	unsigned changed = 0;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (x->code < rules[i].first || x->code > rules[i].last)
			continue;
		/* Both masks from the exit as the model wrote it (SMI's VAL and
		 * the task switch's bit 44 stay as they are). */
		uint64_t u1 = undefined_bits((enum info_rule)rules[i].info1, false, ctx, x);
		uint64_t u2 = undefined_bits((enum info_rule)rules[i].info2, true, ctx, x);
		if (u1) {
			x->info1 = (x->info1 & ~u1) | (perturb_random_next(state) & u1);
			changed |= SVM_PERTURB_EXITINFO1;
		}
		if (u2) {
			x->info2 = (x->info2 & ~u2) | (perturb_random_next(state) & u2);
			changed |= SVM_PERTURB_EXITINFO2;
		}
		break;
	}
	/* 15.12.9: for #DF "The rIP value saved in the VMCB is undefined (as is
	 * the case for the rIP value pushed on the stack for #DF exceptions)". */
	if (x->code == SVM_EXIT_EXCEPTION + EXC_DF) {
		x->guest_rip = perturb_random_next(state);
		changed |= SVM_PERTURB_RIP;
	}
	/* 15.7.2: ERRORCODE (63:32) "If EV is set to 1, holds the error code
	 * ...; otherwise is undefined". With V = 0, 15.7.3 above. */
	if (!(x->intinfo & INTINFO_VALID)) {
		x->intinfo = (x->intinfo & ~(INTINFO_ERROR | INTINFO_EV | 0x7ffull)) | leftover_event(state);
		changed |= SVM_PERTURB_INTINFO;
	} else if (!(x->intinfo & INTINFO_EV)) {
		x->intinfo = (x->intinfo & ~INTINFO_ERROR) | (perturb_random_next(state) & INTINFO_ERROR);
		changed |= SVM_PERTURB_INTINFO;
	}
	/* 15.8.4: the Guest Instruction Bytes field records the bytes fetched
	 * (a count in 3:0); "All other intercepts clear bits 7:0 in this field
	 * to zero ...; implementations may leave the other bytes untouched".
	 * The bytes past the count are no part of what is recorded. */
	if (ctx->decode_assists) {
		unsigned count = x->insn_len & 0xf;
		if (count > sizeof(x->insn_bytes))
			count = sizeof(x->insn_bytes);
		if (count < sizeof(x->insn_bytes)) {
			uint64_t r = 0;
			for (unsigned b = count; b < sizeof(x->insn_bytes); b++) {
				if ((b - count) % 8 == 0)
					r = perturb_random_next(state);
				x->insn_bytes[b] = (uint8_t)(r >> (8 * ((b - count) % 8)));
			}
			changed |= SVM_PERTURB_INSN_BYTES;
		}
	}
	return changed;
}
