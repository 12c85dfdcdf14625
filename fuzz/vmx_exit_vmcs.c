/* vmx_exit_fuzz's VMCS: a legal 32- or 64-bit guest as the starting point,
 * the exiting controls the input picks within what the capability MSRs
 * allow, and typed mutation operators. Each operator belongs to a family of
 * VM-entry checks (SDM Vol.3 26.2.1-26.3.1) and moves one field to the pass
 * or the fail side of its check, at the boundary (a count of 4 or 5, the last
 * page below MAXPHYADDR or the first above, limit FFFFFH with G 0 or 1...):
 * mutation and repair in one, so a check is met both ways without a search.
 */
#include "fuzz/vmx_exit_fuzz.h"

#include <string.h>

#include "mmu/x86_vmx.h"
#include "vmx/capabilities.h"

#define ROW(id) v[VMCS_ROW_##id]

static uint32_t must1(uint64_t cap) { return (uint32_t)cap; }
static uint32_t may1(uint64_t cap) { return (uint32_t)(cap >> 32); }

/* want within the capability: the must-be-1 bits set, the may-not-be-1 clear. */
static uint32_t adjust(uint64_t cap, uint32_t want)
{
	return vmx_ctl_adjust(cap, want);
}

void vmx_exit_vmcs_base(const struct machine *m, uint64_t *v, uint8_t guest)
{
	const struct vo_cpu *c = &m->ocpu;
	bool m64 = guest & 1;
	uint64_t data_base = !m64 && (guest & 2) ? SEG_BASE_ESCAPE : 0;
	memcpy(v, m->vmcs_at_launch, sizeof(m->vmcs_at_launch));

	ROW(PIN_BASED_CONTROLS) = adjust(c->pin, 0);
	ROW(PRIMARY_PROC_CONTROLS) = adjust(c->proc, 0);
	ROW(SECONDARY_PROC_CONTROLS) = 0;
	ROW(EXIT_CONTROLS) = adjust(c->exit, VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE));
	ROW(ENTRY_CONTROLS) = adjust(c->entry, m64 ? VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST) : 0);
	ROW(IO_BITMAP_A) = IO_BITMAP_A_PA;
	ROW(IO_BITMAP_B) = IO_BITMAP_B_PA;
	ROW(MSR_BITMAP) = MSR_BITMAP_PA;
	ROW(VMCS_LINK_POINTER) = UINT64_MAX;
	ROW(EXCEPTION_BITMAP) = 0;
	ROW(CR3_TARGET_COUNT) = 0;
	ROW(ENTRY_INTR_INFO) = 0;
	/* Poison what the exit must write (SDM Vol.3 27.2). */
	ROW(EXIT_REASON) = 0x5a5a;
	ROW(EXIT_QUALIFICATION) = ROW(GUEST_LINEAR_ADDR) = 0xa5a5a5a5a5a5a5a5ull;
	ROW(EXIT_INSTRUCTION_LEN) = ROW(EXIT_INSTRUCTION_INFO) = 0xa5a5a5a5u;
	ROW(EXIT_INTR_INFO) = ROW(IDT_VECTORING_INFO) = 0x5a5a5a5au;

	ROW(GUEST_CR0) = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	ROW(GUEST_CR3) = m64 ? PML4 : PD32;
	ROW(GUEST_CR4) = CR4_VMXE | (m64 ? CR4_PAE : 0) | (guest & 0x10 ? CR4_OSXSAVE : 0);
	ROW(CR0_READ_SHADOW) = ROW(GUEST_CR0);
	ROW(CR4_READ_SHADOW) = ROW(GUEST_CR4);
	ROW(GUEST_DR7) = 0x400;
	ROW(GUEST_IA32_DEBUGCTL) = 0;
	ROW(GUEST_RSP) = L2_STACK;
	ROW(GUEST_RIP) = L2_CODE;
	ROW(GUEST_RFLAGS) = 2;
	ROW(GUEST_CS_SELECTOR) = m64 ? 0x18 : 0x08;
	ROW(GUEST_CS_AR) = m64 ? 0xa09b : 0xc09b;
	ROW(GUEST_CS_LIMIT) = 0xffffffff;
	ROW(GUEST_CS_BASE) = 0;
	static const enum vmcs_row data[4][4] = {
		{ VMCS_ROW_GUEST_SS_SELECTOR, VMCS_ROW_GUEST_SS_AR, VMCS_ROW_GUEST_SS_LIMIT, VMCS_ROW_GUEST_SS_BASE },
		{ VMCS_ROW_GUEST_DS_SELECTOR, VMCS_ROW_GUEST_DS_AR, VMCS_ROW_GUEST_DS_LIMIT, VMCS_ROW_GUEST_DS_BASE },
		{ VMCS_ROW_GUEST_ES_SELECTOR, VMCS_ROW_GUEST_ES_AR, VMCS_ROW_GUEST_ES_LIMIT, VMCS_ROW_GUEST_ES_BASE },
		{ VMCS_ROW_GUEST_FS_SELECTOR, VMCS_ROW_GUEST_FS_AR, VMCS_ROW_GUEST_FS_LIMIT, VMCS_ROW_GUEST_FS_BASE },
	};
	for (unsigned k = 0; k < 4; k++) {
		v[data[k][0]] = 0x10;
		v[data[k][1]] = 0xc093;
		v[data[k][2]] = 0xffffffff;
		v[data[k][3]] = k < 3 ? data_base : 0;
	}
	ROW(GUEST_GS_SELECTOR) = 0x10;
	ROW(GUEST_GS_AR) = 0xc093;
	ROW(GUEST_GS_LIMIT) = 0xffffffff;
	ROW(GUEST_GS_BASE) = 0;
	ROW(GUEST_LDTR_SELECTOR) = 0;
	ROW(GUEST_LDTR_AR) = VMX_AR_UNUSABLE;
	ROW(GUEST_TR_SELECTOR) = 0x28;
	ROW(GUEST_TR_AR) = 0x8b;
	ROW(GUEST_TR_LIMIT) = 0x67;
	ROW(GUEST_TR_BASE) = L2_TSS;
	ROW(GUEST_GDTR_BASE) = L2_GDT;
	ROW(GUEST_GDTR_LIMIT) = 0x2f;
	switch ((guest >> 2) & 3) {
	case 0: ROW(GUEST_IDTR_BASE) = m64 ? L2_IDT64 : L2_IDT; ROW(GUEST_IDTR_LIMIT) = m64 ? 0xfff : 0x7ff; break;
	case 1: ROW(GUEST_IDTR_BASE) = HOLE; ROW(GUEST_IDTR_LIMIT) = 0xfff; break;
	case 2: ROW(GUEST_IDTR_BASE) = m64 ? HOLE - 0x800 : 0xffffff00u; ROW(GUEST_IDTR_LIMIT) = 0xfff; break;
	default: ROW(GUEST_IDTR_BASE) = m64 ? L2_IDT64 : L2_IDT; ROW(GUEST_IDTR_LIMIT) = 0x3f; break;
	}
	ROW(GUEST_ACTIVITY_STATE) = 0;
	ROW(GUEST_INTERRUPTIBILITY) = 0;
	ROW(GUEST_PENDING_DBG_EXCEPTIONS) = 0;
	ROW(GUEST_IA32_SYSENTER_ESP) = ROW(GUEST_IA32_SYSENTER_EIP) = 0;
}

