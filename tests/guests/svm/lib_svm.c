/* The L1 hypervisor library of the nested-SVM guests (see lib_svm.h). */
#include "svm/lib_svm.h"

struct svm_caps svm_caps;
void (*svm_vmrun_fn)(uint32_t vmcb_pa) = svm_vmrun;
struct l2_gprs l2_regs;
struct vmcb svm_vmcbs[4] __attribute__((aligned(4096)));
uint8_t svm_iopm[3 * 4096] __attribute__((aligned(4096)));
uint8_t svm_msrpm[2 * 4096] __attribute__((aligned(4096)));
static uint8_t svm_hsave[4096] __attribute__((aligned(4096)));
uint64_t l2_idt[256] __attribute__((aligned(8)));
uint8_t l2_stack[8192] __attribute__((aligned(16)));
uint8_t l2_scratch[256] __attribute__((aligned(16)));
volatile uint32_t l2_event_vector, l2_event_esp, l2_event_count;
extern char l2_stubs[];

/* Set when a row wrote a permission map, so the next VMCB clears it. */
static int iopm_dirty, msrpm_dirty;

const char *svm_feature_name(enum svm_feature f)
{
	switch (f) {
	case F_NP: return "NP";
	case F_LBRV: return "LbrVirt";
	case F_SVML: return "SVML";
	case F_NRIPS: return "NRIPS";
	case F_TSCRATE: return "TscRateMsr";
	case F_VMCBCLEAN: return "VmcbClean";
	case F_FLUSHASID: return "FlushByAsid";
	case F_DECODE: return "DecodeAssists";
	case F_PAUSEFILTER: return "PauseFilter";
	case F_PFTHRESHOLD: return "PauseFilterThreshold";
	case F_VMSAVE_VIRT: return "V_VMSAVE_VMLOAD";
	case F_VGIF: return "VGIF";
	}
	return "?";
}

int svm_probe(void)
{
	uint32_t r[4];
	gmemset(&svm_caps, 0, sizeof(svm_caps));
	cpuid(0x80000000u, 0, r);
	uint32_t max = r[0];
	if (max < 0x80000001u || max > 0x8fffffffu)
		return 0;
	cpuid(0x80000001u, 0, r);
	/* APM3 Fn8000_0001: ECX[2] SVM, ECX[12] SKINIT, EDX[29] LM. */
	svm_caps.svm = (r[2] >> 2) & 1;
	svm_caps.skinit = (r[2] >> 12) & 1;
	svm_caps.lm = (r[3] >> 29) & 1;
	svm_caps.maxphy = cpu_maxphyaddr();
	if (!svm_caps.svm)
		return 0;
	if (max >= 0x8000000au) {
		cpuid(0x8000000au, 0, r);
		svm_caps.rev = r[0] & 0xff;
		svm_caps.nasid = r[1];
		svm_caps.features = r[3];
	}
	return 1;
}

static void l2_idt_build(void)
{
	for (int v = 0; v < 256; v++)
		l2_idt[v] = gate_desc(SEL_KCODE, l2_stub_addr(v), SYS_INTGATE, 0, 0);
}

void svm_host_init(void)
{
	if (!svm_probe())
		skip_all("CPUID Fn8000_0001_ECX[SVM] = 0: no SVM on this CPU");
	/* APM2 15.4: SVM may be enabled only while VM_CR.SVMDIS = 0. */
	if (rdmsr64(MSR_VM_CR) & VM_CR_SVMDIS)
		skip_all("VM_CR.SVMDIS = 1: SVM disabled");
	note("SVM revision %u, %u ASIDs, Fn8000_000A_EDX = 0x%x, SKINIT %u, LM %u, MAXPHYADDR %u",
	     svm_caps.rev, svm_caps.nasid, svm_caps.features, svm_caps.skinit, svm_caps.lm,
	     svm_caps.maxphy);
	wrmsr64(EFER_MSR, rdmsr64(EFER_MSR) | EFER_SVME);
	/* APM2 15.30.4: the host save area, 4 KB aligned. */
	wrmsr64(MSR_VM_HSAVE_PA, (uint32_t)(uintptr_t)svm_hsave);
	gmemset(svm_iopm, 0, sizeof(svm_iopm));
	gmemset(svm_msrpm, 0, sizeof(svm_msrpm));
	l2_idt_build();
}

