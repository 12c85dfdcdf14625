/* An exception raised by a translation or descriptor check, handed up to the CPU
 * core, which decides whether it is delivered or becomes a VM exit. */
#ifndef HVEMU_MMU_FAULT_H
#define HVEMU_MMU_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#define CHECKED __attribute__((warn_unused_result))

struct fault {
	uint8_t vector;            /* EXC_* */
	bool has_error;            /* pushes an error code (SDM Vol.3 6.13) */
	uint32_t error_code;
	uint64_t address;          /* #PF: the faulting linear address (becomes CR2) */
};

static inline struct fault fault_make(uint8_t vector, uint32_t error_code)
{
	return (struct fault){ .vector = vector, .has_error = true, .error_code = error_code };
}

static inline struct fault fault_noerr(uint8_t vector)
{
	return (struct fault){ .vector = vector };
}

#endif
