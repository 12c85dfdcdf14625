/* Guest code as an observer reads it: the bytes --trace insn prints, the ones
 * an SVM exit carries (decode assists) and the end-of-run reports show. One
 * reader for all of them, translated as the next fetch would be (both stages
 * under nested paging) but without the fetch's side effects.
 */
#ifndef HVEMU_EMU_PEEK_H
#define HVEMU_EMU_PEEK_H

#include <stddef.h>
#include <stdint.h>

#include "emu/cpu.h"
#include "mmu/paging.h"

/* The physical address of linear lin by the current translation, as an
 * access of kind with walk flags (WALK_USER...) would make it: both stages
 * under nested paging (APM2 15.25; SDM Vol.3 28.2), else the A20 gate masks
 * the result. WALK_PEEK: no accessed/dirty flag at either stage (SDM Vol.3
 * 4.8, 28.2.4), no TLB entry, nothing raised; false where the access would
 * fault. */
bool cpu_peek_phys(struct cpu *cpu, uint64_t lin, enum walk_kind kind, unsigned flags, uint64_t *pa);

/* Copy up to len code bytes at CS:ip into buf, as the instruction fetch would
 * read them now (CS limit, linear wrap, CPL-3 user access, stage 1 then stage
 * 2), and return how many: fewer where the fetch would fault, or at device
 * MMIO. Sets no accessed/dirty flag, raises nothing, fills no TLB entry. */
size_t cpu_peek_code(struct cpu *cpu, uint64_t ip, uint8_t *buf, size_t len);

#endif
