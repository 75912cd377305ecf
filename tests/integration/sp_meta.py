"""sp_meta.py -- per-entry metadata: SP.WRITE/SP.OFFLOAD ... META field value,
SP.META ns name SET|DEL|CLEAR, shown by SP.STAT and SP.LIST WITHMETA, filtered
by SP.LIST ... WHERE field value, through redis-py as a harness uses it.

A seeded random run of writes (with and without META), appends, SP.META SET,
DEL and CLEAR, snapshots, restores, reverts and forks is checked against a
Python model after every step: each entry's content, version and metadata (the
metadata is part of the version: a change of it is a new version, kept by
snapshots, forks and history and brought back by SP.RESTORE and SP.REVERT).
Then the whole state (entries, metadata, snapshots seen through forks, the
feed's "meta" changes) is the same after a restart and after each rewrite mode,
and scratchpad-check-aof reads the log; the bounds answer their documented
errors; metadata counts in MEMORY USAGE and SP.INFO. Seeded (SEED=...
reproduces; META_COUNT=... for a longer run); one server, stopped by PID."""
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402

import spserver  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
COUNT = int(os.environ.get("META_COUNT", "400"))
RNG = random.Random(SEED)
NAMES = ["obs-%d" % i for i in range(6)] + ["plan", "notes/a"]
FIELDS = ["source", "tool", "step", "path/x", "k.1"]
VALUES = ["a.py", "read_file", "grep", "3", "", "x" * 200, "v\x00bin"]


def as_map(x):
    return dict(zip(x[::2], x[1::2])) if isinstance(x, list) else x


def meta_of(st):
    """The metadata map of an SP.STAT / SP.LIST WITHMETA reply, as str -> bytes."""
    m = as_map(st).get(b"meta")
    return {k.decode(): v for k, v in as_map(m).items()} if m else {}


def eq(got, want, what):
    if got != want:
        if isinstance(got, list) and isinstance(want, list):
            for i, (a, b) in enumerate(zip(got, want)):
                if a != b:
                    got, want, what = a, b, "%s, item %d" % (what, i)
                    break
        raise AssertionError("%s: got %.2000r, want %.2000r (SEED=%d)" % (what, got, want, SEED))


class Model:
    def __init__(self):
        self.live = {}   # name -> [content, version, meta]
        self.vers = {}   # name -> {version: (content, meta)}
        self.snaps = {}  # label -> {name: (content, meta)}

    def put(self, name, content, version, meta):
        self.live[name] = [content, version, dict(meta)]
        self.vers.setdefault(name, {})[version] = (content, dict(meta))


def check(r, ns, m):
    names = sorted(x.decode() for x in r.execute_command("SP.LIST", ns, "COUNT", 1000)[1])
    eq(names, sorted(m.live), "the entries of %s" % ns)
    listed = {as_map(x)[b"name"].decode(): meta_of(x) for x in r.execute_command("SP.LIST", ns, "WITHMETA")[1]}
    for name, (content, version, meta) in m.live.items():
        st = as_map(r.execute_command("SP.STAT", ns, name))
        eq(st[b"version"], version, "the version of %s" % name)
        eq(meta_of(st), {k: v.encode() for k, v in meta.items()}, "the metadata of %s in SP.STAT" % name)
        eq(listed[name], meta_of(st), "the metadata of %s in SP.LIST WITHMETA" % name)
        eq(r.execute_command("SP.READ", ns, name), content.encode(), "the content of %s" % name)
    f, v = RNG.choice(FIELDS), RNG.choice(VALUES)
    want = sorted(n for n, e in m.live.items() if e[2].get(f) == v)
    got = sorted(x.decode() for x in r.execute_command("SP.LIST", ns, "WHERE", f, v, "COUNT", 2)[1])
    eq(got, want[:2], "SP.LIST WHERE %s %r COUNT 2" % (f, v))


def random_meta_args(opt):
    out, meta = [], {}
    for _ in range(RNG.randrange(0, 4)):
        f, v = RNG.choice(FIELDS), RNG.choice(VALUES)
        out += [opt, f, v] if opt else [f, v]
        meta[f] = v
    return out, meta


