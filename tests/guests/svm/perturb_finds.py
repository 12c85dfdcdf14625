#!/usr/bin/env python3
"""--perturb-exits finds an SVM L1 that reads exit information the APM leaves undefined.

usage: perturb_finds.py HVEMU SVM_REFLECT_ELF

svm_reflect (tests/guests/svm/svm_reflect.c) does two jobs of an L1 twice:
by the APM's rules (rows 1 and 3) and the sloppy way (rows 2 and 4: an
error code with a reflected #UD when the undefined EXITINFO1 is not 0; an
event re-injected when EXITINTINFO's vector/type bits are not 0 though V is).
A plain run passes every row; under --perturb-exits SEED, for every seed and
both AMD models (with and without decode assists and NRIP_SAVE), the APM's
rows pass, the sloppy ones fail with the symptom their bug gives, and hvemu
reports the exits it changed."""
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
    check('%s, plain run: every row passes' % cpu, rc == 1 and all(row(out, n, True) for n in (1, 2, 3, 4)),
          out + err)
    for seed in ('1', '2', '3', '4', '5'):
        rc, out, err = run(cpu, ['--perturb-exits', seed])
        tag = '%s, seed %s' % (cpu, seed)
        check(tag + ': the APM\'s rows pass', row(out, 1, True) and row(out, 3, True), out)
        check(tag + ': the sloppy #UD reflection is found (an error-code frame)',
              row(out, 2, False) and 'L2 frame bytes (#UD pushes no error code) got 0x10' in out, out)
        check(tag + ': the sloppy re-injection is found (an event L2 never raised)',
              row(out, 4, False) and 'resumed: L2 events taken got 0x1' in out, out)
        m = re.search(r'perturb-exits: seed %s, (\d+) VM exits' % seed, err)
        check(tag + ': hvemu reports the exits it changed', m is not None and int(m.group(1)) >= 4, err)
print('1..%d' % checks)
sys.exit(1 if failures else 0)
