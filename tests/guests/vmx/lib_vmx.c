/* The L1 hypervisor library of the nested-VMX guests (see lib_vmx.h). */
#include "vmx/lib_vmx.h"

struct vmx_caps vmx_caps;
uint8_t vmx_region[VMX_REGIONS][4096] __attribute__((aligned(4096)));
uint64_t vmxon_ptr;
uint32_t vmx_setup_errors;
struct l2_gprs l2_regs;
uint64_t l2_idt[256] __attribute__((aligned(8)));
uint8_t l2_stack[8192] __attribute__((aligned(16)));
volatile uint32_t l2_event_vector, l2_event_count;
extern char l2_stubs[];

const char *vmx_outcome_name(uint32_t flags)
{
	switch (flags) {
	case VM_SUCCEED: return "VMsucceed";
	case VM_FAIL_INVALID: return "VMfailInvalid";
	case VM_FAIL_VALID: return "VMfailValid";
	}
	return "flags neither VMsucceed nor VMfail";
}

int vmx_has_proc2(uint32_t bit)
{
	return ctl_allows(vmx_caps.proc, PROC_SECONDARY) && ctl_allows(vmx_caps.proc2, bit);
}

int vmx_probe(void)
{
	uint32_t r[4];
	gmemset(&vmx_caps, 0, sizeof(vmx_caps));
	cpuid(0, 0, r);
	if (r[0] < 1)
		return 0;
	cpuid(1, 0, r);
	/* SDM Vol.3 23.6: CPUID.1:ECX.VMX[bit 5] = 1 says VMX operation is
	 * supported; the capability MSRs exist only then (Appendix A). */
	if (!((r[2] >> 5) & 1))
		return 0;
	struct vmx_caps *c = &vmx_caps;
	c->maxphy = cpu_maxphyaddr();
	c->fc_boot = (uint32_t)rdmsr64(MSR_FEATURE_CONTROL);
	c->basic = rdmsr64(MSR_VMX_BASIC);
	/* A.2: with BASIC[55] the TRUE_* MSRs give the controls' real allowed-0
	 * settings (default1 bits that may be 0); a VMM reads those. */
	int t = (c->basic & BASIC_TRUE_CTLS) != 0;
	c->pin = rdmsr64(t ? MSR_VMX_TRUE_PINBASED : MSR_VMX_PINBASED_CTLS);
	c->proc = rdmsr64(t ? MSR_VMX_TRUE_PROCBASED : MSR_VMX_PROCBASED_CTLS);
	c->exit = rdmsr64(t ? MSR_VMX_TRUE_EXIT : MSR_VMX_EXIT_CTLS);
	c->entry = rdmsr64(t ? MSR_VMX_TRUE_ENTRY : MSR_VMX_ENTRY_CTLS);
	c->misc = rdmsr64(MSR_VMX_MISC);
	c->cr0_fixed0 = rdmsr64(MSR_VMX_CR0_FIXED0);
	c->cr0_fixed1 = rdmsr64(MSR_VMX_CR0_FIXED1);
	c->cr4_fixed0 = rdmsr64(MSR_VMX_CR4_FIXED0);
	c->cr4_fixed1 = rdmsr64(MSR_VMX_CR4_FIXED1);
	c->vmcs_enum = rdmsr64(MSR_VMX_VMCS_ENUM);
	/* A.3.3: PROCBASED_CTLS2 exists only if "activate secondary controls"
	 * may be 1; A.10: EPT_VPID_CAP only if EPT or VPID may be 1. */
	if (ctl_allows(c->proc, PROC_SECONDARY)) {
		c->proc2 = rdmsr64(MSR_VMX_PROCBASED_CTLS2);
		if (ctl_allows(c->proc2, PROC2_EPT) || ctl_allows(c->proc2, PROC2_VPID))
			c->ept_vpid = rdmsr64(MSR_VMX_EPT_VPID_CAP);
	}
	return 1;
}

static void note64(const char *what, uint64_t v)
{
	note("%s = 0x%08x_%08x", what, (uint32_t)(v >> 32), (uint32_t)v);
}

