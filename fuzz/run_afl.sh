#!/bin/sh
# A time-boxed AFL++ run of one fuzz target, for `meson test` in a
# -Dfuzzing_engine=afl build:
#   run_afl.sh TARGET SEEDS OUTDIR SECONDS
# Exit 77 (skipped) without afl-fuzz; 1 if the run found a crash or a hang
# (kept in OUTDIR/default/crashes, hangs; replay with `TARGET FILE`).
set -u
target=$1 seeds=$2 out=$3 seconds=$4

if ! command -v afl-fuzz >/dev/null 2>&1; then
	echo "run_afl.sh: afl-fuzz not found (Debian: apt-get install afl++)"
	exit 77
fi
rm -rf "$out"
# A shared test machine: no UI, no CPU pinning, no frequency or core_pattern
# demands (a crash still shows as the target's abort), and a short
# calibration. -t: an exec is bounded (4096 instructions), 5 s is a hang.
AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
AFL_FAST_CAL=1 AFL_QUIET=1 AFL_SKIP_CRASHES=0 \
	afl-fuzz -V "$seconds" -t 5000 -m none -i "$seeds" -o "$out" -- "$target" >"$out.log" 2>&1
rc=$?
stats=$out/default/fuzzer_stats
if [ -f "$stats" ]; then
	grep -E '^(execs_done|execs_per_sec|corpus_count|bitmap_cvg|saved_crashes|saved_hangs) ' "$stats"
fi
if [ $rc -ne 0 ] || [ ! -f "$stats" ]; then
	tail -n 30 "$out.log"
	echo "run_afl.sh: afl-fuzz exited $rc"
	exit 1
fi
found=$(find "$out/default/crashes" "$out/default/hangs" -type f ! -name README.txt 2>/dev/null | wc -l)
if [ "$found" -ne 0 ]; then
	find "$out/default/crashes" "$out/default/hangs" -type f ! -name README.txt
	exit 1
fi
exit 0
