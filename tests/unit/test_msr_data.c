/* Check suite for the per-model MSR data (emu/cpu_models.c, emu/msr.c): every
 * model's VMX capability MSRs against the rules of SDM Vol.3 Appendix A, SVM's
 * CPUID Fn8000_000A against APM3 E.4.9, and the hypervisor-extension switch:
 * with cpu->hv_available clear no model reports or accepts VMX/SVM, with it
 * set the MSRs and CPUID return the model's data. */
#include <check.h>
#include <string.h>

#include "emu/cpu_model.h"
#include "machine_fixture.h"
#include "suite_runner.h"
#include "svm/capabilities.h"
#include "vmx/capabilities.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_fields.h"

/* RDMSR through the instruction; the value in *v on ST_OK. */
static status_t rdmsr(struct test_machine *m, uint32_t index, uint64_t *v)
{
	m->cpu.regs[R_CX] = index;
	status_t st = EXEC(m, 0x0f, 0x32);
	*v = (m->cpu.regs[R_DX] << 32) | (uint32_t)m->cpu.regs[R_AX];
	return st;
}

/* CPUID through the instruction. */
static void cpuid(struct test_machine *m, uint32_t leaf, uint32_t out[4])
{
	m->cpu.regs[R_AX] = leaf;
	m->cpu.regs[R_CX] = 0;
	ck_assert_int_eq(EXEC(m, 0x0f, 0xa2), ST_OK);
	out[0] = (uint32_t)m->cpu.regs[R_AX];
	out[1] = (uint32_t)m->cpu.regs[R_BX];
	out[2] = (uint32_t)m->cpu.regs[R_CX];
	out[3] = (uint32_t)m->cpu.regs[R_DX];
}

/* The model's value of a capability MSR; fails the case if it has none. */
static uint64_t cap(const struct cpu_model *cm, uint32_t index)
{
	uint64_t v = 0;
	ck_assert_msg(cpu_model_vmx_cap(cm, index, &v), "%s: no MSR %x", cm->name, index);
	return v;
}
static bool has_cap(const struct cpu_model *cm, uint32_t index)
{
	uint64_t v;
	return cpu_model_vmx_cap(cm, index, &v);
}
static bool may_be_1(const struct cpu_model *cm, uint32_t index, unsigned bit)
{
	uint64_t v;
	return cpu_model_vmx_cap(cm, index, &v) && (vmx_ctl_may_be_1(v) >> bit) & 1;
}

static bool is_vmx(const struct cpu_model *cm) { return cm->hv_ext == HV_EXT_VMX; }

/* Is cm a VMX model? For the others, check that they carry no VMX data. */
static bool vmx_model(const struct cpu_model *cm)
{
	if (is_vmx(cm))
		return true;
	ck_assert_uint_eq(cm->vmx_cap_count, 0);
	ck_assert(!has_cap(cm, MSR_VMX_BASIC));
	ck_assert(!cpu_model_has_hv(cm, true, 1, 2, 5));
	return false;
}
static bool long_mode(const struct cpu_model *cm) { return cpu_model_has(cm, 0x80000001, 3, 29); }

/* The controls SDM Vol.3 24.6-24.8 define (mmu/x86_vmx.h), as masks. */
static uint32_t mask_of(const unsigned *bits, size_t n)
{
	uint32_t m = 0;
	for (size_t i = 0; i < n; i++)
		m |= VMX_CTL(bits[i]);
	return m;
}
#define MASK(a) mask_of((a), sizeof(a) / sizeof((a)[0]))
static const unsigned pin_bits[] = { VMX_PIN_EXT_INTR_EXITING, VMX_PIN_NMI_EXITING,
	VMX_PIN_VIRTUAL_NMIS, VMX_PIN_PREEMPTION_TIMER, VMX_PIN_POSTED_INTERRUPTS };
static const unsigned proc_bits[] = { VMX_PROC_INTR_WINDOW_EXITING, VMX_PROC_TSC_OFFSETTING,
	VMX_PROC_HLT_EXITING, VMX_PROC_INVLPG_EXITING, VMX_PROC_MWAIT_EXITING,
	VMX_PROC_RDPMC_EXITING, VMX_PROC_RDTSC_EXITING, VMX_PROC_CR3_LOAD_EXITING,
	VMX_PROC_CR3_STORE_EXITING, VMX_PROC_TERTIARY_CONTROLS, VMX_PROC_CR8_LOAD_EXITING,
	VMX_PROC_CR8_STORE_EXITING, VMX_PROC_TPR_SHADOW, VMX_PROC_NMI_WINDOW_EXITING,
	VMX_PROC_MOV_DR_EXITING, VMX_PROC_UNCOND_IO_EXITING, VMX_PROC_IO_BITMAPS,
	VMX_PROC_MONITOR_TRAP_FLAG, VMX_PROC_MSR_BITMAPS, VMX_PROC_MONITOR_EXITING,
	VMX_PROC_PAUSE_EXITING, VMX_PROC_SECONDARY_CONTROLS };
static const unsigned proc2_bits[] = { VMX_PROC2_VIRTUALIZE_APIC, VMX_PROC2_EPT,
	VMX_PROC2_DESC_TABLE_EXITING, VMX_PROC2_RDTSCP, VMX_PROC2_VIRTUALIZE_X2APIC, VMX_PROC2_VPID,
	VMX_PROC2_WBINVD_EXITING, VMX_PROC2_UNRESTRICTED_GUEST, VMX_PROC2_APIC_REGISTER_VIRT,
	VMX_PROC2_VIRTUAL_INTR_DELIVERY, VMX_PROC2_PAUSE_LOOP_EXITING, VMX_PROC2_RDRAND_EXITING,
	VMX_PROC2_INVPCID, VMX_PROC2_VM_FUNCTIONS, VMX_PROC2_VMCS_SHADOWING,
	VMX_PROC2_ENCLS_EXITING, VMX_PROC2_RDSEED_EXITING, VMX_PROC2_PML,
	VMX_PROC2_EPT_VIOLATION_VE, VMX_PROC2_CONCEAL_VMX_FROM_PT, VMX_PROC2_XSAVES,
	VMX_PROC2_PASID_TRANSLATION, VMX_PROC2_MODE_BASED_EPT_EXEC, VMX_PROC2_SUBPAGE_WRITE,
	VMX_PROC2_PT_GUEST_PHYSICAL, VMX_PROC2_TSC_SCALING, VMX_PROC2_USER_WAIT_PAUSE,
	VMX_PROC2_PCONFIG, VMX_PROC2_ENCLV_EXITING, VMX_PROC2_BUS_LOCK_DETECTION,
	VMX_PROC2_INSTRUCTION_TIMEOUT };