void vmx_exit_controls(const struct machine *m, uint64_t *v, uint32_t bits, uint8_t cr_bits)
{
	const struct vo_cpu *c = &m->ocpu;
	static const uint8_t proc_bits[] = {
		VMX_PROC_HLT_EXITING, VMX_PROC_INVLPG_EXITING, VMX_PROC_MWAIT_EXITING, VMX_PROC_RDPMC_EXITING,
		VMX_PROC_RDTSC_EXITING, VMX_PROC_CR3_LOAD_EXITING, VMX_PROC_CR3_STORE_EXITING,
		VMX_PROC_CR8_LOAD_EXITING, VMX_PROC_CR8_STORE_EXITING, VMX_PROC_MOV_DR_EXITING,
		VMX_PROC_UNCOND_IO_EXITING, VMX_PROC_IO_BITMAPS, VMX_PROC_MSR_BITMAPS, VMX_PROC_MONITOR_EXITING,
		VMX_PROC_PAUSE_EXITING,
	};
	static const uint8_t proc2_bits[] = { VMX_PROC2_DESC_TABLE_EXITING, VMX_PROC2_RDTSCP,
					      VMX_PROC2_WBINVD_EXITING, VMX_PROC2_RDRAND_EXITING,
					      VMX_PROC2_RDSEED_EXITING };
	uint32_t proc = 0, proc2 = 0;
	for (unsigned k = 0; k < sizeof(proc_bits); k++)
		if ((bits >> k) & 1)
			proc |= VMX_CTL(proc_bits[k]);
	for (unsigned k = 0; k < sizeof(proc2_bits); k++)
		if ((bits >> (15 + k)) & 1)
			proc2 |= VMX_CTL(proc2_bits[k]);
	if ((bits >> 20) & 1)
		proc |= VMX_CTL(VMX_PROC_SECONDARY_CONTROLS);
	/* The default1 bits stay: the processor's minimum (A.2). */
	ROW(PRIMARY_PROC_CONTROLS) = adjust(c->proc, proc);
	ROW(SECONDARY_PROC_CONTROLS) = adjust(c->proc2, proc2);
	ROW(CR3_TARGET_COUNT) = (bits >> 21) & 3;     /* 0-3; the mutations reach 4 and 5 */
	static const uint64_t targets[] = { PD32, PML4, 0, PD32 | 8 };
	ROW(CR3_TARGET_VALUE0) = targets[(bits >> 23) & 3];
	ROW(CR3_TARGET_VALUE1) = targets[(bits >> 25) & 3];
	ROW(CR3_TARGET_VALUE2) = PML4;
	ROW(CR3_TARGET_VALUE3) = PD32;
	/* Guest/host masks and read shadows: which CR0/CR4 bits L1 owns and
	 * what the guest reads there. */
	static const uint64_t cr0_bits[] = { CR0_TS, CR0_MP, CR0_EM, CR0_PE, CR0_PG, CR0_NE, CR0_WP, CR0_CD };
	static const uint64_t cr4_bits[] = { CR4_VMXE, CR4_PAE, CR4_OSXSAVE, CR4_PSE, CR4_DE, CR4_TSD, CR4_PGE, CR4_PCE };
	uint64_t mask0 = 0, mask4 = 0, flip0 = 0, flip4 = 0;
	for (unsigned k = 0; k < 8; k++) {
		if ((bits >> 27) & 1 ? (cr_bits >> k) & 1 : 0)
			mask0 |= cr0_bits[k];
		if ((bits >> 28) & 1 ? (cr_bits >> k) & 1 : 0)
			mask4 |= cr4_bits[k];
		if ((bits >> 29) & 1 ? ((cr_bits >> k) & 3) == 3 : 0)
			flip0 |= cr0_bits[k], flip4 |= cr4_bits[k];
	}
	ROW(CR0_GUEST_HOST_MASK) = mask0;
	ROW(CR4_GUEST_HOST_MASK) = mask4;
	ROW(CR0_READ_SHADOW) = ROW(GUEST_CR0) ^ flip0;
	ROW(CR4_READ_SHADOW) = ROW(GUEST_CR4) ^ flip4;
}

