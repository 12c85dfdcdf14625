/* Check suite for the machine library (machine/): a machine built from a
 * configuration as the CLI, bench/ and the tests build theirs, its entry
 * states, its hypervisor factory, its CPUs, and a guest's reset restarting
 * it. The guests are flat real-mode images written to a temporary file. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/cpu_model.h"
#include "machine/boot_entry.h"
#include "machine/machine.h"
#include "suite_runner.h"

#define ENTRY 0x1000u

/* A temporary file holding the image; its path in path (unlinked by the
 * caller). */
static void write_image(char *path, size_t len, const uint8_t *code, size_t size)
{
	snprintf(path, len, "/tmp/hvemu-test-machine-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, code, size), (ssize_t)size);
	close(fd);
}

/* The image loaded at ENTRY and entered there in real mode, on model. */
static struct machine_config flat_config(const char *path, const char *model)
{
	const struct cpu_model *cm = cpu_model_find(model);
	ck_assert_ptr_nonnull(cm);
	return (struct machine_config){ .ram_size = 16u << 20, .model = cm, .has_entry = true, .entry = ENTRY,
					.loads = { { path, ENTRY } }, .n_loads = 1 };
}

static const volatile sig_atomic_t no_stop;

/* m set up to run code as a flat image at ENTRY on model (in real mode, or
 * with entry64 in 64-bit mode), at the instruction rate rate (0: default). */
static void setup_flat(struct machine *m, const uint8_t *code, size_t len, const char *model, bool entry64,
		       uint64_t rate)
{
	char path[64], err[512];
	write_image(path, sizeof(path), code, len);
	struct machine_config cfg = flat_config(path, model);
	cfg.entry64 = entry64;
	cfg.insn_rate = rate;
	bool ok = machine_setup(m, &cfg, err, sizeof(err));
	unlink(path);
	ck_assert_msg(ok, "%s", err);
}

/* mov al, 5; out 0xf4, al (isa-debug-exit); hlt. */
static const uint8_t exit5[] = { 0xb0, 0x05, 0xe6, 0xf4, 0xf4 };

START_TEST(flat_image_runs_to_debug_exit)
{
	static struct machine m;
	setup_flat(&m, exit5, sizeof(exit5), "pentium", false, 0);
	/* Real mode at 0000:1000 (machine/boot_entry.h). */
	ck_assert_uint_eq(m.cpu.seg[SR_CS].selector, 0);
	ck_assert_uint_eq(m.cpu.rip, ENTRY);
	ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
	ck_assert(m.dexit.exited);
	ck_assert_uint_eq(m.dexit.value, 5);
	/* Two instructions, the OUT a bus cycle of a microsecond (devices/bus.h). */
	ck_assert_uint_eq(m.cpu.icount, 2 + 999);
	machine_destroy(&m);
}
END_TEST

/* in al, 71h; out 80h, al; mov dx, 80h; in al, dx; mov al, 5; out 0f4h, al; hlt:
 * six instructions to the debug exit, four of them port accesses. */
static const uint8_t four_accesses[] = { 0xe4, 0x71, 0xe6, 0x80, 0xba, 0x80, 0x00, 0xec,
					 0xb0, 0x05, 0xe6, 0xf4, 0xf4 };

/* Each IN and OUT that reaches the bus takes a microsecond of virtual time
 * (devices/bus.h IO_BUS_CYCLE_NS), whatever the instruction rate: at 1 MHz
 * that is the instruction's own tick. */
START_TEST(port_access_takes_a_bus_cycle)
{
	static const struct { uint64_t rate, ticks_per_access; } rows[] = {
		{ 0, 1000 },                   /* the default, 1 GHz */
		{ 1000000, 1 },
		{ 2500000000u, 2500 },
	};
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		static struct machine m;
		setup_flat(&m, four_accesses, sizeof(four_accesses), "pentium", false, rows[i].rate);
		ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
		ck_assert_uint_eq(m.dexit.value, 5);
		ck_assert_uint_eq(m.cpu.icount, 2 + 4 * rows[i].ticks_per_access);
		machine_destroy(&m);
	}
}
END_TEST

