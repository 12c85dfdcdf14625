/* DebugCtl (MSR 1D9H) and the last-branch records: LBR records the last taken
 * branch (LastBranchFromIP/ToIP, 1DBH/1DCH); an interrupt or exception moves
 * it to LastExceptionFromIP/ToIP (1DDH/1DEH); a #DB clears LBR and BTF; BTF
 * makes TF single-step on taken branches only (SDM Vol.3 17.4.1-17.4.3, APM2
 * 13.1.1.6-7). The records are read-only; reserved DebugCtl bits #GP.
 * QEMU 7.2 TCG models none of it: those checks are TODOs there. */
#include "lib/apic.h"
#include "lib/guest.h"

#define MSR_DEBUGCTL 0x1d9u
#define MSR_LBR_FROM 0x1dbu
#define MSR_LBR_TO   0x1dcu
#define MSR_LEX_FROM 0x1ddu
#define MSR_LEX_TO   0x1deu
#define LBR 1u
#define BTF 2u

#define QEMU_NO_LBR "QEMU TCG ignores DebugCtl writes (it reads 0, reserved bits do not #GP), records no branches, has no BTF"

#define MAX_STEPS 8
static volatile uint32_t step_eip[MAX_STEPS], steps;

static int db_handler(struct trap_frame *f)
{
	if (steps < MAX_STEPS)
		step_eip[steps] = f->eip;
	steps++;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));
	return 1;
}

extern char lbr_jmp[], lbr_target[], lex_jmp[], lex_target[], btf_target[];

static uint32_t addr(const char *p) { return (uint32_t)(uintptr_t)p; }

void guest_main(void)
{
	uint64_t v = 0;
	check("DebugCtl reads", rdmsr_catch(MSR_DEBUGCTL, &v), -1);
	check("DebugCtl is 0 after RESET", (uint32_t)v, 0);
	check("LBR | BTF can be written", wrmsr_catch(MSR_DEBUGCTL, LBR | BTF), -1);
	rdmsr_catch(MSR_DEBUGCTL, &v);
	check_quirk("  and read back", (uint32_t)v, LBR | BTF, QEMU_NO_LBR);
	wrmsr(MSR_DEBUGCTL, 0);
	check_quirk("DebugCtl bit 63 (reserved): #GP", wrmsr_catch(MSR_DEBUGCTL, 1ull << 63), 13, QEMU_NO_LBR);
	check_quirk("LastBranchFromIP is read-only: #GP", wrmsr_catch(MSR_LBR_FROM, 0), 13, QEMU_NO_LBR);

	/* A JMP with LBR set: its address and its target. */
	uint32_t from, to;
	__asm__ volatile("mov %[ctl], %%ecx\n\tmov $1, %%eax\n\txor %%edx, %%edx\n\twrmsr\n"
			 ".globl lbr_jmp\nlbr_jmp:\tjmp lbr_target\n\tnop\n"
			 ".globl lbr_target\nlbr_target:\t"
			 "xor %%eax, %%eax\n\twrmsr\n\t"   /* LBR off before anything else branches */
			 "mov %[from], %%ecx\n\trdmsr\n\tmov %%eax, %%esi\n\t"
			 "mov %[to], %%ecx\n\trdmsr\n\tmov %%eax, %%edi"
			 : "=S"(from), "=D"(to)
			 : [ctl] "i"(MSR_DEBUGCTL), [from] "i"(MSR_LBR_FROM), [to] "i"(MSR_LBR_TO)
			 : "eax", "ecx", "edx", "memory");
	check_quirk("LBR: LastBranchFromIP = the JMP", from, addr(lbr_jmp), QEMU_NO_LBR);
	check_quirk("LBR: LastBranchToIP = its target", to, addr(lbr_target), QEMU_NO_LBR);

	/* A JMP, then a single-step #DB (TF set by POPF traps after the NOP): the
	 * #DB clears LBR; the records keep the JMP (PUSHF/OR/POPF do not branch). */
	trap_handlers[1] = db_handler;
	steps = 0;
	__asm__ volatile("mov %[ctl], %%ecx\n\tmov $1, %%eax\n\txor %%edx, %%edx\n\twrmsr\n"
			 ".globl lex_jmp\nlex_jmp:\tjmp lex_target\n\tnop\n"
			 ".globl lex_target\nlex_target:\t"
			 "pushf\n\torl $0x100, (%%esp)\n\tpopf\n\tnop\n\t"
			 "pushf\n\tandl $~0x100, (%%esp)\n\tpopf"
			 :: [ctl] "i"(MSR_DEBUGCTL) : "eax", "ecx", "edx", "memory", "cc");
	rdmsr_catch(MSR_DEBUGCTL, &v);
	uint32_t ctl = (uint32_t)v;
	wrmsr(MSR_DEBUGCTL, 0);
	check("single-step traps: NOP, PUSHF, AND, POPF", steps, 4);
	check_quirk("  the #DB cleared DebugCtl.LBR", ctl & LBR, 0, QEMU_NO_LBR);
	rdmsr_catch(MSR_LBR_FROM, &v);
	check_quirk("  LastBranchFromIP still the JMP before it", (uint32_t)v, addr(lex_jmp), QEMU_NO_LBR);

	/* BTF with TF: the first trap follows the JMP, not the NOPs before it; the
	 * #DB clears BTF, so every instruction after traps: NOP, PUSHF, AND, POPF. */
	wrmsr(MSR_DEBUGCTL, BTF);
	steps = 0;
	__asm__ volatile("pushf\n\torl $0x100, (%%esp)\n\tpopf\n\t"
			 "nop\n\tnop\n\tjmp btf_target\n\tnop\n"
			 ".globl btf_target\nbtf_target:\tnop\n\t"
			 "pushf\n\tandl $~0x100, (%%esp)\n\tpopf" ::: "memory", "cc");
	rdmsr_catch(MSR_DEBUGCTL, &v);
	wrmsr(MSR_DEBUGCTL, 0);
	check_quirk("BTF + TF: the first trap is after the JMP", step_eip[0], addr(btf_target), QEMU_NO_LBR);
	check_quirk("  then every instruction: 5 traps", steps, 5, QEMU_NO_LBR);
	check_quirk("  the #DB cleared DebugCtl.BTF", (uint32_t)v & BTF, 0, QEMU_NO_LBR);
}
