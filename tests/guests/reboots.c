/* A reset restarts the machine (hvemu without --no-reboot; QEMU without
 * -no-reboot): RAM is kept, the CPU starts from its RESET state, and the
 * kernel is loaded and entered again. The guest resets once through each
 * path, counting its boots in a block of RAM above the kernel that the reset
 * keeps:
 *   boot 0 -> port 0x92 bit 0 (fast reset)
 *   boot 1 -> 0xCF9 = 06H (System Reset + Reset CPU: a hard reset)
 *   boot 2 -> the 8042's command 0FEH (pulse the reset line)
 *   boot 3 -> 0xCF9 = 04H (Reset CPU alone: a soft reset)
 *   boot 4 -> the FADT's RESET_REG (ACPI 6.0 5.2.9, "Reset Register")
 *   boot 5 -> checks what every boot recorded, and exits through debug-exit.
 * Only the last boot prints TAP lines (each earlier one a note), so the log
 * holds one plan. Before each reset the guest sets CR4.OSFXSR and writes a
 * pattern into the block; the next boot records CR4 at its entry (0 after
 * RESET, SDM Vol.3 9.1.1 Table 9-1, and the multiboot entry leaves it), the
 * pattern (RAM kept), port 0x92 (bit 0 clear again, A20 on) and the RTC's
 * register B, whose PIE it set (cleared by the RTC's RESET#, MC146818A data
 * sheet, as QEMU's reset clears it; the CMOS RAM itself is kept). */
#include "lib/guest.h"

#define BLOCK ((volatile struct block *)0x00700000u)   /* 7 MiB: above the kernel, below SeaBIOS */
#define MAGIC 0x52425430u                              /* "0TBR" */
#define N_RESETS 5

struct block {
	uint32_t magic;
	uint32_t boots;                  /* boots before this one */
	uint32_t pattern;                /* written just before the reset */
	struct {
		uint32_t cr4, pattern, port92, rtc_b;
	} seen[N_RESETS + 1];            /* what boot i found at its entry */
};

static const char *const path_name[N_RESETS] = {
	"port 0x92 bit 0", "0xCF9 = 06H (hard)", "8042 command 0FEH", "0xCF9 = 04H (soft)", "the ACPI reset register",
};

static uint32_t read_cr4(void)
{
	uint32_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

/* CMOS register r through ports 70H/71H, NMI left enabled. */
static uint8_t cmos_read(uint8_t r)
{
	outb(0x70, r);
	return inb(0x71);
}

static void cmos_write(uint8_t r, uint8_t v)
{
	outb(0x70, r);
	outb(0x71, v);
}

static uint8_t sum(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	return s;
}

/* The FADT through the RSDP (ACPI 6.0 5.2.5.1: on a 16-byte boundary in
 * E0000H-FFFFFH) and the RSDT, or 0. */
static const uint8_t *find_fadt(void)
{
	const uint8_t *rsdp = 0;
	for (uint32_t a = 0xe0000; a < 0x100000 && !rsdp; a += 16)
		if (!gstrncmp((const char *)(uintptr_t)a, "RSD PTR ", 8) && !sum((const uint8_t *)(uintptr_t)a, 20))
			rsdp = (const uint8_t *)(uintptr_t)a;
	if (!rsdp)
		return 0;
	const uint8_t *rsdt = (const uint8_t *)(uintptr_t)rd32(rsdp, 16);
	for (uint32_t o = 36; o + 4 <= rd32(rsdt, 4); o += 4) {
		const uint8_t *t = (const uint8_t *)(uintptr_t)rd32(rsdt, o);
		if (!gstrncmp((const char *)t, "FACP", 4))
			return t;
	}
	return 0;
}

/* ACPI 6.0 5.2.9: RESET_REG_SUP (flags bit 10), RESET_REG a GAS at 116 in
 * system I/O space (ID 1), RESET_VALUE at 128. Falls back to 0xCF9 = 06H. */
static void acpi_reset(void)
{
	const uint8_t *f = find_fadt();
	if (f && rd32(f, 4) >= 129 && (rd32(f, 112) & (1u << 10)) && f[116] == 1) {
		note("FADT RESET_REG: port 0x%x value 0x%x", rd32(f, 120), f[128]);
		outb((uint16_t)rd32(f, 120), f[128]);
	} else {
		note("no ACPI reset register: 0xCF9 = 06H instead");
		outb(0xcf9, 0x06);
	}
}

static void reset_through(uint32_t path)
{
	switch (path) {
	case 0:
		outb(0x92, inb(0x92) | 1);
		break;
	case 1:
		outb(0xcf9, 0x06);
		break;
	case 2:
		for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)   /* input buffer full */
			;
		outb(0x64, 0xfe);
		break;
	case 3:
		outb(0xcf9, 0x04);
		break;
	default:
		acpi_reset();
		break;
	}
}

void guest_main(void)
{
	volatile struct block *b = BLOCK;
	uint32_t boot = b->magic == MAGIC ? b->boots + 1 : 0;
	if (boot > N_RESETS) {
		check("the boot count stays within the resets made", boot, N_RESETS);
		tap_finish();
	}
	if (!boot)
		b->magic = MAGIC;
	b->boots = boot;
	b->seen[boot].cr4 = read_cr4();
	b->seen[boot].pattern = b->pattern;
	b->seen[boot].port92 = inb(0x92);
	b->seen[boot].rtc_b = cmos_read(0x0b);

	if (boot < N_RESETS) {
		note("boot %u: reset through %s", boot, path_name[boot]);
		b->pattern = 0x5a000000u | boot;
		__asm__ volatile("mov %0, %%cr4" :: "r"(read_cr4() | (1u << 9)));   /* OSFXSR */
		cmos_write(0x0b, cmos_read(0x0b) | 0x40);                          /* PIE */
		reset_through(boot);
		for (volatile int i = 0; i < 100000; i++)
			;
		check("the reset restarted the machine", 0, 1);
		tap_finish();
	}
	for (uint32_t i = 1; i <= N_RESETS; i++) {
		gprintf("# boot %u, after the reset through %s\n", i, path_name[i - 1]);
		check("RAM kept: the pattern written before the reset", b->seen[i].pattern, 0x5a000000u | (i - 1));
		check("CR4 = 0 at entry (RESET state; OSFXSR was set)", b->seen[i].cr4, 0);
		check("port 0x92: A20 on, fast-reset bit clear", b->seen[i].port92 & 3, 2);
		check("RTC register B: PIE cleared by RESET# (set before the reset)", b->seen[i].rtc_b & 0x40, 0);
	}
	b->magic = 0;    /* a later run in the same RAM starts over */
	tap_finish();
}
