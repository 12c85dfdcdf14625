/* The native side: a forked child maps the code, data and control pages at the
 * cases' fixed addresses and, per case, enters the bytes from a hand-assembled
 * prologue that loads all sixteen registers, RFLAGS, XMM0-15 and MXCSR, and
 * leaves through an epilogue that stores them back, and the x87 state with
 * FNSAVE (which does not wait, so a pending unmasked x87 exception stays a
 * flag, and leaves the FPU initialised for the C code). The host runs the bytes
 * in 64-bit mode at CPL 3; the generators only emit what is legal there. */
#define _GNU_SOURCE                 /* REG_RIP */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmu/x86.h"
#include "tests/diff/native.h"

#define NATIVE_CTL_ADDR 0x00300000u   /* in/out state and the saved host RSP, below 2 GiB */
#define NATIVE_ENTRY (DIFF_CODE_ADDR + 0xc00u)

struct native_ctl {
	uint64_t in_regs[16];
	uint64_t in_rflags;
	uint8_t in_xmm[16][16];
	uint32_t in_mxcsr;
	uint32_t host_mxcsr;       /* MXCSR's control bits are callee-saved (SysV ABI) */
	uint64_t out_regs[16];
	uint64_t out_rflags;
	uint8_t out_xmm[16][16];
	uint32_t out_mxcsr;
	uint32_t pad;
	uint64_t host_rsp;
	uint8_t out_x87[108];      /* FNSAVE image, 32-bit protected-mode format */
	uint8_t in_ymm_hi[16][16]; /* bits 255:128 of YMM0-15, on a host with AVX */
	uint8_t out_ymm_hi[16][16];
};

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

/* ModRM + SIB for [disp32] (absolute in 64-bit mode: rm=100, SIB base=101 with no
 * index, SDM Vol.2 Table 2-3), with reg's low three bits. */
static uint8_t *abs_operand(uint8_t *p, unsigned reg, uint32_t addr)
{
	*p++ = (uint8_t)(0x04 | ((reg & 7) << 3));
	*p++ = 0x25;
	return put32(p, addr);
}

#define CTL(field) (NATIVE_CTL_ADDR + (uint32_t)offsetof(struct native_ctl, field))

/* MOV r64, [addr] (load) or MOV [addr], r64 */
static uint8_t *mov_gpr(uint8_t *p, unsigned r, uint32_t addr, bool load)
{
	*p++ = (uint8_t)(0x48 | (r >> 3 << 2));
	*p++ = load ? 0x8b : 0x89;
	return abs_operand(p, r, addr);
}

/* MOVDQU xmm, [addr] (load) or MOVDQU [addr], xmm */
static uint8_t *mov_xmm(uint8_t *p, unsigned x, uint32_t addr, bool load)
{
	*p++ = 0xf3;
	if (x & 8)
		*p++ = 0x44;
	*p++ = 0x0f;
	*p++ = load ? 0x6f : 0x7f;
	return abs_operand(p, x, addr);
}

/* On a host with AVX: VINSERTF128 ymm, ymm, [addr], 1 (load) or VEXTRACTF128
 * [addr], ymm, 1, bits 255:128 of YMMx (SDM Vol.2 VINSERTF128; C4 form,
 * VEX.R the inverted x[3], VEX.256.66.0F3A.W0 18/19; vvvv = x or 1111b). */
static uint8_t *mov_ymm_hi(uint8_t *p, unsigned x, uint32_t addr, bool load)
{
	*p++ = 0xc4;
	*p++ = (uint8_t)((x & 8 ? 0 : 0x80) | 0x60 | 3);
	*p++ = (uint8_t)(((load ? ~x : ~0u) & 15) << 3 | 4 | 1);
	*p++ = load ? 0x18 : 0x19;
	p = abs_operand(p, x, addr);
	*p++ = 1;
	return p;
}

/* Whether the host runs AVX code: CPUID.01H:ECX.AVX[28] and OSXSAVE[27], with
 * XCR0[2:1] = 11b (SDM Vol.1 14.3). */
static bool host_avx(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 28) & 1) || !((c >> 27) & 1))
		return false;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6;
}
static bool avx_host;

/* LDMXCSR [addr] (/2) or STMXCSR [addr] (/3) */
static uint8_t *mxcsr_op(uint8_t *p, unsigned digit, uint32_t addr)
{
	*p++ = 0x0f;
	*p++ = 0xae;
	return abs_operand(p, digit, addr);
}

/* Entry (called as a function): save the callee-saved registers, RFLAGS, RSP
 * and MXCSR, load the case's state, jump to the code. */
