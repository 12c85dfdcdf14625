/* EPT, VPID and unrestricted guest end to end, from a 32-bit L1 hypervisor,
 * against the Intel SDM Vol.3 (325462-075US) chapter 28: EPT translation
 * with 4 KiB, 2 MiB and 1 GiB pages and 4- or 5-level walks (28.2.2), EPT
 * misconfigurations (28.2.3.1) and violations (28.2.3.2) with their exit
 * qualification, guest-physical and guest-linear address (27.2.1, Table
 * 27-7), execute-only pages (A.10 bit 0), the accessed and dirty flags with
 * guest paging-structure accesses counted as writes (28.2.4), the leaf
 * memory types (28.2.6: hvemu keeps no caches, so only a reserved type is
 * observable: a misconfiguration), the VPID-tagged TLB and its invalidation
 * (28.3.1, 28.3.3: INVVPID's four types, INVEPT single- and all-context, VM
 * entry and exit without VPID invalidating VPID 0's mappings), EPTP
 * switching by VMFUNC (25.5.6.3, exit 59) and unrestricted guest (26.3.1.1,
 * 26.3.2.1: L2 in real mode running 16-bit code, in protected mode without
 * paging).
 *
 * L2 shares L1's 32-bit paging (lib/paging.h): the test page table maps
 * TEST_LIN + k * 4 KiB to pg_frames[k]; with EPT each guest-physical address
 * goes through the tables of ept.h, an identity map a row edits.
 *
 * Stale translations: under --tlb exact (command line "tlb=exact") hvemu
 * keeps every translation the SDM lets a processor keep, so a row may expect
 * an old translation there; under --tlb flush nothing is cached and the same
 * rows expect the new one. Without either word (another implementation, real
 * hardware) those rows SKIP: SDM Vol.3 28.3 lets a processor keep such a
 * translation but never requires it.
 */
#include "vmx/ept.h"
#include "vmx/lib_vmx.h"

#define VMCS_EPTP_FULL          0x201au
#define VMCS_VMFUNC_CTLS        0x2018u   /* B.2.1 */
#define VMCS_EPTP_LIST          0x2024u
#define PROC2_VMFUNC            (1u << 13)
#define EXIT_EPT_VIOLATION      48
#define EXIT_EPT_MISCONFIG      49
#define EXIT_VMFUNC             59
/* Table 27-7. */
#define Q_R      (1u << 0)
#define Q_W      (1u << 1)
#define Q_X      (1u << 2)
#define Q_READABLE   (1u << 3)
#define Q_WRITABLE   (1u << 4)
#define Q_EXECUTABLE (1u << 5)
#define Q_GLA    (1u << 7)
#define Q_FINAL  (1u << 8)
#define Q_ADV_USER (1u << 9)
#define Q_ADV_WR   (1u << 10)

#define MARKER(k)  (0x5eed0000u + (k))
#define PTE_DEFAULT (PG_P | PG_W | PG_U | PG_A | PG_D)

static struct ept ept, ept2;
static uint64_t eptp_list[512] __attribute__((aligned(4096)));
static uint64_t inv_desc[2] __attribute__((aligned(16)));

/* Addresses a row names (runtime values). */
/* GPA_FAR: a guest-physical page alone in its 2 MiB region (the guest
 * image, its stack and tables share frame 0's), so that a row may change the
 * EPT PDE above it without L2's code or stack going with it. */
#define GPA_FAR 0x03000000u
enum where { AT_NONE, AT_TEST_LIN, AT_FRAME0, AT_TEST_PTE0, AT_PT_PAGE, AT_FAR, AT_TEST_LIN_100, AT_FRAME0_100,
	     AT_GPA_2M, AT_GPA_1G };
static uint32_t where_of(enum where w)
{
	switch (w) {
	case AT_TEST_LIN:  return TEST_LIN;
	case AT_FRAME0:    return frame_pa(0);
	case AT_TEST_PTE0: return (uint32_t)(uintptr_t)&pg32_test_pt[0];
	case AT_PT_PAGE:   return (uint32_t)(uintptr_t)pg32_test_pt;
	case AT_FAR:       return GPA_FAR;
	case AT_TEST_LIN_100: return TEST_LIN + 0x100;
	case AT_FRAME0_100: return frame_pa(0) + 0x100;
	case AT_GPA_2M:    return 0x02000000u + (frame_pa(0) & 0x1fffffu);
	case AT_GPA_1G:    return 0x40000000u + frame_pa(0);
	default:           return 0;
	}
}

/* What a row needs beyond the VM-execution controls. */
#define N_EPT   (1u << 0)
#define N_AD    (1u << 1)
#define N_XO    (1u << 2)
#define N_1G    (1u << 3)
#define N_2M    (1u << 4)
#define N_5L    (1u << 5)
#define N_VPID  (1u << 6)
#define N_INVVPID(t) (1u << (8 + (t)))   /* INVVPID type t */
#define N_INVEPT(t)  (1u << (12 + (t)))  /* INVEPT type t */
#define N_VMFUNC (1u << 16)
#define N_TLB_MODE (1u << 20)  /* a V_STALE row: needs hvemu's TLB mode named */
#define N_NO5L   (1u << 17)    /* the model lacks 5-level EPT */
#define N_NOAD   (1u << 18)    /* the model lacks EPT A/D */
#define N_NOCR3  (1u << 19)    /* CR3-load exiting may be 0 (A.3.2) */

/* Row flags. */
#define F_AD      (1u << 0)    /* EPTP bit 6 */
#define F_5L      (1u << 1)    /* page-walk length 5 */
#define F_VPID    (1u << 2)    /* enable VPID, VPID 1 */
#define F_ADV     (1u << 3)    /* add Table 27-7 bits 9, 10 when supported (a user, writable page) */
#define F_QLOW    (1u << 4)    /* compare qualification bits 8:0 only */
/* The addresses may be those of any of the three doublewords of a 32-bit IRET
 * frame: which of IRET's stack reads comes first is not architectural (SDM
 * Vol.2 IRET reads EIP, CS and EFLAGS; hvemu reads from the lowest address,
 * Bochs 2.7 starts elsewhere). */
#define F_ANY_SLOT (1u << 5)

/* Expected values. */
enum want { V_ANY, V_MARK0, V_MARK1, V_STALE };
#define AD_CHECK 0x80u
#define AD_A     1u
#define AD_D     2u

struct ept_row {
	struct vmx_row v;          /* first: vmx_run_row's c->row is this */
	uint32_t need, flags;
	void (*edit)(void);        /* EPT / guest-table / VMCS edits before VMLAUNCH */
	void (*more)(struct vmx_case *c);   /* after the first exit (resume rows) */
	enum where gpa, gla;       /* guest-physical / guest-linear address fields */
	enum want eax;             /* L2's EAX at the end */
	uint8_t ad_frame0, ad_pt;  /* AD_CHECK|bits: EPT A/D of the PTEs mapping frame 0 / the guest PT */
};

