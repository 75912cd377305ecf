#!/usr/bin/python3
"""compare_servers.py -- send the same recorded stream of requests to two server
binaries and compare their replies byte for byte.

Why: a change that must not change behaviour (a refactor of the server's layout,
say) is checked by running the old and the new server side by side on one
stream that covers every command family, its options and its errors, and then
comparing what each replayed from its log.

Usage (from the repository's top):
    /usr/bin/python3 tests/tools/compare_servers.py --old OLD [--new NEW] [--seed N]
        [--count N] [--record FILE]
    /usr/bin/python3 tests/tools/compare_servers.py --old OLD [--new NEW] --replay FILE
OLD and NEW are server executables; NEW defaults to build/scratchpad-server. An
old one from main, for instance: git worktree add /tmp/old main; make -C /tmp/old
-j2 build/scratchpad-server; then --old /tmp/old/build/scratchpad-server.
Options: --show N (differences printed, default 10), --time-tolerance MS (default
5000), --alloc-exact (see the rules), --shape-only NAME (a command, or "CMD SUB", compared by reply shape only;
repeatable: for replies known to depend on the allocator or the clock),
--server-arg=ARG (appended to both servers' command lines; repeatable, with "="
since ARG starts with "--": --server-arg=--appendfsync --server-arg=always),
--no-dump (skip the restart and dataset comparison), --keep (keep the servers'
directories and print them).
Exit status: 0 when every reply and both datasets are identical (after the rules
below), 1 when something differs, 2 when the tool could not run (a server did
not start, a bad argument).

What it does:
1. Starts both binaries (tests/lib/spserver.py: each on a free port on
   127.0.0.1, in its own temporary directory) with the same arguments:
   --appendonly yes --appendfsync everysec --slowlog-log-slower-than 0 (every
   command is in the slow log, so SLOWLOG LEN/GET are deterministic)
   --compress-dict-delay -1 (dictionaries chosen on the write path: with the
   default delay the background re-encodes values at times that differ between
   the two runs, and SP.STAT "stored", SP.INFO, MEMORY USAGE with them),
   then the --server-arg ones.
2. Builds the stream from the seed (printed; random unless --seed), or reads it
   from --replay; writes it to --record if asked. The stream is a fixed part,
   which visits every command family (connection, strings, LCS, keys, expiry,
   SCAN/KEYS/RANDOMKEY, OBJECT, MEMORY, server, DEBUG, COMMAND, CONFIG, SLOWLOG,
   INFO, MULTI/EXEC/WATCH, every SP.* command with its options), calls every
   command with a wrong number of arguments, string commands on scratchpads and
   SP commands on strings, unknown commands and subcommands, bad arguments,
   raw protocol (inline commands, pipelining, protocol errors), a
   BGREWRITEAOF with writes during the rewrite, a HELLO 3 section (RESP3 replies)
   and DEBUG LZ4-CORRUPT reads, followed by --count random requests (default
   2000) over a small keyspace. Requests go on two connections (WATCH, CLIENT
   KILL, QUIT need a second one).
3. Sends each request to both servers, reads the raw bytes of its reply (or
   replies) from each, and compares them.
4. Stops both servers (SIGTERM), starts them again on their logs, and compares a
   dump of every database: the keys (full SCAN, sorted), and per key TYPE, PTTL,
   and GET / OBJECT ENCODING / STRLEN, or SP.INFO, SP.LIST WITHMETA (every page),
   and per entry SP.READ, SP.STAT, SP.PTTL. The same dump is compared before the
   restart too, so a difference in the log's replay shows as one that appears
   only after it.
5. Prints the first differences (request, old reply, new reply), the commands the
   stream exercised against COMMAND LIST, and one summary line.

Stream file (--record / --replay): JSON lines. The first is {"seed", "count",
"version"}; then one object per item: {"c": conn, "a": [args]} a command (args
are byte strings as Latin-1 text), optionally "n": replies expected (0 for
CLIENT REPLY OFF/SKIP) and "close": 1 (the server closes the connection after
the reply: the tool then reads to EOF and compares what came); {"c", "raw": text,
"n", "close"} bytes sent as they are (inline commands, protocol errors);
{"c", "op": "reconnect"}; {"op": "wait_rewrite"} (waits until no rewrite runs on
either server); {"op": "settle"} (see below); {"c", "op": "scanall", "a": [SCAN options]} (the tool iterates
SCAN to cursor 0 and compares the sorted set of keys). In arguments, {ID:n} and
{ADDR:n} stand for the client id and address of connection n on each server.

Rules for replies that differ between two runs of the same binary (everything
else is compared byte for byte; a rule only relaxes what it names; a reply that
matches byte for byte never needs one):
- Times: TTL, EXPIRETIME, SP.TTL (s) and PTTL, PEXPIRETIME, SP.PTTL (ms): a
  non-negative integer matches one within the tolerance (--time-tolerance ms,
  +1 s for second values); negative values (-1, -2) exactly. In SP.STAT,
  SP.LIST WITHMETA, SP.INFO (and their EXEC elements), the integer after a
  "created", "updated", "oldest_update", "newest_update" or "ttl" (>= 0) key:
  the same tolerance. In SLOWLOG GET, an entry's time (tolerance), its id and
  duration (type only: the id counts the start-up check's PINGs).
- TIME: shape (two bulk strings of digits). LASTSAVE, RANDOMKEY: type only.
- Client ids: CLIENT ID, HELLO's "id" and CLIENT LIST/INFO's id= are compared as
  offsets from the id of the tool's first connection on that server (the
  start-up check's connections make the first id differ).
- CLIENT LIST / CLIENT INFO: the values of addr, laddr, fd, age, idle and of the
  buffer figures qbuf, qbuf-free, rbs, rbp, argv-mem, multi-mem, obl, oll, omem,
  tot-mem, events are masked (they follow how TCP cut the requests); names,
  order and every other value are compared.
- SLOWLOG GET: the client address is masked.
- CONFIG GET: the value of "port" is masked.
- INFO: section headers and field names in order are compared, values are not,
  except the errorstats section (exact) and keyspace (exact but avg_ttl).
- MEMORY STATS / DOCTOR / MALLOC-STATS: shape only (map keys, types; runs of
  digits in text masked): they report the allocator's and the process's figures.
- Allocator figures: MEMORY USAGE, SP.STAT "stored" and SP.INFO "stored_bytes"
  sum malloc_usable_size(), which differs between two runs of the same binary
  (the heap's layout follows how the query buffers grew with TCP's cuts): by
  16-byte steps, and up to twice an entry's raw size, since a raw entry's buffer
  is reused or reallocated depending on its usable size. So they are compared
  as integers only, and the summary counts those that were not equal (on the
  same binary: 20 to 40 of some 250 in a default run); --alloc-exact compares
  them exactly. SP.INFO's compression_ratio is checked to be its own bytes /
  stored_bytes.
- KEYS and SCAN (one call from cursor 0 with a COUNT that finishes): the keys are
  compared as a sorted list (the hash seed is random per process; no SCAN from a
  nonzero cursor is sent); "scanall" items compare a full iteration's sorted keys.
- Inside EXEC, each element gets the rule of the command queued there.
- --shape-only "CMD [SUB]" reduces a command's replies to their shape.
Timing the stream avoids: no TTL short enough to expire during the run except
PX 1 followed by DEBUG SLEEP (lazy expiry, deterministic); no second
BGREWRITEAOF while one may run; strings of compress-threshold bytes and more
are compressed by the cron, so a "settle" item (the tool waits until INFO
memory says lz4_pending_values:0 on both) precedes OBJECT ENCODING, MEMORY
USAGE and DEBUG LZ4-CORRUPT requests and both dumps.

Output: for each of the first --show differences, the item's index (or the dump
and its label), the request, where in the reply the normalised values first
differ, and the raw replies of both (truncated); then the coverage line and the
summary line.
"""

import argparse
import json
import os
import random
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

BASE_ARGS = ["--appendonly", "yes", "--appendfsync", "everysec",
             "--slowlog-log-slower-than", "0", "--compress-dict-delay", "-1"]
DATABASES = 16
READ_TIMEOUT = 15.0


# ---------------------------------------------------------------- RESP

def B(x):
    return x if isinstance(x, bytes) else str(x).encode()