static const unsigned exit_bits[] = { VMX_EXITCTL_SAVE_DEBUG_CONTROLS,
	VMX_EXITCTL_HOST_ADDR_SPACE_SIZE, VMX_EXITCTL_LOAD_PERF_GLOBAL_CTRL,
	VMX_EXITCTL_ACK_INTR_ON_EXIT, VMX_EXITCTL_SAVE_PAT, VMX_EXITCTL_LOAD_PAT,
	VMX_EXITCTL_SAVE_EFER, VMX_EXITCTL_LOAD_EFER, VMX_EXITCTL_SAVE_PREEMPTION_TIMER,
	VMX_EXITCTL_CLEAR_BNDCFGS, VMX_EXITCTL_CONCEAL_VMX_FROM_PT, VMX_EXITCTL_CLEAR_RTIT_CTL,
	VMX_EXITCTL_CLEAR_LBR_CTL, VMX_EXITCTL_CLEAR_UINV, VMX_EXITCTL_LOAD_CET_STATE,
	VMX_EXITCTL_LOAD_PKRS, VMX_EXITCTL_SAVE_PERF_GLOBAL_CTRL, VMX_EXITCTL_SECONDARY_CONTROLS };
static const unsigned entry_bits[] = { VMX_ENTRYCTL_LOAD_DEBUG_CONTROLS,
	VMX_ENTRYCTL_IA32E_MODE_GUEST, VMX_ENTRYCTL_TO_SMM, VMX_ENTRYCTL_DEACTIVATE_DUAL_MONITOR,
	VMX_ENTRYCTL_LOAD_PERF_GLOBAL_CTRL, VMX_ENTRYCTL_LOAD_PAT, VMX_ENTRYCTL_LOAD_EFER,
	VMX_ENTRYCTL_LOAD_BNDCFGS, VMX_ENTRYCTL_CONCEAL_VMX_FROM_PT, VMX_ENTRYCTL_LOAD_RTIT_CTL,
	VMX_ENTRYCTL_LOAD_UINV, VMX_ENTRYCTL_LOAD_CET_STATE, VMX_ENTRYCTL_LOAD_LBR_CTL,
	VMX_ENTRYCTL_LOAD_PKRS };

/* ---- the switch ---- */

/* CPUID, executed: VMX (1:ECX[5]) and SVM (80000001H:ECX[2], leaf 8000000AH)
 * appear only with the switch on, and only on the model whose part has them;
 * every other bit of every leaf is the same either way. */
START_TEST(cpuid_follows_switch)
{
	const uint32_t leaves[] = { 0, 1, 7, 0xd, 0x80000000, 0x80000001, 0x80000008, 0x8000000a };
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine off, on;

	machine_init_model(&off, cm);
	machine_init_model(&on, cm);
	on.cpu.hv_available = true;
	for (unsigned i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		uint32_t a[4], b[4];
		cpuid(&off, leaves[i], a);
		cpuid(&on, leaves[i], b);
		if (leaves[i] == 1) {
			ck_assert(!(a[2] & (1u << 5)));
			ck_assert(!!(b[2] & (1u << 5)) == is_vmx(cm));
			a[2] |= b[2] & (1u << 5);
		}
		if (leaves[i] == 0x80000001) {
			ck_assert(!(a[2] & (1u << 2)));
			ck_assert(!!(b[2] & (1u << 2)) == (cm->hv_ext == HV_EXT_SVM));
			a[2] |= b[2] & (1u << 2);
		}
		if (leaves[i] == 0x8000000a && cm->hv_ext == HV_EXT_SVM) {
			/* APM3 E.4.9: reserved (zeros) without SVM. */
			ck_assert_uint_eq(a[0] | a[1] | a[2] | a[3], 0);
			ck_assert_uint_ne(b[0], 0);
			memcpy(a, b, sizeof(a));
		}
		ck_assert_mem_eq(a, b, sizeof(a));
	}
	machine_free(&off);
	machine_free(&on);
}
END_TEST

/* SDM Vol.4 Table 2-2: the capability MSRs exist "If CPUID.01H:ECX.[5] = 1";
 * IA32_FEATURE_CONTROL if VMX or SMX; APM2 15.30: VM_CR and VM_HSAVE_PA with
 * SVM; CR4.VMXE and EFER.SVME are reserved without them. With the switch off
 * all of that is #GP(0) on every model. */
START_TEST(switch_off_hides_everything)
{
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine m;
	uint64_t v;

	machine_init_model(&m, cm);
	for (uint32_t idx = MSR_VMX_FIRST; idx <= MSR_VMX_LAST; idx++)
		assert_gp0(&m, rdmsr(&m, idx, &v));
	assert_gp0(&m, rdmsr(&m, MSR_FEATURE_CONTROL, &v));
	assert_gp0(&m, wrmsr(&m, MSR_FEATURE_CONTROL, 5));
	assert_gp0(&m, rdmsr(&m, MSR_VM_CR, &v));
	assert_gp0(&m, rdmsr(&m, MSR_VM_HSAVE_PA, &v));
	if (cm->hv_ext == HV_EXT_SVM)
		assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_SVME));
	assert_gp0(&m, mov_cr(&m, 4, CR4_VMXE));
	ck_assert_uint_eq(m.cpu.cr4, 0);
	machine_free(&m);
}
END_TEST

/* With the switch on: RDMSR of 480H-493H returns the model's data where the
 * part has the MSR and is #GP(0) where it does not; WRMSR to any of them is
 * #GP(0) (SDM Vol.3 Appendix A: read-only). IA32_FEATURE_CONTROL takes lock and
 * "VMX outside SMX" but not "VMX inside SMX" (no SMX); CR4.VMXE can be set. */
START_TEST(switch_on_shows_vmx_data)
{
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine m;
	uint64_t v, want;

	machine_init_model(&m, cm);
	m.cpu.hv_available = true;
	if (!is_vmx(cm)) {
		/* No VMX on the part: nothing to switch on. */
		assert_gp0(&m, rdmsr(&m, MSR_VMX_BASIC, &v));
		assert_gp0(&m, mov_cr(&m, 4, CR4_VMXE));
		machine_free(&m);
		return;
	}
	unsigned present = 0;
	for (uint32_t idx = MSR_VMX_FIRST; idx <= MSR_VMX_LAST; idx++) {
		if (cpu_model_vmx_cap(cm, idx, &want)) {
			present++;
			ck_assert_int_eq(rdmsr(&m, idx, &v), ST_OK);
			ck_assert_uint_eq(v, want);
			assert_gp0(&m, wrmsr(&m, idx, want));
		} else {
			assert_gp0(&m, rdmsr(&m, idx, &v));
		}
	}
	ck_assert_uint_eq(present, cm->vmx_cap_count);
	ck_assert_int_eq(rdmsr(&m, MSR_FEATURE_CONTROL, &v), ST_OK);
	ck_assert_uint_eq(v, 0);
	assert_gp0(&m, wrmsr(&m, MSR_FEATURE_CONTROL, FEATURE_CONTROL_VMX_IN_SMX));
	ck_assert_int_eq(wrmsr(&m, MSR_FEATURE_CONTROL,
			       FEATURE_CONTROL_LOCK | FEATURE_CONTROL_VMX_NO_SMX), ST_OK);
	ck_assert(vmx_vmxon_allowed(m.cpu.feature_control, false));
	assert_gp0(&m, wrmsr(&m, MSR_FEATURE_CONTROL, 0));      /* locked */
	ck_assert_int_eq(mov_cr(&m, 4, CR4_VMXE), ST_OK);
	machine_free(&m);
}
END_TEST

