#!/usr/bin/python3
"""diff_hashes.py -- the hash commands, against redis-server.

A random stream over a few keys (hashes, and a string to meet WRONGTYPE) of
every hash command with its options and edge values (integers at the limits,
-0, inf, nan, exponents, empty fields and values, fields and values across
hash-max-listpack-value), wrong arities, wrong types both ways, inside MULTI,
COMMAND INFO of each command, DUMP (byte for byte for a listpack, the type
alone for a hash table, whose order is each server's), and OBJECT ENCODING at and across small
thresholds that are CONFIG SET on both servers (and changed now and then).

How replies compare: byte for byte, except where Redis leaves the order open:
HGETALL, HKEYS, HVALS and HSCAN of a "hashtable" hash compare as sets (the
stream asks OBJECT ENCODING just before, and a "listpack" hash must agree in
order too); HRANDFIELD is random: checked by its properties (count, distinct
fields for a positive count, fields and values from the hash as redis-server
last listed it). SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (DUMP's comparison)
from difftest import Req  # noqa: E402

KEYS = ["h1", "h2", "h3", "{t}h", "s1"]
FIELDS = ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "n1", "n2", "", "x" * 20, "y" * 70]
COMMANDS = ["hset", "hsetnx", "hmset", "hget", "hmget", "hgetall", "hdel", "hlen", "hstrlen", "hexists", "hkeys",
            "hvals", "hincrby", "hincrbyfloat", "hrandfield", "hscan"]

# What the checks learn from earlier replies (redis-server's side).
st = {"enc": None, "pairs": None}


def field(rng):
    if rng.random() < 0.85:
        return rng.choice(FIELDS[:10])
    return rng.choice(FIELDS)


def value(rng):
    r = rng.random()
    if r < 0.35:
        return str(rng.randrange(-1000, 1000))
    if r < 0.5:
        return rng.choice(["9223372036854775807", "-9223372036854775808", "9223372036854775808", "0", "-0",
                           "007", " 1", "1e3", "3.5", "-2.25e-3", "inf", "-inf", "nan", "", "0x10", "1.5e308",
                           "17.000000000000001"])
    if r < 0.6:
        return "v" * rng.randrange(0, 90)
    return "".join(rng.choice("abcxyz \n") for _ in range(rng.randrange(0, 12)))


def incr(rng):
    return rng.choice(["1", "-1", "0", "10", "-10", "abc", "1.5", "9223372036854775807", "-9223372036854775808",
                       "9223372036854775808", "", " 1", str(rng.randrange(-100, 100))])


def fincr(rng):
    return rng.choice(["1", "-1", "0.1", "-0", "1e308", "-1e308", "1.7976931348623157e308", "inf", "-inf", "nan",
                       "abc", "", "3.0e-5", "10.5", "5.0e3", "1e-320", str(rng.uniform(-100, 100))])


STRING_ENCODINGS = {("$", b"int"), ("$", b"embstr"), ("$", b"raw")}


def remember_enc(r, s):
    """OBJECT ENCODING: the same reply (a string's encodings as
    diff_strings.py accepts them: a documented difference); remember it for
    the next listing."""
    st["enc"] = r
    return None if r == s or (r in STRING_ENCODINGS and s in STRING_ENCODINGS) else "encodings differ"


def ttl_check(r, s):
    """TTL just after EXPIRE 1000: 1000 or 999, as a millisecond passed or not."""
    if r == s or (r[0] == s[0] == ":" and {r[1], s[1]} <= {b"999", b"1000"}):
        return None
    return "replies differ"


def pairs_of(node, withvalues=True):
    t, v = node
    if not isinstance(v, list):
        return None
    if withvalues:
        return [(v[i][1], v[i + 1][1]) for i in range(0, len(v) - 1, 2)]
    return [(x[1], None) for x in v]


def listing(withvalues):
    """HGETALL / HKEYS / HVALS: in order for a listpack hash, as a set for a
    table; the fields and values are remembered for HRANDFIELD's check."""
    def check(r, s):
        if not isinstance(r[1], list) or not isinstance(s[1], list):
            return None if r == s else "replies differ"
        if withvalues:
            st["pairs"] = dict(pairs_of(r)) if r[1] is not None else {}
        if st["enc"] == ("$", b"listpack") or r == s:
            return None if r == s else "replies differ (a listpack hash keeps its order)"
        return None if difftest.canon(r) == difftest.canon(s) else "replies differ (as unordered collections)"
    return check


