"""sp_model.py -- thousands of random SP operations against a plain Python model.

Each phase starts a server of its own (tests/lib/spserver.py) and applies a
seeded random sequence of SP commands through redis-py (`execute_command`, as an
agent harness would) to the server and to a model made of dicts and bytes,
comparing every reply with the model's answer and, after every change, the
touched entry (SP.STAT, whole SP.READ) and whether the scratchpad key exists.
The whole state is compared every 250 steps and at the end.

Operations: SP.WRITE (KIND, NX/XX, IFVERSION, EX/KEEPTTL), SP.APPEND, SP.EDIT
(unique and ALL, not found, ambiguous), SP.INSERT, SP.DEL, SP.READ windows
(OFFSET/LIMIT, HEAD, TAIL, LINES with negative indexes, BYTES, WITHMETA),
SP.RANGE (negative, reversed, out of range, BYTES), SP.GREP LITERAL (with MAX,
CONTEXT, NOCASE, WITHMETA), SP.STAT (sha256 through hashlib), SP.PEEK, and
SP.LIST walks with COUNT, cursor, MATCH and WITHMETA while entries are written
and deleted between pages (every entry present throughout must be listed exactly
once, in name order), SP.OFFLOAD (its counter and previews), SP.EXPIRE /
SP.PERSIST / SP.TTL with lifetimes too long to end during the run, SP.INFO, and
COPY / RENAME of whole scratchpads.

Content: text of ASCII words, é, 中, 😀 and newlines, binary with NULs and invalid
UTF-8, from empty to several chunks; some values are built so that a multi-byte
character straddles a chunk boundary. One run uses --compress-threshold 512
--compress-chunk 1024 (many chunks, boundaries everywhere), another the defaults.

Each phase ends by stopping its server by PID: it must exit with status 0 and
no sanitizer report in its log, so the file is worth running under the ASan
build too. One ok/not ok line per phase. A failure names the seed, the step, the command,
what was expected and what came back, and the last commands before it; rerun
with SP_MODEL_SEED=<seed> to replay. Each phase stops at its time budget (the
number of steps done is printed), so the whole file stays around a minute.
"""

import fnmatch
import hashlib
import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

SEED = int(os.environ.get("SP_MODEL_SEED", "20240501"))
STEPS = int(os.environ.get("SP_MODEL_STEPS", "5000"))

NAMESPACES = [b"model:alpha", b"model:beta"]
NAMES = [b"notes", b"plan/step-1", b"log", b"bin.dat", b"a", b"b:c", b"x-y_z", b"deep/er/path"]
WORDS = [b"alpha", b"beta", b"gamma", b"error", b"Error", b"ERROR", b"id=42", b"caf\xc3\xa9",
         "中文".encode(), "😀".encode(), "é".encode(), b"x"]
TOKENS = WORDS + [b" ", b" ", b"\n", b"\n", b"\n\n", b"\t", b"--", "中".encode(), "😀😀".encode()]
EMOJI = "😀".encode()


class Mismatch(AssertionError):
    pass


# ---- the model ----

class Entry:
    __slots__ = ("content", "kind", "version", "ttl")

    def __init__(self, content, kind):
        self.content = content
        self.kind = kind
        self.version = 0
        self.ttl = False

    def units(self):
        """The content in the entry's unit: str (code points) or bytes."""
        return self.content.decode("utf-8") if self.kind == "text" else self.content

    def length(self):
        return len(self.units())

    def lines(self):
        c = self.content
        return c.count(b"\n") + (1 if c and not c.endswith(b"\n") else 0)


