/* Long mode (issue 4): entering and leaving IA-32e mode and its #GP rules,
 * compatibility-mode wrap-around vs 64-bit no-wrap, canonical-address faults,
 * IST stack switching, MOVSXD, and a SYSCALL/SYSRET round trip through CPL 3.
 * C code runs in 32-bit protected mode and, once IA-32e mode is active, in
 * compatibility mode; 64-bit routines are in long64.S, the IDT stubs and the
 * IA-32e set-up in lib/long. Skipped (TAP SKIP) when
 * CPUID.80000001H:EDX.LM[29] = 0 (--cpu pentium or opteron-g3); hvemu's default
 * model (skylake-lite), core2 and epyc-lite run it. */
#include "lib/long.h"

#define LM_DS      0x48   /* data DPL0 (SYSCALL SS) */
#define LM_UCS32   0x50   /* SYSRET base: 32-bit user code */
#define LM_UDS     0x58   /* user data (SYSRET SS) */
#define LM_UCS64   0x60   /* 64-bit user code (SYSRET CS with REX.W) */
#define LM_TSS     0x68   /* 16-byte 64-bit TSS descriptor (entries 13, 14) */
#define LM_WRAP    0x78   /* data, base 0x40000000, 4 GiB limit */

#define MSR_STAR    0xc0000081u
#define MSR_LSTAR   0xc0000082u
#define MSR_SFMASK  0xc0000084u

/* Written by long64.S (LM_CS64 is also the SYSCALL CS = STAR[47:32]). */
volatile uint64_t lm_saved_rsp, lm_sys_rcx, lm_sys_r11, lm_sys_rcx2;
volatile uint32_t lm_sys_count, lm_sys_cs, lm_sys_ss, lm_user_cs, lm_user_ss, lm_user_flags;
extern char lm_sys_entry[], lm_sys_back[], lm_canon_jmp_insn[];

static uint8_t ist_stack[4096] __attribute__((aligned(16)));

/* Pre-activation: PG with LME=1 and PAE=0 (SDM Vol.2 MOV CR; Vol.3 9.8.5). */
static void set_pg(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "mov %0, %%cr0" :: "r"(read_cr0() | CR0_PG) : "memory");
}

static void do_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile(MARK "ud2");
}

static uint32_t build_tables(void)
{
	/* Identity map of the first GiB with 2 MiB pages, user-accessible so that
	 * the CPL-3 leg of the SYSCALL test can run on the same code and stack. */
	uint32_t cr3 = long_identity_map(PG_P | PG_W | PG_U);

	gdt[LM_DS >> 3] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt[LM_UCS32 >> 3] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_CODE | ACC_CODE_R, FL_G | FL_DB);
	gdt[LM_UDS >> 3] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt[LM_UCS64 >> 3] = long_code64_desc(3);
	long_tss_desc(&gdt[LM_TSS >> 3]);
	gdt[LM_WRAP >> 3] = seg_desc(0x40000000u, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	long_gdt_init();

	lm_tss64[TSS64_IST1] = (uint32_t)(uintptr_t)(ist_stack + sizeof(ist_stack));
	long_idt_init(LM_CS64, 1u << 3);                     /* INT3 uses IST1 */
	return cr3;
}

