"""sp_leases.py -- leases with fencing tokens (SP.LEASE, SP.RELEASE, SP.LEASES,
FENCE on the writes), as agents sharing a scratchpad use them.

One server of its own (tests/lib/spserver.py), driven from redis-py's
execute_command. The cases: the reply shapes and errors; FENCE on every writing
SP command (a stale or missing grant changes nothing, not even the feed); WAIT
served first come, first served, woken by a release or by an expiry within
milliseconds, nil on timeout, and never jumped by a client that does not wait;
what DEL, RENAME, COPY, MOVE and the key's expiry do to leases; tokens that
survive a restart and both rewrite modes. Then the model-based run: several
clients take turns on one entry through a lease with a short TTL, and sleep
at random inside their turn, often past its end (a pause, as a GC or a slow
tool call makes), then write with FENCE. The entry is a journal: every write
appends one line "value token" to what the writer read. Any stale write that
landed would overwrite a newer journal and lose lines; the check is that the
journal holds exactly the writes the clients saw succeed, values 1..n in
order, tokens never decreasing, and that every refused write was refused with
-FENCED. SEED and LEASE_SECONDS (default 2.5) change the run.

Each case prints "ok - ..." or "not ok - ..."; every socket has a timeout.
"""

import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

PORT = None
SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
RUN_SECONDS = float(os.environ.get("LEASE_SECONDS", "2.5"))


def client(name=None):
    r = redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=20, socket_connect_timeout=20)
    if name:
        r.execute_command("CLIENT", "SETNAME", name)
    return r


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def err(fn, *args):
    try:
        got = fn(*args)
    except ResponseError as e:
        return str(e)
    raise AssertionError("%r: no error, got %r" % (args, got))


def lease(r, *args):
    return r.execute_command("SP.LEASE", *args)


def case_reply_shapes():
    r = client()
    r.execute_command("DEL", "ls:a")
    tok, exp = lease(r, "ls:a", "plan", "alice", 5000)
    now = int(time.time() * 1000)
    assert isinstance(tok, int) and tok > 0
    assert now + 4000 < exp <= now + 6000, (now, exp)
    # A renewal by the holder keeps the token and moves the expiry.
    tok2, exp2 = lease(r, "ls:a", "plan", "alice", 9000)
    eq(tok2, tok, "token after a renewal")
    assert exp2 > exp
    e = err(lease, r, "ls:a", "plan", "bob", 5000)
    assert e.startswith("LEASED held by alice for ") and e.endswith(" more ms"), e
    ms = int(e.split()[5])
    assert 8000 < ms <= 9000, e
    # A second resource gets the next token.
    tok3, _ = lease(r, "ls:a", "review", "bob", 5000)
    eq(tok3, tok + 1, "the next grant's token")
    got = r.execute_command("SP.LEASES", "ls:a")
    eq([x[:3] for x in got], [[b"plan", b"alice", tok], [b"review", b"bob", tok3]], "SP.LEASES")
    assert 8000 < got[0][3] <= 9000 and 4000 < got[1][3] <= 5000, got
    # A lease alone keeps the scratchpad: TYPE scratchpad, no entries.
    eq(r.execute_command("TYPE", "ls:a"), b"scratchpad", "TYPE")
    eq(r.execute_command("SP.LIST", "ls:a"), [b"0", []], "SP.LIST")
    # RELEASE: only the holder with the token; 0 otherwise.
    eq(r.execute_command("SP.RELEASE", "ls:a", "plan", "bob", tok), 0, "RELEASE by another holder")
    eq(r.execute_command("SP.RELEASE", "ls:a", "plan", "alice", tok + 1), 0, "RELEASE with another token")
    eq(r.execute_command("SP.RELEASE", "ls:a", "plan", "alice", tok), 1, "RELEASE")
    eq(r.execute_command("SP.RELEASE", "ls:a", "plan", "alice", tok), 0, "RELEASE twice")
    eq(r.execute_command("SP.RELEASE", "ls:a", "review", "bob", tok3), 1, "RELEASE of the last lease")
    eq(r.execute_command("EXISTS", "ls:a"), 0, "the scratchpad without entries or leases is gone")
    # A new lease on a scratchpad created again: a token never given before.
    tok4, _ = lease(r, "ls:a", "plan", "carol", 1000)
    assert tok4 > tok3, (tok4, tok3)
    r.execute_command("DEL", "ls:a")
    # Errors.
    assert err(lease, r, "ls:a", "plan", "alice", 0).startswith("ttl-ms must be between 1")
    assert err(lease, r, "ls:a", "plan", "alice", "x").startswith("value is not an integer")
    assert err(lease, r, "ls:a", "pl an", "alice", 10).startswith("invalid resource")
    assert err(lease, r, "ls:a", "plan", "", 10).startswith("invalid holder")
    eq(err(lease, r, "ls:a", "plan", "alice", 10, "WAIT"), "syntax error", "a WAIT without ms")
    assert err(lease, r, "ls:a", "plan", "alice", 10, "WAIT", -1).startswith("WAIT must not be negative")
    r.execute_command("SET", "ls:str", "x")
    assert err(lease, r, "ls:str", "plan", "alice", 10).startswith("WRONGTYPE")
    eq(r.execute_command("SP.LEASES", "ls:none"), [], "SP.LEASES of a missing scratchpad")


