#!/bin/sh
# bench_smoke.sh -- scratchpad-bench end to end, briefly: a few agents for a few
# seconds against a server this script starts, then the benchmark's own
# accounting is checked against the server's.
#
# For each run: the benchmark exits 0, its --json file is valid JSON (Debian's
# python3 -m json.tool), and every command count in the JSON's "totals" (which
# include setup and warm-up) equals the server's INFO commandstats calls, INFO
# included (the benchmark's two INFO memory; an INFO is not in its own reply).
# Runs: agent-mix and agent-coord on scratchpad, small-kv with --requests (the
# measured count is exact), 1,000 agents at once (the descriptor limit is raised
# for the server and the benchmark raises its own), and agent-mix with
# --baseline redis against redis-server when it is installed.
#
# Servers run on free ports of 127.0.0.1 (found with python3) in temporary
# directories, and are stopped by PID. Every benchmark run is bounded by
# timeout(1). Prints one "ok - ..." / "not ok - ..." line per case.
set -u

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
BENCH=${BENCH:-$TOP/$BUILD/scratchpad-bench}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
PY=/usr/bin/python3
passed=0
failed=0
PIDS=""
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-smoke-XXXXXX")

ok() {
    echo "ok - $1"
    passed=$((passed + 1))
}

notok() {
    echo "not ok - $1"
    failed=$((failed + 1))
}

