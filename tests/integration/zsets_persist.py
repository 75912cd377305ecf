#!/usr/bin/python3
"""zsets_persist.py -- sorted sets survive restarts: random operations on
sorted sets (small ones kept compact, a large one of thousands of members in
a skiplist, members with expiries, in two databases), then

  1. a restart that replays the log of commands as they were typed,
  2. BGREWRITEAOF in the incremental mode (in 1 us steps, with writes to the
     sets running meanwhile), then a restart from the new base,
  3. BGREWRITEAOF in the fork mode, then a restart,
  4. a SHUTDOWN (not SIGTERM), then a restart,

and after each one every key, TTL, member, score and order is the same
(ZRANGE 0 -1 WITHSCORES compared byte for byte) and scratchpad-check-aof finds
the log clean. Seeded (SEED=... reproduces); the server is stopped by PID."""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import spserver  # noqa: E402
from persist_restart import Srv, client, poll, wait_rewrite_done  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
DBS = (0, 3)


def dump(srv):
    """{db: {key: (type, pexpiretime, ZRANGE 0 -1 WITHSCORES)}}, bytes as sent."""
    out = {}
    for db in DBS:
        r = client(srv, db)
        d = {}
        for k in r.execute_command("KEYS", "*"):
            t = r.execute_command("TYPE", k)
            v = r.execute_command("ZRANGE", k, 0, -1, "WITHSCORES") if t == b"zset" else r.execute_command("GET", k)
            d[k] = (t, r.execute_command("PEXPIRETIME", k), v)
        out[db] = d
        r.close()
    return out


def same(before, after):
    for db in DBS:
        a, b = before.get(db, {}), after.get(db, {})
        if a.keys() != b.keys():
            return "db %d: keys differ: %r" % (db, sorted(set(a) ^ set(b))[:5])
        for k in a:
            if a[k] != b[k]:
                return "db %d key %r: %r != %r" % (db, k, str(a[k])[:200], str(b[k])[:200])
    return None


def score(rng):
    return rng.choice([str(rng.randrange(-50, 50)), "%.3f" % rng.uniform(-10, 10), "0.1", "1e20", "-0", "inf",
                       "-inf", "7e-300", repr(rng.random())])


def random_ops(r, rng, n):
    p = r.pipeline(transaction=False)
    for i in range(n):
        k = "z:%d" % rng.randrange(40)
        k2 = "z:%d" % rng.randrange(40)
        c = rng.randrange(14)
        if c < 4:
            args = []
            for _ in range(rng.randrange(1, 8)):
                args += [score(rng), "m%d" % rng.randrange(200) + ("x" * rng.choice([0, 0, 0, 70]))]
            p.execute_command("ZADD", k, *args)
        elif c == 4:
            p.execute_command("ZINCRBY", k, score(rng), "m%d" % rng.randrange(200))
        elif c == 5:
            p.execute_command("ZREM", k, *["m%d" % rng.randrange(200) for _ in range(3)])
        elif c == 6:
            p.execute_command("ZPOPMIN", k, rng.randrange(3))
        elif c == 7:
            p.execute_command("ZREMRANGEBYSCORE", k, rng.randrange(-50, 0), rng.randrange(0, 50))
        elif c == 8:
            p.execute_command("ZUNIONSTORE", k2, 2, k, "z:%d" % rng.randrange(40), "WEIGHTS", 2, 0.5)
        elif c == 9:
            p.execute_command("ZRANGESTORE", k2, k, "(0", "+inf", "BYSCORE", "LIMIT", 0, 5)
        elif c == 10:
            p.execute_command("PEXPIRE", k, rng.randrange(100000, 900000))
        elif c == 11:
            p.execute_command("ZMPOP", 2, k, k2, rng.choice(["MIN", "MAX"]), "COUNT", 2)
        elif c == 12:
            p.execute_command("ZADD", "big", *sum([[score(rng), "b%d" % rng.randrange(20000)] for _ in range(50)], []))
        else:
            p.execute_command("ZINTERSTORE", k2, 2, k, "big", "AGGREGATE", rng.choice(["MIN", "MAX", "SUM"]))
    try:
        p.execute(raise_on_error=False)
    except redis.ResponseError:
        pass


def fill(srv, rng):
    for db in DBS:
        r = client(srv, db)
        random_ops(r, rng, 3000)
        r.execute_command("SET", "s", "a string")
        r.close()


def restart_same(srv, what, fn, rep):
    before = dump(srv)
    fn()
    after = dump(srv)
    why = same(before, after)
    nkeys = sum(len(v) for v in before.values())
    if why is None and nkeys < 20:
        why = "too few keys (%d)" % nkeys
    if why is None:
        print("ok - %s: %d keys, every member, score, order and TTL the same" % (what, nkeys))
        rep[0] += 1
    else:
        print("not ok - %s: %s" % (what, why))
        rep[1] += 1


def main():
    rng = random.Random(SEED)
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    rep = [0, 0]
    with Srv("--aof-rewrite-step-us", "1", "--zset-max-listpack-entries", "16") as srv:
        fill(srv, rng)
        big = client(srv).execute_command("ZCARD", "big")
        enc = client(srv).execute_command("OBJECT", "ENCODING", "big")
        if big > 1000 and enc == b"skiplist":
            print("ok - the large sorted set has %d members in a skiplist" % big)
            rep[0] += 1
        else:
            print("not ok - the large sorted set has %d members (%r)" % (big, enc))
            rep[1] += 1

        restart_same(srv, "a restart replaying the sorted set commands as typed", lambda: srv.restart(), rep)

        def fork_rewrite():
            r = client(srv)
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", "fork")
            r.execute_command("BGREWRITEAOF")
            wait_rewrite_done(r, 1)  # counted since the restart
            r.close()
            srv.restart()

        # The incremental rewrite with writes during its scan: the dump is
        # taken after them, before the restart.
        def go_inc():
            r = client(srv)
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", "incremental")
            r.execute_command("BGREWRITEAOF")
            for db in DBS:
                random_ops(client(srv, db), rng, 300)
            wait_rewrite_done(r, 1)
            r.close()

        go_inc()
        restart_same(srv, "BGREWRITEAOF (incremental, with writes during its scan), then a restart",
                     lambda: srv.restart(), rep)
        restart_same(srv, "BGREWRITEAOF (fork), then a restart", fork_rewrite, rep)

        def shutdown():
            r = client(srv)
            try:
                r.execute_command("SHUTDOWN")
            except (redis.ConnectionError, redis.ResponseError):
                pass
            poll(lambda: not srv.alive(), "the server to exit")
            srv.restart()
        restart_same(srv, "SHUTDOWN, then a restart", shutdown, rep)
        status, out = spserver.run_check_aof(os.path.join(srv.dir, "data", "scratchpad.manifest"))
        ok = status == 0
        print(("ok" if ok else "not ok") + " - scratchpad-check-aof reads the log of sorted sets as clean" +
              ("" if ok else ": %s" % out))
        rep[0 if ok else 1] += 1
    print("%d passed, %d failed" % tuple(rep))
    return rep[1] == 0


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
