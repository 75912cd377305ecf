#!/usr/bin/python3
"""diff_strings.py -- strings and the generic key commands, against redis-server.

A random stream over a few keys (so that commands meet each other's values):
the string commands with their options and edge values (negative and huge
offsets, non-integers, floats with exponents, inf), the key commands (DEL,
EXISTS, TYPE, RENAME, COPY, MOVE, the EXPIRE family with NX/XX/GT/LT, TTL of
long expiries only, PERSIST, OBJECT ENCODING of small values, DUMP of every
value byte for byte, RESTORE of string payloads with its options), wrong arities
and wrong types, inside and outside MULTI. Every reply must be redis-server's,
byte for byte (difftest.py). SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (payloads of RESTORE)
from difftest import Req, UNORDERED  # noqa: E402

KEYS = ["k1", "k2", "k3", "n1", "n2", "{t}a", "{t}b"]


def value(rng):
    r = rng.random()
    if r < 0.3:
        return str(rng.randrange(-1000, 1000))
    if r < 0.4:
        return rng.choice(["9223372036854775807", "-9223372036854775808", "9223372036854775808", "0", "-0",
                           "007", " 1", "1e3", "3.5", "-2.25e-3", "inf", "nan", "", "x" * 45])
    if r < 0.5:
        # around the inline limit (128) and a narrow entry's length field (255)
        return "v" * (rng.randrange(0, 200) if rng.random() < 0.5 else rng.randrange(120, 300))
    return "".join(rng.choice("abcxyz \n") for _ in range(rng.randrange(0, 20)))


def num(rng):
    return rng.choice(["1", "-1", "0", "10", "-10", "abc", "1.5", "9223372036854775807", "-9223372036854775808",
                       str(rng.randrange(-100, 100))])


def ttl_s(rng):
    return rng.choice(["100", "1000", "-1", "0", "abc", "9223372036854775807", "3600", "99999"])


def generate(rng, count):
    for i in range(count):
        k = rng.choice(KEYS)
        k2 = rng.choice(KEYS)
        c = rng.randrange(50)
        if c == 0:
            yield Req("SET", k, value(rng))
        elif c == 1:
            opts = rng.sample(["NX", "XX", "GET", "KEEPTTL", "EX 1000", "PX 100000", "EXAT 99999999999",
                               "PXAT 99999999999999", "EX 0", "PX -5"], rng.randrange(0, 3))
            yield Req("SET", k, value(rng), *" ".join(opts).split())
        elif c == 2:
            yield Req("GET", k)
        elif c == 3:
            yield Req("MGET", *rng.sample(KEYS, rng.randrange(1, 4)))
        elif c == 4:
            kv = []
            for kk in rng.sample(KEYS, rng.randrange(1, 4)):
                kv += [kk, value(rng)]
            yield Req(rng.choice(["MSET", "MSETNX"]), *kv)
        elif c == 5:
            yield Req("APPEND", k, value(rng))
        elif c == 6:
            yield Req("INCR", k)
        elif c == 7:
            yield Req(rng.choice(["INCRBY", "DECRBY"]), k, num(rng))
        elif c == 8:
            yield Req("DECR", k)
        elif c == 9:
            yield Req("INCRBYFLOAT", k, rng.choice(["1.5", "-0.25", "1e2", "abc", "inf", "3", "-3.0e-2"]))
        elif c == 10:
            yield Req("STRLEN", k)
        elif c == 11:
            yield Req("GETRANGE", k, num(rng), num(rng))
        elif c == 12:
            yield Req("SETRANGE", k, rng.choice(["0", "3", "10", "-1", "abc", "100"]), value(rng))
        elif c == 13:
            yield Req("GETSET", k, value(rng))
        elif c == 14:
            yield Req("GETDEL", k)
        elif c == 15:
            yield Req("GETEX", k, *rng.choice([[], ["PERSIST"], ["EX", "1000"], ["PX", "0"], ["EXAT", "abc"]]))
        elif c == 16:
            yield Req("SETNX", k, value(rng))
        elif c == 17:
            yield Req(rng.choice(["SETEX", "PSETEX"]), k, ttl_s(rng), value(rng))
        elif c == 18:
            yield Req("DEL", *rng.sample(KEYS, rng.randrange(1, 3)))
        elif c == 19:
            yield Req("EXISTS", *[rng.choice(KEYS) for _ in range(rng.randrange(1, 4))])
        elif c == 20:
            yield Req("TYPE", k)
        elif c == 21:
            yield Req(rng.choice(["RENAME", "RENAMENX"]), k, k2)
        elif c == 22:
            yield Req("COPY", k, k2, *rng.choice([[], ["REPLACE"], ["DB", "1"], ["DB", "0", "REPLACE"]]))
        elif c == 23:
            yield Req(rng.choice(["EXPIRE", "PEXPIRE"]), k, ttl_s(rng),
                      *rng.choice([[], ["NX"], ["XX"], ["GT"], ["LT"], ["NX", "XX"], ["FOO"]]))
        elif c == 24:
            yield Req(rng.choice(["EXPIREAT", "PEXPIREAT"]), k, rng.choice(["99999999999", "1", "abc"]))
        elif c == 25:
            yield Req(rng.choice(["TTL", "PTTL"]), k, cmp=lambda r, s: None if r[0] == s[0] else "types differ")
        elif c == 26:
            yield Req("PERSIST", k)
        elif c == 27:
            yield Req("EXPIRETIME", k, cmp=lambda r, s: None if r[0] == s[0] else "types differ")
        elif c == 28:
            yield Req("OBJECT", "ENCODING", k, cmp=encoding_check)
        elif c == 29:
            yield Req("LCS", k, k2, *rng.choice([[], ["LEN"], ["IDX"], ["IDX", "MINMATCHLEN", "2"],
                                                  ["IDX", "WITHMATCHLEN"]]))
        elif c == 30:
            yield Req("MOVE", k, rng.choice(["1", "0", "16", "abc"]))
        elif c == 31:
            yield Req("SELECT", "1")
            yield Req("GET", k)
            yield Req("SET", k, value(rng))
            yield Req("SELECT", "0")
        elif c == 32:
            yield Req("MULTI")
            for _ in range(rng.randrange(0, 4)):
                yield Req(rng.choice(["INCR", "GET", "APPEND"]), rng.choice(KEYS), *([value(rng)] if rng.random() < 0.3 else []))
            yield Req(rng.choice(["EXEC", "DISCARD"]))
        elif c == 33:
            yield Req("KEYS", rng.choice(["*", "k*", "?1", "{t}*", "[kn]1"]), cmp=UNORDERED)
        elif c == 34:
            yield Req("SCAN", "0", "COUNT", "1000", *rng.choice([[], ["MATCH", "k*"], ["TYPE", "string"]]),
                      cmp=UNORDERED_SCAN)
        elif c == 35:
            yield Req("DBSIZE")
        elif c == 36:
            yield Req("UNLINK", k)
        elif c == 37:
            yield Req("TOUCH", k, k2)
        elif c == 38:
            yield Req(rng.choice(["GET", "SET", "INCR", "APPEND", "GETRANGE", "MSET", "EXPIRE"]))  # arity
        elif c == 39:
            yield Req("SUBSTR", k, num(rng), num(rng))
        elif c == 40:
            yield Req("SWAPDB", "0", rng.choice(["1", "0", "x"]))
        elif c == 41:
            yield Req("SET", k, value(rng), "EX", rng.choice(["1000", "0", "-1", "x"]), "NX")
        elif c == 42:
            yield Req("GETEX", k, "PERSIST", "EX", "10")
        elif c == 43:
            yield Req("INCRBYFLOAT", k, rng.choice(["1e308", "-1e308", "0.1"]))
        elif c == 44:
            yield Req("SETRANGE", k, "536870912", "x")
        elif c == 45:
            yield Req("ECHO", value(rng))
        elif c == 46:
            yield Req("RANDOMKEY", cmp=lambda r, s: None if r[0] == s[0] else "types differ")
        elif c == 47:
            yield Req("DUMP", k)
        elif c == 48:
            yield Req("RESTORE", k, rng.choice(["0", "0", "100000", "-1"]),
                      dump_restore.payload(b"\x00" + dump_restore.rstr(value(rng))),
                      *rng.choice([[], ["REPLACE"], ["REPLACE", "IDLETIME", "10"], ["ABSTTL"]]))
        else:
            yield Req("FLUSHDB") if rng.random() < 0.1 else Req("PING")


STRING_ENCODINGS = {("$", b"int"), ("$", b"embstr"), ("$", b"raw")}


def encoding_check(r, s):
    """OBJECT ENCODING: the same reply, except the documented difference
    (docs/commands.md, Differences from Redis): a string's encoding here says
    what its bytes are, in Redis also how they were written (APPEND and
    SETRANGE make "raw", INCRBYFLOAT "embstr" even for an integer), so two
    string encodings are accepted as each other; nil, errors and any other
    name must be the same."""
    if r == s or (r in STRING_ENCODINGS and s in STRING_ENCODINGS):
        return None
    return "encodings differ"


def UNORDERED_SCAN(r, s):
    """SCAN 0 COUNT 1000 over a handful of keys returns them all in one page: the
    cursor must be 0 on both, the keys the same set."""
    if r[0] != "*" or s[0] != "*" or len(r[1]) != 2 or len(s[1]) != 2:
        return "not a SCAN reply"
    if r[1][0] != s[1][0]:
        return "cursors differ"
    return None if difftest.canon(r[1][1]) == difftest.canon(s[1][1]) else "keys differ"


if __name__ == "__main__":
    ok = difftest.run("strings and keys", generate, 3000)
    sys.exit(0 if ok else 1)
