"""sp_snapshots.py -- SP.SNAPSHOT, SP.RESTORE, SP.DROPSNAPSHOT, SP.DIFF and
SP.FORK against a model, through random writes, appends, edits, deletions,
snapshots, restores, forks and diffs; memory growing with changed bytes only;
the whole state equal after a restart and after each rewrite mode.

One server of its own (tests/lib/spserver.py, the log on), redis-py's
execute_command. SNAP_COUNT (default 1500) operations, SEED printed; prints
"ok - ..." or "not ok - ..." per case.
"""

import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402

PORT = None
SEED = int(os.environ.get("SEED", str(int(time.time()) % 100000)))
COUNT = int(os.environ.get("SNAP_COUNT", "1500"))
NAMES = ["a", "b", "c", "dir/d", "e", "f"]
NSS = ["sn:p", "sn:q", "sn:r"]


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=20, socket_connect_timeout=20)


def first_diff(got, want, path=""):
    """Where two nested values first differ, briefly."""
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                return first_diff(g, w, "%s[%d]" % (path, i))
        return "%s: lengths %d, %d" % (path, len(got), len(want))
    if isinstance(got, dict) and isinstance(want, dict):
        for k in sorted(set(got) | set(want), key=repr):
            if got.get(k) != want.get(k):
                return first_diff(got.get(k), want.get(k), "%s[%r]" % (path, k))
    return "%s: got %.200r, want %.200r" % (path, got, want)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: %s (SEED=%d)" % (what, first_diff(got, want), SEED))


class Entry:
    """The model of an entry: content, version, and an identity that a
    creation renews (a restored entry keeps its snapshot's)."""

    def __init__(self, content, version, ident):
        self.content, self.version, self.ident = content, version, ident


def content_for(rnd):
    k = rnd.random()
    if k < 0.15:
        # Above the compression threshold: shared compressed content.
        return ("line %d of a long tool output\n" % rnd.randrange(1000)).encode() * rnd.randrange(200, 600)
    return ("v%d-" % rnd.randrange(100000)).encode() * rnd.randrange(1, 20)


def model_diff(a, b):
    """The changes from a to b as SP.DIFF lists them: (status, name) pairs that
    must appear, and pairs that may (same version and content, another identity)."""
    must, may = set(), set()
    for n in set(a) | set(b):
        if n not in b:
            must.add(("removed", n))
        elif n not in a:
            must.add(("added", n))
        elif a[n].version != b[n].version or a[n].content != b[n].content:
            must.add(("changed", n))
        elif a[n].ident != b[n].ident:
            may.add(("changed", n))
    return must, may


def check_diff(r, ns, frm, to, a, b):
    got = r.execute_command("SP.DIFF", ns, frm, to)
    seen = set()
    for row in got:
        st, name = row[0].decode(), row[1].decode()
        seen.add((st, name))
        old, new = (a.get(name), b.get(name))
        if st != "added":
            eq(row[2], old.version, "%s %s..%s old version of %s" % (ns, frm, to, name))
            eq(row[4], len(old.content), "old size")
        if st != "removed":
            eq(row[3], new.version, "%s %s..%s new version of %s" % (ns, frm, to, name))
            eq(row[5], len(new.content), "new size")
    must, may = model_diff(a, b)
    eq(seen - may, must, "SP.DIFF %s %s %s" % (ns, frm, to))


def apply_unified(a, d):
    """The text a unified diff d (bytes) turns a into."""
    lines = a.splitlines(keepends=True)
    rows = d.split(b"\n")[2:]
    out, ai, i = [], 0, 0
    while i < len(rows):
        if not rows[i]:
            i += 1
            continue
        assert rows[i].startswith(b"@@ -"), rows[i]
        start, length = (int(x) for x in rows[i].split(b" ")[1][1:].split(b","))
        k = start - 1 if length else start
        out.extend(lines[ai:k])
        ai = k
        i += 1
        while i < len(rows) and rows[i][:1] in (b" ", b"-", b"+"):
            mark, body = rows[i][:1], rows[i][1:] + b"\n"
            if i + 1 < len(rows) and rows[i + 1].startswith(b"\\ No newline"):
                body = body[:-1]
                i += 1
            if mark != b"+":
                assert lines[ai] == body, (lines[ai], body)
                ai += 1
            if mark != b"-":
                out.append(body)
            i += 1
    out.extend(lines[ai:])
    return b"".join(out)


