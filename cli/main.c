/* hvemu command line: `hvemu run ...`, --help, --version. Every bad argument
 * or file is one line "hvemu: error: ..." on stderr and exit status 2. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/repro.h"
#include "cli/run.h"
#include "emu/cpu_model.h"
#include "emu/quirks.h"
#include "machine/hypervisor.h"
#include "svm/svm.h"

#ifndef HVEMU_VERSION
#define HVEMU_VERSION "unknown"
#endif

#define SEABIOS_IMAGE "/usr/share/seabios/bios-256k.bin"
#define MEM_MIN (2ull << 20)
#define MEM_MAX (3584ull << 20)
#define MEM_DEFAULT (128ull << 20)
#define INSN_RATE_MIN 1000000ull        /* 1 MHz */
#define INSN_RATE_MAX 10000000000ull    /* 10 GHz */

static const char usage_text[] =
	"usage: hvemu run --kernel FILE [options]\n"
	"       hvemu run --bios FILE [options]\n"
	"       hvemu run --firmware seabios|FILE [--kernel bzImage] [options]\n"
	"       hvemu run --load FILE@ADDR --entry ADDR [options]\n"
	"       hvemu run --load FILE@ADDR --entry64 ADDR [options]\n"
	"       hvemu repro list | run NAME [options]   (bundled bug reproducers)\n"
	"       hvemu --help | --version\n"
	"\n"
	"An instruction-level x86 system emulator. `run` boots a Multiboot v1 kernel\n"
	"(ELF32, ELF64 or a.out-kludge) in 32-bit protected mode as QEMU's -kernel does,\n"
	"a BIOS from the reset vector, or flat images from a real-mode entry point.\n"
	"\n"
	"options:\n"
	"  --kernel FILE        Multiboot kernel, Linux bzImage or PVH ELF (vmlinux),\n"
	"                       told apart by content\n"
	"  --cmdline STRING     kernel command line (Multiboot: passed as \"FILE STRING\")\n"
	"  --initrd FILE        a Linux kernel's initial RAM disk (QEMU's -initrd)\n"
	"  --module \"FILE ARGS\" a Multiboot module: FILE's bytes, page-aligned after\n"
	"                       the kernel, with the string \"FILE ARGS\" (repeatable, in\n"
	"                       order; QEMU's -initrd \"FILE ARGS,...\")\n"
	"  --mem SIZE           guest RAM, e.g. 128M, 1G (suffix K/M/G; none = MiB);\n"
	"                       2M..3584M, default 128M\n"
	"  --cpu MODEL          CPU model; --cpu help lists them\n"
	"  --max-insns N        stop after N instructions\n"
	"  --serial stdio|file:PATH|none\n"
	"                       where COM1 output goes (default stdio)\n"
	"  --trace LIST         comma list of insn,exc,io,pf,vmexit (or all), to stderr\n"
	"  --trace-format text|json\n"
	"                       form of the --trace vmexit lines (default text)\n"
	"  --stats              at the end, VM exits per exit code and the guest\n"
	"                       instructions between exits (log2 histogram)\n"
	"  --livelock N         end the run when the same VM exit (code, rIP,\n"
	"                       EXITINFO1/2) repeats N times in a row with no guest\n"
	"                       instruction in between; default 10000, 0 = off\n"
	;

/* The options, continued (each string literal stays within the 4095
 * characters C requires compilers to support). */
static const char usage_options_more_text[] =
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
	"  --firmware seabios|none|FILE\n"
	"                       start from firmware: SeaBIOS (" SEABIOS_IMAGE "),\n"
	"                       none (the direct start), or a BIOS image; a --kernel\n"
	"                       goes through fw_cfg and QEMU's option ROM for its\n"
	"                       format. Default: seabios for a --kernel when SeaBIOS\n"
	"                       and the option ROMs are installed (QEMU's -kernel),\n"
	"                       none otherwise or with --load\n"
	"  --display none|text|sdl\n"
	"                       none (default): nothing shown; text: the VGA text\n"
	"                       screen on stderr at exit and on SIGUSR1; sdl: a window\n"
	"                       showing the screen, its keys go to the PS/2 keyboard\n"
	"  --screenshot PATH    write the screen as a PNG at the end of the run\n"
	"  --keys TIME:KEYS     type KEYS from virtual time TIME (10ms, 1s; a key event\n"
	"                       every 5 ms): characters on a US layout, <Name> for a\n"
	"                       key (<Enter>, <F1>, <Up>), <+Name>/<-Name> press or\n"
	"                       release only, <lt> for '<' (repeatable)\n"
	"  --quirk NAME         deviate from the manuals as another implementation does\n"
	"                       (repeatable; --quirk help lists them)\n"
	"  --quirks PROFILE     all the measured deviations of one peer: qemu-7.2 or\n"
	"                       bochs-2.7 (--quirks help lists them)\n"
	"  --seed N             the seed of RDRAND/RDSEED's values (default 0): the\n"
	"                       same seed, the same values\n"
	"  --insn-rate HZ       nominal instruction rate: virtual time runs one tick\n"
	"                       per instruction at this rate, and the TSC with it;\n"
	"                       a device access (IN, OUT, HPET, I/O APIC) 1 us\n"
	"                       (suffix k/M/G; 1M..10G, default 1G)\n"
	"  --no-reboot          a guest's reset ends the run (status 14) instead of\n"
	"                       restarting the machine (QEMU's -no-reboot)\n"
	"  --realtime           pace the run to the host clock (the host sleeps\n"
	"                       while the guest is ahead; virtual time is unchanged)\n"
	"  --rtc-base DATE      the RTC's start, YYYY-MM-DD[THH:MM:SS] (1900-2099;\n"
	"                       default 2000-01-01T00:00:00)\n"
	"  --debugcon stderr|file:PATH  the debug console at port 402h (QEMU's\n"
	"                       -debugcon, SeaBIOS's log): its bytes to stderr or PATH\n"
	"  --symbols FILE       the guest's symbols (ELF, System.map or a kallsyms dump;\n"
	"                       repeatable): reports and trace lines name func+0xoff/0xsize\n"
	"  --machine pc|q35     the chipset, as QEMU's -M: pc (i440FX, PIIX4; default) or\n"
	"                       q35 (Q35 with PCIe ECAM and MCFG, ICH9 LPC; RAM to 2816M)\n"
	"  --smp N              N CPUs (1..16, default 1): CPU 0 boots, the others wait\n"
	"                       for INIT-SIPI-SIPI; they run in turns (see --quantum)\n"
	"  --quantum N          instructions a CPU runs per turn with --smp (default 1000,\n"
	"                       at most 1000000000)\n"
	"\n"
	"Each option is given once (--load, --module, --keys, --quirk, --symbols, --break\n"
	"may repeat); --kernel, --bios and --load with --entry/--entry64 exclude each\n"
	"other, as do --firmware and --bios, --entry or --entry64; --module needs\n"
	"--kernel; --load images may not overlap each other,\n"
	"the kernel, its modules, its multiboot data or the ACPI tables; --serial\n"
	"file:PATH and --screenshot may not name an input.\n"
	"\n";