void guest_main(void)
{
	if (!long_mode_supported()) {
		skip_all("CPUID.80000001H:EDX.LM[29] = 0");
	}
	uint32_t cr3 = build_tables();
	struct dtr idt32;
	__asm__ volatile("sidt %0" : "=m"(idt32));

	/* --- activation rules --- */
	uint64_t efer0 = rdmsr64(EFER_MSR);
	wrmsr64(EFER_MSR, efer0 | EFER_LME | EFER_SCE);
	/* QEMU TCG enables paging without the check and loses the guest. */
	if (!skip_quirk("MOV CR0.PG with EFER.LME=1 and CR4.PAE=0 -> #GP(0)",
			"TCG does not check CR4.PAE when activating IA-32e mode")) {
		expect_fault("MOV CR0.PG with EFER.LME=1 and CR4.PAE=0 -> #GP(0)", set_pg, 0, 13, 0);
		check("EFER.LMA stays 0 after the refused activation",
		      (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, 0);
	}

	uint32_t cr4 = read_cr4();
	long_enter(cr4 | CR4_PAE, cr3);
	check("MOV CR0.PG with EFER.LME=1: EFER.LMA = 1 (SDM 9.8.5)",
	      (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, EFER_LMA);

	/* --- compatibility mode --- */
	*(volatile uint32_t *)0x1000 = 0x5a5a1234;
	uint32_t v = 0;
	__asm__ volatile("mov %w1, %%fs\n\tmovl %%fs:(%2), %0\n\tmov %w3, %%fs"
			 : "=r"(v) : "r"(LM_WRAP), "r"(0xC0001000u), "r"(SEL_KDATA) : "memory");
	check("compat mode: base 0x40000000 + 0xC0001000 wraps to linear 0x1000", v, 0x5a5a1234);

	if (!skip_quirk("compat mode: clearing CR4.PAE -> #GP (SDM 9.8.5.4)",
			"TCG clears CR4.PAE in IA-32e mode and loses the guest")) {
		lm_vec = 0xff;
		LM_TRY("mov %0, %%cr4", "r"(cr4 & ~0x20u) : "memory");
		check("compat mode: clearing CR4.PAE -> #GP (SDM 9.8.5.4)", (uint32_t)lm_vec, 13);
	}
	lm_vec = 0xff;
	LM_TRY("wrmsr", "c"(EFER_MSR), "a"(((uint32_t)efer0 | EFER_SCE) & ~EFER_LME), "d"(0) : "memory");
	check_quirk("WRMSR EFER changing LME with CR0.PG=1 -> #GP (SDM Vol.4 IA32_EFER, APM2 14.6.1)",
		    (uint32_t)lm_vec, 13, "TCG accepts the write");

	/* 4-level paging error codes (SDM Vol.3 4.7): PDPTE 1 not present -> P=0;
	 * a PDE with bit 51 set (reserved above MAXPHYADDR <= 48) -> P|RSVD. */
	lm_vec = 0xff;
	LM_TRY("movl (%0), %%eax", "r"(0x40000000u) : "eax", "memory");
	check("compat mode: read of an unmapped GiB -> #PF", (uint32_t)lm_vec, 14);
	check("#PF error code: read, not present, supervisor", (uint32_t)lm_err, 0);
	check("#PF CR2 = 0x40000000", (uint32_t)lm_cr2, 0x40000000u);
	lm_vec = 0xff;
	LM_TRY("movl %%eax, (%0)", "r"(0x40000010u), "a"(0) : "memory");
	check("#PF error code: write, not present", (uint32_t)lm_err, 2);
	lm_pd[100] |= 1ull << 51;
	__asm__ volatile("invlpg (%0)" :: "r"(100u << 21) : "memory");
	lm_vec = 0xff;
	LM_TRY("movl (%0), %%eax", "r"(100u << 21) : "eax", "memory");
	check("reserved PDE bit 51: #PF", (uint32_t)lm_vec, 14);
	check_quirk("#PF error code: P|RSVD (SDM Vol.3 4.7: P=1, no not-present entry)", (uint32_t)lm_err, 9,
		    "TCG reports RSVD without P for a reserved bit in a 2 MiB PDE");
	lm_pd[100] &= ~(1ull << 51);
	__asm__ volatile("invlpg (%0)" :: "r"(100u << 21) : "memory");

	/* LTR of the 16-byte TSS descriptor (SDM Vol.3 8.2.3). */
	__asm__ volatile("ltr %w0" :: "r"(LM_TSS) : "memory");

	/* --- 64-bit mode --- */
	wrmsr64(MSR_FS_BASE, 0x40000000u);
	lm_vec = 0xff;
	CALL64(lm_nowrap);
	check("64-bit: FS.base 0x40000000 + 0xC0001000 does not wrap: #PF", (uint32_t)lm_vec, 14);
	check("64-bit: CR2 bits 31:0", (uint32_t)lm_cr2, 0x00001000);
	check("64-bit: CR2 bits 63:32 (linear 0x100001000)", (uint32_t)(lm_cr2 >> 32), 1);
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_KDATA) : "memory");

	lm_vec = 0xff;
	CALL64(lm_canon_gp);
	check("non-canonical data access -> #GP", (uint32_t)lm_vec, 13);
	check("non-canonical data access: error code 0", (uint32_t)lm_err, 0);
	lm_vec = 0xff;
	CALL64(lm_canon_ss);
	check_quirk("non-canonical access through RBP (SS) -> #SS (SDM Vol.3 6.15, #SS)",
		    (uint32_t)lm_vec, 12, "TCG raises #GP for non-canonical stack references");
	check("#SS error code 0", (uint32_t)lm_err, 0);
	lm_vec = 0xff;
	CALL64(lm_canon_jmp);
	check("JMP to a non-canonical address -> #GP(0)", (uint32_t)lm_vec, 13);
	check_quirk("the #GP reports the JMP, not the target", (uint32_t)lm_rip,
		    (uint32_t)(uintptr_t)lm_canon_jmp_insn, "TCG faults at the fetch of the target");
	if (!skip_quirk("64-bit mode: clearing CR0.PG -> #GP(0)",
			"TCG clears CR0.PG in 64-bit mode and loses the guest")) {
		lm_vec = 0xff;
		CALL64(lm_clear_pg64);
		check("64-bit mode: clearing CR0.PG -> #GP(0)", (uint32_t)lm_vec, 13);
	}

	lm_vec = 0xff;
	CALL64(lm_int3);
	check("INT3 delivered through the 64-bit IDT", (uint32_t)lm_vec, 3);
	check("IST1: the handler runs on TSS.IST1 (frame of 5 qwords + 2 pushes)",
	      (uint32_t)lm_hrsp, (uint32_t)(uintptr_t)(ist_stack + sizeof(ist_stack)) - 56);

	uint32_t upper;
	__asm__ volatile("lcall $0x40, $lm_movsxd" : "=a"(upper) :: "ecx", "edx", "memory");
	check("MOVSXD r64, r32 sign-extends 0x80000001", upper, 0xffffffffu);

	/* SYSCALL -> SYSRETQ (CPL 3, 64-bit) -> SYSCALL back. */
	wrmsr64(MSR_STAR, ((uint64_t)LM_UCS32 << 48) | ((uint64_t)LM_CS64 << 32));
	wrmsr64(MSR_LSTAR, (uint32_t)(uintptr_t)lm_sys_entry);
	wrmsr64(MSR_SFMASK, 0x200);
	CALL64(lm_syscall);
	__asm__ volatile("mov %w0, %%ss\n\tmov %w0, %%ds\n\tmov %w0, %%es" :: "r"(SEL_KDATA) : "memory");
	check("SYSCALL: two entries", lm_sys_count, 2);
	check("SYSCALL: RCX = the next RIP", (uint32_t)lm_sys_rcx, (uint32_t)(uintptr_t)lm_sys_entry);
	check("SYSCALL: CS = STAR[47:32]", lm_sys_cs, LM_CS64);
	check("SYSCALL: SS = STAR[47:32] + 8", lm_sys_ss, LM_DS);
	check("SYSRETQ: CS = STAR[63:48] + 16 | 3", lm_user_cs, LM_UCS64 | 3);
	check("SYSRETQ: SS = STAR[63:48] + 8 | 3", lm_user_ss, LM_UDS | 3);
	check("SYSRETQ: RFLAGS from R11 (CF, bit 1)", lm_user_flags & 0xfff, 0x003);
	check("SYSCALL from CPL 3: RCX = its next RIP", (uint32_t)lm_sys_rcx2,
	      (uint32_t)(uintptr_t)lm_sys_back);

	/* --- leaving IA-32e mode (SDM 9.8.5.4): from compatibility mode, PG := 0 --- */
	long_leave(&idt32);
	check("clearing CR0.PG in compatibility mode: EFER.LMA = 0",
	      (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, 0);
	wrmsr64(EFER_MSR, efer0);
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4) : "memory");
	tss_load(0x67);
	expect_fault("back in legacy protected mode: #UD through the 32-bit IDT", do_ud2, 0, 6, -1);
	tap_finish();
}
