"""persist_restart.py -- restart equality: what the append-only log brings back.

Each case starts a scratchpad-server of its own (tests/lib/spserver.py) in a
fresh temporary directory (the log is ./data there), changes the dataset with
redis-py, takes a dump of the whole dataset, restarts the server in the same
directory, and compares the dump after the restart with the one before:

1. a mixed workload of every write command (strings, keys, databases,
   transactions, scratchpads with small, large compressed and binary entries,
   SP.OFFLOAD counters, lifetimes; strings over 1 MB that the server compresses
   in the background) survives an orderly restart (SIGTERM);
2. the same after BGREWRITEAOF and more writes; the manifest then names one base
   and the incr file(s), and the files of the old log are removed;
3. with appendfsync everysec, a kill -9 loses no acknowledged write;
4. keys and entries that expire while the server is down are gone after the
   restart; keys recreated after they expired come back with their new value;
5. CONFIG SET appendonly no, writes, CONFIG SET appendonly yes (a rewrite),
   writes: the restart brings back everything; appendfsync always/no/everysec
   are accepted at run time and shown by CONFIG GET and INFO; and once the new
   base is written the files of the previous log are removed (as after
   BGREWRITEAOF), not left until the next start;
6. INFO persistence after a restart (aof_enabled, aof_last_load_records); with
   --appendonly no a restart starts empty and no data directory is made;
7. a second server started on the same directory refuses to start.

The dump (dump_dataset) and its comparison (compare_dumps) are module-level
functions meant to be reused: every database, every key, its TYPE and absolute
expiry (PEXPIRETIME), a string's value (GET), a scratchpad's entries (SP.LIST
WITHMETA, SP.STAT, the whole content read with SP.READ, and each entry's
absolute expiry from SP.PTTL). Expiry times are compared within a tolerance
(TTL_TOLERANCE_MS); everything else must be equal byte for byte.

Each server must exit 0 on its final SIGTERM and leave no sanitizer report in
its log, so the file is worth running on the ASan build too
(BUILD=build-asan TESTS=persist_restart sh tests/run.sh).

Prints "ok - <sentence>" / "not ok - <sentence>" per case; exits non-zero on a
failure. Every wait is a poll with a deadline; servers are stopped by PID.
"""

import os
import random
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

TTL_TOLERANCE_MS = 50
# SP.STAT / SP.LIST fields left out of a dump: the time left (compared as an
# absolute expiry instead), and `stored`, the allocator's usable size of the
# entry's memory, which depends on how the entry was built (appends grow
# buffers with slack; a reload allocates exact sizes), not on its content.
VOLATILE_ENTRY_FIELDS = (b"ttl", b"stored")
POLL_TIMEOUT = 15.0  # s, for a background rewrite to finish

# ---------------------------------------------------------------------------
# The dump: generic, reusable.


def _now_ms():
    return time.time() * 1000.0


def _pairs(flat):
    """A RESP2 flat map [k1, v1, k2, v2, ...] as a dict (keys as bytes)."""
    if isinstance(flat, dict):
        return dict(flat)
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}


def _read_entry(r, ns, name):
    """The whole content of an entry, in bytes, following next_offset so that a
    reply window limit (if any) does not cut it."""
    out = []
    offset = 0
    for _ in range(100000):
        reply = r.execute_command("SP.READ", ns, name, "OFFSET", offset, "BYTES", "WITHMETA")
        if reply is None:
            return None
        data, meta = reply[0], _pairs(reply[1])
        out.append(data)
        nxt = meta.get(b"next_offset")
        if nxt is None:
            return b"".join(out)
        if int(nxt) <= offset:
            raise AssertionError("SP.READ %r %r: next_offset %r does not advance from %d"
                                 % (ns, name, nxt, offset))
        offset = int(nxt)
    raise AssertionError("SP.READ %r %r: too many windows" % (ns, name))


def dump_scratchpad(r, ns):
    """Every entry of scratchpad ns: {name: {"meta", "stat", "content", "expire_at"}}.

    meta: the SP.LIST WITHMETA map, stat: the SP.STAT map, both without the
    VOLATILE_ENTRY_FIELDS (ttl, stored); expire_at: the entry's absolute expiry in ms (SP.PTTL added to the
    client's clock, midpoint of the call), or -1 for none."""
    entries = {}
    cursor = b"0"
    for _ in range(100000):
        cur, page = r.execute_command("SP.LIST", ns, "WITHMETA", "CURSOR", cursor, "COUNT", 1000)
        for m in page:
            meta = _pairs(m)
            name = meta.pop(b"name")
            for f in VOLATILE_ENTRY_FIELDS:
                meta.pop(f, None)
            entries[name] = {"meta": meta}
        if cur in (b"0", 0, "0"):
            break
        cursor = cur
    else:
        raise AssertionError("SP.LIST %r never ends" % ns)
    for name, e in entries.items():
        stat = r.execute_command("SP.STAT", ns, name)
        if stat is None:
            raise AssertionError("SP.STAT %r %r: nil for a listed entry" % (ns, name))
        stat = _pairs(stat)
        for f in VOLATILE_ENTRY_FIELDS:
            stat.pop(f, None)
        e["stat"] = stat
        e["content"] = _read_entry(r, ns, name)
        t0 = _now_ms()
        pttl = r.execute_command("SP.PTTL", ns, name)
        t1 = _now_ms()
        e["expire_at"] = pttl if pttl < 0 else (t0 + t1) / 2.0 + pttl
    return entries


def dump_dataset(port, host="127.0.0.1", password=None, databases=None):
    """The whole dataset of the server at host:port as plain Python data:

        {db: {key: {"type": b"string"|b"scratchpad"|..., "expire_at": ms or -1,
                    "value": bytes                  (strings),
                    "entries": dump_scratchpad(...) (scratchpads)}}}

    Only databases holding keys appear. databases defaults to CONFIG GET
    databases. Reads only (SCAN, TYPE, PEXPIRETIME, GET, SP.LIST/STAT/READ/PTTL),
    on connections of its own (decode_responses=False: bytes compare exactly)."""
    base = redis.Redis(host=host, port=port, password=password, socket_timeout=30)
    try:
        if databases is None:
            reply = base.execute_command("CONFIG", "GET", "databases")
            databases = int(_pairs(reply)[b"databases"] if not isinstance(reply, dict)
                            else list(reply.values())[0])
    finally:
        base.close()
    out = {}
    for db in range(databases):
        r = redis.Redis(host=host, port=port, password=password, db=db, socket_timeout=30)
        try:
            keys = set()
            cursor = 0
            while True:
                cursor, batch = r.scan(cursor=cursor, count=1000)
                keys.update(batch)
                if int(cursor) == 0:
                    break
            dbd = {}
            for k in keys:
                t = r.type(k)
                if t == b"none":
                    continue  # expired or deleted meanwhile
                item = {"type": t, "expire_at": r.execute_command("PEXPIRETIME", k)}
                if t == b"string":
                    item["value"] = r.get(k)
                elif t == b"scratchpad":
                    item["entries"] = dump_scratchpad(r, k)
                dbd[k] = item
            if dbd:
                out[db] = dbd
        finally:
            r.close()
    return out


def _short(v, n=120):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


def _cmp_expire(where, a, b, tol, diffs):
    if (a < 0 or b < 0) and a != b:
        diffs.append("%s: expiry %r before, %r after" % (where, a, b))
    elif a >= 0 and abs(a - b) > tol:
        diffs.append("%s: expiry %.0f before, %.0f after (%.0f ms apart)" % (where, a, b, b - a))


