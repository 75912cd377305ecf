#!/bin/sh
# get-instr.sh -- the work of one GET, counted: user-space instructions per
# request (valgrind's callgrind) of GET -P 16 of one value, in each state the
# value can be in (bench/vs-redis.sh's GET states), for scratchpad-server
# binaries and redis-server.
#
# Why: on a shared machine requests per second move by 2x with the load, while
# an instruction count does not; it does not see the kernel's socket work, the
# same for both servers, nor cache misses, so it is a complement to
# vs-redis.sh, not a replacement.
#
# Each (binary, state) gets a fresh server under callgrind on a free port; the
# value is written with redis-cli -x (VALUE_FILE's bytes, by default SIZE bytes
# of bench/gen_logs.py's log text; VALUE_FILE=bench makes it redis-benchmark's
# own payload, random letters that LZ4 does not shrink), put in its state with CONFIG SET and INFO polling as in
# vs-redis.sh, read 2000 times to warm up, then the counters are zeroed, N GETs
# run (-P 16 -c 4) and the counters dumped: Ir / N.
#
# Environment (all optional):
#   SERVERS      scratchpad-server binaries (default: $BUILD/scratchpad-server)
#   REDIS_SERVER redis-server binary, "none" to skip (default: redis-server)
#   STATES       raw lz4 idle cold (default: all four; redis-server: raw only)
#   SIZE         bytes of the value (default 4096); VALUE_FILE: see above
#   N            GETs counted (default 20000)
# Prints a Markdown table on standard output. A benchmark: asserts nothing.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVERS=${SERVERS:-$TOP/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
STATES=${STATES:-raw lz4 idle cold}
SIZE=${SIZE:-4096}
VALUE_FILE=${VALUE_FILE:-}
N=${N:-20000}
if [ -z "$VALUE_FILE" ]; then
    GEN=1
fi

say() { echo "$*" >&2; }
. "$TOP/bench/lib.sh"
command -v valgrind >/dev/null 2>&1 || { say "get-instr: valgrind not found"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/get-instr.XXXXXX") || exit 1
VPID=""
cleanup() {
    [ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
if [ "${GEN:-0}" = 1 ]; then
    VALUE_FILE="$WORK/value"
    /usr/bin/python3 "$TOP/bench/gen_logs.py" text "$SIZE" --seed 5 >"$VALUE_FILE"
fi
[ "$VALUE_FILE" = bench ] && VALUE_FILE=""

cli() { redis-cli -h 127.0.0.1 -p "$@" 2>/dev/null | tr -d '\r'; }
field() { cli "$1" info memory | sed -n "s/^$2://p"; }
wait_field() { # port field value
    _i=0
    while [ "$(field "$1" "$2")" != "$3" ] && [ $_i -lt 1200 ]; do sleep 0.05; _i=$((_i + 1)); done
}

# count binary state: prints Ir per GET
count() {
    port=$(free_port)
    case $1 in
    *redis*) valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$port" "$1" --port "$port" --save "" \
        --appendonly no --dir "$WORK" >"$WORK/log.$port" 2>&1 & ;;
    *) valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$port" "$1" --port "$port" --appendonly no \
        --dir "$WORK" >"$WORK/log.$port" 2>&1 & ;;
    esac
    VPID=$!
    _i=0
    until [ "$(cli "$port" ping)" = PONG ] || [ $_i -gt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
    case $2 in
    raw) cli "$port" config set compress-threshold 0 >/dev/null ;;
    *) cli "$port" config set compress-dict-delay 86400000 >/dev/null ;;
    esac
    [ "$2" = cold ] && cli "$port" config set compress-hot-reads 0 >/dev/null
    if [ -n "$VALUE_FILE" ]; then
        cli "$port" -x set key:__rand_int__ <"$VALUE_FILE" >/dev/null
    else
        redis-benchmark -h 127.0.0.1 -p "$port" -t set -d "$SIZE" -n 1 -c 1 >/dev/null 2>&1
    fi
    [ "$2" != raw ] && wait_field "$port" lz4_pending_values 0
    if [ "$2" = idle ]; then
        cli "$port" config set compress-dict-delay 0 >/dev/null
        wait_field "$port" lz4_dict_pending_values 0
    fi
    enc=$(cli "$port" object encoding key:__rand_int__)
    redis-benchmark -h 127.0.0.1 -p "$port" -t get -P 16 -c 4 -n 2000 >/dev/null 2>&1
    callgrind_control -z "$VPID" >/dev/null 2>&1
    redis-benchmark -h 127.0.0.1 -p "$port" -t get -P 16 -c 4 -n "$N" >/dev/null 2>&1
    after=$(cli "$port" object encoding key:__rand_int__)
    callgrind_control -d "$VPID" >/dev/null 2>&1
    kill "$VPID" 2>/dev/null
    wait "$VPID" 2>/dev/null
    VPID=""
    f=$(ls -t "$WORK"/cg."$port".* 2>/dev/null | head -n 1)
    ir=$(sed -n 's/^summary: //p' "$f" | head -n 1)
    rm -f "$WORK"/cg."$port"*
    echo "$(awk -v i="${ir:-0}" -v n="$N" 'BEGIN { printf "%.0f", i / n }') $enc $after"
}

if [ "${GEN:-0}" = 1 ]; then
    what="$SIZE bytes of log text (bench/gen_logs.py text $SIZE --seed 5)"
elif [ -n "$VALUE_FILE" ]; then
    what="the $(wc -c <"$VALUE_FILE" | tr -d ' ') bytes of $VALUE_FILE"
else
    what="$SIZE bytes of redis-benchmark's payload"
fi
echo "GET -P 16 -c 4 of one value of $what, $N requests counted"
echo
echo "| server | state | instructions per GET | encoding before -> after the test |"
echo "|---|---|---:|---|"
for s in $SERVERS; do
    for st in $STATES; do
        say "counting $s $st"
        set -- $(count "$s" "$st")
        echo "| $s | $st | $1 | $2 -> $3 |"
    done
done
if [ "$REDIS_SERVER" != none ]; then
    say "counting $REDIS_SERVER raw"
    set -- $(count "$REDIS_SERVER" raw)
    echo "| $REDIS_SERVER | raw | $1 | $2 -> $3 |"
fi
