/* 64-bit call gates (SDM Vol.3 5.8.3.1, 5.8.5, 5.8.6; SDM Vol.2 CALL/JMP
 * CALL-GATE with IA32_EFER.LMA = 1): 16-byte gate descriptors, a CALL from
 * 64-bit CPL 3 code to CPL 0 with the stack switch to TSS.RSP0 (null SS with
 * RPL 0, the caller's SS, RSP, CS, RIP pushed as quadwords), RETF back to CPL 3;
 * a same-level CALL and a JMP at CPL 0; and the faults: upper type field != 0,
 * a 16-bit gate type, a target that is not 64-bit code, a null target, a
 * non-canonical target offset, gate DPL/RPL, not present.
 * C code runs in compatibility mode; the 64-bit routines are in
 * callgate64_64.S, the IDT stubs in lib/long64.S. Skipped (TAP SKIP) without long
 * mode: run with --cpu skylake-lite, icelake-lite or epyc-lite. */
#include "lib/long.h"

/* This guest's own GDT: the library's first 8 entries, then these. */
#define KCS64      0x40   /* 64-bit code DPL0 */
#define KDS        0x48
#define UCS64      0x50   /* 64-bit code DPL3 */
#define UDS        0x58   /* data DPL3 */
#define TSS64      0x60   /* 16 bytes */
#define GATE_UP    0x70   /* DPL3 -> KCS64:cg_target */
#define GATE_BACK  0x80   /* DPL3 -> KCS64:cg_back */
#define GATE_K     0x90   /* DPL0 -> KCS64:cg_k_target */
#define GATE_TYPE  0xa0   /* upper type field = 01H */
#define GATE_TO32  0xb0   /* target SEL_KCODE: 32-bit code */
#define GATE_NP    0xc0   /* P = 0 */
#define GATE_NONC  0xd0   /* offset 0000_8000_xxxx_xxxxH */
#define GATE_NULL  0xe0   /* null target selector */
#define GATE_16    0xf0   /* type 4 (16-bit call gate) */
#define GATE_JMP   0x100  /* DPL0 -> KCS64:cg_k_jmp_target */
#define GDT2_ENTRIES 36

/* callgate64_64.S */
struct __attribute__((packed)) farptr { uint32_t off; uint16_t sel; };
volatile struct farptr cg_ptr, cg_ptr_up, cg_ptr_k, cg_ptr_back;
volatile uint64_t cg_rsp_before, cg_k_rsp, cg_k_cs, cg_k_ss, cg_f0, cg_f1, cg_f2, cg_f3;
volatile uint64_t cg_saved_rsp, cg_user_rsp, cg_u_cs, cg_u_ss, cg_u_rsp;
extern char cg_target[], cg_back[], cg_k_target[], cg_k_jmp_target[], cg_user_ret[], cg_user_gp[],
	cg_call_insn[];

static uint64_t gdt2[GDT2_ENTRIES] __attribute__((aligned(8)));
static uint8_t rsp0_stack[4096] __attribute__((aligned(16)));
static uint8_t user_stack[4096] __attribute__((aligned(16)));

/* A 64-bit call gate (SDM Vol.3 5.8.3.1, Figure 5-9): the low half as a 32-bit
 * gate with type 0CH; the high half holds offset 63:32 and, in bits 12:8 of its
 * upper dword (bits 44:40 of the quadword), a type field that must be 0. */
static void set_gate64(unsigned sel, uint16_t target, uint32_t off, uint8_t dpl, uint32_t off_hi,
		       uint8_t upper_type)
{
	gdt2[sel >> 3] = gate_desc(target, off, SYS_CALLGATE, dpl, 0);
	gdt2[(sel >> 3) + 1] = off_hi | ((uint64_t)(upper_type & 0x1f) << 40);
}