/* What the command line says hvemu's TLB does (tests/guests/meson.build). */
static enum { TLB_UNKNOWN, TLB_EXACT, TLB_FLUSH } tlb_mode;

static const char *need_why(uint32_t n)
{
	uint64_t cap = vmx_caps.ept_vpid;
	if ((n & N_EPT) && !vmx_has_proc2(PROC2_EPT))
		return "no EPT";
	if ((n & N_VPID) && !vmx_has_proc2(PROC2_VPID))
		return "no VPID";
	if ((n & N_AD) && !(cap & CAP_EPT_AD))
		return "no EPT accessed/dirty flags (EPT_VPID_CAP bit 21)";
	if ((n & N_XO) && !(cap & CAP_EPT_XO))
		return "no execute-only translations (EPT_VPID_CAP bit 0)";
	if ((n & N_1G) && !(cap & CAP_EPT_1G))
		return "no 1 GiB EPT pages (EPT_VPID_CAP bit 17)";
	if ((n & N_2M) && !(cap & CAP_EPT_2M))
		return "no 2 MiB EPT pages (EPT_VPID_CAP bit 16)";
	if ((n & N_5L) && !(cap & CAP_EPT_WALK5))
		return "no 5-level EPT (EPT_VPID_CAP bit 7)";
	static const uint64_t vcap[4] = { CAP_INVVPID_ADDR, CAP_INVVPID_SINGLE, CAP_INVVPID_ALL, CAP_INVVPID_SINGLE_G };
	for (unsigned t = 0; t < 4; t++)
		if ((n & N_INVVPID(t)) && !((cap & CAP_INVVPID) && (cap & vcap[t])))
			return "INVVPID type not supported";
	if ((n & N_INVEPT(1)) && !((cap & CAP_INVEPT) && (cap & CAP_INVEPT_SINGLE)))
		return "no INVEPT single-context";
	if ((n & N_INVEPT(2)) && !((cap & CAP_INVEPT) && (cap & CAP_INVEPT_ALL)))
		return "no INVEPT all-context";
	if ((n & N_NO5L) && (cap & CAP_EPT_WALK5))
		return "this model has 5-level EPT";
	if ((n & N_NOAD) && (cap & CAP_EPT_AD))
		return "this model has EPT A/D";
	if ((n & N_TLB_MODE) && tlb_mode == TLB_UNKNOWN)
		return "a kept translation is allowed, not required (SDM 28.3): no tlb=exact|flush on the command line";
	if ((n & N_NOCR3) && ((uint32_t)vmx_caps.proc & PROC_CR3_LOAD))
		return "CR3-load exiting is default1 here (no IA32_VMX_BASIC[55])";
	if ((n & N_VMFUNC) && (!vmx_has_proc2(PROC2_VMFUNC) || !(vmx_caps.vmfunc & 1)))
		return "no VMFUNC EPTP switching (IA32_VMX_VMFUNC bit 0)";
	return 0;
}

static uint32_t ad_of(uint64_t e)
{
	return (e & EPT_A ? AD_A : 0) | (e & EPT_D ? AD_D : 0);
}

/* ---- L2 bodies ---- */

