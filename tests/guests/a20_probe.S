/* The A20 guest's probe, copied below 1 MiB and called there: disable A20
 * (port 0x92 bit 1 = 0, bit 0 kept 0), load the doubleword at ECX into EAX,
 * store EDX there, enable A20 again. No stack access while A20 is off: the
 * caller's stack is above 1 MiB. */
	.text
	.globl a20_probe, a20_probe_end
	.code32
a20_probe:
	push %ebx
	inb $0x92, %al
	andb $0xfc, %al
	outb %al, $0x92
	mov (%ecx), %ebx
	mov %edx, (%ecx)
	orb $0x02, %al
	outb %al, $0x92
	mov %ebx, %eax
	pop %ebx
	ret
a20_probe_end:
	.section .note.GNU-stack,"",@progbits
