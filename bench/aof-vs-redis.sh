#!/bin/sh
# aof-vs-redis.sh -- the persistence targets of issue 4 (the append-only log),
# measured next to redis-server on the same machine, with the same clients, in
# the same run.
#
# What it measures (ROUNDS rounds, servers alternating, the order rotating every
# round, a fresh server in a fresh directory for every measurement; rates are
# medians over the rounds):
#  1. Logging cost, appendfsync everysec:
#       redis-benchmark -t set -P 16 -c 50 -r 100000 -n P1_N -q
#     against scratchpad --appendonly no, scratchpad --appendonly yes
#     --appendfsync everysec, redis-server --appendonly yes --appendfsync
#     everysec (and, for context, redis --appendonly no). Targets: scratchpad
#     everysec >= 0.9 x scratchpad without the log, >= 1.0 x redis everysec.
#  2. appendfsync always: redis-benchmark -t set -c 50 -r 100000, -P 1 (P2_N1
#     requests) and -P 16 (P2_N16), scratchpad vs redis. Target >= 1.0 x.
#  3. Replay speed: a dataset of REPLAY_N SETs of REPLAY_SIZE-byte values over
#     REPLAY_KEYS keys plus BIG_COUNT values of BIG_SIZE (+-50 %) log text, the
#     same bytes to both servers (bench/aof_bench.py gen-sets / gen-big, loaded
#     with redis-cli --pipe), automatic rewrites off so that the log is the
#     stream of commands as received (redis: --aof-use-rdb-preamble no, so it
#     replays an AOF, not an RDB). Each server is stopped (SIGTERM) and started
#     again ROUNDS times; measured: wall time from exec to the first +PONG
#     (aof_bench.py waitping, polling every ms; redis answers -LOADING until it
#     has loaded), the server's own load time (scratchpad: INFO persistence
#     aof_last_load_time_ms and its "DB loaded from the log" line; redis: its
#     "DB loaded from append only file: X seconds" line), log bytes and records.
#     Then once more after a BGREWRITEAOF on each (scratchpad's base holds the
#     large values LZ4-compressed, redis's base is an AOF of SETs).
#     Targets: >= 200 MB/s of log, >= 1.0 x redis (records/s, time to load).
#  4. Rewrite of ~1 GB (RW_KEYS x RW_SIZE-byte values of log text): while
#     redis-benchmark -t set -c RW_CLIENTS -P 1 -r RW_KEYS -d RW_SIZE overwrites
#     those keys, aof_bench.py probe PINGs every ms on its own connection, sends
#     BGREWRITEAOF after RW_BEFORE s (the seconds before are the control: the
#     same load without a rewrite), waits for the end of the rewrite and pings
#     RW_AFTER s more, while sampling the memory of the server and of its child.
#     Measured: the longest PING round trip in the control, in the fork window
#     (the pings in flight while BGREWRITEAOF ran), during the rewrite and after
#     it; the fork time (scratchpad INFO aof_last_fork_usec, redis
#     latest_fork_usec); peak of server VmRSS + the child's private memory
#     (Private_Clean + Private_Dirty of /proc/<child>/smaps_rollup: what it no
#     longer shares) against the server's median VmRSS in the control.
#     Targets: no pause > 10 ms besides the fork; peak <= 1.5 x steady state.
#     Then, unless PERF_TRACE=0, one more BGREWRITEAOF on the last round's
#     servers under `perf trace --duration 5 -p <server>`: the server's main-
#     thread system calls of 5 ms or more, i.e. where its pauses come from.
#
# The servers run on CPU SERVER_CPU, every client (redis-benchmark, redis-cli,
# the probe) on CPU BENCH_CPU (taskset); the probe runs under SCHED_FIFO (chrt)
# when it can, so that its own wake-ups are not what it measures. All the data
# directories are under one temporary directory (WORK_DIR, default under
# ${TMPDIR:-/tmp}): the same filesystem for both servers; the report names it.
# Servers on free ports, stopped by PID (SIGTERM) at the end of each
# measurement and on exit, Ctrl-C included. A benchmark, not a test: it asserts
# nothing. The report (Markdown) goes to standard output and to OUT, with the
# raw outputs (every redis-benchmark line, the probe's JSON, the servers' load
# lines) after it; progress goes to standard error.
#
# Environment (all optional):
#   PARTS        which parts to run                   ("1 2 3 4")
#   ROUNDS       rounds                                (3)
#   QUICK=1      a smoke run: 1 round, small datasets, short tests
#   P1_N         requests of part 1                    (1000000)
#   P2_N1, P2_N16  requests of part 2, -P 1 / -P 16    (100000 / 1000000)
#   REPLAY_N, REPLAY_KEYS, REPLAY_SIZE   part 3 small SETs (3000000, 2000000, 100)
#   BIG_COUNT, BIG_SIZE                  part 3 large values (100, 1m)
#   RW_KEYS, RW_SIZE     part 4 dataset                (1000000, 1024)
#   RW_CLIENTS           part 4 background load connections (20)
#   RW_BEFORE, RW_AFTER  seconds of pings before BGREWRITEAOF / after it (5, 2)
#   RW_CHILD_CPU aof-rewrite-cpulist of scratchpad in part 4: the rewrite
#                child's CPU ($BENCH_CPU; "" leaves it on the server's CPU,
#                where it takes half of that CPU from the server). Redis has
#                the same directive, but Debian's 7.0.15 refuses it ("Bad
#                directive"): its child stays on the server's CPU.
#   RW_MODE      aof-rewrite-mode of scratchpad in part 4 (incremental: the
#                loop writes the base in steps, no fork; fork: a child, as redis)
#   PERF_TRACE   0: no traced rewrite in part 4       (1)
#   SERVER, REDIS_SERVER, REDIS_BENCHMARK, REDIS_CLI, PYTHON   the binaries
#   SERVER_CPU, BENCH_CPU  (0, 1)
#   WORK_DIR     parent of the temporary directory    (${TMPDIR:-/tmp})
#   OUT          report file (default bench/results/aof-<date>.md; "" for none)
#   KEEP=1       keep the temporary directory (server logs, probe data)
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-redis-benchmark}
REDIS_CLI=${REDIS_CLI:-redis-cli}
PYTHON=${PYTHON:-/usr/bin/python3}
HELPER="$TOP/bench/aof_bench.py"
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
    ROUNDS=${ROUNDS:-1}
    P1_N=${P1_N:-200000}
    P2_N1=${P2_N1:-10000}
    P2_N16=${P2_N16:-100000}
    REPLAY_N=${REPLAY_N:-200000}
    REPLAY_KEYS=${REPLAY_KEYS:-100000}
    BIG_COUNT=${BIG_COUNT:-10}
    RW_KEYS=${RW_KEYS:-100000}
    RW_BEFORE=${RW_BEFORE:-2}
    RW_AFTER=${RW_AFTER:-1}
    OUT=${OUT-}
