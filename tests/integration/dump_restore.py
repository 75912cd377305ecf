#!/usr/bin/python3
"""dump_restore.py -- DUMP and RESTORE between redis-server 7.0 and Scratchpad.

The same keys are made on both servers, every type in every encoding Redis 7.0
gives it (strings raw, integer and LZF-compressed; lists of one listpack node
and of many; hashes, sorted sets as listpacks and as hash tables / skiplists;
sets as intsets of 16, 32 and 64 bits and as hash tables; streams with deleted
entries, consumer groups and PELs), then:

  - DUMP gives the same bytes on both servers where the encoding is
    deterministic (all but the hash tables' order and the streams' times);
  - each key DUMPed by one server RESTOREs into the other, reads back the same
    (every element, score, stream entry, group, consumer and PEL) with the
    same OBJECT ENCODING;
  - payloads in the older formats Redis 7.0 still reads (the linked list,
    ziplists of lists, hashes and sorted sets, the quicklist of ziplists, the
    zipmap, text scores, the first stream format), built here, restore the
    same on both;
  - TTL, ABSTTL (future and past, with REPLACE deleting the old key), REPLACE,
    IDLETIME, FREQ, BUSYKEY, bad options, a bad checksum, a newer RDB
    version, a truncated payload, an empty collection, a duplicate member,
    an unknown type and random bytes with a good checksum answer the same
    bytes on both (redis-server with sanitize-dump-payload yes, the checks
    Scratchpad always makes);
  - the keyspace notifications (new, restore, del) are redis-server's;
  - redis-py's dump() / restore() with its options;
  - a scratchpad (SP.*) DUMPs in a type of its own that restores into
    Scratchpad whole and that redis-server refuses ("ERR Bad data format");
  - mutated payloads (random bytes changed, the checksum fixed) never crash
    Scratchpad: each answers OK or "ERR Bad data format";
  - RESTOREd keys survive a restart (the log holds RESTORE with an absolute
    TTL), an incremental and a fork rewrite, and scratchpad-check-aof reads
    the log as clean.
SEED=N replays the random parts."""
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import difftest  # noqa: E402
import spserver  # noqa: E402
from persist_restart import Srv, client, wait_rewrite_done  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
# Redis 7.0's own defaults differ from its redis.conf's (hash-max-listpack-entries 512 vs 128):
# both servers get the same thresholds.
LIMITS = ["--hash-max-listpack-entries", "128", "--zset-max-listpack-entries", "128",
          "--set-max-intset-entries", "512", "--list-max-listpack-size", "-2"]

# ---- building payloads (RDB encodings, as Redis documents them) ----

_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x95AC9329AC4BC9B5 if _c & 1 else _c >> 1
    _T.append(_c)


def crc64(b):
    c = 0
    for x in b:
        c = _T[(c ^ x) & 0xff] ^ (c >> 8)
    return c


def payload(body, version=10):
    b = body + version.to_bytes(2, "little")
    return b + crc64(b).to_bytes(8, "little")


def rlen(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xff])
    return b"\x80" + n.to_bytes(4, "big")


def rstr(s):
    s = s if isinstance(s, bytes) else s.encode()
    return rlen(len(s)) + s


def ziplist(items):
    """A ziplist of strings and small ints, as Redis 2.6 - 6.2 wrote them."""
    ents, prev = [], 0
    for it in items:
        pl = bytes([prev]) if prev < 254 else b"\xfe" + prev.to_bytes(4, "little")
        if isinstance(it, int):
            if 0 <= it <= 12:
                body = bytes([0xF1 + it])
            else:
                body = b"\xc0" + it.to_bytes(2, "little", signed=True)
        else:
            it = it.encode() if isinstance(it, str) else it
            body = (bytes([len(it)]) if len(it) < 64 else bytes([0x40 | (len(it) >> 8), len(it) & 0xff])) + it
        e = pl + body
        ents.append(e)
        prev = len(e)
    data = b"".join(ents)
    tail = 10 + len(data) - (len(ents[-1]) if ents else 0)
    total = 10 + len(data) + 1
    return total.to_bytes(4, "little") + tail.to_bytes(4, "little") + len(items).to_bytes(2, "little") + data + b"\xff"


