/* Check suite for what SeaBIOS and QEMU's option ROMs need of the machine:
 * fw_cfg's DMA interface (QEMU docs/specs/fw_cfg.rst "DMA interface"), the
 * -kernel items of devices/fw_cfg_linux.h (Linux boot.rst), and the
 * i440FX/PIIX registers SeaBIOS programs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "devices/bus.h"
#include "devices/fw_cfg.h"
#include "devices/fw_cfg_linux.h"
#include "devices/i440fx.h"
#include "devices/linux_boot.h"
#include "devices/pci.h"
#include "devices/piix3_isa.h"
#include "devices/piix4_pm.h"
#include "suite_runner.h"

#define RAM (4u << 20)
#define DESC 0x1000u      /* where the tests put their FWCfgDmaAccess */
#define BUF 0x2000u

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static uint32_t be32_at(struct physmem *pm, uint64_t pa)
{
	uint8_t b[4];
	physmem_read_bytes(pm, pa, b, 4);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t bswap(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

/* Write an FWCfgDmaAccess at DESC and start it through the ports as SeaBIOS
 * does: the big-endian halves, high at 514h, low at 518h. */
static uint32_t dma(struct iobus *io, struct physmem *pm, uint32_t control, uint32_t length, uint64_t addr)
{
	uint8_t d[16];
	put_be32(d, control);
	put_be32(d + 4, length);
	put_be32(d + 8, (uint32_t)(addr >> 32));
	put_be32(d + 12, (uint32_t)addr);
	physmem_write_bytes(pm, DESC, d, sizeof(d));
	iobus_write(io, FW_CFG_PORT_DMA, 4, bswap(0));
	iobus_write(io, FW_CFG_PORT_DMA + 4, 4, bswap(DESC));
	return be32_at(pm, DESC);
}

struct rig {
	struct physmem pm;
	struct iobus io;
	struct fw_cfg f;
};

static void rig_up(struct rig *r)
{
	ck_assert(physmem_init(&r->pm, RAM));
	iobus_init(&r->io);
	fw_cfg_init(&r->f);
	ck_assert(fw_cfg_register(&r->f, &r->io));
	ck_assert(fw_cfg_register_dma(&r->f, &r->io, &r->pm));
}

static void rig_down(struct rig *r)
{
	fw_cfg_destroy(&r->f);
	physmem_destroy(&r->pm);
}

/* fw_cfg.rst: the DMA address register reads as "QEMU CFG". */
START_TEST(dma_signature)
{
	struct rig r;
	rig_up(&r);
	char sig[9] = { 0 };
	for (unsigned i = 0; i < 8; i++)
		sig[i] = (char)iobus_read(&r.io, FW_CFG_PORT_DMA + i, 1);
	ck_assert_str_eq(sig, "QEMU CFG");
	ck_assert_uint_eq(iobus_read(&r.io, FW_CFG_PORT_DMA, 4), 0x554d4551u);   /* "QEMU" in order */
	rig_down(&r);
}
END_TEST

/* fw_cfg.rst "DMA interface": SELECT picks the item in control bits 31:16 and
 * restarts at offset 0, READ copies from the offset, SKIP advances it, reads
 * past the end give zeros, the control word reads 0 when done; WRITE is
 * refused with ERROR (the items are read-only). */
START_TEST(dma_transfers)
{
	struct rig r;
	rig_up(&r);
	ck_assert(fw_cfg_add_bytes(&r.f, FW_CFG_SIGNATURE, "QEMU", 4));
	ck_assert(fw_cfg_add_file(&r.f, "etc/x", "abcdefgh", 8));
	uint8_t buf[16];

	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)FW_CFG_SIGNATURE << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_READ,
			      4, BUF), 0);
	physmem_read_bytes(&r.pm, BUF, buf, 4);
	ck_assert_mem_eq(buf, "QEMU", 4);

	uint16_t key = FW_CFG_FILE_FIRST;
	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)key << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_SKIP, 2, 0), 0);
	ck_assert_uint_eq(dma(&r.io, &r.pm, FW_CFG_DMA_READ, 3, BUF), 0);      /* no SELECT: same item */
	physmem_read_bytes(&r.pm, BUF, buf, 3);
	ck_assert_mem_eq(buf, "cde", 3);
	/* The traditional data port continues at the same offset. */
	ck_assert_uint_eq(iobus_read(&r.io, FW_CFG_PORT_DATA, 1), 'f');

	memset(buf, 0xaa, sizeof(buf));
	physmem_write_bytes(&r.pm, BUF, buf, sizeof(buf));
	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)key << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_READ, 12, BUF), 0);
	physmem_read_bytes(&r.pm, BUF, buf, sizeof(buf));
	ck_assert_mem_eq(buf, "abcdefgh\0\0\0\0\xaa", 13);

	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)key << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_WRITE, 1, BUF),
			  FW_CFG_DMA_ERROR);
	ck_assert_uint_eq(r.f.dma_count, 5);
	rig_down(&r);
}
END_TEST

