#!/bin/sh
# sp-vs-redis.sh -- the SP.* performance targets of issue 3, measured next to
# redis-server on the same machine, with the same client, in the same run.
#
# What it measures (ROUNDS rounds; rates are medians over the rounds, ratios
# the median of the per-round ratios):
#  1. Memory: a corpus of log-like text (bench/gen_logs.py; MEM_ENTRIES entries
#     of about MEM_ENTRY_SIZE bytes, 200 x 0.5-1.5 MB by default) loaded into a fresh
#     scratchpad-server as SP.WRITE entries, into another as SET strings, and into
#     a fresh redis-server as SET strings of the same bytes (keys ns:name).
#     used_memory minus the empty server's, once scratchpad's lz4_pending_values
#     is 0 and its background dictionary has caught up (lz4_dict_pending_values
#     0: values are compressed without the LZ4 dictionary when written and
#     converted once unchanged for compress-dict-delay ms, 5 s by default; the
#     wait is bounded by DICT_WAIT seconds and reported). Target: scratchpad
#     <= 0.35 x redis.
#  2. Window reads of 2 KB from a 10 MB and from a 100 KB entry: SP.RANGE at a
#     fixed middle offset, SP.READ HEAD, SP.READ TAIL (-P 1 and -P 16), and
#     SP.READ OFFSET o LIMIT 2048 at random offsets (see "Random offsets"
#     below); redis GETRANGE of the same bytes of the same 10 MB text. Targets:
#     10 MB rate >= 0.8 x the 100 KB rate, and >= 0.8 x redis.
#  3. SP.APPEND of 1 KB to a 10 MB entry vs APPEND of 1 KB to a 10 MB string
#     (the values grow during the test). Target >= 0.8.
#  4. SP.WRITE / SP.READ of 1 KB entries (10000 names, __rand_int__) vs SET / GET
#     of 1 KB. Target >= 0.9.
# Tests 2-4 use redis-benchmark -c 50 with -P 1 and -P 16. Both servers run at
# once, each fresh for every round and loaded with the same data; each test runs
# on one server then at once on the other (the order swaps every round), so slow
# phases of a shared machine hit both alike.
#
# Random offsets: a fixed offset is served from scratchpad's chunk cache (8
# decompressed chunks), so it says nothing of the cost of decompressing. But
# redis-benchmark's __rand_int__ is a 12-digit zero-padded number, and integer
# arguments with leading zeros are refused (by redis as by scratchpad: "value is
# not an integer"), so it cannot move an offset; and N redis-benchmark processes
# with one connection and one offset each are bound by the client (50 processes
# on one CPU ran 3x slower than one process with 50 connections, for redis too).
# So random reads are a RESP stream of RAND_N reads at uniformly drawn offsets
# (bench/gen_logs.py reads), written over one connection while the replies are
# read (see rb_pipe): the deepest pipeline, which measures the server's cost
# per read with no system call per request to hide a decompression. The rate
# is RAND_N over the wall time. The same stream at one fixed offset is the
# control (cache hits).
#
# Servers on CPU SERVER_CPU, clients on CPU BENCH_CPU (taskset); redis with
# --save '' --appendonly no; free ports found at run time; every
# server stopped by its PID on exit, Ctrl-C included. The report (Markdown) goes
# to standard output and to RESULTS_FILE; progress to standard error.
#
# Needs a shell with `local` (dash, bash, busybox sh), and bash itself for the
# streams (its /dev/tcp).
#
# Environment (all optional):
#   QUICK=1           smoke run: 1 round, 20 MB corpus, short tests
#   ROUNDS            rounds (default 3)
#   MEM_ENTRIES, MEM_ENTRY_SIZE, MEM_NS   corpus: 200, 1m, "agent-a,agent-b,agent-c,agent-d"
#   MEM_VARY          entry sizes spread over MEM_ENTRY_SIZE x (1 +- MEM_VARY) (0.5)
#   BIG_SIZE, SMALL_SIZE  the read entries (10485760, 102400); WINDOW (2048)
#   N_READ, N_READ16  requests per read test, -P 1 / -P 16 (60000 / 300000)
#   N_APPEND, N_APPEND16  requests per append test, -P 1 / -P 16 (20000 / 40000;
#                     each 1 KB, so the 10 MB values end at 30 / 50 MB)
#   N_KV, N_KV16      requests per 1 KB test, -P 1 / -P 16 (60000 / 300000)
#   KV_KEYS           names of the 1 KB test (10000)
#   RAND_N            reads per stream of random or fixed windows (200000)
#   CLIENTS           connections (50)
#   SERVER, REDIS_SERVER, REDIS_BENCHMARK, REDIS_CLI, PYTHON   the binaries
#   SERVER_CPU, BENCH_CPU   (0, 1)
#   SERVER_ARGS, REDIS_ARGS extra --directive value words
#   RESULTS_FILE      where the report is also written (default
#                     bench/results/sp-<date>.md; QUICK: none); "" for none
#   PERF_DIR          if set, `perf record -g` of scratchpad-server during each of
#                     its tests, into PERF_DIR/<test>.data
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-redis-benchmark}
REDIS_CLI=${REDIS_CLI:-redis-cli}
PYTHON=${PYTHON:-python3}
GEN="$TOP/bench/gen_logs.py"
QUICK=${QUICK:-0}