def stat_of(r, ns, name):
    """SP.STAT without the time-dependent ttl."""
    flat = r.execute_command("SP.STAT", ns, name)
    d = dict(zip(flat[::2], flat[1::2]))
    d[b"ttl"] = d[b"ttl"] >= 0
    return d


def case_fence_every_write():
    r = client("fencer")
    r.execute_command("DEL", "ls:f")
    r.execute_command("SP.WRITE", "ls:f", "doc", "line1\nline2\n")
    r.execute_command("SP.WRITE", "ls:f", "other", "x")
    tok, _ = lease(r, "ls:f", "doc", "alice", 60000)
    good = ["FENCE", "doc", tok]
    writes = [
        ("SP.WRITE", "ls:f", "doc", "line1\nline2\n"),
        ("SP.APPEND", "ls:f", "doc", "more\n"),
        ("SP.EDIT", "ls:f", "doc", "more", "MORE"),
        ("SP.INSERT", "ls:f", "doc", 0, "top"),
        ("SP.OFFLOAD", "ls:f", "y" * 50, "THRESHOLD", 10),
        ("SP.EXPIRE", "ls:f", "doc", 1000),
        ("SP.PEXPIRE", "ls:f", "doc", 100000),
        ("SP.PERSIST", "ls:f", "doc"),
        ("SP.DEL", "ls:f", "other"),
    ]
    for w in writes:
        before = r.execute_command("SP.CHANGES", "ls:f")
        stat = stat_of(r, "ls:f", "doc")
        for bad in (["FENCE", "doc", tok + 1], ["FENCE", "nolease", tok], ["FENCE", "doc", tok - 1]):
            e = err(r.execute_command, *(w + tuple(bad)))
            assert e.startswith("FENCED no current lease on") or e.startswith("FENCED token "), (w, e)
        eq(r.execute_command("SP.CHANGES", "ls:f"), before, "the feed after refused %s" % w[0])
        eq(stat_of(r, "ls:f", "doc"), stat, "the entry after refused %s" % w[0])
        r.execute_command(*(w + tuple(good)))
        after = r.execute_command("SP.CHANGES", "ls:f")
        assert after[3] != before[3], "%s with a good fence changed nothing" % w[0]
    eq(r.execute_command("SP.READ", "ls:f", "other"), None, "SP.DEL with a good fence deleted")
    # The error texts.
    e = err(r.execute_command, "SP.WRITE", "ls:f", "doc", "v", "FENCE", "doc", tok + 5)
    eq(e, "FENCED token %d of 'doc' is stale: the current one is %d, held by alice" % (tok + 5, tok), "stale text")
    e = err(r.execute_command, "SP.WRITE", "ls:f", "doc", "v", "FENCE", "zzz", 3)
    eq(e, "FENCED no current lease on 'zzz': token 3 is not valid", "no-lease text")
    e = err(r.execute_command, "SP.WRITE", "ls:f", "doc", "v", "FENCE", "doc", 0)
    eq(e, "FENCE token must be a positive integer", "bad token")
    # FENCE on a scratchpad that does not exist: no lease, nothing created.
    e = err(r.execute_command, "SP.WRITE", "ls:nofence", "doc", "v", "FENCE", "doc", 1)
    assert e.startswith("FENCED no current lease"), e
    eq(r.execute_command("EXISTS", "ls:nofence"), 0, "nothing created")
    # An expired lease fences out its token.
    tok2, _ = lease(r, "ls:f", "short", "alice", 30)
    r.execute_command("SP.WRITE", "ls:f", "doc", "ok", "FENCE", "short", tok2)
    time.sleep(0.06)
    e = err(r.execute_command, "SP.WRITE", "ls:f", "doc", "late", "FENCE", "short", tok2)
    assert e.startswith("FENCED no current lease on 'short'"), e
    eq(r.execute_command("SP.READ", "ls:f", "doc"), b"ok", "the late write did not land")
    # Inside MULTI the check runs at EXEC.
    p = r.pipeline(transaction=True)
    p.execute_command("SP.WRITE", "ls:f", "doc", "in-multi", "FENCE", "doc", tok)
    p.execute_command("SP.WRITE", "ls:f", "doc", "stale-in-multi", "FENCE", "doc", tok + 9)
    res = p.execute(raise_on_error=False)
    assert isinstance(res[0], int) and isinstance(res[1], ResponseError), res
    eq(r.execute_command("SP.READ", "ls:f", "doc"), b"in-multi", "MULTI result")
    r.execute_command("DEL", "ls:f")


