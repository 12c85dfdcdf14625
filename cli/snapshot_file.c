/* Snapshot files; see cli/snapshot_file.h. */
#include "cli/snapshot_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/error_text.h"
#include "emu/icache.h"

#define FILE_MAGIC "HVEMUSNP"
#define FILE_VERSION 1u
#define FILE_MAX_SIZE (1ull << 36)     /* 64 GiB: anything larger is not ours */
#define OBJ_CPU(i) (i)                 /* 0: struct machine (with the BSP), i: AP i */
#define OBJ_HV(i) (MACHINE_MAX_CPUS + (i))
#define N_OBJECTS (2 * MACHINE_MAX_CPUS)

/* Linker-defined bounds of the executable (GNU ld, and lld): pointers to
 * functions and static data in it are translated by its load address. */
extern const char __executable_start[], _end[];

struct header {
	char magic[8];
	uint32_t version;
	uint32_t reserved;
	char build[64];            /* hvemu's version and the state structs' sizes */
	uint64_t body_size;
	uint64_t checksum;         /* FNV-1a of the body */
};

enum tag { T_WORDS = 1, T_REGION, T_OBJ_SETUP, T_OBJ_NOW, T_FW_CFG, T_PAGE, T_END };
enum region_kind { R_OBJECT, R_RAM, R_ROM, R_EXEC };

struct record {
	uint32_t tag, index;
	uint64_t len;
};

struct region {
	uint64_t addr, size;       /* in the process that wrote the file */
	uint32_t kind, index;      /* R_OBJECT: the object; R_ROM: the mmio slot */
};

static void build_id(char out[64])
{
	memset(out, 0, 64);
	snprintf(out, 64, "hvemu %s m%zu c%zu", HVEMU_VERSION, sizeof(struct machine), sizeof(struct cpu));
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* --- writing: the body built in memory, then header and body --- */

struct out {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct out *o, const void *bytes, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 1 << 20;
		while (cap < o->len + n)
			cap *= 2;
		unsigned char *p = realloc(o->p, cap);
		if (!p) {
			o->failed = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, bytes, n);
	o->len += n;
}

static void put_record(struct out *o, uint32_t tag, uint32_t index, const void *a, size_t an, const void *b, size_t bn)
{
	struct record r = { tag, index, an + bn };
	put(o, &r, sizeof(r));
	put(o, a, an);
	put(o, b, bn);
}

/* The objects of a machine: their live addresses and sizes. */
static size_t object_of(const struct machine *m, unsigned id, const void **addr)
{
	if (id == OBJ_CPU(0)) {
		*addr = m;
		return sizeof(*m);
	}
	if (id < MACHINE_MAX_CPUS) {
		*addr = id < m->smp.n ? m->smp.cpu[id] : NULL;
		return *addr ? sizeof(struct cpu) : 0;
	}
	const struct hypervisor *hv = &m->hv[id - MACHINE_MAX_CPUS];
	*addr = hv->model;
	return hv_state_size(hv);
}

/* An object's bytes in a snapshot. */
static const void *snapshot_object(const struct machine_snapshot *s, unsigned id)
{
	if (id == OBJ_CPU(0))
		return s->state;
	if (id < MACHINE_MAX_CPUS)
		return s->cpus[id];
	return s->hv[id - MACHINE_MAX_CPUS];
}

bool snapshot_file_write(const char *path, char *const *words, int n, const struct machine *m,
			 const struct machine_snapshot *setup, const struct machine_snapshot *now, char *err,
			 size_t errlen)
{
	struct out o = { 0 };
	struct out w = { 0 };
	for (int i = 0; i < n; i++)
		put(&w, words[i], strlen(words[i]) + 1);
	put_record(&o, T_WORDS, 0, w.p, w.len, NULL, 0);
	free(w.p);

	for (unsigned id = 0; id < N_OBJECTS; id++) {
		const void *addr;
		size_t size = object_of(m, id, &addr);
		if (!size)
			continue;
		struct region r = { (uintptr_t)addr, size, R_OBJECT, id };
		put_record(&o, T_REGION, 0, &r, sizeof(r), NULL, 0);
		put_record(&o, T_OBJ_SETUP, id, snapshot_object(setup, id), size, NULL, 0);
		put_record(&o, T_OBJ_NOW, id, snapshot_object(now, id), size, NULL, 0);
	}
	struct region ram = { (uintptr_t)m->mem.ram, m->mem.ram_size, R_RAM, 0 };
	put_record(&o, T_REGION, 0, &ram, sizeof(ram), NULL, 0);
	for (unsigned i = 0; i < m->mem.n_mmio; i++)
		if (m->mem.mmio[i].rom) {
			struct region rom = { (uintptr_t)m->mem.mmio[i].rom, m->mem.mmio[i].size, R_ROM, i };
			put_record(&o, T_REGION, 0, &rom, sizeof(rom), NULL, 0);
		}
	struct region exe = { (uintptr_t)__executable_start, (uint64_t)(_end - __executable_start), R_EXEC, 0 };
	put_record(&o, T_REGION, 0, &exe, sizeof(exe), NULL, 0);

	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++) {
		const struct fw_cfg_item *it = &m->boot.fw_cfg.generic[k];
		put_record(&o, T_FW_CFG, k, it->data, it->len, NULL, 0);
	}
	for (size_t p = 0; p < now->n_pages; p++)
		if (now->page[p]) {
			uint64_t page = p;
			put_record(&o, T_PAGE, 0, &page, sizeof(page), m->mem.ram + (p << PAGE_SHIFT), PAGE_SIZE);
		}
	put_record(&o, T_END, 0, NULL, 0, NULL, 0);
	if (o.failed) {
		free(o.p);
		return failf(err, errlen, "out of memory writing the snapshot %s", path);
	}

	struct header h = { .version = FILE_VERSION, .body_size = o.len, .checksum = fnv1a(o.p, o.len) };
	memcpy(h.magic, FILE_MAGIC, 8);
	build_id(h.build);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(&h, sizeof(h), 1, f) == 1 && fwrite(o.p, 1, o.len, f) == o.len;
	int e = errno;
	if (f && fclose(f) != 0)
		ok = false;
	free(o.p);
	if (!ok)
		return failf(err, errlen, "cannot write the snapshot %s: %s", path, strerror(e ? e : EIO));
	return true;
}

