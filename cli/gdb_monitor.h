/* gdb's `monitor` commands (qRcmd; GDB manual "General Query Packets"):
 * what gdb's own commands cannot show of a machine under hvemu: the CPU's
 * mode, control registers and world, physical memory, a VMCB decoded by
 * the APM's field names, the virtual time, stops added while connected. */
#ifndef HVEMU_CLI_GDB_MONITOR_H
#define HVEMU_CLI_GDB_MONITOR_H

#include <stddef.h>

#include "cli/debug_stops.h"

/* Run one monitor command for CPU cpu_index; its output (text, lines
 * ending in a newline) into out. An unknown command prints the list. */
void gdb_monitor(struct debugger *d, unsigned cpu_index, const char *cmd, char *out, size_t len);

/* "real", "protected", "virtual-8086", "compatibility", "64-bit". */
const char *gdb_mode_name(const struct cpu *cpu);

#endif
