/* The repro catalog: guest programs built into hvemu that reproduce reported
 * bugs and print, per checked field, what the manual says against what they
 * observed. `hvemu repro list` shows the table; `hvemu repro run NAME [run
 * options]` runs an entry exactly as `hvemu run` would with the entry's
 * kernel and options, so every run option (--trace, --tlb, --quirk, ...)
 * applies; an option the user gives replaces the entry's of the same name. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/repro.h"

#define REPRO_MAX_OPTIONS 8

/* One catalog row. */
struct repro_entry {
	const char *name;
	const char *title;         /* one line */
	const char *bug;           /* the bug it reproduces, with references */
	const char *image;         /* its guest, in repro_images[] */
	const char *options[REPRO_MAX_OPTIONS + 1];  /* "--opt", "value", ...; NULL ends */
	const char *expected;      /* the outcome in spec mode, and under the quirk */
};

static const struct repro_entry catalog[] = {
	{
		.name = "nova-escape-exitinfo2",
		.title = "EXITINFO2 of a #PF intercepted for a 32-bit guest is its 32-bit linear "
			 "address on every path (APM2 15.12)",
		.bug = "QEMU 7.2 nested SVM (TCG, Debian 12) reports EXITINFO2 = base + offset "
		       "without the wrap at 4 GiB when a descriptor-table, IDT or TSS access or a "
		       "16-bit push or pop faults; the NOVA microhypervisor's vTLB then looped "
		       "forever running the Escape OS (segment bases 0x40000000). hvemu issue #11; "
		       "QEMU 7.2 target/i386/tcg/seg_helper.c; QEMU later moved the 32-bit wrap into "
		       "its MMU indexes: "
		       "https://lore.kernel.org/r/20240617161210.4639-3-richard.henderson@linaro.org",
		.image = "nova-escape-exitinfo2",
		.options = { "--cpu", "epyc-lite", NULL },
		.expected = "status 1, all 36 checks pass (18 paths, each under a 32-bit and a "
			    "64-bit L1 with a NOVA-like vTLB). With --quirk qemu-exitinfo2-nowrap the "
			    "paths QEMU 7.2 gets wrong livelock as under QEMU: hvemu's livelock detector "
			    "ends the run at the first (status 18, the looping exit named); with "
			    "--livelock 0 the L1 gives up on each after 50,000 exits and reports every path",
	},
	{
		.name = "kvm-vmx-cr3-exiting",
		.title = "CR3-load, CR3-store and INVLPG exiting come back when the VMX controls "
			 "are adjusted twice (SDM Vol.3 25.1.3, A.3.2)",
		.bug = "KVM's VMX set-up asked for CR3-load, CR3-store and INVLPG exiting in its "
		       "minimum primary processor-based controls and meant to drop them under EPT, "
		       "but adjusted the controls a second time with the first result as the wanted "
		       "value: the three exits came back, every guest context switch and INVLPG "
		       "trapped to the host, and guests took about 40 % more CPU. hvemu issue 16",
		.image = "kvm-vmx-cr3-exiting",
		.options = { "--cpu", "skylake-lite", "--stats", NULL },
		.expected = "status 1, all 8 checks pass: the L1 that adjusts twice takes 1000 "
			    "CR3-load, 500 CR3-store and 1000 INVLPG exits for 500 rounds of its L2, "
			    "the L1 that adjusts once takes none; both print the counts and their L1 "
			    "handling time side by side, and what the capability MSRs allow",
	},
};

static const unsigned catalog_count = sizeof(catalog) / sizeof(catalog[0]);

static const char repro_usage[] =
	"usage: hvemu repro list\n"
	"       hvemu repro run NAME [hvemu run options]\n"
	"\n"
	"Bundled guests that reproduce reported bugs; each prints what the manual\n"
	"says against what it observed. `run` boots the entry's guest with its options\n"
	"(`hvemu repro list` shows them) as `hvemu run` does; options given after NAME\n"
	"are added, and replace the entry's option of the same name. Not --kernel,\n"
	"--bios, --firmware, --load, --entry or --entry64: the entry brings its kernel.\n";

static int repro_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int repro_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hvemu: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

/* Prints text word-wrapped at 78 columns, every line after the first
 * indented by indent spaces. */
static void print_wrapped(const char *text, unsigned indent, unsigned col)
{
	const char *p = text;
	while (*p) {
		size_t word = strcspn(p, " ");
		if (col > indent && col + 1 + word > 78) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)word, p);
		col += (unsigned)word;
		p += word;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