static void write_entry(uint8_t *p)
{
	uint8_t *start = p;
	static const uint8_t pushes[] = { 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57, 0x9c };
	memcpy(p, pushes, sizeof(pushes));
	p += sizeof(pushes);
	p = mov_gpr(p, R_SP, CTL(host_rsp), false);
	p = mxcsr_op(p, 3, CTL(host_mxcsr));
	p = mxcsr_op(p, 2, CTL(in_mxcsr));
	for (unsigned x = 0; x < 16; x++)
		p = mov_xmm(p, x, CTL(in_xmm) + 16 * x, true);
	for (unsigned x = 0; avx_host && x < 16; x++)
		p = mov_ymm_hi(p, x, CTL(in_ymm_hi) + 16 * x, true);
	*p++ = 0xff, p = abs_operand(p, 6, CTL(in_rflags));                  /* PUSH [in_rflags] */
	*p++ = 0x9d;                                                           /* POPFQ */
	for (unsigned r = 0; r < 16; r++)
		if (r != R_SP)
			p = mov_gpr(p, r, CTL(in_regs) + 8 * r, true);
	p = mov_gpr(p, R_SP, CTL(in_regs) + 8 * R_SP, true);
	*p++ = 0xe9;                                                           /* JMP rel32 to the code */
	put32(p, (uint32_t)(DIFF_CODE_ADDR - (NATIVE_ENTRY + (uint32_t)(p + 4 - start))));
}

/* Epilogue after the code: store the state (MOV, MOVDQU, STMXCSR change no
 * flag), back to the host stack, save RFLAGS, restore the host's and return. */
static void write_epilogue(uint8_t *p)
{
	static const uint8_t pops[] = { 0x9d, 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b, 0xc3 };
	for (unsigned r = 0; r < 16; r++)
		p = mov_gpr(p, r, CTL(out_regs) + 8 * r, false);
	for (unsigned x = 0; x < 16; x++)
		p = mov_xmm(p, x, CTL(out_xmm) + 16 * x, false);
	for (unsigned x = 0; avx_host && x < 16; x++)
		p = mov_ymm_hi(p, x, CTL(out_ymm_hi) + 16 * x, false);
	p = mxcsr_op(p, 3, CTL(out_mxcsr));
	*p++ = 0xdd, p = abs_operand(p, 6, CTL(out_x87));                    /* FNSAVE [out_x87] */
	p = mov_gpr(p, R_SP, CTL(host_rsp), true);
	*p++ = 0x9c;                                                           /* PUSHFQ */
	*p++ = 0x8f, p = abs_operand(p, 0, CTL(out_rflags));                 /* POP [out_rflags] */
	p = mxcsr_op(p, 2, CTL(host_mxcsr));
	memcpy(p, pops, sizeof(pops));
}

static bool read_all(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = read(fd, p, n);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* An FNSAVE image (32-bit protected-mode format, SDM Vol.1 Figure 8-9). */
void diff_x87_from_fnsave(struct diff_x87 *x, const uint8_t *img)
{
	x->fcw = rd16(img);
	x->fsw = rd16(img + 4);
	x->ftw = rd16(img + 8);
	x->fip = rd32(img + 12);
	x->fcs = rd16(img + 16);
	x->fop = rd16(img + 18) & 0x7ff;
	x->fdp = rd32(img + 20);
	x->fds = rd16(img + 24);
	memcpy(x->st, img + 28, sizeof(x->st));
	x->unknown = 0;
}

/* The signal frame's FXSAVE64 image (SDM Vol.1 Table 10-3): no FCS/FDS, an
 * abridged tag byte; the full tags are what FNSAVE would store, from the
 * contents (SDM Vol.1 8.1.7: zero, special for exponent 0 or all ones or a
 * clear integer bit, valid otherwise). Its ST slots hold ST(0)..ST(7). An AMD
 * host stores FOP/FIP/FDP there only with ES = 1 (zeros otherwise). */
static void x87_from_fxsave(struct diff_x87 *x, const struct _libc_fpstate *fx)
{
	x->fcw = fx->cwd;
	x->fsw = fx->swd;
	x->fop = fx->fop & 0x7ff;
	x->fip = (uint32_t)fx->rip;
	x->fdp = (uint32_t)fx->rdp;
	x->fcs = x->fds = 0;
	x->unknown = X87_NO_SELECTORS | (fx->swd & 0x80 ? 0 : X87_NO_POINTERS);
	x->ftw = 0;
	unsigned top = (fx->swd >> 11) & 7;
	for (unsigned i = 0; i < 8; i++) {
		memcpy(x->st[i], &fx->_st[i], 10);
		unsigned phys = (top + i) & 7, tag = 3;
		if (fx->ftw & (1u << phys)) {
			uint64_t mant;
			memcpy(&mant, x->st[i], 8);
			unsigned exp = rd16(x->st[i] + 8) & 0x7fff;
			tag = exp == 0 && mant == 0 ? 1 : exp == 0 || exp == 0x7fff || !(mant >> 63) ? 2 : 0;
		}
		x->ftw |= (uint16_t)(tag << (2 * phys));
	}
}

/* FDP with CPUID.(EAX=07H,ECX=0):EBX[6], FCS/FDS with EBX[13], and FOP on the
 * processors without fopcode compatibility mode (SDM Vol.1 8.1.8, 8.1.9),
 * found by running FADD with every exception masked and seeing whether
 * FNSTENV reports its opcode. */
__attribute__((noinline)) uint32_t native_x87_gaps(void)
{
	uint32_t gaps = 0;
	unsigned a, b, c, d;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 6))
			gaps |= X87_NO_FDP;
		if (b & (1u << 13))
			gaps |= X87_NO_SELECTORS;
	}
	uint8_t env[28];
	__asm__ volatile("fninit\n\tfld1\n\tfadd %%st(0), %%st\n\tfnstenv %0\n\tfninit" : "=m"(env));
	uint16_t fop;
	memcpy(&fop, env + 18, 2);
	if ((fop & 0x7ff) != 0x0c0)   /* D8 C0: FADD ST(0), ST(0) */
		gaps |= X87_NO_FOP;
	return gaps;
}

