"""lcs_memory.py -- LCS and the MEMORY command, checked against a real server.

Starts one scratchpad-server of its own (tests/lib/spserver.py) and checks,
through redis-py (Debian's python3-redis 4.3) and through a raw RESP socket
where the exact bytes matter:

  * LCS with every option (LEN, IDX, MINMATCHLEN, WITHMATCHLEN) gives Redis
    7.0's answers: the bytes of its RESP2 replies, and after HELLO 3 the RESP3
    shape Redis uses (IDX is a map); random strings agree with a port of Redis's
    own algorithm, down to the order of the IDX ranges; its errors (options,
    non-string keys, the proto-max-bulk-len guard) are Redis's words; missing
    keys are empty strings; compressed values give the same answers.
  * MEMORY USAGE grows with a value and falls when it shrinks, for inline, heap
    (raw), LZ4-compressed (10 MB) and scratchpad values; nil for a missing key;
    MEMORY STATS, DOCTOR, MALLOC-STATS, PURGE and HELP answer with Redis's
    shapes and errors.

The expected bytes were taken from redis-server 7.0.15. Each case uses its own
keys (a prefix per case), so the cases do not depend on each other. Every socket
has a timeout, so a hang is a failure.
"""

import os
import random
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

TIMEOUT = 30  # s, per socket operation

R = None      # redis.Redis, bytes replies
PORT = None


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def expect_error(fn, message):
    """fn() must raise ResponseError whose text is exactly message."""
    try:
        got = fn()
    except ResponseError as e:
        eq(str(e), message, "error message")
        return
    raise AssertionError("no error raised (reply %r), want %r" % (got, message))


class Raw:
    """A raw RESP connection: send a command, get the bytes of its whole reply."""

    def __init__(self, resp=2):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=TIMEOUT)
        self.f = self.sock.makefile("rb")
        if resp == 3:
            hello = self.cmd("HELLO", "3")
            check(hello.startswith(b"%"), "HELLO 3 did not answer a map: %r" % hello[:40])

    def close(self):
        self.f.close()
        self.sock.close()

    def _read(self):
        line = self.f.readline()
        if not line.endswith(b"\r\n"):
            raise AssertionError("connection closed or bad line: %r" % line)
        kind, out = line[:1], line
        if kind in b"$=!":
            n = int(line[1:-2])
            if n >= 0:
                out += self.f.read(n + 2)
        elif kind in b"*%~>":
            n = int(line[1:-2])
            for _ in range(max(n, 0) * (2 if kind == b"%" else 1)):
                out += self._read()
        return out

    def cmd(self, *args):
        req = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode() if isinstance(a, str) else a
            req += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(req)
        return self._read()


def redis_lcs(a, b, minmatchlen=0):
    """Redis 7.0's lcsCommand in Python: (the LCS string, its length, the IDX
    ranges as ((astart, aend), (bstart, bend), len) in Redis's order)."""
    alen, blen = len(a), len(b)
    t = [[0] * (blen + 1) for _ in range(alen + 1)]
    for i in range(1, alen + 1):
        for j in range(1, blen + 1):
            if a[i - 1] == b[j - 1]:
                t[i][j] = t[i - 1][j - 1] + 1
            else:
                t[i][j] = max(t[i - 1][j], t[i][j - 1])
    total = idx = t[alen][blen]
    result = bytearray(total)
    ranges = []
    ast, aend, bst, bend = alen, 0, 0, 0
    i, j = alen, blen
    while i > 0 and j > 0:
        emit = False
        if a[i - 1] == b[j - 1]:
            result[idx - 1] = a[i - 1]
            if ast == alen:
                ast = aend = i - 1
                bst = bend = j - 1
            elif ast == i and bst == j:
                ast -= 1
                bst -= 1
            else:
                emit = True
            if ast == 0 or bst == 0:
                emit = True
            idx -= 1
            i -= 1
            j -= 1
        else:
            if t[i - 1][j] > t[i][j - 1]:
                i -= 1
            else:
                j -= 1
            if ast != alen:
                emit = True
        if emit:
            mlen = aend - ast + 1
            if minmatchlen == 0 or mlen >= minmatchlen:
                ranges.append(((ast, aend), (bst, bend), mlen))
            ast = alen
    return bytes(result), total, ranges


