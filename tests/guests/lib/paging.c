/* Paging helpers for the paging/TLB guests (see paging.h). */
#include "paging.h"

uint8_t pg_frames[PG_TEST_PAGES][4096] __attribute__((aligned(4096)));
uint32_t pg32_pd[1024] __attribute__((aligned(4096)));
uint32_t pg32_test_pt[1024] __attribute__((aligned(4096)));
static uint32_t pg32_id_pt[IDMAP_END >> 22][1024] __attribute__((aligned(4096)));

/* SDM Vol.3 4.4.1: CR3[31:5] locates the PDPT (32-byte aligned). */
uint64_t pae_pdpt[4] __attribute__((aligned(32)));
uint64_t pae_pd[4][512] __attribute__((aligned(4096)));
uint64_t pae_test_pt[512] __attribute__((aligned(4096)));
static uint64_t pae_id_pt[IDMAP_END >> 21][512] __attribute__((aligned(4096)));

static uint32_t pa(const void *p) { return (uint32_t)(uintptr_t)p; }

uint32_t pg32_build(void)
{
	gmemset(pg32_pd, 0, sizeof(pg32_pd));
	gmemset(pg32_test_pt, 0, sizeof(pg32_test_pt));
	for (uint32_t t = 0; t < (IDMAP_END >> 22); t++) {
		for (uint32_t i = 0; i < 1024; i++)
			pg32_id_pt[t][i] = ((t << 22) | (i << 12)) | PG_P | PG_W | PG_U;
		pg32_pd[t] = pa(pg32_id_pt[t]) | PG_P | PG_W | PG_U;
	}
	pg32_pd[TEST_LIN >> 22] = pa(pg32_test_pt) | PG_P | PG_W | PG_U;
	return pa(pg32_pd);
}

uint32_t pae_build(void)
{
	gmemset(pae_pdpt, 0, sizeof(pae_pdpt));
	gmemset(pae_pd, 0, sizeof(pae_pd));
	gmemset(pae_test_pt, 0, sizeof(pae_test_pt));
	for (uint32_t t = 0; t < (IDMAP_END >> 21); t++) {
		for (uint32_t i = 0; i < 512; i++)
			pae_id_pt[t][i] = ((t << 21) | (i << 12)) | PG_P | PG_W | PG_U;
		pae_pd[0][t] = pa(pae_id_pt[t]) | PG_P | PG_W | PG_U;
	}
	pae_pd[TEST_LIN >> 30][(TEST_LIN >> 21) & 511] = pa(pae_test_pt) | PG_P | PG_W | PG_U;
	/* SDM 4.4.1 Table 4-8: a PDPTE has only P, PWT, PCD and the address. */
	for (int i = 0; i < 4; i++)
		pae_pdpt[i] = pa(pae_pd[i]) | PG_P;
	return pa(pae_pdpt);
}

void paging_on(uint32_t cr3, uint32_t cr4_set)
{
	write_cr4(read_cr4() | cr4_set);
	write_cr3(cr3);
	write_cr0(read_cr0() | CR0_PG);
}

void paging_off(void)
{
	write_cr0(read_cr0() & ~(CR0_PG | CR0_WP));
	write_cr4(read_cr4() & ~(CR4_PSE | CR4_PAE | CR4_PGE | CR4_SMEP | CR4_SMAP));
}

int cpu_has(uint32_t leaf, unsigned reg, unsigned bit)
{
	uint32_t r[4];
	cpuid(leaf & 0x80000000u, 0, r);
	if (r[0] < leaf)
		return 0;
	cpuid(leaf, 0, r);
	return (r[reg] >> bit) & 1;
}

unsigned cpu_maxphyaddr(void)
{
	uint32_t r[4];
	cpuid(0x80000000u, 0, r);
	if (r[0] >= 0x80000008u) {
		cpuid(0x80000008u, 0, r);
		return r[0] & 0xff;
	}
	/* SDM 4.1.4: without 80000008H, 36 if CPUID.1:EDX.PAE (bit 6), else 32. */
	return cpu_has(1, 3, 6) ? 36 : 32;
}

