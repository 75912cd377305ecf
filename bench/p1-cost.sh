#!/bin/sh
# p1-cost.sh -- what one request costs each server at -P 1, counted rather than timed (for a
# busy machine, or a VM without hardware counters): system calls (strace -c) or user-space
# instructions (callgrind), per request, for scratchpad-server and redis-server started as
# bench/eval-vs-redis.sh and bench/tls-vs-redis.sh start them (a TLS port beside the plain one,
# the client certificate required).
#
# Rows, each on a fresh server: eval and evalsha of "return redis.call('SET', KEYS[1],
# ARGV[1])" with 1 key:__rand_int__ v, as eval-vs-redis.sh sends them; tls-set and tls-get as
# tls-vs-redis.sh sends them (SET key:__rand_int__ abc, GET key:__rand_int__), all
# redis-benchmark -c 50 -P 1 -r 100000. Each row runs N1 then N2 requests, counted apart, and
# reports (count(N2) - count(N1)) / (N2 - N1): what the 50 connections, their TLS handshakes
# and closes cost is the same in both and drops out.
#
# MODE=strace (default): the server's system calls per request, by name, with the calls that
# failed (a read answering EAGAIN) in brackets; strace slows every call, so the wake-ups and the
# polling loop it sees are not those of an untraced run. MODE=callgrind: the server's
# instructions per request, and the functions with the most (exclusive) per request.
# MODE=perf: from perf's tracepoints and software events (no hardware counters needed), at
# full speed, for the server and for redis-benchmark: system calls (all, and read, write,
# writev, epoll_wait, sched_yield), context switches, CPU and (client) wall time in us.
#
# Environment: SERVER (default build/scratchpad-server), SP_ARGS (more arguments for it, e.g.
# "--busy-poll-us 0"), ROWS (default "eval evalsha tls-set tls-get"), SERVERS (default
# "sp redis"), N1 / N2 (default 5000 / 25000), TOP_FNS (default 12). A benchmark: it asserts
# nothing.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
SERVER=${SERVER:-$TOP/build/scratchpad-server}
SP_ARGS=${SP_ARGS:-}
MODE=${MODE:-strace}
ROWS=${ROWS:-eval evalsha tls-set tls-get}
SERVERS=${SERVERS:-sp redis}
N1=${N1:-5000}
N2=${N2:-25000}
TOP_FNS=${TOP_FNS:-12}
SCRIPT="return redis.call('SET', KEYS[1], ARGV[1])"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/p1-cost.XXXXXX") || exit 1
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

/usr/bin/python3 "$TOP/tests/lib/tlscerts.py" "$WORK" || exit 1
TLS="--tls-cert-file $WORK/server.crt --tls-key-file $WORK/server.key --tls-ca-cert-file $WORK/ca.crt"
BTLS="--tls --cacert $WORK/ca.crt --cert $WORK/client.crt --key $WORK/client.key"

# start KIND: a server of KIND (sp or redis) on free ports P (plain) and T (TLS), under
# callgrind in that mode; sets PID, P, T and D once it answers PING.
start() {
    P=$(free_port)
    T=$(free_port)
    D=$(mktemp -d "$WORK/d.XXXXXX")
    pre=""
    [ "$MODE" = callgrind ] && pre="valgrind --tool=callgrind --callgrind-out-file=$D/cg.%p"
    if [ "$1" = sp ]; then
        # shellcheck disable=SC2086
        (cd "$D" && exec $PIN_SERVER $pre "$SERVER" --port "$P" --tls-port "$T" $TLS --dir "$D" --appendonly no \
            $SP_ARGS >"$D/log" 2>&1) &
    else
        # shellcheck disable=SC2086
        (cd "$D" && exec $PIN_SERVER $pre redis-server --port "$P" --tls-port "$T" $TLS --save '' --appendonly no \
            --dir "$D" >"$D/log" 2>&1) &
    fi
    PID=$!
    i=0
    while [ "$(redis-cli -p "$P" ping 2>/dev/null)" != PONG ] && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
}

# bench ROW N: N requests of ROW.
bench() {
    case $1 in
    eval) set -- -p "$P" -n "$2" eval "$SCRIPT" 1 key:__rand_int__ v ;;
    evalsha) set -- -p "$P" -n "$2" evalsha "$SHA" 1 key:__rand_int__ v ;;
    # shellcheck disable=SC2086
    tls-set) set -- -p "$T" $BTLS -n "$2" set key:__rand_int__ abc ;;
    # shellcheck disable=SC2086
    tls-get) set -- -p "$T" $BTLS -n "$2" get key:__rand_int__ ;;
    esac
    $PIN_BENCH redis-benchmark -c 50 -P 1 -r 100000 -q "$@" >/dev/null 2>&1
}

EVENTS=raw_syscalls:sys_enter,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_writev
EVENTS=$EVENTS,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_sched_yield,context-switches,cpu-clock