def idx_reply(ranges, total, withmatchlen):
    """The reply redis-py gives for LCS ... IDX in RESP2."""
    matches = []
    for (ar, br, mlen) in ranges:
        m = [list(ar), list(br)]
        if withmatchlen:
            m.append(mlen)
        matches.append(m)
    return [b"matches", matches, b"len", total]


def wait_encoding(key, want, timeout=20.0):
    """Poll OBJECT ENCODING key until it is want (background compression)."""
    deadline = time.time() + timeout
    got = R.object("encoding", key)
    while got != want and time.time() < deadline:
        time.sleep(0.02)
        got = R.object("encoding", key)
    eq(got, want, "OBJECT ENCODING %s" % key)


def words_text(n, seed):
    """n bytes of text from a small vocabulary: compressible, but not trivially."""
    rnd = random.Random(seed)
    vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(2, 9)))
             for _ in range(32)]
    out = " ".join(rnd.choices(vocab, k=n // 4 + 16)).encode()
    while len(out) < n:
        out += out
    return out[:n]


# ---- LCS ----

def t_lcs_basic():
    R.mset({"lb:a": "ohmytext", "lb:b": "mynewtext", "lb:e": ""})
    eq(R.lcs("lb:a", "lb:b"), b"mytext", "LCS")
    eq(R.lcs("lb:b", "lb:a"), b"mytext", "LCS reversed")
    eq(R.lcs("lb:a", "lb:b", len=True), 6, "LCS LEN")
    eq(R.lcs("lb:a", "lb:a"), b"ohmytext", "LCS of a key with itself")
    eq(R.lcs("lb:a", "lb:missing"), b"", "LCS with a missing key")
    eq(R.lcs("lb:missing", "lb:a", len=True), 0, "LCS LEN with a missing key")
    eq(R.lcs("lb:missing", "lb:missing2"), b"", "LCS of two missing keys")
    eq(R.lcs("lb:e", "lb:a", len=True), 0, "LCS LEN with an empty string")
    R.set("lb:n1", 12345)
    R.set("lb:n2", 1245)
    eq(R.lcs("lb:n1", "lb:n2"), b"1245", "LCS of integer-looking values")
    R.set("lb:bin1", b"\x00\xff\x01\r\n\x00")
    R.set("lb:bin2", b"\xff\x00\r\n")
    eq(R.lcs("lb:bin1", "lb:bin2"), redis_lcs(b"\x00\xff\x01\r\n\x00", b"\xff\x00\r\n")[0], "LCS of binary values")


def t_lcs_idx():
    R.mset({"li:a": "ohmytext", "li:b": "mynewtext"})
    eq(R.lcs("li:a", "li:b", idx=True), [b"matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], b"len", 6], "IDX")
    eq(R.lcs("li:a", "li:b", idx=True, withmatchlen=True),
       [b"matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], b"len", 6], "IDX WITHMATCHLEN")
    eq(R.lcs("li:a", "li:b", idx=True, minmatchlen=4),
       [b"matches", [[[4, 7], [5, 8]]], b"len", 6], "IDX MINMATCHLEN 4")
    eq(R.lcs("li:a", "li:b", idx=True, minmatchlen=4, withmatchlen=True),
       [b"matches", [[[4, 7], [5, 8], 4]], b"len", 6], "IDX MINMATCHLEN 4 WITHMATCHLEN")
    eq(R.lcs("li:a", "li:b", idx=True, minmatchlen=7), [b"matches", [], b"len", 6], "IDX MINMATCHLEN 7")
    eq(R.execute_command("LCS", "li:a", "li:b", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN"),
       [b"matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], b"len", 6], "a negative MINMATCHLEN is 0")
    eq(R.execute_command("LCS", "li:a", "li:b", "withmatchlen", "minmatchlen", "3", "minmatchlen", "0", "idx"),
       [b"matches", [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], b"len", 6],
       "options in any order and case, the last MINMATCHLEN counts")
    eq(R.execute_command("LCS", "li:a", "li:b", "LEN", "LEN"), 6, "LEN twice")
    eq(R.execute_command("LCS", "li:a", "li:b", "WITHMATCHLEN"), b"mytext", "WITHMATCHLEN alone is ignored")
    eq(R.lcs("li:a", "li:missing", idx=True, withmatchlen=True), [b"matches", [], b"len", 0], "IDX, missing key")


def t_lcs_errors():
    R.mset({"le:a": "ohmytext", "le:b": "mynewtext"})
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "LEN", "IDX"),
                 "If you want both the length and indexes, please just use IDX.")
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "IDX", "LEN"),
                 "If you want both the length and indexes, please just use IDX.")
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "FOO"), "syntax error")
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "IDX", "MINMATCHLEN"), "syntax error")
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "MINMATCHLEN", "abc"),
                 "value is not an integer or out of range")
    expect_error(lambda: R.execute_command("LCS", "le:a", "le:b", "MINMATCHLEN", "99999999999999999999"),
                 "value is not an integer or out of range")
    expect_error(lambda: R.execute_command("LCS", "le:a"), "wrong number of arguments for 'lcs' command")
    # A key of another type: Redis's own message for LCS (not WRONGTYPE),
    # given before the options are looked at.
    eq(R.execute_command("SP.WRITE", "le:pad", "note", "hello"), 1, "SP.WRITE")
    for args in (("le:a", "le:pad"), ("le:pad", "le:a"), ("le:pad", "le:a", "FOO"), ("le:missing", "le:pad", "LEN")):
        expect_error(lambda: R.execute_command("LCS", *args), "The specified keys must contain string values")
    # The transient table is refused above proto-max-bulk-len (1 MB at least):
    # 601 x 511 cells of 4 bytes exceed it, 256 x 1024 are exactly 1 MB (allowed).
    old = R.config_get("proto-max-bulk-len")["proto-max-bulk-len"]
    try:
        R.config_set("proto-max-bulk-len", "1mb")
        R.mset({"le:x": b"a" * 600, "le:y": b"b" * 510})
        expect_error(lambda: R.lcs("le:x", "le:y", len=True),
                     "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
        expect_error(lambda: R.lcs("le:x", "le:y"),
                     "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
        expect_error(lambda: R.execute_command("LCS", "le:x", "le:y", "FOO"), "syntax error")
        R.mset({"le:x": b"ab" * 127 + b"a", "le:y": b"b" * 1023})
        eq(R.lcs("le:x", "le:y", len=True), 127, "LCS with a table of exactly proto-max-bulk-len")
    finally:
        R.config_set("proto-max-bulk-len", old)
    eq(R.lcs("le:a", "le:b", len=True), 6, "the server still answers")


def t_lcs_resp2_bytes():
    raw = Raw(2)
    try:
        raw.cmd("MSET", "lr:a", "ohmytext", "lr:b", "mynewtext")
        eq(raw.cmd("LCS", "lr:a", "lr:b"), b"$6\r\nmytext\r\n", "LCS")
        eq(raw.cmd("LCS", "lr:a", "lr:b", "LEN"), b":6\r\n", "LCS LEN")
        eq(raw.cmd("LCS", "lr:a", "lr:b", "IDX"),
           b"*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
           b"*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n", "LCS IDX")
        eq(raw.cmd("LCS", "lr:a", "lr:b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
           b"*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n",
           "LCS IDX MINMATCHLEN 4 WITHMATCHLEN")
        eq(raw.cmd("LCS", "lr:a", "lr:missing", "IDX", "WITHMATCHLEN"),
           b"*4\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n", "LCS IDX with a missing key")
        eq(raw.cmd("LCS", "lr:a", "lr:missing"), b"$0\r\n\r\n", "LCS with a missing key")
    finally:
        raw.close()


def t_lcs_resp3():
    raw = Raw(3)
    try:
        raw.cmd("MSET", "l3:a", "ohmytext", "l3:b", "mynewtext")
        eq(raw.cmd("LCS", "l3:a", "l3:b"), b"$6\r\nmytext\r\n", "LCS")
        eq(raw.cmd("LCS", "l3:a", "l3:b", "LEN"), b":6\r\n", "LCS LEN")
        eq(raw.cmd("LCS", "l3:a", "l3:b", "IDX"),
           b"%2\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
           b"*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n", "LCS IDX")
        eq(raw.cmd("LCS", "l3:a", "l3:b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
           b"%2\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n",
           "LCS IDX MINMATCHLEN 4 WITHMATCHLEN")
        eq(raw.cmd("LCS", "l3:a", "l3:missing", "IDX", "WITHMATCHLEN"),
           b"%2\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n", "LCS IDX with a missing key")
        eq(raw.cmd("LCS", "l3:a", "l3:b", "LEN", "IDX"),
           b"-ERR If you want both the length and indexes, please just use IDX.\r\n", "LCS LEN IDX")
    finally:
        raw.close()


def t_lcs_random():
    rnd = random.Random(20240607)
    pipe_cases = []
    for n in range(400):
        alpha = rnd.choice([b"ab", b"abc", b"acgt", b"abcdefghij", bytes(range(256))])
        a = bytes(rnd.choice(alpha) for _ in range(rnd.randint(0, 60)))
        b = bytes(rnd.choice(alpha) for _ in range(rnd.randint(0, 60)))
        mml = rnd.choice([0, 0, 1, 2, 3, 5])
        pipe_cases.append((a, b, mml))
    for n, (a, b, mml) in enumerate(pipe_cases):
        R.mset({"lx:a": a, "lx:b": b})
        want_str, want_len, ranges = redis_lcs(a, b, mml)
        eq(R.lcs("lx:a", "lx:b"), want_str, "case %d: LCS %r %r" % (n, a, b))
        eq(R.lcs("lx:a", "lx:b", len=True), want_len, "case %d: LCS LEN" % n)
        wm = n % 2 == 1
        eq(R.lcs("lx:a", "lx:b", idx=True, minmatchlen=mml, withmatchlen=wm), idx_reply(ranges, want_len, wm),
           "case %d: LCS IDX MINMATCHLEN %d%s of %r %r" % (n, mml, " WITHMATCHLEN" if wm else "", a, b))


def t_lcs_compressed():
    big = words_text(6000, 7)
    small = b"the quick brown fox jumps over the lazy dog, then sleeps"
    R.set("lz:big", big)
    R.set("lz:small", small)
    wait_encoding("lz:big", b"lz4")
    want_str, want_len, ranges = redis_lcs(big, small, 3)
    eq(R.lcs("lz:big", "lz:small"), want_str, "LCS of a compressed value")
    eq(R.lcs("lz:small", "lz:big", len=True), want_len, "LCS LEN with a compressed value")
    eq(R.lcs("lz:big", "lz:small", idx=True, minmatchlen=3, withmatchlen=True), idx_reply(ranges, want_len, True),
       "LCS IDX of a compressed value")
    eq(R.lcs("lz:big", "lz:missing", len=True), 0, "LCS of a compressed value and a missing key")


# ---- MEMORY ----

def usage(key):
    return R.memory_usage(key)


def t_memory_usage_errors():
    R.set("me:k", "v")
    eq(R.memory_usage("me:missing"), None, "MEMORY USAGE of a missing key")
    check(isinstance(usage("me:k"), int) and usage("me:k") > 0, "MEMORY USAGE is a positive integer")
    eq(R.memory_usage("me:k", samples=0), usage("me:k"), "SAMPLES 0")
    eq(R.memory_usage("me:k", samples=5), usage("me:k"), "SAMPLES 5")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE", "me:k", "SAMPLES"), "syntax error")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE", "me:k", "SAMPLES", "-1"), "syntax error")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE", "me:k", "SAMPLES", "x"),
                 "value is not an integer or out of range")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE", "me:k", "FOO"), "syntax error")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE", "me:missing", "SAMPLES", "-1"), "syntax error")
    expect_error(lambda: R.execute_command("MEMORY", "USAGE"), "wrong number of arguments for 'memory|usage' command")
    expect_error(lambda: R.execute_command("MEMORY"), "wrong number of arguments for 'memory' command")
    expect_error(lambda: R.execute_command("MEMORY", "FOO"), "unknown subcommand 'FOO'. Try MEMORY HELP.")
    raw = Raw(3)
    try:
        eq(raw.cmd("MEMORY", "USAGE", "me:missing"), b"_\r\n", "RESP3 null for a missing key")
    finally:
        raw.close()
    raw = Raw(2)
    try:
        eq(raw.cmd("MEMORY", "USAGE", "me:missing"), b"$-1\r\n", "RESP2 null for a missing key")
    finally:
        raw.close()


