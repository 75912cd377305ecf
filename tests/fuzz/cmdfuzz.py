#!/usr/bin/python3
"""cmdfuzz.py -- the command-level fuzzer: random commands against the ASan server.

Starts the server built with AddressSanitizer and UBSan (build-fuzz/, made by
`make fuzz-build`; $FUZZ_SERVER names another; without either it falls back to
$SERVER and says so), with the log on, then for FUZZ_SECONDS seconds (default
20) runs at once:
  - CLIENTS connections (default 4; every other one in RESP3, after HELLO 3)
    sending random commands in pipelines of a
    few: names and arities from the server's own COMMAND reply (subcommands
    too), keys from a small pool (so types collide: WRONGTYPE paths), other
    arguments drawn from integers (small, negative, huge, out of range),
    floats (inf, nan, 1e308), option words (from COMMAND DOCS and a list of
    Redis's), empty, binary and long strings; sometimes a wrong argument count;
    one command in 25 an EVAL whose script runs a random command with
    redis.pcall, in RESP2 or RESP3, and returns its reply;
  - one connection sending garbage bytes (random, or broken RESP), reconnecting
    whenever the server closes it;
  - a PING watcher on its own connection: the test fails if PING is not answered
    within FUZZ_STALL seconds (default 10) at any time.
A client whose replies stop coming (a blocking command with no timeout)
reconnects after 1 s; one the server closes (QUIT, a protocol error) at once,
and so does one that sent MONITOR, a SUBSCRIBE or CLIENT REPLY, after its batch
(its next commands would only be refused). A batch with MULTI ends with EXEC
(or DISCARD).
At the end the server must still answer PING, stop on SIGTERM with exit status
0, and its log (stdout and stderr) must hold no sanitizer report.

Commands that legitimately stop or disturb the server or the test are never
sent (docs/fuzzing.md lists them with the reasons): SHUTDOWN; REPLICAOF,
SLAVEOF, FAILOVER, SYNC, PSYNC, MIGRATE (they connect out or block on a
network peer); CLIENT KILL and CLIENT PAUSE/UNPAUSE except a pause of at most
100 ms; DEBUG except ERROR, HELP and SLEEP of at most 50 ms; ACL SETUSER,
DELUSER and LOAD (they could lock the test's clients out); CONFIG SET of the
directives that move files, ports or limits the test relies on (EXCLUDED_CONFIG);
AUTH and HELLO AUTH are sent (they fail: there is no password).

Environment: FUZZ_SECONDS, SEED (printed; the same seed gives the same
commands per client, not the same interleaving), CLIENTS, FUZZ_STALL,
KEEP_TEST_DIRS (keep the server's directory and log).
"""
import codecs
import collections
import os
import random
import shlex
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import spserver  # noqa: E402
from resp_wire import Incomplete, encode, parse  # noqa: E402

TOP = os.path.abspath(os.path.join(HERE, "..", ".."))

NEVER = {b"shutdown", b"replicaof", b"slaveof", b"failover", b"sync", b"psync", b"migrate"}
NEVER_SUB = {(b"client", b"kill"), (b"client", b"unpause"), (b"acl", b"setuser"), (b"acl", b"deluser"),
             (b"acl", b"load"), (b"debug", b"lz4-corrupt"), (b"debug", b"segfault"), (b"debug", b"restart"),
             (b"debug", b"crash-and-recover"), (b"debug", b"reload"), (b"debug", b"panic"),
             (b"debug", b"assert"), (b"debug", b"oom"), (b"debug", b"populate")}
MODAL = {b"monitor", b"subscribe", b"psubscribe", b"ssubscribe"}
DEBUG_OK = {b"error", b"help", b"sleep"}
# CONFIG SET of these would move the server's files or port, lock the clients
# out, close their connections, or lift the memory limits the test runs under.
EXCLUDED_CONFIG = [b"dir", b"port", b"bind", b"unixsocket", b"unixsocketperm", b"logfile", b"pidfile",
                   b"appenddirname", b"appendfilename", b"dbfilename", b"requirepass", b"masterauth",
                   b"maxclients", b"timeout", b"protected-mode", b"proto-max-bulk-len", b"aclfile",
                   b"client-query-buffer-limit", b"client-output-buffer-limit", b"maxmemory",
                   b"daemonize", b"supervised", b"tls-", b"enable-", b"busy-reply-threshold", b"lua-time-limit",
                   b"appendonly", b"aof-rewrite-cpulist"]
