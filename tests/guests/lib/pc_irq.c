/* Guest-side helpers for the PC's interrupt controllers and timers; see
 * pc_irq.h. Port numbers and bits: Intel 8259A and 8254 datasheets, the
 * MC146818A datasheet, IBM PC/AT Technical Reference (ports 61H, 70H). */
#include "pc_irq.h"

volatile uint32_t irq_count[256];
volatile uint64_t irq_tsc[256];
volatile uint8_t irq_order[32];
volatile uint64_t irq_when[32];
volatile uint32_t irq_seen;
volatile uint32_t irq_no_eoi, rtc_keep_c;
volatile uint8_t rtc_last_c;

static void cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

uint64_t tsc_hz(void)
{
	uint32_t r[4];
	cpuid(0, r);
	uint32_t max = r[0];
	/* SDM Vol.2 CPUID leaf 15H: TSC = ECX * EBX / EAX when EBX and ECX are
	 * enumerated; leaf 16H: EAX[15:0] the base frequency in MHz. */
	if (max >= 0x15) {
		cpuid(0x15, r);
		if (r[0] && r[1] && r[2])
			return udiv64((uint64_t)r[2] * r[1], r[0]);
	}
	if (max >= 0x16) {
		cpuid(0x16, r);
		if (r[0] & 0xffff)
			return (uint64_t)(r[0] & 0xffff) * 1000000u;
	}
	return 0;
}

void pic_remap(uint8_t icw4_extra)
{
	outb(0x20, 0x11);                          /* ICW1: edge, cascade, ICW4 */
	outb(0x21, IRQ_BASE_MASTER);               /* ICW2 */
	outb(0x21, 0x04);                          /* ICW3: slave on IR2 */
	outb(0x21, (uint8_t)(0x01 | icw4_extra));  /* ICW4: 8086 mode */
	outb(0xa0, 0x11);
	outb(0xa1, IRQ_BASE_SLAVE);
	outb(0xa1, 0x02);                          /* slave ID 2 */
	outb(0xa1, (uint8_t)(0x01 | icw4_extra));
	pic_set_mask(0xffff);
}

void pic_set_mask(uint16_t mask)
{
	outb(0x21, (uint8_t)mask);
	outb(0xa1, (uint8_t)(mask >> 8));
}

uint16_t pic_get_mask(void)
{
	return (uint16_t)(inb(0x21) | inb(0xa1) << 8);
}

void pic_eoi(unsigned irq)
{
	if (irq >= 8)
		outb(0xa0, 0x20);
	outb(0x20, 0x20);
}

uint8_t pic_irr(unsigned chip)
{
	uint16_t port = chip ? 0xa0 : 0x20;
	outb(port, 0x0a);
	return inb(port);
}

uint8_t pic_isr(unsigned chip)
{
	uint16_t port = chip ? 0xa0 : 0x20;
	outb(port, 0x0b);
	uint8_t v = inb(port);
	outb(port, 0x0a);
	return v;
}

static int count_handler(struct trap_frame *f)
{
	uint32_t v = f->vector & 0xff;
	uint64_t now = rdtsc();
	irq_tsc[v] = now;
	irq_count[v]++;
	if (irq_seen < sizeof(irq_order)) {
		irq_order[irq_seen] = (uint8_t)v;
		irq_when[irq_seen] = now;
	}
	irq_seen++;
	unsigned irq = v >= IRQ_BASE_SLAVE ? v - IRQ_BASE_SLAVE + 8 : v - IRQ_BASE_MASTER;
	if (irq == 8 && rtc_keep_c)
		rtc_keep_c--;
	else if (irq == 8)
		rtc_last_c = cmos_read(0x0c);
	if (!irq_no_eoi)
		pic_eoi(irq);
	return 1;
}

void irq_count_vectors(unsigned first, unsigned n)
{
	for (unsigned v = first; v < first + n && v < 256; v++)
		trap_handlers[v] = count_handler;
}

void irq_reset_counts(void)
{
	gmemset((void *)irq_count, 0, sizeof(irq_count));
	gmemset((void *)irq_order, 0, sizeof(irq_order));
	irq_seen = 0;
}

int wait_count(volatile uint32_t *counter, uint32_t target, uint32_t max_halts)
{
	for (uint32_t i = 0; i < max_halts; i++) {
		if (*counter >= target)
			return 1;
		sti_hlt();
	}
	return *counter >= target;
}

void tsc_delay(uint64_t ticks)
{
	uint64_t end = rdtsc() + ticks;
	while (rdtsc() < end)
		__asm__ volatile("pause");
}

void pit_program(unsigned ch, unsigned mode, uint16_t count)
{
	outb(0x43, (uint8_t)(ch << 6 | 3 << 4 | mode << 1));
	outb((uint16_t)(0x40 + ch), (uint8_t)count);
	outb((uint16_t)(0x40 + ch), (uint8_t)(count >> 8));
}

uint16_t pit_latch(unsigned ch)
{
	outb(0x43, (uint8_t)(ch << 6));
	uint16_t v = inb((uint16_t)(0x40 + ch));
	return (uint16_t)(v | inb((uint16_t)(0x40 + ch)) << 8);
}

uint8_t cmos_read(uint8_t index)
{
	outb(0x70, index & 0x7f);
	return inb(0x71);
}

void cmos_write(uint8_t index, uint8_t value)
{
	outb(0x70, index & 0x7f);
	outb(0x71, value);
}

int within(uint64_t got, uint64_t want, unsigned lo_pct, unsigned hi_pct)
{
	return got * 100 >= want * lo_pct && got * 100 <= want * hi_pct;
}

void rtc_sleep(unsigned n)
{
	uint16_t mask = pic_get_mask();
	uint32_t start = irq_count[IRQ_BASE_SLAVE];
	cmos_write(0x0a, 0x26);                    /* 32.768 kHz, rate 6: 1024 Hz */
	cmos_read(0x0c);
	cmos_write(0x0b, (uint8_t)(cmos_read(0x0b) | 0x40));   /* PIE */
	pic_set_mask(mask & (uint16_t)~((1u << 8) | (1u << 2)));
	wait_count(&irq_count[IRQ_BASE_SLAVE], start + n, 4 * n + 64);
	cli();
	cmos_write(0x0b, (uint8_t)(cmos_read(0x0b) & ~0x40));
	cmos_read(0x0c);
	pic_set_mask(mask);
}

uint64_t udiv64(uint64_t n, uint32_t d)
{
	uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
	uint32_t qhi = hi / d, r = hi % d, qlo;
	__asm__("divl %2" : "=a"(qlo), "+d"(r) : "rm"(d), "a"(lo));
	return (uint64_t)qhi << 32 | qlo;
}

void print_u64(uint64_t v)
{
	char buf[24];
	int i = 0;
	do {
		uint64_t q = udiv64(v, 10);
		buf[i++] = (char)('0' + (v - q * 10));
		v = q;
	} while (v);
	while (i)
		putch(buf[--i]);
}

void pit_wait(uint32_t k)
{
	static int running;
	if (!running) {
		pit_program(0, 2, 0);
		running = 1;
	}
	uint16_t start = pit_latch(0);
	uint32_t done = 0, limit = 100000000;
	while (done < k && limit--) {
		uint16_t now = pit_latch(0);
		done += (uint16_t)(start - now);    /* CE counts down, wrapping */
		start = now;
	}
}

void check_timing(const char *name, int ok)
{
	check_quirk(name, ok != 0, 1, "QEMU TCG follows the host's clock: a loaded host stretches measured times");
}