def case_wait_fifo():
    r = client()
    r.execute_command("DEL", "ls:w")
    tok, _ = lease(r, "ls:w", "res", "owner", 60000)
    got = {}
    order = []

    def waiter(name, delay):
        time.sleep(delay)
        c = client()
        v = lease(c, "ls:w", "res", name, 60000, "WAIT", 5000)
        order.append(name)
        got[name] = v

    ts = [threading.Thread(target=waiter, args=("w%d" % i, 0.05 * i)) for i in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.3)
    eq(r.info("clients")["blocked_clients"], 3, "three clients blocked")
    # A client without WAIT neither takes nor jumps the line.
    assert err(lease, r, "ls:w", "res", "jumper", 1000).startswith("LEASED held by owner")
    # Release: the oldest waiter gets it; the others stay in line.
    r.execute_command("SP.RELEASE", "ls:w", "res", "owner", tok)
    time.sleep(0.2)
    eq(order, ["w0"], "first served")
    # (The release left the scratchpad without entries or leases, so it was
    # deleted and created again for w0: its token is still above tok.)
    assert got["w0"][0] > tok, (got["w0"], tok)
    # A lease expiring wakes the next one within a few ms (no cron tick needed).
    r.execute_command("SP.RELEASE", "ls:w", "res", "w0", got["w0"][0])
    time.sleep(0.1)
    eq(order, ["w0", "w1"], "second served")
    t1 = got["w1"][0]
    lease(client(), "ls:w", "res", "w1", 150)  # renew to a short ttl
    start = time.monotonic()
    ts[2].join(5)
    waited = time.monotonic() - start
    eq(order, ["w0", "w1", "w2"], "third served after the expiry")
    assert waited < 0.150 + 0.080, "woken %.3f s after a 150 ms lease" % waited
    assert got["w2"][0] > t1, (got["w2"], t1)
    for t in ts:
        t.join(5)
    # WAIT that times out: nil.
    t0 = time.monotonic()
    eq(lease(r, "ls:w", "res", "late", 1000, "WAIT", 100), None, "WAIT timeout")
    assert 0.09 < time.monotonic() - t0 < 1.0
    # Waiters for different resources of one scratchpad do not block each other.
    tok_a, _ = lease(r, "ls:w", "a", "x", 60000)
    tok_b, _ = lease(r, "ls:w", "b", "x", 60000)
    res = {}

    def w2(resource):
        res[resource] = lease(client(), "ls:w", resource, "y", 1000, "WAIT", 3000)

    ta = threading.Thread(target=w2, args=("a",))
    tb = threading.Thread(target=w2, args=("b",))
    ta.start()
    time.sleep(0.05)
    tb.start()
    time.sleep(0.1)
    r.execute_command("SP.RELEASE", "ls:w", "b", "x", tok_b)
    tb.join(2)
    assert "b" in res and "a" not in res, res
    r.execute_command("SP.RELEASE", "ls:w", "a", "x", tok_a)
    ta.join(2)
    assert "a" in res, res
    # WAIT inside MULTI does not block: nil at once.
    p = r.pipeline(transaction=True)
    p.execute_command("SP.LEASE", "ls:w", "res", "m", 1000, "WAIT", 0)
    eq(p.execute(), [None], "WAIT inside MULTI")
    r.execute_command("DEL", "ls:w")


