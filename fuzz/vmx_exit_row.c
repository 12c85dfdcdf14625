/* Reproducer rows of vmx_exit_fuzz: the format of fuzz/vmx_exit_row.h,
 * written from one exec and run against hvemu. The text and the run are
 * fuzz/exit_row.c's; here the VMCS fields, VMfailValid and the exit record. */
#include "fuzz/vmx_exit_row.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emu/flags.h"
#include "fuzz/exit_row.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

/* The exit record a row expects: the VM-exit information fields (SDM Vol.3
 * 27.2) and the saved RIP and RSP (27.3); where: the VMCS row. */
static const struct exit_row_field fields[] = {
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
_Static_assert(N_FIELDS <= EXIT_ROW_MAX_FIELDS, "exit_row.h holds the fields");

static void read_fields(const uint64_t *vmcs, uint64_t *values)
{
	for (unsigned k = 0; k < N_FIELDS; k++)
		values[k] = vmcs[fields[k].where];
}

bool vmx_exit_row_write(const char *path, const char *comment, const struct vmx_exit_image *image,
			const struct vo_actual *a)
{
	FILE *f = exit_row_create(path, "vmx_exit_fuzz reproducer row (fuzz/vmx_exit_row.h)", comment);
	if (!f)
		return false;
	size_t count;
	const struct vmcs_field *t = vmcs_field_table(&count);
	for (size_t k = 0; k < count; k++)
		if (image->vmcs[t[k].row] != image->base[t[k].row])
			fprintf(f, "vmcs %04x %" PRIx64 "\n", t[k].encoding, image->vmcs[t[k].row]);
	exit_row_write_bytes(f, L2_CODE, image->code, image->code_len, false);
	exit_row_write_bytes(f, IO_BITMAP_A_PA, image->io, 0x2000, true);
	exit_row_write_bytes(f, MSR_BITMAP_PA, image->msr, 0x1000, true);
	if (a->vmfail) {
		fprintf(f, "expect vmfail %" PRIx64 "\n", a->vmcs[VMCS_ROW_VM_INSTRUCTION_ERROR]);
	} else if (a->halted_in_guest) {
		fprintf(f, "expect halt\n");
	} else {
		uint64_t values[N_FIELDS];
		read_fields(a->vmcs, values);
		exit_row_write_fields(f, fields, N_FIELDS, values);
	}
	return fclose(f) == 0;
}

/* The VMX lines of a row: a VMCS field as VMWRITE would set it, and the
 * VMfailValid expectation. */
struct vmx_row_lines {
	struct machine *m;
	bool want_vmfail;
	uint64_t vmfail_error;
};

static int vmx_line(void *ctx, const char *s, struct exit_row_expect *e)
{
	struct vmx_row_lines *l = ctx;
	char *end;
	if (strncmp(s, "vmcs ", 5) == 0) {
		uint64_t enc = strtoull(s + 5, &end, 16);
		uint64_t val = strtoull(end, &end, 16);
		const struct vmcs_field *fld = vmcs_field_lookup(enc, NULL);
		if (!fld || (*end != '\n' && *end != '\0') || !vmx_poke_vmcs_row(l->m->vmx, fld->row, val))
			return -1;
		return 1;
	}
	if (strncmp(s, "expect vmfail ", 14) == 0) {
		l->vmfail_error = strtoull(s + 14, &end, 16);
		l->want_vmfail = e->any = true;
		return 1;
	}
	return 0;
}

int vmx_exit_row_run(struct machine *m, const char *path)
{
	struct vmx_row_lines lines = { .m = m };
	const struct exit_row_reader reader = { .fields = fields, .n_fields = N_FIELDS, .snap = &m->snap,
						.ram_size = RAM_SIZE, .vendor_line = vmx_line, .ctx = &lines };
	struct exit_row_expect e;
	if (exit_row_read(path, &reader, &e) < 0)
		return -1;
	int bad;
	if (!exit_row_run(path, &m->cpu, &e, L1_AFTER + 1, &bad))
		return bad;
	static uint64_t after[VMCS_ROW_COUNT];
	vmx_exit_read_vmcs(m, after);
	/* SDM Vol.3 30.2: VMfailValid sets ZF and goes on at the next instruction. */
	bool vmfail = cpu_get_flags(&m->cpu) & FLAG_ZF;
	if (vmfail != lines.want_vmfail) {
		fprintf(stderr, "%s: expected %s, hvemu %s\n", path, lines.want_vmfail ? "VMfailValid" : "a VM exit",
			vmfail ? "failed VMLAUNCH" : "entered");
		return bad + 1;
	}
	if (lines.want_vmfail) {
		if (after[VMCS_ROW_VM_INSTRUCTION_ERROR] != lines.vmfail_error) {
			fprintf(stderr, "%s: VM-instruction error expected %" PRIu64 ", hvemu %" PRIu64 "\n", path,
				lines.vmfail_error, after[VMCS_ROW_VM_INSTRUCTION_ERROR]);
			bad++;
		}
		return bad;
	}
	uint64_t actual[N_FIELDS];
	read_fields(after, actual);
	return bad + exit_row_compare(path, fields, N_FIELDS, &e, actual);
}
