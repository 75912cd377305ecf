#!/usr/bin/python3
"""list_compress.py -- list-compress-depth: inner list nodes stored LZ4-compressed.

With depth 1 a list of 100,000 repetitive elements takes under half the memory
it takes with depth 0 (MEMORY USAGE), every read and change in the middle
(LINDEX, LRANGE, LINSERT, LSET, LREM) answers as with depth 0, COPY copies it,
and after a log rewrite (BGREWRITEAOF) and a restart the list is the same
element for element. The replies themselves are compared with redis-server's
by diff_lists.py's second stream (depth 1).
"""
import os
import sys
import tempfile
import time
import shutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

N = 100000


def fill(r, key):
    p = r.pipeline(transaction=False)
    for s in range(0, N, 1000):
        p.rpush(key, *["element-%07d" % i for i in range(s, s + 1000)])
    p.execute()


def t_memory(r):
    r.config_set("list-compress-depth", 0)
    fill(r, "raw")
    r.config_set("list-compress-depth", 1)
    fill(r, "lz")
    raw, lz = r.memory_usage("raw", samples=0), r.memory_usage("lz", samples=0)
    assert lz < raw / 2, (raw, lz)
    # LRANGE of the whole list compresses the nodes it read back as it goes.
    assert len(r.lrange("lz", 0, -1)) == N
    assert r.memory_usage("lz", samples=0) < raw / 2, (raw, r.memory_usage("lz", samples=0))


def t_same_answers(r):
    r.config_set("list-compress-depth", 1)
    for k in ("a", "b"):
        r.delete(k)
    fill(r, "a")
    r.config_set("list-compress-depth", 0)
    fill(r, "b")
    r.config_set("list-compress-depth", 1)
    for k in ("a", "b"):
        assert r.lindex(k, 50000) == b"element-0050000"
        assert r.lindex(k, -30001) == b"element-0069999"
        assert r.linsert(k, "BEFORE", "element-0060000", "inserted") == N + 1
        r.lset(k, 70000, "set")
        assert r.lrem(k, 0, "element-0012345") == 1
        assert r.lpos(k, "inserted") == 59999
    assert r.lrange("a", 0, -1) == r.lrange("b", 0, -1)
    assert r.lrange("a", 40000, 40100) == r.lrange("b", 40000, 40100)
    r.execute_command("COPY", "a", "c")
    assert r.lrange("c", 0, -1) == r.lrange("b", 0, -1)
    r.execute_command("COPY", "b", "d")
    r.ltrim("c", 100, -100)
    r.ltrim("d", 100, -100)
    assert r.llen("c") == N - 199 and r.lrange("c", 0, -1) == r.lrange("d", 0, -1)


def t_rewrite_restart():
    d = tempfile.mkdtemp(prefix="list-compress-")
    try:
        with spserver.Server("--appendonly", "yes", "--list-compress-depth", "1", workdir=d) as srv:
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
            fill(r, "l")
            r.linsert("l", "AFTER", "element-0000500", "x")
            r.bgrewriteaof()
            deadline = time.monotonic() + 20
            while r.info("persistence")["aof_rewrite_in_progress"]:
                assert time.monotonic() < deadline, "the rewrite did not end"
                time.sleep(0.05)
            r.rpush("l", "after the rewrite")
            want = r.lrange("l", 0, -1)
        with spserver.Server("--appendonly", "yes", "--list-compress-depth", "1", workdir=d) as srv:
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
            assert r.lrange("l", 0, -1) == want
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    rep = spserver.Reporter()
    with spserver.Server() as srv:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
        rep.case("a list of 100,000 repetitive elements takes under half the memory with depth 1, "
                 "also after an LRANGE of all of it", t_memory, r)
        rep.case("LINDEX, LINSERT, LSET, LREM, LPOS, LRANGE, COPY and LTRIM answer the same with depth 1 as with 0",
                 t_same_answers, r)
    rep.case("with depth 1, a list is the same after a log rewrite and a restart", t_rewrite_restart)
    rep.finish()


if __name__ == "__main__":
    main()
