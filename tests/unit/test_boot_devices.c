/* Check suites for the boot-contract devices: fw_cfg (QEMU docs/specs/
 * fw_cfg.rst), PCI configuration mechanism #1 (PCI 3.0 3.2.2.3.2) and the
 * i440FX host bridge, QEMU's pc-testdev, port 0x92 and the reset control
 * register, the Bochs shutdown port, the 8042's reset commands, the memory map
 * and the ACPI tables (ACPI 6.0 Errata A), each through its ports as a guest
 * would reach it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/acpi.h"
#include "devices/bios_data_area.h"
#include "devices/bus.h"
#include "devices/e820.h"
#include "devices/fw_cfg.h"
#include "devices/i8042.h"
#include "devices/pc_testdev.h"
#include "devices/pci.h"
#include "devices/power.h"
#include "devices/reset.h"
#include "devices/shutdown_port.h"
#include "suite_runner.h"

/* Power requests and A20 changes the devices made. */
struct seen {
	int resets, power_offs, a20_changes;
	bool a20;
	char source[96];
};

static void note_power(void *opaque, enum power_request what, const char *source)
{
	struct seen *s = opaque;
	if (what == POWER_RESET)
		s->resets++;
	else
		s->power_offs++;
	strncpy(s->source, source, sizeof(s->source) - 1);
}

static void note_a20(void *opaque, bool enabled)
{
	struct seen *s = opaque;
	s->a20_changes++;
	s->a20 = enabled;
}

/* ---- fw_cfg ---- */

static void fw_select(struct iobus *io, uint16_t key)
{
	iobus_write(io, FW_CFG_PORT_SELECTOR, 2, key);
}

static void fw_read(struct iobus *io, uint8_t *buf, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		buf[i] = (uint8_t)iobus_read(io, FW_CFG_PORT_DATA, 1);
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/* The BIOS state of a direct start (devices/bios_data_area.h): every vector
 * at F000:FF53's IRET but INT 15h's "not supported" stub, the BIOS data
 * area's COM1, EBDA segment, equipment word, 639 KiB, text mode 3, and the
 * EBDA's 1 KiB size byte. */
START_TEST(bios_data_area)
{
	struct physmem pm;
	ck_assert(physmem_init(&pm, 8u << 20));
	bios_data_area_write(&pm);
	for (unsigned v = 0; v < 256; v++)
		ck_assert_uint_eq(physmem_read(&pm, 4 * v, 4), v == 0x15 ? 0xf000ff54u : 0xf000ff53u);
	ck_assert_uint_eq(physmem_read(&pm, 0xfff53, 1), 0xcf);
	ck_assert_uint_eq(physmem_read(&pm, 0xfff54, 1), 0x55);          /* push bp */
	ck_assert_uint_eq(physmem_read(&pm, 0xfff54 + 10, 1), 0xcf);     /* ... iret */
	ck_assert_uint_eq(physmem_read(&pm, 0x400, 2), 0x3f8);
	ck_assert_uint_eq(physmem_read(&pm, 0x402, 2), 0);
	ck_assert_uint_eq(physmem_read(&pm, 0x40e, 2), 0x9fc0);
	ck_assert_uint_eq(physmem_read(&pm, 0x410, 2), 0x220);
	ck_assert_uint_eq(physmem_read(&pm, 0x413, 2), 639);
	ck_assert_uint_eq(physmem_read(&pm, 0x449, 1), 3);
	ck_assert_uint_eq(physmem_read(&pm, 0x44a, 2), 80);
	ck_assert_uint_eq(physmem_read(&pm, 0x463, 2), 0x3d4);
	ck_assert_uint_eq(physmem_read(&pm, 0x484, 1), 24);
	ck_assert_uint_eq(physmem_read(&pm, 0x9fc00, 1), 1);
	physmem_destroy(&pm);
}
END_TEST

START_TEST(fw_cfg_items)
{
	struct fw_cfg f;
	struct iobus io;
	uint8_t b[16];
	iobus_init(&io);
	fw_cfg_init(&f);
	ck_assert(fw_cfg_register(&f, &io));
	ck_assert(fw_cfg_add_bytes(&f, FW_CFG_SIGNATURE, "QEMU", 4));
	ck_assert(fw_cfg_add_i32(&f, FW_CFG_ID, FW_CFG_ID_TRADITIONAL));
	ck_assert(fw_cfg_add_i64(&f, FW_CFG_RAM_SIZE, 0x123456789ull));
	ck_assert(fw_cfg_add_i16(&f, FW_CFG_NB_CPUS, 3));
	ck_assert(!fw_cfg_add_bytes(&f, FW_CFG_FILE_DIR, "x", 1));     /* the directory is the device's */
	ck_assert(!fw_cfg_add_bytes(&f, FW_CFG_FILE_FIRST, "x", 1));   /* files go through add_file */

	fw_select(&io, FW_CFG_SIGNATURE);
	fw_read(&io, b, 5);
	ck_assert_mem_eq(b, "QEMU", 4);
	ck_assert_uint_eq(b[4], 0);                   /* past the end: 0 */
	fw_select(&io, FW_CFG_ID);
	fw_read(&io, b, 4);
	ck_assert_mem_eq(b, "\x01\x00\x00\x00", 4);
	/* Selecting again starts from offset 0; bit 14 (write channel) is ignored. */
	fw_select(&io, FW_CFG_RAM_SIZE | FW_CFG_WRITE_CHANNEL);
	fw_read(&io, b, 9);
	ck_assert_mem_eq(b, "\x89\x67\x45\x23\x01\x00\x00\x00\x00", 9);
	fw_select(&io, FW_CFG_NB_CPUS);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_SELECTOR, 1), 3);   /* QEMU: a byte read of 0x510 reads data */
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 0);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 0);
	/* Data writes are ignored; so are byte writes to the selector. */
	fw_select(&io, FW_CFG_SIGNATURE);
	iobus_write(&io, FW_CFG_PORT_DATA, 1, 'X');
	iobus_write(&io, FW_CFG_PORT_SELECTOR, 1, FW_CFG_ID);
	fw_read(&io, b, 3);
	ck_assert_mem_eq(b, "QEM", 3);               /* neither moved the offset nor selected */
	/* Unknown, empty and architecture-specific items read 0; a word read is
	 * no data read. */
	fw_select(&io, 0x3ff0);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 0);
	fw_select(&io, FW_CFG_ARCH_LOCAL | FW_CFG_SIGNATURE);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 0);
	fw_select(&io, FW_CFG_SIGNATURE);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_SELECTOR, 2), 0xffff);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 'Q');
	/* No DMA interface: port 0x514 is unclaimed. */
	ck_assert_uint_eq(iobus_read(&io, 0x514, 4), 0xffffffffu);
	fw_cfg_destroy(&f);
}
END_TEST

