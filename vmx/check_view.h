/* What the VM-entry check rows look at (vmx/consistency.c: 26.2, the
 * controls and the host state; vmx/guest_checks.c: 26.3.1, the guest state):
 * the current VMCS by row through the model (the rows' ctx is the struct
 * vmx), the controls as VM entry reads them, the address rules the sections
 * share, and the outcomes of a failure. Private to those two files.
 */
#ifndef HVEMU_VMX_CHECK_VIEW_H
#define HVEMU_VMX_CHECK_VIEW_H

#include "emu/canonical.h"
#include "emu/check_table.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

/* What a row may read, and how VM entry's memo (struct vmx check_memo,
 * emu/check_table.h) learns it:
 *   field(ctx, row)   a field of the current VMCS: recorded as the row's
 *                     input; a change of the field (VMWRITE, a VM exit's
 *                     store) makes the row run again;
 *   processor_lma(ctx)  the processor's IA-32e mode, an input as a field is;
 *   fixed(ctx)        the processor's fixed properties: the capability MSRs
 *                     (vmx_cap), MAXPHYADDR, the CPU model's features. The
 *                     memo is forgotten when a capability MSR or MAXPHYADDR
 *                     differs (a test widens them); nothing else of the
 *                     processor may be read through it;
 *   model(ctx)        anything else (physical memory, the processor's
 *                     current mode, the current-VMCS pointer): the row is
 *                     external and runs at every VM entry. */
static inline struct vmx *vmx_of(const void *ctx)
{
	return (struct vmx *)(uintptr_t)ctx;
}

static inline const struct vmx *fixed(const void *ctx)
{
	return vmx_of(ctx);
}

static inline struct vmx *model(const void *ctx)
{
	struct vmx *v = vmx_of(ctx);
	if (v->checking)
		check_memo_external(v->checking);
	return v;
}

static inline uint64_t field(const void *ctx, enum vmcs_row row)
{
	struct vmx *v = vmx_of(ctx);
	if (v->checking)
		check_memo_read(v->checking, row);
	return vmcs_get(v, row);
}

/* The processor's IA32_EFER.LMA as VM entry begins ("IA-32e mode", 26.2.4):
 * an input as a field is (vmx_check_controls reports its changes). */
static inline bool processor_lma(const void *ctx)
{
	struct vmx *v = vmx_of(ctx);
	if (v->checking)
		check_memo_read(v->checking, VMX_CHECK_INPUT_LMA);
	return v->cpu->efer & EFER_LMA;
}

static inline bool ctl_bit(const void *ctx, enum vmcs_row row, unsigned bit)
{
	return field(ctx, row) & VMX_CTL(bit);
}

/* SDM Vol.3 A.2: with IA32_VMX_BASIC[55] the TRUE_* MSRs report the
 * default1 controls that may be 0; VM entry checks against them. */