if [ "$QUICK" = 1 ]; then
    ROUNDS=${ROUNDS:-1}
    MEM_ENTRIES=${MEM_ENTRIES:-20}
    N_READ=${N_READ:-20000}
    N_READ16=${N_READ16:-80000}
    N_APPEND=${N_APPEND:-5000}
    N_APPEND16=${N_APPEND16:-10000}
    N_KV=${N_KV:-20000}
    N_KV16=${N_KV16:-80000}
    RAND_N=${RAND_N:-40000}
    RESULTS_FILE=${RESULTS_FILE-}
else
    RESULTS_FILE=${RESULTS_FILE-$TOP/bench/results/sp-$(date -u +%Y-%m-%d).md}
fi
ROUNDS=${ROUNDS:-3}
MEM_ENTRIES=${MEM_ENTRIES:-200}
MEM_ENTRY_SIZE=${MEM_ENTRY_SIZE:-1m}
MEM_NS=${MEM_NS:-agent-a,agent-b,agent-c,agent-d}
MEM_VARY=${MEM_VARY:-0.5}
BIG_SIZE=${BIG_SIZE:-10485760}
SMALL_SIZE=${SMALL_SIZE:-102400}
WINDOW=${WINDOW:-2048}
N_READ=${N_READ:-60000}
N_READ16=${N_READ16:-300000}
N_APPEND=${N_APPEND:-20000}
N_APPEND16=${N_APPEND16:-40000}
N_KV=${N_KV:-60000}
N_KV16=${N_KV16:-300000}
KV_KEYS=${KV_KEYS:-10000}
RAND_N=${RAND_N:-200000}
CLIENTS=${CLIENTS:-50}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
SERVER_ARGS=${SERVER_ARGS:-}
REDIS_ARGS=${REDIS_ARGS:-}
PERF_DIR=${PERF_DIR:-}

say() { echo "$*" >&2; }
die() { say "sp-vs-redis: $*"; exit 1; }

for bin in "$SERVER" "$REDIS_SERVER" "$REDIS_BENCHMARK" "$REDIS_CLI" "$PYTHON" bash timeout; do
    command -v "$bin" >/dev/null 2>&1 || die "$bin not found (run make; install redis-server, redis-tools, python3)"
