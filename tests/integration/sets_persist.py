#!/usr/bin/python3
"""sets_persist.py -- sets survive a restart, whatever wrote the log.

Random set operations (SADD, SREM, SMOVE, SPOP with and without a count, the
STORE commands, EXPIRE, DEL) over intsets and hash tables, small and large (a
set of 5,000 members is written by the rewrite in many SADD records), in two
databases; then the dataset is dumped (every key's type, expiry time and sorted
members), and must be the same after: a clean restart (SIGTERM), and a
BGREWRITEAOF in each aof-rewrite-mode (incremental, fork) followed by a
restart. SPOP is random, so it must have been logged as what it removed.
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402

KEYS = ["s%d" % i for i in range(12)]


def member(rng):
    if rng.random() < 0.5:
        return str(rng.randrange(-300, 300))
    return rng.choice(["a", "b", "m", "member:", "x y", ""]) + str(rng.randrange(400))


def work(r, rng, n):
    p = r.pipeline(transaction=False)
    for _ in range(n):
        k = rng.choice(KEYS)
        c = rng.randrange(12)
        if c < 4:
            p.sadd(k, *[member(rng) for _ in range(rng.randrange(1, 10))])
        elif c == 4:
            p.srem(k, *[member(rng) for _ in range(rng.randrange(1, 5))])
        elif c == 5:
            p.smove(k, rng.choice(KEYS), member(rng))
        elif c == 6:
            p.spop(k)
        elif c == 7:
            p.spop(k, rng.randrange(1, 20))
        elif c == 8:
            p.execute_command(rng.choice(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), k,
                              *rng.sample(KEYS, rng.randrange(1, 3)))
        elif c == 9:
            p.pexpire(k, rng.randrange(600000, 900000))
        elif c == 10 and rng.random() < 0.2:
            p.delete(k)
        else:
            p.sadd(k, *[str(rng.randrange(50)) for _ in range(rng.randrange(1, 6))])
    p.execute()


def fill(r, rng):
    for db in (0, 1):
        r.execute_command("SELECT", db)
        work(r, rng, 3000)
        r.sadd("big:int", *range(5000))
        r.sadd("big:str", *["member:%d" % i for i in range(5000)])
        r.spop("big:str", 700)
        r.spop("big:int", 4990)
        r.pexpire("big:str", 3600000)
    r.execute_command("SELECT", 0)


def dump(port):
    out = {}
    for db in (0, 1):
        r = redis.Redis(port=port, db=db)
        for k in sorted(r.scan_iter(count=1000)):
            t = r.type(k)
            out[(db, k)] = (t, r.pexpiretime(k), sorted(r.smembers(k)) if t == b"set" else None)
    return out


def wait_rewrite(r, timeout=60):
    deadline = time.monotonic() + timeout
    while r.info("persistence")["aof_rewrite_in_progress"]:
        if time.monotonic() > deadline:
            raise AssertionError("the rewrite did not finish within %d s" % timeout)
        time.sleep(0.01)


def same(before, after):
    assert len(before) == len(after), "%d keys before, %d after" % (len(before), len(after))
    for k, v in before.items():
        assert after.get(k) == v, "key %r: %r before, %r after" % (k, v[:2], after.get(k, (None, None))[:2])


def t_restart(seed):
    rng = random.Random(seed)
    with Server("--appendonly", "yes") as srv:
        r = redis.Redis(port=srv.port)
        fill(r, rng)
        before = dump(srv.port)
        assert any(v[0] == b"set" for v in before.values())
        srv.restart()
        same(before, dump(srv.port))


def t_rewrite(seed, mode):
    rng = random.Random(seed)
    with Server("--appendonly", "yes", "--aof-rewrite-mode", mode) as srv:
        r = redis.Redis(port=srv.port)
        fill(r, rng)
        r.bgrewriteaof()
        wait_rewrite(r)
        work(r, rng, 500)  # after the rewrite: appended to the new base
        before = dump(srv.port)
        srv.restart()
        same(before, dump(srv.port))


def main():
    seed = int(os.environ.get("SEED", random.randrange(1, 1 << 30)))
    print("# seed %d (SEED=%d replays it)" % (seed, seed))
    rep = Reporter()
    rep.case("sets, their members and TTLs are the same after a clean restart", t_restart, seed)
    rep.case("sets are the same after an incremental BGREWRITEAOF and a restart", t_rewrite, seed, "incremental")
    rep.case("sets are the same after a forked BGREWRITEAOF and a restart", t_rewrite, seed, "fork")
    rep.finish()


if __name__ == "__main__":
    main()
