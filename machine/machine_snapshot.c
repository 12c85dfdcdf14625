/* Machine snapshots in memory; see machine/machine_snapshot.h. */
#include "machine/machine_snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/icache.h"

struct snapshot_blob {
	unsigned refs;
	uint32_t len;
	uint8_t bytes[];
};

static struct snapshot_blob *blob_new(const void *bytes, uint32_t len)
{
	struct snapshot_blob *b = malloc(sizeof(*b) + len);
	if (!b)
		return NULL;
	b->refs = 1;
	b->len = len;
	memcpy(b->bytes, bytes, len);
	return b;
}

static struct snapshot_blob *blob_share(struct snapshot_blob *b)
{
	b->refs++;
	return b;
}

static void blob_drop(struct snapshot_blob *b)
{
	if (b && --b->refs == 0)
		free(b);
}

static bool blob_holds(const struct snapshot_blob *b, const void *bytes, uint32_t len)
{
	return b ? b->len == len && !memcmp(b->bytes, bytes, len) : len == 0;
}

static bool page_is_zero(const uint8_t *p)
{
	static const uint8_t zero[PAGE_SIZE];
	return !memcmp(p, zero, PAGE_SIZE);
}

/* The bytes now, as a blob: prev's when equal, else a fresh copy (NULL for
 * none: len 0, or a zero page when zero_is_null). *fresh counts new bytes. */
static bool keep_bytes(struct snapshot_blob **out, const struct snapshot_blob *prev, const uint8_t *bytes,
		       uint32_t len, bool zero_is_null, size_t *fresh)
{
	*out = NULL;
	if (prev && blob_holds(prev, bytes, len)) {
		*out = blob_share((struct snapshot_blob *)prev);
		return true;
	}
	if (len == 0 || (zero_is_null && page_is_zero(bytes)))
		return true;
	*out = blob_new(bytes, len);
	*fresh += len;
	return *out != NULL;
}

bool machine_snapshot_take(struct machine_snapshot *s, struct machine *m, const struct machine_snapshot *prev)
{
	memset(s, 0, sizeof(*s));
	s->state = malloc(sizeof(*m));
	if (!s->state)
		goto fail;
	memcpy(s->state, m, sizeof(*m));
	s->bytes = sizeof(*m);
	for (unsigned i = 1; i < m->smp.n; i++) {
		if (!(s->cpus[i] = malloc(sizeof(struct cpu))))
			goto fail;
		memcpy(s->cpus[i], m->smp.cpu[i], sizeof(struct cpu));
		s->bytes += sizeof(struct cpu);
	}
	for (unsigned i = 0; i < MACHINE_MAX_CPUS; i++) {
		size_t size = hv_state_size(&m->hv[i]);
		if (!size)
			continue;
		if (!(s->hv[i] = malloc(size)))
			goto fail;
		memcpy(s->hv[i], m->hv[i].model, size);
		s->bytes += size;
	}
	const struct fw_cfg *f = &m->boot.fw_cfg;
	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++)
		if (!keep_bytes(&s->fw_cfg[k], prev ? prev->fw_cfg[k] : NULL, f->generic[k].data, f->generic[k].len,
				false, &s->bytes))
			goto fail;
	s->n_pages = (size_t)(m->mem.ram_size >> PAGE_SHIFT);
	if (!(s->page = calloc(s->n_pages ? s->n_pages : 1, sizeof(*s->page))))
		goto fail;
	bool share = prev && prev->n_pages == s->n_pages;
	for (size_t p = 0; p < s->n_pages; p++)
		if (!keep_bytes(&s->page[p], share ? prev->page[p] : NULL, m->mem.ram + (p << PAGE_SHIFT), PAGE_SIZE,
				true, &s->bytes))
			goto fail;
	return true;
fail:
	machine_snapshot_free(s);
	return false;
}

