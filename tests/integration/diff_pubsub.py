#!/usr/bin/python3
"""diff_pubsub.py -- pub/sub and keyspace notifications against redis-server.

A fixed script of steps runs on several connections at once, the same on
Debian's redis-server and on Scratchpad: subscribers in RESP2 and RESP3
(channels, patterns, shard channels), a publisher, keyspace subscribers
(notify-keyspace-events KEA, then KEAnm) and a writer running every command
family. After each step every connection gets a barrier (PING <token>, which a
RESP2 subscriber answers [pong, token]) and everything it received before the
barrier is compared, byte for byte: the replies, the pushes interleaved with
them, the errors of RESP2 subscribed mode, RESET. The replies whose order
Redis leaves to a hash table (PUBSUB CHANNELS, several patterns matching one
message, an UNSUBSCRIBE of several channels without arguments) are compared
sorted, or kept to one element in the script.
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402
from resp_wire import Conn, encode, parse, Incomplete  # noqa: E402

CONNS = ["pub", "sub2", "sub3", "ks", "ks3", "w"]

# (connection, command words..., [options]): a tuple whose last element is a
# dict holds options: {"sort": True} compares each array reply sorted,
# {"sleep": s} waits before the barrier.
PUBSUB = [
    ("sub3", "HELLO", "3", {"ignore": True}),
    ("ks3", "HELLO", "3", {"ignore": True}),
    ("sub2", "SUBSCRIBE", "news", "chat"),
    ("sub2", "PING"),
    ("sub2", "PING", "hello"),
    ("sub2", "GET", "k"),
    ("sub2", "CLIENT", "ID"),
    ("sub2", "SET", "k", "v"),
    ("sub2", "MULTI"),
    ("sub2", "EXEC"),
    ("sub2", "PSUBSCRIBE", "ne*", "c?at"),
    ("sub2", "SSUBSCRIBE", "shard1"),
    ("sub3", "SUBSCRIBE", "news"),
    ("sub3", "PING"),
    ("sub3", "GET", "k"),
    ("sub3", "PSUBSCRIBE", "n[ae]ws"),
    ("pub", "PUBLISH", "news", "first"),
    ("pub", "PUBLISH", "chat", "second"),
    ("pub", "PUBLISH", "nobody", "third"),
    ("pub", "PUBLISH", "neon", ""),
    ("pub", "PUBLISH", "news", "x" * 3000),
    ("pub", "PUBLISH", "news", "a\r\nb\x00c"),
    ("pub", "SPUBLISH", "shard1", "s-msg"),
    ("pub", "SPUBLISH", "news", "not-a-shard-sub"),
    ("pub", "PUBSUB", "CHANNELS", {"sort": True}),
    ("pub", "PUBSUB", "CHANNELS", "n*", {"sort": True}),
    ("pub", "PUBSUB", "CHANNELS", "zzz"),
    ("pub", "PUBSUB", "NUMSUB", "news", "chat", "none"),
    ("pub", "PUBSUB", "NUMSUB"),
    ("pub", "PUBSUB", "NUMPAT"),
    ("pub", "PUBSUB", "SHARDCHANNELS"),
    ("pub", "PUBSUB", "SHARDCHANNELS", "s*"),
    ("pub", "PUBSUB", "SHARDNUMSUB", "shard1", "x"),
    ("pub", "PUBSUB", "HELP"),
    ("pub", "PUBSUB", "NOPE"),
    ("pub", "PUBSUB"),
    ("pub", "PUBSUB", "CHANNELS", "a", "b"),
    ("pub", "PUBSUB", "NUMPAT", "x"),
    ("pub", "PUBLISH", "news"),
    ("pub", "SUBSCRIBE"),
    ("pub", "PSUBSCRIBE"),
    ("pub", "SSUBSCRIBE"),
    ("pub", "SPUBLISH", "a"),
    ("pub", "UNSUBSCRIBE"),
    ("pub", "PUNSUBSCRIBE"),
    ("pub", "SUNSUBSCRIBE"),
    ("pub", "UNSUBSCRIBE", "never"),
    ("pub", "INFO", "nosuchsection"),
    ("sub2", "UNSUBSCRIBE", "news"),
    ("sub2", "UNSUBSCRIBE", "news"),
    ("pub", "PUBLISH", "news", "after-unsub"),
    ("sub2", "PUNSUBSCRIBE", "ne*"),
    ("sub2", "PUNSUBSCRIBE"),
    ("sub2", "SUNSUBSCRIBE", "shard1", "other"),
    ("sub2", "UNSUBSCRIBE"),
    ("sub2", "PING"),
    ("sub2", "GET", "k"),
    ("sub2", "SUBSCRIBE", "a1"),
    ("sub2", "RESET"),
    ("sub2", "PING"),
    ("pub", "PUBLISH", "a1", "after-reset"),
    ("sub2", "SSUBSCRIBE", "s1", "s2", "s1"),
    ("sub2", "SUBSCRIBE", "c1", "c1"),
    ("sub2", "SUNSUBSCRIBE", "s1"),
    ("sub2", "UNSUBSCRIBE", "c1"),
    ("sub2", "SUNSUBSCRIBE"),
    ("sub3", "UNSUBSCRIBE"),
    ("sub3", "PUNSUBSCRIBE"),
    ("sub3", "PUNSUBSCRIBE"),
    ("sub3", "SSUBSCRIBE", "x"),
    ("sub3", "SUNSUBSCRIBE"),
    ("sub3", "SUNSUBSCRIBE"),
    ("sub3", "SUBSCRIBE", "self"),
    ("sub3", "PUBLISH", "self", "to-myself"),
    ("sub3", "SET", "k", "v3"),
    ("sub3", "GET", "k"),
    ("sub3", "UNSUBSCRIBE", "self"),
    ("sub2", "PSUBSCRIBE", "p:*"),
    ("pub", "MULTI", {"one": True}),
    ("pub", "PUBLISH", "p:1", "in-multi", {"one": True}),
    ("pub", "SET", "mk", "1", {"one": True}),
    ("pub", "EXEC"),
    ("sub2", "PUNSUBSCRIBE", "p:*"),
    ("pub", "MULTI", {"one": True}),
    ("pub", "SUBSCRIBE", "m1", {"one": True}),
    ("pub", "EXEC"),
    ("pub", "GET", "mk"),
    ("pub", "EXEC"),
    ("pub", "RESET"),
]

KEYSPACE_SETUP = [
    ("w", "CONFIG", "SET", "notify-keyspace-events", "KEA"),
    ("w", "CONFIG", "GET", "notify-keyspace-events"),
    ("ks", "PSUBSCRIBE", "__key*@*__:*"),
    ("ks3", "PSUBSCRIBE", "__keyspace@0__:*"),
]

WRITES = """
set a 1
set a 2 ex 100
setex b 100 x
psetex b2 100000 x
setnx a 3
setnx c 3
getset c 4
set c 5 get
set a 6 keepttl
mset m1 1 m2 2
msetnx m1 1 m3 3
msetnx m4 1 m5 3
append m1 xx
append m9 xx
setrange m1 1 yy
setrange m10 0 ""
incr i
decr i
incrby i 5
decrby i 2
incrbyfloat f 1.5
getex a ex 100
getex a persist
getex a pxat 1
getdel c
get nokey
del m1 m2 nokey
unlink m3
expire m4 100
pexpire m4 100000
expire m4 100 nx
expireat m4 1
persist m5
persist m5
expire m5 100
persist m5
rename m5 m6
renamenx m6 m7
set m8 1
renamenx m7 m8
rename m8 m8
copy m8 m9
copy m8 m9 replace
copy m8 m11 db 2
move m8 3
swapdb 0 5
swapdb 0 5
lpush l a b c
rpush l d
lpushx l e
rpushx nol e
lpop l
rpop l 2
lset l 0 z
linsert l before z y
linsert l before nope y
lrem l 1 y
ltrim l 0 10
ltrim l 0 0
rpush l2 1 2
lmove l2 l3 left right
rpoplpush l2 l3
lmove l3 l3 left left
lmpop 1 l3 left count 5
rpush l4 1
blpop l4 0.1
rpush l5 1 2
ltrim l5 5 10
hset h a 1 b 2
hsetnx h a 1
hsetnx h c 1
hmset h d 1
hincrby h n 1
hincrbyfloat h f 1.5
hdel h a nope
hdel h b c d n f
sadd s 1 2 3
sadd s 1
srem s 1 9
srem s 3
spop s
sadd s 2
smove s s5 2
sadd s3 a b
smove s3 s4 a
smove s3 s4 b
smove s4 s4 a
sadd t1 1 2
sadd t2 2 3
sinterstore t3 t1 t2
sunionstore t3 t1 t2
sdiffstore t3 t1 t2
sinterstore t3 t1 nokey
sdiffstore t3 t1 t1
zadd z 1 a 2 b 3 c 4 d
zadd z xx ch 5 a
zadd z nx 1 a
zincrby z 2 a
zadd z incr 1 b
zrem z a nope
zremrangebyscore z 0 2
zremrangebyrank z 0 0
zadd zl 0 a 0 b 0 c
zremrangebylex zl [a [b
zpopmin zl
zadd zp 1 a 2 b 3 c
zpopmax zp 2
zmpop 1 zp min count 5
zadd za 1 a 2 b
zadd zb 2 b 3 c
zunionstore zc 2 za zb
zinterstore zc 2 za zb
zdiffstore zc 2 za zb
zrangestore zd za 0 -1
zrangestore zd za 5 6
zinterstore zc 2 za nokey
bzpopmin za 0.1
xadd xs 1-1 f v
xadd xs maxlen 1 2-1 f v
xadd xs 3-1 f v
xtrim xs maxlen 5
xtrim xs maxlen 1
xdel xs 3-1 9-9
xdel xs 9-9
xsetid xs 5-5
xgroup create xs g1 0
xgroup create xm g1 $ mkstream
xgroup createconsumer xs g1 c1
xgroup createconsumer xs g1 c1
xadd xs 6-1 f v
xreadgroup group g1 c2 count 1 streams xs >
xclaim xs g1 c3 0 6-1
xautoclaim xs g1 c4 0 0
xack xs g1 6-1
xgroup setid xs g1 0
xgroup delconsumer xs g1 c1
xgroup delconsumer xs g1 nope
xgroup destroy xs g1
xgroup destroy xs g1
del xm xs
setbit bm 7 1
setbit bm 7 1
setbit bm2 3 0
bitfield bf set u8 0 255 get u8 0
bitfield bf get u8 0
bitfield bf overflow fail incrby u8 0 1
bitop or bo bm bm2
bitop and bo nokey1 nokey2
pfadd hl a b c
pfadd hl a
pfcount hl
pfmerge hl2 hl
pfadd hl3
geoadd g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
geoadd g xx 13.361389 38.115556 Palermo
geosearchstore gs g fromlonlat 15 37 byradius 200 km asc
georadius g 15 37 200 km store gr
georadius g 15 37 200 km storedist grd
geosearchstore gs g fromlonlat 0 0 byradius 1 km
georadius g 0 0 1 km store gr
set e1 1 px 60
sleep 0.4
set e2 1 px 60
sleep 0.4
get e2
set e3 1
pexpire e3 60
sleep 0.4
set wrong 1
lpush wrong x
flushall
set after 1
"""


TRACKING_CONNS = ["t3", "t2", "r", "w", "o"]
TRACKING = [
    ("t3", "HELLO", "3", {"ignore": True}),
    ("o", "HELLO", "3", {"ignore": True}),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "CLIENT", "GETREDIR"),
    ("t2", "CLIENT", "TRACKINGINFO"),
    ("t3", "CLIENT", "TRACKING"),
    ("t3", "CLIENT", "TRACKING", "maybe"),
    ("t3", "CLIENT", "TRACKING", "on", "foo"),
    ("t3", "CLIENT", "TRACKING", "maybe", "redirect", "999999"),
    ("t3", "CLIENT", "TRACKING", "on", "redirect", "999999"),
    ("t3", "CLIENT", "TRACKING", "on", "redirect", "abc"),
    ("t3", "CLIENT", "TRACKING", "on", "optin", "optout"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast", "optin"),
    ("t3", "CLIENT", "TRACKING", "on", "prefix", "x"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast", "prefix", "ab", "prefix", "a"),
    ("t3", "CLIENT", "CACHING", "yes"),
    ("t3", "CLIENT", "TRACKING", "on"),
    ("t3", "CLIENT", "CACHING", "yes"),
    ("t3", "CLIENT", "CACHING", "maybe"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "CLIENT", "GETREDIR"),
    ("t3", "GET", "k"),
    ("w", "SET", "k", "1"),
    ("w", "SET", "k", "2"),
    ("t3", "GET", "k"),
    ("t3", "SET", "k", "3"),
    ("t3", "MGET", "k", "k2", "k3"),
    ("w", "MSET", "k", "4", "k2", "5"),
    ("w", "DEL", "k3"),
    ("t3", "HGET", "h", "f"),
    ("t3", "SMEMBERS", "s"),
    ("t3", "ZRANGE", "z", "0", "-1"),
    ("t3", "LRANGE", "l", "0", "-1"),
    ("w", "HSET", "h", "f", "v"),
    ("w", "SADD", "s", "m"),
    ("w", "ZADD", "z", "1", "m"),
    ("w", "RPUSH", "l", "x"),
    ("t3", "GET", "exp"),
    ("w", "SET", "exp", "1", "PX", "50"),
    ("t3", "GET", "exp"),
    ("w", "PING", {"sleep": 0.3}),
    ("t3", "GET", "k"),
    ("w", "SELECT", "1"),
    ("w", "SET", "k", "other-db"),
    ("w", "SELECT", "0"),
    ("t3", "GET", "k"),
    ("t3", "MULTI", {"one": True}),
    ("t3", "GET", "k", {"one": True}),
    ("t3", "SET", "k", "in-multi", {"one": True}),
    ("t3", "EXEC"),
    ("t3", "GET", "k"),
    ("w", "FLUSHALL"),
    ("t3", "GET", "k"),
    ("w", "FLUSHDB"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "CLIENT", "GETREDIR"),
    ("t3", "CLIENT", "TRACKING", "on", "optin"),
    ("t3", "CLIENT", "TRACKING", "on", "optout"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "GET", "x"),
    ("w", "SET", "x", "1"),
    ("t3", "CLIENT", "CACHING", "yes"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "GET", "x"),
    ("w", "SET", "x", "2"),
    ("t3", "CLIENT", "CACHING", "no"),
    ("t3", "CLIENT", "CACHING", "yes"),
    ("t3", "PING"),
    ("t3", "GET", "x"),
    ("w", "SET", "x", "3"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKING", "on", "optout", "noloop"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "GET", "y"),
    ("t3", "SET", "y", "1"),
    ("t3", "GET", "y"),
    ("w", "SET", "y", "2"),
    ("t3", "CLIENT", "CACHING", "no"),
    ("t3", "GET", "z"),
    ("w", "SET", "z", "2"),
    ("t3", "GET", "z"),
    ("w", "SET", "z", "3"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast", "prefix", "p:", "prefix", "q:"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast", "prefix", "p:x"),
    ("w", "SET", "p:1", "x"),
    ("w", "MSET", "q:1", "x", "p:2", "y", "zz", "1", "p:0", "z"),
    # Its own BCAST push goes out in the loop turn of its reply: let that turn
    # end before the barrier arrives (else the order races on both servers).
    ("t3", "SET", "p:3", "1", {"sleep": 0.05}),
    ("w", "DEL", "p:1", "p:2"),
    ("w", "FLUSHALL"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKING", "on", "bcast", "noloop"),
    ("t3", "CLIENT", "TRACKINGINFO"),
    ("t3", "SET", "own", "1"),
    ("w", "SET", "theirs", "1"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("r", "SUBSCRIBE", "__redis__:invalidate"),
    ("t2", "CLIENT", "TRACKING", "on", "redirect", "$ID:r"),
    ("t2", "CLIENT", "GETREDIR", {"mask_ids": True}),
    ("t2", "CLIENT", "TRACKINGINFO", {"mask_ids": True}),
    ("t2", "GET", "rk"),
    ("t2", "GET", "rk2"),
    ("w", "SET", "rk", "1"),
    ("w", "FLUSHALL"),
    ("t2", "GET", "rk"),
    ("t2", "SET", "rk", "mine"),
    ("t2", "CLIENT", "TRACKING", "on", "redirect", "$ID:o"),
    ("t2", "GET", "rk"),
    ("w", "SET", "rk", "2"),
    ("t2", "GET", "rk"),
    ("t3", "CLIENT", "TRACKING", "on", "redirect", "$ID:o"),
    ("t3", "GET", "rk"),
    ("o", "QUIT"),
    ("w", "SET", "rk", "3", {"mask_ids": True}),
    ("t2", "CLIENT", "TRACKINGINFO", {"mask_ids": True}),
    ("t3", "CLIENT", "TRACKINGINFO", {"mask_ids": True}),
    ("w", "CLIENT", "LIST", "ID", "$ID:t2", "$ID:t3", {"ignore": True}),
    ("t2", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("t2", "CLIENT", "TRACKING", "on"),
    ("t2", "GET", "nowhere"),
    ("w", "SET", "nowhere", "1"),
    ("t2", "CLIENT", "TRACKINGINFO"),
    ("t2", "CLIENT", "TRACKING", "off"),
    ("t3", "CLIENT", "TRACKING", "on", "redirect", "$ID:r"),
    ("t3", "GET", "rk"),
    ("r", "UNSUBSCRIBE"),
    ("w", "SET", "rk", "3"),
    ("t3", "CLIENT", "TRACKING", "off"),
    ("r", "RESET"),
    ("t3", "RESET"),
    ("t3", "CLIENT", "TRACKINGINFO"),
]


def write_steps():
    steps = []
    for line in WRITES.strip().splitlines():
        words = [w if w != '""' else "" for w in line.split()]
        if words[0] == "sleep":
            steps.append(("w", "PING", {"sleep": float(words[1])}))
        else:
            steps.append(tuple(["w"] + words))
    return steps


SCRIPT = (PUBSUB + KEYSPACE_SETUP + write_steps() +
          [("w", "CONFIG", "SET", "notify-keyspace-events", "KEAnm"),
           ("w", "CONFIG", "GET", "notify-keyspace-events")] + write_steps()[:12] +
          [("w", "ZADD", "za", "1", "a"), ("w", "ZINTERSTORE", "zc", "2", "za", "nokey"),
           ("w", "ZUNIONSTORE", "zc", "2", "za", "nokey"), ("w", "GET", "nokey"), ("w", "SINTERSTORE", "sc", "nokey"),
           ("w", "SADD", "sx", "1"), ("w", "SADD", "sy", "1"), ("w", "SUNIONSTORE", "sz", "sx", "sy"),
           ("w", "SUNIONSTORE", "sz", "sx", "sy"), ("w", "EXPIRE", "sz", "100"), ("w", "SINTERSTORE", "sz", "sx"),
           ("w", "TTL", "sz"), ("w", "ZUNIONSTORE", "zc", "1", "za"), ("w", "ZUNIONSTORE", "zc", "1", "za")] +
          [("w", "CONFIG", "SET", "notify-keyspace-events", "Eg"),
           ("w", "CONFIG", "GET", "notify-keyspace-events"),
           ("w", "SET", "only-event", "1"), ("w", "DEL", "only-event"),
           ("w", "CONFIG", "SET", "notify-keyspace-events", "Kl"),
           ("w", "LPUSH", "only-list", "1"), ("w", "DEL", "only-list"),
           ("w", "CONFIG", "SET", "notify-keyspace-events", "KQ"),
           ("w", "CONFIG", "GET", "notify-keyspace-events"),
           ("w", "CONFIG", "SET", "notify-keyspace-events", ""),
           ("w", "SET", "quiet", "1"),
           ("ks", "PUNSUBSCRIBE"), ("ks3", "PUNSUBSCRIBE")])


def read_until_barrier(conn, token):
    """Bytes received before the barrier reply carrying token (or what came
    before the connection closed or timed out, marked)."""
    out = []
    while True:
        raw, node = conn.read_reply()
        if node[0] in ("EOF", "TIMEOUT"):
            out.append(raw)
            return out
        t, v = node
        if t in "$" and v == token:
            return out
        if t in "*>" and isinstance(v, list) and len(v) == 2 and v[0] == ("$", b"pong") and v[1] == ("$", token):
            return out
        out.append(raw)


def canon_sorted(raw):
    """An array reply's elements sorted (for replies in hash-table order)."""
    try:
        node, _ = parse(bytearray(raw), 0)
    except (Incomplete, ValueError):
        return raw
    if node[0] in "*~>" and isinstance(node[1], list):
        return (node[0], sorted(repr(x) for x in node[1]))
    return raw


def mask_ids(raw, ids, name):
    for (server, cn), cid in ids.items():
        if server == name:
            raw = raw.replace(b":%s\r\n" % cid, b":<id %s>\r\n" % cn.encode())
            raw = raw.replace(b"redir=%s " % cid, b"redir=<id %s> " % cn.encode())
    return raw


def run_script(ports, script, conn_names):
    """Run script on each server (ports: name -> port) with the connections
    conn_names; returns the list of differences. A word "$ID:<conn>" is that
    connection's id on each server; with {"mask_ids": True} the ids in the
    replies are masked."""
    conns = {name: {c: Conn(port, read_timeout=5.0) for c in conn_names} for name, port in ports.items()}
    ids = {}
    for name, per in conns.items():
        for cn, c in per.items():  # a step and its barrier are two small writes: no Nagle delay between them
            c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            ids[name, cn] = c.call("CLIENT", "ID")[1]
    diffs = []
    for n, step in enumerate(script):
        opts = step[-1] if isinstance(step[-1], dict) else {}
        words = [w for w in step[1:] if not isinstance(w, dict)]
        for name in ports:
            sub = [ids[name, w[4:]] if isinstance(w, str) and w.startswith("$ID:") else w for w in words]
            conns[name][step[0]].send(encode([w.encode("latin-1") if isinstance(w, str) else w for w in sub]))
        if opts.get("sleep"):
            time.sleep(opts["sleep"])
        token = b"~sync%d" % n
        t_step = time.monotonic()
        got = {}
        for name in ports:
            got[name] = {}
            # The stepping connection first (its reply may deliver to others).
            for c in [step[0]] + [x for x in conn_names if x != step[0]]:
                if c == step[0] and opts.get("one"):
                    got[name][c] = [conns[name][c].read_reply()[0]]  # inside MULTI: a PING would be queued
                    continue
                conns[name][c].send(encode([b"PING", token]))
                got[name][c] = read_until_barrier(conns[name][c], token)
        if os.environ.get("DIFF_TRACE") and time.monotonic() - t_step > 0.3:
            print("# step %d %s took %.1f s" % (n, " ".join(words), time.monotonic() - t_step))
        names = list(ports)
        for c in conn_names if not opts.get("ignore") else []:
            a, b = got[names[0]][c], got[names[1]][c]
            if opts.get("mask_ids"):
                a, b = [[mask_ids(x, ids, name) for x in v] for v, name in ((a, names[0]), (b, names[1]))]
            if opts.get("sort"):
                a, b = [canon_sorted(x) for x in a], [canon_sorted(x) for x in b]
            if a != b:
                diffs.append("step %d %s %s, connection %s:\n      redis:      %r\n      scratchpad: %r" %
                             (n, step[0], " ".join(words)[:80], c, got[names[0]][c], got[names[1]][c]))
        if len(diffs) >= 8:
            break
    for per in conns.values():
        for c in per.values():
            c.close()
    return diffs


def main():
    r = spserver.Reporter()
    redis = difftest.RedisServer()
    sp = spserver.Server("--appendonly", "no")
    sp.start()
    try:
        t0 = time.monotonic()
        diffs = run_script({"redis": redis.port, "scratchpad": sp.port}, SCRIPT, CONNS)
        secs = time.monotonic() - t0
        t1 = time.monotonic()
        tdiffs = run_script({"redis": redis.port, "scratchpad": sp.port}, TRACKING, TRACKING_CONNS)
        tsecs = time.monotonic() - t1

        def same():
            if diffs:
                raise AssertionError("\n".join(diffs))
        r.case("a script of %d steps on 6 connections (RESP2 and RESP3 subscribers, patterns, shard channels, "
               "subscribed-mode errors, RESET, keyspace notifications of every command family) gets redis-server's "
               "bytes on every connection (%.1f s)" % (len(SCRIPT), secs), same)
        def same_tracking():
            if tdiffs:
                raise AssertionError("\n".join(tdiffs))
        r.case("client-side caching, a script of %d steps (RESP3 pushes, a RESP2 REDIRECT to __redis__:invalidate, "
               "OPTIN, OPTOUT, NOLOOP, BCAST prefixes, flushes, a broken redirect, TRACKINGINFO, GETREDIR, the "
               "errors) gets redis-server's bytes on every connection (%.1f s)" % (len(TRACKING), tsecs),
               same_tracking)
        r.case("scratchpad-server is still alive after the script", lambda: sp.alive() or (_ for _ in ()).throw(
            AssertionError("server died: " + sp.log_tail())))
    finally:
        sp.stop()
        redis.stop()
    r.finish()


if __name__ == "__main__":
    main()