/* A control bit to flip: a free one (legal) or one the capability fixes
 * (reserved setting). */
static uint64_t flip_control(uint64_t cap, uint64_t value, bool reserved, uint8_t b)
{
	uint32_t must = must1(cap), may = may1(cap);
	uint32_t fixed = must | ~may, free = ~fixed;
	uint32_t pool = reserved ? fixed : free;
	if (!pool)
		return value;
	unsigned n = (unsigned)__builtin_popcount(pool), pick = b % n;
	for (unsigned bit = 0; bit < 32; bit++)
		if ((pool >> bit) & 1 && pick-- == 0)
			return value ^ (1ull << bit);
	return value;
}

/* Beyond or at the top of the physical-address width, aligned or not. */
static uint64_t boundary_address(const struct machine *m, uint8_t a, uint64_t dflt, uint64_t align)
{
	uint64_t top = 1ull << m->ocpu.id.maxphyaddr;
	switch (a % 5) {
	case 0: return dflt;
	case 1: return dflt + align / 2;       /* misaligned */
	case 2: return top - 0x1000;           /* the last page inside */
	case 3: return top;                    /* the first outside */
	default: return 1ull << 63;
	}
}

/* The segment access-rights lattice: type, S, DPL, P, reserved, L/DB, G,
 * unusable; and the selector's RPL and TI. */
