/* The error reports of machine set-up and the command line: one line,
 * formatted into the caller's buffer, and false for the caller to return. */
#ifndef HVEMU_MACHINE_FAIL_H
#define HVEMU_MACHINE_FAIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

static inline bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline bool fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

#endif
