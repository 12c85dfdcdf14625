/* The NOVA/Escape EXITINFO2 repro (hvemu issue #11): what the L1 hypervisors
 * (l1.c, world_switch.S) and their L2 guest (l2.c, l2_ops.S) share.
 *
 * L2 is a 32-bit protected-mode kernel with 2-level paging whose segments all
 * have base 0x40000000, as the Escape OS had: offset 0xC0000000 + x is linear
 * x once the sum wraps at 4 GiB (APM2 4.1: outside 64-bit mode linear
 * addresses are 32 bits). L2's own page tables map
 *
 *   0x00000000-0x0001cfff  the wrap targets: one frame each (wrap_frames)
 *   0x40000000-0x40ffffff  physical 0-16 MiB, so the image (linked at 1 MiB)
 *                          runs at its link addresses through the 0x40000000 base
 *   0xfffff000-0xffffffff  one frame (top_frame): the tables placed just below
 *                          4 GiB, whose entries cross into the wrap targets
 *
 * Each path is one row of nova_cases[]: an L2 operation whose first access to
 * the row's target page is the access under test. The L1 keeps every other
 * page in its shadow table, so the operation makes exactly one vTLB miss.
 */
#ifndef NOVA_ESCAPE_H
#define NOVA_ESCAPE_H

#define L2_SEG_BASE   0x40000000   /* base of every L2 segment */
#define WRAP(lin)     ((lin) + 0xc0000000)  /* the L2 offset that reaches linear lin */
#define TOP_PAGE      0xfffff000   /* linear page of top_frame */
#define WRAP_PAGES    29           /* linear 0x0000-0x1cfff */

/* L2's GDT (l2_gdt); selectors with RPL 0 unless named 3. */
#define L2_CS         0x08         /* 32-bit code, base 0x40000000, 4 GiB */
#define L2_DS         0x10         /* 32-bit data, base 0x40000000, 4 GiB */
#define L2_CS3        0x1b         /* the same at DPL 3 */
#define L2_DS3        0x23
#define L2_TSS        0x28         /* L2's TSS (l2_tss) */
#define L2_TSS_WRAP   0x30         /* a TSS based at 0xfffffff8 (path tss-ss0) */
#define L2_TSS_TASK   0x38         /* a TSS based at 0xffffff9c (path task-switch) */
#define L2_LDT        0x40         /* an LDT based at 0xfffff000 (path ldt-load) */
#define L2_SS16       0x48         /* 16-bit data (B = 0), base 0xfffff000, limit FFFFH */
#define L2_CS_LOW     0x50         /* 32-bit code based at l2_low_start: 16-bit IPs */
#define L2_GDT_ENTRIES 11

/* Selectors whose descriptors sit past 4 GiB: GDTR.base 0xfffff000 + 0x5018
 * is linear 0x4018; LDT base 0xfffff000 + 0x6020 is linear 0x5020 (TI = 1). */
#define SEL_GDT_WRAP  0x5018
#define SEL_LDT_WRAP  0x6024
#define IDT_WRAP_BASE 0xffffff00   /* + vector 30H * 8 = linear 0x80 */
#define TSS_WRAP_BASE 0xfffffff8   /* SS0 (offset 8) is linear 0 */
#define TSS_TASK_BASE 0xffffff9c   /* the T word (offset 64H) is linear 0 */

/* L2's interrupt vectors. */
#define VEC_WRAPPED_IDT 0x30       /* through the IDT at IDT_WRAP_BASE */
#define VEC_IRET32    0x31         /* 32-bit interrupt gate, DPL 0: IRET */
#define VEC_IRET16    0x32         /* 16-bit interrupt gate, DPL 0: IRETW */
#define VEC_RING3     0x33         /* 32-bit interrupt gate, DPL 3: IRET */
#define VEC_KERNEL    0x7f         /* DPL 3: back from ring 3 to l2_ring3_int's caller */

