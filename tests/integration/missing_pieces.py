"""missing_pieces.py -- CLIENT PAUSE / UNPAUSE / NO-EVICT, DEBUG ERROR, LOLWUT,
OBJECT IDLETIME / FREQ and multi-parameter CONFIG GET/SET, each checked against
Debian's redis-server 7.0.15 started beside Scratchpad.

Exact replies are compared byte for byte (errors, COMMAND INFO rows); the
pause's timing is compared by what each server does while paused: which
commands wait, and that they run, in order, when the pause ends. Every server
runs on a free port in a temporary directory and is stopped by its PID; every
socket has a timeout, so a hang is a failure.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from difftest import RedisServer  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402


def raw(port, *args):
    c = Conn(port, read_timeout=5)
    try:
        c.send(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
        return c.read_reply()[0]
    finally:
        c.close()


def same(ports, *args):
    r, s = raw(ports[0], *args), raw(ports[1], *args)
    assert r == s, "%r: redis %r, scratchpad %r" % (args, r, s)


def replies_as_redis(ports):
    for args in (("DEBUG", "ERROR", "hello"), ("DEBUG", "ERROR", "-FOO bar"), ("DEBUG", "ERROR", ""),
                 ("DEBUG", "ERROR"), ("DEBUG", "ERROR", "a", "b"),
                 ("LOLWUT",), ("LOLWUT", "VERSION", "7"), ("LOLWUT", "VERSION", "x"), ("LOLWUT", "VERSION"),
                 ("LOLWUT", "foo", "bar"),
                 ("CLIENT", "PAUSE", "10", "foo"), ("CLIENT", "PAUSE", "abc", "foo"), ("CLIENT", "PAUSE", "abc"),
                 ("CLIENT", "PAUSE", "1.5"), ("CLIENT", "PAUSE", "-1"), ("CLIENT", "PAUSE", "10", "write", "x"),
                 ("CLIENT", "PAUSE"), ("CLIENT", "UNPAUSE", "x"), ("CLIENT", "UNPAUSE"),
                 ("CLIENT", "NO-EVICT", "maybe"), ("CLIENT", "NO-EVICT", "on"), ("CLIENT", "NO-EVICT", "OFF"),
                 ("CLIENT", "NO-EVICT"),
                 ("COMMAND", "INFO", "lolwut", "client|pause", "client|unpause", "client|no-evict", "object|freq",
                  "object|idletime", "object|help", "debug")):
        same(ports, *args)


def object_clock_as_redis(ports):
    """OBJECT FREQ / IDLETIME on keys holding strings that are not small
    integers (Redis shares the objects of 0..9999 among keys when maxmemory is
    0, so their clock is everyone's)."""
    # lfu-log-factor 0 makes every access count: with the default 10 an access
    # past the fifth increments only with probability 1/(10*(counter-5)+1),
    # and two servers' dice need not agree.
    script = [("FLUSHALL",), ("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"),
              ("CONFIG", "SET", "lfu-log-factor", "0"), ("SET", "s", "hello"),
              ("OBJECT", "FREQ", "s"), ("GET", "s"), ("OBJECT", "FREQ", "s"), ("GET", "s"), ("GET", "s"),
              ("OBJECT", "FREQ", "s"), ("SET", "s", "world"),
              ("OBJECT", "FREQ", "s"), ("TYPE", "s"), ("EXISTS", "s"), ("TTL", "s"), ("OBJECT", "FREQ", "s"),
              ("HSET", "h", "f", "v"), ("OBJECT", "FREQ", "h"), ("OBJECT", "IDLETIME", "h"),
              ("OBJECT", "FREQ", "nosuch"), ("OBJECT", "IDLETIME", "nosuch"),
              ("CONFIG", "SET", "maxmemory-policy", "volatile-lru"), ("SET", "t", "abc"),
              ("OBJECT", "IDLETIME", "t"), ("OBJECT", "FREQ", "t"),
              ("CONFIG", "SET", "maxmemory-samples", "0"), ("CONFIG", "SET", "maxmemory-policy", "lru"),
              ("CONFIG", "SET", "lfu-log-factor", "-1"), ("CONFIG", "SET", "lfu-decay-time", "x"),
              ("CONFIG", "SET", "maxmemory-policy", "volatile-ttl", "maxmemory-samples", "7", "lfu-log-factor", "3",
               "lfu-decay-time", "2"),
              ("CONFIG", "SET", "hz", "20", "maxmemory-policy", "bogus"), ("CONFIG", "GET", "hz"),
              ("CONFIG", "SET", "lfu-decay-time", "5", "maxmemory-samples", "-3"), ("CONFIG", "GET", "lfu-decay-time"),
              ("CONFIG", "GET", "maxmemory-policy"), ("CONFIG", "GET", "maxmemory-samples"),
              ("CONFIG", "GET", "lfu-log-factor"), ("CONFIG", "GET", "lfu-decay-time"),
              ("CONFIG", "SET", "maxmemory-policy", "noeviction", "maxmemory-samples", "5", "lfu-log-factor", "10",
               "lfu-decay-time", "1")]
    conns = [Conn(p, read_timeout=5) for p in ports]
    try:
        for args in script:
            got = []
            for c in conns:
                c.send(encode([a.encode() for a in args]))
                got.append(c.read_reply()[0])
            if args[:2] == ("OBJECT", "IDLETIME") and got[0][:1] == got[1][:1] == b":":
                # whole seconds read from two clocks: a second may tick between the two reads
                assert abs(int(got[0][1:]) - int(got[1][1:])) <= 1, "%r: redis %r, scratchpad %r" % (args, got[0], got[1])
                continue
            assert got[0] == got[1], "%r: redis %r, scratchpad %r" % (args, got[0], got[1])
    finally:
        for c in conns:
            c.close()


def idle_time_grows(ports):
    for p in ports:
        c = Conn(p, read_timeout=5)
        c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
        c.call("SET", "idle", "abc")
        c.call("SET", "busy", "abc")
        time.sleep(2.2)
        c.call("GET", "busy")
        c.call("TYPE", "idle")  # not an access
        idle, busy = c.call("OBJECT", "IDLETIME", "idle")[1], c.call("OBJECT", "IDLETIME", "busy")[1]
        c.call("CONFIG", "SET", "maxmemory-policy", "noeviction")
        c.close()
        assert int(idle) >= 2 and int(busy) == 0, (p, idle, busy)


def no_evict_flag(ports):
    for p in ports:
        c = Conn(p, read_timeout=5)
        c.call("CLIENT", "NO-EVICT", "on")
        info = c.call("CLIENT", "INFO")[1]
        assert b" flags=e " in info, info
        c.call("CLIENT", "NO-EVICT", "off")
        info = c.call("CLIENT", "INFO")[1]
        assert b" flags=N " in info, info
        c.close()


def pause_trace(port, mode):
    """What a paused server does: replies and when they came (ms after the pause)."""
    admin, reader, writer = Conn(port, read_timeout=5), Conn(port, read_timeout=5), Conn(port, read_timeout=5)
    out = []
    try:
        admin.call("FLUSHALL")
        admin.call("SET", "k", "v")
        admin.call("SET", "gone", "x", "PX", "50")
        assert admin.call("CLIENT", "PAUSE", "600", mode) == ("+", b"OK")
        t0 = time.monotonic()
        time.sleep(0.1)  # "gone" is past its time now: held, not deleted
        reader.send(encode([b"GET", b"gone"]))
        reader.send(encode([b"GET", b"k"]))
        writer.send(encode([b"SET", b"k", b"w"]))
        writer.send(encode([b"GET", b"k"]))
        for name, c in (("reader", reader), ("reader", reader), ("writer", writer), ("writer", writer)):
            raw_reply, node = c.read_reply()
            ms = (time.monotonic() - t0) * 1000
            out.append((name, raw_reply, "late" if ms > 400 else "early"))
        out.append(("dbsize", admin.call("DBSIZE"), ""))
    finally:
        for c in (admin, reader, writer):
            c.close()
    return out


def pause_as_redis(ports, mode):
    r, s = pause_trace(ports[0], mode), pause_trace(ports[1], mode)
    assert r == s, "redis %r\nscratchpad %r" % (r, s)
    return r


def pause_write(ports):
    t = pause_as_redis(ports, "WRITE")
    assert t[0] == ("reader", b"$-1\r\n", "early") and t[2][2] == "late", t


def pause_all(ports):
    t = pause_as_redis(ports, "ALL")
    assert t[0][2] == "late", t


def unpause_resumes(ports):
    for p in ports:
        admin, writer = Conn(p, read_timeout=5), Conn(p, read_timeout=5)
        admin.call("DEL", "n")
        admin.call("CLIENT", "PAUSE", "5000", "WRITE")
        t0 = time.monotonic()
        writer.send(b'SET a "1 2"\r\n' + encode([b"INCR", b"n"]) + b"INCR n\r\n" + encode([b"GET", b"a"]))
        time.sleep(0.1)
        admin.call("CLIENT", "UNPAUSE")
        got = [writer.read_reply()[0] for _ in range(4)]
        assert got == [b"+OK\r\n", b":1\r\n", b":2\r\n", b"$3\r\n1 2\r\n"], got
        assert time.monotonic() - t0 < 2, "the writes waited for the timeout on port %d (%.1fs)" % (p, time.monotonic() - t0)
        admin.close()
        writer.close()


def exec_with_writes_waits(ports):
    for p in ports:
        admin, c = Conn(p, read_timeout=5), Conn(p, read_timeout=5)
        c.call("MULTI")
        assert c.call("GET", "k")[0] == "+"
        admin.call("CLIENT", "PAUSE", "300", "WRITE")
        t0 = time.monotonic()
        assert c.call("EXEC")[0] == "*"
        assert time.monotonic() - t0 < 0.2, "EXEC of reads waited"
        c.call("MULTI")
        c.call("GET", "k")
        admin.call("CLIENT", "UNPAUSE")
        c.call("SET", "k", "z")
        admin.call("CLIENT", "PAUSE", "300", "WRITE")
        t0 = time.monotonic()
        assert c.call("EXEC")[0] == "*"
        assert time.monotonic() - t0 > 0.2, "EXEC with a write did not wait"
        admin.close()
        c.close()


def paused_client_not_timed_out(ports):
    """A client whose command waits for a pause is not idle (Redis counts it
    blocked): the idle timeout does not close it."""
    admins = [Conn(p, read_timeout=5) for p in ports]
    writers = [Conn(p, read_timeout=5) for p in ports]
    try:
        for a in admins:
            a.call("CONFIG", "SET", "timeout", "1")
        for w in writers:
            w.call("PING")
        for a in admins:
            a.call("CLIENT", "PAUSE", "2600", "WRITE")
        for w in writers:
            w.send(encode([b"SET", b"pt", b"1"]))
        got = [w.read_reply()[0] for w in writers]
        assert got == [b"+OK\r\n", b"+OK\r\n"], got
    finally:
        for a in admins:
            a.call("CONFIG", "SET", "timeout", "0")
            a.close()
        for w in writers:
            w.close()


def main():
    rep = spserver.Reporter()
    redis = RedisServer("--enable-debug-command", "yes")
    sp = spserver.Server("--appendonly", "no")
    try:
        sp.start()
        ports = (redis.port, sp.port)
        rep.case("DEBUG ERROR, LOLWUT, CLIENT PAUSE/UNPAUSE/NO-EVICT reply as redis-server's, errors and COMMAND "
                 "INFO rows byte for byte", replies_as_redis, ports)
        rep.case("OBJECT FREQ and IDLETIME answer as redis-server's under LFU and LRU policies (values, errors), and "
                 "CONFIG SET of maxmemory-policy, maxmemory-samples, lfu-* at once as well", object_clock_as_redis,
                 ports)
        rep.case("OBJECT IDLETIME counts seconds since the last access; TYPE is not an access", idle_time_grows,
                 ports)
        rep.case("CLIENT NO-EVICT ON shows flag e in CLIENT INFO, OFF takes it away", no_evict_flag, ports)
        rep.case("under CLIENT PAUSE WRITE reads run at once (an expired key reads as missing but stays), "
                 "writes wait for the pause's end, as in redis-server", pause_write, ports)
        rep.case("under CLIENT PAUSE ALL every command waits for the pause's end, as in redis-server",
                 pause_all, ports)
        rep.case("CLIENT UNPAUSE runs the waiting pipeline (inline requests with quotes too) at once, in order", unpause_resumes, ports)
        rep.case("a client waiting for a pause's end is not closed by the idle timeout, as in redis-server",
                 paused_client_not_timed_out, ports)
        rep.case("under PAUSE WRITE an EXEC of reads runs, an EXEC holding a write waits", exec_with_writes_waits,
                 ports)
    finally:
        sp.stop()
        redis.stop()
    rep.finish()


if __name__ == "__main__":
    main()
