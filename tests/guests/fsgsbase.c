/* RDFSBASE, RDGSBASE, WRFSBASE, WRGSBASE (SDM Vol.2): #UD without CR4.FSGSBASE
 * and outside 64-bit mode, the written base used by FS: accesses and seen by
 * RDMSR, 32-bit forms zero-extending, canonical #GP(0) for the 64-bit write
 * (57 bits on a processor with LA57: white paper 335252 2.5.2), SWAPGS and MOV FS
 * against the bases. C code runs in compatibility mode; the 64-bit routines are
 * in fsgsbase_64.S, the IDT stubs in lib/long64.S. Skipped (TAP SKIP) without long
 * mode or CPUID.(EAX=7,ECX=0):EBX.FSGSBASE[0]: run with --cpu skylake-lite,
 * icelake-lite or epyc-lite, or QEMU -cpu max. */
#include "lib/long.h"

#define CR4_FSGSBASE (1u << 16)

/* fsgsbase_64.S */
volatile uint64_t fg_in, fg_out, fg_out2;

static volatile uint64_t cells[4] __attribute__((aligned(16)));

static void run(const char *name, void (*fn)(void), uint32_t want_vec)
{
	lm_vec = 0xff;
	fn();
	check(name, (uint32_t)lm_vec, want_vec);
}

static void call_rdfs(void) { CALL64(fg_rdfs); }
static void call_rdgs(void) { CALL64(fg_rdgs); }
static void call_wrfs(void) { CALL64(fg_wrfs); }
static void call_wrfs32(void) { CALL64(fg_wrfs32); }
static void call_wrgs(void) { CALL64(fg_wrgs); }

