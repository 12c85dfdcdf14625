/* Check suite for vmx_exit_decide (vmx/intercepts.c): which events are VM
 * exits under the current VMCS (SDM Vol.3 25.1, 25.2, 25.3) and the exit
 * information they report (SDM Vol.3 27.2), as table rows
 *   {name, SDM section, VMCS set-up, machine set-up, exit record, expected}
 * where the expected outcome is an exit (reason, qualification, guest-linear
 * and guest-physical address, interruption and IDT-vectoring information,
 * instruction length and information: every field compared, fields a row
 * does not name must be 0), no exit (ST_OK, possibly with the value a read
 * returns: read shadows), an exception (ST_FAULT with its vector) or the
 * access virtualized (ST_HANDLED: TPR shadow).
 *
 * The records are filled as emu/intercept.c fills them (tests/unit/
 * test_exit_record.c checks that against real instruction bytes); the
 * instruction-information rows give the operand as the decoder reports it
 * and the SDM's bit fields as hex, decomposed in a comment. The 32-bit
 * guest-linear wrap is tested end to end: real instruction bytes executed by
 * the core with vmx_exit_decide as the intercept hook.
 *
 * Physical layout (machine_fixture.h's 4 MiB):
 *   100000H VMCS   110000H I/O bitmap A   111000H I/O bitmap B
 *   112000H MSR bitmaps   113000H virtual-APIC page
 *   114000H VMREAD bitmap   115000H VMWRITE bitmap
 */
#include <check.h>
#include <string.h>

#include "emu/apic.h"
#include "emu/hv.h"
#include "machine_fixture.h"
#include "mmu/nested.h"
#include "mmu/x86_vmx.h"
#include "suite_runner.h"
#include "vmx/bitmaps.h"
#include "vmx/exit_reasons.h"
#include "vmx/model.h"

#define VMCS_PA    0x100000u
#define IO_A       0x110000u
#define IO_B       0x111000u
#define MSR_MAP    0x112000u
#define VAPIC      0x113000u
#define VMREAD_MAP 0x114000u
#define VMWRITE_MAP 0x115000u
#define RIP0       0x401000u

struct world {
	struct test_machine m;
	struct vmx *vmx;
};

/* A 32-bit protected-mode CPU (machine_fixture.h) with the VMX model and a
 * current VMCS whose fields are all 0. */
static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	machine_init(&w->m, "skylake-lite");
	w->vmx = vmx_create(&w->m.cpu, 0);
	ck_assert_ptr_nonnull(w->vmx);
	uint64_t basic = vmx_cap(w->vmx, MSR_VMX_BASIC);
	physmem_write(&w->m.pm, VMCS_PA, 4, basic & VMX_BASIC_REVISION_MASK);
	vmcs_make_current(w->vmx, VMCS_PA);
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		vmcs_set(w->vmx, (enum vmcs_row)row, 0);
}

static void world_free(struct world *w)
{
	vmx_destroy(w->vmx);
	machine_free(&w->m);
}

/* ---- rows ---- */

struct vmcs_pair {
	bool on;
	uint16_t row;              /* enum vmcs_row */
	uint64_t value;
};

struct row {
	const char *name;
	const char *sdm;           /* the section the row checks */
	struct vmcs_pair set[6];
	void (*setup)(struct world *w);
	struct exit_record rec;
	status_t st;               /* the answer expected */
	uint8_t fault;             /* ST_FAULT: the vector raised */
	bool check_value;          /* ST_OK / ST_HANDLED: rec.value afterwards */
	uint64_t value;
	struct vmx_exit x;         /* ST_VMEXIT: guest_rip is rec.rip */
	void (*after)(struct world *w);   /* more checks of the machine afterwards */
};

#define SET(r, v) { true, VMCS_ROW_##r, (v) }
#define P(bit) VMX_CTL(VMX_PROC_##bit)
#define P2(bit) VMX_CTL(VMX_PROC2_##bit)
#define PIN(bit) VMX_CTL(VMX_PIN_##bit)
#define PROC(bits) SET(PRIMARY_PROC_CONTROLS, (bits))
/* Secondary controls, activated (and primary controls besides). */
#define PROC2(prim, bits) SET(PRIMARY_PROC_CONTROLS, (prim) | P(SECONDARY_CONTROLS)), \
			  SET(SECONDARY_PROC_CONTROLS, (bits))
#define INSN(k, len) .kind = (k), .rip = RIP0, .next_rip = RIP0 + (len)
#define NOEXIT .st = ST_OK
#define UD .st = ST_FAULT, .fault = EXC_UD
#define EXIT(r, ...) .st = ST_VMEXIT, .x = { .reason = VMX_EXIT_##r, __VA_ARGS__ }
/* A memory operand as the decoder reports it (REG_NONE: no base / index);
 * the last arguments: the operand size, then other operand fields. */
#define MEMOP(sg, b, i, sc, d, as, ...) .op = { .mem = true, .seg = (sg), .base = (b), .index = (i), \
	.scale = (sc), .disp = (d), .asize = (as), .osize = __VA_ARGS__ }
#define REGOP(g, as, ...) .op = { .gpr = (g), .asize = (as), .osize = __VA_ARGS__ }
#define NB REG_NONE

#define CR(n, acc, v) .cr = (n), .cr_access = (acc), .value = (v)
#define VALUE(v) .check_value = true, .value = (v)

#define IO(p, sz, in_, imm) .port = (p), .io_size = (sz), .io_in = (in_), .io_imm = (imm)
#define BITMAPS SET(IO_BITMAP_A, IO_A), SET(IO_BITMAP_B, IO_B)
#define MSRMAP SET(MSR_BITMAP, MSR_MAP)

static void set_bit(struct world *w, uint64_t base, uint32_t n)
{
	uint64_t byte = base + n / 8;
	physmem_write(&w->m.pm, byte, 1, physmem_read(&w->m.pm, byte, 1) | (1u << (n % 8)));
}
static void io_3f9(struct world *w) { set_bit(w, IO_A, 0x3f9); }
static void io_8000(struct world *w) { set_bit(w, IO_B, 0x8000 - 0x8000); }
static void io_ffff_0000(struct world *w) { set_bit(w, IO_B, 0xffff - 0x8000); set_bit(w, IO_A, 0); }
static void basic(struct world *w, bool ins_outs_info)
{
	uint64_t *b = &w->vmx->caps[MSR_VMX_BASIC - MSR_VMX_FIRST];
	*b = ins_outs_info ? *b | VMX_BASIC_INS_OUTS_INFO : *b & ~VMX_BASIC_INS_OUTS_INFO;
}
static void ins_outs_info(struct world *w) { basic(w, true); }
static void no_ins_outs_info(struct world *w) { basic(w, false); }
/* SDM Vol.3 24.6.9: read low 000H, read high 400H, write low 800H, write
 * high C00H. */
static void msr_bits(struct world *w)
{
	set_bit(w, MSR_MAP, 0x10);                          /* read TSC */
	set_bit(w, MSR_MAP + 0x800, 0x174);                 /* write SYSENTER_CS */
	set_bit(w, MSR_MAP + 0x400, 0x80);                  /* read EFER */
	set_bit(w, MSR_MAP + 0xc00, 0x100);                 /* write FS.base */
	set_bit(w, MSR_MAP + 0x400, 0x1fff);                /* read C0001FFFH */
}

#define EV(t, vec) .event = { .pending = true, .type = (t), .vector = (vec) }
#define EV_ERR(vec, e) .event = { .pending = true, .type = EV_EXCEPTION, .vector = (vec), .has_error = true, \
				  .error_code = (e) }
#define EVENT(k) .kind = (k), .rip = RIP0, .next_rip = RIP0
#define PF(e, addr) EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, \
	.has_error = true, .error_code = (e), .cr2 = (addr) }
#define VECTORING(t, vec, len) .vectoring_valid = true, .vectoring = { .pending = true, .type = (t), \
	.vector = (vec), .insn_len = (len) }
#define BITMAP(bits) SET(EXCEPTION_BITMAP, (bits))
/* EPT violation record: gpa, gla, and the nested fault's other fields. */
#define EPT(gpa_, gla_, ...) EVENT(IK_STAGE2_FAULT), .fault = { .stage = FAULT_STAGE2, .nested = { .gpa = (gpa_), \
	.gla = (gla_), .ept = true, __VA_ARGS__ } }

static int ack_41(void *ctx) { (void)ctx; return 0x41; }
static int ack_none(void *ctx) { (void)ctx; return -1; }
static void intr_41(struct world *w) { w->m.cpu.intr_ack = ack_41; }
static void intr_gone(struct world *w) { w->m.cpu.intr_ack = ack_none; }
static void ept_caps(struct world *w, bool advanced)
{
	uint64_t *c = &w->vmx->caps[MSR_VMX_EPT_VPID_CAP - MSR_VMX_FIRST];
	*c = advanced ? *c | EPT_CAP_ADV_INFO : *c & ~EPT_CAP_ADV_INFO;
}
static void ept_basic(struct world *w) { ept_caps(w, false); }
static void ept_advanced(struct world *w) { ept_caps(w, true); }

static void rcx_4002(struct world *w) { w->m.cpu.regs[R_CX] = 0x4002; }
static void vmread_bit_4002(struct world *w)
{
	rcx_4002(w);
	physmem_write(&w->m.pm, VMREAD_MAP + 0x4002 / 8, 1, 1u << (0x4002 % 8));
}
/* In 64-bit mode bits 63:15 count (the world is 32-bit: go to 64-bit). */
static void rcx_high(struct world *w)
{
	activate(&w->m);
	to64(&w->m);
	w->m.cpu.regs[R_CX] = 0x100004002ull;
}

static void ecx_4002_high_ignored(struct world *w) { w->m.cpu.regs[R_CX] = 0x100004002ull; }

static void monitor_armed(struct world *w) { w->m.cpu.monitor_armed = true; }
static void cr0_ts(struct world *w) { w->m.cpu.cr0 |= CR0_TS; }
static void vtpr_5a(struct world *w)
{
	vmcs_set(w->vmx, VMCS_ROW_VIRTUAL_APIC_ADDR, VAPIC);
	physmem_write(&w->m.pm, VAPIC + 0x80, 4, 0x5a);
}
/* SDM Vol.3 29.3: MOV to CR8 wrote VTPR[7:4] = 3, the rest 0, and 3 is below
 * the threshold 4: the TPR-below-threshold exit is armed (29.1.2). */
static void vtpr_3_armed(struct world *w)
{
	ck_assert_uint_eq(physmem_read(&w->m.pm, VAPIC + 0x80, 4), 0x30);
	ck_assert(w->m.cpu.hv_armed & HV_ARM_TPR_THRESHOLD);
}
static void vtpr_4_not_armed(struct world *w)
{
	ck_assert_uint_eq(physmem_read(&w->m.pm, VAPIC + 0x80, 4), 0x40);
	ck_assert(!(w->m.cpu.hv_armed & HV_ARM_TPR_THRESHOLD));
}
static void fn1_in_eax(struct world *w) { w->m.cpu.regs[R_AX] = 1; }