def case_keys():
    r = client()
    r.execute_command("DEL", "ls:k", "ls:k2", "ls:k3")
    r.execute_command("SP.WRITE", "ls:k", "e", "v")
    tok, _ = lease(r, "ls:k", "e", "alice", 60000)
    # RENAME: the leases go with the value.
    r.execute_command("RENAME", "ls:k", "ls:k2")
    eq([x[:3] for x in r.execute_command("SP.LEASES", "ls:k2")], [[b"e", b"alice", tok]], "after RENAME")
    r.execute_command("SP.WRITE", "ls:k2", "e", "v2", "FENCE", "e", tok)
    # COPY: the copy has the entries, no leases, and tokens above the source's.
    r.execute_command("COPY", "ls:k2", "ls:k3")
    eq(r.execute_command("SP.LEASES", "ls:k3"), [], "a copy holds no lease")
    eq(r.execute_command("SP.READ", "ls:k3", "e"), b"v2", "the copy's entry")
    t3, _ = lease(r, "ls:k3", "e", "bob", 60000)
    assert t3 > tok, (t3, tok)
    # MOVE to another database: the leases go with it.
    r.execute_command("MOVE", "ls:k2", 1)
    r1 = redis.Redis(host="127.0.0.1", port=PORT, db=1, socket_timeout=20)
    eq([x[:3] for x in r1.execute_command("SP.LEASES", "ls:k2")], [[b"e", b"alice", tok]], "after MOVE")
    r1.execute_command("DEL", "ls:k2")
    # DEL: the leases are gone; a new scratchpad never reuses a token.
    r.execute_command("DEL", "ls:k3")
    t4, _ = lease(r, "ls:k3", "e", "carol", 60000)
    assert t4 > t3, (t4, t3)
    e = err(r.execute_command, "SP.WRITE", "ls:k3", "e", "x", "FENCE", "e", t3)
    assert e.startswith("FENCED token %d" % t3), e
    # The key's own expiry takes its leases with it.
    r.execute_command("PEXPIRE", "ls:k3", 50)
    time.sleep(0.1)
    eq(r.execute_command("SP.LEASES", "ls:k3"), [], "after the key expired")
    eq(r.execute_command("EXISTS", "ls:k3"), 0, "expired")
    # A lease-only scratchpad disappears when its last lease expires.
    lease(r, "ls:k4", "e", "dan", 50)
    eq(r.execute_command("EXISTS", "ls:k4"), 1, "a lease keeps the key")
    time.sleep(0.35)  # the cron (hz 10) reaps it without anyone asking
    eq(r.execute_command("DBSIZE") >= 0, True)
    keys = r.execute_command("KEYS", "ls:k4")
    eq(keys, [], "the lease-only key after its lease expired")


def lease_state(r, ns):
    return [x[:3] for x in r.execute_command("SP.LEASES", ns)]


def restart(srv):
    global PORT
    srv.restart()
    PORT = srv.port


def case_restart_and_rewrite(srv):
    r = client()
    r.execute_command("DEL", "ls:p")
    r.execute_command("SP.WRITE", "ls:p", "e", "v")
    t1, _ = lease(r, "ls:p", "a", "alice", 600000)
    t2, _ = lease(r, "ls:p", "b", "bob", 600000)
    r.execute_command("SP.RELEASE", "ls:p", "b", "bob", t2)
    # Entries named like a fence, deleted with a fence: the log's SP.DEL ns w FENCE x 5
    # (which carries no fence) must delete them again on replay.
    for name in ("w", "FENCE", "x", "5"):
        r.execute_command("SP.WRITE", "ls:p", name, "v")
    eq(r.execute_command("SP.DEL", "ls:p", "w", "FENCE", "x", "5", "FENCE", "a", t1), 4, "SP.DEL of w FENCE x 5")
    want = lease_state(r, "ls:p")
    last = t2
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
            assert r.info("persistence")["aof_rewrites"] > n, "the %s rewrite did not finish" % mode
        restart(srv)
        r = client()
        eq(lease_state(r, "ls:p"), want, "leases after %s" % mode)
        eq(r.execute_command("SP.LIST", "ls:p")[1], [b"e"], "entries after %s" % mode)
        r.execute_command("SP.WRITE", "ls:p", "e", "fenced-" + mode, "FENCE", "a", t1)
        # The next grant is above every token given before (the released one too).
        tn, _ = lease(r, "ls:p", "c-" + mode, "carol", 600000)
        assert tn == last + 1, (mode, tn, last)
        last = tn
        want = lease_state(r, "ls:p")
    eq(r.execute_command("SP.READ", "ls:p", "e"), b"fenced-fork", "the fenced writes were logged")
    # A lease that expires while the server is down is gone after the restart.
    lease(r, "ls:p", "soon", "eve", 200)
    restart(srv)
    time.sleep(0.3)
    r = client()
    assert [b"soon"] not in [[x[0]] for x in r.execute_command("SP.LEASES", "ls:p")]


