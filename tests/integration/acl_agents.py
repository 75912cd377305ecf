#!/usr/bin/python3
"""acl_agents.py -- agents sharing one server, each confined by its ACL user.

The set-up docs/security.md recommends: one user per agent,
`ACL SETUSER agent-a on >pw ~agent-a:* +@all -@dangerous`, the default user
for the operator. Agent A must not read, list, write, fork from or into, or
delete agent B's scratchpads (SP.READ, SP.LIST, SP.WRITE, SP.DEL, SP.FORK,
DEL, EVAL), nor run FLUSHALL, SHUTDOWN, CONFIG, CLIENT KILL, DEBUG or KEYS;
each denial must be in ACL LOG with Redis's fields; its own scratchpads work
as before. Then the users survive ACL SAVE and a restart (aclfile), ACL
LOAD applies an edited file, CLIENT KILL USER closes a user's connections,
and redis-py's own ACL methods and username/password connections work.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402
from resp_wire import Conn  # noqa: E402

import redis  # noqa: E402

r = spserver.Reporter()


def plain(node):
    t, v = node
    if t == "-":
        return ("ERR", v.decode())
    if t == ":":
        return int(v)
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def call(conn, *args):
    return plain(conn.call(*args))


def login(port, user, pw):
    c = Conn(port)
    assert call(c, "AUTH", user, pw) == b"OK"
    return c


NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments"


def nopermcmd(name):
    return "NOPERM this user has no permissions to run the '%s' command" % name


def main():
    srv = spserver.Server("--appendonly", "no", "--aclfile", "users.acl")
    srv.dir = __import__("tempfile").mkdtemp(prefix="sp-acl-")
    with open(os.path.join(srv.dir, "users.acl"), "w") as f:
        f.write("user default on nopass ~* &* +@all\n")
    srv.start()
    try:
        run(srv)
    finally:
        srv.stop()
        if not os.environ.get("KEEP_TEST_DIRS"):
            __import__("shutil").rmtree(srv.dir, ignore_errors=True)


def run(srv):
    admin = Conn(srv.port)
    for who in ("a", "b"):
        assert call(admin, "ACL", "SETUSER", "agent-" + who, "on", ">pw-" + who, "~agent-%s:*" % who, "+@all",
                    "-@dangerous") == b"OK"
    a = login(srv.port, "agent-a", "pw-a")
    b = login(srv.port, "agent-b", "pw-b")
    b_id = call(b, "CLIENT", "ID")
    assert call(b, "SP.WRITE", "agent-b:work", "secret", "the plan") == 1
    assert call(a, "SP.WRITE", "agent-a:work", "notes", "mine") == 1

    def own_scratchpad_works():
        assert call(a, "SP.READ", "agent-a:work", "notes") == b"mine", call(a, "SP.READ", "agent-a:work", "notes")
        assert call(a, "ACL", "WHOAMI") == b"agent-a"

    r.case("agent A reads and writes its own scratchpads as before", own_scratchpad_works)

    denials = [
        (["SP.READ", "agent-b:work", "secret"], NOPERM_KEY, "key", "agent-b:work"),
        (["SP.LIST", "agent-b:work"], NOPERM_KEY, "key", "agent-b:work"),
        (["SP.WRITE", "agent-b:work", "secret", "overwritten"], NOPERM_KEY, "key", "agent-b:work"),
        (["SP.DEL", "agent-b:work", "secret"], NOPERM_KEY, "key", "agent-b:work"),
        (["DEL", "agent-b:work"], NOPERM_KEY, "key", "agent-b:work"),
        (["SP.FORK", "agent-b:work", "agent-a:stolen"], NOPERM_KEY, "key", "agent-b:work"),
        (["SP.FORK", "agent-a:work", "agent-b:planted"], NOPERM_KEY, "key", "agent-b:planted"),
        (["FLUSHALL"], nopermcmd("flushall"), "command", "flushall"),
        (["SHUTDOWN", "NOSAVE"], nopermcmd("shutdown"), "command", "shutdown"),
        (["CONFIG", "SET", "requirepass", "x"], nopermcmd("config|set"), "command", "config|set"),
        (["CONFIG", "GET", "requirepass"], nopermcmd("config|get"), "command", "config|get"),
        (["CLIENT", "KILL", "ID", str(b_id)], nopermcmd("client|kill"), "command", "client|kill"),
        (["DEBUG", "SLEEP", "0"], nopermcmd("debug"), "command", "debug"),
        (["KEYS", "*"], nopermcmd("keys"), "command", "keys"),
        (["ACL", "SETUSER", "agent-a", "~*"], nopermcmd("acl|setuser"), "command", "acl|setuser"),
    ]
    for args, err, reason, obj in denials:
        def denied(args=args, err=err):
            got = call(a, *args)
            assert got == ("ERR", err), got
        r.case("agent A is refused %s (%s)" % (" ".join(args[:3]), err.split(" ", 1)[0]), denied)

    def script_denied():
        # named in KEYS, EVAL itself is refused (its keys are checked as any command's)
        got = call(a, "EVAL", "return redis.call('sp.read', KEYS[1], 'secret')", "1", "agent-b:work")
        assert got == ("ERR", NOPERM_KEY), got
        # hidden in ARGV, the script's own call is checked as agent A
        got = call(a, "EVAL", "return redis.call('sp.read', ARGV[1], 'secret')", "0", "agent-b:work")
        assert got[0] == "ERR" and got[1].startswith(
            "ERR The user executing the script can't access at least one of the keys mentioned in the command "
            "arguments script:"), got

    r.case("agent A's script cannot read agent B's scratchpad, in KEYS or ARGV (redis.call runs as A)",
           script_denied)

    def multi_denied():
        assert call(a, "MULTI") == b"OK"
        assert call(a, "SP.READ", "agent-b:work", "secret") == ("ERR", NOPERM_KEY)
        got = call(a, "EXEC")
        assert got == ("ERR", "EXECABORT Transaction discarded because of previous errors."), got

    r.case("agent A's MULTI naming B's scratchpad is refused at queue time and EXEC aborts", multi_denied)

    def b_untouched():
        assert call(b, "SP.READ", "agent-b:work", "secret") == b"the plan"
        assert call(admin, "EXISTS", "agent-a:stolen", "agent-b:planted") == 0
        assert call(b, "PING") == b"PONG"  # B was not killed

    r.case("agent B's scratchpad and connection are untouched after A's attempts", b_untouched)

    def logged():
        entries = call(admin, "ACL", "LOG", "100")
        seen = set()
        for e in entries:
            d = {e[i]: e[i + 1] for i in range(0, len(e), 2)}
            assert set(d) == {b"count", b"reason", b"context", b"object", b"username", b"age-seconds",
                              b"client-info"}, d.keys()
            assert d[b"username"] == b"agent-a"
            assert b"user=agent-a" in d[b"client-info"]
            seen.add((d[b"reason"].decode(), d[b"object"].decode(), d[b"context"].decode()))
        for args, err, reason, obj in denials:
            assert (reason, obj, "toplevel") in seen, (reason, obj, sorted(seen))
        assert ("key", "agent-b:work", "lua") in seen and ("key", "agent-b:work", "multi") in seen, sorted(seen)

    r.case("every denial is in ACL LOG with Redis's fields, user agent-a and its context", logged)

    def scan_not_filtered():
        # As Redis: SCAN is not filtered by key patterns (docs/security.md).
        cursor, keys = call(a, "SCAN", "0", "COUNT", "100")
        assert b"agent-b:work" in keys, keys

    r.case("SCAN lists every key name, as in Redis (names, not contents: documented)", scan_not_filtered)

    def client_list_user():
        lst = call(admin, "CLIENT", "LIST").decode()
        assert "user=agent-a" in lst and "user=agent-b" in lst and "user=default" in lst, lst

    r.case("CLIENT LIST shows each connection's user", client_list_user)

    def wrongpass():
        c = Conn(srv.port)
        got = call(c, "AUTH", "agent-a", "nope")
        assert got == ("ERR", "WRONGPASS invalid username-password pair or user is disabled."), got
        got = call(c, "HELLO", "3", "AUTH", "agent-a", "nope")
        assert got == ("ERR", "WRONGPASS invalid username-password pair or user is disabled."), got
        e = call(admin, "ACL", "LOG", "1")[0]
        d = {e[i]: e[i + 1] for i in range(0, len(e), 2)}
        assert d[b"reason"] == b"auth" and d[b"object"] == b"HELLO" and d[b"username"] == b"agent-a", d

    r.case("a wrong password is -WRONGPASS (AUTH and HELLO AUTH) and logged with reason auth", wrongpass)

    def channels():
        assert call(admin, "ACL", "SETUSER", "listener", "on", ">pw-l", "&news:*", "+@all") == b"OK"
        lis = login(srv.port, "listener", "pw-l")
        pat = login(srv.port, "listener", "pw-l")
        assert call(lis, "SUBSCRIBE", "other") == ("ERR", "NOPERM this user has no permissions to access one of "
                                                   "the channels used as arguments")
        assert call(lis, "SUBSCRIBE", "news:1")[0] == b"subscribe"
        assert call(pat, "PSUBSCRIBE", "news:*")[0] == b"psubscribe"
        assert call(a, "PUBLISH", "news:1", "x") == ("ERR", "NOPERM this user has no permissions to access one of "
                                                    "the channels used as arguments")
        assert call(admin, "ACL", "SETUSER", "listener", "resetchannels", "&news:1") == b"OK"
        raw, node = pat.read_to_eof(2.0)  # its pattern news:* is no longer allowed: closed, as Redis 7.0
        assert node[0] == "EOF", node
        assert call(admin, "PUBLISH", "news:1", "still") == 1  # lis keeps news:1, still allowed
        assert lis.read_reply()[1][1][2] == ("$", b"still")

    r.case("channels: &patterns allow SUBSCRIBE/PSUBSCRIBE/PUBLISH; taking a channel away closes the "
           "connections subscribed to it", channels)

    def kill_user():
        got = call(admin, "CLIENT", "KILL", "USER", "agent-b")
        assert got == 1, got
        raw, node = b.read_to_eof(2.0)
        assert node[0] == "EOF", node
        assert call(admin, "CLIENT", "KILL", "USER", "nobody") == ("ERR", "ERR No such user 'nobody'")

    r.case("CLIENT KILL USER closes that user's connections; an unknown user is an error", kill_user)

    def save_restart():
        before = call(admin, "ACL", "LIST")
        assert call(admin, "ACL", "SAVE") == b"OK"
        with open(os.path.join(srv.dir, "users.acl")) as f:
            text = f.read()
        assert "user agent-a on #" in text and "pw-a" not in text, text
        srv.restart()
        adm = Conn(srv.port)
        assert call(adm, "ACL", "LIST") == before
        a2 = login(srv.port, "agent-a", "pw-a")
        assert call(a2, "SP.READ", "agent-b:work", "secret") == ("ERR", NOPERM_KEY)

    r.case("ACL SAVE writes hashes, not passwords, and a restart loads the same users", save_restart)

    def load_edited():
        adm = Conn(srv.port)
        with open(os.path.join(srv.dir, "users.acl"), "a") as f:
            f.write("user agent-c on >pw-c ~agent-c:* +@read\n")
        a2 = login(srv.port, "agent-a", "pw-a")
        assert call(adm, "ACL", "LOAD") == b"OK"
        c = login(srv.port, "agent-c", "pw-c")
        assert call(c, "SET", "agent-c:x", "1") == ("ERR", nopermcmd("set"))
        raw, node = a2.read_to_eof(2.0)  # users replaced by ACL LOAD: their clients are closed, as Redis
        assert node[0] == "EOF", node
        with open(os.path.join(srv.dir, "users.acl"), "a") as f:
            f.write("user agent-d on +nosuch\n")
        got = call(adm, "ACL", "LOAD")
        assert got[0] == "ERR" and "Error in applying operation '+nosuch'" in got[1] and \
            "no change to the previously active ACL rules was performed" in got[1], got
        assert b"agent-d" not in call(adm, "ACL", "USERS")

    r.case("ACL LOAD applies an edited file, and refuses a bad one whole", load_edited)

    def with_redis_py():
        adm = redis.Redis(port=srv.port)
        assert adm.acl_setuser("py", enabled=True, passwords=["+pypw"], keys=["py:*"], commands=["+@all", "-@dangerous"])
        u = adm.acl_getuser("py")
        assert "on" in u["flags"] and u["keys"] == ["~py:*"] and u["categories"] == ["+@all", "-@dangerous"], u
        c = redis.Redis(port=srv.port, username="py", password="pypw")
        assert c.acl_whoami() in (b"py", "py")
        assert c.set("py:1", "v") and c.get("py:1") == b"v"
        try:
            c.get("other")
            raise AssertionError("read outside py:* allowed")
        except redis.exceptions.NoPermissionError:
            pass
        try:
            redis.Redis(port=srv.port, username="py", password="bad").ping()
            raise AssertionError("wrong password accepted")
        except (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError) as e:
            assert "WRONGPASS" in str(e) or isinstance(e, redis.exceptions.AuthenticationError), e
        assert "py" in [x.decode() if isinstance(x, bytes) else x for x in adm.acl_users()]
        assert "write" in [x.decode() if isinstance(x, bytes) else x for x in adm.acl_cat()]
        assert len(adm.acl_genpass()) == 64 and len(adm.execute_command("ACL", "GENPASS", "5")) == 2
        assert adm.acl_dryrun("py", "get", "other") is not None
        assert adm.acl_log(count=1)
        assert adm.acl_log_reset()
        assert adm.acl_deluser("py") == 1

    r.case("redis-py: ACL methods, username/password connections, NoPermissionError, WRONGPASS",
           with_redis_py)


def config_users():
    """`user` lines in the configuration file; with aclfile too, or a bad
    aclfile, the server refuses to start."""
    import subprocess
    import tempfile
    import time
    d = tempfile.mkdtemp(prefix="sp-aclconf-")

    def start(lines, timeout=10.0):
        conf = os.path.join(d, "s.conf")
        with open(conf, "w") as f:
            f.write("appendonly no\n" + "".join(x + "\n" for x in lines))
        port = spserver.free_port()
        log = open(os.path.join(d, "log"), "wb")
        p = subprocess.Popen([spserver.server_binary(), conf, "--port", str(port), "--bind", "127.0.0.1"], cwd=d,
                             stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and p.poll() is None:
            try:
                reply = spserver.raw_command(port, "PING", timeout=0.5)
                if reply == b"+PONG" or reply.startswith(b"-NOAUTH"):
                    break
            except OSError:
                pass
            time.sleep(0.02)
        return p, port

    def stop(p):
        if p.poll() is None:
            p.terminate()
            p.wait(10)
        return open(os.path.join(d, "log")).read()

    def file_lines():
        p, port = start(["user agent-z on >pw-z ~z:* +@all", "user default on >op"])
        try:
            z = login(port, "agent-z", "pw-z")
            assert call(z, "SET", "z:1", "v") == b"OK" and call(z, "GET", "y") == ("ERR", NOPERM_KEY)
            c = Conn(port)
            assert call(c, "PING") == ("ERR", "NOAUTH Authentication required.")
            assert call(c, "AUTH", "op") == b"OK"
        finally:
            stop(p)

    r.case("user lines of the configuration file define users (default's password included)", file_lines)

    def both_refused():
        open(os.path.join(d, "users.acl"), "w").write("user default on nopass ~* &* +@all\n")
        p, port = start(["user agent-z on", "aclfile users.acl"])
        p.wait(10)
        log = stop(p)
        assert p.returncode != 0 and "not both" in log, log

    r.case("user lines and an aclfile together refuse to start", both_refused)

    def bad_file():
        open(os.path.join(d, "users.acl"), "w").write("user default on nopass ~* &* +@all\nuser x +nosuch\n")
        p, port = start(["aclfile users.acl"])
        p.wait(10)
        log = stop(p)
        assert p.returncode != 0 and "Aborting Scratchpad startup because of ACL errors" in log and \
            "users.acl:2: Error in applying operation '+nosuch'" in log, log

    r.case("an aclfile with a bad line refuses to start, naming the line", bad_file)
    if not os.environ.get("KEEP_TEST_DIRS"):
        __import__("shutil").rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
    config_users()
    r.finish()
