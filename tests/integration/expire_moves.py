"""expire_moves.py -- a key's first TTL moves its entry; nothing keeps the old one.

A key without a TTL lives in a narrow entry; its first TTL (EXPIRE, GETEX,
RESTORE with a TTL, COPY of a key with one) moves it to a wide one at a new
address (keyspace/db.h, db_set_expire). Each case gives a key its first TTL in
one of the places where something could still hold the old address -- inside
MULTI, inside a Lua script, GETEX, SET ... KEEPTTL after it, RESTORE, COPY, the
expiry cycle's heaps (the key's own and a scratchpad's entry lifetimes), a
WATCHed key, a client blocked on the key -- then uses the key there and checks
its value and TTL. Under ASan (make asan) a stale pointer is an abort; in an
ordinary build a wrong value or TTL. Starts its own server (tests/lib/spserver.py)
and stops it by PID; every socket has a timeout.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

R = None
PORT = None


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=10)


def t_multi():
    p = R.pipeline(transaction=True)
    p.set("mv:m", "v").expire("mv:m", 100).append("mv:m", "w").get("mv:m").ttl("mv:m").set("mv:m", "x", keepttl=True)
    p.ttl("mv:m")
    eq(p.execute(), [True, True, 2, b"vw", 100, True, 100], "MULTI replies")
    eq(R.get("mv:m"), b"x", "value after EXEC")


def t_lua():
    got = R.eval("redis.call('SET', KEYS[1], 'v') redis.call('EXPIRE', KEYS[1], 100) "
                 "redis.call('APPEND', KEYS[1], 'w') redis.call('SETRANGE', KEYS[1], 0, 'a') "
                 "return {redis.call('GET', KEYS[1]), redis.call('TTL', KEYS[1])}", 1, "mv:lua")
    eq(got, [b"aw", 100], "the script's reads after its EXPIRE")


def t_getex_keepttl():
    R.set("mv:g", "v")
    eq(R.getex("mv:g", ex=100), b"v", "GETEX")
    eq(R.ttl("mv:g"), 100, "TTL after GETEX")
    R.set("mv:g", "v" * 300, keepttl=True)  # a RAW value now, same TTL
    eq(R.ttl("mv:g"), 100, "TTL after SET KEEPTTL")
    eq(R.get("mv:g"), b"v" * 300, "value after SET KEEPTTL")


def t_restore_copy():
    R.set("mv:src", "v")
    dump = R.dump("mv:src")
    R.restore("mv:r", 100000, dump)
    eq(R.get("mv:r"), b"v", "RESTORE with a TTL")
    check(0 < R.pttl("mv:r") <= 100000, "RESTORE's TTL")
    eq(R.copy("mv:r", "mv:c"), True, "COPY")
    check(0 < R.pttl("mv:c") <= 100000, "COPY keeps the TTL")
    eq(R.append("mv:c", "w"), 2, "APPEND to the copy")


def t_expiry_cycle():
    for i in range(300):
        R.set("mv:x:%d" % i, "v")
    p = R.pipeline(transaction=False)
    for i in range(300):
        p.pexpire("mv:x:%d" % i, 30 + i % 50)
        if i % 3 == 0:
            p.append("mv:x:%d" % i, "w")  # a write after the move
    p.execute()
    deadline = time.time() + 10
    while time.time() < deadline and len(R.keys("mv:x:*")) > 0:
        time.sleep(0.05)
    eq(len(R.keys("mv:x:*")), 0, "keys left after their TTLs")
    # a scratchpad whose entries expire on their own (the second heap) gets a key TTL
    R.execute_command("SP.WRITE", "mv:sp", "e", "v", "PX", "150")
    R.execute_command("SP.WRITE", "mv:sp", "f", "v")
    eq(R.expire("mv:sp", 100), True, "EXPIRE of a scratchpad")
    time.sleep(0.4)
    names = R.execute_command("SP.LIST", "mv:sp")[1]  # [cursor, names]
    check(b"e" not in names and b"f" in names, "the entry with a lifetime expired, the other stayed: %r" % (names,))
    eq(R.ttl("mv:sp"), 100, "the scratchpad's TTL")


def t_watch():
    R.set("mv:w", "v")
    w = client()
    p = w.pipeline(transaction=True)
    p.watch("mv:w")
    R.expire("mv:w", 100)  # another client moves the entry
    p.multi()
    p.get("mv:w")
    try:
        p.execute()
        raise AssertionError("EXEC ran although the WATCHed key got a TTL")
    except redis.WatchError:
        pass
    eq(R.get("mv:w"), b"v", "value")


def t_blocked():
    R.xadd("mv:s", {"a": "1"})
    got = []
    c = client()
    t = threading.Thread(target=lambda: got.append(c.xread({"mv:s": "$"}, block=5000)))
    t.start()
    deadline = time.time() + 5
    while time.time() < deadline and R.info("clients")["blocked_clients"] == 0:
        time.sleep(0.01)
    eq(R.expire("mv:s", 100), True, "EXPIRE of the stream a client waits on")
    R.xadd("mv:s", {"b": "2"})
    t.join(10)
    check(got and got[0] and got[0][0][1][0][1] == {b"b": b"2"}, "the blocked reader got the new entry: %r" % got)
    eq(R.ttl("mv:s"), 100, "the stream's TTL")


def main():
    global R, PORT
    rep = spserver.Reporter()
    try:
        srv = spserver.Server().start()
    except Exception as e:  # noqa: BLE001
        rep.fail("the server starts and answers PING", e)
        rep.finish()
    try:
        PORT = srv.port
        R = client()
        rep.case("EXPIRE inside MULTI moves the entry, and the commands queued after it read and write the key", t_multi)
        rep.case("a Lua script that gives a key its first TTL then writes and reads it sees the moved entry", t_lua)
        rep.case("GETEX gives the first TTL, and SET KEEPTTL after it keeps it", t_getex_keepttl)
        rep.case("RESTORE with a TTL and COPY of a key with a TTL give working keys", t_restore_copy)
        rep.case("the expiry cycle deletes 300 keys moved by their first TTL, and a scratchpad's entry lifetimes "
                 "still expire after the scratchpad got a TTL", t_expiry_cycle)
        rep.case("a WATCHed key that another client gives a TTL aborts the transaction", t_watch)
        rep.case("a client blocked on a stream is woken after the stream got a TTL", t_blocked)
    finally:
        srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
