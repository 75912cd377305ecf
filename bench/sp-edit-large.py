#!/usr/bin/python3
"""sp-edit-large.py -- how long other clients wait while SP.EDIT or SP.INSERT
changes a 100 MB entry at its top, its middle and its end.

A fresh scratchpad-server (its log on, as by default, or off with LOG=no)
receives one entry of SIZE bytes of log-like text (each line numbered, so that
"line <n> " is unique), then waits WAIT seconds so the background re-encodes it
(compress-dict-delay: the entry is then in the form an entry that lives has),
then sets compress-dict-delay to a day, so that no background re-encoding of
the versions the edits leave (the new one, and the old one the history keeps)
runs during the measurements: what is measured is the commands' own work.
For each place (top, middle, end) and each command:
  - SP.EDIT ns big "line <n> " "LINE <n> " (same length) and, separately, an
    SP.EDIT that makes the line longer ("line <n> " -> "line <n> edited ");
  - SP.INSERT ns big <line> "inserted\\n";
a second connection sends PING in a loop (one at a time) from 0.2 s before the
command until 0.2 s after its reply, and the longest PING round trip is the
pause every other client saw. Reported: the command's own reply time, the
longest PING, the CPU time the server spent meanwhile (user + system, from
/proc/<pid>/stat: the figure to compare on a loaded machine, where the wall
times include waiting for a CPU), and how much INFO used_memory grew with the
command, per place and command (Markdown on standard output). With
SNAPSHOT=yes an SP.SNAPSHOT of the scratchpad is taken before the edits, so
that every one of them changes an entry the snapshot shares (so does the
history's version, sp-history-depth 1 by default, from the second edit on).
A benchmark, not a test: it asserts nothing.

Environment (optional): SERVER (default build/scratchpad-server), SIZE (bytes,
default 100000000), WAIT (s, default 7), LOG (yes/no, default yes),
SNAPSHOT (yes/no, default no),
SERVER_CPU / BENCH_CPU (0 / 1: the server and this script are pinned there
when taskset works).
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.environ.get("SERVER", os.path.join(TOP, os.environ.get("BUILD", "build"), "scratchpad-server"))
SIZE = int(os.environ.get("SIZE", "100000000"))
WAIT = float(os.environ.get("WAIT", "7"))
LOG = os.environ.get("LOG", "yes")
SNAPSHOT = os.environ.get("SNAPSHOT", "no")
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
        self.f = self.s.makefile("rb")

    def reply(self):
        line = self.f.readline()
        t = line[:1]
        if t in (b"+", b"-", b":"):
            return line[1:-2]
        if t == b"$":
            n = int(line[1:-2])
            if n < 0:
                return None
            data = self.f.read(n + 2)
            return data[:-2]
        if t == b"*":
            n = int(line[1:-2])
            return [self.reply() for _ in range(max(n, 0))]
        raise ValueError("unexpected reply %r" % line)

    def call(self, *args):
        self.s.sendall(enc(*args))
        return self.reply()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def pinned(cpu):
    if shutil.which("taskset") and SERVER_CPU != BENCH_CPU:
        return ["taskset", "-c", cpu]
    return []


def pinger(port, stop, out):
    c = Conn(port)
    worst = 0.0
    n = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        c.call("PING")
        dt = time.perf_counter() - t0
        worst = max(worst, dt)
        n += 1
    out.append((worst, n))


def cpu_ms(pid):
    """The CPU time (user + system) process pid has used, in ms."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def used_memory(c):
    for line in c.call("INFO", "memory").split(b"\r\n"):
        if line.startswith(b"used_memory:"):
            return int(line.split(b":")[1])
    raise SystemExit("INFO memory has no used_memory")


def timed(port, pid, c, *args):
    stop, out = threading.Event(), []
    th = threading.Thread(target=pinger, args=(port, stop, out))
    th.start()
    time.sleep(0.2)
    t0 = time.perf_counter()
    cpu0 = cpu_ms(pid)
    rep = c.call(*args)
    took = time.perf_counter() - t0
    cpu = cpu_ms(pid) - cpu0
    time.sleep(0.2)
    stop.set()
    th.join()
    if isinstance(rep, bytes) and rep.startswith(b"ERR"):
        raise SystemExit("%r answered %r" % (args[:4], rep))
    return took, out[0][0], cpu


def main():
    d = tempfile.mkdtemp(prefix="sp-edit-large-")
    port = free_port()
    argv = pinned(SERVER_CPU) + [SERVER, "--port", str(port), "--dir", d, "--appendonly", LOG]
    srv = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                c = Conn(port)
                break
            except OSError:
                time.sleep(0.05)
        lines, parts, n = 0, [], 0
        while n < SIZE:
            s = b"line %d 2026-11-26T04:00:00 INFO worker-%d handled request id=%d in %d ms status=200\n" % (
                lines + 1, lines % 7, lines * 31, lines % 97)
            parts.append(s)
            n += len(s)
            lines += 1
        body = b"".join(parts)
        del parts
        c.call("SP.WRITE", "big", "log", body)
        del body
        time.sleep(WAIT)
        c.call("CONFIG", "SET", "compress-dict-delay", "86400000")
        st = c.call("SP.STAT", "big", "log")
        st = dict(zip(st[::2], st[1::2]))
        if SNAPSHOT == "yes":
            c.call("SP.SNAPSHOT", "big", "before")
        print("# SP.EDIT / SP.INSERT on a %.0f MB entry (%d lines, %s, stored %.1f MB, %s chunks), log %s%s\n" % (
            SIZE / 1e6, lines, st[b"encoding"].decode(), int(st[b"stored"]) / 1e6, st[b"chunks"].decode(), LOG,
            ", in a snapshot" if SNAPSHOT == "yes" else ""))
        print("| place | command | reply (ms) | longest PING meanwhile (ms) | server CPU (ms) | used_memory growth (KB) |")
        print("|---|---|---|---|---|---|")
        mem_start = used_memory(c)
        for place, ln in (("top", 2), ("middle", lines // 2), ("end", lines - 1)):
            for what, args in (
                    ("SP.EDIT, same length", ("SP.EDIT", "big", "log", "line %d " % ln, "LINE %d " % ln)),
                    ("SP.EDIT, longer", ("SP.EDIT", "big", "log", "line %d " % (ln + 1),
                                         "line %d edited " % (ln + 1))),
                    ("SP.INSERT", ("SP.INSERT", "big", "log", str(ln - 1 if place != "end" else -1),
                                   "inserted line\n"))):
                mem0 = used_memory(c)
                took, worst, cpu = timed(port, srv.pid, c, *args)
                grow = used_memory(c) - mem0
                print("| %s | %s | %.1f | %.1f | %.0f | %.0f |" % (place, what, took * 1000, worst * 1000, cpu,
                                                                 grow / 1024.0))
        print("\nused_memory after the nine commands: %+.1f MB (the entry's chunks: %.1f MB)" % (
            (used_memory(c) - mem_start) / 1e6, int(st[b"stored"]) / 1e6))
        sys.stdout.flush()
    finally:
        srv.terminate()
        srv.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