/* fw_cfg.rst "File Directory": a big-endian count, then 64-byte entries of
 * big-endian size and selector and the name, in name order, read by DMA. */
START_TEST(dma_file_directory)
{
	struct rig r;
	rig_up(&r);
	ck_assert(fw_cfg_add_file(&r.f, "genroms/linuxboot_dma.bin", "R", 1));
	ck_assert(fw_cfg_add_file(&r.f, "bootorder", "xyz", 3));
	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)FW_CFG_FILE_DIR << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_READ,
			      4 + 2 * FW_CFG_FILE_ENTRY_SIZE, BUF), 0);
	ck_assert_uint_eq(be32_at(&r.pm, BUF), 2);
	ck_assert_uint_eq(be32_at(&r.pm, BUF + 4), 3);                          /* bootorder first */
	ck_assert_uint_eq(be32_at(&r.pm, BUF + 8) >> 16, FW_CFG_FILE_FIRST);
	char name[FW_CFG_FILE_NAME_MAX];
	physmem_read_bytes(&r.pm, BUF + 12, name, sizeof(name));
	ck_assert_str_eq(name, "bootorder");
	ck_assert_uint_eq(be32_at(&r.pm, BUF + 4 + 64 + 4) >> 16, FW_CFG_FILE_FIRST + 1);
	physmem_read_bytes(&r.pm, BUF + 4 + 64 + 8, name, sizeof(name));
	ck_assert_str_eq(name, "genroms/linuxboot_dma.bin");
	rig_down(&r);
}
END_TEST

/* A fake bzImage: boot flag, "HdrS", protocol 2.0f, setup_sects 2, loaded
 * high, initrd_addr_max, cmdline_size; 3 sectors of setup, then the kernel. */
static uint8_t *fake_bzimage(size_t *size)
{
	*size = 3 * 512 + 4096;
	uint8_t *im = calloc(1, *size);
	im[HDR_SETUP_SECTS] = 2;
	im[HDR_BOOT_FLAG] = 0x55;
	im[HDR_BOOT_FLAG + 1] = 0xaa;
	memcpy(im + HDR_HEADER, "HdrS", 4);
	im[HDR_VERSION] = 0x0f;
	im[HDR_VERSION + 1] = 0x02;
	im[HDR_LOADFLAGS] = LOADFLAGS_LOADED_HIGH;
	im[HDR_INITRD_ADDR_MAX + 0] = 0xff;
	im[HDR_INITRD_ADDR_MAX + 1] = 0xff;
	im[HDR_INITRD_ADDR_MAX + 2] = 0xff;
	im[HDR_INITRD_ADDR_MAX + 3] = 0x7f;
	im[HDR_CMDLINE_SIZE] = 0xff;
	im[HDR_CMDLINE_SIZE + 1] = 0x07;
	im[3 * 512] = 0xc3;
	return im;
}

