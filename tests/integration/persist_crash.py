"""persist_crash.py -- crashes, torn tails and corruption of the append-only log.

Runs real scratchpad-servers (tests/lib/spserver.py) on free ports in temporary
directories and checks what the log guarantees (docs/aof.md):

1. Crash under load with `appendfsync always`: four client threads (redis-py,
   each on its own keys) loop over SET k, SP.APPEND ns log, SP.WRITE ns doc,
   noting every write whose reply arrived (acknowledged) and the one in flight.
   The server is killed with SIGKILL at a random moment (about 0.2 s, 0.7 s and
   1.5 s into the load; three rounds in the same directory), restarted, and then
   every acknowledged write is there: a SET key or an SP.WRITE entry holds its
   last acknowledged value or the one in flight (it may have been logged); an
   appended entry holds exactly the acknowledged appends, plus maybe the one in
   flight. The keys of earlier rounds are unchanged.
2. Crash during a rewrite: with about 30 MB of incompressible data (strings and
   scratchpad entries) and the load running, BGREWRITEAOF, SIGKILL while INFO
   says aof_rewrite_in_progress:1, restart: the dataset and every acknowledged
   write are there. A separate case: the restart is not refused for the
   directory lock (the rewrite child must not keep it), and the child dies with
   its server (it is not left writing its base). Then a new BGREWRITEAOF succeeds, a restart after it gives
   the same dataset (contents, versions, times, expiries), and the directory
   holds only the files the manifest names. Then SIGKILL right after a rewrite
   finished, restart: everything acknowledged is there.
3. Torn tail: after writes ending in a small `SET lastkey v`, the server stops
   (SIGTERM). For every byte offset strictly inside that last record, a copy of
   the directory with the last incr file cut there starts: every earlier record
   is there and lastkey is not, INFO says aof_last_load_truncated_bytes = the
   bytes of the torn record left, aof_last_load_records = the records before
   it, the file is cut back to the record's start, and the log names the file
   and offset. With --aof-load-truncated no a torn copy refuses to start (and
   is left as it was); the check tool exits 1 on it.
4. Corruption in the middle: one byte flipped in the payload of a record that is
   not the last: the server exits non-zero, its log names the file, the offset
   of the record and `scratchpad-check-aof --fix --truncate|--skip-record
   <dir>/scratchpad.manifest`; $CHECK_AOF on the manifest exits 1 naming the
   offset, and so does --fix alone (it does not guess); with --fix --truncate it
   exits 0, and the server then starts holding exactly the records before the
   damaged one.
5. A damaged manifest (garbage text, an unknown version) makes the server exit
   non-zero with a message naming the manifest. A manifest naming a missing
   file: the server exits non-zero naming the file, and if its log offers the
   repair command, that command must work.

Every wait is bounded; servers are stopped by PID; a rewrite child orphaned by a
SIGKILL is waited for (and SIGKILLed by PID after 5 s if it is still there).
"""

import hashlib
import os
import random
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

TOP = os.environ.get("TOP") or spserver.TOP
BUILD = os.environ.get("BUILD") or "build"
SEED = int(os.environ.get("SEED") or int(time.time() * 1000) % 1000000)
RNG = random.Random(SEED)
HEADER = 32          # bytes of a log file's header
TIMEOUT = 10         # s, socket operations and waits


# ---------------------------------------------------------------------------
# Helpers.


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def digest(b):
    return None if b is None else hashlib.sha1(b).hexdigest()


def short(v):
    """repr of a value, its end only when it is long."""
    if isinstance(v, (bytes, str)) and len(v) > 80:
        return "<%d bytes ending %r>" % (len(v), v[-40:])
    if isinstance(v, list):
        return "[" + ", ".join(short(x) for x in v) + "]"
    return repr(v)


def pairs(lst):
    """A RESP2 map (flat list) as a dict with str keys."""
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in zip(lst[0::2], lst[1::2])}