fi
PARTS=${PARTS:-1 2 3 4}
ROUNDS=${ROUNDS:-3}
P1_N=${P1_N:-1000000}
P2_N1=${P2_N1:-100000}
P2_N16=${P2_N16:-1000000}
REPLAY_N=${REPLAY_N:-3000000}
REPLAY_KEYS=${REPLAY_KEYS:-2000000}
REPLAY_SIZE=${REPLAY_SIZE:-100}
BIG_COUNT=${BIG_COUNT:-100}
BIG_SIZE=${BIG_SIZE:-1m}
RW_KEYS=${RW_KEYS:-1000000}
RW_SIZE=${RW_SIZE:-1024}
RW_CLIENTS=${RW_CLIENTS:-20}
RW_BEFORE=${RW_BEFORE:-5}
RW_AFTER=${RW_AFTER:-2}
PERF_TRACE=${PERF_TRACE:-1}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
RW_CHILD_CPU=${RW_CHILD_CPU-$BENCH_CPU}
RW_MODE=${RW_MODE:-incremental}
STAMP=$(date -u '+%Y-%m-%d-%H%M')
OUT=${OUT-$TOP/bench/results/aof-$STAMP.md}
KEEP=${KEEP:-0}
START_TIMEOUT=${START_TIMEOUT:-600}

say() { echo "$(date '+%H:%M:%S') $*" >&2; }
die() { say "aof-vs-redis: $*"; exit 1; }

for bin in "$SERVER" "$REDIS_SERVER" "$REDIS_BENCHMARK" "$REDIS_CLI" "$PYTHON"; do
    command -v "$bin" >/dev/null 2>&1 || die "$bin not found (run make; install redis-server, redis-tools, python3)"
done
[ -f "$HELPER" ] || die "$HELPER missing"

WORK=$(mktemp -d "${WORK_DIR:-${TMPDIR:-/tmp}}/aof-bench.XXXXXX") || die "cannot create a temporary directory"
# A copy of the server binary: others may rebuild it during the run, and every
# measurement must use the same one.
SERVER_SRC=$SERVER
cp "$SERVER" "$WORK/scratchpad-server" || die "cannot copy $SERVER"
SERVER="$WORK/scratchpad-server"
SERVER_MTIME=$(date -u -r "$SERVER_SRC" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null)
SERVER_SUM=$(sha256sum "$SERVER" 2>/dev/null | cut -c1-12)
RESULTS="$WORK/results" # one line per measurement, see each part
RAW="$WORK/raw.md"      # raw outputs, appended to the report
REPORT="$WORK/report.md"
: >"$RESULTS"
: >"$RAW"
: >"$REPORT"
PIDS=""

cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    if [ "$KEEP" = 1 ]; then
        say "kept $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$TOP/bench/lib.sh"
bench_pin "clients"
RT=""
if command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then
    RT="chrt -f 10"
fi

raw() { cat >>"$RAW"; }

now() { date '+%s.%N'; }


cli() { # port args...: one command, reply on stdout
    _p=$1
    shift
    $PIN_BENCH "$REDIS_CLI" -h 127.0.0.1 -p "$_p" "$@" 2>/dev/null | tr -d '\r'
}

info_get() { # port section field
    cli "$1" info "$2" | sed -n "s/^$3://p" | head -n 1
}

alive() { # pid: running (not a zombie)
    _st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$_st" ] && [ "$_st" != Z ]
}

# start_server scratchpad|redis DIR LOG [directives...]: starts a server on a
# free port with its data in DIR, waits until PING answers +PONG; sets SPID,
# SPORT, T_START (just before exec) and T_READY (the first +PONG), epoch seconds.
start_server() {
    _kind=$1
    _dir=$2
    _log=$3
    shift 3
    _tries=0
    while [ $_tries -lt 3 ]; do
        _tries=$((_tries + 1))
        SPORT=$(free_port)
        T_START=$(now)
        if [ "$_kind" = scratchpad ]; then
            $PIN_SERVER "$SERVER" --port "$SPORT" --bind 127.0.0.1 --dir "$_dir" "$@" >>"$_log" 2>&1 &
        else
            $PIN_SERVER "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' --daemonize no \
                --dir "$_dir" "$@" >>"$_log" 2>&1 &
        fi
        SPID=$!
        PIDS="$PIDS $SPID"
        if T_READY=$($PIN_BENCH "$PYTHON" "$HELPER" waitping "$SPORT" --pid "$SPID" --timeout "$START_TIMEOUT"); then
            # A server that could not bind its port exits at once: still alive
            # a moment later means the PONG was ours.
            sleep 0.1
            alive "$SPID" && return 0
        fi
        stop_server "$SPID"
        say "  $_kind did not start on port $SPORT; log:"
        tail -n 5 "$_log" >&2
        grep -qi 'address already in use' "$_log" || break
    done
    die "could not start $_kind (see above)"
}

# stop_server PID: SIGTERM, then wait (bounded: SIGKILL after 120 s).
stop_server() {
    kill "$1" 2>/dev/null
    _i=0
    while alive "$1" && [ $_i -lt 1200 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    alive "$1" && { say "  $1 ignored SIGTERM for 120 s: SIGKILL"; kill -9 "$1" 2>/dev/null; }
    wait "$1" 2>/dev/null
    _rest=""
    for _p in $PIDS; do
        [ "$_p" = "$1" ] || _rest="$_rest $_p"
    done
    PIDS=$_rest
}

# rotate "a b c" R: the list rotated left by R-1 places (round R's order).
rotate() {
    echo "$1" | awk -v r="$2" '{ n = NF; s = ""; for (i = 0; i < n; i++) s = s (i ? " " : "") $(((i + r - 1) % n) + 1); print s }'
}

median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "";
        else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

fmt() { # number with thousands separators
    awk -v v="$1" 'BEGIN { if (v == "") { print "n/a"; exit } s = sprintf("%.0f", v); o = "";
        while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } print s o }'
}

# met VALUE OP TARGET: "yes" or "no"
met() {
    awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { if (a == "" || a == "n/a") { print "n/a"; exit }
        r = (op == ">=") ? (a + 0 >= b + 0) : (a + 0 <= b + 0); print (r ? "yes" : "no") }'
}

# rb_set PORT ARGS...: redis-benchmark -t set ARGS -q; prints the whole output
# (progress lines removed) and sets RPS.
rb_out() {
    $PIN_BENCH "$REDIS_BENCHMARK" -h 127.0.0.1 -p "$@" -q 2>&1 | tr '\r' '\n' | grep -v '^ *$' | grep -v 'rps=' |
        grep -v 'Could not fetch server CONFIG'
}
rps_of() {
    sed -n 's/^SET: \([0-9.]*\) requests per second.*/\1/p' | tail -n 1
}

