#!/usr/bin/env python3
"""Command-line tests for hvemu, one row per case.

usage: cli_test.py HVEMU CASE     (CASE 'list' prints the case names)

Each case runs hvemu with some arguments (and files it builds in a temporary
directory, which is also the working directory: tiny real-mode programs,
a.out-kludge multiboot kernels, broken images) and checks the exit status,
stdout, that errors are exactly one "hvemu: error: ..." line on stderr, the
text stderr must hold (in order), and what a case's own check says (files left
intact, ...). A case with 'signal' waits for the guest's first line on COM1,
then sends the signal.
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

MB_MAGIC = 0x1BADB002


def aout_kernel(code, load=0x100000, flags=0x00010002):
    """A Multiboot a.out-kludge kernel: header at 0, code at 0x20 = entry."""
    hdr = struct.pack('<III', MB_MAGIC, flags, (-(MB_MAGIC + flags)) & 0xffffffff)
    hdr += struct.pack('<IIIII', load, load, 0, 0, load + 0x20)
    return hdr.ljust(0x20, b'\0') + code


def elf64_kernel(code, paddr=0x200000, vaddr=0xffffffff80200000):
    """An ELF64 (EM_X86_64) multiboot kernel, one PT_LOAD at paddr holding the
    multiboot header then code; e_entry is the virtual address of the code
    (the loader translates it through the segment, hvemu extension)."""
    body = struct.pack('<III', MB_MAGIC, 2, (-(MB_MAGIC + 2)) & 0xffffffff).ljust(0x20, b'\0') + code
    ehdr = struct.pack('<16sHHIQQQIHHHHHH',
                       b'\x7fELF\x02\x01\x01'.ljust(16, b'\0'), 2, 62, 1,
                       vaddr + 0x20, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    phdr = struct.pack('<IIQQQQQQ', 1, 5, 0x1000, vaddr, paddr, len(body), len(body) + 0x100, 0x1000)
    return (ehdr + phdr).ljust(0x1000, b'\0') + body


# 32-bit code checking the Multiboot machine state (Multiboot 3.2), then
# reporting through isa-debug-exit: 0 = pass (status 1), 1 = fail (status 3).
# The information structure is on the page after the image (these kernels'
# images are smaller than a page and start on a page boundary, so that is the
# entry's page + 0x1000).
MB_CHECK = bytes.fromhex(
    '3d02b0ad2b'      # cmp eax, 0x2badb002
    '751e'            # jne fail
    '89ca'            # mov edx, ecx (the entry)
    '81e200f0ffff'    # and edx, 0xfffff000
    '81c200100000'    # add edx, 0x1000
    '39d3'            # cmp ebx, edx
    '750c'            # jne fail
    '813b4f020000'    # cmp dword [ebx], 0x24f (flags)
    '7504'            # jne fail
    'b000'            # mov al, 0
    'e6f4'            # out 0xf4, al
    'b001'            # fail: mov al, 1
    'e6f4'            # out 0xf4, al
)

# A minimal 32-bit SVM host (L1) for --trace vmexit, --stats and the livelock
# detector: a multiboot a.out kernel, paging off, that sets EFER.SVME and
# VM_HSAVE_PA, then runs its loop. The guest (L2) is code at 0x100100 in the
# same flat segments, the VMCB at 0x101000 (file offset 0x1000) passes the
# APM2 15.5.1 checks (EFER.SVME, the VMRUN intercept, ASID 1). The images run
# unchanged under qemu-system-x86_64 -cpu max.
SVM_GUEST = 0x100100


def svm_vmcb(misc1, misc2=0):
    """The VMCB: intercept vectors 3 and 4 (APM2 Table B-1, 0x00C/0x010; VMRUN
    always), ASID 1, and the guest state of APM2 Table B-2 (VMCB offset 0x400 on)."""
    v = bytearray(0x1000)
    struct.pack_into('<II', v, 0x00c, misc1, misc2 | 1)
    struct.pack_into('<I', v, 0x058, 1)
    for off, sel, attrib in ((0x00, 0x10, 0xc93), (0x10, 0x08, 0xc9b), (0x20, 0x10, 0xc93),
                             (0x30, 0x10, 0xc93), (0x40, 0x10, 0xc93), (0x50, 0x10, 0xc93)):
        # ES CS SS DS FS GS: flat; attrib = type|S|DPL|P (7:0), AVL|L|D/B|G (11:8)
        struct.pack_into('<HHIQ', v, 0x400 + off, sel, attrib, 0xffffffff, 0)
    struct.pack_into('<HHIQ', v, 0x460, 0, 0, 0x27, 0x9600)          # GDTR
    struct.pack_into('<Q', v, 0x4d0, 0x1000)                         # EFER.SVME
    # CR4 CR3 CR0 DR7 DR6 RFLAGS RIP
    struct.pack_into('<7Q', v, 0x548, 0, 0, 0x11, 0x400, 0xffff0ff0, 2, SVM_GUEST)
    struct.pack_into('<Q', v, 0x5d8, 0x90000)                        # RSP
    struct.pack_into('<Q', v, 0x668, 0x0007040600070406)             # G_PAT
    return bytes(v)


SVM_SETUP = bytes.fromhex(
    'b9800000c0'      # mov ecx, 0xc0000080 (EFER)
    '0f32'            # rdmsr
    '0d00100000'      # or eax, 0x1000 (SVME)
    '0f30'            # wrmsr
    'b9170101c0'      # mov ecx, 0xc0010117 (VM_HSAVE_PA)
    'b800001100'      # mov eax, 0x110000
    '31d2'            # xor edx, edx
    '0f30'            # wrmsr
)


def svm_kernel(loop, guest, misc1, misc2=0):
    img = aout_kernel(SVM_SETUP + loop).ljust(0x100, b'\xcc') + guest
    return img.ljust(0x1000, b'\xcc') + svm_vmcb(misc1, misc2)


INT_CPUID, INT_HLT, INT_VMMCALL = 1 << 18, 1 << 24, 1 << 1    # vector 3, 3, 4
# L1 re-enters at once: the guest's CPUID exits again, the same way, forever.
SVM_LOOP_STUCK = bytes.fromhex(
    'b800101000'      # loop: mov eax, 0x101000
    '0f01d8'          # vmrun
    'ebf6'            # jmp loop
)
# L1 steps its guest (CPUID; VMMCALL; HLT) past each exit until HLT, then
# VMRUNs with ASID 0 (VMEXIT_INVALID) and passes if EXITCODE is -1.
SVM_LOOP_STEP = bytes.fromhex(
    'b800101000'      # loop: mov eax, 0x101000
    '0f01d8'          # vmrun
    'a170101000'      # mov eax, [0x101070] (EXITCODE)
    '83f878'          # cmp eax, 0x78 (HLT)
    '7413'            # je halted
    'b903000000'      # mov ecx, 3 (VMMCALL's length)
    '83f872'          # cmp eax, 0x72 (CPUID)
    '7501'            # jne step
    '49'              # dec ecx (CPUID's length)
    '010d78151000'    # step: add [0x101578], ecx (guest RIP)
    'ebdb'            # jmp loop
    'c7055810100000000000'  # halted: mov dword [0x101058], 0 (ASID)
    'b800101000'      # mov eax, 0x101000
    '0f01d8'          # vmrun
    'a170101000'      # mov eax, [0x101070]
    '83f8ff'          # cmp eax, -1
    '7504'            # jne fail
    'b000'            # mov al, 0
    'e6f4'            # out 0xf4, al
    'b001'            # fail: mov al, 1
    'e6f4'            # out 0xf4, al
)
SVM_GUEST_STEPS = bytes.fromhex('0fa2' '0f01d9' 'f4')     # cpuid; vmmcall; hlt
# 20000 VMMCALL round trips: identical exits, but the guest runs a JMP
# between them (progress, not a livelock).
SVM_LOOP_ROUNDS = bytes.fromhex(
    'be204e0000'      # mov esi, 20000
    'b800101000'      # loop: mov eax, 0x101000
    '0f01d8'          # vmrun
    '83057815100003'  # add dword [0x101578], 3 (past VMMCALL)
    '4e'              # dec esi
    '75ee'            # jnz loop
    'b000'            # mov al, 0
    'e6f4'            # out 0xf4, al
)
SVM_GUEST_ROUNDS = bytes.fromhex('0f01d9' 'ebfb')         # 1: vmmcall; jmp 1b


# Real mode at 0000:7c00: print "A" on COM1, then exit with V=0x10 (status 33).
REAL_HELLO = bytes.fromhex('b041' 'baf803' 'ee' 'b010' 'e6f4')
# The same in 64-bit code: mov al,'A'; mov dx,3f8h (66h); out dx,al; mov al,16; out f4h,al
LONG_HELLO = bytes.fromhex('b041' '66baf803' 'ee' 'b010' 'e6f4')
SPIN = bytes.fromhex('ebfe')            # jmp $
CLI_HLT = bytes.fromhex('faf4')         # cli; hlt
# Real mode: REP OUTSB of 65535 bytes to port 80H, forever (mov dx, 80h; xor
# si, si; L: mov cx, 0ffffh; rep outsb; jmp L): every byte is virtual time.
REP_OUTS_SPIN = bytes.fromhex('ba8000' '31f6' 'b9ffff' 'f36e' 'ebf9')
# ud2 in protected mode with the IDT left at 0 (zeros: no valid gates): #UD
# becomes #GP, then #DF, then a triple fault.
UD2 = bytes.fromhex('0f0b')
# Real mode at 0000:7c00: lidt [7c10h] (limit 0), int 21h: the IVT entry is
# beyond the limit, so INT 21h -> #GP -> #GP + #GP = #DF -> #GP: shutdown.
REAL_INT_TRIPLE = (bytes.fromhex('0f011e107c' 'cd21').ljust(0x10, b'\x90') + bytes(6))
# Real mode: POST code 42h, "R\n" on COM1, then jmp $ at 7c0dh (for signals:
# the line is out when the CPU is at the jmp, or one OUT before it).
REAL_POST_SPIN = bytes.fromhex('b042' 'e680' 'baf803' 'b052' 'ee' 'b00a' 'ee' 'ebfe')
# Real mode: 28 bytes on COM1 with no newline, then jmp $ (for signals).
TAIL_TEXT = b'no newline at the end of it:'
REAL_TAIL_SPIN = bytes.fromhex('baf803') + b''.join(bytes([0xb0, ch, 0xee]) for ch in TAIL_TEXT) + b'\xeb\xfe'
# Real mode: RTC register r (through ports 70H/71H) to isa-debug-exit.
def real_cmos(r):
    return bytes([0xb0, r, 0xe6, 0x70, 0xe4, 0x71, 0xe6, 0xf4])
# Real mode: CPUID 16H, EAX (the base frequency in MHz) to isa-debug-exit.
REAL_CPUID16 = bytes.fromhex('66b816000000' '0fa2' 'e6f4')
# Real mode: RDRAND AX, then debug-exit with AL (emu/random.c: SplitMix64 from --seed).
REAL_RDRAND16 = bytes.fromhex('0fc7f0' 'e6f4')
# Real mode: write V to isa-debug-exit.
def real_exit(v):
    return bytes([0xb0, v, 0xe6, 0xf4])
# Real mode: debug-exit with a word (V = 0x100) and a doubleword (V = 3).
EXIT_WORD = bytes.fromhex('b80001' 'e7f4')        # mov ax, 0x100; out 0xf4, ax
EXIT_DWORD = bytes.fromhex('66b803000000' 'e7f4')   # mov eax, 3; out 0xf4, eax (o32)
# Real mode resets, each followed by jmp $ (the run must end at the write):
RESET_92 = bytes.fromhex('e492' '0c01' 'e692' 'ebfe')            # in al,92h; or al,1; out 92h,al
RESET_CF9 = bytes.fromhex('baf90c' 'b006' 'ee' 'ebfe')            # mov dx,0cf9h; mov al,6; out dx,al
RESET_CF9_SOFT = bytes.fromhex('baf90c' 'b004' 'ee' 'ebfe')       # RST_CPU without SYS_RST
RESET_8042 = bytes.fromhex('b0fe' 'e664' 'ebfe')                  # mov al,0feh; out 64h,al
# Real mode: count the boots in the byte at 500H (RAM a reset keeps), reset
# through port 92H until the fourth, then exit with V = 4.
REBOOT_COUNT = bytes.fromhex('fe060005' 'a00005' '3c04' '7408' 'e492' '0c01' 'e692' 'ebfe' 'e6f4')
# The same as a 64 KiB BIOS: the code at F000:0000, reached from the reset
# vector by a far jump; CF9H (hard reset) until the third boot, V = 3.
def reboot_bios():
    code = bytes.fromhex('fe060005' 'a00005' '3c03' '7408' 'baf90c' 'b006' 'ee' 'ebfe' 'e6f4')
    bios = bytearray(b'\xf4' * 0x10000)
    bios[:len(code)] = code
    bios[0xfff0:0xfff5] = bytes.fromhex('ea000000f0')     # jmp far f000:0000
    return bytes(bios)
# Real mode: "Shutdown" written a byte at a time to port 8900h, then jmp $;
# a wrong last byte does nothing, and the program exits with V = 5.
def shutdown_port(text, then=b'\xeb\xfe'):
    code = bytes.fromhex('ba0089')                               # mov dx, 8900h
    for ch in text:
        code += bytes([0xb0, ch, 0xee])                          # mov al, ch; out dx, al
    return code + then


# Real mode: "Hi" at row 1, column 2 of the VGA text screen (B800:00A4), the
# CRTC cursor at row 1, column 4 (location 84), then exit with V=0x10.
REAL_VGA_HI = bytes.fromhex(
    'b800b8' '8ec0'                  # mov ax, 0b800h; mov es, ax
    '26c706a4004807'                 # mov word [es:0a4h], 0748h  'H'
    '26c706a6006907'                 # mov word [es:0a6h], 0769h  'i'
    'bad403' 'b80e00' 'ef'           # mov dx, 3d4h; mov ax, 000eh; out dx, ax
    'b80f54' 'ef'                    # mov ax, 540fh; out dx, ax  (cursor low = 84)
    'b010e6f4')                      # exit V=0x10
# Real mode: echo each byte of the 8042's output buffer to COM1 until the
# break code of 'a' in set 1 (9Eh), then exit with V=0x10.
REAL_KBD_ECHO = bytes.fromhex(
    'e464' 'a801' '74fa'             # l: in al, 64h; test al, 1; jz l
    'e460' 'baf803' 'ee'             # in al, 60h; mov dx, 3f8h; out dx, al
    '3c9e' '75f1'                    # cmp al, 9eh; jne l
    'b010e6f4')
# Real mode: pulse the 8042's reset line (command FEh), then spin.
REAL_KBC_RESET = bytes.fromhex('b0fe' 'e664' 'ebfe')


def png_size(name, want):
    """A check: tmp/name is a PNG of want = (width, height)."""
    def check(tmp):
        try:
            with open(os.path.join(tmp, name), 'rb') as f:
                head = f.read(24)
        except OSError as e:
            return f'{name}: {e}'
        if head[:8] != b'\x89PNG\r\n\x1a\n' or head[12:16] != b'IHDR':
            return f'{name} is not a PNG'
        got = struct.unpack('>II', head[16:24])
        return None if got == want else f'{name} is {got[0]}x{got[1]}, expected {want[0]}x{want[1]}'
    return check


def files(tmp):
    """Write the inputs every case may use; return their paths."""
    p = {}
    def put(name, data):
        path = os.path.join(tmp, name)
        with open(path, 'wb') as f:
            f.write(data)
        p[name] = path
    put('mbcheck.bin', aout_kernel(MB_CHECK))
    put('ud2.bin', aout_kernel(UD2))
    # mov dx, 402h; in al, dx; out dx, al; out 0f4h, al
    put('debugcon.bin', bytes.fromhex('ba0204' 'ec' 'ee' 'e6f4'))
    # Symbols for it, as System.map/kallsyms lines (unsorted, a data symbol,
    # a module column): its UD2 lies at 100020h.
    put('ud2.map', b'0000000000100030 t after_ud2\n0000000000100000 T kernel_start\n'
        b'0000000000100010 D some_data\n0000000000100020 T ud2_here\t[fake]\n')
    put('extra.map', b'0000000000100000 T multiboot_header\n')
    put('placeholder.map', b'ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n')
    put('hidden.map', b'0000000000000000 T start_kernel\n0000000000000000 t helper\n')
    put('malformed.map', b'0000000000100000 T kernel_start\nnot a symbol line\n')
    put('mbcheck64.elf', elf64_kernel(MB_CHECK))
    put('real.bin', REAL_HELLO)
    put('long.bin', LONG_HELLO)
    put('spin.bin', SPIN)
    put('clihlt.bin', CLI_HLT)
    put('repouts.bin', REP_OUTS_SPIN)
    put('noheader.bin', b'\x90' * 4096)
    put('badsum.bin', struct.pack('<III', MB_MAGIC, 0, 0) + b'\0' * 64)
    put('notelf.bin', struct.pack('<III', MB_MAGIC, 2, (-(MB_MAGIC + 2)) & 0xffffffff) + b'\0' * 64)
    put('badelf.elf', b'\x7fELF\x01\x01\x01' + b'\0' * 9 +
        struct.pack('<III', MB_MAGIC, 2, (-(MB_MAGIC + 2)) & 0xffffffff) + b'\0' * 32)
    put('empty.bin', b'')
    # A bzImage's setup header (boot.rst): 4 setup sectors, 55AAH, "HdrS",
    # protocol 2.15, LOADED_HIGH; then 512 bytes of "kernel" (never run).
    bz = bytearray(5 * 512 + 512)
    struct.pack_into('<H', bz, 0x1fe, 0xaa55)
    bz[0x200:0x202] = b'\xeb\x6a'
    struct.pack_into('<4sH', bz, 0x202, b'HdrS', 0x020f)
    bz[0x211] = 1
    struct.pack_into('<I', bz, 0x22c, 0x7fffffff)
    struct.pack_into('<I', bz, 0x238, 2047)
    put('fakebz.bin', bytes(bz))
    put('bios.bin', b'\xf4' * 100)      # not a multiple of 64 KiB
    # 64 KiB BIOS: at the reset vector F000:FFF0, exit with V=5 (status 11).
    bios = bytearray(b'\xf4' * 0x10000)
    bios[0xfff0:0xfff4] = bytes.fromhex('b005' 'e6f4')
    put('bios64k.bin', bytes(bios))
    put('realtriple.bin', REAL_INT_TRIPLE)
    put('postspin.bin', REAL_POST_SPIN)
    put('tailspin.bin', REAL_TAIL_SPIN)
    put('rtcyear.bin', real_cmos(9))
    put('rtchour.bin', real_cmos(4))
    put('cpuid16.bin', REAL_CPUID16)
    put('rdrand16.bin', REAL_RDRAND16)
    put('exit127.bin', real_exit(127))
    put('exit128.bin', real_exit(128))
    put('exit200.bin', real_exit(200))
    put('vgahi.bin', REAL_VGA_HI)
    put('kbdecho.bin', REAL_KBD_ECHO)
    put('kbcreset.bin', REAL_KBC_RESET)
    put('exitword.bin', EXIT_WORD)
    put('exitdword.bin', EXIT_DWORD)
    put('reset92.bin', RESET_92)
    put('resetcf9.bin', RESET_CF9)
    put('resetcf9soft.bin', RESET_CF9_SOFT)
    put('reset8042.bin', RESET_8042)
    put('rebootcount.bin', REBOOT_COUNT)
    put('rebootbios.bin', reboot_bios())
    put('shutdown.bin', shutdown_port(b'Shutdown'))
    put('shutdownx.bin', shutdown_port(b'Shutdowx', real_exit(5)))
    put('mbcheck8000.bin', aout_kernel(MB_CHECK, load=0x8000))
    put('mbcheckf0000.bin', aout_kernel(MB_CHECK, load=0xf0000))
    put('module1.bin', b'first module\n')
    put('module2.bin', bytes(range(256)) * 20)
    put('notes.txt', b'keep me\n')
    put('svm_stuck.bin', svm_kernel(SVM_LOOP_STUCK, bytes.fromhex('0fa2'), INT_CPUID))
    put('svm_steps.bin', svm_kernel(SVM_LOOP_STEP, SVM_GUEST_STEPS, INT_CPUID | INT_HLT, INT_VMMCALL))
    put('svm_rounds.bin', svm_kernel(SVM_LOOP_ROUNDS, SVM_GUEST_ROUNDS, 0, INT_VMMCALL))
    os.link(p['mbcheck.bin'], os.path.join(tmp, 'hardlink.bin'))
    os.symlink('mbcheck.bin', os.path.join(tmp, 'symlink.bin'))
    os.mkfifo(os.path.join(tmp, 'fifo'))     # no writer: opening it to read would wait
    p['fifo'] = os.path.join(tmp, 'fifo')
    return p


def unchanged(name, want):
    """A check: the file tmp/name still holds want."""
    def check(tmp):
        with open(os.path.join(tmp, name), 'rb') as f:
            got = f.read()
        return None if got == want else f'{name} was changed: {got[:40]!r}'
    return check


def case(args, status, out=None, one_error=False, err=None, check=None, sig=None, env=None, wait=None,
         timeout=60):
    """One row: err is a text (or a list of texts, in this order) stderr must
    hold; check(tmp) returns None or what is wrong; sig a signal (or a list,
    sent half a second apart) to send after the guest's first line on stdout,
    or after wait seconds; env variables to set (None: unset) for hvemu;
    timeout the host seconds the run may take."""
    return {'args': args, 'status': status, 'out': out, 'one_error': one_error,
            'err': [err] if isinstance(err, str) else (err or []), 'check': check, 'sig': sig,
            'env': env, 'wait': wait, 'timeout': timeout}


def cases(p, tmp):
    """name -> (args, expected status, expected stdout or None, one error line?
    [, text stderr must contain]), or a case(...)"""
    e = lambda *a: (list(a), 2, None, True)
    # A usage error whose one line must hold the given text.
    ee = lambda text, *a: case(list(a), 2, None, True, text)
    mb, real = p['mbcheck.bin'], p['real.bin']
    kernel_bytes = aout_kernel(MB_CHECK)
    return {
        'help': (['--help'], 0, None, False),
        'version': (['--version'], 0, None, False),
        'cpu-help': (['run', '--cpu', 'help'], 0, None, False),
        'no-command': e(),
        'bad-command': e('frobnicate'),
        'unknown-option': e('run', '--kernel', p['mbcheck.bin'], '--frob'),
        'missing-value': e('run', '--kernel'),
        'stray-argument': e('run', p['mbcheck.bin']),
        'missing-file': e('run', '--kernel', os.path.join(tmp, 'does-not-exist.elf')),
        'empty-file': e('run', '--kernel', p['empty.bin']),
        'no-header': e('run', '--kernel', p['noheader.bin']),
        'bad-checksum': e('run', '--kernel', p['badsum.bin']),
        'not-elf': e('run', '--kernel', p['notelf.bin']),
        'bad-elf': e('run', '--kernel', p['badelf.elf']),
        'dir-as-kernel': e('run', '--kernel', tmp),
        'mem-too-small': e('run', '--kernel', p['mbcheck.bin'], '--mem', '1M'),
        'mem-too-big': e('run', '--kernel', p['mbcheck.bin'], '--mem', '4G'),
        'mem-garbage': e('run', '--kernel', p['mbcheck.bin'], '--mem', '12Q'),
        'bad-cpu': e('run', '--kernel', p['mbcheck.bin'], '--cpu', 'nosuchcpu'),
        'bad-trace': e('run', '--kernel', p['mbcheck.bin'], '--trace', 'insn,bogus'),
        'bad-serial': e('run', '--kernel', p['mbcheck.bin'], '--serial', 'tcp:1234'),
        'bad-max-insns': e('run', '--kernel', p['mbcheck.bin'], '--max-insns', '0'),
        'load-no-addr': e('run', '--load', p['real.bin'], '--entry', '0x7c00'),
        'load-beyond-ram': e('run', '--load', p['real.bin'] + '@0x10000000', '--entry', '0x7c00'),
        'entry-above-1m': e('run', '--load', p['real.bin'] + '@0x100000', '--entry', '0x100000'),
        'bad-tlb': e('run', '--kernel', p['mbcheck.bin'], '--tlb', 'sometimes'),
        'tlb-flush': (['run', '--kernel', p['mbcheck.bin'], '--tlb', 'flush'], 1, b'', False),
        'tlb-exact': (['run', '--kernel', p['mbcheck.bin'], '--tlb', 'exact'], 1, b'', False),
        'nothing-to-run': e('run', '--mem', '64M'),
        'bad-debugcon': ee("bad --debugcon 'stdout' (stderr or file:PATH)", 'run', '--kernel', mb, '--debugcon',
                           'stdout'),
        # The debug console: a byte written to 402h goes to the log; reading
        # it gives E9h (real mode: in al, dx; out dx, al; then isa-debug-exit
        # with the byte read: (0xe9 << 1 | 1) & 0xff = 0xd3).
        'debugcon-readback': case(['run', '--load', p['debugcon.bin'] + '@0x7c00', '--entry', '0x7c00', '--debugcon',
                                   'stderr'], 0xd3, b'', False, 'the guest wrote 233 (0xe9)'),
        'debugcon-absent': (['run', '--load', p['debugcon.bin'] + '@0x7c00', '--entry', '0x7c00'], 0xff, b'', False),
        'bad-machine': ee("bad --machine 'isapc' (pc or q35)", 'run', '--kernel', mb, '--machine', 'isapc'),
        # q35's RAM below 4 GiB ends at its ECAM window (devices/q35.h).
        'q35-mem-too-big': ee('--machine q35 has at most 2816M of RAM', 'run', '--kernel', mb,
                              '--machine', 'q35', '--mem', '2817M'),
        'q35-mem-max': (['run', '--kernel', mb, '--machine', 'q35', '--mem', '2816M'], 1, b'', False),
        'machine-pc': (['run', '--kernel', mb, '--machine', 'pc'], 1, b'', False),
        # --quirk/--quirks (emu/quirks.def): a profile's SVM and VMX rows are
        # left out on a model without them; one such --quirk is refused.
        'quirks-help': (['run', '--quirks', 'help'], 0, None, False),
        'quirk-help': (['run', '--quirk', 'help'], 0, None, False),
        'quirks-unknown': ee("unknown quirk profile 'qemu-7.1' (try --quirks help)", 'run', '--kernel', mb,
                             '--quirks', 'qemu-7.1'),
        'quirk-unknown': ee("unknown quirk 'qemu-frob' (try --quirk help)", 'run', '--kernel', mb,
                            '--quirk', 'qemu-frob'),
        'quirks-twice': ee('--quirks given twice', 'run', '--kernel', mb, '--quirks', 'qemu-7.2',
                           '--quirks', 'bochs-2.7'),
        'quirks-qemu-core2': (['run', '--kernel', mb, '--cpu', 'core2', '--quirks', 'qemu-7.2'], 1, b'', False),
        'quirks-bochs-epyc': (['run', '--kernel', mb, '--cpu', 'epyc-lite', '--quirks', 'bochs-2.7'], 1, b'',
                              False),
        'quirk-vmx-no-vmx': ee('bochs-vmxon-cr0-pe-ne-only changes the VMX model; CPU model \'epyc-lite\' has no VMX',
                               'run', '--kernel', mb, '--cpu', 'epyc-lite', '--quirk', 'bochs-vmxon-cr0-pe-ne-only'),
        'quirk-cpu-any-model': (['run', '--kernel', mb, '--cpu', 'pentium', '--quirk', 'qemu-no-ac'], 1, b'', False),
        'bad-bios': e('run', '--bios', p['bios.bin']),
        # These need a working CPU core.
        'multiboot-state': (['run', '--kernel', p['mbcheck.bin'], '--serial', 'none'], 1, None, False),
        'multiboot-elf64': (['run', '--kernel', p['mbcheck64.elf'], '--serial', 'none'], 1, None, False),
        'real-hello': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00'], 33, b'A', False),
        # Two outputs on one path: refused, nothing written.
        'serial-screenshot-same': case(['run', '--load', real + '@0x7c00', '--entry', '0x7c00', '--serial',
                                        'file:notes.txt', '--screenshot', './notes.txt'], 2, None, True,
                                       'are one file', unchanged('notes.txt', b'keep me\n')),
        'serial-screenshot-same-new': ee('are one file', 'run', '--load', real + '@0x7c00', '--entry', '0x7c00',
                                         '--serial', 'file:out.png', '--screenshot', 'out.png'),
        # A serial log that cannot be written is an error (status 10), not silence.
        'serial-file-full': case(['run', '--load', real + '@0x7c00', '--entry', '0x7c00', '--serial',
                                  'file:/dev/full'], 10, b'', False,
                                 'hvemu: error: serial output to /dev/full was lost: No space left on device'),
        'serial-file': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00',
                         '--serial', 'file:' + os.path.join(tmp, 'com1.txt')], 33, b'', False),
        'insn-limit': (['run', '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00',
                        '--max-insns', '1000'], 6, b'', False),
        'halt': (['run', '--load', p['clihlt.bin'] + '@0x7c00', '--entry', '0x7c00'], 8, b'', False),
        # Each REP iteration is virtual time, so the limit bounds the host's
        # time too (a second here; counted per 1024-byte chunk it was a minute).
        'insn-limit-rep-outs': case(['run', '--load', p['repouts.bin'] + '@0x7c00', '--entry', '0x7c00',
                                     '--max-insns', '1000000'], 6, b'', False,
                                    'instruction limit reached at 0000:00007c08 after 1000000 instructions',
                                    timeout=10),
        'bios-reset': (['run', '--bios', p['bios64k.bin']], 11, b'', False),
        'trace-insn': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00',
                        '--trace', 'insn,io'], 33, b'A', False,
                       'insn: 0000:00007c00  b0 41'),
        # The chain, first fault first: UD2's #UD, the #GP met delivering it
        # (IDT entry 6 is zeros: error code 6*8+2+EXT), the #GP delivering that,
        # the #DF Table 6-5 makes of the pair, and the #GP delivering the #DF.
        'triple-fault': case(['run', '--kernel', p['ud2.bin']], 4, b'', False, [
            'hvemu: triple fault (shutdown) at 0008:00100020',
            'first fault first',
            '1. #UD (vector 6) ', '0008:00100020  0f 0b  ud2',
            '2. #GP (vector 13) err=0x33 (IDT vector 6, EXT) while delivering #UD', 'ud2',
            '3. #GP (vector 13) err=0x6b (IDT vector 13, EXT) while delivering #GP', 'ud2',
            '4. #DF (vector 8) err=0x0: #GP while delivering #GP', 'ud2',
            '5. #GP (vector 13) err=0x43 (IDT vector 8, EXT) while delivering #DF: shutdown', 'ud2',
            'eax=2badb002']),
        # Real mode, a software interrupt first: its link names INT 21h at the
        # INT instruction; real-mode events push no error code (SDM 20.1.4).
        'triple-fault-real-int': case(['run', '--load', p['realtriple.bin'] + '@0x7c00', '--entry', '0x7c00'],
                                      4, b'', False, [
            '1. INT 0x21 ', '0000:00007c05  cd 21  int 0x21',
            '2. #GP (vector 13) while delivering INT 0x21',
            '3. #GP (vector 13) while delivering #GP',
            '4. #DF (vector 8): #GP while delivering #GP',
            '5. #GP (vector 13) while delivering #DF: shutdown']),
        # --serial file:PATH is opened only once every input is read and
        # checked, and never when it names one of the inputs.
        'serial-kept-on-bad-arg': case(['run', '--kernel', mb, '--serial', 'file:notes.txt', '--mem', 'abc'],
                                       2, None, True, 'bad --mem', unchanged('notes.txt', b'keep me\n')),
        'serial-kept-on-bad-kernel': case(['run', '--kernel', p['noheader.bin'], '--serial', 'file:notes.txt'],
                                          2, None, True, 'multiboot', unchanged('notes.txt', b'keep me\n')),
        'serial-kept-on-overlap': case(['run', '--kernel', mb, '--load', real + '@0x101000',
                                        '--serial', 'file:notes.txt'],
                                       2, None, True, 'overlaps', unchanged('notes.txt', b'keep me\n')),
        'serial-is-kernel': case(['run', '--kernel', 'mbcheck.bin', '--serial', 'file:mbcheck.bin'], 2, None, True,
                                 "is the input 'mbcheck.bin'", unchanged('mbcheck.bin', kernel_bytes)),
        'serial-is-kernel-dot': case(['run', '--kernel', 'mbcheck.bin', '--serial', 'file:./mbcheck.bin'], 2, None,
                                     True, 'is the input', unchanged('mbcheck.bin', kernel_bytes)),
        'serial-is-kernel-absolute': case(['run', '--kernel', 'mbcheck.bin', '--serial', 'file:' + mb], 2, None,
                                          True, 'is the input', unchanged('mbcheck.bin', kernel_bytes)),
        'serial-is-hard-link': case(['run', '--kernel', 'mbcheck.bin', '--serial', 'file:hardlink.bin'], 2, None,
                                    True, 'is the input', unchanged('mbcheck.bin', kernel_bytes)),
        'serial-is-symlink': case(['run', '--kernel', 'mbcheck.bin', '--serial', 'file:symlink.bin'], 2, None,
                                  True, 'is the input', unchanged('mbcheck.bin', kernel_bytes)),
        'serial-is-load': case(['run', '--load', 'real.bin@0x7c00', '--entry', '0x7c00', '--serial', 'file:real.bin'],
                               2, None, True, "is the input 'real.bin'", unchanged('real.bin', REAL_HELLO)),
        'serial-is-bios': case(['run', '--bios', 'bios64k.bin', '--serial', 'file:bios64k.bin'], 2, None, True,
                               'is the input'),
        # --cpu help outside `run`.
        'cpu-help-top': case(['--cpu', 'help'], 0, None, False),
        'cpu-help-top-eq': case(['--cpu=help'], 0, None, False),
        'cpu-help-top-extra': e('--cpu', 'help', 'run'),
        'cpu-model-top': ee("belongs after 'run'", '--cpu', 'core2'),
        'cpu-help-after-kernel': (['run', '--kernel', mb, '--cpu', 'help'], 0, None, False),
        # Conflicting and repeated options: one line naming both.
        # --symbols: the report, the fault chain and --trace exc name the function.
        'symbols-triple-fault': case(['run', '--kernel', p['ud2.bin'], '--symbols', p['ud2.map']], 4, b'', False, [
            'hvemu: triple fault (shutdown) at 0008:00100020 <ud2_here [fake]+0x0/0x10> after',
            '1. #UD (vector 6) ', '0008:00100020 <ud2_here [fake]+0x0/0x10>  0f 0b  ud2']),
        'symbols-trace-exc': case(['run', '--kernel', p['ud2.bin'], '--symbols', p['ud2.map'], '--trace', 'exc'],
                                  4, b'', False,
                                  'exc: vector 6 (#UD) at 0008:00100020 <ud2_here [fake]+0x0/0x10>'),
        'symbols-missing': ee('bad --symbols: cannot open', 'run', '--kernel', p['ud2.bin'], '--symbols',
                              p['ud2.map'] + '.none'),
        # Repeated: the files' symbols merge (a second file's at 100000h).
        'symbols-two-files': case(['run', '--kernel', p['ud2.bin'], '--symbols', p['extra.map'], '--symbols',
                                   p['ud2.map']], 4, b'', False,
                                  'triple fault (shutdown) at 0008:00100020 <ud2_here [fake]+0x0/0x10>'),
        'symbols-placeholder': ee('no code symbols', 'run', '--kernel', p['ud2.bin'], '--symbols', p['placeholder.map']),
        'symbols-hidden': ee("every code symbol's address is 0", 'run', '--kernel', p['ud2.bin'], '--symbols',
                             p['hidden.map']),
        'symbols-malformed': ee('malformed.map:2: not an "ADDRESS TYPE NAME" line', 'run', '--kernel', p['ud2.bin'],
                                '--symbols', p['malformed.map']),
        'symbols-stripped-elf': ee('without code symbols', 'run', '--kernel', p['ud2.bin'], '--symbols',
                                   p['mbcheck64.elf']),
        'kernel-twice': ee('--kernel given twice', 'run', '--kernel', mb, '--kernel', p['ud2.bin']),
        'bios-twice': ee('--bios given twice', 'run', '--bios', p['bios64k.bin'], '--bios', p['bios64k.bin']),
        'kernel-and-bios': ee('--kernel and --bios exclude each other', 'run', '--kernel', mb,
                              '--bios', p['bios64k.bin']),
        'kernel-and-entry': ee('--kernel and --entry exclude each other', 'run', '--kernel', mb,
                               '--load', real + '@0x7c00', '--entry', '0x7c00'),
        'kernel-and-entry64': ee('--kernel and --entry64 exclude each other', 'run', '--cpu', 'skylake-lite',
                                 '--kernel', mb, '--load', p['long.bin'] + '@0x200000', '--entry64', '0x200000'),
        'bios-and-entry': ee('--bios and --entry exclude each other', 'run', '--bios', p['bios64k.bin'],
                             '--load', real + '@0x7c00', '--entry', '0x7c00'),
        'entry-and-entry64': ee('--entry and --entry64 exclude each other', 'run', '--cpu', 'skylake-lite',
                                '--load', real + '@0x7c00', '--entry', '0x7c00', '--entry64', '0x7c00'),
        'entry-twice': ee('--entry given twice', 'run', '--load', real + '@0x7c00', '--entry', '0x7c00',
                          '--entry', '0x7c02'),
        'mem-twice': ee('--mem given twice', 'run', '--kernel', mb, '--mem', '64M', '--mem', '128M'),
        # --cpu MODEL,+FEATURE,-FEATURE,phys-bits=N (emu/cpu_modifiers.c).
        'cpu-modifiers-run': (['run', '--kernel', mb, '--cpu', 'skylake-lite,-pcid,-x2apic,phys-bits=36'], 1,
                              b'', False),
        'cpu-modifiers-svm-run': (['run', '--kernel', mb, '--cpu', 'epyc-lite,-npt'], 1, b'', False),
        'cpu-modifiers-no-vmx-run': (['run', '--kernel', mb, '--cpu=core2,-vmx'], 1, b'', False),
        'cpu-modifier-unknown': ee("unknown feature 'frob' (try --cpu help)", 'run', '--kernel', mb, '--cpu',
                                   'skylake-lite,+frob'),
        'cpu-modifier-bad-model': ee("unknown CPU model 'nosuch'", 'run', '--kernel', mb, '--cpu', 'nosuch,-pcid'),
        'cpu-modifier-syntax': ee("bad modifier 'pcid'", 'run', '--kernel', mb, '--cpu', 'skylake-lite,pcid'),
        'cpu-modifier-svm-on-intel': ee("'skylake-lite' cannot have svm", 'run', '--kernel', mb, '--cpu',
                                        'skylake-lite,+svm'),
        'cpu-modifier-lm-on-pentium': ee("has no CPUID leaf 80000001H", 'run', '--kernel', mb, '--cpu', 'pentium,+lm'),
        'cpu-modifier-x2apic-without-apic': ee("'x2apic' needs 'apic'", 'run', '--kernel', mb, '--cpu',
                                               'skylake-lite,-apic'),
        'cpu-modifier-npt-without-svm': ee("is an SVM feature", 'run', '--kernel', mb, '--cpu', 'epyc-lite,-svm,+npt'),
        'cpu-modifier-phys-bits-range': ee('phys-bits=64 out of range (32..52', 'run', '--kernel', mb, '--cpu',
                                           'skylake-lite,phys-bits=64'),
        'cpu-twice': ee('--cpu given twice', 'run', '--kernel', mb, '--cpu', 'core2', '--cpu', 'pentium'),
        'serial-twice': ee('--serial given twice', 'run', '--kernel', mb, '--serial', 'none', '--serial', 'stdio'),
        'trace-twice': ee('--trace given twice', 'run', '--kernel', mb, '--trace', 'insn', '--trace', 'io'),
        'tlb-twice': ee('--tlb given twice', 'run', '--kernel', mb, '--tlb', 'exact', '--tlb', 'flush'),
        'max-insns-twice': ee('--max-insns given twice', 'run', '--kernel', mb, '--max-insns', '5',
                              '--max-insns=6'),
        'dump-pt-twice': ee('--dump-pt given twice', 'run', '--kernel', mb, '--dump-pt', 'exit',
                            '--dump-pt', 'shutdown'),
        'cmdline-twice': ee('--cmdline given twice', 'run', '--kernel', mb, '--cmdline', 'a', '--cmdline', 'b'),
        'cmdline-without-kernel': ee('--cmdline is passed to a multiboot --kernel', 'run', '--load',
                                     real + '@0x7c00', '--entry', '0x7c00', '--cmdline', 'x'),
        'load-without-entry': ee('--load needs --entry', 'run', '--load', real + '@0x7c00'),
        'entry-without-load': ee('--entry needs a --load', 'run', '--entry', '0x7c00'),
        'entry-outside-load': ee('--entry 0x8000 is not inside any --load image', 'run',
                                 '--load', real + '@0x7c00', '--entry', '0x8000'),
        # The multiboot information (structure, map, GDT, module list, strings)
        # is on the page after the kernel; modules follow page-aligned.
        'load-overlaps-mbi': ee('overlaps the multiboot information of', 'run', '--kernel', mb,
                                '--load', real + '@0x101010'),
        'load-overlaps-module': ee("overlaps module 1 ('module2.bin x')", 'run', '--kernel', mb,
                                   '--module', p['module1.bin'], '--module', 'module2.bin x',
                                   '--load', real + '@0x103010'),
        'load-overlaps-acpi': ee('overlaps the ACPI tables', 'run', '--load', real + '@0xf0000',
                                 '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00'),
        'kernel-overlaps-acpi': ee('overlaps the ACPI tables', 'run', '--kernel', p['mbcheckf0000.bin']),
        # No fixed area: a kernel at 0x8000 (over QEMU's 0x9000-0x96ff) runs,
        # and a --load where QEMU keeps the information is allowed.
        'kernel-at-8000': (['run', '--kernel', p['mbcheck8000.bin'], '--serial', 'none'], 1, None, False),
        'load-at-9000-with-kernel': (['run', '--kernel', mb, '--load', real + '@0x9000', '--serial', 'none'],
                                     1, None, False),
        # --module "FILE ARGS" (repeatable).
        'modules': (['run', '--kernel', mb, '--module', p['module1.bin'] + ' a=1 b',
                     '--module', p['module2.bin'], '--serial', 'none'], 1, None, False),
        # --kernel tells the formats apart; --initrd is Linux's, --module Multiboot's.
        'no-kernel-format': ee('not a kernel hvemu boots: no multiboot header', 'run', '--kernel',
                               p['noheader.bin']),
        'initrd-without-kernel': ee('--initrd is loaded for a Linux --kernel', 'run', '--load',
                                    real + '@0x7c00', '--entry', '0x7c00', '--initrd', p['module1.bin']),
        'initrd-with-multiboot': ee('is a Multiboot kernel: give its modules with --module', 'run', '--kernel', mb,
                                    '--initrd', p['module1.bin']),
        'module-with-bzimage': ee('is a Linux bzImage: give its initrd with --initrd', 'run', '--kernel',
                                  p['fakebz.bin'], '--module', p['module1.bin']),
        'initrd-missing-file': ee("--initrd: cannot open 'nosuch.img'", 'run', '--kernel', p['fakebz.bin'],
                                  '--initrd', 'nosuch.img'),
        'initrd-twice': ee('--initrd given twice', 'run', '--kernel', p['fakebz.bin'], '--initrd', 'a',
                           '--initrd', 'b'),
        'bzimage-cmdline-too-long': ee('command line too long (3000 bytes, this kernel takes 2047)', 'run',
                                       '--kernel', p['fakebz.bin'], '--cmdline', 'x' * 3000),
        'module-without-kernel': ee('--module is loaded for a multiboot --kernel', 'run', '--load',
                                    real + '@0x7c00', '--entry', '0x7c00', '--module', p['module1.bin']),
        'module-empty': ee("bad --module ''", 'run', '--kernel', mb, '--module', ''),
        'module-leading-space': ee("bad --module ' x'", 'run', '--kernel', mb, '--module', ' x'),
        'module-missing-file': ee("--module 'nosuch.bin arg': cannot open 'nosuch.bin'", 'run', '--kernel', mb,
                                  '--module', 'nosuch.bin arg'),
        'module-too-many': ee('too many --module options (max 32)', 'run', '--kernel', mb,
                              *sum([['--module', p['module1.bin']] for _ in range(33)], [])),
        'module-too-long': ee('--module string too long', 'run', '--kernel', mb,
                              '--module', p['module1.bin'] + ' ' + 'x' * 5000),
        'serial-is-module': case(['run', '--kernel', mb, '--module', 'module1.bin args',
                                  '--serial', 'file:module1.bin'], 2, None, True,
                                 "is the module 'module1.bin'", unchanged('module1.bin', b'first module\n')),
        'load-overlaps-load': ee('overlaps --load', 'run', '--load', real + '@0x7c00',
                                 '--load', p['spin.bin'] + '@0x7c08', '--entry', '0x7c00'),
        'load-overlaps-bios': ee('overlaps the BIOS below 1 MiB', 'run', '--bios', p['bios64k.bin'],
                                 '--load', real + '@0xf0000'),
        'load-overlaps-entry64': ee('overlaps the --entry64 stack and page tables', 'run', '--cpu', 'skylake-lite',
                                    '--load', p['long.bin'] + '@0x200000', '--load', real + '@0x12000',
                                    '--entry64', '0x200000'),
        # Allowed: a --load beside a kernel, clear of it; --load with --bios.
        'load-beside-kernel': (['run', '--kernel', mb, '--load', real + '@0x300000', '--serial', 'none'],
                               1, None, False),
        'load-with-bios': (['run', '--bios', p['bios64k.bin'], '--load', real + '@0x7c00'], 11, b'', False),
        # isa-debug-exit V >= 128: the status does not fit in 8 bits.
        'debug-exit-127': case(['run', '--load', p['exit127.bin'] + '@0x7c00', '--entry', '0x7c00'], 255, b''),
        'debug-exit-128': case(['run', '--load', p['exit128.bin'] + '@0x7c00', '--entry', '0x7c00'], 1, b'',
                               False, ['wrote 128 (0x80) to isa-debug-exit',
                                       'the exit status will be 1, which reads as V = 0 (a pass)']),
        'debug-exit-200': case(['run', '--load', p['exit200.bin'] + '@0x7c00', '--entry', '0x7c00'], 145, b'',
                               False, ['wrote 200 (0xc8)', 'exit status will be 145, which reads as V = 72']),
        # isa-debug-exit as QEMU's with iosize=4: V is the whole value written.
        'debug-exit-word': case(['run', '--load', p['exitword.bin'] + '@0x7c00', '--entry', '0x7c00'], 1, b'',
                                False, ['wrote 256 (0x100)', 'the exit status will be 1']),
        'debug-exit-dword': case(['run', '--load', p['exitdword.bin'] + '@0x7c00', '--entry', '0x7c00'], 7, b''),
        # Without --no-reboot a reset restarts the machine: RAM kept, the image
        # entered again (a flat image at its --entry, a BIOS at its reset
        # vector, a kernel at its multiboot entry); virtual time goes on, so
        # --max-insns ends a guest that resets for ever.
        'reboot-flat': case(['run', '--load', p['rebootcount.bin'] + '@0x7c00', '--entry', '0x7c00'], 9, b''),
        'reboot-bios': case(['run', '--bios', p['rebootbios.bin']], 7, b''),
        'reboot-smp': case(['run', '--load', p['rebootcount.bin'] + '@0x7c00', '--entry', '0x7c00', '--smp', '2'],
                           9, b''),
        'reboot-forever': case(['run', '--load', p['reset92.bin'] + '@0x7c00', '--entry', '0x7c00', '--max-insns',
                                '10000'], 6, b'', False, 'instruction limit reached'),
        'no-reboot-value': ee('--no-reboot takes no value', 'run', '--kernel', mb, '--no-reboot=1'),
        # With --no-reboot resets end the run with status 14, the "Shutdown" port with 16.
        'reset-port92': case(['run', '--load', p['reset92.bin'] + '@0x7c00', '--entry', '0x7c00', '--no-reboot'], 14, b'',
                             False, 'hvemu: reset requested through port 0x92 bit 0 (fast reset) at 0000:00007c06'),
        'reset-cf9': case(['run', '--load', p['resetcf9.bin'] + '@0x7c00', '--entry', '0x7c00', '--no-reboot'], 14, b'',
                          False, 'reset requested through port 0xcf9 (hard reset'),
        'reset-cf9-soft': case(['run', '--load', p['resetcf9soft.bin'] + '@0x7c00', '--entry', '0x7c00', '--no-reboot'], 14,
                               b'', False, 'reset requested through port 0xcf9 (soft reset'),
        'reset-8042': case(['run', '--load', p['reset8042.bin'] + '@0x7c00', '--entry', '0x7c00', '--no-reboot'], 14, b'',
                           False, 'reset requested through 8042 command 0xfe'),
        'shutdown-port': case(['run', '--load', p['shutdown.bin'] + '@0x7c00', '--entry', '0x7c00'], 16, b'',
                              False, 'power-off requested through port 0x8900 ("Shutdown")'),
        'shutdown-port-wrong': case(['run', '--load', p['shutdownx.bin'] + '@0x7c00', '--entry', '0x7c00'],
                                    11, b''),
        # SIGINT / SIGTERM: where the CPU was, status 12.
        'sigint': case(['run', '--load', p['postspin.bin'] + '@0x7c00', '--entry', '0x7c00'], 12, b'R\n', False,
                       ['hvemu: stopped by SIGINT after ', ' instructions, last POST code 0x42, next instruction at '
                        '0000:00007c0d  eb fe  jmp 0x7c0d'], sig=signal.SIGINT),
        'sigterm': case(['run', '--load', p['postspin.bin'] + '@0x7c00', '--entry', '0x7c00'], 12, b'R\n', False,
                        ['hvemu: stopped by SIGTERM after ', '0000:00007c0d  eb fe  jmp 0x7c0d'], sig=signal.SIGTERM),
        'bad-dump-pt': e('run', '--kernel', p['mbcheck.bin'], '--dump-pt', 'sometimes'),
        'dump-pt-shutdown': (['run', '--kernel', p['ud2.bin'], '--dump-pt', 'shutdown'], 4, b'', False,
                             'page tables: CR3=0x0 paging off'),
        'entry64-no-long-mode': e('run', '--cpu', 'pentium', '--load', p['long.bin'] + '@0x200000',
                                  '--entry64', '0x200000'),
        'entry64-non-canonical': e('run', '--cpu', 'skylake-lite', '--load', p['long.bin'] + '@0x200000',
                                   '--entry64', '0x800000000000'),
        'entry64-hello': (['run', '--cpu', 'skylake-lite', '--load', p['long.bin'] + '@0x200000',
                           '--entry64', '0x200000'], 33, b'A', False),
        # The repro catalog (cli/repro.c): its guests are built in, so a run
        # works from this temporary directory; options after NAME go to `run`
        # and replace the entry's of the same name.
        'repro-help': (['repro', '--help'], 0, None, False),
        'repro-list': (['repro', 'list'], 0, None, False),
        'repro-list-extra': e('repro', 'list', 'x'),
        'repro-no-command': e('repro'),
        'repro-bad-command': e('repro', 'frobnicate'),
        'repro-run-no-name': e('repro', 'run'),
        'repro-run-unknown': ee("no repro named 'nosuch'", 'repro', 'run', 'nosuch'),
        'repro-run-kernel': ee('brings its own kernel; --kernel', 'repro', 'run', 'nova-escape-exitinfo2',
                               '--kernel', mb),
        # A flag takes no value: the word after it is the next option.
        'repro-run-stats-kernel': ee('brings its own kernel; --kernel', 'repro', 'run', 'nova-escape-exitinfo2',
                                     '--stats', '--kernel', mb),
        'repro-run-realtime-load': ee('brings its own kernel; --load', 'repro', 'run', 'nova-escape-exitinfo2',
                                      '--realtime', '--load', real + '@0x7c00'),
        'repro-run-bad-option': ee("unknown option '--frob'", 'repro', 'run', 'nova-escape-exitinfo2', '--frob'),
        'repro-run-quirk-no-svm': ee('has no SVM', 'repro', 'run', 'nova-escape-exitinfo2', '--cpu', 'core2',
                                     '--quirk', 'qemu-exitinfo2-nowrap'),
        # The 32-bit L1 only (the guest's command line), every path as the APM says.
        'repro-run': (['repro', 'run', 'nova-escape-exitinfo2', '--cmdline', 'l1=32', '--serial', 'none'],
                      1, b'', False),
        # --cpu pentium replaces the entry's epyc-lite: no SVM, nothing checked (255).
        'repro-run-cpu-replaced': (['repro', 'run', 'nova-escape-exitinfo2', '--cpu', 'pentium'], 255, None,
                                   False),
        # --display, --screenshot, --keys; the 8042's reset.
        'display-text': case(['run', '--load', p['vgahi.bin'] + '@0x7c00', '--entry', '0x7c00', '--display', 'text'],
                             33, b'', False, [
            'hvemu: text screen at exit, cursor at row 1 column 4:\n+' + '-' * 80 + '+\n',
            '|' + ' ' * 80 + '|\n|  Hi' + ' ' * 76 + '|\n', '+' + '-' * 80 + '+\n']),
        'display-none': case(['run', '--load', p['vgahi.bin'] + '@0x7c00', '--entry', '0x7c00', '--display', 'none'],
                             33, b'', False),
        'display-bad': ee("bad --display 'vga' (none, text or sdl)", 'run', '--kernel', mb, '--display', 'vga'),
        'display-twice': ee('--display given twice', 'run', '--kernel', mb, '--display', 'none',
                            '--display', 'text'),
        # No X server to open the window on: one error line, nothing run.
        'display-sdl-no-x': case(['run', '--kernel', mb, '--display', 'sdl'], 2, b'', True, '--display sdl: ',
                                 env={'DISPLAY': None, 'WAYLAND_DISPLAY': None, 'SDL_VIDEODRIVER': 'x11'}),
        # SDL's invisible fallbacks are no display either: refused before the
        # serial file is opened (it keeps its contents).
        **{f'display-sdl-{drv}': case(['run', '--kernel', mb, '--display', 'sdl', '--serial', 'file:notes.txt'],
                                      2, b'', True, '--display sdl: ', unchanged('notes.txt', b'keep me\n'),
                                      env={'DISPLAY': None, 'WAYLAND_DISPLAY': None, 'SDL_VIDEODRIVER': drv})
           for drv in ('offscreen', 'dummy')},
        'display-sdl-no-display': case(['run', '--kernel', mb, '--display', 'sdl', '--serial', 'file:notes.txt'],
                                       2, b'', True, '--display sdl: ', unchanged('notes.txt', b'keep me\n'),
                                       env={'DISPLAY': None, 'WAYLAND_DISPLAY': None, 'SDL_VIDEODRIVER': None}),
        'display-sigusr1': case(['run', '--load', p['postspin.bin'] + '@0x7c00', '--entry', '0x7c00',
                                 '--display', 'text', '--max-insns', '300000000'], 6, b'R\n', False,
                                ['hvemu: text screen on SIGUSR1, cursor at row 0 column 0:',
                                 'hvemu: text screen at exit', 'instruction limit reached'], sig=signal.SIGUSR1),
        'screenshot': case(['run', '--load', p['vgahi.bin'] + '@0x7c00', '--entry', '0x7c00',
                            '--screenshot', 'shot.png'], 33, b'', False, check=png_size('shot.png', (720, 400))),
        'screenshot-is-kernel': case(['run', '--kernel', 'mbcheck.bin', '--screenshot', './mbcheck.bin'], 2, None,
                                     True, "--screenshot ./mbcheck.bin is the input 'mbcheck.bin'",
                                     unchanged('mbcheck.bin', kernel_bytes)),
        'screenshot-no-folder': ee("folder 'no/such'", 'run', '--kernel', mb, '--screenshot', 'no/such/shot.png'),
        'screenshot-folder': ee('is a folder', 'run', '--kernel', mb, '--screenshot', tmp),
        'screenshot-twice': ee('--screenshot given twice', 'run', '--kernel', mb, '--screenshot', 'a.png',
                               '--screenshot', 'b.png'),
        # --keys: 'a' at 1 ms is 1Eh, 9Eh through the translating 8042.
        'keys-typed': (['run', '--load', p['kbdecho.bin'] + '@0x7c00', '--entry', '0x7c00', '--keys', '1ms:a'],
                       33, b'\x1e\x9e', False),
        # Not before its time: a key at 100 ms is not there after 50M instructions.
        'keys-late': (['run', '--load', p['kbdecho.bin'] + '@0x7c00', '--entry', '0x7c00',
                       '--keys', '100ms:a', '--max-insns', '50000000'], 6, b'', False),
        'keys-bad-time': ee("bad --keys: '10:abc' does not start with a time", 'run', '--kernel', mb,
                            '--keys', '10:abc'),
        'keys-bad-name': ee('unknown key <Nope>', 'run', '--kernel', mb, '--keys', '1ms:<Nope>'),
        'kbc-reset': case(['run', '--load', p['kbcreset.bin'] + '@0x7c00', '--entry', '0x7c00', '--no-reboot'], 14, b'', False,
                          'hvemu: reset requested through 8042 command 0xfe (pulse the reset line) at 0000:00007c04'),
        # Watching VM exits (README "Watching VM exits"): the options' errors.
        'bad-trace-format': ee("bad --trace-format 'xml' (text or json)", 'run', '--kernel', mb,
                               '--trace', 'vmexit', '--trace-format', 'xml'),
        'trace-format-twice': ee('--trace-format given twice', 'run', '--kernel', mb, '--trace', 'vmexit',
                                 '--trace-format', 'json', '--trace-format', 'text'),
        'trace-format-without-vmexit': ee('--trace-format is the form of the --trace vmexit lines', 'run',
                                          '--kernel', mb, '--trace', 'insn,exc', '--trace-format', 'json'),
        'trace-format-without-trace': ee('--trace does not list vmexit', 'run', '--kernel', mb,
                                         '--trace-format', 'text'),
        'stats-with-value': ee("--stats takes no value (got 'yes')", 'run', '--kernel', mb, '--stats=yes'),
        'stats-twice': ee('--stats given twice', 'run', '--kernel', mb, '--stats', '--stats'),
        'bad-livelock': ee("bad --livelock 'many'", 'run', '--kernel', mb, '--livelock', 'many'),
        'livelock-negative': ee("bad --livelock '-1'", 'run', '--kernel', mb, '--livelock', '-1'),
        'livelock-empty': ee("bad --livelock ''", 'run', '--kernel', mb, '--livelock='),
        'livelock-missing': ee('option --livelock needs a value', 'run', '--kernel', mb, '--livelock'),
        'livelock-twice': ee('--livelock given twice', 'run', '--kernel', mb, '--livelock', '5',
                             '--livelock', '0'),
        # Accepted everywhere; with no hypervisor extension in use there are no
        # exits, and --stats says so however the run ends.
        'trace-vmexit-json': case(['run', '--load', real + '@0x7c00', '--entry', '0x7c00', '--trace', 'vmexit',
                                   '--trace-format=json', '--livelock', '0'], 33, b'A'),
        # Five instructions, two of them port writes of a microsecond each
        # (devices/bus.h IO_BUS_CYCLE_NS: 999 ticks beyond their own at 1 GHz).
        'stats-debug-exit': case(['run', '--load', real + '@0x7c00', '--entry', '0x7c00', '--stats'], 33, b'A',
                                 False, 'hvemu: stats: no VM exits in 2003 virtual instructions\n'),
        'stats-insn-limit': case(['run', '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00', '--stats',
                                  '--max-insns', '1000'], 6, b'', False,
                                 ['instruction limit reached', 'hvemu: stats: no VM exits in 1000 virtual']),
        'stats-shutdown': case(['run', '--kernel', p['ud2.bin'], '--stats'], 4, b'', False,
                               ['triple fault (shutdown)', 'eax=2badb002', 'hvemu: stats: no VM exits in ']),
        # A real L1 under the SVM model (--cpu epyc-lite): the trace lines in the
        # README's form, the summary, and the livelock detector.
        'svm-trace-text': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_steps.bin'], '--trace', 'vmexit'],
                               1, b'', False, [
            'vmexit #1 svm VMEXIT_CPUID 0x72 at 0008:00100100 [0f a2] "cpuid" info1=0x0 info2=0x0 "" '
            'intinfo=0x0 "none" dt=0 t=',
            '\nvmexit #2 svm VMEXIT_VMMCALL 0x81 at 0008:00100102 [0f 01 d9] "vmmcall" info1=0x0 info2=0x0 "" '
            'intinfo=0x0 "none" dt=0 t=',
            '\nvmexit #3 svm VMEXIT_HLT 0x78 at 0008:00100105 [f4] "hlt" info1=0x0 info2=0x0 "" '
            'intinfo=0x0 "none" dt=0 t=',
            '\nvmexit #4 svm VMEXIT_INVALID 0xffffffffffffffff at 0008:00100105 [] "?" info1=0x0 info2=0x0 "',
            '" intinfo=0x0 "none" dt=0 t=', ' check="APM2 15.5.1: ', '"\n']),
        'svm-trace-all': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_steps.bin'], '--trace', 'all'],
                              1, b'', False, ['insn: 0008:00100041  0f 01 d8', 'vmexit #1 svm VMEXIT_CPUID 0x72',
                                              'vmexit #4 svm VMEXIT_INVALID']),
        # Checked line by line in main(): JSON, keys in the README's order.
        'svm-trace-json': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_steps.bin'], '--trace', 'vmexit',
                                '--trace-format', 'json'], 1, b''),
        'svm-stats': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_steps.bin'], '--stats'], 1, b'', False, [
            'hvemu: stats: 4 VM exits in ', ' virtual instructions (', ' per million); 0 instructions (0.00%) in guests\n',
            '  code                name                             count    share\n',
            '  0x72                VMEXIT_CPUID                         1   25.00%\n',
            '  0x78                VMEXIT_HLT                           1   25.00%\n',
            '  0x81                VMEXIT_VMMCALL                       1   25.00%\n',
            '  0xffffffffffffffff  VMEXIT_INVALID                       1   25.00%\n',
            'hvemu: stats: guest instructions from VM entry to exit (log2 buckets):\n',
            '  0                                                     4  100.00%  ' + '#' * 40 + '\n',
            'hvemu: stats: L1 handling time, from the exit to the next VM entry (virtual instructions, '
            'log2 buckets):\n', '  0x72 VMEXIT_CPUID: 1 handled, mean ']),
        'svm-livelock': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_stuck.bin']], 18, b'', False, [
            'hvemu: livelock: svm exit VMEXIT_CPUID (0x72) at 0008:00100100 repeated 10000 times in a row '
            '(exits #1 to #10000) with no guest instruction in between; the last one:\n'
            'vmexit #10000 svm VMEXIT_CPUID 0x72 at 0008:00100100 [0f a2] "cpuid" info1=0x0 info2=0x0 "" '
            'intinfo=0x0 "none" dt=0 t=']),
        'svm-livelock-n-stats': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_stuck.bin'], '--livelock', '50',
                                      '--stats'], 18, b'', False, [
            'repeated 50 times in a row (exits #1 to #50)', 'hvemu: stats: 50 VM exits in ',
            '  0x72                VMEXIT_CPUID                        50  100.00%\n']),
        # --perturb-exits randomises CPUID's undefined EXITINFO1/2 on every
        # exit: still the same exit to the detector (svm/exit_perturb.h).
        'svm-livelock-perturbed': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_stuck.bin'],
                                        '--perturb-exits', '1', '--livelock', '50', '--max-insns', '1000000'],
                                       18, b'', False, [
            'repeated 50 times in a row (exits #1 to #50)',
            'hvemu: perturb-exits: seed 1, 50 VM exits with undefined fields randomised, '
            '0 spurious interrupt exits']),
        # Off: the loop runs until the instruction limit.
        'svm-livelock-off': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_stuck.bin'], '--livelock', '0',
                                  '--max-insns', '100000'], 6, b'', False, 'instruction limit reached'),
        # Identical exits with the guest running in between are progress.
        'svm-rounds-not-livelock': case(['run', '--cpu', 'epyc-lite', '--kernel', p['svm_rounds.bin'],
                                         '--livelock', '100', '--stats'], 1, b'', False, [
            'hvemu: stats: 20000 VM exits in ',
            '  0x81                VMEXIT_VMMCALL                   20000  100.00%\n',
            '  0                                                     1    0.01%  #\n',
            '  1                                                 19999  100.00%  ']),
        # SIGHUP, SIGUSR2 and SIGTERM stop the run as SIGINT does: the report,
        # and the serial bytes not yet ended by a newline reach the file.
        **{f'signal-{name.lower()}-serial-file': case(
            ['run', '--load', p['tailspin.bin'] + '@0x7c00', '--entry', '0x7c00', '--serial', 'file:com1.log'],
            12, b'', False, [f'hvemu: stopped by {name} after ', 'next instruction at 0000:'],
            unchanged('com1.log', TAIL_TEXT), getattr(signal, name), wait=1.0)
           for name in ('SIGHUP', 'SIGUSR2', 'SIGTERM')},
        # SIGUSR1 has no use without --display text: ignored, the run goes on.
        'signal-sigusr1-ignored': case(['run', '--load', p['tailspin.bin'] + '@0x7c00', '--entry', '0x7c00',
                                        '--serial', 'file:com1.log'], 12, b'', False,
                                       'hvemu: stopped by SIGTERM', unchanged('com1.log', TAIL_TEXT),
                                       [signal.SIGUSR1, signal.SIGTERM], wait=1.0),
        'stats-sigint': case(['run', '--load', p['postspin.bin'] + '@0x7c00', '--entry', '0x7c00', '--stats'], 12,
                             b'R\n', False, ['hvemu: stopped by SIGINT', 'hvemu: stats: no VM exits in '],
                             sig=signal.SIGINT),
        # --insn-rate: a frequency with an optional k/M/G suffix, 1M..10G;
        # CPUID 16H reports it in MHz (here 100: status 201).
        'insn-rate-garbage': ee("bad --insn-rate 'fast'", 'run', '--kernel', mb, '--insn-rate', 'fast'),
        'insn-rate-fraction': ee("bad --insn-rate '1.5'", 'run', '--kernel', mb, '--insn-rate', '1.5'),
        'insn-rate-low': ee('--insn-rate 500k out of range', 'run', '--kernel', mb, '--insn-rate', '500k'),
        'insn-rate-high': ee('--insn-rate 20G out of range', 'run', '--kernel', mb, '--insn-rate', '20G'),
        'insn-rate-twice': ee('--insn-rate given twice', 'run', '--kernel', mb, '--insn-rate', '1G',
                              '--insn-rate', '2G'),
        'insn-rate-multiboot': (['run', '--kernel', mb, '--insn-rate', '2.4G', '--serial', 'none'], 1, None, False),
        'insn-rate-cpuid': (['run', '--load', p['cpuid16.bin'] + '@0x7c00', '--entry', '0x7c00',
                             '--insn-rate', '100M'], 201, b'', False),
        'insn-rate-hz': (['run', '--load', p['cpuid16.bin'] + '@0x7c00', '--entry', '0x7c00',
                          '--insn-rate', '120000000Hz'], 241, b'', False),
        # --seed: RDRAND's values follow it (the first of CPU 0 is SplitMix64's
        # first output from the seed: ...AFH for 0, ...C1H for 1; status 2*AL+1).
        'seed-default': (['run', '--load', p['rdrand16.bin'] + '@0x7c00', '--entry', '0x7c00'], 95, b'', False),
        'seed-1': (['run', '--load', p['rdrand16.bin'] + '@0x7c00', '--entry', '0x7c00', '--seed', '1'],
                   131, b'', False),
        'seed-garbage': ee("bad --seed 'x'", 'run', '--kernel', mb, '--seed', 'x'),
        # --perturb-exits acts on the model's SVM or VMX (machine/hypervisor.c).
        'perturb-garbage': ee("bad --perturb-exits 'x' (a seed: a number)", 'run', '--kernel', mb,
                              '--perturb-exits', 'x'),
        'perturb-no-hv': ee("--perturb-exits needs a CPU model with SVM or VMX ('pentium' has neither)",
                            'run', '--kernel', mb, '--cpu', 'pentium', '--perturb-exits', '1'),
        # --realtime is a flag.
        'realtime': (['run', '--kernel', mb, '--realtime', '--serial', 'none'], 1, None, False),
        'realtime-value': ee('--realtime takes no value', 'run', '--kernel', mb, '--realtime=yes'),
        'realtime-twice': ee('--realtime given twice', 'run', '--kernel', mb, '--realtime', '--realtime'),
        # --rtc-base: the RTC's start; the default is 2000-01-01 00:00:00.
        'rtc-default-year': (['run', '--load', p['rtcyear.bin'] + '@0x7c00', '--entry', '0x7c00'], 1, b'', False),
        'rtc-base-year': (['run', '--load', p['rtcyear.bin'] + '@0x7c00', '--entry', '0x7c00',
                           '--rtc-base', '2024-03-15T10:20:30'], 0x24 * 2 + 1, b'', False),
        'rtc-base-hour': (['run', '--load', p['rtchour.bin'] + '@0x7c00', '--entry', '0x7c00',
                           '--rtc-base', '1999-12-31 23:59:59'], 0x23 * 2 + 1, b'', False),
        'rtc-base-date-only': (['run', '--load', p['rtcyear.bin'] + '@0x7c00', '--entry', '0x7c00',
                                '--rtc-base', '2012-02-29'], 0x12 * 2 + 1, b'', False),
        'rtc-base-not-a-date': ee("bad --rtc-base '2023-02-29'", 'run', '--kernel', mb, '--rtc-base', '2023-02-29'),
        'rtc-base-format': ee("bad --rtc-base '2024/01/01'", 'run', '--kernel', mb, '--rtc-base', '2024/01/01'),
        'rtc-base-range': ee("bad --rtc-base '2100-01-01'", 'run', '--kernel', mb, '--rtc-base', '2100-01-01'),
        'rtc-base-twice': ee('--rtc-base given twice', 'run', '--kernel', mb, '--rtc-base', '2000-01-01',
                             '--rtc-base', '2001-01-01'),
        # A FIFO (no writer) is refused at once, whichever option names it.
        'fifo-kernel': ee("'fifo' is not a regular file", 'run', '--kernel', 'fifo'),
        'fifo-module': ee("'fifo' is not a regular file", 'run', '--kernel', mb, '--module', 'fifo'),
        'fifo-load': ee("'fifo' is not a regular file", 'run', '--load', 'fifo@0x7c00', '--entry', '0x7c00'),
        'fifo-bios': ee("'fifo' is not a regular file", 'run', '--bios', 'fifo'),
        # --smp N and --quantum (machine/smp.h).
        'smp-zero': e('run', '--kernel', mb, '--smp', '0'),
        'smp-too-many': ee('1..16', 'run', '--kernel', mb, '--smp', '17'),
        'smp-not-a-number': e('run', '--kernel', mb, '--smp', 'two'),
        'smp-twice': ee('--smp given twice', 'run', '--kernel', mb, '--smp', '2', '--smp', '3'),
        'smp-no-apic': ee('needs a CPU model with a local APIC', 'run', '--cpu', 'pentium', '--smp', '2',
                          '--kernel', mb),
        'quantum-without-smp': ee('there is no --smp', 'run', '--kernel', mb, '--quantum', '100'),
        'quantum-zero': e('run', '--kernel', mb, '--smp', '2', '--quantum', '0'),
        # A quantum is bounded (a huge one wrapped the turn's end: the run span
        # forever with time stuck, deaf to --max-insns).
        'quantum-too-big': ee('1..1000000000', 'run', '--kernel', mb, '--smp', '2', '--quantum',
                              '18446744073709551615'),
        'quantum-max': case(['run', '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00', '--smp', '2',
                             '--quantum', '1000000000', '--max-insns', '5000'], 6, b'', False,
                            'instruction limit reached'),
        # The BSP runs the kernel while the APs wait for a SIPI.
        'smp-kernel': (['run', '--kernel', mb, '--smp', '4', '--quantum', '7', '--serial', 'none'], 1, None, False),
        'smp-real-hello': (['run', '--load', real + '@0x7c00', '--entry', '0x7c00', '--smp', '2'], 33, b'A', False),
        # Every CPU halted, no timer: the machine has halted (status 8).
        'smp-all-halted': case(['run', '--load', p['clihlt.bin'] + '@0x7c00', '--entry', '0x7c00', '--smp', '3'],
                               8, b'', False, 'HLT with interrupts disabled'),
        # The limit is the machine's time, whichever CPU reaches it.
        'smp-insn-limit': case(['run', '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00', '--smp', '2',
                                '--max-insns', '5000'], 6, b'', False,
                               'instruction limit reached at 0000:00007c00 after 5000 instructions'),
    }


# The keys of a --trace-format json line, in order (README "Watching VM exits").
JSON_KEYS = ['exit', 'vendor', 'name', 'code', 'cs', 'rip', 'bits', 'insn', 'disasm', 'info1', 'info2',
             'describe', 'intinfo', 'event', 'failed_check', 'guest_insns', 'now']


def check_json_lines(err):
    """The svm-trace-json case: four JSON lines, every key in order, the
    values of the svm_steps guest's exits; None or what is wrong."""
    lines = [json.loads(l) for l in err.splitlines() if l.startswith('{')]
    if len(lines) != 4:
        return f'{len(lines)} JSON lines, expected 4'
    want = [('VMEXIT_CPUID', '0x72', '0x100100', '0fa2', 'cpuid'),
            ('VMEXIT_VMMCALL', '0x81', '0x100102', '0f01d9', 'vmmcall'),
            ('VMEXIT_HLT', '0x78', '0x100105', 'f4', 'hlt'),
            ('VMEXIT_INVALID', '0xffffffffffffffff', '0x100105', '', None)]
    last_now = -1
    for i, (o, w) in enumerate(zip(lines, want)):
        if list(o) != JSON_KEYS:
            return f'line {i + 1}: keys {list(o)}'
        got = (o['name'], o['code'], o['rip'], o['insn'], o['disasm'])
        if got != w or o['exit'] != i + 1 or o['vendor'] != 'svm' or o['cs'] != '0x0008' or o['bits'] != 32:
            return f'line {i + 1}: {o}'
        if o['info1'] != '0x0' or o['info2'] != '0x0' or o['intinfo'] != '0x0' or o['event'] is not None:
            return f'line {i + 1}: information fields {o}'
        if o['guest_insns'] != 0 or not isinstance(o['now'], int) or o['now'] <= last_now:
            return f'line {i + 1}: times {o}'
        last_now = o['now']
        if (o['failed_check'] is None) != (i < 3):
            return f'line {i + 1}: failed_check {o["failed_check"]!r}'
    if not lines[3]['failed_check'].startswith('APM2 15.5.1: '):
        return f'failed_check {lines[3]["failed_check"]!r} does not name its APM section'
    return None


