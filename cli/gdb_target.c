/* What gdb sees of a CPU; see cli/gdb_target.h. */
#include "cli/gdb_target.h"

#include <stdio.h>
#include <string.h>

#include "emu/canonical.h"
#include "emu/cpu_model.h"
#include "emu/feature_bits.h"
#include "emu/icache.h"
#include "emu/peek.h"
#include "machine/machine.h"

/* Where a register's value lives. */
enum reg_kind {
	RK_GPR, RK_RIP, RK_EFLAGS, RK_SEG, RK_SEG_BASE, RK_ST, RK_FCTRL, RK_FSTAT, RK_FTAG,
	RK_FISEG, RK_FIOFF, RK_FOSEG, RK_FOOFF, RK_FOP, RK_XMM, RK_MXCSR, RK_CR, RK_EFER,
};

/* Features, in the order the description lists them. */
enum { F_CORE, F_SSE, F_SEGMENTS, F_SYSTEM, F_COUNT };

/* GDB manual "i386 Features": org.gnu.gdb.i386.core (general, segment and
 * x87 registers), org.gnu.gdb.i386.sse (XMM, MXCSR), and
 * org.gnu.gdb.i386.segments (fs_base, gs_base); gdb finds registers by name,
 * so only the names and sizes matter, and the `g` packet follows this order. */
static const char *const feature_names[F_COUNT] = {
	[F_CORE] = "org.gnu.gdb.i386.core", [F_SSE] = "org.gnu.gdb.i386.sse",
	[F_SEGMENTS] = "org.gnu.gdb.i386.segments", [F_SYSTEM] = "org.hvemu.x86.system",
};

struct gdb_reg {
	const char *name;
	uint8_t bits;
	uint8_t feature;           /* F_* */
	uint8_t kind;              /* RK_* */
	uint8_t index;             /* GPR number, segment register, ST(i), XMM, CR */
	const char *type;
};

#define GPR64(n, i) { n, 64, F_CORE, RK_GPR, i, "int64" }
#define GPR32(n, i) { n, 32, F_CORE, RK_GPR, i, "int32" }
#define SEG(n, s) { n, 32, F_CORE, RK_SEG, s, "int32" }
#define ST(i) { "st" #i, 80, F_CORE, RK_ST, i, "i387_ext" }
#define FPU_CTL \
	{ "fctrl", 32, F_CORE, RK_FCTRL, 0, "int" }, { "fstat", 32, F_CORE, RK_FSTAT, 0, "int" }, \
	{ "ftag", 32, F_CORE, RK_FTAG, 0, "int" }, { "fiseg", 32, F_CORE, RK_FISEG, 0, "int" }, \
	{ "fioff", 32, F_CORE, RK_FIOFF, 0, "int" }, { "foseg", 32, F_CORE, RK_FOSEG, 0, "int" }, \
	{ "fooff", 32, F_CORE, RK_FOOFF, 0, "int" }, { "fop", 32, F_CORE, RK_FOP, 0, "int" }
#define XMM(i) { "xmm" #i, 128, F_SSE, RK_XMM, i, "uint128" }
#define SYSTEM(bits) \
	{ "cr0", bits, F_SYSTEM, RK_CR, 0, "int" }, { "cr2", bits, F_SYSTEM, RK_CR, 2, "int" }, \
	{ "cr3", bits, F_SYSTEM, RK_CR, 3, "int" }, { "cr4", bits, F_SYSTEM, RK_CR, 4, "int" }, \
	{ "cr8", bits, F_SYSTEM, RK_CR, 8, "int" }, { "efer", 64, F_SYSTEM, RK_EFER, 0, "int" }

/* gdb's amd64 order: rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp, r8-r15. */
static const struct gdb_reg regs64[] = {
	GPR64("rax", R_AX), GPR64("rbx", R_BX), GPR64("rcx", R_CX), GPR64("rdx", R_DX),
	GPR64("rsi", R_SI), GPR64("rdi", R_DI),
	{ "rbp", 64, F_CORE, RK_GPR, R_BP, "data_ptr" }, { "rsp", 64, F_CORE, RK_GPR, R_SP, "data_ptr" },
	GPR64("r8", R_R8), GPR64("r9", R_R9), GPR64("r10", R_R10), GPR64("r11", R_R11),
	GPR64("r12", R_R12), GPR64("r13", R_R13), GPR64("r14", R_R14), GPR64("r15", R_R15),
	{ "rip", 64, F_CORE, RK_RIP, 0, "code_ptr" }, { "eflags", 32, F_CORE, RK_EFLAGS, 0, "int32" },
	SEG("cs", SR_CS), SEG("ss", SR_SS), SEG("ds", SR_DS), SEG("es", SR_ES), SEG("fs", SR_FS), SEG("gs", SR_GS),
	ST(0), ST(1), ST(2), ST(3), ST(4), ST(5), ST(6), ST(7), FPU_CTL,
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	XMM(8), XMM(9), XMM(10), XMM(11), XMM(12), XMM(13), XMM(14), XMM(15),
	{ "mxcsr", 32, F_SSE, RK_MXCSR, 0, "int" },
	{ "fs_base", 64, F_SEGMENTS, RK_SEG_BASE, SR_FS, "int" }, { "gs_base", 64, F_SEGMENTS, RK_SEG_BASE, SR_GS, "int" },
	SYSTEM(64),
};

