#!/usr/bin/python3
"""shrink_after_delete.py -- collections give memory back after deletions.

A compact hash (its listpack kept in the key's entry) and a compact sorted set
(its listpack buffer) shrink when deletions leave them holding much less than
their allocation (HDEL; ZREM, ZPOPMIN, ZREMRANGEBYRANK); a list whose elements
are deleted across its length (LREM) or trimmed (LTRIM) merges its nodes left
small, so it does not keep a trail of mostly empty nodes. Checked through
MEMORY USAGE and the contents after, with redis-py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402


def usage(r, k):
    return r.memory_usage(k, samples=0)


def t_hash(r):
    r.delete("h")
    r.hset("h", mapping={"field%d" % i: "v" * 50 for i in range(100)})
    assert r.object("encoding", "h") == b"listpack"
    before = usage(r, "h")
    r.hdel("h", *["field%d" % i for i in range(95)])
    after = usage(r, "h")
    assert after < before / 4, (before, after)
    assert r.hgetall("h") == {b"field%d" % i: b"v" * 50 for i in range(95, 100)}


def t_zset(r):
    members = {"member-%d-%s" % (i, "m" * 40): i for i in range(100)}
    for how in ("zrem", "zpopmin", "zremrangebyrank"):
        r.delete("z")
        r.zadd("z", members)
        assert r.object("encoding", "z") == b"listpack"
        before = usage(r, "z")
        if how == "zrem":
            r.zrem("z", *["member-%d-%s" % (i, "m" * 40) for i in range(95)])
        elif how == "zpopmin":
            for _ in range(95):
                r.zpopmin("z")
        else:
            r.zremrangebyrank("z", 0, 94)
        after = usage(r, "z")
        assert after < before / 4, (how, before, after)
        assert r.zrange("z", 0, -1, withscores=True) == [
            (b"member-%d-%s" % (i, b"m" * 40), float(i)) for i in range(95, 100)], how


def t_list(r):
    r.delete("l")
    for start in range(0, 20000, 1000):
        r.rpush("l", *["element-%011d" % i if i % 10 == 0 else "drop" for i in range(start, start + 1000)])
    before = usage(r, "l")
    assert r.lrem("l", 0, "drop") == 18000
    after = usage(r, "l")
    # 2,000 elements of 20 bytes: ~42 KB of entries; before, the list kept its 17 buffers of 8 KB.
    assert after < before / 2, (before, after)
    assert r.lrange("l", 0, -1) == [b"element-%011d" % i for i in range(0, 20000, 10)]
    r.ltrim("l", 10, 20)
    assert r.lrange("l", 0, -1) == [b"element-%011d" % i for i in range(100, 210, 10)]
    assert usage(r, "l") < 8192, usage(r, "l")


def main():
    rep = spserver.Reporter()
    with spserver.Server() as srv:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
        rep.case("a compact hash gives its room back after HDEL of most fields", t_hash, r)
        rep.case("a compact sorted set gives its buffer back after ZREM, ZPOPMIN and ZREMRANGEBYRANK of most members",
                 t_zset, r)
        rep.case("a list whose elements LREM removes across its length merges its nodes; LTRIM too", t_list, r)
    rep.finish()


if __name__ == "__main__":
    main()