def compare_dumps(before, after, ttl_tolerance_ms=TTL_TOLERANCE_MS, ignore_keys=()):
    """The differences between two dump_dataset() results, as readable lines
    (empty when equal). Expiry times may differ by ttl_tolerance_ms.
    ignore_keys: (db, key) pairs to leave out."""
    diffs = []
    ign = set(ignore_keys)
    for db in sorted(set(before) | set(after)):
        bd, ad = before.get(db, {}), after.get(db, {})
        for k in sorted(set(bd) | set(ad)):
            if (db, k) in ign:
                continue
            w = "db %d key %r" % (db, k)
            if k not in ad:
                diffs.append("%s: missing after restart (was %s)" % (w, bd[k]["type"]))
                continue
            if k not in bd:
                diffs.append("%s: appeared after restart (%s)" % (w, ad[k]["type"]))
                continue
            b, a = bd[k], ad[k]
            if b["type"] != a["type"]:
                diffs.append("%s: type %r before, %r after" % (w, b["type"], a["type"]))
                continue
            _cmp_expire(w, b["expire_at"], a["expire_at"], ttl_tolerance_ms, diffs)
            if "value" in b and b["value"] != a.get("value"):
                diffs.append("%s: value %s before, %s after" % (w, _short(b["value"]), _short(a.get("value"))))
            if "entries" in b:
                be, ae = b["entries"], a.get("entries", {})
                for name in sorted(set(be) | set(ae)):
                    we = "%s entry %r" % (w, name)
                    if name not in ae:
                        diffs.append(we + ": missing after restart")
                        continue
                    if name not in be:
                        diffs.append(we + ": appeared after restart")
                        continue
                    x, y = be[name], ae[name]
                    for part in ("meta", "stat"):
                        for f in sorted(set(x[part]) | set(y[part])):
                            if x[part].get(f) != y[part].get(f):
                                diffs.append("%s: %s %s %r before, %r after" % (
                                    we, part, f.decode(errors="replace"), x[part].get(f), y[part].get(f)))
                    if x["content"] != y["content"]:
                        diffs.append("%s: content %s before, %s after" % (we, _short(x["content"]), _short(y["content"])))
                    _cmp_expire(we, x["expire_at"], y["expire_at"], ttl_tolerance_ms, diffs)
    return diffs


def assert_same(before, after, what="after restart", **kw):
    diffs = compare_dumps(before, after, **kw)
    if diffs:
        raise AssertionError("%d difference(s) %s:\n%s" % (len(diffs), what, "\n".join(diffs[:40])))


def dump_size(d):
    """(keys, scratchpad entries) in a dump."""
    keys = sum(len(x) for x in d.values())
    entries = sum(len(it.get("entries", {})) for x in d.values() for it in x.values())
    return keys, entries


# ---------------------------------------------------------------------------
# Helpers.


def client(srv, db=0, **kw):
    """A redis-py client that returns replies as the server sent them (no
    response callbacks: SET ... GET answers the old value, not a bool)."""
    r = redis.Redis(host="127.0.0.1", port=srv.port, db=db, socket_timeout=30, **kw)
    r.response_callbacks = {}
    return r


