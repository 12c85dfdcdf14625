/* Fuzz target: the SVM #VMEXIT encodings against an executable reading of
 * the APM (fuzz/svm_oracle.c). An L1 stopped at its VMRUN is restored from a
 * snapshot (fuzz/snapshot.h); the input, read as a structure, builds the
 * VMCB (intercepts, permission-map bits, guest state mutated through typed
 * operators) and 1..64 L2 instruction templates; the L1 runs one VMRUN, the
 * guest runs to its #VMEXIT (or halts), and the oracle's prediction of every
 * field of the exit is compared with what hvemu wrote. A disagreement prints
 * the field, both values and the rule's citation, then aborts: a finding.
 *
 * Environment:
 *   HVEMU_FUZZ_QUIRK=name     create the SVM model with that quirk (emu/hv_quirks.c)
 *   HVEMU_FUZZ_STATS=1        at exit: rule coverage, execs/s, reset median
 *   HVEMU_FUZZ_NOABORT=1      count disagreements instead of aborting
 *   HVEMU_FUZZ_VERIFY=1       after each restore compare all of RAM with the snapshot
 *   HVEMU_FUZZ_TRACE=list     hvemu's trace classes (emu/trace.h: insn,exc,io,pf)
 *   HVEMU_FUZZ_EXPECT=field   a test that the oracle finds a known bug: exit 0 at the first
 *                             disagreement on that field ("EXITINFO2"), 1 if the run ends
 *                             without one
 *   HVEMU_FUZZ_STRICT=1       the oracle decides its open questions by the APM's
 *                             general rules (fuzz/findings/README.md)
 *   HVEMU_FUZZ_BENCH=n        time n execs of one entry + 64 templates that do not exit +
 *                             an intercepted HLT, print execs/s and the reset median, exit
 *   HVEMU_FUZZ_SAVE=dir       write each disagreeing input to dir (with HVEMU_FUZZ_NOABORT)
 *
 * Input (bytes past the end read as 0):
 *   0      guest: bit 0 64-bit; bit 1 data segment bases 4000_0000h (32-bit);
 *          bits 3:2 IDT (L2 IDT, the hole page, base FFFF_FF00h, L2 IDT limit 3Fh);
 *          bit 4 CR4.OSXSAVE; bit 5 16-bit gates in the L2 IDT
 *   1-4    CR read/write intercepts (word 0), 5-8 DR (word 1)
 *   9      exception intercepts: #DE #BP #UD #GP #PF #SS #DB #NP
 *   10-13  instruction intercepts, one bit per entry of misc_intercepts[]
 *   14     mutations: count in bits 2:0, then 3 bytes each
 *   ...    templates: count 1..64, then 5 bytes each (op, 4 operands)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"
#include "emu/exit_report.h"
#include "emu/hv_quirks.h"
#include "emu/trace.h"
#include "fuzz/fuzz.h"
#include "fuzz/snapshot.h"
#include "fuzz/svm_oracle.h"
#include "svm/bitmaps.h"
#include "svm/model.h"             /* sizeof(struct svm), for the snapshot only */
#include "svm/svm.h"

/* Guest-physical layout (2 MiB). L1: */
#define RAM_SIZE (2u << 20)
#define L1_GDT 0x1000u
#define L1_IDT 0x2000u
#define L1_HANDLER 0x3000u
#define L1_CODE 0x4000u            /* VMRUN; HLT */
#define VMCB_PA 0x5000u
#define HSAVE 0x6000u
#define MSRPM 0x8000u              /* 8 KiB */
#define IOPM 0xa000u               /* 12 KiB */
#define SCRATCH 0xe000u            /* what 16-bit string addressing reaches */
#define L1_STACK 0xfff0u
/* L2, identity-mapped below 2 MiB but for the two holes: */
#define L2_GDT 0x10000u
#define L2_IDT 0x11000u
#define L2_HANDLER 0x12000u
#define PD32 0x13000u
#define PT32 0x14000u
#define PML4 0x15000u
#define PDPT 0x16000u
#define PD64 0x17000u
#define PT64 0x18000u
#define L2_TSS 0x19000u
#define L2_IDT16 0x1a000u          /* 16-bit interrupt gates ... */
#define L2_HANDLER16 0xd000u       /* ... to HLT below 64 KiB */
#define L2_CODE 0x20000u           /* two pages */
#define L2_CODE_MAX 0x2000u
#define L2_STACK 0x30000u
#define DATA 0x7e000u
#define HOLE 0x7f000u              /* not present; so is page 0 */
#define MAPPED_TOP 0x200000u
#define SEG_BASE_ESCAPE 0x40000000u   /* the Escape OS segment bases */
#define INSN_LIMIT 4096
#define MAX_TEMPLATES 64

/* ---- the input reader ---- */

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct reader *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t word32(struct reader *r)
{
	uint32_t v = byte(r);
	v |= (uint32_t)byte(r) << 8;
	v |= (uint32_t)byte(r) << 16;
	return v | (uint32_t)byte(r) << 24;
}

/* ---- the machine ---- */

struct machine {
	struct physmem pm;
	struct iobus io;
	struct cpu cpu;
	struct svm *svm;
	struct snapshot snap;
	struct oracle_cpu ocpu;
	struct oracle_layout layout;
	const char *failed_check;          /* the observer's last report */
	unsigned quirks;
};

static uint64_t descriptor(uint32_t base, uint32_t limit, unsigned access, unsigned flags)
{
	return (limit & 0xffffull) | ((uint64_t)(base & 0xffffff) << 16) | ((uint64_t)access << 40) |
	       ((uint64_t)((limit >> 16) & 0xf) << 48) | ((uint64_t)flags << 52) | ((uint64_t)(base >> 24) << 56);
}

static void ram_written(void *opaque, uint64_t pa, unsigned size)
{
	cpu_notify_phys_write(opaque, pa, size);
}

static void observe(void *ctx, struct cpu *cpu, const struct vm_exit_report *r)
{
	(void)cpu;
	((struct machine *)ctx)->failed_check = r->failed_check;
}

static struct vm_exit_observer observer = { .exit = observe };

