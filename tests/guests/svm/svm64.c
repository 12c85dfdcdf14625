/* A 64-bit L1 hypervisor (VMRUN executed in 64-bit mode, lib/long.h) running
 * 64-bit and 32-bit L2s: decode assists with R8-R15 (APM2 15.8.1), CR8
 * intercepts, IOIO A64 (15.10.2), 64-bit INVLPG and #PF addresses, a 32-bit
 * L2's #PF EXITINFO2 wrapped to 32 bits under a 64-bit host, the long-mode
 * consistency checks and event injection (15.5.1, 15.20), non-canonical rIP,
 * 64-bit rAX rules of VMRUN/VMLOAD/VMSAVE, the long-mode MSRs of VMSAVE
 * (15.5.2), and virtual VMLOAD/VMSAVE (15.33.1). */
#include "svm/lib_svm.h"
#include "lib/long.h"

#define EXC(v) (1u << (v))
#define CR_R(n) (1u << (n))
#define CR_W(n) (1u << (16 + (n)))
#define MSR_STAR   0xc0000081u
#define MSR_LSTAR  0xc0000082u
#define MSR_CSTAR  0xc0000083u
#define MSR_SFMASK 0xc0000084u
#define SEL_WRAP   0x50

uint64_t l2_regs64[8];             /* R8-R15 of the L2 */
uint32_t svm64_vmcb_pa;
uint64_t svm64_rax;
uint64_t l2_idt64[512] __attribute__((aligned(16)));
extern char l2_stubs64[];
void svm_vmrun64(void);
void x64_vmrun(void);
void x64_vmload(void);
void x64_vmload_a32(void);
void x64_vmsave(void);

static void vmrun64(uint32_t pa)
{
	svm64_vmcb_pa = pa;
	CALL64(svm_vmrun64);
}

#define L2_BODY64(name, pre, insn, post)                                    \
	__asm__(".pushsection .text\n\t.code64\n\t.globl " #name "\n" #name ":\n\t" \
		pre "\n\t.globl " #name "_at\n" #name "_at:\n\t" insn               \
		"\n\t.globl " #name "_next\n" #name "_next:\n\t" post               \
		"\n\tvmmcall\n\tud2\n\t.code32\n\t.popsection");                    \
	extern const char name[], name##_at[], name##_next[];               \
	static const struct l2_body name##_body = { name, name##_at, name##_next }

L2_BODY64(b_cpuid, "", "cpuid", "");
L2_BODY64(b_cr8_r, "", "mov %cr8, %r9", "");
L2_BODY64(b_cr8_w, "xor %r14, %r14", "mov %r14, %cr8", "");
L2_BODY64(b_cr3_r, "", "mov %cr3, %r15", "");
L2_BODY64(b_dr7_r, "", "mov %db7, %r12", "");
L2_BODY64(b_outsb, "mov $0x61, %edx\n\tlea l2_scratch(%rip), %rsi", "outsb", "");
L2_BODY64(b_rep_outsw_a32, "mov $0x62, %edx\n\tlea l2_scratch(%rip), %esi\n\tmov $1, %ecx",
	  "addr32 rep outsw", "");
L2_BODY64(b_invlpg, "movabs $0xffff800000001000, %rax", "invlpg (%rax)", "");
L2_BODY64(b_pf64, "movabs $0x00007f0000000000, %rbx", "mov 0x10(%rbx), %rax", "");
L2_BODY64(b_vmsave, "lea svm_vmcbs + 8192(%rip), %rax", "vmsave %rax", "");
L2_BODY64(b_vmload, "lea svm_vmcbs + 8192(%rip), %rax", "vmload %rax", "");
L2_BODY64(b_nop, "", "nop", "");
L2_BODY(b_pf_wrap32, "mov $0x50, %eax\n\tmov %eax, %es\n\tmov $0xc0000123, %ebx", "mov %es:(%ebx), %eax", "");

/* A 64-bit L2 in L1's address space: CS = LM_CS64 (L = 1), EFER.LME/LMA,
 * L1's CR0/CR3/CR4 (4-level paging), a 64-bit IDT of recording stubs. */