/* --- reading --- */

/* The records of f's body in order: false at a malformed one. */
struct cursor {
	const unsigned char *p, *end;
};

static bool next_record(struct cursor *c, struct record *r, const unsigned char **payload)
{
	if ((size_t)(c->end - c->p) < sizeof(*r))
		return false;
	memcpy(r, c->p, sizeof(*r));
	c->p += sizeof(*r);
	if (r->len > (uint64_t)(c->end - c->p))
		return false;
	*payload = c->p;
	c->p += r->len;
	return true;
}

bool snapshot_file_read(struct snapshot_file *f, const char *path, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	FILE *in = fopen(path, "rb");
	if (!in)
		return failf(err, errlen, "cannot read the snapshot %s: %s", path, strerror(errno));
	struct header h;
	char build[64];
	build_id(build);
	if (fread(&h, sizeof(h), 1, in) != 1 || memcmp(h.magic, FILE_MAGIC, 8)) {
		fclose(in);
		return failf(err, errlen, "%s is not an hvemu snapshot", path);
	}
	if (h.version != FILE_VERSION || memcmp(h.build, build, 64)) {
		fclose(in);
		h.build[63] = 0;
		return failf(err, errlen, "%s was written by another hvemu (format %u, '%s'; this is format %u, '%s')",
			     path, h.version, h.build, FILE_VERSION, build);
	}
	if (h.body_size > FILE_MAX_SIZE || !(f->data = malloc(h.body_size ? h.body_size : 1))) {
		fclose(in);
		return failf(err, errlen, "%s: a snapshot of %llu bytes is not plausible", path,
			     (unsigned long long)h.body_size);
	}
	f->size = h.body_size;
	size_t got = fread(f->data, 1, f->size, in);
	bool extra = fgetc(in) != EOF;
	fclose(in);
	if (got != f->size || extra || fnv1a(f->data, f->size) != h.checksum) {
		snapshot_file_free(f);
		return failf(err, errlen, "%s is damaged (%s)", path,
			     got != f->size ? "truncated" : extra ? "trailing bytes" : "checksum mismatch");
	}
	/* The words: the first record, NUL-terminated strings. */
	struct cursor c = { f->data, f->data + f->size };
	struct record r;
	const unsigned char *pl;
	if (!next_record(&c, &r, &pl) || r.tag != T_WORDS || (r.len && pl[r.len - 1] != 0)) {
		snapshot_file_free(f);
		return failf(err, errlen, "%s is damaged (no option words)", path);
	}
	for (uint64_t i = 0; i < r.len; i++)
		f->n_words += pl[i] == 0;
	f->words = calloc((size_t)f->n_words + 1, sizeof(*f->words));
	if (!f->words) {
		snapshot_file_free(f);
		return failf(err, errlen, "out of memory reading %s", path);
	}
	const char *w = (const char *)pl;
	for (int i = 0; i < f->n_words; i++) {
		f->words[i] = (char *)w;
		w += strlen(w) + 1;
	}
	return true;
}

