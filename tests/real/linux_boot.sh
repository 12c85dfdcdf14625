#!/bin/bash
# Debian's Linux under hvemu, booted by hvemu's own loader (issue 17, scenario
# 1): the PVH vmlinux and the bzImage to a busybox /init that prints
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
set -u
HVEMU=$(realpath "$1") SRC=$(realpath "$2") WORK=$3
MARKER=HVEMU-LINUX-SHELL
CMDLINE="console=ttyS0 quiet"
MEM=256M
if [ "${HVEMU_REAL:-0}" != 1 ]; then
	echo "SKIP: set HVEMU_REAL=1 (make test-real) to fetch and boot Debian's kernel"
	exit 77
fi
mkdir -p "$WORK" && cd "$WORK" || exit 1

# The kernel package linux-image-amd64 names, and busybox-static.
if ! ls linux-image-*.deb >/dev/null 2>&1 || ! ls busybox-static_*.deb >/dev/null 2>&1; then
	kernel_package() {
		apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1
	}
	KPKG=$(kernel_package)
	# A fresh machine may have no package lists yet: fetch them once (as root).
	if [ -z "$KPKG" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >download.log 2>&1
		KPKG=$(kernel_package)
	fi
	if [ -z "$KPKG" ] || ! apt-get download "$KPKG" busybox-static >download.log 2>&1; then
		echo "SKIP: cannot download the kernel package '${KPKG:-?}' or busybox-static (see $WORK/download.log)"
		exit 77
	fi
fi
for deb in linux-image-*.deb busybox-static_*.deb; do
	echo "package: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
done
if [ ! -f vmlinuz ] || [ ! -f initrd.cpio ] || [ ! -f vmlinux ]; then
	rm -rf root && mkdir root || exit 1
	for deb in linux-image-*.deb busybox-static_*.deb; do dpkg-deb -x "$deb" root || exit 1; done
	cp root/boot/vmlinuz-* vmlinuz || exit 1
	python3 "$SRC/tests/real/mkinitramfs.py" initramfs root/bin/busybox initrd.cpio || exit 1
	python3 "$SRC/tests/real/mkinitramfs.py" vmlinux vmlinuz vmlinux || exit 1
	rm -rf root
fi

fail=0
# run NAME KERNEL SMP [OPTIONS]: boot under hvemu; the marker, status 3
# (debug exit 1), instructions (from --stats) and wall time.
run() {
	local name=$1 kernel=$2 smp=$3 start end status insns
	shift 3
	start=$(date +%s.%N)
	timeout 300 "$HVEMU" run --kernel "$kernel" --initrd initrd.cpio --cmdline "$CMDLINE" --mem $MEM \
		--smp "$smp" --stats "$@" >"$name.out" 2>"$name.err"
	status=$?
	end=$(date +%s.%N)
	insns=$(sed -n 's/.*in \([0-9]*\) virtual instructions.*/\1/p' "$name.err" | tail -1)
	printf '%-16s status %3d  %12s instructions  %6.2f s  %s\n' "$name" "$status" "${insns:-?}" \
		"$(awk "BEGIN{print $end - $start}")" "$(grep -a -o "$MARKER.*" "$name.out" | head -1)"
	if [ $status -ne 3 ] || ! grep -aq "$MARKER" "$name.out"; then
		echo "FAIL: $name (last lines of $WORK/$name.out and .err:)"
		tail -n 5 "$name.out" "$name.err"
		fail=1
	fi
}

echo "hvemu: $HVEMU, command line '$CMDLINE', --mem $MEM"
run pvh-smp1 vmlinux 1
run pvh-smp1-again vmlinux 1
run bzimage-smp1 vmlinuz 1
run pvh-smp2 vmlinux 2
run pvh-smp2-again vmlinux 2
run pvh-epyc vmlinux 1 --cpu epyc-lite
run pvh-q35 vmlinux 1 --machine q35
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
