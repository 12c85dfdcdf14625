/* Reproducer rows of svm_exit_fuzz: the format of fuzz/svm_exit_row.h,
 * written from one exec and run against hvemu. */
#include "fuzz/svm_exit_row.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svm/bitmaps.h"

#define ROW_CHUNK 32               /* bytes per write line */
#define ROW_LINE_MAX 512

/* The exit record a row expects: the VMCB fields the #VMEXIT writes
 * (APM2 15.6, 15.7) and the saved rIP, rSP, rAX. */
static const struct {
	const char *name;
	size_t off;
} fields[] = {
	{ "exitcode", offsetof(struct vmcb, control.exitcode) },
	{ "exitinfo1", offsetof(struct vmcb, control.exitinfo1) },
	{ "exitinfo2", offsetof(struct vmcb, control.exitinfo2) },
	{ "exitintinfo", offsetof(struct vmcb, control.exitintinfo) },
	{ "nrip", offsetof(struct vmcb, control.nrip) },
	{ "rip", offsetof(struct vmcb, save.rip) },
	{ "rsp", offsetof(struct vmcb, save.rsp) },
	{ "rax", offsetof(struct vmcb, save.rax) },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static uint64_t field_of(const struct vmcb *v, unsigned k)
{
	uint64_t x;
	memcpy(&x, (const uint8_t *)v + fields[k].off, sizeof(x));
	return x;
}

/* Write lines for bytes [0, len) at pa; with skip_zero, leave out the
 * chunks that are all zero (the snapshot holds zeros there). */
static void write_bytes(FILE *f, uint64_t pa, const uint8_t *b, size_t len, bool skip_zero)
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

bool svm_exit_row_write(const char *path, const char *comment, const struct svm_exit_image *image,
			const struct vmcb *after, bool halted)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "# svm_exit_fuzz reproducer row (fuzz/svm_exit_row.h)\n");
	for (const char *c = comment; c && *c;) {
		const char *nl = strchr(c, '\n');
		int n = nl ? (int)(nl - c) : (int)strlen(c);
		fprintf(f, "# %.*s\n", n, c);
		c += n + (nl ? 1 : 0);
	}
	/* Below 64 KiB and in the maps the snapshot holds zeros; the L2 code
	 * page is HLT-filled, so its bytes go whole. */
	write_bytes(f, VMCB_PA, (const uint8_t *)image->vmcb, sizeof(*image->vmcb), true);
	write_bytes(f, L2_CODE, image->code, image->code_len, false);
	write_bytes(f, IOPM, image->iopm, SVM_IOPM_SIZE, true);
	write_bytes(f, MSRPM, image->msrpm, SVM_MSRPM_SIZE, true);
	if (halted)
		fprintf(f, "expect halt\n");
	else
		for (unsigned k = 0; k < N_FIELDS; k++)
			fprintf(f, "expect %s %" PRIx64 "\n", fields[k].name, field_of(after, k));
	return fclose(f) == 0;
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

int svm_exit_row_run(struct machine *m, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	bool want[N_FIELDS] = { false }, want_halt = false, any = false;
	uint64_t value[N_FIELDS] = { 0 };
	char line[ROW_LINE_MAX];
	unsigned lineno = 0;

	snapshot_restore(&m->snap);
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *end;
		lineno++;
		if (*s == '#' || *s == '\n' || *s == '\0')
			continue;
		if (strncmp(s, "write ", 6) == 0) {
			uint8_t buf[ROW_LINE_MAX / 2];
			uint64_t pa = strtoull(s + 6, &end, 16);
			int n = parse_hex_bytes(end, buf, sizeof(buf));
			if (end == s + 6 || n <= 0 || pa + (uint64_t)n > RAM_SIZE)
				goto syntax;
			snapshot_write(&m->snap, pa, buf, (size_t)n);
			continue;
		}
		if (strcmp(s, "expect halt\n") == 0) {
			want_halt = any = true;
			continue;
		}
		unsigned k;
		for (k = 0; k < N_FIELDS; k++) {
			size_t len = strlen(fields[k].name);
			if (strncmp(s, "expect ", 7) == 0 && strncmp(s + 7, fields[k].name, len) == 0 && s[7 + len] == ' ')
				break;
		}
		if (k == N_FIELDS)
			goto syntax;
		value[k] = strtoull(s + 8 + strlen(fields[k].name), &end, 16);
		if (*end != '\n' && *end != '\0')
			goto syntax;
		want[k] = any = true;
	}
	fclose(f);
	if (!any) {
		fprintf(stderr, "%s: no expect line\n", path);
		return -1;
	}

	m->failed_check = NULL;
	status_t st = cpu_run(&m->cpu);
	if (st != ST_HALT) {
		fprintf(stderr, "%s: cpu_run returned %d, not a halt\n", path, (int)st);
		return 1;
	}
	if (m->cpu.in_guest != want_halt) {
		fprintf(stderr, "%s: expected %s, %s\n", path, want_halt ? "the guest to halt" : "a #VMEXIT",
			m->cpu.in_guest ? "the guest halted" : "it exited");
		return 1;
	}
	if (want_halt)
		return 0;
	int bad = 0;
	if (m->cpu.rip != L1_CODE + 4) {
		fprintf(stderr, "%s: the L1 did not return to its HLT (rip %#" PRIx64 ")\n", path, m->cpu.rip);
		bad++;
	}
	const struct vmcb *after = (const struct vmcb *)(const void *)(m->pm.ram + VMCB_PA);
	for (unsigned k = 0; k < N_FIELDS; k++) {
		if (want[k] && field_of(after, k) != value[k]) {
			fprintf(stderr, "%s: %s expected %#" PRIx64 ", hvemu %#" PRIx64 "\n", path, fields[k].name,
				value[k], field_of(after, k));
			bad++;
		}
	}
	return bad;

syntax:
	fprintf(stderr, "%s:%u: not a row line: %s", path, lineno, line);
	fclose(f);
	return -1;
}