def scan_check(cursor):
    """HSCAN: a listpack hash comes whole with cursor 0 (exact); a table from
    cursor 0 with COUNT 1000 over these few fields comes whole too, in any
    order; from another cursor, where the walk starts is the table's own."""
    def check(r, s):
        if r[0] != "*" or s[0] != "*" or (st["enc"] != ("$", b"listpack") and
                                          (cursor not in ("0", "") or r[1][0][1] != b"0" or s[1][0][1] != b"0")):
            return None if r[0] == s[0] and (r[0] == "*" or r == s) else "replies differ"
        return scan_pairs(r, s)
    return check


def scan_pairs(r, s):
    if r[1][0] != s[1][0]:
        return "cursors differ"
    if st["enc"] == ("$", b"listpack"):
        return None if r == s else "replies differ (a listpack hash keeps its order)"
    a = sorted(pairs_of(r[1][1]))
    b = sorted(pairs_of(s[1][1]))
    return None if a == b else "pairs differ"


def randfield_check(count, withvalues, resp3):
    """HRANDFIELD: the reply's shape and length as redis-server's; fields (and
    values) from the hash as redis-server last listed it; distinct for a
    positive count."""
    def check(r, s):
        if r[0] in "-_" or r[1] is None or count is None:
            return None if r == s else "replies differ"
        if r[0] != s[0] or s[1] is None or (r[0] != "$" and len(r[1]) != len(s[1])):
            return "shapes differ"
        if r[0] == "$":
            got = [(s[1], None)]
        elif withvalues and resp3:
            got = [(x[1][0][1], x[1][1][1]) for x in s[1]]
        else:
            got = pairs_of(s, withvalues)
        if got is None:
            return "not an array: %r" % (s,)
        pairs = st["pairs"] or {}
        for f, v in got:
            if f not in pairs or (withvalues and pairs[f] != v):
                return "field %r (value %r) not in the hash" % (f, v)
        if count > 0 and len(set(f for f, _ in got)) != len(got):
            return "a positive count repeated a field"
        return None
    return check


