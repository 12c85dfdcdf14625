/* Nested paging (APM2 15.25) with L1 in IA-32e paging (compatibility mode): 4-level nested tables. */
#include "svm/npt.h"

void guest_main(void)
{
	npt_main(NPT_LONG);
}
