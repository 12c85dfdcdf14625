/* Privilege transitions through gates: interrupt/trap gates from CPL3 with a
 * TSS stack switch, gate DPL and present checks for INT n, INTO/INT3/BOUND,
 * call gates with parameter copy, far RET and IRET to CPL3.
 * SDM Vol.3 6.12.1 (exception/interrupt procedures, Figure 6-4 stack frame),
 * 6.12.1.1 (gate DPL for INT n/INT3/INTO), 6.13 (error code: EXT, IDT bit 1),
 * 5.8.3-5.8.6 (call gates, stack switching, parameter copy, returning),
 * Vol.2 IRET/RET pseudocode (nulling data segments with DPL < CPL). */
#include "lib/guest.h"

#define IF_ 0x200
#define OF_ 0x800

uint32_t u_esp, u_eip;
static uint32_t handler_eflags;

static int record_eflags(struct trap_frame *f)
{
	(void)f;
	handler_eflags = read_eflags();
	return 0;   /* continue with the default: unwind to the catcher */
}

static void u_int40(void *p) { (void)p; __asm__ volatile("movl $2f, u_eip\n\tmov %%esp, u_esp\n\tint $0x40\n2:" ::: "memory"); }
static void u_int41(void *p) { (void)p; __asm__ volatile("int $0x41"); }
static void u_int42(void *p) { (void)p; __asm__ volatile(MARK "int $0x42"); }
static void u_int43(void *p) { (void)p; __asm__ volatile(MARK "int $0x43"); }
static void u_int3(void *p) { (void)p; __asm__ volatile("movl $2f, u_eip\n\tint3\n2:" ::: "memory"); }
static void u_int5(void *p) { (void)p; __asm__ volatile(MARK "int $5"); }
static void u_into_of(void *p) { (void)p; __asm__ volatile("movl $2f, u_eip\n\tmov $0x7f, %%al\n\taddb $1, %%al\n\tinto\n2:" ::: "eax", "memory", "cc"); }
static void u_into_noof(void *p) { (void)p; __asm__ volatile("xor %%eax, %%eax\n\tinto" ::: "eax", "cc"); }
static int32_t bounds[2] = { 10, 20 };
static void u_bound(void *p) { __asm__ volatile(MARK "bound %0, %1" :: "r"(p), "m"(bounds)); }

