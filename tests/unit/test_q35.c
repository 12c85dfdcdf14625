/* The q35 chipset (devices/q35.c, devices/ich9_lpc.c): the ECAM window
 * decoding bus, device, function and register from the address (PCIe 3.0
 * 7.2.2 Table 7-1) onto the same configuration space as CF8h/CFCh, the
 * extended space reading 0 (no extended capabilities, PCIe 3.0 7.9.1),
 * PCIEXBAR as programmed and read-only, and the ICH9 LPC bridge: its IDs,
 * ACPI_EN and PMBASE gating the PM block, GPE0 at 20h with 64-bit halves,
 * and S5 at SLP_TYP 111b (ICH9 datasheet PM1_CNT), 000b doing nothing. */
#include <check.h>
#include <string.h>

#include "devices/ich9_lpc.h"
#include "devices/q35.h"
#include "fake_clock.h"
#include "suite_runner.h"

struct rig {
	struct fake_time t;
	struct physmem mem;
	struct iobus io;
	struct pci_host pci;
	struct ich9_lpc lpc;
	struct line_log sci;
	struct power_control power;
	unsigned off_requests;
};

static void on_request(void *opaque, enum power_request what, const char *source)
{
	struct rig *r = opaque;
	(void)source;
	if (what == POWER_OFF)
		r->off_requests++;
}

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	fake_time_init(&r->t, 1000000000);
	r->sci.time = &r->t;
	ck_assert(physmem_init(&r->mem, 16u << 20));
	iobus_init(&r->io);
	pci_host_init(&r->pci, NULL, NULL);
	ck_assert(pci_host_register(&r->pci, &r->io));
	ck_assert(q35_attach(&r->pci, &r->mem));
	r->power = (struct power_control){ .request = on_request, .opaque = r };
	ich9_lpc_init(&r->lpc, &r->t.clock, &r->power, line_log_line(&r->sci));
	ck_assert(ich9_lpc_attach(&r->lpc, &r->pci, &r->io));
}

static void rig_done(struct rig *r) { physmem_destroy(&r->mem); }

static uint64_t ecam_addr(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return Q35_ECAM_BASE + ((uint64_t)bus << 20 | dev << 15 | fn << 12 | reg);
}

static uint32_t cf8(struct rig *r, unsigned dev, unsigned fn, unsigned reg)
{
	iobus_write(&r->io, PCI_CONFIG_ADDRESS, 4, PCI_CONFIG_ENABLE | dev << 11 | fn << 8 | (reg & 0xfc));
	return iobus_read(&r->io, PCI_CONFIG_DATA, 4);
}

START_TEST(ecam_decoding)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0, 0, 0), 4), 0x29c08086u);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 0, 0), 4), 0x29188086u);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 0, 2), 2), 0x2918);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 0, 0xe), 1), 0x80);   /* multi-function */
	/* Every doubleword of both headers equals what mechanism #1 reads. */
	for (unsigned reg = 0; reg < 256; reg += 4) {
		ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0, 0, reg), 4), cf8(&r, 0, 0, reg));
		ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 0, reg), 4), cf8(&r, 0x1f, 0, reg));
	}
	/* Absent: another device, function, bus; the last bus of the window. */
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 1, 0, 0), 4), 0xffffffffu);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 1, 0), 4), 0xffffffffu);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(1, 0, 0, 0), 4), 0xffffffffu);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(255, 31, 7, 0xffc), 4), 0xffffffffu);
	/* PCIe 3.0 7.9.1: the extended space's first header 0, no capabilities. */
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0, 0, 0x100), 4), 0);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0x1f, 0, 0xffc), 4), 0);
	/* A doubleword across two registers' doublewords: byte by byte. */
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0, 0, 2), 4), 0x000629c0u);
	rig_done(&r);
}
END_TEST

/* Writes through ECAM land where mechanism #1 sees them, within the
 * writable bits; PCIEXBAR and the IDs stay. */
