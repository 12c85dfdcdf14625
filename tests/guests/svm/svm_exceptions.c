/* Exception intercepts (APM2 15.12): each vector a 32-bit L2 can raise, its
 * EXITINFO1 error code and #PF EXITINFO2 (the 32-bit linear address, also
 * when a segment base wraps at 4 GiB), the state saved for traps and faults
 * (#DB DR6, rIP of INT3/INTO/BOUND with nRIP), CR2 untouched by an
 * intercepted #PF, the decode-assist instruction bytes of a data #PF, and
 * the combination rules (15.7.2, 15.12): intercepts of exceptions raised
 * while delivering another event, with EXITINTINFO. */
#include "svm/lib_svm.h"

#define EXC(v)   (1u << (v))
#define SEL_NP   0x40   /* data segment, not present */
#define SEL_TSS2 0x48   /* 32-bit TSS with limit 20h (< 67h) */
#define SEL_WRAP 0x50   /* data segment, base 8000_0000h, 4 GiB limit */
#define CR2_MARK 0x5a5a5000u

static const char *no_nx(void)
{
	return cpu_has(0x80000001u, 3, 20) ? 0 : "CPUID Fn8000_0001_EDX[NX] = 0";
}
static const char *no_sse(void)
{
	return cpu_has(1, 3, 25) ? 0 : "CPUID Fn0000_0001_EDX[SSE] = 0";
}

__asm__(".pushsection .data\n\t.balign 8\n\t.globl l2_bounds\nl2_bounds:\n\t.long 0, 10\n\t.popsection");

