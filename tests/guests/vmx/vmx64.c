/* VMX instructions from an L1 in IA-32e mode (lib/long.h): #UD in
 * compatibility mode (SDM Vol.3 30.3: "(IA32_EFER.LMA = 1 and CS.L = 0) THEN
 * #UD" for VMXON, VMPTRST, VMREAD, VMWRITE, VMCALL, VMXOFF), and in 64-bit
 * mode the 64-bit operands of VMREAD/VMWRITE (24.11.2, 30.3): natural-width
 * and 64-bit fields read and written whole, the high access type in the low
 * half, 16/32-bit fields zero-extended, a source operand's high bits ignored,
 * and an encoding with bits 63:32 set naming no field (VMfailValid 12). */
#include "vmx/lib_vmx.h"
#include "lib/long.h"

uint64_t x64_enc, x64_val, x64_ptr;
uint32_t x64_flags;
void x64_vmxon(void);
void x64_vmxoff(void);
void x64_vmclear(void);
void x64_vmptrld(void);
void x64_vmread(void);
void x64_vmwrite(void);

static int n_bad;
static void expect(const char *row, const char *field, uint64_t got, uint64_t want)
{
	if (got == want)
		return;
	n_bad++;
	gprintf("# %s: %s got 0x%x%08x want 0x%x%08x\n", row, field, (uint32_t)(got >> 32), (uint32_t)got,
		(uint32_t)(want >> 32), (uint32_t)want);
}

/* ---- compatibility mode: #UD through lm_idt64 ---- */

enum compat_op { C_VMXON, C_VMPTRST, C_VMREAD, C_VMWRITE, C_VMCALL, C_VMXOFF };
static uint64_t store;
static void compat_try(enum compat_op op)
{
	uint32_t enc = VMCS_GUEST_RIP, v = 0;
	lm_vec = 0xff;
	switch (op) {
	case C_VMXON: LM_TRY("vmxon (%0)", "r"(&vmxon_ptr) : "memory"); break;
	case C_VMPTRST: LM_TRY("vmptrst (%0)", "r"(&store) : "memory"); break;
	case C_VMREAD: LM_TRY("vmread %0, %1", "r"(enc), "r"(v) : "memory"); break;
	case C_VMWRITE: LM_TRY("vmwrite %1, %0", "r"(enc), "r"(v) : "memory"); break;
	case C_VMCALL: LM_TRY("vmcall", "i"(0) : "memory"); break;
	case C_VMXOFF: LM_TRY("vmxoff", "i"(0) : "memory"); break;
	}
	lm_recover = 0;
}
static void compat_row(const char *name, enum compat_op op)
{
	n_bad = 0;
	compat_try(op);
	expect(name, "vector", lm_vec, 6);
	check_true(name, n_bad == 0);
}

/* ---- 64-bit mode ---- */

static uint32_t call_read(uint64_t enc, uint64_t *val)
{
	x64_enc = enc;
	x64_val = 0xdeaddeaddeaddeadull;
	CALL64(x64_vmread);
	*val = x64_val;
	return x64_flags;
}
static uint32_t call_write(uint64_t enc, uint64_t val)
{
	x64_enc = enc;
	x64_val = val;
	CALL64(x64_vmwrite);
	return x64_flags;
}
static uint32_t insn_error(void)
{
	uint64_t e = 0;
	call_read(VMCS_INSN_ERROR, &e);
	return (uint32_t)e;
}

struct rw_row {
	const char *name, *sdm;
	uint32_t wenc;        /* VMWRITE this field ... */
	uint64_t wval;        /* ... with this 64-bit source */
	uint64_t renc;        /* then VMREAD this encoding */
	uint32_t flags;       /* the VMREAD's outcome */
	uint32_t error;       /* with VMfailValid */
	uint64_t want;        /* the VMREAD's 64-bit destination */
};

