/* Page-modification logging from a 32-bit L1 hypervisor (SDM Vol.3 28.2.5;
 * the controls 24.6.2, the PML address 24.6.18, the PML index 24.4.2): an
 * L2 under EPT with accessed and dirty flags writes to two watched 4 KiB
 * pages, the only EPT leaves whose dirty flag is 0. Each write that sets
 * one logs the page's guest-physical address at PML address + 8 x index and
 * decrements the index (a second write to a page logs nothing); with the
 * index outside 0-511 the write is a "page-modification log full" VM exit
 * (reason 62, qualification 0) that does not happen; without EPT A/D
 * nothing is logged. The rows skip on models without "enable PML"
 * (nehalem-lite: no EPT A/D; core2: no secondary controls), where one row
 * checks that VMREAD of the PML index fails (12). */
#include "vmx/lib_vmx.h"
#include "vmx/ept.h"

#define PROC2_PML          (1u << 17)
#define VMCS_PML_INDEX     0x0812u
#define VMCS_PML_ADDRESS   0x200eu
#define VMCS_EPTP          0x201au
#define EXIT_PML_FULL      62

uint8_t pml_data[2][4096] __attribute__((aligned(4096)));
static uint64_t pml_log[512] __attribute__((aligned(4096)));
static uint64_t inv_desc[2] __attribute__((aligned(16)));
static struct ept ept;

/* movl $imm32, disp32: 10 bytes each. */
L2_BODY(b_pml, "", "movl $1, pml_data\n\tmovl $2, pml_data+4096+8\n\tmovl $3, pml_data+16", "");

static const char *no_pml(void)
{
	if (!vmx_has_proc2(PROC2_EPT) || !vmx_has_proc2(PROC2_PML))
		return "no enable PML (IA32_VMX_PROCBASED_CTLS2 bit 49)";
	return (vmx_caps.ept_vpid & CAP_EPT_AD) ? 0 : "no EPT A/D (IA32_VMX_EPT_VPID_CAP bit 21)";
}

static uint32_t page(int i) { return (uint32_t)(uintptr_t)pml_data[i]; }

/* Identity EPT (A/D per the row: arg bit 8), every leaf's A and D set but
 * the watched pages' D; the PML empty with the index from arg bits 15:0. */
static void pml_setup(struct vmx_case *c)
{
	uint32_t arg = c->row->arg;
	ept_reset();
	ept_build(&ept, 4, (arg >> 16) & 1);
	ept_pte(&ept, page(0));
	for (uint32_t i = 0; i < 512; i++) {
		uint64_t *pde = ept_entry(&ept, (uint64_t)i << 21, 2);
		if (pde && (*pde & EPT_PS))
			*pde |= EPT_A | EPT_D;
	}
	uint32_t base = page(0) & ~0x1fffffu;
	for (uint32_t j = 0; j < 512; j++)
		*ept_pte(&ept, base + (j << 12)) |= EPT_A | EPT_D;
	*ept_pte(&ept, page(0)) &= ~EPT_D;
	*ept_pte(&ept, page(1)) &= ~EPT_D;
	gmemset(pml_data, 0, sizeof(pml_data));
	gmemset(pml_log, 0, sizeof(pml_log));
	if ((vmx_caps.ept_vpid & CAP_INVEPT) && (vmx_caps.ept_vpid & CAP_INVEPT_ALL))
		invept_f(2, inv_desc);
	vmwrite64(VMCS_EPTP, ept.eptp);
	vmwrite64(VMCS_PML_ADDRESS, (uint32_t)(uintptr_t)pml_log);
	vmwrite(VMCS_PML_INDEX, arg & 0xffffu);
}
#define AD (1u << 16)

static void logged_two(struct vmx_case *c)
{
	vmx_expect(c, "PML entry 511", pml_log[511], page(0));
	vmx_expect(c, "PML entry 510", pml_log[510], page(1));
	vmx_expect(c, "PML entry 509 (the second write to page 0 logs nothing)", pml_log[509], 0);
	vmx_expect(c, "PML index", vmread(VMCS_PML_INDEX), 509);
	vmx_expect(c, "EPT D of page 0", !!(*ept_pte(&ept, page(0)) & EPT_D), 1);
	vmx_expect(c, "EPT D of page 1", !!(*ept_pte(&ept, page(1)) & EPT_D), 1);
	vmx_expect(c, "page 0 + 16", *(volatile uint32_t *)(pml_data[0] + 16), 3);
}
static void log_full(struct vmx_case *c)
{
	vmx_expect(c, "PML entry 0", pml_log[0], page(0));
	vmx_expect(c, "PML index", vmread(VMCS_PML_INDEX), 0xffff);
	vmx_expect(c, "guest RIP (the second write)", vmread(VMCS_GUEST_RIP),
		   (uint32_t)(uintptr_t)b_pml_at + 10);
	vmx_expect(c, "EPT D of page 1", !!(*ept_pte(&ept, page(1)) & EPT_D), 0);
	vmx_expect(c, "page 1 + 8 (not written)", *(volatile uint32_t *)(pml_data[1] + 8), 0);
}
static void nothing_logged(struct vmx_case *c)
{
	vmx_expect(c, "PML entry 511", pml_log[511], 0);
	vmx_expect(c, "PML index", vmread(VMCS_PML_INDEX), 511);
	vmx_expect(c, "page 1 + 8", *(volatile uint32_t *)(pml_data[1] + 8), 2);
}

static const struct vmx_row rows[] = {
	{ .name = "two pages written: each logged once, index 511 -> 509", .sdm = "28.2.5",
	  .body = &b_pml_body, .proc = PROC_SECONDARY, .proc2 = PROC2_EPT | PROC2_PML, .setup = pml_setup,
	  .arg = AD | 511, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = logged_two, .skip = no_pml },
	{ .name = "index 0: logged, FFFFH, then the next write is a log-full exit 62", .sdm = "28.2.5, 27.2.1",
	  .body = &b_pml_body, .proc = PROC_SECONDARY, .proc2 = PROC2_EPT | PROC2_PML, .setup = pml_setup,
	  .arg = AD | 0, .reason = EXIT_PML_FULL, .qual = 0, .check = C_QUAL | C_NO_RIP, .extra = log_full,
	  .skip = no_pml },
	{ .name = "EPT A/D off: nothing logged", .sdm = "28.2.5, 28.2.4",
	  .body = &b_pml_body, .proc = PROC_SECONDARY, .proc2 = PROC2_EPT | PROC2_PML, .setup = pml_setup,
	  .arg = 511, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = nothing_logged, .skip = no_pml },
};

/* 24.4.2, Appendix B: the PML index exists only with "enable PML". */
static void pml_index_field(void)
{
	static const struct vmx_row row = { .name = "VMREAD of the PML index: VMsucceed with enable PML, "
						    "else VMfailValid(12)",
					    .sdm = "24.4.2, 30.3 VMREAD" };
	struct vmx_case c = { &row, 1, 0 };
	vmx_vmcs_init(1, b_pml, 0, 0, 0, 0, 0);
	uint32_t v;
	if (vmx_has_proc2(PROC2_PML)) {
		vmx_expect(&c, "VMREAD", vmread_f(VMCS_PML_INDEX, &v), VM_SUCCEED);
	} else {
		vmx_expect(&c, "VMREAD", vmread_f(VMCS_PML_INDEX, &v), VM_FAIL_VALID);
		vmx_expect(&c, "VM-instruction error", vmread(VMCS_INSN_ERROR), VMERR_UNSUPPORTED_FIELD);
	}
	vmx_case_report(&c);
}

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
	pml_index_field();
}
