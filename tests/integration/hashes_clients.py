#!/usr/bin/python3
"""hashes_clients.py -- hashes driven by redis-py the way applications use them.

One server of its own; through redis-py (Debian's python3-redis): agent
state kept as a hash (hset mapping, hgetall as a dict, hincrby counters,
hincrbyfloat scores), pipelines with and without MULTI, WATCH on a hash
changed by another client, hscan_iter over a hash table of 5,000 fields,
hrandfield, the generic commands on a hash (TYPE, SCAN TYPE hash, OBJECT
ENCODING across the thresholds, COPY being deep, RENAME, MOVE, MEMORY USAGE,
EXPIRE), and the exceptions redis-py raises, in Redis 7's words.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError, WatchError  # noqa: E402

R = None


def case_agent_state():
    R.hset("agent:1", mapping={"state": "idle", "task": "0", "score": "1.5"})
    assert R.hgetall("agent:1") == {b"state": b"idle", b"task": b"0", b"score": b"1.5"}
    assert R.hincrby("agent:1", "task", 5) == 5
    assert R.hincrbyfloat("agent:1", "score", 0.25) == 1.75
    assert R.hget("agent:1", "state") == b"idle"
    assert R.hmget("agent:1", ["state", "nosuch"]) == [b"idle", None]
    assert R.hexists("agent:1", "task") and not R.hexists("agent:1", "x")
    assert R.hlen("agent:1") == 3 and R.hstrlen("agent:1", "state") == 4
    assert sorted(R.hkeys("agent:1")) == [b"score", b"state", b"task"]
    assert R.hsetnx("agent:1", "state", "busy") == 0 and R.hsetnx("agent:1", "owner", "me") == 1
    assert R.hdel("agent:1", "owner", "state", "task", "score") == 4
    assert R.exists("agent:1") == 0, "a hash whose last field goes is deleted"


def case_pipelines():
    p = R.pipeline(transaction=False)
    for i in range(200):
        p.hset("pl:%d" % (i % 10), "f%d" % i, i)
    p.execute()
    assert sum(R.hlen("pl:%d" % i) for i in range(10)) == 200
    with R.pipeline() as t:
        t.hincrby("pl:0", "n", 1).hincrby("pl:0", "n", 2).hget("pl:0", "n")
        assert t.execute() == [1, 3, b"3"]


def case_watch():
    R.hset("w", "v", 1)
    other = redis.Redis(port=R.connection_pool.connection_kwargs["port"])
    with R.pipeline() as t:
        t.watch("w")
        other.hset("w", "v", 2)
        t.multi()
        t.hset("w", "v", 3)
        try:
            t.execute()
            raise AssertionError("EXEC ran although the watched hash changed")
        except WatchError:
            pass
    assert R.hget("w", "v") == b"2"


def case_scan_large():
    p = R.pipeline(transaction=False)
    for i in range(5000):
        p.hset("big", "field:%d" % i, "v%d" % i)
    p.execute()
    assert R.object("encoding", "big") == b"hashtable"
    seen = dict(R.hscan_iter("big", count=100))
    assert len(seen) == 5000 and seen[b"field:42"] == b"v42"
    assert len(dict(R.hscan_iter("big", match="field:1?"))) == 10
    r = R.hrandfield("big", 10, withvalues=True)
    assert len(r) == 20 and len(set(r[0::2])) == 10
    assert len(R.hrandfield("big", -30)) == 30


def case_generic():
    R.hset("g", mapping={"a": "1"})
    assert R.type("g") == b"hash"
    assert R.object("encoding", "g") == b"listpack"
    R.hset("g", "long", "x" * 65)
    assert R.object("encoding", "g") == b"hashtable"
    R.hset("g2", mapping={"f%d" % i: i for i in range(128)})
    assert R.object("encoding", "g2") == b"listpack"
    R.hset("g2", "one-more", 1)
    assert R.object("encoding", "g2") == b"hashtable"
    assert R.copy("g", "gcopy")
    R.hset("gcopy", "a", "changed")
    assert R.hget("g", "a") == b"1", "COPY is deep"
    R.hset("small", "a", "1")
    assert R.copy("small", "smallcopy")
    R.hset("smallcopy", "a", "2")
    assert R.hget("small", "a") == b"1"
    assert b"g" in set(R.scan_iter(_type="hash")) and b"g" not in set(R.scan_iter(_type="string"))
    R.rename("g", "g3")
    assert R.hget("g3", "long") == b"x" * 65
    assert R.move("g3", 1) and redis.Redis(port=R.connection_pool.connection_kwargs["port"], db=1).hlen("g3") == 2
    assert R.memory_usage("g2") > 128 * 2
    R.expire("g2", 100)
    assert 0 < R.ttl("g2") <= 100


def case_errors():
    R.set("str", "x")
    for call in (lambda: R.hget("str", "f"), lambda: R.hset("str", "f", "v")):
        try:
            call()
            raise AssertionError("no WRONGTYPE")
        except ResponseError as e:
            assert str(e).startswith("WRONGTYPE"), str(e)
    R.hset("e", "s", "abc")
    for call, msg in ((lambda: R.hincrby("e", "s", 1), "hash value is not an integer"),
                      (lambda: R.hincrbyfloat("e", "s", 1), "hash value is not a float"),
                      (lambda: R.hincrbyfloat("e", "n", float("inf")), "value is NaN or Infinity")):
        try:
            call()
            raise AssertionError("no error")
        except ResponseError as e:
            assert str(e) == msg, str(e)
    R.hset("e", "n", 9223372036854775807)
    try:
        R.hincrby("e", "n", 1)
        raise AssertionError("no overflow error")
    except ResponseError as e:
        assert str(e) == "increment or decrement would overflow"


if __name__ == "__main__":
    rep = Reporter()
    with Server("--appendonly", "no") as srv:
        R = redis.Redis(port=srv.port, socket_timeout=30)
        rep.case("agent state in a hash: hset mapping, hgetall as a dict, counters, hsetnx, hdel to empty", case_agent_state)
        rep.case("pipelines with and without MULTI", case_pipelines)
        rep.case("WATCH on a hash another client changes makes EXEC fail", case_watch)
        rep.case("hscan_iter walks a hash table of 5,000 fields whole, MATCH filters, hrandfield counts", case_scan_large)
        rep.case("TYPE, OBJECT ENCODING across the thresholds, deep COPY, SCAN TYPE, RENAME, MOVE, MEMORY USAGE, TTL",
                 case_generic)
        rep.case("WRONGTYPE and the hash errors in Redis's words", case_errors)
    rep.finish()
