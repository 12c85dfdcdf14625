/* Runs vmx_exit_fuzz's reproducer rows (fuzz/vmx_exit_row.h) against hvemu:
 *   test_vmx_exit_rows ROW...
 * Each row restores the L1 at its VMLAUNCH, writes its state, runs to the
 * VM exit (or the VMfail, or the guest's halt) and compares. Exit 1 if any
 * row fails. */
#include "fuzz/exit_row.h"
#include "fuzz/vmx_exit_row.h"

static struct machine m;

static void init(void)
{
	vmx_exit_machine_init(&m);
}

static int run(const char *path)
{
	return vmx_exit_row_run(&m, path);
}

int main(int argc, char **argv)
{
	return exit_row_main(argc, argv, init, run);
}
