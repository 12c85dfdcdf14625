/* Exception recording and dispatch for the harness in trap.S. */
#include "guest.h"

extern char trap_stubs[];
extern volatile uint32_t catch_armed;
volatile struct trap_record trap_last;
volatile uint32_t trap_mark_ip;
trap_handler trap_handlers[256];

uint32_t trap_stub_addr(int vec)
{
	return (uint32_t)(uintptr_t)trap_stubs + 16u * (uint32_t)vec;
}

void trap_reset(void)
{
	gmemset((void *)&trap_last, 0, sizeof(trap_last));
	trap_last.vector = 0xffffffff;
	trap_mark_ip = 0;
}

void trap_dispatch(struct trap_frame *f);
void trap_dispatch(struct trap_frame *f)
{
	uint32_t v = f->vector & 0xff;
	trap_last.vector = v;
	trap_last.error = f->error;
	trap_last.eip = f->eip;
	trap_last.cs = f->cs & 0xffff;
	trap_last.eflags = f->eflags;
	trap_last.frame_addr = (uint32_t)(uintptr_t)&f->eip;
	/* SDM 6.12.1 Figure 6-4: SS:ESP are pushed only on a privilege change. */
	if ((f->cs & 3) != 0) {
		trap_last.esp = f->esp;
		trap_last.ss = f->ss & 0xffff;
	} else {
		trap_last.esp = 0;
		trap_last.ss = 0;
	}
	trap_last.count++;
	if (trap_handlers[v] && trap_handlers[v](f))
		return;
	if (catch_armed)
		trap_longjmp((int)v);
	gprintf("not ok - unexpected exception %u error 0x%x at %x:%x\n", v, f->error,
		f->cs & 0xffff, f->eip);
	tap_finish();
}

void expect_fault(const char *name, trap_fn fn, void *arg, int vector, int error)
{
	trap_reset();
	int got = trap_catch(fn, arg);
	if (got != vector) {
		check(name, (uint32_t)got, (uint32_t)vector);
		return;
	}
	if (error >= 0 && trap_last.error != (uint32_t)error) {
		gprintf("# %s: vector %u ok, error code wrong\n", name, (uint32_t)vector);
		check(name, trap_last.error, (uint32_t)error);
		return;
	}
	if (trap_mark_ip && trap_last.eip != trap_mark_ip) {
		gprintf("# %s: vector/error ok, faulting EIP wrong\n", name);
		check(name, trap_last.eip, trap_mark_ip);
		return;
	}
	check(name, (uint32_t)got, (uint32_t)vector);
}

void expect_no_fault(const char *name, trap_fn fn, void *arg)
{
	trap_reset();
	int got = trap_catch(fn, arg);
	check(name, (uint32_t)got, (uint32_t)NO_FAULT);
}
