#!/bin/sh
# compare.sh -- scratchpad-bench against scratchpad-server and against
# redis-server (--baseline redis: the same agents' work in plain Redis
# commands), side by side, on this machine.
#
# For each persistence mode ("off"; then "everysec" when scratchpad-server
# answers CONFIG GET appendonly, i.e. has an append-only log), each workload and
# each of ROUNDS rounds, a fresh server of each kind is started on a free port
# and the benchmark runs against it; the two kinds alternate and swap order every
# round (scratchpad, redis / redis, scratchpad / ...) so that a drift of the
# machine hurts both alike. Servers are pinned to SERVER_CPU and the benchmark to
# BENCH_CPU with taskset, so they never compete for a core. The report gives the
# median of the rounds and the ratio scratchpad/redis, with the CPU time each
# side used, so that a client-bound or server-bound run can be told apart.
#
# Output: bench/results/compare-<date>.md (Markdown) and compare-<date>.png
# (gnuplot: throughput, used_memory and latency percentiles side by side); the
# raw JSON of every run goes to bench/results/raw-<date>/ (ignored by git).
# Progress on standard error. Every server is stopped by PID on exit, Ctrl-C
# included. A benchmark, not a test: it asserts nothing.
#
# Environment (all optional):
#   ROUNDS      rounds per server and workload        (3)
#   DURATION    measured seconds per run              (8)
#   WARMUP      unmeasured seconds per run            (3)
#   AGENTS      agents (connections) per run          (200)
#   WORKLOADS   presets to run        (agent-mix small-kv offload-heavy read-heavy)
#   BASELINE    redis: the Redis side runs --baseline redis (plain Redis commands); none:
#               the same SP.* work on both sides, to measure two Scratchpad builds with
#               REDIS_SERVER=bench/as-redis.sh        (redis)
#   BENCH_ARGS  extra scratchpad-bench options for every run
#   SERVER, BENCH, REDIS_SERVER, REDIS_CLI   binaries ($BUILD/..., from PATH)
#   SERVER_ARGS, REDIS_ARGS   extra --directive value words for each server
#   SERVER_CPU, BENCH_CPU     CPUs to pin to          (0 and 1)
#   OUT         report path              (bench/results/compare-<date>.md)
#   REPORT_FROM a raw-<date> directory: run nothing, write the report and the
#               chart again from its JSON (and its meta.env)
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
BENCH=${BENCH:-$TOP/$BUILD/scratchpad-bench}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
ROUNDS=${ROUNDS:-3}
BASELINE=${BASELINE:-redis}
DURATION=${DURATION:-8}
WARMUP=${WARMUP:-3}
AGENTS=${AGENTS:-200}
WORKLOADS=${WORKLOADS:-agent-mix small-kv offload-heavy read-heavy}
BENCH_ARGS=${BENCH_ARGS:-}
SERVER_ARGS=${SERVER_ARGS:-}
REDIS_ARGS=${REDIS_ARGS:-}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
STAMP=$(date '+%Y-%m-%d-%H%M')
OUT_GIVEN=${OUT:+yes}
OUT=${OUT:-$TOP/bench/results/compare-$STAMP.md}
PY=/usr/bin/python3

say() { echo "$*" >&2; }
die() { say "compare: $*"; exit 1; }

for bin in "$SERVER" "$BENCH" "$REDIS_SERVER" "$REDIS_CLI" "$PY"; do
    command -v "$bin" >/dev/null 2>&1 || die "$bin not found (run make; install redis-server, redis-tools, python3)"
done
if ! command -v gnuplot >/dev/null 2>&1; then
    say "gnuplot missing: installing gnuplot-nox"
    apt-get install -y gnuplot-nox >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 && apt-get install -y gnuplot-nox >/dev/null 2>&1; } ||
        say "warning: could not install gnuplot-nox; the report will have no chart"
fi

# One descriptor per agent in the benchmark and in each server.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -H -n)" 2>/dev/null

