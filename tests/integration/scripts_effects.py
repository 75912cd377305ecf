#!/usr/bin/python3
"""scripts_effects.py -- what a script changes reaches everyone who listens, and the log keeps its effects.

A script's writes go through the same road as a client's: a list pushed by a
script wakes a BLPOP client once the script ends; a key a script changes fails
the EXEC of a client that WATCHes it; SP.WRITE and SP.READ work from a script.
The log holds the writes a script did, never the script: scripts whose
writes depend on math.random, on a failing command after writes, on SELECT,
and EVAL inside MULTI give the same dataset after a restart, after an
incremental rewrite and after a fork rewrite; the log files never contain the
scripts' text, and a read-only script adds nothing to the log.
"""
import glob
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402


def conn(srv, db=0):
    return redis.Redis(host="127.0.0.1", port=srv.port, db=db, socket_timeout=30)


def dump(srv):
    out = {}
    for db in (0, 3):
        r = conn(srv, db)
        keys = list(r.scan_iter(count=1000))
        p = r.pipeline(transaction=False)
        for k in keys:
            p.type(k)
        types = p.execute()
        p = r.pipeline(transaction=False)
        for k, t in zip(keys, types):
            if t == b"list":
                p.lrange(k, 0, -1)
            elif t == b"hash":
                p.hgetall(k)
            elif t == b"string":
                p.get(k)
            else:
                p.type(k)
        for k, t, v in zip(keys, types, p.execute()):
            out[(db, k)] = (t, sorted(v.items()) if isinstance(v, dict) else v)
    return out


def wakes_blpop(srv):
    r = conn(srv)
    got = {}

    def waiter():
        got["v"] = conn(srv).blpop("q", timeout=10)

    t = threading.Thread(target=waiter)
    t.start()
    deadline = time.monotonic() + 5
    while r.info("clients")["blocked_clients"] < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    n = r.eval("redis.call('rpush', KEYS[1], 'job1', 'job2'); return redis.call('llen', KEYS[1])", 1, "q")
    t.join(10)
    assert n == 2, n
    assert got.get("v") == (b"q", b"job1"), got
    assert r.lrange("q", 0, -1) == [b"job2"]


def fails_watch(srv):
    r, w = conn(srv), conn(srv)
    r.set("wk", "1")
    p = w.pipeline()
    p.watch("wk")
    r.eval("return redis.call('incr', KEYS[1])", 1, "wk")
    p.multi()
    p.set("wk", "from-exec")
    try:
        p.execute()
        raise AssertionError("EXEC ran although a script changed the watched key")
    except redis.WatchError:
        pass
    assert r.get("wk") == b"2"


def sp_commands(srv):
    r = conn(srv)
    v = r.eval("redis.call('SP.WRITE', KEYS[1], 'notes', ARGV[1]); return redis.call('SP.READ', KEYS[1], 'notes')",
               1, "agent1", "hello from a script")
    assert b"hello from a script" in (v if isinstance(v, bytes) else b"".join(x for x in v if isinstance(x, bytes))), v


def writes(srv):
    r = conn(srv)
    r.eval("for i = 1, 20 do redis.call('rpush', KEYS[1], tostring(math.random(1000000))) end", 1, "rand")
    try:
        r.eval("redis.call('set', 'partial', 'yes'); return redis.call('incr', 'partial')", 0)
    except redis.ResponseError:
        pass
    r.eval("redis.call('select', 3); redis.call('set', 'in3', ARGV[1]); redis.call('select', 0); "
           "return redis.call('hset', 'h', 'f', ARGV[1])", 0, "v%d" % time.monotonic_ns())
    p = r.pipeline(transaction=True)
    p.set("m1", "a")
    p.eval("return redis.call('append', 'm1', 'b')", 0)
    p.eval("return redis.call('set', 'm2', redis.call('get', 'm1'))", 0)
    p.execute()
    assert r.get("partial") == b"yes"
    assert r.get("m2") == b"ab"


def no_script_text_in_log(srv):
    blob = b""
    for f in glob.glob(os.path.join(srv.dir, "**", "*"), recursive=True):
        if os.path.isfile(f) and not f.endswith(".log"):
            with open(f, "rb") as fh:
                blob += fh.read()
    assert blob, "no log files found in %s" % srv.dir
    assert b"math.random" not in blob and b"redis.call" not in blob, "a script's text is in the log"


def read_only_logs_nothing(srv):
    r = conn(srv)
    before = r.info("persistence")["aof_current_size"]
    for _ in range(20):
        r.eval("return redis.call('get', 'kept')", 0)
        r.eval("return redis.call('lrange', KEYS[1], 0, -1)", 1, "rand")
    after = r.info("persistence")["aof_current_size"]
    assert before == after, (before, after)


