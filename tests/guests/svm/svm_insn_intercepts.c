/* Instruction intercepts (APM2 15.9, Table 15-7) seen by a 32-bit L1: one row
 * per intercept of VMCB vectors 3 and 4 that a flat 32-bit L2 can raise, with
 * the exit code of Appendix C, nRIP (15.7.1), the decode-assist EXITINFO1 of
 * INTn and INVLPG (15.8.2, 15.8.3), and the priority of each intercept
 * against the instruction's own exceptions (an L2 at CPL 3, #GP intercepted). */
#include "svm/lib_svm.h"

/* CPUID bits the rows need besides SVM's (APM3 Appendix E). */
static const char *no_rdtscp(void)
{
	return cpu_has(0x80000001u, 3, 27) ? 0 : "CPUID Fn8000_0001_EDX[RDTSCP] = 0";
}
static const char *no_monitor(void)
{
	return cpu_has(1, 2, 3) ? 0 : "CPUID Fn0000_0001_ECX[MONITOR] = 0";
}
static const char *no_monitorx(void)
{
	return cpu_has(0x80000001u, 2, 29) ? 0 : "CPUID Fn8000_0001_ECX[MONITORX] = 0";
}
static const char *no_xsave(void)
{
	return cpu_has(1, 2, 26) ? 0 : "CPUID Fn0000_0001_ECX[XSAVE] = 0";
}
static const char *no_rdpru(void)
{
	return cpu_has(0x80000008u, 1, 4) ? 0 : "CPUID Fn8000_0008_EBX[RdPru] = 0";
}

/* ---- L2 bodies ---- */
L2_INSN(b_cpuid, "cpuid");
L2_INSN(b_rdtsc, "rdtsc");
L2_INSN(b_rdtscp, "rdtscp");
L2_BODY(b_rdpmc, "xor %ecx, %ecx", "rdpmc", "");
L2_INSN(b_pushf, "pushfl");
L2_BODY(b_popf, "pushl $2", "popfl", "");
/* An IRET whose frame holds a null CS: without the intercept, #GP(0). */
L2_BODY(b_iret, "pushl $2\n\tpushl $0\n\tpushl $0", "iret", "");
L2_INSN(b_int42, "int $0x42");
L2_INSN(b_int3_cd, ".byte 0xcd, 0x03");
L2_INSN(b_invd, "invd");
L2_INSN(b_pause, "pause");
L2_INSN(b_hlt, "hlt");
L2_BODY(b_invlpg, "mov $0x40000000, %ebx", "invlpg 0x1234(%ebx)", "");
/* 16-bit address size: (BX + 0xfff0) mod 64K = 0x10, plus the ES base. */
L2_BODY(b_invlpg16, "mov $0x20, %ebx", "addr16 invlpg %es:0xfff0(%bx)", "");
L2_BODY(b_invlpga, "mov $0x1000, %eax\n\tmov $1, %ecx", "invlpga %eax, %ecx", "");
L2_INSN(b_rsm, "rsm");
L2_INSN(b_sidt, "sidt l2_scratch");
L2_INSN(b_sgdt, "sgdt l2_scratch");
L2_INSN(b_sldt, "sldt l2_scratch");
L2_INSN(b_str, "str l2_scratch");
L2_INSN(b_lidt, "lidt l2_scratch");
L2_INSN(b_lgdt, "lgdt l2_scratch");
L2_BODY(b_lldt, "xor %eax, %eax", "lldt %ax", "");
L2_BODY(b_ltr, "mov $0x28, %eax", "ltr %ax", "");
L2_BODY(b_vmrun, "mov $svm_vmcbs + 4096, %eax", "vmrun", "");
L2_INSN(b_vmmcall, "vmmcall");
L2_BODY(b_vmload, "mov $svm_vmcbs + 4096, %eax", "vmload", "");
L2_BODY(b_vmsave, "mov $svm_vmcbs + 4096, %eax", "vmsave", "");
L2_INSN(b_stgi, "stgi");
L2_INSN(b_clgi, "clgi");
L2_BODY(b_skinit, "mov $0x10000, %eax", "skinit", "");
L2_INSN(b_icebp, ".byte 0xf1");
L2_INSN(b_wbinvd, "wbinvd");
L2_INSN(b_wbnoinvd, ".byte 0xf3, 0x0f, 0x09");
L2_BODY(b_monitor, "mov $l2_scratch, %eax\n\txor %ecx, %ecx\n\txor %edx, %edx", "monitor", "");
L2_BODY(b_mwait, "xor %eax, %eax\n\txor %ecx, %ecx", "mwait", "");
L2_BODY(b_mwait_armed, "mov $l2_scratch, %eax\n\txor %ecx, %ecx\n\txor %edx, %edx\n\tmonitor\n\t"
	"xor %eax, %eax", "mwait", "");
