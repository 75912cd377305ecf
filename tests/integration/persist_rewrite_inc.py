"""persist_rewrite_inc.py -- the incremental rewrite (aof-rewrite-mode
incremental) under every kind of write, interleaved with its scan.

The server runs with aof-rewrite-step-us 1, so that each loop iteration scans
about one bucket: a BGREWRITEAOF over a few thousand keys then lasts thousands
of iterations, and a client that pipelines random writes meanwhile changes keys
the scan has written already, keys it has not reached yet, keys created after
the start, in several databases and inside MULTI/EXEC. The writes are every
kind the log knows: string commands, key commands (RENAME, COPY, MOVE, expiries),
scratchpad commands, transactions, and FLUSHDB / SWAPDB (which start the rewrite
again). After the rewrite, the dataset (dump_dataset of persist_restart.py:
values, types, expiry times, every scratchpad entry with its metadata) must be
the same after a restart, which loads the new base and the incr that follows it,
and INFO must show that writes reached keys before the scan did.

Seeded (SEED=... reproduces); bounded in time; the server is stopped by PID."""
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import spserver  # noqa: E402
from persist_restart import Srv, assert_same, dump_dataset, read_manifest  # noqa: E402

SEED = int(os.environ.get("SEED", random.randrange(1 << 30)))
RNG = random.Random(SEED)
DBS = (0, 2, 5)
KEYS = 2000         # per database and kind
TEXT = [("line %d of a tool's output: status=%s\n" % (i, "ok" if i % 7 else "ERROR")) for i in range(400)]


def client(srv, db=0):
    r = redis.Redis(host="127.0.0.1", port=srv.port, db=db, socket_timeout=30)
    r.response_callbacks = {}
    return r


def text(n, rng=None):
    return "".join((rng or RNG).choice(TEXT) for _ in range(n))


