#!/usr/bin/env python3
"""Runs one hvemu guest (a multiboot v1 ELF, tests/guests/) under Bochs 2.7.

usage: run-bochs.py [--bochs PATH] [--cpu MODEL] [--cmdline WORDS]
                    [--timeout SECONDS] ROM ELF pass|shutdown

ROM is boot_rom.bin (boot_rom.S, built by meson): an option ROM that hooks
INT 19h and starts the kernel that this script places in RAM as a "boot
blob" (the ELF's loadable segments, its multiboot information and command
line; README.md). The guest prints TAP on COM1, which Bochs writes to a file.

Bochs has no isa-debug-exit port: the guest's final write to port 0xf4 is
ignored and its CLI; HLT never ends the simulation. So the run ends when the
guest's last TAP line appears on COM1 (tap_finish(): "# PASS all", "# FAILED",
"# SKIP all", "1..0 # SKIP"), when Bochs exits by itself (a panic: a triple
fault with reset_on_triple_fault=0), or after --timeout seconds (a failure).
This script then ends the Bochs process it started.

The verdict is run-guest.sh's, read from the log instead of an exit status:
  pass:     "# PASS all", a TAP plan 1..N with N test lines, at least one that
            is not a skip, and no "not ok" without "# TODO";
  shutdown: the guest triple-faults on purpose: Bochs reports the third
            exception with no resolution (SDM Vol.3 6.15 "Interrupt 8": a
            fault while delivering #DF shuts the processor down).
A guest that checked nothing is a SKIP (exit 77) unless GUEST_MUST_CHECK=1;
so is a run without Bochs or its BIOS images.
Exit status: 0 pass, 1 fail, 77 skip, 99 error in the set-up.
"""
import argparse
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BLOB_ADDR = 0x04000000        # optramimage1's address in bochsrc.in and BLOB in boot_rom.S
BLOB_MAGIC = 0x42425648       # "HVBB"
# Bochs 2.7's load_RAM reads the whole file through one host pointer into its
# 128 KiB memory blocks, which it allocates in the order they are first
# touched: a RAM image must stay inside one block.
BLOB_MAX = 128 * 1024
MEGS = 128                    # as QEMU's -m 128 in run-guest.sh
BIOS_CANDIDATES = ['/usr/share/bochs/BIOS-bochs-latest']
VGABIOS_CANDIDATES = ['/usr/share/vgabios/vgabios.bin', '/usr/share/bochs/VGABIOS-lgpl-latest']
# The lines tap_finish() and skip_all() end a run with (tests/guests/lib/tap.c).
FINAL_LINE = re.compile(r'^(# PASS all|# FAILED|# SKIP all|1\.\.0 # SKIP)', re.M)
TRIPLE_FAULT = re.compile(r'3rd \(\d+\) exception with no resolution')

# Multiboot v1 information structure (Multiboot 0.6.96 section 3.3).
MBI_F_MEMORY = 1 << 0
MBI_F_CMDLINE = 1 << 2
MBI_F_LOADER_NAME = 1 << 9
MBI_SIZE = 88


def fail(msg, status=1):
    print(msg)
    sys.exit(status)


