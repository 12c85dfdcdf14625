/* Nested paging rows shared by svm_npt_2level, svm_npt_pae and svm_npt_long
 * (APM2 15.25): L1 runs with 32-bit, PAE or 4-level paging, and the nested
 * page tables it builds have the format of that mode (15.25.3: "the extra
 * translation uses the same paging mode as the VMM used when it executed the
 * most recent VMRUN"). The nested tables identity-map guest-physical 0-16 MiB
 * with 4 KB pages (P, R/W, U/S: nested accesses are user accesses, 15.25.6);
 * rows edit single entries. #NPF EXITINFO1 (P, RW, US, RSVD, ID, bit 32 final
 * address, bit 33 guest-table walk) and EXITINFO2 = the guest-physical
 * address, nested A/D bits, EXITINTINFO, G_PAT and nCR3 checks. */
#include "svm/npt.h"
#include "lib/long.h"

static enum npt_mode mode;

/* Nested tables: 16 MiB in 4 KB pages. */
static uint32_t n32_pd[1024] __attribute__((aligned(4096)));
static uint32_t n32_pt[4][1024] __attribute__((aligned(4096)));
static uint64_t n64_pml4[512] __attribute__((aligned(4096)));
static uint64_t n64_pdpt[512] __attribute__((aligned(4096)));
static uint64_t n64_pd[512] __attribute__((aligned(4096)));
static uint64_t n64_pt[8][512] __attribute__((aligned(4096)));
static uint64_t npae_pdpt[4] __attribute__((aligned(32)));

/* Pages the rows map, unmap and remap; the L2's own IDT and stack page. */
uint8_t npt_data[4][4096] __attribute__((aligned(4096)));
static uint64_t npt_idt[512] __attribute__((aligned(4096)));
static uint8_t npt_stack[4096] __attribute__((aligned(4096)));
uint8_t npt_code[4096] __attribute__((aligned(4096)));

#define NPT_RWU (PG_P | PG_W | PG_U)
static uint32_t pa(const void *p) { return (uint32_t)(uintptr_t)p; }
#define DATA_GPA  pa(npt_data[0])
#define OTHER_GPA pa(npt_data[1])
#define NX_BIT    (1ull << 63)

static void npt_build(void)
{
	for (uint32_t t = 0; t < 4; t++) {
		for (uint32_t i = 0; i < 1024; i++)
			n32_pt[t][i] = (t << 22) | (i << 12) | NPT_RWU;
		n32_pd[t] = pa(n32_pt[t]) | NPT_RWU;
	}
	for (uint32_t t = 0; t < 8; t++) {
		for (uint32_t i = 0; i < 512; i++)
			n64_pt[t][i] = (t << 21) | (i << 12) | NPT_RWU;
		n64_pd[t] = pa(n64_pt[t]) | NPT_RWU;
	}
	n64_pdpt[0] = pa(n64_pd) | NPT_RWU;
	n64_pml4[0] = pa(n64_pdpt) | NPT_RWU;
	/* Legacy PAE PDPEs have only P and the address (APM2 5.3.4). */
	npae_pdpt[0] = pa(n64_pd) | PG_P;
}

static uint32_t ncr3(void)
{
	return mode == NPT_2LEVEL ? pa(n32_pd) : mode == NPT_PAE ? pa(npae_pdpt) : pa(n64_pml4);
}

/* The nested PTE of a guest-physical address below 16 MiB. */
static uint64_t npte_get(uint32_t gpa)
{
	return mode == NPT_2LEVEL ? n32_pt[gpa >> 22][(gpa >> 12) & 1023] : n64_pt[gpa >> 21][(gpa >> 12) & 511];
}
static void npte_set(uint32_t gpa, uint64_t v)
{
	if (mode == NPT_2LEVEL)
		n32_pt[gpa >> 22][(gpa >> 12) & 1023] = (uint32_t)v;
	else
		n64_pt[gpa >> 21][(gpa >> 12) & 511] = v;
}
static void npte_identity(uint32_t gpa) { npte_set(gpa, (gpa & ~0xfffu) | NPT_RWU); }

/* Every row: nested tables back to the identity map, then its edit. */
static void npt_reset(void)
{
	for (int i = 0; i < 4; i++)
		npte_identity(pa(npt_data[i]));
	npte_identity(pa(npt_idt));
	npte_identity(pa(npt_stack));
	npte_identity(pa(npt_code));
	npte_identity(pa(pg32_pd));
	npte_identity(pa(pg32_test_pt));
	npte_identity(frame_pa(0));
}

