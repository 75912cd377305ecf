"""sp_grep_entries.py -- SP.GREP ns pattern ENTRIES glob [glob ...]: one search
over the entries whose names match the globs, through redis-py as a harness
uses it.

Checked against a Python model (fnmatch-style selection in name order, each
entry once, lines "name:n:line" and context "name-n-line", MAX counted across
entries, WITHMETA's matched/shown/truncated/entries) on a seeded scratchpad of
small, compressed (over compress-threshold) and binary entries; the one-entry
form is unchanged beside it. Then the budgets: sp-grep-max-scan bounds the
selected entries' total size, one sp-grep-max-time clock runs over all of them
(also between entries too small for the per-line check), the match limit names
the entry and line; and the errors of the one-entry form (bad pattern even
when nothing is selected, MAX, CONTEXT, syntax). Seeded (SEED=... reproduces);
one server, stopped by PID."""
import fnmatch
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402

import spserver  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
RNG = random.Random(SEED)
WORDS = ["GET", "POST", "status=200", "status=404", "user=17", "latency", "cache", "miss", "ok", "retry", "ERROR"]


def make_text(nlines):
    return "\n".join("line %d %s" % (i, " ".join(RNG.choice(WORDS) for _ in range(RNG.randrange(2, 9))))
                     for i in range(1, nlines + 1)) + "\n"


def lines_of(data):
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def model(entries, globs, pattern, mx, context=0, nocase=False):
    """The reply of SP.GREP ns pattern ENTRIES globs MAX mx [CONTEXT c] and its
    WITHMETA counts, for entries {name: bytes}. Globs here use no '[' or '\\'
    (fnmatchcase then agrees with the server's glob)."""
    rx = re.compile(pattern.encode(), re.I if nocase else 0)
    out, matched, shown, searched = [], 0, 0, 0
    for name in sorted(entries):
        if not any(fnmatch.fnmatchcase(name, g) for g in globs):
            continue
        searched += 1
        lines = lines_of(entries[name])
        hits = [i for i, l in enumerate(lines) if rx.search(l)]
        matched += len(hits)
        keep = hits[:max(0, mx - shown)]
        shown += len(keep)
        want = set()
        for i in keep:
            want.update(range(max(0, i - context), min(len(lines), i + context + 1)))
        for i in sorted(want):
            out.append(b"%s%s%d%s%s" % (name.encode(), b":" if i in keep else b"-", i + 1,
                                        b":" if i in keep else b"-", lines[i]))
    return out, {b"matched": matched, b"shown": shown, b"truncated": int(matched > shown), b"entries": searched}


def as_map(x):
    return dict(zip(x[::2], x[1::2])) if isinstance(x, list) else x


