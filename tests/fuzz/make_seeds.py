#!/usr/bin/python3
"""make_seeds.py -- write the seed corpora of the libFuzzer targets.

The seeds in tests/fuzz/corpus/<target>/ are made by this script, so that they
are real inputs and can be made again when a format changes:
  resp    requests as clients send them: multibulk (RESP2 and HELLO 3), pipelines,
          inline commands with quotes and escapes, RESP3 frames (which a request
          cannot be), oversized counts; the first byte of each is the target's
          mode byte (limits, piece size).
  aof     the log files a server wrote (appendonly, compressed values in small
          chunks, a transaction, an incremental rewrite's base), each twice: as
          written (mode byte 0) and with the CRCs to be fixed (mode byte 1).
  lzval   every compressed value argument of those logs (argument kind 1 without
          its kind byte, or kind 2 with the top bit of nchunks set): LZ4 frames
          of 1 KB and 64 KB chunks.
  config  groups of active lines of scratchpad.conf, and quoting cases.
  manifest the manifests those servers wrote, with comments, incr files only.
  dump    DUMP payloads of strings from redis-server (plain, integer, LZF).
Files whose names start with "regress-" are inputs that once failed, kept as
regression cases: this script never touches them.

Usage: make_seeds.py   (SERVER: the scratchpad-server to make the logs with,
default build-fuzz's; redis-server from PATH)
"""
import glob
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import spserver  # noqa: E402
from resp_wire import Conn, encode  # noqa: E402

CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def clear(target):
    for p in glob.glob(os.path.join(CORPUS, target, "*")):
        if not os.path.basename(p).startswith("regress-"):
            os.remove(p)


def cmd(*args):
    return encode([a if isinstance(a, bytes) else str(a).encode() for a in args])


def resp_seeds():
    clear("resp")
    reqs = {
        "set-get": cmd("SET", "key:1", "hello") + cmd("GET", "key:1"),
        "pipeline": b"".join(cmd("INCR", "n") for _ in range(5)) + cmd("LPUSH", "l", "a", "b", "c"),
        "hello3": cmd("HELLO", "3") + cmd("HSET", "h", "f", "v") + cmd("HGETALL", "h"),
        "binary": cmd("SET", b"bin", bytes(range(256))),
        "empty-args": cmd("SET", "", "") + b"*0\r\n*-1\r\n",
        "sp-write": cmd("SP.WRITE", "agent-a", "plan", "- [ ] read the code\n- [ ] write tests\n"),
        "inline": b"PING\r\nSET k v\nGET k\r\n\r\n",
        "inline-quotes": b'SET "a b" \'c d\'\r\nSET "\\x41\\n\\t" "\\"q\\""\r\nECHO \'it\\\'s\'\r\n',
        "inline-unbalanced": b'SET "a b\r\n',
        "resp3-map": b"%1\r\n+a\r\n:1\r\n",
        "resp3-set": b"~2\r\n$1\r\na\r\n$1\r\nb\r\n",
        "resp3-scalars": b"_\r\n,3.14\r\n#t\r\n(12345678901234567890\r\n",
        "resp3-verbatim": b"=15\r\ntxt:Some string\r\n",
        "big-count": b"*1048577\r\n$3\r\nSET\r\n",
        "big-bulk": b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870913\r\nabc",
        "negative-bulk": b"*2\r\n$3\r\nGET\r\n$-5\r\n",
        "bad-dollar": b"*2\r\n$3\r\nGET\r\n:3\r\nkey\r\n",
        "split-crlf": b"*1\r\n$4\r\nPING\r",
        "many-args": cmd("MSET", *["k%d" % i for i in range(40)]),
    }
    for i, (name, data) in enumerate(sorted(reqs.items())):
        # Mode byte: vary unauth, limits and piece size across the seeds.
        put("resp", name, bytes([(i * 37) & 0xFF]) + data)


def lzval_args(payload):
    """The kind-1 and kind-2 arguments of a checked EFFECTS payload, without the kind byte."""
    out = []
    p = 1
    count = struct.unpack_from("<I", payload, p)[0]
    p += 4
    for _ in range(count):
        p += 2
        argc = struct.unpack_from("<I", payload, p)[0]
        p += 4
        for _ in range(argc):
            kind = payload[p]
            p += 1
            if kind == 0:
                n = struct.unpack_from("<Q", payload, p)[0]
                p += 8 + n
            else:
                start = p
                cs, nchunks = struct.unpack_from("<II", payload, p)
                p += 8
                if kind == 2:  # a detached dictionary: the top bit of nchunks says so (fuzz_lzval.c)
                    dn = struct.unpack_from("<I", payload, p)[0]
                    p += 4 + dn
                    payload = payload[:start] + struct.pack("<II", cs, nchunks | 0x80000000) + payload[start + 8:]
                for _ in range(nchunks):
                    _, stored, _ = struct.unpack_from("<IIB", payload, p)
                    p += 9 + stored
                out.append(payload[start:p])
    return out


def log_records(data):
    p = 32
    while p + 8 <= len(data):
        n = struct.unpack_from("<I", data, p)[0]
        yield data[p + 8:p + 8 + n]
        p += 8 + n


