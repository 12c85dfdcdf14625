/* The one error line a failing check of the CLI's leaves for its caller. */
#ifndef HVEMU_CLI_ERROR_TEXT_H
#define HVEMU_CLI_ERROR_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* Format the reason into err (errlen bytes) and return false, so that a
 * check reads `return failf(err, errlen, "...", ...);`. */
static inline __attribute__((format(printf, 3, 4))) bool failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

#endif
