#!/usr/bin/env python3
"""L1 hypervisors against odd but legal VM exits (issue 19): run one hvemu
command line once as it is and then once per seed with `--perturb-exits
SEED`, and classify each perturbed run against the plain one. The command's
CPU model decides the vendor: an Intel model with VMX perturbs what the SDM
leaves undefined in VM exits (vmx/exit_perturb.c), an AMD model with SVM
(`--cpu epyc-lite`, `--cpu opteron-g3`) what the APM leaves undefined in
#VMEXITs (svm/exit_perturb.c); a model with neither is a usage error
(status 2).

usage: perturb_l1.py [--seeds N] [--first S] [--panic TEXT ...] -- HVEMU run ARGS...

Outcomes (hvemu's exit statuses, README "Exit status"): same (the status and
the serial output's verdict lines as in the plain run), triple fault (4),
livelock (18: the same exit over and over, --livelock), hang (6: the
--max-insns given ran out), panic (a --panic text, default "Kernel panic",
"BUG:", "PANIC", "Assertion", "not ok", on the serial output but not in the
plain run's), other (any other status). Each finding prints the one-line
command that reproduces it. Exit status: 0 when every run was "same", 1 on
findings, 2 on bad usage or a plain run that did not end on its own.

examples:
  perturb_l1.py --seeds 3 -- build/cli/hvemu run --kernel build/tests/guests/vmx_reflect.elf
  perturb_l1.py --seeds 3 -- build/cli/hvemu run --cpu epyc-lite --kernel build/tests/guests/svm_reflect.elf"""
import argparse
import re
import subprocess
import sys

PANICS = ['Kernel panic', 'BUG:', 'PANIC', 'Assertion', 'not ok']
NAMES = {4: 'triple fault', 6: 'hang (--max-insns)', 18: 'livelock', 10: 'emulator error'}


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=3600)
    return r.returncode, r.stdout.decode(errors='replace'), r.stderr.decode(errors='replace')


def panic_lines(out, texts):
    return {line for line in out.splitlines() if any(t in line for t in texts)}


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split('\n\n')[1].replace('usage: ', '', 1), description=__doc__.split('\n\n')[0],
                                 epilog='\n\n'.join(__doc__.split('\n\n')[2:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', type=int, default=20)
    ap.add_argument('--first', type=int, default=1)
    ap.add_argument('--panic', action='append')
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == '--' else a.cmd
    if len(cmd) < 2 or cmd[1] != 'run':
        print('perturb_l1.py: error: give an hvemu run command after --', file=sys.stderr)
        return 2
    texts = a.panic or PANICS
    rc0, out0, err0 = run(cmd)
    if rc0 in (2, 6, 10, 12):
        print('perturb_l1.py: error: the plain run ended with status %d:\n%s' % (rc0, err0[-2000:]), file=sys.stderr)
        return 2
    base_panics = panic_lines(out0, texts)
    print('plain run: status %d, %d bytes of serial output' % (rc0, len(out0)))
    findings = 0
    for seed in range(a.first, a.first + a.seeds):
        pcmd = cmd[:2] + ['--perturb-exits', str(seed)] + cmd[2:]
        rc, out, err = run(pcmd)
        if rc == 2 and 'hvemu: error: --perturb-exits' in err:
            print('perturb_l1.py: error: ' + err.strip().splitlines()[-1], file=sys.stderr)
            return 2
        m = re.search(r'perturb-exits: seed \d+, (\d+) VM exits', err)
        changed = m.group(1) if m else '?'
        new_panics = sorted(panic_lines(out, texts) - base_panics)
        if rc == rc0 and not new_panics:
            print('seed %d: same (%s exits perturbed)' % (seed, changed))
            continue
        findings += 1
        what = ('panic text' if rc == rc0 else NAMES.get(rc) or
                ('the guest reported failure (debug-exit status %d)' % rc if rc & 1 else 'status %d' % rc))
        print('seed %d: FINDING: %s (status %d, plain %d; %s exits perturbed)' % (seed, what, rc, rc0, changed))
        for line in new_panics[:5]:
            print('    serial: ' + line)
        for line in err.strip().splitlines()[-4:]:
            print('    ' + line)
        print('    reproduce: ' + ' '.join(pcmd))
    print('%d of %d seeds found something' % (findings, a.seeds))
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
