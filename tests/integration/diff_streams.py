#!/usr/bin/python3
"""diff_streams.py -- the stream commands against redis-server.

A random stream over a few keys: XADD with explicit ids (so replies are
deterministic; `ms-*` too, and edge ids, NOMKSTREAM, MAXLEN/MINID = and ~,
LIMIT), XLEN, XRANGE and XREVRANGE (exclusive bounds, COUNT), XDEL, XTRIM,
XSETID, XGROUP CREATE|CREATECONSUMER|DELCONSUMER|DESTROY|SETID (MKSTREAM,
ENTRIESREAD), XREADGROUP (`>`, history, COUNT, NOACK) across several
consumers, XREAD (non-blocking and BLOCK on data present), XACK, XPENDING
(summary and extended, IDLE, consumer), XCLAIM (IDLE, TIME, RETRYCOUNT,
FORCE, JUSTID, LASTID), XAUTOCLAIM, XINFO STREAM [FULL]|GROUPS|CONSUMERS,
wrong types, errors and wrong arities, in RESP2 and RESP3. Replies byte for
byte, except fields that hold times (idle, delivery and seen times), the
radix tree node count and XADD `*` ids, compared by property. Entries are
of many sizes (numbers, strings past 63 and 4095 bytes) with blocks bounded by
entries or by bytes: both servers split blocks at the same entries (Redis's
listpack sizes), so approximate trims and XINFO's block count agree, and DUMP
gives redis-server's bytes (its delivery and seen times masked): every node's
listpack, deleted entries, groups, consumers and PELs. COMMAND INFO of each
command byte for byte.
A third stream keeps pending lists of hundreds of entries, acknowledged and
claimed in random order. SEED=N replays a stream; DIFF_COUNT=N runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import dump_restore  # noqa: E402  (DUMP's comparison)
from difftest import Req  # noqa: E402

SK = ["s1", "s2", "s3"]
GROUPS = ["g1", "g2", "nogroup"]
CONS = ["c1", "c2", "c3"]
COMMANDS = ("xadd xlen xrange xrevrange xdel xtrim xread xreadgroup xack xpending xclaim xautoclaim xsetid "
            "xgroup xinfo").split()
GETKEYS = [["XREAD", "COUNT", "2", "STREAMS", "a", "b", "0", "0"], ["XREADGROUP", "GROUP", "g", "c", "STREAMS",
                                                                    "a", ">"], ["XADD", "s", "*", "f", "v"],
           ["XREAD", "STREAMS", "a", "b", "0"], ["XGROUP", "CREATE", "s", "g", "$"], ["XINFO", "STREAM", "s"]]
# times, and the radix tree's node count (Scratchpad's blocks are an array)
TIME_KEYS = {b"idle", b"radix-tree-nodes", b"seen-time"}
ARITY = [["XADD", "s1"], ["XADD", "s1", "*"], ["XADD", "s1", "*", "f"], ["XRANGE", "s1", "-"], ["XLEN"],
         ["XGROUP", "CREATE", "s1"], ["XGROUP", "CREATE", "s1", "g"], ["XGROUP", "DESTROY", "s1"],
         ["XGROUP", "CREATECONSUMER", "s1", "g"], ["XGROUP", "SETID", "s1", "g"], ["XGROUP"], ["XINFO"],
         ["XINFO", "STREAM"], ["XINFO", "GROUPS"], ["XINFO", "CONSUMERS", "s1"], ["XINFO", "FOO", "s1"],
         ["XACK", "s1", "g"], ["XCLAIM", "s1", "g", "c", "0"], ["XAUTOCLAIM", "s1", "g", "c", "0"],
         ["XREADGROUP", "GROUP", "g", "c", "STREAMS"], ["XREAD", "STREAMS"], ["XREAD", "COUNT", "1", "s1", "0"],
         ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1"], ["XREAD", "STREAMS", "s1", "s2", "0"],
         ["XPENDING", "s1"], ["XPENDING", "s1", "g", "-", "+"], ["XSETID", "s1"], ["XTRIM", "s1", "MAXLEN"],
         ["XDEL", "s1"], ["XGROUP", "HELP", "x"], ["XINFO", "HELP", "x"], ["XREAD", "GROUP", "g", "c", "STREAMS",
                                                                         "s1", "0"],
         ["XREAD", "NOACK", "STREAMS", "s1", "0"], ["XREADGROUP", "STREAMS", "s1", "0"],
         ["XREAD", "BLOCK", "-1", "STREAMS", "s1", "0"], ["XREAD", "BLOCK", "x", "STREAMS", "s1", "0"]]


def blank_times(node):
    """node with times (values > 10^12 ms, values after time keys) and XPENDING's idle made 0."""
    t, v = node
    if t == ":" and v is not None and int(v) > 10**12:
        return (":", b"0")
    if not isinstance(v, list):
        return node
    out = []
    skip = False
    for x in v:
        if skip:
            out.append((":", b"0"))
            skip = False
            continue
        if x[0] in "$+" and x[1] in TIME_KEYS:
            skip = True
        out.append(blank_times(x))
    return (t, out)