/* gdb's i386 order: eax, ecx, edx, ebx, esp, ebp, esi, edi (the encoding's). */
static const struct gdb_reg regs32[] = {
	GPR32("eax", R_AX), GPR32("ecx", R_CX), GPR32("edx", R_DX), GPR32("ebx", R_BX),
	{ "esp", 32, F_CORE, RK_GPR, R_SP, "data_ptr" }, { "ebp", 32, F_CORE, RK_GPR, R_BP, "data_ptr" },
	GPR32("esi", R_SI), GPR32("edi", R_DI),
	{ "eip", 32, F_CORE, RK_RIP, 0, "code_ptr" }, { "eflags", 32, F_CORE, RK_EFLAGS, 0, "int32" },
	SEG("cs", SR_CS), SEG("ss", SR_SS), SEG("ds", SR_DS), SEG("es", SR_ES), SEG("fs", SR_FS), SEG("gs", SR_GS),
	ST(0), ST(1), ST(2), ST(3), ST(4), ST(5), ST(6), ST(7), FPU_CTL,
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	{ "mxcsr", 32, F_SSE, RK_MXCSR, 0, "int" },
	/* No org.gnu.gdb.i386.segments: gdb 13's i386 (non-Linux) register
	 * count has no room for fs_base/gs_base and asserts. */
	SYSTEM(32),
};

#define N_REGS(a) (sizeof(a) / sizeof((a)[0]))

void gdb_layout_for(struct gdb_layout *l, const struct cpu *cpu)
{
	l->x86_64 = cpu_has(cpu, 0x80000001, CPUID_EDX, FEATURE_BIT_lm);
	l->regs = l->x86_64 ? regs64 : regs32;
	l->n_regs = l->x86_64 ? N_REGS(regs64) : N_REGS(regs32);
}

/* The description, built once per layout (GDB manual "Target Description
 * Format": a <target> with <architecture> and one <feature> per group). */
size_t gdb_layout_xml(const struct gdb_layout *l, char *out, size_t cap)
{
	size_t n = 0;
	n += (size_t)snprintf(out + n, cap - n, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
			      "<target version=\"1.0\"><architecture>%s</architecture>",
			      l->x86_64 ? "i386:x86-64" : "i386");
	for (unsigned f = 0; f < F_COUNT; f++) {
		bool any = false;
		for (unsigned i = 0; i < l->n_regs; i++)
			any |= l->regs[i].feature == f;
		if (!any)
			continue;
		n += (size_t)snprintf(out + n, cap - n, "<feature name=\"%s\">", feature_names[f]);
		for (unsigned i = 0; i < l->n_regs; i++)
			if (l->regs[i].feature == f)
				n += (size_t)snprintf(out + n, cap - n, "<reg name=\"%s\" bitsize=\"%u\" type=\"%s\" regnum=\"%u\"/>",
						      l->regs[i].name, l->regs[i].bits, l->regs[i].type, i);
		n += (size_t)snprintf(out + n, cap - n, "</feature>");
	}
	n += (size_t)snprintf(out + n, cap - n, "</target>\n");
	return n < cap ? n : cap - 1;
}

static void put_le(uint8_t *buf, uint64_t v, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		buf[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *buf, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = 0; i < bytes; i++)
		v |= (uint64_t)buf[i] << (8 * i);
	return v;
}

static uint64_t cr_value(const struct cpu *cpu, unsigned n)
{
	switch (n) {
	case 0: return cpu->cr0;
	case 2: return cpu->cr2;
	case 3: return cpu->cr3;
	case 4: return cpu->cr4;
	default: return cpu->cr8;
	}
}

size_t gdb_reg_read(const struct gdb_layout *l, struct cpu *cpu, unsigned n, uint8_t *buf)
{
	if (n >= l->n_regs)
		return 0;
	const struct gdb_reg *r = &l->regs[n];
	size_t bytes = r->bits / 8u;
	const struct fpu_state *f = &cpu->fpu;
	uint64_t v = 0;
	switch ((enum reg_kind)r->kind) {
	case RK_GPR: v = cpu->regs[r->index]; break;
	case RK_RIP: v = cpu->rip; break;
	case RK_EFLAGS: v = cpu_get_flags(cpu); break;
	case RK_SEG: v = cpu->seg[r->index].selector; break;
	case RK_SEG_BASE: v = cpu->seg[r->index].base; break;
	case RK_ST: {
		/* SDM Vol.1 8.1.2: ST(i) is physical register (TOP + i) mod 8. */
		const struct fpu_reg *st = &f->r[((f->fsw >> 11) + r->index) & 7];
		put_le(buf, st->mant, 8);
		put_le(buf + 8, st->sexp, 2);
		return bytes;
	}
	case RK_FCTRL: v = f->fcw; break;
	case RK_FSTAT: v = f->fsw; break;
	case RK_FTAG: v = f->ftw; break;
	case RK_FISEG: v = f->fcs; break;
	case RK_FIOFF: v = f->fip; break;
	case RK_FOSEG: v = f->fds; break;
	case RK_FOOFF: v = f->fdp; break;
	case RK_FOP: v = f->fop; break;
	case RK_XMM: memcpy(buf, f->xmm[r->index].b, 16); return bytes;
	case RK_MXCSR: v = f->mxcsr; break;
	case RK_CR: v = cr_value(cpu, r->index); break;
	case RK_EFER: v = cpu->efer; break;
	}
	put_le(buf, v, bytes);
	return bytes;
}

