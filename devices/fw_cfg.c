/* QEMU's fw_cfg device, traditional I/O interface; see devices/fw_cfg.h. */
#include "devices/fw_cfg.h"

#include <stdlib.h>
#include <string.h>

void fw_cfg_init(struct fw_cfg *f)
{
	memset(f, 0, sizeof(*f));
}

void fw_cfg_destroy(struct fw_cfg *f)
{
	for (unsigned i = 0; i < FW_CFG_GENERIC_ITEMS; i++)
		free(f->generic[i].data);
	memset(f, 0, sizeof(*f));
}

bool fw_cfg_item_set(struct fw_cfg_item *it, const void *data, uint32_t len)
{
	uint8_t *copy = NULL;
	if (len) {
		copy = malloc(len);
		if (!copy)
			return false;
		memcpy(copy, data, len);
	}
	free(it->data);
	it->data = copy;
	it->len = len;
	return true;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* FW_CFG_FILE_DIR (fw_cfg.rst "File Directory"): a big-endian count, then one
 * 64-byte entry per file: size and selector big-endian, the NUL-padded name. */
static bool rebuild_directory(struct fw_cfg *f)
{
	uint8_t dir[4 + FW_CFG_MAX_FILES * FW_CFG_FILE_ENTRY_SIZE];
	memset(dir, 0, sizeof(dir));
	put_be32(dir, f->n_files);
	for (unsigned i = 0; i < f->n_files; i++) {
		uint8_t *e = dir + 4 + i * FW_CFG_FILE_ENTRY_SIZE;
		uint16_t key = (uint16_t)(FW_CFG_FILE_FIRST + i);
		put_be32(e, f->generic[key].len);
		e[4] = (uint8_t)(key >> 8);
		e[5] = (uint8_t)key;
		memcpy(e + 8, f->file_name[i], strlen(f->file_name[i]));
	}
	return fw_cfg_item_set(&f->generic[FW_CFG_FILE_DIR], dir, 4 + f->n_files * FW_CFG_FILE_ENTRY_SIZE);
}

bool fw_cfg_add_bytes(struct fw_cfg *f, uint16_t key, const void *data, uint32_t len)
{
	if (key >= FW_CFG_FILE_FIRST || key == FW_CFG_FILE_DIR)
		return false;
	return fw_cfg_item_set(&f->generic[key], data, len);
}

bool fw_cfg_add_i16(struct fw_cfg *f, uint16_t key, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	return fw_cfg_add_bytes(f, key, b, sizeof(b));
}

bool fw_cfg_add_i32(struct fw_cfg *f, uint16_t key, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return fw_cfg_add_bytes(f, key, b, sizeof(b));
}

bool fw_cfg_add_i64(struct fw_cfg *f, uint16_t key, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return fw_cfg_add_bytes(f, key, b, sizeof(b));
}

bool fw_cfg_add_file(struct fw_cfg *f, const char *name, const void *data, uint32_t len)
{
	size_t n = strlen(name);
	if (n == 0 || n >= FW_CFG_FILE_NAME_MAX || f->n_files == FW_CFG_MAX_FILES)
		return false;
	unsigned at = 0;
	while (at < f->n_files && strcmp(f->file_name[at], name) < 0)
		at++;
	if (at < f->n_files && strcmp(f->file_name[at], name) == 0)
		return false;
	struct fw_cfg_item item = { 0 };
	if (!fw_cfg_item_set(&item, data, len))
		return false;
	/* Make room: the files after `at` move to the next key. */
	for (unsigned i = f->n_files; i > at; i--) {
		memcpy(f->file_name[i], f->file_name[i - 1], FW_CFG_FILE_NAME_MAX);
		f->generic[FW_CFG_FILE_FIRST + i] = f->generic[FW_CFG_FILE_FIRST + i - 1];
	}
	memset(f->file_name[at], 0, FW_CFG_FILE_NAME_MAX);
	memcpy(f->file_name[at], name, n);
	f->generic[FW_CFG_FILE_FIRST + at] = item;
	f->n_files++;
	return rebuild_directory(f);
}

bool fw_cfg_set_file(struct fw_cfg *f, const char *name, const void *data, uint32_t len)
{
	for (unsigned i = 0; i < f->n_files; i++)
		if (!strcmp(f->file_name[i], name))
			return fw_cfg_item_set(&f->generic[FW_CFG_FILE_FIRST + i], data, len) && rebuild_directory(f);
	return fw_cfg_add_file(f, name, data, len);
}

/* The selected item: none for architecture-specific keys (hvemu has none) or
 * keys past the table, which read as an empty item. */
static const struct fw_cfg_item *selected(const struct fw_cfg *f)
{
	unsigned index = f->selector & FW_CFG_ENTRY_MASK;
	if ((f->selector & FW_CFG_ARCH_LOCAL) || index >= FW_CFG_GENERIC_ITEMS)
		return NULL;
	return &f->generic[index];
}

/* Select key, the data offset back to 0; the owner may bring the item up
 * to date first. */
static void select_item(struct fw_cfg *f, uint16_t key)
{
	if (f->on_select)
		f->on_select(f->on_select_opaque, key);
	f->selector = key;
	f->offset = 0;
}

/* fw_cfg.rst: the selector register is 16 bits wide at 0x510; writing it
 * selects an item and sets the data offset to zero. The data register is 8
 * bits wide at 0x511; each read returns the next byte. What the document
 * leaves open follows QEMU (hw/nvram/fw_cfg.c, the x86 "comb" region): the
 * two ports decode as one, so a byte read of 0x510 reads data too; byte
 * writes are data writes, which are ignored (since QEMU 2.4); other widths do
 * nothing and read all ones. */
static uint32_t fw_cfg_read(void *opaque, uint16_t port, unsigned size)
{
	struct fw_cfg *f = opaque;
	(void)port;
	if (size != 1)
		return 0xffffffffu;
	const struct fw_cfg_item *it = selected(f);
	if (!it || f->offset >= it->len)
		return 0;          /* past the end: 0x00 */
	return it->data[f->offset++];
}

static void fw_cfg_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct fw_cfg *f = opaque;
	(void)port;
	if (size != 2)
		return;
	select_item(f, (uint16_t)value);
}

