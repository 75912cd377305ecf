"""eviction.py -- maxmemory's policies: fill past maxmemory under each and check
what went.

Each case starts its own scratchpad-server (free port, temporary directory,
stopped by PID) with a small maxmemory, writes keys through redis-py
pipelines, and checks: noeviction refuses writes with Redis's OOM error and
keeps everything; volatile-* never take a key without a TTL (and refuse once
only such keys are left); volatile-ttl takes the nearest expiry first;
allkeys-lru keeps keys touched recently and allkeys-lfu keys accessed often,
when the rest is idle or cold; the random policies keep memory under the
limit; INFO's evicted_keys counts what went; OBJECT IDLETIME and FREQ answer
under the policies that track them. With the log on, nothing evicted comes
back at a restart, also after a rewrite.
"""
import os
import sys
import time

import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

LIMIT = 2 * 1024 * 1024
VALUE = b"v" * 200
OOM = "command not allowed when used memory > 'maxmemory'."


def server(policy, *extra):
    return spserver.Server("--maxmemory", str(LIMIT), "--maxmemory-policy", policy, *extra)


def fill(r, prefix, n, ttl=None, start=0):
    """Write n keys prefix0..; returns how many writes were refused with OOM."""
    refused = 0
    p = r.pipeline(transaction=False)
    for i in range(start, start + n):
        if ttl is None:
            p.set("%s%d" % (prefix, i), VALUE)
        else:
            p.set("%s%d" % (prefix, i), VALUE, px=ttl(i))
    for res in p.execute(raise_on_error=False):
        if isinstance(res, Exception):
            assert OOM in str(res), res
            refused += 1
    return refused


def settle(r):
    """Lift maxmemory: a command over the limit evicts before it runs, and the
    replies of the checks themselves take memory, so counts are read after."""
    r.config_set("maxmemory", 0)


def count(r, pattern):
    return len(r.keys(pattern))


def noeviction_refuses():
    with server("noeviction") as s:
        r = redis.Redis(port=s.port)
        refused = fill(r, "k", 20000)
        assert refused > 0, "no write was refused"
        assert r.dbsize() == 20000 - refused
        assert r.info("stats")["evicted_keys"] == 0
        try:
            r.set("one-more", VALUE)
            raise AssertionError("SET over maxmemory was accepted")
        except redis.exceptions.ResponseError as e:
            assert str(e) == "OOM " + OOM or OOM in str(e), e
        assert r.get("k0") == VALUE, "a read was refused"
        assert r.delete("k0") == 1, "DEL (which frees memory) was refused"


def volatile_keeps_persistent(policy):
    with server(policy) as s:
        r = redis.Redis(port=s.port)
        fill(r, "keep", 3000)
        refused = fill(r, "tmp", 20000, ttl=lambda i: 3600000 + i)
        assert count(r, "keep*") == 3000, "a key without a TTL was evicted"
        assert r.info("stats")["evicted_keys"] > 0, "nothing evicted"
        assert refused == 0, "%d writes refused while keys with a TTL were left" % refused
        # Only persistent keys left (none with a TTL to take): writes are refused.
        r.execute_command("PERSIST", "tmp19999")
        for k in r.keys("tmp*"):
            r.persist(k)
        refused = fill(r, "more", 5000)
        assert refused > 0, "writes accepted with nothing evictable"
        assert count(r, "keep*") == 3000


def volatile_ttl_nearest_first():
    with server("volatile-ttl") as s:
        r = redis.Redis(port=s.port)
        n = 20000
        fill(r, "t", n, ttl=lambda i: 3600000 + 1000 * i)
        settle(r)
        left = sorted(int(k[1:]) for k in r.keys("t*"))
        gone = n - len(left)
        assert gone > 0, "nothing evicted"
        assert left == list(range(gone, n)), "not the nearest expiries first: first left %d of %d" % (left[0], gone)
        ev = r.info("stats")["evicted_keys"]
        assert ev == gone, "evicted_keys %d, %d keys gone" % (ev, gone)


def lru_keeps_recent():
    with server("allkeys-lru") as s:
        r = redis.Redis(port=s.port)
        fill(r, "hot", 500)
        fill(r, "cold", 4000)
        time.sleep(2.1)
        p = r.pipeline(transaction=False)
        for i in range(500):
            p.get("hot%d" % i)
        p.execute()
        assert r.object("idletime", "hot1") == 0
        assert r.object("idletime", "cold1") >= 2
        fill(r, "new", 3000)
        settle(r)
        hot, cold = count(r, "hot*"), count(r, "cold*")
        assert cold < 4000, "no cold key evicted"
        # Sampled: once few cold keys are left, a sample of 5 often holds none
        # and a recent key goes instead (Redis's approximation does the same).
        assert hot >= 475 and cold < 4000, "hot keys evicted: %d of 500 left, cold %d of 4000" % (hot, cold)