static const struct row rows[] = {
	/* ---- 25.1.2: unconditional exits, with their instruction information ---- */
	{ "cpuid", "25.1.2", { { 0 } }, NULL, { INSN(IK_CPUID, 2) }, EXIT(CPUID, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "invd", "25.1.2", { { 0 } }, NULL, { INSN(IK_INVD, 2) }, EXIT(INVD, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "xsetbv", "25.1.2", { { 0 } }, NULL, { INSN(IK_XSETBV, 3) }, EXIT(XSETBV, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	{ "vmcall", "25.1.2", { { 0 } }, NULL, { INSN(IK_VMCALL, 3) }, EXIT(VMCALL, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	{ "vmlaunch", "25.1.2", { { 0 } }, NULL, { INSN(IK_VMLAUNCH, 3) }, EXIT(VMLAUNCH, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	/* vmptrld [rax]: Table 27-13 asize 64 (2 << 7), DS (3 << 15), index
	 * invalid (22), base RAX (0 << 23); no displacement: qualification 0 */
	{ "vmptrld [rax]", "27.2.5 Table 27-13", { { 0 } }, NULL,
	  { INSN(IK_VMPTRLD, 3), MEMOP(SR_DS, 0, NB, 0, 0, 8, 8) },
	  EXIT(VMPTRLD, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x00418100) },
	/* vmclear es:[ebx-4] (32-bit): asize 32 (1 << 7), ES (0), index invalid,
	 * base EBX (3 << 23); displacement -4 sign-extended to 64 bits */
	{ "vmclear es:[ebx-4]", "27.2.1 Table 27-1, 27.2.5 Table 27-13", { { 0 } }, NULL,
	  { INSN(IK_VMCLEAR, 5), MEMOP(SR_ES, R_BX, NB, 0, -4, 4, 4) },
	  EXIT(VMCLEAR, .saved_rf = VMX_RF_CLEAR, .insn_len = 5, .qualification = 0xfffffffffffffffcull, .insn_info = 0x01c00080) },
	/* vmxon [rsp+rbp*8+0x12345678]: scale 3, asize 64, SS (2 << 15), index RBP
	 * (5 << 18), base RSP (4 << 23) */
	{ "vmxon [rsp+rbp*8+disp32]", "27.2.5 Table 27-13", { { 0 } }, NULL,
	  { INSN(IK_VMXON, 9), MEMOP(SR_SS, R_SP, R_BP, 3, 0x12345678, 8, 8) },
	  EXIT(VMXON, .saved_rf = VMX_RF_CLEAR, .insn_len = 9, .qualification = 0x12345678, .insn_info = 0x02150103) },
	/* vmptrst [rip+0x100]: RIP-relative: base and index invalid, the
	 * qualification is the displacement plus the next instruction's RIP */
	{ "vmptrst [rip+disp]", "27.2.1 Table 27-1 (RIP-relative)", { { 0 } }, NULL,
	  { INSN(IK_VMPTRST, 7), MEMOP(SR_DS, REG_RIP, NB, 0, 0x100, 8, 8) },
	  EXIT(VMPTRST, .saved_rf = VMX_RF_CLEAR, .insn_len = 7, .qualification = RIP0 + 7 + 0x100, .insn_info = 0x08418100) },
	/* vmread rbx, rcx: Table 27-14 register (bit 10), reg1 RBX (3 << 3),
	 * reg2 RCX (1 << 28) */
	{ "vmread rbx, rcx", "27.2.5 Table 27-14", { { 0 } }, NULL,
	  { INSN(IK_VMREAD, 3), REGOP(R_BX, 8, 8, .reg = R_CX) },
	  EXIT(VMREAD, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x10000418) },
	/* vmwrite r15, [r8+r9*2-0x80]: scale 1, asize 64, DS, index R9 (9 << 18),
	 * base R8 (8 << 23), reg2 R15 (15 << 28) */
	{ "vmwrite r15, [r8+r9*2-0x80]", "27.2.5 Table 27-14", { { 0 } }, NULL,
	  { INSN(IK_VMWRITE, 6), MEMOP(SR_DS, 8, 9, 1, -0x80, 8, 8, .reg = 15) },
	  EXIT(VMWRITE, .saved_rf = VMX_RF_CLEAR, .insn_len = 6, .qualification = 0xffffffffffffff80ull, .insn_info = 0xf4258101) },
	/* 25.1.3: with VMCS shadowing the VMREAD/VMWRITE bitmaps decide, by
	 * bits 14:0 of the encoding in reg2 (RCX: 4002H, the world sets it) */
	{ "vmread, VMCS shadowing, bitmap bit clear", "25.1.3 VMREAD",
	  { PROC2(0, P2(VMCS_SHADOWING)), SET(VMREAD_BITMAP, VMREAD_MAP), SET(VMWRITE_BITMAP, VMWRITE_MAP) },
	  rcx_4002, { INSN(IK_VMREAD, 3), REGOP(R_BX, 8, 8, .reg = R_CX) }, NOEXIT },
	{ "vmread, VMCS shadowing, bitmap bit set", "25.1.3 VMREAD",
	  { PROC2(0, P2(VMCS_SHADOWING)), SET(VMREAD_BITMAP, VMREAD_MAP), SET(VMWRITE_BITMAP, VMWRITE_MAP) },
	  vmread_bit_4002, { INSN(IK_VMREAD, 3), REGOP(R_BX, 8, 8, .reg = R_CX) },
	  EXIT(VMREAD, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x10000418) },
	{ "vmwrite, VMCS shadowing: only the VMREAD bit set", "25.1.3 VMWRITE",
	  { PROC2(0, P2(VMCS_SHADOWING)), SET(VMREAD_BITMAP, VMREAD_MAP), SET(VMWRITE_BITMAP, VMWRITE_MAP) },
	  vmread_bit_4002, { INSN(IK_VMWRITE, 3), REGOP(R_BX, 8, 8, .reg = R_CX) }, NOEXIT },
	{ "vmwrite, VMCS shadowing, encoding bits 63:15 set", "25.1.3 VMWRITE",
	  { PROC2(0, P2(VMCS_SHADOWING)), SET(VMREAD_BITMAP, VMREAD_MAP), SET(VMWRITE_BITMAP, VMWRITE_MAP) },
	  rcx_high, { INSN(IK_VMWRITE, 3), REGOP(R_BX, 8, 8, .reg = R_CX) },
	  EXIT(VMWRITE, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x10000418) },
	{ "vmwrite, VMCS shadowing, 32-bit mode: bits 63:32 do not count", "25.1.3 VMWRITE",
	  { PROC2(0, P2(VMCS_SHADOWING)), SET(VMREAD_BITMAP, VMREAD_MAP), SET(VMWRITE_BITMAP, VMWRITE_MAP) },
	  ecx_4002_high_ignored, { INSN(IK_VMWRITE, 3), REGOP(R_BX, 4, 4, .reg = R_CX) }, NOEXIT },
	/* invept rcx, [rdi+r12*2+0x10]: Table 27-9 */
	{ "invept rcx, [rdi+r12*2+0x10]", "27.2.5 Table 27-9", { { 0 } }, NULL,
	  { INSN(IK_INVEPT, 7), MEMOP(SR_DS, R_DI, 12, 1, 0x10, 8, 8, .reg = R_CX) },
	  EXIT(INVEPT, .saved_rf = VMX_RF_CLEAR, .insn_len = 7, .qualification = 0x10, .insn_info = 0x13b18101) },
	/* invvpid eax, [bx+si] (16-bit addressing): asize 16 (0), DS, index SI
	 * (6 << 18), base BX (3 << 23), reg2 EAX */
	{ "invvpid eax, [bx+si]", "27.2.5 Table 27-9", { { 0 } }, NULL,
	  { INSN(IK_INVVPID, 6), MEMOP(SR_DS, R_BX, R_SI, 0, 0, 2, 4, .reg = R_AX) },
	  EXIT(INVVPID, .saved_rf = VMX_RF_CLEAR, .insn_len = 6, .insn_info = 0x01998000) },

	/* ---- 25.1.3: the primary processor-based controls ---- */
	{ "hlt", "25.1.3 HLT exiting = 0", { PROC(0) }, NULL, { INSN(IK_HLT, 1) }, NOEXIT },
	{ "hlt exiting", "25.1.3 HLT exiting", { PROC(P(HLT_EXITING)) }, NULL, { INSN(IK_HLT, 1) },
	  EXIT(HLT, .saved_rf = VMX_RF_CLEAR, .insn_len = 1) },
	{ "rdpmc exiting", "25.1.3 RDPMC exiting", { PROC(P(RDPMC_EXITING)) }, NULL, { INSN(IK_RDPMC, 2) },
	  EXIT(RDPMC, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdpmc", "25.1.3", { PROC(P(RDTSC_EXITING)) }, NULL, { INSN(IK_RDPMC, 2) }, NOEXIT },
	{ "rdtsc exiting", "25.1.3 RDTSC exiting", { PROC(P(RDTSC_EXITING)) }, NULL, { INSN(IK_RDTSC, 2) },
	  EXIT(RDTSC, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdtsc with TSC offsetting", "25.3 (offset applied, no exit)", { PROC(P(TSC_OFFSETTING)) }, NULL,
	  { INSN(IK_RDTSC, 2) }, NOEXIT },
	/* 25.3: the #UD of a disabled RDTSCP/INVPCID is asked before the
	 * instruction's own checks (its priority over them); the exit after. */
	{ "rdtscp not enabled is #UD", "25.3 RDTSCP", { PROC(P(RDTSC_EXITING)) }, NULL,
	  { INSN(IK_RDTSCP, 3), .phase = PHASE_BEFORE_CHECKS }, UD },
	{ "rdtscp enabled, secondary controls inactive is #UD", "24.6.2, 25.3",
	  { PROC(P(RDTSC_EXITING)), SET(SECONDARY_PROC_CONTROLS, P2(RDTSCP)) }, NULL, { INSN(IK_RDTSCP, 3), .phase = PHASE_BEFORE_CHECKS }, UD },
	{ "rdtscp enabled: no exit before its own checks", "25.1.1, 25.3", { PROC2(P(RDTSC_EXITING), P2(RDTSCP)) },
	  NULL, { INSN(IK_RDTSCP, 3), .phase = PHASE_BEFORE_CHECKS }, NOEXIT },
	{ "rdtscp enabled, rdtsc exiting", "25.1.3 RDTSCP", { PROC2(P(RDTSC_EXITING), P2(RDTSCP)) }, NULL,
	  { INSN(IK_RDTSCP, 3) }, EXIT(RDTSCP, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	{ "rdtscp enabled", "25.3 RDTSCP", { PROC2(0, P2(RDTSCP)) }, NULL, { INSN(IK_RDTSCP, 3) }, NOEXIT },
	/* 25.3: RDPID is #UD with "enable RDTSCP" 0 too; it never exits. */
	{ "rdpid not enabled is #UD", "25.3 RDPID", { PROC(0) }, NULL,
	  { INSN(IK_RDPID, 4), .phase = PHASE_BEFORE_CHECKS }, UD },
	{ "rdpid enabled", "25.3 RDPID", { PROC2(P(RDTSC_EXITING), P2(RDTSCP)) }, NULL,
	  { INSN(IK_RDPID, 4), .phase = PHASE_BEFORE_CHECKS }, NOEXIT },
	{ "rdpid enabled, rdtsc exiting: no exit", "25.1.3", { PROC2(P(RDTSC_EXITING), P2(RDTSCP)) }, NULL,
	  { INSN(IK_RDPID, 4) }, NOEXIT },
	/* 25.1.3 "RDRAND exiting", "RDSEED exiting"; 27.2.5 Table 27-12: the
	 * register in bits 6:3, the operand size in 12:11 (0 16, 1 32, 2 64). */
	{ "rdrand", "25.1.3", { PROC2(0, P2(RDSEED_EXITING)) }, NULL,
	  { INSN(IK_RDRAND, 4), REGOP(R_BX, 8, 8) }, NOEXIT },
	{ "rdrand exiting, rbx", "25.1.3 RDRAND exiting, Table 27-12", { PROC2(0, P2(RDRAND_EXITING)) }, NULL,
	  { INSN(IK_RDRAND, 4), REGOP(R_BX, 8, 8) }, EXIT(RDRAND, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .insn_info = 0x1018) },
	{ "rdrand exiting, secondary controls inactive", "24.6.2", { SET(SECONDARY_PROC_CONTROLS, P2(RDRAND_EXITING)) },
	  NULL, { INSN(IK_RDRAND, 3), REGOP(R_AX, 4, 4) }, NOEXIT },
	{ "rdseed exiting, r13w", "25.1.3 RDSEED exiting, Table 27-12", { PROC2(0, P2(RDSEED_EXITING)) }, NULL,
	  { INSN(IK_RDSEED, 5), REGOP(13, 8, 2) }, EXIT(RDSEED, .saved_rf = VMX_RF_CLEAR, .insn_len = 5, .insn_info = 0x68) },
	{ "rdseed exiting, eax", "25.1.3 RDSEED exiting, Table 27-12", { PROC2(0, P2(RDSEED_EXITING)) }, NULL,
	  { INSN(IK_RDSEED, 3), REGOP(R_AX, 4, 4) }, EXIT(RDSEED, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x800) },
	{ "mwait exiting, monitor armed", "27.2.1 MWAIT qualification", { PROC(P(MWAIT_EXITING)) }, monitor_armed,
	  { INSN(IK_MWAIT, 3) }, EXIT(MWAIT, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 1) },
	{ "mwait exiting, not armed", "27.2.1 MWAIT qualification", { PROC(P(MWAIT_EXITING)) }, NULL,
	  { INSN(IK_MWAIT, 3) }, EXIT(MWAIT, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	{ "mwait", "25.1.3", { PROC(P(MONITOR_EXITING)) }, NULL, { INSN(IK_MWAIT, 3) }, NOEXIT },
	{ "monitor exiting", "25.1.3 MONITOR exiting", { PROC(P(MONITOR_EXITING)) }, NULL, { INSN(IK_MONITOR, 3) },
	  EXIT(MONITOR, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	{ "pause exiting", "25.1.3 PAUSE exiting", { PROC(P(PAUSE_EXITING)) }, NULL, { INSN(IK_PAUSE, 2) },
	  EXIT(PAUSE, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "pause", "25.1.3", { PROC(0) }, NULL, { INSN(IK_PAUSE, 2) }, NOEXIT },
	/* invlpg [rax] in 64-bit mode: the full linear address */
	{ "invlpg exiting 64-bit", "27.2.1 Table 27-1 INVLPG", { PROC(P(INVLPG_EXITING)) }, NULL,
	  { INSN(IK_INVLPG, 3), MEMOP(SR_DS, R_AX, NB, 0, 0, 8, 8, .offset = 0xffff800000001000ull,
				      .linear = 0xffff800000001000ull) },
	  EXIT(INVLPG, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0xffff800000001000ull) },
	{ "invlpg", "25.1.3", { PROC(0) }, NULL, { INSN(IK_INVLPG, 3), MEMOP(SR_DS, R_AX, NB, 0, 0, 8, 8) },
	  NOEXIT },

	/* ---- 25.1.3, 25.3: the secondary controls ---- */
	{ "wbinvd exiting", "25.1.3 WBINVD exiting", { PROC2(0, P2(WBINVD_EXITING)) }, NULL, { INSN(IK_WBINVD, 2) },
	  EXIT(WBINVD, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "wbinvd, secondary inactive", "24.6.2", { PROC(0), SET(SECONDARY_PROC_CONTROLS, P2(WBINVD_EXITING)) },
	  NULL, { INSN(IK_WBINVD, 2) }, NOEXIT },
	{ "invpcid not enabled is #UD", "25.3 INVPCID", { PROC(P(INVLPG_EXITING)) }, NULL,
	  { INSN(IK_INVPCID, 5), MEMOP(SR_DS, R_BX, NB, 0, 8, 8, 8, .reg = R_CX), .phase = PHASE_BEFORE_CHECKS }, UD },
	{ "invpcid enabled: no exit before its own checks", "25.1.1, 25.3", { PROC2(P(INVLPG_EXITING), P2(INVPCID)) },
	  NULL, { INSN(IK_INVPCID, 5), MEMOP(SR_DS, R_BX, NB, 0, 8, 8, 8, .reg = R_CX), .phase = PHASE_BEFORE_CHECKS }, NOEXIT },
	{ "invpcid enabled", "25.1.3 INVPCID", { PROC2(0, P2(INVPCID)) }, NULL,
	  { INSN(IK_INVPCID, 5), MEMOP(SR_DS, R_BX, NB, 0, 8, 8, 8, .reg = R_CX) }, NOEXIT },
	/* invpcid rcx, [rbx+8]: Table 27-9 asize 64, DS, index invalid, base RBX,
	 * reg2 RCX */
	{ "invpcid enabled, invlpg exiting", "25.1.3 INVPCID, Table 27-9", { PROC2(P(INVLPG_EXITING), P2(INVPCID)) },
	  NULL, { INSN(IK_INVPCID, 6), MEMOP(SR_DS, R_BX, NB, 0, 8, 8, 8, .reg = R_CX) },
	  EXIT(INVPCID, .saved_rf = VMX_RF_CLEAR, .insn_len = 6, .qualification = 8, .insn_info = 0x11c18100) },
	{ "sgdt, no descriptor-table exiting", "25.1.3", { PROC2(0, 0) }, NULL,
	  { INSN(IK_DESC_TABLE, 4), .desc = DESC_GDTR, MEMOP(SR_DS, R_BX, NB, 0, 0, 4, 4) }, NOEXIT },
	/* sgdt [ebx+esi*4-0x10]: Table 27-10 scale 2, asize 32 (1 << 7), operand
	 * size 32 (11), DS, index ESI (6 << 18), base EBX (3 << 23), SGDT (0) */
	{ "sgdt [ebx+esi*4-0x10]", "27.2.5 Table 27-10", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 4), .desc = DESC_GDTR, MEMOP(SR_DS, R_BX, R_SI, 2, -0x10, 4, 4) },
	  EXIT(GDTR_IDTR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .qualification = 0xfffffffffffffff0ull, .insn_info = 0x01998882) },
	/* lidt [bp+si+0x20] (16-bit addressing, 16-bit operand size): asize 16,
	 * operand size 16, SS (2 << 15), index SI, base BP (5 << 23), LIDT (3) */
	{ "lidt [bp+si+0x20] o16", "27.2.5 Table 27-10", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 4), .desc = DESC_IDTR, .desc_write = true, MEMOP(SR_SS, R_BP, R_SI, 0, 0x20, 2, 2) },
	  EXIT(GDTR_IDTR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .qualification = 0x20, .insn_info = 0x32990000) },
	/* sidt [rax] 64-bit: SIDT (1) */
	{ "sidt [rax]", "27.2.5 Table 27-10", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 3), .desc = DESC_IDTR, MEMOP(SR_DS, R_AX, NB, 0, 0, 8, 8) },
	  EXIT(GDTR_IDTR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x10418900) },
	/* lldt ax: Table 27-11 register (bit 10), reg1 AX (0), LLDT (2) */
	{ "lldt ax", "27.2.5 Table 27-11", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 3), .desc = DESC_LDTR, .desc_write = true, REGOP(R_AX, 4, 2) },
	  EXIT(LDTR_TR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x20000400) },
	/* str r9: register, reg1 R9 (9 << 3), STR (1) */
	{ "str r9", "27.2.5 Table 27-11", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 4), .desc = DESC_TR, REGOP(9, 8, 4) },
	  EXIT(LDTR_TR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .insn_info = 0x10000448) },
	/* ltr [rip+0x100]: LTR (3), RIP-relative */
	{ "ltr [rip+0x100]", "27.2.1, 27.2.5 Table 27-11", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 7), .desc = DESC_TR, .desc_write = true, MEMOP(SR_DS, REG_RIP, NB, 0, 0x100, 8, 2) },
	  EXIT(LDTR_TR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 7, .qualification = RIP0 + 7 + 0x100, .insn_info = 0x38418100) },
	/* sldt [esi] (memory): SLDT (0) */
	{ "sldt [esi]", "27.2.5 Table 27-11", { PROC2(0, P2(DESC_TABLE_EXITING)) }, NULL,
	  { INSN(IK_DESC_TABLE, 3), .desc = DESC_LDTR, MEMOP(SR_DS, R_SI, NB, 0, 0, 4, 2) },
	  EXIT(LDTR_TR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .insn_info = 0x03418080) },
	{ "vmfunc not enabled is #UD", "25.5.6", { PROC(0) }, NULL, { INSN(IK_VMFUNC, 3) }, UD },
	{ "vmfunc enabled function 0", "25.5.6", { PROC2(0, P2(VM_FUNCTIONS)), SET(VM_FUNCTION_CONTROLS, 1) },
	  NULL, { INSN(IK_VMFUNC, 3) }, NOEXIT },
	{ "vmfunc function 1 not enabled", "25.5.6", { PROC2(0, P2(VM_FUNCTIONS)), SET(VM_FUNCTION_CONTROLS, 1) },
	  fn1_in_eax, { INSN(IK_VMFUNC, 3) }, EXIT(VMFUNC, .saved_rf = VMX_RF_CLEAR, .insn_len = 3) },
	/* ---- 25.1.3, 25.3: CR0/CR4 guest/host masks and read shadows; the
	 * world's CR0 is PE|ET (11H), CR4 0 ---- */
	{ "mov cr0: owned bits as the shadow", "25.1.3 MOV to CR0, 25.3",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PG | CR0_PE), SET(CR0_READ_SHADOW, CR0_PG | CR0_PE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_MOV_TO, 0x80000031u), REGOP(R_BX, 4, 4) },
	  NOEXIT, VALUE(0x31) },
	/* qualification: CR0, MOV to CR (0), GPR EBX (3 << 8) */
	{ "mov cr0: owned PG differs from the shadow", "25.1.3 MOV to CR0, Table 27-3",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PG | CR0_PE), SET(CR0_READ_SHADOW, CR0_PG | CR0_PE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_MOV_TO, 0x31), REGOP(R_BX, 4, 4) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x300) },
	{ "mov cr0: unowned bits change freely", "25.1.3 MOV to CR0",
	  { SET(CR0_GUEST_HOST_MASK, CR0_CD), SET(CR0_READ_SHADOW, 0) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_MOV_TO, 0x80000033u), REGOP(R_AX, 4, 4) }, NOEXIT, VALUE(0x80000033u) },
	{ "mov eax, cr0: owned bits from the shadow", "25.3 MOV from CR0",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PG | CR0_PE), SET(CR0_READ_SHADOW, CR0_PG) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_MOV_FROM, 0x11), REGOP(R_AX, 4, 4) }, NOEXIT, VALUE(0x80000010u) },
	{ "smsw: owned bits from the shadow", "25.3 SMSW",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PE | CR0_TS), SET(CR0_READ_SHADOW, CR0_TS) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_SMSW, 0x11), REGOP(R_AX, 4, 2) }, NOEXIT, VALUE(0x18) },
	{ "mov cr4: VMXE owned, shadow 0, written 0", "25.1.3 MOV to CR4",
	  { SET(CR4_GUEST_HOST_MASK, CR4_VMXE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(4, CR_MOV_TO, CR4_PAE), REGOP(R_CX, 4, 4) }, NOEXIT, VALUE(CR4_PAE) },
	/* CR4 (4), GPR ECX (1 << 8) */
	{ "mov cr4: VMXE owned, shadow 0, written 1", "25.1.3 MOV to CR4, Table 27-3",
	  { SET(CR4_GUEST_HOST_MASK, CR4_VMXE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(4, CR_MOV_TO, CR4_PAE | CR4_VMXE), REGOP(R_CX, 4, 4) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x104) },
	{ "mov eax, cr4: VMXE hidden by the shadow", "25.3 MOV from CR4",
	  { SET(CR4_GUEST_HOST_MASK, CR4_VMXE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(4, CR_MOV_FROM, CR4_PAE | CR4_VMXE), REGOP(R_AX, 4, 4) },
	  NOEXIT, VALUE(CR4_PAE) },
	/* CLTS: access type 2 (5:4), CR 0 */
	{ "clts: TS owned, set in the shadow", "25.1.3 CLTS, Table 27-3",
	  { SET(CR0_GUEST_HOST_MASK, CR0_TS), SET(CR0_READ_SHADOW, CR0_TS) }, NULL,
	  { INSN(IK_CR_ACCESS, 2), CR(0, CR_CLTS, 0x11) }, EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0x20) },
	{ "clts: TS owned, clear in the shadow: TS stays", "25.3 CLTS",
	  { SET(CR0_GUEST_HOST_MASK, CR0_TS), SET(CR0_READ_SHADOW, 0) }, cr0_ts,
	  { INSN(IK_CR_ACCESS, 2), CR(0, CR_CLTS, 0x11) }, NOEXIT, VALUE(0x19) },
	{ "clts: TS not owned", "25.1.3 CLTS", { SET(CR0_READ_SHADOW, CR0_TS) }, cr0_ts,
	  { INSN(IK_CR_ACCESS, 2), CR(0, CR_CLTS, 0x11) }, NOEXIT, VALUE(0x11) },
	/* LMSW: access type 3, source data in 31:16 */
	{ "lmsw ax: owned TS differs", "25.1.3 LMSW, Table 27-3",
	  { SET(CR0_GUEST_HOST_MASK, CR0_TS), SET(CR0_READ_SHADOW, 0) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_LMSW, 0xf), REGOP(R_AX, 4, 2) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0xf0030) },
	/* memory operand (bit 6) and its guest-linear address */
	{ "lmsw [ebx]: owned PE set from 0", "25.1.3 LMSW, Table 27-3, 27.2.1 guest-linear",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PE), SET(CR0_READ_SHADOW, 0) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_LMSW, 0xfff1),
	    MEMOP(SR_DS, R_BX, NB, 0, 0, 4, 2, .offset = 0x2000, .linear = 0x2000) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0xfff10070u, .guest_linear = 0x2000) },
	{ "lmsw: owned PE, source 0, shadow 0: PE stays", "25.1.3 LMSW, 25.3",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PE), SET(CR0_READ_SHADOW, 0) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_LMSW, 0), REGOP(R_AX, 4, 2) }, NOEXIT, VALUE(1) },
	{ "lmsw cannot clear PE: no exit", "25.1.3 LMSW",
	  { SET(CR0_GUEST_HOST_MASK, CR0_PE), SET(CR0_READ_SHADOW, CR0_PE) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_LMSW, 0xe), REGOP(R_AX, 4, 2) }, NOEXIT, VALUE(0xf) },
	{ "lmsw before its operand (SVM's phase)", "25.1.1",
	  { SET(CR0_GUEST_HOST_MASK, 0xf), SET(CR0_READ_SHADOW, 0) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(0, CR_LMSW, 0), .phase = PHASE_BEFORE_OPERAND }, NOEXIT },

	/* ---- 25.1.3: CR3 load/store exiting and the CR3-target values ---- */
	{ "mov cr3, eax: load exiting, no targets", "25.1.3 MOV to CR3",
	  { PROC(P(CR3_LOAD_EXITING)) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_TO, 0x9000), REGOP(R_AX, 4, 4) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x3) },
	{ "mov cr3: target value 1 of 2", "25.1.3 MOV to CR3",
	  { PROC(P(CR3_LOAD_EXITING)), SET(CR3_TARGET_COUNT, 2), SET(CR3_TARGET_VALUE1, 0x9000) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_TO, 0x9000), REGOP(R_AX, 4, 4) }, NOEXIT },
	{ "mov cr3: target value 2 beyond a count of 2", "25.1.3 MOV to CR3",
	  { PROC(P(CR3_LOAD_EXITING)), SET(CR3_TARGET_COUNT, 2), SET(CR3_TARGET_VALUE2, 0x9000) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_TO, 0x9000), REGOP(R_AX, 4, 4) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x3) },
	{ "mov cr3: target value 3 of 4", "25.1.3 MOV to CR3",
	  { PROC(P(CR3_LOAD_EXITING)), SET(CR3_TARGET_COUNT, 4), SET(CR3_TARGET_VALUE3, 0x9000) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_TO, 0x9000), REGOP(R_AX, 4, 4) }, NOEXIT },
	{ "mov cr3: no load exiting", "25.1.3", { PROC(P(CR3_STORE_EXITING)) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_TO, 0x9000), REGOP(R_AX, 4, 4) }, NOEXIT },
	/* CR3, MOV from (1 << 4), GPR EBP (5 << 8) */
	{ "mov ebp, cr3: store exiting", "25.1.3 MOV from CR3, Table 27-3",
	  { PROC(P(CR3_STORE_EXITING)) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_FROM, 0x9000), REGOP(R_BP, 4, 4) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x513) },
	{ "mov eax, cr3: no store exiting", "25.1.3", { PROC(P(CR3_LOAD_EXITING)) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(3, CR_MOV_FROM, 0x9000), REGOP(R_AX, 4, 4) }, NOEXIT },
	{ "mov cr2: never exits", "25.1.3", { PROC(0xffffffffu), SET(CR0_GUEST_HOST_MASK, ~0ull) }, NULL,
	  { INSN(IK_CR_ACCESS, 3), CR(2, CR_MOV_TO, 0x1234), REGOP(R_AX, 4, 4) }, NOEXIT },

	/* ---- 25.1.3 CR8 load/store exiting; 29.3 TPR shadow ---- */
	{ "mov cr8, r9: load exiting", "25.1.3 MOV to CR8, Table 27-3", { PROC(P(CR8_LOAD_EXITING) | P(TPR_SHADOW)) },
	  NULL, { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_TO, 3), REGOP(9, 8, 8) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .qualification = 0x908) },
	{ "mov rax, cr8: store exiting", "25.1.3 MOV from CR8, Table 27-3", { PROC(P(CR8_STORE_EXITING)) }, NULL,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_FROM, 0), REGOP(R_AX, 8, 8) },
	  EXIT(CR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .qualification = 0x18) },
	{ "mov rax, cr8: TPR shadow reads VTPR[7:4]", "29.3", { PROC(P(TPR_SHADOW) | P(CR8_LOAD_EXITING)) }, vtpr_5a,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_FROM, 0), REGOP(R_AX, 8, 8) }, .st = ST_HANDLED, VALUE(5) },
	{ "mov cr8, rax: TPR shadow, below the threshold", "29.3, 29.1.2",
	  { PROC(P(TPR_SHADOW)), SET(TPR_THRESHOLD, 4) }, vtpr_5a,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_TO, 3), REGOP(R_AX, 8, 8) }, .st = ST_HANDLED, .after = vtpr_3_armed },
	{ "mov cr8, rax: TPR shadow, at the threshold", "29.3, 29.1.2",
	  { PROC(P(TPR_SHADOW)), SET(TPR_THRESHOLD, 4) }, vtpr_5a,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_TO, 4), REGOP(R_AX, 8, 8) }, .st = ST_HANDLED,
	  .after = vtpr_4_not_armed },
	{ "mov cr8, rax: TPR shadow, bits 63:4 set is #GP", "29.3",
	  { PROC(P(TPR_SHADOW)) }, vtpr_5a,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_TO, 0x10), REGOP(R_AX, 8, 8) }, .st = ST_FAULT, .fault = EXC_GP },
	{ "mov cr8: neither", "25.1.3", { PROC(0) }, NULL,
	  { INSN(IK_CR_ACCESS, 4), CR(8, CR_MOV_TO, 3), REGOP(R_AX, 8, 8) }, NOEXIT },

	/* ---- 25.1.3 MOV DR, asked before the instruction's own checks ---- */
	{ "mov dr7, eax: MOV-DR exiting", "25.1.3 MOV DR, Table 27-4", { PROC(P(MOV_DR_EXITING)) }, NULL,
	  { INSN(IK_DR_ACCESS, 3), CR(7, CR_MOV_TO, 0x400), REGOP(R_AX, 4, 4), .phase = PHASE_BEFORE_CHECKS },
	  EXIT(DR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x7) },
	/* DR6, MOV from (1 << 4), GPR EDX (2 << 8) */
	{ "mov edx, dr6: MOV-DR exiting", "25.1.3 MOV DR, Table 27-4", { PROC(P(MOV_DR_EXITING)) }, NULL,
	  { INSN(IK_DR_ACCESS, 3), CR(6, CR_MOV_FROM, 0xffff0ff0u), REGOP(R_DX, 4, 4), .phase = PHASE_BEFORE_CHECKS },
	  EXIT(DR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 3, .qualification = 0x216) },
	/* r13 (REX.B): 13 << 8 */
	{ "mov r13, dr4: MOV-DR exiting (before CR4.DE's #UD)", "25.1.3 MOV DR, Table 27-4",
	  { PROC(P(MOV_DR_EXITING)) }, NULL,
	  { INSN(IK_DR_ACCESS, 4), CR(4, CR_MOV_FROM, 0), REGOP(13, 8, 8), .phase = PHASE_BEFORE_CHECKS },
	  EXIT(DR_ACCESS, .saved_rf = VMX_RF_CLEAR, .insn_len = 4, .qualification = 0xd14) },
	{ "mov dr7: the checked phase is SVM's", "25.1.3 MOV DR", { PROC(P(MOV_DR_EXITING)) }, NULL,
	  { INSN(IK_DR_ACCESS, 3), CR(7, CR_MOV_TO, 0x400), REGOP(R_AX, 4, 4) }, NOEXIT },
	{ "mov dr7: no MOV-DR exiting", "25.1.3", { PROC(0) }, NULL,
	  { INSN(IK_DR_ACCESS, 3), CR(7, CR_MOV_TO, 0x400), REGOP(R_AX, 4, 4), .phase = PHASE_BEFORE_CHECKS },
	  NOEXIT },
	/* ---- 25.1.3 I/O: unconditional I/O exiting, the I/O bitmaps; Table 27-5 ---- */
	{ "out dx, al: no I/O controls", "25.1.3", { PROC(0) }, NULL,
	  { INSN(IK_IO, 1), IO(0x3f8, 1, false, false) }, NOEXIT },
	/* size 1 (0), OUT, DX, port 3F8H in 31:16 */
	{ "out dx, al: unconditional I/O exiting", "25.1.3, Table 27-5", { PROC(P(UNCOND_IO_EXITING)) }, NULL,
	  { INSN(IK_IO, 1), IO(0x3f8, 1, false, false) }, EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 1, .qualification = 0x03f80000) },
	/* size 4 (3), IN (3), immediate (6), port 60H */
	{ "in eax, 0x60: unconditional", "25.1.3, Table 27-5", { PROC(P(UNCOND_IO_EXITING)) }, NULL,
	  { INSN(IK_IO, 2), IO(0x60, 4, true, true) }, EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0x0060004b) },
	{ "out: I/O bitmaps override unconditional exiting", "25.1.3",
	  { PROC(P(UNCOND_IO_EXITING) | P(IO_BITMAPS)), BITMAPS }, io_3f9,
	  { INSN(IK_IO, 1), IO(0x3f8, 1, false, false) }, NOEXIT },
	{ "out dx, ax: the second port's bit", "25.1.3 I/O bitmaps, Table 27-5", { PROC(P(IO_BITMAPS)), BITMAPS },
	  io_3f9, { INSN(IK_IO, 2), IO(0x3f8, 2, false, false) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0x03f80001) },
	{ "out dx, eax at 7FFEH: bitmap B's first bit", "25.1.3 I/O bitmaps", { PROC(P(IO_BITMAPS)), BITMAPS },
	  io_8000, { INSN(IK_IO, 1), IO(0x7ffe, 4, false, false) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 1, .qualification = 0x7ffe0003) },
	{ "out dx, eax at 7FFCH: stays in bitmap A", "25.1.3 I/O bitmaps", { PROC(P(IO_BITMAPS)), BITMAPS },
	  io_8000, { INSN(IK_IO, 1), IO(0x7ffc, 4, false, false) }, NOEXIT },
	{ "in ax, dx at FFFFH: wraps, always exits", "25.1.3 I/O bitmaps (wrap)", { PROC(P(IO_BITMAPS)), BITMAPS },
	  NULL, { INSN(IK_IO, 2), IO(0xffff, 2, true, false) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0xffff0009) },
	{ "in al, dx at FFFFH: bitmap B's last bit", "25.1.3 I/O bitmaps", { PROC(P(IO_BITMAPS)), BITMAPS },
	  io_ffff_0000, { INSN(IK_IO, 1), IO(0xffff, 1, true, false) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 1, .qualification = 0xffff0008) },
	/* rep outsb (a32): string (4), REP (5), port 80H; Table 27-8 asize 32
	 * (1 << 7), DS (3 << 15); the guest-linear address */
	{ "rep outsb: Table 27-8 with IA32_VMX_BASIC[54]", "27.2.1, 27.2.5 Table 27-8",
	  { PROC(P(UNCOND_IO_EXITING)) }, ins_outs_info,
	  { INSN(IK_IO, 2), IO(0x80, 1, false, false), .io_string = true, .io_rep = true,
	    MEMOP(SR_DS, NB, NB, 0, 0, 4, 4, .offset = 0x5000, .linear = 0x45000) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0x00800030, .guest_linear = 0x45000,
	       .insn_info = 0x00018080) },
	{ "insw (a16): no instruction information without bit 54", "27.2.5 Table 27-8",
	  { PROC(P(UNCOND_IO_EXITING)) }, no_ins_outs_info,
	  { INSN(IK_IO, 2), IO(0x1f0, 2, true, false), .io_string = true,
	    MEMOP(SR_ES, NB, NB, 0, 0, 2, 2, .offset = 0x100, .linear = 0x100) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 2, .qualification = 0x01f00019, .guest_linear = 0x100) },
	/* 64-bit: asize 64 (2 << 7), ES (0) */
	{ "insd (a64) with bit 54", "27.2.5 Table 27-8", { PROC(P(UNCOND_IO_EXITING)) }, ins_outs_info,
	  { INSN(IK_IO, 1), IO(0x1f0, 4, true, false), .io_string = true,
	    MEMOP(SR_ES, NB, NB, 0, 0, 8, 4, .offset = 0x123456789ull, .linear = 0x123456789ull) },
	  EXIT(IO_INSTRUCTION, .saved_rf = VMX_RF_CLEAR, .insn_len = 1, .qualification = 0x01f0001b, .guest_linear = 0x123456789ull,
	       .insn_info = 0x100) },

	/* ---- 25.1.3 RDMSR/WRMSR and the MSR bitmaps (24.6.9) ---- */
	{ "rdmsr without MSR bitmaps", "25.1.3 RDMSR", { PROC(0) }, NULL,
	  { INSN(IK_MSR, 2), .msr = 0x10 }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "wrmsr without MSR bitmaps", "25.1.3 WRMSR", { PROC(0) }, NULL,
	  { INSN(IK_MSR, 2), .msr = 0x10, .msr_write = true }, EXIT(WRMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdmsr 10H: read-low bit", "24.6.9, 25.1.3", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x10 }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "wrmsr 10H: its write-low bit is clear", "24.6.9, 25.1.3", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x10, .msr_write = true }, NOEXIT },
	{ "wrmsr 174H: write-low bit", "24.6.9, 25.1.3", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x174, .msr_write = true }, EXIT(WRMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdmsr 174H: its read-low bit is clear", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x174 }, NOEXIT },
	{ "rdmsr C0000080H: read-high bit", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0xc0000080u }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "wrmsr C0000080H: its write-high bit is clear", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0xc0000080u, .msr_write = true }, NOEXIT },
	{ "wrmsr C0000100H: write-high bit", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0xc0000100u, .msr_write = true }, EXIT(WRMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdmsr C0001FFFH: the last bit of read-high", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0xc0001fffu }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdmsr 1FFFH: in range, bit clear", "24.6.9", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x1fff }, NOEXIT },
	{ "rdmsr 2000H: out of range, exits", "25.1.3 RDMSR", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x2000 }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "wrmsr 40000000H: out of range, exits", "25.1.3 WRMSR", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0x40000000u, .msr_write = true }, EXIT(WRMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	{ "rdmsr C0002000H: out of range, exits", "25.1.3 RDMSR", { PROC(P(MSR_BITMAPS)), MSRMAP }, msr_bits,
	  { INSN(IK_MSR, 2), .msr = 0xc0002000u }, EXIT(RDMSR, .saved_rf = VMX_RF_CLEAR, .insn_len = 2) },
	/* ---- 25.2 exceptions: the exception bitmap, #PF's error-code mask and
	 * match; 27.2.2 interruption information, 27.2.1 #DB/#PF qualification ---- */
	/* #PF, error code 2: vector 14, type 3, error valid (11), valid (31) */
	{ "#PF: bit 14, mask 0 = match 0", "25.2, 27.2.1, 27.2.2", { BITMAP(1u << EXC_PF) }, NULL,
	  { PF(2, 0xdeadb000u) },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0e, .intr_error = 2, .qualification = 0xdeadb000u) },
	{ "#PF: bit 14, error code does not match", "25.2 page faults",
	  { BITMAP(1u << EXC_PF), SET(PF_ERROR_CODE_MASK, 1), SET(PF_ERROR_CODE_MATCH, 1) }, NULL,
	  { PF(2, 0xdeadb000u) }, NOEXIT },
	{ "#PF: bit 14 clear, error code does not match: exits", "25.2 page faults",
	  { BITMAP(0), SET(PF_ERROR_CODE_MASK, 1), SET(PF_ERROR_CODE_MATCH, 1) }, NULL,
	  { PF(2, 0xffffffff80001000ull) },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0e, .intr_error = 2, .qualification = 0xffffffff80001000ull) },
	{ "#PF: bit 14 clear, error code matches", "25.2 page faults",
	  { BITMAP(0), SET(PF_ERROR_CODE_MASK, 1), SET(PF_ERROR_CODE_MATCH, 1) }, NULL,
	  { PF(3, 0x1000) }, NOEXIT },
	{ "#GP(0): bit 13", "25.2, 27.2.2", { BITMAP(1u << EXC_GP) }, NULL, { EVENT(IK_EXCEPTION), EV_ERR(EXC_GP, 0) },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0d) },
	{ "#UD: bit 6 clear", "25.2", { BITMAP(~(1u << EXC_UD)) }, NULL,
	  { EVENT(IK_EXCEPTION), EV(EV_EXCEPTION, EXC_UD) }, NOEXIT },
	{ "#UD: bit 6", "25.2, 27.2.2", { BITMAP(1u << EXC_UD) }, NULL,
	  { EVENT(IK_EXCEPTION), EV(EV_EXCEPTION, EXC_UD) }, EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000306) },
	/* #DB: B0 and BS in the qualification (DR6 not written) */
	{ "#DB: B0 and BS in the qualification", "27.2.1 Table 27-1", { BITMAP(1u << EXC_DB) }, NULL,
	  { EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_DB,
					     .dr6 = 0x4001 } },
	  EXIT(EXCEPTION_NMI, .intr_info = 0x80000301, .qualification = 0x4001) },
	/* INT3: software exception (type 6) and its length */
	{ "INT3: bit 3, software exception", "25.2, 27.2.2, 27.2.5", { BITMAP(1u << EXC_BP) }, NULL,
	  { EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_SOFTEXC, .vector = EXC_BP, .insn_len = 1 } },
	  EXIT(EXCEPTION_NMI, .intr_info = 0x80000603, .insn_len = 1) },
	/* INT1: privileged software exception (type 5) */
	{ "INT1: bit 1, privileged software exception", "25.2, 27.2.2, 27.2.5", { BITMAP(1u << EXC_DB) }, NULL,
	  { EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_PRIV_SOFTEXC, .vector = EXC_DB,
					     .insn_len = 1 } },
	  EXIT(EXCEPTION_NMI, .intr_info = 0x80000501, .insn_len = 1) },
	{ "INT 3 (CD 03) is a software interrupt: no exit", "25.2", { BITMAP(~0u) }, NULL,
	  { EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_SOFTINT, .vector = 3, .insn_len = 2 } },
	  NOEXIT },
	{ "an injected #GP never exits directly", "26.6.1.2", { BITMAP(~0u) }, NULL,
	  { EVENT(IK_EXCEPTION), .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_GP,
					     .has_error = true, .injected = true } }, NOEXIT },
	/* a fault of an IRET that unblocked NMIs: bit 12 */
	{ "#GP of an IRET that unblocked NMIs", "27.2.3, 27.2.2", { BITMAP(1u << EXC_GP) }, NULL,
	  { EVENT(IK_EXCEPTION), EV_ERR(EXC_GP, 0x10), .nmi_unblocked_by_iret = true },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80001b0d, .intr_error = 0x10) },
	/* 27.2.4: a #PF while delivering external interrupt 30H; bit 12
	 * undefined (0) then */
	{ "#PF during delivery of interrupt 30H", "27.2.4", { BITMAP(1u << EXC_PF) }, NULL,
	  { PF(0, 0x5000), VECTORING(EV_EXTINT, 0x30, 0), .nmi_unblocked_by_iret = true },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0e, .qualification = 0x5000, .idt_vectoring_info = 0x80000030) },
	{ "#PF during delivery of #GP(10H)", "27.2.4", { BITMAP(1u << EXC_PF) }, NULL,
	  { PF(0, 0x5000), .vectoring_valid = true, .vectoring = { .pending = true, .type = EV_EXCEPTION,
		.vector = EXC_GP, .has_error = true, .error_code = 0x10 } },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0e, .qualification = 0x5000, .idt_vectoring_info = 0x80000b0d,
	       .idt_vectoring_error = 0x10) },
	/* the software interrupt's type (4) and its instruction length (27.2.5) */
	{ "#NP during delivery of INT 21H", "27.2.4, 27.2.5", { BITMAP(1u << EXC_NP) }, NULL,
	  { EVENT(IK_EXCEPTION), EV_ERR(EXC_NP, 0x10a), VECTORING(EV_SOFTINT, 0x21, 2) },
	  EXIT(EXCEPTION_NMI, .saved_rf = VMX_RF_SET, .intr_info = 0x80000b0b, .intr_error = 0x10a, .idt_vectoring_info = 0x80000421,
	       .insn_len = 2) },

	/* 27.2.4: a double fault that event delivery produced, exiting
	 * directly, is not "during event delivery" */
	{ "#DF from a #NP while delivering #GP", "27.2.4", { BITMAP(1u << EXC_DF) }, NULL,
	  { EVENT(IK_EXCEPTION), EV_ERR(EXC_DF, 0), .vectoring_valid = true, .vectoring = { .pending = true,
		.type = EV_EXCEPTION, .vector = EXC_GP, .has_error = true } },
	  EXIT(EXCEPTION_NMI, .intr_info = 0x80000b08) },

	/* ---- 25.2 NMIs and external interrupts ---- */
	{ "NMI: NMI exiting", "25.2, 27.2.2", { SET(PIN_BASED_CONTROLS, PIN(NMI_EXITING)) }, NULL,
	  { EVENT(IK_NMI), EV(EV_NMI, 2) }, EXIT(EXCEPTION_NMI, .intr_info = 0x80000202) },
	{ "NMI: no NMI exiting", "25.2", { SET(PIN_BASED_CONTROLS, PIN(EXT_INTR_EXITING)) }, NULL,
	  { EVENT(IK_NMI), EV(EV_NMI, 2) }, NOEXIT },
	{ "NMI injected: never exits directly", "26.6.1.2", { SET(PIN_BASED_CONTROLS, PIN(NMI_EXITING)) }, NULL,
	  { EVENT(IK_NMI), .event = { .pending = true, .type = EV_NMI, .vector = 2, .injected = true } }, NOEXIT },
	{ "interrupt: no external-interrupt exiting", "25.2", { SET(PIN_BASED_CONTROLS, PIN(NMI_EXITING)) }, intr_41,
	  { EVENT(IK_INTR) }, NOEXIT },
	{ "interrupt: exiting, not acknowledged", "25.2, 27.2.2", { SET(PIN_BASED_CONTROLS, PIN(EXT_INTR_EXITING)) },
	  intr_41, { EVENT(IK_INTR) }, EXIT(EXTERNAL_INTERRUPT, .intr_info = 0) },
	{ "interrupt: acknowledged on exit", "27.2.2", { SET(PIN_BASED_CONTROLS, PIN(EXT_INTR_EXITING)),
	  SET(EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT)) }, intr_41, { EVENT(IK_INTR) },
	  EXIT(EXTERNAL_INTERRUPT, .intr_info = 0x80000041) },
	{ "interrupt: acknowledged, none there any more", "27.2.2", { SET(PIN_BASED_CONTROLS, PIN(EXT_INTR_EXITING)),
	  SET(EXIT_CONTROLS, VMX_CTL(VMX_EXITCTL_ACK_INTR_ON_EXIT)) }, intr_gone, { EVENT(IK_INTR) },
	  EXIT(EXTERNAL_INTERRUPT, .intr_info = 0) },

	/* ---- 25.2: triple fault, INIT, SIPI, SMI; the windows, MTF, timer ---- */
	{ "triple fault", "25.2", { { 0 } }, NULL, { EVENT(IK_SHUTDOWN) }, EXIT(TRIPLE_FAULT, .insn_len = 0) },
	{ "triple fault while delivering #DF: no IDT-vectoring", "27.2.4", { { 0 } }, NULL,
	  { EVENT(IK_SHUTDOWN), .vectoring_valid = true, .vectoring = { .pending = true, .type = EV_EXCEPTION,
		.vector = EXC_DF, .has_error = true } }, EXIT(TRIPLE_FAULT, .insn_len = 0) },
	{ "INIT", "25.2", { { 0 } }, NULL, { EVENT(IK_INIT) }, EXIT(INIT, .insn_len = 0) },
	{ "SIPI: the vector as qualification", "25.2, 27.2.1", { { 0 } }, NULL, { EVENT(IK_SIPI), .vector = 0x9a },
	  EXIT(SIPI, .qualification = 0x9a) },
	{ "SMI: default treatment, no exit", "25.2 (34.14)", { PROC(0xffffffffu) }, NULL, { EVENT(IK_SMI) }, NOEXIT },
	{ "interrupt window", "25.2, 25.5.1", { PROC(P(INTR_WINDOW_EXITING)) }, NULL, { EVENT(IK_INTR_WINDOW) },
	  EXIT(INTERRUPT_WINDOW, .insn_len = 0) },
	{ "interrupt window: not asked for", "25.2", { PROC(P(NMI_WINDOW_EXITING)) }, NULL, { EVENT(IK_INTR_WINDOW) },
	  NOEXIT },
	{ "NMI window", "25.2, 25.5.2", { PROC(P(NMI_WINDOW_EXITING)) }, NULL, { EVENT(IK_NMI_WINDOW) },
	  EXIT(NMI_WINDOW, .insn_len = 0) },
	{ "NMI window: not asked for", "25.2", { PROC(P(INTR_WINDOW_EXITING)) }, NULL, { EVENT(IK_NMI_WINDOW) },
	  NOEXIT },
	{ "monitor trap flag", "25.5.2", { PROC(P(MONITOR_TRAP_FLAG)) }, NULL, { EVENT(IK_MTF) },
	  EXIT(MONITOR_TRAP_FLAG, .insn_len = 0) },
	{ "VMX-preemption timer", "25.5.1", { SET(PIN_BASED_CONTROLS, PIN(PREEMPTION_TIMER)) }, NULL,
	  { EVENT(IK_PREEMPTION_TIMER) }, EXIT(PREEMPTION_TIMER, .insn_len = 0) },
	{ "VMX-preemption timer: not active", "25.5.1", { { 0 } }, NULL, { EVENT(IK_PREEMPTION_TIMER) }, NOEXIT },
	{ "TPR below threshold", "29.1.2", { PROC(P(TPR_SHADOW)) }, NULL, { EVENT(IK_TPR_BELOW_THRESHOLD) },
	  EXIT(TPR_BELOW_THRESHOLD, .insn_len = 0) },
	{ "TPR below threshold: virtual-interrupt delivery", "29.1.2",
	  { PROC2(P(TPR_SHADOW), P2(VIRTUAL_INTR_DELIVERY)) }, NULL, { EVENT(IK_TPR_BELOW_THRESHOLD) }, NOEXIT },

	/* ---- 25.2 task switches; Table 27-2 ---- */
	{ "task switch by CALL", "25.2, Table 27-2, 27.2.5", { { 0 } }, NULL,
	  { INSN(IK_TASK_SWITCH, 7), .tss_selector = 0x58, .ts_source = TS_CALL },
	  EXIT(TASK_SWITCH, .saved_rf = VMX_RF_CLEAR, .qualification = 0x58, .insn_len = 7) },
	{ "task switch by IRET", "Table 27-2", { { 0 } }, NULL,
	  { INSN(IK_TASK_SWITCH, 1), .tss_selector = 0x60, .ts_source = TS_IRET },
	  EXIT(TASK_SWITCH, .saved_rf = VMX_RF_CLEAR, .qualification = 0x40000060, .insn_len = 1) },
	{ "task switch by JMP", "Table 27-2", { { 0 } }, NULL,
	  { INSN(IK_TASK_SWITCH, 5), .tss_selector = 0x58, .ts_source = TS_JMP },
	  EXIT(TASK_SWITCH, .saved_rf = VMX_RF_CLEAR, .qualification = 0x80000058, .insn_len = 5) },
	{ "task switch through a gate, by INT 21H", "Table 27-2, 27.2.4, 27.2.5", { { 0 } }, NULL,
	  { EVENT(IK_TASK_SWITCH), .tss_selector = 0x68, .ts_source = TS_GATE, VECTORING(EV_SOFTINT, 0x21, 2) },
	  EXIT(TASK_SWITCH, .saved_rf = VMX_RF_CLEAR, .qualification = 0xc0000068, .idt_vectoring_info = 0x80000421,
	       .insn_len = 2) },
	{ "task switch through a gate, by #GP(0)", "Table 27-2, 27.2.4", { { 0 } }, NULL,
	  { EVENT(IK_TASK_SWITCH), .tss_selector = 0x68, .ts_source = TS_GATE, .vectoring_valid = true,
	    .vectoring = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_GP, .has_error = true },
	    .ts_saved_rf = true },
	  /* 27.3.3: RF as the old TSS would get it, 1 after a fault */
	  EXIT(TASK_SWITCH, .saved_rf = VMX_RF_SET, .qualification = 0xc0000068, .idt_vectoring_info = 0x80000b0d) },
	{ "task switch: the TSS-checked phase is SVM's", "25.2", { { 0 } }, NULL,
	  { INSN(IK_TASK_SWITCH, 7), .tss_selector = 0x58, .phase = PHASE_TSS_CHECKED }, NOEXIT },

	/* ---- 28.2.3, 27.2.1 Table 27-7: EPT violations and misconfigurations ---- */
	/* data write (1), readable (3), guest-linear valid (7), final (8) */
	{ "EPT violation: write to a read-only page", "27.2.1 Table 27-7", { { 0 } }, ept_basic,
	  { EPT(0x123456008ull, 0x7008, .gla_valid = true, .final = true, .access = S2_ACC_WRITE,
		.rights = S2_RIGHT_R, .gla_user = true) },
	  EXIT(EPT_VIOLATION, .saved_rf = VMX_RF_SET, .qualification = 0x18a, .guest_physical = 0x123456008ull, .guest_linear = 0x7008) },
	/* with advanced information: user-mode (9), writable (10) linear address */
	{ "EPT violation: advanced information", "27.2.1 Table 27-7 bits 9-11", { { 0 } }, ept_advanced,
	  { EPT(0x123456008ull, 0x7008, .gla_valid = true, .final = true, .access = S2_ACC_WRITE,
		.rights = S2_RIGHT_R, .gla_user = true, .gla_writable = true) },
	  EXIT(EPT_VIOLATION, .saved_rf = VMX_RF_SET, .qualification = 0x78a, .guest_physical = 0x123456008ull, .guest_linear = 0x7008) },
	/* a guest paging-structure read: bit 8 clear */
	{ "EPT violation: guest page-walk read", "27.2.1 Table 27-7 bit 8", { { 0 } }, ept_basic,
	  { EPT(0x9000, 0xffff800000001000ull, .gla_valid = true, .access = S2_ACC_READ) },
	  EXIT(EPT_VIOLATION, .saved_rf = VMX_RF_SET, .qualification = 0x81, .guest_physical = 0x9000, .guest_linear = 0xffff800000001000ull) },
	/* a PDPTE load by MOV to CR3: no guest-linear address */
	{ "EPT violation: PDPTE load, no linear address", "27.2.1 Table 27-7 bit 7", { { 0 } }, ept_basic,
	  { EPT(0x9000, 0, .access = S2_ACC_READ) },
	  EXIT(EPT_VIOLATION, .saved_rf = VMX_RF_SET, .qualification = 0x1, .guest_physical = 0x9000) },
	{ "EPT violation: fetch, after an IRET unblocked NMIs", "27.2.3, Table 27-7 bit 12", { { 0 } }, ept_basic,
	  { EPT(0x401000, 0x401000, .gla_valid = true, .final = true, .access = S2_ACC_FETCH,
		.rights = S2_RIGHT_R | S2_RIGHT_W), .nmi_unblocked_by_iret = true },
	  EXIT(EPT_VIOLATION, .saved_rf = VMX_RF_SET, .qualification = 0x119c, .guest_physical = 0x401000, .guest_linear = 0x401000) },
	{ "EPT violation during delivery of NMI", "27.2.4", { { 0 } }, ept_basic,
	  { EPT(0x8000, 0x8000, .gla_valid = true, .final = true, .access = S2_ACC_WRITE),
	    VECTORING(EV_NMI, 2, 0) },
	  EXIT(EPT_VIOLATION, .qualification = 0x182, .guest_physical = 0x8000, .guest_linear = 0x8000,
	       .idt_vectoring_info = 0x80000202) },
	{ "EPT misconfiguration", "28.2.3.1, 27.2.1", { { 0 } }, NULL,
	  { EVENT(IK_STAGE2_MISCONFIG), .fault = { .stage = FAULT_STAGE2, .nested = { .gpa = 0xfee00000u,
		.gla = 0x1000, .gla_valid = true, .ept = true, .misconfig = true } } },
	  EXIT(EPT_MISCONFIG, .saved_rf = VMX_RF_SET, .guest_physical = 0xfee00000u) },

	/* ---- 29.4, Table 27-6: APIC access; APIC write; EOI virtualization ---- */
	{ "APIC access: linear write of VTPR", "29.4, Table 27-6", { PROC2(0, P2(VIRTUALIZE_APIC)) }, NULL,
	  { INSN(IK_APIC_ACCESS, 6), .apic_offset = 0x80, .apic_access = APIC_LINEAR_WRITE },
	  /* 27.2.5: the length undefined; hvemu's choice: the instruction's. */
	  EXIT(APIC_ACCESS, .saved_rf = VMX_RF_SET, .qualification = 0x1080, .insn_len = 6) },
	{ "APIC access during event delivery", "Table 27-6, 27.2.4", { PROC2(0, P2(VIRTUALIZE_APIC)) }, NULL,
	  { EVENT(IK_APIC_ACCESS), .apic_offset = 0x300, .apic_access = APIC_DELIVERY_ACCESS,
	    VECTORING(EV_EXTINT, 0x40, 0) },
	  EXIT(APIC_ACCESS, .qualification = 0x3300, .idt_vectoring_info = 0x80000040) },
	{ "APIC access: not virtualized", "29.4", { PROC2(0, 0) }, NULL,
	  { INSN(IK_APIC_ACCESS, 6), .apic_offset = 0x80, .apic_access = APIC_LINEAR_READ }, NOEXIT },
	{ "APIC write", "29.4.3.3, 27.2.1", { PROC2(P(TPR_SHADOW), P2(APIC_REGISTER_VIRT)) }, NULL,
	  { EVENT(IK_APIC_WRITE), .apic_offset = 0x300 }, EXIT(APIC_WRITE, .qualification = 0x300) },
	{ "virtualized EOI: bitmap 1 bit 1", "29.1.4, 27.2.1", { SET(EOI_EXIT_BITMAP1, 2) }, NULL,
	  { EVENT(IK_VIRTUALIZED_EOI), .vector = 0x41 }, EXIT(VIRTUALIZED_EOI, .qualification = 0x41) },
	{ "virtualized EOI: bit clear", "29.1.4", { SET(EOI_EXIT_BITMAP1, 1) }, NULL,
	  { EVENT(IK_VIRTUALIZED_EOI), .vector = 0x41 }, NOEXIT },
	{ "pushf", "(no VMX control)", { PROC(0xffffffffu) }, NULL, { INSN(IK_PUSHF, 1) }, NOEXIT },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static void check_exit(const struct row *r, const struct vmx_exit *x)
{
#define SAME(f) ck_assert_msg(x->f == r->x.f, "%s (SDM %s): " #f " %#llx, expected %#llx", r->name, r->sdm, \
			      (unsigned long long)x->f, (unsigned long long)r->x.f)
	SAME(reason);
	SAME(qualification);
	SAME(guest_linear);
	SAME(guest_physical);
	SAME(intr_info);
	SAME(intr_error);
	SAME(idt_vectoring_info);
	SAME(idt_vectoring_error);
	SAME(insn_len);
	SAME(insn_info);
	SAME(saved_rf);
