/* Check suite for the exit record (emu/exit_record.h, emu/intercept.c, the
 * intercept calls of the handlers): a recording hypervisor model answers every
 * question the core asks with ST_VMEXIT (and a stop request, so the run ends
 * there whether or not cpu_run() treats a VM exit as a world switch), after
 * letting a row's first `pass` questions through. Each row names a machine
 * (real mode, 16-/32-bit protected mode, compatibility or 64-bit mode, v8086),
 * its set-up, the instruction bytes and the record expected, and the record is
 * checked field by field; fields a row does not name must be zero. The code
 * is followed by UD2, so an instruction that is wrongly not intercepted shows
 * up as a #UD record. The bytes are hand-encoded, the instruction beside each
 * (checked against objdump). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "desc_encode.h"
#include "emu/hv.h"
#include "emu/insn.h"
#include "machine_fixture.h"
#include "suite_runner.h"

/* ---- the machine ---- */

#define MODEL "skylake-lite"       /* long mode, INVPCID, RDTSCP, XSAVE */

enum env { REAL, P16, P32, CM, L64, V86 };

/* Physical layout beyond machine_fixture.h's (GDT 1000H, TSS64 3000H, page
 * tables 10000H-12FFFH). */
enum {
	TSS_A = 0x4000,            /* TR in protected and long mode; I/O bitmap at +68H */
	TSS_B = 0x4100,            /* a task switch target */
	IDT = 0x5000,              /* all gates zero (not present) unless a row writes one */
	STACK = 0x8000,
	CODE = 0x20000,            /* the row's bytes, then UD2 */
	DATA = 0x30000,            /* a word FFF1H, for LMSW and friends */
	CR2_INIT = 0x2222, CR3_FLAT = 0x9000, CR8_INIT = 5,
	TSS_A_LIMIT = 0x68 + 0x20, /* bitmap for ports 0-FFH plus the trailing byte */
};
#define FS32_BASE 0xffff0000u      /* SEL_FSWRAP: FS-relative addresses wrap at 4 GiB */
#define FS64_BASE 0x100000000ull
#define GS64_BASE 0xffff800000000000ull

/* GDT entries after the fixture's (SEL_CODE32, SEL_DATA, SEL_CODE64, SEL_TSS). */
enum {
	SEL_CODE16 = 0x30, SEL_CODE3 = 0x38, SEL_DATA3 = 0x40, SEL_CODE64_3 = 0x48,
	SEL_FSWRAP = 0x50, SEL_TSS_A = 0x58, SEL_TSS_B = 0x60, SEL_TASK_GATE = 0x68,
	GDT_LIMIT = 0x6f,
};

/* Real-mode and v8086 segment registers: CS 2000H (CODE), DS 3000H (DATA),
 * ES 2F00H, FS 3200H, GS 3300H, SS 0. */
static const uint16_t real_sel[SR_COUNT] = {
	[SR_ES] = 0x2f00, [SR_CS] = CODE >> 4, [SR_SS] = 0, [SR_DS] = DATA >> 4,
	[SR_FS] = 0x3200, [SR_GS] = 0x3300,
};

/* The registers every case starts with: distinct values with distinct upper
 * halves (RSP is STACK). */
#define PAT32(i) (0x1000u + 0x100u * (i))
#define PAT(i)   (((uint64_t)(0xa0 + (i)) << 56) | PAT32(i))

/* ---- the recording model ---- */

struct ask {
	uint8_t kind, phase, vector;
};

struct recorder {
	unsigned pass;             /* answer this many asks with ST_OK first */
	bool shadow;               /* answer reads with shadow_value and ST_OK */
	uint64_t shadow_value;
	unsigned shadowed;         /* reads answered so */
	bool handle;               /* answer MOV to/from CRn ST_HANDLED (reads: handle_value) */
	uint64_t handle_value;
	unsigned handled;
	unsigned asks;
	struct ask log[8];
	struct exit_record first;  /* the first ask, whatever the answer */
	bool seen;
	struct exit_record rec;
	struct insn insn;          /* *rec.insn: it points into the decoded-block cache */
	/* vm_insn calls */
	unsigned vm_calls;
	enum intercept_kind vm_kind;
	struct insn vm_in;
};

static bool is_read(const struct exit_record *rec)
{
	if (rec->kind == IK_CR_ACCESS || rec->kind == IK_DR_ACCESS)
		return rec->cr_access == CR_MOV_FROM || rec->cr_access == CR_SMSW;
	return rec->kind == IK_MSR && !rec->msr_write;
}

static status_t record(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	struct recorder *r = ctx;
	/* The recorder answers as VMX does: the SVM-only phases (LMSW before its
	 * operand, APM2 Table 15-7; a task switch after the TSS checks) pass. */
	if (rec->phase == PHASE_BEFORE_OPERAND || rec->phase == PHASE_TSS_CHECKED)
		return ST_OK;
	unsigned n = r->asks++;
	if (n < sizeof(r->log) / sizeof(r->log[0]))
		r->log[n] = (struct ask){ rec->kind, rec->phase, rec->vector };
	if (n == 0)
		r->first = *rec;
	if (r->seen)
		return ST_VMEXIT;
	if (r->shadow && is_read(rec)) {
		rec->value = r->shadow_value;
		r->shadowed++;
		return ST_OK;
	}
	if (r->handle && rec->kind == IK_CR_ACCESS &&
	    (rec->cr_access == CR_MOV_TO || rec->cr_access == CR_MOV_FROM)) {
		if (rec->cr_access == CR_MOV_FROM)
			rec->value = r->handle_value;
		r->handled++;
		return ST_HANDLED;
	}
	if (n < r->pass)
		return ST_OK;
	r->seen = true;
	r->rec = *rec;
	if (rec->insn)
		r->insn = *rec->insn;
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

/* A VM instruction "executes" as a request to stop. */
static status_t vm_record(void *ctx, struct cpu *cpu, const struct insn *in, enum intercept_kind kind)
{
	struct recorder *r = ctx;
	r->vm_calls++;
	r->vm_kind = kind;
	r->vm_in = *in;
	cpu_request_stop(cpu);
	return ST_OK;
}

static const struct hv_model recording = { .name = "recording", .intercept = record };
static const struct hv_model recording_vm = { .name = "recording-vm", .intercept = record,
					      .vm_insn = vm_record };

/* ---- rows ---- */

enum {
	CPL3 = 1u << 0,            /* user mode (prot32, compat or 64-bit) */
	IOPL3 = 1u << 1,           /* EFLAGS.IOPL = 3 */
	AT = 1u << 2,              /* rip/next_rip are start + rip_off / next_off */
	REG2 = 1u << 3,            /* the instruction's ModRM.reg is reg2 */
	NOVEC = 1u << 4,           /* do not check the vectoring information */
};

struct row {
	const char *name;
	uint8_t env;               /* enum env */
	uint8_t flags;
	void (*setup)(struct test_machine *m);
	uint64_t r[16];            /* registers other than the pattern (0: pattern) */
	uint8_t code[15];
	uint8_t len;
	uint8_t pass;              /* asks let through before the recorded one */
	uint8_t before[6];         /* ... and their kinds */
	int8_t rip_off, next_off;  /* with AT */
	uint8_t asize;             /* the instruction's address size (0: not checked) */
	uint8_t reg2;              /* with REG2 */
	struct exit_record x;      /* the record expected */
};

#define CODE_(...) .code = { __VA_ARGS__ }, .len = sizeof((const uint8_t[]){ __VA_ARGS__ })
#define MEM(s, off, lin) .op = { .mem = true, .seg = (s), .offset = (off), .linear = (lin) }
#define GPR(n) .op = { .gpr = (n) }
#define EV(t, v) { .pending = true, .type = (t), .vector = (v) }
#define EV_LEN(t, v, l) { .pending = true, .type = (t), .vector = (v), .insn_len = (l) }
#define EV_ERR(v, e) { .pending = true, .type = EV_EXCEPTION, .vector = (v), .has_error = true, \
		       .error_code = (e) }
#define EXC(v) .kind = IK_EXCEPTION, .vector = (v), .event = EV(EV_EXCEPTION, v)
#define EXC_ERR(v, e) .kind = IK_EXCEPTION, .vector = (v), .event = EV_ERR(v, e)
#define GP0 EXC_ERR(EXC_GP, 0)
#define UD EXC(EXC_UD)
#define CR(n, acc, v) .kind = IK_CR_ACCESS, .cr = (n), .cr_access = (acc), .value = (v)
#define DR(n, acc, v) .kind = IK_DR_ACCESS, .cr = (n), .cr_access = (acc), .value = (v)
#define DESC(reg, w) .kind = IK_DESC_TABLE, .desc = (reg), .desc_write = (w)
#define IO(p, sz, in_, imm) .kind = IK_IO, .port = (p), .io_size = (sz), .io_in = (in_), \
			    .io_imm = (imm)
#define STR_IO(p, sz, in_, rep) IO(p, sz, in_, false), .io_string = true, .io_rep = (rep)

/* ---- row set-ups ---- */

static void set_cr4(struct test_machine *m, uint64_t bits) { m->cpu.cr4 |= bits; }
static void tsd(struct test_machine *m) { set_cr4(m, CR4_TSD); }
static void pce(struct test_machine *m) { set_cr4(m, CR4_PCE); }
static void de(struct test_machine *m) { set_cr4(m, CR4_DE); }
static void osxsave(struct test_machine *m) { set_cr4(m, CR4_OSXSAVE); }
static void ts(struct test_machine *m) { m->cpu.cr0 |= CR0_TS; }
static void set_flag(struct test_machine *m, uint64_t f)
{
	cpu_set_flags(&m->cpu, cpu_get_flags(&m->cpu) | f);
}
static void tf(struct test_machine *m) { set_flag(m, FLAG_TF); }
static void of(struct test_machine *m) { set_flag(m, FLAG_OF); }

/* Port 80H allowed in TSS_A's I/O bitmap (SDM Vol.1 19.5.2). */
static void allow_port80(struct test_machine *m)
{
	physmem_write(&m->pm, TSS_A + 0x68 + 0x80 / 8, 1, 0xfe);
}

/* 2 MiB - 4 MiB not present (PD[1]): #PF there in IA-32e mode. */
static void hole(struct test_machine *m)
{
	physmem_write(&m->pm, PD + 8, 8, 0);
}

/* The IDT on the not-present page: delivering any vector is a #PF. */
static void idt_in_hole(struct test_machine *m)
{
	hole(m);
	m->cpu.idtr.base = 0x200000;
}

/* Real mode: an IVT of 40H vectors, so INT 40H is #GP (SDM Vol.3 20.1.4). */
static void ivt_short(struct test_machine *m) { m->cpu.idtr.limit = 0xff; }

/* An IDT that ends before vector 0: every delivery faults, up to shutdown. */
static void no_idt(struct test_machine *m) { m->cpu.idtr.limit = 0; }

static void idt_task_gate(struct test_machine *m, unsigned vector)
{
	physmem_write(&m->pm, IDT + vector * 8, 8, mkgate(SEL_TSS_B, 0, SYS_TASK_GATE, 3, true, 0));
}
static void int40_task_gate(struct test_machine *m) { idt_task_gate(m, 0x40); }
static void gp_task_gate(struct test_machine *m) { idt_task_gate(m, EXC_GP); }

/* IRET with NT: back to TSS_B, the busy task TSS_A's link names. */
static void nested_task(struct test_machine *m)
{
	physmem_write(&m->pm, TSS_A, 2, SEL_TSS_B);
	physmem_write(&m->pm, GDT_BASE + SEL_TSS_B, 8, mkdesc(TSS_B, 0x67, SYS_TSS32_BUSY, false, 0, true,
								  false, false));
	set_flag(m, FLAG_NT);
}

/* DR0 = the first instruction, an enabled instruction breakpoint (SDM Vol.3 17.2.4). */
static void code_breakpoint(struct test_machine *m)
{
	m->cpu.dr[0] = m->cpu.seg[SR_CS].base + m->cpu.rip;
	m->cpu.dr[7] |= 1;
}

static void sysenter_cs(struct test_machine *m) { m->cpu.sysenter_cs = 0x1234; }