OPTIONS = [b"EX", b"PX", b"EXAT", b"PXAT", b"NX", b"XX", b"GT", b"LT", b"CH", b"INCR", b"KEEPTTL", b"GET",
           b"WITHSCORES", b"WITHSCORE", b"LIMIT", b"COUNT", b"MATCH", b"TYPE", b"BYSCORE", b"BYLEX", b"REV",
           b"STORE", b"STOREDIST", b"ASC", b"DESC", b"ALPHA", b"BY", b"LEFT", b"RIGHT", b"BEFORE", b"AFTER",
           b"RANK", b"MAXLEN", b"MINID", b"NOMKSTREAM", b"IDLE", b"TIME", b"RETRYCOUNT", b"FORCE", b"JUSTID",
           b"BLOCK", b"STREAMS", b"GROUP", b"MKSTREAM", b"ENTRIESREAD", b"WEIGHTS", b"AGGREGATE", b"SUM", b"MIN",
           b"MAX", b"WITHVALUES", b"REPLACE", b"ABSTTL", b"FREQ", b"DB", b"COPY", b"KEYS", b"AUTH", b"SETNAME",
           b"OVERFLOW", b"WRAP", b"SAT", b"FAIL", b"u8", b"i16", b"u63", b"i64", b"#1", b"BIT", b"BYTE",
           b"FROMMEMBER", b"FROMLONLAT", b"BYRADIUS", b"BYBOX", b"m", b"km", b"WITHCOORD", b"WITHDIST",
           b"WITHHASH", b"ANY", b"LEN", b"IDX", b"MINMATCHLEN", b"WITHMATCHLEN", b"ASYNC", b"SYNC", b"RESET",
           b"ON", b"OFF", b"SKIP", b"YES", b"NO", b"LOAD", b"FLUSH", b"APPEND", b"NOVALUES", b"SCHEMA", b"FULL",
           b"SAMPLES", b"HEAD", b"TAIL", b"LINES", b"CHARS", b"BYTES", b"VERSION", b"TTL", b"LEASE", b"*", b"-",
           b"+", b"$", b">", b"0-0", b"0-1", b"(1", b"[a", b"(a", b"-inf", b"+inf"]
HUGE = [b"9223372036854775807", b"-9223372036854775808", b"9223372036854775808", b"18446744073709551616",
        b"-9223372036854775809", b"4294967296", b"2147483648", b"-2147483649", b"99999999999999999999999",
        b"1e20", b"-1e20", b"0x10", b"1e308", b"-1e308", b"1e309"]
FLOATS = [b"0.5", b"-2.5", b"3.14159", b"inf", b"-inf", b"+inf", b"nan", b"1e-300", b"1e10", b"-0", b"0.0",
          b"1.7976931348623157e308", b"4.9e-324", b".5", b"1.", b"1e", b"--1"]


def cmd_name(node):
    return node[1] if isinstance(node[1], bytes) else b""


