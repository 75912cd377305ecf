#!/usr/bin/python3
"""sets_clients.py -- the set commands through redis-py, as applications use them.

De-duplication (SADD's count of new members), membership checks, tags and
their intersections, a work pool drained with SPOP, sampling with SRANDMEMBER,
SSCAN through scan_iter over a large hash-table set, pipelines and
transactions, and the errors an application sees (WRONGTYPE, SPOP's count).
Also the regressions: SRANDMEMBER with a count returns distinct members even
when -1 (whose 64-bit pattern is all ones) is one of them; SRANDMEMBER with a
huge negative count stops when the client passes its output limit.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402


def t_dedup(r):
    assert r.sadd("seen", "a", "b", "a") == 2
    assert r.sadd("seen", "b", "c") == 1
    assert r.smembers("seen") == {b"a", b"b", b"c"}
    assert r.sismember("seen", "a") and not r.sismember("seen", "z")
    assert r.smismember("seen", ["a", "z", "c"]) == [1, 0, 1]
    assert r.scard("seen") == 3
    assert r.srem("seen", "a", "b", "c") == 3
    assert r.exists("seen") == 0, "an empty set deletes its key"


def t_tags(r):
    r.sadd("tag:red", 1, 2, 3, 4)
    r.sadd("tag:big", 3, 4, 5)
    assert r.sinter("tag:red", "tag:big") == {b"3", b"4"}
    assert r.sunion("tag:red", "tag:big") == {b"1", b"2", b"3", b"4", b"5"}
    assert r.sdiff("tag:red", "tag:big") == {b"1", b"2"}
    assert r.sintercard(2, ["tag:red", "tag:big"]) == 2
    assert r.sintercard(2, ["tag:red", "tag:big"], limit=1) == 1
    assert r.sinterstore("both", "tag:red", "tag:big") == 2
    assert r.object("encoding", "both") == b"intset"
    assert r.sdiffstore("both", "tag:big", "tag:big") == 0 and not r.exists("both")
    assert r.smove("tag:red", "tag:big", 1) and r.sismember("tag:big", 1)


def t_pool(r):
    r.sadd("pool", *["job:%d" % i for i in range(100)])
    got = set()
    while True:
        batch = r.spop("pool", 7)
        if not batch:
            break
        got.update(batch)
    assert len(got) == 100 and not r.exists("pool")
    assert r.spop("pool") is None


def t_sample(r):
    r.sadd("s", *range(-1, 30))
    for _ in range(300):
        m = r.srandmember("s", 10)
        assert len(m) == 10 and len(set(m)) == 10, "repeated members: %r" % m
    assert len(r.srandmember("s", -50)) == 50
    assert r.object("encoding", "s") == b"intset"


def t_scan(r):
    members = {("user:%d" % i).encode() for i in range(3000)}
    r.sadd("big", *members)
    assert r.object("encoding", "big") == b"hashtable"
    assert set(r.sscan_iter("big", count=100)) == members
    assert set(r.sscan_iter("big", match="user:1*")) == {m for m in members if m.startswith(b"user:1")}


def t_pipeline(r):
    p = r.pipeline()
    p.sadd("pp", "x", "y")
    p.scard("pp")
    p.spop("pp", 5)
    p.exists("pp")
    res = p.execute()
    assert res[0] == 2 and res[1] == 2 and set(res[2]) == {b"x", b"y"} and res[3] == 0


def t_errors(r):
    r.set("str", "v")
    for fn in (lambda: r.sadd("str", "a"), lambda: r.smembers("str"), lambda: r.sinter("str", "x")):
        try:
            fn()
        except redis.ResponseError as e:
            assert str(e).startswith("WRONGTYPE"), str(e)
        else:
            raise AssertionError("no WRONGTYPE")
    try:
        r.spop("pool", -1)
    except redis.ResponseError as e:
        assert "must be positive" in str(e)
    else:
        raise AssertionError("no error")


def t_huge_negative_count(srv):
    """SRANDMEMBER with a count of -(2^63-1) fills the client's output up to its
    limit: the client is closed, and the server goes on serving others."""
    r = redis.Redis(port=srv.port, socket_timeout=20)
    r.config_set("client-output-buffer-limit", "normal 1mb 1mb 0")
    r.sadd("h", "a", "b")
    victim = redis.Redis(port=srv.port, socket_timeout=20)
    try:
        victim.srandmember("h", -9223372036854775807)
    except (redis.ConnectionError, redis.TimeoutError):
        pass
    else:
        raise AssertionError("the client was not closed")
    assert r.ping() and r.scard("h") == 2
    r.config_set("client-output-buffer-limit", "normal 1gb 256mb 60")


def main():
    rep = Reporter()
    with Server("--appendonly", "no") as srv:
        r = redis.Redis(port=srv.port)
        rep.case("SADD counts new members and SREM of the last member deletes the key", t_dedup, r)
        rep.case("tags: SINTER, SUNION, SDIFF, SINTERCARD (LIMIT), the STORE forms and SMOVE", t_tags, r)
        rep.case("a pool drained with SPOP count gives every member once, then the key is gone", t_pool, r)
        rep.case("SRANDMEMBER with a count gives distinct members, -1 among them", t_sample, r)
        rep.case("sscan_iter returns every member of a 3,000-member set, and MATCH filters", t_scan, r)
        rep.case("a transaction pipeline of set commands answers in order", t_pipeline, r)
        rep.case("SRANDMEMBER with a count of -(2^63-1) ends at the client's output limit, the server serving on",
                 t_huge_negative_count, srv)
        rep.case("WRONGTYPE on a string and SPOP's negative count error reach the client", t_errors, r)
    rep.finish()


if __name__ == "__main__":
    main()
