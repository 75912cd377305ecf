#!/usr/bin/python3
"""pubsub_clients.py -- pub/sub, keyspace notifications and tracking through redis-py, as
agents use them, and the pubsub output limit.

redis-py's pubsub(): subscribe, psubscribe, listen(), get_message() with a
timeout, handlers run by run_in_thread, RESP2 subscribed mode seen by the
client (PING's reply); keyspace notifications of a string, a list and a
scratchpad (class p: sp.write, sp.append, sp.edit, sp.insert, sp.del and
sp.expired, the last from the server's own expiry); CLIENT LIST's flags and
counts, CLIENT KILL TYPE pubsub, INFO stats; client-side caching redirected
to a RESP2 __redis__:invalidate subscriber; and a slow subscriber (one that
never reads) disconnected by client-output-buffer-limit pubsub while 50 other
subscribers receive every message and the publisher is never refused.
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402
from resp_wire import encode  # noqa: E402

import redis  # noqa: E402


def wait_for(pred, timeout=5.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


def t_listen_and_patterns(port):
    r = redis.Redis(port=port)
    p = r.pubsub()
    p.subscribe("news")
    p.psubscribe("task.*")
    assert p.get_message(timeout=2) == {"type": "subscribe", "pattern": None, "channel": b"news", "data": 1}
    assert p.get_message(timeout=2) == {"type": "psubscribe", "pattern": None, "channel": b"task.*", "data": 2}
    assert r.publish("news", "hello") == 1
    assert r.publish("task.17", "yours") == 1
    assert r.publish("other", "nobody") == 0
    got = []
    for m in p.listen():
        got.append(m)
        if len(got) == 2:
            break
    assert got[0] == {"type": "message", "pattern": None, "channel": b"news", "data": b"hello"}, got
    assert got[1] == {"type": "pmessage", "pattern": b"task.*", "channel": b"task.17", "data": b"yours"}, got
    assert p.get_message(timeout=0.1) is None
    assert r.pubsub_channels() == [b"news"]
    assert r.pubsub_numsub("news", "x") == [(b"news", 1), (b"x", 0)]
    assert r.pubsub_numpat() == 1
    p.unsubscribe("news")
    p.punsubscribe()
    kinds = [p.get_message(timeout=2)["type"] for _ in range(2)]
    assert kinds == ["unsubscribe", "punsubscribe"], kinds
    p.close()


def t_thread_handlers(port):
    r = redis.Redis(port=port)
    p = r.pubsub(ignore_subscribe_messages=True)
    seen = []
    p.subscribe(**{"plan": lambda m: seen.append(m["data"])})
    t = p.run_in_thread(sleep_time=0.01)
    try:
        wait_for(lambda: r.pubsub_numsub("plan") == [(b"plan", 1)], what="the subscription")
        for i in range(100):
            r.publish("plan", "step %d" % i)
        wait_for(lambda: len(seen) == 100, what="100 messages")
        assert seen == [b"step %d" % i for i in range(100)], "in order, each once"
    finally:
        t.stop()
        t.join(timeout=5)
        p.close()


def t_subscribed_mode(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(encode([b"SUBSCRIBE", b"c"]) + encode([b"PING"]) + encode([b"GET", b"k"]))
    want = (b"*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n"
            b"-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed "
            b"in this context\r\n")
    buf = b""
    while len(buf) < len(want):
        buf += s.recv(4096)
    assert buf == want, buf
    r = redis.Redis(port=port)
    line = [x for x in r.execute_command("CLIENT", "LIST").decode().splitlines() if "cmd=get" in x][0]
    assert " flags=P " in line and " sub=1 psub=0 ssub=0 " in line, line
    info = r.info("stats")
    assert info["pubsub_channels"] == 1 and info["pubsub_patterns"] == 0, info
    assert r.execute_command("CLIENT", "KILL", "TYPE", "pubsub") == 1
    s.settimeout(5)
    assert s.recv(100) == b"", "the subscriber is closed"
    wait_for(lambda: r.info("stats")["pubsub_channels"] == 0, what="the channel to go with its subscriber")
    s.close()


def t_keyspace(port):
    r = redis.Redis(port=port)
    r.config_set("notify-keyspace-events", "KEA")
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": "AKE"}
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("__keyspace@0__:*")
    p.get_message(timeout=1)
    r.set("plan", "v1")
    r.rpush("queue", "a")
    r.expire("plan", 100)
    r.delete("plan")
    want = [(b"__keyspace@0__:plan", b"set"), (b"__keyspace@0__:queue", b"rpush"),
            (b"__keyspace@0__:plan", b"expire"), (b"__keyspace@0__:plan", b"del")]
    got = []
    while len(got) < len(want):
        m = p.get_message(timeout=2)
        assert m is not None, got
        got.append((m["channel"], m["data"]))
    assert got == want, got
    p.close()


def t_scratchpad_events(port):
    r = redis.Redis(port=port)
    r.config_set("notify-keyspace-events", "Kp")
    assert r.config_get("notify-keyspace-events") == {"notify-keyspace-events": "pK"}
    p = r.pubsub(ignore_subscribe_messages=True)
    p.psubscribe("__keyspace@0__:team-*")
    p.get_message(timeout=1)
    r.execute_command("SP.WRITE", "team-a", "plan", "line one\n")
    r.execute_command("SP.APPEND", "team-a", "plan", "line two\n")
    r.execute_command("SP.EDIT", "team-a", "plan", "one", "1")
    r.execute_command("SP.INSERT", "team-a", "plan", "0", "top")
    r.execute_command("SP.WRITE", "team-a", "tmp", "x")
    r.execute_command("SP.DEL", "team-a", "tmp")
    r.execute_command("SP.WRITE", "team-a", "short", "x", "PX", "50")
    r.set("team-string", "1")  # a string: class $, not configured
    r.execute_command("SP.WRITE", "other", "plan", "x")  # not matched by the pattern
    want = [b"sp.write", b"sp.append", b"sp.edit", b"sp.insert", b"sp.write", b"sp.del", b"sp.write",
            b"sp.expired"]
    got = []
    while len(got) < len(want):
        m = p.get_message(timeout=3)
        assert m is not None, got
        assert m["channel"] == b"__keyspace@0__:team-a", m
        got.append(m["data"])
    assert got == want, got
    assert r.execute_command("SP.LIST", "team-a") is not None
    p.close()
    r.config_set("notify-keyspace-events", "")


def t_slow_subscriber(port):
    r = redis.Redis(port=port)
    r.config_set("client-output-buffer-limit", "pubsub 1mb 0 0")
    assert r.config_get("client-output-buffer-limit")["client-output-buffer-limit"].endswith("pubsub 1048576 0 0")
    slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    slow.connect(("127.0.0.1", port))
    slow.sendall(encode([b"SUBSCRIBE", b"firehose"]))
    confirm = b"*3\r\n$9\r\nsubscribe\r\n$8\r\nfirehose\r\n:1\r\n"
    subs = []
    for _ in range(50):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(encode([b"SUBSCRIBE", b"firehose"]))
        got = b""
        while len(got) < len(confirm):
            got += s.recv(100)
        assert got == confirm, got
        s.setblocking(False)
        subs.append(s)
    wait_for(lambda: r.pubsub_numsub("firehose") == [(b"firehose", 51)], what="51 subscribers")
    payload = b"m" * 1000
    expected = []
    received = [bytearray() for _ in subs]

    def drain(k, until):
        deadline = time.monotonic() + 10
        while len(received[k]) < until and time.monotonic() < deadline:
            try:
                chunk = subs[k].recv(1 << 20)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            assert chunk, "subscriber %d was closed" % k
            received[k] += chunk

    total = 0
    for batch in range(40):
        pipe = r.pipeline(transaction=False)
        for i in range(100):
            m = payload + b"%05d" % (batch * 100 + i)
            pipe.publish("firehose", m)
            frame = b"*3\r\n$7\r\nmessage\r\n$8\r\nfirehose\r\n$%d\r\n%s\r\n" % (len(m), m)
            expected.append(frame)
            total += len(frame)
        receivers = pipe.execute()
        assert all(n in (50, 51) for n in receivers), receivers
        for k in range(len(subs)):
            drain(k, total)
    want = b"".join(expected)
    for k in range(len(subs)):
        assert bytes(received[k]) == want, "subscriber %d got %d of %d bytes" % (k, len(received[k]), len(want))
    assert r.pubsub_numsub("firehose") == [(b"firehose", 50)], "the slow subscriber is gone"
    assert r.info("stats")["client_output_buffer_limit_disconnections"] >= 1
    slow.close()
    for s in subs:
        s.close()
    r.config_set("client-output-buffer-limit", "pubsub 32mb 8mb 60")


def t_tracking_redirect(port):
    r = redis.Redis(port=port)
    inval = r.pubsub()
    inval.subscribe("__redis__:invalidate")
    assert inval.get_message(timeout=2)["type"] == "subscribe"
    rid = [int(x.split()[0][3:]) for x in r.execute_command("CLIENT", "LIST").decode().splitlines() if
           "cmd=subscribe" in x][0]
    cache = redis.Redis(port=port, single_connection_client=True)
    assert cache.execute_command("CLIENT", "TRACKING", "ON", "REDIRECT", rid) == b"OK"
    assert cache.execute_command("CLIENT", "GETREDIR") == rid
    info = cache.execute_command("CLIENT", "INFO").decode()
    assert " flags=t " in info and " redir=%d " % rid in info, info
    r.set("shared:plan", "v1")
    assert cache.get("shared:plan") == b"v1"
    assert r.info("stats")["tracking_total_keys"] >= 1
    assert r.info("clients")["tracking_clients"] == 1
    r.set("shared:plan", "v2")
    m = inval.get_message(timeout=2)
    assert m == {"type": "message", "pattern": None, "channel": b"__redis__:invalidate", "data": [b"shared:plan"]}, m
    r.set("shared:plan", "v3")
    assert inval.get_message(timeout=0.2) is None, "invalidated once, until read again"
    assert cache.execute_command("CLIENT", "TRACKING", "OFF") == b"OK"
    assert cache.execute_command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "team:") == b"OK"
    info = cache.execute_command("CLIENT", "INFO").decode()
    assert " flags=tB " in info and " redir=0 " in info, info
    assert r.info("stats")["tracking_total_prefixes"] == 1
    cache.close()
    inval.close()


def t_large_shared(port):
    r = redis.Redis(port=port)
    r.config_set("client-output-buffer-limit", "pubsub 4mb 0 0")
    subs = []
    for k in range(12):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if k % 3 == 1:
            s.sendall(encode([b"HELLO", b"3"]))
            buf = b""
            while not buf.endswith(b"*0\r\n"):
                buf += s.recv(4096)
        s.sendall(encode([b"PSUBSCRIBE", b"big*"] if k % 3 == 2 else [b"SUBSCRIBE", b"big"]))
        buf = b""
        while not buf.endswith(b":1\r\n"):
            buf += s.recv(4096)
        subs.append(s)
    slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", port))
    slow.sendall(encode([b"SUBSCRIBE", b"big"]))
    wait_for(lambda: r.pubsub_numsub("big") == [(b"big", 9)], what="9 channel subscribers")
    before = r.info("stats")["client_output_buffer_limit_disconnections"]
    msgs = []
    for i in range(60):
        size = 100000 + i if i % 2 == 0 else 10 + i  # shared and copied messages in turn
        m = bytes([65 + i % 26]) * size
        msgs.append(m)
        assert r.publish("big", m) in (12, 13)

    def frame(k, m):
        if k % 3 == 2:
            return b"%s4\r\n$8\r\npmessage\r\n$4\r\nbig*\r\n$3\r\nbig\r\n$%d\r\n%s\r\n" % (b"*", len(m), m)
        return b"%s3\r\n$7\r\nmessage\r\n$3\r\nbig\r\n$%d\r\n%s\r\n" % (b">" if k % 3 == 1 else b"*", len(m), m)
    for k, s in enumerate(subs):
        want = b"".join(frame(k, m) for m in msgs)
        got = bytearray()
        while len(got) < len(want):
            chunk = s.recv(1 << 20)
            assert chunk, "subscriber %d closed after %d bytes" % (k, len(got))
            got += chunk
        assert bytes(got) == want, "subscriber %d: the bytes differ" % k
        s.close()
    wait_for(lambda: r.pubsub_numsub("big") == [(b"big", 1)], what="the readers to go")
    for i in range(80):  # 8 MB more for the one that never reads (shared only with itself: copied)
        r.publish("big", b"z" * 100000)
    wait_for(lambda: r.pubsub_numsub("big") == [(b"big", 0)], what="the slow subscriber to be cut")
    assert r.info("stats")["client_output_buffer_limit_disconnections"] == before + 1
    slow.close()
    r.config_set("client-output-buffer-limit", "pubsub 32mb 8mb 60")


def main():
    rep = Reporter()
    with Server() as srv:
        rep.case("redis-py pubsub(): subscribe, psubscribe, get_message and listen() get messages and pmessages "
                 "in order; PUBSUB CHANNELS, NUMSUB and NUMPAT count them", t_listen_and_patterns, srv.port)
        rep.case("run_in_thread handlers get 100 messages in order, each once", t_thread_handlers, srv.port)
        rep.case("a RESP2 subscriber gets PING's [pong, ''] and Redis's error for GET; CLIENT LIST shows flags=P "
                 "sub=1; CLIENT KILL TYPE pubsub closes it and INFO's pubsub_channels drops to 0",
                 t_subscribed_mode, srv.port)
        rep.case("keyspace notifications (KEA) reach a pattern subscriber in command order", t_keyspace, srv.port)
        rep.case("scratchpad events (class p) on __keyspace@0__:team-*: sp.write, sp.append, sp.edit, sp.insert, "
                 "sp.del and sp.expired from the server's own expiry", t_scratchpad_events, srv.port)
        rep.case("client-side caching through redis-py: a RESP2 cache connection redirects its invalidations to a "
                 "__redis__:invalidate subscriber, once per read; CLIENT INFO shows flags=t redir=<id>, then "
                 "flags=tB redir=0 in BCAST mode; INFO stats counts keys and prefixes", t_tracking_redirect, srv.port)
        rep.case("messages of 100 KB (kept once, referenced by every output) and small ones (copied) in turn "
                 "reach 12 RESP2, RESP3 and pattern subscribers byte for byte while a 13th never reads, and it is "
                 "cut once past its limit", t_large_shared, srv.port)
        rep.case("a subscriber that never reads is disconnected by the pubsub output limit while 50 others receive "
                 "all 4000 messages byte for byte and every PUBLISH is answered", t_slow_subscriber, srv.port)
    rep.finish()


if __name__ == "__main__":
    main()
