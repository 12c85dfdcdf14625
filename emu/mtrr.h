/* Memory type range registers (SDM Vol.3 12.11 "Memory Type Range Registers
 * (MTRRs)"; APM2 7.7): IA32_MTRRCAP, IA32_MTRR_DEF_TYPE, the eleven fixed
 * ranges and MTRR_VCNT variable ranges, on a CPU whose CPUID.1:EDX.MTRR[12]
 * is set. hvemu keeps what software writes and checks it (#GP on a reserved
 * bit or an undefined memory type, 12.11.2-12.11.3); it caches nothing, so
 * the types change no access. */
#ifndef HVEMU_EMU_MTRR_H
#define HVEMU_EMU_MTRR_H

#include <stdbool.h>
#include <stdint.h>

struct cpu;

#define MTRR_VCNT 8               /* variable ranges, IA32_MTRRCAP.VCNT */
#define MTRR_FIXED_COUNT 11

#define MSR_MTRRCAP      0x0feu
#define MSR_MTRR_PHYSBASE0 0x200u  /* PHYSBASEn = 200H + 2n, PHYSMASKn = 201H + 2n */
#define MSR_MTRR_FIX64K_00000 0x250u
#define MSR_MTRR_FIX16K_80000 0x258u
#define MSR_MTRR_FIX16K_A0000 0x259u
#define MSR_MTRR_FIX4K_C0000 0x268u  /* ... 4K_F8000 at 26FH */
#define MSR_MTRR_DEF_TYPE 0x2ffu

/* SDM Vol.3 Figure 12-5 (IA32_MTRRCAP) and 12-6 (IA32_MTRR_DEF_TYPE). */
#define MTRRCAP_FIX (1ull << 8)
#define MTRRCAP_WC (1ull << 10)
#define MTRR_DEF_FE (1ull << 10)
#define MTRR_DEF_E (1ull << 11)
#define MTRR_PHYSMASK_V (1ull << 11)

/* What software wrote; zero at power-on (12.11.5: "Upon a hardware reset,
 * ... clear the valid flags in variable-range MTRRs and clear the E flag in
 * the IA32_MTRR_DEF_TYPE MSR"). */
struct mtrr_state {
	uint64_t def_type;
	uint64_t fixed[MTRR_FIXED_COUNT];   /* 250H, 258H, 259H, 268H-26FH in that order */
	uint64_t var[2 * MTRR_VCNT];        /* PHYSBASE0, PHYSMASK0, PHYSBASE1, ... */
};

/* The MSR table's rows (emu/msr.c): X(index, name) for each MTRR. */
#define MTRR_MSRS(X) \
	X(MSR_MTRRCAP, "IA32_MTRRCAP") X(MSR_MTRR_DEF_TYPE, "IA32_MTRR_DEF_TYPE") \
	X(MSR_MTRR_FIX64K_00000, "IA32_MTRR_FIX64K_00000") X(MSR_MTRR_FIX16K_80000, "IA32_MTRR_FIX16K_80000") \
	X(MSR_MTRR_FIX16K_A0000, "IA32_MTRR_FIX16K_A0000") \
	X(0x268, "IA32_MTRR_FIX4K_C0000") X(0x269, "IA32_MTRR_FIX4K_C8000") \
	X(0x26a, "IA32_MTRR_FIX4K_D0000") X(0x26b, "IA32_MTRR_FIX4K_D8000") \
	X(0x26c, "IA32_MTRR_FIX4K_E0000") X(0x26d, "IA32_MTRR_FIX4K_E8000") \
	X(0x26e, "IA32_MTRR_FIX4K_F0000") X(0x26f, "IA32_MTRR_FIX4K_F8000") \
	X(0x200, "IA32_MTRR_PHYSBASE0") X(0x201, "IA32_MTRR_PHYSMASK0") \
	X(0x202, "IA32_MTRR_PHYSBASE1") X(0x203, "IA32_MTRR_PHYSMASK1") \
	X(0x204, "IA32_MTRR_PHYSBASE2") X(0x205, "IA32_MTRR_PHYSMASK2") \
	X(0x206, "IA32_MTRR_PHYSBASE3") X(0x207, "IA32_MTRR_PHYSMASK3") \
	X(0x208, "IA32_MTRR_PHYSBASE4") X(0x209, "IA32_MTRR_PHYSMASK4") \
	X(0x20a, "IA32_MTRR_PHYSBASE5") X(0x20b, "IA32_MTRR_PHYSMASK5") \
	X(0x20c, "IA32_MTRR_PHYSBASE6") X(0x20d, "IA32_MTRR_PHYSMASK6") \
	X(0x20e, "IA32_MTRR_PHYSBASE7") X(0x20f, "IA32_MTRR_PHYSMASK7")

/* Whether the CPU has the MTRRs: CPUID.1:EDX.MTRR[12] (SDM Vol.4 Table 2-2). */
bool mtrr_exists(const struct cpu *cpu);
/* RDMSR/WRMSR of the MTRR that ECX names; a write returns false for #GP(0). */
uint64_t mtrr_read(struct cpu *cpu);
bool mtrr_write(struct cpu *cpu, uint64_t v);

#endif
