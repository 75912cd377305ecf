#!/bin/sh
# Run every test program and add up their results.
#
# Each program prints one line per case, "ok - ..." or "not ok - ...". A program
# that exits non-zero without printing a failing case counts as one failure (it
# crashed or timed out). The last line is "N passed, N failed".
#
#   tests/unit/test_*.c          built into $BUILD/tests/unit/, run as they are
#   tests/integration/*.c        built into $BUILD/tests/integration/
#   tests/integration/*.sh       run with sh
#   tests/integration/*.py       run with /usr/bin/python3 (Debian's, with python3-redis)
#   tests/integration/*.js       run with node, clients from tests/clients/node
#   $BUILD/tests/extra/*         test programs built by component fragments
#                                (client/client.mk, bench/bench.mk)
#   tests/fuzz/fuzz_*.c          libFuzzer targets built into $FUZZ_BUILD (default
#                                build-fuzz/, make fuzz-build), each run FUZZ_BRIEF
#                                seconds (default 3) by tests/fuzz/run_target.sh
#   tests/fuzz/cmdfuzz.py        the command fuzzer, against $FUZZ_BUILD's ASan
#                                server, bounded (20 s)
#
# Environment given to every program: SERVER (the server binary), BUILD, TOP.
# TESTS=pattern runs only the programs whose path contains pattern.
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
export TOP BUILD
export SERVER="$TOP/$BUILD/scratchpad-server"
export CHECK_AOF="$TOP/$BUILD/scratchpad-check-aof"
export NODE_PATH="$TOP/tests/clients/node/node_modules"
LIMIT=${TEST_TIMEOUT:-300}
passed=0
failed=0
failures=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_one() {
    name=$1; shift
    case "$name" in *"${TESTS:-}"*) ;; *) return ;; esac
    echo "== $name"
    timeout -k 10 "$LIMIT" "$@" >"$out" 2>&1
    rc=$?
    cat "$out"
    p=$(grep -c '^ok - ' "$out")
    f=$(grep -c '^not ok - ' "$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "not ok - $name exited with status $rc"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -gt 0 ] && failures="$failures $name"
}

for t in "$TOP"/tests/unit/test_*.c; do
    [ -e "$t" ] || continue
    b="$TOP/$BUILD/tests/unit/$(basename "$t" .c)"
    run_one "unit/$(basename "$t" .c)" "$b"
done
for t in "$TOP"/tests/integration/*; do
    case "$t" in
    *.c)  run_one "integration/$(basename "$t")" "$TOP/$BUILD/tests/integration/$(basename "$t" .c)" ;;
    *.sh) run_one "integration/$(basename "$t")" sh "$t" ;;
    *.py) run_one "integration/$(basename "$t")" /usr/bin/python3 "$t" ;;
    *.js) run_one "integration/$(basename "$t")" node "$t" ;;
    esac
done
for t in "$TOP/$BUILD"/tests/extra/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    case "$t" in *.d|*.o) continue ;; esac
    run_one "extra/$(basename "$t")" "$t"
done
for t in "$TOP"/tests/fuzz/fuzz_*.c; do
    [ -e "$t" ] || continue
    n=$(basename "$t" .c)
    run_one "fuzz/$n" sh "$TOP/tests/fuzz/run_target.sh" "${n#fuzz_}" "${FUZZ_BRIEF:-3}"
done
run_one "fuzz/cmdfuzz.py" /usr/bin/python3 "$TOP/tests/fuzz/cmdfuzz.py"
[ -n "$failures" ] && echo "failing programs:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
