/* Check suite for long mode (emu/control_regs.c, emu/syscall.c, msr.c,
 * descriptor_tables.c): IA-32e activation rules at MOV CR0/CR4/CR3 and WRMSR
 * EFER, PCID, SYSCALL/SYSRET per vendor, SWAPGS, MOVSXD, 64-bit LTR.
 * One instruction at a time: decoded with decode_insn() and run through its
 * handler, so each case sees the handler's status and the raised event. Code
 * bytes were assembled with GNU as (the source is beside each). */
#include "emu/hv.h"
#include "machine_fixture.h"
#include "suite_runner.h"

/* SDM Vol.3 9.8.5: PG with LME sets LMA; compat mode until CS.L = 1. */
START_TEST(activation)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	ck_assert(m.cpu.efer & EFER_LMA);
	ck_assert_int_eq(m.cpu.mode, MODE_COMPAT);
	to64(&m);
	ck_assert_int_eq(m.cpu.mode, MODE_LONG64);
	/* SDM Vol.2 MOV CR 64-bit mode: clearing PG is #GP(0). */
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET));
	/* SDM Vol.3 9.8.5.4: clearing PAE in IA-32e mode is #GP(0). */
	assert_gp0(&m, mov_cr(&m, 4, 0));
	/* EFER.LME change with PG = 1 is #GP(0) (SDM Vol.3 2.2.1, APM2 14.6.1). */
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_SCE));
	/* CR3 bits above MAXPHYADDR (39 on skylake-lite). */
	assert_gp0(&m, mov_cr(&m, 3, PML4 | (1ull << 39)));
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | (1ull << 38)), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	/* Back to compatibility mode: PG may be cleared, LMA follows (9.8.5.4). */
	to_compat(&m);
	ck_assert_int_eq(mov_cr(&m, 0, CR0_PE | CR0_ET), ST_OK);
	ck_assert(!(m.cpu.efer & EFER_LMA));
	ck_assert_int_eq(m.cpu.mode, MODE_PROT);
	machine_free(&m);
}
END_TEST

START_TEST(activation_needs_pae_and_not_cs_l)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_LME), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	/* SDM Vol.2 MOV CR: PG with LME and PAE = 0 is #GP(0); nothing changes. */
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG));
	ck_assert(!(m.cpu.cr0 & CR0_PG));
	ck_assert(!(m.cpu.efer & EFER_LMA));
	/* Intel: activating with CS.L = 1 is #GP(0). */
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE), ST_OK);
	load_cs(&m, SEL_CODE64);
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG));
	machine_free(&m);
	/* AMD (APM2 14.6.1) lists PAE only. */
	machine_init(&m, "epyc-lite");
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_LME), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE), ST_OK);
	load_cs(&m, SEL_CODE64);
	ck_assert_int_eq(mov_cr(&m, 0, CR0_PE | CR0_ET | CR0_PG), ST_OK);
	ck_assert(m.cpu.efer & EFER_LMA);
	machine_free(&m);
	/* A model without long mode: EFER.LME is reserved. */
	machine_init(&m, "opteron-g3");
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_LME));
	machine_free(&m);
}
END_TEST

/* SDM Vol.3 4.10.1, Vol.2 MOV CR: PCIDE only in IA-32e mode with CR3[11:0] = 0;
 * CR3 bit 63 is not stored; clearing PG with PCIDE is #GP. */
