#!/usr/bin/python3
"""streams_clients.py -- streams with consumer groups through redis-py, and the
blocking reads with several clients at once.

One server (the log on) and redis-py clients, waiters in threads: xadd / xread
/ xreadgroup / xack / xpending / xclaim / xautoclaim / xinfo as redis-py parses
them; a consumer killed mid-batch whose messages another claims with
XAUTOCLAIM after a server restart in between (the pending entries, delivery
counts and the group's last id survive it); XREAD BLOCK with `$` resolved when
the client blocks; several XREADGROUP BLOCK waiters served one new entry each,
first come first served; a wake from inside MULTI/EXEC (a wait on two streams
written in one EXEC served by the first, as Redis); timeouts answering nil
(RESP2 *-1, RESP3 _); BLOCK 0 woken; CLIENT UNBLOCK; a blocked XREADGROUP
getting Redis's errors when its stream is deleted (DEL, FLUSHALL, SWAPDB) or
its group destroyed, while XREAD keeps waiting; a waiter that disconnects leaves no trace. Every socket
has a timeout, so a hang is a failure, not a stall.
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

PORT = None
TIMEOUT = 20


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, **kw)


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what or "value", got, want))


def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def wait_blocked(r, n):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if blocked(r) == n:
            return
        time.sleep(0.005)
    raise AssertionError("blocked_clients never reached %d (is %d)" % (n, blocked(r)))


class Waiter(threading.Thread):
    """Runs fn(its own client) in a thread; .result or .error afterwards."""

    def __init__(self, fn):
        super().__init__(daemon=True)
        self.fn = fn
        self.result = None
        self.error = None
        self.c = client()
        self.c.ping()
        self.id = self.c.client_id()

    def run(self):
        try:
            self.result = self.fn(self.c)
        except Exception as e:  # noqa: BLE001 -- reported by the case
            self.error = e

    def done(self):
        self.join(TIMEOUT)
        if self.is_alive():
            raise AssertionError("a waiter never returned")
        self.c.close()
        return self.result


def case_redis_py_api(r):
    r.delete("jobs")
    a = r.xadd("jobs", {"task": "17", "who": "ann"}, id="1-1")
    b = r.xadd("jobs", {"task": "18", "who": "bob"})
    eq(a, b"1-1", "xadd's id")
    eq(r.xlen("jobs"), 2, "xlen")
    eq(r.xrange("jobs", "-", "+", count=1), [(b"1-1", {b"task": b"17", b"who": b"ann"})], "xrange")
    eq(r.xrevrange("jobs", "+", "-")[0][0], b, "xrevrange's first id")
    r.xgroup_create("jobs", "workers", id="0")
    got = r.xreadgroup("workers", "w1", {"jobs": ">"}, count=1)
    eq(got, [[b"jobs", [(b"1-1", {b"task": b"17", b"who": b"ann"})]]], "xreadgroup")
    p = r.xpending("jobs", "workers")
    eq((p["pending"], p["min"], p["max"], p["consumers"]), (1, b"1-1", b"1-1", [{"name": b"w1", "pending": 1}]),
       "xpending summary")
    rows = r.xpending_range("jobs", "workers", "-", "+", 10)
    eq((rows[0]["message_id"], rows[0]["consumer"], rows[0]["times_delivered"]), (b"1-1", b"w1", 1), "xpending rows")
    eq(r.xclaim("jobs", "workers", "w2", 0, ["1-1"], justid=True), [b"1-1"], "xclaim justid")
    eq(r.xack("jobs", "workers", "1-1"), 1, "xack")
    info = r.xinfo_stream("jobs")
    eq((info["length"], info["groups"], info["first-entry"][0]), (2, 1, b"1-1"), "xinfo stream")
    groups = r.xinfo_groups("jobs")
    eq((groups[0]["name"], groups[0]["pending"], groups[0]["last-delivered-id"]), (b"workers", 0, b"1-1"),
       "xinfo groups")
    names = sorted(c["name"] for c in r.xinfo_consumers("jobs", "workers"))
    eq(names, [b"w1", b"w2"], "xinfo consumers")
    eq(r.type("jobs"), b"stream", "type")
    eq(r.object("encoding", "jobs"), b"stream", "object encoding")
    r.copy("jobs", "jobs2")
    eq(r.xinfo_stream("jobs2", full=True)["groups"][0]["name"], b"workers", "a copy keeps its groups")
    eq([k for k in r.scan_iter(_type="stream")].count(b"jobs2"), 1, "SCAN TYPE stream")
    if not r.memory_usage("jobs") > 0:
        raise AssertionError("MEMORY USAGE of a stream")
    r.delete("jobs2")


def case_killed_consumer(srv, r):
    r.delete("q")
    r.xgroup_create("q", "g", id="$", mkstream=True)
    for i in range(10):
        r.xadd("q", {"n": str(i)})
    # Consumer A takes a batch of 6 and dies after handling 2 of them.
    batch = r.xreadgroup("g", "A", {"q": ">"}, count=6)[0][1]
    r.xack("q", "g", batch[0][0], batch[1][0])
    global PORT
    srv.restart()
    PORT = srv.port
    r2 = client()
    p = r2.xpending("q", "g")
    eq((p["pending"], p["consumers"]), (4, [{"name": b"A", "pending": 4}]), "A's pending entries after the restart")
    g = r2.xinfo_groups("q")[0]
    eq((g["last-delivered-id"], g["entries-read"], g["lag"]), (batch[-1][0], 6, 4), "the group after the restart")
    # Consumer B claims A's messages (idle for 0 ms: all of them) and handles them.
    cursor, claimed, deleted = r2.xautoclaim("q", "g", "B", 0, "0-0", count=10)
    eq([m[0] for m in claimed], [m[0] for m in batch[2:]], "B claims what A left")
    eq((cursor, deleted), (b"0-0", []), "the cursor and deleted ids")
    rows = r2.xpending_range("q", "g", "-", "+", 10)
    eq([x["times_delivered"] for x in rows], [2, 2, 2, 2], "delivery counts")
    r2.xack("q", "g", *[m[0] for m in claimed])
    rest = r2.xreadgroup("g", "B", {"q": ">"})[0][1]
    eq(len(rest), 4, "B reads the 4 never delivered")
    r2.xack("q", "g", *[m[0] for m in rest])
    eq(r2.xpending("q", "g")["pending"], 0, "every message handled once")
    r2.close()


def case_xread_dollar(r):
    r.delete("ev")
    r.xadd("ev", {"old": "1"}, id="5-0")
    w = Waiter(lambda c: c.xread({"ev": "$"}, block=0))
    w.start()
    wait_blocked(r, 1)
    r.xadd("ev", {"new": "1"}, id="6-0")
    eq(w.done(), [[b"ev", [(b"6-0", {b"new": b"1"})]]], "XREAD $ gets only what came after it blocked")


def case_fifo_groups(r):
    r.delete("wq")
    r.xgroup_create("wq", "g", id="$", mkstream=True)
    ws = []
    for i in range(3):
        w = Waiter(lambda c, i=i: c.xreadgroup("g", "w%d" % i, {"wq": ">"}, count=1, block=0))
        w.start()
        wait_blocked(r, i + 1)
        ws.append(w)
    for i in range(3):
        r.xadd("wq", {"n": str(i)}, id="%d-1" % (i + 1))
    got = [w.done()[0][1][0][0] for w in ws]
    eq(got, [b"1-1", b"2-1", b"3-1"], "waiters served first come, one entry each")
    eq(r.xpending("wq", "g")["pending"], 3, "each delivery pending")


def case_woken_logged(srv):
    """The waiters woken in case_fifo_groups logged what they took: after a
    restart the group's pending entries, consumers and last id are the same."""
    global PORT
    r = client()
    before = (r.xpending_range("wq", "g", "-", "+", 10), r.xinfo_groups("wq"))
    r.close()
    srv.restart()
    PORT = srv.port
    r = client()
    after = (r.xpending_range("wq", "g", "-", "+", 10), r.xinfo_groups("wq"))
    strip = [(x["message_id"], x["consumer"], x["times_delivered"]) for x in before[0]]
    eq([(x["message_id"], x["consumer"], x["times_delivered"]) for x in after[0]], strip, "pending entries")
    eq(strip, [(b"1-1", b"w0", 1), (b"2-1", b"w1", 1), (b"3-1", b"w2", 1)], "one each")
    eq(after[1], before[1], "the group")
    r.close()


