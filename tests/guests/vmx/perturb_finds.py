#!/usr/bin/env python3
"""--perturb-exits finds an L1 that reads a field the SDM leaves undefined.

usage: perturb_finds.py HVEMU VMX_REFLECT_ELF

vmx_reflect (tests/guests/vmx/vmx_reflect.c) reflects an intercepted #UD
into L2 twice: by the SDM's rule and the sloppy way (an error code when the
undefined error-code field is not 0). A plain run passes both rows; under
--perturb-exits SEED, for every seed tried, the SDM's row passes, the sloppy
row fails (its VMRESUME is refused), and hvemu reports the exits it changed."""
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
check('plain run: both rows pass', rc == 1 and re.search(r'^ok 1 ', out, re.M) and re.search(r'^ok 2 ', out, re.M),
      out + err)
for seed in ('1', '2', '3', '4', '5'):
    rc, out, err = run(['--perturb-exits', seed])
    check('seed %s: the SDM\'s reflection passes' % seed, re.search(r'^ok 1 ', out, re.M) is not None, out)
    check('seed %s: the sloppy reflection is found (VMRESUME refused)' % seed,
          re.search(r'^not ok 2 ', out, re.M) is not None and 'VMRESUME entered (no VMfail)' in out, out)
    m = re.search(r'perturb-exits: seed %s, (\d+) VM exits' % seed, err)
    check('seed %s: hvemu reports the exits it changed' % seed, m is not None and int(m.group(1)) >= 2, err)
print('1..%d' % checks)
sys.exit(1 if failures else 0)
