#!/usr/bin/env python3
"""Compile the instruction table (emu/isa/<concept>.isa) into decoder tables.

Writes isa_table.c (rows, per-opcode candidate lists) and isa_handlers.h (one
prototype per handler). Format: emu/isa/README.md. Any malformed row stops the
build with file:line and the reason.

VEX rows (VEX.L.pp.map.W opcode words, B/H operands for VEX.vvvv) go to their
own table, isa_vex_opcodes; "fallback" rows name the row their encoding is on a
CPU without their feature (isa_row.alt).

The optional sixth column names the row's intercept (a row of emu/intercept.def,
lower case) and, as a second word, the CPUID feature (emu/features.def) without
which the row is #UD. Given the emu/ C sources (--sources), the build also
refuses a table whose interceptable row has no hook: the row's handler must
reach a call of an intercept_*() or hv_*() function of emu/hv.h.
"""
import argparse
import os
import re
import sys

SIZE_LETTERS = {'b': 'SZ_B', 'w': 'SZ_W', 'd': 'SZ_D', 'q': 'SZ_Q', 'v': 'SZ_V', 'dq': 'SZ_V',
                'z': 'SZ_Z', 'y': 'SZ_Y', 'p': 'SZ_V', 's': 'SZ_V', 'a': 'SZ_V', '': 'SZ_V'}
FIXED_OPERANDS = {'AL': 'SZ_B', 'CL': 'SZ_B', 'AX': 'SZ_W', 'DX': 'SZ_W', 'eAX': 'SZ_Z',
                  'rAX': 'SZ_V', '1': 'SZ_B', 'ES': 'SZ_W', 'CS': 'SZ_W', 'SS': 'SZ_W',
                  'DS': 'SZ_W', 'FS': 'SZ_W', 'GS': 'SZ_W'}
MODRM_LETTERS = set('EGMRSCDNPQUVW')
FLAGS = {'lock': 'IF_LOCK', 'rep': 'IF_REP', 'jump': 'IF_JUMP', 'end': 'IF_END',
         'no64': 'IF_NO64', 'd64': 'IF_D64', 'f64': 'IF_F64', 'only64': 'IF_ONLY64',
         'fallback': 'IF_FALLBACK', 'vsib': 'IF_VSIB'}
PREFIXES = {'any': 'PFX_ANY', 'NP': 'PFX_NONE', '66': 'PFX_66', 'F3': 'PFX_F3', 'F2': 'PFX_F2',
            'NP/66': 'PFX_NOREP'}
# VEX rows (SDM Vol.2 3.1.1.2 opcode column notation: VEX.[NDS.]L.pp.mmmmm.W):
# the L, pp, map and W words of the first token.
VEX_L = {'LZ': 1, 'L0': 1, '128': 1, 'L1': 2, '256': 2, 'LIG': 0}
VEX_PP = {'66': '66', 'F3': 'F3', 'F2': 'F2'}
VEX_MAP = {'0F': 1, '0F38': 2, '0F3A': 3}
VEX_W = {'W0': 1, 'W1': 2, 'WIG': 0}
VEX_INFO = {'NDS', 'NDD', 'DDS'}      # the SDM's operand-role notes: no decoding effect
# Operand letters of VEX.vvvv (SDM Vol.2 A.2.1): B a general register, H an XMM/YMM register.
VVVV_LETTERS = set('BH')


class RowError(Exception):
    pass


