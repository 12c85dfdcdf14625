/* A deliberate triple fault: SDM Vol.3 6.15 Interrupt 8: a fault while
 * trying to deliver #DF makes the processor enter shutdown. With an IDT
 * limit of 0 every vector is outside the IDT -> #GP -> #GP -> #DF -> #GP ->
 * shutdown. hvemu reports shutdown as exit status 4; QEMU with -no-reboot
 * exits with status 0. Reaching debug_exit means the shutdown was missed. */
#include "lib/guest.h"

void guest_main(void)
{
	gputs("# loading an empty IDT (limit 0) and executing UD2: expect shutdown\n");
	struct dtr empty = { 0, 0 };
	__asm__ volatile("lidt %0\n\tud2" :: "m"(empty));
	gputs("not ok - execution continued after UD2 with an empty IDT\n");
	debug_exit(0x7e);
}