/* 64-bit code (RBX = address; MOV EAX, [RBX] or MOV [RBX], EAX): a read of
 * the HPET's counter and a write of the I/O APIC's index (the chipset's
 * registers: a bus cycle each), a read of the local APIC's version (the
 * CPU's own: none) and of RAM, then the debug exit's OUT (a bus cycle). */
static const uint8_t device_accesses[] = {
	0xbb, 0xf0, 0x00, 0xd0, 0xfe, 0x8b, 0x03,   /* HPET counter, FED000F0H */
	0xbb, 0x00, 0x00, 0xc0, 0xfe, 0x89, 0x03,   /* I/O APIC index, FEC00000H */
	0xbb, 0x30, 0x00, 0xe0, 0xfe, 0x8b, 0x03,   /* local APIC version, FEE00030H */
	0xbb, 0x00, 0x10, 0x00, 0x00, 0x8b, 0x03,   /* RAM, 1000H */
	0xb0, 0x05, 0xe6, 0xf4, 0xf4 };

START_TEST(mmio_access_takes_a_bus_cycle)
{
	static struct machine m;
	setup_flat(&m, device_accesses, sizeof(device_accesses), "skylake-lite", true, 0);
	ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
	ck_assert_uint_eq(m.dexit.value, 5);
	ck_assert_uint_eq(m.cpu.icount, 10 + 3 * 999);
	machine_destroy(&m);
}
END_TEST

/* --entry64: IA-32e mode with the identity tables in low RAM (SDM Vol.3
 * 9.8.5), CS 08H 64-bit, RSP below the tables. */
START_TEST(entry64_state)
{
	static struct machine m;
	setup_flat(&m, exit5, sizeof(exit5), "skylake-lite", true, 0);
	struct cpu *c = &m.cpu;
	ck_assert_uint_eq(c->efer & (EFER_LME | EFER_LMA), EFER_LME | EFER_LMA);
	ck_assert_uint_eq(c->cr0 & (CR0_PE | CR0_PG), CR0_PE | CR0_PG);
	ck_assert_uint_eq(c->cr3, BOOT_E64_PML4);
	ck_assert_uint_eq(c->seg[SR_CS].selector, 0x08);
	ck_assert_int_eq(cpu_code_size(c), 64);
	ck_assert_uint_eq(c->regs[R_SP], BOOT_E64_PML4);
	ck_assert_uint_eq(c->rip, ENTRY);
	machine_destroy(&m);
}
END_TEST

/* The checks both Linux images run at their entry: compare a dword at
 * [reg + disp32] with an expected value, then write 5 (equal) or 7 to
 * isa-debug-exit and halt. modrm (CMP is /7): BBH [EBX+disp32], BEH [ESI+disp32]. */
static size_t entry_check(uint8_t *code, uint8_t modrm, uint32_t disp, uint32_t want)
{
	const uint8_t body[] = { 0x81, modrm, (uint8_t)disp, (uint8_t)(disp >> 8), (uint8_t)(disp >> 16),
				 (uint8_t)(disp >> 24), (uint8_t)want, (uint8_t)(want >> 8), (uint8_t)(want >> 16),
				 (uint8_t)(want >> 24),
				 0x75, 0x04, 0xb0, 0x05, 0xeb, 0x02, 0xb0, 0x07, 0xe6, 0xf4, 0xf4 };
	memcpy(code, body, sizeof(body));
	return sizeof(body);
}

static struct machine_config kernel_config(const char *path, const char *initrd)
{
	const struct cpu_model *cm = cpu_model_find("skylake-lite");
	return (struct machine_config){ .ram_size = 32u << 20, .model = cm, .kernel = path, .initrd = initrd,
					.cmdline = "console=ttyS0" };
}

/* A PVH ELF32 (devices/pvh.h): the entry state of pvh.pandoc, EBX naming an
 * hvm_start_info whose magic the kernel checks, the initrd as module 0. */
