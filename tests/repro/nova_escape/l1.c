/* The L1 hypervisors of the NOVA/Escape repro (hvemu issue #11).
 *
 * Each L1 runs L2 (l2.c) with shadow paging the way NOVA's vTLB does: the
 * VMCB's CR3 is a shadow page table the L1 owns, every #PF of L2 is
 * intercepted, and on each one the L1 walks L2's own tables at the address
 * the CPU reported in EXITINFO2, copies the translation into the shadow and
 * runs L2 again. An EXITINFO2 with bits above 31 set (QEMU 7.2 on the paths
 * listed in tests/repro/README.md) names no page of the 32-bit guest: the
 * fill does not help, L2 faults again at the same place, and NOVA looped so
 * forever. This L1 counts identical exits and gives up after
 * L1_LIVELOCK_EXITS (hvemu --stats flags the loop after 10,000 first).
 *
 * The same code is run as a 32-bit L1 (legacy protected mode, paging off)
 * and as a 64-bit L1 (long mode; VMRUN in 64-bit code, world_switch.S).
 * Per path it prints one TAP line, expected against observed EXITINFO2 and
 * error code, and a "# observed" line that tests/repro/check-observed.sh
 * compares with QEMU's (qemu-7.2-observed.txt). */
#include "lib/long.h"
#include "nova_escape.h"

#define L1_LIVELOCK_EXITS 50000u   /* identical #PF exits before the L1 gives up */

/* ---- The VMCB (APM2 Appendix B, Tables B-1 and B-2) ---- */
enum {
	VMCB_INTERCEPT_EXCEPTIONS = 0x008, VMCB_INTERCEPT_MISC1 = 0x00c,
	VMCB_INTERCEPT_MISC2 = 0x010, VMCB_IOPM_BASE_PA = 0x040, VMCB_MSRPM_BASE_PA = 0x048,
	VMCB_GUEST_ASID = 0x058, VMCB_TLB_CONTROL = 0x05c, VMCB_EXITCODE = 0x070,
	VMCB_EXITINFO1 = 0x078, VMCB_EXITINFO2 = 0x080, VMCB_EXITINTINFO = 0x088,
	VMCB_EVENTINJ = 0x0a8, VMCB_CLEAN_BITS = 0x0c0,
	VMCB_ES = 0x400, VMCB_CS = 0x410, VMCB_SS = 0x420, VMCB_DS = 0x430,
	VMCB_FS = 0x440, VMCB_GS = 0x450, VMCB_GDTR = 0x460, VMCB_IDTR = 0x480,
	VMCB_CPL = 0x4cb, VMCB_EFER = 0x4d0, VMCB_CR4 = 0x548, VMCB_CR3 = 0x550,
	VMCB_CR0 = 0x558, VMCB_DR7 = 0x560, VMCB_DR6 = 0x568, VMCB_RFLAGS = 0x570,
	VMCB_RIP = 0x578, VMCB_RSP = 0x5d8, VMCB_RAX = 0x5f8, VMCB_CR2 = 0x640,
};
#define MISC1_SHUTDOWN   (1u << 31)
#define MISC2_VMRUN      (1u << 0)     /* must be set (APM2 15.5.1) */
#define MISC2_VMMCALL    (1u << 1)
#define TLB_FLUSH_ALL    1             /* TLB_CONTROL (APM2 15.16) */
#define VMEXIT_PF        0x4e          /* exception 14 (APM2 Appendix C) */
#define VMEXIT_SHUTDOWN  0x7f
#define VMEXIT_VMMCALL   0x81
#define EVENT_VALID      (1u << 31)    /* EVENTINJ (APM2 15.20) */
#define EVENT_EV         (1u << 11)
#define EVENT_EXCEPTION  (3u << 8)

#define MSR_EFER         0xc0000080u
#define EFER_SVME        (1u << 12)
#define MSR_VM_CR        0xc0010114u
#define VM_CR_SVMDIS     (1u << 4)
#define MSR_VM_HSAVE_PA  0xc0010117u

#define PTE_P 0x001u
#define PTE_W 0x002u
#define PTE_U 0x004u
#define PTE_A 0x020u
#define PTE_D 0x040u

