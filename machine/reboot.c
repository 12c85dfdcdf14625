/* The hardware half of a guest's reset; see machine/reboot.h. */
#include "machine/reboot.h"

#include "machine/machine.h"
#include "devices/i440fx.h"
#include "emu/apic.h"
#include "emu/event_step.h"

/* One CPU back to RESET at machine time now: the registers, MSRs, x87/SSE
 * state, its local APIC (SDM Vol.3 10.4.7.1), its TLB and decoded code
 * (cpu_reset()); its clock is the machine's, which a reset does not turn
 * back, and its TSC reads 0 again (SDM Vol.3 17.17: "the TSC is reset to zero
 * following a RESET"). */
static void reset_cpu(struct cpu *c, uint64_t now, uint64_t limit, bool bsp)
{
	cpu_reset(c);
	c->icount = now;
	c->tsc_offset = 0 - now;
	c->icount_limit = limit;
	/* SDM Vol.3 8.4.1: one BSP; the APs wait for INIT-SIPI-SIPI again. */
	if (!bsp && c->lapic) {
		c->apic_base &= ~APIC_BASE_BSP;
		c->wait_for_sipi = c->halted = true;
	}
}

/* The RTC's RESET# input (MC146818A data sheet, "RESET"): PIE, AIE, UIE and
 * SQWE in register B and the flags of register C are cleared; the time, the
 * divider and the CMOS RAM are battery-backed and stay. Done through the
 * ports, so the device keeps its timer in step; the NMI mask stays. */
static void reset_rtc(struct iobus *io, const struct rtc *r)
{
	enum { PIE = 0x40, AIE = 0x20, UIE = 0x10, SQWE = 0x08 };
	uint8_t nmi = r->nmi_masked ? 0x80 : 0;
	iobus_write(io, RTC_PORT, 1, nmi | RTC_REG_B);
	uint8_t b = (uint8_t)iobus_read(io, RTC_PORT + 1, 1);
	iobus_write(io, RTC_PORT + 1, 1, b & (uint8_t)~(PIE | AIE | UIE | SQWE));
	iobus_write(io, RTC_PORT, 1, nmi | RTC_REG_C);
	(void)iobus_read(io, RTC_PORT + 1, 1);      /* reading C clears its flags */
}

/* The 8259A pair, the 8254 and the HPET as at power-on (their timers
 * cancelled first: init forgets them, the clock would not). */
static void reset_legacy(struct pc_legacy *pc, struct vclock *clock)
{
	for (unsigned i = 0; i < PIT_CHANNELS; i++)
		if (pc->pit.ch[i].timer.armed)
			vtimer_cancel(clock, &pc->pit.ch[i].timer);
	for (unsigned i = 0; i < HPET_TIMERS; i++)
		if (pc->hpet.t[i].timer.armed)
			vtimer_cancel(clock, &pc->hpet.t[i].timer);
	pic8259_init(&pc->pic);
	pit8254_init(&pc->pit, clock);
	hpet_init(&pc->hpet, clock, pc->hpet.route_cap);
}

/* The 8042 (its keyboard with it) and port 0x92 as at power-on, wired as
 * before: both A20 gates enabled again (devices/reset.h, i8042_init). */
static void reset_boot_devices(struct pc_boot *b)
{
	struct i8042 *c = &b->i8042;
	struct irq_line irq1 = c->irq1, irq12 = c->irq12;
	void (*set_a20)(void *, bool) = c->set_a20;
	void *a20_opaque = c->a20_opaque;
	bool system_flag_apart = c->system_flag_apart;   /* a quirk: the machine's, not state */
	i8042_init(c, &b->power);
	c->system_flag_apart = system_flag_apart;
	c->irq1 = irq1;
	c->irq12 = irq12;
	i8042_connect_a20(c, set_a20, a20_opaque);
	b->a20_8042 = c->output_port & I8042_OUT_A20;
	reset_ports_init(&b->reset, &b->power, b->reset.set_a20, b->reset.a20_opaque);
	b->requested = (struct pc_power_state){ 0 };
	/* The PM blocks at power-on, PMBA/PMBASE where the tables say (a BIOS
	 * programs its own again). */
	if (b->chipset == PC_Q35) {
		ich9_lpc_init(&b->lpc, b->lpc.acpi.clock, &b->power, b->lpc.acpi.sci);
		ich9_lpc_program(&b->lpc);
	} else {
		piix4_pm_init(&b->pm, b->pm.acpi.clock, &b->power, b->pm.acpi.sci);
		piix4_pm_program(&b->pm);
		/* 82441FX 3.2.18, 3.2.23: PAM back to 00h (the BIOS area reads the
		 * ROM again: a shadowing BIOS copies itself anew), SMRAM to 02h,
		 * D_LCK cleared. */
		struct pci_function *host = pci_function_at(&b->pci, 0, 0, 0);
		if (host)
			i440fx_chipset_init(host);
	}
}

void reboot_reset_hardware(struct machine *m)
{
	struct smp *s = &m->smp;
	uint64_t now = smp_current(m)->icount;   /* the machine's time (machine/smp.h) */
	for (unsigned i = 0; i < s->n; i++)
		if (s->cpu[i]->icount > now)
			now = s->cpu[i]->icount;
	if (s->has_apic) {
		bool version_20h = s->ioapic.version_20h;   /* a quirk: the machine's, not state */
		ioapic_init(&s->ioapic, &s->bus);
		s->ioapic.version_20h = version_20h;
	}
	reset_rtc(&m->io, &m->pc.rtc);
	reset_legacy(&m->pc, &m->clock);
	reset_boot_devices(&m->boot);
	struct uart16550 kept = m->uart;    /* the wiring survives the reset, and the */
	uart_init(&m->uart, m->uart.base, m->uart.out);   /* count of bytes sent so far */
	m->uart.irq = kept.irq;
	m->uart.tx_count = kept.tx_count;
	m->uart.tx_written = kept.tx_written;
	for (unsigned i = 0; i < s->n; i++)
		reset_cpu(s->cpu[i], now, s->n > 1 ? 0 : s->limit, i == 0);
	s->current = &m->cpu;
	/* The machine's timers (the RTC's, the keys', the window's) are every
	 * CPU's deadline again: cpu_reset() forgot them. */
	for (unsigned i = 0; i < s->n; i++)
		cpu_set_deadline(s->cpu[i], DEADLINE_MACHINE, vclock_next(&m->clock));
}
