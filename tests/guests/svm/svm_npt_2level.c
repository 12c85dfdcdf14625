/* Nested paging (APM2 15.25) with L1 in 32-bit (2-level) paging: the nested tables are 32-bit tables too.
 * QEMU 7.2 skips the nested walk entirely in this mode (see README.md). */
#include "svm/npt.h"

void guest_main(void)
{
	npt_main(NPT_2LEVEL);
}