static uint8_t vmcb[4096] __attribute__((aligned(4096)));
static uint8_t host_save_area[4096] __attribute__((aligned(4096)));  /* VM_HSAVE_PA */
static uint8_t host_state[4096] __attribute__((aligned(4096)));      /* L1's VMSAVE image */
static uint8_t iopm[3 * 4096] __attribute__((aligned(4096)));        /* not consulted */
static uint8_t msrpm[2 * 4096] __attribute__((aligned(4096)));       /* not consulted */
uint32_t l1_vmcb_pa, l1_host_state_pa;   /* read by world_switch.S */
uint32_t l2_gpr[6];                      /* L2's EBX, ECX, EDX, ESI, EDI, EBP */
void l1_world_switch32(void);
void l1_world_switch64(void);

static uint32_t pa(const void *p) { return (uint32_t)(uintptr_t)p; }
static uint64_t vmcb_r64(unsigned off) { uint64_t v; gmemcpy(&v, vmcb + off, 8); return v; }
static void vmcb_w64(unsigned off, uint64_t v) { gmemcpy(vmcb + off, &v, 8); }
static void vmcb_w32(unsigned off, uint32_t v) { gmemcpy(vmcb + off, &v, 4); }
static void vmcb_w16(unsigned off, uint16_t v) { gmemcpy(vmcb + off, &v, 2); }

/* A VMCB segment: selector, attributes (descriptor bits 47:40 and 55:52,
 * APM2 15.5.1), limit, base (APM2 Table B-2). */
void l1_set_seg(unsigned off, uint16_t sel, uint16_t attrib, uint32_t limit, uint32_t base)
{
	vmcb_w16(off, sel);
	vmcb_w16(off + 2, attrib);
	vmcb_w32(off + 4, limit);
	vmcb_w64(off + 8, base);
}

/* ---- L2's memory: built by the L1, see nova_escape.h ---- */
uint8_t wrap_frames[WRAP_PAGES][4096] __attribute__((aligned(4096)));
uint8_t top_frame[4096] __attribute__((aligned(4096)));
uint64_t l2_gdt[L2_GDT_ENTRIES] __attribute__((aligned(8)));
uint64_t l2_idt[256] __attribute__((aligned(8)));
uint32_t l2_tss[26] __attribute__((aligned(8)));
uint8_t l2_kstack[4096] __attribute__((aligned(16)));
uint8_t l2_task_stack[4096] __attribute__((aligned(16)));
static uint8_t l2_stack[8192] __attribute__((aligned(16)));
uint32_t l2_shadow_cr3;
struct l2_dtr l2_gdtr, l2_idtr, l2_gdtr_wrapped, l2_idtr_wrapped;

/* L2's own 2-level page tables (SDM Vol.3 4.3). */
static uint32_t l2_pd[1024] __attribute__((aligned(4096)));
static uint32_t l2_pt_low[1024] __attribute__((aligned(4096)));
static uint32_t l2_pt_alias[4][1024] __attribute__((aligned(4096)));
static uint32_t l2_pt_top[1024] __attribute__((aligned(4096)));

#define L2_ATTR_CODE  0xc9b   /* G, D, P, S, execute/read, accessed */
#define L2_ATTR_DATA  0xc93   /* G, B, P, S, read/write, accessed */
/* P, 32-bit TSS of the available type: VMLOAD takes TR's attributes as they
 * are (APM2 15.5.2), and QEMU 7.2 stops with "invalid tss type" when a stack
 * switch finds the busy type (0x8b, what a VMSAVE on hardware stores) there;
 * hvemu and hardware use either. */
#define L2_ATTR_TSS   0x089

void l1_default_segs(void)
{
	l1_set_seg(VMCB_TR, L2_TSS, L2_ATTR_TSS, 0x67, L2_SEG_BASE + pa(l2_tss));
	l1_set_seg(VMCB_LDTR, 0, 0, 0, 0);
}

