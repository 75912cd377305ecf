#!/bin/sh
# blpop-latency.sh -- the BLPOP round trip, scratchpad-server and redis-server side by side.
#
# $BUILD/blpop-latency (bench/blpop_latency.c) times N round trips of "push on
# one client, BLPOP wakes on another" (the popper is blocked before each push).
# The servers are measured in alternation (scratchpad, redis, scratchpad, ...)
# for ROUNDS rounds, each on a freshly started server, pinned as
# bench/vs-redis.sh pins them (servers on SERVER_CPU, the probe on BENCH_CPU),
# persistence off on both. Reported per server: the median over the rounds of
# p50 and p99, and the largest max. A benchmark, not a test: it asserts
# nothing. The report (Markdown) goes to standard output, progress to
# standard error.
#
# Environment (all optional): SERVER, REDIS_SERVER, BUILD (build), N (20000
# round trips per run), ROUNDS (3), SERVER_CPU / BENCH_CPU (0 / 1), FEED (1: also
# the change feed's round trip on each scratchpad server, SP.CHANGES ... BLOCK woken
# by SP.WRITE, reported as the row "feed"; redis has no such command).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
PROBE=${PROBE:-$TOP/$BUILD/blpop-latency}
N=${N:-20000}
ROUNDS=${ROUNDS:-3}
FEED=${FEED:-0}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}

say() { echo "$*" >&2; }
die() { say "blpop-latency: $*"; exit 1; }

for bin in "$SERVER" "$REDIS_SERVER" "$PROBE"; do
    command -v "$bin" >/dev/null 2>&1 || die "$bin not found (run make, and install redis-server)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/blpop-latency.XXXXXX") || die "cannot create a temporary directory"
SPID=""
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$TOP/bench/lib.sh"
bench_pin "the probe"

# start_server scratchpad|redis: a fresh server on a free port; sets SPID, SPORT.
start_server() {
    SPORT=$(free_port)
    if [ "$1" = scratchpad ]; then
        $PIN_SERVER "$SERVER" --port "$SPORT" --bind 127.0.0.1 --appendonly no --dir "$WORK" >"$WORK/sp.log" 2>&1 &
    else
        $PIN_SERVER "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
            --daemonize no >"$WORK/redis.log" 2>&1 &
    fi
    SPID=$!
    i=0
    while [ $i -lt 100 ]; do
        "$PROBE" "$SPORT" 1 >/dev/null 2>&1 && return 0
        sleep 0.05
        i=$((i + 1))
    done
    die "$1 did not start"
}

stop_server() {
    kill "$SPID" 2>/dev/null
    wait "$SPID" 2>/dev/null
    SPID=""
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
: >"$WORK/results"
r=1
while [ $r -le "$ROUNDS" ]; do
    for kind in scratchpad redis; do
        start_server "$kind"
        line=$($PIN_BENCH "$PROBE" "$SPORT" "$N")
        say "round $r $kind: $line"
        echo "$kind $line" >>"$WORK/results"
        if [ "$kind" = scratchpad ] && [ "$FEED" = 1 ]; then
            line=$($PIN_BENCH "$PROBE" "$SPORT" "$N" feed)
            say "round $r scratchpad SP.CHANGES BLOCK: $line"
            echo "feed $line" >>"$WORK/results"
        fi
        stop_server
    done
    r=$((r + 1))
done

field() { # kind name: the values of name= for kind, one a line
    awk -v k="$1" -v f="$2" '$1 == k { for (i = 2; i <= NF; i++) if (index($i, f "=") == 1) print substr($i, length(f) + 2) }' "$WORK/results"
}
median() {
    sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# BLPOP round trip: scratchpad-server vs redis-server"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc 2>/dev/null || echo '?') CPUs; pinning: $PINNING"
echo "- load average at start: ${LOAD_START:-?}, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "- $ROUNDS rounds of $N round trips per server, alternating, fresh server per round"
echo
echo "| server | p50 (us, median of rounds) | p99 (us, median of rounds) | max (us, largest) |"
echo "|---|---:|---:|---:|"
for kind in scratchpad redis $([ "$FEED" = 1 ] && echo feed); do
    echo "| $kind | $(field $kind p50 | median) | $(field $kind p99 | median) | $(field $kind max | sort -n | tail -n 1) |"
done
