/* An exception raised by a translation or descriptor check, handed up to the CPU
 * core, which decides whether it is delivered or becomes a VM exit.
 *
 * A two-stage (nested paging) translation fails in one of two stages:
 *   stage 1, the guest's own paging: an ordinary #PF for the guest (vector,
 *            error code, address = the linear address, CR2);
 *   stage 2, the hypervisor's nested tables (AMD NPT, Intel EPT): no guest
 *            exception; `nested` carries what #VMEXIT(NPF) (APM2 15.25.6) and
 *            an EPT violation or misconfiguration (SDM Vol.3 28.2.3, Table
 *            27-7) report, and mmu/nested.h encodes it for svm/ and vmx/.
 */
#ifndef HVEMU_MMU_FAULT_H
#define HVEMU_MMU_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#define CHECKED __attribute__((warn_unused_result))

enum fault_stage {
	FAULT_STAGE1 = 0,          /* an exception for the CPU that made the access */
	FAULT_STAGE2 = 1,          /* a nested-paging fault for the hypervisor model */
};

/* The access a stage-2 fault was for (struct fault_nested.access). An EPT
 * access to a guest paging-structure entry with EPT A/D enabled is both a read
 * and a write (SDM Table 27-7, note to bit 1). */
enum {
	S2_ACC_READ = 1u << 0,
	S2_ACC_WRITE = 1u << 1,
	S2_ACC_FETCH = 1u << 2,
};

/* The rights the stage-2 entries granted, combined over the entries read
 * (struct fault_nested.rights).
 *   EPT: R, W, X ANDed (bits 0-2 of each entry; X is supervisor-mode execute
 *        under mode-based execute control) and UX (bit 10, user-mode execute,
 *        MBEC only), in the order of Table 27-7 bits 3-6.
 *   NPT: P (every entry read was present), RW and US ANDed, NX ORed. */
enum {
	S2_RIGHT_R = 1u << 0, S2_RIGHT_W = 1u << 1, S2_RIGHT_X = 1u << 2, S2_RIGHT_UX = 1u << 3,
	S2_RIGHT_P = 1u << 4, S2_RIGHT_RW = 1u << 5, S2_RIGHT_US = 1u << 6, S2_RIGHT_NX = 1u << 7,
};

/* What a stage-2 fault reports (stage == FAULT_STAGE2). */
struct fault_nested {
	uint64_t gpa;              /* guest-physical address whose translation failed */
	uint64_t gla;              /* guest-linear address of the access, if gla_valid */
	bool gla_valid;            /* false for PDPTE loads by MOV CR (SDM Table 27-7 bit 7) */
	bool final;                /* the final translation of gla; false: an access to a
	                              guest paging-structure entry (walk, A/D update,
	                              PDPTE load) */
	bool ept;                  /* EPT (else NPT) tables */
	bool misconfig;            /* EPT misconfiguration (SDM 28.2.3.1), not a violation */
	bool rsvd;                 /* NPT: a reserved bit in a nested entry (#NPF RSVD) */
	bool pml_full;             /* EPT: the page-modification log was full (SDM 28.2.5):
	                              no violation, a "page-modification log full" event */
	uint8_t access;            /* S2_ACC_*: what was attempted */
	uint8_t rights;            /* S2_RIGHT_*: what the entries allowed */
	/* Final translations only: the guest's own rights for gla (combined over
	 * its paging-structure entries), for the "advanced" EPT exit information
	 * (Table 27-7 bits 9-11). */
	bool gla_user, gla_writable, gla_nx;
};

struct fault {
	uint8_t vector;            /* EXC_* (stage 1) */
	bool has_error;            /* pushes an error code (SDM Vol.3 6.13) */
	uint32_t error_code;       /* stage 1: the exception's; NPT stage 2: the #PF-style
	                              code of the nested access (P, RW, US, RSVD, ID) */
	uint64_t address;          /* #PF: the faulting linear address (becomes CR2) */
	uint8_t stage;             /* enum fault_stage */
	struct fault_nested nested;
};

static inline struct fault fault_make(uint8_t vector, uint32_t error_code)
{
	return (struct fault){ .vector = vector, .has_error = true, .error_code = error_code };
}

static inline struct fault fault_noerr(uint8_t vector)
{
	return (struct fault){ .vector = vector };
}

#endif
