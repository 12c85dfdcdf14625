/* The PC-like machine hvemu runs (the CLI, bench/, the tests): RAM, the port
 * bus with COM1, isa-debug-exit and the POST port, the boot-contract devices
 * (machine/pc_boot.h: fw_cfg, PCI, pc-testdev, resets, A20, the 8042 and its
 * keyboard, ACPI tables), VGA text mode, the PC's interrupt controllers and
 * timers (machine/pc_legacy.h), N CPUs with their local APICs and the I/O
 * APIC on one virtual clock (machine/smp.h), each CPU's hypervisor model
 * (machine/hypervisor.h), and tracing; how it is booted (a multiboot kernel
 * and modules, flat images with a real-mode or 64-bit entry, or a BIOS from
 * the reset vector; machine/boot_entry.h), and how it runs: the schedule, and
 * a guest's reset restarting it (machine/reboot.h).
 *
 * What a person sees of it (a window, key scripts, screenshots), the VM-exit
 * observers and the report of how a run ended are the front end's (cli/): it
 * reaches the devices through struct machine and installs its observers on
 * the CPUs (m->smp.cpu[]) after machine_setup(). */
#ifndef HVEMU_MACHINE_MACHINE_H
#define HVEMU_MACHINE_MACHINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/debug_exit.h"
#include "devices/debugcon.h"
#include "devices/multiboot.h"
#include "devices/post_port.h"
#include "devices/rtc.h"
#include "devices/uart16550.h"
#include "devices/vga.h"
#include "emu/cpu.h"
#include "emu/trace.h"
#include "devices/fw_cfg_pvh.h"
#include "machine/hypervisor.h"
#include "machine/pc_boot.h"
#include "machine/pc_legacy.h"
#include "machine/smp.h"

#define MACHINE_MAX_LOADS 8
/* QEMU's option ROMs for -kernel (linuxboot_dma.bin, multiboot_dma.bin,
 * pvh.bin), where Debian's qemu-system-data installs them. */
#define MACHINE_OPTION_ROMS "/usr/share/qemu/"

struct flat_load {
	const char *path;
	uint64_t addr;
};

/* What the machine is built from (`hvemu run`'s options, by their names). */
struct machine_config {
	uint64_t ram_size;
	const struct cpu_model *model;
	const char *kernel;        /* Multiboot, bzImage or PVH image (devices/kernel_image.h), or NULL */
	const char *cmdline;
	const char *initrd;        /* --initrd: a Linux kernel's initial RAM disk, or NULL */
	const char *modules[MB_MAX_MODULES];   /* --module "FILE ARGS", in order */
	unsigned n_modules;
	const char *bios;          /* BIOS image, or NULL */
	bool firmware;             /* --firmware: the BIOS boots --kernel through fw_cfg (QEMU's -kernel) */
	struct flat_load loads[MACHINE_MAX_LOADS];
	unsigned n_loads;
	bool has_entry;
	uint64_t entry;            /* real-mode entry for flat images (< 1 MiB) */
	bool entry64;              /* --entry64: start in 64-bit mode at entry (machine/boot_entry.h) */
	uint64_t max_insns;        /* 0: no limit */
	FILE *serial;              /* COM1 output, or NULL */
	unsigned trace;            /* TRACE_* */
	bool tlb_uncached;         /* --tlb flush: every access walks the page tables */
	uint64_t quirks;           /* --quirk/--quirks: QUIRK_BIT()s of emu/quirks.def */
	uint64_t insn_rate;        /* --insn-rate: virtual ticks (instructions) per second; 0: default */
	uint64_t rng_seed;         /* --seed: what RDRAND/RDSEED return follows from it */
	bool perturb_exits;        /* --perturb-exits: odd but legal VM exits (svm/, vmx/exit_perturb.h) */
	uint64_t perturb_seed;
	bool realtime;             /* --realtime: sleep so virtual time never runs ahead of the host's */
	struct rtc_time rtc_base;  /* --rtc-base: the RTC's start (year 0: RTC_DEFAULT_START) */
	unsigned n_cpus;           /* --smp: CPUs (0: one) */
	uint64_t quantum;          /* --quantum: instructions per CPU turn (0: the default) */
	bool no_reboot;            /* --no-reboot: a guest's reset ends the run */
	enum pc_chipset chipset;   /* --machine: pc (i440FX, the default) or q35 */
	bool debugcon;             /* --debugcon: the 402h log port (its file: m->debugcon.out) */
	/* The front end's own reason to end the run (the CLI's livelock
	 * detector, which stops the CPU), asked when a CPU stops; NULL: none. */
	bool (*run_ended)(const void *ctx);
	const void *run_ended_ctx;
};