static uint32_t item32(struct fw_cfg *f, uint16_t key)
{
	ck_assert_uint_eq(f->generic[key].len, 4);
	const uint8_t *p = f->generic[key].data;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* boot.rst "Details of header fields" and "Sample boot configuration": the
 * setup code split off ((setup_sects + 1) sectors) with type_of_loader,
 * CAN_USE_HEAP, heap_end_ptr, cmd_line_ptr and the ramdisk fields filled in;
 * the initrd page-aligned under RAM's top less the firmware's area; the ROM
 * and bootorder files. */
static unsigned hook_calls;
static uint16_t hook_key;

static void on_select(void *opaque, uint16_t key)
{
	struct fw_cfg *f = opaque;
	hook_calls++;
	hook_key = key;
	/* The owner refreshes the item the firmware is about to read. */
	ck_assert(fw_cfg_set_file(f, "etc/x", "new!", 4));
}

/* The select hook runs before every selection, through the ports and DMA,
 * and a file replaced there is what the read returns; the directory shows
 * the new size. */
START_TEST(select_hook_refreshes)
{
	struct rig r;
	rig_up(&r);
	ck_assert(fw_cfg_add_file(&r.f, "etc/x", "old", 3));
	ck_assert(fw_cfg_set_file(&r.f, "etc/y", "y", 1));       /* set_file adds a new name */
	ck_assert_uint_eq(r.f.n_files, 2);
	r.f.on_select = on_select;
	r.f.on_select_opaque = &r.f;
	iobus_write(&r.io, FW_CFG_PORT_SELECTOR, 2, FW_CFG_FILE_FIRST);
	ck_assert_uint_eq(hook_calls, 1);
	ck_assert_uint_eq(hook_key, FW_CFG_FILE_FIRST);
	char got[4];
	for (unsigned i = 0; i < 4; i++)
		got[i] = (char)iobus_read(&r.io, FW_CFG_PORT_DATA, 1);
	ck_assert_mem_eq(got, "new!", 4);
	ck_assert_uint_eq(dma(&r.io, &r.pm, (uint32_t)FW_CFG_FILE_DIR << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_READ, 8,
			      BUF), 0);
	ck_assert_uint_eq(hook_calls, 2);
	ck_assert_uint_eq(hook_key, FW_CFG_FILE_DIR);
	ck_assert_uint_eq(be32_at(&r.pm, BUF + 4), 4);            /* etc/x's size, after the refresh */
	rig_down(&r);
}
END_TEST

START_TEST(linux_items)
{
	struct fw_cfg f;
	fw_cfg_init(&f);
	size_t size;
	uint8_t *im = fake_bzimage(&size);
	uint8_t rd[5000] = { 1 };
	char err[256];
	ck_assert(fw_cfg_add_linux(&f, 64u << 20, im, size, rd, sizeof(rd), "console=ttyS0", (const uint8_t *)"ROM",
				   3, err, sizeof(err)));
	ck_assert_uint_eq(item32(&f, FW_CFG_SETUP_ADDR), 0x10000);
	ck_assert_uint_eq(item32(&f, FW_CFG_SETUP_SIZE), 3 * 512);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_ADDR), 0x100000);
	ck_assert_uint_eq(item32(&f, FW_CFG_KERNEL_SIZE), 4096);
	ck_assert_uint_eq(f.generic[FW_CFG_KERNEL_DATA].data[0], 0xc3);
	ck_assert_uint_eq(item32(&f, FW_CFG_CMDLINE_ADDR), 0x20000);
	ck_assert_uint_eq(item32(&f, FW_CFG_CMDLINE_SIZE), 14);
	ck_assert_str_eq((const char *)f.generic[FW_CFG_CMDLINE_DATA].data, "console=ttyS0");
	uint32_t rd_at = item32(&f, FW_CFG_INITRD_ADDR);
	ck_assert_uint_eq(rd_at, ((64u << 20) - 0x100000 - sizeof(rd)) & ~0xfffu);
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_SIZE), sizeof(rd));

	const uint8_t *s = f.generic[FW_CFG_SETUP_DATA].data;
	ck_assert_uint_eq(s[HDR_TYPE_OF_LOADER], LOADER_TYPE_UNDEFINED);
	ck_assert_uint_eq(s[HDR_LOADFLAGS], LOADFLAGS_LOADED_HIGH | 0x80);
	ck_assert_uint_eq(s[HDR_HEAP_END_PTR] | s[HDR_HEAP_END_PTR + 1] << 8, 0xfe00);
	ck_assert_uint_eq(s[HDR_CMD_LINE_PTR + 2], 0x02);                       /* 20000H */
	ck_assert_uint_eq(s[HDR_RAMDISK_IMAGE] | s[HDR_RAMDISK_IMAGE + 1] << 8 | s[HDR_RAMDISK_IMAGE + 2] << 16 |
			  (uint32_t)s[HDR_RAMDISK_IMAGE + 3] << 24, rd_at);
	ck_assert_uint_eq(im[HDR_LOADFLAGS], LOADFLAGS_LOADED_HIGH);            /* the file is not changed */

	ck_assert_uint_eq(f.n_files, 2);
	ck_assert_str_eq(f.file_name[0], "bootorder");
	ck_assert_str_eq(f.file_name[1], FW_CFG_LINUX_ROM_NAME);
	ck_assert_mem_eq(f.generic[FW_CFG_FILE_FIRST].data, "/rom@genroms/linuxboot_dma.bin\n", 31);
	fw_cfg_destroy(&f);

	/* Too old a protocol, a command line past cmdline_size. */
	fw_cfg_init(&f);
	im[HDR_VERSION] = 0x01;
	ck_assert(!fw_cfg_add_linux(&f, 64u << 20, im, size, NULL, 0, "", (const uint8_t *)"R", 1, err, sizeof(err)));
	im[HDR_VERSION] = 0x0f;
	im[HDR_CMDLINE_SIZE + 1] = 0;
	im[HDR_CMDLINE_SIZE] = 3;
	ck_assert(!fw_cfg_add_linux(&f, 64u << 20, im, size, NULL, 0, "abcd", (const uint8_t *)"R", 1, err,
				    sizeof(err)));
	ck_assert(fw_cfg_add_linux(&f, 64u << 20, im, size, NULL, 0, "abc", (const uint8_t *)"R", 1, err, sizeof(err)));
	ck_assert_uint_eq(item32(&f, FW_CFG_INITRD_SIZE), 0);
	fw_cfg_destroy(&f);
	free(im);
}
END_TEST