class Catalogue:
    """Commands from the server's COMMAND reply: name -> (arity, first, last,
    step, [subcommands as (name, arity)])."""

    def __init__(self, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.rows = {}
        reply = self._ask(s, [b"COMMAND"])
        for row in reply[1]:
            f = row[1]
            name = f[0][1].lower()
            arity = int(f[1][1])
            first, last, step = int(f[3][1]), int(f[4][1]), int(f[5][1])
            subs = []
            if len(f) >= 10 and f[9][0] in "*~" and f[9][1]:
                for sub in f[9][1]:
                    sf = sub[1]
                    subs.append((sf[0][1].lower().split(b"|", 1)[1], int(sf[1][1]),
                                 int(sf[3][1]), int(sf[4][1]), int(sf[5][1])))
            self.rows[name] = (arity, first, last, step, subs)
        self.tokens = set(OPTIONS)
        try:
            docs = self._ask(s, [b"COMMAND", b"DOCS"])
            self._tokens(docs)
        except Exception:  # noqa: BLE001 -- COMMAND DOCS is a bonus
            pass
        s.close()
        self.names = sorted(n for n in self.rows if n not in NEVER)
        self.subs = {n: {sub[0] for sub in row[4]} for n, row in self.rows.items()}
        self.tokens = sorted(self.tokens)

    def _tokens(self, node):
        if isinstance(node, tuple) and isinstance(node[1], list):
            items = node[1]
            for i in range(len(items) - 1):
                if items[i][0] in "+$" and items[i][1] == b"token" and items[i + 1][0] in "+$":
                    self.tokens.add(items[i + 1][1])
                self._tokens(items[i])
            if items:
                self._tokens(items[-1])

    @staticmethod
    def _ask(s, args):
        s.sendall(encode(args))
        buf = bytearray()
        while True:
            try:
                node, _ = parse(buf, 0)
                return node
            except Incomplete:
                chunk = s.recv(1 << 20)
                if not chunk:
                    raise OSError("closed")
                buf += chunk


class Gen:
    """Random commands from one seed."""

    def __init__(self, cat, seed):
        self.cat = cat
        self.r = random.Random(seed)

    def key(self):
        r = self.r
        if r.random() < 0.05:
            return b"{t}k%d" % r.randrange(8)
        return b"k%d" % r.randrange(16)

    def arg(self):
        r = self.r
        x = r.random()
        if x < 0.22:
            return b"%d" % r.choice([0, 1, 2, 3, 5, 10, 100, -1, -2, -100, r.randrange(-1000, 1000)])
        if x < 0.24:
            return r.choice(HUGE)
        if x < 0.32:
            return r.choice(FLOATS)
        if x < 0.50:
            return r.choice(self.cat.tokens)
        if x < 0.62:
            return self.key()
        if x < 0.66:
            return b""
        if x < 0.72:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 24)))
        if x < 0.75:
            return (b"line %d\n" % r.randrange(1000)) * r.randrange(1, 600)
        if x < 0.78:
            return b"%d-%d" % (r.randrange(0, 5), r.randrange(0, 5))
        return r.choice([b"a", b"b", b"c", b"member", b"field", b"v", b"hello world", b"0", b"1", b"x" * 70,
                         b"return 1", b"return redis.call('GET', KEYS[1])", b"#!lua name=lib\nreturn 1"])

    def script(self):
        """EVAL of a script that runs a random command with redis.pcall, in
        RESP2 or RESP3, and returns its reply: the server's replies of every
        kind, converted to Lua and back (script.c)."""
        r = self.r
        inner = self.command(nested=True)
        lit = ", ".join('"' + "".join("\\%d" % b for b in w) + '"' for w in inner)
        body = b"redis.setresp(%d) return redis.pcall(%s)" % (r.choice([2, 3]), lit.encode())
        return [b"EVAL", body, b"0"]

    def command(self, nested=False):
        r = self.r
        if not nested and r.random() < 0.04:
            return self.script()
        while True:
            name = r.choice(self.cat.names)
            arity, first, last, step, subs = self.cat.rows[name]
            words = [name]
            if subs and r.random() < 0.95:
                sub = r.choice(subs)
                if (name, sub[0]) in NEVER_SUB or (name == b"debug" and sub[0] not in DEBUG_OK):
                    continue
                words.append(sub[0])
                arity, first, last, step = sub[1], sub[2], sub[3], sub[4]
            elif name == b"debug":
                sub = r.choice(sorted(DEBUG_OK))
                words.append(sub)
            n = abs(arity)
            if arity < 0:
                n += r.choice([0, 0, 1, 1, 2, 3, 4, 6])
            if r.random() < 0.05:
                n = max(1, n + r.choice([-2, -1, 1, 2]))
            while len(words) < n:
                i = len(words)
                if first > 0 and i >= first and (last < 0 or i <= last) and step > 0 and (i - first) % step == 0:
                    words.append(self.key())
                else:
                    words.append(self.arg())
            return self.tame(words)

    def tame(self, w):
        """Keep the commands that would stop the server within bounds."""
        low = [x.lower() for x in w]
        if low[0] == b"client" and len(w) > 2 and low[1] == b"pause":
            w[2] = self.r.choice([b"0", b"10", b"50", b"100"])
        if low[0] == b"debug" and len(w) > 2 and low[1] == b"sleep":
            w[2] = self.r.choice([b"0", b"0.01", b"0.05"])
        if low[0] == b"config" and len(w) > 2 and low[1] == b"set":
            for i in range(2, len(w), 2):
                if any(low[i].startswith(e) for e in EXCLUDED_CONFIG) or low[i] in (b"save",):
                    w[i] = b"hz"
                    if i + 1 < len(w):
                        w[i + 1] = b"10"
        return w


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.recent = collections.deque(maxlen=40)  # the last batches sent, for a stall's report
        self.sent = 0
        self.replies = 0
        self.names = set()
        self.reconnects = 0
        self.garbage = 0
        self.pings = 0
        self.max_ping = 0.0
        self.stalled = None


