/* --trace vmexit lines; see cli/exit_trace.h. The two forms carry the same
 * fields in the same order; README "Watching VM exits" is their contract. */
#include "cli/exit_trace.h"

#include <capstone/capstone.h>
#include <string.h>

static const cs_mode cs_modes[3] = { CS_MODE_16, CS_MODE_32, CS_MODE_64 };

void exit_trace_init(struct exit_trace *t, FILE *out, bool json)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->json = json;
}

void exit_trace_destroy(struct exit_trace *t)
{
	if (t->line_out)
		fclose(t->line_out);
	t->line_out = NULL;
	for (int i = 0; i < 3; i++)
		if (t->have_cs[i]) {
			csh h = t->cs[i];
			cs_close(&h);
			t->have_cs[i] = false;
		}
	t->opened = false;
}

/* Capstone's handle for a code size, opened on first use; NULL-equivalent
 * false when the size is not 16/32/64 or Capstone refused. */
static bool disasm_handle(struct exit_trace *t, unsigned bits, csh *h)
{
	int mi = bits == 16 ? 0 : bits == 32 ? 1 : bits == 64 ? 2 : -1;
	if (mi < 0)
		return false;
	if (!t->opened) {
		t->opened = true;
		for (int i = 0; i < 3; i++) {
			csh c;
			if (cs_open(CS_ARCH_X86, cs_modes[i], &c) == CS_ERR_OK) {
				t->cs[i] = c;
				t->have_cs[i] = true;
			}
		}
	}
	if (!t->have_cs[mi])
		return false;
	*h = (csh)t->cs[mi];
	return true;
}

/* The guest instruction of a report: its bytes as hex ("8b 03", sep between
 * bytes) and Capstone's text; false for text when there are no bytes or
 * Capstone cannot decode them (then hex holds every byte the model gave).
 * Relative branch targets are shown as offsets in CS (the report has no CS
 * base). */
static bool disassemble(struct exit_trace *t, const struct vm_exit_report *r, const char *sep,
			char *hex, size_t hexlen, char *text, size_t textlen)
{
	size_t len = r->insn_len <= sizeof(r->insn) ? r->insn_len : sizeof(r->insn);
	size_t shown = len;
	bool ok = false;
	csh h;
	text[0] = 0;
	if (len && disasm_handle(t, r->code_bits, &h)) {
		cs_insn *ci = NULL;
		if (cs_disasm(h, r->insn, len, r->rip, 1, &ci) == 1) {
			shown = ci[0].size <= len ? ci[0].size : len;
			snprintf(text, textlen, "%s%s%s", ci[0].mnemonic, ci[0].op_str[0] ? " " : "",
				 ci[0].op_str);
			ok = true;
		}
		if (ci)
			cs_free(ci, 1);
	}
	size_t at = 0;
	hex[0] = 0;
	size_t need = strlen(sep) + 2;            /* per byte after the first */
	for (size_t i = 0; i < shown && at + need < hexlen; i++)
		at += (size_t)snprintf(hex + at, hexlen - at, "%s%02x", i ? sep : "", r->insn[i]);
	return ok;
}

/* Table 6-1 of SDM Vol.3 6.3.1 and APM2 8.2: exception mnemonics. */
static const char *const exception_names[32] = {
	[0] = "DE", [1] = "DB", [3] = "BP", [4] = "OF", [5] = "BR", [6] = "UD", [7] = "NM",
	[8] = "DF", [10] = "TS", [11] = "NP", [12] = "SS", [13] = "GP", [14] = "PF", [16] = "MF",
	[17] = "AC", [18] = "MC", [19] = "XM", [20] = "VE", [21] = "CP", [28] = "HV", [29] = "VC",
	[30] = "SX",
};

/* An exception of the core (so the vector has a mnemonic): a hardware
 * exception, INT1, INT3/INTO. */
static bool is_exception(const struct exit_report_event *e)
{
	return e->ev.pending && (e->ev.type == EV_EXCEPTION || e->ev.type == EV_PRIV_SOFTEXC ||
				 e->ev.type == EV_SOFTEXC);
}

void exit_event_format(const struct exit_report_event *e, char *buf, size_t size)
{
	if (!e->valid) {
		snprintf(buf, size, "none");
		return;
	}
	int n;
	if (e->type_name)
		n = snprintf(buf, size, "%s vector %u", e->type_name, e->ev.vector);
	else
		n = snprintf(buf, size, "reserved type %u vector %u", e->type_field, e->ev.vector);
	if (n < 0 || (size_t)n >= size)
		return;
	if (is_exception(e) && e->ev.vector < 32 && exception_names[e->ev.vector])
		n += snprintf(buf + n, size - (size_t)n, " (#%s)", exception_names[e->ev.vector]);
	if (e->ev.has_error && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " err=0x%x", e->ev.error_code);
}

/* The report's words, key=value (text) or "key":"value" (JSON): the
 * information words (event false) or the event's (event true), in order. */
static void put_words(FILE *out, const struct vm_exit_report *r, bool event, bool json)
{
	unsigned n;
	const struct exit_word_name *w = exit_word_names(r->vendor, &n);
	for (unsigned i = 0; i < n; i++)
		if (w[i].event == event)
			fprintf(out, json ? ",\"%s\":\"0x%llx\"" : " %s=0x%llx", w[i].key,
				(unsigned long long)r->words[i]);
}

