/* Virtual-8086 mode without VME: I/O through the TSS I/O permission bitmap
 * whatever IOPL is (SDM Vol.3 20.2.8.1), the IOPL-sensitive instructions
 * CLI, STI, PUSHF, POPF, INT n, IRET (#GP(0) at IOPL < 3, SDM Vol.3 20.2.7),
 * HLT always #GP(0) (CPL 3), and INT n to a ring-0 handler at IOPL 3 with the
 * v8086 frame (SDM Vol.3 20.3.1.1, Figure 20-5). v8086 code runs from a copy
 * at 0600:0000 with its stack at 0700:0FF0; it ends with HLT. */
#include "lib/v86.h"

#define EFL_IOPL3 (3u << 12)

/* Expect the run to end with #GP(0) at IP offset ip. */
static void expect_gp_at(const char *name, const uint8_t *code, uint32_t n, uint32_t eflags,
			 uint32_t ip)
{
	int v = v86_run(code, n, eflags);
	check(name, (uint32_t)v == 13 && trap_last.error == 0 && trap_last.eip == ip &&
	      trap_last.cs == V86_CS && (trap_last.eflags & EFL_VM), 1);
	if (v != 13 || trap_last.eip != ip)
		note("  got vector %d error %x at %x:%x", v, trap_last.error, trap_last.cs,
		     trap_last.eip);
}

static void port_allow(uint16_t port, int allow)
{
	if (allow)
		tss.iomap[port / 8] &= (uint8_t)~(1u << (port % 8));
	else
		tss.iomap[port / 8] |= (uint8_t)(1u << (port % 8));
}

/* A task whose TSS has EFLAGS.VM = 1 (SDM Vol.3 20.2.5: a task switch is
 * the other way into v8086 mode). GDT entry 8. */
#define SEL_V86_TSS 0x40
static struct tss32 v86_tss __attribute__((aligned(16)));
static uint8_t v86_ring0_stack[2048] __attribute__((aligned(16)));

static void jmp_v86_task(void *p) { (void)p; __asm__ volatile("ljmp $0x40, $0" ::: "memory"); }

static void task_into_v86(void)
{
	static const uint8_t hlt_code[] = { 0x90, 0xf4 };                  /* nop; hlt */
	gmemcpy((void *)(uintptr_t)(V86_CS << 4), hlt_code, sizeof(hlt_code));
	gmemset(&v86_tss, 0, sizeof(v86_tss));
	v86_tss.eflags = EFL_VM | 2;
	v86_tss.eip = 0;
	v86_tss.cs = V86_CS;
	v86_tss.ss = V86_SS;
	v86_tss.esp = V86_SP;
	v86_tss.ds = v86_tss.es = 0x1234;
	v86_tss.esp0 = (uint32_t)(uintptr_t)(v86_ring0_stack + sizeof(v86_ring0_stack));
	v86_tss.ss0 = SEL_KDATA;
	v86_tss.iomap_base = sizeof(v86_tss);
	uint32_t cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	v86_tss.cr3 = cr3;
	gdt[SEL_V86_TSS >> 3] = seg_desc((uint32_t)(uintptr_t)&v86_tss, 0x67, ACC_P | SYS_TSS32, 0);
	trap_reset();
	int v = trap_catch(jmp_v86_task, 0);
	check("JMP to a TSS with EFLAGS.VM=1 runs v8086 code (HLT: #GP(0))",
	      (uint32_t)v == 13 && trap_last.error == 0, 1);
	check("  at 0600:0001 with VM=1", trap_last.cs == V86_CS && trap_last.eip == 1 &&
	      (trap_last.eflags & EFL_VM), 1);
	uint32_t *frame = (uint32_t *)(uintptr_t)trap_last.frame_addr;
	check("  on the new task's ring-0 stack, DS from the TSS",
	      trap_last.frame_addr == v86_tss.esp0 - 36 && frame[6] == 0x1234, 1);
	/* Back to the first TSS as the current task. */
	tss_load(sizeof(tss) - 1);
	gdt[SEL_V86_TSS >> 3] = 0;
	__asm__ volatile("clts");
}