def survives(srv, how):
    before = dump(srv)
    r = conn(srv)
    if how == "restart":
        srv.restart()
    else:
        r.config_set("aof-rewrite-mode", how)
        r.bgrewriteaof()
        deadline = time.monotonic() + 60
        while True:
            i = r.info("persistence")
            if not i["aof_rewrite_in_progress"] and not i.get("aof_rewrite_scheduled", 0):
                break
            assert time.monotonic() < deadline, "the rewrite did not finish"
            time.sleep(0.05)
        srv.restart()
    after = dump(srv)
    assert before == after, [k for k in set(before) | set(after) if before.get(k) != after.get(k)][:5]
    assert len(after) > 5, after


def errorstats_once(srv):
    r = conn(srv)
    r.set("es:s", "abc")
    for body in ("return redis.call('incr', KEYS[1])", "return redis.pcall('incr', KEYS[1])",
                 "return redis.call('nosuch')", "error('x')", "return redis.call({})"):
        r.config_resetstat()
        try:
            r.eval(body, 1, "es:s")
        except redis.ResponseError:
            pass
        got = r.info("stats")["total_error_replies"], r.info("errorstats").get("errorstat_ERR")
        assert got[0] == 1 and got[1] in ({"count": 1}, "count=1"), (body, got)


def self_nested_table(srv):
    import socket
    body = b"local t = {} t[1] = t return t"
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"*3\r\n$4\r\nEVAL\r\n$%d\r\n%s\r\n$1\r\n0\r\n" % (len(body), body))
    buf = b""
    while not buf.endswith(b"-ERR reached lua stack limit\r\n"):
        chunk = s.recv(65536)
        assert chunk, "the connection closed before the reply ended: %r" % buf[-80:]
        buf += chunk
    s.close()
    assert buf.startswith(b"*1\r\n*1\r\n"), buf[:20]
    assert conn(srv).ping()


def during_incremental_rewrite(srv):
    r = conn(srv)
    p = r.pipeline(transaction=False)
    for i in range(20000):
        p.set("ir:%d" % i, "v%d" % i)
        if i % 1000 == 999:
            p.execute()
    p.execute()
    r.config_set("aof-rewrite-mode", "incremental")
    r.config_set("aof-rewrite-step-us", 50)
    r.bgrewriteaof()
    n = 0
    while r.info("persistence")["aof_rewrite_in_progress"] and n < 20000:
        # a script that changes keys the scan may not have reached: each is written into the base first
        r.eval("for i = 1, #KEYS do redis.call('append', KEYS[i], '+') end", 3, "ir:%d" % (19999 - n % 20000),
               "ir:%d" % (n * 7 % 20000), "ir:new%d" % n)
        n += 1
    assert n > 0, "the rewrite ended before any script ran"
    sys.stdout.write("# %d scripts ran during the rewrite (%d keys written ahead of a write)\n"
                     % (n, r.info("persistence").get("aof_rewrite_keys_written_before_a_write", -1)))
    r.config_set("aof-rewrite-step-us", 1000)
    survives(srv, "restart")


def main():
    rep = Reporter()
    with Server("--appendonly", "yes") as srv:
        rep.case("a list pushed by a script wakes a BLPOP client once the script ends", wakes_blpop, srv)
        rep.case("a key changed by a script fails the EXEC of a client that watches it", fails_watch, srv)
        rep.case("SP.WRITE and SP.READ run from a script", sp_commands, srv)
        rep.case("INFO errorstats counts a script's failing command once, as Redis", errorstats_once, srv)
        rep.case("a table nested in itself is answered nested arrays ending in -ERR reached lua stack limit, "
                 "and the server goes on", self_nested_table, srv)
        rep.case("scripts with random writes, a failing command after a write, SELECT, and EVAL inside MULTI "
                 "run as Redis runs them", writes, srv)
        rep.case("a read-only script adds nothing to the log", read_only_logs_nothing, srv)
        rep.case("the log holds the scripts' writes, never their text", no_script_text_in_log, srv)
        rep.case("the scripts' writes are the same after a restart", survives, srv, "restart")
        rep.case("the scripts' writes are the same after an incremental rewrite and a restart", survives, srv,
                 "incremental")
        rep.case("the scripts' writes are the same after a fork rewrite and a restart", survives, srv, "fork")
        rep.case("scripts changing keys during an incremental rewrite leave the same dataset after a restart",
                 during_incremental_rewrite, srv)
    rep.finish()


if __name__ == "__main__":
    main()
