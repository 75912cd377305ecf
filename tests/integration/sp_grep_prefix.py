"""sp_grep_prefix.py -- SP.GREP on a compressed entry decodes a part at a time.

Without CONTEXT or WITHMETA, SP.GREP on a compressed entry decodes 16 KB, then
as much again each time (16, 32, 64 KB ... of the entry), searches each part
from where the last search stopped to the part's last newline, numbering the
lines on, and stops once it has MAX matching lines (cmd_sp_grep.c,
grep_compressed). Its answer must be exactly the whole-entry answer. Checked on
entries of 1 KB - 3 MB of seeded log-like text (compressed: over
compress-threshold), for patterns that match on the first line, every few
lines, rarely, only near the end, never, across the parts' boundaries and
after a line longer than several parts,
with MAX 0, 1, 7, 100 and 100000, against:
  - a Python model (the first MAX lines, 1-based, that the pattern matches,
    as "n:line");
  - the same GREP with WITHMETA (which scans the whole entry);
  - the same content written as an uncompressed entry (compress-threshold
    raised for it).
A line that exhausts the match limit far into an entry must be reported with
its own number, as for the uncompressed copy.
Seeded (SEED=... reproduces); one server, stopped by PID."""
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402

import spserver  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
RNG = random.Random(SEED)
WORDS = ["GET", "POST", "status=200", "status=404", "user=17", "latency", "cache", "miss", "ok", "retry"]
PATTERNS = ["^line 1 ", "status=404", "ERROR", "user=4\\d\\d\\b", "LAST-LINE-MARK", "never-there-xyz",
            "(?i)retry", "line \\d+5 "]


def make_text(nlines, err_every):
    out = []
    for i in range(1, nlines + 1):
        words = " ".join(RNG.choice(WORDS) for _ in range(RNG.randrange(3, 14)))
        if err_every and i % err_every == 0:
            words += " ERROR user=%d" % RNG.randrange(100, 999)
        out.append("line %d %s" % (i, words))
    out.append("LAST-LINE-MARK")
    return "\n".join(out) + ("\n" if RNG.random() < 0.5 else "")



def model(text, pattern, mx):
    rx = re.compile(pattern)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    got = []
    for n, line in enumerate(lines, 1):
        if len(got) >= mx:
            break
        if rx.search(line):
            got.append(("%d:%s" % (n, line)).encode())
    return got


def boundary_maxes(text):
    """MAX values whose last line straddles a part's end (16 KB x 2^k): with
    the pattern "^line " (every line but the last), the MAX-th match is then
    the line cut by the part, which must come back whole, and MAX + 1 the first
    line of the next search."""
    out = []
    b = 16 << 10
    while b < len(text.encode()):
        out.append(text.encode()[:b].count(b"\n") + 1)
        b *= 2
    return out


def check_entry(r, ns, name, text):
    cases = [(p, mx) for p in PATTERNS for mx in (0, 1, 7, 100, 100000)]
    cases += [("^line ", mx) for m in boundary_maxes(text) for mx in (m - 1, m, m + 1)]
    for pattern, mx in cases:
        plain = r.execute_command("SP.GREP", ns, name, pattern, "MAX", mx)
        meta = r.execute_command("SP.GREP", ns, name, pattern, "MAX", mx, "WITHMETA")
        raw = r.execute_command("SP.GREP", ns + "-raw", name, pattern, "MAX", mx)
        want = model(text, pattern, mx)
        what = "%s/%s (%d bytes) pattern %r MAX %d" % (ns, name, len(text), pattern, mx)
        if list(plain) != want:
            raise AssertionError("%s: %d lines, the model %d; first difference at %r" % (
                what, len(plain), len(want),
                next(((a, b) for a, b in zip(plain, want) if a != b), None)))
        if list(meta[0]) != list(plain):
            raise AssertionError("%s: WITHMETA (whole scan) answers differently" % what)
        if list(raw) != list(plain):
            raise AssertionError("%s: the uncompressed copy answers differently" % what)


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    with spserver.Server("--appendonly", "no") as srv:
        r = redis.Redis(port=srv.port, socket_timeout=60)
        entries = []
        for i, (nlines, err_every) in enumerate([(20, 3), (2000, 37), (9000, 0), (30000, 997), (45000, 5)]):
            text = make_text(nlines, err_every)
            r.execute_command("SP.WRITE", "g", "e%d" % i, text)
            entries.append(("g", "e%d" % i, text))
        # a 150 KB line across several parts, a match at its end, more after it
        text = make_text(3000, 0) + "\n" + "x" * 150000 + " ERROR user=451\n" + make_text(2000, 7)
        r.execute_command("SP.WRITE", "g", "long", text)
        entries.append(("g", "long", text))
        r.config_set("compress-threshold", str(1 << 30))
        for ns, name, text in entries:
            r.execute_command("SP.WRITE", ns + "-raw", name, text)

        def encoding(ns, name):
            st = r.execute_command("SP.STAT", ns, name)
            st = dict(zip(st[::2], st[1::2])) if isinstance(st, list) else st
            return st[b"encoding"]

        def run():
            for name in ["e%d" % i for i in range(1, 5)] + ["long"]:
                enc = encoding("g", name), encoding("g-raw", name)
                assert enc[0] == b"lz4" and enc[1] != b"lz4", "encodings of %s: %r" % (name, enc)
            for ns, name, text in entries:
                check_entry(r, ns, name, text)

        rep.case("SP.GREP MAX on compressed entries of 1 KB - 3 MB, decoded a part at a time, answers exactly "
                 "as a Python model, as WITHMETA (a whole scan) and as the uncompressed copy", run)

        def limit_line():
            text = make_text(30000, 0)
            lines = text.split("\n")
            k = 21000  # far past the first parts (~1.2 MB of text)
            lines[k - 1] = "a" * 40 + "b"
            text = "\n".join(lines)
            r.config_set("compress-threshold", "4096")
            r.execute_command("SP.WRITE", "lim", "e", text)
            r.config_set("compress-threshold", str(1 << 30))
            r.execute_command("SP.WRITE", "lim-raw", "e", text)
            assert encoding("lim", "e") == b"lz4" and encoding("lim-raw", "e") != b"lz4"
            errs = []
            for ns in ("lim", "lim-raw"):
                try:
                    r.execute_command("SP.GREP", ns, "e", "(a+)+$")
                    errs.append(None)
                except redis.ResponseError as e:
                    errs.append(str(e))
            want = "SP.GREP stopped at line %d:" % k
            assert errs[0] and errs[0].startswith(want), "compressed entry: %r, want %r..." % (errs[0], want)
            assert errs[0] == errs[1], "compressed %r, uncompressed %r" % tuple(errs)

        rep.case("a line that exhausts the match limit 1.2 MB into a compressed entry is reported with its own "
                 "number, as for the uncompressed copy", limit_line)
    rep.finish()


if __name__ == "__main__":
    main()