done
[ -n "$PERF_DIR" ] && { command -v perf >/dev/null 2>&1 || die "PERF_DIR set but perf not found"; mkdir -p "$PERF_DIR"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sp-vs-redis.XXXXXX") || die "cannot create a temporary directory"
RESULTS="$WORK/results" # lines: test pipeline server round value
MEMRES="$WORK/memory"   # lines: kind round baseline after stored wait_ms
DICT_WAIT=${DICT_WAIT:-120} # s, at most, for the background dictionary to catch up
: >"$RESULTS"
: >"$MEMRES"
PIDS=""

cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

. "$TOP/bench/lib.sh"
bench_pin "clients"


cli() { # port args...: one command, reply on stdout
    local port="$1"
    shift
    "$REDIS_CLI" -h 127.0.0.1 -p "$port" "$@" 2>/dev/null | tr -d '\r'
}

info_field() { # port field
    cli "$1" info memory | sed -n "s/^$2://p"
}

# start_server scratchpad|redis: a fresh server on a free port; sets SPID and SPORT.
start_server() {
    local kind="$1" tries=0 log i
    while [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        SPORT=$(free_port)
        log="$WORK/$kind-$SPORT.log"
        if [ "$kind" = scratchpad ]; then
            # shellcheck disable=SC2086 # SERVER_ARGS is a list of words
            (cd "$WORK" && exec $PIN_SERVER "$SERVER" --port "$SPORT" --bind 127.0.0.1 --appendonly no $SERVER_ARGS) >"$log" 2>&1 &
        else
            # shellcheck disable=SC2086 # REDIS_ARGS is a list of words
            (cd "$WORK" && exec $PIN_SERVER "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' \
                --appendonly no --daemonize no --dir "$WORK" $REDIS_ARGS) >"$log" 2>&1 &
        fi
        SPID=$!
        PIDS="$PIDS $SPID"
        i=0
        while [ $i -lt 100 ] && kill -0 "$SPID" 2>/dev/null; do
            if [ "$(cli "$SPORT" ping)" = PONG ]; then
                sleep 0.2
                kill -0 "$SPID" 2>/dev/null && return 0
                break
            fi
            sleep 0.05
            i=$((i + 1))
        done
        stop_server "$SPID"
        say "  $kind did not start on port $SPORT; log:"
        tail -n 5 "$log" >&2
    done
    die "could not start $kind"
}

stop_server() {
    local rest p
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    rest=""
    for p in $PIDS; do [ "$p" = "$1" ] || rest="$rest $p"; done
    PIDS=$rest
}

# load port file: feeds a RESP stream through redis-cli --pipe; fails on any error reply.
load() {
    local out
    out=$($PIN_BENCH "$REDIS_CLI" -h 127.0.0.1 -p "$1" --pipe <"$2" 2>&1 | tr -d '\r')
    case "$out" in
    *"errors: 0,"*) return 0 ;;
    *) die "loading $(basename "$2") into port $1 failed: $(echo "$out" | tail -n 3)" ;;
    esac
}

# wait_compressed port: until lz4_pending_values is 0 (60 s at most), then
# until lz4_dict_pending_values is 0 (DICT_WAIT s at most: the background
# dictionary, after compress-dict-delay); sets WAITED_MS to the time both took.
wait_compressed() {
    local i=0 v="" t0
    t0=$(date +%s%3N)
    WAITED_MS=-
    while [ $i -lt 300 ]; do
        v=$(info_field "$1" lz4_pending_values)
        [ -z "$v" ] || [ "$v" = 0 ] && break
        sleep 0.2
        i=$((i + 1))
    done
    [ $i -lt 300 ] || say "  warning: lz4_pending_values still $v after 60 s"
    i=0
    while [ $i -lt $((DICT_WAIT * 5)) ]; do
        v=$(info_field "$1" lz4_dict_pending_values)
        if [ -z "$v" ] || [ "$v" = 0 ]; then
            WAITED_MS=$(($(date +%s%3N) - t0))
            return 0
        fi
        sleep 0.2
        i=$((i + 1))
    done
    say "  warning: lz4_dict_pending_values still $v after $DICT_WAIT s"
}

# probe port args...: 0 if the command answers neither an error nor nil (the
# placeholder __rand_int__ replaced by 000000000001, as redis-benchmark would).
probe() {
    local port="$1" n a r
    shift
    [ "$1" = -r ] && shift 2 # a redis-benchmark option, not part of the command
    n=$#
    for a; do
        case $a in
        *__rand_int__*) a=$(echo "$a" | sed 's/__rand_int__/000000000001/g') ;;
        esac
        set -- "$@" "$a"
    done
    shift "$n"
    r=$("$REDIS_CLI" -h 127.0.0.1 -p "$port" --no-raw "$@" 2>&1 | head -c 300 | tr -d '\r')
    case "$r" in
    "(error)"* | "(nil)" | "" | *"Could not connect"*) say "  probe failed on port $port: $1 $2 $3 ... -> $(echo "$r" | head -n 1)"; return 1 ;;
    esac
    return 0
}

perf_start() { # name: if PERF_DIR, record the scratchpad server
    PERFPID=""
    [ -n "$PERF_DIR" ] || return 0
    perf record -g -p "$SP_PID" -o "$PERF_DIR/$1.data" >/dev/null 2>&1 &
    PERFPID=$!
    sleep 0.5
}

perf_stop() {
    [ -n "$PERFPID" ] || return 0
    kill -INT "$PERFPID" 2>/dev/null
    wait "$PERFPID" 2>/dev/null
    PERFPID=""
}

# rb port pipeline n args...: redis-benchmark -c CLIENTS; prints requests per second.
# The title of a custom command holds its arguments (log text: commas, quotes,
# newlines), so the rate is read from the end of the last line.
rb() {
    local port="$1" pl="$2" n="$3"
    shift 3
    $PIN_BENCH "$REDIS_BENCHMARK" -h 127.0.0.1 -p "$port" -c "$CLIENTS" -n "$n" -P "$pl" --csv "$@" 2>/dev/null |
        tr -d '\r' | tail -n 1 | awk -F'","' 'NF >= 8 { v = $(NF - 6); if (v + 0 > 0) print v }'
}

now() { date +%s.%N; }