#undef SAME
	ck_assert_msg(x->guest_rip == r->rec.rip, "%s: guest RIP %#llx", r->name, (unsigned long long)x->guest_rip);
}

START_TEST(exit_rows)
{
	const struct row *r = &rows[_i];
	struct world w;
	world_init(&w);
	for (unsigned i = 0; i < sizeof(r->set) / sizeof(r->set[0]) && r->set[i].on; i++)
		vmcs_set(w.vmx, (enum vmcs_row)r->set[i].row, r->set[i].value);
	if (r->setup)
		r->setup(&w);
	struct exit_record rec = r->rec;
	struct vmx_exit x;
	memset(&x, 0, sizeof(x));
	status_t st = vmx_exit_decide(w.vmx, &w.m.cpu, &rec, &x);
	ck_assert_msg(st == r->st, "%s (SDM %s): status %d, expected %d", r->name, r->sdm, (int)st, (int)r->st);
	if (st == ST_VMEXIT)
		check_exit(r, &x);
	if (st == ST_FAULT)
		ck_assert_msg(w.m.cpu.event.pending && w.m.cpu.event.vector == r->fault, "%s: vector %u", r->name,
			      w.m.cpu.event.vector);
	if (r->check_value)
		ck_assert_msg(rec.value == r->value, "%s (SDM %s): value %#llx, expected %#llx", r->name, r->sdm,
			      (unsigned long long)rec.value, (unsigned long long)r->value);
	if (r->after)
		r->after(&w);
	world_free(&w);
}
END_TEST