def dump(r):
    """The whole dataset of db 0: per key its type and contents (digests), the
    absolute expiry of strings, and per scratchpad entry its kind, size,
    version, creation and update times and whether it expires."""
    out = {}
    for k in r.scan_iter(count=1000):
        t = r.type(k)
        if t == b"string":
            out[k] = ("string", digest(r.get(k)), r.execute_command("PEXPIRETIME", k))
        elif t == b"scratchpad":
            entries = {}
            cursor = "0"
            while True:
                cur, items = r.execute_command("SP.LIST", k, "WITHMETA", "CURSOR", cursor)
                for it in items:
                    m = pairs(it)
                    content = r.execute_command("SP.READ", k, m["name"])
                    entries[m["name"]] = (digest(content), m["kind"], m["size"], m["version"], m["created"],
                                          m["updated"], m["ttl"] >= 0)
                if cur in (b"0", 0, "0"):
                    break
                cursor = cur
            out[k] = ("scratchpad", entries, r.execute_command("PEXPIRETIME", k))
        else:
            out[k] = (t.decode(), None, None)
    return out


def diff(got, want, limit=5):
    """A short description of how two dumps differ ('' if equal)."""
    lines = []
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            lines.append("  %r: got %r, want %r" % (k, got.get(k), want.get(k)))
            if len(lines) >= limit:
                lines.append("  ...")
                break
    return "\n".join(lines)


def info(r):
    return r.info("persistence")


def read_manifest(data_dir):
    """[(name, seq, type)] in replay order."""
    files = []
    with open(os.path.join(data_dir, "scratchpad.manifest")) as f:
        for line in f:
            w = line.split()
            if len(w) == 6 and w[0] == "file":
                files.append((w[1], int(w[3]), w[5]))
    return files


def records(path):
    """[(start offset, total length)] of the records of a log file (header skipped);
    the file must end on a record boundary."""
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], HEADER
    while off + 8 <= len(data):
        n = struct.unpack_from("<I", data, off)[0]
        out.append((off, 8 + n))
        off += 8 + n
    check(off == len(data), "%s: records end at %d, the file at %d" % (path, off, len(data)))
    return out


def last_incr(data_dir):
    files = read_manifest(data_dir)
    check(files and files[-1][2] == "incr", "the manifest's last file is an incr file: %r" % (files,))
    return files[-1][0]


def count_records(data_dir):
    return sum(len(records(os.path.join(data_dir, f[0]))) for f in read_manifest(data_dir))


def log_since(srv, pos):
    try:
        with open(srv.log_path, "rb") as f:
            f.seek(pos)
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def log_size(srv):
    try:
        return os.path.getsize(os.path.join(srv.dir, "server.log"))
    except OSError:
        return 0






def pid_alive(pid):
    """True if pid is a live (not zombie) scratchpad-server process."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        exe = os.readlink("/proc/%d/exe" % pid)
    except (OSError, IndexError):
        return False
    return state != "Z" and os.path.basename(exe).startswith("scratchpad-server")


def rewrite_child_pid(srv, pos=0):
    """The pid of the last rewrite child the server's log reports after pos."""
    pid = None
    for line in log_since(srv, pos).splitlines():
        if "rewriting started by pid" in line:
            try:
                pid = int(line.split("by pid", 1)[1].split()[0])
            except (ValueError, IndexError):
                pass
    return pid


def wait_gone(pid, timeout=20.0):
    """Wait for an orphaned rewrite child to exit; SIGKILL it (by pid, after
    checking it is a scratchpad-server) if it outlives the timeout."""
    if pid is None:
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.02)
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)
    return False


