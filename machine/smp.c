/* The machine's processors, their APICs and the round-robin schedule (see
 * smp.h). */
#include <stdio.h>
#include <stdlib.h>

#include "machine/machine.h"
#include "machine/fail.h"
#include "machine/smp.h"
#include "emu/apic.h"
#include "emu/cpu_model.h"
#include "emu/event_step.h"
#include "emu/insn.h"
#include "emu/quirks.h"

/* A local APIC output to its core: pin is the LINE_* bit. */
static void core_line(void *opaque, unsigned line, bool level)
{
	cpu_set_line(opaque, line, level);
}

static void core_startup(void *opaque, uint8_t vector)
{
	cpu_sipi(opaque, vector);
}

struct cpu *smp_current(struct machine *m)
{
	return m->smp.current ? m->smp.current : &m->cpu;
}

/* The local APIC's quirks (devices/lapic.h) among the registry's. */
static unsigned lapic_quirks(uint64_t set)
{
	static const struct { enum quirk_id id; unsigned lapic; } map[] = {
		{ QK_BOCHS_TSC_DEADLINE_KEPT, LAPIC_QUIRK_TSC_DEADLINE_KEPT },
		{ QK_BOCHS_X2APIC_LDR_ZERO, LAPIC_QUIRK_X2APIC_LDR_ZERO },
		{ QK_BOCHS_X2APIC_RESERVED_IGNORED, LAPIC_QUIRK_X2APIC_RESERVED_IGNORED },
		{ QK_BOCHS_SELF_IPI_NO_SEND_ERROR, LAPIC_QUIRK_SELF_IPI_NO_SEND_ERROR },
		{ QK_BOCHS_APIC_DISABLED_TO_X2APIC, LAPIC_QUIRK_ID_FF_AFTER_DISABLE },
	};
	unsigned q = 0;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (set & QUIRK_BIT(map[i].id))
			q |= map[i].lapic;
	return q;
}

bool smp_setup(struct machine *m, const struct machine_config *cfg, char *err, size_t errlen)
{
	struct smp *s = &m->smp;
	s->n = cfg->n_cpus ? cfg->n_cpus : 1;
	s->quantum = cfg->quantum ? cfg->quantum : SMP_DEFAULT_QUANTUM;
	s->limit = cfg->max_insns;
	s->has_apic = cpu_model_has(cfg->model, 1, 3, 9);
	if (s->n > 1 && !s->has_apic)
		return fail(err, errlen, "--smp %u needs a CPU model with a local APIC (CPUID.1:EDX.APIC), "
			    "which '%s' has not", s->n, cfg->model->name);
	s->cpu[0] = &m->cpu;
	s->current = &m->cpu;
	for (unsigned i = 1; i < s->n; i++) {
		struct cpu *c = calloc(1, sizeof(*c));
		if (!c)
			return fail(err, errlen, "cannot allocate CPU %u", i);
		s->cpu[i] = c;
		cpu_init(c, cfg->model, &m->mem, &m->io);
		c->tlb_uncached = cfg->tlb_uncached;
		c->icount_limit = cfg->max_insns;
		trace_attach(&m->trace, c, cfg->trace);
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct cpu *c = s->cpu[i];
		c->halt_yields = s->n > 1;
		/* --seed: RDRAND/RDSEED values, a sequence per CPU (emu/random.c). */
		cpu_seed_random(c, cfg->rng_seed ^ (uint64_t)i * 0xd1b54a32d192ed03ull);
		/* The ring through which stores reach every CPU's decoded code. */
		c->next_cpu = s->n > 1 ? s->cpu[(i + 1) % s->n] : NULL;
	}
	if (!s->has_apic)
		return true;

	/* The APIC bus: APIC IDs are CPU numbers; the I/O APIC hears the EOIs. */
	ioapic_init(&s->ioapic, &s->bus);
	s->ioapic.version_20h = cfg->quirks & QUIRK_BIT(QK_QEMU_IOAPIC_VERSION_20H);
	if (!ioapic_map(&s->ioapic, &m->mem, IOAPIC_DEFAULT_BASE))
		return fail(err, errlen, "internal error: the I/O APIC window overlaps another device");
	s->bus.n = s->n;
	s->bus.eoi = ioapic_eoi;
	s->bus.eoi_opaque = &s->ioapic;
	bool x2apic = cpu_model_has(cfg->model, 1, 2, 21);
	bool deadline = cpu_model_has(cfg->model, 1, 2, 24);
	for (unsigned i = 0; i < s->n; i++) {
		struct cpu *c = s->cpu[i];
		struct lapic *l = &s->lapic[i];
		lapic_init(l, i, x2apic, deadline, &m->clock, LAPIC_TIMER_HZ, &s->bus);
		l->self_nmi = cfg->model->vendor == VENDOR_AMD;
		l->quirks = lapic_quirks(cfg->quirks);
		l->core = (struct lapic_core){
			.intr = { core_line, c, LINE_INTR }, .nmi = { core_line, c, LINE_NMI },
			.smi = { core_line, c, LINE_SMI }, .init = { core_line, c, LINE_INIT },
			.startup = core_startup, .startup_opaque = c,
		};
		s->bus.lapic[i] = l;
		c->intr_ack = lapic_intr_ack;
		c->intr_ctx = l;
		/* SDM Vol.3 8.4.1: one BSP (IA32_APIC_BASE.BSP), the APs wait for
		 * a SIPI after their power-up self-configuration. */
		if (i > 0) {
			c->apic_base &= ~APIC_BASE_BSP;
			c->wait_for_sipi = c->halted = true;
		}
		cpu_attach_lapic(c, l, i);
	}
	return true;
}

