/* Execution tracing; see emu/trace.h. */
#include "emu/peek.h"
#include "emu/trace.h"

#include <capstone/capstone.h>
#include <string.h>

#include "emu/insn.h"
#include "mmu/paging.h"

static const struct { const char *word; unsigned bits; } trace_words[] = {
	{ "insn", TRACE_INSN }, { "exc", TRACE_EXC }, { "io", TRACE_IO }, { "pf", TRACE_PF },
	{ "vmexit", TRACE_VMEXIT },
	{ "all", TRACE_INSN | TRACE_EXC | TRACE_IO | TRACE_PF | TRACE_VMEXIT },
};

bool trace_parse(const char *list, unsigned *classes)
{
	unsigned bits = 0;
	const char *p = list;
	if (!*p)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",");
		bool known = false;
		for (size_t i = 0; i < sizeof(trace_words) / sizeof(trace_words[0]); i++) {
			if (strlen(trace_words[i].word) == n && !strncmp(p, trace_words[i].word, n)) {
				bits |= trace_words[i].bits;
				known = true;
			}
		}
		if (!known)
			return false;
		p += n;
		if (*p == ',' && *++p == '\0')
			return false;      /* trailing comma */
	}
	*classes = bits;
	return true;
}

static const cs_mode cs_modes[3] = { CS_MODE_16, CS_MODE_32, CS_MODE_64 };

void trace_init(struct trace *t, FILE *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	for (int i = 0; i < 3; i++) {
		csh h;
		if (cs_open(CS_ARCH_X86, cs_modes[i], &h) == CS_ERR_OK) {
			t->cs[i] = h;
			t->have_cs[i] = true;
		}
	}
}

void trace_destroy(struct trace *t)
{
	for (int i = 0; i < 3; i++)
		if (t->have_cs[i]) {
			csh h = t->cs[i];
			cs_close(&h);
			t->have_cs[i] = false;
		}
}

void trace_attach(struct trace *t, struct cpu *cpu, unsigned classes)
{
	cpu->trace = classes;
	cpu->trace_insn = trace_insn;
	cpu->trace_event = trace_event;
	cpu->trace_walk = trace_walk;
	cpu->trace_ctx = t;
	if ((classes & TRACE_IO) && cpu->io) {
		cpu->io->trace = trace_io;
		cpu->io->trace_opaque = t;
	}
}

unsigned trace_code_bits(const struct cpu *cpu)
{
	if (cpu->mode == MODE_LONG64)
		return 64;
	if (cpu->mode == MODE_V86)
		return 16;
	return (cpu->seg[SR_CS].attr & SEG_DB) ? 32 : 16;
}

/* "CS:IP  bytes  disassembly" for the instruction at ip; len 0 = unknown
 * (disassemble the first instruction of 15 bytes). */
static void print_site(struct trace *t, struct cpu *cpu, uint64_t ip, unsigned len, bool pad)
{
	unsigned bits = trace_code_bits(cpu);
	if (bits == 64)
		fprintf(t->out, "%04x:%016llx ", cpu->seg[SR_CS].selector, (unsigned long long)ip);
	else
		fprintf(t->out, "%04x:%08llx ", cpu->seg[SR_CS].selector, (unsigned long long)ip);
	char sym[256];
	if (symbols_lookup(t->syms, ip, sym, sizeof(sym)))
		fprintf(t->out, "<%s> ", sym);
	uint8_t code[INSN_MAX_LEN];
	size_t want = len ? len : INSN_MAX_LEN;
	size_t got = cpu_peek_code(cpu, ip, code, want);
	if (got == 0 || (len && got < len)) {
		fprintf(t->out, " ?? (paged)\n");
		return;
	}
	want = got;
	int mi = bits == 16 ? 0 : bits == 32 ? 1 : 2;
	cs_insn *ci = NULL;
	size_t n = 0;
	if (t->have_cs[mi])
		n = cs_disasm((csh)t->cs[mi], code, want,
			      cpu_is_mode64(cpu) ? ip : seg_linear(&cpu->seg[SR_CS], ip, false), 1, &ci);
	size_t shown = n ? ci[0].size : want;
	if (len)
		shown = len;
	char hex[3 * INSN_MAX_LEN + 1] = "";
	for (size_t i = 0; i < shown && i < INSN_MAX_LEN; i++)
		snprintf(hex + 3 * i, 4, " %02x", code[i]);
	if (n)
		fprintf(t->out, "%-*s  %s%s%s\n", pad ? 33 : 0, hex, ci[0].mnemonic,
			ci[0].op_str[0] ? " " : "", ci[0].op_str);
	else
		fprintf(t->out, "%-*s  (bad)\n", pad ? 33 : 0, hex);
	if (ci)
		cs_free(ci, n);
}