def pending_rows(node):
    """XPENDING extended rows with the idle field (3rd) blanked."""
    t, v = node
    if not isinstance(v, list):
        return node
    rows = []
    for r in v:
        if isinstance(r[1], list) and len(r[1]) == 4:
            r = (r[0], [r[1][0], r[1][1], (":", b"0"), r[1][3]])
        rows.append(r)
    return (t, rows)


def by_times(r, s):
    return None if blank_times(r) == blank_times(s) else "replies differ (times blanked)"


def by_pending(r, s):
    return None if pending_rows(r) == pending_rows(s) else "replies differ (idle blanked)"


def auto_id(r, s):
    if r[0] == "$" and s[0] == "$":
        return None if (r[1] is None) == (s[1] is None) and (r[1] is None or b"-" in s[1]) else "not an id"
    return None if r == s else "replies differ"


class State:
    def __init__(self):
        self.ms = {k: 0 for k in SK + ["str", "nokey"]}


def an_id(rng, st, k):
    r = rng.random()
    if r < 0.75:
        st.ms[k] += rng.choice([0, 0, 1, 1, 2, 5])
        return "%d-%d" % (st.ms[k], rng.randrange(0, 3)) if rng.random() < 0.7 else "%d-*" % st.ms[k]
    return rng.choice(["0-0", "0-1", "0", "1", "-", "+", "(1", "18446744073709551615-18446744073709551615",
                       "18446744073709551616", "abc", "1-abc", "5-*", "", "%d" % st.ms[k]])


def rid(rng, st, k):
    """An id for reads, acks, claims: mostly near the stream's ids."""
    r = rng.random()
    if r < 0.8:
        return "%d-%d" % (rng.randrange(0, st.ms[k] + 2), rng.randrange(0, 3))
    return rng.choice(["-", "+", "0", "0-0", "(0-1", "(3", "abc", "(-", "18446744073709551615-18446744073709551615",
                       "(18446744073709551615-18446744073709551615", "(0-0"])


def value(rng):
    r = rng.random()
    if r < 0.8:
        return rng.choice(["1", "v", "", "hello", "12345"])
    if r < 0.95:
        return rng.choice(["0", "-1", "007", "-0", "127", "128", "-4097", "40000", "9000000", "3000000000",
                           "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e3", " 1"])
    return "x" * rng.choice([63, 64, 100, 4095, 4096, 5000])


def fields(rng):
    n = rng.choice([1, 1, 2, 2, 3])
    shape = rng.random() < 0.8
    out = []
    for i in range(n):
        f = "f%d" % i if shape else rng.choice(["a", "b", "c", "x", "12", "-3"])
        out += [f, value(rng)]
    return out


