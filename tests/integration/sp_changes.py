"""sp_changes.py -- the change feed of a scratchpad (SP.CHANGES), as agents
that come and go read it.

One server of its own (tests/lib/spserver.py, the log on), redis-py's
execute_command. The cases: what each write records (operation, entry, version,
size, the writer's CLIENT SETNAME name, the time), entry expiry included; BLOCK
woken by the next change and nil on timeout; the gap a reader is told of when
SINCE is older than what is retained (sp-changes-max-len) or the scratchpad was
deleted, also while it waits; the feed equal before and after a restart and
both rewrite modes; its memory in SP.INFO and used_memory, given back by DEL.

Then the random run: four writers (each with its own client name) write,
append, edit, insert into, expire and delete shared entries at random while a
reader follows the feed with SINCE/COUNT/BLOCK, dropping its connection now and
then, across a restart of the server in the middle (writers pause for it). The
feed the reader assembled must equal the server's retained feed, with
sequence numbers consecutive; each writer's own changes must appear in it in
the order it made them, with the versions and sizes its replies showed; and
replaying the feed entry by entry must give the final versions and sizes that
SP.STAT shows. SEED and CHANGES_OPS (default 250 per writer) change the run.
"""

import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ConnectionError as RedisConnectionError  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

PORT = None
SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
OPS = int(os.environ.get("CHANGES_OPS", "250"))


def client(name=None):
    r = redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=20, socket_connect_timeout=20)
    if name:
        r.execute_command("CLIENT", "SETNAME", name)
    return r


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def changes(r, ns, *args):
    """SP.CHANGES as a dict (None on a BLOCK timeout)."""
    flat = r.execute_command("SP.CHANGES", ns, *args)
    if flat is None:
        return None
    d = {k.decode(): v for k, v in zip(flat[::2], flat[1::2])}
    d["changes"] = [(c[0], c[1], c[2].decode(), c[3].decode(), c[4], c[5], c[6].decode()) for c in d["changes"]]
    return d


def restart(srv):
    global PORT
    srv.restart()
    PORT = srv.port


def case_fields():
    r = client("agent-A")
    r.execute_command("DEL", "ch:f")
    t0 = int(time.time() * 1000)
    r.execute_command("SP.WRITE", "ch:f", "plan", "one\n")
    r.execute_command("SP.APPEND", "ch:f", "plan", "two\n")
    r.execute_command("SP.EDIT", "ch:f", "plan", "two", "TWO")
    r.execute_command("SP.INSERT", "ch:f", "plan", 0, "zero")
    got = r.execute_command("SP.OFFLOAD", "ch:f", "x" * 100, "THRESHOLD", 10)
    off = got[got.index(b"name") + 1].decode()
    r.execute_command("SP.PEXPIRE", "ch:f", "plan", 100000)
    r.execute_command("SP.PERSIST", "ch:f", "plan")
    r.execute_command("SP.DEL", "ch:f", off, "nothere")
    b = client("agent-B")
    b.execute_command("SP.WRITE", "ch:f", "tmp", "t", "PX", 30)
    time.sleep(0.35)  # expired by the cron, with nobody touching it
    d = changes(r, "ch:f")
    t1 = int(time.time() * 1000)
    got = [(c[2], c[3], c[4], c[5], c[6]) for c in d["changes"]]
    eq(got, [("write", "plan", 1, 4, "agent-A"), ("append", "plan", 2, 8, "agent-A"),
             ("edit", "plan", 3, 8, "agent-A"), ("insert", "plan", 4, 13, "agent-A"),
             ("offload", off, 1, 100, "agent-A"), ("ttl", "plan", 4, 13, "agent-A"),
             ("ttl", "plan", 4, 13, "agent-A"), ("del", off, 0, 0, "agent-A"),
             ("write", "tmp", 1, 1, "agent-B"), ("expire", "tmp", 0, 0, "")], "the changes")
    seqs = [c[0] for c in d["changes"]]
    eq(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "consecutive numbers")
    eq((d["first"], d["last"], d["gap"]), (seqs[0], seqs[-1], 0), "first, last, gap")
    assert all(t0 <= c[1] <= t1 for c in d["changes"]), d
    # SINCE and COUNT.
    d2 = changes(r, "ch:f", "SINCE", seqs[3], "COUNT", 2)
    eq([c[0] for c in d2["changes"]], seqs[4:6], "SINCE/COUNT")
    eq(changes(r, "ch:f", "SINCE", seqs[-1])["changes"], [], "nothing after the last")
    # A refused or no-op write records nothing.
    try:
        r.execute_command("SP.WRITE", "ch:f", "plan", "x", "IFVERSION", 99)
    except ResponseError:
        pass
    r.execute_command("SP.DEL", "ch:f", "nothere")
    eq(changes(r, "ch:f")["last"], seqs[-1], "no change recorded by refused writes")
    # Errors.
    for args, want in ((("SINCE",), "syntax error"), (("SINCE", -1), "SINCE must not be negative"),
                       (("COUNT", "x"), "value is not an integer or out of range"), (("BOGUS", 1), "syntax error")):
        try:
            r.execute_command("SP.CHANGES", "ch:f", *args)
            raise AssertionError("no error for %r" % (args,))
        except ResponseError as e:
            eq(str(e), want, "error for %r" % (args,))
    r.execute_command("SET", "ch:s", "x")
    try:
        r.execute_command("SP.CHANGES", "ch:s")
        raise AssertionError("no WRONGTYPE")
    except ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), e
    eq(changes(r, "ch:none"), {"first": 0, "last": 0, "gap": 0, "changes": []}, "a missing scratchpad")
    eq(changes(r, "ch:none", "SINCE", 5)["gap"], 1, "SINCE on a missing scratchpad is a gap")


