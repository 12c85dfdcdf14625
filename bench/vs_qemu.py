#!/usr/bin/env python3
"""make bench: hvemu's guest benchmarks (bench_run: MIPS, touches and round
trips per second, always), then the same guests under QEMU TCG when
qemu-system-x86_64 is installed, and each ratio of hvemu's speed to QEMU's
beside issue 18's target.

Both run the same file for a ratio: the guest built with SCALE
(NAME_xSCALE.elf, a longer loop; NAME.elf: 1), so that what happens once per
run (its set-up, the host's first touch of its RAM) weighs the same in both.
QEMU's speed is its CPU time on it minus its CPU time on the empty guest
(start-up and exit), per guest instruction as hvemu counts them; hvemu's is
bench_run's CPU time of the run alone. Both are medians of RUNS runs. Not a
test: it prints, and fails only when a guest does not finish.

usage: vs_qemu.py BENCH_RUN CTX_SWITCH EMPTY.elf GUEST.elf... -- GUEST[_xSCALE].elf..."""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys

RUNS = 3
QEMU = 'qemu-system-x86_64'
# name: (what is compared, hvemu's figure to take, issue 18's target)
TARGETS = {
    'alu_loop': ('ALU loop', 'MIPS', 0.33), 'alu64_loop': ('ALU loop, 64-bit', 'MIPS', 0.33),
    'mem_loop': ('memory loop', 'MIPS', 0.3), 'mem64_loop': ('memory loop, 64-bit', 'MIPS', 0.3),
    'page_touch': ('page-touch loop with CR3 reloads', 'touches', 2.0),
    'page_touch64': ('page-touch loop with CR3 reloads, 64-bit', 'touches', 2.0),
    'vmmcall64': ('VMMCALL round trip', 'trips', 15.0),
    'simd_loop': ('SSE/AVX loop', 'MIPS', None),     # issue 21: a ratio, no target
    'branch64_loop': ('calls and branches, 64-bit', 'MIPS', None),   # block changes: a ratio, no target
}
# QEMU's CPU for a guest: the SVM one needs an AMD model with SVM.
QEMU_CPU = {'vmmcall64': 'EPYC'}


def hvemu_figures(bench_run, elfs, show=True):
    """Run bench_run RUNS times; print its first run (show); per guest name
    the median instructions and seconds, and the EDI count where it reports
    one."""
    runs = []
    for i in range(RUNS):
        r = subprocess.run([bench_run] + elfs, capture_output=True, text=True)
        if i == 0 and show:
            sys.stdout.write(r.stdout)
            sys.stderr.write(r.stderr)
        if r.returncode:
            sys.exit(r.returncode)
        runs.append(r.stdout)
    figures = {}
    for out in runs:
        for m in re.finditer(r'^(\w+): (\d+) instructions in ([\d.]+) s', out, re.M):
            figures.setdefault(m[1], {'insns': int(m[2]), 's': []})['s'].append(float(m[3]))
        for m in re.finditer(r'^(\w+): (\d+) (?:page touches|VMMCALL round trips|VMCALL round trips)', out, re.M):
            figures[m[1]]['count'] = int(m[2])
    for f in figures.values():
        f['s'] = statistics.median(f['s'])
    return figures


def qemu_seconds(elf, cpu):
    """Median CPU time (user + system) of QEMU booting elf to its debug-exit."""
    times = []
    for _ in range(RUNS):
        # -m 64: the RAM bench_run gives hvemu (the page-touch loops write up to 64 MiB).
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = subprocess.run([QEMU, '-accel', 'tcg', '-cpu', cpu, '-m', '64', '-kernel', elf, '-nodefaults',
                            '-display', 'none', '-no-reboot', '-device', 'isa-debug-exit,iobase=0xf4,iosize=4'],
                           stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 1:       # isa-debug-exit: (0 << 1) | 1
            return None
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def main():
    args = sys.argv[1:]
    bench_run, ctx_switch, empty = args[0], args[1], args[2]
    sep = args.index('--')
    elfs, scaled = args[3:sep], args[sep + 1:]
    figures = hvemu_figures(bench_run, elfs)
    subprocess.run([ctx_switch], check=True)
    if not shutil.which(QEMU):
        print(f'(no {QEMU}: no ratios to QEMU)')
        return 0
    # hvemu on the files QEMU runs: NAME_xSCALE reported as NAME_xSCALE.
    same = hvemu_figures(bench_run, [e for e in scaled if re.search(r'_x\d+\.elf$', e)], show=False)
    base = qemu_seconds(empty, 'max')
    if base is None:
        print(f'{QEMU} did not run the empty guest: no ratios')
        return 0
    q_rates = {}
    print(f'QEMU TCG against hvemu (CPU time, {RUNS} runs each; under QEMU less its {base:.3f} s of '
          f'start-up, the loops longer by the factor shown):')
    for elf in scaled:
        m = re.fullmatch(r'(\w+?)(?:_x(\d+))?\.elf', os.path.basename(elf))
        name, scale = m[1], int(m[2] or 1)
        if name not in TARGETS or name not in figures:
            continue
        what, unit, target = TARGETS[name]
        h = same.get(os.path.basename(elf)[:-4], figures[name])
        q = qemu_seconds(elf, QEMU_CPU.get(name, 'max'))
        if q is None or q <= base:
            print(f'  {what}: QEMU did not finish it')
            continue
        if unit == 'MIPS':
            h_rate, q_rate = h['insns'] / h['s'], h['insns'] / (q - base)
            shown = f'{h_rate / 1e6:.0f} against {q_rate / 1e6:.0f} MIPS'
        else:
            h_rate, q_rate = h['count'] / h['s'], h['count'] / (q - base)
            shown = f'{h_rate / 1e6:.2f} against {q_rate / 1e6:.2f} M {unit}/s'
        q_rates[name] = q_rate
        ratio = h_rate / q_rate
        verdict = 'no target' if target is None else f'target {target}x: ' + ('met' if ratio >= target else 'not met')
        print(f'  {what} (x{scale}): {shown} = {ratio:.2f}x ({verdict})')
    # QEMU TCG has no VMX: hvemu's VMCALL round trip against QEMU's VMMCALL
    # one, the nested round trip QEMU has.
    vmcall = figures.get('vmcall64')
    if vmcall and 'count' in vmcall and 'vmmcall64' in q_rates:
        ratio = vmcall['count'] / vmcall['s'] / q_rates['vmmcall64']
        print(f'  VMCALL round trip (QEMU TCG has no VMX: against its VMMCALL one): '
              f'{vmcall["count"] / vmcall["s"] / 1e6:.2f} against {q_rates["vmmcall64"] / 1e6:.2f} M trips/s = '
              f'{ratio:.2f}x (target 15.0x: {"met" if ratio >= 15 else "not met"})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
