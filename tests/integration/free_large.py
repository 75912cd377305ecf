#!/usr/bin/python3
"""free_large.py -- a huge collection deleted goes at once; its memory comes back in steps.

A value of more than 64 allocations (a set, a sorted set, a hash, a list) is
detached from its key by the command and freed by the loop a bounded slice per
iteration (server/keyspace/lazyfree.h). Checked with redis-py, on every road a
value leaves the keyspace by: DEL, UNLINK, SET over it, an expiry, RENAME over
it, FLUSHALL ASYNC, FLUSHDB. For each: the key is gone for the very next
command (pipelined after it), which still sees the value pending in INFO
memory's lazyfree_pending_objects (the free has not run yet); clients are
answered while the freeing runs; then lazyfree_pending_objects is 0,
lazyfreed_objects has counted it and used_memory is back near what it was
before the key was built. Correctness, not timing: bench/free-pause.py measures
the pause.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

N = 60000  # elements per collection: ~20 ms of freeing each


def fill(r, t, key, n=N):
    p = r.pipeline(transaction=False)
    for start in range(0, n, 1000):
        m = range(start, min(n, start + 1000))
        if t == "set":
            p.sadd(key, *["member:%d" % i for i in m])
        elif t == "zset":
            p.zadd(key, {"member:%d" % i: i for i in m})
        elif t == "hash":
            p.hset(key, mapping={"field:%d" % i: "v%d" % i for i in m})
        else:
            p.rpush(key, *["element:%d:%s" % (i, "x" * 40) for i in m])
    p.execute()


def mem(r):
    return r.info("memory")


def wait_freed(r, base, freed_before, want):
    """Wait until nothing is pending, want more values were freed by the queue,
    and used_memory is within 2 MB of base."""
    deadline = time.monotonic() + 10
    while True:
        m = mem(r)
        if (m["lazyfree_pending_objects"] == 0 and m["lazyfreed_objects"] >= freed_before + want and
                m["used_memory"] <= base + 2 * 1024 * 1024):
            return
        if time.monotonic() > deadline:
            raise AssertionError("after 10 s: pending %s, freed %s (want %d more than %d), used_memory %s "
                                 "(base %d)" % (m["lazyfree_pending_objects"], m["lazyfreed_objects"], want,
                                                freed_before, m["used_memory"], base))
        time.sleep(0.01)


def road(r, build, act, check, want=1):
    """Build big keys (build(r)), then in one pipeline act and read INFO
    memory: the key is gone for the next command and the value pending; then
    the memory comes back."""
    r.flushall()
    base = mem(r)["used_memory"]
    freed = mem(r)["lazyfreed_objects"]
    build(r)
    assert mem(r)["used_memory"] > base + 3 * 1024 * 1024, "the collections hold megabytes"
    p = r.pipeline(transaction=False)
    act(p)
    p.info("memory")
    out = p.execute()
    info = out[-1]
    if info["lazyfree_pending_objects"] < want:
        raise AssertionError("right after the command, lazyfree_pending_objects is %s, want %d"
                             % (info["lazyfree_pending_objects"], want))
    check(r, out[:-1])
    wait_freed(r, base, freed, want)


def t_del_each_type(r):
    types = ["set", "zset", "hash", "list"]

    def build(r):
        for t in types:
            fill(r, t, "big:" + t)

    def act(p):
        p.delete(*["big:" + t for t in types])
        p.exists(*["big:" + t for t in types])

    def check(r, out):
        assert out == [4, 0], out

    road(r, build, act, check, want=4)


def t_answers_meanwhile(r):
    """PINGs sent right after the DEL are answered while the values are still
    pending: the freeing does not hold clients up until it is done."""
    r.flushall()
    base = mem(r)["used_memory"]
    freed = mem(r)["lazyfreed_objects"]
    for i in range(6):
        fill(r, "set", "s%d" % i)
    other = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"], socket_timeout=10)
    assert r.delete(*["s%d" % i for i in range(6)]) == 6
    answered_pending = 0
    for _ in range(2000):
        assert other.ping() is True
        if other.info("memory")["lazyfree_pending_objects"] > 0:
            answered_pending += 1
        else:
            break
    assert answered_pending > 0, "no PING was answered while values were pending"
    assert r.set("after", "1") is True and r.get("after") == b"1"
    r.delete("after")
    wait_freed(r, base, freed, 6)


def expect(want):
    def check(r, out):
        assert out == want, out
    return check


def t_unlink(r):
    road(r, lambda r: fill(r, "hash", "h"), lambda p: (p.unlink("h"), p.hlen("h")), expect([1, 0]))


def t_set_over(r):
    def check(r, out):
        assert out == [True, b"string"], out
        assert r.get("z") == b"now a string"

    road(r, lambda r: fill(r, "zset", "z"), lambda p: (p.set("z", "now a string"), p.type("z")), check)


def t_expiry(r):
    r.flushall()
    base = mem(r)["used_memory"]
    freed = mem(r)["lazyfreed_objects"]
    fill(r, "set", "e")
    r.pexpire("e", 50)
    time.sleep(0.1)
    # The expiry (lazy on this read, or by the cron) detaches the value.
    assert r.exists("e") == 0
    wait_freed(r, base, freed, 1)


def t_rename_over(r):
    def build(r):
        fill(r, "list", "dst")
        r.rpush("src", "a", "b")

    def check(r, out):
        assert out[0] is True and out[1] == [b"a", b"b"], out

    road(r, build, lambda p: (p.rename("src", "dst"), p.lrange("dst", 0, -1)), check)


def t_flushall_async(r):
    def build(r):
        fill(r, "set", "a")
        fill(r, "hash", "b")

    road(r, build, lambda p: (p.flushall(asynchronous=True), p.dbsize()), expect([True, 0]), want=2)


def t_flushdb(r):
    road(r, lambda r: fill(r, "zset", "z"), lambda p: (p.flushdb(), p.dbsize()), expect([True, 0]))


def t_small_at_once(r):
    """A value of 64 allocations or fewer is freed by the command itself."""
    r.flushall()
    freed = mem(r)["lazyfreed_objects"]
    r.sadd("small", *["m%d" % i for i in range(60)])
    p = r.pipeline(transaction=False)
    p.delete("small")
    p.info("memory")
    out = p.execute()
    assert out[0] == 1 and out[1]["lazyfree_pending_objects"] == 0, out
    assert mem(r)["lazyfreed_objects"] == freed


def t_shutdown_pending(srv):
    """A server shut down with values pending frees them and exits cleanly."""
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
    for i in range(4):
        fill(r, "set", "s%d" % i)
    p = r.pipeline(transaction=False)
    p.delete(*["s%d" % i for i in range(4)])
    p.execute()
    try:
        r.shutdown(nosave=True)
    except redis.exceptions.ConnectionError:
        pass
    deadline = time.monotonic() + 10
    while srv.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert srv.proc.poll() == 0, "exit status %r" % srv.proc.poll()


def t_replay_frees_at_once():
    """The log's replay frees deleted values at once (no client waits then)."""
    d = spserver.tempfile.mkdtemp(prefix="free-large-")
    try:
        with spserver.Server("--appendonly", "yes", workdir=d) as srv:
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
            for i in range(3):
                fill(r, "set", "s%d" % i)
            r.delete("s0", "s1")
        with spserver.Server("--appendonly", "yes", workdir=d) as srv:
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
            assert r.scard("s2") == N and r.exists("s0", "s1") == 0
            m = mem(r)
            assert m["lazyfree_pending_objects"] == 0 and m["lazyfreed_objects"] == 0, m
    finally:
        spserver.shutil.rmtree(d, ignore_errors=True)


def main():
    r_ = spserver.Reporter()
    with spserver.Server() as srv:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
        r_.case("DEL of a big set, sorted set, hash and list: gone for the next command, pending in INFO, "
                "then freed and used_memory back", t_del_each_type, r)
        r_.case("clients are answered while deleted values are still being freed", t_answers_meanwhile, r)
        r_.case("UNLINK of a big hash frees it in steps", t_unlink, r)
        r_.case("SET over a big sorted set replaces it at once and frees the old value in steps", t_set_over, r)
        r_.case("a big set that expires is freed in steps", t_expiry, r)
        r_.case("RENAME over a big list frees the list it replaced in steps", t_rename_over, r)
        r_.case("FLUSHALL ASYNC frees big values in steps", t_flushall_async, r)
        r_.case("FLUSHDB frees a big sorted set in steps", t_flushdb, r)
        r_.case("a small value is freed by the command itself, not queued", t_small_at_once, r)
    r_.case("the log's replay frees the values it deletes at once, not through the queue", t_replay_frees_at_once)
    with spserver.Server() as srv:
        r_.case("SHUTDOWN with values pending frees them and exits with status 0", t_shutdown_pending, srv)
    r_.finish()


if __name__ == "__main__":
    main()
