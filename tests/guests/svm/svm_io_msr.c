/* IOIO intercepts through the I/O permissions map (APM2 15.10: every
 * EXITINFO1 field of Figure 15-2, EXITINFO2 = the next rIP) and MSR intercepts
 * through the MSR permissions map (APM2 15.11: the three ranges of Table
 * 15-8, an MSR outside them, EXITINFO1 = 0 RDMSR / 1 WRMSR), with what ranks
 * before and after each intercept. */
#include "svm/lib_svm.h"

#define EXC(v) (1u << (v))
#define MSR_SYSENTER_CS 0x174u
#define MSR_STAR        0xc0000081u

/* ---- IOIO ---- */
L2_INSN(b_in_al_imm, "inb $0x80, %al");
L2_BODY(b_in_ax_dx, "mov $0x1234, %edx", "inw %dx, %ax", "");
L2_BODY(b_in_eax_dx, "mov $0xcf8, %edx", "inl %dx, %eax", "");
L2_INSN(b_out_imm_al, "outb %al, $0x70");
L2_BODY(b_out_dx_ax, "mov $0x5678, %edx", "outw %ax, %dx", "");
L2_BODY(b_out_dx_eax, "mov $0xcfc, %edx", "outl %eax, %dx", "");
L2_BODY(b_out_a16, "mov $0x71, %edx", "addr16 outb %al, %dx", "");
L2_BODY(b_insb, "mov $0x60, %edx\n\tmov $l2_scratch, %edi", "insb", "");
L2_BODY(b_rep_insw, "mov $0x60, %edx\n\tmov $l2_scratch, %edi\n\tmov $4, %ecx", "rep insw", "");
L2_BODY(b_outsb, "mov $0x61, %edx\n\tmov $l2_scratch, %esi", "outsb", "");
L2_BODY(b_rep_outsl_fs, "mov $0x62, %edx\n\tmov $l2_scratch, %esi\n\tmov $2, %ecx", "rep outsl %fs:(%esi), %dx", "");
L2_BODY(b_outsw_es, "mov $0x63, %edx\n\tmov $l2_scratch, %esi", "outsw %es:(%esi), %dx", "");
L2_BODY(b_outsb_cs, "mov $0x64, %edx\n\tmov $l2_scratch, %esi", "outsb %cs:(%esi), %dx", "");
L2_BODY(b_outsb_ss, "mov $0x65, %edx\n\tmov $l2_scratch, %esi", "outsb %ss:(%esi), %dx", "");
L2_BODY(b_outsb_gs, "mov $0x66, %edx\n\tmov $l2_scratch, %esi", "outsb %gs:(%esi), %dx", "");
L2_BODY(b_rep_outsb_a16, "mov $0x67, %edx\n\tmov $l2_scratch, %esi\n\tmov $1, %ecx",
	"addr16 rep outsb (%si), %dx", "");
L2_BODY(b_out_3fe, "mov $0x3fe, %edx", "outl %eax, %dx", "");
L2_BODY(b_out_ffff, "mov $0xffff, %edx", "outl %eax, %dx", "");
L2_BODY(b_out_80, "mov $0x80, %edx\n\tmov $0x5a, %eax", "outb %al, %dx", "");

static void iopm_arg(struct svm_case *c) { iopm_set(c->row->arg, 1); }
static void iopm_arg_noprot(struct svm_case *c) { iopm_set(c->row->arg, 1); c->vmcb->icpt_misc1 &= ~ICPT1_IOIO; }
static void iopm_arg_cpl3(struct svm_case *c) { iopm_set(c->row->arg, 1); vmcb_user(c->vmcb); }

#define IO(nm, sec, b, port, info, extra_check) \
	{ .name = nm, .apm = sec, .body = &b##_body, .icpt1 = ICPT1_IOIO, .setup = iopm_arg, \
	  .arg = port, .exitcode = EXIT_IOIO, .info1 = (info) | IO_PORT(port), \
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO2_NEXT | (extra_check) }