/* s as a double-quoted string: JSON's escapes (\" \\ \n \t, \u00XX for
 * other control characters and bytes from 0x7f up) in json, the same with \xXX
 * in text; NULL prints null (JSON) or "" (text). */
static void put_quoted(FILE *out, const char *s, bool json)
{
	if (!s) {
		fputs(json ? "null" : "\"\"", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, json ? "\\u%04x" : "\\x%02x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* Where a line is formatted: the line buffer (or, if that cannot be had,
 * t->out directly). */
static FILE *begin_line(struct exit_trace *t)
{
	if (!t->line_out)
		t->line_out = fmemopen(t->line, sizeof(t->line), "w");
	if (!t->line_out)
		return t->out;
	rewind(t->line_out);
	return t->line_out;
}

/* Write the line formatted in f to t->out, at once; a line cut at the buffer's
 * end still ends with a newline. */
static void end_line(struct exit_trace *t, FILE *f)
{
	if (f == t->out)
		return;
	fflush(f);
	long len = ftell(f);
	if (len <= 0)
		return;
	size_t n = (size_t)len < sizeof(t->line) ? (size_t)len : sizeof(t->line) - 1;
	t->line[n - 1] = '\n';
	fwrite(t->line, 1, n, t->out);
}

/* The model's words for the exit information, or NULL without describe(). */
static const char *describe(const struct vm_exit_report *r, char *buf, size_t size)
{
	if (!r->describe)
		return NULL;
	buf[0] = 0;
	r->describe(r, buf, size);
	buf[size - 1] = 0;
	return buf;
}

void exit_trace_print_text(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r)
{
	FILE *out = begin_line(t);
	char hex[3 * sizeof(r->insn) + 1], text[200], words[256], event[96];
	bool decoded = disassemble(t, r, " ", hex, sizeof(hex), text, sizeof(text));
	exit_event_format(&r->event, event, sizeof(event));
	const char *what = describe(r, words, sizeof(words));

	char sym[256];
	fprintf(out, "vmexit #%llu %s %s 0x%llx at %04x:%0*llx ", (unsigned long long)n,
		hv_ext_name(r->vendor), r->name ? r->name : "unknown", (unsigned long long)r->code,
		r->cs, r->code_bits == 64 ? 16 : 8, (unsigned long long)r->rip);
	if (symbols_lookup(t->syms, r->rip, sym, sizeof(sym)))
		fprintf(out, "<%s> ", sym);
	fprintf(out, "[%s] ", hex);
	put_quoted(out, decoded ? text : r->insn_len ? "(bad)" : "?", false);
	put_words(out, r, false, false);
	fputc(' ', out);
	put_quoted(out, what, false);
	put_words(out, r, true, false);
	fputc(' ', out);
	put_quoted(out, event, false);
	fprintf(out, " dt=%llu t=%llu", (unsigned long long)r->guest_insns, (unsigned long long)r->now);
	if (r->failed_check) {
		fputs(" check=", out);
		put_quoted(out, r->failed_check, false);
	}
	fputc('\n', out);
	end_line(t, out);
}

void exit_trace_print_json(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r)
{
	FILE *out = begin_line(t);
	char hex[2 * sizeof(r->insn) + 1], text[200], words[256];
	bool decoded = disassemble(t, r, "", hex, sizeof(hex), text, sizeof(text));
	const struct exit_report_event *e = &r->event;
	const char *what = describe(r, words, sizeof(words));

	fprintf(out, "{\"exit\":%llu,\"vendor\":", (unsigned long long)n);
	put_quoted(out, hv_ext_name(r->vendor), true);
	fputs(",\"name\":", out);
	put_quoted(out, r->name, true);
	fprintf(out, ",\"code\":\"0x%llx\",\"cs\":\"0x%04x\",\"rip\":\"0x%llx\",\"bits\":%u,\"insn\":\"%s\","
		"\"disasm\":", (unsigned long long)r->code, r->cs, (unsigned long long)r->rip, r->code_bits, hex);
	put_quoted(out, decoded ? text : NULL, true);
	char sym[256];
	if (symbols_lookup(t->syms, r->rip, sym, sizeof(sym))) {
		fputs(",\"sym\":", out);
		put_quoted(out, sym, true);
	}
	put_words(out, r, false, true);
	fputs(",\"describe\":", out);
	put_quoted(out, what, true);
	put_words(out, r, true, true);
	fputs(",\"event\":", out);
	if (e->valid) {
		char type[40];
		snprintf(type, sizeof(type), "reserved type %u", e->type_field);
		fputs("{\"type\":", out);
		put_quoted(out, e->type_name ? e->type_name : type, true);
		fprintf(out, ",\"vector\":%u,\"error_code\":", e->ev.vector);
		if (e->ev.has_error)
			fprintf(out, "\"0x%x\"}", e->ev.error_code);
		else
			fputs("null}", out);
	} else {
		fputs("null", out);
	}
	fputs(",\"failed_check\":", out);
	put_quoted(out, r->failed_check, true);
	fprintf(out, ",\"guest_insns\":%llu,\"now\":%llu}\n", (unsigned long long)r->guest_insns,
		(unsigned long long)r->now);
	end_line(t, out);
}

void exit_trace_print(struct exit_trace *t, uint64_t n, const struct vm_exit_report *r)
{
	if (t->json)
		exit_trace_print_json(t, n, r);
	else
		exit_trace_print_text(t, n, r);
}
