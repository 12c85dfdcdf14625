/* The A20 guest's probe, copied below 1 MiB and called there: disable the A20
 * gates EBX selects (bit 0: port 0x92 bit 1, bit 0 kept 0; bit 1: the 8042,
 * command DDh), load the doubleword at ECX into EAX, store EDX there, enable
 * the same gates again (8042 command DFh, port 0x92 bit 1). No stack access
 * from the first gate write to the last: the caller's stack is above 1 MiB. */
	.text
	.globl a20_probe, a20_probe_end
	.code32

/* The 8042 command cmd, once its input buffer is empty (status bit 1). */
.macro kbc_command cmd
0:	inb $0x64, %al
	test $2, %al
	jnz 0b
	mov $\cmd, %al
	outb %al, $0x64
.endm

a20_probe:
	push %esi
	push %edi
	mov %ebx, %esi
	test $2, %esi
	jz 1f
	kbc_command 0xdd
1:	test $1, %esi
	jz 2f
	inb $0x92, %al
	andb $0xfc, %al
	outb %al, $0x92
2:	mov (%ecx), %edi
	mov %edx, (%ecx)
	test $1, %esi
	jz 3f
	inb $0x92, %al
	andb $0xfc, %al
	orb $0x02, %al
	outb %al, $0x92
3:	test $2, %esi
	jz 4f
	kbc_command 0xdf
4:	mov %edi, %eax
	pop %edi
	pop %esi
	ret
a20_probe_end:
	.section .note.GNU-stack,"",@progbits