L2_BODY(b_de, "xor %ecx, %ecx\n\txor %edx, %edx", "div %ecx", "");
L2_INSN(b_nop, "nop");
L2_INSN(b_cpuid, "cpuid");
L2_INSN(b_store, "movl $1, l2_scratch");
L2_INSN(b_int3, "int3");
L2_BODY(b_into, "mov $0x7fffffff, %eax\n\tadd $1, %eax", "into", "");
L2_BODY(b_bound, "mov $20, %eax", "bound %eax, l2_bounds", "");
L2_INSN(b_ud2, "ud2");
L2_INSN(b_fnop, "fnop");
L2_INSN(b_int80, "int $0x80");
L2_INSN(b_ljmp_tss2, "ljmp $0x48, $0");
L2_BODY(b_ds_np, "mov $0x40, %eax", "mov %eax, %ds", "");
L2_BODY(b_ss_np, "mov $0x40, %eax", "mov %eax, %ss", "");
L2_BODY(b_ds_tss, "mov $0x28, %eax", "mov %eax, %ds", "");
L2_BODY(b_pf_read, "mov $0x40000123, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_pf_write, "mov $0x40000123, %ebx", "mov %eax, (%ebx)", "");
L2_BODY(b_pf_user, "mov $0x40001004, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_pf_wrap, "mov $0x50, %eax\n\tmov %eax, %es\n\tmov $0xc0000123, %ebx", "mov %es:(%ebx), %eax", "");
L2_BODY(b_pf_fetch, "mov $0x40000000, %eax", "jmp *%eax", "");
L2_BODY(b_pf_rsvd, "mov $0x40002008, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_mf, "fninit\n\tpushl $0x37b\n\tfldcw (%esp)\n\tadd $4, %esp\n\tfld1\n\tfldz\n\t.byte 0xde, 0xf9",
	"fwait", "");
L2_BODY(b_ac, "mov $l2_scratch + 1, %ebx", "mov (%ebx), %eax", "");
L2_BODY(b_xf, "pushl $0x1d80\n\tldmxcsr (%esp)\n\tadd $4, %esp\n\txorps %xmm0, %xmm0\n\t"
	"mov $1, %eax\n\tcvtsi2ss %eax, %xmm1", "divss %xmm0, %xmm1", "");
L2_INSN(b_int13, "int $13");
L2_INSN(b_icebp, ".byte 0xf1");

/* ---- L2 page tables (lib/paging.c): identity map, TEST_LIN area ---- */
static uint32_t pg32_cr3, pae_cr3;

static void paging32(struct svm_case *c)
{
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr3 = pg32_cr3;
	c->vmcb->cr2 = CR2_MARK;
}
static void paging32_user(struct svm_case *c)
{
	paging32(c);
	vmcb_user(c->vmcb);
}
static void pae_nx(struct svm_case *c)
{
	c->vmcb->cr0 |= CR0_PG;
	c->vmcb->cr4 |= CR4_PAE;
	c->vmcb->efer |= EFER_NXE;
	c->vmcb->cr3 = pae_cr3;
	c->vmcb->cr2 = CR2_MARK;
}

/* APM2 15.12.15: the intercept is tested before CR2 is written. */
static void cr2_kept(struct svm_case *c)
{
	svm_expect(c, "guest CR2 (unchanged by the intercepted #PF)", c->vmcb->cr2, CR2_MARK);
}
static void fetch_fault(struct svm_case *c)
{
	cr2_kept(c);
	svm_expect(c, "saved rIP (the fetch target)", c->vmcb->rip, TEST_LIN);
}

static uint32_t saved_dr0, saved_dr1;
static void set_dr(int n, uint32_t v)
{
	if (n == 0)
		__asm__ volatile("mov %0, %%db0" :: "r"(v));
	else
		__asm__ volatile("mov %0, %%db1" :: "r"(v));
}
static void tf(struct svm_case *c) { c->vmcb->rflags |= 1u << 8; }
/* DR0 = the CPUID, execute breakpoint, enabled in the guest's DR7 (DR0-DR3
 * are not switched by VMRUN: L1 loads them). */
static void ibp(struct svm_case *c)
{
	set_dr(0, (uint32_t)(uintptr_t)c->row->body->at);
	c->vmcb->dr7 = 0x400 | 1;
}
/* DR1 = l2_scratch, 4-byte data write breakpoint (RW1 = 01, LEN1 = 11). */
static void dbp(struct svm_case *c)
{
	set_dr(1, (uint32_t)(uintptr_t)l2_scratch);
	c->vmcb->dr7 = 0x400 | (1u << 2) | (1u << 20) | (3u << 22);
}
static void dr6_bit(struct svm_case *c, unsigned bit, const char *what)
{
	svm_expect(c, what, (c->vmcb->dr6 >> bit) & 1, 1);
	set_dr(0, saved_dr0);
	set_dr(1, saved_dr1);
}
static void dr6_bs(struct svm_case *c) { dr6_bit(c, 14, "saved DR6.BS"); }
static void dr6_b0(struct svm_case *c) { dr6_bit(c, 0, "saved DR6.B0"); }
static void dr6_b1(struct svm_case *c) { dr6_bit(c, 1, "saved DR6.B1"); }

static void cr0_ts(struct svm_case *c) { c->vmcb->cr0 |= 1u << 3; }
static void cr0_ne(struct svm_case *c) { c->vmcb->cr0 |= 1u << 5; }
static void sse_on(struct svm_case *c) { c->vmcb->cr4 |= (1u << 9) | (1u << 10); }
static void ac_cpl3(struct svm_case *c)
{
	vmcb_user(c->vmcb);
	c->vmcb->cr0 |= 1u << 18;      /* CR0.AM */
	c->vmcb->rflags |= 1u << 18;   /* EFLAGS.AC */
}
static void idt_limit(struct svm_case *c) { c->vmcb->idtr.limit = (uint16_t)c->row->arg; }
/* IDT gate 11 (#NP) with a reserved type: delivering #NP raises #GP. */
static void np_gate_bad(struct svm_case *c) { (void)c; l2_idt[11] &= ~(0xfull << 40); }

/* The L2 took INT 13 without the error code an exception pushes. */
static void frame_no_error(struct svm_case *c)
{
	svm_expect(c, "L2 frame depth (EIP, CS, EFLAGS)", l2_frame_depth(), 12);
}

#define EX(nm, sec, b, vec, fl) { .name = nm, .apm = sec, .body = &b##_body, .icpt_exc = EXC(vec), \
	.exitcode = EXIT_EXC(vec), .check = (fl) }
#define EXE(nm, sec, b, vec, set, err) { .name = nm, .apm = sec, .body = &b##_body, \
	.icpt_exc = EXC(vec), .setup = set, .exitcode = EXIT_EXC(vec), .info1 = err, .check = C_INFO1 }

