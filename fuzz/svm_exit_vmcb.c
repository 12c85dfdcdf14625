/* svm_exit_fuzz's VMCB: a legal 32- or 64-bit guest as the starting point,
 * and typed mutation operators that move one field to either side of the
 * APM rule that looks at it (APM2 15.5.1 checks, long-mode invariants,
 * EVENTINJ, the permission-map bases, segment bases, TLB_CONTROL). */
#include "fuzz/svm_exit_fuzz.h"

#include <string.h>

#include "svm/bitmaps.h"

const unsigned svm_exit_misc_intercepts[32][2] = {
	{ SVM_INTERCEPT_CPUID }, { SVM_INTERCEPT_RDTSC }, { SVM_INTERCEPT_RDTSCP }, { SVM_INTERCEPT_RDPMC },
	{ SVM_INTERCEPT_HLT }, { SVM_INTERCEPT_PAUSE }, { SVM_INTERCEPT_INVD }, { SVM_INTERCEPT_WBINVD },
	{ SVM_INTERCEPT_VMMCALL }, { SVM_INTERCEPT_INVLPG }, { SVM_INTERCEPT_PUSHF }, { SVM_INTERCEPT_IOIO_PROT },
	{ SVM_INTERCEPT_MSR_PROT }, { SVM_INTERCEPT_INTN }, { SVM_INTERCEPT_ICEBP }, { SVM_INTERCEPT_XSETBV },
	{ SVM_INTERCEPT_CR0_SEL_WRITE }, { SVM_INTERCEPT_MONITOR }, { SVM_INTERCEPT_MWAIT },
	{ SVM_INTERCEPT_IDTR_READ }, { SVM_INTERCEPT_GDTR_READ }, { SVM_INTERCEPT_LDTR_READ },
	{ SVM_INTERCEPT_TR_READ }, { SVM_INTERCEPT_IDTR_WRITE }, { SVM_INTERCEPT_GDTR_WRITE },
	{ SVM_INTERCEPT_LDTR_WRITE }, { SVM_INTERCEPT_TR_WRITE }, { SVM_INTERCEPT_RSM },
	{ SVM_INTERCEPT_INVLPGA }, { SVM_INTERCEPT_VMLOAD }, { SVM_INTERCEPT_VMSAVE },
	{ SVM_INTERCEPT_STGI, SVM_INTERCEPT_CLGI },
};

static struct vmcb_seg seg(uint16_t sel, uint16_t attrib, uint32_t limit, uint64_t base)
{
	return (struct vmcb_seg){ .selector = sel, .attrib = attrib, .limit = limit, .base = base };
}

/* The legal starting point of either guest; the mutations move from it. */
void svm_exit_vmcb_base(struct vmcb *v, uint8_t guest)
{
	bool m64 = guest & 1;
	uint64_t data_base = !m64 && (guest & 2) ? SEG_BASE_ESCAPE : 0;
	memset(v, 0, sizeof(*v));
	struct vmcb_control *c = &v->control;
	struct vmcb_save *s = &v->save;
	set_intercept(v, SVM_INTERCEPT_VMRUN);
	c->iopm_base_pa = IOPM;
	c->msrpm_base_pa = MSRPM;
	c->guest_asid = 1;
	/* Poison what the #VMEXIT must write (APM2 15.7). */
	c->exitcode = 0x5a5a5a5a5a5a5a5aull;
	c->exitinfo1 = c->exitinfo2 = c->exitintinfo = c->nrip = 0xa5a5a5a5a5a5a5a5ull;
	s->cs = m64 ? seg(0x18, 0xa9b, 0xffffffffu, 0) : seg(0x08, 0xc9b, 0xffffffffu, 0);
	s->ds = s->es = s->ss = seg(0x10, 0xc93, 0xffffffffu, data_base);
	s->fs = s->gs = seg(0x10, 0xc93, 0xffffffffu, 0);
	s->gdtr = seg(0, 0, 0x2f, L2_GDT);
	switch ((guest >> 2) & 3) {
	case 0: s->idtr = seg(0, 0, m64 ? 0xfff : 0x7ff, guest & 0x20 ? L2_IDT16 : L2_IDT); break;
	case 1: s->idtr = seg(0, 0, 0xfff, HOLE); break;
	case 2: s->idtr = seg(0, 0, 0xfff, m64 ? HOLE - 0x800 : 0xffffff00u); break;
	default: s->idtr = seg(0, 0, 0x3f, L2_IDT); break;
	}
	s->tr = seg(0x28, 0x8b, 0x67, L2_TSS);
	s->cpl = 0;
	s->efer = EFER_SVME | (m64 ? EFER_LME | EFER_LMA : 0);
	s->cr0 = CR0_PE | CR0_ET | CR0_PG;
	s->cr3 = m64 ? PML4 : PD32;
	s->cr4 = (m64 ? CR4_PAE : 0) | (guest & 0x10 ? CR4_OSXSAVE : 0);
	s->dr6 = 0xffff0ff0;
	s->dr7 = 0x400;
	s->rflags = 2;
	s->rip = L2_CODE;
	s->rsp = L2_STACK;
	s->rax = 0x1234;
	s->g_pat = 0x0007040600070406ull;
}