L2_BODY(b_monitorx, "mov $l2_scratch, %eax\n\txor %ecx, %ecx\n\txor %edx, %edx", "monitorx", "");
L2_BODY(b_mwaitx, "xor %eax, %eax\n\txor %ecx, %ecx\n\txor %ebx, %ebx", "mwaitx", "");
L2_BODY(b_xsetbv, "xor %ecx, %ecx\n\tmov $1, %eax\n\txor %edx, %edx", "xsetbv", "");
L2_BODY(b_rdpru, "xor %ecx, %ecx", ".byte 0x0f, 0x01, 0xfd", "");  /* rdpru */

/* ---- set-up functions ---- */
static void cpl3(struct svm_case *c) { vmcb_user(c->vmcb); }
static void cpl3_tsd(struct svm_case *c) { vmcb_user(c->vmcb); c->vmcb->cr4 |= 1u << 2; /* CR4.TSD */ }
static void idt_limit_small(struct svm_case *c) { c->vmcb->idtr.limit = 0x0f; }
static void es_base(struct svm_case *c) { c->vmcb->es.base = 0x00300000; }
static void osxsave(struct svm_case *c) { c->vmcb->cr4 |= 1u << 18; /* CR4.OSXSAVE */ }
/* Clears the VMMCALL intercept that svm_vmcb_init sets. */
static void no_vmmcall(struct svm_case *c) { c->vmcb->icpt_misc2 &= ~ICPT2_VMMCALL; }

#define INSN(nm, sec, b, i1, i2, code) \
	{ .name = nm, .apm = sec, .body = &b##_body, .icpt1 = i1, .icpt2 = i2, .exitcode = code, \
	  .check = C_NRIP_NEXT }