START_TEST(pcid_rules)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	assert_gp0(&m, mov_cr(&m, 4, CR4_PCIDE));
	activate(&m);
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | 0x18), ST_OK);    /* PWT|PCD */
	assert_gp0(&m, mov_cr(&m, 4, CR4_PAE | CR4_PCIDE));
	ck_assert_int_eq(mov_cr(&m, 3, PML4), ST_OK);
	ck_assert_int_eq(mov_cr(&m, 4, CR4_PAE | CR4_PCIDE), ST_OK);
	to64(&m);
	ck_assert_int_eq(mov_cr(&m, 3, PML4 | 5 | (1ull << 63)), ST_OK);
	ck_assert_uint_eq(m.cpu.cr3, PML4 | 5);
	to_compat(&m);
	assert_gp0(&m, mov_cr(&m, 0, CR0_PE | CR0_ET));
	machine_free(&m);
	/* epyc-lite has no PCID: the bit is reserved. */
	machine_init(&m, "epyc-lite");
	activate(&m);
	assert_gp0(&m, mov_cr(&m, 4, CR4_PAE | CR4_PCIDE));
	machine_free(&m);
}
END_TEST

/* SYSCALL/SYSRET round trip in 64-bit mode; Intel #UD in compatibility mode;
 * the non-canonical SYSRET per vendor. */
START_TEST(syscall_sysret)
{
	for (int amd = 0; amd < 2; amd++) {
		struct test_machine m;
		machine_init(&m, amd ? "epyc-lite" : "skylake-lite");
		activate(&m);
		struct cpu *c = &m.cpu;
		c->star = (0x23ull << 48) | (0x08ull << 32);     /* SYSRET base 23H, SYSCALL CS 08H */
		c->lstar = 0xffff800000001000ull;
		c->cstar = 0x2000;
		c->sfmask = FLAG_IF | FLAG_TF;
		cpu_set_flags(c, FLAG_IF | FLAG_CF);
		c->rip = 0x5000;
		status_t st = EXEC(&m, 0x0f, 0x05);               /* syscall (compat mode) */
		if (!amd) {
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			to64(&m);
			c->rip = 0x5000;
			st = EXEC(&m, 0x0f, 0x05);
			ck_assert_uint_eq(c->rip, 0xffff800000001000ull);
		} else {
			ck_assert_uint_eq(c->rip, 0x2000);          /* CSTAR */
		}
		ck_assert_int_eq(st, ST_OK);
		ck_assert_uint_eq(c->regs[R_CX], 0x5002);
		ck_assert_uint_eq(c->regs[R_R11] & (FLAG_IF | FLAG_CF), FLAG_IF | FLAG_CF);
		ck_assert(!(cpu_get_flags(c) & FLAG_IF));
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x08);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x10);
		ck_assert_int_eq(c->mode, MODE_LONG64);
		ck_assert_uint_eq(c->cpl, 0);
		/* SWAPGS */
		c->seg[SR_GS].base = 0x1111;
		c->kernel_gs_base = 0x2222;
		ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0xf8), ST_OK);
		ck_assert_uint_eq(c->seg[SR_GS].base, 0x2222);
		ck_assert_uint_eq(c->kernel_gs_base, 0x1111);
		/* sysretq to a non-canonical RCX */
		c->regs[R_CX] = 0x0000800000000000ull;
		c->regs[R_R11] = FLAG_IF | FLAG_FIXED1;
		st = EXEC(&m, 0x48, 0x0f, 0x07);
		ck_assert_int_eq(st, ST_FAULT);
		ck_assert_int_eq(c->event.vector, EXC_GP);
		ck_assert_uint_eq(c->cpl, amd ? 3 : 0);          /* AMD faults at CPL 3 */
		if (amd) {
			machine_free(&m);
			continue;
		}
		c->regs[R_CX] = 0x401000;
		ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0x07), ST_OK);   /* sysretq */
		ck_assert_uint_eq(c->rip, 0x401000);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x33);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x2b);
		ck_assert_int_eq(c->mode, MODE_LONG64);
		ck_assert_uint_eq(c->cpl, 3);
		ck_assert(cpu_get_flags(c) & FLAG_IF);
		/* SWAPGS and SYSRET at CPL 3: #GP(0) */
		assert_gp0(&m, EXEC(&m, 0x0f, 0x01, 0xf8));
		assert_gp0(&m, EXEC(&m, 0x48, 0x0f, 0x07));
		machine_free(&m);
	}
}
END_TEST