static void lm64(struct svm_case *c)
{
	struct vmcb *v = c->vmcb;
	v->cs.sel = LM_CS64;
	v->cs.attr = 0x9b | (0xa << 8);        /* G, L; D = 0 */
	v->efer |= EFER_LME | EFER_LMA;
	v->idtr.base = (uint32_t)(uintptr_t)l2_idt64;
	v->idtr.limit = sizeof(l2_idt64) - 1;
	gmemset(l2_regs64, 0, sizeof(l2_regs64));
}
static void lm64_inject(struct svm_case *c) { lm64(c); c->vmcb->eventinj = ((uint64_t)c->row->arg2 << 32) | c->row->arg; }
static void lm64_iopm(struct svm_case *c) { lm64(c); iopm_set(c->row->arg, 1); }
static void lm64_cr3_mbz(struct svm_case *c) { lm64(c); c->vmcb->cr3 |= 1ull << 62; }
static void lm64_noncanon(struct svm_case *c) { lm64(c); c->vmcb->rip = 0x0000800000000000ull; }
static void noncanon_rip(struct svm_case *c)
{
	svm_expect(c, "saved rIP (the non-canonical entry)", c->vmcb->rip, 0x0000800000000000ull);
}
/* A 32-bit L2 (EFER.LME = 0) with 32-bit paging under this 64-bit host. */
static uint32_t pg32_cr3;
static void legacy32_paging(struct svm_case *c)
{
	struct vmcb *v = c->vmcb;
	v->cr4 &= ~(uint64_t)CR4_PAE;
	v->cr3 = pg32_cr3;
}

/* ---- virtual VMLOAD/VMSAVE (15.33.1) ---- */
static uint64_t n_pml4[512] __attribute__((aligned(4096)));
static uint64_t n_pdpt[512] __attribute__((aligned(4096)));
static uint64_t n_pd[512] __attribute__((aligned(4096)));
static void np64(struct svm_case *c, int virt)
{
	lm64(c);
	c->vmcb->np_control = 1;
	c->vmcb->ncr3 = (uint32_t)(uintptr_t)n_pml4;
	if (virt)
		c->vmcb->virt_ext = 2;
	gmemset(&svm_vmcbs[2], 0, sizeof(struct vmcb));
	svm_vmcbs[2].fs.sel = 0x7777;
}
static void vvmsave(struct svm_case *c) { np64(c, 1); }
static void vvmsave_icpt(struct svm_case *c) { np64(c, 1); c->vmcb->icpt_misc2 |= ICPT2_VMSAVE; }
static void vvmsave_nonp(struct svm_case *c) { np64(c, 1); c->vmcb->np_control = 0; }
static void vvmload(struct svm_case *c)
{
	np64(c, 1);
	uint64_t star = rdmsr64(MSR_STAR);
	__asm__ volatile("vmsave" :: "a"(vmcb_pa(&svm_vmcbs[2])) : "memory");
	svm_vmcbs[2].star = 0x0033002200778899ull;
	svm_vmcbs[3].star = star;   /* L1's, to restore */
}
static void saved_by_l2(struct svm_case *c)
{
	svm_expect(c, "VMCB page written by the L2's VMSAVE: FS.sel", svm_vmcbs[2].fs.sel, 0x10);
	svm_expect(c, "TR.sel", svm_vmcbs[2].tr.sel, SEL_TSS);
}
static void loaded_by_l2(struct svm_case *c)
{
	svm_expect(c, "STAR after the L2's VMLOAD", rdmsr64(MSR_STAR), 0x0033002200778899ull);
	wrmsr64(MSR_STAR, svm_vmcbs[3].star);
}
static void not_saved(struct svm_case *c)
{
	svm_expect(c, "VMCB page untouched: FS.sel", svm_vmcbs[2].fs.sel, 0x7777);
}