static inline uint64_t ctl_cap(const void *ctx, uint32_t msr, uint32_t true_msr)
{
	const struct vmx *v = fixed(ctx);
	return vmx_cap(v, (vmx_cap(v, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS) ? true_msr : msr);
}

/* "the secondary processor-based VM-execution controls" are used only when
 * "activate secondary controls" is 1; otherwise VM entry treats them as 0
 * (SDM Vol.3 24.6.2). */
static inline uint32_t proc2(const void *ctx)
{
	if (!ctl_bit(ctx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_PROC_SECONDARY_CONTROLS))
		return 0;
	return (uint32_t)field(ctx, VMCS_ROW_SECONDARY_PROC_CONTROLS);
}

static inline uint32_t pin(const void *ctx) { return (uint32_t)field(ctx, VMCS_ROW_PIN_BASED_CONTROLS); }
static inline uint32_t proc(const void *ctx) { return (uint32_t)field(ctx, VMCS_ROW_PRIMARY_PROC_CONTROLS); }
static inline uint32_t exit_ctls(const void *ctx) { return (uint32_t)field(ctx, VMCS_ROW_EXIT_CONTROLS); }
static inline uint32_t entry_ctls(const void *ctx) { return (uint32_t)field(ctx, VMCS_ROW_ENTRY_CONTROLS); }

static inline bool pin_on(const void *ctx, unsigned bit) { return pin(ctx) & VMX_CTL(bit); }
static inline bool proc_on(const void *ctx, unsigned bit) { return proc(ctx) & VMX_CTL(bit); }
static inline bool proc2_on(const void *ctx, unsigned bit) { return proc2(ctx) & VMX_CTL(bit); }
static inline bool exit_on(const void *ctx, unsigned bit) { return exit_ctls(ctx) & VMX_CTL(bit); }
static inline bool entry_on(const void *ctx, unsigned bit) { return entry_ctls(ctx) & VMX_CTL(bit); }

/* "sets bits beyond the processor's physical-address width" */
static inline bool beyond_maxphyaddr(const void *ctx, uint64_t pa)
{
	unsigned width = fixed(ctx)->cpu->maxphyaddr;
	return width < 64 && (pa >> width);
}

/* A physical address the rules want aligned to `align` bytes and within the
 * physical-address width. */
static inline bool bad_address(const void *ctx, enum vmcs_row row, uint64_t align)
{
	uint64_t pa = field(ctx, row);
	return (pa & (align - 1)) || beyond_maxphyaddr(ctx, pa);
}

/* "must contain a canonical address": the processor's linear-address width
 * (57 bits on a part with 5-level paging), as for the registers that hold a
 * linear address for later use (emu/canonical.h). */
static inline bool not_canonical(const void *ctx, enum vmcs_row row)
{
	return !addr_canonical_reg(fixed(ctx)->cpu, field(ctx, row));
}

/* IA32_PAT as WRMSR accepts it: every byte 0 (UC), 1 (WC), 4 (WT), 5 (WP),
 * 6 (WB) or 7 (UC-) (SDM Vol.3 11.12.2). */
static inline bool pat_invalid(uint64_t pat)
{
	for (unsigned i = 0; i < 8; i++) {
		unsigned type = (unsigned)(pat >> (8 * i)) & 0xff;
		if (type == 2 || type == 3 || type > 7)
			return true;
	}
	return false;
}

/* IA32_PERF_GLOBAL_CTRL's defined bits are the enables of the counters CPUID
 * leaf 0AH reports; hvemu's models report none (no architectural performance
 * monitoring), so every bit is reserved. */
#define PERF_GLOBAL_CTRL_VALID 0ull

/* The VM-entry interruption-information field (24.8.3) when its valid bit
 * is 1; 0 otherwise, so the rules see no event. */
static inline uint32_t injected(const void *ctx)
{
	uint32_t info = (uint32_t)field(ctx, VMCS_ROW_ENTRY_INTR_INFO);
	return (info & VMX_INTR_VALID) ? info : 0;
}

static inline unsigned inj_type(uint32_t info) { return (info & VMX_INTR_TYPE_MASK) >> VMX_INTR_TYPE_SHIFT; }
static inline unsigned inj_vector(uint32_t info) { return info & VMX_INTR_VECTOR_MASK; }

/* CR4.CET (bit 23), which the CR4 rules name; IA32_S_CET's reserved bits 9:6
 * (SDM Vol.1 18.3.1). */
#define CR4_CET_BIT (1ull << 23)
#define S_CET_RESERVED (0xfull << 6)

/* ---- outcomes ---- */

#define CONTROLS_FAIL   { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_CONTROL, 0 }
#define HOST_FAIL       { EXIT_REPORT_VMFAIL_VALID, VMXERR_ENTRY_INVALID_HOST_STATE, 0 }
/* 26.8: exit reason 33 with bit 31 set; the exit qualification is 0 except
 * for the cases SDM Vol.3 26.8 numbers (2 PDPTEs, 3 an NMI injected into a
 * guest blocking by STI, 4 VMCS link pointer). */
#define GUEST_FAIL(q)   { EXIT_REPORT_ENTRY_FAILURE, \
			  VMX_EXIT_ENTRY_FAILURE | VMX_EXIT_INVALID_GUEST_STATE, (q) }

/* guest_checks.c: the 26.3.1 table. */
const struct check_row *vmx_guest_check_table(size_t *n);

/* consistency.c: the first failure of table t (rows[0..n)) as the full
 * evaluation finds it, evaluated through v's memo of t (under --tlb flush:
 * every row, the reference). */
const struct check_row *vmx_checks_run(struct vmx *v, enum vmx_check_table t, const struct check_row *rows,
				       size_t n);

#endif
