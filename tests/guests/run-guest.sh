#!/bin/sh
# Runs one self-checking guest and maps its exit status to a meson result.
# usage: run-guest.sh hvemu|qemu EMULATOR ELF pass|shutdown
# pass:     the guest wrote 0 to isa-debug-exit (hvemu/QEMU exit status 1)
# shutdown: the guest triple-faults on purpose (hvemu exits 4; QEMU with
#           -no-reboot exits 0)
# Any "not ok" line that is not a TAP "# TODO" also fails the test.
# Optional environment: HVEMU_ARGS (extra hvemu options, split on spaces) and
# GUEST_CMDLINE (words added to the guest's multiboot command line).
set -u
HVEMU_ARGS=${HVEMU_ARGS:-} GUEST_CMDLINE=${GUEST_CMDLINE:-}
mode=$1 emu=$2 elf=$3 expect=$4
log=$(mktemp) || exit 99
trap 'rm -f "$log"' EXIT

case $mode in
hvemu)
	[ -x "$emu" ] || { echo "hvemu not built: $emu"; exit 77; }
	# shellcheck disable=SC2086  # HVEMU_ARGS is a word list on purpose
	timeout 300 "$emu" run --kernel "$elf" --serial stdio --max-insns 200000000 \
		${GUEST_CMDLINE:+--cmdline "$GUEST_CMDLINE"} $HVEMU_ARGS \
		</dev/null >"$log" 2>&1
	status=$?
	want_pass=1 want_shutdown=4
	;;
qemu)
	command -v "$emu" >/dev/null 2>&1 || { echo "qemu not installed"; exit 77; }
	# QEMU_GUEST_CPU selects a -cpu model (e.g. max, Haswell, pentium3).
	timeout 120 "$emu" ${QEMU_GUEST_CPU:+-cpu "$QEMU_GUEST_CPU"} -kernel "$elf" \
		-append "quirk=qemu-tcg${GUEST_CMDLINE:+ $GUEST_CMDLINE}" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-serial stdio -display none -monitor none -no-reboot -m 128 \
		</dev/null >"$log" 2>&1
	status=$?
	want_pass=1 want_shutdown=0
	;;
*)
	echo "unknown mode $mode"; exit 99 ;;
esac

case $expect in
pass) want=$want_pass ;;
shutdown) want=$want_shutdown ;;
*) echo "unknown expectation $expect"; exit 99 ;;
esac

cat "$log"
if [ "$status" -ne "$want" ]; then
	echo "FAIL: $mode exit status $status, expected $want ($expect)"
	exit 1
fi
if grep -v '# TODO' "$log" | grep -q '^not ok'; then
	echo "FAIL: guest reported failing checks"
	exit 1
fi
exit 0