void pg_read(void *arg)
{
	struct pg_access *a = arg;
	uint32_t v;
	__asm__ volatile(MARK "movl (%1), %0" : "=r"(v) : "r"(a->lin) : "memory");
	a->value = v;
}

void pg_write(void *arg)
{
	struct pg_access *a = arg;
	__asm__ volatile(MARK "movl %1, (%0)" :: "r"(a->lin), "r"(a->value) : "memory");
}

void pg_fetch(void *arg)
{
	struct pg_access *a = arg;
	__asm__ volatile(MARK "call *%0" :: "r"(a->lin) : "memory", "eax", "ecx", "edx");
}

static int pf_check_common(const char *name, trap_fn fn, void *arg, int cpl, int err, uint32_t cr2,
			   uint32_t eip, const char *why)
{
	const uint32_t sentinel = 0x0badf00du;
	write_cr2(sentinel);
	trap_reset();
	int got = cpl == 3 ? run_user(fn, arg, 0) : trap_catch(fn, arg);
	if (err < 0) {
		if (got != NO_FAULT)
			gprintf("# %s: unexpected vector %u error 0x%x CR2 0x%x EIP 0x%x\n", name,
				(uint32_t)got, trap_last.error, read_cr2(), trap_last.eip);
		check(name, (uint32_t)got, (uint32_t)NO_FAULT);
		return got;
	}
	uint32_t want_eip = eip ? eip : trap_mark_ip;
	if (got != 14) {
		if (why)
			check_quirk(name, (uint32_t)got, 14, why);
		else
			check(name, (uint32_t)got, 14);
	} else if (trap_last.error != (uint32_t)err) {
		gprintf("# %s: #PF ok, error code wrong\n", name);
		if (why)
			check_quirk(name, trap_last.error, (uint32_t)err, why);
		else
			check(name, trap_last.error, (uint32_t)err);
	} else if (read_cr2() != cr2) {
		gprintf("# %s: #PF and error code ok, CR2 wrong\n", name);
		check(name, read_cr2(), cr2);
	} else if (want_eip && trap_last.eip != want_eip) {
		gprintf("# %s: #PF, error code and CR2 ok, faulting EIP wrong\n", name);
		check(name, trap_last.eip, want_eip);
	} else {
		check(name, 14, 14);
	}
	return got;
}

int pf_check(const char *name, trap_fn fn, void *arg, int cpl, int err, uint32_t cr2, uint32_t eip)
{
	return pf_check_common(name, fn, arg, cpl, err, cr2, eip, 0);
}

int pf_check_quirk(const char *name, trap_fn fn, void *arg, int cpl, int err, uint32_t cr2,
		   uint32_t eip, const char *why)
{
	return pf_check_common(name, fn, arg, cpl, err, cr2, eip, why);
}

static char *put_str(char *p, char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return p;
}

const char *pg_name(char *buf, unsigned size, const char *fmt, ...)
{
	char *p = buf, *end = buf + size - 1;
	va_list ap;
	va_start(ap, fmt);
	for (; *fmt && p < end; fmt++) {
		if (*fmt != '%') {
			*p++ = *fmt;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			p = put_str(p, end, va_arg(ap, const char *));
		} else if (*fmt == 'u' || *fmt == 'x') {
			unsigned base = *fmt == 'u' ? 10 : 16;
			uint32_t v = va_arg(ap, uint32_t);
			char tmp[12];
			int n = 0;
			do {
				tmp[n++] = "0123456789abcdef"[v % base];
				v /= base;
			} while (v);
			while (n && p < end)
				*p++ = tmp[--n];
		} else if (*fmt) {
			*p++ = *fmt;
		} else {
			break;
		}
	}
	va_end(ap);
	*p = 0;
	return buf;
}
