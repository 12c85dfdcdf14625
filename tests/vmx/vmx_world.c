/* The world of the VMX world-switch suites: see vmx_world.h. */
#include "vmx_world.h"

#include "emu/flags.h"
#include "emu/hv.h"
#include "mmu/x86_vmx.h"
#include "vmx/exit_reasons.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"

static void observe(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	(void)cpu;
	struct world *w = ctx;
	w->observed++;
	w->last = *r;
}

uint64_t model_cap(const struct cpu_model *m, uint32_t index)
{
	uint64_t v = 0;
	ck_assert(cpu_model_vmx_cap(m, index, &v));
	return v;
}

uint64_t arith_flags(struct world *w)
{
	return cpu_get_flags(&w->m.cpu) & FLAGS_ARITH;
}

/* One VMX instruction in L1 that must VMsucceed. */
void must_succeed(struct world *w, const uint8_t *bytes, unsigned len, const char *what)
{
	ck_assert_msg(exec(&w->m, bytes, len) == ST_OK, "%s: faulted (vector %u)", what, w->m.cpu.event.vector);
	ck_assert_msg(arith_flags(w) == 0, "%s: not VMsucceed", what);
}

void vmw(struct world *w, uint32_t enc, uint64_t value)
{
	w->m.cpu.regs[R_CX] = enc;
	w->m.cpu.regs[R_BX] = value;
	SUCCEED(w, "vmwrite", VMWRITE_RCX_RBX);
}

uint64_t vmr(struct world *w, uint32_t enc)
{
	w->m.cpu.regs[R_CX] = enc;
	SUCCEED(w, "vmread", VMREAD_RBX_RCX);
	return w->m.cpu.regs[R_BX];
}

/* A 64-bit interrupt gate (SDM Vol.3 6.14.1) for vector to handler. */
void idt_gate(struct world *w, unsigned vector, uint64_t handler)
{
	uint64_t lo = (handler & 0xffff) | ((uint64_t)SEL_CODE64 << 16) | (0x8eull << 40) |
		      ((handler >> 16 & 0xffff) << 48);
	physmem_write(&w->m.pm, L2_IDT + 16 * vector, 8, lo);
	physmem_write(&w->m.pm, L2_IDT + 16 * vector + 8, 8, handler >> 32);
}

/* L2's code at L2_CODE (the decoded copy of what was there dropped). */
void l2_code(struct world *w, const uint8_t *bytes, unsigned len)
{
	physmem_write_bytes(&w->m.pm, L2_CODE, bytes, len);
	cpu_notify_phys_write(&w->m.cpu, L2_CODE, len);
}

/* The "default1" controls of a TRUE_* capability MSR: its allowed-0 half
 * (SDM Vol.3 A.2, A.3). */
uint32_t must_be_1(struct world *w, uint32_t msr)
{
	return (uint32_t)model_cap(w->m.cpu.model, msr);
}

/* The world: skylake-lite in 64-bit mode, VMXON, the VMCS current and
 * clear, host and guest state valid, L2 = CPUID; VMCALL; HLT. tlb_flush:
 * --tlb flush, where nothing is cached, the VMCS region included. */
