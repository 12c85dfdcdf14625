#!/bin/sh
# Runs an entry of the repro catalog and maps the result to a meson one.
# usage: run-repro.sh spec HVEMU NAME [hvemu run options]
#        run-repro.sh observed HVEMU NAME OBSERVED [hvemu run options]
#        run-repro.sh livelock HVEMU NAME [hvemu run options]
#        run-repro.sh qemu QEMU ELF OBSERVED
# spec:     `hvemu repro run NAME [options]` must pass as the manual says:
#           exit status 1, a TAP plan 1..N matching its N test lines, no
#           "not ok", at least one test line that is not a SKIP.
# observed: the run's "# observed ..." lines must be the lines of the file
#           OBSERVED (without its comments), in order, and the guest must
#           have ended through isa-debug-exit (an odd status) having checked
#           something.
# livelock: the run must end through hvemu's livelock detector (status 18)
#           on an intercepted #PF whose EXITINFO2 has bits above 31 set.
# qemu:     the same comparison for the ELF under qemu-system-x86_64 -cpu max
#           (skipped, 77, without QEMU).
set -u
mode=$1 emu=$2 what=$3
shift 3
log=$(mktemp) || exit 99
want=$(mktemp) || exit 99
got=$(mktemp) || exit 99
trap 'rm -f "$log" "$want" "$got"' EXIT

case $mode in
spec)
	timeout 600 "$emu" repro run "$what" "$@" </dev/null >"$log" 2>&1
	status=$?
	cat "$log"
	if grep -q '^not ok' "$log"; then
		echo "FAIL: the guest reported failing checks"
		exit 1
	fi
	if [ "$status" -ne 1 ]; then
		echo "FAIL: exit status $status, expected 1 (the guest passed)"
		exit 1
	fi
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	lines=$(grep -Ec '^(not )?ok( |$)' "$log")
	checked=$(grep -E '^ok( |$)' "$log" | grep -vc '# SKIP')
	if [ -z "$plan" ] || [ "$plan" -ne "$lines" ] || [ "$checked" -eq 0 ]; then
		echo "FAIL: TAP plan '1..$plan', $lines test lines, $checked checks that ran"
		exit 1
	fi
	exit 0
	;;
livelock)
	timeout 600 "$emu" repro run "$what" "$@" </dev/null >"$log" 2>&1
	status=$?
	cat "$log"
	if [ "$status" -ne 18 ]; then
		echo "FAIL: exit status $status, expected 18 (livelock)"
		exit 1
	fi
	if ! grep -q '^hvemu: livelock: svm exit VMEXIT_EXCP_PF (0x4e) at ' "$log" ||
		! grep -Eq '^vmexit #[0-9]+ svm VMEXIT_EXCP_PF .* info2=0x1[0-9a-f]{8} ' "$log"; then
		echo "FAIL: no livelock report on a #PF exit with EXITINFO2 above 4 GiB"
		exit 1
	fi
	exit 0
	;;
observed)
	observed=$1
	shift
	timeout 600 "$emu" repro run "$what" "$@" </dev/null >"$log" 2>&1
	status=$?
	;;
qemu)
	observed=$1
	command -v "$emu" >/dev/null 2>&1 || { echo "SKIP: qemu not installed"; exit 77; }
	timeout 600 "$emu" -cpu max -kernel "$what" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-serial stdio -display none -monitor none -no-reboot -m 128 \
		</dev/null >"$log" 2>&1
	status=$?
	;;
*)
	echo "unknown mode $mode"
	exit 99
	;;
esac

cat "$log"
grep -v '^#' "$observed" | grep -v '^$' >"$want"
tr -d '\r' <"$log" | sed -n 's/^# \(observed .*\)$/\1/p' >"$got"
if [ $((status % 2)) -ne 1 ] || [ "$status" -eq 255 ]; then
	echo "FAIL: exit status $status: the guest did not end through isa-debug-exit having checked something"
	exit 1
fi
if ! diff -u "$want" "$got"; then
	echo "FAIL: the observed values differ from $observed (- recorded, + this run)"
	exit 1
fi
echo "the $(wc -l <"$got") observed lines are those of $observed"
exit 0
