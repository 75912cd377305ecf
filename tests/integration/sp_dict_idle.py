"""sp_dict_idle.py -- the background LZ4 dictionary, checked against a real server.

Large values are compressed without the per-value dictionary when written and
converted to dictionary mode once they have stayed unchanged for
compress-dict-delay ms (server/core/lz/lzidle.h). Through redis-py, with log text from
bench/gen_logs.py:

1. an SP.WRITE entry and a SET string wait (INFO memory lz4_dict_pending_*),
   are converted once idle (lz4_dict_converted_values), take less memory
   (MEMORY USAGE, SP.STAT stored) and read back byte-identical: whole, by
   windows (SP.READ, GETRANGE), SP.GREP; appends afterwards read right;
2. a value deleted or overwritten while it waits is never converted;
3. a restart brings the values back from the log, where they were logged
   without the dictionary, and they are converted again (the loader's values
   are registered by the dataset scan); after BGREWRITEAOF (which writes the
   converted chunks) and another restart they load in dictionary mode, still
   byte-identical;
4. compress-dict-delay is read and set with CONFIG GET / SET, refuses values
   out of range, and -1 puts the dictionary back on the write path;
5. values are written at compress-write-acceleration (default 2; at 6 larger
   than at 1) and re-encoded at 1 once idle, also those too short for a dictionary
   (lz4_recompressed_values), byte-identical; past 3/4 of maxmemory they are
   written at 1 at once.

The delay is first set to a minute, so that "waiting" is checked without a
race, then lowered with CONFIG SET; every wait for the conversion is a poll
with a generous deadline (WAIT_S), never a sleep that must be long enough.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

WAIT_S = 60.0  # s, the bound on every wait for the background
TIMEOUT = 30   # s, per socket operation


def gen_text(size, seed):
    return spserver.gen_log_text(size, seed)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got if len(repr(got)) < 200 else repr(got)[:200],
                                                       want if len(repr(want)) < 200 else repr(want)[:200]))


dict_info = spserver.lz4_dict_info


def wait_for(r, pred, what):
    return spserver.wait_lz4_dict(r, pred, what, WAIT_S)


def sp_stored(r, ns, name):
    st = r.execute_command("SP.STAT", ns, name)
    if isinstance(st, list):
        st = {st[i]: st[i + 1] for i in range(0, len(st), 2)}
    return int(st[b"stored"])


def read_entry(r, ns, name, size):
    out = []
    off = 0
    while off < size:
        chunk = r.execute_command("SP.READ", ns, name, "OFFSET", off, "LIMIT", 200000)
        check(chunk, "SP.READ returned nothing at offset %d" % off)
        out.append(chunk)
        off += len(chunk)
    return b"".join(out)


def same_content(r, text, text2):
    eq(read_entry(r, "dns", "log", len(text)), text, "SP.READ of the whole entry")
    eq(r.get("dstr"), text2, "GET of the string")
    for off in (0, 1, 8191, 8192, 65535, 65536, 123457, len(text) - 2048):
        eq(r.execute_command("SP.READ", "dns", "log", "OFFSET", off, "LIMIT", 2048), text[off:off + 2048],
           "SP.READ window at %d" % off)
        eq(r.getrange("dstr", off, off + 2047), text2[off:off + 2048], "GETRANGE window at %d" % off)


def t_converted(r, text, text2):
    r.config_set("compress-dict-delay", "60000")
    base = dict_info(r)
    r.execute_command("SP.WRITE", "dns", "log", text)
    r.set("dstr", text2)
    # The string is compressed by the cron, then waits like the entry.
    d = wait_for(r, lambda d: d["pending_values"] >= base["pending_values"] + 2, "both values to wait")
    check(d["pending_bytes"] >= base["pending_bytes"] + len(text) + len(text2), "pending bytes %r" % d)
    eq(d["converted_values"], base["converted_values"], "nothing converted within the delay")
    mem_sp, mem_str, st = r.memory_usage("dns"), r.memory_usage("dstr"), sp_stored(r, "dns", "log")
    check(mem_str < len(text2) * 0.7, "the string is compressed: %d bytes for %d" % (mem_str, len(text2)))
    r.config_set("compress-dict-delay", "100")
    d = wait_for(r, lambda d: d["converted_values"] >= base["converted_values"] + 2 and d["pending_values"] == 0,
                 "both values to be converted")
    check(d["saved_bytes"] > base["saved_bytes"], "saved bytes %r" % d)
    check(r.memory_usage("dns") < mem_sp * 0.9, "MEMORY USAGE of the scratchpad falls: %d -> %d"
          % (mem_sp, r.memory_usage("dns")))
    check(r.memory_usage("dstr") < mem_str * 0.9, "MEMORY USAGE of the string falls")
    check(sp_stored(r, "dns", "log") < st * 0.9, "SP.STAT stored falls")
    same_content(r, text, text2)
    g = r.execute_command("SP.GREP", "dns", "log", "ERROR", "LITERAL", "MAX", 0, "WITHMETA")
    meta = g[1] if isinstance(g[1], dict) else {g[1][i]: g[1][i + 1] for i in range(0, len(g[1]), 2)}
    eq(int(meta[b"matched"]), sum(1 for line in text.split(b"\n") if b"ERROR" in line), "SP.GREP's count")
    # appends after the conversion (with the dictionary) read back right
    r.execute_command("SP.APPEND", "dns", "log", text[:5000])
    r.append("dstr", text2[:5000])
    eq(r.execute_command("SP.READ", "dns", "log", "OFFSET", len(text) - 100, "LIMIT", 5100),
       text[-100:] + text[:5000], "the end of the entry after an append")
    eq(r.getrange("dstr", len(text2) - 100, -1), text2[-100:] + text2[:5000], "the end of the string")


def t_short_lived(r, text):
    r.config_set("compress-dict-delay", "60000")
    r.config_set("sp-history-depth", "0")  # an overwritten version is gone, not kept in the history
    base = dict_info(r)
    r.execute_command("SP.WRITE", "dns", "tmp", text)
    r.execute_command("SP.WRITE", "dns", "tmp2", text)
    d = dict_info(r)
    eq(d["pending_values"], base["pending_values"] + 2, "two entries wait")
    r.execute_command("SP.DEL", "dns", "tmp")
    r.execute_command("SP.WRITE", "dns", "tmp2", "short now")
    r.config_set("compress-dict-delay", "0")
    d = wait_for(r, lambda d: d["pending_values"] == 0, "nothing to wait")
    eq(d["converted_values"], base["converted_values"], "nothing converted")
    eq(r.execute_command("SP.READ", "dns", "tmp2"), b"short now", "the overwritten entry")
    r.config_set("sp-history-depth", "1")


def t_restart(srv, text, text2):
    srv.restart("--compress-dict-delay", "100")
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
    d = wait_for(r, lambda d: d["converted_values"] >= 2 and d["pending_values"] == 0,
                 "the reloaded values to be converted")
    full = text + text[:5000]
    full2 = text2 + text2[:5000]
    eq(read_entry(r, "dns", "log", len(full)), full, "the entry after a restart")
    eq(r.get("dstr"), full2, "the string after a restart")
    r.bgrewriteaof()
    deadline = time.monotonic() + WAIT_S
    while r.info("persistence")["aof_rewrite_in_progress"] or r.info("persistence")["aof_rewrite_scheduled"]:
        check(time.monotonic() < deadline, "the rewrite finishes")
        time.sleep(0.05)
    eq(r.info("persistence")["aof_last_bgrewrite_status"], "ok", "rewrite status")
    mem = r.memory_usage("dns")
    r.close()
    srv.restart("--compress-dict-delay", "100")
    r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
    eq(read_entry(r, "dns", "log", len(full)), full, "the entry after a rewrite and a restart")
    eq(r.get("dstr"), full2, "the string after a rewrite and a restart")
    check(r.memory_usage("dns") < mem * 1.1, "the entry loads in dictionary mode (MEMORY USAGE %d, was %d)"
          % (r.memory_usage("dns"), mem))
    d = dict_info(r)
    eq(d["converted_values"], 0, "nothing left to convert after loading converted chunks")
    r.close()
    return d


def t_config(r, text):
    eq(r.config_get("compress-dict-delay"), {"compress-dict-delay": "0"}, "CONFIG GET")
    for bad in ("-2", "86400001", "soon"):
        try:
            r.config_set("compress-dict-delay", bad)
        except ResponseError:
            continue
        raise AssertionError("CONFIG SET compress-dict-delay %s was accepted" % bad)
    r.config_set("compress-dict-delay", "-1")
    eq(r.config_get("compress-dict-delay"), {"compress-dict-delay": "-1"}, "CONFIG GET after SET")
    base = dict_info(r)
    r.execute_command("SP.WRITE", "dns", "now", text)
    d = dict_info(r)
    eq(d["pending_values"], base["pending_values"], "with -1 nothing waits")
    r.config_set("compress-dict-delay", "0")
    d = dict_info(r)
    eq(d["pending_values"], base["pending_values"], "an entry written with -1 has its dictionary already")
    eq(read_entry(r, "dns", "now", len(text)), text, "the entry written with -1")


def t_fast(r, text):
    short = text[:30000]
    eq(r.config_get("compress-write-acceleration"), {"compress-write-acceleration": "2"}, "the default")
    for bad in ("0", "65", "fast"):
        try:
            r.config_set("compress-write-acceleration", bad)
        except ResponseError:
            continue
        raise AssertionError("CONFIG SET compress-write-acceleration %s was accepted" % bad)
    r.config_set("compress-dict-delay", "60000")
    r.config_set("compress-write-acceleration", "6")
    r.execute_command("SP.WRITE", "fns", "fast", short)
    r.config_set("compress-write-acceleration", "1")
    r.execute_command("SP.WRITE", "fns", "full", short)
    s8, s1 = sp_stored(r, "fns", "fast"), sp_stored(r, "fns", "full")
    check(s1 < s8 * 0.95, "acceleration 6 stores more than 1 until idle: %d vs %d" % (s8, s1))
    before = int(r.info("memory")["lz4_recompressed_values"])
    r.config_set("compress-dict-delay", "100")
    deadline = time.monotonic() + WAIT_S
    while int(r.info("memory")["lz4_recompressed_values"]) < before + 1:
        check(time.monotonic() < deadline, "the fast entry is re-encoded (INFO %r)" % r.info("memory"))
        time.sleep(0.05)
    # As if written so, to glibc's rounding: a block shrunk in place keeps up to
    # 31 bytes it cannot split off (malloc_usable_size), depending on the heap.
    got = sp_stored(r, "fns", "fast")
    check(abs(got - s1) < 32, "re-encoded at acceleration 1: stored as if written so: %d vs %d" % (got, s1))
    eq(r.execute_command("SP.READ", "fns", "fast"), short, "the re-encoded entry")
    eq(int(r.info("memory")["lz4_recompressed_values"]), before + 1, "only the fast entry was re-encoded")
    # near maxmemory: written at acceleration 1 at once
    r.config_set("compress-dict-delay", "60000")
    r.config_set("compress-write-acceleration", "6")
    used = int(r.info("memory")["used_memory"])
    r.config_set("maxmemory", str(used * 6 // 5))  # 3/4 of it is under what is used
    try:
        r.execute_command("SP.WRITE", "fns", "near", short)
        eq(sp_stored(r, "fns", "near"), s1, "stored at acceleration 1 past 3/4 of maxmemory")
    finally:
        r.config_set("maxmemory", "0")
    r.execute_command("SP.WRITE", "fns", "back", short)  # names of one length: SP.STAT counts the name
    eq(sp_stored(r, "fns", "back"), s8, "stored at acceleration 6 again without maxmemory")
    r.config_set("compress-dict-delay", "0")


def main():
    rep = spserver.Reporter()
    text = gen_text(1 << 20, 11)
    text2 = gen_text(700000, 12)
    try:
        srv = spserver.Server("--compress-dict-delay", "60000").start()
    except Exception as e:  # noqa: BLE001
        rep.fail("the server starts and answers PING", e)
        rep.finish()
    try:
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
        rep.case("an SP.WRITE entry and a SET string wait for the delay, are converted once idle, take less memory "
                 "and read back byte-identical (whole, windows, grep, appends)", t_converted, r, text, text2)
        rep.case("a value deleted or overwritten while it waits is never converted", t_short_lived, r, text)
        r.close()
        rep.case("after a restart the logged values are converted again, and after BGREWRITEAOF they load "
                 "converted, byte-identical", t_restart, srv, text, text2)
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
        r.config_set("compress-dict-delay", "0")
        rep.case("compress-dict-delay is CONFIG GET/SET-able within -1..86400000, and -1 chooses the dictionary "
                 "on the write path", t_config, r, text)
        rep.case("values are written at compress-write-acceleration, larger, and re-encoded at 1 once idle "
                 "(lz4_recompressed_values), byte-identical; past 3/4 of maxmemory they are written at 1",
                 t_fast, r, text)
        r.close()
        status = srv.stop()
        rep.case("the server exits 0 on SIGTERM", lambda: eq(status, 0, "exit status"))
    finally:
        srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
