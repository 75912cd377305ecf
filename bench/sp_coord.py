#!/usr/bin/env python3
"""sp_coord.py -- what leases and the change feed cost (issue 16's targets).

Starts its own scratchpad-server (BIN, else ./build/scratchpad-server) on a
free port of 127.0.0.1 in a temporary directory, with the log on (appendfsync
everysec, the default) or off (APPENDONLY=no), and measures:

1. Fenced vs unfenced SP.WRITE: redis-benchmark -c 50 -P 16 -n N (N from
   BENCH_N, default 100000) of `SP.WRITE bench e:__rand_int__ <64 bytes>`
   (-r 1000), and the same with `FENCE res <token>` of a lease taken for an
   hour, on the same server. After one unmeasured run of each (the entries,
   their history and the log's first growth), the two take turns ROUNDS times
   (default 10), in the order plain-fenced, then fenced-plain, and so on (so
   that neither always runs second, after the other's log growth or a log
   rewrite). Reported: each kind's median, min, max and spread ((max - min) /
   median), and the fenced/plain ratio of each round's adjacent pair, with the
   median and the range of those ratios (target: fenced >= 0.95x). With two
   CPUs or more the server runs on CPU 0 and redis-benchmark on CPU 1.
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
N = int(os.environ.get("BENCH_N", "100000"))
ROUNDS = int(os.environ.get("ROUNDS", "10"))
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


def pinning():
    """(server prefix, client prefix): taskset to CPUs 0 and 1 when there are
    two and taskset works, else no pinning."""
    if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") and \
            subprocess.run(["taskset", "-c", "1", "true"], capture_output=True).returncode == 0:
        return ["taskset", "-c", "0"], ["taskset", "-c", "1"]
    return [], []


PIN_SERVER, PIN_BENCH = pinning()


def bench_rate(port, args):
    out = subprocess.run(PIN_BENCH + ["redis-benchmark", "-p", str(port), "-c", "50", "-P", "16", "-n", str(N), "-r", "1000",
                          "-q", "--csv"] + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    m = re.findall(r'"([0-9.]+)"', out.stdout.splitlines()[-1])
    return float(m[0])


def main():
    d = tempfile.mkdtemp(prefix="sp-coord-bench-")
    port = free_port()
    aof = os.environ.get("APPENDONLY", "yes")
    proc = subprocess.Popen(PIN_SERVER + [BIN, "--port", str(port), "--bind", "127.0.0.1", "--appendonly", aof], cwd=d,
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
        plain_cmd = ["SP.WRITE", "bench", "e:__rand_int__", value]
        fenced_cmd = plain_cmd + ["FENCE", "res", tok]
        bench_rate(port, plain_cmd)  # unmeasured: the entries exist, the log has grown once
        bench_rate(port, fenced_cmd)
        plain, fenced, ratios = [], [], []
        for r in range(ROUNDS):
            if r % 2 == 0:
                p = bench_rate(port, plain_cmd)
                f = bench_rate(port, fenced_cmd)
            else:
                f = bench_rate(port, fenced_cmd)
                p = bench_rate(port, plain_cmd)
            plain.append(p)
            fenced.append(f)
            ratios.append(f / p)
        p, f = statistics.median(plain), statistics.median(fenced)
        print("## Fenced SP.WRITE (redis-benchmark -c 50 -P 16 -n %d -r 1000, 64-byte values, appendonly %s, "
              "%d rounds alternating, %s)" % (N, aof, ROUNDS, "pinned" if PIN_SERVER else "not pinned"))
        print()
        print("| | median req/s | min | max | spread | rounds |")
        print("|---|---|---|---|---|---|")
        for name, xs, med in (("SP.WRITE", plain, p), ("SP.WRITE ... FENCE res token", fenced, f)):
            print("| %s | %.0f | %.0f | %.0f | %.0f%% | %s |" % (name, med, min(xs), max(xs),
                                                             100 * (max(xs) - min(xs)) / med,
                                                             ", ".join("%.0f" % x for x in xs)))
        print()
        print("fenced / unfenced, ratio of the medians: **%.3fx**; median of the rounds' paired ratios: **%.3fx** "
              "(range %.3f-%.3f: %s)" % (f / p, statistics.median(ratios), min(ratios), max(ratios),
                                        ", ".join("%.3f" % x for x in ratios)))
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
