#!/usr/bin/env python3
"""Build the test initramfs (cpio "newc", the kernel's
Documentation/driver-api/early-userspace/buffer-format.rst) from a static
busybox, and take the uncompressed vmlinux out of a bzImage.

  mkinitramfs.py initramfs BUSYBOX OUT [NAME=FILE ...]
                                         an /init that prints HVEMU-LINUX-SHELL
                                         on the console, runs the step the kernel
                                         command line's hvemu.step= names, then
                                         writes 1 (the step passed, or there was
                                         none) or 2 to isa-debug-exit (port 0xf4)
                                         and powers off; NAME=FILE adds FILE to
                                         the archive as NAME (e.g. the KVM
                                         modules as lib/kvm/kvm.ko, kvm_vm)

  Steps: kvm  insmod lib/kvm/{irqbypass,kvm,ccp}.ko and kvm-amd.ko or
              kvm-intel.ko by the CPU's vendor, each with the parameters the
              command line gives as MODULE.PARAM=VALUE (kvm_amd.npt=0, as
              modprobe would pass them), then run /kvm_vm (tests/real/kvm_vm.c)
         kallsyms  print /proc/kallsyms (the kernel's symbols, for --symbols)
  mkinitramfs.py vmlinux BZIMAGE OUT     the payload the setup header's
                                         payload_offset/payload_length (boot
                                         protocol 2.08) name, decompressed by
                                         its magic with xz, zstd, gzip or lz4
"""
import struct
import subprocess
import sys

INIT = b"""#!/bin/sh
bb=/bin/busybox
$bb mkdir -p /proc /sys /tmp
$bb mount -t proc proc /proc
$bb mount -t sysfs sys /sys
$bb mount -t devtmpfs dev /dev 2>/dev/null
echo "HVEMU-LINUX-SHELL $($bb uname -r) cpus=$($bb grep -c ^processor /proc/cpuinfo)"
cmdline=$($bb cat /proc/cmdline)
step=
for w in $cmdline; do
	case $w in hvemu.step=*) step=${w#hvemu.step=} ;; esac
done
# The MODULE.PARAM=VALUE words of the command line for MODULE.
params() {
	for w in $cmdline; do
		case $w in "$1".*) $bb printf '%s ' "${w#$1.}" ;; esac
	done
}
ok=1
case "$step" in
kvm)
	if $bb grep -q AuthenticAMD /proc/cpuinfo; then vendor=kvm_amd; else vendor=kvm_intel; fi
	for m in irqbypass kvm ccp $vendor; do
		file=/lib/kvm/$($bb echo $m | $bb tr _ -).ko
		[ -f $file ] || continue
		echo "insmod $m $(params $m)"
		$bb insmod $file $(params $m) || ok=0
	done
	echo "HVEMU-STEP kvm: $($bb grep -o -w -E 'svm|vmx' /proc/cpuinfo | $bb head -1) $(params $vendor)"
	/kvm_vm || ok=0
	;;
kallsyms)
	# The running kernel's symbols (Debian ships no System.map): hvemu's
	# --symbols takes this dump.
	$bb cat /proc/kallsyms
	;;
"") ;;
*)	echo "unknown hvemu.step=$step"; ok=0 ;;
esac
if [ $ok = 1 ]; then code='\\001'; else code='\\002'; fi
$bb printf "$code" | $bb dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
$bb poweroff -f
"""

def cpio_entry(name, mode, data=b"", rdev=(0, 0), ino=[1]):
    ino[0] += 1
    name_b = name.encode() + b"\0"
    hdr = b"070701" + b"".join(b"%08X" % v for v in (
        ino[0], mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0))
    out = hdr + name_b
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def initramfs(busybox, out, extra=()):
    with open(busybox, "rb") as f:
        bb = f.read()
    files = []
    dirs = set()
    for spec in extra:
        name, _, path = spec.partition("=")
        if not name or not path:
            sys.exit("NAME=FILE expected, got %r" % spec)
        with open(path, "rb") as f:
            files.append(cpio_entry(name, 0o100755, f.read()))
        parent = name.rpartition("/")[0]
        while parent:
            dirs.add(parent)
            parent = parent.rpartition("/")[0]
    parts = [cpio_entry(d, 0o040755) for d in sorted(dirs)] + files + [
        cpio_entry("bin", 0o040755), cpio_entry("dev", 0o040755),
        cpio_entry("dev/console", 0o020600, rdev=(5, 1)),
        cpio_entry("dev/port", 0o020600, rdev=(1, 4)),
        cpio_entry("dev/null", 0o020666, rdev=(1, 3)),
        cpio_entry("bin/busybox", 0o100755, bb),
        cpio_entry("bin/sh", 0o120777, b"busybox"),
        cpio_entry("init", 0o100755, INIT),
        cpio_entry("TRAILER!!!", 0),
    ]
    blob = b"".join(parts)
    blob += b"\0" * (-len(blob) % 512)
    with open(out, "wb") as f:
        f.write(blob)


def vmlinux(bzimage, out):
    with open(bzimage, "rb") as f:
        img = f.read()
    if img[0x202:0x206] != b"HdrS":
        sys.exit("%s: not a bzImage" % bzimage)
    setup_sects = img[0x1f1] or 4
    off, length = struct.unpack_from("<II", img, 0x248)
    payload = img[(setup_sects + 1) * 512 + off:][:length]
    tools = [(b"\xfd7zXZ", ["xz", "-dc"]), (b"\x28\xb5\x2f\xfd", ["zstd", "-dcq"]),
             (b"\x1f\x8b", ["gzip", "-dc"]), (b"\x02\x21\x4c\x18", ["lz4", "-dc"])]
    for magic, cmd in tools:
        if payload.startswith(magic):
            # The payload may carry trailing bytes (the decompressed size):
            # the tools complain, the output is whole.
            r = subprocess.run(cmd, input=payload, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            if not r.stdout.startswith(b"\x7fELF"):
                sys.exit("%s: %s gave no ELF" % (bzimage, cmd[0]))
            with open(out, "wb") as f:
                f.write(r.stdout)
            return
    sys.exit("%s: unknown payload compression %s" % (bzimage, payload[:4].hex()))


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("initramfs", "vmlinux") or \
            (sys.argv[1] == "vmlinux" and len(sys.argv) != 4):
        sys.exit(__doc__)
    if sys.argv[1] == "initramfs":
        initramfs(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        vmlinux(sys.argv[2], sys.argv[3])
