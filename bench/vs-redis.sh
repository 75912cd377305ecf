#!/bin/sh
# vs-redis.sh -- scratchpad-server and redis-server side by side, same machine,
# same client, same run.
#
# Throughput: redis-benchmark -c 50 for SET, GET, INCR and MSET, with -P 1 and
# -P 16, -d 64 and -d 4096. The servers are measured in alternation (scratchpad,
# redis, scratchpad, redis, ...) for ROUNDS rounds, each round on a freshly
# started server, and the median of the rounds is reported. The number of
# requests of each test is calibrated once against redis so that a test lasts
# about BENCH_SECONDS, and the same number is used for both servers.
#
# GET reads a value of the test's -d size written just before it (SET
# key:__rand_int__ with redis-cli, -d bytes of log-like text from
# bench/gen_logs.py: redis-benchmark's own payload is random letters, which LZ4
# does not shrink, so scratchpad keeps it raw in every state), in each of the
# states a scratchpad-server value can be in,
# each its own row (BENCH_GET_STATES; values under compress-threshold, the
# default 4096, are only ever raw):
#   raw   stored as written (compress-threshold set to 0 for the SET and the test);
#   lz4   compressed by the background pass at compress-write-acceleration, as
#         a value is once the cron got to it (compress-dict-delay held at a day);
#   idle  re-encoded at acceleration 1 (with a dictionary if that pays), as a
#         value is once it stayed unchanged for compress-dict-delay (forced
#         with compress-dict-delay 0).
#   cold  as lz4, with compress-hot-reads 0: every GET decodes the value (in
#         the three states above, a value read compress-hot-reads times in a
#         second is kept raw while it is read, as a GET test reads it).
# The state is forced with CONFIG SET and reached by polling INFO memory
# (lz4_pending_values, lz4_dict_pending_values), never by sleeping; the
# directives are restored after the test. redis-server gets the same SET (a raw
# value) before each of these rows. Before every other test, scratchpad's
# background compression is let finish (the same polling), so that no test
# pays for the previous one's values.
#
# Memory: a fresh server of each kind receives
#   redis-benchmark -t set -r 1000000 -n 2000000 -d 16
# then INFO memory's used_memory and DBSIZE are read.
#
# The servers run on CPU 0 and redis-benchmark on CPU 1 (taskset) when the
# machine has two CPUs or more; redis runs with persistence off. Every server
# is started on a free port by this script and stopped by its PID on exit.
# This is a benchmark, not a test: it asserts nothing. The report (Markdown)
# goes to standard output, progress to standard error.
#
# Environment (all optional):
#   SERVER          scratchpad-server binary   (default: $BUILD/scratchpad-server)
#   REDIS_SERVER    redis-server binary        (default: redis-server)
#   REDIS_BENCHMARK redis-benchmark binary     (default: redis-benchmark)
#   ROUNDS          rounds per server          (default: 3)
#   BENCH_SECONDS   target seconds per test    (default: 1.5)
#   BENCH_N         fixed requests per test, skips the calibration
#   MEM_N, MEM_R    requests and key range of the memory test (2000000, 1000000)
#   BENCH_MEMORY    0 skips the memory test
#   BENCH_TESTS     redis-benchmark tests to run (default: set get incr mset; the data
#                   types: lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange_100
#                   lrange_600, in that order, so that the pops find data; an LRANGE
#                   test pushes its n elements first, so it reads a full list)
#   BENCH_SIZES     value sizes, -d               (default: 64 4096)
#   BENCH_GET_STATES  states of the value GET reads (default: raw lz4 idle cold)
#   SERVER_CPU, BENCH_CPU  the CPUs to pin to   (default: 0 and 1)
#   SERVER_ARGS     extra --directive value words for scratchpad-server
#                   (e.g. "--compress-threshold 0")
#   REDIS_ARGS      extra --directive value words for redis-server
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$TOP/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_BENCHMARK=${REDIS_BENCHMARK:-redis-benchmark}
REDIS_CLI=${REDIS_CLI:-redis-cli}
ROUNDS=${ROUNDS:-3}
BENCH_SECONDS=${BENCH_SECONDS:-1.5}
BENCH_N=${BENCH_N:-}
MEM_N=${MEM_N:-2000000}
MEM_R=${MEM_R:-1000000}
BENCH_MEMORY=${BENCH_MEMORY:-1}
SERVER_CPU=${SERVER_CPU:-0}
BENCH_CPU=${BENCH_CPU:-1}
SERVER_ARGS=${SERVER_ARGS:-}
REDIS_ARGS=${REDIS_ARGS:-}

