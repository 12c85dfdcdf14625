#!/usr/bin/env python3
"""--firmware and --debugcon end to end: SeaBIOS (Debian's seabios package;
exit 77, skipped, when it is not installed) runs from the reset vector with
its log on port 402h to "No bootable device.", through fw_cfg with its DMA
interface; and the usage errors of the options.

usage: firmware_test.py HVEMU CASE   (CASE: list prints the cases)"""
import os
import subprocess
import sys
import tempfile

SEABIOS = '/usr/share/seabios/bios-256k.bin'

# The lines SeaBIOS 1.16 logs on the way to its boot menu, in order.
SEABIOS_LINES = ['SeaBIOS (version', 'Found QEMU fw_cfg', 'QEMU fw_cfg DMA interface supported',
                 'qemu/e820: addr 0x0000000000000000 len 0x000000000009fc00 [RAM]',
                 'Found 3 PCI devices', 'PCI: init bdf=00:00.0 id=8086:1237', 'PCI: init bdf=00:01.0 id=8086:7000',
                 'PCI: init bdf=00:01.3 id=8086:7113', 'Using pmtimer, ioport 0xb008', 'Found 1 cpu(s)',
                 'Copying ACPI RSDP', 'Booting from Hard Disk...',
                 'No bootable device.']


def run(hvemu, args, tmp):
    r = subprocess.run([hvemu, 'run'] + args, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                       cwd=tmp)
    return r.returncode, r.stderr.decode(errors='replace')


def in_order(text, parts):
    pos = 0
    for part in parts:
        i = text.find(part, pos)
        if i < 0:
            return part
        pos = i + len(part)
    return None


def seabios_boot_menu(hvemu, tmp):
    if not os.path.exists(SEABIOS):
        return 77
    status, err = run(hvemu, ['--firmware', 'seabios', '--debugcon', 'file:sb.log', '--max-insns', '200000000'], tmp)
    with open(os.path.join(tmp, 'sb.log'), errors='replace') as f:
        log = f.read()
    print(log[-2000:])
    missing = in_order(log, SEABIOS_LINES)
    if status != 6 or missing:
        print(f'FAIL: status {status} (expected 6, the limit), missing {missing!r}; stderr {err}')
        return 1
    return 0


def usage(args, text):
    def case(hvemu, tmp):
        open(os.path.join(tmp, 'k.bin'), 'wb').write(b'\0' * 1024)
        status, err = run(hvemu, args, tmp)
        lines = err.splitlines()
        if status != 2 or len(lines) != 1 or not lines[0].startswith('hvemu: error: ') or text not in err:
            print(f'FAIL: status {status}, stderr {err!r}; expected one error line with {text!r}')
            return 1
        return 0
    return case


def firmware_kernel_not_bzimage(hvemu, tmp):
    """Through the firmware only a bzImage boots: a file without "HdrS" is refused."""
    if not os.path.exists(SEABIOS) or not os.path.exists('/usr/share/qemu/linuxboot_dma.bin'):
        return 77
    return usage(['--firmware', 'seabios', '--kernel', 'k.bin'], 'not a Linux bzImage')(hvemu, tmp)


CASES = {
    'seabios-boot-menu': seabios_boot_menu,
    'firmware-and-bios': usage(['--firmware', 'seabios', '--bios', 'k.bin'], '--firmware and --bios exclude'),
    'firmware-empty': usage(['--firmware', ''], 'bad --firmware'),
    'firmware-entry': usage(['--firmware', 'k.bin', '--load', 'k.bin@0x7c00', '--entry', '0x7c00'],
                            'exclude each other'),
    'firmware-missing-file': usage(['--firmware', 'nonexistent.bin'], 'nonexistent.bin'),
    'firmware-kernel-not-bzimage': firmware_kernel_not_bzimage,
}


def main():
    hvemu, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    if name == 'list':
        print('\n'.join(CASES))
        return 0
    with tempfile.TemporaryDirectory(prefix='hvemu-fw-') as tmp:
        return CASES[name](hvemu, tmp)


if __name__ == '__main__':
    sys.exit(main())
