/* The SVM instructions in the host (L1): the #UD and #GP rules of VMRUN,
 * VMLOAD, VMSAVE, STGI, CLGI, VMMCALL, INVLPGA and SKINIT (APM2 15.4, 15.5.1,
 * 15.5.2, 15.18, 15.31: EFER.SVME = 0, CPL > 0, rAX not 4 KB aligned); the
 * SVM MSRs (15.30.1 VM_CR.SVMDIS/LOCK, 15.30.4 VM_HSAVE_PA, EFER.SVME under
 * SVMDIS); what VMSAVE stores and VMLOAD loads (15.5.2). */
#include "svm/lib_svm.h"

#define MSR_STAR          0xc0000081u
#define MSR_SYSENTER_CS   0x174u
#define MSR_SYSENTER_ESP  0x175u
#define MSR_SYSENTER_EIP  0x176u

/* One instruction under MARK, rAX = arg. A VMRUN that does not fault runs
 * svm_vmcbs[2] (a good guest) and comes back. */
static void x_vmrun(void *a) { __asm__ volatile(MARK "vmrun" :: "a"(a) : "memory", "ebx", "ecx", "edx", "esi", "edi"); }
static void x_vmload(void *a) { __asm__ volatile(MARK "vmload" :: "a"(a) : "memory"); }
static void x_vmsave(void *a) { __asm__ volatile(MARK "vmsave" :: "a"(a) : "memory"); }
static void x_stgi(void *a) { (void)a; __asm__ volatile(MARK "stgi" ::: "memory"); }
static void x_clgi(void *a) { (void)a; __asm__ volatile(MARK "clgi\n\tstgi" ::: "memory"); }
static void x_vmmcall(void *a) { (void)a; __asm__ volatile(MARK "vmmcall" ::: "memory"); }
static void x_invlpga(void *a) { __asm__ volatile(MARK "invlpga %%eax, %%ecx" :: "a"(a), "c"(1) : "memory"); }
static void x_skinit(void *a) { __asm__ volatile(MARK "skinit" :: "a"(a) : "memory"); }

struct insn { const char *name; trap_fn fn; };
static const struct insn insns[] = {
	{ "VMRUN", x_vmrun }, { "VMLOAD", x_vmload }, { "VMSAVE", x_vmsave }, { "STGI", x_stgi },
	{ "CLGI", x_clgi }, { "VMMCALL", x_vmmcall }, { "INVLPGA", x_invlpga }, { "SKINIT", x_skinit },
};

L2_INSN(b_vmmcall, "vmmcall");

static void expect(const char *what, const char *insn, const char *apm, trap_fn fn, void *arg, int vec, int err)
{
	char name[160];
	pg_name(name, sizeof(name), "%s %s [APM2 %s]", insn, what, apm);
	expect_fault(name, fn, arg, vec, err);
}

/* 15.4: VMRUN, VMLOAD, VMSAVE, CLGI, VMMCALL and INVLPGA #UD with
 * EFER.SVME = 0; STGI and SKINIT only when neither SKINIT (Fn8000_0001_ECX)
 * nor SVM-Lock (15.31) is available. */
static void svme_off_rules(void)
{
	void *page = &svm_vmcbs[2];
	int stgi_allowed = svm_caps.skinit || svm_has(F_SVML);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) & ~(uint64_t)EFER_SVME);
	for (unsigned i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		const struct insn *n = &insns[i];
		int is_stgi = n->fn == x_stgi, is_skinit = n->fn == x_skinit;
		char name[160];
		if ((is_stgi || is_skinit) && stgi_allowed) {
			if (is_skinit) {
				skip(pg_name(name, sizeof(name), "SKINIT with EFER.SVME = 0 [APM2 15.31]"),
				     "SKINIT or SVM-Lock present: SKINIT would execute");
				continue;
			}
			pg_name(name, sizeof(name), "STGI with EFER.SVME = 0 and SKINIT/SVM-Lock: executes [APM2 15.31]");
			expect_no_fault(name, n->fn, page);
			continue;
		}
		expect("with EFER.SVME = 0: #UD", n->name, "15.4", n->fn, page, 6, -1);
	}
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_SVME);
}

