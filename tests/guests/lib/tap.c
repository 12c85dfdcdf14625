/* TAP-like result reporting and the isa-debug-exit port. */
#include "guest.h"

static uint32_t n_tests, n_failed;
const char *mb_cmdline = "";

void debug_exit(uint32_t code)
{
	/* QEMU isa-debug-exit at 0xf4: process exit status = (value << 1) | 1,
	 * so 0 -> 1 means pass. hvemu's debug-exit device mirrors that. */
	__asm__ volatile("outl %0, %1" :: "a"(code), "Nd"((uint16_t)0xf4));
	for (;;)
		__asm__ volatile("cli; hlt");
}

void check(const char *name, uint32_t got, uint32_t expected)
{
	n_tests++;
	if (got == expected) {
		gprintf("ok %u - %s\n", n_tests, name);
	} else {
		n_failed++;
		gprintf("not ok %u - %s: got 0x%x expected 0x%x\n", n_tests, name, got, expected);
	}
}

void check_true(const char *name, int cond)
{
	check(name, cond != 0, 1);
}

int quirk_active(const char *q)
{
	/* Look for "quirk=<q>" as a word in the multiboot command line. */
	uint32_t n = 0;
	while (q[n])
		n++;
	for (const char *p = mb_cmdline; *p; p++) {
		if (gstrncmp(p, "quirk=", 6) == 0 && gstrncmp(p + 6, q, n) == 0 &&
		    (p[6 + n] == 0 || p[6 + n] == ' ' || p[6 + n] == ','))
			return 1;
	}
	return 0;
}

void check_quirk(const char *name, uint32_t got, uint32_t expected, const char *why)
{
	if (!quirk_active("qemu-tcg")) {
		check(name, got, expected);
		return;
	}
	n_tests++;
	gprintf("%s %u - %s: got 0x%x expected 0x%x # TODO known QEMU TCG deviation: %s\n",
		got == expected ? "ok" : "not ok", n_tests, name, got, expected, why);
}

int skip_quirk(const char *name, const char *why)
{
	if (!quirk_active("qemu-tcg"))
		return 0;
	n_tests++;
	gprintf("ok %u - %s # SKIP known QEMU TCG deviation: %s\n", n_tests, name, why);
	return 1;
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gputs("# ");
	gvprintf(fmt, ap);
	gputs("\n");
	va_end(ap);
}

void tap_finish(void)
{
	gprintf("1..%u\n", n_tests);
	if (n_failed) {
		gprintf("# FAILED %u of %u\n", n_failed, n_tests);
		debug_exit(n_failed > 0x7f ? 0x7f : n_failed);
	}
	gprintf("# PASS all %u\n", n_tests);
	debug_exit(0);
}

struct mb_info { uint32_t flags, mem_lower, mem_upper, boot_device, cmdline; };

void guest_start(uint32_t magic, const struct mb_info *mbi);
void guest_start(uint32_t magic, const struct mb_info *mbi)
{
	serial_init();
	/* Multiboot 3.3: flags bit 2 = cmdline valid. */
	if (magic == 0x2BADB002 && mbi && (mbi->flags & 4) && mbi->cmdline)
		mb_cmdline = (const char *)(uintptr_t)mbi->cmdline;
	if (magic != 0x2BADB002)
		gprintf("# warning: multiboot magic 0x%x\n", magic);
	/* Mask both 8259 PICs so guests that set IF=1 see no stray IRQs
	 * (the firmware may have left the timer unmasked). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	desc_init();
	guest_main();
	tap_finish();
}
