"""persist_held.py -- replies held for the log are always released.

Regression test: writes from several clients in the same loop iteration as a
BGREWRITEAOF (which writes the log buffer itself before it forks) used to have
their replies held forever, because the log positions they waited for were
never counted as written. Raw RESP on sockets; each attempt sends eight SETs
and a BGREWRITEAOF back to back and expects every +OK within 5 s.
"""

import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

ATTEMPTS = 15


def connect(port):
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    return c


def read_line(c):
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = c.recv(1)
        if not chunk:
            raise AssertionError("connection closed")
        buf += chunk
    return buf


def info_field(port, field):
    c = connect(port)
    c.sendall(b"INFO persistence\r\n")
    head = read_line(c)
    n = int(head[1:])
    data = b""
    while len(data) < n + 2:
        data += c.recv(65536)
    c.close()
    for line in data.decode().split("\r\n"):
        if line.startswith(field + ":"):
            return line.split(":", 1)[1]
    return None


def t_writes_beside_rewrite(srv):
    for i in range(ATTEMPTS):
        clients = [connect(srv.port) for _ in range(8)]
        ctl = connect(srv.port)
        for c in clients:
            c.sendall(b"SET k%d %s\r\n" % (i, b"v" * 100))
        ctl.sendall(b"BGREWRITEAOF\r\n")
        for n, c in enumerate(clients):
            try:
                line = read_line(c)
            except socket.timeout:
                raise AssertionError("attempt %d: client %d got no reply within 5 s (aof_held_clients:%s)"
                                     % (i, n, info_field(srv.port, "aof_held_clients")))
            if line != b"+OK\r\n":
                raise AssertionError("attempt %d: client %d got %r" % (i, n, line))
        read_line(ctl)
        for c in clients + [ctl]:
            c.close()
        deadline = time.monotonic() + 10
        while info_field(srv.port, "aof_rewrite_in_progress") != "0":
            if time.monotonic() > deadline:
                raise AssertionError("the rewrite did not finish")
            time.sleep(0.01)
    held = info_field(srv.port, "aof_held_clients")
    if held != "0":
        raise AssertionError("aof_held_clients:%s after the attempts" % held)


def main():
    r = Reporter()
    with Server("--appendonly", "yes") as srv:
        r.case("writes in the same iteration as BGREWRITEAOF get their replies (%d attempts of 8 clients)"
               % ATTEMPTS, t_writes_beside_rewrite, srv)
    r.finish()


if __name__ == "__main__":
    main()
