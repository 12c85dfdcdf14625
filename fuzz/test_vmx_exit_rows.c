/* Runs vmx_exit_fuzz's reproducer rows (fuzz/vmx_exit_row.h) against hvemu:
 *   test_vmx_exit_rows ROW...
 * Each row restores the L1 at its VMLAUNCH, writes its state, runs to the
 * VM exit (or the VMfail, or the guest's halt) and compares. Exit 1 if any
 * row fails. */
#include <stdio.h>

#include "fuzz/vmx_exit_row.h"

int main(int argc, char **argv)
{
	static struct machine m;
	int failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s ROW...\n", argv[0]);
		return 2;
	}
	vmx_exit_machine_init(&m);
	for (int i = 1; i < argc; i++) {
		int r = vmx_exit_row_run(&m, argv[i]);
		printf("%s: %s\n", argv[i], r == 0 ? "ok" : r < 0 ? "unreadable" : "FAILED");
		failed |= r != 0;
	}
	return failed;
}
