/* VM entry and VM exits from a 32-bit L1 hypervisor: a valid VMLAUNCH into a
 * flat 32-bit L2 and the exit information the SDM Vol.3 gives for each row
 * (27.2: exit reason, qualification, instruction length and information,
 * interruption information and error code; 27.3.3: the saved guest RIP):
 * the unconditional exits (CPUID, VMCALL, the VMX instructions with their
 * instruction information, Tables 27-9, 27-13, 27-14: 25.1.2), HLT, RDTSC,
 * PAUSE, RDPMC, INVLPG, MOV DR (Table 27-4), I/O unconditionally and through
 * the I/O bitmaps (Table 27-5), RDMSR/WRMSR with and without MSR bitmaps
 * (25.1.3), the CR0 guest/host mask and read shadow (25.3), the exception
 * bitmap (#UD, #PF with its qualification and CR2 untouched, INT3 as a
 * software exception: 27.2.2, 27.1), CR3-load and CR3-store exiting (Table
 * 27-3), a CR3-target value, and their absence with the TRUE controls
 * (A.3.2); then VM entries
 * that fail: VMfailValid(7) for a reserved control (26.2.1.1), (8) for a host
 * CR4 without VMXE (26.2.2), VMLAUNCH of a launched VMCS (4) and VMRESUME
 * after it, and the VM-entry failures of 26.8: exit reason 33 (guest CR0.PE
 * = 0 without unrestricted guest, 26.3.1.1) and 34 (an MSR-load entry with
 * reserved bits, the qualification naming it, 26.4), each resuming L1 at
 * HOST_RIP. */
#include "vmx/lib_vmx.h"

#define EXC(v) (1u << (v))

uint8_t l2_scratch[64] __attribute__((aligned(16)));

L2_INSN(b_cpuid, "cpuid");
L2_INSN(b_vmcall, "vmcall");
L2_INSN(b_hlt, "hlt");
L2_INSN(b_rdtsc, "rdtsc");
L2_INSN(b_out_imm, "out %al, $0x80");
L2_BODY(b_in_dx, "mov $0x71, %dx", "in (%dx), %ax", "");
L2_BODY(b_rep_outsb, "mov $0x61, %dx\n\tmov $l2_scratch, %esi\n\tmov $1, %ecx", "rep outsb", "");
L2_BODY(b_rdmsr, "mov $0x10, %ecx", "rdmsr", "");
L2_BODY(b_wrmsr, "mov $0x1b0, %ecx\n\txor %eax, %eax\n\txor %edx, %edx", "wrmsr", "");
L2_INSN(b_ud2, "ud2");
L2_BODY(b_pf, "mov $0x40000010, %ebx", "mov (%ebx), %eax", "");
L2_INSN(b_int3, "int3");
L2_BODY(b_cr3_load, "mov l1_cr3_copy, %ebx", "mov %ebx, %cr3", "");
L2_INSN(b_cr3_store, "mov %cr3, %ecx");
L2_INSN(b_nop, "nop");
uint32_t l1_cr3_copy;            /* what the MOV-to-CR3 body loads */
L2_BODY(b_invlpg, "mov $0x40001000, %ebx", "invlpg 0x10(%ebx)", "");
L2_INSN(b_mov_from_dr7, "mov %db7, %edx");
L2_BODY(b_cr0_ts, "mov %cr0, %eax\n\tor $8, %eax", "mov %eax, %cr0", "");
L2_INSN(b_cr0_read, "mov %cr0, %ebx");
L2_INSN(b_clts, "clts");
L2_BODY(b_lmsw, "mov $0x33, %eax", "lmsw %ax", "");
L2_INSN(b_pause, "pause");
L2_BODY(b_rdpmc, "xor %ecx, %ecx", "rdpmc", "");
L2_INSN(b_out_81, "out %al, $0x81");
L2_INSN(b_vmxoff, "vmxoff");
L2_INSN(b_vmlaunch, "vmlaunch");
L2_INSN(b_vmptrst, "vmptrst (%esp)");
L2_INSN(b_vmread_reg, "vmread %ecx, %edx");
L2_INSN(b_vmclear_mem, "vmclear (%ebx)");
L2_INSN(b_vmptrld_sib, "vmptrld 0x10(%esi,%edi,4)");
L2_INSN(b_invept, "invept (%ebx), %ecx");

