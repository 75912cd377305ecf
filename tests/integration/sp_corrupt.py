"""sp_corrupt.py -- a damaged compressed chunk is detected, reported, and contained.

The test hook `DEBUG LZ4-CORRUPT key [entry] chunk` spoils every LZ4 block of one
chunk of a compressed value (a string, or an entry of a scratchpad). Afterwards:

- every read that needs a byte of that chunk answers an error naming the
  corruption, as a top-level error reply (never data, never an error hidden
  inside an array): SP.READ (whole, windows, LINES, BYTES, WITHMETA), SP.RANGE,
  SP.GREP, SP.PEEK (when its head or tail reaches the chunk), SP.STAT (its
  sha256 needs every byte), SP.EDIT and SP.INSERT (which change nothing), GET,
  GETRANGE, SETRANGE over it;
- reads that touch only other chunks answer the right bytes, and a chunk that
  was cached before the damage is not served from the cache afterwards;
- an append that must reopen a damaged last chunk fails and changes nothing;
- COPY and RENAME carry the damage along, and the copies are as safe to read;
- the connection stays usable (a pipeline around the errors stays in step),
  other clients are served throughout, and the server is alive at the end.

The content is compressible log text with multi-byte characters (so every
sub-block is stored as LZ4, which the hook makes undecodable, and character
offsets go through the chunk index), five chunks of the default 64 KB. The
value has a dictionary (server/core/lz/lzval.h): its first 8 KB are stored raw, and the
hook leaves them intact, so the damage in chunk 0 starts at byte 8192. Under
the ASan build (BUILD=build-asan TESTS=sp_corrupt sh tests/run.sh) any read past
a buffer aborts the server, which the final liveness check reports.

A last case feeds SP.GREP a catastrophic pattern: it must answer an error
quickly while other clients are served.
"""

import hashlib
import os
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

CHUNK = 65536
NS = b"cor:ns"


def log_text(nbytes, seed):
    """Deterministic log lines with é, 中 and 😀, about nbytes long (whole lines)."""
    lvl = ["INFO", "WARN", "DEBUG", "ERROR"]
    msg = ["request served", "caf\u00e9 cache miss", "retrying upstream \u4e2d", "tool output \U0001F600",
           "agent step finished"]
    out, n, x = [], 0, seed
    while n < nbytes:
        x = (x * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
        line = ("2024-05-%02d %02d:%02d:%02d %s worker-%d %s id=%d\n" % (
            1 + (x >> 8) % 28, (x >> 16) % 24, (x >> 24) % 60, (x >> 32) % 60, lvl[(x >> 40) % 4],
            (x >> 44) % 8, msg[(x >> 48) % 5], (x >> 52) % 100000)).encode()
        out.append(line)
        n += len(line)
    return b"".join(out)


def chars_before(content, b):
    """Characters that start before byte offset b."""
    return len(content[:b]) - sum(1 for c in content[:b] if c & 0xC0 == 0x80)


def line_of(content, b):
    """1-based line holding byte b."""
    return content.count(b"\n", 0, b) + 1


def client(port):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=30, socket_connect_timeout=30)


def call(r, *args):
    try:
        return r.execute_command(*args)
    except ResponseError as e:
        return e


def is_corrupt_error(reply):
    return isinstance(reply, ResponseError) and "corrupt" in str(reply)


def expect_corrupt(r, *args):
    got = call(r, *args)
    if not is_corrupt_error(got):
        shown = repr(got)
        if len(shown) > 300:
            shown = shown[:300] + "..."
        raise AssertionError("%s: want a top-level error saying the value is corrupt, got %s"
                             % (" ".join(str(a)[:40] for a in args), shown))


def expect(r, want, *args):
    got = call(r, *args)
    if got != want:
        g, w = repr(got), repr(want)
        raise AssertionError("%s:\n  got  %s\n  want %s" % (" ".join(str(a)[:40] for a in args),
                                                            g[:300], w[:300]))


