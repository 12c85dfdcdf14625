/* Virtual-8086 mode extensions and protected-mode virtual interrupts
 * (SDM Vol.3 20.3 "Interrupt and Exception Handling in Virtual-8086 Mode",
 * 20.3.3 Table 20-2 software interrupt methods, 20.4 PVI; SDM Vol.2 CLI,
 * STI, PUSHF, POPF, INT n, IRET): VIF instead of IF at IOPL < 3, VIP making
 * STI/POPF/IRET #GP(0), INT n redirected through the TSS interrupt
 * redirection bitmap to the 8086 program's IVT. v8086 code runs from a copy
 * at 0600:0000 with its stack at 0700:0FF0; it ends with HLT (#GP(0)). */
#include "lib/v86.h"

#define EFL_IF   (1u << 9)
#define EFL_TF   (1u << 8)
#define EFL_VIF  (1u << 19)
#define EFL_VIP  (1u << 20)
#define EFL_IOPL3 (3u << 12)
#define CR4_VME 1u
#define CR4_PVI 2u
#define REDIR_OFF ((uint32_t)__builtin_offsetof(struct tss32, iomap))

static int ended_gp_at(uint32_t v, uint32_t ip)
{
	return v == 13 && trap_last.error == 0 && trap_last.eip == ip && trap_last.cs == V86_CS;
}

static void run_expect(const char *name, const uint8_t *code, uint32_t n, uint32_t eflags,
		       uint32_t ip)
{
	int v = v86_run(code, n, eflags);
	check(name, ended_gp_at((uint32_t)v, ip), 1);
	if (!ended_gp_at((uint32_t)v, ip))
		note("  got vector %d error %x at %x:%x", v, trap_last.error, trap_last.cs, trap_last.eip);
}

static uint16_t v86_stack_word(uint32_t sp) { return *(volatile uint16_t *)(uintptr_t)((V86_SS << 4) + sp); }

static void u_cli(void *p) { (void)p; __asm__ volatile("cli"); }
static void u_sti(void *p) { (void)p; __asm__ volatile(MARK "sti"); }
static void u_popf_if(void *p) { (void)p; __asm__ volatile("pushl $0x202\n\tpopf" ::: "cc"); }

