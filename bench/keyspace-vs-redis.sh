#!/bin/sh
# keyspace-vs-redis.sh -- bitmaps, HyperLogLog and geo, scratchpad-server and redis-server side by
# side: redis-benchmark custom commands at -P 1 and -P 16 (-c 50, -r 1000000), requests per
# second, and the memory of a 1M-member geo set and of 1M HyperLogLog keys.
#   setbit    SETBIT b:<rand> 100 1         getbit    GETBIT bits 123456   (bits: 1000 random bits of 1M set
#             first; redis-benchmark's <rand> is zero-padded, which neither server takes as an offset)
#   bitcount  BITCOUNT bits                 pfadd     PFADD hll <rand>     (hll: dense, 200k elements)
#   pfcount   PFCOUNT hll                   geoadd    GEOADD g 13.361389 38.115556 m:<rand>
#   geosearch GEOSEARCH geo FROMLONLAT 13.4 38.1 BYRADIUS 5 km ASC COUNT 10 (geo: 100k members
#             spread over 2 x 2 degrees)
# Memory: used_memory of a fresh server before and after 1M GEOADD members (1000 per command) and
# 1M keys hll:<i> of 10 elements each, loaded with redis-cli --pipe.
# Servers on CPU 0, redis-benchmark on CPU 1, a fresh server per measurement, alternating for
# ROUNDS (3) rounds; medians. Servers on free ports, stopped by PID. A benchmark, not a test:
# the report (Markdown) goes to standard output. REQUESTS (200000) per test, TESTS to choose,
# MEMORY=0 to skip the memory figures.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
SERVER=${SERVER:-$top/$BUILD/scratchpad-server}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-200000}
TESTS=${TESTS:-"setbit getbit bitcount pfadd pfcount geoadd geosearch"}
work=$(mktemp -d "${TMPDIR:-/tmp}/keyspace-bench-XXXXXX")
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# The data sets, as RESP files for redis-cli --pipe.
/usr/bin/python3 - "$work" <<'PY'
import random, sys
w = sys.argv[1]
def cmd(*a):
    return "*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(str(x)), x) for x in a)
rng = random.Random(1)
with open(w + "/prep.resp", "w") as f:
    for i in range(1000):
        f.write(cmd("SETBIT", "bits", rng.randrange(1000000), 1))
    for i in range(0, 200000, 1000):
        f.write(cmd("PFADD", "hll", *("e%d" % j for j in range(i, i + 1000))))
    for i in range(0, 100000, 1000):
        args = []
        for j in range(i, i + 1000):
            args += ["%.6f" % (12.4 + 2 * rng.random()), "%.6f" % (37.1 + 2 * rng.random()), "p%d" % j]
        f.write(cmd("GEOADD", "geo", *args))
with open(w + "/geo1m.resp", "w") as f:
    for i in range(0, 1000000, 1000):
        args = []
        for j in range(i, i + 1000):
            args += ["%.6f" % (-179 + 358 * rng.random()), "%.6f" % (-85 + 170 * rng.random()), "member:%d" % j]
        f.write(cmd("GEOADD", "geo1m", *args))
with open(w + "/hll1m.resp", "w") as f:
    for i in range(1000000):
        f.write(cmd("PFADD", "hll:%d" % i, *("x%d" % ((i * 7 + j) % 1000) for j in range(10))))
PY

say() { echo "$*" >&2; }
SERVER_CPU=0
BENCH_CPU=1
. "$top/bench/lib.sh"
bench_pin "redis-benchmark"
used() { redis-cli -p "$port" info memory | tr -d '\r' | grep '^used_memory:' | cut -d: -f2; }
rate() { # P args... -> requests per second
    p=$1
    shift
    $PIN_BENCH redis-benchmark -p "$port" -c 50 -n "$REQUESTS" -P "$p" -r 1000000 -q "$@" |
        tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1
}
measure() { # kind test P -> one figure
    bench_server "$1"
    redis-cli -p "$port" --pipe <"$work/prep.resp" >/dev/null
    case $2 in
    setbit) rate "$3" setbit b:__rand_int__ 100 1 ;;
    getbit) rate "$3" getbit bits 123456 ;;
    bitcount) rate "$3" bitcount bits ;;
    pfadd) rate "$3" pfadd hll __rand_int__ ;;
    pfcount) rate "$3" pfcount hll ;;
    geoadd) rate "$3" geoadd g 13.361389 38.115556 m:__rand_int__ ;;
    geosearch) rate "$3" geosearch geo fromlonlat 13.4 38.1 byradius 5 km asc count 10 ;;
    esac
    bench_server_stop
}

echo "# Bitmaps, HyperLogLog and geo beside redis-server"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, servers on CPU 0, redis-benchmark on CPU 1 (-c 50," \
     "$REQUESTS requests); median of $ROUNDS rounds, a fresh server per measurement."
echo
echo "| test | pipeline | scratchpad-server | redis-server | ratio | rounds: scratchpad / redis |"
echo "|---|---:|---:|---:|---:|---|"
for t in $TESTS; do
    for p in 1 16; do
        : >"$work/sp"
        : >"$work/redis"
        r=0
        while [ "$r" -lt "$ROUNDS" ]; do
            echo "$t -P $p round $((r + 1))" >&2
            measure scratchpad "$t" "$p" >>"$work/sp"
            measure redis "$t" "$p" >>"$work/redis"
            r=$((r + 1))
        done
        a=$(bench_median <"$work/sp")
        b=$(bench_median <"$work/redis")
        echo "| $t | $p | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |" \
            "$(awk '{s = s (NR > 1 ? " " : "") sprintf("%.0f", $1)} END {print s}' "$work/sp") / $(awk '{s = s (NR > 1 ? " " : "") sprintf("%.0f", $1)} END {print s}' "$work/redis") |"
    done
done
[ "${MEMORY:-1}" = 0 ] && exit 0
echo
echo "| memory (used_memory growth) | scratchpad-server | redis-server | ratio |"
echo "|---|---:|---:|---:|"
for set in geo1m hll1m; do
    for kind in scratchpad redis; do
        bench_server "$kind"
        u0=$(used)
        redis-cli -p "$port" --pipe <"$work/$set.resp" >/dev/null
        sleep 1
        echo $(($(used) - u0)) >"$work/mem-$kind"
        bench_server_stop
    done
    a=$(cat "$work/mem-scratchpad")
    b=$(cat "$work/mem-redis")
    echo "| $set | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2fx", a / b}') |"
done