proc_cpu() { # pid: "self children" CPU seconds (utime+stime of all its threads; of its reaped children)
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null |
        awk -v hz="$HZ" '{ printf "%.3f %.3f\n", ($12 + $13) / hz, ($14 + $15) / hz }'
}

steal_now() { # steal ticks of the server's CPU
    awk -v c="cpu$SERVER_CPU" '$1 == c { print $9 }' /proc/stat 2>/dev/null
}

busy_now() { # CPU: "busy total" ticks (busy = all but idle, iowait and steal)
    awk -v c="cpu$1" '$1 == c { t = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; print t - $5 - $6 - $9, t }' /proc/stat 2>/dev/null
}

rewrites_in() { # server log: rewrites started
    grep -c 'Background append only file rewriting started' "$1" 2>/dev/null
}

# pipe_file PORT FILE: redis-cli --pipe; dies on any error reply.
pipe_file() {
    _o=$($PIN_BENCH "$REDIS_CLI" -h 127.0.0.1 -p "$1" --pipe <"$2" 2>&1 | tr -d '\r' | tail -n 1)
    case "$_o" in
    "errors: 0, replies: "*) ;;
    *) die "redis-cli --pipe of $2 to port $1: $_o" ;;
    esac
}

wait_lz4() { # port: until scratchpad's background compression is done (bounded)
    _i=0
    while [ $_i -lt 600 ]; do
        _v=$(info_get "$1" memory lz4_pending_values)
        [ -z "$_v" ] && _v=$(cli "$1" info | sed -n 's/^lz4_pending_values://p')
        [ "${_v:-0}" = 0 ] && return 0
        sleep 0.1
        _i=$((_i + 1))
    done
    say "  warning: lz4_pending_values still $_v after 60 s"
}

wait_rewrite() { # port: until no rewrite is in progress or scheduled (bounded)
    _i=0
    while [ $_i -lt 3000 ]; do
        _ip=$(info_get "$1" persistence aof_rewrite_in_progress)
        _sc=$(info_get "$1" persistence aof_rewrite_scheduled)
        [ "$_ip" = 0 ] && [ "${_sc:-0}" = 0 ] && return 0
        sleep 0.1
        _i=$((_i + 1))
    done
    die "rewrite on port $1 did not finish in 300 s"
}

