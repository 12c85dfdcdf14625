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

/* Copy up to len code bytes at CS:ip into buf, as the instruction fetch would
 * read them now (CS limit, linear wrap, CPL-3 user access, stage 1 then stage
 * 2), and return how many: fewer where the fetch would fault, or at device
 * MMIO. Sets no accessed/dirty flag, raises nothing, fills no TLB entry. */
size_t cpu_peek_code(struct cpu *cpu, uint64_t ip, uint8_t *buf, size_t len);

#endif
