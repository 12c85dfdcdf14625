/* The ACPI fixed hardware of the PC (ACPI 6.0 4.8), found through the FADT
 * (5.2.9) as an OS finds it: the PM1a event and control blocks and the PM
 * timer with their lengths (4, 2, 4: 4.8.3.1-4.8.3.3); TMR_VAL_EXT clear for
 * a 24-bit timer whose bits 31:24 read 0; the machine in ACPI mode, SCI_EN 1
 * (4.8.2.5: with SMI_CMD 0 it always is; where the FADT names an SMI_CMD port,
 * as SeaBIOS's under QEMU does, the guest first writes ACPI_ENABLE there, as
 * an OS does); the timer counting up at 3.579545 MHz against the HPET's main
 * counter (IA-PC HPET 1.0a 2.3.5, its period in GCAP_ID); TMR_STS set when
 * bit 23 changes, raising the SCI on the FADT's SCI_INT (ISA IRQ 9, level,
 * ELCR) while TMR_EN is set, and cleared by writing 1 (write 0 leaves it);
 * PM1_EN's TMR_EN reads back; and last S5: SLP_TYP from the DSDT's \_S5 (the
 * machine's, 0 on hvemu and QEMU's PIIX4) with SLP_EN powers the machine off
 * (expected outcome "power-off": hvemu status 16, QEMU 0). Bochs has neither
 * these tables nor this firmware and does not run it. */
#include "lib/acpi_tables.h"
#include "lib/pc_irq.h"

