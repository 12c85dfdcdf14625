/* The I/O APIC with the 8254 as its source (82093AA datasheet 3.2; SDM Vol.3
 * 10.8.4, 10.8.5): identification, ISA IRQ 0 on pin 2 (the interrupt source
 * override of QEMU's machine) with the 8259A pair masked, edge-triggered
 * periods timed with the TSC, the mask bit (an edge on a masked pin is lost),
 * a logical destination, NMI delivery, and a level-triggered pin: the 8254's
 * mode 0 holds OUT high after its count, so remote IRR is set when the local
 * APIC accepts the interrupt, nothing more comes until the EOI, the EOI's
 * broadcast clears remote IRR and the still-asserted pin interrupts again; a
 * new mode word drops OUT and the next EOI leaves the pin idle. */
#include "lib/apic.h"

#define PIN 2            /* ISA IRQ 0 */
#define VEC_EDGE  0x30
#define VEC_LEVEL 0x31
#define PIT_HZ    1193182u
#define RE_REMOTE_IRR (1u << 14)
#define RE_LEVEL  (1u << 15)
#define RE_MASKED (1u << 16)

static uint32_t my_id, ticks_per_ms;
static volatile uint64_t tsc_at[8];
static volatile uint32_t n_edge;

static void edge_hook(uint32_t v)
{
	if (v != VEC_EDGE)
		return;
	if (n_edge < 8)
		tsc_at[n_edge] = rdtsc();
	n_edge++;
}

/* 8254 counter 0: control word (LSB then MSB, mode, binary), then the count. */
static void pit0(unsigned mode, uint16_t count)
{
	outb(0x43, (uint8_t)(0x30 | mode << 1));
	outb(0x40, (uint8_t)count);
	outb(0x40, (uint8_t)(count >> 8));
}

static uint32_t redir_low(unsigned pin) { return ioapic_read(0x10 + 2 * pin); }

/* Interrupts on for about ms milliseconds (a long spin when the TSC rate is
 * unknown), when none should come. */
static void window_ms(uint32_t ms)
{
	uint64_t until = rdtsc() + (uint64_t)ms * (ticks_per_ms ? ticks_per_ms : 3000000);
	while (rdtsc() < until) {
		sti();
		__asm__ volatile("nop; nop; nop; nop");
		cli();
	}
}

static void wait_count(volatile uint32_t *n, uint32_t target)
{
	for (uint32_t i = 0; i < 1000 && *n < target; i++)
		sti_hlt();
}

static void test_identification(void)
{
	uint32_t ver = ioapic_read(0x01);
	/* 3.2.2: maximum redirection entry 17H (24 pins); version 11H. */
	check("maximum redirection entry", (ver >> 16) & 0xff, 0x17);
	check_quirk("version 11H (82093AA)", ver & 0xff, 0x11, "QEMU 7.2 models the I/O xAPIC, version 20H");
	/* 3.2.1: the ID in bits 27:24 is read/write. */
	uint32_t id = ioapic_read(0x00);
	ioapic_write(0x00, 0x0a000000);
	check("ID register bits 27:24", ioapic_read(0x00) & 0x0f000000, 0x0a000000);
	ioapic_write(0x00, id);
	/* 3.2.4: every entry masked after reset. */
	uint32_t masked = 1;
	for (unsigned pin = 0; pin < 24; pin++)
		masked &= (redir_low(pin) >> 16) & 1;
	check("all entries masked", masked, 1);
	/* Writable fields only: remote IRR and delivery status read-only. */
	ioapic_route(5, 0xff00000000017f7full);
	check("delivery status and remote IRR read-only", redir_low(5) & 0x1ffff, 0x12f7f);
	ioapic_route(5, RE_MASKED);
}