def zipmap(pairs):
    out = bytes([len(pairs)])
    for k, v in pairs:
        out += bytes([len(k)]) + k.encode() + bytes([len(v)]) + b"\x00" + v.encode()
    return out + b"\xff"


def skip_rdb_string(b, i):
    """The offset past the RDB string at b[i]."""
    t = b[i] >> 6
    if t == 0:
        return i + 1 + (b[i] & 0x3f)
    if t == 1:
        return i + 2 + (((b[i] & 0x3f) << 8) | b[i + 1])
    if b[i] == 0x80:
        return i + 5 + int.from_bytes(b[i + 1:i + 5], "big")
    if b[i] in (0xC0, 0xC1, 0xC2):
        return i + 1 + (1 << (b[i] - 0xC0))
    assert b[i] == 0xC3, b[i]
    j = i + 1
    clen, j = read_len(b, j)
    _, j = read_len(b, j)
    return j + clen


def read_len(b, i):
    t = b[i] >> 6
    if t == 0:
        return b[i] & 0x3f, i + 1
    if t == 1:
        return ((b[i] & 0x3f) << 8) | b[i + 1], i + 2
    if b[i] == 0x81:
        return int.from_bytes(b[i + 1:i + 9], "big"), i + 9
    return int.from_bytes(b[i + 1:i + 5], "big"), i + 5


def stream_v1(dump):
    """A group-less stream's RDB_TYPE_STREAM_LISTPACKS_2 DUMP as Redis 5 / 6's RDB_TYPE_STREAM_LISTPACKS:
    the nodes, the length and the last id kept, the 7.0 counters dropped."""
    b = dump[:-10]
    assert b[0] == 19
    n, i = read_len(b, 1)
    for _ in range(2 * n):
        i = skip_rdb_string(b, i)
    j = i
    for _ in range(3):  # length, last id
        _, j = read_len(b, j)
    k = j
    for _ in range(5):  # first id, max deleted id, entries added
        _, k = read_len(b, k)
    assert b[k:] == b"\x00", b[k:]
    return b"\x0f" + b[1:j] + b"\x00"


def lzf_decode(b, n):
    out = bytearray()
    i = 0
    while i < len(b):
        c = b[i]
        i += 1
        if c < 32:
            out += b[i:i + c + 1]
            i += c + 1
        else:
            ln = c >> 5
            if ln == 7:
                ln += b[i]
                i += 1
            ref = len(out) - ((c & 0x1f) << 8) - b[i] - 1
            i += 1
            for _ in range(ln + 2):
                out.append(out[ref])
                ref += 1
    assert len(out) == n
    return bytes(out)


def read_rdb_string(b, i):
    """The RDB string at b[i] (plain, integer or LZF) and the offset past it."""
    if b[i] in (0xC0, 0xC1, 0xC2):
        w = 1 << (b[i] - 0xC0)
        return str(int.from_bytes(b[i + 1:i + 1 + w], "little", signed=True)).encode(), i + 1 + w
    if b[i] == 0xC3:
        clen, j = read_len(b, i + 1)
        rlen, j = read_len(b, j)
        return lzf_decode(b[j:j + clen], rlen), j + clen
    n, j = read_len(b, i)
    return b[j:j + n], j + n