/* VM-exit instruction information (27.2.4): Table 27-13 (VMCLEAR, VMPTRLD,
 * VMPTRST, VMXON) and Table 27-9 (INVEPT, INVVPID) define scaling 1:0,
 * address size 9:7, bit 10 = 0, segment 17:15, index 21:18 and its invalid
 * bit 22, base 26:23 and its invalid bit 27 (Table 27-9 also reg2 31:28);
 * scaling and index are undefined without an index register. Table 27-14
 * (VMREAD, VMWRITE) with a register operand defines reg1 6:3, bit 10 = 1 and
 * reg2 31:28 only. Registers by number: 0 EAX, 1 ECX, 2 EDX, 3 EBX, 6 ESI,
 * 7 EDI; segment 3 DS; address size 1 = 32 bits. */
#define II_MEM_MASK   0x0fff8783u
#define II_MEM_NOIDX_MASK (II_MEM_MASK & ~0x003c0003u)
#define II_REG2_MASK  0xf0000000u
#define II_SCALE(n)   ((uint32_t)(n))
#define II_ASIZE32    (1u << 7)
#define II_SEG_DS     (3u << 15)
#define II_INDEX(r)   ((uint32_t)(r) << 18)
#define II_NO_INDEX   (1u << 22)
#define II_BASE(r)    ((uint32_t)(r) << 23)
#define II_REG1(r)    ((uint32_t)(r) << 3)
#define II_REGISTER   (1u << 10)
#define II_REG2(r)    ((uint32_t)(r) << 28)

/* Bitmap pages (24.6.4, 24.6.9): zero but for the rows' bits. */
static uint8_t io_bitmap[2][4096] __attribute__((aligned(4096)));
static uint8_t msr_bitmap[4096] __attribute__((aligned(4096)));

/* ---- edits ---- */

static const char *need_invept(void)
{
	/* 30.3 INVEPT: #UD where the processor has no INVEPT, even in L2. */
	return (vmx_caps.ept_vpid & CAP_INVEPT) ? 0 : "no INVEPT (IA32_VMX_EPT_VPID_CAP[20] = 0)";
}
static const char *need_true_cr3(void)
{
	/* A.3.2: only the TRUE MSR lets the default1 CR3 controls be 0. */
	return ((uint32_t)vmx_caps.proc & (PROC_CR3_LOAD | PROC_CR3_STORE)) ?
		"CR3-load/store exiting are default1 here (no IA32_VMX_BASIC[55])" : 0;
}
static void cr2_sentinel(struct vmx_case *c)
{
	(void)c;
	write_cr2(0x5a5a5000u);
}
/* 27.1: a #PF that causes a VM exit does not write CR2. */
static void cr2_kept(struct vmx_case *c)
{
	vmx_expect(c, "CR2 (the #PF exit does not load it)", read_cr2(), 0x5a5a5000u);
}
static void outs_linear(struct vmx_case *c)
{
	/* 27.2.1: INS/OUTS save the linear address of the memory operand. */
	vmx_expect(c, "guest-linear address", vmread(VMCS_GUEST_LINEAR_ADDR), (uint32_t)(uintptr_t)l2_scratch);
}
static void pin_reserved_0(struct vmx_case *c)
{
	(void)c;
	/* A.3.1: pin-based bit 1 is a default1 control (allowed-0 = 1). */
	vmwrite(VMCS_PIN_CTLS, vmread(VMCS_PIN_CTLS) & ~2u);
}
static void host_cr4_no_vmxe(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_HOST_CR4, read_cr4() & ~CR4_VMXE);
}
static void guest_real(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_GUEST_CR0, read_cr0() & ~(CR0_PE | CR0_PG));
}