void world_init_mode(struct world *w, bool tlb_flush)
{
	memset(w, 0, sizeof(*w));
	machine_init(&w->m, "skylake-lite");
	struct cpu *c = &w->m.cpu;
	c->tlb_uncached = tlb_flush;
	w->vmx = vmx_create(c, 0);
	ck_assert_ptr_nonnull(w->vmx);
	uint32_t rev = (uint32_t)(model_cap(c->model, MSR_VMX_BASIC) & VMX_BASIC_REVISION_MASK);
	physmem_write(&w->m.pm, VMXON_PA, 4, rev);
	physmem_write(&w->m.pm, VMCS_PA, 4, rev);
	activate(&w->m);
	to64(&w->m);
	ck_assert_int_eq(mov_cr(&w->m, 4, CR4_PAE | CR4_VMXE), ST_OK);
	ck_assert_int_eq(mov_cr(&w->m, 0, CR0_PE | CR0_ET | CR0_NE | CR0_PG), ST_OK);
	ck_assert_int_eq(wrmsr(&w->m, MSR_FEATURE_CONTROL, FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_NO_SMX),
			 ST_OK);
	physmem_write(&w->m.pm, PTR, 8, VMXON_PA);
	c->regs[R_AX] = PTR;
	SUCCEED(w, "vmxon", VMXON_RAX);
	physmem_write(&w->m.pm, PTR, 8, VMCS_PA);
	c->regs[R_AX] = PTR;
	SUCCEED(w, "vmclear", VMCLEAR_RAX);
	SUCCEED(w, "vmptrld", VMPTRLD_RAX);
	/* L1's TR, as the host-state TR selector names it. */
	seg_load_descriptor(&c->tr, SEL_TSS, physmem_read(&w->m.pm, GDT_BASE + SEL_TSS, 8));
	c->idtr = (struct dtr){ .base = L1_IDT, .limit = 0xfff };
	c->regs[R_SP] = L1_STACK;

	/* Controls: the default1 bits of the TRUE_* MSRs, a 64-bit host, an
	 * IA-32e mode guest. */
	vmw(w, VMCS_PIN_BASED_CONTROLS, must_be_1(w, MSR_VMX_TRUE_PINBASED_CTLS));
	vmw(w, VMCS_PRIMARY_PROC_CONTROLS, must_be_1(w, MSR_VMX_TRUE_PROCBASED_CTLS));
	vmw(w, VMCS_EXIT_CONTROLS, must_be_1(w, MSR_VMX_TRUE_EXIT_CTLS) | VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE));
	vmw(w, VMCS_ENTRY_CONTROLS, must_be_1(w, MSR_VMX_TRUE_ENTRY_CTLS) | VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST));

	/* Host state: L1 itself, returning to the HLT after VMLAUNCH. */
	vmw(w, VMCS_HOST_CR0, c->cr0);
	vmw(w, VMCS_HOST_CR3, c->cr3);
	vmw(w, VMCS_HOST_CR4, c->cr4);
	vmw(w, VMCS_HOST_CS_SELECTOR, SEL_CODE64);
	vmw(w, VMCS_HOST_SS_SELECTOR, SEL_DATA);
	vmw(w, VMCS_HOST_DS_SELECTOR, SEL_DATA);
	vmw(w, VMCS_HOST_ES_SELECTOR, SEL_DATA);
	vmw(w, VMCS_HOST_FS_SELECTOR, 0);
	vmw(w, VMCS_HOST_GS_SELECTOR, 0);
	vmw(w, VMCS_HOST_TR_SELECTOR, SEL_TSS);
	vmw(w, VMCS_HOST_FS_BASE, HOST_FS);
	vmw(w, VMCS_HOST_GS_BASE, HOST_GS);
	vmw(w, VMCS_HOST_TR_BASE, TSS64);
	vmw(w, VMCS_HOST_GDTR_BASE, GDT_BASE);
	vmw(w, VMCS_HOST_IDTR_BASE, L1_IDT);
	vmw(w, VMCS_HOST_IA32_SYSENTER_CS, 0x11);
	vmw(w, VMCS_HOST_IA32_SYSENTER_ESP, 0x1111);
	vmw(w, VMCS_HOST_IA32_SYSENTER_EIP, 0x2222);
	vmw(w, VMCS_HOST_RSP, L1_STACK);
	vmw(w, VMCS_HOST_RIP, HOST_RIP);

	/* Guest state: 64-bit, CPL 0, flat, L1's paging. */
	vmw(w, VMCS_GUEST_CR0, c->cr0);
	vmw(w, VMCS_GUEST_CR3, c->cr3);
	vmw(w, VMCS_GUEST_CR4, c->cr4);
	vmw(w, VMCS_GUEST_DR7, 0x400);
	vmw(w, VMCS_GUEST_CS_SELECTOR, SEL_CODE64);
	vmw(w, VMCS_GUEST_CS_AR, 0xa09b);
	vmw(w, VMCS_GUEST_CS_LIMIT, 0xffffffff);
	static const uint32_t data_sel[] = { VMCS_GUEST_SS_SELECTOR, VMCS_GUEST_DS_SELECTOR, VMCS_GUEST_ES_SELECTOR };
	static const uint32_t data_ar[] = { VMCS_GUEST_SS_AR, VMCS_GUEST_DS_AR, VMCS_GUEST_ES_AR };
	static const uint32_t data_limit[] = { VMCS_GUEST_SS_LIMIT, VMCS_GUEST_DS_LIMIT, VMCS_GUEST_ES_LIMIT };
	for (unsigned i = 0; i < 3; i++) {
		vmw(w, data_sel[i], SEL_DATA);
		vmw(w, data_ar[i], 0xc093);
		vmw(w, data_limit[i], 0xffffffff);
	}
	vmw(w, VMCS_GUEST_FS_AR, VMX_AR_UNUSABLE);
	vmw(w, VMCS_GUEST_GS_AR, VMX_AR_UNUSABLE);
	vmw(w, VMCS_GUEST_FS_BASE, 0x3000);
	vmw(w, VMCS_GUEST_GS_BASE, 0x4000);
	vmw(w, VMCS_GUEST_LDTR_AR, VMX_AR_UNUSABLE);
	vmw(w, VMCS_GUEST_TR_SELECTOR, SEL_TSS);
	vmw(w, VMCS_GUEST_TR_AR, 0x8b);
	vmw(w, VMCS_GUEST_TR_LIMIT, 0x67);
	vmw(w, VMCS_GUEST_TR_BASE, TSS64);
	vmw(w, VMCS_GUEST_GDTR_BASE, GDT_BASE);
	vmw(w, VMCS_GUEST_GDTR_LIMIT, 0x2f);
	vmw(w, VMCS_GUEST_IDTR_BASE, L2_IDT);
	vmw(w, VMCS_GUEST_IDTR_LIMIT, 0xfff);
	vmw(w, VMCS_GUEST_IA32_SYSENTER_CS, 0x33);
	vmw(w, VMCS_GUEST_IA32_SYSENTER_ESP, 0x3333);
	vmw(w, VMCS_GUEST_IA32_SYSENTER_EIP, 0x4444);
	vmw(w, VMCS_GUEST_RSP, L2_STACK);
	vmw(w, VMCS_GUEST_RIP, L2_CODE);
	vmw(w, VMCS_GUEST_RFLAGS, 2);
	vmw(w, VMCS_VMCS_LINK_POINTER, UINT64_MAX);

	/* L2: CPUID; VMCALL; HLT; its handler for every vector used: CPUID. */
	L2(w, 0x0f, 0xa2, 0x0f, 0x01, 0xc1, 0xf4);
	physmem_write_bytes(&w->m.pm, L2_ISR, (const uint8_t[]){ 0x0f, 0xa2, 0xf4 }, 3);
	for (unsigned v = 0; v < 256; v++)
		idt_gate(w, v, L2_ISR);
	physmem_write_bytes(&w->m.pm, L1_LAUNCH, (const uint8_t[]){ VMLAUNCH, 0xf4 }, 4);
	physmem_write_bytes(&w->m.pm, L1_RESUME, (const uint8_t[]){ VMRESUME, 0xf4 }, 4);
	w->obs = (struct vm_exit_observer){ .exit = observe, .ctx = w };
	c->exit_observer = &w->obs;
}

void world_init(struct world *w)
{
	world_init_mode(w, false);
}

void world_free(struct world *w)
{
	vmx_destroy(w->vmx);
	machine_free(&w->m);
}

/* Run L1 from rip until it halts (after the VM exit, at HOST_RIP). */
status_t run_from(struct world *w, uint64_t rip)
{
	struct cpu *c = &w->m.cpu;
	c->rip = rip;
	c->icount_limit = c->icount + 10000;
	return cpu_run(c);
}

/* L1 is back at its HLT after an exit: root operation, CPL 0. */
void assert_in_l1(struct world *w)
{
	struct cpu *c = &w->m.cpu;
	ck_assert(!c->in_guest);
	ck_assert_uint_eq(c->rip, HOST_RIP + 1);
	ck_assert_uint_eq(c->cpl, 0);
}

uint32_t exit_reason(struct world *w)
{
	return (uint32_t)vmr(w, VMCS_EXIT_REASON);
}

uint64_t l2_stack(struct world *w, unsigned i)
{
	return physmem_read(&w->m.pm, vmr(w, VMCS_GUEST_RSP) + 8 * i, 8);
}