/* A fresh NP guest: paging off, identity nested map. */
static void np_on(struct svm_case *c)
{
	struct vmcb *v = c->vmcb;
	npt_reset();
	v->np_control = 1;
	v->ncr3 = ncr3();
	v->cr0 &= ~(uint64_t)CR0_PG;
	v->cr4 &= ~(uint64_t)(CR4_PAE | CR4_PGE);
	v->cr3 = 0;
	v->efer = EFER_SVME;
}
/* The same with guest 32-bit paging through lib/paging.c's tables. */
static void np_guest_paging(struct svm_case *c)
{
	np_on(c);
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U;
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr3 = pa(pg32_pd);
}

L2_BODY(b_read, "mov $npt_data, %ebx", "mov 0x10(%ebx), %eax", "");
L2_BODY(b_write, "mov $npt_data, %ebx", "movl $0x1234, 0x10(%ebx)", "");
L2_BODY(b_jmp, "mov $npt_code, %eax", "jmp *%eax", "");
L2_BODY(b_read_lin, "mov $0x40000000, %ebx", "mov 0x20(%ebx), %eax", "");
L2_INSN(b_nop, "nop");
L2_INSN(b_ud2, "ud2");

static void data_magic(void)
{
	*(volatile uint32_t *)(npt_data[0] + 0x10) = 0x11111111;
	*(volatile uint32_t *)(npt_data[1] + 0x10) = 0x22222222;
}
static void read_identity(struct svm_case *c) { np_on(c); data_magic(); }
static void read_remapped(struct svm_case *c) { np_on(c); data_magic(); npte_set(DATA_GPA, OTHER_GPA | NPT_RWU); }
static void saw(struct svm_case *c)
{
	svm_expect(c, "L2 read (VMCB RAX)", (uint32_t)c->vmcb->rax, c->row->arg);
}
static void data_np(struct svm_case *c) { np_on(c); npte_set(DATA_GPA, 0); }
static void data_ro(struct svm_case *c) { np_on(c); npte_set(DATA_GPA, DATA_GPA | PG_P | PG_U); }
static void data_super(struct svm_case *c) { np_on(c); npte_set(DATA_GPA, DATA_GPA | PG_P | PG_W); }
static void data_rsvd(struct svm_case *c) { np_on(c); npte_set(DATA_GPA, DATA_GPA | NPT_RWU | (1ull << 51)); }
static void code_nx(struct svm_case *c) { np_on(c); npte_set(pa(npt_code), pa(npt_code) | NPT_RWU | NX_BIT); }
static void code_np(struct svm_case *c) { np_on(c); npte_set(pa(npt_code), 0); }
static void fetch_at_code(struct svm_case *c)
{
	svm_expect(c, "saved rIP (the fetch target)", c->vmcb->rip, pa(npt_code));
}

/* Guest page-table walks through the nested tables (15.25.5, 15.25.6). */
static uint32_t guest_pte_gpa(void) { return pa(pg32_test_pt) + ((TEST_LIN >> 12) & 1023) * 4; }
static void walk_pt_np(struct svm_case *c)
{
	np_guest_paging(c);
	npte_set(pa(pg32_test_pt), 0);
	c->info2 = guest_pte_gpa();
}
/* The first instruction fetch walks the guest PD: its PDE 0 faults. */
static void walk_pd_np(struct svm_case *c)
{
	np_guest_paging(c);
	npte_set(pa(pg32_pd), 0);
	c->info2 = pa(pg32_pd) + ((uint32_t)(uintptr_t)c->row->body->start >> 22) * 4;
}
static void at_start(struct svm_case *c)
{
	svm_expect(c, "saved rIP (the first instruction)", c->vmcb->rip, (uint32_t)(uintptr_t)c->row->body->start);
}
/* Walks are user writes at the nested level: a read-only nested page under
 * the guest's page table faults with RW = 1 even for a guest read. */