def listpack_elements(lp):
    out, i = [], 6
    while lp[i] != 0xFF:
        c = lp[i]
        if c < 0x80:
            v, hl, dl = c, 1, 0
        elif c & 0xC0 == 0x80:
            v, hl, dl = None, 1, c & 0x3f
        elif c & 0xE0 == 0xC0:
            v, hl, dl = ((c & 0x1f) << 8) | lp[i + 1], 2, 0
            v = v - 8192 if v >= 4096 else v
        elif c & 0xF0 == 0xE0:
            v, hl, dl = None, 2, ((c & 0x0f) << 8) | lp[i + 1]
        elif c == 0xF0:
            v, hl, dl = None, 5, int.from_bytes(lp[i + 1:i + 5], "little")
        else:
            w = {0xF1: 2, 0xF2: 3, 0xF3: 4, 0xF4: 8}[c]
            v, hl, dl = int.from_bytes(lp[i + 1:i + 1 + w], "little", signed=True), 1 + w, 0
        out.append(lp[i + hl:i + hl + dl] if v is None else str(v).encode())
        body = hl + dl
        i += body + (1 if body < 128 else 2 if body < 16383 else 3 if body < 2097151 else 4 if body < 268435455 else 5)
    return out


def list_elements(payload):
    """The elements of a DUMP of a list (RDB_TYPE_LIST_QUICKLIST_2), whatever its nodes."""
    b = payload[:-10]
    n, i = read_len(b, 1)
    out = []
    for _ in range(n):
        container, i = read_len(b, i)
        blob, i = read_rdb_string(b, i)
        out += [blob] if container == 1 else listpack_elements(blob)
    return out


def stream_masked(payload):
    """A DUMP of a stream (RDB_TYPE_STREAM_LISTPACKS_2) without its trailer, with the PELs' delivery
    times and the consumers' seen times zeroed (each server's clock)."""
    b = bytearray(payload[:-10])
    n, i = read_len(b, 1)
    for _ in range(2 * n):
        i = skip_rdb_string(b, i)
    for _ in range(8):  # length, last id, first id, max deleted id, entries added
        _, i = read_len(b, i)
    groups, i = read_len(b, i)
    for _ in range(groups):
        i = skip_rdb_string(b, i)
        for _ in range(3):  # last id, entries read
            _, i = read_len(b, i)
        npel, i = read_len(b, i)
        for _ in range(npel):
            b[i + 16:i + 24] = bytes(8)
            _, i = read_len(b, i + 24)
        ncons, i = read_len(b, i)
        for _ in range(ncons):
            i = skip_rdb_string(b, i)
            b[i:i + 8] = bytes(8)
            cpel, i = read_len(b, i + 8)
            i += 16 * cpel
    assert i == len(b), (i, len(b))
    return bytes(b)


def dump_cmp(r, s):
    """A differential test's comparison of DUMP replies (difftest's nodes): the same bytes,
    except that a hash table's (a set's, type 2; a hash's, type 4) order is each server's,
    and a list's nodes, which in Redis depend on its history (LPUSH, LINSERT, merges), are
    cut here as tail pushes cut them: for lists the elements are compared; a stream's bytes
    are compared with its delivery and seen times masked."""
    if r == s:
        return None
    if r[0] == s[0] == "$" and r[1][:1] == s[1][:1] and r[1][:1] in (b"\x02", b"\x04"):
        return None
    if r[0] == s[0] == "$" and r[1][:1] == s[1][:1] == b"\x12":
        return None if list_elements(r[1]) == list_elements(s[1]) else "DUMP of a list: elements differ"
    if r[0] == s[0] == "$" and r[1][:1] == s[1][:1] == b"\x13":
        return None if stream_masked(r[1]) == stream_masked(s[1]) else "DUMP of a stream differs (times masked)"
    return "DUMP differs"


# ---- reading values back ----

def norm_stream_info(v):
    return re.sub(r"\b1[6-9]\d{11}\b", "T", str(v))


