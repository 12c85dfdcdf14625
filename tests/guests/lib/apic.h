/* Local APIC, I/O APIC, MSR, CPUID and TSC helpers for the APIC guests
 * (lib/apic.c). Register offsets are the SDM Vol.3 APIC chapter's Table 10-1;
 * the guests run with paging off, so the APIC pages are reached at their
 * physical addresses. */
#ifndef GUEST_APIC_H
#define GUEST_APIC_H

#include "guest.h"

#define APIC_DEFAULT_BASE 0xfee00000u
#define IOAPIC_BASE       0xfec00000u
#define MSR_APIC_BASE     0x1bu
#define MSR_TSC_DEADLINE  0x6e0u
#define APIC_BASE_BSP     (1u << 8)
#define APIC_BASE_EXTD    (1u << 10)
#define APIC_BASE_EN      (1u << 11)

/* Register offsets. */
enum {
	APIC_ID = 0x20, APIC_VERSION = 0x30, APIC_TPR = 0x80, APIC_PPR = 0xa0, APIC_EOI = 0xb0,
	APIC_LDR = 0xd0, APIC_DFR = 0xe0, APIC_SVR = 0xf0, APIC_ISR = 0x100, APIC_TMR = 0x180,
	APIC_IRR = 0x200, APIC_ESR = 0x280, APIC_ICR_LO = 0x300, APIC_ICR_HI = 0x310,
	APIC_LVT_TIMER = 0x320, APIC_LVT_THERMAL = 0x330, APIC_LVT_PERF = 0x340,
	APIC_LVT_LINT0 = 0x350, APIC_LVT_LINT1 = 0x360, APIC_LVT_ERROR = 0x370,
	APIC_TIMER_INITIAL = 0x380, APIC_TIMER_CURRENT = 0x390, APIC_TIMER_DCR = 0x3e0,
};

#define APIC_SVR_ENABLE   (1u << 8)
#define APIC_LVT_MASKED   (1u << 16)
/* ICR low (SDM 10.6.1): delivery mode, shorthands. */
#define ICR_FIXED         0x000u
#define ICR_LOWEST        0x100u
#define ICR_NMI           0x400u
#define ICR_INIT          0x500u
#define ICR_STARTUP       0x600u
#define ICR_LOGICAL       (1u << 11)
#define ICR_ASSERT        (1u << 14)
#define ICR_LEVEL         (1u << 15)
#define ICR_SELF          (1u << 18)
#define ICR_ALL           (2u << 18)
#define ICR_ALL_BUT_SELF  (3u << 18)

extern uint32_t apic_base;     /* the xAPIC page in use */

static inline uint32_t apic_read(uint32_t off)
{
	return *(volatile uint32_t *)(uintptr_t)(apic_base + off);
}

static inline void apic_write(uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)(apic_base + off) = v;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t a, d;
	__asm__ volatile("rdmsr" : "=a"(a), "=d"(d) : "c"(msr));
	return ((uint64_t)d << 32) | a;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc(void)
{
	uint32_t a, d;
	__asm__ volatile("rdtsc" : "=a"(a), "=d"(d));
	return ((uint64_t)d << 32) | a;
}

static inline void sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void cli(void) { __asm__ volatile("cli" ::: "memory"); }
/* STI; HLT: wait for an interrupt with none lost in between (SDM 6.8.3). */
static inline void sti_hlt(void) { __asm__ volatile("sti; hlt; cli" ::: "memory"); }

/* a * b / c without libgcc's 64-bit division (the quotient fits 32 bits). */
uint32_t muldiv(uint32_t a, uint32_t b, uint32_t c);

/* |got - want| <= want * pct / 100 (+1). */
int within(uint32_t got, uint32_t want, uint32_t pct);

/* CPUID.1 feature tests. */
int has_apic(void);           /* EDX[9] */
int has_x2apic(void);         /* ECX[21] */
int has_tsc_deadline(void);   /* ECX[24] */

/* RDMSR/WRMSR that may fault: the vector, NO_FAULT if none. */
int rdmsr_catch(uint32_t msr, uint64_t *v);
int wrmsr_catch(uint32_t msr, uint64_t v);

/* Interrupt recording: apic_catch(vec) installs a handler for vec that counts
 * it, records the interrupted EIP and its order among recorded interrupts,
 * and (unless APIC_NO_EOI is or'ed in) writes EOI. */
#define APIC_NO_EOI 0x100
struct irq_record {
	volatile uint32_t count, eip, eflags, order;
};
extern struct irq_record irq_seen[256];
extern volatile uint32_t irq_sequence;      /* interrupts recorded so far */
extern void (*irq_hook)(uint32_t vector);   /* called from the handler, if set */
void apic_catch(unsigned vec_flags);
void irq_reset(void);

/* Software-enable the local APIC with spurious vector FFH, all LVTs masked. */
void apic_enable(void);

/* Mask every 8259 input (OCW1), so that no legacy interrupt (the BIOS's PIT
 * under QEMU) arrives while a guest enables interrupts. */
void pic_mask_all(void);

/* Send an IPI: ICR high (destination), then low. */
void apic_ipi(uint32_t dest_id, uint32_t low);

/* ESR as software reads it (SDM 10.5.3: write, then read). */
uint32_t apic_esr(void);

/* I/O APIC registers through IOREGSEL/IOWIN. */
uint32_t ioapic_read(uint32_t index);
void ioapic_write(uint32_t index, uint32_t v);
void ioapic_route(unsigned pin, uint64_t entry);

#endif
