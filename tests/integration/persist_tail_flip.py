"""persist_tail_flip.py -- a flipped bit in the last record is damage, not a torn write.

Issue 19, part 3: a record whose whole length is in the file but whose CRC fails
was taken for a torn write when it was the last one, so the server cut it off
(aof-load-truncated yes) and the last acknowledged write was gone, silently but
for a log line. Now only a record cut short by the end of the file is torn
(docs/aof.md §3); a complete record that fails its CRC is CORRUPT wherever it is.

1. The reproduction: appendfsync always, writes ending in `SET lastkey v`, stop
   (SIGTERM), flip one bit inside the last record of the incr file, start: the
   server exits non-zero before opening its port, its log names the file and the
   offset of the record, and the file is not truncated (byte for byte as it was
   left). $CHECK_AOF on the manifest exits 1 with CORRUPT at that offset.
2. Every byte of that record's CRC and payload, one bit flipped each (the bit
   chosen at random; the seed is printed): the server refuses each copy, naming
   the offset, and leaves the file as it was.
3. The same record cut short (a torn write, for contrast): the server starts
   with every record before it.

Servers run on free ports in temporary directories (tests/lib/spserver.py) and
are stopped by PID; every wait is bounded.
"""

import os
import random
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
SEED = int(os.environ.get("SEED") or int(time.time() * 1000) % 1000000)
RNG = random.Random(SEED)
HEADER = 32   # bytes of a log file's header
TIMEOUT = 10  # s


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)


def last_incr(data_dir):
    """The name of the manifest's last file (an incr file)."""
    with open(os.path.join(data_dir, "scratchpad.manifest")) as f:
        files = [line.split() for line in f if line.startswith("file ")]
    check(files and files[-1][5] == "incr", "the manifest ends in an incr file: %r" % (files,))
    return files[-1][1]


def records(path):
    """[(start offset, total length)] of the records of a whole log file."""
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], HEADER
    while off + 8 <= len(data):
        n = struct.unpack_from("<I", data, off)[0]
        out.append((off, 8 + n))
        off += 8 + n
    check(off == len(data), "%s: records end at %d, the file at %d" % (path, off, len(data)))
    return out






def make_log(tmp):
    """A log written under appendfsync always, ending in SET lastkey v. Returns
    (workdir, data dir, incr name, offset and length of the last record)."""
    d = os.path.join(tmp, "orig")
    os.mkdir(d)
    with spserver.Server("--appendfsync", "always", workdir=d) as srv:
        r = client(srv.port)
        for i in range(20):
            r.set("k%d" % i, "value %d" % i)
        r.execute_command("SP.WRITE", "pad", "notes", "a line of notes\n")
        r.set("lastkey", "v")
        r.close()
        status = srv.stop()
    check(status == 0, "exit status on SIGTERM: %r" % status)
    data = os.path.join(d, "data")
    incr = last_incr(data)
    start, length = records(os.path.join(data, incr))[-1]
    return d, data, incr, start, length


def copy_with(tmp, data, incr, edit):
    """A copy of the work directory whose incr file is edited by edit(bytearray)."""
    c = tempfile.mkdtemp(prefix="flip-", dir=tmp)
    shutil.copytree(data, os.path.join(c, "data"))
    path = os.path.join(c, "data", incr)
    with open(path, "rb") as f:
        b = bytearray(f.read())
    edit(b)
    with open(path, "wb") as f:
        f.write(b)
    return c, path, bytes(b)


def refused_intact(c, path, content, incr, start):
    """'' if the server refuses c naming incr and offset start and leaves path
    as content; else why not."""
    status, log = spserver.run_expecting_refusal(c)
    if not (isinstance(status, int) and status > 0):
        return "status %r, want an exit status > 0; log:\n%s" % (status, log[-600:])
    if incr not in log or "offset %d" % start not in log:
        return "the refusal does not name %s and offset %d:\n%s" % (incr, start, log[-600:])
    with open(path, "rb") as f:
        if f.read() != content:
            return "the file changed (was it truncated?)"
    return ""


def t_reproduction(tmp, orig):
    d, data, incr, start, length = orig
    flip = start + 8 + length // 2  # a byte of the payload, in the middle

    def edit(b):
        b[flip - 8] ^= 0x04

    c, path, content = copy_with(tmp, data, incr, edit)
    try:
        why = refused_intact(c, path, content, incr, start)
        check(not why, why)
        rc, out = spserver.run_check_aof(os.path.join(c, "data", "scratchpad.manifest"))
        check(rc == 1 and "CORRUPT at offset %d" % start in out,
              "the check tool: exit %d, want 1 with CORRUPT at offset %d:\n%s" % (rc, start, out))
    finally:
        shutil.rmtree(c, ignore_errors=True)


def t_every_byte(tmp, orig):
    d, data, incr, start, length = orig
    fails = []
    for k in range(start + 4, start + length):
        bit = RNG.randrange(8)

        def edit(b, k=k, bit=bit):
            b[k] ^= 1 << bit

        c, path, content = copy_with(tmp, data, incr, edit)
        try:
            why = refused_intact(c, path, content, incr, start)
            if why:
                fails.append("byte %d bit %d: %s" % (k, bit, why))
        finally:
            shutil.rmtree(c, ignore_errors=True)
        if len(fails) >= 3:
            break
    check(not fails, "\n".join(fails))


def t_cut_short(tmp, orig):
    d, data, incr, start, length = orig

    def edit(b):
        del b[start + length // 2:]

    c, path, content = copy_with(tmp, data, incr, edit)
    try:
        s = spserver.Server(workdir=c)
        ok, msg = s.try_start()
        check(ok, "the server did not start on a torn log: %s" % msg[-600:])
        try:
            r = client(s.port)
            check(r.get("k19") == b"value 19" and r.get("lastkey") is None,
                  "k19 %r, lastkey %r" % (r.get("k19"), r.get("lastkey")))
            r.close()
        finally:
            s.stop()
        check(os.path.getsize(path) == start, "the torn file is cut back to %d" % start)
    finally:
        shutil.rmtree(c, ignore_errors=True)


def main():
    print("# seed %d" % SEED)
    rep = spserver.Reporter()
    tmp = tempfile.mkdtemp(prefix="sp-tail-flip-")
    try:
        orig = make_log(tmp)
        rep.case("a bit flipped in the last record of the incr file (appendfsync always): the server "
                 "refuses to start naming the file and the record's offset, the file is not "
                 "truncated, and the check tool says CORRUPT at that offset", t_reproduction, tmp, orig)
        rep.case("a bit flipped in any byte of the last record's CRC or payload: refused, named "
                 "with its offset, the file left as it was", t_every_byte, tmp, orig)
        rep.case("the same record cut short is a torn write: the server starts with every record "
                 "before it and cuts the file back", t_cut_short, tmp, orig)
    except Exception as e:  # noqa: BLE001 -- set-up failure is a failed case
        rep.fail("set-up of the tail-flip cases", repr(e))
    finally:
        if not os.environ.get("KEEP_TEST_DIRS"):
            shutil.rmtree(tmp, ignore_errors=True)
    rep.finish()


if __name__ == "__main__":
    main()
