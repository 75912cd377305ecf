#!/usr/bin/python3
"""hashes_persist.py -- hashes survive a restart exactly.

Random hash operations (HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT,
expiries, MULTI) over small listpack hashes, hash tables and one large hash
(several rewrite records, one value past the 64 KB record batch), in two
databases; then a dump (every key, its type, its expiry time, its fields and
values in order for a listpack hash) is compared before and after: a clean
restart (the log replayed), and a BGREWRITEAOF in each aof-rewrite-mode
(incremental, fork) followed by more writes and a restart (the new base and
its tail replayed).
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402


def ops(r, rng, n):
    keys = ["h%d" % i for i in range(12)]
    p = r.pipeline(transaction=False)
    for _ in range(n):
        k = rng.choice(keys)
        c = rng.randrange(10)
        f = "f%d" % rng.randrange(200 if k in ("h0", "h1") else 12)
        if c < 4:
            p.hset(k, mapping={f: rng.choice(["v", str(rng.randrange(1000)), "x" * rng.randrange(100), ""]),
                               "g%d" % rng.randrange(5): "w"})
        elif c == 4:
            p.hdel(k, f, "g1")
        elif c == 5:
            p.hincrby(k, "n", rng.randrange(-50, 50))
        elif c == 6:
            p.hincrbyfloat(k, "fl", rng.choice([0.1, -3.25, 1e10, 7]))
        elif c == 7:
            p.hsetnx(k, f, "nx")
        elif c == 8:
            p.expire(k, rng.randrange(1000, 100000))
        else:
            p.execute_command("HMSET", k, f, "m")
    p.execute()
    with r.pipeline(transaction=True) as t:
        t.hset("h11", "in-multi", "1").hincrby("h11", "n", 5).hdel("h11", "g2")
        t.execute()


def big(r):
    r.hset("big", mapping={"field:%d" % i: "value:%d" % i for i in range(3000)})
    r.hset("big", "huge", "z" * 100000)
    r.hset("small", mapping={"a": "1", "b": "2", "c": "3"})
    r.hdel("small", "a")
    r.hset("small", "a", "again")


def dump(port):
    out = {}
    for dbn in (0, 1):
        r = redis.Redis(port=port, db=dbn)
        for k in sorted(r.keys("*")):
            enc = r.object("encoding", k)
            pairs = r.execute_command("HGETALL", k)
            if isinstance(pairs, dict):
                pairs = [x for kv in pairs.items() for x in kv]
            items = list(zip(pairs[0::2], pairs[1::2]))
            out[(dbn, k)] = (r.type(k), enc, r.execute_command("PEXPIRETIME", k), items)
    return out


def differences(before, after):
    """Keys whose type, expiry time or content differ; the order of the
    fields counts when both sides are listpack hashes (a hash table whose
    fields fit a listpack is loaded as one, as Redis loads an RDB)."""
    diff = []
    for k in sorted(set(before) | set(after)):
        b, a = before.get(k), after.get(k)
        if b is None or a is None or b[0] != a[0] or b[2] != a[2]:
            diff.append((k, b, a))
        elif b[1] == a[1] == b"listpack":
            if b[3] != a[3]:
                diff.append((k, b, a))
        elif sorted(b[3]) != sorted(a[3]):
            diff.append((k, b, a))
    return diff


def fill(srv, seed):
    rng = random.Random(seed)
    r0 = redis.Redis(port=srv.port)
    r1 = redis.Redis(port=srv.port, db=1)
    big(r0)
    ops(r0, rng, 3000)
    ops(r1, rng, 500)
    return rng


def wait_rewrite(r, timeout=30):
    deadline = time.monotonic() + timeout
    while r.info("persistence")["aof_rewrite_in_progress"]:
        if time.monotonic() > deadline:
            raise AssertionError("the rewrite did not finish within %d s" % timeout)
        time.sleep(0.01)


def case_restart():
    with Server() as srv:
        fill(srv, 1)
        before = dump(srv.port)
        srv.restart()
        after = dump(srv.port)
        diff = differences(before, after)
        assert not diff, "dumps differ after a restart: %r" % diff[:3]
        assert all(b[1] == after[k][1] for k, b in before.items()), "an encoding changed in the replay"
        assert len(before) > 10


def case_rewrite(mode):
    with Server("--aof-rewrite-mode", mode) as srv:
        rng = fill(srv, 2)
        r = redis.Redis(port=srv.port)
        r.bgrewriteaof()
        ops(r, rng, 300)
        wait_rewrite(r)
        ops(r, rng, 300)
        before = dump(srv.port)
        srv.restart()
        after = dump(srv.port)
        diff = differences(before, after)
        assert not diff, "dumps differ after a rewrite and a restart: %r" % diff[:3]


if __name__ == "__main__":
    rep = Reporter()
    rep.case("hashes of both encodings, their TTLs and listpack order are the same after a restart", case_restart)
    rep.case("the same after an incremental BGREWRITEAOF, more writes and a restart", case_rewrite, "incremental")
    rep.case("the same after a forked BGREWRITEAOF, more writes and a restart", case_rewrite, "fork")
    rep.finish()
