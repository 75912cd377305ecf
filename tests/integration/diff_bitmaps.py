#!/usr/bin/python3
"""diff_bitmaps.py -- the bitmap commands against redis-server.

A random stream over a few keys: SETBIT GETBIT BITCOUNT (BYTE|BIT) BITPOS BITOP
(AND OR XOR NOT) BITFIELD (GET SET INCRBY, OVERFLOW WRAP|SAT|FAIL, u/i types of
every width, "#" offsets) BITFIELD_RO, with edge values (negative, huge and
non-integer offsets and bits, ranges crossing the ends, empty strings, offsets
past the end), errors (bad types, bad OVERFLOW, syntax, BITFIELD_RO writing),
wrong types (a list), ranges read from values that are compressed on the
Scratchpad side (compress-threshold 1000 bytes, chunks of 1 KB: the generator
waits now and then for the cron to compress them), the bytes read back with
GET after each kind of write, and WATCH around writes that change nothing.
COMMAND INFO of each command byte for byte. SEED=N replays a stream;
DIFF_COUNT=N runs longer.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
from difftest import Req  # noqa: E402

KEYS = ["b1", "b2", "b3", "big"]
COMMANDS = "setbit getbit bitcount bitpos bitop bitfield bitfield_ro".split()


def offset(rng, big=False):
    r = rng.random()
    if r < 0.6:
        return str(rng.randrange(0, 200 if not big else 24000))
    if r < 0.8:
        return str(rng.randrange(0, 64))
    if r < 0.9:
        return rng.choice(["-1", "abc", "", "1.5", "4294967296", "9223372036854775807", "-9223372036854775808", " 1", "+1", "007"])
    return "#" + rng.choice(["0", "1", "3", "-1", "x", "100", "2305843009213693952", "1152921504606846976"])


def idx(rng, n=40):
    r = rng.random()
    if r < 0.7:
        return str(rng.randrange(-n, n))
    if r < 0.9:
        return rng.choice(["0", "-1", "-2", "100000", "-100000", "9223372036854775807", "-9223372036854775808"])
    return rng.choice(["abc", "1.0", ""])


def bftype(rng):
    r = rng.random()
    if r < 0.85:
        s = rng.choice("iu")
        return s + str(rng.choice([1, 2, 3, 5, 7, 8, 9, 13, 16, 31, 32, 33, 63, 64]))
    return rng.choice(["u64", "i65", "i0", "u", "x8", "I8", "U8", "i-1", "", "u08"])


def bfval(rng):
    r = rng.random()
    if r < 0.6:
        return str(rng.randrange(-300, 300))
    return rng.choice(["0", "-1", "255", "256", "-128", "-129", "127", "9223372036854775807",
                       "-9223372036854775808", "18446744073709551615", "abc", "4294967296", "-4294967296"])


def key(rng):
    return rng.choice(KEYS)


def generate(rng, n):
    for name in COMMANDS:
        yield Req("COMMAND", "INFO", name)
    for args in (["BITOP", "AND", "d", "a", "b"], ["BITFIELD", "k", "GET", "u8", "0"], ["SETBIT", "k", "1", "1"]):
        yield Req("COMMAND", "GETKEYS", *args)
    for req in (["SET", "e", ""], ["BITCOUNT", "e"], ["BITPOS", "e", "0"], ["BITPOS", "e", "1"],
                ["BITCOUNT", "e", "0", "-1", "BIT"], ["BITPOS", "e", "0", "0", "-1", "BIT"], ["GETBIT", "e", "0"],
                ["BITOP", "OR", "d", "e", "nokey"], ["EXISTS", "d"], ["SET", "d", "x"], ["BITOP", "AND", "d", "e"],
                ["EXISTS", "d"], ["SET", "f", b"\xff\xf0\x00"], ["BITPOS", "f", "0"], ["BITPOS", "f", "1", "2", "-1"],
                ["SET", "f", b"\x00\xff\xf0"], ["BITPOS", "f", "1", "0"], ["BITPOS", "f", "1", "2"],
                ["BITPOS", "f", "1", "7", "15", "BIT"], ["BITPOS", "f", "0", "1", "-1"], ["SET", "f", b"\xff\xff"],
                ["BITPOS", "f", "0"], ["BITPOS", "f", "0", "0"], ["BITPOS", "f", "0", "0", "-1"],
                ["BITPOS", "f", "0", "0", "-1", "BIT"], ["RPUSH", "l", "a"], ["SETBIT", "l", "0", "1"],
                ["BITFIELD", "l", "GET", "u8", "0"], ["BITFIELD_RO", "l", "GET", "u8", "0"], ["BITCOUNT", "l"],
                ["BITPOS", "l", "1"], ["BITOP", "OR", "d", "f", "l"], ["GETBIT", "l", "0"], ["BITFIELD", "l"],
                ["BITOP", "NOT", "l", "f"], ["TYPE", "l"], ["GET", "l"],
                ["BITFIELD", "nokey2", "OVERFLOW", "FAIL", "SET", "u8", "0", "300"], ["EXISTS", "nokey2"],
                ["BITFIELD", "nokey3", "GET", "u8", "0"], ["EXISTS", "nokey3"], ["SET", "t", "x", "EX", "100"],
                ["BITOP", "NOT", "t", "f"], ["TTL", "t"], ["SET", "t", "x", "EX", "100"], ["SETBIT", "t", "1", "0"],
                ["TTL", "t"], ["CONFIG", "SET", "proto-max-bulk-len", "1048576"], ["SETBIT", "x", "8388608", "1"],
                ["SETBIT", "x", "8388607", "1"], ["STRLEN", "x"], ["BITFIELD", "x", "SET", "i64", "8388607", "-1"],
                ["STRLEN", "x"], ["BITCOUNT", "x"], ["BITFIELD", "x", "GET", "u8", "8388608"],
                ["CONFIG", "SET", "proto-max-bulk-len", "536870912"],
                # a signed SET far below min: Redis's 64-bit check reads it as past max
                ["BITFIELD", "q", "OVERFLOW", "SAT", "SET", "i33", "0", "-9223372036854775808", "GET", "i33", "0"],
                ["BITFIELD", "q", "OVERFLOW", "SAT", "SET", "i33", "0", "-9223372032559808513", "GET", "i33", "0"],
                ["BITFIELD", "q", "OVERFLOW", "SAT", "SET", "i33", "0", "-9223372032559808512", "GET", "i33", "0"],
                ["BITFIELD", "q", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808", "GET", "i8", "0"],
                ["BITFIELD", "q", "OVERFLOW", "WRAP", "SET", "i33", "0", "-9223372036854775808", "GET", "i33", "0"],
                ["FLUSHDB"]):
        yield Req(*req)
    for i in range(n):
        k = key(rng)
        c = rng.randrange(22)
        if c < 4:
            yield Req("SETBIT", k, offset(rng, k == "big"),
                      rng.choice(["0", "1", "1", "0", "2", "-1", "x", "01", ""]) if rng.random() < 0.1 else
                      rng.choice(["0", "1"]))
        elif c == 4:
            yield Req("GETBIT", k, offset(rng, k == "big"))
        elif c in (5, 6):
            args = []
            r = rng.random()
            if r < 0.8:
                args = [idx(rng), idx(rng)]
                if rng.random() < 0.6:
                    args.append(rng.choice(["BIT", "BYTE", "bit", "byte", "foo"]))
            elif r < 0.9:
                args = [idx(rng)]
            yield Req("BITCOUNT", k, *args)
        elif c in (7, 8):
            args = [rng.choice(["0", "1", "0", "1", "2", "-1", "x"]) if rng.random() < 0.1 else rng.choice("01")]
            r = rng.random()
            if r < 0.3:
                args.append(idx(rng))
            elif r < 0.6:
                args += [idx(rng), idx(rng)]
            elif r < 0.9:
                args += [idx(rng, 300), idx(rng, 300), rng.choice(["BIT", "BYTE", "bit", "foo"])]
            yield Req("BITPOS", k, *args)
        elif c == 9:
            op = rng.choice(["AND", "OR", "XOR", "NOT", "and", "not", "foo"])
            srcs = [key(rng) for _ in range(1 if op.upper() == "NOT" and rng.random() < 0.9 else rng.randrange(1, 4))]
            if rng.random() < 0.2:
                srcs.append("nokey")
            yield Req("BITOP", op, key(rng), *srcs)
        elif c in (10, 11, 12):
            ops = []
            for _ in range(rng.randrange(0, 5)):
                r = rng.random()
                if r < 0.3:
                    ops += ["GET", bftype(rng), offset(rng, k == "big")]
                elif r < 0.55:
                    ops += ["SET", bftype(rng), offset(rng, k == "big"), bfval(rng)]
                elif r < 0.8:
                    ops += ["INCRBY", bftype(rng), offset(rng, k == "big"), bfval(rng)]
                elif r < 0.97:
                    ops += ["OVERFLOW", rng.choice(["WRAP", "SAT", "FAIL", "wrap", "sat", "fail", "foo"])]
                else:
                    ops += [rng.choice(["GET", "SET", "FOO", "OVERFLOW", "INCRBY"])]
            yield Req("BITFIELD", k, *ops)
        elif c == 13:
            ops = []
            for _ in range(rng.randrange(0, 4)):
                if rng.random() < 0.9:
                    ops += ["GET", bftype(rng), offset(rng, k == "big")]
                else:
                    ops += ["SET", "u8", "0", "1"]
            yield Req("BITFIELD_RO", k, *ops)
        elif c == 14:
            yield Req("GET", k)
        elif c == 15:
            yield Req("STRLEN", k)
        elif c == 16:
            # a value above the compression threshold, then time for the cron
            # to compress it on the Scratchpad side
            size = rng.choice([1500, 3000, 5000])
            data = bytes(rng.choice([0, 0, 255, 1, 0x55, rng.randrange(256)]) for _ in range(size))
            yield Req("SET", "big", data)
            time.sleep(0.03)
        elif c == 17:
            yield Req(rng.choice(["SET", "APPEND"]), k, rng.choice(["", "a", "foobar", "\x00\xff", "x" * 30]))
        elif c == 18:
            yield Req("DEL", k)
        elif c == 19:
            yield Req("RPUSH", "l", "x") if rng.random() < 0.5 else Req("SETBIT", "l", "3", "1")
        elif c == 20:
            yield Req("WATCH", k)
            yield Req("SETBIT", k, rng.choice(["0", "1", "7"]), rng.choice("01"))
            yield Req("MULTI")
            yield Req("GET", k)
            yield Req("EXEC")
        else:
            yield Req("SETRANGE", k, rng.choice(["0", "3", "100"]), rng.choice(["a", "\xff\xff", "\x00"]))


if __name__ == "__main__":
    args = ("--compress-threshold", "1000", "--compress-chunk", "1024", "--hz", "100")
    ok = difftest.run("bitmaps (RESP2)", generate, 1500, scratchpad_args=args)
    ok = difftest.run("bitmaps (RESP3)", generate, 400, scratchpad_args=args, resp3=True) and ok
    sys.exit(0 if ok else 1)