def parse_opcode(text):
    """Return (map, [opcode bytes], attrs) for the opcode column."""
    toks = text.split()
    nums = []
    attrs = {'modrm': False, 'reg': None, 'mod': 'any', 'rm': None, 'plus_r': False,
             'pfx': 'any', 'vex': None}
    i = 0
    if toks and toks[0].startswith('VEX.'):
        attrs['vex'] = parse_vex(toks[0])
        attrs['pfx'] = attrs['vex']['pp']
        i = 1
    while i < len(toks):
        t = toks[i]
        if t.endswith('+r'):
            nums.append(int(t[:-2], 16))
            attrs['plus_r'] = True
        elif len(t) == 2 and all(c in '0123456789abcdefABCDEF' for c in t) and not attrs['modrm']:
            nums.append(int(t, 16))
        elif t == '/r':
            attrs['modrm'] = True
        elif len(t) == 2 and t[0] == '/' and t[1] in '01234567':
            attrs['modrm'] = True
            attrs['reg'] = 1 << int(t[1])
        elif len(t) == 4 and t[0] == '/' and t[2] == '-' and t[1] in '01234567' and t[3] in '01234567':
            attrs['modrm'] = True
            lo, hi = int(t[1]), int(t[3])
            if lo >= hi:
                raise RowError('bad ModRM.reg range ' + t)
            attrs['reg'] = sum(1 << d for d in range(lo, hi + 1))
        elif t == 'm':
            attrs['mod'] = 'mem'
        elif t == 'r':
            attrs['mod'] = 'reg'
        elif t == 'modreg':
            attrs['mod'] = 'force_reg'
        elif t.startswith('rm='):
            attrs['rm'] = int(t[3:])
            if not 0 <= attrs['rm'] <= 7:
                raise RowError('rm= must be 0..7')
        elif t.startswith('pfx='):
            if attrs['vex']:
                raise RowError('a VEX row names its prefix in VEX.pp, not pfx=')
            if t[4:] not in PREFIXES:
                raise RowError('unknown prefix ' + t)
            attrs['pfx'] = t[4:]
        else:
            raise RowError('bad opcode token ' + repr(t))
        i += 1
    if not nums:
        raise RowError('no opcode byte')
    if attrs['vex']:
        if len(nums) != 1 or attrs['plus_r']:
            raise RowError('a VEX row has exactly one opcode byte after VEX.L.pp.map.W (no +r)')
        return attrs['vex']['map'], nums[0], attrs
    if nums[0] == 0x0F:
        if len(nums) >= 2 and nums[1] in (0x38, 0x3A):
            omap, rest = (2 if nums[1] == 0x38 else 3), nums[2:]
        else:
            omap, rest = 1, nums[1:]
    else:
        omap, rest = 0, nums
    if len(rest) != 1:
        raise RowError('expected exactly one opcode byte after the map escape')
    if attrs['rm'] is not None and attrs['mod'] != 'reg':
        raise RowError('rm= needs the register form "r"')
    return omap, rest[0], attrs


def parse_vex(tok):
    """The words of VEX.[NDS.]L.pp.mmmmm.W: L, pp (NP if absent), map, W."""
    v = {'L': None, 'pp': 'NP', 'map': None, 'W': None}
    for word in tok.split('.')[1:]:
        if word in VEX_INFO:
            continue
        if word in VEX_L and v['L'] is None:
            v['L'] = VEX_L[word]
        elif word in VEX_PP and v['pp'] == 'NP' and v['map'] is None:
            v['pp'] = VEX_PP[word]
        elif word in VEX_MAP and v['map'] is None:
            v['map'] = VEX_MAP[word]
        elif word in VEX_W and v['W'] is None and v['map'] is not None:
            v['W'] = VEX_W[word]
        else:
            raise RowError('bad or repeated VEX word %r in %s' % (word, tok))
    if v['L'] is None or v['map'] is None:
        raise RowError('%s: VEX needs an L word (LZ/L0/128, L1/256, LIG) and a map (0F, 0F38, 0F3A)' % tok)
    if v['W'] is None:
        v['W'] = 0
    return v


