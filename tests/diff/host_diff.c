/* Host-differential test: random user-mode instruction sequences run on the
 * host CPU (in a forked child, at CPL 3, tests/diff/native.c) and in hvemu (CPL
 * 0, ended by HLT); the registers, the scratch and stack pages and the flags
 * must match.
 *
 *   host_diff [-m 32|64|simd|scalar|avx|avx64] [-l] [N [SEED]]   (defaults: 32, 20000 sequences, seed 0x5eed)
 *
 * -l lists the generated code instead of running it.
 *
 * -m 32 (gen32.c): hvemu in flat 32-bit protected mode with the default model
 *   (skylake-lite);
 *   integer and SSE/SSE2 sequences that mean the same in 32- and 64-bit mode;
 *   the low 32 bits of the eight registers, every flag the SDM defines, XMM0-7
 *   and MXCSR are compared.
 * -m 64 (gen64.c): hvemu in 64-bit mode as epyc-lite (AMD, like the host, so the
 *   vendor's choices for undefined flags and results are compared too); 64-bit
 *   integer and SSE/SSE2 sequences; all sixteen registers, the six status flags
 *   and DF, XMM0-15 and MXCSR are compared. A sixth of the sequences end with an
 *   instruction that faults (#DE, #UD, #GP, #PF, #BP): the vector, error code,
 *   RIP and CR2, and the state at the exception (the host's signal context,
 *   hvemu's IST frame) are compared too. The sequences hold AMD's answers
 *   where the manuals leave a choice (gen64.c), so on another vendor's host
 *   the run compares nothing and exits 77 (SKIP).
 *
 * -m simd (gen_simd.c): the 32-bit run's set-up and x87 cases, as the model
 *   of the host's vendor (icelake-lite on Intel, epyc-lite on AMD), with MMX,
 *   SSE3, SSSE3, SSE4.1, SSE4.2, AES-NI, PCLMULQDQ and SHA instructions mixed
 *   in; every case uses the x87, so the MMX registers are compared through the
 *   x87 state. A family runs only if both the host and the model report it;
 *   none: exit 77 (SKIP).
 * -m scalar (gen_scalar.c): 64-bit mode as the model of the host's vendor
 *   (skylake-lite or epyc-lite, with SSE4.2 for CRC32): POPCNT, LZCNT, TZCNT,
 *   MOVBE, CRC32, ADCX/ADOX and BMI1/BMI2 sequences, those the host has. On an
 *   Intel host every flag is compared (the models' choices for the flags the
 *   SDM leaves undefined were measured there); elsewhere those are masked.
 *   Exits 77 when the host has none of them.
 * -m avx (gen_avx.c): the 32-bit run with CR4.OSXSAVE = 1 and XCR0 = 7 as the
 *   model of the host's vendor, the VEX.128/VEX.256 forms of the SSE/SSE2
 *   moves, logic, packed-integer and floating-point instructions mixed in,
 *   YMM0-7 compared whole (bits 255:128 too) with MXCSR; the 256-bit integer
 *   forms with the host's AVX2. Exits 77 on a host or model without AVX.
 * -m avx64 (gen_avx.c): the same rows in 64-bit mode as -m scalar runs it
 *   (the host vendor's model): YMM0-15, VEX.R/X/B, vvvv[3], VEX.W1's 64-bit
 *   integer forms, enc64.h's memory forms; no other instructions.
 *
 * A quarter of the cases in each mode use the x87 (gen_x87.c): they start from
 * a random FRSTOR image or FNINIT, and the whole x87 state at the end (FNSAVE
 * on the host, hvemu's registers) is compared too: FCW, FSW, tags, FOP,
 * FIP/FDP, FCS/FDS and ST(0)..ST(7). hvemu's segment selectors are the host's
 * (Linux' 64-bit user CS and SS, null data selectors) with flat descriptors,
 * so FNSTENV/FNSAVE images agree; CR0.NE is set, as on the host, so a pending
 * unmasked x87 exception is #MF (SIGFPE there). The models report SSE3
 * (CPUID.01H:ECX[0]; with_sse3 makes sure), for FISTTP; only the -m simd run
 * emits other SSE3 instructions.
 */
#include <cpuid.h>
#include <capstone/capstone.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "tests/diff/gen.h"
#include "tests/diff/native.h"

/* The status flags and DF; and the system flags, which no sequence may change
 * (bit 1, TF, IF, IOPL, NT, AC, ID as the case set them: the host runs at CPL 3
 * with IOPL 0 and IF 1, hvemu at CPL 0 with the same image). */
#define COMPARED (ARITH | FLAG_DF | FLAG_FIXED1 | FLAG_TF | FLAG_IF | FLAG_IOPL | FLAG_NT | FLAG_AC | FLAG_ID)

/* --- hvemu side --- */

/* 64-bit mode's page tables: the first 1 GiB identity-mapped, supervisor
 * read/write/execute (SDM Vol.3 4.5); the first 4 MiB with 4 KiB pages, so an
 * access across 201000H (scratch page to stack page) crosses pages. */
