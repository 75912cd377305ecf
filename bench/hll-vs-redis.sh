#!/bin/sh
# hll-vs-redis.sh -- PFADD throughput and the memory of 1M HyperLogLog keys, scratchpad-server
# (and, with BASE=<another scratchpad-server>, a second build: A/B of a change) next to
# redis-server in one run. Throughput: `PFADD hll __rand_int__` (-r 100000000: one key that
# turns dense after a few thousand adds, then stays dense), 3 rounds alternating, a fresh
# server per round, servers on CPU 0 and redis-benchmark on CPU 1, -c 50, 100k requests at
# -P 1 and 200k at -P 16. Memory: a fresh server, `used_memory` before and after 1M keys
# `hll:<i>` each given 10 elements by one PFADD (sparse HLLs, as most HLL keys are), loaded
# with redis-cli --pipe. Prints one line per round, server and pipeline, then one per server
# for memory. The server's CPU time per request (from /proc) is printed beside the rate: on a
# busy machine it is the steadier figure. A benchmark: it asserts nothing.
S=${SERVER:-$(cd "$(dirname "$0")/.." && pwd)/build/scratchpad-server}
SERVERS="sp redis"
[ -n "$BASE" ] && SERVERS="sp base redis"
ROUNDS=${ROUNDS:-3}
KEYS=${KEYS:-1000000}
start() { # $1 server kind, $2 port, $3 dir
  case $1 in
  sp) taskset -c 0 $S --port $2 --dir $3 --appendonly no >/dev/null 2>&1 & ;;
  base) taskset -c 0 $BASE --port $2 --dir $3 --appendonly no >/dev/null 2>&1 & ;;
  redis) taskset -c 0 redis-server --port $2 --save '' --appendonly no --dir $3 >/dev/null 2>&1 & ;;
  esac
  PID=$!; sleep 0.5
}
cpu() { awk '{print $14 + $15}' /proc/$PID/stat; } # the server's CPU time, in clock ticks
used() { redis-cli -p $1 info memory | tr -d '\r' | grep '^used_memory:' | cut -d: -f2; }
if [ "${SKIP_RATE:-0}" = 0 ]; then
for round in $(seq $ROUNDS); do
 for srv in $SERVERS; do
  P=$((17700+round)); D=$(mktemp -d)
  start $srv $P $D
  for pl in 1 16; do
   n=$([ $pl = 1 ] && echo 100000 || echo 200000)
   t0=$(cpu)
   r=$(taskset -c 1 redis-benchmark -p $P -n $n -c 50 -P $pl -r 100000000 -q pfadd hll __rand_int__ | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
   t1=$(cpu)
   echo "$round $srv P$pl pfadd $r req/s, server CPU $(( (t1 - t0) * 1000000 / $(getconf CLK_TCK) / (n / 1000) )) us per 1000 requests"
  done
  kill $PID; wait $PID 2>/dev/null; rm -rf $D
 done
done
fi
G=$(mktemp)
/usr/bin/python3 - "$KEYS" > $G <<'PY'
import sys
n = int(sys.argv[1]); out = sys.stdout.buffer
for i in range(n):
    args = [b"PFADD", b"hll:%d" % i] + [b"e%d-%d" % (i, j) for j in range(10)]
    out.write(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
PY
for srv in $SERVERS; do
  P=17790; D=$(mktemp -d)
  start $srv $P $D
  before=$(used $P)
  taskset -c 1 redis-cli -p $P --pipe < $G >/dev/null
  after=$(used $P)
  echo "memory $srv keys $(redis-cli -p $P dbsize) used_memory_delta $((after - before)) bytes_per_key $(( (after - before) / KEYS ))"
  kill $PID; wait $PID 2>/dev/null; rm -rf $D
done
rm -f $G
