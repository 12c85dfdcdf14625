/* The PC's interrupt controllers and timers from a guest: 8259A pair, 8254,
 * port 61H, CMOS/RTC, HPET, and the TSC as a yardstick (lib/pc_irq.c). */
#ifndef GUEST_PC_IRQ_H
#define GUEST_PC_IRQ_H

#include <stdint.h>

#include "guest.h"

#define IRQ_BASE_MASTER 0x20       /* vectors of IRQ0-7 after pic_remap() */
#define IRQ_BASE_SLAVE  0x28       /* IRQ8-15 */
#define PIT_HZ 1193182u
#define HPET_BASE 0xfed00000u

static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0,%1" :: "a"(v), "Nd"(p)); }
static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
/* STI; HLT: the STI shadow lets an interrupt pending now wake the HLT, not
 * slip in before it (SDM Vol.3 6.8.3). Returns with IF = 1. */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The TSC's frequency from CPUID 15H (crystal * EBX / EAX) or 16H (base MHz),
 * 0 when the CPU reports neither. */
uint64_t tsc_hz(void);

/* ICW1-ICW4 for both 8259As (master IRQ_BASE_MASTER, slave IRQ_BASE_SLAVE,
 * cascade on IR2, 8086 mode, icw4_extra ORed into ICW4, e.g. AEOI 02H), all
 * inputs masked. */
void pic_remap(uint8_t icw4_extra);
/* IMR of IRQ0-15 (bit = masked). */
void pic_set_mask(uint16_t mask);
uint16_t pic_get_mask(void);
/* Non-specific EOI for irq (to the slave and the master for IRQ8-15). */
void pic_eoi(unsigned irq);
/* IRR / ISR of chip 0 (master) or 1 (slave) through OCW3. */
uint8_t pic_irr(unsigned chip);
uint8_t pic_isr(unsigned chip);

/* Interrupt counting: irq_count[v] counts vector v, irq_tsc the TSC at the
 * latest, irq_order the vectors in arrival order (irq_seen of them). A
 * counted IRQ gets a non-specific EOI unless irq_no_eoi; a counted RTC IRQ8
 * reads register C first, except for the next rtc_keep_c of them. */
extern volatile uint32_t irq_count[256];
extern volatile uint64_t irq_tsc[256];
extern volatile uint8_t irq_order[32];
extern volatile uint64_t irq_when[32];       /* the TSC at each arrival, in order */
extern volatile uint32_t irq_seen;
extern volatile uint32_t irq_no_eoi, rtc_keep_c;
extern volatile uint8_t rtc_last_c;
/* Count vectors first..first+n-1 (their IRQs, from IRQ_BASE_*). */
void irq_count_vectors(unsigned first, unsigned n);
void irq_reset_counts(void);

/* Wait with STI; HLT until *counter >= target (interrupts left enabled).
 * Returns 1, or 0 after max_halts wake-ups without it. */
int wait_count(volatile uint32_t *counter, uint32_t target, uint32_t max_halts);
/* Busy-wait for TSC ticks (with IF as it is). */
void tsc_delay(uint64_t ticks);

/* 8254: control word (counter ch, LSB then MSB, mode, binary) and count. */
void pit_program(unsigned ch, unsigned mode, uint16_t count);
/* CE of counter ch through a counter latch command. */
uint16_t pit_latch(unsigned ch);

/* CMOS / RTC registers, NMI left enabled (port 70H bit 7 clear). */
uint8_t cmos_read(uint8_t index);
void cmos_write(uint8_t index, uint8_t value);

/* HPET registers (32-bit accesses). */
static inline uint32_t hpet_rd(uint32_t off) { return *(volatile uint32_t *)(HPET_BASE + off); }
static inline void hpet_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(HPET_BASE + off) = v; }

/* Sleep for about n / 1024 s: RTC periodic interrupts at 1024 Hz (rate 6,
 * IRQ8 through the slave), counted; the other IRQs' masks are kept. */
void rtc_sleep(unsigned n);

/* n / d for the 32-bit guests (no libgcc). */
uint64_t udiv64(uint64_t n, uint32_t d);
/* Print a 64-bit count as decimal. */
void print_u64(uint64_t v);

/* Wait for k pulses of the 8254's clock, counted on counter 0, which this
 * programs (mode 2, count 0: a 55 ms wrap, its IRQ0 masked) the first time. */
void pit_wait(uint32_t k);

/* A check of a measured time: the manuals' value is the expectation, but
 * under QEMU TCG (which follows the host's clock, so a loaded host stretches
 * what the guest measures) a miss is a TAP TODO. */
void check_timing(const char *name, int ok);

/* got within [want * lo_pct / 100, want * hi_pct / 100]. */
int within(uint64_t got, uint64_t want, unsigned lo_pct, unsigned hi_pct);

#endif
