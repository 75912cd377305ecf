#!/usr/bin/python3
"""scripts_diskfull.py -- a script whose writes the full disk cannot log is answered as a write is.

On a 4 MB tmpfs with aof-hold-timeout 1000 ms: EVALs that SET 64 KB values are
acknowledged while the log takes them; the one whose record hits ENOSPC waits
for the hold and is answered Redis's words for an unlogged write
(-IOERR the write was applied in memory but is not in the AOF file yet ...),
not its script's value, and the GET pipelined after it gets the value. Then a
flagged script that may write is refused -MISCONF, and a no-writes one runs.
Skipped where a tmpfs cannot be mounted (not root).
"""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from spserver import Reporter  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

HOLD_MS = 1000
IOERR_HEAD = b"-IOERR the write was applied in memory but is not in the AOF file yet (No space left on device)"
MISCONF = b"-MISCONF Errors writing to the AOF file: No space left on device\r\n"
SET_SCRIPT = "return redis.call('SET', KEYS[1], ARGV[1])"


def ask(c, *args, timeout=None):
    c.send(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
    return c.read_reply()[0]


def main():
    rep = Reporter()
    top, mnt = spserver.tmpfs_mount("4m", "sp-scripts-diskfull-")
    if top is None:
        rep.skip("a script's writes that the full disk cannot log are answered -IOERR", mnt)
        rep.finish()
        return
    srv = None
    try:
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\xa5" * (1024 * 1024))
        srv = spserver.Server("--dir", os.path.join(mnt, "data"), "--appendonly", "yes", "--aof-hold-timeout",
                              str(HOLD_MS), workdir=top)
        srv.start()
        c = Conn(srv.port, read_timeout=HOLD_MS / 1000.0 + 10)
        st = {}

        def fill():
            for i in range(200):
                val = (b"%d-" % i) * (64 * 1024 // 4)
                key = b"sd:%d" % i
                t0 = time.monotonic()
                c.send(encode([b"EVAL", SET_SCRIPT.encode(), b"1", key, val]) + encode([b"GET", key]))
                r = c.read_reply()[0]
                waited = time.monotonic() - t0
                got = c.read_reply()[0]
                assert got.endswith(val + b"\r\n"), "the GET pipelined after EVAL #%d: wrong value" % i
                if r == b"+OK\r\n":
                    continue
                assert r.startswith(IOERR_HEAD), "EVAL #%d: expected +OK or %s..., got %r" % (i, IOERR_HEAD, r[:120])
                assert waited >= HOLD_MS / 1000.0 * 0.9, "the -IOERR came after %.2f s" % waited
                st["failed"] = i
                return
            raise AssertionError("200 scripts' writes of 64 KB were all acknowledged on a 4 MB tmpfs")

        rep.case("an EVAL whose writes hit ENOSPC is answered -IOERR after aof-hold-timeout, and the GET "
                 "pipelined after it gets the value", fill)

        def refused():
            assert "failed" in st, "no EVAL was answered -IOERR (the fill case failed)"
            b = Conn(srv.port)
            got = ask(b, "EVAL", "#!lua\n" + SET_SCRIPT, "1", "sd:x", "v")
            assert got == MISCONF, got
            got = ask(b, "EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "sd:0")
            assert got.startswith(b"$"), got

        rep.case("then a flagged script that may write is refused -MISCONF and a no-writes one runs", refused)
    finally:
        if srv:
            srv.stop()
        spserver.tmpfs_unmount(top, mnt)
    rep.finish()


if __name__ == "__main__":
    main()