/* The second part of --help (each string literal stays within the 4095
 * characters C requires compilers to support). */
static const char usage_devices_text[] =
	"  --gdb tcp::PORT|unix:PATH  serve gdb's remote protocol (127.0.0.1 only)\n"
	"  --gdb-wait           with --gdb: wait for gdb before the first instruction\n"
	"  --break vmexit=CODE[,CODE...]|exception=VECTOR|icount=N|vmentry-fail\n"
	"                       stop there (repeatable; vmentry-fail: any failed VM\n"
	"                       entry); with --gdb gdb sees the stop, without it one\n"
	"                       line is printed and the run ends (status 20)\n"
	"  --perturb-exits SEED SVM and VMX models: what the APM or SDM leaves\n"
	"                       undefined in each VM exit (EXITINFO1/2 or instruction\n"
	"                       length and information, addresses, error codes,\n"
	"                       EXITINTINFO without V) gets random values from SEED,\n"
	"                       and interrupt requests come and go unacknowledged in\n"
	"                       the guest (an exit with nothing behind it): odd but\n"
	"                       legal exits, to test an L1 hypervisor\n"
	"  --snapshot-at N FILE write the machine to FILE when the time reaches N\n"
	"                       instructions, and run on\n"
	"  --resume FILE        run on from a --snapshot-at FILE (its options, then these)\n"
	"  --reverse-interval N with --gdb: a snapshot every N instructions, from which\n"
	"                       reverse-stepi/reverse-continue replay (default 2000000,\n"
	"                       0: no reverse execution)\n"
	"\n"
	"devices: 16550A UART at 0x3f8, isa-debug-exit at 0xf4-0xf7, POST port 0x80,\n"
	"isa-debugcon at 0x402, fw_cfg at 0x510 (DMA at 0x514), PCI configuration at\n"
	"0xcf8 (i440FX host bridge, PIIX3 ISA bridge, PIIX4 PM at 0x600), pc-testdev,\n"
	"port 0x92 (fast reset, A20), reset control 0xcf9, 8042 keyboard controller\n"
	"at 0x60/0x64 with a PS/2 keyboard (IRQ1; reset, A20), VGA text mode (80x25\n"
	"at 0xb8000, ports 0x3b0-0x3df), the Bochs shutdown port 0x8900, 8259A PIC\n"
	"pair (0x20, 0xa0, ELCR 0x4d0), 8254 PIT (0x40) with port 0x61, MC146818\n"
	"RTC/CMOS (0x70), HPET at 0xfed00000, a local APIC per CPU at 0xfee00000\n"
	"(x2APIC on models that have it), an I/O APIC at 0xfec00000; ACPI tables at\n"
	"0xf0000 (not with --bios).\n"
	"\n";

/* The third part of --help: the exit statuses. */
static const char usage_status_text[] =
	"exit status:\n"
	"  odd  (V<<1)|1: the guest wrote V to isa-debug-exit (port 0xf4)\n"
	"  2    usage error, or a missing or bad file\n"
	"  4    triple fault (shutdown)\n"
	"  6    instruction limit reached (--max-insns)\n"
	"  8    HLT with nothing to wake the CPU\n"
	"  10   unsupported instruction or emulator error\n"
	"  12   stopped by SIGINT, SIGTERM, SIGHUP or SIGUSR2 (where the CPU was is\n"
	"       reported; SIGUSR1 is ignored unless --display text), or\n"
	"       the --display sdl window was closed\n"
	"  14   with --no-reboot: the guest reset the machine (port 0x92, 0xcf9, the\n"
	"       ACPI reset register, 8042 command 0xfe or output port bit 0); without\n"
	"       it the machine restarts and the run goes on\n"
	"  16   the guest powered off (\"Shutdown\" written to port 0x8900)\n"
	"  18   livelock: the same VM exit N times in a row (--livelock N)\n"
	"  20   a --break condition stopped the run (without --gdb)\n"
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

