/* The paths of the NOVA/Escape repro, one row each (nova_escape.h). The
 * expected values are the manual's: an intercepted #PF reports the error code
 * in EXITINFO1 and the faulting linear address in EXITINFO2 (APM2 15.12),
 * and outside 64-bit mode a linear address is base + offset modulo 2^32
 * (APM2 4.1, SDM Vol.3 3.4), so bits 63:32 of EXITINFO2 are zero. Error codes
 * (APM2 8.4.2): P = 0 (the shadow has no entry), W for a write, U = 0 at CPL 0
 * and for the implicit supervisor-mode accesses to descriptor tables, the TSS
 * and the ring-0 stack (SDM Vol.3 4.6), I/D = 0 (EFER.NXE = 0).
 *
 * In every row only one access of the operation touches the target page, so
 * the address the CPU reports does not depend on the order of its accesses. */
#include "lib/guest.h"
#include "nova_escape.h"

#define PF_W 0x2

static void put16(void *p, uint16_t v) { gmemcpy(p, &v, 2); }
static void put32(void *p, uint32_t v) { gmemcpy(p, &v, 4); }
static void put64(void *p, uint64_t v) { gmemcpy(p, &v, 8); }
static uint32_t addr(const void *p) { return (uint32_t)(uintptr_t)p; }

/* A data segment like L2_DS, accessed bit set so loading it writes nothing. */
static uint64_t l2_data_desc(void)
{
	return seg_desc(L2_SEG_BASE, 0xfffff, ACC_P | ACC_S | ACC_DATA_W | ACC_ACCESSED, FL_G | FL_DB);
}

static void setup_data_read(void) { put32(wrap_at(0x1010), 0x600df00d); }
static void setup_fetch(void) { *(uint8_t *)wrap_at(0x6100) = 0xc3; /* RET */ }
static void setup_gdt_read(void) { put64(wrap_at(0x4018), l2_data_desc()); }

static void setup_ldt_read(void)
{
	put64(wrap_at(0x5020), l2_data_desc());
	l2_gdt[L2_LDT >> 3] = seg_desc(TOP_PAGE, 0xffff, ACC_P | SYS_LDT, 0);
	l1_set_seg(VMCB_LDTR, L2_LDT, 0x82, 0xffff, TOP_PAGE);
}

static void setup_idt_read(void)
{
	put64(wrap_at(0x80), gate_desc(L2_CS, addr(l2_h_iret32), SYS_INTGATE, 0, 0));
}

/* TR = a 32-bit TSS at 0xfffffff8 (the type as in l1_default_segs): ESP0
 * (offset 4) is the last dword of the top page, SS0 (offset 8) is linear 0. */
static void setup_tss_read(void)
{
	put32(top_at(TSS_WRAP_BASE + 4), addr(l2_kstack) + sizeof(l2_kstack));
	put32(wrap_at(0), L2_DS);
	l2_gdt[L2_TSS_WRAP >> 3] = seg_desc(TSS_WRAP_BASE, 0x67, ACC_P | SYS_TSS32_BSY, 0);
	l1_set_seg(VMCB_TR, L2_TSS_WRAP, 0x89, 0x67, TSS_WRAP_BASE);
}

/* A dword of the TSS at TSS_TASK_BASE: offsets below 64H are in the top page,
 * the T word and the I/O map base at linear 0 and 2. */
static void task_tss_put(uint32_t off, uint32_t v)
{
	uint32_t lin = TSS_TASK_BASE + off;
	put32(lin >= TSS_TASK_BASE ? top_at(lin) : wrap_at(lin), v);
}

/* An available 32-bit TSS whose task runs l2_task_entry on l2_task_stack
 * with L2's segments and the shadow CR3 (a task switch loads CR3 from the TSS,
 * SDM Vol.3 7.3 step 9), T = 0. */
static void setup_task_switch(void)
{
	for (uint32_t off = 0; off < 0x68; off += 4)
		task_tss_put(off, 0);
	task_tss_put(0x1c, l2_shadow_cr3);
	task_tss_put(0x20, addr(l2_task_entry));
	task_tss_put(0x24, 0x2);
	task_tss_put(0x38, addr(l2_task_stack) + sizeof(l2_task_stack));
	for (uint32_t off = 0x48; off <= 0x5c; off += 4)
		task_tss_put(off, off == 0x4c ? L2_CS : L2_DS);
	task_tss_put(0x64, 0x68u << 16);   /* T = 0; I/O map base beyond the limit */
	l2_gdt[L2_TSS_TASK >> 3] = seg_desc(TSS_TASK_BASE, 0x67, ACC_P | SYS_TSS32, 0);
}

/* The IRETW frame: IP (the target page), CS, FLAGS (the page above). */
static void setup_pop16_iret(void)
{
	put16(wrap_at(0x9ffe), (uint16_t)(addr(l2_iret16_resume) - addr(l2_low_start)));
	put16(wrap_at(0xa000), L2_CS_LOW);
	put16(wrap_at(0xa002), 0x2);
}

