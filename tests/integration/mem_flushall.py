"""mem_flushall.py -- FLUSHALL gives the memory of a mixed workload back.

Regression test: after a mixed load (small SETs with EXPIRE, 1 MB scratchpad
entries written in pipelines, window reads at many offsets, SP.GREP,
SP.APPEND), FLUSHALL left used_memory megabytes above an empty server's: the
log buffer kept the size of the largest batch of records (up to 4 MB) and the
decoded-chunk cache kept its 8 chunks and the arena one empty 64 KB page per
size class. Now FLUSHALL drops the cache and the spare pages, the log buffer is
given back once nothing was logged for a second, and INFO memory shows the
buffer and the cache (mem_aof_buffer, lz4_cache_bytes).

The case: a fresh server's used_memory is read; the load runs on another
connection, which is then closed; after FLUSHALL used_memory must come within
BOUND of the fresh figure within 5 s (what may stay: small bounded caches
such as compiled grep patterns; measured +2.5 KB).
"""

import base64
import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

BOUND = 256 * 1024
MB = 1024 * 1024


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.buf = b""

    def close(self):
        self.s.close()

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, int):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"-":
            raise AssertionError("error reply: %r" % rest)
        if t in (b"+", b":"):
            return rest
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                chunk = self.s.recv(1 << 16)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                self.buf += chunk
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if t in (b"*", b"%", b"~"):
            n = int(rest)
            return [self.read() for _ in range(n if t != b"%" else 2 * n)] if n >= 0 else None
        raise ValueError("bad reply line %r" % line)

    def cmd(self, *args):
        self.send(*args)
        return self.read()


def memory(c):
    out = {}
    for line in c.cmd("INFO", "memory").decode().splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k] = v
    return out


def text(rng, n):
    """n bytes of lines of base64: text, and hard to compress."""
    raw = base64.b64encode(rng.randbytes(n * 3 // 4 + 3))[:n]
    return b"\n".join(raw[i:i + 76] for i in range(0, len(raw), 77))[:n]


def load(port):
    rng = random.Random(19)
    c = Conn(port)
    for i in range(2000):
        c.send("SET", "k:%d" % i, "v" * (i % 300))
        c.send("EXPIRE", "k:%d" % i, 3600)
    for _ in range(4000):
        c.read()
    for batch in range(3):
        for j in range(4):
            c.send("SP.WRITE", "agent%d" % batch, "tool%d" % j, text(rng, MB))
        for _ in range(4):
            c.read()
    for batch in range(3):
        for j in range(4):
            for off in range(0, MB, 97 * 1024):
                c.send("SP.READ", "agent%d" % batch, "tool%d" % j, "OFFSET", off, "LIMIT", 2000)
            c.send("SP.GREP", "agent%d" % batch, "tool%d" % j, "AB+C", "MAX", 5)
            c.send("SP.APPEND", "agent%d" % batch, "log", "line %d\n" % j)
            c.send("SET", "big:%d:%d" % (batch, j), text(rng, 200 * 1024))
            c.send("GET", "big:%d:%d" % (batch, j))
            for _ in range(len(range(0, MB, 97 * 1024)) + 4):
                c.read()
    # The last batch: a few MB of records in one iteration.
    for j in range(3):
        c.send("SP.WRITE", "last", "tool%d" % j, text(rng, 900 * 1024))
    for _ in range(3):
        c.read()
    c.close()


def t_flushall(srv):
    c = Conn(srv.port)
    fresh = int(memory(c)["used_memory"])
    load(srv.port)
    loaded = memory(c)
    if c.cmd("FLUSHALL") != b"OK":
        raise AssertionError("FLUSHALL failed")
    deadline = time.monotonic() + 5.0
    while True:
        m = memory(c)
        used = int(m["used_memory"])
        if used <= fresh + BOUND:
            break
        if time.monotonic() > deadline:
            raise AssertionError("used_memory %d after FLUSHALL, a fresh server's %d (+%d, bound %d); "
                                 "loaded %s; now mem_aof_buffer %s, lz4_cache_bytes %s, arena_page_bytes %s"
                                 % (used, fresh, used - fresh, BOUND, loaded["used_memory"],
                                    m.get("mem_aof_buffer"), m.get("lz4_cache_bytes"), m.get("arena_page_bytes")))
        time.sleep(0.1)
    for f in ("mem_aof_buffer", "lz4_cache_bytes"):
        if f not in loaded:
            raise AssertionError("INFO memory has no %s" % f)
    if m.get("lz4_cache_bytes") != "0" or m.get("mem_aof_buffer") != "0":
        raise AssertionError("after FLUSHALL: lz4_cache_bytes %s, mem_aof_buffer %s (expected 0)"
                             % (m.get("lz4_cache_bytes"), m.get("mem_aof_buffer")))
    sys.stdout.write("# used_memory: fresh %d, loaded %s, after FLUSHALL %d (+%d)\n"
                     % (fresh, loaded["used_memory"], used, used - fresh))
    c.close()


def main():
    r = Reporter()
    with Server("--appendonly", "yes") as srv:
        r.case("after a mixed load and FLUSHALL, used_memory comes within %d KB of a fresh server's "
               "within 5 s, with mem_aof_buffer and lz4_cache_bytes 0" % (BOUND // 1024), t_flushall, srv)
    r.finish()


if __name__ == "__main__":
    main()
