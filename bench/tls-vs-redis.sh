#!/bin/sh
# tls-vs-redis.sh -- SET and GET over TLS, scratchpad-server and redis-server (Debian's, built with
# TLS) alternating for ROUNDS rounds (default 3), fresh server per round, servers on CPU 0 and redis-benchmark
# --tls on CPU 1 (-c 50, -r 100000, 3-byte values; 100k requests at -P 1, 400k at -P 16). The
# certificates (a CA, a server and a client certificate, the client's required by both servers
# as by default) are made once in a temporary directory by tests/lib/tlscerts.py. Prints one
# line per round, server and pipeline, then the medians and the ratios scratchpad / redis:
# requests per second, and the server's CPU time (user + system, from /proc) per 10,000
# requests, which a busy machine disturbs less than the rates (the 50 handshakes of each
# redis-benchmark run are in it). A benchmark: it asserts nothing.
TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${SERVER:-$TOP/build/scratchpad-server}
C=$(mktemp -d)
/usr/bin/python3 "$TOP/tests/lib/tlscerts.py" "$C" || exit 1
TLS="--tls-cert-file $C/server.crt --tls-key-file $C/server.key --tls-ca-cert-file $C/ca.crt"
BTLS="--tls --cacert $C/ca.crt --cert $C/client.crt --key $C/client.key"
OUT=$(mktemp)
rps() { tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1; }
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
HZ=$(getconf CLK_TCK)
ROUNDS=${ROUNDS:-3}
round=1
while [ $round -le "$ROUNDS" ]; do
 for srv in sp redis; do
  P=$((17700+round)); T=$((17750+round)); D=$(mktemp -d)
  if [ $srv = sp ]; then
   taskset -c 0 $S --port $P --tls-port $T $TLS --dir $D --appendonly no >/dev/null 2>&1 &
  else
   taskset -c 0 redis-server --port $P --tls-port $T $TLS --save '' --appendonly no --dir $D >/dev/null 2>&1 &
  fi
  PID=$!; sleep 0.5
  for pl in 1 16; do
   n=$([ $pl = 1 ] && echo 100000 || echo 400000)
   t0=$(ticks $PID)
   s=$(taskset -c 1 redis-benchmark -p $T $BTLS -n $n -c 50 -P $pl -r 100000 -q set key:__rand_int__ abc | rps)
   t1=$(ticks $PID)
   g=$(taskset -c 1 redis-benchmark -p $T $BTLS -n $n -c 50 -P $pl -r 100000 -q get key:__rand_int__ | rps)
   t2=$(ticks $PID)
   cs=$(echo "$t0 $t1 $n $HZ" | awk '{ printf "%.1f", ($2 - $1) * 1000 / $4 * 10000 / $3 }')
   cg=$(echo "$t1 $t2 $n $HZ" | awk '{ printf "%.1f", ($2 - $1) * 1000 / $4 * 10000 / $3 }')
   echo "$round $srv P$pl set $s get $g cpu-ms-per-10k set $cs get $cg" | tee -a "$OUT"
  done
  kill $PID; wait $PID 2>/dev/null; rm -rf $D
 done
 round=$((round + 1))
done
# Medians of the rounds (the lower middle one for an even count), and scratchpad / redis.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
span() { sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.0f-%.0f", a, b }'; }
for pl in 1 16; do
 for op in set get; do
  col=$([ $op = set ] && echo 5 || echo 7)
  m_sp=$(grep " sp P$pl " "$OUT" | cut -d' ' -f$col | median)
  m_r=$(grep " redis P$pl " "$OUT" | cut -d' ' -f$col | median)
  c_sp=$(grep " sp P$pl " "$OUT" | cut -d' ' -f$((col + 5)) | median)
  c_r=$(grep " redis P$pl " "$OUT" | cut -d' ' -f$((col + 5)) | median)
  echo "median P$pl $op: rps scratchpad $m_sp redis $m_r ratio $(echo "$m_sp $m_r" | awk '{ printf "%.2f", $1 / $2 }')" \
   "(rounds $(grep " sp P$pl " "$OUT" | cut -d' ' -f$col | span) / $(grep " redis P$pl " "$OUT" | cut -d' ' -f$col | span));" \
   "server cpu ms/10k scratchpad $c_sp redis $c_r ratio redis/scratchpad $(echo "$c_r $c_sp" | awk '{ printf "%.2f", $1 / $2 }')"
 done
done
rm -rf "$C" "$OUT"