log_bytes() { # dir kind: bytes of log files
    if [ "$2" = scratchpad ]; then
        cat "$1"/scratchpad.aof.* 2>/dev/null | wc -c
    else
        cat "$1"/appendonlydir/*.aof 2>/dev/null | wc -c
    fi
}

HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
STEAL_START=$(awk '/^cpu / { print $9 }' /proc/stat 2>/dev/null)
T_BEGIN=$(date +%s)
FS_DEV=$(df -P "$WORK" 2>/dev/null | awk 'NR == 2 { print $1 " mounted on " $6 }')
FS_MOUNT=$(df -P "$WORK" 2>/dev/null | awk 'NR == 2 { print $6 }')
FS_TYPE=$(awk -v m="$FS_MOUNT" '$2 == m { t = $3 } END { print t }' /proc/mounts 2>/dev/null)
[ -n "$FS_TYPE" ] || FS_TYPE=$(stat -f -c %T "$WORK" 2>/dev/null)
FS_OPTS=$(awk -v m="$FS_MOUNT" '$2 == m { o = $4 } END { print o }' /proc/mounts 2>/dev/null)
FS_SRC=$(awk -v m="$FS_MOUNT" '$2 == m { d = $1 } END { print d }' /proc/mounts 2>/dev/null)
if [ "$FS_TYPE" = ext4 ] && [ -r "/sys/fs/ext4/$(basename "$FS_SRC")/journal_task" ]; then
    case $(cat "/sys/fs/ext4/$(basename "$FS_SRC")/journal_task") in
    "<none>") FS_TYPE="ext4 without a journal" ;;
    *) FS_TYPE="ext4 with a journal" ;;
    esac
fi
say "work directory $WORK ($FS_TYPE, $FS_DEV)"

# =============================================================================
# Part 1: everysec throughput
# =============================================================================
part1() {
    say "== part 1: SET -P 16 with appendfsync everysec"
    echo "## Part 1: redis-benchmark -t set -P 16 -c 50 -r 100000 -n $P1_N -q" | raw
    echo | raw
    cfgs="sp-off sp-everysec redis-everysec redis-off"
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        for cfg in $(rotate "$cfgs" "$r"); do
            dir=$(mktemp -d "$WORK/p1-$cfg.XXXXXX")
            case $cfg in
            sp-off) start_server scratchpad "$dir" "$dir/server.log" --appendonly no ;;
            sp-everysec) start_server scratchpad "$dir" "$dir/server.log" --appendonly yes --appendfsync everysec ;;
            redis-everysec) start_server redis "$dir" "$dir/server.log" --appendonly yes --appendfsync everysec ;;
            redis-off) start_server redis "$dir" "$dir/server.log" --appendonly no ;;
            esac
            c0=$(proc_cpu "$SPID")
            st0=$(steal_now)
            b0=$(busy_now "$BENCH_CPU")
            out=$(rb_out "$SPORT" -t set -P 16 -c 50 -r 100000 -n "$P1_N")
            b1=$(busy_now "$BENCH_CPU")
            st1=$(steal_now)
            c1=$(proc_cpu "$SPID")
            # how busy the client's CPU was (1.00: the client limited the rate)
            cbusy=$(echo "$b0 $b1" | awk '{ t = $4 - $2; if (t > 0) printf "%.2f", ($3 - $1) / t; else print "" }')
            rps=$(echo "$out" | rps_of)
            delayed=$(info_get "$SPORT" persistence aof_delayed_fsync)
            stop_server "$SPID"
            rw=$(rewrites_in "$dir/server.log")
            # server CPU (its threads + reaped rewrite children) per SET, in us;
            # CPU time stolen by the hypervisor from the server's CPU, in s
            cpu=$(echo "$c0 $c1" | awk -v n="$P1_N" '{ printf "%.3f", (($3 + $4) - ($1 + $2)) * 1e6 / n }')
            steal=$(awk -v a="${st0:-0}" -v b="${st1:-0}" -v hz="$HZ" 'BEGIN { printf "%.2f", (b - a) / hz }')
            echo "p1 $cfg $r ${rps:-} ${rw:-0} $cpu $steal ${cbusy:-}" >>"$RESULTS"
            say "  round $r $cfg: ${rps:-failed} SET/s, $cpu us of server CPU per SET, steal $steal s, client CPU busy ${cbusy:-?} (rewrites started: ${rw:-0})"
            {
                echo "- round $r, $cfg: \`$(echo "$out" | tail -n 1)\` (server CPU $cpu us/SET; CPU $SERVER_CPU stolen $steal s; CPU $BENCH_CPU busy ${cbusy:-?}; log rewrites started during the run: ${rw:-0}; aof_delayed_fsync: ${delayed:-n/a})"
            } | raw
            rm -rf "$dir"
        done
        r=$((r + 1))
    done
    echo | raw
}

report1() {
    med() { awk -v c="$1" '$1 == "p1" && $2 == c && $4 != "" { print $4 }' "$RESULTS" | median; }
    rounds() { awk -v c="$1" '$1 == "p1" && $2 == c { printf "%s%s", (n++ ? ", " : ""), ($4 == "" ? "failed" : sprintf("%.0f", $4)) }' "$RESULTS"; }
    rws() { awk -v c="$1" '$1 == "p1" && $2 == c { printf "%s%s", (n++ ? "/" : ""), $5 }' "$RESULTS"; }
    cpum() { awk -v c="$1" '$1 == "p1" && $2 == c && $6 != "" { print $6 }' "$RESULTS" | median; }
    stl() { awk -v c="$1" '$1 == "p1" && $2 == c { printf "%s%s", (n++ ? "/" : ""), $7 }' "$RESULTS"; }
    cb() { awk -v c="$1" '$1 == "p1" && $2 == c { printf "%s%s", (n++ ? "/" : ""), $8 }' "$RESULTS"; }
    off=$(med sp-off)
    es=$(med sp-everysec)
    res=$(med redis-everysec)
    roff=$(med redis-off)
    r_off=$(ratio "$es" "$off")
    r_red=$(ratio "$es" "$res")
    echo "## 1. Logging cost with appendfsync everysec"
    echo
    echo "\`redis-benchmark -t set -P 16 -c 50 -r 100000 -n $P1_N -q\`, a fresh server per run."
    echo
    echo "| server | SET/s per round | median | server CPU us/SET (median) | CPU $SERVER_CPU stolen, s per run | client CPU busy per run | rewrites started per run |"
    echo "|---|---|---:|---:|---|---|---|"
    echo "| scratchpad --appendonly no | $(rounds sp-off) | $(fmt "$off") | $(cpum sp-off) | $(stl sp-off) | $(cb sp-off) | - |"
    echo "| scratchpad --appendonly yes --appendfsync everysec | $(rounds sp-everysec) | $(fmt "$es") | $(cpum sp-everysec) | $(stl sp-everysec) | $(cb sp-everysec) | $(rws sp-everysec) |"
    echo "| redis --appendonly yes --appendfsync everysec | $(rounds redis-everysec) | $(fmt "$res") | $(cpum redis-everysec) | $(stl redis-everysec) | $(cb redis-everysec) | $(rws redis-everysec) |"
    echo "| redis --appendonly no (context) | $(rounds redis-off) | $(fmt "$roff") | $(cpum redis-off) | $(stl redis-off) | $(cb redis-off) | - |"
    echo
    echo "- scratchpad everysec / scratchpad without log: **${r_off}x** (target >= 0.9: $(met "$r_off" '>=' 0.9));"
    echo "  by server CPU per SET (the rate if the server alone limited it): $(ratio "$(cpum sp-off)" "$(cpum sp-everysec)")x"
    echo "- scratchpad everysec / redis everysec: **${r_red}x** (target >= 1.0: $(met "$r_red" '>=' 1.0));"
    echo "  by server CPU per SET: $(ratio "$(cpum redis-everysec)" "$(cpum sp-everysec)")x"
    echo "- (redis everysec / redis without log: $(ratio "$res" "$roff")x)"
    echo
    echo "Server CPU = utime + stime of the server's threads and of its reaped children (a rewrite"
    echo "child), from /proc/<pid>/stat, over the run. Stolen: steal ticks of CPU $SERVER_CPU (/proc/stat)"
    echo "during the run, time the hypervisor gave to other guests. Client CPU busy: share of CPU $BENCH_CPU's"
    echo "non-stolen time that was busy during the run (redis-benchmark runs there alone; 1.00 = the client"
    echo "was the limit)."
    echo
    echo "TARGET|1 everysec vs no log >= 0.9x|${r_off}x|$(met "$r_off" '>=' 0.9)" >>"$WORK/targets"
    echo "TARGET|1 everysec vs redis everysec >= 1.0x|${r_red}x|$(met "$r_red" '>=' 1.0)" >>"$WORK/targets"
}

# =============================================================================
# Part 2: appendfsync always
# =============================================================================
part2() {
    say "== part 2: SET with appendfsync always"
    {
        echo "## Part 2: appendfsync always; redis-benchmark -t set -c 50 -r 100000 (-n $P2_N1 at -P 1, -n $P2_N16 at -P 16) -q"
        echo
    } | raw
    HAVE_PERF=0
    if command -v perf >/dev/null 2>&1 && perf stat -e syscalls:sys_enter_fdatasync true >/dev/null 2>&1; then
        HAVE_PERF=1
    fi
    P2_DISK_START=$("$PYTHON" "$HELPER" fsync-lat "$WORK" 2)
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        # Both servers at once, fresh every round; each test runs on one then
        # at once on the other, the order swapping every round.
        for kind in scratchpad redis; do
            dir=$(mktemp -d "$WORK/p2-$kind.XXXXXX")
            start_server "$kind" "$dir" "$dir/server.log" --appendonly yes --appendfsync always
            eval "P2_PORT_$kind=\$SPORT; P2_PID_$kind=\$SPID; P2_DIR_$kind=\$dir"
        done
        for p in 1 16; do
            if [ "$p" = 1 ]; then n=$P2_N1; else n=$P2_N16; fi
            for kind in $(rotate "scratchpad redis" "$r"); do
                port=""
                pid=""
                eval "port=\$P2_PORT_$kind; pid=\$P2_PID_$kind"
                spid=""
                if [ "$HAVE_PERF" = 1 ]; then
                    $PIN_BENCH perf stat -x, -e syscalls:sys_enter_fdatasync,syscalls:sys_enter_fsync -p "$pid" \
                        -o "$WORK/p2-perfstat" 2>/dev/null &
                    spid=$!
                    sleep 0.3
                fi
                out=$(rb_out "$port" -t set -P "$p" -c 50 -r 100000 -n "$n")
                syncs=""
                if [ -n "$spid" ]; then
                    kill -INT "$spid" 2>/dev/null
                    wait "$spid" 2>/dev/null
                    syncs=$(awk -F, '$3 ~ /sys_enter_f(data)?sync/ { s += $1 } END { print s + 0 }' "$WORK/p2-perfstat")
                fi
                rps=$(echo "$out" | rps_of)
                echo "p2 $kind $p $r ${rps:-} ${syncs:-} $n" >>"$RESULTS"
                say "  round $r $kind -P $p: ${rps:-failed} SET/s, ${syncs:-?} fdatasyncs"
                echo "- round $r, $kind, -P $p: \`$(echo "$out" | tail -n 1)\` (fdatasync + fsync calls: ${syncs:-n/a})" | raw
            done
        done
        for kind in scratchpad redis; do
            eval "pid=\$P2_PID_$kind; dir=\$P2_DIR_$kind"
            stop_server "$pid"
            echo "  ($kind: log rewrites started during the round: $(rewrites_in "$dir/server.log"))" | raw
            rm -rf "$dir"
        done
        r=$((r + 1))
    done
    P2_DISK_END=$("$PYTHON" "$HELPER" fsync-lat "$WORK" 2)
    echo | raw
}

report2() {
    echo "## 2. appendfsync always"
    echo
    echo "\`redis-benchmark -t set -c 50 -r 100000 -P {1,16} -q\` (-n $P2_N1 / $P2_N16), both servers with"
    echo "\`--appendonly yes --appendfsync always\`, both running, fresh every round; each test runs on one"
    echo "server then at once on the other, the order swapping every round. fdatasyncs: fdatasync + fsync"
    echo "calls of the server during the test (\`perf stat -e syscalls:sys_enter_fdatasync,...\`)."
    echo
    echo "| -P | scratchpad SET/s per round | median | SETs per fdatasync | redis SET/s per round | median | SETs per fdatasync | scratchpad/redis | target >= 1.0 |"
    echo "|---:|---|---:|---:|---|---:|---:|---:|---|"
    for p in 1 16; do
        rd() { awk -v k="$1" -v p="$p" '$1 == "p2" && $2 == k && $3 == p { printf "%s%s", (n++ ? ", " : ""), ($5 == "" ? "failed" : sprintf("%.0f", $5)) }' "$RESULTS"; }
        md() { awk -v k="$1" -v p="$p" '$1 == "p2" && $2 == k && $3 == p && $5 != "" { print $5 }' "$RESULTS" | median; }
        per() { awk -v k="$1" -v p="$p" '$1 == "p2" && $2 == k && $3 == p && $6 + 0 > 0 { printf "%.1f\n", $7 / $6 }' "$RESULTS" | median; }
        s=$(md scratchpad)
        d=$(md redis)
        rt=$(ratio "$s" "$d")
        # the ratio of each round (same minute, same disk state), then their median
        rr=$(awk -v p="$p" '$1 == "p2" && $3 == p && $5 != "" { v[$2 " " $4] = $5 } END {
            for (k in v) { split(k, a, " "); if (a[1] == "scratchpad" && ("redis " a[2]) in v) printf "%.3f\n", v[k] / v["redis " a[2]] } }' "$RESULTS" | median)
        echo "| $p | $(rd scratchpad) | $(fmt "$s") | $(per scratchpad) | $(rd redis) | $(fmt "$d") | $(per redis) | **${rt}x** (median of per-round ratios $(ratio "$rr" 1)x) | $(met "$rt" '>=' 1.0) |"
        echo "TARGET|2 always -P $p vs redis >= 1.0x|${rt}x|$(met "$rt" '>=' 1.0)" >>"$WORK/targets"
    done
    echo
    echo "Disk state, \`aof_bench.py fsync-lat\` (append 4 KB + fdatasync for 2 s, in the data directory's"
    echo "filesystem): before the tests $(echo "${P2_DISK_START:-}" | awk '{ printf "%d syncs, p50 %s ms, p99 %s ms, max %s ms", $1, $2, $3, $4 }');"
    echo "after $(echo "${P2_DISK_END:-}" | awk '{ printf "%d syncs, p50 %s ms, p99 %s ms, max %s ms", $1, $2, $3, $4 }')."
    echo "With \`always\` a SET is answered only after an fdatasync covering it, so the rate is"
    echo "(SETs per fdatasync) x (fdatasyncs per second): the disk's latency, which drifts on this shared VM."
    echo
}

# =============================================================================
# Part 3: replay speed
# =============================================================================
P3_RECORDS=0
part3() {
    say "== part 3: replay speed"
    small="$WORK/p3-small.resp"
    big="$WORK/p3-big.resp"
    say "  generating $REPLAY_N SETs of $REPLAY_SIZE bytes over $REPLAY_KEYS keys, and $BIG_COUNT x $BIG_SIZE log text"
    ns=$("$PYTHON" "$HELPER" gen-sets "$small" "$REPLAY_N" "$REPLAY_KEYS" "$REPLAY_SIZE" --seed 3) || die "gen-sets failed"
    nb=$("$PYTHON" "$HELPER" gen-big "$big" "$BIG_COUNT" "$BIG_SIZE" --vary 0.5 --seed 4) || die "gen-big failed"
    P3_RECORDS=$((ns + nb))
    P3_BYTES_SMALL=$(wc -c <"$small")
    P3_BYTES_BIG=$(wc -c <"$big")
    {
        echo "## Part 3: replay"
        echo
        echo "dataset: $ns SETs (RESP $P3_BYTES_SMALL bytes) + $nb large SETs (RESP $P3_BYTES_BIG bytes)"
        echo
    } | raw
    SPD="$WORK/p3-scratchpad"
    RDD="$WORK/p3-redis"
    mkdir -p "$SPD" "$RDD"
    SPARGS="--appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 0"
    RDARGS="--appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 0 --aof-use-rdb-preamble no"
    for kind in scratchpad redis; do
        if [ "$kind" = scratchpad ]; then d=$SPD; a=$SPARGS; else d=$RDD; a=$RDARGS; fi
        # shellcheck disable=SC2086 # a list of words
        start_server "$kind" "$d" "$d/server.log" $a
        say "  loading the dataset into $kind"
        t0=$(now)
        pipe_file "$SPORT" "$small"
        pipe_file "$SPORT" "$big"
        t1=$(now)
        keys=$(cli "$SPORT" dbsize)
        echo "- $kind: dataset written in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, $keys keys" | raw
        [ "$kind" = scratchpad ] && wait_lz4 "$SPORT"
        stop_server "$SPID"
    done
    rm -f "$small" "$big"
    replay_rounds log
    # The same datasets after a rewrite.
    for kind in scratchpad redis; do
        if [ "$kind" = scratchpad ]; then d=$SPD; a=$SPARGS; else d=$RDD; a=$RDARGS; fi
        # shellcheck disable=SC2086
        start_server "$kind" "$d" "$d/server.log" $a
        [ "$kind" = scratchpad ] && wait_lz4 "$SPORT"
        cli "$SPORT" bgrewriteaof >/dev/null
        sleep 0.2
        wait_rewrite "$SPORT"
        stop_server "$SPID"
    done
    replay_rounds rewritten
    echo | raw
    rm -rf "$SPD" "$RDD"
}

replay_rounds() { # variant
    v=$1
    sb=$(log_bytes "$SPD" scratchpad)
    rb=$(log_bytes "$RDD" redis)
    {
        echo
        echo "### $v: scratchpad log files $(cd "$SPD" && echo scratchpad.aof.*) ($sb bytes); redis $(cd "$RDD/appendonlydir" && echo *) ($rb bytes)"
        echo
    } | raw
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        for kind in $(rotate "scratchpad redis" "$r"); do
            if [ "$kind" = scratchpad ]; then d=$SPD; a=$SPARGS; b=$sb; else d=$RDD; a=$RDARGS; b=$rb; fi
            # shellcheck disable=SC2086
            start_server "$kind" "$d" "$d/server.log" $a
            wall=$(awk -v a="$T_START" -v b="$T_READY" 'BEGIN { printf "%.3f", b - a }')
            keys=$(cli "$SPORT" dbsize)
            if [ "$kind" = scratchpad ]; then
                ms=$(info_get "$SPORT" persistence aof_last_load_time_ms)
                lsec=$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')
                recs=$(info_get "$SPORT" persistence aof_last_load_records)
                lb=$(info_get "$SPORT" persistence aof_last_load_bytes)
                line=$(grep 'DB loaded from the log' "$d/server.log" | tail -n 1)
                # the log line has the time to a ms: prefer it
                ls2=$(echo "$line" | sed -n 's/.* in \([0-9.]*\) seconds.*/\1/p')
                [ -n "$ls2" ] && lsec=$ls2
                [ -n "$lb" ] && b=$lb
            else
                line=$(grep 'DB loaded from append only file' "$d/server.log" | tail -n 1)
                lsec=$(echo "$line" | sed -n 's/.*append only file: \([0-9.]*\) seconds.*/\1/p')
                # commands in the AOF: every SET as sent (log), one SET per key
                # after a rewrite; plus one SELECT
                if [ "$v" = log ]; then recs=$((P3_RECORDS + 1)); else recs=$((keys + 1)); fi
            fi
            stop_server "$SPID"
            echo "p3 $v $kind $r $wall ${lsec:-} $b ${recs:-} $keys" >>"$RESULTS"
            say "  $v round $r $kind: start to PONG $wall s, load ${lsec:-?} s, $b bytes, ${recs:-?} records, $keys keys"
            echo "- round $r, $kind: start to first PONG $wall s; keys $keys; \`$(echo "$line" | cut -c1-200)\`" | raw
        done
        r=$((r + 1))
    done
}