class World:
    """One server with a corrupted entry, an intact twin, and a corrupted string."""

    def __init__(self, srv):
        self.srv = srv
        self.r = client(srv.port)
        self.other = client(srv.port)
        self.content = log_text(5 * CHUNK - 3000, 1)   # 5 chunks, the last one partial
        self.units = self.content.decode()
        r = self.r
        for name in (b"log", b"twin", b"first", b"last"):
            expect(r, 1, "SP.WRITE", NS, name, self.content)
        st = dict(zip(*[iter(r.execute_command("SP.STAT", NS, b"twin"))] * 2))
        if st[b"encoding"] != b"lz4" or st[b"chunks"] != 5:
            raise AssertionError("the entry should be lz4 in 5 chunks: %r" % st)
        # cache a window of chunk 2 before the damage
        self.b2 = 2 * CHUNK + 5000
        self.c2 = chars_before(self.content, self.b2)
        expect(r, self.units[self.c2:self.c2 + 50].encode(), "SP.RANGE", NS, b"log", self.c2, self.c2 + 50)
        expect(r, b"OK", "DEBUG", "LZ4-CORRUPT", NS, b"log", 2)
        expect(r, b"OK", "DEBUG", "LZ4-CORRUPT", NS, b"first", 0)
        expect(r, b"OK", "DEBUG", "LZ4-CORRUPT", NS, b"last", 4)
        r.set(b"str", self.content)
        r.set(b"str-last", self.content)
        expect(r, b"OK", "DEBUG", "LZ4-CORRUPT", b"str", 2)
        expect(r, b"OK", "DEBUG", "LZ4-CORRUPT", b"str-last", 4)
        self.version = 1


def case_hook(w):
    r = w.r
    r.execute_command("SP.WRITE", NS, b"small", b"tiny")
    r.set(b"small-str", b"tiny")
    got = call(r, "DEBUG", "LZ4-CORRUPT", NS, b"small", 0)
    if not isinstance(got, ResponseError) or "not stored compressed" not in str(got):
        raise AssertionError("a raw entry: %r" % got)
    got = call(r, "DEBUG", "LZ4-CORRUPT", b"small-str", 0)
    if not isinstance(got, ResponseError) or "not stored compressed" not in str(got):
        raise AssertionError("a small string: %r" % got)
    got = call(r, "DEBUG", "LZ4-CORRUPT", NS, b"twin", 5)
    if not isinstance(got, ResponseError) or "no such chunk" not in str(got):
        raise AssertionError("chunk 5 of 5: %r" % got)
    r.execute_command("SP.DEL", NS, b"small")
    r.delete(b"small-str")


def case_sp_reads_of_the_damaged_chunk(w):
    r, c = w.r, w.content
    b2, c2 = w.b2, w.c2
    expect_corrupt(r, "SP.READ", NS, b"log")
    expect_corrupt(r, "SP.READ", NS, b"log", "OFFSET", c2, "LIMIT", 100)
    expect_corrupt(r, "SP.READ", NS, b"log", "OFFSET", chars_before(c, CHUNK * 2 - 10), "LIMIT", 100)
    expect_corrupt(r, "SP.READ", NS, b"log", "OFFSET", c2)
    expect_corrupt(r, "SP.READ", NS, b"log", "OFFSET", b2, "LIMIT", 10, "BYTES")
    expect_corrupt(r, "SP.READ", NS, b"log", "HEAD", c2)
    expect_corrupt(r, "SP.READ", NS, b"log", "TAIL", len(w.units) - c2)
    ln = line_of(c, b2)
    expect_corrupt(r, "SP.READ", NS, b"log", "LINES", ln, ln)
    expect_corrupt(r, "SP.READ", NS, b"log", "LINES", 1, -1)
    expect_corrupt(r, "SP.RANGE", NS, b"log", c2, c2 + 50)
    expect_corrupt(r, "SP.RANGE", NS, b"log", b2, b2 + 50, "BYTES")
    expect_corrupt(r, "SP.RANGE", NS, b"log", 0)
    # SP.GREP decodes a prefix at a time and stops at MAX matches: a grep that
    # must read the damaged chunk (no match before it, or more matches wanted
    # than the chunks before it hold) reports it ...
    expect_corrupt(r, "SP.GREP", NS, b"log", "no such text anywhere")
    expect_corrupt(r, "SP.GREP", NS, b"log", "ERROR", "MAX", 1000000)
    expect_corrupt(r, "SP.GREP", NS, b"log", "worker", "LITERAL", "CONTEXT", 1, "MAX", 1)
    # ... and one answered by the first chunk never reads it (as SP.READ of an
    # untouched window): the first matching line, exactly.
    first = next(i for i, line in enumerate(c.split(b"\n"), 1) if b"worker" in line)
    got = r.execute_command("SP.GREP", NS, b"log", "worker", "LITERAL", "MAX", 1)
    if got != [b"%d:" % first + c.split(b"\n")[first - 1]]:
        raise AssertionError("SP.GREP worker MAX 1 before the damaged chunk: %r" % (got,))
    expect_corrupt(r, "SP.PEEK", NS, b"log", "HEAD", c2 + 10, "TAIL", 10)
    expect_corrupt(r, "SP.PEEK", NS, b"first", "HEAD", 9000)  # past the raw dictionary