def case_model(r, ns, m):
    for step in range(COUNT):
        op = RNG.random()
        name = RNG.choice(NAMES)
        e = m.live.get(name)
        if op < 0.25:
            content = "step %d of %s\n" % (step, name) * RNG.randrange(1, 4)
            args, meta = random_meta_args("META")
            v = r.execute_command("SP.WRITE", ns, name, content, *args)
            eq(v, (e[1] if e else 0) + 1, "SP.WRITE's version")
            m.put(name, content, v, meta if args else (e[2] if e else {}))
        elif op < 0.35 and e:
            v = r.execute_command("SP.APPEND", ns, name, "more\n")
            m.put(name, e[0] + "more\n", e[1] + 1, e[2])
        elif op < 0.55 and e:
            args, meta = random_meta_args(None)
            if not args:
                continue
            v = r.execute_command("SP.META", ns, name, "SET", *args)
            eq(v, e[1] + 1, "SP.META SET's version")
            new = dict(e[2])
            new.update(meta)
            m.put(name, e[0], v, new)
        elif op < 0.68 and e:
            fields = RNG.sample(FIELDS, RNG.randrange(1, 3))
            clear = RNG.random() < 0.25
            got = r.execute_command("SP.META", ns, name, "CLEAR") if clear else \
                r.execute_command("SP.META", ns, name, "DEL", *fields)
            gone = [f for f in (e[2] if clear else fields) if f in e[2]]
            eq(got, [len(gone), e[1] + (1 if gone else 0)], "SP.META DEL/CLEAR's reply")
            if gone:
                m.put(name, e[0], e[1] + 1, {k: v for k, v in e[2].items() if k not in gone})
        elif op < 0.74 and r.exists(ns):
            label = "s%d" % RNG.randrange(3)
            r.execute_command("SP.DROPSNAPSHOT", ns, label)
            r.execute_command("SP.SNAPSHOT", ns, label)
            m.snaps[label] = {n: (x[0], dict(x[2])) for n, x in m.live.items()}
        elif op < 0.79 and m.snaps:
            label = RNG.choice(sorted(m.snaps))
            r.execute_command("SP.RESTORE", ns, label)
            sn = m.snaps[label]
            for n in list(m.live):
                if n not in sn:
                    del m.live[n]
            for n, (content, meta) in sn.items():
                v = as_map(r.execute_command("SP.STAT", ns, n))[b"version"]
                m.put(n, content, v, meta)
        elif op < 0.86 and e:
            hist = [h[0] for h in r.execute_command("SP.HISTORY", ns, name)]
            hist = [h for h in hist if h in m.vers.get(name, {})]
            if not hist:
                continue
            want = RNG.choice(hist)
            v = r.execute_command("SP.REVERT", ns, name, want)
            content, meta = m.vers[name][want]
            m.put(name, content, v, meta)
        elif op < 0.9 and r.exists(ns):
            r.execute_command("DEL", "mfork")
            r.execute_command("SP.FORK", ns, "mfork")
            if m.live:
                n = RNG.choice(sorted(m.live))
                eq(meta_of(r.execute_command("SP.STAT", "mfork", n)),
                   {k: v.encode() for k, v in m.live[n][2].items()}, "the metadata of %s in a fork" % n)
        elif op < 0.95 and e:
            r.execute_command("SP.DEL", ns, name)
            del m.live[name]
            m.vers.pop(name, None)
        if step % 10 == 0 or step == COUNT - 1:
            check(r, ns, m)
        if not m.live and not m.snaps:
            m.vers.clear()
    check(r, ns, m)


def dump(r, ns):
    out = []
    for name in sorted(r.execute_command("SP.LIST", ns, "COUNT", 1000)[1]):
        st = as_map(r.execute_command("SP.STAT", ns, name))
        out.append((name, st[b"version"], st[b"updated"], meta_of(st), r.execute_command("SP.READ", ns, name),
                    r.execute_command("SP.HISTORY", ns, name)))
    for label in sorted(x[0] for x in r.execute_command("SP.SNAPSHOTS", ns)):
        r.execute_command("DEL", "mcheck")
        r.execute_command("SP.FORK", ns, "mcheck", "FROM", label)
        names = r.execute_command("SP.LIST", "mcheck", "COUNT", 1000)[1] if r.exists("mcheck") else []
        out.append((label, [(n, meta_of(r.execute_command("SP.STAT", "mcheck", n))) for n in names]))
        r.execute_command("DEL", "mcheck")
    feed = as_map(r.execute_command("SP.CHANGES", ns, "COUNT", 100000))
    out.append([tuple(x) for x in feed[b"changes"]])
    return out


