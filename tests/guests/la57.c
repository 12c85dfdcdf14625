/* 5-level paging (CR4.LA57) and 57-bit linear addresses: enabling rules, a
 * 5-level walk ending in 4 KiB, 2 MiB and 1 GiB pages, addresses above 2^47
 * (PML5 index != 0) for data, code and stack, canonical faults under 57 bits,
 * #PF error codes and CR2 for 57-bit addresses, reserved PML5E bits; then
 * 4-level paging on the same processor, where accesses check 48 bits again but
 * FS.base (an MSR holding a linear address) still takes 57.
 * C code runs in protected mode and compatibility mode; the 64-bit routines
 * are in la57_64.S, the IDT stubs in lib/long64.S.
 * Skipped (TAP SKIP) without long mode or CPUID.(EAX=7,ECX=0):ECX.LA57[16]:
 * run with --cpu icelake-lite, or QEMU -cpu max. */
#include "lib/long.h"

#define LM_TSS     0x68   /* 16-byte 64-bit TSS descriptor (entries 13, 14) */
#define CR4_LA57 (1u << 12)

/* PML5 index 256: bits 63:57 = 1 with bit 56 = 1, i.e. 0xff00_0000_0000_0000 up. */
#define HI        0xff00000000000000ull
/* PML5 index 128: 57-bit canonical, not 48-bit canonical. */
#define MID       0x0080000000000000ull
/* Canonical under neither width: bit 56 = 1 with bits 63:57 = 0. */
#define NONCANON  0x0100000000000000ull
/* PML5 indexes 300 and 301 (reserved-bit cases). */
#define RSVD_VA   0xff2c000000000000ull
#define PS_VA     0xff2d000000000000ull

/* la57_64.S */
volatile uint64_t l5_addr, l5_val, l5_saved_rsp;
extern char l5_where[], l5_jmp_insn[];

static uint64_t pml5[512] __attribute__((aligned(4096)));     /* [0]: lm_pml4, the identity GiB */
static uint64_t pml4_hi[512] __attribute__((aligned(4096)));  /* behind PML5[128] and [256] */
static uint64_t pdpt_hi[512] __attribute__((aligned(4096)));
static uint64_t pd_hi[512] __attribute__((aligned(4096)));
static uint64_t pt_hi[512] __attribute__((aligned(4096)));
static volatile uint64_t data_page[512] __attribute__((aligned(4096)));
static uint8_t stack57[4096] __attribute__((aligned(16)));
static uint8_t ist_stack[4096] __attribute__((aligned(16)));

/* The 4 KiB window: pt_hi[0] maps data_page, pt_hi[1] is not present. */
#define VA_1G(p)  (HI + (uint32_t)(uintptr_t)(p))
#define VA_2M(p)  (HI + 0x40000000ull + (uint32_t)(uintptr_t)(p))
#define VA_4K     (HI + 0x40400000ull)

static void build_tables(int gbpages)
{
	pml5[0] = long_identity_map(PG_P | PG_W) | 3;

	/* HI + [0, 1 GiB): one 1 GiB page at physical 0 (the identity PD where
	 * 1 GiB pages are not supported). HI + 1 GiB: a PD of two 2 MiB pages at
	 * physical 0 and a PT. HI + 2 GiB and up: not present. */
	pdpt_hi[0] = gbpages ? 0x83 : ((uint32_t)(uintptr_t)lm_pd | 3);
	pdpt_hi[1] = (uint32_t)(uintptr_t)pd_hi | 3;
	pd_hi[0] = 0x83;
	pd_hi[1] = (2u << 20) | 0x83;
	pd_hi[2] = (uint32_t)(uintptr_t)pt_hi | 3;
	pt_hi[0] = (uint32_t)(uintptr_t)data_page | 3;
	pml4_hi[0] = (uint32_t)(uintptr_t)pdpt_hi | 3;
	pml5[128] = (uint32_t)(uintptr_t)pml4_hi | 3;
	pml5[256] = (uint32_t)(uintptr_t)pml4_hi | 3;
	/* SDM Vol.3 4.5.4, Table 4-15: bits 51:MAXPHYADDR and PS (bit 7) of a
	 * PML5E are reserved. */
	pml5[300] = (uint32_t)(uintptr_t)pml4_hi | 3 | (1ull << 51);
	pml5[301] = (uint32_t)(uintptr_t)pml4_hi | 0x83;

	long_tss_desc(&gdt[LM_TSS >> 3]);
	long_gdt_init();
	lm_tss64[TSS64_IST1] = (uint32_t)(uintptr_t)(ist_stack + sizeof(ist_stack));
	/* #DF, #SS and #GP on IST1: they must not need the (maybe broken) stack. */
	long_idt_init(LM_CS64, (1u << 8) | (1u << 12) | (1u << 13));
}

