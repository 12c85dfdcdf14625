/* Miscellaneous intercepts (APM2 15.14): task switches by JMP, CALL, IRET,
 * INTn and an exception through task gates, with EXITINFO1 = the incoming
 * TSS selector and EXITINFO2 bits 36/38/44/48 and the error code (15.14.1);
 * shutdown (15.14.3); PAUSE filtering by count and threshold (15.14.4,
 * Table 15-7). */
#include "svm/lib_svm.h"

#define EXC(v)      (1u << (v))
#define SEL_T2      0x48    /* available 32-bit TSS */
#define SEL_T2_BUSY 0x50    /* busy 32-bit TSS (an IRET's back link) */
#define SEL_T2_TINY 0x58    /* available TSS with limit 20h (< 67h) */
#define TS_IRET     (1ull << 36)
#define TS_JMP      (1ull << 38)
#define TS_ERR      (1ull << 44)
#define TS_RF       (1ull << 48)   /* RF the old TSS's EFLAGS would get: 1 after a fault */

static struct tss32 tss2 __attribute__((aligned(16)));

L2_INSN(b_ljmp, "ljmp $0x48, $0");
L2_INSN(b_lcall, "lcall $0x48, $0");
L2_BODY(b_iret_nt, "pushfl\n\torl $0x4000, (%esp)\n\tpopfl\n\tpushfl\n\tpushl %cs\n\tpushl $1f", "iret",
	"1:");
L2_INSN(b_int50, "int $0x50");
L2_BODY(b_gp_tg, "mov $0x28, %eax", "mov %eax, %ds", "");
L2_INSN(b_ljmp_tiny, "ljmp $0x58, $0");
L2_INSN(b_ud2, "ud2");
L2_BODY(b_pause3, "pause\n\tpause", "pause", "");
L2_BODY(b_pause2, "pause", "pause", "");
/* Four PAUSEs 2000+ instructions apart; the third is the one under test. */
L2_BODY(b_pause_slow, "pause\n\tmov $1000, %ecx\n1:\tdec %ecx\n\tjnz 1b\n\tpause\n\tmov $1000, %ecx\n"
	"2:\tdec %ecx\n\tjnz 2b", "pause", "mov $1000, %ecx\n3:\tdec %ecx\n\tjnz 3b\n\tpause");
L2_BODY(b_pause_fast, "", "pause", "pause\n\tpause\n\tpause\n\tpause");

static void task_gate(int vec) { l2_idt[vec] = gate_desc(SEL_T2, 0, SYS_TASKGATE, 0, 0); }
static void tg50(struct svm_case *c) { (void)c; task_gate(0x50); }
static void tg13(struct svm_case *c) { (void)c; task_gate(13); }
/* IRET with NT = 1 returns to the task in the current TSS's back link. */
static uint32_t saved_link;
static void backlink(struct svm_case *c) { (void)c; saved_link = tss.link; tss.link = SEL_T2_BUSY; }
static void restore_link(struct svm_case *c) { (void)c; tss.link = saved_link; }
static void idt0(struct svm_case *c) { c->vmcb->idtr.limit = 0; }
/* Back-to-back PAUSEs with count 2: the 2nd PAUSE brings the count to
 * zero, or the 3rd if the first one reloaded it (its distance to the last
 * PAUSE before VMRUN exceeds the threshold, 15.14.4). */
static void second_or_third(struct svm_case *c)
{
	uint32_t start = (uint32_t)(uintptr_t)c->row->body->start, rip = (uint32_t)c->vmcb->rip;
	svm_expect_true(c, "the 2nd or 3rd PAUSE exits", rip == start + 2 || rip == start + 4);
	if (svm_has(F_NRIPS))
		svm_expect(c, "nRIP", c->vmcb->nrip, rip + 2);
}
static void pause_count(struct svm_case *c)
{
	c->vmcb->pause_count = (uint16_t)c->row->arg;
	c->vmcb->pause_threshold = (uint16_t)c->row->arg2;
}

#define TS(nm, b, set, sel, i2, fl) { .name = nm, .apm = "15.14.1", .body = &b##_body, \
	.icpt1 = ICPT1_TASKSW, .setup = set, .exitcode = EXIT_TASK_SWITCH, .info1 = sel, .info2 = i2, \
	.check = C_INFO1 | C_INFO2 | (fl) }

