/* Paging helpers for the paging/TLB guests: identity-mapped 32-bit and PAE
 * page tables, control registers, and a #PF checker that compares vector,
 * error code, CR2 and faulting EIP (SDM Vol.3 chapter 4).
 *
 * Layout both table sets build (all frames are static .bss arrays, so their
 * linear and physical addresses are equal while the identity map is used):
 *   0 .. IDMAP_END      identity map, 4 KiB pages, P|R/W|U/S (ring-3 helpers
 *                       run from the kernel image, so it must be user pages)
 *   TEST_LIN ..         PG_TEST_PAGES 4 KiB pages through the test page table
 *                       (32-bit: PDE 256; PAE: PDPTE 1, PDE 0), all not present
 *                       until a test fills them.
 */
#ifndef GUEST_PAGING_H
#define GUEST_PAGING_H

#include "guest.h"

/* Paging-structure entry bits (SDM Vol.3 4.3 Tables 4-4..4-6, 4.4.2). */
#define PG_P    0x001u
#define PG_W    0x002u
#define PG_U    0x004u
#define PG_PWT  0x008u
#define PG_PCD  0x010u
#define PG_A    0x020u
#define PG_D    0x040u
#define PG_PS   0x080u
#define PG_G    0x100u
#define PG_XD   (1ull << 63)

/* #PF error code (SDM Vol.3 4.7, Figure 4-12). */
#define PF_P    0x01
#define PF_W    0x02
#define PF_U    0x04
#define PF_RSVD 0x08
#define PF_I    0x10

#define CR0_WP  (1u << 16)
#define CR0_PG  (1u << 31)
#define CR4_PSE (1u << 4)
#define CR4_PAE (1u << 5)
#define CR4_PGE (1u << 7)
#define CR4_SMEP (1u << 20)
#define CR4_SMAP (1u << 21)
#define EFER_MSR 0xc0000080u
#define EFER_NXE (1u << 11)

#define IDMAP_END    0x01000000u   /* 16 MiB identity map */
#define TEST_LIN     0x40000000u   /* first linear address of the test area */
#define PG_TEST_PAGES 16

static inline uint32_t read_cr0(void) { uint32_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr2(void) { uint32_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr3(void) { uint32_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr4(void) { uint32_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr0(uint32_t v) { __asm__ volatile("mov %0, %%cr0" :: "r"(v) : "memory"); }
static inline void write_cr2(uint32_t v) { __asm__ volatile("mov %0, %%cr2" :: "r"(v) : "memory"); }
static inline void write_cr3(uint32_t v) { __asm__ volatile("mov %0, %%cr3" :: "r"(v) : "memory"); }
static inline void write_cr4(uint32_t v) { __asm__ volatile("mov %0, %%cr4" :: "r"(v) : "memory"); }
static inline void invlpg(uint32_t lin) { __asm__ volatile("invlpg (%0)" :: "r"(lin) : "memory"); }
static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}
static inline uint64_t rdmsr64(uint32_t msr)
{
	uint32_t a, d;
	__asm__ volatile("rdmsr" : "=a"(a), "=d"(d) : "c"(msr));
	return ((uint64_t)d << 32) | a;
}
static inline void wrmsr64(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* 4 KiB frames free for tests (identity-mapped). */
extern uint8_t pg_frames[PG_TEST_PAGES][4096];
static inline uint32_t frame_pa(int i) { return (uint32_t)(uintptr_t)pg_frames[i]; }

/* ---- 32-bit paging (SDM Vol.3 4.3) ---- */
extern uint32_t pg32_pd[1024];
extern uint32_t pg32_test_pt[1024];     /* maps TEST_LIN .. TEST_LIN + 4 MiB */
/* Builds the identity map and the empty test page table; returns the CR3 value. */
uint32_t pg32_build(void);

/* ---- PAE paging (SDM Vol.3 4.4) ---- */
extern uint64_t pae_pdpt[4];            /* 32-byte aligned */
extern uint64_t pae_pd[4][512];         /* one page directory per PDPTE */
extern uint64_t pae_test_pt[512];       /* maps TEST_LIN .. TEST_LIN + 2 MiB */
uint32_t pae_build(void);

/* CR3 <- cr3, CR4 |= cr4_set, CR0.PG <- 1 (CR4 first: PAE must be set before PG). */
void paging_on(uint32_t cr3, uint32_t cr4_set);
/* CR0.PG <- 0 and CR4.PSE/PAE/PGE/SMEP/SMAP <- 0, CR0.WP <- 0. */
void paging_off(void);
/* Full TLB flush of non-global entries (MOV CR3, SDM Vol.3 4.10.4.1). */
static inline void flush_tlb(void) { write_cr3(read_cr3()); }

/* MAXPHYADDR: CPUID 80000008H:EAX[7:0] when available, otherwise 36 with
 * PAE, else 32 (SDM Vol.3 4.1.4). */
unsigned cpu_maxphyaddr(void);
int cpu_has(uint32_t leaf, unsigned reg, unsigned bit);   /* reg: 0=EAX 1=EBX 2=ECX 3=EDX */

/* One #PF expectation. Runs fn(arg) at CPL cpl (0 or 3) with CR2 preset to a
 * sentinel. err < 0: no fault wanted. Otherwise #PF (14) with error code err,
 * CR2 == cr2 and EIP == eip (eip 0: the instruction MARKed in fn). Reports one
 * TAP line; returns the vector seen (NO_FAULT when fn completed). */
int pf_check(const char *name, trap_fn fn, void *arg, int cpl, int err, uint32_t cr2, uint32_t eip);
/* The same, but a wrong error code is a known QEMU TCG deviation (check_quirk). */
#define QEMU_RSVD_NO_P "reserved-bit #PF error code without the P bit (SDM 4.7: RSVD can be set only with P)"
int pf_check_quirk(const char *name, trap_fn fn, void *arg, int cpl, int err, uint32_t cr2,
		   uint32_t eip, const char *why);

/* Accessors run by pf_check: arg points at a struct pg_access. */
struct pg_access { uint32_t lin; uint32_t value; };
void pg_read(void *arg);     /* value <- dword at lin (MARKed) */
void pg_write(void *arg);    /* dword at lin <- value (MARKed) */
void pg_fetch(void *arg);    /* CALL lin; the page must hold a RET there */

/* Small string builder for check names: %s %u %x only. */
const char *pg_name(char *buf, unsigned size, const char *fmt, ...);

#endif