TESTS=${BENCH_TESTS:-set get incr mset}
GET_STATES=${BENCH_GET_STATES:-raw lz4 idle cold}
LZ_MIN=4096 # compress-threshold's default: smaller values are never compressed
PIPELINES="1 16"
SIZES=${BENCH_SIZES:-64 4096}
CLIENTS=50

say() { echo "$*" >&2; }
die() { say "vs-redis: $*"; exit 1; }

for bin in "$SERVER" "$REDIS_SERVER" "$REDIS_BENCHMARK" "$REDIS_CLI"; do
    command -v "$bin" >/dev/null 2>&1 || die "$bin not found (run make, and install redis-server and redis-tools)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vs-redis.XXXXXX") || die "cannot create a temporary directory"
RESULTS="$WORK/results"
: >"$RESULTS"
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
bench_pin "redis-benchmark"


# start_server scratchpad|redis: starts a fresh server on a free port, sets
# SPID and SPORT. Retries on another port if the one picked was taken meanwhile.
start_server() {
    kind=$1
    tries=0
    while [ $tries -lt 5 ]; do
        tries=$((tries + 1))
        SPORT=$(free_port)
        log="$WORK/$kind-$SPORT.log"
        if [ "$kind" = scratchpad ]; then
            # shellcheck disable=SC2086 # SERVER_ARGS is a list of words
            $PIN_SERVER "$SERVER" --port "$SPORT" --bind 127.0.0.1 --appendonly no $SERVER_ARGS >"$log" 2>&1 &
        else
            # shellcheck disable=SC2086 # REDIS_ARGS is a list of words
            $PIN_SERVER "$REDIS_SERVER" --port "$SPORT" --bind 127.0.0.1 --save '' --appendonly no \
                --daemonize no --dir "$WORK" $REDIS_ARGS >"$log" 2>&1 &
        fi
        SPID=$!
        PIDS="$PIDS $SPID"
        i=0
        while [ $i -lt 100 ]; do
            if ! kill -0 "$SPID" 2>/dev/null; then
                break
            fi
            if [ "$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" ping 2>/dev/null)" = PONG ]; then
                # A server that could not bind exits at once: alive now means
                # the one answering is ours.
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
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    rest=""
    for p in $PIDS; do
        [ "$p" = "$1" ] || rest="$rest $p"
    done
    PIDS=$rest
}

# bench port test pipeline size n: prints the requests per second. The test's
# own row is the last: redis-benchmark runs the LRANGE tests after an "LPUSH
# (needed to benchmark LRANGE)" of n elements into mylist, whose row comes first.
bench() {
    $PIN_BENCH "$REDIS_BENCHMARK" -h 127.0.0.1 -p "$1" -t "$2" -P "$3" -d "$4" -n "$5" -c "$CLIENTS" --csv \
        2>/dev/null | tr -d '"\r' | awk -F, 'NR > 1 && $1 != "test" && $2 + 0 > 0 { v = $2 } END { if (v != "") print v }'
}

cli() { # port args...
    "$REDIS_CLI" -h 127.0.0.1 -p "$@" 2>/dev/null | tr -d '\r'
}

infofield() { # port field (INFO memory)
    cli "$1" info memory | sed -n "s/^$2://p"
}