def rewrite(r, mode):
    r.config_set("aof-rewrite-mode", mode)
    before = r.info("persistence")["aof_rewrites"]
    r.execute_command("BGREWRITEAOF")
    for _ in range(500):
        p = r.info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] > before:
            return
        time.sleep(0.02)
    raise AssertionError("the %s rewrite did not finish" % mode)


def case_restart(srv, ns, m):
    r = redis.Redis(port=srv.port, socket_timeout=30)
    if not any(e[2] for e in m.live.values()):
        v = r.execute_command("SP.WRITE", ns, "plan", "p\n", "META", "tool", "edit")
        m.put("plan", "p\n", v, {"tool": "edit"})
    want = dump(r, ns)
    for mode in ("restart", "incremental", "fork", "restart"):
        if mode != "restart":
            rewrite(r, mode)
        srv.restart()
        r = redis.Redis(port=srv.port, socket_timeout=30)
        eq(dump(r, ns), want, "the state after %s" % mode)
    tool = os.path.join(spserver.TOP, os.environ.get("BUILD", "build"), "scratchpad-check-aof")
    manifest = [os.path.join(d, f) for d, _, fs in os.walk(srv.dir) for f in fs if f.endswith(".manifest")][0]
    out = subprocess.run([tool, manifest], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    # SP.REVERT after the restart still brings back an old version's metadata.
    for name, versions in m.vers.items():
        if name not in m.live:
            continue
        hist = [h[0] for h in r.execute_command("SP.HISTORY", ns, name) if h[0] in versions]
        if hist:
            v = r.execute_command("SP.REVERT", ns, name, hist[0])
            content, meta = versions[hist[0]]
            m.put(name, content, v, meta)
    check(r, ns, m)


def expect_error(fn, msg):
    try:
        got = fn()
    except redis.ResponseError as e:
        eq(str(e), msg[4:] if msg.startswith("ERR ") else msg, "the error")
        return
    raise AssertionError("answered %r, want the error %r" % (got, msg))


def case_bounds(r):
    ns = "mb"
    r.execute_command("SP.WRITE", ns, "e", "x")
    many = []
    for i in range(32):
        many += ["f%d" % i, "v"]
    eq(r.execute_command("SP.META", ns, "e", "SET", *many), 2, "32 fields")
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "SET", "f32", "v"),
                 "ERR metadata would have more than 32 fields")
    eq(r.execute_command("SP.META", ns, "e", "SET", "f0", "w"), 3, "changing a field of a full map")
    r.execute_command("SP.META", ns, "e", "CLEAR")
    # 4096 bytes of fields and values together: "big" (3) + 4093
    eq(r.execute_command("SP.META", ns, "e", "SET", "big", "y" * 4093), 5, "4096 bytes")
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "SET", "z", ""),
                 "ERR metadata would be over 4096 bytes (fields and values together)")
    expect_error(lambda: r.execute_command("SP.WRITE", ns, "e2", "x", "META", "big", "y" * 4094),
                 "ERR metadata would be over 4096 bytes (fields and values together)")
    rule = "ERR invalid metadata field name: fields are 1 to 64 bytes of A-Z a-z 0-9 _ - . : /"
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "SET", "a b", "v"), rule)
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "SET", "f" * 65, "v"), rule)
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "DEL", ""), rule)
    expect_error(lambda: r.execute_command("SP.WRITE", ns, "e", "x", "META", "é", "v"), rule)
    expect_error(lambda: r.execute_command("SP.WRITE", ns, "e", "x", *(["META", "f", "v"] * 33)),
                 "ERR too many META options (at most 32)")
    expect_error(lambda: r.execute_command("SP.WRITE", ns, "e", "x", "META", "f"), "ERR syntax error")
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "SET", "f"), "ERR syntax error")
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "CLEAR", "f"), "ERR syntax error")
    expect_error(lambda: r.execute_command("SP.META", ns, "e", "GET"), "ERR syntax error")
    expect_error(lambda: r.execute_command("SP.META", ns, "nosuch", "SET", "f", "v"), "ERR no such entry 'nosuch'")
    expect_error(lambda: r.execute_command("SP.LIST", ns, "WHERE", "f"), "ERR syntax error")
    # An entry without metadata has no "meta" field; a failed change changes nothing.
    r.execute_command("SP.WRITE", ns, "e3", "x")
    eq(b"meta" in as_map(r.execute_command("SP.STAT", ns, "e3")), False, "no meta field without metadata")
    eq(as_map(r.execute_command("SP.STAT", ns, "e"))[b"version"], 5, "the version after refused changes")
    # SP.OFFLOAD ... META stores the fields on the entry it creates.
    got = as_map(r.execute_command("SP.OFFLOAD", ns, "z" * 100, "THRESHOLD", 10, "PREFIX", "read_file",
                                   "META", "path", "/src/a.c", "META", "step", "7"))
    eq(meta_of(r.execute_command("SP.STAT", ns, got[b"name"])), {"path": b"/src/a.c", "step": b"7"},
       "SP.OFFLOAD's metadata")
    eq(r.execute_command("SP.LIST", ns, "WHERE", "path", "/src/a.c", "WHERE", "step", "7")[1], [got[b"name"]],
       "two WHERE filters")
    eq(r.execute_command("SP.LIST", ns, "WHERE", "path", "/src/a.c", "WHERE", "step", "8")[1], [],
       "two WHERE filters, one failing")
    # The feed records "meta" changes.
    ch = as_map(r.execute_command("SP.CHANGES", ns))[b"changes"]
    assert any(x[2] == b"meta" for x in ch), ch


