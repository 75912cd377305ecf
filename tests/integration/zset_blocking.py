#!/usr/bin/python3
"""zset_blocking.py -- BZPOPMIN, BZPOPMAX and BZMPOP with several redis-py clients at once.

One server (the log on) and clients in threads: waiters are served first come,
first served (by the score order of what arrives); fractional timeouts end in
nil on time; a client that disconnects while blocked leaves no trace; a ZADD
inside MULTI/EXEC (also after a DEL) wakes a waiter, and nothing blocks inside
MULTI; a waiter on a key that becomes a string keeps waiting; and after a
restart the popped members are gone (the woken clients' effect was logged as
ZPOPMIN/ZPOPMAX, not the blocking command). Every socket has a timeout, so a
hang is a failure, not a stall.
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


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)


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


def norm(x):
    """A pop reply as plain lists, scores as floats (whatever redis-py made of them)."""
    if x is None:
        return None
    x = list(x)
    if len(x) == 3:
        return [x[0], x[1], float(x[2])]
    return [x[0], [[m, float(s)] for m, s in x[1]]]


def case_fifo():
    r = client()
    ws = []
    for i, fn in enumerate((lambda c: c.execute_command("BZPOPMIN", "fifo", "0"),
                            lambda c: c.execute_command("BZPOPMAX", "other", "fifo", "0"),
                            lambda c: c.execute_command("BZMPOP", "0", "1", "fifo", "MIN", "COUNT", "5"))):
        w = Waiter(fn)
        w.start()
        wait_blocked(r, i + 1)
        ws.append(w)
    lines = [ln for ln in r.execute_command("CLIENT", "LIST").decode().splitlines() if " flags=b " in ln]
    eq(len(lines), 3, "blocked clients in CLIENT LIST")
    r.zadd("fifo", {"a": 1, "b": 2, "c": 3, "d": 4})
    eq([norm(w.done()) for w in ws],
       [[b"fifo", b"a", 1.0], [b"fifo", b"d", 4.0], [b"fifo", [[b"b", 2.0], [b"c", 3.0]]]], "FIFO order")
    eq(r.exists("fifo"), 0, "the emptied set is deleted")
    eq(blocked(r), 0, "blocked_clients after")


def case_timeouts():
    r = client()
    for cmd in (["BZPOPMIN", "none1", "none2", "0.25"], ["BZPOPMAX", "none1", "0.25"],
                ["BZMPOP", "0.25", "2", "none1", "none2", "MAX", "COUNT", "3"]):
        t0 = time.monotonic()
        eq(r.execute_command(*cmd), None, "%s after the timeout" % cmd[0])
        took = time.monotonic() - t0
        if not 0.24 <= took < 1.5:
            raise AssertionError("a 0.25 s timeout took %.3f s" % took)
    for cmd, msg in ((["BZPOPMIN", "k", "abc"], "timeout is not a float or out of range"),
                     (["BZPOPMAX", "k", "-1"], "timeout is negative"),
                     (["BZMPOP", "-1", "1", "k", "MIN"], "timeout is negative")):
        try:
            r.execute_command(*cmd)
            raise AssertionError("no error")
        except ResponseError as e:
            eq(str(e), msg)


def case_disconnect():
    r = client()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    s.sendall(b"*3\r\n$8\r\nBZPOPMIN\r\n$4\r\ngone\r\n$1\r\n0\r\n")
    wait_blocked(r, 1)
    s.close()
    wait_blocked(r, 0)
    r.zadd("gone", {"x": 1})
    eq(r.zrange("gone", 0, -1), [b"x"], "the member nobody took")
    r.delete("gone")


def case_multi_wakes():
    r = client()
    w = Waiter(lambda c: c.execute_command("BZPOPMIN", "mq", "0"))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.delete("mq")
    p.zadd("mq", {"from-exec": 5})
    p.execute()
    eq(norm(w.done()), [b"mq", b"from-exec", 5.0], "woken by a ZADD inside MULTI/EXEC after a DEL")
    w = Waiter(lambda c: c.execute_command("BZMPOP", "0.5", "1", "mq", "MAX"))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.zadd("mq", {"x": 1})
    p.zpopmin("mq")
    p.execute()
    eq(w.done(), None, "a waiter whose data was gone when EXEC ended times out")
    p = r.pipeline(transaction=True)
    p.execute_command("BZPOPMIN", "mq", "0")
    p.execute_command("BZPOPMAX", "mq", "0")
    p.execute_command("BZMPOP", "0", "1", "mq", "MIN")
    eq(p.execute(), [None, None, None], "blocking pops inside MULTI")


def case_wrong_type_waits():
    r = client()
    w = Waiter(lambda c: c.execute_command("BZPOPMIN", "wt", "0"))
    w.start()
    wait_blocked(r, 1)
    r.set("wt", "a string")
    time.sleep(0.1)
    eq(blocked(r), 1, "still blocked after the key became a string")
    r.delete("wt")
    r.zadd("wt", {"m": 2})
    eq(norm(w.done()), [b"wt", b"m", 2.0], "woken by the sorted set that came after")


def case_scheduler():
    r = client()
    got = []
    lock = threading.Lock()

    def worker(c):
        while True:
            x = c.execute_command("BZPOPMIN", "due", "2")
            if x is None or x[1] == b"stop":
                return
            with lock:
                got.append(x[1])

    ws = [Waiter(worker) for _ in range(3)]
    for w in ws:
        w.start()
    wait_blocked(r, 3)
    for i in range(200):
        r.zadd("due", {"task%d" % i: i})
    for _ in ws:
        r.zadd("due", {"stop": 1e9})
    for w in ws:
        w.done()
        if w.error:
            raise w.error
    eq(sorted(got), sorted(b"task%d" % i for i in range(200)), "every task once")
    eq(r.exists("due"), 0, "the schedule emptied")


def case_logged(srv):
    global PORT
    r = client()
    w1 = Waiter(lambda c: c.execute_command("BZPOPMIN", "lg", "0"))
    w1.start()
    wait_blocked(r, 1)
    w2 = Waiter(lambda c: c.execute_command("BZPOPMAX", "lg2", "0"))
    w2.start()
    wait_blocked(r, 2)
    w3 = Waiter(lambda c: c.execute_command("BZMPOP", "0", "1", "lg3", "MAX", "COUNT", "2"))
    w3.start()
    wait_blocked(r, 3)
    r.zadd("lg", {"a": 1, "b": 2})
    r.zadd("lg2", {"m": 1, "n": 2})
    r.zadd("lg3", {"x": 1, "y": 2, "z": 3})
    eq(norm(w1.done()), [b"lg", b"a", 1.0], "BZPOPMIN")
    eq(norm(w2.done()), [b"lg2", b"n", 2.0], "BZPOPMAX")
    eq(norm(w3.done()), [b"lg3", [[b"z", 3.0], [b"y", 2.0]]], "BZMPOP")
    eq(r.zadd("lg4", {"p": 1}), 1, "ZADD")
    eq(norm(r.execute_command("BZMPOP", "0", "1", "lg4", "MIN")), [b"lg4", [[b"p", 1.0]]], "BZMPOP with data")
    keys = ("lg", "lg2", "lg3", "lg4")
    before = {k: r.zrange(k, 0, -1, withscores=True) for k in keys}
    r.close()
    log = b""
    for root, _, files in os.walk(os.path.join(srv.dir, "data")):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                log += fh.read()
    for name in (b"BZPOPMIN", b"BZPOPMAX", b"BZMPOP"):
        if name in log.upper():
            raise AssertionError("the log holds a %s" % name.decode())
    for name in (b"ZPOPMIN", b"ZPOPMAX"):
        if name not in log:
            raise AssertionError("the log holds no %s" % name.decode())
    srv.restart()
    PORT = srv.port
    r = client()
    after = {k: r.zrange(k, 0, -1, withscores=True) for k in keys}
    eq(after, before, "the sets after a restart")
    eq(after, {"lg": [(b"b", 2.0)], "lg2": [(b"m", 1.0)], "lg3": [(b"x", 1.0)], "lg4": []},
       "the popped members are gone")


def main():
    global PORT
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes", "--appendfsync", "always")
    srv.start()
    PORT = srv.port
    try:
        rep.case("BZPOPMIN, BZPOPMAX and BZMPOP waiters on one key are served first come, first served", case_fifo)
        rep.case("fractional timeouts end BZPOPMIN, BZPOPMAX and BZMPOP with nil on time; bad timeouts are "
                 "Redis's errors", case_timeouts)
        rep.case("a client that disconnects while blocked in BZPOPMIN leaves no trace", case_disconnect)
        rep.case("a ZADD inside MULTI/EXEC wakes a waiter, even after a DEL; nothing blocks inside MULTI",
                 case_multi_wakes)
        rep.case("a waiter on a key that becomes a string keeps waiting for a sorted set", case_wrong_type_waits)
        rep.case("BZPOPMIN as a scheduler: three workers take 200 tasks, each exactly once", case_scheduler)
        rep.case("after a restart the members woken BZPOPMIN, BZPOPMAX and BZMPOP popped are gone", case_logged, srv)
        if not srv.alive():
            rep.fail("the server is alive at the end", srv.log_tail())
    finally:
        srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