class Gen:
    """Builds the stream: items as in the header's "Stream file"."""

    def __init__(self, seed, count):
        self.rng = random.Random(seed)
        self.seed = seed
        self.count = count
        self.items = []

    def r(self, *args, c=0, n=1, close=False):
        it = {"c": c, "a": [B(a) for a in args]}
        if n != 1:
            it["n"] = n
        if close:
            it["close"] = 1
        self.items.append(it)

    def raw(self, data, c=1, n=1, close=False):
        it = {"c": c, "raw": data, "n": n}
        if close:
            it["close"] = 1
        self.items.append(it)

    def op(self, name, c=0, args=()):
        it = {"c": c, "op": name}
        if args:
            it["a"] = [B(a) for a in args]
        self.items.append(it)

    # -- values
    WORDS = ["alpha", "beta", "gamma", "delta", "ERROR", "warn:", "INFO", "v1.2", "42", "disk",
             "full", "déjà", "vu", "✓", "中文", "naïve", "x", "the", "plan", "tests", "TODO"]

    def text(self, nwords):
        rng = self.rng
        out = []
        for _ in range(nwords):
            out.append(rng.choice(self.WORDS))
            out.append("\n" if rng.random() < 0.2 else " ")
        return "".join(out).encode()

    def binary(self, n):
        rng = self.rng
        return bytes(rng.randrange(256) for _ in range(n)) + b"\x00\xff"

    def big_text(self, nbytes):
        rng = self.rng
        lines = []
        total = 0
        i = 0
        while total < nbytes:
            i += 1
            line = "line %d: %s %s status=%s\n" % (i, rng.choice(self.WORDS), rng.choice(self.WORDS),
                                                    rng.choice(["ok", "ERROR", "warn", "retry"]))
            lines.append(line)
            total += len(line.encode())
        return "".join(lines).encode()

    def value(self):
        k = self.rng.random()
        if k < 0.45:
            return self.text(self.rng.randrange(1, 12))
        if k < 0.6:
            return str(self.rng.randrange(-1000, 100000)).encode()
        if k < 0.75:
            return self.binary(self.rng.randrange(1, 40))
        if k < 0.8:
            return b""
        if k < 0.95:
            return self.text(self.rng.randrange(20, 200))
        return self.big_text(self.rng.randrange(5000, 150000))

    # -- the fixed part
    def build(self):
        self.connection()
        self.server_basics()
        self.strings()
        self.lcs()
        self.keys()
        self.expiry()
        self.scanning()
        self.objects_memory()
        self.scratchpads()
        self.sp_errors()
        self.multi()
        self.command()
        self.config_slowlog_info()
        self.debug()
        self.arity_and_unknown()
        self.wrongtype()
        self.protocol()
        self.rewrite()
        self.resp3()
        self.random_part()
        self.ending()
        return self.items

    def connection(self):
        r = self.r
        r("PING")
        r("PING", "hello")
        r("PING", "a", "b")
        r("ECHO", "x y")
        r("ECHO", b"\x00\xff")
        r("CLIENT", "ID")
        r("CLIENT", "ID", c=1)
        r("CLIENT", "GETNAME")
        r("CLIENT", "SETNAME", "agent-1")
        r("CLIENT", "GETNAME")
        r("CLIENT", "SETNAME", "bad name")
        r("CLIENT", "SETNAME", "bad\nname")
        r("CLIENT", "SETNAME", "worker", c=1)
        r("CLIENT", "SETINFO", "LIB-NAME", "mylib")
        r("CLIENT", "SETINFO", "LIB-VER", "1.2.3")
        r("CLIENT", "SETINFO", "LIB-NAME", "bad name")
        r("CLIENT", "SETINFO", "BOGUS", "x")
        r("CLIENT", "INFO")
        r("CLIENT", "LIST")
        r("CLIENT", "LIST", "TYPE", "normal")
        r("CLIENT", "LIST", "TYPE", "pubsub")
        r("CLIENT", "LIST", "TYPE", "replica")
        r("CLIENT", "LIST", "TYPE", "bogus")
        r("CLIENT", "LIST", "ID", "{ID:1}")
        r("CLIENT", "LIST", "ID", "abc")
        r("CLIENT", "LIST", "BOGUS")
        r("CLIENT", "HELP")
        r("CLIENT", "NOSUCH")
        r("CLIENT", "KILL", "1.2.3.4:5")
        r("CLIENT", "KILL", "ID", "999999")
        r("CLIENT", "KILL", "ID", "abc")
        r("CLIENT", "KILL", "TYPE", "pubsub")
        r("CLIENT", "KILL", "USER", "nobody")
        r("CLIENT", "KILL", "SKIPME", "maybe")
        r("CLIENT", "KILL", "BOGUS", "x")
        r("CLIENT", "KILL", "ID", "{ID:1}")
        self.op("reconnect", c=1)
        r("CLIENT", "KILL", "ADDR", "{ADDR:1}", "SKIPME", "yes")
        self.op("reconnect", c=1)
        r("CLIENT", "KILL", "{ADDR:1}")
        self.op("reconnect", c=1)
        r("CLIENT", "REPLY", "OFF", n=0)
        r("SET", "reply:x", "1", n=0)
        r("INCR", "reply:x", n=0)
        r("CLIENT", "REPLY", "ON")
        r("CLIENT", "REPLY", "SKIP", n=0)
        r("GET", "reply:x", n=0)
        r("GET", "reply:x")
        r("CLIENT", "REPLY", "MAYBE")
        r("AUTH", "secret")
        r("AUTH", "default", "secret")
        r("AUTH", "a", "b", "c")
        r("HELLO")
        r("HELLO", "2")
        r("HELLO", "4")
        r("HELLO", "abc")
        r("HELLO", "2", "SETNAME", "hello-name")
        r("CLIENT", "GETNAME")
        r("HELLO", "2", "AUTH", "default", "x")
        r("HELLO", "2", "BOGUS")
        r("SELECT", "1")
        r("SELECT", "99")
        r("SELECT", "-1")
        r("SELECT", "x")
        r("SET", "db1key", "in db 1")
        r("RESET")
        r("CLIENT", "GETNAME")
        r("GET", "db1key")
        r("QUIT", c=1, close=True)
        self.op("reconnect", c=1)
        r("PING", c=1)

    def server_basics(self):
        r = self.r
        r("DBSIZE")
        r("FLUSHALL")
        r("DBSIZE")
        for i in range(5):
            r("SET", "fa:%d" % i, "v%d" % i)
        r("SELECT", "2")
        r("SET", "fa:db2", "x")
        r("FLUSHDB", "ASYNC")
        r("DBSIZE")
        r("SET", "fa:db2", "y")
        r("FLUSHDB", "SYNC")
        r("FLUSHDB", "BOGUS")
        r("FLUSHDB", "SYNC", "ASYNC")
        r("SET", "sw:2", "two")
        r("SELECT", "0")
        r("SWAPDB", "0", "2")
        r("DBSIZE")
        r("GET", "sw:2")
        r("SWAPDB", "0", "2")
        r("SWAPDB", "0", "99")
        r("SWAPDB", "a", "1")
        r("SWAPDB", "1", "1")
        r("FLUSHALL", "BOGUS")
        r("FLUSHALL", "SYNC")
        r("DBSIZE")
        r("TIME")
        r("LASTSAVE")
        r("SHUTDOWN", "ABORT")
        r("SHUTDOWN", "BOGUS")

    def strings(self):
        r = self.r
        r("SET", "s:a", "hello")
        r("GET", "s:a")
        r("GET", "s:missing")
        r("SET", "s:a", "v2", "NX")
        r("SET", "s:b", "v", "NX")
        r("SET", "s:a", "v3", "XX")
        r("SET", "s:c", "v", "XX")
        r("SET", "s:a", "v4", "GET")
        r("SET", "s:new", "v", "GET")
        r("SET", "s:a", "v5", "NX", "GET")
        r("SET", "s:ex", "v", "EX", "1000")
        r("SET", "s:px", "v", "PX", "1000000")
        r("SET", "s:exat", "v", "EXAT", "4102444800")
        r("SET", "s:pxat", "v", "PXAT", "4102444800123")
        r("SET", "s:ex", "v2", "KEEPTTL")
        r("TTL", "s:ex")
        r("PEXPIRETIME", "s:pxat")
        r("EXPIRETIME", "s:exat")
        for bad in (["NX", "XX"], ["EX", "10", "PX", "10"], ["EX", "0"], ["EX", "-1"], ["EX", "abc"],
                    ["PX", "0"], ["EXAT", "0"], ["EX", "10", "KEEPTTL"], ["BOGUS"], ["EX"],
                    ["EX", "9223372036854775807"], ["PX", "9223372036854775807"], ["GET", "GET"],
                    ["KEEPTTL", "PXAT", "1"]):
            r("SET", "s:bad", "v", *bad)
        r("SETNX", "s:nx", "1")
        r("SETNX", "s:nx", "2")
        r("SETEX", "s:setex", "1000", "v")
        r("SETEX", "s:setex", "0", "v")
        r("SETEX", "s:setex", "abc", "v")
        r("PSETEX", "s:psetex", "1000000", "v")
        r("PSETEX", "s:psetex", "-5", "v")
        r("GETSET", "s:a", "gs")
        r("GETSET", "s:gsnew", "x")
        r("GETDEL", "s:gsnew")
        r("GETDEL", "s:gsnew")
        r("SET", "s:gx", "v", "EX", "1000")
        r("GETEX", "s:gx")
        r("GETEX", "s:gx", "PERSIST")
        r("TTL", "s:gx")
        r("GETEX", "s:gx", "EX", "2000")
        r("GETEX", "s:gx", "PX", "2000000")
        r("GETEX", "s:gx", "EXAT", "4102444800")
        r("GETEX", "s:gx", "PXAT", "4102444800000")
        r("EXPIRETIME", "s:gx")
        r("GETEX", "s:gx", "EX", "0")
        r("GETEX", "s:gx", "EX", "10", "PX", "10")
        r("GETEX", "s:gx", "BOGUS")
        r("GETEX", "s:gx", "PERSIST", "EX", "5")
        r("GETEX", "s:missing", "EX", "5")
        r("MSET", "m:1", "a", "m:2", "b", "m:3", "c")
        r("MSET", "m:1", "a", "m:2")
        r("MGET", "m:1", "m:2", "m:3", "m:none")
        r("MSETNX", "m:4", "d", "m:5", "e")
        r("MSETNX", "m:5", "x", "m:6", "y")
        r("MSETNX", "m:6")
        r("MGET", "m:4", "m:5", "m:6")
        r("SET", "n", "10")
        r("INCR", "n")
        r("DECR", "n")
        r("INCRBY", "n", "100")
        r("DECRBY", "n", "7")
        r("INCRBY", "n", "abc")
        r("DECRBY", "n", "-9223372036854775808")
        r("INCR", "n:new")
        r("DECR", "n:new2")
        r("SET", "n:max", "9223372036854775807")
        r("INCR", "n:max")
        r("SET", "n:min", "-9223372036854775808")
        r("DECR", "n:min")
        r("INCR", "s:a")
        r("SET", "n:sp", " 1")
        r("INCR", "n:sp")
        r("SET", "n:f", "10.5")
        r("INCRBYFLOAT", "n:f", "0.1")
        r("INCRBYFLOAT", "n:f", "-5")
        r("INCRBYFLOAT", "n:f", "5.0e3")
        r("INCRBYFLOAT", "n:f", "abc")
        r("INCRBYFLOAT", "n:f", "inf")
        r("INCRBYFLOAT", "s:a", "1")
        r("INCRBYFLOAT", "n:fnew", "3")
        r("SET", "n:huge", "1e308")
        r("INCRBYFLOAT", "n:huge", "1e308")
        r("APPEND", "ap", "line 1\n")
        r("APPEND", "ap", "déjà vu\n")
        r("APPEND", "n", "5")
        r("GET", "n")
        r("STRLEN", "ap")
        r("STRLEN", "none")
        r("SET", "big", self.big_text(200000))
        r("STRLEN", "big")
        r("APPEND", "big", "tail line\n")
        r("GETRANGE", "big", "0", "99")
        r("GETRANGE", "big", "65500", "65600")
        r("GETRANGE", "big", "-50", "-1")
        r("GETRANGE", "big", "199990", "300000")
        r("GETRANGE", "ap", "0", "3")
        r("GETRANGE", "ap", "-3", "-1")
        r("GETRANGE", "ap", "5", "2")
        r("GETRANGE", "ap", "-100", "100")
        r("GETRANGE", "ap", "a", "1")
        r("GETRANGE", "none", "0", "1")
        r("SUBSTR", "ap", "0", "3")
        r("SETRANGE", "ap", "0", "LINE")
        r("SETRANGE", "sr", "5", "gap")
        r("GET", "sr")
        r("SETRANGE", "sr", "-1", "x")
        r("SETRANGE", "sr", "536870912", "x")
        r("SETRANGE", "sr", "0", "")
        r("SETRANGE", "none2", "3", "")
        r("SETRANGE", "big", "70000", "PATCHED")
        r("GETRANGE", "big", "69990", "70020")
        r("SET", "bin", b"\x00\x01\x02\xff\xfe")
        r("GET", "bin")
        r("SET", "emb", "x" * 44)
        r("SET", "raw", "x" * 45)
        r("SET", "thr", "t" * 4096)
        r("SET", "thr1", "t" * 4095)

    def lcs(self):
        r = self.r
        r("SET", "l:a", "ohmytext")
        r("SET", "l:b", "mynewtext")
        r("LCS", "l:a", "l:b")
        r("LCS", "l:a", "l:b", "LEN")
        r("LCS", "l:a", "l:b", "IDX")
        r("LCS", "l:a", "l:b", "IDX", "MINMATCHLEN", "4")
        r("LCS", "l:a", "l:b", "IDX", "MINMATCHLEN", "2", "WITHMATCHLEN")
        r("LCS", "l:a", "l:b", "LEN", "IDX")
        r("LCS", "l:a", "l:b", "BOGUS")
        r("LCS", "l:a", "l:b", "MINMATCHLEN", "abc")
        r("LCS", "l:a", "l:none")
        r("LCS", "l:none", "l:none2", "IDX")
        r("SP.WRITE", "l:pad", "e", "x")
        r("LCS", "l:a", "l:pad")
        r("LCS", "l:a", "l:pad", "BOGUS")
        r("SET", "l:c", self.big_text(3000))
        r("SET", "l:d", self.big_text(3000))
        r("LCS", "l:c", "l:d", "LEN")

    def keys(self):
        r = self.r
        r("MSET", "k:1", "a", "k:2", "b", "k:3", "c")
        r("DEL", "k:1", "k:none", "k:1")
        r("UNLINK", "k:2", "k:none")
        r("EXISTS", "k:3", "k:3", "k:none")
        r("TOUCH", "k:3", "k:none")
        r("TYPE", "k:3")
        r("TYPE", "k:none")
        r("SET", "k:4", "four", "EX", "1000")
        r("RENAME", "k:4", "k:5")
        r("TTL", "k:5")
        r("RENAME", "k:none", "k:6")
        r("RENAME", "k:5", "k:5")
        r("RENAME", "k:3", "k:5")
        r("GET", "k:5")
        r("SET", "k:7", "seven")
        r("RENAMENX", "k:7", "k:5")
        r("RENAMENX", "k:7", "k:8")
        r("RENAMENX", "k:none", "k:9")
        r("COPY", "k:8", "k:9")
        r("COPY", "k:8", "k:9")
        r("COPY", "k:8", "k:9", "REPLACE")
        r("COPY", "k:8", "k:9", "DB", "1")
        r("COPY", "k:8", "k:9", "DB", "99")
        r("COPY", "k:8", "k:9", "DB", "abc")
        r("COPY", "k:8", "k:8")
        r("COPY", "k:none", "k:10")
        r("COPY", "k:8", "k:9", "BOGUS")
        r("COPY", "big", "big:copy")
        r("GETRANGE", "big:copy", "69990", "70020")
        r("MOVE", "k:9", "1")
        r("MOVE", "k:9", "1")
        r("MOVE", "k:8", "0")
        r("MOVE", "k:8", "99")
        r("MOVE", "k:8", "x")
        r("MOVE", "k:none", "1")
        r("SELECT", "1")
        r("GET", "k:9")
        r("DBSIZE")
        r("SELECT", "0")

    def expiry(self):
        r = self.r
        r("SET", "e:1", "v")
        for args in (["1000"], ["1000", "NX"], ["2000", "NX"], ["3000", "XX"], ["500", "GT"],
                     ["5000", "GT"], ["6000", "LT"], ["100", "LT"], ["10", "NX", "XX"],
                     ["10", "GT", "LT"], ["10", "BOGUS"], ["abc"], ["9223372036854775807"],
                     ["-9223372036854775808"]):
            r("EXPIRE", "e:1", *args)
            r("TTL", "e:1")
        r("PEXPIRE", "e:1", "1000000")
        r("PTTL", "e:1")
        r("PEXPIRE", "e:1", "9223372036854775807")
        r("EXPIREAT", "e:1", "4102444800")
        r("EXPIRETIME", "e:1")
        r("PEXPIRETIME", "e:1")
        r("PEXPIREAT", "e:1", "4102444800999", "XX")
        r("PEXPIRETIME", "e:1")
        r("PERSIST", "e:1")
        r("PERSIST", "e:1")
        r("TTL", "e:1")
        r("PTTL", "e:none")
        r("EXPIRETIME", "e:none")
        r("EXPIRE", "e:none", "10")
        r("SET", "e:2", "v")
        r("EXPIRE", "e:2", "0")
        r("EXISTS", "e:2")
        r("SET", "e:3", "v")
        r("EXPIREAT", "e:3", "1")
        r("EXISTS", "e:3")
        r("SET", "e:4", "v")
        r("PEXPIRE", "e:4", "-1")
        r("GET", "e:4")
        r("SET", "e:lazy", "v", "PX", "1")
        r("SP.WRITE", "e:pad", "short", "v", "PX", "1")
        r("SP.WRITE", "e:pad", "long", "v", "EX", "5000")
        r("DEBUG", "SLEEP", "0.05")
        r("GET", "e:lazy")
        r("EXISTS", "e:lazy")
        r("SP.READ", "e:pad", "short")
        r("SP.LIST", "e:pad")
        r("SET", "e:5", "v", "EX", "1000")
        r("SET", "e:5", "w")
        r("TTL", "e:5")

    def scanning(self):
        r = self.r
        r("SELECT", "3")
        for i in range(40):
            r("SET", "sc:%02d" % i, str(i))
        for i in range(5):
            r("SP.WRITE", "sc:pad%d" % i, "e", "x")
        r("KEYS", "*")
        r("KEYS", "sc:0?")
        r("KEYS", "sc:[1-2]*")
        r("KEYS", "sc:\\*")
        r("KEYS", "nomatch*")
        r("SCAN", "0", "COUNT", "10000")
        r("SCAN", "0", "COUNT", "10000", "MATCH", "sc:1*")
        r("SCAN", "0", "COUNT", "10000", "TYPE", "scratchpad")
        r("SCAN", "0", "COUNT", "10000", "TYPE", "string", "MATCH", "*3")
        r("SCAN", "0", "COUNT", "10000", "TYPE", "hash")
        self.op("scanall", args=[])
        self.op("scanall", args=["COUNT", "3"])
        self.op("scanall", args=["MATCH", "sc:2*", "COUNT", "2"])
        self.op("scanall", args=["TYPE", "scratchpad", "COUNT", "1"])
        r("SCAN", "abc")
        r("SCAN", "0", "COUNT", "0")
        r("SCAN", "0", "COUNT", "abc")
        r("SCAN", "0", "MATCH")
        r("SCAN", "0", "BOGUS", "x")
        r("SCAN", "18446744073709551616")
        r("RANDOMKEY")
        r("DBSIZE")
        r("SELECT", "4")
        r("RANDOMKEY")
        r("KEYS", "*")
        r("SCAN", "0")
        r("SELECT", "0")

    def objects_memory(self):
        r = self.r
        r("SET", "o:int", "12345")
        r("SET", "o:emb", "short")
        r("SET", "o:raw", "r" * 100)
        r("SP.WRITE", "o:pad", "e", "x")
        self.op("settle")
        for k in ("o:int", "o:emb", "o:raw", "big", "o:pad", "o:none"):
            r("OBJECT", "ENCODING", k)
            r("OBJECT", "REFCOUNT", k)
            r("OBJECT", "FREQ", k)
            r("MEMORY", "USAGE", k)
        r("APPEND", "o:int", "6")
        r("OBJECT", "ENCODING", "o:int")
        r("OBJECT", "IDLETIME", "o:int")
        r("OBJECT", "HELP")
        r("OBJECT", "NOSUCH")
        r("OBJECT", "ENCODING")
        r("MEMORY", "USAGE", "big", "SAMPLES", "5")
        r("MEMORY", "USAGE", "big", "SAMPLES", "abc")
        r("MEMORY", "USAGE", "big", "BOGUS")
        r("MEMORY", "HELP")
        r("MEMORY", "PURGE")
        r("MEMORY", "STATS")
        r("MEMORY", "DOCTOR")
        r("MEMORY", "MALLOC-STATS")
        r("MEMORY", "NOSUCH")

    def scratchpads(self):
        r = self.r
        # SP.WRITE with every option
        r("SP.WRITE", "p", "plan", "- [ ] read the code\n- [ ] write tests\n- [ ] open the PR\n")
        r("TYPE", "p")
        r("SP.WRITE", "p", "plan", "second draft\n", "EX", "3600")
        r("SP.WRITE", "p", "plan", "third draft\n", "KEEPTTL")
        r("SP.TTL", "p", "plan")
        r("SP.PTTL", "p", "plan")
        r("SP.WRITE", "p", "plan", "again", "NX")
        r("SP.WRITE", "p", "fresh", "new", "NX")
        r("SP.WRITE", "p", "nothere", "x", "XX")
        r("SP.WRITE", "p", "fresh", "newer", "XX")
        r("SP.WRITE", "p", "plan", "stale", "IFVERSION", "1")
        r("SP.WRITE", "p", "plan", "fresh", "IFVERSION", "3")
        r("SP.WRITE", "p", "plan", "new?", "IFVERSION", "0")
        r("SP.WRITE", "p", "v0", "created", "IFVERSION", "0")
        r("SP.WRITE", "p", "px", "v", "PX", "3600000")
        r("SP.WRITE", "p", "blob", b"\x00\x01\xff")
        r("SP.WRITE", "p", "bintext", "abc", "KIND", "binary")
        r("SP.WRITE", "p", "bad", b"\xff\xfe", "KIND", "text")
        r("SP.WRITE", "p", "utf", "héllo wörld ✓ 中文", "KIND", "text")
        r("SP.WRITE", "p", "empty", "")
        r("SP.WRITE", "p", "notes/2024-05-01.md", "dated\n")
        r("SP.WRITE", "p", "tool:grep.out", "out\n")
        big = self.big_text(300000)
        r("SP.WRITE", "p", "log", big)
        r("SP.WRITE", "p", "binbig", self.binary(9000) * 3)
        r("SP.WRITE", "p", "thr", "t" * 4096)
        r("SP.STAT", "p", "log")
        r("SP.STAT", "p", "binbig")
        r("SP.STAT", "p", "plan")
        r("SP.STAT", "p", "utf")
        r("SP.STAT", "p", "empty")
        r("SP.STAT", "p", "thr")
        r("SP.STAT", "p", "nosuch")
        r("SP.STAT", "nopad", "x")
        # SP.APPEND
        r("SP.APPEND", "p", "alog", "déjà vu\n")
        r("SP.APPEND", "p", "alog", "encore ✓\n")
        r("SP.APPEND", "p", "alog", "!", "IFVERSION", "1")
        r("SP.APPEND", "p", "alog", "!", "IFVERSION", "2")
        r("SP.APPEND", "p", "abin", b"\x00\x01")
        r("SP.APPEND", "p", "abin", "é")
        r("SP.APPEND", "p", "alog", b"\xff")
        r("SP.APPEND", "p", "alog", "x", "BOGUS")
        r("SP.APPEND", "p", "log", "appended line\n")
        r("SP.APPEND", "p", "log", big[:70000])
        r("SP.STAT", "p", "log")
        # SP.READ windows
        r("SP.WRITE", "r", "t", "héllo wörld ✓")
        r("SP.WRITE", "r", "f", "l1\nl2\nl3\nl4\nl5\n")
        r("SP.WRITE", "r", "nonl", "a\nb")
        r("SP.WRITE", "r", "b", b"\x00\x01\x02\x03\x04\x05")
        for name in ("t", "f", "nonl", "b"):
            for w in ([], ["OFFSET", "3"], ["LIMIT", "4"], ["OFFSET", "2", "LIMIT", "3"],
                      ["LIMIT", "3", "OFFSET", "2"], ["HEAD", "5"], ["TAIL", "7"], ["HEAD", "2", "BYTES"],
                      ["TAIL", "3", "BYTES"], ["OFFSET", "100"], ["OFFSET", "1", "LIMIT", "2", "BYTES"],
                      ["LINES", "2", "3"], ["LINES", "-2", "-1"], ["LINES", "1", "1", "BYTES"],
                      ["WITHMETA"], ["OFFSET", "0", "LIMIT", "6", "WITHMETA"], ["HEAD", "2", "WITHMETA"],
                      ["TAIL", "2", "WITHMETA", "BYTES"], ["LINES", "1", "2", "WITHMETA"], ["HEAD", "0"]):
                r("SP.READ", "r", name, *w)
        for lines in (("1", "2"), ("2", "-1"), ("-2", "-1"), ("5", "5"), ("0", "2"), ("1", "100"),
                      ("-100", "1"), ("3", "2"), ("4", "-3"), ("6", "8"), ("0", "0"), ("-10", "-8")):
            r("SP.READ", "r", "f", "LINES", *lines)
        r("SP.READ", "r", "nonl", "LINES", "-1", "-1")
        r("SP.READ", "p", "empty", "LINES", "1", "-1")
        for w in (["OFFSET", "100000", "LIMIT", "200"], ["OFFSET", "65530", "LIMIT", "20"],
                  ["TAIL", "100"], ["HEAD", "70000", "WITHMETA"], ["LINES", "1000", "1005"],
                  ["LINES", "-3", "-1", "WITHMETA"], ["OFFSET", "131000", "LIMIT", "2000", "BYTES"],
                  ["OFFSET", "250000", "WITHMETA"]):
            r("SP.READ", "p", "log", *w)
        r("SP.READ", "p", "binbig", "OFFSET", "8990", "LIMIT", "40")
        r("SP.READ", "p", "nosuch")
        r("SP.READ", "nopad", "x")
        for bad in (["HEAD", "1", "TAIL", "1"], ["OFFSET", "1", "HEAD", "1"], ["LINES", "1"],
                    ["OFFSET", "-1"], ["LIMIT", "-1"], ["HEAD", "-1"], ["TAIL", "-2"], ["OFFSET", "x"],
                    ["LINES", "a", "b"], ["BOGUS"], ["HEAD"], ["WITHMETA", "WITHMETA"],
                    ["HEAD", "1", "HEAD", "2"], ["LINES", "1", "2", "LINES", "1", "2"]):
            r("SP.READ", "r", "t", *bad)
        # SP.RANGE
        r("SP.WRITE", "g", "t", "héllo wörld")
        for args in (["0"], ["0", "0"], ["3", "3"], ["5", "2"], ["-2", "-5"], ["11"], ["100", "200"],
                     ["9", "1000"], ["-100"], ["-100", "2"], ["-100", "-50"], ["0", "-1"], ["0", "5"],
                     ["-5"], ["-5", "-3"], ["0", "2", "BYTES"], ["8", "3"], ["1", "BYTES"]):
            r("SP.RANGE", "g", "t", *args)
        r("SP.RANGE", "p", "empty", "0")
        r("SP.RANGE", "p", "log", "65000", "66000")
        r("SP.RANGE", "p", "log", "-500")
        r("SP.RANGE", "p", "binbig", "-10")
        r("SP.RANGE", "p", "nosuch", "0")
        for bad in (["x"], ["0", "y"], ["0", "1", "2"], ["0", "1", "BOGUS"], ["BYTES", "0"]):
            r("SP.RANGE", "g", "t", *bad)
        # SP.GREP
        r("SP.WRITE", "gr", "log", "INFO start v1.2\nERROR disk 42 full\nwarn: low mem\nerror again 7\nINFO done\n")
        for args in (["\\d+"], ["(?i)^error"], ["error", "NOCASE", "CONTEXT", "1"], ["v1.2", "LITERAL"],
                     ["v1.2"], ["[a-z]+:", "MAX", "1", "WITHMETA"], ["o", "MAX", "1", "WITHMETA"],
                     ["o", "MAX", "0", "WITHMETA"], ["nomatch"], ["nomatch", "WITHMETA"], ["^$"],
                     ["INFO", "CONTEXT", "10"], ["\\w+", "MAX", "2"], ["(INFO|ERROR"], ["[", "LITERAL"],
                     ["x", "MAX", "-1"], ["x", "CONTEXT", "1001"], ["x", "CONTEXT", "-1"], ["x", "BOGUS"],
                     ["x", "MAX"], ["x", "MAX", "abc"], ["", "LITERAL"], ["ÉRROR", "NOCASE"]):
            r("SP.GREP", "gr", "log", *args)
        r("SP.WRITE", "gr", "uni", "café\n中文字\nnaïve\n")
        r("SP.GREP", "gr", "uni", "\\w+é")
        r("SP.GREP", "gr", "uni", "^.{3}$")
        r("SP.GREP", "gr", "uni", "NAÏVE", "NOCASE")
        r("SP.GREP", "p", "blob", "\\x00")
        r("SP.GREP", "p", "log", "ERROR", "MAX", "5")
        r("SP.GREP", "p", "log", "status=retry", "MAX", "3", "CONTEXT", "2")
        r("SP.GREP", "p", "log", "ERROR", "MAX", "2", "WITHMETA")
        r("SP.GREP", "p", "log", "line 99\\d\\d:")
        r("SP.GREP", "p", "nosuch", "x")
        r("SP.GREP", "nopad", "x", "x")
        r("SP.WRITE", "gr", "bomb", "a" * 30 + "b\n")
        r("CONFIG", "SET", "sp-grep-match-limit", "1000")
        r("SP.GREP", "gr", "bomb", "(a+)+$")
        r("CONFIG", "SET", "sp-grep-match-limit", "1000000")
        r("CONFIG", "SET", "sp-grep-max-scan", "1024")
        r("SP.GREP", "p", "log", "x")
        r("CONFIG", "SET", "sp-grep-max-scan", "64mb")
        # SP.LIST
        for n in ("obs-1", "obs-2", "obs-3", "plan", "dir/a", "dir/b"):
            r("SP.WRITE", "l", n, n)
        for args in ([], ["COUNT", "2"], ["COUNT", "2", "CURSOR", ">obs-2"], ["MATCH", "obs-[13]"],
                     ["MATCH", "plan", "WITHMETA"], ["MATCH", "dir/*", "COUNT", "1"], ["WITHMETA", "COUNT", "3"],
                     ["CURSOR", ">zzz"], ["CURSOR", "bogus"], ["COUNT", "0"], ["COUNT", "abc"], ["BOGUS"],
                     ["MATCH"], ["CURSOR", "0", "CURSOR", "0"]):
            r("SP.LIST", "l", *args)
        r("SP.LIST", "nosuch")
        r("SP.LIST", "p", "WITHMETA")
        # SP.EDIT
        r("SP.WRITE", "e", "plan", "- [ ] read the code\n- [ ] write tests\n- [ ] open the PR\n")
        r("SP.EDIT", "e", "plan", "- [ ] read", "- [x] read")
        r("SP.EDIT", "e", "plan", "- [ ]", "- [x]")
        r("SP.EDIT", "e", "plan", "-  [ ] write", "x")
        r("SP.EDIT", "e", "plan", "- [ ]", "* [ ]", "ALL")
        r("SP.EDIT", "e", "plan", "tests", "docs", "IFVERSION", "2")
        r("SP.EDIT", "e", "plan", "tests", "docs", "IFVERSION", "3")
        r("SP.EDIT", "e", "plan", "", "x")
        r("SP.EDIT", "e", "plan", "docs", "")
        r("SP.EDIT", "e", "plan", "PR", b"\xff")
        r("SP.EDIT", "e", "nosuch", "a", "b")
        r("SP.EDIT", "e", "plan", "a", "b", "BOGUS")
        r("SP.EDIT", "e", "plan", "a", "b", "IFVERSION", "-1")
        r("SP.READ", "e", "plan")
        r("SP.EDIT", "p", "log", "line 5000:", "LINE 5000:")
        r("SP.EDIT", "p", "log", "status=ok", "status=OK", "ALL")
        r("SP.EDIT", "p", "log", "status=warn", "w")
        r("SP.EDIT", "p", "blob", b"\x01", b"\x02\x03")
        r("SP.READ", "p", "blob")
        r("SP.STAT", "p", "log")
        # SP.INSERT
        r("SP.WRITE", "i", "f", "one\ntwo\n")
        r("SP.INSERT", "i", "f", "0", "zero")
        r("SP.INSERT", "i", "f", "2", "one and a half")
        r("SP.INSERT", "i", "f", "-1", "three")
        r("SP.INSERT", "i", "f", "100", "four\n")
        r("SP.INSERT", "i", "f", "-2", "x")
        r("SP.INSERT", "i", "f", "abc", "x")
        r("SP.INSERT", "i", "f", "1", "x", "IFVERSION", "1")
        r("SP.INSERT", "i", "f", "1", "x", "IFVERSION", "5")
        r("SP.INSERT", "i", "f", "1", b"\xff")
        r("SP.INSERT", "i", "nosuch", "1", "x")
        r("SP.INSERT", "i", "f", "1", "x", "BOGUS")
        r("SP.READ", "i", "f")
        r("SP.WRITE", "i", "nonl", "a")
        r("SP.INSERT", "i", "nonl", "-1", "b")
        r("SP.READ", "i", "nonl")
        r("SP.INSERT", "p", "log", "3", "inserted into a compressed entry")
        r("SP.READ", "p", "log", "LINES", "1", "5")
        # SP.PEEK
        r("SP.WRITE", "pk", "log", "line 1\nline 2\nline 3\nline 4\nline 5\n")
        for args in (["HEAD", "7", "TAIL", "7"], [], ["HEAD", "0", "TAIL", "0"], ["HEAD", "100"],
                     ["TAIL", "3"], ["HEAD", "-1"], ["TAIL", "-1"], ["HEAD", "x"], ["BOGUS"], ["HEAD"]):
            r("SP.PEEK", "pk", "log", *args)
        r("SP.PEEK", "p", "blob")
        r("SP.PEEK", "p", "log")
        r("SP.PEEK", "p", "binbig")
        r("SP.PEEK", "p", "utf", "HEAD", "3", "TAIL", "3")
        r("SP.PEEK", "p", "nosuch")
        # SP.OFFLOAD
        r("SP.OFFLOAD", "o", "3 files changed")
        r("SP.OFFLOAD", "o", "0123456789abcdefghij", "THRESHOLD", "10")
        r("SP.OFFLOAD", "o", "0123456789abcdefghij", "THRESHOLD", "10", "PREFIX", "tool/grep", "EX", "3600")
        r("SP.OFFLOAD", "o", self.big_text(50000))
        r("SP.OFFLOAD", "o", self.binary(5000), "KIND", "binary")
        r("SP.OFFLOAD", "o", "abcdefghijkl", "THRESHOLD", "5", "PX", "3600000", "KIND", "text")
        r("SP.OFFLOAD", "o", "x" * 20, "THRESHOLD", "5", "PREFIX", "bad name")
        r("SP.OFFLOAD", "o", "x" * 20, "THRESHOLD", "5", "PREFIX", "p" * 235)
        r("SP.OFFLOAD", "o", "x", "THRESHOLD", "-1")
        r("SP.OFFLOAD", "o", "x", "THRESHOLD", "abc")
        r("SP.OFFLOAD", "o", "x" * 20, "THRESHOLD", "5", "EX", "0")
        r("SP.OFFLOAD", "o", "x" * 20, "THRESHOLD", "5", "EX", "10", "PX", "10")
        r("SP.OFFLOAD", "o", "x" * 20, "THRESHOLD", "5", "KIND", "bogus")
        r("SP.OFFLOAD", "o", b"\xff" * 20, "THRESHOLD", "5", "KIND", "text")
        r("SP.OFFLOAD", "o", "x", "BOGUS")
        r("SP.WRITE", "o", "obs-5", "taken")
        r("SP.OFFLOAD", "o", "y" * 20, "THRESHOLD", "5")
        r("SP.LIST", "o")
        # entry lifetimes
        r("SP.WRITE", "t", "note", "check the CI logs")
        r("SP.EXPIRE", "t", "note", "100")
        r("SP.TTL", "t", "note")
        r("SP.PTTL", "t", "note")
        r("SP.PERSIST", "t", "note")
        r("SP.PERSIST", "t", "note")
        r("SP.TTL", "t", "note")
        r("SP.PEXPIRE", "t", "note", "5000000")
        r("SP.PTTL", "t", "note")
        r("SP.EXPIRE", "t", "nosuch", "10")
        r("SP.EXPIRE", "t", "note", "abc")
        r("SP.EXPIRE", "t", "note", "9223372036854775807")
        r("SP.PEXPIRE", "t", "note", "9223372036854775807")
        r("SP.TTL", "t", "nosuch")
        r("SP.PTTL", "nopad", "x")
        r("SP.WRITE", "t", "other", "x")
        r("SP.PEXPIRE", "t", "note", "0")
        r("SP.READ", "t", "note")
        r("SP.TTL", "t", "note")
        r("SP.EXPIRE", "t", "other", "-1")
        r("EXISTS", "t")
        r("CONFIG", "SET", "sp-default-ttl", "3600")
        r("SP.WRITE", "t", "scratch", "temporary")
        r("SP.TTL", "t", "scratch")
        r("SP.APPEND", "t", "scratch2", "x")
        r("SP.TTL", "t", "scratch2")
        r("CONFIG", "SET", "sp-default-ttl", "0")
        # SP.DEL
        r("SP.WRITE", "d", "a", "1")
        r("SP.WRITE", "d", "b", "2")
        r("SP.DEL", "d", "a", "nosuch")
        r("SP.DEL", "d", "b", "bad name")
        r("SP.DEL", "d", "b")
        r("EXISTS", "d")
        r("SP.DEL", "nopad", "x")
        # SP.INFO
        r("SP.INFO", "p")
        r("SP.INFO", "r")
        r("SP.INFO", "nopad")
        # key commands on scratchpads
        r("COPY", "p", "p:copy")
        r("SP.WRITE", "p:copy", "plan", "copied and changed")
        r("SP.READ", "p", "plan")
        r("SP.READ", "p:copy", "log", "LINES", "-2", "-1")
        r("RENAME", "p:copy", "p:renamed")
        r("EXPIRE", "p:renamed", "5000")
        r("TTL", "p:renamed")
        r("MOVE", "p:renamed", "5")
        r("OBJECT", "ENCODING", "p")
        r("MEMORY", "USAGE", "p")
        r("TYPE", "p")
        r("SET", "o", "a string now")
        r("TYPE", "o")

    def sp_errors(self):
        r = self.r
        for name in ("my notes", "a//b", "/a", "a/", "../x", "notes/../plan", ".", "", "x" * 256,
                     b"\x01ctl", "é"):
            r("SP.WRITE", "n", name, "x")
            r("SP.READ", "n", name)
        r("SP.WRITE", "n", "x" * 255, "longest name")
        for opts in (["EX", "0"], ["EX", "-1"], ["EX", "abc"], ["PX", "0"], ["EX", "10", "PX", "10"],
                     ["EX", "10", "KEEPTTL"], ["NX", "XX"], ["KIND", "foo"], ["IFVERSION", "-1"],
                     ["IFVERSION", "abc"], ["BOGUS"], ["NX", "NX"], ["KIND"], ["EX", "9223372036854775807"],
                     ["KIND", "text", "KIND", "binary"]):
            r("SP.WRITE", "n", "e", "x", *opts)

    def multi(self):
        r = self.r
        r("MULTI")
        r("SET", "tx:a", "1")
        r("INCR", "tx:a")
        r("SP.WRITE", "tx", "log", "started\n")
        r("SP.APPEND", "tx", "log", "step 1 done\n")
        r("SP.WRITE", "tx", "log", "overwrite", "IFVERSION", "1")
        r("SP.STAT", "tx", "log")
        r("TTL", "tx:a")
        r("EXEC")
        r("MULTI")
        r("MULTI")
        r("SET", "tx:b", "1")
        r("DISCARD")
        r("GET", "tx:b")
        r("EXEC")
        r("DISCARD")
        r("MULTI")
        r("SET", "tx:c")
        r("NOSUCHCMD")
        r("SET", "tx:c", "1")
        r("EXEC")
        r("GET", "tx:c")
        r("MULTI")
        r("WATCH", "tx:a")
        r("SET", "tx:c", "x", "BOGUS")
        r("EXEC")
        r("WATCH", "tx:a", "tx:pad")
        r("SET", "tx:a", "changed", c=1)
        r("MULTI")
        r("GET", "tx:a")
        r("EXEC")
        r("WATCH", "tx:a")
        r("UNWATCH")
        r("SET", "tx:a", "changed again", c=1)
        r("MULTI")
        r("GET", "tx:a")
        r("EXEC")
        r("WATCH", "tx")
        r("SP.APPEND", "tx", "log", "other agent\n", c=1)
        r("MULTI")
        r("SP.READ", "tx", "log")
        r("EXEC")
        r("WATCH", "tx:none")
        r("MULTI")
        r("SET", "tx:d", "ok")
        r("EXEC")
        r("MULTI")
        r("SELECT", "1")
        r("SET", "tx:db1", "x")
        r("SELECT", "0")
        r("EXEC")
        r("MULTI")
        r("PING")
        r("ECHO", "in tx")
        r("CLIENT", "ID")
        r("HELLO", "2")
        r("EXEC")
        r("MULTI", "x")
        r("EXEC", "x")
        r("WATCH")
        r("MULTI")
        r("SET", "tx:e", "1")
        r("RESET")
        r("GET", "tx:e")

    def command(self):
        r = self.r
        r("COMMAND")
        r("COMMAND", "COUNT")
        r("COMMAND", "LIST")
        r("COMMAND", "LIST", "FILTERBY", "ACLCAT", "string")
        r("COMMAND", "LIST", "FILTERBY", "ACLCAT", "keyspace")
        r("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuchcat")
        r("COMMAND", "LIST", "FILTERBY", "PATTERN", "sp.*")
        r("COMMAND", "LIST", "FILTERBY", "PATTERN", "*|*")
        r("COMMAND", "LIST", "FILTERBY", "MODULE", "x")
        r("COMMAND", "LIST", "FILTERBY", "BOGUS", "x")
        r("COMMAND", "LIST", "BOGUS")
        r("COMMAND", "INFO")
        r("COMMAND", "INFO", "get", "SET", "sp.write", "nosuch", "config|get", "CLIENT|kill")
        r("COMMAND", "DOCS")
        r("COMMAND", "DOCS", "get", "sp.grep", "nosuch", "slowlog|get", "memory")
        r("COMMAND", "HELP")
        r("COMMAND", "NOSUCH")
        r("COMMAND", "COUNT", "x")
        for args in (["GET", "k"], ["SET", "k", "v"], ["MSET", "a", "1", "b", "2"], ["MGET", "a", "b", "c"],
                     ["DEL", "a", "b"], ["RENAME", "a", "b"], ["COPY", "a", "b", "DB", "1"], ["LCS", "a", "b"],
                     ["SP.WRITE", "ns", "e", "x"], ["SP.READ", "ns", "e"], ["SP.LIST", "ns"],
                     ["SP.DEL", "ns", "a", "b"], ["SP.GREP", "ns", "e", "p"], ["SP.OFFLOAD", "ns", "c"],
                     ["SP.INFO", "ns"], ["EXPIRE", "k", "1"], ["OBJECT", "ENCODING", "k"],
                     ["MEMORY", "USAGE", "k"], ["WATCH", "a", "b"], ["TOUCH", "a"], ["GETEX", "k", "EX", "1"],
                     ["MSETNX", "a", "1", "b", "2"], ["SCAN", "0"], ["PING"], ["SET", "k"], ["NOSUCH", "k"],
                     ["GET"], ["MSET", "a"], ["SWAPDB", "0", "1"], ["APPEND", "k", "v"]):
            r("COMMAND", "GETKEYS", *args)
            r("COMMAND", "GETKEYSANDFLAGS", *args)
        r("COMMAND", "GETKEYS")

    def config_slowlog_info(self):
        r = self.r
        r("CONFIG", "GET", "*")
        r("CONFIG", "GET", "maxmemory")
        r("CONFIG", "GET", "sp-*", "compress-*")
        r("CONFIG", "GET", "nosuch")
        r("CONFIG", "GET", "MAXMEMORY", "maxmemory")
        r("CONFIG", "SET", "maxmemory", "2gb")
        r("CONFIG", "GET", "maxmemory")
        r("CONFIG", "SET", "maxmemory", "abc")
        r("CONFIG", "SET", "nosuch", "1")
        r("CONFIG", "SET", "maxmemory", "1", "maxmemory", "2")
        r("CONFIG", "SET", "hz", "20", "compress-threshold", "bogus")
        r("CONFIG", "GET", "hz")
        r("CONFIG", "SET", "maxmemory", "1")
        r("SET", "oom", "x")
        r("SP.WRITE", "oom", "e", "x")
        r("APPEND", "s:a", "more")
        r("GET", "s:a")
        r("DEL", "oom")
        r("SP.DEL", "p", "nosuch")
        r("CONFIG", "SET", "maxmemory", "0")
        r("CONFIG", "SET", "appendfsync", "always")
        r("SET", "fsync:always", "1")
        r("CONFIG", "SET", "appendfsync", "everysec")
        r("CONFIG", "SET", "appendfsync", "bogus")
        r("CONFIG", "SET", "save", "900 1")
        r("CONFIG", "SET", "save", "")
        r("CONFIG", "SET", "port", "1")
        r("CONFIG", "SET", "dir", "/tmp")
        r("CONFIG", "SET", "databases", "4")
        for name, orig in (("hz", "10"), ("compress-threshold", "4096"), ("compress-chunk", "65536"),
                           ("compress-write-acceleration", "2"), ("sp-offload-threshold", "4096"),
                           ("sp-grep-max-time", "250"), ("sp-grep-match-limit", "1000000"),
                           ("slowlog-max-len", "128"), ("timeout", "0"), ("proto-max-bulk-len", "536870912"),
                           ("aof-rewrite-step-us", "1000"), ("auto-aof-rewrite-percentage", "100"),
                           ("tcp-keepalive", "300"), ("loglevel", "notice"), ("maxmemory-policy", "noeviction")):
            r("CONFIG", "SET", name, "abc")
            r("CONFIG", "SET", name, "-5")
            r("CONFIG", "SET", name, "99999999999999999999")
            r("CONFIG", "SET", name, orig)
        r("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
        r("CONFIG", "GET", "*")
        r("CONFIG", "RESETSTAT")
        r("CONFIG", "HELP")
        r("CONFIG", "NOSUCH")
        r("CONFIG", "GET")
        r("CONFIG", "SET", "hz")
        r("SLOWLOG", "LEN")
        r("SLOWLOG", "GET", "3")
        r("SLOWLOG", "GET", "-1")
        r("SLOWLOG", "GET", "abc")
        r("SLOWLOG", "GET", "0")
        r("SLOWLOG", "RESET")
        r("SLOWLOG", "LEN")
        r("SET", "slow:1", "x")
        r("SLOWLOG", "GET")
        r("SLOWLOG", "HELP")
        r("SLOWLOG", "NOSUCH")
        r("SLOWLOG", "LEN", "x")
        r("CONFIG", "SET", "slowlog-max-len", "2")
        r("PING")
        r("PING")
        r("PING")
        r("SLOWLOG", "LEN")
        r("CONFIG", "SET", "slowlog-max-len", "128")
        r("INFO")
        r("INFO", "errorstats")
        r("INFO", "keyspace")
        r("INFO", "server", "clients")
        r("INFO", "all")
        r("INFO", "everything")
        r("INFO", "commandstats")
        r("INFO", "nosuch")
        r("INFO", "default")

    def debug(self):
        r = self.r
        r("DEBUG", "HELP")
        r("DEBUG", "SLEEP", "0")
        r("DEBUG", "SLEEP", "0.01")
        r("DEBUG", "SLEEP", "abc")
        r("DEBUG", "NOSUCH")
        r("DEBUG", "OBJECT", "s:a")
        r("SET", "dbg:big", self.big_text(150000))
        self.op("settle")
        r("DEBUG", "LZ4-CORRUPT", "dbg:big", "1")
        r("GETRANGE", "dbg:big", "0", "10")
        r("GETRANGE", "dbg:big", "70000", "70010")
        r("GET", "dbg:big")
        r("DEL", "dbg:big")
        r("DEBUG", "LZ4-CORRUPT", "dbg:big", "0")
        r("SP.WRITE", "dbg:pad", "log", self.big_text(150000))
        r("DEBUG", "LZ4-CORRUPT", "dbg:pad", "log", "1")
        r("SP.READ", "dbg:pad", "log", "HEAD", "10")
        r("SP.READ", "dbg:pad", "log", "OFFSET", "70000", "LIMIT", "10")
        r("SP.GREP", "dbg:pad", "log", "ERROR", "MAX", "100000")
        r("SP.STAT", "dbg:pad", "log")
        r("DEL", "dbg:pad")
        r("DEBUG", "LZ4-CORRUPT", "s:a", "0")
        r("DEBUG", "LZ4-CORRUPT", "p", "nosuch", "0")
        r("DEBUG", "LZ4-CORRUPT", "big", "999")

    # every command's arity as the tables give it (COMMAND INFO's second field)
    ARITY = {"append": 3, "auth": -2, "bgrewriteaof": 1, "client": -2, "command": -1, "config": -2,
             "copy": -3, "dbsize": 1, "debug": -2, "decr": 2, "decrby": 3, "del": -2, "discard": 1,
             "echo": 2, "exec": 1, "exists": -2, "expire": -3, "expireat": -3, "expiretime": 2,
             "flushall": -1, "flushdb": -1, "get": 2, "getdel": 2, "getex": -2, "getrange": 4,
             "getset": 3, "hello": -1, "incr": 2, "incrby": 3, "incrbyfloat": 3, "info": -1, "keys": 2,
             "lastsave": 1, "lcs": -3, "memory": -2, "mget": -2, "move": 3, "mset": -3, "msetnx": -3,
             "multi": 1, "persist": 2, "pexpire": -3, "pexpireat": -3, "pexpiretime": 2, "ping": -1,
             "psetex": 4, "pttl": 2, "quit": -1, "randomkey": 1, "rename": 3, "renamenx": 3, "reset": 1,
             "scan": -2, "select": 2, "set": -3, "setex": 4, "setnx": 3, "setrange": 4, "shutdown": -1,
             "slowlog": -2, "sp.append": -4, "sp.del": -3, "sp.edit": -5, "sp.expire": 4, "sp.grep": -4,
             "sp.info": 2, "sp.insert": -5, "sp.list": -2, "sp.offload": -3, "sp.peek": -3,
             "sp.persist": 3, "sp.pexpire": 4, "sp.pttl": 3, "sp.range": -4, "sp.read": -3, "sp.stat": 3,
             "sp.ttl": 3, "sp.write": -4, "strlen": 2, "substr": 4, "swapdb": 3, "time": 1, "touch": -2,
             "ttl": 2, "type": 2, "unlink": -2, "unwatch": 1, "watch": -2}
    SUBCOMMANDS = {"client": {"id": 2, "setname": 3, "getname": 2, "list": -2, "info": 2, "kill": -3,
                              "setinfo": 4, "reply": 3, "help": 2},
                   "command": {"count": 2, "docs": -2, "getkeys": -3, "getkeysandflags": -3, "help": 2,
                               "info": -2, "list": -2},
                   "config": {"get": -3, "set": -4, "resetstat": 2, "help": 2},
                   "memory": {"doctor": 2, "help": 2, "malloc-stats": 2, "purge": 2, "stats": 2, "usage": -3},
                   "object": {"encoding": 3, "freq": 3, "refcount": 3, "help": 2},
                   "slowlog": {"get": -2, "len": 2, "reset": 2, "help": 2}}

    def arity_and_unknown(self):
        r = self.r
        for name, ar in sorted(self.ARITY.items()):
            need = abs(ar)
            if need > 1:
                r(name, *["a%d" % i for i in range(need - 2)])
            if ar > 0 and name not in ("quit", "shutdown"):
                r(name, *["a%d" % i for i in range(need)])
        for parent, subs in sorted(self.SUBCOMMANDS.items()):
            for sub, ar in sorted(subs.items()):
                need = abs(ar)
                if need > 2:
                    r(parent, sub.upper(), *["a%d" % i for i in range(need - 3)])
                if ar > 0 and not (parent == "client" and sub == "reply"):
                    r(parent, sub, *["a%d" % i for i in range(need - 1)])
            r(parent, "nosuch-sub", "x")
        r("NOSUCH")
        r("nosuch", "a", "b c")
        r("x" * 200, "y" * 200)
        r("")
        r("sp.nosuch", "ns")
        r("GET\x00", "k")

    def wrongtype(self):
        r = self.r
        r("SP.WRITE", "wt:pad", "e", "content")
        r("SET", "wt:str", "content")
        for args in (["GET"], ["APPEND", "x"], ["STRLEN"], ["GETRANGE", "0", "1"], ["SETRANGE", "0", "x"],
                     ["INCR"], ["DECRBY", "1"], ["INCRBYFLOAT", "1"], ["GETSET", "x"], ["GETDEL"],
                     ["GETEX"], ["SET", "x", "GET"], ["SUBSTR", "0", "1"], ["SETNX", "x"]):
            r(args[0], "wt:pad", *args[1:])
        r("MGET", "wt:pad", "wt:str")
        for args in (["SP.WRITE", "e", "x"], ["SP.APPEND", "e", "x"], ["SP.READ", "e"], ["SP.RANGE", "e", "0"],
                     ["SP.GREP", "e", "x"], ["SP.LIST"], ["SP.EDIT", "e", "a", "b"], ["SP.INSERT", "e", "0", "x"],
                     ["SP.DEL", "e"], ["SP.STAT", "e"], ["SP.PEEK", "e"], ["SP.OFFLOAD", "x"],
                     ["SP.EXPIRE", "e", "10"], ["SP.PEXPIRE", "e", "10"], ["SP.TTL", "e"], ["SP.PTTL", "e"],
                     ["SP.PERSIST", "e"], ["SP.INFO"]):
            r(args[0], "wt:str", *args[1:])
        r("SET", "wt:pad", "replaced by a string")
        r("TYPE", "wt:pad")

    def protocol(self):
        raw = self.raw
        raw(b"PING\r\n")
        raw(b"ECHO \"a b\" 'c d'\r\n")
        raw(b"SET inl \"with\\x41hex\\n\"\r\nGET inl\r\n", n=2)
        raw(b"\r\n", n=0)
        raw(b"*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$1\r\nx\r\n*3\r\n$3\r\nSET\r\n$2\r\npp\r\n$1\r\n1\r\n", n=3)
        raw(b"*0\r\n", n=0)
        raw(b"*-1\r\n", n=0)
        raw(b"PING\n")
        raw(b"*1\r\n$999999999999\r\n", close=True)
        self.op("reconnect", c=1)
        raw(b"*abc\r\n", close=True)
        self.op("reconnect", c=1)
        raw(b"*1\r\nfoo\r\n", close=True)
        self.op("reconnect", c=1)
        raw(b"ECHO \"abc\r\n", close=True)
        self.op("reconnect", c=1)
        raw(b"*2\r\n$4\r\nECHO\r\n$3\r\nabcXY", close=True)
        self.op("reconnect", c=1)
        raw(b"*99999999\r\n", close=True)
        self.op("reconnect", c=1)
        self.r("PING", c=1)

    def rewrite(self):
        r = self.r
        r("BGREWRITEAOF")
        for i in range(30):
            r("SET", "rw:%d" % i, "during the rewrite %d" % i)
            r("SP.APPEND", "rw", "log", "line %d\n" % i)
        r("DEL", "rw:3")
        self.op("wait_rewrite")
        r("SET", "rw:after", "1")
        r("GET", "rw:5")

    def resp3(self):
        r = self.r
        r("HELLO", "3")
        r("GET", "s:missing")
        r("GET", "s:a")
        r("MGET", "s:a", "s:missing")
        r("INCRBYFLOAT", "n:f", "1.5")
        r("SET", "r3:k", "v", "GET")
        r("SP.STAT", "p", "plan")
        r("SP.STAT", "p", "nosuch")
        r("SP.INFO", "p")
        r("SP.INFO", "nopad")
        r("SP.READ", "r", "f", "LINES", "1", "2", "WITHMETA")
        r("SP.READ", "r", "t", "OFFSET", "12", "LIMIT", "6", "WITHMETA")
        r("SP.READ", "r", "nosuch")
        r("SP.LIST", "l", "WITHMETA", "COUNT", "2")
        r("SP.GREP", "gr", "log", "o", "MAX", "1", "WITHMETA")
        r("SP.GREP", "gr", "log", "nomatch")
        r("SP.OFFLOAD", "r3:o", "small")
        r("SP.OFFLOAD", "r3:o", "0123456789abcdefghij", "THRESHOLD", "10")
        r("SP.PEEK", "p", "nosuch")
        r("SP.RANGE", "p", "nosuch", "0")
        r("CONFIG", "GET", "maxmemory", "hz")
        r("CONFIG", "GET", "*")
        r("COMMAND", "INFO", "get", "nosuch")
        r("COMMAND", "DOCS", "get", "sp.read")
        r("COMMAND", "DOCS")
        r("COMMAND")
        r("COMMAND", "GETKEYSANDFLAGS", "SET", "a", "b")
        r("COMMAND", "LIST", "FILTERBY", "PATTERN", "sp.*")
        r("MEMORY", "STATS")
        r("MEMORY", "DOCTOR")
        r("INFO", "server")
        r("INFO", "keyspace")
        r("CLIENT", "INFO")
        r("CLIENT", "LIST", "ID", "{ID:0}")
        r("CLIENT", "GETNAME")
        r("LCS", "l:a", "l:b", "IDX", "WITHMATCHLEN")
        r("SCAN", "0", "COUNT", "10000", "TYPE", "scratchpad")
        r("KEYS", "s:*")
        r("SLOWLOG", "GET", "2")
        r("OBJECT", "HELP")
        r("TIME")
        r("EXISTS", "s:a")
        r("TTL", "s:px")
        r("PING")
        r("ECHO", "three")
        r("MULTI")
        r("SP.STAT", "p", "utf")
        r("SP.INFO", "r")
        r("GET", "s:missing")
        r("EXEC")
        r("EXEC")
        r("NOSUCH")
        r("HELLO")
        r("HELLO", "3", "SETNAME", "three")
        r("HELLO", "2")
        r("GET", "s:missing")

    # random part: templates over a small keyspace
    def random_part(self):
        rng = self.rng
        skeys = ["r:s%d" % i for i in range(8)]
        pads = ["r:p%d" % i for i in range(5)]
        ents = ["e%d" % i for i in range(5)] + ["d/x.md", "obs-1"]
        allkeys = skeys + pads + ["r:none"]

        def sk():
            return rng.choice(skeys)

        def pk():
            return rng.choice(pads)

        def en():
            return rng.choice(ents)

        def ak():
            return rng.choice(allkeys)

        def num(lo=-5, hi=100):
            return str(rng.randrange(lo, hi))

        def ttl_opt():
            return rng.choice([[], [], ["EX", str(rng.randrange(1000, 100000))],
                               ["PX", str(rng.randrange(1000000, 10000000))], ["KEEPTTL"]])

        templates = [
            (8, lambda: ["SET", sk(), self.value()] + ttl_opt() + rng.choice([[], [], ["NX"], ["XX"], ["GET"]])),
            (6, lambda: ["GET", ak()]),
            (2, lambda: ["MSET", sk(), self.value(), sk(), self.value()]),
            (2, lambda: ["MGET", ak(), ak(), ak()]),
            (3, lambda: [rng.choice(["INCR", "DECR"]), sk()]),
            (2, lambda: [rng.choice(["INCRBY", "DECRBY"]), sk(), num(-1000, 1000)]),
            (1, lambda: ["INCRBYFLOAT", sk(), rng.choice(["0.5", "-1.25", "3", "1e3", "x"])]),
            (4, lambda: ["APPEND", sk(), self.value()]),
            (2, lambda: ["GETRANGE", sk(), num(-300, 300), num(-300, 70000)]),
            (2, lambda: ["SETRANGE", sk(), num(0, 80000), self.text(3)]),
            (1, lambda: ["STRLEN", ak()]),
            (1, lambda: ["GETDEL", sk()]),
            (1, lambda: ["GETEX", sk()] + rng.choice([[], ["PERSIST"], ["EX", "5000"], ["PXAT", "4102444800000"]])),
            (1, lambda: ["LCS", sk(), sk()] + rng.choice([[], ["LEN"], ["IDX", "MINMATCHLEN", "2"]])),
            (2, lambda: ["DEL", ak(), ak()]),
            (2, lambda: ["EXISTS", ak(), ak()]),
            (2, lambda: ["TYPE", ak()]),
            (1, lambda: ["RENAME", ak(), ak()]),
            (1, lambda: ["COPY", ak(), ak()] + rng.choice([[], ["REPLACE"]])),
            (2, lambda: ["EXPIRE", ak(), str(rng.randrange(1000, 100000))] + rng.choice([[], ["NX"], ["GT"], ["LT"], ["XX"]])),
            (1, lambda: ["PERSIST", ak()]),
            (2, lambda: [rng.choice(["TTL", "PTTL", "EXPIRETIME"]), ak()]),
            (1, lambda: ["OBJECT", "ENCODING", ak()]),
            (1, lambda: ["MEMORY", "USAGE", ak()]),
            (1, lambda: ["DBSIZE"]),
            (8, lambda: ["SP.WRITE", pk(), en(), self.value()] + ttl_opt()
             + rng.choice([[], [], ["NX"], ["XX"], ["KIND", "binary"], ["IFVERSION", num(0, 4)]])),
            (5, lambda: ["SP.APPEND", pk(), en(), self.value()]),
            (6, lambda: ["SP.READ", pk(), en()] + rng.choice(
                [[], ["HEAD", num(0, 50)], ["TAIL", num(0, 50)], ["OFFSET", num(0, 70000), "LIMIT", num(0, 100)],
                 ["LINES", num(-5, 10), num(-5, 2000)], ["HEAD", num(0, 20), "BYTES"], ["WITHMETA"],
                 ["OFFSET", num(0, 30), "WITHMETA"]])),
            (3, lambda: ["SP.RANGE", pk(), en(), num(-100, 100)] + rng.choice([[], [num(-100, 70000)], ["BYTES"]])),
            (3, lambda: ["SP.GREP", pk(), en(), rng.choice(["a", "ERROR", "\\d+", "^line", "é", "x$", "(?i)info"])]
             + rng.choice([[], ["MAX", num(0, 5)], ["CONTEXT", num(0, 3)], ["NOCASE"], ["LITERAL"], ["WITHMETA"]])),
            (2, lambda: ["SP.LIST", pk()] + rng.choice([[], ["WITHMETA"], ["COUNT", num(1, 4)], ["MATCH", "e*"]])),
            (2, lambda: ["SP.EDIT", pk(), en(), rng.choice(["a", "e", "line", "ERROR", "✓"]),
                         rng.choice(["A", "", "éé", "x"])] + rng.choice([[], ["ALL"]])),
            (2, lambda: ["SP.INSERT", pk(), en(), num(-2, 10), self.text(3)]),
            (2, lambda: ["SP.DEL", pk(), en()]),
            (2, lambda: ["SP.STAT", pk(), en()]),
            (2, lambda: ["SP.PEEK", pk(), en()] + rng.choice([[], ["HEAD", num(0, 30), "TAIL", num(0, 30)]])),
            (1, lambda: ["SP.OFFLOAD", pk(), self.value(), "THRESHOLD", num(0, 100)]),
            (1, lambda: ["SP.EXPIRE", pk(), en(), str(rng.randrange(1000, 100000))]),
            (1, lambda: [rng.choice(["SP.TTL", "SP.PTTL", "SP.PERSIST"]), pk(), en()]),
            (1, lambda: ["SP.INFO", pk()]),
        ]
        total = sum(w for w, _ in templates)
        for _ in range(self.count):
            if rng.random() < 0.03:
                self.r("MULTI")
                for _ in range(rng.randrange(1, 4)):
                    self.pick(templates, total)
                self.r(rng.choice(["EXEC", "EXEC", "DISCARD"]))
                continue
            self.pick(templates, total)

    def pick(self, templates, total):
        """Append one random request (after a settle op if its reply shows encodings)."""
        x = self.rng.randrange(total)
        fn = templates[-1][1]
        for w, f in templates:
            if x < w:
                fn = f
                break
            x -= w
        args = fn()
        if args[0] in ("OBJECT", "MEMORY"):
            self.op("settle")
        self.r(*args)

    def ending(self):
        r = self.r
        r("DBSIZE")
        r("SLOWLOG", "LEN")
        r("INFO", "errorstats")
        r("INFO", "keyspace")
        r("PING")
        r("PING", c=1)


def items_to_lines(seed, count, items):
    out = [json.dumps({"seed": seed, "count": count, "version": 1})]
    for it in items:
        o = dict(it)
        if "a" in o:
            o["a"] = [a.decode("latin-1") for a in o["a"]]
        if "raw" in o:
            o["raw"] = o["raw"].decode("latin-1")
        out.append(json.dumps(o))
    return "\n".join(out) + "\n"


def lines_to_items(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    head = json.loads(lines[0])
    items = []
    for ln in lines[1:]:
        o = json.loads(ln)
        if "a" in o:
            o["a"] = [a.encode("latin-1") for a in o["a"]]
        if "raw" in o:
            o["raw"] = o["raw"].encode("latin-1")
        items.append(o)
    return head, items


# ---------------------------------------------------------------- normalising

TS_KEYS = {b"created", b"updated", b"oldest_update", b"newest_update"}
ALLOC_EXACT = [False]   # --alloc-exact
ALLOC_INEXACT = [0, 0]  # allocator figures not equal; figures seen on both servers together


class Ctx:
    """Per-server facts the rules need."""

    def __init__(self, tol_ms):
        self.base_id = None
        self.tol_ms = tol_ms


def tol(node, ctx, seconds=False):
    """A tolerance marker for a non-negative integer node."""
    if node[0] == ":" and node[1] is not None:
        v = int(node[1])
        if v >= 0:
            return ("~", v, (ctx.tol_ms // 1000 + 1) if seconds else ctx.tol_ms)
    return node


def shape(node):
    """The node with every leaf reduced to its type (digits masked in text)."""
    t, v = node[0], node[1]
    if isinstance(v, list):
        if t in "%":
            return (t, [shape(x) if i % 2 else x for i, x in enumerate(v)])
        return (t, [shape(x) for x in v])
    if t in "+$=" and v is not None:
        return (t, re.sub(rb"[0-9]+", b"#", v))
    return (t, "?" if v is not None else None)


def alloc(node):
    """An allocator figure: any integer matches it (unless --alloc-exact); the
    summary counts those that were not equal."""
    if node[0] == ":" and node[1] is not None and not ALLOC_EXACT[0]:
        ALLOC_INEXACT[1] += 1
        return ("%", int(node[1]))
    return node


def map_times(node, ctx):
    """Tolerance on the values after time keys, and on the allocator figures after
    "stored" and "stored_bytes", at any depth (maps and flat arrays); SP.INFO's
    compression_ratio is checked against its own bytes / stored_bytes."""
    t, v = node[0], node[1]
    if not isinstance(v, list):
        return node
    out = [map_times(x, ctx) for x in v]
    fields = {}
    for i in range(len(out) - 1):
        k = out[i]
        if k[0] in "+$" and isinstance(k[1], bytes):
            fields[k[1]] = i + 1
            if out[i + 1][0] != ":":
                continue
            if k[1] in TS_KEYS or k[1] == b"ttl":
                out[i + 1] = tol(out[i + 1], ctx)
            elif k[1] in (b"stored", b"stored_bytes"):
                out[i + 1] = alloc(out[i + 1])
    if b"compression_ratio" in fields and b"bytes" in fields and b"stored_bytes" in fields:
        i = fields[b"compression_ratio"]
        try:
            ratio = float(out[i][1])
            want = int(v[fields[b"bytes"]][1]) / int(v[fields[b"stored_bytes"]][1])
            ok = abs(ratio - want) <= 1e-12 * max(1.0, want)
        except (TypeError, ValueError, ZeroDivisionError):
            ok = False
        out[i] = (out[i][0], "bytes/stored_bytes" if ok else out[i][1])
    return (t, out)


def id_offset(node, ctx):
    if node[0] == ":" and ctx.base_id is not None:
        return ("@", int(node[1]) - ctx.base_id)
    return node


CLIENT_MASK = {b"addr", b"laddr", b"fd", b"age", b"idle", b"qbuf", b"qbuf-free", b"rbs", b"rbp", b"argv-mem",
               b"multi-mem", b"obl", b"oll", b"omem", b"tot-mem", b"events"}


def client_text(node, ctx):
    if node[0] not in "$=" or node[1] is None:
        return node
    lines = []
    for line in node[1].split(b"\n"):
        fields = []
        for f in line.split(b" "):
            k, eq, val = f.partition(b"=")
            if eq and k in CLIENT_MASK:
                val = b"*"
            elif eq and k == b"id" and ctx.base_id is not None and val.isdigit():
                val = b"@%d" % (int(val) - ctx.base_id)
            fields.append(k + eq + val)
        lines.append(b" ".join(fields))
    return (node[0], b"\n".join(lines))


def info_text(node, ctx):
    if node[0] not in "$=" or node[1] is None:
        return node
    out = []
    section = b""
    for line in node[1].split(b"\r\n"):
        if line.startswith(b"#"):
            section = line.strip().lower()
            out.append(line)
            continue
        k, colon, val = line.partition(b":")
        if not colon or k == b"txt":
            out.append(line)
        elif section == b"# errorstats":
            out.append(line)
        elif section == b"# keyspace":
            out.append(k + b":" + re.sub(rb"avg_ttl=\d+", b"avg_ttl=*", val))
        else:
            out.append(k + b":*")
    return (node[0], b"\r\n".join(out))


def sorted_array(node):
    if node[0] in "*~" and isinstance(node[1], list):
        return (node[0], sorted(node[1], key=lambda x: repr(x)))
    return node


def scan_reply(node):
    if node[0] == "*" and isinstance(node[1], list) and len(node[1]) == 2:
        return (node[0], [node[1][0], sorted_array(node[1][1])])
    return node


def slowlog_get(node, ctx):
    if node[0] not in "*" or not isinstance(node[1], list):
        return node
    out = []
    for e in node[1]:
        if e[0] == "*" and isinstance(e[1], list) and len(e[1]) >= 6:
            f = list(e[1])
            f[0] = (f[0][0], "?")
            f[1] = tol(f[1], ctx, seconds=True)
            f[2] = (f[2][0], "?")
            f[4] = (f[4][0], "*")
            e = (e[0], f)
        out.append(e)
    return (node[0], out)


def config_get(node):
    if node[0] in "*%" and isinstance(node[1], list):
        v = list(node[1])
        for i in range(0, len(v) - 1, 2):
            if v[i][1] == b"port":
                v[i + 1] = (v[i + 1][0], b"*")
        return (node[0], v)
    return node


def rule_of(args):
    """The rule's name for a request (see the header)."""
    if not args:
        return "exact"
    name = args[0].upper()
    sub = args[1].upper() if len(args) > 1 else b""
    if name in (b"TTL", b"EXPIRETIME", b"SP.TTL"):
        return "ttl_s"
    if name in (b"PTTL", b"PEXPIRETIME", b"SP.PTTL"):
        return "ttl_ms"
    if name in (b"SP.STAT", b"SP.LIST", b"SP.INFO"):
        return "times"
    if name == b"TIME":
        return "shape"
    if name in (b"LASTSAVE", b"RANDOMKEY"):
        return "type"
    if name == b"HELLO":
        return "hello"
    if name == b"CLIENT" and sub == b"ID":
        return "client_id"
    if name == b"CLIENT" and sub in (b"LIST", b"INFO"):
        return "client_text"
    if name == b"INFO":
        return "info"
    if name == b"MEMORY" and sub in (b"STATS", b"DOCTOR", b"MALLOC-STATS"):
        return "shape"
    if name == b"MEMORY" and sub == b"USAGE":
        return "alloc"
    if name == b"KEYS":
        return "sorted"
    if name == b"SCAN":
        return "scan"
    if name == b"SLOWLOG" and sub == b"GET":
        return "slowlog"
    if name == b"CONFIG" and sub == b"GET":
        return "config_get"
    return "exact"


def hello_map(node, ctx):
    if node[0] in "*%" and isinstance(node[1], list):
        v = list(node[1])
        for i in range(0, len(v) - 1, 2):
            if v[i][1] == b"id":
                v[i + 1] = id_offset(v[i + 1], ctx)
        return (node[0], v)
    return node


def normalise(node, rule, ctx):
    if rule == "exact":
        return node
    if rule == "ttl_s":
        return tol(node, ctx, seconds=True)
    if rule == "ttl_ms":
        return tol(node, ctx)
    if rule == "times":
        return map_times(node, ctx)
    if rule == "shape":
        return shape(node)
    if rule == "type":
        return (node[0], "?" if node[1] is not None else None)
    if rule == "hello":
        return hello_map(node, ctx)
    if rule == "client_id":
        return id_offset(node, ctx)
    if rule == "client_text":
        return client_text(node, ctx)
    if rule == "info":
        return info_text(node, ctx)
    if rule == "alloc":
        return alloc(node)
    if rule == "sorted":
        return sorted_array(node)
    if rule == "scan":
        return scan_reply(node)
    if rule == "slowlog":
        return slowlog_get(node, ctx)
    if rule == "config_get":
        return config_get(node)
    raise ValueError(rule)


def same(a, b):
    """Structural equality where "~" markers match within their tolerance."""
    if a[0] == "~" and b[0] == "~":
        return abs(a[1] - b[1]) <= a[2]
    if a[0] == "%" and b[0] == "%" and isinstance(a[1], int) and isinstance(b[1], int):
        if a[1] != b[1]:
            ALLOC_INEXACT[0] += 1
        return True
    if a[0] != b[0] or len(a) != len(b):
        return False
    if isinstance(a[1], list) and isinstance(b[1], list):
        return len(a[1]) == len(b[1]) and all(same(x, y) for x, y in zip(a[1], b[1]))
    return a == b


# ---------------------------------------------------------------- running

class Side:
    """One server and the tool's connections to it."""

    def __init__(self, label, binary, args, keep):
        self.label = label
        self.srv = spserver.Server(*args, binary=binary, start_timeout=30.0)
        self.keep = keep
        self.conns = {}
        self.ctx = None
        self.multi = {}

    def start(self):
        self.srv.start()

    def conn(self, c):
        cn = self.conns.get(c)
        if cn is None or cn.closed:
            if cn is not None:
                cn.close()
            cn = Conn(self.srv.port)
            node = cn.call("CLIENT", "ID")
            cn.id = int(node[1]) if node[0] == ":" else None
            if self.ctx.base_id is None:
                self.ctx.base_id = cn.id
            self.conns[c] = cn
            self.multi[c] = None
        return cn

    def close_all(self):
        for cn in self.conns.values():
            cn.close()
        self.conns = {}

    def subst(self, args):
        out = []
        for a in args:
            m = re.fullmatch(rb"\{(ID|ADDR):(\d+)\}", a)
            if m:
                cn = self.conn(int(m.group(2)))
                a = str(cn.id).encode() if m.group(1) == b"ID" else cn.addr.encode()
            out.append(a)
        return out

    def send(self, it):
        cn = self.conn(it["c"])
        if "raw" in it:
            cn.send(it["raw"])
        else:
            cn.send(encode(self.subst(it["a"])))

    def receive(self, it, shape_only):
        """(raw bytes, normalised node) of the item's replies."""
        c = it["c"]
        cn = self.conns[c]
        n = it.get("n", 1)
        raws, nodes = [], []
        for _ in range(n):
            raw, node = cn.read_reply()
            raws.append(raw)
            nodes.append(self.norm(c, it, node, shape_only))
            if node[0] in ("EOF", "TIMEOUT"):
                break
        if it.get("close") and not cn.closed:
            rest, node = cn.read_to_eof()
            raws.append(b"<" + node[0].encode() + b">" + rest)
            nodes.append(node)
        if n == 1 and not it.get("close"):
            return raws[0], nodes[0]
        return b"".join(raws), ("replies", nodes)

    def norm(self, c, it, node, shape_only):
        args = it.get("a")
        if args is None:
            return node
        rule = rule_of(args)
        key = args[0].upper()
        key2 = key + b" " + args[1].upper() if len(args) > 1 else key
        if key in shape_only or key2 in shape_only:
            rule = "shape"
        q = self.multi.get(c)
        name = args[0].upper()
        if name == b"EXEC":
            self.multi[c] = None
            if q is not None and node[0] in "*" and isinstance(node[1], list) and len(node[1]) == len(q):
                return (node[0], [normalise(x, rl, self.ctx) for x, rl in zip(node[1], q)])
            return node
        if name in (b"DISCARD", b"RESET"):
            self.multi[c] = None
        elif name == b"MULTI":
            if q is None and node == ("+", b"OK"):
                self.multi[c] = []
        elif q is not None and node == ("+", b"QUEUED"):
            q.append(rule)
            return node
        return normalise(node, rule, self.ctx)

    def scanall(self, c, opts):
        """Every key a full SCAN iteration returns, sorted, as a node."""
        cn = self.conn(c)
        cursor = b"0"
        keys = set()
        for _ in range(100000):
            node = cn.call("SCAN", cursor, *opts)
            if node[0] != "*" or not isinstance(node[1], list) or len(node[1]) != 2:
                return node
            cursor = node[1][0][1]
            for k in node[1][1][1]:
                keys.add(k[1])
            if cursor == b"0":
                break
        return ("*", [("$", k) for k in sorted(keys)])

    def settled(self):
        node = self.conn(99).call("INFO", "memory")
        return b"lz4_pending_values:0\r\n" in (node[1] or b"")

    def rewrite_done(self):
        node = self.conn(99).call("INFO", "persistence")
        text = node[1] or b""
        return b"aof_rewrite_in_progress:0" in text and b"aof_rewrite_scheduled:0" in text

    def stop(self):
        self.close_all()
        if self.keep:
            self.srv.own_dir = False
        self.srv.stop()


def first_diff(a, b, path):
    """(path, old part, new part) of the first place two normalised nodes differ."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) >= 2 and len(b) >= 2 and a[0] == b[0] \
            and isinstance(a[1], list) and isinstance(b[1], list):
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            if not same(x, y):
                return first_diff(x, y, "%s[%d]" % (path, i))
        if len(a[1]) != len(b[1]):
            return path + " (length)", len(a[1]), len(b[1])
    return path, a, b


def fmt(raw, limit=600):
    s = repr(raw)
    return s if len(s) <= limit else s[:limit] + "... (%d bytes)" % len(raw)


def req_text(it):
    if "raw" in it:
        return "conn %d raw %s" % (it["c"], fmt(it["raw"], 200))
    if "op" in it:
        return "conn %d %s %s" % (it.get("c", 0), it["op"], " ".join(a.decode("latin-1") for a in it.get("a", [])))
    parts = []
    for a in it["a"]:
        s = a.decode("latin-1")
        if len(s) > 60:
            s = s[:60] + "...(%d bytes)" % len(a)
        parts.append(repr(s) if (" " in s or not s or not s.isprintable()) else s)
    return "conn %d: %s" % (it["c"], " ".join(parts))


class Report:
    def __init__(self, show):
        self.show = show
        self.diffs = 0
        self.compared = 0

    def check(self, where, request, raw_old, node_old, raw_new, node_new):
        self.compared += 1
        if raw_old == raw_new or same(node_old, node_new):
            return True
        self.diffs += 1
        if self.diffs <= self.show:
            print("DIFF #%d at %s" % (self.diffs, where))
            print("  request: %s" % request)
            where_, x, y = first_diff(node_old, node_new, "")
            print("  first difference at reply element %s: old %s, new %s"
                  % (where_ or "(top)", fmt(repr(x).encode(), 300), fmt(repr(y).encode(), 300)))
            print("  old:     %s" % fmt(raw_old))
            print("  new:     %s" % fmt(raw_new))
            sys.stdout.flush()
        return False


def run_stream(items, old, new, rep, shape_only):
    for idx, it in enumerate(items):
        op = it.get("op")
        c = it.get("c", 0)
        if op == "reconnect":
            nodes = []
            for side in (old, new):
                cn = side.conns.get(c)
                if cn is not None:
                    rest, node = cn.read_to_eof(timeout=0.5) if cn.closed else (b"", ("OPEN", b""))
                    nodes.append((rest, node))
                    cn.close()
                else:
                    nodes.append((b"", ("OPEN", b"")))
            rep.check("item %d" % idx, req_text(it), nodes[0][0], nodes[0][1], nodes[1][0], nodes[1][1])
            continue
        if op == "wait_rewrite":
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not (old.rewrite_done() and new.rewrite_done()):
                time.sleep(0.05)
            continue
        if op == "settle":
            settle(old, new)
            continue
        if op == "scanall":
            a = old.scanall(c, it.get("a", []))
            b = new.scanall(c, it.get("a", []))
            rep.check("item %d" % idx, req_text(it), repr(a).encode(), a, repr(b).encode(), b)
            continue
        old.send(it)
        new.send(it)
        raw_a, node_a = old.receive(it, shape_only)
        raw_b, node_b = new.receive(it, shape_only)
        rep.check("item %d" % idx, req_text(it), raw_a, node_a, raw_b, node_b)


def settle(old, new, timeout=30.0):
    """Wait until neither server has a string queued for compression (the cron
    compresses them, at times that differ between the two), so that OBJECT
    ENCODING and MEMORY USAGE answer the same."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not (old.settled() and new.settled()):
        time.sleep(0.01)


def dump(side):
    """{label: (raw, node)} describing every database of side's server."""
    out = {}
    cn = Conn(side.srv.port)

    def put(label, *args, rule="exact"):
        cn.send(encode([B(a) for a in args]))
        raw, node = cn.read_reply()
        out[label] = (raw, normalise(node, rule, side.ctx))
        return node

    for db in range(DATABASES):
        cn.call("SELECT", db)
        put("db%d DBSIZE" % db, "DBSIZE")
        cursor = b"0"
        keys = set()
        for _ in range(100000):
            node = cn.call("SCAN", cursor, "COUNT", "1000")
            cursor = node[1][0][1]
            keys.update(k[1] for k in node[1][1][1])
            if cursor == b"0":
                break
        out["db%d keys" % db] = (b"", ("*", [("$", k) for k in sorted(keys)]))
        for k in sorted(keys):
            tag = "db%d %r" % (db, k)
            t = put(tag + " TYPE", "TYPE", k)
            put(tag + " PTTL", "PTTL", k, rule="ttl_ms")
            if t == ("+", b"string"):
                put(tag + " GET", "GET", k)
                put(tag + " OBJECT ENCODING", "OBJECT", "ENCODING", k)
                put(tag + " STRLEN", "STRLEN", k)
                continue
            put(tag + " SP.INFO", "SP.INFO", k, rule="times")
            cur = b"0"
            names = []
            for page in range(10000):
                node = put(tag + " SP.LIST page %d" % page, "SP.LIST", k, "WITHMETA", "COUNT", "100",
                           "CURSOR", cur, rule="times")
                if node[0] != "*" or len(node[1]) != 2:
                    break
                for e in node[1][1][1]:
                    names.append(e[1][1][1])
                cur = node[1][0][1]
                if cur == b"0":
                    break
            for name in names:
                put(tag + " %r SP.READ" % name, "SP.READ", k, name)
                put(tag + " %r SP.STAT" % name, "SP.STAT", k, name, rule="times")
                put(tag + " %r SP.PTTL" % name, "SP.PTTL", k, name, rule="ttl_ms")
    cn.close()
    return out


def compare_dumps(what, a, b, rep):
    for label in sorted(set(a) | set(b), key=lambda s: (s.split(" ")[0], s)):
        ra, na = a.get(label, (b"<absent>", ("absent",)))
        rb, nb = b.get(label, (b"<absent>", ("absent",)))
        if na[0] == "*" and label.endswith(" keys"):
            ra, rb = repr(na).encode(), repr(nb).encode()
        rep.check(what, label, ra, na, rb, nb)


def coverage(side, items):
    """(commands exercised, command count, subcommands exercised, subcommand count, missing)."""
    cn = Conn(side.srv.port)
    info = cn.call("COMMAND", "INFO")
    cn.close()
    names, subs = set(), set()
    for cmd in info[1]:
        names.add(cmd[1][0][1].lower())
        if len(cmd[1]) > 9 and isinstance(cmd[1][9][1], list):
            for s in cmd[1][9][1]:
                subs.add(s[1][0][1].lower())
    used, used_subs = set(), set()
    for it in items:
        if "a" not in it or "op" in it or not it["a"]:
            continue
        n = it["a"][0].lower()
        if n in names:
            used.add(n)
            if len(it["a"]) > 1:
                s = n + b"|" + it["a"][1].lower()
                if s in subs:
                    used_subs.add(s)
    missing = sorted(x.decode() for x in (names - used) | (subs - used_subs))
    return len(used), len(names), len(used_subs), len(subs), missing


def main():
    ap = argparse.ArgumentParser(description="Compare two scratchpad-server binaries on one request stream.")
    ap.add_argument("--old", required=True, help="the reference server binary")
    ap.add_argument("--new", default=os.path.join(spserver.TOP, "build", "scratchpad-server"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=2000, help="random requests after the fixed part")
    ap.add_argument("--record", help="write the stream to this file")
    ap.add_argument("--replay", help="read the stream from this file instead of generating it")
    ap.add_argument("--show", type=int, default=10, help="differences printed in full")
    ap.add_argument("--time-tolerance", type=int, default=5000, help="ms")
    ap.add_argument("--shape-only", action="append", default=[], help='e.g. "MEMORY USAGE"')
    ap.add_argument("--alloc-exact", action="store_true", help="compare allocator figures exactly")
    ap.add_argument("--server-arg", action="append", default=[])
    ap.add_argument("--no-dump", action="store_true")
    ap.add_argument("--keep", action="store_true")
    opt = ap.parse_args()

    for b in (opt.old, opt.new):
        if not os.access(b, os.X_OK):
            print("compare_servers: not an executable: %s" % b)
            return 2
    if opt.replay:
        with open(opt.replay, encoding="utf-8") as f:
            head, items = lines_to_items(f.read())
        seed, count = head.get("seed"), head.get("count")
        print("compare_servers: replaying %s (seed %s, count %s): %d items" % (opt.replay, seed, count, len(items)))
    else:
        seed = opt.seed if opt.seed is not None else random.randrange(1 << 31)
        count = opt.count
        items = Gen(seed, count).build()
        print("compare_servers: seed %d, count %d: %d items (replay with --seed %d --count %d)"
              % (seed, count, len(items), seed, count))
    if opt.record:
        with open(opt.record, "w", encoding="utf-8") as f:
            f.write(items_to_lines(seed, count, items))
        print("compare_servers: stream written to %s" % opt.record)
    sys.stdout.flush()

    shape_only = {s.upper().encode() for s in opt.shape_only}
    ALLOC_EXACT[0] = opt.alloc_exact
    args = BASE_ARGS + opt.server_arg
    old = Side("old", os.path.abspath(opt.old), args, opt.keep)
    new = Side("new", os.path.abspath(opt.new), args, opt.keep)
    rep = Report(opt.show)
    t0 = time.monotonic()
    try:
        for side in (old, new):
            side.ctx = Ctx(opt.time_tolerance)
            try:
                side.start()
            except RuntimeError as e:
                print("compare_servers: the %s server did not start: %s" % (side.label, e))
                return 2
        if opt.keep:
            print("compare_servers: old in %s (port %d), new in %s (port %d)"
                  % (old.srv.dir, old.srv.port, new.srv.dir, new.srv.port))
        run_stream(items, old, new, rep, shape_only)
        stream_diffs, stream_n = rep.diffs, rep.compared
        cov = coverage(old, items)
        dump_n = 0
        if not opt.no_dump:
            settle(old, new)
            for side in (old, new):
                side.close_all()
            da, db_ = dump(old), dump(new)
            compare_dumps("dataset before restart", da, db_, rep)
            for side in (old, new):
                side.srv.restart()
            settle(old, new)
            for side in (old, new):
                side.close_all()
            ra, rb = dump(old), dump(new)
            compare_dumps("dataset after restart (log replay)", ra, rb, rep)
            dump_n = rep.compared - stream_n
    finally:
        old.stop()
        new.stop()
    print("compare_servers: commands exercised: %d of %d (COMMAND COUNT), subcommands %d of %d%s"
          % (cov[0], cov[1], cov[2], cov[3], "; not exercised: " + " ".join(cov[4]) if cov[4] else ""))
    print("compare_servers: %s: seed %s, %d requests (%d differ), %d dataset checks (%d differ), "
          "%d of %d allocator figures not equal (not counted), %.1f s"
          % ("IDENTICAL" if rep.diffs == 0 else "DIFFERENT", seed, stream_n, stream_diffs, dump_n,
             rep.diffs - stream_diffs, ALLOC_INEXACT[0], ALLOC_INEXACT[1] // 2, time.monotonic() - t0))
    return 0 if rep.diffs == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
