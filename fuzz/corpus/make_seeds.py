#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/), small
hand-made inputs that lead the fuzzers to the interesting places at once. The
files are committed; run this (needs gcc, ld and objcopy) after changing a seed:

    python3 fuzz/corpus/make_seeds.py fuzz/corpus

cpu_fuzz runs each input twice (fuzz/cpu_fuzz.c): in real mode at 1000:0000 and
in flat 32-bit protected mode at linear 10000H, with HLT (F4) around it, IVT/IDT
handlers that return into the code (fuzz/fuzz_machine.h), and the GDT 08H/10H/18H/20H. Its seeds are 32-bit code
linked at 10000H or 16-bit code linked at 0; the other run decodes the same
bytes in the other mode, which is fine for a seed. decode_fuzz decodes every
offset of its input in 16-, 32- and 64-bit mode; its seeds are byte strings.
vmcb_fuzz runs VMRUN on the input's VMCB (see below).
"""
import os
import subprocess
import sys
import tempfile

out = sys.argv[1]
os.makedirs(out + '/cpu_fuzz', exist_ok=True)
os.makedirs(out + '/decode_fuzz', exist_ok=True)
tmp = tempfile.mkdtemp()


def asm(name, src, base, code16=False):
    """Assemble src linked at base; write its .text to cpu_fuzz/name."""
    pre = '.code16\n' if code16 else '.code32\n'
    s, o, elf = (os.path.join(tmp, 's' + ext) for ext in ('.S', '.o', '.elf'))
    open(s, 'w').write('.text\n.globl _start\n_start:\n' + pre + src + '\n')
    subprocess.run(['gcc', '-m32', '-c', s, '-o', o], check=True)
    subprocess.run(['ld', '-m', 'elf_i386', '-Ttext=%#x' % base, '-o', elf, o], check=True)
    subprocess.run(['objcopy', '-O', 'binary', '-j', '.text', elf,
                    out + '/cpu_fuzz/' + name], check=True)


P = 0x10000   # the protected-mode run's code address

seeds32 = {
 'smc_next_immediate': '''movl $0x5a5a5a5a, (1f + 1)
1: movl $0x11111111, %eax
   hlt''',
 'smc_data_beside_code': '''movl $200, %ecx
1: incl counter
   loop 1b
   hlt
   .balign 4
counter: .long 0''',
 'rep_stos_over_code': '''movl $2f, %edi
   movb $0x40, %al
   movl $8, %ecx
   cld
   rep stosb
2: hlt''',
 'paging_pse_4m': '''movl %cr4, %eax
   orl $0x10, %eax
   movl %eax, %cr4
   movl $0x83, 0x20000
   movl $0x20000, %eax
   movl %eax, %cr3
   movl %cr0, %eax
   orl $0x80000000, %eax
   movl %eax, %cr0
   movl $1, 0x30000
   invlpg 0x30000
   movl 0x30000, %ebx
   hlt''',
 'paging_4k_page_fault': '''movl $0x21000, %edi
   movl $3, %eax
   movl $64, %ecx
1: movl %eax, (%edi)
   addl $4, %edi
   addl $0x1000, %eax
   loop 1b
   movl $0, 0x21000 + 0x30 * 4
   movl $0x21003, 0x20000
   movl $0x20000, %eax
   movl %eax, %cr3
   movl %cr0, %eax
   orl $0x80010000, %eax
   movl %eax, %cr0
   movl 0x30000, %eax
   hlt''',
 'pae_paging': '''movl $0x21001, 0x20000
   movl $0, 0x20004
   movl $0, 0x20008
   movl $0, 0x2000c
   movl $0, 0x20010
   movl $0, 0x20014
   movl $0, 0x20018
   movl $0, 0x2001c
   movl $0x83, 0x21000
   movl $0, 0x21004
   movl %cr4, %eax
   orl $0x20, %eax
   movl %eax, %cr4
   movl $0x20000, %eax
   movl %eax, %cr3
   movl %cr0, %eax
   orl $0x80000000, %eax
   movl %eax, %cr0
   movl $1, 0x30000
   movl 0x1fffff, %ebx
   movl $0xc0000080, %ecx
   rdmsr
   orl $0x100, %eax
   wrmsr
   hlt''',
 'divide_error': '''xorl %ecx, %ecx
   movl $7, %eax
   divl %ecx
   hlt''',
 'int_0x80': '''int $0x80
   hlt''',
 'int3': '''int3
   hlt''',
 'ud2': '''ud2''',
 'into_overflow': '''movl $0x7fffffff, %eax
   addl $1, %eax
   into
   hlt''',
 'far_jump_code16': '''ljmp $0x18, $0x500''',
 'lgdt_reload_segments': '''lgdt gdtdesc
   movw $0x10, %ax
   movw %ax, %ds
   movw %ax, %ss
   movw $0x18, %ax
   movw %ax, %es
   ljmp $0x08, $1f
1: lidt idtdesc
   int $3
   hlt
   .balign 8
gdt: .quad 0, 0x00cf9b000000ffff, 0x00cf93000000ffff, 0x0000f3000000ffff
gdtdesc: .word 31
   .long gdt
idtdesc: .word 0
   .long 0''',
 'cpuid_rdtsc_msr': '''xorl %eax, %eax
   cpuid
   movl $1, %eax
   cpuid
   movl $0x80000000, %eax
   cpuid
   rdtsc
   movl $0x10, %ecx
   rdmsr
   movl $0x1b, %ecx
   rdmsr
   movl $0x277, %ecx
   rdmsr
   wrmsr
   hlt''',
 'x87_arith': '''fninit
   fld1
   fld1
   faddp
   fsqrt
   fistpl 0x30000
   fldz
   fld1
   fdivp
   fnstsw %ax
   fnstcw 0x30010
   fildl 0x30000
   fcomip %st(1), %st
   fnsave 0x30100
   frstor 0x30100
   hlt''',
 'sse_enable_and_use': '''movl %cr4, %eax
   orl $0x600, %eax
   movl %eax, %cr4
   movl %cr0, %eax
   andl $~4, %eax
   orl $2, %eax
   movl %eax, %cr0
   xorps %xmm0, %xmm0
   movl $3, %eax
   cvtsi2ss %eax, %xmm1
   addps %xmm1, %xmm0
   movaps %xmm0, 0x30000
   paddq %xmm0, %xmm1
   sqrtss %xmm1, %xmm2
   stmxcsr 0x30020
   divss %xmm0, %xmm2
   fxsave 0x30200
   hlt''',
 'single_step_tf': '''pushfl
   orl $0x100, (%esp)
   popfl
   nop
   nop
   hlt''',
 'data_breakpoint': '''movl $0x30000, %eax
   movl %eax, %dr0
   movl $0x000d0001, %eax
   movl %eax, %dr7
   movl $1, 0x30000
   hlt''',
 'string_ops': '''cld
   movl $0x30000, %esi
   movl $0x31000, %edi
   movl $100, %ecx
   rep movsl
   movl $0x30000, %edi
   movb $0xf4, %al
   movl $50, %ecx
   repne scasb
   cmpsb
   std
   lodsw
   stosl
   hlt''',
 'port_io': '''movw $0x3f8, %dx
   movb $0x41, %al
   outb %al, %dx
   inb %dx, %al
   movw $0x80, %dx
   outb %al, %dx
   movl $0x30000, %edi
   movl $4, %ecx
   rep insb
   movw $0xf4, %dx
   inl %dx, %eax
   hlt''',
 'stack_frames': '''enter $16, $2
   pushl $1
   call 1f
   hlt
1: popl %eax
   pushal
   popal
   leave
   ret''',
 'ltr_bad_selector': '''movw $0x20, %ax
   ltr %ax
   hlt''',
 'back_to_real_mode': '''movl %cr0, %eax
   andl $~1, %eax
   movl %eax, %cr0
   ljmp $0x1000, $(1f - 0x10000)
.code16
1: movw $0x1000, %ax
   movw %ax, %ds
   int $0x10
   hlt
.code32''',
 'jump_to_self': '''1: jmp 1b''',
 'locked_rmw': '''movl $0x30000, %ebx
   movl $5, %eax
   lock xaddl %eax, (%ebx)
   lock cmpxchgl %ecx, (%ebx)
   lock btsl $3, (%ebx)
   xchgl %eax, 4(%ebx)
   lock incl 8(%ebx)
   cmpxchg8b 16(%ebx)
   hlt''',
 'muldiv_bcd': '''movl $0x12345678, %eax
   movl $0x9abc, %ecx
   mull %ecx
   imull $-3, %eax, %ebx
   cdq
   idivl %ecx
   movb $0x19, %al
   addb $0x28, %al
   daa
   aam $10
   aad $10
   shldl $5, %ebx, %eax
   rcrl $3, %eax
   bsfl %eax, %edx
   bswap %edx
   hlt''',
 'selector_queries': '''movw $0x08, %ax
   larl %eax, %ebx
   lsll %eax, %ecx
   verr %ax
   verw %ax
   sldt %dx
   str %dx
   sgdt 0x30000
   sidt 0x30008
   smsw %ax
   arpl %ax, %bx
   hlt''',
 'sysenter_setup': '''xorl %edx, %edx
   movl $0x174, %ecx
   movl $0x08, %eax
   wrmsr
   movl $0x175, %ecx
   movl $0x7000, %eax
   wrmsr
   movl $0x176, %ecx
   movl $0x500, %eax
   wrmsr
   sysenter''',
 'cr_dr_moves': '''movl %cr0, %eax
   movl %cr3, %ebx
   movl %cr4, %ecx
   movl %ebx, %cr3
   movl %dr6, %eax
   movl %dr7, %edx
   clts
   wbinvd
   invd
   hlt''',
}
seeds16 = {
 'real_to_protected': '''cli
   movw $0x1000, %ax
   movw %ax, %ds
   lgdtl gdtdesc
   movl %cr0, %eax
   orl $1, %eax
   movl %eax, %cr0
   ljmpl $0x08, $(0x10000 + pm)
.code32
pm: movw $0x10, %ax
   movw %ax, %ds
   movl $1, 0x30000
   hlt
   .balign 8
gdt: .quad 0, 0x00cf9b000000ffff, 0x00cf93000000ffff
gdtdesc: .word 23
   .long 0x10000 + gdt''',
 'real_interrupts': '''int $0x10
   movw $0x4c00, %ax
   int $0x21
   hlt''',
 'real_smc': '''movw $0x1000, %ax
   movw %ax, %ds
   movb $0, (1f + 1)
1: movb $1, %al
   hlt''',
 'real_offset_wrap': '''movw $0xffff, %si
   lodsw
   hlt''',
 'real_far_call_iret': '''pushf
   lcall $0x1000, $1f
   hlt
1: iret''',
}
for n, s in seeds32.items():
    asm(n, s, P)
for n, s in seeds16.items():
    asm(n, s, 0, code16=True)

# decode_fuzz: hex byte strings, several instructions each.

dec = {
 'legacy_prefixes': '66 67 f0 f2 f3 2e 36 3e 26 64 65 0f 10 00 66 f2 0f 58 c1 26 66 67 89 00',
 'vex': 'c5 f8 77 c5 f9 6f c1 c4 e2 79 18 07 c4 e3 7d 18 c1 01 c5 fc 28 c1',
 'evex_xop': '62 f1 7c 48 28 c1 62 f2 7d 48 18 07 8f e8 78 c0 c1 05',
 'three_byte_maps': '0f 38 00 c1 66 0f 38 00 c1 0f 3a 0f c1 08 66 0f 3a 44 c1 00 66 0f 38 f6 c1',
 'x87': 'd9 e8 d9 eb de c1 dd d8 df e0 db e3 d9 fe d8 0c 24 dd 1c 24 df 3c 24 9b d9 7d 00',
 'modrm_sib': '8b 04 24 8b 44 8d 10 8b 05 00 00 00 00 8b 84 8d 78 56 34 12 67 8b 00 8b 00 8b 40 80 8b 80 00 00 00 80 8b 0c 25 00 10 00 00',
 'rex64': '48 8b c1 4c 8b 04 25 00 00 00 00 41 ff d3 48 c7 c0 ff ff ff ff 48 b8 01 02 03 04 05 06 07 08 4d 0f af c1 40 88 f0 48 63 c1',
 'fifteen_bytes': '66 ' * 14 + '90',
 'sixteen_bytes': '66 ' * 15 + '90',
 'far_transfers': 'ea 00 00 00 00 08 00 9a 00 00 00 00 08 00 ff 2c 24 ff 1c 24 ca 08 00 cb cf 48 cf',
 'system': '0f 01 d8 0f 01 c1 0f 00 d8 0f 01 f8 0f 05 0f 34 0f a2 f4 0f 01 d0 0f ae f0 0f c7 f0 0f 78 c1 66 0f 38 80 08',
 'groups': '80 38 01 c0 e0 03 d0 e8 d3 f8 f6 30 f7 f9 fe c8 ff 10 ff 18 ff 20 ff 28 ff 30 8f c0 c6 f8 01',
 'strings': 'f3 a4 f3 ab f2 ae 66 f3 a5 67 f3 aa 48 a5 f3 48 ab 6c 6d 6e 6f',
 'sse': '0f 28 c1 66 0f 28 c1 f3 0f 10 c1 f2 0f 58 c1 66 0f d4 c1 0f c2 c1 03 66 0f 70 c1 1b f3 0f e6 c1 0f ae 08 0f ae 18',
 'lock': 'f0 01 08 f0 0f b1 0a f0 90 f0 01 c0 f0 0f c7 0e',
 'control_debug_regs': '0f 20 c0 0f 22 d8 0f 21 f8 0f 23 c0 44 0f 20 c0 f0 0f 20 c0',
}
for n, hx in dec.items():
    open(out + '/decode_fuzz/' + n, 'wb').write(bytes(int(x, 16) for x in hx.split()))
# vmcb_fuzz: a flags byte (bit 0: 64-bit L1, bit 1: --tlb flush), a 4 KiB
# VMCB (APM2 Appendix B offsets), guest code at 40000H (fuzz/vmcb_fuzz.c).
import struct
os.makedirs(out + '/vmcb_fuzz', exist_ok=True)


def vmcb(rip=0x40000, guest64=False, np=False, eventinj=0, intercepts=None, clean=0):
    b = bytearray(4096)
    words = intercepts or [0, 0, 0, 0, 0x3, 0]          # VMRUN, VMMCALL
    for i, w in enumerate(words):
        struct.pack_into('<I', b, 4 * i, w)
    struct.pack_into('<Q', b, 0x040, 0x100000)           # IOPM (beyond RAM: reads ones)
    struct.pack_into('<Q', b, 0x048, 0x104000)           # MSRPM
    struct.pack_into('<I', b, 0x058, 1)                  # ASID
    struct.pack_into('<Q', b, 0x090, 1 if np else 0)     # NP_ENABLE
    struct.pack_into('<Q', b, 0x0a8, eventinj)
    struct.pack_into('<Q', b, 0x0b0, 0x10000)            # nCR3: the identity tables
    struct.pack_into('<I', b, 0x0c0, clean)
    def seg(off, sel, attr):
        struct.pack_into('<HHIQ', b, 0x400 + off, sel, attr, 0xffffffff, 0)
    seg(0x00, 0x10, 0xc93)
    seg(0x10, 0x18 if guest64 else 0x08, 0xa9b if guest64 else 0xc9b)
    seg(0x20, 0x10, 0xc93)
    seg(0x30, 0x10, 0xc93)
    struct.pack_into('<HHIQ', b, 0x460, 0, 0, 0x1f, 0x1000)     # GDTR
    struct.pack_into('<HHIQ', b, 0x480, 0, 0, 0x7ff, 0x2000)    # IDTR
    efer = 0x1000 | (0x500 if guest64 else 0)
    struct.pack_into('<Q', b, 0x4d0, efer)
    struct.pack_into('<Q', b, 0x548, 0x20 if guest64 else 0)    # CR4.PAE
    struct.pack_into('<Q', b, 0x550, 0x10000 if guest64 else 0) # CR3
    struct.pack_into('<Q', b, 0x558, 0x80000011 if guest64 else 0x11)
    struct.pack_into('<Q', b, 0x560, 0x400)
    struct.pack_into('<Q', b, 0x568, 0xffff0ff0)
    struct.pack_into('<Q', b, 0x570, 0x2)
    struct.pack_into('<Q', b, 0x578, rip)
    struct.pack_into('<Q', b, 0x5d8, 0x70000)
    return bytes(b)


def hexb(h):
    return bytes(int(x, 16) for x in h.split())


vmcb_seeds = {
    'vmmcall_32': (0, vmcb(), '0f 01 d9'),
    'vmmcall_64_host': (1, vmcb(), '0f 01 d9'),
    'guest64_cpuid': (1, vmcb(guest64=True, intercepts=[0, 0, 0, 1 << 18, 3, 0]), '0f a2 0f 01 d9'),
    'npt_io_msr': (0, vmcb(np=True, intercepts=[0, 0, 0, (1 << 27) | (1 << 28), 3, 0]),
                   'e6 80 b9 80 00 00 c0 0f 32 0f 01 d9'),
    'eventinj_gp': (2, vmcb(eventinj=(1 << 31) | (1 << 11) | (3 << 8) | 13 | (0x10 << 32)), '90 0f 01 d9'),
    'exceptions_all': (0, vmcb(intercepts=[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffff, 0]),
                       '0f 20 c0 0f 22 c0 cc cd 80 0f 0b f4'),
    'nested_vmrun_vmload': (1, vmcb(intercepts=[0, 0, 0, 0, 0x1, 0]), 'b8 00 00 03 00 0f 01 da 0f 01 db 0f 01 d8'),
    'clean_bits': (0, vmcb(clean=0xffffffff), '0f 01 d9'),
}
for n, (flags, v, code) in vmcb_seeds.items():
    open(out + '/vmcb_fuzz/' + n, 'wb').write(bytes([flags]) + v + hexb(code))

for f in os.listdir(tmp):
    os.remove(os.path.join(tmp, f))
os.rmdir(tmp)
