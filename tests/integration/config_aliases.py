#!/usr/bin/python3
"""config_aliases.py -- Redis 7's *-ziplist-* names of the listpack thresholds, against redis-server.

hash-max-ziplist-entries, hash-max-ziplist-value, zset-max-ziplist-entries,
zset-max-ziplist-value and list-max-ziplist-size are other names of the
*-listpack-* directives: CONFIG SET and CONFIG GET take them, a pattern matches
them as names of their own (answered under the alias), and the config file and
the command line accept them. The same requests go to redis-server and to
Scratchpad (both started here on free ports, stopped by PID) and the replies
are compared (maps as maps: their order is Redis's hash order).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402

import redis  # noqa: E402

ALIASES = ["hash-max-ziplist-entries", "hash-max-ziplist-value", "zset-max-ziplist-entries",
           "zset-max-ziplist-value", "list-max-ziplist-size"]


def reply(r, *args):
    try:
        return r.execute_command(*args)
    except redis.exceptions.ResponseError as e:
        return "error: %s" % e


def script(r):
    out = []
    out.append(reply(r, "CONFIG", "SET", "hash-max-listpack-entries", "128", "zset-max-listpack-value", "64"))
    for a in ALIASES:
        out.append(reply(r, "CONFIG", "GET", a))
    for pat in ("*ziplist*", "*max-*-entries", "list-max-*", "*-value", "HASH-MAX-ZIPLIST-*"):
        out.append(reply(r, "CONFIG", "GET", pat))
    out.append(reply(r, "CONFIG", "GET", "list-max-listpack-size", "list-max-ziplist-size", "LIST-MAX-ZIPLIST-SIZE"))
    out.append(reply(r, "CONFIG", "SET", "hash-max-ziplist-entries", "100"))
    out.append(reply(r, "CONFIG", "GET", "hash-max-listpack-entries"))
    out.append(reply(r, "CONFIG", "SET", "list-max-listpack-size", "-2", "list-max-ziplist-size", "-4"))
    out.append(reply(r, "CONFIG", "GET", "list-max-listpack-size"))
    out.append(reply(r, "CONFIG", "SET", "zset-max-ziplist-value", "1kb"))
    out.append(reply(r, "CONFIG", "GET", "zset-max-listpack-value"))
    out.append(reply(r, "CONFIG", "SET", "hash-max-ziplist-value", "abc"))
    out.append(reply(r, "CONFIG", "SET", "zset-max-ziplist-entries", "abc"))
    out.append(reply(r, "CONFIG", "SET", "hash-max-ziplist-value", "64", "hash-max-ziplist-value", "3"))
    out.append(reply(r, "CONFIG", "SET", "zset-max-ziplist-entries", "1"))
    r.delete("z")
    r.zadd("z", {"a": 1, "b": 2})
    out.append(r.object("encoding", "z"))
    out.append(reply(r, "CONFIG", "SET", "zset-max-ziplist-entries", "128", "hash-max-listpack-value", "64",
                     "zset-max-listpack-value", "64", "hash-max-listpack-entries", "128", "list-max-listpack-size", "-2"))
    return out


def canon(x):
    if isinstance(x, dict):
        return sorted(x.items())
    if isinstance(x, list) and len(x) % 2 == 0:
        return sorted(zip(x[::2], x[1::2]))
    return x


def t_same(sp, rd):
    want = [canon(x) for x in script(rd)]
    have = [canon(x) for x in script(sp)]
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            raise AssertionError("request %d: redis-server %r, scratchpad %r" % (i, w, h))


def t_startup():
    with spserver.Server("--hash-max-ziplist-entries", "77", "--list-max-ziplist-size", "-3") as srv:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
        assert r.config_get("hash-max-listpack-entries") == {"hash-max-listpack-entries": "77"}
        assert r.config_get("list-max-listpack-size") == {"list-max-listpack-size": "-3"}
    d = tempfile.mkdtemp(prefix="cfgalias-")
    port = spserver.free_port()
    with open(os.path.join(d, "alias.conf"), "w") as f:
        f.write("port %d\nbind 127.0.0.1\nzset-max-ziplist-value 33\nhash-max-ziplist-value 1kb\n" % port)
    p = subprocess.Popen([spserver.server_binary(), "alias.conf"], cwd=d, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                if spserver.raw_command(port, "PING", timeout=0.5) == b"+PONG":
                    break
            except OSError:
                pass
            if p.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("the server with alias.conf did not start (status %r)" % p.poll())
            time.sleep(0.02)
        r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=10)
        assert r.config_get("zset-max-listpack-value") == {"zset-max-listpack-value": "33"}
        assert r.config_get("hash-max-listpack-value") == {"hash-max-listpack-value": "1024"}
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(10)
        shutil.rmtree(d, ignore_errors=True)


def main():
    rep = spserver.Reporter()
    rd_srv = difftest.RedisServer()
    try:
        with spserver.Server() as srv:
            sp = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10, decode_responses=True)
            rd = redis.Redis(host="127.0.0.1", port=rd_srv.port, socket_timeout=10, decode_responses=True)
            rep.case("CONFIG GET and SET of the *-ziplist-* aliases, by name and by pattern, errors included, "
                     "answer as redis-server's", t_same, sp, rd)
    finally:
        rd_srv.stop()
    rep.case("the aliases are accepted on the command line and in the config file", t_startup)
    rep.finish()


if __name__ == "__main__":
    main()
