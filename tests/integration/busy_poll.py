"""busy_poll.py -- busy-poll-us: the loop polls for that long after input
instead of sleeping, and an idle server sleeps.

What is checked is the server's own CPU time (utime + stime of
/proc/PID/stat, in clock ticks), with wide margins: a server polling for a
whole second after a PING uses CPU in the next half second; one whose window
has run out, or that runs with busy-poll-us 0, uses next to none. A reply that
a timer makes while the loop polls (a BLPOP's timeout) goes out at once, and
pipelined and concurrent clients get every reply. Every server runs on a free
port in a temporary directory and is stopped by PID.
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from resp_wire import encode  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def cpu_over(pid, seconds):
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return cpu_seconds(pid) - before


def command(sock, *args):
    sock.sendall(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))


def read_reply(sock):
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError("connection closed")
        buf += chunk
    return buf


def connect(srv):
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def default_and_bounds():
    with spserver.Server() as srv:
        s = connect(srv)
        command(s, "CONFIG", "GET", "busy-poll-us")
        time.sleep(0.1)
        reply = s.recv(4096)
        assert reply == b"*2\r\n$12\r\nbusy-poll-us\r\n$3\r\n100\r\n", reply
        command(s, "CONFIG", "SET", "busy-poll-us", "0")
        assert read_reply(s) == b"+OK\r\n"
        command(s, "CONFIG", "SET", "busy-poll-us", "-1")
        err = read_reply(s)
        assert err.startswith(b"-ERR CONFIG SET failed (possibly related to argument 'busy-poll-us')"), err
        s.close()


def polls_after_input():
    with spserver.Server("--busy-poll-us", "1000000") as srv:
        s = connect(srv)
        command(s, "PING")
        assert read_reply(s) == b"+PONG\r\n"
        used = cpu_over(srv.proc.pid, 0.5)
        s.close()
        assert used >= 0.02, "a server polling for 1 s used only %.3f s of CPU in 0.5 s" % used


def sleeps_once_the_window_ends():
    with spserver.Server("--busy-poll-us", "200000") as srv:
        s = connect(srv)
        command(s, "PING")
        assert read_reply(s) == b"+PONG\r\n"
        time.sleep(0.5)
        used = cpu_over(srv.proc.pid, 1.0)
        s.close()
        assert used < 0.02, "an idle server used %.3f s of CPU in 1 s" % used


def sleeps_at_once_with_zero():
    with spserver.Server("--busy-poll-us", "0") as srv:
        s = connect(srv)
        for _ in range(3):
            command(s, "PING")
            assert read_reply(s) == b"+PONG\r\n"
        used = cpu_over(srv.proc.pid, 1.0)
        s.close()
        assert used < 0.02, "with busy-poll-us 0 the server used %.3f s of CPU in 1 s after input" % used


def timer_reply_while_polling():
    with spserver.Server("--busy-poll-us", "1000000") as srv:
        s = connect(srv)
        command(s, "PING")
        assert read_reply(s) == b"+PONG\r\n"
        t0 = time.monotonic()
        command(s, "BLPOP", "nothing-here", "0.2")
        reply = read_reply(s)
        waited = time.monotonic() - t0
        s.close()
        assert reply == b"*-1\r\n", reply
        assert waited < 2.0, "the timeout's reply took %.2f s while the loop polled" % waited


def every_reply_while_polling():
    with spserver.Server("--busy-poll-us", "1000000") as srv:
        socks = [connect(srv) for _ in range(8)]
        for i, s in enumerate(socks):
            s.sendall(b"".join(b"*3\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$%d\r\n%d\r\n" % (len(str(j)), j) for j in range(100)))
        for s in socks:
            buf = b""
            while buf.count(b"\r\n") < 100:
                buf += s.recv(65536)
            assert buf.count(b":") == 100, buf[:200]
        command(socks[0], "LLEN", "l")
        assert read_reply(socks[0]) == b":800\r\n"
        for s in socks:
            s.close()


def main():
    r = spserver.Reporter()
    r.case("busy-poll-us defaults to 100, CONFIG SET changes it and refuses a negative value", default_and_bounds)
    r.case("after a command the loop polls, using CPU, for busy-poll-us", polls_after_input)
    r.case("once busy-poll-us has passed with no input the server sleeps", sleeps_once_the_window_ends)
    r.case("with busy-poll-us 0 the server sleeps right after a reply", sleeps_at_once_with_zero)
    r.case("a reply a timer makes while the loop polls (BLPOP's timeout) is sent at once",
           timer_reply_while_polling)
    r.case("pipelined commands from 8 clients all get their replies while the loop polls",
           every_reply_while_polling)
    r.finish()


if __name__ == "__main__":
    main()