def t_memory_usage_inline():
    R.set("mi:k", b"x" * 8)
    u8 = usage("mi:k")
    check(u8 >= len("mi:k") + 8, "8-byte value: usage %d is below the key and value" % u8)
    R.set("mi:k", b"x" * 60)
    u60 = usage("mi:k")
    R.set("mi:k", b"x" * 120)
    u120 = usage("mi:k")
    check(u8 < u60 < u120, "inline usage grows with the value: %d, %d, %d" % (u8, u60, u120))
    check(u120 < 120 + 4 + 100, "inline usage %d is the entry and little more" % u120)
    # A shrinking inline value keeps its entry's room (value.c), so the usage
    # never grows; a value moving out of the heap back inline frees memory.
    R.set("mi:k", b"x" * 8)
    check(usage("mi:k") <= u120, "a shrunk inline value does not use more")
    R.set("mi:K", b"x" * 8)
    eq(usage("mi:K"), u8, "a fresh key of the same length with the same value uses the same")
    R.set("mi:j", b"y" * 1000)
    big = usage("mi:j")
    R.set("mi:j", b"y" * 10)
    check(usage("mi:j") < big - 900, "raw -> inline: usage falls from %d to %d" % (big, usage("mi:j")))


def t_memory_usage_raw():
    R.set("mr:k", b"r" * 1000)
    eq(R.object("encoding", "mr:k"), b"raw", "a 1000-byte value is raw")
    u1 = usage("mr:k")
    R.set("mr:k", b"r" * 3000)
    u3 = usage("mr:k")
    check(1000 <= u1 < 1000 + 200, "raw usage %d is the value and little more" % u1)
    check(u3 >= u1 + 1900, "raw usage grows with the value: %d then %d" % (u1, u3))
    R.set("mr:k", b"r" * 500)
    u05 = usage("mr:k")
    check(u05 < u3 - 2000, "raw usage falls when the value shrinks: %d then %d" % (u3, u05))
    R.append("mr:k", b"s" * 2000)
    check(usage("mr:k") > u05 + 1500, "APPEND makes the usage grow")


