/* IA-32e mode for the 64-bit guests (long_mode, pcid, la57, fsgsbase,
 * callgate64, xsave64): a 1 GiB identity map for 4-level paging, the 64-bit
 * code descriptor and 16-byte TSS descriptor, a 64-bit IDT of recording stubs
 * (lib/long64.S), entering and leaving IA-32e mode, and the far call from
 * compatibility mode into a 64-bit routine.
 *
 * The C code keeps running as 32-bit code: in compatibility mode once IA-32e
 * mode is active. 64-bit routines are .code64 pieces of the same 32-bit ELF,
 * far-called through LM_CS64 (CALL64) and returning with LRETL; they start
 * with ENTRY64/TRY64 from lib/long64.h. Exceptions in either mode go through
 * lm_idt64 to lib/long64.S, which records them in lm_vec.. and resumes at
 * lm_recover (cleared by each fault; an exception with none armed ends the
 * guest through lm_unexpected). */
#ifndef GUEST_LONG_H
#define GUEST_LONG_H

#include "paging.h"

#define LM_CS64   0x40            /* 64-bit code DPL0: the first free GDT entry */
#define LM_STR_(x) #x
#define LM_STR(x)  LM_STR_(x)

#define MSR_FS_BASE        0xc0000100u
#define MSR_GS_BASE        0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u
#define EFER_SCE  (1u << 0)
#define EFER_LME  (1u << 8)
#define EFER_LMA  (1u << 10)
#define FL_L      0x2             /* descriptor bit 53: 64-bit code (SDM Vol.3 3.4.5) */

/* 64-bit TSS fields as dword indexes (SDM Vol.3 8.7, Figure 8-11). */
#define TSS64_RSP0 (0x04 / 4)
#define TSS64_IST1 (0x24 / 4)

/* What the 64-bit stubs record for the last exception (lib/long64.S): vector,
 * error code (0 if none), RIP, CS and RSP of the frame, CR2, and the handler's
 * RSP after its two pushes (to see the stack the CPU switched to). */
extern volatile uint64_t lm_vec, lm_err, lm_rip, lm_cs, lm_rsp, lm_cr2, lm_hrsp;
/* Where the next exception resumes (32-bit address, any mode); 0: none armed. */
extern volatile uint32_t lm_recover;
extern char lm_stubs[];

/* Identity map of the first GiB with 2 MiB pages: lm_pml4[0] -> lm_pdpt[0] ->
 * lm_pd. Guests may add entries (other PDPTEs, a PML5) around it. */
extern uint64_t lm_pml4[512], lm_pdpt[512], lm_pd[512];
extern uint64_t lm_idt64[64];             /* 32 16-byte gates */
extern uint32_t lm_tss64[26];             /* 104-byte 64-bit TSS */

/* 1 if CPUID.80000001H:EDX.LM[29] = 1 (the leaf exists and reports Intel 64
 * architecture / long mode), else 0. */
uint32_t long_mode_supported(void);
/* Fills lm_pml4/lm_pdpt/lm_pd with flags (PG_P | PG_W, maybe PG_U) at every
 * level; returns the CR3 value (lm_pml4). */
uint32_t long_identity_map(uint32_t flags);
/* The 64-bit code descriptor for DPL dpl: L = 1, D = 0 (SDM Vol.3 5.2.1). */
uint64_t long_code64_desc(unsigned dpl);
/* gdt[LM_CS64] = 64-bit code DPL0; reloads the GDT. */
void long_gdt_init(void);
/* The 16-byte descriptor of lm_tss64 into slot[0] and slot[1] (SDM Vol.3 8.2.3). */
void long_tss_desc(uint64_t *slot);
/* lm_idt64: interrupt gates for vectors 0-31 to lm_stubs through cs; vector v
 * uses IST1 when bit v of ist1_vectors is set (SDM Vol.3 6.14.1, 6.14.5). */
void long_idt_init(uint16_t cs, uint32_t ist1_vectors);
/* CR4 := cr4 (PAE set by the caller), CR3 := cr3, EFER.LME := 1, then LIDT
 * lm_idt64 and CR0.PG := 1 (SDM Vol.3 9.8.5). */
void long_enter(uint32_t cr4, uint32_t cr3);
/* From compatibility mode: CR0.PG := 0, then LIDT idt32 (SDM Vol.3 9.8.5.4).
 * EFER is the caller's (the guests check LMA before they clear LME). */
void long_leave(const struct dtr *idt32);
/* Target of an exception with no recovery point armed: a failed check, then
 * the end of the guest. */
void lm_unexpected(void) __attribute__((noreturn));

static inline uint32_t lo32(uint64_t v) { return (uint32_t)v; }
static inline uint32_t hi32(uint64_t v) { return (uint32_t)(v >> 32); }

/* Far call from compatibility mode to the 64-bit routine fn (SDM Vol.2 CALL:
 * a far call through a 64-bit code segment from compatibility mode pushes CS
 * and EIP as dwords, so fn returns with LRETL). */
#define CALL64(fn) __asm__ volatile("lcall $" LM_STR(LM_CS64) ", $" #fn ::: "eax", "ecx", "edx", "memory")
/* A compatibility-mode instruction that may fault through lm_idt64: execution
 * goes on after it either way. */
#define LM_TRY(insn, ...) __asm__ volatile("movl $1f, lm_recover\n\t" insn "\n1:" :: __VA_ARGS__)

#endif
