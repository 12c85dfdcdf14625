/* Virtual-8086 runs for the v86_* guests: 8086 code copied to V86_CS:0000
 * with its stack at V86_SS:V86_SP, entered by IRET with EFLAGS.VM = 1; the run
 * ends at the first exception (the code ends with HLT: #GP(0)). */
#ifndef GUEST_V86_H
#define GUEST_V86_H

#include "guest.h"

#define V86_CS 0x0600u
#define V86_SS 0x0700u
#define V86_SP 0x0ff0u
#define EFL_VM (1u << 17)

/* Copy n bytes of code to V86_CS:0000 and run them with EFLAGS = eflags | VM;
 * returns the vector the run ended with (trap_catch, record in trap_last). */
int v86_run(const uint8_t *code, uint32_t n, uint32_t eflags);

/* A #GP handler that records the faulting code's EAX in v86_gp_eax and lets
 * the default handling end the run. */
extern volatile uint32_t v86_gp_eax;
int v86_gp_record(struct trap_frame *f);

#endif