static const struct svm_row rows[] = {
	/* Intercept vector 3 (VMCB 00Ch), APM2 15.9 Table 15-7, Appendix C. */
	INSN("CPUID", "15.9", b_cpuid, ICPT1_CPUID, 0, EXIT_CPUID),
	INSN("RDTSC", "15.9", b_rdtsc, ICPT1_RDTSC, 0, EXIT_RDTSC),
	INSN("RDPMC", "15.9", b_rdpmc, ICPT1_RDPMC, 0, EXIT_RDPMC),
	INSN("PUSHF", "15.9", b_pushf, ICPT1_PUSHF, 0, EXIT_PUSHF),
	INSN("POPF", "15.9", b_popf, ICPT1_POPF, 0, EXIT_POPF),
	INSN("IRET with a null CS in its frame: the intercept before #GP", "15.9", b_iret, ICPT1_IRET, 0,
	     EXIT_IRET),
	{ .name = "INT 42h: EXITINFO1 = the vector (decode assists), rIP of the INTn", .apm = "15.8.2",
	  .body = &b_int42_body, .icpt1 = ICPT1_INTN, .exitcode = EXIT_SWINT, .info1 = 0x42,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "INT 3 in the CD 03 encoding is INTn, not #BP", .apm = "15.8.2", .body = &b_int3_cd_body,
	  .icpt1 = ICPT1_INTN, .icpt_exc = 1u << 3, .exitcode = EXIT_SWINT, .info1 = 3,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "INT 42h beyond the IDT limit: the intercept before #GP", .apm = "15.9",
	  .body = &b_int42_body, .icpt1 = ICPT1_INTN, .icpt_exc = 1u << 13, .setup = idt_limit_small,
	  .exitcode = EXIT_SWINT, .info1 = 0x42, .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	INSN("INVD", "15.9", b_invd, ICPT1_INVD, 0, EXIT_INVD),
	INSN("PAUSE (filter count 0)", "15.14.4", b_pause, ICPT1_PAUSE, 0, EXIT_PAUSE),
	INSN("HLT", "15.9", b_hlt, ICPT1_HLT, 0, EXIT_HLT),
	{ .name = "INVLPG: EXITINFO1 = the linear address (decode assists)", .apm = "15.8.3",
	  .body = &b_invlpg_body, .icpt1 = ICPT1_INVLPG, .exitcode = EXIT_INVLPG, .info1 = 0x40001234,
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	{ .name = "INVLPG, 16-bit address, ES base 300000h: EXITINFO1 = base + (EA mod 64K)",
	  .apm = "15.8.3", .body = &b_invlpg16_body, .icpt1 = ICPT1_INVLPG, .setup = es_base,
	  .exitcode = EXIT_INVLPG, .info1 = 0x00300010, .check = C_NRIP_NEXT | C_INFO1 | C_INFO1_DA },
	INSN("INVLPGA", "15.9", b_invlpga, ICPT1_INVLPGA, 0, EXIT_INVLPGA),
	INSN("RSM outside SMM: the intercept before #UD", "15.9", b_rsm, ICPT1_RSM, 0, EXIT_RSM),
	INSN("SIDT", "15.9", b_sidt, ICPT1_IDTR_READ, 0, EXIT_IDTR_READ),
	INSN("SGDT", "15.9", b_sgdt, ICPT1_GDTR_READ, 0, EXIT_GDTR_READ),
	INSN("SLDT", "15.9", b_sldt, ICPT1_LDTR_READ, 0, EXIT_LDTR_READ),
	INSN("STR", "15.9", b_str, ICPT1_TR_READ, 0, EXIT_TR_READ),
	INSN("LIDT", "15.9", b_lidt, ICPT1_IDTR_WRITE, 0, EXIT_IDTR_WRITE),
	INSN("LGDT", "15.9", b_lgdt, ICPT1_GDTR_WRITE, 0, EXIT_GDTR_WRITE),
	INSN("LLDT", "15.9", b_lldt, ICPT1_LDTR_WRITE, 0, EXIT_LDTR_WRITE),
	INSN("LTR", "15.9", b_ltr, ICPT1_TR_WRITE, 0, EXIT_TR_WRITE),

	/* Intercept vector 4 (VMCB 010h). */
	INSN("VMRUN in L2 (the VMRUN intercept is always set)", "15.9", b_vmrun, 0, 0, EXIT_VMRUN),
	INSN("VMMCALL", "15.18", b_vmmcall, 0, 0, EXIT_VMMCALL),
	INSN("VMLOAD", "15.9", b_vmload, 0, ICPT2_VMLOAD, EXIT_VMLOAD),
	INSN("VMSAVE", "15.9", b_vmsave, 0, ICPT2_VMSAVE, EXIT_VMSAVE),
	INSN("STGI", "15.9", b_stgi, 0, ICPT2_STGI, EXIT_STGI),
	INSN("CLGI", "15.9", b_clgi, 0, ICPT2_CLGI, EXIT_CLGI),
	INSN("SKINIT", "15.9", b_skinit, 0, ICPT2_SKINIT, EXIT_SKINIT),
	{ .name = "RDTSCP", .apm = "15.9", .body = &b_rdtscp_body, .icpt2 = ICPT2_RDTSCP,
	  .exitcode = EXIT_RDTSCP, .check = C_NRIP_NEXT, .skip = no_rdtscp },
	{ .name = "ICEBP (F1), #DB intercept set too", .apm = "15.12.2", .body = &b_icebp_body,
	  .icpt2 = ICPT2_ICEBP, .icpt_exc = 1u << 1, .exitcode = EXIT_ICEBP, .check = C_NRIP_NEXT },
	INSN("WBINVD", "15.9", b_wbinvd, 0, ICPT2_WBINVD, EXIT_WBINVD),
	INSN("WBNOINVD (F3 0F 09) checks the WBINVD intercept", "15.9", b_wbnoinvd, 0, ICPT2_WBINVD,
	     EXIT_WBINVD),
	{ .name = "MONITOR", .apm = "15.9", .body = &b_monitor_body, .icpt2 = ICPT2_MONITOR,
	  .exitcode = EXIT_MONITOR, .check = C_NRIP_NEXT, .skip = no_monitor },
	{ .name = "MWAIT, unconditional intercept", .apm = "15.9", .body = &b_mwait_body,
	  .icpt2 = ICPT2_MWAIT, .exitcode = EXIT_MWAIT, .check = C_NRIP_NEXT, .skip = no_monitor },
	{ .name = "MWAIT after MONITOR, both MWAIT intercepts: the conditional one", .apm = "15.9",
	  .body = &b_mwait_armed_body, .icpt2 = ICPT2_MWAIT | ICPT2_MWAIT_ARMED,
	  .exitcode = EXIT_MWAIT_ARMED, .check = C_NRIP_NEXT, .skip = no_monitor },
	{ .name = "MONITORX checks the MONITOR intercept", .apm = "15.9", .body = &b_monitorx_body,
	  .icpt2 = ICPT2_MONITOR, .exitcode = EXIT_MONITOR, .check = C_NRIP_NEXT, .skip = no_monitorx },
	{ .name = "MWAITX checks the MWAIT intercept", .apm = "15.9", .body = &b_mwaitx_body,
	  .icpt2 = ICPT2_MWAIT, .exitcode = EXIT_MWAIT, .check = C_NRIP_NEXT, .skip = no_monitorx },
	{ .name = "XSETBV", .apm = "15.9", .body = &b_xsetbv_body, .icpt2 = ICPT2_XSETBV,
	  .setup = osxsave, .exitcode = EXIT_XSETBV, .check = C_NRIP_NEXT, .skip = no_xsave },
	{ .name = "RDPRU", .apm = "15.9", .body = &b_rdpru_body, .icpt2 = ICPT2_RDPRU,
	  .exitcode = EXIT_RDPRU, .check = C_NRIP_NEXT, .skip = no_rdpru },

	/* Exceptions checked before the intercept: an L2 at CPL 3 gets #GP(0)
	 * (intercepted), not the instruction's #VMEXIT. */
	{ .name = "HLT at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_hlt_body,
	  .icpt1 = ICPT1_HLT, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "INVD at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_invd_body,
	  .icpt1 = ICPT1_INVD, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "RDTSC at CPL 3 with CR4.TSD: #GP before the intercept", .apm = "15.9",
	  .body = &b_rdtsc_body, .icpt1 = ICPT1_RDTSC, .icpt_exc = 1u << 13, .setup = cpl3_tsd,
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
	{ .name = "LTR at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_ltr_body,
	  .icpt1 = ICPT1_TR_WRITE, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "VMRUN at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_vmrun_body,
	  .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
	{ .name = "VMLOAD at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_vmload_body,
	  .icpt2 = ICPT2_VMLOAD, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "STGI at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_stgi_body,
	  .icpt2 = ICPT2_STGI, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "INVLPG at CPL 3: #GP before the intercept", .apm = "15.9", .body = &b_invlpg_body,
	  .icpt1 = ICPT1_INVLPG, .icpt_exc = 1u << 13, .setup = cpl3, .exitcode = EXIT_EXC(13),
	  .info1 = 0, .check = C_INFO1 },
	{ .name = "CPUID at CPL 3 is intercepted", .apm = "15.9", .body = &b_cpuid_body,
	  .icpt1 = ICPT1_CPUID, .setup = cpl3, .exitcode = EXIT_CPUID, .check = C_NRIP_NEXT },
	{ .name = "VMMCALL at CPL 3 is intercepted (no CPL check)", .apm = "15.18",
	  .body = &b_vmmcall_body, .setup = cpl3, .exitcode = EXIT_VMMCALL, .check = C_NRIP_NEXT },
	{ .name = "VMMCALL not intercepted: #UD in the guest", .apm = "15.18", .body = &b_vmmcall_body,
	  .icpt_exc = 1u << 6, .setup = no_vmmcall, .exitcode = EXIT_EXC(6), .check = 0 },
};

void guest_main(void)
{
	svm_host_init();
	RUN_ROWS(rows);
}
