/* The oracle's reading of APM2 15.5.1: the consistency checks VMRUN makes
 * of the guest state and the controls; any failing one ends the VMRUN with
 * VMEXIT_INVALID. */
#include "fuzz/svm_oracle_sim.h"

uint64_t oracle_cr4_valid(const struct oracle_cpu *cpu)
{
	/* APM2 3.1.3: each CR4 bit exists when its CPUID feature does. */
	uint64_t v = 1ull << 8;            /* PCE */
	if (cpu->id.cpuid1_edx & (1u << 1))
		v |= 3;                    /* VME, PVI */
	if (cpu->id.cpuid1_edx & (1u << 4))
		v |= 1ull << 2;            /* TSD */
	if (cpu->id.cpuid1_edx & (1u << 2))
		v |= 1ull << 3;            /* DE */
	if (cpu->id.cpuid1_edx & (1u << 3))
		v |= 1ull << 4;            /* PSE */
	if (cpu->id.cpuid1_edx & (1u << 6))
		v |= 1ull << 5;            /* PAE */
	if (cpu->id.cpuid1_edx & (1u << 7))
		v |= 1ull << 6;            /* MCE */
	if (cpu->id.cpuid1_edx & (1u << 13))
		v |= 1ull << 7;            /* PGE */
	if (cpu->id.cpuid1_edx & (1u << 24))
		v |= 1ull << 9;            /* OSFXSR */
	if (cpu->id.cpuid1_edx & (1u << 25))
		v |= 1ull << 10;           /* OSXMMEXCPT */
	if (cpu->id.cpuid7_ecx & (1u << 2))
		v |= 1ull << 11;           /* UMIP */
	if (cpu->id.cpuid7_ecx & (1u << 16))
		v |= 1ull << 12;           /* LA57 */
	if (cpu->id.cpuid7_ebx & (1u << 0))
		v |= 1ull << 16;           /* FSGSBASE */
	if (cpu->id.cpuid1_ecx & (1u << 17))
		v |= 1ull << 17;           /* PCIDE */
	if (cpu->id.cpuid1_ecx & (1u << 26))
		v |= 1ull << 18;           /* OSXSAVE */
	if (cpu->id.cpuid7_ebx & (1u << 7))
		v |= 1ull << 20;           /* SMEP */
	if (cpu->id.cpuid7_ebx & (1u << 20))
		v |= 1ull << 21;           /* SMAP */
	if (cpu->id.cpuid7_ecx & (1u << 3))
		v |= 1ull << 22;           /* PKE */
	if (cpu->id.cpuid7_ecx & (1u << 7))
		v |= 1ull << 23;           /* CET */
	return v;
}

/* APM2 3.1.7 EFER: the bits whose CPUID gate the oracle knows; LME/LMA are
 * the next check's. Bits 13, 17, 18, 20 and 21 depend on CPUID bits the
 * oracle does not read: a VMCB with them set is "unknown". */
#define EFER_UNSURE ((1ull << 13) | (1ull << 17) | (1ull << 18) | (1ull << 20) | (1ull << 21))
static uint64_t efer_valid(const struct oracle_cpu *cpu)
{
	uint64_t v = EFER_LME | EFER_LMA;
	if (cpu->id.cpuid81_edx & (1u << 11))
		v |= EFER_SCE;
	if (cpu->id.cpuid81_edx & (1u << 20))
		v |= EFER_NXE;
	if (cpu->id.cpuid81_ecx & (1u << 2))
		v |= EFER_SVME;
	if (cpu->id.cpuid81_edx & (1u << 25))
		v |= EFER_FFXSR;
	if (cpu->id.cpuid81_ecx & (1u << 17))
		v |= EFER_TCE;
	return v;
}

static bool map_beyond(uint64_t base, uint64_t size, unsigned maxphyaddr)
{
	/* Table B-1: bits 11:0 of the base are ignored. */
	uint64_t last = (base & ~0xfffull) + size - 1;
	return maxphyaddr < 64 && (last >> maxphyaddr) != 0;
}