START_TEST(fw_cfg_files)
{
	struct fw_cfg f;
	struct iobus io;
	uint8_t b[4 + 3 * 64];
	iobus_init(&io);
	fw_cfg_init(&f);
	ck_assert(fw_cfg_register(&f, &io));
	ck_assert(fw_cfg_add_file(&f, "etc/e820", "EEEE", 4));
	ck_assert(fw_cfg_add_file(&f, "bootorder", "B", 1));
	ck_assert(fw_cfg_add_file(&f, "zzz", "zz", 2));
	ck_assert(!fw_cfg_add_file(&f, "zzz", "z", 1));              /* duplicate */
	ck_assert(!fw_cfg_add_file(&f, "", "z", 1));
	char longname[FW_CFG_FILE_NAME_MAX + 1];
	memset(longname, 'n', FW_CFG_FILE_NAME_MAX);
	longname[FW_CFG_FILE_NAME_MAX] = 0;
	ck_assert(!fw_cfg_add_file(&f, longname, "z", 1));          /* no room for the NUL */
	/* The directory: big-endian count, then sorted entries with big-endian
	 * size and key, keys from FW_CFG_FILE_FIRST in directory order. */
	fw_select(&io, FW_CFG_FILE_DIR);
	fw_read(&io, b, sizeof(b));
	ck_assert_uint_eq(be32(b), 3);
	ck_assert_str_eq((char *)b + 4 + 8, "bootorder");
	ck_assert_uint_eq(be32(b + 4), 1);
	ck_assert_uint_eq(b[4 + 4] << 8 | b[4 + 5], FW_CFG_FILE_FIRST);
	ck_assert_str_eq((char *)b + 68 + 8, "etc/e820");
	ck_assert_uint_eq(be32(b + 68), 4);
	ck_assert_uint_eq(b[68 + 4] << 8 | b[68 + 5], FW_CFG_FILE_FIRST + 1);
	ck_assert_str_eq((char *)b + 132 + 8, "zzz");
	ck_assert_uint_eq(b[132 + 4] << 8 | b[132 + 5], FW_CFG_FILE_FIRST + 2);
	ck_assert_uint_eq(iobus_read(&io, FW_CFG_PORT_DATA, 1), 0);     /* past the end */
	fw_select(&io, FW_CFG_FILE_FIRST + 1);
	fw_read(&io, b, 5);
	ck_assert_mem_eq(b, "EEEE\0", 5);
	for (unsigned i = 3; i < FW_CFG_MAX_FILES; i++) {
		char name[8] = { 'f', (char)('a' + i), 0 };
		ck_assert(fw_cfg_add_file(&f, name, "x", 1));
	}
	ck_assert(!fw_cfg_add_file(&f, "full", "x", 1));
	fw_cfg_destroy(&f);
}
END_TEST

/* ---- PCI ---- */

static void cfg_addr(struct iobus *io, unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	iobus_write(io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | bus << 16 | dev << 11 | fn << 8 | reg);
}

START_TEST(pci_config_mechanism)
{
	struct pci_host h;
	struct reset_ports r;
	struct seen s = { 0 };
	struct power_control pc = { note_power, &s };
	struct iobus io;
	iobus_init(&io);
	reset_ports_init(&r, &pc, NULL, NULL);
	pci_host_init(&h, &reset_control_ops, &r);
	ck_assert(pci_add_i440fx(&h));
	ck_assert(!pci_add_i440fx(&h));                       /* 00:00.0 is taken */
	ck_assert(pci_host_register(&h, &io));
	/* CONFIG_ADDRESS: bits 30:24 and 1:0 read 0. */
	iobus_write(&io, PCI_CONFIG_ADDRESS, 4, 0xff000003u);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_ADDRESS, 4), 0x80000000u);
	/* The i440FX host bridge: IDs, revision, class, header type. */
	cfg_addr(&io, 0, 0, 0, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0x12378086u);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 2), 0x8086);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 2, 2), 0x1237);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 1, 1), 0x80);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 3, 1), 0x12);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 1, 2), 0x3780);
	cfg_addr(&io, 0, 0, 0, 8);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0x06000002u);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 3, 1), 0x06);
	cfg_addr(&io, 0, 0, 0, 0xc);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 2, 1), 0x00);   /* header type */
	/* Read-only: a write to the vendor ID changes nothing. */
	cfg_addr(&io, 0, 0, 0, 0);
	iobus_write(&io, PCI_CONFIG_DATA, 4, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0x12378086u);
	/* Functions that do not exist, other buses, and the enable bit clear:
	 * all ones. */
	cfg_addr(&io, 0, 0, 1, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0xffffffffu);
	cfg_addr(&io, 0, 31, 7, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA + 2, 2), 0xffff);
	cfg_addr(&io, 1, 0, 0, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 1), 0xff);
	iobus_write(&io, PCI_CONFIG_ADDRESS, 4, 0);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0xffffffffu);
	/* A writable register (wmask) takes the bits it allows. */
	struct pci_function *f = pci_add_function(&h, 0, 3, 0, "test");
	ck_assert_ptr_nonnull(f);
	f->wmask[0x40] = 0x0f;
	f->config[0x41] = 0x55;
	cfg_addr(&io, 0, 3, 0, 0x40);
	iobus_write(&io, PCI_CONFIG_DATA, 2, 0xffff);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_DATA, 4), 0x550f);
	/* Byte and word accesses to 0xCF8-0xCFB are not CONFIG_ADDRESS: a byte
	 * at 0xCF9 is the reset control register; CONFIG_ADDRESS is kept. */
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_ADDRESS + 1, 1), 0);
	iobus_write(&io, PCI_CONFIG_ADDRESS, 1, 0xff);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_ADDRESS, 4), PCI_CONFIG_ENABLE | 3u << 11 | 0x40);
	ck_assert_int_eq(s.resets, 0);
	iobus_write(&io, PCI_CONFIG_ADDRESS, 2, 0x0200);           /* SYS_RST to 0xCF9, no reset */
	ck_assert_int_eq(s.resets, 0);
	ck_assert_uint_eq(iobus_read(&io, RESET_CONTROL_PORT, 1), RCR_SYS_RST);
	ck_assert_uint_eq(iobus_read(&io, PCI_CONFIG_ADDRESS, 2), 0x02ff);
	/* A doubleword at 0xCF8 whose byte 1 has bit 2 set resets nothing. */
	iobus_write(&io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | 0x0400);
	ck_assert_int_eq(s.resets, 0);
}
END_TEST

