/* Physical address space and I/O-port space of the emulated machine.
 *
 * A device is a struct + read/write callbacks + a registration. Guest RAM is one
 * host allocation, reached directly through physmem_ram_ptr(); everything else in
 * the physical address space is an MMIO region (ROM included) or unclaimed
 * (reads as all ones, writes ignored — what an ISA/PCI bus does on a master abort).
 */
#ifndef HVEMU_DEVICES_BUS_H
#define HVEMU_DEVICES_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BUS_MAX_MMIO 32
#define BUS_MAX_PIO  64

/* Access callbacks. size is 1, 2, 4 or 8 bytes; little-endian values. */
struct mmio_ops {
	uint64_t (*read)(void *opaque, uint64_t offset, unsigned size);
	void (*write)(void *opaque, uint64_t offset, unsigned size, uint64_t value);
};

struct pio_ops {
	uint32_t (*read)(void *opaque, uint16_t port, unsigned size);
	void (*write)(void *opaque, uint16_t port, unsigned size, uint32_t value);
};

struct mmio_region {
	uint64_t base, size;
	const struct mmio_ops *ops;
	void *opaque;
	const char *name;
	uint8_t *rom;              /* non-NULL: read-only bytes, served without callbacks */
};

struct pio_range {
	uint16_t first, count;
	const struct pio_ops *ops;
	void *opaque;
	const char *name;
};

struct physmem {
	uint8_t *ram;              /* guest-physical [0, ram_size) */
	uint64_t ram_size;
	void *ram_map;             /* the mapping ram lies in, and its size */
	size_t ram_map_size;
	struct mmio_region mmio[BUS_MAX_MMIO];
	unsigned n_mmio;
	/* Called after every write that reaches RAM through physmem_write() or a
	 * device, so the CPU can drop decoded instructions of that page. */
	void (*on_ram_write)(void *opaque, uint64_t pa, unsigned size);
	void *on_ram_write_opaque;
};

/* A machine with at least this much RAM keeps its RAM and its decoded-code
 * cache (emu/icache.c) in memory the host kernel may back with 2 MiB pages
 * (madvise MADV_HUGEPAGE, as QEMU does with its RAM): with 4 KiB ones every
 * page a guest touches first is a host page fault, and every later access
 * may need a host TLB entry of its own; page-walk-heavy guests touch
 * thousands of pages. Smaller machines (unit tests, fuzz harnesses, made by
 * the thousand) touch a few pages each and would have the host zero 2 MiB
 * for each instead. */
#define HUGE_PAGES_FROM_RAM (64ull << 20)

/* An I/O port access on the PC's LPC/ISA bus takes about a microsecond of the
 * CPU's time: the reason Linux's io_delay writes port 80h to wait that long;
 * a read of the chipset's memory-mapped registers (HPET, I/O APIC) about as
 * long. hvemu charges each IN and OUT that reaches the bus (emu/io.c) and each
 * data access to a device's MMIO registers or unclaimed space (emu/memory.c;
 * not RAM, ROM or the CPU's own local APIC) this much virtual time, so a guest
 * polling a device reads it as often per virtual second as on hardware.
 * String I/O iterations are burst transfers: one tick each. */
#define IO_BUS_CYCLE_NS 1000u

struct iobus {
	struct pio_range ranges[BUS_MAX_PIO];
	unsigned n_ranges;
	void (*trace)(void *opaque, uint16_t port, unsigned size, bool is_write, uint32_t value);
	void *trace_opaque;
};

/* Move the range registered with (ops, opaque) to start at first (a BAR or
 * a base register reprogrammed). False, leaving it where it was, if the new
 * place overlaps another range or runs past FFFFh. */
bool iobus_move(struct iobus *io, const struct pio_ops *ops, const void *opaque, uint16_t first);

/* ram_size in bytes, multiple of 4 KiB. Returns false (errno set) if allocation fails. */
bool physmem_init(struct physmem *pm, uint64_t ram_size);
void physmem_destroy(struct physmem *pm);

/* Host pointer to guest RAM at pa, valid for the rest of its 4 KiB page, or NULL
 * when pa is not RAM (MMIO, ROM or unclaimed). The CPU's TLB caches these. */
static inline uint8_t *physmem_ram_ptr(struct physmem *pm, uint64_t pa)
{
	return pa < pm->ram_size ? pm->ram + pa : NULL;
}

/* Returns false on overlap with RAM or another region, or when the table is full. */
bool physmem_add_mmio(struct physmem *pm, uint64_t base, uint64_t size,
		      const struct mmio_ops *ops, void *opaque, const char *name);
/* Read-only image (BIOS). The bytes are copied. */
bool physmem_add_rom(struct physmem *pm, uint64_t base, const void *bytes, uint64_t size,
		     const char *name);

/* Slow-path accesses of size 1..8 that may span RAM/MMIO; never fail. */
uint64_t physmem_read(struct physmem *pm, uint64_t pa, unsigned size);
void physmem_write(struct physmem *pm, uint64_t pa, unsigned size, uint64_t value);
/* Is pa a device's registers or unclaimed space, neither RAM nor ROM? An
 * access there is a bus cycle (IO_BUS_CYCLE_NS). */
bool physmem_is_device(struct physmem *pm, uint64_t pa);
/* Bulk copies (loader, DMA); bytes outside RAM go through the slow path. */
void physmem_read_bytes(struct physmem *pm, uint64_t pa, void *dst, size_t len);
void physmem_write_bytes(struct physmem *pm, uint64_t pa, const void *src, size_t len);

void iobus_init(struct iobus *io);
/* Returns false on overlap or a full table. */
bool iobus_register(struct iobus *io, uint16_t first, uint16_t count,
		    const struct pio_ops *ops, void *opaque, const char *name);
/* Unclaimed ports read as all ones (size bytes of 0xff) and ignore writes. */
uint32_t iobus_read(struct iobus *io, uint16_t port, unsigned size);
void iobus_write(struct iobus *io, uint16_t port, unsigned size, uint32_t value);

#endif