def case_block():
    r = client()
    r.execute_command("DEL", "ch:b")
    r.execute_command("SP.WRITE", "ch:b", "e", "v")
    last = changes(r, "ch:b")["last"]
    t0 = time.monotonic()
    eq(changes(r, "ch:b", "SINCE", last, "BLOCK", 100), None, "BLOCK timeout")
    assert 0.09 < time.monotonic() - t0 < 1.0
    got = {}

    def reader(key, since):
        got[key] = changes(client(), "ch:b", "SINCE", since, "BLOCK", 3000)

    ts = [threading.Thread(target=reader, args=(i, last)) for i in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.15)
    client("w").execute_command("SP.APPEND", "ch:b", "e", "w")
    for t in ts:
        t.join(3)
    for i in range(3):
        eq([c[2:] for c in got[i]["changes"]], [("append", "e", 2, 2, "w")], "reader %d woken" % i)
    # A reader waiting when the scratchpad is deleted is told of the gap.
    last = got[0]["last"]
    t = threading.Thread(target=reader, args=("del", last))
    t.start()
    time.sleep(0.15)
    r.execute_command("DEL", "ch:b")
    t.join(3)
    eq((got["del"]["gap"], got["del"]["changes"]), (1, []), "gap after DEL")
    # SINCE 0 on a missing scratchpad waits for its creation.
    t = threading.Thread(target=reader, args=("new", 0))
    t.start()
    time.sleep(0.15)
    r.execute_command("SP.WRITE", "ch:b", "e", "again")
    t.join(3)
    eq([c[2:4] for c in got["new"]["changes"]], [("write", "e")], "a new scratchpad's first change")
    assert got["new"]["last"] > last, "numbers of a new scratchpad go on above the old ones"
    # BLOCK inside MULTI does not block.
    p = r.pipeline(transaction=True)
    p.execute_command("SP.CHANGES", "ch:b", "SINCE", got["new"]["last"], "BLOCK", 0)
    eq(p.execute(), [None], "BLOCK inside MULTI")


def case_gap():
    r = client()
    r.execute_command("DEL", "ch:g")
    r.execute_command("CONFIG", "SET", "sp-changes-max-len", 5)
    try:
        for i in range(12):
            r.execute_command("SP.WRITE", "ch:g", "e%d" % (i % 3), str(i))
        d = changes(r, "ch:g")
        eq(len(d["changes"]), 5, "five retained")
        first, last = d["first"], d["last"]
        eq(last - first, 4, "the last five")
        eq(changes(r, "ch:g", "SINCE", first - 1)["gap"], 0, "SINCE just before the oldest: no gap")
        g = changes(r, "ch:g", "SINCE", first - 2)
        eq((g["gap"], g["changes"], g["first"], g["last"]), (1, [], first, last), "SINCE older than retained")
        eq(changes(r, "ch:g", "SINCE", last + 10)["gap"], 1, "SINCE ahead of the feed")
        info = r.execute_command("SP.INFO", "ch:g")
        info = dict(zip(info[::2], info[1::2]))
        eq(info[b"changes"], 5, "SP.INFO changes")
    finally:
        r.execute_command("CONFIG", "SET", "sp-changes-max-len", 100000)