/* ---- MSR ---- */
L2_BODY(b_rdmsr_174, "mov $0x174, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr_174, "mov $0x174, %ecx\n\trdmsr", "wrmsr", "");
L2_BODY(b_rdmsr_star, "mov $0xc0000081, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr_efer, "mov $0xc0000080, %ecx\n\trdmsr", "wrmsr", "");
L2_BODY(b_wrmsr_efer_rsvd, "mov $0xc0000080, %ecx\n\trdmsr\n\tor $0x80000000, %edx", "wrmsr", "");
L2_BODY(b_rdmsr_hsave, "mov $0xc0010117, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr_vmcr, "mov $0xc0010114, %ecx\n\trdmsr", "wrmsr", "");
L2_BODY(b_rdmsr_1fff, "mov $0x1fff, %ecx", "rdmsr", "");
L2_BODY(b_rdmsr_2000, "mov $0x2000, %ecx", "rdmsr", "");
L2_BODY(b_rdmsr_c0002000, "mov $0xc0002000, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr_c0012000, "mov $0xc0012000, %ecx\n\txor %eax, %eax\n\txor %edx, %edx", "wrmsr", "");
L2_BODY(b_rdmsr_40000000, "mov $0x40000000, %ecx", "rdmsr", "");

static void msr_r(struct svm_case *c) { msrpm_set(c->row->arg, 0, 1); }
static void msr_w(struct svm_case *c) { msrpm_set(c->row->arg, 1, 1); }
static void msr_all_noprot(struct svm_case *c)
{
	gmemset(svm_msrpm, 0xff, sizeof(svm_msrpm));
	msrpm_set(0, 0, 1);   /* marks the map for clearing by the next row */
	c->vmcb->icpt_misc1 &= ~ICPT1_MSR;
}
static void msr_r_cpl3(struct svm_case *c) { msrpm_set(c->row->arg, 0, 1); vmcb_user(c->vmcb); }

/* The L2 read SYSENTER_CS unintercepted: EAX holds L1's value. */
static void saw_sysenter_cs(struct svm_case *c)
{
	svm_expect(c, "L2 RDMSR 174h result (VMCB RAX)", (uint32_t)c->vmcb->rax,
		   (uint32_t)rdmsr64(MSR_SYSENTER_CS));
}

#define MSR(nm, b, msr, set, wr) \
	{ .name = nm, .apm = "15.11", .body = &b##_body, .icpt1 = ICPT1_MSR, .setup = set, .arg = msr, \
	  .exitcode = EXIT_MSR, .info1 = wr, .check = C_NRIP_NEXT | C_INFO1 }

static const struct svm_row rows[] = {
	IO("IN AL, 80h", "15.10.2", b_in_al_imm, 0x80, IO_IN | IO_SZ8 | IO_A32, 0),
	IO("IN AX, DX (1234h)", "15.10.2", b_in_ax_dx, 0x1234, IO_IN | IO_SZ16 | IO_A32, 0),
	IO("IN EAX, DX (CF8h)", "15.10.2", b_in_eax_dx, 0xcf8, IO_IN | IO_SZ32 | IO_A32, 0),
	IO("OUT 70h, AL", "15.10.2", b_out_imm_al, 0x70, IO_SZ8 | IO_A32, 0),
	IO("OUT DX (5678h), AX", "15.10.2", b_out_dx_ax, 0x5678, IO_SZ16 | IO_A32, 0),
	IO("OUT DX (CFCh), EAX", "15.10.2", b_out_dx_eax, 0xcfc, IO_SZ32 | IO_A32, 0),
	IO("OUT DX, AL with a 67h prefix: A16", "15.10.2", b_out_a16, 0x71, IO_SZ8 | IO_A16, 0),
	IO("INSB: STR, segment ES", "15.10.3", b_insb, 0x60,
	   IO_IN | IO_STR | IO_SZ8 | IO_A32 | IO_SEG(SEG_ES), C_INFO1_MASK_SEG),
	IO("REP INSW: REP", "15.10.3", b_rep_insw, 0x60,
	   IO_IN | IO_STR | IO_REP | IO_SZ16 | IO_A32 | IO_SEG(SEG_ES), C_INFO1_MASK_SEG),
	IO("OUTSB: segment DS by default", "15.10.3", b_outsb, 0x61,
	   IO_STR | IO_SZ8 | IO_A32 | IO_SEG(SEG_DS), C_INFO1_MASK_SEG),
	IO("REP OUTSD FS:", "15.10.3", b_rep_outsl_fs, 0x62,
	   IO_STR | IO_REP | IO_SZ32 | IO_A32 | IO_SEG(SEG_FS), C_INFO1_MASK_SEG),
	IO("OUTSW ES:", "15.10.3", b_outsw_es, 0x63,
	   IO_STR | IO_SZ16 | IO_A32 | IO_SEG(SEG_ES), C_INFO1_MASK_SEG),
	IO("OUTSB CS:", "15.10.3", b_outsb_cs, 0x64,
	   IO_STR | IO_SZ8 | IO_A32 | IO_SEG(SEG_CS), C_INFO1_MASK_SEG),
	IO("OUTSB SS:", "15.10.3", b_outsb_ss, 0x65,
	   IO_STR | IO_SZ8 | IO_A32 | IO_SEG(SEG_SS), C_INFO1_MASK_SEG),
	IO("OUTSB GS:", "15.10.3", b_outsb_gs, 0x66,
	   IO_STR | IO_SZ8 | IO_A32 | IO_SEG(SEG_GS), C_INFO1_MASK_SEG),
	IO("REP OUTSB with a 67h prefix: A16", "15.10.3", b_rep_outsb_a16, 0x67,
	   IO_STR | IO_REP | IO_SZ8 | IO_A16 | IO_SEG(SEG_DS), C_INFO1_MASK_SEG),
	{ .name = "OUT DX (3FEh), EAX with only port 401h's bit set", .apm = "15.10.2",
	  .body = &b_out_3fe_body, .icpt1 = ICPT1_IOIO, .setup = iopm_arg, .arg = 0x401,
	  .exitcode = EXIT_IOIO, .info1 = IO_SZ32 | IO_A32 | IO_PORT(0x3fe),
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO2_NEXT },
	{ .name = "OUT DX (FFFFh), EAX with only bit 10002h (third IOPM page) set", .apm = "15.10.1",
	  .body = &b_out_ffff_body, .icpt1 = ICPT1_IOIO, .setup = iopm_arg, .arg = 0x10002,
	  .exitcode = EXIT_IOIO, .info1 = IO_SZ32 | IO_A32 | IO_PORT(0xffff),
	  .check = C_NRIP_NEXT | C_INFO1 | C_INFO2_NEXT },
	{ .name = "OUT DX (80h), AL with port 80h's bit clear: no intercept", .apm = "15.10.1",
	  .body = &b_out_80_body, .icpt1 = ICPT1_IOIO, .setup = iopm_arg, .arg = 0x81,
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END },
	{ .name = "IOIO_PROT clear: the IOPM is not consulted", .apm = "15.10.2",
	  .body = &b_out_80_body, .setup = iopm_arg_noprot, .arg = 0x80,
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END },
	{ .name = "IN at CPL 3 denied by the TSS bitmap: #GP before the intercept", .apm = "15.10.2",
	  .body = &b_in_al_imm_body, .icpt1 = ICPT1_IOIO, .icpt_exc = EXC(13), .setup = iopm_arg_cpl3,
	  .arg = 0x80, .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },

	MSR("RDMSR 174h (range 0000_0000h), read bit", b_rdmsr_174, MSR_SYSENTER_CS, msr_r, 0),
	MSR("WRMSR 174h, write bit", b_wrmsr_174, MSR_SYSENTER_CS, msr_w, 1),
	{ .name = "RDMSR 174h with only the write bit: no intercept", .apm = "15.11",
	  .body = &b_rdmsr_174_body, .icpt1 = ICPT1_MSR, .setup = msr_w, .arg = MSR_SYSENTER_CS,
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END, .extra = saw_sysenter_cs },
	MSR("RDMSR C000_0081h (range C000_0000h)", b_rdmsr_star, MSR_STAR, msr_r, 0),
	MSR("WRMSR C000_0080h (EFER), write bit", b_wrmsr_efer, 0xc0000080u, msr_w, 1),
	MSR("WRMSR EFER with reserved bit 63: the intercept before #GP", b_wrmsr_efer_rsvd, 0xc0000080u,
	    msr_w, 1),
	MSR("RDMSR C001_0117h (range C001_0000h)", b_rdmsr_hsave, MSR_VM_HSAVE_PA, msr_r, 0),
	MSR("WRMSR C001_0114h (VM_CR), write bit", b_wrmsr_vmcr, MSR_VM_CR, msr_w, 1),
	MSR("RDMSR 1FFFh, the last read bit of range 0", b_rdmsr_1fff, 0x1fff, msr_r, 0),
	MSR("RDMSR 2000h, outside every range: always intercepted", b_rdmsr_2000, 0, 0, 0),
	MSR("RDMSR C000_2000h, outside every range", b_rdmsr_c0002000, 0, 0, 0),
	MSR("WRMSR C001_2000h, outside every range", b_wrmsr_c0012000, 0, 0, 1),
	MSR("RDMSR 4000_0000h, outside every range", b_rdmsr_40000000, 0, 0, 0),
	{ .name = "MSR_PROT clear, MSRPM all ones: RDMSR 174h not intercepted", .apm = "15.11",
	  .body = &b_rdmsr_174_body, .setup = msr_all_noprot, .exitcode = EXIT_VMMCALL,
	  .check = C_AT_END, .extra = saw_sysenter_cs },
	{ .name = "RDMSR at CPL 3: #GP before the intercept", .apm = "15.11", .body = &b_rdmsr_174_body,
	  .icpt1 = ICPT1_MSR, .icpt_exc = EXC(13), .setup = msr_r_cpl3, .arg = MSR_SYSENTER_CS,
	  .exitcode = EXIT_EXC(13), .info1 = 0, .check = C_INFO1 },
};

void guest_main(void)
{
	svm_host_init();
	RUN_ROWS(rows);
}
