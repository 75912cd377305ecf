#!/bin/sh
# lock-vs-redis.sh -- redis-py's Lock under contention (acquire = SET NX PX, release = EVALSHA of
# redis-py's script), scratchpad-server and redis-server side by side: CLIENTS (20) connections
# of bench/lock_load.c (built here with cc -lhiredis into $BUILD/bench/lock_load) for SECONDS (5),
# acquire/release pairs per second. Servers on CPU 0, load on CPU 1, a fresh server per
# measurement, alternating for ROUNDS (3) rounds; medians. Servers on free ports, stopped by
# PID. A benchmark, not a test: the report (Markdown) goes to standard output.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$top/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-20}
SECONDS_=${SECONDS:-5}
load=$top/$BUILD/bench/lock_load
work=$(mktemp -d "${TMPDIR:-/tmp}/lock-bench-XXXXXX")
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM
mkdir -p "$(dirname "$load")"
cc -O2 -Wall -o "$load" "$top/bench/lock_load.c" -lhiredis || exit 1
say() { echo "$*" >&2; }
SERVER_CPU=0
BENCH_CPU=1
. "$top/bench/lib.sh"
bench_pin "the clients"
measure() { # kind -> pairs per second
    bench_server "$1"
    $PIN_BENCH "$load" "$port" "$CLIENTS" "$SECONDS_" | sed 's/.*pairs_per_sec=//'
    bench_server_stop
}
: >"$work/sp"
: >"$work/redis"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    measure scratchpad >>"$work/sp"
    measure redis >>"$work/redis"
    r=$((r + 1))
done
a=$(bench_median <"$work/sp")
b=$(bench_median <"$work/redis")
echo "# redis-py Lock under contention: acquire/release pairs per second"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, servers on CPU 0, $CLIENTS clients on CPU 1 for ${SECONDS_} s;" \
     "median of $ROUNDS rounds (scratchpad: $(tr '\n' ' ' <"$work/sp"); redis: $(tr '\n' ' ' <"$work/redis"))."
echo
echo "| clients | scratchpad-server | redis-server | ratio |"
echo "|---:|---:|---:|---:|"
echo "| $CLIENTS | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |"