/* The failing checks (definite) and those the oracle cannot decide. */
void oracle_checks(const struct oracle_input *in, uint32_t *fail, uint32_t *unsure)
{
	const struct vmcb_save *v = &in->vmcb->save;
	const struct vmcb_control *c = &in->vmcb->control;
	const struct oracle_cpu *cpu = in->cpu;
	bool lme_pg = (v->efer & EFER_LME) && (v->cr0 & CR0_PG);
	uint32_t f = 0, u = 0;

	if (!(v->efer & EFER_SVME))
		f |= 1u << CHK_SVME;
	if (!(v->cr0 & CR0_CD) && (v->cr0 & CR0_NW))
		f |= 1u << CHK_CD_NW;
	if (v->cr0 >> 32)
		f |= 1u << CHK_CR0_HIGH;
	/* APM2 3.1.2: long-mode CR3 holds a base up to bit 51, bits 63:52 and
	 * those above MAXPHYADDR MBZ; legacy CR3 is 32 bits, 63:32 MBZ. The low
	 * "reserved" bits' MBZ-ness the oracle leaves open. */
	unsigned width = lme_pg ? cpu->id.maxphyaddr : 32;
	if (width < 64 && (v->cr3 >> width))
		f |= 1u << CHK_CR3_MBZ;
	else if (v->cr3 & 0xfe7)
		u |= 1u << CHK_CR3_MBZ;
	if (v->cr4 & ~oracle_cr4_valid(cpu))
		f |= 1u << CHK_CR4_MBZ;
	if (v->dr6 >> 32)
		f |= 1u << CHK_DR6_HIGH;
	if (v->dr7 >> 32)
		f |= 1u << CHK_DR7_HIGH;
	if (v->efer & ~(efer_valid(cpu) | EFER_UNSURE))
		f |= 1u << CHK_EFER_MBZ;
	else if (v->efer & EFER_UNSURE)
		u |= 1u << CHK_EFER_MBZ;
	if ((v->efer & (EFER_LME | EFER_LMA)) && !(cpu->id.cpuid81_edx & (1u << 29)))
		f |= 1u << CHK_NO_LONG_MODE;
	if (lme_pg && !(v->cr4 & CR4_PAE))
		f |= 1u << CHK_LM_NO_PAE;
	if (lme_pg && !(v->cr0 & CR0_PE))
		f |= 1u << CHK_LM_NO_PE;
	if (lme_pg && (v->cr4 & CR4_PAE) && (v->cs.attrib & SEG_L) && (v->cs.attrib & SEG_DB))
		f |= 1u << CHK_LM_CS_L_D;
	if (!((c->intercepts[I_VMRUN / 32] >> (I_VMRUN % 32)) & 1u))
		f |= 1u << CHK_VMRUN_ICPT;
	if (map_beyond(c->msrpm_base_pa, 8192, cpu->id.maxphyaddr))
		f |= 1u << CHK_MSRPM_BEYOND;
	if (map_beyond(c->iopm_base_pa, 12288, cpu->id.maxphyaddr))
		f |= 1u << CHK_IOPM_BEYOND;
	uint64_t e = c->eventinj;
	if (e & EV_VALID) {
		unsigned type = (unsigned)(e >> 8) & 7, vec = (unsigned)e & 0xff;
		/* APM2 15.20: TYPE 1, 5, 6, 7 are reserved; an exception's vector
		 * is 0-31 and not 2 (NMI has its own TYPE). */
		if (type == 1 || type >= 5 || (type == EV_EXCP && (vec == 2 || vec > 31)))
			f |= 1u << CHK_EVENTINJ;
		else if ((e & 0x7ffff000ull) || (type == EV_EXCP && vec == 5 && lme_pg))
			u |= 1u << CHK_EVENTINJ;   /* reserved bits, #BR into long mode */
	}
	if (c->guest_asid == 0)
		f |= 1u << CHK_ASID;
	for (unsigned k = 0; k < CHK_COUNT; k++)
		if (!(u >> k & 1))
			hit(R_CHECKS_FIRST + (int)k, f >> k & 1);
	*fail = f;
	*unsure = u;
}
