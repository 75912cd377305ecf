"""sp_snapshot_edit.py -- edits of a large entry that a snapshot shares cost
the chunks they touch, not the entry, against a real server.

A snapshot shares an entry's compressed content (server/core/sp/spsnap.c); a
change of the live entry then takes its own copy of the value, which shares
the value's chunks (lzval_dup, server/core/lz/lzval.c) and replaces only those
it rewrites. Before, that copy was a memory copy of every compressed chunk: an
edit of a 6 MB log entry under a snapshot grew used_memory by the whole
entry's ~2 MB of chunks. Through redis-py, with log text from
bench/gen_logs.py:

1. a 6 MB SP.WRITE entry is given its dictionary by the background (INFO
   lz4_dict_converted_values), then compress-dict-delay is raised to a day so
   that nothing re-encodes it during the checks; SP.SNAPSHOT;
2. SP.EDIT (same length, then longer) in the middle, SP.INSERT at a middle
   line and SP.APPEND on the live entry each grow used_memory by under two
   chunks' stored size plus the index (the check that fails with the entry
   copied whole); SP.INFO's snapshot_bytes counts what the snapshot holds
   beside the live entry (the chunks the edits replaced, not the entry); the
   live entry agrees with a Python model, the snapshot (read through an
   SP.FORK of it) and the versions the history keeps (sp-history-depth 2)
   keep theirs byte for byte;
3. the same after a restart, after an incremental rewrite and a restart, after
   a fork rewrite and a restart; scratchpad-check-aof reads each log as clean;
4. SP.RESTORE brings the old content back, SP.DROPSNAPSHOT gives back memory.
Every wait for the background is a poll with a deadline (WAIT_S); no timing is
asserted."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

WAIT_S = 60.0  # s, the bound on every wait for the background or a rewrite
TIMEOUT = 30   # s, per socket operation
SIZE = 6 << 20  # bytes of the entry
DAY = "86400000"
NS = "se"


def gen_text(size, seed):
    return spserver.gen_log_text(size, seed)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def eq(got, want, what):
    spserver.assert_same_bytes(got, want, what)


def as_map(reply):
    return reply if isinstance(reply, dict) else {reply[i]: reply[i + 1] for i in range(0, len(reply), 2)}


dict_info = spserver.lz4_dict_info


def wait_for(r, pred, what):
    return spserver.wait_lz4_dict(r, pred, what, WAIT_S)


def read_entry(r, ns, name, size, *extra):
    out, off = [], 0
    while off < size:
        piece = r.execute_command("SP.READ", ns, name, *extra, "OFFSET", off, "LIMIT", 1 << 20)
        check(piece, "SP.READ %s %s returned nothing at offset %d" % (ns, name, off))
        out.append(piece)
        off += len(piece)
    return b"".join(out)


def used(r):
    return r.info("memory")["used_memory"]


def unique_piece(text, lo, hi):
    """A 12-byte piece of a line in text[lo:hi] that occurs once in text."""
    for line in text[lo:hi].split(b"\n")[1:-1]:
        for a in range(0, max(1, len(line) - 12), 7):
            piece = line[a:a + 12]
            if len(piece) == 12 and text.count(piece) == 1:
                return piece
    raise AssertionError("no unique piece in [%d, %d)" % (lo, hi))


class State:
    def __init__(self, srv):
        self.srv = srv
        self.r = None
        self.old = b""     # the content the snapshot holds
        self.entry = b""   # the live content (the model)
        self.versions = {}  # version -> content, for the versions SP.HISTORY keeps

    def connect(self):
        self.r = redis.Redis(host="127.0.0.1", port=self.srv.port, socket_timeout=TIMEOUT)

    def same(self, when):
        r = self.r
        st = as_map(r.execute_command("SP.STAT", NS, "log"))
        eq(st[b"size"], len(self.entry), "the live entry's size %s" % when)
        eq(read_entry(r, NS, "log", len(self.entry)), self.entry, "the live entry %s" % when)
        kept = [h[0] for h in r.execute_command("SP.HISTORY", NS, "log")]
        check(len(kept) >= 2, "the history keeps versions %r %s" % (kept, when))
        for v in kept:
            eq(read_entry(r, NS, "log", len(self.versions[v]), "VERSION", v), self.versions[v],
               "version %d %s" % (v, when))
        r.execute_command("DEL", "se:fork")
        r.execute_command("SP.FORK", NS, "se:fork", "FROM", "before")
        eq(read_entry(r, "se:fork", "log", len(self.old)), self.old, "the snapshot's entry %s" % when)
        r.execute_command("DEL", "se:fork")


def t_setup(s):
    r = s.r
    s.entry = s.old = gen_text(SIZE, 23)
    r.config_set("compress-dict-delay", "100")
    r.config_set("sp-history-depth", 2)  # the live version and the one before
    s.versions[r.execute_command("SP.WRITE", NS, "log", s.entry)] = s.entry
    wait_for(r, lambda d: d["converted_values"] >= 1 and d["pending_values"] == 0, "the entry to be converted")
    r.config_set("compress-dict-delay", DAY)
    r.execute_command("SP.SNAPSHOT", NS, "before")
    # Fill the server's decoded-chunk cache, whose buffers count in used_memory.
    for off in range(0, SIZE, SIZE // 16):
        r.execute_command("SP.READ", NS, "log", "OFFSET", off, "LIMIT", 100)


def t_edits(s):
    r = s.r
    st = as_map(r.execute_command("SP.STAT", NS, "log"))
    chunks = st[b"chunks"]
    per_chunk = st[b"stored"] // chunks
    index = chunks * 128 + 4096
    bound = 2 * per_chunk + index + (16 << 10)
    info0 = as_map(r.execute_command("SP.INFO", NS))
    check(info0[b"snapshot_bytes"] < 64 << 10, "a snapshot of one entry holds only its arrays: %d bytes"
          % info0[b"snapshot_bytes"])

    def edit(what, cmd, apply):
        before = used(r)
        r.execute_command(*cmd)
        grow = used(r) - before
        s.entry = apply(s.entry)
        s.versions[as_map(r.execute_command("SP.STAT", NS, "log"))[b"version"]] = s.entry
        check(grow < bound, "%s under a snapshot grew used_memory by %d bytes; two chunks and the index are %d "
              "(the entry's chunks: %d bytes)" % (what, grow, bound, st[b"stored"]))

    edit("SP.APPEND", ("SP.APPEND", NS, "log", "an appended line\n"), lambda t: t + b"an appended line\n")
    old = unique_piece(s.entry, SIZE // 3, SIZE // 3 + 8000)
    new = bytes(b"XYZ"[i % 3] for i in range(len(old)))
    edit("SP.EDIT of the same length", ("SP.EDIT", NS, "log", old, new), lambda t: t.replace(old, new))
    old2 = unique_piece(s.entry, SIZE // 2, SIZE // 2 + 8000)
    new2 = old2 + b" -- edited under a snapshot, longer"
    edit("a longer SP.EDIT", ("SP.EDIT", NS, "log", old2, new2), lambda t: t.replace(old2, new2))
    line = s.entry.count(b"\n") * 2 // 3
    cut = 0
    for _ in range(line):
        cut = s.entry.index(b"\n", cut) + 1
    edit("SP.INSERT at a middle line", ("SP.INSERT", NS, "log", line, "an inserted line"),
         lambda t: t[:cut] + b"an inserted line\n" + t[cut:])
    info = as_map(r.execute_command("SP.INFO", NS))
    check(info[b"snapshot_bytes"] < 6 * per_chunk + index + (64 << 10),
          "SP.INFO snapshot_bytes counts what the snapshot holds beside the live entry: %d, the entry's chunks %d"
          % (info[b"snapshot_bytes"], st[b"stored"]))
    check(info[b"stored_bytes"] >= st[b"stored"] * 9 // 10,
          "SP.INFO stored_bytes counts the live entry's chunks whoever shares them: %d" % info[b"stored_bytes"])
    s.same("after the edits")


def log_clean(s, when):
    spserver.assert_log_clean(s.srv.dir, when)


def rewrite(r, mode):
    spserver.rewrite_log(r, mode, WAIT_S)


def restart(s):
    s.r.close()
    s.srv.restart("--appendonly", "yes", "--compress-dict-delay", DAY, "--sp-history-depth", "2")
    s.connect()


def t_restarts(s):
    log_clean(s, "after the edits")
    restart(s)
    s.same("after a restart")
    for mode in ("incremental", "fork"):
        rewrite(s.r, mode)
        log_clean(s, "after an %s rewrite" % mode)
        restart(s)
        s.same("after an %s rewrite and a restart" % mode)


def t_restore_drop(s):
    r = s.r
    r.execute_command("SP.RESTORE", NS, "before")
    eq(read_entry(r, NS, "log", len(s.old)), s.old, "the live entry after SP.RESTORE")
    before = used(r)
    r.execute_command("SP.DROPSNAPSHOT", NS, "before")
    r.execute_command("DEL", NS)
    check(used(r) < before - SIZE // 8, "SP.DROPSNAPSHOT and DEL give the memory back: %d -> %d"
          % (before, used(r)))


def main():
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes", "--compress-dict-delay", "100")
    srv.start()
    s = State(srv)
    try:
        s.connect()
        rep.case("a 6 MB entry is given its dictionary by the background and snapshotted", t_setup, s)
        rep.case("SP.EDIT (same length and longer), SP.INSERT at a middle line and SP.APPEND on an entry a snapshot "
                 "shares each grow used_memory by under two chunks and the index, not by the entry; SP.INFO counts "
                 "the snapshot's chunks beside the live ones; the snapshot and the history's versions keep their "
                 "content", t_edits, s)
        rep.case("the live entry, its history and the snapshot are the same after a restart, after an "
                 "incremental and a fork rewrite and a restart, and each log checks clean", t_restarts, s)
        rep.case("SP.RESTORE brings the snapshot's content back and SP.DROPSNAPSHOT with DEL gives the memory back",
                 t_restore_drop, s)
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    else:
        print("ok - the server exits with status 0 on SIGTERM")
    rep.finish()


if __name__ == "__main__":
    main()
