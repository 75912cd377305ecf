#!/usr/bin/python3
"""diff_acl.py -- ACL against redis-server 7.0: users, rules, checks, errors.

Two parts. First, the categories: for every ACL category, ACL CAT <category>
of both servers must list the same commands, leaving out the commands one of
the two does not have (Redis's cluster, replication and module commands; our
SP.* commands, which are in @scratchpad and in the categories their flags
imply). Second, a random stream on one connection to each: ACL SETUSER with
random rules (passwords in every form, on/off, keys with %R/%W, channels,
commands, categories, subcommands, first arguments, selectors split across
arguments, resets, malformed rules), ACL GETUSER, LIST, USERS, WHOAMI,
DRYRUN, CAT, DELUSER, AUTH as the users, then commands run as them (keys,
channels, subcommands, EVAL's redis.call, MULTI/EXEC), ACL DRYRUN of ~60
commands whose keys are found every way a key spec allows, for a user with
read-only, write-only and read-write patterns, and ACL LOG's entries.
Replies are compared byte for byte, except three things Redis leaves to its
hash table's order or its clock: the single-command rules after the
categories in ACL LIST and GETUSER (compared as sets), ACL CAT's order, and
ACL LOG's age-seconds and client-info. SEED=N replays a stream; DIFF_COUNT=N
runs longer.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402
from difftest import Req  # noqa: E402
from resp_wire import Conn  # noqa: E402

USERS = ["u1", "u2", "u3"]
PASSWORDS = ["p1", "p2", ""]
HASH_P1 = "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a"  # sha256("p1")
KEYS = ["k1", "k2", "r1", "w1", "s1", "x"]
CHANNELS = ["c1", "c2", "d1", "c*"]
CMDS = ["get", "set", "hset", "hget", "lpush", "del", "config", "config|get", "config|set", "client|list", "client",
        "flushall", "select", "keys", "ping", "info", "publish", "debug", "object|encoding", "acl|whoami", "mget",
        "copy", "eval", "sort", "lmove", "incr"]
CATS = ["all", "read", "write", "keyspace", "string", "hash", "list", "admin", "dangerous", "fast", "slow",
        "pubsub", "connection", "scripting", "transaction", "set", "sortedset"]


def rule(rng):
    r = rng.random()
    if r < 0.2:
        return rng.choice(["+", "-"]) + rng.choice(CMDS)
    if r < 0.35:
        return rng.choice(["+@", "-@"]) + rng.choice(CATS)
    if r < 0.5:
        return rng.choice(["~", "%R~", "%W~", "%RW~", "~", "~"]) + rng.choice(["k*", "r*", "w*", "*", "s?", "x"])
    if r < 0.6:
        return "&" + rng.choice(["c*", "c1", "d?", "*"])
    if r < 0.72:
        return rng.choice([">p1", ">p2", ">", "<p1", "<p2", "#" + HASH_P1, "!" + HASH_P1, "nopass", "resetpass"])
    if r < 0.85:
        return rng.choice(["on", "off", "on", "allkeys", "resetkeys", "allchannels", "resetchannels", "allcommands",
                           "nocommands", "reset", "clearselectors", "sanitize-payload", "skip-sanitize-payload"])
    if r < 0.93:
        return rng.choice(["+select|0", "+select|1", "+config|get", "-config|set", "+client|list", "+debug|object",
                           "+get|x", "+OBJECT|ENCODING"])
    return rng.choice(["bogus", "+nosuch", "+@nosuch", "%X~k", "%~k", "#abc", "!abc", "+get|a|b", "-get|x",
                       "+config|nosuch", "+config|get|x", "%RR~k", "+@all|x", "ON", "~"])


def setuser(rng):
    args = ["ACL", "SETUSER", rng.choice(USERS + ["default"] if rng.random() < 0.05 else USERS)]
    for _ in range(rng.randrange(0, 6)):
        if rng.random() < 0.12:
            inner = [rule(rng) for _ in range(rng.randrange(0, 3))]
            inner = [x for x in inner if x not in ("reset", "clearselectors", "on", "off", "nopass", "resetpass")
                     and not x[0] in "<>#!"]
            if rng.random() < 0.5:
                args.append("(" + " ".join(inner) + ")")
            else:  # a selector split across arguments
                parts = inner or ["+get"]
                args.append("(" + parts[0])
                args.extend(parts[1:-1])
                if len(parts) > 1:
                    args.append(parts[-1] + ")")
                elif rng.random() < 0.8:
                    args[-1] += ")"
        else:
            args.append(rule(rng))
    if args[2] == "default":  # AUTH default x must keep working: no password, never off
        args = args[:3] + [a for a in args[3:] if a[:1] not in "<>#!" and a not in ("resetpass", "off", "reset")]
    return args


def sort_singles(text):
    """The single-command rules of a description (Redis lists them in its hash
    table's order) sorted within each selector."""
    out = []
    for part in text.split(" ("):
        toks = part.split(" ")
        head = [t for t in toks if not ((t[:1] in "+-") and t[1:2] != "@")]
        singles = sorted(t.rstrip(")") for t in toks if (t[:1] in "+-") and t[1:2] != "@")
        out.append(" ".join(head) + "|" + " ".join(singles))
    return out


class Replayer:
    """A third server (Scratchpad) on which two descriptions are replayed to
    see whether they give the same permissions: the categories Redis's
    best-fit chooses depend on how many commands each category has, and
    redis-server has commands Scratchpad does not (cluster, replication,
    modules), so two right descriptions may differ in words."""

    conn = None
    ours = set()
    ours_only = []

    @classmethod
    def same(cls, redis_rules, our_rules):
        def keep(tok):
            name = tok.strip("()")
            if name[:1] in "+-" and name[1:2] != "@" and name[1:]:
                cmd = name[1:].lower()
                base = cmd.split("|")[0]
                containers = {x.split("|")[0] for x in cls.ours if "|" in x}
                known = cmd in cls.ours if (cmd == base or base in containers) else base in cls.ours
                if not known:
                    return tok.replace(name, "")
            return tok
        lists = []
        for i, text in enumerate((redis_rules, our_rules)):
            # commands redis-server lacks get the same rule in both
            parts = text.split(" (")
            extra = " " + " ".join("+" + c for c in cls.ours_only)
            parts = [p[:-1] + extra + ")" if j else p + extra for j, p in enumerate(parts)]
            text = " (".join(parts)
            # "~*" in a description may be a "*" pattern (from %RW~*) that
            # other patterns follow: replayed as such, as it reads
            toks = [keep(t).replace("~*", "%RW~*") if t.strip("()") == "~*" else keep(t)
                    for t in text.split(" ") if t]
            reply = cls.conn.call("ACL", "SETUSER", "__cmp%d" % i, "reset", *[t for t in toks if t])
            if reply[0] != "+":
                return False
        for i in (0, 1):
            lists.append(cls.conn.call("ACL", "GETUSER", "__cmp%d" % i))
        return lists[0] == lists[1]


def described(node_r, node_s):
    """ACL LIST / ACL GETUSER: equal once the single-command rules are sorted,
    or else the same permissions once both are replayed (Replayer)."""
    def norm(node):
        t, v = node
        if isinstance(v, list):
            return (t, [norm(x) for x in v])
        if isinstance(v, bytes) and (b" +" in v or b" -" in v or v.startswith((b"+", b"-"))):
            return (t, sort_singles(v.decode("latin-1")))
        return node
    if norm(node_r) == norm(node_s):
        return None

    def flat(node):
        t, v = node
        if isinstance(v, list):
            out = []
            for x in v:
                out.extend(flat(x))
            return out
        return [v]
    fr, fs = flat(node_r), flat(node_s)
    if len(fr) != len(fs):
        return "descriptions differ in shape"
    for a, b in zip(fr, fs):
        if a == b:
            continue
        if not isinstance(a, bytes) or not isinstance(b, bytes):
            return "descriptions differ"
        ta, tb = a.decode("latin-1"), b.decode("latin-1")
        if ta.startswith("user ") and tb.startswith("user "):
            na, ra = ta[5:].split(" ", 1)
            nb, rb = tb[5:].split(" ", 1)
            if na != nb or not Replayer.same(ra, rb):
                return "ACL LIST lines differ in permissions"
        elif ta[:2] in ("+@", "-@") and tb[:2] in ("+@", "-@"):
            if not Replayer.same(ta, tb):
                return "command rules differ in permissions"
        else:
            return "descriptions differ"
    return None


def acl_log(node_r, node_s):
    """ACL LOG: every field but age-seconds and client-info."""
    def norm(node):
        t, v = node
        if not isinstance(v, list):
            return node
        out = []
        for e in v:
            if not isinstance(e[1], list):
                out.append(e)
                continue
            f = e[1]
            out.append([(f[i][1], f[i + 1][1]) for i in range(0, len(f), 2)
                        if f[i][1] not in (b"age-seconds", b"client-info")])
        return out
    return None if norm(node_r) == norm(node_s) else "ACL LOG entries differ"


def as_user_command(rng):
    k = rng.choice(KEYS)
    ch = rng.choice(CHANNELS)
    return rng.choice([
        ["GET", k], ["SET", k, "v"], ["HSET", "h" + k, "f", "v"], ["LPUSH", k, "a"], ["DEL", k, rng.choice(KEYS)],
        ["MGET", k, rng.choice(KEYS), rng.choice(KEYS)], ["COPY", k, rng.choice(KEYS)], ["INCR", k],
        ["LMOVE", k, rng.choice(KEYS), "LEFT", "RIGHT"], ["CONFIG", "GET", "maxmemory"],
        ["CONFIG", "SET", "maxmemory-samples", "5"], ["SELECT", rng.choice(["0", "1"])], ["PING"],
        ["PUBLISH", ch, "m"], ["OBJECT", "ENCODING", k], ["ACL", "WHOAMI"], ["KEYS", "zz*"],
        ["EVAL", "return redis.call('get', KEYS[1])", "1", k],
        ["EVAL", "return redis.pcall('set', KEYS[1], 'x')", "1", k],
        ["EVAL", "return redis.call('config', 'get', 'maxmemory')", "0"],
        ["EVAL", "return redis.acl_check_cmd('get', '%s')" % k, "0"],
        ["SORT", k, "BY", rng.choice(["nosort", "w*"])], ["SORT", k, "GET", "#"],
        ["FLUSHALL"], ["CLIENT", "NO-EVICT", "off"],
    ])


# Commands whose keys are found in every way a key spec has (a range, a count
# argument, a keyword, a variable access, SORT's STORE): K is a key slot.
KEYED = [
    "GET K", "SET K v", "SET K v GET", "MSET K 1 K 2", "MGET K K K", "DEL K K", "EXISTS K K", "COPY K K",
    "RENAME K K", "LMOVE K K LEFT RIGHT", "BLMOVE K K LEFT RIGHT 0", "SMOVE K K m", "SUNIONSTORE K K K",
    "ZUNIONSTORE K 2 K K", "ZINTERCARD 2 K K", "LMPOP 2 K K LEFT", "BLMPOP 0 2 K K LEFT", "SINTERCARD 2 K K",
    "ZRANGESTORE K K 0 -1", "BITOP AND K K K", "BITFIELD K GET u8 0", "BITFIELD K SET u8 0 1",
    "BITFIELD_RO K GET u8 0", "PFCOUNT K K", "PFMERGE K K", "XREAD STREAMS K K 0 0",
    "XREADGROUP GROUP g c STREAMS K K > >", "XADD K * f v", "XGROUP CREATE K g $", "XINFO STREAM K",
    "EVAL return 1 2 K K", "EVAL_RO return 1 1 K", "FCALL f 2 K K", "SORT K", "SORT K STORE K", "SORT_RO K",
    "GEOSEARCHSTORE K K FROMLONLAT 0 0 BYRADIUS 1 km", "OBJECT ENCODING K", "MEMORY USAGE K", "TOUCH K K",
    "UNLINK K", "GETDEL K", "GETEX K", "LPOS K a", "HSET K f v", "HGETALL K", "EXPIRE K 10", "TYPE K",
    "WATCH K K", "RPOPLPUSH K K", "SDIFFSTORE K K", "SINTER K K", "GEORADIUS K 0 0 1 km",
    "ZADD K 1 m", "INCR K", "APPEND K x", "GETRANGE K 0 1", "SETRANGE K 0 x", "STRLEN K",
]


def keyed_dryrun(rng):
    line = rng.choice(KEYED).split(" ")
    return ["ACL", "DRYRUN", "kx"] + [rng.choice(["r1", "w1", "k1", "x1"]) if w == "K" else w for w in line]


def generate(rng, count):
    n = 0
    maybe_current = {"default"}
    # kx: read-only r*, write-only w*, both k*: each key's access decides
    yield Req("ACL", "SETUSER", "kx", "on", "nopass", "%R~r*", "%W~w*", "~k*", "+@all")
    while n < count:
        r = rng.random()
        if r < 0.30:
            yield Req(*setuser(rng))
        elif r < 0.36:
            yield Req("ACL", "GETUSER", rng.choice(USERS + ["default", "nosuch"]), cmp=described)
        elif r < 0.41:
            yield Req("ACL", "LIST", cmp=described)
        elif r < 0.44:
            yield Req("ACL", rng.choice(["USERS", "WHOAMI"]))
        elif r < 0.50:
            yield Req(*keyed_dryrun(rng))
        elif r < 0.55:
            u = rng.choice(USERS + ["nosuch"])
            cmd = as_user_command(rng)
            if rng.random() < 0.05:
                cmd = rng.choice([["NOSUCH"], ["GET"], ["CONFIG", "NOSUCH"], ["CONFIG"]])
            yield Req("ACL", "DRYRUN", u, *cmd)
        elif r < 0.58:
            yield Req("ACL", "CAT", rng.choice(["nosuch", "all", "@read"]))
        elif r < 0.61:
            victim = rng.choice(USERS + ["default", "nosuch"])  # never kx
            if victim in maybe_current:
                continue
            yield Req("ACL", "DELUSER", victim, *rng.sample(["nosuch", "zz"], rng.randrange(0, 2)))
        elif r < 0.70:
            u = rng.choice(USERS + ["default", "nosuch"])
            p = rng.choice(PASSWORDS + ["bad"])
            if rng.random() < 0.1:
                yield Req("AUTH", p)
            else:
                yield Req("AUTH", u, p)
                maybe_current.add(u)  # if it worked, deleting u would close the connection
        elif r < 0.74:
            yield Req("AUTH", "default", "x")
            maybe_current = {"default"}
        elif r < 0.78:
            yield Req("ACL", "LOG", rng.choice(["1", "3", "10"]), cmp=acl_log)
        elif r < 0.79:
            yield Req("ACL", "LOG", "RESET")
        elif r < 0.83:
            yield Req("MULTI")
            for _ in range(rng.randrange(1, 3)):
                yield Req(*as_user_command(rng))
                n += 1
            yield Req("EXEC")
        else:
            yield Req(*as_user_command(rng))
        n += 1
    yield Req("AUTH", "default", "x")
    yield Req("ACL", "LOG", "100", cmp=acl_log)


def categories(r):
    """ACL CAT of each category, on both, as sets over the commands both have."""
    redis = difftest.RedisServer()
    sp = spserver.Server("--appendonly", "no")
    sp.start()
    try:
        cr, cs = Conn(redis.port), Conn(sp.port)
        r_cmds = {x[1] for x in cr.call("COMMAND", "LIST")[1]}
        s_cmds = {x[1] for x in cs.call("COMMAND", "LIST")[1]}
        cats = [x[1] for x in cr.call("ACL", "CAT")[1]]
        ours = [x[1] for x in cs.call("ACL", "CAT")[1]]

        def check_names():
            assert ours == cats + [b"scratchpad"], ours

        r.case("ACL CAT lists Redis's 21 categories in Redis's order, then scratchpad", check_names)

        def both_have(name):
            parent = name.split(b"|")[0]
            if name.startswith(b"sp."):
                return False
            return name in r_cmds or (b"|" in name and parent in r_cmds and parent in s_cmds and
                                      name not in (b"client|setinfo",))

        def check(cat):
            rr = {x[1] for x in cr.call("ACL", "CAT", cat)[1]}
            ss = {x[1] for x in cs.call("ACL", "CAT", cat)[1]}
            rr = {x for x in rr if x in s_cmds or (b"|" in x and x.split(b"|")[0] in s_cmds)}
            rr = {x for x in rr if not (b"|" in x and x not in subs_s)}
            ss = {x for x in ss if both_have(x) or (b"|" in x and x in subs_r)}
            assert rr == ss, "only redis: %s; only ours: %s" % (sorted(rr - ss), sorted(ss - rr))

        subs_r, subs_s = set(), set()
        for cat in cats:
            subs_r |= {x[1] for x in cr.call("ACL", "CAT", cat)[1] if b"|" in x[1]}
        for cat in ours:
            subs_s |= {x[1] for x in cs.call("ACL", "CAT", cat)[1] if b"|" in x[1]}
        for cat in cats:
            r.case("ACL CAT %s lists the same commands as redis-server (those both have)" % cat.decode(), check, cat)

        def check_sp():
            sc = {x[1] for x in cs.call("ACL", "CAT", "scratchpad")[1]}
            sp_cmds = {x for x in s_cmds if x.startswith(b"sp.")}
            assert sc == sp_cmds, sorted(sc ^ sp_cmds)

        r.case("ACL CAT scratchpad lists every SP.* command and nothing else", check_sp)
    finally:
        sp.stop()
        redis.stop()


if __name__ == "__main__":
    rep = spserver.Reporter()
    categories(rep)
    with spserver.Server("--appendonly", "no") as replayer:
        Replayer.conn = Conn(replayer.port)
        Replayer.ours = {x[1].decode() for x in Replayer.conn.call("COMMAND", "LIST")[1]}
        redis = difftest.RedisServer()
        try:
            cr = Conn(redis.port)
            names_r = set()
            for cat in cr.call("ACL", "CAT")[1]:
                names_r |= {x[1].decode() for x in cr.call("ACL", "CAT", cat[1])[1]}
        finally:
            redis.stop()
        names_s = set()
        for cat in Replayer.conn.call("ACL", "CAT")[1]:
            names_s |= {x[1].decode() for x in Replayer.conn.call("ACL", "CAT", cat[1])[1]}
        Replayer.ours |= names_s
        Replayer.ours_only = sorted(names_s - names_r)
        ok = difftest.run("ACL users, rules, checks and errors", generate, 400)
        ok = difftest.run("ACL users, rules, checks and errors in RESP3", generate, 200, resp3=True) and ok
    if not ok:
        rep.failed += 1
    rep.finish()