def aof_seeds():
    clear("aof")
    clear("lzval")
    clear("manifest")
    put("manifest", "comments-blanks", b"scratchpad-manifest 1\n# a comment\n\n"
        b"file scratchpad.aof.1.base seq 1 type base\nfile scratchpad.aof.2.incr seq 2 type incr\n")
    put("manifest", "incr-only", b"scratchpad-manifest 1\nfile scratchpad.aof.7.incr seq 7 type incr\n"
        b"file scratchpad.aof.9.incr seq 9 type incr\n")
    text = b"".join(b"2026-11-26 03:%02d:%02d INFO worker-%d handled request %d in %d ms\n"
                    % (i // 60 % 60, i % 60, i % 7, i, i * 13 % 97) for i in range(1500))
    # Prose for the 64 KB chunks: varied enough that a dictionary pays.
    doc = b"".join(open(p, "rb").read() for p in sorted(glob.glob(os.path.join(HERE, "..", "..", "docs", "*.md"))))
    logs = []
    for chunk in ("1kb", "64kb"):
        with spserver.Server("--appendonly", "yes", "--compress-threshold", "1024", "--compress-chunk", chunk,
                             "--compress-dict-delay", "-1") as srv:
            c = Conn(srv.port)
            script = [
                ("SET", "small", "v"), ("SET", "log", text[:6000] if chunk == "1kb" else text[:52000]),
                ("APPEND", "log", "one more line\n"),
                # in the first 8 KB: a value with a dictionary detaches it (argument kind 2)
                ("SETRANGE", "log", "10", "xyz"), ("SELECT", "1"), ("RPUSH", "list", "a", "b"),
                ("MULTI",), ("INCR", "n"), ("HSET", "h", "f", "v"), ("EXEC",), ("EXPIRE", "list", "100"),
                ("SP.WRITE", "agent-a", "plan", "- [ ] read the code\n"), ("DEL", "h"), ("SELECT", "0"),
            ]
            for a in script:
                c.send(cmd(*a))
                c.read_reply()
            # Strings are compressed after the write (a queue the event loop
            # drains); the rewrite then logs them as stored chunks (kind 1).
            time.sleep(0.5)
            c.send(cmd("BGREWRITEAOF"))
            c.read_reply()
            time.sleep(1.5)
            c.send(cmd("SET", "after", "rewrite"))
            c.read_reply()
            c.sock.close()
            time.sleep(0.3)
            for path in sorted(glob.glob(os.path.join(srv.dir, "data", "*"))):
                with open(path, "rb") as f:
                    data = f.read()
                if path.endswith(".manifest"):
                    put("manifest", "%s-scratchpad-manifest" % chunk, data)
                if data[:5] == b"SPAOF" and 32 < len(data) < 65536:
                    logs.append(("%s-%s" % (chunk, os.path.basename(path).replace(".", "-")), data))
    for name, data in logs:
        put("aof", name + "-asis", b"\x00" + data)
        put("aof", name + "-fixcrc", b"\x01" + data)
        for i, rec in enumerate(log_records(data)):
            for j, arg in enumerate(lzval_args(rec)):
                put("lzval", "%s-r%d-a%d" % (name, i, j), arg)


def config_seeds():
    clear("config")
    with open(os.path.join(HERE, "..", "..", "scratchpad.conf")) as f:
        active = [ln for ln in f.read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for i in range(0, len(active), 8):
        put("config", "scratchpad-%02d" % (i // 8), ("\n".join(active[i:i + 8]) + "\n").encode())
    put("config", "quoting", b'# a comment\n  \nlogfile "/tmp/a b.log"\nbind 127.0.0.1 -::1\n'
        b"save \"3600 1 300 100\"\nnotify-keyspace-events 'KEA'\nrequirepass \"p\\x41ss\\n\"\n")
    put("config", "bad-lines", b"maxmemory 100zz\nappendfsync sometimes\nunknown-directive 1\n\"unbalanced\n")
    put("config", "obuf", b"client-output-buffer-limit normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60\n"
        b"maxmemory 1gb\nmaxmemory-policy allkeys-lru\nhash-max-ziplist-entries 128\n")


def dump_seeds():
    clear("dump")
    redis = shutil.which("redis-server")
    if not redis:
        print("no redis-server: dump seeds not made")
        return
    sys.path.insert(0, os.path.join(HERE, "..", "lib"))
    from difftest import RedisServer
    r = RedisServer()
    try:
        c = Conn(r.port)
        values = {"plain": b"hello", "int8": b"12", "int16": b"-1234", "int32": b"123456789",
                  "lzf": b"abcabcabcabc" * 20, "long": bytes(range(256)) * 70}
        for name, v in values.items():
            c.send(cmd("SET", "k", v) + cmd("DUMP", "k"))
            c.read_reply()
            raw, node = c.read_reply()
            # The payload: type byte, the string, version, CRC; the target reads
            # strings from the first byte, so the type byte is dropped.
            put("dump", name, node[1][1:])
    finally:
        r.stop()


def main():
    os.environ.setdefault("SERVER", os.path.join(HERE, "..", "..", os.environ.get("FUZZ_BUILD", "build-fuzz"),
                                                 "scratchpad-server"))
    resp_seeds()
    config_seeds()
    dump_seeds()
    aof_seeds()
    for t in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, t))
        print("%s: %d files, %d bytes" % (t, len(files), sum(os.path.getsize(os.path.join(CORPUS, t, f))
                                                             for f in files)))


if __name__ == "__main__":
    main()