L2_BODY(b_read, "mov $0x40000000, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_write, "mov $0x40000000, %ebx", "movl $0x77, (%ebx)", "");
L2_BODY(b_read_2m, "mov $0x40001000, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_read_1g, "mov $0x40002000, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_fetch, "mov $0x40003000, %ebx", "call *%ebx", "");
L2_BODY(b_read_code, "mov $0x40003000, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_read_ebx, "", "mov (%ebx), %eax", "");     /* EBX from l2_regs */
L2_INSN(b_cpuid, "cpuid");
L2_BODY(b_iret, "mov $0x40000100, %esp", "iret", "");
L2_BODY(b_mov_cr3, "mov $0x03000000, %eax", "mov %eax, %cr3", "");
/* Read, exit (VMCALL), read again after L1's change. */
L2_BODY(b_read_twice, "mov $0x40000000, %ebx\n\tmov (%ebx), %esi\n\tvmcall", "mov (%ebx), %eax", "");
/* VMFUNC with EAX, ECX from l2_regs, reading TEST_LIN before and after. */
/* Read under EPTP list entry 0, switch to entry 1, exit (VMCALL); after
 * L1's change switch back to entry 0 and read again. */
L2_BODY(b_vmfunc_back,
	"mov $0x40000000, %ebx\n\tmov (%ebx), %esi\n\txor %eax, %eax\n\tmov $1, %ecx\n\tvmfunc\n\tvmcall",
	"xor %eax, %eax\n\txor %ecx, %ecx\n\tvmfunc\n\tmov (%ebx), %eax", "");
L2_BODY(b_vmfunc, "mov $0x40000000, %ebx\n\tmov (%ebx), %esi", "vmfunc", "mov (%ebx), %edi");

/* Real mode (26.3.1.1 with unrestricted guest): 16-bit code, CS base at
 * rm_code, IP from 0. */
__asm__(".pushsection .text\n\t.balign 16\n\t.code16\n"
	"rm_code:\n\t"
	"mov $0x1234, %ax\n\t"
	"push %ax\n\t"
	"pop %cx\n"
	"rm_at:\n\t"
	"out %al, $0x80\n"
	"rm_next:\n\t"
	"vmcall\n\tud2\n\t"
	".balign 16\n"
	"rm_read:\n\t"
	"xor %bx, %bx\n"
	"rm_read_at:\n\t"
	"mov (%bx), %ax\n"
	"rm_read_next:\n\t"
	"vmcall\n\tud2\n\t"
	".code32\n\t.popsection");
extern const char rm_code[], rm_at[], rm_next[], rm_read[], rm_read_at[], rm_read_next[];
static const struct l2_body b_rm_body = { rm_code, rm_at, rm_next };
static const struct l2_body b_rm_read_body = { rm_read, rm_read_at, rm_read_next };

/* ---- common set-up and checks ---- */

static void guest_pages(void)
{
	for (unsigned k = 0; k < 4; k++) {
		pg32_test_pt[k] = frame_pa((int)k) | PTE_DEFAULT;
		*(volatile uint32_t *)pg_frames[k] = MARKER(k);
	}
	/* Frame 3: code (VMCALL; UD2) for the fetch rows. */
	static const uint8_t code[] = { 0x0f, 0x01, 0xc1, 0x0f, 0x0b };
	for (unsigned i = 0; i < sizeof(code); i++)
		pg_frames[3][i] = code[i];
	flush_tlb();
}

/* Every row starts from empty TLB contexts for VPIDs 1 and 2 and every EPTP
 * (28.3.3.3: INVVPID/INVEPT all-context where supported). */
static void invalidate_all(void)
{
	uint64_t cap = vmx_caps.ept_vpid;
	inv_desc[0] = inv_desc[1] = 0;
	if (vmx_has_proc2(PROC2_VPID) && (cap & CAP_INVVPID) && (cap & CAP_INVVPID_ALL))
		invvpid_f(2, inv_desc);
	if (vmx_has_proc2(PROC2_EPT) && (cap & CAP_INVEPT) && (cap & CAP_INVEPT_ALL))
		invept_f(2, inv_desc);
}

static const struct ept_row *ept_row_of(struct vmx_case *c)
{
	return (const struct ept_row *)(const void *)c->row;
}

static void ept_setup(struct vmx_case *c)
{
	const struct ept_row *r = ept_row_of(c);
	guest_pages();
	invalidate_all();
	if (r->need & N_EPT) {
		ept_reset();
		ept_build(&ept, r->flags & F_5L ? 5 : 4, r->flags & F_AD);
		/* The PTEs whose A/D a row may check exist from the start. */
		ept_pte(&ept, frame_pa(0));
		ept_pte(&ept, where_of(AT_PT_PAGE));
		vmwrite64(VMCS_EPTP_FULL, ept.eptp);
	}
	if (r->flags & F_VPID)
		vmwrite(VMCS_VPID, 1);
	if (r->edit)
		r->edit();
}

static uint32_t want_value(enum want w)
{
	switch (w) {
	case V_MARK0: return MARKER(0);
	case V_MARK1: return MARKER(1);
	default:      return tlb_mode == TLB_EXACT ? MARKER(0) : MARKER(1);
	}
}

static void ept_check(struct vmx_case *c)
{
	const struct ept_row *r = ept_row_of(c);
	if (r->more)
		r->more(c);
	/* Read only the fields a row checks: the guest-physical address exists
	 * only with EPT (SDM Vol.3 Appendix B.2.2), and a VMREAD of a field the
	 * processor lacks fails (error 12). */
	uint64_t gpa = r->gpa != AT_NONE ? vmread64(VMCS_GUEST_PHYS_ADDR) : 0;
	uint32_t gla = r->gla != AT_NONE ? vmread(VMCS_GUEST_LINEAR_ADDR) : 0;
	if (r->flags & F_ANY_SLOT) {
		/* Report the slot read as the frame's first, if it is one. */
		uint32_t slot = (uint32_t)(gpa - where_of(r->gpa));
		if (slot < 12 && !(slot & 3) && gla - (uint32_t)where_of(r->gla) == slot) {
			gpa -= slot;
			gla -= slot;
		}
	}
	if (r->gpa != AT_NONE)
		vmx_expect(c, "guest-physical address", gpa, where_of(r->gpa));
	if (r->gla != AT_NONE)
		vmx_expect(c, "guest-linear address", gla, where_of(r->gla));
	if (r->v.reason != EXIT_VMCALL)
		return;
	if (r->eax != V_ANY)
		vmx_expect(c, "L2 EAX (the value read)", l2_regs.eax, want_value(r->eax));
	if (r->ad_frame0 & AD_CHECK)
		vmx_expect(c, "EPT A/D of the PTE mapping the data page", ad_of(*ept_pte(&ept, frame_pa(0))),
			   r->ad_frame0 & 3u);
	if (r->ad_pt & AD_CHECK)
		vmx_expect(c, "EPT A/D of the PTE mapping the guest page table",
			   ad_of(*ept_pte(&ept, where_of(AT_PT_PAGE))), r->ad_pt & 3u);
}

/* The qualification rows compare here rather than in lib_vmx (bits 9-10
 * depend on the model's EPT_VPID_CAP bit 22, bit 8:0 masks for unpaged L2). */
static void qual_check(struct vmx_case *c)
{
	const struct ept_row *r = ept_row_of(c);
	uint32_t want = r->v.arg, got = vmread(VMCS_EXIT_QUALIFICATION);
	if ((r->flags & F_ADV) && (vmx_caps.ept_vpid & CAP_EPT_ADV_INFO))
		want |= Q_ADV_USER | Q_ADV_WR;
	if (r->flags & F_QLOW)
		got &= 0x1ffu;
	vmx_expect(c, "exit qualification (Table 27-7)", got, want);
	ept_check(c);
}

/* Resume after the exit at the inner VMCALL (advancing RIP past it) and
 * expect the body's closing VMCALL. */
static int resume(struct vmx_case *c)
{
	vmwrite(VMCS_GUEST_RIP, vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSN_LEN));
	int vec = vmx_enter_caught(c, 1);
	vmx_expect(c, "VMRESUME: vector", (uint32_t)vec, (uint32_t)NO_FAULT);
	if (vec != NO_FAULT)
		return 0;
	vmx_expect(c, "VMRESUME: outcome", c->outcome, VMX_EXITED);
	vmx_expect(c, "VMRESUME: exit reason", vmread(VMCS_EXIT_REASON), EXIT_VMCALL);
	vmx_expect(c, "first read (before the change)", l2_regs.esi, MARKER(0));
	return 1;
}

/* ---- edits ---- */

static void e_remap(void)           { *ept_pte(&ept, frame_pa(0)) = frame_pa(1) | EPT_RWX | EPT_MT(MT_WB); }
static void e_not_present(void)     { *ept_pte(&ept, frame_pa(0)) = 0; }
static void e_read_only(void)       { *ept_pte(&ept, frame_pa(0)) &= ~EPT_W; }
static void e_no_exec(void)         { *ept_pte(&ept, frame_pa(3)) &= ~EPT_X; }
static void e_exec_only(void)       { *ept_pte(&ept, frame_pa(3)) &= ~(EPT_R | EPT_W); }
static void e_write_only(void)      { *ept_pte(&ept, frame_pa(0)) &= ~(EPT_R | EPT_X); }
static void e_memtype2(void)        { *ept_pte(&ept, frame_pa(0)) = (*ept_pte(&ept, frame_pa(0)) & ~EPT_MT(7)) | EPT_MT(2); }
static void e_memtype7(void)        { *ept_pte(&ept, frame_pa(0)) |= EPT_MT(7); }
static void e_wc_ipat(void)         { *ept_pte(&ept, frame_pa(0)) = (*ept_pte(&ept, frame_pa(0)) & ~EPT_MT(7)) | EPT_MT(1) | EPT_IPAT; }
/* Guest PTE 0 -> GPA_FAR, which a 4 KiB EPT PTE maps to frame 0. */
static void far(void)
{
	pg32_test_pt[0] = GPA_FAR | PTE_DEFAULT;
	*ept_pte(&ept, GPA_FAR) = frame_pa(0) | EPT_RWX | EPT_MT(MT_WB);
	flush_tlb();
}
static void e_pde_rsvd(void)        { far(); *ept_entry(&ept, GPA_FAR, 2) |= 1ull << 3; }
static void e_pde_not_present(void) { far(); *ept_entry(&ept, GPA_FAR, 2) &= ~EPT_RWX; }
static void e_pde_read_only(void)   { far(); *ept_entry(&ept, GPA_FAR, 2) &= ~(EPT_W | EPT_X); }
static void e_pt_not_present(void)  { *ept_pte(&ept, where_of(AT_PT_PAGE)) = 0; }
static void e_pt_read_only(void)    { *ept_pte(&ept, where_of(AT_PT_PAGE)) &= ~EPT_W; }
static void e_pt_read_only_a0(void)
{
	e_pt_read_only();
	pg32_test_pt[0] &= ~(uint32_t)(PG_A | PG_D);
}
static void e_pte_high_rsvd(void)
{
	/* 28.2.3.1: bits 51:MAXPHYADDR of an entry are reserved. */
	if (vmx_caps.maxphy < 52)
		*ept_pte(&ept, frame_pa(0)) |= 1ull << vmx_caps.maxphy;
}
static void e_2m(void)
{
	/* Guest PTE 1 -> gpa 32 MiB + frame 0's offset in its 2 MiB page; the EPT
	 * PDE of 32 MiB maps frame 0's 2 MiB page (Table 28-4). */
	uint32_t off = frame_pa(0) & 0x1fffffu;
	pg32_test_pt[1] = (0x02000000u + off) | PTE_DEFAULT;
	*ept_entry(&ept, 0x02000000u, 2) = (frame_pa(0) & ~0x1fffffu) | EPT_PS | EPT_MT(MT_WB) | EPT_RWX;
	flush_tlb();
}
static void e_1g(void)
{
	/* Guest PTE 2 -> gpa 1 GiB + frame 0; EPT PDPTE 1 maps hpa 0 (Table 28-2). */
	pg32_test_pt[2] = (0x40000000u + frame_pa(0)) | PTE_DEFAULT;
	*ept_entry(&ept, 0x40000000u, 3) = EPT_PS | EPT_MT(MT_WB) | EPT_RWX;
	flush_tlb();
}

static void e_2m_rsvd(void)  { e_2m(); *ept_entry(&ept, 0x02000000u, 2) |= 1ull << 12; }
static void e_1g_rsvd(void)  { e_1g(); *ept_entry(&ept, 0x40000000u, 3) |= 1ull << 12; }
/* 26.2.1.1: an EPTP the model does not support fails the entry's control
 * checks (VMfailValid 7). */
static void e_eptp_walk5(void) { vmwrite64(VMCS_EPTP_FULL, (ept.eptp & ~EPTP_WALK(8)) | EPTP_WALK(5)); }
static void e_eptp_ad(void)    { vmwrite64(VMCS_EPTP_FULL, ept.eptp | EPTP_AD); }
/* Table 27-7 bit 12: IRET with blocking by NMI (24.4.2 interruptibility
 * bit 3, "virtual NMIs" 0) whose stack read is an EPT violation. */
static void e_iret_nmi(void)
{
	e_not_present();
	vmwrite(VMCS_GUEST_INTERRUPTIBILITY, 1u << 3);
}
static void iret_checks(struct vmx_case *c)
{
	/* 27.3.4: the interruptibility state is saved as it is at the exit:
	 * the IRET had unblocked NMIs, so blocking by NMI is 0; bit 12 is what
	 * tells L1 to set it again before re-executing the IRET. */
	vmx_expect(c, "guest interruptibility: blocking by NMI", vmread(VMCS_GUEST_INTERRUPTIBILITY) & 8u, 0);
	qual_check(c);
}
/* A PAE L2 (26.3.2.4: with EPT VM entry loads the PDPTEs from the VMCS)
 * whose MOV to CR3 loads PDPTEs from a guest-physical page EPT does not map:
 * a read even with EPT A/D (28.2.3.2), no guest-linear address (Table 27-7
 * bit 7 = 0). */
#define VMCS_GUEST_PDPTE0 0x280au
static void e_pae(void)
{
	uint32_t cr3 = pae_build();
	vmwrite(VMCS_GUEST_CR4, read_cr4() | CR4_PAE);
	vmwrite(VMCS_CR4_SHADOW, read_cr4() | CR4_PAE);
	vmwrite(VMCS_GUEST_CR3, cr3);
	for (unsigned i = 0; i < 4; i++)
		vmwrite64(VMCS_GUEST_PDPTE0 + 2u * i, pae_pdpt[i]);
	*ept_pte(&ept, GPA_FAR) = 0;
}
static void e_global(void)
{
	pg32_test_pt[0] |= PG_G;
	vmwrite(VMCS_GUEST_CR4, read_cr4() | CR4_PGE);
	vmwrite(VMCS_CR4_SHADOW, read_cr4() | CR4_PGE);
}

/* Unrestricted guest (26.3.1.1: CR0.PE and PG may be 0; 26.3.1.2: real-mode
 * segments with the accessed types 3 and 11, DPL 0). */
static void seg(enum vmx_seg s, uint16_t sel, uint32_t base, uint32_t limit, uint32_t ar)
{
	vmwrite(VMCS_GUEST_ES_SEL + 2u * s, sel);
	vmwrite(VMCS_GUEST_ES_BASE + 2u * s, base);
	vmwrite(VMCS_GUEST_ES_LIMIT + 2u * s, limit);
	vmwrite(VMCS_GUEST_ES_AR + 2u * s, ar);
}
static void real_mode(const char *code)
{
	uint32_t cs = (uint32_t)(uintptr_t)code, ds = frame_pa(0), ss = (uint32_t)(uintptr_t)l2_stack;
	vmwrite(VMCS_GUEST_CR0, read_cr0() & ~(CR0_PE | CR0_PG));
	seg(SEG_CS, (uint16_t)(cs >> 4), cs, 0xffff, 0x9b);
	seg(SEG_DS, (uint16_t)(ds >> 4), ds, 0xffff, 0x93);
	seg(SEG_ES, 0, 0, 0xffff, 0x93);
	seg(SEG_SS, (uint16_t)(ss >> 4), ss, 0xffff, 0x93);
	seg(SEG_FS, 0, 0, 0xffff, 0x93);
	seg(SEG_GS, 0, 0, 0xffff, 0x93);
	vmwrite(VMCS_GUEST_IDTR_BASE, 0);
	vmwrite(VMCS_GUEST_IDTR_LIMIT, 0x3ff);
	vmwrite(VMCS_GUEST_RIP, 0);
	vmwrite(VMCS_GUEST_RSP, 0x1000);
}
static void e_real_out(void)  { real_mode(rm_code); }
static void e_real_read(void) { e_not_present(); real_mode(rm_read); }
static void e_unpaged(void)
{
	vmwrite(VMCS_GUEST_CR0, read_cr0() & ~CR0_PG);
	l2_regs.ebx = frame_pa(0);
}
static void e_unpaged_np(void) { e_unpaged(); e_not_present(); }

/* Real-mode checks after the OUT exit. */
static void real_checks(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (the 16-bit IP of OUT)", vmread(VMCS_GUEST_RIP), (uint32_t)(rm_at - rm_code));
	vmx_expect(c, "guest RSP (PUSH/POP of 16 bits)", vmread(VMCS_GUEST_RSP), 0x1000);
	vmx_expect(c, "L2 CX (popped)", l2_regs.ecx & 0xffffu, 0x1234);
	vmx_expect(c, "guest CR0.PE", vmread(VMCS_GUEST_CR0) & CR0_PE, 0);
	vmx_expect(c, "guest CS base", vmread(VMCS_GUEST_ES_BASE + 2u * SEG_CS), (uint32_t)(uintptr_t)rm_code);
}
static void real_read_checks(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (the 16-bit IP of MOV)", vmread(VMCS_GUEST_RIP),
		   (uint32_t)(rm_read_at - rm_read));
	qual_check(c);
}
static void fetch_rip(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (the fetched address)", vmread(VMCS_GUEST_RIP), TEST_LIN + 0x3000);
	qual_check(c);
}
static void xo_runs(struct vmx_case *c)
{
	vmx_expect(c, "guest RIP (VMCALL on the execute-only page)", vmread(VMCS_GUEST_RIP), TEST_LIN + 0x3000);
	ept_check(c);
}

