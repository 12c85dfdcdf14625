/* The runner guest of svm_exit_diff: an L1 hypervisor that replays a batch
 * of svm_exit_fuzz inputs (fuzz/svm_exit_batch.h, a multiboot module) on the
 * processor it runs on, QEMU's nested SVM or hvemu's, and streams each exit
 * record to the debug console (port 402h).
 *
 * It rebuilds, below 2 MiB, the L2 world of the fuzzer's machine
 * (fuzz/svm_exit_machine.c) from the pages the batch carries, so that the
 * L2 finds the same bytes at the same addresses as under the in-process
 * model: the GDT, IDTs, page tables and handlers of the L2, the VMCB at
 * 5000h, the maps at 8000h/A000h, the code at 20000h. The runner itself is
 * linked at 16 MiB (runner.ld), out of the L2's reach. For each input it
 * writes the input's bytes, VMRUNs, records the VMCB, and puts back every
 * page the input or the L2 may have written.
 *
 * What the fuzzer's L1 (a bare `VMRUN; HLT`) has and a real one needs:
 *   - a hang guard: the in-process run stops at 4096 instructions, QEMU
 *     would run a halted or looping L2 for ever. The runner intercepts INTR
 *     with V_INTR_MASKING set (APM2 15.21.1: the host's RFLAGS.IF then masks
 *     physical interrupts, the guest's only virtual ones) and arms the local
 *     APIC timer before VMRUN, so a guest that neither exits nor stops in
 *     time leaves through #VMEXIT(INTR). Both bits are the runner's: the
 *     driver gives the oracle the input's VMCB without them. Shutdown is
 *     intercepted too: an L2's triple fault, which ends the fuzzer's run,
 *     would end the batch.
 *   - the state VMRUN does not switch (APM2 15.5.2: FS, GS, TR, LDTR and
 *     the MSRs of VMLOAD/VMSAVE, DR0-DR3): the L2 runs with the host's, as
 *     under the fuzzer's L1, and what an L2 changed there is put back before
 *     the next input.
 *   - GPRs: VMRUN switches only RAX, RSP, RIP; the others are 0 at VMRUN,
 *     as the fuzzer's snapshot has them.
 */
#include <stddef.h>

#include "lib/guest.h"

#include "fuzz/svm_exit_batch.h"

#define VMCB_PA 0x5000u            /* fuzz/svm_exit_fuzz.h */
#define APIC 0xfee00000u
#define APIC_EOI 0x0b0u
#define APIC_SVR 0x0f0u
#define APIC_LVT_TIMER 0x320u
#define APIC_TIMER_INIT 0x380u
#define APIC_TIMER_DIV 0x3e0u
#define VEC_GUARD 0x30
#define VEC_SPURIOUS 0xff
#define DEBUGCON 0x402

/* The pages an L2 of the fuzzer writes whatever the hints say: page 0, the
 * 16-bit string scratch (E000h), the L2 GDT (LTR's busy bit), the stack
 * pages around 30000h, the data page and the hole after it, the page past
 * the hole (SETSP), 4 MiB (a store without paging); the VMCB is always
 * written (the #VMEXIT). And those the periodic check found QEMU writing
 * where hvemu's model does not (1000h, 7000h, D000h, F000h: 16-bit frames
 * and LGDT/LIDT-moved tables). */
static const uint32_t always_restore[] = {
	0x0, 0x1000, VMCB_PA, 0x7000, 0xd000, 0xe000, 0xf000, 0x10000, 0x2f000, 0x30000, 0x7e000, 0x7f000,
	0x80000, 0x400000,
};

static const uint8_t *pristine[SXB_WORLD_TOP / SXB_PAGE];   /* NULL: a page of zeros */
static uint8_t read_only[SXB_WORLD_TOP / SXB_PAGE];          /* pages that are not RAM */
static uint8_t hsave[4096] __attribute__((aligned(4096)));
static struct sxb_record rec;
static int has_sysenter, has_syscall;       /* CPUID: the MSRs restore_host() resets */