/* ---- resets, A20, the shutdown port, the 8042 ---- */

START_TEST(port92_reset_and_a20)
{
	struct reset_ports r;
	struct seen s = { 0 };
	struct power_control pc = { note_power, &s };
	struct iobus io;
	iobus_init(&io);
	reset_ports_init(&r, &pc, note_a20, &s);
	ck_assert(reset_ports_register(&r, &io));
	/* Power-on: A20 enabled and the CPU told so. */
	ck_assert_int_eq(s.a20_changes, 1);
	ck_assert(s.a20);
	ck_assert_uint_eq(iobus_read(&io, PORT92, 1), PORT92_A20);
	iobus_write(&io, PORT92, 1, 0);
	ck_assert(!s.a20);
	ck_assert_int_eq(s.a20_changes, 2);
	iobus_write(&io, PORT92, 1, 0);                   /* no change, no call */
	ck_assert_int_eq(s.a20_changes, 2);
	iobus_write(&io, PORT92, 1, PORT92_A20);
	ck_assert(s.a20);
	ck_assert_int_eq(s.resets, 0);
	/* Bit 0 going 0 -> 1 resets; staying 1 does not reset again. */
	iobus_write(&io, PORT92, 1, PORT92_A20 | PORT92_FAST_RESET);
	ck_assert_int_eq(s.resets, 1);
	ck_assert_str_eq(s.source, "port 0x92 bit 0 (fast reset)");
	iobus_write(&io, PORT92, 1, PORT92_A20 | PORT92_FAST_RESET);
	ck_assert_int_eq(s.resets, 1);
	iobus_write(&io, PORT92, 1, PORT92_A20);
	iobus_write(&io, PORT92, 1, PORT92_A20 | PORT92_FAST_RESET);
	ck_assert_int_eq(s.resets, 2);
}
END_TEST

START_TEST(reset_control_register)
{
	struct reset_ports r;
	struct seen s = { 0 };
	struct power_control pc = { note_power, &s };
	reset_ports_init(&r, &pc, NULL, NULL);
	reset_control_ops.write(&r, RESET_CONTROL_PORT, 1, RCR_SYS_RST);
	ck_assert_int_eq(s.resets, 0);
	ck_assert_uint_eq(reset_control_ops.read(&r, RESET_CONTROL_PORT, 1), RCR_SYS_RST);
	reset_control_ops.write(&r, RESET_CONTROL_PORT, 1, RCR_HARD_RESET);
	ck_assert_int_eq(s.resets, 1);
	ck_assert_ptr_nonnull(strstr(s.source, "hard reset"));
	reset_control_ops.write(&r, RESET_CONTROL_PORT, 1, RCR_RST_CPU);
	ck_assert_int_eq(s.resets, 2);
	ck_assert_ptr_nonnull(strstr(s.source, "soft reset"));
	ck_assert_uint_eq(reset_control_ops.read(&r, RESET_CONTROL_PORT, 1), 0);   /* RST_CPU reads 0 */
	/* The other ports of 0xCF8-0xCFB are not the register. */
	reset_control_ops.write(&r, RESET_CONTROL_PORT + 1, 1, RCR_HARD_RESET);
	ck_assert_int_eq(s.resets, 2);
	ck_assert_uint_eq(reset_control_ops.read(&r, RESET_CONTROL_PORT - 1, 1), 0xff);
}
END_TEST

static void out_string(struct iobus *io, const char *s)
{
	while (*s)
		iobus_write(io, SHUTDOWN_PORT, 1, (uint8_t)*s++);
}

START_TEST(shutdown_port_sequence)
{
	struct shutdown_port sp;
	struct seen s = { 0 };
	struct power_control pc = { note_power, &s };
	struct iobus io;
	iobus_init(&io);
	shutdown_port_init(&sp, &pc);
	ck_assert(shutdown_port_register(&sp, &io));
	out_string(&io, "Shutdow");
	ck_assert_int_eq(s.power_offs, 0);
	out_string(&io, "x");                            /* wrong byte: start over */
	out_string(&io, "n");
	ck_assert_int_eq(s.power_offs, 0);
	out_string(&io, "SShutdown");                    /* the second S is not a new start */
	ck_assert_int_eq(s.power_offs, 0);
	out_string(&io, "Shutdownn");                    /* a byte too many after it is harmless */
	ck_assert_int_eq(s.power_offs, 1);
	/* A word reaches the byte-wide port as its low byte. */
	out_string(&io, "Shut");
	iobus_write(&io, SHUTDOWN_PORT, 2, 0x5500 | 'd');
	ck_assert_int_eq(s.power_offs, 1);
	out_string(&io, "own");
	ck_assert_int_eq(s.power_offs, 2);
	ck_assert_int_eq(s.resets, 0);
	ck_assert_uint_eq(iobus_read(&io, SHUTDOWN_PORT, 1), 0xff);
	out_string(&io, "Shutdown");                     /* the sequence starts over after */
	ck_assert_int_eq(s.power_offs, 3);
}
END_TEST

START_TEST(i8042_reset_commands)
{
	struct i8042 k;
	struct seen s = { 0 };
	struct power_control pc = { note_power, &s };
	struct iobus io;
	iobus_init(&io);
	i8042_init(&k, &pc);
	ck_assert(i8042_register(&k, &io));
	ck_assert_uint_eq(iobus_read(&io, I8042_COMMAND_PORT, 1), 0x14);   /* SYS, not inhibited */
	iobus_write(&io, I8042_COMMAND_PORT, 1, 0xff);   /* pulse nothing */
	iobus_write(&io, I8042_COMMAND_PORT, 1, 0xd1);   /* write output port: not here */
	iobus_write(&io, I8042_COMMAND_PORT, 1, 0xef);
	ck_assert_int_eq(s.resets, 0);
	ck_assert_uint_eq(iobus_read(&io, I8042_COMMAND_PORT, 1), 0x1c);   /* last write a command */
	iobus_write(&io, I8042_COMMAND_PORT, 1, 0xfe);
	ck_assert_int_eq(s.resets, 1);
	ck_assert_str_eq(s.source, "8042 command 0xfe (pulse the reset line)");
	iobus_write(&io, I8042_COMMAND_PORT, 1, 0xf0);   /* pulses all four lines, reset among them */
	ck_assert_int_eq(s.resets, 2);
	for (unsigned c = 0; c < 0x100; c++)
		ck_assert_int_eq(i8042_command_resets((uint8_t)c), c >= 0xf0 && !(c & 1));
}
END_TEST

