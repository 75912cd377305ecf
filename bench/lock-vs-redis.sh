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
free_port() {
    /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
measure() { # kind -> pairs per second
    port=$(free_port)
    if [ "$1" = scratchpad ]; then
        taskset -c 0 "$SERVER" --port "$port" --dir "$work/sp-$port" --appendonly no >/dev/null 2>&1 &
    else
        taskset -c 0 "$REDIS_SERVER" --port "$port" --save '' --appendonly no --dir "$work" >/dev/null 2>&1 &
    fi
    pid=$!
    for _ in $(seq 100); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.05
    done
    taskset -c 1 "$load" "$port" "$CLIENTS" "$SECONDS_" | sed 's/.*pairs_per_sec=//'
    kill "$pid"
    wait "$pid" 2>/dev/null
    pid=
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$work/sp"
: >"$work/redis"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    measure scratchpad >>"$work/sp"
    measure redis >>"$work/redis"
    r=$((r + 1))
done
a=$(median <"$work/sp")
b=$(median <"$work/redis")
echo "# redis-py Lock under contention: acquire/release pairs per second"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, servers on CPU 0, $CLIENTS clients on CPU 1 for ${SECONDS_} s;" \
     "median of $ROUNDS rounds (scratchpad: $(tr '\n' ' ' <"$work/sp"); redis: $(tr '\n' ' ' <"$work/redis"))."
echo
echo "| clients | scratchpad-server | redis-server | ratio |"
echo "|---:|---:|---:|---:|"
echo "| $CLIENTS | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |"
