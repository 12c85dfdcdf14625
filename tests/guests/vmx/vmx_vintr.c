/* The interrupt side of APIC virtualization from a 32-bit L1 (SDM Vol.3
 * 325462-075US chapter 29): with "use TPR shadow", "virtual-interrupt
 * delivery" and external-interrupt exiting, VM entry evaluates the pending
 * virtual interrupt RVI names and delivers it through L2's IDT without a VM
 * exit (26.3.2.5, 29.2.1, 29.2.2), updating VISR, SVI, VPPR, VIRR and RVI in
 * the virtual-APIC page and the guest interrupt status; VTPR (through PPR
 * virtualization, 29.1.3) and RFLAGS.IF hold it, interrupt-window exiting
 * comes first (29.2.1). With "process posted interrupts" a self IPI of the
 * notification vector is processed (29.6: ON cleared, PIR into VIRR, RVI,
 * the interrupt delivered, the local APIC given its EOI), another vector
 * exits as an external interrupt. A model without the controls skips. */
#include "vmx/lib_vmx.h"

#define PIN_POSTED           (1u << 7)
#define PROC2_VID            (1u << 9)
#define VMCS_POSTED_NV       0x0002u
#define VMCS_GUEST_INTR_STATUS 0x0810u
#define VMCS_VIRTUAL_APIC    0x2012u
#define VMCS_POSTED_DESC     0x2016u

/* SDM Vol.3 29.1.1: the virtual-APIC page's registers. */
enum { VTPR = 0x80, VPPR = 0xa0, VISR = 0x100, VIRR = 0x200 };
#define NV 0xf2u

static uint8_t vapic[4096] __attribute__((aligned(4096)));
/* 29.6: PIR in bits 255:0, ON at bit 256. */
static volatile uint32_t pid[16] __attribute__((aligned(64)));

static volatile uint32_t *vreg(unsigned off)
{
	return (volatile uint32_t *)(vapic + off);
}
static int vbit(unsigned base, unsigned vec)
{
	return (*vreg(base + 0x10 * (vec / 32)) >> (vec % 32)) & 1;
}

/* xAPIC registers (SDM Vol.3 10.4.1), the page mapped by one 4 MiB page
 * in L1's page directory, which L2 shares. */
#define APIC_BASE 0xfee00000u
static volatile uint32_t *apic_reg(uint32_t off)
{
	return (volatile uint32_t *)(uintptr_t)(APIC_BASE + off);
}
static void apic_map(void)
{
	pg32_pd[APIC_BASE >> 22] = (APIC_BASE & 0xffc00000u) | 0x80u /* PS */ | 0x10u /* PCD */ | 0x3u;
	flush_tlb();
	*apic_reg(0xf0) = (1u << 8) | 0xff;   /* SVR: enabled */
	*apic_reg(0x80) = 0;                  /* TPR */
}

L2_INSN(b_nop, "nop");
/* A self IPI (ICR "self" shorthand, 10.6.1) of vector NV or 50H, then room
 * for its delivery. */
L2_BODY(b_self_nv, "", "movl $0x400f2, 0xfee00300", "nop; nop; nop; nop");
L2_BODY(b_self_50, "", "movl $0x40050, 0xfee00300", "nop; nop; nop; nop");

/* The virtual-APIC page cleared, VTPR row arg, RVI 41H with VIRR[41H],
 * RFLAGS.IF = 1 unless arg bit 31. */
static void vid_setup(struct vmx_case *c)
{
	for (unsigned i = 0; i < sizeof(vapic); i++)
		vapic[i] = 0;
	*vreg(VTPR) = c->row->arg & 0xff;
	*vreg(VIRR + 0x20) = 1u << 1;
	vmwrite64(VMCS_VIRTUAL_APIC, (uint32_t)(uintptr_t)vapic);
	vmwrite(VMCS_GUEST_INTR_STATUS, 0x41);
	vmwrite(VMCS_GUEST_RFLAGS, (c->row->arg & 0x80000000u) ? 0x2 : 0x202);
	l2_event_count = 0;
}
/* 29.2.2: delivered: VISR[41H], SVI 41H, VPPR 40H, VIRR[41H] clear, RVI 0. */
static void delivered_41(struct vmx_case *c)
{
	vmx_expect(c, "L2 events taken", l2_event_count, 1);
	vmx_expect(c, "L2 event vector", l2_event_vector, 0x41);
	vmx_expect(c, "guest interrupt status (SVI 41H, RVI 0)", vmread(VMCS_GUEST_INTR_STATUS), 0x4100);
	vmx_expect(c, "VPPR", *vreg(VPPR), 0x40);
	vmx_expect(c, "VISR[41H]", (uint64_t)vbit(VISR, 0x41), 1);
	vmx_expect(c, "VIRR[41H]", (uint64_t)vbit(VIRR, 0x41), 0);
}
/* Held: nothing delivered, RVI and VIRR as they were. */
static void held_41(struct vmx_case *c)
{
	vmx_expect(c, "L2 events taken", l2_event_count, 0);
	vmx_expect(c, "guest interrupt status (RVI 41H)", vmread(VMCS_GUEST_INTR_STATUS), 0x41);
	vmx_expect(c, "VIRR[41H]", (uint64_t)vbit(VIRR, 0x41), 1);
}
static void held_by_vtpr(struct vmx_case *c)
{
	held_41(c);
	vmx_expect(c, "VPPR (29.1.3: VTPR)", *vreg(VPPR), 0x50);
}