def direct_start(args):
    """The case's arguments with --firmware none after `run` when it starts a
    --kernel and names no firmware: the cases test hvemu's own loader, and the
    default goes through SeaBIOS when it is installed (the firmware-default
    cases say which they want)."""
    if args[:1] == ['run'] and '--kernel' in args and not {'--firmware', '--bios'} & set(args) and \
            not any(a.startswith(('--firmware=', '--bios=')) for a in args):
        return ['run', '--firmware', 'none'] + args[1:]
    return args


def run_case(hvemu, c, tmp):
    """Run one case; return (status, stdout, stderr text)."""
    cmd = [hvemu] + direct_start(c['args'])
    env = dict(os.environ)
    for k, v in (c['env'] or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if not c['sig']:
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=c['timeout'],
                               cwd=tmp, env=env)
        except subprocess.TimeoutExpired:
            return None, b'', f'(still running after {c["timeout"]} s: killed)'
        return r.returncode, r.stdout, r.stderr.decode(errors='replace')
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp, env=env)
    if c['wait']:
        time.sleep(c['wait'])            # the guest's output goes to a file
        first = b''
    else:
        first = proc.stdout.readline()   # the guest runs: its line came out
    for i, sig in enumerate(c['sig'] if isinstance(c['sig'], list) else [c['sig']]):
        if i:
            time.sleep(0.5)
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, first + out, err.decode(errors='replace')


