"""sp_edit_large.py -- SP.EDIT and SP.INSERT on large compressed entries,
against a Python model.

An SP.EDIT whose new text has the old one's length is found a window at a time
and overwritten in place (each occurrence recompresses only the sub-blocks it
touches); an SP.INSERT at the end is an append; an SP.EDIT of another length
and an SP.INSERT before the end are splices (each rebuilds only the chunks it
touches, which leaves chunks of variable length); the rest rebuild the entry
(cmd_sp.c). Random edits of every kind (same length and not, ALL with a
few occurrences, multi-byte characters, a replacement that adds or removes
newlines, inserts at the top, the middle, the end and past it) on a text entry
of ~3 MB and a binary one of ~1 MB, each compared whole with the model after
every step, with its length, size and line count, and line windows; a snapshot
taken before an in-place edit keeps the old content (seen through a fork), and
one taken before splices at the top, the middle and the end too; an edit's log
record holds the bytes it changed, not the entry (_SPSPLICE); the state is
the same after a restart and after a rewrite in each mode (incremental, fork). Seeded (SEED=... reproduces;
EDIT_COUNT=... for a longer run); one server, stopped by PID."""
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402

import spserver  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
COUNT = int(os.environ.get("EDIT_COUNT", "150"))
RNG = random.Random(SEED)


def as_map(x):
    return dict(zip(x[::2], x[1::2])) if isinstance(x, list) else x


def eq(got, want, what):
    if got != want:
        if isinstance(got, bytes) and isinstance(want, bytes):
            i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
            raise AssertionError("%s: %d bytes, want %d; first difference at %d: %r / %r (SEED=%d)" % (
                what, len(got), len(want), i, got[max(0, i - 20):i + 20], want[max(0, i - 20):i + 20], SEED))
        raise AssertionError("%s: got %.300r, want %.300r (SEED=%d)" % (what, got, want, SEED))


def make_text(n):
    out, i = [], 0
    size = 0
    while size < n:
        s = "line %d wörker-%d id=%d status=%s ✓\n" % (i + 1, i % 7, i * 31, RNG.choice(["200", "404", "500"]))
        out.append(s)
        size += len(s.encode())
        i += 1
    return "".join(out).encode()


def lines_of(b):
    return b.count(b"\n") + (1 if b and not b.endswith(b"\n") else 0)


def insert_model(content, line, text):
    lines = lines_of(content)
    if line == -1 or line > lines:
        line = lines
    # byte offset where line+1 starts
    at, k = 0, 0
    while k < line:
        nl = content.find(b"\n", at)
        at = len(content) if nl < 0 else nl + 1
        k += 1
    lead = at == len(content) and len(content) > 0 and not content.endswith(b"\n")
    trail = at < len(content) and (not text or not text.endswith(b"\n"))
    return content[:at] + (b"\n" if lead else b"") + text + (b"\n" if trail else b"") + content[at:]


def check(r, ns, name, want, binary):
    eq(r.execute_command("SP.READ", ns, name), want, "the content of %s" % name)
    st = as_map(r.execute_command("SP.STAT", ns, name))
    eq(st[b"size"], len(want), "the size of %s" % name)
    eq(st[b"length"], len(want) if binary else len(want.decode()), "the length of %s" % name)
    eq(st[b"lines"], lines_of(want), "the lines of %s" % name)
    n = lines_of(want)
    if n:
        a = RNG.randrange(1, n + 1)
        b = min(n, a + RNG.randrange(0, 5))
        got = r.execute_command("SP.READ", ns, name, "LINES", a, b)
        exp = b"".join(re.findall(b"[^\n]*\n|[^\n]+$", want)[a - 1:b])
        eq(got, exp, "LINES %d %d of %s" % (a, b, name))