/* A frequency: a decimal number (with a fraction if a suffix makes it whole),
 * an optional k/K, M or G suffix (decimal units) and an optional "Hz". */
static bool parse_rate(const char *s, uint64_t *out)
{
	uint64_t mant = 0;
	int frac = -1;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return false;
	for (; (*p >= '0' && *p <= '9') || (*p == '.' && frac < 0); p++) {
		if (*p == '.') {
			frac = 0;
			continue;
		}
		if (mant > (UINT64_MAX - 9) / 10)
			return false;
		mant = mant * 10 + (uint64_t)(*p - '0');
		if (frac >= 0)
			frac++;
	}
	int exp = 0;
	switch (*p) {
	case 'k': case 'K': exp = 3; p++; break;
	case 'M': exp = 6; p++; break;
	case 'G': exp = 9; p++; break;
	default: break;
	}
	if (!strcmp(p, "Hz"))
		p += 2;
	if (*p)
		return false;
	for (exp -= frac > 0 ? frac : 0; exp > 0; exp--) {
		if (mant > UINT64_MAX / 10)
			return false;
		mant *= 10;
	}
	for (; exp < 0; exp++) {
		if (mant % 10)
			return false;
		mant /= 10;
	}
	*out = mant;
	return true;
}

/* n decimal digits at *p into *v; advances *p. */
static bool digits(const char **p, unsigned n, unsigned *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (unsigned)(**p - '0');
	}
	return true;
}

/* YYYY-MM-DD, optionally followed by THH:MM:SS (or a space for the T). */
static bool parse_date(const char *s, struct rtc_time *t)
{
	const char *p = s;
	*t = (struct rtc_time){ 0 };
	if (!digits(&p, 4, &t->year) || *p++ != '-' || !digits(&p, 2, &t->month) || *p++ != '-' ||
	    !digits(&p, 2, &t->day))
		return false;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (!digits(&p, 2, &t->hour) || *p++ != ':' || !digits(&p, 2, &t->minute) || *p++ != ':' ||
		    !digits(&p, 2, &t->second))
			return false;
	}
	return !*p && rtc_time_valid(t);
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
		cpu_model_describe(cpu_models[i], hv_available(cpu_models[i]) /* its model is installed */, stdout);
}

/* `--quirk help`: the registry (emu/quirks.def). */
static void list_quirks(void)
{
	unsigned n;
	const struct quirk_info *q = quirk_table(&n);
	printf("Quirks (--quirk NAME, repeatable; SVM and VMX ones for CPU models with that extension):\n");
	for (unsigned i = 0; i < n; i++)
		printf("  %s (%s, %s)\n      breaks:  %s\n      what:    %s\n      mimics:  %s\n", q[i].name,
		       quirk_area_name(q[i].area), q[i].profile, q[i].section, q[i].what, q[i].mimics);
}

/* `--quirks help`: the profiles and their quirks. */
static void list_quirk_profiles(void)
{
	unsigned np, n;
	const struct quirk_profile *p = quirk_profiles(&np);
	const struct quirk_info *q = quirk_table(&n);
	printf("Quirk profiles (--quirks PROFILE: all of a peer's quirks; --quirk help for each):\n");
	for (unsigned i = 0; i < np; i++) {
		printf("  %s: %s\n", p[i].name, p[i].peer);
		for (unsigned k = 0; k < n; k++)
			if (!strcmp(q[k].profile, p[i].name))
				printf("      %-32s %s\n", q[k].name, quirk_area_name(q[k].area));
	}
}

/* ---- The options of `hvemu run`, one parse action each ---- */

struct run_option;

/* Store val (or the flag) into cfg: 0, or the usage error already reported.
 * val lives in argv; o is the option's row. */
typedef int option_parse_fn(struct run_config *cfg, const struct run_option *o, char *val);

/* An option of `hvemu run`: it takes a value ("--opt VALUE" or "--opt=VALUE")
 * unless it is a flag, and is given once unless it repeats. */
struct run_option {
	const char *name;
	bool flag;                 /* takes no value */
	bool repeatable;
	void (*help)(void);        /* "--opt help" lists the choices instead (exit 0) */
	option_parse_fn *parse;
	size_t field;              /* store_string / store_true: offsetof(struct run_config, ...) */
};

/* A string option: the value as given, at the row's field. */
static int store_string(struct run_config *cfg, const struct run_option *o, char *val)
{
	*(const char **)((char *)cfg + o->field) = val;
	return 0;
}

/* A flag: true at the row's field. */
static int store_true(struct run_config *cfg, const struct run_option *o, char *val)
{
	*(bool *)((char *)cfg + o->field) = true;
	return 0;
}

static int parse_mem_option(struct run_config *cfg, const struct run_option *o, char *val)
{
	uint64_t m;
	if (!parse_mem(val, &m))
		return usage_error("bad --mem '%s' (examples: 128M, 1G)", val);
	if (m < MEM_MIN || m > MEM_MAX || (m & 0xfff))
		return usage_error("--mem %s out of range (2M..3584M, a multiple of 4K)", val);
	cfg->machine.ram_size = m;
	return 0;
}

static int parse_cpu(struct run_config *cfg, const struct run_option *o, char *val)
{
	char why[256];
	cfg->machine.model = cpu_model_parse(val, why, sizeof(why));
	if (!cfg->machine.model)
		return usage_error("%s", why);
	return 0;
}