report3() {
    echo "## 3. Replay speed"
    echo
    echo "Dataset: $(fmt "$REPLAY_N") \`SET key:<12 digits> <$REPLAY_SIZE bytes of log text>\` over $(fmt "$REPLAY_KEYS") keys,"
    echo "then $BIG_COUNT \`SET big:<n> <log text>\` of $BIG_SIZE +- 50 % (the large values agents keep), generated"
    echo "once by \`bench/aof_bench.py gen-sets\` / \`gen-big\` and sent to both servers with \`redis-cli --pipe\`;"
    echo "both with \`--appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 0\`, redis also"
    echo "\`--aof-use-rdb-preamble no\`. Each server is stopped with SIGTERM and started $ROUNDS times on its"
    echo "directory (warm page cache). *log*: the log as written (every command); *rewritten*: after"
    echo "BGREWRITEAOF (one record per key; scratchpad's large values LZ4-compressed in its base)."
    echo "Load time: the server's own (scratchpad: \"DB loaded from the log ... in X seconds\" = INFO"
    echo "aof_last_load_time_ms; redis: \"DB loaded from append only file: X seconds\"); start to PONG:"
    echo "exec to the first +PONG, polled every ms. Medians of the rounds."
    echo
    echo "| log | server | log bytes | records | keys | load s | start to PONG s | MB/s of log | records/s | load time redis/scratchpad |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for v in log rewritten; do
        grep -q "^p3 $v " "$RESULTS" || continue
        for kind in scratchpad redis; do
            sel() { awk -v v="$v" -v k="$kind" -v f="$1" '$1 == "p3" && $2 == v && $3 == k && $f != "" { print $f }' "$RESULTS"; }
            wall=$(sel 5 | median)
            ls=$(sel 6 | median)
            b=$(sel 7 | median)
            recs=$(sel 8 | median)
            keys=$(sel 9 | median)
            mbs=$(awk -v b="$b" -v s="$ls" 'BEGIN { if (s + 0 > 0) printf "%.0f", b / 1e6 / s; else print "n/a" }')
            rps=$(awk -v r="$recs" -v s="$ls" 'BEGIN { if (s + 0 > 0) printf "%.0f", r / s; else print "" }')
            eval "P3_${kind}_ls=\$ls; P3_${kind}_wall=\$wall; P3_${kind}_rps=\$rps; P3_${kind}_mbs=\$mbs"
            if [ "$kind" = redis ]; then
                # shellcheck disable=SC2154 # set by the eval above
                rt="$(ratio "$ls" "$P3_scratchpad_ls")x (start to PONG $(ratio "$wall" "$P3_scratchpad_wall")x)"
            else
                rt=""
            fi
            echo "| $v | $kind | $(fmt "$b") | $(fmt "$recs") | $(fmt "$keys") | $ls | $wall | $mbs | $(fmt "$rps") | $rt |"
        done
        # shellcheck disable=SC2154
        rr=$(ratio "$P3_scratchpad_rps" "$P3_redis_rps")
        # shellcheck disable=SC2154
        tr_=$(ratio "$P3_redis_ls" "$P3_scratchpad_ls")
        # shellcheck disable=SC2154
        echo "TARGET|3 replay ($v) >= 200 MB/s of log|${P3_scratchpad_mbs} MB/s|$(met "$P3_scratchpad_mbs" '>=' 200)" >>"$WORK/targets"
        echo "TARGET|3 replay ($v) records/s vs redis >= 1.0x|${rr}x|$(met "$rr" '>=' 1.0)" >>"$WORK/targets"
        echo "TARGET|3 replay ($v) time to load, redis/scratchpad >= 1.0x|${tr_}x|$(met "$tr_" '>=' 1.0)" >>"$WORK/targets"
    done
    echo
    echo "MB/s of log = log bytes / load s (each server's own log: scratchpad's records carry a"
    echo "length and a CRC, and its rewritten large values are compressed, so the byte counts differ;"
    echo "records/s and the time to load the same dataset compare like with like)."
    echo
}