void snapshot_file_free(struct snapshot_file *f)
{
	free(f->words);
	free(f->data);
	memset(f, 0, sizeof(*f));
}

/* --- applying --- */

struct mapping {
	struct region from;
	uintptr_t to;              /* the same place here, 0: none */
};

struct applying {
	struct mapping map[N_OBJECTS + BUS_MAX_MMIO + 2];
	unsigned n;
};

static uint64_t translate(const struct applying *a, uint64_t v)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->map[i].to && v >= a->map[i].from.addr && v - a->map[i].from.addr < a->map[i].from.size)
			return a->map[i].to + (v - a->map[i].from.addr);
	return v;
}

/* The same place here for a region of the file. */
static uintptr_t region_here(struct machine *m, const struct region *r)
{
	const void *addr;
	switch (r->kind) {
	case R_OBJECT:
		return r->index < N_OBJECTS && object_of(m, r->index, &addr) == r->size ? (uintptr_t)addr : 0;
	case R_RAM:
		return r->size == m->mem.ram_size ? (uintptr_t)m->mem.ram : 0;
	case R_ROM:
		return r->index < m->mem.n_mmio && m->mem.mmio[r->index].rom && m->mem.mmio[r->index].size == r->size
			       ? (uintptr_t)m->mem.mmio[r->index].rom : 0;
	case R_EXEC:
		return r->size == (uint64_t)(_end - __executable_start) ? (uintptr_t)__executable_start : 0;
	}
	return 0;
}

static bool in_skip(size_t o, size_t at, size_t len)
{
	return o >= at && o < at + len;
}

/* Each CPU's TLB (at tlb_at in the object) from the saved entries: their
 * host pointers, kept as host - linear, moved to this RAM or ROM, or the
 * entry dropped when it points at neither. */
static void merge_tlb(const struct applying *a, unsigned char *live, const unsigned char *now, size_t tlb_at)
{
	struct tlb t;
	memcpy(&t, now + tlb_at, sizeof(t));
	for (unsigned i = 0; i < TLB_SLOTS; i++) {
		struct tlb_entry *e = &t.e[i];
		if (e->key == TLB_TAG_INVALID)
			continue;
		uint64_t lin = e->key & ~(uint64_t)TLB_ID_MASK;
		uint64_t host = (uint64_t)e->host_minus_lin + lin;
		uint64_t moved = translate(a, host);
		bool ram_or_rom = false;
		for (unsigned r = 0; r < a->n; r++)
			if ((a->map[r].from.kind == R_RAM || a->map[r].from.kind == R_ROM) && host >= a->map[r].from.addr &&
			    host - a->map[r].from.addr < a->map[r].from.size)
				ram_or_rom = true;
		if (ram_or_rom && moved != host) {
			e->host_minus_lin = (uintptr_t)(moved - lin);
		} else {
			e->key = TLB_TAG_INVALID;
			for (unsigned k = 0; k < TLB_ACCESS_KINDS; k++)
				e->tag[k] = TLB_TAG_INVALID;
		}
	}
	memcpy(live + tlb_at, &t, sizeof(t));
}