/* ---- pc-testdev ---- */

struct lines { int level[PC_TESTDEV_IRQS]; int calls; };

static void note_line(void *opaque, unsigned pin, bool level)
{
	struct lines *l = opaque;
	l->level[pin] = level;
	l->calls++;
}

static uint64_t flushed;
static void note_flush(void *opaque, uint64_t pa)
{
	(void)opaque;
	flushed = pa;
}

START_TEST(pc_testdev_ports)
{
	static struct pc_testdev t;
	static struct physmem pm;
	struct lines l = { { 0 }, 0 };
	struct irq_line irq[PC_TESTDEV_IRQS];
	for (unsigned i = 0; i < PC_TESTDEV_IRQS; i++)
		irq[i] = (struct irq_line){ .set = note_line, .opaque = &l, .pin = i };
	struct iobus io;
	iobus_init(&io);
	ck_assert(physmem_init(&pm, 1u << 20));
	pc_testdev_init(&t, irq, note_flush, NULL);
	ck_assert(pc_testdev_register_io(&t, &io));
	ck_assert(pc_testdev_register_mmio(&t, &pm));
	/* The 32-bit register, at every width and aligned offset. */
	iobus_write(&io, 0xe0, 4, 0x11223344u);
	ck_assert_uint_eq(iobus_read(&io, 0xe0, 4), 0x11223344u);
	ck_assert_uint_eq(iobus_read(&io, 0xe1, 1), 0x33);
	ck_assert_uint_eq(iobus_read(&io, 0xe2, 2), 0x1122);
	iobus_write(&io, 0xe2, 2, 0xaabb);
	ck_assert_uint_eq(iobus_read(&io, 0xe0, 4), 0xaabb3344u);
	iobus_write(&io, 0xe1, 1, 0x5a);
	ck_assert_uint_eq(iobus_read(&io, 0xe0, 4), 0xaabb5a44u);
	/* Unaligned accesses (QEMU's memory core refuses them): read 0, write
	 * nothing, also across the window's end. */
	ck_assert_uint_eq(iobus_read(&io, 0xe1, 2), 0);
	ck_assert_uint_eq(iobus_read(&io, 0xe3, 2), 0);
	ck_assert_uint_eq(iobus_read(&io, 0xe2, 4), 0);
	iobus_write(&io, 0xe1, 2, 0xffff);
	iobus_write(&io, 0xe3, 2, 0xffff);
	ck_assert_uint_eq(iobus_read(&io, 0xe0, 4), 0xaabb5a44u);
	/* 0xe8 is the same register. */
	ck_assert_uint_eq(iobus_read(&io, 0xe8, 4), 0xaabb5a44u);
	iobus_write(&io, 0xe8, 4, 0xdeadbeefu);
	ck_assert_uint_eq(iobus_read(&io, 0xe0, 4), 0xdeadbeefu);
	ck_assert_uint_eq(iobus_read(&io, 0xea, 2), 0xdead);
	ck_assert_uint_eq(iobus_read(&io, 0xe9, 2), 0);
	/* Flush page: a doubleword write of an address; reads 0. */
	iobus_write(&io, 0xe4, 4, 0x12345678u);
	ck_assert_uint_eq(flushed, 0x12345000u);
	flushed = 0;
	iobus_write(&io, 0xe4, 1, 0x78);
	ck_assert_uint_eq(flushed, 0);
	ck_assert_uint_eq(iobus_read(&io, 0xe4, 4), 0);
	/* IRQ lines: byte writes only, level = value != 0; reads 0. */
	iobus_write(&io, 0x2000 + 5, 1, 1);
	ck_assert_int_eq(l.level[5], 1);
	iobus_write(&io, 0x2000 + 23, 1, 0x80);
	ck_assert_int_eq(l.level[23], 1);
	iobus_write(&io, 0x2000 + 5, 1, 0);
	ck_assert_int_eq(l.level[5], 0);
	int calls = l.calls;
	iobus_write(&io, 0x2000 + 4, 2, 0x0101);
	ck_assert_int_eq(l.calls, calls);
	iobus_write(&io, 0x2000 + 24, 1, 1);             /* not the device's */
	ck_assert_int_eq(l.calls, calls);
	ck_assert_uint_eq(iobus_read(&io, 0x2000 + 23, 1), 0);
	/* Scratch memory at 0xff000000. */
	physmem_write(&pm, PC_TESTDEV_IOMEM, 8, 0x0123456789abcdefull);
	ck_assert_uint_eq(physmem_read(&pm, PC_TESTDEV_IOMEM, 8), 0x0123456789abcdefull);
	ck_assert_uint_eq(physmem_read(&pm, PC_TESTDEV_IOMEM + 1, 2), 0xabcd);
	physmem_write(&pm, PC_TESTDEV_IOMEM + PC_TESTDEV_IOMEM_SIZE - 1, 1, 0x42);
	ck_assert_uint_eq(physmem_read(&pm, PC_TESTDEV_IOMEM + PC_TESTDEV_IOMEM_SIZE - 1, 1), 0x42);
	ck_assert_uint_eq(physmem_read(&pm, PC_TESTDEV_IOMEM + PC_TESTDEV_IOMEM_SIZE, 1), 0xff);
	physmem_destroy(&pm);
}
END_TEST

/* ---- memory map ---- */

START_TEST(e820_layout)
{
	struct e820_entry m[E820_MAX_ENTRIES];
	ck_assert_uint_eq(e820_map(128u << 20, m), 4);
	ck_assert_uint_eq(m[0].base, 0);
	ck_assert_uint_eq(m[0].length, 0x9fc00);
	ck_assert_uint_eq(m[0].type, E820_RAM);
	ck_assert_uint_eq(m[1].base + m[1].length, 0xa0000);
	ck_assert_uint_eq(m[1].type, E820_RESERVED);
	ck_assert_uint_eq(m[2].base, 0xf0000);
	ck_assert_uint_eq(m[2].base + m[2].length, 0x100000);
	ck_assert_uint_eq(m[3].base, 0x100000);
	ck_assert_uint_eq(m[3].base + m[3].length, 128u << 20);
	/* The ACPI tables lie in the reserved BIOS area. */
	ck_assert_uint_ge(ACPI_AREA_BASE, m[2].base);
	ck_assert_uint_le(ACPI_AREA_BASE + ACPI_AREA_SIZE, m[2].base + m[2].length);
}
END_TEST