static inline void outw(uint16_t p, uint16_t v) { __asm__ volatile("outw %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint16_t inw(uint16_t p) { uint16_t v; __asm__ volatile("inw %1,%0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t inl(uint16_t p) { uint32_t v; __asm__ volatile("inl %1,%0" : "=a"(v) : "Nd"(p)); return v; }

/* ACPI 6.0 4.8.3.1 Table 4-13/4-14, 4.8.3.2.1 Table 4-16. */
enum {
	TMR_STS = 1u << 0, TMR_EN = 1u << 0, SCI_EN = 1u << 0,
	SLP_TYP_SHIFT = 10, SLP_EN = 1u << 13,
	FADT_TMR_VAL_EXT = 1u << 8,       /* 5.2.9 Table 5-35 */
	PM_HZ = 3579545,                  /* 4.8.3.3 */
};

/* SLP_TYPa of \_S5 in the DSDT: the AML bytes Name (_S5_, Package (n) {a,
 * ...}) (ACPI 6.0 20.2.5.1, 20.2.5.4; a ZeroOp, OneOp or BytePrefix value),
 * -1 when not found. */
static int s5_slp_typ(const uint8_t *dsdt)
{
	uint32_t len = rd32(dsdt, 4);
	for (uint32_t o = 36; o + 10 < len; o++) {
		if (dsdt[o] != 0x08 || gstrncmp((const char *)dsdt + o + 1, "_S5_", 4) || dsdt[o + 5] != 0x12)
			continue;
		uint32_t p = o + 6;
		p += 1 + (dsdt[p] >> 6);          /* PkgLength: lead byte + 0-3 more */
		p++;                              /* NumElements */
		if (dsdt[p] == 0x00 || dsdt[p] == 0x01)
			return dsdt[p];
		if (dsdt[p] == 0x0a)
			return dsdt[p + 1];
		return -1;
	}
	return -1;
}

static uint32_t tmr_port;

static uint32_t pm_timer(void)
{
	return inl((uint16_t)tmr_port);
}

void guest_main(void)
{
	const uint8_t *fadt = acpi_find_table("FACP");
	if (!fadt)
		skip_all("no FADT (no ACPI tables)");
	uint32_t evt = rd32(fadt, 56), cnt = rd32(fadt, 64), sci = rd16(fadt, 46);
	tmr_port = rd32(fadt, 76);
	note("FADT: PM1a_EVT 0x%x, PM1a_CNT 0x%x, PM_TMR 0x%x, SCI_INT %u, SMI_CMD 0x%x", evt, cnt,
	     tmr_port, sci, rd32(fadt, 48));
	if (!evt || !cnt || !tmr_port)
		skip_all("the FADT describes no PM1a blocks or PM timer");
	check("PM1_EVT_LEN 4 (ACPI 6.0 4.8.3.1)", fadt[88], 4);
	check("PM1_CNT_LEN 2 (ACPI 6.0 4.8.3.2)", fadt[89], 2);
	check("PM_TMR_LEN 4 (ACPI 6.0 4.8.3.3)", fadt[91], 4);
	check("SCI_INT is ISA IRQ 9 (the PIIX4's SCI)", sci, 9);
	uint32_t ext = rd32(fadt, 112) & FADT_TMR_VAL_EXT;
	uint32_t mask = ext ? 0xffffffffu : 0xffffff;

	/* 4.8.2.5: enter ACPI mode where there is an SMI_CMD port. */
	uint32_t smi_cmd = rd32(fadt, 48);
	if (smi_cmd && !(inw((uint16_t)cnt) & SCI_EN)) {
		outb((uint16_t)smi_cmd, fadt[52]);      /* ACPI_ENABLE */
		for (uint32_t i = 0; i < 1000 && !(inw((uint16_t)cnt) & SCI_EN); i++)
			pit_wait(1);
	}
	check("PM1_CNT SCI_EN reads 1: ACPI mode (ACPI 6.0 4.8.2.5)", inw((uint16_t)cnt) & SCI_EN, 1);

	/* 4.8.3.3: a 24-bit timer (TMR_VAL_EXT clear) whose upper byte reads 0,
	 * counting up. */
	check("TMR_VAL_EXT clear: the PIIX4's timer is 24 bits (5.2.9 Table 5-35)", ext, 0);
	uint32_t t0 = pm_timer(), t1 = pm_timer();
	check("PM timer bits 31:24 read 0", (t0 | t1) & ~mask, 0);
	check_true("PM timer counts up", ((t1 - t0) & mask) < 0x100000);

	/* Its rate against the HPET's main counter (GCAP_ID bits 63:32: the
	 * period in femtoseconds; GEN_CONF bit 0 runs it). */
	uint32_t period_fs = hpet_rd(0x04);
	if (period_fs == 0 || period_fs == 0xffffffffu) {
		skip("PM timer rate against the HPET", "no HPET at FED00000H");
	} else {
		hpet_wr(0x10, hpet_rd(0x10) | 1);
		uint32_t p0 = pm_timer(), h0 = hpet_rd(0xf0);
		while (((pm_timer() - p0) & mask) < PM_HZ / 50)   /* 20 ms */
			;
		uint32_t p1 = pm_timer(), h1 = hpet_rd(0xf0);
		uint64_t pm_ticks = (p1 - p0) & mask;
		uint64_t hpet_fs = (uint64_t)(h1 - h0) * period_fs;
		/* pm_ticks / PM_HZ s against hpet_fs / 1e15 s, within 1%: both
		 * sides multiplied by 1e9 * PM_HZ. */
		uint64_t pm_side = pm_ticks * 1000000000ull;        /* ticks * 1e9 */
		uint64_t hpet_side = udiv64(hpet_fs, 1000000u) * PM_HZ;   /* ns * PM_HZ */
		note("%u PM timer ticks while the HPET counted %u (period %u fs)", (uint32_t)pm_ticks,
		     h1 - h0, period_fs);
		check_timing("PM timer at 3.579545 MHz against the HPET, within 1% (ACPI 6.0 4.8.3.3)",
			     within(pm_side, hpet_side, 99, 101));
	}

	/* PM1_EN: TMR_EN reads back. PM1_STS: TMR_STS writes 1 to clear. */
	outw((uint16_t)(evt + 2), 0);
	check("PM1_EN reads 0 after 0 is written", inw((uint16_t)(evt + 2)), 0);
	outw((uint16_t)evt, 0xffff);          /* clear every status */
	uint16_t sts = inw((uint16_t)evt);
	check("PM1_STS: TMR_STS clear after 1 is written (ACPI 6.0 4.8.3.1)", sts & TMR_STS, 0);

	/* TMR_EN: the SCI at the next change of bit 23, ISA IRQ 9 level. */
	irq_count_vectors(IRQ_BASE_MASTER, 16);
	pic_remap(0);
	outb(0x4d1, (uint8_t)(inb(0x4d1) | (1u << (sci - 8))));   /* ELCR: IRQ 9 level */
	irq_reset_counts();
	irq_no_eoi = 1;                      /* the level stays up until TMR_STS is cleared */
	pic_set_mask((uint16_t)~((1u << sci) | (1u << 2)));
	uint32_t before = pm_timer();
	outw((uint16_t)evt, TMR_STS);
	outw((uint16_t)(evt + 2), TMR_EN);
	check("PM1_EN: TMR_EN reads back", inw((uint16_t)(evt + 2)) & TMR_EN, TMR_EN);
	int got = wait_count(&irq_count[IRQ_BASE_SLAVE + sci - 8], 1, 100000);
	cli();
	uint32_t after = pm_timer();
	check_true("the SCI arrives on IRQ 9 with TMR_EN set", got);
	check("bit 23 of the PM timer changed by then", ((before ^ after) >> 23) & 1, 1);
	sts = inw((uint16_t)evt);
	check("TMR_STS set by the change of bit 23", sts & TMR_STS, TMR_STS);
	outw((uint16_t)evt, 0);
	check("TMR_STS stays set when 0 is written", inw((uint16_t)evt) & TMR_STS, TMR_STS);
	outw((uint16_t)(evt + 2), 0);
	outw((uint16_t)evt, TMR_STS);
	check("TMR_STS clear after 1 is written", inw((uint16_t)evt) & TMR_STS, 0);
	check("IRQ 9 no longer requested (PIC IRR)", (pic_irr(1) >> (sci - 8)) & 1, 0);
	pic_eoi(sci);
	irq_no_eoi = 0;
	pic_set_mask(0xffff);

	/* S5: SLP_TYP from \_S5, then SLP_EN (ACPI 6.0 4.8.3.2.1, 7.3.4.5). */
	const uint8_t *dsdt = (const uint8_t *)(uintptr_t)rd32(fadt, 40);
	int typ = s5_slp_typ(dsdt);
	check_true("the DSDT has \\_S5 (ACPI 6.0 7.3.4.5)", typ >= 0);
	if (typ < 0)
		tap_finish();
	note("\\_S5 SLP_TYPa %d", typ);
	uint16_t c = (uint16_t)(inw((uint16_t)cnt) & ~(7u << SLP_TYP_SHIFT));
	outw((uint16_t)cnt, (uint16_t)(c | (typ << SLP_TYP_SHIFT)));
	check("SLP_TYP written, SLP_EN not: still running, SLP_TYP reads back",
	      (inw((uint16_t)cnt) >> SLP_TYP_SHIFT) & 7, (uint32_t)typ);
	note("the run ends here");
	outw((uint16_t)cnt, (uint16_t)(c | (typ << SLP_TYP_SHIFT) | SLP_EN));
	/* QEMU powers off from its main loop, a little later: give it a second
	 * of the PM timer's time. */
	uint32_t w0 = pm_timer();
	while (((pm_timer() - w0) & mask) < PM_HZ)
		;
	check("SLP_EN with the S5 type powered the machine off", 0, 1);
	tap_finish();
}