/* ---- VPID and INVVPID / INVEPT (28.3.3) ---- */

static void change_pte(void) { pg32_test_pt[0] = frame_pa(1) | PTE_DEFAULT; }
static void m_pte(struct vmx_case *c) { change_pte(); resume(c); }
static void invvpid_then(struct vmx_case *c, uint32_t type, uint16_t vpid)
{
	change_pte();
	inv_desc[0] = vpid;
	inv_desc[1] = TEST_LIN;
	vmx_expect(c, "INVVPID outcome", invvpid_f(type, inv_desc), VM_SUCCEED);
	resume(c);
}
static void m_invvpid_addr(struct vmx_case *c)   { invvpid_then(c, 0, 1); }
static void m_invvpid_single(struct vmx_case *c) { invvpid_then(c, 1, 1); }
static void m_invvpid_all(struct vmx_case *c)    { invvpid_then(c, 2, 1); }
static void m_invvpid_ng(struct vmx_case *c)     { invvpid_then(c, 3, 1); }
static void m_invvpid_other(struct vmx_case *c)  { invvpid_then(c, 1, 2); }
static void m_invvpid_addr_other(struct vmx_case *c)
{
	change_pte();
	inv_desc[0] = 1;
	inv_desc[1] = TEST_LIN + 0x1000;
	vmx_expect(c, "INVVPID outcome", invvpid_f(0, inv_desc), VM_SUCCEED);
	resume(c);
}
static void invept_then(struct vmx_case *c, uint32_t type, uint64_t eptp)
{
	e_remap();
	inv_desc[0] = eptp;
	inv_desc[1] = 0;
	if (type)
		vmx_expect(c, "INVEPT outcome", invept_f(type, inv_desc), VM_SUCCEED);
	resume(c);
}
static void m_ept_change(struct vmx_case *c)   { invept_then(c, 0, 0); }
static void m_invept_single(struct vmx_case *c) { invept_then(c, 1, ept.eptp); }
static void m_invept_all(struct vmx_case *c)    { invept_then(c, 2, 0); }
static void m_invept_other(struct vmx_case *c)  { invept_then(c, 1, ept.eptp + 0x1000); }