def wait_rewrite_done(r, before, timeout=30.0):
    """Poll INFO until a rewrite has finished (aof_rewrites > before and none in
    progress); returns the INFO."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        i = info(r)
        if i["aof_rewrite_in_progress"] == 0 and i["aof_rewrites"] > before:
            return i
        if i["aof_rewrite_in_progress"] == 0 and i["aof_last_bgrewrite_status"] != "ok":
            raise AssertionError("the rewrite failed: %r" % (i,))
        time.sleep(0.005)
    raise AssertionError("the rewrite did not finish within %.0f s" % timeout)


# ---------------------------------------------------------------------------
# The write load: one thread per client, each on its own keys.


class Worker(threading.Thread):
    """Loops SET <tag>:k<i>, SP.APPEND <tag>:ns<i> log, SP.WRITE <tag>:ns<i> doc
    until the connection breaks or stop is set. For each kind it keeps the last
    acknowledged value and the one in flight (sent, no reply yet)."""

    def __init__(self, port, tag, i):
        super().__init__(daemon=True)
        self.port = port
        self.key = ("%s:k%d" % (tag, i)).encode()
        self.ns = ("%s:ns%d" % (tag, i)).encode()
        self.set_acked = self.set_flight = None
        self.app_acked, self.app_flight = b"", None
        self.w_acked = self.w_flight = None
        self.acks = 0
        self.halt = threading.Event()
        self.problem = None    # an unexpected reply or error
        self.ended = None      # the connection error that ended the loop

    def run(self):
        try:
            r = client(self.port)
            j = 0
            while not self.halt.is_set():
                j += 1
                v = b"%s=%d" % (self.key, j)
                self.set_flight = v
                if r.set(self.key, v) is not True:
                    raise AssertionError("SET answered something else than OK")
                self.set_acked, self.set_flight = v, None
                self.acks += 1
                piece = b"<%d>" % j
                self.app_flight = piece
                n = r.execute_command("SP.APPEND", self.ns, "log", piece)
                if n != len(self.app_acked) + len(piece):
                    raise AssertionError("SP.APPEND answered %r, want %d" % (n, len(self.app_acked) + len(piece)))
                self.app_acked, self.app_flight = self.app_acked + piece, None
                self.acks += 1
                w = b"doc version %d of %s" % (j, self.ns)
                self.w_flight = w
                r.execute_command("SP.WRITE", self.ns, "doc", w)
                self.w_acked, self.w_flight = w, None
                self.acks += 1
        except (redis.ConnectionError, redis.TimeoutError, OSError) as e:
            self.ended = e
        except Exception as e:  # noqa: BLE001 -- reported by the case
            self.problem = "%s: %s" % (type(e).__name__, e)

    def verify(self, r):
        """Problems found in the restarted server's data ([] if none)."""
        bad = []
        got = r.get(self.key)
        ok = [self.set_acked] + ([self.set_flight] if self.set_flight is not None else [])
        if got not in ok:
            bad.append("GET %s = %s, want one of %s" % (self.key, short(got), short(ok)))
        got = r.execute_command("SP.READ", self.ns, "log")
        ok = [self.app_acked or None]
        if self.app_flight is not None:
            ok.append(self.app_acked + self.app_flight)
        if got not in ok:
            bad.append("SP.READ %s log = %s, want one of %s" % (self.ns, short(got), short(ok)))
        got = r.execute_command("SP.READ", self.ns, "doc")
        ok = [self.w_acked] + ([self.w_flight] if self.w_flight is not None else [])
        if got not in ok:
            bad.append("SP.READ %s doc = %s, want one of %s" % (self.ns, short(got), short(ok)))
        return bad


def start_load(port, tag, n=4):
    ws = [Worker(port, tag, i) for i in range(n)]
    for w in ws:
        w.start()
    return ws


def end_load(ws):
    """After the server died: join the threads; raise on an unexpected problem."""
    for w in ws:
        w.halt.set()
        w.join(TIMEOUT)
        check(not w.is_alive(), "a load thread did not stop within %d s" % TIMEOUT)
        check(w.problem is None, "a load thread met %s" % w.problem)


def verify_load(r, ws, what):
    bad = []
    for w in ws:
        check(w.acks > 0, "%s: thread %s had no write acknowledged before the kill" % (what, w.key))
        bad += w.verify(r)
    check(not bad, "%s: acknowledged writes missing after the restart:\n  %s" % (what, "\n  ".join(bad)))


def snapshot(r, ws):
    """The recovered values of a finished round, to check in later rounds."""
    return {w.key: (r.get(w.key), r.execute_command("SP.READ", w.ns, "log"),
                    r.execute_command("SP.READ", w.ns, "doc")) for w in ws}


def verify_snapshot(r, snap, what):
    for key, want in snap.items():
        ns = key.replace(b":k", b":ns")
        got = (r.get(key), r.execute_command("SP.READ", ns, "log"), r.execute_command("SP.READ", ns, "doc"))
        check(got == want, "%s: the data of an earlier round (%s) changed: got %s, want %s"
              % (what, key, short(list(got)), short(list(want))))


