#!/usr/bin/python3
"""free-pause.py -- how long other clients wait while a huge collection is deleted.

For each server (scratchpad-server, then redis-server) and each type, a fresh
server receives one key of N elements (a set of strings, a sorted set, a hash,
a list; pipelined SADD/ZADD/HSET/RPUSH of 1000 at a time), then:
  - a second connection sends PING in a loop (one at a time, measuring each
    round trip), from 0.3 s before the DEL until the memory is back (INFO's
    lazyfree_pending_objects is 0 and used_memory has dropped) or 5 s;
  - the first connection sends DEL key and times its reply.
Reported per type: DEL's own reply time, the longest PING round trip from the
DEL on (the stall every client suffers), the PINGs answered then, the longest
PING of the 0.3 s before the DEL (the machine's own noise), and the time until
used_memory came back. Servers run on SERVER_CPU, this script on
BENCH_CPU (as bench/vs-redis.sh pins them). A benchmark, not a test: it asserts
nothing; the report (Markdown) goes to standard output.

Environment (optional): SERVER (default build/scratchpad-server), REDIS_SERVER
(default redis-server; "none" skips it), N (default 1000000), TYPES (default
"set zset hash list"), SERVER_CPU / BENCH_CPU (0 / 1).
"""
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("SERVER", os.path.join(TOP, os.environ.get("BUILD", "build"), "scratchpad-server"))
REDIS_SERVER = os.environ.get("REDIS_SERVER", "redis-server")
N = int(os.environ.get("N", "1000000"))
TYPES = os.environ.get("TYPES", "set zset hash list").split()
SERVER_CPU = os.environ.get("SERVER_CPU", "0")
BENCH_CPU = os.environ.get("BENCH_CPU", "1")


def enc(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                raise EOFError("server closed the connection")
            self.buf += d
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read(self):
        line = self._line()
        t = line[:1]
        if t in (b"+", b":"):
            return line[1:]
        if t == b"-":
            raise RuntimeError(line.decode())
        if t == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(65536)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        if t == b"*":
            return [self.read() for _ in range(int(line[1:]))]
        raise RuntimeError("unexpected reply %r" % line)

    def cmd(self, *args):
        self.s.sendall(enc(*args))
        return self.read()

    def info(self):
        text = self.cmd("INFO", "memory").decode()
        return dict(l.split(":", 1) for l in text.split("\r\n") if ":" in l)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(kind, tmp):
    port = free_port()
    pin = ["taskset", "-c", SERVER_CPU] if BENCH_CPU != SERVER_CPU else []
    if kind == "scratchpad":
        argv = pin + [SERVER, "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "no", "--dir", tmp]
    else:
        argv = pin + [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                      "--dir", tmp]
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            c = Conn(port)
            c.cmd("PING")
            return p, port, c
        except (OSError, EOFError, RuntimeError):
            if time.monotonic() > deadline:
                p.kill()
                raise
            time.sleep(0.05)


def fill(c, t, n):
    batch = 1000
    for start in range(0, n, batch):
        m = range(start, min(n, start + batch))
        if t == "set":
            args = ["SADD", "k"] + ["member:%d" % i for i in m]
        elif t == "zset":
            args = ["ZADD", "k"]
            for i in m:
                args += [str(i), "member:%d" % i]
        elif t == "hash":
            args = ["HSET", "k"]
            for i in m:
                args += ["field:%d" % i, "v%d" % i]
        else:
            args = ["RPUSH", "k"] + ["element:%d" % i for i in m]
        c.s.sendall(enc(*args))
        c.read()


def measure(port, c, t):
    fill(c, t, N)
    before = int(c.info()["used_memory"])
    stop = threading.Event()
    rtts = []  # (end of the round trip, its duration)
    pinger = Conn(port)

    def ping_loop():
        while not stop.is_set():
            t0 = time.perf_counter()
            pinger.cmd("PING")
            t1 = time.perf_counter()
            rtts.append((t1, t1 - t0))

    th = threading.Thread(target=ping_loop)
    th.start()
    time.sleep(0.3)
    t0 = time.perf_counter()
    c.cmd("DEL", "k")
    del_s = time.perf_counter() - t0
    back_s = None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        m = c.info()
        if int(m.get("lazyfree_pending_objects", "0")) == 0 and int(m["used_memory"]) < before - (before // 2):
            back_s = time.perf_counter() - t0
            break
        time.sleep(0.1)  # INFO memory itself takes a few ms of the server's time
    time.sleep(0.2)
    stop.set()
    th.join()
    pinger.s.close()
    idle = max([d for (end, d) in rtts if end < t0] or [0.0])
    during = [d for (end, d) in rtts if end >= t0]
    return del_s, max(during or [0.0]), len(during), back_s, before, idle


def main():
    try:
        os.sched_setaffinity(0, {int(BENCH_CPU)})
    except (OSError, ValueError):
        pass
    kinds = ["scratchpad"] + ([] if REDIS_SERVER == "none" else ["redis"])
    print("| server | type (%d elements) | DEL reply | longest PING from the DEL on | PINGs | longest PING in the 0.3 s before | memory back after |" % N)
    print("|---|---|---|---|---|---|---|")
    for kind in kinds:
        for t in TYPES:
            with tempfile.TemporaryDirectory() as tmp:
                p, port, c = start(kind, tmp)
                try:
                    del_s, worst, pings, back_s, before, idle = measure(port, c, t)
                finally:
                    p.terminate()
                    p.wait()
            print("| %s | %s (%.0f MB) | %.1f ms | %.1f ms | %d | %.1f ms | %s |"
                  % (kind, t, before / 1e6, del_s * 1e3, worst * 1e3, pings, idle * 1e3,
                     "%.0f ms" % (back_s * 1e3) if back_s is not None else "n/a"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
