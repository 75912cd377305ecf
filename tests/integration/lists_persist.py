#!/usr/bin/python3
"""lists_persist.py -- lists survive restarts and log rewrites unchanged.

Random list operations (pushes at both ends, pops with counts, LSET, LINSERT,
LREM, LTRIM, LMOVE, LMPOP, expiries, DEL) over a few dozen keys, one of them a
list of 100,000 elements (written by a rewrite in many bounded RPUSH records),
with small list nodes (list-max-listpack-size 8). Then, in turn: a clean
SHUTDOWN and restart; BGREWRITEAOF in incremental mode (with writes while it
runs) and restart; BGREWRITEAOF in fork mode and restart. Each time a full
dump (every key, its type, TTL and every element in order) is the same before
and after.
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402


def conn(srv):
    return redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)


def dump(r):
    out = {}
    for k in r.scan_iter(count=1000):
        t = r.type(k)
        ttl = r.pttl(k)
        out[k] = (t, ttl > 0, r.lrange(k, 0, -1) if t == b"list" else r.get(k))
    return out


def same(a, b, what):
    if a != b:
        diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)][:5]
        raise AssertionError("%s: %d keys differ, e.g. %r" % (what, len(diff), diff))


def random_ops(r, rng, n):
    keys = ["l%d" % i for i in range(30)]
    p = r.pipeline(transaction=False)
    for i in range(n):
        k, k2 = rng.choice(keys), rng.choice(keys)
        c = rng.randrange(12)
        el = "e%d" % rng.randrange(50)
        if c < 3:
            p.execute_command(rng.choice(["LPUSH", "RPUSH"]), k, *[el + "x" * rng.randrange(0, 40)
                                                                     for _ in range(rng.randrange(1, 8))])
        elif c == 3:
            p.execute_command(rng.choice(["LPOP", "RPOP"]), k, rng.randrange(1, 4))
        elif c == 4:
            p.execute_command("LSET", k, rng.randrange(-5, 5), el)
        elif c == 5:
            p.execute_command("LINSERT", k, rng.choice(["BEFORE", "AFTER"]), el, "ins")
        elif c == 6:
            p.execute_command("LREM", k, rng.randrange(-2, 3), el)
        elif c == 7:
            p.execute_command("LTRIM", k, rng.randrange(0, 3), rng.randrange(-3, 30))
        elif c == 8:
            p.execute_command("LMOVE", k, k2, rng.choice(["LEFT", "RIGHT"]), rng.choice(["LEFT", "RIGHT"]))
        elif c == 9:
            p.execute_command("LMPOP", 2, k, k2, "RIGHT", "COUNT", rng.randrange(1, 3))
        elif c == 10:
            p.execute_command("EXPIRE", k, rng.randrange(1000, 5000))
        else:
            p.execute_command("DEL", k) if rng.random() < 0.2 else p.execute_command("LLEN", k)
        if i % 200 == 199:
            p.execute(raise_on_error=False)
    p.execute(raise_on_error=False)


def wait_rewrite(r, timeout=60):
    deadline = time.monotonic() + timeout
    while r.info("persistence")["aof_rewrite_in_progress"]:
        if time.monotonic() > deadline:
            raise AssertionError("the rewrite did not finish within %d s" % timeout)
        time.sleep(0.01)


def run_cycle(srv, rng, how):
    r = conn(srv)
    random_ops(r, rng, 3000)
    if how != "shutdown":
        r.config_set("aof-rewrite-mode", how)
        r.execute_command("BGREWRITEAOF")
        if how == "incremental":
            random_ops(r, rng, 500)  # writes while the rewrite runs
        wait_rewrite(r)
        random_ops(r, rng, 300)
    before = dump(r)
    r.close()
    srv.restart()
    r = conn(srv)
    same(before, dump(r), "after %s and a restart" % how)
    r.close()


def main():
    rep = Reporter()
    seed = int(os.environ.get("SEED", random.randrange(1, 1 << 30)))
    print("# seed %d" % seed)
    rng = random.Random(seed)
    with Server("--appendonly", "yes", "--list-max-listpack-size", "8") as srv:
        r = conn(srv)
        p = r.pipeline(transaction=False)
        for i in range(0, 100000, 1000):
            p.rpush("big", *["item%d" % j for j in range(i, i + 1000)])
        p.execute()
        r.close()
        rep.case("lists are the same after random operations, a clean SHUTDOWN and a restart",
                 run_cycle, srv, rng, "shutdown")
        rep.case("lists are the same after an incremental BGREWRITEAOF (with writes during it) and a restart",
                 run_cycle, srv, rng, "incremental")
        rep.case("lists are the same after a fork BGREWRITEAOF and a restart", run_cycle, srv, rng, "fork")
        r = conn(srv)
        rep.case("the 100,000-element list kept every element in order",
                 lambda: r.lrange("big", 0, -1) == [b"item%d" % j for j in range(100000)] or
                 (_ for _ in ()).throw(AssertionError("big differs")))
        r.close()
    rep.finish()


if __name__ == "__main__":
    main()
