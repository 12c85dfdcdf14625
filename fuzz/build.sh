#!/bin/sh
# Build the fuzz targets for a fuzzing engine, OSS-Fuzz style.
#
# Inside OSS-Fuzz (or anything that sets its variables: $OUT, $WORK, $CC,
# $CFLAGS, $FUZZING_ENGINE = libfuzzer or afl), run with no arguments: one
# build in $WORK/hvemu-build, each target copied to $OUT with its seed corpus
# as $OUT/<target>_seed_corpus.zip.
#
# On a machine, name the engines (default: all) and add --test to run each
# build's time-boxed `meson test --suite fuzz`:
#   fuzz/build.sh [--test] [libfuzzer] [afl]
# Each engine found is built in build-fuzz-<engine> (BUILD_PREFIX changes the
# prefix, SANITIZE=address,undefined adds sanitizers, JOBS=n limits ninja's
# parallel jobs); an engine that is not
# installed is skipped and said so (Debian 12: clang for libFuzzer, afl++ for
# AFL++). Exit 1 if a build or a test fails.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
targets="svm_exit_fuzz vmx_exit_fuzz vmcb_fuzz decode_fuzz cpu_fuzz blockdiff_fuzz"

# The meson options of an engine's build; the compiler comes from $CC.
setup() {  # builddir engine [meson options...]
	dir=$1 engine=$2
	shift 2
	if [ ! -d "$dir" ]; then
		# b_lundef=false: -fsanitize=fuzzer-no-link leaves the callbacks
		# to the final link; tests: the unit suites are not fuzz targets.
		meson setup "$dir" "$src" -Dfuzzing_engine="$engine" -Db_lundef=false \
			-Dtests=disabled -Dsdl=disabled "$@"
	fi
	targets_paths=""
	for t in $targets; do
		targets_paths="$targets_paths fuzz/$t"
	done
	# shellcheck disable=SC2086
	ninja -C "$dir" ${JOBS:+-j "$JOBS"} $targets_paths
}

if [ $# -eq 0 ] && [ -n "${OUT:-}" ] && [ -n "${FUZZING_ENGINE:-}" ]; then
	# OSS-Fuzz: $CFLAGS carries its sanitizer and coverage flags; the
	# build type is plain so they decide the optimisation.
	case $FUZZING_ENGINE in
	libfuzzer | afl) ;;
	*) echo "build.sh: engine $FUZZING_ENGINE not supported (libfuzzer, afl)" >&2; exit 1 ;;
	esac
	setup "${WORK:-/tmp}/hvemu-build" "$FUZZING_ENGINE" --buildtype=plain
	for t in $targets; do
		cp "${WORK:-/tmp}/hvemu-build/fuzz/$t" "$OUT/"
		(cd "$src/fuzz/corpus/$t" && python3 -m zipfile -c "$OUT/${t}_seed_corpus.zip" ./*)
	done
	exit 0
fi

run_tests=no
engines=""
for a in "$@"; do
	case $a in
	--test) run_tests=yes ;;
	libfuzzer | afl) engines="$engines $a" ;;
	*) echo "usage: fuzz/build.sh [--test] [libfuzzer] [afl]" >&2; exit 2 ;;
	esac
done
[ -n "$engines" ] || engines="libfuzzer afl"
prefix=${BUILD_PREFIX:-build-fuzz}
sanitize=${SANITIZE:-none}
status=0

for engine in $engines; do
	dir=$prefix-$engine
	case $engine in
	libfuzzer)
		cc=${LIBFUZZER_CC:-clang}
		probe=$(mktemp -d)
		printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
			'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
			>"$probe/p.c"
		if ! "$cc" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
			echo "build.sh: libfuzzer skipped: $cc -fsanitize=fuzzer does not link (Debian: apt-get install clang)"
			rm -rf "$probe"
			continue
		fi
		rm -rf "$probe"
		;;
	afl)
		cc=${AFL_CC:-afl-clang-fast}
		if ! command -v "$cc" >/dev/null 2>&1 || ! command -v afl-fuzz >/dev/null 2>&1; then
			echo "build.sh: afl skipped: $cc or afl-fuzz not found (Debian: apt-get install afl++)"
			continue
		fi
		export AFL_QUIET=1
		;;
	esac
	echo "build.sh: $engine in $dir (CC=$cc, sanitize=$sanitize)"
	if ! CC=$cc setup "$dir" "$engine" -Db_sanitize="$sanitize"; then
		status=1
		continue
	fi
	if [ $run_tests = yes ] && ! meson test -C "$dir" --suite fuzz --print-errorlogs; then
		status=1
	fi
done
exit $status
