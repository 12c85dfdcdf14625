/* Physical address space (RAM + MMIO/ROM regions) and the port I/O bus.
 * See devices/bus.h for the contract. Accesses that straddle a boundary between
 * RAM, a region and unclaimed space are split into bytes, so every byte is
 * served by whatever sits at its own address. */
#include "devices/bus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

bool physmem_init(struct physmem *pm, uint64_t ram_size)
{
	memset(pm, 0, sizeof(*pm));
	if (ram_size == 0 || (ram_size & 0xfff) || ram_size > SIZE_MAX) {
		errno = EINVAL;
		return false;
	}
	/* Zero-filled (RAM at power-on, in this model) anonymous memory, RAM at
	 * a 2 MiB boundary of it, so that each 2 MiB of guest-physical memory
	 * can be one host page (HUGE_PAGES_FROM_RAM). */
	const size_t huge = 2u << 20;
	bool want_huge = ram_size >= HUGE_PAGES_FROM_RAM;
	size_t map_size = (size_t)ram_size + (want_huge ? huge : 0);
	if (map_size < ram_size) {
		errno = ENOMEM;
		return false;
	}
	void *map = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return false;
	uintptr_t ram = (uintptr_t)map;
	if (want_huge) {
		ram = (ram + huge - 1) & ~(uintptr_t)(huge - 1);
		(void)madvise((void *)ram, (size_t)ram_size, MADV_HUGEPAGE);   /* advice: may fail */
	}
	pm->ram = (uint8_t *)ram;
	pm->ram_map = map;
	pm->ram_map_size = map_size;
	pm->ram_size = ram_size;
	return true;
}

void physmem_destroy(struct physmem *pm)
{
	for (unsigned i = 0; i < pm->n_mmio; i++)
		free(pm->mmio[i].rom);
	if (pm->ram_map)
		munmap(pm->ram_map, pm->ram_map_size);
	memset(pm, 0, sizeof(*pm));
}

/* Half-open ranges [a, a+as) and [b, b+bs) intersect. Sizes are non-zero and
 * the callers have checked that neither range wraps. */
static bool ranges_overlap(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
	return a < b + bs && b < a + as;
}

static bool region_fits(const struct physmem *pm, uint64_t base, uint64_t size)
{
	if (size == 0 || base + size < base || pm->n_mmio >= BUS_MAX_MMIO)
		return false;
	if (ranges_overlap(base, size, 0, pm->ram_size))
		return false;
	for (unsigned i = 0; i < pm->n_mmio; i++)
		if (ranges_overlap(base, size, pm->mmio[i].base, pm->mmio[i].size))
			return false;
	return true;
}

bool physmem_add_mmio(struct physmem *pm, uint64_t base, uint64_t size,
		      const struct mmio_ops *ops, void *opaque, const char *name)
{
	if (!ops || !region_fits(pm, base, size))
		return false;
	pm->mmio[pm->n_mmio++] = (struct mmio_region){
		.base = base, .size = size, .ops = ops, .opaque = opaque, .name = name,
	};
	return true;
}

bool physmem_add_rom(struct physmem *pm, uint64_t base, const void *bytes, uint64_t size,
		     const char *name)
{
	if (!region_fits(pm, base, size) || size > SIZE_MAX)
		return false;
	uint8_t *copy = malloc((size_t)size);
	if (!copy)
		return false;
	memcpy(copy, bytes, (size_t)size);
	pm->mmio[pm->n_mmio++] = (struct mmio_region){
		.base = base, .size = size, .name = name, .rom = copy,
	};
	return true;
}

/* The region holding [pa, pa+size) entirely, or NULL. */
static struct mmio_region *find_region(struct physmem *pm, uint64_t pa, unsigned size)
{
	for (unsigned i = 0; i < pm->n_mmio; i++) {
		struct mmio_region *r = &pm->mmio[i];
		if (pa >= r->base && pa - r->base < r->size && r->size - (pa - r->base) >= size)
			return r;
	}
	return NULL;
}

static uint64_t load_le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void store_le(uint8_t *p, unsigned size, uint64_t v)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static bool in_ram(const struct physmem *pm, uint64_t pa, uint64_t size)
{
	return pa < pm->ram_size && pm->ram_size - pa >= size;
}

/* One access wholly inside RAM, one region, or nothing; false if it straddles. */
static bool read_whole(struct physmem *pm, uint64_t pa, unsigned size, uint64_t *value)
{
	if (in_ram(pm, pa, size)) {
		*value = load_le(pm->ram + pa, size);
		return true;
	}
	struct mmio_region *r = find_region(pm, pa, size);
	if (r) {
		if (r->rom)
			*value = load_le(r->rom + (pa - r->base), size);
		else if (r->ops->read)
			*value = r->ops->read(r->opaque, pa - r->base, size);
		else
			*value = ~0ull;
		return true;
	}
	if (size == 1) {
		*value = 0xff;     /* unclaimed: master abort reads all ones */
		return true;
	}
	return false;
}

bool physmem_is_device(struct physmem *pm, uint64_t pa)
{
	if (in_ram(pm, pa, 1))
		return false;
	const struct mmio_region *r = find_region(pm, pa, 1);
	return !r || !r->rom;
}

uint64_t physmem_read(struct physmem *pm, uint64_t pa, unsigned size)
{
	if (size == 0 || size > 8)
		return 0;
	uint64_t v;
	if (pa + size >= pa && read_whole(pm, pa, size, &v))
		return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
	v = 0;
	for (unsigned i = 0; i < size; i++) {
		uint64_t b = 0xff;
		if (!read_whole(pm, pa + i, 1, &b))
			b = 0xff;
		v |= (b & 0xff) << (8 * i);
	}
	return v;
}