/* ---- end to end: the core's record, vmx_exit_decide as the hook ---- */

struct capture {
	struct vmx *vmx;
	unsigned exits;
	struct vmx_exit x;
};

static status_t capture_intercept(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	struct capture *c = ctx;
	struct vmx_exit x;
	memset(&x, 0, sizeof(x));
	status_t st = vmx_exit_decide(c->vmx, cpu, rec, &x);
	if (st == ST_VMEXIT) {
		c->exits++;
		c->x = x;
	}
	return st;
}

static const struct hv_model capture_model = { .name = "capture", .intercept = capture_intercept };

/* The guest in 32-bit protected mode with DS.base 40000000H (the world's
 * flat segments otherwise), the hook installed. */
static void guest32_ds_base(struct world *w, struct capture *c)
{
	world_init(w);
	c->vmx = w->vmx;
	struct segment *ds = &w->m.cpu.seg[SR_DS];
	ds->base = 0x40000000u;
	seg_refresh(ds);
	w->m.cpu.hv = &capture_model;
	w->m.cpu.hv_ctx = c;
	w->m.cpu.in_guest = true;
	w->m.cpu.rip = RIP0;
}

/* SDM Vol.3 27.2.1: INVLPG's qualification is the linear address, and
 * outside 64-bit mode a linear address is 32 bits: DS.base 40000000H plus
 * offset C01316B0H wraps to 001316B0H, bits 63:32 clear (the SVM EXITINFO2
 * lesson). */