def operand_info(ops):
    """First-operand size class, immediate kind, and whether ModRM is implied."""
    size = 'SZ_NONE'
    imm = []
    needs_modrm = False
    for n, op in enumerate(ops):
        if op in FIXED_OPERANDS:
            kind = FIXED_OPERANDS[op]
        elif op and op[0] in MODRM_LETTERS | VVVV_LETTERS | set('IJAOZXY'):
            letter, sz = op[0], op[1:]
            if letter in MODRM_LETTERS:
                needs_modrm = True
            if letter == 'I':
                imm.append({'b': 'IMM_B', 'bs': 'IMM_BS', 'w': 'IMM_W', 'z': 'IMM_Z',
                            'v': 'IMM_V', 'd': 'IMM_D'}.get(sz) or _bad('immediate ' + op))
                sz = 'b' if sz == 'bs' else sz
            elif letter == 'J':
                imm.append({'b': 'IMM_JB', 'z': 'IMM_JZ'}.get(sz) or _bad('relative ' + op))
            elif letter == 'A':
                imm.append('IMM_AP')
            elif letter == 'O':
                imm.append('IMM_MOFFS')
            if sz not in SIZE_LETTERS:
                raise RowError('unknown operand size in ' + op)
            kind = SIZE_LETTERS[sz]
        else:
            raise RowError('unknown operand ' + repr(op))
        if n == 0:
            size = kind
    if imm == ['IMM_W', 'IMM_B']:
        imm = ['IMM_W_B']
    if len(imm) > 1:
        raise RowError('unsupported immediate combination %s' % imm)
    return size, (imm[0] if imm else 'IMM_NONE'), needs_modrm


def _bad(msg):
    raise RowError(msg)


def load_intercepts(path):
    """The kinds of emu/intercept.def: lower-case name -> C enumerator."""
    kinds = {}
    with open(path, encoding='utf-8') as f:
        for m in re.finditer(r'^X\((\w+),', f.read(), re.M):
            kinds[m.group(1).lower()] = 'IK_' + m.group(1)
    return kinds


def load_features(path):
    """The features of emu/features.def: name -> index (1-based) and the rows."""
    feats = []
    with open(path, encoding='utf-8') as f:
        for m in re.finditer(r'X\((\w+),\s*(\w+),\s*(\w+),\s*(\d+)\)', f.read()):
            feats.append((m.group(1), m.group(2), m.group(3), int(m.group(4))))
    return feats


def load(paths, kinds, features):
    feature_index = {name: i + 1 for i, (name, _, _, _) in enumerate(features)}
    rows = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            for lineno, line in enumerate(f, 1):
                line = line.split('#', 1)[0].strip()
                if not line:
                    continue
                where = '%s:%d' % (path, lineno)
                cols = [c.strip() for c in line.split('|')]
                if len(cols) == 5:
                    cols.append('')
                if len(cols) != 6:
                    sys.exit('%s: expected 5 or 6 columns "opcode | mnemonic | operands | handler | flags'
                             ' [| intercept]"' % where)
                try:
                    omap, byte, attrs = parse_opcode(cols[0])
                    ops = [o.strip() for o in cols[2].split(',')] if cols[2] else []
                    size, imm, needs_modrm = operand_info(ops)
                    if needs_modrm and not attrs['modrm']:
                        raise RowError('operands need a ModRM byte: add /r or /digit')
                    uses_vvvv = any(o and o[0] in VVVV_LETTERS for o in ops)
                    if uses_vvvv and not attrs['vex']:
                        raise RowError('operand B/H (VEX.vvvv) in a row without VEX')
                    # SDM Vol.2 2.3.6: an instruction without a VEX.vvvv operand
                    # needs vvvv = 1111b, else #UD.
                    if attrs['vex']:
                        attrs['vex']['vvvv_ones'] = not uses_vvvv
                    flags = []
                    for fl in cols[4].split():
                        if fl not in FLAGS:
                            raise RowError('unknown flag ' + fl)
                        flags.append(FLAGS[fl])
                    if not cols[3].isidentifier():
                        raise RowError('bad handler name')
                    words = cols[5].split()
                    if len(words) > 2:
                        raise RowError('the sixth column is "intercept [feature]"')
                    if words and words[0] != '-' and words[0] not in kinds:
                        raise RowError('intercept %r is not a row of emu/intercept.def' % words[0])
                    if len(words) == 2 and words[1] not in feature_index:
                        raise RowError('feature %r is not a row of emu/features.def' % words[1])
                    if 'IF_FALLBACK' in flags and len(words) != 2:
                        raise RowError('"fallback" needs a feature (the sixth column\'s second word)')
                except RowError as e:
                    sys.exit('%s: %s' % (where, e))
                rows.append(dict(where=where, map=omap, byte=byte, attrs=attrs, mnemonic=cols[1],
                                 operands=cols[2], handler=cols[3], flags=flags, size=size, imm=imm,
                                 intercept=kinds[words[0]] if words and words[0] != '-' else 'IK_NONE',
                                 feature=feature_index[words[1]] if len(words) == 2 else 0))
    return rows


