/* A stage-2 fault as each vendor reports it (see nested.h): pure functions of
 * struct fault, called by svm/ and vmx/ when they build the exit. */
#include "mmu/nested.h"

uint64_t npf_exitinfo1(const struct fault *f)
{
	/* APM2 15.25.6: EXITINFO1 holds a #PF-style error code for the nested
	 * access (P: the nested entry was present, RW: a write, US: always 1 since
	 * nested accesses are user accesses, RSVD, ID: a fetch) and says which
	 * translation failed: bit 32 the final guest-physical address, bit 33 a
	 * guest page-table access. */
	uint64_t info = f->error_code & (PFEC_P | PFEC_W | PFEC_U | PFEC_RSVD | PFEC_I);
	return info | (f->nested.final ? NPF_INFO1_FINAL : NPF_INFO1_GUEST_WALK);
}

uint64_t ept_violation_qualification(const struct fault *f, bool advanced_info)
{
	/* SDM Vol.3 27.2.1, Table 27-7. */
	const struct fault_nested *n = &f->nested;
	uint64_t q = 0;
	if (n->access & S2_ACC_READ)
		q |= EPT_QUAL_READ;
	if (n->access & S2_ACC_WRITE)
		q |= EPT_QUAL_WRITE;
	if (n->access & S2_ACC_FETCH)
		q |= EPT_QUAL_FETCH;
	/* Bits 3-5: the AND of bits 0-2 over the entries used; bit 6 the AND of
	 * bit 10 under mode-based execute control (otherwise undefined: 0). */
	if (n->rights & S2_RIGHT_R)
		q |= EPT_QUAL_READABLE;
	if (n->rights & S2_RIGHT_W)
		q |= EPT_QUAL_WRITABLE;
	if (n->rights & S2_RIGHT_X)
		q |= EPT_QUAL_EXECUTABLE;
	if (n->rights & S2_RIGHT_UX)
		q |= EPT_QUAL_USER_EXEC;
	/* Bit 7: the guest-linear address is valid for every violation but those
	 * of a PDPTE load by MOV to CR. Bit 8 (only with bit 7): 1 for the
	 * translation of the linear address, 0 for an access to a guest
	 * paging-structure entry (walk or A/D update). Bits 9-11 (advanced
	 * information, only with bits 7 and 8; otherwise undefined: 0). */
	if (n->gla_valid) {
		q |= EPT_QUAL_GLA_VALID;
		if (n->final) {
			q |= EPT_QUAL_FINAL;
			if (advanced_info) {
				if (n->gla_user)
					q |= EPT_QUAL_GLA_USER;
				if (n->gla_writable)
					q |= EPT_QUAL_GLA_WRITABLE;
				if (n->gla_nx)
					q |= EPT_QUAL_GLA_NX;
			}
		}
	}
	return q;
}