void guest_main(void)
{
	uint32_t r[4];
	uint32_t lm = long_mode_supported(), fsgsbase = 0, la57 = 0;
	cpuid(0, 0, r);
	if (r[0] >= 7) {
		cpuid(7, 0, r);
		fsgsbase = r[1] & 1;
		la57 = r[2] & (1u << 16);
	}
	if (!lm || !fsgsbase) {
		skip_all("CPUID: no long mode or no FSGSBASE (CPUID.7.0:EBX[0])");
	}

	/* Identity map of the first GiB, 64-bit code segment, 64-bit IDT. */
	uint32_t cr3 = long_identity_map(PG_P | PG_W);
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	struct dtr idt32;
	__asm__ volatile("sidt %0" : "=m"(idt32));
	uint32_t cr4 = read_cr4();
	uint64_t efer0 = rdmsr64(EFER_MSR);
	long_enter(cr4 | CR4_PAE, cr3);

	/* --- CR4.FSGSBASE = 0: #UD --- */
	run("CR4.FSGSBASE = 0: RDFSBASE -> #UD", call_rdfs, 6);
	run("CR4.FSGSBASE = 0: WRGSBASE -> #UD", call_wrgs, 6);
	write_cr4(read_cr4() | CR4_FSGSBASE);
	check("CR4.FSGSBASE can be set (CPUID.7.0:EBX[0] = 1)", read_cr4() & CR4_FSGSBASE, CR4_FSGSBASE);
	/* Compatibility mode: #UD (SDM Vol.2 RDFSBASE, Compatibility Mode Exceptions). */
	lm_vec = 0xff;
	LM_TRY(".byte 0xf3, 0x0f, 0xae, 0xc0", "c"(0) : "eax", "memory");  /* rdfsbase eax */
	check("compatibility mode: RDFSBASE -> #UD", (uint32_t)lm_vec, 6);

	/* --- WRFSBASE sets the base FS: accesses use --- */
	cells[0] = 0x1122334455667788ull;
	cells[1] = 0x99aabbccddeeff00ull;
	fg_in = (uint32_t)(uintptr_t)&cells[1];
	run("WRFSBASE r9 (64-bit): no fault", call_wrfs, 0xff);
	check("  FS:0 reads at the new base", hi32(fg_out), 0x99aabbcc);
	check("  RDMSR IA32_FS_BASE sees it", lo32(rdmsr64(MSR_FS_BASE)), (uint32_t)(uintptr_t)&cells[1]);
	wrmsr64(MSR_FS_BASE, 0xffff800000000000ull | 0x1234);
	run("RDFSBASE after WRMSR FS_BASE: no fault", call_rdfs, 0xff);
	check("  64-bit form: bits 63:32", hi32(fg_out), 0xffff8000u);
	check("  64-bit form: bits 31:0", lo32(fg_out), 0x1234);
	check("  32-bit form: base[31:0]", lo32(fg_out2), 0x1234);
	check("  32-bit form: RAX bits 63:32 zeroed", hi32(fg_out2), 0);

	/* 32-bit WRFSBASE: the base is the zero-extended EAX. */
	fg_in = 0xffffffff00000000ull | (uint32_t)(uintptr_t)&cells[0];
	run("WRFSBASE eax: no fault", call_wrfs32, 0xff);
	check("  IA32_FS_BASE bits 63:32 = 0", hi32(rdmsr64(MSR_FS_BASE)), 0);
	check("  IA32_FS_BASE bits 31:0 = EAX", lo32(rdmsr64(MSR_FS_BASE)), (uint32_t)(uintptr_t)&cells[0]);

	/* --- canonical checks on the 64-bit write --- */
	fg_in = 0x0000800000000000ull;
	lm_vec = 0xff;
	CALL64(fg_wrgs);
	if (la57)
		check("WRGSBASE 0x0000_8000_0000_0000 on an LA57 processor: allowed (57 bits)",
		      (uint32_t)lm_vec, 0xff);
	else
		check_quirk("WRGSBASE 0x0000_8000_0000_0000 -> #GP(0)", (uint32_t)lm_vec, 13,
			    "TCG does not check the written base for canonical form");
	wrmsr64(MSR_GS_BASE, 0x5000);
	fg_in = 0x0100000000000000ull;
	lm_vec = 0xff;
	CALL64(fg_wrgs);
	check_quirk("WRGSBASE 0x0100_0000_0000_0000 -> #GP(0)", (uint32_t)lm_vec, 13,
		    "TCG does not check the written base for canonical form");
	check_quirk("  GS.base unchanged", lo32(rdmsr64(MSR_GS_BASE)), 0x5000,
		    "TCG does not check the written base for canonical form");

	/* --- WRGSBASE and SWAPGS --- */
	fg_in = 0xffff8000abcd0000ull;
	run("WRGSBASE r10: no fault", call_wrgs, 0xff);
	run("RDGSBASE rcx: no fault", call_rdgs, 0xff);
	check("  RDGSBASE returns it", hi32(fg_out), 0xffff8000u);
	wrmsr64(MSR_KERNEL_GS_BASE, 0x7777000);
	CALL64(fg_swapgs_rd);
	check("SWAPGS then RDGSBASE: IA32_KERNEL_GS_BASE", lo32(fg_out), 0x7777000);
	check("  and back: GS.base kept", hi32(rdmsr64(MSR_GS_BASE)), 0xffff8000u);

	/* MOV FS in 64-bit mode: base from the descriptor (flat data: 0). */
	fg_in = 0x4000;
	CALL64(fg_wrfs);
	CALL64(fg_movfs);
	check("MOV FS, selector in 64-bit mode: RDFSBASE = descriptor base 0", lo32(fg_out), 0);

	/* CR4.FSGSBASE cleared again: #UD. */
	write_cr4(read_cr4() & ~CR4_FSGSBASE);
	run("CR4.FSGSBASE cleared: RDGSBASE -> #UD", call_rdgs, 6);

	/* Leave IA-32e mode (SDM Vol.3 9.8.5.4). */
	long_leave(&idt32);
	wrmsr64(EFER_MSR, efer0);
	write_cr4(cr4);
	__asm__ volatile("mov %w0, %%fs\n\tmov %w0, %%gs" :: "r"(SEL_KDATA) : "memory");
	tap_finish();
}
