/* `monitor info apic | walk | vmcs`: the state gdb cannot show of a CPU under
 * hvemu, decoded by the manuals' names; see cli/gdb_info.h. Each reads and
 * never writes: no accessed/dirty flag, no TLB entry, no APIC side effect. */
#include "cli/gdb_info.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/paging_env.h"
#include "machine/hypervisor.h"
#include "mmu/nested.h"
#include "vmx/vmcs_fields.h"
#include "vmx/vmx.h"

/* Append to a bounded text buffer; output past its end is dropped. */
struct text {
	char *s;
	size_t len, used;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	if (t->used + 1 >= t->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->s + t->used, t->len - t->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->used += (size_t)n < t->len - t->used ? (size_t)n : t->len - t->used - 1;
}

/* The vectors whose bits are set in a 256-bit APIC register (IRR, ISR, TMR). */
static void put_vectors(struct text *t, const char *name, const uint32_t reg[8])
{
	put(t, "  %s:", name);
	unsigned n = 0;
	for (unsigned v = 0; v < 256; v++)
		if (reg[v / 32] >> (v % 32) & 1) {
			put(t, " %02x", v);
			n++;
		}
	put(t, n ? "\n" : " none\n");
}

/* SDM Vol.3 10.5.1 Figure 10-8: the LVT entries' fields. */
static void put_lvt(struct text *t, const char *name, uint32_t lvt)
{
	static const char *const mode[8] = { "Fixed", "SMI", "?2", "?3", "NMI", "INIT", "?6", "ExtINT" };
	put(t, "  LVT %-8s %08x  vector %02x, %s%s%s%s\n", name, lvt, lvt & 0xff, mode[(lvt >> 8) & 7],
	    lvt & (1u << 16) ? ", masked" : "", lvt & (1u << 12) ? ", send pending" : "",
	    lvt & (1u << 15) ? ", level-triggered" : "");
}

static void info_apic(struct machine *m, unsigned cpu_index, struct text *t)
{
	const struct lapic *l = &m->smp.lapic[cpu_index];
	static const char *const modes[] = { "disabled", "xAPIC", "x2APIC" };
	put(t, "local APIC of CPU %u: %s, ID %u (initial %u)\n", cpu_index,
	    (unsigned)l->mode < 3 ? modes[l->mode] : "?", l->mode == LAPIC_X2APIC ? l->initial_id : l->xapic_id,
	    l->initial_id);
	put(t, "  TPR %02x  PPR %02x  SVR %08x (%s)  LDR %08x  DFR %08x  ESR %08x\n", l->tpr, lapic_ppr(l),
	    l->svr, l->svr & (1u << 8) ? "software-enabled" : "software-disabled", l->ldr, l->dfr, l->esr);
	put(t, "  ICR %08x:%08x\n", l->icr_hi, l->icr_lo);
	put_vectors(t, "IRR", l->irr);
	put_vectors(t, "ISR", l->isr);
	put_vectors(t, "TMR", l->tmr);
	static const char *const lvt_names[LVT_COUNT] = { "timer", "thermal", "perf", "LINT0", "LINT1", "error" };
	for (unsigned i = 0; i < LVT_COUNT; i++)
		put_lvt(t, lvt_names[i], l->lvt[i]);
	/* SDM Vol.3 10.5.4 Figure 10-10: the timer mode, bits 18:17 of its LVT. */
	static const char *const timer_modes[4] = { "one-shot", "periodic", "TSC-deadline", "reserved" };
	put(t, "  timer: %s, initial %08x, current %08x, divide config %x%s\n",
	    timer_modes[(l->lvt[LVT_TIMER] >> 17) & 3], l->timer_initial, lapic_timer_current(l), l->timer_dcr,
	    l->timer_running ? ", counting" : "");
	put(t, "  LINT0 %s, LINT1 %s, INTR %s\n", l->lint[0] ? "high" : "low", l->lint[1] ? "high" : "low",
	    l->intr_out ? "asserted" : "idle");
}

static void put_levels(struct text *t, const char *stage, const struct walk_result *r)
{
	for (unsigned i = 0; i < r->levels && i < 5; i++)
		put(t, "  %slevel %u: entry at %016llx = %016llx\n", stage, i + 1,
		    (unsigned long long)r->entry_addr[i], (unsigned long long)r->entry[i]);
}

static const char *const paging_names[] = { "off", "32-bit", "PAE", "4-level", "5-level", "EPT 4-level",
					    "EPT 5-level" };

/* The current translation of a linear address level by level, as a
 * supervisor read would make it (both stages under nested paging). */
static void info_walk(struct cpu *cpu, const char *arg, struct text *t)
{
	char *end;
	uint64_t lin = strtoull(arg, &end, 0);
	if (end == arg || *end) {
		put(t, "usage: info walk LINEAR-ADDRESS\n");
		return;
	}
	struct paging_env env = cpu_paging_env(cpu);
	struct fault f = { 0 };
	put(t, "%016llx: %s paging, CR3 %016llx%s\n", (unsigned long long)lin, paging_names[env.mode],
	    (unsigned long long)env.cr3, cpu->stage2_on ? ", nested (stage 1 addresses are guest-physical)" : "");
	bool ok;
	uint64_t pa, size;
	if (cpu->stage2_on) {
		struct nested_result r = { 0 };
		ok = nested_walk(&env, &cpu->stage2, lin, WALK_READ, WALK_PEEK, &r, &f);
		put_levels(t, "stage 1 ", &r.guest);
		if (ok || r.host.levels)
			put(t, "  guest-physical %016llx; stage 2 (%s, root %016llx):\n",
			    (unsigned long long)r.guest.pa, paging_names[cpu->stage2.mode],
			    (unsigned long long)cpu->stage2.cr3);
		put_levels(t, "stage 2 ", &r.host);
		pa = r.pa;
		size = r.page_size;
	} else {
		struct walk_result r = { 0 };
		ok = paging_walk(&env, lin, WALK_READ, WALK_PEEK, &r, &f);
		put_levels(t, "", &r);
		pa = r.pa & cpu->a20_mask;
		size = r.page_size;
	}
	if (ok)
		put(t, "  -> physical %016llx (a %llu KiB page)\n", (unsigned long long)pa,
		    (unsigned long long)(size >> 10));
	else
		put(t, "  -> no translation: a read would fault (%s, error code %x)\n",
		    f.stage == FAULT_STAGE1 ? "#PF" : "stage 2", (unsigned)f.error_code);
}

/* The current VMCS's fields that are not zero, by the SDM's names
 * (Appendix B, vmx/vmcs_fields.def), from the processor's copy. */
static void info_vmcs(struct machine *m, unsigned cpu_index, struct text *t)
{
	struct vmx *v = hv_vmx(&m->hv[cpu_index]);
	if (!v) {
		put(t, "CPU %u has no VMX (the CPU model's extension is not VMX)\n", cpu_index);
		return;
	}
	bool launched;
	uint64_t pa = vmx_current_vmcs(v, &launched);
	if (pa == UINT64_MAX) {
		put(t, "CPU %u has no current VMCS (SDM Vol.3 24.1: the pointer is all ones)\n", cpu_index);
		return;
	}
	put(t, "current VMCS at %016llx, launch state %s:\n", (unsigned long long)pa,
	    launched ? "launched" : "clear");
	size_t n;
	const struct vmcs_field *fields = vmcs_field_table(&n);
	unsigned zero = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t value;
		if (!vmx_peek_vmcs_row(v, fields[i].row, &value))
			continue;
		if (!value) {
			zero++;
			continue;
		}
		put(t, "  %04x %-44s %llx\n", (unsigned)fields[i].encoding, fields[i].name, (unsigned long long)value);
	}
	put(t, "  (%u fields are zero)\n", zero);
}

bool gdb_info(struct machine *m, unsigned cpu_index, const char *what, char *out, size_t len)
{
	struct text t = { out, len, 0 };
	if (len)
		out[0] = 0;
	if (!strcmp(what, "apic"))
		info_apic(m, cpu_index, &t);
	else if (!strncmp(what, "walk", 4) && (what[4] == ' ' || !what[4]))
		info_walk(m->smp.cpu[cpu_index], what[4] ? what + 5 : "", &t);
	else if (!strcmp(what, "vmcs"))
		info_vmcs(m, cpu_index, &t);
	else
		return false;
	return true;
}