/* APM2 15.30.1, 15.4: with the switch on, VM_CR and VM_HSAVE_PA exist and
 * EFER.SVME can be set unless VM_CR.SVMDIS. */
START_TEST(switch_on_shows_svm)
{
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine m;
	uint64_t v;

	machine_init_model(&m, cm);
	m.cpu.hv_available = true;
	if (cm->hv_ext != HV_EXT_SVM) {
		/* No SVM on the part: nothing to switch on. */
		assert_gp0(&m, rdmsr(&m, MSR_VM_CR, &v));
		machine_free(&m);
		return;
	}
	ck_assert_int_eq(rdmsr(&m, MSR_VM_CR, &v), ST_OK);
	ck_assert_int_eq(wrmsr(&m, MSR_VM_HSAVE_PA, 0x5000), ST_OK);
	ck_assert_int_eq(rdmsr(&m, MSR_VM_HSAVE_PA, &v), ST_OK);
	ck_assert_uint_eq(v, 0x5000);
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_SVME), ST_OK);
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, 0), ST_OK);
	ck_assert_int_eq(wrmsr(&m, MSR_VM_CR, VM_CR_SVMDIS), ST_OK);
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_SVME));
	/* Intel's VMX MSRs stay absent on an AMD part. */
	assert_gp0(&m, rdmsr(&m, MSR_VMX_BASIC, &v));
	machine_free(&m);
}
END_TEST

/* The WRMSR rules of the SVM MSRs (emu/msr.c), one row each: from a state of
 * EFER and VM_CR, a write that succeeds (and reads back as `expect`) or is
 * #GP(0). On "epyc-lite" (40 physical address bits) with SVM available. */
static const struct svm_msr_row {
	const char *rule;
	uint64_t efer, vm_cr;      /* state before the write */
	uint32_t msr;
	uint64_t value;
	bool gp;
	uint64_t expect;           /* the MSR afterwards, if no #GP */
} svm_msr_rows[] = {
	{ "APM2 15.30.4: VM_HSAVE_PA 4 KiB aligned", 0, 0, MSR_VM_HSAVE_PA, 0x10000, false, 0x10000 },
	{ "APM2 15.30.4: VM_HSAVE_PA not 4 KiB aligned", 0, 0, MSR_VM_HSAVE_PA, 0x10008, true, 0 },
	{ "APM2 15.30.4: VM_HSAVE_PA at MAXPHYADDR", 0, 0, MSR_VM_HSAVE_PA, 1ull << 40, true, 0 },
	{ "APM2 15.30.4: VM_HSAVE_PA's last page", 0, 0, MSR_VM_HSAVE_PA, (1ull << 40) - 0x1000,
	  false, (1ull << 40) - 0x1000 },
	{ "APM2 15.30.1: VM_CR bits 63:5 reserved", 0, 0, MSR_VM_CR, 1u << 5, true, 0 },
	{ "APM2 15.30.1: VM_CR.SVMDIS", 0, 0, MSR_VM_CR, VM_CR_SVMDIS, false, VM_CR_SVMDIS },
	{ "APM2 15.30.1: LOCK makes LOCK and SVMDIS read-only", 0, VM_CR_LOCK, MSR_VM_CR,
	  VM_CR_SVMDIS | VM_CR_DPD, false, VM_CR_LOCK | VM_CR_DPD },
	{ "APM2 15.30.1: SVMDIS while EFER.SVME = 1", EFER_SVME, 0, MSR_VM_CR, VM_CR_SVMDIS, true, 0 },
	{ "APM2 15.4: EFER.SVME while VM_CR.SVMDIS = 0", 0, 0, MSR_EFER, EFER_SVME, false, EFER_SVME },
	{ "APM2 15.4: EFER.SVME while VM_CR.SVMDIS = 1", 0, VM_CR_SVMDIS, MSR_EFER, EFER_SVME, true, 0 },
	{ "APM2 15.4: clearing EFER.SVME while VM_CR.SVMDIS = 1", EFER_SVME, VM_CR_SVMDIS, MSR_EFER, 0,
	  false, 0 },
};

START_TEST(svm_msr_rules)
{
	const struct svm_msr_row *r = &svm_msr_rows[_i];
	struct test_machine m;
	uint64_t v;

	machine_init_model(&m, cpu_model_find("epyc-lite"));
	m.cpu.hv_available = true;
	m.cpu.efer = r->efer;
	m.cpu.vm_cr = r->vm_cr;
	status_t st = wrmsr(&m, r->msr, r->value);
	if (r->gp) {
		assert_gp0(&m, st);
	} else {
		ck_assert_msg(st == ST_OK, "%s: WRMSR failed", r->rule);
		ck_assert_int_eq(rdmsr(&m, r->msr, &v), ST_OK);
		ck_assert_msg(v == r->expect, "%s: reads %#llx", r->rule, (unsigned long long)v);
	}
	machine_free(&m);
}
END_TEST

/* IA32_MISC_ENABLE as model data (SDM Vol.4 Table 2-2, 1A0H): on the
 * family-6 Intel models it reads its reset value (fast strings on, performance
 * monitoring available, BTS/PEBS unavailable, MONITOR FSM on); the bits the
 * part's MSR table makes R/W change, writes leave the read-only bits, other
 * bits are #GP(0); kvm-unit-tests' msr.flat values (0x400c50809 and
 * 0x400c50089 with 7/11/12 read-only) read back. The other models have no such
 * MSR. */