uint32_t l2_stub_addr(int vec)
{
	return (uint32_t)(uintptr_t)l2_stubs + 32u * (uint32_t)vec;
}

void iopm_set(uint32_t port, int on)
{
	iopm_dirty = 1;
	if (on)
		svm_iopm[port / 8] |= (uint8_t)(1u << (port % 8));
	else
		svm_iopm[port / 8] &= (uint8_t)~(1u << (port % 8));
}

void msrpm_set(uint32_t msr, int write, int on)
{
	/* APM2 15.11, Table 15-8: three 2 KB vectors, two bits per MSR (read
	 * in the lsb, write in the msb). */
	static const uint32_t first[3] = { 0x00000000u, 0xc0000000u, 0xc0010000u };
	for (unsigned i = 0; i < 3; i++) {
		if (msr - first[i] < 0x2000u) {
			uint32_t bit = (msr - first[i]) * 2 + (write ? 1 : 0);
			uint8_t *p = &svm_msrpm[i * 0x800 + bit / 8];
			msrpm_dirty = 1;
			if (on)
				*p |= (uint8_t)(1u << (bit % 8));
			else
				*p &= (uint8_t)~(1u << (bit % 8));
			return;
		}
	}
}

void vmcb_flat_seg(struct vmcb_seg *s, uint16_t sel, int code)
{
	/* APM2 15.5.1 "Segment State in the VMCB": descriptor bits 47:40 in
	 * attr 7:0, bits 55:52 in attr 11:8; G = 1, D/B = 1. */
	s->sel = sel;
	s->attr = (uint16_t)((code ? 0x9b : 0x93) | (0xc << 8));
	s->limit = 0xffffffffu;
	s->base = 0;
}

void vmcb_user(struct vmcb *v)
{
	/* APM2 15.5.1: the CPL comes from the VMCB CPL field, CS.DPL matches it. */
	vmcb_flat_seg(&v->cs, SEL_UCODE, 1);
	vmcb_flat_seg(&v->ss, SEL_UDATA, 0);
	vmcb_flat_seg(&v->ds, SEL_UDATA, 0);
	vmcb_flat_seg(&v->es, SEL_UDATA, 0);
	v->cs.attr |= 3 << 5;
	v->ss.attr |= 3 << 5;
	v->ds.attr |= 3 << 5;
	v->es.attr |= 3 << 5;
	v->cpl = 3;
}

void svm_vmcb_init(struct vmcb *v, const void *rip)
{
	gmemset(v, 0, sizeof(*v));
	if (iopm_dirty)
		gmemset(svm_iopm, 0, sizeof(svm_iopm));
	if (msrpm_dirty)
		gmemset(svm_msrpm, 0, sizeof(svm_msrpm));
	iopm_dirty = msrpm_dirty = 0;
	l2_idt_build();

	/* APM2 15.9: the VMRUN intercept must be set; VMMCALL ends every body;
	 * a shutdown in L2 comes back as #VMEXIT(SHUTDOWN), not an L1 reset. */
	v->icpt_misc1 = ICPT1_SHUTDOWN;
	v->icpt_misc2 = ICPT2_VMRUN | ICPT2_VMMCALL;
	v->iopm_base = (uint32_t)(uintptr_t)svm_iopm;
	v->msrpm_base = (uint32_t)(uintptr_t)svm_msrpm;
	v->asid = 1;
	/* APM2 15.16.1: every row starts from a flushed TLB (its page tables
	 * are new); rows about TLB caching set their own TLB_CONTROL. */
	v->tlb_control = 1;

	vmcb_flat_seg(&v->cs, SEL_KCODE, 1);
	vmcb_flat_seg(&v->ss, SEL_KDATA, 0);
	vmcb_flat_seg(&v->ds, SEL_KDATA, 0);
	vmcb_flat_seg(&v->es, SEL_KDATA, 0);
	vmcb_flat_seg(&v->fs, SEL_KDATA, 0);
	vmcb_flat_seg(&v->gs, SEL_KDATA, 0);
	v->gdtr.base = (uint32_t)(uintptr_t)gdt;
	v->gdtr.limit = sizeof(uint64_t) * GDT_ENTRIES - 1;
	v->idtr.base = (uint32_t)(uintptr_t)l2_idt;
	v->idtr.limit = sizeof(l2_idt) - 1;
	/* The L2 shares L1's busy TSS (type 0xb); LDTR is null. */
	v->tr.sel = SEL_TSS;
	v->tr.attr = 0x8b;
	v->tr.base = (uint32_t)(uintptr_t)&tss;
	v->tr.limit = sizeof(tss) - 1;

	v->cpl = 0;
	v->efer = EFER_SVME | (rdmsr64(EFER_MSR) & EFER_NXE);
	v->cr0 = read_cr0();
	v->cr3 = read_cr3();
	v->cr4 = read_cr4();
	v->dr6 = 0xffff0ff0u;
	v->dr7 = 0x400;
	v->rflags = 2;
	v->rip = (uint32_t)(uintptr_t)rip;
	v->rsp = L2_STACK_TOP;
	v->g_pat = PAT_DEFAULT;
	gmemset(&l2_regs, 0, sizeof(l2_regs));
}

