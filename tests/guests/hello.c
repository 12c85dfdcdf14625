/* The smallest guest: boots, prints, passes. The README demo runs it. */
#include "lib/guest.h"

void guest_main(void)
{
	gputs("Hello from hvemu guest\n");
	/* Multiboot 3.2: the loader hands over with flat 32-bit segments and PE=1. */
	uint32_t cr0;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	check("protected mode enabled (CR0.PE)", cr0 & 1, 1);
	check("paging disabled (CR0.PG)", cr0 >> 31, 0);
}