START_TEST(misc_enable_data)
{
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine m;
	uint64_t v;
	bool intel6 = cm->vendor == VENDOR_INTEL && ((cm->signature >> 8) & 0xf) >= 6;
	bool core2 = !strcmp(cm->name, "core2");
	const uint64_t ro = (1u << 7) | (1u << 11) | (1u << 12);

	machine_init_model(&m, cm);
	if (!intel6) {
		assert_gp0(&m, rdmsr(&m, MSR_MISC_ENABLE, &v));
		machine_free(&m);
		return;
	}
	ck_assert_int_eq(rdmsr(&m, MSR_MISC_ENABLE, &v), ST_OK);
	ck_assert_uint_eq(v, (1u << 0) | ro | (1u << 18));
	ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, (1u << 3) | (1u << 22)), ST_OK);
	ck_assert_int_eq(rdmsr(&m, MSR_MISC_ENABLE, &v), ST_OK);
	ck_assert_uint_eq(v, (1u << 3) | (1u << 22) | ro);
	static const uint64_t msr_flat[] = { 0x400c50809ull, 0x400c50089ull };
	for (unsigned k = 0; k < 2; k++) {
		ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, msr_flat[k]), ST_OK);
		ck_assert_int_eq(rdmsr(&m, MSR_MISC_ENABLE, &v), ST_OK);
		ck_assert_uint_eq(v, msr_flat[k] | ro);
	}
	assert_gp0(&m, wrmsr(&m, MSR_MISC_ENABLE, 1u << 1));
	assert_gp0(&m, wrmsr(&m, MSR_MISC_ENABLE, 1ull << 35));
	assert_gp0(&m, wrmsr(&m, MSR_MISC_ENABLE, 1ull << 21));
	ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, 1ull << 38), ST_OK);
	/* Core 2 only (SDM Vol.4 Table 2-3): DCU prefetcher disable (37) and
	 * EIST select lock (20, R/WO: a 0 written later leaves it 1). */
	if (core2) {
		ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, (1ull << 37) | (1ull << 20)), ST_OK);
		ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, 0), ST_OK);
		ck_assert_int_eq(rdmsr(&m, MSR_MISC_ENABLE, &v), ST_OK);
		ck_assert_uint_eq(v, (1ull << 20) | ro);
	} else {
		assert_gp0(&m, wrmsr(&m, MSR_MISC_ENABLE, 1ull << 37));
		assert_gp0(&m, wrmsr(&m, MSR_MISC_ENABLE, 1ull << 20));
	}
	machine_free(&m);
}
END_TEST

/* IA32_MISC_ENABLE's effects (SDM Vol.4 Table 2-2): bit 34 (XD bit disable)
 * hides CPUID.80000001H:EDX.NX and makes EFER.NXE reserved; bit 22 limits
 * CPUID.0:EAX to 2. Clearing them gives both back. */
START_TEST(misc_enable_effects)
{
	struct test_machine m;
	uint32_t r[4];
	machine_init(&m, "skylake-lite");
	uint64_t v0;
	ck_assert_int_eq(rdmsr(&m, MSR_MISC_ENABLE, &v0), ST_OK);
	ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, v0 | (1ull << 34)), ST_OK);
	cpuid(&m, 0x80000001, r);
	ck_assert_uint_eq((r[3] >> 20) & 1, 0);
	assert_gp0(&m, wrmsr(&m, MSR_EFER, EFER_NXE));
	ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, v0 | (1ull << 22)), ST_OK);
	cpuid(&m, 0x80000001, r);
	ck_assert_uint_eq((r[3] >> 20) & 1, 1);
	ck_assert_int_eq(wrmsr(&m, MSR_EFER, EFER_NXE), ST_OK);
	cpuid(&m, 0, r);
	ck_assert_uint_eq(r[0], 2);
	ck_assert_int_eq(wrmsr(&m, MSR_MISC_ENABLE, v0), ST_OK);
	cpuid(&m, 0, r);
	ck_assert_uint_eq(r[0], 0x16);
	machine_free(&m);
}
END_TEST

/* The machine-check MSRs (SDM Vol.3 15.3; APM2 9.3): with CPUID MCA,
 * IA32_MCG_CAP is the model's and read-only, IA32_MCG_STATUS holds bits 2:0,
 * IA32_MCG_CTL exists iff MCG_CTL_P and takes all 1s or all 0s; each bank's
 * CTL takes all 1s or 0s, STATUS only 0, ADDR and MISC anything; the bank
 * after the last #GPs, as kvm-unit-tests' msr.flat checks. CPUID.1:EDX.MCE
 * and MCA agree with that, and CR4.MCE can be set. */
START_TEST(mca_msrs)
{
	const struct cpu_model *cm = cpu_models[_i];
	struct test_machine m;
	uint64_t v;
	machine_init_model(&m, cm);
	bool mca = cpu_model_has(cm, 1, 3, 14);
	ck_assert_int_eq(cpu_model_has(cm, 1, 3, 7), mca);
	if (!mca) {
		assert_gp0(&m, rdmsr(&m, 0x179, &v));
		assert_gp0(&m, rdmsr(&m, 0x400, &v));
		machine_free(&m);
		return;
	}
	ck_assert_int_eq(rdmsr(&m, 0x179, &v), ST_OK);
	ck_assert_uint_eq(v, cm->mcg_cap);
	unsigned banks = v & 0xff;
	ck_assert(banks > 0 && banks <= 32);
	assert_gp0(&m, wrmsr(&m, 0x179, v));
	ck_assert_int_eq(wrmsr(&m, 0x17a, 7), ST_OK);
	assert_gp0(&m, wrmsr(&m, 0x17a, 8));
	if (v & (1u << 8)) {
		ck_assert_int_eq(wrmsr(&m, 0x17b, ~0ull), ST_OK);
		assert_gp0(&m, wrmsr(&m, 0x17b, 1));
	} else {
		assert_gp0(&m, rdmsr(&m, 0x17b, &v));
	}
	const uint64_t noncanonical = 0xaaaaaaaaaaaaaaaaull;
	for (unsigned i = 0; i < banks; i++) {
		uint32_t b = 0x400 + 4 * i;
		ck_assert_int_eq(wrmsr(&m, b, ~0ull), ST_OK);
		ck_assert_int_eq(rdmsr(&m, b, &v), ST_OK);
		ck_assert_uint_eq(v, ~0ull);
		ck_assert_int_eq(wrmsr(&m, b, 0), ST_OK);
		assert_gp0(&m, wrmsr(&m, b, noncanonical));
		ck_assert_int_eq(wrmsr(&m, b + 1, 0), ST_OK);
		assert_gp0(&m, wrmsr(&m, b + 1, 1));
		for (uint32_t r = 2; r < 4; r++) {
			ck_assert_int_eq(wrmsr(&m, b + r, noncanonical), ST_OK);
			ck_assert_int_eq(rdmsr(&m, b + r, &v), ST_OK);
			ck_assert_uint_eq(v, noncanonical);
		}
	}
	if (banks < 32) {
		for (uint32_t r = 0; r < 4; r++) {
			assert_gp0(&m, rdmsr(&m, 0x400 + 4 * banks + r, &v));
			assert_gp0(&m, wrmsr(&m, 0x400 + 4 * banks + r, 0));
		}
	}
	ck_assert_int_eq(mov_cr(&m, 4, CR4_MCE), ST_OK);
	machine_free(&m);
}
END_TEST

/* ---- VMX capability data (SDM Vol.3 Appendix A) ---- */

/* Which capability MSRs exist: 480H-48AH on every VMX part; 48BH iff
 * "activate secondary controls" may be 1 (A.3.3); 48CH iff "enable EPT" or
 * "enable VPID" may be 1 (A.10); 48DH-490H iff BASIC[55] (A.2); 491H iff
 * "enable VM functions" may be 1 (A.11); 492H iff "activate tertiary controls"
 * may be 1 (A.3.4); 493H iff "activate secondary VM-exit controls" may be 1
 * (A.4.2). The other models have none. */
