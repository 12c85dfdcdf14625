/* The seeded generator behind `--perturb-exits` (svm/exit_perturb.c,
 * vmx/exit_perturb.c): a run is reproduced by its seed, so the values are a
 * function of it alone. Not for anything but perturbation. */
#ifndef HVEMU_EMU_PERTURB_RANDOM_H
#define HVEMU_EMU_PERTURB_RANDOM_H

#include <stdint.h>

/* The generator's state for a seed: a splitmix64 step, so that any seed (0
 * included) gives a well-mixed, non-zero state. */
static inline uint64_t perturb_random_state(uint64_t seed)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 1;
}

/* The next value (xorshift64*: the state never becomes 0). */
static inline uint64_t perturb_random_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* One seed, independent streams: the exit fields' values and the spurious
 * interrupts' timing, so that drawing one does not move the other (a seed
 * that found a bug in one keeps finding it). */
enum perturb_stream { PERTURB_STREAM_FIELDS, PERTURB_STREAM_SPURIOUS_INTR };

static inline uint64_t perturb_random_stream(uint64_t seed, enum perturb_stream stream)
{
	return perturb_random_state(seed ^ ((uint64_t)stream << 56));
}

/* Exit timing (emu/event_step.h cpu_spurious_intr_after): after how many
 * guest instructions a VM entry's spurious interrupt comes. Every entry gets
 * one: one in PERTURB_SPURIOUS_ONE_IN at the entry's own boundary (where it
 * meets what VM entry delivers: an injected event, a pending debug trap; and
 * the only place an L2 that exits within a few instructions, as most do, sees
 * it), as many within PERTURB_SPURIOUS_NEAR, the others within
 * PERTURB_SPURIOUS_FAR, so that a guest that runs long sees one every
 * PERTURB_SPURIOUS_FAR / 2 instructions on average. An exit for another
 * cause withdraws it first. */
#define PERTURB_SPURIOUS_ONE_IN 8u
#define PERTURB_SPURIOUS_NEAR 64u
#define PERTURB_SPURIOUS_FAR 65536u
static inline uint64_t perturb_spurious_intr_delay(uint64_t *state)
{
	uint64_t r = perturb_random_next(state);
	uint64_t pick = r % PERTURB_SPURIOUS_ONE_IN, rest = r / PERTURB_SPURIOUS_ONE_IN;
	return pick == 0 ? 0 : pick == 1 ? rest % PERTURB_SPURIOUS_NEAR : rest % PERTURB_SPURIOUS_FAR;
}

#endif