def case_sp_withmeta_error_is_top_level(w):
    r = w.r
    expect_corrupt(r, "SP.READ", NS, b"log", "WITHMETA")
    expect_corrupt(r, "SP.READ", NS, b"log", "OFFSET", w.c2, "LIMIT", 100, "WITHMETA")
    expect_corrupt(r, "SP.GREP", NS, b"log", "ERROR", "WITHMETA")


def case_sp_stat_sha256(w):
    expect_corrupt(w.r, "SP.STAT", NS, b"log")


def case_sp_untouched_chunks(w):
    r, c, u = w.r, w.content, w.units
    expect(r, u[:1000].encode(), "SP.READ", NS, b"log", "HEAD", 1000)
    expect(r, u[-1000:].encode(), "SP.READ", NS, b"log", "TAIL", 1000)
    a = chars_before(c, CHUNK + 100)
    expect(r, u[a:a + 700].encode(), "SP.READ", NS, b"log", "OFFSET", a, "LIMIT", 700)
    expect(r, c[3 * CHUNK + 7:3 * CHUNK + 99], "SP.READ", NS, b"log", "OFFSET", 3 * CHUNK + 7, "LIMIT", 92,
           "BYTES")
    lines = c.split(b"\n")[:-1]
    expect(r, b"\n".join(lines[:5]) + b"\n", "SP.READ", NS, b"log", "LINES", 1, 5)
    expect(r, b"\n".join(lines[-3:]) + b"\n", "SP.READ", NS, b"log", "LINES", -3, -1)
    expect(r, u[-2000:].encode(), "SP.RANGE", NS, b"log", -2000)
    expect(r, u[10:900].encode(), "SP.RANGE", NS, b"log", 10, 900)
    got = r.execute_command("SP.READ", NS, b"log", "HEAD", 100, "WITHMETA")
    if got[0] != u[:100].encode():
        raise AssertionError("HEAD 100 WITHMETA: %r" % got[:1])
    # the default preview reads the first and last 500 characters: chunks 0 and 4
    want = (u[:500] + "\n[... %d characters omitted ...]\n" % (len(u) - 1000) + u[-500:]).encode()
    expect(r, want, "SP.PEEK", NS, b"log")
    # the entry damaged in its first chunk still serves its tail
    expect(r, u[-300:].encode(), "SP.READ", NS, b"first", "TAIL", 300)
    expect(r, u[:300].encode(), "SP.READ", NS, b"last", "HEAD", 300)
    # the twin is whole
    expect(r, c, "SP.READ", NS, b"twin")
    st = dict(zip(*[iter(r.execute_command("SP.STAT", NS, b"twin"))] * 2))
    if st[b"sha256"] != hashlib.sha256(c).hexdigest().encode():
        raise AssertionError("twin sha256 %r" % st[b"sha256"])