static void l2_idt_build(void)
{
	for (int v = 0; v < 256; v++)
		l2_idt[v] = gate_desc(SEL_KCODE, l2_stub_addr(v), SYS_INTGATE, 0, 0);
}

void vmx_host_prepare(void)
{
	if (!vmx_probe())
		skip_all("CPUID.1:ECX.VMX[5] = 0: no VMX on this CPU");
	struct vmx_caps *c = &vmx_caps;
	note("VMCS revision 0x%x, region size %u, MAXPHYADDR %u, IA32_FEATURE_CONTROL at boot 0x%x",
	     BASIC_REVISION(c->basic), BASIC_SIZE(c->basic), c->maxphy, c->fc_boot);
	note64("IA32_VMX_BASIC", c->basic);
	note64("pin-based (TRUE if BASIC[55])", c->pin);
	note64("primary processor-based", c->proc);
	note64("secondary processor-based", c->proc2);
	note64("VM-exit", c->exit);
	note64("VM-entry", c->entry);
	note64("IA32_VMX_MISC", c->misc);
	note64("IA32_VMX_EPT_VPID_CAP", c->ept_vpid);
	note("CR0 FIXED0/1 0x%x/0x%x, CR4 FIXED0/1 0x%x/0x%x", (uint32_t)c->cr0_fixed0,
	     (uint32_t)c->cr0_fixed1, (uint32_t)c->cr4_fixed0, (uint32_t)c->cr4_fixed1);
	/* 23.7: the firmware may lock IA32_FEATURE_CONTROL with VMX off. */
	if ((c->fc_boot & FC_LOCK) && !(c->fc_boot & FC_VMX_OUTSIDE_SMX))
		skip_all("IA32_FEATURE_CONTROL locked by the firmware without VMX outside SMX");
	/* 23.8: CR0.PG is fixed to 1 in VMX operation unless unrestricted guest
	 * is used, so L1 runs with 32-bit paging over an identity map (user
	 * pages: CPL 3 rows run from the image). */
	if (!(read_cr0() & CR0_PG))
		paging_on(pg32_build(), CR4_PSE);
	/* 23.8: CR0 and CR4 values fixed by FIXED0 (1s) and FIXED1 (0s). */
	write_cr0((read_cr0() | (uint32_t)c->cr0_fixed0) & (uint32_t)c->cr0_fixed1);
	write_cr4((read_cr4() | ((uint32_t)c->cr4_fixed0 & ~CR4_VMXE)) & ((uint32_t)c->cr4_fixed1 | CR4_VMXE));
	for (int i = 0; i < VMX_REGIONS; i++)
		region_init(i);
	vmxon_ptr = region_pa(0);
	l2_idt_build();
}

void vmx_host_init(void)
{
	vmx_host_prepare();
	if (!(vmx_caps.fc_boot & FC_LOCK))
		wrmsr64(MSR_FEATURE_CONTROL, FC_LOCK | FC_VMX_OUTSIDE_SMX);
	write_cr4(read_cr4() | CR4_VMXE);
}

void region_init(int i)
{
	/* 24.2, 24.11.5: the first 4 bytes of a VMCS or VMXON region hold the
	 * revision identifier (bits 30:0), bit 31 the shadow-VMCS indicator. */
	gmemset(vmx_region[i], 0, 4096);
	uint32_t rev = BASIC_REVISION(vmx_caps.basic);
	gmemcpy(vmx_region[i], &rev, 4);
}

int vmx_on(void)
{
	return vmxon(&vmxon_ptr) == VM_SUCCEED;
}

/* ---- set-up VMREAD/VMWRITE ---- */

uint32_t vmread(uint32_t enc)
{
	uint32_t v;
	uint32_t f = vmread_f(enc, &v);
	if (f != VM_SUCCEED) {
		vmx_setup_errors++;
		uint32_t err = 0;
		vmread_f(VMCS_INSN_ERROR, &err);
		gprintf("# VMREAD 0x%x: %s (error %u)\n", enc, vmx_outcome_name(f), err);
	}
	return v;
}