# rb_pipe port file n: sends the RESP stream file (n reads of WINDOW bytes) over
# one connection while reading the replies (bash's /dev/tcp, cat, head -c; not
# redis-cli --pipe, whose reply parser moves its whole buffer after each reply
# and is bound by the client with 2 KB replies); prints n over the wall time,
# nothing if the replies are not exactly n bulk strings of WINDOW bytes.
rb_pipe() {
    local port="$1" file="$2" n="$3" expect t0 t1 got
    expect=$((n * (WINDOW + ${#WINDOW} + 5)))
    t0=$(now)
    # shellcheck disable=SC2016 # expanded by bash, not here
    got=$($PIN_BENCH timeout 120 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        cat "$2" >&3 &
        head -c "$3" <&3 | wc -c
        kill $! 2>/dev/null
        wait' rb_pipe "$port" "$file" "$expect" 2>/dev/null)
    t1=$(now)
    if [ "$got" != "$expect" ]; then
        say "  stream: $got bytes of replies instead of $expect"
        return 0
    fi
    awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { if (b > a) printf "%.2f\n", n / (b - a) }'
}

# ---- data, generated once ----
say "generating data (python3 bench/gen_logs.py)..."
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
T_START=$(date +%s)
CORPUS_BYTES=$($PIN_BENCH "$PYTHON" "$GEN" load both "$MEM_ENTRIES" "$MEM_ENTRY_SIZE" --vary "$MEM_VARY" --seed 1 \
    --ns "$MEM_NS" --out-sp "$WORK/corpus.sp" --out-set "$WORK/corpus.set") || die "generator failed"
for name in big app1 app16; do
    $PIN_BENCH "$PYTHON" "$GEN" load both 1 "$BIG_SIZE" --seed 2 --ns ns --name "$name" \
        --out-sp "$WORK/reads.sp" --out-set "$WORK/reads.set" >/dev/null || die "generator failed"
done
$PIN_BENCH "$PYTHON" "$GEN" load both 1 "$SMALL_SIZE" --seed 3 --ns ns --name small \
    --out-sp "$WORK/reads.sp" --out-set "$WORK/reads.set" >/dev/null || die "generator failed"
$PIN_BENCH "$PYTHON" "$GEN" load both "$KV_KEYS" 1024 --seed 4 --ns ns --name "k:%012d" \
    --out-sp "$WORK/reads.sp" --out-set "$WORK/reads.set" >/dev/null || die "generator failed"
# Streams of window reads: random offsets, and the fixed middle one.
for srv in sp set; do
    $PIN_BENCH "$PYTHON" "$GEN" reads "$srv" "$RAND_N" "$BIG_SIZE" --window "$WINDOW" --seed 6 --ns ns \
        --name big >"$WORK/rand.$srv" || die "generator failed"
    $PIN_BENCH "$PYTHON" "$GEN" reads "$srv" "$RAND_N" "$BIG_SIZE" --window "$WINDOW" --fixed $((BIG_SIZE / 2)) \
        --ns ns --name big >"$WORK/fixed.$srv" || die "generator failed"
done
$PIN_BENCH "$PYTHON" "$GEN" reads sp "$RAND_N" "$SMALL_SIZE" --window "$WINDOW" --seed 7 --ns ns \
    --name small >"$WORK/rand-100k.sp" || die "generator failed"
$PIN_BENCH "$PYTHON" "$GEN" reads sp "$RAND_N" "$SMALL_SIZE" --window "$WINDOW" --fixed $((SMALL_SIZE / 2)) \
    --ns ns --name small >"$WORK/fixed-100k.sp" || die "generator failed"
# One 1 KB piece of log text for the APPEND and SET/SP.WRITE arguments.
VAL1K=$("$PYTHON" "$GEN" text 1024 --seed 5; printf x)
VAL1K=${VAL1K%x}
MID=$((BIG_SIZE / 2))
MID_S=$((SMALL_SIZE / 2))

# ---- 1. memory ----
mem_one() { # kind round: kind is sp-write, sp-set or redis
    local base after stored=- ns v
    WAITED_MS=-
    if [ "$1" = redis ]; then start_server redis; else start_server scratchpad; fi
    base=$(info_field "$SPORT" used_memory)
    if [ "$1" = sp-write ]; then load "$SPORT" "$WORK/corpus.sp"; else load "$SPORT" "$WORK/corpus.set"; fi
    [ "$1" = redis ] || wait_compressed "$SPORT"
    after=$(info_field "$SPORT" used_memory)
    if [ "$1" = sp-write ]; then
        # The entries' own account of their bytes (compressed chunks and index).
        stored=0
        for ns in $(echo "$MEM_NS" | tr ',' ' '); do
            v=$(cli "$SPORT" SP.INFO "$ns" | awk 'p == "stored_bytes" { print; exit } { p = $0 }')
            case "$v" in '' | *[!0-9]*) stored=-; break ;; esac
            stored=$((stored + v))
        done
    fi
    echo "$1 $2 $base $after $stored $WAITED_MS" >>"$MEMRES"
    say "  memory $1: baseline $base, after $after (waited $WAITED_MS ms for the background compression)"
    stop_server "$SPID"
}
r=1
while [ "$r" -le "$ROUNDS" ]; do
    say "memory round $r/$ROUNDS"
    if [ $((r % 2)) = 1 ]; then order="sp-write redis sp-set"; else order="redis sp-set sp-write"; fi
    for kind in $order; do mem_one "$kind" "$r"; done
    r=$((r + 1))
done

# ---- 2-4. throughput ----
# pair test pipeline round sp_cmd... -- redis_cmd...: runs the scratchpad command
# then the redis one (or the reverse on even rounds); a command starts with its
# runner: rb (redis-benchmark) or pipe:<name> (rb_pipe of the file
# WORK/<name>.sp or .set). "-" as the redis part skips redis.
record() { echo "$1 $2 $3 $4 ${5:-}" >>"$RESULTS"; say "  $1 -P $2 $3: ${5:-failed}"; }

run_one() { # server test pipeline round n runner args...
    local srv="$1" test="$2" pl="$3" rnd="$4" n="$5" runner="$6" port f v=""
    shift 6
    port=$SP_PORT
    [ "$srv" = redis ] && port=$RD_PORT
    if ! probe "$port" "$@"; then
        record "$test" "$pl" "$srv" "$rnd" ""
        return
    fi
    [ "$srv" = redis ] || perf_start "$test-P$pl-r$rnd"
    case $runner in
    rb) v=$(rb "$port" "$pl" "$n" "$@") ;;
    pipe:*)
        if [ "$srv" = redis ]; then f=$WORK/${runner#pipe:}.set; else f=$WORK/${runner#pipe:}.sp; fi
        v=$(rb_pipe "$port" "$f" "$n")
        ;;
    esac
    [ "$srv" = redis ] || perf_stop
    record "$test" "$pl" "$srv" "$rnd" "$v"
}

# both test pipeline round n runner "sp command" "redis command": the command
# strings are split on spaces except @V@, which stands for the 1 KB value.
both() {
    local test="$1" pl="$2" rnd="$3" n="$4" runner="$5" spc="$6" rdc="$7" order srv c n_args a
    if [ $((rnd % 2)) = 1 ]; then order="scratchpad redis"; else order="redis scratchpad"; fi
    for srv in $order; do
        c=$spc
        [ "$srv" = redis ] && c=$rdc
        [ "$c" = - ] && continue
        set -f
        # shellcheck disable=SC2086 # the command is a list of words
        set -- $c
        set +f
        n_args=$#
        for a; do
            [ "$a" = @V@ ] && a=$VAL1K
            set -- "$@" "$a"
        done
        shift "$n_args"
        run_one "$srv" "$test" "$pl" "$rnd" "$n" "$runner" "$@"
    done
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
    say "throughput round $r/$ROUNDS: fresh servers, loading..."
    start_server scratchpad
    SP_PID=$SPID SP_PORT=$SPORT
    start_server redis
    RD_PID=$SPID RD_PORT=$SPORT
    load "$SP_PORT" "$WORK/reads.sp"
    load "$RD_PORT" "$WORK/reads.set"
    wait_compressed "$SP_PORT"
    for pl in 1 16; do
        if [ "$pl" = 1 ]; then nr=$N_READ nk=$N_KV na=$N_APPEND; else nr=$N_READ16 nk=$N_KV16 na=$N_APPEND16; fi
        both range-mid "$pl" "$r" "$nr" rb "SP.RANGE ns big $MID $((MID + WINDOW))" \
            "GETRANGE ns:big $MID $((MID + WINDOW - 1))"
        both range-mid-100k "$pl" "$r" "$nr" rb "SP.RANGE ns small $MID_S $((MID_S + WINDOW))" -
        both head "$pl" "$r" "$nr" rb "SP.READ ns big HEAD $WINDOW" "GETRANGE ns:big 0 $((WINDOW - 1))"
        both head-100k "$pl" "$r" "$nr" rb "SP.READ ns small HEAD $WINDOW" -
        both tail "$pl" "$r" "$nr" rb "SP.READ ns big TAIL $WINDOW" "GETRANGE ns:big -$WINDOW -1"
        both tail-100k "$pl" "$r" "$nr" rb "SP.READ ns small TAIL $WINDOW" -
        both append "$pl" "$r" "$na" rb "SP.APPEND ns app$pl @V@" "APPEND ns:app$pl @V@"
        both write "$pl" "$r" "$nk" rb "-r $KV_KEYS SP.WRITE ns k:__rand_int__ @V@" \
            "-r $KV_KEYS SET ns:k:__rand_int__ @V@"
        both read "$pl" "$r" "$nk" rb "-r $KV_KEYS SP.READ ns k:__rand_int__" "-r $KV_KEYS GET ns:k:__rand_int__"
    done
    # Probes: the first window of each stream.
    both rand pipe "$r" "$RAND_N" pipe:rand "SP.READ ns big OFFSET 0 LIMIT $WINDOW" "GETRANGE ns:big 0 $((WINDOW - 1))"
    both rand-100k pipe "$r" "$RAND_N" pipe:rand-100k "SP.READ ns small OFFSET 0 LIMIT $WINDOW" -
    both fixed pipe "$r" "$RAND_N" pipe:fixed "SP.READ ns big OFFSET 0 LIMIT $WINDOW" "GETRANGE ns:big 0 $((WINDOW - 1))"
    both fixed-100k pipe "$r" "$RAND_N" pipe:fixed-100k "SP.READ ns small OFFSET 0 LIMIT $WINDOW" -
    stop_server "$SP_PID"
    stop_server "$RD_PID"
    r=$((r + 1))
done
T_END=$(date +%s)

# ---- report ----
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "";
        else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fig() { # test pipeline server -> median rate
    awk -v t="$1" -v p="$2" -v s="$3" '$1 == t && $2 == p && $3 == s && $5 != "" { print $5 }' "$RESULTS" | median
}
spread() { # test pipeline server -> (max - min) / median, in %
    awk -v t="$1" -v p="$2" -v s="$3" '$1 == t && $2 == p && $3 == s && $5 != "" { print $5 }' "$RESULTS" |
        sort -g | awk '{ v[NR] = $1 } END { if (NR < 2) { print "-"; exit }
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.0f%%\n", 100 * (v[NR] - v[1]) / m }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}
# pratio test_a pipeline server_a test_b server_b: the median over the rounds of
# a / b, each round's a and b having run back to back (a drift of the machine's
# load between rounds cancels out, which a ratio of the medians does not do).
pratio() {
    awk -v ta="$1" -v p="$2" -v sa="$3" -v tb="$4" -v sb="$5" '
        $2 == p && $5 != "" && $1 == ta && $3 == sa { a[$4] = $5 }
        $2 == p && $5 != "" && $1 == tb && $3 == sb { b[$4] = $5 }
        END { for (r in a) if ((r in b) && b[r] > 0) printf "%.4f\n", a[r] / b[r] }' "$RESULTS" | median |
        awk '{ if ($1 == "") print "n/a"; else printf "%.2f\n", $1 } END { if (NR == 0) print "n/a" }'
}
meets() { # ratio target [le]
    awk -v r="$1" -v t="$2" -v le="${3:-}" 'BEGIN { if (r == "n/a") print "n/a";
        else if (le ? r <= t : r >= t) print "yes"; else print "**no**" }'
}
fmt_rate() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.0f\n", v }'; }
mb() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else printf "%.1f\n", v / 1048576 }'; }
memfig() { # kind -> median of (after - baseline)
    awk -v k="$1" '$1 == k && $3 ~ /^[0-9]+$/ && $4 ~ /^[0-9]+$/ { print $4 - $3 }' "$MEMRES" | median
}

report() {
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
    echo "# SP.* performance targets: scratchpad-server vs redis-server"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: ${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') CPUs; run took $((T_END - T_START)) s"
    echo "- scratchpad: $("$SERVER" --version 2>/dev/null | head -n 1) (--appendonly no${SERVER_ARGS:+ $SERVER_ARGS}); binary built $(date -u -r "$SERVER" '+%Y-%m-%d %H:%M UTC' 2>/dev/null)"
    echo "- redis: $("$REDIS_SERVER" --version 2>/dev/null | head -n 1) (--save '' --appendonly no${REDIS_ARGS:+ $REDIS_ARGS})"
    echo "- client: redis-benchmark -c $CLIENTS on 127.0.0.1; pinning: $PINNING"
    echo "- load average (1, 5, 15 min) at start: ${LOAD_START:-?}, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "- $ROUNDS round(s); each rate is the median of the rounds; each ratio is the median of the per-round ratios (the"
    echo "  two sides of a ratio run back to back in every round); \"spread\" is (max - min) / median of a rate over the rounds"
    [ "$QUICK" = 1 ] && echo "- **QUICK=1 smoke run: small sizes, one round; not a measurement**"
    echo
    echo "## 1. Memory (used_memory minus the empty server's, lower is better)"
    echo
    echo "Corpus: $MEM_ENTRIES entries of $MEM_ENTRY_SIZE x (1 +- $MEM_VARY) bytes of log-like text (bench/gen_logs.py, seed 1), $CORPUS_BYTES bytes ($(mb "$CORPUS_BYTES") MB) logical, in namespaces $MEM_NS."
    echo
    echo "| stored as | server | MB | bytes per logical byte | vs redis SET | target | met |"
    echo "|-----------|--------|---:|-----------------------:|-------------:|-------:|-----|"
    rd=$(memfig redis)
    for kind in sp-write sp-set redis; do
        v=$(memfig "$kind")
        case $kind in
        sp-write) what="SP.WRITE entries"; srv=scratchpad; tg="<= 0.35" ;;
        sp-set) what="SET strings"; srv=scratchpad; tg="<= 0.35" ;;
        redis) what="SET strings"; srv=redis; tg="" ;;
        esac
        rt=$(ratio "$v" "$rd")
        per=$(ratio "$v" "$CORPUS_BYTES")
        if [ "$kind" = redis ]; then
            echo "| $what | $srv | $(mb "$v") | $per | 1.00 | | |"
        else
            echo "| $what | $srv | $(mb "$v") | $per | $rt | $tg | $(meets "$rt" 0.35 le) |"
        fi
    done
    st=$(awk '$1 == "sp-write" && $5 ~ /^[0-9]+$/ { print $5 }' "$MEMRES" | median)
    echo
    echo "SP.INFO stored_bytes summed over the namespaces (the compressed chunks and their index, without allocator"
    echo "overhead): $(mb "$st") MB, $(ratio "$st" "$CORPUS_BYTES") of the logical bytes."
    echo
    echo "Scratchpad compresses large values without the LZ4 dictionary when they are written and gives them their"
    echo "dictionary in the background once they have stayed unchanged for compress-dict-delay ms (5 s by default;"
    echo "server/core/lz/lzidle.h). used_memory is read after waiting (polling INFO memory, at most $DICT_WAIT s) until"
    echo "lz4_pending_values and lz4_dict_pending_values are 0. The wait after the load, median of the rounds:"
    echo "SP.WRITE $(awk '$1 == "sp-write" && $6 ~ /^[0-9]+$/ { print $6 }' "$MEMRES" | median) ms,"
    echo "SET $(awk '$1 == "sp-set" && $6 ~ /^[0-9]+$/ { print $6 }' "$MEMRES" | median) ms (\"-\" if it timed out)."
    echo
    echo "## 2. Window reads of $WINDOW bytes (requests per second, higher is better)"
    echo
    echo "10 MB = $BIG_SIZE bytes, 100 KB = $SMALL_SIZE bytes of log text (ASCII: characters = bytes); redis reads the same 10 MB text with GETRANGE."
    echo
    echo "| read | -P | SP 10 MB | SP 100 KB | 10 MB / 100 KB (>= 0.8) | redis GETRANGE 10 MB | SP / redis (>= 0.8) | spread SP / redis |"
    echo "|------|---:|---------:|----------:|------------------------:|---------------------:|--------------------:|------------------:|"
    for pl in 1 16 pipe; do
        tests="range-mid head tail"
        [ "$pl" = pipe ] && tests="fixed rand"
        for t in $tests; do
            case $t in
            range-mid) what="SP.RANGE at the middle / GETRANGE" ;;
            head) what="SP.READ HEAD / GETRANGE 0" ;;
            tail) what="SP.READ TAIL / GETRANGE -$WINDOW" ;;
            fixed) what="SP.READ OFFSET middle LIMIT / GETRANGE (control)" ;;
            rand) what="SP.READ OFFSET random LIMIT / GETRANGE" ;;
            esac
            b=$(fig "$t" "$pl" scratchpad)
            s=$(fig "$t-100k" "$pl" scratchpad)
            rr=$(fig "$t" "$pl" redis)
            r1=$(pratio "$t" "$pl" scratchpad "$t-100k" scratchpad)
            r2=$(pratio "$t" "$pl" scratchpad "$t" redis)
            echo "| $what | $pl | $(fmt_rate "$b") | $(fmt_rate "$s") | $r1 $(meets "$r1" 0.8) | $(fmt_rate "$rr") | $r2 $(meets "$r2" 0.8) | $(spread "$t" "$pl" scratchpad) / $(spread "$t" "$pl" redis) |"
        done
    done
    echo
    echo "## 3. Append 1 KB to a 10 MB value, and 4. 1 KB entries (requests per second)"
    echo
    echo "| test | -P | requests | scratchpad | redis | SP / redis | target | met | spread SP / redis |"
    echo "|------|---:|---------:|-----------:|------:|-----------:|-------:|-----|------------------:|"
    for t in append write read; do
        for pl in 1 16; do
            case $t in
            append) what="SP.APPEND / APPEND"; tg=0.8; n=$N_APPEND; [ "$pl" = 16 ] && n=$N_APPEND16 ;;
            write) what="SP.WRITE / SET"; tg=0.9; n=$N_KV ;;
            read) what="SP.READ / GET"; tg=0.9; n=$N_KV ;;
            esac
            [ "$t" != append ] && [ "$pl" = 16 ] && n=$N_KV16
            a=$(fig "$t" "$pl" scratchpad)
            b=$(fig "$t" "$pl" redis)
            rt=$(pratio "$t" "$pl" scratchpad "$t" redis)
            echo "| $what | $pl | $n | $(fmt_rate "$a") | $(fmt_rate "$b") | $rt | >= $tg | $(meets "$rt" "$tg") | $(spread "$t" "$pl" scratchpad) / $(spread "$t" "$pl" redis) |"
        done
    done
    echo
    echo "## Reading the figures"
    echo
    echo "- Rows with -P 1 / -P 16 at a fixed offset (and HEAD, TAIL) are served from scratchpad's chunk cache after the"
    echo "  first request; the -P pipe rows at random offsets decompress on nearly every read (10 MB: 160 chunks of"
    echo "  64 KB against an 8-chunk cache; 100 KB: 2 chunks, always cached). One connection, deepest pipeline: the"
    echo "  server's own cost per read, with no system call per request to hide it; an upper bound of the penalty."
    echo "- A shared machine makes single figures noisy (see the load average above, and the spread columns); the"
    echo "  ratios compare runs made back to back and are steadier than the rates. Every round is listed at the end."
    echo
    echo "## Commands"
    echo
    echo "Every test: \`taskset -c $BENCH_CPU redis-benchmark -h 127.0.0.1 -p PORT -c $CLIENTS -n N -P {1,16} --csv <command>\`;"
    echo "N = $N_READ / $N_READ16 (reads, -P 1 / -P 16), $N_APPEND / $N_APPEND16 (appends), $N_KV / $N_KV16 (1 KB tests). \`<1KB>\` is 1024 bytes of log text."
    echo "Rows with -P \"pipe\": see below."
    echo
    echo '```'
    echo "# data (redis-cli --pipe of the RESP streams bench/gen_logs.py writes)"
    echo "python3 bench/gen_logs.py load both $MEM_ENTRIES $MEM_ENTRY_SIZE --vary $MEM_VARY --seed 1 --ns $MEM_NS --out-sp corpus.sp --out-set corpus.set"
    echo "python3 bench/gen_logs.py load both 1 $BIG_SIZE --seed 2 --ns ns --name {big,app1,app16} ...   # SP.WRITE ns big ... / SET ns:big ..."
    echo "python3 bench/gen_logs.py load both 1 $SMALL_SIZE --seed 3 --ns ns --name small ..."
    echo "python3 bench/gen_logs.py load both $KV_KEYS 1024 --seed 4 --ns ns --name 'k:%012d' ..."
    echo "# 1. memory: INFO memory used_memory before and after; scratchpad: until lz4_pending_values:0 and lz4_dict_pending_values:0"
    echo "redis-cli -p PORT --pipe < corpus.sp   # scratchpad, SP.WRITE"
    echo "redis-cli -p PORT --pipe < corpus.set  # scratchpad, SET; and redis"
    echo "# 2. reads"
    echo "SP.RANGE ns big $MID $((MID + WINDOW))            | GETRANGE ns:big $MID $((MID + WINDOW - 1))"
    echo "SP.RANGE ns small $MID_S $((MID_S + WINDOW))"
    echo "SP.READ ns big HEAD $WINDOW  ; SP.READ ns small HEAD $WINDOW | GETRANGE ns:big 0 $((WINDOW - 1))"
    echo "SP.READ ns big TAIL $WINDOW  ; SP.READ ns small TAIL $WINDOW | GETRANGE ns:big -$WINDOW -1"
    echo "# -P pipe: the stream written to one connection while its replies are read; rate = $RAND_N / wall time"
    echo "#   bash -c 'exec 3<>/dev/tcp/127.0.0.1/PORT; cat stream >&3 & head -c <n x $((WINDOW + ${#WINDOW} + 5))> <&3 | wc -c'"
    echo "python3 bench/gen_logs.py reads {sp,set} $RAND_N $BIG_SIZE --window $WINDOW --seed 6 --ns ns --name big"
    echo "python3 bench/gen_logs.py reads sp $RAND_N $SMALL_SIZE --window $WINDOW --seed 7 --ns ns --name small"
    echo "python3 bench/gen_logs.py reads {sp,set} $RAND_N $BIG_SIZE --window $WINDOW --fixed $((BIG_SIZE / 2)) --ns ns --name big  # control"
    echo "python3 bench/gen_logs.py reads sp $RAND_N $SMALL_SIZE --window $WINDOW --fixed $((SMALL_SIZE / 2)) --ns ns --name small"
    echo "#   each line: SP.READ ns big OFFSET o LIMIT $WINDOW | GETRANGE ns:big o o+$((WINDOW - 1))"
    echo "# 3. append (ns app1 / app16: 10 MB of log text at the start of the test)"
    echo "SP.APPEND ns app{1,16} <1KB>                       | APPEND ns:app{1,16} <1KB>"
    echo "# 4. 1 KB entries ($KV_KEYS names written beforehand)"
    echo "-r $KV_KEYS SP.WRITE ns k:__rand_int__ <1KB>        | -r $KV_KEYS SET ns:k:__rand_int__ <1KB>"
    echo "-r $KV_KEYS SP.READ ns k:__rand_int__               | -r $KV_KEYS GET ns:k:__rand_int__"
    echo '```'
    echo
    echo "## Every round"
    echo
    echo '```'
    echo "# memory: kind round used_memory_before used_memory_after SP.INFO_stored_bytes(sum) wait_ms"
    cat "$MEMRES"
    echo "# throughput: test pipeline server round requests_per_second"
    cat "$RESULTS"
    echo '```'
}

if [ -n "$RESULTS_FILE" ]; then
    mkdir -p "$(dirname "$RESULTS_FILE")"
    report | tee "$RESULTS_FILE"
    say "report written to $RESULTS_FILE"
else
    report
fi