def kill_at(srv, ws, seconds):
    """Let the load run `seconds` (plus up to 50 ms of jitter), then SIGKILL."""
    time.sleep(seconds + RNG.uniform(0, 0.05))
    for w in ws:
        check(w.is_alive(), "load thread %s is still running at the kill (%s)" % (w.key, w.problem or w.ended))
    srv.kill9()
    end_load(ws)


# ---------------------------------------------------------------------------
# 1. Crash under load with appendfsync always.


def t_crash_always(tmp):
    d = os.path.join(tmp, "crash")
    os.mkdir(d)
    srv = spserver.Server("--appendfsync", "always", workdir=d)
    try:
        srv.start()
        snaps = {}
        for rnd, at in enumerate((0.2, 0.7, 1.5)):
            ws = start_load(srv.port, "c1r%d" % rnd)
            kill_at(srv, ws, at)
            srv.start()
            r = client(srv.port)
            what = "round %d (kill after %.1f s)" % (rnd, at)
            verify_load(r, ws, what)
            verify_snapshot(r, snaps, what)
            snaps.update(snapshot(r, ws))
            r.close()
        rc, out = spserver.run_check_aof(os.path.join(d, "data", "scratchpad.manifest"))
        eq(rc, 0, "scratchpad-check-aof on the log after the crashes:\n" + out)
    finally:
        srv.stop()


# ---------------------------------------------------------------------------
# 2. Crash during a rewrite, and right after one.


class RewriteState:
    srv = None
    dataset = None
    snaps = None
    orphan = None        # (child pid, in-use refusal seen, start ok at once, child gone)
    tmp = None


RW = RewriteState()


def build_dataset(r):
    """About 30 MB of incompressible data: 240 strings of 100 KB (some with an
    expiry far away) and 6 scratchpads of 10 entries of 100 KB (binary and text)."""
    p = r.pipeline(transaction=False)
    for i in range(240):
        if i % 10 == 0:
            p.set(b"big:%d" % i, RNG.randbytes(100000), ex=86400)
        else:
            p.set(b"big:%d" % i, RNG.randbytes(100000))
    for s in range(6):
        for e in range(10):
            if e % 2:
                content = RNG.randbytes(100000).hex().encode()[:100000]
            else:
                content = RNG.randbytes(100000)
            p.execute_command("SP.WRITE", b"pad:%d" % s, b"e%d" % e, content)
    for reply in p.execute():
        check(reply in (True, 1), "a dataset write answered %r" % (reply,))


def verify_dataset(r, what):
    got = dump(r)
    want = RW.dataset
    sub = {k: v for k, v in got.items() if k in want}
    check(sub == want, "%s: the dataset differs after the restart:\n%s" % (what, diff(sub, want)))


def t_crash_mid_rewrite(tmp, mode):
    """mode fork: the server is kept (RW) for the cases after this one;
    mode incremental: checked and stopped here."""
    d = os.path.join(tmp, "rewrite-" + mode)
    os.mkdir(d)
    srv = spserver.Server("--appendfsync", "always", "--auto-aof-rewrite-percentage", "0",
                          "--aof-rewrite-mode", mode, workdir=d)
    if mode == "fork":
        RW.srv = srv
    srv.start()
    r = client(srv.port)
    build_dataset(r)
    RW.dataset = dump(r)
    before = info(r)["aof_rewrites"]
    ws = start_load(srv.port, "c2a")
    time.sleep(0.1)
    pos = log_size(srv)
    check(r.bgrewriteaof(), "BGREWRITEAOF answered")
    caught = False
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        i = info(r)
        if i["aof_rewrite_in_progress"] == 1:
            caught = True
            break
        if i["aof_rewrites"] > before:
            break
    if not caught:
        print("# note: the rewrite was over before INFO showed aof_rewrite_in_progress:1; killed right after")
    r.close()
    srv.kill9()
    end_load(ws)
    child = rewrite_child_pid(srv, pos) if mode == "fork" else None
    pos = log_size(srv)
    ok, msg = srv.try_start()
    refused = "in use by another" in log_since(srv, pos)
    if mode == "fork":
        gone = wait_gone(child, timeout=5.0)
        RW.orphan = (child, refused, ok, gone, caught, msg)
    else:
        check(ok and not refused, "the restart after SIGKILL during an incremental rewrite failed: " + msg[-600:])
    if not ok:
        srv.start()
    r = client(srv.port)
    verify_dataset(r, "kill during the rewrite")
    verify_load(r, ws, "kill during the rewrite")
    if mode == "fork":
        RW.snaps = snapshot(r, ws)
    r.close()
    if mode != "fork":
        srv.stop()