static const struct svm_row rows[] = {
	{ .name = "64-bit L2: CPUID", .apm = "15.9", .body = &b_cpuid_body, .icpt1 = ICPT1_CPUID,
	  .setup = lm64, .exitcode = EXIT_CPUID, .check = C_NRIP_NEXT },
	{ .name = "MOV R9, CR8: EXITINFO1 = bit 63 | 9", .apm = "15.8.1", .body = &b_cr8_r_body,
	  .icpt_cr = CR_R(8), .setup = lm64, .exitcode = EXIT_CR_READ(8), .info1 = CR_MOV | 9,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "MOV CR8, R14: EXITINFO1 = bit 63 | 14", .apm = "15.8.1", .body = &b_cr8_w_body,
	  .icpt_cr = CR_W(8), .setup = lm64, .exitcode = EXIT_CR_WRITE(8), .info1 = CR_MOV | 14,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "MOV R15, CR3: EXITINFO1 = bit 63 | 15", .apm = "15.8.1", .body = &b_cr3_r_body,
	  .icpt_cr = CR_R(3), .setup = lm64, .exitcode = EXIT_CR_READ(3), .info1 = CR_MOV | 15,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "MOV R12, DR7: EXITINFO1 = 12", .apm = "15.8.1", .body = &b_dr7_r_body,
	  .icpt_dr = 1u << 7, .setup = lm64, .exitcode = EXIT_DR_READ(7), .info1 = 12,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "OUTSB in 64-bit mode: A64, segment DS", .apm = "15.10.2", .body = &b_outsb_body,
	  .icpt1 = ICPT1_IOIO, .setup = lm64_iopm, .arg = 0x61, .exitcode = EXIT_IOIO,
	  .info1 = IO_STR | IO_SZ8 | IO_A64 | IO_SEG(SEG_DS) | IO_PORT(0x61),
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO2_NEXT | C_INFO1_MASK_SEG },
	{ .name = "REP OUTSW with a 67h prefix in 64-bit mode: A32", .apm = "15.10.2",
	  .body = &b_rep_outsw_a32_body, .icpt1 = ICPT1_IOIO, .setup = lm64_iopm, .arg = 0x62,
	  .exitcode = EXIT_IOIO, .info1 = IO_STR | IO_REP | IO_SZ16 | IO_A32 | IO_SEG(SEG_DS) | IO_PORT(0x62),
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO2_NEXT | C_INFO1_MASK_SEG },
	{ .name = "INVLPG of FFFF_8000_0000_1000h: the 64-bit EXITINFO1", .apm = "15.8.3",
	  .body = &b_invlpg_body, .icpt1 = ICPT1_INVLPG, .setup = lm64, .exitcode = EXIT_INVLPG,
	  .info1 = 0xffff800000001000ull, .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "#PF at 7F00_0000_0010h: EXITINFO2 = the 64-bit address", .apm = "15.12.15",
	  .body = &b_pf64_body, .icpt_exc = EXC(14), .setup = lm64, .exitcode = EXIT_EXC(14),
	  .info1 = 0, .info2 = 0x00007f0000000010ull, .check = C_INFO1 | C_INFO2 | C_INSN_BYTES },
	{ .name = "32-bit L2 under a 64-bit host: #PF EXITINFO2 wraps at 4 GiB", .apm = "15.12.15",
	  .body = &b_pf_wrap32_body, .icpt_exc = EXC(14), .setup = legacy32_paging,
	  .exitcode = EXIT_EXC(14), .info1 = 0, .info2 = TEST_LIN + 0x123,
	  .check = C_INFO1 | C_INFO2 | C_INSN_BYTES },
	{ .name = "non-canonical rIP at VMRUN: #GP(0) in the guest, not VMEXIT_INVALID", .apm = "15.5.1",
	  .body = &b_nop_body, .icpt_exc = EXC(13), .setup = lm64_noncanon, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 | C_NO_RIP, .extra = noncanon_rip },
	{ .name = "long-mode guest, CR3 MBZ bit 62: VMEXIT_INVALID", .apm = "15.5.1", .body = &b_nop_body,
	  .setup = lm64_cr3_mbz, .exitcode = EXIT_INVALID },
	{ .name = "EVENTINJ #BR into a 64-bit guest: VMEXIT_INVALID", .apm = "15.20", .body = &b_nop_body,
	  .setup = lm64_inject, .arg = (uint32_t)EVENT(EV_EXC, 5), .exitcode = EXIT_INVALID },
	{ .name = "virtual VMSAVE (NP, 64-bit host): no exit, the gPA page written", .apm = "15.33.1",
	  .body = &b_vmsave_body, .setup = vvmsave, .exitcode = EXIT_VMMCALL, .check = C_AT_END,
	  .extra = saved_by_l2, .need = NEED(F_VMSAVE_VIRT) | NEED(F_NP) },
	{ .name = "virtual VMLOAD: STAR loaded from the gPA page", .apm = "15.33.1", .body = &b_vmload_body,
	  .setup = vvmload, .exitcode = EXIT_VMMCALL, .check = C_AT_END, .extra = loaded_by_l2,
	  .need = NEED(F_VMSAVE_VIRT) | NEED(F_NP) },
	{ .name = "virtual VMSAVE with the VMSAVE intercept set: #VMEXIT(VMSAVE)", .apm = "15.33.1",
	  .body = &b_vmsave_body, .setup = vvmsave_icpt, .exitcode = EXIT_VMSAVE, .check = C_NRIP_NEXT,
	  .extra = not_saved, .need = NEED(F_VMSAVE_VIRT) | NEED(F_NP) },
	{ .name = "virtual VMSAVE enabled without NP: #VMEXIT(VMSAVE)", .apm = "15.33.1",
	  .body = &b_vmsave_body, .setup = vvmsave_nonp, .exitcode = EXIT_VMSAVE, .check = C_NRIP_NEXT,
	  .extra = not_saved, .need = NEED(F_VMSAVE_VIRT) },
};

/* 15.5.1, 15.5.2: rAX at or above 2^MAXPHYADDR #GPs; with a 67h prefix only
 * EAX forms the address. */