/* Object id: live bytes from set-up (setup) and now (now) of the saved run. */
static void merge_object(const struct applying *a, unsigned id, unsigned char *live, const unsigned char *setup,
			 const unsigned char *now, size_t size)
{
	size_t tlb_at = id == OBJ_CPU(0) ? offsetof(struct machine, cpu) + offsetof(struct cpu, tlb)
			: id < MACHINE_MAX_CPUS ? offsetof(struct cpu, tlb) : SIZE_MAX;
	size_t tlb_len = tlb_at == SIZE_MAX ? 0 : sizeof(struct tlb);
	size_t o = 0;
	for (; o + 8 <= size; o += 8) {
		if (in_skip(o, tlb_at, tlb_len))
			continue;
		uint64_t s0, s;
		memcpy(&s0, setup + o, 8);
		memcpy(&s, now + o, 8);
		if (s == s0)
			continue;          /* unchanged since set-up: this process's value */
		s = translate(a, s);
		memcpy(live + o, &s, 8);
	}
	for (; o < size; o++)
		if (setup[o] != now[o])
			live[o] = now[o];
	if (tlb_len)
		merge_tlb(a, live, now, tlb_at);
}

bool snapshot_file_apply(const struct snapshot_file *f, struct machine *m, char *err, size_t errlen)
{
	struct applying a;
	memset(&a, 0, sizeof(a));
	const unsigned char *setup[N_OBJECTS] = { 0 }, *now[N_OBJECTS] = { 0 };
	uint64_t sizes[N_OBJECTS] = { 0 };
	const unsigned char *items[FW_CFG_GENERIC_ITEMS] = { 0 };
	uint64_t item_len[FW_CFG_GENERIC_ITEMS] = { 0 };
	bool item_seen[FW_CFG_GENERIC_ITEMS] = { 0 };

	/* Check everything before changing anything. */
	struct cursor c = { f->data, f->data + f->size };
	struct record r;
	const unsigned char *pl;
	bool end = false;
	const unsigned char *pages_at = NULL;
	while (!end && next_record(&c, &r, &pl)) {
		switch (r.tag) {
		case T_WORDS:
			break;
		case T_REGION:
			if (r.len != sizeof(struct region) || a.n == sizeof(a.map) / sizeof(a.map[0]))
				return failf(err, errlen, "the snapshot is damaged (a region)");
			memcpy(&a.map[a.n].from, pl, sizeof(struct region));
			a.map[a.n].to = region_here(m, &a.map[a.n].from);
			if (!a.map[a.n].to && a.map[a.n].from.kind != R_ROM)
				return failf(err, errlen, "the snapshot's machine is not the one its options build here");
			a.n++;
			break;
		case T_OBJ_SETUP:
		case T_OBJ_NOW: {
			const void *addr;
			if (r.index >= N_OBJECTS || object_of(m, r.index, &addr) != r.len)
				return failf(err, errlen, "the snapshot's machine is not the one its options build here");
			(r.tag == T_OBJ_SETUP ? setup : now)[r.index] = pl;
			sizes[r.index] = r.len;
			break;
		}
		case T_FW_CFG:
			if (r.index >= FW_CFG_GENERIC_ITEMS || r.len > UINT32_MAX)
				return failf(err, errlen, "the snapshot is damaged (an fw_cfg item)");
			items[r.index] = pl;
			item_len[r.index] = r.len;
			item_seen[r.index] = true;
			break;
		case T_PAGE: {
			uint64_t page;
			if (r.len != 8 + PAGE_SIZE)
				return failf(err, errlen, "the snapshot is damaged (a RAM page)");
			memcpy(&page, pl, 8);
			if (page >= m->mem.ram_size >> PAGE_SHIFT)
				return failf(err, errlen, "the snapshot's RAM is larger than --mem here");
			if (!pages_at)
				pages_at = pl - sizeof(r);
			break;
		}
		case T_END:
			end = true;
			break;
		default:
			return failf(err, errlen, "the snapshot is damaged (record %u)", r.tag);
		}
	}
	if (!end || c.p != c.end)
		return failf(err, errlen, "the snapshot is damaged (its records)");
	for (unsigned id = 0; id < N_OBJECTS; id++) {
		const void *addr;
		if (object_of(m, id, &addr) && (!setup[id] || !now[id]))
			return failf(err, errlen, "the snapshot's machine is not the one its options build here");
	}

	/* The fw_cfg items' storage is this process's: kept, refilled below. */
	struct fw_cfg_item kept[FW_CFG_GENERIC_ITEMS];
	memcpy(kept, m->boot.fw_cfg.generic, sizeof(kept));
	struct timespec host_start = m->host_start;
	for (unsigned id = 0; id < N_OBJECTS; id++) {
		void *addr;
		if (!object_of(m, id, (const void **)&addr))
			continue;
		merge_object(&a, id, addr, setup[id], now[id], (size_t)sizes[id]);
	}
	memcpy(m->boot.fw_cfg.generic, kept, sizeof(kept));
	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++)
		if (item_seen[k] && !fw_cfg_item_set(&m->boot.fw_cfg.generic[k], items[k], (uint32_t)item_len[k]))
			return failf(err, errlen, "out of memory restoring the snapshot");
	m->host_start = host_start;
	/* The output so far was the saved run's: this one writes what follows. */
	m->uart.tx_written = m->uart.tx_count;

	memset(m->mem.ram, 0, m->mem.ram_size);
	for (c.p = pages_at ? pages_at : c.end; next_record(&c, &r, &pl) && r.tag == T_PAGE;) {
		uint64_t page;
		memcpy(&page, pl, 8);
		memcpy(m->mem.ram + (page << PAGE_SHIFT), pl + 8, PAGE_SIZE);
	}
	for (unsigned i = 0; i < m->smp.n; i++) {
		struct cpu *cpu = m->smp.cpu[i];
		cpu->cur_insn = NULL;
		icache_flush(cpu->icache);
	}
	return true;
}