START_TEST(pvh_entry_state)
{
	static uint8_t img[0x2000];
	memset(img, 0, sizeof(img));
	Elf32_Ehdr *e = (Elf32_Ehdr *)img;
	memcpy(e->e_ident, ELFMAG, SELFMAG);
	e->e_ident[EI_CLASS] = ELFCLASS32;
	e->e_ident[EI_DATA] = ELFDATA2LSB;
	e->e_ident[EI_VERSION] = EV_CURRENT;
	e->e_type = ET_EXEC; e->e_machine = EM_386; e->e_version = EV_CURRENT;
	e->e_phoff = sizeof(*e); e->e_ehsize = sizeof(*e); e->e_phentsize = sizeof(Elf32_Phdr); e->e_phnum = 2;
	Elf32_Phdr *ph = (Elf32_Phdr *)(img + sizeof(*e));
	size_t n = entry_check(img + 0x1000, 0xbb, SI_MAGIC, XEN_HVM_START_MAGIC_VALUE);
	ph[0] = (Elf32_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1000, .p_paddr = 0x100000, .p_filesz = (uint32_t)n,
			      .p_memsz = 0x1000 };
	ph[1] = (Elf32_Phdr){ .p_type = PT_NOTE, .p_offset = 0x800, .p_filesz = 20 };
	const uint32_t note[5] = { 4, 4, XEN_ELFNOTE_PHYS32_ENTRY, 0x006e6558 /* "Xen" */, 0x100000 };
	memcpy(img + 0x800, note, sizeof(note));
	char path[64], rd[64], err[512];
	write_image(path, sizeof(path), img, sizeof(img));
	write_image(rd, sizeof(rd), (const uint8_t *)"initrd", 6);
	struct machine_config cfg = kernel_config(path, rd);
	static struct machine m;
	bool ok = machine_setup(&m, &cfg, err, sizeof(err));
	unlink(path);
	unlink(rd);
	ck_assert_msg(ok, "%s", err);
	struct cpu *c = &m.cpu;
	ck_assert_uint_eq(c->regs[R_BX], PVH_START_INFO);
	ck_assert_uint_eq(c->cr0, CR0_PE | CR0_ET);
	ck_assert_uint_eq(c->cr4, 0);
	ck_assert_int_eq(cpu_code_size(c), 32);
	ck_assert_uint_eq(c->seg[SR_CS].base, 0);
	ck_assert_uint_eq(c->seg[SR_SS].limit, 0xffffffffu);
	ck_assert_uint_eq(c->tr.limit, 0x67);
	ck_assert_uint_eq(c->tr.base, 0);
	ck_assert_uint_eq(cpu_get_flags(c) & (FLAG_IF | FLAG_TF | FLAG_VM), 0);
	ck_assert_uint_eq(c->rip, 0x100000);
	ck_assert_uint_eq(physmem_read(&m.mem, PVH_START_INFO + SI_NR_MODULES, 4), 1);
	ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
	ck_assert_uint_eq(m.dexit.value, 5);
	machine_destroy(&m);
}
END_TEST

/* A bzImage (devices/linux_boot.h) entered through the 32-bit boot protocol:
 * ESI the zero page, whose copied setup header the kernel checks. */