def client_loop(port, gen, stop, st, resp3):
    """One fuzzing client; with resp3 each of its connections starts with HELLO 3
    (so the RESP3 forms of every reply are made too)."""
    s = None
    buf = bytearray()
    while not stop.is_set():
        if s is None:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                buf = bytearray()
                if resp3:
                    s.sendall(encode([b"HELLO", b"3"]))
                    while True:
                        try:
                            _, end = parse(buf, 0)
                            del buf[:end]
                            break
                        except Incomplete:
                            chunk = s.recv(1 << 16)
                            if not chunk:
                                raise OSError("closed")
                            buf += chunk
            except OSError:
                if s is not None:
                    s.close()
                s = None
                time.sleep(0.05)
                continue
        batch = [gen.command() for _ in range(gen.r.randrange(1, 8))]
        heads = [c[0] for c in batch]
        if b"multi" in heads:
            batch.append([gen.r.choice([b"EXEC", b"EXEC", b"EXEC", b"DISCARD"])])
        # A connection that subscribed or monitors (or turned its replies off)
        # is dropped after its batch: its further commands would only be refused.
        leave = any(h in MODAL for h in heads) or any(c[0] == b"client" and len(c) > 1 and c[1].lower() == b"reply"
                                                       for c in batch)
        data = b"".join(encode(c) for c in batch)
        try:
            s.setblocking(True)
            s.settimeout(2)
            s.sendall(data)
        except OSError:
            s.close()
            s = None
            with st.lock:
                st.reconnects += 1
            continue
        with st.lock:
            st.recent.append(batch)
            st.sent += len(batch)
            for c in batch:
                sub = c[1].lower() if len(c) > 1 else b""
                st.names.add(c[0] + b"|" + sub if sub in gen.cat.subs.get(c[0], ()) else c[0])
        got = 0
        deadline = time.monotonic() + 1.0
        closed = False
        while got < len(batch) and time.monotonic() < deadline:
            try:
                while True:
                    node, end = parse(buf, 0)
                    del buf[:end]
                    got += 1
            except (Incomplete, ValueError, IndexError):
                pass
            if got >= len(batch):
                break
            try:
                s.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = s.recv(1 << 20)
            except socket.timeout:
                break
            except OSError:
                chunk = b""
            if not chunk:
                closed = True
                break
            buf += chunk
        with st.lock:
            st.replies += got
        if closed or got < len(batch) or leave:
            s.close()
            s = None
            with st.lock:
                st.reconnects += 1
    if s is not None:
        s.close()