/* 15.5.1, 15.5.2, 15.17, 16.2: #GP(0) at CPL 3; VMMCALL outside a guest #UDs
 * at any CPL (15.18: no CPL check). */
static void *user_arg;
static trap_fn user_insn;
static void user_call(void *unused) { (void)unused; user_insn(user_arg); }
static void cpl3_rules(void)
{
	char name[160];
	for (unsigned i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		const struct insn *n = &insns[i];
		int vmmcall = n->fn == x_vmmcall;
		user_insn = n->fn;
		user_arg = &svm_vmcbs[2];
		pg_name(name, sizeof(name), "%s at CPL 3: %s [APM2 %s]", n->name, vmmcall ? "#UD" : "#GP(0)",
			vmmcall ? "15.18" : "15.5.1");
		run_user_catch(name, user_call, 0, 0, vmmcall ? 6 : 13, vmmcall ? -1 : 0);
	}
}

/* 15.5.1, 15.5.2: the VMCB address in rAX must be 4 KB aligned. */
static void alignment_rules(void)
{
	void *misaligned = (uint8_t *)&svm_vmcbs[2] + 0x10;
	expect("with rAX not 4 KB aligned: #GP(0)", "VMRUN", "15.5.1", x_vmrun, misaligned, 13, 0);
	expect("with rAX not 4 KB aligned: #GP(0)", "VMLOAD", "15.5.2", x_vmload, misaligned, 13, 0);
	expect("with rAX not 4 KB aligned: #GP(0)", "VMSAVE", "15.5.2", x_vmsave, misaligned, 13, 0);
	expect_no_fault("INVLPGA in the host (ASID 1, any address) [APM2 15.16.2]", x_invlpga, (void *)0x12345678);
	svm_vmcb_init(&svm_vmcbs[2], b_vmmcall_body.start);
	svm_poison(&svm_vmcbs[2]);
	expect_no_fault("VMRUN from a function, aligned rAX [APM2 15.5.1]", x_vmrun, &svm_vmcbs[2]);
	stgi();
	check("VMRUN from a function: #VMEXIT(VMMCALL)", (uint32_t)svm_vmcbs[2].exitcode, EXIT_VMMCALL);
}

/* 15.30.4: VM_HSAVE_PA must be 4 KB aligned and below 2^MAXPHYADDR. */
static uint64_t msr_value;
static uint32_t msr_index;
static void x_wrmsr(void *a)
{
	(void)a;
	__asm__ volatile(MARK "wrmsr" :: "c"(msr_index), "a"((uint32_t)msr_value),
			 "d"((uint32_t)(msr_value >> 32)) : "memory");
}
static void wrmsr_expect(const char *name, uint32_t msr, uint64_t v, int vec)
{
	msr_index = msr;
	msr_value = v;
	if (vec < 0)
		expect_no_fault(name, x_wrmsr, 0);
	else
		expect_fault(name, x_wrmsr, 0, vec, 0);
}
static void hsave_rules(void)
{
	uint64_t good = rdmsr64(MSR_VM_HSAVE_PA);
	wrmsr_expect("WRMSR VM_HSAVE_PA with bits 11:0 = 800h: #GP(0) [APM2 15.30.4]", MSR_VM_HSAVE_PA,
		     good | 0x800, 13);
	wrmsr_expect("WRMSR VM_HSAVE_PA = 2^MAXPHYADDR: #GP(0) [APM2 15.30.4]", MSR_VM_HSAVE_PA,
		     1ull << svm_caps.maxphy, 13);
	wrmsr_expect("WRMSR VM_HSAVE_PA = 2^MAXPHYADDR - 4 KB [APM2 15.30.4]", MSR_VM_HSAVE_PA,
		     (1ull << svm_caps.maxphy) - 0x1000, -1);
	uint64_t back = rdmsr64(MSR_VM_HSAVE_PA);
	check("VM_HSAVE_PA reads back 2^MAXPHYADDR - 4 KB (high)", (uint32_t)(back >> 32),
	      (uint32_t)(((1ull << svm_caps.maxphy) - 0x1000) >> 32));
	wrmsr64(MSR_VM_HSAVE_PA, good);
	check("VM_HSAVE_PA restored", (uint32_t)rdmsr64(MSR_VM_HSAVE_PA), (uint32_t)good);
}

