/* Raw image loading; see devices/loader.h. */
#include "devices/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool loader_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

bool loader_read_file(const char *path, size_t max, uint8_t **data, size_t *size,
		      char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO with no writer (or a device) must not wait;
	 * the type is checked on what was opened. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return loader_fail(err, errlen, "cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return loader_fail(err, errlen, "'%s' is not a regular file", path);
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return loader_fail(err, errlen, "'%s' is too large (%lld bytes, max %zu)", path,
				   (long long)st.st_size, max);
	}
	size_t n = (size_t)st.st_size;
	/* Mapped, not read: a kernel is tens of MiB that are copied into guest
	 * RAM once; reading them first would copy them twice and have the host
	 * zero as many pages for the buffer. Private: a caller's write stays
	 * its own. (A file another program cuts short while it is copied
	 * would end the run with SIGBUS: the copies take a fraction of a
	 * second, before the first instruction.)
	 * An empty file has nothing to map: a byte of its own. */
	uint8_t *buf = n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0) : malloc(1);
	int why = errno;           /* the mapping's reason, not close()'s */
	close(fd);
	if (n ? (void *)buf == MAP_FAILED : !buf)
		return loader_fail(err, errlen, "cannot read '%s': %s", path, strerror(why));
	*data = buf;
	*size = n;
	return true;
}

void loader_release_file(uint8_t *data, size_t size)
{
	if (!data)
		return;
	if (size)
		munmap(data, size);
	else
		free(data);
}

bool loader_load_flat(struct physmem *pm, const uint8_t *data, size_t size, uint64_t addr,
		      char *err, size_t errlen)
{
	if (addr > pm->ram_size || size > pm->ram_size - addr)
		return loader_fail(err, errlen, "image of %zu bytes at 0x%llx does not fit in RAM (%llu MiB)",
			    size, (unsigned long long)addr, (unsigned long long)(pm->ram_size >> 20));
	physmem_write_bytes(pm, addr, data, size);
	return true;
}

bool loader_load_bios(struct physmem *pm, const uint8_t *data, size_t size,
		      char *err, size_t errlen)
{
	const uint64_t top = 0x100000000ull;
	if (size == 0 || size % 65536 != 0)
		return loader_fail(err, errlen, "BIOS image size %zu is not a non-zero multiple of 64 KiB", size);
	if (size > top - pm->ram_size)
		return loader_fail(err, errlen, "BIOS image of %zu bytes overlaps RAM", size);
	if (!physmem_add_rom(pm, top - size, data, size, "bios"))
		return loader_fail(err, errlen, "cannot map the BIOS at 0x%llx (overlap or table full)",
			    (unsigned long long)(top - size));
	loader_copy_bios_low(pm, data, size);
	return true;
}

void loader_copy_bios_low(struct physmem *pm, const uint8_t *data, size_t size)
{
	size_t isa = size < BIOS_ISA_WINDOW ? size : BIOS_ISA_WINDOW;
	physmem_write_bytes(pm, 0x100000 - isa, data + size - isa, isa);
}
