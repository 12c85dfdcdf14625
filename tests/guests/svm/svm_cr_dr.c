/* CR and DR intercepts (VMCB 000h/004h; APM2 15.9 Table 15-7) with the
 * decode-assist EXITINFO1 of 15.8.1 (bit 63 for MOV CRx, bits 3:0 the GPR),
 * the CR0 special cases (SMSW, LMSW, CLTS), the selective CR0-write intercept
 * (VMCB 00Ch bit 5) and the exceptions each intercept ranks below. */
#include "svm/lib_svm.h"

#define CR_R(n) (1u << (n))
#define CR_W(n) (1u << (16 + (n)))
#define DR_R(n) (1u << (n))
#define DR_W(n) (1u << (16 + (n)))
#define EXC(v)  (1u << (v))

static const char *no_cr8_legacy(void)
{
	/* APM2 15.21.3: LOCK MOV CR0 is MOV CR8 where Fn8000_0001_ECX[AltMovCr8]. */
	return cpu_has(0x80000001u, 2, 4) ? 0 : "CPUID Fn8000_0001_ECX[AltMovCr8] = 0";
}

/* MOV from CR0 into each GPR (decode assists report its number). */
L2_INSN(b_cr0_eax, "mov %cr0, %eax");
L2_INSN(b_cr0_ecx, "mov %cr0, %ecx");
L2_INSN(b_cr0_edx, "mov %cr0, %edx");
L2_INSN(b_cr0_ebx, "mov %cr0, %ebx");
L2_INSN(b_cr0_esp, "mov %cr0, %esp");
L2_INSN(b_cr0_ebp, "mov %cr0, %ebp");
L2_INSN(b_cr0_esi, "mov %cr0, %esi");
L2_INSN(b_cr0_edi, "mov %cr0, %edi");
L2_INSN(b_cr2_r, "mov %cr2, %edx");
L2_INSN(b_cr3_r, "mov %cr3, %esi");
L2_INSN(b_cr4_r, "mov %cr4, %ebx");
L2_INSN(b_cr8_r, ".byte 0xf0, 0x0f, 0x20, 0xc1");             /* lock mov %cr0, %ecx = CR8 */
/* Writes of the value the register holds (no exception to rank first). */
L2_BODY(b_cr0_w, "mov %cr0, %eax\n\tmov %eax, %edi", "mov %edi, %cr0", "");
L2_BODY(b_cr2_w, "mov $0x12345000, %ecx", "mov %ecx, %cr2", "");
L2_BODY(b_cr3_w, "mov %cr3, %edx", "mov %edx, %cr3", "");
L2_BODY(b_cr4_w, "mov %cr4, %ebp", "mov %ebp, %cr4", "");
L2_BODY(b_cr8_w, "xor %ebx, %ebx", ".byte 0xf0, 0x0f, 0x22, 0xc3", "");  /* lock mov %ebx, %cr0 */
L2_INSN(b_cr1_r, ".byte 0x0f, 0x20, 0xc8");                    /* mov %cr1, %eax: #UD */
L2_INSN(b_cr5_w, ".byte 0x0f, 0x22, 0xe8");                    /* mov %eax, %cr5: #UD */
L2_INSN(b_smsw, "smsw %ax");
L2_INSN(b_smsw_mem, "smsw l2_scratch");
L2_BODY(b_lmsw, "smsw %ax", "lmsw %ax", "");
L2_INSN(b_lmsw_mem, "lmsw l2_scratch");
L2_INSN(b_clts, "clts");
/* Selective CR0 write: TS and MP only, or WP (bit 16). */
L2_BODY(b_cr0_ts, "mov %cr0, %eax\n\txor $0x8, %eax", "mov %eax, %cr0", "");
L2_BODY(b_cr0_mp, "mov %cr0, %eax\n\txor $0x2, %eax", "mov %eax, %cr0", "");
L2_BODY(b_cr0_wp, "mov %cr0, %ecx\n\txor $0x10000, %ecx", "mov %ecx, %cr0", "");
/* CR0.PG = 1 with PE = 0, CR0.NW = 1 with CD = 0, a reserved CR4 bit: #GP(0). */
L2_BODY(b_cr0_pg_nope, "mov %cr0, %eax\n\tand $~1, %eax\n\tor $0x80000000, %eax", "mov %eax, %cr0", "");
L2_BODY(b_cr0_nw, "mov %cr0, %eax\n\tand $~0x40000000, %eax\n\tor $0x20000000, %eax",
	"mov %eax, %cr0", "");