START_TEST(ecam_writes)
{
	struct rig r;
	rig_init(&r);
	ck_assert_uint_eq(cf8(&r, 0, 0, Q35_PCIEXBAR), Q35_ECAM_BASE | Q35_PCIEXBAREN);
	physmem_write(&r.mem, ecam_addr(0, 0, 0, Q35_PCIEXBAR), 4, 0xe0000000u);
	ck_assert_uint_eq(cf8(&r, 0, 0, Q35_PCIEXBAR), Q35_ECAM_BASE | Q35_PCIEXBAREN);
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, 0), 4, 0);
	ck_assert_uint_eq(cf8(&r, 0x1f, 0, 0), 0x29188086u);
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_ACPI_CNTL), 1, 0);
	ck_assert_uint_eq(cf8(&r, 0x1f, 0, ICH9_ACPI_CNTL) & 0xff, 0);
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_ACPI_CNTL), 1, 0xff);
	ck_assert_uint_eq(cf8(&r, 0x1f, 0, ICH9_ACPI_CNTL) & 0xff, ICH9_ACPI_EN);
	/* PMBASE: bits 15:7 writable, bit 0 reads 1. */
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_PMBASE), 4, 0xffffffffu);
	ck_assert_uint_eq(cf8(&r, 0x1f, 0, ICH9_PMBASE), 0xff81u);
	/* Writes to absent functions and the extended space go nowhere. */
	physmem_write(&r.mem, ecam_addr(0, 1, 0, 0x40), 4, 1);
	physmem_write(&r.mem, ecam_addr(0, 0, 0, 0x100), 4, 0x12345678u);
	ck_assert_uint_eq(physmem_read(&r.mem, ecam_addr(0, 0, 0, 0x100), 4), 0);
	rig_done(&r);
}
END_TEST

static uint32_t pm_in(struct rig *r, unsigned off, unsigned size)
{
	return iobus_read(&r->io, (uint16_t)(ICH9_PM_BASE + off), size);
}
static void pm_out(struct rig *r, unsigned off, unsigned size, uint32_t v)
{
	iobus_write(&r->io, (uint16_t)(ICH9_PM_BASE + off), size, v);
}

/* ICH9 datasheet ACPI_CNTL/PMBASE: the block answers only with ACPI_EN set
 * and PMBASE where it was programmed. */
START_TEST(pm_block_gating)
{
	struct rig r;
	rig_init(&r);
	fake_time_run(&r.t, 1000000000);
	ck_assert_uint_eq(pm_in(&r, PM_TMR, 4), PM_TIMER_HZ);
	ck_assert_uint_eq(pm_in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN);
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_ACPI_CNTL), 1, 0);
	ck_assert_uint_eq(pm_in(&r, PM_TMR, 4), 0xffffffffu);
	pm_out(&r, PM1_CNT, 2, (uint32_t)ICH9_SLP_TYP_SOFT_OFF << PM1_CNT_SLP_TYP_SHIFT | PM1_CNT_SLP_EN);
	ck_assert_uint_eq(r.off_requests, 0);
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_ACPI_CNTL), 1, ICH9_ACPI_EN);
	ck_assert_uint_eq(pm_in(&r, PM_TMR, 4), PM_TIMER_HZ);
	/* PMBASE moves the block (ICH9 datasheet PMBASE). */
	physmem_write(&r.mem, ecam_addr(0, 0x1f, 0, ICH9_PMBASE), 2, 0xb000);
	ck_assert_uint_eq(pm_in(&r, PM_TMR, 4), 0xffffffffu);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + PM_TMR, 4), PM_TIMER_HZ);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + ICH9_GPE0 + 8, 4), 0);
	ich9_lpc_program(&r.lpc);
	ck_assert_uint_eq(pm_in(&r, PM_TMR, 4), PM_TIMER_HZ);
	ck_assert_uint_eq(iobus_read(&r.io, 0xb000 + PM_TMR, 4), 0xffffffffu);
	rig_done(&r);
}
END_TEST

