"""persist_no_manifest.py -- a missing manifest: refuse, rebuild, delete nothing.

Issue 19, part 1: with scratchpad.manifest gone, the server took the directory
for a fresh one, started empty and unlinked the base and incr files that held
the data. Now (docs/aof.md §1, §6, §7):

1. The reproduction: writes, stop, remove the manifest, start: the server exits
   non-zero before opening its port, its log names the files found and the
   command `scratchpad-check-aof --rebuild-manifest <dir>`, and every file is
   still there byte for byte. The check tool on the directory (or on the missing
   manifest) says the manifest is missing, lists the files and suggests the
   rebuild (exit 1).
2. `--rebuild-manifest` writes the manifest the server had, and the server then
   starts with every key: after a first start (base 1, incr 2), after a fork
   rewrite (base n+1, incr n) and after an incremental rewrite (base m, incr
   m+1), with more writes after each rewrite.
3. It refuses, writing nothing, when the files cannot be ordered with
   certainty: both incr B-1 and B+1 beside base B, no base, a gap of several
   numbers; and when the directory already has a manifest.
4. With a manifest, a file it does not name that holds records stays in place
   (logged) and new files are numbered past it; a temporary base and a bare
   header are removed.

Servers run on free ports in temporary directories (tests/lib/spserver.py) and
are stopped by PID; every wait is bounded.
"""

import os
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

TOP = os.environ.get("TOP") or spserver.TOP
BUILD = os.environ.get("BUILD") or "build"
TIMEOUT = 10  # s


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def header(kind, seq):
    """A log file's 32-byte header (docs/aof.md §2): kind 1 base, 2 incr."""
    h = b"SPAOF\x00" + struct.pack("<HIQQ", 1, kind, int(time.time() * 1000), seq)
    return h + struct.pack("<I", crc32c(h))






def snapshot(data):
    """{name: bytes} of the log's files in data (the lock file aside)."""
    return {n: open(os.path.join(data, n), "rb").read() for n in sorted(os.listdir(data))
            if n != "scratchpad.lock"}


def wait_rewrite(r):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        i = r.info("persistence")
        if not i["aof_rewrite_in_progress"] and i.get("aof_rewrite_scheduled", 0) == 0:
            check(i["aof_last_bgrewrite_status"] == "ok", "the rewrite failed: %r" % i)
            return
        time.sleep(0.05)
    raise AssertionError("the rewrite did not finish")