void guest_main(void)
{
	uint32_t a = 1, b, c, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
	if (!(d & 2)) {
		/* hvemu's models advertise VME; TCG never does. */
		if (!skip_quirk("VME and PVI", "TCG does not implement CR4.VME/PVI (CPUID.1:EDX.VME = 0)"))
			check("CPUID.1:EDX.VME", d & 2, 2);
		return;
	}
	uint32_t cr4;
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4 | CR4_VME | CR4_PVI));

	/* The redirection bitmap is the 32 bytes below the I/O map base
	 * (SDM Vol.3 20.3.3): move the I/O map up by 32 bytes and use the first
	 * 32 bytes of the array. All vectors redirected except 0x43. */
	tss.iomap_base = (uint16_t)(REDIR_OFF + 32);
	gmemset(tss.iomap, 0, 32);
	tss.iomap[0x43 / 8] |= 1u << (0x43 % 8);
	set_idt_gate(0x43, trap_stub_addr(0x43), SYS_INTGATE, 3);
	/* IVT entry 0x42 (8086 program's table at linear 0) -> 0600:0040. */
	volatile uint16_t *ivt = (volatile uint16_t *)0;
	uint16_t saved_ivt[2] = { ivt[0x42 * 2], ivt[0x42 * 2 + 1] };
	ivt[0x42 * 2] = 0x40;
	ivt[0x42 * 2 + 1] = V86_CS;

	static const uint8_t cli[] = { 0xfa, 0xf4 };
	static const uint8_t sti[] = { 0xfb, 0xf4 };
	static const uint8_t pushf_pop[] = { 0x9c, 0x58, 0xf4 };               /* pushf; pop ax */
	static const uint8_t popf_if[] = { 0x68, 0x00, 0x02, 0x9d, 0xf4 };     /* push 200h; popf */
	static const uint8_t popf_tf[] = { 0x68, 0x00, 0x01, 0x9d, 0xf4 };     /* push 100h; popf */
	static const uint8_t popfd[] = { 0x66, 0x6a, 0x02, 0x66, 0x9d, 0xf4 }; /* push dword 2; popfd */
	uint8_t int42[0x41];
	gmemset(int42, 0xf4, sizeof(int42));
	int42[0] = 0xcd;
	int42[1] = 0x42;                                                       /* int 42h; ...; 40: hlt */
	static const uint8_t int43[] = { 0xcd, 0x43, 0xf4 };
	/* push 202h; push cs; push 0ah; iret; hlt; hlt; hlt (at 0ah) */
	static const uint8_t iret16[] = { 0x68, 0x02, 0x02, 0x0e, 0x6a, 0x0a, 0xcf, 0xf4, 0xf4, 0xf4, 0xf4 };

	/* CLI/STI at IOPL 0 change VIF, not IF. */
	run_expect("VME CLI at IOPL 0: no fault", cli, sizeof(cli), EFL_IF | EFL_VIF, 1);
	check("  VIF cleared, IF kept", trap_last.eflags & (EFL_VIF | EFL_IF), EFL_IF);
	run_expect("VME STI at IOPL 0: no fault", sti, sizeof(sti), 0, 1);
	check("  VIF set, IF kept clear", trap_last.eflags & (EFL_VIF | EFL_IF), EFL_VIF);
	run_expect("VME STI with VIP: #GP(0) at STI", sti, sizeof(sti), EFL_VIP, 0);

	/* PUSHF/POPF (16-bit) see VIF as IF; IOPL reads as 3. */
	trap_handlers[13] = v86_gp_record;
	run_expect("VME PUSHF at IOPL 0", pushf_pop, sizeof(pushf_pop), EFL_VIF | 1, 2);
	check("  pushed FLAGS: IF = VIF, IOPL = 3", v86_gp_eax & 0xffff, 0x3000 | EFL_IF | 2 | 1);
	trap_handlers[13] = 0;
	run_expect("VME POPF with IF=1 in the image", popf_if, sizeof(popf_if), 0, 4);
	check("  VIF set, IF unchanged", trap_last.eflags & (EFL_VIF | EFL_IF), EFL_VIF);
	run_expect("VME POPF with TF=1 in the image: #GP(0)", popf_tf, sizeof(popf_tf), 0, 3);
	run_expect("VME POPF setting IF with VIP: #GP(0)", popf_if, sizeof(popf_if), EFL_VIP, 3);
	run_expect("VME 32-bit POPFD at IOPL 0: #GP(0)", popfd, sizeof(popfd), 0, 3);

	/* INT n redirected to the 8086 IVT (Table 20-2 method 6). */
	run_expect("INT 42h redirected to the IVT handler (IOPL 0)", int42, sizeof(int42),
		   EFL_VIF | EFL_IF, 0x40);
	check("  VIF cleared, IF kept", trap_last.eflags & (EFL_VIF | EFL_IF), EFL_IF);
	check("  frame on the v8086 stack: IP, CS, FLAGS (IOPL 3, IF = VIF)",
	      v86_stack_word(V86_SP - 6) == 2 && v86_stack_word(V86_SP - 4) == V86_CS &&
	      v86_stack_word(V86_SP - 2) == (0x3000 | EFL_IF | 2), 1);
	/* Method 5 (IOPL 3): IF cleared, FLAGS pushed as they are. */
	run_expect("INT 42h redirected at IOPL 3", int42, sizeof(int42), EFL_IOPL3 | EFL_IF, 0x40);
	check("  IF cleared", trap_last.eflags & EFL_IF, 0);
	check("  pushed FLAGS", v86_stack_word(V86_SP - 2), 0x3000 | EFL_IF | 2);
	/* Bit set in the redirection bitmap: method 3 #GP(0), method 4 the IDT. */
	run_expect("INT 43h (bit set) at IOPL 0: #GP(0)", int43, sizeof(int43), 0, 0);
	int v = v86_run(int43, sizeof(int43), EFL_IOPL3);
	check("INT 43h (bit set) at IOPL 3: protected-mode handler", (uint32_t)v, 0x43);

	/* 16-bit IRET at IOPL 0: popped IF goes to VIF. */
	run_expect("VME IRET at IOPL 0", iret16, sizeof(iret16), 0, 0x0a);
	check("  VIF set from the popped IF, IF kept clear", trap_last.eflags & (EFL_VIF | EFL_IF),
	      EFL_VIF);
	run_expect("VME IRET popping IF=1 with VIP: #GP(0)", iret16, sizeof(iret16), EFL_VIP, 6);

	/* PVI (SDM Vol.3 20.4): CLI/STI at CPL 3 with IOPL < 3 use VIF. */
	run_user_catch("PVI CLI at CPL 3, IOPL 0: no fault", u_cli, 0, EFL_IF | EFL_VIF, NO_FAULT, -1);
	check("  VIF cleared, IF kept", trap_last.eflags & (EFL_VIF | EFL_IF), EFL_IF);
	run_user_catch("PVI STI at CPL 3 with VIP: #GP(0)", u_sti, 0, EFL_VIP, 13, 0);
	run_user_catch("PVI does not affect POPF: no fault", u_popf_if, 0, 0, NO_FAULT, -1);
	check("  IF unchanged by POPF at CPL 3", trap_last.eflags & EFL_IF, 0);

	ivt[0x42 * 2] = saved_ivt[0];
	ivt[0x42 * 2 + 1] = saved_ivt[1];
	tss.iomap_base = (uint16_t)REDIR_OFF;
	gmemset(tss.iomap, 0xff, 32);
	__asm__ volatile("mov %0, %%cr4" :: "r"(cr4));
}