def random_edit(r, ns, name, content, binary):
    """One random SP.EDIT or SP.INSERT; returns the new content (or the old one
    when the server refused, as the model says it must)."""
    op = RNG.random()
    if op < 0.55:
        # an SP.EDIT of a piece that is there: a whole short run of bytes
        if binary:
            at = RNG.randrange(0, len(content) - 8)
            old = content[at:at + RNG.randrange(1, 8)]
        else:
            lines = content.split(b"\n")
            ln = RNG.randrange(len(lines) - 1)
            line = lines[ln]
            if not line:
                return content
            a = RNG.randrange(len(line))
            old = line[a:a + RNG.randrange(4, 20)]
            try:
                old.decode()
            except UnicodeDecodeError:
                return content
            if RNG.random() < 0.1:
                old = line + b"\n"  # across a newline
        kind = RNG.random()
        if kind < 0.6:
            new = bytes(RNG.choice(b"ABCxyz") for _ in old) if binary or RNG.random() < 0.7 else \
                ("é" * (len(old) // 2) + "x" * (len(old) % 2)).encode()
            if not binary and kind < 0.05 and len(old) > 1:
                new = b"\n" + new[1:]  # adds a newline, same length
        elif kind < 0.8:
            new = old + b" (edited)"
        else:
            new = old[:len(old) // 2]
        n = content.count(old)
        use_all = n > 1 and n <= 70 and RNG.random() < 0.7
        try:
            args = ["SP.EDIT", ns, name, old, new] + (["ALL"] if use_all else [])
            rep = r.execute_command(*args)
        except redis.ResponseError as e:
            msg = str(e)
            if not binary and "invalid UTF-8" in msg:
                try:
                    content.replace(old, new).decode()
                except UnicodeDecodeError:
                    return content  # refused, as it must be
                raise
            if n > 1 and not use_all:
                assert "occurs %d times" % n in msg, msg
                return content
            if n == 0:
                assert "not found" in msg, msg
                return content
            raise
        assert n == 1 or use_all, "SP.EDIT of %d occurrences without ALL answered %r" % (n, rep)
        eq(rep[0], n, "SP.EDIT's count")
        return content.replace(old, new)
    text = RNG.choice([b"inserted line", b"two\nlines\n", "ünïcode ✓".encode(), b""])
    if binary:
        text = b"\x00\xff\x01"
    lines = lines_of(content)
    line = RNG.choice([0, 1, lines // 2, lines - 1, lines, lines + 5, -1])
    r.execute_command("SP.INSERT", ns, name, line, text)
    return insert_model(content, line, text)


def rewrite(r):
    before = r.info("persistence")["aof_rewrites"]
    r.execute_command("BGREWRITEAOF")
    for _ in range(1000):
        p = r.info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] > before:
            return
        time.sleep(0.02)
    raise AssertionError("the rewrite did not finish")


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    srv = spserver.Server("--appendonly", "yes")
    srv.start()
    try:
        r = redis.Redis(port=srv.port, socket_timeout=60)
        text = make_text(3 << 20)
        binary = bytes(RNG.randrange(256) for _ in range(1 << 20))
        model = {"text": text, "bin": binary}
        r.execute_command("SP.WRITE", "e", "text", text)
        r.execute_command("SP.WRITE", "e", "bin", binary)

        def run():
            for name in ("text", "bin"):
                eq(as_map(r.execute_command("SP.STAT", "e", name))[b"encoding"], b"lz4", "the encoding")
            for step in range(COUNT):
                name = "bin" if RNG.random() < 0.25 else "text"
                model[name] = random_edit(r, "e", name, model[name], name == "bin")
                if step % 5 == 0 or step == COUNT - 1:
                    check(r, "e", name, model[name], name == "bin")
            for name in model:
                check(r, "e", name, model[name], name == "bin")

        rep.case("%d random SP.EDIT (same length in place, longer, shorter, ALL, newlines, multi-byte) and "
                 "SP.INSERT (top, middle, end, past it) on compressed 3 MB text and 1 MB binary entries agree "
                 "with a Python model: content, size, length, lines, LINES windows" % COUNT, run)

        def snapshot():
            r.execute_command("SP.SNAPSHOT", "e", "before")
            old = model["text"]
            lines = old.split(b"\n")
            target = next(x for x in lines[len(lines) // 2:] if len(x) > 8 and old.count(x) == 1)
            new = bytes(RNG.choice(b"QRS") for _ in target)
            r.execute_command("SP.EDIT", "e", "text", target, new)
            model["text"] = old.replace(target, new)
            r.execute_command("SP.INSERT", "e", "text", -1, "after the snapshot")
            model["text"] = insert_model(model["text"], -1, b"after the snapshot")
            check(r, "e", "text", model["text"], False)
            r.execute_command("SP.FORK", "e", "efork", "FROM", "before")
            eq(r.execute_command("SP.READ", "efork", "text"), old, "the snapshot's content after in-place edits")
            r.execute_command("DEL", "efork")

        rep.case("a snapshot taken before an in-place SP.EDIT and an SP.INSERT at the end keeps the old content",
                 snapshot)

        def splices():
            r.execute_command("SP.SNAPSHOT", "e", "before-splices")
            old = model["text"]
            cur = old
            lines = cur.split(b"\n")
            top = next(x for x in lines if len(x) > 8 and cur.count(x) == 1)  # the first unique line
            mid = next(x for x in lines[len(lines) // 2:] if len(x) > 8 and cur.count(x) == 1)
            end = next(x for x in reversed(lines[:-1]) if len(x) > 8 and cur.count(x) == 1)
            for target, new in ((top, b"a line near the top, made longer\n" + top), (mid, mid[:3]),
                                (end, end + b" and a much longer tail " * 40)):
                eq(r.execute_command("SP.EDIT", "e", "text", target, new)[0], 1, "SP.EDIT's count")
                cur = cur.replace(target, new)
                check(r, "e", "text", cur, False)
            n = lines_of(cur)
            for line in (0, 1, n // 3, n // 2, n - 1):
                r.execute_command("SP.INSERT", "e", "text", line, "inserted at line %d" % line)
                cur = insert_model(cur, line, b"inserted at line %d" % line)
                check(r, "e", "text", cur, False)
            model["text"] = cur
            eq(as_map(r.execute_command("SP.STAT", "e", "text"))[b"encoding"], b"lz4", "the encoding after splices")
            r.execute_command("SP.FORK", "e", "efork", "FROM", "before-splices")
            eq(r.execute_command("SP.READ", "efork", "text"), old, "the snapshot's content after splices")
            r.execute_command("DEL", "efork")

        rep.case("SP.EDIT of another length and SP.INSERT at the top, the middle and the end of a compressed entry "
                 "agree with the model, and a snapshot taken before them keeps the old content", splices)

        def log_bytes():
            total = 0
            for root, _, files in os.walk(srv.dir):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files if f != "server.log")
            return total

        def small_records():
            cur = model["text"]
            lines = cur.split(b"\n")
            for want_len in (True, False):
                target = next(x for x in lines[len(lines) // 3:] if len(x) > 8 and cur.count(x) == 1)
                new = bytes(RNG.choice(b"XYZ") for _ in target) if want_len else target + b" and more"
                before = log_bytes()
                r.execute_command("SP.EDIT", "e", "text", target, new)
                cur = cur.replace(target, new)
                r.execute_command("SP.INSERT", "e", "text", lines_of(cur) // 2, "a line in the middle")
                cur = insert_model(cur, lines_of(cur) // 2, b"a line in the middle")
                grew = log_bytes() - before
                if grew > 16384:
                    raise AssertionError("an SP.EDIT and an SP.INSERT in a %d-byte entry grew the log by %d bytes"
                                         % (len(cur), grew))
            model["text"] = cur
            check(r, "e", "text", cur, False)

        rep.case("an SP.EDIT (in place or of another length) and an SP.INSERT in the middle of a 3 MB entry add about "
                 "the bytes they change to the log (_SPSPLICE), not the entry", small_records)

        def restart():
            for mode in ("restart", "incremental", "fork"):
                if mode != "restart":
                    r2[0].execute_command("CONFIG", "SET", "aof-rewrite-mode", mode)
                    rewrite(r2[0])
                srv.restart()
                r2[0] = redis.Redis(port=srv.port, socket_timeout=60)
                for name in model:
                    check(r2[0], "e", name, model[name], name == "bin")

        r2 = [r]
        rep.case("the edited entries are the same after a restart and after a rewrite in each mode (incremental, fork)",
                 restart)
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    rep.finish()


if __name__ == "__main__":
    main()