static void l2_build(void)
{
	gmemset(wrap_frames, 0, sizeof(wrap_frames));
	gmemset(top_frame, 0, sizeof(top_frame));
	gmemset(l2_pd, 0, sizeof(l2_pd));
	gmemset(l2_pt_low, 0, sizeof(l2_pt_low));
	gmemset(l2_pt_top, 0, sizeof(l2_pt_top));
	for (unsigned i = 0; i < WRAP_PAGES; i++)
		l2_pt_low[i] = pa(wrap_frames[i]) | PTE_P | PTE_W | PTE_U;
	l2_pd[0] = pa(l2_pt_low) | PTE_P | PTE_W | PTE_U;
	for (unsigned t = 0; t < 4; t++) {
		for (unsigned i = 0; i < 1024; i++)
			l2_pt_alias[t][i] = ((t * 1024 + i) << 12) | PTE_P | PTE_W | PTE_U;
		l2_pd[(L2_SEG_BASE >> 22) + t] = pa(l2_pt_alias[t]) | PTE_P | PTE_W | PTE_U;
	}
	l2_pt_top[1023] = pa(top_frame) | PTE_P | PTE_W | PTE_U;
	l2_pd[1023] = pa(l2_pt_top) | PTE_P | PTE_W | PTE_U;

	gmemset(l2_gdt, 0, sizeof(l2_gdt));
	l2_gdt[L2_CS >> 3] = seg_desc(L2_SEG_BASE, 0xfffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R | ACC_ACCESSED, FL_G | FL_DB);
	l2_gdt[L2_DS >> 3] = seg_desc(L2_SEG_BASE, 0xfffff, ACC_P | ACC_S | ACC_DATA_W | ACC_ACCESSED, FL_G | FL_DB);
	l2_gdt[L2_CS3 >> 3] = seg_desc(L2_SEG_BASE, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_CODE | ACC_CODE_R | ACC_ACCESSED, FL_G | FL_DB);
	l2_gdt[L2_DS3 >> 3] = seg_desc(L2_SEG_BASE, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W | ACC_ACCESSED, FL_G | FL_DB);
	l2_gdt[L2_TSS >> 3] = seg_desc(L2_SEG_BASE + pa(l2_tss), 0x67, ACC_P | SYS_TSS32_BSY, 0);
	/* B = 0: a 16-bit stack; base + SP wraps at 4 GiB. */
	l2_gdt[L2_SS16 >> 3] = seg_desc(TOP_PAGE, 0xffff, ACC_P | ACC_S | ACC_DATA_W | ACC_ACCESSED, 0);
	l2_gdt[L2_CS_LOW >> 3] = seg_desc(L2_SEG_BASE + pa(l2_low_start), 0xffff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R | ACC_ACCESSED, FL_DB);

	gmemset(l2_idt, 0, sizeof(l2_idt));
	l2_idt[VEC_IRET32] = gate_desc(L2_CS, pa(l2_h_iret32), SYS_INTGATE, 0, 0);
	/* Type 6: a 16-bit interrupt gate (SDM Vol.3 Table 3-2). */
	l2_idt[VEC_IRET16] = gate_desc(L2_CS_LOW, pa(l2_h_iret16) - pa(l2_low_start), 0x6, 0, 0);
	l2_idt[VEC_RING3] = gate_desc(L2_CS, pa(l2_h_iret32), SYS_INTGATE, 3, 0);
	l2_idt[VEC_KERNEL] = gate_desc(L2_CS, pa(l2_h_back_to_kernel), SYS_INTGATE, 3, 0);

	gmemset(l2_tss, 0, sizeof(l2_tss));
	l2_tss[1] = pa(l2_kstack) + sizeof(l2_kstack);    /* ESP0 */
	l2_tss[2] = L2_DS;                                /* SS0 */
	l2_tss[7] = l2_shadow_cr3;                        /* CR3, for the task switch back */
	l2_tss[25] = 104u << 16;                          /* no I/O bitmap */

	l2_gdtr = (struct l2_dtr){ sizeof(l2_gdt) - 1, L2_SEG_BASE + pa(l2_gdt) };
	l2_idtr = (struct l2_dtr){ sizeof(l2_idt) - 1, L2_SEG_BASE + pa(l2_idt) };
	l2_gdtr_wrapped = (struct l2_dtr){ 0xffff, TOP_PAGE };
	l2_idtr_wrapped = (struct l2_dtr){ 0x7ff, IDT_WRAP_BASE };
}

/* ---- The vTLB: the shadow page table L2 runs on ---- */
#define SHADOW_PTS 8
static uint32_t shadow_pd[1024] __attribute__((aligned(4096)));
static uint32_t shadow_pt[SHADOW_PTS][1024] __attribute__((aligned(4096)));
static unsigned shadow_pts_used;

static void vtlb_flush(void)
{
	gmemset(shadow_pd, 0, sizeof(shadow_pd));
	shadow_pts_used = 0;
}

enum vtlb_result { VTLB_FILLED, VTLB_GUEST_FAULT, VTLB_ABOVE_4G };