static const struct row rows[] = {
	/* ---- CPUID: intercepted at any CPL, in every mode ---- */
	{ "cpuid real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid compat", CM, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid prot32 cpl3", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid long64 cpl3", L64, CPL3, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },
	{ "cpuid v86", V86, 0, NULL, { 0 }, CODE_(0x0f, 0xa2), .x = { .kind = IK_CPUID } },

	/* ---- HLT, INVD, WBINVD: CPL 0 only, the #GP comes first (SDM Vol.3 25.1.1) ---- */
	{ "hlt real", REAL, 0, NULL, { 0 }, CODE_(0xf4), .x = { .kind = IK_HLT } },
	{ "hlt prot16", P16, 0, NULL, { 0 }, CODE_(0xf4), .x = { .kind = IK_HLT } },
	{ "hlt prot32", P32, 0, NULL, { 0 }, CODE_(0xf4), .x = { .kind = IK_HLT } },
	{ "hlt long64", L64, 0, NULL, { 0 }, CODE_(0xf4), .x = { .kind = IK_HLT } },
	{ "hlt cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0xf4), .x = { GP0 } },
	{ "hlt long64 cpl3 is #GP", L64, CPL3, NULL, { 0 }, CODE_(0xf4), .x = { GP0 } },
	{ "hlt v86 is #GP", V86, IOPL3, NULL, { 0 }, CODE_(0xf4), .x = { GP0 } },
	{ "invd real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x08), .x = { .kind = IK_INVD } },
	{ "invd prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x08), .x = { .kind = IK_INVD } },
	{ "invd long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x08), .x = { .kind = IK_INVD } },
	{ "invd cpl3 is #GP", L64, CPL3, NULL, { 0 }, CODE_(0x0f, 0x08), .x = { GP0 } },
	{ "wbinvd prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x09), .x = { .kind = IK_WBINVD } },
	{ "wbinvd compat", CM, 0, NULL, { 0 }, CODE_(0x0f, 0x09), .x = { .kind = IK_WBINVD } },
	{ "wbinvd long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x09), .x = { .kind = IK_WBINVD } },
	{ "wbinvd cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x09), .x = { GP0 } },
	{ "wbinvd v86 is #GP", V86, 0, NULL, { 0 }, CODE_(0x0f, 0x09), .x = { GP0 } },

	/* ---- INVLPG: the address operand ---- */
	/* invlpg [ebx+10h] */
	{ "invlpg prot32 disp8", P32, 0, NULL, { [R_BX] = 0x5000 }, CODE_(0x0f, 0x01, 0x7b, 0x10),
	  .asize = 4, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x5010, 0x5010) } },
	/* invlpg fs:[eax]: FS base FFFF0000H, the linear address wraps at 4 GiB */
	{ "invlpg prot32 fs wraps", P32, 0, NULL, { [R_AX] = 0x20000 }, CODE_(0x64, 0x0f, 0x01, 0x38),
	  .x = { .kind = IK_INVLPG, MEM(SR_FS, 0x20000, 0x10000) } },
	/* invlpg [bx] (addr16) */
	{ "invlpg prot32 addr16", P32, 0, NULL, { [R_BX] = 0x12345678 }, CODE_(0x67, 0x0f, 0x01, 0x3f),
	  .asize = 2, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x5678, 0x5678) } },
	/* invlpg [bx] */
	{ "invlpg real", REAL, 0, NULL, { [R_BX] = 0x1234 }, CODE_(0x0f, 0x01, 0x3f),
	  .asize = 2, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x1234, 0x31234) } },
	/* invlpg [bp+8]: SS by default */
	{ "invlpg real bp is ss", REAL, 0, NULL, { [R_BP] = 0x100 }, CODE_(0x0f, 0x01, 0x7e, 0x08),
	  .x = { .kind = IK_INVLPG, MEM(SR_SS, 0x108, 0x108) } },
	/* invlpg [bx+si] */
	{ "invlpg prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0x38),
	  .asize = 2, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x2900, 0x2900) } },
	/* invlpg [rax] */
	{ "invlpg long64", L64, 0, NULL, { [R_AX] = 0xffff800000001000 }, CODE_(0x0f, 0x01, 0x38),
	  .asize = 8, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0xffff800000001000, 0xffff800000001000) } },
	/* invlpg gs:[rbx] */
	{ "invlpg long64 gs", L64, 0, NULL, { [R_BX] = 0x1000 }, CODE_(0x65, 0x0f, 0x01, 0x3b),
	  .x = { .kind = IK_INVLPG, MEM(SR_GS, 0x1000, GS64_BASE + 0x1000) } },
	/* invlpg [eax] (addr32) */
	{ "invlpg long64 addr32", L64, 0, NULL, { [R_AX] = 0xdeadbeef00005000 },
	  CODE_(0x67, 0x0f, 0x01, 0x38), .asize = 4, .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x5000, 0x5000) } },
	/* invlpg [rip+1000h] */
	{ "invlpg long64 rip-relative", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0x3d, 0x00, 0x10, 0x00, 0x00),
	  .x = { .kind = IK_INVLPG, MEM(SR_DS, CODE + 7 + 0x1000, CODE + 7 + 0x1000) } },
	/* invlpg [r8] */
	{ "invlpg long64 r8", L64, 0, NULL, { [R_R8] = 0x7000 }, CODE_(0x41, 0x0f, 0x01, 0x38),
	  .x = { .kind = IK_INVLPG, MEM(SR_DS, 0x7000, 0x7000) } },
	/* invlpg fs:[ebx] */
	{ "invlpg compat fs wraps", CM, 0, NULL, { [R_BX] = 0x20000 }, CODE_(0x64, 0x0f, 0x01, 0x3b),
	  .x = { .kind = IK_INVLPG, MEM(SR_FS, 0x20000, 0x10000) } },
	{ "invlpg cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x01, 0x38), .x = { GP0 } },

	/* ---- INVPCID: memory descriptor, type register in ModRM.reg; the intercept
	 * precedes the descriptor's read and checks (SDM Vol.3 25.1.1, APM2 15.9) ---- */
	/* invpcid rcx, [rbx] */
	{ "invpcid long64", L64, REG2, NULL, { [R_BX] = DATA, [R_CX] = 1 },
	  CODE_(0x66, 0x0f, 0x38, 0x82, 0x0b), .asize = 8, .reg2 = 1,
	  .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, DATA, DATA) } },
	/* invpcid r9, [r8] */
	{ "invpcid long64 r9 [r8]", L64, REG2, NULL, { [R_R8] = DATA, [R_R9] = 2 },
	  CODE_(0x66, 0x45, 0x0f, 0x38, 0x82, 0x08), .reg2 = 9,
	  .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, DATA, DATA) } },
	{ "invpcid bad type: intercept first", L64, 0, NULL, { [R_BX] = DATA, [R_CX] = 4 },
	  CODE_(0x66, 0x0f, 0x38, 0x82, 0x0b), .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, DATA, DATA) } },
	{ "invpcid descriptor not present: intercept first", L64, 0, hole,
	  { [R_BX] = 0x200000, [R_CX] = 1 }, CODE_(0x66, 0x0f, 0x38, 0x82, 0x0b),
	  .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, 0x200000, 0x200000) } },
	/* invpcid ecx, [ebx] */
	{ "invpcid prot32", P32, REG2, NULL, { [R_BX] = DATA, [R_CX] = 1 },
	  CODE_(0x66, 0x0f, 0x38, 0x82, 0x0b), .asize = 4, .reg2 = 1,
	  .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, DATA, DATA) } },
	/* invpcid ecx, [bx] */
	{ "invpcid real", REAL, 0, NULL, { [R_BX] = 0x10, [R_CX] = 1 },
	  CODE_(0x66, 0x0f, 0x38, 0x82, 0x0f), .asize = 2,
	  .pass = 1, .before = { IK_INVPCID }, .x = { .kind = IK_INVPCID, MEM(SR_DS, 0x10, DATA + 0x10) } },
	{ "invpcid cpl3 is #GP", L64, CPL3, NULL, { [R_BX] = DATA }, CODE_(0x66, 0x0f, 0x38, 0x82, 0x0b),
	  .pass = 1, .before = { IK_INVPCID }, .x = { GP0 } },
	{ "invpcid v86 is #UD", V86, 0, NULL, { 0 }, CODE_(0x66, 0x0f, 0x38, 0x82, 0x0f), .pass = 1, .before = { IK_INVPCID }, .x = { UD } },

	/* ---- RDTSC, RDTSCP, RDPMC: CR4.TSD / CR4.PCE faults come first ----
	 * (RDTSCP and INVPCID ask once before their checks too: a VMX model
	 * that disables them raises #UD there, SDM Vol.3 25.3) */
	{ "rdtsc real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x31), .x = { .kind = IK_RDTSC } },
	{ "rdtsc prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x31), .x = { .kind = IK_RDTSC } },
	{ "rdtsc long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x31), .x = { .kind = IK_RDTSC } },
	{ "rdtsc cpl3", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x31), .x = { .kind = IK_RDTSC } },
	{ "rdtsc cpl3 tsd is #GP", P32, CPL3, tsd, { 0 }, CODE_(0x0f, 0x31), .x = { GP0 } },
	{ "rdtsc long64 cpl3 tsd is #GP", L64, CPL3, tsd, { 0 }, CODE_(0x0f, 0x31), .x = { GP0 } },
	{ "rdtscp prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf9), .pass = 1, .before = { IK_RDTSCP }, .x = { .kind = IK_RDTSCP } },
	{ "rdtscp prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf9), .pass = 1, .before = { IK_RDTSCP }, .x = { .kind = IK_RDTSCP } },
	{ "rdtscp long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf9), .pass = 1, .before = { IK_RDTSCP }, .x = { .kind = IK_RDTSCP } },
	{ "rdtscp cpl3 tsd is #GP", L64, CPL3, tsd, { 0 }, CODE_(0x0f, 0x01, 0xf9), .pass = 1, .before = { IK_RDTSCP }, .x = { GP0 } },
	/* ---- RDRAND, RDSEED: no checks of their own; the destination register ---- */
	{ "rdrand eax prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0xc7, 0xf0), .x = { .kind = IK_RDRAND, GPR(0) } },
	{ "rdrand r11 long64 cpl3", L64, CPL3, NULL, { 0 }, CODE_(0x49, 0x0f, 0xc7, 0xf3),
	  .x = { .kind = IK_RDRAND, GPR(11) } },
	{ "rdseed bx real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0xc7, 0xfb), .x = { .kind = IK_RDSEED, GPR(3) } },
	{ "rdpmc real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x33), .x = { .kind = IK_RDPMC } },
	{ "rdpmc prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x33), .x = { .kind = IK_RDPMC } },
	{ "rdpmc long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x33), .x = { .kind = IK_RDPMC } },
	{ "rdpmc cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x33), .x = { GP0 } },
	{ "rdpmc cpl3 pce", P32, CPL3, pce, { 0 }, CODE_(0x0f, 0x33), .x = { .kind = IK_RDPMC } },

	/* ---- PAUSE (F3 90; with REX.B it is XCHG R8, RAX) ---- */
	{ "pause real", REAL, 0, NULL, { 0 }, CODE_(0xf3, 0x90), .x = { .kind = IK_PAUSE } },
	{ "pause prot32", P32, 0, NULL, { 0 }, CODE_(0xf3, 0x90), .x = { .kind = IK_PAUSE } },
	{ "pause long64", L64, 0, NULL, { 0 }, CODE_(0xf3, 0x90), .x = { .kind = IK_PAUSE } },
	{ "pause cpl3", L64, CPL3, NULL, { 0 }, CODE_(0xf3, 0x90), .x = { .kind = IK_PAUSE } },
	{ "rep xchg r8, rax is no pause", L64, AT, NULL, { 0 }, CODE_(0xf3, 0x41, 0x90),
	  .rip_off = 3, .next_off = 3, .x = { UD } },

	/* ---- XSETBV: after the CR4.OSXSAVE #UD and the CPL #GP, before the value checks ---- */
	{ "xsetbv real", REAL, 0, osxsave, { 0 }, CODE_(0x0f, 0x01, 0xd1), .x = { .kind = IK_XSETBV } },
	{ "xsetbv prot32", P32, 0, osxsave, { 0 }, CODE_(0x0f, 0x01, 0xd1),
	  .x = { .kind = IK_XSETBV } },
	{ "xsetbv long64", L64, 0, osxsave, { 0 }, CODE_(0x0f, 0x01, 0xd1),
	  .x = { .kind = IK_XSETBV } },
	{ "xsetbv bad xcr: intercept first", L64, 0, osxsave, { [R_CX] = 1 }, CODE_(0x0f, 0x01, 0xd1),
	  .x = { .kind = IK_XSETBV } },
	{ "xsetbv cpl3 is #GP", P32, CPL3, osxsave, { 0 }, CODE_(0x0f, 0x01, 0xd1), .x = { GP0 } },
	{ "xsetbv without osxsave is #UD", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xd1), .x = { UD } },

	/* ---- PUSHF, POPF, IRET: the v8086 IOPL #GP comes first ---- */
	{ "pushf real", REAL, 0, NULL, { 0 }, CODE_(0x9c), .x = { .kind = IK_PUSHF } },
	{ "pushf prot16", P16, 0, NULL, { 0 }, CODE_(0x9c), .x = { .kind = IK_PUSHF } },
	{ "pushfw prot32", P32, 0, NULL, { 0 }, CODE_(0x66, 0x9c), .x = { .kind = IK_PUSHF } },
	{ "pushf long64 cpl3", L64, CPL3, NULL, { 0 }, CODE_(0x9c), .x = { .kind = IK_PUSHF } },
	{ "pushf v86 iopl3", V86, IOPL3, NULL, { 0 }, CODE_(0x9c), .x = { .kind = IK_PUSHF } },
	{ "pushf v86 iopl0 is #GP", V86, 0, NULL, { 0 }, CODE_(0x9c), .x = { GP0 } },
	{ "popf real", REAL, 0, NULL, { 0 }, CODE_(0x9d), .x = { .kind = IK_POPF } },
	{ "popf prot32", P32, 0, NULL, { 0 }, CODE_(0x9d), .x = { .kind = IK_POPF } },
	{ "popf long64", L64, 0, NULL, { 0 }, CODE_(0x9d), .x = { .kind = IK_POPF } },
	{ "popf v86 iopl3", V86, IOPL3, NULL, { 0 }, CODE_(0x9d), .x = { .kind = IK_POPF } },
	{ "popf v86 iopl0 is #GP", V86, 0, NULL, { 0 }, CODE_(0x9d), .x = { GP0 } },
	{ "iret real", REAL, 0, NULL, { 0 }, CODE_(0xcf), .x = { .kind = IK_IRET } },
	{ "iret prot16", P16, 0, NULL, { 0 }, CODE_(0xcf), .x = { .kind = IK_IRET } },
	{ "iret prot32", P32, 0, NULL, { 0 }, CODE_(0xcf), .x = { .kind = IK_IRET } },
	{ "iretq long64", L64, 0, NULL, { 0 }, CODE_(0x48, 0xcf), .x = { .kind = IK_IRET } },
	{ "iret v86 iopl3", V86, IOPL3, NULL, { 0 }, CODE_(0xcf), .x = { .kind = IK_IRET } },
	{ "iret v86 iopl0 is #GP", V86, 0, NULL, { 0 }, CODE_(0xcf), .x = { GP0 } },

	/* ---- INT n (the immediate is the vector), ICEBP, RSM ---- */
	{ "int 21h real", REAL, 0, NULL, { 0 }, CODE_(0xcd, 0x21),
	  .x = { .kind = IK_INTN, .vector = 0x21 } },
	{ "int 80h prot16", P16, 0, NULL, { 0 }, CODE_(0xcd, 0x80),
	  .x = { .kind = IK_INTN, .vector = 0x80 } },
	{ "int 80h prot32", P32, 0, NULL, { 0 }, CODE_(0xcd, 0x80),
	  .x = { .kind = IK_INTN, .vector = 0x80 } },
	{ "int 80h cpl3", P32, CPL3, NULL, { 0 }, CODE_(0xcd, 0x80),
	  .x = { .kind = IK_INTN, .vector = 0x80 } },
	{ "int 80h compat", CM, 0, NULL, { 0 }, CODE_(0xcd, 0x80),
	  .x = { .kind = IK_INTN, .vector = 0x80 } },
	{ "int 0ffh long64", L64, 0, NULL, { 0 }, CODE_(0xcd, 0xff),
	  .x = { .kind = IK_INTN, .vector = 0xff } },
	{ "int 3 (CD 03) long64", L64, 0, NULL, { 0 }, CODE_(0xcd, 0x03),
	  .x = { .kind = IK_INTN, .vector = 3 } },
	{ "int 21h v86 iopl3", V86, IOPL3, NULL, { 0 }, CODE_(0xcd, 0x21),
	  .x = { .kind = IK_INTN, .vector = 0x21 } },
	{ "int 21h v86 iopl0 is #GP", V86, 0, NULL, { 0 }, CODE_(0xcd, 0x21), .x = { GP0 } },
	{ "icebp real", REAL, 0, NULL, { 0 }, CODE_(0xf1), .x = { .kind = IK_ICEBP } },
	{ "icebp prot32", P32, 0, NULL, { 0 }, CODE_(0xf1), .x = { .kind = IK_ICEBP } },
	{ "icebp long64 cpl3", L64, CPL3, NULL, { 0 }, CODE_(0xf1), .x = { .kind = IK_ICEBP } },
	{ "icebp v86 iopl0", V86, 0, NULL, { 0 }, CODE_(0xf1), .x = { .kind = IK_ICEBP } },
	{ "rsm real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0xaa), .x = { .kind = IK_RSM } },
	{ "rsm prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0xaa), .x = { .kind = IK_RSM } },
	{ "rsm long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0xaa), .x = { .kind = IK_RSM } },
	{ "rsm not intercepted is #UD", P32, 0, NULL, { 0 }, CODE_(0x0f, 0xaa), .pass = 1,
	  .before = { IK_RSM }, .x = { UD } },

	/* ---- MOV CR (all CRs and GPRs: the loop tests below), CLTS, LMSW, SMSW ---- */
	/* mov cr0, eax */
	{ "mov cr0, eax real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x22, 0xc0),
	  .x = { CR(0, CR_MOV_TO, PAT32(0)) } },
	/* mov eax, cr3 */
	{ "mov eax, cr3 real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x20, 0xd8),
	  .x = { CR(3, CR_MOV_FROM, CR3_FLAT) } },
	/* mov cr4, eax */
	{ "mov cr4, eax prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x22, 0xe0),
	  .x = { CR(4, CR_MOV_TO, PAT32(0)) } },
	/* mov cr3, ecx: 32 bits */
	{ "mov cr3, ecx compat", CM, 0, NULL, { 0 }, CODE_(0x0f, 0x22, 0xd9),
	  .x = { CR(3, CR_MOV_TO, PAT32(1)), GPR(1) } },
	/* 0F 22 18: ModRM.mod = 0 still names a register (mov cr3, eax) */
	{ "mov cr3, eax mod=0", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x22, 0x18),
	  .x = { CR(3, CR_MOV_TO, PAT32(0)) } },
	{ "mov eax, cr1 is #UD", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x20, 0xc8), .x = { UD } },
	{ "mov cr5, eax is #UD", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x22, 0xe8), .x = { UD } },
	{ "lock mov eax, cr0 (no AMD CR8 alias) is #UD", CM, 0, NULL, { 0 }, CODE_(0xf0, 0x0f, 0x20, 0xc0),
	  .x = { UD } },
	{ "mov cr3, eax cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x22, 0xd8), .x = { GP0 } },
	{ "mov eax, cr0 cpl3 is #GP", L64, CPL3, NULL, { 0 }, CODE_(0x0f, 0x20, 0xc0), .x = { GP0 } },
	{ "mov eax, cr0 v86 is #GP", V86, IOPL3, NULL, { 0 }, CODE_(0x0f, 0x20, 0xc0), .x = { GP0 } },
	/* clts: the record's value is CR0 with TS clear */
	{ "clts real", REAL, 0, ts, { 0 }, CODE_(0x0f, 0x06), .x = { CR(0, CR_CLTS, CR0_ET) } },
	{ "clts prot32", P32, 0, ts, { 0 }, CODE_(0x0f, 0x06),
	  .x = { CR(0, CR_CLTS, CR0_ET | CR0_PE) } },
	{ "clts long64", L64, 0, ts, { 0 }, CODE_(0x0f, 0x06),
	  .x = { CR(0, CR_CLTS, CR0_PG | CR0_ET | CR0_PE) } },
	{ "clts cpl3 is #GP", P32, CPL3, ts, { 0 }, CODE_(0x0f, 0x06), .x = { GP0 } },
	/* lmsw ax: the record carries the 16-bit source */
	{ "lmsw ax", P32, 0, NULL, { [R_AX] = 0xdead000b }, CODE_(0x0f, 0x01, 0xf0),
	  .x = { CR(0, CR_LMSW, 0x000b) } },
	/* lmsw bx */
	{ "lmsw bx", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf3),
	  .x = { CR(0, CR_LMSW, PAT32(3)), GPR(3) } },
	/* lmsw [ebx] */
	{ "lmsw [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x33),
	  .x = { CR(0, CR_LMSW, 0xfff1), MEM(SR_DS, DATA, DATA) } },
	/* lmsw es:[bx] */
	{ "lmsw es:[bx] real", REAL, 0, NULL, { [R_BX] = 0x1000 }, CODE_(0x26, 0x0f, 0x01, 0x37),
	  .asize = 2, .x = { CR(0, CR_LMSW, 0xfff1), MEM(SR_ES, 0x1000, DATA) } },
	/* lmsw r13w */
	{ "lmsw r13w", L64, 0, NULL, { 0 }, CODE_(0x41, 0x0f, 0x01, 0xf5),
	  .x = { CR(0, CR_LMSW, PAT32(13)), GPR(13) } },
	/* lmsw [30000h] */
	{ "lmsw [disp32] long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0x34, 0x25, 0x00, 0x00, 0x03, 0x00),
	  .x = { CR(0, CR_LMSW, 0xfff1), MEM(SR_DS, DATA, DATA) } },
	/* The operand is read before the intercept (SDM Vol.3 25.1.1): its #PF wins. */
	{ "lmsw [rbx] not present is #PF", L64, 0, hole, { [R_BX] = 0x200000 }, CODE_(0x0f, 0x01, 0x33),
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_PF,
		 .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .cr2 = 0x200000 } } },
	{ "lmsw cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf0), .x = { GP0 } },
	{ "lmsw v86 is #GP", V86, IOPL3, NULL, { 0 }, CODE_(0x0f, 0x01, 0xf0), .x = { GP0 } },
	/* smsw eax */
	{ "smsw eax", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xe0),
	  .x = { CR(0, CR_SMSW, CR0_ET | CR0_PE) } },
	/* smsw bx */
	{ "smsw bx", P32, 0, NULL, { 0 }, CODE_(0x66, 0x0f, 0x01, 0xe3),
	  .x = { CR(0, CR_SMSW, CR0_ET | CR0_PE), GPR(3) } },
	/* smsw [ebx] */
	{ "smsw [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x23),
	  .x = { CR(0, CR_SMSW, CR0_ET | CR0_PE), MEM(SR_DS, DATA, DATA) } },
	{ "smsw ax real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0xe0),
	  .x = { CR(0, CR_SMSW, CR0_ET) } },
	/* smsw rax */
	{ "smsw rax", L64, 0, NULL, { 0 }, CODE_(0x48, 0x0f, 0x01, 0xe0),
	  .x = { CR(0, CR_SMSW, CR0_PG | CR0_ET | CR0_PE) } },
	/* smsw r15d */
	{ "smsw r15d", L64, 0, NULL, { 0 }, CODE_(0x41, 0x0f, 0x01, 0xe7),
	  .x = { CR(0, CR_SMSW, CR0_PG | CR0_ET | CR0_PE), GPR(15) } },
	{ "smsw cpl3 (not privileged)", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x01, 0xe0),
	  .x = { CR(0, CR_SMSW, CR0_ET | CR0_PE) } },

	/* ---- MOV DR: asked before its own checks (SDM Vol.3 25.1.3), then after them ---- */
	/* mov dr0, eax */
	{ "mov dr0, eax early", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x23, 0xc0),
	  .x = { DR(0, CR_MOV_TO, PAT32(0)), .phase = PHASE_BEFORE_CHECKS } },
	{ "mov dr0, eax checked", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x23, 0xc0), .pass = 1,
	  .before = { IK_DR_ACCESS }, .x = { DR(0, CR_MOV_TO, PAT32(0)) } },
	{ "mov dr0, eax cpl3 early exit beats #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x23, 0xc0),
	  .x = { DR(0, CR_MOV_TO, PAT32(0)), .phase = PHASE_BEFORE_CHECKS } },
	{ "mov dr0, eax cpl3 then #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x23, 0xc0), .pass = 1,
	  .before = { IK_DR_ACCESS }, .x = { GP0 } },
	/* mov eax, dr4: DR6 through the alias */
	{ "mov eax, dr4 de early exit beats #UD", P32, 0, de, { 0 }, CODE_(0x0f, 0x21, 0xe0),
	  .x = { DR(4, CR_MOV_FROM, 0xffff0ff0), .phase = PHASE_BEFORE_CHECKS } },
	{ "mov eax, dr4 de then #UD", P32, 0, de, { 0 }, CODE_(0x0f, 0x21, 0xe0), .pass = 1,
	  .before = { IK_DR_ACCESS }, .x = { UD } },
	{ "mov eax, dr4 checked", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x21, 0xe0), .pass = 1,
	  .before = { IK_DR_ACCESS }, .x = { DR(4, CR_MOV_FROM, 0xffff0ff0) } },
	/* mov dr7, eax */
	{ "mov dr7, eax real", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x23, 0xf8),
	  .x = { DR(7, CR_MOV_TO, PAT32(0)), .phase = PHASE_BEFORE_CHECKS } },
	{ "mov eax, dr0 v86 early", V86, 0, NULL, { 0 }, CODE_(0x0f, 0x21, 0xc0),
	  .x = { DR(0, CR_MOV_FROM, 0xd0), .phase = PHASE_BEFORE_CHECKS } },
	/* mov rax, dr8 (REX.R): an invalid opcode, ahead of every intercept */
	{ "mov rax, dr8 is #UD", L64, 0, NULL, { 0 }, CODE_(0x44, 0x0f, 0x21, 0xc0), .x = { UD } },

	/* ---- descriptor tables: SGDT 0, SIDT 1, LGDT 2, LIDT 3; SLDT, STR, LLDT, LTR ---- */
	/* sgdt [ebx] */
	{ "sgdt prot32", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x03), .asize = 4,
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, DATA, DATA) } },
	/* sidt [ebx] */
	{ "sidt prot32", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x0b),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_DS, DATA, DATA) } },
	/* lgdt [ebx] */
	{ "lgdt prot32", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x13),
	  .x = { DESC(DESC_GDTR, true), MEM(SR_DS, DATA, DATA) } },
	/* lidt [ebx] */
	{ "lidt prot32", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x1b),
	  .x = { DESC(DESC_IDTR, true), MEM(SR_DS, DATA, DATA) } },
	/* sidt cs:[ebx] */
	{ "sidt cs: prot32", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x2e, 0x0f, 0x01, 0x0b),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_CS, DATA, DATA) } },
	/* sgdt fs:[ebx] */
	{ "sgdt fs: prot32 wraps", P32, 0, NULL, { [R_BX] = 0x20000 }, CODE_(0x64, 0x0f, 0x01, 0x03),
	  .x = { DESC(DESC_GDTR, false), MEM(SR_FS, 0x20000, 0x10000) } },
	/* sgdt [bx] (addr16) */
	{ "sgdt prot32 addr16", P32, 0, NULL, { [R_BX] = 0x12345678 }, CODE_(0x67, 0x0f, 0x01, 0x07),
	  .asize = 2, .x = { DESC(DESC_GDTR, false), MEM(SR_DS, 0x5678, 0x5678) } },
	/* sidt [ebp+10h]: SS */
	{ "sidt [ebp] prot32", P32, 0, NULL, { [R_BP] = 0x8000 }, CODE_(0x0f, 0x01, 0x4d, 0x10),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_SS, 0x8010, 0x8010) } },
	/* sldt eax, sldt ebx, sldt si */
	{ "sldt eax", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xc0), .x = { DESC(DESC_LDTR, false) } },
	{ "sldt ebx", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xc3),
	  .x = { DESC(DESC_LDTR, false), GPR(3) } },
	{ "sldt si", P32, 0, NULL, { 0 }, CODE_(0x66, 0x0f, 0x00, 0xc6),
	  .x = { DESC(DESC_LDTR, false), GPR(6) } },
	/* sldt [ebx] */
	{ "sldt [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x00, 0x03),
	  .x = { DESC(DESC_LDTR, false), MEM(SR_DS, DATA, DATA) } },
	/* str edx */
	{ "str edx", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xca),
	  .x = { DESC(DESC_TR, false), GPR(2) } },
	/* str [ebx] */
	{ "str [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x00, 0x0b),
	  .x = { DESC(DESC_TR, false), MEM(SR_DS, DATA, DATA) } },
	/* lldt cx */
	{ "lldt cx", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd1),
	  .x = { DESC(DESC_LDTR, true), GPR(1) } },
	/* lldt [ebx] */
	{ "lldt [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x00, 0x13),
	  .x = { DESC(DESC_LDTR, true), MEM(SR_DS, DATA, DATA) } },
	/* ltr di */
	{ "ltr di", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xdf),
	  .x = { DESC(DESC_TR, true), GPR(7) } },
	/* ltr [ebx], ltr fs:[ebx] */
	{ "ltr [ebx]", P32, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x00, 0x1b),
	  .x = { DESC(DESC_TR, true), MEM(SR_DS, DATA, DATA) } },
	{ "ltr fs:[ebx] wraps", P32, 0, NULL, { [R_BX] = 0x20000 }, CODE_(0x64, 0x0f, 0x00, 0x1b),
	  .x = { DESC(DESC_TR, true), MEM(SR_FS, 0x20000, 0x10000) } },
	{ "sgdt cpl3 (no UMIP)", P32, CPL3, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x03),
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, DATA, DATA) } },
	{ "str cpl3", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x00, 0xc8), .x = { DESC(DESC_TR, false) } },
	{ "lgdt cpl3 is #GP", P32, CPL3, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x13),
	  .x = { GP0 } },
	{ "lldt cpl3 is #GP", P32, CPL3, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd0), .x = { GP0 } },
	{ "ltr cpl3 is #GP", L64, CPL3, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd8), .x = { GP0 } },
	/* sgdt [bx] */
	{ "sgdt real", REAL, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x0f, 0x01, 0x07), .asize = 2,
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, 0x10, DATA + 0x10) } },
	/* lgdt [bx] (o32) */
	{ "lgdt o32 real", REAL, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x66, 0x0f, 0x01, 0x17),
	  .x = { DESC(DESC_GDTR, true), MEM(SR_DS, 0x10, DATA + 0x10) } },
	/* lidt [ebx] (addr32) */
	{ "lidt real addr32", REAL, 0, NULL, { [R_BX] = 0x10010 }, CODE_(0x67, 0x0f, 0x01, 0x1b),
	  .asize = 4, .x = { DESC(DESC_IDTR, true), MEM(SR_DS, 0x10010, DATA + 0x10010) } },
	/* sidt es:[bx] */
	{ "sidt es: real", REAL, 0, NULL, { [R_BX] = 0x1000 }, CODE_(0x26, 0x0f, 0x01, 0x0f),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_ES, 0x1000, DATA) } },
	/* sidt [bp+4]: SS */
	{ "sidt [bp] real", REAL, 0, NULL, { [R_BP] = 0x100 }, CODE_(0x0f, 0x01, 0x4e, 0x04),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_SS, 0x104, 0x104) } },
	{ "sldt real is #UD", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xc0), .x = { UD } },
	{ "lldt real is #UD", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd0), .x = { UD } },
	{ "str v86 is #UD", V86, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xc8), .x = { UD } },
	{ "ltr v86 is #UD", V86, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd8), .x = { UD } },
	{ "sgdt v86", V86, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x0f, 0x01, 0x07),
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, 0x10, DATA + 0x10) } },
	{ "lidt v86 is #GP", V86, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x0f, 0x01, 0x1f), .x = { GP0 } },
	/* sgdt [bx], lldt ax, ltr [bx] */
	{ "sgdt prot16", P16, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x0f, 0x01, 0x07), .asize = 2,
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, 0x10, 0x10) } },
	{ "lldt ax prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x00, 0xd0),
	  .x = { DESC(DESC_LDTR, true) } },
	{ "ltr [bx] prot16", P16, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x0f, 0x00, 0x1f),
	  .x = { DESC(DESC_TR, true), MEM(SR_DS, 0x10, 0x10) } },
	/* sgdt [rbx] */
	{ "sgdt long64", L64, 0, NULL, { [R_BX] = 0x123456789abc }, CODE_(0x0f, 0x01, 0x03), .asize = 8,
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, 0x123456789abc, 0x123456789abc) } },
	/* sidt gs:[rbx] */
	{ "sidt gs: long64", L64, 0, NULL, { [R_BX] = 0x10 }, CODE_(0x65, 0x0f, 0x01, 0x0b),
	  .x = { DESC(DESC_IDTR, false), MEM(SR_GS, 0x10, GS64_BASE + 0x10) } },
	/* lgdt [ebx] (addr32) */
	{ "lgdt long64 addr32", L64, 0, NULL, { [R_BX] = 0xffffffff00001000 }, CODE_(0x67, 0x0f, 0x01, 0x13),
	  .asize = 4, .x = { DESC(DESC_GDTR, true), MEM(SR_DS, 0x1000, 0x1000) } },
	/* lidt [rip+100h] */
	{ "lidt long64 rip-relative", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x01, 0x1d, 0x00, 0x01, 0x00, 0x00),
	  .x = { DESC(DESC_IDTR, true), MEM(SR_DS, CODE + 7 + 0x100, CODE + 7 + 0x100) } },
	/* sgdt es:[rbx]: ES is ignored in 64-bit mode */
	{ "sgdt es: long64 is ds", L64, 0, NULL, { [R_BX] = DATA }, CODE_(0x26, 0x0f, 0x01, 0x03),
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, DATA, DATA) } },
	/* sldt r13d, str rax, lldt r15w, ltr [rbx] */
	{ "sldt r13d", L64, 0, NULL, { 0 }, CODE_(0x41, 0x0f, 0x00, 0xc5),
	  .x = { DESC(DESC_LDTR, false), GPR(13) } },
	{ "str rax", L64, 0, NULL, { 0 }, CODE_(0x48, 0x0f, 0x00, 0xc8),
	  .x = { DESC(DESC_TR, false) } },
	{ "lldt r15w", L64, 0, NULL, { 0 }, CODE_(0x41, 0x0f, 0x00, 0xd7),
	  .x = { DESC(DESC_LDTR, true), GPR(15) } },
	{ "ltr [rbx] long64", L64, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x00, 0x1b),
	  .x = { DESC(DESC_TR, true), MEM(SR_DS, DATA, DATA) } },
	/* sgdt [ebx], sgdt fs:[ebx] */
	{ "sgdt compat", CM, 0, NULL, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x03), .asize = 4,
	  .x = { DESC(DESC_GDTR, false), MEM(SR_DS, DATA, DATA) } },
	{ "sgdt fs: compat wraps", CM, 0, NULL, { [R_BX] = 0x20000 }, CODE_(0x64, 0x0f, 0x01, 0x03),
	  .x = { DESC(DESC_GDTR, false), MEM(SR_FS, 0x20000, 0x10000) } },

	/* ---- RDMSR, WRMSR: a read's value is the MSR's; a missing MSR exits before its #GP ---- */
	{ "rdmsr prot32", P32, 0, sysenter_cs, { [R_CX] = MSR_SYSENTER_CS }, CODE_(0x0f, 0x32),
	  .x = { .kind = IK_MSR, .msr = MSR_SYSENTER_CS, .value = 0x1234 } },
	{ "rdmsr real", REAL, 0, sysenter_cs, { [R_CX] = MSR_SYSENTER_CS }, CODE_(0x0f, 0x32),
	  .x = { .kind = IK_MSR, .msr = MSR_SYSENTER_CS, .value = 0x1234 } },
	{ "rdmsr missing msr: intercept first", P32, 0, NULL, { [R_CX] = 0xdeadbeef }, CODE_(0x0f, 0x32),
	  .x = { .kind = IK_MSR, .msr = 0xdeadbeef } },
	{ "rdmsr long64 efer", L64, 0, NULL, { [R_CX] = MSR_EFER }, CODE_(0x0f, 0x32),
	  .x = { .kind = IK_MSR, .msr = MSR_EFER, .value = EFER_LME | EFER_LMA | EFER_SCE } },
	{ "wrmsr prot32", P32, 0, NULL, { [R_CX] = MSR_SYSENTER_ESP, [R_DX] = 1, [R_AX] = 2 },
	  CODE_(0x0f, 0x30), .x = { .kind = IK_MSR, .msr = MSR_SYSENTER_ESP, .msr_write = true,
				    .value = 0x100000002 } },
	{ "wrmsr long64: EDX:EAX", L64, 0, NULL, { [R_CX] = MSR_LSTAR }, CODE_(0x0f, 0x30),
	  .x = { .kind = IK_MSR, .msr = MSR_LSTAR, .msr_write = true,
		 .value = (uint64_t)PAT32(2) << 32 | PAT32(0) } },
	{ "wrmsr missing msr: intercept first", L64, 0, NULL, { [R_CX] = 0x12345678 }, CODE_(0x0f, 0x30),
	  .x = { .kind = IK_MSR, .msr = 0x12345678, .msr_write = true,
		 .value = (uint64_t)PAT32(2) << 32 | PAT32(0) } },
	{ "rdmsr cpl3 is #GP", P32, CPL3, NULL, { [R_CX] = MSR_SYSENTER_CS }, CODE_(0x0f, 0x32),
	  .x = { GP0 } },
	{ "wrmsr v86 is #GP", V86, IOPL3, NULL, { [R_CX] = MSR_SYSENTER_CS }, CODE_(0x0f, 0x30),
	  .x = { GP0 } },

	/* ---- IN, OUT: port, size, direction, immediate or DX ---- */
	{ "in al, 80h", P32, 0, NULL, { 0 }, CODE_(0xe4, 0x80), .x = { IO(0x80, 1, true, true) } },
	{ "in eax, 80h", P32, 0, NULL, { 0 }, CODE_(0xe5, 0x80), .x = { IO(0x80, 4, true, true) } },
	{ "in ax, 80h", P32, 0, NULL, { 0 }, CODE_(0x66, 0xe5, 0x80),
	  .x = { IO(0x80, 2, true, true) } },
	{ "out 80h, al", P32, 0, NULL, { 0 }, CODE_(0xe6, 0x80), .x = { IO(0x80, 1, false, true) } },
	{ "out 0ffh, eax", P32, 0, NULL, { 0 }, CODE_(0xe7, 0xff), .x = { IO(0xff, 4, false, true) } },
	{ "out 80h, ax", P32, 0, NULL, { 0 }, CODE_(0x66, 0xe7, 0x80),
	  .x = { IO(0x80, 2, false, true) } },
	{ "in al, dx", P32, 0, NULL, { [R_DX] = 0x3f8 }, CODE_(0xec),
	  .x = { IO(0x3f8, 1, true, false) } },
	{ "in eax, dx", P32, 0, NULL, { [R_DX] = 0xcfc }, CODE_(0xed),
	  .x = { IO(0xcfc, 4, true, false) } },
	{ "in ax, dx", P32, 0, NULL, { [R_DX] = 0x1f0 }, CODE_(0x66, 0xed),
	  .x = { IO(0x1f0, 2, true, false) } },
	{ "out dx, al", P32, 0, NULL, { [R_DX] = 0xffff }, CODE_(0xee),
	  .x = { IO(0xffff, 1, false, false) } },
	{ "out dx, eax", P32, 0, NULL, { [R_DX] = 0xcf8 }, CODE_(0xef),
	  .x = { IO(0xcf8, 4, false, false) } },
	{ "out dx, ax", P32, 0, NULL, { [R_DX] = 0x3f8 }, CODE_(0x66, 0xef),
	  .x = { IO(0x3f8, 2, false, false) } },
	{ "in ax, 80h real", REAL, 0, NULL, { 0 }, CODE_(0xe5, 0x80),
	  .x = { IO(0x80, 2, true, true) } },
	{ "in eax, 80h real", REAL, 0, NULL, { 0 }, CODE_(0x66, 0xe5, 0x80),
	  .x = { IO(0x80, 4, true, true) } },
	{ "in al, dx real", REAL, 0, NULL, { [R_DX] = 0x60 }, CODE_(0xec),
	  .x = { IO(0x60, 1, true, false) } },
	{ "out dx, eax real", REAL, 0, NULL, { [R_DX] = 0x60 }, CODE_(0x66, 0xef),
	  .x = { IO(0x60, 4, false, false) } },
	{ "in ax, dx prot16", P16, 0, NULL, { [R_DX] = 0x70 }, CODE_(0xed),
	  .x = { IO(0x70, 2, true, false) } },
	{ "out 70h, al prot16", P16, 0, NULL, { 0 }, CODE_(0xe6, 0x70),
	  .x = { IO(0x70, 1, false, true) } },
	{ "in al, 80h long64", L64, 0, NULL, { 0 }, CODE_(0xe4, 0x80),
	  .x = { IO(0x80, 1, true, true) } },
	{ "in eax, 80h long64", L64, 0, NULL, { 0 }, CODE_(0xe5, 0x80),
	  .x = { IO(0x80, 4, true, true) } },
	{ "in ax, 80h long64", L64, 0, NULL, { 0 }, CODE_(0x66, 0xe5, 0x80),
	  .x = { IO(0x80, 2, true, true) } },
	{ "rex.w in eax, dx long64", L64, 0, NULL, { [R_DX] = 0x3f8 }, CODE_(0x48, 0xed),
	  .x = { IO(0x3f8, 4, true, false) } },
	{ "out dx, al long64", L64, 0, NULL, { [R_DX] = 0x3f8 }, CODE_(0xee),
	  .x = { IO(0x3f8, 1, false, false) } },
	{ "out dx, eax compat", CM, 0, NULL, { [R_DX] = 0x3f8 }, CODE_(0xef),
	  .x = { IO(0x3f8, 4, false, false) } },
	/* I/O permission (SDM Vol.1 19.5) before the intercept (SDM Vol.3 25.1.1) */
	{ "in cpl3 iopl0 denied is #GP", P32, CPL3, NULL, { 0 }, CODE_(0xe4, 0x80), .x = { GP0 } },
	{ "in cpl3 iopl0 bitmap allows", P32, CPL3, allow_port80, { 0 }, CODE_(0xe4, 0x80),
	  .x = { IO(0x80, 1, true, true) } },
	{ "out word cpl3 half allowed is #GP", P32, CPL3, allow_port80, { 0 }, CODE_(0x66, 0xe7, 0x80),
	  .x = { GP0 } },
	{ "in cpl3 iopl3", P32, CPL3 | IOPL3, NULL, { 0 }, CODE_(0xe4, 0x80),
	  .x = { IO(0x80, 1, true, true) } },
	{ "in long64 cpl3 denied is #GP", L64, CPL3, NULL, { [R_DX] = 0x80 }, CODE_(0xec),
	  .x = { GP0 } },
	{ "in v86 iopl3 bitmap denies is #GP", V86, IOPL3, NULL, { 0 }, CODE_(0xe4, 0x80),
	  .x = { GP0 } },
	{ "in v86 bitmap allows", V86, 0, allow_port80, { 0 }, CODE_(0xe4, 0x80),
	  .x = { IO(0x80, 1, true, true) } },

	/* ---- INS, OUTS: ES:rDI / seg:rSI, REP, address size ---- */
	{ "insb", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0x6c),
	  .x = { STR_IO(0x80, 1, true, false), MEM(SR_ES, DATA, DATA) } },
	{ "rep insd", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0xf3, 0x6d),
	  .x = { STR_IO(0x80, 4, true, true), MEM(SR_ES, DATA, DATA) } },
	{ "rep insw", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0x66, 0xf3, 0x6d),
	  .x = { STR_IO(0x80, 2, true, true), MEM(SR_ES, DATA, DATA) } },
	{ "repne insb", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0xf2, 0x6c),
	  .x = { STR_IO(0x80, 1, true, true), MEM(SR_ES, DATA, DATA) } },
	{ "fs insb: ES cannot be overridden", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA },
	  CODE_(0x64, 0x6c), .x = { STR_IO(0x80, 1, true, false), MEM(SR_ES, DATA, DATA) } },
	{ "insb addr16", P32, 0, NULL, { [R_DX] = 0x80, [R_DI] = 0x12345678 }, CODE_(0x67, 0x6c),
	  .asize = 2, .x = { STR_IO(0x80, 1, true, false), MEM(SR_ES, 0x5678, 0x5678) } },
	{ "outsb", P32, 0, NULL, { [R_DX] = 0x80, [R_SI] = DATA }, CODE_(0x6e),
	  .x = { STR_IO(0x80, 1, false, false), MEM(SR_DS, DATA, DATA) } },
	{ "outsd fs: wraps", P32, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0x20000 }, CODE_(0x64, 0x6f),
	  .x = { STR_IO(0x80, 4, false, false), MEM(SR_FS, 0x20000, 0x10000) } },
	{ "rep outsb es:", P32, 0, NULL, { [R_DX] = 0x80, [R_SI] = DATA }, CODE_(0xf3, 0x26, 0x6e),
	  .x = { STR_IO(0x80, 1, false, true), MEM(SR_ES, DATA, DATA) } },
	{ "insb real", REAL, 0, NULL, { [R_DX] = 0x80, [R_DI] = 0x1000 }, CODE_(0x6c),
	  .asize = 2, .x = { STR_IO(0x80, 1, true, false), MEM(SR_ES, 0x1000, DATA) } },
	{ "rep outsb real", REAL, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0x10 }, CODE_(0xf3, 0x6e),
	  .x = { STR_IO(0x80, 1, false, true), MEM(SR_DS, 0x10, DATA + 0x10) } },
	{ "outsb real addr32", REAL, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0x10010 }, CODE_(0x67, 0x6e),
	  .asize = 4, .x = { STR_IO(0x80, 1, false, false), MEM(SR_DS, 0x10010, DATA + 0x10010) } },
	{ "outsw gs: real", REAL, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0x10 }, CODE_(0x65, 0x6f),
	  .x = { STR_IO(0x80, 2, false, false), MEM(SR_GS, 0x10, 0x33010) } },
	{ "insw prot16", P16, 0, NULL, { [R_DX] = 0x80, [R_DI] = 0x10 }, CODE_(0x6d),
	  .x = { STR_IO(0x80, 2, true, false), MEM(SR_ES, 0x10, 0x10) } },
	{ "insb long64", L64, 0, NULL, { [R_DX] = 0x80, [R_DI] = 0x123456789000 }, CODE_(0x6c),
	  .asize = 8, .x = { STR_IO(0x80, 1, true, false), MEM(SR_ES, 0x123456789000, 0x123456789000) } },
	{ "rep rex.w insd long64", L64, 0, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0xf3, 0x48, 0x6d),
	  .x = { STR_IO(0x80, 4, true, true), MEM(SR_ES, DATA, DATA) } },
	{ "outsb gs: long64", L64, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0x10 }, CODE_(0x65, 0x6e),
	  .x = { STR_IO(0x80, 1, false, false), MEM(SR_GS, 0x10, GS64_BASE + 0x10) } },
	{ "outsb cs: long64 is ds", L64, 0, NULL, { [R_DX] = 0x80, [R_SI] = DATA }, CODE_(0x2e, 0x6e),
	  .x = { STR_IO(0x80, 1, false, false), MEM(SR_DS, DATA, DATA) } },
	{ "outsb long64 addr32", L64, 0, NULL, { [R_DX] = 0x80, [R_SI] = 0xffffffff00000010 },
	  CODE_(0x67, 0x6e), .asize = 4, .x = { STR_IO(0x80, 1, false, false), MEM(SR_DS, 0x10, 0x10) } },
	{ "insb cpl3 denied is #GP", P32, CPL3, NULL, { [R_DX] = 0x80, [R_DI] = DATA }, CODE_(0x6c),
	  .x = { GP0 } },

	/* ---- exceptions: the event, CR2 for #PF (CR2 itself untouched) ---- */
	{ "ud2 real (no error code)", REAL, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .x = { UD } },
	{ "ud2 prot16", P16, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .x = { UD } },
	{ "ud2 prot32", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .x = { UD } },
	{ "ud2 compat", CM, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .x = { UD } },
	{ "ud2 long64", L64, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .x = { UD } },
	/* mov ds, ax: selector beyond the GDT */
	{ "#GP(selector)", P32, 0, NULL, { [R_AX] = 0x7ff8 }, CODE_(0x8e, 0xd8),
	  .x = { EXC_ERR(EXC_GP, 0x7ff8) } },
	/* mov al, [rax]: non-canonical */
	{ "#GP(0) non-canonical", L64, 0, NULL, { [R_AX] = 0x8000000000000000 }, CODE_(0x8a, 0x00),
	  .x = { GP0 } },
	/* mov ax, [bx]: beyond the 64 KiB limit; real mode has no error code (SDM Vol.3 20.1.4) */
	{ "#GP real mode", REAL, 0, NULL, { [R_BX] = 0xffff }, CODE_(0x8b, 0x07),
	  .x = { EXC(EXC_GP) } },
	/* mov al, [rbx] / mov [rbx], al */
	{ "#PF read", L64, 0, hole, { [R_BX] = 0x200010 }, CODE_(0x8a, 0x03),
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_PF,
		 .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .cr2 = 0x200010 } } },
	{ "#PF write", L64, 0, hole, { [R_BX] = 0x200010 }, CODE_(0x88, 0x03),
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_PF,
		 .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .error_code = 2, .cr2 = 0x200010 } } },
	{ "#PF user read compat", CM, CPL3, hole, { [R_BX] = 0x3ffffc }, CODE_(0x8a, 0x03),
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_PF,
		 .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .error_code = 4, .cr2 = 0x3ffffc } } },
	/* nop with TF: a #DB trap after it */
	{ "#DB single step", P32, AT, tf, { 0 }, CODE_(0x90), .rip_off = 1, .next_off = 1,
	  .x = { EXC(EXC_DB) } },
	{ "#DB instruction breakpoint", L64, 0, code_breakpoint, { 0 }, CODE_(0x90),
	  .x = { EXC(EXC_DB) } },
	/* INT3, INTO, INT1: software exceptions name their instruction (SDM Vol.3 27.3.3) */
	{ "#BP int3 prot32", P32, AT, NULL, { 0 }, CODE_(0xcc), .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_BP, .event = EV_LEN(EV_SOFTEXC, EXC_BP, 1) } },
	{ "#BP int3 real", REAL, AT, NULL, { 0 }, CODE_(0xcc), .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_BP, .event = EV_LEN(EV_SOFTEXC, EXC_BP, 1) } },
	{ "#BP int3 long64", L64, AT, NULL, { 0 }, CODE_(0xcc), .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_BP, .event = EV_LEN(EV_SOFTEXC, EXC_BP, 1) } },
	{ "#OF into", P32, AT, of, { 0 }, CODE_(0xce), .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_OF, .event = EV_LEN(EV_SOFTEXC, EXC_OF, 1) } },
	{ "#OF into real", REAL, AT, of, { 0 }, CODE_(0xce), .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_OF, .event = EV_LEN(EV_SOFTEXC, EXC_OF, 1) } },
	{ "into without OF", P32, AT, NULL, { 0 }, CODE_(0xce), .rip_off = 1, .next_off = 1,
	  .x = { UD } },
	{ "into long64 is #UD", L64, 0, NULL, { 0 }, CODE_(0xce), .x = { UD } },
	{ "#DB icebp", P32, AT, NULL, { 0 }, CODE_(0xf1), .pass = 1, .before = { IK_ICEBP },
	  .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_DB, .event = EV_LEN(EV_PRIV_SOFTEXC, EXC_DB, 1) } },
	{ "int 40h event prot32", P32, AT, NULL, { 0 }, CODE_(0xcd, 0x40), .pass = 1, .before = { IK_INTN },
	  .rip_off = 0, .next_off = 2,
	  .x = { .kind = IK_EXCEPTION, .vector = 0x40, .event = EV_LEN(EV_SOFTINT, 0x40, 2) } },

	/* ---- faults while delivering: the event in flight is the vectoring information ---- */
	{ "#GP delivering int 40h", P32, 0, NULL, { 0 }, CODE_(0xcd, 0x40), .pass = 2,
	  .before = { IK_INTN, IK_EXCEPTION },
	  .x = { EXC_ERR(EXC_GP, 0x40 * 8 + 2), .vectoring_valid = true,
		 .vectoring = EV_LEN(EV_SOFTINT, 0x40, 2) } },
	{ "#PF delivering int 40h", L64, 0, idt_in_hole, { 0 }, CODE_(0xcd, 0x40), .pass = 2,
	  .before = { IK_INTN, IK_EXCEPTION },
	  .x = { .kind = IK_EXCEPTION, .vector = EXC_PF,
		 .event = { .pending = true, .type = EV_EXCEPTION, .vector = EXC_PF, .has_error = true,
			    .cr2 = 0x200000 + 0x40 * 16 },
		 .vectoring_valid = true, .vectoring = EV_LEN(EV_SOFTINT, 0x40, 2) } },
	{ "#GP delivering int 40h real", REAL, 0, ivt_short, { 0 }, CODE_(0xcd, 0x40), .pass = 2,
	  .before = { IK_INTN, IK_EXCEPTION },
	  .x = { EXC(EXC_GP), .vectoring_valid = true, .vectoring = EV_LEN(EV_SOFTINT, 0x40, 2) } },
	{ "#GP delivering #UD (EXT)", P32, 0, NULL, { 0 }, CODE_(0x0f, 0x0b), .pass = 1,
	  .before = { IK_EXCEPTION },
	  .x = { EXC_ERR(EXC_GP, EXC_UD * 8 + 2 + 1), .vectoring_valid = true,
		 .vectoring = EV(EV_EXCEPTION, EXC_UD) } },
	{ "#GP delivering int3", P32, 0, NULL, { 0 }, CODE_(0xcc), .pass = 1, .before = { IK_EXCEPTION },
	  .x = { EXC_ERR(EXC_GP, EXC_BP * 8 + 2), .vectoring_valid = true,
		 .vectoring = EV_LEN(EV_SOFTEXC, EXC_BP, 1) } },
	{ "#GP delivering icebp (EXT)", P32, 0, NULL, { 0 }, CODE_(0xf1), .pass = 2,
	  .before = { IK_ICEBP, IK_EXCEPTION },
	  .x = { EXC_ERR(EXC_GP, EXC_DB * 8 + 2 + 1), .vectoring_valid = true,
		 .vectoring = EV_LEN(EV_PRIV_SOFTEXC, EXC_DB, 1) } },
	/* #UD fails to deliver (#GP), so does that #GP (#DF, SDM Vol.3 Table 6-5) */
	/* Each fault while delivering is asked about before Table 6-5 combines it
	 * (APM2 15.12): #UD, #GP (delivering #UD), #GP (delivering #GP), then the
	 * #DF they make. */
	{ "#DF delivering #GP", P32, 0, no_idt, { 0 }, CODE_(0x0f, 0x0b), .pass = 3,
	  .before = { IK_EXCEPTION, IK_EXCEPTION, IK_EXCEPTION },
	  .x = { EXC_ERR(EXC_DF, 0), .vectoring_valid = true,
		 .vectoring = EV_ERR(EXC_GP, EXC_UD * 8 + 2 + 1) } },
	/* #UD, #GP, #DF each fail to deliver: a triple fault */
	{ "shutdown", P32, NOVEC, no_idt, { 0 }, CODE_(0x0f, 0x0b), .pass = 5,
	  .before = { IK_EXCEPTION, IK_EXCEPTION, IK_EXCEPTION, IK_EXCEPTION, IK_EXCEPTION },
	  .x = { .kind = IK_SHUTDOWN } },

	/* ---- task switches: the TSS selector and the source ---- */
	/* jmp 60h:0 (TSS_B), call 68h:0 (task gate to TSS_B) */
	{ "jmp tss", P32, AT, NULL, { 0 }, CODE_(0xea, 0, 0, 0, 0, SEL_TSS_B, 0),
	  .rip_off = 0, .next_off = 7,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_JMP } },
	{ "jmp tss prot16", P16, AT, NULL, { 0 }, CODE_(0xea, 0, 0, SEL_TSS_B, 0),
	  .rip_off = 0, .next_off = 5,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_JMP } },
	{ "call tss", P32, AT, NULL, { 0 }, CODE_(0x9a, 0, 0, 0, 0, SEL_TSS_B, 0),
	  .rip_off = 0, .next_off = 7,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_CALL } },
	{ "call task gate", P32, AT, NULL, { 0 }, CODE_(0x9a, 0, 0, 0, 0, SEL_TASK_GATE, 0),
	  .rip_off = 0, .next_off = 7,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_CALL } },
	{ "jmp task gate cpl3", P32, AT | CPL3, NULL, { 0 }, CODE_(0xea, 0, 0, 0, 0, SEL_TASK_GATE | 3, 0),
	  .rip_off = 0, .next_off = 7,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_JMP } },
	/* the descriptor checks come first (SDM Vol.3 25.4.2) */
	{ "jmp tss cpl3 is #GP(sel)", P32, CPL3, NULL, { 0 }, CODE_(0xea, 0, 0, 0, 0, SEL_TSS_B | 3, 0),
	  .x = { EXC_ERR(EXC_GP, SEL_TSS_B) } },
	{ "iret nt", P32, AT, nested_task, { 0 }, CODE_(0xcf), .pass = 1, .before = { IK_IRET },
	  .rip_off = 0, .next_off = 1,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_IRET } },
	{ "int 40h task gate", P32, AT, int40_task_gate, { 0 }, CODE_(0xcd, 0x40), .pass = 2,
	  .before = { IK_INTN, IK_EXCEPTION }, .rip_off = 0, .next_off = 2,
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_GATE,
		 .event = EV_LEN(EV_SOFTINT, 0x40, 2), .vectoring_valid = true,
		 .vectoring = EV_LEN(EV_SOFTINT, 0x40, 2) } },
	{ "#GP task gate", P32, 0, gp_task_gate, { [R_AX] = 0x7ff8 }, CODE_(0x8e, 0xd8), .pass = 1,
	  .before = { IK_EXCEPTION },
	  .x = { .kind = IK_TASK_SWITCH, .tss_selector = SEL_TSS_B, .ts_source = TS_GATE,
		 .event = EV_ERR(EXC_GP, 0x7ff8), .vectoring_valid = true,
		 .vectoring = EV_ERR(EXC_GP, 0x7ff8) } },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

