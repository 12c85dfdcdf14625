#!/usr/bin/env python3
"""--perturb-exits finds an SVM L1 that reads exit information the APM leaves undefined.

usage: perturb_finds.py HVEMU SVM_REFLECT_ELF

svm_reflect (tests/guests/svm/svm_reflect.c) does three jobs of an L1 twice:
by the APM's rules (rows 1, 3 and 5) and the sloppy way (rows 2, 4 and 6: an
error code with a reflected #UD when the undefined EXITINFO1 is not 0; an
event re-injected when EXITINTINFO's vector/type bits are not 0 though V is;
an interrupt expected after every INTR exit). A plain run passes every row;
under --perturb-exits SEED, for every seed and both AMD models (with and
without decode assists and NRIP_SAVE), the APM's rows pass, the sloppy ones
fail with the symptom their bug gives, hvemu reports the exits it changed and
the spurious interrupt exits it made, and a second run of a seed is the same
run."""
import re
import subprocess
import sys

HVEMU, ELF = sys.argv[1], sys.argv[2]
failures = checks = 0


def check(name, cond, detail=''):
    global failures, checks
    checks += 1
    print(('ok' if cond else 'not ok') + ' - ' + name)
    if not cond:
        failures += 1
        for line in str(detail).splitlines()[-15:]:
            print('#   ' + line)


def run(cpu, extra):
    r = subprocess.run([HVEMU, 'run', '--cpu', cpu, '--kernel', ELF, '--firmware', 'none'] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


def row(out, n, ok):
    return re.search(r'^%s %d ' % ('ok' if ok else 'not ok', n), out, re.M) is not None


for cpu in ('epyc-lite', 'opteron-g3'):
    rc, out, err = run(cpu, [])
    check('%s, plain run: every row passes' % cpu, rc == 1 and all(row(out, n, True) for n in range(1, 7)),
          out + err)
    for seed in ('1', '2', '3', '4', '5'):
        rc, out, err = run(cpu, ['--perturb-exits', seed])
        tag = '%s, seed %s' % (cpu, seed)
        check(tag + ': the APM\'s rows pass', row(out, 1, True) and row(out, 3, True), out)
        check(tag + ': the sloppy #UD reflection is found (an error-code frame)',
              row(out, 2, False) and 'L2 frame bytes (#UD pushes no error code) got 0x10' in out, out)
        check(tag + ': the sloppy re-injection is found (an event L2 never raised)',
              row(out, 4, False) and 'resumed: L2 events taken got 0x1' in out, out)
        check(tag + ': the APM\'s INTR row passes', row(out, 5, True), out)
        check(tag + ': the L1 expecting an interrupt after every INTR exit is found',
              row(out, 6, False) and 'INTR exits after which no interrupt came got 0x' in out, out)
        m = re.search(r'perturb-exits: seed %s, (\d+) VM exits with undefined fields randomised, '
                      r'(\d+) spurious interrupt exits' % seed, err)
        check(tag + ': hvemu reports the exits it changed', m is not None and int(m.group(1)) >= 4, err)
        check(tag + ': hvemu reports the spurious interrupt exits', m is not None and int(m.group(2)) >= 1, err)
        if seed == '1':
            again = run(cpu, ['--perturb-exits', seed])
            check(tag + ': the same seed gives the same run', again == (rc, out, err), again[1] + again[2])
print('1..%d' % checks)
sys.exit(1 if failures else 0)
