#!/usr/bin/env python3
"""Build the test initramfs (cpio "newc", the kernel's
Documentation/driver-api/early-userspace/buffer-format.rst) from a static
busybox, and take the uncompressed vmlinux out of a bzImage.

  mkinitramfs.py initramfs BUSYBOX OUT   an /init that prints HVEMU-LINUX-SHELL
                                         on the console, then writes 1 to
                                         isa-debug-exit (port 0xf4) and powers off
  mkinitramfs.py vmlinux BZIMAGE OUT     the payload the setup header's
                                         payload_offset/payload_length (boot
                                         protocol 2.08) name, decompressed by
                                         its magic with xz, zstd, gzip or lz4
"""
import struct
import subprocess
import sys

INIT = b"""#!/bin/sh
/bin/busybox mkdir -p /proc /sys /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
echo "HVEMU-LINUX-SHELL $(/bin/busybox uname -r) cpus=$(/bin/busybox grep -c ^processor /proc/cpuinfo)"
/bin/busybox printf '\\001' | /bin/busybox dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
/bin/busybox poweroff -f
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


def initramfs(busybox, out):
    with open(busybox, "rb") as f:
        bb = f.read()
    parts = [
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
    if len(sys.argv) != 4 or sys.argv[1] not in ("initramfs", "vmlinux"):
        sys.exit(__doc__)
    (initramfs if sys.argv[1] == "initramfs" else vmlinux)(sys.argv[2], sys.argv[3])