def utf8_ok(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def detect_kind(b):
    return "text" if b"\x00" not in b and utf8_ok(b) else "binary"


def line_start(content, line):
    """Byte offset where 1-based line `line` starts (size past the last)."""
    if line <= 1:
        return 0
    pos = 0
    for _ in range(line - 1):
        nl = content.find(b"\n", pos)
        if nl < 0:
            return len(content)
        pos = nl + 1
    return pos


def as_bytes(units):
    return units.encode("utf-8") if isinstance(units, str) else units


def pairs(flat):
    """A RESP2 map (flat list) as a dict with str keys."""
    if flat is None:
        return None
    return {flat[i].decode(): flat[i + 1] for i in range(0, len(flat), 2)}


def short(x, n=160):
    r = repr(x)
    return r if len(r) <= n else r[:n] + "...(%d chars)" % len(r)


# ---- the driver ----

class Run:
    """One phase: a server, a model, a seeded generator, and a log of commands."""

    def __init__(self, port, seed, threshold, chunk):
        self.r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=30, socket_connect_timeout=30)
        self.rng = random.Random(seed)
        self.seed = seed
        self.threshold = threshold
        self.chunk = chunk
        self.model = {ns: {} for ns in NAMESPACES}
        self.seq = {ns: {} for ns in NAMESPACES}  # SP.OFFLOAD's counter per prefix, reset with the key
        self.step = 0
        self.history = []

    # -- talking to the server --

    def call(self, *args):
        """The reply to args, or the ResponseError raised (returned, not raised)."""
        self.history.append(args)
        if len(self.history) > 8:
            del self.history[0]
        try:
            return self.r.execute_command(*args)
        except ResponseError as e:
            return e

    def fail(self, what, got, want):
        lines = ["seed %d (rerun with SP_MODEL_SEED=%d), step %d: %s" % (self.seed, self.seed, self.step, what),
                 "  got:  " + short(got, 600), "  want: " + short(want, 600), "  last commands:"]
        for h in self.history:
            lines.append("    " + " ".join(short(a, 80) for a in h))
        raise Mismatch("\n".join(lines))

    def expect(self, args, want, what=None):
        got = self.call(*args)
        if isinstance(got, ResponseError) or got != want:
            self.fail(what or "reply", got, want)
        return got

    def expect_error(self, args, fragment):
        got = self.call(*args)
        if not isinstance(got, ResponseError) or fragment not in str(got):
            self.fail("an error containing %r" % fragment, got, "error: " + fragment)

    # -- content --

    def text(self, size):
        out, n = [], 0
        while n < size:
            batch = self.rng.choices(TOKENS, k=(size - n) // 4 + 1)
            out += batch
            n += sum(map(len, batch))
        return b"".join(out)

    def binary(self, size):
        out, n = [], 0
        while n < size:
            k = self.rng.random()
            if k < 0.4:
                t = self.rng.choice(TOKENS)
            elif k < 0.6:
                t = self.rng.choice([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\xf4\x90\x80\x80"])
            else:
                k = self.rng.randint(1, 16)
                t = self.rng.getrandbits(8 * k).to_bytes(k, "little")
            out.append(t)
            n += len(t)
        if self.rng.random() < 0.5:
            out.append(b"\x00")
        return b"".join(out)

    def size(self):
        k = self.rng.random()
        if k < 0.05:
            return 0
        if k < 0.45:
            return self.rng.randint(1, 120)
        if k < 0.65:
            return self.rng.randint(self.threshold - 100, self.threshold + 200)
        if k < 0.9:
            return self.rng.randint(self.chunk // 2, 3 * self.chunk)
        return self.rng.randint(3 * self.chunk, 6 * self.chunk)

    def content(self):
        size = self.size()
        k = self.rng.random()
        if k < 0.12 and size >= self.chunk:
            # a multi-byte character cut by every chunk boundary it meets
            cut = self.rng.randint(1, 3)
            parts = []
            for b in range(1, size // self.chunk + 1):
                have = sum(map(len, parts))
                parts.append(b"a" * max(0, b * self.chunk - cut - have))
                parts.append(EMOJI)
            parts.append(b"\nend\n")
            return b"".join(parts)
        return self.binary(size) if k > 0.85 else self.text(size)

    def small_text(self):
        return self.text(self.rng.randint(0, 30))

    def pick_ns(self):
        return self.rng.choice(NAMESPACES)

    def pick_name(self, ns, existing_bias=0.8):
        ents = self.model[ns]
        if ents and self.rng.random() < existing_bias:
            return self.rng.choice(sorted(ents))
        return self.rng.choice(NAMES)

    # -- checks --

    def check_entry(self, ns, name):
        """The entry on the server is the model's (or both are absent)."""
        e = self.model[ns].get(name)
        if e is None:
            self.expect(("SP.STAT", ns, name), None, "SP.STAT of a missing entry")
            self.expect(("SP.READ", ns, name), None, "SP.READ of a missing entry")
        else:
            self.check_stat(ns, name, e)
            self.expect(("SP.READ", ns, name), e.content, "whole content")
        want = 1 if self.model[ns] else 0
        self.expect(("EXISTS", ns), want, "EXISTS of the scratchpad key")
        if want:
            self.expect(("TYPE", ns), b"scratchpad", "TYPE of the scratchpad key")

    def check_stat(self, ns, name, e):
        got = self.call("SP.STAT", ns, name)
        if isinstance(got, ResponseError) or got is None:
            self.fail("SP.STAT", got, "a map")
        m = pairs(got)
        size = len(e.content)
        lz = self.threshold > 0 and size >= self.threshold
        want = {"kind": e.kind.encode(), "size": size, "length": e.length(), "lines": e.lines(),
                "version": e.version, "encoding": b"lz4" if lz else b"raw",
                "sha256": hashlib.sha256(e.content).hexdigest().encode()}
        for k, v in want.items():
            if m.get(k) != v:
                self.fail("SP.STAT field %s" % k, m, want)
        # Chunks hold compress-chunk bytes at most, and at least a quarter of it
        # but the last (an edit of another length leaves shorter ones: splices).
        least = (size + self.chunk - 1) // self.chunk if lz else 0
        most = 1 + size // (self.chunk // 4) if lz and size else 0
        if not isinstance(m.get("chunks"), int) or not least <= m["chunks"] <= most:
            self.fail("SP.STAT field chunks (from %d to %d)" % (least, most), m, want)
        if (m.get("ttl", -1) > 0) != e.ttl or (not e.ttl and m.get("ttl") != -1):
            self.fail("SP.STAT ttl (model has a ttl: %s)" % e.ttl, m.get("ttl"), "ttl")
        if not isinstance(m.get("created"), int) or m.get("updated", 0) < m.get("created", 0):
            self.fail("SP.STAT created/updated", m, "created <= updated")

    def check_all(self):
        for ns in NAMESPACES:
            got = self.call("SP.LIST", ns, "COUNT", 1000)
            want_names = sorted(self.model[ns])
            if isinstance(got, ResponseError) or got[0] != b"0" or got[1] != want_names:
                self.fail("SP.LIST of the whole scratchpad", got, [b"0", want_names])
            for name in want_names:
                self.check_entry(ns, name)
            self.expect(("EXISTS", ns), 1 if want_names else 0, "EXISTS")
            info = pairs(self.call("SP.INFO", ns))
            if not want_names:
                if info is not None:
                    self.fail("SP.INFO of a missing scratchpad", info, None)
                continue
            want = {"entries": len(want_names), "bytes": sum(len(e.content) for e in self.model[ns].values())}
            if any(info.get(k) != v for k, v in want.items()) or not info.get("stored_bytes", 0) > 0:
                self.fail("SP.INFO", info, want)

    # -- writes --

    def op_write(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.6)
        ents = self.model[ns]
        cur = ents.get(name)
        data = self.content()
        args = ["SP.WRITE", ns, name, data]
        kind = detect_kind(data)
        want_err = None
        r = self.rng.random()
        if r < 0.15:
            args += ["KIND", "text"]
            if not utf8_ok(data):
                want_err = "KIND text requires valid UTF-8 content"
            kind = "text"
        elif r < 0.25:
            args += ["KIND", "binary"]
            kind = "binary"
        cond = self.rng.random()
        nil = False
        if cond < 0.1:
            args.append("NX")
            nil = cur is not None
        elif cond < 0.2:
            args.append("XX")
            nil = cur is None
        ifv = None
        if self.rng.random() < 0.25:
            ifv = (cur.version if cur else 0) if self.rng.random() < 0.7 else self.rng.randint(0, 5)
            args += ["IFVERSION", ifv]
        ttl = None
        t = self.rng.random()
        if t < 0.1:
            args += ["EX", 1000]
            ttl = True
        elif t < 0.2:
            args.append("KEEPTTL")
        if want_err:
            self.expect_error(args, want_err)
        elif nil:
            self.expect(args, None, "SP.WRITE NX/XX refused")
        elif ifv is not None and ifv != (cur.version if cur else 0):
            self.expect_error(args, "VERSION entry")
        else:
            e = cur or Entry(b"", kind)
            e.content, e.kind = data, kind
            e.version += 1
            if ttl:
                e.ttl = True
            elif "KEEPTTL" not in args:
                e.ttl = False
            ents[name] = e
            self.expect(args, e.version, "SP.WRITE version")
        self.check_entry(ns, name)

    def op_append(self):
        ns = self.pick_ns()
        name = self.pick_name(ns)
        ents = self.model[ns]
        cur = ents.get(name)
        k = self.rng.random()
        if k < 0.5:
            data = self.text(self.rng.randint(0, 60))
        elif k < 0.8:
            data = self.text(self.rng.randint(100, 2 * self.chunk))
        else:
            data = self.binary(self.rng.randint(1, 200))
        args = ["SP.APPEND", ns, name, data]
        ifv = None
        if self.rng.random() < 0.2:
            ifv = (cur.version if cur else 0) if self.rng.random() < 0.7 else self.rng.randint(0, 5)
            args += ["IFVERSION", ifv]
        if ifv is not None and ifv != (cur.version if cur else 0):
            self.expect_error(args, "VERSION entry")
        elif cur is not None and cur.kind == "text" and not utf8_ok(data):
            self.expect_error(args, "cannot append invalid UTF-8 to a text entry")
        else:
            if cur is None:
                cur = ents[name] = Entry(data, detect_kind(data))
            else:
                cur.content += data
            cur.version += 1
            self.expect(args, cur.length(), "SP.APPEND length")
        self.check_entry(ns, name)

    def op_edit(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.9)
        ents = self.model[ns]
        cur = ents.get(name)
        content = cur.content if cur else b""
        k = self.rng.random()
        if cur and content and k < 0.55:
            if cur.kind == "text":
                u = cur.units()
                a = self.rng.randrange(len(u))
                old = u[a:a + self.rng.randint(1, 12)].encode()
            else:
                a = self.rng.randrange(len(content))
                old = content[a:a + self.rng.randint(1, 12)]
        elif k < 0.85:
            old = self.rng.choice(WORDS)
        else:
            old = b"zz-not-there"
        new = self.small_text() if self.rng.random() < 0.85 else self.binary(4)
        use_all = self.rng.random() < 0.4
        args = ["SP.EDIT", ns, name, old, new]
        if use_all:
            args.append("ALL")
        ifv = None
        if self.rng.random() < 0.2:
            ifv = (cur.version if cur else 0) if self.rng.random() < 0.7 else self.rng.randint(0, 5)
            args += ["IFVERSION", ifv]
        if ifv is not None and ifv != (cur.version if cur else 0):
            self.expect_error(args, "VERSION entry")
        elif cur is None:
            self.expect_error(args, "no such entry '%s'" % name.decode())
        else:
            count = content.count(old)
            if count == 0:
                self.expect_error(args, "old text not found in entry '%s'" % name.decode())
            elif count > 1 and not use_all:
                starts, pos, line, scanned = [], 0, 1, 0
                while len(starts) < 21:
                    hit = content.find(old, pos)
                    if hit < 0:
                        break
                    line += content.count(b"\n", scanned, hit)
                    scanned = hit
                    starts.append(line)
                    pos = hit + len(old)
                shown = ", ".join(str(x) for x in starts[:20]) + (", ..." if len(starts) > 20 else "")
                self.expect_error(args, "old text occurs %d times in entry '%s' (at lines %s)"
                                  % (count, name.decode(), shown))
            else:
                out = content.replace(old, new)
                if cur.kind == "text" and not utf8_ok(out):
                    self.expect_error(args, "the edit would make a text entry invalid UTF-8")
                else:
                    cur.content = out
                    cur.version += 1
                    self.expect(args, [count, cur.version], "SP.EDIT reply")
        self.check_entry(ns, name)

    def op_insert(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.9)
        cur = self.model[ns].get(name)
        lines = cur.lines() if cur else 0
        k = self.rng.random()
        if k < 0.2:
            line = -1
        elif k < 0.35:
            line = 0
        elif k < 0.4:
            line = -2
        else:
            line = self.rng.randint(1, lines + 2)
        text = self.small_text()
        if self.rng.random() < 0.5:
            text += b"\n"
        if cur and cur.kind == "binary" and self.rng.random() < 0.3:
            text = self.binary(5)
        args = ["SP.INSERT", ns, name, line, text]
        ifv = None
        if self.rng.random() < 0.2:
            ifv = (cur.version if cur else 0) if self.rng.random() < 0.7 else self.rng.randint(0, 5)
            args += ["IFVERSION", ifv]
        if line < -1:
            self.expect_error(args, "line must be -1")
        elif ifv is not None and ifv != (cur.version if cur else 0):
            self.expect_error(args, "VERSION entry")
        elif cur is None:
            self.expect_error(args, "no such entry")
        else:
            c = cur.content
            if line == -1 or line > lines:
                line = lines
            at = line_start(c, line + 1)
            lead = b"\n" if at == len(c) and c and not c.endswith(b"\n") else b""
            trail = b"\n" if at < len(c) and not text.endswith(b"\n") else b""
            out = c[:at] + lead + text + trail + c[at:]
            if cur.kind == "text" and not utf8_ok(out):
                self.expect_error(args, "the edit would make a text entry invalid UTF-8")
            else:
                cur.content = out
                cur.version += 1
                self.expect(args, cur.version, "SP.INSERT version")
        self.check_entry(ns, name)

    def op_del(self):
        ns = self.pick_ns()
        names = [self.pick_name(ns, 0.7) for _ in range(self.rng.randint(1, 3))]
        ents = self.model[ns]
        n = 0
        for nm in names:
            if nm in ents:
                del ents[nm]
                n += 1
        self.expect(["SP.DEL", ns] + names, n, "SP.DEL count")
        for nm in set(names):
            self.check_entry(ns, nm)

    def op_offload(self):
        """SP.OFFLOAD: stored under <prefix>-<n> above the threshold, echoed below."""
        ns = self.pick_ns()
        data = self.content() if self.rng.random() < 0.7 else self.small_text()
        threshold = self.rng.choice([None, 0, 10, 100, len(data), max(len(data) - 1, 0)])
        prefix = self.rng.choice([None, b"obs", b"tool/out", b"x"])
        args = ["SP.OFFLOAD", ns, data]
        if threshold is not None:
            args += ["THRESHOLD", threshold]
        if prefix is not None:
            args += ["PREFIX", prefix]
        ttl = self.rng.random() < 0.2
        if ttl:
            args += ["EX", 1000]
        kind = detect_kind(data)
        if self.rng.random() < 0.15:
            args += ["KIND", "text"]
            if not utf8_ok(data):
                self.expect_error(args, "KIND text requires valid UTF-8 content")
                return
            kind = "text"
        if len(data) <= (4096 if threshold is None else threshold):
            self.expect(args, [b"stored", 0, b"content", data], "SP.OFFLOAD below the threshold")
            return
        ents = self.model[ns]
        pfx = prefix or b"obs"
        counters = self.seq[ns]
        while True:
            counters[pfx] = counters.get(pfx, 0) + 1
            name = b"%s-%d" % (pfx, counters[pfx])
            if name not in ents:
                break
        e = ents[name] = Entry(data, kind)
        e.version, e.ttl = 1, ttl
        if kind == "binary":
            preview = b"[BINARY: %d bytes, sha256=%s]" % (len(data), hashlib.sha256(data).hexdigest().encode())
        else:
            u = e.units()
            preview = data if len(u) <= 1000 else (
                u[:500] + "\n[... %d characters omitted ...]\n" % (len(u) - 1000) + u[-500:]).encode()
        self.expect(args, [b"stored", 1, b"name", name, b"size", len(data), b"length", e.length(),
                           b"kind", kind.encode(), b"preview", preview], "SP.OFFLOAD stored")
        self.check_entry(ns, name)

    def op_ttl(self):
        """Per-entry lifetimes, kept far in the future so that nothing expires here."""
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.9)
        e = self.model[ns].get(name)
        k = self.rng.random()
        if k < 0.3:
            self.expect(("SP.EXPIRE", ns, name, 5000), 1 if e else 0, "SP.EXPIRE")
            if e:
                e.ttl = True
        elif k < 0.5:
            self.expect(("SP.PERSIST", ns, name), 1 if e and e.ttl else 0, "SP.PERSIST")
            if e:
                e.ttl = False
        else:
            got = self.call("SP.TTL", ns, name)
            ok = (got == -2) if e is None else (0 < got <= 5000 if e.ttl else got == -1)
            if isinstance(got, ResponseError) or not ok:
                self.fail("SP.TTL (model: %s)" % ("missing" if e is None else "ttl" if e.ttl else "no ttl"),
                          got, "-2, -1 or 1..5000")
        if e:
            self.check_stat(ns, name, e)

    def op_copy_rename(self):
        """COPY or RENAME one scratchpad onto the other: whole sessions move."""
        src, dst = NAMESPACES if self.rng.random() < 0.5 else NAMESPACES[::-1]
        if self.rng.random() < 0.5:
            replace = self.rng.random() < 0.7
            args = ["COPY", src, dst] + (["REPLACE"] if replace else [])
            want = 1
            if not self.model[src] or (self.model[dst] and not replace):
                want = 0
            else:
                copy = {}
                for nm, e in self.model[src].items():
                    d = copy[nm] = Entry(e.content, e.kind)
                    d.version, d.ttl = e.version, e.ttl
                self.model[dst] = copy
                self.seq[dst] = dict(self.seq[src])
            got = self.call(*args)
            # redis-py turns COPY's integer into a bool
            if isinstance(got, ResponseError) or int(got) != want:
                self.fail("COPY of a scratchpad", got, want)
        else:
            args = ["RENAME", src, dst]
            if not self.model[src]:
                self.expect_error(args, "no such key")
            else:
                self.model[dst], self.model[src] = self.model[src], {}
                self.seq[dst], self.seq[src] = self.seq[src], {}
                # redis-py turns RENAME's +OK into True
                self.expect(args, True, "RENAME of a scratchpad")
        self.check_all()

    # -- reads --

    def op_read(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.95)
        e = self.model[ns].get(name)
        bytes_mode = self.rng.random() < 0.2
        withmeta = self.rng.random() < 0.5
        args = ["SP.READ", ns, name]
        units = (e.content if bytes_mode else e.units()) if e else b""
        n = len(units)
        mode = self.rng.choice(["all", "offset", "offset-limit", "limit", "head", "tail", "lines", "lines"])

        def rnd():
            k = self.rng.random()
            if k < 0.1:
                return 0
            if k < 0.2:
                return n + self.rng.randint(0, 5)
            return self.rng.randint(0, max(n, 1))

        meta_lines = e.lines() if e else 0
        if mode == "all":
            u0, u1 = 0, n
        elif mode in ("offset", "offset-limit", "limit"):
            o = rnd() if mode != "limit" else 0
            lim = rnd() if mode != "offset" else None
            if mode != "limit":
                args += ["OFFSET", o]
            if lim is not None:
                args += ["LIMIT", lim]
            u0 = min(o, n)
            u1 = n if lim is None else min(u0 + lim, n)
        elif mode == "head":
            h = rnd()
            args += ["HEAD", h]
            u0, u1 = 0, min(h, n)
        elif mode == "tail":
            t = rnd()
            args += ["TAIL", t]
            u0, u1 = max(n - t, 0), n
        else:
            L = e.lines() if e else 0
            a = self.rng.randint(-L - 3, L + 3)
            b = self.rng.choice([-1, self.rng.randint(-L - 3, L + 3)])
            args += ["LINES", a, b]
        if bytes_mode:
            args.append("BYTES")
        if withmeta:
            args.append("WITHMETA")
        if e is None:
            self.expect(args, None, "SP.READ of a missing entry")
            return
        if mode == "lines":
            L = e.lines()
            if a < 0:
                a = L + 1 + a
            if b < 0:
                b = L + 1 + b
            a = max(a, 1)
            b = min(b, L)
            if a > b or a > L:
                data, off, trunc, nxt = b"", a, 0, None
            else:
                data = e.content[line_start(e.content, a):line_start(e.content, b + 1)]
                off, trunc = a, int(b < L)
                nxt = b + 1 if trunc else None
        else:
            data = as_bytes(units[u0:u1])
            off, trunc = u0, int(u1 < n)
            nxt = u1 if trunc else None
        if not withmeta:
            self.expect(args, data, "SP.READ window")
            return
        want_meta = {"version": e.version, "size": len(e.content), "length": e.length(), "lines": meta_lines,
                     "kind": e.kind.encode(), "offset": off, "truncated": trunc, "next_offset": nxt}
        got = self.call(*args)
        if (isinstance(got, ResponseError) or not isinstance(got, list) or len(got) != 2 or got[0] != data
                or pairs(got[1]) != want_meta):
            self.fail("SP.READ WITHMETA", got, [data, want_meta])

    def op_range(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.95)
        e = self.model[ns].get(name)
        bytes_mode = self.rng.random() < 0.2
        units = (e.content if bytes_mode else e.units()) if e else b""
        n = len(units)

        def idx():
            k = self.rng.random()
            if k < 0.15:
                return -self.rng.randint(1, n + 5)
            if k < 0.25:
                return n + self.rng.randint(0, 5)
            return self.rng.randint(0, max(n, 1))

        start = idx()
        args = ["SP.RANGE", ns, name, start]
        end = None
        if self.rng.random() < 0.7:
            end = idx()
            args.append(end)
        if bytes_mode:
            args.append("BYTES")
        if e is None:
            self.expect(args, None, "SP.RANGE of a missing entry")
            return
        self.expect(args, as_bytes(units[start:end]), "SP.RANGE slice")

    def grep_model(self, e, word, max_n, context, nocase):
        """GNU grep's output for a literal word, as SP.GREP replies it."""
        c = e.content
        lines = c.split(b"\n")
        if c.endswith(b"\n"):
            lines.pop()
        if not c:
            lines = []
        w = word.lower() if nocase else word
        match = [w in (ln.lower() if nocase else ln) for ln in lines]
        out, shown, last, after = [], 0, 0, 0
        for i, ln in enumerate(lines, 1):
            if shown < max_n and match[i - 1]:
                for j in range(max(last + 1, i - context), i):
                    out.append(b"%d-%s" % (j, lines[j - 1]))
                out.append(b"%d:%s" % (i, ln))
                last, shown, after = i, shown + 1, context
            elif after > 0:
                out.append(b"%d-%s" % (i, ln))
                last, after = i, after - 1
        return out, sum(match), shown

    def op_grep(self, free_max=False):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.95)
        e = self.model[ns].get(name)
        word = self.rng.choice([b"alpha", b"error", b"id=42", b"caf\xc3\xa9", "中文".encode(), b"x", b"a", b"zzz"])
        context = self.rng.choice([0, 0, 1, 2])
        nocase = self.rng.random() < 0.3
        withmeta = self.rng.random() < 0.4
        args = ["SP.GREP", ns, name, word, "LITERAL"]
        max_n = 100
        if e is not None:
            _, total, _ = self.grep_model(e, word, 1 << 30, 0, nocase)
            if free_max or context == 0:
                max_n = self.rng.choice([100, 0, 1, 3, self.rng.randint(0, total + 1)])
            else:
                # MAX at or above the number of matches: no trailing context
                # after a cut (phase "grep" covers that case)
                max_n = max(100, total)
        if max_n != 100 or self.rng.random() < 0.3:
            args += ["MAX", max_n]
        if context:
            args += ["CONTEXT", context]
        if nocase:
            args.append("NOCASE")
        if withmeta:
            args.append("WITHMETA")
        if e is None:
            self.expect(args, None, "SP.GREP of a missing entry")
            return
        out, matched, shown = self.grep_model(e, word, max_n, context, nocase)
        if withmeta:
            self.expect(args, [out, [b"matched", matched, b"shown", shown, b"truncated", int(matched > shown)]],
                        "SP.GREP WITHMETA")
        else:
            self.expect(args, out, "SP.GREP lines")

    def op_stat(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.95)
        self.check_entry(ns, name)

    def op_peek(self):
        ns = self.pick_ns()
        name = self.pick_name(ns, 0.95)
        e = self.model[ns].get(name)
        head, tail = 500, 500
        args = ["SP.PEEK", ns, name]
        if self.rng.random() < 0.6:
            head = self.rng.randint(0, 50)
            args += ["HEAD", head]
        if self.rng.random() < 0.6:
            tail = self.rng.randint(0, 50)
            args += ["TAIL", tail]
        if e is None:
            self.expect(args, None, "SP.PEEK of a missing entry")
            return
        if e.kind == "binary":
            want = b"[BINARY: %d bytes, sha256=%s]" % (len(e.content), hashlib.sha256(e.content).hexdigest().encode())
        else:
            u = e.units()
            if head + tail >= len(u):
                want = e.content
            else:
                want = (u[:head] + "\n[... %d characters omitted ...]\n" % (len(u) - head - tail)
                        + u[len(u) - tail:]).encode()
        self.expect(args, want, "SP.PEEK preview")

    def op_list_walk(self):
        """Page through a scratchpad while entries come and go between pages."""
        ns = self.pick_ns()
        start_names = set(self.model[ns])
        seen_ever = set(start_names)
        removed = set()
        count = self.rng.randint(1, 3)
        match = self.rng.choice([None, None, b"*", b"*a*", b"[a-l]*", b"deep/*"])
        withmeta = self.rng.random() < 0.4
        cursor, listed, pages = b"0", [], 0
        while True:
            args = ["SP.LIST", ns, "COUNT", count]
            if match is not None:
                args += ["MATCH", match]
            if withmeta:
                args.append("WITHMETA")
            if pages:
                args += ["CURSOR", cursor]
            got = self.call(*args)
            if isinstance(got, ResponseError) or not isinstance(got, list) or len(got) != 2:
                self.fail("SP.LIST page", got, "[cursor, items]")
            cursor, items = got
            if withmeta:
                names = []
                for it in items:
                    m = pairs(it)
                    nm = m.get("name")
                    e = self.model[ns].get(nm)
                    want = e and {"kind": e.kind.encode(), "size": len(e.content), "length": e.length(),
                                  "version": e.version}
                    if e is None or any(m.get(k) != v for k, v in want.items()):
                        self.fail("SP.LIST WITHMETA item", m, want)
                    names.append(nm)
            else:
                names = list(items)
            if len(names) > count:
                self.fail("SP.LIST page size", names, "at most %d" % count)
            listed += names
            pages += 1
            if cursor == b"0":
                break
            if not cursor.startswith(b">") or pages > 200:
                self.fail("SP.LIST cursor", cursor, "'>name' or '0'")
            # churn between pages
            for _ in range(self.rng.randint(0, 2)):
                nm = self.rng.choice(NAMES)
                if nm in self.model[ns] and self.rng.random() < 0.5:
                    self.expect(("SP.DEL", ns, nm), 1, "SP.DEL during a listing")
                    del self.model[ns][nm]
                    removed.add(nm)
                else:
                    data = self.text(self.rng.randint(1, 40))
                    e = self.model[ns].get(nm) or Entry(b"", "text")
                    e.content, e.kind, e.version, e.ttl = data, detect_kind(data), e.version + 1, False
                    self.model[ns][nm] = e
                    self.expect(("SP.WRITE", ns, nm, data), e.version, "SP.WRITE during a listing")
                    seen_ever.add(nm)
            if not self.model[ns]:
                # the key went away with its last entry: the walk ends with nothing more
                break
        if listed != sorted(listed) or len(set(listed)) != len(listed):
            self.fail("SP.LIST walk: names sorted, each once", listed, sorted(set(listed)))
        for nm in start_names - removed:
            if match is not None and not fnmatch.fnmatchcase(nm.decode(), match.decode()):
                continue
            if listed.count(nm) != 1:
                self.fail("SP.LIST walk: %r, present throughout, listed once" % nm, listed, sorted(start_names))
        for nm in listed:
            if nm not in seen_ever:
                self.fail("SP.LIST walk: a name that never existed", nm, sorted(seen_ever))

    # -- the loop --

    def run(self, steps, budget, ops):
        deadline = time.monotonic() + budget
        table = []
        for fn, w in ops:
            table += [fn] * w
        for self.step in range(1, steps + 1):
            self.rng.choice(table)()
            for ns in NAMESPACES:
                if not self.model[ns]:
                    self.seq[ns] = {}  # the key went with its last entry
            if self.step % 250 == 0:
                self.check_all()
            if time.monotonic() > deadline:
                break
        self.check_all()
        return self.step


def stop_cleanly(srv):
    """Stop the server by its PID (SIGTERM): it must exit with status 0 and leave
    no sanitizer report in its log (the ASan build prints there at exit)."""
    os.kill(srv.proc.pid, signal.SIGTERM)
    status = srv.proc.wait(timeout=30)
    with open(srv.log_path, "rb") as f:
        log = f.read().decode(errors="replace")
    bad = [ln for ln in log.splitlines() if "Sanitizer" in ln or "runtime error" in ln]
    if status != 0 or bad:
        raise AssertionError("exit status %s; log:\n%s" % (status, "\n".join(log.splitlines()[-30:])))


def case_flags(rep):
    """--compress-threshold and --compress-chunk given at start-up are in force."""
    def body():
        with spserver.Server("--compress-threshold", "512", "--compress-chunk", "1024") as srv:
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
            r.execute_command("SP.WRITE", "flags", "e", b"a" * 5000)
            m = pairs(r.execute_command("SP.STAT", "flags", "e"))
            if m["encoding"] != b"lz4" or m["chunks"] != 5:
                raise AssertionError("a 5000-byte entry is %s in %d chunks, want lz4 in 5 chunks of 1024 bytes"
                                     % (m["encoding"].decode(), m["chunks"]))
            r.execute_command("SP.WRITE", "flags", "f", b"a" * 600)
            m = pairs(r.execute_command("SP.STAT", "flags", "f"))
            if m["encoding"] != b"lz4":
                raise AssertionError("a 600-byte entry is %s, want lz4 (threshold 512)" % m["encoding"].decode())
    rep.case("--compress-threshold 512 --compress-chunk 1024 on the command line are in force", body)


def phase_random(rep, title, server_args, threshold, chunk, seed, steps, budget):
    done = [0]

    def body():
        with spserver.Server(*server_args) as srv:
            # The same settings again through CONFIG SET, so that this phase
            # runs with them even if start-up options were not applied (a
            # case of its own checks those).
            r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
            r.execute_command("CONFIG", "SET", "compress-threshold", threshold, "compress-chunk", chunk)
            run = Run(srv.port, seed, threshold, chunk)
            ops = [(run.op_write, 12), (run.op_append, 10), (run.op_edit, 8), (run.op_insert, 6), (run.op_del, 3),
                   (run.op_read, 20), (run.op_range, 12), (run.op_grep, 6), (run.op_stat, 4), (run.op_peek, 4),
                   (run.op_list_walk, 2), (run.op_copy_rename, 1), (run.op_offload, 3), (run.op_ttl, 3)]
            done[0] = run.run(steps, budget, ops)
            if not srv.alive():
                raise AssertionError("the server died; log:\n" + srv.log_tail())
            stop_cleanly(srv)
    ok = rep.case("%s (seed %d)" % (title, seed), body)
    print("# %s: %d steps" % (title, done[0]))
    return ok


def phase_grep(rep, seed, budget):
    """SP.GREP with any MAX and CONTEXT against GNU grep's rules."""
    def body():
        with spserver.Server("--compress-threshold", "512", "--compress-chunk", "1024") as srv:
            run = Run(srv.port, seed, 512, 1024)
            for ns in NAMESPACES:
                for name in NAMES:
                    data = b"".join(run.rng.choice([b"alpha\n", b"error x\n", b"plain\n", b"id=42 alpha\n",
                                                    "caf\u00e9 x\n".encode(), b"\n"])
                                    for _ in range(run.rng.randint(0, 60)))
                    if data:
                        run.model[ns][name] = e = Entry(data, detect_kind(data))
                        e.version = 1
                        run.expect(("SP.WRITE", ns, name, data), 1)
            deadline = time.monotonic() + budget
            for run.step in range(1, 1500):
                run.op_grep(free_max=True)
                if time.monotonic() > deadline:
                    break
            stop_cleanly(srv)
    return rep.case("SP.GREP with any MAX and CONTEXT shows GNU grep's lines: trailing context after the last "
                    "reported match is the next lines, a later match among them as context (seed %d)" % seed, body)


def phase_list(rep, seed, budget):
    """Long listings of many entries with churn between every page."""
    def body():
        with spserver.Server() as srv:
            run = Run(srv.port, seed, 4096, 65536)
            rng = run.rng
            ns = NAMESPACES[0]
            pool = [b"item/%03d" % i for i in range(300)] + [b"z:%d" % i for i in range(50)]
            for nm in pool[::2]:
                run.expect(("SP.WRITE", ns, nm, b"v"), 1)
                run.model[ns][nm] = Entry(b"v", "text")
            deadline = time.monotonic() + budget
            walks = 0
            while time.monotonic() < deadline and walks < 40:
                walks += 1
                run.step = walks
                start = set(run.model[ns])
                removed, ever = set(), set(start)
                count = rng.choice([1, 2, 7, 50])
                cursor, listed, first = b"0", [], True
                while True:
                    args = ["SP.LIST", ns, "COUNT", count] + ([] if first else ["CURSOR", cursor])
                    first = False
                    got = run.call(*args)
                    if isinstance(got, ResponseError):
                        run.fail("SP.LIST page", got, "a page")
                    cursor, items = got
                    listed += items
                    if cursor == b"0":
                        break
                    for _ in range(rng.randint(0, 6)):
                        nm = rng.choice(pool)
                        if nm in run.model[ns]:
                            run.expect(("SP.DEL", ns, nm), 1)
                            del run.model[ns][nm]
                            removed.add(nm)
                        else:
                            run.expect(("SP.WRITE", ns, nm, b"w"), 1)
                            run.model[ns][nm] = Entry(b"w", "text")
                            ever.add(nm)
                if listed != sorted(set(listed)):
                    run.fail("a listing is sorted with each name once", listed, sorted(set(listed)))
                missing = sorted(nm for nm in start - removed if nm not in listed)
                if missing:
                    run.fail("entries present throughout are all listed", missing, [])
                strange = sorted(nm for nm in listed if nm not in ever)
                if strange:
                    run.fail("only entries that existed are listed", strange, [])
            stop_cleanly(srv)
    return rep.case("SP.LIST pages through 350 names with writes and deletes between pages: every entry present "
                    "throughout appears exactly once, in order (seed %d)" % seed, body)


def main():
    rep = spserver.Reporter()
    t0 = time.monotonic()
    case_flags(rep)
    phase_random(rep, "random SP operations agree with the model, threshold 512 and 1 KB chunks",
                 ["--compress-threshold", "512", "--compress-chunk", "1024"], 512, 1024, SEED, STEPS, 25)
    phase_random(rep, "random SP operations agree with the model, default threshold and chunks",
                 [], 4096, 65536, SEED + 1, STEPS * 2 // 3, 20)
    phase_grep(rep, SEED + 2, 5)
    phase_list(rep, SEED + 3, 5)
    print("# %.1f s" % (time.monotonic() - t0))
    rep.finish()


if __name__ == "__main__":
    main()
