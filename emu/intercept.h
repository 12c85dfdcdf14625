/* The interceptable events, named once (emu/intercept.def). */
#ifndef HVEMU_EMU_INTERCEPT_H
#define HVEMU_EMU_INTERCEPT_H

enum intercept_kind {
#define X(name, what) IK_##name,
#include "emu/intercept.def"
#undef X
	IK_COUNT,
	IK_NONE = 0xff,            /* an instruction row nobody intercepts */
};
_Static_assert(IK_COUNT < IK_NONE, "intercept kinds fit the table's byte");

/* "CPUID", "CR_ACCESS", ...: the row names of emu/intercept.def; "?" otherwise. */
const char *intercept_name(enum intercept_kind k);

#endif