/* Enter IA-32e mode (compatibility mode) with CR3 = root; LA57 is set, or
 * cleared, before CR0.PG: the only time it may change. */
static void enter_ia32e(uint32_t cr4, void *root)
{
	long_enter(cr4, (uint32_t)(uintptr_t)root);
	/* LTR marks the descriptor busy: make it available again each time. */
	long_tss_desc(&gdt[LM_TSS >> 3]);
	__asm__ volatile("ltr %w0" :: "r"(LM_TSS) : "memory");
}

static void leave_ia32e(struct dtr *idt32)
{
	long_leave(idt32);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) & ~(uint64_t)EFER_LME);
}

static void load64(uint64_t addr)
{
	l5_addr = addr;
	l5_val = 0;
	lm_vec = 0xff;
	CALL64(l5_load);
}

/* A load expected to fault: vector, error code (a TCG deviation if quirk is
 * not NULL) and CR2 (if #PF). */
static void expect_load_fault_q(const char *what, uint64_t addr, uint32_t vec, uint32_t err,
				const char *quirk)
{
	load64(addr);
	gprintf("# %s at 0x%x_%x\n", what, hi32(addr), lo32(addr));
	check(what, (uint32_t)lm_vec, vec);
	if (quirk)
		check_quirk("  error code", (uint32_t)lm_err, err, quirk);
	else
		check("  error code", (uint32_t)lm_err, err);
	if (vec == 14) {
		check("  CR2 bits 63:32", hi32(lm_cr2), hi32(addr));
		check("  CR2 bits 31:0", lo32(lm_cr2), lo32(addr));
	}
}

static void expect_load_fault(const char *what, uint64_t addr, uint32_t vec, uint32_t err)
{
	expect_load_fault_q(what, addr, vec, err, 0);
}