def expect_error(fn, prefix):
    if prefix.startswith("ERR "):
        prefix = prefix[4:]  # redis-py drops the ERR code
    try:
        got = fn()
    except redis.ResponseError as e:
        assert str(e).startswith(prefix), "error %r, want %r..." % (str(e), prefix)
        return str(e)
    raise AssertionError("answered %r, want an error %r..." % (got, prefix))


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    with spserver.Server("--appendonly", "no") as srv:
        r = redis.Redis(port=srv.port, socket_timeout=60)
        entries = {}
        for i in range(12):
            entries["obs/read_file-%d" % i] = make_text(RNG.randrange(0, 40)).encode()
        for i in range(3):  # compressed: well over compress-threshold (4 KB)
            entries["tool/big-%d" % i] = make_text(RNG.randrange(2000, 6000)).encode()
        entries["plan"] = b"- [ ] read\n- [x] ERROR triage\n- [ ] write tests\n"
        entries["bin"] = b"\x00\x01ERROR\xff\nzz\x00ERROR 7\n"
        for name, data in entries.items():
            r.execute_command("SP.WRITE", "g", name, data)

        def model_checks():
            st = as_map(r.execute_command("SP.STAT", "g", "tool/big-0"))
            assert st[b"encoding"] == b"lz4", st
            assert as_map(r.execute_command("SP.STAT", "g", "bin"))[b"kind"] == b"binary"
            cases = [(["*"], "ERROR", 100, 0), (["*"], "ERROR", 5, 0), (["obs/*"], "status=404", 100000, 0),
                     (["obs/*", "plan"], "^line 1 ", 3, 1), (["tool/*"], "user=17 ok", 20, 2),
                     (["*"], "never-there", 100, 0), (["nothing*"], "ERROR", 100, 0), (["bin"], "ERROR \\d", 10, 0),
                     (["plan", "plan", "p*"], "\\[x\\]", 100, 1), (["*"], "ERROR", 0, 0)]
            for _ in range(30):
                cases.append((RNG.sample(["*", "obs/*", "tool/*", "plan", "bin", "obs/read_file-1*", "t?ol/big-2"],
                                         RNG.randrange(1, 4)),
                              RNG.choice(["ERROR", "status=\\d+", "^line \\d*7 ", "cache miss", "GET"]),
                              RNG.choice([0, 1, 3, 50, 100000]), RNG.choice([0, 0, 1, 3])))
            for globs, pat, mx, ctx in cases:
                args = ["SP.GREP", "g", pat, "ENTRIES"] + globs + ["MAX", mx]
                if ctx:
                    args += ["CONTEXT", ctx]
                want, meta = model(entries, globs, pat, mx, ctx)
                got = r.execute_command(*args)
                assert list(got) == want, "%r: %d lines, the model %d; first difference %r" % (
                    args, len(got), len(want), next(((a, b) for a, b in zip(got, want) if a != b), None))
                gm = r.execute_command(*(args + ["WITHMETA"]))
                assert list(gm[0]) == want and as_map(gm[1]) == meta, "%r WITHMETA: %r, want %r" % (
                    args, as_map(gm[1]), meta)
            # NOCASE and LITERAL apply to every entry; the one-entry form is unchanged.
            want, _ = model(entries, ["plan"], "error", 100, nocase=True)
            assert r.execute_command("SP.GREP", "g", "error", "ENTRIES", "plan", "NOCASE") == want
            assert r.execute_command("SP.GREP", "g", "[x]", "ENTRIES", "p*", "LITERAL") == [b"plan:2:- [x] ERROR triage"]
            assert r.execute_command("SP.GREP", "g", "plan", "ERROR") == [b"2:- [x] ERROR triage"]
            # An entry whose name spells an option: a glob that is an option word ends the list.
            r.execute_command("SP.WRITE", "g2", "max", "x1\n")
            assert r.execute_command("SP.GREP", "g2", "x", "ENTRIES", "[m]ax") == [b"max:1:x1"]
            assert r.execute_command("SP.GREP", "g2", "x", "ENTRIES", "*", "MAX", "0") == []
            # A grep for the word "entries" in one entry still works.
            r.execute_command("SP.WRITE", "g2", "log", "3 entries\n")
            assert r.execute_command("SP.GREP", "g2", "log", "entries") == [b"1:3 entries"]
            assert r.execute_command("SP.GREP", "g2", "log", "entries", "MAX", "1") == [b"1:3 entries"]
            # A missing scratchpad, or globs that select nothing: an empty array.
            assert r.execute_command("SP.GREP", "nosuch", "x", "ENTRIES", "*") == []
            assert r.execute_command("SP.GREP", "nosuch", "x", "ENTRIES", "*", "WITHMETA") == [
                [], [b"matched", 0, b"shown", 0, b"truncated", 0, b"entries", 0]]

        rep.case("SP.GREP ... ENTRIES over small, compressed and binary entries answers as a Python model: "
                 "name:n:line in name order, each entry once, MAX across entries, CONTEXT, WITHMETA", model_checks)

        def errors():
            expect_error(lambda: r.execute_command("SP.GREP", "g", "(x", "ENTRIES", "*"),
                         "ERR invalid pattern at offset 2: missing closing parenthesis")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "(x", "ENTRIES", "nothing*"),
                         "ERR invalid pattern at offset 2: missing closing parenthesis")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "(x", "ENTRIES", "*", "MAX", "0"),
                         "ERR invalid pattern at offset 2: missing closing parenthesis")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "x", "ENTRIES", "*", "MAX", "-1"),
                         "ERR MAX must not be negative")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "x", "ENTRIES", "*", "CONTEXT", "1001"),
                         "ERR CONTEXT must be at most 1000")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "x", "ENTRIES", "*", "MAX"), "ERR syntax error")
            expect_error(lambda: r.execute_command("SP.GREP", "g", "x", "ENTRIES", "*", "NOCASE", "zz"),
                         "ERR syntax error")
            r.execute_command("SET", "str", "v")
            expect_error(lambda: r.execute_command("SP.GREP", "str", "x", "ENTRIES", "*"), "WRONGTYPE")

        rep.case("SP.GREP ... ENTRIES answers the one-entry form's errors: a bad pattern (even when no entry is "
                 "selected), MAX, CONTEXT, syntax, WRONGTYPE", errors)

        def budgets():
            total = sum(len(v) for k, v in entries.items() if k.startswith("tool/"))
            r.config_set("sp-grep-max-scan", str(total - 1))
            expect_error(lambda: r.execute_command("SP.GREP", "g", "x", "ENTRIES", "tool/*"),
                         "ERR entries are %d bytes in total, over sp-grep-max-scan (%d): narrow the globs or raise "
                         "the limit" % (total, total - 1))
            r.config_set("sp-grep-max-scan", str(total))
            r.execute_command("SP.GREP", "g", "x", "ENTRIES", "tool/*")
            r.config_set("sp-grep-max-scan", "64mb")
            # The match limit: the entry and its line are named.
            r.execute_command("SP.WRITE", "lim", "a-ok", "fine\n")
            r.execute_command("SP.WRITE", "lim", "b-bad", "ok\n" + "a" * 6000 + "!\n")
            r.execute_command("SP.WRITE", "lim", "c-later", "aaa\n")
            expect_error(lambda: r.execute_command("SP.GREP", "lim", "(a+)+$", "ENTRIES", "*"),
                         "ERR SP.GREP stopped at line 2 of 'b-bad': match limit exceeded")
            # One time budget for the call: thousands of small entries, each of a few
            # lines that backtrack, stop the search with an error within about the budget.
            r.config_set("sp-grep-max-time", "50")
            line = "a" * 18 + "!"
            pipe = r.pipeline(transaction=False)
            for i in range(3000):
                pipe.execute_command("SP.WRITE", "slow", "e%05d" % i, (line + "\n") * 3)
            pipe.execute()
            t0 = time.monotonic()
            err = expect_error(lambda: r.execute_command("SP.GREP", "slow", "(a+)+$", "ENTRIES", "*"),
                               "ERR SP.GREP stopped ")
            took = time.monotonic() - t0
            assert "time budget of 50 ms exceeded" in err and "'e" in err, err
            assert took < 2.0, "the grep took %.2f s with a 50 ms budget" % took
            r.config_set("sp-grep-max-time", "250")

        rep.case("SP.GREP ... ENTRIES has the one-entry budgets: sp-grep-max-scan over the selected entries' total, "
                 "the match limit naming entry and line, one sp-grep-max-time for the whole call", budgets)
    rep.finish()


if __name__ == "__main__":
    main()