def t_orphan_lock():
    check(RW.orphan is not None, "the crash during the rewrite ran")
    child, refused, ok, gone, _, msg = RW.orphan
    check(child is not None, "the server's log names the rewrite child's pid")
    check(not refused, "after SIGKILL of the server during a rewrite, the restart was refused with "
          "\"The log directory ... is in use by another scratchpad-server\" (%s): the rewrite child (pid %d) "
          "kept the directory lock" % ("every attempt" if not ok else "Server.start succeeded on a retry", child))
    check(ok, "the restart after SIGKILL during a rewrite failed: " + msg[-600:])
    check(gone, "the rewrite child (pid %d) still ran 5 s after its server was killed" % child)


def t_rewrite_after_crash():
    srv = RW.srv
    check(srv is not None and srv.alive(), "the server from the crash during the rewrite is running")
    r = client(srv.port)
    before = info(r)["aof_rewrites"]
    check(r.bgrewriteaof(), "BGREWRITEAOF answered")
    i = wait_rewrite_done(r, before)
    eq(i["aof_last_bgrewrite_status"], "ok", "aof_last_bgrewrite_status")
    full = dump(r)
    r.close()
    srv.restart()
    r = client(srv.port)
    got = dump(r)
    check(got == full, "the dataset after a restart differs from before:\n" + diff(got, full))
    verify_dataset(r, "restart after the new rewrite")
    verify_snapshot(r, RW.snaps, "restart after the new rewrite")
    r.close()
    data = os.path.join(srv.dir, "data")
    files = read_manifest(data)
    eq([f[2] for f in files], ["base", "incr"], "the manifest after a finished rewrite and a restart")
    extra = sorted(set(os.listdir(data)) - {f[0] for f in files} - {"scratchpad.manifest", "scratchpad.lock"})
    eq(extra, [], "files in the log directory that the manifest does not name")


def t_crash_after_rewrite():
    srv = RW.srv
    check(srv is not None and srv.alive(), "the server is running")
    r = client(srv.port)
    before = info(r)["aof_rewrites"]
    ws = start_load(srv.port, "c2b")
    time.sleep(0.1)
    check(r.bgrewriteaof(), "BGREWRITEAOF answered")
    wait_rewrite_done(r, before)
    srv.kill9()
    r.close()
    end_load(ws)
    srv.start()
    r = client(srv.port)
    verify_dataset(r, "kill right after the rewrite")
    verify_load(r, ws, "kill right after the rewrite")
    verify_snapshot(r, RW.snaps, "kill right after the rewrite")
    r.close()
    rc, out = spserver.run_check_aof(os.path.join(srv.dir, "data", "scratchpad.manifest"))
    eq(rc, 0, "scratchpad-check-aof on the log:\n" + out)


# ---------------------------------------------------------------------------
# 3. Torn tail.


def write_some(r):
    """A few writes of different kinds (one record each)."""
    r.set("a", "alpha")
    r.set("b", b"\x00binary\xff", px=86400000)
    r.execute_command("SP.WRITE", "pad", "plan", "- step one\n- step two\n")
    r.execute_command("SP.APPEND", "pad", "plan", "- step three\n")
    r.execute_command("SP.WRITE", "pad", "blob", b"\x01\x02\x03", "EX", "86400")
    r.incr("counter")
    r.incr("counter")
    r.set("big", "x" * 5000 + "end")
    r.delete("a")
    r.set("a", "alpha again")


