/* The access side of APIC virtualization from a 32-bit L1 (SDM Vol.3
 * 325462-075US chapter 29): L2 reads and writes the APIC-access page (29.4)
 * and the x2APIC MSRs (29.5). Without "use TPR shadow" an access exits
 * (APIC access, 44, fault-like, the offset and access type in the
 * qualification); with it the TPR is read from and written to the
 * virtual-APIC page, a write below TPR threshold exits after the instruction
 * (43); with "APIC-register virtualization" more registers are read, and a
 * write the processor cannot complete exits after it (APIC write, 56).
 * "Virtualize x2APIC mode": RDMSR/WRMSR of 808H on the virtual-APIC page
 * (bits 63:8 of a write: #GP). A model without the controls skips. */
#include "vmx/lib_vmx.h"

#define PROC2_VAA            (1u << 0)    /* virtualize APIC accesses */
#define PROC2_X2APIC         (1u << 4)    /* virtualize x2APIC mode */
#define PROC2_ARV            (1u << 8)    /* APIC-register virtualization */
#define VMCS_VIRTUAL_APIC    0x2012u
#define VMCS_APIC_ACCESS     0x2014u
#define EXIT_APIC_ACCESS     44
#define EXIT_TPR_BELOW       43
#define EXIT_APIC_WRITE      56

/* The APIC-access page (L2 reaches it through L1's identity mapping) and
 * the virtual-APIC page; the MSR bitmaps all 0 (no MSR exits). */
uint8_t apicv_access[4096] __attribute__((aligned(4096)));
static uint8_t vapic[4096] __attribute__((aligned(4096)));
static uint8_t msr_bitmaps[4096] __attribute__((aligned(4096)));

static volatile uint32_t *vreg(unsigned off)
{
	return (volatile uint32_t *)(vapic + off);
}

