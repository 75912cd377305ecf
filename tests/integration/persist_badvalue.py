"""persist_badvalue.py -- a compressed value damaged in memory never reaches a
rewritten log, and a log that holds one anyway is loaded on the operator's terms
(issue 19, part 2).

`DEBUG LZ4-CORRUPT key [entry] chunk` damages the stored bytes of one chunk in
memory, without touching the checksums the value keeps of them (server/lzval.h,
lzval_chunk_verify), as a memory error or a bug would. Then:

- a rewrite (BGREWRITEAOF, in both aof-rewrite-mode fork and incremental) that
  meets the value fails, naming the key, the entry and the chunk in the log,
  leaving aof_last_bgrewrite_status:err, the old log in place and the server
  serving; a restart after SHUTDOWN loads every key, the damaged entry as it was
  written (the issue's reproduction: before the checksums the rewrite succeeded
  and the restart refused the log, "a compressed value does not decode");
- a log that holds an intact record (its CRC good) whose value does not decode
  (written by a server without the checksums, made here with the check tool's
  test fixture writer) is told apart from a record whose bytes are damaged:
  the server refuses to start naming the key and the entry, and with
  aof-load-bad-values skip starts without just that entry (a later _SPAPPEND to
  it is left out too), logging each one it left out, counted in
  INFO persistence aof_last_load_bad_values.

Servers on free ports in temporary directories, stopped by PID."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import spserver  # noqa: E402
from persist_restart import info_persistence, read_manifest  # noqa: E402

PLAN = "".join("step %d: call tool %s with args {\"n\": %d}; result ok\n" % (i, "abcdefgh"[i % 8], i * 7)
               for i in range(20000)).encode()


def client(srv):
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    r.response_callbacks = {}
    return r


def data_dir(srv):
    return os.path.join(srv.dir, "data")


def wait_rewrite_end(r, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        i = info_persistence(r)
        if i.get("aof_rewrite_in_progress") == "0" and i.get("aof_rewrite_scheduled", "0") == "0":
            return i
        time.sleep(0.05)
    raise AssertionError("the rewrite did not end in %.0f s" % timeout)


def files_of(srv):
    """{name: bytes} of every log file the manifest names."""
    out = {}
    for name, _, _ in read_manifest(srv):
        with open(os.path.join(data_dir(srv), name), "rb") as f:
            out[name] = f.read()
    return out


def fill(r):
    r.execute_command("SP.WRITE", "agentA", "plan", PLAN)
    r.execute_command("SP.WRITE", "agentA", "notes", "short notes")
    r.execute_command("SP.WRITE", "agentB", "plan", PLAN[:200000])
    r.execute_command("SET", "k1", "v1")
    r.execute_command("SET", "big", PLAN[:150000])


def check_all(r):
    assert r.execute_command("SP.READ", "agentA", "plan") == PLAN
    assert r.execute_command("SP.READ", "agentA", "notes") == b"short notes"
    assert r.execute_command("SP.READ", "agentB", "plan") == PLAN[:200000]
    assert r.execute_command("GET", "k1") == b"v1"
    assert r.execute_command("GET", "big") == PLAN[:150000]


def rewrite_refuses_damaged_value(mode):
    with spserver.Server("--aof-rewrite-mode", mode) as srv:
        r = client(srv)
        fill(r)
        assert r.execute_command("DEBUG", "LZ4-CORRUPT", "agentA", "plan", 0) == b"OK"
        before_manifest = read_manifest(srv)
        before = files_of(srv)
        r.execute_command("BGREWRITEAOF")
        i = wait_rewrite_end(r)
        assert i["aof_last_bgrewrite_status"] == "err", i
        log = open(srv.log_path, "rb").read().decode(errors="replace")
        assert re.search(r"key 'agentA' \(db 0\), entry 'plan', chunk 0 of \d+ \(sub-block \d+\): its stored "
                         r"bytes fail their checksum", log), srv.log_tail()
        # The old log stays: the same files, their bytes as they were (the incr may have grown
        # by nothing: no write since).
        assert read_manifest(srv)[:len(before_manifest)] == before_manifest
        after = files_of(srv)
        for name, data in before.items():
            assert after[name][:len(data)] == data, name
        assert not [f for f in os.listdir(data_dir(srv)) if f.endswith(".tmp")]
        # Serving: reads of other keys, writes.
        assert r.execute_command("PING") == b"PONG"
        assert r.execute_command("GET", "k1") == b"v1"
        r.execute_command("SET", "k2", "after")
        try:
            r.execute_command("SP.READ", "agentA", "plan")
            raise AssertionError("the damaged entry read without an error")
        except redis.ResponseError as e:
            assert "corrupt" in str(e).lower(), e
        # SHUTDOWN and start again: every key, the damaged entry as it was written.
        srv.restart()
        r = client(srv)
        check_all(r)
        assert r.execute_command("GET", "k2") == b"after"
        # A rewrite now succeeds and its restart has everything too.
        r.execute_command("BGREWRITEAOF")
        assert wait_rewrite_end(r)["aof_last_bgrewrite_status"] == "ok"
        srv.restart()
        check_all(client(srv))


def rewrite_refuses_damaged_string(mode):
    with spserver.Server("--aof-rewrite-mode", mode) as srv:
        r = client(srv)
        fill(r)
        assert r.execute_command("DEBUG", "LZ4-CORRUPT", "big", 1) == b"OK"
        r.execute_command("BGREWRITEAOF")
        i = wait_rewrite_end(r)
        assert i["aof_last_bgrewrite_status"] == "err", i
        log = open(srv.log_path, "rb").read().decode(errors="replace")
        assert re.search(r"key 'big' \(db 0\), chunk 1 of \d+", log), srv.log_tail()
        srv.restart()
        check_all(client(srv))


def crc32c(data, _t=[]):
    if not _t:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            _t.append(c)
    c = 0xFFFFFFFF
    for x in data:
        c = _t[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def spoil_value(path, marker, fix_crc):
    """Spoil the first LZ4 block of the first record holding marker (an entry
    name) in log file path, as DEBUG LZ4-CORRUPT does, then recompute the
    record's CRC (fix_crc: an intact record holding a bad value) or not (a
    damaged record). Returns the record's offset."""
    buf = bytearray(open(path, "rb").read())
    off = 32
    while off + 8 <= len(buf):
        n = int.from_bytes(buf[off:off + 4], "little")
        payload = buf[off + 8:off + 8 + n]
        if marker in payload and b"\x04\x22\x4d\x18" in payload:
            f = off + 8 + payload.index(b"\x04\x22\x4d\x18")
            hl = 11 if buf[f + 4] & 1 else 7
            size = int.from_bytes(buf[f + hl:f + hl + 4], "little")
            assert not size & 0x80000000, "the first block is raw"
            if buf[f + 4] & 1:  # a dictionary frame: its first block is the raw dictionary
                f += size & 0x7FFFFFFF + 4
                size = int.from_bytes(buf[f + hl:f + hl + 4], "little")
            for i in range(f + hl + 4, f + hl + 4 + size):
                buf[i] = 0xFF
            if fix_crc:
                buf[off + 4:off + 8] = crc32c(bytes(buf[off + 8:off + 8 + n])).to_bytes(4, "little")
            open(path, "wb").write(bytes(buf))
            return off
        off += 8 + n
    raise AssertionError("no record holds %r" % marker)


