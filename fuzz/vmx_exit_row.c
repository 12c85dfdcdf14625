/* Reproducer rows of vmx_exit_fuzz: the format of fuzz/vmx_exit_row.h,
 * written from one exec and run against hvemu. */
#include "fuzz/vmx_exit_row.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/flags.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

#define ROW_CHUNK 32
#define ROW_LINE_MAX 512

/* The exit record a row expects: the VM-exit information fields (SDM Vol.3
 * 27.2) and the saved RIP and RSP (27.3). */
static const struct {
	const char *name;
	enum vmcs_row row;
} fields[] = {
	{ "reason", VMCS_ROW_EXIT_REASON },
	{ "qualification", VMCS_ROW_EXIT_QUALIFICATION },
	{ "linear", VMCS_ROW_GUEST_LINEAR_ADDR },
	{ "length", VMCS_ROW_EXIT_INSTRUCTION_LEN },
	{ "info", VMCS_ROW_EXIT_INSTRUCTION_INFO },
	{ "intr_info", VMCS_ROW_EXIT_INTR_INFO },
	{ "intr_error", VMCS_ROW_EXIT_INTR_ERROR_CODE },
	{ "idt_info", VMCS_ROW_IDT_VECTORING_INFO },
	{ "idt_error", VMCS_ROW_IDT_VECTORING_ERROR_CODE },
	{ "rip", VMCS_ROW_GUEST_RIP },
	{ "rsp", VMCS_ROW_GUEST_RSP },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

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

bool vmx_exit_row_write(const char *path, const char *comment, const struct vmx_exit_image *image,
			const struct vo_actual *a)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return false;
	fprintf(f, "# vmx_exit_fuzz reproducer row (fuzz/vmx_exit_row.h)\n");
	for (const char *c = comment; c && *c;) {
		const char *nl = strchr(c, '\n');
		int n = nl ? (int)(nl - c) : (int)strlen(c);
		fprintf(f, "# %.*s\n", n, c);
		c += n + (nl ? 1 : 0);
	}
	size_t count;
	const struct vmcs_field *t = vmcs_field_table(&count);
	for (size_t k = 0; k < count; k++)
		if (image->vmcs[t[k].row] != image->base[t[k].row])
			fprintf(f, "vmcs %04x %" PRIx64 "\n", t[k].encoding, image->vmcs[t[k].row]);
	write_bytes(f, L2_CODE, image->code, image->code_len, false);
	write_bytes(f, IO_BITMAP_A_PA, image->io, 0x2000, true);
	write_bytes(f, MSR_BITMAP_PA, image->msr, 0x1000, true);
	if (a->vmfail)
		fprintf(f, "expect vmfail %" PRIx64 "\n", a->vmcs[VMCS_ROW_VM_INSTRUCTION_ERROR]);
	else if (a->halted_in_guest)
		fprintf(f, "expect halt\n");
	else
		for (unsigned k = 0; k < N_FIELDS; k++)
			fprintf(f, "expect %s %" PRIx64 "\n", fields[k].name, a->vmcs[fields[k].row]);
	return fclose(f) == 0;
}

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

int vmx_exit_row_run(struct machine *m, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	bool want[N_FIELDS] = { false }, want_halt = false, want_vmfail = false, any = false;
	uint64_t value[N_FIELDS] = { 0 }, vmfail_error = 0;
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
		if (strncmp(s, "vmcs ", 5) == 0) {
			uint64_t enc = strtoull(s + 5, &end, 16);
			uint64_t val = strtoull(end, &end, 16);
			const struct vmcs_field *fld = vmcs_field_lookup(enc, NULL);
			if (!fld || (*end != '\n' && *end != '\0') || !vmx_poke_vmcs_row(m->vmx, fld->row, val))
				goto syntax;
			continue;
		}
		if (strcmp(s, "expect halt\n") == 0) {
			want_halt = any = true;
			continue;
		}
		if (strncmp(s, "expect vmfail ", 14) == 0) {
			vmfail_error = strtoull(s + 14, &end, 16);
			want_vmfail = any = true;
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

	status_t st = cpu_run(&m->cpu);
	if (st != ST_HALT) {
		fprintf(stderr, "%s: cpu_run returned %d, not a halt\n", path, (int)st);
		return 1;
	}
	if (m->cpu.in_guest != want_halt) {
		fprintf(stderr, "%s: expected %s, %s\n", path, want_halt ? "the guest to halt" : "L1 to go on",
			m->cpu.in_guest ? "the guest halted" : "L1 went on");
		return 1;
	}
	if (want_halt)
		return 0;
	int bad = 0;
	if (m->cpu.rip != L1_AFTER + 1) {
		fprintf(stderr, "%s: the L1 did not come back to its HLT (rip %#" PRIx64 ")\n", path, m->cpu.rip);
		bad++;
	}
	static uint64_t after[VMCS_ROW_COUNT];
	vmx_exit_read_vmcs(m, after);
	bool vmfail = cpu_get_flags(&m->cpu) & FLAG_ZF;
	if (vmfail != want_vmfail) {
		fprintf(stderr, "%s: expected %s, hvemu %s\n", path, want_vmfail ? "VMfailValid" : "a VM exit",
			vmfail ? "failed VMLAUNCH" : "entered");
		return bad + 1;
	}
	if (want_vmfail) {
		if (after[VMCS_ROW_VM_INSTRUCTION_ERROR] != vmfail_error) {
			fprintf(stderr, "%s: VM-instruction error expected %" PRIu64 ", hvemu %" PRIu64 "\n", path,
				vmfail_error, after[VMCS_ROW_VM_INSTRUCTION_ERROR]);
			bad++;
		}
		return bad;
	}
	for (unsigned k = 0; k < N_FIELDS; k++) {
		if (want[k] && after[fields[k].row] != value[k]) {
			fprintf(stderr, "%s: %s expected %#" PRIx64 ", hvemu %#" PRIx64 "\n", path, fields[k].name,
				value[k], after[fields[k].row]);
			bad++;
		}
	}
	return bad;

syntax:
	fprintf(stderr, "%s:%u: not a row line: %s", path, lineno, line);
	fclose(f);
	return -1;
}
