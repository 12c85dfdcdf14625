#!/bin/sh
# Determinism: runs a guest twice under hvemu with the same arguments and
# --trace exc (every exception and interrupt, with the registers at delivery)
# and fails unless both runs print exactly the same (COM1 and the trace) and
# end with the same status.
# usage: run-twice.sh HVEMU ELF [hvemu options...]   (the direct start,
# --firmware none, unless the options name a firmware)
set -u
emu=$1 elf=$2
shift 2
a=$(mktemp) b=$(mktemp) || exit 99
trap 'rm -f "$a" "$b"' EXIT
direct="--firmware none"
case " $* " in
*" --firmware seabios "*)
	direct=
	[ -r /usr/share/seabios/bios-256k.bin ] && [ -r /usr/share/qemu/multiboot_dma.bin ] ||
		{ echo "SKIP: Debian's seabios or qemu-system-data is not installed"; exit 77; } ;;
*" --firmware "*) direct= ;;
esac
# shellcheck disable=SC2086  # $direct is two words or none
timeout 300 "$emu" run $direct --kernel "$elf" --serial stdio --trace exc --max-insns 200000000 "$@" \
	</dev/null >"$a" 2>&1
sa=$?
# shellcheck disable=SC2086  # $direct is two words or none
timeout 300 "$emu" run $direct --kernel "$elf" --serial stdio --trace exc --max-insns 200000000 "$@" \
	</dev/null >"$b" 2>&1
sb=$?
if [ "$sa" -ne "$sb" ] || ! cmp -s "$a" "$b"; then
	echo "FAIL: two runs differ (status $sa, $sb)"
	diff "$a" "$b" | head -40
	exit 1
fi
lines=$(grep -c . "$a")
echo "two runs identical: status $sa, $lines lines of output and trace"
[ "$sa" -eq 1 ] || { echo "FAIL: the guest did not pass (status $sa)"; exit 1; }
exit 0