static void build_memory(struct physmem *pm)
{
	memset(pm->ram, 0, pm->ram_size);
	/* L1: flat 32-bit protected mode without paging. */
	physmem_write(pm, L1_GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L1_GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	pm->ram[L1_HANDLER] = 0xf4;
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L1_IDT + v * 8, 8, (L1_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40));
	static const uint8_t l1[] = { 0x0f, 0x01, 0xd8, 0xf4 };   /* vmrun; hlt */
	memcpy(pm->ram + L1_CODE, l1, sizeof(l1));

	/* L2: GDT, an IDT whose gates lead to HLT, a TSS, and the page tables:
	 * present, writable, accessed and dirty (the walker writes nothing). */
	physmem_write(pm, L2_GDT + 0x08, 8, descriptor(0, 0xfffff, 0x9b, 0xc));
	physmem_write(pm, L2_GDT + 0x10, 8, descriptor(0, 0xfffff, 0x93, 0xc));
	physmem_write(pm, L2_GDT + 0x18, 8, descriptor(0, 0xfffff, 0x9b, 0xa));
	physmem_write(pm, L2_GDT + 0x28, 8, descriptor(L2_TSS, 0x67, 0x8b, 0));
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT + v * 8, 8, (L2_HANDLER & 0xffff) | (0x08ull << 16) | (0x8eull << 40) |
						      ((uint64_t)(L2_HANDLER >> 16) << 48));
	memset(pm->ram + L2_HANDLER, 0xf4, 0x1000);
	for (unsigned v = 0; v < 256; v++)
		physmem_write(pm, L2_IDT16 + v * 8, 8, L2_HANDLER16 | (0x08ull << 16) | (0x86ull << 40));
	memset(pm->ram + L2_HANDLER16, 0xf4, 0x1000);
	for (uint32_t i = 0; i < MAPPED_TOP >> 12; i++) {
		uint32_t pa = i << 12;
		bool hole = pa == 0 || pa == HOLE;
		physmem_write(pm, PT32 + i * 4, 4, hole ? 0 : pa | 0x63);
		physmem_write(pm, PT64 + i * 8, 8, hole ? 0 : pa | 0x63);
	}
	physmem_write(pm, PD32, 4, PT32 | 0x23);
	physmem_write(pm, PD64, 8, PT64 | 0x23);
	physmem_write(pm, PDPT, 8, PD64 | 0x23);
	physmem_write(pm, PML4, 8, PDPT | 0x23);
	memset(pm->ram + L2_CODE, 0xf4, L2_CODE_MAX);
}

static void machine_init(struct machine *m)
{
	const struct cpu_model *epyc = cpu_model_find("epyc-lite");
	if (!epyc || !physmem_init(&m->pm, RAM_SIZE))
		abort();
	iobus_init(&m->io);
	cpu_init(&m->cpu, epyc, &m->pm, &m->io);
	const char *q = getenv("HVEMU_FUZZ_QUIRK");
	if (q && *q) {
		const struct hv_quirk_info *qi = hv_quirk_find(q);
		if (!qi) {
			fprintf(stderr, "svm_exit_fuzz: no quirk %s\n", q);
			exit(2);
		}
		m->quirks = qi->bit;
		fprintf(stderr, "svm_exit_fuzz: quirk %s on\n", q);
	}
	m->svm = svm_create(&m->cpu, m->quirks);
	if (!m->svm)
		abort();
	build_memory(&m->pm);

	/* The L1 at CPL 0 about to execute VMRUN with rAX = the VMCB. */
	struct cpu *cpu = &m->cpu;
	cpu->cr0 |= CR0_PE;
	seg_load_descriptor(&cpu->seg[SR_CS], 0x08, physmem_read(&m->pm, L1_GDT + 0x08, 8));
	for (unsigned s = 0; s < SR_COUNT; s++)
		if (s != SR_CS)
			seg_load_descriptor(&cpu->seg[s], 0x10, physmem_read(&m->pm, L1_GDT + 0x10, 8));
	cpu->gdtr = (struct dtr){ .base = L1_GDT, .limit = 0x17 };
	cpu->idtr = (struct dtr){ .base = L1_IDT, .limit = 256 * 8 - 1 };
	cpu->efer = EFER_SVME;
	cpu->vm_hsave_pa = HSAVE;
	cpu->cpl = 0;
	cpu->rip = L1_CODE;
	cpu->regs[R_AX] = VMCB_PA;
	cpu->regs[R_SP] = L1_STACK;
	cpu->icount_limit = INSN_LIMIT;
	cpu->exit_observer = &observer;
	observer.ctx = m;
	cpu_update_mode(cpu);
	m->pm.on_ram_write = ram_written;
	m->pm.on_ram_write_opaque = cpu;

	/* What the oracle knows of the processor: its CPUID. */
	uint32_t r[4];
	cpu_cpuid(cpu, 1, 0, r);
	m->ocpu.cpuid1_ecx = r[2], m->ocpu.cpuid1_edx = r[3];
	cpu_cpuid(cpu, 7, 0, r);
	m->ocpu.cpuid7_ebx = r[1], m->ocpu.cpuid7_ecx = r[2];
	cpu_cpuid(cpu, 0x80000001, 0, r);
	m->ocpu.cpuid81_ecx = r[2], m->ocpu.cpuid81_edx = r[3];
	cpu_cpuid(cpu, 0x80000008, 0, r);
	m->ocpu.maxphyaddr = r[0] & 0xff;
	cpu_cpuid(cpu, 0x8000000a, 0, r);
	m->ocpu.svm_edx = r[3];
	m->layout = (struct oracle_layout){
		.cr3_32 = PD32, .cr3_64 = PML4, .mapped_top = MAPPED_TOP, .holes = { 0, HOLE },
		.data = DATA, .start_rip = L2_CODE, .ram = m->pm.ram, .ram_size = RAM_SIZE,
		.idt32 = L2_IDT, .idt16 = L2_IDT16, .handler32 = L2_HANDLER, .handler16 = L2_HANDLER16,
	};
	const char *tr = getenv("HVEMU_FUZZ_TRACE");
	unsigned classes;
	if (tr && *tr && trace_parse(tr, &classes)) {
		static struct trace t;
		trace_init(&t, stderr);
		trace_attach(&t, cpu, classes);
	}
	if (!snapshot_take(&m->snap, cpu, &m->pm, m->svm, sizeof(*m->svm)))
		abort();
}

