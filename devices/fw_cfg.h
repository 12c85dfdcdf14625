/* QEMU's firmware configuration device (QEMU docs/specs/fw_cfg.rst), the
 * traditional interface at the x86 ports: a 16-bit selector written at 0x510
 * picks an item and resets the data offset; each byte read at 0x511 returns
 * the item's next byte, and 0 once the offset has passed its end. Bit 15 of
 * the selector picks the architecture-specific items, bit 14 (the old write
 * flag) is ignored: items are read-only. The DMA interface (fw_cfg.rst "DMA
 * interface") at 0x514-0x51B when fw_cfg_register_dma() gives it guest
 * memory: the 64-bit big-endian address of a FWCfgDmaAccess structure, high
 * half at 0x514, low half at 0x518 (writing it starts the transfer); reading
 * the register returns the signature "QEMU CFG". The ID item's bit 1 says so
 * (the machine sets it).
 *
 * The items hvemu's machine fills (machine/pc_boot.c): the signature "QEMU", the
 * ID (traditional interface only), a null UUID, the RAM size, the CPU count and
 * maximum (FW_CFG_NB_CPUS, FW_CFG_MAX_CPUS), and the file directory with the
 * files in it. */
#ifndef HVEMU_DEVICES_FW_CFG_H
#define HVEMU_DEVICES_FW_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/bus.h"

#define FW_CFG_PORT_SELECTOR 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_PORT_DMA 0x514      /* 8 bytes: DMA address, big-endian */
#define FW_CFG_DMA_SIGNATURE "QEMU CFG"

/* FWCfgDmaAccess.control (fw_cfg.rst "DMA interface"): the operation bits,
 * the selector in bits 31:16 with SELECT; 0 when done, ERROR on failure. */
enum {
	FW_CFG_DMA_ERROR = 1u << 0, FW_CFG_DMA_READ = 1u << 1, FW_CFG_DMA_SKIP = 1u << 2,
	FW_CFG_DMA_SELECT = 1u << 3, FW_CFG_DMA_WRITE = 1u << 4,
};

/* Selector keys (QEMU include/standard-headers/linux/qemu_fw_cfg.h). */
enum {
	FW_CFG_SIGNATURE = 0x00,   /* "QEMU" */
	FW_CFG_ID = 0x01,          /* 32-bit LE feature bitmap */
	FW_CFG_UUID = 0x02,        /* 16 bytes */
	FW_CFG_RAM_SIZE = 0x03,    /* 64-bit LE, bytes */
	FW_CFG_NB_CPUS = 0x05,     /* 16-bit LE: CPUs present at start-up */
	FW_CFG_KERNEL_ADDR = 0x07, /* 32-bit LE: where the protected-mode kernel goes */
	FW_CFG_KERNEL_SIZE = 0x08,
	FW_CFG_KERNEL_CMDLINE = 0x09,  /* 32-bit LE: the command line's address (old name) */
	FW_CFG_INITRD_ADDR = 0x0a,
	FW_CFG_INITRD_SIZE = 0x0b,
	FW_CFG_BOOT_DEVICE = 0x0c,
	FW_CFG_MAX_CPUS = 0x0f,    /* 16-bit LE: CPUs the machine can have */
	FW_CFG_KERNEL_ENTRY = 0x10,
	FW_CFG_KERNEL_DATA = 0x11, /* the protected-mode kernel's bytes */
	FW_CFG_INITRD_DATA = 0x12,
	FW_CFG_CMDLINE_ADDR = 0x13,
	FW_CFG_CMDLINE_SIZE = 0x14,   /* NUL included */
	FW_CFG_CMDLINE_DATA = 0x15,
	FW_CFG_SETUP_ADDR = 0x16,  /* the real-mode setup code's address */
	FW_CFG_SETUP_SIZE = 0x17,
	FW_CFG_SETUP_DATA = 0x18,
	FW_CFG_FILE_DIR = 0x19,    /* the file directory */
	FW_CFG_FILE_FIRST = 0x20,  /* the first file's key */
	FW_CFG_WRITE_CHANNEL = 0x4000,
	FW_CFG_ARCH_LOCAL = 0x8000,
	FW_CFG_ENTRY_MASK = 0x3fff,
};

