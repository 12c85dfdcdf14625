/* Hardware task switches by JMP, CALL (direct and through a task gate) and
 * IRET with NT=1 (SDM Vol.3 7.3, 7.4 Table 7-2; SDM Vol.2 JMP, CALL, IRET),
 * and the checks before and after the commit point with their error codes
 * (SDM Vol.3 Table 7-1, 7.3 step 13: faults after the commit are raised in
 * the new task). */
#include "lib/guest.h"

#define SEL_B      0x40            /* GDT entry 8: task B's TSS */
#define SEL_GATE_B 0x48            /* GDT entry 9: task gate to B */

static struct tss32 tss_b __attribute__((aligned(16)));
static uint8_t stack_b[4096] __attribute__((aligned(16)));

volatile uint32_t b_called, b_runs, b_eflags, b_tr, b_link, b_main_type, b_own_type;

static uint32_t type_of(unsigned sel) { return (uint32_t)(gdt[sel >> 3] >> 40) & 0xf; }

void task_b_c(void);
void task_b_c(void)
{
	b_runs++;
	b_link = tss_b.link & 0xffff;
	b_main_type = type_of(SEL_TSS);
	b_own_type = type_of(SEL_B);
}

/* Task B: record, then go back the way it came: JMP to the first task, or
 * IRET (NT=1) when it was called. */
void task_b_entry(void);
__asm__(".text\n.globl task_b_entry\ntask_b_entry:\n\t"
	"pushf\n\t"
	"popl b_eflags\n\t"
	"str %ax\n\t"
	"movzwl %ax, %eax\n\t"
	"mov %eax, b_tr\n\t"
	"call task_b_c\n\t"
	"cmpl $0, b_called\n\t"
	"jne 1f\n\t"
	"ljmp $0x28, $0\n"
	".globl b_after_jmp\nb_after_jmp:\n\t"
	"jmp task_b_entry\n"
	"1:\tiret\n\t"
	"jmp task_b_entry\n");
extern char b_after_jmp[];

static void b_init(uint32_t limit)
{
	gmemset(&tss_b, 0, sizeof(tss_b));
	tss_b.eip = (uint32_t)(uintptr_t)task_b_entry;
	tss_b.esp = (uint32_t)(uintptr_t)(stack_b + sizeof(stack_b));
	tss_b.eflags = 0x2;
	tss_b.cs = SEL_KCODE;
	tss_b.ss = tss_b.ds = tss_b.es = tss_b.fs = tss_b.gs = SEL_KDATA;
	uint32_t cr3;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	tss_b.cr3 = cr3;
	tss_b.iomap_base = sizeof(tss_b);
	gdt[SEL_B >> 3] = seg_desc((uint32_t)(uintptr_t)&tss_b, limit, ACC_P | SYS_TSS32, 0);
	gdt[SEL_GATE_B >> 3] = gate_desc(SEL_B, 0, SYS_TASKGATE, 0, 0);
	b_runs = 0;
}

/* Back to the first task as the only busy one, TR = its TSS. */
static void main_tss_reset(void)
{
	tss.link = 0;
	tss_load(sizeof(tss) - 1);
}

static volatile uint32_t db_count, db_dr6, db_eip;
static int db_record(struct trap_frame *f)
{
	uint32_t dr6;
	__asm__ volatile("mov %%dr6, %0" : "=r"(dr6));
	db_count++;
	db_dr6 = dr6;
	db_eip = f->eip;
	return 1;
}

static void jmp_b(void *p) { (void)p; __asm__ volatile(MARK "ljmp $0x40, $0" ::: "memory"); }
static void call_b(void *p) { (void)p; __asm__ volatile(MARK "lcall $0x40, $0" ::: "memory"); }
static void call_gate_b(void *p) { (void)p; __asm__ volatile(MARK "lcall $0x48, $0" ::: "memory"); }
static void jmp_self(void *p) { (void)p; __asm__ volatile(MARK "ljmp $0x28, $0" ::: "memory"); }
static void iret_nt(void *p)
{
	(void)p;
	__asm__ volatile("pushf\n\torl $0x4000, (%%esp)\n\tpopf\n\t" MARK "iret" ::: "memory");
}

