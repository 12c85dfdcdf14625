#!/usr/bin/env python3
"""Virtual time seen from outside the guest.

usage: timing.py determinism HVEMU ELF   two runs with --trace all give the same
                                         bytes (instructions, interrupts, port I/O)
       timing.py idle HVEMU ELF          idle_sleep's virtual second costs the host
                                         well under a second of CPU time (printed)
       timing.py realtime HVEMU ELF      with --realtime it takes a second of the
                                         host's clock, and its virtual time is the same
       timing.py rate HVEMU ELF          --insn-rate 2.4G: CPUID 15H/16H and the
                                         TSC follow the rate

Each mode runs hvemu with the guest's usual options and wants its TAP pass
(exit status 1).
"""
import hashlib
import resource
import subprocess
import sys
import time

MAX_INSNS = '4000000000'


def run(hvemu, elf, *extra):
    """Run the guest; return (status, stdout, stderr, host seconds); the
    CPU seconds it used are in last_cpu."""
    global last_cpu
    cmd = [hvemu, 'run', '--firmware', 'none', '--kernel', elf, '--serial', 'stdio', '--max-insns', MAX_INSNS, '--mem', '32M',
           *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    secs = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    last_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r.returncode, r.stdout, r.stderr, secs


last_cpu = 0.0


def passed(status, out):
    if status != 1:
        print(out.decode(errors='replace'))
        print(f'FAIL: exit status {status}, expected 1 (the guest passed)')
        return False
    return True


def determinism(hvemu, elf):
    runs = [run(hvemu, elf, '--trace', 'all') for _ in range(2)]
    for status, out, _, _ in runs:
        if not passed(status, out):
            return 1
    (_, out1, err1, _), (_, out2, err2, _) = runs
    print(f'trace: {len(err1)} bytes, sha256 {hashlib.sha256(err1).hexdigest()}')
    print(f'trace: {len(err2)} bytes, sha256 {hashlib.sha256(err2).hexdigest()}')
    interrupts = err1.count(b'(interrupt)')
    print(f'interrupts in the trace: {interrupts}')
    if interrupts < 10:
        print('FAIL: the trace shows too few interrupts to test anything')
        return 1
    if out1 != out2 or err1 != err2:
        for n, (a, b) in enumerate(zip(err1.splitlines(), err2.splitlines())):
            if a != b:
                print(f'first difference at trace line {n + 1}:\n  {a!r}\n  {b!r}')
                break
        print('FAIL: two runs differ')
        return 1
    print('the two runs are identical')
    return 0


def idle(hvemu, elf):
    status, out, _, secs = run(hvemu, elf)
    if not passed(status, out):
        return 1
    print(out.decode(errors='replace'))
    print(f'one virtual second idle took {secs * 1000:.1f} ms of host time, '
          f'{last_cpu * 1000:.1f} ms of CPU time')
    # CPU time, not the wall clock: a loaded test machine stretches the latter.
    if last_cpu >= 0.5:
        print('FAIL: an idle virtual second should cost far less than a host second')
        return 1
    return 0


def realtime(hvemu, elf):
    status, out, _, secs = run(hvemu, elf, '--realtime')
    if not passed(status, out):
        return 1
    _, plain, _, _ = run(hvemu, elf)
    print(f'with --realtime one virtual second took {secs:.3f} s of host time')
    if secs < 0.98:
        print('FAIL: --realtime let virtual time run ahead of the host clock')
        return 1
    if out != plain:
        print('FAIL: --realtime changed what the guest saw')
        return 1
    return 0


def rate(hvemu, elf):
    status, out, _, _ = run(hvemu, elf, '--insn-rate', '2.4G')
    if not passed(status, out):
        return 1
    text = out.decode(errors='replace')
    print(text)
    if 'TSC 2400000000 Hz by CPUID' not in text:
        print('FAIL: CPUID 15H/16H do not report the 2.4 GHz rate')
        return 1
    return 0


def main():
    mode, hvemu, elf = sys.argv[1:4]
    return {'determinism': determinism, 'idle': idle, 'realtime': realtime, 'rate': rate}[mode](hvemu, elf)


if __name__ == '__main__':
    sys.exit(main())