static void test_edge(void)
{
	irq_reset();
	apic_catch(VEC_EDGE);
	irq_hook = edge_hook;
	n_edge = 0;
	/* Edge, fixed, physical destination this APIC. */
	ioapic_route(PIN, (uint64_t)my_id << 56 | VEC_EDGE);
	pit0(2, 1193);                       /* rate generator, about 1 kHz */
	wait_count(&n_edge, 4);
	cli();
	check("IRQ0 through pin 2", n_edge >= 4, 1);
	uint32_t period = (uint32_t)(tsc_at[3] - tsc_at[2]);
	gprintf("# 8254 period through the I/O APIC: %u TSC ticks\n", period);
	if (ticks_per_ms)
		check_quirk("period = 1193 PIT clocks", within(period, muldiv(1193 * 1000, ticks_per_ms, PIT_HZ), 1),
			    1, "QEMU TCG times follow the host clock");
	/* Masked: no more interrupts. */
	ioapic_route(PIN, (uint64_t)my_id << 56 | RE_MASKED | VEC_EDGE);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	n_edge = 0;
	window_ms(5);
	check("masked pin: no interrupts", n_edge, 0);
	/* A logical destination (flat, LDR bit 0). */
	apic_write(APIC_DFR, 0xffffffffu);
	apic_write(APIC_LDR, 0x01000000);
	ioapic_route(PIN, (uint64_t)0x01 << 56 | (1u << 11) | VEC_EDGE);
	wait_count(&n_edge, 2);
	cli();
	check("logical destination", n_edge >= 2, 1);
	ioapic_route(PIN, RE_MASKED);
	sti();
	__asm__ volatile("nop; nop");
	cli();
	irq_hook = 0;
}

/* 3.2.4: "Edge-sensitive interrupts signaled on a masked interrupt pin are
 * ignored (i.e., not delivered or held pending)". */
static void test_masked_edge_lost(void)
{
	irq_reset();
	apic_catch(VEC_EDGE);
	ioapic_route(PIN, (uint64_t)my_id << 56 | RE_MASKED | VEC_EDGE);
	pit0(0, 100);                        /* OUT rises once, after 100 clocks */
	window_ms(2);
	ioapic_route(PIN, (uint64_t)my_id << 56 | VEC_EDGE);
	window_ms(2);
	check_quirk("an edge while masked is lost", irq_seen[VEC_EDGE].count, 0,
		    "QEMU 7.2 holds the edge and delivers it when unmasked");
	ioapic_route(PIN, RE_MASKED);
}

static void test_nmi(void)
{
	irq_reset();
	apic_catch(2 | APIC_NO_EOI);
	pit0(0, 0xffff);                     /* OUT low */
	ioapic_route(PIN, (uint64_t)my_id << 56 | 0x400);   /* NMI delivery, edge */
	pit0(0, 100);
	/* Up to 100 ms for it (QEMU's 8254 runs on a host timer, late on a
	 * loaded host), then 2 ms in which no second one may come. */
	uint64_t until = rdtsc() + 100ull * (ticks_per_ms ? ticks_per_ms : 3000000);
	while (!irq_seen[2].count && rdtsc() < until)
		__asm__ volatile("pause");
	window_ms(2);
	check("NMI delivery mode: one NMI", irq_seen[2].count, 1);
	ioapic_route(PIN, RE_MASKED);
}

static void test_level_remote_irr(void)
{
	irq_reset();
	apic_catch(VEC_LEVEL | APIC_NO_EOI);
	pit0(0, 0xffff);                     /* OUT low: the pin idle */
	ioapic_route(PIN, (uint64_t)my_id << 56 | RE_LEVEL | VEC_LEVEL);
	check("remote IRR clear while idle", redir_low(PIN) & RE_REMOTE_IRR, 0);
	pit0(0, 200);                        /* OUT high after 200 clocks, and stays */
	wait_count(&irq_seen[VEC_LEVEL].count, 1);
	cli();
	check("level: one interrupt", irq_seen[VEC_LEVEL].count, 1);
	check("remote IRR set once accepted", redir_low(PIN) & RE_REMOTE_IRR, RE_REMOTE_IRR);
	check("TMR bit set for the level vector (SDM 10.8.4)",
	      (apic_read(APIC_TMR + (VEC_LEVEL / 32) * 0x10) >> (VEC_LEVEL % 32)) & 1, 1);
	apic_write(APIC_TPR, 0);
	window_ms(2);
	check("nothing more before the EOI", irq_seen[VEC_LEVEL].count, 1);
	/* The EOI broadcast clears remote IRR; the pin is still asserted. */
	apic_write(APIC_EOI, 0);
	wait_count(&irq_seen[VEC_LEVEL].count, 2);
	cli();
	check("EOI with the pin asserted: the interrupt again", irq_seen[VEC_LEVEL].count, 2);
	check("remote IRR set again", redir_low(PIN) & RE_REMOTE_IRR, RE_REMOTE_IRR);
	/* A mode word drives OUT low (8254 datasheet): EOI, and the pin is idle. */
	pit0(0, 0xffff);
	apic_write(APIC_EOI, 0);
	check("remote IRR cleared by the EOI", redir_low(PIN) & RE_REMOTE_IRR, 0);
	window_ms(2);
	check("no interrupt with the pin idle", irq_seen[VEC_LEVEL].count, 2);
	ioapic_route(PIN, RE_MASKED);
}

