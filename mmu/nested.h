/* Two-stage translation: a guest's linear address through its own paging
 * (stage 1) and then through the hypervisor's nested tables (stage 2: AMD
 * nested paging, APM2 15.25; Intel EPT, SDM Vol.3 28.2). Both stages are the
 * one walker of mmu/paging.h; the guest's walk gets a memory port whose every
 * table read, PAE PDPTE load and A/D write is itself a stage-2 translation.
 *
 *   lin --stage 1 (guest tables, each entry address a gpa)--> gpa --stage 2--> pa
 *                  |  table read:  stage-2 read  (EPT A/D on: a write)
 *                  |  A/D update:  stage-2 write
 *
 * Also here, as pure functions for svm/ and vmx/: the EPTP check of VM entry
 * and the encodings of a stage-2 fault as #VMEXIT(NPF) EXITINFO1 and as the
 * exit qualification of an EPT violation.
 */
#ifndef HVEMU_MMU_NESTED_H
#define HVEMU_MMU_NESTED_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu/paging.h"
#include "mmu/paging_formats.h"

/* The stage-2 environment of AMD nested paging: the nested tables at nCR3 in
 * the host's paging format, taken from host (the CPU's environment when VMRUN
 * ran: mode, EFER.NXE, CR4.PSE, MAXPHYADDR; APM2 15.25.4). Every nested access
 * is a user access (APM2 15.25.5), so CR0.WP, SMEP and SMAP play no part. In
 * legacy PAE format there are no nested PDPTE registers: the 4 PDPTEs at
 * nCR3[31:5] are read, and checked for reserved bits (SDM 4.4.1's PDPTE
 * format), on every walk (APM2 15.25; Bochs and QEMU model it so too). */
struct paging_env nested_npt_env(const struct paging_env *host, uint64_t ncr3);

/* The stage-2 environment of Intel EPT for an EPTP that passed
 * ept_eptp_check(): page-walk length 4 or 5 from EPTP bits 5:3, A/D from bit 6,
 * execute-only and large-page support from ept_caps (IA32_VMX_EPT_VPID_CAP),
 * mbec = the "mode-based execute control for EPT" VM-execution control. */
struct paging_env nested_ept_env(struct physmem *mem, uint64_t eptp, uint64_t ept_caps, bool mbec,
				 unsigned maxphyaddr);

/* The EPTP's fields (EPTP_*) are mmu/x86_vmx.h's. */

/* Why VM entry would reject an EPTP (SDM Vol.3 26.2.1.1), checked in
 * this order. */
enum eptp_check {
	EPTP_OK,
	EPTP_BAD_MEMTYPE,          /* bits 2:0 not a supported type (UC: cap bit 8, WB: bit 14) */
	EPTP_BAD_WALK_LENGTH,      /* bits 5:3 not 3 (cap bit 6) or 4 (cap bit 7) */
	EPTP_AD_UNSUPPORTED,       /* bit 6 set without cap bit 21 */
	EPTP_SSS_UNSUPPORTED,      /* bit 7 set without cap bit 23 */
	EPTP_RESERVED_BITS,        /* bits 11:8 or 63:MAXPHYADDR set */
};

enum eptp_check ept_eptp_check(uint64_t eptp, uint64_t ept_caps, unsigned maxphyaddr);

struct nested_result {
	struct walk_result guest;  /* stage 1: guest.pa is the guest-physical address */
	struct walk_result host;   /* stage 2 of that guest-physical address */
	uint64_t pa;               /* host-physical address of the byte */
	uint64_t page_size;        /* the smaller of the two stages' pages */
	/* Allowed by both stages with no further side effect: what a TLB may cache. */
	bool can_read, can_write, can_exec;
};

/* Translate lin for an access of kind with flags (WALK_*; WALK_PEEK holds for
 * both stages) through guest (stage 1; PAGING_OFF: lin is the guest-physical
 * address) and host (stage 2, from nested_npt_env/nested_ept_env). guest->port
 * and guest->mem are ignored: its tables are reached through host. On failure
 * *f is a #PF for the guest (stage 1) or a stage-2 fault with gla = lin (valid)
 * and final telling whether it was the final translation or an access to a
 * guest paging-structure entry. */
bool nested_walk(const struct paging_env *guest, const struct paging_env *host, uint64_t lin,
		 enum walk_kind kind, unsigned flags, struct nested_result *r, struct fault *f) CHECKED;

/* A PAE guest's MOV to CR0/CR3/CR4: its four PDPTEs at guest_cr3[31:5] (guest-
 * physical) loaded through stage 2. These loads are reads even with EPT A/D
 * enabled (SDM Vol.3 28.2.4), and a stage-2 fault has no valid linear address
 * (SDM Table 27-7 bit 7). */
enum pdpte_load nested_load_pdptes(const struct paging_env *host, uint64_t guest_cr3,
				   unsigned guest_maxphyaddr, uint64_t pdpte[4],
				   struct fault *f) CHECKED;

/* #VMEXIT(NPF) EXITINFO1 (APM2 15.25.6): the #PF error code bits of the nested
 * access (P, RW, US, RSVD, ID) and bit 32 (the fault was on the final guest-
 * physical address) or bit 33 (on a guest page-table access). EXITINFO2 is
 * f->nested.gpa. */
#define NPF_INFO1_FINAL       (1ull << 32)
#define NPF_INFO1_GUEST_WALK  (1ull << 33)
uint64_t npf_exitinfo1(const struct fault *f);

/* Exit qualification of an EPT violation (SDM Vol.3 27.2.1, Table 27-7): bits
 * 0-2 the access (R/W/X), 3-5 the R/W/X rights of the entries, 6 user-mode
 * execute (MBEC), 7 guest-linear address valid, 8 final translation (vs. a
 * guest paging-structure access), and with advanced_info (EPT_VPID_CAP bit 22)
 * for a final translation bits 9-11: user-mode, writable and execute-disable
 * linear address. Bit 12 (NMI unblocking due to IRET) is the VMX model's. The
 * guest-physical address is f->nested.gpa, the guest-linear one
 * f->nested.gla. An EPT misconfiguration (f->nested.misconfig) has no
 * qualification. */
#define EPT_QUAL_READ         (1ull << 0)
#define EPT_QUAL_WRITE        (1ull << 1)
#define EPT_QUAL_FETCH        (1ull << 2)
#define EPT_QUAL_READABLE     (1ull << 3)
#define EPT_QUAL_WRITABLE     (1ull << 4)
#define EPT_QUAL_EXECUTABLE   (1ull << 5)
#define EPT_QUAL_USER_EXEC    (1ull << 6)
#define EPT_QUAL_GLA_VALID    (1ull << 7)
#define EPT_QUAL_FINAL        (1ull << 8)
#define EPT_QUAL_GLA_USER     (1ull << 9)
#define EPT_QUAL_GLA_WRITABLE (1ull << 10)
#define EPT_QUAL_GLA_NX       (1ull << 11)
uint64_t ept_violation_qualification(const struct fault *f, bool advanced_info);

#endif
