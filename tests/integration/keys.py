"""keys.py -- the generic key commands, checked against a real server.

Starts its own scratchpad-server (env SERVER, else TOP/build/scratchpad-server)
on a free port in a temporary directory and checks, with redis-py and with a
raw RESP socket where the exact bytes matter: DEL, UNLINK, EXISTS, TYPE, RENAME,
RENAMENX, COPY, MOVE, SWAPDB, TOUCH, RANDOMKEY, KEYS, SCAN, the EXPIRE family
with NX/XX/GT/LT, TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST and OBJECT; their
Redis 7.0 error strings; expiry to the millisecond; SCAN completeness while the
table grows and shrinks between calls; binary keys; WATCH invalidation by every
write; and the reply shapes of RESP2 and RESP3.

RESP3: Debian's redis-py (4.x) has no protocol=3, so RESP3 replies are read on
a raw socket (after HELLO 3) and compared byte for byte; RESP2 is checked both
through redis-py and raw.

Each case uses its own keys (a prefix per case) or its own database, so the
cases do not depend on each other. Prints "ok - <sentence>" or
"not ok - <sentence>" per case. The server is stopped by its PID at the end,
whatever happens; every socket has a timeout, so a hang is a failure.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import redis

TIMEOUT = 10  # s, per socket operation and for the server to start

# ---------------------------------------------------------------------------
# Server start/stop (a shared helper will replace this later).



def wait_encoding(get, want, timeout=3.0):
    """Poll an OBJECT ENCODING reply until it equals want (or time runs out)."""
    deadline = time.time() + timeout
    got = get()
    while got != want and time.time() < deadline:
        time.sleep(0.02)
        got = get()
    return got

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """One scratchpad-server on a free port, run in a temporary directory."""

    def __init__(self):
        top = os.environ.get("TOP") or os.path.abspath(
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        self.binary = os.environ.get("SERVER") or os.path.join(top, "build", "scratchpad-server")
        self.dir = tempfile.mkdtemp(prefix="sp-keys-")
        self.proc = None
        self.port = None
        self.log = os.path.join(self.dir, "server.log")

    def start(self):
        for _ in range(5):  # the port may be taken between choosing and binding it
            self.port = free_port()
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(
                    [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"],
                    cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
            deadline = time.time() + TIMEOUT
            while time.time() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                        s.sendall(b"PING\r\n")
                        if s.recv(16).startswith(b"+PONG"):
                            return
                except OSError:
                    time.sleep(0.02)
            self.stop()
        raise RuntimeError("server did not start; log:\n" + self.log_tail())

    def log_tail(self):
        try:
            with open(self.log, "rb") as f:
                return f.read()[-2000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(TIMEOUT)
        self.proc = None

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# A raw RESP client: exact reply bytes, RESP2 or RESP3.


class Err(str):
    """An error reply (its full text, code included)."""


class Status(str):
    """A simple-string reply."""


class Raw:
    def __init__(self, port, resp=2, db=0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""
        self.last = b""  # raw bytes of the last reply
        if resp == 3:
            self.cmd("HELLO", "3")
        if db:
            self.cmd("SELECT", str(db))

    def close(self):
        self.s.close()

    def _fill(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill(len(self.buf) + 1)
        line, self.buf = self.buf.split(b"\r\n", 1)
        self.last += line + b"\r\n"
        return line

    def _read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return Status(rest.decode())
        if t == b"-":
            return Err(rest.decode())
        if t in (b":",):
            return int(rest)
        if t in (b"$", b"=", b"!"):
            n = int(rest)
            if n < 0:
                return None
            self._fill(n + 2)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            self.last += data + b"\r\n"
            return data
        if t == b"_":
            return None
        if t == b"#":
            return rest == b"t"
        if t == b",":
            return float(rest)
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None
            return [self._read() for _ in range(n)]
        if t == b"%":
            n = int(rest)
            out = {}
            for _ in range(n):
                k = self._read()
                out[k] = self._read()
            return out
        raise ValueError("unexpected reply type %r" % line)

    def cmd(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, int):
                a = str(a)
            if isinstance(a, str):
                a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))
        self.last = b""
        return self._read()


# ---------------------------------------------------------------------------
# Helpers.

PORT = None
R = None  # redis.Redis on db 0, bytes replies


def client(db=0):
    return redis.Redis(host="127.0.0.1", port=PORT, db=db, socket_timeout=TIMEOUT,
                       socket_connect_timeout=TIMEOUT)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def err(raw, want, *args):
    """The command must answer exactly the error `want` (code included)."""
    got = raw.cmd(*args)
    if not isinstance(got, Err) or got != want:
        raise AssertionError("%s: got %r, want error %r" % (" ".join(map(str, args)), got, want))


def wipe(db):
    """Delete every key of database db."""
    c = client(db)
    keys = c.keys("*")
    if keys:
        c.delete(*keys)


def now_ms():
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------
# Cases.


def t_del_unlink_exists():
    r = R
    r.mset({"d:a": "1", "d:b": "2", "d:c": "3"})
    eq(r.exists("d:a", "d:a", "d:b", "d:none"), 3, "EXISTS counts repeats")
    eq(r.exists("d:none"), 0)
    eq(r.delete("d:a", "d:a", "d:none"), 1, "DEL counts each deleted key once")
    eq(r.exists("d:a"), 0)
    eq(r.unlink("d:b", "d:c", "d:none"), 2, "UNLINK")
    eq(r.exists("d:b", "d:c"), 0)
    eq(r.delete("d:none"), 0)
    raw = Raw(PORT)
    err(raw, "ERR wrong number of arguments for 'del' command", "DEL")
    err(raw, "ERR wrong number of arguments for 'unlink' command", "UNLINK")
    err(raw, "ERR wrong number of arguments for 'exists' command", "EXISTS")
    raw.close()


def t_type_touch():
    r = R
    r.set("ty:s", "v")
    eq(r.type("ty:s"), b"string")
    eq(r.type("ty:none"), b"none")
    raw = Raw(PORT)
    eq(raw.cmd("TYPE", "ty:s"), "string")
    eq(raw.last, b"+string\r\n", "TYPE is a simple string")
    eq(raw.cmd("TYPE", "ty:none"), "none")
    eq(raw.last, b"+none\r\n")
    eq(raw.cmd("TOUCH", "ty:s", "ty:s", "ty:none"), 2, "TOUCH counts existing keys, repeats included")
    err(raw, "ERR wrong number of arguments for 'type' command", "TYPE", "a", "b")
    raw.close()


def t_rename():
    r = R
    raw = Raw(PORT)
    r.set("rn:a", "va", ex=100)
    eq(r.rename("rn:a", "rn:b"), True)
    eq(r.exists("rn:a"), 0)
    eq(r.get("rn:b"), b"va")
    check(99000 <= r.pttl("rn:b") <= 100000, "RENAME keeps the TTL")
    r.set("rn:c", "vc")
    eq(raw.cmd("RENAME", "rn:b", "rn:c"), "OK", "RENAME overwrites the destination")
    eq(r.get("rn:c"), b"va")
    check(r.ttl("rn:c") > 0, "the destination gets the source's TTL")
    r.set("rn:d", "vd", ex=50)
    r.set("rn:e", "ve")
    r.rename("rn:e", "rn:d")
    eq(r.ttl("rn:d"), -1, "a destination's old TTL does not survive an overwrite")
    eq(raw.cmd("RENAME", "rn:c", "rn:c"), "OK", "renaming a key to itself is OK")
    eq(r.get("rn:c"), b"va")
    check(r.ttl("rn:c") > 0, "renaming to itself keeps the TTL")
    err(raw, "ERR no such key", "RENAME", "rn:none", "rn:x")
    err(raw, "ERR no such key", "RENAME", "rn:none", "rn:none")
    # RENAMENX
    r.set("rn:f", "vf")
    eq(raw.cmd("RENAMENX", "rn:f", "rn:c"), 0, "RENAMENX onto an existing key")
    eq(r.get("rn:f"), b"vf")
    eq(raw.cmd("RENAMENX", "rn:f", "rn:g"), 1)
    eq(r.get("rn:g"), b"vf")
    eq(r.exists("rn:f"), 0)
    eq(raw.cmd("RENAMENX", "rn:g", "rn:g"), 0, "RENAMENX of a key to itself")
    err(raw, "ERR no such key", "RENAMENX", "rn:none", "rn:x")
    # An expired destination counts as absent.
    r.set("rn:h", "vh", px=10)
    time.sleep(0.03)
    eq(raw.cmd("RENAMENX", "rn:g", "rn:h"), 1, "RENAMENX onto an expired key")
    eq(r.get("rn:h"), b"vf")
    raw.close()


def t_copy():
    r = R
    raw = Raw(PORT)
    wipe(3)
    r.set("cp:a", "hello", ex=100)
    eq(raw.cmd("COPY", "cp:a", "cp:b"), 1)
    eq(r.get("cp:b"), b"hello")
    check(99000 <= r.pttl("cp:b") <= 100000, "COPY copies the TTL")
    eq(raw.cmd("COPY", "cp:a", "cp:b"), 0, "COPY onto an existing key without REPLACE")
    r.set("cp:c", "other")
    eq(raw.cmd("COPY", "cp:c", "cp:b", "REPLACE"), 1)
    eq(r.get("cp:b"), b"other")
    eq(r.ttl("cp:b"), -1, "COPY REPLACE takes the source's (absent) TTL")
    eq(raw.cmd("COPY", "cp:none", "cp:x"), 0, "COPY of a missing key")
    eq(r.exists("cp:x"), 0)
    # To another database.
    eq(raw.cmd("COPY", "cp:a", "cp:a", "DB", "3"), 1, "COPY a key to itself in another DB")
    c3 = client(3)
    eq(c3.get("cp:a"), b"hello")
    check(c3.ttl("cp:a") > 0, "COPY DB keeps the TTL")
    eq(raw.cmd("COPY", "cp:a", "cp:a", "db", "3"), 0)
    eq(raw.cmd("COPY", "cp:a", "cp:a", "replace", "db", "3", "replace"), 1, "options in any order, repeated")
    # Errors.
    err(raw, "ERR source and destination objects are the same", "COPY", "cp:a", "cp:a")
    err(raw, "ERR source and destination objects are the same", "COPY", "cp:a", "cp:a", "DB", "0")
    err(raw, "ERR source and destination objects are the same", "COPY", "cp:none", "cp:none")
    err(raw, "ERR DB index is out of range", "COPY", "cp:a", "cp:z", "DB", "16")
    err(raw, "ERR DB index is out of range", "COPY", "cp:a", "cp:z", "DB", "-1")
    err(raw, "ERR value is not an integer or out of range", "COPY", "cp:a", "cp:z", "DB", "x")
    err(raw, "ERR value is out of range, value must between -2147483648 and 2147483647",
        "COPY", "cp:a", "cp:z", "DB", "99999999999")
    err(raw, "ERR syntax error", "COPY", "cp:a", "cp:z", "DB")
    err(raw, "ERR syntax error", "COPY", "cp:a", "cp:z", "FOO")
    err(raw, "ERR wrong number of arguments for 'copy' command", "COPY", "cp:a")
    eq(r.exists("cp:z"), 0)
    raw.close()


def t_copy_values_are_independent():
    r = R
    small, medium = b"s" * 20, bytes(range(256)) * 4
    big = b"".join(b"line %d of a long and repetitive log\n" % i for i in range(20000))
    for name, v in (("small", small), ("medium", medium), ("big", big)):
        src, dst = "cpv:%s" % name, "cpv:%s:copy" % name
        r.set(src, v)
        eq(r.copy(src, dst), True)
        eq(r.get(dst), v, "copy of the %s value" % name)
        if name == "big":
            # Both are compressed in the background (the cron): read each once it
            # is, as two reads in a row may fall on either side of that moment.
            eq(wait_encoding(lambda: r.object("encoding", src), b"lz4"), b"lz4")
            eq(wait_encoding(lambda: r.object("encoding", dst), b"lz4"), b"lz4", "the copy keeps the encoding")
        else:
            eq(r.object("encoding", dst), r.object("encoding", src), "the copy keeps the encoding")
        r.append(dst, b"+tail")
        eq(r.get(src), v, "appending to the copy leaves the %s source alone" % name)
        eq(r.get(dst), v + b"+tail")
        r.append(src, b"+other")
        eq(r.get(dst), v + b"+tail", "appending to the %s source leaves the copy alone" % name)
        r.delete(src)
        eq(r.get(dst), v + b"+tail", "deleting the source leaves the copy")
    eq(wait_encoding(lambda: R.object("encoding", "cpv:big:copy"), b"lz4"), b"lz4")
    r.set("cpv:big", big)
    eq(r.copy("cpv:big", "cpv:big", destination_db=4), True)
    eq(client(4).get("cpv:big"), big, "a compressed value copied to another database")


def t_moved_raw_values_grow():
    # A raw value of 129-255 bytes lands in a narrow entry when COPY, RENAME or
    # MOVE makes its new entry; writing more than 255 bytes to it (SET, APPEND,
    # SETRANGE, INCR's replacement, PFMERGE into it) must widen the entry
    # (it aborted the server: the diff_hll seed 1613414013 found it).
    r = R
    mid = b"m" * 200
    grow = {"set": (lambda c, k: c.set(k, b"n" * 300), b"n" * 300),
            "append": (lambda c, k: c.append(k, b"a" * 100), mid + b"a" * 100),
            "setrange": (lambda c, k: c.setrange(k, 250, b"r" * 50), mid + b"\0" * 50 + b"r" * 50)}
    for how in ("copy", "rename", "move"):
        for op, (write, want) in grow.items():
            src, dst, target = "mrv:%s:%s" % (how, op), "mrv:%s:%s:new" % (how, op), r
            r.set(src, mid)
            if how == "copy":
                eq(r.copy(src, dst), True)
            elif how == "rename":
                r.rename(src, dst)
            else:
                client(5).delete(src)
                eq(r.move(src, 5), True)
                dst, target = src, client(5)
            write(target, dst)
            eq(target.get(dst), want, "%s after %s of a 200-byte value" % (op.upper(), how.upper()))
    eq(r.ping(), True)


def t_move():
    r = R
    raw = Raw(PORT)
    wipe(2)
    c2 = client(2)
    r.set("mv:a", "va", ex=100)
    eq(raw.cmd("MOVE", "mv:a", "2"), 1)
    eq(r.exists("mv:a"), 0)
    eq(c2.get("mv:a"), b"va")
    check(99000 <= c2.pttl("mv:a") <= 100000, "MOVE keeps the TTL")
    r.set("mv:a", "again")
    eq(raw.cmd("MOVE", "mv:a", "2"), 0, "MOVE onto an existing key in the target")
    eq(r.get("mv:a"), b"again", "the source stays when MOVE fails")
    eq(c2.get("mv:a"), b"va")
    eq(raw.cmd("MOVE", "mv:none", "2"), 0, "MOVE of a missing key")
    c2.set("mv:b", "old", px=10)
    r.set("mv:b", "new")
    time.sleep(0.03)
    eq(raw.cmd("MOVE", "mv:b", "2"), 1, "MOVE onto an expired key in the target")
    eq(c2.get("mv:b"), b"new")
    err(raw, "ERR source and destination objects are the same", "MOVE", "mv:a", "0")
    err(raw, "ERR DB index is out of range", "MOVE", "mv:a", "16")
    err(raw, "ERR DB index is out of range", "MOVE", "mv:a", "-1")
    err(raw, "ERR value is not an integer or out of range", "MOVE", "mv:a", "1.5")
    err(raw, "ERR value is out of range, value must between -2147483648 and 2147483647",
        "MOVE", "mv:a", "99999999999")
    raw.close()


def t_swapdb():
    raw = Raw(PORT)
    a, b, other = Raw(PORT, db=11), Raw(PORT, db=12), Raw(PORT, db=13)
    wipe(11)
    wipe(12)
    a.cmd("SET", "sw:x", "eleven")
    a.cmd("SET", "sw:only11", "1")
    a.cmd("PEXPIRE", "sw:x", "100000")
    b.cmd("SET", "sw:x", "twelve")
    other.cmd("SET", "sw:x", "thirteen")
    eq(raw.cmd("SWAPDB", "11", "12"), "OK")
    eq(a.cmd("GET", "sw:x"), b"twelve", "a client on 11 sees 12's old contents")
    eq(b.cmd("GET", "sw:x"), b"eleven", "a client on 12 sees 11's old contents")
    check(0 < b.cmd("PTTL", "sw:x") <= 100000, "TTLs travel with their keys")
    eq(a.cmd("TTL", "sw:x"), -1)
    eq(b.cmd("EXISTS", "sw:only11"), 1)
    eq(a.cmd("EXISTS", "sw:only11"), 0)
    eq(other.cmd("GET", "sw:x"), b"thirteen", "other databases are untouched")
    # Writes after the swap land where the client's index now points.
    a.cmd("SET", "sw:after", "1")
    eq(client(11).get("sw:after"), b"1")
    eq(raw.cmd("SWAPDB", "12", "12"), "OK", "swapping a database with itself")
    err(raw, "ERR DB index is out of range", "SWAPDB", "0", "16")
    err(raw, "ERR DB index is out of range", "SWAPDB", "-1", "0")
    err(raw, "ERR invalid first DB index", "SWAPDB", "a", "1")
    err(raw, "ERR invalid second DB index", "SWAPDB", "1", "b")
    err(raw, "ERR invalid first DB index", "SWAPDB", "99999999999", "1")
    err(raw, "ERR wrong number of arguments for 'swapdb' command", "SWAPDB", "1")
    for c in (raw, a, b, other):
        c.close()


def t_randomkey():
    raw = Raw(PORT, db=9)
    wipe(9)
    eq(raw.cmd("RANDOMKEY"), None)
    eq(raw.last, b"$-1\r\n", "RANDOMKEY on an empty database is a RESP2 null bulk")
    c = client(9)
    c.mset({"rk:%d" % i: "v" for i in range(50)})
    seen = set()
    for _ in range(400):
        k = raw.cmd("RANDOMKEY")
        check(k is not None and k.startswith(b"rk:"), "RANDOMKEY returned %r" % k)
        seen.add(k)
    check(len(seen) > 25, "RANDOMKEY is spread over the keys (%d of 50 seen)" % len(seen))
    # Live keys among many expired ones: only live keys come back.
    wipe(9)
    p = c.pipeline(transaction=False)
    for i in range(20):
        p.set("live:%d" % i, "v")
    for i in range(3000):
        p.set("dead:%d" % i, "v", px=1)
    p.execute()
    time.sleep(0.01)
    for _ in range(50):
        k = raw.cmd("RANDOMKEY")
        check(k is not None and k.startswith(b"live:"), "RANDOMKEY returned the expired %r" % k)
    # Only expired keys: nil, promptly.
    wipe(9)
    p = c.pipeline(transaction=False)
    for i in range(20000):
        p.set("gone:%d" % i, "v", px=20)
    p.execute()
    time.sleep(0.03)
    t0 = time.time()
    eq(raw.cmd("RANDOMKEY"), None, "RANDOMKEY when every key has expired")
    check(time.time() - t0 < 2, "RANDOMKEY over expired keys returns promptly")
    raw.close()


def t_keys():
    raw = Raw(PORT, db=13)
    wipe(13)
    c = client(13)
    names = ["hello", "hallo", "hxllo", "hllo", "heeeello", "h[x]", "Hello", "h*llo"]
    c.mset({n: "1" for n in names})
    c.set("hexpired", "1", px=10)
    time.sleep(0.03)

    def keys(pat):
        got = raw.cmd("KEYS", pat)
        check(isinstance(got, list), "KEYS %s: %r" % (pat, got))
        return sorted(k.decode() for k in got)

    eq(keys("*"), sorted(names), "KEYS * (an expired key is not listed)")
    eq(keys("h?llo"), ["h*llo", "hallo", "hello", "hxllo"], "? matches any one byte, * included")
    eq(keys("h*llo"), sorted(["hallo", "heeeello", "hello", "hllo", "hxllo", "h*llo"]))
    eq(keys("h[ae]llo"), ["hallo", "hello"])
    eq(keys("h[^e]llo"), ["h*llo", "hallo", "hxllo"])
    eq(keys("h[a-b]llo"), ["hallo"])
    eq(keys("h\\[x\\]"), ["h[x]"])
    eq(keys("h\\*llo"), ["h*llo"])
    eq(keys("nomatch*"), [])
    eq(keys("Hello"), ["Hello"], "KEYS is case-sensitive")
    eq(raw.cmd("KEYS", "nomatch"), [])
    eq(raw.last, b"*0\r\n")
    err(raw, "ERR wrong number of arguments for 'keys' command", "KEYS")
    raw.close()


def full_scan(raw, *opts):
    """Every key of a complete SCAN with the given options, in order returned."""
    cursor, out, calls = b"0", [], 0
    while True:
        reply = raw.cmd("SCAN", cursor, *opts)
        check(isinstance(reply, list) and len(reply) == 2, "SCAN reply %r" % reply)
        cursor, keys = reply
        check(isinstance(cursor, bytes), "the cursor is a bulk string")
        out.extend(keys)
        calls += 1
        check(calls < 100000, "SCAN does not end")
        if cursor == b"0":
            return out


def t_scan_basics():
    raw = Raw(PORT, db=14)
    wipe(14)
    c = client(14)
    c.mset({"sc:%d" % i: "v" for i in range(1000)})
    c.mset({"other:%d" % i: "v" for i in range(100)})
    for count in ("1", "10", "1000"):
        got = full_scan(raw, "COUNT", count)
        eq(len(got), 1100, "a full SCAN with COUNT %s returns every key" % count)
        eq(len(set(got)), 1100, "a SCAN of a table that does not change returns each key once")
    got = full_scan(raw, "MATCH", "other:*", "COUNT", "50")
    eq(sorted(got), sorted(b"other:%d" % i for i in range(100)), "SCAN MATCH")
    eq(len(full_scan(raw, "TYPE", "string")), 1100, "SCAN TYPE string")
    eq(len(full_scan(raw, "type", "STRING")), 1100, "SCAN TYPE is case-insensitive")
    eq(full_scan(raw, "TYPE", "scratchpad"), [], "SCAN TYPE scratchpad with only strings")
    eq(full_scan(raw, "TYPE", "nosuchtype"), [], "SCAN TYPE of an unknown type")
    eq(len(full_scan(raw, "MATCH", "*")), 1100, "SCAN MATCH *")
    wipe(14)
    # The reply's shape, byte for byte, on a database that never held more than
    # one key (so its table is at its smallest).
    one = Raw(PORT, db=7)
    wipe(7)
    one.cmd("SET", "one", "1")
    eq(one.cmd("SCAN", "0"), [b"0", [b"one"]])
    eq(one.last, b"*2\r\n$1\r\n0\r\n*1\r\n$3\r\none\r\n", "SCAN reply bytes in RESP2")
    eq(one.cmd("SCAN", ""), [b"0", [b"one"]], "an empty cursor reads as 0, as strtoul does")
    eq(one.cmd("SCAN", "+0"), [b"0", [b"one"]])
    one.close()
    # Errors.
    err(raw, "ERR invalid cursor", "SCAN", "abc")
    err(raw, "ERR invalid cursor", "SCAN", " 1")
    err(raw, "ERR invalid cursor", "SCAN", "1x")
    err(raw, "ERR invalid cursor", "SCAN", "18446744073709551616")
    err(raw, "ERR syntax error", "SCAN", "0", "COUNT", "0")
    err(raw, "ERR syntax error", "SCAN", "0", "COUNT", "-1")
    err(raw, "ERR value is not an integer or out of range", "SCAN", "0", "COUNT", "x")
    err(raw, "ERR syntax error", "SCAN", "0", "MATCH")
    err(raw, "ERR syntax error", "SCAN", "0", "FOO", "bar")
    err(raw, "ERR wrong number of arguments for 'scan' command", "SCAN")
    raw.close()


def t_scan_expired():
    raw = Raw(PORT, db=14)
    wipe(14)
    c = client(14)
    p = c.pipeline(transaction=False)
    for i in range(200):
        p.set("alive:%d" % i, "v")
        p.set("expiring:%d" % i, "v", px=20)
    p.execute()
    time.sleep(0.04)
    got = full_scan(raw, "COUNT", "7")
    eq(sorted(got), sorted(b"alive:%d" % i for i in range(200)), "SCAN leaves out expired keys")
    raw.close()


def t_scan_grow_shrink():
    raw = Raw(PORT, db=15)
    wipe(15)
    c = client(15)
    keep = set(b"keep:%d" % i for i in range(1000))
    c.mset({k: "v" for k in keep})
    ever = set(keep)
    seen = []
    cursor, calls, tmp_next, tmp_live = b"0", 0, 0, []
    while True:
        cursor, keys = raw.cmd("SCAN", cursor, "COUNT", "10")
        seen.extend(keys)
        calls += 1
        p = c.pipeline(transaction=False)
        if calls <= 30:  # grow: about 15000 extra keys, several doublings
            for _ in range(500):
                k = b"tmp:%d" % tmp_next
                tmp_next += 1
                p.set(k, "v")
                ever.add(k)
                tmp_live.append(k)
        elif tmp_live:  # then shrink back, far below a quarter of the buckets
            batch, tmp_live = tmp_live[:1500], tmp_live[1500:]
            p.delete(*batch)
        p.execute()
        if cursor == b"0":
            break
        check(calls < 100000, "SCAN does not end")
    check(calls > 40, "the scan spanned both growth and shrinking (%d calls)" % calls)
    missing = keep - set(seen)
    eq(len(missing), 0, "keys present throughout the scan that it missed")
    stray = set(seen) - ever
    eq(len(stray), 0, "keys returned that never existed")
    if tmp_live:
        c.delete(*tmp_live)
    raw.close()


def t_expire_options():
    raw = Raw(PORT)
    r = R
    r.set("ex:k", "v")
    eq(raw.cmd("EXPIRE", "ex:k", "100", "XX"), 0, "XX on a key without TTL")
    eq(raw.cmd("EXPIRE", "ex:k", "100", "GT"), 0, "GT on a key without TTL (infinite)")
    eq(raw.cmd("EXPIRE", "ex:k", "100", "NX"), 1, "NX on a key without TTL")
    eq(raw.cmd("EXPIRE", "ex:k", "200", "NX"), 0, "NX on a key with a TTL")
    eq(raw.cmd("TTL", "ex:k"), 100)
    eq(raw.cmd("EXPIRE", "ex:k", "200", "XX"), 1)
    eq(raw.cmd("EXPIRE", "ex:k", "150", "GT"), 0)
    eq(raw.cmd("EXPIRE", "ex:k", "300", "gt"), 1)
    eq(raw.cmd("EXPIRE", "ex:k", "400", "LT"), 0)
    eq(raw.cmd("EXPIRE", "ex:k", "50", "lt"), 1)
    eq(raw.cmd("TTL", "ex:k"), 50)
    eq(raw.cmd("EXPIRE", "ex:k", "60", "XX", "GT"), 1, "XX with GT")
    eq(raw.cmd("EXPIRE", "ex:k", "70", "xx", "xx"), 1, "a repeated option")
    eq(raw.cmd("PERSIST", "ex:k"), 1)
    eq(raw.cmd("EXPIRE", "ex:k", "10", "LT"), 1, "LT on a key without TTL")
    eq(raw.cmd("TTL", "ex:k"), 10)
    eq(raw.cmd("EXPIRE", "ex:none", "10"), 0, "EXPIRE of a missing key")
    eq(raw.cmd("EXPIRE", "ex:none", "10", "NX"), 0)
    # Errors: options are checked before the number.
    for o in (("NX", "XX"), ("NX", "GT"), ("NX", "LT"), ("XX", "NX")):
        err(raw, "ERR NX and XX, GT or LT options at the same time are not compatible",
            "EXPIRE", "ex:k", "10", *o)
    err(raw, "ERR GT and LT options at the same time are not compatible", "EXPIRE", "ex:k", "10", "GT", "LT")
    err(raw, "ERR GT and LT options at the same time are not compatible", "PEXPIRE", "ex:k", "10", "XX", "GT",
        "LT")
    err(raw, "ERR Unsupported option foo", "EXPIRE", "ex:k", "10", "foo")
    err(raw, "ERR Unsupported option foo", "EXPIRE", "ex:k", "abc", "foo")
    err(raw, "ERR value is not an integer or out of range", "EXPIRE", "ex:k", "abc")
    err(raw, "ERR value is not an integer or out of range", "EXPIRE", "ex:k", "1.5", "NX")
    err(raw, "ERR invalid expire time in 'expire' command", "EXPIRE", "ex:k", "9223372036854775807")
    err(raw, "ERR invalid expire time in 'expire' command", "EXPIRE", "ex:k", "-9223372036854775808")
    err(raw, "ERR invalid expire time in 'pexpire' command", "PEXPIRE", "ex:k", "9223372036854775807")
    err(raw, "ERR invalid expire time in 'expireat' command", "EXPIREAT", "ex:k", "9223372036854775807")
    err(raw, "ERR wrong number of arguments for 'expire' command", "EXPIRE", "ex:k")
    eq(raw.cmd("TTL", "ex:k"), 10, "failed EXPIREs leave the TTL alone")
    # The largest absolute time is accepted.
    eq(raw.cmd("PEXPIREAT", "ex:k", "9223372036854775807"), 1)
    eq(raw.cmd("PEXPIRETIME", "ex:k"), 9223372036854775807)
    eq(raw.cmd("EXPIRETIME", "ex:k"), 9223372036854776, "EXPIRETIME rounds to the nearest second")
    raw.close()


def t_expire_in_the_past_deletes():
    raw = Raw(PORT)
    for cmd, arg in (("EXPIRE", "-1"), ("EXPIRE", "0"), ("PEXPIRE", "-100"), ("PEXPIRE", "0"),
                     ("EXPIREAT", "1"), ("PEXPIREAT", str(now_ms() - 10)), ("EXPIREAT", "-5")):
        raw.cmd("SET", "past:k", "v")
        eq(raw.cmd(cmd, "past:k", arg), 1, "%s %s answers 1" % (cmd, arg))
        eq(raw.cmd("EXISTS", "past:k"), 0, "%s %s deletes the key" % (cmd, arg))
        eq(raw.cmd("TTL", "past:k"), -2)
    raw.cmd("SET", "past:k", "v")
    eq(raw.cmd("EXPIRE", "past:k", "-1", "GT"), 0, "GT against the infinite TTL of a key without one")
    eq(raw.cmd("EXISTS", "past:k"), 1)
    eq(raw.cmd("EXPIRE", "past:k", "-1", "LT"), 1)
    eq(raw.cmd("EXISTS", "past:k"), 0)
    raw.close()


def t_expire_milliseconds():
    r = R
    r.set("ms:a", "v")
    eq(r.pexpire("ms:a", 150), True)
    pttl = r.pttl("ms:a")
    check(100 < pttl <= 150, "PTTL right after PEXPIRE 150 is %d" % pttl)
    eq(r.ttl("ms:a"), 0, "TTL rounds 150 ms to 0 s")
    time.sleep(0.06)
    eq(r.exists("ms:a"), 1, "alive before its time")
    time.sleep(0.15)
    eq(r.exists("ms:a"), 0, "gone after its time")
    eq(r.pttl("ms:a"), -2)
    eq(r.get("ms:a"), None)
    # PEXPIREAT with an absolute time in ms.
    r.set("ms:b", "v")
    at = now_ms() + 120
    eq(r.execute_command("PEXPIREAT", "ms:b", at), True)
    eq(r.execute_command("PEXPIRETIME", "ms:b"), at, "PEXPIRETIME is the exact time given")
    eq(r.execute_command("EXPIRETIME", "ms:b"), (at + 500) // 1000)
    time.sleep(0.06)
    eq(r.exists("ms:b"), 1)
    time.sleep(0.12)
    eq(r.exists("ms:b"), 0, "PEXPIREAT key gone after its time")
    # SET PX, then KEYS does not list it once expired.
    r.set("ms:c", "v", px=40)
    eq(r.keys("ms:c"), [b"ms:c"])
    time.sleep(0.07)
    eq(r.keys("ms:c"), [], "KEYS leaves out a key past its time")


def t_ttl_family():
    raw = Raw(PORT)
    raw.cmd("SET", "tt:a", "v")
    for c, want in (("TTL", -1), ("PTTL", -1), ("EXPIRETIME", -1), ("PEXPIRETIME", -1)):
        eq(raw.cmd(c, "tt:a"), want, "%s of a key without TTL" % c)
        eq(raw.cmd(c, "tt:none"), -2, "%s of a missing key" % c)
    raw.cmd("EXPIREAT", "tt:a", "4102444800")
    eq(raw.cmd("EXPIRETIME", "tt:a"), 4102444800)
    eq(raw.cmd("PEXPIRETIME", "tt:a"), 4102444800000)
    raw.cmd("PEXPIREAT", "tt:a", "4102444800499")
    eq(raw.cmd("EXPIRETIME", "tt:a"), 4102444800, "EXPIRETIME rounds .499 down")
    raw.cmd("PEXPIREAT", "tt:a", "4102444800500")
    eq(raw.cmd("EXPIRETIME", "tt:a"), 4102444801, "EXPIRETIME rounds .500 up")
    raw.cmd("EXPIRE", "tt:a", "1000")
    eq(raw.cmd("TTL", "tt:a"), 1000)
    check(999000 < raw.cmd("PTTL", "tt:a") <= 1000000, "PTTL")
    # PERSIST
    eq(raw.cmd("PERSIST", "tt:a"), 1)
    eq(raw.cmd("TTL", "tt:a"), -1)
    eq(raw.cmd("PERSIST", "tt:a"), 0, "PERSIST of a key without TTL")
    eq(raw.cmd("PERSIST", "tt:none"), 0, "PERSIST of a missing key")
    err(raw, "ERR wrong number of arguments for 'ttl' command", "TTL")
    err(raw, "ERR wrong number of arguments for 'persist' command", "PERSIST", "a", "b")
    raw.close()


def t_object():
    raw = Raw(PORT)
    raw.cmd("SET", "ob:int", "12345")
    raw.cmd("SET", "ob:emb", "hello")
    raw.cmd("SET", "ob:raw", "x" * 100)
    raw.cmd("SET", "ob:lz", "y" * 10000)
    raw.cmd("SET", "ob:notint", "01")
    eq(raw.cmd("OBJECT", "ENCODING", "ob:int"), b"int")
    eq(raw.cmd("OBJECT", "ENCODING", "ob:emb"), b"embstr")
    eq(raw.cmd("OBJECT", "ENCODING", "ob:raw"), b"raw")
    # Large values are stored raw on write and compressed by the background pass.
    eq(wait_encoding(lambda: raw.cmd("OBJECT", "encoding", "ob:lz"), b"lz4"), b"lz4")
    eq(raw.cmd("OBJECT", "ENCODING", "ob:notint"), b"embstr")
    eq(raw.cmd("OBJECT", "ENCODING", "ob:none"), None)
    eq(raw.last, b"$-1\r\n")
    eq(raw.cmd("OBJECT", "REFCOUNT", "ob:int"), 1)
    eq(raw.cmd("OBJECT", "REFCOUNT", "ob:none"), None)
    err(raw, "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when "
             "switching between policies at runtime LRU and LFU data will take some time to adjust.",
        "OBJECT", "FREQ", "ob:int")
    eq(raw.cmd("OBJECT", "FREQ", "ob:none"), None, "OBJECT FREQ of a missing key is nil")
    help_ = raw.cmd("OBJECT", "HELP")
    check(isinstance(help_, list), "OBJECT HELP is an array")
    eq(help_[0], "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
    eq(help_[-2:], ["HELP", "    Prints this help."])
    check("ENCODING <key>" in help_ and "FREQ <key>" in help_ and "REFCOUNT <key>" in help_, "HELP lines")
    err(raw, "ERR unknown subcommand 'foo'. Try OBJECT HELP.", "OBJECT", "foo", "ob:int")
    err(raw, "ERR wrong number of arguments for 'object' command", "OBJECT")
    err(raw, "ERR wrong number of arguments for 'object|encoding' command", "OBJECT", "ENCODING")
    err(raw, "ERR wrong number of arguments for 'object|help' command", "OBJECT", "HELP", "x")
    raw.close()


def t_object_idletime():
    raw = Raw(PORT)
    raw.cmd("SET", "ob:k", "v")
    eq(raw.cmd("OBJECT", "idletime", "ob:k"), 0, "a key just written is idle 0 s")
    eq(raw.cmd("OBJECT", "IDLETIME", "ob:none"), None, "OBJECT IDLETIME of a missing key is nil")
    check("IDLETIME <key>" in raw.cmd("OBJECT", "HELP"), "HELP offers IDLETIME")
    raw.close()


def t_binary_keys():
    r = R
    raw = Raw(PORT)
    k1, k2 = b"bin\x00key\xff\r\n*", b"bin\x00two"
    r.set(k1, b"\x00value\xff")
    eq(r.exists(k1), 1)
    eq(r.exists(b"bin"), 0, "a key is not cut at its NUL byte")
    eq(r.type(k1), b"string")
    eq(r.expire(k1, 100), True)
    eq(r.ttl(k1), 100)
    eq(r.rename(k1, k2), True)
    eq(r.get(k2), b"\x00value\xff")
    eq(r.ttl(k2), 100)
    eq(sorted(r.keys(b"bin\x00*")), [k2])
    eq(r.copy(k2, k1), True)
    got = []
    cursor = b"0"
    while True:
        cursor, keys = raw.cmd("SCAN", cursor, "MATCH", b"bin\x00*", "COUNT", "100")
        got.extend(keys)
        if cursor == b"0":
            break
    eq(sorted(got), sorted([k1, k2]), "SCAN MATCH with a NUL byte")
    eq(r.move(k1, 6), True)
    eq(client(6).get(k1), b"\x00value\xff")
    eq(r.delete(k2), 1)
    eq(client(6).delete(k1), 1)
    raw.close()


def t_scratchpads():
    """Returns a skip reason when the server has no scratchpads yet."""
    raw = Raw(PORT, db=10)
    if isinstance(raw.cmd("SP.WRITE", "pad:a", "plan", "step one"), Err):
        raw.close()
        return "SP.WRITE is not available in this build"
    wipe(10)
    wipe(1)
    eq(raw.cmd("SP.WRITE", "pad:a", "plan", "step one"), 1)
    eq(raw.cmd("SP.WRITE", "pad:a", "notes", "short-lived"), 1)
    eq(raw.cmd("SP.PEXPIRE", "pad:a", "notes", "250"), 1)
    raw.cmd("SET", "pad:str", "v")
    eq(raw.cmd("TYPE", "pad:a"), "scratchpad")
    eq(raw.cmd("OBJECT", "ENCODING", "pad:a"), b"sortedarray")
    eq(raw.cmd("OBJECT", "REFCOUNT", "pad:a"), 1)
    eq(sorted(full_scan(raw, "TYPE", "scratchpad")), [b"pad:a"], "SCAN TYPE scratchpad")
    eq(sorted(full_scan(raw, "TYPE", "string")), [b"pad:str"])
    eq(raw.cmd("COPY", "pad:a", "pad:b"), 1)
    eq(raw.cmd("TYPE", "pad:b"), "scratchpad")
    eq(raw.cmd("SP.READ", "pad:b", "plan"), b"step one")
    check(not isinstance(raw.cmd("SP.WRITE", "pad:b", "plan", "changed"), Err), "SP.WRITE on the copy")
    eq(raw.cmd("SP.READ", "pad:a", "plan"), b"step one", "a copied scratchpad is independent")
    eq(raw.cmd("RENAME", "pad:b", "pad:c"), "OK")
    eq(raw.cmd("SP.READ", "pad:c", "plan"), b"changed")
    eq(raw.cmd("EXPIRE", "pad:c", "100"), 1)
    eq(raw.cmd("MOVE", "pad:c", "1"), 1)
    one = Raw(PORT, db=1)
    eq(one.cmd("TYPE", "pad:c"), "scratchpad")
    check(0 < one.cmd("TTL", "pad:c") <= 100, "MOVE keeps a scratchpad's TTL")
    check(0 < one.cmd("SP.PTTL", "pad:c", "notes") <= 250, "entry expiry survives COPY, RENAME and MOVE")
    # The short-lived entry goes from the original and from the moved copy.
    time.sleep(0.35)
    eq(raw.cmd("SP.READ", "pad:a", "notes"), None)
    eq(one.cmd("SP.READ", "pad:c", "notes"), None, "the copy's entry expires in its new database")
    eq(one.cmd("SP.READ", "pad:c", "plan"), b"changed")
    # A scratchpad whose only entry expires is gone for the key commands too.
    eq(raw.cmd("SP.WRITE", "pad:d", "tmp", "x"), 1)
    eq(raw.cmd("SP.PEXPIRE", "pad:d", "tmp", "300"), 1)
    eq(raw.cmd("COPY", "pad:d", "pad:e"), 1)
    time.sleep(0.35)
    eq(raw.cmd("EXISTS", "pad:d", "pad:e"), 0, "scratchpads whose entries all expired")
    eq(raw.cmd("TYPE", "pad:e"), "none")
    eq(raw.cmd("DEL", "pad:a", "pad:str"), 2)
    one.cmd("DEL", "pad:c")
    one.close()
    raw.close()
    return None


def watch_then(setup, action, key="w:k"):
    """Run setup on one client, WATCH key on another, run action on the first,
    then EXEC on the watcher. True if the transaction was aborted (EXEC nil)."""
    actor, watcher = Raw(PORT), Raw(PORT)
    actor.cmd("DEL", "w:k", "w:k2", "w:none")
    client(5).delete("w:k")
    for cmd in setup:
        actor.cmd(*cmd)
    eq(watcher.cmd("WATCH", key), "OK")
    got = actor.cmd(*action)
    check(not isinstance(got, Err), "%s: %r" % (action, got))
    watcher.cmd("MULTI")
    watcher.cmd("PING")
    res = watcher.cmd("EXEC")
    actor.close()
    watcher.close()
    return res is None


def t_watch():
    s = ("SET", "w:k", "v")
    st = ("SET", "w:k", "v", "EX", "100")
    dirty = [
        ([s], ("EXPIRE", "w:k", "100")),
        ([st], ("PERSIST", "w:k")),
        ([s], ("PEXPIRE", "w:k", "-1")),
        ([s], ("DEL", "w:k")),
        ([s], ("UNLINK", "w:k")),
        ([s], ("RENAME", "w:k", "w:k2")),
        ([s, ("SET", "w:k2", "x")], ("RENAME", "w:k2", "w:k")),
        ([s], ("RENAMENX", "w:k", "w:k2")),
        ([s], ("MOVE", "w:k", "5")),
        ([s, ("SET", "w:k2", "x")], ("COPY", "w:k2", "w:k", "REPLACE")),
        ([st], ("EXPIRE", "w:k", "50", "LT")),
    ]
    clean = [
        ([s], ("EXPIRE", "w:k", "100", "XX")),
        ([s], ("PERSIST", "w:k")),
        ([st], ("EXPIRE", "w:k", "100", "NX")),
        ([], ("DEL", "w:k")),
        ([s], ("COPY", "w:k", "w:k2")),
        ([s], ("EXISTS", "w:k")),
        ([s], ("TOUCH", "w:k")),
        ([s], ("TYPE", "w:k")),
        ([st], ("TTL", "w:k")),
        ([s, ("SET", "w:k2", "x")], ("RENAMENX", "w:k", "w:k2")),
        ([s], ("RENAME", "w:k", "w:k")),
        ([s], ("OBJECT", "ENCODING", "w:k")),
    ]
    for setup, action in dirty:
        check(watch_then(setup, action), "%s should abort a WATCHing transaction" % (action,))
    for setup, action in clean:
        check(not watch_then(setup, action), "%s should not abort a WATCHing transaction" % (action,))


def t_watch_swapdb():
    watcher, other = Raw(PORT, db=11), Raw(PORT)
    wipe(11)
    wipe(12)
    client(12).set("ws:k", "v")
    eq(watcher.cmd("WATCH", "ws:k"), "OK")
    eq(other.cmd("SWAPDB", "11", "12"), "OK")
    watcher.cmd("MULTI")
    watcher.cmd("GET", "ws:k")
    eq(watcher.cmd("EXEC"), None, "SWAPDB bringing a watched key in aborts EXEC")
    watcher.close()
    other.close()


def t_resp3_shapes():
    r3 = Raw(PORT, resp=3, db=8)
    wipe(8)
    eq(r3.cmd("RANDOMKEY"), None)
    eq(r3.last, b"_\r\n", "RANDOMKEY on an empty database is a RESP3 null")
    eq(r3.cmd("OBJECT", "ENCODING", "none"), None)
    eq(r3.last, b"_\r\n")
    eq(r3.cmd("OBJECT", "REFCOUNT", "none"), None)
    eq(r3.last, b"_\r\n")
    r3.cmd("SET", "k", "v")
    eq(r3.cmd("TYPE", "k"), "string")
    eq(r3.last, b"+string\r\n")
    eq(r3.cmd("SCAN", "0"), [b"0", [b"k"]])
    eq(r3.last, b"*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n", "SCAN in RESP3 is the same array")
    eq(r3.cmd("KEYS", "*"), [b"k"])
    eq(r3.last, b"*1\r\n$1\r\nk\r\n")
    eq(r3.cmd("TTL", "k"), -1)
    eq(r3.last, b":-1\r\n")
    eq(r3.cmd("RANDOMKEY"), b"k")
    eq(r3.cmd("OBJECT", "ENCODING", "k"), b"embstr")
    eq(r3.cmd("EXISTS", "k", "k"), 2)
    eq(r3.cmd("RENAME", "k", "k2"), "OK")
    eq(r3.last, b"+OK\r\n")
    err(r3, "ERR no such key", "RENAME", "k", "k3")
    eq(r3.last, b"-ERR no such key\r\n")
    help_ = r3.cmd("OBJECT", "HELP")
    check(r3.last.startswith(b"*15\r\n+OBJECT <subcommand>"), "OBJECT HELP is an array of simple strings")
    eq(len(help_), 15)
    r3.close()


# COMMAND INFO: arity, flags, first/last/step and ACL categories, as Redis 7.0.
COMMAND_INFO = {
    "del": (-2, ["write"], 1, -1, 1, ["@keyspace", "@write", "@slow"]),
    "unlink": (-2, ["write", "fast"], 1, -1, 1, ["@keyspace", "@write", "@fast"]),
    "exists": (-2, ["readonly", "fast"], 1, -1, 1, ["@keyspace", "@read", "@fast"]),
    "type": (2, ["readonly", "fast"], 1, 1, 1, ["@keyspace", "@read", "@fast"]),
    "rename": (3, ["write"], 1, 2, 1, ["@keyspace", "@write", "@slow"]),
    "renamenx": (3, ["write", "fast"], 1, 2, 1, ["@keyspace", "@write", "@fast"]),
    "copy": (-3, ["write", "denyoom"], 1, 2, 1, ["@keyspace", "@write", "@slow"]),
    "move": (3, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "swapdb": (3, ["write", "fast"], 0, 0, 0, ["@keyspace", "@write", "@fast", "@dangerous"]),
    "touch": (-2, ["readonly", "fast"], 1, -1, 1, ["@keyspace", "@read", "@fast"]),
    "randomkey": (1, ["readonly"], 0, 0, 0, ["@keyspace", "@read", "@slow"]),
    "keys": (2, ["readonly"], 0, 0, 0, ["@keyspace", "@read", "@slow", "@dangerous"]),
    "scan": (-2, ["readonly"], 0, 0, 0, ["@keyspace", "@read", "@slow"]),
    "expire": (-3, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "pexpire": (-3, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "expireat": (-3, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "pexpireat": (-3, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "ttl": (2, ["readonly", "fast"], 1, 1, 1, ["@keyspace", "@read", "@fast"]),
    "pttl": (2, ["readonly", "fast"], 1, 1, 1, ["@keyspace", "@read", "@fast"]),
    "expiretime": (2, ["readonly", "fast"], 1, 1, 1, ["@keyspace", "@read", "@fast"]),
    "pexpiretime": (2, ["readonly", "fast"], 1, 1, 1, ["@keyspace", "@read", "@fast"]),
    "persist": (2, ["write", "fast"], 1, 1, 1, ["@keyspace", "@write", "@fast"]),
    "object": (-2, [], 0, 0, 0, ["@slow"]),
}


def t_command_info():
    """Returns a skip reason when the server has no COMMAND yet."""
    raw = Raw(PORT)
    probe = raw.cmd("COMMAND", "INFO", "del")
    if isinstance(probe, Err) and "unknown command" in probe:
        raw.close()
        return "COMMAND is not implemented in this build"
    for name, (arity, flags, first, last, step, acl) in COMMAND_INFO.items():
        info = raw.cmd("COMMAND", "INFO", name)
        check(isinstance(info, list) and len(info) == 1 and isinstance(info[0], list), "COMMAND INFO %s" % name)
        row = info[0]
        eq(row[0], name.encode(), "name")
        eq(row[1], arity, "%s arity" % name)
        eq(sorted(str(f) for f in row[2]), sorted(flags), "%s flags" % name)
        eq((row[3], row[4], row[5]), (first, last, step), "%s key positions" % name)
        eq(sorted(str(a) for a in row[6]), sorted(acl), "%s ACL categories" % name)
    raw.close()
    return None


CASES = [
    (t_del_unlink_exists, "DEL and UNLINK count deleted keys, EXISTS counts repeated keys"),
    (t_type_touch, "TYPE answers string or none as a simple string, TOUCH counts existing keys"),
    (t_rename, "RENAME and RENAMENX move the value and TTL, handle same-key and missing-key cases"),
    (t_copy, "COPY copies value and TTL within and across databases, with REPLACE, DB and Redis's errors"),
    (t_copy_values_are_independent, "a COPY of an inline, heap or compressed value is independent of its source"),
    (t_moved_raw_values_grow, "a 200-byte value copied, renamed or moved takes a SET, APPEND or SETRANGE past 255 "
                              "bytes (the server aborted)"),
    (t_move, "MOVE moves a key and its TTL to another database, refuses an existing target and bad indexes"),
    (t_swapdb, "SWAPDB exchanges contents while clients keep their database numbers"),
    (t_randomkey, "RANDOMKEY returns live keys only and nil at once when every key has expired"),
    (t_keys, "KEYS matches glob patterns and leaves out expired keys"),
    (t_scan_basics, "SCAN returns every key, filters by MATCH and TYPE, and rejects bad cursors and COUNTs"),
    (t_scan_expired, "SCAN leaves out keys past their expiry time"),
    (t_scan_grow_shrink, "SCAN returns every key present throughout while the table grows and then shrinks"),
    (t_expire_options, "EXPIRE NX/XX/GT/LT follow Redis 7 semantics and errors, including overflow"),
    (t_expire_in_the_past_deletes, "an expire time in the past deletes the key and answers 1"),
    (t_expire_milliseconds, "PEXPIRE and PEXPIREAT expire keys to the millisecond"),
    (t_ttl_family, "TTL, PTTL, EXPIRETIME, PEXPIRETIME and PERSIST answer -2, -1 and rounded times"),
    (t_object, "OBJECT ENCODING, REFCOUNT, FREQ and HELP answer as Redis with noeviction"),
    (t_object_idletime, "OBJECT IDLETIME answers the seconds since the last access, nil for a missing key"),
    (t_binary_keys, "keys with NUL, CR, LF and high bytes work with every key command"),
    (t_watch, "every key write aborts a WATCHing transaction and reads or no-ops do not"),
    (t_watch_swapdb, "SWAPDB aborts a transaction watching a key it brings in"),
    (t_resp3_shapes, "replies in RESP3 have Redis's shapes, nulls as _"),
]


def main():
    global PORT, R
    server = Server()
    failed = 0
    try:
        server.start()
        PORT = server.port
        R = client(0)
        for fn, desc in CASES:
            try:
                fn()
                print("ok - %s" % desc)
            except Exception as e:  # noqa: BLE001 -- any failure fails the case
                failed += 1
                print("not ok - %s" % desc)
                print("    %s: %s" % (type(e).__name__, e))
            sys.stdout.flush()
        desc = "COMMAND INFO gives each key command Redis's arity, flags, key positions and ACL categories"
        try:
            skip = t_command_info()
            print("ok - %s%s" % (desc, " # SKIP " + skip if skip else ""))
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("not ok - %s" % desc)
            print("    %s: %s" % (type(e).__name__, e))
        desc = "the key commands handle scratchpads: TYPE, SCAN TYPE, COPY, RENAME, MOVE and entry expiry"
        try:
            skip = t_scratchpads()
            print("ok - %s%s" % (desc, " # SKIP " + skip if skip else ""))
        except Exception as e:  # noqa: BLE001
            failed += 1
            print("not ok - %s" % desc)
            print("    %s: %s" % (type(e).__name__, e))
        if server.proc.poll() is not None:
            failed += 1
            print("not ok - the server is still running at the end")
            print(server.log_tail())
    except Exception as e:  # noqa: BLE001
        failed += 1
        print("not ok - the keys test ran to completion")
        print("    %s: %s" % (type(e).__name__, e))
    finally:
        server.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