static int parse_max_insns(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_u64(val, &cfg->machine.max_insns) || cfg->machine.max_insns == 0)
		return usage_error("bad --max-insns '%s' (a positive number)", val);
	return 0;
}

static int parse_serial(struct run_config *cfg, const struct run_option *o, char *val)
{
	/* Only recorded here: run_setup() opens the file after every input has
	 * been read and checked, so a bad run destroys nothing. */
	if (!strcmp(val, "stdio"))
		cfg->machine.serial = stdout;
	else if (!strcmp(val, "none"))
		cfg->machine.serial = NULL;
	else if (!strncmp(val, "file:", 5) && val[5])
		cfg->serial_path = val + 5;
	else
		return usage_error("bad --serial '%s' (stdio, file:PATH or none)", val);
	return 0;
}

static int parse_debugcon(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!strcmp(val, "stderr"))
		cfg->debugcon_stderr = true;
	else if (!strncmp(val, "file:", 5) && val[5])
		cfg->debugcon_path = val + 5;
	else
		return usage_error("bad --debugcon '%s' (stderr or file:PATH)", val);
	cfg->machine.debugcon = true;
	return 0;
}

static int parse_trace(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!trace_parse(val, &cfg->machine.trace))
		return usage_error("bad --trace '%s' (comma list of insn,exc,io,pf,vmexit or all)", val);
	cfg->watch.trace = cfg->machine.trace & TRACE_VMEXIT;
	return 0;
}

static int parse_trace_format(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (strcmp(val, "text") && strcmp(val, "json"))
		return usage_error("bad --trace-format '%s' (text or json)", val);
	cfg->watch.json = !strcmp(val, "json");
	return 0;
}

static int parse_livelock(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_u64(val, &cfg->watch.livelock))
		return usage_error("bad --livelock '%s' (a number of repeats, 0 = off)", val);
	return 0;
}

static int parse_seed(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_u64(val, &cfg->machine.rng_seed))
		return usage_error("bad --seed '%s' (a number)", val);
	return 0;
}

static int parse_perturb(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_u64(val, &cfg->machine.perturb_seed))
		return usage_error("bad --perturb-exits '%s' (a seed: a number)", val);
	cfg->machine.perturb_exits = true;
	return 0;
}

static int parse_load(struct run_config *cfg, const struct run_option *o, char *val)
{
	struct machine_config *mc = &cfg->machine;
	char *at = strrchr(val, '@');
	uint64_t addr;
	if (!at || at == val || !parse_u64(at + 1, &addr))
		return usage_error("bad --load '%s' (FILE@ADDR)", val);
	if (mc->n_loads == MACHINE_MAX_LOADS)
		return usage_error("too many --load options (max %d)", MACHINE_MAX_LOADS);
	/* The path is the argument up to the '@'; keep it in argv's storage. */
	*at = '\0';
	mc->loads[mc->n_loads++] = (struct flat_load){ .path = val, .addr = addr };
	return 0;
}

static int parse_module(struct run_config *cfg, const struct run_option *o, char *val)
{
	struct machine_config *mc = &cfg->machine;
	/* "FILE ARGS": the file is up to the first space (QEMU's -initrd). */
	if (!val[0] || val[0] == ' ')
		return usage_error("bad --module '%s' (\"FILE [ARGS]\")", val);
	if (mc->n_modules == MB_MAX_MODULES)
		return usage_error("too many --module options (max %d)", MB_MAX_MODULES);
	if (strlen(val) >= MB_CMDLINE_MAX)
		return usage_error("--module string too long (max %d bytes)", MB_CMDLINE_MAX - 1);
	mc->modules[mc->n_modules++] = val;
	return 0;
}

static int parse_dump_pt(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (strcmp(val, "exit") && strcmp(val, "shutdown"))
		return usage_error("bad --dump-pt '%s' (exit or shutdown)", val);
	cfg->dump_pt = !strcmp(val, "exit") ? DUMP_PT_EXIT : DUMP_PT_SHUTDOWN;
	return 0;
}

static int parse_tlb(struct run_config *cfg, const struct run_option *o, char *val)
{
	/* "cached" is accepted as another name for "exact". */
	if (strcmp(val, "exact") && strcmp(val, "cached") && strcmp(val, "flush"))
		return usage_error("bad --tlb '%s' (exact or flush)", val);
	cfg->machine.tlb_uncached = !strcmp(val, "flush");
	return 0;
}

static int parse_symbols(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (cfg->n_symbol_files == RUN_MAX_SYMBOL_FILES)
		return usage_error("too many --symbols options (max %d)", RUN_MAX_SYMBOL_FILES);
	cfg->symbol_files[cfg->n_symbol_files++] = val;
	return 0;
}

static int parse_machine(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (strcmp(val, "pc") && strcmp(val, "q35"))
		return usage_error("bad --machine '%s' (pc or q35)", val);
	cfg->machine.chipset = strcmp(val, "q35") ? PC_I440FX : PC_Q35;
	return 0;
}

static int parse_display(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!display_parse(val, &cfg->display))
		return usage_error("bad --display '%s' (none, text or sdl)", val);
	return 0;
}

static int parse_keys(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (cfg->n_keys == RUN_MAX_KEYS)
		return usage_error("too many --keys options (max %d)", RUN_MAX_KEYS);
	cfg->keys[cfg->n_keys++] = val;
	return 0;
}

/* --entry and --entry64: the address; which one, from the row. */
static int parse_entry_at(struct run_config *cfg, const struct run_option *o, char *val, bool entry64)
{
	if (!parse_u64(val, &cfg->machine.entry))
		return usage_error("bad %s '%s' (an address)", o->name, val);
	cfg->machine.has_entry = true;
	cfg->machine.entry64 = entry64;
	return 0;
}