/* 15.30.1, 15.31: VM_CR.SVMDIS and LOCK (SVM-Lock CPUs). */
static void vm_cr_rules(void)
{
	if (!svm_has(F_SVML)) {
		skip("VM_CR.SVMDIS/LOCK writes [APM2 15.30.1]", "CPUID Fn8000_000A_EDX[SVML] = 0 (SVMDIS read-only)");
		return;
	}
	uint64_t vmcr = rdmsr64(MSR_VM_CR);
	wrmsr_expect("WRMSR VM_CR.SVMDIS = 1 while EFER.SVME = 1: #GP(0) [APM2 15.30.1]", MSR_VM_CR,
		     vmcr | VM_CR_SVMDIS, 13);
	wrmsr_expect("WRMSR VM_CR with reserved bit 5: #GP(0) [APM2 15.30.1]", MSR_VM_CR, vmcr | (1u << 5), 13);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) & ~(uint64_t)EFER_SVME);
	wrmsr_expect("WRMSR VM_CR.SVMDIS = 1 with EFER.SVME = 0 [APM2 15.30.1]", MSR_VM_CR, vmcr | VM_CR_SVMDIS, -1);
	check("VM_CR.SVMDIS reads back 1", (uint32_t)(rdmsr64(MSR_VM_CR) >> 4) & 1, 1);
	wrmsr_expect("WRMSR EFER.SVME = 1 with VM_CR.SVMDIS = 1: #GP(0) [APM2 15.30.1]", EFER_MSR,
		     rdmsr64(EFER_MSR) | EFER_SVME, 13);
	wrmsr64(MSR_VM_CR, vmcr & ~(uint64_t)VM_CR_SVMDIS);
	wrmsr_expect("WRMSR EFER.SVME = 1 after SVMDIS cleared [APM2 15.4]", EFER_MSR,
		     rdmsr64(EFER_MSR) | EFER_SVME, -1);
	/* Last: LOCK cannot be cleared without SVM_KEY; SVMDIS stays 0, so
	 * SVM remains usable. */
	wrmsr_expect("WRMSR VM_CR.LOCK = 1 [APM2 15.30.1]", MSR_VM_CR, (vmcr & ~(uint64_t)VM_CR_SVMDIS) | VM_CR_LOCK, -1);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) & ~(uint64_t)EFER_SVME);
	wrmsr_expect("WRMSR VM_CR.SVMDIS = 1 under LOCK: silently ignored [APM2 15.30.1]", MSR_VM_CR,
		     vmcr | VM_CR_SVMDIS | VM_CR_LOCK, -1);
	check("VM_CR.SVMDIS still 0 under LOCK", (uint32_t)(rdmsr64(MSR_VM_CR) >> 4) & 1, 0);
	wrmsr_expect("WRMSR VM_CR.LOCK = 0 under LOCK: silently ignored [APM2 15.30.1]", MSR_VM_CR,
		     vmcr & ~(uint64_t)(VM_CR_SVMDIS | VM_CR_LOCK), -1);
	check("VM_CR.LOCK still 1", (uint32_t)(rdmsr64(MSR_VM_CR) >> 3) & 1, 1);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_SVME);
}

/* 15.5.2: VMSAVE stores FS, GS, TR, LDTR with their hidden state, STAR and
 * the SYSENTER MSRs (KernelGsBase, LSTAR, CSTAR, SFMASK too: the long-mode
 * MSRs are checked by svm64); VMLOAD loads them. */
