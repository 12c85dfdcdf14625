#!/bin/sh
# Runs one self-checking guest and maps its exit status to a meson result.
# usage: run-guest.sh hvemu|qemu EMULATOR ELF pass|reboot|shutdown|reset|shutdown-port|power-off
# pass:     the guest wrote 0 to isa-debug-exit (hvemu/QEMU exit status 1),
#           printed a TAP plan "1..N" and N test lines, and checked something
# reboot:   a pass for a guest that resets the machine and runs on after
#           the restart: hvemu runs without --no-reboot, QEMU without -no-reboot
# shutdown: the guest triple-faults on purpose (hvemu exits 4; QEMU with
#           -no-reboot exits 0)
# reset:    the guest resets the machine (port 0x92, 0xCF9, the 8042): hvemu
#           with --no-reboot exits 14, QEMU with -no-reboot 0
# shutdown-port: the guest writes "Shutdown" to port 0x8900: hvemu powers off
#           (exit 16); QEMU 7.2 has no such port, the guest goes on and passes
#           (exit 1) with a TODO
# power-off: the guest powers the machine off through ACPI (SLP_EN with the
#           \_S5 type): hvemu exits 16, QEMU 0
# For reset, shutdown-port and power-off the log must hold "# the run ends here", which
# the guest prints just before: a run that ended earlier fails.
# A guest that checked nothing is a SKIP (exit 77), never a pass: it wrote
# GUEST_EXIT_SKIPPED (0x7f, exit status 255; lib/guest.h), or its plan is
# "1..0", or every test line is a TAP "# SKIP". Any "not ok" line that is not
# a TAP "# TODO" fails the test even if the status matched.
# Optional environment: HVEMU_ARGS (extra hvemu options, split on spaces;
# without --firmware the run is the direct start, --firmware none; with
# --firmware seabios it skips unless SeaBIOS and QEMU's option ROMs are
# installed),
# QEMU_ARGS (extra QEMU options, split on spaces, e.g. -device pc-testdev or -smp 2),
# GUEST_MODULES (multiboot modules "FILE ARGS", separated by '|': hvemu gets a
# --module for each, QEMU one -initrd with them joined by ','),
# HVEMU_MAX_INSNS (the --max-insns limit, default 200000000: it is virtual
# time, which a halted CPU skips ahead, so guests that sleep need more),
# GUEST_CMDLINE (words added to the guest's multiboot command line) and
# GUEST_MUST_CHECK=1 (a run that checks nothing fails instead of skipping:
# for CPU models chosen because they have what the guest tests).
set -u
HVEMU_ARGS=${HVEMU_ARGS:-} GUEST_CMDLINE=${GUEST_CMDLINE:-} GUEST_MUST_CHECK=${GUEST_MUST_CHECK:-0}
QEMU_ARGS=${QEMU_ARGS:-} GUEST_MODULES=${GUEST_MODULES:-}
HVEMU_MAX_INSNS=${HVEMU_MAX_INSNS:-200000000}
mode=$1 emu=$2 elf=$3 expect=$4
log=$(mktemp) || exit 99
trap 'rm -f "$log"' EXIT
status_skipped=255   # (GUEST_EXIT_SKIPPED << 1) | 1

# The modules as positional parameters: --module "FILE ARGS" for each.
set --
if [ -n "$GUEST_MODULES" ]; then
	old_ifs=$IFS
	IFS='|'
	for m in $GUEST_MODULES; do
		set -- "$@" --module "$m"
	done
	IFS=$old_ifs
fi

# A reset ends the run (hvemu --no-reboot, QEMU -no-reboot) unless the guest
# reboots on purpose.
hvemu_no_reboot=--no-reboot qemu_no_reboot=-no-reboot
if [ "$expect" = reboot ]; then
	hvemu_no_reboot= qemu_no_reboot=
fi