REPORT_FROM=${REPORT_FROM:-}
if [ -n "$REPORT_FROM" ]; then
    RAW=$(cd "$REPORT_FROM" 2>/dev/null && pwd) || die "no directory $REPORT_FROM"
    STAMP=$(basename "$RAW")
    STAMP=${STAMP#raw-}
    [ -n "$OUT_GIVEN" ] || OUT="$(dirname "$RAW")/compare-$STAMP.md"
fi
OUTDIR=$(cd "$(dirname "$OUT")" 2>/dev/null && pwd) || { mkdir -p "$(dirname "$OUT")" && OUTDIR=$(cd "$(dirname "$OUT")" && pwd); }
BASE=$(basename "$OUT" .md)
PNG="$OUTDIR/$BASE.png"
[ -n "$REPORT_FROM" ] || RAW="$OUTDIR/raw-${BASE#compare-}"
mkdir -p "$RAW" || die "cannot create $RAW"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX") || die "cannot create a temporary directory"
RUNS="$WORK/runs"
: >"$RUNS"
PIDS=""

cleanup() {
    for p in $PIDS; do
        kill "$p" 2>/dev/null
    done
    for p in $PIDS; do
        wait "$p" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$TOP/bench/lib.sh"
bench_pin "scratchpad-bench (taskset)"


# cpu_share CPU: the share of that CPU a busy loop gets for one second (1.00 on
# a quiet machine): what else runs there, other programs or the hypervisor.
cpu_share() {
    taskset -c "$1" $PY -c '
import time
t, c = time.time(), time.process_time()
while time.time() - t < 1: pass
print("%.2f" % ((time.process_time() - c) / (time.time() - t)))' 2>/dev/null || echo "?"
}

# start_server KIND MODE: a fresh server on a free port; sets SPID, SPORT, SDIR.
start_server() {
    kind=$1
    mode=$2
    tries=0
    while [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        SPORT=$(free_port)
        SDIR="$WORK/$kind-$SPORT"
        mkdir -p "$SDIR"
        if [ "$kind" = scratchpad ]; then
            persist="--appendonly no"
            [ "$mode" = everysec ] && persist="--appendonly yes --appendfsync everysec --dir $SDIR/data"
            # shellcheck disable=SC2086 # word lists
            (cd "$SDIR" && exec $PIN_SERVER "$SERVER" --port "$SPORT" --bind 127.0.0.1 $persist $SERVER_ARGS \
                >server.log 2>&1) &
        else
            persist="--appendonly no"
            [ "$mode" = everysec ] && persist="--appendonly yes --appendfsync everysec"
            # shellcheck disable=SC2086 # word lists
            (cd "$SDIR" && exec $PIN_SERVER "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' $persist \
                --daemonize no --dir "$SDIR" $REDIS_ARGS >server.log 2>&1) &
        fi
        SPID=$!
        PIDS="$PIDS $SPID"
        i=0
        while [ $i -lt 100 ]; do
            kill -0 "$SPID" 2>/dev/null || break
            if [ "$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" ping 2>/dev/null)" = PONG ]; then
                sleep 0.2
                kill -0 "$SPID" 2>/dev/null && return 0
                break
            fi
            sleep 0.05
            i=$((i + 1))
        done
        stop_server "$SPID"
        say "  $kind did not start on port $SPORT:"
        tail -n 5 "$SDIR/server.log" >&2
    done
    die "could not start $kind"
}

stop_server() {
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    rest=""
    for p in $PIDS; do
        [ "$p" = "$1" ] || rest="$rest $p"
    done
    PIDS=$rest
}

# shell-quote $1
q() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# run_all: every run, their list in $RUNS, the report's other facts in
# $RAW/meta.env (for REPORT_FROM).
run_all() {
    # which persistence modes both servers can run
    MODES="off"
    start_server scratchpad off
    if [ -n "$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" config get appendonly 2>/dev/null | tr -d '\r\n')" ]; then
        MODES="off everysec"
        PERSIST_NOTE="persistence off, then appendonly everysec on both"
    else
        PERSIST_NOTE="persistence off on both (Redis: --save '' --appendonly no). The everysec runs were skipped: this scratchpad-server does not answer CONFIG GET appendonly, so it has no append-only log to compare yet"
    fi
    SP_VERSION=$("$SERVER" --version 2>/dev/null | head -n 1)
    stop_server "$SPID"

    LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
    SHARE_START="$(cpu_share "$SERVER_CPU") / $(cpu_share "$BENCH_CPU")"
    T0=$(date +%s)
    nruns=0
    total=$(($(echo "$MODES" | wc -w) * $(echo "$WORKLOADS" | wc -w) * ROUNDS * 2))
    for mode in $MODES; do
        for wl in $WORKLOADS; do
            r=1
            while [ "$r" -le "$ROUNDS" ]; do
                order="scratchpad redis"
                [ $((r % 2)) -eq 0 ] && order="redis scratchpad"
                for kind in $order; do
                    nruns=$((nruns + 1))
                    run_one "$mode" "$wl" "$kind" "$r"
                done
                r=$((r + 1))
            done
        done
    done
    LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
    SHARE_END="$(cpu_share "$SERVER_CPU") / $(cpu_share "$BENCH_CPU")"
    ELAPSED=$(($(date +%s) - T0))
    RUN_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
    CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    REDIS_VERSION=$("$REDIS_SERVER" --version 2>/dev/null | head -n 1)
    for v in RUN_DATE LOAD_START LOAD_END SHARE_START SHARE_END ELAPSED PERSIST_NOTE SP_VERSION REDIS_VERSION \
        CPU_MODEL ROUNDS DURATION WARMUP AGENTS WORKLOADS MODES BENCH_ARGS SERVER_ARGS REDIS_ARGS PINNING \
        SERVER_CPU BENCH_CPU; do
        eval "echo \"$v=\$(q \"\$$v\")\""
    done >"$RAW/meta.env"
}

# run_one MODE WORKLOAD KIND ROUND: a fresh server, one benchmark run.
run_one() {
    json="$RAW/$1-$2-$3-$4.json"
    start_server "$3" "$1"
    base=""
    [ "$3" = redis ] && [ "$BASELINE" = redis ] && base="--baseline redis"
    # shellcheck disable=SC2086 # word lists
    $PIN_BENCH "$BENCH" --port "$SPORT" --workload "$2" --agents "$AGENTS" --duration "$DURATION" \
        --warmup "$WARMUP" --quiet --json "$json" $base $BENCH_ARGS >"$WORK/bench.out" 2>&1
    rc=$?
    stop_server "$SPID"
    if [ $rc -ne 0 ] || [ ! -s "$json" ]; then
        say "  run failed (status $rc):"
        tail -n 5 "$WORK/bench.out" >&2
        rm -f "$json"
        return
    fi
    echo "$1 $2 $3 $4 $json" >>"$RUNS"
    say "[$nruns/$total] $1 $2 round $4 $3: $($PY -c 'import json, sys
m = json.load(open(sys.argv[1]))["measured"]
w = m["cpu_window_s"] or 1
print("%.0f ops/s, server CPU %.0f%%, client CPU %.0f%%"
      % (m["ops_per_sec"], 100 * m["server_cpu_s"] / w, 100 * m["client_cpu_s"] / w))' "$json")"
}

# load_runs: the list of runs from $RAW's file names, the facts from meta.env.
load_runs() {
    # shellcheck disable=SC1091 # written by run_all
    [ -f "$RAW/meta.env" ] && . "$RAW/meta.env"
    for f in "$RAW"/*.json; do
        [ -e "$f" ] || continue
        name=$(basename "$f" .json) # <mode>-<workload>-<kind>-<round>
        mode=${name%%-*}
        rest=${name#*-}
        r=${rest##*-}
        rest=${rest%-*}
        kind=${rest##*-}
        echo "$mode ${rest%-*} $kind $r $f"
    done >"$RUNS"
    MODES=${MODES:-$(awk '{ print $1 }' "$RUNS" | sort -u | tr '\n' ' ')}
}

if [ -z "$REPORT_FROM" ]; then
    run_all
else
    load_runs
fi

# ---- report and chart data ----
export RUN_DATE WORKLOADS LOAD_START LOAD_END SHARE_START SHARE_END SERVER_CPU BENCH_CPU ELAPSED CPU_MODEL \
    PINNING PERSIST_NOTE SP_VERSION REDIS_VERSION ROUNDS DURATION WARMUP AGENTS BENCH_ARGS SERVER_ARGS REDIS_ARGS PNG RAW
$PY - "$RUNS" "$WORK" "$OUT" <<'EOF' || die "could not write the report"
import json, os, statistics, sys, time

runs_file, work, out = sys.argv[1:4]
env = os.environ
runs = []
for line in open(runs_file):
    mode, wl, kind, rnd, path = line.split()
    runs.append((mode, wl, kind, int(rnd), json.load(open(path))))

def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None

def share(j, field):
    m = j["measured"]
    return m[field] / m["cpu_window_s"] if m.get(field, -1) >= 0 and m.get("cpu_window_s") else None

def per_cpu(j, fields):
    # operations per CPU-second of the given sides, over the measured phase
    m = j["measured"]
    if any(m.get(f, -1) < 0 for f in fields):
        return None
    cpu = sum(m[f] for f in fields)
    return m["operations"] / cpu if cpu > 0 else None

def pick(mode, wl, kind):
    return [(r[4], None) for r in runs if r[0] == mode and r[1] == wl and r[2] == kind]

def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else "%.2f" % (a / b)

def fmt(v, nd=1):
    return "n/a" if v is None else "{:,.{}f}".format(v, nd)

def mb(v):
    return None if v is None or v < 0 else v / 1048576.0

modes, workloads = [], []
for r in runs:
    if r[0] not in modes: modes.append(r[0])
    if r[1] not in workloads: workloads.append(r[1])
# in the order asked for (the presets' order otherwise), "off" first
order = (env.get("WORKLOADS") or "agent-mix small-kv offload-heavy read-heavy").split()
workloads.sort(key=lambda x: order.index(x) if x in order else len(order))
modes.sort(key=lambda x: (x != "off", x))

summary = {}  # (mode, wl, kind) -> dict of medians
for mode in modes:
    for wl in workloads:
        for kind in ("scratchpad", "redis"):
            rs = pick(mode, wl, kind)
            if not rs:
                continue
            def m(f):
                return med([f(j, b) for j, b in rs])
            def spread(f):
                vals = [v for v in (f(j, b) for j, b in rs) if v is not None]
                return (min(vals), max(vals)) if vals else None
            s = {
                "n": len(rs),
                "ops": m(lambda j, b: j["measured"]["ops_per_sec"]),
                "mem": m(lambda j, b: j["used_memory"]["after"]),
                "mem_before": m(lambda j, b: j["used_memory"]["before"]),
                "rss": m(lambda j, b: j["used_memory"]["rss_after"]),
                "client": m(lambda j, b: share(j, "client_cpu_s")),
                "server": m(lambda j, b: share(j, "server_cpu_s")),
                "per_server_cpu": m(lambda j, b: per_cpu(j, ("server_cpu_s",))),
                "per_cpu": m(lambda j, b: per_cpu(j, ("server_cpu_s", "client_cpu_s"))),
                "sent": m(lambda j, b: j["measured"]["bytes_sent"] / max(1, j["measured"]["operations"])),
                "recv": m(lambda j, b: j["measured"]["bytes_received"] / max(1, j["measured"]["operations"])),
                "errors": sum(j["measured"]["errors"] for j, b in rs),
                "ops_spread": spread(lambda j, b: j["measured"]["ops_per_sec"]),
                "p99_spread": spread(lambda j, b: j["measured"]["latency_us"]["p99"] / 1000.0),
                "psc_spread": spread(lambda j, b: per_cpu(j, ("server_cpu_s",))),
            }
            for p in ("p50", "p95", "p99", "p99_9", "max"):
                s[p] = m(lambda j, b, p=p: j["measured"]["latency_us"][p] / 1000.0)
            ops = {}
            for j, b in rs:
                for name in j["operations"]:
                    ops.setdefault(name, None)
            for name in ops:
                ops[name] = {
                    "ops": med([j["operations"][name]["ops_per_sec"] for j, b in rs if name in j["operations"]]),
                    "p50": med([j["operations"][name]["latency_us"]["p50"] / 1000.0 for j, b in rs if name in j["operations"]]),
                    "p99": med([j["operations"][name]["latency_us"]["p99"] / 1000.0 for j, b in rs if name in j["operations"]]),
                    "recv": med([j["operations"][name]["bytes_received"] / max(1, j["operations"][name]["count"]) for j, b in rs if name in j["operations"]]),
                }
            s["opsd"] = ops
            summary[(mode, wl, kind)] = s

L = []
w = L.append
w("# scratchpad-server vs redis-server: the multi-agent benchmark")
w("")
w("- date: %s; machine: %s, %d CPUs" % (env.get("RUN_DATE") or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), env.get("CPU_MODEL") or "unknown CPU", os.cpu_count() or 0))
w("- scratchpad: %s (defaults%s)" % (env.get("SP_VERSION", "?"), (" " + env["SERVER_ARGS"]) if env.get("SERVER_ARGS") else ""))
w("- redis: %s (%s)" % (env.get("REDIS_VERSION", "?"), "--save ''" + ((" " + env["REDIS_ARGS"]) if env.get("REDIS_ARGS") else "")))
w("- persistence: %s" % env.get("PERSIST_NOTE", ""))
w("- client: `scratchpad-bench --agents %s --duration %s --warmup %s%s` (one thread, hiredis async + libevent), `--baseline redis` for Redis; pinning: %s"
  % (env["AGENTS"], env["DURATION"], env["WARMUP"], (" " + env["BENCH_ARGS"]) if env.get("BENCH_ARGS") else "", env.get("PINNING", "")))
w("- %s rounds per server and workload, a fresh server per run, servers alternating (order swapped every round); figures are medians of the rounds; %d runs in %d s"
  % (env["ROUNDS"], len(runs), int(env.get("ELAPSED", "0"))))
w("- load average (1, 5, 15 min) at start: %s, at end: %s" % (env.get("LOAD_START", "?"), env.get("LOAD_END", "?")))
w("- share of CPU %s / CPU %s a busy loop got (1.00 = quiet; less = other programs or the hypervisor took the rest): %s at start, %s at end"
  % (env.get("SERVER_CPU"), env.get("BENCH_CPU"), env.get("SHARE_START", "?"), env.get("SHARE_END", "?")))
w("- raw JSON of every run: `%s/`" % os.path.relpath(env["RAW"], os.path.dirname(os.path.abspath(out))))
w("")
w("Latencies are per logical operation (an agent's step: `grep` is SP.GREP on scratchpad, GET plus a search in the client on Redis), from the first command sent to the last reply, over every agent, from one HDR-style histogram per run. CPU figures cover the measured phase: the server's from its INFO cpu, the client's from getrusage. A side near 1.00 of a core is the bottleneck; when it is the client (the Redis runs, which receive whole values and grep them), the throughput is a lower bound of what the server could do, and \"operations per server CPU-second\" compares the servers' efficiency on the same work whoever is the bottleneck. \"per CPU-second, server + client\" counts the work the harness does too (on Redis, receiving whole values and searching them).")
w("")
for mode in modes:
    if len(modes) > 1:
        w("## Persistence: %s" % mode)
        w("")
    w("## Summary%s" % ("" if len(modes) == 1 else " (" + mode + ")"))
    w("")
    w("| workload | metric | scratchpad | redis | scratchpad/redis | rounds: scratchpad min-max | redis min-max |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for wl in workloads:
        a, b = summary.get((mode, wl, "scratchpad")), summary.get((mode, wl, "redis"))
        if not a or not b:
            w("| %s | (runs failed) | | | | | |" % wl)
            continue
        rows = [
            ("throughput, ops/s (higher is better)", a["ops"], b["ops"], 0),
            ("p50 latency, ms", a["p50"], b["p50"], 3),
            ("p95 latency, ms", a["p95"], b["p95"], 3),
            ("p99 latency, ms", a["p99"], b["p99"], 3),
            ("p99.9 latency, ms", a["p99_9"], b["p99_9"], 3),
            ("max latency, ms", a["max"], b["max"], 3),
            ("used_memory after, MB (lower is better)", mb(a["mem"]), mb(b["mem"]), 1),
            ("used_memory_rss after, MB", mb(a["rss"]), mb(b["rss"]), 1),
            ("bytes received by the client per op", a["recv"], b["recv"], 0),
            ("bytes sent by the client per op", a["sent"], b["sent"], 0),
            ("server CPU (share of a core)", a["server"], b["server"], 2),
            ("client CPU (share of a core)", a["client"], b["client"], 2),
            ("operations per server CPU-second", a["per_server_cpu"], b["per_server_cpu"], 0),
            ("operations per CPU-second, server + client", a["per_cpu"], b["per_cpu"], 0),
        ]
        spreads = {0: "ops_spread", 3: "p99_spread", 12: "psc_spread"}
        first = True
        for i, (label, x, y, nd) in enumerate(rows):
            sa = sb = ""
            if i in spreads and a[spreads[i]] and b[spreads[i]]:
                sa = "%s-%s" % (fmt(a[spreads[i]][0], nd), fmt(a[spreads[i]][1], nd))
                sb = "%s-%s" % (fmt(b[spreads[i]][0], nd), fmt(b[spreads[i]][1], nd))
            w("| %s | %s | %s | %s | %s | %s | %s |" % (wl if first else "", label, fmt(x, nd), fmt(y, nd), ratio(x, y),
                                                    sa, sb))
            first = False
        if a["errors"] or b["errors"]:
            w("| | errors (all rounds) | %d | %d | | | |" % (a["errors"], b["errors"]))
    w("")
    # the issue's targets
    w("### Targets (from the issue; recorded, not asserted)")
    w("")
    w("| target | figure | met? |")
    w("|---|---|---|")
    a, b = summary.get((mode, "agent-mix", "scratchpad")), summary.get((mode, "agent-mix", "redis"))
    if a and b:
        t = a["ops"] / b["ops"] if b["ops"] else 0
        w("| agent-mix throughput >= 2x Redis | %.2fx | %s |" % (t, "yes" if t >= 2 else "no"))
        if a["per_server_cpu"] and b["per_server_cpu"]:
            w("| (for reference) agent-mix operations per server CPU-second vs Redis | %.2fx | |"
              % (a["per_server_cpu"] / b["per_server_cpu"]))
        w("| agent-mix p99 no worse than Redis | %.3f ms vs %.3f ms | %s |" % (a["p99"], b["p99"], "yes" if a["p99"] <= b["p99"] else "no"))
        if a["mem"] and b["mem"]:
            mr = a["mem"] / b["mem"]
            w("| agent-mix used_memory <= 0.5x Redis | %.2fx | %s |" % (mr, "yes" if mr <= 0.5 else "no"))
    a, b = summary.get((mode, "small-kv", "scratchpad")), summary.get((mode, "small-kv", "redis"))
    if a and b:
        t = a["ops"] / b["ops"] if b["ops"] else 0
        w("| small-kv throughput >= 1.0x Redis | %.2fx | %s |" % (t, "yes" if t >= 1 else "no"))
    w("")
    for wl in workloads:
        a, b = summary.get((mode, wl, "scratchpad")), summary.get((mode, wl, "redis"))
        if not a or not b:
            continue
        w("### %s: per operation" % wl)
        w("")
        w("| operation | ops/s sp | ops/s redis | p50 ms sp | p50 ms redis | p99 ms sp | p99 ms redis | p99 sp/redis | bytes received per op sp | redis |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in sorted(set(a["opsd"]) | set(b["opsd"])):
            x, y = a["opsd"].get(name), b["opsd"].get(name)
            g = lambda d, k, nd: fmt(d[k], nd) if d else "n/a"
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, g(x, "ops", 0), g(y, "ops", 0), g(x, "p50", 3), g(y, "p50", 3), g(x, "p99", 3), g(y, "p99", 3),
                ratio(x["p99"] if x else None, y["p99"] if y else None), g(x, "recv", 0), g(y, "recv", 0)))
        w("")

w("![throughput, memory and latency percentiles](%s)" % os.path.basename(env["PNG"]))
w("")
w("How to reproduce: `sh bench/compare.sh` (settings in its header: ROUNDS, DURATION, WARMUP, AGENTS, WORKLOADS). One run by hand: `build/scratchpad-bench --port P --workload agent-mix --agents 200 [--baseline redis] --json out.json`.")
open(out, "w").write("\n".join(L) + "\n")

# chart data: throughput and memory per workload, latency per workload
mode = modes[0]
with open(os.path.join(work, "tput.dat"), "w") as f:
    for wl in workloads:
        a, b = summary.get((mode, wl, "scratchpad")), summary.get((mode, wl, "redis"))
        if a and b:
            f.write("%s %.1f %.1f\n" % (wl, a["ops"], b["ops"]))
with open(os.path.join(work, "mem.dat"), "w") as f:
    for wl in workloads:
        a, b = summary.get((mode, wl, "scratchpad")), summary.get((mode, wl, "redis"))
        if a and b and a["mem"] and b["mem"]:
            f.write("%s %.1f %.1f\n" % (wl, mb(a["mem"]), mb(b["mem"])))
with open(os.path.join(work, "lat.list"), "w") as lst:
    for wl in workloads:
        a, b = summary.get((mode, wl, "scratchpad")), summary.get((mode, wl, "redis"))
        if not a or not b:
            continue
        fn = os.path.join(work, "lat-%s.dat" % wl)
        with open(fn, "w") as f:
            for p, label in (("p50", "p50"), ("p95", "p95"), ("p99", "p99"), ("p99_9", "p99.9")):
                f.write("%s %.4f %.4f\n" % (label, a[p], b[p]))
        lst.write("%s %s\n" % (wl, fn))
EOF

# ---- chart ----
if command -v gnuplot >/dev/null 2>&1 && [ -s "$WORK/tput.dat" ]; then
    nlat=$(wc -l <"$WORK/lat.list")
    panels=$((nlat + 2))
    cols=3
    rows=$(((panels + cols - 1) / cols))
    height=$((rows * 430 + 60))
    {
        echo "set terminal pngcairo size 1500,$height font 'DejaVu Sans,11'"
        echo "set output '$PNG'"
        echo "set multiplot layout $rows,$cols title 'scratchpad-server vs redis-server: scratchpad-bench, $AGENTS agents, median of $ROUNDS rounds (first mode: $(echo "$MODES" | cut -d' ' -f1))' font ',13'"
        echo "set style data histograms"
        echo "set style histogram clustered gap 1"
        echo "set style fill solid 0.85 border -1"
        echo "set boxwidth 0.9"
        echo "set key below horizontal"
        echo "set format y '%g'"
        echo "set grid ytics"
        echo "set xtics nomirror font ',9'"
        echo "set tmargin 3"
        echo "set title 'Throughput (operations/s, log scale, higher is better)'"
        echo "set logscale y"
        echo "set yrange [*:*]"
        echo "plot '$WORK/tput.dat' using 2:xtic(1) title 'scratchpad' lc rgb '#1f77b4', '' using 3 title 'redis' lc rgb '#d62728', \\"
        echo "     '' using (\$0-1.0/6):(\$2*1.15):(sprintf('%.0f',\$2)) with labels font ',8' notitle, \\"
        echo "     '' using (\$0+1.0/6):(\$3*1.35):(sprintf('%.0f',\$3)) with labels font ',8' notitle"
        echo "unset logscale y"
        echo "set yrange [0:*]"
        echo "set offsets 0, 0, graph 0.08, 0"
        echo "set title 'used\\_memory after the run (MB, lower is better)'"
        echo "plot '$WORK/mem.dat' using 2:xtic(1) title 'scratchpad' lc rgb '#1f77b4', '' using 3 title 'redis' lc rgb '#d62728', \\"
        echo "     '' using (\$0-1.0/6):(\$2):(sprintf(\$2 < 10 ? '%.1f' : '%.0f',\$2)) with labels offset 0,0.7 font ',9' notitle, \\"
        echo "     '' using (\$0+1.0/6):(\$3):(sprintf(\$3 < 10 ? '%.1f' : '%.0f',\$3)) with labels offset 0,0.7 font ',9' notitle"
        echo "set logscale y"
        echo "set yrange [*:*]"
        echo "set offsets 0, 0, 0, 0"
        while read -r wl file; do
            echo "set title '$wl latency (ms, log scale, lower is better)'"
            echo "plot '$file' using 2:xtic(1) title 'scratchpad' lc rgb '#1f77b4', '' using 3 title 'redis' lc rgb '#d62728', \\"
            echo "     '' using (\$0-1.0/6):(\$2*1.2):(sprintf(\$2 < 10 ? '%.2f' : '%.1f',\$2)) with labels font ',8' notitle, \\"
            echo "     '' using (\$0+1.0/6):(\$3*1.45):(sprintf(\$3 < 10 ? '%.2f' : '%.1f',\$3)) with labels font ',8' notitle"
        done <"$WORK/lat.list"
        echo "unset multiplot"
    } >"$WORK/chart.gp"
    gnuplot "$WORK/chart.gp" 2>"$WORK/gnuplot.err" || { say "gnuplot failed:"; cat "$WORK/gnuplot.err" >&2; }
fi
say "report: $OUT"
[ -s "$PNG" ] && say "chart:  $PNG"
cat "$OUT"
