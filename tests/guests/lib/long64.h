/* Assembler macros for the 64-bit routines of the IA-32e guests (see long.h).
 * A routine is far-called from compatibility mode by CALL64 and returns with
 * LRETL. */
#ifndef GUEST_LONG64_H
#define GUEST_LONG64_H

/* Globals are reached RIP-relative: a 32-bit ELF cannot hold the
 * sign-extended absolute relocation a 64-bit absolute disp32 needs. */

/* Entry of a 64-bit routine. RSP bits 63:32 are undefined after code that ran
 * in compatibility mode (SDM Vol.1 3.4.1.1): zero them before RSP is used. */
.macro ENTRY64 name
	.globl \name
\name:
	movl %esp, %esp
.endm

/* The same, and a fault in the routine resumes at its local label 1. */
.macro TRY64 name
	ENTRY64 \name
	movl $1f, lm_recover(%rip)
.endm

#endif
