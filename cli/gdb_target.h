/* What gdb sees of a CPU: the register file as a target description
 * (GDB manual, appendix "Target Descriptions", section "Standard Target
 * Features": i386 Features) and guest memory through the CPU's current
 * translation, read without side effects.
 *
 * The register layout is fixed for a connection, because gdb reads the
 * description once: x86-64 (`i386:x86-64`) when the CPU model has long mode
 * (CPUID 80000001H:EDX.LM), whatever mode the CPU is in then; 32-bit values
 * are zero-extended, as gdb accepts from other x86 stubs (switch gdb's
 * disassembler with `set architecture i386` for 32-bit code). Models
 * without long mode get the i386 layout (no org.gnu.gdb.i386.segments:
 * gdb's i386 register count has no room for it). Beyond gdb's standard features, a
 * feature "org.hvemu.x86.system" carries CR0, CR2, CR3, CR4, CR8 and EFER,
 * read-only. */
#ifndef HVEMU_CLI_GDB_TARGET_H
#define HVEMU_CLI_GDB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"

struct machine;

/* The layout of a connection. */
struct gdb_layout {
	bool x86_64;
	unsigned n_regs;           /* registers in the description, numbered from 0 */
	const struct gdb_reg *regs;
};

void gdb_layout_for(struct gdb_layout *l, const struct cpu *cpu);

/* The target description document "target.xml" (qXfer:features:read) into
 * out (GDB_XML_MAX bytes suffice); returns its length. */
#define GDB_XML_MAX 16384
size_t gdb_layout_xml(const struct gdb_layout *l, char *out, size_t cap);

/* Register n's bytes in target (little-endian) order into buf (at least 16
 * bytes); returns its size in bytes, 0 if there is no register n. */
size_t gdb_reg_read(const struct gdb_layout *l, struct cpu *cpu, unsigned n, uint8_t *buf);

/* Write register n from len bytes; false if n does not exist, has another
 * size, or is not writable here (only the general registers, rIP and
 * EFLAGS are). */
bool gdb_reg_write(const struct gdb_layout *l, struct cpu *cpu, unsigned n, const uint8_t *buf, size_t len);

/* Whether register n is one gdb_reg_write() accepts. */
bool gdb_reg_writable(const struct gdb_layout *l, unsigned n);

/* Read len bytes of linear address lin (gdb's addresses are linear: CS:rIP's
 * linear address is what a breakpoint names) through the CPU's current
 * translation: paging (a supervisor read, so the debugger sees kernel and
 * user pages alike), both stages under nested paging, without setting an
 * accessed or dirty flag. Returns the bytes read: fewer at an unmapped page
 * or device MMIO (whose reads have side effects). */
size_t gdb_mem_read(struct machine *m, struct cpu *cpu, uint64_t lin, uint8_t *buf, size_t len);

/* Write to RAM at a linear address, as gdb_mem_read() translates it; the
 * decoded code of every CPU is dropped where the bytes change (SDM Vol.3
 * 11.6 as the emulator keeps it, emu/icache.h). Returns the bytes written. */
size_t gdb_mem_write(struct machine *m, struct cpu *cpu, uint64_t lin, const uint8_t *buf, size_t len);

/* Physical reads for `monitor xp`: RAM and ROM only. */
size_t gdb_phys_read(struct machine *m, uint64_t pa, uint8_t *buf, size_t len);

#endif