/* NOVA's vTLB miss for a guest with 2-level paging: walk L2's tables at the
 * reported address and copy the translation (with the rights of both levels)
 * into the shadow. */
static enum vtlb_result vtlb_fill(uint64_t addr)
{
	/* NOVA's shadow is indexed by the whole reported address: for one above
	 * 4 GiB it fills an entry the 32-bit guest never uses, so the guest
	 * faults again at its real address. Here the fill maps nothing. */
	if (addr >> 32)
		return VTLB_ABOVE_4G;
	uint32_t lin = (uint32_t)addr;
	uint32_t pde = l2_pd[lin >> 22];
	if (!(pde & PTE_P))
		return VTLB_GUEST_FAULT;
	uint32_t pte = ((const uint32_t *)(uintptr_t)(pde & ~0xfffu))[(lin >> 12) & 0x3ff];
	if (!(pte & PTE_P))
		return VTLB_GUEST_FAULT;
	uint32_t *spde = &shadow_pd[lin >> 22];
	if (!(*spde & PTE_P)) {
		if (shadow_pts_used == SHADOW_PTS)
			vtlb_flush();
		uint32_t *pt = shadow_pt[shadow_pts_used++];
		gmemset(pt, 0, 4096);
		*spde = pa(pt) | PTE_P | PTE_W | PTE_U;
	}
	uint32_t *spt = (uint32_t *)(uintptr_t)(*spde & ~0xfffu);
	spt[(lin >> 12) & 0x3ff] = (pte & ~0xfffu) | PTE_P | PTE_A | PTE_D | (pde & pte & (PTE_W | PTE_U));
	return VTLB_FILLED;
}

/* Every page L2 maps goes into the shadow but page: the case's operation then
 * makes exactly one vTLB miss. */
static void vtlb_fill_all_but(uint32_t page)
{
	vtlb_flush();
	for (uint32_t i = 0; i < 1024; i++) {
		if (!(l2_pd[i] & PTE_P))
			continue;
		const uint32_t *pt = (const uint32_t *)(uintptr_t)(l2_pd[i] & ~0xfffu);
		for (uint32_t j = 0; j < 1024; j++) {
			uint32_t lin = i << 22 | j << 12;
			if ((pt[j] & PTE_P) && lin != page)
				(void)vtlb_fill(lin);
		}
	}
}

/* ---- One L1 run ---- */
enum { L1_GO_ON, L1_DONE, L1_STUCK };  /* what the L1 does after an exit */
struct l1_mode {
	const char *name;          /* "32-bit L1" */
	const char *tag;           /* in "# observed" lines */
	void (*world_switch)(void);
};

/* What the first #PF exit of a case reported, and how it went. */
struct observation {
	int seen;
	uint64_t exitinfo2;
	uint32_t error;
	uint32_t exits;            /* identical exits of that first miss */
	int livelocked;            /* the L1 gave up after L1_LIVELOCK_EXITS */
	uint32_t reflected;        /* #PFs of L2's own tables, injected back */
};

static struct {
	const struct l1_mode *mode;
	int case_k;                /* the case between HC_BEGIN and HC_END, or -1 */
	struct observation obs;
	uint64_t last_exitinfo2, last_rip;
	uint32_t last_error, repeat;
	int flush_pending;
	unsigned passed, livelocks;
} run;