def case_memory():
    r = client()
    r.execute_command("DEL", "ch:m")
    r.execute_command("SP.WRITE", "ch:m", "e", "v")
    base = r.info("memory")["used_memory"]
    for i in range(2000):
        r.execute_command("SP.APPEND", "ch:m", "e", "x")
    info = r.execute_command("SP.INFO", "ch:m")
    info = dict(zip(info[::2], info[1::2]))
    assert info[b"changes"] == 2001 and info[b"feed_bytes"] > 2000 * 40, info
    grown = r.info("memory")["used_memory"] - base
    assert grown > 2000 * 40, grown
    r.execute_command("DEL", "ch:m")
    after = r.info("memory")["used_memory"]
    assert after < base + 20000, (base, after)


def case_restart_rewrite(srv):
    r = client("rw")
    r.execute_command("DEL", "ch:r")
    for i in range(30):
        r.execute_command("SP.WRITE", "ch:r", "e%d" % (i % 4), "v%d" % i)
    r.execute_command("SP.DEL", "ch:r", "e0")
    want = changes(r, "ch:r")
    for mode in ("restart", "incremental", "fork"):
        if mode != "restart":
            r.execute_command("CONFIG", "SET", "aof-rewrite-mode", mode)
            n = r.info("persistence")["aof_rewrites"]
            r.execute_command("BGREWRITEAOF")
            for _ in range(300):
                p = r.info("persistence")
                if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrites"] > n:
                    break
                time.sleep(0.02)
        restart(srv)
        r = client("rw")
        eq(changes(r, "ch:r"), want, "the feed after %s" % mode)
        r.execute_command("SP.APPEND", "ch:r", "e1", "+" + mode)
        want = changes(r, "ch:r")
        eq(want["changes"][-1][0], want["changes"][-2][0] + 1, "numbering goes on after %s" % mode)


