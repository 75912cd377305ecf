"""redis_py.py -- the server driven by redis-py the way Python applications use it.

Starts one server of its own (tests/lib/spserver.py) and runs, through redis-py
(Debian's python3-redis), strings with every SET option, pipelines with and
without MULTI/EXEC, WATCH-based optimistic locking under contention from
threads, SCAN over 10k keys, millisecond expiry, binary and 10 MB values, a
pool of 100 connections used by threads, CLIENT, INFO, CONFIG, SELECT/SWAPDB,
generic key commands, and the exceptions redis-py raises for bad requests, whose
messages must be Redis 7's words. A second server with requirepass checks AUTH.

RESP3: redis-py before 5.0 has no protocol=3; with such a version the RESP3
cases run on a raw socket instead and say so.

Each case uses its own keys (prefix per case) so the cases do not depend on
each other's data; every socket has a timeout so a hang is a failure, not a
stall.
"""

import datetime
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError, WatchError, AuthenticationError, ExecAbortError  # noqa: E402

TIMEOUT = 30  # s, per socket operation

R = None      # redis.Redis on db 0, bytes replies
RS = None     # redis.Redis on db 0, str replies
PORT = None


def client(**kw):
    kw.setdefault("socket_timeout", TIMEOUT)
    kw.setdefault("socket_connect_timeout", TIMEOUT)
    return redis.Redis(host="127.0.0.1", port=PORT, **kw)


def eq(got, want, what=""):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what or "value", got, want))


def expect_error(fn, message, exc=ResponseError):
    """fn() must raise exc whose str() is exactly message."""
    try:
        got = fn()
    except exc as e:
        eq(str(e), message, "error message")
        return
    raise AssertionError("no error raised (reply %r), want %s(%r)" % (got, exc.__name__, message))


# ---- strings ----

def t_string_commands():
    r = RS
    eq(r.set("s:a", "hello"), True)
    eq(r.get("s:a"), "hello")
    eq(r.get("s:missing"), None)
    eq(r.append("s:a", " world"), 11)
    eq(r.strlen("s:a"), 11)
    eq(r.getrange("s:a", 0, 4), "hello")
    eq(r.getrange("s:a", -5, -1), "world")
    eq(r.setrange("s:a", 6, "there"), 11)
    eq(r.get("s:a"), "hello there")
    eq(r.setrange("s:pad", 3, "x"), 4)
    eq(r.get("s:pad"), "\x00\x00\x00x")
    eq(r.incr("s:n"), 1)
    eq(r.incrby("s:n", 41), 42)
    eq(r.decr("s:n"), 41)
    eq(r.decrby("s:n", 50), -9)
    eq(r.incrbyfloat("s:f", 1.5), 1.5)
    eq(r.incrbyfloat("s:f", "2.25"), 3.75)
    eq(r.get("s:f"), "3.75")
    eq(r.mset({"s:m1": "1", "s:m2": "2", "s:m3": "3"}), True)
    eq(r.mget("s:m1", "s:m2", "s:nope", "s:m3"), ["1", "2", None, "3"])
    eq(r.msetnx({"s:m3": "x", "s:m4": "4"}), False)
    eq(r.get("s:m4"), None)
    eq(r.msetnx({"s:m4": "4", "s:m5": "5"}), True)
    eq(r.getset("s:m1", "one"), "1")
    eq(r.getdel("s:m2"), "2")
    eq(r.get("s:m2"), None)
    eq(r.setnx("s:m1", "no"), False)
    eq(r.setnx("s:nx", "yes"), True)
    eq(r.setex("s:ex", 100, "v"), True)
    eq(r.ttl("s:ex"), 100)
    eq(r.psetex("s:pex", 100000, "v"), True)
    ok_range(r.pttl("s:pex"), 99000, 100000, "pttl after psetex")
    eq(r.getex("s:ex", persist=True), "v")
    eq(r.ttl("s:ex"), -1)
    eq(r.getex("s:ex", px=5000), "v")
    ok_range(r.pttl("s:ex"), 4000, 5000, "pttl after getex px")
    eq(r.substr("s:a", 0, 4), "hello")
    eq(r.incrby("s:big", 9223372036854775806), 9223372036854775806)
    expect_error(lambda: r.incrby("s:big", 2), "increment or decrement would overflow")


def ok_range(v, lo, hi, what):
    if not (lo <= v <= hi):
        raise AssertionError("%s: %r not in [%r, %r]" % (what, v, lo, hi))


