#!/usr/bin/python3
"""list_blocking.py -- the blocking list commands with several redis-py clients at once.

One server (the log on) and clients in threads: waiters are served first come,
first served; fractional timeouts end in nil on time; a client that
disconnects while blocked leaves no trace; CLIENT UNBLOCK in both modes; a push
inside MULTI/EXEC (and one after a DEL in the same transaction) wakes a waiter,
and a push popped again in the same transaction does not; BLMOVE as a reliable
queue with three workers; BLPOP on several keys; requests pipelined after a
blocked one wait for it; nothing blocks inside MULTI; INFO blocked_clients and
CLIENT LIST (flags=b, cmd=blpop) while waiting; and after a restart the log
has what the woken clients popped (their effect was logged, not the blocking
command). Every socket has a timeout, so a hang is a failure, not a stall.
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


def case_fifo():
    r = client()
    ws = []
    for i in range(3):
        w = Waiter(lambda c: c.blpop(["fifo"], 0))
        w.start()
        wait_blocked(r, i + 1)
        ws.append(w)
    lines = [ln for ln in r.execute_command("CLIENT", "LIST").decode().splitlines() if "cmd=blpop" in ln]
    eq(len(lines), 3, "clients listed with cmd=blpop")
    if not all(" flags=b " in ln for ln in lines):
        raise AssertionError("blocked clients without flags=b: %r" % lines)
    r.lpush("fifo", "a", "b", "c")  # the list is c b a: the first waiter gets c
    eq([w.done() for w in ws], [(b"fifo", b"c"), (b"fifo", b"b"), (b"fifo", b"a")], "FIFO order")
    eq(r.exists("fifo"), 0, "the emptied list is deleted")
    eq(blocked(r), 0, "blocked_clients after")


def case_timeouts():
    r = client()
    for fn, want in ((lambda c: c.blpop(["none1", "none2"], 0.25), None),
                     (lambda c: c.execute_command("BLMOVE", "none1", "d", "LEFT", "RIGHT", "0.25"), None),
                     (lambda c: c.execute_command("BLMPOP", "0.25", "1", "none1", "LEFT"), None)):
        t0 = time.monotonic()
        eq(fn(r), want, "after the timeout")
        took = time.monotonic() - t0
        if not 0.24 <= took < 1.5:
            raise AssertionError("a 0.25 s timeout took %.3f s" % took)
    try:
        r.execute_command("BLPOP", "k", "abc")
        raise AssertionError("no error")
    except ResponseError as e:
        eq(str(e), "timeout is not a float or out of range")
    try:
        r.execute_command("BLPOP", "k", "-1")
        raise AssertionError("no error")
    except ResponseError as e:
        eq(str(e), "timeout is negative")


def case_disconnect():
    r = client()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    s.sendall(b"*3\r\n$5\r\nBLPOP\r\n$4\r\ngone\r\n$1\r\n0\r\n")
    wait_blocked(r, 1)
    s.close()
    wait_blocked(r, 0)
    r.rpush("gone", "x")
    eq(r.lrange("gone", 0, -1), [b"x"], "the element nobody took")
    r.delete("gone")


def case_unblock():
    r = client()
    w = Waiter(lambda c: c.blpop(["ub"], 0))
    w.start()
    wait_blocked(r, 1)
    eq(r.execute_command("CLIENT", "UNBLOCK", w.id), 1, "CLIENT UNBLOCK")
    eq(w.done(), None, "the reply of an unblocked waiter (TIMEOUT)")
    w = Waiter(lambda c: c.blpop(["ub"], 0))
    w.start()
    wait_blocked(r, 1)
    eq(r.execute_command("CLIENT", "UNBLOCK", w.id, "ERROR"), 1, "CLIENT UNBLOCK ERROR")
    w.done()
    if not isinstance(w.error, ResponseError) or str(w.error) != "UNBLOCKED client unblocked via CLIENT UNBLOCK":
        raise AssertionError("got %r" % (w.error,))
    eq(r.execute_command("CLIENT", "UNBLOCK", r.client_id()), 0, "CLIENT UNBLOCK of a client not blocked")


def case_multi_wakes():
    r = client()
    w = Waiter(lambda c: c.blpop(["mq"], 0))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.delete("mq")
    p.lpush("mq", "from-exec")
    p.execute()
    eq(w.done(), (b"mq", b"from-exec"), "woken by a push inside MULTI/EXEC after a DEL")
    # Pushed and popped again in one transaction: nothing to serve.
    w = Waiter(lambda c: c.blpop(["mq"], 0.5))
    w.start()
    wait_blocked(r, 1)
    p = r.pipeline(transaction=True)
    p.lpush("mq", "x")
    p.lpop("mq")
    p.execute()
    eq(w.done(), None, "a waiter whose data was gone when EXEC ended times out")
    # Inside MULTI a blocking command does not block.
    p = r.pipeline(transaction=True)
    p.blpop(["mq"], 0)
    p.execute_command("BLMOVE", "mq", "mq2", "LEFT", "LEFT", "0")
    eq(p.execute(), [None, None], "blocking commands inside MULTI")


def case_reliable_queue():
    r = client()
    done = []
    lock = threading.Lock()

    def worker(c):
        while True:
            job = c.execute_command("BLMOVE", "jobs", "processing", "RIGHT", "LEFT", "2")
            if job is None or job == b"stop":
                if job == b"stop":
                    c.lrem("processing", 1, job)
                return
            with lock:
                done.append(job)
            c.lrem("processing", 1, job)

    ws = [Waiter(worker) for _ in range(3)]
    for w in ws:
        w.start()
    wait_blocked(r, 3)
    for i in range(300):
        r.lpush("jobs", "job%d" % i)
    for _ in ws:
        r.lpush("jobs", "stop")
    for w in ws:
        w.done()
        if w.error:
            raise w.error
    eq(sorted(done), sorted(b"job%d" % i for i in range(300)), "every job once")
    eq(r.llen("processing"), 0, "processing list emptied")
    eq(r.exists("jobs"), 0, "jobs list emptied")


def case_several_keys():
    r = client()
    w = Waiter(lambda c: c.blpop(["sk1", "sk2", "sk3"], 0))
    w.start()
    wait_blocked(r, 1)
    r.rpush("sk3", "three")
    eq(w.done(), (b"sk3", b"three"), "BLPOP on three keys woken by the third")
    r.rpush("sk2", "two")
    r.rpush("sk3", "three")
    eq(r.blpop(["sk1", "sk2", "sk3"], 0), (b"sk2", b"two"), "the first key with data")
    eq(r.brpop(["sk3"], 0), (b"sk3", b"three"), "BRPOP with data")


def case_pipelined_wait():
    r = client()
    s = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
    s.sendall(b"*3\r\n$5\r\nBLPOP\r\n$2\r\npw\r\n$1\r\n0\r\n*2\r\n$4\r\nLLEN\r\n$2\r\npw\r\n*1\r\n$4\r\nPING\r\n")
    wait_blocked(r, 1)
    s.settimeout(0.2)
    try:
        early = s.recv(100)
    except socket.timeout:
        early = b""
    eq(early, b"", "nothing answered while blocked")
    r.rpush("pw", "a", "b")
    s.settimeout(TIMEOUT)
    want = b"*2\r\n$2\r\npw\r\n$1\r\na\r\n:1\r\n+PONG\r\n"
    got = b""
    while len(got) < len(want):
        chunk = s.recv(1000)
        if not chunk:
            break
        got += chunk
    eq(got, want, "the blocked reply, then the pipelined ones")
    s.close()
    r.delete("pw")


def case_swapdb():
    r = client()
    w = Waiter(lambda c: c.blpop(["sw"], 0))
    w.start()
    wait_blocked(r, 1)
    r1 = redis.Redis(host="127.0.0.1", port=PORT, db=1, socket_timeout=TIMEOUT)
    r1.rpush("sw", "from-db1")
    eq(blocked(r), 1, "still blocked: the push was in another database")
    r.swapdb(0, 1)
    eq(w.done(), (b"sw", b"from-db1"), "woken by SWAPDB")
    r1.close()


def case_idle_timeout():
    r = client()
    r.config_set("timeout", 1)
    try:
        w = Waiter(lambda c: c.blpop(["idle"], 2.5))
        w.start()
        wait_blocked(r, 1)
        eq(w.done(), None, "a client blocked past the idle timeout gets its own timeout's nil")
        if w.error:
            raise w.error
    finally:
        r.config_set("timeout", 0)


def case_logged(srv):
    global PORT
    r = client()
    w1 = Waiter(lambda c: c.blpop(["lg"], 0))
    w1.start()
    wait_blocked(r, 1)
    w2 = Waiter(lambda c: c.execute_command("BLMOVE", "lg2", "lgdst", "LEFT", "RIGHT", "0"))
    w2.start()
    wait_blocked(r, 2)
    w3 = Waiter(lambda c: c.execute_command("BLMPOP", "0", "1", "lg3", "LEFT", "COUNT", "2"))
    w3.start()
    wait_blocked(r, 3)
    r.rpush("lg", "a", "b")
    r.rpush("lg2", "m")
    r.rpush("lg3", "x", "y", "z")
    eq(w1.done(), (b"lg", b"a"), "BLPOP")
    eq(w2.done(), b"m", "BLMOVE")
    eq(w3.done(), [b"lg3", [b"x", b"y"]], "BLMPOP")
    before = {k: r.lrange(k, 0, -1) for k in ("lg", "lg2", "lgdst", "lg3")}
    r.close()
    log = b""
    for root, _, files in os.walk(os.path.join(srv.dir, "data")):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                log += fh.read()
    for name in (b"BLPOP", b"BLMOVE", b"BLMPOP"):
        if name in log.upper():
            raise AssertionError("the log holds a %s" % name.decode())
    for name in (b"LPOP", b"LMOVE"):
        if name not in log:
            raise AssertionError("the log holds no %s" % name.decode())
    srv.restart()
    PORT = srv.port
    r = client()
    after = {k: r.lrange(k, 0, -1) for k in ("lg", "lg2", "lgdst", "lg3")}
    eq(after, before, "the lists after a restart")
    eq(after, {"lg": [b"b"], "lg2": [], "lgdst": [b"m"], "lg3": [b"z"]}, "the popped elements are gone")


def main():
    global PORT
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes", "--appendfsync", "always")
    srv.start()
    PORT = srv.port
    try:
        rep.case("three BLPOP waiters on one key are served first come, first served, and show as blocked meanwhile",
                 case_fifo)
        rep.case("fractional timeouts end BLPOP, BLMOVE and BLMPOP with nil on time; bad timeouts are Redis's errors",
                 case_timeouts)
        rep.case("a client that disconnects while blocked leaves no trace", case_disconnect)
        rep.case("CLIENT UNBLOCK wakes a waiter with nil (TIMEOUT) or the UNBLOCKED error (ERROR)", case_unblock)
        rep.case("a push inside MULTI/EXEC wakes a waiter, even after a DEL; nothing blocks inside MULTI",
                 case_multi_wakes)
        rep.case("BLMOVE as a reliable queue: three workers take 300 jobs, each exactly once", case_reliable_queue)
        rep.case("BLPOP on several keys is woken by any of them and pops the first key with data",
                 case_several_keys)
        rep.case("requests pipelined after a blocked BLPOP wait for it and are answered in order",
                 case_pipelined_wait)
        rep.case("SWAPDB wakes a client waiting on a key the other database has", case_swapdb)
        rep.case("the idle-client timeout spares a blocked client (it ends with its own timeout)",
                 case_idle_timeout)
        rep.case("after a restart the log has what woken BLPOP, BLMOVE and BLMPOP popped", case_logged, srv)
        if not srv.alive():
            rep.fail("the server is alive at the end", srv.log_tail())
    finally:
        srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
