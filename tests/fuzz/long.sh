#!/bin/sh
# make fuzz: every libFuzzer target for FUZZ_SECONDS seconds (default 60), one
# after the other, each starting from its seeds and from what earlier long runs
# found ($FUZZ_BUILD/corpus/NAME/, kept), then the command fuzzer as long
# against the ASan server (SEED for its seed). FUZZ_TARGETS="resp aof" runs
# only those targets ("cmd" names the command fuzzer). Prints the ok / not ok
# lines of tests/fuzz/run_target.sh and cmdfuzz.py; exit status 1 if any failed.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
export FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz} FUZZ_SECONDS
rc=0
targets=${FUZZ_TARGETS:-}
if [ -z "$targets" ]; then
    for t in "$TOP"/tests/fuzz/fuzz_*.c; do
        n=$(basename "$t" .c)
        targets="$targets ${n#fuzz_}"
    done
    targets="$targets cmd"
fi
for n in $targets; do
    if [ "$n" = cmd ]; then
        /usr/bin/python3 "$TOP/tests/fuzz/cmdfuzz.py" || rc=1
    else
        sh "$TOP/tests/fuzz/run_target.sh" "$n" "$FUZZ_SECONDS" keep || rc=1
    fi
done
exit $rc
