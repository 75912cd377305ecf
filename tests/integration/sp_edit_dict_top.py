"""sp_edit_dict_top.py -- edits inside the first 8 KB of large entries that the
background has compressed with their dictionary, against a real server.

In dictionary mode a value's first 8 KB sub-block is the LZ4 dictionary of every
other block (server/core/lz/lzval.c). An edit there used to re-encode the whole
value without a dictionary (~200 ms of CPU per 100 MB, and ~30 % more memory
until the background converted it again); now the value keeps the dictionary's
old bytes in a block of their own (the detached dictionary) and the edit costs
the chunks it touches. Through redis-py, with log text from bench/gen_logs.py:

1. an SP.WRITE entry and a SET string of ~3 MB are given their dictionary by
   the background (INFO lz4_dict_converted_values); compress-dict-delay is then
   raised to a day, so that nothing re-encodes them during the checks;
2. SP.EDIT of the same length, SP.EDIT of another length and SP.INSERT at line
   0, all in the first 8 KB, and SETRANGE at offset 10 of the string, agree
   byte for byte with a Python model, and the values keep their dictionary:
   SP.STAT stored and MEMORY USAGE grow by at most the detached block's 8 KB
   (plus the bytes added), where a re-encoding without the dictionary took
   ~30 % more (this is the check that fails without the detached dictionary);
3. the content is the same, byte for byte, after a restart (which replays the
   values as written, before their dictionary, and the edits); once converted
   again and edited at the top again, the same and still as small after an
   incremental rewrite and a restart, after a fork rewrite and a restart (the
   rewrites write the values with their detached dictionary, argument kind 2),
   and after more edits at the top and a restart (_SPSPLICE and SETRANGE
   replayed on the loaded values, through the same code); scratchpad-check-aof
   reads each log as clean;
4. with compress-dict-delay lowered, the background folds the detached
   dictionary back (lz4_dict_converted_values grows), the content stays the
   same, and it loads again after a rewrite and a restart.
Every wait for the background is a poll with a deadline (WAIT_S), never a
sleep that must be long enough; no timing is asserted."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

WAIT_S = 60.0  # s, the bound on every wait for the background or a rewrite
TIMEOUT = 30   # s, per socket operation
SIZE = 3 << 20  # bytes of each value
DAY = "86400000"
# No history: a version kept by sp-history-depth shares the edited entry's
# chunks (lzval_dup), and the background leaves a detached dictionary alone
# while its chunks are shared (lzidle.c); this test is about the detached
# dictionary alone (sp_snapshot_edit.py has edits under a snapshot and history).
NOHIST = ("--sp-history-depth", "0")


def gen_text(size, seed):
    return spserver.gen_log_text(size, seed)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def eq(got, want, what):
    spserver.assert_same_bytes(got, want, what)


dict_info = spserver.lz4_dict_info


def wait_for(r, pred, what):
    return spserver.wait_lz4_dict(r, pred, what, WAIT_S)


def stat(r):
    st = r.execute_command("SP.STAT", "dt", "log")
    return st if isinstance(st, dict) else {st[i]: st[i + 1] for i in range(0, len(st), 2)}


def read_entry(r, size):
    out, off = [], 0
    while off < size:
        chunk = r.execute_command("SP.READ", "dt", "log", "OFFSET", off, "LIMIT", 1 << 20)
        check(chunk, "SP.READ returned nothing at offset %d" % off)
        out.append(chunk)
        off += len(chunk)
    return b"".join(out)


def read_string(r, size):
    return b"".join(r.getrange("dstr", off, min(size, off + (1 << 20)) - 1) for off in range(0, size, 1 << 20))


class State:
    def __init__(self, srv):
        self.srv = srv
        self.r = None
        self.entry = b""
        self.string = b""
        self.stored0 = 0   # SP.STAT stored once converted, before the edits
        self.mem0 = 0      # MEMORY USAGE dstr, the same
        self.added = 0     # bytes the edits added to the entry

    def connect(self):
        self.r = redis.Redis(host="127.0.0.1", port=self.srv.port, socket_timeout=TIMEOUT)

    def same(self, when):
        st = stat(self.r)
        eq(st[b"size"], len(self.entry), "the entry's size %s" % when)
        eq(read_entry(self.r, len(self.entry)), self.entry, "the entry %s" % when)
        eq(read_string(self.r, len(self.string)), self.string, "the string %s" % when)

    def small(self, when):
        st = stat(self.r)
        check(st[b"encoding"] == b"lz4", "the entry is compressed %s" % when)
        check(st[b"stored"] <= self.stored0 + 8192 + 1024 + self.added,
              "the entry keeps its dictionary %s: SP.STAT stored %d, %d before the edits"
              % (when, st[b"stored"], self.stored0))
        mem = self.r.memory_usage("dstr")
        check(mem <= self.mem0 + 8192 + 1024, "the string keeps its dictionary %s: MEMORY USAGE %d, %d before"
              % (when, mem, self.mem0))


def t_convert(s):
    r = s.r
    s.entry = gen_text(SIZE, 16)
    s.string = gen_text(SIZE, 17)
    r.execute_command("SP.WRITE", "dt", "log", s.entry)
    r.set("dstr", s.string)
    wait_for(r, lambda d: d["converted_values"] >= 2 and d["pending_values"] == 0, "both values to be converted")
    r.config_set("compress-dict-delay", DAY)
    s.stored0 = stat(r)[b"stored"]
    s.mem0 = r.memory_usage("dstr")
    s.same("once converted")


def first_unique(text, limit):
    """A piece of a line inside text[:limit] that occurs once in text."""
    for line in text[:limit].split(b"\n")[1:-1]:
        for a in range(0, max(1, len(line) - 12), 7):
            piece = line[a:a + 12]
            if len(piece) == 12 and text.count(piece) == 1:
                return piece
    raise AssertionError("no unique piece in the first %d bytes" % limit)


def t_edit_top(s):
    r = s.r
    old = first_unique(s.entry, 4000)
    new = bytes(b"XYZ"[i % 3] for i in range(len(old)))
    eq(r.execute_command("SP.EDIT", "dt", "log", old, new)[0], 1, "SP.EDIT's count (same length)")
    s.entry = s.entry.replace(old, new)
    old = first_unique(s.entry, 8000)
    new = old + b" -- edited at the top, longer"
    eq(r.execute_command("SP.EDIT", "dt", "log", old, new)[0], 1, "SP.EDIT's count (longer)")
    s.entry = s.entry.replace(old, new)
    s.added += len(new) - len(old)
    r.execute_command("SP.INSERT", "dt", "log", 0, "a first line, inserted")
    s.entry = b"a first line, inserted\n" + s.entry
    s.added += len(b"a first line, inserted\n")
    r.setrange("dstr", 10, b"0123456789")
    s.string = s.string[:10] + b"0123456789" + s.string[20:]
    s.same("after the edits at the top")
    s.small("after the edits at the top")
    # Values the log loader rebuilt are registered by the cron's dataset scan,
    # a tick or so after a restart: wait for it rather than race it.
    wait_for(r, lambda d: d["pending_values"] >= 2, "both values to wait to fold their detached dictionary back")


def log_clean(s, when):
    spserver.assert_log_clean(s.srv.dir, when)


def rewrite(r, mode):
    spserver.rewrite_log(r, mode, WAIT_S)


def restart(s):
    s.r.close()
    s.srv.restart("--appendonly", "yes", "--compress-dict-delay", DAY, *NOHIST)
    s.connect()


def t_restarts(s):
    # The log holds the values as written (before the background's dictionary)
    # and the edits: a restart replays them, the same bytes without a dictionary.
    log_clean(s, "after the edits")
    restart(s)
    s.same("after a restart")
    s.r.config_set("compress-dict-delay", "100")
    wait_for(s.r, lambda d: d["converted_values"] >= 2 and d["pending_values"] == 0,
             "the reloaded values to be converted")
    s.r.config_set("compress-dict-delay", DAY)
    s.stored0 = stat(s.r)[b"stored"]
    s.mem0 = s.r.memory_usage("dstr")
    s.added = 0
    t_edit_top(s)
    # A rewrite writes the values as they are: with their detached dictionary.
    for mode in ("incremental", "fork"):
        rewrite(s.r, mode)
        log_clean(s, "after an %s rewrite" % mode)
        restart(s)
        s.same("after an %s rewrite and a restart" % mode)
        s.small("after an %s rewrite and a restart" % mode)
    # More edits at the top of the loaded values, replayed on them by a restart.
    t_edit_top(s)
    log_clean(s, "after edits on the loaded values")
    restart(s)
    s.same("after edits on the loaded values and a restart")
    s.small("after edits on the loaded values and a restart")


def t_fold_back(s):
    r = s.r
    base = dict_info(r)["converted_values"]
    r.config_set("compress-dict-delay", "100")
    wait_for(r, lambda d: d["converted_values"] >= base + 2 and d["pending_values"] == 0,
             "the detached dictionaries to be folded back")
    s.same("once folded back")
    s.small("once folded back")
    rewrite(r, "fork")
    log_clean(s, "after the fold and a rewrite")
    restart(s)
    s.same("after the fold, a rewrite and a restart")
    eq(dict_info(s.r)["pending_values"], 0, "nothing waits after loading the folded values")


def main():
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes", "--compress-dict-delay", "100", *NOHIST)
    srv.start()
    s = State(srv)
    try:
        s.connect()
        rep.case("a 3 MB entry and a 3 MB string are given their dictionary by the background", t_convert, s)
        rep.case("SP.EDIT (same length and longer), SP.INSERT at line 0 and SETRANGE in the first 8 KB of "
                 "dictionary-mode values agree with the model and keep the dictionary (memory grows by at most "
                 "the detached 8 KB)", t_edit_top, s)
        rep.case("the edited values are the same byte for byte after a restart; edited at the top again once converted, "
                 "the same and as small after an incremental and a fork rewrite each followed by a restart, and after "
                 "more edits at the top and a restart; scratchpad-check-aof reads each log as clean", t_restarts, s)
        rep.case("the background folds the detached dictionaries back, the content unchanged, and the values load "
                 "again after a rewrite and a restart", t_fold_back, s)
    finally:
        if s.r:
            s.r.close()
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    rep.finish()


if __name__ == "__main__":
    main()
