/* Helpers for the APIC guests (see apic.h). */
#include "apic.h"

uint32_t apic_base = APIC_DEFAULT_BASE;
struct irq_record irq_seen[256];
volatile uint32_t irq_sequence;
void (*irq_hook)(uint32_t vector);
static uint8_t irq_eoi[256];

uint32_t muldiv(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t n = (uint64_t)a * b, rem = 0;
	uint32_t q = 0;
	for (int i = 63; i >= 0; i--) {
		rem = (rem << 1) | ((n >> i) & 1);
		if (rem >= c) {
			rem -= c;
			if (i < 32)
				q |= 1u << i;
		}
	}
	return q;
}

int within(uint32_t got, uint32_t want, uint32_t pct)
{
	uint32_t slack = want / 100 * pct + 1;
	return got + slack >= want && got <= want + slack;
}

int has_apic(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	return (r[3] >> 9) & 1;
}

int has_x2apic(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	return (r[2] >> 21) & 1;
}

int has_tsc_deadline(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	return (r[2] >> 24) & 1;
}

struct msr_op { uint32_t msr; uint64_t v; };

static void do_rdmsr(void *arg)
{
	struct msr_op *op = arg;
	op->v = rdmsr(op->msr);
}

static void do_wrmsr(void *arg)
{
	struct msr_op *op = arg;
	wrmsr(op->msr, op->v);
}

int rdmsr_catch(uint32_t msr, uint64_t *v)
{
	struct msr_op op = { msr, 0 };
	trap_reset();
	int vec = trap_catch(do_rdmsr, &op);
	*v = op.v;
	return vec;
}

int wrmsr_catch(uint32_t msr, uint64_t v)
{
	struct msr_op op = { msr, v };
	trap_reset();
	return trap_catch(do_wrmsr, &op);
}

static int record(struct trap_frame *f)
{
	uint32_t v = f->vector & 0xff;
	irq_seen[v].count++;
	irq_seen[v].eip = f->eip;
	irq_seen[v].eflags = f->eflags;
	irq_seen[v].order = irq_sequence++;
	if (irq_hook)
		irq_hook(v);
	if (irq_eoi[v])
		apic_write(APIC_EOI, 0);
	return 1;               /* IRET */
}

void apic_catch(unsigned vec_flags)
{
	unsigned v = vec_flags & 0xff;
	irq_eoi[v] = !(vec_flags & APIC_NO_EOI);
	trap_handlers[v] = record;
}

void irq_reset(void)
{
	gmemset(irq_seen, 0, sizeof(irq_seen));
	irq_sequence = 0;
	irq_hook = 0;
}

void apic_enable(void)
{
	apic_write(APIC_SVR, 0x1ff);
	for (uint32_t off = APIC_LVT_TIMER; off <= APIC_LVT_ERROR; off += 0x10)
		apic_write(off, APIC_LVT_MASKED);
	apic_write(APIC_TPR, 0);
}

void pic_mask_all(void)
{
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void apic_ipi(uint32_t dest_id, uint32_t low)
{
	apic_write(APIC_ICR_HI, dest_id << 24);
	apic_write(APIC_ICR_LO, low);
}

uint32_t apic_esr(void)
{
	apic_write(APIC_ESR, 0);
	return apic_read(APIC_ESR);
}

uint32_t ioapic_read(uint32_t index)
{
	*(volatile uint32_t *)(uintptr_t)IOAPIC_BASE = index;
	return *(volatile uint32_t *)(uintptr_t)(IOAPIC_BASE + 0x10);
}

void ioapic_write(uint32_t index, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)IOAPIC_BASE = index;
	*(volatile uint32_t *)(uintptr_t)(IOAPIC_BASE + 0x10) = v;
}

void ioapic_route(unsigned pin, uint64_t entry)
{
	/* High half first, so the entry is never live with a stale destination. */
	ioapic_write(0x11 + 2 * pin, (uint32_t)(entry >> 32));
	ioapic_write(0x10 + 2 * pin, (uint32_t)entry);
}