# wait_info port field value...: poll INFO memory (every 50 ms, at most 60 s)
# until field reads value (a second field/value pair may follow).
wait_info() {
    _w=0
    while [ $_w -lt 1200 ]; do
        if [ "$(infofield "$1" "$2")" = "$3" ] && { [ $# -lt 5 ] || [ "$(infofield "$1" "$4")" = "$5" ]; }; then
            return 0
        fi
        sleep 0.05
        _w=$((_w + 1))
    done
    say "  warning: $2 of the server on port $1 did not reach $3 in 60 s"
    return 1
}

# variants test size: the rows of one redis-benchmark test (GET: one per state
# of the value it reads).
variants() {
    if [ "$1" = get ]; then
        if [ "$2" -ge "$LZ_MIN" ]; then
            for st in $GET_STATES; do echo "get:$st"; done
        else
            echo get:raw
        fi
    else
        echo "$1"
    fi
}

# settle port: let scratchpad's background compression and re-encoding finish
# (compress-dict-delay 0 for the time it takes), so that the next test does not
# share the server's CPU with the previous test's leftovers.
settle() {
    _delay=$(cli "$1" config get compress-dict-delay | sed -n 2p)
    [ -n "$_delay" ] || return 0
    cli "$1" config set compress-dict-delay 0 >/dev/null
    wait_info "$1" lz4_pending_values 0 lz4_dict_pending_values 0
    cli "$1" config set compress-dict-delay "$_delay" >/dev/null
}

# prepare kind port variant size: write the value a GET row reads and put it in
# the row's state (scratchpad only; see the top of the file). Sets RESTORE to
# the CONFIG SET arguments that undo it after the test.
prepare() {
    RESTORE=""
    st=${3#get:}
    [ "$st" = "$3" ] && return 0
    if [ "$1" = scratchpad ]; then
        thr=$(cli "$2" config get compress-threshold | sed -n 2p)
        delay=$(cli "$2" config get compress-dict-delay | sed -n 2p)
        hot=$(cli "$2" config get compress-hot-reads | sed -n 2p)
        RESTORE="compress-threshold $thr compress-dict-delay $delay${hot:+ compress-hot-reads $hot}"
        [ "$st" = cold ] && cli "$2" config set compress-hot-reads 0 >/dev/null
        case $st in
        raw) cli "$2" config set compress-threshold 0 >/dev/null ;;
        *) cli "$2" config set compress-threshold "$LZ_MIN" compress-dict-delay 86400000 >/dev/null ;;
        esac
    fi
    [ -s "$WORK/value-$4" ] || /usr/bin/python3 "$TOP/bench/gen_logs.py" text "$4" --seed 21 >"$WORK/value-$4"
    "$REDIS_CLI" -h 127.0.0.1 -p "$2" -x set key:__rand_int__ <"$WORK/value-$4" >/dev/null 2>&1
    [ "$1" = scratchpad ] || return 0
    case $st in
    lz4 | idle | cold) wait_info "$2" lz4_pending_values 0 ;;
    esac
    if [ "$st" = idle ]; then
        cli "$2" config set compress-dict-delay 0 >/dev/null
        wait_info "$2" lz4_dict_pending_values 0
    fi
    enc=$(cli "$2" object encoding key:__rand_int__)
    want=lz4
    [ "$st" = raw ] && want=raw
    [ "$enc" = "$want" ] || say "  warning: the value is $enc, not $want, for GET ($st) -d $4"
}

unprepare() { # port
    # shellcheck disable=SC2086 # RESTORE is a list of words
    [ -n "$RESTORE" ] && cli "$1" config set $RESTORE >/dev/null
    RESTORE=""
}

median() {
    sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "";
        else if (NR % 2) print v[(NR + 1) / 2];
        else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)

# ---- calibration: requests per test, so that each lasts about BENCH_SECONDS ----
NFILE="$WORK/n"
: >"$NFILE"
if [ -n "$BENCH_N" ]; then
    for t in $TESTS; do for p in $PIPELINES; do for d in $SIZES; do for v in $(variants "$t" "$d"); do
        echo "$v $p $d $BENCH_N" >>"$NFILE"
    done; done; done; done