def generate_with(resp3):
    def generate(rng, count):
        ents = rng.choice(["2", "4", "8", "16"])
        vals = rng.choice(["4", "16", "64"])
        for srv_cfg in (("hash-max-listpack-entries", ents), ("hash-max-listpack-value", vals)):
            yield Req("CONFIG", "SET", *srv_cfg)
        # Found by a long run: HSETNX of an existing field with a long value
        # leaves a listpack hash as it is.
        yield Req("HSET", "pre", "f", "v")
        yield Req("HSETNX", "pre", "f", "v" * 100)
        yield Req("OBJECT", "ENCODING", "pre")
        yield Req("DEL", "pre")
        for i in range(count):
            k = rng.choice(KEYS[:4]) if rng.random() < 0.9 else "s1"
            c = rng.randrange(34)
            if c in (0, 1, 2):
                n = rng.randrange(1, 5)
                args = []
                for _ in range(n):
                    args += [field(rng), value(rng)]
                yield Req(rng.choice(["HSET", "HSET", "HMSET"]), k, *args)
            elif c == 3:
                yield Req("HSETNX", k, field(rng), value(rng))
            elif c in (4, 5):
                yield Req("HGET", k, field(rng))
            elif c == 6:
                yield Req("HMGET", k, *[field(rng) for _ in range(rng.randrange(1, 4))])
            elif c in (7, 8, 9):
                cmd = rng.choice(["HGETALL", "HKEYS", "HVALS"])
                yield Req("OBJECT", "ENCODING", k, cmp=remember_enc)
                yield Req(cmd, k, cmp=listing(cmd == "HGETALL"))
            elif c in (10, 11):
                yield Req("HDEL", k, *[field(rng) for _ in range(rng.randrange(1, 4))])
            elif c == 12:
                yield Req("HLEN", k)
            elif c == 13:
                yield Req("HSTRLEN", k, field(rng))
            elif c == 14:
                yield Req("HEXISTS", k, field(rng))
            elif c in (15, 16):
                yield Req("HINCRBY", k, rng.choice(["n1", "n2", field(rng)]), incr(rng))
            elif c in (17, 18):
                yield Req("HINCRBYFLOAT", k, rng.choice(["n1", "n2", field(rng)]), fincr(rng))
            elif c in (19, 20):
                yield Req("OBJECT", "ENCODING", k, cmp=remember_enc)
                yield Req("HGETALL", k, cmp=listing(True))
                cnt = rng.choice([None, "0", "1", "2", "3", "5", "100", "-1", "-3", "-20", "abc",
                                  "-9223372036854775808", "4611686018427387904", "-4611686018427387904"])
                wv = cnt is not None and rng.random() < 0.5
                if cnt in ("-4611686018427387904", "4611686018427387904") and not wv:
                    cnt = "-5"  # a reply of 2^62 elements
                args = [] if cnt is None else [cnt] + (["WITHVALUES" if rng.random() < 0.9 else "WITHSCORES"]
                                                        if wv else [])
                n = None
                if cnt is not None:
                    try:
                        n = int(cnt)
                    except ValueError:
                        n = None
                if cnt is None:
                    n = 1
                yield Req("HRANDFIELD", k, *args, cmp=randfield_check(n, wv and len(args) == 2 and
                                                                       args[1] == "WITHVALUES", resp3))
            elif c in (21, 22):
                opts = rng.choice([[], ["COUNT", "1000"], ["MATCH", "f*", "COUNT", "1000"], ["MATCH", "*"],
                                   ["COUNT", "0"], ["COUNT", "x"], ["MATCH"], ["NOVALUES"], ["TYPE", "hash"]])
                cur = rng.choice(["0", "0", "0", "abc", "-1", " 0", ""])
                yield Req("OBJECT", "ENCODING", k, cmp=remember_enc)
                yield Req("HSCAN", k, cur, *opts, cmp=scan_check(cur))
            elif c == 23:
                yield Req("OBJECT", "ENCODING", k, cmp=remember_enc)
            elif c == 24:
                cmd = rng.choice(COMMANDS)
                with_key = cmd not in ("hgetall", "hkeys", "hvals", "hlen", "hrandfield") and rng.random() < 0.5
                yield Req(cmd.upper(), *([k] if with_key else []))  # arity
            elif c == 25:
                yield Req("SET", "s1", value(rng))
                yield Req(rng.choice(["GET", "INCR", "APPEND", "STRLEN"]), k, *(["x"] if rng.random() < 0.3 else []))
            elif c == 26:
                yield Req("MULTI")
                for _ in range(rng.randrange(0, 4)):
                    yield Req(rng.choice(["HSET", "HINCRBY", "HDEL"]), k, field(rng), str(rng.randrange(9)))
                yield Req(rng.choice(["EXEC", "DISCARD"]))
            elif c == 27:
                yield Req("COMMAND", "INFO", rng.choice(COMMANDS))
            elif c == 28:
                ent = rng.choice(["1", "2", "4", "8", "128"])
                yield Req("CONFIG", "SET", "hash-max-listpack-entries", ent)
                yield Req("CONFIG", "GET", "hash-max-listpack-entries")
            elif c == 29:
                yield Req(rng.choice(["DEL", "TYPE", "EXISTS", "PERSIST"]), k)
            elif c == 30:
                k2 = rng.choice(KEYS)
                yield Req(rng.choice(["COPY", "RENAME"]), k, k2)
                yield Req("TYPE", k2)
            elif c == 31:
                yield Req("EXPIRE", k, "1000")
                yield Req("TTL", k, cmp=ttl_check)
            elif c == 32:
                yield Req("HSET", k, "y" * rng.choice([63, 64, 65, 4, 16, 17]), "v")
                yield Req("OBJECT", "ENCODING", k, cmp=remember_enc)
            else:
                yield Req("HINCRBYFLOAT", k, "n1", rng.choice(["0.1", "1e17", "-3.3", "7"]))
                yield Req("DUMP", k, cmp=dump_restore.dump_cmp)
    return generate


if __name__ == "__main__":
    ok = difftest.run("hashes (RESP2)", generate_with(False), 3000)
    ok = difftest.run("hashes (RESP3)", generate_with(True), 1000, resp3=True) and ok
    sys.exit(0 if ok else 1)