/* ---- ACPI ---- */

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static const struct acpi_machine full = {
	.n_cpus = 4, .lapic = true, .lapic_addr = 0xfee00000u, .lint1_nmi = true, .ioapic = true,
	.ioapic_id = 0, .ioapic_addr = 0xfec00000u, .irq0_on_gsi2 = true, .pic = true, .hpet = true,
	.hpet_addr = 0xfed00000u, .hpet_block_id = 0x8086a201u, .hpet_min_tick = 128,
	.legacy_devices = true, .i8042 = true, .vga = true, .rtc = true, .rtc_century = 0x32,
	.reset_port = 0xcf9, .reset_value = 6, .sci_irq = 9,
};

#define BASE 0xf0000u
#define AT(addr) (buf + ((addr) - BASE))

/* A table at addr: its signature, its length and checksum right. */
static const uint8_t *table(const uint8_t *buf, uint32_t addr, const char *sig, uint8_t rev)
{
	const uint8_t *t = AT(addr);
	ck_assert_mem_eq(t, sig, 4);
	ck_assert_uint_eq(t[8], rev);
	ck_assert_uint_eq(acpi_checksum(t, rd32(t + 4)), 0);
	ck_assert_mem_eq(t + 10, "HVEMU ", 6);
	return t;
}

/* The DSDT's legacy devices for `full` (ACPI 6.0 20.2.5.2 DefDevice with a
 * root NameString, Name (_HID, EisaId) 6.1.5, Name (_UID) 6.1.12, Name (_CRS,
 * Buffer) 6.2.2 holding I/O port descriptors 6.4.2.5 and an IRQ descriptor
 * without flags 6.4.2.1, end tag 6.4.2.9), byte for byte. */
static const uint8_t isa_devices_aml[] = {
	/* Device (\_SB.KBD) { _HID PNP0303, _CRS { IO 60h, IO 64h, IRQNoFlags {1} } } */
	0x5b, 0x82, 0x33, 0x5c, 0x2e, '_', 'S', 'B', '_', 'K', 'B', 'D', '_',
	0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x03, 0x03,
	0x08, '_', 'C', 'R', 'S', 0x11, 0x18, 0x0a, 0x15,
	0x47, 0x01, 0x60, 0x00, 0x60, 0x00, 0x01, 0x01, 0x47, 0x01, 0x64, 0x00, 0x64, 0x00, 0x01, 0x01,
	0x22, 0x02, 0x00, 0x79, 0x00,
	/* Device (\_SB.COM1) { _HID PNP0501, _UID 1, _CRS { IO 3F8h/8, IRQNoFlags {4} } } */
	0x5b, 0x82, 0x31, 0x5c, 0x2e, '_', 'S', 'B', '_', 'C', 'O', 'M', '1',
	0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x05, 0x01, 0x08, '_', 'U', 'I', 'D', 0x01,
	0x08, '_', 'C', 'R', 'S', 0x11, 0x10, 0x0a, 0x0d,
	0x47, 0x01, 0xf8, 0x03, 0xf8, 0x03, 0x01, 0x08, 0x22, 0x10, 0x00, 0x79, 0x00,
	/* Device (\_SB.RTC) { _HID PNP0B00, _CRS { IO 70h/2, IRQNoFlags {8} } } */
	0x5b, 0x82, 0x2b, 0x5c, 0x2e, '_', 'S', 'B', '_', 'R', 'T', 'C', '_',
	0x08, '_', 'H', 'I', 'D', 0x0c, 0x41, 0xd0, 0x0b, 0x00,
	0x08, '_', 'C', 'R', 'S', 0x11, 0x10, 0x0a, 0x0d,
	0x47, 0x01, 0x70, 0x00, 0x70, 0x00, 0x01, 0x02, 0x22, 0x00, 0x01, 0x79, 0x00,
};