def check_entry_diff(r, ns, frm, to, a, b, name):
    x, y = a.get(name), b.get(name)
    try:
        got = r.execute_command("SP.DIFF", ns, frm, to, name)
    except redis.ResponseError as e:
        # The bound of 1,000 lines removed and added (docs/commands.md).
        lines = sum(len(z.content.splitlines()) for z in (x, y) if z)
        if "diff too large: more than 1000 lines" in str(e) and lines > 1000:
            return
        raise
    if x is None and y is None:
        eq(got, None, "SP.DIFF of an entry in neither state")
        return
    ta, tb = x.content if x else b"", y.content if y else b""
    if ta == tb:
        eq(got, b"", "SP.DIFF of an entry the same in both")
        return
    eq(apply_unified(ta, got), tb, "SP.DIFF %s %s %s %s applied" % (ns, frm, to, name))


def check_live(r, ns, live):
    names = sorted(n.encode() for n in live)
    got = r.execute_command("SP.LIST", ns, "COUNT", 1000)
    eq(sorted(got[1]) if got else [], names, "entries of %s" % ns)
    for n, e in live.items():
        eq(r.execute_command("SP.READ", ns, n), e.content, "content of %s %s" % (ns, n))
        st = r.execute_command("SP.STAT", ns, n)
        d = dict(zip(st[::2], st[1::2]))
        eq(d[b"version"], e.version, "version of %s %s" % (ns, n))


