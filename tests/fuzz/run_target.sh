#!/bin/sh
# Run one libFuzzer target for a set time and report it as a test case.
#
#   sh tests/fuzz/run_target.sh NAME SECONDS [keep]
#
# Runs $FUZZ_BUILD/tests/fuzz/fuzz_NAME (default build-fuzz/) on its seed corpus,
# tests/fuzz/corpus/NAME/, which libFuzzer first replays whole (so every crash
# input kept there as a regression case runs each time), then mutates for
# SECONDS seconds. New inputs go to a temporary directory, removed at the end,
# or with "keep" to $FUZZ_BUILD/corpus/NAME/, which a later long run starts from.
# The seed corpus in the tree is never written to.
#
# Prints "ok - fuzz target NAME ran N inputs ..." or "not ok - ..." followed by
# the end of libFuzzer's output (the sanitizer's report) and the path of the
# input that failed, kept in $FUZZ_BUILD/fuzz-artifacts/NAME/. A target that is
# not built is reported "ok - ... # SKIP" (make fuzz-build builds it; make test
# and make fuzz do). Exit status 1 on failure.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
name=$1
secs=${2:-3}
bin="$TOP/$FUZZ_BUILD/tests/fuzz/fuzz_$name"
seeds="$TOP/tests/fuzz/corpus/$name"
arts="$TOP/$FUZZ_BUILD/fuzz-artifacts/$name"

if [ ! -x "$bin" ]; then
    echo "ok - fuzz target $name # SKIP not built (make fuzz-build)"
    exit 0
fi
mkdir -p "$arts" || exit 1
if [ "${3:-}" = keep ]; then
    work="$TOP/$FUZZ_BUILD/corpus/$name"
    mkdir -p "$work" || exit 1
    tmp=""
else
    tmp=$(mktemp -d) || exit 1
    work=$tmp
fi
# A target whose seed folder is missing still runs, from nothing.
[ -d "$seeds" ] || seeds=""
out=$(mktemp) || exit 1
trap 'rm -f "$out"; [ -n "$tmp" ] && rm -rf "$tmp"' EXIT

# stderr of the target itself is closed (-close_fd_mask=2: the configuration
# parser prints an error per bad line); libFuzzer and the sanitizers keep
# writing their reports to a copy of it.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -close_fd_mask=2 -artifact_prefix="$arts/" "$work" ${seeds:+"$seeds"} >"$out" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$out" | tail -n 1)
if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
    echo "ok - fuzz target $name ran $runs inputs in ${secs} s ($cov) with no crash, leak, timeout or UB report"
    exit 0
fi
echo "not ok - fuzz target $name failed (exit status $rc after ${runs:-?} inputs)"
tail -n 60 "$out" | sed 's/^/    /'
ls -t "$arts" 2>/dev/null | head -n 3 | sed "s|^|    failing input kept: $arts/|"
exit 1
