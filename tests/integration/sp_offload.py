"""sp_offload.py -- SP.OFFLOAD's generated names: one counter per prefix (and
separator: <prefix>-<n> or, with SEPARATOR _, <prefix>_<n>), kept
across a restart and both rewrite modes, never reusing a number while the
scratchpad exists, even after the entries that used it are deleted.

One server of its own (tests/lib/spserver.py, the log on), redis-py's
execute_command. Prints "ok - ..." or "not ok - ..." per case.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

PORT = None


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=20, socket_connect_timeout=20)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def offload(r, prefix, *sep):
    flat = r.execute_command("SP.OFFLOAD", "of:p", "x" * 20, "THRESHOLD", 10, "PREFIX", prefix, *sep)
    d = dict(zip(flat[::2], flat[1::2]))
    return d[b"name"].decode()


def case_per_prefix():
    r = client()
    r.execute_command("DEL", "of:p")
    r.execute_command("SP.WRITE", "of:p", "keep", "k")
    got = [offload(r, p) for p in ("read_file", "grep", "read_file", "bash", "read_file", "grep")]
    eq(got, ["read_file-1", "grep-1", "read_file-2", "bash-1", "read_file-3", "grep-2"], "names")


def case_separator():
    r = client()
    got = [offload(r, "web_fetch", "SEPARATOR", "_"), offload(r, "web_fetch"), offload(r, "web_fetch", "SEPARATOR", "_"),
           offload(r, "web_fetch", "SEPARATOR", "-")]
    eq(got, ["web_fetch_1", "web_fetch-1", "web_fetch_2", "web_fetch-2"], "names")
    for bad in ("", ".", "__", "x"):
        try:
            offload(r, "web_fetch", "SEPARATOR", bad)
            raise AssertionError("SEPARATOR %r accepted" % bad)
        except redis.ResponseError as e:
            eq(str(e), "SEPARATOR must be - or _", "error")


def case_survives(srv):
    global PORT
    r = client()
    # The read_file entries are deleted: their numbers are still never reused.
    r.execute_command("SP.DEL", "of:p", "read_file-1", "read_file-2", "read_file-3")
    n = 3
    for mode in ("restart", "incremental", "fork"):
        if mode != "restart":
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", mode)
            before = r.info("persistence")["aof_rewrites"]
            r.execute_command("BGREWRITEAOF")
            for _ in range(300):
                p = r.info("persistence")
                if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] > before:
                    break
                time.sleep(0.02)
            assert r.info("persistence")["aof_rewrites"] > before, "the %s rewrite did not finish" % mode
        srv.restart()
        PORT = srv.port
        r = client()
        n += 1
        eq(offload(r, "read_file"), "read_file-%d" % n, "read_file after %s" % mode)
        r.execute_command("SP.DEL", "of:p", "read_file-%d" % n)
        eq(offload(r, "web_fetch", "SEPARATOR", "_"), "web_fetch_%d" % (n - 1), "web_fetch_ after %s" % mode)
    eq(offload(r, "bash"), "bash-2", "bash after all that")


def main():
    global PORT
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes")
    srv.start()
    try:
        PORT = srv.port
        rep.case("SP.OFFLOAD numbers each prefix on its own: read_file-1, read_file-2 whatever other prefixes do",
                 case_per_prefix)
        rep.case("SEPARATOR _ names them <prefix>_<n> (a counter of its own; - is the default), any other is an error",
                 case_separator)
        rep.case("the per-prefix counters survive a restart and both rewrite modes, their entries deleted",
                 case_survives, srv)
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    else:
        print("ok - the server exits with status 0 on SIGTERM")
    rep.finish()


if __name__ == "__main__":
    main()
