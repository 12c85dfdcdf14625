/* The PC-like machine the CLI runs: RAM, the port bus with COM1, isa-debug-exit
 * and the POST port, the boot-contract devices (cli/pc_boot.h: fw_cfg, PCI,
 * pc-testdev, resets, A20, the 8042 and its keyboard, ACPI tables), VGA text
 * mode and the display (--display, --screenshot, --keys), one CPU, optional
 * tracing; and how it
 * is booted (multiboot kernel and modules, flat images with a real-mode entry,
 * or a BIOS from the reset vector). */
#ifndef HVEMU_MACHINE_MACHINE_H
#define HVEMU_MACHINE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli/exit_watch.h"
#include "machine/pc_boot.h"
#include "machine/pc_legacy.h"
#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/debug_exit.h"
#include "devices/multiboot.h"
#include "devices/post_port.h"
#include "devices/rtc.h"
#include "devices/uart16550.h"
#include "devices/vga.h"
#include "cli/display.h"
#include "cli/key_script.h"
#include "machine/smp.h"
#include "emu/cpu.h"
#include "emu/trace.h"
#include "svm/svm.h"

#define MACHINE_MAX_LOADS 8
#define MACHINE_MAX_KEYS 16

struct flat_load {
	const char *path;
	uint64_t addr;
};

/* What `hvemu run` was asked for. */
struct machine_config {
	uint64_t ram_size;
	const struct cpu_model *model;
	const char *kernel;        /* multiboot image, or NULL */
	const char *cmdline;
	const char *modules[MB_MAX_MODULES];   /* --module "FILE ARGS", in order */
	unsigned n_modules;
	const char *bios;          /* BIOS image, or NULL */
	struct flat_load loads[MACHINE_MAX_LOADS];
	unsigned n_loads;
	bool has_entry;
	uint64_t entry;            /* real-mode entry for flat images (< 1 MiB) */
	bool entry64;              /* --entry64: start in 64-bit mode at entry (see machine.c) */
	uint64_t max_insns;        /* 0: no limit */
	FILE *serial;              /* COM1 output (stdout), or NULL; see serial_path */
	const char *serial_path;   /* --serial file:PATH: opened by machine_setup(), last */
	unsigned trace;            /* TRACE_* */
	bool tlb_uncached;         /* --tlb flush: every access walks the page tables */
	unsigned dump_pt;          /* DUMP_PT_*: when to print the page tables at the end */
	enum display_kind display; /* --display */
	const char *screenshot;    /* --screenshot PATH.png, or NULL */
	const char *keys[MACHINE_MAX_KEYS];   /* --keys TIME:KEYS (cli/key_script.h) */
	unsigned n_keys;
	unsigned svm_quirks;       /* --quirk: enum svm_quirk bits */
	struct exit_watch_config watch;  /* --trace vmexit, --trace-format, --stats, --livelock */
	uint64_t insn_rate;        /* --insn-rate: virtual ticks (instructions) per second; 0: default */
	bool realtime;             /* --realtime: sleep so virtual time never runs ahead of the host's */
	struct rtc_time rtc_base;  /* --rtc-base: the RTC's start (year 0: RTC_DEFAULT_START) */
	unsigned n_cpus;           /* --smp: CPUs (0: one) */
	uint64_t quantum;          /* --quantum: instructions per CPU turn (0: the default) */
	bool no_reboot;            /* --no-reboot: a guest's reset ends the run (status 14) */
};

/* --dump-pt: print the page tables of the final CR3 (mmu/paging_dump.h). */
enum { DUMP_PT_NEVER, DUMP_PT_SHUTDOWN, DUMP_PT_EXIT };

struct machine {
	const struct machine_config *cfg;   /* what it was built from: a reboot loads it again */
	bool no_reboot;            /* --no-reboot */
	unsigned reboots;          /* guest resets the machine restarted from */
	bool reboot_failed;        /* a restart could not load its files: the run ended */
	size_t bios_size;          /* the --bios image's size, 0: none */
	struct physmem mem;
	struct iobus io;
	struct vclock clock;       /* virtual time: the CPU's, for every timer */
	struct uart16550 uart;
	struct debug_exit dexit;
	struct post_port post;
	struct pc_boot boot;       /* the boot-contract devices (cli/pc_boot.h), the 8042 among them */
	struct vga vga;            /* text mode, its buffer in RAM at B8000h */
	struct display display;    /* --display, --screenshot */
	struct key_script keys;    /* --keys */
	struct pc_description desc;  /* what the machine is made of, for fw_cfg and ACPI */
	struct pc_legacy pc;       /* 8259A pair, 8254, RTC/CMOS, HPET (cli/pc_legacy.h) */
	bool realtime;             /* --realtime pacing, from host_start */
	struct timespec host_start;
	struct trace trace;
	struct cpu cpu;            /* CPU 0, the BSP */
	bool cpu_ready;
	struct smp smp;            /* all CPUs, their APICs, the I/O APIC (cli/smp.c) */
	struct svm *svm[MACHINE_MAX_CPUS];   /* each CPU's SVM model, on a CPU model with SVM */
	FILE *serial_file;         /* the --serial file:PATH this machine opened */
	const char *serial_path;   /* its PATH, for the report of a failed write */
	unsigned dump_pt;          /* DUMP_PT_* from the configuration */
	struct exit_watch watch;   /* VM exits: trace, statistics, livelock */
};

/* Check the configuration (entry points, --load ranges against each other,
 * the kernel, its multiboot data and the BIOS; an output that names an input),
 * build the machine, load the images, and only then open the serial output
 * file. False with a one-line reason in err (then call machine_destroy()). */
bool machine_setup(struct machine *m, const struct machine_config *cfg, char *err,
		   size_t errlen);
void machine_destroy(struct machine *m);

/* Exit statuses (README "Exit status"): the guest's are odd, hvemu's even. */
enum {
	EXIT_USAGE = 2,            /* bad argument or file */
	EXIT_SHUTDOWN = 4,         /* triple fault */
	EXIT_INSN_LIMIT = 6,       /* --max-insns reached */
	EXIT_HALTED = 8,           /* HLT with nothing to wake the CPU */
	EXIT_EMULATOR = 10,        /* unsupported instruction or emulator error */
	EXIT_SIGNAL = 12,          /* stopped by SIGINT, SIGTERM, SIGHUP, SIGUSR2, or the window was closed */
	EXIT_RESET = 14,           /* --no-reboot: the guest reset the machine (0x92, 0xCF9, 8042) */
	EXIT_POWER_OFF = 16,       /* the guest powered off (port 0x8900 "Shutdown") */
	EXIT_LIVELOCK = 18,        /* the same VM exit N times in a row (--livelock) */
};

/* Run until the CPU stops; print a one-line summary to stderr unless the guest
 * ended the run through debug-exit, then the --stats summary; return the exit status. SIGINT, SIGTERM,
 * SIGHUP and SIGUSR2 stop the CPU after its current instruction (a second one
 * kills); SIGUSR1 is ignored unless --display text prints the screen on it. */
int machine_run(struct machine *m);

#endif