static inline void apic_write(uint32_t reg, uint32_t v)
{
	*(volatile uint32_t *)(uintptr_t)(APIC + reg) = v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0));
}

/* The debug console: rep outsb (one exit per byte under a VMM, none under
 * TCG's helpers). */
static void out_bytes(const void *p, uint32_t n)
{
	__asm__ volatile("cld; rep outsb" : "+S"(p), "+c"(n) : "d"((uint16_t)DEBUGCON) : "memory");
}

/* The guard's interrupt: end of interrupt, nothing else (the #VMEXIT has
 * already said what it had to). */
__asm__(".text\n"
	".globl guard_isr, spurious_isr\n"
	"guard_isr:\n"
	"	movl $0, 0xfee000b0\n"
	"	iret\n"
	"spurious_isr:\n"
	"	iret\n");
void guard_isr(void);
void spurious_isr(void);

/* VMRUN with every GPR but EAX (the VMCB) and ESP zero, as the fuzzer's L1
 * has them; the callee-saved registers come back from the stack, which
 * #VMEXIT restores (APM2 15.6: host RSP from the save area). */
__asm__(".text\n"
	".globl runner_vmrun\n"
	"runner_vmrun:\n"
	"	push %ebp\n"
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov 20(%esp), %eax\n"
	"	xor %ebx, %ebx\n"
	"	xor %ecx, %ecx\n"
	"	xor %edx, %edx\n"
	"	xor %esi, %esi\n"
	"	xor %edi, %edi\n"
	"	xor %ebp, %ebp\n"
	"	vmrun\n"
	"	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	pop %ebp\n"
	"	ret\n");
void runner_vmrun(uint32_t vmcb_pa);

/* Pages are copied, cleared and compared with string instructions: one
 * instruction a page for the emulators, where the guest library's byte
 * loops cost most of an input. */
static void copy_page(void *dst, const void *src)
{
	uint32_t n = SXB_PAGE / 4;
	__asm__ volatile("cld; rep movsl" : "+D"(dst), "+S"(src), "+c"(n) :: "memory");
}

static void zero_page(void *dst)
{
	uint32_t n = SXB_PAGE / 4;
	__asm__ volatile("cld; rep stosl" : "+D"(dst), "+c"(n) : "a"(0) : "memory");
}

static int page_equal(const void *a, const void *b)
{
	uint32_t n = SXB_PAGE / 4;
	uint8_t differ;
	__asm__ volatile("cld; repe cmpsl; setne %3" : "+S"(a), "+D"(b), "+c"(n), "=q"(differ) :: "memory", "cc");
	return !differ;
}

static const uint8_t zeros[SXB_PAGE] __attribute__((aligned(4)));

static void restore_page(uint32_t pa)
{
	pa &= ~(SXB_PAGE - 1);
	const uint8_t *src = pa < SXB_WORLD_TOP ? pristine[pa / SXB_PAGE] : NULL;
	if (src)
		copy_page((void *)(uintptr_t)pa, src);
	else
		zero_page((void *)(uintptr_t)pa);
}

static void apic_init(void)
{
	apic_write(APIC_SVR, 0x100 | VEC_SPURIOUS);
	apic_write(APIC_TIMER_DIV, 0xb);               /* divide by 1 */
	apic_write(APIC_LVT_TIMER, VEC_GUARD);         /* one-shot */
	apic_write(APIC_TIMER_INIT, 0);
}

/* Put back what VMRUN does not switch and an L2 may have changed (APM2
 * 15.5.2): the segments VMLOAD would load, DR0-DR3, the MSRs the fuzzer's
 * WRMSR templates reach (SYSENTER, STAR), the APIC's base. */