def case_model():
    rnd = random.Random(SEED)
    r = client()
    r.execute_command("DEL", *NSS)
    live = {ns: {} for ns in NSS}
    snaps = {ns: {} for ns in NSS}
    maxver = {}  # (ns, name) -> highest version seen: a restore never reuses one
    ident = [0]
    snapno = [0]
    vers = {}  # (ns, name) -> {version: content}, the latest content seen at each version

    def new_ident():
        ident[0] += 1
        return ident[0]

    for step in range(COUNT):
        ns = rnd.choice(NSS)
        lv = live[ns]
        op = rnd.random()
        n = rnd.choice(NAMES)
        if op < 0.30:
            c = content_for(rnd)
            v = r.execute_command("SP.WRITE", ns, n, c)
            if n not in lv:
                lv[n] = Entry(c, v, new_ident())
            else:
                lv[n].content, lv[n].version = c, v
            eq(v, lv[n].version, "SP.WRITE's version")
        elif op < 0.42:
            c = content_for(rnd)[:200]
            r.execute_command("SP.APPEND", ns, n, c)
            if n in lv:
                lv[n].content += c
                lv[n].version += 1
            else:
                lv[n] = Entry(c, 1, new_ident())
        elif op < 0.50 and n in lv and lv[n].content:
            old = lv[n].content[:3]
            try:
                r.execute_command("SP.EDIT", ns, n, old, b"EDIT", "ALL")
                lv[n].content = lv[n].content.replace(old, b"EDIT")
                lv[n].version += 1
            except redis.ResponseError:
                pass
        elif op < 0.58:
            got = r.execute_command("SP.DEL", ns, n)
            eq(got, 1 if n in lv else 0, "SP.DEL")
            lv.pop(n, None)
        elif op < 0.68:
            snapno[0] += 1
            label = "s%d" % snapno[0]
            if not lv:
                try:
                    r.execute_command("SP.SNAPSHOT", ns, label)
                    if not snaps[ns]:
                        raise AssertionError("SP.SNAPSHOT of a missing scratchpad succeeded")
                except redis.ResponseError as e:
                    if snaps[ns] or "no such scratchpad" not in str(e):
                        raise
                    continue
            else:
                eq(r.execute_command("SP.SNAPSHOT", ns, label), len(lv), "SP.SNAPSHOT's count")
            snaps[ns][label] = {k: Entry(e.content, e.version, e.ident) for k, e in lv.items()}
        elif op < 0.76 and snaps[ns]:
            label = rnd.choice(sorted(snaps[ns]))
            sn = snaps[ns][label]
            before = {k: (e.version, e.content) for k, e in lv.items()}
            changed = r.execute_command("SP.RESTORE", ns, label)
            want = sum(1 for k in set(before) | set(sn)
                       if k not in sn or k not in before or before[k] != (sn[k].version, sn[k].content))
            if changed < want or changed > len(set(before) | set(sn)):
                raise AssertionError("SP.RESTORE changed %d, model %d (SEED=%d)" % (changed, want, SEED))
            newlv = {}
            for k, e in sn.items():
                if k in before and before[k] == (e.version, e.content):
                    newlv[k] = lv[k]
                    continue
                st = r.execute_command("SP.STAT", ns, k)
                v = dict(zip(st[::2], st[1::2]))[b"version"]
                if k in before and v == before[k][0] and before[k][1] == e.content:
                    newlv[k] = lv[k]
                    continue
                if v <= max(maxver.get((ns, k), 0), e.version):
                    raise AssertionError("restored %s %s at version %d, seen %d (SEED=%d)" %
                                         (ns, k, v, maxver.get((ns, k), 0), SEED))
                newlv[k] = Entry(e.content, v, e.ident)
            live[ns] = lv = newlv
        elif op < 0.80 and snaps[ns]:
            label = rnd.choice(sorted(snaps[ns]))
            eq(r.execute_command("SP.DROPSNAPSHOT", ns, label), 1, "SP.DROPSNAPSHOT")
            del snaps[ns][label]
            eq(r.execute_command("SP.DROPSNAPSHOT", ns, label), 0, "SP.DROPSNAPSHOT again")
        elif op < 0.84:
            dst = rnd.choice(NSS)
            if dst == ns:
                continue
            labels = sorted(snaps[ns])
            frm = rnd.choice(labels) if labels and rnd.random() < 0.5 else None
            src = snaps[ns][frm] if frm else lv
            if live[dst] or snaps[dst]:
                if rnd.random() < 0.7:
                    continue
                r.execute_command("DEL", dst)
                live[dst], snaps[dst] = {}, {}
                for k in [k for k in maxver if k[0] == dst]:
                    del maxver[k]  # a new scratchpad: its versions start again
            args = ["SP.FORK", ns, dst] + (["FROM", frm] if frm else [])
            if not lv and not snaps[ns]:
                continue
            eq(r.execute_command(*args), len(src), "SP.FORK's count")
            live[dst] = {k: Entry(e.content, e.version, e.ident) for k, e in src.items()}
        elif op < 0.94:
            labels = sorted(snaps[ns]) + ["NOW"]
            a, b = rnd.choice(labels), rnd.choice(labels)
            if not lv and not snaps[ns]:
                continue
            sa, sb = lv if a == "NOW" else snaps[ns][a], lv if b == "NOW" else snaps[ns][b]
            check_diff(r, ns, a, b, sa, sb)
            check_entry_diff(r, ns, a, b, sa, sb, n)
        elif op < 0.97 and n in lv:
            # The entry's history: the versions it lists are its last ones, each
            # reads back as the model had it; sometimes one is written back.
            hist = r.execute_command("SP.HISTORY", ns, n)
            listed = [h[0] for h in hist]
            if listed:
                eq(listed[-1], lv[n].version, "the newest version in the history of %s %s" % (ns, n))
                eq(listed, sorted(set(listed)), "versions in order, each once")
                assert len(listed) <= 2, "more versions than sp-history-depth 1 keeps: %r" % listed
            for v in listed:
                eq(r.execute_command("SP.READ", ns, n, "VERSION", v), vers[(ns, n)][v],
                   "version %d of %s %s" % (v, ns, n))
            if listed and rnd.random() < 0.5:
                v = listed[0]
                got = r.execute_command("SP.REVERT", ns, n, v)
                eq(got, lv[n].version + 1, "SP.REVERT's version")
                lv[n].content, lv[n].version = vers[(ns, n)][v], got
        else:
            check_live(r, ns, lv)
        for x in NSS:
            for k, e in live[x].items():
                vers.setdefault((x, k), {})[e.version] = e.content
            if not live[x] and not snaps[x]:
                for k in [k for k in maxver if k[0] == x]:
                    del maxver[k]  # the key is gone: a new one's versions start again
            for k, e in live[x].items():
                maxver[(x, k)] = max(maxver.get((x, k), 0), e.version)
    for ns in NSS:
        check_live(r, ns, live[ns])
        eq(sorted(x[0].decode() for x in r.execute_command("SP.SNAPSHOTS", ns)), sorted(snaps[ns]),
           "snapshots of %s" % ns)
        for label, sn in snaps[ns].items():
            check_diff(r, ns, label, "NOW", sn, live[ns])