void svm_poison(struct vmcb *v)
{
	v->exitcode = 0x0bad0bad0bad0badull;
	v->exitinfo1 = 0x1bad1bad1bad1badull;
	v->exitinfo2 = 0x2bad2bad2bad2badull;
	/* V set: an exit that fails to write EXITINTINFO shows as "valid". */
	v->exitintinfo = 0x3bad3badfbad3badull;
	v->nrip = 0x4bad4bad4bad4badull;
	v->insn_len = 0xff;
	l2_event_vector = 0xffffffffu;
	l2_event_esp = 0;
	l2_event_count = 0;
}

/* ---- reporting ---- */

void svm_expect(struct svm_case *c, const char *field, uint64_t got, uint64_t want)
{
	if (!expect_field(c->row->name, field, got, want))
		c->pass = 0;
}

void svm_expect_true(struct svm_case *c, const char *what, int cond)
{
	if (cond)
		return;
	c->pass = 0;
	gprintf("# %s: %s does not hold\n", c->row->name, what);
}

void svm_case_report(struct svm_case *c)
{
	char name[160];
	check_true(pg_name(name, sizeof(name), "%s [APM2 %s]", c->row->name, c->row->apm), c->pass);
}

void svm_rerun(struct svm_case *c)
{
	svm_poison(c->vmcb);
	svm_vmrun_fn(vmcb_pa(c->vmcb));
}

static const char *row_skip_reason(const struct svm_row *row)
{
	static char why[96];
	for (unsigned f = 0; f < 32; f++)
		if (((row->need >> f) & 1) && !svm_has((enum svm_feature)f))
			return pg_name(why, sizeof(why), "CPUID Fn8000_000A_EDX[%s] = 0",
				       svm_feature_name((enum svm_feature)f));
	return row->skip ? row->skip() : 0;
}