def incr_path(srv):
    incr = [n for n, _, t in read_manifest(srv) if t == "incr"]
    return os.path.join(data_dir(srv), incr[-1])


def make_log(srv):
    r = client(srv)
    fill(r)
    r.execute_command("SP.APPEND", "agentA", "plan", "one more step\n")
    r.execute_command("SP.EXPIRE", "agentA", "plan", 100000)
    r.execute_command("SET", "k3", "last")


def own_server(*args):
    """A server in a directory of the test's own, kept when a start fails."""
    return spserver.Server(*args, workdir=tempfile.mkdtemp(prefix="sp-test-"))


def loader_tells_bad_value_from_damaged_record():
    srv = own_server()
    srv.start()
    try:
        make_log(srv)
        srv._kill()
        off = spoil_value(incr_path(srv), b"plan", True)
        ok, log = srv.try_start()
        assert not ok, "started with a bad value"
        assert re.search(r"Bad value in the log: .*scratchpad\.aof\.\d+\.incr at offset %d: key 'agentA' \(db 0\), "
                         r"entry 'plan': a compressed value does not decode \(the record's CRC is good" % off, log), log
        assert "aof-load-bad-values skip" in log and "scratchpad-check-aof --fix" in log, log
        # The same bytes with the CRC left as it was: a damaged record, not a bad value.
        spoil_value(incr_path(srv), b"plan", False)  # spoils nothing new: only the CRC now differs
        buf = bytearray(open(incr_path(srv), "rb").read())
        buf[off + 4] ^= 0x01
        open(incr_path(srv), "wb").write(bytes(buf))
        ok, log = srv.try_start()
        assert not ok and "Bad value" not in log.split("Bad log:")[-1], log
        assert re.search(r"Bad log: .*at offset %d: CRC mismatch[^(]*\(corrupt\)" % off, log), log
    finally:
        srv.stop()
        shutil.rmtree(srv.dir, ignore_errors=True)