static void test_int_gates(void)
{
	uint32_t esp0 = tss.esp0;
	for (int v = 0x40; v <= 0x43; v++)
		set_idt_gate(v, trap_stub_addr(v), v == 0x41 ? SYS_TRAPGATE : SYS_INTGATE, v == 0x42 ? 0 : 3);
	idt[0x43] &= ~(1ull << 47);    /* P=0 */
	trap_handlers[0x40] = record_eflags;
	trap_handlers[0x41] = record_eflags;

	/* Interrupt gate from CPL3: SS, ESP, EFLAGS, CS, EIP on the ring-0 stack
	 * from TSS.SS0:ESP0 (SDM 6.12.1 Figure 6-4). */
	run_user_catch("CPL3 INT 0x40 through DPL3 interrupt gate", u_int40, 0, IF_, 0x40, -1);
	check("  frame: pushed SS = user SS", trap_last.ss, SEL_UDATA);
	check("  frame: pushed ESP = user ESP", trap_last.esp, u_esp);
	check("  frame: pushed CS = user CS", trap_last.cs, SEL_UCODE);
	check("  frame: pushed EIP = next instruction", trap_last.eip, u_eip);
	check("  frame: pushed EFLAGS.IF = 1", trap_last.eflags & IF_, IF_);
	check("  frame: on TSS.ESP0 stack", trap_last.frame_addr, esp0 - 20);
	check("  interrupt gate clears IF (SDM 6.12.1.3)", handler_eflags & IF_, 0);
	run_user_catch("CPL3 INT 0x41 through DPL3 trap gate", u_int41, 0, IF_, 0x41, -1);
	check("  trap gate leaves IF set", handler_eflags & IF_, IF_);
	/* SDM 6.12.1.1: INT n with CPL > gate DPL -> #GP(vector*8 + 2). */
	run_user_catch("CPL3 INT 0x42 through DPL0 gate -> #GP(0x212)", u_int42, 0, 0, 13, 0x42 * 8 + 2);
	check("  #GP frame: EIP = the INT instruction", trap_last.eip, trap_mark_ip);
	check("  #GP frame still on TSS.ESP0 stack", trap_last.frame_addr, esp0 - 20);
	/* SDM 6.15 Interrupt 11: not-present gate -> #NP(vector*8 + 2). */
	run_user_catch("CPL3 INT 0x43 not-present gate -> #NP(0x21a)", u_int43, 0, 0, 11, 0x43 * 8 + 2);
	/* INT3/INTO are checked against gate DPL too; BOUND (a fault) is not. */
	run_user_catch("CPL3 INT3 through DPL0 gate -> #GP(0x1a)", u_int3, 0, 0, 13, 3 * 8 + 2);
	set_idt_gate(3, trap_stub_addr(3), SYS_INTGATE, 3);
	run_user_catch("CPL3 INT3 through DPL3 gate -> #BP", u_int3, 0, 0, 3, -1);
	check("  #BP is a trap: EIP after INT3", trap_last.eip, u_eip);
	run_user_catch("CPL3 INTO (OF=1) through DPL0 gate -> #GP(0x22)", u_into_of, 0, 0, 13, 4 * 8 + 2);
	set_idt_gate(4, trap_stub_addr(4), SYS_INTGATE, 3);
	run_user_catch("CPL3 INTO (OF=1) -> #OF", u_into_of, 0, 0, 4, -1);
	check("  #OF is a trap: EIP after INTO", trap_last.eip, u_eip);
	run_user_catch("CPL3 INTO (OF=0) no interrupt", u_into_noof, 0, 0, NO_FAULT, -1);
	run_user_catch("CPL3 BOUND out of range -> #BR despite DPL0 gate", u_bound, (void *)21, 0, 5, -1);
	check("  #BR is a fault: EIP = BOUND", trap_last.eip, trap_mark_ip);
	run_user_catch("CPL3 BOUND lower bound -> #BR", u_bound, (void *)9, 0, 5, -1);
	run_user_catch("CPL3 BOUND in range", u_bound, (void *)20, 0, NO_FAULT, -1);
	run_user_catch("CPL3 INT 5 through DPL0 gate -> #GP(0x2a)", u_int5, 0, 0, 13, 5 * 8 + 2);
}

/* Call gate target (CPL0): records the frame built by the gate and returns
 * with RET 8 to CPL3, leaving ES = DPL0 data and FS = DPL3 data. */
uint32_t gate_frame[6], gate_cs_now;
void gate_target(void);
__asm__(".text\ngate_target:\n\t"
	"mov 0(%esp), %eax\n\tmov %eax, gate_frame\n\t"
	"mov 4(%esp), %eax\n\tmov %eax, gate_frame+4\n\t"
	"mov 8(%esp), %eax\n\tmov %eax, gate_frame+8\n\t"
	"mov 12(%esp), %eax\n\tmov %eax, gate_frame+12\n\t"
	"mov 16(%esp), %eax\n\tmov %eax, gate_frame+16\n\t"
	"mov 20(%esp), %eax\n\tmov %eax, gate_frame+20\n\t"
	"mov %cs, %eax\n\tmov %eax, gate_cs_now\n\t"
	"mov $0x10, %ax\n\tmov %ax, %es\n\t"
	"mov $0x23, %ax\n\tmov %ax, %fs\n\t"
	"lret $8\n");

uint32_t u_after_esp, u_after_es, u_after_fs, u_after_cs;
static void u_callgate(void *p)
{
	(void)p;
	__asm__ volatile("mov %%esp, u_esp\n\t"
			 "pushl $0x1111\n\tpushl $0x2222\n\t"
			 "movl $2f, u_eip\n\t"
			 "lcall $0x4b, $0\n2:\t"
			 "mov %%esp, u_after_esp\n\t"
			 "mov %%es, %%eax\n\tmov %%eax, u_after_es\n\t"
			 "mov %%fs, %%eax\n\tmov %%eax, u_after_fs\n\t"
			 "mov %%cs, %%eax\n\tmov %%eax, u_after_cs\n\t"
			 "mov $0x23, %%ax\n\tmov %%ax, %%es" ::: "eax", "memory");
}

