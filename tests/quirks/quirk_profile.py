#!/usr/bin/env python3
"""Checks a quirk profile (--quirks PROFILE, emu/quirks.def) against its peer.

usage: quirk_profile.py --hvemu HVEMU --guests DIR ROWS [--peer PATH [--peer-only]]
                        [--bochs-rom ROM] [--only GUEST] [--list]

ROWS (tests/quirks/PROFILE.rows) lists, per guest, the rows the peer fails
when it runs that guest, measured, and for each the quirk of the profile
that reproduces it, or "-" where hvemu does not model it (docs/QUIRKS.md
says why). For every guest of ROWS this script

 1. runs it under hvemu with --quirks PROFILE and checks that exactly the
    rows of modelled quirks fail (a multiset of row names: the other rows
    still pass) and that the guest ran to its end;
 2. if the peer is installed (qemu-system-x86_64, or bochs with its BIOS and
    --bochs-rom), runs it there as the suites qemu and bochs do and checks
    that the rows it fails are exactly the rows ROWS lists, modelled or not.
With --peer-only only step 2, a SKIP (77) when the peer is not installed.

A row is named by its TAP text without the number, the "got/expected" part
and a "# TODO/SKIP" directive; an indented row ("  error code 0") is named
after the row above it that is not indented ("null ES -> #GP / error code 0").

ROWS format, one item a line, '#' comments:
    profile NAME                     the --quirks argument; "peer" qemu|bochs
    peer qemu|bochs
    guest NAME[@TAG] | HVEMU OPTIONS | PEER OPTIONS
        (NAME.elf in --guests; @TAG tells runs of one guest apart, e.g. by
        the peer's CPU model;
        PEER OPTIONS: QEMU_ARGS words for qemu, the --cpu model for bochs;
        the word host-timed among them leaves the peer's run out: the guest's
        other rows measure times against a clock that follows the host, so
        the peer passes or fails them by the host's load;
        the word compare=set among the HVEMU OPTIONS compares which rows fail
        and not how often: rows repeated per machine-check bank, whose count
        differs between hvemu's model and the peer's)
    row GUEST | QUIRK or - | ROW NAME
        (the row "<the run ends early>": the peer stops before the guest's
        end, as Bochs does at a panic; never modelled)
Exit status: 0 all agree, 1 a difference (listed), 77 nothing checked, 99 set-up.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TAP = re.compile(r'^(not ok|ok) \d+ - (.*)$')
GOT = re.compile(r': got 0x[0-9a-fA-F]+ expected 0x[0-9a-fA-F]+.*$')
DIRECTIVE = re.compile(r'\s*# (TODO|SKIP)\b.*$')
END = re.compile(r'^(# PASS all|# FAILED|# SKIP all|1\.\.0 # SKIP)')


def parse_rows(path):
    spec = {'profile': None, 'peer': None, 'guests': collections.OrderedDict(), 'rows': []}
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0] if raw.lstrip().startswith('#') else raw
            line = line.strip()
            if not line:
                continue
            word, _, rest = line.partition(' ')
            fields = [x.strip() for x in rest.split('|', 2)]
            if word in ('profile', 'peer'):
                spec[word] = rest.strip()
            elif word == 'guest' and len(fields) == 3:
                spec['guests'][fields[0]] = (fields[1].split(), fields[2].split())
            elif word == 'row' and len(fields) == 3 and fields[0] in spec['guests']:
                spec['rows'].append(tuple(fields))
            else:
                sys.exit(f'{path}:{n}: cannot read "{line}"')
    if not spec['profile'] or spec['peer'] not in ('qemu', 'bochs'):
        sys.exit(f'{path}: needs "profile NAME" and "peer qemu|bochs"')
    return spec


def failing_rows(log):
    """(failing row names as a multiset, whether the guest reached its end)."""
    failed = collections.Counter()
    top = ''
    ended = False
    for line in log.splitlines():
        if END.match(line):
            ended = True
        m = TAP.match(line)
        if not m:
            continue
        name = DIRECTIVE.sub('', GOT.sub('', m.group(2))).rstrip()
        if name.startswith('  '):
            name = top + ' / ' + name.strip()
        else:
            top = name
        if m.group(1) == 'not ok':
            failed[name] += 1
    return failed, ended


def run(cmd, env=None, timeout=300):
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b'').decode('utf-8', 'replace') + '\n# timeout\n'
    return p.stdout.decode('utf-8', 'replace')


def hvemu_log(args, spec, guest, opts):
    elf = os.path.join(args.guests, guest.split('@')[0] + '.elf')
    words = 'quirk=qemu-tcg' if spec['peer'] == 'qemu' else ''
    cmd = [args.hvemu, 'run', '--kernel', elf, '--serial', 'stdio', '--max-insns', '400000000',
           '--firmware', 'none', '--no-reboot', '--quirks', spec['profile']] + opts
    if words:
        cmd += ['--cmdline', words]
    return run(cmd)


def peer_log(args, spec, guest, opts):
    elf = os.path.join(args.guests, guest.split('@')[0] + '.elf')
    env = dict(os.environ)
    if spec['peer'] == 'qemu':
        env['QEMU_ARGS'] = ' '.join(opts)
        return run(['sh', os.path.join(HERE, '..', 'guests', 'run-guest.sh'), 'qemu', args.peer, elf,
                    'pass'], env)
    env.pop('MALLOC_PERTURB_', None)   # Debian's Bochs 2.7 aborts with it (tests/bochs)
    return run([sys.executable, os.path.join(HERE, '..', 'bochs', 'run-bochs.py'), '--bochs',
                args.peer] + (['--cpu', opts[0]] if opts else []) + [args.bochs_rom, elf, 'pass'], env)


def peer_installed(args, spec):
    if not args.peer or not shutil.which(args.peer):
        return False
    if spec['peer'] == 'bochs':
        return bool(args.bochs_rom) and all(os.path.exists(f) for f in (
            '/usr/share/bochs/BIOS-bochs-latest', '/usr/share/vgabios/vgabios.bin'))
    return True


def compare(what, got, want):
    """Lines describing how got differs from want (multisets)."""
    out = []
    for name in sorted(set(got) | set(want)):
        if got[name] != want[name]:
            out.append(f'  {what}: "{name}" fails {got[name]}x, expected {want[name]}x')
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--hvemu', required=True)
    ap.add_argument('--guests', required=True, help='the directory of the guest ELFs')
    ap.add_argument('--peer', default='')
    ap.add_argument('--bochs-rom', default='')
    ap.add_argument('--peer-only', action='store_true')
    ap.add_argument('--only', default='')
    ap.add_argument('--list', action='store_true', help='print the rows each quirk flips')
    ap.add_argument('rows')
    args = ap.parse_args()
    spec = parse_rows(args.rows)
    if args.list:
        for g, q, r in spec['rows']:
            print(f'{q:32} {g:14} {r}')
        return 0
    with_peer = peer_installed(args, spec)
    if args.peer_only and not with_peer:
        print(f'# SKIP: {spec["peer"]} ({args.peer}) is not installed')
        return 77
    print(f'# profile {spec["profile"]}; peer {spec["peer"]}: '
          + (args.peer if with_peer else 'not installed, its runs skipped'))
    bad = []
    checked = 0
    for guest, (hv_opts, peer_opts) in spec['guests'].items():
        if args.only and guest != args.only:
            continue
        as_set = 'compare=set' in hv_opts
        hv_opts = [o for o in hv_opts if o != 'compare=set']
        modelled = collections.Counter(r for g, q, r in spec['rows'] if g == guest and q != '-')
        listed = collections.Counter(r for g, q, r in spec['rows'] if g == guest)
        checked += 1
        if not args.peer_only:
            log = hvemu_log(args, spec, guest, hv_opts)
            failed, ended = failing_rows(log)
            if as_set:
                failed = collections.Counter(set(failed))
                modelled = collections.Counter(set(modelled))
            diff = compare('hvemu --quirks', failed, modelled)
            if not ended:
                diff.append('  hvemu --quirks: the guest did not reach its end')
            print(f'# {guest}: hvemu --quirks {spec["profile"]} fails {sum(failed.values())} rows, '
                  f'{sum(modelled.values())} modelled' + (' OK' if not diff else ' DIFFERS'))
            if diff:
                bad += [f'{guest}:'] + diff
                print(log)
        if with_peer and 'host-timed' in peer_opts:
            print(f'# {guest}: {spec["peer"]} not run (host-timed rows)')
        elif with_peer:
            plog = peer_log(args, spec, guest, peer_opts)
            pfailed, pended = failing_rows(plog)
            if not pended:
                # A peer that ends the run early (a Bochs panic): a row of its own.
                pfailed['<the run ends early>'] += 1
            pdiff = compare(spec['peer'], pfailed, listed)
            print(f'# {guest}: {spec["peer"]} fails {sum(pfailed.values())} rows, '
                  f'{sum(listed.values())} listed' + (' OK' if not pdiff else ' DIFFERS'))
            if pdiff:
                bad += [f'{guest}:'] + pdiff
                print(plog)
    if bad:
        print('\n'.join(['# differences:'] + bad))
        return 1
    if not checked:
        print('# SKIP: no guest checked')
        return 77
    return 0


if __name__ == '__main__':
    sys.exit(main())
