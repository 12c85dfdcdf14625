/* What the two oracles (fuzz/svm_oracle.h, the APM's; fuzz/vmx_oracle.h, the
 * SDM's) share in their interfaces: the description of the L2 world the
 * fuzzers build and the tally of the reasons an oracle gave for not
 * predicting (fuzz/oracle_common.c). Their simulations share the x86
 * addressing of fuzz/oracle_sim.h. What an exit records, which
 * instructions exit, the entry checks and how events are delivered stay
 * each oracle's own reading of its manual (svm_oracle*.c, vmx_oracle*.c).
 */
#ifndef HVEMU_FUZZ_ORACLE_COMMON_H
#define HVEMU_FUZZ_ORACLE_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* What both oracles read of the processor's CPUID (APM3 Appendix E, SDM
 * Vol.2 CPUID): the feature leaves and MAXPHYADDR. */
struct oracle_cpuid {
	uint32_t cpuid1_ecx, cpuid1_edx;   /* leaf 1 */
	uint32_t cpuid7_ebx, cpuid7_ecx;   /* leaf 7, subleaf 0 */
	uint32_t cpuid81_ecx, cpuid81_edx; /* leaf 8000_0001h */
	unsigned maxphyaddr;               /* leaf 8000_0008h EAX[7:0] */
};

/* The L2 world the fuzzer builds (fuzz/exit_machine.h); the oracles predict
 * only inside it. */
struct oracle_l2_layout {
	uint64_t cr3_32, cr3_64;           /* the page tables of a 32-bit and a 64-bit guest */
	uint64_t mapped_top;               /* linear [0, mapped_top) is mapped 1:1, present,
					      supervisor, writable, A and D already set ... */
	uint64_t holes[2];                 /* ... but these pages, not present */
	uint64_t data;                     /* a present page the templates use */
	uint64_t start_rip;                /* the first template's first byte */
	/* IDTs, all gates DPL 0 to a flat DPL-0 code segment whose handlers
	 * are HLT: of 32-bit gates (both), of 16-bit gates (SVM), of 64-bit
	 * gates (VMX); 0 where the fuzzer builds none. */
	uint64_t idt32, idt16, idt64;
	uint64_t handler32, handler16;     /* the 32-bit and 64-bit gates' handler; the 16-bit gates' */
	const uint8_t *ram;                /* guest-physical RAM, for the permission maps or bitmaps */
	uint64_t ram_size;
};

/* A template as the fuzzer assembled it and the oracle reads it: a few
 * set-up MOVs and one key instruction, whose start, length and operands the
 * oracle is told (op: the vendor's template number, enum oracle_op or enum
 * vo_op). */
#define L2_REP        1u               /* F3 prefix */
#define L2_ADDR_OVR   2u               /* 67 prefix */
#define L2_PORT_DX    4u               /* IN/OUT port in DX, not imm8 */
#define L2_MEM        8u               /* a ModRM memory operand (mem below; VMX templates) */

/* A ModRM memory operand as assembled: [base + index * scale + disp]. */
struct l2_modrm {
	int8_t base, index;                /* GPR 0-15, -1: none */
	bool rip_relative;                 /* [RIP + disp32] (64-bit mode; base and index -1) */
	uint8_t scale;                     /* 0-3: 1, 2, 4, 8 */
	int8_t seg;                        /* the effective segment register (0-5: ES CS SS DS FS GS) */
	int32_t disp;                      /* as the instruction holds it, sign-extended */
	uint8_t asize;                     /* address size in bytes: 2, 4, 8 */
	uint64_t ea;                       /* the operand's effective address (offset in seg) */
};

struct l2_insn {
	uint8_t op;                        /* the vendor's template number */
	uint8_t size;                      /* operand size in bytes (I/O, loads, RDRAND) */
	uint8_t flags;                     /* L2_* */
	uint8_t reg;                       /* the GPR of MOV CR/DR, a reg operand, VMREAD/VMWRITE reg1 */
	uint8_t reg2;                      /* VMREAD/VMWRITE's encoding register */
	int8_t seg;                        /* segment override (0-5), -1: none */
	uint32_t imm;                      /* port, MSR, vector, CR/DR number */
	uint64_t value;                    /* value written (MOV to CR/DR, LMSW, WRMSR, XSETBV EDX:EAX,
					      RETF16's ESP) or address (loads, string I/O) */
	struct l2_modrm mem;               /* with L2_MEM */
	uint64_t rip;                      /* the key instruction's rIP and length */
	uint8_t len;
};

/* The reasons an oracle gave for not predicting, each counted (the reasons
 * are string constants: told apart by address). */
#define ORACLE_UNKNOWN_REASONS 64
struct oracle_unknowns {
	uint64_t total;
	const char *why[ORACLE_UNKNOWN_REASONS];
	uint64_t count[ORACLE_UNKNOWN_REASONS];
};

void oracle_unknowns_note(struct oracle_unknowns *u, const char *why);

/* One line a reason: "prefix:   reason  count", the reason padded to width. */
void oracle_unknowns_print(const struct oracle_unknowns *u, const char *prefix, int width);

#endif