L2_BODY(b_cr4_rsvd, "mov %cr4, %eax\n\tor $0x8000, %eax", "mov %eax, %cr4", "");

/* DR reads and writes, each with another GPR. */
L2_INSN(b_dr0_r, "mov %db0, %eax");
L2_INSN(b_dr1_r, "mov %db1, %ecx");
L2_INSN(b_dr2_r, "mov %db2, %edx");
L2_INSN(b_dr3_r, "mov %db3, %ebx");
L2_INSN(b_dr6_r, "mov %db6, %esi");
L2_INSN(b_dr7_r, "mov %db7, %edi");
L2_BODY(b_dr0_w, "xor %ebp, %ebp", "mov %ebp, %db0", "");
L2_BODY(b_dr1_w, "xor %esi, %esi", "mov %esi, %db1", "");
L2_BODY(b_dr2_w, "xor %edi, %edi", "mov %edi, %db2", "");
L2_BODY(b_dr3_w, "xor %eax, %eax", "mov %eax, %db3", "");
L2_BODY(b_dr6_w, "mov $0xffff0ff0, %ecx", "mov %ecx, %db6", "");
L2_BODY(b_dr7_w, "mov $0x400, %edx", "mov %edx, %db7", "");
L2_INSN(b_dr4_r, "mov %db4, %eax");

static void cpl3(struct svm_case *c) { vmcb_user(c->vmcb); }
static void cr4_de(struct svm_case *c) { c->vmcb->cr4 |= 1u << 3; }
static void dr7_gd(struct svm_case *c) { c->vmcb->dr7 = 0x400 | (1u << 13); }
/* DS limit 0: the memory operand of SMSW/LMSW is beyond it. */
/* APM2 15.12.2: DR6/DR7 are saved as a #DB handler would see them: DR6.BD
 * set, DR7.GD cleared by the general-detect fault (APM2 13.1.1.5). */
static void dr6_bd(struct svm_case *c)
{
	svm_expect(c, "saved DR6.BD", (c->vmcb->dr6 >> 13) & 1, 1);
	svm_expect(c, "saved DR7.GD", (c->vmcb->dr7 >> 13) & 1, 0);
}
static void ds_limit0(struct svm_case *c) { c->vmcb->ds.limit = 0; c->vmcb->ds.attr &= ~(1u << 11); }

#define CRR(nm, b, n, gpr) { .name = nm, .apm = "15.8.1", .body = &b##_body, .icpt_cr = CR_R(n), \
	.exitcode = EXIT_CR_READ(n), .info1 = CR_MOV | (gpr), \
	.check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA }
#define CRW(nm, b, n, gpr) { .name = nm, .apm = "15.8.1", .body = &b##_body, .icpt_cr = CR_W(n), \
	.exitcode = EXIT_CR_WRITE(n), .info1 = CR_MOV | (gpr), \
	.check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA }
#define DRR(nm, b, n, gpr) { .name = nm, .apm = "15.8.1", .body = &b##_body, .icpt_dr = DR_R(n), \
	.exitcode = EXIT_DR_READ(n), .info1 = (gpr), .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA }
#define DRW(nm, b, n, gpr) { .name = nm, .apm = "15.8.1", .body = &b##_body, .icpt_dr = DR_W(n), \
	.exitcode = EXIT_DR_WRITE(n), .info1 = (gpr), .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA }

static const struct svm_row rows[] = {
	CRR("MOV EAX, CR0", b_cr0_eax, 0, 0),
	CRR("MOV ECX, CR0", b_cr0_ecx, 0, 1),
	CRR("MOV EDX, CR0", b_cr0_edx, 0, 2),
	CRR("MOV EBX, CR0", b_cr0_ebx, 0, 3),
	CRR("MOV ESP, CR0", b_cr0_esp, 0, 4),
	CRR("MOV EBP, CR0", b_cr0_ebp, 0, 5),
	CRR("MOV ESI, CR0", b_cr0_esi, 0, 6),
	CRR("MOV EDI, CR0", b_cr0_edi, 0, 7),
	CRR("MOV EDX, CR2", b_cr2_r, 2, 2),
	CRR("MOV ESI, CR3", b_cr3_r, 3, 6),
	CRR("MOV EBX, CR4", b_cr4_r, 4, 3),
	{ .name = "LOCK MOV ECX, CR0 reads CR8", .apm = "15.21.3", .body = &b_cr8_r_body,
	  .icpt_cr = CR_R(8), .exitcode = EXIT_CR_READ(8), .info1 = CR_MOV | 1,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA, .skip = no_cr8_legacy },
	CRW("MOV CR0, EDI", b_cr0_w, 0, 7),
	CRW("MOV CR2, ECX", b_cr2_w, 2, 1),
	CRW("MOV CR3, EDX", b_cr3_w, 3, 2),
	CRW("MOV CR4, EBP", b_cr4_w, 4, 5),
	{ .name = "LOCK MOV CR0, EBX writes CR8", .apm = "15.21.3", .body = &b_cr8_w_body,
	  .icpt_cr = CR_W(8), .exitcode = EXIT_CR_WRITE(8), .info1 = CR_MOV | 3,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA, .skip = no_cr8_legacy },
	/* MOV CRn of an undefined CR: #UD ranks before the intercept. */
	{ .name = "MOV EAX, CR1 with the CR1 read intercept: #UD first", .apm = "15.9",
	  .body = &b_cr1_r_body, .icpt_cr = CR_R(1), .icpt_exc = EXC(6), .exitcode = EXIT_EXC(6) },
	{ .name = "MOV CR5, EAX with the CR5 write intercept: #UD first", .apm = "15.9",
	  .body = &b_cr5_w_body, .icpt_cr = CR_W(5), .icpt_exc = EXC(6), .exitcode = EXIT_EXC(6) },

	/* CR0 special cases (15.8.1): SMSW, LMSW, CLTS give no GPR and bit 63 = 0. */
	{ .name = "SMSW AX: CR0 read, bit 63 clear", .apm = "15.8.1", .body = &b_smsw_body,
	  .icpt_cr = CR_R(0), .exitcode = EXIT_CR_READ(0), .info1 = 0, .info1_mask = CR_MOV,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "SMSW to memory beyond DS.limit: the intercept before #GP", .apm = "15.9",
	  .body = &b_smsw_mem_body, .icpt_cr = CR_R(0), .icpt_exc = EXC(13), .setup = ds_limit0,
	  .exitcode = EXIT_CR_READ(0), .info1 = 0, .info1_mask = CR_MOV,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "LMSW AX: CR0 write, bit 63 clear", .apm = "15.8.1", .body = &b_lmsw_body,
	  .icpt_cr = CR_W(0), .exitcode = EXIT_CR_WRITE(0), .info1 = 0, .info1_mask = CR_MOV,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "LMSW from memory beyond DS.limit: the intercept before #GP", .apm = "15.9",
	  .body = &b_lmsw_mem_body, .icpt_cr = CR_W(0), .icpt_exc = EXC(13), .setup = ds_limit0,
	  .exitcode = EXIT_CR_WRITE(0), .info1 = 0, .info1_mask = CR_MOV,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "CLTS: CR0 write, bit 63 clear", .apm = "15.8.1", .body = &b_clts_body,
	  .icpt_cr = CR_W(0), .exitcode = EXIT_CR_WRITE(0), .info1 = 0, .info1_mask = CR_MOV,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },

	/* Selective CR0 write (Table 15-7): only a change outside TS and MP. */
	{ .name = "selective CR0 write, MOV CR0 toggling TS: no intercept", .apm = "15.9",
	  .body = &b_cr0_ts_body, .icpt1 = ICPT1_CR0_SEL, .exitcode = EXIT_VMMCALL, .check = C_AT_END },
	{ .name = "selective CR0 write, MOV CR0 toggling MP: no intercept", .apm = "15.9",
	  .body = &b_cr0_mp_body, .icpt1 = ICPT1_CR0_SEL, .exitcode = EXIT_VMMCALL, .check = C_AT_END },
	{ .name = "selective CR0 write, MOV CR0 toggling WP: exit 65h", .apm = "15.9",
	  .body = &b_cr0_wp_body, .icpt1 = ICPT1_CR0_SEL, .exitcode = EXIT_CR0_SEL, .info1 = CR_MOV | 1,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "selective CR0 write, LMSW of the same value: exit 65h", .apm = "15.9",
	  .body = &b_lmsw_body, .icpt1 = ICPT1_CR0_SEL, .exitcode = EXIT_CR0_SEL, .info1 = 0,
	  .info1_mask = CR_MOV, .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "selective CR0 write, CLTS: not checked", .apm = "15.9", .body = &b_clts_body,
	  .icpt1 = ICPT1_CR0_SEL, .exitcode = EXIT_VMMCALL, .check = C_AT_END },
	{ .name = "CR0 write and selective intercepts, WP toggled: the CR0 write wins", .apm = "15.9",
	  .body = &b_cr0_wp_body, .icpt_cr = CR_W(0), .icpt1 = ICPT1_CR0_SEL,
	  .exitcode = EXIT_CR_WRITE(0), .info1 = CR_MOV | 1, .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },

	/* Exceptions that rank before the CR intercepts (Table 15-7). */
	{ .name = "MOV CR0 with PG = 1, PE = 0: #GP before the CR0 write intercept", .apm = "15.9",
	  .body = &b_cr0_pg_nope_body, .icpt_cr = CR_W(0), .icpt_exc = EXC(13),
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
	{ .name = "MOV CR0 with NW = 1, CD = 0: #GP before the selective intercept", .apm = "15.9",
	  .body = &b_cr0_nw_body, .icpt1 = ICPT1_CR0_SEL, .icpt_exc = EXC(13),
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
	{ .name = "MOV CR4 with reserved bit 15: #GP before the CR4 write intercept", .apm = "15.9",
	  .body = &b_cr4_rsvd_body, .icpt_cr = CR_W(4), .icpt_exc = EXC(13),
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
	{ .name = "MOV EAX, CR0 at CPL 3: #GP before the CR0 read intercept", .apm = "15.9",
	  .body = &b_cr0_eax_body, .icpt_cr = CR_R(0), .icpt_exc = EXC(13), .setup = cpl3,
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },

	DRR("MOV EAX, DR0", b_dr0_r, 0, 0),
	DRR("MOV ECX, DR1", b_dr1_r, 1, 1),
	DRR("MOV EDX, DR2", b_dr2_r, 2, 2),
	DRR("MOV EBX, DR3", b_dr3_r, 3, 3),
	DRR("MOV ESI, DR6", b_dr6_r, 6, 6),
	DRR("MOV EDI, DR7", b_dr7_r, 7, 7),
	DRW("MOV DR0, EBP", b_dr0_w, 0, 5),
	DRW("MOV DR1, ESI", b_dr1_w, 1, 6),
	DRW("MOV DR2, EDI", b_dr2_w, 2, 7),
	DRW("MOV DR3, EAX", b_dr3_w, 3, 0),
	DRW("MOV DR6, ECX", b_dr6_w, 6, 1),
	DRW("MOV DR7, EDX", b_dr7_w, 7, 2),
	{ .name = "MOV EAX, DR4 with CR4.DE = 1: #UD before the intercept", .apm = "15.9",
	  .body = &b_dr4_r_body, .icpt_dr = 0xffff, .icpt_exc = EXC(6), .setup = cr4_de,
	  .exitcode = EXIT_EXC(6) },
	{ .name = "MOV EAX, DR0 with DR7.GD: #DB (fault, DR6.BD) before the intercept", .apm = "15.12.2",
	  .body = &b_dr0_r_body, .icpt_dr = DR_R(0), .icpt_exc = EXC(1), .setup = dr7_gd,
	  .exitcode = EXIT_EXC(1), .extra = dr6_bd },
	{ .name = "MOV EAX, DR0 at CPL 3: #GP before the intercept", .apm = "15.9",
	  .body = &b_dr0_r_body, .icpt_dr = DR_R(0), .icpt_exc = EXC(13), .setup = cpl3,
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
};

void guest_main(void)
{
	svm_host_init();
	RUN_ROWS(rows);
}
