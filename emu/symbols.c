/* Guest symbols; see emu/symbols.h. */
#include "emu/symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void symbols_init(struct symbols *s)
{
	memset(s, 0, sizeof(*s));
}

void symbols_destroy(struct symbols *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	symbols_init(s);
}

bool symbols_add(struct symbols *s, uint64_t addr, uint64_t size, const char *name, size_t name_len)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct symbol *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	char *copy = malloc(name_len + 1);
	if (!copy)
		return false;
	memcpy(copy, name, name_len);
	copy[name_len] = '\0';
	s->v[s->n] = (struct symbol){ .addr = addr, .size = size, .name = copy, .order = s->n };
	s->n++;
	s->sized = false;
	return true;
}

/* By address; at one address a sized symbol first, then the order added
 * (so the sort is deterministic, qsort being unstable). */
static int by_addr(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void symbols_finish(struct symbols *s)
{
	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), by_addr);
	size_t out = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->v[out - 1].addr == s->v[i].addr) {
			free(s->v[i].name);
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].size)
			continue;
		uint64_t gap = i + 1 < s->n ? s->v[i + 1].addr - s->v[i].addr : SYMBOL_SPAN_MAX;
		s->v[i].size = gap < SYMBOL_SPAN_MAX ? gap : SYMBOL_SPAN_MAX;
	}
	s->sized = true;
}

bool symbols_lookup(const struct symbols *s, uint64_t addr, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!s || !s->sized || !s->n || addr < s->v[0].addr)
		return false;
	size_t lo = 0, hi = s->n;          /* the last symbol at or below addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	const struct symbol *sym = &s->v[lo];
	if (addr - sym->addr >= sym->size)
		return false;
	snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64, sym->name, addr - sym->addr, sym->size);
	return true;
}
