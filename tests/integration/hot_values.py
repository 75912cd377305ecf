#!/usr/bin/python3
"""hot_values.py -- compressed strings read often are kept raw, within a bound.

A string at or above compress-threshold is compressed by the background pass;
one read whole (GET) compress-hot-reads times within a second is decoded back
to raw by that read and kept raw while it is read (types/string/value.c, "Hot
values stay raw"). Checked here, with no timing asserted (compress-hot-reads 1
makes the first GET decide; every wait polls a condition, bounded):

- below the threshold of reads a value stays compressed; at it, it turns raw,
  the GET answers the same bytes, and INFO memory's lz4_hot_* count it;
- the raw bytes count in used_memory (it grows by about the value's raw size);
- compress-hot-max-memory bounds the raw bytes of all the hot values: a value
  that would pass it stays compressed, and lz4_hot_bytes never exceeds it;
- every change of a hot value (SET, APPEND, SETRANGE, DEL, RENAME) is seen by
  the next read, and its bytes are given back to the count once the background
  pass has taken the key off its queue;
- a hot value no longer read is compressed again by the background pass;
- a value compression does not shrink (random bytes) stays raw: as LZ4 its
  frame and index would take more memory than its bytes;
- BITCOUNT and BITPOS, which read a value whole as GET does, count as reads.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402


def text(n, seed):
    """n bytes of compressible log-like text."""
    out, x = [], seed
    while sum(len(s) for s in out) < n:
        x = (x * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
        out.append("2024-05-%02d worker-%d request served id=%d status=200\n" % (
            1 + (x >> 8) % 28, (x >> 16) % 8, (x >> 24) % 100000))
    return "".join(out).encode()[:n]


def mem(r, field):
    return int(r.info("memory")[field])


def wait_for(cond, what, timeout=15.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out waiting for " + what
        time.sleep(0.05)


def compressed(r, key, value):
    """key holds value, compressed by the background pass."""
    r.set(key, value)
    wait_for(lambda: mem(r, "lz4_pending_values") == 0 and r.object("encoding", key) == b"lz4",
             "the background compression of " + key)


def t_turns_raw(r):
    v = text(20000, 1)
    r.config_set("compress-hot-reads", 1000000)
    compressed(r, "a", v)
    for _ in range(5):
        assert r.get("a") == v
    assert r.object("encoding", "a") == b"lz4", "a value read 5 times under a threshold of 1000000"
    assert mem(r, "lz4_hot_values") == 0
    r.config_set("compress-hot-reads", 1)
    before = mem(r, "used_memory")
    assert r.get("a") == v
    after = mem(r, "used_memory")
    assert r.object("encoding", "a") == b"raw"
    assert mem(r, "lz4_hot_values") == 1 and mem(r, "lz4_hot_bytes") == len(v)
    assert mem(r, "lz4_hot_decoded") == 1
    # the raw copy replaced the compressed one: used_memory grew by the raw size
    # minus the compressed chunks, which for this text are under a third of it
    assert after - before >= len(v) // 2, (before, after)
    assert r.get("a") == v and r.getrange("a", 100, 199) == v[100:200]


def t_bounded(r):
    r.flushall()
    wait_for(lambda: mem(r, "lz4_hot_values") == 0, "the count to be given back after FLUSHALL")
    r.config_set("compress-hot-reads", 1)
    r.config_set("compress-hot-max-memory", 50000)
    vals = {"b%d" % i: text(20000, 10 + i) for i in range(4)}
    for k, v in vals.items():
        compressed(r, k, v)
    for k, v in vals.items():
        assert r.get(k) == v
        assert mem(r, "lz4_hot_bytes") <= 50000
    encs = [r.object("encoding", k) for k in vals]
    assert encs.count(b"raw") == 2 and encs.count(b"lz4") == 2, encs
    assert mem(r, "lz4_hot_values") == 2 and mem(r, "lz4_hot_bytes") == 40000
    r.config_set("compress-hot-max-memory", 0)
    compressed(r, "c", text(20000, 20))
    r.get("c")
    assert r.object("encoding", "c") == b"lz4", "compress-hot-max-memory 0 keeps none raw"
    r.config_set("compress-hot-max-memory", "64mb")


def t_changes(r):
    r.flushall()
    wait_for(lambda: mem(r, "lz4_hot_values") == 0, "the count to be given back after FLUSHALL")
    r.config_set("compress-hot-reads", 1)
    v, w = text(20000, 30), text(30000, 31)

    def hot(key, value):
        compressed(r, key, value)
        assert r.get(key) == value and r.object("encoding", key) == b"raw"

    hot("k", v)
    r.set("k", w)
    assert r.get("k") == w
    r.append("k", b"tail")
    assert r.get("k") == w + b"tail"
    r.setrange("k", 10, b"XYZ")
    assert r.get("k") == w[:10] + b"XYZ" + w[13:] + b"tail"
    r.rename("k", "k2")
    assert r.get("k") is None and r.get("k2") == w[:10] + b"XYZ" + w[13:] + b"tail"
    r.delete("k2")
    assert r.get("k2") is None
    hot("s", v)
    r.set("s", b"short")
    assert r.get("s") == b"short"
    # the background pass takes the keys off its queue and gives their bytes back
    wait_for(lambda: mem(r, "lz4_hot_values") == 0 and mem(r, "lz4_hot_bytes") == 0,
             "the hot bytes of changed and deleted values to be given back")


def t_cools(r):
    r.flushall()
    r.config_set("compress-hot-reads", 1)
    v = text(20000, 40)
    compressed(r, "cold", v)
    assert r.get("cold") == v and r.object("encoding", "cold") == b"raw"
    cooled = mem(r, "lz4_hot_cooled")
    # no more reads: after 2 s unread the background compresses it again
    wait_for(lambda: r.object("encoding", "cold") == b"lz4", "the unread hot value to be compressed again")
    assert mem(r, "lz4_hot_cooled") > cooled and mem(r, "lz4_hot_values") == 0
    assert r.getrange("cold", 0, -1) == v


def t_incompressible(r):
    r.flushall()
    v = os.urandom(5000)
    r.set("rnd", v)
    compressible = text(5000, 50)
    compressed(r, "txt", compressible)  # the background pass has run past both
    assert r.object("encoding", "rnd") == b"raw"
    used = r.memory_usage("rnd", samples=0)
    assert used <= len(v) + 200, used
    assert r.get("rnd") == v


def t_bit_reads(r):
    """BITCOUNT and BITPOS read a value whole as GET does: they count as reads
    of a hot value too (a 125 KB bitmap of few bits counted again and again)."""
    r.flushall()
    r.config_set("compress-hot-reads", 3)
    bm = bytearray(125000)
    for i in range(0, 125000, 997):
        bm[i] = 0x81
    compressed(r, "bm", bytes(bm))
    want = sum(bin(b).count("1") for b in bm)
    assert r.bitcount("bm") == want
    assert r.bitpos("bm", 1) == 0
    assert r.object("encoding", "bm") == b"lz4", "two reads under a threshold of 3"
    assert r.bitcount("bm") == want
    assert r.object("encoding", "bm") == b"raw", "the third whole read made it hot"
    assert r.bitcount("bm") == want and r.bitpos("bm", 1, 1) == 997 * 8 and r.get("bm") == bytes(bm)
    r.config_set("compress-hot-reads", 8)


def main():
    rep = spserver.Reporter()
    with spserver.Server("--appendonly", "no") as srv:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=30)
        rep.case("a compressed string read compress-hot-reads times turns raw, counted in INFO and used_memory",
                 t_turns_raw, r)
        rep.case("compress-hot-max-memory bounds the raw bytes of all the hot values", t_bounded, r)
        rep.case("every change of a hot value is read back, and its bytes are given back to the count",
                 t_changes, r)
        rep.case("a hot value no longer read is compressed again by the background pass", t_cools, r)
        rep.case("a value compression does not shrink stays raw, no larger than its bytes", t_incompressible, r)
        rep.case("BITCOUNT and BITPOS count as whole reads: a bitmap counted often turns raw, with the same answers",
                 t_bit_reads, r)
    rep.finish()


if __name__ == "__main__":
    main()
