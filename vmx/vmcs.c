/* The VMCS storage (SDM Vol.3 24.11): the fields of the current VMCS by
 * encoding (vmx/vmcs_fields.def), VMREAD's and VMWRITE's rules about them, the
 * launch state, and the processor's copy of the current VMCS (vmx/model.h
 * struct vmcs_cache) with hvemu's region format (vmx/vmcs.h).
 */
#include "vmx/model.h"

/* The row of a field the table returned. */
static unsigned row_of(const struct vmcs_field *f)
{
	size_t n;
	return (unsigned)(f - vmcs_field_table(&n));
}

/* The bits a field of width w holds: 16, 32 or 64 (natural width is 64 bits
 * on a processor with Intel 64, SDM Vol.3 24.11.2). */
static uint64_t width_mask(enum vmcs_width w)
{
	static const uint64_t mask[4] = { 0xffff, UINT64_MAX, 0xffffffff, UINT64_MAX };
	return mask[w & 3];
}

static uint64_t row_mask(unsigned row)
{
	size_t n;
	return width_mask((enum vmcs_width)vmcs_field_table(&n)[row].width);
}

/* ---- the region in memory ---- */

static void region_write(struct vmx *v, uint64_t pa, uint64_t value)
{
	physmem_write(v->cpu->mem, pa, 8, value);
	cpu_notify_phys_write(v->cpu, pa, 8);
}

static void load_row(struct vmx *v, unsigned row)
{
	v->vmcs.field[row] = physmem_read(v->cpu->mem, v->vmcs.pa + vmcs_row_offset(row), 8) & row_mask(row);
}

static void store_row(struct vmx *v, unsigned row)
{
	region_write(v, v->vmcs.pa + vmcs_row_offset(row), v->vmcs.field[row]);
}

static void load_launch_state(struct vmx *v)
{
	v->vmcs.launched = physmem_read(v->cpu->mem, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4) == VMCS_LAUNCHED;
}

static void store_launch_state(struct vmx *v)
{
	physmem_write(v->cpu->mem, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4, v->vmcs.launched ? VMCS_LAUNCHED : 0);
	cpu_notify_phys_write(v->cpu, v->vmcs.pa + VMCS_LAUNCH_STATE_OFFSET, 4);
}

/* SDM Vol.3 24.11.1: the processor's copy goes to the region. With --tlb
 * flush there is no copy: the region is always up to date. */
static void write_back(struct vmx *v)
{
	if (v->cpu->tlb_uncached)
		return;
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		store_row(v, row);
	store_launch_state(v);
}

/* ---- the current VMCS ---- */

void vmcs_make_current(struct vmx *v, uint64_t pa)
{
	/* hvemu keeps one VMCS on the processor: the previous one goes back to
	 * its region, as VMCLEAR would write it (24.11.1 lets a processor keep
	 * several; only VMCLEAR makes the region's content architectural). A
	 * VMPTRLD of the current VMCS does the same, so an edit of its region
	 * is overwritten, not loaded. */
	if (vmcs_current_valid(v))
		write_back(v);
	v->vmcs.pa = pa;
	v->vmcs.shadow = physmem_read(v->cpu->mem, pa, 4) & VMCS_SHADOW_INDICATOR;
	load_launch_state(v);
	for (unsigned row = 0; row < VMCS_ROW_COUNT; row++)
		load_row(v, row);
}

void vmcs_clear(struct vmx *v, uint64_t pa)
{
	/* SDM Vol.3 30.3 VMCLEAR: "ensure that data for VMCS referenced by the
	 * operand is in memory; initialize implementation-specific data in VMCS
	 * region; launch state of VMCS referenced by the operand := clear; IF
	 * operand addr = current-VMCS pointer THEN current-VMCS pointer :=
	 * FFFFFFFF_FFFFFFFFH". A VMCS that is not current is in memory already
	 * (vmcs_make_current wrote it back). */
	if (v->vmcs.pa == pa)
		write_back(v);
	physmem_write(v->cpu->mem, pa + VMCS_LAUNCH_STATE_OFFSET, 4, 0);
	cpu_notify_phys_write(v->cpu, pa + VMCS_LAUNCH_STATE_OFFSET, 4);
	if (v->vmcs.pa == pa)
		v->vmcs.pa = VMCS_POINTER_INVALID;
}