def t_torn_tail(tmp):
    d = os.path.join(tmp, "torn")
    os.mkdir(d)
    with spserver.Server("--appendfsync", "always", workdir=d) as srv:
        r = client(srv.port)
        write_some(r)
        before = dump(r)
        r.set("lastkey", "v")
        r.close()
        status = srv.stop()
    eq(status, 0, "exit status on SIGTERM")
    data = os.path.join(d, "data")
    incr = last_incr(data)
    recs = records(os.path.join(data, incr))
    start, length = recs[-1]
    end = start + length
    total = count_records(data)
    check(10 <= length - 1 <= 80, "the last record (SET lastkey v) is small: %d bytes" % length)
    cuts = list(range(start + 1, end))
    fails = []
    t0 = time.monotonic()
    for cut in cuts:
        c = tempfile.mkdtemp(prefix="torn-", dir=tmp)
        try:
            shutil.copytree(data, os.path.join(c, "data"))
            path = os.path.join(c, "data", incr)
            os.truncate(path, cut)
            s = spserver.Server(workdir=c)
            ok, msg = s.try_start()
            if not ok:
                fails.append("cut at %d: the server did not start: %s" % (cut, msg[-600:]))
                continue
            try:
                r = client(s.port)
                got = dump(r)
                i = info(r)
                r.close()
            finally:
                s.stop()
            why = []
            if got != before:
                why.append("dataset differs:\n" + diff(got, before))
            if i["aof_last_load_truncated_bytes"] != cut - start:
                why.append("aof_last_load_truncated_bytes %r, want %d" % (i["aof_last_load_truncated_bytes"],
                                                                         cut - start))
            if i["aof_last_load_records"] != total - 1:
                why.append("aof_last_load_records %r, want %d" % (i["aof_last_load_records"], total - 1))
            if os.path.getsize(path) != start:
                why.append("the file is %d bytes after the start, want %d" % (os.path.getsize(path), start))
            log = open(os.path.join(c, "server.log"), errors="replace").read()
            if "offset %d" % start not in log or incr not in log:
                why.append("the log does not name %s and offset %d:\n%s" % (incr, start, log[-600:]))
            if why:
                fails.append("cut at %d: %s" % (cut, "; ".join(why)))
        finally:
            shutil.rmtree(c, ignore_errors=True)
        if len(fails) >= 5:
            break
    check(not fails, "%d of %d torn copies failed:\n  %s" % (len(fails), len(cuts), "\n  ".join(fails)))
    elapsed = time.monotonic() - t0
    check(elapsed < 40, "the %d torn copies took %.1f s" % (len(cuts), elapsed))

    # aof-load-truncated no: refuse, leave the file alone.
    c = tempfile.mkdtemp(prefix="torn-no-", dir=tmp)
    try:
        shutil.copytree(data, os.path.join(c, "data"))
        path = os.path.join(c, "data", incr)
        cut = start + length // 2
        os.truncate(path, cut)
        rc, out = spserver.run_check_aof(os.path.join(c, "data", "scratchpad.manifest"))
        eq(rc, 1, "scratchpad-check-aof on a torn log:\n" + out)
        check(str(start) in out, "the check tool names offset %d:\n%s" % (start, out))
        status, log = spserver.run_expecting_refusal(c, "--aof-load-truncated", "no")
        check(isinstance(status, int) and status > 0,
              "with aof-load-truncated no, a torn log: status %r, want an exit status > 0; log:\n%s"
              % (status, log[-800:]))
        check("offset %d" % start in log and incr in log,
              "the refusal names %s and offset %d:\n%s" % (incr, start, log[-800:]))
        eq(os.path.getsize(path), cut, "the torn file's size after the refusal")
    finally:
        shutil.rmtree(c, ignore_errors=True)


# ---------------------------------------------------------------------------
# 4. Corruption in the middle.


