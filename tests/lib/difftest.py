"""difftest.py -- differential tests against the real thing: the same stream of
commands into Debian's redis-server and into Scratchpad, every reply compared
byte for byte.

Why: Redis 7.0's documented behaviour is the reference for every command the
two share (replies, error strings, edge cases). A model written by hand
repeats the writer's misreadings; redis-server does not. Each command group has
a test (tests/integration/diff_<group>.py) that gives this module a generator
of requests; the module starts both servers (each on a free port in a
temporary directory, talking only to 127.0.0.1, stopped by PID), sends each
request to both on one connection each, and compares.

A request is a `Req`: its arguments, and how its replies compare:
  EXACT      the raw RESP bytes are equal (the default);
  UNORDERED  the replies are arrays (or maps/sets) whose elements are compared
             as sorted lists: Redis leaves their order undefined (SMEMBERS,
             HGETALL of a hash table, SUNION, ...);
  a callable `check(redis_node, scratchpad_node) -> str or None`: for replies
             that are random by design (SRANDMEMBER, SPOP, HRANDFIELD,
             ZRANDMEMBER): it returns what is wrong, or None. Such a request
             must leave both datasets equal (e.g. SPOP on both is followed by
             the generator re-synchronising with a deterministic command).
Nodes are resp_wire.parse's: (type char, bytes | None | [nodes]).

Running: `run(name, generate, count)` prints "# seed N (SEED=N replays it)",
sends `count` requests (environment DIFF_COUNT overrides: run for hours by
hand with a large one), and prints one "ok - ..." or "not ok - ..." line with
the first differences (the request, both replies, and the 10 requests before
it). SEED=N replays a failing stream exactly.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spserver  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

EXACT = "exact"
UNORDERED = "unordered"
REDIS_SERVER = os.environ.get("REDIS_SERVER", "/usr/bin/redis-server")


class Req:
    """One request: args (bytes or str) and how to compare (EXACT, UNORDERED or a check)."""

    __slots__ = ("args", "cmp")

    def __init__(self, *args, cmp=EXACT):
        self.args = [a if isinstance(a, bytes) else str(a).encode() for a in args]
        self.cmp = cmp

    def __repr__(self):
        return " ".join(a.decode("latin-1") if len(a) <= 60 else a[:57].decode("latin-1") + "..." for a in self.args)


class RedisServer:
    """Debian's redis-server on a free port in a temporary directory, no persistence."""

    def __init__(self, *extra):
        self.dir = tempfile.mkdtemp(prefix="difftest-redis-")
        self.port = spserver.free_port()
        self.log = open(os.path.join(self.dir, "redis.log"), "wb")
        self.proc = subprocess.Popen([REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", self.dir,
                                      "--daemonize", "no"] + list(extra),
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited with status %s" % self.proc.returncode)
            try:
                if spserver.raw_command(self.port, "PING", timeout=0.5) == b"+PONG":
                    return
            except OSError:
                pass
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not answer on port %d" % self.port)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def canon(node):
    """A node with the elements of every aggregate sorted (for UNORDERED)."""
    t, v = node
    if isinstance(v, list):
        if t in "%|":
            pairs = sorted(zip([canon(x) for x in v[0::2]], [canon(x) for x in v[1::2]]), key=repr)
            return (t, pairs)
        return (t, sorted((canon(x) for x in v), key=repr))
    return node


def compare(req, raw_r, node_r, raw_s, node_s):
    """None if the replies agree under req.cmp, else a description."""
    if req.cmp == EXACT:
        return None if raw_r == raw_s else "replies differ"
    if req.cmp == UNORDERED:
        return None if canon(node_r) == canon(node_s) else "replies differ (as unordered collections)"
    return req.cmp(node_r, node_s)


def show(raw, limit=300):
    text = raw.decode("latin-1").replace("\r\n", "\\r\\n")
    return text if len(text) <= limit else text[:limit] + "... (%d bytes)" % len(raw)


def seed_from_env():
    s = os.environ.get("SEED")
    return int(s) if s else random.randrange(1, 1 << 31)


def run(name, generate, count, scratchpad_args=(), redis_args=(), resp3=False, max_diffs=5):
    """Send the requests generate(rng, count) yields to both servers and compare.

    generate is a generator function of a random.Random and a count; it yields
    Req objects (count of them, roughly: the generator decides). Prints the
    seed and one ok / not ok line named name. Returns True when every reply
    agreed."""
    seed = seed_from_env()
    count = int(os.environ.get("DIFF_COUNT", count))
    print("# %s: seed %d, %d requests (SEED=%d DIFF_COUNT=%d replays it)" % (name, seed, count, seed, count))
    sys.stdout.flush()
    redis = RedisServer(*redis_args)
    sp = spserver.Server("--appendonly", "no", *scratchpad_args)
    sp.start()
    diffs = []
    history = []
    n = 0
    t0 = time.monotonic()
    try:
        cr, cs = Conn(redis.port), Conn(sp.port)
        if resp3:
            for c in (cr, cs):
                c.send(encode([b"HELLO", b"3"]))
                c.read_reply()
        for req in generate(random.Random(seed), count):
            n += 1
            data = encode(req.args)
            cr.send(data)
            cs.send(data)
            raw_r, node_r = cr.read_reply()
            raw_s, node_s = cs.read_reply()
            why = compare(req, raw_r, node_r, raw_s, node_s)
            if why:
                diffs.append((n, req, why, raw_r, raw_s, list(history)))
                if len(diffs) >= max_diffs:
                    break
            history.append(repr(req))
            del history[:-10]
            if cr.closed or cs.closed:
                diffs.append((n, req, "a server closed the connection", raw_r, raw_s, list(history)))
                break
        alive = sp.alive()
    finally:
        sp.stop()
        redis.stop()
    secs = time.monotonic() - t0
    if not alive:
        diffs.append((n, None, "scratchpad-server died", b"", b"", history))
    if not diffs:
        print("ok - %s: %d requests, every reply the same as redis-server's (seed %d, %.1f s)" % (name, n, seed, secs))
        return True
    print("not ok - %s: %d of %d requests differ from redis-server (seed %d)" % (name, len(diffs), n, seed))
    for i, req, why, raw_r, raw_s, hist in diffs:
        print("    #%d %s: %s" % (i, req, why))
        print("      redis:      %s" % show(raw_r))
        print("      scratchpad: %s" % show(raw_s))
        if hist:
            print("      after: %s" % " | ".join(hist[-5:]))
    return False