void trace_print_site(struct trace *t, struct cpu *cpu, uint64_t ip)
{
	print_site(t, cpu, ip, 0, false);
}

void trace_insn(struct cpu *cpu, const struct insn *in)
{
	struct trace *t = cpu->trace_ctx;
	if (!t || !(cpu->trace & TRACE_INSN))
		return;
	fputs("insn: ", t->out);
	print_site(t, cpu, cpu->rip, in->len, true);
}

/* SDM Vol.3 6.3.1, Table 6-1 mnemonics. */
static const char *const vector_names[32] = {
	"DE", "DB", "NMI", "BP", "OF", "BR", "UD", "NM", "DF", "CSO", "TS", "NP", "SS", "GP",
	"PF", NULL, "MF", "AC", "MC", "XM", "VE", "CP",
};

static void print_regs(struct trace *t, struct cpu *cpu)
{
	static const char *const n64[16] = { "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };
	static const char *const n32[8] = { "eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi" };
	fputs("     ", t->out);
	if (cpu_is_mode64(cpu)) {
		for (int i = 0; i < 16; i++)
			fprintf(t->out, "%s=%016llx ", n64[i], (unsigned long long)cpu->regs[i]);
	} else {
		for (int i = 0; i < 8; i++)
			fprintf(t->out, "%s=%08x ", n32[i], (unsigned)cpu->regs[i]);
	}
	fprintf(t->out, "eflags=%08llx cs=%04x ss=%04x ds=%04x cr0=%08llx cr2=%llx cr3=%llx cr4=%llx "
		"efer=%llx cpl=%u\n",
		(unsigned long long)cpu_get_flags(cpu), cpu->seg[SR_CS].selector,
		cpu->seg[SR_SS].selector, cpu->seg[SR_DS].selector,
		(unsigned long long)cpu->cr0, (unsigned long long)cpu->cr2,
		(unsigned long long)cpu->cr3, (unsigned long long)cpu->cr4,
		(unsigned long long)cpu->efer, cpu->cpl);
}

void trace_event(struct cpu *cpu, const struct event *ev, const char *what)
{
	struct trace *t = cpu->trace_ctx;
	if (t && what && strcmp(what, "exc") != 0 && strcmp(what, "triple-fault") != 0) {
		/* Not an event: the core names what it does not model. */
		t->note = what;
		if (cpu->trace & TRACE_EXC) {
			fprintf(t->out, "unsupported: %s at ", what);
			print_site(t, cpu, cpu->insn_start, 0, true);
		}
		return;
	}
	bool triple = what && !strcmp(what, "triple-fault");
	bool is_pf = ev->type == EV_EXCEPTION && ev->vector == EXC_PF;
	if (!t || !(triple || (cpu->trace & TRACE_EXC) || (is_pf && (cpu->trace & TRACE_PF))))
		return;
	fprintf(t->out, "%s: vector %u", triple ? "triple-fault" : "exc", ev->vector);
	if (ev->type == EV_EXCEPTION && ev->vector < 32 && vector_names[ev->vector])
		fprintf(t->out, " (#%s)", vector_names[ev->vector]);
	else if (ev->type == EV_EXTINT)
		fputs(" (interrupt)", t->out);
	else if (ev->type == EV_NMI)
		fputs(" (NMI)", t->out);
	else if (ev->type == EV_SOFTINT)
		fputs(" (INT n)", t->out);
	if (ev->has_error)
		fprintf(t->out, " err=0x%x", ev->error_code);
	if (is_pf)
		fprintf(t->out, " cr2=0x%llx", (unsigned long long)ev->cr2);
	fputs(" at ", t->out);
	print_site(t, cpu, cpu->insn_start, 0, true);
	print_regs(t, cpu);
	fflush(t->out);
}

/* "#GP" (or "#GP (vector 13)"), "INT 0x21", "interrupt 0x20", "NMI": how a
 * chain link names its event. */
static void link_name(const struct fault_link *l, bool with_vector, char *buf, size_t len)
{
	if (l->type == EV_NMI)
		snprintf(buf, len, "NMI");
	else if (l->type == EV_EXTINT)
		snprintf(buf, len, "interrupt 0x%02x", l->vector);
	else if (l->type == EV_SOFTINT)
		snprintf(buf, len, "INT 0x%02x", l->vector);
	else if (l->vector < 32 && vector_names[l->vector])
		snprintf(buf, len, with_vector ? "#%s (vector %u)" : "#%s", vector_names[l->vector],
			 l->vector);
	else
		snprintf(buf, len, "vector %u", l->vector);
}

/* The error code of a chain link; returns the characters printed. SDM Vol.3
 * 6.13 Figure 6-6: the selector format (EXT, IDT, TI, index); #PF with CR2. */
static int print_error(FILE *out, const struct fault_link *l)
{
	uint32_t e = l->error_code;
	if (l->vector == EXC_PF)
		return fprintf(out, " err=0x%x cr2=0x%llx", e, (unsigned long long)l->cr2);
	if (l->vector == EXC_DF || !(e & ~1u))
		return fprintf(out, " err=0x%x%s", e, (e & 1) ? " (EXT)" : "");
	if (e & 2)
		return fprintf(out, " err=0x%x (IDT vector %u%s)", e, (e >> 3) & 0x1fff,
			       (e & 1) ? ", EXT" : "");
	return fprintf(out, " err=0x%x (%s selector 0x%x%s)", e, (e & 4) ? "LDT" : "GDT",
		       e & 0xfff8, (e & 1) ? ", EXT" : "");
}

void trace_print_fault_chain(struct trace *t, struct cpu *cpu)
{
	const struct fault_chain *c = &cpu->fault_chain;
	if (!t || !c->count)
		return;
	FILE *out = t->out;
	fprintf(out, "hvemu: the faults that led to it, first fault first:\n");
	for (unsigned i = 0; i < c->count; i++) {
		const struct fault_link *l = &c->link[i];
		char name[24], prev[24], before[24];
		if (i > 0 && c->dropped && i + 1 == c->count)
			fprintf(out, "  (some dropped: the chain is longer than %d)\n", FAULT_CHAIN_MAX);
		link_name(l, true, name, sizeof(name));
		fprintf(out, "  %u. ", i + 1);
		int w = fprintf(out, "%s", name);
		if (l->has_error)
			w += print_error(out, l);
		if (i > 0) {
			link_name(&c->link[i - 1], false, prev, sizeof(prev));
			/* Delivery never raises #DF itself: a #DF link is Table 6-5
			 * turning the previous fault, met while delivering the one
			 * before it, into a double fault (SDM Vol.3 6.15). */
			if (l->type == EV_EXCEPTION && l->vector == EXC_DF && i >= 2) {
				link_name(&c->link[i - 2], false, before, sizeof(before));
				w += fprintf(out, ": %s while delivering %s", prev, before);
			} else {
				w += fprintf(out, " while delivering %s", prev);
			}
		}
		if (i + 1 == c->count)
			w += fprintf(out, ": shutdown");
		fprintf(out, "%*s at ", w < 68 ? 68 - w : 0, "");
		if (l->cs != cpu->seg[SR_CS].selector)
			fprintf(out, "%04x:%08llx (CS has changed since: bytes not shown)\n", l->cs,
				(unsigned long long)l->rip);
		else
			print_site(t, cpu, l->rip, 0, false);
	}
	print_regs(t, cpu);
	fflush(out);
}

void trace_walk(struct cpu *cpu, uint64_t lin, const struct walk_result *r,
		const struct fault *f)
{
	struct trace *t = cpu->trace_ctx;
	if (!t || !(cpu->trace & TRACE_PF))
		return;
	fprintf(t->out, "pf: lin 0x%llx -> #%s err=0x%x:", (unsigned long long)lin,
		f->vector == EXC_PF ? "PF" : "GP", f->error_code);
	for (unsigned i = 0; i < r->levels && i < 5; i++)
		fprintf(t->out, " [0x%llx]=0x%llx", (unsigned long long)r->entry_addr[i],
			(unsigned long long)r->entry[i]);
	fputc('\n', t->out);
}

void trace_io(void *opaque, uint16_t port, unsigned size, bool is_write, uint32_t value)
{
	struct trace *t = opaque;
	fprintf(t->out, "io: %-3s port 0x%04x size %u %s 0x%0*x\n", is_write ? "out" : "in", port, size,
		is_write ? "<-" : "->", (int)(2 * size), value);
}