/* Typed operators: each moves one field the way the APM's rules look at it,
 * to either side of the rule (failing or legal). */
void svm_exit_mutate(struct vmcb *v, uint8_t op, uint8_t a, uint8_t b)
{
	struct vmcb_save *s = &v->save;
	struct vmcb_control *c = &v->control;
	switch (op % 16) {
	case 0: {          /* CR0: the check bits, the model's free bits, PE/PG */
		static const uint8_t bits[] = { 30, 29, 16, 18, 5, 3, 1, 2, 0, 31, 32, 40, 63 };
		s->cr0 ^= 1ull << bits[a % sizeof(bits)];
		break;
	}
	case 1: {          /* CR3: PWT/PCD (legal), reserved low bits, above 31, above MAXPHYADDR */
		static const uint8_t bits[] = { 3, 4, 0, 7, 31, 35, 39, 40, 51, 52, 63 };
		s->cr3 ^= 1ull << bits[a % sizeof(bits)];
		break;
	}
	case 2:            /* CR4: any bit 0-31, sometimes above */
		s->cr4 ^= 1ull << (b & 1 ? a % 32 : a % 64);
		break;
	case 3:            /* DR6/DR7: the high half, or a legal low bit of DR6 */
		if (a & 1)
			s->dr7 |= 1ull << (32 + b % 32);
		else if (a & 2)
			s->dr6 |= 1ull << (32 + b % 32);
		else
			s->dr6 ^= 1ull << (b % 4);
		break;
	case 4:            /* EFER: any bit 0-23, sometimes above */
		s->efer ^= 1ull << (b & 1 ? a % 24 : a % 64);
		break;
	case 5:
		s->efer &= ~(uint64_t)EFER_SVME;
		break;
	case 6:            /* CS attributes: the L/D lattice */
		s->cs.attrib ^= a & 1 ? SVM_SEG_ATTR_L : SVM_SEG_ATTR_DB;
		if (a & 2)
			s->cs.attrib ^= SVM_SEG_ATTR_L | SVM_SEG_ATTR_DB;
		break;
	case 7:
		c->intercepts[SVM_INTERCEPT_VMRUN / 32] &= ~(1u << (SVM_INTERCEPT_VMRUN % 32));
		break;
	case 8:
		c->guest_asid = a & 1 ? 0 : 1u + b;
		break;
	case 9: {          /* EVENTINJ: any TYPE and vector, EV with an error code */
		uint64_t w = SVM_EVENT_VALID | ((uint64_t)(a & 7) << 8) | b;
		if (a & 8)
			w |= SVM_EVENT_ERROR_VALID | ((uint64_t)(a >> 4) << 32);
		if ((a & 0x70) == 0x70)
			w |= 1ull << 12;   /* a reserved bit */
		c->eventinj = w;
		break;
	}
	case 10:
	case 11: {         /* a permission map's base against MAXPHYADDR (40 bits) */
		uint64_t size = op % 16 == 10 ? SVM_MSRPM_SIZE : SVM_IOPM_SIZE;
		uint64_t top = 1ull << 40;
		uint64_t choices[] = { top - size, top - size + 0x1000, top - size + 0xfff, top, 1ull << 63,
				       (op % 16 == 10 ? MSRPM : IOPM) | 0xfff };
		uint64_t *base = op % 16 == 10 ? &c->msrpm_base_pa : &c->iopm_base_pa;
		*base = choices[a % 6];
		break;
	}
	case 12:           /* paired invariants: break one side of LME/PG/PE/PAE/LMA */
		switch (a % 6) {
		case 0: s->cr4 &= ~(uint64_t)CR4_PAE; break;
		case 1: s->cr0 &= ~(uint64_t)CR0_PE; break;
		case 2: s->efer ^= EFER_LMA; break;
		case 3: s->efer ^= EFER_LME; break;
		case 4: s->cr0 &= ~(uint64_t)CR0_PG; break;
		default: s->cr0 &= ~(uint64_t)(CR0_PG | CR0_PE); break;
		}
		break;
	case 13:           /* RFLAGS: arithmetic flags, IF, AC, TF */
		s->rflags ^= 1ull << ((const uint8_t[]){ 0, 2, 4, 6, 7, 9, 10, 11, 18, 8 })[a % 10];
		break;
	case 14:           /* segment bases: canonical or not (FS), the Escape base (DS) */
		if (a & 1)
			s->fs.base = b & 1 ? 0x8000000000000000ull : 0x7fffffff000ull;
		else
			s->ds.base = s->ds.base ? 0 : SEG_BASE_ESCAPE;
		break;
	default:           /* TLB_CONTROL: do nothing or flush all */
		c->tlb_control = a & 1;
		break;
	}
}