def contains_in_order(text, parts):
    """The first part of parts not found in text after the previous one, or None."""
    pos = 0
    for part in parts:
        i = text.find(part, pos)
        if i < 0:
            return part
        pos = i + len(part)
    return None


def main():
    hvemu, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix='hvemu-cli-') as tmp:
        p = files(tmp)
        table = cases(p, tmp)
        if name == 'list':
            print('\n'.join(table))
            return 0
        c = table[name]
        if isinstance(c, tuple):
            c = case(*c)
        status, out, err = run_case(hvemu, c, tmp)
        print('$ hvemu', ' '.join(c['args']))
        print('status', status)
        print('stdout:', out[:400])
        print('stderr:', err[:3000])
        ok = True
        if status != c['status']:
            print(f'FAIL: exit status {status}, expected {c["status"]}')
            ok = False
        if c['out'] is not None and out != c['out']:
            print(f'FAIL: stdout {out!r}, expected {c["out"]!r}')
            ok = False
        lines = err.splitlines()
        if c['one_error'] and (len(lines) != 1 or not lines[0].startswith('hvemu: error: ')):
            print('FAIL: expected exactly one "hvemu: error: ..." line on stderr')
            ok = False
        missing = contains_in_order(err, c['err'])
        if missing is not None:
            print(f'FAIL: stderr lacks {missing!r} (in this order: {c["err"]!r})')
            ok = False
        if c['check']:
            why = c['check'](tmp)
            if why:
                print('FAIL:', why)
                ok = False
        if name in ('help', 'version', 'debug-exit-127', 'cpu-help', 'cpu-help-top') and err:
            print('FAIL: expected nothing on stderr')
            ok = False
        if name == 'repro-list' and not re.search(rb'nova-escape-exitinfo2\n[\s\S]*runs: +hvemu run --cpu epyc-lite', out):
            print('FAIL: repro list does not show the catalog')
            ok = False
        if name == 'help' and b'exit status' not in out:
            print('FAIL: --help does not document the exit statuses')
            ok = False
        if name == 'svm-trace-json':
            why = check_json_lines(err)
            if why:
                print('FAIL:', why)
                ok = False
        watch_help = [b'vmexit', b'--trace-format text|json', b'--stats', b'--livelock N', b'default 10000, 0 = off',
                      b'18   livelock']
        if name == 'help' and not all(w in out for w in watch_help):
            print('FAIL: --help does not document --trace vmexit, --trace-format, --stats, --livelock and status 18')
            ok = False
        if name.startswith('cpu-help') and c['status'] == 0 and b'core2' not in out:
            print('FAIL: --cpu help does not list the models')
            ok = False
        # The default (first) model is 64-bit, its features decoded from CPUID;
        # VMX is on: vmx/ implements it (machine/hypervisor.c).
        first = re.search(rb'\n  (\S+) .*\n((?: {16}.*\n)*)', out)
        if name == 'cpu-help' and not (first and first[1] == b'skylake-lite' and
                                       re.search(rb'\slm\s', first[2]) and
                                       re.search(rb'vmx:[\s\S]*\sept\s', first[2])):
            print('FAIL: --cpu help does not show the default model\'s features')
            ok = False
        if name == 'serial-file':
            with open(os.path.join(tmp, 'com1.txt'), 'rb') as f:
                if f.read() != b'A':
                    print('FAIL: serial file does not hold the guest output')
                    ok = False
        return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