/* GPE0 at 20h: GPE0_STS 64 bits (write 1 to clear), GPE0_EN 64 bits at 28h;
 * an enabled status in the high doubleword raises the SCI too. */
START_TEST(gpe0_64bit)
{
	struct rig r;
	rig_init(&r);
	pm_out(&r, ICH9_GPE0 + 8, 4, 0xffffffffu);
	pm_out(&r, ICH9_GPE0 + 12, 4, 0x80000001u);
	ck_assert_uint_eq(pm_in(&r, ICH9_GPE0 + 12, 4), 0x80000001u);
	ck_assert_uint_eq(pm_in(&r, ICH9_GPE0, 4), 0);
	r.lpc.acpi.gpe_sts = 1ull << 63;            /* an event (none is wired yet) */
	pm_out(&r, ICH9_GPE0, 4, 0);                 /* writing 0 clears nothing */
	ck_assert(r.sci.cur);
	ck_assert_uint_eq(pm_in(&r, ICH9_GPE0 + 4, 4), 0x80000000u);
	pm_out(&r, ICH9_GPE0 + 4, 4, 0x80000000u);
	ck_assert(!r.sci.cur);
	ck_assert_uint_eq(pm_in(&r, ICH9_GPE0 + 4, 4), 0);
	/* Past GPE0: SMI_EN at 30h reads APMC_EN alone (no SMM: firmware takes
	 * SMM as set up and raises no SMI), in any width, and keeps it; the rest
	 * (SMI_STS at 34h) reads 0; the block ends at 80h. */
	ck_assert_uint_eq(pm_in(&r, ICH9_SMI_EN, 4), ICH9_SMI_EN_APMC_EN);
	ck_assert_uint_eq(pm_in(&r, ICH9_SMI_EN, 1), ICH9_SMI_EN_APMC_EN);
	ck_assert_uint_eq(pm_in(&r, ICH9_SMI_EN + 1, 2), 0);
	pm_out(&r, ICH9_SMI_EN, 4, 0);
	ck_assert_uint_eq(pm_in(&r, ICH9_SMI_EN, 4), ICH9_SMI_EN_APMC_EN);
	ck_assert_uint_eq(pm_in(&r, 0x34, 4), 0);
	rig_done(&r);
}
END_TEST

/* ICH9 datasheet PM1_CNT SLP_TYP: 111b is S5 (soft off); 000b (the PIIX4's
 * soft off) is S0 here, SLP_EN with it does nothing. */
START_TEST(s5_soft_off)
{
	struct rig r;
	rig_init(&r);
	pm_out(&r, PM1_CNT, 2, PM1_CNT_SCI_EN | PM1_CNT_SLP_EN);
	ck_assert_uint_eq(r.off_requests, 0);
	pm_out(&r, PM1_CNT, 2, PM1_CNT_SCI_EN | 5u << PM1_CNT_SLP_TYP_SHIFT | PM1_CNT_SLP_EN);   /* S3 */
	ck_assert_uint_eq(r.off_requests, 0);
	ck_assert_uint_eq(pm_in(&r, PM1_CNT, 2), PM1_CNT_SCI_EN | 5u << PM1_CNT_SLP_TYP_SHIFT);
	pm_out(&r, PM1_CNT + 1, 1, (7u << PM1_CNT_SLP_TYP_SHIFT | PM1_CNT_SLP_EN) >> 8);
	ck_assert_uint_eq(r.off_requests, 1);
	rig_done(&r);
}
END_TEST

static Suite *q35_suite(void)
{
	Suite *s = suite_create("q35");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, ecam_decoding);
	tcase_add_test(tc, ecam_writes);
	tcase_add_test(tc, pm_block_gating);
	tcase_add_test(tc, gpe0_64bit);
	tcase_add_test(tc, s5_soft_off);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(q35_suite());
}