/* --- the command line --- */

bool snapshot_args_split(struct snapshot_args *a, int argc, char **argv, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	char **own = calloc((size_t)argc + 1, sizeof(*own));
	const char *resume_path = NULL;
	int n = 0;
	if (!own)
		return failf(err, errlen, "out of memory");
	bool ok = true;
	for (int i = 0; i < argc && ok; i++) {
		if (!strcmp(argv[i], "--snapshot-at")) {
			char *end = NULL;
			if (a->at)
				ok = failf(err, errlen, "--snapshot-at given twice");
			else if (i + 2 >= argc)
				ok = failf(err, errlen, "--snapshot-at needs N and FILE (--snapshot-at N FILE)");
			else if ((a->at = strtoull(argv[i + 1], &end, 0)) == 0 || *end || argv[i + 1][0] == '-')
				ok = failf(err, errlen, "bad --snapshot-at '%s' (a positive number of instructions)",
					   argv[i + 1]);
			a->path = ok ? argv[i + 2] : NULL;
			i += 2;
		} else if (!strcmp(argv[i], "--resume")) {
			if (resume_path)
				ok = failf(err, errlen, "--resume given twice");
			else if (i + 1 >= argc)
				ok = failf(err, errlen, "option --resume needs a value");
			else
				resume_path = argv[++i];
		} else {
			own[n++] = argv[i];
		}
	}
	if (ok && resume_path) {
		ok = snapshot_file_read(&a->resume, resume_path, err, errlen);
		a->resuming = ok;
	}
	size_t cap = (size_t)(a->resume.n_words + n) + 1;
	if (ok && (!(a->words = calloc(cap, sizeof(char *))) || !(a->recorded = calloc(cap, sizeof(char *)))))
		ok = failf(err, errlen, "out of memory");
	if (ok) {
		for (int i = 0; i < a->resume.n_words; i++)
			a->words[a->n_words++] = a->resume.words[i];
		for (int i = 0; i < n; i++)
			a->words[a->n_words++] = own[i];
		for (int i = 0; i < a->n_words; i++) {
			if (!strcmp(a->words[i], "--serial"))
				i++;
			else if (strncmp(a->words[i], "--serial=", 9))
				a->recorded[a->n_recorded++] = a->words[i];
		}
	}
	free(own);
	return ok;
}

void snapshot_args_free(struct snapshot_args *a)
{
	snapshot_file_free(&a->resume);
	free(a->words);
	free(a->recorded);
	memset(a, 0, sizeof(*a));
}
