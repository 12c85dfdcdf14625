/* #DF through a task gate to a clean TSS and stack: the pattern 32-bit
 * hypervisors and kernels use so that a double fault on a broken stack still
 * reaches a handler (SDM Vol.3 6.15 "Interrupt 8", 7.3 task switching, 7.4
 * task linking; SDM Vol.2 INT n TASK-GATE). The #DF task records what it
 * finds, points the faulting task's saved EIP past the fault and returns with
 * IRET (NT=1: TASK-RETURN through the back link). */
#include "lib/guest.h"

#define SEL_DF_TSS 0x40            /* GDT entry 8 */

static struct tss32 df_tss __attribute__((aligned(16)));
static uint8_t df_stack[4096] __attribute__((aligned(16)));

/* What the #DF task saw. */
volatile uint32_t df_entries, df_esp, df_error, df_eflags, df_tr, df_link, df_saved_eip;
volatile uint32_t df_main_type, df_own_type, df_cr0, df_dr7, df_saved_esp;
volatile uint32_t df_resume;       /* where the faulting task continues */
volatile uint32_t df_fix_stack, df_good_esp, df_saved_ss;  /* the stack-overflow case */

void df_task_c(void);
void df_task_c(void)
{
	df_entries++;
	df_link = df_tss.link & 0xffff;
	df_saved_eip = tss.eip;
	df_saved_esp = tss.esp;
	df_main_type = (uint32_t)(gdt[SEL_TSS >> 3] >> 40) & 0xf;
	df_own_type = (uint32_t)(gdt[SEL_DF_TSS >> 3] >> 40) & 0xf;
	uint32_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	df_cr0 = v;
	__asm__ volatile("mov %%dr7, %0" : "=r"(v));
	df_dr7 = v;
	/* Repair: the #GP gate is present again; the faulting task resumes
	 * after the faulting instruction. */
	set_idt_gate(13, trap_stub_addr(13), SYS_INTGATE, 0);
	tss.eip = df_resume;
	df_saved_ss = tss.ss & 0xffff;
	if (df_fix_stack) {
		tss.ss = SEL_KDATA;
		tss.esp = df_good_esp;
	}
}

/* Entry of the #DF task: the #DF error code is on its fresh stack. After
 * IRET the task's own saved EIP is the instruction after the IRET: a second
 * #DF re-enters at the top. */
void df_task_entry(void);
__asm__(".text\n.globl df_task_entry\ndf_task_entry:\n\t"
	"mov %esp, df_esp\n\t"
	"mov (%esp), %eax\n\t"
	"mov %eax, df_error\n\t"
	"pushf\n\t"
	"pop %eax\n\t"
	"mov %eax, df_eflags\n\t"
	"str %ax\n\t"
	"movzwl %ax, %eax\n\t"
	"mov %eax, df_tr\n\t"
	"call df_task_c\n\t"
	"iret\n"
	".globl df_after_iret\ndf_after_iret:\n\t"
	"jmp df_task_entry\n");
extern char df_after_iret[];

static void df_tss_init(void)
{
	gmemset(&df_tss, 0, sizeof(df_tss));
	df_tss.eip = (uint32_t)(uintptr_t)df_task_entry;
	df_tss.esp = (uint32_t)(uintptr_t)(df_stack + sizeof(df_stack));
	df_tss.eflags = 0x2;
	df_tss.cs = SEL_KCODE;
	df_tss.ss = df_tss.ds = df_tss.es = df_tss.fs = df_tss.gs = SEL_KDATA;
	uint32_t cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	df_tss.cr3 = cr3;
	df_tss.iomap_base = sizeof(df_tss);
	/* SDM Vol.3 7.2.2: an available 32-bit TSS, limit >= 67H. */
	gdt[SEL_DF_TSS >> 3] = seg_desc((uint32_t)(uintptr_t)&df_tss, 0x67, ACC_P | SYS_TSS32, 0);
	/* SDM Vol.3 6.11 Figure 6-2: the task gate names the TSS selector. */
	idt[8] = gate_desc(SEL_DF_TSS, 0, SYS_TASKGATE, 0, 0);
}

/* #GP(0x80) (selector beyond the GDT) with the #GP gate not present: #NP
 * while delivering #GP, contributory + contributory = #DF (SDM Table 6-5). */
static void gp_with_missing_gate(void *p)
{
	(void)p;
	idt[13] &= ~(1ull << 47);
	__asm__ volatile("movl $2f, df_resume\n\t"
			 MARK "mov %0, %%ds\n\t"
			 "2:\n\t"
			 "mov %1, %%ds" :: "r"(0x80), "r"(SEL_KDATA) : "memory");
}

#define SEL_TINY_SS 0x50           /* GDT entry 10: 4 KiB stack segment */

/* The hypervisor case: the stack itself is broken. ESP = 8 in a 4 KiB
 * stack segment, then #GP: pushing its frame wraps below 0 (#SS), a
 * contributory fault while delivering a contributory one: #DF, which only a
 * task gate can still deliver (SDM Vol.3 6.15 "Interrupt 8"). */
static void gp_on_broken_stack(void *p)
{
	(void)p;
	__asm__ volatile("movl $2f, df_resume\n\t"
			 "mov %%esp, df_good_esp\n\t"
			 "mov %2, %%ss\n\t"
			 "mov $8, %%esp\n\t"
			 MARK "mov %0, %%ds\n\t"
			 "2:\n\t"
			 "mov %1, %%ds" :: "r"(0x80), "r"(SEL_KDATA), "r"(SEL_TINY_SS) : "memory");
}