#define SEL_FSX 0x58
static void vmsave_vmload(void)
{
	static const struct svm_row row = { .name = "VMSAVE stores FS/GS/TR/LDTR/STAR/SYSENTER_*",
		.apm = "15.5.2", .body = &b_vmmcall_body };
	struct svm_case c = { &row, &svm_vmcbs[1], 0, 0, 0, 1 };
	struct vmcb *v = &svm_vmcbs[1], *orig = &svm_vmcbs[3];
	gmemset(v, 0, sizeof(*v));
	gmemset(orig, 0, sizeof(*orig));
	__asm__ volatile("vmsave" :: "a"(vmcb_pa(orig)) : "memory");   /* the host's, to restore */

	gdt[SEL_FSX >> 3] = seg_desc(0x00345000, 0x0ffff, ACC_P | ACC_S | ACC_DATA_W, FL_DB);
	reload_gdt();
	__asm__ volatile("mov %0, %%fs\n\tmov %1, %%gs" :: "r"(SEL_FSX), "r"(SEL_KDATA));
	/* STAR exists with SYSCALL (APM3 Fn8000_0001_EDX[11]). */
	int star = cpu_has(0x80000001u, 3, 11);
	if (star)
		wrmsr64(MSR_STAR, 0x0023001000112233ull);
	wrmsr64(MSR_SYSENTER_CS, 0x8);
	wrmsr64(MSR_SYSENTER_ESP, 0x1000);
	wrmsr64(MSR_SYSENTER_EIP, 0x2000);
	__asm__ volatile("vmsave" :: "a"(vmcb_pa(v)) : "memory");
	svm_expect(&c, "FS.sel", v->fs.sel, SEL_FSX);
	svm_expect(&c, "FS.base", v->fs.base, 0x00345000);
	svm_expect(&c, "FS.limit", v->fs.limit, 0xffff);
	svm_expect(&c, "FS.attr (P S type 3, D/B)", v->fs.attr, 0x493);
	svm_expect(&c, "GS.sel", v->gs.sel, SEL_KDATA);
	svm_expect(&c, "GS.limit", v->gs.limit, 0xffffffffu);
	svm_expect(&c, "TR.sel", v->tr.sel, SEL_TSS);
	svm_expect(&c, "TR.base", v->tr.base, (uint32_t)(uintptr_t)&tss);
	svm_expect(&c, "TR.limit", v->tr.limit, sizeof(tss) - 1);
	svm_expect(&c, "TR.attr (busy 32-bit TSS)", v->tr.attr & 0xff, 0x8b);
	svm_expect(&c, "LDTR.sel", v->ldtr.sel, 0);
	if (star)
		svm_expect(&c, "STAR", v->star, 0x0023001000112233ull);
	svm_expect(&c, "SYSENTER_CS", v->sysenter_cs, 8);
	svm_expect(&c, "SYSENTER_ESP", v->sysenter_esp, 0x1000);
	svm_expect(&c, "SYSENTER_EIP", v->sysenter_eip, 0x2000);
	svm_case_report(&c);

	static const struct svm_row row2 = { .name = "VMLOAD loads FS (hidden base) and the MSRs",
		.apm = "15.5.2", .body = &b_vmmcall_body };
	struct svm_case c2 = { &row2, v, 0, 0, 0, 1 };
	v->fs.base = (uint32_t)(uintptr_t)l2_scratch;   /* a hidden base no descriptor has */
	v->fs.sel = SEL_FSX;
	v->fs.limit = 0xff;
	v->star = 0x0013000800445566ull;
	v->sysenter_eip = 0x3000;
	*(volatile uint32_t *)l2_scratch = 0xfeedf00d;
	__asm__ volatile("vmload" :: "a"(vmcb_pa(v)) : "memory");
	uint32_t through_fs;
	uint16_t fs_sel;
	__asm__ volatile("movl %%fs:0, %0\n\tmov %%fs, %1" : "=r"(through_fs), "=r"(fs_sel));
	svm_expect(&c2, "FS.sel", fs_sel, SEL_FSX);
	svm_expect(&c2, "dword at FS:0 (hidden base)", through_fs, 0xfeedf00d);
	if (star)
		svm_expect(&c2, "STAR", rdmsr64(MSR_STAR), 0x0013000800445566ull);
	svm_expect(&c2, "SYSENTER_EIP", rdmsr64(MSR_SYSENTER_EIP), 0x3000);
	__asm__ volatile("vmload" :: "a"(vmcb_pa(orig)) : "memory");
	svm_expect(&c2, "SYSENTER_EIP after reloading the host's", rdmsr64(MSR_SYSENTER_EIP), orig->sysenter_eip);
	svm_case_report(&c2);
	__asm__ volatile("mov %0, %%fs" :: "r"(SEL_KDATA));
}

void guest_main(void)
{
	svm_host_init();
	svme_off_rules();
	cpl3_rules();
	alignment_rules();
	hsave_rules();
	vmsave_vmload();
	vm_cr_rules();
}