/* The paths on the 16-bit stack L2_SS16: base 0xfffff000 + SP is linear
 * SP - 0x1000. Only the (E)IP of each frame lands on the target page. */
#define SP_INT16      0x9004       /* 16-bit gate: IP at linear 0x7ffe, CS, FLAGS at 0x8000 */
#define SP_IRET16     0xaffe       /* IRETW: IP at linear 0x9ffe, CS, FLAGS at 0xa000 */
#define SP_INT32      0xd008       /* 32-bit gate: EIP at 0xbffc, CS, EFLAGS at 0xc000 */

/* L2 -> L1 hypercalls (VMMCALL, EAX = number, EBX = argument). */
#define HC_BEGIN      1            /* case EBX starts: set it up, leave its page unmapped */
#define HC_END        2            /* case EBX is over: report it */
#define HC_DONE       3            /* every case ran */

#ifndef __ASSEMBLER__
#include <stdint.h>

/* One path: the L2 operation, what the L1 prepares for it, and what APM2
 * 15.12 says the #PF intercept reports. */
struct nova_case {
	const char *name;
	const char *what;          /* the access, in a few words */
	void (*l2_op)(void);       /* L2: makes the vTLB miss */
	void (*setup)(void);       /* L1: memory and VMCB for the case, or 0 */
	void (*undo)(void);        /* L1: puts back what setup changed, or 0 */
	uint32_t target;           /* the linear page the shadow leaves unmapped */
	uint32_t exitinfo2;        /* the faulting linear address (32 bits) */
	uint32_t error;            /* the #PF error code (EXITINFO1) */
};
extern const struct nova_case nova_cases[];
extern const unsigned nova_case_count;

/* L2's memory, built by the L1 (l1.c) and used by L2. */
extern uint8_t wrap_frames[WRAP_PAGES][4096];
extern uint8_t top_frame[4096];
extern uint64_t l2_gdt[L2_GDT_ENTRIES];
extern uint64_t l2_idt[256];
extern uint32_t l2_tss[26];             /* 104-byte 32-bit TSS */
extern uint8_t l2_kstack[4096], l2_task_stack[4096];
extern uint32_t l2_shadow_cr3;          /* what a task switch must load into CR3 */
struct __attribute__((packed)) l2_dtr { uint16_t limit; uint32_t base; };
extern struct l2_dtr l2_gdtr, l2_idtr, l2_gdtr_wrapped, l2_idtr_wrapped;

/* L2 code (l2.c, l2_ops.S). */
void l2_main(void) __attribute__((noreturn));
void l2_ds_read(void), l2_ds_write(void), l2_push32(void), l2_fetch(void);
void l2_gdt_load(void), l2_ldt_load(void), l2_idt_int(void), l2_ring3_int(void);
void l2_task_switch(void), l2_int16_push(void), l2_iret16_pop(void);
void l2_int16_push_ss32(void), l2_lcall16_push(void), l2_lret16_pop(void);
void l2_int32_push(void), l2_int32_push_ss16(void), l2_iret32_pop(void);
void l2_h_iret32(void), l2_h_back_to_kernel(void), l2_task_entry(void);
extern char l2_low_start[], l2_h_iret16[], l2_iret16_resume[], l2_lret16_resume[];
extern char l2_iret32_resume[];

/* Where L2's linear address lin (a wrap target, or in the top page) is in
 * the L1's memory. */
static inline void *wrap_at(uint32_t lin) { return &wrap_frames[lin >> 12][lin & 0xfff]; }
static inline void *top_at(uint32_t lin) { return &top_frame[lin & 0xfff]; }

/* L1 services for the cases' set-up (l1.c). */
#define VMCB_LDTR     0x470        /* VMCB save-area segments (APM2 Table B-2) */
#define VMCB_TR       0x490
void l1_set_seg(unsigned vmcb_off, uint16_t sel, uint16_t attrib, uint32_t limit, uint32_t base);
void l1_default_segs(void);        /* TR = L2_TSS, LDTR = null */
#endif

#endif