static bool write_whole(struct physmem *pm, uint64_t pa, unsigned size, uint64_t value)
{
	if (in_ram(pm, pa, size)) {
		store_le(pm->ram + pa, size, value);
		if (pm->on_ram_write)
			pm->on_ram_write(pm->on_ram_write_opaque, pa, size);
		return true;
	}
	struct mmio_region *r = find_region(pm, pa, size);
	if (r) {
		/* ROM ignores writes; so does a region without a write callback. */
		if (!r->rom && r->ops->write)
			r->ops->write(r->opaque, pa - r->base, size, value);
		return true;
	}
	return size == 1;          /* unclaimed: writes vanish */
}

void physmem_write(struct physmem *pm, uint64_t pa, unsigned size, uint64_t value)
{
	if (size == 0 || size > 8)
		return;
	if (pa + size >= pa && write_whole(pm, pa, size, value))
		return;
	for (unsigned i = 0; i < size; i++)
		(void)write_whole(pm, pa + i, 1, value >> (8 * i));
}

void physmem_read_bytes(struct physmem *pm, uint64_t pa, void *dst, size_t len)
{
	uint8_t *d = dst;
	while (len) {
		if (pa < pm->ram_size) {
			uint64_t n = pm->ram_size - pa;
			if (n > len)
				n = len;
			memcpy(d, pm->ram + pa, (size_t)n);
			d += n, pa += n, len -= (size_t)n;
		} else {
			*d++ = (uint8_t)physmem_read(pm, pa++, 1);
			len--;
		}
	}
}

void physmem_write_bytes(struct physmem *pm, uint64_t pa, const void *src, size_t len)
{
	const uint8_t *s = src;
	while (len) {
		if (pa < pm->ram_size) {
			/* One page at a time so on_ram_write sees page-sized spans. */
			uint64_t n = 0x1000 - (pa & 0xfff);
			if (n > pm->ram_size - pa)
				n = pm->ram_size - pa;
			if (n > len)
				n = len;
			memcpy(pm->ram + pa, s, (size_t)n);
			if (pm->on_ram_write)
				pm->on_ram_write(pm->on_ram_write_opaque, pa, (unsigned)n);
			s += n, pa += n, len -= (size_t)n;
		} else {
			physmem_write(pm, pa++, 1, *s++);
			len--;
		}
	}
}

void iobus_init(struct iobus *io)
{
	memset(io, 0, sizeof(*io));
}

bool iobus_register(struct iobus *io, uint16_t first, uint16_t count,
		    const struct pio_ops *ops, void *opaque, const char *name)
{
	if (!ops || count == 0 || (uint32_t)first + count > 0x10000 || io->n_ranges >= BUS_MAX_PIO)
		return false;
	for (unsigned i = 0; i < io->n_ranges; i++)
		if (ranges_overlap(first, count, io->ranges[i].first, io->ranges[i].count))
			return false;
	io->ranges[io->n_ranges++] = (struct pio_range){
		.first = first, .count = count, .ops = ops, .opaque = opaque, .name = name,
	};
	return true;
}

bool iobus_move(struct iobus *io, const struct pio_ops *ops, const void *opaque, uint16_t first)
{
	struct pio_range *r = NULL;
	for (unsigned i = 0; i < io->n_ranges; i++)
		if (io->ranges[i].ops == ops && io->ranges[i].opaque == opaque)
			r = &io->ranges[i];
	if (!r || (uint32_t)first + r->count > 0x10000)
		return false;
	for (unsigned i = 0; i < io->n_ranges; i++)
		if (&io->ranges[i] != r && ranges_overlap(first, r->count, io->ranges[i].first, io->ranges[i].count))
			return false;
	r->first = first;
	return true;
}

/* The range holding ports [port, port+size) entirely, or NULL. Port numbers
 * wrap at 0xffff (a 2-byte access to port 0xffff touches 0xffff and 0). */
static struct pio_range *find_ports(struct iobus *io, uint16_t port, unsigned size)
{
	for (unsigned i = 0; i < io->n_ranges; i++) {
		struct pio_range *r = &io->ranges[i];
		if (port >= r->first && (uint32_t)port + size <= (uint32_t)r->first + r->count)
			return r;
	}
	return NULL;
}

static uint32_t pio_read_one(struct iobus *io, uint16_t port, unsigned size)
{
	struct pio_range *r = find_ports(io, port, size);
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
	if (!r || !r->ops->read)
		return mask;
	return r->ops->read(r->opaque, port, size) & mask;
}

uint32_t iobus_read(struct iobus *io, uint16_t port, unsigned size)
{
	if (size != 1 && size != 2 && size != 4)
		return 0;
	uint32_t v;
	if (find_ports(io, port, size) || size == 1) {
		v = pio_read_one(io, port, size);
	} else {
		v = 0;
		for (unsigned i = 0; i < size; i++)
			v |= pio_read_one(io, (uint16_t)(port + i), 1) << (8 * i);
	}
	if (io->trace)
		io->trace(io->trace_opaque, port, size, false, v);
	return v;
}

void iobus_write(struct iobus *io, uint16_t port, unsigned size, uint32_t value)
{
	if (size != 1 && size != 2 && size != 4)
		return;
	if (io->trace)
		io->trace(io->trace_opaque, port, size, true, value);
	struct pio_range *r = find_ports(io, port, size);
	if (r) {
		if (r->ops->write)
			r->ops->write(r->opaque, port, size, value);
		return;
	}
	for (unsigned i = 0; i < size && size > 1; i++) {
		r = find_ports(io, (uint16_t)(port + i), 1);
		if (r && r->ops->write)
			r->ops->write(r->opaque, (uint16_t)(port + i), 1, (value >> (8 * i)) & 0xff);
	}
}