cleanup() {
    for p in $PIDS; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in $PIDS; do
        wait "$p" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

free_port() {
    $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A tiny RESP client, so that the script's own traffic is exactly known:
# resp PORT ARG... prints the reply (bulk strings raw, others as RESP lines).
resp() {
    $PY - "$@" <<'EOF'
import socket, sys
port, args = int(sys.argv[1]), sys.argv[2:]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
s.sendall(b"".join([b"*%d\r\n" % len(args)] + [b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in args]))
f = s.makefile("rb")
line = f.readline()
if line[:1] == b"$" and int(line[1:]) >= 0:
    sys.stdout.write(f.read(int(line[1:])).decode())
else:
    sys.stdout.write(line.decode().rstrip("\r\n"))
EOF
}

# start KIND: a fresh server (scratchpad or redis) on a free port; sets SPID,
# SPORT. Returns 1 if it does not answer.
start() {
    SPORT=$(free_port)
    sdir="$WORK/$1-$SPORT"
    mkdir -p "$sdir"
    if [ "$1" = scratchpad ]; then
        (cd "$sdir" && ulimit -n 4096 2>/dev/null; exec "$SERVER" --port "$SPORT" --bind 127.0.0.1 >server.log 2>&1) &
    else
        (cd "$sdir" && ulimit -n 4096 2>/dev/null; exec "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' \
            --appendonly no --daemonize no --dir "$sdir" >server.log 2>&1) &
    fi
    SPID=$!
    PIDS="$PIDS $SPID"
    i=0
    while [ $i -lt 100 ]; do
        [ "$(resp "$SPORT" PING 2>/dev/null)" = "+PONG" ] && return 0
        kill -0 "$SPID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    echo "    $1 did not start on port $SPORT:" >&2
    cat "$sdir/server.log" >&2
    return 1
}

stop() {
    kill -TERM "$SPID" 2>/dev/null
    wait "$SPID" 2>/dev/null
    rest=""
    for p in $PIDS; do
        [ "$p" = "$SPID" ] || rest="$rest $p"
    done
    PIDS=$rest
}

# check_counts JSON PORT WHAT: the JSON's totals against INFO commandstats.
# Prints nothing and returns 0 when they agree, else says how they differ.
check_counts() {
    resp "$2" INFO commandstats >"$WORK/stats" 2>/dev/null
    $PY - "$1" "$WORK/stats" <<'EOF'
import json, re, sys
res = json.load(open(sys.argv[1]))
stats = {}
for line in open(sys.argv[2]):
    m = re.match(r"cmdstat_([^:]+):calls=(\d+)", line)
    if m:
        stats[m.group(1)] = int(m.group(2))
problems = []
totals = res["totals"]["commands"]
for name, t in totals.items():
    if stats.get(name, 0) != t["calls"]:
        problems.append("%s: benchmark %d, server %d" % (name, t["calls"], stats.get(name, 0)))
for name, n in stats.items():
    if name not in totals and name not in ("info", "ping"):
        problems.append("%s: server %d, not counted by the benchmark" % (name, n))
# the benchmark's INFO memory, before and after (an INFO is counted once it has
# run, so this script's INFO commandstats is not in its own reply)
if stats.get("info", 0) != res["totals"]["info"]:
    problems.append("info: benchmark %d, server %d" % (res["totals"]["info"], stats.get("info", 0)))
if not totals:
    problems.append("no command counted")
for p in problems:
    print("    " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
}

# json_get JSON EXPR: evaluates a Python expression over the result `r`.
json_get() {
    $PY -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# run_bench NAME ARGS...: runs the benchmark (output in $WORK/NAME.out), the
# JSON goes to $WORK/NAME.json. Returns its status.
run_bench() {
    name=$1
    shift
    timeout -k 5 120 "$BENCH" --port "$SPORT" --quiet --json "$WORK/$name.json" "$@" >"$WORK/$name.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "    scratchpad-bench $* exited with $rc:" >&2
        tail -20 "$WORK/$name.out" >&2
    fi
    return $rc
}

if [ ! -x "$BENCH" ]; then
    notok "the benchmark is built ($BENCH)"
    finish
fi
"$BENCH" --help >"$WORK/help" 2>&1 && grep -q -- '--baseline redis' "$WORK/help" &&
    ok "--help describes the options" || notok "--help describes the options"
"$BENCH" --agents 0 >/dev/null 2>&1
[ $? -eq 2 ] && ok "an invalid option value exits with status 2" || notok "an invalid option value exits with status 2"
"$BENCH" --port 1 --agents 1 --duration 1 --warmup 0 --quiet >/dev/null 2>&1
[ $? -eq 1 ] && ok "a server that cannot be reached makes it exit with status 1" ||
    notok "a server that cannot be reached makes it exit with status 1"

if ! start scratchpad; then
    notok "scratchpad-server starts"
    finish
fi

# ---- agent-mix, by duration ----
if run_bench mix --agents 4 --duration 2 --warmup 1 --seed 7; then
    ok "a two-second agent-mix run with 4 agents completes"
else
    notok "a two-second agent-mix run with 4 agents completes"
fi
if $PY -m json.tool "$WORK/mix.json" >/dev/null 2>&1; then
    ok "the --json file is valid JSON"
else
    notok "the --json file is valid JSON"
fi
if check_counts "$WORK/mix.json" "$SPORT"; then
    ok "every command count (setup and warm-up included) equals INFO commandstats"
else
    notok "every command count (setup and warm-up included) equals INFO commandstats"
fi
missing=$(json_get "$WORK/mix.json" '" ".join(k for k in r["settings"]["mix"] if k not in r["operations"])')
if [ -z "$missing" ] && [ -n "$(json_get "$WORK/mix.json" 'r["operations"]["list"]["count"]')" ]; then
    ok "every operation of the mix, and the session's LIST, was measured"
else
    notok "every operation of the mix, and the session's LIST, was measured (missing: $missing)"
fi
v=$(json_get "$WORK/mix.json" 'r["measured"]["errors"] == 0 and r["measured"]["operations"] == sum(o["count"] for o in r["operations"].values()) and all(c["count"] <= r["totals"]["commands"][n]["calls"] for n, c in r["commands"].items())')
[ "$v" = True ] && ok "no errors, and the measured counts add up and stay within the totals" ||
    notok "no errors, and the measured counts add up and stay within the totals"
v=$(json_get "$WORK/mix.json" 'all(k in r["commands"] for k in ("sp.write","sp.append","sp.read","sp.range","sp.grep","sp.list","sp.edit","sp.del","sp.peek","sp.offload"))')
[ "$v" = True ] && ok "the mix uses WRITE, APPEND, READ, RANGE, GREP, LIST, EDIT, DEL, PEEK and OFFLOAD" ||
    notok "the mix uses WRITE, APPEND, READ, RANGE, GREP, LIST, EDIT, DEL, PEEK and OFFLOAD"
v=$(json_get "$WORK/mix.json" 'all(o["latency_us"]["p50"] <= o["latency_us"]["p95"] <= o["latency_us"]["p99"] <= o["latency_us"]["p99_9"] <= o["latency_us"]["max"] and o["latency_us"]["max"] > 0 for o in list(r["operations"].values()) + list(r["commands"].values()))')
[ "$v" = True ] && ok "latency percentiles are ordered p50 <= p95 <= p99 <= p99.9 <= max" ||
    notok "latency percentiles are ordered p50 <= p95 <= p99 <= p99.9 <= max"
v=$(json_get "$WORK/mix.json" 'r["used_memory"]["before"] > 0 and r["used_memory"]["after"] > r["used_memory"]["before"]')
[ "$v" = True ] && ok "used_memory is reported before and after, and grew" ||
    notok "used_memory is reported before and after, and grew"

# ---- agent-coord: agent-mix with leases, the feed and snapshots ----
stop
start scratchpad || { notok "scratchpad-server restarts"; finish; }
if run_bench coord --workload agent-coord --agents 4 --duration 2 --warmup 0.5 --seed 7; then
    ok "a two-second agent-coord run with 4 agents completes"
else
    notok "a two-second agent-coord run with 4 agents completes"
fi
v=$(json_get "$WORK/coord.json" 'r["measured"]["errors"] == 0 and all(k in r["operations"] for k in ("lease_write","changes","snapshot","diff")) and all(k in r["commands"] for k in ("sp.lease","sp.release","sp.changes","sp.snapshot","sp.dropsnapshot","sp.diff"))')
[ "$v" = True ] && ok "agent-coord leases, writes fenced, releases, reads the feed, snapshots and diffs with no error" ||
    notok "agent-coord leases, writes fenced, releases, reads the feed, snapshots and diffs with no error"
check_counts "$WORK/coord.json" "$SPORT" && ok "agent-coord's command counts equal INFO commandstats" ||
    notok "agent-coord's command counts equal INFO commandstats"
"$BENCH" --baseline redis --workload agent-coord --agents 1 --duration 1 >/dev/null 2>&1
[ $? -eq 2 ] && ok "agent-coord is refused with --baseline redis (no Redis expression)" ||
    notok "agent-coord is refused with --baseline redis (no Redis expression)"

# ---- small-kv, by number of requests ----
stop
start scratchpad || { notok "scratchpad-server restarts"; finish; }
if run_bench kv --workload small-kv --agents 8 --requests 3000 --warmup 0.5; then
    ok "a small-kv run of 3000 requests completes"
else
    notok "a small-kv run of 3000 requests completes"
fi
v=$(json_get "$WORK/kv.json" 'r["measured"]["operations"]')
[ "$v" = 3000 ] && ok "--requests 3000 measures exactly 3000 operations" ||
    notok "--requests 3000 measures exactly 3000 operations (got $v)"
check_counts "$WORK/kv.json" "$SPORT" && ok "small-kv's command counts equal INFO commandstats" ||
    notok "small-kv's command counts equal INFO commandstats"

# ---- 1,000 agents at once ----
stop
start scratchpad || { notok "scratchpad-server restarts"; finish; }
if run_bench many --workload small-kv --agents 1000 --duration 2 --warmup 0.5 --think 20; then
    ok "1000 agents connect and run at once"
else
    notok "1000 agents connect and run at once"
fi
v=$(json_get "$WORK/many.json" 'r["totals"]["connect_failed"] == 0 and r["totals"]["connections_lost"] == 0 and r["measured"]["operations"] > 1000')
[ "$v" = True ] && ok "with 1000 agents no connection fails and every agent's work is measured" ||
    notok "with 1000 agents no connection fails and every agent's work is measured"
check_counts "$WORK/many.json" "$SPORT" && ok "1000 agents' command counts equal INFO commandstats" ||
    notok "1000 agents' command counts equal INFO commandstats"
stop

# ---- the same agent-mix in plain Redis commands ----
if command -v "$REDIS_SERVER" >/dev/null 2>&1 && start redis; then
    if run_bench redis --baseline redis --agents 4 --duration 2 --warmup 1 --seed 7; then
        ok "--baseline redis runs the agent-mix against redis-server"
    else
        notok "--baseline redis runs the agent-mix against redis-server"
    fi
    check_counts "$WORK/redis.json" "$SPORT" && ok "the baseline's command counts equal redis-server's INFO commandstats" ||
        notok "the baseline's command counts equal redis-server's INFO commandstats"
    v=$(json_get "$WORK/redis.json" 'sorted(r["totals"]["commands"]) == ["append","del","get","getrange","scan","set"] and r["measured"]["errors"] == 0 and sorted(r["operations"]) == sorted(json.load(open(sys.argv[1].replace("redis.json","mix.json")))["operations"])')
    [ "$v" = True ] && ok "the baseline uses only SET GET GETRANGE APPEND SCAN DEL, for the same operations" ||
        notok "the baseline uses only SET GET GETRANGE APPEND SCAN DEL, for the same operations"
    stop
else
    echo "ok - --baseline redis against redis-server # SKIP redis-server is not installed"
fi
finish