bool gdb_reg_writable(const struct gdb_layout *l, unsigned n)
{
	if (n >= l->n_regs)
		return false;
	unsigned k = l->regs[n].kind;
	return k == RK_GPR || k == RK_RIP || k == RK_EFLAGS;
}

bool gdb_reg_write(const struct gdb_layout *l, struct cpu *cpu, unsigned n, const uint8_t *buf, size_t len)
{
	if (!gdb_reg_writable(l, n) || len != l->regs[n].bits / 8u)
		return false;
	const struct gdb_reg *r = &l->regs[n];
	uint64_t v = get_le(buf, len);
	switch (r->kind) {
	case RK_GPR:
		/* The i386 layout writes 32 bits: the upper half stays (there is
		 * none outside 64-bit mode on such a model). */
		cpu->regs[r->index] = len == 8 ? v : (cpu->regs[r->index] & ~0xffffffffull) | v;
		break;
	case RK_RIP:
		cpu->rip = v;
		break;
	default:
		cpu_set_flags(cpu, v);
		break;
	}
	/* The run loop looks at the boundary again: the block and the flags'
	 * consequences (TF, IF) follow the new values. */
	cpu_attend(cpu, ATT_EVENT | ATT_STEP);
	return true;
}

/* The physical address of linear lin as a supervisor read would translate it,
 * without side effects (emu/peek.h cpu_peek_phys). */
static bool linear_to_phys(struct cpu *cpu, uint64_t lin, uint64_t *pa)
{
	/* SDM Vol.1 3.3.7.1: a non-canonical address reaches no memory. */
	if (cpu_is_mode64(cpu) && !addr_canonical(cpu, lin))
		return false;
	return cpu_peek_phys(cpu, lin, WALK_READ, 0, pa);
}

size_t gdb_phys_read(struct machine *m, uint64_t pa, uint8_t *buf, size_t len)
{
	struct physmem *mem = m->cpu.mem;
	for (size_t i = 0; i < len; i++, pa++) {
		if (pa < mem->ram_size) {
			buf[i] = mem->ram[pa];
			continue;
		}
		bool rom = false;
		for (unsigned k = 0; k < mem->n_mmio && !rom; k++) {
			const struct mmio_region *r = &mem->mmio[k];
			if (pa >= r->base && pa - r->base < r->size && r->rom) {
				buf[i] = r->rom[pa - r->base];
				rom = true;
			}
		}
		if (!rom)
			return i;
	}
	return len;
}

/* The part of [lin + done, lin + len) that lies in one page, with its physical
 * address in *pa: 0 bytes when that page is not mapped. Outside 64-bit mode
 * linear addresses wrap at 4 GiB. */
static size_t page_chunk(struct cpu *cpu, uint64_t lin, size_t done, size_t len, uint64_t *pa)
{
	uint64_t at = lin + done;
	if (!cpu_is_mode64(cpu))
		at = (uint32_t)at;
	size_t chunk = PAGE_SIZE - (at & (PAGE_SIZE - 1));
	if (chunk > len - done)
		chunk = len - done;
	return linear_to_phys(cpu, at, pa) ? chunk : 0;
}

size_t gdb_mem_read(struct machine *m, struct cpu *cpu, uint64_t lin, uint8_t *buf, size_t len)
{
	size_t n = 0;
	while (n < len) {
		uint64_t pa;
		size_t chunk = page_chunk(cpu, lin, n, len, &pa);
		if (chunk == 0)
			break;
		size_t got = gdb_phys_read(m, pa, buf + n, chunk);
		n += got;
		if (got < chunk)
			break;
	}
	return n;
}

size_t gdb_mem_write(struct machine *m, struct cpu *cpu, uint64_t lin, const uint8_t *buf, size_t len)
{
	struct physmem *mem = m->cpu.mem;
	size_t n = 0;
	while (n < len) {
		uint64_t pa;
		size_t chunk = page_chunk(cpu, lin, n, len, &pa);
		if (chunk == 0 || pa >= mem->ram_size || mem->ram_size - pa < chunk)
			break;
		/* Decoded blocks made of these bytes are stale in every CPU. */
		for (unsigned i = 0; i < m->smp.n; i++) {
			struct cpu *c = m->smp.cpu[i];
			if (c->icache && icache_write(c->icache, pa, (unsigned)chunk))
				cpu_attend(c, ATT_CODE);
		}
		memcpy(mem->ram + pa, buf + n, chunk);
		n += chunk;
	}
	return n;
}