static void mutate_segment(uint64_t *v, uint8_t a, uint8_t b)
{
	static const enum vmcs_row ar[8] = { VMCS_ROW_GUEST_CS_AR, VMCS_ROW_GUEST_SS_AR, VMCS_ROW_GUEST_DS_AR,
					     VMCS_ROW_GUEST_ES_AR, VMCS_ROW_GUEST_FS_AR, VMCS_ROW_GUEST_GS_AR,
					     VMCS_ROW_GUEST_TR_AR, VMCS_ROW_GUEST_LDTR_AR };
	static const enum vmcs_row sel[8] = { VMCS_ROW_GUEST_CS_SELECTOR, VMCS_ROW_GUEST_SS_SELECTOR,
					      VMCS_ROW_GUEST_DS_SELECTOR, VMCS_ROW_GUEST_ES_SELECTOR,
					      VMCS_ROW_GUEST_FS_SELECTOR, VMCS_ROW_GUEST_GS_SELECTOR,
					      VMCS_ROW_GUEST_TR_SELECTOR, VMCS_ROW_GUEST_LDTR_SELECTOR };
	static const enum vmcs_row lim[8] = { VMCS_ROW_GUEST_CS_LIMIT, VMCS_ROW_GUEST_SS_LIMIT,
					      VMCS_ROW_GUEST_DS_LIMIT, VMCS_ROW_GUEST_ES_LIMIT,
					      VMCS_ROW_GUEST_FS_LIMIT, VMCS_ROW_GUEST_GS_LIMIT,
					      VMCS_ROW_GUEST_TR_LIMIT, VMCS_ROW_GUEST_LDTR_LIMIT };
	unsigned s = a % 8;
	uint64_t *r = &v[ar[s]];
	switch ((a >> 3) % 10) {
	case 0: *r = (*r & ~0xfull) | (b % 16); break;              /* type */
	case 1: *r ^= VMX_AR_S; break;
	case 2: *r = (*r & ~(uint64_t)VMX_AR_DPL_MASK) | (uint64_t)(b % 4) << VMX_AR_DPL_SHIFT; break;
	case 3: *r ^= VMX_AR_P; break;
	case 4: *r ^= 1ull << (b & 1 ? 8 + b % 4 : 17 + b % 15); break;   /* reserved */
	case 5: *r ^= b & 1 ? VMX_AR_L : VMX_AR_DB; break;
	case 6:                                                      /* G vs limit, at the boundary */
		v[lim[s]] = (const uint32_t[]){ 0xfffff, 0x100000, 0xffffffff, 0xfffffffe }[b % 4];
		if (b & 4)
			*r ^= VMX_AR_G;
		break;
	case 7: *r ^= VMX_AR_UNUSABLE; break;
	case 8: v[sel[s]] ^= b & 1 ? 4 : 1 + b % 3; break;           /* TI, RPL */
	default:                                                     /* LDTR made usable */
		v[ar[7]] = b & 1 ? 0x82 : 0x8082;
		v[VMCS_ROW_GUEST_LDTR_LIMIT] = 0xffff;
		break;
	}
}