START_TEST(vmx_msrs_exist_as_sdm_says)
{
	const struct cpu_model *cm = cpu_models[_i];

	if (!is_vmx(cm)) {
		for (uint32_t idx = MSR_VMX_FIRST; idx <= MSR_VMX_LAST; idx++)
			ck_assert(!has_cap(cm, idx));
		ck_assert_uint_eq(cm->vmx_cap_count, 0);
		return;
	}
	ck_assert(cm->vendor == VENDOR_INTEL);
	for (uint32_t idx = MSR_VMX_BASIC; idx <= MSR_VMX_VMCS_ENUM; idx++)
		ck_assert_msg(has_cap(cm, idx), "%s lacks %x", cm->name, idx);
	bool secondary = may_be_1(cm, MSR_VMX_PROCBASED_CTLS, VMX_PROC_SECONDARY_CONTROLS);
	ck_assert(has_cap(cm, MSR_VMX_PROCBASED_CTLS2) == secondary);
	ck_assert(has_cap(cm, MSR_VMX_EPT_VPID_CAP) ==
		  (may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_EPT) ||
		   may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VPID)));
	bool true_ctls = cap(cm, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS;
	for (uint32_t idx = MSR_VMX_TRUE_PINBASED_CTLS; idx <= MSR_VMX_TRUE_ENTRY_CTLS; idx++)
		ck_assert(has_cap(cm, idx) == true_ctls);
	ck_assert(has_cap(cm, MSR_VMX_VMFUNC) ==
		  may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VM_FUNCTIONS));
	ck_assert(has_cap(cm, MSR_VMX_PROCBASED_CTLS3) ==
		  may_be_1(cm, MSR_VMX_PROCBASED_CTLS, VMX_PROC_TERTIARY_CONTROLS));
	ck_assert(has_cap(cm, MSR_VMX_EXIT_CTLS2) ==
		  may_be_1(cm, MSR_VMX_EXIT_CTLS, VMX_EXITCTL_SECONDARY_CONTROLS));
	/* Every listed MSR is in range and listed once. */
	for (unsigned i = 0; i < cm->vmx_cap_count; i++) {
		ck_assert(cm->vmx_caps[i].index >= MSR_VMX_FIRST && cm->vmx_caps[i].index <= MSR_VMX_LAST);
		for (unsigned j = i + 1; j < cm->vmx_cap_count; j++)
			ck_assert_uint_ne(cm->vmx_caps[i].index, cm->vmx_caps[j].index);
	}
}
END_TEST

/* A.1: a non-zero revision with bit 31 clear, a region size of 1 to 4096
 * bytes (bit 44 set iff 43:32 clear, and hvemu's VMCS fields must fit at 8
 * bytes each), bit 48 = 0 on Intel 64 parts, write-back (6) or uncacheable
 * (0) memory type, no reserved bits; no dual-monitor SMM treatment (hvemu has
 * no SMM), so MISC reports MSEG revision 0 (A.6). */
START_TEST(vmx_basic)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	uint64_t basic = cap(cm, MSR_VMX_BASIC);
	ck_assert_uint_eq(basic & VMX_BASIC_RESERVED, 0);
	ck_assert_uint_ne(basic & VMX_BASIC_REVISION_MASK, 0);
	uint64_t size = (basic & VMX_BASIC_VMCS_SIZE_MASK) >> VMX_BASIC_VMCS_SIZE_SHIFT;
	ck_assert(size > 0 && size <= 4096);
	ck_assert((size == 4096) == !!(basic & (1ull << 44)));
	size_t nfields;
	vmcs_field_table(&nfields);
	ck_assert_uint_ge(size, 8 + 8 * nfields);
	ck_assert(!(basic & VMX_BASIC_PA_32BIT) || !long_mode(cm));
	uint64_t memtype = (basic & VMX_BASIC_MEMTYPE_MASK) >> VMX_BASIC_MEMTYPE_SHIFT;
	ck_assert(memtype == 6 || memtype == 0);
	ck_assert(!(basic & VMX_BASIC_DUAL_MONITOR));
	ck_assert_uint_eq(cap(cm, MSR_VMX_MISC) >> VMX_MISC_MSEG_REVISION_SHIFT, 0);
}
END_TEST

/* A.3-A.5 for one control MSR and its TRUE form: allowed-0 settings are a
 * subset of allowed-1; the non-TRUE MSR reports every default1 control as
 * must-be-1 (A.2); the TRUE MSR has the same allowed-1 settings and may clear
 * only default1 bits from the allowed-0 settings; allowed-1 names only
 * controls the SDM defines (plus default1); the adjusted minimum is valid. */
static void check_ctls(const struct cpu_model *cm, uint32_t idx, uint32_t true_idx,
		       uint32_t default1, uint32_t defined)
{
	uint64_t c = cap(cm, idx);
	uint32_t must = vmx_ctl_must_be_1(c), may = vmx_ctl_may_be_1(c);

	ck_assert_msg((must & ~may) == 0, "%s %x: allowed-0 not within allowed-1", cm->name, idx);
	ck_assert_msg((default1 & ~must) == 0, "%s %x: a default1 control may be 0", cm->name, idx);
	ck_assert_msg((may & ~(defined | default1)) == 0, "%s %x: undefined control %x", cm->name,
		      idx, may & ~(defined | default1));
	ck_assert(vmx_ctl_valid(c, vmx_ctl_adjust(c, 0)));
	if (!has_cap(cm, true_idx))
		return;
	uint64_t t = cap(cm, true_idx);
	ck_assert_uint_eq(vmx_ctl_may_be_1(t), may);
	ck_assert_uint_eq(vmx_ctl_must_be_1(t) & ~must, 0);
	ck_assert_uint_eq(must & ~vmx_ctl_must_be_1(t) & ~default1, 0);
	ck_assert(vmx_ctl_valid(t, vmx_ctl_adjust(t, 0)));
}

START_TEST(vmx_controls)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	check_ctls(cm, MSR_VMX_PINBASED_CTLS, MSR_VMX_TRUE_PINBASED_CTLS, VMX_PINBASED_DEFAULT1,
		   MASK(pin_bits));
	check_ctls(cm, MSR_VMX_PROCBASED_CTLS, MSR_VMX_TRUE_PROCBASED_CTLS, VMX_PROCBASED_DEFAULT1,
		   MASK(proc_bits));
	check_ctls(cm, MSR_VMX_EXIT_CTLS, MSR_VMX_TRUE_EXIT_CTLS, VMX_EXIT_DEFAULT1,
		   MASK(exit_bits));
	check_ctls(cm, MSR_VMX_ENTRY_CTLS, MSR_VMX_TRUE_ENTRY_CTLS, VMX_ENTRY_DEFAULT1,
		   MASK(entry_bits));
	if (has_cap(cm, MSR_VMX_PROCBASED_CTLS2)) {
		uint64_t c = cap(cm, MSR_VMX_PROCBASED_CTLS2);
		ck_assert_uint_eq(vmx_ctl_must_be_1(c), 0);        /* A.3.3: all may be 0 */
		ck_assert_uint_eq(vmx_ctl_may_be_1(c) & ~MASK(proc2_bits), 0);
	}
}
END_TEST