static void restore_host(uint64_t apic_base)
{
	__asm__ volatile("mov %0, %%fs\n\tmov %0, %%gs" :: "r"(SEL_KDATA));
	__asm__ volatile("lldt %w0" :: "r"(0));
	uint16_t tr;
	__asm__ volatile("str %0" : "=r"(tr));
	if (tr != SEL_TSS)
		tss_load(sizeof(struct tss32) - 1);
	uint32_t zero = 0;
	__asm__ volatile("mov %0, %%dr0\n\tmov %0, %%dr1\n\tmov %0, %%dr2\n\tmov %0, %%dr3" :: "r"(zero));
	/* Only those the CPU has: SYSENTER with CPUID Fn0000_0001_EDX[11]
	 * (SEP), STAR with Fn8000_0001_EDX[11] (SYSCALL). */
	if (has_sysenter) {
		wrmsr(0x174, 0);
		wrmsr(0x175, 0);
		wrmsr(0x176, 0);
	}
	if (has_syscall)
		wrmsr(0xc0000081u, 0);
	if (rdmsr(0x1b) != apic_base) {
		wrmsr(0x1b, apic_base);
		apic_init();
	}
}

/* One VMRUN of the VMCB at VMCB_PA with the guard armed for count ticks. */
static void run_guarded(uint32_t count)
{
	volatile uint32_t *icpt_misc1 = (volatile uint32_t *)(uintptr_t)(VMCB_PA + 0x00c);
	volatile uint32_t *vintr_hi = (volatile uint32_t *)(uintptr_t)(VMCB_PA + 0x060);
	*icpt_misc1 |= 1u | 1u << 31;      /* INTR, shutdown (Table B-1, vector 3 bits 0, 31) */
	*vintr_hi |= 1u << 24;             /* V_INTR_MASKING (15.21.1) */
	apic_write(APIC_TIMER_INIT, count);
	runner_vmrun(VMCB_PA);
	apic_write(APIC_TIMER_INIT, 0);
	/* #VMEXIT left GIF = 0: a guard interrupt that came is taken (and
	 * acknowledged) at STGI. */
	__asm__ volatile("stgi" ::: "memory");
}

static uint64_t vmcb_u64(uint32_t off)
{
	uint64_t v;
	gmemcpy(&v, (const void *)(uintptr_t)(VMCB_PA + off), 8);
	return v;
}

/* After #VMEXIT(INTR): did the guard catch the guest in a HLT? (The byte
 * before the saved rIP, through CS, below the world's top.) */
static int stopped_after_hlt(void)
{
	uint64_t rip = vmcb_u64(0x578), cs_base = vmcb_u64(0x418);
	uint32_t at = (uint32_t)(cs_base + rip - 1);
	return at < SXB_WORLD_TOP && *(const uint8_t *)(uintptr_t)at == 0xf4;
}