def case_multi_wake(r):
    r.delete("mq")
    w = Waiter(lambda c: c.xread({"mq": "0"}, block=0))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.xadd("mq", {"a": "1"}, id="1-1")
    p.xadd("mq", {"b": "2"}, id="1-2")
    p.execute()
    eq(w.done(), [[b"mq", [(b"1-1", {b"a": b"1"}), (b"1-2", {b"b": b"2"})]]], "woken after EXEC with both entries")
    # Waiting on two streams, both written in one EXEC: served by the first, as Redis.
    r.delete("ma", "mb")
    w = Waiter(lambda c: c.xread({"ma": "0", "mb": "0"}, block=0))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.xadd("ma", {"x": "1"}, id="1-1")
    p.xadd("mb", {"y": "2"}, id="1-1")
    p.execute()
    eq(w.done(), [[b"ma", [(b"1-1", {b"x": b"1"})]]], "the stream that changed first")
    p = r.pipeline(transaction=True)
    p.xread({"none": "$"}, block=0)
    eq(p.execute(), [[]], "XREAD BLOCK 0 inside MULTI answers nil at once")


def case_timeouts(r):
    t0 = time.monotonic()
    eq(r.xread({"none": "0"}, block=100), [], "XREAD BLOCK 100 on nothing")
    dt = time.monotonic() - t0
    if not 0.08 <= dt < 2:
        raise AssertionError("timeout took %.3f s" % dt)
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    s.sendall(b"*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$2\r\n50\r\n$7\r\nSTREAMS\r\n$4\r\nnone\r\n$1\r\n$\r\n")
    eq(s.recv(100), b"*-1\r\n", "RESP2 timeout")
    s.sendall(b"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n")
    time.sleep(0.1)
    s.recv(4096)
    s.sendall(b"*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$2\r\n50\r\n$7\r\nSTREAMS\r\n$4\r\nnone\r\n$1\r\n$\r\n")
    eq(s.recv(100), b"_\r\n", "RESP3 timeout")
    s.close()