def make_log(tmp, name, mode=None):
    """A work directory whose log holds keys k0..k29 (k20.. written after a
    rewrite when mode is given) and a scratchpad entry. Returns (workdir,
    data dir, the manifest's text, the expected values)."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    args = ["--aof-rewrite-mode", mode] if mode else []
    want = {}
    with spserver.Server(*args, workdir=d) as srv:
        r = client(srv.port)
        for i in range(20):
            r.set("k%d" % i, "v%d" % i)
            want["k%d" % i] = b"v%d" % i
        r.execute_command("SP.WRITE", "pad", "notes", "before\n")
        if mode:
            r.bgrewriteaof()
            wait_rewrite(r)
        for i in range(20, 30):
            r.set("k%d" % i, "v%d" % i)
            want["k%d" % i] = b"v%d" % i
        r.incr("k0x")
        want["k0x"] = b"1"
        r.close()
        check(srv.stop() == 0, "exit status on SIGTERM")
    data = os.path.join(d, "data")
    with open(os.path.join(data, "scratchpad.manifest")) as f:
        text = f.read()
    return d, data, text, want


def expect_all(d, want):
    with spserver.Server(workdir=d) as srv:
        r = client(srv.port)
        got = {k: r.get(k) for k in want}
        entry = r.execute_command("SP.READ", "pad", "notes")
        r.close()
    check(got == want, "keys after the restart: %r" % {k: v for k, v in got.items() if want[k] != v})
    check(entry and b"before" in (entry if isinstance(entry, bytes) else b"".join(
        x for x in entry if isinstance(x, bytes))), "the scratchpad entry: %r" % (entry,))


def manifest_files(text):
    return [line.split()[1] for line in text.splitlines() if line.startswith("file ")]


def t_refuse(tmp):
    d, data, text, want = make_log(tmp, "refuse")
    os.unlink(os.path.join(data, "scratchpad.manifest"))
    before = snapshot(data)
    status, log = spserver.run_expecting_refusal(d)
    check(isinstance(status, int) and status > 0,
          "no manifest beside log files: status %r, want an exit status > 0; log:\n%s" % (status, log[-800:]))
    for name in manifest_files(text):
        check(name in log, "the refusal names %s:\n%s" % (name, log[-800:]))
    check("scratchpad-check-aof --rebuild-manifest %s" % os.path.realpath(data) in log,
          "the refusal gives the rebuild command:\n%s" % log[-800:])
    check(snapshot(data) == before, "the files changed: %r -> %r" % (sorted(before), sorted(snapshot(data))))
    for arg in (data, os.path.join(data, "scratchpad.manifest")):
        rc, out = spserver.run_check_aof(arg)
        check(rc == 1 and "no manifest" in out and "--rebuild-manifest" in out and
              all(n in out for n in manifest_files(text)),
              "the check tool on %s: exit %d:\n%s" % (arg, rc, out))


def rebuild_and_start(tmp, name, mode, want_order):
    d, data, text, want = make_log(tmp, name, mode)
    files = manifest_files(text)
    seqs = [int(f.split(".")[2]) for f in files]
    check(want_order(seqs), "the log's seqs %r have the expected shape" % (seqs,))
    os.unlink(os.path.join(data, "scratchpad.manifest"))
    rc, out = spserver.run_check_aof("--rebuild-manifest", data)
    check(rc == 0, "--rebuild-manifest: exit %d:\n%s" % (rc, out))
    with open(os.path.join(data, "scratchpad.manifest")) as f:
        rebuilt = f.read()
    check(manifest_files(rebuilt) == files, "rebuilt %r, the server had %r" % (manifest_files(rebuilt), files))
    expect_all(d, want)


def t_rebuild_first(tmp):
    rebuild_and_start(tmp, "first", None, lambda s: s == [1, 2])


def t_rebuild_fork(tmp):
    rebuild_and_start(tmp, "fork", "fork", lambda s: len(s) == 2 and s[0] == s[1] + 1)


def t_rebuild_incremental(tmp):
    rebuild_and_start(tmp, "inc", "incremental", lambda s: len(s) == 2 and s[1] == s[0] + 1)


def t_rebuild_refusals(tmp):
    d, data, text, want = make_log(tmp, "ambiguous", "fork")
    base, incr = manifest_files(text)
    b = int(base.split(".")[2])
    os.unlink(os.path.join(data, "scratchpad.manifest"))
    cases = [
        ("incr B-1 and B+1 beside base B", {"scratchpad.aof.%d.incr" % (b + 1): header(2, b + 1)}, "ambiguous"),
        ("a gap of several numbers", {"scratchpad.aof.%d.incr" % (b + 5): header(2, b + 5)}, "no file numbered"),
        ("a header whose seq is not its name's", {"scratchpad.aof.%d.incr" % (b + 2): header(2, b + 3)},
         "differs"),
    ]
    bad = []
    for what, extra, says in cases:
        for n, content in extra.items():
            with open(os.path.join(data, n), "wb") as f:
                f.write(content)
        before = snapshot(data)
        rc, out = spserver.run_check_aof("--rebuild-manifest", data)
        if rc != 1 or says not in out or snapshot(data) != before:
            bad.append("%s: exit %d (want 1, '%s', nothing written):\n%s" % (what, rc, says, out))
        for n in extra:
            os.unlink(os.path.join(data, n))
    # No base at all.
    os.rename(os.path.join(data, base), os.path.join(tmp, "base-aside"))
    rc, out = spserver.run_check_aof("--rebuild-manifest", data)
    if rc != 1 or "no base" not in out or os.path.exists(os.path.join(data, "scratchpad.manifest")):
        bad.append("no base: exit %d:\n%s" % (rc, out))
    os.rename(os.path.join(tmp, "base-aside"), os.path.join(data, base))
    # A manifest already there is not replaced.
    with open(os.path.join(data, "scratchpad.manifest"), "w") as f:
        f.write(text)
    rc, out = spserver.run_check_aof("--rebuild-manifest", data)
    if rc != 2 or open(os.path.join(data, "scratchpad.manifest")).read() != text:
        bad.append("an existing manifest: exit %d (want 2, untouched):\n%s" % (rc, out))
    check(not bad, "\n".join(bad))
    expect_all(d, want)


def t_unnamed_files(tmp):
    d, data, text, want = make_log(tmp, "unnamed")
    files = manifest_files(text)
    with open(os.path.join(data, files[-1]), "rb") as f:
        records = f.read()
    keep = "scratchpad.aof.99.incr"
    with open(os.path.join(data, keep), "wb") as f:
        f.write(header(2, 99) + records[32:])
    with open(os.path.join(data, "scratchpad.aof.98.base.tmp"), "wb") as f:
        f.write(header(1, 98) + records[32:])
    with open(os.path.join(data, "scratchpad.aof.97.incr"), "wb") as f:
        f.write(header(2, 97))
    with spserver.Server(workdir=d) as srv:
        r = client(srv.port)
        check(r.get("k5") == b"v5", "the log loaded")
        r.bgrewriteaof()
        wait_rewrite(r)
        r.close()
        log = open(srv.log_path, errors="replace").read()
    names = os.listdir(data)
    check(keep in names and open(os.path.join(data, keep), "rb").read()[32:] == records[32:],
          "the unnamed file with records is still there: %r" % names)
    check(keep in log and "left in place" in log, "the log names the file left in place:\n%s" % log[-800:])
    check("scratchpad.aof.98.base.tmp" not in names and "scratchpad.aof.97.incr" not in names,
          "the temporary base and the bare header are removed: %r" % names)
    with open(os.path.join(data, "scratchpad.manifest")) as f:
        seqs = [int(n.split(".")[2]) for n in manifest_files(f.read())]
    check(min(seqs) > 99, "the new files are numbered past 99: %r" % seqs)


def main():
    rep = spserver.Reporter()
    tmp = tempfile.mkdtemp(prefix="sp-no-manifest-")
    try:
        rep.case("log files without a manifest: the server refuses to start, names the files and the "
                 "rebuild command, and deletes nothing (every file byte for byte); the check tool says the "
                 "manifest is missing and lists the files", t_refuse, tmp)
        rep.case("--rebuild-manifest after a first start (base 1, incr 2) writes the server's manifest, "
                 "and the server starts with every key", t_rebuild_first, tmp)
        rep.case("--rebuild-manifest after a fork rewrite (base n+1 before incr n) and more writes: the "
                 "same manifest, every key", t_rebuild_fork, tmp)
        rep.case("--rebuild-manifest after an incremental rewrite (base m, incr m+1) and more writes: the "
                 "same manifest, every key", t_rebuild_incremental, tmp)
        rep.case("--rebuild-manifest refuses and writes nothing when incr B-1 and B+1 are both there, on a "
                 "gap of several numbers, a header that disagrees with its name, no base, or an existing "
                 "manifest", t_rebuild_refusals, tmp)
        rep.case("with a manifest, an unnamed file holding records stays (logged) and new files are numbered "
                 "past it; an unnamed temporary base and a bare header are removed", t_unnamed_files, tmp)
    finally:
        if not os.environ.get("KEEP_TEST_DIRS"):
            shutil.rmtree(tmp, ignore_errors=True)
    rep.finish()


if __name__ == "__main__":
    main()