/* The LRETW frame: IP (the target page), CS (the page above). */
static void setup_pop16_lret(void)
{
	put16(wrap_at(0x1bffe), (uint16_t)(addr(l2_lret16_resume) - addr(l2_low_start)));
	put16(wrap_at(0x1c000), L2_CS_LOW);
}

/* The IRET frame: EIP (the target page), CS, EFLAGS (the page above). */
static void setup_pop32_iret(void)
{
	put32(wrap_at(0x13ffc), addr(l2_iret32_resume));
	put32(wrap_at(0x14000), L2_CS);
	put32(wrap_at(0x14004), 0x2);
}

/* ESP0 = 0xc0016010: the CPL 3 -> 0 frame (SS, ESP, EFLAGS, CS, EIP) goes to
 * linear 0x1600c down to 0x15ffc, EIP alone on the target page. */
static void setup_push32_cpl3(void) { l2_tss[1] = WRAP(0x16010); }
static void undo_push32_cpl3(void) { l2_tss[1] = addr(l2_kstack) + sizeof(l2_kstack); }

const struct nova_case nova_cases[] = {
	{ "data-read", "MOV load through DS, offset 0xc0001010",
	  l2_ds_read, setup_data_read, 0, 0x1000, 0x1010, 0 },
	{ "data-write", "MOV store through DS, offset 0xc0002024",
	  l2_ds_write, 0, 0, 0x2000, 0x2024, PF_W },
	{ "push32", "PUSH with ESP 0xc0004000",
	  l2_push32, 0, 0, 0x3000, 0x3ffc, PF_W },
	{ "fetch", "instruction fetch at CS offset 0xc0006100",
	  l2_fetch, setup_fetch, 0, 0x6000, 0x6100, 0 },
	{ "gdt-read", "MOV FS 5018H: descriptor at GDTR.base 0xfffff000 + 0x5018",
	  l2_gdt_load, setup_gdt_read, 0, 0x4000, 0x4018, 0 },
	{ "ldt-read", "MOV FS 6024H: descriptor at LDT base 0xfffff000 + 0x6020",
	  l2_ldt_load, setup_ldt_read, l1_default_segs, 0x5000, 0x5020, 0 },
	{ "idt-read", "INT 30H: gate at IDTR.base 0xffffff00 + 0x180",
	  l2_idt_int, setup_idt_read, 0, 0x0000, 0x0080, 0 },
	{ "tss-read", "INT 33H from CPL 3: SS0 at TSS base 0xfffffff8 + 8",
	  l2_ring3_int, setup_tss_read, l1_default_segs, 0x0000, 0x0000, 0 },
	{ "task-switch", "CALL 38H:0: new TSS's T word at base 0xffffff9c + 0x64",
	  l2_task_switch, setup_task_switch, 0, 0x0000, 0x0000, 0 },
	{ "push16-int", "INT 32H, 16-bit gate, 16-bit SS: IP pushed at 0xfffff000 + 0x8ffe",
	  l2_int16_push, 0, 0, 0x7000, 0x7ffe, PF_W },
	{ "pop16-iret", "IRETW, 16-bit SS: IP popped from 0xfffff000 + 0xaffe",
	  l2_iret16_pop, setup_pop16_iret, 0, 0x9000, 0x9ffe, 0 },
	{ "push16-int-ss32", "INT 32H, 16-bit gate, 32-bit SS: IP pushed at 0x40000000 + 0xc0017ffe",
	  l2_int16_push_ss32, 0, 0, 0x17000, 0x17ffe, PF_W },
	{ "push16-lcall", "CALLW far: IP pushed at SS.base 0x40000000 + 0xc0019ffe",
	  l2_lcall16_push, 0, 0, 0x19000, 0x19ffe, PF_W },
	{ "pop16-lret", "RETFW: IP popped from SS.base 0x40000000 + 0xc001bffe",
	  l2_lret16_pop, setup_pop16_lret, 0, 0x1b000, 0x1bffe, 0 },
	{ "push32-int", "INT 31H, 32-bit gate: EIP pushed at SS.base 0x40000000 + 0xc0011ffc",
	  l2_int32_push, 0, 0, 0x11000, 0x11ffc, PF_W },
	{ "push32-int-ss16", "INT 31H, 32-bit gate, 16-bit SS: EIP pushed at 0xfffff000 + 0xcffc",
	  l2_int32_push_ss16, 0, 0, 0xb000, 0xbffc, PF_W },
	{ "pop32-iret", "IRET: EIP popped from SS.base 0x40000000 + 0xc0013ffc",
	  l2_iret32_pop, setup_pop32_iret, 0, 0x13000, 0x13ffc, 0 },
	{ "push32-cpl3-int", "INT 33H from CPL 3: EIP pushed at ESP0 0xc0016010 - 20",
	  l2_ring3_int, setup_push32_cpl3, undo_push32_cpl3, 0x15000, 0x15ffc, PF_W },
};
const unsigned nova_case_count = sizeof(nova_cases) / sizeof(nova_cases[0]);
