#!/usr/bin/env python3
"""--snapshot-at N FILE and --resume FILE (cli/snapshot_file.h).

usage: snapshot_file_test.py HVEMU ELF[:CPU_MODEL[:CPUS]] ...

For each guest: the run without a snapshot (its serial output, exit status
and final time), the run that writes one at a third of that time (the same
output and status: writing does not disturb it), the serial output up to
that time (--max-insns), and the resume, whose output must be exactly the
rest, with the same status and final time. Then damaged files: truncated,
bytes flipped, another file, an empty one, records rewritten with a valid
checksum: each is one error line and status 2, never a crash.

Exit status 0 when every check held, 1 on a failure, 77 (skip) without
guests."""
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

HVEMU = sys.argv[1]
GUESTS = sys.argv[2:]
HEADER = 96            # struct header in cli/snapshot_file.c
failures = 0
checks = 0


def check(name, cond, detail=''):
    global failures, checks
    checks += 1
    print(('ok' if cond else 'not ok') + ' - ' + name)
    if not cond:
        failures += 1
        for line in str(detail).splitlines()[-20:]:
            print('#   ' + line)


def run(args, timeout=120):
    r = subprocess.run([HVEMU, 'run'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stdout, r.stderr.decode(errors='replace')


def final_time(err):
    m = re.search(r'in (\d+) virtual instructions', err)
    return int(m.group(1)) if m else None


def guest_args(spec):
    elf, model, cpus = (spec.split(':') + ['', ''])[:3]
    args = ['--kernel', elf, '--firmware', 'none']
    return args + (['--cpu', model] if model else []) + (['--smp', cpus] if cpus else [])


def round_trip(tmp, spec):
    parts = spec.split(':')
    name = os.path.basename(parts[0]) + ('-smp' + parts[2] if len(parts) > 2 else '')
    args = guest_args(spec)
    rc, full, err = run(args + ['--stats'])
    end = final_time(err)
    check(name + ': the reference run reports its time', end is not None and end > 30, err)
    if end is None:
        return
    n = end // 3
    snap = os.path.join(tmp, name + '.snap')
    rc_w, out_w, err_w = run(args + ['--snapshot-at', str(n), snap])
    check(name + ': the run that writes the snapshot is the same run', rc_w == rc and out_w == full, err_w)
    _, prefix, _ = run(args + ['--max-insns', str(n)])
    rc_r, rest, err_r = run(['--resume', snap, '--stats'])
    check(name + ': the resume ends with the same status at the same time',
          rc_r == rc and final_time(err_r) == end, '%s %s / %s %s\n%s' % (rc, end, rc_r, final_time(err_r), err_r))
    check(name + ': the resume writes exactly the rest of the serial output', prefix + rest == full,
          'prefix %d + rest %d vs %d bytes' % (len(prefix), len(rest), len(full)))


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def with_checksum(data):
    """data with the header's checksum made right for its body."""
    return data[:HEADER - 8] + struct.pack('<Q', fnv1a(data[HEADER:])) + data[HEADER:]


def records(data):
    """Offsets of the body's record headers (tag, index: u32; len: u64)."""
    at, out = HEADER, []
    while at + 16 <= len(data):
        out.append(at)
        at += 16 + struct.unpack_from('<Q', data, at + 8)[0]
    return out


def one_error(name, path, extra=()):
    rc, out, err = run(['--resume', path, '--max-insns', '30000000'] + list(extra), timeout=120)
    lines = err.strip().splitlines()
    ok = rc == 2 and len(lines) == 1 and lines[0].startswith('hvemu: ')
    check('damaged: ' + name + ' is one error line and status 2', ok, 'rc %d\n%s' % (rc, err))


def damaged(tmp, spec):
    args = guest_args(spec)
    good = os.path.join(tmp, 'good.snap')
    run(args + ['--snapshot-at', '50000', good])
    data = open(good, 'rb').read()
    bad = os.path.join(tmp, 'bad.snap')
    rng = random.Random(20)

    def write(b):
        with open(bad, 'wb') as f:
            f.write(b)
        return bad

    one_error('a missing file', os.path.join(tmp, 'none.snap'))
    one_error('an empty file', write(b''))
    one_error('an ELF', spec.split(':')[0])
    one_error('another build', write(data[:12] + b'hvemu 0.0 m1 c1'.ljust(64, b'\0') + data[76:]))
    one_error('format 99', write(data[:8] + struct.pack('<I', 99) + data[12:]))
    for cut in [8, HEADER - 1, HEADER, HEADER + 5] + [rng.randrange(HEADER, len(data)) for _ in range(4)]:
        one_error('truncated at %d' % cut, write(data[:cut]))
    one_error('a trailing byte', write(data + b'\0'))
    for _ in range(6):
        at = rng.randrange(HEADER, len(data))
        one_error('byte %d flipped' % at, write(data[:at] + bytes([data[at] ^ 0x5a]) + data[at + 1:]))
    # Record framing damaged behind a valid checksum: what the parser
    # itself must refuse.
    recs = records(data)
    for field, value in [(0, 77), (4, 1 << 20), (8, 1 << 40), (8, 3)]:
        at = rng.choice(recs[1:])
        b = bytearray(data)
        struct.pack_into('<I' if field < 8 else '<Q', b, at + field, value)
        one_error('record at %d field %d = %d' % (at, field, value), write(with_checksum(bytes(b))))
    one_error('the end record gone', write(with_checksum(data[:recs[-1]])))
    one_error('another --mem', good, ['--mem', '64M'])


def main():
    if not GUESTS:
        print('# SKIP: no guests given')
        return 77
    with tempfile.TemporaryDirectory(prefix='hvemu-snap-') as tmp:
        for spec in GUESTS:
            round_trip(tmp, spec)
        damaged(tmp, GUESTS[0])
        r = run(['--kernel', GUESTS[0].split(':')[0], '--snapshot-at', 'x', 'f'])
        check('cli: a bad --snapshot-at is a usage error', r[0] == 2 and len(r[2].strip().splitlines()) == 1, r[2])
        r = run(['--kernel', GUESTS[0].split(':')[0], '--gdb', 'tcp::1', '--snapshot-at', '5', 'f'])
        check('cli: --snapshot-at with --gdb is a usage error', r[0] == 2 and len(r[2].strip().splitlines()) == 1,
              r[2])
    print('1..%d' % checks)
    if checks == 0:
        return 77
    return 1 if failures else 0


sys.exit(main())