def trim_opts(rng, st, k):
    r = rng.random()
    if r < 0.5:
        return []
    strat = rng.choice(["MAXLEN", "MINID", "maxlen"])
    out = [strat] + rng.choice([[], ["="], ["~"]])
    out.append(str(rng.randrange(-1, 30)) if strat.upper() == "MAXLEN" else rid(rng, st, k))
    if rng.random() < 0.2:
        out += ["LIMIT", str(rng.randrange(-1, 300))]
    return out


def generate(rng, n):
    st = State()
    # Blocks bounded by entries, or by Redis's listpack bytes (both servers
    # split at the same entries: approximate trims and XINFO's block count agree).
    entries, nbytes = rng.choice([("10", "4096"), ("100", "200"), ("0", "300"), ("5", "0"), ("20", "9000")])
    yield Req("CONFIG", "SET", "stream-node-max-entries", entries)
    yield Req("CONFIG", "SET", "stream-node-max-bytes", nbytes)
    yield Req("SET", "str", "x")
    for name in COMMANDS:
        # Redis lists a container's subcommands in its hash table's order.
        yield Req("COMMAND", "INFO", name, cmp=difftest.UNORDERED if name in ("xgroup", "xinfo") else difftest.EXACT)
    for args in GETKEYS:
        yield Req("COMMAND", "GETKEYS", *args)
    yield Req("XINFO", "HELP")
    yield Req("XGROUP", "HELP")
    for _ in range(n):
        k = rng.choice(SK + ["str", "nokey"]) if rng.random() < 0.1 else rng.choice(SK)
        g = rng.choice(GROUPS)
        c = rng.choice(CONS)
        r = rng.random()
        if r < 0.3:
            opts = (["NOMKSTREAM"] if rng.random() < 0.1 else []) + trim_opts(rng, st, k)
            yield Req("XADD", k, *(opts + [an_id(rng, st, k)] + fields(rng)))
        elif r < 0.33:
            yield Req("XADD", "auto", "*", "f", "v", cmp=auto_id)
        elif r < 0.36:
            yield Req("XLEN", k)
        elif r < 0.42:
            cmd = rng.choice(["XRANGE", "XREVRANGE"])
            extra = rng.choice([[], [], ["COUNT", str(rng.randrange(-1, 5))], ["COUNT"], ["LIMIT", "1"]])
            yield Req(cmd, k, rid(rng, st, k), rid(rng, st, k), *extra)
        elif r < 0.45:
            yield Req("XDEL", k, *[rid(rng, st, k) for _ in range(rng.randrange(1, 4))])
        elif r < 0.48:
            t = trim_opts(rng, st, k) or ["MAXLEN", str(rng.randrange(0, 20))]
            yield Req("XTRIM", k, *t)
        elif r < 0.52:
            sub = rng.choice(["CREATE", "CREATE", "CREATECONSUMER", "DELCONSUMER", "DESTROY", "SETID", "BAD"])
            if sub == "CREATE":
                extra = rng.choice([[], [], ["MKSTREAM"], ["ENTRIESREAD", str(rng.randrange(-2, 5))], ["FOO"]])
                yield Req("XGROUP", sub, k, g, rng.choice(["$", "0", rid(rng, st, k)]), *extra)
            elif sub in ("CREATECONSUMER", "DELCONSUMER"):
                yield Req("XGROUP", sub, k, g, c)
            elif sub == "DESTROY":
                if rng.random() < 0.3:
                    yield Req("XGROUP", sub, k, g)
            elif sub == "SETID":
                extra = rng.choice([[], [], ["ENTRIESREAD", str(rng.randrange(-2, 5))]])
                yield Req("XGROUP", sub, k, g, rng.choice(["$", "0", rid(rng, st, k)]), *extra)
            else:
                yield Req("XGROUP", "FOO", k)
        elif r < 0.64:
            opts = []
            if rng.random() < 0.5:
                opts += ["COUNT", str(rng.randrange(0, 4))]
            if rng.random() < 0.15:
                opts += ["NOACK"]
            ks = [k] if rng.random() < 0.8 else [k, rng.choice(SK)]
            ids = [">" if rng.random() < 0.7 else rng.choice(["0", "0-0", rid(rng, st, k), "$"]) for _ in ks]
            yield Req("XREADGROUP", "GROUP", g, c, *opts, "STREAMS", *(ks + ids))
        elif r < 0.68:
            opts = []
            if rng.random() < 0.5:
                opts += ["COUNT", str(rng.randrange(0, 4))]
            ks = [k] if rng.random() < 0.7 else [k, rng.choice(SK)]
            ids = [rng.choice(["0", "$", rid(rng, st, k)]) for _ in ks]
            yield Req("XREAD", *opts, "STREAMS", *(ks + ids))
        elif r < 0.72:
            yield Req("XACK", k, g, *[rid(rng, st, k) for _ in range(rng.randrange(1, 4))])
        elif r < 0.77:
            if rng.random() < 0.4:
                yield Req("XPENDING", k, g)
            else:
                extra = (["IDLE", str(rng.choice([0, 0, 1, 100000]))] if rng.random() < 0.3 else [])
                extra += [rid(rng, st, k), rid(rng, st, k), str(rng.randrange(-1, 6))]
                if rng.random() < 0.3:
                    extra.append(c)
                yield Req("XPENDING", k, g, *extra, cmp=by_pending)
        elif r < 0.83:
            opts = []
            for o in rng.sample(["IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID"], rng.randrange(0, 3)):
                if o == "IDLE":
                    opts += ["IDLE", str(rng.choice([0, 5, 100000]))]
                elif o == "TIME":
                    opts += ["TIME", str(rng.choice([0, 1, 5]))]
                elif o == "RETRYCOUNT":
                    opts += ["RETRYCOUNT", str(rng.randrange(0, 5))]
                elif o == "LASTID":
                    opts += ["LASTID", rid(rng, st, k)]
                else:
                    opts.append(o)
            ids = [rid(rng, st, k) for _ in range(rng.randrange(1, 4))]
            yield Req("XCLAIM", k, g, c, str(rng.choice([0, 0, 10, 100000])), *(ids + opts), cmp=by_times)
        elif r < 0.87:
            opts = rng.choice([[], ["COUNT", str(rng.randrange(0, 4))], ["JUSTID"], ["COUNT", "2", "JUSTID"]])
            yield Req("XAUTOCLAIM", k, g, c, str(rng.choice([0, 0, 100000])), rid(rng, st, k), *opts)
        elif r < 0.90:
            extra = rng.choice([[], [], ["ENTRIESADDED", str(rng.randrange(0, 50))],
                                ["MAXDELETEDID", rid(rng, st, k)]])
            yield Req("XSETID", k, rid(rng, st, k), *extra)
        elif r < 0.96:
            sub = rng.choice(["STREAM", "STREAM", "GROUPS", "CONSUMERS"])
            if sub == "STREAM":
                extra = rng.choice([[], [], ["FULL"], ["FULL", "COUNT", str(rng.randrange(-1, 3))], ["BAD"]])
                yield Req("XINFO", "STREAM", k, *extra, cmp=by_times)
            elif sub == "GROUPS":
                yield Req("XINFO", "GROUPS", k)
            else:
                yield Req("XINFO", "CONSUMERS", k, g, cmp=by_times)
        elif r < 0.965:
            yield Req("TYPE", k)
        elif r < 0.97:
            yield Req(*rng.choice(ARITY))
        elif r < 0.975:
            yield Req(rng.choice(["XREAD", "XREADGROUP"]), *(["GROUP", g, c] if rng.random() < 0.5 else []),
                      "BLOCK", "10", "STREAMS", k, rng.choice(["0", ">", "$"]))
        elif r < 0.98:
            # A transaction of stream commands (nothing blocks inside it).
            yield Req("MULTI")
            yield Req("XADD", k, "%d-*" % st.ms[k], "m", "1")
            yield Req("XREADGROUP", "GROUP", g, c, "BLOCK", "0", "STREAMS", k, ">")
            yield Req("XREAD", "BLOCK", "0", "STREAMS", k, "$")
            yield Req("XTRIM", k, "MAXLEN", "~", "5")
            yield Req("EXEC")
        elif r < 0.985:
            dst = rng.choice(SK)
            yield Req(rng.choice(["COPY", "RENAME", "RENAMENX"]), k, dst, *(["REPLACE"] if rng.random() < 0.3 else []))
            yield Req("DUMP", dst, cmp=dump_restore.dump_cmp)
        elif r < 0.99:
            yield Req("SCAN", "0", "TYPE", rng.choice(["stream", "string"]), "COUNT", "1000", cmp=difftest.UNORDERED)
        else:
            yield Req("DEL", k) if rng.random() < 0.3 else Req("OBJECT", "ENCODING", k)
            yield Req("DUMP", k, cmp=dump_restore.dump_cmp)