static const struct rw_row rw_rows[] = {
	{ "natural-width guest RIP: all 64 bits written and read", "24.11.2", VMCS_GUEST_RIP,
	  0xffff800012345678ull, VMCS_GUEST_RIP, VM_SUCCEED, 0, 0xffff800012345678ull },
	{ "64-bit TSC offset, full access: all 64 bits", "24.11.2", VMCS_TSC_OFFSET, 0x1111222233334444ull,
	  VMCS_TSC_OFFSET, VM_SUCCEED, 0, 0x1111222233334444ull },
	{ "64-bit TSC offset, high access: bits 63:32 in 31:0, the rest 0", "24.11.2", VMCS_TSC_OFFSET,
	  0x1111222233334444ull, VMCS_HIGH(VMCS_TSC_OFFSET), VM_SUCCEED, 0, 0x11112222ull },
	{ "32-bit field: the source's bits 63:32 ignored, the destination's cleared", "30.3 VMWRITE, VMREAD",
	  VMCS_EXCEPTION_BITMAP, 0xfedcba9889abcdefull, VMCS_EXCEPTION_BITMAP, VM_SUCCEED, 0, 0x89abcdefull },
	{ "16-bit field: bits 15:0 kept, the destination zero-extended", "30.3 VMWRITE, VMREAD",
	  VMCS_GUEST_CS_SEL, 0xffffffffffff0010ull, VMCS_GUEST_CS_SEL, VM_SUCCEED, 0, 0x10 },
	{ "an encoding with bits 63:32 set names no field: VMfailValid(12)", "30.3 VMREAD, 24.11.2",
	  VMCS_EXCEPTION_BITMAP, 0, (1ull << 32) | VMCS_EXCEPTION_BITMAP, VM_FAIL_VALID,
	  VMERR_UNSUPPORTED_FIELD, 0xdeaddeaddeaddeadull },
};

static void rw_rows_run(void)
{
	for (unsigned i = 0; i < sizeof(rw_rows) / sizeof(rw_rows[0]); i++) {
		const struct rw_row *r = &rw_rows[i];
		char name[160];
		uint64_t got;
		n_bad = 0;
		expect(r->name, "VMWRITE outcome", call_write(r->wenc, r->wval), VM_SUCCEED);
		uint32_t f = call_read(r->renc, &got);
		expect(r->name, "VMREAD outcome", f, r->flags);
		if (f == VM_FAIL_VALID && r->flags == VM_FAIL_VALID)
			expect(r->name, "VM-instruction error", insn_error(), r->error);
		if (f == VM_SUCCEED || r->flags != VM_SUCCEED)
			expect(r->name, "VMREAD destination", got, r->want);
		check_true(pg_name(name, sizeof(name), "%s [SDM %s]", r->name, r->sdm), n_bad == 0);
	}
}

static void step(const char *name, void (*fn)(void), uint64_t ptr, uint32_t want)
{
	n_bad = 0;
	x64_ptr = ptr;
	if (fn == x64_vmxon)
		CALL64(x64_vmxon);
	else if (fn == x64_vmclear)
		CALL64(x64_vmclear);
	else if (fn == x64_vmptrld)
		CALL64(x64_vmptrld);
	else
		CALL64(x64_vmxoff);
	expect(name, "outcome", x64_flags, want);
	check_true(name, n_bad == 0);
}

void guest_main(void)
{
	if (!vmx_probe())
		skip_all("CPUID.1:ECX.VMX[5] = 0: no VMX on this CPU");
	if (!long_mode_supported())
		skip_all("CPUID.80000001H:EDX.LM = 0: no IA-32e mode for a 64-bit L1");
	/* IA-32e mode first (it needs CR0.PG = 0 on the way in), then VMX's
	 * CR0/CR4 fixed bits, CR4.VMXE and IA32_FEATURE_CONTROL. */
	long_gdt_init();
	long_idt_init(LM_CS64, 0);
	long_enter(read_cr4() | CR4_PAE, long_identity_map(PG_P | PG_W | PG_U));
	vmx_host_init();

	compat_row("VMXON in compatibility mode: #UD [SDM 30.3 VMXON]", C_VMXON);
	step("VMXON in 64-bit mode: VMsucceed [SDM 30.3 VMXON]", x64_vmxon, region_pa(0), VM_SUCCEED);
	compat_row("VMPTRST in compatibility mode: #UD [SDM 30.3 VMPTRST]", C_VMPTRST);
	compat_row("VMREAD in compatibility mode: #UD [SDM 30.3 VMREAD]", C_VMREAD);
	compat_row("VMWRITE in compatibility mode: #UD [SDM 30.3 VMWRITE]", C_VMWRITE);
	compat_row("VMCALL in compatibility mode, VMX root: #UD [SDM 30.3 VMCALL]", C_VMCALL);
	compat_row("VMXOFF in compatibility mode: #UD [SDM 30.3 VMXOFF]", C_VMXOFF);
	region_init(1);
	step("VMCLEAR in 64-bit mode: VMsucceed [SDM 30.3 VMCLEAR]", x64_vmclear, region_pa(1), VM_SUCCEED);
	step("VMPTRLD in 64-bit mode: VMsucceed [SDM 30.3 VMPTRLD]", x64_vmptrld, region_pa(1), VM_SUCCEED);
	rw_rows_run();
	step("VMXOFF in 64-bit mode: VMsucceed [SDM 30.3 VMXOFF]", x64_vmxoff, 0, VM_SUCCEED);
}