#define PML4_ADDR 0x10000u
#define PDPT_ADDR 0x11000u
#define PD_ADDR   0x12000u
#define PT_ADDR   0x13000u     /* two page tables */
/* The 64-bit run's exception handling, so a fault ends the case the way a
 * signal ends it on the host: every vector's 64-bit interrupt gate points at a
 * HLT of its own and uses IST1 (SDM Vol.3 6.14.1, 6.14.5), so the frame goes
 * to a stack outside the compared pages. */
#define IDT_ADDR     0x15000u
#define HANDLER_ADDR 0x16000u  /* HLT at HANDLER_ADDR + vector */
#define GDT_ADDR     0x17000u  /* null, 08H code64, 10H data, 18H TSS (16 bytes) */
#define TSS_ADDR     0x17100u
#define IST_TOP      0x19000u
#define UNMAPPED     0x202000u /* 202000H-20FFFFH: not present, as on the host */

static uint64_t flat_descriptor(unsigned access, unsigned flags)
{
	/* base 0, limit 0xfffff; flags: G D/B L AVL (SDM Vol.3 3.4.5) */
	return 0xffffull | ((uint64_t)access << 40) | (0xfull << 48) | ((uint64_t)flags << 52);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* 32-bit: flat protected mode, paging off. 64-bit: IA-32e active (EFER.LME =
 * LMA = 1, CR0.PG, CR4.PAE; SDM Vol.3 9.8.5), CS.L = 1, CR4.OSFXSR so SSE
 * instructions run (SDM Vol.3 13.1.3). */
static void enter_mode(struct cpu *cpu, struct physmem *pm, enum diff_mode mode, const uint16_t sel[SR_COUNT])
{
	if (mode == DIFF_MODE64) {
		put64(pm->ram + PML4_ADDR, PDPT_ADDR | 3);
		put64(pm->ram + PDPT_ADDR, PD_ADDR | 3);
		for (unsigned i = 0; i < 512; i++)
			put64(pm->ram + PD_ADDR + 8 * i, (uint64_t)i << 21 | 0x83);   /* P RW PS */
		for (unsigned t = 0; t < 2; t++) {
			put64(pm->ram + PD_ADDR + 8 * t, (PT_ADDR + 0x1000u * t) | 3);
			for (unsigned i = 0; i < 512; i++)
				put64(pm->ram + PT_ADDR + 0x1000u * t + 8 * i, ((uint64_t)(t * 512 + i) << 12) | 3);
		}
		for (uint32_t a = UNMAPPED; a < 0x210000u; a += 0x1000)
			put64(pm->ram + PT_ADDR + 8 * (a >> 12), 0);
		for (unsigned v = 0; v < 256; v++) {
			uint64_t h = HANDLER_ADDR + v;
			put64(pm->ram + IDT_ADDR + 16 * v, (h & 0xffff) | 0x08u << 16 | 1ull << 32 | 0x8eull << 40 |
				  (h >> 16) << 48);
			pm->ram[HANDLER_ADDR + v] = 0xf4;
		}
		put64(pm->ram + GDT_ADDR + 0x08, 0x00af9b000000ffffull);
		put64(pm->ram + GDT_ADDR + 0x10, 0x00cf93000000ffffull);
		uint64_t tss = 0x67 | (uint64_t)TSS_ADDR << 16 | 0x89ull << 40;   /* 64-bit TSS, available */
		put64(pm->ram + GDT_ADDR + 0x18, tss);
		put64(pm->ram + TSS_ADDR + 28 + 8, IST_TOP);                        /* IST1 */
		cpu->gdtr.base = GDT_ADDR;
		cpu->gdtr.limit = 0x27;
		cpu->idtr.base = IDT_ADDR;
		cpu->idtr.limit = 0xfff;
		seg_load_descriptor(&cpu->tr, 0x18, tss);
		cpu->cr3 = PML4_ADDR;
		cpu->cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
		cpu->efer = EFER_LME | EFER_LMA;
		cpu->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_PG;
	} else {
		cpu->cr0 |= CR0_PE | CR0_NE;
		cpu->cr4 = CR4_OSFXSR | CR4_OSXMMEXCPT;
	}
	/* The host's selectors (FCS/FDS in x87 images), flat descriptors behind them. */
	seg_load_descriptor(&cpu->seg[SR_CS], sel[SR_CS], flat_descriptor(0x9b, mode == DIFF_MODE64 ? 0xa : 0xc));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], sel[s], flat_descriptor(0x93, 0xc));
	cpu->cpl = 0;
	cpu_update_mode(cpu);
	tlb_flush_all(&cpu->tlb);
}

/* The emulated machine, made once: a CPU after RESET is kept as a template
 * and copied for each case (cpu_init allocates the decoded-block cache, which
 * is costly per case under the sanitizers); the copies share that cache. */
struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu reset, cpu;
	uint16_t sel[SR_COUNT];    /* the host's selectors */
};

static bool machine_init(struct machine *m, const struct cpu_model *model)
{
	if (!physmem_init(&m->pm, 4u << 20))
		return false;
	iobus_init(&m->io);
	cpu_init(&m->reset, model, &m->pm, &m->io);
	native_selectors(m->sel);
	return true;
}