static void vmcb_init(void)
{
	gmemset(vmcb, 0, sizeof(vmcb));
	/* Every exception exits: only #PF is expected, anything else is a failure. */
	vmcb_w32(VMCB_INTERCEPT_EXCEPTIONS, 0xffffffffu);
	vmcb_w32(VMCB_INTERCEPT_MISC1, MISC1_SHUTDOWN);
	vmcb_w32(VMCB_INTERCEPT_MISC2, MISC2_VMRUN | MISC2_VMMCALL);
	vmcb_w64(VMCB_IOPM_BASE_PA, pa(iopm));
	vmcb_w64(VMCB_MSRPM_BASE_PA, pa(msrpm));
	vmcb_w32(VMCB_GUEST_ASID, 1);
	vmcb[VMCB_TLB_CONTROL] = TLB_FLUSH_ALL;
	vmcb_w32(VMCB_CLEAN_BITS, 0);          /* nothing cached: everything is reloaded */
	l1_set_seg(VMCB_CS, L2_CS, L2_ATTR_CODE, 0xffffffffu, L2_SEG_BASE);
	static const unsigned data_segs[] = { VMCB_ES, VMCB_SS, VMCB_DS, VMCB_FS, VMCB_GS };
	for (unsigned i = 0; i < sizeof(data_segs) / sizeof(data_segs[0]); i++)
		l1_set_seg(data_segs[i], L2_DS, L2_ATTR_DATA, 0xffffffffu, L2_SEG_BASE);
	l1_set_seg(VMCB_GDTR, 0, 0, l2_gdtr.limit, l2_gdtr.base);
	l1_set_seg(VMCB_IDTR, 0, 0, l2_idtr.limit, l2_idtr.base);
	l1_default_segs();
	vmcb[VMCB_CPL] = 0;
	vmcb_w64(VMCB_EFER, EFER_SVME);        /* must be set (APM2 15.5.1) */
	vmcb_w64(VMCB_CR0, 0x80010031u);       /* PG, WP, NE, ET, PE */
	vmcb_w64(VMCB_CR3, pa(shadow_pd));
	vmcb_w64(VMCB_CR4, 0);                 /* 2-level paging, no PSE */
	vmcb_w64(VMCB_DR6, 0xffff0ff0u);
	vmcb_w64(VMCB_DR7, 0x400);
	vmcb_w64(VMCB_RFLAGS, 0x2);
	vmcb_w64(VMCB_RIP, pa(l2_main));
	vmcb_w64(VMCB_RSP, pa(l2_stack) + sizeof(l2_stack));
}

/* Appends to a fixed buffer: text, or v in hex with at least digits digits. */
struct text { char buf[320]; unsigned n; };
static void put_str(struct text *t, const char *s)
{
	while (*s && t->n + 1 < sizeof(t->buf))
		t->buf[t->n++] = *s++;
	t->buf[t->n] = 0;
}
static void put_hex(struct text *t, uint64_t v, unsigned digits)
{
	char h[19] = "0x";
	while (digits < 16 && (v >> (4 * digits)))
		digits++;
	for (unsigned i = 0; i < digits; i++)
		h[2 + i] = "0123456789abcdef"[(v >> (4 * (digits - 1 - i))) & 0xf];
	h[2 + digits] = 0;
	put_str(t, h);
}

/* One TAP line for case k: expected against observed EXITINFO2 and error
 * code, the first field that differs named last (check() prints its got and
 * expected after it); and the "# observed" line for the QEMU comparison. */
static void report_case(unsigned k)
{
	const struct nova_case *c = &nova_cases[k];
	const struct observation *o = &run.obs;
	struct text t = { .n = 0 };
	put_str(&t, run.mode->name);
	put_str(&t, " ");
	put_str(&t, c->name);
	put_str(&t, ": EXITINFO2 expected ");
	put_hex(&t, c->exitinfo2, 16);
	put_str(&t, " observed ");
	if (o->seen)
		put_hex(&t, o->exitinfo2, 16);
	else
		put_str(&t, "(no #PF exit)");
	put_str(&t, ", error code expected ");
	put_hex(&t, c->error, 1);
	put_str(&t, " observed ");
	put_hex(&t, o->error, 1);
	if (o->livelocked)
		put_str(&t, ", vTLB livelock (the L1 gave up)");

	note("%s, %s: %s", run.mode->name, c->name, c->what);
	if (!o->seen) {
		put_str(&t, "; #PF exits");
		check(t.buf, 0, 1);
	} else if ((uint32_t)(o->exitinfo2 >> 32) != 0) {
		put_str(&t, "; EXITINFO2[63:32]");
		check(t.buf, (uint32_t)(o->exitinfo2 >> 32), 0);
	} else if ((uint32_t)o->exitinfo2 != c->exitinfo2) {
		put_str(&t, "; EXITINFO2[31:0]");
		check(t.buf, (uint32_t)o->exitinfo2, c->exitinfo2);
	} else if (o->error != c->error) {
		put_str(&t, "; error code");
		check(t.buf, o->error, c->error);
	} else if (o->reflected) {
		put_str(&t, "; #PFs reflected to L2");
		check(t.buf, o->reflected, 0);
	} else {
		check(t.buf, 1, 1);
		run.passed++;
	}
	run.livelocks += o->livelocked != 0;

	struct text obs = { .n = 0 };
	put_str(&obs, "observed l1=");
	put_str(&obs, run.mode->tag);
	put_str(&obs, " path=");
	put_str(&obs, c->name);
	put_str(&obs, " exitinfo2=");
	put_hex(&obs, o->exitinfo2, 16);
	put_str(&obs, " error=");
	put_hex(&obs, o->error, 1);
	put_str(&obs, !o->seen ? " outcome=no-exit" : o->livelocked ? " outcome=livelock" : " outcome=resolved");
	note("%s", obs.buf);
	if (o->livelocked)
		note("  %u identical #PF exits at the same RIP: NOVA's vTLB would loop forever here", o->exits);
}