def view(r, k):
    """Everything a client can read of key k (times of streams masked)."""
    t = r.type(k).decode()
    if t == "string":
        return t, r.get(k)
    if t == "list":
        return t, r.lrange(k, 0, -1)
    if t == "hash":
        return t, sorted(r.hgetall(k).items())
    if t == "set":
        return t, sorted(r.smembers(k))
    if t == "zset":
        return t, r.zrange(k, 0, -1, withscores=True)
    if t == "stream":
        info = r.xinfo_stream(k)
        info.pop("radix-tree-nodes", None)  # the servers' trees are built differently
        out = [r.xrange(k), info]
        for g in r.xinfo_groups(k):
            out.append(g)
            out.append([{x: y for x, y in c.items() if x not in ("idle", "inactive")}
                        for c in r.xinfo_consumers(k, g["name"])])
            out.append([(p["message_id"], p["consumer"], p["times_delivered"])
                        for p in r.xpending_range(k, g["name"], "-", "+", 1000)])
        return t, norm_stream_info(out)
    return t, None


def make_keys(r):
    r.flushall()
    r.set("s:raw", "hello world")
    r.set("s:int8", "7")
    r.set("s:int16", "-1234")
    r.set("s:int32", "123456789")
    r.set("s:int64", "9223372036854775807")
    r.set("s:notint", "0123")
    r.set("s:lzf", "abc" * 40)
    r.set("s:random", bytes(random.Random(1).getrandbits(8) for _ in range(300)))
    r.set("s:big", "".join("log line %d\n" % i for i in range(2000)))
    r.set("s:empty", "")
    r.rpush("l:small", "a", "1", "-5", "100000", "x" * 30, "-4096", "4095", "32767", "8388607", "2147483647",
            "9223372036854775807", "-9223372036854775808", "007", "y" * 70, "z" * 5000)
    r.rpush("l:nodes", *["element-%d" % i for i in range(3000)])
    r.rpush("l:huge", "h" * 20000, "small", "k" * 9000)
    r.hset("h:lp", mapping={"f1": "v1", "f2": "2", "num": "-123456", "": "empty"})
    r.hset("h:ht", mapping={"f%d" % i: "v%d" % i for i in range(200)})
    r.hset("h:long", mapping={"f": "v" * 100})
    r.sadd("set:i16", 1, 2, -3, 300)
    r.sadd("set:i32", 1, 70000, -5)
    r.sadd("set:i64", 1, 2 ** 40, -(2 ** 50))
    r.sadd("set:narrowed", 1, 2, 2 ** 40)
    r.srem("set:narrowed", 2 ** 40)  # an intset keeps its width
    r.sadd("set:ht", "a", "b", "c", "1")
    r.sadd("set:bigint", *range(600))
    r.zadd("z:lp", {"a": 1.5, "b": 0.1, "c": 3, "d": -2, "e": 1e300, "f": float("inf"), "g": -0.0, "h": 2 ** 60})
    r.zadd("z:sl", {"m%d" % i: i / 7 for i in range(200)})
    r.zadd("z:long", {"x" * 100: 1, "y": float("-inf")})
    for i in range(1, 300):
        r.xadd("x:big", {"f": "v%d" % i, "n": str(i)}, id="%d-%d" % (1000 + i // 3, i))
    r.xadd("x:big", {"other": "shape", "a": "1"}, id="5000-1")
    r.xdel("x:big", "1001-3", "1010-30")
    r.xadd("x:small", {"a": "1", "b": "two"}, id="1-1")
    r.xadd("x:small", {"a": "3", "b": "four"}, id="1-2")
    r.xadd("x:empty", {"a": "1"}, id="7-7")
    r.xdel("x:empty", "7-7")
    r.xadd("x:groups", {"f": "v"}, id="1-1")
    r.xadd("x:groups", {"f": "v", "g": "w"}, id="2-1")
    r.xadd("x:groups", {"f": "v"}, id="3-1")
    r.xgroup_create("x:groups", "g1", id="0")
    r.xgroup_create("x:groups", "g0", id="2-0")
    r.xreadgroup("g1", "alice", {"x:groups": ">"}, count=2)
    r.xreadgroup("g1", "bob", {"x:groups": ">"}, count=1)
    r.xack("x:groups", "g1", "1-1")
    r.xgroup_createconsumer("x:groups", "g0", "carol")
    r.xadd("x:grouponly", {"f": "v"}, id="5-5")
    r.xgroup_create("x:grouponly", "g", id="0")
    r.xgroup_create("x:grouponly", "g2", id="$")


# Keys whose DUMP bytes differ by design: hash tables' order is each server's own,
# and a stream with groups holds delivery and seen times.
NONDETERMINISTIC = {"h:ht", "h:long", "set:ht", "set:bigint", "x:groups"}


def main():
    rng = random.Random(SEED)
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    red = difftest.RedisServer("--sanitize-dump-payload", "yes", *LIMITS)
    try:
        with spserver.Server(*LIMITS) as srv:
            r = redis.Redis(port=red.port)
            s = redis.Redis(port=srv.port)
            run(rep, rng, r, s, red, srv)
    finally:
        red.stop()
    persistence(rep, rng)
    rep.finish()


def run(rep, rng, r, s, red, srv):
    random.seed(SEED)
    make_keys(r)
    make_keys(s)
    keys = sorted(k.decode() for k in r.keys("*"))

    def same_dumps():
        bad = [k for k in keys if k not in NONDETERMINISTIC and r.dump(k) != s.dump(k)]
        assert not bad, "DUMP differs for %s" % bad
    rep.case("DUMP gives redis-server's bytes for every key of a deterministic encoding (%d keys)" %
             (len(keys) - len(NONDETERMINISTIC)), same_dumps)

    def cross(src, dst, name):
        for k in keys:
            d = src.dump(k)
            assert dst.restore(k + ":x", 0, d), k
            a, b = view(src, k), view(dst, k + ":x")
            assert a == b, "%s %s: %r != %r" % (name, k, a, b)
            ea, eb = src.object("encoding", k), dst.object("encoding", k + ":x")
            assert ea == eb or b"lz4" in (ea, eb), "%s %s: encoding %r != %r" % (name, k, ea, eb)
            # DUMP of the restored key gives the payload back (a stream's times included), but for a hash
            # table's order
            assert dst.dump(k + ":x") == src.dump(k) or (k in NONDETERMINISTIC and k != "x:groups"), \
                "%s %s: DUMP again differs" % (name, k)
    rep.case("every key DUMPed by redis-server RESTOREs into Scratchpad with the same contents and encoding",
             cross, r, s, "redis->scratchpad")
    rep.case("every key DUMPed by Scratchpad RESTOREs into redis-server with the same contents and encoding",
             cross, s, r, "scratchpad->redis")

    old = {
        "linked list (1)": b"\x01" + rlen(3) + rstr("a") + rstr("12") + rstr("c" * 40),
        "text-scored zset (3)": b"\x03" + rlen(3) + rstr("a") + b"\x031.5" + rstr("b") + b"\xfe" + rstr("c") + b"\xff",
        "zipmap hash (9)": b"\x09" + rstr(zipmap([("f1", "v1"), ("f2", "22")])),
        "ziplist list (10)": b"\x0a" + rstr(ziplist(["a", 5, 1000, "b" * 70, -7])),
        "ziplist zset (12)": b"\x0c" + rstr(ziplist(["o", "-2", "m", "1.5", "n", 3])),
        "ziplist hash (13)": b"\x0d" + rstr(ziplist(["f", "v", "n", 12, "x" * 60, "y"])),
        "quicklist of ziplists (14)": b"\x0e" + rlen(2) + rstr(ziplist(["a", "b", 3])) + rstr(ziplist(["d", 400])),
    }

    old["stream, first format (15)"] = stream_v1(r.dump("x:big"))

    def older():
        for what, body in old.items():
            p = payload(body)
            r.restore("old", 0, p, replace=True)
            s.restore("old", 0, p, replace=True)
            assert view(r, "old") == view(s, "old"), "%s: %r != %r" % (what, view(r, "old"), view(s, "old"))
            assert r.object("encoding", "old") == s.object("encoding", "old"), what
            # DUMP again: the same bytes, but for a hash table's order and the nodes of a quicklist of
            # ziplists, which Redis keeps as they came and Scratchpad cuts as tail pushes do
            assert r.dump("old") == s.dump("old") or what.startswith("quicklist") or r.type("old") == b"hash" and \
                r.object("encoding", "old") == b"hashtable", what
    rep.case("payloads in the older formats Redis 7.0 reads (%s) restore the same on both" % ", ".join(old), older)

    good = r.dump("s:raw")
    flipped = bytearray(good)
    flipped[1] ^= 1
    newer = payload(b"\x00" + rstr("v"), version=11)
    cases = [
        ("RESTORE", "s:raw", "0", good),
        ("RESTORE", "new", "abc", good),
        ("RESTORE", "new", "-1", good),
        ("RESTORE", "new", "0", bytes(flipped)),
        ("RESTORE", "new", "0", newer),
        ("RESTORE", "new", "0", good[:5]),
        ("RESTORE", "new", "0", b""),
        ("RESTORE", "new", "0", payload(good[:4])),
        ("RESTORE", "new", "0", good, "REPLACE", "IDLETIME"),
        ("RESTORE", "new", "0", good, "IDLETIME", "-1"),
        ("RESTORE", "new", "0", good, "IDLETIME", "x"),
        ("RESTORE", "new", "0", good, "FREQ", "256"),
        ("RESTORE", "new", "0", good, "FREQ", "-1"),
        ("RESTORE", "new", "0", good, "FREQ", "5", "IDLETIME", "5"),
        ("RESTORE", "new", "0", good, "IDLETIME", "5", "FREQ", "5"),
        ("RESTORE", "new", "0", good, "BOGUS"),
        ("RESTORE", "new", "0", payload(b"\x12" + rlen(0))),
        ("RESTORE", "new", "0", payload(b"\x02" + rlen(2) + rstr("a") + rstr("a"))),
        ("RESTORE", "new", "0", payload(b"\x04" + rlen(2) + rstr("f") + rstr("1") + rstr("f") + rstr("2"))),
        ("RESTORE", "new", "0", payload(b"\x05" + rlen(1) + rstr("m") + b"\x00" * 6 + b"\xf8\x7f")),
        ("RESTORE", "new", "0", payload(b"\x08" + rstr("x"))),
        ("RESTORE", "new", "0", payload(b"\xf0" + rlen(0))),
        ("RESTORE", "new", "0", payload(b"\x10" + rstr(b"\x07\x00\x00\x00\x01\x00\xff"))),
        ("RESTORE", "new", "0", payload(b"\x0b" + rstr(b"\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00\x01\x00"))),
        ("RESTORE", "new"),
        ("DUMP", "nosuchkey"),
        ("DUMP",),
    ]
    for _ in range(20):
        cases.append(("RESTORE", "new", "0", payload(bytes([rng.choice([0, 2, 4, 5, 11, 16, 17, 18, 19])]) +
                                                     bytes(rng.getrandbits(8) for _ in range(rng.randrange(30))))))

    def errors():
        for c in cases:
            a = spserver.raw_command(red.port, *c)
            b = spserver.raw_command(srv.port, *c)
            assert a == b, "%r: redis %r, scratchpad %r" % (c, a, b)
            r.delete("new")
            s.delete("new")
    rep.case("%d RESTORE and DUMP errors (BUSYKEY, TTL, options, checksum, version, truncated, empty, duplicate, "
             "NaN, unknown type, random bytes) are redis-server's, byte for byte" % len(cases), errors)

    def ttls():
        now = int(time.time() * 1000)
        for c in (r, s):
            c.delete("t1", "t2", "t3", "t4")
            c.set("t4", "old")
            assert c.restore("t1", 5000, good)
            assert c.restore("t2", now + 60000, good, absttl=True)
            assert c.restore("t3", now - 1000, good, absttl=True)
            assert c.restore("t4", now - 1000, good, absttl=True, replace=True)
        for c in (r, s):
            assert 4000 < c.pttl("t1") <= 5000, c.pttl("t1")
            assert c.pexpiretime("t2") == now + 60000
            assert c.exists("t3", "t4") == 0
    rep.case("RESTORE's TTL is relative, ABSTTL absolute, one already past creates nothing and REPLACE deletes the "
             "old key, as in redis-server", ttls)

    def idle_freq():
        for c in (r, s):
            c.delete("i1")
            c.restore("i1", 0, good, idletime=1000)
        a, b = r.object("idletime", "i1"), s.object("idletime", "i1")
        assert abs(a - 1000) <= 1 and abs(b - 1000) <= 1, (a, b)
        for c in (r, s):
            c.config_set("maxmemory-policy", "allkeys-lfu")
            c.delete("i1")
            c.restore("i1", 0, good, frequency=77)
        a, b = r.object("freq", "i1"), s.object("freq", "i1")
        for c in (r, s):
            c.config_set("maxmemory-policy", "noeviction")
        assert a == b == 77, (a, b)
    rep.case("IDLETIME sets OBJECT IDLETIME and FREQ (under an LFU policy) OBJECT FREQ as in redis-server", idle_freq)

    def notifications():
        seen = []
        for c in (r, s):
            c.config_set("notify-keyspace-events", "KEAn")
            ps = c.pubsub()
            ps.psubscribe("__key*__:*")
            ps.get_message(timeout=1)
            c.delete("n1")
            c.restore("n1", 0, good)
            c.restore("n1", 1000, good, replace=True)
            c.restore("n1", int(time.time() * 1000) - 5, good, replace=True, absttl=True)
            c.ping()
            got = []
            while True:
                m = ps.get_message(timeout=0.3)
                if not m:
                    break
                got.append((m["channel"], m["data"]))
            ps.close()
            c.config_set("notify-keyspace-events", "")
            seen.append(got)
        assert seen[0] == seen[1] and len(seen[0]) >= 8, seen
    rep.case("RESTORE's keyspace notifications (new, restore, and del for a REPLACE already expired) are "
             "redis-server's, in its order", notifications)

    def redis_py():
        d = s.dump("z:lp")
        assert s.restore("py", 0, d) in (True, b"OK")
        try:
            s.restore("py", 0, d)
            raise AssertionError("no BUSYKEY")
        except redis.exceptions.ResponseError as e:
            assert str(e).endswith("Target key name already exists."), str(e)
        assert s.restore("py", 100000, d, replace=True, idletime=5) in (True, b"OK")
        assert s.zrange("py", 0, -1, withscores=True) == r.zrange("z:lp", 0, -1, withscores=True)
        assert s.dump("nosuch") is None
    rep.case("redis-py's dump() and restore() (replace, idletime, BUSYKEY as its exception)", redis_py)

    def scratchpad():
        s.execute_command("SP.WRITE", "pad", "a.txt", "hello")
        s.execute_command("SP.WRITE", "pad", "b.log", "".join("line %d\n" % i for i in range(20000)))
        s.execute_command("SP.SNAPSHOT", "pad", "snap1")
        s.execute_command("SP.WRITE", "pad", "a.txt", "changed")
        d = s.dump("pad")
        assert d[0] == 240, d[:4]
        assert s.restore("pad2", 0, d)
        for name in (b"a.txt", b"b.log"):
            assert s.execute_command("SP.READ", "pad2", name) == s.execute_command("SP.READ", "pad", name)
        assert s.execute_command("SP.LIST", "pad2") == s.execute_command("SP.LIST", "pad")
        assert s.execute_command("SP.SNAPSHOTS", "pad2") == s.execute_command("SP.SNAPSHOTS", "pad")
        assert s.dump("pad2") == d
        got = spserver.raw_command(red.port, "RESTORE", "pad", "0", d)
        assert got == b"-ERR Bad data format", got
    rep.case("a scratchpad DUMPs as type 240, restores into Scratchpad whole (entries, snapshots), and redis-server "
             "answers ERR Bad data format", scratchpad)

    def mutations():
        seeds = [s.dump(k) for k in keys] + [payload(b) for b in old.values()]
        answers = {}
        for i in range(1500):
            p = bytearray(rng.choice(seeds)[:-10])
            for _ in range(rng.choice([1, 1, 2, 5])):
                p[rng.randrange(len(p))] = rng.getrandbits(8)
            if rng.random() < 0.2:
                p = p[:rng.randrange(1, len(p) + 1)]
            got = spserver.raw_command(srv.port, "RESTORE", "m", "0", payload(bytes(p)), "REPLACE")
            answers[got] = answers.get(got, 0) + 1
            if got == b"+OK":
                assert s.dump("m") is not None
        assert set(answers) <= {b"+OK", b"-ERR Bad data format"}, answers
        assert s.ping()
    rep.case("1500 mutated payloads with good checksums each answer OK or ERR Bad data format, and the server "
             "lives", mutations)


def persistence(rep, rng):
    red = difftest.RedisServer(*LIMITS)
    try:
        r = redis.Redis(port=red.port)
        make_keys(r)
        dumps = {k: r.dump(k) for k in r.keys("*")}
    finally:
        red.stop()

    def state(srv):
        c = client(srv)
        c.response_callbacks = redis.Redis().response_callbacks
        out = {k: (view(c, k), c.pexpiretime(k)) for k in c.keys("*")}
        c.close()
        return out

    def restart_same(srv, what, prep=None):
        """prep (writes, a rewrite), then the state before and after a restart."""
        if prep:
            prep()
        before = state(srv)
        srv.restart()
        after = state(srv)
        assert before == after, "%s: %r" % (what, sorted(k for k in before if before.get(k) != after.get(k))[:5])
        assert len(before) >= len(dumps), len(before)

    def go():
        with Srv("--aof-rewrite-step-us", "1", *LIMITS) as srv:
            c = client(srv)
            for k, d in dumps.items():
                c.execute_command("RESTORE", k, rng.choice([0, 0, 3600000]), d)
                c.execute_command("RESTORE", k + b":abs", int(time.time() * 1000) + 7200000, d, "ABSTTL")
            c.execute_command("SET", "old", "x")
            c.execute_command("RESTORE", "old", int(time.time() * 1000) - 10, dumps[b"s:raw"], "ABSTTL", "REPLACE")
            restart_same(srv, "a restart")

            def inc():
                c = client(srv)
                c.execute_command("CONFIG", "SET", "aof-rewrite-mode", "incremental")
                c.execute_command("BGREWRITEAOF")
                for k, d in list(dumps.items())[:10]:
                    c.execute_command("RESTORE", k, rng.choice([0, 5000000]), d, "REPLACE")
                wait_rewrite_done(c, 1)

            def fork():
                c = client(srv)
                c.execute_command("CONFIG", "SET", "aof-rewrite-mode", "fork")
                c.execute_command("BGREWRITEAOF")
                wait_rewrite_done(c, 1)
            restart_same(srv, "an incremental rewrite", inc)
            restart_same(srv, "a fork rewrite", fork)
            status, out = spserver.run_check_aof(os.path.join(srv.dir, "data", "scratchpad.manifest"))
            assert status == 0, out
    rep.case("RESTOREd keys (TTLs relative and absolute, a REPLACE of an expired one) are the same after a restart, "
             "an incremental and a fork rewrite, and scratchpad-check-aof reads the log as clean", go)


if __name__ == "__main__":
    main()
