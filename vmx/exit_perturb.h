/* Odd but legal VM exits, for testing L1 hypervisors (`hvemu run
 * --perturb-exits SEED`, issue 19): what the SDM leaves undefined in a VM
 * exit's information fields gets seeded random values instead of the
 * model's zeros. An L1 that reads such a field (the instruction length of an
 * exception exit, the error code of an exception that has none, the index
 * register of an instruction that used none) then misbehaves here as it may
 * on some processor; one that does not runs as without perturbation. What
 * the SDM defines never changes, so the run stays a legal one. */
#ifndef HVEMU_VMX_EXIT_PERTURB_H
#define HVEMU_VMX_EXIT_PERTURB_H

#include <stdbool.h>
#include <stdint.h>

struct vmx_exit;

/* The fields a perturbation may change, one bit each (for counting). */
enum vmx_perturbed_field {
	VMX_PERTURB_INSN_LEN = 1u << 0,
	VMX_PERTURB_INSN_INFO = 1u << 1,       /* the whole field, or undefined bits of its format */
	VMX_PERTURB_GUEST_LINEAR = 1u << 2,
	VMX_PERTURB_GUEST_PHYSICAL = 1u << 3,
	VMX_PERTURB_INTR_ERROR = 1u << 4,
	VMX_PERTURB_IDT_ERROR = 1u << 5,
};

/* What the caller knows of the exit beyond x. */
struct vmx_perturb_ctx {
	bool from_64bit;           /* the guest was in 64-bit mode (Table 27-10 bit 11) */
	bool ins_outs_info;        /* IA32_VMX_BASIC[54]: INS/OUTS exits report instruction information */
	bool has_guest_physical;   /* the processor has the guest-physical address field */
};

/* Replace the undefined parts of x with values from *state (xorshift64*,
 * never 0; advanced). Returns the fields changed (enum vmx_perturbed_field).
 * A VM-entry failure (exit reason bit 31) is left as it is. */
unsigned vmx_perturb_exit(uint64_t *state, const struct vmx_perturb_ctx *ctx, struct vmx_exit *x);

#endif
