/* gdb's `monitor info` commands for what a hypervisor developer looks at:
 *   info apic          the CPU's local APIC: mode, ID, TPR/PPR, IRR/ISR/TMR
 *                      vectors, the LVT decoded, the timer (SDM Vol.3 10.4-10.5)
 *   info walk LINADDR  the current translation of a linear address, entry by
 *                      entry, both stages under nested paging
 *   info vmcs          the current VMCS's fields by the SDM's names (VMX CPUs)
 * All read without side effects (no A/D flags, no TLB fill, no APIC access). */
#ifndef HVEMU_CLI_GDB_INFO_H
#define HVEMU_CLI_GDB_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "machine/machine.h"

/* Run `info WHAT` for CPU cpu_index, its text into out (lines ending in a
 * newline, cut at len); false when WHAT is none of the above. */
bool gdb_info(struct machine *m, unsigned cpu_index, const char *what, char *out, size_t len);

#endif