void vmx_exit_mutate(const struct machine *m, uint64_t *v, uint8_t op, uint8_t a, uint8_t b)
{
	const struct vo_cpu *c = &m->ocpu;
	uint64_t top = 1ull << c->id.maxphyaddr;
	switch (op % 16) {
	case 0: {          /* a control field's bit, within the masks or against them */
		static const enum vmcs_row f[5] = { VMCS_ROW_PIN_BASED_CONTROLS, VMCS_ROW_PRIMARY_PROC_CONTROLS,
						    VMCS_ROW_SECONDARY_PROC_CONTROLS, VMCS_ROW_EXIT_CONTROLS,
						    VMCS_ROW_ENTRY_CONTROLS };
		const uint64_t caps[5] = { c->pin, c->proc, c->proc2, c->exit, c->entry };
		unsigned k = a % 5;
		v[f[k]] = flip_control(caps[k], v[f[k]], a & 0x80, b);
		if (k == 2)
			ROW(PRIMARY_PROC_CONTROLS) |= VMX_CTL(VMX_PROC_SECONDARY_CONTROLS) & ((uint64_t)may1(c->proc));
		break;
	}
	case 1:            /* CR3-target count at the boundary */
		ROW(CR3_TARGET_COUNT) = (const uint8_t[]){ 4, 5, 0, 255 }[a % 4];
		break;
	case 2: {          /* bitmap addresses, the MSR lists */
		uint64_t *at = a % 3 == 0 ? &ROW(IO_BITMAP_A) : a % 3 == 1 ? &ROW(IO_BITMAP_B) : &ROW(MSR_BITMAP);
		*at = boundary_address(m, b, *at, 0x1000);
		ROW(PRIMARY_PROC_CONTROLS) |= VMX_CTL(a % 3 == 2 ? VMX_PROC_MSR_BITMAPS : VMX_PROC_IO_BITMAPS);
		break;
	}
	case 3: {          /* NMI exiting, virtual NMIs, NMI-window exiting: the paired invariants */
		uint64_t pin = ROW(PIN_BASED_CONTROLS) & ~(VMX_CTL(VMX_PIN_NMI_EXITING) | VMX_CTL(VMX_PIN_VIRTUAL_NMIS));
		if (a & 1)
			pin |= VMX_CTL(VMX_PIN_NMI_EXITING);
		if (a & 2)
			pin |= VMX_CTL(VMX_PIN_VIRTUAL_NMIS);
		ROW(PIN_BASED_CONTROLS) = pin;
		if (a & 4)
			ROW(PRIMARY_PROC_CONTROLS) |= VMX_CTL(VMX_PROC_NMI_WINDOW_EXITING);
		break;
	}
	case 4:            /* enable VPID with VPID 0 or not */
		ROW(PRIMARY_PROC_CONTROLS) |= VMX_CTL(VMX_PROC_SECONDARY_CONTROLS);
		ROW(SECONDARY_PROC_CONTROLS) |= VMX_CTL(VMX_PROC2_VPID);
		ROW(VPID) = a & 1 ? 0 : 1 + b;
		break;
	case 5:            /* save VMX-preemption timer value, timer on or off */
		ROW(EXIT_CONTROLS) |= VMX_CTL(VMX_EXITCTL_SAVE_PREEMPTION_TIMER);
		if (a & 1)
			ROW(PIN_BASED_CONTROLS) |= VMX_CTL(VMX_PIN_PREEMPTION_TIMER);
		break;
	case 6: {          /* an MSR list: 1-3 entries, its address at the boundary; the
			      VM-entry list also on a run of the machine's MSR-load area */
		static const enum vmcs_row cnt[3] = { VMCS_ROW_EXIT_MSR_STORE_COUNT, VMCS_ROW_EXIT_MSR_LOAD_COUNT,
						      VMCS_ROW_ENTRY_MSR_LOAD_COUNT };
		static const enum vmcs_row adr[3] = { VMCS_ROW_EXIT_MSR_STORE_ADDR, VMCS_ROW_EXIT_MSR_LOAD_ADDR,
						      VMCS_ROW_ENTRY_MSR_LOAD_ADDR };
		unsigned k = a % 3;
		v[cnt[k]] = 1 + (b & 1) + (b & 0x40 ? 1 : 0);
		v[adr[k]] = (const uint64_t[]){ MSR_AREA_PA + 16 * ((b >> 1) % 8), DATA + 8, top - 16,
						top - 16 * (b & 1 ? 1 : 2), top }[(a >> 2) % 5];
		if (v[adr[k]] == MSR_AREA_PA + 16 * ((b >> 1) % 8) && (b >> 1) % 8 + v[cnt[k]] > 8)
			v[cnt[k]] = 8 - (b >> 1) % 8;   /* within the area */
		break;
	}
	case 7: {          /* VM-entry event injection: type, vector, error code, length */
		static const uint8_t vectors[] = { 0, 2, 3, 6, 8, 13, 14, 17, 31, 32, 0x80, 0xff };
		uint32_t type = a % 8, vec = vectors[b % sizeof(vectors)];
		uint32_t info = VMX_INTR_VALID | type << 8 | vec;
		if (a & 8)
			info |= VMX_INTR_DELIVER_ERROR;
		if ((a & 0x30) == 0x30)
			info |= 1u << (12 + b % 19);   /* a reserved bit */
		ROW(ENTRY_INTR_INFO) = info;
		ROW(ENTRY_EXCEPTION_ERROR_CODE) = a & 0x40 ? 0x10000 : (b >> 4) * 8;
		ROW(ENTRY_INSTRUCTION_LEN) = (const uint8_t[]){ 2, 0, 15, 16 }[(a >> 6) % 4];
		break;
	}
	case 8:            /* entry to SMM, deactivate dual-monitor treatment */
		ROW(ENTRY_CONTROLS) |= VMX_CTL(a & 1 ? VMX_ENTRYCTL_TO_SMM : VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR);
		break;
	case 9: {          /* host CR0, CR3, CR4 */
		switch (a % 4) {
		case 0: ROW(HOST_CR0) ^= 1ull << (b % 64); break;
		case 1: ROW(HOST_CR4) ^= 1ull << (b % 64); break;
		case 2: ROW(HOST_CR3) = b & 1 ? top | PML4 : (top - 0x1000); break;
		default: ROW(HOST_IA32_SYSENTER_ESP + (b & 1)) = 0x8000000000000000ull; break;
		}
		break;
	}
	case 10:           /* host selectors, bases, address-space size, RIP */
		switch (a % 7) {
		case 0: ROW(HOST_ES_SELECTOR + b % 7) |= 1 + b % 7; break;   /* RPL/TI */
		case 1: v[b & 1 ? VMCS_ROW_HOST_CS_SELECTOR : VMCS_ROW_HOST_TR_SELECTOR] = 0; break;
		case 2: ROW(HOST_FS_BASE + b % 5) = 0x0000800000000000ull; break;
		case 3: ROW(EXIT_CONTROLS) &= ~(uint64_t)VMX_CTL(VMX_EXITCTL_HOST_ADDR_SPACE_SIZE); break;
		case 4: ROW(HOST_CR4) &= ~(uint64_t)CR4_PAE; break;
		case 5: ROW(HOST_RIP) = b & 1 ? 0x0000800000000000ull : 0x00007ffffffff000ull; break;
		default: ROW(HOST_SS_SELECTOR) = 0; break;
		}
		break;
	case 11:           /* guest CR0/CR3/CR4 and the paired invariants */
		switch (a % 8) {
		case 0: ROW(GUEST_CR0) ^= 1ull << (b % 64); break;
		case 1: ROW(GUEST_CR4) ^= 1ull << (b % 32); break;
		case 2: ROW(GUEST_CR0) &= ~CR0_PE; break;                     /* CR0.PG => CR0.PE */
		case 3: ROW(ENTRY_CONTROLS) ^= VMX_CTL(VMX_ENTRYCTL_IA32E_MODE_GUEST); break;   /* LMA <=> IA-32e */
		case 4: ROW(GUEST_CR4) &= ~(uint64_t)CR4_PAE; break;
		case 5: ROW(GUEST_CR0) &= ~CR0_PG; break;
		case 6: ROW(GUEST_CR4) |= CR4_PCIDE; break;
		default: ROW(GUEST_CR3) = b & 1 ? top | PD32 : top - 0x1000; break;
		}
		break;
	case 12:
		mutate_segment(v, a, b);
		break;
	case 13:           /* guest bases and descriptor tables: canonical or not, high halves */
		switch (a % 6) {
		case 0: v[b & 1 ? VMCS_ROW_GUEST_FS_BASE : VMCS_ROW_GUEST_TR_BASE] =
				b & 2 ? 0x0000800000000000ull : 0xffff800000000000ull; break;
		case 1: ROW(GUEST_CS_BASE) |= 1ull << (32 + b % 32); break;
		case 2: v[b & 1 ? VMCS_ROW_GUEST_SS_BASE : VMCS_ROW_GUEST_DS_BASE] |= 1ull << (32 + b % 32); break;
		case 3: v[b & 1 ? VMCS_ROW_GUEST_GDTR_BASE : VMCS_ROW_GUEST_IDTR_BASE] = 0x0000800000000000ull; break;
		case 4: v[b & 1 ? VMCS_ROW_GUEST_GDTR_LIMIT : VMCS_ROW_GUEST_IDTR_LIMIT] |= 1ull << (16 + b % 16); break;
		default: ROW(GUEST_IA32_SYSENTER_ESP + (b & 1)) = 0x0000800000000000ull; break;
		}
		break;
	case 14:           /* guest RIP and RFLAGS */
		switch (a % 5) {
		case 0: ROW(GUEST_RIP) |= 1ull << (32 + b % 32); break;
		case 1: ROW(GUEST_RFLAGS) ^= 1ull << (const uint8_t[]){ 1, 3, 5, 15, 22, 40, 17, 9, 8 }[b % 9]; break;
		case 2:            /* an external interrupt injected, IF as b says */
			ROW(ENTRY_INTR_INFO) = VMX_INTR_VALID | 0x20;
			if (b & 1)
				ROW(GUEST_RFLAGS) |= 1u << 9;
			break;
		case 3: ROW(GUEST_RFLAGS) |= 1u << 17; break;                 /* VM */
		default: ROW(GUEST_RFLAGS) ^= 1u << (const uint8_t[]){ 0, 2, 4, 6, 7, 11, 10, 18 }[b % 8]; break;
		}
		break;
	default:           /* non-register state, DR7, the link pointer */
		switch (a % 7) {
		case 0:            /* the activity state; HLT with SS.DPL 3 */
			ROW(GUEST_ACTIVITY_STATE) = b % 5;
			if (b & 0x80)
				ROW(GUEST_SS_AR) |= 3u << 5;
			break;
		case 1: ROW(GUEST_INTERRUPTIBILITY) ^= 1u << (b % 8); break;
		case 2:
			ROW(GUEST_PENDING_DBG_EXCEPTIONS) ^= 1ull << (const uint8_t[]){ 0, 4, 12, 13, 14, 15, 17, 40 }[b % 8];
			break;
		case 3:            /* legal, misaligned, no revision identifier there, beyond the width */
			ROW(VMCS_LINK_POINTER) =
				(const uint64_t[]){ LINK_VMCS_PA, LINK_VMCS_PA + 8, DATA, UINT64_MAX - 0xfff }[b % 4];
			break;
		case 4: ROW(GUEST_DR7) |= 1ull << (32 + b % 32); break;
		case 5:            /* TF with MOV-SS blocking: the BS rule */
			ROW(GUEST_RFLAGS) |= 1u << 8;
			ROW(GUEST_INTERRUPTIBILITY) |= 2;
			break;
		default: ROW(GUEST_IA32_DEBUGCTL) = b & 1 ? 2 : 0; break;
		}
		break;
	}
}