static int repro_list(void)
{
	printf("Repro catalog (hvemu repro run NAME [hvemu run options]):\n");
	for (unsigned i = 0; i < catalog_count; i++) {
		const struct repro_entry *e = &catalog[i];
		printf("\n%s\n  ", e->name);
		print_wrapped(e->title, 2, 2);
		printf("  bug:      ");
		print_wrapped(e->bug, 12, 12);
		printf("  runs:     hvemu run");
		for (const char *const *o = e->options; *o; o++)
			printf(" %s", *o);
		printf("\n  expected: ");
		print_wrapped(e->expected, 12, 12);
	}
	return 0;
}

/* The option name of argv[i] ("--opt" of "--opt" or "--opt=value") in name;
 * the index of the next option (values follow their option unless joined; a
 * flag such as --stats has none, so the next word is the next option). */
static int option_at(int argc, char **argv, int i, char *name, size_t size)
{
	const char *arg = argv[i], *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n >= size)
		n = size - 1;
	memcpy(name, arg, n);
	name[n] = 0;
	return (eq || i + 1 >= argc || run_option_is_flag(name)) ? i + 1 : i + 2;
}

/* 1 if the user's options name opt. */
static int user_gives(int argc, char **argv, const char *opt)
{
	char name[32];
	for (int i = 0; i < argc;) {
		int next = option_at(argc, argv, i, name, sizeof(name));
		if (!strcmp(name, opt))
			return 1;
		i = next;
	}
	return 0;
}

static int repro_run(const struct repro_entry *e, int argc, char **argv, repro_run_fn run)
{
	static const char *const starts[] = { "--kernel", "--bios", "--firmware", "--load", "--entry", "--entry64" };
	for (size_t k = 0; k < sizeof(starts) / sizeof(starts[0]); k++)
		if (user_gives(argc, argv, starts[k]))
			return repro_error("repro run %s brings its own kernel; %s does not apply", e->name,
					   starts[k]);
	const struct repro_image *img = NULL;
	for (unsigned i = 0; i < repro_image_count; i++)
		if (!strcmp(repro_images[i].name, e->image))
			img = &repro_images[i];
	if (!img)
		return repro_error("the guest of repro %s is not built into this hvemu (its build had "
				   "no compiler for 32-bit guests)", e->name);

	/* The kernel goes to an unnamed temporary file (ISO C tmpfile(): removed
	 * when closed or when hvemu exits), opened by the loader as /dev/fd/N. */
	FILE *f = tmpfile();
	if (!f || fwrite(img->data, 1, img->size, f) != img->size || fflush(f) != 0) {
		if (f)
			fclose(f);
		return repro_error("cannot write the guest of repro %s to a temporary file", e->name);
	}
	char path[32];
	snprintf(path, sizeof(path), "/dev/fd/%d", fileno(f));

	char **args = calloc((size_t)argc + REPRO_MAX_OPTIONS + 5, sizeof(*args));
	if (!args) {
		fclose(f);
		return repro_error("out of memory");
	}
	int n = 0;
	/* hvemu's own loader: the entry's guest and its figures do not depend
	 * on whether SeaBIOS is installed (the default firmware otherwise). */
	args[n++] = (char *)"--firmware";
	args[n++] = (char *)"none";
	args[n++] = (char *)"--kernel";
	args[n++] = path;
	for (const char *const *o = e->options; o[0] && o[1]; o += 2) {
		if (user_gives(argc, argv, o[0]))
			continue;
		args[n++] = (char *)o[0];
		args[n++] = (char *)o[1];
	}
	for (int i = 0; i < argc; i++)
		args[n++] = argv[i];
	int rc = run(n, args);
	free(args);
	fclose(f);
	return rc;
}

int cmd_repro(int argc, char **argv, repro_run_fn run)
{
	if (argc < 1)
		return repro_error("repro needs 'list' or 'run NAME' (try 'hvemu repro --help')");
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help")) {
		fputs(repro_usage, stdout);
		return 0;
	}
	if (!strcmp(argv[0], "list")) {
		if (argc > 1)
			return repro_error("'hvemu repro list' takes nothing more (got '%s')", argv[1]);
		return repro_list();
	}
	if (strcmp(argv[0], "run"))
		return repro_error("unknown repro command '%s' (list or run NAME)", argv[0]);
	if (argc < 2 || !strncmp(argv[1], "--", 2))
		return repro_error("repro run needs the NAME of an entry (hvemu repro list shows them)");
	for (unsigned i = 0; i < catalog_count; i++)
		if (!strcmp(catalog[i].name, argv[1]))
			return repro_run(&catalog[i], argc - 2, argv + 2, run);
	return repro_error("no repro named '%s' (hvemu repro list shows the catalog)", argv[1]);
}