/* SYSCALL and SYSRET single-step by the TF they leave (emu/syscall.c;
 * SDM Vol.2 SYSCALL, SYSRET with SDM Vol.3 17.3.1.4; APM3 SYSCALL, SYSRET):
 * a SYSCALL whose FMASK clears TF takes no #DB at the kernel's entry point,
 * so the kernel's first instruction (UD2) is the first event; a SYSRET that
 * sets TF traps at once, before the user's first instruction runs. */
/* Where the first exception was raised: a hypervisor model that takes it as
 * an exit and ends the run (cpu_run() may still retire one instruction). */
struct first_event { struct event ev; uint64_t rip; bool seen; };
static status_t note_first_event(void *ctx, struct cpu *cpu, struct exit_record *rec)
{
	struct first_event *f = ctx;
	if (rec->kind != IK_EXCEPTION || f->seen)
		return ST_OK;
	*f = (struct first_event){ .ev = rec->event, .rip = cpu->rip, .seen = true };
	cpu_request_stop(cpu);
	return ST_VMEXIT;
}

START_TEST(syscall_sysret_single_step)
{
	static const struct hv_model first_event_model = { .name = "first-event", .intercept = note_first_event };
	static const char *const models[] = { "skylake-lite", "epyc-lite" };
	for (unsigned i = 0; i < 2; i++) {
		struct test_machine m;
		machine_init(&m, models[i]);
		/* User pages for the SYSRET half. */
		physmem_write(&m.pm, PML4, 8, PDPT | 7);
		physmem_write(&m.pm, PDPT, 8, PD | 7);
		physmem_write(&m.pm, PD, 8, 0x87);
		activate(&m);
		to64(&m);
		struct cpu *c = &m.cpu;
		struct first_event seen = { 0 };
		c->hv = &first_event_model;
		c->hv_ctx = &seen;
		c->in_guest = true;
		c->star = (0x23ull << 48) | (0x08ull << 32);
		c->lstar = 0x6000;
		c->sfmask = FLAG_TF | FLAG_IF;
		physmem_write(&m.pm, 0x5000, 2, 0x050f);            /* syscall */
		physmem_write(&m.pm, 0x6000, 2, 0x0b0f);            /* ud2 */
		c->rip = 0x5000;
		cpu_set_flags(c, FLAG_TF | FLAG_FIXED1);
		status_t st = cpu_run(c);
		ck_assert_msg(seen.ev.vector == EXC_UD, "%s: vector %u after SYSCALL", models[i], seen.ev.vector);
		ck_assert_int_eq(st, ST_STOP);
		ck_assert_uint_eq(seen.rip, 0x6000);
		ck_assert_uint_eq(c->regs[R_R11] & FLAG_TF, FLAG_TF);

		/* sysretq with R11.TF = 1 from TF = 0: the #DB's return address is
		 * the user's first instruction. */
		c->stop_requested = false;
		physmem_write(&m.pm, 0x5100, 4, 0x070f48);          /* sysretq */
		physmem_write(&m.pm, 0x7000, 2, 0x9090);            /* nop; nop */
		c->rip = 0x5100;
		c->regs[R_CX] = 0x7000;
		c->regs[R_R11] = FLAG_TF | FLAG_FIXED1;
		cpu_set_flags(c, FLAG_FIXED1);
		seen = (struct first_event){ 0 };
		st = cpu_run(c);
		ck_assert_msg(seen.ev.vector == EXC_DB, "%s: vector %u after SYSRET", models[i], seen.ev.vector);
		ck_assert_int_eq(st, ST_STOP);
		ck_assert_uint_eq(seen.rip, 0x7000);
		ck_assert_uint_eq(c->cpl, 3);
		/* The intercepted #DB carries BS; DR6 is written only by a delivery. */
		ck_assert(seen.ev.dr6 & DR6_BS);
		ck_assert(!(c->dr[6] & DR6_BS));
		machine_free(&m);
	}
}
END_TEST

