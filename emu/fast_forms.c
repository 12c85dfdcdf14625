/* Decode-time choice of register-form handlers (see fast_forms.h). */
#include "emu/fast_forms.h"
#include "isa_handlers.h"

static const struct fast_form {
	insn_handler generic;      /* the row's handler */
	insn_handler reg32, reg64; /* for a register E operand of 4 / 8 bytes */
	insn_handler mem32, mem64; /* for a memory E operand of 4 / 8 bytes, or NULL */
} fast_forms[] = {
#define FORM(name) { op_##name, op_##name##_r32, op_##name##_r64, NULL, NULL }
#define FORM_MEM(name) { op_##name, op_##name##_r32, op_##name##_r64, op_##name##_m32, op_##name##_m64 }
	FORM(add_EG), FORM(add_GE), FORM(add_EI),
	FORM(or_EG),  FORM(or_GE),  FORM(or_EI),
	FORM(and_EG), FORM(and_GE), FORM(and_EI),
	FORM(sub_EG), FORM(sub_GE), FORM(sub_EI),
	FORM(xor_EG), FORM(xor_GE), FORM(xor_EI),
	FORM(cmp_EG), FORM(cmp_GE), FORM(cmp_EI),
	FORM(test_EG),
	FORM(inc), FORM(dec),
	FORM_MEM(mov_EG), FORM_MEM(mov_GE),
#undef FORM
#undef FORM_MEM
};

insn_handler insn_fast_form(const struct insn *in)
{
	/* LOCK with a register destination is #UD (the decoder has made it so). */
	if (in->lock || (in->size != 4 && in->size != 8))
		return in->exec;
	for (unsigned i = 0; i < sizeof(fast_forms) / sizeof(fast_forms[0]); i++) {
		const struct fast_form *f = &fast_forms[i];
		if (f->generic != in->exec)
			continue;
		if (in->mem)
			return (in->size == 4 ? f->mem32 : f->mem64) ? (in->size == 4 ? f->mem32 : f->mem64) : in->exec;
		return in->size == 4 ? f->reg32 : f->reg64;
	}
	return in->exec;
}
