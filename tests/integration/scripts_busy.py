#!/usr/bin/python3
"""scripts_busy.py -- a script that runs past busy-reply-threshold, as Redis 7.0 handles it.

With busy-reply-threshold at 100 ms: a script in an infinite loop keeps the
other clients waiting until the threshold, then they get Redis's -BUSY error
(PING, GET, MULTI's queued command and plain SHUTDOWN too), SCRIPT KILL ends the
script (its caller gets "Script killed by user with SCRIPT KILL...") and the
server goes on; a script that wrote before looping refuses SCRIPT KILL with
-UNKILLABLE, and SHUTDOWN NOSAVE stops the server; lua-time-limit is the
alias of busy-reply-threshold. Each reply is compared with redis-server's
text.
"""
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

BUSY = b"-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"
LOOP = "local i = 0 while true do i = i + 1 end"
LOOP_SHA = "3fcf51a9b854b8f66cb8685600b0d7df968f4398"


def ask(c, *args):
    c.send(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
    return c.read_reply()[0]


def start_script(port, body):
    """Send EVAL body on a connection of its own; a thread reads its reply into the returned dict."""
    c = Conn(port)
    out = {}

    def reader():
        try:
            out["reply"] = c.read_reply()[0]
        except Exception as e:  # the connection closed (SHUTDOWN NOSAVE)
            out["error"] = e

    c.send(encode([b"EVAL", body.encode(), b"0"]))
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return c, t, out


def killed_script(srv):
    c = Conn(srv.port)
    assert ask(c, "CONFIG", "SET", "lua-time-limit", "100") == b"+OK\r\n"
    assert ask(c, "CONFIG", "GET", "busy-reply-threshold") == b"*2\r\n$20\r\nbusy-reply-threshold\r\n$3\r\n100\r\n"
    sc, t, out = start_script(srv.port, LOOP)
    time.sleep(0.4)
    for cmd in (["PING"], ["GET", "x"], ["SHUTDOWN"]):
        got = ask(c, *cmd)
        assert got == BUSY, (cmd, got)
    assert ask(c, "MULTI") == b"+OK\r\n"
    assert ask(c, "GET", "x") == BUSY
    k = Conn(srv.port)
    assert ask(k, "SCRIPT", "KILL") == b"+OK\r\n"
    t.join(5)
    want = ("-ERR Script killed by user with SCRIPT KILL... script: %s, on @user_script:1.\r\n" % LOOP_SHA).encode()
    assert out.get("reply") == want, out
    got = ask(c, "EXEC")
    assert got.startswith(b"-EXECABORT"), got
    assert ask(c, "SCRIPT", "KILL") == b"-NOTBUSY No scripts in execution right now.\r\n"
    assert ask(c, "PING") == b"+PONG\r\n"
    assert ask(sc, "EVAL", "return redis.call('ping')", "0") == b"+PONG\r\n"


def quick_scripts_are_not_busy(srv):
    c = Conn(srv.port)
    assert ask(c, "CONFIG", "SET", "busy-reply-threshold", "100") == b"+OK\r\n"
    body = "local i = 0 while i < 3000000 do i = i + 1 end return i"
    sc, t, out = start_script(srv.port, body)
    t.join(10)
    assert out.get("reply") == b":3000000\r\n", out
    assert ask(c, "PING") == b"+PONG\r\n"


def unkillable_then_shutdown_nosave(srv):
    c = Conn(srv.port)
    assert ask(c, "CONFIG", "SET", "busy-reply-threshold", "100") == b"+OK\r\n"
    sc, t, out = start_script(srv.port, "redis.call('set', 'w', '1') while true do end")
    time.sleep(0.4)
    got = ask(c, "SCRIPT", "KILL")
    assert got.startswith(b"-UNKILLABLE Sorry the script already executed write commands against the dataset."), got
    assert ask(c, "GET", "w") == BUSY
    c.send(encode([b"SHUTDOWN", b"NOSAVE"]))
    deadline = time.monotonic() + 10
    while srv.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not srv.alive(), "the server still runs after SHUTDOWN NOSAVE"


def main():
    rep = Reporter()
    with Server("--appendonly", "no") as srv:
        rep.case("a script past busy-reply-threshold gets other clients -BUSY, SCRIPT KILL ends it and the server "
                 "goes on (lua-time-limit its alias)", killed_script, srv)
        rep.case("a script that ends before the threshold leaves every other client served", quick_scripts_are_not_busy,
                 srv)
        rep.case("a busy script that wrote refuses SCRIPT KILL with -UNKILLABLE and SHUTDOWN NOSAVE stops the server",
                 unkillable_then_shutdown_nosave, srv)
    rep.finish()


if __name__ == "__main__":
    main()