/* Controls that need other controls or CPU features (SDM Vol.3 26.2.1.1,
 * 24.6.2, 24.7.1, 24.8.1; A.6): NMI-window exiting needs virtual NMIs, which
 * need NMI exiting; unrestricted guest needs EPT, and then VM exits store
 * EFER.LMA (MISC bit 5); saving the preemption timer needs the timer; EPTP
 * switching needs EPT; "enable RDTSCP"/"enable INVPCID" go with the CPUID
 * bits they serve; host address-space size and IA-32e mode guest exist on
 * Intel 64 parts only; the secondary controls need the primary's activate bit. */
START_TEST(vmx_control_dependencies)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	uint32_t pin = MSR_VMX_PINBASED_CTLS, proc = MSR_VMX_PROCBASED_CTLS;
	uint32_t proc2 = MSR_VMX_PROCBASED_CTLS2, ex = MSR_VMX_EXIT_CTLS, en = MSR_VMX_ENTRY_CTLS;
	if (may_be_1(cm, proc, VMX_PROC_NMI_WINDOW_EXITING))
		ck_assert(may_be_1(cm, pin, VMX_PIN_VIRTUAL_NMIS));
	if (may_be_1(cm, pin, VMX_PIN_VIRTUAL_NMIS))
		ck_assert(may_be_1(cm, pin, VMX_PIN_NMI_EXITING));
	if (may_be_1(cm, proc2, VMX_PROC2_UNRESTRICTED_GUEST)) {
		ck_assert(may_be_1(cm, proc2, VMX_PROC2_EPT));
		ck_assert(cap(cm, MSR_VMX_MISC) & VMX_MISC_STORE_LMA);
	}
	if (may_be_1(cm, ex, VMX_EXITCTL_SAVE_PREEMPTION_TIMER))
		ck_assert(may_be_1(cm, pin, VMX_PIN_PREEMPTION_TIMER));
	if (has_cap(cm, MSR_VMX_VMFUNC) && (cap(cm, MSR_VMX_VMFUNC) & VMX_VMFUNC_EPTP_SWITCHING))
		ck_assert(may_be_1(cm, proc2, VMX_PROC2_EPT));
	ck_assert(may_be_1(cm, proc2, VMX_PROC2_RDTSCP) == cpu_model_has(cm, 0x80000001, 3, 27));
	ck_assert(may_be_1(cm, proc2, VMX_PROC2_INVPCID) == cpu_model_has(cm, 7, 1, 10));
	ck_assert(may_be_1(cm, ex, VMX_EXITCTL_HOST_ADDR_SPACE_SIZE) == long_mode(cm));
	ck_assert(may_be_1(cm, en, VMX_ENTRYCTL_IA32E_MODE_GUEST) == long_mode(cm));
	if (!long_mode(cm))
		ck_assert(!may_be_1(cm, proc, VMX_PROC_TPR_SHADOW));
}
END_TEST

/* A.6: the rate is meaningful only with a preemption timer; HLT is a
 * supported activity state on every part; 0 to 256 CR3-target values (bit 24
 * set iff 23:16 clear); no reserved bits; PT, SMBASE and the SMM monitor
 * control are not claimed (hvemu has neither PT nor SMM). */
START_TEST(vmx_misc)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	uint64_t misc = cap(cm, MSR_VMX_MISC);
	ck_assert_uint_eq(misc & VMX_MISC_RESERVED, 0);
	if (!may_be_1(cm, MSR_VMX_PINBASED_CTLS, VMX_PIN_PREEMPTION_TIMER))
		ck_assert_uint_eq(misc & VMX_MISC_PREEMPT_RATE_MASK, 0);
	ck_assert(misc & VMX_MISC_ACTIVITY_HLT);
	unsigned targets = (misc & VMX_MISC_CR3_TARGETS_MASK) >> VMX_MISC_CR3_TARGETS_SHIFT;
	ck_assert(targets <= 256);
	ck_assert((targets == 256) == !!(misc & (1ull << 24)));
	ck_assert(!(misc & (VMX_MISC_PT_IN_VMX | VMX_MISC_RDMSR_SMBASE | VMX_MISC_SMM_MONITOR_CTL_B2)));
}
END_TEST

/* A.7, A.8: FIXED0 within FIXED1 ("if bit X is 1 in FIXED0, then that bit is
 * also 1 in FIXED1"); CR0.PE, NE, PG fixed to 1 and CR4.VMXE fixed to 1 in VMX
 * operation (SDM Vol.3 23.8); CR4_FIXED1 is exactly the CR4 bits MOV to CR4
 * accepts on the model (with VMX available), tried bit by bit. */
START_TEST(vmx_cr_fixed)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	uint64_t f0 = cap(cm, MSR_VMX_CR0_FIXED0), f1 = cap(cm, MSR_VMX_CR0_FIXED1);
	ck_assert_uint_eq(f0 & ~f1, 0);
	ck_assert_uint_eq(f0, CR0_PE | CR0_NE | CR0_PG);
	ck_assert(vmx_cr_fixed_valid(f0, f1, CR0_PE | CR0_NE | CR0_PG | CR0_ET | CR0_WP));
	ck_assert(!vmx_cr_fixed_valid(f0, f1, CR0_PE | CR0_PG));
	uint64_t c0 = cap(cm, MSR_VMX_CR4_FIXED0), c1 = cap(cm, MSR_VMX_CR4_FIXED1);
	ck_assert_uint_eq(c0 & ~c1, 0);
	ck_assert_uint_eq(c0, CR4_VMXE);
	ck_assert_uint_eq(c1 >> 32, 0);
	for (unsigned bit = 0; bit < 32; bit++) {
		struct test_machine m;
		machine_init_model(&m, cm);
		m.cpu.hv_available = true;
		status_t st;
		if ((1ull << bit) == CR4_PCIDE) {
			/* SDM Vol.2 MOV CR4: PCIDE only in IA-32e mode. */
			activate(&m);
			st = mov_cr(&m, 4, CR4_PAE | CR4_PCIDE);
		} else {
			st = mov_cr(&m, 4, 1ull << bit);
		}
		ck_assert_msg((st == ST_OK) == ((c1 >> bit) & 1), "%s: CR4 bit %u accepted %d, FIXED1 %d",
			      cm->name, bit, st == ST_OK, (int)((c1 >> bit) & 1));
		machine_free(&m);
	}
}
END_TEST