/* ---- the VMCB ---- */

/* The instruction intercepts the input chooses among (Table B-1 bit numbers);
 * a second bit where one input bit sets two, 0 if none. */
static const unsigned misc_intercepts[32][2] = {
	{ SVM_INTERCEPT_CPUID }, { SVM_INTERCEPT_RDTSC }, { SVM_INTERCEPT_RDTSCP }, { SVM_INTERCEPT_RDPMC },
	{ SVM_INTERCEPT_HLT }, { SVM_INTERCEPT_PAUSE }, { SVM_INTERCEPT_INVD }, { SVM_INTERCEPT_WBINVD },
	{ SVM_INTERCEPT_VMMCALL }, { SVM_INTERCEPT_INVLPG }, { SVM_INTERCEPT_PUSHF }, { SVM_INTERCEPT_IOIO_PROT },
	{ SVM_INTERCEPT_MSR_PROT }, { SVM_INTERCEPT_INTN }, { SVM_INTERCEPT_ICEBP }, { SVM_INTERCEPT_XSETBV },
	{ SVM_INTERCEPT_CR0_SEL_WRITE }, { SVM_INTERCEPT_MONITOR }, { SVM_INTERCEPT_MWAIT },
	{ SVM_INTERCEPT_IDTR_READ }, { SVM_INTERCEPT_GDTR_READ }, { SVM_INTERCEPT_LDTR_READ },
	{ SVM_INTERCEPT_TR_READ }, { SVM_INTERCEPT_IDTR_WRITE }, { SVM_INTERCEPT_GDTR_WRITE },
	{ SVM_INTERCEPT_LDTR_WRITE }, { SVM_INTERCEPT_TR_WRITE }, { SVM_INTERCEPT_RSM },
	{ SVM_INTERCEPT_INVLPGA }, { SVM_INTERCEPT_VMLOAD }, { SVM_INTERCEPT_VMSAVE },
	{ SVM_INTERCEPT_STGI, SVM_INTERCEPT_CLGI },
};

static void set_intercept(struct vmcb *v, unsigned bit)
{
	v->control.intercepts[bit / 32] |= 1u << (bit % 32);
}

static struct vmcb_seg seg(uint16_t sel, uint16_t attrib, uint32_t limit, uint64_t base)
{
	return (struct vmcb_seg){ .selector = sel, .attrib = attrib, .limit = limit, .base = base };
}

/* The legal starting point of either guest; the mutations move from it. */
static void vmcb_base(struct vmcb *v, uint8_t guest)
{
	bool m64 = guest & 1;
	uint64_t data_base = !m64 && (guest & 2) ? SEG_BASE_ESCAPE : 0;
	memset(v, 0, sizeof(*v));
	struct vmcb_control *c = &v->control;
	struct vmcb_save *s = &v->save;
	set_intercept(v, SVM_INTERCEPT_VMRUN);
	c->iopm_base_pa = IOPM;
	c->msrpm_base_pa = MSRPM;
	c->guest_asid = 1;
	/* Poison what the #VMEXIT must write (APM2 15.7). */
	c->exitcode = 0x5a5a5a5a5a5a5a5aull;
	c->exitinfo1 = c->exitinfo2 = c->exitintinfo = c->nrip = 0xa5a5a5a5a5a5a5a5ull;
	s->cs = m64 ? seg(0x18, 0xa9b, 0xffffffffu, 0) : seg(0x08, 0xc9b, 0xffffffffu, 0);
	s->ds = s->es = s->ss = seg(0x10, 0xc93, 0xffffffffu, data_base);
	s->fs = s->gs = seg(0x10, 0xc93, 0xffffffffu, 0);
	s->gdtr = seg(0, 0, 0x2f, L2_GDT);
	switch ((guest >> 2) & 3) {
	case 0: s->idtr = seg(0, 0, m64 ? 0xfff : 0x7ff, guest & 0x20 ? L2_IDT16 : L2_IDT); break;
	case 1: s->idtr = seg(0, 0, 0xfff, HOLE); break;
	case 2: s->idtr = seg(0, 0, 0xfff, m64 ? HOLE - 0x800 : 0xffffff00u); break;
	default: s->idtr = seg(0, 0, 0x3f, L2_IDT); break;
	}
	s->tr = seg(0x28, 0x8b, 0x67, L2_TSS);
	s->cpl = 0;
	s->efer = EFER_SVME | (m64 ? EFER_LME | EFER_LMA : 0);
	s->cr0 = CR0_PE | CR0_ET | CR0_PG;
	s->cr3 = m64 ? PML4 : PD32;
	s->cr4 = (m64 ? CR4_PAE : 0) | (guest & 0x10 ? CR4_OSXSAVE : 0);
	s->dr6 = 0xffff0ff0;
	s->dr7 = 0x400;
	s->rflags = 2;
	s->rip = L2_CODE;
	s->rsp = L2_STACK;
	s->rax = 0x1234;
	s->g_pat = 0x0007040600070406ull;
}

/* Typed operators: each moves one field the way the APM's rules look at it,
 * to either side of the rule (failing or legal). */