def t_memory_usage_compressed():
    ten = words_text(10 * 1024 * 1024, 11)
    R.set("mz:k", ten)
    wait_encoding("mz:k", b"lz4")
    u10 = usage("mz:k")
    check(u10 < len(ten) * 0.6, "a compressed 10 MB value uses less than 6 MB: %d" % u10)
    check(u10 > 100 * 1024, "a compressed 10 MB value of varied text uses more than 100 KB: %d" % u10)
    R.set("mz:k", ten[:2 * 1024 * 1024])
    wait_encoding("mz:k", b"lz4")
    u2 = usage("mz:k")
    check(u2 < u10 * 0.4, "the usage falls with the compressed value: %d then %d" % (u10, u2))
    R.append("mz:k", ten[2 * 1024 * 1024:6 * 1024 * 1024])
    wait_encoding("mz:k", b"lz4")
    u6 = usage("mz:k")
    check(u2 * 2 < u6 < u10, "APPEND to a compressed value grows its usage: %d, %d, %d" % (u2, u6, u10))
    eq(R.strlen("mz:k"), 6 * 1024 * 1024, "STRLEN after APPEND")
    R.delete("mz:k")
    eq(usage("mz:k"), None, "a deleted key has no usage")


def t_memory_usage_scratchpad():
    # With sp-history-depth above 0 an overwritten version stays (in the
    # key's usage); this case measures the live entries alone.
    R.config_set("sp-history-depth", "0")
    eq(R.execute_command("SP.WRITE", "ms:pad", "a", "hello"), 1, "SP.WRITE a")
    u1 = usage("ms:pad")
    check(u1 > 5, "a scratchpad with one entry uses %d bytes" % u1)
    R.execute_command("SP.WRITE", "ms:pad", "b", words_text(3000, 3))
    u2 = usage("ms:pad")
    check(u2 > u1 + 1000, "a second, 3000-byte entry makes the usage grow: %d then %d" % (u1, u2))
    R.execute_command("SP.WRITE", "ms:pad", "b", b"short")
    u3 = usage("ms:pad")
    check(u3 < u2 - 1000, "rewriting the entry shorter makes it fall: %d then %d" % (u2, u3))
    R.execute_command("SP.WRITE", "ms:pad", "b", words_text(3000, 4))
    check(usage("ms:pad") > u3 + 1000, "rewriting it longer makes it grow again")
    eq(R.execute_command("SP.DEL", "ms:pad", "b"), 1, "SP.DEL")
    check(usage("ms:pad") < u2 - 1000, "deleting the entry makes it fall")
    R.config_set("sp-history-depth", "1")


