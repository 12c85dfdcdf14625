/* The L2 instruction templates both exit fuzzers assemble alike
 * (fuzz/l2_templates.c): the same x86 instruction from the same input
 * bytes, whatever exit it makes under SVM or VMX. The vendor's assembler
 * (svm_exit_assemble.c, vmx_exit_assemble.c) maps its template numbers onto
 * these, adds its own instructions, and sets the permission-map or bitmap
 * bits a template looks at: the IOPM/MSRPM of APM2 15.10-15.11 and the I/O
 * and MSR bitmaps of SDM Vol.3 24.6.4/24.6.9 are laid out differently.
 */
#ifndef HVEMU_FUZZ_L2_TEMPLATES_H
#define HVEMU_FUZZ_L2_TEMPLATES_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz/l2_assembler.h"
#include "fuzz/oracle_common.h"

/* Key instructions without operands: their bytes are all there is. */
enum l2_plain {
	L2_NONE,                           /* not a plain instruction */
	L2_NOP, L2_CPUID, L2_RDTSC, L2_RDTSCP, L2_RDPMC, L2_HLT, L2_PAUSE, L2_INVD, L2_WBINVD,
	L2_RDMSR, L2_WRMSR, L2_INT3, L2_UD2, L2_DIV_ECX, L2_ICEBP, L2_PUSHF, L2_RETF16,
	L2_XSETBV, L2_MONITOR, L2_MWAIT, L2_CLTS, L2_RSM,
	/* the virtualization instructions of either vendor */
	L2_VMMCALL, L2_INVLPGA, L2_VMLOAD, L2_VMSAVE, L2_STGI, L2_CLGI,
	L2_VMCALL, L2_VMLAUNCH, L2_VMRESUME, L2_VMXOFF,
	L2_PLAIN_COUNT,
};

/* Emit a plain key instruction. */
void l2_emit_plain(struct assembler *as, enum l2_plain insn);

/* An address for a data access, from input bytes: present, a hole, page 0,
 * a page crossing into the hole, a 32-bit wrap onto the hole through a base
 * of 4000_0000h, non-canonical, beyond the mapping, the stack. */
uint64_t l2_pick_address(bool m64, uint8_t a, uint8_t off);

/* A port access: IN or OUT (imm8 or DX), INS or OUTS. */
struct l2_port_access {
	bool string, out;
};

/* Choose a port access from input bytes a, b, c into in (the port among
 * ports[] or any: imm; the size; DX or imm8, REP, 67h: flags; rDI/rSI:
 * value; OUTS's segment override: seg) and emit its set-up MOVs: DX, rDI
 * or rSI, rCX = 1. */
void l2_io_setup(struct assembler *as, struct l2_insn *in, struct l2_port_access k, const uint16_t ports[8],
		 uint8_t a, uint8_t b, uint8_t c);

/* Emit the port access in describes. */
void l2_emit_io(struct assembler *as, const struct l2_insn *in, struct l2_port_access k);

/* A moffs load or store (mov eax, [moffs] / mov [moffs], eax) or INVLPG
 * [disp32]: the address (in->value) from a, b (l2_pick_address), the
 * segment override (in->seg) from c: none, SS, ES. */
void l2_moffs_operand(struct l2_insn *in, bool m64, bool invlpg, uint8_t a, uint8_t b, uint8_t c);
void l2_emit_moffs(struct assembler *as, bool store, const struct l2_insn *in);
void l2_emit_invlpg(struct assembler *as, const struct l2_insn *in);

/* MOV to or from CRn or DRn with a general register (0F 20-23). */
void l2_emit_mov_crdr(struct assembler *as, bool cr, bool write, unsigned n, unsigned gpr);

/* XSETBV's operands: ECX = 0, EDX:EAX = an XCR0 value from a (x87 alone,
 * x87 + SSE, 0, SSE alone); the value. */
uint32_t l2_xsetbv_setup(struct assembler *as, uint8_t a);

#endif