/* SYSCALL/SYSRET in legacy protected mode (IA-32e off): AMD runs them with
 * STAR[31:0] as the target EIP, ECX = next EIP, VM/IF/RF cleared; SYSRET sets
 * IF and returns to CPL 3 at ECX with CS = STAR[63:48] | 3 and SS selector
 * + 8 (APM3 SYSCALL, SYSRET, legacy-mode operation). Intel: #UD (SDM Vol.2). */
START_TEST(syscall_legacy_mode)
{
	for (int amd = 0; amd < 2; amd++) {
		struct test_machine m;
		machine_init(&m, amd ? "epyc-lite" : "skylake-lite");
		struct cpu *c = &m.cpu;
		ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_SCE), ST_OK);
		c->star = (0x1bull << 48) | (0x08ull << 32) | 0x7000;
		cpu_set_flags(c, FLAG_IF | FLAG_CF | FLAG_FIXED1);
		c->rip = 0x5000;
		status_t st = EXEC(&m, 0x0f, 0x05);               /* syscall */
		if (!amd) {
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			st = EXEC(&m, 0x0f, 0x07);                /* sysret */
			ck_assert_int_eq(st, ST_FAULT);
			ck_assert_int_eq(c->event.vector, EXC_UD);
			machine_free(&m);
			continue;
		}
		ck_assert_int_eq(st, ST_OK);
		ck_assert_uint_eq(c->rip, 0x7000);
		ck_assert_uint_eq(c->regs[R_CX], 0x5002);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x08);
		ck_assert_uint_eq(c->seg[SR_SS].selector, 0x10);
		ck_assert(!(cpu_get_flags(c) & FLAG_IF));
		ck_assert(cpu_get_flags(c) & FLAG_CF);              /* no SFMASK in legacy mode */
		ck_assert_int_eq(c->mode, MODE_PROT);
		c->regs[R_CX] = 0x6000;
		ck_assert_int_eq(EXEC(&m, 0x0f, 0x07), ST_OK);     /* sysret */
		ck_assert_uint_eq(c->rip, 0x6000);
		ck_assert_uint_eq(c->seg[SR_CS].selector, 0x1b);
		ck_assert_uint_eq(c->seg[SR_SS].selector & 0xfffc, 0x20);
		ck_assert_uint_eq(c->cpl, 3);
		ck_assert(cpu_get_flags(c) & FLAG_IF);
		/* At CPL 3 SYSRET is #GP(0). */
		assert_gp0(&m, EXEC(&m, 0x0f, 0x07));
		machine_free(&m);
	}
}
END_TEST

START_TEST(movsxd_and_rdtscp)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	c->regs[R_BX] = 0xffffffff80000000ull | 0x1234;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x63, 0xc3), ST_OK);       /* movsxd rax, ebx */
	ck_assert_uint_eq(c->regs[R_AX], 0xffffffff80001234ull);
	c->regs[R_BX] = 0x7fffffff;
	ck_assert_int_eq(EXEC(&m, 0x4c, 0x63, 0xc3), ST_OK);       /* movsxd r8, ebx */
	ck_assert_uint_eq(c->regs[R_R8], 0x7fffffff);
	c->tsc_aux = 0xabcd;
	c->regs[R_CX] = ~0ull;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x01, 0xf9), ST_OK);       /* rdtscp */
	ck_assert_uint_eq(c->regs[R_CX], 0xabcd);
	/* TSC_AUX bits 63:32 reserved; FS base canonical (SDM Vol.4, APM2 6.1.1). */
	assert_gp0(&m, wrmsr(&m, MSR_TSC_AUX, 1ull << 32));
	assert_gp0(&m, wrmsr(&m, MSR_FS_BASE, 0x0000800000000000ull));
	assert_gp0(&m, wrmsr(&m, MSR_KERNEL_GS_BASE, 0x0000800000000000ull));
	assert_gp0(&m, wrmsr(&m, MSR_LSTAR, 0x0000800000000000ull));
	ck_assert_int_eq(wrmsr(&m, MSR_FS_BASE, 0xffff800000000000ull), ST_OK);
	ck_assert_uint_eq(c->seg[SR_FS].base, 0xffff800000000000ull);
	machine_free(&m);
	/* RDTSCP absent on core2: #UD. */
	machine_init(&m, "core2");
	status_t st = EXEC(&m, 0x0f, 0x01, 0xf9);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m.cpu.event.vector, EXC_UD);
	machine_free(&m);
}
END_TEST