def t_memory_stats():
    R.set("mst:k", "v")
    R.set("mst:t", "v", ex=100)
    st = R.memory_stats()
    for field in ("peak.allocated", "total.allocated", "clients.normal", "overhead.total", "keys.count",
                  "keys.bytes-per-key", "dataset.bytes", "dataset.percentage", "peak.percentage",
                  "fragmentation", "fragmentation.bytes", "db.0"):
        check(field in st, "MEMORY STATS has %s" % field)
    for field in ("replication.backlog", "clients.slaves", "cluster.links", "lua.caches", "functions.caches"):
        eq(st[field], 0, field)
    check(st["peak.allocated"] >= st["total.allocated"] > 0, "peak >= total > 0")
    eq(st["keys.count"], R.dbsize(), "keys.count with one database in use")
    db0 = st["db.0"]
    check(db0["overhead.hashtable.main"] > 0, "db.0 main overhead")
    check(db0["overhead.hashtable.expires"] > 0, "db.0 expires overhead (a key has a TTL)")
    eq(db0["overhead.hashtable.slot-to-keys"], 0, "slot-to-keys")
    check(st["overhead.total"] >= st["clients.normal"] + db0["overhead.hashtable.main"],
          "overhead.total covers the clients and the tables")
    eq(st["dataset.bytes"], st["total.allocated"] - st["overhead.total"], "dataset.bytes")
    check(0 < float(st["dataset.percentage"]) <= 100, "dataset.percentage")
    check(0 < float(st["peak.percentage"]) <= 100, "peak.percentage")
    info = R.info("memory")
    check(abs(info["used_memory"] - st["total.allocated"]) < 1024 * 1024, "total.allocated agrees with INFO")
    R.select(3)
    try:
        R.set("mst:db3", "v")
        check("db.3" in R.memory_stats(), "a database with keys appears as db.N")
        R.delete("mst:db3")
        check("db.3" not in R.memory_stats(), "an empty database does not appear")
    finally:
        R.select(0)
    raw = Raw(3)
    try:
        rep = raw.cmd("MEMORY", "STATS")
        check(rep.startswith(b"%"), "RESP3 MEMORY STATS is a map: %r" % rep[:20])
        check(b"$4\r\ndb.0\r\n%3\r\n$23\r\noverhead.hashtable.main\r\n:" in rep, "RESP3 db.0 is a map of 3")
        check(b"$15\r\npeak.percentage\r\n," in rep, "RESP3 percentages are doubles")
    finally:
        raw.close()
    expect_error(lambda: R.execute_command("MEMORY", "STATS", "x"), "wrong number of arguments for 'memory|stats' command")


