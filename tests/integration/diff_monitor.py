#!/usr/bin/python3
"""diff_monitor.py -- MONITOR's output against redis-server.

A monitor connection on each server, then the same commands from another
connection: every line must be Redis's once the time and the client's port
(which differ by nature) are masked: "+<time> [<db> 127.0.0.1:<port>] ...", "+<time> [<db> lua]".
The script covers arguments that need quoting (quotes, backslashes, control
bytes, UTF-8), AUTH and HELLO AUTH redacted, MULTI/EXEC (the queued commands
shown when EXEC runs them, then EXEC), SELECT (the database after the
command), commands refused before running and admin commands (not shown), a
blocked BLPOP (shown once, not again when it is served), pub/sub commands,
and the monitor's own rules: a second MONITOR is ignored, keyspace commands
from a monitor are refused, MONITOR inside MULTI fails, CLIENT LIST shows
flags=O, RESET ends monitoring.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

WRITER = [
    ["SET", "k", "v"],
    ["GET", "k"],
    ["SET", "q", 'a"b\\c\n\r\t\x01\x07\x08\x7f \xc3\xa9'],
    ["AUTH", "secret"],
    ["AUTH", "user", "pass"],
    ["HELLO", "2", "AUTH", "default", "pw", "SETNAME", "n1"],
    ["HELLO", "3"],
    ["HELLO", "2", "SETNAME", "n2"],
    ["CONFIG", "GET", "port"],
    ["CLIENT", "ID"],
    ["CLIENT", "LIST"],
    ["MULTI"],
    ["SET", "a", "1"],
    ["INCR", "a"],
    ["EXEC"],
    ["EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])", "1", "ev", "v"],
    ["MULTI"],
    ["EVAL", "return redis.call('INCR', 'a')", "0"],
    ["EXEC"],
    ["FUNCTION", "LOAD", "#!lua name=monlib\nredis.register_function('monf', function(k) return redis.call('GET', k[1]) end)"],
    ["FCALL", "monf", "1", "ev"],
    ["MULTI"],
    ["NOSUCH"],
    ["DISCARD"],
    ["NOSUCH", "x"],
    ["GET"],
    ["SELECT", "2"],
    ["SET", "x", "1"],
    ["SELECT", "0"],
    ["PUBLISH", "c", "m"],
    ["SUBSCRIBE", "c"],
    ["UNSUBSCRIBE"],
    ["PING"],
    ["LPUSH", "L", "1"],
    ["BLPOP", "L", "0"],
    ["INFO", "server"],
    ["SLOWLOG", "GET"],
    ["DEBUG", "SLEEP", "0"],
    ["COMMAND", "COUNT"],
    ["LPUSH", "wrong", "x"],
    ["GET", "wrong"],
    ["DEL", "wrong", "a", "k", "q"],
    ["FLUSHALL"],
    ["SET", "12", "34"],
]


def mask(line):
    line = re.sub(rb"^\+\d+\.\d{6} \[(\d+) lua\]", rb"+T [\1 lua]", line)
    return re.sub(rb"^\+\d+\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\]", rb"+T [\1 127.0.0.1:P]", line)


def session(port):
    """What the monitor saw and what the monitor's own commands got."""
    mon = Conn(port, read_timeout=0.5)
    w = Conn(port, read_timeout=5)
    b = Conn(port, read_timeout=5)
    out = [mon.call("MONITOR")]
    for args in WRITER:
        w.call(*args)
    # A blocked BLPOP: shown when it blocks, not again when LPUSH serves it.
    b.send(encode([b"BLPOP", b"wait", b"0"]))
    time.sleep(0.1)
    w.call("LPUSH", "wait", "x")
    b.read_reply()
    lines = []
    while True:
        raw, node = mon.read_reply()
        if node[0] in ("TIMEOUT", "EOF"):
            break
        lines.append(mask(raw))
    mon.read_timeout = 5
    # The monitor's own rules.
    own = []
    for args in (["MONITOR"], ["GET", "k"], ["PUBLISH", "c", "m"], ["PING"]):
        mon.send(encode([a.encode() for a in args]))
        if args == ["MONITOR"]:
            continue  # no reply at all
        while True:
            raw, node = mon.read_reply()
            if not raw.startswith(b"+1"):
                break
        own.append(raw)
    listing = w.call("CLIENT", "LIST")[1].decode()
    own.append([ln.split(" flags=")[1].split()[0] for ln in listing.splitlines() if "cmd=ping" in ln])
    mon.send(encode([b"RESET"]))
    while True:
        raw, node = mon.read_reply()
        if not raw.startswith(b"+1"):
            break
    own.append(raw)
    mon.call("SET", "own-key", "1")  # no longer a monitor: a normal reply, no line
    own.append(mon.call("GET", "own-key"))
    c = Conn(port, read_timeout=5)
    c.call("MULTI")
    c.call("MONITOR")
    own.append(c.call("EXEC"))
    for x in (mon, w, b, c):
        x.close()
    return out, lines, own


def main():
    r = spserver.Reporter()
    redis = difftest.RedisServer()
    sp = spserver.Server("--appendonly", "no")
    sp.start()
    try:
        got_r = session(redis.port)
        got_s = session(sp.port)

        def same_lines():
            assert got_r[0] == got_s[0], (got_r[0], got_s[0])
            for i, (a, b) in enumerate(zip(got_r[1], got_s[1])):
                assert a == b, "line %d:\n  redis:      %r\n  scratchpad: %r" % (i, a, b)
            assert len(got_r[1]) == len(got_s[1]), (len(got_r[1]), len(got_s[1]), got_r[1][-3:], got_s[1][-3:])

        def same_rules():
            assert got_r[2] == got_s[2], (got_r[2], got_s[2])
            assert got_s[2][3] == ["O"], got_s[2]

        r.case("MONITOR prints every command as redis-server does (%d lines: quoting, AUTH and HELLO AUTH "
               "redacted, MULTI/EXEC, SELECT's database, EVAL and FCALL before their scripts' commands as lua, no refused or admin commands, a blocked BLPOP once)"
               % len(got_r[1]), same_lines)
        r.case("a monitor's second MONITOR is ignored, its keyspace commands and PUBLISH are refused, CLIENT LIST "
               "shows flags=O, RESET ends it, MONITOR inside MULTI fails, as in redis-server", same_rules)
    finally:
        sp.stop()
        redis.stop()
    r.finish()


if __name__ == "__main__":
    main()