def elf_segments(path):
    """(entry, [(paddr, bytes, memsz)]) of a 32-bit x86 ELF's PT_LOAD segments."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 1 or data[5] != 1:
        fail(f'{path}: not a 32-bit little-endian ELF', 99)
    (e_type, e_machine, _, e_entry, e_phoff, _, _, _, e_phentsize,
     e_phnum) = struct.unpack_from('<HHIIIIIHHH', data, 16)
    if e_machine != 3:
        fail(f'{path}: not an i386 ELF (e_machine {e_machine})', 99)
    segs = []
    for i in range(e_phnum):
        p_type, p_offset, _, p_paddr, p_filesz, p_memsz = struct.unpack_from(
            '<IIIIII', data, e_phoff + i * e_phentsize)
        if p_type == 1 and p_memsz:
            segs.append((p_paddr, data[p_offset:p_offset + p_filesz], p_memsz))
    if not segs:
        fail(f'{path}: no loadable segment', 99)
    return e_entry, segs


def make_blob(elf, cmdline):
    """The boot blob boot_rom.S copies into place (layout in boot_rom.S)."""
    entry, segs = elf_segments(elf)
    end = max(p + m for p, _, m in segs)
    # The information structure, command line and loader name on the page
    # after the kernel's last byte, as hvemu's loader places them.
    mbi_addr = (end + 0xfff) & ~0xfff
    cmd = cmdline.encode() + b'\0'
    name = b'hvemu tests/bochs/boot_rom.S\0'
    cmd_addr = mbi_addr + MBI_SIZE
    name_addr = cmd_addr + len(cmd)
    mbi = bytearray(MBI_SIZE)
    struct.pack_into('<III', mbi, 0, MBI_F_MEMORY | MBI_F_CMDLINE | MBI_F_LOADER_NAME,
                     639, MEGS * 1024 - 1024)     # mem_lower, mem_upper in KiB
    struct.pack_into('<I', mbi, 16, cmd_addr)
    struct.pack_into('<I', mbi, 64, name_addr)
    segs.append((mbi_addr, bytes(mbi) + cmd + name, MBI_SIZE + len(cmd) + len(name)))
    header_len = 16 + 16 * len(segs)
    table, payload = b'', b''
    for paddr, data, memsz in segs:
        table += struct.pack('<IIII', paddr, len(data), memsz, header_len + len(payload))
        payload += data
    blob = struct.pack('<IIII', BLOB_MAGIC, entry, mbi_addr, len(segs)) + table + payload
    if len(blob) > BLOB_MAX:
        fail(f'{elf}: boot blob of {len(blob)} bytes exceeds Bochs\'s {BLOB_MAX}-byte RAM block', 99)
    return blob


def make_rom(raw):
    """The option ROM: size in 512-byte blocks at offset 2, bytes summing to 0."""
    rom = bytearray(raw + b'\0')          # room for the checksum byte
    rom += b'\0' * (-len(rom) % 512)
    rom[2] = len(rom) // 512
    rom[-1] = (-sum(rom[:-1])) & 0xff
    return bytes(rom)


def first_existing(paths):
    return next((p for p in paths if os.path.exists(p)), None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bochs', default=os.environ.get('BOCHS', 'bochs'))
    ap.add_argument('--cpu', default=os.environ.get('BOCHS_CPU', 'corei7_sandy_bridge_2600k'))
    ap.add_argument('--cmdline', default=os.environ.get('GUEST_CMDLINE', ''))
    ap.add_argument('--timeout', type=float, default=45.0)
    ap.add_argument('rom')
    ap.add_argument('elf')
    ap.add_argument('expect', choices=['pass', 'shutdown'])
    args = ap.parse_args()
    must_check = os.environ.get('GUEST_MUST_CHECK', '0') == '1'

    bochs = shutil.which(args.bochs)
    if not bochs:
        fail('SKIP: bochs not installed (Debian: apt-get install bochs bochsbios vgabios)', 77)
    bios = first_existing(BIOS_CANDIDATES)
    vgabios = first_existing(VGABIOS_CANDIDATES)
    if not bios or not vgabios:
        fail('SKIP: Bochs BIOS images not installed (Debian: bochsbios, vgabios)', 77)

    with open(args.rom, 'rb') as f:
        rom = make_rom(f.read())
    blob = make_blob(args.elf, args.cmdline)

    with tempfile.TemporaryDirectory(prefix='hvemu-bochs-') as tmp:
        paths = {n: os.path.join(tmp, n) for n in ['boot.rom', 'blob.bin', 'serial.log',
                                                   'bochs.log', 'bochsrc', 'stdout.log', 'debugger.rc']}
        with open(paths['boot.rom'], 'wb') as f:
            f.write(rom)
        with open(paths['blob.bin'], 'wb') as f:
            f.write(blob)
        open(paths['serial.log'], 'w').close()
        with open(os.path.join(HERE, 'bochsrc.in')) as f:
            rc = f.read()
        for key, val in {'DISPLAY': 'term', 'IPS': os.environ.get('BOCHS_IPS', '5000000'), 'MEGS': str(MEGS), 'BIOS': bios,
                         'VGABIOS': vgabios, 'ROM': paths['boot.rom'],
                         'BLOB': paths['blob.bin'], 'CPU_MODEL': args.cpu,
                         'SERIAL': paths['serial.log'], 'LOG': paths['bochs.log']}.items():
            rc = rc.replace('@' + key + '@', val)
        with open(paths['bochsrc'], 'w') as f:
            f.write(rc)

        # The display: Debian's Bochs has no nogui; term draws into stdout.log
        # (TERM=dumb) and reads no keys (stdin is /dev/null).
        # Debian's Bochs has the internal debugger, which stops before the
        # first instruction: its command file says "continue".
        with open(paths['debugger.rc'], 'w') as f:
            f.write('continue\n')
        # meson test sets MALLOC_PERTURB_, which makes Debian's Bochs 2.7 abort
        # in its VGA set-up ("buffer overflow detected"): Bochs does not get it.
        env = {k: v for k, v in os.environ.items() if k != 'MALLOC_PERTURB_'}
        env['TERM'] = 'dumb'
        start = time.monotonic()
        with open(paths['stdout.log'], 'wb') as out:
            proc = subprocess.Popen([bochs, '-q', '-f', paths['bochsrc'], '-rc', paths['debugger.rc']], cwd=tmp,
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, env=env)
        ended = 'timeout'
        try:
            while time.monotonic() - start < args.timeout:
                if proc.poll() is not None:
                    ended = 'bochs exited'
                    break
                with open(paths['serial.log'], errors='replace') as f:
                    if FINAL_LINE.search(f.read()):
                        ended = 'final TAP line'
                        break
                time.sleep(0.05)
        finally:
            # Its output is on disk (Bochs flushes COM1's file after each
            # byte): end the Bochs process group this script started. SIGKILL,
            # as the term display library catches SIGTERM and goes on.
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        elapsed = time.monotonic() - start

        with open(paths['serial.log'], errors='replace') as f:
            log = f.read()
        blog = ''
        if os.environ.get('BOCHS_KEEP'):
            shutil.copytree(tmp, os.environ['BOCHS_KEEP'], dirs_exist_ok=True)
        for name in ['stdout.log', 'bochs.log']:
            if os.path.exists(paths[name]):
                with open(paths[name], errors='replace') as f:
                    blog += f.read()
        sys.stdout.write(log)
        print(f'# bochs: cpu model {args.cpu}, run ended by {ended} after {elapsed:.1f} s')
        # Bochs log lines: a timestamp, the level (i, d, e, p) and "[DEVICE]".
        notable = [l for l in blog.splitlines() if re.match(r'\d+[ep]\[', l)
                   or '>>PANIC<<' in l or TRIPLE_FAULT.search(l)]
        if notable:
            print('# bochs log (errors and panics):')
            for line in notable[:40]:
                print('#   ' + line)
        if "display library 'term' not available" in blog:
            fail('SKIP: Bochs\'s term display library not installed (Debian: bochs-term)', 77)
        return verdict(args.expect, log, blog, ended, must_check, args.timeout)


def verdict(expect, log, blog, ended, must_check, timeout):
    def skipped(why):
        if must_check:
            fail(f"FAIL: {why}, but this run's CPU model has what the guest tests")
        fail(f'SKIP: {why}', 77)

    if expect == 'shutdown':
        if TRIPLE_FAULT.search(blog):
            return 0
        fail(f'FAIL: no triple fault in the Bochs log ({ended})')
    if any(l.startswith('not ok') and '# TODO' not in l for l in log.splitlines()):
        fail('FAIL: guest reported failing checks')
    if re.search(r'^1\.\.0 # SKIP|^# SKIP all', log, re.M):
        skipped('the guest checked nothing')
    if ended == 'timeout':
        fail(f'FAIL: no final TAP line after {timeout:.0f} s')
    if not re.search(r'^# PASS all', log, re.M):
        fail(f'FAIL: the run ended ({ended}) without "# PASS all"')
    plans = re.findall(r'^1\.\.(\d+)', log, re.M)
    lines = [l for l in log.splitlines() if re.match(r'(not )?ok( |$)', l)]
    if not plans:
        fail('FAIL: no TAP plan (1..N) in the guest\'s log')
    if int(plans[-1]) != len(lines):
        fail(f'FAIL: TAP plan 1..{plans[-1]} but {len(lines)} test lines')
    if not [l for l in lines if '# SKIP' not in l]:
        skipped(f'TAP plan 1..{plans[-1]} with no check that ran')
    return 0


if __name__ == '__main__':
    sys.exit(main())