START_TEST(invlpg_linear_wraps_at_4g)
{
	struct world w;
	struct capture c = { 0 };
	guest32_ds_base(&w, &c);
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_INVLPG_EXITING));
	w.m.cpu.regs[R_AX] = 0xc01316b0u;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0x38), ST_VMEXIT);        /* invlpg [eax] */
	ck_assert_uint_eq(c.exits, 1);
	ck_assert_uint_eq(c.x.reason, VMX_EXIT_INVLPG);
	ck_assert_uint_eq(c.x.qualification, 0x001316b0u);
	ck_assert_uint_eq(c.x.insn_len, 3);
	ck_assert_uint_eq(c.x.guest_rip, RIP0);
	world_free(&w);
}
END_TEST

/* SDM Vol.3 25.3: a CLTS that does not exit (TS owned by the host, clear in
 * the read shadow) leaves CR0.TS alone; with TS not owned it clears it. */
START_TEST(clts_keeps_an_owned_ts)
{
	struct world w;
	struct capture c = { 0 };
	guest32_ds_base(&w, &c);
	vmcs_set(w.vmx, VMCS_ROW_CR0_GUEST_HOST_MASK, CR0_TS);
	w.m.cpu.cr0 |= CR0_TS;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x06), ST_OK);                    /* clts */
	ck_assert_uint_eq(c.exits, 0);
	ck_assert(w.m.cpu.cr0 & CR0_TS);
	vmcs_set(w.vmx, VMCS_ROW_CR0_GUEST_HOST_MASK, 0);
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x06), ST_OK);
	ck_assert(!(w.m.cpu.cr0 & CR0_TS));
	world_free(&w);
}
END_TEST