/* Posted interrupts: PIR with 45H and 3AH, ON set, the notification vector
 * NV, RFLAGS.IF = 1, RVI 0. */
static void posted_setup(struct vmx_case *c)
{
	(void)c;
	for (unsigned i = 0; i < sizeof(vapic); i++)
		vapic[i] = 0;
	for (unsigned i = 0; i < 16; i++)
		pid[i] = 0;
	pid[2] = 1u << 5;      /* 45H */
	pid[1] = 1u << 26;     /* 3AH */
	pid[8] = 1;            /* ON */
	vmwrite64(VMCS_VIRTUAL_APIC, (uint32_t)(uintptr_t)vapic);
	vmwrite64(VMCS_POSTED_DESC, (uint32_t)(uintptr_t)pid);
	vmwrite(VMCS_POSTED_NV, NV);
	vmwrite(VMCS_GUEST_INTR_STATUS, 0);
	vmwrite(VMCS_GUEST_RFLAGS, 0x202);
	l2_event_count = 0;
}
static void posted_delivered(struct vmx_case *c)
{
	vmx_expect(c, "L2 events taken", l2_event_count, 1);
	vmx_expect(c, "L2 event vector", l2_event_vector, 0x45);
	vmx_expect(c, "ON", pid[8] & 1, 0);
	vmx_expect(c, "PIR", (uint64_t)(pid[1] | pid[2]), 0);
	vmx_expect(c, "guest interrupt status (SVI 45H, RVI 3AH)", vmread(VMCS_GUEST_INTR_STATUS), 0x453a);
	vmx_expect(c, "VIRR[3AH]", (uint64_t)vbit(VIRR, 0x3a), 1);
	/* 29.6 step 3: the processor's EOI dismissed the notification. */
	vmx_expect(c, "local APIC ISR[F2H]", (*apic_reg(0x100 + 0x10 * (NV / 32)) >> (NV % 32)) & 1, 0);
}
/* 29.6 step 2: another vector exits as usual; the descriptor untouched. L1
 * ends the acknowledged 50H with EOI. */
static void posted_untouched(struct vmx_case *c)
{
	vmx_expect(c, "L2 events taken", l2_event_count, 0);
	vmx_expect(c, "ON", pid[8] & 1, 1);
	vmx_expect(c, "PIR", pid[2], 1u << 5);
	*apic_reg(0xb0) = 0;
}

#define VID_PIN PIN_EXT_INTR
#define VID_PROC (PROC_TPR_SHADOW | PROC_SECONDARY)

static const struct vmx_row rows[] = {
	{ .name = "virtual-interrupt delivery at VM entry: RVI 41H through L2's IDT, no VM exit",
	  .sdm = "26.3.2.5, 29.2.1, 29.2.2", .body = &b_nop_body, .pin = VID_PIN, .proc = VID_PROC,
	  .proc2 = PROC2_VID, .setup = vid_setup, .arg = 0, .reason = EXIT_VMCALL, .check = C_NO_RIP,
	  .extra = delivered_41 },
	{ .name = "virtual-interrupt delivery held by VTPR 50H (VPPR 50H)", .sdm = "29.1.3, 29.2.1",
	  .body = &b_nop_body, .pin = VID_PIN, .proc = VID_PROC, .proc2 = PROC2_VID, .setup = vid_setup,
	  .arg = 0x50, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = held_by_vtpr },
	{ .name = "virtual-interrupt delivery held by RFLAGS.IF = 0", .sdm = "29.2.2",
	  .body = &b_nop_body, .pin = VID_PIN, .proc = VID_PROC, .proc2 = PROC2_VID, .setup = vid_setup,
	  .arg = 0x80000000u, .reason = EXIT_VMCALL, .check = C_NO_RIP, .extra = held_41 },
	{ .name = "interrupt-window exiting takes priority over virtual-interrupt delivery", .sdm = "29.2.1, 25.2",
	  .body = &b_nop_body, .pin = VID_PIN, .proc = VID_PROC | PROC_INTR_WINDOW, .proc2 = PROC2_VID,
	  .setup = vid_setup, .arg = 0, .reason = EXIT_INTR_WINDOW, .check = C_NO_RIP, .extra = held_41 },
	{ .name = "posted interrupts: a self IPI of the notification vector is processed, 45H delivered",
	  .sdm = "29.6, 29.2.2", .body = &b_self_nv_body, .pin = VID_PIN | PIN_POSTED, .proc = VID_PROC,
	  .proc2 = PROC2_VID, .exit = EXIT_ACK_INTR, .setup = posted_setup, .reason = EXIT_VMCALL,
	  .check = C_NO_RIP, .extra = posted_delivered },
	{ .name = "posted interrupts: another vector (50H) exits with its vector", .sdm = "29.6, 27.2.2",
	  .body = &b_self_50_body, .pin = VID_PIN | PIN_POSTED, .proc = VID_PROC, .proc2 = PROC2_VID,
	  .exit = EXIT_ACK_INTR, .setup = posted_setup, .reason = EXIT_EXTERNAL_INTR, .check = C_INTR | C_NO_RIP,
	  .intr = INTR_VALID | INTR_TYPE_EXT | 0x50, .extra = posted_untouched },
};

void guest_main(void)
{
	vmx_host_init();
	if (!vmx_on())
		skip_all("VMXON failed");
	apic_map();
	RUN_ROWS(rows);
}