void smp_destroy(struct machine *m)
{
	for (unsigned i = 1; i < m->smp.n; i++)
		if (m->smp.cpu[i]) {
			cpu_destroy(m->smp.cpu[i]);
			free(m->smp.cpu[i]);
			m->smp.cpu[i] = NULL;
		}
}

void smp_firmware_handoff(struct machine *m)
{
	if (!m->smp.has_apic)
		return;
	/* SVR 1FFH (enabled, spurious vector FFH), LINT0 ExtINT level, LINT1 NMI
	 * level (SDM Vol.3 10.5.1: NMI is always edge-triggered; the bit is
	 * SeaBIOS's value). */
	struct lapic *l = &m->smp.lapic[0];
	lapic_mmio_write(l, 0xf0, 0x1ff);
	lapic_mmio_write(l, 0x350, 0x8700);
	lapic_mmio_write(l, 0x360, 0x8400);
}

void smp_set_lint(void *opaque, unsigned pin, bool level)
{
	struct machine *m = opaque;
	/* The LINT pins of every processor are wired together (the MP
	 * specification's virtual wire mode; QEMU delivers the 8259 to every CPU
	 * whose LINT0 accepts it). */
	for (unsigned i = 0; i < m->smp.n; i++)
		lapic_set_lint(&m->smp.lapic[i], pin, level);
}

void smp_wire_legacy(struct machine *m)
{
	struct smp *s = &m->smp;
	if (!s->has_apic)
		return;          /* pc_legacy's wiring: the 8259A on the BSP's INTR */
	m->pc.pic.intr = (struct irq_line){ smp_set_lint, m, 0 };
	m->pc.rtc.nmi_out = (struct irq_line){ smp_set_lint, m, 1 };
	for (unsigned i = 0; i < s->n; i++) {
		s->lapic[i].extint_ack = pic8259_intack;
		s->lapic[i].extint_opaque = &m->pc.pic;
		s->cpu[i]->intr_ack = lapic_intr_ack;
		s->cpu[i]->intr_ctx = &s->lapic[i];
	}
	pc_legacy_wire_ioapic(&m->pc, ioapic_set_irq, &s->ioapic);
}

/* ---- the schedule ---- */

/* Give c the turn at machine time now: its clock catches up (it was halted or
 * waiting for its turn), the machine's timers become its deadline. */
static void switch_to(struct machine *m, struct cpu *c, uint64_t now)
{
	m->smp.current = c;
	if (c->icount < now)
		c->icount = now;
	c->deadlines[DEADLINE_MACHINE].at = vclock_next(&m->clock);
}

/* The earliest time something can happen while every CPU is halted: the
 * machine's timers and each CPU's own deadlines (a hypervisor's, a spurious
 * interrupt's). */