/* SDM Vol.3 27.2.1: OUTS reports the linear address of its source, 32 bits
 * outside 64-bit mode: DS.base 40000000H + ESI C01316B0H = 001316B0H. */
START_TEST(outs_linear_wraps_at_4g)
{
	struct world w;
	struct capture c = { 0 };
	guest32_ds_base(&w, &c);
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_UNCOND_IO_EXITING));
	basic(&w, true);
	w.m.cpu.regs[R_SI] = 0xc01316b0u;
	w.m.cpu.regs[R_DX] = 0x3f8;
	ck_assert_int_eq(EXEC(&w.m, 0x6e), ST_VMEXIT);                      /* outsb */
	ck_assert_uint_eq(c.exits, 1);
	ck_assert_uint_eq(c.x.reason, VMX_EXIT_IO_INSTRUCTION);
	ck_assert_uint_eq(c.x.qualification, 0x03f80010u);
	ck_assert_uint_eq(c.x.guest_linear, 0x001316b0u);
	ck_assert_uint_eq(c.x.insn_info, 0x00018080u);                       /* a32, DS */
	ck_assert_uint_eq(c.x.insn_len, 1);
	world_free(&w);
}
END_TEST

/* The I/O-bitmap rule against vmx/bitmaps.h's copy of it, for every size
 * at ports around the A/B boundary and the wrap. */