static void machine_free(struct machine *m)
{
	cpu_destroy(&m->reset);
	physmem_destroy(&m->pm);
}

/* hvemu's x87 state as FNSAVE would store it in protected mode. */
static void x87_of_cpu(struct diff_x87 *x, const struct fpu_state *f)
{
	unsigned top = (f->fsw >> 11) & 7;
	x->fcw = f->fcw, x->fsw = f->fsw, x->ftw = f->ftw, x->fop = f->fop;
	x->fip = (uint32_t)f->fip, x->fdp = (uint32_t)f->fdp;
	x->fcs = f->fcs, x->fds = f->fds;
	for (unsigned i = 0; i < 8; i++) {
		const struct fpu_reg *r = &f->r[(top + i) & 7];
		memcpy(x->st[i], &r->mant, 8);
		memcpy(x->st[i] + 8, &r->sexp, 2);
	}
	x->unknown = 0;
}

static status_t run_hvemu(struct machine *m, const struct diff_request *rq, struct diff_state *out)
{
	struct physmem *pm = &m->pm;
	struct cpu *c = &m->cpu;
	bool m64 = rq->mode == DIFF_MODE64;

	/* Only the tables, code and data pages are used; a stray access elsewhere
	 * shows up as a difference in what is compared. */
	memset(pm->ram, 0, DIFF_DATA_ADDR + DIFF_DATA_SIZE);
	memcpy(pm->ram + DIFF_CODE_ADDR, rq->code, rq->code_len);
	pm->ram[DIFF_CODE_ADDR + rq->code_len] = 0xf4;          /* HLT ends the run */
	memcpy(pm->ram + DIFF_DATA_ADDR, rq->in.data, DIFF_DATA_SIZE);

	*c = m->reset;
	/* The RAM changed behind the CPU's back: drop what the last case decoded. */
	cpu_notify_phys_write(c, 0, DIFF_DATA_ADDR + DIFF_DATA_SIZE);
	pm->on_ram_write = ram_written;
	pm->on_ram_write_opaque = c;
	enter_mode(c, pm, (enum diff_mode)rq->mode, m->sel);
	for (unsigned r = 0; r < (m64 ? 16u : 8u); r++)
		c->regs[r] = rq->in.regs[r];
	cpu_set_flags(c, rq->in.rflags);
	c->fpu.mxcsr = rq->in.mxcsr;
	memcpy(c->fpu.xmm, rq->in.xmm, (m64 ? 16u : 8u) * sizeof(rq->in.xmm[0]));
	memcpy(c->fpu.ymm_hi, rq->in.ymm_hi, (m64 ? 16u : 8u) * sizeof(rq->in.ymm_hi[0]));
	if (rq->avx) {
		/* SDM Vol.1 13.3, 14.3: the OS's side of enabling AVX. */
		c->cr4 |= CR4_OSXSAVE;
		c->xcr0 = XSTATE_X87 | XSTATE_SSE | XSTATE_AVX;
	}
	c->rip = DIFF_CODE_ADDR;
	c->icount_limit = 100000;

	status_t st = cpu_run(c);
	memset(out, 0, offsetof(struct diff_state, data));
	for (unsigned r = 0; r < 16; r++)
		out->regs[r] = c->regs[r];
	out->rflags = cpu_get_flags(c);
	out->mxcsr = c->fpu.mxcsr;
	out->vector = -1;
	memcpy(out->xmm, c->fpu.xmm, sizeof(out->xmm));
	memcpy(out->ymm_hi, c->fpu.ymm_hi, sizeof(out->ymm_hi));
	x87_of_cpu(&out->x87, &c->fpu);
	memcpy(out->data, pm->ram + DIFF_DATA_ADDR, DIFF_DATA_SIZE);
	if (m64 && st == ST_HALT && c->rip > HANDLER_ADDR && c->rip <= HANDLER_ADDR + 256) {
		/* A handler's HLT: the state at the exception from its frame (SDM
		 * Vol.3 6.14.2: SS, RSP, RFLAGS, CS, RIP, error code from IST1 down). */
		uint64_t frame[6];
		unsigned v = (unsigned)(c->rip - HANDLER_ADDR - 1);
		memcpy(frame, pm->ram + IST_TOP - sizeof(frame), sizeof(frame));
		bool err = v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21;
		out->vector = (int32_t)v;
		out->error_code = err ? frame[0] : 0;
		out->fault_rip = frame[1];
		out->rflags = frame[3];
		out->regs[R_SP] = frame[4];
		out->cr2 = v == 14 ? c->cr2 : 0;
	} else if (st == ST_HALT && c->rip != DIFF_CODE_ADDR + rq->code_len + 1) {
		st = ST_FAULT;     /* halted somewhere else */
	}
	pm->on_ram_write = NULL;
	return st;
}

/* --- comparison and report --- */

