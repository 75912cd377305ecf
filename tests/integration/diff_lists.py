#!/usr/bin/python3
"""diff_lists.py -- the list commands against redis-server.

A random stream over a few keys (three lists, a string, a key in a hash tag):
every list command with its options and edge values (negative and huge
indexes and counts, -0, non-integers, RANK/COUNT/MAXLEN, LEFT/RIGHT in any
case), wrong types both ways (list commands on a string, string commands on a
list), wrong arities, inside MULTI (where the blocking commands do not block),
the blocking commands' non-blocking paths (data present; no data with a
timeout of 0.01 s: nil after the timeout on both), their timeout errors, TYPE,
OBJECT ENCODING (quicklist), DUMP (its elements: the nodes Redis's history
cut differ, docs/commands.md), COPY/RENAME of lists, and COMMAND INFO of every
list command. list-max-listpack-size is set small on both at the start so
that lists span many nodes; a second stream runs with list-compress-depth 1. Every reply must be redis-server's, byte for byte.
SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (DUMP's comparison)
from difftest import Req  # noqa: E402

KEYS = ["l1", "l2", "l3", "s1", "{t}a"]
COMMANDS = ["lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lrange", "lindex", "lset", "linsert",
            "lrem", "ltrim", "lpos", "rpoplpush", "lmove", "lmpop", "blpop", "brpop", "brpoplpush", "blmove",
            "blmpop"]


def elem(rng):
    r = rng.random()
    if r < 0.6:
        return rng.choice("abcde")
    if r < 0.7:
        return rng.choice(["", "0", "-0", "1", "x" * 130, "7" * 20, "a b", "\x00z"])
    return "e%d" % rng.randrange(30)


def index(rng):
    return rng.choice(["0", "1", "-1", "2", "-2", "5", "-5", "100", "-100", "abc", "1.5", "-0",
                       "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                       str(rng.randrange(-12, 12))])


def count(rng):
    return rng.choice(["0", "1", "2", "3", "10", "-1", "abc", "-0", "1000000", "9223372036854775807",
                       "-9223372036854775808", str(rng.randrange(0, 6))])


def side(rng):
    return rng.choice(["LEFT", "RIGHT", "left", "Right", "middle"])


def timeout(rng, in_multi):
    if in_multi:
        return rng.choice(["0", "0.01", "1"])
    return rng.choice(["0.01", "0.01", "0.01", "abc", "-1", "inf", "-inf", "nan", " 1", "", "-0.5", "1e400"])


def op(rng, in_multi):
    k = rng.choice(KEYS)
    k2 = rng.choice(KEYS)
    c = rng.randrange(40)
    if c < 4:
        return Req(rng.choice(["LPUSH", "RPUSH"]), k, *[elem(rng) for _ in range(rng.randrange(1, 6))])
    if c == 4:
        return Req(rng.choice(["LPUSHX", "RPUSHX"]), k, *[elem(rng) for _ in range(rng.randrange(1, 3))])
    if c == 5:
        return Req(rng.choice(["LPOP", "RPOP"]), k)
    if c == 6:
        return Req(rng.choice(["LPOP", "RPOP"]), k, count(rng), *(["1"] if rng.random() < 0.1 else []))
    if c == 7:
        return Req("LLEN", k)
    if c in (8, 9):
        return Req("LRANGE", k, index(rng), index(rng))
    if c == 10:
        return Req("LINDEX", k, index(rng))
    if c == 11:
        return Req("LSET", k, index(rng), elem(rng))
    if c == 12:
        return Req("LINSERT", k, rng.choice(["BEFORE", "AFTER", "after", "x"]), elem(rng), elem(rng))
    if c == 13:
        return Req("LREM", k, rng.choice(["0", "1", "-1", "2", "-2", "abc", "-9223372036854775808"]), elem(rng))
    if c == 14:
        return Req("LTRIM", k, index(rng), index(rng))
    if c in (15, 16):
        opts = []
        for _ in range(rng.randrange(0, 3)):
            opts += rng.choice([["RANK", rng.choice(["1", "2", "-1", "-2", "0", "abc", "-9223372036854775808",
                                                     "9223372036854775807"])],
                                ["COUNT", rng.choice(["0", "1", "2", "-1", "abc"])],
                                ["MAXLEN", rng.choice(["0", "1", "3", "-1", "abc"])],
                                ["FOO"], ["RANK"]])
        return Req("LPOS", k, elem(rng), *opts)
    if c == 17:
        return Req("RPOPLPUSH", k, k2)
    if c == 18:
        return Req("LMOVE", k, k2, side(rng), side(rng))
    if c in (19, 20):
        keys = rng.sample(KEYS, rng.randrange(1, 4))
        n = rng.choice([str(len(keys))] * 6 + ["0", "-1", "abc", str(len(keys) + 1), "99"])
        extra = rng.choice([[], [], ["COUNT", count(rng)], ["COUNT", "2", "COUNT", "1"], ["FOO"], ["COUNT"]])
        return Req("LMPOP", n, *keys, side(rng), *extra)
    if c in (21, 22):
        keys = rng.sample(KEYS, rng.randrange(1, 4))
        return Req(rng.choice(["BLPOP", "BRPOP"]), *keys, timeout(rng, in_multi))
    if c == 23:
        return Req("BRPOPLPUSH", k, k2, timeout(rng, in_multi))
    if c == 24:
        return Req("BLMOVE", k, k2, side(rng), side(rng), timeout(rng, in_multi))
    if c == 25:
        keys = rng.sample(KEYS, rng.randrange(1, 4))
        n = rng.choice([str(len(keys))] * 6 + ["0", "abc", "99"])
        extra = rng.choice([[], ["COUNT", count(rng)], ["FOO"]])
        return Req("BLMPOP", timeout(rng, in_multi), n, *keys, side(rng), *extra)
    if c == 26:
        return Req(rng.choice(["SET", "APPEND"]), rng.choice(["s1", "s1", k]), elem(rng))
    if c == 27:
        return Req(rng.choice(["GET", "TYPE", "EXISTS", "STRLEN"]), k)
    if c == 28 and not in_multi:  # a string's encoding may differ: compared by a check, not inside EXEC
        return Req("OBJECT", "ENCODING", k, cmp=encoding_check)
    if c == 29:
        return Req("DEL", k)
    if c == 30:
        return Req(rng.choice(["COPY", "RENAME"]), k, k2, *(["REPLACE"] if rng.random() < 0.3 else []))
    if c == 31:
        cmd = rng.choice(COMMANDS)
        return Req(cmd.upper(), *([k] * rng.randrange(0, 2)))  # too few arguments
    if c == 32:
        # DUMP compares a list's elements, not its nodes (dump_restore.dump_cmp): not inside EXEC's reply
        return Req("LRANGE", k, "0", "-1") if in_multi else Req("DUMP", k, cmp=dump_restore.dump_cmp)
    if c == 33:
        return Req("EXPIRE", k, "1000")
    if c == 34:
        return Req("TTL", k)
    return Req("LRANGE", k, "0", "-1")


STRING_ENCODINGS = {("$", b"int"), ("$", b"embstr"), ("$", b"raw")}


def encoding_check(r, s):
    """OBJECT ENCODING: a list's must be the same ("quicklist"); a string's
    may differ between the string names, the documented difference of
    diff_strings.py (docs/commands.md, Differences from Redis)."""
    if r == s or (r in STRING_ENCODINGS and s in STRING_ENCODINGS):
        return None
    return "encodings differ"


def generate(rng, count, fill="4"):
    yield Req("CONFIG", "SET", "list-max-listpack-size", fill)
    yield Req("CONFIG", "GET", "list-max-listpack-size")
    yield Req("CONFIG", "GET", "list-compress-depth")
    for cmd in COMMANDS:
        yield Req("COMMAND", "INFO", cmd)
    yield Req("COMMAND", "GETKEYS", "LMPOP", "2", "a", "b", "LEFT")
    yield Req("COMMAND", "GETKEYSANDFLAGS", "BLMPOP", "0", "2", "a", "b", "LEFT")
    yield Req("COMMAND", "GETKEYS", "BLPOP", "a", "b", "0")
    yield Req("COMMAND", "GETKEYS", "LMOVE", "a", "b", "LEFT", "RIGHT")
    # RANK -2^63: Redis 7.0 negates it into itself, so COUNT never stops the search.
    yield Req("RPUSH", "l1", "d", "x", "d", "d")
    yield Req("LPOS", "l1", "d", "COUNT", "1", "RANK", "-9223372036854775808")
    yield Req("LPOS", "l1", "d", "RANK", "-9223372036854775808")
    yield Req("DEL", "l1")
    n = 0
    while n < count:
        if rng.random() < 0.05:
            yield Req("MULTI")
            for _ in range(rng.randrange(1, 6)):
                yield op(rng, True)
                n += 1
            yield Req(rng.choice(["EXEC"] * 5 + ["DISCARD"]))
            n += 2
            continue
        if rng.random() < 0.01:
            yield Req("CONFIG", "SET", "list-max-listpack-size", rng.choice(["-1", "-2", "-5", "1", "3", "128"]))
            n += 1
            continue
        yield op(rng, False)
        n += 1
    for k in KEYS:
        yield Req("TYPE", k)
        yield Req("LRANGE", k, "0", "-1")


def generate_compressed(rng, count):
    """The same stream with list-compress-depth 1 and nodes of 32 elements, so
    that the inner nodes of the longer lists are stored compressed."""
    yield Req("CONFIG", "SET", "list-compress-depth", "1")
    yield from generate(rng, count, fill="32")


if __name__ == "__main__":
    ok = difftest.run("lists", generate, 3000)
    ok = difftest.run("lists with list-compress-depth 1", generate_compressed, 2000) and ok
    sys.exit(0 if ok else 1)
