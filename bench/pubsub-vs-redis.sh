#!/bin/sh
# pubsub-vs-redis.sh -- PUBLISH fan-out, scratchpad-server and redis-server side
# by side: messages delivered per second to 1, 10 and 100 subscribers of one
# channel, with one publisher pipelining PUBLISH (bench/pubsub_load.c, built
# here with cc into $BUILD/bench/pubsub_load).
#
# The servers run on CPU 0 and the load on CPU 1 (taskset) when the machine has
# two CPUs or more; each measurement gets a freshly started server, the servers
# alternate for ROUNDS rounds and the median is reported. Every server is
# started on a free port by this script and stopped by its PID. A benchmark,
# not a test: the report (Markdown) goes to standard output.
#
# Environment (all optional):
#   SERVER, REDIS_SERVER   the binaries (default $BUILD/scratchpad-server, redis-server)
#   ROUNDS                 rounds per server (default 3)
#   SUBSCRIBERS            subscriber counts (default "1 10 100")
#   DELIVERIES             messages delivered per test (default 2000000)
#   PIPELINE, PAYLOAD      PUBLISHes per pipeline (16), message bytes (32)
#   SERVER_CPU, BENCH_CPU  CPUs to pin to (default 0 and 1)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$top/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
ROUNDS=${ROUNDS:-3}
SUBSCRIBERS=${SUBSCRIBERS:-"1 10 100"}
DELIVERIES=${DELIVERIES:-2000000}
PIPELINE=${PIPELINE:-16}
PAYLOAD=${PAYLOAD:-32}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
load=$top/$BUILD/bench/pubsub_load
work=$(mktemp -d "${TMPDIR:-/tmp}/pubsub-bench-XXXXXX")
pid=

cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

mkdir -p "$(dirname "$load")"
cc -O2 -Wall -o "$load" "$top/bench/pubsub_load.c" || exit 1
say() { echo "$*" >&2; }
. "$top/bench/lib.sh"
bench_pin "the load"

measure() { # kind subscribers -> delivered per second
    bench_server "$1"
    n=$((DELIVERIES / $2))
    $PIN_BENCH "$load" "$port" "$2" "$n" "$PIPELINE" "$PAYLOAD" | sed 's/.*delivered_per_sec=//'
    bench_server_stop
}

echo "# PUBLISH fan-out: messages delivered per second"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, servers on CPU ${SERVER_CPU}, load on CPU ${BENCH_CPU};" \
     "one publisher pipelining $PIPELINE PUBLISHes of $PAYLOAD bytes; median of $ROUNDS rounds."
echo
echo "| subscribers | scratchpad-server | redis-server | ratio |"
echo "|---:|---:|---:|---:|"
for s in $SUBSCRIBERS; do
    : >"$work/sp"
    : >"$work/redis"
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        echo "subscribers $s round $((r + 1))" >&2
        measure scratchpad "$s" >>"$work/sp"
        measure redis "$s" >>"$work/redis"
        r=$((r + 1))
    done
    a=$(bench_median <"$work/sp")
    b=$(bench_median <"$work/redis")
    echo "| $s | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |"
done
