/* Nested paging (APM2 15.25) with L1 in PAE paging: PAE-format nested tables (legacy PDPEs). */
#include "svm/npt.h"

void guest_main(void)
{
	npt_main(NPT_PAE);
}
