#!/usr/bin/python3
"""bitmaps_persist.py -- bitmaps, HyperLogLogs and geo sets survive restarts:
random SETBIT, BITFIELD, BITOP, PFADD, PFMERGE, GEOADD and GEOSEARCHSTORE
(small bitmaps, a large one past compress-threshold that is stored compressed,
sparse and dense HLLs, geo sets small and large, keys with expiries, in two
databases), then

  1. a restart that replays the log of commands as they were typed,
  2. BGREWRITEAOF in the incremental mode (in 1 us steps, with writes running
     meanwhile), then a restart from the new base,
  3. BGREWRITEAOF in the fork mode, then a restart,

and after each one every key, TTL and value is the same (GET byte for byte;
for an HLL the header's cached count aside, which PFCOUNT stores without
logging it: docs/commands.md, with PFCOUNT of it compared instead) and
scratchpad-check-aof finds the log clean. Seeded (SEED=... reproduces)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import spserver  # noqa: E402
from persist_restart import Srv, client, wait_rewrite_done  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
DBS = (0, 3)


def dump(srv):
    out = {}
    for db in DBS:
        r = client(srv, db)
        d = {}
        for k in r.execute_command("KEYS", "*"):
            if r.execute_command("TYPE", k) == b"zset":
                d[k] = (r.execute_command("PEXPIRETIME", k), r.execute_command("ZRANGE", k, 0, -1, "WITHSCORES"))
                continue
            v = r.execute_command("GET", k)
            if v.startswith(b"HYLL"):
                v = (v[:8], v[16:], r.execute_command("PFCOUNT", k))
            d[k] = (r.execute_command("PEXPIRETIME", k), v)
        out[db] = d
        r.close()
    return out


def random_ops(r, rng, n):
    p = r.pipeline(transaction=False)
    for i in range(n):
        k = "b:%d" % rng.randrange(20)
        h = "h:%d" % rng.randrange(10)
        g = "g:%d" % rng.randrange(5)
        c = rng.randrange(13)
        if c == 10:
            args = []
            for _ in range(rng.choice([1, 5, 200])):
                args += ["%.6f" % rng.uniform(-180, 180), "%.6f" % rng.uniform(-85, 85), "p%d" % rng.randrange(3000)]
            p.execute_command("GEOADD", g, *args)
        elif c == 11:
            p.execute_command("GEOSEARCHSTORE", "g:%d" % rng.randrange(5), g, "FROMLONLAT", rng.uniform(-180, 180),
                              rng.uniform(-80, 80), "BYRADIUS", rng.choice([100, 2000, 9000]), "km",
                              *rng.choice([[], ["STOREDIST"], ["COUNT", "5"]]))
        elif c == 12:
            p.execute_command("GEORADIUS", g, 0, 0, 5000, "km", "STORE", "g:%d" % rng.randrange(5))
        elif c < 3:
            p.execute_command("SETBIT", rng.choice([k, "big"]), rng.randrange(300000 if rng.random() < 0.3 else 500),
                              rng.randrange(2))
        elif c == 3:
            p.execute_command("BITFIELD", k, "OVERFLOW", rng.choice(["WRAP", "SAT", "FAIL"]), "INCRBY",
                              rng.choice(["u8", "i5", "i64", "u63"]), rng.randrange(200), rng.randrange(-300, 300),
                              "SET", "u16", "#%d" % rng.randrange(10), rng.randrange(70000))
        elif c == 4:
            p.execute_command("BITOP", rng.choice(["AND", "OR", "XOR"]), "b:%d" % rng.randrange(20), k,
                              "b:%d" % rng.randrange(20))
        elif c < 7:
            p.execute_command("PFADD", h, *["e%d" % rng.randrange(100000) for _ in range(rng.choice([1, 5, 300]))])
        elif c == 7:
            p.execute_command("PFMERGE", h, "h:%d" % rng.randrange(10), "h:%d" % rng.randrange(10))
        elif c == 8:
            p.execute_command("PFCOUNT", h)
        else:
            p.execute_command("PEXPIRE", rng.choice([k, h, g]), rng.randrange(100000, 900000))
    p.execute(raise_on_error=False)


def restart_same(srv, what, fn, rep):
    before = dump(srv)
    fn()
    after = dump(srv)
    why = None
    for db in DBS:
        a, b = before[db], after[db]
        if a.keys() != b.keys():
            why = "db %d: keys differ: %r" % (db, sorted(set(a) ^ set(b))[:5])
        for k in a:
            if why is None and a[k] != b[k]:
                why = "db %d key %r differs" % (db, k)
    nkeys = sum(len(v) for v in before.values())
    if why is None and nkeys < 20:
        why = "too few keys (%d)" % nkeys
    print(("ok - %s: %d keys, every value and TTL the same" % (what, nkeys)) if why is None else
          ("not ok - %s: %s" % (what, why)))
    rep[0 if why is None else 1] += 1


def main():
    rng = random.Random(SEED)
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    rep = [0, 0]
    with Srv("--aof-rewrite-step-us", "1") as srv:
        for db in DBS:
            random_ops(client(srv, db), rng, 2000)
        r = client(srv)
        r.execute_command("SETBIT", "big", 400000, 1)
        r.execute_command("DEBUG", "SLEEP", "0.3")  # the cron compresses the large bitmap
        enc = r.execute_command("OBJECT", "ENCODING", "big")
        dense = [k for k in r.execute_command("KEYS", "h:*") if len(r.execute_command("GET", k)) == 12304]
        ok = enc == b"lz4" and dense
        print(("ok" if ok else "not ok") + " - the large bitmap is stored compressed (%r) and %d HLLs are dense" %
              (enc, len(dense)))
        rep[0 if ok else 1] += 1
        restart_same(srv, "a restart replaying the bitmap, HLL and geo commands as typed", lambda: srv.restart(), rep)

        def go_inc():
            r = client(srv)
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", "incremental")
            r.execute_command("BGREWRITEAOF")
            for db in DBS:
                random_ops(client(srv, db), rng, 300)
            wait_rewrite_done(r, 1)
            r.close()

        def fork_rewrite():
            r = client(srv)
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", "fork")
            r.execute_command("BGREWRITEAOF")
            wait_rewrite_done(r, 1)
            r.close()
            srv.restart()

        go_inc()
        restart_same(srv, "BGREWRITEAOF (incremental, with writes during its scan), then a restart",
                     lambda: srv.restart(), rep)
        restart_same(srv, "BGREWRITEAOF (fork), then a restart", fork_rewrite, rep)
        status, out = spserver.run_check_aof(os.path.join(srv.dir, "data", "scratchpad.manifest"))
        ok = status == 0
        print(("ok" if ok else "not ok") + " - scratchpad-check-aof reads the log of bitmaps, HLLs and geo sets as clean" +
              ("" if ok else ": %s" % out))
        rep[0 if ok else 1] += 1
    print("%d passed, %d failed" % tuple(rep))
    return rep[1] == 0


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