def t_corrupt_middle(tmp):
    d = os.path.join(tmp, "corrupt")
    os.mkdir(d)
    dumps = []
    with spserver.Server("--appendfsync", "always", workdir=d) as srv:
        r = client(srv.port)
        dumps.append(dump(r))
        writes = []
        for i in range(12):
            if i % 4 == 1:
                writes.append(("SP.WRITE", "cpad", "e%d" % i, "entry number %d\n" % i))
            elif i % 4 == 3:
                writes.append(("SP.APPEND", "cpad", "e%d" % (i - 2), "appended %d\n" % i))
            else:
                writes.append(("SET", "ck%d" % i, "value number %d" % i))
        for w in writes:
            r.execute_command(*w)
            dumps.append(dump(r))
        r.close()
        status = srv.stop()
    eq(status, 0, "exit status on SIGTERM")
    data = os.path.join(d, "data")
    incr = last_incr(data)
    path = os.path.join(data, incr)
    recs = records(path)
    eq(len(recs), len(writes), "records in %s (one per write)" % incr)
    k = len(recs) // 2
    start, length = recs[k]
    flip = start + 8 + (length - 8) - 3   # a byte of the value, near the end of the payload
    with open(path, "r+b") as f:
        f.seek(flip)
        b = f.read(1)
        f.seek(flip)
        f.write(bytes([b[0] ^ 0x20]))
    manifest = os.path.join(os.path.realpath(data), "scratchpad.manifest")

    status, log = spserver.run_expecting_refusal(d)
    check(isinstance(status, int) and status > 0,
          "a corrupt record in the middle: status %r, want an exit status > 0; log:\n%s" % (status, log[-800:]))
    check(incr in log, "the log names the file %s:\n%s" % (incr, log[-800:]))
    check("offset %d" % start in log, "the log names offset %d:\n%s" % (start, log[-800:]))
    check("scratchpad-check-aof --fix --truncate %s" % manifest in log and
          "scratchpad-check-aof --fix --skip-record %s" % manifest in log,
          "the log gives the repair commands 'scratchpad-check-aof --fix --truncate|--skip-record %s':\n%s"
          % (manifest, log[-800:]))
    eq(os.path.getsize(path), recs[-1][0] + recs[-1][1], "the file's size after the refusal (nothing cut)")

    rc, out = spserver.run_check_aof(manifest)
    eq(rc, 1, "scratchpad-check-aof on the corrupt log:\n" + out)
    check(str(start) in out, "the check tool reports offset %d:\n%s" % (start, out))
    rc, out = spserver.run_check_aof("--fix", manifest)
    eq(rc, 1, "scratchpad-check-aof --fix alone on a damaged record (it must not guess):\n" + out)
    eq(os.path.getsize(path), recs[-1][0] + recs[-1][1], "the file's size after --fix alone (nothing cut)")
    rc, out = spserver.run_check_aof("--fix", "--truncate", manifest)
    eq(rc, 0, "scratchpad-check-aof --fix --truncate:\n" + out)
    eq(os.path.getsize(path), start, "the file's size after --fix --truncate")
    rc, out = spserver.run_check_aof(manifest)
    eq(rc, 0, "scratchpad-check-aof after --fix:\n" + out)

    with spserver.Server(workdir=d) as srv:
        r = client(srv.port)
        got = dump(r)
        r.close()
    check(got == dumps[k], "after --fix the server holds the %d records before the damaged one:\n%s"
          % (k, diff(got, dumps[k])))


# ---------------------------------------------------------------------------
# 5. A damaged manifest.


def t_bad_manifest(tmp):
    d = os.path.join(tmp, "manifest")
    os.mkdir(d)
    with spserver.Server(workdir=d) as srv:
        r = client(srv.port)
        r.set("m", "1")
        r.close()
    data = os.path.join(d, "data")
    mpath = os.path.join(data, "scratchpad.manifest")
    with open(mpath, "rb") as f:
        good = f.read()
    incr = last_incr(data)
    variants = [
        ("garbage text", b"\x7fELF garbage \x01\x02 not a manifest at all\nfile ???\n", "scratchpad.manifest"),
        ("an unknown version", good.replace(b"scratchpad-manifest 1", b"scratchpad-manifest 7"),
         "scratchpad.manifest"),
    ]
    bad = []
    for what, text, named in variants:
        with open(mpath, "wb") as f:
            f.write(text)
        status, log = spserver.run_expecting_refusal(d)
        if not (isinstance(status, int) and status > 0):
            bad.append("%s: status %r, want an exit status > 0; log:\n%s" % (what, status, log[-600:]))
        elif named not in log:
            bad.append("%s: the log does not name %s:\n%s" % (what, named, log[-600:]))
    with open(mpath, "wb") as f:
        f.write(good)
    check(not bad, "\n".join(bad))
    with spserver.Server(workdir=d) as srv:
        eq(client(srv.port).get("m"), b"1", "the data after the manifest is restored")