static int parse_entry(struct run_config *cfg, const struct run_option *o, char *val)
{
	return parse_entry_at(cfg, o, val, false);
}

static int parse_entry64(struct run_config *cfg, const struct run_option *o, char *val)
{
	return parse_entry_at(cfg, o, val, true);
}

static int parse_quirk(struct run_config *cfg, const struct run_option *o, char *val)
{
	const struct quirk_info *q = quirk_find(val);
	if (!q)
		return usage_error("unknown quirk '%s' (try --quirk help)", val);
	cfg->machine.quirks |= q->bit;
	if (q->area == QUIRK_AREA_SVM || q->area == QUIRK_AREA_VMX)
		cfg->hv_quirk = q->name;
	return 0;
}

/* --quirks PROFILE: every quirk of one peer (emu/quirks.def); those of a
 * hypervisor model the CPU model lacks are left out, not refused. */
static int parse_quirks(struct run_config *cfg, const struct run_option *o, char *val)
{
	uint64_t set;
	if (!quirk_profile_set(val, &set))
		return usage_error("unknown quirk profile '%s' (try --quirks help)", val);
	cfg->machine.quirks |= set;
	return 0;
}

static int parse_insn_rate(struct run_config *cfg, const struct run_option *o, char *val)
{
	uint64_t *rate = &cfg->machine.insn_rate;
	if (!parse_rate(val, rate))
		return usage_error("bad --insn-rate '%s' (a frequency: 1000000000, 2.4G, 500M)", val);
	if (*rate < INSN_RATE_MIN || *rate > INSN_RATE_MAX)
		return usage_error("--insn-rate %s out of range (1M..10G)", val);
	return 0;
}

static int parse_rtc_base(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_date(val, &cfg->machine.rtc_base))
		return usage_error("bad --rtc-base '%s' (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, "
				   "a date from 1900 to 2099)", val);
	return 0;
}

/* --firmware seabios|none|FILE: SeaBIOS as Debian's seabios package installs
 * it (the 256 KiB image QEMU's pc machine uses), no firmware (the direct
 * start), or a BIOS image as --bios takes it. Without the option see
 * default_firmware(). */
static int parse_firmware(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!strcmp(val, "none")) {
		cfg->machine.bios = NULL;
		return 0;
	}
	if (!strcmp(val, "seabios"))
		val = (char *)SEABIOS_IMAGE;
	else if (!*val)
		return usage_error("bad --firmware '' (seabios, none or a BIOS image FILE)");
	cfg->machine.bios = val;
	cfg->machine.firmware = true;
	return 0;
}

static int parse_smp(struct run_config *cfg, const struct run_option *o, char *val)
{
	uint64_t n;
	if (!parse_u64(val, &n) || n < 1 || n > MACHINE_MAX_CPUS)
		return usage_error("bad --smp '%s' (a number of CPUs, 1..%d)", val, MACHINE_MAX_CPUS);
	cfg->machine.n_cpus = (unsigned)n;
	return 0;
}

static int parse_quantum(struct run_config *cfg, const struct run_option *o, char *val)
{
	uint64_t *q = &cfg->machine.quantum;
	if (!parse_u64(val, q) || *q == 0 || *q > SMP_MAX_QUANTUM)
		return usage_error("bad --quantum '%s' (a number of instructions, 1..%u)", val, SMP_MAX_QUANTUM);
	return 0;
}

/* --gdb tcp::PORT|unix:PATH (cli/gdbstub.h). */
static int parse_gdb(struct run_config *cfg, const struct run_option *o, char *val)
{
	char err[256];
	if (!gdbstub_spec_valid(val, err, sizeof(err)))
		return usage_error("%s", err);
	cfg->gdb = val;
	return 0;
}

/* --reverse-interval N: instructions between the snapshots gdb's reverse
 * execution replays from (cli/reverse.h); 0: none. */
static int parse_reverse_interval(struct run_config *cfg, const struct run_option *o, char *val)
{
	if (!parse_u64(val, &cfg->reverse_interval))
		return usage_error("bad --reverse-interval '%s' (instructions between snapshots, 0: no reverse execution)",
				   val);
	return 0;
}

/* --break vmexit=CODE[,...]|exception=VECTOR|icount=N|vmentry-fail (cli/debug_stops.h). */
static int parse_break(struct run_config *cfg, const struct run_option *o, char *val)
{
	char err[256];
	if (!debug_stops_parse(&cfg->stops, val, err, sizeof(err)))
		return usage_error("%s", err);
	return 0;
}

/* The options' names in the table below (check_combinations() names them). */
enum opt {
	OPT_KERNEL, OPT_CMDLINE, OPT_MEM, OPT_CPU, OPT_MAX_INSNS, OPT_SERIAL, OPT_TRACE,
	OPT_LOAD, OPT_ENTRY, OPT_ENTRY64, OPT_BIOS, OPT_TLB, OPT_DUMP_PT, OPT_MODULE, OPT_QUIRK, OPT_QUIRKS,
	OPT_TRACE_FORMAT, OPT_STATS, OPT_LIVELOCK, OPT_INSN_RATE, OPT_REALTIME, OPT_RTC_BASE,
	OPT_DISPLAY, OPT_SCREENSHOT, OPT_KEYS, OPT_SMP, OPT_QUANTUM, OPT_NO_REBOOT, OPT_INITRD, OPT_MACHINE, OPT_SYMBOLS, OPT_DEBUGCON,
	OPT_FIRMWARE, OPT_GDB, OPT_GDB_WAIT, OPT_BREAK, OPT_SEED, OPT_REVERSE_INTERVAL, OPT_PERTURB, OPT_COUNT
};

