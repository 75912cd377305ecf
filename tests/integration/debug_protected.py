"""debug_protected.py -- enable-debug-command and enable-protected-configs, as
Redis 7.0.15 (Debian's redis-server, started beside Scratchpad) defines them,
and DEBUG SLEEP ended by a signal.

DEBUG is closed by default: the refusal, word for word, in and out of MULTI;
"local" lets in the unix socket and 127.0.0.1 but not 127.0.0.2 (a loopback
address that is not Redis's "local", so no other interface is needed); "yes"
lets everyone in. Both directives are start-up only. A DEBUG SLEEP of 1000 s
does not keep SIGTERM from stopping the server (Redis's nanosleep returns on a
signal; before the fix the sleep resumed and only SIGKILL ended it). Every
server runs on a free port in a temporary directory and is stopped by PID.
"""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from difftest import RedisServer  # noqa: E402
from resp_wire import Incomplete, encode, parse  # noqa: E402

REFUSED = (b"-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run "
           b"it from a local connection, otherwise you need to set this option in the configuration file, and then "
           b"restart the server.\r\n")


def raw(where, *cmds, timeout=5.0):
    """Send the commands on one connection; their raw replies, joined. where
    is (host, port) or a unix socket path."""
    fam = socket.AF_UNIX if isinstance(where, str) else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if fam == socket.AF_INET:
            s.bind((where[0], 0))  # the peer address the server sees is the one dialled
        s.connect(where)
        out = b""
        for args in cmds:
            s.sendall(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
            buf = b""
            while True:
                try:
                    _, end = parse(buf, 0)
                    break
                except Incomplete:
                    chunk = s.recv(65536)
                    if not chunk:
                        raise AssertionError("server closed after %r" % (args,))
                    buf += chunk
            out += buf[:end]
        return out
    finally:
        s.close()


def no_protected_mode():
    """127.0.0.2 is not loopback to protected mode (Redis compares the address
    with 127.0.0.1 and ::1): turn it off where the server knows it."""
    with open(spserver.server_binary(), "rb") as f:
        return ["--protected-mode", "no"] if b"protected-mode" in f.read() else []


def both(redis, sp, *cmds):
    r = raw(("127.0.0.1", redis.port), *cmds)
    s = raw(("127.0.0.1", sp.port), *cmds)
    assert r == s, "%r: redis %r, scratchpad %r" % (cmds, r, s)
    return s


def closed_by_default(redis, sp):
    for cmd in (("DEBUG", "SLEEP", "0"), ("DEBUG", "HELP"), ("DEBUG", "LZ4-CORRUPT", "k", "0"),
                ("debug", "error", "x")):
        assert both(redis, sp, cmd) == REFUSED
    both(redis, sp, ("DEBUG",))  # arity is checked first
    got = both(redis, sp, ("MULTI",), ("DEBUG", "SLEEP", "0"), ("EXEC",))
    assert b"EXECABORT" in got and b"DEBUG command not allowed" in got, got


def directives_as_redis(redis, sp):
    for name in ("enable-debug-command", "enable-protected-configs"):
        assert both(redis, sp, ("CONFIG", "GET", name)) == b"*2\r\n$%d\r\n%s\r\n$2\r\nno\r\n" % (
            len(name), name.encode())
        both(redis, sp, ("CONFIG", "SET", name, "yes"))  # can't set immutable config
    got = raw(("127.0.0.1", sp.port), ("CONFIG", "SET", "dir", "/tmp"))
    assert got == b"-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set immutable config\r\n", got


def local_only(sp, sock_path):
    assert raw(("127.0.0.1", sp.port), ("DEBUG", "SLEEP", "0")) == b"+OK\r\n"
    assert raw(sock_path, ("DEBUG", "SLEEP", "0")) == b"+OK\r\n"
    assert raw(("127.0.0.2", sp.port), ("DEBUG", "SLEEP", "0")) == REFUSED
    assert raw(("127.0.0.2", sp.port), ("CONFIG", "GET", "enable-debug-command")).endswith(b"local\r\n")


def local_as_redis(redis, sp):
    for host, want in (("127.0.0.1", b"+OK\r\n"), ("127.0.0.2", REFUSED)):
        r = raw((host, redis.port), ("DEBUG", "SLEEP", "0"))
        s = raw((host, sp.port), ("DEBUG", "SLEEP", "0"))
        assert r == s == want, "%s: redis %r, scratchpad %r" % (host, r, s)


def open_to_all(sp):
    assert raw(("127.0.0.2", sp.port), ("DEBUG", "SLEEP", "0")) == b"+OK\r\n"


def sigterm_ends_sleep(sp):
    s = socket.create_connection(("127.0.0.1", sp.port), timeout=5)
    try:
        s.sendall(encode([b"DEBUG", b"SLEEP", b"1000"]))
        time.sleep(0.3)
        t0 = time.monotonic()
        os.kill(sp.proc.pid, signal.SIGTERM)
        sp.proc.wait(timeout=5)
        assert time.monotonic() - t0 < 5
    finally:
        s.close()


def main():
    rep = spserver.Reporter()
    redis = RedisServer()
    try:
        with spserver.Server("--enable-debug-command", "no") as sp:
            rep.case("DEBUG is refused by default with Redis 7's error, also inside MULTI (EXECABORT)",
                     closed_by_default, redis, sp)
            rep.case("enable-debug-command and enable-protected-configs read no by default and are start-up only, "
                     "as in Redis; CONFIG SET dir is refused as immutable", directives_as_redis, redis, sp)
    finally:
        redis.stop()
    two = ["--bind", "127.0.0.1 127.0.0.2"] + no_protected_mode()
    redis = RedisServer("--bind", "127.0.0.1 127.0.0.2", "--protected-mode", "no", "--enable-debug-command", "local")
    try:
        with spserver.Server(*two, "--enable-debug-command", "local") as sp:
            rep.case("enable-debug-command local answers as redis-server's from 127.0.0.1 (runs) and from "
                     "127.0.0.2 (refused)", local_as_redis, redis, sp)
        with spserver.Server(*two, "--enable-debug-command", "local", "--unixsocket", "sp.sock") as sp:
            sock_path = os.path.join(sp.dir, "sp.sock")
            rep.case("enable-debug-command local lets in the unix socket and 127.0.0.1, not 127.0.0.2",
                     local_only, sp, sock_path)
    finally:
        redis.stop()
    with spserver.Server(*two, "--enable-debug-command", "yes") as sp:
        rep.case("enable-debug-command yes lets in a client from any address", open_to_all, sp)
    with spserver.Server() as sp:
        rep.case("SIGTERM stops a server inside DEBUG SLEEP 1000 within seconds", sigterm_ends_sleep, sp)
    rep.finish()


if __name__ == "__main__":
    main()
