/* Reproducer rows, the part both exit fuzzers share: fuzz/exit_row.h. */
#include "fuzz/exit_row.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ROW_CHUNK 32               /* bytes per write line */
#define ROW_LINE_MAX 512

FILE *exit_row_create(const char *path, const char *header, const char *comment)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "# %s\n", header);
	for (const char *c = comment; c && *c;) {
		const char *nl = strchr(c, '\n');
		int n = nl ? (int)(nl - c) : (int)strlen(c);
		fprintf(f, "# %.*s\n", n, c);
		c += n + (nl ? 1 : 0);
	}
	return f;
}

void exit_row_write_bytes(FILE *f, uint64_t pa, const uint8_t *b, size_t len, bool skip_zero)
{
	static const uint8_t zero[ROW_CHUNK];
	for (size_t at = 0; at < len; at += ROW_CHUNK) {
		size_t n = len - at < ROW_CHUNK ? len - at : ROW_CHUNK;
		if (skip_zero && memcmp(b + at, zero, n) == 0)
			continue;
		fprintf(f, "write %" PRIx64 " ", pa + at);
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%02x", b[at + k]);
		fputc('\n', f);
	}
}

void exit_row_write_fields(FILE *f, const struct exit_row_field *fields, unsigned n, const uint64_t *values)
{
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "expect %s %" PRIx64 "\n", fields[k].name, values[k]);
}

/* The bytes of a write line's hex text, into buf; their count, or -1. */
static int parse_hex_bytes(const char *s, uint8_t *buf, size_t max)
{
	size_t n = 0;
	while (*s == ' ')
		s++;
	for (; s[0] && s[0] != '\n'; s += 2) {
		char pair[3] = { s[0], s[1], 0 }, *end;
		unsigned long v = strtoul(pair, &end, 16);
		if (n == max || !s[1] || *end)
			return -1;
		buf[n++] = (uint8_t)v;
	}
	return (int)n;
}

/* An "expect FIELD VALUE" line into e; false if it is not one. */
static bool read_field(const struct exit_row_reader *r, const char *s, struct exit_row_expect *e)
{
	if (strncmp(s, "expect ", 7) != 0)
		return false;
	for (unsigned k = 0; k < r->n_fields; k++) {
		size_t len = strlen(r->fields[k].name);
		if (strncmp(s + 7, r->fields[k].name, len) != 0 || s[7 + len] != ' ')
			continue;
		char *end;
		e->value[k] = strtoull(s + 8 + len, &end, 16);
		if (*end != '\n' && *end != '\0')
			return false;
		e->want[k] = e->any = true;
		return true;
	}
	return false;
}

int exit_row_read(const char *path, const struct exit_row_reader *r, struct exit_row_expect *e)
{
	memset(e, 0, sizeof(*e));
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	char line[ROW_LINE_MAX];
	unsigned lineno = 0;

	snapshot_restore(r->snap);
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *end;
		lineno++;
		if (*s == '#' || *s == '\n' || *s == '\0')
			continue;
		if (strncmp(s, "write ", 6) == 0) {
			uint8_t buf[ROW_LINE_MAX / 2];
			uint64_t pa = strtoull(s + 6, &end, 16);
			int n = parse_hex_bytes(end, buf, sizeof(buf));
			if (end == s + 6 || n <= 0 || pa + (uint64_t)n > r->ram_size)
				goto syntax;
			snapshot_write(r->snap, pa, buf, (size_t)n);
			continue;
		}
		if (strcmp(s, "expect halt\n") == 0) {
			e->halt = e->any = true;
			continue;
		}
		int took = r->vendor_line ? r->vendor_line(r->ctx, s, e) : 0;
		if (took < 0)
			goto syntax;
		if (took == 0 && !read_field(r, s, e))
			goto syntax;
	}
	fclose(f);
	if (!e->any) {
		fprintf(stderr, "%s: no expect line\n", path);
		return -1;
	}
	return 0;

syntax:
	fprintf(stderr, "%s:%u: not a row line: %s", path, lineno, line);
	fclose(f);
	return -1;
}

bool exit_row_run(const char *path, struct cpu *cpu, const struct exit_row_expect *e, uint64_t l1_halt_rip,
		  int *result)
{
	status_t st = cpu_run(cpu);
	*result = 1;
	if (st != ST_HALT) {
		fprintf(stderr, "%s: cpu_run returned %d, not a halt\n", path, (int)st);
		return false;
	}
	if (cpu->in_guest != e->halt) {
		fprintf(stderr, "%s: expected %s, %s\n", path, e->halt ? "the guest to halt" : "the L1 to go on",
			cpu->in_guest ? "the guest halted" : "the L1 went on");
		return false;
	}
	*result = 0;
	if (e->halt)
		return false;
	if (cpu->rip != l1_halt_rip) {
		fprintf(stderr, "%s: the L1 did not come back to its HLT (rip %#" PRIx64 ")\n", path, cpu->rip);
		*result = 1;
	}
	return true;
}

int exit_row_compare(const char *path, const struct exit_row_field *fields, unsigned n,
		     const struct exit_row_expect *e, const uint64_t *actual)
{
	int bad = 0;
	for (unsigned k = 0; k < n; k++) {
		if (e->want[k] && actual[k] != e->value[k]) {
			fprintf(stderr, "%s: %s expected %#" PRIx64 ", hvemu %#" PRIx64 "\n", path, fields[k].name,
				e->value[k], actual[k]);
			bad++;
		}
	}
	return bad;
}

int exit_row_main(int argc, char **argv, void (*init)(void), int (*run)(const char *path))
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s ROW...\n", argv[0]);
		return 2;
	}
	init();
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		int r = run(argv[i]);
		printf("%s: %s\n", argv[i], r == 0 ? "ok" : r < 0 ? "unreadable" : "FAILED");
		failed |= r != 0;
	}
	return failed;
}
