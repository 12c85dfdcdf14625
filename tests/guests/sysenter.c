/* SYSENTER/SYSEXIT (SDM Vol.2 SYSENTER, SYSEXIT; Vol.3 5.8.7): MSRs
 * IA32_SYSENTER_CS/ESP/EIP (174H-176H), #GP(0) when SYSENTER_CS[15:2] = 0,
 * and the fixed flat CS/SS the instructions load without reading the GDT. */
#include "lib/guest.h"

#define MSR_CS  0x174
#define MSR_ESP 0x175
#define MSR_EIP 0x176
#define IF_ 0x200

static void wrmsr(uint32_t msr, uint32_t v) { __asm__ volatile("wrmsr" :: "c"(msr), "a"(v), "d"(0)); }
static uint32_t rdmsr(uint32_t msr) { uint32_t a, d; __asm__ volatile("rdmsr" : "=a"(a), "=d"(d) : "c"(msr)); return a; }

static uint8_t sysenter_stack[1024] __attribute__((aligned(16)));
uint32_t k_cs, k_ss, k_esp, k_eflags, k_cs_read, k_ss_read;
uint32_t u_cs, u_ss, u_esp_before, u_esp_after;
uint32_t probe_word = 0xc0ffee11;

/* Kernel side: record what SYSENTER loaded, then SYSEXIT with ECX/EDX intact.
 * The %cs: and %ss: reads would hit base 0x1000 if the GDT descriptors at
 * the MSR selector were (wrongly) used. */
void sysenter_entry(void);
__asm__(".text\nsysenter_entry:\n\t"
	"mov %cs, %eax\n\tmov %eax, %ss:k_cs\n\t"
	"mov %ss, %eax\n\tmov %eax, %ss:k_ss\n\t"
	"mov %esp, %ss:k_esp\n\t"
	"pushfl\n\tpopl %ss:k_eflags\n\t"
	"mov %cs:probe_word, %eax\n\tmov %eax, %ss:k_cs_read\n\t"
	"mov %ss:probe_word, %eax\n\tmov %eax, %ss:k_ss_read\n\t"
	"sysexit\n");

static void u_sysenter(void *p)
{
	(void)p;
	__asm__ volatile("mov %%esp, u_esp_before\n\t"
			 "mov %%esp, %%ecx\n\tmov $2f, %%edx\n\t"
			 "sysenter\n2:\t"
			 "mov %%esp, u_esp_after\n\t"
			 "mov %%cs, %%eax\n\tmov %%eax, u_cs\n\t"
			 "mov %%ss, %%eax\n\tmov %%eax, u_ss" ::: "eax", "ecx", "edx", "memory");
}
static void k_sysenter(void *p) { (void)p; __asm__ volatile(MARK "sysenter"); }
static void u_sysenter_mark(void *p) { (void)p; __asm__ volatile(MARK "sysenter"); }
static void k_sysexit(void *p) { (void)p; __asm__ volatile(MARK "sysexit" :: "c"(0), "d"(0)); }
static void u_sysexit(void *p) { (void)p; __asm__ volatile(MARK "sysexit" :: "c"(0), "d"(0)); }

void guest_main(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	check("CPUID.1:EDX.SEP (bit 11)", (d >> 11) & 1, 1);

	wrmsr(MSR_CS, 0);
	expect_fault("SYSENTER with SYSENTER_CS = 0 -> #GP(0) (CPL0)", k_sysenter, 0, 13, 0);
	run_user_catch("SYSENTER with SYSENTER_CS = 0 -> #GP(0) (CPL3)", u_sysenter_mark, 0, 0, 13, 0);
	expect_fault("SYSEXIT with SYSENTER_CS = 0 -> #GP(0)", k_sysexit, 0, 13, 0);

	/* Entries 0x08.. are flat; make 0x40/0x48 deliberately non-flat and
	 * point SYSENTER_CS at 0x40: SYSENTER must still load base 0 / 4 GiB. */
	gdt[8] = seg_desc(0x1000, 0xfff, ACC_P | ACC_S | ACC_CODE | ACC_CODE_R, FL_DB);
	gdt[9] = seg_desc(0x1000, 0xfff, ACC_P | ACC_S | ACC_DATA_W, FL_DB);
	/* SYSEXIT uses CS+16 / CS+24 with RPL 3: 0x50|3 and 0x58|3 here. */
	gdt[10] = seg_desc(0x1000, 0xfff, ACC_P | ACC_DPL(3) | ACC_S | ACC_CODE | ACC_CODE_R, FL_DB);
	gdt[11] = seg_desc(0x1000, 0xfff, ACC_P | ACC_DPL(3) | ACC_S | ACC_DATA_W, FL_DB);
	/* The RPL bits of SYSENTER_CS are ignored (CS = MSR & FFFCH). */
	wrmsr(MSR_CS, 0x42);
	wrmsr(MSR_ESP, (uint32_t)(uintptr_t)(sysenter_stack + sizeof(sysenter_stack)));
	wrmsr(MSR_EIP, (uint32_t)(uintptr_t)sysenter_entry);
	check("RDMSR SYSENTER_CS reads back", rdmsr(MSR_CS), 0x42);
	check("RDMSR SYSENTER_ESP reads back", rdmsr(MSR_ESP), (uint32_t)(uintptr_t)(sysenter_stack + sizeof(sysenter_stack)));
	check("RDMSR SYSENTER_EIP reads back", rdmsr(MSR_EIP), (uint32_t)(uintptr_t)sysenter_entry);

	run_user_catch("CPL3 SYSENTER -> CPL0 -> SYSEXIT -> CPL3", u_sysenter, 0, IF_, NO_FAULT, -1);
	check("SYSENTER CS = SYSENTER_CS & FFFCH", k_cs & 0xffff, 0x40);
	check("SYSENTER SS = SYSENTER_CS + 8", k_ss & 0xffff, 0x48);
	check("SYSENTER ESP = SYSENTER_ESP", k_esp, (uint32_t)(uintptr_t)(sysenter_stack + sizeof(sysenter_stack)));
	check("SYSENTER clears IF", k_eflags & IF_, 0);
	check("SYSENTER CS is flat (base 0), not from the GDT", k_cs_read, 0xc0ffee11);
	check("SYSENTER SS is flat (base 0), not from the GDT", k_ss_read, 0xc0ffee11);
	check("SYSEXIT CS = SYSENTER_CS + 16 | 3", u_cs & 0xffff, 0x53);
	check("SYSEXIT SS = SYSENTER_CS + 24 | 3", u_ss & 0xffff, 0x5b);
	check("SYSEXIT ESP = ECX", u_esp_after, u_esp_before);

	run_user_catch("SYSEXIT at CPL3 -> #GP(0)", u_sysexit, 0, 0, 13, 0);
	wrmsr(MSR_CS, 0);
}