static void rax_rules(void)
{
	uint64_t top = 1ull << svm_caps.maxphy, page = vmcb_pa(&svm_vmcbs[2]);
	struct { const char *name; void (*fn)(void); uint64_t rax; uint64_t vec; } t[] = {
		{ "VMRUN with rAX = 2^MAXPHYADDR: #GP(0) [APM2 15.5.1]", x64_vmrun, top, 13 },
		{ "VMLOAD with rAX = 2^MAXPHYADDR: #GP(0) [APM2 15.5.2]", x64_vmload, top, 13 },
		{ "VMSAVE with rAX = 2^MAXPHYADDR: #GP(0) [APM2 15.5.2]", x64_vmsave, top, 13 },
		{ "VMLOAD with 67h and rAX = 2^63 + page: EAX used, no fault [APM2 15.5.1]", x64_vmload_a32,
		  (1ull << 63) | page, 0xff },
	};
	__asm__ volatile("vmsave" :: "a"((uint32_t)page) : "memory");
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		svm64_rax = t[i].rax;
		lm_vec = 0xff;
		lm_err = 0xdead;
		if (t[i].fn == x64_vmrun)
			CALL64(x64_vmrun);
		else if (t[i].fn == x64_vmload)
			CALL64(x64_vmload);
		else if (t[i].fn == x64_vmsave)
			CALL64(x64_vmsave);
		else
			CALL64(x64_vmload_a32);
		lm_recover = 0;
		check(t[i].name, (uint32_t)lm_vec, (uint32_t)t[i].vec);
		if (t[i].vec == 13)
			check("  error code 0", (uint32_t)lm_err, 0);
	}
}

/* 15.5.2: VMSAVE stores KernelGsBase, LSTAR, CSTAR, SFMASK. */
static void vmsave_lm_msrs(void)
{
	static const struct svm_row row = { .name = "VMSAVE stores KernelGsBase, LSTAR, CSTAR, SFMASK",
		.apm = "15.5.2", .body = &b_nop_body };
	struct svm_case c = { &row, &svm_vmcbs[1], 0, 0, 0, 1 };
	struct vmcb *v = c.vmcb, *orig = &svm_vmcbs[3];
	__asm__ volatile("vmsave" :: "a"(vmcb_pa(orig)) : "memory");
	wrmsr64(MSR_KERNEL_GS_BASE, 0xffff800012345000ull);
	wrmsr64(MSR_LSTAR, 0xffff800000abc000ull);
	wrmsr64(MSR_CSTAR, 0xffff800000def000ull);
	wrmsr64(MSR_SFMASK, 0x4700);
	gmemset(v, 0, sizeof(*v));
	__asm__ volatile("vmsave" :: "a"(vmcb_pa(v)) : "memory");
	svm_expect(&c, "KernelGsBase", v->kernel_gs_base, 0xffff800012345000ull);
	svm_expect(&c, "LSTAR", v->lstar, 0xffff800000abc000ull);
	svm_expect(&c, "CSTAR", v->cstar, 0xffff800000def000ull);
	svm_expect(&c, "SFMASK", v->sfmask, 0x4700);
	__asm__ volatile("vmload" :: "a"(vmcb_pa(orig)) : "memory");
	svm_expect(&c, "LSTAR after VMLOAD of the original", rdmsr64(MSR_LSTAR), orig->lstar);
	svm_case_report(&c);
}

void guest_main(void)
{
	svm_host_init();
	if (!svm_caps.lm)
		skip_all("CPUID Fn8000_0001_EDX[LM] = 0: no long mode for a 64-bit L1");
	pg32_cr3 = pg32_build();
	gdt[SEL_WRAP >> 3] = seg_desc(0x80000000u, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	/* Nested tables for the virtual VMLOAD/VMSAVE rows: the first GiB, 2 MB
	 * pages, user and writable (15.25.5). */
	for (int i = 0; i < 512; i++)
		n_pd[i] = ((uint64_t)i << 21) | PG_P | PG_W | PG_U | PG_PS;
	n_pdpt[0] = (uint32_t)(uintptr_t)n_pd | PG_P | PG_W | PG_U;
	n_pml4[0] = (uint32_t)(uintptr_t)n_pdpt | PG_P | PG_W | PG_U;
	for (int v = 0; v < 256; v++) {
		uint32_t off = (uint32_t)(uintptr_t)l2_stubs64 + 32u * (uint32_t)v;
		l2_idt64[2 * v] = (off & 0xffff) | ((uint64_t)LM_CS64 << 16) | (0x8eull << 40) |
				  ((uint64_t)(off >> 16) << 48);
		l2_idt64[2 * v + 1] = 0;
	}
	long_enter(read_cr4() | CR4_PAE, long_identity_map(PG_P | PG_W | PG_U));
	svm_vmrun_fn = vmrun64;
	RUN_ROWS(rows);
	rax_rules();
	vmsave_lm_msrs();
}
