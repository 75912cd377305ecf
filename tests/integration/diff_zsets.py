#!/usr/bin/python3
"""diff_zsets.py -- the sorted set commands against redis-server.

A random stream over a few keys: every sorted set command with its options
(ZADD NX/XX/GT/LT/CH/INCR, ZRANGE BYSCORE/BYLEX/REV/LIMIT/WITHSCORES, WEIGHTS
and AGGREGATE, ...) and edge values (-0, inf, +inf, exclusive bounds,
non-numbers, negative and huge indexes and counts), wrong types both ways,
plain sets (SADD: intsets and hash tables) as inputs of ZUNION, ZINTER, ZDIFF,
ZINTERCARD and the STORE forms, wrong arities, inside MULTI (where BZPOPMIN
and BZMPOP do not block), DUMP byte for byte (listpacks and skiplists), the blocking pops' non-blocking paths (data
present, or a 0.01 s timeout; their waits are in zset_blocking.py), and
OBJECT ENCODING across small thresholds set on both servers at the start (and
changed now and then). The lex-range commands run on keys whose scores are all 0 (Redis leaves them
undefined otherwise). Replies byte for byte, in RESP2 and in RESP3 (HELLO 3:
scores are doubles); ZRANDMEMBER by its properties, ZSCAN of a skiplist as a
set of pairs. COMMAND INFO of each command byte for byte (difftest.py).
SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (DUMP's comparison)
from difftest import Req  # noqa: E402

ZK = ["z1", "z2", "z3", "{t}z"]
LX = ["lx1", "lx2"]
OTHER = ["s1", "nokey"]
PS = ["ps1", "ps2"]  # plain sets: inputs of scores 1 to ZUNION and the rest
COMMANDS = ("zadd zincrby zrem zcard zcount zlexcount zscore zmscore zrank zrevrank zrange zrangestore "
            "zrangebyscore zrevrangebyscore zrangebylex zrevrangebylex zrevrange zremrangebyrank "
            "zremrangebyscore zremrangebylex zpopmin zpopmax zrandmember zscan zmpop zunion zinter zdiff zunionstore "
            "zinterstore zdiffstore zintercard bzpopmin bzpopmax bzmpop").split()
GETKEYS = [["ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"], ["ZUNION", "2", "a", "b"],
           ["ZMPOP", "2", "a", "b", "MIN"], ["ZINTERCARD", "3", "a", "b"], ["ZUNION", "x", "a", "b"],
           ["ZUNION", "0", "a"], ["ZDIFFSTORE", "d", "1", "a"], ["ZINTER", "1", "a", "WITHSCORES"],
           ["ZRANGESTORE", "d", "s", "0", "-1"], ["ZADD", "k", "1", "m"], ["ZMPOP", "3", "a", "b", "MIN"],
           ["BZPOPMIN", "a", "b", "0"], ["BZMPOP", "0", "2", "a", "b", "MAX"], ["BZMPOP", "0", "3", "a", "b", "MIN"]]


def member(rng):
    r = rng.random()
    if r < 0.8:
        return rng.choice("abcdefghij")
    if r < 0.9:
        return rng.choice(["", "A", "aa", "ab", "b\x00c", "x" * 20, "é"])
    return "m" * rng.randrange(10, 40)


def score(rng):
    r = rng.random()
    if r < 0.5:
        return str(rng.randrange(-5, 6))
    if r < 0.8:
        return rng.choice(["1.5", "-2.25", "0.1", "0.2", "0.3", "1e20", "-0", "0", "3.0", "1e-5", "7e300", "1e308",
                           "-1e308", "0x10", "1E3", ".5", "5."])
    if r < 0.93:
        return rng.choice(["inf", "-inf", "+inf", "Infinity", "-INF"])
    return rng.choice(["abc", "nan", "", " 1", "1 ", "1e400", "(1", "1e-400", "--1"])


def srange(rng):
    r = rng.random()
    if r < 0.6:
        return rng.choice(["", "("]) + str(rng.randrange(-5, 6))
    if r < 0.9:
        return rng.choice(["-inf", "+inf", "inf", "(-inf", "(+inf", "(1.5", "0.1", "(0", "-0", "1e20", "(3"])
    return rng.choice(["abc", "nan", "(", "", "[1", "(abc", " 2", "1x"])


def lrange_item(rng):
    r = rng.random()
    if r < 0.3:
        return rng.choice(["-", "+"])
    if r < 0.9:
        return rng.choice(["[", "("]) + rng.choice(["a", "b", "c", "d", "e", "j", "k", "", "aa", "bb"])
    return rng.choice(["a", "", "++", "-a", "x"])


def idx(rng):
    return rng.choice([str(rng.randrange(-6, 7)), "0", "-1", "100", "-100", "9223372036854775807",
                       "-9223372036854775808", "abc", "1.5"])


def count(rng):
    return rng.choice(["0", "1", "2", "3", "5", "100", "-1", "-3", "abc", "9223372036854775807"])


def zkey(rng):
    r = rng.random()
    if r < 0.85:
        return rng.choice(ZK)
    return rng.choice(OTHER)


def keys_for_op(rng):
    return [rng.choice(ZK + LX + OTHER + PS) for _ in range(rng.randrange(1, 4))]


def randmember_check(r, s):
    """ZRANDMEMBER: the same shape and length; a member in both replies has
    the same score in both; with a positive count, no member twice."""
    if r[0] != s[0]:
        return "types differ"
    if r[0] != "*":
        return None if r[0] in "$_" or r == s else "replies differ"
    if len(r[1]) != len(s[1]):
        return "lengths differ"
    return None


def zrandmember_req(rng, k):
    args = ["ZRANDMEMBER", k]
    if rng.random() < 0.8:
        args.append(count(rng))
        if rng.random() < 0.5:
            args.append(rng.choice(["WITHSCORES", "WITHSCORES", "withscores", "foo"]))
    return Req(*args, cmp=randmember_check)


def pairs_of(node):
    v = [x[1] for x in node[1]]
    return sorted(zip(v[0::2], v[1::2]))


def zscan_check(r, s):
    """ZSCAN 0 COUNT 1000 over a small set: the whole set in one page, cursor
    0 on both, the same (member, score) pairs (a skiplist's order is its hash
    table's)."""
    if r[0] != "*" or s[0] != "*":
        return None if r == s else "replies differ"
    if r[1][0] != s[1][0]:
        return "cursors differ"
    return None if pairs_of(r[1][1]) == pairs_of(s[1][1]) else "pairs differ"


def zscan_errors_check(r, s):
    """ZSCAN with any cursor: the same error, or a page on both (which members
    a skiplist's page holds depends on its hash table)."""
    if r[0] == "-" or s[0] == "-":
        return None if r == s else "replies differ"
    return None if r[0] == s[0] == "*" else "types differ"


STRING_ENCODINGS = {("$", b"int"), ("$", b"embstr"), ("$", b"raw")}


def encoding_check(r, s):
    """OBJECT ENCODING: the same, but a string's encodings are accepted as each
    other (the documented difference diff_strings.py checks)."""
    return None if r == s or (r in STRING_ENCODINGS and s in STRING_ENCODINGS) else "encodings differ"


def generate(rng, n):
    yield Req("CONFIG", "SET", "zset-max-listpack-entries", "8")
    yield Req("CONFIG", "SET", "zset-max-listpack-value", "16")
    yield Req("SET", "s2", "a string")
    # Fixed cases first: regressions found by long runs.
    # ZINTER leaves a NaN product (inf * weight 0) of a later set to the
    # aggregation (a sum gives 0), unlike ZUNION, which makes it 0 first.
    for req in (["ZADD", "fx", "inf", "i", "-1", "b", "-inf", "n"], ["ZADD", "fy", "1", "i", "2", "b", "3", "c"],
                ["ZINTER", "2", "fy", "fx", "WEIGHTS", "1", "0", "WITHSCORES"],
                ["ZINTER", "2", "fx", "fy", "WEIGHTS", "0", "1", "AGGREGATE", "MAX", "WITHSCORES"],
                ["ZINTER", "2", "fx", "fx", "WEIGHTS", "1", "0", "WITHSCORES"],
                ["ZUNION", "2", "fy", "fx", "WEIGHTS", "1", "0", "WITHSCORES"], ["DEL", "fx", "fy"],
                # ZRANGESTORE adds in the range's order, compact (-0 becomes 0)
                # until it converts, a skiplist at once for a longer rank range.
                ["CONFIG", "SET", "zset-max-listpack-entries", "3"],
                ["ZADD", "fs", "1", "a", "2", "b", "3", "c", "4", "d", "-0", "z", "-0", "y"],
                ["ZRANGESTORE", "fd", "fs", "0", "-1"], ["ZRANGE", "fd", "0", "-1", "WITHSCORES"],
                ["ZRANGESTORE", "fd", "fs", "-inf", "+inf", "BYSCORE"], ["ZRANGE", "fd", "0", "-1", "WITHSCORES"],
                ["ZRANGESTORE", "fd", "fs", "+inf", "-inf", "BYSCORE", "REV"],
                ["ZRANGE", "fd", "0", "-1", "WITHSCORES"], ["ZRANGESTORE", "fd", "fs", "0", "1"],
                ["ZRANGE", "fd", "0", "-1", "WITHSCORES"], ["ZUNIONSTORE", "fd", "1", "fs"],
                ["ZRANGE", "fd", "0", "-1", "WITHSCORES"], ["ZREMRANGEBYSCORE", "fs", "1", "4"],
                ["ZUNIONSTORE", "fd", "1", "fs"], ["ZRANGE", "fd", "0", "-1", "WITHSCORES"], ["DEL", "fs", "fd"],
                ["CONFIG", "SET", "zset-max-listpack-entries", "8"],
                # Plain sets are inputs of scores 1 (an intset and a hash table).
                ["SADD", "fi", "1", "2", "3"], ["SADD", "fh", "a", "b", "2"], ["ZADD", "fz", "5", "a", "7", "2"],
                ["ZUNION", "3", "fi", "fh", "fz", "WITHSCORES"], ["ZINTER", "2", "fz", "fh", "WEIGHTS", "2", "3",
                                                                  "WITHSCORES"],
                ["ZDIFF", "2", "fh", "fz", "WITHSCORES"], ["ZINTERCARD", "2", "fi", "fh", "LIMIT", "1"],
                ["ZINTERSTORE", "fd", "2", "fi", "fi", "AGGREGATE", "MAX"], ["ZRANGE", "fd", "0", "-1", "WITHSCORES"],
                ["ZDIFFSTORE", "fd", "1", "fh"], ["ZRANGE", "fd", "0", "-1", "WITHSCORES"],
                ["ZUNION", "2", "fi", "s2"], ["DEL", "fi", "fh", "fz", "fd"]):
        yield Req(*req)
    for name in COMMANDS:
        yield Req("COMMAND", "INFO", name)
    for args in GETKEYS:
        yield Req("COMMAND", "GETKEYS", *args)
        yield Req("COMMAND", "GETKEYSANDFLAGS", *args)
    for i in range(n):
        k = zkey(rng)
        k2 = zkey(rng)
        lx = rng.choice(LX + ["s2"])
        c = rng.randrange(50)
        if c < 5:
            opts = rng.sample(["NX", "XX", "GT", "LT", "CH", "INCR"], rng.choice([0, 0, 1, 1, 2, 3]))
            pairs = []
            for _ in range(1 if "INCR" in opts and rng.random() < 0.9 else rng.randrange(1, 6)):
                pairs += [score(rng), member(rng)]
            if rng.random() < 0.03:
                pairs = pairs[:-1]
            yield Req("ZADD", k, *(opts + pairs))
        elif c == 5:
            yield Req("ZINCRBY", k, score(rng), member(rng))
        elif c == 6:
            yield Req("ZREM", k, *[member(rng) for _ in range(rng.randrange(1, 4))])
        elif c == 7:
            yield Req("ZCARD", k)
        elif c == 8:
            yield Req("ZCOUNT", k, srange(rng), srange(rng))
        elif c == 9:
            yield Req("ZLEXCOUNT", lx, lrange_item(rng), lrange_item(rng))
        elif c == 10:
            yield Req("ZSCORE", k, member(rng))
        elif c == 11:
            yield Req("ZMSCORE", k, *[member(rng) for _ in range(rng.randrange(1, 4))])
        elif c == 12:
            yield Req(rng.choice(["ZRANK", "ZREVRANK"]), k, member(rng))
        elif c in (13, 14):
            mode = rng.choice(["rank", "rank", "score", "lex"])
            key = lx if mode == "lex" else k
            if mode == "rank":
                a, b = idx(rng), idx(rng)
            elif mode == "score":
                a, b = srange(rng), srange(rng)
            else:
                a, b = lrange_item(rng), lrange_item(rng)
            opts = []
            if mode == "score" or (mode != "rank" and rng.random() < 0.9):
                opts.append("BYSCORE" if mode == "score" else "BYLEX")
            if rng.random() < 0.4:
                opts.append("REV")
            if rng.random() < 0.4:
                opts += ["LIMIT", rng.choice(["0", "1", "2", "-1", "5", "abc"]), count(rng)]
            if rng.random() < 0.4:
                opts.append("WITHSCORES")
            rng.shuffle(opts)
            if rng.random() < 0.03:
                opts.append(rng.choice(["BYSCORE", "foo", "LIMIT"]))
            if c == 13:
                yield Req("ZRANGE", key, a, b, *opts)
            else:
                dst = rng.choice(LX) if key in LX else k2
                yield Req("ZRANGESTORE", dst, key, a, b, *opts)
        elif c == 15:
            yield Req(rng.choice(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE"]), k, srange(rng), srange(rng),
                      *rng.choice([[], ["WITHSCORES"], ["LIMIT", "1", "2"], ["LIMIT", "0", count(rng), "WITHSCORES"],
                                   ["LIMIT", "-1", "1"], ["LIMIT", "1"], ["REV"]]))
        elif c == 16:
            yield Req(rng.choice(["ZRANGEBYLEX", "ZREVRANGEBYLEX"]), lx, lrange_item(rng), lrange_item(rng),
                      *rng.choice([[], ["LIMIT", "1", "2"], ["LIMIT", "0", count(rng)], ["WITHSCORES"], ["LIMIT"]]))
        elif c == 17:
            yield Req("ZREVRANGE", k, idx(rng), idx(rng), *rng.choice([[], ["WITHSCORES"], ["LIMIT", "0", "1"]]))
        elif c == 18:
            yield Req("ZREMRANGEBYRANK", rng.choice([k, lx]), idx(rng), idx(rng))
        elif c == 19:
            yield Req("ZREMRANGEBYSCORE", k, srange(rng), srange(rng))
        elif c == 20:
            yield Req("ZREMRANGEBYLEX", lx, lrange_item(rng), lrange_item(rng))
        elif c == 21:
            yield Req(rng.choice(["ZPOPMIN", "ZPOPMAX"]), rng.choice([k, lx]),
                      *rng.choice([[], [count(rng)], ["1", "2"]]))
        elif c == 22:
            ks = keys_for_op(rng)
            nk = rng.choice([str(len(ks))] * 4 + ["0", "-1", "abc", str(len(ks) + 1)])
            opts = [rng.choice(["MIN", "MAX", "min", "foo"])]
            if rng.random() < 0.5:
                opts += ["COUNT", rng.choice(["1", "2", "10", "0", "-1", "abc"])]
            if rng.random() < 0.05:
                opts += ["COUNT", "1"]
            ks = [x for x in ks if x not in LX] or ["nokey"]
            yield Req("ZMPOP", str(len(ks)) if nk.isdigit() and int(nk) == len(ks) + 1 and rng.random() < 0.5 else nk,
                      *ks, *opts)
        elif c == 23:
            yield zrandmember_req(rng, rng.choice([k, lx]))
        elif c in (24, 25):
            op = rng.choice(["ZUNION", "ZINTER", "ZDIFF"])
            ks = keys_for_op(rng)
            nk = rng.choice([str(len(ks))] * 6 + ["0", "-1", "abc", str(len(ks) + 2)])
            opts = []
            if rng.random() < 0.4:
                opts += ["WEIGHTS"] + [rng.choice(["1", "2", "-1", "0", "0.5", "inf", "-inf", "abc"])
                                       for _ in range(len(ks) if rng.random() < 0.9 else len(ks) + 1)]
            if rng.random() < 0.4:
                opts += ["AGGREGATE", rng.choice(["SUM", "MIN", "MAX", "max", "avg"])]
            store = c == 25
            if not store and rng.random() < 0.5:
                opts.append("WITHSCORES")
            if store:
                yield Req(op + "STORE", k2, nk, *ks, *opts)
            else:
                yield Req(op, nk, *ks, *opts)
        elif c == 26:
            ks = keys_for_op(rng)
            nk = rng.choice([str(len(ks))] * 6 + ["0", "-1", "abc", str(len(ks) + 2)])
            yield Req("ZINTERCARD", nk, *ks, *rng.choice([[], ["LIMIT", "1"], ["LIMIT", "0"], ["LIMIT", "-1"],
                                                          ["LIMIT", "abc"], ["LIMIT"], ["WITHSCORES"]]))
        elif c == 27:
            r = rng.random()
            if r < 0.8:
                yield Req("ZSCAN", rng.choice([k, lx]), "0", "COUNT", "1000",
                          *rng.choice([[], ["MATCH", "a*"], ["MATCH", "[a-c]"]]), cmp=zscan_check)
            else:
                yield Req("ZSCAN", k, rng.choice(["0", "abc", "-1", " 1", "7"]),
                          *rng.choice([[], ["COUNT", "0"], ["COUNT"], ["TYPE", "zset"], ["COUNT", "x"]]),
                          cmp=zscan_errors_check)
        elif c == 28:
            yield Req("OBJECT", "ENCODING", rng.choice([k, lx]), cmp=encoding_check)
        elif c == 29:
            yield Req("TYPE", rng.choice([k, lx]))
        elif c == 30:
            # lex keys: members with score 0 only
            yield Req("ZADD", lx, *sum([["0", member(rng)] for _ in range(rng.randrange(1, 5))], []))
        elif c == 31:
            yield Req("SET", "s1", "x")
        elif c == 32:
            yield Req(rng.choice(["GET", "APPEND", "INCR", "STRLEN"]), k, *(["y"] if rng.random() < 0.3 else []))
        elif c == 33:
            yield Req(rng.choice(["DEL", "UNLINK"]), k)
        elif c == 34:
            yield Req(rng.choice(["RENAME", "COPY"]), k, k2)
        elif c == 35:
            yield Req("EXISTS", k)
        elif c == 36:
            yield Req("MULTI")
            for _ in range(rng.randrange(0, 4)):
                yield Req(rng.choice(["ZADD", "ZINCRBY"]), k, "1", member(rng))
                yield Req("ZRANGE", k, "0", "-1", "WITHSCORES")
                yield Req("ZPOPMIN", k)
                if rng.random() < 0.3:
                    yield Req(*rng.choice([["BZPOPMIN", k, k2, "0"], ["BZPOPMAX", k, "0"],
                                           ["BZMPOP", "0", "2", k, k2, "MAX", "COUNT", "2"]]))
            yield Req(rng.choice(["EXEC", "DISCARD"]))
        elif c == 37:
            yield Req(rng.choice(["ZADD", "ZINCRBY", "ZRANGE", "ZCARD", "ZSCORE", "ZREM", "ZCOUNT", "ZPOPMIN",
                                  "ZMPOP", "ZUNIONSTORE", "ZRANGESTORE", "ZSCAN", "ZMSCORE",
                                  "ZINTERCARD", "ZRANK", "ZLEXCOUNT"]),
                      *([k] * rng.randrange(0, 2)))
        elif c == 38:
            yield Req("CONFIG", "SET", "zset-max-listpack-entries", rng.choice(["8", "8", "8", "0", "1", "128"]))
        elif c == 39:
            yield Req("CONFIG", "SET", "zset-max-listpack-value", rng.choice(["16", "16", "0", "64"]))
        elif c == 40:
            yield Req("ZRANGE", k, "0", "-1", "WITHSCORES")
        elif c == 41:
            yield Req("ZRANGE", lx, "-", "+", "BYLEX")
        elif c == 42:
            yield Req("ZADD", k, *sum([[score(rng), "m%d" % rng.randrange(30)] for _ in range(rng.randrange(1, 12))],
                                      []))
        elif c == 43:
            yield Req("ZINCRBY", k, rng.choice(["inf", "-inf", "1e308", "-1e308"]), member(rng))
        elif c == 44:
            yield Req("ZADD", k, "INCR", rng.choice(["inf", "-inf"]), member(rng))
        elif c == 46:
            # With data (a ZADD first, or whatever the key holds) or a short
            # timeout: never a real wait.
            ks = keys_for_op(rng)
            t = rng.choice(["0.01", "-1", "abc"])
            if rng.random() < 0.7:
                yield Req("ZADD", ks[-1], "0" if ks[-1] in LX else rng.choice(["1", "-2", "0.5", "inf"]), member(rng))
                t = rng.choice(["0", "0", "0", "0.01", "-1", "abc", "1e400", "-0", "inf", "0.5"])
            yield Req(rng.choice(["BZPOPMIN", "BZPOPMAX"]), *ks, t)
        elif c == 47:
            ks = keys_for_op(rng)
            nk = rng.choice([str(len(ks))] * 4 + ["0", "-1", "abc", str(len(ks) + 1)])
            t = rng.choice(["0.01", "-1", "abc"])
            if rng.random() < 0.7:
                yield Req("ZADD", ks[-1], "0" if ks[-1] in LX else rng.choice(["1", "-2", "0.5", "inf"]), member(rng))
                t = rng.choice(["0", "0", "0.01", "-1", "abc"])
            opts = [rng.choice(["MIN", "MAX", "max", "foo"])]
            if rng.random() < 0.5:
                opts += ["COUNT", rng.choice(["1", "2", "10", "0", "-1", "abc"])]
            yield Req("BZMPOP", t, nk, *ks, *opts)
        elif c == 48:
            # a plain set: of integers (an intset) or not (a hash table)
            p = rng.choice(PS)
            if rng.random() < 0.5:
                yield Req("SADD", p, *[str(rng.randrange(-3, 12)) for _ in range(rng.randrange(1, 5))])
            else:
                yield Req("SADD", p, *[member(rng) for _ in range(rng.randrange(1, 5))])
        elif c == 49:
            yield Req(rng.choice(["SREM", "SADD"]), rng.choice(PS), member(rng), str(rng.randrange(-3, 12)))
            yield Req("DUMP", k, cmp=dump_restore.dump_cmp)
        else:
            yield Req("FLUSHDB") if rng.random() < 0.05 else Req("PING")


if __name__ == "__main__":
    ok = difftest.run("sorted sets (RESP2)", generate, 3000)
    ok = difftest.run("sorted sets (RESP3)", generate, 1500, resp3=True) and ok
    sys.exit(0 if ok else 1)