def generate_long_pel(rng, n):
    """Pending lists of hundreds of entries (several of Scratchpad's PEL
    chunks), acknowledged, claimed and read in random order."""
    top = {k: 0 for k in SK[:2]}
    for k in SK[:2]:
        yield Req("XGROUP", "CREATE", k, "g1", "$", "MKSTREAM")
    for _ in range(n):
        k = rng.choice(SK[:2])
        c = rng.choice(CONS)
        r = rng.random()
        some = lambda: "%d-1" % rng.randrange(1, top[k] + 2)  # noqa: E731
        if r < 0.1:
            for _ in range(rng.randrange(50, 300)):
                top[k] += 1
                yield Req("XADD", k, "%d-1" % top[k], "f", str(top[k]))
        elif r < 0.25:
            yield Req("XREADGROUP", "GROUP", "g1", c, "COUNT", str(rng.randrange(1, 400)), "STREAMS", k, ">")
        elif r < 0.55:
            yield Req("XACK", k, "g1", *[some() for _ in range(rng.randrange(1, 40))])
        elif r < 0.65:
            yield Req("XCLAIM", k, "g1", c, "0", *[some() for _ in range(rng.randrange(1, 30))], "JUSTID")
        elif r < 0.72:
            yield Req("XAUTOCLAIM", k, "g1", c, "0", some(), "COUNT", str(rng.randrange(1, 200)), "JUSTID")
        elif r < 0.8:
            extra = [some(), some(), str(rng.randrange(1, 300))] + ([c] if rng.random() < 0.4 else [])
            yield Req("XPENDING", k, "g1", *extra, cmp=by_pending)
        elif r < 0.85:
            yield Req("XPENDING", k, "g1")
        elif r < 0.9:
            yield Req("XDEL", k, *[some() for _ in range(rng.randrange(1, 20))])
        elif r < 0.94:
            yield Req("XINFO", "STREAM", k, "FULL", "COUNT", str(rng.randrange(0, 300)), cmp=by_times)
        elif r < 0.97:
            yield Req("XINFO", "CONSUMERS", k, "g1", cmp=by_times)
        elif r < 0.98:
            yield Req("XGROUP", "DELCONSUMER", k, "g1", c)
        elif r < 0.99:
            yield Req("DUMP", k, cmp=dump_restore.dump_cmp)
        else:
            yield Req("XREADGROUP", "GROUP", "g1", c, "COUNT", str(rng.randrange(1, 100)), "STREAMS", k, "0")


if __name__ == "__main__":
    ok = difftest.run("streams (RESP2)", generate, 3000)
    ok = difftest.run("streams (RESP3)", generate, 1500, resp3=True) and ok
    ok = difftest.run("streams with long pending lists", generate_long_pel, 600) and ok
    sys.exit(0 if ok else 1)
