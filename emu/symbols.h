/* A guest's symbols, for reports that name the function an address lies in
 * ("func+0x12/0x40", as Linux prints a code address): filled from --symbols
 * files (cli/symbol_files.c), then sorted once; looked up by binary search.
 * Addresses are the guest's virtual (linear in a flat code segment) ones:
 * reports look up rIP, the offset in CS, as the kernel's own link map does. */
#ifndef HVEMU_EMU_SYMBOLS_H
#define HVEMU_EMU_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without a size (a System.map or kallsyms line), a symbol reaches to the
 * next one, or this far past the last. */
#define SYMBOL_SPAN_MAX 0x100000u

struct symbol {
	uint64_t addr, size;       /* size 0: unknown until symbols_finish */
	char *name;
	size_t order;              /* when it was added: ties sort by it */
};

struct symbols {
	struct symbol *v;
	size_t n, cap;
	bool sized;                /* symbols_finish ran */
};

void symbols_init(struct symbols *s);
void symbols_destroy(struct symbols *s);
/* Add one (name copied); false when out of memory. */
bool symbols_add(struct symbols *s, uint64_t addr, uint64_t size, const char *name, size_t name_len);
/* Sort by address, drop duplicates of the same address (the first added,
 * or the one with a size, stays), and give each unsized symbol the distance
 * to the next (at most SYMBOL_SPAN_MAX). */
void symbols_finish(struct symbols *s);
/* "name+0xoff/0xsize" for addr into buf; false (buf "") when no symbol
 * covers it. */
bool symbols_lookup(const struct symbols *s, uint64_t addr, char *buf, size_t len);

#endif