/* ---- running a row ---- */

static uint64_t code_start(enum env e)
{
	return e == REAL || e == P16 || e == V86 ? 0 : CODE;
}

static void real_segments(struct cpu *c, bool v86)
{
	for (unsigned s = 0; s < SR_COUNT; s++) {
		struct segment *seg = &c->seg[s];
		if (v86) {
			seg_load_v86(seg, real_sel[s]);
			continue;
		}
		seg->selector = real_sel[s];
		seg->base = (uint32_t)real_sel[s] << 4;
		seg->limit = 0xffff;
		seg->attr = SEG_P | SEG_S | SEG_TYPE_RW | SEG_TYPE_ACCESSED |
			    (s == SR_CS ? SEG_TYPE_CODE : 0);
		seg_refresh(seg);
	}
}

static void load_sel(struct test_machine *m, struct segment *s, uint16_t sel)
{
	seg_load_descriptor(s, sel, physmem_read(&m->pm, GDT_BASE + (sel & ~7u), 8));
}

/* The code at CODE followed by UD2, RIP at its start, no stop pending. */
static void load_code(struct test_machine *m, uint64_t start, const uint8_t *code, unsigned len)
{
	physmem_write_bytes(&m->pm, CODE, code, len);
	physmem_write_bytes(&m->pm, CODE + len, (const uint8_t[]){ 0x0f, 0x0b }, 2);
	cpu_notify_phys_write(&m->cpu, CODE, len + 2);
	m->cpu.rip = start;
	m->cpu.stop_requested = false;
}