START_TEST(acpi_full_machine)
{
	static uint8_t buf[ACPI_AREA_SIZE];
	struct acpi_layout l;
	size_t n = acpi_build(buf, sizeof(buf), BASE, &full, &l);
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(l.end, BASE + n);
	/* RSDP: 16-byte aligned, both checksums, revision 2, RSDT and XSDT. */
	ck_assert_uint_eq(l.rsdp % 16, 0);
	const uint8_t *rsdp = AT(l.rsdp);
	ck_assert_mem_eq(rsdp, "RSD PTR ", 8);
	ck_assert_uint_eq(acpi_checksum(rsdp, 20), 0);
	ck_assert_uint_eq(acpi_checksum(rsdp, 36), 0);
	ck_assert_uint_eq(rsdp[15], 2);
	ck_assert_uint_eq(rd32(rsdp + 20), 36);
	ck_assert_uint_eq(rd32(rsdp + 16), l.rsdt);
	ck_assert_uint_eq(rd64(rsdp + 24), l.xsdt);
	/* RSDT and XSDT: FADT, MADT, HPET, the same in both. */
	const uint8_t *rsdt = table(buf, l.rsdt, "RSDT", 1), *xsdt = table(buf, l.xsdt, "XSDT", 1);
	ck_assert_uint_eq(rd32(rsdt + 4), 36 + 3 * 4);
	ck_assert_uint_eq(rd32(xsdt + 4), 36 + 3 * 8);
	uint32_t want[3] = { l.fadt, l.madt, l.hpet };
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(rd32(rsdt + 36 + 4 * i), want[i]);
		ck_assert_uint_eq(rd64(xsdt + 36 + 8 * i), want[i]);
	}
	/* FADT: revision 6, 276 bytes, FACS and DSDT, no PM blocks, the reset
	 * register, boot architecture flags. */
	const uint8_t *fadt = table(buf, l.fadt, "FACP", 6);
	ck_assert_uint_eq(rd32(fadt + 4), 276);
	ck_assert_uint_eq(rd32(fadt + 36), l.facs);
	ck_assert_uint_eq(rd32(fadt + 40), l.dsdt);
	ck_assert_uint_eq(rd64(fadt + 140), l.dsdt);
	ck_assert_uint_eq(fadt[46], 9);
	for (unsigned off = 56; off < 96; off++)
		ck_assert_uint_eq(fadt[off], 0);              /* PM1/PM2/PM_TMR/GPE blocks absent */
	ck_assert_uint_eq(fadt[108], 0x32);
	ck_assert_uint_eq(fadt[109] | fadt[110] << 8, 0x3);   /* legacy devices, 8042 */
	uint32_t flags = rd32(fadt + 112);
	ck_assert_uint_eq(flags & (1u << 10), 1u << 10);      /* RESET_REG_SUP */
	ck_assert_uint_eq(flags & (1u << 12), 0);             /* not headless: VGA */
	ck_assert_uint_eq(fadt[116], 1);                      /* RESET_REG: system I/O */
	ck_assert_uint_eq(fadt[117], 8);
	ck_assert_uint_eq(rd64(fadt + 120), 0xcf9);
	ck_assert_uint_eq(fadt[128], 6);
	/* FACS: 64-byte aligned, 64 bytes, version 2; DSDT: the legacy devices. */
	ck_assert_uint_eq(l.facs % 64, 0);
	ck_assert_mem_eq(AT(l.facs), "FACS", 4);
	ck_assert_uint_eq(rd32(AT(l.facs) + 4), 64);
	ck_assert_uint_eq(AT(l.facs)[32], 2);
	const uint8_t *dsdt = table(buf, l.dsdt, "DSDT", 2);
	ck_assert_uint_eq(rd32(dsdt + 4), 36 + sizeof(isa_devices_aml));
	ck_assert_mem_eq(dsdt + 36, isa_devices_aml, sizeof(isa_devices_aml));
	/* Without them (no 8042, no legacy devices, no RTC): just the header. */
	struct acpi_machine bare = full;
	bare.i8042 = bare.legacy_devices = bare.rtc = false;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &bare, &l), 0);
	ck_assert_uint_eq(rd32(table(buf, l.dsdt, "DSDT", 2) + 4), 36);
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &full, &l), 0);
	/* MADT: four local APICs, the I/O APIC, IRQ 0 -> GSI 2, LINT1 NMI. */
	const uint8_t *madt = table(buf, l.madt, "APIC", 4);
	uint32_t len = rd32(madt + 4);
	ck_assert_uint_eq(rd32(madt + 36), 0xfee00000u);
	ck_assert_uint_eq(rd32(madt + 40), 1);                /* PCAT_COMPAT */
	unsigned lapics = 0, ioapics = 0, isos = 0, nmis = 0;
	for (uint32_t o = 44; o < len; o += madt[o + 1]) {
		const uint8_t *e = madt + o;
		ck_assert_uint_gt(e[1], 0);
		switch (e[0]) {
		case 0:
			ck_assert_uint_eq(e[1], 8);
			ck_assert_uint_eq(e[2], lapics);          /* UID */
			ck_assert_uint_eq(e[3], lapics);          /* APIC ID */
			ck_assert_uint_eq(rd32(e + 4), 1);
			lapics++;
			break;
		case 1:
			ck_assert_uint_eq(e[1], 12);
			ck_assert_uint_eq(rd32(e + 4), 0xfec00000u);
			ck_assert_uint_eq(rd32(e + 8), 0);
			ioapics++;
			break;
		case 2:
			ck_assert_uint_eq(e[1], 10);
			ck_assert_uint_eq(e[2], 0);
			ck_assert_uint_eq(e[3], 0);
			ck_assert_uint_eq(rd32(e + 4), 2);
			isos++;
			break;
		case 4:
			ck_assert_uint_eq(e[1], 6);
			ck_assert_uint_eq(e[2], 0xff);
			ck_assert_uint_eq(e[5], 1);
			nmis++;
			break;
		default:
			ck_abort_msg("unexpected MADT entry type %u", e[0]);
		}
	}
	ck_assert_uint_eq(lapics, 4);
	ck_assert_uint_eq(ioapics, 1);
	ck_assert_uint_eq(isos, 1);
	ck_assert_uint_eq(nmis, 1);
	/* HPET: block ID, address, minimum tick. */
	const uint8_t *hpet = table(buf, l.hpet, "HPET", 1);
	ck_assert_uint_eq(rd32(hpet + 4), 56);
	ck_assert_uint_eq(rd32(hpet + 36), 0x8086a201u);
	ck_assert_uint_eq(hpet[40], 0);                       /* memory space */
	ck_assert_uint_eq(rd64(hpet + 44), 0xfed00000u);
	ck_assert_uint_eq(hpet[53] | hpet[54] << 8, 128);
}
END_TEST

/* With the PIIX4's PM hardware at 600h (devices/piix4_pm.h): the FADT's PM1a
 * event/control, PM timer and GPE0 blocks in both forms with their lengths
 * (ACPI 6.0 5.2.9 Table 5-34), TMR_VAL_EXT clear, no SMI_CMD; the DSDT's
 * Name (_S5_, Package (4) {0, 0, 0, 0}) (7.3.4.5, 20.2.5) and the PCI root
 * bridge (6.1.5, 6.2.2, 6.4.3.5; 20.2.4 PkgLength); the MADT's
 * override of the SCI, IRQ 9 level, active high (5.2.12.5). */