/* ---- the i440FX/PIIX platform SeaBIOS probes ---- */

static uint32_t cfg_read(struct iobus *io, unsigned dev, unsigned fn, unsigned reg, unsigned size)
{
	iobus_write(io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | dev << 11 | fn << 8 | (reg & 0xfc));
	return iobus_read(io, (uint16_t)(PCI_CONFIG_DATA + (reg & 3)), size);
}

static void cfg_write(struct iobus *io, unsigned dev, unsigned fn, unsigned reg, unsigned size, uint32_t v)
{
	iobus_write(io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | dev << 11 | fn << 8 | (reg & 0xfc));
	iobus_write(io, (uint16_t)(PCI_CONFIG_DATA + (reg & 3)), size, v);
}

/* Bus 0 with the i440FX alone, reached through CF8h/CFCh on io. */
static void i440fx_alone(struct pci_host *h, struct iobus *io)
{
	iobus_init(io);
	pci_host_init(h, NULL, NULL);
	ck_assert(pci_add_i440fx(h));
	ck_assert(pci_host_register(h, io));
}

/* 82441FX datasheet 3.2.18: PAM0 bits 5:4 the F-segment, PAM1-6 a field per
 * 16 KiB from C0000h (low nibble the lower half of each 32 KiB), RE bit 0, WE
 * bit 1, reset 00h (all to PCI), reserved bits read 0; outside C0000h-FFFFFh
 * everything is DRAM. */
