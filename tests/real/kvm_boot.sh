#!/bin/bash
# KVM inside Debian's Linux under hvemu (issue 17, scenario 2): Linux boots
# with an initramfs holding the KVM modules of its own package and
# tests/real/kvm_vm.c, /init loads kvm and kvm_amd or kvm_intel with the
# parameters on the command line and runs kvm_vm, which creates VMs through
# /dev/kvm and runs a real-mode and a 64-bit L2 (port I/O both ways, an MMIO
# exit, HLT), printing each exit; HVEMU-KVM-OK and exit status 3 pass. On
# the AMD model with nested paging and with npt=0 (shadow paging: L2's page
# faults go L2 -> L0 -> L1), on the Intel model with EPT and with ept=0;
# --stats shows every nested VM exit hvemu delivered to L1 (VMRUN/#VMEXIT,
# VMLAUNCH/VMRESUME and the exits).
#
#   kvm_boot.sh HVEMU SRCDIR WORKDIR KVM_VM [VENDOR]   VENDOR: amd, intel or all (default)
#
# Under epyc-lite and skylake-lite also with --perturb-exits (the exit
# information the APM or SDM leaves undefined randomised). Runs only with
# HVEMU_REAL=1; exits 77 (SKIP) when the packages cannot be downloaded
# (tests/real/common.sh).
. "$(dirname "$0")/common.sh"
KVM_VM=$(realpath "$4")
VENDOR=${5:-all}
real_setup "$1" "$2" "$3"
fetch_linux
python3 "$SRC/tests/real/mkinitramfs.py" initramfs busybox kvm.cpio kvm_vm="$KVM_VM" \
	lib/kvm/irqbypass.ko=kmod/irqbypass.ko lib/kvm/kvm.ko=kmod/kvm.ko lib/kvm/ccp.ko=kmod/ccp.ko \
	lib/kvm/kvm-amd.ko=kmod/kvm-amd.ko lib/kvm/kvm-intel.ko=kmod/kvm-intel.ko || exit 1

# perturbed NAME CPU SPURIOUS: KVM reads no exit information the manual
# leaves undefined (svm/exit_perturb.h, vmx/exit_perturb.h) and takes an
# interrupt exit with nothing behind it in its stride, so it runs the same
# perturbed, and hvemu changed some exits. SPURIOUS: whether it made
# spurious interrupt exits: kvm_amd intercepts INTR without acknowledging;
# kvm_intel acknowledges interrupts on exit, where none is made up.
perturbed() {
	local name=$1 cpu=$2 spurious=$3
	boot "$name" HVEMU-KVM-OK --kernel vmlinux --initrd kvm.cpio --mem 512M --cpu "$cpu" \
		--perturb-exits 1 --cmdline "console=ttyS0 quiet hvemu.step=kvm"
	grep -a 'perturb-exits:' "$name.err" | sed 's/^/    /'
	grep -aq 'perturb-exits: seed 1, [1-9]' "$name.err" ||
		{ echo "FAIL: $name: --perturb-exits changed no exit"; fail=1; }
	if [ "$spurious" = yes ]; then
		grep -aq ', [1-9][0-9]* spurious interrupt exits' "$name.err" ||
			{ echo "FAIL: $name: no spurious interrupt exit"; fail=1; }
	else
		grep -aq ', 0 spurious interrupt exits' "$name.err" ||
			{ echo "FAIL: $name: spurious interrupt exits with acknowledge on exit"; fail=1; }
	fi
}

# kvm NAME CPU [MODULE.PARAM=VALUE...]
kvm() {
	local name=$1 cpu=$2
	shift 2
	boot "$name" HVEMU-KVM-OK --kernel vmlinux --initrd kvm.cpio --mem 512M --cpu "$cpu" --trace vmexit \
		--cmdline "console=ttyS0 quiet hvemu.step=kvm $*"
	grep -a '^kvm_vm:' "$name.out" | sed 's/^/    /'
	# --trace vmexit has a line for each exit --stats counts.
	local traced counted
	traced=$(grep -c '^vmexit #' "$name.err")
	counted=$(sed -n 's/^hvemu: stats: \([0-9]*\) VM exits.*/\1/p' "$name.err")
	if [ "$traced" != "$counted" ] || [ "$traced" -eq 0 ]; then
		echo "FAIL: $name: $traced exits traced, ${counted:-?} counted"
		fail=1
	fi
	# The nested exits L1 handled, as --stats counts them.
	sed -n '/code  *name  *count/,/^hvemu: stats: guest/p' "$name.err" | grep -v '^hvemu' | sed 's/^/    /'
}

echo "hvemu: $HVEMU"
case $VENDOR in amd|all)
	kvm kvm-amd-npt epyc-lite
	kvm kvm-amd-shadow epyc-lite kvm_amd.npt=0
	grep -q VMEXIT_EXCP_PF kvm-amd-shadow.err || { echo "FAIL: npt=0 gave no #PF exits"; fail=1; }
	grep -q VMEXIT_NPF kvm-amd-npt.err || { echo "FAIL: npt=1 gave no nested page faults"; fail=1; }
	perturbed kvm-amd-perturbed epyc-lite yes
	;;
esac
case $VENDOR in intel|all)
	kvm kvm-intel-ept skylake-lite
	kvm kvm-intel-shadow skylake-lite kvm_intel.ept=0
	grep -q EPT_VIOLATION kvm-intel-ept.err || { echo "FAIL: ept=1 gave no EPT violations"; fail=1; }
	grep -q EPT_VIOLATION kvm-intel-shadow.err && { echo "FAIL: ept=0 still used EPT"; fail=1; }
	perturbed kvm-intel-perturbed skylake-lite no
	;;
esac
exit $fail
