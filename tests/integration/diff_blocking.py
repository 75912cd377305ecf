#!/usr/bin/python3
"""diff_blocking.py -- several clients blocked at once: the same scripts on redis-server and Scratchpad.

Which client a push wakes, and from which key, is Redis 7.0's: ready keys are
served in the order they became ready (a key becomes ready when a value of the
type a client waits for is added under it: a list for BLPOP, a sorted set for
BZPOPMIN), and each key's clients first come, first served, each from that key
(BLPOP a b woken by a push to b pops from b, even if a got data in the same
MULTI). Each script blocks clients in order (each its own connection, waiting
until INFO shows it blocked), runs a MULTI/EXEC of writes, and collects what
every client got (None if it was still waiting after the wait time) and what
the keys hold. INFO commandstats is compared too: a blocking command that
blocks and is woken, possibly after re-runs that found nothing, counts one
call; a timeout one call; CLIENT UNBLOCK one call, failed. Both servers are
started by the test on free ports and stopped by PID.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402

import redis  # noqa: E402

WAIT = 0.6  # s a script waits for its clients after the writes


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=10)


def wait_blocked(r, n):
    deadline = time.monotonic() + 5
    while int(r.info("clients")["blocked_clients"]) < n:
        if time.monotonic() > deadline:
            raise AssertionError("blocked_clients never reached %d" % n)
        time.sleep(0.005)


def dump(r):
    out = {}
    for k in sorted(r.keys()):
        t = r.type(k)
        if t == b"list":
            out[k] = (t, r.lrange(k, 0, -1))
        elif t == b"zset":
            out[k] = (t, r.zrange(k, 0, -1, withscores=True))
        else:
            out[k] = (t, r.get(k) if t == b"string" else None)
    return out


def stats(r, names):
    cs = r.info("commandstats")
    return {n: (cs[n]["calls"], cs[n]["failed_calls"]) for n in sorted(names) if n in cs}


def run_script(port, waiters, writes, after=None):
    """waiters: blocking commands, one client each, blocked in this order;
    writes: commands run in one MULTI/EXEC (or by after(r, ids) if given).
    Returns (what each waiter got, the keys, the blocking commands' stats)."""
    r = client(port)
    r.flushall()
    r.config_resetstat()
    got, conns, threads = {}, [], []
    for i, cmd in enumerate(waiters):
        c = client(port)
        c.execute_command("CLIENT", "SETNAME", "w%d" % i)
        conns.append(c)

        def wait(c=c, cmd=cmd, i=i):
            try:
                got[i] = c.execute_command(*cmd)
            except redis.exceptions.ResponseError as e:
                got[i] = "error: %s" % e
            except redis.exceptions.TimeoutError:
                got[i] = "still waiting"

        t = threading.Thread(target=wait, daemon=True)
        t.start()
        threads.append(t)
        wait_blocked(r, i + 1)
    if after:
        after(r, conns)
    else:
        p = r.pipeline(transaction=True)
        for w in writes:
            p.execute_command(*w)
        p.execute()
    deadline = time.monotonic() + WAIT
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    result = [got.get(i, "still waiting") for i in range(len(waiters))]
    # Release the ones still waiting before reading the stats.
    for line in r.client_list():
        if line["name"].startswith("w") and "b" in line["flags"]:
            r.client_unblock(int(line["id"]))
    for t in threads:
        t.join(5)
    names = {"cmdstat_" + w[0].lower() for w in waiters}
    keys = dump(r)
    st = stats(r, names)
    for c in conns:
        c.close()
    return result, keys, st


def unblock_first(error):
    def after(r, conns):
        ids = {line["name"]: int(line["id"]) for line in r.client_list()}
        r.client_unblock(ids["w0"], error=error)
    return after


SCRIPTS = [
    ("BLPOP a b, a MULTI pushes to b then a: served from b",
     [("BLPOP", "a", "b", "0")], [("RPUSH", "b", "x"), ("RPUSH", "a", "y")]),
    ("BLPOP a b and BLPOP b a, pushes to b then a: each served from the key that became ready",
     [("BLPOP", "a", "b", "0"), ("BLPOP", "b", "a", "0")], [("RPUSH", "b", "x"), ("RPUSH", "a", "y")]),
    ("BLPOP a b c, pushes to c, b, a: served from c",
     [("BLPOP", "a", "b", "c", "0")], [("RPUSH", "c", "1"), ("RPUSH", "b", "2"), ("RPUSH", "a", "3")]),
    ("BLPOP a b and BLPOP a, pushes to b then a: both served",
     [("BLPOP", "a", "b", "0"), ("BLPOP", "a", "0")], [("RPUSH", "b", "x"), ("RPUSH", "a", "y")]),
    ("BLPOP a b and BLPOP b, pushes to a then b",
     [("BLPOP", "a", "b", "0"), ("BLPOP", "b", "0")], [("RPUSH", "a", "y", "y2"), ("RPUSH", "b", "x")]),
    ("BLMPOP on a b with COUNT, pushes to b then a: served from b",
     [("BLMPOP", "0", "2", "a", "b", "LEFT", "COUNT", "5")], [("RPUSH", "b", "x", "x2"), ("RPUSH", "a", "y")]),
    ("BZPOPMIN a b, ZADDs to b then a: served from b",
     [("BZPOPMIN", "a", "b", "0")], [("ZADD", "b", "1", "x"), ("ZADD", "a", "2", "y")]),
    ("BZMPOP on a b, ZADDs to b then a: served from b",
     [("BZMPOP", "0", "2", "a", "b", "MIN")], [("ZADD", "b", "1", "x"), ("ZADD", "a", "2", "y")]),
    ("a string added under a waited key does not make it ready: the list added later does",
     [("BLPOP", "a", "b", "0")], [("SET", "b", "s"), ("RPUSH", "a", "y"), ("DEL", "b"), ("RPUSH", "b", "x")]),
    ("a BLMOVE woken pushes to a key another client waits on, which is served in the same round",
     [("BLPOP", "a", "0"), ("BLMOVE", "b", "a", "LEFT", "RIGHT", "0")], [("RPUSH", "b", "x")]),
    ("BRPOPLPUSH b a and BLPOP a c: c ready first, then b",
     [("BRPOPLPUSH", "b", "a", "0"), ("BLPOP", "a", "c", "0")], [("RPUSH", "c", "1"), ("RPUSH", "b", "x")]),
    ("a key pushed then deleted in the MULTI serves nobody; the next one does",
     [("BLPOP", "a", "b", "0")], [("RPUSH", "b", "x"), ("DEL", "b"), ("RPUSH", "a", "y")]),
    ("three clients on b a / a b / a, two elements pushed to a and one to b",
     [("BLPOP", "b", "a", "0"), ("BLPOP", "a", "b", "0"), ("BLPOP", "a", "0")],
     [("RPUSH", "a", "1", "2"), ("RPUSH", "b", "3")]),
    ("a BLPOP and a BZPOPMIN on one key: the sorted set added serves the BZPOPMIN, the list later the BLPOP",
     [("BLPOP", "k", "0"), ("BZPOPMIN", "k", "0")], [("ZADD", "k", "1", "m")]),
    ("a BLPOP first in line on a key that becomes a sorted set keeps its place; the BZPOPMIN behind it is served",
     [("BLPOP", "k", "0"), ("BZPOPMIN", "k", "0"), ("BLPOP", "k", "0")],
     [("ZADD", "k", "1", "m"), ("ZADD", "k", "2", "n"), ("DEL", "k"), ("RPUSH", "k", "e")]),
    ("a waiter woken by a key of another type (a sorted set under a BLPOP's key) waits on: one call counted",
     [("BLPOP", "k", "0")], [("ZADD", "k", "1", "m")]),
    ("two waiters, one element: the second waits on and is counted once when unblocked",
     [("BLPOP", "e", "0"), ("BLPOP", "e", "0")], [("RPUSH", "e", "1")]),
    ("a BLPOP with a timeout ends with nil and counts one call",
     [("BLPOP", "t", "0.1")], [("SET", "unrelated", "1")]),
]


def run_all(port):
    out = []
    for name, waiters, writes in SCRIPTS:
        out.append((name, run_script(port, waiters, writes)))
    out.append(("CLIENT UNBLOCK (timeout) counts one failed call",
                run_script(port, [("BLPOP", "u", "0")], [], after=unblock_first(False))))
    out.append(("CLIENT UNBLOCK ERROR counts one failed call",
                run_script(port, [("BLPOP", "u", "0")], [], after=unblock_first(True))))
    return out


def main():
    rep = spserver.Reporter()
    redis_srv = difftest.RedisServer()
    try:
        with spserver.Server() as srv:
            want = run_all(redis_srv.port)
            have = run_all(srv.port)
            for (name, w), (_, h) in zip(want, have):
                def check(w=w, h=h):
                    if w != h:
                        raise AssertionError("redis-server: %r\nscratchpad:   %r" % (w, h))
                rep.case(name + " (as redis-server)", check)
    finally:
        redis_srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
