#!/bin/sh
# pel-vs-redis.sh -- XACK of 200,000 pending entries (10 consumers) in random order,
# scratchpad-server and redis-server alternating for 3 rounds, fresh server per round,
# servers on CPU 0 and the client (bench/pel_ack.py, redis-py pipelines of 1000) on CPU 1.
# Prints one line per round and server. A benchmark: it asserts nothing.
S=${SERVER:-$(cd "$(dirname "$0")/.." && pwd)/build/scratchpad-server}
B=$(cd "$(dirname "$0")" && pwd)
for round in 1 2 3; do
 for srv in sp redis; do
  P=$((17700+round)); D=$(mktemp -d)
  if [ $srv = sp ]; then taskset -c 0 $S --port $P --dir $D --appendonly no >/dev/null 2>&1 & else taskset -c 0 redis-server --port $P --save '' --appendonly no --dir $D >/dev/null 2>&1 & fi
  PID=$!; sleep 0.5
  echo "$round $srv $(taskset -c 1 /usr/bin/python3 $B/pel_ack.py $P ${PEL_N:-200000})"
  kill $PID; wait $PID 2>/dev/null; rm -rf $D
 done
done
