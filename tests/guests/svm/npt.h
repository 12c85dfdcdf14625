/* Nested paging rows shared by the svm_npt_* guests (see npt.c). */
#ifndef GUEST_SVM_NPT_H
#define GUEST_SVM_NPT_H

#include "svm/lib_svm.h"

/* L1's paging mode at VMRUN, which selects the nested table format. */
enum npt_mode { NPT_2LEVEL, NPT_PAE, NPT_LONG };

/* Enables SVM, enters the paging mode and runs the nested-paging rows. */
void npt_main(enum npt_mode mode);

#endif
