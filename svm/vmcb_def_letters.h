/* The short names svm/vmcb_fields.def's clean and xfer columns use, for a
 * file about to expand the table; svm/vmcb_def_letters_end.h takes them back.
 * No include guard: each expansion site includes the pair around its use. */
#define R VMCB_XFER_R
#define E VMCB_XFER_X
#define L VMCB_XFER_L
#define C VMCB_XFER_C
#define H VMCB_XFER_H
#define NONE VMCB_CLEAN_NONE
#define I SVM_CLEAN_I
#define IOPM SVM_CLEAN_IOPM
#define ASID SVM_CLEAN_ASID
#define TPR SVM_CLEAN_TPR
#define NP SVM_CLEAN_NP
#define CRX SVM_CLEAN_CRX
#define DRX SVM_CLEAN_DRX
#define DT SVM_CLEAN_DT
#define SEG SVM_CLEAN_SEG
#define CR2 SVM_CLEAN_CR2
#define LBR SVM_CLEAN_LBR
#define AVIC SVM_CLEAN_AVIC
#define CET SVM_CLEAN_CET