def main_overhead():
    """db.5's overhead.hashtable.main once two readings 0.1 s apart agree (no
    rehash of its table in progress)."""
    prev = None
    for _ in range(100):
        cur = R.memory_stats()["db.5"]["overhead.hashtable.main"]
        if cur == prev:
            return cur
        prev = cur
        time.sleep(0.1)
    raise AssertionError("overhead.hashtable.main of db.5 does not settle")


def t_memory_stats_wide():
    R.select(5)
    try:
        R.flushdb()
        for i in range(200):
            R.set("w:%d" % i, "v")
        base = main_overhead()
        for i in range(200):
            R.expire("w:%d" % i, 1000)
        eq(main_overhead() - base, 200 * 16, "a first TTL adds the wide layout's 16 bytes to each entry's header")
        base = main_overhead()
        R.set("L" * 300, "v")
        eq(main_overhead() - base, 32, "a key of 300 bytes (wide) counts a header of 32 bytes")
        base = main_overhead()
        R.set("n:short", "v")
        eq(main_overhead() - base, 16, "a short key without a TTL (narrow) counts a header of 16 bytes")
        base = main_overhead()
        R.delete("w:0", "L" * 300)
        eq(base - main_overhead(), 64, "deleting two wide entries gives back 32 bytes each")
        base = main_overhead()
        R.set("w:1", "v" * 1000)
        R.set("w:2", "v")
        eq(main_overhead(), base, "replacing the value of a wide entry keeps its count")
        R.move("w:3", 6)
        eq(base - main_overhead(), 32, "MOVE takes a wide entry's 32 bytes to the other database")
        R.select(6)
        eq(R.memory_stats()["db.6"]["overhead.hashtable.main"] > 32, True, "db.6 counts the moved entry")
        R.flushdb()
        R.select(5)
    finally:
        R.flushdb()
        R.select(0)


