/* --symbols FILE: the formats a guest's symbols come in, told apart by
 * content, added to a struct symbols (emu/symbols.h):
 *   an ELF file (32- or 64-bit) with a symbol table (.symtab, else .dynsym):
 *     its functions, and the untyped symbols of executable sections (assembly
 *     labels), with their sizes;
 *   a Linux System.map or a /proc/kallsyms dump: "ADDRESS TYPE NAME" lines
 *     (kallsyms may add "\t[MODULE]", kept as "NAME [MODULE]"), of which the
 *     text ones (types t, T, w, W) count.
 * A file that holds no code symbol (Debian's placeholder System.map, a
 * kallsyms dump read without the right to see addresses: all 0) or a
 * malformed line is refused with the reason and the line's number. */
#ifndef HVEMU_CLI_SYMBOL_FILES_H
#define HVEMU_CLI_SYMBOL_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/symbols.h"

/* Add path's symbols to s (symbols_finish is the caller's). False with a
 * one-line reason in err. */
bool symbol_file_load(struct symbols *s, const char *path, char *err, size_t errlen);
/* The same from bytes already read (name for messages). */
bool symbol_file_parse(struct symbols *s, const char *name, const uint8_t *data, size_t size, char *err,
		       size_t errlen);

#endif
