#!/usr/bin/env python3
"""--perturb-exits finds an L1 that reads a field the SDM leaves undefined.

usage: perturb_finds.py HVEMU VMX_REFLECT_ELF

vmx_reflect (tests/guests/vmx/vmx_reflect.c) does two jobs of an L1 twice,
by the SDM's rules (rows 1 and 3) and the sloppy way: it reflects an
intercepted #UD into L2 with an error code when the undefined error-code
field is not 0 (row 2), and expects an interrupt after every
external-interrupt exit (row 4). A plain run passes every row; under
--perturb-exits SEED, for every seed tried, the SDM's rows pass, the sloppy
ones fail (a refused VMRESUME; exits with no interrupt behind them), hvemu
reports the exits it changed and the spurious interrupt exits it made, and a
second run of a seed is the same run."""
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


def run(extra):
    r = subprocess.run([HVEMU, 'run', '--kernel', ELF, '--firmware', 'none'] + extra, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    return r.returncode, r.stdout, r.stderr


rc, out, err = run([])
check('plain run: every row passes', rc == 1 and all(re.search(r'^ok %d ' % n, out, re.M) for n in range(1, 5)),
      out + err)
for seed in ('1', '2', '3', '4', '5'):
    rc, out, err = run(['--perturb-exits', seed])
    check('seed %s: the SDM\'s reflection passes' % seed, re.search(r'^ok 1 ', out, re.M) is not None, out)
    check('seed %s: the sloppy reflection is found (VMRESUME refused)' % seed,
          re.search(r'^not ok 2 ', out, re.M) is not None and 'VMRESUME entered (no VMfail)' in out, out)
    check('seed %s: the SDM\'s interrupt-exit row passes' % seed, re.search(r'^ok 3 ', out, re.M) is not None, out)
    check('seed %s: the L1 expecting an interrupt after every exit is found' % seed,
          re.search(r'^not ok 4 ', out, re.M) is not None and
          'external-interrupt exits after which no interrupt came got 0x' in out, out)
    m = re.search(r'perturb-exits: seed %s, (\d+) VM exits with undefined fields randomised, '
                  r'(\d+) spurious interrupt exits' % seed, err)
    check('seed %s: hvemu reports the exits it changed' % seed, m is not None and int(m.group(1)) >= 2, err)
    check('seed %s: hvemu reports the spurious interrupt exits' % seed, m is not None and int(m.group(2)) >= 1, err)
    if seed == '1':
        check('seed 1: the same seed gives the same run', run(['--perturb-exits', seed]) == (rc, out, err))
print('1..%d' % checks)
sys.exit(1 if failures else 0)