static void five_level_tests(int gbpages)
{
	data_page[0] = 0x0123456789abcdefull;
	data_page[1] = 0x5555aaaa5555aaaaull;

	/* --- a 5-level walk to each page size --- */
	if (gbpages) {
		load64(VA_1G(&data_page[0]));
		check("1 GiB page at 0xff00_0000_0000_0000 (PML5 index 256): no fault", (uint32_t)lm_vec, 0xff);
		check("1 GiB page: the data (low)", lo32(l5_val), 0x89abcdef);
		check("1 GiB page: the data (high)", hi32(l5_val), 0x01234567);
	}
	load64(VA_2M(&data_page[0]));
	check("2 MiB page at 0xff00_0000_4000_0000: no fault", (uint32_t)lm_vec, 0xff);
	check("2 MiB page: the data", lo32(l5_val), 0x89abcdef);
	load64(VA_4K + 8);
	check("4 KiB page at 0xff00_0000_4040_0000: no fault", (uint32_t)lm_vec, 0xff);
	check("4 KiB page: the data", hi32(l5_val), 0x5555aaaa);
	/* SDM Vol.3 4.8: the processor sets A in every paging-structure entry it
	 * uses, the PML5E included. */
	check("PML5E[256].A set by the walk", (uint32_t)pml5[256] & 0x20, 0x20);

	/* A store through the 4 KiB alias reaches the same physical page. */
	l5_addr = VA_4K + 16;
	l5_val = 0xfeedfacecafebeefull;
	lm_vec = 0xff;
	CALL64(l5_store);
	check("store through 0xff00_0000_4040_0010: no fault", (uint32_t)lm_vec, 0xff);
	check("  seen through the identity map", hi32(data_page[2]), 0xfeedface);
	check("PTE D bit set by the store (SDM 4.8)", (uint32_t)pt_hi[0] & 0x60, 0x60);

	/* SDM Vol.1 3.3.7.1 with 57 bits: 0x0080_0000_0000_0000 is canonical. */
	load64(MID + (uint32_t)(uintptr_t)&data_page[1]);
	check("0x0080_0000_xxxx_xxxx (canonical with 57 bits, not 48): no fault", (uint32_t)lm_vec, 0xff);
	check("  the data", hi32(l5_val), 0x5555aaaa);

	/* --- canonical faults with 57 bits (SDM Vol.3 6.15 #GP/#SS) --- */
	expect_load_fault("0x0100_0000_0000_0000 (bit 56 != bit 63) -> #GP(0)", NONCANON, 13, 0);
	expect_load_fault("0xfe00_0000_0000_0000 -> #GP(0)", 0xfe00000000000000ull, 13, 0);
	l5_addr = NONCANON + 0x100;
	lm_vec = 0xff;
	CALL64(l5_load_ss);
	check_quirk("non-canonical access through RBP (SS) -> #SS", (uint32_t)lm_vec, 12,
		    "TCG raises #GP for non-canonical stack references");
	check("  error code 0", (uint32_t)lm_err, 0);
	l5_addr = NONCANON + 0x100;
	lm_vec = 0xff;
	CALL64(l5_push_on);
	check_quirk("PUSH with a non-canonical RSP -> #SS", (uint32_t)lm_vec, 12,
		    "TCG raises #GP for non-canonical stack references");

	/* --- #PF with 57-bit linear addresses (SDM Vol.3 4.7) --- */
	expect_load_fault("read, PDPTE not present at 0xff00_0000_8000_0123 -> #PF", HI + 0x80000123ull, 14, 0);
	l5_addr = HI + 0x80000ff8ull;
	lm_vec = 0xff;
	CALL64(l5_store);
	check("write, PDPTE not present -> #PF", (uint32_t)lm_vec, 14);
	check("  error code W", (uint32_t)lm_err, 2);
	check("  CR2 bits 63:32", hi32(lm_cr2), 0xff000000u);
	expect_load_fault("read, PTE not present at 0xff00_0000_4040_1008 -> #PF", VA_4K + 0x1008, 14, 0);
	expect_load_fault("PML5E not present (index 257) -> #PF", 0xff01000000000000ull, 14, 0);
	/* SDM Vol.3 4.7: a reserved bit in a present entry: P=1 and RSVD=1. */
	expect_load_fault_q("PML5E bit 51 set (reserved) -> #PF P|RSVD", RSVD_VA, 14, 9,
			    "TCG reports RSVD without P for a reserved bit in a paging-structure entry");
	expect_load_fault_q("PML5E PS set (reserved) -> #PF P|RSVD", PS_VA, 14, 9,
			    "TCG reports RSVD without P for a reserved bit in a paging-structure entry");

	/* Removing the PTE and INVLPG of the 57-bit address: the next access walks. */
	uint64_t keep = pt_hi[0];
	pt_hi[0] = 0;
	l5_addr = VA_4K;
	CALL64(l5_invlpg);
	expect_load_fault("after INVLPG of 0xff00_0000_4040_0000: PTE gone -> #PF", VA_4K, 14, 0);
	pt_hi[0] = keep;
	CALL64(l5_invlpg);

	/* --- code at a 57-bit address (RIP loads, SDM Vol.2 JMP) --- */
	uint64_t where = VA_2M(l5_where);
	l5_addr = where;
	l5_val = 0;
	lm_vec = 0xff;
	CALL64(l5_jmp);
	check("JMP to the 0xff00_0000_4xxx_xxxx alias of the code: no fault", (uint32_t)lm_vec, 0xff);
	check("  RIP-relative LEA sees RIP bits 63:32", hi32(l5_val), hi32(where));
	check("  and bits 31:0", lo32(l5_val), lo32(where));
	l5_addr = NONCANON;
	lm_vec = 0xff;
	CALL64(l5_jmp);
	check("JMP to 0x0100_0000_0000_0000 -> #GP(0)", (uint32_t)lm_vec, 13);
	check_quirk("  the #GP reports the JMP, not the target", (uint32_t)lm_rip,
		    (uint32_t)(uintptr_t)l5_jmp_insn, "TCG faults at the fetch of the target");

	/* --- a stack at a 57-bit address: INT3's frame lands there --- */
	uint64_t top = VA_2M(stack57 + sizeof(stack57));
	l5_addr = top;
	lm_vec = 0xff;
	CALL64(l5_int3_on);
	check("INT3 with RSP = 0xff00_0000_4xxx_xxxx: delivered", (uint32_t)lm_vec, 3);
	check("  saved RSP bits 63:32", hi32(lm_rsp), hi32(top));
	check("  handler RSP = RSP - 5 qwords - 2 pushes (bits 31:0)", lo32(lm_hrsp), lo32(top) - 56);
	check("  handler RSP bits 63:32", hi32(lm_hrsp), hi32(top));

	/* --- FS.base with 57 bits (WRMSR; SDM Vol.4 IA32_FS_BASE) --- */
	wrmsr64(MSR_FS_BASE, VA_2M(&data_page[1]));
	check("RDMSR FS_BASE returns the 57-bit base", hi32(rdmsr64(MSR_FS_BASE)), 0xff000000u);
	l5_val = 0;
	lm_vec = 0xff;
	CALL64(l5_load_fs);
	check("FS:0 with FS.base = 0xff00_0000_4xxx_xxxx: no fault", (uint32_t)lm_vec, 0xff);
	check("  the data", hi32(l5_val), 0x5555aaaa);
	lm_vec = 0xff;
	LM_TRY("wrmsr", "c"(MSR_FS_BASE), "a"(0), "d"(0x01000000u) : "memory");
	check_quirk("WRMSR FS_BASE 0x0100_0000_0000_0000 -> #GP(0)", (uint32_t)lm_vec, 13,
		    "TCG does not check the FS base for canonical form");
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_KDATA) : "memory");
}