/* A.9: only bits 9:1; the highest index covers every field the model's
 * controls need (guest IA32_SYSENTER_CS on every part, the preemption-timer
 * value with the timer, the EPTP index with VM functions) and no index beyond
 * the SDM's table. */
START_TEST(vmx_vmcs_enum)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	uint64_t e = cap(cm, MSR_VMX_VMCS_ENUM);
	ck_assert_uint_eq(e & ~VMX_VMCS_ENUM_INDEX_MASK, 0);
	unsigned top = (unsigned)(e >> 1);
	ck_assert_uint_ge(top, vmcs_enc_index(VMCS_GUEST_IA32_SYSENTER_CS));
	if (may_be_1(cm, MSR_VMX_PINBASED_CTLS, VMX_PIN_PREEMPTION_TIMER))
		ck_assert_uint_ge(top, vmcs_enc_index(VMCS_PREEMPTION_TIMER_VALUE));
	if (may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VM_FUNCTIONS))
		ck_assert_uint_ge(top, vmcs_enc_index(VMCS_EPTP_INDEX));
	ck_assert_uint_le(top, vmcs_field_max_index());
}
END_TEST

/* A.10: EPT capabilities iff "enable EPT" may be 1, VPID ones iff "enable
 * VPID" may be 1; with EPT, 4-level walks, a WB or UC paging-structure type
 * and INVEPT with at least one type; with VPID, INVVPID with at least one
 * type; only defined bits. A.11: VM functions are defined only for EPTP
 * switching. */
START_TEST(vmx_ept_vpid_vmfunc)
{
	const struct cpu_model *cm = cpu_models[_i];
	if (!vmx_model(cm))
		return;
	bool ept = may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_EPT);
	bool vpid = may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VPID);
	if (!has_cap(cm, MSR_VMX_EPT_VPID_CAP)) {
		ck_assert(!ept && !vpid && !has_cap(cm, MSR_VMX_VMFUNC));
		return;
	}
	uint64_t c = cap(cm, MSR_VMX_EPT_VPID_CAP);
	ck_assert_uint_eq(c & ~EPT_VPID_CAP_DEFINED, 0);
	ck_assert(!!(c & 0xffffffffull) == ept);
	ck_assert(!!(c >> 32) == vpid);
	if (ept) {
		ck_assert(c & EPT_CAP_WALK4);
		ck_assert(c & (EPT_CAP_WB | EPT_CAP_UC));
		ck_assert(c & EPT_CAP_INVEPT);
		ck_assert(c & (EPT_CAP_INVEPT_SINGLE | EPT_CAP_INVEPT_ALL));
	}
	if (vpid) {
		ck_assert(c & VPID_CAP_INVVPID);
		ck_assert(c & (VPID_CAP_INVVPID_ADDRESS | VPID_CAP_INVVPID_SINGLE |
			       VPID_CAP_INVVPID_ALL | VPID_CAP_INVVPID_SINGLE_NG));
	}
	if (has_cap(cm, MSR_VMX_VMFUNC))
		ck_assert_uint_eq(cap(cm, MSR_VMX_VMFUNC) & ~VMX_VMFUNC_EPTP_SWITCHING, 0);
}
END_TEST

/* The parts the models imitate: core2 (Merom) is the first VT-x generation:
 * no TRUE_* MSRs, virtual NMIs, preemption timer, monitor trap flag or
 * secondary controls. skylake-lite and icelake-lite: TRUE_* MSRs, virtual
 * NMIs, preemption timer, MTF, EPT with execute-only, A/D, 2M/1G pages and
 * both INVEPT types, VPID with all INVVPID types, unrestricted guest, EPTP
 * switching; 5-level EPT on icelake-lite only. */
START_TEST(vmx_shaped_after_the_parts)
{
	const struct cpu_model *core2 = model_named("core2");
	ck_assert(!(cap(core2, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS));
	ck_assert(!may_be_1(core2, MSR_VMX_PINBASED_CTLS, VMX_PIN_VIRTUAL_NMIS));
	ck_assert(!may_be_1(core2, MSR_VMX_PINBASED_CTLS, VMX_PIN_PREEMPTION_TIMER));
	ck_assert(!may_be_1(core2, MSR_VMX_PROCBASED_CTLS, VMX_PROC_MONITOR_TRAP_FLAG));
	ck_assert(!may_be_1(core2, MSR_VMX_PROCBASED_CTLS, VMX_PROC_SECONDARY_CONTROLS));
	ck_assert(may_be_1(core2, MSR_VMX_PROCBASED_CTLS, VMX_PROC_TPR_SHADOW));
	ck_assert(may_be_1(core2, MSR_VMX_ENTRY_CTLS, VMX_ENTRYCTL_IA32E_MODE_GUEST));
	/* Without TRUE_* MSRs, CR3-load exiting cannot be turned off. */
	ck_assert(vmx_ctl_must_be_1(cap(core2, MSR_VMX_PROCBASED_CTLS)) &
		  VMX_CTL(VMX_PROC_CR3_LOAD_EXITING));
	const char *const big[] = { "skylake-lite", "icelake-lite" };
	for (unsigned i = 0; i < 2; i++) {
		const struct cpu_model *cm = model_named(big[i]);
		ck_assert(cap(cm, MSR_VMX_BASIC) & VMX_BASIC_TRUE_CTLS);
		ck_assert(may_be_1(cm, MSR_VMX_PINBASED_CTLS, VMX_PIN_VIRTUAL_NMIS));
		ck_assert(may_be_1(cm, MSR_VMX_PINBASED_CTLS, VMX_PIN_PREEMPTION_TIMER));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS, VMX_PROC_MONITOR_TRAP_FLAG));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_EPT));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VPID));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_UNRESTRICTED_GUEST));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VIRTUALIZE_APIC));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_APIC_REGISTER_VIRT));
		ck_assert(may_be_1(cm, MSR_VMX_PROCBASED_CTLS2, VMX_PROC2_VIRTUALIZE_X2APIC));
		/* TRUE_PROCBASED lets CR3-load/store exiting be 0. */
		ck_assert(!(vmx_ctl_must_be_1(cap(cm, MSR_VMX_TRUE_PROCBASED_CTLS)) &
			    VMX_CTL(VMX_PROC_CR3_LOAD_EXITING)));
		uint64_t e = cap(cm, MSR_VMX_EPT_VPID_CAP);
		uint64_t want = EPT_CAP_EXEC_ONLY | EPT_CAP_AD | EPT_CAP_2M |
				EPT_CAP_1G | EPT_CAP_INVEPT_SINGLE | EPT_CAP_INVEPT_ALL |
				VPID_CAP_INVVPID_ADDRESS | VPID_CAP_INVVPID_SINGLE |
				VPID_CAP_INVVPID_ALL | VPID_CAP_INVVPID_SINGLE_NG;
		ck_assert_uint_eq(e & want, want);
		ck_assert(!!(e & EPT_CAP_WALK5) == (i == 1));
		ck_assert_uint_eq(cap(cm, MSR_VMX_VMFUNC), VMX_VMFUNC_EPTP_SWITCHING);
	}
}
END_TEST

