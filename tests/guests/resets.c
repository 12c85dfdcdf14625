/* Resets end the run under --no-reboot (hvemu: status 14, README "Exit
 * status"; QEMU with -no-reboot: exit 0; tests/guests/reboots.c restarts). The command line picks the path, one per run:
 *   reset=92    port 0x92 bit 0 going 0 -> 1 (fast reset, PS/2 System
 *               Control Port A)
 *   reset=cf9   the reset control register 0xCF9: System Reset + Reset CPU (06H)
 *   reset=8042  the 8042 command 0FEH (pulse the reset line)
 * Before it, the registers read as the firmware leaves them and writes that
 * must not reset do not. The guest prints "# the run ends here" just before
 * the reset (run-guest.sh wants that line, so an earlier reset fails); going
 * on past it is a failure. */
#include "lib/guest.h"

static int arg_is(const char *want)
{
	for (const char *p = mb_cmdline; *p; p++) {
		uint32_t n = 0;
		while (want[n])
			n++;
		if (!gstrncmp(p, "reset=", 6) && !gstrncmp(p + 6, want, n) && (p[6 + n] == 0 || p[6 + n] == ' '))
			return 1;
	}
	return 0;
}

void guest_main(void)
{
	/* What may be written without a reset: each check runs only if the write
	 * before it did not end the run. */
	check("port 0x92: A20 on, fast-reset bit clear", inb(0x92) & 3, 2);
	outb(0x92, 0x02);                      /* bit 0 stays 0: no edge */
	check("port 0x92 keeps 02H (bit 0 clear: no reset)", inb(0x92), 0x02);
	outb(0xcf9, 0x02);                     /* System Reset alone picks a kind, resets nothing */
	check("0xCF9 reads back System Reset (no Reset CPU: no reset)", inb(0xcf9) & 0x06, 0x02);
	outb(0xcf9, 0x00);
	outb(0x64, 0xff);                      /* pulse no line */
	check("8042 after command 0FFH (no reset): command flag set", inb(0x64) & 0x08, 0x08);

	if (!arg_is("92") && !arg_is("cf9") && !arg_is("8042"))
		skip_all("no reset=92|cf9|8042 on the command line");
	note("the run ends here");
	if (arg_is("92")) {
		outb(0x92, inb(0x92) | 1);
	} else if (arg_is("cf9")) {
		outb(0xcf9, 0x06);
	} else {
		/* 8042: wait while the input buffer is full (status bit 1). */
		for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)
			;
		outb(0x64, 0xfe);
	}
	for (volatile int i = 0; i < 100000; i++)
		;
	check("the reset ended the run", 0, 1);
}