def t_missing_file(tmp):
    d = os.path.join(tmp, "missing")
    os.mkdir(d)
    with spserver.Server(workdir=d) as srv:
        r = client(srv.port)
        r.set("m", "1")
        r.close()
    data = os.path.join(d, "data")
    mpath = os.path.join(data, "scratchpad.manifest")
    name, seq, _ = read_manifest(data)[-1]
    with open(mpath, "rb") as f:
        good = f.read()
    with open(mpath, "wb") as f:
        f.write(good.replace(b"file %s seq %d type incr" % (name.encode(), seq),
                             b"file scratchpad.aof.999.incr seq 999 type incr"))
    status, log = spserver.run_expecting_refusal(d)
    check(isinstance(status, int) and status > 0,
          "status %r, want an exit status > 0; log:\n%s" % (status, log[-600:]))
    check("scratchpad.aof.999.incr" in log, "the log names the missing file:\n" + log[-600:])
    if "scratchpad-check-aof --fix" in log:
        # The server offers a repair: following it must work.
        rc, out = spserver.run_check_aof("--fix", mpath)
        check(rc == 0, "the server's log says to repair the log with 'scratchpad-check-aof --fix', but "
              "that exits %d on a manifest naming a missing file (an I/O error, not corruption; the "
              "log also says '0 bytes lost'):\n  server: %s\n  tool: %s"
              % (rc, [l for l in log.splitlines() if "--fix" in l][-1][-400:], out.strip()[-300:]))


# ---------------------------------------------------------------------------


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces the kill moments and the data)" % (SEED, SEED))
    tmp = tempfile.mkdtemp(prefix="sp-persist-crash-")
    t0 = time.monotonic()
    try:
        rep.case("SIGKILL under a 4-client load with appendfsync always, 3 times: every acknowledged "
                 "SET, SP.APPEND and SP.WRITE is there after the restart", t_crash_always, tmp)
        rep.case("SIGKILL during an incremental rewrite of 30 MB under load: after the restart the dataset "
                 "and every acknowledged write are there", t_crash_mid_rewrite, tmp, "incremental")
        rep.case("SIGKILL during a fork rewrite of 30 MB under load: after the restart the dataset and every "
                 "acknowledged write are there", t_crash_mid_rewrite, tmp, "fork")
        sentence = ("a restart right after SIGKILL during a rewrite is not refused for the directory lock, and "
                    "the rewrite child does not outlive its server")
        if RW.orphan is not None and not RW.orphan[4]:
            rep.skip(sentence, "the rewrite was over before the kill")
        else:
            rep.case(sentence, t_orphan_lock)
        rep.case("after the crash a new BGREWRITEAOF succeeds, a restart gives the same dataset and the "
                 "directory holds only the manifest's files", t_rewrite_after_crash)
        rep.case("SIGKILL right after a rewrite finished under load: every acknowledged write is there "
                 "after the restart", t_crash_after_rewrite)
        rep.case("a log cut at every byte inside its last record loads every earlier record, drops the torn "
                 "one, reports the bytes and offset; aof-load-truncated no refuses", t_torn_tail, tmp)
        rep.case("a flipped byte in a middle record: the server refuses naming file, offset and the repair "
                 "commands; scratchpad-check-aof reports it, --fix alone refuses to guess, --fix --truncate repairs it to the records before",
                 t_corrupt_middle, tmp)
        rep.case("a damaged manifest (garbage text, an unknown version) makes the server exit non-zero "
                 "naming it", t_bad_manifest, tmp)
        rep.case("a manifest naming a missing file makes the server exit non-zero naming the file, and any "
                 "repair command it gives works", t_missing_file, tmp)
    finally:
        if RW.srv is not None:
            RW.srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.monotonic() - t0
    rep.case("the crash tests ran in under 60 s", lambda: check(elapsed < 60, "took %.1f s" % elapsed))
    rep.finish()


if __name__ == "__main__":
    main()