START_TEST(acpi_pm_hardware)
{
	static uint8_t buf[ACPI_AREA_SIZE];
	struct acpi_machine m = full;
	m.pm_base = 0x600;
	m.gpe0_off = 0x0c;
	m.gpe0_len = 4;
	m.s5_slp_typ = 0;
	struct acpi_layout l;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	const uint8_t *fadt = table(buf, l.fadt, "FACP", 6);
	ck_assert_uint_eq(rd32(fadt + 48), 0);                /* SMI_CMD */
	ck_assert_uint_eq(fadt[52] | fadt[53], 0);            /* ACPI_ENABLE/DISABLE */
	static const struct { unsigned blk, len, xblk; uint32_t addr; uint8_t size; } want[] = {
		{ 56, 88, 148, 0x600, 4 }, { 64, 89, 172, 0x604, 2 },
		{ 76, 91, 208, 0x608, 4 }, { 80, 92, 220, 0x60c, 4 },
	};
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_uint_eq(rd32(fadt + want[i].blk), want[i].addr);
		ck_assert_uint_eq(fadt[want[i].len], want[i].size);
		ck_assert_uint_eq(fadt[want[i].xblk], 1);                    /* system I/O */
		ck_assert_uint_eq(fadt[want[i].xblk + 1], 8 * want[i].size);
		ck_assert_uint_eq(rd64(fadt + want[i].xblk + 4), want[i].addr);
	}
	ck_assert_uint_eq(rd32(fadt + 60) | rd32(fadt + 68) | rd32(fadt + 72) | rd32(fadt + 84), 0);
	ck_assert_uint_eq(fadt[90] | fadt[93], 0);            /* PM2_CNT_LEN, GPE1_BLK_LEN */
	ck_assert_uint_eq(rd32(fadt + 112) & (1u << 8), 0);   /* TMR_VAL_EXT: 24 bits */
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0, 0, 0, 0 };
	const uint8_t *dsdt = table(buf, l.dsdt, "DSDT", 2);
	ck_assert_uint_eq(rd32(dsdt + 4), 36 + sizeof(s5) + sizeof(isa_devices_aml));
	ck_assert_mem_eq(dsdt + 36, s5, sizeof(s5));
	ck_assert_mem_eq(dsdt + 36 + sizeof(s5), isa_devices_aml, sizeof(isa_devices_aml));
	/* A SLP_TYP above 1 is a BytePrefix constant. */
	m.s5_slp_typ = 5;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	static const uint8_t s5b[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 5, 0x0a, 5, 0, 0 };
	dsdt = table(buf, l.dsdt, "DSDT", 2);
	ck_assert_uint_eq(rd32(dsdt + 4), 36 + sizeof(s5b) + sizeof(isa_devices_aml));
	ck_assert_mem_eq(dsdt + 36, s5b, sizeof(s5b));
	/* With the PCI root bridge: Device (\_SB_.PCI0) after \_S5, its
	 * PkgLength (two bytes) covering the DSDT up to the legacy devices;
	 * _HID PNP0A03; _CRS ending in the end tag, with the window from the end
	 * of RAM. */
	m.pci_root = true;
	m.pci_mem_start = 0x10000000u;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	dsdt = table(buf, l.dsdt, "DSDT", 2);
	uint32_t dlen = rd32(dsdt + 4) - (uint32_t)sizeof(isa_devices_aml), d = 36 + sizeof(s5b);
	ck_assert_mem_eq(dsdt + dlen, isa_devices_aml, sizeof(isa_devices_aml));
	ck_assert_uint_eq(dsdt[d], 0x5b);
	ck_assert_uint_eq(dsdt[d + 1], 0x82);
	ck_assert_uint_eq(dsdt[d + 2] >> 6, 1);
	ck_assert_uint_eq((dsdt[d + 2] & 0xf) | dsdt[d + 3] << 4, dlen - (d + 2));
	ck_assert_mem_eq(dsdt + d + 4, "\\._SB_PCI0", 10);
	ck_assert_mem_eq(dsdt + d + 14, "\x08_HID\x0c\x41\xd0\x0a\x03", 10);
	ck_assert_uint_eq(dsdt[dlen - 2], 0x79);               /* end tag */
	ck_assert_uint_eq(dsdt[dlen - 1], 0);
	ck_assert_uint_eq(rd32(dsdt + dlen - 2 - 26 + 10), 0x10000000u);   /* last window: min */
	ck_assert_uint_eq(rd32(dsdt + dlen - 2 - 26 + 14), 0xfebfffffu);   /* max */
	const uint8_t *madt = table(buf, l.madt, "APIC", 4);
	unsigned sci = 0;
	for (uint32_t o = 44; o < rd32(madt + 4); o += madt[o + 1])
		if (madt[o] == 2 && madt[o + 3] == 9) {
			ck_assert_uint_eq(rd32(madt + o + 4), 9);
			ck_assert_uint_eq(madt[o + 8] | madt[o + 9] << 8, 0x000d);   /* level, active high */
			sci++;
		}
	ck_assert_uint_eq(sci, 1);
}
END_TEST

/* A q35 machine (devices/q35.h, devices/ich9_lpc.h): the MCFG with the ECAM
 * window (PCI Firmware 3.0 4.1.2, Tables 4-2/4-3) listed last in the RSDT
 * and XSDT; the root bridge a PCI Express one, _HID PNP0A08 with _CID
 * PNP0A03 (4.1.5); its memory window split around the ECAM window; a
 * PNP0C02 device reserving the window (4.1.2); the ICH9's GPE0 (20h, 16
 * bytes) and S5 SLP_TYP 7 in the FADT and \_S5. */
START_TEST(acpi_q35)
{
	static uint8_t buf[ACPI_AREA_SIZE];
	struct acpi_machine m = full;
	m.pm_base = 0x600;
	m.gpe0_off = 0x20;
	m.gpe0_len = 16;
	m.s5_slp_typ = 7;
	m.pci_root = true;
	m.pci_mem_start = 0x10000000u;
	m.ecam_base = 0xb0000000u;
	struct acpi_layout l;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	const uint8_t *mcfg = table(buf, l.mcfg, "MCFG", 1);
	ck_assert_uint_eq(rd32(mcfg + 4), 60);
	ck_assert_uint_eq(rd64(mcfg + 36), 0);                 /* reserved */
	ck_assert_uint_eq(rd64(mcfg + 44), 0xb0000000u);
	ck_assert_uint_eq(mcfg[52] | mcfg[53] << 8, 0);        /* segment group */
	ck_assert_uint_eq(mcfg[54], 0);
	ck_assert_uint_eq(mcfg[55], 0xff);
	const uint8_t *xsdt = table(buf, l.xsdt, "XSDT", 1), *rsdt = table(buf, l.rsdt, "RSDT", 1);
	unsigned n = (rd32(xsdt + 4) - 36) / 8;
	ck_assert_uint_eq(rd64(xsdt + 36 + 8 * (n - 1)), l.mcfg);
	ck_assert_uint_eq(rd32(rsdt + 36 + 4 * (n - 1)), l.mcfg);
	const uint8_t *fadt = table(buf, l.fadt, "FACP", 6);
	ck_assert_uint_eq(rd32(fadt + 80), 0x620);             /* GPE0_BLK */
	ck_assert_uint_eq(fadt[92], 16);                       /* GPE0_BLK_LEN */
	ck_assert_uint_eq(fadt[221], 128);                     /* X_GPE0_BLK bit width */
	const uint8_t *dsdt = table(buf, l.dsdt, "DSDT", 2);
	/* The legacy devices come last; before them the bridge and ECAM. */
	uint32_t dlen = rd32(dsdt + 4) - (uint32_t)sizeof(isa_devices_aml);
	ck_assert_mem_eq(dsdt + dlen, isa_devices_aml, sizeof(isa_devices_aml));
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 7, 0x0a, 7, 0, 0 };
	ck_assert_mem_eq(dsdt + 36, s5, sizeof(s5));
	uint32_t d = 36 + sizeof(s5);
	ck_assert_mem_eq(dsdt + d + 4, "\\._SB_PCI0", 10);
	ck_assert_mem_eq(dsdt + d + 14, "\x08_HID\x0c\x41\xd0\x0a\x08\x08_CID\x0c\x41\xd0\x0a\x03", 20);
	/* The last device: \_SB.ECAM, PNP0C02, Memory32Fixed over the window. */
	unsigned e = dlen - 14 - 35 - 1;        /* its PkgLength */
	ck_assert_uint_eq(dsdt[e - 2], 0x5b);
	ck_assert_uint_eq(dsdt[e - 1], 0x82);
	ck_assert_uint_eq(dsdt[e], 14 + 35 + 1);               /* PkgLength, one byte */
	ck_assert_mem_eq(dsdt + e + 1, "\\._SB_ECAM\x08_HID\x0c\x41\xd0\x0c\x02", 20);
	ck_assert_uint_eq(dsdt[dlen - 14], 0x86);              /* Memory32Fixed */
	ck_assert_uint_eq(rd32(dsdt + dlen - 10), 0xb0000000u);
	ck_assert_uint_eq(rd32(dsdt + dlen - 6), 0x10000000u);
	ck_assert_uint_eq(dsdt[dlen - 2], 0x79);
	/* PCI0's _CRS: the memory windows stop below the ECAM window and go on
	 * above it. */
	int below = 0, above = 0;
	for (uint32_t o = d; o + 26 <= e; o++)
		if (dsdt[o] == 0x87 && dsdt[o + 3] == 0) {
			uint32_t min = rd32(dsdt + o + 10), max = rd32(dsdt + o + 14);
			ck_assert(max < 0xb0000000u || min > 0xbfffffffu);
			below |= min == 0x10000000u && max == 0xafffffffu;
			above |= min == 0xc0000000u && max == 0xfebfffffu;
		}
	ck_assert(below && above);
}
END_TEST