def t_set_options():
    r = RS
    now_ms = int(time.time() * 1000)
    eq(r.set("o:k", "v1", nx=True), True)
    eq(r.set("o:k", "v2", nx=True), None)
    eq(r.get("o:k"), "v1")
    eq(r.set("o:x", "v", xx=True), None)
    eq(r.exists("o:x"), 0)
    eq(r.set("o:k", "v2", xx=True), True)
    eq(r.get("o:k"), "v2")
    eq(r.set("o:k", "v3", ex=100), True)
    eq(r.ttl("o:k"), 100)
    eq(r.set("o:k", "v4", px=50000), True)
    ok_range(r.pttl("o:k"), 49000, 50000, "PX")
    eq(r.set("o:k", "v5", exat=now_ms // 1000 + 200), True)
    ok_range(r.ttl("o:k"), 198, 200, "EXAT")
    eq(r.set("o:k", "v6", pxat=now_ms + 300000), True)
    ok_range(r.pttl("o:k"), 290000, 300000, "PXAT")
    eq(r.set("o:k", "v7", keepttl=True), True)
    ok_range(r.pttl("o:k"), 290000, 300000, "KEEPTTL keeps the TTL")
    eq(r.set("o:k", "v8"), True)
    eq(r.ttl("o:k"), -1)
    eq(r.set("o:k", "v9", get=True), "v8")
    eq(r.set("o:new", "v", get=True), None)
    eq(r.set("o:k", "v10", nx=True, get=True), "v9")
    eq(r.get("o:k"), "v9")
    eq(r.set("o:k", "v11", xx=True, get=True, px=60000), "v9")
    eq(r.get("o:k"), "v11")
    ok_range(r.pttl("o:k"), 59000, 60000, "XX GET PX")
    eq(r.set("o:gone", "v", px=1), True)
    time.sleep(0.01)
    eq(r.get("o:gone"), None)
    expect_error(lambda: r.set("o:k", "v", ex=0), "invalid expire time in 'set' command")
    expect_error(lambda: r.set("o:k", "v", px=-5), "invalid expire time in 'set' command")
    expect_error(lambda: r.execute_command("SET", "o:k", "v", "EX", "x"), "value is not an integer or out of range")
    expect_error(lambda: r.execute_command("SET", "o:k", "v", "NX", "XX"), "syntax error")
    expect_error(lambda: r.execute_command("SET", "o:k", "v", "EX", "10", "PX", "10"), "syntax error")
    expect_error(lambda: r.execute_command("SET", "o:k", "v", "KEEPTTL", "EX", "10"), "syntax error")
    expect_error(lambda: r.execute_command("SET", "o:k", "v", "BOGUS"), "syntax error")
    eq(r.get("o:k"), "v11")


# ---- pipelines ----

def t_pipeline_transaction():
    r = R
    before = commandstat(r, "exec")
    n = 5000
    with r.pipeline(transaction=True) as p:
        for i in range(n):
            p.set("pt:%d" % i, i)
        for i in range(n):
            p.incr("pt:%d" % i)
        p.get("pt:%d" % (n - 1))
        res = p.execute()
    eq(len(res), 2 * n + 1, "number of results")
    eq(res[:n], [True] * n, "SET results")
    eq(res[n:2 * n], list(range(1, n + 1)), "INCR results")
    eq(res[-1], str(n).encode(), "last GET")
    # A failing command inside EXEC does not stop the others and is raised by execute().
    with r.pipeline(transaction=True) as p:
        p.set("pt:s", "abc").incr("pt:s").set("pt:after", "1")
        try:
            p.execute()
            raise AssertionError("execute() did not raise for INCR on a non-integer")
        except ResponseError as e:
            if "value is not an integer or out of range" not in str(e):
                raise
    eq(r.get("pt:after"), b"1", "the command after the failing one ran")
    with r.pipeline(transaction=True) as p:
        p.set("pt:s", "abc").incr("pt:s").set("pt:after2", "1")
        res = p.execute(raise_on_error=False)
    eq(res[0], True)
    eq(isinstance(res[1], ResponseError), True, "INCR result is an error")
    eq(res[2], True)
    eq(commandstat(r, "exec") - before, 3, "EXEC calls in INFO commandstats for three transactions")


def commandstat(r, name):
    stats = r.info("commandstats")
    return stats.get("cmdstat_" + name, {}).get("calls", 0)


def t_pipeline_plain():
    r = R
    before = commandstat(r, "multi")
    n = 10000
    with r.pipeline(transaction=False) as p:
        for i in range(n):
            p.set(b"pp:%d" % i, b"v%d" % i)
        for i in range(n):
            p.get(b"pp:%d" % i)
        p.strlen(b"pp:0")
        res = p.execute()
    eq(len(res), 2 * n + 1)
    eq(res[:n], [True] * n)
    eq(res[n:2 * n], [b"v%d" % i for i in range(n)])
    eq(res[-1], 2)
    eq(commandstat(r, "multi") - before, 0, "MULTI calls during a non-transactional pipeline")
    # An error reply in the middle of a plain pipeline leaves the rest intact.
    with r.pipeline(transaction=False) as p:
        p.set("pp:s", "x").incr("pp:s").get("pp:s")
        res = p.execute(raise_on_error=False)
    eq(res[0], True)
    eq(str(res[1]), "value is not an integer or out of range")
    eq(res[2], b"x")


def t_watch_contention():
    threads, per_thread = 8, 150
    R.set("w:counter", 0)
    retries = [0] * threads
    errors = []

    def worker(idx):
        try:
            r = client()

            def incr(pipe):
                v = int(pipe.get("w:counter"))
                pipe.multi()
                pipe.set("w:counter", v + 1)

            for _ in range(per_thread):
                while True:
                    try:
                        with r.pipeline(True) as pipe:
                            pipe.watch("w:counter")
                            incr(pipe)
                            pipe.execute()
                        break
                    except WatchError:
                        retries[idx] += 1
            # The same through redis-py's transaction() helper.
            for _ in range(per_thread):
                r.transaction(incr, "w:counter")
            r.close()
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    if any(t.is_alive() for t in ts):
        raise AssertionError("a worker thread did not finish in 120 s")
    if errors:
        raise AssertionError("worker errors: %s" % errors[:3])
    eq(int(R.get("w:counter")), threads * per_thread * 2, "final counter")


def t_watch_conflict():
    a, b = client(), client()
    a.set("wc:k", "1")
    with a.pipeline(True) as p:
        p.watch("wc:k")
        eq(p.get("wc:k"), b"1")
        b.set("wc:k", "2")
        p.multi()
        p.set("wc:k", "3")
        try:
            p.execute()
            raise AssertionError("EXEC succeeded although a watched key changed")
        except WatchError:
            pass
    eq(a.get("wc:k"), b"2")
    # Unchanged key: EXEC runs. A key expiring while watched aborts (Redis 7).
    with a.pipeline(True) as p:
        p.watch("wc:k")
        p.multi()
        p.set("wc:k", "4")
        eq(p.execute(), [True])
    a.set("wc:t", "v", px=50)
    with a.pipeline(True) as p:
        p.watch("wc:t")
        time.sleep(0.1)
        p.multi()
        p.set("wc:t", "new")
        try:
            p.execute()
            raise AssertionError("EXEC succeeded although a watched key expired")
        except WatchError:
            pass
    # Deleting a watched key from another connection aborts too.
    a.set("wc:d", "v")
    with a.pipeline(True) as p:
        p.watch("wc:d")
        b.delete("wc:d")
        p.multi()
        p.set("wc:d", "x")
        try:
            p.execute()
            raise AssertionError("EXEC succeeded although a watched key was deleted")
        except WatchError:
            pass
    # MULTI with a queue-time error: EXECABORT.
    expect_error(lambda: raw_multi_with_bad_arity(a), "Transaction discarded because of previous errors.",
                 ExecAbortError)
    a.close()
    b.close()


def raw_multi_with_bad_arity(r):
    conn = r.connection_pool.get_connection("MULTI")
    try:
        conn.send_command("MULTI")
        eq(conn.read_response(), b"OK")
        conn.send_command("SET", "only-key")
        try:
            conn.read_response()
            raise AssertionError("SET with one argument was queued")
        except ResponseError as e:
            eq(str(e), "wrong number of arguments for 'set' command")
        conn.send_command("EXEC")
        return conn.read_response()
    finally:
        conn.disconnect()
        r.connection_pool.release(conn)


# ---- keys ----

def t_scan_iter():
    r = client(db=2)
    r.flushdb()
    n = 10000
    want = set()
    with r.pipeline(transaction=False) as p:
        for i in range(n):
            k = b"scan:%d" % i
            want.add(k)
            p.set(k, i)
        for i in range(100):
            p.set(b"other:%d" % i, i)
        p.execute()
    eq(r.dbsize(), n + 100, "dbsize")
    got = list(r.scan_iter(match="scan:*", count=100))
    eq(set(got) == want, True, "SCAN MATCH returned exactly the keys (missing %d, extra %d)"
       % (len(want - set(got)), len(set(got) - want)))
    got_all = list(r.scan_iter(count=1000))
    eq(len(set(got_all)), n + 100, "SCAN without MATCH saw every key")
    got_type = list(r.scan_iter(match="other:*", _type="string"))
    eq(len(set(got_type)), 100, "SCAN TYPE string")
    eq(list(r.scan_iter(_type="list")), [], "SCAN TYPE list")
    # Keys written during the scan do not make it lose the old ones.
    seen = set()
    for i, k in enumerate(r.scan_iter(match="scan:*", count=50)):
        seen.add(k)
        if i % 100 == 0:
            r.set(b"new:%d" % i, 1)
    eq(want - seen, set(), "keys missed while the keyspace grew")
    # Keys present for the whole scan are returned although the table shrinks under it.
    with r.pipeline(transaction=False) as p:
        for i in range(30000):
            p.set(b"tmp:%d" % i, 1)
        p.execute()
    seen, cur, step, gone = set(), 0, 0, 0
    while True:
        cur, keys = r.scan(cur, match="scan:*", count=50)
        seen.update(keys)
        step += 1
        if step % 3 == 0 and gone < 30000:
            r.delete(*[b"tmp:%d" % j for j in range(gone, gone + 3000)])
            gone += 3000
        if cur == 0:
            break
    eq(want - seen, set(), "keys missed while the keyspace shrank")
    cur, keys = r.scan(0, count=10)
    if not (isinstance(cur, int) and len(keys) >= 1):
        raise AssertionError("SCAN 0 COUNT 10 gave %r, %r" % (cur, keys))
    expect_error(lambda: r.scan("x"), "invalid cursor")
    eq(len(r.keys("scan:1*")), 1 + 10 + 100 + 1000, "KEYS scan:1*")
    r.flushdb()
    eq(r.dbsize(), 0)
    r.close()


def t_key_commands():
    r = RS
    r.set("k:a", "1")
    r.set("k:b", "2")
    eq(r.exists("k:a", "k:b", "k:none", "k:a"), 3)
    eq(r.type("k:a"), "string")
    eq(r.type("k:none"), "none")
    eq(r.delete("k:a", "k:none"), 1)
    eq(r.unlink("k:b"), 1)
    eq(r.exists("k:a", "k:b"), 0)
    r.set("k:r", "v", ex=100)
    eq(r.rename("k:r", "k:r2"), True)
    eq(r.get("k:r2"), "v")
    eq(r.ttl("k:r2"), 100, "RENAME keeps the TTL")
    r.set("k:r3", "x")
    eq(r.renamenx("k:r2", "k:r3"), False)
    expect_error(lambda: r.rename("k:none", "k:z"), "no such key")
    eq(r.copy("k:r2", "k:c"), True)
    eq(r.get("k:c"), "v")
    eq(r.copy("k:r2", "k:c"), False)
    eq(r.copy("k:r2", "k:c", replace=True), True)
    eq(r.touch("k:c", "k:r2", "k:none"), 2)
    eq(r.object("encoding", "k:r3"), "embstr")
    r.set("k:int", 12345)
    eq(r.object("encoding", "k:int"), "int")
    r.set("k:ra", "x" * 100)
    eq(r.object("encoding", "k:ra"), "raw")
    eq(r.move("k:int", 5), True)
    eq(r.exists("k:int"), 0)
    eq(client(db=5).get("k:int"), b"12345")
    eq(r.randomkey() is not None, True, "RANDOMKEY gives a key")
    if r.dbsize() < 1:
        raise AssertionError("DBSIZE below 1")


def t_expiry_ms():
    r = R
    r.set("e:k", "v")
    eq(r.pttl("e:k"), -1)
    eq(r.pttl("e:none"), -2)
    eq(r.ttl("e:none"), -2)
    eq(r.pexpire("e:k", 1500), True)
    ok_range(r.pttl("e:k"), 1400, 1500, "PTTL after PEXPIRE 1500")
    eq(r.pexpire("e:k", 1800), True)
    eq(r.ttl("e:k"), 2, "TTL rounds to the nearest second like Redis (1800 ms -> 2 s)")
    eq(r.expire("e:k", 100), True)
    ok_range(r.pttl("e:k"), 99000, 100000, "PTTL after EXPIRE 100")
    eq(r.persist("e:k"), True)
    eq(r.persist("e:k"), False)
    eq(r.pttl("e:k"), -1)
    at = int(time.time() * 1000) + 60000
    eq(r.pexpireat("e:k", at), True)
    eq(r.pexpiretime("e:k"), at)
    eq(r.expiretime("e:k"), (at + 500) // 1000, "EXPIRETIME rounds to the nearest second")
    eq(r.expireat("e:k", at // 1000 + 10), True)
    eq(r.expiretime("e:k"), at // 1000 + 10)
    eq(r.pexpiretime("e:k"), (at // 1000 + 10) * 1000)
    # NX / XX / GT / LT options (Redis 7).
    r.set("e:o", "v")
    eq(r.expire("e:o", 100, xx=True), False)
    eq(r.expire("e:o", 100, nx=True), True)
    eq(r.expire("e:o", 200, nx=True), False)
    eq(r.expire("e:o", 50, gt=True), False)
    eq(r.expire("e:o", 200, gt=True), True)
    eq(r.expire("e:o", 300, lt=True), False)
    eq(r.expire("e:o", 10, lt=True), True)
    eq(r.ttl("e:o"), 10)
    expect_error(lambda: r.execute_command("EXPIRE", "e:o", "10", "NX", "XX"),
                 "NX and XX, GT or LT options at the same time are not compatible")
    # Short expiries are honoured within a few milliseconds.
    r.set("e:short", "v", px=100)
    time.sleep(0.05)
    eq(r.get("e:short"), b"v", "key still there at 50 ms of 100")
    time.sleep(0.1)
    eq(r.get("e:short"), None, "key gone after 150 ms of 100")
    eq(r.exists("e:short"), 0)
    # A past expiry deletes at once; active expiry removes unread keys.
    r.set("e:past", "v")
    eq(r.pexpireat("e:past", 1), True)
    eq(r.exists("e:past"), 0)
    db = client(db=7)
    db.flushdb()
    with db.pipeline(transaction=False) as p:
        for i in range(1000):
            p.set("e:act:%d" % i, "v", px=20)
        p.execute()
    deadline = time.monotonic() + 5
    while db.dbsize() > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    eq(db.dbsize(), 0, "keys left by active expiry after 5 s")
    eq(db.info("keyspace").get("db7"), None, "db7 gone from INFO keyspace")
    db.close()


# ---- values ----

def t_binary_values():
    r = R
    allbytes = bytes(range(256))
    eq(r.set(b"bin:v", allbytes), True)
    eq(r.get(b"bin:v"), allbytes)
    eq(r.strlen(b"bin:v"), 256)
    eq(r.getrange(b"bin:v", 10, 13), bytes([10, 11, 12, 13]))
    eq(r.set(allbytes, b"key with every byte"), True)
    eq(r.get(allbytes), b"key with every byte")
    eq(r.exists(allbytes), 1)
    with r.pipeline(transaction=False) as p:
        for b in range(256):
            p.set(b"bin1:" + bytes([b]), bytes([b]) * (b + 1))
        p.execute()
    vals = r.mget([b"bin1:" + bytes([b]) for b in range(256)])
    eq(vals, [bytes([b]) * (b + 1) for b in range(256)], "256 one-byte keys")
    eq(r.append(b"bin:v", b"\r\n\x00$-1\r\n"), 256 + 8)
    eq(r.get(b"bin:v"), allbytes + b"\r\n\x00$-1\r\n")
    eq(r.echo(allbytes), allbytes)


def t_big_values():
    r = R
    size = 10 * 1024 * 1024
    rnd = os.urandom(size)
    eq(r.set("big:rnd", rnd), True)
    eq(r.strlen("big:rnd"), size)
    eq(r.get("big:rnd") == rnd, True, "10 MB random value round trip")
    eq(r.getrange("big:rnd", size - 10, -1), rnd[-10:])
    text = b"".join(b"agent memory line %d\n" % i for i in range(size // 20))[:size]
    eq(r.set("big:txt", text), True)
    eq(r.get("big:txt") == text, True, "10 MB compressible value round trip")
    mid = size // 2 + 12345
    eq(r.getrange("big:txt", mid, mid + 99), text[mid:mid + 100])
    eq(r.setrange("big:txt", mid, b"PATCH"), size)
    eq(r.getrange("big:txt", mid - 2, mid + 6), text[mid - 2:mid] + b"PATCH" + text[mid + 5:mid + 7])
    eq(r.append("big:txt", b"tail"), size + 4)
    got = r.get("big:txt")
    eq(got[-4:], b"tail")
    eq(got[:mid], text[:mid])
    eq(r.getset("big:rnd", b"small") == rnd, True, "GETSET returns the 10 MB value")
    with r.pipeline(transaction=False) as p:
        for i in range(3):
            p.set("big:p%d" % i, rnd)
        for i in range(3):
            p.get("big:p%d" % i)
        res = p.execute()
    eq(all(x == rnd for x in res[3:]), True, "three 10 MB values in one pipeline")
    r.delete("big:p0", "big:p1", "big:p2", "big:txt")


def t_incrbyfloat_format():
    r = RS
    # Redis prints INCRBYFLOAT results with "%.17Lf" (trailing zeros cut), never an exponent.
    eq(r.set("s:hf", "0"), True)
    r.incrbyfloat("s:hf", str(2 ** 200))
    eq(r.get("s:hf"), str(2 ** 200), "INCRBYFLOAT by 2^200 is stored in full decimal")
    r.set("s:hf", "1e-5")
    r.incrbyfloat("s:hf", "0")
    eq(r.get("s:hf"), "0.00001")


def t_exec_rejected():
    a = R
    # EXEC itself rejected (wrong arity) inside MULTI discards the transaction, as Redis 7.
    conn = a.connection_pool.get_connection("MULTI")
    try:
        conn.send_command("MULTI")
        eq(conn.read_response(), b"OK")
        conn.send_command("SET", "wc:never", "1")
        eq(conn.read_response(), b"QUEUED")
        conn.send_command("EXEC", "extra")
        expect_error(conn.read_response,
                     "Transaction discarded because of: wrong number of arguments for 'exec' command", ExecAbortError)
        conn.send_command("DISCARD")
        expect_error(conn.read_response, "DISCARD without MULTI")
    finally:
        conn.disconnect()  # whatever state a failure left it in stays out of the pool
        a.connection_pool.release(conn)
    eq(a.exists("wc:never"), 0, "nothing of the aborted transaction ran")


def t_client_cmd_field():
    r = client(decode_responses=True, single_connection_client=True)
    cid = r.client_id()
    mine = [c for c in r.client_list() if int(c["id"]) == cid]
    eq(mine[0]["cmd"], "client|list", "cmd= of the calling client in CLIENT LIST")
    eq(r.client_info()["cmd"], "client|info", "cmd= in CLIENT INFO")
    r.close()


# ---- connections ----

def t_pool_threads():
    nconn = 100
    pool = redis.ConnectionPool(host="127.0.0.1", port=PORT, max_connections=nconn,
                                socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    r = redis.Redis(connection_pool=pool)
    r.set("pool:counter", 0)
    held = threading.Barrier(nconn + 1)
    done = threading.Barrier(nconn + 1)
    errors = []

    def worker(i):
        conn = None
        try:
            conn = pool.get_connection("PING")
            conn.send_command("CLIENT", "SETNAME", "pool-%d" % i)
            eq(conn.read_response(), b"OK")
            held.wait(60)
            done.wait(60)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))
            held.abort()
            done.abort()
        finally:
            if conn is not None:
                pool.release(conn)
        try:
            for j in range(100):
                r.incr("pool:counter")
                r.set("pool:%d:%d" % (i, j), j)
            eq(r.get("pool:%d:99" % i), b"99")
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(nconn)]
    for t in ts:
        t.start()
    try:
        held.wait(60)
        other = client()
        names = [c.get("name") for c in other.client_list()]
        pooled = sum(1 for n in names if n and n.startswith("pool-"))
        connected = other.info("clients")["connected_clients"]
        other.close()
        done.wait(60)
    except threading.BrokenBarrierError:
        pooled = connected = -1
    except BaseException:
        held.abort()
        done.abort()
        raise
    finally:
        for t in ts:
            t.join(120)
    if errors:
        raise AssertionError("worker errors: %s" % errors[:3])
    eq(pooled, nconn, "clients named pool-* in CLIENT LIST while all were held")
    if connected < nconn + 1:
        raise AssertionError("connected_clients %d < %d" % (connected, nconn + 1))
    eq(int(r.get("pool:counter")), nconn * 100, "counter after 100 threads x 100 INCR")
    pool.disconnect()


def t_client_commands():
    r = client(decode_responses=True, single_connection_client=True)
    other = client(decode_responses=True, single_connection_client=True)
    cid = r.client_id()
    eq(isinstance(cid, int) and cid > 0, True, "CLIENT ID is a positive integer")
    eq(r.client_getname(), None)
    eq(r.client_setname("agent-7"), True)
    eq(r.client_getname(), "agent-7")
    mine = [c for c in r.client_list() if int(c["id"]) == cid]
    eq(len(mine), 1, "own entry in CLIENT LIST")
    eq(mine[0]["name"], "agent-7")
    eq(mine[0]["db"], "0")
    for field in ("addr", "laddr", "fd", "age", "idle", "flags", "cmd", "resp"):
        if field not in mine[0]:
            raise AssertionError("CLIENT LIST lacks field %s: %r" % (field, mine[0]))
    eq(len(r.client_list(client_id=[str(cid)])), 1, "CLIENT LIST ID")
    info = r.client_info()
    eq(int(info["id"]), cid)
    eq(info["name"], "agent-7")
    expect_error(lambda: r.client_setname("has space"),
                 "Client names cannot contain spaces, newlines or special characters.")
    eq(r.select(3), True)
    eq(str(r.client_info()["db"]), "3")
    oid = other.client_id()
    eq(r.client_kill_filter(_id=oid), 1)
    try:
        other.ping()
        raise AssertionError("a killed client could still PING")
    except redis.ConnectionError:
        pass
    eq(r.execute_command("RESET"), "RESET")
    eq(r.client_getname(), None)
    eq(str(r.client_info()["db"]), "0")
    eq(r.ping(), True)
    eq(r.echo("hi"), "hi")
    r.close()
    other.close()


def t_info():
    r = RS
    info = r.info()
    eq(info["loading"], 0)
    for k in ("redis_version", "tcp_port", "uptime_in_seconds", "connected_clients", "used_memory",
              "total_commands_processed", "keyspace_hits"):
        if k not in info:
            raise AssertionError("INFO lacks %s" % k)
    eq(info["tcp_port"], PORT)
    eq(str(info["redis_version"]).startswith("7."), True, "redis_version is 7.x")
    r.set("i:k", "v", ex=1000)
    ks = r.info("keyspace")
    if not isinstance(ks.get("db0"), dict) or ks["db0"]["keys"] < 1 or ks["db0"]["expires"] < 1:
        raise AssertionError("INFO keyspace db0: %r" % ks.get("db0"))
    eq(ks["db0"]["keys"], r.dbsize(), "INFO keyspace keys == DBSIZE")
    eq(set(r.info("server").keys()) & {"redis_version", "process_id", "tcp_port"},
       {"redis_version", "process_id", "tcp_port"})
    eq(r.info("server")["process_id"] > 0, True, "process_id")
    mem = r.info("memory")
    eq(mem["used_memory"] > 0, True, "used_memory")
    eq(r.info("nosuchsection"), {})
    stats = r.info("stats")
    eq("keyspace_hits" in stats and "keyspace_misses" in stats, True, "hits/misses in INFO stats")
    eq(isinstance(r.lastsave(), datetime.datetime), True, "LASTSAVE gives a time")
    eq(isinstance(r.time()[0], int), True, "TIME seconds")
    ok_range(r.time()[0], int(time.time()) - 5, int(time.time()) + 5, "TIME close to now")
    eq(r.dbsize() >= 1, True)
    allinfo = r.info("all")
    eq("cmdstat_info" in allinfo, True, "INFO all has commandstats")
    eq(allinfo["cmdstat_info"]["calls"] >= 1, True, "INFO calls counted")


def t_config():
    r = RS
    eq(r.config_get("hz"), {"hz": "10"})
    eq(r.config_set("hz", 20), True)
    eq(r.config_get("hz"), {"hz": "20"})
    eq(r.config_set("maxmemory", "100mb"), True)
    eq(r.config_get("maxmemory"), {"maxmemory": "104857600"})
    eq(r.config_set("maxmemory", 0), True)
    allcfg = r.config_get("*")
    for k in ("port", "bind", "databases", "maxclients", "timeout", "maxmemory-policy"):
        if k not in allcfg:
            raise AssertionError("CONFIG GET * lacks %s" % k)
    eq(allcfg["port"], str(PORT))
    eq(allcfg["databases"], "16")
    eq(r.config_get("max*").keys() >= {"maxmemory", "maxclients", "maxmemory-policy"}, True, "glob max*")
    eq(r.execute_command("CONFIG", "SET", "hz", "15", "timeout", "0"), "OK")
    eq(r.config_get("hz"), {"hz": "15"})
    r.config_set("hz", 10)
    expect_error(lambda: r.config_set("nosuch", 1), "Unknown option or number of arguments for CONFIG SET - 'nosuch'")
    expect_error(lambda: r.config_set("maxmemory", "abc"),
                 "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value")
    expect_error(lambda: r.execute_command("CONFIG", "GET"), "wrong number of arguments for 'config|get' command")
    eq(r.config_resetstat(), True)
    eq(r.info("commandstats").get("cmdstat_set"), None, "commandstats cleared")


def t_select_swapdb():
    a = client(db=0, decode_responses=True)
    b = client(db=3, decode_responses=True)
    c = client(db=4, decode_responses=True)
    b.flushdb()
    c.flushdb()
    b.set("sw:k", "in3")
    eq(a.get("sw:k"), None, "db 0 does not see db 3's key")
    eq(b.swapdb(3, 4), True)
    eq(b.get("sw:k"), None, "db 3 empty after SWAPDB")
    eq(c.get("sw:k"), "in3", "db 4 has the key after SWAPDB")
    expect_error(lambda: a.swapdb(0, 99), "DB index is out of range")
    expect_error(lambda: a.execute_command("SELECT", "99"), "DB index is out of range")
    expect_error(lambda: a.execute_command("SELECT", "x"), "value is not an integer or out of range")
    # SELECT on one connection changes the db for that connection only.
    s = client(single_connection_client=True, decode_responses=True)
    eq(s.select(4), True)
    eq(s.get("sw:k"), "in3")
    eq(s.select(0), True)
    eq(s.get("sw:k"), None)
    for x in (a, b, c, s):
        x.close()


def t_errors():
    r = RS
    expect_error(lambda: r.execute_command("GET"), "wrong number of arguments for 'get' command")
    expect_error(lambda: r.execute_command("SET", "x"), "wrong number of arguments for 'set' command")
    expect_error(lambda: r.execute_command("FOOBAR", "a", "b"),
                 "unknown command 'FOOBAR', with args beginning with: 'a' 'b' ")
    expect_error(lambda: r.execute_command("FOOBAR"), "unknown command 'FOOBAR', with args beginning with: ")
    r.set("er:s", "abc")
    expect_error(lambda: r.incr("er:s"), "value is not an integer or out of range")
    expect_error(lambda: r.incrbyfloat("er:s", 1), "value is not a valid float")
    expect_error(lambda: r.execute_command("OBJECT", "FOO"), "unknown subcommand 'FOO'. Try OBJECT HELP.")
    expect_error(lambda: r.execute_command("CLIENT", "FOO"), "unknown subcommand 'FOO'. Try CLIENT HELP.")
    expect_error(lambda: r.execute_command("SETEX", "k", "-1", "v"), "invalid expire time in 'setex' command")
    expect_error(lambda: r.execute_command("GETEX", "er:s", "EX", "0"), "invalid expire time in 'getex' command")
    expect_error(lambda: r.execute_command("MULTI", "x"), "wrong number of arguments for 'multi' command")
    expect_error(lambda: r.execute_command("EXEC"), "EXEC without MULTI")
    expect_error(lambda: r.execute_command("DISCARD"), "DISCARD without MULTI")
    expect_error(lambda: r.execute_command("AUTH", "pw"),
                 "AUTH <password> called without any password configured for the default user. "
                 "Are you sure your configuration is correct?")
    eq(r.get("er:s"), "abc", "the connection is still usable after the errors")


def has_command(name):
    """Whether the server knows the command (an unknown one is an error reply)."""
    try:
        RS.execute_command(name)
    except ResponseError as e:
        return not str(e).startswith("unknown command")
    return True


def make_non_string(key):
    """Create key holding a value that is not a string: a scratchpad (SP.WRITE)
    on Scratchpad, a list on Redis. False if the server has neither."""
    if has_command("SP.WRITE"):
        RS.execute_command("SP.WRITE", key, "notes.md", "hello")
        return True
    if has_command("LPUSH"):
        RS.execute_command("LPUSH", key, "hello")
        return True
    return False


def t_wrongtype():
    r = RS
    wt = "WRONGTYPE Operation against a key holding the wrong kind of value"
    eq(make_non_string("wt:l"), True, "a non-string value was created")
    for fn in (lambda: r.get("wt:l"), lambda: r.incr("wt:l"), lambda: r.incrbyfloat("wt:l", 1),
               lambda: r.append("wt:l", "x"), lambda: r.strlen("wt:l"), lambda: r.getrange("wt:l", 0, 1),
               lambda: r.setrange("wt:l", 0, "x"), lambda: r.getset("wt:l", "x"), lambda: r.getdel("wt:l"),
               lambda: r.getex("wt:l", ex=10), lambda: r.set("wt:l", "x", get=True)):
        expect_error(fn, wt)
    eq(r.mget("wt:l", "wt:none"), [None, None], "MGET answers nil for a key of another type")
    eq(r.setnx("wt:l", "x"), False)
    eq(r.exists("wt:l"), 1, "the key survived every refused command")
    eq(r.set("wt:l", "plain"), True, "SET replaces a value of another type")
    eq(r.get("wt:l"), "plain")
    eq(r.type("wt:l"), "string")
    eq(make_non_string("wt:l2"), True)
    with r.pipeline(transaction=True) as p:
        p.incr("wt:l2").set("wt:after", "1")
        res = p.execute(raise_on_error=False)
    eq(str(res[0]), wt, "WRONGTYPE inside EXEC")
    eq(res[1], True)


# ---- RESP3 and AUTH ----

def read_reply(f):
    """Parse one RESP2/RESP3 reply from a binary file object (tiny, for tests)."""
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise AssertionError("truncated reply %r" % line)
    t, rest = line[:1], line[1:-2]
    if t in (b"+", b"-", b"(", b","):
        return (t, rest)
    if t == b":":
        return int(rest)
    if t == b"_":
        return None
    if t == b"#":
        return rest == b"t"
    if t in (b"$", b"="):
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return (t, data) if t == b"=" else data
    if t in (b"*", b"~", b">"):
        n = int(rest)
        return None if n < 0 else [read_reply(f) for _ in range(n)]
    if t == b"%":
        n = int(rest)
        return {read_reply(f): read_reply(f) for _ in range(n)}
    raise AssertionError("unknown reply type %r" % line)


def t_resp3_raw():
    with socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT) as s:
        f = s.makefile("rb")

        def cmd(*args):
            out = b"*%d\r\n" % len(args)
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(out)
            return read_reply(f)

        hello = cmd("HELLO", "3")
        eq(isinstance(hello, dict), True, "HELLO 3 answers a map")
        eq(hello[b"proto"], 3)
        eq(hello[b"server"], b"redis")
        eq(cmd("GET", "r3:none"), None)
        eq(cmd("SET", "r3:k", "v"), (b"+", b"OK"))
        eq(cmd("GET", "r3:k"), b"v")
        eq(cmd("INCRBYFLOAT", "r3:f", "1.5"), b"1.5")
        info = cmd("CLIENT", "INFO")
        eq(info[0], b"=", "CLIENT INFO is a verbatim string in RESP3")
        eq(info[1].startswith(b"txt:id="), True, "verbatim format txt")
        cfg = cmd("CONFIG", "GET", "hz")
        eq(cfg, {b"hz": b"10"}, "CONFIG GET is a map in RESP3")
        eq(cmd("EXISTS", "r3:k"), 1)
        hello2 = cmd("HELLO", "2")
        eq(isinstance(hello2, list) and len(hello2) == 14, True, "HELLO 2 answers a flat array of 14")
        eq(dict(zip(hello2[::2], hello2[1::2]))[b"proto"], 2)
        eq(cmd("GET", "r3:none"), None)
        eq(cmd("CONFIG", "GET", "hz"), [b"hz", b"10"], "CONFIG GET is a flat array again in RESP2")


def t_auth():
    with spserver.Server("--requirepass", "s3cret") as srv:
        noauth = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
        expect_error(lambda: noauth.get("a"), "Authentication required.", AuthenticationError)
        wrong = redis.Redis(host="127.0.0.1", port=srv.port, password="nope", socket_timeout=TIMEOUT)
        expect_error(lambda: wrong.get("a"), "WRONGPASS invalid username-password pair or user is disabled.")
        good = redis.Redis(host="127.0.0.1", port=srv.port, password="s3cret", socket_timeout=TIMEOUT)
        eq(good.set("a", "1"), True)
        eq(good.get("a"), b"1")
        user = redis.Redis(host="127.0.0.1", port=srv.port, username="default", password="s3cret",
                           socket_timeout=TIMEOUT)
        eq(user.get("a"), b"1")
        for x in (noauth, wrong, good, user):
            x.close()


def main():
    global R, RS, PORT
    rep = spserver.Reporter()
    print("# redis-py %s" % redis.__version__)
    try:
        srv = spserver.Server().start()
    except Exception as e:  # noqa: BLE001
        rep.fail("the server starts and answers PING", e)
        rep.finish()
    try:
        PORT = srv.port
        R = client()
        RS = client(decode_responses=True)
        rep.case("strings: GET/SET/APPEND/GETRANGE/SETRANGE/INCR*/MSET*/GETSET/GETDEL/GETEX work as Redis",
                 t_string_commands)
        rep.case("SET with NX, XX, EX, PX, EXAT, PXAT, KEEPTTL and GET behaves as Redis 7", t_set_options)
        rep.case("INCRBYFLOAT results are written in full decimal as Redis does, never with an exponent",
                 t_incrbyfloat_format)
        rep.case("a transactional pipeline of 10k commands runs in one MULTI/EXEC", t_pipeline_transaction)
        rep.case("a plain pipeline of 20k commands answers every command in order", t_pipeline_plain)
        rep.case("WATCH/MULTI/EXEC aborts when a watched key is changed, deleted or expires", t_watch_conflict)
        rep.case("EXEC rejected for its arity inside MULTI discards the transaction with EXECABORT",
                 t_exec_rejected)
        rep.case("8 threads incrementing one counter with WATCH and transaction() reach the exact total",
                 t_watch_contention)
        rep.case("scan_iter over 10k keys returns every key, with MATCH, COUNT and TYPE", t_scan_iter)
        rep.case("generic key commands (EXISTS, TYPE, DEL, RENAME, COPY, TOUCH, OBJECT, MOVE) work",
                 t_key_commands)
        rep.case("expiry has millisecond precision (PEXPIRE, PTTL, EXPIRETIME, NX/XX/GT/LT, active expiry)",
                 t_expiry_ms)
        rep.case("values and keys with all 256 byte values round-trip", t_binary_values)
        rep.case("10 MB values (random and compressible) round-trip, with ranges and appends", t_big_values)
        rep.case("100 pooled connections used by 100 threads all connect and count exactly", t_pool_threads)
        rep.case("CLIENT ID/SETNAME/GETNAME/LIST/INFO/KILL and RESET work through redis-py", t_client_commands)
        rep.case("CLIENT LIST and CLIENT INFO show the running command as the caller's cmd=", t_client_cmd_field)
        rep.case("INFO parses in redis-py with loading:0 and the usual fields", t_info)
        rep.case("CONFIG GET/SET/RESETSTAT work through redis-py", t_config)
        rep.case("SELECT and SWAPDB move data between databases", t_select_swapdb)
        rep.case("errors raise ResponseError with Redis's exact messages", t_errors)
        try:
            non_string = has_command("SP.WRITE") or has_command("LPUSH")
        except redis.RedisError as e:
            rep.fail("the server answers whether it has SP.WRITE or LPUSH", repr(e))
            non_string = None
        if non_string:
            rep.case("string commands on a key of another type raise WRONGTYPE with Redis's message",
                     t_wrongtype)
        elif non_string is False:
            rep.skip("WRONGTYPE errors carry Redis's message", "no command creates a non-string value")
        if "protocol" in redis.Redis.__init__.__code__.co_varnames:
            rep.case("redis-py with protocol=3 runs the string commands", t_resp3_redis_py)
        else:
            rep.skip("redis-py with protocol=3", "redis-py %s has no RESP3 support" % redis.__version__)
        rep.case("RESP3 on a raw socket: HELLO 3 map, null, verbatim CLIENT INFO, CONFIG map", t_resp3_raw)
        rep.case("AUTH with requirepass: redis-py without, with a wrong and with the right password",
                 t_auth)
        rep.case("the server is still running after all the cases", lambda: eq(srv.alive(), True))
        R.close()
        RS.close()
    finally:
        status = srv.stop()
        if status != 0:
            rep.fail("the server exits cleanly on SIGTERM", "exit status %r\n%s" % (status, srv.log_tail()))
    rep.finish()


def t_resp3_redis_py():
    r = client(protocol=3, decode_responses=True)
    eq(r.set("p3:k", "v", px=100000), True)
    eq(r.get("p3:k"), "v")
    eq(r.get("p3:none"), None)
    eq(r.incrbyfloat("p3:f", 2.5), 2.5)
    eq(r.config_get("hz"), {"hz": "10"})
    with r.pipeline(transaction=True) as p:
        p.set("p3:a", 1).incr("p3:a")
        eq(p.execute(), [True, 2])
    r.close()


if __name__ == "__main__":
    main()