static const struct pio_ops fw_cfg_ops = { .read = fw_cfg_read, .write = fw_cfg_write };

bool fw_cfg_register(struct fw_cfg *f, struct iobus *io)
{
	return iobus_register(io, FW_CFG_PORT_SELECTOR, 2, &fw_cfg_ops, f, "fw_cfg");
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* fw_cfg.rst "DMA interface": the FWCfgDmaAccess structure is control,
 * length (both be32) and address (be64). With SELECT the selector in control
 * bits 31:16 is selected first (the offset back to 0); then READ copies length
 * bytes of the item from the offset to address (past the item's end as zeros,
 * as QEMU fills them), SKIP advances the offset, WRITE is refused (items are
 * read-only here: ERROR). The control field is written back as 0 when the
 * transfer is done, or with ERROR set. */
void fw_cfg_dma(struct fw_cfg *f, uint64_t addr)
{
	f->dma_count++;
	uint8_t d[16];
	physmem_read_bytes(f->dma_mem, addr, d, sizeof(d));
	uint32_t control = get_be32(d), length = get_be32(d + 4);
	uint64_t target = (uint64_t)get_be32(d + 8) << 32 | get_be32(d + 12);
	if (control & FW_CFG_DMA_SELECT)
		select_item(f, (uint16_t)(control >> 16));
	uint32_t result = 0;
	if (control & FW_CFG_DMA_WRITE) {
		result = FW_CFG_DMA_ERROR;
	} else if (control & (FW_CFG_DMA_READ | FW_CFG_DMA_SKIP)) {
		const struct fw_cfg_item *it = selected(f);
		uint32_t have = it && f->offset < it->len ? it->len - f->offset : 0;
		uint32_t n = length < have ? length : have;
		if (control & FW_CFG_DMA_READ) {
			if (n)
				physmem_write_bytes(f->dma_mem, target, it->data + f->offset, n);
			static const uint8_t zeros[256];
			for (uint32_t done = n; done < length;) {
				uint32_t k = length - done < sizeof(zeros) ? length - done : (uint32_t)sizeof(zeros);
				physmem_write_bytes(f->dma_mem, target + done, zeros, k);
				done += k;
			}
		}
		f->offset += length;   /* may pass the end: later reads give zeros */
		if (f->offset < length) /* wrapped */
			f->offset = UINT32_MAX;
	}
	uint8_t out[4] = { (uint8_t)(result >> 24), (uint8_t)(result >> 16), (uint8_t)(result >> 8),
			   (uint8_t)result };
	physmem_write_bytes(f->dma_mem, addr, out, sizeof(out));
}

static uint32_t bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

/* The address register reads as the signature, byte i of "QEMU CFG" at port
 * 0x514 + i (the bytes in order, as the big-endian register holds them). */
static uint32_t dma_read(void *opaque, uint16_t port, unsigned size)
{
	(void)opaque;
	unsigned at = port - FW_CFG_PORT_DMA;
	uint32_t v = 0;
	for (unsigned i = 0; i < size && at + i < 8; i++)
		v |= (uint32_t)(uint8_t)FW_CFG_DMA_SIGNATURE[at + i] << (8 * i);
	return v;
}

/* 32-bit writes of the big-endian halves: the port delivers the bytes in
 * address order, so the register's value is the byte-swapped port value. */
static void dma_write(void *opaque, uint16_t port, unsigned size, uint32_t value)
{
	struct fw_cfg *f = opaque;
	if (size != 4)
		return;
	if (port == FW_CFG_PORT_DMA) {
		f->dma_high = bswap32(value);
	} else if (port == FW_CFG_PORT_DMA + 4) {
		uint64_t addr = (uint64_t)f->dma_high << 32 | bswap32(value);
		f->dma_high = 0;
		fw_cfg_dma(f, addr);
	}
}

static const struct pio_ops dma_ops = { .read = dma_read, .write = dma_write };

bool fw_cfg_register_dma(struct fw_cfg *f, struct iobus *io, struct physmem *pm)
{
	f->dma_mem = pm;
	return iobus_register(io, FW_CFG_PORT_DMA, 8, &dma_ops, f, "fw_cfg-dma");
}
