/* Shared declarations for the self-checking multiboot guests.
 * Freestanding 32-bit code: no libc. Every guest defines guest_main(). */
#ifndef GUEST_H
#define GUEST_H

#include <stdint.h>
#include <stdarg.h>

/* ---- fixed GDT layout (lib/desc.c) ---- */
#define SEL_KCODE   0x08  /* flat 32-bit code, DPL0 */
#define SEL_KDATA   0x10  /* flat 32-bit data, DPL0 */
#define SEL_UCODE   0x1b  /* flat 32-bit code, DPL3 (RPL3) */
#define SEL_UDATA   0x23  /* flat 32-bit data, DPL3 (RPL3) */
#define SEL_TSS     0x28  /* 32-bit available TSS */
#define SEL_CODE16  0x30  /* 16-bit code, base 0, limit 0xffff */
#define SEL_DATA16  0x38  /* 16-bit data, base 0, limit 0xffff */
#define GDT_SCRATCH 8     /* entries 8..15 (selectors 0x40..0x78) are free for tests */
#define GDT_ENTRIES 16    /* GDT limit = 16*8-1 = 0x7f */

/* Descriptor access byte pieces (SDM Vol.3 3.4.5, Figure 3-8). */
#define ACC_P       0x80
#define ACC_DPL(n)  ((n) << 5)
#define ACC_S       0x10                 /* code/data (not system) */
#define ACC_DATA_R  0x00                 /* read-only data */
#define ACC_DATA_W  0x02                 /* read/write data */
#define ACC_DATA_ED 0x04                 /* expand-down */
#define ACC_ACCESSED 0x01
#define ACC_CODE    0x08
#define ACC_CODE_R  0x02                 /* readable code */
#define ACC_CODE_C  0x04                 /* conforming code */
/* flags nibble (descriptor bits 55:52) */
#define FL_G        0x8
#define FL_DB       0x4

/* System descriptor / gate types (SDM Vol.3 3.5, Table 3-2). */
#define SYS_LDT       0x2
#define SYS_TSS32     0x9
#define SYS_TSS32_BSY 0xb
#define SYS_CALLGATE  0xc
#define SYS_INTGATE   0xe
#define SYS_TRAPGATE  0xf
#define SYS_TASKGATE  0x5

struct __attribute__((packed)) dtr { uint16_t limit; uint32_t base; };

extern uint64_t gdt[GDT_ENTRIES];
extern uint64_t idt[256];

/* 32-bit TSS (SDM Vol.3 8.2.1, Figure 8-2) followed by the I/O bitmap. */
struct __attribute__((packed)) tss32 {
	uint32_t link, esp0, ss0, esp1, ss1, esp2, ss2, cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint32_t es, cs, ss, ds, fs, gs, ldt;
	uint16_t trap, iomap_base;
	uint8_t  iomap[8192 + 1];   /* SDM 19.5.2: trailing 0xff byte */
};
extern struct tss32 tss;

uint64_t seg_desc(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags);
uint64_t gate_desc(uint16_t sel, uint32_t offset, uint8_t type, uint8_t dpl, uint8_t params);
void desc_init(void);               /* GDT, IDT (generic stubs), TSS, segment reloads */
void tss_load(uint32_t limit);      /* rewrite TSS descriptor with limit, clear busy, LTR */
void set_idt_gate(int vec, uint32_t handler, uint8_t type, uint8_t dpl);
uint32_t trap_stub_addr(int vec);   /* generic recording stub for a vector */
void reload_gdt(void);

/* ---- serial + printing (lib/serial.c) ---- */
void serial_init(void);
void putch(char c);
void gputs(const char *s);
void gprintf(const char *fmt, ...);
void gvprintf(const char *fmt, va_list ap);

/* ---- TAP-style checking (lib/tap.c) ---- */
/* isa-debug-exit values (exit status (V << 1) | 1): every check passed; that
 * many checks failed (capped); nothing was checked, all skipped (status 255,
 * which run-guest.sh reports to meson as SKIP, 77). */
#define GUEST_EXIT_PASSED     0x00
#define GUEST_EXIT_FAILED_MAX 0x7e
#define GUEST_EXIT_SKIPPED    0x7f
void check(const char *name, uint32_t got, uint32_t expected);
void check_true(const char *name, int cond);
/* A table row's 64-bit field: 1 when got == want, else a TAP comment
 * "# row: field got G want W" and 0 (the row's verdict is the caller's). */
int expect_field(const char *row, const char *field, uint64_t got, uint64_t want);
/* A check whose manual value QEMU TCG is known not to produce: reported as a
 * TAP "# TODO" when the runner says so on the multiboot command line
 * (quirk=qemu-tcg), a normal check otherwise. */
void check_quirk(const char *name, uint32_t got, uint32_t expected, const char *why);
/* Returns 1 (and reports a TAP SKIP) when quirk=qemu-tcg is active and the
 * check cannot run there without losing control of the guest. */
int skip_quirk(const char *name, const char *why);
/* Checks that cannot run on this CPU (CPUID lacks a feature): one TAP
 * "ok N - name # SKIP why" line. A run in which every line is a skip checked
 * nothing: tap_finish() then ends it as skipped, never as passed. */