static const struct svm_row rows[] = {
	EX("#DE (DIV by 0)", "15.12.1", b_de, 0, 0),
	{ .name = "#DB single-step trap after the first guest instruction (TF from the VMCB)",
	  .apm = "15.12.2", .body = &b_nop_body, .icpt_exc = EXC(1), .setup = tf,
	  .exitcode = EXIT_EXC(1), .check = C_RIP_NEXT, .extra = dr6_bs },
	{ .name = "#DB instruction breakpoint (fault) ranks before the CPUID intercept",
	  .apm = "15.7", .body = &b_cpuid_body, .icpt_exc = EXC(1), .icpt1 = ICPT1_CPUID, .setup = ibp,
	  .exitcode = EXIT_EXC(1), .extra = dr6_b0 },
	{ .name = "#DB data breakpoint (trap): rIP of the next instruction", .apm = "15.12.2",
	  .body = &b_store_body, .icpt_exc = EXC(1), .setup = dbp, .exitcode = EXIT_EXC(1),
	  .check = C_RIP_NEXT, .extra = dr6_b1 },
	EX("#BP (INT3): rIP of the INT3, nRIP after it", "15.12.4", b_int3, 3, C_NRIP_NEXT),
	EX("#OF (INTO): rIP of the INTO, nRIP after it", "15.12.5", b_into, 4, C_NRIP_NEXT),
	EX("#BR (BOUND): rIP of the BOUND, nRIP after it", "15.12.6", b_bound, 5, C_NRIP_NEXT),
	EX("#UD (UD2)", "15.12.7", b_ud2, 6, 0),
	{ .name = "#NM (FNOP with CR0.TS)", .apm = "15.12.8", .body = &b_fnop_body, .icpt_exc = EXC(7),
	  .setup = cr0_ts, .exitcode = EXIT_EXC(7) },
	{ .name = "#DF (INT 80h, IDT limit 67h: #GP, #GP while delivering it)", .apm = "15.12.9",
	  .body = &b_int80_body, .icpt_exc = EXC(8), .setup = idt_limit, .arg = 0x67,
	  .exitcode = EXIT_EXC(8), .check = C_NO_RIP | C_NO_INTINFO },
	EXE("#TS (JMP to a TSS with limit 20h): EXITINFO1 = error code", "15.12", b_ljmp_tss2, 10, 0,
	    SEL_TSS2),
	EXE("#NP (MOV DS, not-present segment): EXITINFO1 = error code", "15.12.12", b_ds_np, 11, 0, SEL_NP),
	EXE("#SS (MOV SS, not-present segment): EXITINFO1 = error code", "15.12.13", b_ss_np, 12, 0, SEL_NP),
	EXE("#GP (MOV DS, TSS selector): EXITINFO1 = error code", "15.12.14", b_ds_tss, 13, 0, SEL_TSS),
	{ .name = "#PF read, not present: EXITINFO1 = 0, EXITINFO2 = address, bytes", .apm = "15.12.15",
	  .body = &b_pf_read_body, .icpt_exc = EXC(14), .setup = paging32, .exitcode = EXIT_EXC(14),
	  .info1 = 0, .info2 = TEST_LIN + 0x123, .check = C_INFO1 | C_INFO2 | C_INSN_BYTES,
	  .extra = cr2_kept },
	{ .name = "#PF write, not present: EXITINFO1 = W", .apm = "15.12.15", .body = &b_pf_write_body,
	  .icpt_exc = EXC(14), .setup = paging32, .exitcode = EXIT_EXC(14), .info1 = PF_W,
	  .info2 = TEST_LIN + 0x123, .check = C_INFO1 | C_INFO2 | C_INSN_BYTES, .extra = cr2_kept },
	{ .name = "#PF at CPL 3 on a supervisor page: EXITINFO1 = P | U", .apm = "15.12.15",
	  .body = &b_pf_user_body, .icpt_exc = EXC(14), .setup = paging32_user, .exitcode = EXIT_EXC(14),
	  .info1 = PF_P | PF_U, .info2 = TEST_LIN + 0x1004, .check = C_INFO1 | C_INFO2 | C_INSN_BYTES,
	  .extra = cr2_kept },
	{ .name = "#PF, ES base 8000_0000h + C000_0123h wraps: EXITINFO2 = 4000_0123h", .apm = "15.12.15",
	  .body = &b_pf_wrap_body, .icpt_exc = EXC(14), .setup = paging32, .exitcode = EXIT_EXC(14),
	  .info1 = 0, .info2 = TEST_LIN + 0x123, .check = C_INFO1 | C_INFO2 | C_INSN_BYTES,
	  .extra = cr2_kept },
	{ .name = "#PF fetch from an XD page (PAE, NXE): EXITINFO1 = P | I/D", .apm = "15.12.15",
	  .body = &b_pf_fetch_body, .icpt_exc = EXC(14), .setup = pae_nx, .exitcode = EXIT_EXC(14),
	  .info1 = PF_P | PF_I, .info2 = TEST_LIN, .check = C_INFO1 | C_INFO2 | C_NO_RIP | C_NO_INSN,
	  .extra = fetch_fault, .skip = no_nx },
	{ .name = "#PF on a reserved bit (PAE PTE bit 51..MAXPHYADDR): EXITINFO1 = P | RSVD",
	  .apm = "15.12.15", .body = &b_pf_rsvd_body, .icpt_exc = EXC(14), .setup = pae_nx,
	  .exitcode = EXIT_EXC(14), .info1 = PF_P | PF_RSVD, .info2 = TEST_LIN + 0x2008,
	  .check = C_INFO1 | C_INFO2 | C_INSN_BYTES, .extra = cr2_kept, .skip = no_nx },
	{ .name = "#MF (FWAIT after an unmasked x87 zero divide, CR0.NE)", .apm = "15.12.16",
	  .body = &b_mf_body, .icpt_exc = EXC(16), .setup = cr0_ne, .exitcode = EXIT_EXC(16) },
	EXE("#AC (misaligned read at CPL 3, CR0.AM, EFLAGS.AC): EXITINFO1 = 0", "15.12.17", b_ac, 17,
	    ac_cpl3, 0),
	{ .name = "#XF (DIVSS by 0 unmasked, CR4.OSXMMEXCPT)", .apm = "15.12.19", .body = &b_xf_body,
	  .icpt_exc = EXC(19), .setup = sse_on, .exitcode = EXIT_EXC(19), .skip = no_sse },

	/* What the exception intercepts do not see (15.12, 15.9 ICEBP). */
	{ .name = "INT 13 does not check the #GP intercept: the L2 takes vector 13", .apm = "15.12",
	  .body = &b_int13_body, .icpt_exc = EXC(13), .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT,
	  .l2_vector = 13, .extra = frame_no_error },
	{ .name = "ICEBP does not check the #DB intercept: the L2 takes vector 1", .apm = "15.12.2",
	  .body = &b_icebp_body, .icpt_exc = EXC(1), .exitcode = EXIT_VMMCALL, .check = C_L2_EVENT,
	  .l2_vector = 1 },

	/* Exceptions raised while delivering an event (15.7.2, 15.12). */
	{ .name = "#UD, IDT limit 2Fh: intercepted #GP(33h) with EXITINTINFO = #UD", .apm = "15.7.2",
	  .body = &b_ud2_body, .icpt_exc = EXC(13), .setup = idt_limit, .arg = 0x2f,
	  .exitcode = EXIT_EXC(13), .info1 = 0x33, .intinfo = EVENT(EV_EXC, 6), .check = C_INFO1 | C_INTINFO },
	{ .name = "INT 80h beyond the IDT limit: #GP(402h) with EXITINTINFO = INTn 80h", .apm = "15.7.2",
	  .body = &b_int80_body, .icpt_exc = EXC(13), .setup = idt_limit, .arg = 0x67,
	  .exitcode = EXIT_EXC(13), .info1 = 0x402, .intinfo = EVENT(EV_SWINT, 0x80),
	  .check = C_INFO1 | C_INTINFO },
	{ .name = "#NP, bad #NP gate, #GP and #DF intercepted: #GP(5Bh), EXITINTINFO = #NP",
	  .apm = "15.12", .body = &b_ds_np_body, .icpt_exc = EXC(13) | EXC(8), .setup = np_gate_bad,
	  .exitcode = EXIT_EXC(13), .info1 = 0x5b, .intinfo = EVENT(EV_EXC, 11) | EV_ERR | EV_CODE(SEL_NP),
	  .check = C_INFO1 | C_INTINFO },
	{ .name = "#NP, bad #NP gate, only #DF intercepted: #VMEXIT(#DF)", .apm = "15.12",
	  .body = &b_ds_np_body, .icpt_exc = EXC(8), .setup = np_gate_bad, .exitcode = EXIT_EXC(8),
	  .check = C_NO_RIP | C_NO_INTINFO },
};

void guest_main(void)
{
	svm_host_init();
	__asm__ volatile("mov %%db0, %0\n\tmov %%db1, %1" : "=r"(saved_dr0), "=r"(saved_dr1));
	gdt[SEL_NP >> 3] = seg_desc(0, 0xfffff, ACC_S | ACC_DATA_W, FL_G | FL_DB);        /* P = 0 */
	gdt[SEL_TSS2 >> 3] = seg_desc((uint32_t)(uintptr_t)l2_scratch, 0x20, ACC_P | SYS_TSS32, 0);
	gdt[SEL_WRAP >> 3] = seg_desc(0x80000000u, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	reload_gdt();

	/* L2 page tables: TEST_LIN page 0 not present; page 1 supervisor only;
	 * page 2 with PTE bit 51 (PAE) or not present (32-bit); PAE page 0 XD. */
	pg32_cr3 = pg32_build();
	pg32_test_pt[1] = frame_pa(1) | PG_P | PG_W;
	pae_cr3 = pae_build();
	pae_test_pt[0] = frame_pa(0) | PG_P | PG_W | PG_U | PG_XD;
	pae_test_pt[2] = frame_pa(2) | PG_P | PG_W | PG_U | (1ull << 51);
	RUN_ROWS(rows);
}