# =============================================================================
# Part 4: rewrite of ~1 GB under load
# =============================================================================
part4() {
    say "== part 4: rewrite of $RW_KEYS x $RW_SIZE bytes under load"
    kv="$WORK/p4-kv.resp"
    "$PYTHON" "$HELPER" gen-sets "$kv" "$RW_KEYS" "$RW_KEYS" "$RW_SIZE" --seq --seed 5 >/dev/null || die "gen-sets failed"
    {
        echo "## Part 4: rewrite under load"
        echo
        echo "dataset: $RW_KEYS x SET key:<n> <$RW_SIZE bytes of log text> ($(wc -c <"$kv") bytes of RESP);"
        echo "load: redis-benchmark -t set -c $RW_CLIENTS -P 1 -r $RW_KEYS -d $RW_SIZE -n 1000000000 -q;"
        echo "probe: aof_bench.py probe PORT --pid PID --before $RW_BEFORE --after $RW_AFTER (${RT:-no chrt})"
        echo "scratchpad's aof-rewrite-mode: $RW_MODE$([ "$RW_MODE" = incremental ] && echo ' (no child: the loop writes the base in steps of aof-rewrite-step-us, 1000 us)')"
        echo "rewrite child: ${RW_CHILD_CPU:+scratchpad with aof-rewrite-cpulist $RW_CHILD_CPU; redis's on its server's CPU (Debian's redis-server 7.0.15 refuses the directive)}${RW_CHILD_CPU:-on the server's CPU, both}"
        echo
    } | raw
    r=1
    while [ "$r" -le "$ROUNDS" ]; do
        for kind in $(rotate "scratchpad redis" "$r"); do
            dir=$(mktemp -d "$WORK/p4-$kind.XXXXXX")
            cpulist=""
            mode=""
            [ "$kind" = scratchpad ] && cpulist=$RW_CHILD_CPU && mode=$RW_MODE
            start_server "$kind" "$dir" "$dir/server.log" --appendonly yes --appendfsync everysec \
                --auto-aof-rewrite-percentage 0 ${cpulist:+--aof-rewrite-cpulist "$cpulist"} \
                ${mode:+--aof-rewrite-mode "$mode"}
            say "  round $r $kind: loading"
            pipe_file "$SPORT" "$kv"
            [ "$kind" = scratchpad ] && wait_lz4 "$SPORT"
            $PIN_BENCH "$REDIS_BENCHMARK" -h 127.0.0.1 -p "$SPORT" -t set -c "$RW_CLIENTS" -P 1 -r "$RW_KEYS" \
                -d "$RW_SIZE" -n 1000000000 -q >"$dir/load.out" 2>&1 &
            LPID=$!
            PIDS="$PIDS $LPID"
            sleep 2
            say "  round $r $kind: probe and BGREWRITEAOF"
            # shellcheck disable=SC2086 # RT is a command prefix
            $PIN_BENCH $RT "$PYTHON" "$HELPER" probe "$SPORT" --pid "$SPID" --before "$RW_BEFORE" \
                --after "$RW_AFTER" >"$WORK/p4-$kind-$r.json" 2>"$dir/probe.err" ||
                say "  probe failed: $(cat "$dir/probe.err")"
            if [ "$r" = "$ROUNDS" ] && [ "$PERF_TRACE" != 0 ] && command -v perf >/dev/null 2>&1; then
                # One more rewrite, traced: the main thread's long system calls.
                say "  round $r $kind: traced rewrite (perf trace)"
                echo "$SPID" >"$WORK/p4-$kind-trace.pid"
                $PIN_BENCH perf trace --duration 5 -p "$SPID" -o "$WORK/p4-$kind-trace.txt" 2>"$dir/trace.err" &
                TPID=$!
                PIDS="$PIDS $TPID"
                sleep 1
                # shellcheck disable=SC2086
                $PIN_BENCH $RT "$PYTHON" "$HELPER" probe "$SPORT" --pid "$SPID" --before 2 \
                    --after "$RW_AFTER" >"$WORK/p4-$kind-traced.json" 2>>"$dir/probe.err"
                kill -INT "$TPID" 2>/dev/null
                wait "$TPID" 2>/dev/null
                PIDS=$(echo "$PIDS" | sed "s/ $TPID\$//; s/ $TPID / /")
            fi
            kill "$LPID" 2>/dev/null
            wait "$LPID" 2>/dev/null
            PIDS=$(echo "$PIDS" | sed "s/ $LPID\$//; s/ $LPID / /")
            stop_server "$SPID"
            echo "p4 $kind $r" >>"$RESULTS"
            {
                echo "- round $r, $kind: \`$(cat "$WORK/p4-$kind-$r.json")\`"
                [ -f "$WORK/p4-$kind-traced.json" ] && [ "$r" = "$ROUNDS" ] &&
                    echo "- traced rewrite, $kind: \`$(cat "$WORK/p4-$kind-traced.json")\`"
                grep -E 'rewriting started|rewrite finished|rewrite.*(terminated|success)|fork' "$dir/server.log" |
                    sed 's/^/    - /' | tail -n 6
            } | raw
            say "  round $r $kind: $("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("fork %s us, max pause besides fork %s ms, peak %s x" % (d.get("fork_usec"), d.get("other_ping_max_ms"), d.get("peak_ratio")))' "$WORK/p4-$kind-$r.json" 2>/dev/null)"
            rm -rf "$dir"
        done
        r=$((r + 1))
    done
    rm -f "$kv"
    echo | raw
}