START_TEST(io_bitmaps_match_bitmaps_h)
{
	static uint8_t a[VMX_IO_BITMAP_SIZE], b[VMX_IO_BITMAP_SIZE];
	static const uint16_t ports[] = { 0, 1, 0x3f8, 0x7ffc, 0x7ffd, 0x7ffe, 0x7fff, 0x8000, 0xfffc, 0xfffd,
					  0xfffe, 0xffff };
	struct world w;
	world_init(&w);
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_IO_BITMAPS));
	vmcs_set(w.vmx, VMCS_ROW_IO_BITMAP_A, IO_A);
	vmcs_set(w.vmx, VMCS_ROW_IO_BITMAP_B, IO_B);
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	a[0x7fff / 8] = 0x80;
	set_bit(&w, IO_A, 0x7fff);
	for (unsigned i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		for (unsigned size = 1; size <= 4; size *= 2) {
			struct exit_record rec = { INSN(IK_IO, 1), IO(ports[i], (uint8_t)size, false, false) };
			struct vmx_exit x;
			bool want = vmx_io_bitmap_intercepted(a, b, ports[i], size);
			ck_assert_msg((vmx_exit_decide(w.vmx, &w.m.cpu, &rec, &x) == ST_VMEXIT) == want,
				      "port %#x size %u", ports[i], size);
		}
	}
	world_free(&w);
}
END_TEST

/* ---- end to end in 64-bit mode: real instruction bytes, the core's record ---- */

struct core_row {
	const char *name;
	const char *sdm;
	struct vmcs_pair set[4];
	void (*setup)(struct world *w);
	uint8_t code[15];
	uint8_t len;
	struct vmx_exit x;         /* guest_rip: RIP0 */
};

#define CODE(...) .code = { __VA_ARGS__ }, .len = sizeof((const uint8_t[]){ __VA_ARGS__ })
/* Each an instruction's exit: RF saved as 0 (SDM Vol.3 27.3.3). */
#define X(r, ...) .x = { .reason = VMX_EXIT_##r, .saved_rf = VMX_RF_CLEAR, __VA_ARGS__ }

static void regs64(struct world *w)
{
	struct cpu *c = &w->m.cpu;
	c->regs[R_BX] = 0x200040;
	c->regs[R_SI] = 0x10;
	c->regs[R_AX] = 0x200000;
	c->regs[R_DX] = 0x1f0;
	c->regs[R_DI] = 0x123456789ull;
	c->regs[8] = 0x200100;
	c->regs[9] = 0x9000;
	physmem_write(&w->m.pm, 0x200000, 2, 0x0001);
}
static void regs64_ins_outs_info(struct world *w) { regs64(w); basic(w, true); }