static void walk_pt_ro(struct svm_case *c)
{
	np_guest_paging(c);
	npte_set(pa(pg32_test_pt), pa(pg32_test_pt) | PG_P | PG_U);
	c->info2 = guest_pte_gpa();
}
static void walk_ok(struct svm_case *c)
{
	np_guest_paging(c);
	npte_set(pa(pg32_pd), pa(pg32_pd) | NPT_RWU);                  /* A, D clear */
	npte_set(pa(pg32_test_pt), pa(pg32_test_pt) | NPT_RWU);
	npte_set(frame_pa(0), frame_pa(0) | NPT_RWU);
	*(volatile uint32_t *)(pg_frames[0] + 0x20) = 0x33333333;
}
static void walk_ad(struct svm_case *c)
{
	saw(c);
	svm_expect(c, "nested PTE of the guest PD: A|D", npte_get(pa(pg32_pd)) & (PG_A | PG_D), PG_A | PG_D);
	svm_expect(c, "nested PTE of the guest PT: A|D", npte_get(pa(pg32_test_pt)) & (PG_A | PG_D), PG_A | PG_D);
	svm_expect(c, "nested PTE of the data page: A, not D", npte_get(frame_pa(0)) & (PG_A | PG_D), PG_A);
}
static void guest_pf(struct svm_case *c) { np_guest_paging(c); pg32_test_pt[0] = 0; }

/* NPF during event delivery (15.7.2): the L2's own IDT / stack page. */
static void idt_np(struct svm_case *c)
{
	np_on(c);
	gmemcpy(npt_idt, l2_idt, sizeof(l2_idt));
	c->vmcb->idtr.base = pa(npt_idt);
	c->vmcb->eventinj = EVENT(EV_INTR, 0x40);
	npte_set(pa(npt_idt), 0);
	c->info2 = pa(npt_idt) + 0x40 * 8;
}
static void stack_np(struct svm_case *c)
{
	np_on(c);
	c->vmcb->rsp = pa(npt_stack) + 0x1000;
	npte_set(pa(npt_stack), 0);
}
static void stack_in_frame(struct svm_case *c)
{
	uint32_t top = pa(npt_stack) + 0x1000;
	svm_expect_true(c, "EXITINFO2 inside the 12-byte frame", c->vmcb->exitinfo2 >= top - 12 &&
			c->vmcb->exitinfo2 < top);
}

static void gpat_bad(struct svm_case *c) { np_on(c); c->vmcb->g_pat = (PAT_DEFAULT & ~0xffull) | 2; /* PA0 = 2: reserved */ }
static void ncr3_mbz(struct svm_case *c) { np_on(c); c->vmcb->ncr3 |= 1ull << 62; }
static const char *long_only(void) { return mode == NPT_LONG ? 0 : "nCR3 bits 63:52 are MBZ in the 4-level format only"; }
static const char *nx_only(void)
{
	if (mode == NPT_2LEVEL)
		return "2-level nested tables have no NX bit";
	return cpu_has(0x80000001u, 3, 20) ? 0 : "CPUID Fn8000_0001_EDX[NX] = 0";
}
static const char *not_2level(void)
{
	return mode == NPT_2LEVEL ? "2-level tables: the I/D and reserved-bit cases need NX/PAE formats" : 0;
}

/* Instruction bytes for a data #NPF (15.8.4), C_INSN_BYTES. */
#define DATA_NPF (C_INFO1 | C_INFO2 | C_INSN_BYTES)