/* The generic field checks of a row after its #VMEXIT (see the C_* flags). */
static void check_fields(struct svm_case *c)
{
	const struct svm_row *row = c->row;
	const struct vmcb *v = c->vmcb;
	uint32_t k = row->check;
	int invalid = row->exitcode == EXIT_INVALID;

	svm_expect(c, "EXITCODE", v->exitcode, row->exitcode);
	if (k & C_INFO1) {
		uint64_t got = v->exitinfo1, want = c->info1;
		/* APM2 15.10.2: SEG (12:10) with decode assists only. */
		if ((k & C_INFO1_MASK_SEG) && !svm_has(F_DECODE)) {
			got &= ~(uint64_t)IO_SEG(7);
			want &= ~(uint64_t)IO_SEG(7);
		}
		if (row->info1_mask) {
			got &= row->info1_mask;
			want &= row->info1_mask;
		}
		if (!(k & C_INFO1_DA) || svm_has(F_DECODE))
			svm_expect(c, "EXITINFO1", got, want);
	}
	if (k & C_INFO2) {
		uint64_t got = v->exitinfo2, want = c->info2;
		/* APM2 15.14.1: EXITINFO2[31:0] holds the error code "if
		 * applicable; otherwise, this field is undefined" (bit 44). */
		if (row->exitcode == EXIT_TASK_SWITCH && !(want & TS_HAS_ERROR)) {
			got &= ~0xffffffffull;
			want &= ~0xffffffffull;
		}
		svm_expect(c, "EXITINFO2", got, want);
	}
	if (k & C_INFO2_NEXT)
		svm_expect(c, "EXITINFO2 (next rIP)", v->exitinfo2, (uint32_t)(uintptr_t)row->body->next);
	/* APM2 15.7.2: EXITINTINFO is written on every intercept; V = 0 when
	 * the intercept did not occur during event delivery. */
	if (!invalid && !(k & C_NO_INTINFO)) {
		/* APM2 15.7.2: ERRORCODE (63:32) is undefined unless EV. */
		uint64_t defined = (c->intinfo & EV_ERR) ? ~0ull : 0xffffffffull;
		if (k & C_INTINFO)
			svm_expect(c, "EXITINTINFO", v->exitintinfo & defined, c->intinfo);
		else
			svm_expect(c, "EXITINTINFO.V", v->exitintinfo & EV_VALID, 0);
	}
	/* APM2 15.7.1: nRIP on instruction, MSR, IOIO intercepts and INT3/INTO/
	 * BOUND exceptions; reset to zero on all other intercepts. */
	uint32_t next = (uint32_t)(uintptr_t)row->body->next;
	uint32_t want_rip = (k & (C_RIP_NEXT | C_AT_END)) ? next : (uint32_t)(uintptr_t)row->body->at;
	uint32_t want_nrip = (k & C_AT_END) ? next + 3 : (k & C_NRIP_NEXT) ? next : 0;
	if ((k & C_L2_EVENT) && row->exitcode == EXIT_VMMCALL) {
		want_rip = l2_stub_addr((int)row->l2_vector) + L2_STUB_VMMCALL;
		want_nrip = want_rip + 3;
	}
	if (svm_has(F_NRIPS) && !invalid && !(k & C_NO_NRIP))
		svm_expect(c, "nRIP", v->nrip, want_nrip);
	if (!invalid && !(k & C_NO_RIP))
		svm_expect(c, "saved rIP", v->rip, want_rip);
	/* APM2 15.8.4: #PF/#NPF data faults record 15 instruction bytes from
	 * CS:rIP; every other intercept clears bits 7:0 of the field. */
	if (svm_has(F_DECODE) && !invalid && !(k & C_NO_INSN)) {
		if (k & C_INSN_BYTES) {
			svm_expect(c, "guest instruction byte count", v->insn_len, 15);
			const uint8_t *code = (const uint8_t *)(uintptr_t)v->rip;
			for (unsigned i = 0; i < 15 && v->insn_len == 15; i++)
				if (v->insn_bytes[i] != code[i]) {
					svm_expect(c, "guest instruction byte", v->insn_bytes[i], code[i]);
					break;
				}
		} else {
			svm_expect(c, "guest instruction bytes 7:0", v->insn_len, 0);
		}
	}
	if (k & C_L2_EVENT) {
		svm_expect(c, "L2 events taken", l2_event_count, 1);
		svm_expect(c, "L2 event vector", l2_event_vector, row->l2_vector);
	} else if (l2_event_count) {
		svm_expect(c, "L2 events taken", l2_event_count, 0);
		note("%s: the L2 took vector %u (frame at 0x%x)", row->name, l2_event_vector, l2_event_esp);
	}
}

void svm_run_row(const struct svm_row *row)
{
	char name[160];
	const char *why = row_skip_reason(row);
	if (why) {
		skip(pg_name(name, sizeof(name), "%s [APM2 %s]", row->name, row->apm), "%s", why);
		return;
	}
	struct svm_case c = { row, &svm_vmcbs[0], row->info1, row->info2, row->intinfo, 1 };
	svm_vmcb_init(c.vmcb, row->body->start);
	c.vmcb->icpt_cr |= row->icpt_cr;
	c.vmcb->icpt_dr |= row->icpt_dr;
	c.vmcb->icpt_exc |= row->icpt_exc;
	c.vmcb->icpt_misc1 |= row->icpt1;
	c.vmcb->icpt_misc2 |= row->icpt2;
	/* Poison first: a setup may give NEXT_RIP an input value (an injected
	 * INTn returns there, 15.20). */
	svm_poison(c.vmcb);
	if (row->setup)
		row->setup(&c);
	svm_vmrun_fn(vmcb_pa(c.vmcb));
	check_fields(&c);
	if (row->extra)
		row->extra(&c);
	svm_case_report(&c);
}

void svm_run_rows(const struct svm_row *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		svm_run_row(&rows[i]);
}