def case_unblock(r):
    w = Waiter(lambda c: c.xread({"none": "$"}, block=0))
    w.start()
    wait_blocked(r, 1)
    eq(r.client_unblock(w.id), True, "CLIENT UNBLOCK")
    eq(w.done(), [], "an unblocked XREAD answers nil")
    w = Waiter(lambda c: c.xread({"none": "$"}, block=0))
    w.start()
    wait_blocked(r, 1)
    r.client_unblock(w.id, error=True)
    w.done()
    if "UNBLOCKED" not in str(w.error):
        raise AssertionError("CLIENT UNBLOCK ERROR: %r" % w.error)


def case_deleted_errors(r):
    r.delete("dq")
    r.xgroup_create("dq", "g", id="$", mkstream=True)
    w = Waiter(lambda c: c.xreadgroup("g", "c", {"dq": ">"}, block=0))
    w.start()
    wait_blocked(r, 1)
    r.delete("dq")
    w.done()
    eq(str(w.error), "UNBLOCKED the stream key no longer exists", "XREADGROUP's stream deleted")
    r.xgroup_create("dq", "g", id="$", mkstream=True)
    w = Waiter(lambda c: c.xreadgroup("g", "c", {"dq": ">"}, block=0))
    w.start()
    wait_blocked(r, 1)
    r.xgroup_destroy("dq", "g")
    w.done()
    eq(str(w.error).endswith("the consumer group this client was blocked on no longer exists"), True,
       "its group destroyed: %s" % w.error)
    for how in (lambda: r.flushall(), lambda: r.swapdb(0, 1)):
        r.flushall()
        r.xgroup_create("dq", "g", id="$", mkstream=True)
        w = Waiter(lambda c: c.xreadgroup("g", "c", {"dq": ">"}, block=0))
        w.start()
        wait_blocked(r, 1)
        how()
        w.done()
        eq(str(w.error), "UNBLOCKED the stream key no longer exists", "FLUSHALL / SWAPDB under XREADGROUP")
    r.flushall()
    # XREAD keeps waiting through a delete and a string at the key.
    w = Waiter(lambda c: c.xread({"dq": "0"}, block=0))
    w.start()
    wait_blocked(r, 1)
    r.delete("dq")
    r.set("dq", "x")
    time.sleep(0.05)
    eq(blocked(r), 1, "XREAD still waits")
    r.delete("dq")
    r.xadd("dq", {"f": "v"}, id="1-1")
    eq(w.done(), [[b"dq", [(b"1-1", {b"f": b"v"})]]], "then served")


