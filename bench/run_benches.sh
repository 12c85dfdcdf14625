#!/bin/sh
# make bench / ninja bench: the guest benchmarks (bench_run GUEST...), then the
# TLB context-switch micro-benchmark.
bench_run=$1 ctx_switch=$2
shift 2
"$bench_run" "$@" && "$ctx_switch"
