#!/bin/sh
# acl-overhead.sh -- what the ACL check costs per command, counted, not timed.
#
# The same workload (redis-benchmark -t set,get -P 16 -n $ACL_N) against one
# server under valgrind's callgrind, which counts the instructions the server
# runs (Ir): once as the default user (+@all ~* &*: dispatch tests one flag),
# once as an agent user (~key:* +@all -@dangerous: the command bit, each key
# against the pattern). Counting instead of timing gives figures that hold on
# a busy machine. BASE=path/to/an/older/scratchpad-server adds the same
# workload on it (the cost of the default user's test against no check).
#
#   sh bench/acl-overhead.sh              Markdown table on standard output
#   ACL_N=20000 sh bench/acl-overhead.sh  shorter
set -ef  # -f: the ACL rules (~key:*) are words, not globs
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
BIN=${BIN:-$TOP/build/scratchpad-server}
N=${ACL_N:-100000}
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }

# count BINARY acl|noacl [idle | redis-benchmark args...]: the server's Ir for
# start, workload and stop (acl: with the agent user defined).
count() {
    bin=$1
    acl=$2
    shift 2
    port=$(free_port)
    dir=$(mktemp -d)
    if [ "$acl" = acl ]; then
        users="--user agent on >pw ~key:* +@all -@dangerous"
    else
        users=""
    fi
    # shellcheck disable=SC2086 -- the rules are words
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" "$bin" --port "$port" --appendonly no \
        --dir "$dir" $users >"$dir/log" 2>&1 &
    vpid=$!
    i=0
    while ! redis-cli -p "$port" ping >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 200 ] || { echo "server did not start" >&2; kill "$vpid"; exit 1; }
        sleep 0.1
    done
    [ "$1" = "idle" ] || redis-benchmark -p "$port" $bargs -t set,get -P 16 -n "$N" -q -c 10 >/dev/null 2>&1
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    wait "$vpid" || true
    sed -n 's/^summary: //p; s/^totals: //p' "$dir/cg.out" | head -1
    rm -rf "$dir"
}

bargs=""
idle=$(count "$BIN" acl idle)
dflt=$(count "$BIN" acl)
bargs="--user agent -a pw"
agent=$(count "$BIN" acl)
bargs=""
echo "| server, user | Ir per command (SET and GET, -P 16, $N each) |"
echo "|---|---:|"
if [ -n "$BASE" ]; then
    bidle=$(count "$BASE" noacl idle)
    base=$(count "$BASE" noacl)
    echo "| before ACL ($BASE), default | $(( (base - bidle) / (2 * N) )) |"
fi
echo "| with ACL, default user | $(( (dflt - idle) / (2 * N) )) |"
echo "| with ACL, agent user (~key:* +@all -@dangerous) | $(( (agent - idle) / (2 * N) )) |"