START_TEST(pam_decoding)
{
	struct pci_host h;
	struct iobus io;
	i440fx_alone(&h, &io);
	const uint8_t *config = h.fn[0].config;
	for (uint32_t pa = 0xc0000; pa < 0x100000; pa += 0x4000)
		ck_assert_uint_eq(i440fx_pam_attr(config, pa), 0);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xbffff), PAM_RE | PAM_WE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0x100000), PAM_RE | PAM_WE);

	cfg_write(&io, 0, 0, I440FX_PAM0, 1, 0xff);        /* bits 3:0 and 7:6 reserved */
	ck_assert_uint_eq(cfg_read(&io, 0, 0, I440FX_PAM0, 1), 0x30);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xf0000), PAM_RE | PAM_WE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xfffff), PAM_RE | PAM_WE);
	cfg_write(&io, 0, 0, I440FX_PAM0, 1, 0x10);        /* read-only: SeaBIOS's last step */
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xffff0), PAM_RE);

	cfg_write(&io, 0, 0, 0x5a, 1, 0xfe);               /* PAM1: C0000h WE, C4000h RE|WE */
	ck_assert_uint_eq(cfg_read(&io, 0, 0, 0x5a, 1), 0x32);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xc0000), PAM_WE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xc3fff), PAM_WE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xc4000), PAM_RE | PAM_WE);
	cfg_write(&io, 0, 0, 0x5f, 1, 0x10);               /* PAM6: EC000h RE */
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xe8000), 0);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xec000), PAM_RE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xeffff), PAM_RE);
	/* A doubleword write reaches PAM3-PAM6 at once (5Ch-5Fh). */
	cfg_write(&io, 0, 0, 0x5c, 4, 0x33333333u);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xd0000), PAM_RE | PAM_WE);
	ck_assert_uint_eq(i440fx_pam_attr(config, 0xec000), PAM_RE | PAM_WE);
}
END_TEST

/* 82441FX datasheet 3.2.23: SMRAM resets to 02h, C_BASE_SEG read-only; D_LCK
 * clears D_OPEN and locks D_OPEN, G_SMRAME and itself, D_CLS stays writable. */
START_TEST(smram_lock)
{
	struct pci_host h;
	struct iobus io;
	i440fx_alone(&h, &io);
	ck_assert_uint_eq(cfg_read(&io, 0, 0, I440FX_SMRAM, 1), 0x02);
	cfg_write(&io, 0, 0, I440FX_SMRAM, 1, SMRAM_D_OPEN | SMRAM_G_SMRAME | 0x05);
	ck_assert_uint_eq(cfg_read(&io, 0, 0, I440FX_SMRAM, 1), SMRAM_D_OPEN | SMRAM_G_SMRAME | 0x02);
	cfg_write(&io, 0, 0, I440FX_SMRAM, 1, SMRAM_D_OPEN | SMRAM_G_SMRAME | SMRAM_D_LCK);
	ck_assert_uint_eq(cfg_read(&io, 0, 0, I440FX_SMRAM, 1), SMRAM_G_SMRAME | SMRAM_D_LCK | 0x02);
	cfg_write(&io, 0, 0, I440FX_SMRAM, 1, SMRAM_D_OPEN | SMRAM_D_CLS);
	ck_assert_uint_eq(cfg_read(&io, 0, 0, I440FX_SMRAM, 1),
			  SMRAM_G_SMRAME | SMRAM_D_LCK | SMRAM_D_CLS | 0x02);
}
END_TEST

/* PIIX3 datasheet 2.2: 8086h:7000h, class 060100h, HEDT 80h (multi-function:
 * function 3 is looked for), PIRQRC[A:D] reset 80h with bits 7 and 3:0
 * writable; the PIIX4 PM function 00:01.3 behind it with DEVACTB.APMC_EN set
 * and its I/O block following PMBA. */