static void io_bitmaps(struct vmx_case *c)
{
	/* 24.6.4: bitmap A covers ports 0000H-7FFFH, one bit per port. */
	gmemset(io_bitmap, 0, sizeof(io_bitmap));
	io_bitmap[0][c->row->arg / 8] |= (uint8_t)(1u << (c->row->arg % 8));
	vmwrite64(VMCS_IO_BITMAP_A, (uint32_t)(uintptr_t)io_bitmap[0]);
	vmwrite64(VMCS_IO_BITMAP_B, (uint32_t)(uintptr_t)io_bitmap[1]);
}
static void msr_bitmaps(struct vmx_case *c)
{
	/* 24.6.9: read bitmap for low MSRs at bytes 0-1023, write bitmap for
	 * low MSRs at 2048-3071; arg = MSR | 1 << 31 for the write bitmap. */
	uint32_t msr = c->row->arg & 0x1fffu, base = (c->row->arg >> 31) ? 2048 : 0;
	gmemset(msr_bitmap, 0, sizeof(msr_bitmap));
	if (c->row->arg & 0x40000000u)
		msr_bitmap[base + msr / 8] |= (uint8_t)(1u << (msr % 8));
	vmwrite64(VMCS_MSR_BITMAP, (uint32_t)(uintptr_t)msr_bitmap);
}
static void cr3_target(struct vmx_case *c)
{
	(void)c;
	/* 25.1.3: MOV to CR3 of a value among the first CR3-target-count
	 * CR3-target values does not exit. */
	vmwrite(VMCS_CR3_TARGET_COUNT, 1);
	vmwrite(VMCS_CR3_TARGET0, l1_cr3_copy);
}
/* CR0.TS owned by L1 (guest/host mask bit 3): shadow TS as arg says. */
static void cr0_ts_owned(struct vmx_case *c)
{
	vmwrite(VMCS_CR0_MASK, 8);
	vmwrite(VMCS_CR0_SHADOW, (read_cr0() & ~8u) | (c->row->arg ? 8u : 0));
}
static void cr0_mp_owned(struct vmx_case *c)
{
	(void)c;
	vmwrite(VMCS_CR0_MASK, 2);
	vmwrite(VMCS_CR0_SHADOW, read_cr0() & ~2u);
}
/* 25.3: MOV from CR0 returns the read shadow's value for the owned bits. */
static void read_shadow(struct vmx_case *c)
{
	vmx_expect(c, "EBX (MOV from CR0: TS from the read shadow)", l2_regs.ebx & 8u, 8u);
}

/* 26.4: each entry of the VM-entry MSR-load area is 16 bytes: index 31:0,
 * reserved 63:32, data 127:64; the area is 16-byte aligned (26.2.1.3). */
static uint32_t msr_area[2][4] __attribute__((aligned(16)));
static void bad_msr_entry(struct vmx_case *c)
{
	(void)c;
	msr_area[0][0] = 0x175;     /* IA32_SYSENTER_ESP := 1234H: loads */
	msr_area[0][1] = 0;
	msr_area[0][2] = 0x1234;
	msr_area[0][3] = 0;
	msr_area[1][0] = 0x175;     /* the second: reserved bits 63:32 set */
	msr_area[1][1] = 1;
	msr_area[1][2] = 0x1234;
	msr_area[1][3] = 0;
	vmwrite64(VMCS_ENTRY_MSR_LOAD_ADDR, (uint32_t)(uintptr_t)msr_area);
	vmwrite(VMCS_ENTRY_MSR_LOAD_COUNT, 2);
}

/* 30.3 VMLAUNCH: a VMCS is "launched" after its first successful entry, so
 * VMLAUNCH fails with error 4; VMRESUME then runs on from the saved RIP
 * (advanced by the exit's instruction length, as a VMM does). */
