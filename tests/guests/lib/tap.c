/* TAP-like result reporting and the isa-debug-exit port. */
#include "guest.h"

/* TAP lines printed, and how many of them failed or were skipped. */
static uint32_t n_tests, n_failed, n_skipped;
const char *mb_cmdline = "";
const struct multiboot_info *mb_info;

void debug_exit(uint32_t code)
{
	/* QEMU isa-debug-exit at 0xf4: process exit status = (value << 1) | 1,
	 * so 0 -> 1 means pass. hvemu's debug-exit device mirrors that. The
	 * values the guests use are the GUEST_EXIT_* in guest.h. */
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

static void put_hex64(uint64_t v)
{
	if (v >> 32)
		gprintf("0x%x%08x", (uint32_t)(v >> 32), (uint32_t)v);
	else
		gprintf("0x%x", (uint32_t)v);
}

int expect_field(const char *row, const char *field, uint64_t got, uint64_t want)
{
	if (got == want)
		return 1;
	gprintf("# %s: %s got ", row, field);
	put_hex64(got);
	gputs(" want ");
	put_hex64(want);
	gputs("\n");
	return 0;
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

int cmdline_has(const char *word)
{
	uint32_t n = 0;
	while (word[n])
		n++;
	for (const char *p = mb_cmdline; *p; p++) {
		if ((p == mb_cmdline || p[-1] == ' ') && gstrncmp(p, word, n) == 0 &&
		    (p[n] == 0 || p[n] == ' '))
			return 1;
	}
	return 0;
}

int loaded_by_option_rom(void)
{
	return quirk_active("qemu-tcg") || cmdline_has("firmware=seabios");
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
	n_skipped++;
	gprintf("ok %u - %s # SKIP known QEMU TCG deviation: %s\n", n_tests, name, why);
	return 1;
}

static void vskip(const char *name, const char *why_fmt, va_list ap)
{
	n_tests++;
	n_skipped++;
	gprintf("ok %u - %s # SKIP ", n_tests, name);
	gvprintf(why_fmt, ap);
	gputs("\n");
}

void skip(const char *name, const char *why_fmt, ...)
{
	va_list ap;
	va_start(ap, why_fmt);
	vskip(name, why_fmt, ap);
	va_end(ap);
}

void skip_all(const char *why_fmt, ...)
{
	va_list ap;
	va_start(ap, why_fmt);
	if (n_tests == 0) {
		/* TAP's own form for a run that checks nothing. */
		gputs("1..0 # SKIP ");
		gvprintf(why_fmt, ap);
		gputs("\n");
		debug_exit(GUEST_EXIT_SKIPPED);
	}
	vskip("the remaining checks", why_fmt, ap);
	va_end(ap);
	tap_finish();
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

/* Prints the TAP plan and ends the run: failed if any check failed, skipped if
 * no check ran (a run that checked nothing must not read as a pass), else
 * passed. */
void tap_finish(void)
{
	if (n_tests == 0) {
		gputs("1..0 # SKIP the guest made no checks\n");
		debug_exit(GUEST_EXIT_SKIPPED);
	}
	gprintf("1..%u\n", n_tests);
	if (n_failed) {
		gprintf("# FAILED %u of %u\n", n_failed, n_tests);
		debug_exit(n_failed > GUEST_EXIT_FAILED_MAX ? GUEST_EXIT_FAILED_MAX : n_failed);
	}
	if (n_skipped == n_tests) {
		gprintf("# SKIP all %u: nothing was checked\n", n_tests);
		debug_exit(GUEST_EXIT_SKIPPED);
	}
	if (n_skipped)
		gprintf("# PASS all %u (%u of them skipped)\n", n_tests, n_skipped);
	else
		gprintf("# PASS all %u\n", n_tests);
	debug_exit(GUEST_EXIT_PASSED);
}

void guest_start(uint32_t magic, const struct multiboot_info *mbi);
void guest_start(uint32_t magic, const struct multiboot_info *mbi)
{
	serial_init();
	if (magic == 0x2BADB002)
		mb_info = mbi;
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