/* The machine of env at CPL 0 (or 3), registers from the pattern; the row's
 * set-up and registers; its code at CODE followed by UD2. */
static void enter(struct test_machine *m, enum env e, unsigned flags,
		  void (*setup)(struct test_machine *), const uint64_t *regs, const uint8_t *code,
		  unsigned len)
{
	machine_init(m, MODEL);
	struct cpu *c = &m->cpu;
	struct physmem *pm = &m->pm;

	physmem_write(pm, GDT_BASE + SEL_CODE16, 8, make_desc(CODE, 0xffff, 0x9b, 0));
	physmem_write(pm, GDT_BASE + SEL_CODE3, 8, make_desc(0, 0xfffff, 0xfb, 0xc));
	physmem_write(pm, GDT_BASE + SEL_DATA3, 8, make_desc(0, 0xfffff, 0xf3, 0xc));
	physmem_write(pm, GDT_BASE + SEL_CODE64_3, 8, make_desc(0, 0xfffff, 0xfb, 0xa));
	physmem_write(pm, GDT_BASE + SEL_FSWRAP, 8, make_desc(FS32_BASE, 0xfffff, 0x93, 0xc));
	physmem_write(pm, GDT_BASE + SEL_TSS_A, 8,
		      mkdesc(TSS_A, TSS_A_LIMIT, SYS_TSS32_BUSY, false, 0, true, false, false));
	physmem_write(pm, GDT_BASE + SEL_TSS_B, 8,
		      mkdesc(TSS_B, 0x67, SYS_TSS32_AVAIL, false, 0, true, false, false));
	physmem_write(pm, GDT_BASE + SEL_TASK_GATE, 8, mkgate(SEL_TSS_B, 0, SYS_TASK_GATE, 3, true, 0));
	c->gdtr.limit = GDT_LIMIT;
	/* TSS_A: I/O bitmap at 68H, every port denied (SDM Vol.1 19.5.2). */
	physmem_write(pm, TSS_A + 0x66, 2, 0x68);
	for (unsigned i = 0x68; i <= TSS_A_LIMIT; i++)
		physmem_write(pm, TSS_A + i, 1, 0xff);
	load_sel(m, &c->tr, SEL_TSS_A);
	physmem_write(pm, DATA, 8, 0x0123456789abfff1);
	/* User-accessible page tables, so CPL 3 code runs in IA-32e mode. */
	physmem_write(pm, PML4, 8, PDPT | 7);
	physmem_write(pm, PDPT, 8, PD | 7);
	for (unsigned i = 0; i < 512; i++)
		physmem_write(pm, PD + i * 8, 8, ((uint64_t)i << 21) | 0x87);

	c->idtr.base = IDT;
	c->idtr.limit = 256 * 8 - 1;
	c->cr3 = CR3_FLAT;
	switch (e) {
	case REAL:
		c->cr0 = CR0_ET;
		c->idtr.base = 0;
		c->idtr.limit = 0x3ff;
		real_segments(c, false);
		break;
	case V86:
		real_segments(c, true);
		break;
	case P16:
		load_sel(m, &c->seg[SR_CS], SEL_CODE16);
		load_sel(m, &c->seg[SR_FS], SEL_FSWRAP);
		break;
	case P32:
		load_sel(m, &c->seg[SR_FS], SEL_FSWRAP);
		break;
	case CM:
	case L64:
		activate(m);
		c->idtr.limit = 256 * 16 - 1;
		if (e == CM) {
			to_compat(m);
			load_sel(m, &c->seg[SR_FS], SEL_FSWRAP);
		} else {
			to64(m);
			c->seg[SR_FS].base = FS64_BASE;
			c->seg[SR_GS].base = GS64_BASE;
		}
		break;
	}
	if (flags & CPL3) {
		ck_assert(e == P32 || e == CM || e == L64);
		load_sel(m, &c->seg[SR_CS], (e == L64 ? SEL_CODE64_3 : SEL_CODE3) | 3);
		for (unsigned s = SR_ES; s <= SR_GS; s++)
			if (s != SR_CS && s != SR_FS)
				load_sel(m, &c->seg[s], SEL_DATA3 | 3);
		c->cpl = 3;
	}
	cpu_set_flags(c, FLAG_FIXED1 | (flags & IOPL3 ? FLAG_IOPL : 0) | (e == V86 ? FLAG_VM : 0));
	cpu_update_mode(c);
	c->cr2 = CR2_INIT;
	c->cr8 = CR8_INIT;
	for (unsigned i = 0; i < 4; i++)
		c->dr[i] = 0xd0 + i;
	for (unsigned i = 0; i < 16; i++)
		c->regs[i] = PAT(i);
	c->regs[R_SP] = STACK;
	c->rip = code_start(e);

	if (setup)
		setup(m);
	for (unsigned i = 0; regs && i < 16; i++)
		if (regs[i])
			c->regs[i] = regs[i];
	tlb_flush_all(&c->tlb);
	load_code(m, c->rip, code, len);
}