static const struct core_row core_rows[] = {
	/* sgdt [rbx+rsi*4-0x10]: scale 2, asize 64, operand size (11), DS, index
	 * RSI, base RBX, SGDT */
	{ "sgdt [rbx+rsi*4-0x10]", "Table 27-10", { PROC2(0, P2(DESC_TABLE_EXITING)) }, regs64,
	  CODE(0x0f, 0x01, 0x44, 0xb3, 0xf0),
	  X(GDTR_IDTR_ACCESS, .insn_len = 5, .qualification = 0xfffffffffffffff0ull, .insn_info = 0x01998902) },
	/* invpcid r9, [r8]: base R8 (8 << 23), reg2 R9 (9 << 28) */
	{ "invpcid r9, [r8]", "Table 27-9", { PROC2(P(INVLPG_EXITING), P2(INVPCID)) }, regs64,
	  CODE(0x66, 0x45, 0x0f, 0x38, 0x82, 0x08), X(INVPCID, .insn_len = 6, .insn_info = 0x94418100) },
	/* str r9: register, reg1 R9, STR */
	{ "str r9", "Table 27-11", { PROC2(0, P2(DESC_TABLE_EXITING)) }, regs64,
	  CODE(0x41, 0x0f, 0x00, 0xc9), X(LDTR_TR_ACCESS, .insn_len = 4, .insn_info = 0x10000448) },
	/* mov cr3, r9: CR3, GPR 9 */
	{ "mov cr3, r9", "Table 27-3", { PROC(P(CR3_LOAD_EXITING)) }, regs64,
	  CODE(0x41, 0x0f, 0x22, 0xd9), X(CR_ACCESS, .insn_len = 4, .qualification = 0x903) },
	/* lmsw [rax]: LMSW (3 << 4), memory (6), source 0001H, the linear address */
	{ "lmsw [rax]", "Table 27-3, 27.2.1", { SET(CR0_GUEST_HOST_MASK, CR0_PE) }, regs64,
	  CODE(0x0f, 0x01, 0x30), X(CR_ACCESS, .insn_len = 3, .qualification = 0x10070, .guest_linear = 0x200000) },
	/* mov rdx, dr6: DR6, from (4), GPR RDX */
	{ "mov rdx, dr6", "Table 27-4", { PROC(P(MOV_DR_EXITING)) }, regs64,
	  CODE(0x0f, 0x21, 0xf2), X(DR_ACCESS, .insn_len = 3, .qualification = 0x216) },
	/* rep insb: IN, string, REP, port 1F0H; ES:RDI as the guest-linear
	 * address; Table 27-8 asize 64 */
	{ "rep insb", "Table 27-5, Table 27-8", { PROC(P(UNCOND_IO_EXITING)) }, regs64_ins_outs_info,
	  CODE(0xf3, 0x6c),
	  X(IO_INSTRUCTION, .insn_len = 2, .qualification = 0x01f00038, .guest_linear = 0x123456789ull,
	    .insn_info = 0x100) },
	/* in al, 0x60: IN, immediate */
	{ "in al, 0x60", "Table 27-5", { PROC(P(UNCOND_IO_EXITING)) }, regs64,
	  CODE(0xe4, 0x60), X(IO_INSTRUCTION, .insn_len = 2, .qualification = 0x00600048) },
	{ "rdmsr (no MSR bitmaps)", "25.1.3", { PROC(0) }, regs64, CODE(0x0f, 0x32), X(RDMSR, .insn_len = 2) },
};
#define N_CORE_ROWS (sizeof(core_rows) / sizeof(core_rows[0]))

START_TEST(core_rows_64)
{
	const struct core_row *r = &core_rows[_i];
	struct world w;
	struct capture c = { 0 };
	world_init(&w);
	c.vmx = w.vmx;
	activate(&w.m);
	to64(&w.m);
	for (unsigned i = 0; i < sizeof(r->set) / sizeof(r->set[0]) && r->set[i].on; i++)
		vmcs_set(w.vmx, (enum vmcs_row)r->set[i].row, r->set[i].value);
	r->setup(&w);
	w.m.cpu.hv = &capture_model;
	w.m.cpu.hv_ctx = &c;
	w.m.cpu.in_guest = true;
	w.m.cpu.rip = RIP0;
	ck_assert_msg(exec(&w.m, r->code, r->len) == ST_VMEXIT, "%s: no exit (vector %u)", r->name,
		      w.m.cpu.event.vector);
	ck_assert_uint_eq(c.exits, 1);
	struct row as_row = { .name = r->name, .sdm = r->sdm, .rec = { .rip = RIP0 }, .x = r->x };
	check_exit(&as_row, &c.x);
	world_free(&w);
}
END_TEST

/* 64-bit guest with the hook installed. */
static void guest64(struct world *w, struct capture *c)
{
	world_init(w);
	c->vmx = w->vmx;
	activate(&w->m);
	to64(&w->m);
	w->m.cpu.hv = &capture_model;
	w->m.cpu.hv_ctx = c;
	w->m.cpu.in_guest = true;
	w->m.cpu.rip = RIP0;
}

/* SDM Vol.3 29.3 through the core: MOV to CR8 writes VTPR (the APIC's TPR
 * untouched), MOV from CR8 reads VTPR[7:4]; 25.3: MOV from CR0 and SMSW see
 * the read shadow's owned bits. */
START_TEST(tpr_shadow_and_read_shadow_through_the_core)
{
	struct world w;
	struct capture c = { 0 };
	guest64(&w, &c);
	struct cpu *cpu = &w.m.cpu;
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_TPR_SHADOW));
	vmcs_set(w.vmx, VMCS_ROW_VIRTUAL_APIC_ADDR, VAPIC);
	uint64_t cr8 = cpu_cr8_read(cpu);
	cpu->regs[R_AX] = 9;
	ck_assert_int_eq(EXEC(&w.m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);          /* mov cr8, rax */
	ck_assert_uint_eq(physmem_read(&w.m.pm, VAPIC + 0x80, 4), 0x90);
	ck_assert_uint_eq(cpu_cr8_read(cpu), cr8);
	physmem_write(&w.m.pm, VAPIC + 0x80, 4, 0xc3);
	ck_assert_int_eq(EXEC(&w.m, 0x44, 0x0f, 0x20, 0xc3), ST_OK);          /* mov rbx, cr8 */
	ck_assert_uint_eq(cpu->regs[R_BX], 0xc);
	vmcs_set(w.vmx, VMCS_ROW_CR0_GUEST_HOST_MASK, CR0_TS | CR0_NE);
	vmcs_set(w.vmx, VMCS_ROW_CR0_READ_SHADOW, CR0_TS);
	uint64_t real = cpu->cr0;
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x20, 0xc1), ST_OK);                /* mov rcx, cr0 */
	ck_assert_uint_eq(cpu->regs[R_CX], (real & ~(uint64_t)(CR0_TS | CR0_NE)) | CR0_TS);
	ck_assert_int_eq(EXEC(&w.m, 0x0f, 0x01, 0xe2), ST_OK);                /* smsw edx */
	ck_assert_uint_eq(cpu->regs[R_DX] & 0xffff, ((real & ~(uint64_t)(CR0_TS | CR0_NE)) | CR0_TS) & 0xffff);
	ck_assert_uint_eq(cpu->cr0, real);
	ck_assert_uint_eq(c.exits, 0);
	world_free(&w);
}
END_TEST

/* ---- PAUSE-loop exiting (SDM Vol.3 25.1.3): a sequence in virtual time ---- */

static status_t pause_at(struct world *w, uint64_t now)
{
	struct exit_record rec = { INSN(IK_PAUSE, 2) };
	struct vmx_exit x;
	w->m.cpu.icount = now;
	status_t st = vmx_exit_decide(w->vmx, &w->m.cpu, &rec, &x);
	if (st == ST_VMEXIT) {
		ck_assert_uint_eq(x.reason, VMX_EXIT_PAUSE);
		ck_assert_uint_eq(x.insn_len, 2);
	}
	return st;
}

START_TEST(pause_loop_exiting)
{
	struct world w;
	world_init(&w);
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmcs_set(w.vmx, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_PAUSE_LOOP_EXITING));
	vmcs_set(w.vmx, VMCS_ROW_PLE_GAP, 10);
	vmcs_set(w.vmx, VMCS_ROW_PLE_WINDOW, 100);
	/* A loop of PAUSEs 8 apart (within PLE_Gap) starting at 1000: the one
	 * more than PLE_Window after 1000 exits (1104), then a new loop. */
	for (uint64_t t = 1000; t <= 1096; t += 8)
		ck_assert_int_eq(pause_at(&w, t), ST_OK);
	ck_assert_int_eq(pause_at(&w, 1100), ST_OK);        /* exactly the window: no */
	ck_assert_int_eq(pause_at(&w, 1104), ST_VMEXIT);
	ck_assert_int_eq(pause_at(&w, 1106), ST_OK);        /* first after the exit */
	/* A gap above PLE_Gap starts a new loop: 1200 and 1300 are both first. */
	ck_assert_int_eq(pause_at(&w, 1200), ST_OK);
	ck_assert_int_eq(pause_at(&w, 1300), ST_OK);
	/* PAUSEs exactly PLE_Gap apart stay in the loop begun at 1300. */
	for (uint64_t t = 1310; t <= 1400; t += 10)
		ck_assert_int_eq(pause_at(&w, t), ST_OK);
	ck_assert_int_eq(pause_at(&w, 1410), ST_VMEXIT);
	/* One gap of 11 inside a would-be loop: 1500 starts it, 1511 restarts. */
	ck_assert_int_eq(pause_at(&w, 1500), ST_OK);
	for (uint64_t t = 1511; t <= 1611; t += 10)
		ck_assert_int_eq(pause_at(&w, t), ST_OK);
	ck_assert_int_eq(pause_at(&w, 1621), ST_VMEXIT);
	world_free(&w);
}
END_TEST

/* PAUSE-loop exiting applies at CPL 0 only; "PAUSE exiting" at any CPL. */
START_TEST(pause_cpl3)
{
	struct world w;
	world_init(&w);
	w.m.cpu.cpl = 3;
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS, VMX_CTL(VMX_PROC_SECONDARY_CONTROLS));
	vmcs_set(w.vmx, VMCS_ROW_SECONDARY_PROC_CONTROLS, VMX_CTL(VMX_PROC2_PAUSE_LOOP_EXITING));
	vmcs_set(w.vmx, VMCS_ROW_PLE_GAP, 10);
	vmcs_set(w.vmx, VMCS_ROW_PLE_WINDOW, 0);
	for (uint64_t t = 1000; t < 1100; t += 5)
		ck_assert_int_eq(pause_at(&w, t), ST_OK);
	vmcs_set(w.vmx, VMCS_ROW_PRIMARY_PROC_CONTROLS,
		 VMX_CTL(VMX_PROC_SECONDARY_CONTROLS) | VMX_CTL(VMX_PROC_PAUSE_EXITING));
	ck_assert_int_eq(pause_at(&w, 1100), ST_VMEXIT);
	world_free(&w);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmx_exits");
	TCase *tc = tcase_create("rows");
	tcase_add_loop_test(tc, exit_rows, 0, (int)N_ROWS);
	suite_add_tcase(s, tc);
	tc = tcase_create("core");
	tcase_add_test(tc, invlpg_linear_wraps_at_4g);
	tcase_add_test(tc, clts_keeps_an_owned_ts);
	tcase_add_test(tc, outs_linear_wraps_at_4g);
	tcase_add_test(tc, io_bitmaps_match_bitmaps_h);
	tcase_add_loop_test(tc, core_rows_64, 0, (int)N_CORE_ROWS);
	tcase_add_test(tc, tpr_shadow_and_read_shadow_through_the_core);
	tcase_add_test(tc, pause_loop_exiting);
	tcase_add_test(tc, pause_cpl3);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
