#!/bin/bash
# Debian's Linux under hvemu, booted by hvemu's own loader (--firmware none)
# and through SeaBIOS (issue 17, scenario 1): the PVH vmlinux and the bzImage
# to a busybox /init that prints
# HVEMU-LINUX-SHELL and writes 1 to isa-debug-exit (exit status 3), then the
# same files under QEMU for the figures beside them.
#
#   linux_boot.sh HVEMU SRCDIR WORKDIR
#
# Nothing of Debian's is committed: the kernel and busybox-static are fetched
# with `apt-get download` into WORKDIR (kept between runs) and the initramfs
# and vmlinux built from them (tests/real/mkinitramfs.py). Runs only with
# HVEMU_REAL=1 (`make test-real`); otherwise, or when the packages cannot be
# downloaded, it exits 77 (meson's SKIP).
. "$(dirname "$0")/common.sh"
real_setup "$@"
MARKER=HVEMU-LINUX-SHELL
CMDLINE="console=ttyS0 quiet"
MEM=256M
fetch_linux

# run NAME KERNEL SMP [OPTIONS]: boot to the marker (common.sh).
run() {
	local name=$1 kernel=$2 smp=$3
	shift 3
	boot "$name" "$MARKER" --kernel "$kernel" --initrd initrd.cpio --cmdline "$CMDLINE" --mem $MEM --smp "$smp" "$@"
}

echo "hvemu: $HVEMU, command line '$CMDLINE', --mem $MEM"
run pvh-smp1 vmlinux 1
run pvh-smp1-again vmlinux 1
run bzimage-smp1 vmlinuz 1
run pvh-smp2 vmlinux 2
run pvh-smp2-again vmlinux 2
run pvh-epyc vmlinux 1 --cpu epyc-lite
run pvh-q35 vmlinux 1 --machine q35
# Both as qemu -kernel boots them: SeaBIOS, then QEMU's linuxboot_dma.bin or
# pvh.bin through fw_cfg (--firmware seabios, what a --kernel gets by default
# when they are installed), with hvemu's ACPI tables through the table
# loader; on q35 too, and with two CPUs that SeaBIOS counts first.
if [ -f /usr/share/seabios/bios-256k.bin ] && [ -f /usr/share/qemu/linuxboot_dma.bin ] &&
	[ -f /usr/share/qemu/pvh.bin ]; then
	run bzimage-seabios vmlinuz 1 --firmware seabios
	run pvh-seabios vmlinux 1 --firmware seabios
	run pvh-seabios-q35-smp2 vmlinux 2 --firmware seabios --machine q35
fi
# Two runs of the same files: the same serial output and instruction count,
# with one CPU and with two (the round-robin schedule is virtual time too).
same() {
	if ! cmp -s "$1.out" "$2.out" || [ "$(grep 'virtual instructions' "$1.err")" != \
		"$(grep 'virtual instructions' "$2.err")" ]; then
		echo "FAIL: the runs $1 and $2 differ"
		fail=1
	fi
}
same pvh-smp1 pvh-smp1-again
same pvh-smp2 pvh-smp2-again

# QEMU (TCG) on the same files, for comparison; its result does not decide.
if command -v qemu-system-x86_64 >/dev/null; then
	for k in vmlinux vmlinuz; do
		start=$(date +%s.%N)
		timeout 120 qemu-system-x86_64 -accel tcg -m $MEM -kernel $k -initrd initrd.cpio -append "$CMDLINE" \
			-nographic -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 </dev/null >qemu-$k.out 2>&1
		status=$?
		end=$(date +%s.%N)
		printf '%-16s status %3d  %12s instructions  %6.2f s  %s\n' "qemu-$k" "$status" "" \
			"$(awk "BEGIN{print $end - $start}")" "$(grep -a -o "$MARKER.*" qemu-$k.out | head -1)"
	done
fi
exit $fail