bool machine_snapshot_restore(const struct machine_snapshot *s, struct machine *m)
{
	/* Kept from now, not from then: the fw_cfg items' storage (their bytes
	 * are copied back below), the host's time (realtime pacing) and how
	 * much serial output has left the machine. */
	struct fw_cfg_item items[FW_CFG_GENERIC_ITEMS];
	memcpy(items, m->boot.fw_cfg.generic, sizeof(items));
	struct timespec host_start = m->host_start;
	uint64_t tx_written = m->uart.tx_written > m->uart.tx_count ? m->uart.tx_written : m->uart.tx_count;

	memcpy(m, s->state, sizeof(*m));
	for (unsigned i = 1; i < m->smp.n; i++)
		memcpy(m->smp.cpu[i], s->cpus[i], sizeof(struct cpu));
	for (unsigned i = 0; i < MACHINE_MAX_CPUS; i++)
		if (s->hv[i])
			memcpy(m->hv[i].model, s->hv[i], hv_state_size(&m->hv[i]));

	memcpy(m->boot.fw_cfg.generic, items, sizeof(items));
	m->host_start = host_start;
	m->uart.tx_written = tx_written;
	bool ok = true;
	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++) {
		struct fw_cfg_item *it = &m->boot.fw_cfg.generic[k];
		const struct snapshot_blob *b = s->fw_cfg[k];
		if (!blob_holds(b, it->data, it->len))
			ok &= fw_cfg_item_set(it, b ? b->bytes : NULL, b ? b->len : 0);
	}

	for (size_t p = 0; p < s->n_pages; p++) {
		uint8_t *ram = m->mem.ram + (p << PAGE_SHIFT);
		const struct snapshot_blob *b = s->page[p];
		if (b && memcmp(ram, b->bytes, PAGE_SIZE))
			memcpy(ram, b->bytes, PAGE_SIZE);
		else if (!b && !page_is_zero(ram))
			memset(ram, 0, PAGE_SIZE);
	}
	/* Decoded blocks describe the RAM and TLB that were: gone, in time
	 * proportional to those decoded since. The TLBs came back with the
	 * CPUs: their host pointers are into the same RAM. */
	for (unsigned i = 0; i < m->smp.n; i++)
		icache_flush(m->smp.cpu[i]->icache);
	return ok;
}

void machine_snapshot_free(struct machine_snapshot *s)
{
	free(s->state);
	for (unsigned i = 0; i < MACHINE_MAX_CPUS; i++) {
		free(s->cpus[i]);
		free(s->hv[i]);
	}
	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++)
		blob_drop(s->fw_cfg[k]);
	if (s->page)
		for (size_t p = 0; p < s->n_pages; p++)
			blob_drop(s->page[p]);
	free(s->page);
	memset(s, 0, sizeof(*s));
}

/* --- comparison --- */

/* A byte range a comparison skips: not the machine's state, or a cache
 * whose contents depend on what was decoded before (a restore empties the
 * decoded blocks, so the TLB fills that fetches make differ). */
struct skip {
	size_t at, len;
};

#define SKIP_CPU(field) { offsetof(struct cpu, field), sizeof(((struct cpu *)0)->field) }
static const struct skip cpu_skips[] = {
	SKIP_CPU(cur_insn), SKIP_CPU(chain_stack_floor), SKIP_CPU(tlb), SKIP_CPU(jit),
};
#undef SKIP_CPU

#define NAMED(type, field) { #field, offsetof(struct type, field), sizeof(((struct type *)0)->field) }
struct named {
	const char *name;
	size_t at, len;
};
static const struct named machine_fields[] = {
	NAMED(machine, cfg), NAMED(machine, no_reboot), NAMED(machine, reboots), NAMED(machine, reboot_failed),
	NAMED(machine, reboot_error), NAMED(machine, firmware_image), NAMED(machine, bios_size), NAMED(machine, mem),
	NAMED(machine, io), NAMED(machine, clock), NAMED(machine, uart), NAMED(machine, dexit),
	NAMED(machine, debugcon), NAMED(machine, post), NAMED(machine, boot), NAMED(machine, vga),
	NAMED(machine, desc), NAMED(machine, pc), NAMED(machine, realtime), NAMED(machine, host_start),
	NAMED(machine, trace), NAMED(machine, cpu), NAMED(machine, cpu_ready), NAMED(machine, smp), NAMED(machine, hv),
};
static const struct named cpu_fields[] = {
	NAMED(cpu, regs), NAMED(cpu, rip), NAMED(cpu, rflags), NAMED(cpu, lazy), NAMED(cpu, seg), NAMED(cpu, cr0),
	NAMED(cpu, cr3), NAMED(cpu, cr4), NAMED(cpu, efer), NAMED(cpu, tsc_offset), NAMED(cpu, fpu), NAMED(cpu, mode),
	NAMED(cpu, event), NAMED(cpu, icount), NAMED(cpu, icount_limit), NAMED(cpu, attention), NAMED(cpu, lines),
	NAMED(cpu, deadline), NAMED(cpu, in_guest), NAMED(cpu, stage2), NAMED(cpu, deadlines),
	NAMED(cpu, fault_chain),
};
#undef NAMED

