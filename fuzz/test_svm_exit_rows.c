/* Runs svm_exit_fuzz's reproducer rows (fuzz/svm_exit_row.h) against hvemu:
 *   test_svm_exit_rows ROW...
 * Each row restores the L1 at its VMRUN, writes its state image, runs to
 * the #VMEXIT and compares the exit record. Exit 1 if any row fails. */
#include "fuzz/exit_row.h"
#include "fuzz/svm_exit_row.h"

static struct machine m;

static void init(void)
{
	svm_exit_machine_init(&m);
}

static int run(const char *path)
{
	return svm_exit_row_run(&m, path);
}

int main(int argc, char **argv)
{
	return exit_row_main(argc, argv, init, run);
}
