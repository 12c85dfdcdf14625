/* Multiboot v1 header for the benchmark guests (Multiboot 0.6.96, 3.1.1): magic,
 * no flags, checksum. Included at the start of .text by each guest's .S file. */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0
#define DEBUG_EXIT_PORT 0xf4
/* The loop count's factor: 1 for hvemu's runs, larger for the QEMU runs
 * (bench/vs_qemu.py) so that its start-up is small beside the loop. */
#ifndef SCALE
#define SCALE 1
#endif

	.section .text
	.align 4
multiboot_header:
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)