enum { FW_CFG_ID_TRADITIONAL = 1u << 0, FW_CFG_ID_DMA = 1u << 1 };

#define FW_CFG_MAX_FILES 16
#define FW_CFG_FILE_NAME_MAX 56    /* NUL included (struct FWCfgFile) */
#define FW_CFG_FILE_ENTRY_SIZE 64  /* size(4, BE) select(2, BE) reserved(2) name(56) */
#define FW_CFG_GENERIC_ITEMS (FW_CFG_FILE_FIRST + FW_CFG_MAX_FILES)

struct fw_cfg_item {
	uint8_t *data;             /* owned copy, or NULL for an empty item */
	uint32_t len;
};

struct fw_cfg {
	uint16_t selector;         /* as last written */
	uint32_t offset;           /* next byte of the selected item */
	struct fw_cfg_item generic[FW_CFG_GENERIC_ITEMS];
	/* The file directory: names in strcmp order (as QEMU keeps them), file i
	 * at key FW_CFG_FILE_FIRST + i. */
	char file_name[FW_CFG_MAX_FILES][FW_CFG_FILE_NAME_MAX];
	unsigned n_files;
	struct physmem *dma_mem;   /* guest memory for the DMA interface, or NULL: none */
	uint32_t dma_high;         /* the address register's high half, as written */
	uint64_t dma_count;        /* transfers started */
	/* Called with the key about to be selected (NULL: nothing to do): an
	 * owner whose items describe state the firmware changes refreshes them
	 * here, as QEMU rebuilds its ACPI tables when the firmware reads them. */
	void (*on_select)(void *opaque, uint16_t key);
	void *on_select_opaque;
};

void fw_cfg_init(struct fw_cfg *f);
void fw_cfg_destroy(struct fw_cfg *f);
/* Set item key (below FW_CFG_FILE_FIRST) to a copy of len bytes. False if the
 * key is not a fixed generic item or memory runs out. */
bool fw_cfg_add_bytes(struct fw_cfg *f, uint16_t key, const void *data, uint32_t len);
bool fw_cfg_add_i16(struct fw_cfg *f, uint16_t key, uint16_t v);
bool fw_cfg_add_i32(struct fw_cfg *f, uint16_t key, uint32_t v);
bool fw_cfg_add_i64(struct fw_cfg *f, uint16_t key, uint64_t v);
/* Add a named file (a copy of len bytes) to the directory, keeping it sorted;
 * the keys of files after it move up by one. False if the name is empty or too
 * long, already there, the directory is full or memory runs out. */
bool fw_cfg_add_file(struct fw_cfg *f, const char *name, const void *data, uint32_t len);
/* The file's contents, replaced (the directory shows the new size), or
 * added when there is no such file yet. */
bool fw_cfg_set_file(struct fw_cfg *f, const char *name, const void *data, uint32_t len);
/* Replace an item's bytes with a copy of len bytes (machine snapshots put
 * back the items a firmware's on_select changed). False, it unchanged, if
 * memory runs out. */
bool fw_cfg_item_set(struct fw_cfg_item *it, const void *data, uint32_t len);
/* Ports 0x510-0x511. */
bool fw_cfg_register(struct fw_cfg *f, struct iobus *io);
/* The DMA interface at 0x514-0x51B, transferring to and from pm. */
bool fw_cfg_register_dma(struct fw_cfg *f, struct iobus *io, struct physmem *pm);
/* Run the FWCfgDmaAccess at guest-physical addr (what a write of its low half
 * to 0x518 does): exposed for the tests. */
void fw_cfg_dma(struct fw_cfg *f, uint64_t addr);

#endif
