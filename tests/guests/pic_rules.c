/* The 8259A pair's rules with real sources: the 8254's OUT0 on IRQ0 and the
 * RTC on IRQ8 (slave IR0, through the master's IR2). Intel 8259A datasheet:
 * initialisation, IRR/ISR reads, masking, fully nested priority and
 * rotation, EOI kinds, automatic EOI, poll mode, special mask mode, level
 * sensitivity (LTIM), and the spurious IR7/IR15 an INTA gets when the input
 * went low before it ("Edge and Level Triggered Modes"). */
#include "lib/pc_irq.h"

#define V0 IRQ_BASE_MASTER            /* IRQ0 */
#define V7 (IRQ_BASE_MASTER + 7)
#define V8 IRQ_BASE_SLAVE             /* IRQ8 */
#define V15 (IRQ_BASE_SLAVE + 7)
#define UNMASK_0_8 0xfefa             /* IRQ0, IRQ2 (cascade), IRQ8 */

/* Poll a PIC's IRR until bit is set (or give up). */
static int wait_irr(unsigned chip, uint8_t bit)
{
	for (uint32_t i = 0; i < 5000000; i++)
		if (pic_irr(chip) & bit)
			return 1;
	return 0;
}

/* IRQ0 requested and left high: counter 0 in mode 0 reaches terminal count
 * (OUT0 rises and stays high). */
static int pend_irq0(void)
{
	pit_program(0, 0, 20);
	return wait_irr(0, 0x01);
}

/* IRQ8 requested and left high: the RTC's periodic flag with PIE, register C
 * unread (IRQF holds IRQ until C is read, MC146818A "Register C"). */
static int pend_irq8(void)
{
	cmos_write(0x0a, 0x26);
	cmos_read(0x0c);
	cmos_write(0x0b, 0x42);
	return wait_irr(1, 0x01);
}

static void rtc_quiet(void)
{
	cmos_write(0x0b, 0x02);
	cmos_read(0x0c);
}

/* Let pending interrupts in for a moment. */
static void window(void)
{
	__asm__ volatile("sti; nop; nop; nop; cli" ::: "memory");
}

static void fresh(uint8_t icw4_extra)
{
	cli();
	rtc_quiet();
	pic_remap(icw4_extra);
	irq_reset_counts();
	irq_no_eoi = 0;
	rtc_keep_c = 0;
}

static void init_and_registers(void)
{
	/* ICW1 clears the IMR; OCW1 sets it. */
	pic_set_mask(0xa55a);
	check("IMR reads back", pic_get_mask(), 0xa55a);
	outb(0x20, 0x11);
	outb(0x21, IRQ_BASE_MASTER);
	outb(0x21, 0x04);
	outb(0x21, 0x01);
	check("ICW1 clears the master's IMR", inb(0x21), 0);
	fresh(0);
	/* A request shows in IRR; nothing is in service. */
	check_true("IRQ0 request shows in IRR", pend_irq0());
	check("ISR empty before INTA", pic_isr(0), 0);
	/* ELCR (PIIX): IRQ0-2 fixed edge. */
	outb(0x4d0, 0xff);
	check("ELCR1: IRQ0-2 cannot be level", inb(0x4d0), 0xf8);
	outb(0x4d0, 0x00);
}

static void masking(void)
{
	fresh(0);
	pend_irq0();
	window();
	check("masked IRQ0 is not delivered", irq_count[V0], 0);
	pic_set_mask(0xfffe);
	window();
	check("unmasked, it is", irq_count[V0], 1);
	check("vector = ICW2 base + 0", irq_order[0], V0);
}

static void priority(void)
{
	fresh(0);
	pend_irq8();
	pend_irq0();
	pic_set_mask(UNMASK_0_8);
	window();
	check("both delivered", irq_seen, 2);
	check("IRQ0 before IRQ8 (IR0 above IR2)", irq_order[0], V0);
	check("then IRQ8 through the cascade", irq_order[1], V8);
	/* OCW2 set priority: IR1 lowest, so IR2 comes first. */
	fresh(0);
	outb(0x20, 0xc1);
	pend_irq8();
	pend_irq0();
	pic_set_mask(UNMASK_0_8);
	window();
	check("with IR1 lowest, IRQ8 (IR2) first", irq_order[0], V8);
	/* The RTC's line stays up (register C unread): no new edge on a real
	 * 8259A. QEMU, on real time, may deliver IRQ8 again at the RTC's next
	 * periodic tick before IRQ0 (seen on a loaded host). */
	check_quirk("then IRQ0", irq_order[1], V0,
		    "QEMU delivers IRQ8 again at the RTC's next tick while register C is unread");
	outb(0x20, 0xc7);
}

static void eoi_and_nesting(void)
{
	fresh(0);
	irq_no_eoi = 1;
	pend_irq8();
	pic_set_mask(0xfefb);                       /* IRQ2 and IRQ8 */
	window();
	check("IRQ8 delivered", irq_count[V8], 1);
	check("master ISR: IR2", pic_isr(0), 0x04);
	check("slave ISR: IR0", pic_isr(1), 0x01);
	/* IRQ0 is above the IR2 in service: it nests. */
	pend_irq0();
	pic_set_mask(UNMASK_0_8);
	window();
	check("IRQ0 nests above IRQ8", irq_count[V0], 1);
	check("master ISR: IR0 and IR2", pic_isr(0), 0x05);
	/* A non-specific EOI ends the highest in service. */
	outb(0x20, 0x20);
	check("non-specific EOI ends IR0", pic_isr(0), 0x04);
	/* Specific EOIs name the level. */
	outb(0x20, 0x62);
	check("specific EOI 2 ends IR2", pic_isr(0), 0x00);
	outb(0xa0, 0x60);
	check("specific EOI 0 on the slave", pic_isr(1), 0x00);
	/* While IR0 is in service the lower IR2 (IRQ8) waits. */
	fresh(0);
	irq_no_eoi = 1;
	pend_irq0();
	pic_set_mask(0xfffe);
	window();
	pend_irq8();
	pic_set_mask(UNMASK_0_8);
	window();
	check("IRQ8 waits while IR0 is in service", irq_count[V8], 0);
	outb(0x20, 0x20);
	window();
	check("and comes after the EOI", irq_count[V8], 1);
}

