/* The batch format between svm_exit_diff (the host) and the runner guest
 * (fuzz/runner/svm_exit_runner.c, an L1 hypervisor under QEMU or hvemu).
 * Shared by both sides: plain fixed-width fields, little-endian, every
 * item 4-byte aligned.
 *
 * The batch, a multiboot module:
 *   struct sxb_header
 *   n_pages x { uint32_t pa; uint8_t bytes[4096]; }    the L2 world as the
 *       fuzzer's snapshot holds it (fuzz/svm_exit_machine.c): every page of
 *       [0, SXB_WORLD_TOP) that is not all zeros; the others are zeros
 *   n_inputs x struct sxb_input, each followed by
 *       n_dirty x uint32_t               pages to restore after the input
 *                                        (those hvemu's model dirtied)
 *       n_writes x { struct sxb_write; bytes, padded to 4 }
 *
 * The output, on the debug console (port 402h, QEMU's isa-debugcon):
 *   struct sxb_out_header (the CPUID words the oracle reads)
 *   n_inputs x struct sxb_record
 *   struct sxb_trailer
 * and a struct sxb_stray before a record where a periodic check found a
 * page of the L2 world the restore missed.
 */
#ifndef HVEMU_FUZZ_SVM_EXIT_BATCH_H
#define HVEMU_FUZZ_SVM_EXIT_BATCH_H

#include <stdint.h>

#define SXB_MAGIC 0x31425853u            /* "SXB1": a batch */
#define SXB_OUT_MAGIC 0x31485853u        /* "SXH1": the output header */
#define SXB_RECORD_MAGIC 0x31525853u     /* "SXR1": one exit record */
#define SXB_STRAY_MAGIC 0x31535853u      /* "SXS1": a page the restore missed */
#define SXB_END_MAGIC 0x31455853u        /* "SXE1": the batch ran to its end */
#define SXB_WORLD_TOP 0x200000u          /* the L2 world the runner restores */
#define SXB_PAGE 4096u

struct sxb_header {
	uint32_t magic;
	uint32_t n_inputs;
	uint32_t n_pages;
	uint32_t timeout;                  /* APIC timer count (divide by 1) of the hang guard */
	uint32_t check_every;              /* compare the whole L2 world every n inputs (0: never) */
	uint32_t reserved[3];
};

struct sxb_input {
	uint32_t size;                     /* bytes of this input, this header included */
	uint32_t index;                    /* the driver's number of the input */
	uint32_t n_dirty;
	uint32_t n_writes;
};

struct sxb_write {
	uint32_t pa;                       /* below SXB_WORLD_TOP */
	uint32_t len;
};

struct sxb_out_header {
	uint32_t magic;
	uint32_t cpuid1_ecx, cpuid1_edx, cpuid7_ebx, cpuid7_ecx, cpuid81_ecx, cpuid81_edx;
	uint32_t svm_edx, cpuid88_eax;     /* Fn8000_000A_EDX, Fn8000_0008_EAX */
	uint32_t n_inputs;
};

#define SXR_INTR 1u                      /* the hang guard's interrupt ended the guest */
#define SXR_HALTED 2u                    /* ... sitting after a HLT: it halted */
#define SXR_RETRIED 4u                   /* the guard fired once and the input ran again */

/* What the runner sends of the VMCB after the #VMEXIT. */
#define SXR_CONTROL_BYTES 0x100u         /* control area 000h-0FFh: EXITCODE ... insn bytes */
#define SXR_SAVE_OFFSET 0x400u
#define SXR_SAVE_BYTES 0x300u            /* state-save area 400h-6FFh */

struct sxb_record {
	uint32_t magic;
	uint32_t index;
	uint32_t flags;                    /* SXR_* */
	uint32_t reserved;
	uint8_t control[SXR_CONTROL_BYTES];
	uint8_t save[SXR_SAVE_BYTES];
};

struct sxb_stray {
	uint32_t magic;
	uint32_t pa;                       /* the page */
	uint32_t first_index, last_index;  /* the inputs since the last check, or both
					      SXB_STRAY_READ_ONLY: the page is not RAM */
};
#define SXB_STRAY_READ_ONLY 0xffffffffu

struct sxb_trailer {
	uint32_t magic;
	uint32_t n_records;
};

#endif