def info_persistence(r):
    """INFO persistence as {field: str}, parsed from the raw text (no guessing of types)."""
    text = r.execute_command("INFO", "persistence")
    if isinstance(text, dict):  # redis-py parses INFO; keep values as strings
        return {k: str(v) for k, v in text.items()}
    out = {}
    for line in text.decode().splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def poll(cond, what, timeout=POLL_TIMEOUT, interval=0.02):
    """Call cond() until it returns a true value; raise after timeout with the
    last value it returned."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = cond()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s (last: %r)" % (what, last))
        time.sleep(interval)


def wait_rewrite_done(r, rewrites):
    """Poll INFO persistence until no rewrite runs and aof_rewrites == rewrites;
    check that it succeeded."""
    def done():
        i = info_persistence(r)
        if i.get("aof_rewrite_in_progress") == "0" and i.get("aof_rewrite_scheduled", "0") == "0" \
                and int(i.get("aof_rewrites", -1)) >= rewrites:
            return i
        return None
    i = poll(done, "the rewrite to finish (aof_rewrites %d)" % rewrites)
    assert int(i["aof_rewrites"]) == rewrites, "aof_rewrites %s, expected %d" % (i["aof_rewrites"], rewrites)
    assert i["aof_last_bgrewrite_status"] == "ok", i
    return i


def stop_keep_dir(srv):
    """Stop the server (SIGTERM, by PID) but keep its directory: the server is
    down until srv.start(). Returns the exit status."""
    status = srv._kill()
    if srv._log:
        srv._log.close()
        srv._log = None
    return status


def check_log_clean(srv):
    """No sanitizer report or crash in the server's log (for BUILD=build-asan)."""
    try:
        with open(srv.log_path, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return
    for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer", "Segmentation fault"):
        assert bad not in text, "the server log reports %r:\n%s" % (bad, srv.log_tail(60))


class Srv(spserver.Server):
    """spserver.Server whose final stop also checks that the server exited 0 on
    SIGTERM and that its log has no sanitizer report."""

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            spserver.Server.stop(self)  # remove the directory of a server that never started
            raise

    def stop(self):
        status = self._kill() if self.alive() else 0
        try:
            if self.log_path:
                check_log_clean(self)
            assert status == 0, "the server exited with status %r on SIGTERM:\n%s" % (status, self.log_tail())
        finally:
            super().stop()
        return status


def data_dir(srv):
    return os.path.join(srv.dir, "data")


def read_manifest(srv):
    """[(name, seq, type)] of scratchpad.manifest."""
    files = []
    with open(os.path.join(data_dir(srv), "scratchpad.manifest")) as f:
        lines = f.read().splitlines()
    head = [l for l in lines if l.strip() and not l.startswith("#")]
    assert head and head[0].split() == ["scratchpad-manifest", "1"], lines
    for l in head[1:]:
        w = l.split()
        assert len(w) == 6 and w[0] == "file" and w[2] == "seq" and w[4] == "type", l
        files.append((w[1], int(w[3]), w[5]))
    return files


def log_files(srv):
    return sorted(n for n in os.listdir(data_dir(srv)) if n.startswith("scratchpad.aof."))


def check_manifest_clean(srv):
    """The manifest names one base first and incr files after it, each present;
    wait until no other scratchpad.aof.* file is left (removal runs on a
    background thread). Returns the manifest."""
    m = read_manifest(srv)
    kinds = [t for _, _, t in m]
    assert kinds.count("base") == 1 and kinds[0] == "base" and len(kinds) >= 2 \
        and all(t == "incr" for t in kinds[1:]), "manifest: %r" % (m,)
    named = sorted(n for n, _, _ in m)
    for n, seq, t in m:
        assert n == "scratchpad.aof.%d.%s" % (seq, t), m
    deadline = time.monotonic() + 5.0
    while True:
        files = log_files(srv)
        if files == named:
            return m
        if time.monotonic() > deadline:
            raise AssertionError("the manifest names %r but the directory holds %r" % (named, files))
        time.sleep(0.02)


# ---------------------------------------------------------------------------
# Content.


def log_text(nbytes, seed):
    """Deterministic compressible text with multi-byte characters, about nbytes."""
    rnd = random.Random(seed)
    words = ["alpha", "beta", "error", "caf\u00e9", "\u4e2d\u6587", "\U0001F600", "id=42", "retry", "ok"]
    out, n = [], 0
    while n < nbytes:
        line = ("%06d %s\n" % (rnd.randrange(10 ** 6), " ".join(rnd.choice(words) for _ in range(8)))).encode()
        out.append(line)
        n += len(line)
    return b"".join(out)


def binary_blob(nbytes, seed):
    rnd = random.Random(seed)
    return bytes(rnd.getrandbits(8) for _ in range(nbytes))


BIG_TEXT = log_text(200 * 1024, 1)          # > 64 KB: stored compressed, several chunks
BIG_APPEND = log_text(100 * 1024, 2)
BIG_BINARY = binary_blob(80 * 1024, 3)      # incompressible, > 64 KB
HUGE_STRING = log_text(1536 * 1024, 4)      # > 1 MB: compressed in the background
BIN = b"\x00\x01\xff\xfe binary \x00 content \x80"


# ---------------------------------------------------------------------------
# The workload.


def x(r, *args):
    return r.execute_command(*args)


def expect(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, expected %r" % (what, got, want))


def write_strings(r, p):
    """Every string write command; p is a key prefix. Returns nothing; asserts
    the replies that show the command did what the workload intends."""
    now_s = int(time.time())
    now_ms = int(time.time() * 1000)
    expect(x(r, "SET", p + "plain", "v1"), b"OK", "SET")
    expect(x(r, "SET", p + "ex", "v", "EX", 1000), b"OK", "SET EX")
    expect(x(r, "SET", p + "px", "v", "PX", 900000), b"OK", "SET PX")
    expect(x(r, "SET", p + "exat", "v", "EXAT", now_s + 2000), b"OK", "SET EXAT")
    expect(x(r, "SET", p + "pxat", "v", "PXAT", now_ms + 1500000), b"OK", "SET PXAT")
    x(r, "SET", p + "keepttl", "old", "EX", 700)
    expect(x(r, "SET", p + "keepttl", "new", "KEEPTTL"), b"OK", "SET KEEPTTL")
    x(r, "SET", p + "dropttl", "old", "EX", 700)
    x(r, "SET", p + "dropttl", "new")
    expect(x(r, "SET", p + "nx", "first", "NX"), b"OK", "SET NX")
    expect(x(r, "SET", p + "nx", "second", "NX"), None, "SET NX on existing")
    expect(x(r, "SET", p + "xx", "never", "XX"), None, "SET XX on missing")
    x(r, "SET", p + "xx2", "a")
    expect(x(r, "SET", p + "xx2", "b", "XX", "PX", 800000), b"OK", "SET XX PX")
    expect(x(r, "SET", p + "get", "new", "GET"), None, "SET GET on missing")
    expect(x(r, "SET", p + "get", "newer", "GET", "EX", 600), b"new", "SET GET EX")
    expect(x(r, "SETNX", p + "setnx", "1"), 1, "SETNX")
    expect(x(r, "SETNX", p + "setnx", "2"), 0, "SETNX existing")
    expect(x(r, "SETEX", p + "setex", 500, "se"), b"OK", "SETEX")
    expect(x(r, "PSETEX", p + "psetex", 400000, "pse"), b"OK", "PSETEX")
    x(r, "SET", p + "getset", "before", "EX", 300)
    expect(x(r, "GETSET", p + "getset", "after"), b"before", "GETSET")  # clears the TTL
    x(r, "SET", p + "getdel", "gone")
    expect(x(r, "GETDEL", p + "getdel"), b"gone", "GETDEL")
    x(r, "SET", p + "getex1", "a")
    expect(x(r, "GETEX", p + "getex1", "EX", 1200), b"a", "GETEX EX")
    x(r, "SET", p + "getex2", "b")
    expect(x(r, "GETEX", p + "getex2", "PX", 1300000), b"b", "GETEX PX")
    x(r, "SET", p + "getex3", "c", "EX", 100)
    expect(x(r, "GETEX", p + "getex3", "PERSIST"), b"c", "GETEX PERSIST")
    x(r, "SET", p + "getex4", "d")
    expect(x(r, "GETEX", p + "getex4", "PXAT", now_ms + 1400000), b"d", "GETEX PXAT")
    expect(x(r, "MSET", p + "m1", "1", p + "m2", "2", p + "m3", BIN), b"OK", "MSET")
    expect(x(r, "MSETNX", p + "mn1", "a", p + "mn2", "b"), 1, "MSETNX")
    expect(x(r, "MSETNX", p + "mn2", "z", p + "mn3", "c"), 0, "MSETNX with one existing")
    expect(x(r, "APPEND", p + "append", "hello"), 5, "APPEND new")
    expect(x(r, "APPEND", p + "append", " world"), 11, "APPEND")
    x(r, "SET", p + "appttl", "x", "EX", 1000)
    x(r, "APPEND", p + "appttl", "y")  # keeps the TTL
    expect(x(r, "SETRANGE", p + "setrange", 5, "tail"), 9, "SETRANGE with a gap")
    x(r, "SETRANGE", p + "setrange", 0, "HEAD")
    expect(x(r, "INCR", p + "incr"), 1, "INCR")
    x(r, "INCR", p + "incr")
    expect(x(r, "DECR", p + "decr"), -1, "DECR")
    expect(x(r, "INCRBY", p + "incrby", 1000000000000), 1000000000000, "INCRBY")
    expect(x(r, "DECRBY", p + "incrby", 7), 999999999993, "DECRBY")
    x(r, "SET", p + "incrttl", "10", "EX", 900)
    x(r, "INCR", p + "incrttl")  # keeps the TTL
    x(r, "INCRBYFLOAT", p + "float", "0.1")
    x(r, "INCRBYFLOAT", p + "float", "0.2")
    x(r, "INCRBYFLOAT", p + "float", "1e3")
    x(r, "SET", p + "float2", "3.0e5", "EX", 800)
    x(r, "INCRBYFLOAT", p + "float2", "-0.25")
    # a large compressed string, then changed by APPEND and SETRANGE
    x(r, "SET", p + "big", BIG_TEXT)
    x(r, "APPEND", p + "big", b"appended\n")
    x(r, "SETRANGE", p + "big", 70000, b"OVERWRITTEN")
    x(r, "SET", p + "bigbin", BIG_BINARY, "EX", 5000)
    x(r, "GETEX", p + "bigbin", "PX", 5100000)
    x(r, "SETRANGE", p + "bigbin", len(BIG_BINARY) + 10, b"past the end")  # grows, with a gap
    # binary key names, empty values, a SET with an expiry in the past
    x(r, "SET", p.encode() + b"bin\x00key\r\n\xff", BIN, "EX", 1234)
    x(r, "SET", p + "empty", "")
    x(r, "APPEND", p + "empty", "")
    x(r, "SET", p + "pastpxat", "v")
    x(r, "SET", p + "pastpxat", "w", "PXAT", 1)
    expect(x(r, "EXISTS", p + "pastpxat"), 0, "SET PXAT in the past")


def write_keys(r, p):
    """DEL, UNLINK, the EXPIRE family (options, past times), PERSIST, RENAME,
    RENAMENX, COPY (DB, REPLACE), MOVE: p is a key prefix in the current db."""
    now_s = int(time.time())
    now_ms = int(time.time() * 1000)
    x(r, "MSET", p + "d1", 1, p + "d2", 2, p + "d3", 3, p + "u1", 1, p + "u2", 2)
    expect(x(r, "DEL", p + "d1", p + "d2", p + "nosuch"), 2, "DEL")
    expect(x(r, "UNLINK", p + "u1", p + "nosuch"), 1, "UNLINK")
    for k in ("e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "past1", "past2", "past3", "past4", "pers"):
        x(r, "SET", p + k, k)
    expect(x(r, "EXPIRE", p + "e1", 1000), 1, "EXPIRE")
    expect(x(r, "EXPIRE", p + "e1", 2000, "NX"), 0, "EXPIRE NX with a TTL")
    expect(x(r, "EXPIRE", p + "e1", 3000, "GT"), 1, "EXPIRE GT")
    expect(x(r, "EXPIRE", p + "e1", 100, "GT"), 0, "EXPIRE GT smaller")
    expect(x(r, "EXPIRE", p + "e2", 500, "XX"), 0, "EXPIRE XX without a TTL")
    expect(x(r, "EXPIRE", p + "e2", 500, "NX"), 1, "EXPIRE NX")
    expect(x(r, "EXPIRE", p + "e2", 400, "LT"), 1, "EXPIRE LT")
    expect(x(r, "PEXPIRE", p + "e3", 1234567), 1, "PEXPIRE")
    expect(x(r, "PEXPIRE", p + "e3", 2234567, "XX"), 1, "PEXPIRE XX")
    expect(x(r, "EXPIREAT", p + "e4", now_s + 4000), 1, "EXPIREAT")
    expect(x(r, "EXPIREAT", p + "e4", now_s + 3000, "LT"), 1, "EXPIREAT LT")
    expect(x(r, "PEXPIREAT", p + "e5", now_ms + 3333333), 1, "PEXPIREAT")
    expect(x(r, "PEXPIREAT", p + "e5", now_ms + 9999999, "LT"), 0, "PEXPIREAT LT larger")
    expect(x(r, "PEXPIREAT", p + "e6", now_ms + 5555555, "NX"), 1, "PEXPIREAT NX")
    expect(x(r, "EXPIRE", p + "e7", 100, "LT"), 1, "EXPIRE LT on a key without TTL")
    expect(x(r, "EXPIRE", p + "e8", 100, "GT"), 0, "EXPIRE GT on a key without TTL")
    # a time in the past deletes the key
    expect(x(r, "EXPIRE", p + "past1", -1), 1, "EXPIRE -1")
    expect(x(r, "PEXPIRE", p + "past2", 0), 1, "PEXPIRE 0")
    expect(x(r, "EXPIREAT", p + "past3", now_s - 100), 1, "EXPIREAT in the past")
    expect(x(r, "PEXPIREAT", p + "past4", 1), 1, "PEXPIREAT 1")
    x(r, "EXPIRE", p + "pers", 600)
    expect(x(r, "PERSIST", p + "pers"), 1, "PERSIST")
    x(r, "SET", p + "ren", "r", "EX", 1100)
    expect(x(r, "RENAME", p + "ren", p + "ren2"), b"OK", "RENAME (the TTL moves)")
    x(r, "SET", p + "rentarget", "will be replaced")
    x(r, "SET", p + "rensrc", "replaces")
    x(r, "RENAME", p + "rensrc", p + "rentarget")
    x(r, "SET", p + "rnx", "a")
    x(r, "SET", p + "rnxtaken", "b")
    expect(x(r, "RENAMENX", p + "rnx", p + "rnxtaken"), 0, "RENAMENX onto a taken name")
    expect(x(r, "RENAMENX", p + "rnx", p + "rnxfree"), 1, "RENAMENX")
    x(r, "SET", p + "cp", "copied", "EX", 1500)
    expect(x(r, "COPY", p + "cp", p + "cp2"), 1, "COPY")
    expect(x(r, "COPY", p + "cp", p + "cp2"), 0, "COPY onto an existing key")
    x(r, "SET", p + "cp3", "x")
    expect(x(r, "COPY", p + "cp", p + "cp3", "REPLACE"), 1, "COPY REPLACE")
    expect(x(r, "COPY", p + "cp", p + "cpdb", "DB", 7), 1, "COPY DB 7")
    x(r, "SET", p + "mv", "moved", "PX", 1600000)
    expect(x(r, "MOVE", p + "mv", 8), 1, "MOVE to db 8")
    x(r, "SET", p + "mvblocked", "here")
    rr = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"], db=8)
    rr.set(p + "mvblocked", "there")
    rr.close()
    expect(x(r, "MOVE", p + "mvblocked", 8), 0, "MOVE onto an existing key")


def write_scratchpads(r, p):
    """Every SP write and the key commands on whole scratchpads. p: key prefix.
    Returns the names the SP.OFFLOAD calls chose."""
    ns = p + "sp"
    expect(x(r, "SP.WRITE", ns, "plan", "- [ ] read\n- [ ] write\n- [ ] test\n"), 1, "SP.WRITE")
    expect(x(r, "SP.WRITE", ns, "plan", "- [ ] read\n- [ ] write\n- [ ] test\n- [ ] ship\n"), 2, "SP.WRITE overwrite")
    expect(x(r, "SP.WRITE", ns, "ex", "expires", "EX", 2000), 1, "SP.WRITE EX")
    expect(x(r, "SP.WRITE", ns, "px", "expires", "PX", 2100000), 1, "SP.WRITE PX")
    expect(x(r, "SP.WRITE", ns, "ex", "still expires", "KEEPTTL"), 2, "SP.WRITE KEEPTTL")
    expect(x(r, "SP.WRITE", ns, "px", "no more ttl"), 2, "SP.WRITE clears the TTL")
    expect(x(r, "SP.WRITE", ns, "bin", BIN), 1, "SP.WRITE binary")
    expect(x(r, "SP.WRITE", ns, "forcedbin", "plain text", "KIND", "binary"), 1, "SP.WRITE KIND binary")
    expect(x(r, "SP.WRITE", ns, "forcedtext", "caf\u00e9 \u4e2d".encode(), "KIND", "text"), 1, "SP.WRITE KIND text")
    expect(x(r, "SP.WRITE", ns, "nx", "first", "NX"), 1, "SP.WRITE NX")
    expect(x(r, "SP.WRITE", ns, "nx", "second", "NX"), None, "SP.WRITE NX on existing")
    expect(x(r, "SP.WRITE", ns, "xx", "never", "XX"), None, "SP.WRITE XX on missing")
    expect(x(r, "SP.WRITE", ns, "nx", "third", "XX"), 2, "SP.WRITE XX")
    expect(x(r, "SP.WRITE", ns, "ver", "v1", "IFVERSION", 0), 1, "SP.WRITE IFVERSION 0")
    expect(x(r, "SP.WRITE", ns, "ver", "v2", "IFVERSION", 1), 2, "SP.WRITE IFVERSION 1")
    try:
        x(r, "SP.WRITE", ns, "ver", "stale", "IFVERSION", 1)
        raise AssertionError("SP.WRITE IFVERSION with a stale version succeeded")
    except ResponseError as e:
        assert str(e).startswith("entry is at version 2") or "VERSION" in str(e) or "version" in str(e), e
    expect(x(r, "SP.WRITE", ns, "big", BIG_TEXT), 1, "SP.WRITE large")
    expect(x(r, "SP.WRITE", ns, "bigbin", BIG_BINARY, "PX", 3000000), 1, "SP.WRITE large binary")
    # SP.APPEND: a new entry, an existing one, a large append onto small and large
    x(r, "SP.APPEND", ns, "log", "started\n")
    x(r, "SP.APPEND", ns, "log", "step 1 \u2713\n".encode())
    x(r, "SP.APPEND", ns, "log", BIG_APPEND)
    x(r, "SP.APPEND", ns, "big", BIG_APPEND)
    x(r, "SP.APPEND", ns, "big", "tail line\n")
    x(r, "SP.APPEND", ns, "bin", b"\x00more\xff")
    # SP.EDIT (one, ALL, on a compressed entry), SP.INSERT
    expect(x(r, "SP.EDIT", ns, "plan", "- [ ] read", "- [x] read"), [1, 3], "SP.EDIT")
    expect(x(r, "SP.EDIT", ns, "plan", "- [ ]", "* [ ]", "ALL"), [3, 4], "SP.EDIT ALL")
    x(r, "SP.EDIT", ns, "big", "tail line", "TAIL LINE")
    x(r, "SP.EDIT", ns, "big", "alpha", "ALPHA", "ALL")
    x(r, "SP.INSERT", ns, "plan", 0, "# plan")
    x(r, "SP.INSERT", ns, "plan", -1, "the end")
    x(r, "SP.INSERT", ns, "big", 100, "inserted at line 100")
    # SP.DEL
    x(r, "SP.WRITE", ns, "del1", "x")
    x(r, "SP.WRITE", ns, "del2", "y")
    expect(x(r, "SP.DEL", ns, "del1", "del2", "nosuch"), 2, "SP.DEL")
    # entry lifetimes
    x(r, "SP.WRITE", ns, "t1", "a")
    x(r, "SP.WRITE", ns, "t2", "b")
    x(r, "SP.WRITE", ns, "t3", "c", "EX", 100)
    x(r, "SP.WRITE", ns, "t4", "d")
    expect(x(r, "SP.EXPIRE", ns, "t1", 2500), 1, "SP.EXPIRE")
    expect(x(r, "SP.PEXPIRE", ns, "t2", 2600000), 1, "SP.PEXPIRE")
    expect(x(r, "SP.PERSIST", ns, "t3"), 1, "SP.PERSIST")
    expect(x(r, "SP.PEXPIRE", ns, "t4", 0), 1, "SP.PEXPIRE 0 deletes")
    # SP.OFFLOAD twice (two prefixes); then the last one is deleted
    names = []
    for args in ((), ("PREFIX", "tool/grep", "EX", 2700)):
        reply = _pairs(x(r, "SP.OFFLOAD", ns, BIG_APPEND[:6000], *args))
        expect(reply[b"stored"], 1, "SP.OFFLOAD stored")
        names.append(reply[b"name"])
    expect(names, [b"obs-1", b"tool/grep-1"], "SP.OFFLOAD names (one counter per prefix)")
    x(r, "SP.DEL", ns, "tool/grep-1")
    small = _pairs(x(r, "SP.OFFLOAD", ns, "short"))
    expect(small[b"stored"], 0, "SP.OFFLOAD below the threshold")
    # another scratchpad whose offloaded entries are all deleted: the counter stays
    x(r, "SP.WRITE", p + "sp-off", "keep", "kept")
    for _ in range(2):
        x(r, "SP.OFFLOAD", p + "sp-off", BIG_APPEND[:5000], "KIND", "binary", "EX", 2900)
    expect(x(r, "SP.DEL", p + "sp-off", "obs-1", "obs-2"), 2, "SP.DEL of the offloaded entries")
    # binary namespace, empty entry
    x(r, "SP.WRITE", p.encode() + b"sp\x00\xff", "e", "", "KIND", "text")
    x(r, "SP.WRITE", p.encode() + b"sp\x00\xff", "f", "")
    # a scratchpad with a lifetime of its own, one renamed, one copied, one moved
    x(r, "SP.WRITE", p + "sp-ttl", "a", "1")
    x(r, "SP.WRITE", p + "sp-ttl", "b", "2", "EX", 3000)
    expect(x(r, "EXPIRE", p + "sp-ttl", 3500), 1, "EXPIRE on a scratchpad")
    x(r, "SP.WRITE", p + "sp-ren", "e", "renamed")
    x(r, "RENAME", p + "sp-ren", p + "sp-renamed")
    expect(x(r, "COPY", ns, p + "sp-copy"), 1, "COPY of a scratchpad")
    x(r, "SP.WRITE", p + "sp-copy", "plan", "the copy differs")
    expect(x(r, "COPY", ns, p + "sp-copydb", "DB", 9), 1, "COPY of a scratchpad DB 9")
    x(r, "SP.WRITE", p + "sp-mv", "e", "moved")
    expect(x(r, "MOVE", p + "sp-mv", 9), 1, "MOVE of a scratchpad")
    x(r, "SP.WRITE", p + "sp-del", "e", "deleted")
    x(r, "DEL", p + "sp-del")
    x(r, "SP.WRITE", p + "sp-last", "only", "x")
    x(r, "SP.DEL", p + "sp-last", "only")  # the key goes with its last entry
    x(r, "SET", p + "sp-replaced", "string first")
    x(r, "SP.WRITE", p + "sp-over", "e", "scratchpad first")
    x(r, "SET", p + "sp-over", "SET replaces a scratchpad")
    return names


def write_transactions(srv, p):
    """MULTI/EXEC: one in db 0, one with SELECT inside, one with a failing command."""
    c = client(srv, single_connection_client=True)
    try:
        pipe = c.pipeline(transaction=True)
        pipe.execute_command("SET", p + "tx1", "a")
        pipe.execute_command("INCRBY", p + "tx2", 5)
        pipe.execute_command("SP.WRITE", p + "txsp", "log", "in a transaction\n")
        pipe.execute_command("SP.APPEND", p + "txsp", "log", "second\n")
        pipe.execute_command("EXPIRE", p + "tx1", 1700)
        res = pipe.execute()
        expect(res, [b"OK", 5, 1, 24, 1], "EXEC")
        pipe = c.pipeline(transaction=True)
        pipe.execute_command("SET", p + "txdb", "in db 0")
        pipe.execute_command("SELECT", 5)
        pipe.execute_command("SET", p + "txdb", "in db 5")
        pipe.execute_command("SP.WRITE", p + "txsp5", "e", "db 5", "PX", 1800000)
        pipe.execute_command("SELECT", 6)
        pipe.execute_command("INCR", p + "txdb6")
        res = pipe.execute()
        expect(res[-1], 1, "EXEC with SELECT inside")
        c.execute_command("SELECT", 0)
        # a transaction that EXEC refuses (a watched key changed): nothing happens
        c.execute_command("SET", p + "watched", "before")
        c.execute_command("WATCH", p + "watched")
        other = client(srv)
        other.execute_command("SET", p + "watched", "changed by another client")
        other.close()
        c.execute_command("MULTI")
        c.execute_command("SET", p + "watched", "from the aborted transaction")
        c.execute_command("SET", p + "aborted", "never")
        expect(c.execute_command("EXEC"), None, "EXEC after a watched key changed")
        pipe = c.pipeline(transaction=True)
        pipe.execute_command("SET", p + "txerr", "not a number")
        pipe.execute_command("INCR", p + "txerr")
        pipe.execute_command("SET", p + "txafter", "after the error")
        res = pipe.execute(raise_on_error=False)
        assert isinstance(res[1], ResponseError) and res[2] == b"OK", res
    finally:
        c.close()


def write_databases(srv, p):
    """Writes in other databases, FLUSHDB of one, SWAPDB of two."""
    for db in (2, 3, 4):
        r = client(srv, db)
        x(r, "SET", p + "db%d" % db, "value in db %d" % db, "EX", 1000 + db)
        x(r, "SP.WRITE", p + "spdb%d" % db, "e", "entry in db %d" % db)
        r.close()
    r = client(srv, 4)
    x(r, "SET", p + "flushed", "x")
    expect(x(r, "FLUSHDB"), b"OK", "FLUSHDB")
    x(r, "SET", p + "afterflush", "written after FLUSHDB")
    r.close()
    r = client(srv, 0)
    expect(x(r, "SWAPDB", 2, 3), b"OK", "SWAPDB")
    r.close()
    r = client(srv, 2)
    x(r, "APPEND", p + "db3", " (now in db 2)")  # was db 3's key
    r.close()


def write_huge_strings(r, p):
    """Strings over 1 MB (compressed in the background), changed afterwards."""
    x(r, "SET", p + "huge1", HUGE_STRING)
    x(r, "SET", p + "huge2", HUGE_STRING[::-1], "EX", 4000)
    x(r, "SET", p + "huge3", HUGE_STRING)
    # give the background compression a chance to run, then change them
    poll(lambda: x(r, "OBJECT", "ENCODING", p + "huge1") == b"lz4", "huge1 to be compressed", timeout=10)
    x(r, "APPEND", p + "huge1", b"\nappended after compression\n")
    x(r, "SETRANGE", p + "huge3", 1000000, b"SETRANGE in the middle")


def mixed_workload(srv, p=""):
    """Every write command, in several databases. Returns the offload names."""
    for db in (0, 3, 15):  # written, then wiped by FLUSHALL
        r = client(srv, db)
        x(r, "SET", p + "flushall", "x", "EX", 100)
        x(r, "SP.WRITE", p + "flushall-sp", "e", "x")
        r.close()
    r = client(srv)
    expect(x(r, "FLUSHALL"), b"OK", "FLUSHALL")
    x(r, "SET", p + "afterflushall", "y")
    r.close()
    r = client(srv, 15)
    x(r, "SET", p + "db15", "the last database", "PX", 1700000)
    r.close()
    r = client(srv)
    write_strings(r, p + "s:")
    write_keys(r, p + "k:")
    names = write_scratchpads(r, p + "p:")
    write_huge_strings(r, p + "h:")
    r.close()
    r = client(srv, 1)
    x(r, "SET", p + "db1:str", "in db 1")
    write_keys(r, p + "k1:")
    r.close()
    write_transactions(srv, p + "t:")
    write_databases(srv, p + "d:")
    return names


def self_check_compare(d):
    """compare_dumps sees a changed value, content, stat field, expiry, a
    missing key and a missing entry (so an equality it reports means something)."""
    import copy
    expect(compare_dumps(d, copy.deepcopy(d)), [], "a dump compared with its copy")
    changes = [
        lambda c: c[0][b"s:plain"].__setitem__("value", b"v2"),
        lambda c: c[0][b"s:ex"].__setitem__("expire_at", c[0][b"s:ex"]["expire_at"] + 2 * TTL_TOLERANCE_MS),
        lambda c: c[0][b"s:ex"].__setitem__("expire_at", -1),
        lambda c: c[0].pop(b"s:plain"),
        lambda c: c[0][b"p:sp"]["entries"].pop(b"plan"),
        lambda c: c[0][b"p:sp"]["entries"][b"big"].__setitem__("content", b"x"),
        lambda c: c[0][b"p:sp"]["entries"][b"plan"]["stat"].__setitem__(b"version", 99),
        lambda c: c[0][b"p:sp"]["entries"][b"plan"]["meta"].__setitem__(b"updated", 1),
        lambda c: c[0][b"p:sp"]["entries"][b"ex"].__setitem__("expire_at", -1),
        lambda c: c[0][b"p:sp"].__setitem__("type", b"string"),
    ]
    for i, change in enumerate(changes):
        c = copy.deepcopy(d)
        change(c)
        assert compare_dumps(d, c), "compare_dumps missed change #%d" % i


def check_nontrivial(d):
    keys, entries = dump_size(d)
    assert keys >= 80 and entries >= 20 and len(d) >= 6, \
        "the dump is smaller than the workload: %d keys, %d entries, dbs %r" % (keys, entries, sorted(d))


# ---------------------------------------------------------------------------
# Cases.


def case_mixed():
    with Srv() as srv:
        mixed_workload(srv)
        before = dump_dataset(srv.port)
        check_nontrivial(before)
        self_check_compare(before)
        # spot checks: the dump says what the workload did
        s = before[0]
        assert abs(float(s[b"s:float"]["value"]) - 1000.3) < 1e-9, s[b"s:float"]
        assert s[b"s:keepttl"]["expire_at"] > 0, "SET KEEPTTL lost the TTL"
        expect(s[b"s:dropttl"]["expire_at"], -1, "SET dropped the TTL")
        assert b"k:past1" not in s and b"k:past4" not in s, "EXPIRE in the past left the key"
        expect(sorted(s[b"p:sp"]["entries"]).count(b"obs-1"), 1, "offloaded entry")
        expect(before[5][b"t:txdb"]["value"], b"in db 5", "SET after SELECT in EXEC")
        expect(before[2][b"d:db3"]["value"], b"value in db 3 (now in db 2)", "SWAPDB")
        expect(sorted(before[4]), [b"d:afterflush"], "FLUSHDB")
        assert not [k for d in before.values() for k in d if k.startswith(b"flushall")] \
            and sorted(before[15]) == [b"db15"], "FLUSHALL left keys"
        assert b"t:watched" in s and b"t:aborted" not in s, "WATCH/EXEC"
        expect(s[b"t:watched"]["value"], b"changed by another client", "the aborted EXEC changed nothing")
        assert b"s:bin\x00key\r\n\xff" in s and s[b"s:empty"]["value"] == b"", "binary key, empty value"
        status = stop_keep_dir(srv)
        expect(status, 0, "exit status after SIGTERM")
        srv.start()
        after = dump_dataset(srv.port)
        assert_same(before, after)
        r = client(srv)
        # the SP.OFFLOAD counters continue: obs-1 and tool/grep-1 were taken
        # (tool/grep-1 deleted since), so the next obs name is obs-2
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-2", "the first SP.OFFLOAD name after the restart")
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp-off", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-3", "SP.OFFLOAD after its earlier entries were deleted")
        # a second restart (a log that now holds the replayed state plus this) is still equal
        mid = dump_dataset(srv.port)
        r.close()
        srv.restart()
        assert_same(mid, dump_dataset(srv.port), what="after the second restart")


def case_rewrite():
    with Srv() as srv:
        mixed_workload(srv)
        r = client(srv)
        m0 = read_manifest(srv)
        reply = x(r, "BGREWRITEAOF")
        assert b"rewriting started" in reply, reply
        # writes while the child may still be writing the base: they go to the new incr
        during = r.pipeline(transaction=False)
        for i in range(200):
            during.execute_command("SET", "during:%d" % i, i)
            during.execute_command("SP.APPEND", "during:sp", "log", "line %d\n" % i)
        during.execute_command("SET", "h:huge2", HUGE_STRING[:2000000:2], "KEEPTTL")
        during.execute()
        wait_rewrite_done(r, 1)
        m1 = check_manifest_clean(srv)
        old = set(n for n, _, _ in m0)
        assert not (old & set(n for n, _, _ in m1)), "the new manifest %r still names old files %r" % (m1, m0)
        # more writes after the rewrite, on keys from before and new ones
        x(r, "SET", "after:1", "after the rewrite", "EX", 1900)
        x(r, "APPEND", "s:append", "!")
        x(r, "DEL", "s:plain")
        x(r, "SP.APPEND", "p:sp", "log", "after rewrite\n")
        x(r, "SP.EDIT", "p:sp", "big", "TAIL LINE", "tail after rewrite")
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-2", "SP.OFFLOAD name after the rewrite")
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp-off", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-3", "SP.OFFLOAD name after the rewrite, earlier entries deleted")
        x(r, "SP.PEXPIRE", "p:sp", "plan", 1950000)
        x(r, "INCRBYFLOAT", "s:float", "1.5")
        x(r, "SWAPDB", 7, 8)
        x(r, "APPEND", "h:huge1", "more")
        before = dump_dataset(srv.port)
        check_nontrivial(before)
        r.close()
        srv.restart()
        after = dump_dataset(srv.port)
        assert_same(before, after)
        check_manifest_clean(srv)
        r = client(srv)
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-3", "SP.OFFLOAD name after rewrite and restart")
        reply = _pairs(x(r, "SP.OFFLOAD", "p:sp-off", BIG_APPEND[:5000]))
        expect(reply[b"name"], b"obs-4", "SP.OFFLOAD name after rewrite and restart, earlier entries deleted")
        r.close()


def case_kill9():
    with Srv("--appendfsync", "everysec") as srv:
        mixed_workload(srv)
        before = dump_dataset(srv.port)
        r = client(srv)
        # a burst of acknowledged writes, then a crash right after the last reply
        pipe = r.pipeline(transaction=False)
        for i in range(500):
            pipe.execute_command("INCR", "burst:counter")
            pipe.execute_command("SP.APPEND", "burst:sp", "log", "line %d\n" % i)
        res = pipe.execute()
        expect(res[-2:], [500, sum(len("line %d\n" % i) for i in range(500))], "burst replies")
        tx = r.pipeline(transaction=True)
        tx.execute_command("SET", "burst:tx1", "a")
        tx.execute_command("SET", "burst:tx2", "b")
        tx.execute_command("SET", "burst:last", HUGE_STRING[:300000])
        expect(tx.execute(), [b"OK", b"OK", b"OK"], "EXEC")
        r.close()
        srv.kill9()
        srv.start()
        after = dump_dataset(srv.port)
        r = client(srv)
        burst = [b"burst:counter", b"burst:sp", b"burst:tx1", b"burst:tx2", b"burst:last"]
        assert_same(before, after, ignore_keys=[(0, k) for k in burst], what="after kill -9")
        expect(r.get("burst:counter"), b"500", "INCR count after kill -9")
        stat = _pairs(x(r, "SP.STAT", "burst:sp", "log"))
        expect((stat[b"version"], stat[b"lines"]), (500, 500), "SP.APPEND count after kill -9")
        expect(r.mget("burst:tx1", "burst:tx2"), [b"a", b"b"], "transaction after kill -9")
        expect(r.get("burst:last"), HUGE_STRING[:300000], "last write after kill -9")
        i = info_persistence(r)
        expect(i["aof_last_load_truncated_bytes"], "0", "bytes dropped at load")
        r.close()


def case_expire_while_down():
    with Srv() as srv:
        r = client(srv)
        t_set = time.time()
        x(r, "SET", "short", "v", "PX", 1000)
        x(r, "SET", "long", "v", "PX", 600000)
        x(r, "SETEX", "short2", 1, "v")
        x(r, "SET", "shortat", "v", "PXAT", int(t_set * 1000) + 1000)
        x(r, "SP.WRITE", "ns", "short", "gone soon", "PX", 1000)
        x(r, "SP.WRITE", "ns", "long", "stays", "EX", 600)
        x(r, "SP.WRITE", "ns", "forever", "stays")
        x(r, "SP.WRITE", "ns-all-short", "only", "gone soon", "PX", 1000)  # the key goes with it
        x(r, "SP.WRITE", "ns-key-ttl", "e", "stays", "EX", 600)
        x(r, "PEXPIRE", "ns-key-ttl", 1000)  # the whole scratchpad expires
        # keys that expire while the server runs and are then recreated
        x(r, "SET", "re:append", "old", "PX", 50)
        x(r, "SET", "re:incr", "41", "PX", 50)
        x(r, "SET", "re:setrange", "oldvalue", "PX", 50)
        x(r, "SET", "re:getset", "old", "PX", 50)
        x(r, "SET", "re:set", "old", "PX", 50)
        x(r, "SET", "re:probe", "p", "PX", 50)
        x(r, "SP.WRITE", "re:sp", "e", "old content", "PX", 50)
        x(r, "SP.WRITE", "re:sp", "keep", "k")
        x(r, "SP.WRITE", "re:sp2", "e", "old", "PX", 50)
        # wait until a probe with the same lifetime is gone (the others are not touched)
        poll(lambda: x(r, "EXISTS", "re:probe") == 0, "the 50 ms keys to expire", timeout=5)
        expect(x(r, "APPEND", "re:append", "x"), 1, "APPEND recreates an expired key")
        expect(x(r, "INCR", "re:incr"), 1, "INCR on an expired key")
        expect(x(r, "SETRANGE", "re:setrange", 2, "ab"), 4, "SETRANGE on an expired key")
        expect(x(r, "GETSET", "re:getset", "new"), None, "GETSET on an expired key")
        expect(x(r, "SET", "re:set", "new", "NX"), b"OK", "SET NX on an expired key")
        expect(x(r, "SP.APPEND", "re:sp", "e", "new"), 3, "SP.APPEND recreates an expired entry")
        expect(x(r, "SP.WRITE", "re:sp2", "e", "new", "NX"), 1, "SP.WRITE NX on an expired entry")
        deadline_ms = t_set * 1000 + 1000  # every short lifetime ends by then
        if time.time() * 1000 < deadline_ms - 300:  # (not racy: still alive now)
            expect(x(r, "EXISTS", "short", "short2", "shortat", "ns-all-short", "ns-key-ttl"), 5,
                   "short-lived keys before the stop")
            expect(x(r, "SP.READ", "ns", "short"), b"gone soon", "short-lived entry before the stop")
        stop_keep_dir(srv)
        # the server is down: wait until the short lifetimes have ended
        while time.time() * 1000 < deadline_ms + 100:
            time.sleep(0.02)
        srv.start()
        r.close()
        r = client(srv)
        for k in ("short", "short2", "shortat", "ns-all-short", "ns-key-ttl"):
            expect(x(r, "EXISTS", k), 0, "key %s after it expired while the server was down" % k)
        expect(x(r, "SP.READ", "ns", "short"), None, "entry that expired while down")
        expect(x(r, "SP.PTTL", "ns", "short"), -2, "SP.PTTL of the expired entry")
        expect(sorted(x(r, "SP.LIST", "ns")[1]), [b"forever", b"long"], "entries left")
        expect(x(r, "GET", "long"), b"v", "a key with a long TTL")
        assert 500000 < x(r, "PTTL", "long") <= 600000, x(r, "PTTL", "long")
        expect(x(r, "GET", "re:append"), b"x", "recreated by APPEND")
        expect(x(r, "GET", "re:incr"), b"1", "recreated by INCR")
        expect(x(r, "GET", "re:setrange"), b"\x00\x00ab", "recreated by SETRANGE")
        expect(x(r, "GET", "re:getset"), b"new", "recreated by GETSET")
        expect(x(r, "GET", "re:set"), b"new", "recreated by SET NX")
        for k in ("re:append", "re:incr", "re:setrange", "re:getset", "re:set"):
            expect(x(r, "PTTL", k), -1, "TTL of recreated key %s" % k)
        expect(x(r, "SP.READ", "re:sp", "e"), b"new", "entry recreated by SP.APPEND")
        expect(_pairs(x(r, "SP.STAT", "re:sp", "e"))[b"version"], 1, "version of the recreated entry")
        expect(x(r, "SP.PTTL", "re:sp", "e"), -1, "SP.PTTL of the recreated entry")
        expect(x(r, "SP.READ", "re:sp2", "e"), b"new", "entry recreated by SP.WRITE NX")
        # and one more restart changes nothing
        before = dump_dataset(srv.port)
        expect(sorted(before[0]), sorted([b"long", b"ns", b"re:append", b"re:incr", b"re:setrange",
                                          b"re:getset", b"re:set", b"re:sp", b"re:sp2"]), "keys after the restart")
        r.close()
        srv.restart()
        assert_same(before, dump_dataset(srv.port), what="after the second restart")


def case_appendonly_switch():
    with Srv() as srv:
        r = client(srv)
        x(r, "SET", "before:off", "1")
        x(r, "SP.WRITE", "sp", "before-off", "written with the log on")
        expect(x(r, "CONFIG", "SET", "appendonly", "no"), b"OK", "CONFIG SET appendonly no")
        poll(lambda: info_persistence(r).get("aof_enabled") == "0", "aof_enabled:0")
        expect(x(r, "CONFIG", "GET", "appendonly"), [b"appendonly", b"no"], "CONFIG GET appendonly")
        x(r, "SET", "while:off", "2", "EX", 1000)
        x(r, "INCRBYFLOAT", "while:float", "2.5")
        x(r, "SP.WRITE", "sp", "while-off", BIG_TEXT[:80000])
        x(r, "SP.OFFLOAD", "sp", BIG_APPEND[:5000])
        x(r, "DEL", "before:off")
        x(r, "SET", "huge", HUGE_STRING)
        rewrites = int(info_persistence(r)["aof_rewrites"])
        expect(x(r, "CONFIG", "SET", "appendonly", "yes"), b"OK", "CONFIG SET appendonly yes")
        wait_rewrite_done(r, rewrites + 1)
        expect(info_persistence(r)["aof_enabled"], "1", "aof_enabled after appendonly yes")
        m = read_manifest(srv)
        expect([t for _, _, t in m], ["base", "incr"], "manifest after appendonly yes")
        x(r, "SET", "after:on", "3")
        x(r, "SP.APPEND", "sp", "while-off", "appended with the log on\n")
        for policy in ("always", "no", "everysec"):
            expect(x(r, "CONFIG", "SET", "appendfsync", policy), b"OK", "CONFIG SET appendfsync " + policy)
            expect(x(r, "CONFIG", "GET", "appendfsync"), [b"appendfsync", policy.encode()],
                   "CONFIG GET appendfsync")
            expect(info_persistence(r)["aof_fsync"], policy, "INFO aof_fsync")
            x(r, "SET", "policy:" + policy, policy)
            x(r, "SP.APPEND", "sp", "policies", policy + "\n")
        try:
            x(r, "CONFIG", "SET", "appendfsync", "sometimes")
            raise AssertionError("CONFIG SET appendfsync sometimes was accepted")
        except ResponseError:
            pass
        expect(x(r, "CONFIG", "GET", "appendfsync"), [b"appendfsync", b"everysec"], "appendfsync after a refused value")
        before = dump_dataset(srv.port)
        keys, _ = dump_size(before)
        assert keys == 8, "expected 8 keys before the restart, dump has %d: %r" % (keys, sorted(before.get(0, {})))
        r.close()
        srv.restart()
        assert_same(before, dump_dataset(srv.port))
        check_manifest_clean(srv)


def case_appendonly_switch_files():
    with Srv() as srv:
        r = client(srv)
        x(r, "SET", "a", "1")
        first = log_files(srv)
        x(r, "CONFIG", "SET", "appendonly", "no")
        x(r, "SET", "b", "2")
        x(r, "CONFIG", "SET", "appendonly", "yes")
        wait_rewrite_done(r, 1)
        m = check_manifest_clean(srv)
        assert not set(first) & set(n for n, _, _ in m), (first, m)
        expect(r.mget("a", "b"), [b"1", b"2"], "values")
        r.close()


def case_info_and_off():
    with Srv() as srv:
        r = client(srv)
        for i in range(50):
            x(r, "SET", "k%d" % i, i)
        x(r, "SP.WRITE", "sp", "e", "x")
        r.close()
        srv.restart()
        r = client(srv)
        i = info_persistence(r)
        expect(i["aof_enabled"], "1", "aof_enabled after restart")
        assert int(i["aof_last_load_records"]) >= 51, "aof_last_load_records %s" % i["aof_last_load_records"]
        expect(i["aof_last_load_truncated_bytes"], "0", "aof_last_load_truncated_bytes")
        expect(i["aof_last_write_status"], "ok", "aof_last_write_status")
        expect(x(r, "DBSIZE"), 51, "DBSIZE after restart")
        r.close()
    with Srv("--appendonly", "no") as srv:
        r = client(srv)
        expect(info_persistence(r)["aof_enabled"], "0", "aof_enabled with --appendonly no")
        x(r, "SET", "k", "v")
        x(r, "SP.WRITE", "sp", "e", "x")
        expect(x(r, "DBSIZE"), 2, "DBSIZE before restart")
        r.close()
        srv.restart()
        r = client(srv)
        expect(x(r, "DBSIZE"), 0, "DBSIZE after a restart with --appendonly no")
        i = info_persistence(r)
        expect((i["aof_enabled"], i["aof_last_load_records"]), ("0", "0"), "INFO with --appendonly no")
        r.close()
        assert not os.path.exists(data_dir(srv)), "--appendonly no created %s: %r" % (
            data_dir(srv), os.listdir(data_dir(srv)))


def case_dir_in_use():
    with Srv() as srv:
        r = client(srv)
        x(r, "SET", "mine", "first server")
        port = spserver.free_port()
        proc = subprocess.Popen([spserver.server_binary(), "--port", str(port), "--bind", "127.0.0.1"],
                                cwd=srv.dir, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=10)
            raise AssertionError("the second server on the same directory did not exit")
        text = out.decode(errors="replace")
        assert proc.returncode not in (0, None), "second server exited %r:\n%s" % (proc.returncode, text)
        assert re.search(r"in use", text), "the second server's log does not say the directory is in use:\n" + text
        assert "scratchpad" in text and "data" in text, text
        # the first server goes on, with its log intact
        expect(x(r, "GET", "mine"), b"first server", "first server after the refusal")
        x(r, "SET", "mine2", "still logging")
        r.close()
        srv.restart()
        r = client(srv)
        expect(r.mget("mine", "mine2"), [b"first server", b"still logging"], "after restart")
        r.close()


def main():
    t0 = time.monotonic()
    rep = spserver.Reporter()
    rep.case("a mixed workload of every write command (strings, keys, databases, transactions, "
             "scratchpads, large compressed values) is equal after a SIGTERM restart, and "
             "SP.OFFLOAD names continue", case_mixed)
    rep.case("after BGREWRITEAOF and more writes a restart gives the same dataset; the manifest "
             "names one base and the incr files, and the old files are removed", case_rewrite)
    rep.case("with appendfsync everysec, kill -9 loses no acknowledged write", case_kill9)
    rep.case("keys and entries that expire while the server is down are gone after restart; keys "
             "recreated after expiring come back with their new value", case_expire_while_down)
    rep.case("appendonly no, writes, appendonly yes (rewrite), writes: the restart brings back "
             "everything; appendfsync always/no/everysec are accepted at run time", case_appendonly_switch)
    rep.case("after CONFIG SET appendonly no / yes the files of the previous log are removed once the "
             "new base is written (not only at the next start)", case_appendonly_switch_files)
    rep.case("INFO persistence after restart shows aof_enabled:1 and the records loaded; with "
             "--appendonly no a restart starts empty and no data directory is made", case_info_and_off)
    rep.case("a second server on the same directory refuses to start and says the directory is in use",
             case_dir_in_use)
    print("# %.1f s" % (time.monotonic() - t0))
    rep.finish()


if __name__ == "__main__":
    main()