static const char *const reg_names[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					   "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

/* Print the code; mark instruction `mark` (counting from 1; 0: none). */
static void disassemble(const struct diff_request *rq, size_t mark)
{
	csh cs;
	cs_insn *insn;
	if (cs_open(CS_ARCH_X86, rq->mode == DIFF_MODE64 ? CS_MODE_64 : CS_MODE_32, &cs) != CS_ERR_OK)
		return;
	size_t n = cs_disasm(cs, rq->code, rq->code_len, DIFF_CODE_ADDR, 0, &insn);
	for (size_t i = 0; i < n; i++) {
		printf("  %s %08" PRIx64 ": ", i + 1 == mark ? "=>" : "  ", insn[i].address);
		for (unsigned k = 0; k < insn[i].size; k++)
			printf("%02x", insn[i].bytes[k]);
		printf("%*s %s %s\n", (int)(2 * (12 - insn[i].size)), "", insn[i].mnemonic, insn[i].op_str);
	}
	if (n)
		cs_free(insn, n);
	cs_close(&cs);
}

/* Instruction end offsets of the code up to its first branch (a prefix cut
 * inside a skipped range would run off the code); returns how many. */
static size_t boundaries(const struct diff_request *rq, unsigned *ends, size_t max)
{
	csh cs;
	cs_insn *insn;
	size_t k = 0;
	if (cs_open(CS_ARCH_X86, rq->mode == DIFF_MODE64 ? CS_MODE_64 : CS_MODE_32, &cs) != CS_ERR_OK)
		return 0;
	size_t n = cs_disasm(cs, rq->code, rq->code_len, DIFF_CODE_ADDR, 0, &insn);
	for (size_t i = 0; i < n && k < max; i++) {
		if (insn[i].mnemonic[0] == 'j' || !strncmp(insn[i].mnemonic, "loop", 4))
			break;
		ends[k++] = (unsigned)(insn[i].address + insn[i].size - DIFF_CODE_ADDR);
	}
	if (n)
		cs_free(insn, n);
	cs_close(&cs);
	return k;
}

/* The registers as the case's mode compares them. */
static uint64_t reg_of(const struct diff_request *rq, const struct diff_state *s, unsigned r)
{
	return rq->mode == DIFF_MODE64 ? s->regs[r] : (uint32_t)s->regs[r];
}

/* a: native, b: hvemu. */
static bool same_x87(const struct diff_x87 *a, const struct diff_x87 *b)
{
	if (a->fcw != b->fcw || a->fsw != b->fsw || a->ftw != b->ftw || memcmp(a->st, b->st, sizeof(a->st)))
		return false;
	if (!(a->unknown & X87_NO_POINTERS) && a->fip != b->fip)
		return false;
	if (!(a->unknown & (X87_NO_POINTERS | X87_NO_FOP)) && a->fop != b->fop)
		return false;
	if (!(a->unknown & (X87_NO_POINTERS | X87_NO_FDP)) && a->fdp != b->fdp)
		return false;
	return (a->unknown & X87_NO_SELECTORS) || (a->fcs == b->fcs && a->fds == b->fds);
}

static void print_x87(const char *who, const struct diff_x87 *x)
{
	printf("    x87 %-6s fcw %04x fsw %04x ftw %04x fop %03x fip %08x fcs %04x fdp %08x fds %04x%s%s%s%s\n", who,
	       x->fcw, x->fsw, x->ftw, x->fop, x->fip, x->fcs, x->fdp, x->fds,
	       x->unknown & X87_NO_SELECTORS ? " (no selectors)" : "", x->unknown & X87_NO_POINTERS ? " (no pointers)" : "",
	       x->unknown & X87_NO_FOP ? " (no fop)" : "", x->unknown & X87_NO_FDP ? " (no fdp)" : "");
	printf("               ");
	for (unsigned i = 0; i < 8; i++) {
		uint64_t mant;
		uint16_t se;
		memcpy(&mant, x->st[i], 8);
		memcpy(&se, x->st[i] + 8, 2);
		printf(" %04x:%016" PRIx64, se, mant);
		if (i == 3)
			printf("\n               ");
	}
	printf("\n");
}

static bool same(const struct diff_request *rq, const struct diff_state *a, const struct diff_state *b,
		 uint32_t flag_mask)
{
	bool m64 = rq->mode == DIFF_MODE64;
	for (unsigned r = 0; r < (m64 ? 16u : 8u); r++)
		if (reg_of(rq, a, r) != reg_of(rq, b, r))
			return false;
	if ((a->rflags ^ b->rflags) & flag_mask)
		return false;
	if (a->vector != b->vector)
		return false;
	/* #PF error code: U/S differs (the host runs at CPL 3), the rest must not. */
	uint64_t err_mask = a->vector == 14 ? ~(uint64_t)4 : ~(uint64_t)0;
	if (a->vector >= 0 && (a->fault_rip != b->fault_rip || ((a->error_code ^ b->error_code) & err_mask) ||
			       a->cr2 != b->cr2))
		return false;
	if (a->mxcsr != b->mxcsr || memcmp(a->xmm, b->xmm, (m64 ? 16u : 8u) * sizeof(a->xmm[0])))
		return false;
	if (rq->avx && memcmp(a->ymm_hi, b->ymm_hi, (m64 ? 16u : 8u) * sizeof(a->ymm_hi[0])))
		return false;
	if (rq->x87 && !same_x87(&a->x87, &b->x87))
		return false;
	return memcmp(a->data, b->data, DIFF_DATA_SIZE) == 0;
}

static void print_xmm(const char *what, const uint8_t *x)
{
	printf(" %s ", what);
	for (unsigned i = 16; i-- > 0;)
		printf("%02x", x[i]);
}

static void report(unsigned long i, uint64_t seed, status_t st, const struct diff_request *rq,
		   const struct diff_state *native, const struct diff_state *emu, uint32_t mask, uint32_t undef,
		   size_t first_bad)
{
	bool m64 = rq->mode == DIFF_MODE64;
	printf("MISMATCH case %lu (seed %#" PRIx64 "): hvemu status %d\n", i, seed, (int)st);
	disassemble(rq, first_bad);
	printf("    in :");
	for (unsigned r = 0; r < (m64 ? 16u : 8u); r++)
		printf(" %s=%0*" PRIx64, reg_names[r], m64 ? 16 : 8, reg_of(rq, &rq->in, r));
	printf(" rflags=%08" PRIx64 "\n", rq->in.rflags);
	if (native->vector >= 0 || emu->vector >= 0)
		printf("    exception: native %d (error %" PRIx64 ", rip %" PRIx64 ", cr2 %" PRIx64 ") hvemu %d (error %"
		       PRIx64 ", rip %" PRIx64 ", cr2 %" PRIx64 ")\n", native->vector, native->error_code,
		       native->fault_rip, native->cr2, emu->vector, emu->error_code, emu->fault_rip, emu->cr2);
	for (unsigned r = 0; r < (m64 ? 16u : 8u); r++)
		if (reg_of(rq, native, r) != reg_of(rq, emu, r))
			printf("    %s: native %" PRIx64 " hvemu %" PRIx64 "\n", reg_names[r], reg_of(rq, native, r),
			       reg_of(rq, emu, r));
	if ((native->rflags ^ emu->rflags) & mask)
		printf("    rflags (compared %03x, SDM-undefined %03x): native %08" PRIx64 " hvemu %08" PRIx64 "\n",
		       mask, undef, native->rflags, emu->rflags);
	{
		if (native->mxcsr != emu->mxcsr)
			printf("    mxcsr (in %08x): native %08x hvemu %08x\n", rq->in.mxcsr, native->mxcsr, emu->mxcsr);
		for (unsigned x = 0; x < (m64 ? 16u : 8u); x++)
			if (memcmp(native->xmm[x], emu->xmm[x], 16)) {
				printf("    xmm%u:", x);
				print_xmm("in", rq->in.xmm[x]);
				print_xmm("native", native->xmm[x]);
				print_xmm("hvemu", emu->xmm[x]);
				printf("\n");
			}
		for (unsigned x = 0; rq->avx && x < (m64 ? 16u : 8u); x++)
			if (memcmp(native->ymm_hi[x], emu->ymm_hi[x], 16)) {
				printf("    ymm%u[255:128]:", x);
				print_xmm("in", rq->in.ymm_hi[x]);
				print_xmm("native", native->ymm_hi[x]);
				print_xmm("hvemu", emu->ymm_hi[x]);
				printf("\n");
			}
	}
	if (rq->x87 && !same_x87(&native->x87, &emu->x87)) {
		print_x87("native", &native->x87);
		print_x87("hvemu", &emu->x87);
	}
	for (unsigned k = 0; k < DIFF_DATA_SIZE; k++)
		if (native->data[k] != emu->data[k]) {
			printf("    first memory difference at %08x: native %02x hvemu %02x\n", DIFF_DATA_ADDR + k,
			       native->data[k], emu->data[k]);
			break;
		}
}

/* Sequences that once differed, run first in the 64-bit run on a random state
 * (the host is the oracle here too): each names the rule it pins down. */
static const struct regression {
	const char *name;
	unsigned len;
	uint8_t code[24];
} regressions64[] = {
	{ "PUNPCKLQDQ interleaves the low quadwords", 4, { 0x66, 0x0f, 0x6c, 0xc1 } },
	{ "CMPXCHG r32 leaves a failed register destination alone", 6,
	  { 0x39, 0xc0, 0x44, 0x0f, 0xb1, 0xc9 } },                        /* cmp eax,eax; cmpxchg ecx,r9d */
	{ "a 32-bit rotate by 0 (masked) still zero-extends", 3, { 0xc1, 0xc9, 0x40 } },   /* ror ecx,0x40 */
	{ "a 32-bit shift by CL = 0 still zero-extends", 5,
	  { 0xb1, 0x20, 0x41, 0xd3, 0xe3 } },                                  /* mov cl,0x20; shl r11d,cl */
	{ "a 32-bit SHRD by CL = 0 still zero-extends", 5,
	  { 0xb1, 0x40, 0x0f, 0xad, 0xf5 } },                                  /* mov cl,0x40; shrd ebp,esi,cl */
	{ "67 REP with ECX = 0 leaves RCX alone", 13,
	  { 0x48, 0xb9, 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12, 0xf3, 0x67, 0xa4 } },   /* rep movsb [edi],[esi] */
	/* mov eax, (1 + 2^-10) * 2^-70 (single); movd xmm0, eax; push 1780H; ldmxcsr [rsp];
	 * mulss xmm0, xmm0: 21 significant bits, exact unbounded, inexact as a denormal */
	{ "unmasked underflow of an exact tiny product: UE without PE", 22,
	  { 0xb8, 0, 0x20, 0x80, 0x1c, 0x66, 0x0f, 0x6e, 0xc0, 0x68, 0x80, 0x17, 0, 0, 0x0f, 0xae, 0x14, 0x24,
	    0xf3, 0x0f, 0x59, 0xc0 } },
	/* the same with 2^100 and 1B80H: OE without PE */
	{ "unmasked overflow of an exact huge product: OE without PE", 22,
	  { 0xb8, 0, 0, 0x80, 0x71, 0x66, 0x0f, 0x6e, 0xc0, 0x68, 0x80, 0x1b, 0, 0, 0x0f, 0xae, 0x14, 0x24,
	    0xf3, 0x0f, 0x59, 0xc0 } },
	{ "67 REP with ECX = 1 zero-extends RCX", 13,
	  { 0x48, 0xb9, 1, 0, 0, 0, 0x78, 0x56, 0x34, 0x12, 0xf3, 0x67, 0xab } },   /* rep stosd [edi] */
};

/* The first instruction after which the states differ ("=>" in the report):
 * the case cut after each instruction in turn (up to its first branch). The
 * flags compared are those of the whole case, at worst a flag left undefined
 * earlier shows up first. 0 if no prefix differs. */
static size_t first_mismatch(struct native *h, struct machine *m, const struct diff_request *rq, uint32_t mask)
{
	static struct diff_request cut;
	static struct diff_state native, emu;
	unsigned ends[SEQ_MAX * 8];
	size_t n = boundaries(rq, ends, SEQ_MAX * 8);
	int status;
	for (size_t k = 0; k < n; k++) {
		cut = *rq;
		cut.code_len = ends[k];
		if (!native_run(h, &cut, &native, &status))
			return 0;
		status_t st = run_hvemu(m, &cut, &emu);
		if (st != ST_HALT || !same(&cut, &native, &emu, mask & ~FLAGS_ARITH))
			return k + 1;
		if (rq->mode == DIFF_MODE64 && !same(&cut, &native, &emu, mask))
			return k + 1;
	}
	return 0;
}

/* Run the case natively again: true if this run differs from the first one
 * and equals hvemu's. */
static bool native_repeats_as(struct native *h, const struct diff_request *rq, const struct diff_state *first,
			      const struct diff_state *emu, uint32_t mask)
{
	static struct diff_state again;
	int status;
	if (!native_run(h, rq, &again, &status))
		return false;
	return !same(rq, first, &again, mask) && same(rq, &again, emu, mask);
}

/* The model, reporting SSE3 as well (CPUID.01H:ECX[0], for FISTTP), and the
 * leaf 1 ECX bits in extra. */
static const struct cpu_model *with_sse3(const struct cpu_model *base, uint32_t extra)
{
	static struct cpuid_leaf leaves[64];
	static struct cpu_model m;
	if (!base || base->cpuid_count > sizeof(leaves) / sizeof(leaves[0]))
		return NULL;
	m = *base;
	memcpy(leaves, base->cpuid, base->cpuid_count * sizeof(leaves[0]));
	for (unsigned i = 0; i < base->cpuid_count; i++)
		if (leaves[i].leaf == 1)
			leaves[i].ecx |= 1 | extra;
	m.cpuid = leaves;
	return &m;
}

/* The model m with extra bits in CPUID.(EAX=7,ECX=0):EBX (m is with_sse3's copy). */
static const struct cpu_model *with_leaf7_ebx(const struct cpu_model *m, uint32_t extra)
{
	struct cpuid_leaf *leaves = (struct cpuid_leaf *)m->cpuid;
	for (unsigned i = 0; i < m->cpuid_count; i++)
		if (leaves[i].leaf == 7 && leaves[i].subleaf == 0)
			leaves[i].ebx |= extra;
	return m;
}

/* The SIMD families' CPUID bits (SDM Vol.2 CPUID Tables 3-10, 3-11, 3-8):
 * leaf, register (0-3: EAX..EDX), bit; in enum simd_family order. */
static const struct { const char *name; uint32_t leaf; uint8_t reg, bit; } simd_bits[SF_COUNT] = {
	[SF_MMX] = { "mmx", 1, 3, 23 },     [SF_SSE] = { "sse", 1, 3, 25 },
	[SF_SSE2] = { "sse2", 1, 3, 26 },   [SF_SSE3] = { "sse3", 1, 2, 0 },
	[SF_SSSE3] = { "ssse3", 1, 2, 9 },  [SF_SSE41] = { "sse4.1", 1, 2, 19 },
	[SF_SSE42] = { "sse4.2", 1, 2, 20 }, [SF_AES] = { "aes", 1, 2, 25 },
	[SF_PCLMUL] = { "pclmulqdq", 1, 2, 1 }, [SF_SHA] = { "sha", 7, 1, 29 },
};

/* The families both the host and the model have; prints the others. */
static uint32_t simd_common(const struct cpu_model *model)
{
	uint32_t set = 0;
	for (unsigned f = 0; f < SF_COUNT; f++) {
		unsigned r[4] = { 0, 0, 0, 0 };
		bool host = __get_cpuid_count(simd_bits[f].leaf, 0, &r[0], &r[1], &r[2], &r[3]) &&
			    (r[simd_bits[f].reg] >> simd_bits[f].bit & 1);
		bool emu = cpu_model_has(model, simd_bits[f].leaf, simd_bits[f].reg, simd_bits[f].bit);
		if (host && emu)
			set |= 1u << f;
		else
			printf("host-diff: %s not compared (%s lacks it)\n", simd_bits[f].name, host ? model->name : "the host");
	}
	return set;
}

int main(int argc, char **argv)
{
	enum diff_mode mode = DIFF_MODE32;
	bool list = false, simd = false, scalar = false, avx = false, avx64 = false, avx2 = false;
	int a = 1;
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-l"))
			list = true;
		else if (!strcmp(argv[a], "-m") && a + 1 < argc) {
			simd = !strcmp(argv[++a], "simd");
			scalar = !strcmp(argv[a], "scalar");
			avx64 = !strcmp(argv[a], "avx64");
			avx2 = !strcmp(argv[a], "avx2");
			avx = avx64 || !strcmp(argv[a], "avx");
			mode = scalar || avx64 || avx2 || !strcmp(argv[a], "64") ? DIFF_MODE64 : DIFF_MODE32;
		}
	}
	unsigned long n = argc > a ? strtoul(argv[a], NULL, 0) : 20000;
	uint64_t seed = argc > a + 1 ? strtoull(argv[a + 1], NULL, 0) : 0x5eed;
	struct gen g = { .rng = seed * 0x9e3779b97f4a7c15ull | 1, .no_env_stores = native_x87_gaps() != 0,
			 .simd = simd, .avx = avx && !avx64 };
	unsigned eax, ebx, ecx, edx;
	bool amd_host = __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541u;   /* "Auth" */
	bool intel_host = __get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x756e6547u; /* "Genu" */
	bool host_model = scalar || avx64 || avx2;      /* 64-bit runs as the host vendor's model */
	const struct cpu_model *base = host_model ? cpu_model_find(amd_host ? "epyc-lite" : "skylake-lite") :
				       simd || avx ? cpu_model_find(amd_host ? "epyc-lite" : "icelake-lite") :
				       mode == DIFF_MODE64 ? cpu_model_find("epyc-lite") : cpu_models[0];
	const struct cpu_model *model = with_sse3(base, scalar ? 1u << 20 /* SSE4.2: CRC32 */ :
						  avx2 ? 1u << 28 /* AVX: the VEX encoding */ : 0);
	struct native h;
	static struct machine m;
	static struct diff_request rq;
	static struct diff_state native, emu;
	unsigned long mismatches = 0, bytes = 0, faults = 0, unsteady = 0;
	unsigned long by_vector[32] = { 0 };      /* the native runs' exceptions */

	signal(SIGPIPE, SIG_IGN);
	if (scalar && !scalar_host_ops(stdout)) {
		printf("host-diff: the host has none of the scalar instructions: SKIP\n");
		return 77;
	}
	if (avx2 && model && !avx2_families(model, stdout)) {
		printf("host-diff: the host has no AVX: SKIP\n");
		return 77;
	}
	if (mode == DIFF_MODE64 && !host_model && !amd_host) {
		printf("host-diff: the 64-bit sequences model an AMD host (epyc-lite); this host is not one: SKIP\n");
		return 77;
	}
	if (avx) {
		unsigned r[4] = { 0, 0, 0, 0 };
		bool host_avx = __get_cpuid(1, &r[0], &r[1], &r[2], &r[3]) && (r[2] >> 28 & 1) && (r[2] >> 27 & 1);
		if (!host_avx || !model || !cpu_model_has(model, 1, 2, 28)) {
			printf("host-diff: AVX not compared (%s lacks it): SKIP\n", host_avx ? "the model" : "the host");
			return 77;
		}
		/* The 256-bit integer forms are AVX2's: compared when the host has
		 * it, the model then reporting it too (CPUID.7.0:EBX[5]). */
		avx2_on = __get_cpuid_count(7, 0, &r[0], &r[1], &r[2], &r[3]) && (r[1] >> 5 & 1);
		if (avx2_on)
			model = with_leaf7_ebx(model, 1u << 5);
		aes_on = __get_cpuid(1, &r[0], &r[1], &r[2], &r[3]) && (r[2] >> 25 & 1) && (r[2] >> 1 & 1) &&
			 cpu_model_has(model, 1, 2, 25) && cpu_model_has(model, 1, 2, 1);
		printf("host-diff: VEX.256 packed-integer forms %s\n", avx2_on ? "compared (AVX2)" : "not compared (no host AVX2)");
		dpp_on = !amd_host;
		if (!dpp_on)
			printf("host-diff: VDPPS/VDPPD not compared (an AMD host: its NaN choice, tests/diff/gen.h)\n");
	}
	if (avx2) {
		midway_faults_on = unmasked_post_on = !amd_host;
		if (!midway_faults_on)
			printf("host-diff: masked moves and gathers faulting midway not compared (an AMD host: "
			       "CR2 and the mask left, tests/diff/gen.h), nor unmasked overflow and "
			       "underflow (PE with UE)\n");
	}
	if (simd && model && !(simd_families = simd_common(model))) {
		printf("host-diff: no SIMD family to compare: SKIP\n");
		return 77;
	}
	if (!model || !machine_init(&m, model) || !native_start(&h)) {
		perror("host_diff: set-up");
		return 2;
	}
	printf("host-diff: %s-bit mode%s (%s with SSE3%s), seed %#" PRIx64 ", %lu sequences\n",
	       mode == DIFF_MODE64 ? "64" : "32", simd ? " with SIMD extensions" : avx ? " with AVX" : "", model->name,
	       scalar ? " and SSE4.2, scalar instructions" : avx2 ? " and AVX, AVX2/FMA/F16C instructions" : "",
	       seed, n);
	if (g.no_env_stores)
		printf("host-diff: this host keeps FOP, FDP or FCS/FDS only for unmasked x87 exceptions "
		       "(SDM Vol.1 8.1.8-8.1.9): no FNSTENV/FNSAVE images are stored, those fields not compared\n");
	for (size_t k = 0; mode == DIFF_MODE64 && !host_model && !list && k < sizeof(regressions64) / sizeof(regressions64[0]); k++) {
		const struct regression *r = &regressions64[k];
		int status;
		(void)gen_case64(&g, &rq);
		rq.x87 = 0;
		memcpy(rq.code, r->code, r->len);
		rq.code_len = r->len;
		if (!native_run(&h, &rq, &native, &status))
			return 1;
		status_t st = run_hvemu(&m, &rq, &emu);
		if (st == ST_HALT && same(&rq, &native, &emu, COMPARED))
			continue;
		printf("regression \"%s\":\n", r->name);
		report(k, seed, st, &rq, &native, &emu, COMPARED, 0, 0);
		mismatches++;
	}
	for (unsigned long i = 0; i < n; i++) {
		uint32_t undef = scalar ? gen_case_scalar(&g, &rq) : avx64 ? gen_case_avx64(&g, &rq) : avx2 ? gen_case_avx2(&g, &rq) :
				 mode == DIFF_MODE64 ? gen_case64(&g, &rq) :
				 gen_case32(&g, &rq);
		int status;
		if (list) {
			printf("case %lu:\n", i);
			disassemble(&rq, 0);
			continue;
		}
		if (!native_run(&h, &rq, &native, &status)) {
			printf("case %lu: the native run died (%s %d); code:\n", i,
			       WIFSIGNALED(status) ? "signal" : "exit",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			disassemble(&rq, 0);
			printf("    bytes:");
			for (unsigned k = 0; k < rq.code_len; k++)
				printf(" %02x", rq.code[k]);
			printf("\n   ");
			for (unsigned r = 0; r < 16; r++)
				printf(" %s=%" PRIx64, reg_names[r], rq.in.regs[r]);
			printf(" rflags=%" PRIx64 " mxcsr=%x\n", rq.in.rflags, rq.in.mxcsr);
			return 1;
		}
		status_t st = run_hvemu(&m, &rq, &emu);
		bytes += rq.code_len;
		faults += native.vector >= 0;
		if (native.vector >= 0 && native.vector < 32)
			by_vector[native.vector]++;
		/* 64-bit: the model matches the host's vendor, so undefined flags count too;
		 * in the scalar run only what was measured (on Intel). */
		uint32_t mask = mode == DIFF_MODE64 && !avx2 && (!host_model || intel_host) ? COMPARED : COMPARED & ~undef;
		if (st == ST_HALT && same(&rq, &native, &emu, mask))
			continue;
		/* hvemu is deterministic; the host's run need not be: a context
		 * switch on an AMD host loses the x87 FIP/FDP/FOP unless an exception
		 * is pending (XSAVE and XRSTOR keep them only with FSW.ES = 1, APM2
		 * 11.4.4.3), about once in 10^5 cases here. A case whose native run
		 * does not repeat is run again; it counts as a mismatch only if the
		 * new native run differs from hvemu too. */
		if (st == ST_HALT && rq.x87 && native_repeats_as(&h, &rq, &native, &emu, mask)) {
			unsteady++;
			continue;
		}
		if (++mismatches <= 20)
			report(i, seed, st, &rq, &native, &emu, mask, undef, first_mismatch(&h, &m, &rq, mask));
	}
	native_stop(&h);
	machine_free(&m);
	if (faults) {
		printf("host-diff: exceptions by vector:");
		for (unsigned v = 0; v < 32; v++)
			if (by_vector[v])
				printf(" %u:%lu", v, by_vector[v]);
		printf("\n");
	}
	if (unsteady)
		printf("host-diff: %lu native runs did not repeat and matched hvemu when run again\n", unsteady);
	printf("host-diff: %lu sequences (%lu code bytes, %lu ended by an exception) compared, %lu mismatches\n", n,
	       bytes, faults, mismatches);
	return mismatches ? 1 : 0;
}