/* CR8 (SDM Vol.3 2.5, 10.8.6.1; Vol.2 MOV CR): the TPR in bits 3:0, only in
 * 64-bit mode, bits 63:4 reserved (#GP(0)), CPL 0. */
START_TEST(cr8_tpr)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	struct cpu *c = &m.cpu;
	to64(&m);
	/* Outside 64-bit mode CR8 has no encoding (REX.R); LOCK MOV CR0 is AMD's
	 * alternative, which these models do not advertise: #UD (APM3 MOV CRn). */
	c->regs[R_AX] = 5;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);   /* mov cr8, rax (REX.R) */
	ck_assert_uint_eq(c->cr8, 5);
	status_t st = EXEC(&m, 0xf0, 0x0f, 0x22, 0xc0);              /* lock mov cr0, rax */
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(c->event.vector, EXC_UD);
	ck_assert_uint_eq(c->cr8, 5);
	c->regs[R_AX] = 0xf;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x22, 0xc0), ST_OK);
	c->regs[R_BX] = 0;
	ck_assert_int_eq(EXEC(&m, 0x44, 0x0f, 0x20, 0xc3), ST_OK);   /* mov rbx, cr8 */
	ck_assert_uint_eq(c->regs[R_BX], 0xf);
	c->regs[R_AX] = 0x10;
	assert_gp0(&m, EXEC(&m, 0x44, 0x0f, 0x22, 0xc0));
	c->cpl = 3;
	c->regs[R_AX] = 1;
	assert_gp0(&m, EXEC(&m, 0x44, 0x0f, 0x22, 0xc0));
	machine_free(&m);
}
END_TEST

/* CMPXCHG16B (SDM Vol.2): 16-byte aligned operand or #GP(0); #UD without
 * CPUID.01H:ECX[13], shown with a test-only model: a 64-bit part without CX16
 * (as the first AMD64 parts were). */
static const struct cpuid_leaf no_cx16_leaves[] = {
	{ .leaf = 0, .eax = 1 },
	{ .leaf = 1, .eax = 0xf41, .edx = 1u << 5 | 1u << 6 | 1u << 8 },   /* MSR, PAE, CX8 */
	{ .leaf = 0x80000000, .eax = 0x80000008 },
	{ .leaf = 0x80000001, .edx = 1u << 11 | 1u << 29 },               /* SYSCALL, LM */
	{ .leaf = 0x80000008, .eax = 0x00003028 },
};
static const struct cpu_model no_cx16_model = {
	.name = "test-no-cx16", .vendor = VENDOR_AMD, .signature = 0xf41,
	.cpuid = no_cx16_leaves, .cpuid_count = sizeof(no_cx16_leaves) / sizeof(no_cx16_leaves[0]),
};

