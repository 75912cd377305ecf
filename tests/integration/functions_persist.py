#!/usr/bin/python3
"""functions_persist.py -- libraries of functions survive restarts and rewrites; the script cache does not.

Libraries loaded, replaced and deleted (and an FCALL's writes) are the same
after a restart, after an incremental rewrite and a restart, and after a fork
rewrite and a restart (FUNCTION LIST WITHCODE and the keys compared); the
EVAL script cache is empty after a restart (EVALSHA answers NOSCRIPT, as
Redis); SCRIPT FLUSH leaves the functions alone and FUNCTION FLUSH the
scripts. FUNCTION DUMP's payload restores into redis-server and redis-server's
(LZF-compressed) payload restores here; RESTORE's policies (APPEND collision,
REPLACE, FLUSH) and a corrupt payload. A busy function is stopped by FUNCTION
KILL, and SCRIPT KILL answers it Redis's -BUSY for functions.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402
from difftest import RedisServer  # noqa: E402

import redis  # noqa: E402

LIB_A = """#!lua name=liba
local function bump(keys, args) return redis.call('INCRBY', keys[1], args[1]) end
redis.register_function('bump', bump)
redis.register_function{function_name='peek', callback=function(keys) return redis.call('GET', keys[1]) end,
  flags={'no-writes'}, description='reads one key'}