def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def covers(t, r):
    """Row t accepts every encoding row r accepts (for "fallback")."""
    ta, ra = t['attrs'], r['attrs']
    return ((ta['reg'] is None or (ra['reg'] is not None and ra['reg'] & ~ta['reg'] == 0)) and
            ta['mod'] in ('any', ra['mod']) and ta['rm'] in (None, ra['rm']) and
            (ta['pfx'] in ('any', ra['pfx']) or (ta['pfx'] == 'NP/66' and ra['pfx'] in ('NP', '66'))) and
            t['size'] == r['size'] and t['imm'] == r['imm'] and
            set(t['flags']) & {'IF_NO64', 'IF_ONLY64'} <= set(r['flags']))


def generate(rows, features, out_dir):
    candidates = {}
    for idx, r in enumerate(rows):
        bytes_ = range(r['byte'], r['byte'] + 8) if r['attrs']['plus_r'] else [r['byte']]
        if r['attrs']['plus_r'] and r['byte'] & 7:
            sys.exit('%s: +r opcode must have its low three bits zero' % r['where'])
        for b in bytes_:
            candidates.setdefault((bool(r['attrs']['vex']), r['map'], b), []).append(idx)
    order = []
    table = {}
    for key in sorted(candidates):
        # "fallback" rows are tried first: they take the encoding on a CPU with
        # their feature, and hand it to the row they fall back to without it.
        idxs = sorted(candidates[key], key=lambda i: 'IF_FALLBACK' not in rows[i]['flags'])
        modrm = {rows[i]['attrs']['modrm'] for i in idxs}
        if len(modrm) != 1:
            sys.exit('%s: rows of opcode map %d byte %02X disagree on ModRM' %
                     (rows[idxs[0]]['where'], key[1], key[2]))
        if len(idxs) > 255:
            sys.exit('too many rows for one opcode')
        for n, i in enumerate(idxs):
            if 'IF_FALLBACK' not in rows[i]['flags']:
                continue
            alt = [j for j in idxs[n + 1:] if 'IF_FALLBACK' not in rows[j]['flags'] and covers(rows[j], rows[i])]
            if not alt:
                sys.exit('%s: "fallback" row, but no later row of its opcode takes all of its encodings '
                         'with the same operand sizes and immediate' % rows[i]['where'])
            rows[i]['alt'] = alt[0]
        table[key] = (len(order), len(idxs), modrm.pop())
        order.extend(idxs)

    handlers = sorted({r['handler'] for r in rows})
    with open(os.path.join(out_dir, 'isa_handlers.h'), 'w', encoding='utf-8') as h:
        h.write('/* Generated by emu/gen_isa.py from emu/isa/<concept>.isa. Do not edit. */\n')
        h.write('#ifndef HVEMU_ISA_HANDLERS_H\n#define HVEMU_ISA_HANDLERS_H\n\n')
        h.write('#include "emu/insn.h"\n\n')
        for name in handlers:
            h.write('status_t op_%s(struct cpu *cpu, const struct insn *in);\n' % name)
        h.write('\n#endif\n')

    with open(os.path.join(out_dir, 'isa_table.c'), 'w', encoding='utf-8') as c:
        c.write('/* Generated by emu/gen_isa.py from emu/isa/<concept>.isa. Do not edit. */\n')
        c.write('#include "emu/decode_table.h"\n#include "isa_handlers.h"\n\n')
        c.write('const struct isa_row isa_rows[] = {\n')
        for r in rows:
            c.write('\t{ %s, %s, op_%s, %s, %s, %d, %d },\t/* %s */\n' % (
                c_str(r['mnemonic']), c_str(r['operands']), r['handler'],
                ' | '.join(r['flags']) or '0', r['intercept'], r['feature'], r.get('alt', 0),
                r['where'].split('/')[-1]))
        c.write('};\nconst unsigned isa_row_count = %d;\n\n' % len(rows))
        c.write('const struct isa_feature isa_features[] = {\n\t{ "", 0, 0, 0 },\n')
        for name, leaf, reg, bit in features:
            c.write('\t{ %s, %s, %s, %d },\n' % (c_str(name), leaf, {'EAX': 0, 'EBX': 1, 'ECX': 2, 'EDX': 3}[reg], bit))
        c.write('};\n\n')
        c.write('const struct isa_decode isa_decode_rows[] = {\n')
        for r in rows:
            a = r['attrs']
            v = a['vex']
            vex = '0' if not v else '%d | %d << 2%s' % (v['L'], v['W'], ' | VEX_VVVV_ONES' if v['vvvv_ones'] else '')
            c.write('\t{ %s, %s, %s, %s, %s, %s, %s },\n' % (
                '0xff' if a['reg'] is None else hex(a['reg']),
                {'any': 'MOD_ANY', 'mem': 'MOD_MEM', 'reg': 'MOD_REG', 'force_reg': 'MOD_FORCE_REG'}[a['mod']],
                'NO_CONSTRAINT' if a['rm'] is None else a['rm'],
                PREFIXES[a['pfx']], r['size'], r['imm'], vex))
        c.write('};\n\n')
        c.write('const uint16_t isa_candidates[] = {\n')
        for i in range(0, len(order), 16):
            c.write('\t' + ', '.join(str(x) for x in order[i:i + 16]) + ',\n')
        if not order:
            c.write('\t0\n')
        c.write('};\n\n')
        for vex, name in ((False, 'isa_opcodes'), (True, 'isa_vex_opcodes')):
            c.write('const struct isa_opcode %s[4][256] = {\n' % name)
            if not any(k[0] == vex for k in table):
                c.write('\t[0] = { [0] = { 0, 0, 0 } },\n')     # no rows: an all-zero table
            for omap in range(4):
                if not any((vex, omap, b) in table for b in range(256)):
                    continue
                c.write('\t[%d] = {\n' % omap)
                for b in range(256):
                    if (vex, omap, b) in table:
                        first, count, modrm = table[(vex, omap, b)]
                        c.write('\t\t[0x%02x] = { %d, %d, %d },\n' % (b, first, count, int(modrm)))
                c.write('\t},\n')
            c.write('};\n')