static uint64_t next_event_time(struct machine *m)
{
	uint64_t next = vclock_next(&m->clock);
	for (unsigned i = 0; i < m->smp.n; i++)
		for (unsigned d = 0; d < DEADLINE_SOURCES; d++) {
			uint64_t at = m->smp.cpu[i]->deadlines[d].at;
			if (d != DEADLINE_MACHINE && at < next)
				next = at;
		}
	return next;
}

status_t smp_run(struct machine *m, const volatile sig_atomic_t *stop)
{
	struct smp *s = &m->smp;
	if (s->n == 1) {
		struct cpu *c = &m->cpu;
		s->current = c;
		/* A run a debugger stopped while the CPU waited in HLT goes on
		 * waiting (several CPUs do so by their schedule): where a run is
		 * stopped does not change what it does, which replaying from a
		 * snapshot relies on (cli/reverse.h). The limit may have moved. */
		if (s->resume && c->halted) {
			cpu_set_deadline(c, DEADLINE_MACHINE, c->deadlines[DEADLINE_MACHINE].at);
			status_t st = event_wait(c);
			if (st != ST_OK)
				return st;
		}
		return cpu_run(c);
	}
	uint64_t now = m->cpu.icount;
	unsigned first = 0;
	uint64_t resume_end = 0;   /* the resumed turn's end, 0: a new turn */
	if (s->resume && s->current) {
		while (s->cpu[first] != s->current)
			first++;
		now = s->current->icount;
		/* A turn stopped at its end (or given up by PAUSE, which set
		 * turn_end to the time) is over: the next CPU's comes, as it would
		 * have without the stop; an empty turn could still take an event. */
		if (s->turn_end > now)
			resume_end = s->turn_end;
		else
			first = (first + 1) % s->n;
	}
	unsigned idle = 0;         /* consecutive turns given up with time standing still */
	for (unsigned i = first;; i = (i + 1) % s->n) {
		struct cpu *c = s->cpu[i];
		switch_to(m, c, now);
		/* Saturating: a turn never ends before it starts (a wrapped end
		 * would give every CPU empty turns with time standing still). */
		uint64_t turn_end = now > UINT64_MAX - s->quantum ? UINT64_MAX : now + s->quantum;
		if (resume_end) {
			turn_end = resume_end;
			resume_end = 0;
		}
		s->turn_end = turn_end;
		if (s->limit && turn_end > s->limit)
			turn_end = s->limit;
		c->icount_limit = turn_end;
		status_t st = cpu_run(c);
		bool moved = c->icount > now;
		if (moved)
			now = c->icount;
		if (st == ST_STOP && c->turn_yielded) {
			/* A PAUSE gave the turn up (emu/wait.c): the next CPU's. */
			c->turn_yielded = false;
			s->turn_end = now;
			if (m->dexit.exited || *stop || (s->limit && now >= s->limit) || m->boot.requested.what ||
			    (m->cfg->run_ended && m->cfg->run_ended(m->cfg->run_ended_ctx)))
				return st;
			idle = 0;
		} else if (st == ST_STOP) {
			/* The end of the turn, or a request that ends the run (debug
			 * exit, a signal, the instruction limit, a reset or power-off,
			 * the front end's: the CLI's livelock detector). */
			if (m->dexit.exited || *stop || (s->limit && now >= s->limit) || now < turn_end ||
			    m->boot.requested.what || (m->cfg->run_ended && m->cfg->run_ended(m->cfg->run_ended_ctx)))
				return st;
			idle = 0;
		} else if (st == ST_HALT) {
			idle = moved ? 0 : idle + 1;
		} else {
			return st;
		}
		if (*stop)
			return ST_STOP;
		if (idle < s->n)
			continue;
		/* Every CPU halted and nothing woke one: time jumps to the next
		 * timer (the next turn's CPU runs it as its deadline, --realtime
		 * pacing included), or the machine has halted for good: the BSP
		 * reports it. */
		idle = 0;
		uint64_t next = next_event_time(m);
		if (next == UINT64_MAX) {
			s->current = &m->cpu;
			return ST_HALT;
		}
		if (s->limit && next >= s->limit) {
			c->icount = s->limit;
			return ST_STOP;
		}
		now = next;
	}
}
