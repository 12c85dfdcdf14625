/* Reproducer rows of svm_exit_fuzz: the format of fuzz/svm_exit_row.h,
 * written from one exec and run against hvemu. The text and the run are
 * fuzz/exit_row.c's; here the SVM state image and exit record. */
#include "fuzz/svm_exit_row.h"

#include <string.h>

#include "fuzz/exit_row.h"
#include "svm/bitmaps.h"

/* The exit record a row expects: the VMCB fields the #VMEXIT writes
 * (APM2 15.6, 15.7) and the saved rIP, rSP, rAX; where: the VMCB offset. */
static const struct exit_row_field fields[] = {
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
_Static_assert(N_FIELDS <= EXIT_ROW_MAX_FIELDS, "exit_row.h holds the fields");

static void read_fields(const struct vmcb *v, uint64_t *values)
{
	for (unsigned k = 0; k < N_FIELDS; k++)
		memcpy(&values[k], (const uint8_t *)v + fields[k].where, sizeof(values[k]));
}

bool svm_exit_row_write(const char *path, const char *comment, const struct svm_exit_image *image,
			const struct vmcb *after, bool halted)
{
	FILE *f = exit_row_create(path, "svm_exit_fuzz reproducer row (fuzz/svm_exit_row.h)", comment);
	if (!f)
		return false;
	/* Below 64 KiB and in the maps the snapshot holds zeros; the L2 code
	 * page is HLT-filled, so its bytes go whole. */
	exit_row_write_bytes(f, VMCB_PA, (const uint8_t *)image->vmcb, sizeof(*image->vmcb), true);
	exit_row_write_bytes(f, L2_CODE, image->code, image->code_len, false);
	exit_row_write_bytes(f, IOPM, image->iopm, SVM_IOPM_SIZE, true);
	exit_row_write_bytes(f, MSRPM, image->msrpm, SVM_MSRPM_SIZE, true);
	if (halted) {
		fprintf(f, "expect halt\n");
	} else {
		uint64_t values[N_FIELDS];
		read_fields(after, values);
		exit_row_write_fields(f, fields, N_FIELDS, values);
	}
	return fclose(f) == 0;
}

int svm_exit_row_run(struct machine *m, const char *path)
{
	const struct exit_row_reader reader = { .fields = fields, .n_fields = N_FIELDS, .snap = &m->snap,
						.ram_size = RAM_SIZE };
	struct exit_row_expect e;
	if (exit_row_read(path, &reader, &e) < 0)
		return -1;
	m->failed_check = NULL;
	int bad;
	if (!exit_row_run(path, &m->cpu, &e, L1_AFTER + 1, &bad))
		return bad;
	uint64_t after[N_FIELDS];
	read_fields((const struct vmcb *)(const void *)(m->pm.ram + VMCB_PA), after);
	return bad + exit_row_compare(path, fields, N_FIELDS, &e, after);
}