/* A #PF exit: the vTLB miss. Returns L1_GO_ON, or L1_STUCK when the L1
 * cannot make L2 go on. */
static int handle_pf(void)
{
	uint64_t error = vmcb_r64(VMCB_EXITINFO1), exitinfo2 = vmcb_r64(VMCB_EXITINFO2);
	uint64_t rip = vmcb_r64(VMCB_RIP);
	if (exitinfo2 == run.last_exitinfo2 && (uint32_t)error == run.last_error && rip == run.last_rip) {
		run.repeat++;
	} else {
		run.last_exitinfo2 = exitinfo2;
		run.last_error = (uint32_t)error;
		run.last_rip = rip;
		run.repeat = 1;
	}
	struct observation *o = &run.obs;
	if (run.case_k >= 0) {
		if (!o->seen) {
			o->seen = 1;
			o->exitinfo2 = exitinfo2;
			o->error = (uint32_t)error;
		}
		if (exitinfo2 == o->exitinfo2 && (uint32_t)error == o->error)
			o->exits = run.repeat;
	}
	switch (vtlb_fill(exitinfo2)) {
	case VTLB_FILLED:
		if (run.repeat < L1_LIVELOCK_EXITS)
			return L1_GO_ON;
		note("%s: %u identical #PF exits at 0x%x although the shadow maps the address: giving up",
		     run.mode->name, run.repeat, (uint32_t)exitinfo2);
		return L1_STUCK;
	case VTLB_ABOVE_4G:
		if (run.repeat < L1_LIVELOCK_EXITS)
			return L1_GO_ON;       /* as NOVA: run L2 again; it faults again */
		if (run.case_k >= 0)
			o->livelocked = 1;
		/* Unlike NOVA, give up on this miss and map the wrapped address, so
		 * that the next path can run. */
		(void)vtlb_fill((uint32_t)exitinfo2);
		run.repeat = 0;
		run.last_rip = ~0ull;
		return L1_GO_ON;
	case VTLB_GUEST_FAULT:
		/* Not mapped by L2 itself: reflect the #PF to L2 (APM2 15.20). */
		vmcb_w64(VMCB_EVENTINJ, 14 | EVENT_EXCEPTION | EVENT_EV | EVENT_VALID | (error << 32));
		vmcb_w64(VMCB_CR2, exitinfo2);
		if (run.case_k >= 0)
			o->reflected++;
		return L1_GO_ON;
	}
	return L1_STUCK;
}

/* A VMMCALL exit: L2's hypercall. Returns L1_GO_ON, L1_DONE after the
 * last case, or L1_STUCK for a hypercall L2 should not make. */
static int handle_hypercall(void)
{
	uint32_t number = (uint32_t)vmcb_r64(VMCB_RAX), arg = l2_gpr[0];
	vmcb_w64(VMCB_RIP, vmcb_r64(VMCB_RIP) + 3);   /* past VMMCALL (0F 01 D9) */
	if (number == HC_DONE)
		return L1_DONE;
	if ((number != HC_BEGIN && number != HC_END) || arg >= nova_case_count) {
		note("unknown hypercall %u (argument %u)", number, arg);
		return L1_STUCK;
	}
	const struct nova_case *c = &nova_cases[arg];
	if (number == HC_BEGIN) {
		gmemset(&run.obs, 0, sizeof(run.obs));
		if (c->setup)
			c->setup();
		vtlb_fill_all_but(c->target);
		/* The shadow lost entries: drop what the TLB holds (APM2 15.16). */
		vmcb[VMCB_TLB_CONTROL] = TLB_FLUSH_ALL;
		run.flush_pending = 1;
		run.case_k = (int)arg;
		return L1_GO_ON;
	}
	report_case(arg);
	if (c->undo)
		c->undo();
	run.case_k = -1;
	return L1_GO_ON;
}

