"""server_cmds.py -- the server commands, checked against a real server.

Starts its own scratchpad-server (env SERVER, else TOP/build/scratchpad-server)
on a free port in a temporary directory and checks INFO, DBSIZE, FLUSHDB,
FLUSHALL, TIME, LASTSAVE, DEBUG SLEEP/HELP, COMMAND (COUNT, INFO, LIST, DOCS,
GETKEYS, HELP), CONFIG GET/SET/RESETSTAT/HELP, SLOWLOG and SHUTDOWN: reply
shapes in RESP2 (through redis-py) and RESP3 (on a raw socket after HELLO 3,
since Debian's redis-py 4.x cannot speak RESP3), Redis 7.0's error strings,
and the key positions and key specs that cluster-aware clients read from
COMMAND, compared with what redis-server 7.0.15 answers.

Prints "ok - <sentence>" or "not ok - <sentence>" per case. The server is
stopped by its PID at the end whatever happens (the last case shuts it down
with SHUTDOWN); every socket has a timeout, so a hang is a failure.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import redis

TIMEOUT = 10  # s, per socket operation and for the server to start

# ---------------------------------------------------------------------------
# Server start/stop.


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """One scratchpad-server on a free port, run in a temporary directory."""

    def __init__(self):
        top = os.environ.get("TOP") or os.path.abspath(
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        self.binary = os.environ.get("SERVER") or os.path.join(top, "build", "scratchpad-server")
        self.dir = tempfile.mkdtemp(prefix="sp-server-cmds-")
        self.log = os.path.join(self.dir, "server.log")
        self.proc = None
        self.port = None

    def start(self):
        for _ in range(5):  # the port may be taken between choosing and binding it
            self.port = free_port()
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--enable-debug-command", "yes"],
                                             cwd=self.dir,
                                             stdout=log, stderr=subprocess.STDOUT)
            deadline = time.time() + TIMEOUT
            while time.time() < deadline and self.proc.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                        s.sendall(b"PING\r\n")
                        if s.recv(16).startswith(b"+PONG"):
                            return
                except OSError:
                    time.sleep(0.02)
            self.stop()
        raise RuntimeError("server did not start; log:\n" + self.log_tail())

    def log_tail(self):
        try:
            with open(self.log, "rb") as f:
                return f.read()[-2000:].decode(errors="replace")
        except OSError:
            return ""

    def stop(self):
        """Stop the process we started (by its PID), then remove the directory."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self, **kw):
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=TIMEOUT, **kw)


# ---------------------------------------------------------------------------
# A raw RESP2/RESP3 connection: replies come back as Python values, with the
# RESP3 type kept where the test cares about it.


class Set(list):
    """A RESP3 set (~)."""


class Map(list):
    """A RESP3 map (%), kept as a list of (key, value) pairs in order."""

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default


class Verbatim(bytes):
    """A RESP3 verbatim string (=); .fmt is its 3-letter format."""


class Status(bytes):
    """A simple string (+)."""


class RespError(Exception):
    pass


class Raw:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.f = self.sock.makefile("rb")

    def close(self):
        self.f.close()
        self.sock.close()

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))

    def cmd(self, *args):
        self.send(*args)
        return self.read()

    def read(self):
        line = self.f.readline()
        if not line:
            raise ConnectionError("connection closed")
        t, rest = line[:1], line[1:-2]
        if t == b"+":
            return Status(rest)
        if t == b"-":
            return RespError(rest.decode())
        if t == b":":
            return int(rest)
        if t == b",":
            return float(rest)
        if t == b"#":
            return rest == b"t"
        if t == b"_":
            return None
        if t in (b"$", b"="):
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            if t == b"=":
                v = Verbatim(data[4:])
                v.fmt = data[:3]
                return v
            return data
        if t in (b"*", b"~", b">"):
            n = int(rest)
            if n < 0:
                return None
            items = [self.read() for _ in range(n)]
            return Set(items) if t == b"~" else items
        if t == b"%":
            n = int(rest)
            return Map((self.read(), self.read()) for _ in range(n))
        raise ValueError("bad reply line %r" % line)


# ---------------------------------------------------------------------------
# Case runner.

results = {"ok": 0, "fail": 0}


