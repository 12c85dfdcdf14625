"""What make_svm_exit_seeds.py and make_vmx_exit_seeds.py share: the template
numbers, read from the oracle's header; the tail every exit-fuzzer input ends
with (the typed mutations, then the templates, fuzz/exit_fuzz_common.h's
fuzzers read it alike); writing a set of seeds to a directory.
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def template_numbers(header, enum, prefix):
    """The names of enum `enum` in fuzz/`header`, in order, without the prefix
    and the final COUNT: a template's input byte is its index."""
    text = open(os.path.join(HERE, '..', header)).read()
    body = re.search(r'enum ' + enum + r' \{(.*?)\};', text, re.S).group(1)
    return [o for o in re.findall(prefix + r'([A-Z0-9_]+)', body) if o != 'COUNT']


def tail(ops, muts, insns):
    """The mutation count and 3-byte mutations, then the template count - 1
    and 5 bytes a template: its number and up to 4 operands (0 past them)."""
    b = bytes([len(muts)]) + b''.join(bytes(m) for m in muts)
    b += bytes([len(insns) - 1])
    for op, *args in insns:
        args = list(args) + [0] * (4 - len(args))
        b += bytes([ops.index(op)] + args)
    return b


def write(directory, seeds):
    """Each seed to directory/name (created if need be)."""
    os.makedirs(directory, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(directory, name), 'wb') as f:
            f.write(data)