/* Run until the recorder stops the CPU. */
static void run(struct test_machine *m, struct recorder *rec, const struct hv_model *hv,
		const char *name)
{
	struct cpu *c = &m->cpu;
	c->hv = hv;
	c->hv_ctx = rec;
	c->in_guest = true;
	c->icount_limit = c->icount + 64;
	status_t st = cpu_run(c);
	ck_assert_msg(st == ST_VMEXIT || st == ST_STOP, "%s: cpu_run returned %d", name, st);
}

#define SAME(f) ck_assert_msg((uint64_t)(g->f) == (uint64_t)(w->f), "%s: " #f " is %#" PRIx64 \
			      ", want %#" PRIx64, name, (uint64_t)(g->f), (uint64_t)(w->f))

static void check_event(const char *name, const struct event *g, const struct event *w)
{
	SAME(pending);
	SAME(type);
	SAME(vector);
	SAME(has_error);
	SAME(injected);
	SAME(insn_len);
	SAME(error_code);
	SAME(cr2);
}

/* Every field of the record (the instruction pointer only as present or not). */
static void check_record(const char *name, const struct exit_record *g, const struct exit_record *w,
			 bool vectoring)
{
	ck_assert_msg(g->kind == w->kind, "%s: kind is %s (vector %u), want %s", name,
		      intercept_name(g->kind), g->vector, intercept_name(w->kind));
	SAME(phase);
	SAME(rip);
	SAME(next_rip);
	SAME(op.mem);
	SAME(op.gpr);
	SAME(op.seg);
	SAME(op.offset);
	SAME(op.linear);
	SAME(cr);
	SAME(cr_access);
	SAME(value);
	SAME(desc);
	SAME(desc_write);
	SAME(msr);
	SAME(msr_write);
	SAME(port);
	SAME(io_size);
	SAME(io_in);
	SAME(io_string);
	SAME(io_rep);
	SAME(io_imm);
	SAME(vector);
	SAME(tss_selector);
	SAME(ts_source);
	check_event(name, &g->event, &w->event);
	if (vectoring) {
		SAME(vectoring_valid);
		if (w->vectoring_valid)
			check_event(name, &g->vectoring, &w->vectoring);
	}
	SAME(fault.vector);
	SAME(fault.address);
}