START_TEST(piix_functions)
{
	struct pci_host h;
	struct iobus io;
	struct vclock clock;
	struct piix4_pm pm;
	memset(&pm, 0, sizeof(pm));
	vclock_init(&clock, 1000000000);
	iobus_init(&io);
	pci_host_init(&h, NULL, NULL);
	ck_assert(pci_add_i440fx(&h));
	ck_assert(piix3_isa_attach(&h));
	piix4_pm_init(&pm, &clock, NULL, (struct irq_line){ 0 });
	ck_assert(piix4_pm_attach(&pm, &h, &io));
	ck_assert(pci_host_register(&h, &io));
	ck_assert_uint_eq(cfg_read(&io, 1, 0, PCI_VENDOR_ID, 4), 0x70008086u);
	ck_assert_uint_eq(cfg_read(&io, 1, 0, PCI_CLASS_DEVICE, 2), 0x0601);
	ck_assert_uint_eq(cfg_read(&io, 1, 0, PCI_HEADER_TYPE, 1), 0x80);
	ck_assert_uint_eq(cfg_read(&io, 1, 0, PIIX3_PIRQRC, 4), 0x80808080u);
	cfg_write(&io, 1, 0, PIIX3_PIRQRC, 4, 0x0b0b7a0au);
	ck_assert_uint_eq(cfg_read(&io, 1, 0, PIIX3_PIRQRC, 4), 0x0b0b0a0au);
	ck_assert_uint_eq(cfg_read(&io, 1, 1, PCI_VENDOR_ID, 2), 0xffff);     /* no IDE function */
	ck_assert_uint_eq(cfg_read(&io, 1, 3, PCI_DEVICE_ID, 2), 0x7113);
	ck_assert_uint_eq(cfg_read(&io, 1, 3, PIIX4_DEVACTB, 4) >> 25 & 1, 1);

	/* The PM timer at PMBA+8 answers where PMBA says. */
	ck_assert_uint_ne(iobus_read(&io, PIIX4_PM_BASE + 8, 4), 0xffffffffu);
	cfg_write(&io, 1, 3, PIIX4_PMBA, 4, 0xb001);
	ck_assert_uint_eq(cfg_read(&io, 1, 3, PIIX4_PMBA, 4), 0xb001);
	ck_assert_uint_eq(iobus_read(&io, PIIX4_PM_BASE + 8, 4), 0xffffffffu);
	ck_assert_uint_lt(iobus_read(&io, 0xb008, 4), 1u << 24);
	/* Registers by their offset from the moved base: PM1_CNT's SCI_EN. */
	ck_assert_uint_eq(iobus_read(&io, 0xb004, 2) & 1, 1);
	cfg_write(&io, 1, 3, PIIX4_PMBA, 4, 0x0601);
	ck_assert_uint_eq(iobus_read(&io, PIIX4_PM_BASE + 4, 2) & 1, 1);
	ck_assert_uint_lt(iobus_read(&io, PIIX4_PM_BASE + 8, 4), 1u << 24);
	ck_assert_uint_eq(iobus_read(&io, 0xb008, 4), 0xffffffffu);
}
END_TEST

static Suite *firmware_suite(void)
{
	Suite *s = suite_create("firmware");
	TCase *dmat = tcase_create("fw_cfg_dma");
	tcase_add_test(dmat, dma_signature);
	tcase_add_test(dmat, dma_transfers);
	tcase_add_test(dmat, dma_file_directory);
	tcase_add_test(dmat, select_hook_refreshes);
	suite_add_tcase(s, dmat);
	TCase *lx = tcase_create("fw_cfg_linux");
	tcase_add_test(lx, linux_items);
	suite_add_tcase(s, lx);
	TCase *plat = tcase_create("platform");
	tcase_add_test(plat, pam_decoding);
	tcase_add_test(plat, smram_lock);
	tcase_add_test(plat, piix_functions);
	suite_add_tcase(s, plat);
	return s;
}

int main(void)
{
	return run_suite(firmware_suite());
}
