#!/usr/bin/python3
"""diff_hll.py -- PFADD, PFCOUNT and PFMERGE against redis-server.

A random stream over a few keys: PFADD of few and many elements (sparse HLLs,
their change to dense past a register of 33 or past hll-sparse-max-bytes, which
the stream changes on both servers now and then), PFCOUNT of one key (the
cached cardinality) and of several, PFMERGE into new and existing keys, GET of
every HLL byte for byte (the representation, the cache and its stale flag),
copies by SET, values damaged by SETRANGE (corrupt sparse opcodes: INVALIDOBJ),
strings that are not HLLs (WRONGTYPE Key is not a valid HyperLogLog string
value.), other types, and COMMAND INFO of each command. Then HLL values made
by each server are copied with GET and SET into the other, and count the same
there (and GET gives them back byte for byte).
SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402
from difftest import Req  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

KEYS = ["h1", "h2", "h3", "{x}h"]
COMMANDS = "pfadd pfcount pfmerge".split()


def element(rng):
    r = rng.random()
    if r < 0.7:
        return "e%d" % rng.randrange(100000)
    if r < 0.9:
        return rng.choice(["", "a", "foo", "\x00", "x" * 9, "é", "1234567", "12345678", "123456789"])
    return "%x" % rng.getrandbits(64)


def generate(rng, n):
    for name in COMMANDS:
        yield Req("COMMAND", "INFO", name)
    for args in (["PFMERGE", "d", "a", "b"], ["PFCOUNT", "a", "b"]):
        yield Req("COMMAND", "GETKEYS", *args)
    for req in (["PFADD", "n"], ["GET", "n"], ["PFCOUNT", "n"], ["GET", "n"], ["PFADD", "n"], ["PFMERGE", "m"],
                ["GET", "m"], ["PFMERGE", "m2", "nokey"], ["GET", "m2"], ["SET", "s", "foo"], ["PFADD", "s", "a"],
                ["PFCOUNT", "s"], ["PFCOUNT", "n", "s"], ["PFMERGE", "n", "s"], ["SET", "s", "HYLL"],
                ["PFCOUNT", "s"], ["SET", "s", b"HYLL\x02" + b"\x00" * 11], ["PFCOUNT", "s"],
                ["SET", "s", b"HYLL\x00" + b"\x00" * 11 + b"\x00" * 100], ["PFCOUNT", "s"],
                ["SET", "s", b"HYLL\x01" + b"\x00" * 11], ["PFCOUNT", "s"], ["PFADD", "s", "x"],
                ["SET", "s", b"HYLL\x01" + b"\x00" * 11 + b"\x7f"], ["PFCOUNT", "s"], ["PFADD", "s", "x"],
                ["SET", "s", b"HYLL\x01" + b"\x00" * 11 + b"\x7f\xff\x80"], ["PFCOUNT", "s"], ["PFADD", "s", "x"],
                ["PFMERGE", "n", "s"], ["PFCOUNT", "n", "s"],
                ["SET", "s", b"HYLL\x01" + b"\x00" * 11 + b"\x7f\xfe\x80"], ["PFCOUNT", "s"], ["PFADD", "s", "a"],
                ["GET", "s"], ["PFCOUNT", "s"], ["RPUSH", "l", "a"], ["PFADD", "l", "a"], ["PFCOUNT", "l"],
                ["PFCOUNT", "n", "l"], ["PFMERGE", "l", "n"], ["PFMERGE", "n", "l"], ["FLUSHDB"]):
        yield Req(*req)
    for i in range(n):
        k = rng.choice(KEYS)
        c = rng.randrange(16)
        if c < 5:
            yield Req("PFADD", k, *[element(rng) for _ in range(rng.choice([0, 1, 1, 2, 5, 20, 100, 400]))])
        elif c in (5, 6):
            yield Req("PFCOUNT", k)
        elif c == 7:
            yield Req("PFCOUNT", *rng.sample(KEYS + ["nokey"], rng.randrange(1, 4)))
        elif c == 8:
            yield Req("PFMERGE", k, *rng.sample(KEYS + ["nokey"], rng.randrange(0, 3)))
        elif c in (9, 10):
            yield Req("GET", k)
        elif c == 11:
            yield Req("COPY", k, rng.choice(KEYS), "REPLACE")
        elif c == 12:
            if rng.random() < 0.5:
                yield Req("SETRANGE", k, str(rng.choice([4, 15, 16, 17, 18, 30, 100, 2000, 12303])),
                          bytes([rng.randrange(256)]))
            else:
                yield Req("SET", k, rng.choice(["x", "HYLL", "HYLLxxxxxxxxxxxxxxxxx", ""]))
        elif c == 13:
            yield Req("CONFIG", "SET", "hll-sparse-max-bytes", rng.choice(["3000", "3000", "100", "40", "0", "10000"]))
        elif c == 14:
            yield Req("DEL", k)
        else:
            yield Req("PFADD", k, *["%d" % rng.randrange(1 << 20) for _ in range(rng.choice([500, 2000]))])


def copy_between(rep):
    """HLLs made on each server, copied with GET/SET into the other, count the same."""
    redis = difftest.RedisServer()
    try:
        with spserver.Server("--appendonly", "no") as sp:
            cr, cs = Conn(redis.port), Conn(sp.port)

            def cmd(conn, *args):
                conn.send(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
                return conn.read_reply()[1]

            rng = random.Random(7)
            sizes = [0, 1, 10, 100, 1000, 3000, 20000, 200000]
            problems = []
            for n in sizes:
                elems = ["%d-%d" % (n, rng.randrange(1 << 40)) for _ in range(n)]
                for src, dst, name in ((cr, cs, "redis to scratchpad"), (cs, cr, "scratchpad to redis")):
                    cmd(src, "DEL", "h")
                    cmd(src, "PFADD", "h", *elems[:1])
                    for i in range(0, n, 1000):
                        cmd(src, "PFADD", "h", *elems[i:i + 1000])
                    if n == 0:
                        cmd(src, "PFADD", "h")
                    val = cmd(src, "GET", "h")[1]
                    cmd(dst, "SET", "copy", val)
                    a, b = cmd(src, "PFCOUNT", "h"), cmd(dst, "PFCOUNT", "copy")
                    if a != b:
                        problems.append("%d elements, %s: %r counts %r" % (n, name, a, b))
                    cmd(src, "PFADD", "h", "one-more")
                    cmd(dst, "PFADD", "copy", "one-more")
                    if cmd(src, "GET", "h") != cmd(dst, "GET", "copy"):
                        problems.append("%d elements, %s: a PFADD after the copy gives other bytes" % (n, name))
            if problems:
                raise AssertionError("; ".join(problems))
    finally:
        redis.stop()


if __name__ == "__main__":
    ok = difftest.run("HyperLogLog (RESP2)", generate, 1500)
    ok = difftest.run("HyperLogLog (RESP3)", generate, 300, resp3=True) and ok
    rep = spserver.Reporter()
    rep.case("an HLL copied with GET and SET from redis-server into Scratchpad, and back, counts the same "
             "(sparse and dense), and the next PFADD gives the same bytes", copy_between, rep)
    sys.exit(0 if ok and rep.failed == 0 else 1)