static void mutate(struct vmcb *v, uint8_t op, uint8_t a, uint8_t b)
{
	struct vmcb_save *s = &v->save;
	struct vmcb_control *c = &v->control;
	switch (op % 16) {
	case 0: {          /* CR0: the check bits, the model's free bits, PE/PG */
		static const uint8_t bits[] = { 30, 29, 16, 18, 5, 3, 1, 2, 0, 31, 32, 40, 63 };
		s->cr0 ^= 1ull << bits[a % sizeof(bits)];
		break;
	}
	case 1: {          /* CR3: PWT/PCD (legal), reserved low bits, above 31, above MAXPHYADDR */
		static const uint8_t bits[] = { 3, 4, 0, 7, 31, 35, 39, 40, 51, 52, 63 };
		s->cr3 ^= 1ull << bits[a % sizeof(bits)];
		break;
	}
	case 2:            /* CR4: any bit 0-31, sometimes above */
		s->cr4 ^= 1ull << (b & 1 ? a % 32 : a % 64);
		break;
	case 3:            /* DR6/DR7: the high half, or a legal low bit of DR6 */
		if (a & 1)
			s->dr7 |= 1ull << (32 + b % 32);
		else if (a & 2)
			s->dr6 |= 1ull << (32 + b % 32);
		else
			s->dr6 ^= 1ull << (b % 4);
		break;
	case 4:            /* EFER: any bit 0-23, sometimes above */
		s->efer ^= 1ull << (b & 1 ? a % 24 : a % 64);
		break;
	case 5:
		s->efer &= ~(uint64_t)EFER_SVME;
		break;
	case 6:            /* CS attributes: the L/D lattice */
		s->cs.attrib ^= a & 1 ? SVM_SEG_ATTR_L : SVM_SEG_ATTR_DB;
		if (a & 2)
			s->cs.attrib ^= SVM_SEG_ATTR_L | SVM_SEG_ATTR_DB;
		break;
	case 7:
		c->intercepts[SVM_INTERCEPT_VMRUN / 32] &= ~(1u << (SVM_INTERCEPT_VMRUN % 32));
		break;
	case 8:
		c->guest_asid = a & 1 ? 0 : 1u + b;
		break;
	case 9: {          /* EVENTINJ: any TYPE and vector, EV with an error code */
		uint64_t w = SVM_EVENT_VALID | ((uint64_t)(a & 7) << 8) | b;
		if (a & 8)
			w |= SVM_EVENT_ERROR_VALID | ((uint64_t)(a >> 4) << 32);
		if ((a & 0x70) == 0x70)
			w |= 1ull << 12;   /* a reserved bit */
		c->eventinj = w;
		break;
	}
	case 10:
	case 11: {         /* a permission map's base against MAXPHYADDR (40 bits) */
		uint64_t size = op % 16 == 10 ? SVM_MSRPM_SIZE : SVM_IOPM_SIZE;
		uint64_t top = 1ull << 40;
		uint64_t choices[] = { top - size, top - size + 0x1000, top - size + 0xfff, top, 1ull << 63,
				       (op % 16 == 10 ? MSRPM : IOPM) | 0xfff };
		uint64_t *base = op % 16 == 10 ? &c->msrpm_base_pa : &c->iopm_base_pa;
		*base = choices[a % 6];
		break;
	}
	case 12:           /* paired invariants: break one side of LME/PG/PE/PAE/LMA */
		switch (a % 6) {
		case 0: s->cr4 &= ~(uint64_t)CR4_PAE; break;
		case 1: s->cr0 &= ~(uint64_t)CR0_PE; break;
		case 2: s->efer ^= EFER_LMA; break;
		case 3: s->efer ^= EFER_LME; break;
		case 4: s->cr0 &= ~(uint64_t)CR0_PG; break;
		default: s->cr0 &= ~(uint64_t)(CR0_PG | CR0_PE); break;
		}
		break;
	case 13:           /* RFLAGS: arithmetic flags, IF, AC, TF */
		s->rflags ^= 1ull << ((const uint8_t[]){ 0, 2, 4, 6, 7, 9, 10, 11, 18, 8 })[a % 10];
		break;
	case 14:           /* segment bases: canonical or not (FS), the Escape base (DS) */
		if (a & 1)
			s->fs.base = b & 1 ? 0x8000000000000000ull : 0x7fffffff000ull;
		else
			s->ds.base = s->ds.base ? 0 : SEG_BASE_ESCAPE;
		break;
	default:           /* TLB_CONTROL: do nothing or flush all */
		c->tlb_control = a & 1;
		break;
	}
}

/* ---- the L2 code ---- */

struct assembler {
	uint8_t buf[L2_CODE_MAX];
	unsigned len;
	bool m64;
};

static void emit(struct assembler *as, const uint8_t *b, unsigned n)
{
	memcpy(as->buf + as->len, b, n);
	as->len += n;
}

static void emit1(struct assembler *as, uint8_t b)
{
	as->buf[as->len++] = b;
}

static void emit32(struct assembler *as, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		emit1(as, (uint8_t)(v >> (8 * i)));
}

/* mov r32, imm32 (B8+r), with REX.B for r8-r15 in 64-bit mode. */
static void mov_imm32(struct assembler *as, unsigned reg, uint32_t v)
{
	if (reg >= 8)
		emit1(as, 0x41);
	emit1(as, (uint8_t)(0xb8 + (reg & 7)));
	emit32(as, v);
}

/* mov r, imm: 64 bits in 64-bit mode (REX.W B8+r), else 32. */
static void mov_imm(struct assembler *as, unsigned reg, uint64_t v)
{
	if (!as->m64) {
		mov_imm32(as, reg, (uint32_t)v);
		return;
	}
	emit1(as, (uint8_t)(0x48 | (reg >= 8 ? 1 : 0)));
	emit1(as, (uint8_t)(0xb8 + (reg & 7)));
	emit32(as, (uint32_t)v);
	emit32(as, (uint32_t)(v >> 32));
}

static const uint8_t seg_prefix[6] = { 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65 };

