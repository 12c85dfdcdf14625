#!/bin/bash
# Xen 4.17 with Debian's Linux as its PV dom0 under hvemu (issue 17,
# scenario 3): xen-hypervisor-4.17-amd64's Multiboot image, started directly
# (the BIOS state hvemu leaves, devices/bios_data_area.h) with the vmlinux as
# dom0's kernel and the test initramfs as its module, to dom0's
# HVEMU-LINUX-SHELL marker (dom0 writes isa-debug-exit: status 3), on the AMD
# and the Intel model with one and two CPUs; Xen's log must show SVM resp. VMX
# enabled for HVM guests. Then the same files under QEMU for comparison.
#
#   xen_boot.sh HVEMU SRCDIR WORKDIR
#
# Runs only with HVEMU_REAL=1; exits 77 (SKIP) when the packages cannot be
# downloaded (tests/real/common.sh).
. "$(dirname "$0")/common.sh"
real_setup "$@"
fetch_linux
download xen-hypervisor-4.17-amd64
echo "package: $(dpkg-deb -f xen-hypervisor-4.17-amd64_*.deb Package) $(dpkg-deb -f xen-hypervisor-4.17-amd64_*.deb Version)"
if [ ! -f xen ]; then
	rm -rf xenroot && mkdir xenroot && dpkg-deb -x xen-hypervisor-4.17-amd64_*.deb xenroot || exit 1
	gunzip -c xenroot/boot/xen-4.17-amd64.gz >xen || exit 1
	rm -rf xenroot
fi
XEN_CMDLINE="console=com1 com1=115200,8n1 dom0_mem=256M"
DOM0="vmlinux console=hvc0"

# xen NAME CPU SMP HVM: boot to dom0's marker; Xen's log must say "HVM: HVM enabled".
xen() {
	boot "$1" HVEMU-LINUX-SHELL --kernel xen --cmdline "$XEN_CMDLINE" --module "$DOM0" --module initrd.cpio \
		--mem 1G --cpu "$2" --smp "$3" --no-reboot
	if ! grep -aq "HVM: $4 enabled" "$1.out"; then
		echo "FAIL: $1: Xen's log does not show $4 enabled"
		fail=1
	fi
	grep -a "HVM: $4 enabled\|Brought up" "$1.out" | sed 's/^/    /'
}

echo "hvemu: $HVEMU; Xen: $XEN_CMDLINE; dom0: $DOM0"
xen xen-amd-smp1 epyc-lite 1 SVM
xen xen-amd-smp2 epyc-lite 2 SVM
xen xen-intel-smp1 skylake-lite 1 VMX
xen xen-intel-smp2 skylake-lite 2 VMX

# QEMU (TCG) on the same files, for comparison; its result does not decide.
if command -v qemu-system-x86_64 >/dev/null; then
	start=$(date +%s.%N)
	timeout 300 qemu-system-x86_64 -accel tcg -m 1G -kernel xen -append "$XEN_CMDLINE" \
		-initrd "$DOM0,initrd.cpio" -nographic -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4 \
		</dev/null >qemu-xen.out 2>&1
	status=$?
	printf '%-20s status %3d  %12s instructions  %6.2f s  %s\n' qemu-xen "$status" "" \
		"$(awk "BEGIN{print $(date +%s.%N) - $start}")" "$(grep -a -o "HVEMU-LINUX-SHELL.*" qemu-xen.out | head -1)"
fi
exit $fail