void vmwrite(uint32_t enc, uint32_t val)
{
	uint32_t f = vmwrite_f(enc, val);
	if (f != VM_SUCCEED) {
		vmx_setup_errors++;
		uint32_t err = 0;
		vmread_f(VMCS_INSN_ERROR, &err);
		gprintf("# VMWRITE 0x%x := 0x%x: %s (error %u)\n", enc, val, vmx_outcome_name(f), err);
	}
}

void vmwrite64(uint32_t enc, uint64_t val)
{
	/* 24.11.2: outside 64-bit mode the full encoding writes bits 31:0 and
	 * clears 63:32; the high encoding writes 63:32. */
	vmwrite(enc, (uint32_t)val);
	vmwrite(VMCS_HIGH(enc), (uint32_t)(val >> 32));
}

uint64_t vmread64(uint32_t enc)
{
	uint32_t lo = vmread(enc);
	return ((uint64_t)vmread(VMCS_HIGH(enc)) << 32) | lo;
}

/* ---- the VMCS ---- */

uint32_t l2_stub_addr(int vec)
{
	return (uint32_t)(uintptr_t)l2_stubs + 32u * (uint32_t)vec;
}

int vmx_allows(uint32_t pin, uint32_t proc, uint32_t proc2, uint32_t exit, uint32_t entry)
{
	const struct vmx_caps *c = &vmx_caps;
	if (proc2)
		proc |= PROC_SECONDARY;
	return ctl_allows(c->pin, pin) && ctl_allows(c->proc, proc) && (!proc2 || ctl_allows(c->proc2, proc2)) &&
	       ctl_allows(c->exit, exit) && ctl_allows(c->entry, entry);
}

static void guest_seg(enum vmx_seg s, uint16_t sel, uint32_t base, uint32_t limit, uint32_t ar)
{
	vmwrite(VMCS_GUEST_ES_SEL + 2u * s, sel);
	vmwrite(VMCS_GUEST_ES_BASE + 2u * s, base);
	vmwrite(VMCS_GUEST_ES_LIMIT + 2u * s, limit);
	vmwrite(VMCS_GUEST_ES_AR + 2u * s, ar);
}