void vmcs_forget(struct vmx *v)
{
	v->vmcs.pa = VMCS_POINTER_INVALID;
	v->vmcs.launched = false;
	v->vmcs.shadow = false;
}

bool vmcs_launched(struct vmx *v)
{
	if (v->cpu->tlb_uncached)
		load_launch_state(v);
	return v->vmcs.launched;
}

void vmcs_set_launched(struct vmx *v, bool launched)
{
	v->vmcs.launched = launched;
	if (v->cpu->tlb_uncached)
		store_launch_state(v);
}

uint64_t vmcs_get(struct vmx *v, enum vmcs_row row)
{
	if (v->cpu->tlb_uncached)
		load_row(v, row);
	return v->vmcs.field[row];
}

void vmcs_set(struct vmx *v, enum vmcs_row row, uint64_t value)
{
	v->vmcs.field[row] = value & row_mask(row);
	if (v->cpu->tlb_uncached)
		store_row(v, row);
}

/* ---- VMREAD / VMWRITE ---- */

bool vmcs_field_supported(const struct vmx *v, const struct vmcs_field *f)
{
	/* SDM Vol.3 A.9: IA32_VMX_VMCS_ENUM bits 9:1 are the highest index of
	 * any VMCS field encoding the processor supports. */
	unsigned max_index = (unsigned)((v->caps.vmcs_enum & VMX_VMCS_ENUM_INDEX_MASK) >> VMX_VMCS_ENUM_INDEX_SHIFT);
	return vmcs_enc_index(f->encoding) <= max_index;
}

enum vmx_instruction_error vmcs_vmread(struct vmx *v, uint64_t enc, uint64_t *value)
{
	bool high = false;
	const struct vmcs_field *f = vmcs_field_lookup(enc, &high);
	/* SDM Vol.3 30.3 VMREAD: "source operand does not correspond to any VMCS
	 * field" -> VMfailValid(12); in 64-bit mode that includes an encoding
	 * with any of bits 63:32 set (vmcs_enc_well_formed). */
	if (!f || !vmcs_field_supported(v, f))
		return VMXERR_UNSUPPORTED_COMPONENT;
	uint64_t x = vmcs_get(v, (enum vmcs_row)row_of(f));
	/* SDM Vol.3 24.11.2: the high access type reads bits 63:32 of a 64-bit
	 * field as a 32-bit field. A field shorter than the operand is
	 * zero-extended; a longer one is truncated by the caller's store
	 * (30.3 VMREAD: "the high bits of the field are not read"). */
	*value = high ? x >> 32 : x;
	return VMXERR_NONE;
}

enum vmx_instruction_error vmcs_vmwrite(struct vmx *v, uint64_t enc, uint64_t value)
{
	bool high = false;
	const struct vmcs_field *f = vmcs_field_lookup(enc, &high);
	/* SDM Vol.3 30.3 VMWRITE: unsupported component -> VMfailValid(12). */
	if (!f || !vmcs_field_supported(v, f))
		return VMXERR_UNSUPPORTED_COMPONENT;
	/* SDM Vol.3 30.3 VMWRITE: "VMCS field indexed by secondary source operand
	 * is a VM-exit information field AND processor does not support writing
	 * to such fields" (IA32_VMX_MISC bit 29, A.6) -> VMfailValid(13). */
	if (f->type == VMCS_RO && !(v->caps.misc & VMX_MISC_VMWRITE_ANY_FIELD))
		return VMXERR_VMWRITE_READ_ONLY;
	enum vmcs_row row = (enum vmcs_row)row_of(f);
	uint64_t x = value;
	/* SDM Vol.3 24.11.2: the high access type writes bits 63:32 of the
	 * 64-bit field and leaves 31:0. Otherwise a field shorter than the
	 * operand ignores the operand's high bits and a longer one has its high
	 * bits cleared (30.3 VMWRITE): value is the operand, zero-extended, and
	 * vmcs_set truncates it to the field's width. */
	if (high)
		x = (vmcs_get(v, row) & 0xffffffffull) | ((value & 0xffffffffull) << 32);
	vmcs_set(v, row, x);
	return VMXERR_NONE;
}
