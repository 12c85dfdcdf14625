/* The simulation pieces both oracles read alike from their manuals
 * (included by fuzz/svm_oracle_sim.h and fuzz/vmx_oracle_sim.h, the
 * oracles' internals): x86 addressing in the L2 world, where the APM and
 * the SDM state the same rule (each cited), and a fault as the simulations
 * pass it on. The faults' delivery and what an exit records are each
 * oracle's own.
 */
#ifndef HVEMU_FUZZ_ORACLE_SIM_H
#define HVEMU_FUZZ_ORACLE_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz/oracle_common.h"

/* A fault a simulated access raises. */
struct fault {
	int vector;                        /* -1: none */
	uint32_t error;
	bool has_error;
	uint64_t cr2;
	bool wrapped;                      /* base + offset crossed 4 GiB (SVM's #PF rules tell it apart) */
	bool crossed;                      /* the fault is on the second page (likewise) */
	bool limit;                        /* a segment-limit fault */
};

/* APM2 5.3.1, SDM Vol.1 3.3.7.1: 48-bit canonical addresses (no LA57 in
 * either model). */
static inline bool oracle_canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/* Is linear page lin present in the L2 world (its 1:1 mapping)? */
static inline bool oracle_page_present(const struct oracle_l2_layout *l, uint64_t lin)
{
	uint64_t page = lin & ~0xfffull;
	return lin < l->mapped_top && page != l->holes[0] && page != l->holes[1];
}

/* The linear address of seg:off (seg 0-5: ES CS SS DS FS GS) given the
 * segment's base. APM2 2.2, 4.5 / SDM Vol.1 3.3.7.1, Vol.3 3.4: outside
 * 64-bit mode base + offset is 32 bits wide; in 64-bit mode the ES, CS, SS
 * and DS bases are 0. */
static inline uint64_t oracle_linear(bool m64, int seg, uint64_t base, uint64_t off)
{
	if (m64)
		return (seg == 4 || seg == 5) ? base + off : off;
	return (uint32_t)(base + off);
}

/* The segment an override selects. APM3 1.2.4 / SDM Vol.1 3.3.7.1: in
 * 64-bit mode the ES, CS, SS and DS overrides are ignored (the default
 * segment stays). */
static inline int oracle_override_seg(bool m64, int seg, int dflt)
{
	if (seg < 0 || (m64 && seg < 4))
		return dflt;
	return seg;
}

#endif