START_TEST(bzimage_entry_state)
{
	static uint8_t img[5 * 512 + 512];
	memset(img, 0, sizeof(img));
	img[HDR_BOOT_FLAG] = 0x55;
	img[HDR_BOOT_FLAG + 1] = 0xaa;
	img[HDR_JUMP] = 0xeb;
	img[HDR_JUMP + 1] = 0x6a;
	memcpy(img + HDR_HEADER, "HdrS\x0f\x02", 6);
	img[HDR_LOADFLAGS] = LOADFLAGS_LOADED_HIGH;
	const uint32_t max = 0x7fffffff, cmdline_size = 255;
	memcpy(img + HDR_INITRD_ADDR_MAX, &max, 4);
	memcpy(img + HDR_CMDLINE_SIZE, &cmdline_size, 4);
	entry_check(img + 5 * 512, 0xbe, HDR_HEADER, HDRS_MAGIC);
	char path[64], err[512];
	write_image(path, sizeof(path), img, sizeof(img));
	struct machine_config cfg = kernel_config(path, NULL);
	static struct machine m;
	bool ok = machine_setup(&m, &cfg, err, sizeof(err));
	unlink(path);
	ck_assert_msg(ok, "%s", err);
	struct cpu *c = &m.cpu;
	ck_assert_uint_eq(c->regs[R_SI], LINUX_ZERO_PAGE);
	ck_assert_uint_eq(c->regs[R_BX] | c->regs[R_BP] | c->regs[R_DI], 0);
	ck_assert_uint_eq(c->seg[SR_CS].selector, LINUX_BOOT_CS);
	ck_assert_uint_eq(c->seg[SR_DS].selector, LINUX_BOOT_DS);
	ck_assert_uint_eq(c->seg[SR_SS].selector, LINUX_BOOT_DS);
	ck_assert_int_eq(cpu_code_size(c), 32);
	ck_assert_uint_eq(c->cr0 & (CR0_PE | CR0_PG), CR0_PE);
	ck_assert_uint_eq(cpu_get_flags(c) & FLAG_IF, 0);
	ck_assert_uint_eq(c->rip, LINUX_KERNEL_BASE);
	ck_assert_str_eq((const char *)m.mem.ram + LINUX_CMDLINE, "console=ttyS0");
	ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
	ck_assert_uint_eq(m.dexit.value, 5);
	machine_destroy(&m);
}
END_TEST

/* A model with SVM gets the SVM model on every CPU, reported by CPUID; a
 * model without a hypervisor extension none (machine/hypervisor.h). */
START_TEST(hypervisor_factory)
{
	char path[64], err[512];
	write_image(path, sizeof(path), exit5, sizeof(exit5));
	static struct machine m;
	struct machine_config cfg = flat_config(path, "epyc-lite");
	cfg.n_cpus = 2;
	ck_assert_msg(machine_setup(&m, &cfg, err, sizeof(err)), "%s", err);
	ck_assert(hv_available(cfg.model));
	ck_assert_str_eq(hv_name(cfg.model), "SVM");
	for (unsigned i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(m.hv[i].kind);
		ck_assert_ptr_nonnull(m.smp.cpu[i]->hv);
		ck_assert(m.smp.cpu[i]->hv_available);
	}
	machine_destroy(&m);
	for (unsigned i = 0; i < 2; i++)
		ck_assert_ptr_null(m.hv[i].kind);

	cfg = flat_config(path, "pentium");
	ck_assert_msg(machine_setup(&m, &cfg, err, sizeof(err)), "%s", err);
	unlink(path);
	ck_assert(!hv_available(cfg.model));
	ck_assert_ptr_null(hv_name(cfg.model));
	ck_assert_ptr_null(m.hv[0].kind);
	ck_assert_ptr_null(m.cpu.hv);
	ck_assert(!m.cpu.hv_available);
	machine_destroy(&m);
}
END_TEST

/* --smp 3: CPU 0 the BSP, the others waiting for a SIPI (SDM Vol.3 8.4.1),
 * every CPU with its local APIC, in one ring of CPUs for stores to code. */
START_TEST(smp_cpus)
{
	char path[64], err[512];
	write_image(path, sizeof(path), exit5, sizeof(exit5));
	static struct machine m;
	struct machine_config cfg = flat_config(path, "skylake-lite");
	cfg.n_cpus = 3;
	bool ok = machine_setup(&m, &cfg, err, sizeof(err));
	unlink(path);
	ck_assert_msg(ok, "%s", err);
	ck_assert_uint_eq(m.smp.n, 3);
	ck_assert_ptr_eq(m.smp.cpu[0], &m.cpu);
	ck_assert(!m.cpu.wait_for_sipi);
	for (unsigned i = 1; i < 3; i++) {
		ck_assert(m.smp.cpu[i]->wait_for_sipi);
		ck_assert(m.smp.cpu[i]->halted);
	}
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_ptr_eq(m.smp.cpu[i]->lapic, &m.smp.lapic[i]);
		ck_assert_ptr_eq(m.smp.cpu[i]->next_cpu, m.smp.cpu[(i + 1) % 3]);
	}
	ck_assert_int_eq(machine_run(&m, &no_stop), ST_STOP);
	ck_assert_uint_eq(m.dexit.value, 5);
	machine_destroy(&m);
}
END_TEST