def case_sp_writes(w):
    r, c, u = w.r, w.content, w.units
    expect_corrupt(r, "SP.EDIT", NS, b"log", b"zz-absent", b"y")
    expect_corrupt(r, "SP.EDIT", NS, b"log", b"worker", b"w", "ALL")
    # an SP.INSERT before a line that starts in the damaged chunk 2
    expect_corrupt(r, "SP.INSERT", NS, b"log", c[:2 * CHUNK + CHUNK // 2].count(b"\n"), b"a line in chunk 2")
    # nothing changed: same version, same intact head
    meta = r.execute_command("SP.READ", NS, b"log", "HEAD", 10, "WITHMETA")[1]
    m = dict(zip(*[iter(meta)] * 2))
    if m[b"version"] != 1 or m[b"size"] != len(c):
        raise AssertionError("failed edits changed the entry: %r" % m)
    # an append (and an SP.INSERT at the end) needs only the last chunk: it works on "log"
    # (damaged in chunk 2)
    expect(r, len(u) + 5, "SP.APPEND", NS, b"log", b"tail\n")
    expect(r, (u[-20:] + "tail\n").encode(), "SP.READ", NS, b"log", "TAIL", 25)
    # ... and fails on "last" (its partial last chunk must be decoded), changing nothing
    expect_corrupt(r, "SP.APPEND", NS, b"last", b"more")
    # SP.INSERT at the end is an append too: refused on "last", changing nothing
    expect_corrupt(r, "SP.INSERT", NS, b"last", -1, b"end line")
    meta = r.execute_command("SP.READ", NS, b"last", "HEAD", 10, "WITHMETA")[1]
    m = dict(zip(*[iter(meta)] * 2))
    if m[b"version"] != 1 or m[b"size"] != len(c):
        raise AssertionError("a failed append changed the entry: %r" % m)
    # an SP.INSERT before the end needs only the chunk it falls in (a splice):
    # at the top of "last" (damaged in its last chunk) it works
    expect(r, 2, "SP.INSERT", NS, b"last", 1, b"top line")
    lines = c.split(b"\n")
    expect(r, lines[0] + b"\ntop line\n" + lines[1] + b"\n", "SP.READ", NS, b"last", "LINES", 1, 3)
    expect_corrupt(r, "SP.READ", NS, b"last")


def case_strings(w):
    r, c = w.r, w.content
    if r.object("encoding", b"str") != b"lz4":
        raise AssertionError("OBJECT ENCODING str: %r" % r.object("encoding", b"str"))
    expect(r, len(c), "STRLEN", b"str")
    expect_corrupt(r, "GET", b"str")
    expect_corrupt(r, "GETRANGE", b"str", w.b2, w.b2 + 10)
    expect_corrupt(r, "GETRANGE", b"str", 0, -1)
    expect_corrupt(r, "GETRANGE", b"str", 2 * CHUNK - 5, 2 * CHUNK + 5)
    expect(r, c[:100], "GETRANGE", b"str", 0, 99)
    expect(r, c[-100:], "GETRANGE", b"str", -100, -1)
    expect(r, c[CHUNK + 17:CHUNK + 4000], "GETRANGE", b"str", CHUNK + 17, CHUNK + 3999)
    # a partial overwrite inside the damaged chunk must decode it: refused, nothing changed
    expect_corrupt(r, "SETRANGE", b"str", w.b2 + 3, b"XY")
    expect(r, c[CHUNK * 2 - 40:CHUNK * 2], "GETRANGE", b"str", CHUNK * 2 - 40, CHUNK * 2 - 1)
    expect(r, len(c), "STRLEN", b"str")
    # appends reopen only the last chunk
    expect(r, len(c) + 3, "APPEND", b"str", b"end")
    expect(r, c[-7:] + b"end", "GETRANGE", b"str", -10, -1)
    expect_corrupt(r, "APPEND", b"str-last", b"more")
    expect(r, len(c), "STRLEN", b"str-last")
    expect(r, c[:50], "GETRANGE", b"str-last", 0, 49)
    expect_corrupt(r, "GETRANGE", b"str-last", -50, -1)


def case_connection_and_other_clients(w):
    r, other = w.r, w.other
    # a pipeline mixing failing and working commands gets every reply, in order
    p = r.pipeline(transaction=False)
    p.execute_command("GET", b"str")
    p.execute_command("PING")
    p.execute_command("SP.READ", NS, b"log")
    p.execute_command("GETRANGE", b"str", 0, 4)
    p.execute_command("SP.READ", NS, b"log", "WITHMETA")
    p.execute_command("SP.STAT", NS, b"log")
    p.execute_command("SP.GREP", NS, b"log", "x", "WITHMETA")
    p.execute_command("ECHO", b"still in step")
    got = p.execute(raise_on_error=False)
    if not (is_corrupt_error(got[0]) and got[1] is True and is_corrupt_error(got[2])
            and got[3] == w.content[:5] and got[-1] == b"still in step"):
        raise AssertionError("pipeline replies out of step: %r" % [repr(x)[:80] for x in got])
    # GET decodes into the output buffer and takes a failed reply back: with
    # replies already in the output's blocks before it (30 KB) and after it,
    # the error stands alone and the bytes around it are whole
    p = r.pipeline(transaction=False)
    p.execute_command("GETRANGE", b"str", 0, 29999)
    p.execute_command("GET", b"str")
    p.execute_command("GETRANGE", b"str", 100, 20099)
    p.execute_command("GET", b"str")
    p.execute_command("ECHO", b"still in step")
    got = p.execute(raise_on_error=False)
    if not (got[0] == w.content[:30000] and is_corrupt_error(got[1]) and got[2] == w.content[100:20100]
            and is_corrupt_error(got[3]) and got[4] == b"still in step"):
        raise AssertionError("replies around a corrupt GET: %r" % [repr(x)[:80] for x in got])
    # a second client, connected all along, is served
    expect(other, True, "PING")
    expect(other, True, "SET", b"k", b"v")
    expect(other, b"v", "GET", b"k")
    expect(other, 1, "SP.WRITE", b"other:ns", b"e", b"hello")
    expect(other, b"hello", "SP.READ", b"other:ns", b"e")
    # raw socket: RESP framing of an error reply is intact
    with socket.create_connection(("127.0.0.1", w.srv.port), timeout=10) as s:
        s.sendall(b"*2\r\n$3\r\nGET\r\n$3\r\nstr\r\n*1\r\n$4\r\nPING\r\n")
        buf = b""
        deadline = time.monotonic() + 10
        while buf.count(b"\r\n") < 2 and time.monotonic() < deadline:
            buf += s.recv(4096)
        lines = buf.split(b"\r\n")
        if not (lines[0].startswith(b"-") and b"corrupt" in lines[0] and lines[1] == b"+PONG"):
            raise AssertionError("raw replies: %r" % buf[:200])


def case_copies(w):
    r, u = w.r, w.units
    expect(r, True, "COPY", NS, b"cor:copy")
    expect_corrupt(r, "SP.READ", b"cor:copy", b"log")
    expect(r, u[:200].encode(), "SP.READ", b"cor:copy", b"log", "HEAD", 200)
    expect(r, w.content, "SP.READ", b"cor:copy", b"twin")
    expect(r, True, "RENAME", b"cor:copy", b"cor:moved")
    expect_corrupt(r, "SP.RANGE", b"cor:moved", b"log", w.c2, w.c2 + 10)
    expect(r, 1, "DEL", b"cor:moved")
    expect(r, True, "COPY", b"str", b"str-copy")
    expect_corrupt(r, "GET", b"str-copy")
    expect(r, w.content[:10], "GETRANGE", b"str-copy", 0, 9)
    expect(r, 1, "DEL", b"str-copy")


def case_alive_and_cleanup(w):
    r = w.r
    if not w.srv.alive():
        raise AssertionError("the server died; log:\n" + w.srv.log_tail())
    expect(r, 4, "SP.DEL", NS, b"log", b"twin", b"first", b"last")
    expect(r, 2, "DEL", b"str", b"str-last")
    expect(r, 0, "EXISTS", NS)
    expect(r, True, "PING")
    info = r.info("memory")
    if "used_memory" not in info:
        raise AssertionError("INFO memory: %r" % info)
    if not w.srv.alive():
        raise AssertionError("the server died; log:\n" + w.srv.log_tail())


def case_catastrophic_grep(srv):
    r, other = client(srv.port), client(srv.port)
    line = b"a" * 20000 + b"!\n"
    r.execute_command("SP.WRITE", b"grep:ns", b"big", b"ok line\n" + line * 3)
    served = []
    stop = threading.Event()

    def pinger():
        while not stop.is_set():
            t = time.monotonic()
            other.ping()
            served.append(time.monotonic() - t)
            time.sleep(0.01)

    th = threading.Thread(target=pinger)
    th.start()
    try:
        t = time.monotonic()
        got = call(r, "SP.GREP", b"grep:ns", b"big", "(a+)+$")
        spent = time.monotonic() - t
    finally:
        stop.set()
        th.join(30)
    if spent > 5:
        raise AssertionError("SP.GREP took %.1f s" % spent)
    if not isinstance(got, ResponseError) or "limit" not in str(got):
        raise AssertionError("want a top-level error about the match limit, got %r" % (got,))
    if not served or max(served) > 5:
        raise AssertionError("other client not served (%r)" % served[:5])
    expect(r, [b"1:ok line"], "SP.GREP", b"grep:ns", b"big", "ok")


def stop_cleanly(srv):
    """Stop the server by its PID (SIGTERM) and check it exits with status 0 and
    left no sanitizer report in its log (ASan/UBSan print there at exit)."""
    os.kill(srv.proc.pid, signal.SIGTERM)
    status = srv.proc.wait(timeout=30)
    with open(srv.log_path, "rb") as f:
        log = f.read().decode(errors="replace")
    bad = [ln for ln in log.splitlines() if "AddressSanitizer" in ln or "runtime error" in ln
           or "LeakSanitizer" in ln]
    if status != 0 or bad:
        raise AssertionError("exit status %s; log:\n%s" % (status, "\n".join(log.splitlines()[-30:])))


def main():
    rep = spserver.Reporter()
    try:
        with spserver.Server() as srv:
            w = World(srv)
            rep.case("DEBUG LZ4-CORRUPT refuses values that are not compressed and chunks out of range",
                     case_hook, w)
            rep.case("every SP read that touches a damaged chunk answers a corruption error",
                     case_sp_reads_of_the_damaged_chunk, w)
            rep.case("with WITHMETA, a damaged chunk is still a top-level error, not an error inside the array",
                     case_sp_withmeta_error_is_top_level, w)
            rep.case("SP.STAT of an entry with a damaged chunk answers a corruption error (its sha256 cannot be "
                     "computed)", case_sp_stat_sha256, w)
            rep.case("SP reads of untouched chunks, and of an intact twin entry, answer the right bytes",
                     case_sp_untouched_chunks, w)
            rep.case("SP.EDIT, SP.INSERT and an append that need a damaged chunk fail and change nothing; an SP.INSERT "
                     "at the top (only the first chunk) works",
                     case_sp_writes, w)
            rep.case("GET, GETRANGE, SETRANGE and APPEND on a damaged large string report it; other ranges work",
                     case_strings, w)
            rep.case("the connection stays in step (a corrupt GET between large replies takes its reply back)"
                     " and other clients are served", case_connection_and_other_clients, w)
            rep.case("COPY and RENAME carry a damaged chunk along, and reading the copies is as safe", case_copies, w)
            rep.case("the server is alive at the end and frees the damaged values", case_alive_and_cleanup, w)
            rep.case("the server then exits cleanly, with no sanitizer report", stop_cleanly, srv)
        with spserver.Server() as srv:
            rep.case("SP.GREP with (a+)+$ on long lines answers a match-limit error quickly while other clients "
                     "are served", case_catastrophic_grep, srv)
            rep.case("after the catastrophic pattern the server exits cleanly, with no sanitizer report",
                     stop_cleanly, srv)
    except Exception as e:  # noqa: BLE001 -- a set-up failure is a reported failure
        rep.fail("set-up of the corruption tests", repr(e))
    rep.finish()


if __name__ == "__main__":
    main()