struct machine {
	const struct machine_config *cfg;   /* what it was built from: a reboot loads it again */
	bool no_reboot;            /* --no-reboot */
	unsigned reboots;          /* guest resets the machine restarted from */
	bool reboot_failed;        /* a restart could not load its files: the run ended */
	char reboot_error[512];    /* why, one line */
	/* A PVH kernel the firmware boots: written to RAM before the firmware
	 * runs, at power-on and after each reset (devices/fw_cfg_pvh.h). */
	struct fw_cfg_pvh_image firmware_image;
	size_t bios_size;          /* the --bios image's size, 0: none */
	struct physmem mem;
	struct iobus io;
	struct vclock clock;       /* virtual time: the CPU's, for every timer */
	struct uart16550 uart;
	struct debug_exit dexit;
	struct debugcon debugcon;  /* with cfg->debugcon */
	struct post_port post;
	struct pc_boot boot;       /* the boot-contract devices (machine/pc_boot.h), the 8042 among them */
	struct vga vga;            /* text mode, its buffer in RAM at B8000h */
	struct pc_description desc;  /* what the machine is made of, for fw_cfg and ACPI */
	struct pc_legacy pc;       /* 8259A pair, 8254, RTC/CMOS, HPET (machine/pc_legacy.h) */
	bool realtime;             /* --realtime pacing, from host_start */
	struct timespec host_start;
	struct trace trace;
	struct cpu cpu;            /* CPU 0, the BSP */
	bool cpu_ready;
	struct smp smp;            /* all CPUs, their APICs, the I/O APIC (machine/smp.c) */
	struct hypervisor hv[MACHINE_MAX_CPUS];   /* each CPU's hypervisor model, if its CPU model has one */
};

/* What must hold between the options that the machine alone can check (an
 * entry point and what it starts in, --entry64's CPU model and address).
 * False with a one-line reason in err. machine_setup() checks it first. */
bool machine_config_check(const struct machine_config *cfg, char *err, size_t errlen);

/* The file of a --module "FILE ARGS": up to the first space, as QEMU splits
 * an -initrd entry (hw/i386/multiboot.c). A malloc'ed copy, NULL if out of
 * memory. */
char *machine_module_file(const char *module);

/* Check the configuration, build the machine, load the images (the kernel,
 * by its format its multiboot data and modules or its Linux boot data and
 * initrd, --load ranges against each other and the
 * firmware's) and enter them. False with a one-line reason in err (then call
 * machine_destroy()). cfg must outlive the machine. */
bool machine_setup(struct machine *m, const struct machine_config *cfg, char *err, size_t errlen);
void machine_destroy(struct machine *m);

/* Run until the run ends: the status that ended it, with smp_current() the
 * CPU that ended it. A guest's reset restarts the machine (the hardware as at
 * power-on, the images loaded and entered again) unless --no-reboot; a
 * restart that cannot load its files ends the run with ST_STOP and
 * reboot_failed set. *stop (a signal handler's flag) ends the run after the
 * current turn. */
status_t machine_run(struct machine *m, const volatile sig_atomic_t *stop);

#endif
