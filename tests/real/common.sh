# Shared by the tests/real scenarios (sourced): Debian's packages fetched at
# test time with `apt-get download` into the work directory (kept between
# runs, never committed), and a boot under hvemu timed and checked.
#
#   real_setup HVEMU SRCDIR WORKDIR   SKIP (77) unless HVEMU_REAL=1; cd WORKDIR
#   fetch_linux      linux-image (the one linux-image-amd64 names) and
#                    busybox-static: vmlinuz, vmlinux (PVH), System.map,
#                    initrd.cpio, busybox and the KVM modules under kmod/;
#                    SKIP (77) when they cannot be downloaded
#   boot NAME MARKER HVEMU-ARGS...   boot under hvemu with --stats; prints
#                    status, instructions, wall time and the marker's line;
#                    fail=1 unless the status is 3 (isa-debug-exit 1) and the
#                    serial output has MARKER
set -u

real_setup() {
	HVEMU=$(realpath "$1") SRC=$(realpath "$2") WORK=$3
	if [ "${HVEMU_REAL:-0}" != 1 ]; then
		echo "SKIP: set HVEMU_REAL=1 (make test-real) to fetch and boot Debian's packages"
		exit 77
	fi
	mkdir -p "$WORK" && cd "$WORK" || exit 1
	fail=0
}

# apt-get download PKG... into the work directory, once; a fresh machine may
# have no package lists yet: fetch them once (as root).
download() {
	local missing="" p
	for p in "$@"; do
		ls "${p}"_*.deb >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if ! apt-cache show $missing >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >download.log 2>&1
	fi
	# shellcheck disable=SC2086
	if ! apt-get download $missing >>download.log 2>&1; then
		echo "SKIP: cannot download$missing (see $WORK/download.log)"
		exit 77
	fi
}

kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1
}

fetch_linux() {
	local kpkg deb
	kpkg=$(ls linux-image-[0-9]*.deb 2>/dev/null | head -1 | sed 's/_.*//')
	if [ -z "$kpkg" ]; then
		kpkg=$(kernel_package)
		if [ -z "$kpkg" ] && [ "$(id -u)" -eq 0 ]; then
			apt-get update -qq >download.log 2>&1
			kpkg=$(kernel_package)
		fi
		[ -n "$kpkg" ] || { echo "SKIP: no kernel package behind linux-image-amd64"; exit 77; }
	fi
	download "$kpkg" busybox-static
	for deb in "$kpkg"_*.deb busybox-static_*.deb; do
		echo "package: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version)"
	done
	if [ ! -f vmlinuz ] || [ ! -f initrd.cpio ] || [ ! -f vmlinux ] || [ ! -d kmod ]; then
		rm -rf root kmod && mkdir root kmod || exit 1
		for deb in "$kpkg"_*.deb busybox-static_*.deb; do dpkg-deb -x "$deb" root || exit 1; done
		cp root/boot/vmlinuz-* vmlinuz && cp root/boot/System.map-* System.map && cp root/bin/busybox busybox || exit 1
		for m in virt/lib/irqbypass arch/x86/kvm/kvm arch/x86/kvm/kvm-amd arch/x86/kvm/kvm-intel \
			drivers/crypto/ccp/ccp; do
			cp root/lib/modules/*/kernel/$m.ko kmod/ || exit 1
		done
		python3 "$SRC/tests/real/mkinitramfs.py" initramfs busybox initrd.cpio || exit 1
		python3 "$SRC/tests/real/mkinitramfs.py" vmlinux vmlinuz vmlinux || exit 1
		rm -rf root
	fi
}

boot() {
	local name=$1 marker=$2 start end status insns direct=(--firmware none)
	shift 2
	case " $* " in *" --firmware "*) direct=() ;; esac
	start=$(date +%s.%N)
	timeout 300 "$HVEMU" run --stats "${direct[@]}" "$@" >"$name.out" 2>"$name.err"
	status=$?
	end=$(date +%s.%N)
	insns=$(sed -n 's/.* in \([0-9]*\) virtual instructions.*/\1/p' "$name.err" | tail -1)
	printf '%-20s status %3d  %12s instructions  %6.2f s  %s\n' "$name" "$status" "${insns:-?}" \
		"$(awk "BEGIN{print $end - $start}")" "$(grep -a -o "$marker.*" "$name.out" | head -1)"
	if [ $status -ne 3 ] || ! grep -aq "$marker" "$name.out"; then
		echo "FAIL: $name (last lines of $WORK/$name.out and .err:)"
		tail -n 12 "$name.out" "$name.err"
		fail=1
	fi
}