static void auto_eoi(void)
{
	fresh(0x02);
	irq_no_eoi = 1;
	pend_irq0();
	pic_set_mask(0xfffe);
	window();
	check("AEOI: IRQ0 delivered", irq_count[V0], 1);
	check("AEOI: nothing left in service", pic_isr(0), 0);
	pend_irq0();
	window();
	check("AEOI: the next one comes without an EOI", irq_count[V0], 2);
}

static void poll_mode(void)
{
	fresh(0);
	pend_irq0();
	pic_set_mask(0xfffe);                       /* IF = 0: nothing is delivered */
	outb(0x20, 0x0c);                           /* OCW3: poll */
	check("poll word: request on level 0", inb(0x20), 0x80);
	check("the poll acknowledged it: IR0 in service", pic_isr(0), 0x01);
	outb(0x20, 0x20);
	outb(0x20, 0x0c);
	check("poll word without a request", inb(0x20) & 0x80, 0);
}

static void special_mask(void)
{
	fresh(0);
	irq_no_eoi = 1;
	pend_irq0();
	pic_set_mask(0xfffe);
	window();
	pend_irq8();
	pic_set_mask(UNMASK_0_8);
	window();
	check("IRQ8 held off by IR0 in service", irq_count[V8], 0);
	outb(0x20, 0x68);                           /* special mask mode ... */
	pic_set_mask(UNMASK_0_8 | 1);               /* ... and IR0 masked */
	window();
	check("special mask mode: IRQ8 gets through", irq_count[V8], 1);
	outb(0x20, 0x48);
	outb(0xa0, 0x20);
	outb(0x20, 0x62);
	outb(0x20, 0x60);
}

static void spurious(void)
{
	/* IRQ0: OUT0 rises (request latched, INT up), then falls before any
	 * INTA (a new control word sets OUT0 low in mode 0): the INTA finds no
	 * request, gives IR7 and sets no ISR bit. */
	fresh(0);
	irq_no_eoi = 1;
	pend_irq0();
	pic_set_mask(0xfffe);
	outb(0x43, 0x30);
	pic_set_mask(0xff7e);                       /* IRQ7 too: the vector comes anyway */
	window();
	check_quirk("IRQ0 gone before INTA: spurious IR7 vector", irq_order[0], V7,
		    "QEMU's 8259 keeps an edge request after its input falls");
	check_quirk("spurious IR7 sets no ISR bit", pic_isr(0), 0,
		    "QEMU's 8259 keeps an edge request after its input falls");
	outb(0x20, 0x20);
	/* IRQ8: the RTC drops IRQ when register C is read; the master's IR2
	 * (the slave's INT) is still up, the slave finds nothing: IR7 of the
	 * slave, IRQ15's vector, with the master's IR2 in service. */
	fresh(0);
	irq_no_eoi = 1;
	pend_irq8();
	pic_set_mask(UNMASK_0_8);
	cmos_read(0x0c);
	rtc_quiet();
	window();
	check_quirk("IRQ8 gone before INTA: spurious IRQ15 vector", irq_order[0], V15,
		    "QEMU's 8259 keeps an edge request after its input falls");
	check("spurious IRQ15: master IR2 in service", pic_isr(0), 0x04);
	check_quirk("spurious IRQ15: slave has nothing in service", pic_isr(1), 0,
		    "QEMU's 8259 keeps an edge request after its input falls");
	outb(0xa0, 0x20);
	outb(0x20, 0x20);
}

static void level_sensitive(void)
{
	/* Edge (normal): IRQ8 with register C left unread comes once. */
	fresh(0);
	rtc_keep_c = 100;
	pend_irq8();
	pic_set_mask(UNMASK_0_8);
	window();
	window();
	check("edge: one IRQ8 while IRQ stays up", irq_count[V8], 1);
	/* LTIM on the slave: the input is level-sensitive, so after each EOI
	 * the IRQ8 still up is requested again, until the fourth handler reads
	 * register C. */
	fresh(0);
	rtc_keep_c = 3;
	outb(0xa0, 0x19);                           /* ICW1 with LTIM */
	outb(0xa1, IRQ_BASE_SLAVE);
	outb(0xa1, 0x02);
	outb(0xa1, 0x01);
	pend_irq8();
	pic_set_mask(UNMASK_0_8);
	window();
	window();
	window();
	check_quirk("LTIM: IRQ8 again after each EOI while it stays up", irq_count[V8], 4,
		    "QEMU's 8259 has no level-triggered mode (LTIM)");
	fresh(0);
}

void guest_main(void)
{
	cli();
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	pic_remap(0);
	init_and_registers();
	masking();
	priority();
	eoi_and_nesting();
	auto_eoi();
	poll_mode();
	special_mask();
	spurious();
	level_sensitive();
	rtc_quiet();
	pic_set_mask(0xffff);
}