#define STRING_AT(f) store_string, offsetof(struct run_config, f)
#define TRUE_AT(f) store_true, offsetof(struct run_config, f)

static const struct run_option options[OPT_COUNT] = {
	/*                    name            flag   repeats help          parse */
	[OPT_KERNEL]       = { "--kernel",       false, false, NULL,        STRING_AT(machine.kernel) },
	[OPT_CMDLINE]      = { "--cmdline",      false, false, NULL,        STRING_AT(machine.cmdline) },
	[OPT_MEM]          = { "--mem",          false, false, NULL,        parse_mem_option, 0 },
	[OPT_CPU]          = { "--cpu",          false, false, list_models, parse_cpu, 0 },
	[OPT_MAX_INSNS]    = { "--max-insns",    false, false, NULL,        parse_max_insns, 0 },
	[OPT_SERIAL]       = { "--serial",       false, false, NULL,        parse_serial, 0 },
	[OPT_TRACE]        = { "--trace",        false, false, NULL,        parse_trace, 0 },
	[OPT_LOAD]         = { "--load",         false, true,  NULL,        parse_load, 0 },
	[OPT_ENTRY]        = { "--entry",        false, false, NULL,        parse_entry, 0 },
	[OPT_ENTRY64]      = { "--entry64",      false, false, NULL,        parse_entry64, 0 },
	[OPT_BIOS]         = { "--bios",         false, false, NULL,        STRING_AT(machine.bios) },
	[OPT_TLB]          = { "--tlb",          false, false, NULL,        parse_tlb, 0 },
	[OPT_DUMP_PT]      = { "--dump-pt",      false, false, NULL,        parse_dump_pt, 0 },
	[OPT_MODULE]       = { "--module",       false, true,  NULL,        parse_module, 0 },
	[OPT_QUIRK]        = { "--quirk",        false, true,  list_quirks, parse_quirk, 0 },
	[OPT_QUIRKS]       = { "--quirks",       false, false, list_quirk_profiles, parse_quirks, 0 },
	[OPT_TRACE_FORMAT] = { "--trace-format", false, false, NULL,        parse_trace_format, 0 },
	[OPT_STATS]        = { "--stats",        true,  false, NULL,        TRUE_AT(watch.stats) },
	[OPT_LIVELOCK]     = { "--livelock",     false, false, NULL,        parse_livelock, 0 },
	[OPT_INSN_RATE]    = { "--insn-rate",    false, false, NULL,        parse_insn_rate, 0 },
	[OPT_REALTIME]     = { "--realtime",     true,  false, NULL,        TRUE_AT(machine.realtime) },
	[OPT_RTC_BASE]     = { "--rtc-base",     false, false, NULL,        parse_rtc_base, 0 },
	[OPT_DISPLAY]      = { "--display",      false, false, NULL,        parse_display, 0 },
	/* Checked and written by the run, like --serial file:PATH. */
	[OPT_SCREENSHOT]   = { "--screenshot",   false, false, NULL,        STRING_AT(screenshot) },
	[OPT_KEYS]         = { "--keys",         false, true,  NULL,        parse_keys, 0 },
	[OPT_SMP]          = { "--smp",          false, false, NULL,        parse_smp, 0 },
	[OPT_QUANTUM]      = { "--quantum",      false, false, NULL,        parse_quantum, 0 },
	[OPT_NO_REBOOT]    = { "--no-reboot",    true,  false, NULL,        TRUE_AT(machine.no_reboot) },
	[OPT_INITRD]       = { "--initrd",       false, false, NULL,        STRING_AT(machine.initrd) },
	[OPT_MACHINE]      = { "--machine",      false, false, NULL,        parse_machine, 0 },
	[OPT_SYMBOLS]      = { "--symbols",      false, true,  NULL,        parse_symbols, 0 },
	[OPT_DEBUGCON]     = { "--debugcon",     false, false, NULL,        parse_debugcon, 0 },
	[OPT_FIRMWARE]     = { "--firmware",     false, false, NULL,        parse_firmware, 0 },
	[OPT_GDB]          = { "--gdb",          false, false, NULL,        parse_gdb, 0 },
	[OPT_GDB_WAIT]     = { "--gdb-wait",     true,  false, NULL,        TRUE_AT(gdb_wait) },
	[OPT_BREAK]        = { "--break",        false, true,  NULL,        parse_break, 0 },
	[OPT_SEED]         = { "--seed",         false, false, NULL,        parse_seed, 0 },
	[OPT_PERTURB]      = { "--perturb-exits", false, false, NULL,       parse_perturb, 0 },
	[OPT_REVERSE_INTERVAL] = { "--reverse-interval", false, false, NULL, parse_reverse_interval, 0 },
};

bool run_option_is_flag(const char *name)
{
	for (unsigned k = 0; k < OPT_COUNT; k++)
		if (!strcmp(name, options[k].name))
			return options[k].flag;
	return false;
}