void guest_main(void)
{
	df_tss_init();
	/* DR7 L0 (an instruction breakpoint never reached) and G1: a task
	 * switch clears the local enables only (SDM Vol.3 17.2.4). */
	__asm__ volatile("mov %0, %%dr0\n\tmov %0, %%dr1\n\tmov %1, %%dr7"
			 :: "r"(0x10u), "r"(0x401u | 0x8u));
	uint32_t esp_before;
	__asm__ volatile("mov %%esp, %0" : "=r"(esp_before));

	trap_reset();
	int v = trap_catch(gp_with_missing_gate, 0);
	check("#DF through the task gate returned to the faulting task", (uint32_t)v,
	      (uint32_t)NO_FAULT);
	check("  #DF task entered once", df_entries, 1);
	/* SDM Vol.2 INT n TASK-GATE: the error code (0 for #DF) is pushed on the
	 * new task's stack. */
	check("  #DF error code 0 on the new task's stack", df_error, 0);
	check("  new task's ESP = TSS.ESP - 4", df_esp,
	      (uint32_t)(uintptr_t)(df_stack + sizeof(df_stack)) - 4);
	check("  TR = #DF TSS", df_tr, SEL_DF_TSS);
	/* SDM Vol.3 7.4: an exception through a task gate nests. */
	check("  back link = the faulting task's TSS", df_link, SEL_TSS);
	check("  EFLAGS.NT = 1 in the #DF task", df_eflags & 0x4000, 0x4000);
	check("  IF = 0 (from the TSS image)", df_eflags & 0x200, 0);
	check("  old TSS stays busy (nesting)", df_main_type, SYS_TSS32_BSY);
	check("  new TSS busy", df_own_type, SYS_TSS32_BSY);
	/* SDM Vol.3 6.5: #DF is an abort; the state saved in the old TSS holds
	 * the instruction the first fault interrupted. */
	check("  saved EIP = the instruction that raised #GP", df_saved_eip, trap_mark_ip);
	check_true("  saved ESP is the faulting task's stack", df_saved_esp < esp_before &&
		   df_saved_esp > esp_before - 256);
	check("  CR0.TS set by the task switch (SDM Vol.3 2.5)", df_cr0 & 8, 8);
	check("  DR7: L0 cleared, G1 kept (SDM Vol.3 17.2.4)", df_dr7 & 0xff, 0x8);

	/* After IRET (TASK-RETURN): back in the first task. */
	uint32_t tr, fl;
	__asm__ volatile("str %w0" : "=r"(tr));
	__asm__ volatile("pushf\n\tpop %0" : "=r"(fl));
	check("IRET with NT=1 returned to the linked task (TR)", tr & 0xffff, SEL_TSS);
	check("  NT = 0 in the resumed task", fl & 0x4000, 0);
	check("  resumed task's TSS still busy", (uint32_t)(gdt[SEL_TSS >> 3] >> 40) & 0xf,
	      SYS_TSS32_BSY);
	check("  #DF task no longer busy (IRET clears it)",
	      (uint32_t)(gdt[SEL_DF_TSS >> 3] >> 40) & 0xf, SYS_TSS32);
	/* SDM Vol.3 7.3 step 7: IRET saves the #DF task with NT cleared. */
	check("  #DF task saved with NT = 0", df_tss.eflags & 0x4000, 0);
	check("  #DF task saved EIP: after its IRET", df_tss.eip, (uint32_t)(uintptr_t)df_after_iret);
	__asm__ volatile("clts");

	/* A second #DF re-enters the task at the top (its saved EIP jumps back). */
	df_tss.esp = (uint32_t)(uintptr_t)(df_stack + sizeof(df_stack));
	df_tss.eflags = 0x2;
	trap_reset();
	v = trap_catch(gp_with_missing_gate, 0);
	check("second #DF through the same task gate", (uint32_t)v, (uint32_t)NO_FAULT);
	check("  #DF task entered twice", df_entries, 2);
	__asm__ volatile("clts");
	__asm__ volatile("mov %0, %%dr7" :: "r"(0x400u));

	if (skip_quirk("#DF through a task gate from a broken stack",
		       "TCG does not check the SS limit when it pushes an exception frame"))
		return;
	gdt[SEL_TINY_SS >> 3] = seg_desc(0, 0xfff, ACC_P | ACC_S | ACC_DATA_W, FL_DB);
	df_tss.esp = (uint32_t)(uintptr_t)(df_stack + sizeof(df_stack));
	df_tss.eflags = 0x2;
	df_fix_stack = 1;
	trap_reset();
	v = trap_catch(gp_on_broken_stack, 0);
	df_fix_stack = 0;
	check("#GP on a broken stack -> #SS -> #DF through the task gate", (uint32_t)v,
	      (uint32_t)NO_FAULT);
	check("  #DF task entered", df_entries, 3);
	check("  faulting task saved with the broken SS", df_saved_ss, SEL_TINY_SS);
	check("  saved ESP = 8", df_saved_esp, 8);
	check("  saved EIP = the #GP instruction", df_saved_eip, trap_mark_ip);
	check("  #DF error code 0", df_error, 0);
	__asm__ volatile("clts");
}
