#!/usr/bin/python3
"""pel_ack.py PORT [N] -- acknowledge N pending stream entries in random order.

N entries are added to stream s and delivered to 10 consumers of group g
(N/10 each); then every id is XACKed in a shuffled order (seed 1), in
pipelines of 1000. Prints the XACK rate. Run by bench/pel-vs-redis.sh against
each server: a benchmark, it asserts nothing."""
import random
import sys
import time

import redis

port = int(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
r = redis.Redis(port=port)
r.flushall()
p = r.pipeline(transaction=False)
for i in range(N):
    p.xadd("s", {"f": "v"}, id="%d-1" % (i + 1))
p.execute()
r.xgroup_create("s", "g", "0")
for c in range(10):
    r.xreadgroup("g", "c%d" % c, {"s": ">"}, count=N // 10)
ids = ["%d-1" % (i + 1) for i in range(N)]
random.seed(1)
random.shuffle(ids)
t = time.time()
for k in range(0, N, 1000):
    p = r.pipeline(transaction=False)
    for i in ids[k:k + 1000]:
        p.xack("s", "g", i)
    p.execute()
dt = time.time() - t
print("xack %d pending in random order: %.2f s, %.0f/s, left %d" % (N, dt, N / dt, r.xpending("s", "g")["pending"]))