START_TEST(cmpxchg16b)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, 0x3000, 8, 0x1111);
	physmem_write(&m.pm, 0x3008, 8, 0x2222);
	c->regs[R_DI] = 0x3000;
	c->regs[R_AX] = 0x1111; c->regs[R_DX] = 0x2222;
	c->regs[R_BX] = 0xaaaa5555aaaa5555ull; c->regs[R_CX] = 0x123456789ull;
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f), ST_OK);    /* cmpxchg16b [rdi] */
	ck_assert_uint_eq(physmem_read(&m.pm, 0x3000, 8), 0xaaaa5555aaaa5555ull);
	ck_assert_uint_eq(physmem_read(&m.pm, 0x3008, 8), 0x123456789ull);
	ck_assert(c->rflags & FLAG_ZF);
	/* Not equal: RDX:RAX loaded, ZF = 0. */
	ck_assert_int_eq(EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f), ST_OK);
	ck_assert_uint_eq(c->regs[R_AX], 0xaaaa5555aaaa5555ull);
	ck_assert_uint_eq(c->regs[R_DX], 0x123456789ull);
	ck_assert(!(c->rflags & FLAG_ZF));
	c->regs[R_DI] = 0x3008;
	assert_gp0(&m, EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f));
	machine_free(&m);

	machine_init_model(&m, &no_cx16_model);
	activate(&m);
	to64(&m);
	m.cpu.regs[R_DI] = 0x3000;
	status_t st = EXEC(&m, 0x48, 0x0f, 0xc7, 0x0f);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(m.cpu.event.vector, EXC_UD);
	machine_free(&m);
}
END_TEST

/* SDM Vol.3 6.15 "Interrupt 13": fetching from a non-canonical RIP is #GP(0),
 * raised before any translation (no #PF). */
START_TEST(noncanonical_fetch)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct event seen = { 0 };
	stop_at_events(&m, &seen);
	m.cpu.rip = 0x0000800000000000ull;
	ck_assert_int_eq(cpu_run(&m.cpu), ST_STOP);
	ck_assert_int_eq(seen.vector, EXC_GP);
	ck_assert_uint_eq(seen.error_code, 0);
	machine_free(&m);
}
END_TEST

/* LTR in IA-32e mode reads the 16-byte descriptor (SDM Vol.3 8.2.3). */
START_TEST(ltr64)
{
	struct test_machine m;
	machine_init(&m, "skylake-lite");
	activate(&m);
	to64(&m);
	struct cpu *c = &m.cpu;
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0xffff8000ull);
	c->regs[R_AX] = SEL_TSS;
	ck_assert_int_eq(EXEC(&m, 0x0f, 0x00, 0xd8), ST_OK);         /* ltr ax */
	ck_assert_uint_eq(c->tr.base, 0xffff800000000000ull | TSS64);
	/* Upper type bits set: #GP(selector). */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS, 8, make_desc(TSS64, 0x67, 0x89, 0));
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 1ull << 40);
	status_t st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_int_eq(c->event.vector, EXC_GP);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	/* Non-canonical base: #GP(selector). */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0x00008000ull);
	st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	/* Beyond the GDT limit for the upper half. */
	physmem_write(&m.pm, GDT_BASE + SEL_TSS + 8, 8, 0);
	c->gdtr.limit = SEL_TSS + 7;
	st = EXEC(&m, 0x0f, 0x00, 0xd8);
	ck_assert_int_eq(st, ST_FAULT);
	ck_assert_uint_eq(c->event.error_code, SEL_TSS);
	machine_free(&m);
}
END_TEST

static Suite *long_suite(void)
{
	Suite *s = suite_create("long");
	TCase *t = tcase_create("activation");
	tcase_add_test(t, activation);
	tcase_add_test(t, activation_needs_pae_and_not_cs_l);
	tcase_add_test(t, pcid_rules);
	suite_add_tcase(s, t);
	t = tcase_create("instructions");
	tcase_add_test(t, syscall_sysret);
	tcase_add_test(t, syscall_legacy_mode);
	tcase_add_test(t, syscall_sysret_single_step);
	tcase_add_test(t, movsxd_and_rdtscp);
	tcase_add_test(t, cmpxchg16b);
	tcase_add_test(t, cr8_tpr);
	tcase_add_test(t, ltr64);
	tcase_add_test(t, noncanonical_fetch);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(long_suite());
}