case $mode in
hvemu)
	[ -x "$emu" ] || { echo "hvemu not built: $emu"; exit 99; }
	case " $HVEMU_ARGS " in
	*" --firmware seabios "*)
		for f in /usr/share/seabios/bios-256k.bin /usr/share/qemu/multiboot_dma.bin; do
			[ -r "$f" ] || { echo "SKIP: $f missing (Debian's seabios, qemu-system-data)"; exit 77; }
		done ;;
	*" --firmware "*) ;;
	# The direct start unless the run names a firmware: hvemu's default
	# depends on what is installed.
	*) HVEMU_ARGS="--firmware none $HVEMU_ARGS" ;;
	esac
	# shellcheck disable=SC2086  # HVEMU_ARGS is a word list on purpose
	timeout 300 "$emu" run --kernel "$elf" --serial stdio --max-insns "$HVEMU_MAX_INSNS" \
		${GUEST_CMDLINE:+--cmdline "$GUEST_CMDLINE"} $hvemu_no_reboot $HVEMU_ARGS "$@" \
		</dev/null >"$log" 2>&1
	status=$?
	want_pass=1 want_shutdown=4 want_reset=14 want_shutdown_port=16 want_power_off=16
	;;
qemu)
	command -v "$emu" >/dev/null 2>&1 || { echo "SKIP: qemu not installed"; exit 77; }
	# QEMU_GUEST_CPU selects a -cpu model (e.g. max, Haswell, pentium3).
	# shellcheck disable=SC2086  # QEMU_ARGS is a word list on purpose
	timeout 120 "$emu" ${QEMU_GUEST_CPU:+-cpu "$QEMU_GUEST_CPU"} -kernel "$elf" \
		-append "quirk=qemu-tcg${GUEST_CMDLINE:+ $GUEST_CMDLINE}" \
		${GUEST_MODULES:+-initrd "$(printf '%s' "$GUEST_MODULES" | tr '|' ',')"} \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 $QEMU_ARGS \
		-serial stdio -display none -monitor none $qemu_no_reboot -m 128 \
		</dev/null >"$log" 2>&1
	status=$?
	want_pass=1 want_shutdown=0 want_reset=0 want_shutdown_port=1 want_power_off=0
	;;
*)
	echo "unknown mode $mode"; exit 99 ;;
esac

case $expect in
pass|reboot) want=$want_pass expect=pass ;;
shutdown) want=$want_shutdown ;;
reset) want=$want_reset ;;
shutdown-port) want=$want_shutdown_port ;;
power-off) want=$want_power_off ;;
*) echo "unknown expectation $expect"; exit 99 ;;
esac

cat "$log"

# The guest checked nothing: meson's SKIP, or a failure where it must check.
skipped() {
	if [ "$GUEST_MUST_CHECK" = 1 ]; then
		echo "FAIL: $1, but this run's CPU model has what the guest tests"
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}

if grep -v '# TODO' "$log" | grep -q '^not ok'; then
	echo "FAIL: guest reported failing checks"
	exit 1
fi
if [ "$expect" = pass ] && [ "$status" -eq "$status_skipped" ] &&
	grep -Eq '^1\.\.0 # SKIP|^# SKIP all' "$log"; then
	skipped "the guest checked nothing (isa-debug-exit GUEST_EXIT_SKIPPED)"
fi
if [ "$status" -ne "$want" ]; then
	echo "FAIL: $mode exit status $status, expected $want ($expect)"
	exit 1
fi
case $expect in
reset|shutdown-port|power-off)
	if ! grep -q '^# the run ends here' "$log"; then
		echo "FAIL: the run ended before the guest's \"# the run ends here\""
		exit 1
	fi
	exit 0 ;;
esac
[ "$expect" = pass ] || exit 0

# A pass must show its TAP plan, as many test lines as planned, and at least
# one line that is not a skip.
plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
lines=$(grep -Ec '^(not )?ok( |$)' "$log")
checked=$(grep -E '^(not )?ok( |$)' "$log" | grep -vc '# SKIP')
if [ -z "$plan" ]; then
	echo "FAIL: no TAP plan (1..N) in the guest's log"
	exit 1
fi
if [ "$plan" -ne "$lines" ]; then
	echo "FAIL: TAP plan 1..$plan but $lines test lines"
	exit 1
fi
[ "$checked" -gt 0 ] || skipped "TAP plan 1..$plan with no check that ran"
exit 0