/* A GPR for MOV CR/DR: not rSP (the stack is tracked). */
static unsigned pick_gpr(bool m64, uint8_t b)
{
	static const uint8_t r32[] = { 0, 1, 2, 3, 5, 6, 7 };
	static const uint8_t r64[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	return m64 ? r64[b % sizeof(r64)] : r32[b % sizeof(r32)];
}

/* An address for a data access: present, a hole, page 0, a page crossing
 * into the hole, a 32-bit wrap onto the hole through a base of 4000_0000h,
 * non-canonical, beyond the mapping. */
static uint64_t pick_address(bool m64, uint8_t a, uint8_t off)
{
	switch (a % 8) {
	case 0: return DATA + off;
	case 1: return HOLE + off * 4u;
	case 2: return off;
	case 3: return DATA + 0xffe;
	case 4: return (uint32_t)(HOLE - SEG_BASE_ESCAPE) + off;
	case 5: return m64 ? 0x8000000000000000ull + off : 0xfffffffeu;
	case 6: return m64 ? 0x40000000ull : 0x00400000u;
	default: return L2_STACK - 0x100 + off;
	}
}

static void assemble(struct assembler *as, struct oracle_insn *in, const struct vmcb *v, const uint8_t op[5],
		     uint8_t *iopm_bits, uint8_t *msrpm_bits)
{
	bool m64 = as->m64;
	uint8_t a = op[1], b = op[2], c = op[3], d = op[4];
	memset(in, 0, sizeof(*in));
	in->op = op[0] % OP_COUNT;
	in->seg = -1;
	in->size = 4;
	if (in->op == OP_RETF16 && m64)
		in->op = OP_NOP;
	switch (in->op) {
	case OP_RDPMC:
	case OP_DIV0:
		mov_imm32(as, 1, 0);       /* ECX = 0 */
		break;
	case OP_IN:
	case OP_OUT:
	case OP_INS:
	case OP_OUTS: {
		static const uint16_t ports[] = { 0x80, 0x70, 0x3f8, 0xcf8, 0xffff, 0xfffe, 0x60, 0 };
		in->imm = a % 8 == 7 ? (uint32_t)(b | c << 8) : ports[a % 8];
		in->size = (const uint8_t[]){ 1, 2, 4 }[b % 3];
		bool str = in->op == OP_INS || in->op == OP_OUTS;
		if (str || !(c & 1) || in->imm > 0xff) {
			in->flags |= OI_PORT_DX;
			mov_imm32(as, 2, in->imm);
		}
		if (str) {
			if (c & 2)
				in->flags |= OI_REP;
			if (c & 4)
				in->flags |= OI_ADDR_OVR;
			bool a16 = !m64 && (in->flags & OI_ADDR_OVR);
			in->value = a16 ? (DATA & 0xffff) : DATA;
			mov_imm32(as, in->op == OP_INS ? 7 : 6, (uint32_t)in->value);
			mov_imm32(as, 1, 1);
			if (in->op == OP_OUTS && (c >> 3) % 7 < 6)
				in->seg = (int8_t)((c >> 3) % 7);
		}
		/* The IOPM bits this access looks at: its first port, or its last. */
		if (d & 1)
			iopm_bits[in->imm / 8] |= (uint8_t)(1u << (in->imm % 8));
		if (d & 2) {
			uint32_t last = in->imm + in->size - 1;
			iopm_bits[last / 8] |= (uint8_t)(1u << (last % 8));
		}
		break;
	}
	case OP_RDMSR:
	case OP_WRMSR: {
		static const uint32_t msrs[] = { 0x10, 0x1b, 0x174, 0xc0000080u, 0xc0000081u, 0xc0010000u,
						 0xc0011fffu, 0x2000, 0xc0002000u, 0x40000000u, 0x1fff, 0 };
		in->imm = a % 12 == 11 ? (uint32_t)(b | c << 8 | (uint32_t)d << 24) : msrs[a % 12];
		mov_imm32(as, 1, in->imm);
		if (in->op == OP_WRMSR) {
			in->value = (uint64_t)b << 8;
			mov_imm32(as, 0, (uint32_t)in->value);
			mov_imm32(as, 2, 0);
		}
		uint32_t byte_in_map, ranges[3] = { 0, 0xc0000000u, 0xc0010000u };
		for (unsigned r = 0; r < 3; r++) {
			if (in->imm - ranges[r] < 0x2000u) {
				uint32_t bit = r * 0x4000u + (in->imm - ranges[r]) * 2;
				byte_in_map = bit / 8;
				if (d & 1)
					msrpm_bits[byte_in_map] |= (uint8_t)(1u << (bit % 8 + (in->op == OP_WRMSR)));
				if (d & 2)
					msrpm_bits[byte_in_map] |= (uint8_t)(1u << (bit % 8 + (in->op != OP_WRMSR)));
			}
		}
		break;
	}
	case OP_MOV_FROM_CR:
	case OP_MOV_TO_CR:
	case OP_MOV_FROM_DR:
	case OP_MOV_TO_DR: {
		bool cr = in->op == OP_MOV_FROM_CR || in->op == OP_MOV_TO_CR;
		bool wr = in->op == OP_MOV_TO_CR || in->op == OP_MOV_TO_DR;
		static const uint8_t crs[] = { 0, 2, 3, 4, 8 }, drs[] = { 0, 1, 2, 3, 6, 7 };
		in->imm = cr ? crs[a % (m64 ? 5 : 4)] : drs[a % 6];
		in->reg = (uint8_t)pick_gpr(m64, b);
		if (wr) {
			uint64_t cur = 0;
			if (cr)
				cur = in->imm == 0 ? v->save.cr0 : in->imm == 2 ? v->save.cr2 : in->imm == 3 ? v->save.cr3 :
				      in->imm == 4 ? v->save.cr4 : 0;
			else
				cur = in->imm == 6 ? v->save.dr6 : in->imm == 7 ? v->save.dr7 : (uint64_t)c << 12;
			if (c % 4 == 0)
				cur ^= 1ull << (d % (m64 ? 64 : 32));
			in->value = cur;
			mov_imm(as, in->reg, cur);
		}
		unsigned rex = 0x40 | (in->imm >= 8 ? 4 : 0) | (in->reg >= 8 ? 1 : 0);
		if (rex != 0x40)
			emit1(as, (uint8_t)rex);
		emit1(as, 0x0f);
		emit1(as, (uint8_t)((cr ? 0x20 : 0x21) | (wr ? 2 : 0)));
		in->rip = L2_CODE + as->len - 2 - (rex != 0x40);
		emit1(as, (uint8_t)(0xc0 | (in->imm & 7) << 3 | (in->reg & 7)));
		in->len = (uint8_t)(L2_CODE + as->len - in->rip);
		return;
	}
	case OP_LOAD:
	case OP_STORE:
	case OP_INVLPG:
		in->value = pick_address(m64, a, b);
		if (c % 4 == 1)
			in->seg = 2;       /* SS */
		else if (c % 4 == 2)
			in->seg = 0;       /* ES */
		if (in->op == OP_INVLPG && m64 && (in->value >> 31))
			in->value = DATA;  /* disp32 only */
		break;
	case OP_RETF16: {
		uint32_t ss_base = (uint32_t)v->save.ss.base;
		static const uint32_t targets[] = { HOLE, 0, DATA };
		in->value = (uint32_t)(targets[a % 3] + (b & 0xf0) - ss_base);
		mov_imm32(as, 4, (uint32_t)in->value);
		break;
	}
	case OP_SETSP: {
		/* ESP where a frame's push lands: in the hole (through the
		 * Escape base, wrapping at 4 GiB), page 0, the stack, data. */
		uint32_t ss_base = (uint32_t)v->save.ss.base;
		static const uint32_t targets[] = { HOLE + 0x10, 0x10, L2_STACK, DATA + 0x100, HOLE + 0x1000 + 6 };
		in->value = (uint32_t)(targets[a % 5] + (b & 0x0e) - ss_base);
		mov_imm32(as, 4, (uint32_t)in->value);
		in->rip = L2_CODE + as->len - 5;
		in->len = 5;
		return;
	}
	case OP_XSETBV:
		in->value = (const uint8_t[]){ 1, 3, 0, 2 }[a % 4];
		mov_imm32(as, 1, 0);
		mov_imm32(as, 0, (uint32_t)in->value);
		mov_imm32(as, 2, 0);
		break;
	case OP_INTN:
		in->imm = a;
		break;
	case OP_VMLOAD:
	case OP_VMSAVE:
		mov_imm32(as, 0, DATA);    /* rAX: a page-aligned address in RAM */
		break;
	default:
		break;
	}

	in->rip = L2_CODE + as->len;
	switch (in->op) {
	case OP_NOP: emit1(as, 0x90); break;
	case OP_CPUID: emit(as, (const uint8_t[]){ 0x0f, 0xa2 }, 2); break;
	case OP_RDTSC: emit(as, (const uint8_t[]){ 0x0f, 0x31 }, 2); break;
	case OP_RDTSCP: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xf9 }, 3); break;
	case OP_RDPMC: emit(as, (const uint8_t[]){ 0x0f, 0x33 }, 2); break;
	case OP_HLT: emit1(as, 0xf4); break;
	case OP_PAUSE: emit(as, (const uint8_t[]){ 0xf3, 0x90 }, 2); break;
	case OP_INVD: emit(as, (const uint8_t[]){ 0x0f, 0x08 }, 2); break;
	case OP_WBINVD: emit(as, (const uint8_t[]){ 0x0f, 0x09 }, 2); break;
	case OP_VMMCALL: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xd9 }, 3); break;
	case OP_PUSHF: emit1(as, 0x9c); break;
	case OP_INVLPG:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		if (m64) {
			emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3c, 0x25 }, 4);   /* [disp32] via SIB */
		} else {
			emit(as, (const uint8_t[]){ 0x0f, 0x01, 0x3d }, 3);
		}
		emit32(as, (uint32_t)in->value);
		break;
	case OP_IN:
	case OP_OUT: {
		bool out = in->op == OP_OUT;
		if (in->size == 2)
			emit1(as, 0x66);
		unsigned opc = (in->flags & OI_PORT_DX ? 0xec : 0xe4) + (out ? 2 : 0) + (in->size > 1);
		emit1(as, (uint8_t)opc);
		if (!(in->flags & OI_PORT_DX))
			emit1(as, (uint8_t)in->imm);
		break;
	}
	case OP_INS:
	case OP_OUTS:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		if (in->flags & OI_ADDR_OVR)
			emit1(as, 0x67);
		if (in->size == 2)
			emit1(as, 0x66);
		if (in->flags & OI_REP)
			emit1(as, 0xf3);
		emit1(as, (uint8_t)((in->op == OP_INS ? 0x6c : 0x6e) + (in->size > 1)));
		break;
	case OP_RDMSR: emit(as, (const uint8_t[]){ 0x0f, 0x32 }, 2); break;
	case OP_WRMSR: emit(as, (const uint8_t[]){ 0x0f, 0x30 }, 2); break;
	case OP_INTN: emit1(as, 0xcd); emit1(as, (uint8_t)in->imm); break;
	case OP_INT3: emit1(as, 0xcc); break;
	case OP_UD2: emit(as, (const uint8_t[]){ 0x0f, 0x0b }, 2); break;
	case OP_DIV0: emit(as, (const uint8_t[]){ 0xf7, 0xf1 }, 2); break;
	case OP_ICEBP: emit1(as, 0xf1); break;
	case OP_LOAD:
	case OP_STORE:
		if (in->seg >= 0)
			emit1(as, seg_prefix[in->seg]);
		emit1(as, in->op == OP_LOAD ? 0xa1 : 0xa3);    /* mov eax, moffs / mov moffs, eax */
		emit32(as, (uint32_t)in->value);
		if (m64)
			emit32(as, (uint32_t)(in->value >> 32));
		break;
	case OP_RETF16: emit(as, (const uint8_t[]){ 0x66, 0xcb }, 2); break;
	case OP_XSETBV: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xd1 }, 3); break;
	case OP_MONITOR: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xc8 }, 3); break;
	case OP_MWAIT: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xc9 }, 3); break;
	case OP_SIDT:
	case OP_SGDT:
	case OP_LIDT:
	case OP_LGDT: {
		/* 0F 01 /0 SGDT, /1 SIDT, /2 LGDT, /3 LIDT with [data]. */
		static const uint8_t ext[] = { [OP_SGDT - OP_SIDT] = 0, [OP_SIDT - OP_SIDT] = 1,
					       [OP_LGDT - OP_SIDT] = 2, [OP_LIDT - OP_SIDT] = 3 };
		unsigned r = ext[in->op - OP_SIDT];
		emit1(as, 0x0f);
		emit1(as, 0x01);
		if (m64) {
			emit1(as, (uint8_t)(0x04 | r << 3));
			emit1(as, 0x25);   /* SIB: disp32, no base */
		} else {
			emit1(as, (uint8_t)(0x05 | r << 3));
		}
		emit32(as, DATA);
		break;
	}
	case OP_SLDT:
	case OP_STR:
	case OP_LLDT:
	case OP_LTR: {
		/* 0F 00 /0 SLDT, /1 STR, /2 LLDT, /3 LTR with AX. */
		static const uint8_t ext[] = { [OP_SLDT - OP_SLDT] = 0, [OP_STR - OP_SLDT] = 1,
					       [OP_LLDT - OP_SLDT] = 2, [OP_LTR - OP_SLDT] = 3 };
		emit(as, (const uint8_t[]){ 0x0f, 0x00, (uint8_t)(0xc0 | ext[in->op - OP_SLDT] << 3) }, 3);
		break;
	}
	case OP_RSM: emit(as, (const uint8_t[]){ 0x0f, 0xaa }, 2); break;
	case OP_INVLPGA: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdf }, 3); break;
	case OP_VMLOAD: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xda }, 3); break;
	case OP_VMSAVE: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdb }, 3); break;
	case OP_STGI: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdc }, 3); break;
	case OP_CLGI: emit(as, (const uint8_t[]){ 0x0f, 0x01, 0xdd }, 3); break;
	default: emit1(as, 0x90); in->op = OP_NOP; break;
	}
	in->len = (uint8_t)(L2_CODE + as->len - in->rip);
}