void guest_main(void)
{
	/* JMP: no nesting; the old task becomes available (SDM Vol.3 7.3 step 6). */
	b_init(0x67);
	b_called = 0;
	expect_no_fault("JMP to a TSS and JMP back", jmp_b, 0);
	check("  task B ran once", b_runs, 1);
	check("  TR in B", b_tr, SEL_B);
	check("  B: NT = 0 (JMP does not nest)", b_eflags & 0x4000, 0);
	check("  B: link field not written", b_link, 0);
	check("  B: first task available", b_main_type, SYS_TSS32);
	check("  B: own TSS busy", b_own_type, SYS_TSS32_BSY);
	check("  after: first task busy again", type_of(SEL_TSS), SYS_TSS32_BSY);
	check("  after: B available", type_of(SEL_B), SYS_TSS32);
	check("  B saved EIP = after its JMP", tss_b.eip, (uint32_t)(uintptr_t)b_after_jmp);

	/* CALL: nesting (SDM Vol.3 7.4 Table 7-2). */
	b_init(0x67);
	b_called = 1;
	expect_no_fault("CALL to a TSS and IRET back", call_b, 0);
	check("  B: NT = 1", b_eflags & 0x4000, 0x4000);
	check("  B: link = first task", b_link, SEL_TSS);
	check("  B: first task still busy", b_main_type, SYS_TSS32_BSY);
	check("  after IRET: B available", type_of(SEL_B), SYS_TSS32);
	check("  after IRET: B saved with NT = 0", tss_b.eflags & 0x4000, 0);
	uint32_t fl;
	__asm__ volatile("pushf\n\tpop %0" : "=r"(fl));
	check("  after IRET: NT = 0 here", fl & 0x4000, 0);

	b_init(0x67);
	b_called = 1;
	expect_no_fault("CALL through a task gate", call_gate_b, 0);
	check("  B ran, linked to the first task", b_runs == 1 && b_link == SEL_TSS, 1);

	/* T flag in the new TSS: #DB (DR6.BT) before B's first instruction
	 * (SDM Vol.3 7.2.1, 17.3.1.5); the handler returns into B. */
	b_init(0x67);
	b_called = 0;
	tss_b.trap = 1;
	trap_handlers[1] = db_record;
	db_count = 0;
	__asm__ volatile("mov %0, %%dr6" :: "r"(0u));
	expect_no_fault("JMP to a TSS with T=1", jmp_b, 0);
	trap_handlers[1] = 0;
	check_quirk("  one #DB", db_count, 1, "TCG ignores the TSS T flag");
	check_quirk("  DR6.BT", db_dr6 & 0x8000, 0x8000, "TCG ignores the TSS T flag");
	check_quirk("  at B's first instruction", db_eip, (uint32_t)(uintptr_t)task_b_entry,
		    "TCG ignores the TSS T flag");
	check("  B ran after the #DB", b_runs, 1);

	/* Checks before the commit point: nothing changes, the fault is raised
	 * in the first task at the JMP/CALL. */
	b_init(0x67);
	expect_fault("JMP to the busy current TSS: #GP(sel)", jmp_self, 0, 13, SEL_TSS);
	b_init(0x60);
	expect_fault("TSS limit 60H < 67H: #TS(sel)", jmp_b, 0, 10, SEL_B);
	check("  TR unchanged", type_of(SEL_TSS), SYS_TSS32_BSY);
	b_init(0x67);
	gdt[SEL_B >> 3] &= ~(1ull << 47);
	expect_fault("TSS not present: #NP(sel)", call_b, 0, 11, SEL_B);
	b_init(0x67);
	gdt[SEL_GATE_B >> 3] = gate_desc(SEL_B | 4, 0, SYS_TASKGATE, 0, 0);
	/* SDM Vol.2 CALL TASK-GATE: "IF TSS segment selector local/global bit is
	 * set to local ... THEN #GP(TSS selector)". */
	trap_reset();
	int gv = trap_catch(call_gate_b, 0);
	check_quirk("task gate naming an LDT selector: #GP", (uint32_t)gv, 13,
		    "TCG raises #TS for a task gate whose TSS selector has TI=1");
	check("  error code = TSS selector", trap_last.error, SEL_B | 4);
	b_init(0x67);
	gdt[SEL_GATE_B >> 3] = gate_desc(SEL_TSS, 0, SYS_TASKGATE, 0, 0);
	expect_fault("task gate naming a busy TSS: #GP(TSS sel)", call_gate_b, 0, 13, SEL_TSS);
	b_init(0x67);
	run_user_catch("CPL3 CALL through a DPL0 task gate: #GP(gate sel)", call_gate_b, 0, 0, 13,
		       SEL_GATE_B);

	/* IRET with NT=1 whose link names an available TSS: #TS(link). */
	b_init(0x67);
	tss.link = SEL_B;
	expect_fault("IRET NT=1, link to a TSS that is not busy: #TS(link)", iret_nt, 0, 10, SEL_B);
	main_tss_reset();

	/* After the commit point: B's DS is beyond the GDT. The switch is done;
	 * #TS(DS selector) is raised in B, at B's first instruction. */
	b_init(0x67);
	b_called = 0;
	tss_b.ds = 0x80;
	trap_reset();
	int v = trap_catch(jmp_b, 0);
	check("DS beyond the GDT in the new TSS: #TS(0x80) in the new task", (uint32_t)v, 10);
	check("  error code", trap_last.error, 0x80);
	/* SDM Vol.3 6.15 "Interrupt 10": detected after the task switch, the
	 * saved CS:EIP point to the first instruction of the new task. */
	check_quirk("  EIP = the new task's first instruction", trap_last.eip,
		    (uint32_t)(uintptr_t)task_b_entry,
		    "TCG reports the EIP of the JMP in the old task for faults after the commit point");
	uint32_t tr;
	__asm__ volatile("str %w0" : "=r"(tr));
	check("  TR = the new task", tr & 0xffff, SEL_B);
	check("  first task available (JMP)", type_of(SEL_TSS), SYS_TSS32);
	check("  B task never ran", b_runs, 0);
	main_tss_reset();
	gdt[SEL_B >> 3] = 0;
	__asm__ volatile("clts");
}