L2_INSN(b_rd_tpr, "movl apicv_access+0x80, %eax");
L2_INSN(b_wr_tpr, "movl $0x10, apicv_access+0x80");
L2_INSN(b_wr_icr, "movl $0x40031, apicv_access+0x300");
L2_INSN(b_rd_id, "movl apicv_access+0x20, %eax");
L2_INSN(b_rd_ppr, "movl apicv_access+0xa0, %eax");
L2_INSN(b_wr_ldr, "movl $0x01000000, apicv_access+0xd0");
L2_BODY(b_rdmsr_tpr, "movl $0x808, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr_tpr, "movl $0x808, %ecx; movl $0x30, %eax; xorl %edx, %edx", "wrmsr", "");
L2_BODY(b_wrmsr_tpr_gp, "movl $0x808, %ecx; movl $0x130, %eax; xorl %edx, %edx", "wrmsr", "");

/* Both pages filled with their offsets (APIC-access page: 22220000H |
 * offset, virtual-APIC page: 11110000H | offset), VTPR 50H, TPR threshold
 * row arg. */
static void apicv_setup(struct vmx_case *c)
{
	for (unsigned off = 0; off < 4096; off += 4) {
		*(volatile uint32_t *)(apicv_access + off) = 0x22220000u | off;
		*vreg(off) = 0x11110000u | off;
	}
	for (unsigned i = 0; i < sizeof(msr_bitmaps); i++)
		msr_bitmaps[i] = 0;
	*vreg(0x80) = 0x50;
	vmwrite64(VMCS_VIRTUAL_APIC, (uint32_t)(uintptr_t)vapic);
	vmwrite64(VMCS_APIC_ACCESS, (uint32_t)(uintptr_t)apicv_access);
	vmwrite64(VMCS_MSR_BITMAP, (uint32_t)(uintptr_t)msr_bitmaps);
	vmwrite(VMCS_TPR_THRESHOLD, c->row->arg);
	l2_regs.eax = 0xdeadbeef;
}

static void eax_vtpr(struct vmx_case *c)
{
	vmx_expect(c, "EAX (VTPR)", l2_regs.eax, 0x50);
}
static void eax_vid(struct vmx_case *c)
{
	vmx_expect(c, "EAX (virtual APIC ID)", l2_regs.eax, 0x11110020);
}
static void vtpr_10(struct vmx_case *c)
{
	vmx_expect(c, "VTPR", *vreg(0x80), 0x10);
	vmx_expect(c, "APIC-access page 080H untouched", *(volatile uint32_t *)(apicv_access + 0x80), 0x22220080);
}
static void vtpr_30(struct vmx_case *c)
{
	vmx_expect(c, "VTPR", *vreg(0x80), 0x30);
}
static void vldr(struct vmx_case *c)
{
	vmx_expect(c, "virtual LDR", *vreg(0xd0), 0x01000000);
}
static void vtpr_50(struct vmx_case *c)
{
	vmx_expect(c, "VTPR unchanged", *vreg(0x80), 0x50);
}

#define SHADOW (PROC_TPR_SHADOW | PROC_SECONDARY)
#define X2_PROC (SHADOW | PROC_MSR_BITMAPS)

static const struct vmx_row rows[] = {
	{ .name = "APIC-access page read without the TPR shadow: APIC-access exit, offset 080H", .sdm = "29.4.2, 27.2.1",
	  .body = &b_rd_tpr_body, .proc = PROC_SECONDARY, .proc2 = PROC2_VAA, .setup = apicv_setup,
	  .reason = EXIT_APIC_ACCESS, .qual = 0x080, .check = C_QUAL },
	{ .name = "TPR read virtualized: VTPR from the virtual-APIC page", .sdm = "29.4.2",
	  .body = &b_rd_tpr_body, .proc = SHADOW, .proc2 = PROC2_VAA, .setup = apicv_setup,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = eax_vtpr },
	{ .name = "TPR write virtualized; VTPR below TPR threshold: exit after the instruction",
	  .sdm = "29.4.3.2, 29.1.2", .body = &b_wr_tpr_body, .proc = SHADOW, .proc2 = PROC2_VAA,
	  .setup = apicv_setup, .arg = 3, .reason = EXIT_TPR_BELOW, .check = C_RIP_NEXT, .extra = vtpr_10 },
	{ .name = "ICR write without virtual-interrupt delivery: APIC-access exit, write at 300H",
	  .sdm = "29.4.3.1, 27.2.1", .body = &b_wr_icr_body, .proc = SHADOW, .proc2 = PROC2_VAA,
	  .setup = apicv_setup, .reason = EXIT_APIC_ACCESS, .qual = 0x1300, .check = C_QUAL },
	{ .name = "APIC-register virtualization: APIC ID read virtualized", .sdm = "29.4.2",
	  .body = &b_rd_id_body, .proc = SHADOW, .proc2 = PROC2_VAA | PROC2_ARV, .setup = apicv_setup,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = eax_vid },
	{ .name = "APIC-register virtualization: PPR read exits", .sdm = "29.4.2",
	  .body = &b_rd_ppr_body, .proc = SHADOW, .proc2 = PROC2_VAA | PROC2_ARV, .setup = apicv_setup,
	  .reason = EXIT_APIC_ACCESS, .qual = 0x0a0, .check = C_QUAL },
	{ .name = "APIC-register virtualization: LDR write virtualized, then an APIC-write exit",
	  .sdm = "29.4.3.1, 29.4.3.3", .body = &b_wr_ldr_body, .proc = SHADOW, .proc2 = PROC2_VAA | PROC2_ARV,
	  .setup = apicv_setup, .reason = EXIT_APIC_WRITE, .qual = 0x0d0, .check = C_QUAL | C_RIP_NEXT,
	  .extra = vldr },
	{ .name = "virtualize x2APIC mode: RDMSR 808H reads VTPR", .sdm = "29.5",
	  .body = &b_rdmsr_tpr_body, .proc = X2_PROC, .proc2 = PROC2_X2APIC, .setup = apicv_setup,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = eax_vtpr },
	{ .name = "virtualize x2APIC mode: WRMSR 808H writes VTPR", .sdm = "29.5",
	  .body = &b_wrmsr_tpr_body, .proc = X2_PROC, .proc2 = PROC2_X2APIC, .setup = apicv_setup,
	  .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = vtpr_30 },
	{ .name = "virtualize x2APIC mode: WRMSR 808H with bit 8 set: #GP", .sdm = "29.5",
	  .body = &b_wrmsr_tpr_gp_body, .proc = X2_PROC, .proc2 = PROC2_X2APIC, .exc_bitmap = 1u << 13,
	  .setup = apicv_setup, .reason = EXIT_EXCEPTION_NMI, .extra = vtpr_50 },
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
}
