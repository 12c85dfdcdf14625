/* QEMU's pc-testdev (hw/misc/pc-testdev.c behaviour; QEMU needs -device
 * pc-testdev, hvemu always has it): the 32-bit register at 0xE0 at every width
 * and aligned offset (unaligned accesses read 0 and write nothing, as QEMU's
 * memory core has them), its byte-wise alias at 0xE8, the flush-page port 0xE4 (no
 * guest-visible effect: code and data on the flushed page stay, later stores
 * to that code are seen), the IRQ lines at 0x2000 + n (through the 8259 when
 * the machine has one: an edge on line 5 raises IRQ 5 once) and the 64 KiB of
 * scratch memory at 0xFF000000. */
#include "lib/guest.h"

static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }
static inline void outl(uint16_t p, uint32_t v) { __asm__ volatile("outl %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint16_t inw(uint16_t p) { uint16_t v; __asm__ volatile("inw %1,%0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1,%0" : "=a"(v) : "Nd"(p)); return v; }

/* A page of code: mov eax, imm32; ret. */
static uint8_t code_page[4096] __attribute__((aligned(4096)));
typedef uint32_t (*code_fn)(void);

static void set_code(uint32_t value)
{
	code_page[0] = 0xb8;
	gmemcpy(code_page + 1, &value, 4);
	code_page[5] = 0xc3;
}

static volatile uint32_t irq5_count;

static int irq5(struct trap_frame *f)
{
	(void)f;
	irq5_count++;
	outb(0x20, 0x20);          /* non-specific EOI (8259A OCW2) */
	return 1;
}

/* The 8259 pair: present if the master's IMR keeps what is written. */
static int pic_present(void)
{
	outb(0x21, 0xa5);
	int ok = inb(0x21) == 0xa5;
	outb(0x21, 0xff);
	return ok;
}

/* ICW1-ICW4 (8259A datasheet): edge-triggered, cascade on IR2, vectors 20H and
 * 28H, 8086 mode; everything masked but master IR5. */
static void pic_init_irq5_only(void)
{
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, 0x20); outb(0xa1, 0x28);
	outb(0x21, 0x04); outb(0xa1, 0x02);
	outb(0x21, 0x01); outb(0xa1, 0x01);
	outb(0x21, (uint8_t)~(1u << 5));
	outb(0xa1, 0xff);
}

static void wait_a_little(void)
{
	for (volatile int i = 0; i < 1000; i++)
		;
}

void guest_main(void)
{
	/* The register: dword, words, bytes at their offsets. */
	outl(0xe0, 0x11223344u);
	if (inl(0xe0) != 0x11223344u)
		skip_all("no pc-testdev (0xE0 reads 0x%x; QEMU needs -device pc-testdev)", inl(0xe0));
	check("0xE0 doubleword", inl(0xe0), 0x11223344u);
	check("0xE1 byte", inb(0xe1), 0x33);
	check("0xE2 word", inw(0xe2), 0x1122);
	check("0xE3 byte", inb(0xe3), 0x11);
	outw(0xe2, 0xaabb);
	check("word written at 0xE2 replaces bytes 2-3", inl(0xe0), 0xaabb3344u);
	outb(0xe1, 0x5a);
	check("byte written at 0xE1 replaces byte 1", inl(0xe0), 0xaabb5a44u);
	check("unaligned word at 0xE1 reads 0", inw(0xe1), 0);
	check("unaligned word at 0xE3 (across the window) reads 0", inw(0xe3), 0);
	outw(0xe1, 0xffff);
	outl(0xe2, 0xffffffffu);
	check("unaligned writes change nothing", inl(0xe0), 0xaabb5a44u);
	check("0xE8 reads the same register", inl(0xe8), 0xaabb5a44u);
	outl(0xe8, 0xdeadbeefu);
	check("a doubleword at 0xE8 writes it", inl(0xe0), 0xdeadbeefu);
	check("0xEA word", inw(0xea), 0xdead);
	outb(0xe9, 0x00);
	check("0xE9 byte write", inl(0xe0), 0xdead00efu);

	/* Flush page: nothing a guest can see changes. */
	set_code(0x600df00d);
	code_fn fn = (code_fn)(uintptr_t)code_page;
	check("code on the page runs", fn(), 0x600df00du);
	code_page[100] = 0x42;
	outl(0xe4, (uint32_t)(uintptr_t)code_page);
	check("after flush-page: the code still runs", fn(), 0x600df00du);
	check("after flush-page: data on the page kept", code_page[100], 0x42);
	set_code(0x12345678);
	check("a store to the flushed page's code is seen", fn(), 0x12345678u);
	outl(0xe4, (uint32_t)(uintptr_t)code_page + 0x123);   /* any address in the page */
	check("flush-page again, code still the new one", fn(), 0x12345678u);
	check("flush-page reads 0", inl(0xe4), 0);

	/* Scratch memory at 0xFF000000. */
	volatile uint8_t *mem = (volatile uint8_t *)0xff000000u;
	*(volatile uint32_t *)mem = 0xcafef00du;
	check("scratch doubleword", *(volatile uint32_t *)mem, 0xcafef00du);
	check("scratch byte 1", mem[1], 0xf0);
	*(volatile uint16_t *)(mem + 2) = 0xbeef;
	check("scratch word written at +2", *(volatile uint32_t *)mem, 0xbeeff00du);
	mem[0xffff] = 0x77;
	check("scratch last byte (+0xFFFF)", mem[0xffff], 0x77);
	*(volatile uint32_t *)(mem + 0x8000) = 0x01020304u;
	check("scratch middle", *(volatile uint32_t *)(mem + 0x8000), 0x01020304u);

	/* IRQ lines: reads are 0; line 5 through the 8259. */
	check("IRQ line port reads 0", inb(0x2005), 0);
	if (!pic_present()) {
		skip("IRQ line 5 raises IRQ 5", "no 8259 PIC on this machine");
		return;
	}
	pic_init_irq5_only();
	trap_handlers[0x25] = irq5;
	irq5_count = 0;
	__asm__ volatile("sti");
	outb(0x2005, 1);
	wait_a_little();
	check("raising line 5 delivers IRQ 5 (vector 25H) once", irq5_count, 1);
	outb(0x2005, 1);
	wait_a_little();
	check("raising it again while high: no new edge", irq5_count, 1);
	outb(0x2005, 0);
	outb(0x2005, 0x80);        /* any non-zero value is high */
	wait_a_little();
	check("low, then high again: a second IRQ 5", irq5_count, 2);
	outb(0x2005, 0);
	__asm__ volatile("cli");
	outb(0x21, 0xff);
	trap_handlers[0x25] = 0;
}