else
    say "calibrating the number of requests per test against redis..."
    start_server redis
    for t in $TESTS; do for p in $PIPELINES; do for d in $SIZES; do
        prepare redis "$SPORT" "$(variants "$t" "$d" | head -n 1)" "$d"
        # Probe with 4x more requests until a probe lasts 0.3 s, so that the
        # rate is not dominated by connecting the clients.
        probe=$((1000 * p))
        while :; do
            rps=$(bench "$SPORT" "$t" "$p" "$d" "$probe")
            long=$(awk -v n="$probe" -v r="${rps:-0}" 'BEGIN { print (r <= 0 || n / r >= 0.3 || n >= 10000000) }')
            [ "$long" = 1 ] && break
            probe=$((probe * 4))
        done
        # Once more: a stall of the machine only lowers a rate, so keep the higher.
        again=$(bench "$SPORT" "$t" "$p" "$d" "$probe")
        rps=$(awk -v a="${rps:-0}" -v b="${again:-0}" 'BEGIN { print (b > a ? b : a) }')
        n=$(awk -v r="${rps:-0}" -v s="$BENCH_SECONDS" -v m="$probe" \
            'BEGIN { n = int(r * s / 1000 + 0.5) * 1000; if (n < m) n = m; print n }')
        for v in $(variants "$t" "$d"); do
            echo "$v $p $d $n" >>"$NFILE"
        done
    done; done; done
    stop_server "$SPID"
fi

nreq() {
    awk -v t="$1" -v p="$2" -v d="$3" '$1 == t && $2 == p && $3 == d { print $4 }' "$NFILE"
}

# ---- throughput, alternating servers ----
r=1
while [ $r -le "$ROUNDS" ]; do
    for kind in scratchpad redis; do
        say "round $r/$ROUNDS: $kind"
        start_server "$kind"
        for t in $TESTS; do for p in $PIPELINES; do for d in $SIZES; do for v in $(variants "$t" "$d"); do
            [ "$kind" = scratchpad ] && settle "$SPORT"
            prepare "$kind" "$SPORT" "$v" "$d"
            rps=$(bench "$SPORT" "$t" "$p" "$d" "$(nreq "$v" "$p" "$d")")
            unprepare "$SPORT"
            echo "$kind $v $p $d $r ${rps:-}" >>"$RESULTS"
            say "  $v -P $p -d $d: ${rps:-failed}"
        done; done; done; done
        stop_server "$SPID"
    done
    r=$((r + 1))
done

# ---- memory ----
MEMFILE="$WORK/memory"
: >"$MEMFILE"
if [ "$BENCH_MEMORY" != 0 ]; then
    for kind in scratchpad redis; do
        say "memory: $kind, $MEM_N SETs over $MEM_R keys"
        start_server "$kind"
        before=$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" info memory 2>/dev/null | tr -d '\r' | sed -n 's/^used_memory://p')
        $PIN_BENCH "$REDIS_BENCHMARK" -h 127.0.0.1 -p "$SPORT" -t set -r "$MEM_R" -n "$MEM_N" -d 16 -c "$CLIENTS" \
            --csv >/dev/null 2>&1
        after=$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" info memory 2>/dev/null | tr -d '\r' | sed -n 's/^used_memory://p')
        keys=$("$REDIS_CLI" -h 127.0.0.1 -p "$SPORT" dbsize 2>/dev/null | tr -d '\r')
        case "$keys" in *[!0-9]* | '') keys="" ;; esac
        echo "$kind ${before:--} ${after:--} ${keys:--}" >>"$MEMFILE"
        stop_server "$SPID"
    done
fi