void guest_main(void)
{
	if (!mb_info || !(mb_info->flags & 8) || mb_info->mods_count < 1) {
		gprintf("svm_exit_runner: no batch module\n");
		debug_exit(3);
	}
	const struct multiboot_mod *mod = (const struct multiboot_mod *)(uintptr_t)mb_info->mods_addr;
	const uint8_t *batch = (const uint8_t *)(uintptr_t)mod->start, *batch_end = (const uint8_t *)(uintptr_t)mod->end;
	const struct sxb_header *h = (const struct sxb_header *)batch;
	if ((uint32_t)(batch_end - batch) < sizeof(*h) || h->magic != SXB_MAGIC || mod->start < 0x1000000u) {
		gprintf("svm_exit_runner: the module is not a batch above 16 MiB\n");
		debug_exit(3);
	}

	/* SVM (APM2 15.4): CPUID Fn8000_0001_ECX[2], EFER.SVME, VM_HSAVE_PA. */
	uint32_t r[4];
	struct sxb_out_header oh = { .magic = SXB_OUT_MAGIC, .n_inputs = h->n_inputs };
	cpuid(1, r);
	oh.cpuid1_ecx = r[2], oh.cpuid1_edx = r[3];
	has_sysenter = (r[3] >> 11) & 1;
	cpuid(7, r);
	oh.cpuid7_ebx = r[1], oh.cpuid7_ecx = r[2];
	cpuid(0x80000000u, r);
	uint32_t max_ext = r[0];
	cpuid(0x80000001u, r);
	oh.cpuid81_ecx = r[2], oh.cpuid81_edx = r[3];
	has_syscall = (r[3] >> 11) & 1;
	if (!(r[2] & 4) || max_ext < 0x8000000au) {
		gprintf("svm_exit_runner: no SVM (CPUID Fn8000_0001_ECX[2])\n");
		debug_exit(GUEST_EXIT_SKIPPED);
	}
	cpuid(0x80000008u, r);
	oh.cpuid88_eax = r[0];
	cpuid(0x8000000au, r);
	oh.svm_edx = r[3];
	wrmsr(0xc0000080u, rdmsr(0xc0000080u) | (1u << 12));
	wrmsr(0xc0010117u, (uint32_t)(uintptr_t)hsave);

	/* The world: zeros, then the batch's pages; remember them as the
	 * pristine copies the restores read. */
	const uint8_t *p = batch + sizeof(*h);
	for (uint32_t pa = 0; pa < SXB_WORLD_TOP; pa += SXB_PAGE)
		zero_page((void *)(uintptr_t)pa);
	restore_page(0x400000);
	for (uint32_t i = 0; i < h->n_pages; i++, p += 4 + SXB_PAGE) {
		uint32_t pa = *(const uint32_t *)p;
		if (pa >= SXB_WORLD_TOP || (pa & (SXB_PAGE - 1)) || p + 4 + SXB_PAGE > batch_end) {
			gprintf("svm_exit_runner: bad page %x\n", pa);
			debug_exit(3);
		}
		pristine[pa / SXB_PAGE] = p + 4;
		restore_page(pa);
	}

	/* The guard. */
	set_idt_gate(VEC_GUARD, (uint32_t)(uintptr_t)guard_isr, SYS_INTGATE, 0);
	set_idt_gate(VEC_SPURIOUS, (uint32_t)(uintptr_t)spurious_isr, SYS_INTGATE, 0);
	uint64_t apic_base = (rdmsr(0x1b) & ~0xfffull) | 0x900;   /* BSP, enabled */
	wrmsr(0x1b, apic_base);
	apic_init();
	__asm__ volatile("sti");
	restore_host(apic_base);

	out_bytes(&oh, sizeof(oh));
	uint32_t n = 0, since_check = 0, first_unchecked = 0;
	for (; n < h->n_inputs; n++) {
		const struct sxb_input *in = (const struct sxb_input *)p;
		if (p + sizeof(*in) > batch_end || in->size < sizeof(*in) || p + in->size > batch_end) {
			gprintf("svm_exit_runner: input %u runs past the batch\n", n);
			debug_exit(3);
		}
		const uint32_t *dirty = (const uint32_t *)(in + 1);
		const uint8_t *w = (const uint8_t *)(dirty + in->n_dirty);
		for (uint32_t k = 0; k < in->n_dirty; k++) {
			if (dirty[k] >= SXB_WORLD_TOP || (const uint8_t *)(dirty + k + 1) > p + in->size) {
				gprintf("svm_exit_runner: input %u names a page outside the world\n", n);
				debug_exit(3);
			}
		}
		const uint8_t *writes = w;
		for (uint32_t k = 0; k < in->n_writes; k++) {
			const struct sxb_write *wr = (const struct sxb_write *)w;
			if (w + sizeof(*wr) > p + in->size || wr->len > (uint32_t)(p + in->size - w - sizeof(*wr)) ||
			    wr->pa >= SXB_WORLD_TOP || wr->len > SXB_WORLD_TOP - wr->pa) {
				gprintf("svm_exit_runner: input %u writes outside the world\n", n);
				debug_exit(3);
			}
			gmemcpy((void *)(uintptr_t)wr->pa, wr + 1, wr->len);
			w += sizeof(*wr) + ((wr->len + 3) & ~3u);
		}

		/* The guard fires on a halted guest (the common case: not
		 * retried) and on one still running, which may be a loaded
		 * host's doing: that one runs again with a longer guard. */
		rec = (struct sxb_record){ .magic = SXB_RECORD_MAGIC, .index = in->index };
		run_guarded(h->timeout);
		if (vmcb_u64(0x070) == 0x60 && !stopped_after_hlt()) {
			rec.flags |= SXR_RETRIED;
			/* The same input again: its bytes, the world under it. */
			for (uint32_t k = 0; k < sizeof(always_restore) / sizeof(always_restore[0]); k++)
				restore_page(always_restore[k]);
			for (uint32_t k = 0; k < in->n_dirty; k++)
				restore_page(dirty[k]);
			w = writes;
			for (uint32_t k = 0; k < in->n_writes; k++) {
				const struct sxb_write *wr = (const struct sxb_write *)w;
				gmemcpy((void *)(uintptr_t)wr->pa, wr + 1, wr->len);
				w += sizeof(*wr) + ((wr->len + 3) & ~3u);
			}
			restore_host(apic_base);
			run_guarded(h->timeout * 16);
		}
		if (vmcb_u64(0x070) == 0x60) {
			rec.flags |= SXR_INTR;
			if (stopped_after_hlt())
				rec.flags |= SXR_HALTED;
		}
		gmemcpy(rec.control, (const void *)(uintptr_t)VMCB_PA, SXR_CONTROL_BYTES);
		gmemcpy(rec.save, (const void *)(uintptr_t)(VMCB_PA + SXR_SAVE_OFFSET), SXR_SAVE_BYTES);
		out_bytes(&rec, sizeof(rec));

		/* Put back: the input's writes, the hinted pages, the usual ones. */
		w = writes;
		for (uint32_t k = 0; k < in->n_writes; k++) {
			const struct sxb_write *wr = (const struct sxb_write *)w;
			for (uint32_t pa = wr->pa & ~(SXB_PAGE - 1); pa < wr->pa + wr->len; pa += SXB_PAGE)
				restore_page(pa);
			w += sizeof(*wr) + ((wr->len + 3) & ~3u);
		}
		for (uint32_t k = 0; k < in->n_dirty; k++)
			restore_page(dirty[k]);
		for (uint32_t k = 0; k < sizeof(always_restore) / sizeof(always_restore[0]); k++)
			restore_page(always_restore[k]);
		restore_host(apic_base);
		p += in->size;

		/* Now and then, the whole world against its pristine pages: a
		 * page the restores missed is reported and put back. */
		if (h->check_every && ++since_check == h->check_every) {
			for (uint32_t pa = 0; pa < SXB_WORLD_TOP; pa += SXB_PAGE) {
				const uint8_t *src = pristine[pa / SXB_PAGE];
				const uint8_t *at = (const uint8_t *)(uintptr_t)pa;
				if (read_only[pa / SXB_PAGE] || page_equal(at, src ? src : zeros))
					continue;
				struct sxb_stray s = { SXB_STRAY_MAGIC, pa, first_unchecked, in->index };
				restore_page(pa);
				/* A page the restore cannot put back is not RAM
				 * (QEMU's BIOS ROM at F0000h): said once, then
				 * left out. */
				if (!page_equal(at, src ? src : zeros)) {
					read_only[pa / SXB_PAGE] = 1;
					s.first_index = s.last_index = SXB_STRAY_READ_ONLY;
				}
				out_bytes(&s, sizeof(s));
			}
			since_check = 0;
			first_unchecked = in->index + 1;
		}
	}
	struct sxb_trailer t = { SXB_END_MAGIC, n };
	out_bytes(&t, sizeof(t));
	debug_exit(0);
}