def case(sentence):
    def wrap(fn):
        try:
            fn()
            print("ok - " + sentence)
            results["ok"] += 1
        except Exception as e:  # a failing assertion or an unexpected reply
            print("not ok - %s (%s: %s)" % (sentence, type(e).__name__, e))
            results["fail"] += 1
        return fn
    return wrap


def expect_error(fn, text):
    try:
        fn()
    except redis.ResponseError as e:
        assert str(e) == text, "error %r, wanted %r" % (str(e), text)
        return
    raise AssertionError("no error, wanted %r" % text)


def raw_error(conn, text, *args):
    """Send args on a Raw connection and check that the reply is the error text."""
    got = conn.cmd(*args)
    assert isinstance(got, RespError), "no error (%r), wanted %r" % (got, text)
    eq(str(got), text)


def eq(got, want):
    assert got == want, "got %r, wanted %r" % (got, want)


def info_text(raw_reply):
    return raw_reply.decode() if isinstance(raw_reply, bytes) else raw_reply


def parse_info(text):
    """INFO text -> {section: {field: value}} with sections lower-cased."""
    out, cur = {}, None
    for line in text.split("\r\n"):
        if line.startswith("# "):
            cur = out.setdefault(line[2:].lower(), {})
        elif line:
            k, _, v = line.partition(":")
            cur[k] = v
    return out


# What redis-server 7.0.15 answers to COMMAND INFO for these (RESP2, decoded).
def range_spec(flags, index, lastkey, keystep, notes=None):
    spec = []
    if notes:
        spec += [b"notes", notes]
    return spec + [b"flags", flags,
                   b"begin_search", [b"type", b"index", b"spec", [b"index", index]],
                   b"find_keys", [b"type", b"range", b"spec",
                                  [b"lastkey", lastkey, b"keystep", keystep, b"limit", 0]]]


REDIS_COMMAND_INFO = {
    "get": [b"get", 2, [b"readonly", b"fast"], 1, 1, 1, [b"@read", b"@string", b"@fast"], [],
            [range_spec([b"RO", b"access"], 1, 0, 1)], []],
    "set": [b"set", -3, [b"write", b"denyoom"], 1, 1, 1, [b"@write", b"@string", b"@slow"], [],
            [range_spec([b"RW", b"access", b"update", b"variable_flags"], 1, 0, 1,
                        b"RW and ACCESS due to the optional `GET` argument")], []],
    "mset": [b"mset", -3, [b"write", b"denyoom"], 1, -1, 2, [b"@write", b"@string", b"@slow"],
             [b"request_policy:multi_shard", b"response_policy:all_succeeded"],
             [range_spec([b"OW", b"update"], 1, -1, 2)], []],
    "dbsize": [b"dbsize", 1, [b"readonly", b"fast"], 0, 0, 0, [b"@keyspace", b"@read", b"@fast"],
               [b"request_policy:all_shards", b"response_policy:agg_sum"], [], []],
    "shutdown": [b"shutdown", -1, [b"admin", b"noscript", b"loading", b"stale", b"no_multi", b"allow_busy"],
                 0, 0, 0, [b"@admin", b"@slow", b"@dangerous"], [], [], []],
    "config|get": [b"config|get", -3, [b"admin", b"noscript", b"loading", b"stale"], 0, 0, 0,
                   [b"@admin", b"@slow", b"@dangerous"], [], [], []],
}


def main():
    srv = Server()
    try:
        srv.start()
        run_cases(srv)
    except Exception as e:
        print("not ok - the server starts and answers (%s: %s)" % (type(e).__name__, e))
        results["fail"] += 1
    finally:
        if results["fail"]:
            for line in srv.log_tail().splitlines():
                print("# server log: " + line)
        srv.cleanup()
    return 1 if results["fail"] else 0