void guest_main(void)
{
	static const uint8_t out80[] = { 0xb0, 0x55, 0xe6, 0x80, 0xf4 };   /* mov al,55h; out 80h,al; hlt */
	static const uint8_t in80[] = { 0xe4, 0x80, 0xf4 };                /* in al,80h; hlt */
	static const uint8_t outw[] = { 0xba, 0x80, 0x00, 0xef, 0xf4 };    /* mov dx,80h; out dx,ax; hlt */
	static const uint8_t cli[] = { 0xfa, 0xf4 };
	static const uint8_t sti[] = { 0xfb, 0xf4 };
	static const uint8_t pushf[] = { 0x9c, 0xf4 };
	static const uint8_t popf[] = { 0x6a, 0x02, 0x9d, 0xf4 };          /* push 2; popf; hlt */
	static const uint8_t intn[] = { 0xcd, 0x40, 0xf4 };
	static const uint8_t iret[] = { 0xcf, 0xf4 };
	static const uint8_t hlt[] = { 0xf4 };
	static const uint8_t pushf_pop[] = { 0x9c, 0x58, 0xf4 };           /* pushf; pop ax; hlt */

	/* INT 0x40 reaches a ring-0 interrupt gate from v8086 only with gate
	 * DPL 3 (SDM Vol.3 6.12.1.1). */
	set_idt_gate(0x40, trap_stub_addr(0x40), SYS_INTGATE, 3);

	/* I/O: the bitmap decides, at IOPL 0 and at IOPL 3 alike. */
	port_allow(0x80, 1);
	port_allow(0x81, 1);
	expect_gp_at("OUT to an allowed port, IOPL 0: done (HLT faults next)", out80, sizeof(out80), 0, 4);
	expect_gp_at("IN from an allowed port, IOPL 0", in80, sizeof(in80), 0, 2);
	expect_gp_at("16-bit OUT to allowed ports 80H-81H", outw, sizeof(outw), 0, 4);
	port_allow(0x81, 0);
	expect_gp_at("16-bit OUT, port 81H denied: #GP(0) at OUT", outw, sizeof(outw), 0, 3);
	port_allow(0x80, 0);
	expect_gp_at("OUT to a denied port, IOPL 3: #GP(0) (IOPL not consulted)", out80, sizeof(out80),
		     EFL_IOPL3, 2);
	expect_gp_at("IN from a denied port, IOPL 0: #GP(0)", in80, sizeof(in80), 0, 0);

	/* IOPL-sensitive instructions at IOPL 0: #GP(0) at the instruction. */
	expect_gp_at("CLI at IOPL 0: #GP(0)", cli, sizeof(cli), 0x200, 0);
	expect_gp_at("STI at IOPL 0: #GP(0)", sti, sizeof(sti), 0, 0);
	expect_gp_at("PUSHF at IOPL 0: #GP(0)", pushf, sizeof(pushf), 0, 0);
	expect_gp_at("POPF at IOPL 0: #GP(0)", popf, sizeof(popf), 0, 2);
	expect_gp_at("INT n at IOPL 0: #GP(0)", intn, sizeof(intn), 0, 0);
	expect_gp_at("IRET at IOPL 0: #GP(0)", iret, sizeof(iret), 0, 0);
	expect_gp_at("HLT in v8086 mode: #GP(0)", hlt, sizeof(hlt), EFL_IOPL3, 0);

	/* At IOPL 3 they run. */
	expect_gp_at("CLI at IOPL 3", cli, sizeof(cli), EFL_IOPL3 | 0x200, 1);
	check("  IF cleared", trap_last.eflags & 0x200, 0);
	expect_gp_at("STI at IOPL 3", sti, sizeof(sti), EFL_IOPL3, 1);
	check("  IF set", trap_last.eflags & 0x200, 0x200);
	trap_handlers[13] = v86_gp_record;
	expect_gp_at("PUSHF at IOPL 3 (16-bit image)", pushf_pop, sizeof(pushf_pop), EFL_IOPL3 | 1, 2);
	check("  pushed FLAGS: IOPL 3, CF", v86_gp_eax & 0xffff, 0x3003);
	trap_handlers[13] = 0;
	expect_gp_at("POPF at IOPL 3", popf, sizeof(popf), EFL_IOPL3, 3);
	check("  IOPL kept by POPF in v8086 mode", trap_last.eflags & EFL_IOPL3, EFL_IOPL3);

	/* INT3 is not IOPL-sensitive (SDM Vol.3 20.2.7 lists INT n only): at
	 * IOPL 0 it goes to the IDT, where the gate DPL is checked against CPL 3
	 * (SDM Vol.3 6.12.1.1): DPL 0 is #GP(3*8+2), DPL 3 reaches the handler. */
	static const uint8_t int3[] = { 0xcc, 0xf4 };
	int v3 = v86_run(int3, sizeof(int3), 0);
	check("INT3 at IOPL 0, gate DPL 0: #GP(1AH)", (uint32_t)v3 == 13 && trap_last.error == 0x1a, 1);
	set_idt_gate(3, trap_stub_addr(3), SYS_INTGATE, 3);
	v3 = v86_run(int3, sizeof(int3), 0);
	check("INT3 at IOPL 0, gate DPL 3: the #BP handler", (uint32_t)v3, 3);
	check("  pushed EIP = after INT3", trap_last.eip, 1);
	set_idt_gate(3, trap_stub_addr(3), SYS_INTGATE, 0);

	task_into_v86();

	/* INT n at IOPL 3: the IDT, with the v8086 frame on the ring-0 stack. */
	int v = v86_run(intn, sizeof(intn), EFL_IOPL3);
	check("INT 0x40 at IOPL 3 reaches the ring-0 handler", (uint32_t)v, 0x40);
	check("  pushed EIP = after INT", trap_last.eip, 2);
	check("  pushed CS", trap_last.cs, V86_CS);
	check("  pushed EFLAGS.VM", trap_last.eflags & EFL_VM, EFL_VM);
	uint32_t *frame = (uint32_t *)(uintptr_t)trap_last.frame_addr;
	check("  frame: ESP, SS, ES, DS, FS, GS (SDM Figure 20-5)",
	      frame[3] == V86_SP && frame[4] == V86_SS && frame[5] == V86_SS &&
	      frame[6] == V86_SS && frame[7] == 0 && frame[8] == 0, 1);
}
