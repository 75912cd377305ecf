#!/usr/bin/env python3
"""sp_snapshot.py -- what SP.SNAPSHOT costs on a large scratchpad (issue 16's
target: 10,000 entries and 1 GB, under 10 ms and under 1 MB of memory).

Starts its own scratchpad-server (BIN, else ./build/scratchpad-server) on a
free port of 127.0.0.1 in a temporary directory, log off, fills one scratchpad
with ENTRIES entries (default 10000) of SIZE bytes each (default 100000: 1 GB
in all) of log-like text (distinct per entry), then, ROUNDS times (default 5):
SP.SNAPSHOT (time seen by the client, and the server's own time per call from
INFO commandstats; used_memory before and after), SP.DIFF of the snapshot
against NOW (nothing changed), one SP.WRITE of 1 KB over an entry, SP.DIFF
again, SP.FORK from the snapshot into a new key (time, memory), then drops the
snapshot and the fork. Output: Markdown on stdout. A benchmark, not a test: it
asserts nothing; the machine may be busy and the times are of this run only.
"""

import os
import socket
import statistics
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

ENTRIES = int(os.environ.get("ENTRIES", "10000"))
SIZE = int(os.environ.get("SIZE", "100000"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))


def text(i, size):
    """Log-like lines, distinct for each entry."""
    out, n, k = [], 0, 0
    while n < size:
        line = "2026-11-26T01:%02d:%02d entry=%d step=%d status=%s latency_ms=%d path=/api/v1/items/%d\n" % (
            (k // 60) % 60, k % 60, i, k, ("ok", "retry", "fail")[(i * 7 + k) % 3], (i * 13 + k * 7) % 997,
            (i * 31 + k) % 100000)
        out.append(line)
        n += len(line)
        k += 1
    return "".join(out)[:size]


def usec_per_call(r, cmd):
    st = r.info("commandstats").get("cmdstat_" + cmd)
    return (st["usec"], st["calls"]) if st else (0, 0)


def main():
    srv = spserver.Server("--appendonly", "no", start_timeout=30)
    srv.start()
    try:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=600)
        t0 = time.monotonic()
        p = r.pipeline(transaction=False)
        for i in range(ENTRIES):
            p.execute_command("SP.WRITE", "big", "e%05d" % i, text(i, SIZE))
            if i % 200 == 199:
                p.execute()
        p.execute()
        fill = time.monotonic() - t0
        info = dict(zip(*[iter(r.execute_command("SP.INFO", "big"))] * 2))
        base = r.info("memory")["used_memory"]
        print("# SP.SNAPSHOT of a large scratchpad\n")
        print("%d entries of %d bytes: %.1f MB logical, %.1f MB stored, used_memory %.1f MB (filled in %.0f s)\n" % (
            ENTRIES, SIZE, info[b"bytes"] / 1e6, info[b"stored_bytes"] / 1e6, base / 1e6, fill))
        print("| round | SP.SNAPSHOT client ms | server us | memory growth KB | SP.DIFF (same) ms | "
              "after one write: growth KB | SP.DIFF ms | SP.FORK ms | fork growth KB |")
        print("|---|---|---|---|---|---|---|---|---|")
        snap_ms, snap_kb = [], []
        for rnd in range(ROUNDS):
            m0 = r.info("memory")["used_memory"]
            u0, c0 = usec_per_call(r, "sp.snapshot")
            t = time.monotonic()
            r.execute_command("SP.SNAPSHOT", "big", "s%d" % rnd)
            ms = (time.monotonic() - t) * 1000
            u1, c1 = usec_per_call(r, "sp.snapshot")
            m1 = r.info("memory")["used_memory"]
            t = time.monotonic()
            same = r.execute_command("SP.DIFF", "big", "s%d" % rnd, "NOW")
            dms = (time.monotonic() - t) * 1000
            r.execute_command("SP.WRITE", "big", "e%05d" % (rnd * 7), "x" * 1024)
            m2 = r.info("memory")["used_memory"]
            t = time.monotonic()
            changed = r.execute_command("SP.DIFF", "big", "s%d" % rnd, "NOW")
            dms2 = (time.monotonic() - t) * 1000
            t = time.monotonic()
            r.execute_command("SP.FORK", "big", "fork", "FROM", "s%d" % rnd)
            fms = (time.monotonic() - t) * 1000
            m3 = r.info("memory")["used_memory"]
            assert same == [] and len(changed) == 1
            print("| %d | %.2f | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |" % (
                rnd + 1, ms, (u1 - u0) // max(1, c1 - c0), (m1 - m0) / 1024, dms, (m2 - m1) / 1024, dms2, fms,
                (m3 - m2) / 1024))
            snap_ms.append(ms)
            snap_kb.append((m1 - m0) / 1024)
            r.execute_command("DEL", "fork")
            r.execute_command("SP.DROPSNAPSHOT", "big", "s%d" % rnd)
        print("\nSP.SNAPSHOT median %.2f ms (client, loopback), memory growth median %.1f KB." % (
            statistics.median(snap_ms), statistics.median(snap_kb)))
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
