/* The AMD configuration MSRs; see emu/amd_cfg_msrs.h. */
#include "emu/amd_cfg_msrs.h"

#include "devices/bus.h"
#include "emu/cpu.h"
#include "emu/cpu_model.h"

#define TOP_MEM_MASK 0x0000ffffff800000ull   /* bits 47:23 */

/* Each register's reset value and writable bits, in AMD_CFG_MSRS order. */
struct amd_cfg_row {
	uint32_t index;
	uint64_t writable;
};

static const struct amd_cfg_row rows[AMD_CFG_MSR_COUNT] = {
	{ MSR_AMD_SYSCFG, 0x1full << 18 },
	{ MSR_AMD_HWCR, 1ull << 3 | 1ull << 8 | 1ull << 13 | 1ull << 14 | 1ull << 21 | 1ull << 25 |
			1ull << 26 | 1ull << 27 | 1ull << 30 },
	{ MSR_AMD_TOP_MEM, TOP_MEM_MASK },
	{ MSR_AMD_TOP_MEM2, TOP_MEM_MASK },
	{ MSR_AMD_NB_CFG, 0 },
	{ MSR_AMD_LS_CFG, ~0ull }, { MSR_AMD_IC_CFG, ~0ull }, { MSR_AMD_DC_CFG, ~0ull },
	{ MSR_AMD_TW_CFG, ~0ull }, { MSR_AMD_FP_CFG, ~0ull }, { MSR_AMD_DE_CFG, ~0ull },
	{ MSR_AMD_BU_CFG2, ~0ull },
};

static int row_of(uint32_t index)
{
	for (int i = 0; i < AMD_CFG_MSR_COUNT; i++)
		if (rows[i].index == index)
			return i;
	return -1;
}

/* CPUID.1:EAX's family: base family, plus the extended family when the base
 * is FH (APM3 E.3.2). */
static unsigned family(const struct cpu *cpu)
{
	unsigned base = (cpu->model->signature >> 8) & 0xf;
	return base + (base == 0xf ? (cpu->model->signature >> 20) & 0xff : 0);
}

bool amd_cfg_exists(const struct cpu *cpu)
{
	return cpu_is_amd(cpu) && family(cpu) >= 0x10 && row_of((uint32_t)cpu->regs[R_CX]) >= 0;
}

static uint64_t reset_value(const struct cpu *cpu, uint32_t index)
{
	switch (index) {
	case MSR_AMD_HWCR:
		return HWCR_INVDWBINVD | HWCR_TSC_FREQ_SEL;
	case MSR_AMD_TOP_MEM: {         /* RAM below 4 GiB, in whole 8 MiB units */
		uint64_t ram = cpu->mem->ram_size < (1ull << 32) ? cpu->mem->ram_size : 1ull << 32;
		return ram & TOP_MEM_MASK;
	}
	default:
		return 0;
	}
}

uint64_t amd_cfg_read(struct cpu *cpu)
{
	uint32_t index = (uint32_t)cpu->regs[R_CX];
	return reset_value(cpu, index) ^ cpu->amd_cfg[row_of(index)];
}

bool amd_cfg_write(struct cpu *cpu, uint64_t v)
{
	uint32_t index = (uint32_t)cpu->regs[R_CX];
	int i = row_of(index);
	uint64_t now = amd_cfg_read(cpu), keep = ~rows[i].writable;
	uint64_t next = (now & keep) | (v & rows[i].writable);
	cpu->amd_cfg[i] = next ^ reset_value(cpu, index);
	return true;
}