static const struct svm_row rows[] = {
	TS("JMP to a TSS: EXITINFO1 = selector, EXITINFO2 bit 38", b_ljmp, 0, SEL_T2, TS_JMP, 0),
	TS("CALL to a TSS: EXITINFO2 = 0", b_lcall, 0, SEL_T2, 0, 0),
	{ .name = "IRET with NT = 1: the back link, EXITINFO2 bit 36", .apm = "15.14.1",
	  .body = &b_iret_nt_body, .icpt1 = ICPT1_TASKSW, .setup = backlink, .exitcode = EXIT_TASK_SWITCH,
	  .info1 = SEL_T2_BUSY, .info2 = TS_IRET, .check = C_INFO1 | C_INFO2, .extra = restore_link },
	{ .name = "INT 50h through a task gate: EXITINTINFO = the INTn", .apm = "15.14.1",
	  .body = &b_int50_body, .icpt1 = ICPT1_TASKSW, .setup = tg50, .exitcode = EXIT_TASK_SWITCH,
	  .info1 = SEL_T2, .info2 = 0, .intinfo = EVENT(EV_SWINT, 0x50), .check = C_INFO1 | C_INFO2 | C_INTINFO },
	{ .name = "#GP(28h) through a task gate: EXITINFO2 bits 44 and 48 (RF), the error code", .apm = "15.14.1",
	  .body = &b_gp_tg_body, .icpt1 = ICPT1_TASKSW, .setup = tg13, .exitcode = EXIT_TASK_SWITCH,
	  .info1 = SEL_T2, .info2 = TS_ERR | TS_RF | 0x28, .intinfo = EVENT(EV_EXC, 13) | EV_ERR | EV_CODE(0x28),
	  .check = C_INFO1 | C_INFO2 | C_INTINFO },
	{ .name = "JMP to a TSS with limit 20h: #TS(58h) before the task-switch intercept",
	  .apm = "15.14.1", .body = &b_ljmp_tiny_body, .icpt1 = ICPT1_TASKSW, .icpt_exc = EXC(10),
	  .exitcode = EXIT_EXC(10), .info1 = SEL_T2_TINY, .check = C_INFO1 },
	{ .name = "triple fault (IDT limit 0, UD2): #VMEXIT(SHUTDOWN)", .apm = "15.14.3",
	  .body = &b_ud2_body, .setup = idt0, .exitcode = EXIT_SHUTDOWN,
	  .check = C_NO_RIP | C_NO_NRIP | C_NO_INTINFO | C_NO_INSN },
	{ .name = "PAUSE filter count 3: the 3rd PAUSE exits (the count reaches zero)",
	  .apm = "15.14.4", .body = &b_pause3_body, .icpt1 = ICPT1_PAUSE, .setup = pause_count,
	  .arg = 3, .exitcode = EXIT_PAUSE, .check = C_NRIP_NEXT, .need = NEED(F_PAUSEFILTER) },
	{ .name = "PAUSE filter count 3: two PAUSEs pass", .apm = "15.14.4",
	  .body = &b_pause2_body, .icpt1 = ICPT1_PAUSE, .setup = pause_count, .arg = 3,
	  .exitcode = EXIT_VMMCALL, .check = C_AT_END, .need = NEED(F_PAUSEFILTER) },
	{ .name = "PAUSE threshold 50, count 2, PAUSEs 2000 instructions apart: the count reloads",
	  .apm = "15.14.4", .body = &b_pause_slow_body, .icpt1 = ICPT1_PAUSE, .setup = pause_count,
	  .arg = 2, .arg2 = 50, .exitcode = EXIT_VMMCALL, .check = C_NO_RIP | C_NO_NRIP,
	  .need = NEED(F_PAUSEFILTER) | NEED(F_PFTHRESHOLD) },
	{ .name = "PAUSE threshold FFFFh, count 2, PAUSEs back to back: the count runs out",
	  .apm = "15.14.4", .body = &b_pause_fast_body, .icpt1 = ICPT1_PAUSE, .setup = pause_count,
	  .arg = 2, .arg2 = 0xffff, .exitcode = EXIT_PAUSE, .check = C_NO_RIP | C_NO_NRIP,
	  .extra = second_or_third, .need = NEED(F_PAUSEFILTER) | NEED(F_PFTHRESHOLD) },
	{ .name = "PAUSE threshold 0 (count only), count 3, PAUSEs far apart: the 3rd exits",
	  .apm = "15.14.4", .body = &b_pause_slow_body, .icpt1 = ICPT1_PAUSE, .setup = pause_count,
	  .arg = 3, .arg2 = 0, .exitcode = EXIT_PAUSE, .check = C_NRIP_NEXT,
	  .need = NEED(F_PAUSEFILTER) | NEED(F_PFTHRESHOLD) },
};

void guest_main(void)
{
	svm_host_init();
	gmemset(&tss2, 0, sizeof(tss2));
	tss2.iomap_base = sizeof(tss2);
	uint32_t base = (uint32_t)(uintptr_t)&tss2;
	gdt[SEL_T2 >> 3] = seg_desc(base, 0x67, ACC_P | SYS_TSS32, 0);
	gdt[SEL_T2_BUSY >> 3] = seg_desc(base, 0x67, ACC_P | SYS_TSS32_BSY, 0);
	gdt[SEL_T2_TINY >> 3] = seg_desc(base, 0x20, ACC_P | SYS_TSS32, 0);
	reload_gdt();
	RUN_ROWS(rows);
}