/* A fault in the case's code: the kernel's view of it (vector, error code,
 * CR2, all registers at the fault) becomes the case's outcome, then back to the
 * loop (on its own stack: RSP is the case's). */
static sigjmp_buf fault_return;
static struct diff_state *fault_out;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	const ucontext_t *u = uc;
	const greg_t *r = u->uc_mcontext.gregs;
	static const int order[16] = { REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
				       REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };
	if (!fault_out) {
		fprintf(stderr, "host_diff: native fault (signal %d) outside a case at rip %llx, address %p\n", sig,
			(unsigned long long)r[REG_RIP], si->si_addr);
		_exit(128 + sig);
	}
	for (unsigned k = 0; k < 16; k++)
		fault_out->regs[k] = (uint64_t)r[order[k]];
	fault_out->rflags = (uint64_t)r[REG_EFL];
	fault_out->vector = (int32_t)r[REG_TRAPNO];
	fault_out->error_code = (uint64_t)r[REG_ERR];
	fault_out->fault_rip = (uint64_t)r[REG_RIP];
	/* INT1 (F1) raises a trap-like #DB: RIP points after it (SDM Vol.3 17.3.1,
	 * Table 17-2). Some hosts report it at the F1 byte (seen on an AMD EPYC guest
	 * whose hypervisor intercepts ICEBP and reinjects the #DB): that is the
	 * host's error, so the native outcome is put back where the SDM has it. */
	if (r[REG_TRAPNO] == 1 && si->si_code != TRAP_TRACE /* not a single step onto an F1 */ &&
	    fault_out->fault_rip >= DIFF_CODE_ADDR &&
	    fault_out->fault_rip < DIFF_CODE_ADDR + 0x1000 &&
	    *(const uint8_t *)(uintptr_t)fault_out->fault_rip == 0xf1)
		fault_out->fault_rip++;
	fault_out->cr2 = r[REG_TRAPNO] == 14 ? (uint64_t)r[REG_CR2] : 0;     /* stale otherwise */
	fault_out->mxcsr = u->uc_mcontext.fpregs->mxcsr;
	memcpy(fault_out->xmm, u->uc_mcontext.fpregs->_xmm, sizeof(fault_out->xmm));
	/* Linux's signal frame: an XSAVE image when the FXSAVE part's software
	 * bytes (offset 464) hold FP_XSTATE_MAGIC1; YMM_Hi128 at 576 (SDM Vol.1
	 * 13.4, Table 13-1: component 2), in its initial state (zeros) when
	 * XSTATE_BV[2] is clear. */
	const uint8_t *img = (const uint8_t *)u->uc_mcontext.fpregs;
	memset(fault_out->ymm_hi, 0, sizeof(fault_out->ymm_hi));
	uint64_t bv;
	memcpy(&bv, img + 512, 8);
	if (avx_host && rd32(img + 464) == 0x46505853u && (bv & 4))
		memcpy(fault_out->ymm_hi, img + 576, sizeof(fault_out->ymm_hi));
	x87_from_fxsave(&fault_out->x87, u->uc_mcontext.fpregs);
	siglongjmp(fault_return, 1);
}

