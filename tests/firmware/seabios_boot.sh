#!/bin/bash
# Debian's SeaBIOS (the BIOS QEMU runs) as --bios, its log read through
# --debugcon (port 402h): it must find fw_cfg and its e820 map, probe the PCI
# bus, set up its tables and reach its boot menu's end ("No bootable
# device": the machine has no disks), sleeping in HLT between retries.
#
#   seabios_boot.sh HVEMU WORKDIR
#
# Exits 77 (SKIP) when the seabios package is not installed.
set -u
HVEMU=$1 WORK=$2
BIOS=/usr/share/seabios/bios-256k.bin
[ -f "$BIOS" ] || { echo "SKIP: $BIOS not installed (package seabios)"; exit 77; }
mkdir -p "$WORK" || exit 1
LOG=$WORK/seabios.log
"$HVEMU" run --bios "$BIOS" --max-insns 400000000 --debugcon "file:$LOG" --serial none 2>"$WORK/seabios.err"
status=$?
cat "$LOG"
fail=0
[ $status -eq 6 ] || { echo "FAIL: status $status, want 6 (the instruction limit)"; cat "$WORK/seabios.err"; fail=1; }
for want in "SeaBIOS (version" "Found QEMU fw_cfg" "qemu/e820: addr 0x0000000000100000" \
	"PCI: init bdf=00:00.0 id=8086:1237" "e820 map has" "No bootable device"; do
	grep -qF "$want" "$LOG" || { echo "FAIL: the log lacks '$want'"; fail=1; }
done
exit $fail