/* Options that cannot be combined (README "Conflicting options"). */
static const struct { enum opt a, b; const char *why; } conflicts[] = {
	{ OPT_FIRMWARE, OPT_BIOS, "--bios FILE is --firmware FILE; give one" },
	{ OPT_FIRMWARE, OPT_ENTRY, "the firmware starts at the reset vector F000:FFF0; --entry is for --load images" },
	{ OPT_FIRMWARE, OPT_ENTRY64, "the firmware starts at the reset vector F000:FFF0; --entry64 is for --load images" },
	{ OPT_KERNEL, OPT_BIOS, "a BIOS starts at the reset vector, a kernel at its multiboot entry; give one" },
	{ OPT_ENTRY, OPT_ENTRY64, "one starts in real mode, the other in 64-bit mode; give one" },
	{ OPT_KERNEL, OPT_ENTRY, "a kernel starts at its multiboot entry; --entry is for --load images" },
	{ OPT_KERNEL, OPT_ENTRY64, "a kernel starts at its multiboot entry; --entry64 is for --load images" },
	{ OPT_BIOS, OPT_ENTRY, "a BIOS starts at the reset vector F000:FFF0; --entry is for --load images" },
	{ OPT_BIOS, OPT_ENTRY64, "a BIOS starts at the reset vector F000:FFF0; --entry64 is for --load images" },
};

/* Options that exclude each other, or need another to mean anything (README
 * "Conflicting options"): 0, or the usage error already reported. */
static int check_combinations(const unsigned seen[OPT_COUNT], const struct run_config *cfg)
{
	for (size_t i = 0; i < sizeof(conflicts) / sizeof(conflicts[0]); i++)
		if (seen[conflicts[i].a] && seen[conflicts[i].b] &&
		    /* --firmware none starts no firmware: --entry is fine then */
		    (conflicts[i].a != OPT_FIRMWARE || conflicts[i].b == OPT_BIOS || cfg->machine.firmware))
			return usage_error("%s and %s exclude each other: %s", options[conflicts[i].a].name,
					   options[conflicts[i].b].name, conflicts[i].why);
	if (!seen[OPT_KERNEL] && !seen[OPT_BIOS] && !cfg->machine.firmware && !seen[OPT_ENTRY] && !seen[OPT_ENTRY64])
		return usage_error(seen[OPT_LOAD] ? "--load needs --entry or --entry64 to start at"
						  : "nothing to run: give --kernel, --bios, or --load with --entry");
	if ((seen[OPT_ENTRY] || seen[OPT_ENTRY64]) && !seen[OPT_LOAD])
		return usage_error("%s needs a --load image to start in", seen[OPT_ENTRY] ? "--entry" : "--entry64");
	if (seen[OPT_CMDLINE] && !seen[OPT_KERNEL])
		return usage_error("--cmdline is passed to a multiboot --kernel; there is none");
	if (seen[OPT_INITRD] && !seen[OPT_KERNEL])
		return usage_error("--initrd is loaded for a Linux --kernel; there is none");
	if (seen[OPT_TRACE_FORMAT] && !cfg->watch.trace)
		return usage_error("--trace-format is the form of the --trace vmexit lines; --trace does not list vmexit");
	if (seen[OPT_MODULE] && !seen[OPT_KERNEL])
		return usage_error("--module is loaded for a multiboot --kernel; there is none");
	if (seen[OPT_GDB_WAIT] && !seen[OPT_GDB])
		return usage_error("--gdb-wait waits for gdb at --gdb's socket; there is no --gdb");
	if (seen[OPT_REVERSE_INTERVAL] && !seen[OPT_GDB])
		return usage_error("--reverse-interval is how often gdb's reverse execution takes a snapshot; there is no --gdb");
	if (seen[OPT_QUANTUM] && !seen[OPT_SMP])
		return usage_error("--quantum sets how long each of the --smp CPUs runs per turn; there is no --smp");
	return 0;
}

/* A --kernel without --firmware boots as QEMU's -kernel does, through
 * SeaBIOS and QEMU's option ROMs, when Debian's seabios and qemu-system-data
 * are installed (each format's ROM: machine/machine.h); otherwise, and with
 * --load images (which the firmware's start would not leave alone), hvemu
 * loads it itself (the direct start, --firmware none). */
static void default_firmware(const unsigned seen[OPT_COUNT], struct run_config *cfg)
{
	static const char *const needed[] = {
		SEABIOS_IMAGE, MACHINE_OPTION_ROMS "linuxboot_dma.bin", MACHINE_OPTION_ROMS "multiboot_dma.bin",
		MACHINE_OPTION_ROMS "pvh.bin",
	};
	if (!seen[OPT_KERNEL] || seen[OPT_FIRMWARE] || seen[OPT_LOAD])
		return;
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (access(needed[i], R_OK) != 0)
			return;
	cfg->machine.bios = SEABIOS_IMAGE;
	cfg->machine.firmware = true;
}

/* The usage text, --help's answer. */
static void print_usage(void)
{
	fputs(usage_text, stdout);
	fputs(usage_options_more_text, stdout);
	fputs(usage_devices_text, stdout);
	fputs(usage_status_text, stdout);
}

/* Split argv into options and hand each value to its row: 0 with cfg filled
 * and seen[]/first[] the count and first value of each option, EXIT_DONE
 * when --help or an option's help was printed, else the usage error already
 * reported. */
enum { EXIT_DONE = -1 };