/* The machine without interrupt controllers, HPET, RTC, VGA or keyboard: no
 * MADT, no HPET table, and the FADT says what is missing. */
START_TEST(acpi_bare_machine)
{
	static uint8_t buf[ACPI_AREA_SIZE];
	struct acpi_machine m = { .n_cpus = 1, .legacy_devices = true, .reset_port = 0xcf9, .reset_value = 6,
				  .sci_irq = 9 };
	struct acpi_layout l;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	ck_assert_uint_eq(l.madt, 0);
	ck_assert_uint_eq(l.hpet, 0);
	const uint8_t *rsdt = table(buf, l.rsdt, "RSDT", 1), *xsdt = table(buf, l.xsdt, "XSDT", 1);
	ck_assert_uint_eq(rd32(rsdt + 4), 40);
	ck_assert_uint_eq(rd32(rsdt + 36), l.fadt);
	ck_assert_uint_eq(rd64(xsdt + 36), l.fadt);
	const uint8_t *fadt = table(buf, l.fadt, "FACP", 6);
	/* Legacy devices; VGA not present, MSI not supported, CMOS RTC not present. */
	ck_assert_uint_eq(fadt[109] | fadt[110] << 8, 0x1 | 0x4 | 0x8 | 0x20);
	ck_assert_uint_eq(rd32(fadt + 112) & (1u << 12), 1u << 12);   /* headless */
	ck_assert_uint_eq(fadt[108], 0);
	/* No reset register: the flag and the register stay clear. */
	m.reset_port = 0;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	fadt = table(buf, l.fadt, "FACP", 6);
	ck_assert_uint_eq(rd32(fadt + 112) & (1u << 10), 0);
	ck_assert_uint_eq(fadt[116], 0);
	/* No CPU, or no room: nothing built. */
	m.n_cpus = 0;
	ck_assert_uint_eq(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	m.n_cpus = 1;
	ck_assert_uint_eq(acpi_build(buf, 100, BASE, &m, &l), 0);
}
END_TEST

/* Local APIC IDs from 255 are x2APIC entries (5.2.12.12). */
START_TEST(acpi_many_cpus)
{
	static uint8_t buf[ACPI_AREA_SIZE];
	struct acpi_machine m = full;
	m.n_cpus = 300;
	struct acpi_layout l;
	ck_assert_uint_gt(acpi_build(buf, sizeof(buf), BASE, &m, &l), 0);
	const uint8_t *madt = table(buf, l.madt, "APIC", 4);
	unsigned lapics = 0, x2apics = 0;
	for (uint32_t o = 44; o < rd32(madt + 4); o += madt[o + 1]) {
		if (madt[o] == 0)
			lapics++;
		if (madt[o] == 9) {
			ck_assert_uint_eq(madt[o + 1], 16);
			ck_assert_uint_eq(rd32(madt + o + 4), 255 + x2apics);
			ck_assert_uint_eq(rd32(madt + o + 12), 255 + x2apics);
			x2apics++;
		}
	}
	ck_assert_uint_eq(lapics, 255);
	ck_assert_uint_eq(x2apics, 45);
}
END_TEST

static Suite *boot_devices_suite(void)
{
	Suite *s = suite_create("boot_devices");
	TCase *fw = tcase_create("fw_cfg");
	tcase_add_test(fw, bios_data_area);
	tcase_add_test(fw, fw_cfg_items);
	tcase_add_test(fw, fw_cfg_files);
	suite_add_tcase(s, fw);
	TCase *pci = tcase_create("pci");
	tcase_add_test(pci, pci_config_mechanism);
	suite_add_tcase(s, pci);
	TCase *reset = tcase_create("reset");
	tcase_add_test(reset, port92_reset_and_a20);
	tcase_add_test(reset, reset_control_register);
	tcase_add_test(reset, shutdown_port_sequence);
	tcase_add_test(reset, i8042_reset_commands);
	suite_add_tcase(s, reset);
	TCase *testdev = tcase_create("pc_testdev");
	tcase_add_test(testdev, pc_testdev_ports);
	suite_add_tcase(s, testdev);
	TCase *tables = tcase_create("tables");
	tcase_add_test(tables, e820_layout);
	tcase_add_test(tables, acpi_full_machine);
	tcase_add_test(tables, acpi_bare_machine);
	tcase_add_test(tables, acpi_pm_hardware);
	tcase_add_test(tables, acpi_q35);
	tcase_add_test(tables, acpi_many_cpus);
	suite_add_tcase(s, tables);
	return s;
}

int main(void)
{
	return run_suite(boot_devices_suite());
}