/* ---- statistics ---- */

#define RESET_SAMPLES 8192
static struct {
	bool on;
	bool no_abort;
	bool verify;
	uint64_t execs, disagreements;
	struct timespec start;
	double reset_us[RESET_SAMPLES];
	unsigned n_reset;
} stats;

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void print_stats(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double secs = (double)(now.tv_sec - stats.start.tv_sec) + (double)(now.tv_nsec - stats.start.tv_nsec) / 1e9;
	oracle_print_coverage();
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	fprintf(stderr, "svm_exit_fuzz: %llu execs in %.1f s: %.0f execs/s; %llu disagreements\n",
		(unsigned long long)stats.execs, secs, secs > 0 ? (double)stats.execs / secs : 0.0,
		(unsigned long long)stats.disagreements);
	if (stats.n_reset)
		fprintf(stderr, "svm_exit_fuzz: reset median %.2f us, p90 %.2f us (%u samples)\n",
			stats.reset_us[stats.n_reset / 2], stats.reset_us[stats.n_reset * 9 / 10], stats.n_reset);
}

static const char *expect;

static void expectation_unmet(void)
{
	fprintf(stderr, "svm_exit_fuzz: no disagreement on %s was found\n", expect);
	_Exit(1);
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && *v != '0';
}

static struct machine m;

