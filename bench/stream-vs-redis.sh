#!/bin/sh
# stream-vs-redis.sh -- streams, scratchpad-server and redis-server side by side:
#   XADD s * f v at -P 1 and -P 16 (redis-benchmark, 50 clients), requests per second;
#   consumer-group throughput: one producer XADDing (pipelines of 100) while 10 consumers
#   XREADGROUP COUNT 10 BLOCK 100 and XACK what they got (bench/stream_load.c, built here
#   with cc and -lhiredis into $BUILD/bench/stream_load), entries acknowledged per second.
# Servers on CPU 0, load on CPU 1, a fresh server per measurement, the servers alternating
# for ROUNDS rounds; medians. Every server is started on a free port and stopped by its PID.
# A benchmark, not a test: the report (Markdown) goes to standard output.
#
# Environment (all optional): SERVER, REDIS_SERVER, ROUNDS (3), XADDS (redis-benchmark
# requests, 400000), ENTRIES (consumer test, 300000), CONSUMERS (10), SERVER_CPU, BENCH_CPU.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$top/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
ROUNDS=${ROUNDS:-3}
XADDS=${XADDS:-400000}
ENTRIES=${ENTRIES:-300000}
CONSUMERS=${CONSUMERS:-10}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
load=$top/$BUILD/bench/stream_load
work=$(mktemp -d "${TMPDIR:-/tmp}/stream-bench-XXXXXX")
pid=

cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$(dirname "$load")"
cc -O2 -Wall -o "$load" "$top/bench/stream_load.c" -lhiredis -lpthread || exit 1
say() { echo "$*" >&2; }
. "$top/bench/lib.sh"
bench_pin "the load"

measure() { # kind test -> one figure
    bench_server "$1"
    case $2 in
    xadd-P1 | xadd-P16)
        $PIN_BENCH redis-benchmark -p "$port" -c 50 -n "$XADDS" -P "${2#xadd-P}" -q xadd bench:x '*' f v |
            tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1 ;;
    consumers)
        $PIN_BENCH "$load" "$port" "$CONSUMERS" "$ENTRIES" | sed 's/.*acked_per_sec=//' ;;
    esac
    bench_server_stop
}

echo "# Streams: XADD and a consumer group"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, servers on CPU ${SERVER_CPU}, load on CPU ${BENCH_CPU};" \
     "median of $ROUNDS rounds, a fresh server per measurement."
echo
echo "| test | scratchpad-server | redis-server | ratio |"
echo "|---|---:|---:|---:|"
for t in xadd-P1 xadd-P16 consumers; do
    : >"$work/sp"
    : >"$work/redis"
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        echo "$t round $((r + 1))" >&2
        measure scratchpad "$t" >>"$work/sp"
        measure redis "$t" >>"$work/redis"
        r=$((r + 1))
    done
    a=$(bench_median <"$work/sp")
    b=$(bench_median <"$work/redis")
    echo "| $t | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |"
done
