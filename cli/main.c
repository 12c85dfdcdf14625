/* hvemu command line: `hvemu run ...`, --help, --version. Every bad argument
 * or file is one line "hvemu: error: ..." on stderr and exit status 2. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/machine.h"
#include "emu/cpu_model.h"

#ifndef HVEMU_VERSION
#define HVEMU_VERSION "unknown"
#endif

#define MEM_MIN (2ull << 20)
#define MEM_MAX (3584ull << 20)
#define MEM_DEFAULT (128ull << 20)

static const char usage_text[] =
	"usage: hvemu run --kernel FILE [options]\n"
	"       hvemu run --bios FILE [options]\n"
	"       hvemu run --load FILE@ADDR --entry ADDR [options]\n"
	"       hvemu run --load FILE@ADDR --entry64 ADDR [options]\n"
	"       hvemu --help | --version\n"
	"\n"
	"An instruction-level x86 system emulator. `run` boots a Multiboot v1 kernel\n"
	"(ELF32, ELF64 or a.out-kludge) in 32-bit protected mode as QEMU's -kernel does,\n"
	"a BIOS from the reset vector, or flat images from a real-mode entry point.\n"
	"\n"
	"options:\n"
	"  --kernel FILE        Multiboot kernel\n"
	"  --cmdline STRING     kernel command line (passed as \"FILE STRING\")\n"
	"  --mem SIZE           guest RAM, e.g. 128M, 1G (suffix K/M/G; none = MiB);\n"
	"                       2M..3584M, default 128M\n"
	"  --cpu MODEL          CPU model; --cpu help lists them\n"
	"  --max-insns N        stop after N instructions\n"
	"  --serial stdio|file:PATH|none\n"
	"                       where COM1 output goes (default stdio)\n"
	"  --trace LIST         comma list of insn,exc,io,pf (or all), to stderr\n"
	"  --tlb exact|flush    exact (default): translations stay cached until\n"
	"                       INVLPG/MOV CR3 as on hardware; flush: none are\n"
	"                       cached, every access walks the page tables\n"
	"  --dump-pt exit|shutdown\n"
	"                       print the page tables of the final CR3 to stderr at\n"
	"                       the end of every run, or only after a triple fault\n"
	"  --load FILE@ADDR     copy FILE to guest-physical ADDR (repeatable)\n"
	"  --entry ADDR         start in real mode at linear ADDR (< 1 MiB)\n"
	"  --entry64 ADDR       start in 64-bit mode at ADDR: identity-mapped 4 GiB\n"
	"                       (2 MiB pages, tables at 10000H), flat CS 08H, RSP 10000H\n"
	"  --bios FILE          BIOS image (multiple of 64 KiB) ending at 4 GiB\n"
	"\n"
	"devices: 16550A UART at 0x3f8, isa-debug-exit at 0xf4, POST port 0x80.\n"
	"\n"
	"exit status:\n"
	"  odd  (V<<1)|1: the guest wrote V to isa-debug-exit (port 0xf4)\n"
	"  2    usage error, or a missing or bad file\n"
	"  4    triple fault (shutdown)\n"
	"  6    instruction limit reached (--max-insns)\n"
	"  8    HLT with nothing to wake the CPU\n"
	"  10   unsupported instruction or emulator error\n"
	"  0    --help, --version, --cpu help\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hvemu: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return EXIT_USAGE;
}

/* Decimal, 0x hex or 0 octal; the whole string, no sign. */
static bool parse_u64(const char *s, uint64_t *out)
{
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* SIZE with a K/M/G suffix (binary units); no suffix means MiB, as QEMU's -m. */
static bool parse_mem(const char *s, uint64_t *out)
{
	if (!*s || *s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	unsigned shift = 20;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return false;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return false;
	}
	if (v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static void list_models(void)
{
	printf("CPU models (the first is the default):\n");
	for (unsigned i = 0; i < cpu_model_count; i++)
		cpu_model_describe(cpu_models[i], false /* no hypervisor model yet */, stdout);
}

/* Options that take a value: "--opt VALUE" or "--opt=VALUE". */
static const char *const value_opts[] = {
	"--kernel", "--cmdline", "--mem", "--cpu", "--max-insns", "--serial", "--trace",
	"--load", "--entry", "--entry64", "--bios", "--tlb", "--dump-pt",
};

static int cmd_run(int argc, char **argv)
{
	struct machine_config cfg = { .ram_size = MEM_DEFAULT, .model = cpu_models[0],
				      .serial = stdout };
	FILE *serial_file = NULL;
	int rc = EXIT_USAGE;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			fputs(usage_text, stdout);
			rc = 0;
			goto out;
		}
		char name[32];
		const char *eq = strchr(arg, '=');
		size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		if (nlen >= sizeof(name) || strncmp(arg, "--", 2) != 0) {
			rc = usage_error("unexpected argument '%s' (try 'hvemu --help')", arg);
			goto out;
		}
		memcpy(name, arg, nlen);
		name[nlen] = 0;
		bool known = false;
		for (size_t k = 0; k < sizeof(value_opts) / sizeof(value_opts[0]); k++)
			known |= !strcmp(name, value_opts[k]);
		if (!known) {
			rc = usage_error("unknown option '%s' (try 'hvemu --help')", name);
			goto out;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			rc = usage_error("option %s needs a value", name);
			goto out;
		}

		if (!strcmp(name, "--kernel")) {
			cfg.kernel = val;
		} else if (!strcmp(name, "--cmdline")) {
			cfg.cmdline = val;
		} else if (!strcmp(name, "--bios")) {
			cfg.bios = val;
		} else if (!strcmp(name, "--mem")) {
			uint64_t m;
			if (!parse_mem(val, &m)) {
				rc = usage_error("bad --mem '%s' (examples: 128M, 1G)", val);
				goto out;
			}
			if (m < MEM_MIN || m > MEM_MAX || (m & 0xfff)) {
				rc = usage_error("--mem %s out of range (2M..3584M, a multiple of 4K)", val);
				goto out;
			}
			cfg.ram_size = m;
		} else if (!strcmp(name, "--cpu")) {
			if (!strcmp(val, "help")) {
				list_models();
				rc = 0;
				goto out;
			}
			cfg.model = cpu_model_find(val);
			if (!cfg.model) {
				rc = usage_error("unknown CPU model '%s' (try --cpu help)", val);
				goto out;
			}
		} else if (!strcmp(name, "--max-insns")) {
			if (!parse_u64(val, &cfg.max_insns) || cfg.max_insns == 0) {
				rc = usage_error("bad --max-insns '%s' (a positive number)", val);
				goto out;
			}
		} else if (!strcmp(name, "--serial")) {
			if (serial_file) {
				fclose(serial_file);
				serial_file = NULL;
			}
			if (!strcmp(val, "stdio")) {
				cfg.serial = stdout;
			} else if (!strcmp(val, "none")) {
				cfg.serial = NULL;
			} else if (!strncmp(val, "file:", 5) && val[5]) {
				serial_file = fopen(val + 5, "w");
				if (!serial_file) {
					rc = usage_error("cannot open serial output '%s': %s", val + 5,
							 strerror(errno));
					goto out;
				}
				cfg.serial = serial_file;
			} else {
				rc = usage_error("bad --serial '%s' (stdio, file:PATH or none)", val);
				goto out;
			}
		} else if (!strcmp(name, "--trace")) {
			if (!trace_parse(val, &cfg.trace)) {
				rc = usage_error("bad --trace '%s' (comma list of insn,exc,io,pf or all)", val);
				goto out;
			}
		} else if (!strcmp(name, "--load")) {
			const char *at = strrchr(val, '@');
			uint64_t addr;
			if (!at || at == val || !parse_u64(at + 1, &addr)) {
				rc = usage_error("bad --load '%s' (FILE@ADDR)", val);
				goto out;
			}
			if (cfg.n_loads == MACHINE_MAX_LOADS) {
				rc = usage_error("too many --load options (max %d)", MACHINE_MAX_LOADS);
				goto out;
			}
			/* The path is the argument up to the '@'; keep it in argv's storage. */
			((char *)at)[0] = '\0';
			cfg.loads[cfg.n_loads++] = (struct flat_load){ .path = val, .addr = addr };
		} else if (!strcmp(name, "--dump-pt")) {
			if (strcmp(val, "exit") && strcmp(val, "shutdown")) {
				rc = usage_error("bad --dump-pt '%s' (exit or shutdown)", val);
				goto out;
			}
			cfg.dump_pt = !strcmp(val, "exit") ? DUMP_PT_EXIT : DUMP_PT_SHUTDOWN;
		} else if (!strcmp(name, "--tlb")) {
			/* "cached" is accepted as another name for "exact". */
			if (strcmp(val, "exact") && strcmp(val, "cached") && strcmp(val, "flush")) {
				rc = usage_error("bad --tlb '%s' (exact or flush)", val);
				goto out;
			}
			cfg.tlb_uncached = !strcmp(val, "flush");
		} else if (!strcmp(name, "--entry")) {
			if (!parse_u64(val, &cfg.entry)) {
				rc = usage_error("bad --entry '%s' (an address)", val);
				goto out;
			}
			cfg.has_entry = true;
		} else if (!strcmp(name, "--entry64")) {
			if (!parse_u64(val, &cfg.entry)) {
				rc = usage_error("bad --entry64 '%s' (an address)", val);
				goto out;
			}
			cfg.has_entry = true;
			cfg.entry64 = true;
		}
	}

	struct machine *m = calloc(1, sizeof(*m));
	if (!m) {
		rc = usage_error("out of memory");
		goto out;
	}
	char err[512];
	if (!machine_setup(m, &cfg, err, sizeof(err))) {
		rc = usage_error("%s", err);
	} else {
		rc = machine_run(m);
	}
	machine_destroy(m);
	free(m);
out:
	if (serial_file)
		fclose(serial_file);
	fflush(stdout);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("no command (try 'hvemu --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hvemu %s\n", HVEMU_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	return usage_error("unknown command '%s' (try 'hvemu --help')", argv[1]);
}