FUNCTION = re.compile(r'^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w \t\*]*?\b(\w+)\(([^;{]*?)\)[^;{]*\n\{(.*?)^\}',
                      re.M | re.S)
HOOK_CALL = re.compile(r'\b(?:intercept_\w+|hv_\w+)\s*\(')


def check_hooks(rows, sources):
    """Every interceptable row's handler must reach an emu/hv.h call, directly or
    through functions defined in the emu/ sources."""
    calls, hooked = {}, set()
    for path in sources:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for m in FUNCTION.finditer(text):
            name, body = m.group(1), m.group(3)
            calls.setdefault(name, set()).update(re.findall(r'\b(\w+)\s*\(', body))
            if HOOK_CALL.search(body):
                hooked.add(name)
    reaches = {}

    def reach(name, seen):
        if name in reaches:
            return reaches[name]
        if name in hooked:
            return True
        seen.add(name)
        ok = any(reach(c, seen) for c in calls.get(name, ()) if c not in seen)
        if ok:
            reaches[name] = True
        return ok

    for r in rows:
        if r['intercept'] != 'IK_NONE' and not reach('op_' + r['handler'], set()):
            sys.exit('%s: row is interceptable (%s) but op_%s reaches no intercept hook (emu/hv.h)' %
                     (r['where'], r['intercept'], r['handler']))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--out-dir', required=True)
    ap.add_argument('--intercepts', required=True, help='emu/intercept.def')
    ap.add_argument('--features', required=True, help='emu/features.def')
    ap.add_argument('--sources', nargs='*', default=[], help='emu/*.c, for the hook check')
    ap.add_argument('--tables', nargs='+', required=True)
    args = ap.parse_args()
    features = load_features(args.features)
    rows = load(args.tables, load_intercepts(args.intercepts), features)
    if args.sources:
        check_hooks(rows, args.sources)
    generate(rows, features, args.out_dir)


if __name__ == '__main__':
    main()