report4() {
    echo "## 4. Rewrite of ~1 GB under load"
    echo
    echo "Dataset: $(fmt "$RW_KEYS") \`SET key:<12 digits> <$RW_SIZE bytes of log text>\` (\`aof_bench.py gen-sets --seq\`, sent"
    echo "with \`redis-cli --pipe\`), both servers with \`--appendonly yes --appendfsync everysec"
    echo "--auto-aof-rewrite-percentage 0\` (redis: its default RDB preamble in the rewritten base). Load during"
    echo "the measurement: \`redis-benchmark -t set -c $RW_CLIENTS -P 1 -r $RW_KEYS -d $RW_SIZE\` (overwrites the same keys,"
    echo "so the server copies pages on write while the child runs). Probe: \`aof_bench.py probe\` (PING every"
    echo "1 ms on its own connection, ${RT:-no} real-time priority on CPU $BENCH_CPU): $RW_BEFORE s of control, then BGREWRITEAOF,"
    echo "until the rewrite is over, then $RW_AFTER s. *fork window*: the pings in flight while BGREWRITEAOF ran"
    echo "(fork and the start of the rewrite); *besides the fork*: all the other pings from BGREWRITEAOF"
    echo "to the end. Memory: server VmRSS + the child's Private_Clean + Private_Dirty (smaps_rollup), sampled"
    echo "every 50 ms; steady state = the server's median VmRSS in the control seconds. commands/s: all"
    echo "commands processed (the load's SETs, plus the probe's PINGs) per second in the control and while"
    echo "the child ran; held clients: scratchpad's INFO aof_held_clients at the end (clients whose replies"
    echo "wait for the log; anything but 0 a while after the rewrite means stuck writers)."
    echo
    echo "| server | round | used_memory MB | commands/s control -> rewrite | held clients | fork ms | BGREWRITEAOF ms | rewrite s | control: max ms / >10 ms | besides the fork: max ms / >10 ms | steady RSS MB | peak MB | peak/steady | cow (INFO) MB |"
    echo "|---|---:|---:|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"
    for f in $(ls "$WORK"/p4-scratchpad-[0-9]*.json 2>/dev/null) $(ls "$WORK"/p4-redis-[0-9]*.json 2>/dev/null); do
        [ -f "$f" ] || continue
        b=$(basename "$f" .json)
        kind=$(echo "$b" | cut -d- -f2)
        r=$(echo "$b" | cut -d- -f3)
        "$PYTHON" - "$f" "$kind" "$r" "$WORK/p4rows" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
kind, r = sys.argv[2], sys.argv[3]
def g(k, default=None):
    v = d.get(k)
    return default if v is None else v
ib, ia = d.get("info_before", {}), d.get("info_after", {})
um = int(ib.get("used_memory", 0)) / 1048576
fork = g("fork_usec")
fork_ms = "%.1f" % (fork / 1000) if fork is not None else "n/a"
cow = ia.get("aof_last_cow_size")
cow_mb = "%.0f" % (int(cow) / 1048576) if cow else "n/a"
mb = lambda kb: "%.0f" % (kb / 1024) if kb else "n/a"
held = ia.get("aof_held_clients", "-" if kind == "redis" else "n/a")
row = "| %s | %s | %.0f | %s -> %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s | %s |" % (
    kind, r, um, g("cmds_per_sec_control", "n/a"), g("cmds_per_sec_rewrite", "n/a"), held, fork_ms,
    g("bgrewriteaof_latency_ms", "n/a"),
    g("rewrite_seconds", "n/a"), g("baseline_ping_max_ms", "n/a"), g("baseline_over_10ms", "n/a"),
    g("other_ping_max_ms", "n/a"), g("other_pauses_over_10ms", "n/a"), mb(g("steady_rss_kb")),
    mb(g("peak_total_kb")), g("peak_ratio", "n/a"), cow_mb)
if d.get("error"):
    row += " (error: %s)" % d["error"]
print(row)
with open(sys.argv[4], "a") as f:
    f.write("%s %s %s %s %s %s %s\n" % (kind, r, g("other_ping_max_ms", ""), g("peak_ratio", ""),
                                        g("fork_usec", ""), g("baseline_ping_max_ms", ""),
                                        g("other_pauses_over_10ms", "")))
EOF
    done
    echo
    for kind in scratchpad redis; do
        [ -f "$WORK/p4rows" ] || break
        mx=$(awk -v k="$kind" '$1 == k && $3 != "" { print $3 }' "$WORK/p4rows" | median)
        pk=$(awk -v k="$kind" '$1 == k && $4 != "" { print $4 }' "$WORK/p4rows" | median)
        fk=$(awk -v k="$kind" '$1 == k && $5 != "" { print $5 / 1000 }' "$WORK/p4rows" | median)
        bl=$(awk -v k="$kind" '$1 == k && $6 != "" { print $6 }' "$WORK/p4rows" | median)
        echo "- $kind, medians: longest pause besides the fork $mx ms (control, no rewrite: $bl ms), fork $fk ms, peak/steady ${pk}x"
        if [ "$kind" = scratchpad ]; then
            echo "TARGET|4 no pause > 10 ms besides the fork (median of rounds; control $bl ms)|$mx ms|$(met "$mx" '<=' 10)" >>"$WORK/targets"
            echo "TARGET|4 peak RSS (server + child) <= 1.5x steady|${pk}x|$(met "$pk" '<=' 1.5)" >>"$WORK/targets"
        fi
    done
    echo
    for kind in scratchpad redis; do
        tf="$WORK/p4-$kind-trace.txt"
        [ -f "$tf" ] || continue
        echo "Traced rewrite ($kind, \`perf trace --duration 5 -p <server>\`, one more BGREWRITEAOF on the last round's"
        echo "server; the probe meanwhile: $("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("fork %s us, longest pause besides the fork %s ms" % (d.get("fork_usec"), d.get("other_ping_max_ms")))' "$WORK/p4-$kind-traced.json" 2>/dev/null)):"
        echo "system calls of the server's threads lasting 5 ms or more, by thread and call (waits --"
        echo "epoll_wait, futex, sleeps -- left out: waiting for clients is not a pause; perf trace names a"
        echo "descriptor after the last file it saw opened under that number, so a name can be stale):"
        echo
        "$PYTHON" "$HELPER" trace-summary "$tf" --pid "$(cat "$WORK/p4-$kind-trace.pid" 2>/dev/null || echo 0)"
        echo
    done
}