/* A reset through port CF9H restarts the machine with RAM kept and the image
 * loaded and entered again; the second boot counts 2 at 500H and exits with
 * it.
 *   inc byte [0500h]; cmp byte [0500h], 2; je done
 *   mov dx, 0cf9h; mov al, 6; out dx, al; hlt
 *   done: mov al, [0500h]; out 0f4h, al; hlt */
static const uint8_t reset_once[] = {
	0xfe, 0x06, 0x00, 0x05, 0x80, 0x3e, 0x00, 0x05, 0x02, 0x74, 0x07,
	0xba, 0xf9, 0x0c, 0xb0, 0x06, 0xee, 0xf4,
	0xa0, 0x00, 0x05, 0xe6, 0xf4, 0xf4,
};

START_TEST(reset_restarts)
{
	char path[64], err[512];
	write_image(path, sizeof(path), reset_once, sizeof(reset_once));
	static struct machine m;
	struct machine_config cfg = flat_config(path, "pentium");
	ck_assert_msg(machine_setup(&m, &cfg, err, sizeof(err)), "%s", err);
	status_t st = machine_run(&m, &no_stop);
	unlink(path);
	ck_assert_int_eq(st, ST_STOP);
	ck_assert(!m.reboot_failed);
	ck_assert_uint_eq(m.reboots, 1);
	ck_assert(m.dexit.exited);
	ck_assert_uint_eq(m.dexit.value, 2);
	machine_destroy(&m);
}
END_TEST

/* --no-reboot: the reset ends the run, the request kept for the report. */
START_TEST(reset_ends_run_without_reboot)
{
	char path[64], err[512];
	write_image(path, sizeof(path), reset_once, sizeof(reset_once));
	static struct machine m;
	struct machine_config cfg = flat_config(path, "pentium");
	cfg.no_reboot = true;
	ck_assert_msg(machine_setup(&m, &cfg, err, sizeof(err)), "%s", err);
	status_t st = machine_run(&m, &no_stop);
	unlink(path);
	ck_assert_int_eq(st, ST_STOP);
	ck_assert_uint_eq(m.reboots, 0);
	ck_assert(!m.dexit.exited);
	ck_assert_int_eq(m.boot.requested.what, POWER_RESET);
	machine_destroy(&m);
}
END_TEST

/* The machine's own checks, before anything is built. */
START_TEST(config_checks)
{
	char err[512];
	struct machine_config cfg = { .ram_size = 16u << 20, .model = cpu_models[0] };
	ck_assert(!machine_config_check(&cfg, err, sizeof(err)));
	ck_assert_str_eq(err, "nothing to run: give --kernel, --bios, or --load with --entry");
	cfg = flat_config("/nonexistent", "pentium");
	cfg.entry = 0x100000;
	ck_assert(!machine_config_check(&cfg, err, sizeof(err)));
	ck_assert_str_eq(err, "--entry 0x100000 is not reachable in real mode (must be below 1 MiB)");
	cfg = flat_config("/nonexistent", "pentium");
	cfg.entry64 = true;
	ck_assert(!machine_config_check(&cfg, err, sizeof(err)));
	ck_assert_str_eq(err, "--entry64 needs a CPU model with long mode (e.g. --cpu skylake-lite)");
}
END_TEST

static Suite *machine_suite(void)
{
	Suite *s = suite_create("machine");
	TCase *t = tcase_create("machine");
	tcase_add_test(t, flat_image_runs_to_debug_exit);
	tcase_add_test(t, port_access_takes_a_bus_cycle);
	tcase_add_test(t, mmio_access_takes_a_bus_cycle);
	tcase_add_test(t, entry64_state);
	tcase_add_test(t, pvh_entry_state);
	tcase_add_test(t, bzimage_entry_state);
	tcase_add_test(t, hypervisor_factory);
	tcase_add_test(t, smp_cpus);
	tcase_add_test(t, reset_restarts);
	tcase_add_test(t, reset_ends_run_without_reboot);
	tcase_add_test(t, config_checks);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(machine_suite());
}