def case_random(srv):
    rng = random.Random(SEED)
    admin = client()
    admin.execute_command("DEL", "ch:x")
    names = ["n%d" % i for i in range(6)]
    logs = {}
    paused = threading.Event()
    parked = threading.Semaphore(0)
    stop_reader = threading.Event()
    assembled = []
    reader_err = []

    def writer(w, rs):
        me = "writer-%d" % w
        c = client(me)
        log = logs[me] = []
        for _ in range(OPS):
            if paused.is_set():
                parked.release()
                while paused.is_set():
                    time.sleep(0.005)
                c = client(me)
            name = rs.choice(names)
            op = rs.random()
            try:
                if op < 0.35:
                    text = "w%d\n" % rs.randrange(1000)
                    v = c.execute_command("SP.WRITE", "ch:x", name, text)
                    log.append(("write", name, v, len(text)))
                elif op < 0.6:
                    n = c.execute_command("SP.APPEND", "ch:x", name, "a\n")
                    log.append(("append", name, None, n))
                elif op < 0.7:
                    cnt, v = c.execute_command("SP.EDIT", "ch:x", name, "\n", "\n", "ALL")
                    log.append(("edit", name, v, None))
                elif op < 0.8:
                    v = c.execute_command("SP.INSERT", "ch:x", name, 0, "top")
                    log.append(("insert", name, v, None))
                elif op < 0.9:
                    if c.execute_command("SP.DEL", "ch:x", name):
                        log.append(("del", name, 0, 0))
                else:
                    if c.execute_command("SP.PEXPIRE", "ch:x", name, rs.choice([5, 20, 100000])):
                        log.append(("ttl", name, None, None))
            except ResponseError as e:
                if "no such entry" not in str(e) and "old text not found" not in str(e):
                    raise
        logs[me + "-done"] = True

    def reader():
        since = 0
        c = client("reader")
        while True:
            try:
                if rs_reader.random() < 0.05:
                    c.close()
                    c = client("reader")
                d = changes(c, "ch:x", "SINCE", since, "COUNT", 37, "BLOCK", 100)
            except (RedisConnectionError, ConnectionRefusedError, OSError):
                time.sleep(0.02)
                try:
                    c = client("reader")
                except Exception:  # noqa: BLE001 -- the server is restarting
                    pass
                continue
            if d is None:
                if stop_reader.is_set():
                    return
                continue
            if d["gap"]:
                reader_err.append("gap at since %d: %r" % (since, d))
                return
            for ch in d["changes"]:
                assembled.append(ch)
                since = ch[0]

    rs_reader = random.Random(rng.random())
    rt = threading.Thread(target=reader)
    rt.start()
    wts = [threading.Thread(target=writer, args=(w, random.Random(rng.random()))) for w in range(4)]
    for t in wts:
        t.start()
    # A restart in the middle: the writers park between operations.
    deadline = time.monotonic() + 60
    while sum(len(v) for k, v in list(logs.items()) if isinstance(v, list)) < 2 * OPS and \
            time.monotonic() < deadline:
        time.sleep(0.005)
    paused.set()
    alive = [t for t in wts if t.is_alive()]
    for _ in alive:
        parked.acquire(timeout=0.5)
    time.sleep(0.05)
    before = len(assembled)
    restart(srv)
    paused.clear()
    for t in wts:
        t.join(120)
    time.sleep(0.3)  # short TTLs expire meanwhile
    client().execute_command("SP.LIST", "ch:x")
    stop_reader.set()
    rt.join(30)
    eq(reader_err, [], "the reader saw no gap")
    full = changes(client(), "ch:x")
    if full["changes"]:
        eq(assembled, full["changes"], "the assembled feed equals the retained feed")
        seqs = [c[0] for c in assembled]
        eq(seqs, list(range(seqs[0], seqs[0] + len(seqs))), "consecutive numbers")
    # Each writer's changes, in its order, with what its replies showed.
    for w in range(4):
        me = "writer-%d" % w
        mine = [c for c in assembled if c[6] == me]
        eq(len(mine), len(logs[me]), "%s's number of changes" % me)
        for ch, (op, name, v, size) in zip(mine, logs[me]):
            if ch[2] != op or ch[3] != name or (v is not None and ch[4] != v) or (size is not None and ch[5] != size):
                raise AssertionError("%s: change %r for %r" % (me, ch, (op, name, v, size)))
    # Replaying the feed gives the final state.
    state = {}
    for ch in assembled:
        if ch[2] in ("del", "expire"):
            state.pop(ch[3], None)
        else:
            state[ch[3]] = (ch[4], ch[5])
    final = {}
    for name in names:
        st = client().execute_command("SP.STAT", "ch:x", name)
        if st:
            d = dict(zip(st[::2], st[1::2]))
            final[name] = (d[b"version"], d[b"size"])
    eq(state, final, "the feed replayed equals SP.STAT")
    assert 0 < before < len(assembled), "the restart fell in the middle (%d of %d)" % (before, len(assembled))
    print("# random: %d changes (%d before the restart), seed %d" % (len(assembled), before, SEED))


def main():
    global PORT
    rep = spserver.Reporter()
    print("# SEED=%d" % SEED)
    srv = spserver.Server("--appendonly", "yes", "--sp-changes-max-len", "100000")
    srv.start()
    try:
        PORT = srv.port
        rep.case("each write records its operation, entry, version, size, writer's name and time; expiry too",
                 case_fields)
        rep.case("BLOCK wakes every waiting reader at the next change, nil on timeout; DEL while waiting is a gap",
                 case_block)
        rep.case("SINCE older than the retained changes (sp-changes-max-len) is answered as a gap", case_gap)
        rep.case("the feed counts in SP.INFO and used_memory, and DEL gives it back", case_memory)
        rep.case("the feed is the same after a restart and both rewrite modes, and its numbering goes on",
                 case_restart_rewrite, srv)
        rep.case("random writers and a reader that reconnects and outlives a restart: the assembled feed is the "
                 "true sequence", case_random, srv)
        if not srv.alive():
            rep.fail("the server is still running at the end", srv.log_tail())
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    else:
        print("ok - the server exits with status 0 on SIGTERM")
    rep.finish()


if __name__ == "__main__":
    main()