/* ---- SVM (APM3 E.4.9, svm/capabilities.h) ---- */

/* The AMD models with SVM: max extended leaf at least 8000000AH; revision in
 * EAX[7:0], bits 31:8 and ECX reserved; ASID 0 is the host's (APM2 15.16), so
 * at least two; EDX names only defined features, the PAUSE-filter threshold
 * only with the filter, x2AVIC only with AVIC. */
START_TEST(svm_leaf)
{
	const struct cpu_model *cm = cpu_models[_i];
	uint32_t r[4];

	if (cm->hv_ext != HV_EXT_SVM) {
		ck_assert(!cpu_model_has_hv(cm, true, 0x80000001, 2, 2));
		return;
	}
	ck_assert(cm->vendor == VENDOR_AMD);
	cpu_model_cpuid_hv(cm, true, 0x80000000, 0, r);
	ck_assert_uint_ge(r[0], 0x8000000a);
	cpu_model_cpuid_hv(cm, true, 0x8000000a, 0, r);
	ck_assert_uint_ge(r[0] & 0xff, 1);
	ck_assert_uint_eq(r[0] >> 8, 0);
	ck_assert_uint_ge(r[1], 2);
	ck_assert_uint_eq(r[2], 0);
	static const enum svm_feature defined[] = { SVM_FEAT_NP, SVM_FEAT_LBR_VIRT,
		SVM_FEAT_SVM_LOCK, SVM_FEAT_NRIP_SAVE, SVM_FEAT_TSC_RATE_MSR, SVM_FEAT_VMCB_CLEAN,
		SVM_FEAT_FLUSH_BY_ASID, SVM_FEAT_DECODE_ASSISTS, SVM_FEAT_PAUSE_FILTER,
		SVM_FEAT_PAUSE_FILTER_THRESHOLD, SVM_FEAT_AVIC, SVM_FEAT_VMSAVE_VIRT, SVM_FEAT_VGIF,
		SVM_FEAT_GMET, SVM_FEAT_X2AVIC, SVM_FEAT_SSS_CHECK, SVM_FEAT_SPEC_CTRL, SVM_FEAT_ROGPT,
		SVM_FEAT_HOST_MCE_OVERRIDE, SVM_FEAT_TLBI_CTL, SVM_FEAT_VNMI, SVM_FEAT_IBS_VIRT };
	uint32_t known = 0;
	for (unsigned i = 0; i < sizeof(defined) / sizeof(defined[0]); i++)
		known |= 1u << defined[i];
	ck_assert_uint_eq(r[3] & ~known, 0);
	if (svm_has(r[3], SVM_FEAT_PAUSE_FILTER_THRESHOLD))
		ck_assert(svm_has(r[3], SVM_FEAT_PAUSE_FILTER));
	if (svm_has(r[3], SVM_FEAT_X2AVIC))
		ck_assert(svm_has(r[3], SVM_FEAT_AVIC));
	/* Nested paging on both parts; no AVIC or LBR virtualization (hvemu has
	 * no local APIC and no last-branch recording). */
	ck_assert(svm_has(r[3], SVM_FEAT_NP));
	ck_assert(!svm_has(r[3], SVM_FEAT_AVIC) && !svm_has(r[3], SVM_FEAT_LBR_VIRT));
}
END_TEST

/* --cpu modifiers reach the CPU (emu/cpu_modifiers.c): -pcid makes setting
 * CR4.PCIDE #GP (SDM Vol.2 MOV CR: a reserved CR4 bit) where skylake-lite
 * allows it; phys-bits=36 is MAXPHYADDR, so IA32_APIC_BASE bit 36 is
 * reserved (SDM Vol.3 10.4.4) and bit 35 is not. */
START_TEST(modifiers_reach_the_cpu)
{
	for (unsigned derived = 0; derived < 2; derived++) {
		char err[128];
		const struct cpu_model *cm = cpu_model_parse(derived ? "skylake-lite,-pcid,phys-bits=36" :
							      "skylake-lite", err, sizeof(err));
		ck_assert_ptr_nonnull(cm);
		struct test_machine m;
		machine_init_model(&m, cm);
		uint32_t r[4];
		cpuid(&m, 1, r);
		ck_assert_uint_eq((r[2] >> 17) & 1, !derived);
		ck_assert_uint_eq(m.cpu.maxphyaddr, derived ? 36 : 39);
		uint64_t base = 0xfee00000ull | (1ull << 11);
		ck_assert_int_eq(wrmsr(&m, MSR_APIC_BASE, base | 1ull << 36), derived ? ST_FAULT : ST_OK);
		ck_assert_int_eq(wrmsr(&m, MSR_APIC_BASE, base | 1ull << 35), ST_OK);
		ck_assert_int_eq(wrmsr(&m, MSR_APIC_BASE, base), ST_OK);
		activate(&m);
		m.cpu.event.pending = false;
		ck_assert_int_eq(mov_cr(&m, 4, m.cpu.cr4 | CR4_PCIDE), derived ? ST_FAULT : ST_OK);
		if (derived)
			ck_assert_int_eq(m.cpu.event.vector, EXC_GP);
		machine_free(&m);
		cpu_model_release(cm);
	}
}
END_TEST

static Suite *msr_data_suite(void)
{
	Suite *s = suite_create("msr_data");
	TCase *t = tcase_create("switch");
	tcase_add_loop_test(t, cpuid_follows_switch, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, switch_off_hides_everything, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, switch_on_shows_vmx_data, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, switch_on_shows_svm, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, svm_msr_rules, 0, (int)(sizeof(svm_msr_rows) / sizeof(svm_msr_rows[0])));
	tcase_add_loop_test(t, misc_enable_data, 0, (int)cpu_model_count);
	tcase_add_test(t, misc_enable_effects);
	tcase_add_loop_test(t, mca_msrs, 0, (int)cpu_model_count);
	tcase_add_test(t, modifiers_reach_the_cpu);
	suite_add_tcase(s, t);
	t = tcase_create("vmx_capabilities");
	tcase_add_loop_test(t, vmx_msrs_exist_as_sdm_says, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_basic, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_controls, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_control_dependencies, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_misc, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_cr_fixed, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_vmcs_enum, 0, (int)cpu_model_count);
	tcase_add_loop_test(t, vmx_ept_vpid_vmfunc, 0, (int)cpu_model_count);
	tcase_add_test(t, vmx_shaped_after_the_parts);
	suite_add_tcase(s, t);
	t = tcase_create("svm_capabilities");
	tcase_add_loop_test(t, svm_leaf, 0, (int)cpu_model_count);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(msr_data_suite());
}