/* 4-level paging on the LA57 processor: accesses are 48-bit canonical again,
 * FS.base takes 57 bits still (white paper 335252 2.5.2). */
static void four_level_tests(void)
{
	expect_load_fault("4-level: 0x0080_0000_0000_0000 -> #GP(0)", MID, 13, 0);
	expect_load_fault("4-level: 0xff00_0000_0000_0000 -> #GP(0)", HI, 13, 0);
	lm_vec = 0xff;
	LM_TRY("wrmsr", "c"(MSR_FS_BASE), "a"(0x1000), "d"(0xff000000u) : "memory");
	check("4-level: WRMSR FS_BASE 0xff00_0000_0000_1000 allowed (57-bit check)", (uint32_t)lm_vec, 0xff);
	check("  RDMSR FS_BASE bits 63:32", hi32(rdmsr64(MSR_FS_BASE)), 0xff000000u);
	lm_vec = 0xff;
	CALL64(l5_load_fs);
	check("  FS:0 then is not canonical for 4-level paging -> #GP(0)", (uint32_t)lm_vec, 13);
	__asm__ volatile("mov %w0, %%fs" :: "r"(SEL_KDATA) : "memory");
}

void guest_main(void)
{
	uint32_t r[4];
	cpuid(0x80000000u, 0, r);
	uint32_t max_ext = r[0];
	uint32_t lm = 0, gbpages = 0, la57 = 0;
	if (max_ext >= 0x80000001u) {
		cpuid(0x80000001u, 0, r);
		lm = r[3] & (1u << 29);
		gbpages = r[3] & (1u << 26);
	}
	cpuid(0, 0, r);
	if (r[0] >= 7) {
		cpuid(7, 0, r);
		la57 = r[2] & (1u << 16);
	}
	if (!lm || !la57) {
		skip_all("CPUID: no long mode or no LA57 (CPUID.7.0:ECX[16])");
	}
	if (max_ext >= 0x80000008u) {
		cpuid(0x80000008u, 0, r);
		check("CPUID.80000008H:EAX[15:8]: 57 linear-address bits", (r[0] >> 8) & 0xff, 57);
	}
	if (!gbpages)
		note("no 1 GiB pages (CPUID.80000001H:EDX[26] = 0): 2 MiB pages stand in");
	build_tables(gbpages != 0);
	struct dtr idt32;
	__asm__ volatile("sidt %0" : "=m"(idt32));
	uint32_t cr4 = read_cr4();

	/* --- 5-level paging: LA57 set while IA-32e mode is inactive --- */
	write_cr4(cr4 | CR4_PAE | CR4_LA57);
	check("MOV CR4.LA57 = 1 with EFER.LMA = 0 (paging off): accepted", read_cr4() & CR4_LA57, CR4_LA57);
	enter_ia32e(cr4 | CR4_PAE | CR4_LA57, pml5);
	check("IA-32e mode active with 5-level paging (EFER.LMA)", (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, EFER_LMA);

	/* SDM Vol.2 MOV CR: #GP(0) on changing CR4.LA57 while IA-32e mode is active. */
	lm_vec = 0xff;
	CALL64(l5_toggle_la57);
	check("64-bit mode: MOV CR4 clearing LA57 -> #GP(0)", (uint32_t)lm_vec, 13);
	check("  CR4.LA57 still 1", read_cr4() & CR4_LA57, CR4_LA57);
	if (!skip_quirk("compatibility mode: MOV CR4 clearing LA57 -> #GP(0)",
			"TCG checks LA57 changes only in 64-bit mode and loses the guest")) {
		lm_vec = 0xff;
		LM_TRY("mov %0, %%cr4", "r"(read_cr4() & ~CR4_LA57) : "memory");
		check("compatibility mode: MOV CR4 clearing LA57 -> #GP(0)", (uint32_t)lm_vec, 13);
	}

	five_level_tests(gbpages != 0);
	leave_ia32e(&idt32);
	check("leaving IA-32e mode: EFER.LMA = 0", (uint32_t)rdmsr64(EFER_MSR) & EFER_LMA, 0);

	/* --- 4-level paging on the same processor --- */
	write_cr4(cr4 | CR4_PAE);
	check("MOV CR4 clearing LA57 with EFER.LMA = 0: accepted", read_cr4() & CR4_LA57, 0);
	enter_ia32e(cr4 | CR4_PAE, lm_pml4);
	four_level_tests();
	leave_ia32e(&idt32);
	write_cr4(cr4);
	tss_load(0x67);
	tap_finish();
}