void vmx_vmcs_init(int region, const void *rip, uint32_t pin, uint32_t proc, uint32_t proc2,
		   uint32_t exit, uint32_t entry)
{
	const struct vmx_caps *c = &vmx_caps;
	uint64_t pa = region_pa(region);
	region_init(region);
	if (vmclear(&pa) != VM_SUCCEED || vmptrld(&pa) != VM_SUCCEED) {
		vmx_setup_errors++;
		gprintf("# VMCLEAR/VMPTRLD of region %d failed\n", region);
	}
	l2_idt_build();
	gmemset(&l2_regs, 0, sizeof(l2_regs));

	/* 24.6.1-24.6.2, 24.7.1, 24.8.1 and A.3-A.5: every control written
	 * through its capability MSR. */
	if (proc2)
		proc |= PROC_SECONDARY;
	vmwrite(VMCS_PIN_CTLS, ctl_adjust(c->pin, pin));
	vmwrite(VMCS_PROC_CTLS, ctl_adjust(c->proc, proc));
	if (ctl_allows(c->proc, PROC_SECONDARY))
		vmwrite(VMCS_PROC_CTLS2, ctl_adjust(c->proc2, proc2));
	/* 26.2.1.2, 26.2.4: a 32-bit host (IA32_EFER.LMA = 0) needs "host
	 * address-space size" = 0 and "IA-32e mode guest" = 0. */
	vmwrite(VMCS_EXIT_CTLS, ctl_adjust(c->exit, exit) & ~EXIT_HOST_LONG_MODE);
	vmwrite(VMCS_ENTRY_CTLS, ctl_adjust(c->entry, entry) & ~ENTRY_IA32E_GUEST);
	vmwrite(VMCS_EXCEPTION_BITMAP, 0);
	vmwrite(VMCS_PF_ERROR_MASK, 0);
	vmwrite(VMCS_PF_ERROR_MATCH, 0);
	vmwrite(VMCS_CR3_TARGET_COUNT, 0);
	vmwrite(VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmwrite(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmwrite(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmwrite(VMCS_ENTRY_INTR_INFO, 0);
	vmwrite(VMCS_CR0_MASK, 0);
	vmwrite(VMCS_CR4_MASK, 0);
	vmwrite(VMCS_CR0_SHADOW, read_cr0());
	vmwrite(VMCS_CR4_SHADOW, read_cr4());
	/* 26.3.1.5: the VMCS link pointer must be all ones (no shadow VMCS). */
	vmwrite64(VMCS_LINK_POINTER, ~0ull);

	/* 24.5, 27.5: the host state is L1 itself, as it runs now. */
	struct dtr g, i;
	__asm__ volatile("sgdt %0\n\tsidt %1" : "=m"(g), "=m"(i));
	vmwrite(VMCS_HOST_CR0, read_cr0());
	vmwrite(VMCS_HOST_CR3, read_cr3());
	vmwrite(VMCS_HOST_CR4, read_cr4());
	vmwrite(VMCS_HOST_ES_SEL, SEL_KDATA);
	vmwrite(VMCS_HOST_CS_SEL, SEL_KCODE);
	vmwrite(VMCS_HOST_SS_SEL, SEL_KDATA);
	vmwrite(VMCS_HOST_DS_SEL, SEL_KDATA);
	vmwrite(VMCS_HOST_FS_SEL, SEL_KDATA);
	vmwrite(VMCS_HOST_GS_SEL, SEL_KDATA);
	vmwrite(VMCS_HOST_TR_SEL, SEL_TSS);
	vmwrite(VMCS_HOST_FS_BASE, 0);
	vmwrite(VMCS_HOST_GS_BASE, 0);
	vmwrite(VMCS_HOST_TR_BASE, (uint32_t)(uintptr_t)&tss);
	vmwrite(VMCS_HOST_GDTR_BASE, g.base);
	vmwrite(VMCS_HOST_IDTR_BASE, i.base);
	vmwrite(VMCS_HOST_SYSENTER_CS, (uint32_t)rdmsr64(0x174));
	vmwrite(VMCS_HOST_SYSENTER_ESP, (uint32_t)rdmsr64(0x175));
	vmwrite(VMCS_HOST_SYSENTER_EIP, (uint32_t)rdmsr64(0x176));
	vmwrite(VMCS_HOST_RSP, 0);          /* vmx_enter writes its own */
	vmwrite(VMCS_HOST_RIP, (uint32_t)(uintptr_t)vmx_exit_stub);
	if (ctl_allows(c->exit, EXIT_LOAD_PAT))
		vmwrite64(VMCS_HOST_PAT, rdmsr64(0x277));
	if (ctl_allows(c->exit, EXIT_LOAD_EFER))
		vmwrite64(VMCS_HOST_EFER, 0);

	/* 24.4, 26.3.1: a flat 32-bit protected-mode guest at CPL 0 sharing
	 * L1's paging and GDT, with its own IDT; LDTR unusable, TR L1's busy
	 * TSS (26.3.1.2: type 11 for a 32-bit guest). */
	vmwrite(VMCS_GUEST_CR0, read_cr0());
	vmwrite(VMCS_GUEST_CR3, read_cr3());
	vmwrite(VMCS_GUEST_CR4, read_cr4());
	vmwrite(VMCS_GUEST_DR7, 0x400);
	guest_seg(SEG_ES, SEL_KDATA, 0, 0xffffffffu, AR_DATA32);
	guest_seg(SEG_CS, SEL_KCODE, 0, 0xffffffffu, AR_CODE32);
	guest_seg(SEG_SS, SEL_KDATA, 0, 0xffffffffu, AR_DATA32);
	guest_seg(SEG_DS, SEL_KDATA, 0, 0xffffffffu, AR_DATA32);
	guest_seg(SEG_FS, SEL_KDATA, 0, 0xffffffffu, AR_DATA32);
	guest_seg(SEG_GS, SEL_KDATA, 0, 0xffffffffu, AR_DATA32);
	guest_seg(SEG_LDTR, 0, 0, 0, AR_UNUSABLE);
	guest_seg(SEG_TR, SEL_TSS, (uint32_t)(uintptr_t)&tss, sizeof(tss) - 1, AR_TSS32_BUSY);
	vmwrite(VMCS_GUEST_GDTR_BASE, g.base);
	vmwrite(VMCS_GUEST_GDTR_LIMIT, g.limit);
	vmwrite(VMCS_GUEST_IDTR_BASE, (uint32_t)(uintptr_t)l2_idt);
	vmwrite(VMCS_GUEST_IDTR_LIMIT, sizeof(l2_idt) - 1);
	vmwrite(VMCS_GUEST_RSP, L2_STACK_TOP);
	vmwrite(VMCS_GUEST_RIP, (uint32_t)(uintptr_t)rip);
	vmwrite(VMCS_GUEST_RFLAGS, 2);
	vmwrite(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmwrite(VMCS_GUEST_ACTIVITY, 0);
	vmwrite(VMCS_GUEST_PENDING_DBG, 0);
	vmwrite64(VMCS_GUEST_DEBUGCTL, 0);
	vmwrite(VMCS_GUEST_SYSENTER_CS, 0);
	vmwrite(VMCS_GUEST_SYSENTER_ESP, 0);
	vmwrite(VMCS_GUEST_SYSENTER_EIP, 0);
	if (ctl_allows(c->entry, ENTRY_LOAD_PAT))
		vmwrite64(VMCS_GUEST_PAT, rdmsr64(0x277));
	if (ctl_allows(c->entry, ENTRY_LOAD_EFER))
		vmwrite64(VMCS_GUEST_EFER, 0);
}

/* ---- reporting ---- */

void vmx_expect(struct vmx_case *c, const char *field, uint64_t got, uint64_t want)
{
	if (!expect_field(c->row->name, field, got, want))
		c->pass = 0;
}

void vmx_case_report(struct vmx_case *c)
{
	char name[160];
	check_true(pg_name(name, sizeof(name), "%s [SDM %s]", c->row->name, c->row->sdm), c->pass);
}

/* ---- the row runner ---- */

static struct vmx_case *enter_case;
static void enter_fn(void *arg)
{
	enter_case->outcome = vmx_enter((uint32_t)(uintptr_t)arg);
}

/* vmx_enter under trap_catch: a fault in L1 (VMLAUNCH raising #UD or #GP)
 * fails the row instead of ending the guest. Returns the vector or NO_FAULT. */
int vmx_enter_caught(struct vmx_case *c, uint32_t resume)
{
	enter_case = c;
	trap_reset();
	return trap_catch(enter_fn, (void *)(uintptr_t)resume);
}

static void check_fields(struct vmx_case *c)
{
	const struct vmx_row *row = c->row;
	uint32_t k = row->check;
	if (k & C_VMFAIL) {
		vmx_expect(c, "VMLAUNCH outcome (flags)", c->outcome, VM_FAIL_VALID);
		vmx_expect(c, "VM-instruction error", vmread(VMCS_INSN_ERROR), row->vmfail);
		return;
	}
	if (c->outcome != VMX_EXITED) {
		vmx_expect(c, "VMLAUNCH fell through with flags", c->outcome, VMX_EXITED);
		uint32_t err = 0;
		vmread_f(VMCS_INSN_ERROR, &err);
		gprintf("# %s: VM-instruction error %u\n", row->name, err);
		return;
	}
	vmx_expect(c, "exit reason", vmread(VMCS_EXIT_REASON), row->reason);
	if (k & C_QUAL)
		vmx_expect(c, "exit qualification", vmread(VMCS_EXIT_QUALIFICATION), row->qual);
	if (k & C_ENTRY_FAIL) {
		/* 26.8: the guest-state area is not saved: guest RIP keeps the value
		 * VM entry was given. */
		vmx_expect(c, "guest RIP (not saved by a failed entry)", vmread(VMCS_GUEST_RIP),
			   (uint32_t)(uintptr_t)row->body->start);
		return;
	}
	if (k & C_LEN)
		vmx_expect(c, "VM-exit instruction length", vmread(VMCS_EXIT_INSN_LEN),
			   (uint32_t)(row->body->next - row->body->at));
	if (k & C_INFO) {
		uint32_t mask = row->info_mask ? row->info_mask : 0xffffffffu;
		vmx_expect(c, "VM-exit instruction information (defined bits)", vmread(VMCS_EXIT_INSN_INFO) & mask,
			   row->info & mask);
	}
	if (k & C_INTR)
		vmx_expect(c, "VM-exit interruption information", vmread(VMCS_EXIT_INTR_INFO), row->intr);
	if (k & C_INTR_ERR)
		vmx_expect(c, "VM-exit interruption error code", vmread(VMCS_EXIT_INTR_ERROR), row->intr_err);
	if (k & C_LINEAR)
		vmx_expect(c, "guest-linear address", vmread(VMCS_GUEST_LINEAR_ADDR), row->linear);
	/* 27.2.3: IDT-vectoring information valid only for an exit during
	 * event delivery (27.2.4), which a row says with C_IDT_VEC. */
	if (k & C_IDT_VEC)
		vmx_expect(c, "IDT-vectoring information", vmread(VMCS_IDT_VECTORING_INFO), row->idt_vec);
	else
		vmx_expect(c, "IDT-vectoring information valid", vmread(VMCS_IDT_VECTORING_INFO) & INTR_VALID, 0);
	if (!(k & C_NO_RIP)) {
		const char *want = (k & C_RIP_NEXT) ? row->body->next : row->body->at;
		vmx_expect(c, "guest RIP", vmread(VMCS_GUEST_RIP), (uint32_t)(uintptr_t)want);
	}
	if (l2_event_count && row->reason != EXIT_EXCEPTION_NMI)
		gprintf("# %s: the L2 took vector %u\n", row->name, l2_event_vector);
}

/* An external-interrupt exit the row did not ask for, with no vector
 * acknowledged (SDM Vol.3 25.2, 27.2.2), is an interrupt for L1 that may be
 * gone when L1 enables interrupts (a level-triggered source may withdraw its
 * request; hvemu's --perturb-exits makes such requests). L1 lets in what is
 * there and resumes L2, as a hypervisor does; the row goes on with the next
 * exit. */
static void resume_unasked_interrupt_exits(struct vmx_case *c)
{
	unsigned n = 0;
	while (c->row->reason != EXIT_EXTERNAL_INTR && c->outcome == VMX_EXITED && n < 1000 &&
	       vmread(VMCS_EXIT_REASON) == EXIT_EXTERNAL_INTR && !(vmread(VMCS_EXIT_INTR_INFO) & INTR_VALID)) {
		__asm__ volatile("sti; nop; cli" ::: "memory");
		n++;
		if (vmx_enter_caught(c, 1) != NO_FAULT)
			break;
	}
	if (n)
		note("%s: %u external-interrupt exits the row did not ask for, L2 resumed", c->row->name, n);
}

void vmx_run_row(const struct vmx_row *row)
{
	char name[160];
	const char *why = row->skip ? row->skip() : 0;
	if (!why && !vmx_allows(row->pin, row->proc, row->proc2, row->exit, row->entry))
		why = "a control the row needs may not be 1 (IA32_VMX_*_CTLS allowed-1)";
	if (why) {
		skip(pg_name(name, sizeof(name), "%s [SDM %s]", row->name, row->sdm), "%s", why);
		return;
	}
	struct vmx_case c = { row, 1, 0 };
	vmx_setup_errors = 0;
	vmx_vmcs_init(1, row->body->start, row->pin, row->proc, row->proc2, row->exit, row->entry);
	vmwrite(VMCS_EXCEPTION_BITMAP, row->exc_bitmap);
	if (row->setup)
		row->setup(&c);
	l2_event_vector = 0xffffffffu;
	l2_event_count = 0;
	int vec = vmx_enter_caught(&c, 0);
	if (vec != NO_FAULT) {
		c.pass = 0;
		gprintf("# %s: VMLAUNCH raised vector %u in L1 (error 0x%x)\n", row->name, (uint32_t)vec,
			trap_last.error);
	} else {
		resume_unasked_interrupt_exits(&c);
		check_fields(&c);
		if (row->extra)
			row->extra(&c);
	}
	if (vmx_setup_errors)
		c.pass = 0;
	vmx_case_report(&c);
}

void vmx_run_rows(const struct vmx_row *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		vmx_run_row(&rows[i]);
}