/* Instructions the last exec's L1 and L2 retired (the restore rewinds icount). */
static uint64_t m_icount(void)
{
	return m.cpu.icount - m.snap.cpu_state.icount;
}

/* ---- the exec/s measure ---- */

/* The input of one bench exec: a 32-bit guest, HLT intercepted, and 64
 * templates that do not exit: about 100 guest instructions (the set-up MOVs
 * included), memory accesses through the TLB, I/O to an unclaimed port. */
static size_t bench_input(uint8_t *buf)
{
	size_t n = 0;
	buf[n++] = 0;                      /* 32-bit guest */
	n += 8;                            /* no CR/DR intercepts */
	buf[n++] = 0;                      /* no exception intercepts */
	buf[n++] = 1u << 4;                /* misc: HLT */
	buf[n++] = 0, buf[n++] = 0, buf[n++] = 0;
	buf[n++] = 0;                      /* no mutations */
	buf[n++] = 63;                     /* 64 templates */
	static const uint8_t ops[8][5] = {
		{ OP_NOP }, { OP_LOAD, 0, 8 }, { OP_STORE, 0, 16 }, { OP_PAUSE },
		{ OP_OUT, 0, 0, 0, 0 }, { OP_INVLPG, 0, 0 }, { OP_MOV_FROM_DR, 0, 1 }, { OP_WBINVD },
	};
	for (unsigned k = 0; k < 64; k++)
		for (unsigned j = 0; j < 5; j++)
			buf[n++] = ops[k % 8][j];
	return n;
}

static void run_bench(unsigned long count)
{
	static uint8_t buf[512];
	size_t len = bench_input(buf);
	stats.on = true;
	stats.n_reset = 0;
	uint64_t insns = 0;
	struct timespec a, b;
	LLVMFuzzerTestOneInput(buf, len);  /* warm: the first exec decodes */
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned long i = 0; i < count; i++) {
		LLVMFuzzerTestOneInput(buf, len);
		insns += m_icount();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	qsort(stats.reset_us, stats.n_reset, sizeof(double), compare_double);
	printf("svm_exit_fuzz bench: %lu execs (entry + %.0f instructions + exit) in %.2f s: %.0f execs/s; "
	       "reset median %.2f us\n", count, count ? (double)insns / (double)count : 0.0, secs,
	       secs > 0 ? (double)count / secs : 0.0, stats.n_reset ? stats.reset_us[stats.n_reset / 2] : 0.0);
	exit(0);
}

