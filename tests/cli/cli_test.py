#!/usr/bin/env python3
"""Command-line tests for hvemu, one row per case.

usage: cli_test.py HVEMU CASE     (CASE 'list' prints the case names)

Each case runs hvemu with some arguments (and files it builds in a temporary
directory: tiny real-mode programs, a.out-kludge multiboot kernels, broken
images) and checks the exit status, stdout and that errors are exactly one
"hvemu: error: ..." line on stderr.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

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
MB_CHECK = bytes.fromhex(
    '3d02b0ad2b'      # cmp eax, 0x2badb002
    '7514'            # jne fail
    '81fb00950000'    # cmp ebx, 0x9500
    '750c'            # jne fail
    '813b4f020000'    # cmp dword [ebx], 0x24f (flags)
    '7504'            # jne fail
    'b000'            # mov al, 0
    'e6f4'            # out 0xf4, al
    'b001'            # fail: mov al, 1
    'e6f4'            # out 0xf4, al
)

# Real mode at 0000:7c00: print "A" on COM1, then exit with V=0x10 (status 33).
REAL_HELLO = bytes.fromhex('b041' 'baf803' 'ee' 'b010' 'e6f4')
# The same in 64-bit code: mov al,'A'; mov dx,3f8h (66h); out dx,al; mov al,16; out f4h,al
LONG_HELLO = bytes.fromhex('b041' '66baf803' 'ee' 'b010' 'e6f4')
SPIN = bytes.fromhex('ebfe')            # jmp $
CLI_HLT = bytes.fromhex('faf4')         # cli; hlt
# ud2 in protected mode with the IDT left at 0 (zeros: no valid gates): #UD
# becomes #GP, then #DF, then a triple fault.
UD2 = bytes.fromhex('0f0b')


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
    put('mbcheck64.elf', elf64_kernel(MB_CHECK))
    put('real.bin', REAL_HELLO)
    put('long.bin', LONG_HELLO)
    put('spin.bin', SPIN)
    put('clihlt.bin', CLI_HLT)
    put('noheader.bin', b'\x90' * 4096)
    put('badsum.bin', struct.pack('<III', MB_MAGIC, 0, 0) + b'\0' * 64)
    put('notelf.bin', struct.pack('<III', MB_MAGIC, 2, (-(MB_MAGIC + 2)) & 0xffffffff) + b'\0' * 64)
    put('badelf.elf', b'\x7fELF\x01\x01\x01' + b'\0' * 9 +
        struct.pack('<III', MB_MAGIC, 2, (-(MB_MAGIC + 2)) & 0xffffffff) + b'\0' * 32)
    put('empty.bin', b'')
    put('bios.bin', b'\xf4' * 100)      # not a multiple of 64 KiB
    # 64 KiB BIOS: at the reset vector F000:FFF0, exit with V=5 (status 11).
    bios = bytearray(b'\xf4' * 0x10000)
    bios[0xfff0:0xfff4] = bytes.fromhex('b005' 'e6f4')
    put('bios64k.bin', bytes(bios))
    return p


def cases(p, tmp):
    """name -> (args, expected status, expected stdout or None, one error line?
    [, text stderr must contain])"""
    e = lambda *a: (list(a), 2, None, True)
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
        'bad-bios': e('run', '--bios', p['bios.bin']),
        # These need a working CPU core.
        'multiboot-state': (['run', '--kernel', p['mbcheck.bin'], '--serial', 'none'], 1, None, False),
        'multiboot-elf64': (['run', '--kernel', p['mbcheck64.elf'], '--serial', 'none'], 1, None, False),
        'real-hello': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00'], 33, b'A', False),
        'serial-file': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00',
                         '--serial', 'file:' + os.path.join(tmp, 'com1.txt')], 33, b'', False),
        'insn-limit': (['run', '--load', p['spin.bin'] + '@0x7c00', '--entry', '0x7c00',
                        '--max-insns', '1000'], 6, b'', False),
        'halt': (['run', '--load', p['clihlt.bin'] + '@0x7c00', '--entry', '0x7c00'], 8, b'', False),
        'bios-reset': (['run', '--bios', p['bios64k.bin']], 11, b'', False),
        'trace-insn': (['run', '--load', p['real.bin'] + '@0x7c00', '--entry', '0x7c00',
                        '--trace', 'insn,io'], 33, b'A', False,
                       'insn: 0000:00007c00  b0 41'),
        'triple-fault': (['run', '--kernel', p['ud2.bin']], 4, b'', False, 'triple-fault: vector'),
        'bad-dump-pt': e('run', '--kernel', p['mbcheck.bin'], '--dump-pt', 'sometimes'),
        'dump-pt-shutdown': (['run', '--kernel', p['ud2.bin'], '--dump-pt', 'shutdown'], 4, b'', False,
                             'page tables: CR3=0x0 paging off'),
        'entry64-no-long-mode': e('run', '--cpu', 'pentium', '--load', p['long.bin'] + '@0x200000',
                                  '--entry64', '0x200000'),
        'entry64-non-canonical': e('run', '--cpu', 'skylake-lite', '--load', p['long.bin'] + '@0x200000',
                                   '--entry64', '0x800000000000'),
        'entry64-hello': (['run', '--cpu', 'skylake-lite', '--load', p['long.bin'] + '@0x200000',
                           '--entry64', '0x200000'], 33, b'A', False),
    }


def main():
    hvemu, name = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix='hvemu-cli-') as tmp:
        p = files(tmp)
        table = cases(p, tmp)
        if name == 'list':
            print('\n'.join(table))
            return 0
        args, want, want_out, one_error = table[name][:4]
        want_err = table[name][4] if len(table[name]) > 4 else None
        r = subprocess.run([hvemu] + args, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=60)
        print('$ hvemu', ' '.join(args))
        print('status', r.returncode)
        print('stdout:', r.stdout[:400])
        print('stderr:', r.stderr.decode(errors='replace')[:2000])
        ok = True
        if r.returncode != want:
            print(f'FAIL: exit status {r.returncode}, expected {want}')
            ok = False
        if want_out is not None and r.stdout != want_out:
            print(f'FAIL: stdout {r.stdout!r}, expected {want_out!r}')
            ok = False
        if one_error:
            lines = r.stderr.decode(errors='replace').splitlines()
            if len(lines) != 1 or not lines[0].startswith('hvemu: error: '):
                print('FAIL: expected exactly one "hvemu: error: ..." line on stderr')
                ok = False
        if want_err and want_err not in r.stderr.decode(errors='replace'):
            print(f'FAIL: stderr lacks {want_err!r}')
            ok = False
        if name == 'help' and b'exit status' not in r.stdout:
            print('FAIL: --help does not document the exit statuses')
            ok = False
        if name == 'cpu-help' and b'core2' not in r.stdout:
            print('FAIL: --cpu help does not list the models')
            ok = False
        # The default (first) model is 64-bit, its features decoded from CPUID;
        # VMX is listed as off while no hypervisor model implements it.
        first = re.search(rb'\n  (\S+) .*\n((?: {16}.*\n)*)', r.stdout)
        if name == 'cpu-help' and not (first and first[1] == b'skylake-lite' and
                                       re.search(rb'\slm\s', first[2]) and
                                       re.search(rb'vmx\(off: not implemented\):[\s\S]*\sept\s', first[2])):
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