def case_model(seed):
    rng = random.Random(seed)
    r = client()
    r.execute_command("DEL", "ls:m")
    ttl = 40
    stop = time.monotonic() + RUN_SECONDS
    landed = []      # (value, token) the clients saw succeed
    refused = [0]
    bad = []
    lock = threading.Lock()

    def agent(i, rs):
        c = client("agent-%d" % i)
        while time.monotonic() < stop:
            got = lease(c, "ls:m", "journal", "agent-%d" % i, ttl, "WAIT", 2000)
            if got is None:
                continue
            tok = got[0]
            cur = c.execute_command("SP.READ", "ls:m", "journal") or b""
            lines = cur.decode().splitlines()
            value = len(lines) + 1
            # A pause: usually short, often past the lease's end.
            time.sleep(rs.choice([0, 0.002, 0.01, 0.03, 0.05, 0.08]))
            new = cur.decode() + "%d %d\n" % (value, tok)
            try:
                c.execute_command("SP.WRITE", "ls:m", "journal", new, "FENCE", "journal", tok)
                with lock:
                    landed.append((value, tok))
            except ResponseError as e:
                s = str(e)
                if not s.startswith("FENCED "):
                    bad.append(s)
                with lock:
                    refused[0] += 1
            if rs.random() < 0.5:
                c.execute_command("SP.RELEASE", "ls:m", "journal", "agent-%d" % i, tok)

    ts = [threading.Thread(target=agent, args=(i, random.Random(rng.random()))) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(RUN_SECONDS + 30)
    eq(bad, [], "errors other than FENCED")
    journal = (r.execute_command("SP.READ", "ls:m", "journal") or b"").decode().splitlines()
    rows = [tuple(int(x) for x in line.split()) for line in journal]
    eq([v for v, _ in rows], list(range(1, len(rows) + 1)), "journal values 1..n (no lost write)")
    eq(sorted(rows), sorted(landed), "the journal holds exactly the writes that succeeded")
    toks = [t for _, t in rows]
    eq(toks, sorted(toks), "tokens never go back in the journal")
    assert refused[0] > 0, "no write was refused: the pauses did not outlast a lease"
    assert len(rows) > 10, "too few writes landed: %d" % len(rows)
    print("# model: %d writes landed, %d refused (stale or expired tokens), seed %d" % (len(rows), refused[0], seed))


def main():
    global PORT
    rep = spserver.Reporter()
    print("# SEED=%d" % SEED)
    srv = spserver.Server("--appendonly", "yes")
    srv.start()
    try:
        PORT = srv.port
        rep.case("SP.LEASE replies [token, expiry]; renewal keeps the token; -LEASED names holder and ms left; "
                 "SP.LEASES and SP.RELEASE", case_reply_shapes)
        rep.case("FENCE on every writing SP command: a stale, missing or expired grant is -FENCED and changes "
                 "nothing, the feed included; checked at EXEC inside MULTI", case_fence_every_write)
        rep.case("WAIT is first come, first served, woken by a release or within ms of an expiry, nil on "
                 "timeout, never jumped", case_wait_fifo)
        rep.case("RENAME and MOVE carry leases, COPY does not, DEL and expiry drop them; tokens are never reused",
                 case_keys)
        rep.case("leases and the token counter survive a restart and both rewrite modes", case_restart_and_rewrite,
                 srv)
        PORT = srv.port
        rep.case("model: clients pausing past their lease never land a stale write (journal complete and ordered)",
                 case_model, SEED)
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