def dump(r):
    """Everything a client can see of the scratchpads: entries, contents,
    versions, snapshots and each snapshot's diff against NOW."""
    out = {}
    for ns in sorted(k.decode() for k in r.keys("sn:*")):
        got = r.execute_command("SP.LIST", ns, "COUNT", 1000)
        names = sorted(got[1]) if got else []
        ents = []
        for n in names:
            st = r.execute_command("SP.STAT", ns, n)
            d = dict(zip(st[::2], st[1::2]))
            hist = r.execute_command("SP.HISTORY", ns, n)
            old = [r.execute_command("SP.READ", ns, n, "VERSION", h[0]) for h in hist]
            ents.append((n, d[b"version"], d[b"created"], d[b"updated"], r.execute_command("SP.READ", ns, n),
                         hist, old))
        snaps = r.execute_command("SP.SNAPSHOTS", ns)
        diffs = [r.execute_command("SP.DIFF", ns, s[0], "NOW") for s in snaps]
        fork = r.execute_command("SP.FORK", ns, "sncheck:x", "FROM", snaps[0][0]) if snaps else None
        fork_ents = []
        if fork:
            for n in sorted(r.execute_command("SP.LIST", "sncheck:x", "COUNT", 1000)[1]):
                fork_ents.append((n, r.execute_command("SP.READ", "sncheck:x", n)))
            r.execute_command("DEL", "sncheck:x")
        out[ns] = (ents, snaps, diffs, fork_ents)
    return out


def rewrite(r, mode):
    r.execute_command("CONFIG", "SET", "aof-rewrite-mode", mode)
    before = r.info("persistence")["aof_rewrites"]
    r.execute_command("BGREWRITEAOF")
    for _ in range(500):
        p = r.info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] > before:
            return
        time.sleep(0.02)
    raise AssertionError("the %s rewrite did not finish" % mode)


def case_restart(srv):
    global PORT
    r = client()
    want = dump(r)
    assert any(v[1] for v in want.values()), "the model run left no snapshot to check (SEED=%d)" % SEED
    for mode in ("restart", "incremental", "fork"):
        if mode != "restart":
            rewrite(r, mode)
        srv.restart()
        PORT = srv.port
        r = client()
        got = dump(r)
        eq(got, want, "the state after %s" % mode)
    out = subprocess_check(srv)
    assert "OK" in out or "ok" in out.lower(), out