static bool is_insn_kind(enum intercept_kind k)
{
	return k < IK_EXCEPTION;
}

START_TEST(record_rows)
{
	const struct row *r = &rows[_i];
	struct test_machine m;
	struct recorder rec = { .pass = r->pass };

	enter(&m, r->env, r->flags, r->setup, r->r, r->code, r->len);
	uint64_t start = m.cpu.rip;
	run(&m, &rec, &recording, r->name);
	ck_assert_msg(rec.seen, "%s: nothing was intercepted (%u asks)", r->name, rec.asks);
	for (unsigned i = 0; i < r->pass; i++)
		ck_assert_msg(rec.log[i].kind == r->before[i], "%s: ask %u was %s, want %s", r->name, i,
			      intercept_name(rec.log[i].kind), intercept_name(r->before[i]));

	struct exit_record want = r->x;
	bool insn = is_insn_kind(want.kind);
	want.rip = start + (r->flags & AT ? r->rip_off : 0);
	want.next_rip = start + (r->flags & AT ? r->next_off : insn ? r->len : 0);
	check_record(r->name, &rec.rec, &want, !(r->flags & NOVEC));

	/* The instruction: present for instruction kinds, the row's, of the
	 * table row whose intercept column names this kind. */
	ck_assert_msg((rec.rec.insn != NULL) == insn, "%s: insn pointer", r->name);
	if (insn) {
		ck_assert_uint_eq(rec.insn.len, want.next_rip - want.rip);
		ck_assert_msg(isa_rows[rec.insn.row].intercept == want.kind, "%s: row %s intercepts %s",
			      r->name, isa_rows[rec.insn.row].mnemonic,
			      intercept_name(isa_rows[rec.insn.row].intercept));
		/* The record carries them itself (VMX instruction information). */
		ck_assert_uint_eq(rec.rec.op.asize, rec.insn.asize);
		ck_assert_uint_eq(rec.rec.op.osize, rec.insn.osize);
		if (r->asize)
			ck_assert_uint_eq(rec.rec.op.asize, r->asize);
		if (r->flags & REG2)
			ck_assert_uint_eq(rec.rec.op.reg, r->reg2);
	}
	/* A #PF reaches the model before CR2 is written (APM2 15.12, SDM Vol.3 27.1). */
	if (want.kind == IK_EXCEPTION && want.vector == EXC_PF)
		ck_assert_uint_eq(m.cpu.cr2, CR2_INIT);
	machine_free(&m);
}
END_TEST

/* ---- the full operand: what VMX's instruction information reports ---- */

/* SDM Vol.3 27.2.5 (VM-exit instruction information): scaling, address
 * size, segment, index and base registers, the second register; the
 * displacement is the exit qualification's. One row per addressing form. */
static const struct operand_case {
	const char *name;
	uint8_t env;
	uint8_t code[12];
	uint8_t len;
	uint8_t kind;
	uint8_t seg, base, index, scale, asize, osize, reg;
	int64_t disp;
} operand_cases[] = {
	/* invlpg [rax+rcx*4+10h] */
	{ "base+index*4+disp8", L64, CODE_(0x0f, 0x01, 0x7c, 0x88, 0x10), IK_INVLPG,
	  SR_DS, R_AX, R_CX, 2, 8, 4, 7, 0x10 },
	/* invlpg [ebp-8]: SS by default */
	{ "ebp-8", P32, CODE_(0x0f, 0x01, 0x7d, 0xf8), IK_INVLPG, SR_SS, R_BP, REG_NONE, 0, 4, 4, 7, -8 },
	/* invlpg fs:[r9+r10*8-100h] */
	{ "fs:r9+r10*8+disp32", L64, CODE_(0x64, 0x43, 0x0f, 0x01, 0xbc, 0xd1, 0x00, 0xff, 0xff, 0xff),
	  IK_INVLPG, SR_FS, 9, 10, 3, 8, 4, 7, -0x100 },
	/* invlpg [rip+20h] */
	{ "rip-relative", L64, CODE_(0x0f, 0x01, 0x3d, 0x20, 0, 0, 0), IK_INVLPG, SR_DS, REG_RIP, REG_NONE,
	  0, 8, 4, 7, 0x20 },
	/* invlpg [67: esi]: 32-bit addressing in 64-bit mode */
	{ "addr32 esi", L64, CODE_(0x67, 0x0f, 0x01, 0x3e), IK_INVLPG, SR_DS, R_SI, REG_NONE, 0, 4, 4, 7, 0 },
	/* invpcid rdx, [rbx+rsi*2] */
	{ "invpcid reg2", L64, CODE_(0x66, 0x0f, 0x38, 0x82, 0x14, 0x73), IK_INVPCID, SR_DS, R_BX, R_SI, 1,
	  8, 8, R_DX, 0 },   /* 66 is mandatory here: 64-bit operands */
	/* o16 smsw [rax]: the operand size */
	{ "smsw o16", L64, CODE_(0x66, 0x0f, 0x01, 0x20), IK_CR_ACCESS, SR_DS, R_AX, REG_NONE, 0, 8, 2, 4, 0 },
};
#define N_OPERAND (sizeof(operand_cases) / sizeof(operand_cases[0]))

START_TEST(operand_forms)
{
	const struct operand_case *o = &operand_cases[_i];
	struct test_machine m;
	struct recorder rec = { 0 };
	const uint64_t regs[16] = { [R_AX] = DATA, [R_BX] = DATA, [R_CX] = 4, [R_BP] = DATA + 8,
				    [R_SI] = 2, [R_DX] = 1, [9] = DATA, [10] = 2 };
	enter(&m, o->env, 0, NULL, regs, o->code, o->len);
	run(&m, &rec, &recording, o->name);
	ck_assert_msg(rec.seen && rec.rec.kind == o->kind, "%s: %s", o->name, intercept_name(rec.rec.kind));
	const struct exit_operand *g = &rec.rec.op;
	ck_assert_msg(g->mem, "%s: memory operand", o->name);
	ck_assert_uint_eq(g->seg, o->seg);
	ck_assert_uint_eq(g->base, o->base);
	ck_assert_uint_eq(g->index, o->index);
	ck_assert_uint_eq(g->scale, o->scale);
	ck_assert_int_eq(g->disp, o->disp);
	ck_assert_uint_eq(g->asize, o->asize);
	ck_assert_uint_eq(g->osize, o->osize);
	ck_assert_uint_eq(g->reg, o->reg);
	machine_free(&m);
}
END_TEST