/* pc-testdev's IRQ lines (port 2000H + n, QEMU hw/misc/pc-testdev.c) drive
 * GSI n: line 10 is ISA IRQ 10 (the 8259A, masked here, and I/O APIC pin 10),
 * lines 16-23 the I/O APIC's PCI pins alone. Each pin level-triggered
 * (82093AA 3.2.4): one interrupt while the line is high and remote IRR set
 * until the EOI; with the line low first, the EOI leaves the pin idle. */
#define VEC_GSI 0x40
static void test_testdev_gsi(void)
{
	static const unsigned pins[] = { 10, 16, 17, 18, 19, 20, 21, 22, 23 };
	/* QEMU 7.2's pc-testdev asserts isairq < 16 (hw/isa/isa-bus.c) and
	 * aborts for lines 16-23: only line 10 is tried there. */
	unsigned n_pins = quirk_active("qemu-tcg") ? 1 : sizeof(pins) / sizeof(pins[0]);
	uint32_t once = 0, held = 0, idle_after = 0;
	for (unsigned i = 0; i < n_pins; i++) {
		unsigned pin = pins[i];
		uint8_t vec = (uint8_t)(VEC_GSI + i);
		irq_reset();
		apic_catch(vec | APIC_NO_EOI);
		outb((uint16_t)(0x2000 + pin), 0);
		ioapic_route(pin, (uint64_t)my_id << 56 | RE_LEVEL | vec);
		outb((uint16_t)(0x2000 + pin), 1);
		wait_count(&irq_seen[vec].count, 1);
		cli();
		window_ms(1);
		once += irq_seen[vec].count == 1;
		held += (redir_low(pin) & RE_REMOTE_IRR) != 0;
		outb((uint16_t)(0x2000 + pin), 0);
		apic_write(APIC_EOI, 0);
		window_ms(1);
		idle_after += irq_seen[vec].count == 1 && !(redir_low(pin) & RE_REMOTE_IRR);
		ioapic_route(pin, RE_MASKED);
	}
	if (n_pins == 1)
		skip_quirk("pc-testdev lines 16-23 on I/O APIC pins 16-23",
			   "QEMU 7.2's pc-testdev aborts on lines 16-23 (isa_get_irq asserts < 16)");
	note("pc-testdev lines tried: %u", n_pins);
	check("pc-testdev lines 10, 16-23: one interrupt each through its I/O APIC pin", once, n_pins);
	check("remote IRR held until the EOI", held, n_pins);
	check("the line low, the EOI leaves the pin idle", idle_after, n_pins);
}

void guest_main(void)
{
	desc_init();
	pic_mask_all();
	if (!has_apic())
		skip_all("no local APIC (CPUID.1:EDX.APIC = 0)");
	uint32_t r[4];
	cpuid(0, 0, r);
	if (r[0] >= 0x15) {
		cpuid(0x15, 0, r);
		if (r[0] && r[1] && r[2])
			ticks_per_ms = muldiv(r[2] / 1000, r[1], r[0]);
	}
	apic_enable();
	my_id = apic_read(APIC_ID) >> 24;
	cli();
	test_identification();
	test_edge();
	test_masked_edge_lost();
	test_nmi();
	test_level_remote_irr();
	test_testdev_gsi();
	tap_finish();
}