def skip_starts_without_just_that_entry():
    srv = own_server()
    srv.start()
    try:
        make_log(srv)
        srv._kill()
        spoil_value(incr_path(srv), b"plan", True)
        srv.restart("--aof-load-bad-values", "skip")
        r = client(srv)
        assert r.execute_command("SP.READ", "agentA", "notes") == b"short notes"
        assert r.execute_command("SP.READ", "agentB", "plan") == PLAN[:200000]
        assert r.execute_command("GET", "k1") == b"v1" and r.execute_command("GET", "k3") == b"last"
        assert r.execute_command("GET", "big") == PLAN[:150000]
        try:
            got = r.execute_command("SP.READ", "agentA", "plan")
        except redis.ResponseError:
            got = None
        assert got is None, "the left-out entry exists"
        i = info_persistence(r)
        assert i["aof_last_load_bad_values"] == "1" and i["aof_last_load_bad_effects"] == "2", i
        log = open(srv.log_path, "rb").read().decode(errors="replace")
        assert re.search(r"Left out of the load \(aof-load-bad-values skip\): .* key 'agentA' \(db 0\), entry 'plan'", log)
        assert re.search(r"Left out of the load .*_SPAPPEND of key 'agentA' \(db 0\), entry 'plan', which was left out",
                         log), log
        # Writing the entry again brings it back, through a restart too.
        r.execute_command("SP.WRITE", "agentA", "plan", "again")
        srv.restart("--aof-load-bad-values", "skip")
        assert client(srv).execute_command("SP.READ", "agentA", "plan") == b"again"
    finally:
        srv.stop()
        shutil.rmtree(srv.dir, ignore_errors=True)


def check_fix_drops_bad_value_alone():
    srv = own_server()
    srv.start()
    try:
        r = client(srv)
        fill(r)
        r.execute_command("SET", "k3", "last")
        srv._kill()
        spoil_value(incr_path(srv), b"plan", True)
        tool = os.environ.get("CHECK_AOF") or os.path.join(os.path.dirname(spserver.server_binary()),
                                                           "scratchpad-check-aof")
        p = subprocess.run([tool, "--fix", os.path.join(data_dir(srv), "scratchpad.manifest")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "BAD VALUE" in p.stdout and "every other record kept" in p.stdout, p.stdout
        srv.start()
        r = client(srv)
        assert r.execute_command("SP.READ", "agentA", "notes") == b"short notes"
        assert r.execute_command("SP.READ", "agentB", "plan") == PLAN[:200000]
        assert r.execute_command("GET", "k1") == b"v1" and r.execute_command("GET", "k3") == b"last"
        assert r.execute_command("GET", "big") == PLAN[:150000]
        assert r.execute_command("SP.READ", "agentA", "plan") is None
    finally:
        srv.stop()
        shutil.rmtree(srv.dir, ignore_errors=True)


def main():
    rep = spserver.Reporter()
    for mode in ("incremental", "fork"):
        rep.case("a rewrite (%s) that meets an entry damaged in memory fails naming the key, entry and chunk, "
                 "keeps the old log and serves; a restart has every key, the entry as written" % mode,
                 rewrite_refuses_damaged_value, mode)
        rep.case("a rewrite (%s) that meets a compressed string damaged in memory fails naming the key and chunk, "
                 "and a restart has every key" % mode, rewrite_refuses_damaged_string, mode)
    rep.case("the loader tells an intact record holding a value that does not decode (refused, naming the key, entry, "
             "file and offset, and both ways out) from a record whose CRC fails", loader_tells_bad_value_from_damaged_record)
    rep.case("aof-load-bad-values skip starts without just the bad entry and the later effects on it, logs each one, "
             "counts them in INFO; a later write brings the entry back", skip_starts_without_just_that_entry)
    rep.case("scratchpad-check-aof --fix drops the record holding the bad value alone: the server starts with every "
             "other key", check_fix_drops_bad_value_alone)
    rep.finish()


if __name__ == "__main__":
    main()
