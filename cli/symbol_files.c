/* Symbol files; see cli/symbol_files.h. */
#include "cli/symbol_files.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/error_text.h"
#include "devices/loader.h"

#define SYMBOL_FILE_MAX (1u << 30)

/* An ELF symbol that names code: a function, or an untyped label in an
 * executable section (ELF gABI, Symbol Table: STT_FUNC, STT_NOTYPE). */
static bool is_code(Elf *e, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC)
		return true;
	if (type != STT_NOTYPE)
		return false;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(e, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static bool parse_elf(struct symbols *s, const char *name, const uint8_t *data, size_t size, char *err,
		      size_t errlen)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return failf(err, errlen, "libelf: %s", elf_errmsg(-1));
	Elf *e = elf_memory((char *)(uintptr_t)data, size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		failf(err, errlen, "%s: not a valid ELF file: %s", name, elf_errmsg(-1));
		elf_end(e);
		return false;
	}
	Elf_Scn *tab = NULL;
	for (int want = SHT_SYMTAB; !tab && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (GElf_Word)want) {
				tab = scn;
				break;
			}
		}
	size_t before = s->n;
	bool ok = true;
	GElf_Shdr sh;
	Elf_Data *d = tab && gelf_getshdr(tab, &sh) ? elf_getdata(tab, NULL) : NULL;
	size_t count = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	for (size_t i = 0; ok && i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || !is_code(e, &sym))
			continue;
		const char *n = elf_strptr(e, sh.sh_link, sym.st_name);
		if (!n || !n[0])
			continue;
		ok = symbols_add(s, sym.st_value, sym.st_size, n, strlen(n));
	}
	elf_end(e);
	if (!ok)
		return failf(err, errlen, "%s: out of memory", name);
	if (s->n == before)
		return failf(err, errlen, "%s: an ELF file without code symbols (stripped?)", name);
	return true;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "ADDRESS TYPE NAME[\t[MODULE]]" lines (System.map, /proc/kallsyms). */
static bool parse_map(struct symbols *s, const char *name, const uint8_t *data, size_t size, char *err,
		      size_t errlen)
{
	size_t before = s->n, lineno = 0, hidden = 0;
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		const char *q = p;
		size_t len = (size_t)(eol - p);
		p = eol + 1;
		if (len && q[len - 1] == '\r')
			len--;
		if (len == 0)
			continue;
		uint64_t addr = 0;
		size_t i = 0;
		for (; i < len && is_hex(q[i]); i++) {
			if (i == 16)
				return failf(err, errlen, "%s:%zu: an address of more than 64 bits", name, lineno);
			char c = q[i];
			addr = addr << 4 | (uint64_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
		}
		if (i == 0 || i + 3 > len || q[i] != ' ' || q[i + 2] != ' ' || q[i + 3] == ' ' || q[i + 3] == '\t')
			return failf(err, errlen, "%s:%zu: not an \"ADDRESS TYPE NAME\" line", name, lineno);
		char type = q[i + 1];
		const char *sym = q + i + 3;
		size_t sym_len = len - (i + 3);
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr == 0) {
			hidden++;
			continue;
		}
		/* "name\t[module]" -> "name [module]" */
		char buf[512];
		if (sym_len >= sizeof(buf))
			return failf(err, errlen, "%s:%zu: a name of more than %zu bytes", name, lineno, sizeof(buf) - 1);
		memcpy(buf, sym, sym_len);
		for (size_t k = 0; k < sym_len; k++)
			if (buf[k] == '\t')
				buf[k] = ' ';
		if (!symbols_add(s, addr, 0, buf, sym_len))
			return failf(err, errlen, "%s: out of memory", name);
	}
	if (s->n == before)
		return failf(err, errlen, hidden ? "%s: every code symbol's address is 0 (a kallsyms dump read "
					    "without the right to see addresses)" : "%s: no code symbols (types t, T, w, W)",
			     name);
	return true;
}

bool symbol_file_parse(struct symbols *s, const char *name, const uint8_t *data, size_t size, char *err,
		       size_t errlen)
{
	if (size >= 4 && !memcmp(data, "\177ELF", 4))
		return parse_elf(s, name, data, size, err, errlen);
	return parse_map(s, name, data, size, err, errlen);
}

bool symbol_file_load(struct symbols *s, const char *path, char *err, size_t errlen)
{
	uint8_t *data;
	size_t size;
	if (!loader_read_file(path, SYMBOL_FILE_MAX, &data, &size, err, errlen))
		return false;
	bool ok = symbol_file_parse(s, path, data, size, err, errlen);
	loader_release_file(data, size);
	return ok;
}
