#!/usr/bin/python3
"""lists_clients.py -- lists through redis-py the way applications use them.

A task queue fed through pipelines and drained with LPOP count and BRPOP; a
capped activity log (LPUSH + LTRIM in one MULTI/EXEC) read page by page with
LRANGE; WATCH on a list failing a transaction when another client pushes;
LPOS, LINSERT, LSET, LREM and LMOVE with redis-py's argument helpers; binary
and 1 MB elements; the exceptions redis-py raises for wrong types and bad
arguments, in Redis 7's words. Every socket has a timeout.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError, WatchError  # noqa: E402

PORT = None


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=20)


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what or "value", got, want))


def case_queue():
    r = client()
    p = r.pipeline(transaction=False)
    for i in range(1000):
        p.rpush("q:tasks", "task-%d" % i)
    res = p.execute()
    eq(res[-1], 1000, "the length after the last push")
    got = []
    while True:
        batch = r.lpop("q:tasks", 64)
        if batch is None:
            break
        got += batch
    eq(got, [b"task-%d" % i for i in range(1000)], "drained in order")
    r.rpush("q:tasks", "last")
    eq(r.brpop("q:tasks", timeout=1), (b"q:tasks", b"last"), "BRPOP")
    eq(r.brpop("q:tasks", timeout=0.1), None, "BRPOP after the timeout")


def case_capped_log():
    r = client()
    for i in range(250):
        p = r.pipeline(transaction=True)
        p.lpush("log:agent", "event %d" % i)
        p.ltrim("log:agent", 0, 99)
        p.execute()
    eq(r.llen("log:agent"), 100, "capped")
    pages = [r.lrange("log:agent", s, s + 9) for s in range(0, 100, 10)]
    flat = [x for page in pages for x in page]
    eq(flat, [b"event %d" % i for i in range(249, 149, -1)], "paged newest first")


def case_watch():
    r, other = client(), client()
    r.rpush("w:list", "a")
    with r.pipeline() as p:
        p.watch("w:list")
        n = p.llen("w:list")
        other.rpush("w:list", "b")
        p.multi()
        p.rpush("w:list", "n=%d" % n)
        try:
            p.execute()
            raise AssertionError("EXEC succeeded after a watched list changed")
        except WatchError:
            pass
    eq(r.lrange("w:list", 0, -1), [b"a", b"b"], "the list after the failed transaction")


def case_helpers():
    r = client()
    r.rpush("h:l", "a", "b", "c", "b", "a")
    eq(r.lpos("h:l", "b"), 1, "LPOS")
    eq(r.lpos("h:l", "a", rank=-1), 4, "LPOS RANK -1")
    eq(r.lpos("h:l", "b", count=0), [1, 3], "LPOS COUNT 0")
    eq(r.linsert("h:l", "AFTER", "c", "x"), 6, "LINSERT")
    eq(r.lset("h:l", -1, "z"), True, "LSET")
    eq(r.lrem("h:l", 0, "b"), 2, "LREM")
    eq(r.lmove("h:l", "h:dst", "LEFT", "RIGHT"), b"a", "LMOVE")
    eq(r.lmpop(2, "h:none", "h:l", direction="RIGHT", count=2), [b"h:l", [b"z", b"x"]], "LMPOP")
    eq(r.lrange("h:l", 0, -1), [b"c"], "what is left")
    eq(r.rpoplpush("h:l", "h:dst"), b"c", "RPOPLPUSH")
    eq(r.exists("h:l"), 0, "the emptied list is gone")
    eq(r.type("h:dst"), b"list", "TYPE")
    eq(r.object("encoding", "h:dst"), b"quicklist", "OBJECT ENCODING")


def case_binary():
    r = client()
    big = os.urandom(1 << 20)
    r.rpush("b:l", b"\x00\r\n\xff", big, b"")
    eq(r.lrange("b:l", 0, -1), [b"\x00\r\n\xff", big, b""], "binary and 1 MB elements")
    eq(r.lindex("b:l", 1), big, "LINDEX of the big one")


def case_errors():
    r = client()
    r.set("e:str", "x")
    for fn, msg in ((lambda: r.lpush("e:str", "a"), "WRONGTYPE Operation against a key holding the wrong kind of value"),
                    (lambda: r.lset("e:none", 0, "a"), "no such key"),
                    (lambda: r.execute_command("LPOP", "e:none", "-1"), "value is out of range, must be positive"),
                    (lambda: r.execute_command("BLPOP", "e:none", "x"), "timeout is not a float or out of range")):
        try:
            fn()
            raise AssertionError("no error for %s" % msg)
        except ResponseError as e:
            eq(str(e), msg, "the error")
    r.rpush("e:l", "a")
    try:
        r.get("e:l")
        raise AssertionError("GET of a list succeeded")
    except ResponseError as e:
        eq(str(e), "WRONGTYPE Operation against a key holding the wrong kind of value", "GET of a list")


def main():
    global PORT
    rep = Reporter()
    with Server("--appendonly", "no") as srv:
        PORT = srv.port
        rep.case("a task queue fed by pipelines drains in order with LPOP count and BRPOP", case_queue)
        rep.case("a capped log (LPUSH + LTRIM in MULTI/EXEC) reads back page by page with LRANGE", case_capped_log)
        rep.case("WATCH on a list fails the transaction when another client pushes", case_watch)
        rep.case("LPOS, LINSERT, LSET, LREM, LMOVE, LMPOP and RPOPLPUSH through redis-py's helpers", case_helpers)
        rep.case("binary and 1 MB elements come back byte for byte", case_binary)
        rep.case("wrong types and bad arguments raise redis-py errors in Redis 7's words", case_errors)
    rep.finish()


if __name__ == "__main__":
    main()
