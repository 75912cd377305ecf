#!/usr/bin/env python3
"""sp_coord.py -- what leases and the change feed cost (issue 16's targets).

Starts its own scratchpad-server (BIN, else ./build/scratchpad-server) on a
free port of 127.0.0.1 in a temporary directory, with the log on (appendfsync
everysec, the default) or off (APPENDONLY=no), and measures:

1. Fenced vs unfenced SP.WRITE: redis-benchmark -c 50 -P 16 -n N (N from
   BENCH_N, default 300000) of `SP.WRITE bench e:__rand_int__ <64 bytes>`
   (-r 1000), then the same with `FENCE res <token>` of a lease taken for an
   hour; the two take turns ROUNDS times (default 3) and the medians are
   reported with their ratio (target: fenced >= 0.95x).
2. SP.CHANGES BLOCK wake-up latency on loopback: a reader connection blocked on
   `SP.CHANGES ns SINCE <last> BLOCK 5000`, a writer connection sends one
   SP.WRITE; the time from just before the write is sent to the reader's
   reply fully read, WAKE_N times (default 5000), p50 / p99 / max (target: p99
   under 1 ms). Both clients are raw sockets in this process, so the figure
   includes the client's own Python time (~10-20 us per side). The same loop
   with BLPOP woken by LPUSH is the control (the blocking mechanism and the
   machine without the feed).

Output: Markdown on stdout. A benchmark, not a test: it asserts nothing. The
machine may be busy; the rates are of this run only.
"""

import gc
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BIN = os.environ.get("BIN") or os.path.join(TOP, "build", "scratchpad-server")
N = int(os.environ.get("BENCH_N", "300000"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
WAKE_N = int(os.environ.get("WAKE_N", "5000"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def enc(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    """A minimal RESP2 client: enough for integers, bulk strings, arrays, errors."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send(self, *args):
        self.s.sendall(enc(*args))

    def _line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(65536)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t in (b"+", b"-"):
            return rest if t == b"+" else RuntimeError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(65536)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError("bad reply %r" % line)

    def call(self, *args):
        self.send(*args)
        return self.read()


def bench_rate(port, args):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", "50", "-P", "16", "-n", str(N), "-r", "1000",
                          "-q", "--csv"] + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    m = re.findall(r'"([0-9.]+)"', out.stdout.splitlines()[-1])
    return float(m[0])


def main():
    d = tempfile.mkdtemp(prefix="sp-coord-bench-")
    port = free_port()
    aof = os.environ.get("APPENDONLY", "yes")
    proc = subprocess.Popen([BIN, "--port", str(port), "--bind", "127.0.0.1", "--appendonly", aof], cwd=d,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(500):
            try:
                if Conn(port).call("PING") == b"PONG":
                    break
            except OSError:
                time.sleep(0.01)
        c = Conn(port)
        tok = c.call("SP.LEASE", "bench", "res", "bencher", 3600 * 1000)[0]
        value = "x" * 64
        plain, fenced = [], []
        for _ in range(ROUNDS):
            plain.append(bench_rate(port, ["SP.WRITE", "bench", "e:__rand_int__", value]))
            fenced.append(bench_rate(port, ["SP.WRITE", "bench", "e:__rand_int__", value, "FENCE", "res", tok]))
        p, f = statistics.median(plain), statistics.median(fenced)
        print("## Fenced SP.WRITE (redis-benchmark -c 50 -P 16 -n %d -r 1000, 64-byte values, appendonly %s)"
              % (N, aof))
        print()
        print("| | median req/s | rounds |")
        print("|---|---|---|")
        print("| SP.WRITE | %.0f | %s |" % (p, ", ".join("%.0f" % x for x in plain)))
        print("| SP.WRITE ... FENCE res token | %.0f | %s |" % (f, ", ".join("%.0f" % x for x in fenced)))
        print()
        print("fenced / unfenced: **%.3fx**" % (f / p))
        print()
        # Wake-up latency (the collector off: its passes took milliseconds of
        # this process's time, not the server's).
        gc.disable()
        rd, wr = Conn(port), Conn(port)
        last = c.call("SP.CHANGES", "wake", "COUNT", 0)[3]
        lat = []
        for i in range(WAKE_N):
            rd.send("SP.CHANGES", "wake", "SINCE", last, "BLOCK", 5000)
            time.sleep(0.0002)  # the reader is blocked by now (checked below)
            t0 = time.perf_counter()
            wr.send("SP.WRITE", "wake", "e", str(i))
            got = rd.read()
            t1 = time.perf_counter()
            wr.read()
            if not isinstance(got, list) or len(got[7]) != 1:
                raise RuntimeError("unexpected reply %r" % (got,))
            last = got[7][0][0]
            lat.append((t1 - t0) * 1e6)
        # The control: BLPOP woken by LPUSH, the same mechanism and loop.
        ctl = []
        for i in range(WAKE_N):
            rd.send("BLPOP", "wake:list", 5)
            time.sleep(0.0002)
            t0 = time.perf_counter()
            wr.send("LPUSH", "wake:list", i)
            rd.read()
            t1 = time.perf_counter()
            wr.read()
            ctl.append((t1 - t0) * 1e6)
        print("## Wake-up latency of a blocked reader (loopback, %d wake-ups each, appendonly %s)" % (WAKE_N, aof))
        print()
        print("| | p50 | p90 | p99 | max |")
        print("|---|---|---|---|---|")
        for name, xs in (("SP.CHANGES BLOCK woken by SP.WRITE", lat), ("BLPOP woken by LPUSH (control)", ctl)):
            xs.sort()
            q = lambda x: xs[min(len(xs) - 1, int(x * len(xs)))]  # noqa: E731
            print("| %s | %.0f us | %.0f us | %.0f us | %.0f us |" % (name, q(0.5), q(0.9), q(0.99), xs[-1]))
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