static void l1_run(const struct l1_mode *mode)
{
	gmemset(&run, 0, sizeof(run));
	run.mode = mode;
	run.case_k = -1;
	note("%s: L2 runs on the shadow page table; #PF intercepted", mode->name);

	/* APM2 15.4: EFER.SVME enables SVM; VM_HSAVE_PA is where VMRUN keeps the
	 * host state. VMSAVE keeps L1's FS, GS, TR and LDTR for the world switch. */
	wrmsr64(MSR_EFER, rdmsr64(MSR_EFER) | EFER_SVME);
	wrmsr64(MSR_VM_HSAVE_PA, pa(host_save_area));
	l1_vmcb_pa = pa(vmcb);
	l1_host_state_pa = pa(host_state);
	__asm__ volatile("vmsave %%eax" :: "a"(l1_host_state_pa) : "memory");

	vtlb_flush();
	l2_shadow_cr3 = pa(shadow_pd);
	l2_build();
	vmcb_init();
	gmemset(l2_gpr, 0, sizeof(l2_gpr));

	for (;;) {
		mode->world_switch();
		if (run.flush_pending) {
			vmcb[VMCB_TLB_CONTROL] = 0;
			run.flush_pending = 0;
		}
		uint64_t code = vmcb_r64(VMCB_EXITCODE);
		int next;
		if (code == VMEXIT_PF) {
			next = handle_pf();
		} else if (code == VMEXIT_VMMCALL) {
			next = handle_hypercall();
		} else {
			note("%s: unexpected #VMEXIT 0x%x (EXITINFO1 0x%x, EXITINFO2 0x%x) at L2 RIP 0x%x",
			     mode->name, (uint32_t)code, (uint32_t)vmcb_r64(VMCB_EXITINFO1),
			     (uint32_t)vmcb_r64(VMCB_EXITINFO2), (uint32_t)vmcb_r64(VMCB_RIP));
			next = L1_STUCK;
		}
		if (next == L1_DONE)
			break;
		if (next == L1_STUCK) {
			check("L2 ran every path to its end", 0, 1);
			break;
		}
	}
	wrmsr64(MSR_EFER, rdmsr64(MSR_EFER) & ~EFER_SVME);
	note("%s: %u of %u paths as the APM says; %u vTLB livelocks", mode->name, run.passed,
	     nova_case_count, run.livelocks);
}

static const struct l1_mode l1_legacy = { "32-bit L1", "32", l1_world_switch32 };

static void world_switch_from_compat(void)
{
	CALL64(l1_world_switch64);
}
static const struct l1_mode l1_long = { "64-bit L1", "64", world_switch_from_compat };

/* 1 if word is one of the space-separated words of the multiboot command line. */
static int cmdline_word(const char *word)
{
	unsigned n = 0;
	while (word[n])
		n++;
	for (const char *p = mb_cmdline; *p; p++)
		if ((p == mb_cmdline || p[-1] == ' ') && gstrncmp(p, word, n) == 0 &&
		    (p[n] == 0 || p[n] == ' '))
			return 1;
	return 0;
}

void guest_main(void)
{
	note("nova-escape-exitinfo2: EXITINFO2 of #PFs intercepted for a 32-bit L2 whose segments");
	note("are based at 0x40000000, on every path an address can wrap at 4 GiB (APM2 15.12, 4.1)");
	uint32_t r[4];
	cpuid(0x80000000u, 0, r);
	if (r[0] < 0x8000000au)
		skip_all("no CPUID leaf 8000000AH: no SVM");
	cpuid(0x80000001u, 0, r);
	if (!(r[2] & (1u << 2)))
		skip_all("no SVM (CPUID 8000_0001H ECX[2] = 0)");
	if (rdmsr64(MSR_VM_CR) & VM_CR_SVMDIS)
		skip_all("SVM disabled (VM_CR.SVMDIS = 1)");

	int only32 = cmdline_word("l1=32"), only64 = cmdline_word("l1=64");
	if (!only64)
		l1_run(&l1_legacy);
	if (only32)
		return;
	if (!long_mode_supported()) {
		skip("64-bit L1", "no long mode (CPUID 8000_0001H EDX[29] = 0)");
		return;
	}
	uint32_t cr3 = long_identity_map(PG_P | PG_W);
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	long_enter(read_cr4() | CR4_PAE, cr3);
	l1_run(&l1_long);
}