def garbage_loop(port, seed, stop, st):
    r = random.Random(seed)
    s = None
    while not stop.is_set():
        if s is None:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=1)
            except OSError:
                time.sleep(0.05)
                continue
        x = r.random()
        if x < 0.4:
            data = bytes(r.randrange(256) for _ in range(r.randrange(1, 200)))
        elif x < 0.7:
            data = r.choice([b"*", b"$", b"*-1\r\n", b"*1\r\n$", b"*2\r\n$3\r\nGET\r\n$-7\r\n", b"*99999999999\r\n",
                             b"$5\r\nhello\r\n", b"*1\r\n$9999999999\r\n", b"\r\n\r\n", b"*3\r\n:1\r\n",
                             b"PING \"unbalanced\r\n", b"%1\r\n+a\r\n", b"\x00\xff*\r\n"]) + \
                bytes(r.randrange(256) for _ in range(r.randrange(0, 20)))
        else:
            data = b"SET k%d \"%s\"\r\n" % (r.randrange(16), bytes(r.choice(b"ab\\x\"' ") for _ in range(10)))
        try:
            s.sendall(data)
            s.settimeout(0.02)
            try:
                if s.recv(1 << 16) == b"":
                    raise OSError("closed")
            except socket.timeout:
                pass
        except OSError:
            s.close()
            s = None
        with st.lock:
            st.garbage += len(data)
    if s is not None:
        s.close()


def ping_loop(port, stop, st, limit):
    s = None
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            if s is None:
                s = socket.create_connection(("127.0.0.1", port), timeout=limit)
            s.settimeout(limit)
            s.sendall(b"PING\r\n")
            buf = b""
            while b"\r\n" not in buf:
                chunk = s.recv(4096)
                if not chunk:
                    raise ConnectionResetError("closed")
                buf += chunk
        except socket.timeout:
            with st.lock:
                st.stalled = "PING unanswered for %.1f s" % (time.monotonic() - t0)
            return
        except OSError:
            if s is not None:
                s.close()
            s = None
            if time.monotonic() - t0 > limit:
                with st.lock:
                    st.stalled = "no connection for %.1f s" % (time.monotonic() - t0)
                return
            continue
        dt = time.monotonic() - t0
        with st.lock:
            st.pings += 1
            st.max_ping = max(st.max_ping, dt)
        stop.wait(0.1)
    if s is not None:
        s.close()


def regress_commands():
    """The commands of tests/fuzz/cmd_regress, as lists of bytes."""
    out = []
    with open(os.path.join(HERE, "cmd_regress"), encoding="latin-1") as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith("#"):
                out.append([codecs.decode(w, "unicode_escape").encode("latin-1") for w in shlex.split(line)])
    return out


def replay_regressions(port, limit):
    """Send every regression command, each on a connection of its own, in order;
    each must be answered (its first reply byte, or the server closing that
    connection, as an output limit does) within limit seconds. Raise if not."""
    cmds = regress_commands()
    for c in cmds:
        with socket.create_connection(("127.0.0.1", port), timeout=limit) as s:
            s.sendall(encode(c))
            try:
                s.recv(1)
            except socket.timeout:
                raise AssertionError("no answer to %r within %g s" % ([w[:60] for w in c], limit))
            except OSError:
                pass
    return len(cmds)


def server_args():
    """Settings the test runs under: the log on (rewrites included), strings
    and values capped at 1 MB (proto-max-bulk-len), memory capped with
    eviction, DEBUG enabled when the server has that directive."""
    args = ["--appendonly", "yes", "--proto-max-bulk-len", "1mb", "--maxmemory", "256mb",
            "--maxmemory-policy", "allkeys-lru", "--client-output-buffer-limit", "normal 64mb 32mb 10"]
    with open(os.path.join(TOP, "scratchpad.conf")) as f:
        conf = f.read()
    if "\nenable-debug-command " in conf:
        args += ["--enable-debug-command", "yes"]
    return args


def stack_of(pid):
    """The stack of a stalled server, by gdb if it is installed (else why not)."""
    try:
        p = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "bt"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "(no stack: %s)" % e
    return "\n".join(ln for ln in p.stdout.decode(errors="replace").splitlines() if ln.startswith("#"))


def sanitizer_report(text):
    for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: "):
        i = text.find(marker)
        if i >= 0:
            return text[max(0, i - 200):i + 3000]
    return None