static const struct svm_row rows[] = {
	{ .name = "NP guest reads through the identity nested map", .apm = "15.25.5", .body = &b_read_body,
	  .setup = read_identity, .exitcode = EXIT_VMMCALL, .check = C_AT_END, .arg = 0x11111111,
	  .extra = saw, .need = NEED(F_NP) },
	{ .name = "nested PTE remapped: the L2 reads the other page", .apm = "15.25.5", .body = &b_read_body,
	  .setup = read_remapped, .exitcode = EXIT_VMMCALL, .check = C_AT_END, .arg = 0x22222222,
	  .extra = saw, .need = NEED(F_NP) },
	{ .name = "#NPF read, nested not present: EXITINFO1 = US | final, EXITINFO2 = gPA",
	  .apm = "15.25.6", .body = &b_read_body, .setup = data_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_US | NPF_FINAL, .info2 = 0, .check = DATA_NPF, .need = NEED(F_NP) },
	{ .name = "#NPF write, nested read-only: P | RW | US | final", .apm = "15.25.6",
	  .body = &b_write_body, .setup = data_ro, .exitcode = EXIT_NPF,
	  .info1 = NPF_P | NPF_RW | NPF_US | NPF_FINAL, .check = DATA_NPF, .need = NEED(F_NP) },
	{ .name = "#NPF read, nested supervisor page (nested accesses are user): P | US | final",
	  .apm = "15.25.6", .body = &b_read_body, .setup = data_super, .exitcode = EXIT_NPF,
	  .info1 = NPF_P | NPF_US | NPF_FINAL, .check = DATA_NPF, .need = NEED(F_NP) },
	{ .name = "#NPF read, nested reserved bit 51: P | RSVD | US | final", .apm = "15.25.6",
	  .body = &b_read_body, .setup = data_rsvd, .exitcode = EXIT_NPF,
	  .info1 = NPF_P | NPF_RSVD | NPF_US | NPF_FINAL, .check = DATA_NPF, .need = NEED(F_NP),
	  .skip = not_2level },
	{ .name = "#NPF fetch, nested NX: P | US | ID | final, rIP = the target", .apm = "15.25.6",
	  .body = &b_jmp_body, .setup = code_nx, .exitcode = EXIT_NPF,
	  .info1 = NPF_P | NPF_US | NPF_ID | NPF_FINAL, .check = C_INFO1 | C_INFO2 | C_NO_RIP | C_NO_INSN,
	  .extra = fetch_at_code, .need = NEED(F_NP), .skip = nx_only },
	{ .name = "#NPF fetch, nested not present: US | ID | final", .apm = "15.25.6",
	  .body = &b_jmp_body, .setup = code_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_US | NPF_ID | NPF_FINAL, .check = C_INFO1 | C_INFO2 | C_NO_RIP | C_NO_INSN,
	  .extra = fetch_at_code, .need = NEED(F_NP), .skip = not_2level },
	{ .name = "guest walk through the nested tables: the L2 reads via its page tables",
	  .apm = "15.25.5", .body = &b_read_lin_body, .setup = walk_ok, .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .arg = 0x33333333, .extra = walk_ad, .need = NEED(F_NP) },
	{ .name = "#NPF on the guest PTE's page: RW | US | walk (bit 33), EXITINFO2 = gPA of the PTE",
	  .apm = "15.25.6", .body = &b_read_lin_body, .setup = walk_pt_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_RW | NPF_US | NPF_WALK, .check = DATA_NPF, .need = NEED(F_NP) },
	{ .name = "#NPF on the guest PD (gCR3) page at the first fetch: RW | US | walk, gPA of PDE 0",
	  .apm = "15.25.6", .body = &b_read_lin_body, .setup = walk_pd_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_RW | NPF_US | NPF_WALK, .check = C_INFO1 | C_INFO2 | C_NO_RIP | C_NO_INSN,
	  .extra = at_start, .need = NEED(F_NP) },
	{ .name = "guest PT on a nested read-only page: a read faults as a walk write",
	  .apm = "15.25.5", .body = &b_read_lin_body, .setup = walk_pt_ro, .exitcode = EXIT_NPF,
	  .info1 = NPF_P | NPF_RW | NPF_US | NPF_WALK, .check = DATA_NPF, .need = NEED(F_NP) },
	{ .name = "guest PTE not present under NP: the guest's #PF (intercepted), no #NPF",
	  .apm = "15.25.6", .body = &b_read_lin_body, .icpt_exc = 1u << 14, .setup = guest_pf,
	  .exitcode = EXIT_EXC(14), .info1 = 0, .info2 = TEST_LIN + 0x20, .check = DATA_NPF,
	  .need = NEED(F_NP) },
	{ .name = "injected INTR, the IDT page nested not present: #NPF with EXITINTINFO = the INTR",
	  .apm = "15.7.2", .body = &b_nop_body, .setup = idt_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_US | NPF_FINAL, .intinfo = EVENT(EV_INTR, 0x40),
	  .check = C_INFO1 | C_INFO2 | C_INTINFO | C_INSN_BYTES, .need = NEED(F_NP) },
	{ .name = "guest #UD, the stack page nested not present: #NPF (RW) with EXITINTINFO = #UD",
	  .apm = "15.7.2", .body = &b_ud2_body, .setup = stack_np, .exitcode = EXIT_NPF,
	  .info1 = NPF_RW | NPF_US | NPF_FINAL, .intinfo = EVENT(EV_EXC, 6),
	  .check = C_INFO1 | C_INTINFO | C_INSN_BYTES, .extra = stack_in_frame, .need = NEED(F_NP) },
	{ .name = "G_PAT with a reserved type (PA0 = 2): VMEXIT_INVALID", .apm = "15.25.4",
	  .body = &b_nop_body, .setup = gpat_bad, .exitcode = EXIT_INVALID, .need = NEED(F_NP) },
	{ .name = "nCR3 with MBZ bit 62: VMEXIT_INVALID", .apm = "15.25.4", .body = &b_nop_body,
	  .setup = ncr3_mbz, .exitcode = EXIT_INVALID, .need = NEED(F_NP), .skip = long_only },
};

