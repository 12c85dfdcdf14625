#!/usr/bin/env python3
"""--firmware and --debugcon end to end: SeaBIOS (Debian's seabios package;
exit 77, skipped, when it is not installed) runs from the reset vector with
its log on port 402h to "No bootable device.", through fw_cfg with its DMA
interface and hvemu's ACPI tables through the table loader; a --kernel goes
through SeaBIOS and QEMU's option ROM by default when both are installed,
and hvemu's own loader with --firmware none or --load images; and the usage
errors of the options.

usage: firmware_test.py HVEMU CASE   (CASE: list prints the cases)"""
import os
import subprocess
import sys
import tempfile

from cli_test import aout_kernel, contains_in_order

SEABIOS = '/usr/share/seabios/bios-256k.bin'

ROMS = ['/usr/share/qemu/linuxboot_dma.bin', '/usr/share/qemu/multiboot_dma.bin', '/usr/share/qemu/pvh.bin']

# The lines SeaBIOS 1.16 logs on the way to its boot menu, in order: with
# QEMU's table loader present it moves the PIIX4 PM block to 600h, where the
# tables' FADT has it, and finds the FADT (FACP) through hvemu's XSDT.
SEABIOS_LINES = ['SeaBIOS (version', 'Found QEMU fw_cfg', 'QEMU fw_cfg DMA interface supported',
                 'qemu/e820: addr 0x0000000000000000 len 0x000000000009fc00 [RAM]', 'Moving pm_base to 0x600',
                 'Found 3 PCI devices', 'PCI: init bdf=00:00.0 id=8086:1237', 'PCI: init bdf=00:01.0 id=8086:7000',
                 'PCI: init bdf=00:01.3 id=8086:7113', 'Using pmtimer, ioport 0x608', 'Found 1 cpu(s)',
                 'table(50434146)=', '(via xsdt)', 'Booting from Hard Disk...',
                 'No bootable device.']

# A Multiboot kernel that exits 0 through isa-debug-exit (status 1) when
# EBX names the information structure at 9500H, where QEMU's option ROM
# puts it, else 1 (status 3): hvemu's own loader puts it after the image.
ROM_CHECK = bytes.fromhex(
    '3d02b0ad2b'      # cmp eax, 0x2badb002
    '750c'            # jne fail
    '81fb00950000'    # cmp ebx, 0x9500
    '7504'            # jne fail
    'b000'            # mov al, 0
    'e6f4'            # out 0xf4, al
    'b001'            # fail: mov al, 1
    'e6f4'            # out 0xf4, al
    'f4ebfd')         # hlt; jmp $-1


def run(hvemu, args, tmp):
    r = subprocess.run([hvemu, 'run'] + args, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                       cwd=tmp)
    return r.returncode, r.stderr.decode(errors='replace')


def seabios_boot_menu(hvemu, tmp):
    if not os.path.exists(SEABIOS):
        return 77
    status, err = run(hvemu, ['--firmware', 'seabios', '--debugcon', 'file:sb.log', '--max-insns', '200000000'], tmp)
    with open(os.path.join(tmp, 'sb.log'), errors='replace') as f:
        log = f.read()
    print(log[-2000:])
    missing = contains_in_order(log, SEABIOS_LINES)
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


def firmware_kernel_unknown(hvemu, tmp):
    """Through the firmware a file that is no kernel hvemu knows is refused."""
    if not os.path.exists(SEABIOS) or not all(os.path.exists(r) for r in ROMS):
        return 77
    return usage(['--firmware', 'seabios', '--kernel', 'k.bin'], 'not a kernel the firmware boots')(hvemu, tmp)


def kernel_start(args, want_status, want_seabios):
    """A --kernel run of ROM_CHECK with args: its status (1: through the
    option ROM, 3: hvemu's loader) and whether SeaBIOS logged its banner."""
    def case(hvemu, tmp):
        if not os.path.exists(SEABIOS) or not all(os.path.exists(r) for r in ROMS):
            return 77
        open(os.path.join(tmp, 'k.bin'), 'wb').write(aout_kernel(ROM_CHECK))
        status, err = run(hvemu, ['--kernel', 'k.bin', '--debugcon', 'file:dc.log', '--max-insns',
                                  '200000000'] + args, tmp)
        with open(os.path.join(tmp, 'dc.log'), errors='replace') as f:
            log = f.read()
        seabios = 'SeaBIOS (version' in log and 'Booting from ROM' in log
        if status != want_status or seabios != want_seabios:
            print(f'FAIL: status {status} (expected {want_status}), SeaBIOS ran: {seabios} (expected '
                  f'{want_seabios}); stderr {err}; log {log[-800:]!r}')
            return 1
        return 0
    return case


CASES = {
    'kernel-default-seabios': kernel_start([], 1, True),
    'kernel-firmware-none': kernel_start(['--firmware', 'none'], 3, False),
    'kernel-load-direct': kernel_start(['--load', 'k.bin@0x800000'], 3, False),
    'kernel-firmware-seabios': kernel_start(['--firmware', 'seabios'], 1, True),
    'seabios-boot-menu': seabios_boot_menu,
    'firmware-and-bios': usage(['--firmware', 'seabios', '--bios', 'k.bin'], '--firmware and --bios exclude'),
    'firmware-empty': usage(['--firmware', ''], 'bad --firmware'),
    'firmware-entry': usage(['--firmware', 'k.bin', '--load', 'k.bin@0x7c00', '--entry', '0x7c00'],
                            'exclude each other'),
    'firmware-missing-file': usage(['--firmware', 'nonexistent.bin'], 'nonexistent.bin'),
    'firmware-kernel-unknown': firmware_kernel_unknown,
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
