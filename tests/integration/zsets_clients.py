#!/usr/bin/python3
"""zsets_clients.py -- sorted sets driven by redis-py the way applications use
them: a scheduler of due tasks (ZADD with due times, ZRANGEBYSCORE up to now,
ZREM claims in a MULTI, ZPOPMIN), a leaderboard (ZINCRBY from threads,
ZREVRANGE WITHSCORES, ZREVRANK, ZSCORE floats), a sliding-window rate limiter
(ZREMRANGEBYSCORE + ZADD + ZCARD + EXPIRE in a pipeline), set algebra with
WEIGHTS/AGGREGATE (ZUNIONSTORE, ZINTER, ZDIFF), ZSCAN iteration over a large
set, ZMPOP, ZRANDMEMBER, redis-py's parsed replies (floats, tuples), and the
exceptions redis-py raises, whose messages must be Redis 7's words.

One server of its own on a free port (tests/lib/spserver.py), stopped by PID;
every socket has a timeout."""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

R = None
PORT = None


def client(**kw):
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=30, socket_connect_timeout=30, **kw)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def expect_error(fn, message):
    try:
        got = fn()
    except ResponseError as e:
        eq(str(e), message, "error message")
        return
    raise AssertionError("no error (reply %r), want %r" % (got, message))


def case_scheduler():
    now = time.time()
    R.delete("sched")
    R.zadd("sched", {"task:%d" % i: now + i - 50 for i in range(100)})
    due = R.zrangebyscore("sched", "-inf", now, start=0, num=10)
    eq(len(due), 10, "due tasks")
    eq(due[0], b"task:0")
    # claim: remove in a transaction, as a worker would
    with R.pipeline() as p:
        p.zrem("sched", *due)
        p.zcard("sched")
        eq(p.execute(), [10, 90], "claim")
    eq(R.zpopmin("sched"), [(b"task:10", now - 40)], "zpopmin")
    eq(R.zpopmin("sched", 2), [(b"task:11", now - 39), (b"task:12", now - 38)], "zpopmin count")
    eq(R.zcount("sched", "-inf", "(%r" % now), 37, "zcount exclusive")
    eq(R.zadd("sched", {"task:99": now}, xx=True, ch=True), 1, "ZADD XX CH")
    eq(R.zadd("sched", {"task:99": now + 100}, lt=True), 0, "ZADD LT")
    eq(R.zscore("sched", "task:99"), now, "rescheduled")


def case_leaderboard():
    R.delete("lb")
    def worker(n):
        c = client()
        for i in range(200):
            c.zincrby("lb", 1.5, "p%d" % (i % 10))
        c.close()
    ts = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    top = R.zrevrange("lb", 0, 2, withscores=True)
    eq(top, [(b"p9", 120.0), (b"p8", 120.0), (b"p7", 120.0)], "top 3")
    eq(R.zrevrank("lb", "p9"), 0)
    eq(R.zrank("lb", "p0"), 0)
    eq(R.zscore("lb", "p3"), 120.0)
    eq(R.zadd("lb", {"p3": 0.1}, incr=True), 120.1, "ZADD INCR")
    eq(R.zmscore("lb", ["p3", "nobody"]), [120.1, None])
    eq(R.zrange("lb", 0, 0, desc=True, withscores=True), [(b"p3", 120.1)], "ZRANGE REV")
    eq(R.zrange("lb", "(120", "+inf", byscore=True), [b"p3"], "ZRANGE BYSCORE")


def case_rate_limiter():
    key = "rl:user1"
    R.delete(key)
    allowed = 0
    for i in range(30):
        now_ms = 1_000_000 + i * 100
        with R.pipeline(transaction=True) as p:
            p.zremrangebyscore(key, 0, now_ms - 1000)
            p.zadd(key, {"req:%d" % i: now_ms})
            p.zcard(key)
            p.expire(key, 10)
            _, _, n, _ = p.execute()
        if n <= 5:
            allowed += 1
    eq(R.zcard(key), 10, "window")
    eq(allowed, 5, "allowed in the first window")
    eq(R.ttl(key) > 0, True, "ttl")


def case_algebra():
    R.delete("a", "b", "out")
    R.zadd("a", {"x": 1, "y": 2, "z": 3})
    R.zadd("b", {"y": 10, "z": 20, "w": 30})
    eq(R.zunionstore("out", {"a": 2, "b": 1}), 4)
    eq(R.zrange("out", 0, -1, withscores=True), [(b"x", 2.0), (b"y", 14.0), (b"z", 26.0), (b"w", 30.0)])
    eq(R.zinterstore("out", ["a", "b"], aggregate="MAX"), 2)
    eq(R.zrange("out", 0, -1, withscores=True), [(b"y", 10.0), (b"z", 20.0)])
    eq(R.zinter(["a", "b"], aggregate="MIN", withscores=True), [(b"y", 2.0), (b"z", 3.0)])
    eq(R.zdiff(["a", "b"], withscores=True), [b"x", b"1"], "ZDIFF (redis-py 4.3 leaves it flat)")
    eq(R.zintercard(2, ["a", "b"]), 2)
    eq(R.zrangestore("out", "a", 1, 2), 2)
    eq(R.zrange("out", 0, -1), [b"y", b"z"])
    eq(R.zdiffstore("out", ["a", "a"]), 0)
    eq(R.exists("out"), 0, "an empty result deletes the destination")
    eq(R.zmpop(2, ["nokey", "a"], max=True, count=2), [b"a", [[b"z", b"3"], [b"y", b"2"]]], "ZMPOP")