def case_watch(r):
    """Which stream writes abort a transaction WATCHing the key: in Redis 7.0.15
    only those that change its entries (XADD, XDEL, XTRIM) or create it."""
    r.flushall()
    for i in range(1, 6):
        r.xadd("w", {"f": "v"}, id="%d-1" % i)
    r.xgroup_create("w", "g", id="0")
    other = client()
    cases = [(("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "w", ">"), False),
             (("XREADGROUP", "GROUP", "g", "c", "STREAMS", "w", "0"), False),
             (("XACK", "w", "g", "1-1"), False), (("XCLAIM", "w", "g", "d", "0", "2-1"), False),
             (("XAUTOCLAIM", "w", "g", "e", "0", "0"), False),
             (("XGROUP", "CREATECONSUMER", "w", "g", "zz"), False), (("XGROUP", "DELCONSUMER", "w", "g", "zz"), False),
             (("XGROUP", "SETID", "w", "g", "0"), False), (("XGROUP", "CREATE", "w", "g2", "0"), False),
             (("XGROUP", "DESTROY", "w", "g2"), False), (("XSETID", "w", "9-9"), False),
             (("XDEL", "w", "5-1"), True), (("XTRIM", "w", "MAXLEN", "1"), True),
             (("XADD", "w", "*", "f", "v"), True), (("XGROUP", "CREATE", "nw", "g", "0", "MKSTREAM"), True)]
    for args, aborts in cases:
        key = "nw" if "nw" in args else "w"
        p = r.pipeline(transaction=True)
        p.watch(key)
        other.execute_command(*args)
        p.multi()
        p.ping()
        try:
            p.execute()
            aborted = False
        except redis.WatchError:
            aborted = True
        eq(aborted, aborts, "%s aborts a WATCH" % " ".join(args[:2]))
    other.close()


def case_disconnect(r):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    s.sendall(b"*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS\r\n$2\r\ndc\r\n$1\r\n$\r\n")
    wait_blocked(r, 1)
    s.close()
    wait_blocked(r, 0)
    r.xadd("dc", {"f": "v"})
    eq(r.ping(), True, "the server answers")


def main():
    global PORT
    rep = spserver.Reporter()
    with spserver.Server("--appendonly", "yes") as srv:
        PORT = srv.port
        r = client()
        rep.case("redis-py's stream API: xadd, xrange, xreadgroup, xpending, xclaim, xack, xinfo, TYPE, OBJECT "
                 "ENCODING, COPY, SCAN TYPE, MEMORY USAGE", case_redis_py_api, r)
        rep.case("a consumer killed mid-batch: after a restart its 4 pending messages are claimed by another with "
                 "XAUTOCLAIM, each handled once", case_killed_consumer, srv, r)
        r = client()
        rep.case("XREAD BLOCK with $ gets only the entries added after it blocked", case_xread_dollar, r)
        rep.case("three XREADGROUP BLOCK waiters get one new entry each, first come first served", case_fifo_groups, r)
        rep.case("after a restart the entries the woken waiters took are pending with their consumers (the log has "
                 "what they did)", case_woken_logged, srv)
        r = client()
        rep.case("XADDs inside MULTI/EXEC wake a blocked XREAD with both entries; one waiting on two streams written "
                 "in one EXEC gets the first", case_multi_wake, r)
        rep.case("XREAD BLOCK times out to nil (RESP2 *-1, RESP3 _)", case_timeouts, r)
        rep.case("CLIENT UNBLOCK ends a blocked XREAD with nil, or with the UNBLOCKED error", case_unblock, r)
        rep.case("a blocked XREADGROUP gets Redis's errors when its stream is deleted (DEL, FLUSHALL, SWAPDB) or its "
                 "group destroyed; XREAD keeps waiting", case_deleted_errors, r)
        rep.case("a blocked client that disconnects leaves no trace", case_disconnect, r)
        rep.case("only XADD, XDEL, XTRIM and a stream's creation abort a transaction WATCHing it, as in Redis 7.0.15",
                 case_watch, r)
    rep.finish()


if __name__ == "__main__":
    main()