static void relaunch(struct vmx_case *c)
{
	int vec = vmx_enter_caught(c, 0);
	vmx_expect(c, "second VMLAUNCH: vector", (uint32_t)vec, (uint32_t)NO_FAULT);
	if (vec != NO_FAULT)
		return;
	vmx_expect(c, "second VMLAUNCH: outcome", c->outcome, VM_FAIL_VALID);
	vmx_expect(c, "second VMLAUNCH: VM-instruction error", vmread(VMCS_INSN_ERROR), VMERR_VMLAUNCH_NOT_CLEAR);
	vmwrite(VMCS_GUEST_RIP, vmread(VMCS_GUEST_RIP) + vmread(VMCS_EXIT_INSN_LEN));
	vec = vmx_enter_caught(c, 1);
	vmx_expect(c, "VMRESUME: vector", (uint32_t)vec, (uint32_t)NO_FAULT);
	if (vec != NO_FAULT)
		return;
	vmx_expect(c, "VMRESUME: outcome", c->outcome, VMX_EXITED);
	vmx_expect(c, "VMRESUME: exit reason", vmread(VMCS_EXIT_REASON), EXIT_VMCALL);
	vmx_expect(c, "VMRESUME: guest RIP (the closing VMCALL)", vmread(VMCS_GUEST_RIP),
		   (uint32_t)(uintptr_t)b_cpuid_next);
}
/* 26.8: a failed entry loads the host state; L1 goes on from HOST_RIP with
 * its own stack and segments. */
static void host_back(struct vmx_case *c)
{
	uint16_t cs, ss;
	__asm__ volatile("mov %%cs, %0\n\tmov %%ss, %1" : "=r"(cs), "=r"(ss));
	vmx_expect(c, "CS after the failed entry", cs, SEL_KCODE);
	vmx_expect(c, "SS after the failed entry", ss, SEL_KDATA);
}

