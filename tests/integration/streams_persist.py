#!/usr/bin/python3
"""streams_persist.py -- streams with consumer groups survive restarts: random
XADD (explicit and `*` ids), XDEL, XTRIM (exact and approximate), XSETID,
groups, XREADGROUP with and without NOACK, XACK, XCLAIM, XAUTOCLAIM and
consumers created and deleted, on a few streams (one of thousands of
entries), then

  1. a restart replaying the log of effects,
  2. BGREWRITEAOF in the incremental mode (in 1 us steps, with stream writes
     meanwhile), then a restart from the new base,
  3. BGREWRITEAOF in the fork mode, then a restart,
  4. a SHUTDOWN (not SIGTERM), then a restart,

and after each one XRANGE, XINFO STREAM FULL and XPENDING extended of every
stream are the same (seen times and block counts left out), and
scratchpad-check-aof finds the log clean. Seeded (SEED=...)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import spserver  # noqa: E402
from persist_restart import Srv, client, poll, wait_rewrite_done  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
KEYS = ["s1", "s2", "big"]
GROUPS = ["g1", "g2"]
CONS = ["c1", "c2", "c3"]


def strip_times(v):
    """XINFO STREAM FULL with seen-time values and the block counts dropped
    (delivery times are kept: the log records them; a rewrite writes only live
    entries, so its blocks are packed anew)."""
    if isinstance(v, list):
        out, skip = [], False
        for x in v:
            if skip:
                skip = False
                out.append(0)
                continue
            if x in (b"seen-time", b"radix-tree-keys", b"radix-tree-nodes"):
                skip = True
            out.append(strip_times(x))
        return out
    return v


def dump(srv):
    r = client(srv)
    out = {}
    for k in sorted(r.execute_command("KEYS", "*")):
        if r.execute_command("TYPE", k) != b"stream":
            continue
        groups = r.execute_command("XINFO", "GROUPS", k)
        pend = {}
        for g in groups:
            name = g[1]
            rows = r.execute_command("XPENDING", k, name, "-", "+", 100000)
            pend[name] = [(x[0], x[1], x[3]) for x in rows]
        out[k] = (r.execute_command("XRANGE", k, "-", "+"), strip_times(r.execute_command("XINFO", "STREAM", k, "FULL",
                                                                                          "COUNT", 0)), pend)
    r.close()
    return out


def random_ops(r, rng, n):
    for _ in range(n):
        k = rng.choice(KEYS)
        g = rng.choice(GROUPS)
        c = rng.choice(CONS)
        x = rng.random()
        try:
            if x < 0.4:
                opts = rng.choice([[], [], ["MAXLEN", "~", "500"], ["MAXLEN", "300"] if k != "big" else []])
                r.execute_command("XADD", k, *opts, "*", "f", rng.randrange(100), "g", "v" * rng.randrange(4))
            elif x < 0.45:
                r.execute_command("XDEL", k, "%d-%d" % (rng.randrange(1, 1 << 41), 0))
                first = r.execute_command("XRANGE", k, "-", "+", "COUNT", 3)
                if first:
                    r.execute_command("XDEL", k, rng.choice(first)[0])
            elif x < 0.5:
                r.execute_command("XGROUP", "CREATE", k, g, rng.choice(["0", "$"]), "MKSTREAM")
            elif x < 0.7:
                r.execute_command("XREADGROUP", "GROUP", g, c, "COUNT", rng.randrange(1, 5),
                                  *(["NOACK"] if rng.random() < 0.1 else []), "STREAMS", k, ">")
            elif x < 0.8:
                p = r.execute_command("XPENDING", k, g, "-", "+", 3)
                if p:
                    r.execute_command("XACK", k, g, rng.choice(p)[0])
            elif x < 0.85:
                p = r.execute_command("XPENDING", k, g, "-", "+", 3)
                if p:
                    r.execute_command("XCLAIM", k, g, c, 0, rng.choice(p)[0], *rng.choice([[], ["JUSTID"],
                                                                                           ["RETRYCOUNT", "7"]]))
            elif x < 0.9:
                r.execute_command("XAUTOCLAIM", k, g, c, 0, "0", "COUNT", 2)
            elif x < 0.93:
                r.execute_command("XGROUP", rng.choice(["CREATECONSUMER", "DELCONSUMER"]), k, g, c)
            elif x < 0.96:
                if k != "big":
                    r.execute_command("XTRIM", k, "MAXLEN", rng.choice(["~", "="]), rng.randrange(0, 50))
            else:
                r.execute_command("XREADGROUP", "GROUP", g, c, "STREAMS", k, "0")
        except Exception as e:  # noqa: BLE001 -- a missing group or key is an expected error
            if "NOGROUP" not in str(e) and "BUSYGROUP" not in str(e) and "requires the key" not in str(e):
                raise


def check_same(srv, what, fn, rep):
    before = dump(srv)
    fn()
    after = dump(srv)
    n = sum(len(v[0]) for v in before.values())
    why = None
    if before.keys() != after.keys():
        why = "keys differ"
    else:
        for k in before:
            for i, part in enumerate(("XRANGE", "XINFO STREAM FULL", "XPENDING")):
                if before[k][i] != after[k][i]:
                    why = "%r: %s differs: %s / %s" % (k, part, str(before[k][i])[:300], str(after[k][i])[:300])
                    break
            if why:
                break
    if why is None and n < 500:
        why = "too few entries (%d)" % n
    if why is None:
        print("ok - %s: %d entries, XRANGE, XINFO STREAM FULL and XPENDING the same" % (what, n))
        rep[0] += 1
    else:
        print("not ok - %s: %s" % (what, why))
        rep[1] += 1


def main():
    rng = random.Random(SEED)
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    rep = [0, 0]
    with Srv("--aof-rewrite-step-us", "1") as srv:
        r = client(srv)
        for i in range(3000):
            r.execute_command("XADD", "big", "*", "n", i)
        random_ops(r, rng, 3000)
        check_same(srv, "a restart replaying the streams' effects", lambda: srv.restart(), rep)

        def go_inc():
            c = client(srv)
            c.execute_command("CONFIG", "SET", "aof-rewrite-mode", "incremental")
            c.execute_command("BGREWRITEAOF")
            random_ops(c, rng, 300)
            wait_rewrite_done(c, 1)
            c.close()

        go_inc()
        check_same(srv, "an incremental BGREWRITEAOF (streams written during it), then a restart",
                   lambda: srv.restart(), rep)

        def fork_rewrite():
            c = client(srv)
            c.execute_command("CONFIG", "SET", "aof-rewrite-mode", "fork")
            c.execute_command("BGREWRITEAOF")
            wait_rewrite_done(c, 1)
            c.close()
            srv.restart()

        random_ops(client(srv), rng, 500)
        check_same(srv, "a BGREWRITEAOF in the fork mode, then a restart", fork_rewrite, rep)

        def shutdown():
            try:
                client(srv).execute_command("SHUTDOWN")
            except Exception:  # noqa: BLE001 -- the connection closes
                pass
            poll(lambda: not srv.alive(), "the server to exit")
            srv.restart()

        random_ops(client(srv), rng, 500)
        check_same(srv, "a SHUTDOWN, then a restart", shutdown, rep)
        status, out = spserver.run_check_aof(os.path.join(srv.dir, "data", "scratchpad.manifest"))
        ok = status == 0
        print(("ok" if ok else "not ok") + " - scratchpad-check-aof reads the log of streams as clean" +
              ("" if ok else ": %s" % out))
        rep[0 if ok else 1] += 1
    sys.exit(1 if rep[1] else 0)


if __name__ == "__main__":
    main()