def t_memory_other():
    raw2, raw3 = Raw(2), Raw(3)
    try:
        help_bytes = (b"*14\r\n+MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+DOCTOR\r\n"
                      b"+    Return memory problems reports.\r\n+MALLOC-STATS\r\n"
                      b"+    Return internal statistics report from the memory allocator.\r\n+PURGE\r\n"
                      b"+    Attempt to purge dirty pages for reclamation by the allocator.\r\n+STATS\r\n"
                      b"+    Return information about the memory usage of the server.\r\n"
                      b"+USAGE <key> [SAMPLES <count>]\r\n"
                      b"+    Return memory in bytes used by <key> and its value. Nested values are\r\n"
                      b"+    sampled up to <count> times (default: 5, 0 means sample all).\r\n"
                      b"+HELP\r\n+    Prints this help.\r\n")
        eq(raw2.cmd("MEMORY", "HELP"), help_bytes, "MEMORY HELP")
        eq(raw3.cmd("memory", "help"), help_bytes, "MEMORY HELP in RESP3")
        eq(raw2.cmd("MEMORY", "PURGE"), b"+OK\r\n", "MEMORY PURGE")
        doc2, doc3 = raw2.cmd("MEMORY", "DOCTOR"), raw3.cmd("MEMORY", "DOCTOR")
        check(doc2.startswith(b"$") and len(doc2) > 40, "RESP2 MEMORY DOCTOR is a bulk string: %r" % doc2[:60])
        check(doc3.startswith(b"=") and b"\r\ntxt:" in doc3[:12], "RESP3 MEMORY DOCTOR is verbatim: %r" % doc3[:60])
        ms2, ms3 = raw2.cmd("MEMORY", "MALLOC-STATS"), raw3.cmd("MEMORY", "MALLOC-STATS")
        check(ms2.startswith(b"$") and b"libc malloc" in ms2, "MALLOC-STATS names the allocator: %r" % ms2[:120])
        check(ms3.startswith(b"=") and b"txt:" in ms3[:16], "RESP3 MALLOC-STATS is verbatim")
        for sub in ("DOCTOR", "MALLOC-STATS", "PURGE", "HELP"):
            eq(raw2.cmd("MEMORY", sub, "x"),
               b"-ERR wrong number of arguments for 'memory|%s' command\r\n" % sub.lower().encode(),
               "MEMORY %s with an argument" % sub)
    finally:
        raw2.close()
        raw3.close()