/* ---- NMI unblocking due to IRET ---- */

/* An IRET that ends NMI blocking and then faults: the exception's record
 * says so (SDM Vol.3 27.2.3 "NMI unblocking due to IRET"); the same fault
 * without NMI blocking does not. iret to CS 0 is #GP(0). */
START_TEST(nmi_unblocked_by_iret)
{
	for (unsigned blocked = 0; blocked < 2; blocked++) {
		struct test_machine m;
		struct recorder rec = { .pass = 1 };   /* the IRET intercept passes */
		enter(&m, P32, 0, NULL, NULL, (const uint8_t[]){ 0xcf }, 1);
		physmem_write(&m.pm, STACK, 4, CODE);
		physmem_write(&m.pm, STACK + 4, 4, 0);
		physmem_write(&m.pm, STACK + 8, 4, FLAG_FIXED1);
		m.cpu.nmi_blocked = blocked;
		run(&m, &rec, &recording, "iret");
		ck_assert_uint_eq(rec.log[0].kind, IK_IRET);
		ck_assert_uint_eq(rec.rec.kind, IK_EXCEPTION);
		ck_assert_uint_eq(rec.rec.vector, EXC_GP);
		ck_assert_uint_eq(rec.rec.nmi_unblocked_by_iret, blocked);
		ck_assert(!m.cpu.nmi_blocked);
		machine_free(&m);
	}
}
END_TEST

/* ---- the APIC-virtualization kinds: what their records carry ---- */

START_TEST(apic_kinds)
{
	static const struct {
		uint8_t kind;
		uint16_t offset;
		uint8_t access;
		uint8_t vector;
	} cases[] = {
		{ IK_APIC_ACCESS, 0x300, APIC_LINEAR_WRITE, 0 },
		{ IK_APIC_ACCESS, 0x0b0, APIC_DELIVERY_ACCESS, 0 },
		{ IK_APIC_WRITE, 0x080, 0, 0 },
		{ IK_VIRTUALIZED_EOI, 0, 0, 0x31 },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_machine m;
		struct recorder rec = { 0 };
		enter(&m, L64, 0, NULL, NULL, (const uint8_t[]){ 0x90 }, 1);
		m.cpu.hv = &recording;
		m.cpu.hv_ctx = &rec;
		m.cpu.in_guest = true;
		status_t st = cases[i].kind == IK_VIRTUALIZED_EOI
			? hv_intercept_vector(&m.cpu, IK_VIRTUALIZED_EOI, cases[i].vector)
			: hv_intercept_apic(&m.cpu, NULL, cases[i].kind, cases[i].offset,
					    (enum apic_access)cases[i].access);
		ck_assert_int_eq(st, ST_VMEXIT);
		struct exit_record want = { .kind = cases[i].kind, .rip = m.cpu.rip, .next_rip = m.cpu.rip,
					    .vector = cases[i].vector };
		/* An APIC-access exit is fault-like (SDM Vol.3 29.4): the
		 * instruction's own RIP; an APIC-write exit trap-like. */
		if (cases[i].kind == IK_APIC_ACCESS)
			want.rip = m.cpu.insn_start;
		check_record(intercept_name(cases[i].kind), &rec.rec, &want, true);
		ck_assert_uint_eq(rec.rec.apic_offset, cases[i].offset);
		ck_assert_uint_eq(rec.rec.apic_access, cases[i].access);
		machine_free(&m);
	}
}
END_TEST

/* ---- outside guest mode: the model's checks of CR0/CR4 writes ---- */

/* A model in VMX operation with fixed bits (SDM Vol.3 "Restrictions on VMX
 * Operation", IA32_VMX_CR0_FIXED0/1, IA32_VMX_CR4_FIXED0/1): CR0.NE and
 * CR4.VMXE must stay 1; for the test also CR0.TS must stay 1 (CLTS) and
 * CR0.EM stay 0 (LMSW). */
static unsigned cr_checks;

static status_t fixed_bits(void *ctx, struct cpu *cpu, unsigned cr, enum cr_access access, uint64_t value)
{
	(void)ctx;
	(void)access;
	cr_checks++;
	uint64_t must1 = cr == 0 ? CR0_NE | CR0_TS : CR4_VMXE, must0 = cr == 0 ? CR0_EM : 0;
	if ((value & must1) != must1 || (value & must0))
		return cpu_raise_err(cpu, EXC_GP, 0);
	return ST_OK;
}

static const struct hv_model fixed_model = { .name = "fixed", .intercept = record,
					     .cr_write_check = fixed_bits };

START_TEST(root_cr_checks)
{
	static const struct {
		const char *name;
		uint8_t code[4];
		uint8_t len;
		uint64_t rax_clear, rax_set;   /* RAX = CRn with these bits changed */
		unsigned cr;
	} cases[] = {
		{ "mov cr0 clearing NE", CODE_(0x0f, 0x22, 0xc0), CR0_NE, 0, 0 },
		{ "mov cr4 clearing VMXE", CODE_(0x0f, 0x22, 0xe0), CR4_VMXE, 0, 4 },
		{ "clts", CODE_(0x0f, 0x06), 0, 0, 0 },
		{ "lmsw setting EM", CODE_(0x0f, 0x01, 0xf0), 0, CR0_EM, 0 },
	};
	/* _i: case x {model checks, no checks}. */
	unsigned c = (unsigned)_i / 2;
	bool checks = !(_i & 1);
	struct test_machine m;
	struct recorder rec = { 0 };
	enter(&m, P32, 0, NULL, NULL, cases[c].code, cases[c].len);
	m.cpu.cr0 |= CR0_NE | CR0_TS;
	m.cpu.cr4 |= CR4_VMXE;
	uint64_t before = cases[c].cr ? m.cpu.cr4 : m.cpu.cr0;
	m.cpu.regs[R_AX] = (before & ~cases[c].rax_clear) | cases[c].rax_set;
	m.cpu.hv = &fixed_model;
	m.cpu.hv_ctx = &rec;
	m.cpu.hv_cr_checks = checks;
	m.cpu.in_guest = false;
	cr_checks = 0;
	m.cpu.icount_limit = m.cpu.icount + 16;
	/* Outside guest mode the #GP, or UD2's #UD after the instruction, goes
	 * through the IDT without gates: shutdown, the fault chain names it. */
	ck_assert_int_eq(cpu_run(&m.cpu), ST_SHUTDOWN);
	uint64_t after = cases[c].cr ? m.cpu.cr4 : m.cpu.cr0;
	ck_assert_uint_eq(cr_checks, checks);
	ck_assert_uint_eq(rec.asks, 0);
	if (checks) {
		ck_assert_msg(m.cpu.fault_chain.link[0].vector == EXC_GP, "%s: vector %u", cases[c].name,
			      m.cpu.fault_chain.link[0].vector);
		ck_assert_uint_eq(after, before);
	} else {
		ck_assert_uint_eq(m.cpu.fault_chain.link[0].vector, EXC_UD);
		ck_assert_uint_ne(after, before);
	}
	machine_free(&m);
}
END_TEST

/* ---- MOV CR and MOV DR with every register (SDM Vol.2 MOV CR/DR) ---- */

/* One MOV CRn/DRn of direction to (0F 22/23) or from (0F 20/21) with GPR gpr. */
static unsigned mov_crdr(uint8_t *code, bool dr, bool to, unsigned n, unsigned gpr)
{
	unsigned i = 0;
	uint8_t rex = (uint8_t)(0x40 | (n >= 8 ? 4 : 0) | (gpr >= 8 ? 1 : 0));
	if (rex != 0x40)
		code[i++] = rex;
	code[i++] = 0x0f;
	code[i++] = (uint8_t)((dr ? 0x21 : 0x20) | (to ? 2 : 0));
	code[i++] = (uint8_t)(0xc0 | (n & 7) << 3 | (gpr & 7));
	return i;
}

static uint64_t cr_value(const struct cpu *c, unsigned n)
{
	switch (n) {
	case 0: return c->cr0;
	case 2: return c->cr2;
	case 3: return c->cr3;
	case 4: return c->cr4;
	default: return c->cr8;
	}
}

static const uint8_t crs[] = { 0, 2, 3, 4, 8 };
static const uint8_t mov_envs[] = { REAL, P16, P32, CM, L64 };

/* The cases of the loops below: per machine, to and from, every CR (CR0, CR2,
 * CR3, CR4, and CR8 in 64-bit mode) or DR0-DR7; each case tries every GPR
 * (R8-R15 in 64-bit mode only). */
struct mov_case {
	enum env env;
	bool to;
	unsigned n;
};

static unsigned mov_regs(bool dr, enum env e) { return dr ? 8 : e == L64 ? 5 : 4; }
static unsigned mov_gprs(enum env e) { return e == L64 ? 16 : 8; }

static unsigned mov_count(bool dr)
{
	unsigned n = 0;
	for (unsigned k = 0; k < sizeof(mov_envs); k++)
		n += 2 * mov_regs(dr, mov_envs[k]);
	return n;
}

static struct mov_case mov_case(bool dr, unsigned i)
{
	for (unsigned k = 0; k < sizeof(mov_envs); k++) {
		enum env e = mov_envs[k];
		unsigned regs = mov_regs(dr, e);
		if (i < 2 * regs)
			return (struct mov_case){ e, i >= regs, dr ? i % regs : crs[i % regs] };
		i -= 2 * regs;
	}
	ck_abort_msg("no MOV case %u", i);
	return (struct mov_case){ 0 };
}

/* Every GPR with MOV CRn/DRn on one machine: an intercepted MOV changes
 * nothing, so the next one starts from the same state. MOV DR's first ask
 * (before its checks) is let through and kept, the second recorded. */
static void mov_every_gpr(struct mov_case c, bool dr)
{
	struct test_machine m;
	uint8_t code[4];
	unsigned len = mov_crdr(code, dr, c.to, c.n, 0);

	enter(&m, c.env, 0, NULL, NULL, code, len);
	uint64_t start = m.cpu.rip;
	for (unsigned gpr = 0; gpr < mov_gprs(c.env); gpr++) {
		struct recorder rec = { .pass = dr };
		char name[64];
		snprintf(name, sizeof(name), "mov %s %s%u gpr %u env %u", c.to ? "to" : "from",
			 dr ? "dr" : "cr", c.n, gpr, c.env);
		len = mov_crdr(code, dr, c.to, c.n, gpr);
		load_code(&m, start, code, len);
		uint64_t v = c.to ? m.cpu.regs[gpr] : dr ? m.cpu.dr[c.n == 4 || c.n == 5 ? c.n + 2 : c.n]
				  : cr_value(&m.cpu, c.n);
		if (c.env != L64)
			v = (uint32_t)v;
		run(&m, &rec, &recording, name);
		ck_assert_msg(rec.seen, "%s: not intercepted", name);
		struct exit_record want = { .kind = dr ? IK_DR_ACCESS : IK_CR_ACCESS, .cr = (uint8_t)c.n,
					    .cr_access = c.to ? CR_MOV_TO : CR_MOV_FROM, .value = v,
					    GPR(gpr), .rip = start, .next_rip = start + len };
		check_record(name, &rec.rec, &want, true);
		if (dr) {
			want.phase = PHASE_BEFORE_CHECKS;
			check_record(name, &rec.first, &want, true);
		}
	}
	machine_free(&m);
}

START_TEST(mov_cr_every_gpr)
{
	mov_every_gpr(mov_case(false, (unsigned)_i), false);
}
END_TEST

/* MOV DR asks twice: before its checks, then after them. */
START_TEST(mov_dr_every_gpr)
{
	mov_every_gpr(mov_case(true, (unsigned)_i), true);
}
END_TEST

/* ---- reads a model answers (CR0/CR4 read shadows, TPR, MSRs) ---- */

/* Where a read's value lands. */
enum shadow_dest { TO_RAX, TO_EDX_EAX, TO_MEMORY /* the word at DATA */, FAULTS /* #GP */ };

struct shadow_case {
	const char *name;
	uint8_t env;
	uint64_t r[16];
	uint8_t code[15];
	uint8_t len;
	unsigned reads;            /* questions answered with SHADOW */
	uint8_t dest;              /* enum shadow_dest */
	uint64_t mask;             /* the bits the read writes (RAX keeps the others) */
};

#define SHADOW 0x1122334480000033ull
static const struct shadow_case shadow_cases[] = {
	/* mov eax, cr0; mov rax, cr4; mov rax, cr8; smsw eax; smsw ax; smsw [ebx];
	 * mov eax, dr0; rdmsr */
	{ "mov eax, cr0", P32, { 0 }, CODE_(0x0f, 0x20, 0xc0), 1, TO_RAX, 0xffffffff },
	{ "mov rax, cr4", L64, { 0 }, CODE_(0x0f, 0x20, 0xe0), 1, TO_RAX, ~0ull },
	{ "mov rax, cr8 (TPR)", L64, { 0 }, CODE_(0x44, 0x0f, 0x20, 0xc0), 1, TO_RAX, ~0ull },
	{ "smsw eax", P32, { 0 }, CODE_(0x0f, 0x01, 0xe0), 1, TO_RAX, 0xffffffff },
	{ "smsw ax", P32, { 0 }, CODE_(0x66, 0x0f, 0x01, 0xe0), 1, TO_RAX, 0xffff },
	{ "smsw [ebx]", P32, { [R_BX] = DATA }, CODE_(0x0f, 0x01, 0x23), 1, TO_MEMORY, 0xffff },
	{ "mov eax, dr0 (both phases)", P32, { 0 }, CODE_(0x0f, 0x21, 0xc0), 2, TO_RAX, 0xffffffff },
	{ "rdmsr", P32, { [R_CX] = MSR_SYSENTER_CS }, CODE_(0x0f, 0x32), 1, TO_EDX_EAX, ~0ull },
	{ "rdmsr of a missing msr is still #GP", P32, { [R_CX] = 0xdeadbeef }, CODE_(0x0f, 0x32), 1,
	  FAULTS, 0 },
};
#define N_SHADOW (sizeof(shadow_cases) / sizeof(shadow_cases[0]))

/* A model that answers a read with ST_OK and its own value changes what the
 * guest reads (emu/hv.h; SDM Vol.3 25.3 read shadows, APM2 15.21 V_TPR). */