def lfu_keeps_frequent():
    with server("allkeys-lfu") as s:
        r = redis.Redis(port=s.port)
        fill(r, "hot", 300)
        for _ in range(100):  # in batches: replies waiting to be sent count as used memory
            p = r.pipeline(transaction=False)
            for i in range(300):
                p.get("hot%d" % i)
            p.execute()
        assert r.info("stats")["evicted_keys"] == 0
        assert r.object("freq", "hot1") > 5, r.object("freq", "hot1")
        fill(r, "cold", 20000)
        settle(r)
        hot = count(r, "hot*")
        assert hot >= 280, "frequent keys evicted: %d of 300 left" % hot
        assert r.info("stats")["evicted_keys"] > 0


def random_policy(policy):
    with server(policy) as s:
        r = redis.Redis(port=s.port)
        refused = fill(r, "k", 20000, ttl=(lambda i: 3600000) if policy.startswith("volatile") else None)
        assert refused == 0, refused
        settle(r)
        assert r.info("memory")["used_memory"] <= LIMIT + 64 * 1024
        ev = r.info("stats")["evicted_keys"]
        assert ev > 0 and r.dbsize() == 20000 - ev, (ev, r.dbsize())


def object_errors():
    with server("allkeys-lru") as s:
        r = redis.Redis(port=s.port)
        r.set("a", 1)
        try:
            r.object("freq", "a")
            raise AssertionError("OBJECT FREQ answered under an LRU policy")
        except redis.exceptions.ResponseError as e:
            assert "An LFU maxmemory policy is not selected" in str(e), e
        r.config_set("maxmemory-policy", "volatile-lfu")
        try:
            r.object("idletime", "a")
            raise AssertionError("OBJECT IDLETIME answered under an LFU policy")
        except redis.exceptions.ResponseError as e:
            assert "An LFU maxmemory policy is selected, idle time not tracked" in str(e), e
        assert r.object("freq", "missing") is None


def evictions_not_replayed(rewrite):
    with server("allkeys-random", "--appendonly", "yes") as s:
        r = redis.Redis(port=s.port)
        fill(r, "k", 20000)
        assert r.info("stats")["evicted_keys"] > 0
        if rewrite:
            r.bgrewriteaof()
            deadline = time.monotonic() + 20
            while r.info("persistence")["aof_rewrite_in_progress"] and time.monotonic() < deadline:
                time.sleep(0.05)
            fill(r, "after", 3000)
        settle(r)
        before = set(r.keys("*"))
        s.restart("--appendonly", "yes")
        r = redis.Redis(port=s.port)
        after = set(r.keys("*"))
        assert before == after, "%d keys before, %d after the restart" % (len(before), len(after))


def main():
    rep = spserver.Reporter()
    rep.case("noeviction refuses writes past maxmemory with Redis's OOM error, keeps every key, still reads and "
             "deletes", noeviction_refuses)
    for pol in ("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"):
        rep.case("%s never evicts a key without a TTL and refuses writes once only such keys are left" % pol,
                 volatile_keeps_persistent, pol)
    rep.case("volatile-ttl evicts the nearest expiries first, and evicted_keys counts them",
             volatile_ttl_nearest_first)
    rep.case("allkeys-lru keeps keys read recently over keys idle for 2 s; OBJECT IDLETIME tells them apart",
             lru_keeps_recent)
    rep.case("allkeys-lfu keeps keys read often over new keys; OBJECT FREQ grows with reads", lfu_keeps_frequent)
    for pol in ("allkeys-random", "volatile-random"):
        rep.case("%s keeps memory under maxmemory and evicted_keys counts the keys gone" % pol, random_policy, pol)
    rep.case("OBJECT FREQ refused under LRU, OBJECT IDLETIME under LFU, with Redis's errors", object_errors)
    rep.case("evicted keys do not come back at a restart (the log holds their DEL)", evictions_not_replayed, False)
    rep.case("evicted keys do not come back at a restart after a log rewrite", evictions_not_replayed, True)
    rep.finish()


if __name__ == "__main__":
    main()