def case_scan_and_random():
    R.delete("big")
    with R.pipeline(transaction=False) as p:
        for i in range(0, 5000, 500):
            p.zadd("big", {"m%d" % j: j for j in range(i, i + 500)})
        p.execute()
    eq(R.object("encoding", "big"), b"skiplist")
    seen = {}
    for m, s in R.zscan_iter("big", count=100):
        seen[m] = s
    eq(len(seen), 5000, "ZSCAN sees every member")
    eq(seen[b"m4321"], 4321.0)
    R.delete("names")
    R.zadd("names", {"m%d" % j: 0 for j in range(300)})
    eq(R.zrangebylex("names", "[m298", "(m3"), [b"m298", b"m299"], "ZRANGEBYLEX")
    eq(R.zlexcount("names", "(m1", "[m2"), 111, "ZLEXCOUNT")
    r = R.zrandmember("big", 10, withscores=True)
    eq(len(r), 20, "ZRANDMEMBER 10 WITHSCORES (flat in RESP2)")
    ms = set(r[0::2])
    eq(len(ms), 10, "distinct members")
    for m, s in zip(r[0::2], r[1::2]):
        eq(float(s), float(m[1:]), "score of " + m.decode())
    eq(len(R.zrandmember("big", -20000)), 20000, "with repetitions")
    eq(R.zremrangebyrank("big", 0, 3999), 4000)
    eq(R.zcard("big"), 1000)


def case_errors():
    R.set("str", "x")
    expect_error(lambda: R.zadd("str", {"a": 1}), "WRONGTYPE Operation against a key holding the wrong kind of value")
    expect_error(lambda: R.execute_command("ZADD", "z", "NX", "XX", 1, "a"),
                 "XX and NX options at the same time are not compatible")
    expect_error(lambda: R.execute_command("ZADD", "z", "GT", "LT", 1, "a"),
                 "GT, LT, and/or NX options at the same time are not compatible")
    expect_error(lambda: R.execute_command("ZADD", "z", "x", "a"), "value is not a valid float")
    expect_error(lambda: R.zrangebyscore("z", "a", "b"), "min or max is not a float")
    expect_error(lambda: R.zrangebylex("z", "a", "b"), "min or max not valid string range item")
    R.zadd("z", {"a": float("inf")})
    expect_error(lambda: R.zincrby("z", float("-inf"), "a"), "resulting score is not a number (NaN)")
    expect_error(lambda: R.execute_command("ZUNIONSTORE", "o", 0, "z"),
                 "at least 1 input key is needed for 'zunionstore' command")


def case_huge_random_count():
    """ZRANDMEMBER with a count of -(2^63-1) replies until the output limit
    closes the client; the server stops there and answers the next client."""
    import socket
    R.config_set("client-output-buffer-limit", "normal 32mb 16mb 60")
    try:
        R.zadd("rk", {"a": 1, "b": 2})
        s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
        s.sendall(b"ZRANDMEMBER rk -9223372036854775807\r\n")
        while True:
            try:
                if not s.recv(1 << 20):
                    break
            except OSError:
                break
        s.close()
        c = redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=5)
        eq(c.ping(), True, "PING after")
        c.close()
    finally:
        R.config_set("client-output-buffer-limit", "normal 1gb 256mb 60")


def main():
    global R, PORT
    srv = spserver.Server("--appendonly", "no")
    srv.start()
    PORT = srv.port
    R = client()
    failed = 0
    try:
        for name, fn, sentence in [
            ("scheduler", case_scheduler, "a task scheduler: due tasks by score, claimed in MULTI, ZPOPMIN, ZADD XX/CH/LT"),
            ("leaderboard", case_leaderboard, "a leaderboard: ZINCRBY from 4 threads, ranks, ZADD INCR, ZMSCORE, ZRANGE REV and BYSCORE"),
            ("ratelimit", case_rate_limiter, "a sliding-window rate limiter in MULTI pipelines (ZREMRANGEBYSCORE, ZADD, ZCARD, EXPIRE)"),
            ("algebra", case_algebra, "ZUNIONSTORE WEIGHTS, ZINTERSTORE/ZINTER AGGREGATE, ZDIFF, ZINTERCARD, ZRANGESTORE, ZMPOP"),
            ("scan", case_scan_and_random, "5,000 members: ZSCAN iteration sees each, ZRANDMEMBER distinct with their scores, ZREMRANGEBYRANK"),
            ("hugecount", case_huge_random_count, "ZRANDMEMBER with a count of -(2^63-1) stops at the output limit and the server answers the next client"),
            ("errors", case_errors, "redis-py raises Redis 7's error messages for the sorted set commands"),
        ]:
            try:
                fn()
                print("ok - %s" % sentence)
            except Exception as e:  # noqa: BLE001
                failed += 1
                print("not ok - %s: %r" % (sentence, e))
    finally:
        R.close()
        srv.stop()
    return failed == 0


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