def main():
    global R, PORT
    rep = spserver.Reporter()
    try:
        srv = spserver.Server().start()
    except Exception as e:  # noqa: BLE001
        rep.fail("the server starts and answers PING", e)
        rep.finish()
    try:
        PORT = srv.port
        R = redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
        rep.case("LCS returns the longest common subsequence and its LEN; missing keys are empty strings",
                 t_lcs_basic)
        rep.case("LCS IDX lists the match ranges with MINMATCHLEN and WITHMATCHLEN as Redis 7.0 does", t_lcs_idx)
        rep.case("LCS refuses bad options, non-string keys and tables beyond proto-max-bulk-len in Redis's words",
                 t_lcs_errors)
        rep.case("LCS replies are Redis 7.0's bytes in RESP2", t_lcs_resp2_bytes)
        rep.case("after HELLO 3 LCS IDX is a map, with Redis 7.0's bytes", t_lcs_resp3)
        rep.case("LCS on 400 random pairs agrees with Redis's algorithm, IDX ranges in the same order",
                 t_lcs_random)
        rep.case("LCS reads compressed values and gives the same answers", t_lcs_compressed)
        rep.case("MEMORY USAGE is nil for a missing key and refuses bad options as Redis does",
                 t_memory_usage_errors)
        rep.case("MEMORY USAGE of an inline value grows with it, and falls when a raw value moves inline",
                 t_memory_usage_inline)
        rep.case("MEMORY USAGE of a raw value grows with it and falls when it shrinks", t_memory_usage_raw)
        rep.case("MEMORY USAGE of a 10 MB compressed value is its compressed size and follows its length",
                 t_memory_usage_compressed)
        rep.case("MEMORY USAGE of a scratchpad grows and falls with its entries (SP.WRITE, SP.DEL)",
                 t_memory_usage_scratchpad)
        rep.case("MEMORY STATS reports consistent figures, db.N maps and RESP3 doubles", t_memory_stats)
        rep.case("MEMORY STATS counts 32 bytes of header for an entry in the wide layout (TTL, long key), 16 "
                 "for a narrow one", t_memory_stats_wide)
        rep.case("MEMORY HELP, DOCTOR, MALLOC-STATS and PURGE answer with Redis's shapes", t_memory_other)
    finally:
        srv.stop()
    rep.finish()


if __name__ == "__main__":
    main()