def main():
    rep = spserver.Reporter()
    seconds = float(os.environ.get("FUZZ_SECONDS", "20"))
    seed = int(os.environ.get("SEED") or random.SystemRandom().randrange(1 << 31))
    nclients = int(os.environ.get("CLIENTS", "4"))
    stall = float(os.environ.get("FUZZ_STALL", "10"))
    binary = os.environ.get("FUZZ_SERVER") or os.path.join(TOP, os.environ.get("FUZZ_BUILD", "build-fuzz"),
                                                           "scratchpad-server")
    which = "the ASan server"
    if not os.path.exists(binary):
        binary = spserver.server_binary()
        which = "the server of $SERVER (no ASan build: make fuzz-build)"
    print("# seed %d, %g s, %d clients, %s (%s)" % (seed, seconds, nclients, which, binary))
    sys.stdout.flush()
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    srv = spserver.Server(*server_args(), binary=binary, start_timeout=30, stop_timeout=60)
    try:
        srv.start()
    except RuntimeError as e:
        rep.fail("the server under fuzzing starts", e)
        rep.finish()
    st = Stats()
    stop = threading.Event()
    try:
        n = regress_commands()
        rep.case("the %d commands of tests/fuzz/cmd_regress (inputs that once failed) are answered" % len(n),
                 replay_regressions, srv.port, stall)
        cat = Catalogue(srv.port)
        threads = [threading.Thread(target=client_loop, args=(srv.port, Gen(cat, seed + i), stop, st, i % 2 == 1))
                   for i in range(nclients)]
        threads.append(threading.Thread(target=garbage_loop, args=(srv.port, seed - 1, stop, st)))
        watcher = threading.Thread(target=ping_loop, args=(srv.port, stop, st, stall))
        for t in threads + [watcher]:
            t.daemon = True
            t.start()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and st.stalled is None and srv.alive():
            time.sleep(0.2)
        stop.set()
        for t in threads + [watcher]:
            t.join(timeout=stall + 5)

        def answered_throughout():
            if not srv.alive():
                raise AssertionError("the server exited during the run:\n" + srv.log_tail())
            if st.stalled:
                raise AssertionError("%s\nwhere the server is:\n%s\nthe last batches sent:\n%s"
                                     % (st.stalled, stack_of(srv.proc.pid),
                                        "\n".join(repr([w[:80] for w in c]) for b in st.recent for c in b)))
        rep.case("the command fuzzer (seed %d) sent %d commands (%d distinct names and subcommands, %d replies, "
                 "%d reconnections) from %d clients and %d garbage bytes in %g s to %s"
                 % (seed, st.sent, len(st.names), st.replies, st.reconnects, nclients, st.garbage, seconds, which),
                 lambda: None)
        rep.case("PING was answered within %g s all along (%d PINGs, the slowest %.0f ms)"
                 % (stall, st.pings, st.max_ping * 1000), answered_throughout)

        def still_answers():
            reply = spserver.raw_command(srv.port, "PING", timeout=stall)
            if reply != b"+PONG":
                raise AssertionError("PING gave %r" % reply)
        rep.case("the server still answers PING after the run", still_answers)
    except Exception as e:  # noqa: BLE001 -- set-up trouble is a failure
        rep.fail("the command fuzzer runs", "%s: %s" % (type(e).__name__, e))
        stop.set()
    log_path = srv.log_path
    keep = os.environ.get("KEEP_TEST_DIRS")
    os.environ["KEEP_TEST_DIRS"] = "1"
    status = srv.stop()
    with open(log_path, "rb") as f:
        log = f.read().decode(errors="replace")
    if not keep:
        import shutil
        shutil.rmtree(os.path.dirname(log_path), ignore_errors=True)
        del os.environ["KEEP_TEST_DIRS"]

    def clean_exit():
        if status != 0:
            raise AssertionError("exit status %s; the log ends:\n%s" % (status, log[-3000:]))
    rep.case("the server stops on SIGTERM with exit status 0", clean_exit)

    def no_report():
        found = sanitizer_report(log)
        if found:
            raise AssertionError(found)
    rep.case("the server's log holds no AddressSanitizer, LeakSanitizer or UBSan report", no_report)
    rep.finish()


if __name__ == "__main__":
    main()