/* ---- one exec ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		machine_init(&m);
		stats.on = env_on("HVEMU_FUZZ_STATS");
		stats.no_abort = env_on("HVEMU_FUZZ_NOABORT");
		stats.verify = env_on("HVEMU_FUZZ_VERIFY");
		clock_gettime(CLOCK_MONOTONIC, &stats.start);
		if (stats.on)
			atexit(print_stats);
		oracle_strict = env_on("HVEMU_FUZZ_STRICT");
		expect = getenv("HVEMU_FUZZ_EXPECT");
		if (expect && *expect)
			atexit(expectation_unmet);
		else
			expect = NULL;
		ready = true;
		const char *bench = getenv("HVEMU_FUZZ_BENCH");
		if (bench && *bench)
			run_bench(strtoul(bench, NULL, 0));
	}
	struct timespec t0, t1;
	if (stats.on)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	snapshot_restore(&m.snap);
	if (stats.on) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (stats.n_reset < RESET_SAMPLES)
			stats.reset_us[stats.n_reset++] =
				(double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	}
	if (stats.verify && snapshot_ram_differs(&m.snap)) {
		fprintf(stderr, "svm_exit_fuzz: RAM differs from the snapshot after a restore\n");
		abort();
	}
	stats.execs++;

	struct reader r = { data, size };
	uint8_t guest = byte(&r);
	static struct vmcb v;
	vmcb_base(&v, guest);
	v.control.intercepts[SVM_IW_CR] = word32(&r);
	v.control.intercepts[SVM_IW_DR] = word32(&r);
	static const uint8_t exc[8] = { 0, 3, 6, 13, 14, 12, 1, 11 };
	uint8_t eb = byte(&r);
	for (unsigned k = 0; k < 8; k++)
		if ((eb >> k) & 1)
			set_intercept(&v, SVM_INTERCEPT_EXCEPTION + exc[k]);
	uint32_t misc = word32(&r);
	for (unsigned k = 0; k < 32; k++) {
		if ((misc >> k) & 1) {
			set_intercept(&v, misc_intercepts[k][0]);
			if (misc_intercepts[k][1])
				set_intercept(&v, misc_intercepts[k][1]);
		}
	}
	unsigned n_mut = byte(&r) & 7;
	for (unsigned k = 0; k < n_mut; k++) {
		uint8_t op = byte(&r), a = byte(&r), b = byte(&r);
		mutate(&v, op, a, b);
	}

	/* The templates, then HLT. */
	static struct assembler as;
	static struct oracle_insn insns[MAX_TEMPLATES + 1];
	static uint8_t iopm_bits[SVM_IOPM_SIZE], msrpm_bits[SVM_MSRPM_SIZE];
	memset(iopm_bits, 0, sizeof(iopm_bits));
	memset(msrpm_bits, 0, sizeof(msrpm_bits));
	as.len = 0;
	as.m64 = guest & 1;
	unsigned n = 1 + byte(&r) % MAX_TEMPLATES;
	for (unsigned k = 0; k < n; k++) {
		uint8_t op[5];
		for (unsigned j = 0; j < 5; j++)
			op[j] = byte(&r);
		assemble(&as, &insns[k], &v, op, iopm_bits, msrpm_bits);
	}
	insns[n] = (struct oracle_insn){ .op = OP_HLT, .seg = -1, .rip = L2_CODE + as.len, .len = 1 };
	emit1(&as, 0xf4);

	snapshot_write(&m.snap, VMCB_PA, &v, sizeof(v));
	snapshot_write(&m.snap, L2_CODE, as.buf, as.len);
	/* The maps: only the bytes the templates chose (the snapshot's are 0). */
	for (unsigned k = 0; k < SVM_IOPM_SIZE; k += 8)
		if (*(const uint64_t *)(const void *)(iopm_bits + k))
			snapshot_write(&m.snap, IOPM + k, iopm_bits + k, 8);
	for (unsigned k = 0; k < SVM_MSRPM_SIZE; k += 8)
		if (*(const uint64_t *)(const void *)(msrpm_bits + k))
			snapshot_write(&m.snap, MSRPM + k, msrpm_bits + k, 8);

	struct oracle_input oin = { .cpu = &m.ocpu, .layout = &m.layout, .vmcb = &v, .insns = insns,
				    .n_insns = n + 1 };
	struct oracle_prediction pred;
	oracle_predict(&oin, &pred);

	m.failed_check = NULL;
	status_t st = cpu_run(&m.cpu);
	struct oracle_actual act = { .vmcb = (const struct vmcb *)(const void *)(m.pm.ram + VMCB_PA),
				     .halted_in_guest = m.cpu.in_guest, .failed_check = m.failed_check };
	unsigned bad = 0;
	if (st != ST_HALT) {
		/* The L1 halts after the #VMEXIT; a guest that neither exits nor
		 * halts within the limit is a disagreement only where the oracle
		 * predicted something. */
		if (pred.outcome != OUT_UNKNOWN) {
			fprintf(stderr, "svm_exit_fuzz: cpu_run returned %d (in guest %d), the oracle predicted %s\n",
				(int)st, (int)m.cpu.in_guest, pred.outcome == OUT_EXIT ? "an exit" : "a halt");
			bad = 1;
		}
	} else if (pred.outcome != OUT_UNKNOWN && !m.cpu.in_guest && m.cpu.rip != L1_CODE + 4) {
		/* Only where the oracle predicted: a guest it does not model may
		 * overwrite the L1's code (without paging all of RAM is its). */
		fprintf(stderr, "svm_exit_fuzz: the L1 did not return to its HLT (rip %#llx)\n",
			(unsigned long long)m.cpu.rip);
		bad = 1;
	} else {
		bad = oracle_compare(&oin, &pred, &act);
	}
	if (bad && expect && oracle_last_disagreement && strcmp(oracle_last_disagreement, expect) == 0) {
		fprintf(stderr, "svm_exit_fuzz: found the expected disagreement on %s after %llu execs\n", expect,
			(unsigned long long)stats.execs);
		if (stats.on)
			print_stats();
		_Exit(0);
	}
	if (bad) {
		stats.disagreements++;
		fprintf(stderr, "svm_exit_fuzz: %s guest, %u templates:", guest & 1 ? "64-bit" : "32-bit", n);
		for (unsigned k = 0; k <= n; k++)
			fprintf(stderr, " %u@%llx", insns[k].op, (unsigned long long)insns[k].rip);
		fprintf(stderr, "\n");
		const char *dir = getenv("HVEMU_FUZZ_SAVE");
		if (dir && *dir) {
			char path[512];
			snprintf(path, sizeof(path), "%s/disagree-%llu", dir, (unsigned long long)stats.disagreements);
			FILE *f = fopen(path, "wb");
			if (f) {
				fwrite(data, 1, size, f);
				fclose(f);
				fprintf(stderr, "svm_exit_fuzz: saved %s\n", path);
			}
		}
		if (!stats.no_abort)
			abort();
	}
	return 0;
}