static const struct vmx_row rows[] = {
	/* 25.1.2: exits whatever the controls. */
	{ .name = "CPUID: exit 10, instruction length 2", .sdm = "25.1.2, 27.2.4", .body = &b_cpuid_body,
	  .reason = EXIT_CPUID, .check = C_LEN },
	{ .name = "VMCALL in L2: exit 18, instruction length 3", .sdm = "25.1.2, 27.2.4",
	  .body = &b_vmcall_body, .reason = EXIT_VMCALL, .check = C_LEN },
	{ .name = "VMLAUNCH of a launched VMCS: VMfailValid(4); VMRESUME runs on", .sdm = "30.3 VMLAUNCH",
	  .body = &b_cpuid_body, .reason = EXIT_CPUID, .check = C_LEN, .extra = relaunch },
	/* 25.1.3: exits that depend on a control. */
	{ .name = "RDTSC with RDTSC exiting: exit 16, length 2", .sdm = "25.1.3", .body = &b_rdtsc_body,
	  .proc = PROC_RDTSC, .reason = EXIT_RDTSC, .check = C_LEN },
	{ .name = "OUT imm8 with unconditional I/O exiting: exit 30, Table 27-5", .sdm = "25.1.3, 27.2.1",
	  .body = &b_out_imm_body, .proc = PROC_UNCOND_IO, .reason = EXIT_IO,
	  .qual = QIO_SIZE(1) | QIO_IMM | QIO_PORT(0x80), .check = C_QUAL | C_LEN },
	{ .name = "IN AX, DX: exit 30, size 2, IN, port in DX", .sdm = "25.1.3, 27.2.1", .body = &b_in_dx_body,
	  .proc = PROC_UNCOND_IO, .reason = EXIT_IO, .qual = QIO_SIZE(2) | QIO_IN | QIO_PORT(0x71),
	  .check = C_QUAL | C_LEN },
	{ .name = "REP OUTSB: exit 30, string and REP, the linear address", .sdm = "25.1.3, 27.2.1",
	  .body = &b_rep_outsb_body, .proc = PROC_UNCOND_IO, .reason = EXIT_IO,
	  .qual = QIO_SIZE(1) | QIO_STRING | QIO_REP | QIO_PORT(0x61), .check = C_QUAL | C_LEN,
	  .extra = outs_linear },
	{ .name = "RDMSR without MSR bitmaps: exit 31", .sdm = "25.1.3", .body = &b_rdmsr_body,
	  .reason = EXIT_RDMSR, .check = C_LEN },
	{ .name = "WRMSR without MSR bitmaps: exit 32", .sdm = "25.1.3", .body = &b_wrmsr_body,
	  .reason = EXIT_WRMSR, .check = C_LEN },
	{ .name = "MOV to CR3 with CR3-load exiting: exit 28, Table 27-3 (CR3, to CR, EBX)",
	  .sdm = "25.1.3, 27.2.1", .body = &b_cr3_load_body, .proc = PROC_CR3_LOAD, .reason = EXIT_CR_ACCESS,
	  .qual = QCR(3, QCR_TO_CR, 3), .check = C_QUAL | C_LEN },
	{ .name = "MOV from CR3 with CR3-store exiting: exit 28 (CR3, from CR, ECX)", .sdm = "25.1.3, 27.2.1",
	  .body = &b_cr3_store_body, .proc = PROC_CR3_STORE, .reason = EXIT_CR_ACCESS,
	  .qual = QCR(3, QCR_FROM_CR, 1), .check = C_QUAL | C_LEN },
	{ .name = "MOV to CR3 with both CR3 controls 0 (TRUE MSR): no exit", .sdm = "25.1.3, A.3.2",
	  .body = &b_cr3_load_body, .reason = EXIT_VMCALL, .check = C_RIP_NEXT, .skip = need_true_cr3 },
	{ .name = "MOV to CR3 of a CR3-target value: no exit", .sdm = "25.1.3", .body = &b_cr3_load_body,
	  .proc = PROC_CR3_LOAD, .setup = cr3_target, .reason = EXIT_VMCALL, .check = C_RIP_NEXT },
	{ .name = "INVLPG with INVLPG exiting: exit 14, qualification = the linear address",
	  .sdm = "25.1.3, 27.2.1", .body = &b_invlpg_body, .proc = PROC_INVLPG, .reason = EXIT_INVLPG,
	  .qual = 0x40001010u, .check = C_QUAL | C_LEN },
	{ .name = "MOV from DR7 with MOV-DR exiting: exit 29, Table 27-4 (DR7, from, EDX)",
	  .sdm = "25.1.3, 27.2.1", .body = &b_mov_from_dr7_body, .proc = PROC_MOV_DR, .reason = EXIT_MOV_DR,
	  .qual = 7u | (1u << 4) | (2u << 8), .check = C_QUAL | C_LEN },
	{ .name = "MOV to CR0 changing the owned TS: exit 28 (CR0, to CR, EAX)", .sdm = "25.1.3, 27.2.1",
	  .body = &b_cr0_ts_body, .setup = cr0_ts_owned, .arg = 0, .reason = EXIT_CR_ACCESS,
	  .qual = QCR(0, QCR_TO_CR, 0), .check = C_QUAL | C_LEN },
	{ .name = "MOV from CR0 with TS owned: the read shadow's TS, no exit", .sdm = "25.3",
	  .body = &b_cr0_read_body, .setup = cr0_ts_owned, .arg = 1, .reason = EXIT_VMCALL,
	  .check = C_RIP_NEXT, .extra = read_shadow },
	{ .name = "CLTS with TS owned and shadow TS = 1: exit 28, type CLTS", .sdm = "25.1.3, 27.2.1",
	  .body = &b_clts_body, .setup = cr0_ts_owned, .arg = 1, .reason = EXIT_CR_ACCESS,
	  .qual = QCR(0, QCR_CLTS, 0), .check = C_QUAL | C_LEN },
	{ .name = "LMSW changing the owned MP: exit 28, type LMSW, source data 33H", .sdm = "25.1.3, 27.2.1",
	  .body = &b_lmsw_body, .setup = cr0_mp_owned, .reason = EXIT_CR_ACCESS,
	  .qual = QCR(0, QCR_LMSW, 0) | (0x33u << 16), .check = C_QUAL | C_LEN },
	{ .name = "PAUSE with PAUSE exiting: exit 40, length 2", .sdm = "25.1.3", .body = &b_pause_body,
	  .proc = PROC_PAUSE, .reason = EXIT_PAUSE, .check = C_LEN },
	{ .name = "RDPMC with RDPMC exiting: exit 15, length 2", .sdm = "25.1.3", .body = &b_rdpmc_body,
	  .proc = PROC_RDPMC, .reason = EXIT_RDPMC, .check = C_LEN },
	{ .name = "OUT 80H with its I/O-bitmap bit set: exit 30", .sdm = "25.1.3, 24.6.4",
	  .body = &b_out_imm_body, .proc = PROC_IO_BITMAPS, .setup = io_bitmaps, .arg = 0x80,
	  .reason = EXIT_IO, .qual = QIO_SIZE(1) | QIO_IMM | QIO_PORT(0x80), .check = C_QUAL | C_LEN },
	{ .name = "OUT 81H with its I/O-bitmap bit clear: no exit", .sdm = "25.1.3, 24.6.4",
	  .body = &b_out_81_body, .proc = PROC_IO_BITMAPS, .setup = io_bitmaps, .arg = 0x80,
	  .reason = EXIT_VMCALL, .check = C_RIP_NEXT },
	{ .name = "RDMSR 10H with MSR bitmaps, its read bit clear: no exit", .sdm = "25.1.3, 24.6.9",
	  .body = &b_rdmsr_body, .proc = PROC_MSR_BITMAPS, .setup = msr_bitmaps, .arg = 0x10,
	  .reason = EXIT_VMCALL, .check = C_RIP_NEXT },
	{ .name = "RDMSR 10H with its read bit set: exit 31", .sdm = "25.1.3, 24.6.9", .body = &b_rdmsr_body,
	  .proc = PROC_MSR_BITMAPS, .setup = msr_bitmaps, .arg = 0x40000010u, .reason = EXIT_RDMSR,
	  .check = C_LEN },
	{ .name = "WRMSR 1B0H with its write bit set: exit 32", .sdm = "25.1.3, 24.6.9", .body = &b_wrmsr_body,
	  .proc = PROC_MSR_BITMAPS, .setup = msr_bitmaps, .arg = 0xc00001b0u, .reason = EXIT_WRMSR,
	  .check = C_LEN },
	{ .name = "VMXOFF in L2: exit 26", .sdm = "25.1.2, 30.3 VMXOFF", .body = &b_vmxoff_body,
	  .reason = EXIT_VMXOFF, .check = C_LEN },
	{ .name = "VMLAUNCH in L2: exit 20", .sdm = "25.1.2, 30.3 VMLAUNCH", .body = &b_vmlaunch_body,
	  .reason = EXIT_VMLAUNCH, .check = C_LEN },
	{ .name = "VMPTRST in L2: exit 22", .sdm = "25.1.2, 30.3 VMPTRST", .body = &b_vmptrst_body,
	  .reason = EXIT_VMPTRST, .check = C_LEN },
	{ .name = "VMREAD EDX, ECX in L2: exit 23, Table 27-14 (reg1 EDX, register, reg2 ECX)",
	  .sdm = "25.1.2, 27.2.4", .body = &b_vmread_reg_body, .reason = EXIT_VMREAD,
	  .info = II_REG1(2) | II_REGISTER | II_REG2(1), .info_mask = 0xf0000478u, .check = C_INFO | C_LEN },
	{ .name = "VMCLEAR [EBX] in L2: exit 19, Table 27-13 (DS, base EBX, no index), displacement 0",
	  .sdm = "25.1.2, 27.2.1, 27.2.4", .body = &b_vmclear_mem_body, .reason = EXIT_VMCLEAR, .qual = 0,
	  .info = II_ASIZE32 | II_SEG_DS | II_NO_INDEX | II_BASE(3), .info_mask = II_MEM_NOIDX_MASK,
	  .check = C_QUAL | C_INFO | C_LEN },
	{ .name = "VMPTRLD [ESI + EDI*4 + 10H] in L2: exit 21, scaling 2, displacement 10H",
	  .sdm = "25.1.2, 27.2.1, 27.2.4", .body = &b_vmptrld_sib_body, .reason = EXIT_VMPTRLD, .qual = 0x10,
	  .info = II_SCALE(2) | II_ASIZE32 | II_SEG_DS | II_INDEX(7) | II_BASE(6), .info_mask = II_MEM_MASK,
	  .check = C_QUAL | C_INFO | C_LEN },
	{ .name = "INVEPT ECX, [EBX] in L2: exit 50, Table 27-9 (reg2 ECX)", .sdm = "25.1.2, 27.2.4",
	  .body = &b_invept_body, .reason = EXIT_INVEPT, .qual = 0,
	  .info = II_ASIZE32 | II_SEG_DS | II_NO_INDEX | II_BASE(3) | II_REG2(1),
	  .info_mask = II_MEM_NOIDX_MASK | II_REG2_MASK, .check = C_QUAL | C_INFO | C_LEN, .skip = need_invept },
	/* 25.2, 27.2.2: the exception bitmap. */
	{ .name = "UD2 with #UD in the exception bitmap: exit 0, hardware exception 6", .sdm = "25.2, 27.2.2",
	  .body = &b_ud2_body, .exc_bitmap = EXC(6), .reason = EXIT_EXCEPTION_NMI,
	  .intr = INTR_VALID | INTR_TYPE_HW_EXC | 6, .check = C_INTR },
	{ .name = "#PF in the exception bitmap: error code, qualification = linear address, CR2 kept",
	  .sdm = "25.2, 27.2.1, 27.2.2, 27.1", .body = &b_pf_body, .exc_bitmap = EXC(14),
	  .setup = cr2_sentinel, .reason = EXIT_EXCEPTION_NMI,
	  .intr = INTR_VALID | INTR_ERROR_VALID | INTR_TYPE_HW_EXC | 14, .intr_err = 0, .qual = 0x40000010u,
	  .check = C_INTR | C_INTR_ERR | C_QUAL, .extra = cr2_kept },
	{ .name = "INT3 with #BP in the exception bitmap: software exception, length 1", .sdm = "27.2.2, 27.2.4",
	  .body = &b_int3_body, .exc_bitmap = EXC(3), .reason = EXIT_EXCEPTION_NMI,
	  .intr = INTR_VALID | INTR_TYPE_SW_EXC | 3, .check = C_INTR | C_LEN },
	/* 26.2: checks on the controls and the host state: VMfailValid. */
	{ .name = "pin-based default1 bit 1 cleared: VMfailValid(7)", .sdm = "26.2.1.1", .body = &b_nop_body,
	  .setup = pin_reserved_0, .vmfail = VMERR_ENTRY_BAD_CONTROLS, .check = C_VMFAIL },
	{ .name = "host CR4.VMXE = 0: VMfailValid(8)", .sdm = "26.2.2", .body = &b_nop_body,
	  .setup = host_cr4_no_vmxe, .vmfail = VMERR_ENTRY_BAD_HOST, .check = C_VMFAIL },
	/* 26.3, 26.4, 26.8: failures after the host checks: an exit with bit 31. */
	{ .name = "guest CR0.PE = 0 without unrestricted guest: exit 33 | bit 31 at HOST_RIP",
	  .sdm = "26.3.1.1, 26.8", .body = &b_nop_body, .setup = guest_real,
	  .reason = EXIT_FAILED_ENTRY | EXIT_INVALID_GUEST, .qual = 0, .check = C_QUAL | C_ENTRY_FAIL,
	  .extra = host_back },
	{ .name = "MSR-load entry 2 with reserved bits: exit 34 | bit 31, qualification 2",
	  .sdm = "26.4, 26.8", .body = &b_nop_body, .setup = bad_msr_entry,
	  .reason = EXIT_FAILED_ENTRY | EXIT_MSR_LOADING, .qual = 2, .check = C_QUAL | C_ENTRY_FAIL,
	  .extra = host_back },
	/* Last: an L2 HLT that does not exit halts the machine (IF = 0). */
	{ .name = "HLT with HLT exiting: exit 12, length 1", .sdm = "25.1.3", .body = &b_hlt_body,
	  .proc = PROC_HLT, .reason = EXIT_HLT, .check = C_LEN },
};

void guest_main(void)
{
	vmx_host_init();
	l1_cr3_copy = read_cr3();
	if (!vmx_on())
		skip_all("VMXON failed");
	RUN_ROWS(rows);
}