# =============================================================================
# Run and report
# =============================================================================
: >"$WORK/targets"
for part in $PARTS; do
    case $part in
    1) part1 ;;
    2) part2 ;;
    3) part3 ;;
    4) part4 ;;
    *) die "unknown part $part" ;;
    esac
done

T_END=$(date +%s)
STEAL_END=$(awk '/^cpu / { print $9 }' /proc/stat 2>/dev/null)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
memtotal=$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)
{
    echo "# Persistence benchmark: scratchpad-server vs redis-server"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'), $((T_END - T_BEGIN)) s; machine: ${cpu:-unknown CPU}, $(nproc) CPUs, $memtotal RAM, kernel $(uname -r)"
    echo "- scratchpad: $("$SERVER" --version 2>/dev/null | head -n 1); binary $SERVER_SRC built $SERVER_MTIME (sha256 $SERVER_SUM...), copied at the start so that a rebuild cannot change it mid-run"
    echo "- redis: $("$REDIS_SERVER" --version 2>/dev/null | head -n 1), \`--save ''\`"
    echo "- data directories: under $WORK (filesystem $FS_TYPE, $FS_DEV, options $FS_OPTS), the same for both servers"
    echo "- pinning: $PINNING"
    echo "- load average (1, 5, 15 min) at start: ${LOAD_START:-?}, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null);" \
        "CPU time stolen by the hypervisor during the run: $(awk -v a="${STEAL_START:-0}" -v b="${STEAL_END:-0}" -v hz="$HZ" -v t="$((T_END - T_BEGIN))" 'BEGIN { s = (b - a) / hz; printf "%.1f s (%.1f %% of 2 CPUs)", s, (t > 0 ? 100 * s / (2 * t) : 0) }')"
    echo "- rounds: $ROUNDS, servers alternating (order rotated every round), medians; script: \`sh bench/aof-vs-redis.sh\` (PARTS=\"$PARTS\")"
    echo
    for part in $PARTS; do
        case $part in
        1) report1 ;;
        2) report2 ;;
        3) report3 ;;
        4) report4 ;;
        esac
    done
    echo "## Targets"
    echo
    echo "| target | measured | met |"
    echo "|---|---|---|"
    awk -F'|' '$1 == "TARGET" { printf "| %s | %s | %s |\n", $2, $3, $4 }' "$WORK/targets"
    echo
} >"$REPORT"

cat "$REPORT"
if [ -n "$OUT" ]; then
    mkdir -p "$(dirname "$OUT")"
    {
        cat "$REPORT"
        echo "# Raw outputs"
        echo
        cat "$RAW"
    } >"$OUT"
    say "report written to $OUT"
fi
