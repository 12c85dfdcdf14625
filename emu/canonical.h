/* Canonical linear addresses in IA-32e mode (SDM Vol.1 3.3.7.1): which width
 * each check uses. Accesses and RIP loads follow the paging mode (48 or 57
 * bits); registers that hold a linear address for later use follow the
 * processor (57 bits on an LA57 part even while CR4.LA57 = 0).
 */
#ifndef HVEMU_EMU_CANONICAL_H
#define HVEMU_EMU_CANONICAL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/cpu.h"

/* Canonical form: bits 63 to bits-1 all equal (SDM Vol.1 3.3.7.1). */
static inline bool canonical_bits(uint64_t a, unsigned bits)
{
	unsigned s = 64 - bits;
	return (uint64_t)((int64_t)(a << s) >> s) == a;
}

/* Linear-address width of the model: 57 with LA57 (CPUID.(EAX=7,ECX=0):ECX[16];
 * 80000008H:EAX[15:8] then reports 57), else 48. */
bool cpu_la57_supported(const struct cpu *cpu);

/* Canonical for what uses a linear address now: data and stack accesses,
 * instruction fetch and every load of RIP (branches, far transfers, IRET, SYSRET,
 * event delivery). The width follows the paging mode: 57 bits with 5-level
 * paging, else 48 (SDM Vol.1 3.3.7.1; Intel 5-Level Paging white paper 335252
 * 2.3, and 2.5.1 for RIP loads). In IA-32e mode CR4.LA57
 * is 5-level paging itself, since it cannot change while EFER.LMA = 1 (SDM Vol.2
 * MOV CR). A 48-bit canonical address is 57-bit canonical too, so 4-level paging
 * pays for the one test it always made. */
static inline bool addr_canonical(const struct cpu *cpu, uint64_t a)
{
	if (__builtin_expect(canonical_bits(a, 48), 1))
		return true;
	return (cpu->cr4 & CR4_LA57) && canonical_bits(a, 57);
}

/* Canonical for a register that holds a linear address for later use: the
 * FS/GS/KERNEL_GS bases, LSTAR, CSTAR, SYSENTER_ESP/EIP (WRMSR, WRFSBASE,
 * WRGSBASE), GDTR/IDTR/LDTR/TR bases (LGDT, LIDT, LLDT, LTR), and the address of
 * INVLPG/INVPCID. These checks use the processor's width whatever CR4.LA57 says:
 * 57 bits on a processor with 5-level paging (white paper 335252 2.5.2
 * "Canonicality Checking on Other Loads", and its TLB-invalidation section),
 * which lets a 4-level kernel prepare 57-bit values before it enables LA57. */
static inline bool addr_canonical_reg(const struct cpu *cpu, uint64_t a)
{
	if (__builtin_expect(canonical_bits(a, 48), 1))
		return true;
	return canonical_bits(a, 57) && cpu_la57_supported(cpu);
}

#endif
