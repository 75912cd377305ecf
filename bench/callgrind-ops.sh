#!/bin/sh
# callgrind-ops.sh -- instructions per request of scratchpad-server for a few key
# operations, counted by valgrind's callgrind (for machines whose perf cannot
# read hardware counters, as a VM; the count does not depend on the machine's load).
#
# The server runs under callgrind on CPU 0 (redis-benchmark on CPU 1), is filled
# with redis-benchmark -t set -r 100000 -n 300000 -d 16 -P 16, then each
# operation runs N requests (-P 16, -c 50) with the counters zeroed before and
# dumped after. Two figures per operation: the instructions inside cmd_call (the
# command itself: lookups, the value, the TTL; callgrind's inclusive count,
# steady from run to run) and of the whole process (parsing, replies, system
# call wrappers and the cron, which runs by wall time and so moves by some tens
# of instructions per request between runs). Operations, in this order:
#   get         GET key:__rand_int__ of the 100000 keys filled
#   set         SET of the same keys (each exists)
#   del         DEL of the same keys (the first of each deletes it)
#   setex-new   SET xkey:__rand_int__ (-r 100000000: new keys) 16 bytes EX 1000
#   setex-old   the same over 1000 keys (each exists with a TTL)
#   expire      EXPIRE key:__rand_int__ 1000 (-r 100000: keys deleted by del are
#               missing, the others get their first TTL)
# This is a benchmark, not a test: it asserts nothing. The figures go to standard
# output, one line per operation.
#
# Environment: SERVER (default: build/scratchpad-server), BASE (a second binary:
# measured after SERVER, its lines prefixed "base"), N (requests per operation,
# default 100000).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$TOP/build/scratchpad-server}
BASE=${BASE:-}
N=${N:-100000}

for bin in valgrind callgrind_control callgrind_annotate redis-benchmark redis-cli; do
    command -v "$bin" >/dev/null 2>&1 || { echo "callgrind-ops: $bin not found" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/callgrind-ops.XXXXXX") || exit 1
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$TOP/bench/lib.sh"
say() { echo "$*" >&2; }
SERVER_CPU=0
BENCH_CPU=1
bench_pin "redis-benchmark"

# measure LABEL BINARY
measure() {
    port=$(free_port)
    mkdir -p "$WORK/$port"
    (cd "$WORK/$port" && exec $PIN_SERVER valgrind --tool=callgrind --callgrind-out-file="$WORK/$port/cg.%p" \
        "$2" --port "$port" --bind 127.0.0.1 --appendonly no >"$WORK/$port/log" 2>&1) &
    PID=$!
    i=0
    while [ "$(redis-cli -p "$port" ping 2>/dev/null)" != PONG ] && [ $i -lt 150 ]; do
        sleep 0.2
        i=$((i + 1))
    done
    rb() { $PIN_BENCH redis-benchmark -p "$port" -P 16 -c 50 "$@" >/dev/null 2>&1; }
    rb -t set -r 100000 -n 300000 -d 16
    for op in get set del setex-new setex-old expire; do
        callgrind_control -z "$PID" >/dev/null 2>&1
        case $op in
        get | set) rb -t "$op" -r 100000 -n "$N" -d 16 ;;
        del) rb -r 100000 -n "$N" del key:__rand_int__ ;;
        setex-new) rb -r 100000000 -n "$N" set xkey:__rand_int__ xxxxxxxxxxxxxxxx ex 1000 ;;
        setex-old) rb -r 1000 -n "$N" set xkey:__rand_int__ xxxxxxxxxxxxxxxx ex 1000 ;;
        expire) rb -r 100000 -n "$N" expire key:__rand_int__ 1000 ;;
        esac
        callgrind_control -d "$PID" >/dev/null 2>&1
        f=$(ls -t "$WORK/$port"/cg.* | head -n 1)
        tot=$(sed -n 's/^totals: *//p' "$f" | awk '{ print $1 }')
        cmd=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null |
            awk '/commands\.c:cmd_call / { gsub(",", "", $1); print $1; exit }')
        awk -v l="$1" -v o="$op" -v c="${cmd:-0}" -v t="${tot:-0}" -v n="$N" \
            'BEGIN { printf "%s %-10s cmd_call %6.0f  process %6.0f  instructions/request\n", l, o, c / n, t / n }'
        rm -f "$f"
    done
    kill "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=""
}

measure server "$SERVER"
[ -n "$BASE" ] && measure base "$BASE"
exit 0