def fill(srv):
    """Strings (small, large and compressible, with and without expiry) and
    scratchpads in DBS: the keys the scan has to reach."""
    for db in DBS:
        r = client(srv, db)
        p = r.pipeline(transaction=False)
        for i in range(KEYS):
            if i % 3 == 0:
                p.execute_command("SET", "s:%d" % i, "v%d" % i, "EX", 100000 + i)
            elif i % 50 == 1:
                p.execute_command("SET", "s:%d" % i, text(1500))  # ~70 KB: compressed chunks
            else:
                p.execute_command("SET", "s:%d" % i, "v%d" % i)
            p.execute_command("SET", "n:%d" % i, i)
        for i in range(KEYS // 4):
            p.execute_command("SP.WRITE", "sp:%d" % i, "plan", "step 1\nstep 2\n")
            p.execute_command("SP.WRITE", "sp:%d" % i, "log", text(3 if i % 20 else 1200))
        p.execute()
        r.close()


def random_command(rng, i):
    """One write (argv list) on a random key; errors (wrong type, no such key)
    are part of the mix."""
    RNG = rng  # noqa: N806 -- the same calls as fill's
    k = RNG.randrange(KEYS + KEYS // 5)   # some keys created during the rewrite
    s, n, sp = "s:%d" % k, "n:%d" % k, "sp:%d" % (k // 4)
    choice = RNG.randrange(22)
    if choice == 0:
        return ["SET", s, "w%d" % i]
    if choice == 1:
        return ["APPEND", s, "+%d" % i]
    if choice == 2:
        return ["INCRBY", n, RNG.randrange(1, 100)]
    if choice == 3:
        return ["SETRANGE", s, RNG.randrange(8), "R%d" % i]
    if choice == 4:
        return ["DEL", s, "n:%d" % RNG.randrange(KEYS)]
    if choice == 5:
        return ["RENAME", s, "s:%d" % RNG.randrange(KEYS + KEYS // 5)]
    if choice == 6:
        return ["COPY", s, "c:%d" % k, "REPLACE"]
    if choice == 7:
        return ["MOVE", "s:%d" % k, RNG.choice(DBS)]
    if choice == 8:
        return ["EXPIRE", s, RNG.randrange(1000, 90000)]
    if choice == 9:
        return ["PERSIST", s]
    if choice == 10:
        return ["GETDEL", "n:%d" % k]
    if choice == 11:
        return ["MSET", s, "m%d" % i, "s:%d" % RNG.randrange(KEYS), "m%d" % i]
    if choice == 12:
        return ["INCRBYFLOAT", n, "0.5"]
    if choice == 13:
        return ["SP.WRITE", sp, "plan", "step %d\nstep %d\n" % (i, i + 1)]
    if choice == 14:
        return ["SP.APPEND", sp, "log", "appended %d\n" % i]
    if choice == 15:
        return ["SP.EDIT", sp, "plan", "step", "STEP"]
    if choice == 16:
        return ["SP.DEL", sp, "plan"]
    if choice == 17:
        return ["SP.OFFLOAD", sp, text(2, RNG)]
    if choice == 18:
        return ["SP.EXPIRE", sp, "log", RNG.randrange(1000, 90000)]
    if choice == 19:
        return ["GETEX", s, "PX", RNG.randrange(100000, 900000)]
    if choice == 20:
        return ["SETNX", "new:%d" % i, "created during the rewrite"]
    return ["APPEND", "s:%d" % (KEYS - 1 - k % KEYS), text(1, RNG)]


def write_during(srv, rounds, rng):
    """Random writes in pipelines and transactions, rounds round trips."""
    conns = {db: client(srv, db) for db in DBS}
    n = 0
    for _ in range(rounds):
        db = rng.choice(DBS)
        p = conns[db].pipeline(transaction=rng.random() < 0.3)
        for _ in range(rng.randrange(1, 12)):
            p.execute_command(*random_command(rng, n))
            n += 1
        p.execute(raise_on_error=False)
    for r in conns.values():
        r.close()
    return n


class Writer(threading.Thread):
    """write_during in a loop until stopped; counts the writes."""

    def __init__(self, srv, seed):
        super().__init__()
        self.srv, self.rng, self.stop, self.writes, self.error = srv, random.Random(seed), threading.Event(), 0, None

    def run(self):
        try:
            while not self.stop.is_set():
                self.writes += write_during(self.srv, 5, self.rng)
        except Exception as e:  # noqa: BLE001 -- reported by the main thread
            self.error = e


def info(srv):
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
    try:
        return r.info("persistence")
    finally:
        r.close()


def run(rare):
    """Rewrites under a writer thread until one has written a key ahead of a
    write (at most 5: the scan can outrun the writer); then the restart check."""
    with Srv("--appendonly", "yes", "--appendfsync", "everysec", "--aof-rewrite-mode", "incremental",
             "--aof-rewrite-step-us", "1", "--auto-aof-rewrite-percentage", "0") as srv:
        fill(srv)
        r = client(srv)
        writes = 0
        for attempt in range(5):
            rewrites = info(srv)["aof_rewrites"]
            w = Writer(srv, RNG.randrange(1 << 30))
            w.start()
            try:
                time.sleep(0.05)
                r.execute_command("BGREWRITEAOF")
                if rare and attempt == 0:
                    # each starts the rewrite again, from the dataset as it is
                    r.execute_command("SWAPDB", 2, 5)
                    client(srv, 7).execute_command("SET", "scratch", "x")
                    r.execute_command("SELECT", 7)
                    r.execute_command("FLUSHDB")
                    r.execute_command("SELECT", 0)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and info(srv)["aof_rewrites"] <= rewrites:
                    time.sleep(0.01)
            finally:
                w.stop.set()
                w.join()
            if w.error:
                raise w.error
            writes += w.writes
            i = info(srv)
            assert i["aof_rewrites"] > rewrites, "the rewrite did not finish in 60 s: %r" % i
            assert i["aof_last_bgrewrite_status"] == "ok", i["aof_last_bgrewrite_status"]
            if i["aof_rewrite_keys_written_before_a_write"] > 0:
                break
        assert i["aof_rewrite_keys_written_before_a_write"] > 0, \
            "in 5 rewrites no key was written to the base ahead of a write: the writes never overtook the scan"
        # writes after the switch go to the new incr
        write_during(srv, 20, RNG)
        before = dump_dataset(srv.port)
        files = [f[2] for f in read_manifest(srv)]
        assert files == ["base", "incr"], "manifest after the rewrite: %r" % files
        r.close()
        srv.restart()
        assert_same(before, dump_dataset(srv.port), what="after the incremental rewrite and a restart")
        return writes, attempt + 1, i["aof_rewrite_keys_scanned"], i["aof_rewrite_keys_written_before_a_write"]


def main():
    rep = spserver.Reporter()
    print("# seed %d (SEED=%d reproduces)" % (SEED, SEED))
    rep.case("an incremental rewrite with random writes of every kind interleaved with its scan (pipelines, "
             "transactions, several databases): a restart gives the same dataset",
             lambda: print("# %d writes during %d rewrite(s); the last: %d keys by the scan, %d ahead of a write"
                           % run(False)))
    rep.case("the same with a SWAPDB and a FLUSHDB during the rewrite (each starts it again)",
             lambda: print("# %d writes during %d rewrite(s); the last: %d keys by the scan, %d ahead of a write"
                           % run(True)))
    rep.finish()


if __name__ == "__main__":
    main()
