#!/bin/sh
# eval-vs-redis.sh -- EVAL and EVALSHA of a short SET script, scratchpad-server and redis-server
# alternating for ROUNDS rounds (default 3), fresh server per round, servers on CPU 0 and
# redis-benchmark on CPU 1 (-c 50, -r 100000; 100k requests at -P 1, 400k at -P 16). Prints one
# line per round, server and pipeline, then per pipeline and command the medians, the ratio
# scratchpad / redis and each side's min-max. A benchmark: it asserts nothing.
S=${SERVER:-$(cd "$(dirname "$0")/.." && pwd)/build/scratchpad-server}
ROUNDS=${ROUNDS:-3}
SCRIPT="return redis.call('SET', KEYS[1], ARGV[1])"
OUT=$(mktemp)
round=1
while [ $round -le "$ROUNDS" ]; do
 for srv in sp redis; do
  P=$((17600+round)); D=$(mktemp -d)
  if [ $srv = sp ]; then taskset -c 0 $S --port $P --dir $D --appendonly no >/dev/null 2>&1 & else taskset -c 0 redis-server --port $P --save '' --appendonly no --dir $D >/dev/null 2>&1 & fi
  PID=$!; sleep 0.5
  SHA=$(redis-cli -p $P script load "$SCRIPT")
  for pl in 1 16; do
   n=$([ $pl = 1 ] && echo 100000 || echo 400000)
   e=$(taskset -c 1 redis-benchmark -p $P -n $n -c 50 -P $pl -r 100000 -q eval "$SCRIPT" 1 key:__rand_int__ v | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
   h=$(taskset -c 1 redis-benchmark -p $P -n $n -c 50 -P $pl -r 100000 -q evalsha $SHA 1 key:__rand_int__ v | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1)
   echo "$round $srv P$pl eval $e evalsha $h" | tee -a "$OUT"
  done
  kill $PID; wait $PID 2>/dev/null; rm -rf $D
 done
 round=$((round + 1))
done
# median COLUMN: the median of the numbers on standard input (the lower middle one for an even count)
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for pl in 1 16; do
 for op in eval evalsha; do
  col=$([ $op = eval ] && echo 5 || echo 7)
  m_sp=$(grep " sp P$pl " "$OUT" | cut -d' ' -f$col | median)
  m_r=$(grep " redis P$pl " "$OUT" | cut -d' ' -f$col | median)
  r_sp=$(grep " sp P$pl " "$OUT" | cut -d' ' -f$col | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f-%.0f", a, b }')
  r_r=$(grep " redis P$pl " "$OUT" | cut -d' ' -f$col | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f-%.0f", a, b }')
  echo "median P$pl $op: scratchpad $m_sp redis $m_r ratio $(echo "$m_sp $m_r" | awk '{ printf "%.2f", $1 / $2 }') (rounds: scratchpad $r_sp, redis $r_r)"
 done
done
rm -f "$OUT"