static void test_call_gate(void)
{
	/* SDM 5.8.3 Figure 5-8: call gate with a 2-dword parameter count. */
	gdt[9] = gate_desc(SEL_KCODE, (uint32_t)(uintptr_t)gate_target, SYS_CALLGATE, 3, 2);
	run_user_catch("CPL3 far call through DPL3 call gate and RET 8 back", u_callgate, 0, 0, NO_FAULT, -1);
	/* SDM 5.8.5 Figure 5-13: new stack = SS, ESP, params (copied in order), CS, EIP. */
	check("  gate runs at CPL0", gate_cs_now & 0xffff, SEL_KCODE);
	check("  pushed EIP = return address", gate_frame[0], u_eip);
	check("  pushed CS = user CS", gate_frame[1] & 0xffff, SEL_UCODE);
	check("  param 0 (last pushed) copied", gate_frame[2], 0x2222);
	check("  param 1 copied", gate_frame[3], 0x1111);
	check("  pushed ESP = user ESP after params", gate_frame[4], u_esp - 8);
	check("  pushed SS = user SS", gate_frame[5] & 0xffff, SEL_UDATA);
	/* SDM RET (far, to outer level): ESP += imm16 on the outer stack too;
	 * ES/FS/GS/DS with DPL < new CPL (data or non-conforming code) are nulled. */
	check("  RET 8 releases the params on the user stack", u_after_esp, u_esp);
	check("  back at CPL3", u_after_cs & 0xffff, SEL_UCODE);
	check("  ES (DPL0 data) nulled by RET to CPL3", u_after_es & 0xffff, 0);
	check("  FS (DPL3 data) kept", u_after_fs & 0xffff, SEL_UDATA);
	/* Gate DPL check: CPL3 through a DPL0 call gate -> #GP(gate selector). */
	gdt[9] = gate_desc(SEL_KCODE, (uint32_t)(uintptr_t)gate_target, SYS_CALLGATE, 0, 2);
	run_user_catch("CPL3 far call through DPL0 call gate -> #GP(0x48)", u_callgate, 0, 0, 13, 0x48);
	gdt[9] = gate_desc(SEL_KCODE, (uint32_t)(uintptr_t)gate_target, SYS_CALLGATE, 3, 2) & ~(1ull << 47);
	run_user_catch("CPL3 far call through not-present call gate -> #NP(0x48)", u_callgate, 0, 0, 11, 0x48);
}

/* IRET to CPL3 with DS=GS=DPL0 data and FS=DPL3 data: probe entry point. */
uint32_t iret_seen[5];
void iret_probe(void);
__asm__(".text\niret_probe:\n\t"
	"mov %ds, %eax\n\tmov %gs, %ebx\n\tmov %fs, %ecx\n\tmov %cs, %edx\n\tmov %ss, %esi\n\t"
	"mov $0x23, %di\n\tmov %di, %ds\n\tmov %di, %es\n\t"
	"mov %eax, iret_seen\n\tmov %ebx, iret_seen+4\n\tmov %ecx, iret_seen+8\n\t"
	"mov %edx, iret_seen+12\n\tmov %esi, iret_seen+16\n\t"
	"int $0x7f\n");
static uint8_t iret_stack[1024];
static void do_iret(void *p)
{
	(void)p;
	__asm__ volatile("mov $0x23, %%ax\n\tmov %%ax, %%fs\n\tmov $0x10, %%ax\n\tmov %%ax, %%gs\n\tmov %%ax, %%ds\n\t"
			 "pushl $0x23\n\tpushl %0\n\tpushl $0x2\n\tpushl $0x1b\n\tpushl $iret_probe\n\tiret"
			 :: "r"(iret_stack + sizeof(iret_stack)) : "eax", "memory");
}

static void test_iret(void)
{
	trap_reset();
	int v = trap_catch(do_iret, 0);
	check("IRET to CPL3 reaches the probe", (uint32_t)v, VEC_USER_RETURN);
	check("  CS = user code", iret_seen[3] & 0xffff, SEL_UCODE);
	check("  SS = user data", iret_seen[4] & 0xffff, SEL_UDATA);
	check("  DS (DPL0) nulled by IRET to CPL3", iret_seen[0] & 0xffff, 0);
	check("  GS (DPL0) nulled by IRET to CPL3", iret_seen[1] & 0xffff, 0);
	check("  FS (DPL3) kept", iret_seen[2] & 0xffff, SEL_UDATA);
}

void guest_main(void)
{
	test_int_gates();
	test_call_gate();
	test_iret();
}