START_TEST(read_shadows)
{
	const struct shadow_case *s = &shadow_cases[_i];
	struct test_machine m;
	struct recorder rec = { .shadow = true, .shadow_value = SHADOW };

	enter(&m, s->env, 0, NULL, s->r, s->code, s->len);
	uint64_t start = m.cpu.rip;
	uint64_t rax = m.cpu.regs[R_AX];
	run(&m, &rec, &recording, s->name);
	ck_assert_uint_eq(rec.shadowed, s->reads);
	ck_assert(rec.seen);
	if (s->dest == FAULTS) {
		struct exit_record want = { GP0, .rip = start, .next_rip = start };
		check_record(s->name, &rec.rec, &want, true);
		machine_free(&m);
		return;
	}
	/* The instruction completed: the record is the UD2 after it. */
	struct exit_record want = { UD, .rip = start + s->len, .next_rip = start + s->len };
	check_record(s->name, &rec.rec, &want, true);
	uint64_t got;
	switch (s->dest) {
	case TO_EDX_EAX:
		got = (m.cpu.regs[R_DX] << 32) | (uint32_t)m.cpu.regs[R_AX];
		break;
	case TO_MEMORY:
		got = physmem_read(&m.pm, DATA, 2);
		break;
	default:
		got = m.cpu.regs[R_AX];
		/* 32-bit writes clear RAX[63:32]; 16-bit ones keep the rest. */
		ck_assert_uint_eq(got & ~s->mask, s->mask == 0xffff ? rax & ~0xffffull : 0);
		break;
	}
	ck_assert_uint_eq(got & s->mask, SHADOW & s->mask);
	machine_free(&m);
}
END_TEST

/* A model that answers MOV CR ST_HANDLED emulated it (emu/hv.h; SVM's V_TPR,
 * APM2 15.21.2): the core's CR8 is neither written nor read, the guest reads
 * the model's value. */
START_TEST(handled_mov_cr)
{
	struct test_machine m;
	struct recorder rec = { .handle = true, .handle_value = 9 };
	/* mov cr8, rax (RAX = 3); mov rax, cr8 */
	static const uint8_t code[] = { 0x44, 0x0f, 0x22, 0xc0, 0x44, 0x0f, 0x20, 0xc0 };
	const uint64_t regs[16] = { [R_AX] = 3 };
	enter(&m, L64, 0, NULL, regs, code, sizeof code);
	uint64_t start = m.cpu.rip;
	run(&m, &rec, &recording, "handled");
	ck_assert_uint_eq(rec.handled, 2);
	struct exit_record want = { UD, .rip = start + sizeof code, .next_rip = start + sizeof code };
	check_record("handled", &rec.rec, &want, true);
	ck_assert_uint_eq(m.cpu.cr8, CR8_INIT);
	ck_assert_uint_eq(m.cpu.regs[R_AX], 9);
	machine_free(&m);
}
END_TEST

/* ---- VM instructions: the model's (with the kind of their row), or #UD ---- */

struct vm_case {
	const char *name;
	enum intercept_kind kind;
	uint8_t code[6];
	uint8_t len;
};

static const struct vm_case vm_cases[] = {
	{ "vmrun", IK_VMRUN, CODE_(0x0f, 0x01, 0xd8) },
	{ "vmmcall", IK_VMMCALL, CODE_(0x0f, 0x01, 0xd9) },
	{ "vmload", IK_VMLOAD, CODE_(0x0f, 0x01, 0xda) },
	{ "vmsave", IK_VMSAVE, CODE_(0x0f, 0x01, 0xdb) },
	{ "stgi", IK_STGI, CODE_(0x0f, 0x01, 0xdc) },
	{ "clgi", IK_CLGI, CODE_(0x0f, 0x01, 0xdd) },
	{ "skinit", IK_SKINIT, CODE_(0x0f, 0x01, 0xde) },
	{ "invlpga", IK_INVLPGA, CODE_(0x0f, 0x01, 0xdf) },
	{ "vmcall", IK_VMCALL, CODE_(0x0f, 0x01, 0xc1) },
	{ "vmlaunch", IK_VMLAUNCH, CODE_(0x0f, 0x01, 0xc2) },
	{ "vmresume", IK_VMRESUME, CODE_(0x0f, 0x01, 0xc3) },
	{ "vmxoff", IK_VMXOFF, CODE_(0x0f, 0x01, 0xc4) },
	{ "vmfunc", IK_VMFUNC, CODE_(0x0f, 0x01, 0xd4) },
	/* vmptrld [eax]; vmclear [eax]; vmxon [eax]; vmptrst [eax] */
	{ "vmptrld", IK_VMPTRLD, CODE_(0x0f, 0xc7, 0x30) },
	{ "vmclear", IK_VMCLEAR, CODE_(0x66, 0x0f, 0xc7, 0x30) },
	{ "vmxon", IK_VMXON, CODE_(0xf3, 0x0f, 0xc7, 0x30) },
	{ "vmptrst", IK_VMPTRST, CODE_(0x0f, 0xc7, 0x38) },
	/* vmread eax, ecx; vmwrite ecx, eax; invept ecx, [eax]; invvpid ecx, [eax] */
	{ "vmread", IK_VMREAD, CODE_(0x0f, 0x78, 0xc8) },
	{ "vmwrite", IK_VMWRITE, CODE_(0x0f, 0x79, 0xc8) },
	{ "invept", IK_INVEPT, CODE_(0x66, 0x0f, 0x38, 0x80, 0x08) },
	{ "invvpid", IK_INVVPID, CODE_(0x66, 0x0f, 0x38, 0x81, 0x08) },
};
#define N_VM (sizeof(vm_cases) / sizeof(vm_cases[0]))

/* _i: case x {real, prot32, long64} x {no vm_insn, vm_insn}. */
START_TEST(vm_instructions)
{
	static const uint8_t envs[] = { REAL, P32, L64 };
	const struct vm_case *v = &vm_cases[_i / 6];
	enum env e = envs[(_i / 2) % 3];
	bool model = _i % 2;
	struct test_machine m;
	struct recorder rec = { 0 };

	enter(&m, e, 0, NULL, (const uint64_t[16]){ [R_AX] = DATA }, v->code, v->len);
	if (model) {
		/* The rows exist where the vendor's extension is reported: VMX on an
		 * Intel model, SVM on an AMD one, with a hypervisor model installed. */
		m.cpu.model = model_named(v->kind >= IK_VMRUN && v->kind <= IK_INVLPGA ? "epyc-lite"
										   : "skylake-lite");
		m.cpu.hv_available = true;
	}
	uint64_t start = m.cpu.rip;
	run(&m, &rec, model ? &recording_vm : &recording, v->name);
	if (!model) {
		/* SDM Vol.3 30.3 VMXON, APM3 VMRUN: #UD without the feature. */
		struct exit_record want = { UD, .rip = start, .next_rip = start };
		check_record(v->name, &rec.rec, &want, true);
		ck_assert_uint_eq(rec.vm_calls, 0);
	} else {
		ck_assert_uint_eq(rec.vm_calls, 1);
		ck_assert_msg(rec.vm_kind == v->kind, "%s: vm_insn kind %s", v->name,
			      intercept_name(rec.vm_kind));
		ck_assert_uint_eq(rec.vm_in.len, v->len);
		ck_assert_uint_eq(rec.asks, 0);
		/* VMREAD/VMWRITE: 64-bit operands in 64-bit mode, else 32 (SDM Vol.2
		 * VMREAD; real mode is the model's #UD). */
		if ((v->kind == IK_VMREAD || v->kind == IK_VMWRITE) && e != REAL)
			ck_assert_uint_eq(rec.vm_in.osize, e == L64 ? 8 : 4);
	}
	machine_free(&m);
}
END_TEST

/* A VM instruction is the model's outside a guest too (L1 executing VMXON). */
START_TEST(vm_instruction_outside_guest)
{
	struct test_machine m;
	struct recorder rec = { 0 };
	/* vmxon [rax] */
	enter(&m, L64, 0, NULL, (const uint64_t[16]){ [R_AX] = DATA },
	      (const uint8_t[]){ 0xf3, 0x0f, 0xc7, 0x30 }, 4);
	m.cpu.hv = &recording_vm;
	m.cpu.hv_ctx = &rec;
	m.cpu.hv_available = true;         /* VMX reported: the row exists */
	m.cpu.icount_limit = m.cpu.icount + 8;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_uint_eq(rec.vm_calls, 1);
	ck_assert_uint_eq(rec.vm_kind, IK_VMXON);
	ck_assert_uint_eq(rec.asks, 0);
	machine_free(&m);
}
END_TEST

/* ---- MONITOR, MWAIT, RDPRU, RDPID: #UD where CPUID does not list them, so
 * never asked; RDPID asks first before its checks (a VMX model's #UD) ---- */

START_TEST(unadvertised_are_ud)
{
	static const struct {
		const char *name;
		enum intercept_kind kind;
		uint32_t leaf;
		unsigned reg, bit;
		uint8_t len, code[4];
	} insns[] = {
		{ "monitor", IK_MONITOR, 1, 2, 3, 3, { 0x0f, 0x01, 0xc8 } },       /* CPUID.1:ECX.MONITOR */
		{ "mwait", IK_MWAIT, 1, 2, 3, 3, { 0x0f, 0x01, 0xc9 } },
		{ "rdpru", IK_RDPRU, 0x80000008, 1, 4, 3, { 0x0f, 0x01, 0xfd } },  /* Fn8000_0008_EBX[4] */
		{ "rdpid", IK_RDPID, 7, 2, 22, 4, { 0xf3, 0x0f, 0xc7, 0xf8 } },   /* CPUID.7.0:ECX[22] */
	};
	const struct cpu_model *cm = cpu_models[_i / 4];
	unsigned k = _i % 4;
	struct test_machine m;
	struct recorder rec = { 0 };

	enter(&m, P32, 0, NULL, (const uint64_t[16]){ [R_AX] = DATA }, insns[k].code, insns[k].len);
	m.cpu.regs[R_CX] = 0;      /* no MONITOR/MWAIT #GP for ECX */
	m.cpu.model = cm;          /* the flat 32-bit machine suits every model */
	uint64_t start = m.cpu.rip;
	run(&m, &rec, &recording, insns[k].name);
	struct exit_record want = { UD, .rip = start, .next_rip = start };
	if (cpu_model_has(cm, insns[k].leaf, insns[k].reg, insns[k].bit))
		want = (struct exit_record){ .kind = insns[k].kind, .rip = start, .next_rip = start + insns[k].len,
					     .phase = insns[k].kind == IK_RDPID ? PHASE_BEFORE_CHECKS : PHASE_CHECKED };
	check_record(insns[k].name, &rec.rec, &want, true);
	machine_free(&m);
}
END_TEST

/* ---- interrupts: nothing raises them yet (issue 9 item 4), so the event is
 * handed to cpu_deliver_event() as an interrupt controller will ---- */

START_TEST(interrupts)
{
	static const struct {
		const char *name;
		uint8_t env;
		struct event ev;
		enum intercept_kind kind;
	} cases[] = {
		{ "intr prot32", P32, EV(EV_EXTINT, 0x30), IK_INTR },
		{ "intr real", REAL, EV(EV_EXTINT, 0x08), IK_INTR },
		{ "intr long64", L64, EV(EV_EXTINT, 0xfe), IK_INTR },
		{ "nmi prot32", P32, EV(EV_NMI, EXC_NMI), IK_NMI },
		{ "nmi long64", L64, EV(EV_NMI, EXC_NMI), IK_NMI },
	};
	struct test_machine m;
	struct recorder rec = { 0 };

	enter(&m, cases[_i].env, 0, NULL, NULL, (const uint8_t[]){ 0x90 }, 1);
	struct cpu *c = &m.cpu;
	c->hv = &recording;
	c->hv_ctx = &rec;
	c->in_guest = true;
	uint64_t start = c->insn_start = c->rip;
	c->event = cases[_i].ev;
	ck_assert_int_eq(cpu_deliver_event(c), ST_VMEXIT);
	struct exit_record want = { .kind = cases[_i].kind, .vector = cases[_i].ev.vector,
				    .event = cases[_i].ev, .rip = start, .next_rip = start };
	check_record(cases[_i].name, &rec.rec, &want, true);
	ck_assert(rec.rec.insn == NULL);
	machine_free(&m);
}
END_TEST

/* ---- every intercept column of the emu/isa tables has rows here ---- */

START_TEST(every_intercept_column_is_tested)
{
	bool tested[IK_COUNT] = { false };
	for (unsigned i = 0; i < N_ROWS; i++) {
		tested[rows[i].x.kind] = true;
		for (unsigned p = 0; p < rows[i].pass; p++)
			tested[rows[i].before[p]] = true;
	}
	for (unsigned i = 0; i < N_VM; i++)
		tested[vm_cases[i].kind] = true;
	tested[IK_CR_ACCESS] = tested[IK_DR_ACCESS] = true;    /* also the loops above */
	tested[IK_MONITOR] = tested[IK_MWAIT] = tested[IK_RDPRU] = tested[IK_RDPID] = true;
	for (unsigned r = 0; r < isa_row_count; r++) {
		unsigned k = isa_rows[r].intercept;
		if (k != IK_NONE)
			ck_assert_msg(tested[k], "%s intercepts %s: no row tests it", isa_rows[r].mnemonic,
				      intercept_name(k));
	}
}
END_TEST

static Suite *exit_record_suite(void)
{
	Suite *s = suite_create("exit_record");
	TCase *t = tcase_create("rows");
	tcase_add_loop_test(t, record_rows, 0, (int)N_ROWS);
	tcase_add_test(t, every_intercept_column_is_tested);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	t = tcase_create("registers");
	tcase_add_loop_test(t, mov_cr_every_gpr, 0, (int)mov_count(false));
	tcase_add_loop_test(t, mov_dr_every_gpr, 0, (int)mov_count(true));
	tcase_add_loop_test(t, read_shadows, 0, (int)N_SHADOW);
	tcase_add_test(t, handled_mov_cr);
	tcase_add_loop_test(t, operand_forms, 0, (int)N_OPERAND);
	tcase_add_test(t, nmi_unblocked_by_iret);
	tcase_add_test(t, apic_kinds);
	tcase_add_loop_test(t, root_cr_checks, 0, 8);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	t = tcase_create("vm");
	tcase_add_loop_test(t, vm_instructions, 0, (int)N_VM * 6);
	tcase_add_test(t, vm_instruction_outside_guest);
	tcase_add_loop_test(t, unadvertised_are_ud, 0, (int)cpu_model_count * 4);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	t = tcase_create("interrupts");
	tcase_add_loop_test(t, interrupts, 0, 5);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(exit_record_suite());
}