/* The child: map the fixed pages, then run requests until the pipe closes. */
static void native_child(int from, int to)
{
	uint8_t *code = mmap((void *)(uintptr_t)DIFF_CODE_ADDR, 0x1000,
			     PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	uint8_t *data = mmap((void *)(uintptr_t)DIFF_DATA_ADDR, DIFF_DATA_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	struct native_ctl *ctl = mmap((void *)(uintptr_t)NATIVE_CTL_ADDR, 0x1000, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	static struct diff_request rq;
	static struct diff_state out;

	if (code != (uint8_t *)(uintptr_t)DIFF_CODE_ADDR || data != (uint8_t *)(uintptr_t)DIFF_DATA_ADDR ||
	    ctl != (struct native_ctl *)(uintptr_t)NATIVE_CTL_ADDR)
		_exit(3);
	static uint8_t altstack[64 * 1024];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	sigaltstack(&ss, NULL);
	static const int fatal[] = { SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV };
	for (unsigned k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
		sigaction(fatal[k], &sa, NULL);
	avx_host = host_avx();
	write_entry(code + (NATIVE_ENTRY - DIFF_CODE_ADDR));
	void (*entry)(void);
	uintptr_t entry_addr = NATIVE_ENTRY;
	memcpy(&entry, &entry_addr, sizeof(entry));
	static uint32_t x87_gaps;   /* static: kept across the faults' siglongjmp */
	x87_gaps = native_x87_gaps();
	while (read_all(from, &rq, sizeof(rq))) {
		memcpy(code, rq.code, rq.code_len);
		write_epilogue(code + rq.code_len);
		__builtin___clear_cache((char *)code, (char *)code + 0x1000);
		memcpy(data, rq.in.data, DIFF_DATA_SIZE);
		memcpy(ctl->in_regs, rq.in.regs, sizeof(ctl->in_regs));
		ctl->in_rflags = rq.in.rflags;
		memcpy(ctl->in_xmm, rq.in.xmm, sizeof(ctl->in_xmm));
		memcpy(ctl->in_ymm_hi, rq.in.ymm_hi, sizeof(ctl->in_ymm_hi));
		ctl->in_mxcsr = rq.in.mxcsr;
		fault_out = &out;
		if (sigsetjmp(fault_return, 1) == 0) {
			entry();
			memcpy(out.regs, ctl->out_regs, sizeof(out.regs));
			out.rflags = ctl->out_rflags;
			memcpy(out.xmm, ctl->out_xmm, sizeof(out.xmm));
			memcpy(out.ymm_hi, ctl->out_ymm_hi, sizeof(out.ymm_hi));
			out.mxcsr = ctl->out_mxcsr;
			diff_x87_from_fnsave(&out.x87, ctl->out_x87);
			/* FSW.ES: the last instruction's exception was unmasked. */
			out.x87.unknown |= out.x87.fsw & 0x80 ? x87_gaps & X87_NO_SELECTORS : x87_gaps;
			out.vector = -1;
			out.error_code = out.fault_rip = out.cr2 = 0;
		} else {
			/* Left from the handler: the case's MXCSR is still loaded. */
			__builtin_ia32_ldmxcsr(ctl->host_mxcsr);
		}
		fault_out = NULL;
		memcpy(out.data, data, DIFF_DATA_SIZE);
		if (!write_all(to, &out, sizeof(out)))
			_exit(4);
	}
	_exit(0);
}

bool native_start(struct native *h)
{
	int in[2], out[2];
	if (pipe(in) || pipe(out))
		return false;
	h->pid = fork();
	if (h->pid < 0)
		return false;
	if (h->pid == 0) {
		close(in[1]);
		close(out[0]);
		native_child(in[0], out[1]);
	}
	close(in[0]);
	close(out[1]);
	h->to = in[1];
	h->from = out[0];
	return true;
}

bool native_run(struct native *h, const struct diff_request *rq, struct diff_state *out, int *status)
{
	if (write_all(h->to, rq, sizeof(*rq)) && read_all(h->from, out, sizeof(*out)))
		return true;
	*status = 0;
	waitpid(h->pid, status, 0);
	return false;
}

void native_selectors(uint16_t sel[SR_COUNT])
{
	__asm__("mov %%es, %0" : "=r"(sel[SR_ES]));
	__asm__("mov %%cs, %0" : "=r"(sel[SR_CS]));
	__asm__("mov %%ss, %0" : "=r"(sel[SR_SS]));
	__asm__("mov %%ds, %0" : "=r"(sel[SR_DS]));
	__asm__("mov %%fs, %0" : "=r"(sel[SR_FS]));
	__asm__("mov %%gs, %0" : "=r"(sel[SR_GS]));
}

void native_stop(struct native *h)
{
	close(h->to);
	close(h->from);
	waitpid(h->pid, NULL, 0);
}