# count ROW N OUT: run N requests of ROW, the server's counts into OUT (lines "name count").
count() {
    if [ "$MODE" = perf ]; then
        perf stat -x, -e "$EVENTS" -p "$PID" -o "$3.srv" 2>/dev/null &
        st=$!
        sleep 0.5
        t0=$(date +%s%N)
        PIN_BENCH="perf stat -x, -e $EVENTS -o $3.cli $PIN_BENCH" bench "$1" "$2"
        t1=$(date +%s%N)
        kill -INT "$st"
        wait "$st" 2>/dev/null
        # value,unit,event,...: cpu-clock in us, tracepoints by their syscall's name
        for side in srv cli; do
            awk -F, -v side="$side" '$3 != "" && $1 ~ /^[0-9.]+$/ {
                    e = $3; sub(/^syscalls:sys_enter_/, "", e); sub(/^raw_syscalls:sys_enter/, "syscalls", e)
                    v = $1; if (e == "cpu-clock") { e = "cpu-us"; v = v * 1000 }
                    printf "%s:%s %d\n", side, e, v }' "$3.$side"
        done >"$3"
        echo "cli:wall-us $(((t1 - t0) / 1000))" >>"$3"
    elif [ "$MODE" = strace ]; then
        strace -c -f -p "$PID" -o "$3.raw" 2>/dev/null &
        st=$!
        sleep 0.5
        bench "$1" "$2"
        sleep 0.2
        kill -INT "$st"
        wait "$st" 2>/dev/null
        # name calls, and name! failures
        awk '$NF != "syscall" && $NF != "total" && $1 !~ /^-/ && NF >= 5 {
                print $NF, $4; if (NF == 6) print $NF "!", $5 }' "$3.raw" >"$3"
    else
        callgrind_control -z "$PID" >/dev/null 2>&1
        bench "$1" "$2"
        callgrind_control -d "$PID" >/dev/null 2>&1
        f=$(ls -t "$D"/cg.* | head -n 1)
        { sed -n 's/^totals: *\([0-9]*\).*/TOTAL \1/p' "$f"
          # "N (P%)  file:function [object]", the whole-process frames (100 %) left out
          callgrind_annotate --threshold=100 "$f" 2>/dev/null |
            sed -n 's/^ *\([0-9,]*\) ( *\([0-9.]*\)%) *\([^ ]*\) \[.*\/\([^]/]*\)\]$/\2 \3@\4 \1/p' |
            awk '$1 != "100.0" { gsub(",", "", $3); sub(/^.*\//, "", $2); print $2, $3 }'; } >"$3"
        rm -f "$f"
    fi
}

for row in $ROWS; do
    for s in $SERVERS; do
        start "$s"
        SHA=$(redis-cli -p "$P" script load "$SCRIPT")
        [ "${row#tls-}" != "$row" ] && bench tls-set 20000 # every key exists, as in a run's GET
        count "$row" "$N1" "$WORK/a"
        count "$row" "$N2" "$WORK/b"
        /usr/bin/python3 - "$WORK/a" "$WORK/b" "$((N2 - N1))" "$s" "$row" "$MODE" "$TOP_FNS" <<'EOF'
import sys
def load(p):
    d = {}
    for line in open(p):
        k, v = line.rsplit(None, 1)
        d[k] = d.get(k, 0) + int(v)
    return d
a, b, n, srv, row, mode, top = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], int(sys.argv[7])
per = {k: (b.get(k, 0) - a.get(k, 0)) / n for k in set(a) | set(b)}
if mode == "perf":
    order = ["syscalls", "read", "write", "writev", "epoll_wait", "sched_yield", "context-switches", "cpu-us", "wall-us"]
    for side, label in (("srv", "server"), ("cli", "client")):
        cells = ["%s %.2f" % (e, per.get(side + ":" + e, 0)) for e in order if side + ":" + e in per]
        print("%-8s %-6s %s per request: %s" % (row, srv, label, ", ".join(cells)))
elif mode == "strace":
    names = sorted((k for k in per if not k.endswith("!") and abs(per[k]) >= 0.005), key=lambda k: -per[k])
    tot = sum(per[k] for k in per if not k.endswith("!"))
    cells = ["%s %.2f%s" % (k, per[k], " [%.2f failed]" % per[k + "!"] if abs(per.get(k + "!", 0)) >= 0.005 else "") for k in names]
    print("%-8s %-6s syscalls/request %.2f: %s" % (row, srv, tot, ", ".join(cells)))
else:
    print("%-8s %-6s instructions/request %.0f" % (row, srv, per.get("TOTAL", 0)))
    fns = sorted((k for k in per if k != "TOTAL"), key=lambda k: -per[k])[:top]
    for k in fns:
        print("    %8.0f  %s" % (per[k], k))
EOF
        kill "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
        PID=""
    done
done
exit 0
