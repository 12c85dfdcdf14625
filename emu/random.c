/* RDRAND and RDSEED (0F C7 /6 and /7, register form; SDM Vol.2 RDRAND,
 * RDSEED), deterministic: the values come from a generator seeded with the
 * run's seed (cpu_seed_random(), `hvemu run --seed N`), so a run repeats
 * exactly, and a different seed gives different values.
 *
 * The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", 2014): a Weyl sequence through a 64-bit
 * finalizer. Every request succeeds: hvemu has no entropy source to drain. */
#include "emu/flags.h"
#include "emu/hv.h"
#include "emu/operand.h"
#include "isa_handlers.h"

void cpu_seed_random(struct cpu *cpu, uint64_t seed)
{
	cpu->rng_state = seed;
}

static uint64_t next_random(struct cpu *cpu)
{
	uint64_t z = (cpu->rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* SDM Vol.2 RDRAND/RDSEED: a random value of the operand size in the register
 * and CF = 1 ("The CF flag is set according to the result"); "The OF, SF, ZF,
 * AF, and PF flags are set to 0." RDSEED draws from the same generator. */
status_t op_rdrand(struct cpu *cpu, const struct insn *in)
{
	/* No checks of their own before the intercept (SDM Vol.3 25.1.3). */
	status_t st = intercept_insn(cpu, in);
	if (st != ST_OK)
		return st;
	reg_write(cpu, in->rm, in->size, in->rex != 0, next_random(cpu));
	flags_update(cpu, FLAGS_ARITH, FLAG_CF);
	return ST_OK;
}