def subprocess_check(srv):
    import subprocess
    tool = os.path.join(spserver.TOP, os.environ.get("BUILD", "build"), "scratchpad-check-aof")
    manifest = None
    for root, _, files in os.walk(srv.dir):
        for f in files:
            if f.endswith(".manifest"):
                manifest = os.path.join(root, f)
    if not manifest:
        raise AssertionError("no manifest in %s" % srv.dir)
    p = subprocess.run([tool, manifest], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    eq(p.returncode, 0, "scratchpad-check-aof's status: " + p.stdout.decode(errors="replace"))
    return p.stdout.decode(errors="replace")


def case_memory():
    r = client()
    r.config_set("sp-history-depth", 0)  # the snapshots' memory alone
    r.execute_command("DEL", "sn:big")
    rnd = random.Random(SEED)
    for i in range(40):
        words = [("w%d" % rnd.randrange(50000)) for _ in range(40000)]
        r.execute_command("SP.WRITE", "sn:big", "out-%d" % i, " ".join(words))
    m0 = r.info("memory")["used_memory"]
    r.execute_command("SP.SNAPSHOT", "sn:big", "one")
    r.execute_command("SP.SNAPSHOT", "sn:big", "two")
    m1 = r.info("memory")["used_memory"]
    if m1 - m0 >= 1 << 20:
        raise AssertionError("two snapshots of 40 entries (%d bytes) added %d bytes" %
                             (r.execute_command("SP.INFO", "sn:big")[3], m1 - m0))
    # One entry rewritten: memory grows by about that entry, not the scratchpad.
    per = (m0 - 0) // 40
    words = [("w%d" % rnd.randrange(50000)) for _ in range(40000)]
    r.execute_command("SP.WRITE", "sn:big", "out-0", " ".join(words))
    m2 = r.info("memory")["used_memory"]
    if m2 - m1 > per * 3 // 2 + (256 << 10):
        raise AssertionError("rewriting one entry under two snapshots added %d bytes (about %d an entry)" %
                             (m2 - m1, per))
    # Dropping both snapshots gives back what only they held.
    r.execute_command("SP.DROPSNAPSHOT", "sn:big", "one")
    r.execute_command("SP.DROPSNAPSHOT", "sn:big", "two")
    m3 = r.info("memory")["used_memory"]
    if m3 > m2 - (m2 - m1) // 2:
        raise AssertionError("dropping the snapshots gave back nothing: %d -> %d" % (m2, m3))
    r.execute_command("DEL", "sn:big")
    r.config_set("sp-history-depth", 1)


def case_history():
    r = client()
    r.execute_command("DEL", "sh:a")
    r.execute_command("CLIENT", "SETNAME", "agent-h")
    depth = int(r.config_get("sp-history-depth")["sp-history-depth"])
    eq(depth, 1, "sp-history-depth's default")
    r.config_set("sp-history-depth", 2)
    contents = [b"v%d\n" % i + b"line\n" * (i * 300) for i in range(1, 6)]
    for c in contents:
        r.execute_command("SP.WRITE", "sh:a", "e", c)
    h = r.execute_command("SP.HISTORY", "sh:a", "e")
    eq([x[0] for x in h], [3, 4, 5], "the versions kept: the live one and 2 before")
    eq([x[2] for x in h], [b"write"] * 3, "their operations")
    eq([x[4] for x in h], [b"agent-h"] * 3, "their writer")
    eq([x[3] for x in h], [len(c) for c in contents[2:]], "their sizes")
    for v in (3, 4, 5):
        eq(r.execute_command("SP.READ", "sh:a", "e", "VERSION", v), contents[v - 1], "SP.READ VERSION %d" % v)
    eq(r.execute_command("SP.READ", "sh:a", "e", "VERSION", 3, "HEAD", 2), b"v3", "SP.READ VERSION with HEAD")
    eq(r.execute_command("SP.READ", "sh:a", "e", "VERSION", 4, "LINES", 2, 3), b"line\nline\n", "with LINES")
    for bad in (1, 6):
        try:
            r.execute_command("SP.READ", "sh:a", "e", "VERSION", bad)
            raise AssertionError("version %d was read" % bad)
        except redis.ResponseError as e:
            assert "no version %d" % bad in str(e), str(e)
    eq(r.execute_command("SP.REVERT", "sh:a", "e", 3), 6, "SP.REVERT's new version")
    eq(r.execute_command("SP.READ", "sh:a", "e"), contents[2], "the reverted content")
    eq([x[0] for x in r.execute_command("SP.HISTORY", "sh:a", "e")], [4, 5, 6], "the history after a revert")
    ch = r.execute_command("SP.CHANGES", "sh:a")
    eq(ch[7][-1][2], b"revert", "the feed records the revert")
    # SP.DEL drops the history; depth 0 keeps none.
    r.execute_command("SP.DEL", "sh:a", "e")
    r.execute_command("SP.WRITE", "sh:a", "e", "new")
    eq([x[0] for x in r.execute_command("SP.HISTORY", "sh:a", "e")], [1], "a new entry's history")
    r.config_set("sp-history-depth", 0)
    r.execute_command("SP.WRITE", "sh:a", "e", "newer")
    eq(r.execute_command("SP.HISTORY", "sh:a", "e"), [], "no history at depth 0")
    r.config_set("sp-history-depth", 2)
    r.execute_command("SP.WRITE", "sh:a", "e", "again")
    r.execute_command("SP.WRITE", "sh:a", "e", "and again")
    eq([x[0] for x in r.execute_command("SP.HISTORY", "sh:a", "e")], [3, 4], "history again at depth 2")
    # An append to a compressed entry drops its history (no copy per append).
    r.execute_command("SP.WRITE", "sh:a", "log", b"x" * 100000)
    r.execute_command("SP.WRITE", "sh:a", "log", b"y\n" * 50000)
    eq(len(r.execute_command("SP.HISTORY", "sh:a", "log")), 2, "a large entry's history")
    r.execute_command("SP.APPEND", "sh:a", "log", b"more\n")
    eq(r.execute_command("SP.HISTORY", "sh:a", "log"), [], "the history after an append to a large entry")
    r.config_set("sp-history-depth", 1)
    r.execute_command("CLIENT", "SETNAME", "x")


def case_key_commands():
    r = client()
    r.execute_command("DEL", "sk:a", "sk:b", "sk:c", "sk:d")
    r.execute_command("SP.WRITE", "sk:a", "x", "one")
    r.execute_command("SP.SNAPSHOT", "sk:a", "s")
    # RENAME and MOVE carry the snapshots (they belong to the value).
    r.execute_command("RENAME", "sk:a", "sk:b")
    eq([x[0] for x in r.execute_command("SP.SNAPSHOTS", "sk:b")], [b"s"], "snapshots after RENAME")
    r.execute_command("MOVE", "sk:b", 1)
    r1 = redis.Redis(host="127.0.0.1", port=PORT, db=1)
    eq([x[0] for x in r1.execute_command("SP.SNAPSHOTS", "sk:b")], [b"s"], "snapshots after MOVE")
    r1.execute_command("MOVE", "sk:b", 0)
    # COPY copies the entries, sharing them, and no snapshot.
    eq(r.execute_command("COPY", "sk:b", "sk:c"), 1, "COPY")
    eq(r.execute_command("SP.SNAPSHOTS", "sk:c"), [], "a COPY's snapshots")
    eq(r.execute_command("SP.READ", "sk:c", "x"), b"one", "a COPY's entry")
    r.execute_command("SP.WRITE", "sk:c", "x", "two")
    eq(r.execute_command("SP.READ", "sk:b", "x"), b"one", "the original after the COPY changed")
    # A scratchpad whose entries are all deleted stays while it has a snapshot.
    r.execute_command("SP.DEL", "sk:b", "x")
    eq(r.execute_command("EXISTS", "sk:b"), 1, "a scratchpad with a snapshot and no entries")
    eq(r.execute_command("SP.RESTORE", "sk:b", "s"), 1, "SP.RESTORE into an empty scratchpad")
    eq(r.execute_command("SP.READ", "sk:b", "x"), b"one", "the restored entry")
    r.execute_command("SP.DEL", "sk:b", "x")
    eq(r.execute_command("SP.DROPSNAPSHOT", "sk:b", "s"), 1, "SP.DROPSNAPSHOT")
    eq(r.execute_command("EXISTS", "sk:b"), 0, "the key goes with its last snapshot")
    # DEL and the key's expiry drop the snapshots with the value.
    r.execute_command("SP.WRITE", "sk:d", "x", "one")
    r.execute_command("SP.SNAPSHOT", "sk:d", "s")
    r.execute_command("PEXPIRE", "sk:d", 50)
    time.sleep(0.2)
    eq(r.execute_command("EXISTS", "sk:d"), 0, "the key expired")
    r.execute_command("SP.WRITE", "sk:d", "y", "new")
    eq(r.execute_command("SP.SNAPSHOTS", "sk:d"), [], "a new value has no snapshot of the old one")
    r.execute_command("SP.SNAPSHOT", "sk:d", "s")
    r.execute_command("DEL", "sk:d")
    eq(r.execute_command("SP.SNAPSHOTS", "sk:d"), [], "DEL dropped the snapshots")
    # Errors.
    r.execute_command("SP.WRITE", "sk:d", "x", "one")
    for args, want in ((("SP.RESTORE", "sk:d", "nope"), "no such snapshot"),
                       (("SP.DIFF", "sk:d", "nope", "NOW"), "no such snapshot"),
                       (("SP.SNAPSHOT", "sk:d", "a b"), "invalid snapshot label"),
                       (("SP.FORK", "sk:d", "sk:d"), "same scratchpad"),
                       (("SP.FORK", "sk:none", "sk:e"), "no such scratchpad"),
                       (("SP.FORK", "sk:d", "sk:e", "FROM"), "syntax error"),
                       (("SP.SNAPSHOT", "sk:d", "s", "extra"), "syntax error")):
        try:
            r.execute_command(*args)
        except redis.ResponseError as e:
            assert want in str(e), (args, str(e))
        else:
            raise AssertionError("%r was accepted" % (args,))
    r.execute_command("SET", "sk:str", "v")
    try:
        r.execute_command("SP.SNAPSHOT", "sk:str", "s")
        raise AssertionError("SP.SNAPSHOT of a string was accepted")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), str(e)
    r.execute_command("DEL", "sk:a", "sk:b", "sk:c", "sk:d", "sk:str")


def main():
    global PORT
    print("# SEED=%d SNAP_COUNT=%d" % (SEED, COUNT))
    rep = spserver.Reporter()
    srv = spserver.Server("--appendonly", "yes")
    srv.start()
    try:
        PORT = srv.port
        rep.case("snapshots, restores, forks and diffs agree with a model through %d random operations" % COUNT,
                 case_model)
        rep.case("snapshots, forks and their shared content are the same after a restart and both rewrite modes, "
                 "and scratchpad-check-aof reads the log", case_restart, srv)
        rep.case("sp-history-depth keeps the last versions of an entry: SP.HISTORY, SP.READ VERSION with windows, "
                 "SP.REVERT as a new version in the feed; SP.DEL drops it", case_history)
        rep.case("RENAME and MOVE carry snapshots, COPY shares entries only, DEL and the key's expiry drop them; "
                 "a key stays while it has a snapshot; errors are named", case_key_commands)
        rep.case("two snapshots of 40 large entries add under 1 MB; a rewrite under them costs one entry; "
                 "dropping them gives it back", case_memory)
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    else:
        print("ok - the server exits with status 0 on SIGTERM")
    rep.finish()


if __name__ == "__main__":
    main()