/* ---- VMFUNC EPTP switching (25.5.6.3) ---- */

static void e_vmfunc(uint32_t eax, uint32_t ecx)
{
	/* A second EPT that maps frame 0's guest-physical page to frame 1. */
	ept_build(&ept2, 4, 0);
	*ept_pte(&ept2, frame_pa(0)) = frame_pa(1) | EPT_RWX | EPT_MT(MT_WB);
	gmemset(eptp_list, 0, sizeof(eptp_list));
	eptp_list[0] = ept.eptp;
	eptp_list[1] = ept2.eptp;
	eptp_list[2] = (ept.eptp & ~EPTP_WALK(8)) | EPTP_WALK(2);   /* 26.2.1.1: page-walk length 2 is invalid */
	vmwrite64(VMCS_VMFUNC_CTLS, 1);           /* 24.6.14: bit 0 EPTP switching */
	vmwrite64(VMCS_EPTP_LIST, (uint32_t)(uintptr_t)eptp_list);
	l2_regs.eax = eax;
	l2_regs.ecx = ecx;
}
static void e_vmfunc_1(void)    { e_vmfunc(0, 1); }
static void e_vmfunc_same(void)
{
	e_vmfunc(0, 1);
	*ept_pte(&ept2, frame_pa(0)) = frame_pa(0) | EPT_RWX | EPT_MT(MT_WB);   /* entry 1: identity too */
}
static void e_vmfunc_512(void)  { e_vmfunc(0, 512); }
static void e_vmfunc_bad(void)  { e_vmfunc(0, 2); }
static void e_vmfunc_fn1(void)  { e_vmfunc(1, 1); }
static void vmfunc_switched(struct vmx_case *c)
{
	vmx_expect(c, "read before VMFUNC", l2_regs.esi, MARKER(0));
	vmx_expect(c, "read after VMFUNC (through EPTP list entry 1)", l2_regs.edi, MARKER(1));
	vmx_expect(c, "EPT pointer field", vmread64(VMCS_EPTP_FULL), ept2.eptp);
}
static void vmfunc_kept(struct vmx_case *c)
{
	vmx_expect(c, "EPT pointer field (unchanged)", vmread64(VMCS_EPTP_FULL), ept.eptp);
}

/* ---- the rows ---- */

#define HOOKS .setup = ept_setup, .extra = ept_check
#define QHOOKS .setup = ept_setup, .extra = qual_check
#define EPT PROC2_EPT
#define VIOL(q) .reason = EXIT_EPT_VIOLATION, .arg = (q)
#define NP 0   /* qualification bits 5:3 all 0: an entry not present */