def case_memory(r):
    ns = "mm"
    r.config_set("sp-history-depth", "0")  # the history would keep the old versions' metadata
    for i in range(50):
        r.execute_command("SP.WRITE", ns, "e%d" % i, "small")
    used0 = r.info("memory")["used_memory"]
    mem0 = r.memory_usage(ns)
    st0 = as_map(r.execute_command("SP.INFO", ns))[b"stored_bytes"]
    for i in range(50):
        r.execute_command("SP.META", ns, "e%d" % i, "SET", "blob", "b" * 4000)
    grew = r.memory_usage(ns) - mem0
    info = as_map(r.execute_command("SP.INFO", ns))[b"stored_bytes"] - st0
    used = r.info("memory")["used_memory"] - used0
    assert 200000 <= grew < 260000, "MEMORY USAGE grew by %d for 50 x 4 KB of metadata" % grew
    assert 200000 <= info < 260000, "SP.INFO stored_bytes grew by %d" % info
    assert used >= 200000, "used_memory grew by %d" % used
    for i in range(50):
        r.execute_command("SP.META", ns, "e%d" % i, "CLEAR")
    assert r.memory_usage(ns) - mem0 < 20000, "MEMORY USAGE after CLEAR: +%d" % (r.memory_usage(ns) - mem0)


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    srv = spserver.Server("--appendonly", "yes", "--sp-history-depth", "4")
    srv.start()
    try:
        r = redis.Redis(port=srv.port, socket_timeout=30)
        m = Model()
        rep.case("metadata through %d random writes, SP.META SET/DEL/CLEAR, appends, snapshots, restores, reverts "
                 "and forks agrees with a model: a change of it is a new version, SP.STAT, SP.LIST WITHMETA and "
                 "WHERE show it" % COUNT, case_model, r, "m", m)
        rep.case("entries, metadata, snapshots and the feed are the same after a restart and both rewrite modes; "
                 "scratchpad-check-aof reads the log; SP.REVERT brings an old version's metadata back",
                 case_restart, srv, "m", m)
        r = redis.Redis(port=srv.port, socket_timeout=30)
        rep.case("the bounds (32 fields, 4096 bytes, field names) answer their documented errors and change "
                 "nothing; SP.OFFLOAD META; WHERE filters combine; the feed records meta", case_bounds, r)
        rep.case("metadata counts in MEMORY USAGE, SP.INFO stored_bytes and used_memory, and CLEAR gives it back",
                 case_memory, r)
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    rep.finish()


if __name__ == "__main__":
    main()