static int parse_run_options(int argc, char **argv, struct run_config *cfg, unsigned seen[OPT_COUNT],
			     const char *first[OPT_COUNT])
{
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i], *val = NULL;
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			print_usage();
			return EXIT_DONE;
		}
		char name[32];
		char *eq = strchr(arg, '=');
		size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		if (nlen >= sizeof(name) || strncmp(arg, "--", 2) != 0)
			return usage_error("unexpected argument '%s' (try 'hvemu --help')", arg);
		memcpy(name, arg, nlen);
		name[nlen] = 0;
		enum opt k = OPT_COUNT;
		for (unsigned j = 0; j < OPT_COUNT; j++)
			if (!strcmp(name, options[j].name))
				k = (enum opt)j;
		if (k == OPT_COUNT)
			return usage_error("unknown option '%s' (try 'hvemu --help')", name);
		const struct run_option *o = &options[k];
		if (o->flag) {
			if (eq)
				return usage_error("%s takes no value (got '%s')", name, eq + 1);
			val = arg + nlen;      /* "" */
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			return usage_error("option %s needs a value", name);
		}
		if (o->help && !strcmp(val, "help")) {
			o->help();
			return EXIT_DONE;
		}
		if (seen[k] && o->flag)
			return usage_error("%s given twice", name);
		if (seen[k] && !o->repeatable)
			return usage_error("%s given twice ('%s', then '%s'); it takes one value", name, first[k], val);
		seen[k]++;
		first[k] = val;
		int rc = o->parse(cfg, o, val);
		if (rc)
			return rc;
	}
	return 0;
}

/* What --snapshot-at and --resume ask (cli/snapshot_file.h) cannot be
 * combined with: a debugger, typed keys, a window (the front end's state is
 * not in the file). */
static int check_snapshot_combinations(const unsigned seen[OPT_COUNT], const struct run_config *cfg,
				       const char *what)
{
	if (seen[OPT_GDB] && cfg->snapshot_at)
		return usage_error("%s cannot be combined with --gdb (its reverse execution keeps snapshots itself)", what);
	if (seen[OPT_BREAK] && cfg->snapshot_at)
		return usage_error("%s cannot be combined with --break", what);
	if (seen[OPT_KEYS] || cfg->display != DISPLAY_NONE || cfg->screenshot)
		return usage_error("%s cannot be combined with --keys, --display or --screenshot", what);
	return 0;
}

/* `hvemu run`: --snapshot-at and --resume taken out first (cli/snapshot_file.h). */
static int cmd_run(int argc, char **argv)
{
	struct run_config cfg = { .machine = { .ram_size = MEM_DEFAULT, .model = cpu_models[0], .serial = stdout },
				  .reverse_interval = REVERSE_DEFAULT_INTERVAL,
				  .watch.livelock = LIVELOCK_DEFAULT };
	unsigned seen[OPT_COUNT] = { 0 };
	const char *first[OPT_COUNT] = { 0 };
	struct snapshot_args sa;
	char err[512];
	int rc = 0;
	if (!snapshot_args_split(&sa, argc, argv, err, sizeof(err)))
		rc = usage_error("%s", err);
	cfg.snapshot_at = sa.at;
	cfg.snapshot_path = sa.path;
	cfg.snapshot_words = sa.recorded;
	cfg.n_snapshot_words = sa.n_recorded;
	cfg.resume = sa.resuming ? &sa.resume : NULL;
	if (!rc)
		rc = parse_run_options(sa.n_words, sa.words, &cfg, seen, first);
	if (!rc)
		rc = check_combinations(seen, &cfg);
	if (!rc && cfg.snapshot_at)
		rc = check_snapshot_combinations(seen, &cfg, "--snapshot-at");
	if (!rc && sa.resuming)
		rc = check_snapshot_combinations(seen, &cfg, "--resume");
	if (!rc) {
		default_firmware(seen, &cfg);
		const struct quirk_info *hq = cfg.hv_quirk ? quirk_find(cfg.hv_quirk) : NULL;
		if (hq && (quirk_set_for_model(hq->bit, cfg.machine.model) & hq->bit) == 0)
			rc = usage_error("--quirk %s changes the %s model; CPU model '%s' has no %s (try --cpu %s)",
					 hq->name, quirk_area_name(hq->area), cfg.machine.model->name,
					 quirk_area_name(hq->area),
					 hq->area == QUIRK_AREA_SVM ? "epyc-lite" : "skylake-lite");
	}
	struct run *r = rc ? NULL : calloc(1, sizeof(*r));
	if (!rc && !r)
		rc = usage_error("out of memory");
	if (r) {
		if (!run_setup(r, &cfg, err, sizeof(err)))
			rc = usage_error("%s", err);
		else
			rc = run_machine(r);
		run_destroy(r);
		free(r);
	}
	fflush(stdout);
	snapshot_args_free(&sa);
	return rc == EXIT_DONE ? 0 : rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("no command (try 'hvemu --help')");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		print_usage();
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hvemu %s\n", HVEMU_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "repro"))
		return cmd_repro(argc - 2, argv + 2, cmd_run);
	/* `hvemu --cpu help`, as README and --help list it among the exit-0 cases. */
	if (!strcmp(argv[1], "--cpu=help") || (!strcmp(argv[1], "--cpu") && argc > 2 &&
						 !strcmp(argv[2], "help"))) {
		if (argc > (argv[1][5] ? 2 : 3))
			return usage_error("'hvemu --cpu help' takes nothing more (to run: hvemu run --cpu MODEL ...)");
		list_models();
		return 0;
	}
	if (!strcmp(argv[1], "--cpu") || !strncmp(argv[1], "--cpu=", 6))
		return usage_error("--cpu MODEL belongs after 'run' (hvemu run --cpu MODEL ...); 'hvemu --cpu help' lists the models");
	return usage_error("unknown command '%s' (try 'hvemu --help')", argv[1]);
}
