#!/usr/bin/python3
"""diff_sets.py -- the set commands against redis-server.

A random stream over a few keys: every set command with its options and edge
members (integers at the intset's edges, "-0", "007", " 1", non-integers, the
empty string), counts (negative, zero, huge, non-numbers), SINTERCARD's
numkeys and LIMIT, SSCAN's MATCH and COUNT, wrong types both ways (set commands
on a string, string commands on a set), wrong arities, MULTI/EXEC, COPY /
RENAME / TYPE / OBJECT ENCODING / DUMP (byte for byte for an intset, the
type alone for a hash table, whose order is each server's), with a small set-max-intset-entries sent to
both servers so the intset and hash-table encodings and the conversions between
them are met often. Replies are compared byte for byte, as unordered
collections where Redis leaves the order undefined, and SPOP / SRANDMEMBER by
their properties, after which the generator re-creates the key the same way on
both. Run twice: RESP2, then RESP3. SEED=N replays; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (DUMP's comparison)
from difftest import Req, UNORDERED  # noqa: E402

KEYS = ["s1", "s2", "s3", "{t}a", "str", "none"]
SETKEYS = ["s1", "s2", "s3", "{t}a"]
EDGE = ["0", "-0", "007", " 1", "1 ", "+1", "", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648",
        "-2147483649", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e3", "3.0", "a*b",
        "x" * 70]


def member(rng):
    r = rng.random()
    if r < 0.5:
        return str(rng.randrange(-20, 40))
    if r < 0.65:
        return rng.choice(EDGE)
    return rng.choice(["a", "b", "c", "ab", "abc", "hello", "m1", "m2", "m3", "zz"]) + (
        str(rng.randrange(5)) if rng.random() < 0.3 else "")


def int_member(rng):
    return str(rng.randrange(-50, 50)) if rng.random() < 0.8 else rng.choice(EDGE[:14])


def count(rng):
    return rng.choice(["0", "1", "2", "3", "5", "10", "100", "-1", "-3", "-10", "abc", "1.5", "",
                       "9223372036854775807", "-9223372036854775808", "-9223372036854775807", str(rng.randrange(20))])


def same_shape(r, s):
    """Random replies (SPOP, SRANDMEMBER): the same type and length, no nil
    against a value, members distinct where they must be."""
    if r[0] != s[0]:
        return "types differ: %r %r" % (r, s)
    if isinstance(r[1], list):
        if len(r[1]) != len(s[1]):
            return "lengths differ"
        if r[0] == "-":
            return None if r == s else "errors differ"
    elif r[0] == "-" and r != s:
        return "errors differ"
    return None


def distinct(r, s):
    why = same_shape(r, s)
    if why:
        return why
    if isinstance(s[1], list) and len(set(x[1] for x in s[1])) != len(s[1]):
        return "repeated members in scratchpad's reply"
    return None


def sscan_check(start):
    """A page of SSCAN from cursor start: a scan from 0 that both finish at once
    returns the same set of members; else the reply's shape only (a hash
    table's pages and cursors are each server's own)."""
    return lambda r, s: sscan_page(start, r, s)


def sscan_page(start, r, s):
    if r[0] == "-" or s[0] == "-":
        return None if r == s else "errors differ"
    if r[0] != "*" or s[0] != "*" or len(r[1]) != 2 or len(s[1]) != 2:
        return "not an SSCAN reply"
    if start == "0" and r[1][0][1] == b"0" and s[1][0][1] == b"0":
        return None if difftest.canon(r[1][1]) == difftest.canon(s[1][1]) else "members differ"
    return None


def refill(rng, k):
    """A deterministic re-creation of k after a random command."""
    yield Req("DEL", k)
    if rng.random() < 0.5:
        yield Req("SADD", k, *[int_member(rng) for _ in range(rng.randrange(1, 12))])
    else:
        yield Req("SADD", k, *[member(rng) for _ in range(rng.randrange(1, 12))])


def generate(rng, n):
    """The stream; with DIFF_SYNC=1, every request is followed by SMEMBERS of
    every key (to find where two datasets first part)."""
    if os.environ.get("DIFF_SYNC"):
        in_multi = [False]
        for req in generate_stream(rng, n):
            yield req
            if req.args[0] in (b"MULTI", b"EXEC"):
                in_multi[0] = req.args[0] == b"MULTI"
            if req.args[0] not in (b"MULTI", b"SPOP", b"SCARD", b"EXISTS", b"OBJECT") and not in_multi[0]:
                for k in KEYS:
                    yield Req("SMEMBERS", k, cmp=UNORDERED)
        return
    yield from generate_stream(rng, n)


def generate_stream(rng, n):
    yield Req("CONFIG", "SET", "set-max-intset-entries", "8")
    i = 0
    while i < n:
        i += 1
        k = rng.choice(KEYS)
        keys = [rng.choice(KEYS) for _ in range(rng.randrange(1, 4))]
        c = rng.randrange(40)
        if c < 5:
            gen = int_member if rng.random() < 0.5 else member
            yield Req("SADD", k, *[gen(rng) for _ in range(rng.randrange(1, 8))])
        elif c < 7:
            yield Req("SREM", k, *[member(rng) for _ in range(rng.randrange(1, 6))])
        elif c == 7:
            yield Req("SMEMBERS", k, cmp=UNORDERED)
        elif c == 8:
            yield Req("SISMEMBER", k, member(rng))
        elif c == 9:
            yield Req("SMISMEMBER", k, *[member(rng) for _ in range(rng.randrange(1, 5))])
        elif c == 10:
            yield Req("SCARD", k)
        elif c == 11:
            yield Req("OBJECT", "ENCODING", k)
            yield Req("DUMP", k, cmp=dump_restore.dump_cmp)
        elif c == 12:
            yield Req("SMOVE", k, rng.choice(KEYS), member(rng))
        elif c == 13:
            yield Req(rng.choice(["SINTER", "SUNION", "SDIFF"]), *keys, cmp=UNORDERED)
        elif c == 14:
            yield Req(rng.choice(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), rng.choice(KEYS), *keys)
        elif c == 15:
            nk = rng.choice([str(len(keys)), str(len(keys)), "0", "-1", "abc", str(len(keys) + 1), "1"])
            extra = rng.choice([[], [], ["LIMIT", rng.choice(["0", "1", "2", "-1", "abc", "100"])], ["LIMIT"],
                                ["FOO", "1"]])
            yield Req("SINTERCARD", nk, *keys, *extra)
        elif c == 16:
            # SPOP: random on both; compare shapes, then the same cardinality, then re-create.
            if rng.random() < 0.5:
                yield Req("SPOP", k, cmp=same_shape)
            else:
                yield Req("SPOP", k, count(rng), cmp=distinct)
            yield Req("SCARD", k)
            yield Req("EXISTS", k)
            yield from refill(rng, k)
        elif c == 17:
            if rng.random() < 0.3:
                yield Req("SRANDMEMBER", k, cmp=same_shape)
            else:
                cnt = count(rng)
                if cnt.startswith("-9223372036854775807"):
                    cnt = "-7"
                yield Req("SRANDMEMBER", k, cnt, cmp=same_shape if cnt.startswith("-") else distinct)
        elif c == 18:
            # SPOP taking most of a set of integers: Redis 7.0 rebuilds it from what stays.
            big = rng.choice(SETKEYS)
            yield Req("DEL", big)
            yield Req("SADD", big, *[str(x) for x in range(rng.randrange(5, 30))])
            if rng.random() < 0.3:
                yield Req("SADD", big, "x")
                yield Req("SREM", big, "x")
            yield Req("OBJECT", "ENCODING", big)
            yield Req("SPOP", big, str(rng.randrange(1, 32)), cmp=distinct)
            yield Req("OBJECT", "ENCODING", big)
            yield Req("SCARD", big)
            yield from refill(rng, big)
        elif c == 19:
            opts = []
            if rng.random() < 0.5:
                opts += ["MATCH", rng.choice(["*", "1*", "*a*", "m?", "[ab]*", "-*"])]
            if rng.random() < 0.5:
                opts += ["COUNT", rng.choice(["1000", "1000", "5", "0", "-1", "abc"])]
            if rng.random() < 0.1:
                opts += rng.choice([["TYPE", "set"], ["MATCH"], ["FOO", "1"]])
            cur = rng.choice(["0", "0", "0", "abc", "-1", " 1", "99999999999999999999999"])
            yield Req("SSCAN", k, cur, *opts, cmp=sscan_check(cur))
        elif c == 20:
            cmd = rng.choice([["SADD", k], ["SREM", k], ["SMEMBERS"], ["SISMEMBER", k], ["SMISMEMBER", k],
                              ["SCARD"], ["SPOP", k, "1", "2"], ["SRANDMEMBER", k, "1", "2"], ["SMOVE", k],
                              ["SINTER"], ["SINTERCARD"], ["SINTERCARD", "1"], ["SINTERSTORE", k], ["SUNION"],
                              ["SUNIONSTORE", k], ["SDIFF"], ["SDIFFSTORE", k], ["SSCAN", k], ["SCARD", k, k]])
            yield Req(*cmd)
        elif c == 21:
            yield Req("SET", "str", member(rng))
        elif c == 22:
            yield Req(rng.choice(["GET", "INCR", "STRLEN"]), k)
        elif c == 23:
            yield Req("TYPE", k)
        elif c == 24:
            yield Req("COPY", k, rng.choice(KEYS), *rng.choice([[], ["REPLACE"]]))
        elif c == 25:
            yield Req("RENAME", k, rng.choice(KEYS))
        elif c == 26:
            yield Req("DEL", k)
        elif c == 27:
            yield Req("MULTI")
            for _ in range(rng.randrange(1, 5)):
                kk = rng.choice(KEYS)
                yield rng.choice([Req("SADD", kk, member(rng)), Req("SREM", kk, member(rng)), Req("SCARD", kk),
                                  Req("SISMEMBER", kk, member(rng)), Req("SMOVE", kk, rng.choice(KEYS), member(rng)),
                                  Req("SUNIONSTORE", rng.choice(KEYS), kk, rng.choice(KEYS)),
                                  Req("SINTERCARD", "2", kk, rng.choice(KEYS)), Req("OBJECT", "ENCODING", kk)])
            yield Req("EXEC")
        elif c == 28:
            yield Req("CONFIG", "SET", "set-max-intset-entries", rng.choice(["8", "8", "3", "512", "0"]))
        elif c == 29:
            # Across the limit: a set of integers growing past it, and one shrinking again.
            big = rng.choice(SETKEYS)
            yield Req("DEL", big)
            yield Req("SADD", big, *[str(x * 7) for x in range(rng.randrange(1, 12))])
            yield Req("OBJECT", "ENCODING", big)
            yield Req("SADD", big, str(rng.randrange(100, 200)))
            yield Req("OBJECT", "ENCODING", big)
            yield Req("SREM", big, "0", "7", "14")
            yield Req("OBJECT", "ENCODING", big)
        elif c == 30:
            yield Req("EXPIRE", k, "1000")
            yield Req("TTL", k)
        elif c == 31:
            yield Req("SINTERSTORE", k, *keys)
            yield Req("OBJECT", "ENCODING", k)
            yield Req("SMEMBERS", k, cmp=UNORDERED)
        elif c == 32:
            yield Req("COMMAND", "INFO", rng.choice(["sadd", "srem", "smembers", "sismember", "smismember", "scard",
                                                     "spop", "srandmember", "smove", "sinter", "sunion", "sdiff",
                                                     "sscan", "sintercard", "sinterstore", "sunionstore",
                                                     "sdiffstore"]))
        elif c == 34:
            yield Req("COMMAND", rng.choice(["GETKEYS", "GETKEYSANDFLAGS"]),
                      *rng.choice([["SINTERCARD", "2", "a", "b", "LIMIT", "1"], ["SINTERCARD", "3", "a", "b"],
                                   ["SINTERCARD", "0", "a"], ["SINTERCARD", "x", "a"], ["SINTERSTORE", "d", "a", "b"],
                                   ["SUNIONSTORE", "d", "a"], ["SDIFFSTORE", "d", "a", "b", "c"], ["SMOVE", "a", "b", "m"],
                                   ["SINTER", "a", "b"], ["SADD", "k", "m"], ["SINTERSTORE", "d"], ["SMOVE", "a"]]))
        elif c == 33:
            yield Req("COMMAND", "DOCS", rng.choice(["scard", "sismember", "smembers"]), cmp=docs_summary)
        else:
            yield Req("SADD", k, *[member(rng) for _ in range(rng.randrange(1, 4))])


def docs_summary(r, s):
    """COMMAND DOCS: Redis also lists the arguments, which the rows do not carry:
    the summary, since, group and complexity must be the same."""
    def head(node):
        if node[0] == "-" or not node[1]:
            return node
        doc = node[1][1][1]
        return [(doc[i][1], doc[i + 1]) for i in range(0, len(doc), 2)
                if doc[i][1] in (b"summary", b"since", b"group", b"complexity")]
    return None if head(r) == head(s) else "docs differ"


if __name__ == "__main__":
    count_req = 3000
    ok = difftest.run("sets (RESP2)", generate, count_req)
    ok = difftest.run("sets (RESP3)", generate, count_req // 3, resp3=True) and ok
    sys.exit(0 if ok else 1)