def run_cases(srv):
    r = srv.client()
    r2 = Raw(srv.port)  # RESP2 without redis-py's reply callbacks
    r3 = Raw(srv.port)
    assert isinstance(r3.cmd("HELLO", "3"), Map)

    # ---- INFO ----

    @case("INFO parses with redis-py, answers as Redis 7.0.15, and says loading:0")
    def _():
        info = r.info()
        eq(info["redis_version"], "7.0.15")
        eq(info["loading"], 0)
        eq(info["redis_mode"], "standalone")
        eq(info["tcp_port"], srv.port)
        eq(info["process_id"], srv.proc.pid)
        eq(info["role"], "master")
        assert len(str(info["run_id"])) == 40, info["run_id"]
        assert "scratchpad_version" in info
        for k in ("connected_clients", "used_memory", "used_memory_human", "maxmemory", "maxmemory_policy",
                  "rdb_changes_since_last_save", "aof_enabled", "async_loading", "total_commands_processed",
                  "instantaneous_ops_per_sec", "keyspace_hits", "total_error_replies", "arena_page_bytes",
                  "uptime_in_seconds", "multiplexing_api", "blocked_clients", "cluster_enabled"):
            assert k in info, k

    @case("INFO with no argument has the default sections, in Redis's order, and no commandstats")
    def _():
        text = r2.cmd("INFO").decode()
        heads = [l[2:] for l in text.split("\r\n") if l.startswith("# ")]
        eq(heads, ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules",
                   "Errorstats", "Cluster", "Keyspace"])
        assert not text.endswith("\r\n\r\n") and text.endswith("\r\n")

    @case("INFO takes several section names in any case, and ALL / EVERYTHING add commandstats")
    def _():
        text = r2.cmd("INFO", "CLIENTS", "server").decode()
        eq([l for l in text.split("\r\n") if l.startswith("#")], ["# Server", "# Clients"])
        for word in ("all", "everything"):
            heads = [l for l in r2.cmd("INFO", word).decode().split("\r\n") if l.startswith("#")]
            assert "# Commandstats" in heads and "# Keyspace" in heads, heads

    @case("INFO of an unknown section is an empty string")
    def _():
        eq(r2.cmd("INFO", "nosuchsection"), b"")

    @case("INFO in RESP3 is a verbatim string of format txt")
    def _():
        v = r3.cmd("INFO", "server")
        assert isinstance(v, Verbatim), type(v)
        eq(v.fmt, b"txt")
        assert b"redis_version:7.0.15\r\n" in v
        empty = r3.cmd("INFO", "nosuchsection")
        assert isinstance(empty, Verbatim) and empty == b""

    @case("INFO keyspace lists the non-empty databases with their key and TTL counts")
    def _():
        r.flushall()
        eq(r.info("keyspace"), {})
        r.set("ks:a", 1)
        r.set("ks:b", 2, ex=100)
        r.execute_command("SELECT", 3)
        r.set("ks:c", 3)
        r.execute_command("SELECT", 0)
        ks = r.info("keyspace")
        eq(ks["db0"], {"keys": 2, "expires": 1, "avg_ttl": 0})
        eq(ks["db3"], {"keys": 1, "expires": 0, "avg_ttl": 0})
        r.flushall()

    @case("INFO stats counts commands, keyspace hits and misses, and error replies")
    def _():
        before = r.info("stats")
        r.set("st:k", "v")
        r.get("st:k")
        r.get("st:missing")
        try:
            r.execute_command("INCR", "st:k")
        except redis.ResponseError:
            pass
        after = r.info("stats")
        assert after["total_commands_processed"] >= before["total_commands_processed"] + 4
        eq(after["keyspace_hits"] - before["keyspace_hits"], 1)
        eq(after["keyspace_misses"] - before["keyspace_misses"], 1)
        eq(after["total_error_replies"] - before["total_error_replies"], 1)
        assert after["total_net_input_bytes"] > before["total_net_input_bytes"]
        errs = parse_info(r2.cmd("INFO", "errorstats").decode())["errorstats"]
        assert int(errs["errorstat_ERR"].split("=")[1]) >= 1, errs

    @case("INFO instantaneous_ops_per_sec rises while commands run")
    def _():
        r.info("stats")  # a sample before the burst
        time.sleep(0.15)
        pipe = r.pipeline(transaction=False)
        for _ in range(500):
            pipe.ping()
        pipe.execute()
        time.sleep(0.15)
        ops = r.info("stats")["instantaneous_ops_per_sec"]
        assert ops > 0, ops

    @case("INFO memory reports used_memory and its human form, the peak and the arena")
    def _():
        m = r.info("memory")
        assert m["used_memory"] > 0 and m["used_memory_peak"] >= m["used_memory"]
        assert str(m["used_memory_human"])[-1] in "BKMG", m["used_memory_human"]
        eq(m["maxmemory_policy"], "noeviction")
        for k in ("arena_live_bytes", "arena_page_bytes", "arena_pages", "used_memory_rss"):
            assert isinstance(m[k], int), k

    @case("INFO commandstats gives calls, usec, rejected and failed calls per command and subcommand")
    def _():
        r.execute_command("CONFIG", "RESETSTAT")
        r.set("cs:k", "v")
        r.get("cs:k")
        r.get("cs:k")
        r.execute_command("CONFIG", "GET", "hz")
        try:
            r.execute_command("GET")
        except redis.ResponseError:
            pass
        try:
            r.execute_command("INCR", "cs:k")
        except redis.ResponseError:
            pass
        cs = r.info("commandstats")
        assert "cmdstat_get" in cs, "no cmdstat_get in %r (is cmd_get_stats in commands.c?)" % cs
        eq(cs["cmdstat_get"]["calls"], 2)
        eq(cs["cmdstat_get"]["rejected_calls"], 1)
        eq(cs["cmdstat_incr"]["failed_calls"], 1)
        eq(cs["cmdstat_config|get"]["calls"], 1)
        assert "usec_per_call" in cs["cmdstat_set"]

    # ---- keyspace-wide commands ----

    @case("DBSIZE counts the keys of the selected database only")
    def _():
        r.flushall()
        r.mset({"d:1": 1, "d:2": 2, "d:3": 3})
        eq(r.dbsize(), 3)
        r.execute_command("SELECT", 1)
        eq(r.dbsize(), 0)
        r.execute_command("SELECT", 0)
        eq(r3.cmd("DBSIZE"), 3)

    @case("FLUSHDB empties the selected database only, and adds the keys removed to the change count")
    def _():
        r.flushall()
        r.set("f:a", 1)
        r.set("f:b", 2)
        r.execute_command("SELECT", 2)
        r.set("f:c", 3)
        r.execute_command("SELECT", 0)
        dirty = r.info("persistence")["rdb_changes_since_last_save"]
        eq(r.flushdb(), True)
        eq(r.info("persistence")["rdb_changes_since_last_save"] - dirty, 2)
        eq(r.dbsize(), 0)
        eq(r.info("keyspace"), {"db2": {"keys": 1, "expires": 0, "avg_ttl": 0}})
        eq(r2.cmd("FLUSHDB", "ASYNC"), b"OK")
        eq(r2.cmd("FLUSHDB", "sync"), b"OK")
        expect_error(lambda: r.execute_command("FLUSHDB", "now"), "syntax error")
        expect_error(lambda: r.execute_command("FLUSHDB", "SYNC", "SYNC"), "syntax error")

    @case("FLUSHALL empties every database, and a WATCHed key it removes makes EXEC fail")
    def _():
        r.set("w:k", 1)
        r.execute_command("SELECT", 5)
        r.set("w:other", 1)
        r.execute_command("SELECT", 0)
        w = Raw(srv.port)
        try:
            eq(w.cmd("WATCH", "w:k"), b"OK")
            eq(r.flushall(), True)
            eq(w.cmd("MULTI"), b"OK")
            eq(w.cmd("SET", "w:k", 2), b"QUEUED")
            eq(w.cmd("EXEC"), None)
        finally:
            w.close()
        eq(r.info("keyspace"), {})
        eq(r2.cmd("FLUSHALL", "ASYNC"), b"OK")
        expect_error(lambda: r.execute_command("FLUSHALL", "x"), "syntax error")

    @case("TIME is [seconds, microseconds] as bulk strings, close to the clock")
    def _():
        sec, usec = r2.cmd("TIME")
        assert isinstance(sec, bytes) and isinstance(usec, bytes)
        assert abs(int(sec) + int(usec) / 1e6 - time.time()) < 5
        assert 0 <= int(usec) < 1000000
        expect_error(lambda: r.execute_command("TIME", "x"), "wrong number of arguments for 'time' command")

    @case("LASTSAVE is an integer time no later than now")
    def _():
        t = r.lastsave()
        assert abs(t.timestamp() - time.time()) < 3600, t
        assert isinstance(r3.cmd("LASTSAVE"), int)

    # ---- DEBUG ----

    @case("DEBUG SLEEP blocks the server for the decimal seconds given, then answers OK")
    def _():
        t0 = time.time()
        eq(r.execute_command("DEBUG", "SLEEP", "0.25"), b"OK")
        assert time.time() - t0 >= 0.24
        eq(r.execute_command("DEBUG", "SLEEP", "0"), b"OK")
        eq(r.execute_command("DEBUG", "SLEEP", "abc"), b"OK")  # strtod, as Redis

    @case("DEBUG HELP lists SLEEP and other DEBUG subcommands answer Redis's syntax error")
    def _():
        lines = r.execute_command("DEBUG", "HELP")
        eq(lines[0], b"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        assert b"SLEEP <seconds>" in lines and lines[-1] == b"    Prints this help."
        expect_error(lambda: r.execute_command("DEBUG", "RELOAD"),
                     "unknown subcommand or wrong number of arguments for 'RELOAD'. Try DEBUG HELP.")
        expect_error(lambda: r.execute_command("DEBUG", "SLEEP"),
                     "unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.")
        expect_error(lambda: r.execute_command("DEBUG"), "wrong number of arguments for 'debug' command")

    # ---- COMMAND ----

    @case("COMMAND COUNT equals the number of entries COMMAND returns, and each entry has 10 fields")
    def _():
        entries = r3.cmd("COMMAND")
        eq(r2.cmd("COMMAND", "COUNT"), len(entries))
        assert len(entries) > 20
        for e in entries:
            eq(len(e), 10)
        names = {e[0] for e in entries}
        for n in (b"get", b"set", b"info", b"config", b"command", b"slowlog", b"shutdown"):
            assert n in names, n

    @case("COMMAND INFO of GET, SET, MSET, DBSIZE, SHUTDOWN and CONFIG|GET is what redis-server 7.0.15 answers")
    def _():
        for name, want in REDIS_COMMAND_INFO.items():
            got = r2.cmd("COMMAND", "INFO", name)
            eq(got, [want])

    @case("COMMAND INFO answers nil for an unknown command and nests subcommands as parent|sub")
    def _():
        got = r2.cmd("COMMAND", "INFO", "get", "nosuchcmd")
        eq(got[1], None)
        eq(r3.cmd("COMMAND", "INFO", "nosuchcmd"), [None])
        cfg = r2.cmd("COMMAND", "INFO", "config")[0]
        eq(cfg[0], b"config")
        eq(cfg[1], -2)
        subs = {s[0] for s in cfg[9]}
        assert {b"config|get", b"config|set", b"config|resetstat", b"config|help"} <= subs, subs

    @case("COMMAND INFO in RESP3 gives flags, ACL categories, tips and key specs as sets and maps")
    def _():
        e = r3.cmd("COMMAND", "INFO", "mset")[0]
        assert isinstance(e[2], Set) and isinstance(e[6], Set) and isinstance(e[7], Set), e
        eq(list(e[2]), [b"write", b"denyoom"])
        eq(list(e[6]), [b"@write", b"@string", b"@slow"])
        spec = e[8][0]
        assert isinstance(spec, Map), spec
        eq(list(spec.get(b"flags")), [b"OW", b"update"])
        eq(spec.get(b"begin_search"), Map([(b"type", b"index"), (b"spec", Map([(b"index", 1)]))]))
        eq(spec.get(b"find_keys"), Map([(b"type", b"range"),
                                        (b"spec", Map([(b"lastkey", -1), (b"keystep", 2), (b"limit", 0)]))]))
        eq(e[9], Set())

    @case("COMMAND LIST names every command and subcommand, and filters by pattern and ACL category")
    def _():
        names = set(r2.cmd("COMMAND", "LIST"))
        assert {b"get", b"config", b"config|get", b"slowlog|len"} <= names
        eq(set(r2.cmd("COMMAND", "LIST", "FILTERBY", "PATTERN", "slowlog|*")),
           {b"slowlog|get", b"slowlog|len", b"slowlog|reset", b"slowlog|help"})
        dangerous = set(r2.cmd("COMMAND", "LIST", "FILTERBY", "ACLCAT", "dangerous"))
        assert {b"flushall", b"shutdown", b"config|set"} <= dangerous and b"get" not in dangerous
        eq(r2.cmd("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuchcat"), [])
        eq(r2.cmd("COMMAND", "LIST", "FILTERBY", "MODULE", "m"), [])
        raw_error(r2, "ERR syntax error", "COMMAND", "LIST", "FILTERBY", "x", "y")
        raw_error(r2, "ERR syntax error", "COMMAND", "LIST", "foo")

    @case("COMMAND DOCS maps each name to its summary, since, group, complexity and subcommands")
    def _():
        d = r3.cmd("COMMAND", "DOCS", "get", "config", "nosuchcmd")
        assert isinstance(d, Map)
        eq([k for k, _ in d], [b"get", b"config"])
        get = d.get(b"get")
        eq([k for k, _ in get], [b"summary", b"since", b"group", b"complexity"])
        eq(get.get(b"group"), b"string")
        subs = d.get(b"config").get(b"subcommands")
        assert isinstance(subs, Map) and subs.get(b"config|get").get(b"since") == b"2.0.0", subs
        flat = r2.cmd("COMMAND", "DOCS", "dbsize")
        eq(flat[0], b"dbsize")
        eq(len(r2.cmd("COMMAND", "DOCS")), 2 * r2.cmd("COMMAND", "COUNT"))

    @case("COMMAND GETKEYS and GETKEYSANDFLAGS find the keys as Redis does, with its errors")
    def _():
        eq(r2.cmd("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"), [b"a", b"b"])
        eq(r2.cmd("COMMAND", "GETKEYS", "GET", "k"), [b"k"])
        eq(r2.cmd("COMMAND", "GETKEYSANDFLAGS", "MSET", "a", "1"), [[b"a", [b"OW", b"update"]]])
        raw_error(r2, "ERR Invalid command specified", "COMMAND", "GETKEYS", "nosuch", "a")
        raw_error(r2, "ERR The command has no key arguments", "COMMAND", "GETKEYS", "CONFIG", "GET", "x")
        raw_error(r2, "ERR Invalid number of arguments specified for command",
                  "COMMAND", "GETKEYS", "GET", "a", "b")

    @case("COMMAND HELP is Redis's text, and an unknown COMMAND subcommand is Redis's error")
    def _():
        lines = r2.cmd("COMMAND", "HELP")
        eq(lines[0], b"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        eq(len(lines), 21)
        eq(lines[-2:], [b"HELP", b"    Prints this help."])
        raw_error(r2, "ERR unknown subcommand 'FOO'. Try COMMAND HELP.", "COMMAND", "FOO")

    # ---- CONFIG ----

    @case("CONFIG GET matches globs case-insensitively, answers each directive once, as a map in RESP3")
    def _():
        eq(r.config_get("maxmemory"), {"maxmemory": "0"})
        eq(r.execute_command("CONFIG", "GET", "MAXMEMORY"), [b"MAXMEMORY", b"0"])
        got = r.execute_command("CONFIG", "GET", "maxmemory*", "maxmemory", "MAXMEM*")
        names = got[0::2]
        eq(sorted(names), [b"maxmemory", b"maxmemory-policy", b"maxmemory-samples"])
        eq(r.execute_command("CONFIG", "GET", "nosuchdirective"), [])
        m = r3.cmd("CONFIG", "GET", "hz")
        assert isinstance(m, Map)
        eq(list(m), [(b"hz", b"10")])
        assert len(r.config_get("*")) >= 10

    @case("CONFIG SET changes a value that CONFIG GET then reads back, and several at once")
    def _():
        eq(r.config_set("maxmemory", "10mb"), True)
        eq(r.config_get("maxmemory"), {"maxmemory": "10485760"})
        eq(r.execute_command("CONFIG", "SET", "maxmemory", "0", "timeout", "30", "loglevel", "verbose"), b"OK")
        eq(r.config_get("maxmemory"), {"maxmemory": "0"})
        eq(r.config_get("timeout"), {"timeout": "30"})
        eq(r.config_get("loglevel"), {"loglevel": "verbose"})
        r.execute_command("CONFIG", "SET", "timeout", "0", "loglevel", "notice")

    @case("CONFIG GET save answers the empty schedule (as redis-benchmark reads it); SET takes \"\" and refuses a schedule")
    def _():
        eq(r.execute_command("CONFIG", "GET", "save"), [b"save", b""])
        eq(r.execute_command("CONFIG", "SET", "save", ""), b"OK")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "save", "3600 1"),
                     "CONFIG SET failed (possibly related to argument 'save') - snapshots (RDB) are not supported: "
                     "the only schedule is \"\" (none); Scratchpad persists through the append-only log (appendonly)")
        eq(r.execute_command("CONFIG", "GET", "save"), [b"save", b""])

    @case("CONFIG SET errors are Redis 7's: unknown, immutable, duplicate, bad value, odd arguments")
    def _():
        expect_error(lambda: r.config_set("xyz", "1"), "Unknown option or number of arguments for CONFIG SET - 'xyz'")
        expect_error(lambda: r.config_set("port", "1234"),
                     "CONFIG SET failed (possibly related to argument 'port') - can't set immutable config")
        expect_error(lambda: r.config_set("maxmemory", "abc"),
                     "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "hz", "5", "hz", "6"),
                     "CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "maxmemory", "1", "hz"), "syntax error")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "maxmemory"),
                     "wrong number of arguments for 'config|set' command")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "loglevel", "loud"),
                     "CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of "
                     "the following: debug, verbose, notice, warning")
        expect_error(lambda: r.execute_command("CONFIG", "GET"), "wrong number of arguments for 'config|get' command")
        expect_error(lambda: r.execute_command("CONFIG", "REWRITE"), "unknown subcommand 'REWRITE'. Try CONFIG HELP.")

    @case("CONFIG SET of several values changes none of them when one is invalid")
    def _():
        before = r.config_get("*")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "maxmemory", "1mb", "timeout", "7", "hz", "abc"),
                     "CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an "
                     "integer")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "maxmemory", "2mb", "databases", "4"),
                     "CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config")
        expect_error(lambda: r.execute_command("CONFIG", "SET", "slowlog-max-len", "5", "nosuch", "1"),
                     "Unknown option or number of arguments for CONFIG SET - 'nosuch'")
        eq(r.config_get("*"), before)

    @case("CONFIG RESETSTAT zeroes the command, connection and keyspace counters")
    def _():
        r.get("rs:none")
        eq(r.execute_command("CONFIG", "RESETSTAT"), b"OK")
        st = r.info("stats")
        assert st["total_commands_processed"] <= 2, st["total_commands_processed"]
        eq(st["keyspace_misses"], 0)
        eq(st["keyspace_hits"], 0)
        eq(st["expired_keys"], 0)

    @case("CONFIG RESETSTAT clears the error counts of INFO errorstats and total_error_replies")
    def _():
        try:
            r.execute_command("INCR", "rs:notanumber:missing", "extra")
        except redis.ResponseError:
            pass
        r.execute_command("CONFIG", "RESETSTAT")
        eq(r.info("stats")["total_error_replies"], 0)
        eq(parse_info(r2.cmd("INFO", "errorstats").decode())["errorstats"], {})

    @case("CONFIG HELP is Redis's text without REWRITE")
    def _():
        lines = r.execute_command("CONFIG HELP")
        eq(lines[0], b"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
        assert b"GET <pattern>" in lines and b"REWRITE" not in lines
        eq(lines[-2:], [b"HELP", b"    Prints this help."])

    # ---- SLOWLOG ----

    @case("SLOWLOG with slowlog-log-slower-than 0 records every command, newest first, as 6-field entries")
    def _():
        c = srv.client(client_name="slowpoke")
        c.config_set("slowlog-log-slower-than", "0")
        try:
            eq(c.execute_command("SLOWLOG", "RESET"), b"OK")
            c.set("sl:key", "value")
            c.get("sl:key")
            entries = c.execute_command("SLOWLOG", "GET")
            eq([e[3] for e in entries[:3]], [[b"GET", b"sl:key"], [b"SET", b"sl:key", b"value"],
                                             [b"SLOWLOG", b"RESET"]])
            e = entries[0]
            eq(len(e), 6)
            assert isinstance(e[0], int) and e[0] > entries[1][0]
            assert abs(e[1] - time.time()) < 60
            assert e[2] >= 0
            assert e[4].startswith(b"127.0.0.1:"), e[4]
            eq(e[5], b"slowpoke")
            eq(len(c.execute_command("SLOWLOG", "GET", "1")), 1)
            n = c.execute_command("SLOWLOG", "LEN")
            assert n >= 5, n
            eq(len(c.execute_command("SLOWLOG", "GET", "-1")), c.execute_command("SLOWLOG", "LEN") - 1)
            eq(c.execute_command("SLOWLOG", "GET", "0"), [])
        finally:
            c.config_set("slowlog-log-slower-than", "10000")
            c.execute_command("SLOWLOG", "RESET")
            c.close()

    @case("SLOWLOG keeps at most slowlog-max-len entries and RESET empties it")
    def _():
        r.config_set("slowlog-max-len", "3")
        r.config_set("slowlog-log-slower-than", "0")
        try:
            for i in range(10):
                r.set("sl:%d" % i, i)
            eq(r.execute_command("SLOWLOG", "LEN"), 3)
        finally:
            r.config_set("slowlog-log-slower-than", "-1")
            r.config_set("slowlog-max-len", "128")
        eq(r.execute_command("SLOWLOG", "RESET"), b"OK")
        eq(r.execute_command("SLOWLOG", "LEN"), 0)
        r.config_set("slowlog-log-slower-than", "10000")

    @case("SLOWLOG entries have the same shape in RESP3, and SLOWLOG errors are Redis's")
    def _():
        r3.cmd("CONFIG", "SET", "slowlog-log-slower-than", "0")
        r3.cmd("PING")
        got = r3.cmd("SLOWLOG", "GET", "1")
        r3.cmd("CONFIG", "SET", "slowlog-log-slower-than", "10000")
        eq(len(got), 1)
        eq(len(got[0]), 6)
        eq(got[0][3], [b"PING"])
        expect_error(lambda: r.execute_command("SLOWLOG", "GET", "abc"), "count should be greater than or equal to -1")
        expect_error(lambda: r.execute_command("SLOWLOG", "GET", "-2"), "count should be greater than or equal to -1")
        expect_error(lambda: r.execute_command("SLOWLOG", "GET", "1", "2"),
                     "unknown subcommand or wrong number of arguments for 'GET'. Try SLOWLOG HELP.")
        expect_error(lambda: r.execute_command("SLOWLOG", "LEN", "x"),
                     "wrong number of arguments for 'slowlog|len' command")
        expect_error(lambda: r.execute_command("SLOWLOG", "FOO"), "unknown subcommand 'FOO'. Try SLOWLOG HELP.")
        lines = r.execute_command("SLOWLOG", "HELP")
        eq(lines[-2:], [b"HELP", b"    Prints this help."])

    # ---- SHUTDOWN (last: it ends the server) ----

    @case("SHUTDOWN ABORT, bad options, and SHUTDOWN inside MULTI are refused as Redis refuses them")
    def _():
        expect_error(lambda: r.execute_command("SHUTDOWN", "ABORT"), "No shutdown in progress.")
        expect_error(lambda: r.execute_command("SHUTDOWN", "NOSAVE", "SAVE"), "syntax error")
        expect_error(lambda: r.execute_command("SHUTDOWN", "ABORT", "NOW"), "syntax error")
        expect_error(lambda: r.execute_command("SHUTDOWN", "SOON"), "syntax error")
        m = Raw(srv.port)
        try:
            eq(m.cmd("MULTI"), b"OK")
            err = m.cmd("SHUTDOWN")
            assert isinstance(err, RespError) and str(err) == "ERR Command not allowed inside a transaction", err
            eq(m.cmd("DISCARD"), b"OK")
        finally:
            m.close()
        eq(r.ping(), True)

    @case("SHUTDOWN NOSAVE closes the connection without a reply and the process exits with status 0")
    def _():
        s = Raw(srv.port)
        s.send("SHUTDOWN", "NOSAVE")
        s.send("SET", "never", "run")
        try:
            got = s.read()
            raise AssertionError("got a reply: %r" % (got,))
        except (ConnectionError, OSError):
            pass
        finally:
            s.close()
        eq(srv.proc.wait(timeout=TIMEOUT), 0)

    r3.close()


if __name__ == "__main__":
    raise SystemExit(main())