static const char *name_at(const struct named *t, size_t n, size_t at)
{
	for (size_t i = 0; i < n; i++)
		if (at >= t[i].at && at < t[i].at + t[i].len)
			return t[i].name;
	return "?";
}

static bool skipped(const struct skip *t, size_t n, size_t base, size_t at)
{
	for (size_t i = 0; i < n; i++)
		if (at >= base + t[i].at && at < base + t[i].at + t[i].len)
			return true;
	return false;
}

/* The first byte of a CPU (at base in a larger struct, or 0) that differs,
 * or SIZE_MAX. */
static size_t cpu_differs(const uint8_t *a, const uint8_t *b, size_t base)
{
	for (size_t i = 0; i < sizeof(struct cpu); i++)
		if (a[base + i] != b[base + i] && !skipped(cpu_skips, sizeof(cpu_skips) / sizeof(cpu_skips[0]), 0, i))
			return i;
	return SIZE_MAX;
}

bool machine_snapshot_same(const struct machine_snapshot *a, const struct machine_snapshot *b, char *why,
			   size_t len)
{
	const uint8_t *ma = (const uint8_t *)a->state, *mb = (const uint8_t *)b->state;
	const size_t cpu_at = offsetof(struct machine, cpu);
	const size_t nm = sizeof(machine_fields) / sizeof(machine_fields[0]);
	const size_t nc = sizeof(cpu_fields) / sizeof(cpu_fields[0]);
	size_t d = cpu_differs(ma, mb, cpu_at);
	if (d != SIZE_MAX) {
		snprintf(why, len, "CPU 0 field %s (offset %zu)", name_at(cpu_fields, nc, d), d);
		return false;
	}
	const struct skip machine_skips[] = {
		{ offsetof(struct machine, host_start), sizeof(struct timespec) },
		{ offsetof(struct machine, uart) + offsetof(struct uart16550, tx_written), sizeof(uint64_t) },
		{ cpu_at, sizeof(struct cpu) },
	};
	for (size_t i = 0; i < sizeof(struct machine); i++)
		if (ma[i] != mb[i] && !skipped(machine_skips, 3, 0, i)) {
			snprintf(why, len, "machine field %s (offset %zu)", name_at(machine_fields, nm, i), i);
			return false;
		}
	for (unsigned c = 1; c < MACHINE_MAX_CPUS; c++) {
		if (!a->cpus[c] != !b->cpus[c] || !a->cpus[c])
			continue;
		d = cpu_differs((const uint8_t *)a->cpus[c], (const uint8_t *)b->cpus[c], 0);
		if (d != SIZE_MAX) {
			snprintf(why, len, "CPU %u field %s (offset %zu)", c, name_at(cpu_fields, nc, d), d);
			return false;
		}
	}
	for (unsigned c = 0; c < MACHINE_MAX_CPUS; c++) {
		size_t size = hv_state_size(&a->state->hv[c]);
		if (size && memcmp(a->hv[c], b->hv[c], size)) {
			for (d = 0; ((const uint8_t *)a->hv[c])[d] == ((const uint8_t *)b->hv[c])[d]; d++)
				;
			snprintf(why, len, "CPU %u hypervisor model, byte %zu of %zu", c, d, size);
			return false;
		}
	}
	for (unsigned k = 0; k < FW_CFG_GENERIC_ITEMS; k++) {
		const struct snapshot_blob *x = a->fw_cfg[k];
		if (x ? !blob_holds(b->fw_cfg[k], x->bytes, x->len) : b->fw_cfg[k] != NULL) {
			snprintf(why, len, "fw_cfg item %u", k);
			return false;
		}
	}
	if (a->n_pages != b->n_pages) {
		snprintf(why, len, "RAM size");
		return false;
	}
	for (size_t p = 0; p < a->n_pages; p++) {
		const struct snapshot_blob *x = a->page[p];
		if (x ? !blob_holds(b->page[p], x->bytes, x->len) : b->page[p] != NULL) {
			snprintf(why, len, "RAM page at 0x%llx", (unsigned long long)p << PAGE_SHIFT);
			return false;
		}
	}
	return true;
}