static const struct ept_row rows[] = {
	/* Without EPT the same tables work (core2 too). */
	{ .v = { .name = "no EPT: L2 reads TEST_LIN through its own paging", .sdm = "28.2.1",
		 .body = &b_read_body, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .eax = V_MARK0 },
	{ .v = { .name = "no VPID: VM exit and entry invalidate VPID 0's mappings (a changed PTE is seen)",
		 .sdm = "28.3.3.1", .body = &b_read_twice_body, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .more = m_pte, .eax = V_MARK1 },
	/* 28.2.2: translation. */
	{ .v = { .name = "EPT identity map, 4-level: the read goes through", .sdm = "28.2.2",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT, .eax = V_MARK0 },
	{ .v = { .name = "EPT PTE remaps a 4 KiB guest-physical page", .sdm = "28.2.2, Table 28-6",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT, .edit = e_remap, .eax = V_MARK1 },
	{ .v = { .name = "EPT 2 MiB page (PDE with bit 7)", .sdm = "28.2.2, Table 28-4",
		 .body = &b_read_2m_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT | N_2M, .edit = e_2m, .eax = V_MARK0 },
	{ .v = { .name = "EPT 1 GiB page (PDPTE with bit 7)", .sdm = "28.2.2, Table 28-2",
		 .body = &b_read_1g_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT | N_1G, .edit = e_1g, .eax = V_MARK0 },
	{ .v = { .name = "5-level EPT (EPTP page-walk length 5): the read goes through", .sdm = "28.2.2",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT | N_5L, .flags = F_5L, .eax = V_MARK0 },
	{ .v = { .name = "5-level EPT: a PTE not present is a violation", .sdm = "28.2.2, 28.2.3.2",
		 .body = &b_read_body, .proc2 = EPT, VIOL(Q_R | NP | Q_GLA | Q_FINAL), QHOOKS },
	  .need = N_EPT | N_5L, .flags = F_5L | F_ADV, .edit = e_not_present, .gpa = AT_FRAME0, .gla = AT_TEST_LIN },
	{ .v = { .name = "leaf memory type WC with IPAT: valid, the read goes through", .sdm = "28.2.6.1",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT, .edit = e_wc_ipat, .eax = V_MARK0 },
	/* 28.2.3.2 and Table 27-7: violations. */
	{ .v = { .name = "read, EPT PTE not present: exit 48, R, rights 000, GLA valid, final",
		 .sdm = "28.2.3.2, 27.2.1 Table 27-7", .body = &b_read_body, .proc2 = EPT,
		 VIOL(Q_R | NP | Q_GLA | Q_FINAL), QHOOKS },
	  .need = N_EPT, .flags = F_ADV, .edit = e_not_present, .gpa = AT_FRAME0, .gla = AT_TEST_LIN },
	{ .v = { .name = "read, EPT PDE not present: rights 000 (the AND over the entries used)",
		 .sdm = "28.2.3.2, Table 27-7", .body = &b_read_body, .proc2 = EPT,
		 VIOL(Q_R | NP | Q_GLA | Q_FINAL), QHOOKS },
	  .need = N_EPT, .flags = F_ADV, .edit = e_pde_not_present, .gpa = AT_FAR, .gla = AT_TEST_LIN },
	{ .v = { .name = "write to a read/execute page: W, rights R-X", .sdm = "28.2.3.2, Table 27-7",
		 .body = &b_write_body, .proc2 = EPT, VIOL(Q_W | Q_READABLE | Q_EXECUTABLE | Q_GLA | Q_FINAL),
		 QHOOKS },
	  .need = N_EPT, .flags = F_ADV, .edit = e_read_only, .gpa = AT_FRAME0, .gla = AT_TEST_LIN },
	{ .v = { .name = "write, PDE read-only and not executable: rights R-- (ANDed with the PTE's RWX)",
		 .sdm = "28.2.3.2, Table 27-7", .body = &b_write_body, .proc2 = EPT,
		 VIOL(Q_W | Q_READABLE | Q_GLA | Q_FINAL), QHOOKS },
	  .need = N_EPT, .flags = F_ADV, .edit = e_pde_read_only, .gpa = AT_FAR, .gla = AT_TEST_LIN },
	{ .v = { .name = "fetch from a read/write page: X, rights RW-, RIP = the target",
		 .sdm = "28.2.3.2, Table 27-7", .body = &b_fetch_body, .proc2 = EPT,
		 .reason = EXIT_EPT_VIOLATION, .arg = Q_X | Q_READABLE | Q_WRITABLE | Q_GLA | Q_FINAL,
		 .check = C_NO_RIP, .setup = ept_setup, .extra = fetch_rip },
	  .need = N_EPT, .flags = F_ADV, .edit = e_no_exec },
	{ .v = { .name = "execute-only page: code runs from it (VMCALL there)", .sdm = "28.2.3.1, A.10",
		 .body = &b_fetch_body, .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_NO_RIP,
		 .setup = ept_setup, .extra = xo_runs },
	  .need = N_EPT | N_XO, .edit = e_exec_only },
	{ .v = { .name = "execute-only page: a read is a violation, rights --X", .sdm = "28.2.3.2, Table 27-7",
		 .body = &b_read_code_body, .proc2 = EPT, VIOL(Q_R | Q_EXECUTABLE | Q_GLA | Q_FINAL), QHOOKS },
	  .need = N_EPT | N_XO, .flags = F_ADV, .edit = e_exec_only },
	{ .v = { .name = "guest page table not present in EPT: R, GLA valid, not final; GPA = the PTE",
		 .sdm = "28.2.3.2, Table 27-7 bit 8", .body = &b_read_body, .proc2 = EPT,
		 VIOL(Q_R | NP | Q_GLA), QHOOKS },
	  .need = N_EPT, .edit = e_pt_not_present, .gpa = AT_TEST_PTE0, .gla = AT_TEST_LIN },
	{ .v = { .name = "guest page table read-only in EPT, A/D off, guest A set: no violation",
		 .sdm = "28.2.3.2", .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL,
		 .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT, .edit = e_pt_read_only, .eax = V_MARK0 },
	{ .v = { .name = "guest page table read-only, A/D off, guest A clear: the A write is a violation (W)",
		 .sdm = "28.2.3.2, Table 27-7", .body = &b_read_body, .proc2 = EPT,
		 VIOL(Q_W | Q_READABLE | Q_EXECUTABLE | Q_GLA), QHOOKS },
	  .need = N_EPT, .edit = e_pt_read_only_a0, .gpa = AT_TEST_PTE0, .gla = AT_TEST_LIN },
	/* 28.2.3.1: misconfigurations. */
	{ .v = { .name = "EPT PTE write-only (010b): misconfiguration, exit 49, GPA", .sdm = "28.2.3.1",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .edit = e_write_only, .gpa = AT_FRAME0 },
	{ .v = { .name = "leaf memory type 2 (reserved): misconfiguration", .sdm = "28.2.3.1, 28.2.6.1",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .edit = e_memtype2, .gpa = AT_FRAME0 },
	{ .v = { .name = "leaf memory type 7 (reserved): misconfiguration", .sdm = "28.2.3.1, 28.2.6.1",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .edit = e_memtype7, .gpa = AT_FRAME0 },
	{ .v = { .name = "PDE referencing a table with bit 3 set: misconfiguration", .sdm = "28.2.3.1, Table 28-5",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .edit = e_pde_rsvd, .gpa = AT_FAR },
	{ .v = { .name = "PTE with bit MAXPHYADDR set: misconfiguration", .sdm = "28.2.3.1, Table 28-6",
		 .body = &b_read_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .edit = e_pte_high_rsvd, .gpa = AT_FRAME0 },
	/* 28.2.4: accessed and dirty flags. */
	{ .v = { .name = "EPT A/D: a read sets A in the data page's PTE, A and D in the guest PT's",
		 .sdm = "28.2.4", .body = &b_read_body, .proc2 = EPT, .reason = EXIT_VMCALL,
		 .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT | N_AD, .flags = F_AD, .eax = V_MARK0, .ad_frame0 = AD_CHECK | AD_A,
	  .ad_pt = AD_CHECK | AD_A | AD_D },
	{ .v = { .name = "EPT A/D: a write sets A and D", .sdm = "28.2.4", .body = &b_write_body, .proc2 = EPT,
		 .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT | N_AD, .flags = F_AD, .ad_frame0 = AD_CHECK | AD_A | AD_D },
	{ .v = { .name = "EPT A/D off: bits 8 and 9 stay clear", .sdm = "28.2.4", .body = &b_write_body,
		 .proc2 = EPT, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, HOOKS },
	  .need = N_EPT, .ad_frame0 = AD_CHECK, .ad_pt = AD_CHECK },
	{ .v = { .name = "EPT A/D on, guest page table read-only: its read is a write (R and W set)",
		 .sdm = "28.2.3.2, 28.2.4, Table 27-7", .body = &b_read_body, .proc2 = EPT,
		 VIOL(Q_R | Q_W | Q_READABLE | Q_EXECUTABLE | Q_GLA), QHOOKS },
	  .need = N_EPT | N_AD, .flags = F_AD, .edit = e_pt_read_only, .gpa = AT_TEST_PTE0, .gla = AT_TEST_LIN },
	{ .v = { .name = "2 MiB EPT page with bit 12 set (20:12 reserved): misconfiguration", .sdm = "28.2.3.1, Table 28-4",
		 .body = &b_read_2m_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT | N_2M, .edit = e_2m_rsvd, .gpa = AT_GPA_2M },
	{ .v = { .name = "1 GiB EPT page with bit 12 set (29:12 reserved): misconfiguration", .sdm = "28.2.3.1, Table 28-2",
		 .body = &b_read_1g_body, .proc2 = EPT, .reason = EXIT_EPT_MISCONFIG, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT | N_1G, .edit = e_1g_rsvd, .gpa = AT_GPA_1G },
	{ .v = { .name = "EPTP page-walk length 5 without 5-level EPT: VMfailValid(7)", .sdm = "26.2.1.1, 24.6.11",
		 .body = &b_read_body, .proc2 = EPT, .vmfail = VMERR_ENTRY_BAD_CONTROLS, .check = C_VMFAIL, HOOKS },
	  .need = N_EPT | N_NO5L, .edit = e_eptp_walk5 },
	{ .v = { .name = "EPTP A/D enable without EPT A/D: VMfailValid(7)", .sdm = "26.2.1.1, 24.6.11",
		 .body = &b_read_body, .proc2 = EPT, .vmfail = VMERR_ENTRY_BAD_CONTROLS, .check = C_VMFAIL, HOOKS },
	  .need = N_EPT | N_NOAD, .edit = e_eptp_ad },
	{ .v = { .name = "IRET with blocking by NMI, its stack not in EPT: bit 12 (NMI unblocking due to IRET)",
		 .sdm = "27.2.1 Table 27-7, 27.3.4", .body = &b_iret_body, .proc2 = EPT,
		 VIOL(Q_R | NP | Q_GLA | Q_FINAL | (1u << 12)), .setup = ept_setup, .extra = iret_checks },
	  .need = N_EPT, .flags = F_ADV | F_ANY_SLOT, .edit = e_iret_nmi, .gpa = AT_FRAME0_100,
	  .gla = AT_TEST_LIN_100 },
	{ .v = { .name = "PAE L2, MOV to CR3 loading PDPTEs EPT does not map: R, bit 7 = 0",
		 .sdm = "28.2.3.2, Table 27-7 bit 7, 26.3.2.4", .body = &b_mov_cr3_body, .proc2 = EPT,
		 VIOL(Q_R | NP), QHOOKS },
	  .need = N_EPT | N_NOCR3, .edit = e_pae, .gpa = AT_FAR },
	{ .v = { .name = "PAE L2 with EPT A/D: the PDPTE load is still a read", .sdm = "28.2.3.2, 28.2.4",
		 .body = &b_mov_cr3_body, .proc2 = EPT, VIOL(Q_R | NP), QHOOKS },
	  .need = N_EPT | N_AD | N_NOCR3, .flags = F_AD, .edit = e_pae, .gpa = AT_FAR },
	/* 28.3: VPID-tagged caching and its invalidation. */
	{ .v = { .name = "EPT without VPID: VM entry invalidates VPID 0's combined mappings (new EPT PTE seen)",
		 .sdm = "28.3.3.1", .body = &b_read_twice_body, .proc2 = EPT, .reason = EXIT_VMCALL,
		 .check = C_NO_RIP, HOOKS },
	  .need = N_EPT, .more = m_ept_change, .eax = V_MARK1 },
	{ .v = { .name = "INVVPID type 3 keeps a global translation (stale under tlb=exact)",
		 .sdm = "28.3.3.3, 30.3", .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL,
		 .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(3) | N_TLB_MODE, .flags = F_VPID, .edit = e_global, .more = m_invvpid_ng, .eax = V_STALE },
	{ .v = { .name = "VPID 1: L2's translations outlive the exit (stale under tlb=exact)",
		 .sdm = "28.3.1, 28.3.3.1", .body = &b_read_twice_body, .proc2 = PROC2_VPID,
		 .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_TLB_MODE, .flags = F_VPID, .more = m_pte, .eax = V_STALE },
	{ .v = { .name = "INVVPID individual-address (type 0): the new PTE is seen", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(0), .flags = F_VPID, .more = m_invvpid_addr, .eax = V_MARK1 },
	{ .v = { .name = "INVVPID individual-address of another page keeps this one", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(0) | N_TLB_MODE, .flags = F_VPID, .more = m_invvpid_addr_other, .eax = V_STALE },
	{ .v = { .name = "INVVPID single-context (type 1)", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(1), .flags = F_VPID, .more = m_invvpid_single, .eax = V_MARK1 },
	{ .v = { .name = "INVVPID single-context of VPID 2 keeps VPID 1's", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(1) | N_TLB_MODE, .flags = F_VPID, .more = m_invvpid_other, .eax = V_STALE },
	{ .v = { .name = "INVVPID all-context (type 2)", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(2), .flags = F_VPID, .more = m_invvpid_all, .eax = V_MARK1 },
	{ .v = { .name = "INVVPID single-context retaining globals (type 3): a non-global PTE goes",
		 .sdm = "28.3.3.3, 30.3", .body = &b_read_twice_body, .proc2 = PROC2_VPID, .reason = EXIT_VMCALL,
		 .check = C_NO_RIP, HOOKS },
	  .need = N_VPID | N_INVVPID(3), .flags = F_VPID, .more = m_invvpid_ng, .eax = V_MARK1 },
	{ .v = { .name = "EPT + VPID: a changed EPT PTE without INVEPT (stale under tlb=exact)",
		 .sdm = "28.3.1, 28.3.3.1", .body = &b_read_twice_body, .proc2 = EPT | PROC2_VPID,
		 .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT | N_VPID | N_TLB_MODE, .flags = F_VPID, .more = m_ept_change, .eax = V_STALE },
	{ .v = { .name = "INVEPT single-context of the EPTP: the new EPT PTE is seen", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = EPT | PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP,
		 HOOKS },
	  .need = N_EPT | N_VPID | N_INVEPT(1), .flags = F_VPID, .more = m_invept_single, .eax = V_MARK1 },
	{ .v = { .name = "INVEPT single-context of another EPTP keeps this one's", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = EPT | PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP,
		 HOOKS },
	  .need = N_EPT | N_VPID | N_INVEPT(1) | N_TLB_MODE, .flags = F_VPID, .more = m_invept_other, .eax = V_STALE },
	{ .v = { .name = "INVEPT all-context", .sdm = "28.3.3.3, 30.3",
		 .body = &b_read_twice_body, .proc2 = EPT | PROC2_VPID, .reason = EXIT_VMCALL, .check = C_NO_RIP,
		 HOOKS },
	  .need = N_EPT | N_VPID | N_INVEPT(2), .flags = F_VPID, .more = m_invept_all, .eax = V_MARK1 },
	/* 25.5.6.3: EPTP switching. */
	{ .v = { .name = "VMFUNC 0, ECX = 1: EPTP list entry 1 becomes the EPTP", .sdm = "25.5.6.3",
		 .body = &b_vmfunc_body, .proc2 = EPT | PROC2_VMFUNC, .reason = EXIT_VMCALL,
		 .check = C_NO_RIP, .setup = ept_setup, .extra = vmfunc_switched },
	  .need = N_EPT | N_VMFUNC, .edit = e_vmfunc_1 },
	{ .v = { .name = "VMFUNC 0, ECX = 512: exit 59, EPTP kept", .sdm = "25.5.6.3",
		 .body = &b_vmfunc_body, .proc2 = EPT | PROC2_VMFUNC, .reason = EXIT_VMFUNC,
		 .check = C_LEN, .setup = ept_setup, .extra = vmfunc_kept },
	  .need = N_EPT | N_VMFUNC, .edit = e_vmfunc_512 },
	{ .v = { .name = "VMFUNC 0, list entry an invalid EPTP: exit 59", .sdm = "25.5.6.3, 26.2.1.1",
		 .body = &b_vmfunc_body, .proc2 = EPT | PROC2_VMFUNC, .reason = EXIT_VMFUNC,
		 .check = C_LEN, .setup = ept_setup, .extra = vmfunc_kept },
	  .need = N_EPT | N_VMFUNC, .edit = e_vmfunc_bad },
	{ .v = { .name = "VMFUNC 1 (not enabled): exit 59", .sdm = "25.5.6",
		 .body = &b_vmfunc_body, .proc2 = EPT | PROC2_VMFUNC, .reason = EXIT_VMFUNC,
		 .check = C_LEN, .setup = ept_setup, .extra = vmfunc_kept },
	  .need = N_EPT | N_VMFUNC, .edit = e_vmfunc_fn1 },
	{ .v = { .name = "no VPID: VM entry invalidates VPID 0's mappings under every EPTP, not only the current",
		 .sdm = "28.3.3.1, 25.5.6.3", .body = &b_vmfunc_back_body, .proc2 = EPT | PROC2_VMFUNC,
		 .reason = EXIT_VMCALL, .check = C_NO_RIP, HOOKS },
	  .need = N_EPT | N_VMFUNC, .edit = e_vmfunc_same, .more = m_pte, .eax = V_MARK1 },
	/* 26.3.1.1, 26.3.2: unrestricted guest. */
	{ .v = { .name = "real-mode L2 (16-bit code): OUT exits 30 with its IP", .sdm = "26.3.1.1, 26.3.1.2, 27.2.1",
		 .body = &b_rm_body, .proc = PROC_UNCOND_IO, .proc2 = EPT | PROC2_UNRESTRICTED, .reason = EXIT_IO,
		 .qual = QIO_SIZE(1) | QIO_IMM | QIO_PORT(0x80), .check = C_QUAL | C_LEN | C_NO_RIP,
		 .setup = ept_setup, .extra = real_checks },
	  .need = N_EPT, .edit = e_real_out },
	{ .v = { .name = "real-mode L2: EPT violation, GLA = GPA = DS base + BX", .sdm = "26.3.1.1, 28.2.3.2",
		 .body = &b_rm_read_body, .proc2 = EPT | PROC2_UNRESTRICTED, VIOL(Q_R | NP | Q_GLA | Q_FINAL),
		 .check = C_NO_RIP, .setup = ept_setup, .extra = real_read_checks },
	  .need = N_EPT, .flags = F_QLOW, .edit = e_real_read, .gpa = AT_FRAME0, .gla = AT_FRAME0 },
	{ .v = { .name = "protected mode without paging: CPUID exits 10", .sdm = "26.3.1.1",
		 .body = &b_cpuid_body, .proc2 = EPT | PROC2_UNRESTRICTED, .reason = EXIT_CPUID,
		 .check = C_LEN, HOOKS },
	  .need = N_EPT, .edit = e_unpaged },
	{ .v = { .name = "protected mode without paging: the linear address is the GPA", .sdm = "26.3.1.1, 28.2.3.2",
		 .body = &b_read_ebx_body, .proc2 = EPT | PROC2_UNRESTRICTED, VIOL(Q_R | NP | Q_GLA | Q_FINAL),
		 QHOOKS },
	  .need = N_EPT, .flags = F_QLOW, .edit = e_unpaged_np, .gpa = AT_FRAME0, .gla = AT_FRAME0 },
};

void guest_main(void)
{
	vmx_host_init();
	/* A.11: IA32_VMX_VMFUNC exists if "enable VM functions" may be 1. */
	if (vmx_has_proc2(PROC2_VMFUNC))
		vmx_caps.vmfunc = rdmsr64(MSR_VMX_VMFUNC);
	tlb_mode = cmdline_has("tlb=exact") ? TLB_EXACT : cmdline_has("tlb=flush") ? TLB_FLUSH : TLB_UNKNOWN;
	if (!vmx_on())
		skip_all("VMXON failed");
	char name[160];
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ept_row *r = &rows[i];
		const char *why = need_why(r->need);
		if (why)
			skip(pg_name(name, sizeof(name), "%s [SDM %s]", r->v.name, r->v.sdm), "%s", why);
		else
			vmx_run_row(&r->v);
	}
}
