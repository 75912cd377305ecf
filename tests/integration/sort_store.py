"""sort_store.py -- SORT ... STORE through redis-py, and its effect in the log.

Starts its own scratchpad-server (free port, temporary directory, stopped by
PID) with the log on, runs SORT / SORT_RO the way an application does through
redis-py (BY, GET, LIMIT, ALPHA, STORE), then restarts the server, also after
a rewrite in each mode, and checks that every stored list comes back the same
(the log holds the stored list, not the SORT: its BY and GET keys change
afterwards in the test, so a replay of the SORT would give another list).
"""
import os
import sys
import time

import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402


def wait_rewrite(r):
    deadline = time.monotonic() + 20
    while r.info("persistence")["aof_rewrite_in_progress"] and time.monotonic() < deadline:
        time.sleep(0.05)


def redis_py_usage(r):
    r.flushall()
    r.rpush("tasks", 3, 1, 2)
    r.mset({"prio_1": 30, "prio_2": 10, "prio_3": 20, "name_1": "one", "name_2": "two", "name_3": "three"})
    assert r.sort("tasks") == [b"1", b"2", b"3"]
    assert r.sort("tasks", desc=True, start=0, num=2) == [b"3", b"2"]
    assert r.sort("tasks", by="prio_*", get=["#", "name_*"]) == [b"2", b"two", b"3", b"three", b"1", b"one"]
    assert r.sort_ro("tasks", by="prio_*", get="name_*") == [b"two", b"three", b"one"]
    assert r.sort("tasks", by="prio_*", get="name_*", store="sorted_names") == 3
    assert r.lrange("sorted_names", 0, -1) == [b"two", b"three", b"one"]
    r.sadd("tags", "b", "a", "c")
    assert r.sort("tags", alpha=True) == [b"a", b"b", b"c"]
    try:
        r.sort("tags")
        raise AssertionError("SORT of non-numbers did not fail")
    except redis.exceptions.ResponseError as e:
        assert "One or more scores can't be converted into double" in str(e), e


def stored_lists_survive(mode):
    with spserver.Server("--appendonly", "yes", "--aof-rewrite-mode", mode) as s:
        r = redis.Redis(port=s.port)
        r.rpush("l", *range(20))
        for i in range(20):
            r.set("w_%d" % i, (i * 7) % 20)
            r.hset("h_%d" % i, "f", "v%d" % i)
        r.sort("l", by="w_*", get=["#", "h_*->f"], store="d1")
        r.sort("l", by="w_*", start=2, num=5, desc=True, store="d2")
        r.set("d3", "was a string")
        r.expire("d3", 1000)
        r.sort("l", by="nosort", get="h_*->f", store="d3")
        r.set("d4", "x")
        r.sort("missing", store="d4")  # empty result: deletes d4
        for i in range(20):  # the sources change: a replayed SORT would differ
            r.set("w_%d" % i, -i)
            r.hset("h_%d" % i, "f", "changed")
        want = {k: r.lrange(k, 0, -1) for k in ("d1", "d2", "d3")}
        assert r.ttl("d3") == -1 and r.exists("d4") == 0
        s.restart()
        r = redis.Redis(port=s.port)
        got = {k: r.lrange(k, 0, -1) for k in ("d1", "d2", "d3")}
        assert got == want, (got, want)
        assert r.exists("d4") == 0
        r.bgrewriteaof()
        wait_rewrite(r)
        s.restart()
        r = redis.Redis(port=s.port)
        got = {k: r.lrange(k, 0, -1) for k in ("d1", "d2", "d3")}
        assert got == want, (got, want)
        rc, out = spserver.run_check_aof(os.path.join(s.dir, "data", "scratchpad.manifest"))
        assert rc == 0, out


def main():
    rep = spserver.Reporter()
    with spserver.Server("--appendonly", "no") as s:
        rep.case("redis-py's sort() and sort_ro() with BY, GET, LIMIT, DESC, ALPHA and STORE", redis_py_usage,
                 redis.Redis(port=s.port))
    for mode in ("incremental", "fork"):
        rep.case("lists stored by SORT come back the same after a restart and after a rewrite (%s), though their BY "
                 "and GET keys changed; an empty result deleted the destination" % mode, stored_lists_survive, mode)
    rep.finish()


if __name__ == "__main__":
    main()