"""
LIB_B = "#!lua name=libb\nredis.register_function('hello', function() return 'v1' end)\n"
LIB_B2 = "#!lua name=libb\nredis.register_function('hello', function() return 'v2' end)\n"
LIB_C = "#!lua name=libc\nredis.register_function('gone', function() return 1 end)\n"
LOOP = "#!lua name=loop\nredis.register_function('spin', function() while true do end end)\n"


def conn(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=30)


def state(r):
    libs = sorted((l[b"library_name"], l[b"library_code"]) for l in
                  [dict(zip(x[::2], x[1::2])) for x in r.execute_command("FUNCTION", "LIST", "WITHCODE")])
    return libs, r.get("counter")


def load_some(srv):
    r = conn(srv.port)
    r.function_flush()
    r.function_load(LIB_A)
    r.function_load(LIB_B)
    r.function_load(LIB_B2, replace=True)
    r.function_load(LIB_C)
    r.function_delete("libc")
    assert r.fcall("bump", 1, "counter", 5) == 5
    assert r.fcall("bump", 1, "counter", 2) == 7
    assert r.fcall_ro("peek", 1, "counter") == b"7"
    assert r.fcall("hello", 0) == b"v2"
    r.script_load("return 'cached'")


def survives(srv, how):
    r = conn(srv.port)
    before = state(r)
    if how != "restart":
        r.config_set("aof-rewrite-mode", how)
        r.bgrewriteaof()
        deadline = time.monotonic() + 60
        while r.info("persistence")["aof_rewrite_in_progress"]:
            assert time.monotonic() < deadline, "the rewrite did not finish"
            time.sleep(0.05)
        r.fcall("bump", 1, "counter", 1)  # after the rewrite: in the new incr
        before = state(r)
    srv.restart()
    r = conn(srv.port)
    after = state(r)
    assert before == after, (before, after)
    assert len(after[0]) == 2, after
    assert r.fcall("hello", 0) == b"v2"


def script_cache_not_persisted(srv):
    r = conn(srv.port)
    sha = r.script_load("return 'cached'")
    srv.restart()
    r = conn(srv.port)
    assert r.script_exists(sha) == [False]
    try:
        r.evalsha(sha, 0)
        raise AssertionError("EVALSHA found a script after a restart")
    except redis.exceptions.NoScriptError:
        pass


def flushes_are_separate(srv):
    r = conn(srv.port)
    sha = r.script_load("return 'cached'")
    r.script_flush()
    assert r.fcall("hello", 0) == b"v2", "SCRIPT FLUSH dropped a function"
    sha = r.script_load("return 'cached'")
    payload = r.function_dump()
    r.function_flush()
    assert r.script_exists(sha) == [True], "FUNCTION FLUSH dropped a script"
    assert r.function_restore(payload)
    assert r.fcall("hello", 0) == b"v2"


def dump_restore_with_redis(srv):
    ref = RedisServer()
    try:
        r, x = conn(srv.port), conn(ref.port)
        ours = r.function_dump()
        assert x.function_restore(ours), "redis-server refused our payload"
        assert x.fcall("hello", 0) == b"v2"
        x.function_load(LIB_C)
        theirs = x.function_dump()
        r.function_flush()
        assert r.function_restore(theirs)
        assert r.fcall("gone", 0) == 1 and r.fcall("hello", 0) == b"v2"
        assert state(r)[0] == state(x)[0]
        try:
            r.function_restore(theirs, "APPEND")
            raise AssertionError("RESTORE APPEND over existing libraries succeeded")
        except redis.ResponseError as e:
            # Redis names the first colliding library of its hash table's order
            assert str(e) in ("Library liba already exists", "Library libb already exists",
                              "Library libc already exists"), str(e)
        assert r.function_restore(theirs, "REPLACE")
        r.function_load(LIB_A.replace("liba", "libz").replace("'bump'", "'bump2'").replace("'peek'", "'peek2'"))
        assert r.function_restore(theirs, "FLUSH")
        assert [l for l, _ in state(r)[0]] == [b"liba", b"libb", b"libc"]
        bad = bytearray(theirs)
        bad[5] ^= 0xff
        try:
            r.function_restore(bytes(bad))
            raise AssertionError("a corrupt payload was restored")
        except redis.ResponseError as e:
            assert str(e) == "DUMP payload version or checksum are wrong", str(e)
        r.function_delete("libc")
    finally:
        ref.stop()


def function_kill(srv):
    r = conn(srv.port)
    r.config_set("busy-reply-threshold", 100)
    r.function_load(LOOP)
    out = {}

    def run():
        try:
            out["r"] = conn(srv.port).fcall("spin", 0)
        except redis.ResponseError as e:
            out["e"] = str(e)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.4)
    k = conn(srv.port)
    try:
        k.script_kill()
        raise AssertionError("SCRIPT KILL stopped a function")
    except redis.ResponseError as e:
        assert str(e).startswith("BUSY Redis is busy running a script. You can only call FUNCTION KILL"), str(e)
    stats = k.execute_command("FUNCTION", "STATS")
    assert stats[1][:2] == [b"name", b"spin"], stats
    assert k.execute_command("FUNCTION", "KILL") == b"OK"
    t.join(10)
    assert out.get("e") == "Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.", out
    r.function_delete("loop")
    r.config_set("busy-reply-threshold", 5000)


def main():
    rep = Reporter()
    with Server("--appendonly", "yes") as srv:
        rep.case("libraries loaded, replaced and deleted, and an FCALL's writes", load_some, srv)
        rep.case("the libraries and the FCALL's writes are the same after a restart", survives, srv, "restart")
        rep.case("... after an incremental rewrite (and a write after it) and a restart", survives, srv,
                 "incremental")
        rep.case("... after a fork rewrite (and a write after it) and a restart", survives, srv, "fork")
        rep.case("the script cache is empty after a restart (EVALSHA: NOSCRIPT)", script_cache_not_persisted, srv)
        rep.case("SCRIPT FLUSH keeps the functions and FUNCTION FLUSH the scripts", flushes_are_separate, srv)
        rep.case("FUNCTION DUMP's payload restores into redis-server and back, with RESTORE's policies",
                 dump_restore_with_redis, srv)
        rep.case("a busy function: SCRIPT KILL refused with -BUSY, FUNCTION STATS names it, FUNCTION KILL ends it",
                 function_kill, srv)
    rep.finish()


if __name__ == "__main__":
    main()