void skip(const char *name, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* The rest of the guest cannot run on this CPU: reports it skipped and ends
 * the run (with "1..0 # SKIP why" when nothing was checked before). */
void skip_all(const char *why_fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void note(const char *fmt, ...);
int quirk_active(const char *q);
/* 1 when word is a whole word of the multiboot command line. */
int cmdline_has(const char *word);
/* 1 when a firmware and QEMU's multiboot option ROM loaded the guest (QEMU's
 * -kernel, hvemu's --firmware: the runner adds firmware=seabios), whose
 * layout differs from hvemu's direct start (the information structure at
 * 9500H, mem_upper from the firmware's E820 map). */
int loaded_by_option_rom(void);
void tap_finish(void) __attribute__((noreturn));
void debug_exit(uint32_t code) __attribute__((noreturn));

/* ---- exception harness (lib/trap.S, lib/trap.c) ---- */
struct trap_frame {
	uint32_t gs, fs, es, ds;
	uint32_t edi, esi, ebp, esp_pusha, ebx, edx, ecx, eax;
	uint32_t vector, error;
	uint32_t eip, cs, eflags;
	uint32_t esp, ss;            /* only valid when the CPL changed */
};
struct trap_record {
	uint32_t vector, error, eip, cs, eflags, esp, ss;
	uint32_t frame_addr;         /* address of the hardware frame (EIP slot) */
	uint32_t has_error;
	uint32_t count;              /* traps recorded since trap_reset() */
};
extern volatile struct trap_record trap_last;
extern volatile uint32_t trap_mark_ip;     /* address of the instruction expected to fault */
typedef void (*trap_fn)(void *arg);
typedef int (*trap_handler)(struct trap_frame *f);   /* return 1 = IRET, 0 = use default */
extern trap_handler trap_handlers[256];

#define NO_FAULT (-1)
#define VEC_USER_RETURN 0x7f   /* INT 0x7f: ring-3 code finished */
/* Run fn(arg); a fault (any vector without its own handler) unwinds here
 * and its vector is returned; NO_FAULT if fn returned normally. */
int trap_catch(trap_fn fn, void *arg);
void trap_reset(void);
void trap_longjmp(int vec) __attribute__((noreturn));
/* Checks that fn faults with vector/error (error ignored if < 0) at trap_mark_ip. */
void expect_fault(const char *name, trap_fn fn, void *arg, int vector, int error);
void expect_no_fault(const char *name, trap_fn fn, void *arg);
/* Emit at the start of an inline-asm block: records the address of the next instruction. */
#define MARK "movl $1f, trap_mark_ip\n1:\t"

/* ---- ring 3 (lib/user.c) ---- */
/* Runs fn(arg) at CPL3 with EFLAGS = 0x2 | eflags; returns the vector of the
 * first fault it raised or NO_FAULT when fn returned. */
int run_user(trap_fn fn, void *arg, uint32_t eflags);
int run_user_catch(const char *name, trap_fn fn, void *arg, uint32_t eflags, int vector, int error);

/* ---- real mode (lib/realmode.S) ---- */
/* Copies the mode-switch trampoline to 0x8000 and far-calls seg:off in
 * real mode (mode 0) or through 16-bit protected-mode selector sel (mode 1).
 * AX = mode on entry to the callee. */
void realmode_call(uint32_t mode, uint32_t seg_or_sel, uint32_t off);
#define TRAMPOLINE_BASE 0x8000

/* ---- misc ---- */
static inline void outb(uint16_t p, uint8_t v) { __asm__ volatile("outb %0,%1" :: "a"(v), "Nd"(p)); }
static inline uint8_t inb(uint16_t p) { uint8_t v; __asm__ volatile("inb %1,%0" : "=a"(v) : "Nd"(p)); return v; }
static inline uint32_t read_eflags(void) { uint32_t f; __asm__ volatile("pushfl; popl %0" : "=r"(f)); return f; }
void *gmemcpy(void *d, const void *s, uint32_t n);
void *gmemset(void *d, int c, uint32_t n);
int gstrncmp(const char *a, const char *b, uint32_t n);
/* Little-endian fields of a saved image at byte offset o (FXSAVE/XSAVE areas). */
static inline uint16_t rd16(const uint8_t *p, unsigned o) { uint16_t v; gmemcpy(&v, p + o, 2); return v; }
static inline uint32_t rd32(const uint8_t *p, unsigned o) { uint32_t v; gmemcpy(&v, p + o, 4); return v; }
static inline void wr32(uint8_t *p, unsigned o, uint32_t v) { gmemcpy(p + o, &v, 4); }
/* 1 if the n bytes at p all equal v. */
static inline int all_bytes(const uint8_t *p, unsigned n, uint8_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

extern const char *mb_cmdline;
void guest_main(void);

/* ---- the Multiboot information (Multiboot 3.3), kept by lib/tap.c ---- */
struct multiboot_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline, mods_count, mods_addr;
	uint32_t syms[4], mmap_length, mmap_addr, drives_length, drives_addr, config_table;
	uint32_t boot_loader_name;
};
struct multiboot_mod { uint32_t start, end, string, reserved; };
/* EBX at entry, or NULL when EAX did not hold the multiboot magic. */
extern const struct multiboot_info *mb_info;

#endif