static uint32_t build_tables(void)
{
	/* User-accessible: the CPL-3 leg runs on the same code and stack pages. */
	uint32_t cr3 = long_identity_map(PG_P | PG_W | PG_U);

	for (int i = 0; i < 8; i++)
		gdt2[i] = gdt[i];
	gdt2[KCS64 >> 3] = long_code64_desc(0);
	gdt2[KDS >> 3] = seg_desc(0, 0xfffff, ACC_P | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	gdt2[UCS64 >> 3] = long_code64_desc(3);
	gdt2[UDS >> 3] = seg_desc(0, 0xfffff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_G | FL_DB);
	long_tss_desc(&gdt2[TSS64 >> 3]);
	set_gate64(GATE_UP, KCS64, (uint32_t)(uintptr_t)cg_target, 3, 0, 0);
	set_gate64(GATE_BACK, KCS64, (uint32_t)(uintptr_t)cg_back, 3, 0, 0);
	set_gate64(GATE_K, KCS64, (uint32_t)(uintptr_t)cg_k_target, 0, 0, 0);
	set_gate64(GATE_TYPE, KCS64, (uint32_t)(uintptr_t)cg_k_target, 0, 0, 1);
	set_gate64(GATE_TO32, SEL_KCODE, (uint32_t)(uintptr_t)cg_k_target, 0, 0, 0);
	set_gate64(GATE_NP, KCS64, (uint32_t)(uintptr_t)cg_k_target, 0, 0, 0);
	gdt2[GATE_NP >> 3] &= ~(1ull << 47);
	set_gate64(GATE_NONC, KCS64, (uint32_t)(uintptr_t)cg_k_target, 0, 0x00008000u, 0);
	set_gate64(GATE_NULL, 0, (uint32_t)(uintptr_t)cg_k_target, 0, 0, 0);
	gdt2[GATE_16 >> 3] = gate_desc(KCS64, (uint32_t)(uintptr_t)cg_k_target, 0x4, 0, 0);
	gdt2[(GATE_16 >> 3) + 1] = 0;
	set_gate64(GATE_JMP, KCS64, (uint32_t)(uintptr_t)cg_k_jmp_target, 0, 0, 0);
	struct dtr g = { sizeof(gdt2) - 1, (uint32_t)(uintptr_t)gdt2 };
	__asm__ volatile("lgdt %0" :: "m"(g) : "memory");

	lm_tss64[TSS64_RSP0] = (uint32_t)(uintptr_t)(rsp0_stack + sizeof(rsp0_stack));
	long_idt_init(KCS64, 0);
	return cr3;
}

/* CALL FAR through sel at CPL 0; returns the vector (0xff: none). */
static uint32_t call_gate(uint16_t sel)
{
	cg_ptr.off = 0x12345678;                 /* ignored for a gate (SDM Vol.2 CALL) */
	cg_ptr.sel = sel;
	lm_vec = 0xff;
	lm_err = 0xffff;
	cg_k_cs = 0;
	CALL64(cg_call);
	return (uint32_t)lm_vec;
}

static void expect_gate_fault(const char *name, uint16_t sel, uint32_t vec, uint32_t err)
{
	check(name, call_gate(sel), vec);
	check("  error code", (uint32_t)lm_err, err);
	check("  the target did not run", (uint32_t)cg_k_cs, 0);
}

void guest_main(void)
{
	if (!long_mode_supported()) {
		skip_all("CPUID.80000001H:EDX.LM[29] = 0");
	}
	uint32_t cr3 = build_tables();
	struct dtr idt32;
	__asm__ volatile("sidt %0" : "=m"(idt32));
	uint32_t cr4 = read_cr4();
	uint64_t efer0 = rdmsr64(EFER_MSR);
	long_enter(cr4 | CR4_PAE, cr3);
	__asm__ volatile("ltr %w0" :: "r"(TSS64) : "memory");

	/* --- same-level CALL and JMP at CPL 0 --- */
	check("CALL through a 64-bit gate at CPL 0: no fault", call_gate(GATE_K), 0xff);
	check("  CS = the gate's selector", (uint32_t)cg_k_cs, KCS64);
	check("  pushed CS as a quadword", (uint32_t)cg_f1, KCS64);
	check("  pushed CS: bits 63:32 zero", (uint32_t)(cg_f1 >> 32), 0);
	check("  two quadwords pushed on the same stack", (uint32_t)(cg_rsp_before - cg_k_rsp), 16);
	cg_ptr.sel = GATE_JMP;
	lm_vec = 0xff;
	cg_k_cs = 0;
	CALL64(cg_jmp);
	check("JMP through a 64-bit gate: no fault", (uint32_t)lm_vec, 0xff);
	check("  CS = the gate's selector", (uint32_t)cg_k_cs, KCS64);

	/* --- faults (SDM Vol.2 CALL, Protected Mode / 64-Bit Mode Exceptions) --- */
	expect_gate_fault("upper type field 01H -> #GP(gate)", GATE_TYPE, 13, GATE_TYPE);
	expect_gate_fault("16-bit call gate (type 4) in IA-32e mode -> #GP(gate)", GATE_16, 13, GATE_16);
	expect_gate_fault("target is 32-bit code -> #GP(target)", GATE_TO32, 13, SEL_KCODE);
	expect_gate_fault("null target selector -> #GP(0)", GATE_NULL, 13, 0);
	expect_gate_fault("gate not present -> #NP(gate)", GATE_NP, 11, GATE_NP);
	expect_gate_fault("non-canonical target offset -> #GP(0)", GATE_NONC, 13, 0);
	check_quirk("  reported at the CALL (nothing pushed)", (uint32_t)lm_rip,
		    (uint32_t)(uintptr_t)cg_call_insn, "TCG faults at the fetch of the target");
	expect_gate_fault("RPL 3 > gate DPL 0 -> #GP(gate)", GATE_K | 3, 13, GATE_K);

	/* --- CPL 3 -> CPL 0 through a DPL 3 gate, RETF back --- */
	cg_ptr_up.sel = GATE_UP;
	cg_ptr_k.sel = GATE_K;
	cg_ptr_back.sel = GATE_BACK;
	uint32_t ustack = (uint32_t)(uintptr_t)(user_stack + sizeof(user_stack));
	uint32_t rsp0 = (uint32_t)(uintptr_t)(rsp0_stack + sizeof(rsp0_stack));
	cg_user_rsp = ustack;
	lm_vec = 0xff;
	CALL64(cg_user);
	check("CPL 0 entry: CS = gate selector (RPL 0)", (uint32_t)cg_k_cs, KCS64);
	check("CPL 0 entry: SS = null selector with RPL 0 (SDM 5.8.6)", (uint32_t)cg_k_ss, 0);
	check("CPL 0 entry: RSP = TSS.RSP0 - 4 quadwords", (uint32_t)cg_k_rsp, rsp0 - 32);
	check("frame: caller RIP", (uint32_t)cg_f0, (uint32_t)(uintptr_t)cg_user_ret);
	check("frame: caller CS", (uint32_t)cg_f1, UCS64 | 3);
	check("frame: caller RSP", (uint32_t)cg_f2, ustack);
	check("frame: caller SS", (uint32_t)cg_f3, UDS | 3);
	check("RETF to CPL 3: CS", (uint32_t)cg_u_cs, UCS64 | 3);
	check("RETF to CPL 3: SS popped", (uint32_t)cg_u_ss, UDS | 3);
	check("RETF to CPL 3: RSP popped", (uint32_t)cg_u_rsp, ustack);
	check("CPL 3 CALL through a DPL 0 gate -> #GP(gate)", (uint32_t)lm_vec, 13);
	check("  error code", (uint32_t)lm_err, GATE_K);
	check("  reported at the CALL", (uint32_t)lm_rip, (uint32_t)(uintptr_t)cg_user_gp);

	/* Leave IA-32e mode (SDM Vol.3 9.8.5.4) and restore the library's tables. */
	long_leave(&idt32);
	wrmsr64(EFER_MSR, efer0);
	write_cr4(cr4);
	reload_gdt();
	tss_load(0x67);
	tap_finish();
}