# ---- report ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "# scratchpad-server vs redis-server"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: ${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') CPUs"
echo "- scratchpad: $("$SERVER" --version 2>/dev/null | head -n 1) (--appendonly no${SERVER_ARGS:+ $SERVER_ARGS})"
echo "- redis: $("$REDIS_SERVER" --version 2>/dev/null | head -n 1) (--save '' --appendonly no${REDIS_ARGS:+ $REDIS_ARGS})"
echo "- client: redis-benchmark -c $CLIENTS, on 127.0.0.1; pinning: $PINNING"
echo "- load average (1, 5, 15 min) at start: ${LOAD_START:-?}, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "- $ROUNDS rounds, servers alternating, fresh server per round; figures are the median of the rounds;"
echo "  spread = (max - min) / median of a server's rounds"
echo
echo "## Throughput (requests per second, higher is better)"
echo
echo "GET rows name the state of the value read (see the top of bench/vs-redis.sh): raw; LZ4 as the background"
echo "pass compresses it (compress-write-acceleration); LZ4 re-encoded at acceleration 1 after compress-dict-delay;"
echo "LZ4 with compress-hot-reads 0 (no value kept raw because hot: every GET decodes). In the first three a value read"
echo "compress-hot-reads times in a second turns raw. redis-server reads the same value, raw, in every GET row."
echo
echo "| test | -P | -d | requests | scratchpad | redis | scratchpad/redis | spread sp / redis |"
echo "|------|---:|---:|---------:|-----------:|------:|-----------------:|------------------:|"
spread() { # kind variant p d
    awk -v k="$1" -v t="$2" -v p="$3" -v d="$4" '$1 == k && $2 == t && $3 == p && $4 == d && $6 != "" { print $6 }' "$RESULTS" |
        sort -n | awk '{ v[NR] = $1 } END { if (NR < 2) { print "-"; exit }
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.0f%%\n", 100 * (v[NR] - v[1]) / m }'
}
for t in $TESTS; do for p in $PIPELINES; do for d in $SIZES; do for v in $(variants "$t" "$d"); do
    sp=$(awk -v t="$v" -v p="$p" -v d="$d" '$1 == "scratchpad" && $2 == t && $3 == p && $4 == d && $6 != "" { print $6 }' "$RESULTS" | median)
    rd=$(awk -v t="$v" -v p="$p" -v d="$d" '$1 == "redis" && $2 == t && $3 == p && $4 == d && $6 != "" { print $6 }' "$RESULTS" | median)
    name=$(echo "$t" | tr '[:lower:]' '[:upper:]')
    [ "$t" = mset ] && name="MSET (10 keys)"
    case $v in
    get:raw) name="GET (raw)" ;;
    get:lz4) name="GET (LZ4, as compressed)" ;;
    get:idle) name="GET (LZ4, re-encoded idle)" ;;
    get:cold) name="GET (LZ4, every read decodes)" ;;
    esac
    echo "| $name | $p | $d | $(nreq "$v" "$p" "$d") | ${sp:-n/a} | ${rd:-n/a} | $(ratio "$sp" "$rd") | $(spread scratchpad "$v" "$p" "$d") / $(spread redis "$v" "$p" "$d") |"
done; done; done; done

if [ "$BENCH_MEMORY" != 0 ]; then
    echo
    echo "## Memory (after redis-benchmark -t set -r $MEM_R -n $MEM_N -d 16, lower is better)"
    echo
    echo "| server | keys | used_memory before | used_memory after | MB after | bytes/key | scratchpad/redis |"
    echo "|--------|-----:|-------------------:|------------------:|---------:|----------:|-----------------:|"
    sp_after=$(awk '$1 == "scratchpad" { print $3 }' "$MEMFILE")
    rd_after=$(awk '$1 == "redis" { print $3 }' "$MEMFILE")
    while read -r kind before after keys; do
        mb=$(awk -v a="$after" 'BEGIN { if (a == "-") print "n/a"; else printf "%.1f\n", a / 1048576 }')
        per=$(awk -v a="$after" -v b="$before" -v k="$keys" \
            'BEGIN { if (a == "-" || b == "-" || k == "-" || k + 0 == 0) print "n/a"; else printf "%.1f\n", (a - b) / k }')
        if [ "$kind" = scratchpad ]; then
            rt=$(ratio "$(echo "$sp_after" | sed 's/^-$//')" "$(echo "$rd_after" | sed 's/^-$//')")
        else
            rt=1.00
        fi
        echo "| $kind | $keys | $before | $after | $mb | $per | $rt |"
    done <"$MEMFILE"
    echo
    echo "bytes/key = (used_memory after - before) / keys; n/a where the server gave no figure."
fi
