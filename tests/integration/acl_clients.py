#!/usr/bin/python3
"""acl_clients.py -- the project's own clients as an ACL user.

A harness gives each agent its own user: scratchpad-mcp takes it in its URL
(redis://user:password@host:port/db), the Python package through the
redis-py client it is given (redis.Redis.from_url with the same URL, or
username=/password=). Against a server whose agent-a user may reach only
agent-a:* keys: the MCP server's tools work on its namespace agent-a:proj and
fail with the server's NOPERM text on agent-b:proj; a wrong password is
refused at connect time; the Python package does the same through its
exception. (The C library's username option: client/tests/test_sync.c.)
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import TOP, Reporter, Server  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "client", "python"))
import redis  # noqa: E402
import scratchpad  # noqa: E402

MCP = os.path.join(TOP, os.environ.get("BUILD", "build"), "scratchpad-mcp")
NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments"


class Session:
    def __init__(self, url, ns):
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen([MCP, "--url", url, "--namespace", ns], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err)
        self.next_id = 0

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            assert line, "scratchpad-mcp closed stdout"
            reply = json.loads(line)
            if "id" in reply:
                return reply

    def call(self, name, args):
        res = self.request("tools/call", {"name": name, "arguments": args})["result"]
        return res["content"][0]["text"], res["isError"]

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(10)
        self.err.seek(0)
        err = self.err.read().decode(errors="replace")
        self.err.close()
        return rc, err


def main():
    r = Reporter()
    srv = Server("--appendonly", "no", "--user", "agent-a", "on", ">pw-a", "~agent-a:*", "+@all", "-@dangerous")
    srv.start()
    url = "redis://agent-a:pw-a@127.0.0.1:%d/0" % srv.port
    try:
        def mcp_own_and_other():
            own = Session(url, "agent-a:proj")
            own.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                       "clientInfo": {"name": "t", "version": "1"}})
            text, err = own.call("scratchpad_write", {"name": "plan", "content": "mine\n"})
            assert not err and "version 1" in text, text
            text, err = own.call("scratchpad_read", {"name": "plan"})
            assert not err and "mine" in text, text
            rc, log = own.close()
            assert rc == 0, log
            other = Session(url, "agent-b:proj")
            other.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                         "clientInfo": {"name": "t", "version": "1"}})
            text, err = other.call("scratchpad_write", {"name": "plan", "content": "planted\n"})
            assert err and NOPERM_KEY in text, text
            text, err = other.call("scratchpad_list", {})
            assert err and NOPERM_KEY in text, text
            rc, log = other.close()
            assert rc == 0, log
            assert redis.Redis(port=srv.port).exists("agent-b:proj") == 0

        r.case("scratchpad-mcp with redis://agent-a:pw@...: its namespace works, agent-b's is NOPERM", mcp_own_and_other)

        def mcp_wrong_password():
            s = Session("redis://agent-a:nope@127.0.0.1:%d/0" % srv.port, "agent-a:proj")
            s.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}})
            text, err = s.call("scratchpad_list", {})
            assert err and "WRONGPASS" in text, text
            s.close()

        r.case("scratchpad-mcp with a wrong password: the tools say WRONGPASS", mcp_wrong_password)

        def python_package():
            client = redis.Redis.from_url(url)
            mine = scratchpad.Scratchpad(client, "agent-a:py")
            mine.write("notes", "hello")
            assert mine.read("notes").content == "hello"
            theirs = scratchpad.Scratchpad(client, "agent-b:py")
            try:
                theirs.write("notes", "planted")
                raise AssertionError("wrote agent-b's scratchpad")
            except scratchpad.PermissionDenied as e:
                assert str(e) == NOPERM_KEY, e
            assert client.acl_whoami() in (b"agent-a", "agent-a")

        r.case("the Python package on redis.Redis.from_url(redis://agent-a:pw@...) is confined the same way",
               python_package)

        def redis_cli_same():
            sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
            import difftest
            other = difftest.RedisServer("--user", "agent-a", "on", ">pw-a", "~agent-a:*", "+@all", "-@dangerous")
            try:
                runs = [
                    ["--user", "agent-a", "--pass", "pw-a", "ACL", "WHOAMI"],
                    ["--user", "agent-a", "--pass", "pw-a", "SET", "agent-b:x", "1"],
                    ["--user", "agent-a", "--pass", "pw-a", "FLUSHALL"],
                    ["--user", "agent-a", "--pass", "pw-a", "CONFIG", "GET", "maxmemory"],
                    ["--user", "agent-a", "--pass", "nope", "PING"],
                    ["ACL", "SETUSER", "agent-c", "on", ">x", "~c*", "+get", "(+set", "~d*)"],
                    ["ACL", "GETUSER", "agent-c"],
                    ["ACL", "DRYRUN", "agent-c", "SET", "c1", "v"],
                    ["ACL", "DRYRUN", "agent-c", "SET", "d1", "v"],
                    ["ACL", "SETUSER", "agent-c", "+nosuch"],
                    ["ACL", "SETUSER", "agent-c", "(~x"],
                    ["ACL", "DELUSER", "default"],
                    ["ACL", "CAT", "nosuch"],
                    ["ACL", "LOG", "RESET"],
                ]
                for args in runs:
                    outs = [subprocess.run(["redis-cli", "--no-auth-warning", "-p", str(port)] + args,
                                           capture_output=True, timeout=10).stdout for port in (other.port, srv.port)]
                    assert outs[0] == outs[1], (args, outs)
            finally:
                other.stop()

        r.case("redis-cli as an ACL user, and its ACL commands, print what they print against redis-server",
               redis_cli_same)

        def slowlog_redacted():
            sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
            import difftest
            from resp_wire import Conn
            other = difftest.RedisServer()
            try:
                got = []
                for port in (other.port, srv.port):
                    c = Conn(port)
                    for cmd in (["CONFIG", "SET", "slowlog-log-slower-than", "0"], ["SLOWLOG", "RESET"],
                                ["ACL", "SETUSER", "zz", "on", ">secretpw", "~z*"], ["AUTH", "zz", "secretpw"],
                                ["HELLO", "2", "AUTH", "zz", "secretpw", "SETNAME", "n"], ["AUTH", "default", "x"],
                                ["CONFIG", "SET", "requirepass", "pw2"], ["AUTH", "pw2"],
                                ["CONFIG", "SET", "requirepass", ""]):
                        c.call(*cmd)
                    entries = c.call("SLOWLOG", "GET", "20")[1]
                    got.append([[a[1] for a in e[1][3][1]] for e in entries])
                    c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000")
                assert got[0] == got[1], got
                assert b"secretpw" not in repr(got[1]).encode() and b"pw2" not in repr(got[1]).encode(), got[1]
            finally:
                other.stop()

        r.case("SLOWLOG shows AUTH, HELLO AUTH, ACL SETUSER and CONFIG SET requirepass redacted, as redis-server",
               slowlog_redacted)
    finally:
        srv.stop()
    r.finish()


if __name__ == "__main__":
    main()