/* VMCB clean bit 4 (NP: NP_ENABLE, N_CR3, G_PAT, APM2 15.15.3): run 1
 * without nested paging, run 2 with it and the data page remapped. With the
 * bit clear the L2 must read the remapped page; with it set, hvemu --tlb
 * exact keeps the cached NP_ENABLE = 0 (reads the identity page), --tlb
 * flush reloads. */
static void np_clean(int bit_set)
{
	char name[160];
	const char *m = cmdline_has("tlb=exact") ? "exact" : cmdline_has("tlb=flush") ? "flush" : 0;
	const char *what = bit_set ? "clean bit 4 (NP) set after enabling NP" :
				     "clean bit 4 (NP) clear after enabling NP: nested paging used";
	const char *apm = bit_set ? "15.15.3, hvemu --tlb" : "15.15.3";
	if (!svm_has(F_VMCBCLEAN) || (bit_set && !m)) {
		skip(pg_name(name, sizeof(name), "%s [APM2 %s]", what, apm), "%s",
		     !svm_has(F_VMCBCLEAN) ? "CPUID Fn8000_000A_EDX[VmcbClean] = 0" :
		     "hardware may use either value; checked under hvemu only");
		return;
	}
	static struct svm_row row;
	row.name = what;
	row.apm = apm;
	row.body = &b_read_body;
	struct svm_case c = { &row, &svm_vmcbs[0], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb;
	data_magic();
	svm_vmcb_init(v, b_read_body.start);
	np_on(&c);
	v->np_control = 0;
	v->cr3 = read_cr3();   /* without NP the L2's CR3 is L1's; paging is off in the L2 */
	svm_poison(v);
	svm_vmrun_fn(vmcb_pa(v));
	svm_expect(&c, "run 1 read (no NP)", (uint32_t)v->rax, 0x11111111);
	npte_set(DATA_GPA, OTHER_GPA | NPT_RWU);
	v->np_control = 1;
	v->rip = (uint32_t)(uintptr_t)b_read_body.start;
	v->tlb_control = 1;
	v->clean = bit_set ? 0xffffffffu : ~(1u << 4);
	svm_poison(v);
	svm_vmrun_fn(vmcb_pa(v));
	int want_new = !bit_set || gstrncmp(m, "flush", 5) == 0;
	svm_expect(&c, want_new ? "run 2 read (nested remap)" : "run 2 read (cached NP_ENABLE = 0)",
		   (uint32_t)v->rax, want_new ? 0x22222222 : 0x11111111);
	npte_identity(DATA_GPA);
	svm_case_report(&c);
}

/* The rows' EXITINFO2 is the gPA of the data page + 10h or of the code page:
 * addresses known at link time only. */
static void npt_rows(void)
{
	struct svm_row r[sizeof(rows) / sizeof(rows[0])];
	gmemcpy(r, rows, sizeof(rows));
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (r[i].body == &b_read_body || r[i].body == &b_write_body)
			r[i].info2 = DATA_GPA + 0x10;
		if (r[i].body == &b_jmp_body)
			r[i].info2 = pa(npt_code);
		svm_run_row(&r[i]);
	}
}

void npt_main(enum npt_mode m)
{
	static const char *names[] = { "32-bit (2-level)", "PAE", "4-level (long mode)" };
	mode = m;
	svm_host_init();
	if (!svm_has(F_NP))
		skip_all("CPUID Fn8000_000A_EDX[NP] = 0: no nested paging");
	npt_build();
	uint32_t cr3_32 = pg32_build();
	pg32_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U;
	/* The bytes the NX/not-present fetch rows jump to (never reached). */
	npt_code[0] = 0x0f; npt_code[1] = 0x01; npt_code[2] = 0xd9;   /* vmmcall */
	int nx = cpu_has(0x80000001u, 3, 20);
	switch (m) {
	case NPT_2LEVEL:
		paging_on(cr3_32, 0);
		break;
	case NPT_PAE:
		if (nx)
			wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_NXE);
		paging_on(pae_build(), CR4_PAE);
		break;
	case NPT_LONG:
		if (!svm_caps.lm)
			skip_all("CPUID Fn8000_0001_EDX[LM] = 0: no long mode for a 4-level host");
		if (nx)
			wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_NXE);
		long_gdt_init();
		long_idt_init(LM_CS64, 0);
		long_enter(read_cr4() | CR4_PAE, long_identity_map(PG_P | PG_W));
		break;
	}
	note("L1 paging: %s, nCR3 0x%x", names[m], ncr3());
	npt_rows();
	np_clean(0);
	np_clean(1);
}
