"""mcp_stdio.py -- scratchpad-mcp over stdio, a whole session against a real server.

Drives build/scratchpad-mcp as a harness does (JSON-RPC 2.0, one message a
line): initialize with version negotiation, notifications/initialized, ping,
tools/list (equal to the generated client/tools.json), every tool called with
good arguments and with bad ones (errors are isError results with the reason),
an agent's cycle (snapshot, write with metadata, diff, history, read of an
earlier version, revert, restore), every integer bound and name edge of every
schema sent to the server, snapshot labels and metadata at their bounds (a
schema admits only calls the server accepts), JSON-RPC errors (-32700, -32600,
-32601, -32602) with the session going on, the namespace fixed by the harness,
the Python package rendering the same texts as the C dispatcher, and the
server stopped and started again underneath (a tool error, then service again).
"""

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import TOP, Reporter, Server, server_binary  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "client", "python"))
import redis  # noqa: E402
import scratchpad  # noqa: E402

MCP = os.path.join(TOP, os.environ.get("BUILD", "build"), "scratchpad-mcp")
NS = "mcp-test"


class Session:
    def __init__(self, port, ns=NS, db=0, extra=(), env=None):
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen([MCP, "--url", "redis://127.0.0.1:%d/%d" % (port, db), "--namespace", ns] +
                                  list(extra), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                  env=env)
        self.next_id = 0
        self.notes = []

    def send_line(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        assert line, "scratchpad-mcp closed stdout"
        return json.loads(line)

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_line(json.dumps(msg))
        reply = self.recv()
        while "method" in reply and "id" not in reply:  # a notification of ours on the way
            self.notes.append(reply)
            reply = self.recv()
        assert reply["id"] == self.next_id, reply
        return reply

    def wait_note(self, timeout=5.0):
        """The next notification from the server, or None after timeout seconds."""
        if self.notes:
            return self.notes.pop(0)
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        return self.recv() if ready else None

    def call(self, name, args):
        reply = self.request("tools/call", {"name": name, "arguments": args})
        assert "result" in reply, reply
        content = reply["result"]["content"]
        assert len(content) == 1 and content[0]["type"] == "text", reply
        return content[0]["text"], reply["result"]["isError"]

    def close(self):
        """End of input ends the session: the process exits 0 (under ASan: nothing leaked)."""
        self.p.stdin.close()
        rc = self.p.wait(10)
        self.err.seek(0)
        err = self.err.read().decode(errors="replace")
        self.err.close()
        assert rc == 0, "scratchpad-mcp exited %d:\n%s" % (rc, err[-3000:])


def generated(form, *extra):
    return json.loads(subprocess.run([MCP, "--print-tools", form] + list(extra), check=True,
                                     capture_output=True).stdout)


# (tool, good arguments, what the text contains) in order: a whole agent session.
SESSION = [
    ("scratchpad_list", {}, "No entries."),
    ("scratchpad_write", {"name": "plan", "content": "- [ ] one\n- [ ] two\n- [ ] three\n"}, "version 1"),
    ("scratchpad_append", {"name": "log", "content": "started\n"}, "now 8 long"),
    ("scratchpad_read", {"name": "plan"}, "- [ ] two"),
    ("scratchpad_read", {"name": "plan", "offset": 2, "limit": 5}, "continue with offset=7"),
    ("scratchpad_read", {"name": "plan", "regex": "t(wo|hree)"}, "2 matching lines in 'plan':\n2:- [ ] two"),
    ("scratchpad_view", {"name": "plan", "mode": "head", "count": 5}, "- [ ]\n[truncated: 27 more characters"),
    ("scratchpad_view", {"name": "plan", "mode": "tail", "count": 6}, "three"),
    ("scratchpad_view", {"name": "plan", "mode": "lines", "start": 2, "end": 2}, "continue with start=3"),
    ("scratchpad_peek", {"name": "plan", "head": 3, "tail": 3}, "characters omitted"),
    ("scratchpad_grep", {"name": "plan", "pattern": "TWO", "ignore_case": True, "context": 1}, "1-- [ ] one"),
    ("scratchpad_grep", {"name": "plan", "pattern": "[ ]", "literal": True, "max": 1}, "(the first 1 shown)"),
    ("scratchpad_grep", {"entries": "*", "pattern": "t(wo|ed)"},
     "2 matching lines in the entries matching '*':\nlog:1:started\nplan:2:- [ ] two"),
    ("scratchpad_grep", {"entries": "nothing-*", "pattern": "x"}, "No line of the entries matching 'nothing-*'"),
    ("scratchpad_edit", {"name": "plan", "old_string": "[ ] one", "new_string": "[x] one"}, "1 replacement"),
    ("scratchpad_edit", {"name": "plan", "old_string": "[ ]", "new_string": "[?]", "replace_all": True},
     "2 replacements"),
    ("scratchpad_edit", {"name": "log", "content": "rewritten\n"}, "version 2"),
    ("scratchpad_insert", {"name": "plan", "line": 0, "content": "# plan"}, "version 4"),
    ("scratchpad_stat", {"name": "plan"}, "lines: 4"),
    ("scratchpad_lease", {"resource": "plan", "holder": "agent-a", "ttl_ms": 60000}, "with token"),
    ("scratchpad_changes", {"since": 0, "count": 2}, "write 'plan' version 1"),
    # a cycle: snapshot before, work, review what changed, undo part of it, go back
    ("scratchpad_snapshot", {"label": "before"}, "Snapshot 'before' taken: 2 entries."),
    ("scratchpad_write", {"name": "found", "content": "a\nb\n", "metadata": {"tool": "grep", "source": "src/a.c"}},
     "'found' is at version 1"),
    ("scratchpad_edit", {"name": "plan", "old_string": "# plan", "new_string": "# the plan"}, "version 5"),
    ("scratchpad_diff", {"from": "before"}, "2 entries differ from 'before' to 'NOW':\nadded 'found' (version 1, "
     "4 bytes)\nchanged 'plan' (version 4 -> 5, 39 -> 43 bytes)"),
    ("scratchpad_diff", {"from": "before", "to": "NOW", "name": "plan"},
     "--- plan@before\n+++ plan@NOW\n@@ -1,4 +1,4 @@\n-# plan\n+# the plan\n"),
    ("scratchpad_diff", {"from": "before", "name": "log"}, "'log' is the same in 'before' and 'NOW'."),
    ("scratchpad_history", {"name": "plan"}, "Versions of 'plan' kept, oldest first:\nversion 4: "),
    ("scratchpad_history", {"name": "plan"}, ", edit, 43 bytes, by (unnamed)"),
    ("scratchpad_read", {"name": "plan", "version": 4, "limit": 6}, "# plan\n[truncated: 33 more characters after "
     "this; continue with offset=6, version=4]"),
    ("scratchpad_view", {"name": "plan", "mode": "lines", "start": 1, "end": 1, "version": 4},
     "# plan\n\n[3 more lines after this; continue with start=2, version=4]"),
    ("scratchpad_revert", {"name": "plan", "version": 4}, "OK: 'plan' has the content of version 4 again, as version 6."),
    ("scratchpad_metadata", {"name": "found", "set": {"status": "checked"}}, "set 1 metadata field of 'found', "
     "now at version 2"),
    ("scratchpad_list", {"where": {"tool": "grep"}, "with_metadata": True},
     ') {"source":"src/a.c","status":"checked","tool":"grep"}'),
    ("scratchpad_list", {"where": {"tool": "grep", "status": "open"}}, "No entries."),
    ("scratchpad_stat", {"name": "found"}, 'meta: {"source":"src/a.c","status":"checked","tool":"grep"}'),
    ("scratchpad_metadata", {"name": "found", "remove": ["status", "nope"]}, "removed 1 metadata field of 'found', "
     "now at version 3"),
    ("scratchpad_metadata", {"name": "found", "clear": True}, "removed 2 metadata fields of 'found', now at version 4"),
    ("scratchpad_snapshots", {}, ", 2 entries, 49 bytes"),
    ("scratchpad_restore", {"label": "before"}, "Restored snapshot 'before': 2 entries changed, each at a new version."),
    ("scratchpad_read", {"name": "plan", "limit": 6}, "# plan\n[truncated"),
    ("scratchpad_drop_snapshot", {"label": "before"}, "Dropped snapshot 'before'."),
    ("scratchpad_snapshots", {}, "No snapshots."),
    ("scratchpad_list", {"match": "p*"}, "plan (text, "),
    ("scratchpad_delete", {"name": "log"}, "Deleted 'log'."),
    ("scratchpad_delete", {"name": "log"}, "nothing deleted"),
]

# (tool, bad arguments, what the error says)
BAD = [
    ("scratchpad_write", {"name": "plan"}, "missing required argument 'content'"),
    ("scratchpad_write", {"name": "a//b", "content": "x"}, "invalid entry name 'a//b'"),
    ("scratchpad_write", {"name": "plan", "content": 5}, "must be a string"),
    ("scratchpad_write", {"name": "plan", "content": "x", "color": "red"}, "unknown argument 'color'"),
    ("scratchpad_write", {"name": "plan", "content": "x", "if_version": 1}, "VERSION entry is at version"),
    ("scratchpad_write", {"name": "plan", "content": "x", "fence_token": 5}, "missing argument 'fence_resource'"),
    ("scratchpad_write", {"name": "plan", "content": "x", "fence_resource": "plan", "fence_token": 1},
     "FENCED"),
    ("scratchpad_read", {"name": "missing"}, "no entry 'missing' in the scratchpad"),
    ("scratchpad_read", {"name": "plan", "limit": 0}, "between 1 and 100000"),
    ("scratchpad_read", {"name": "plan", "offset": True}, "must be an integer"),
    ("scratchpad_read", {"name": "plan", "regex": "("}, "invalid pattern"),
    ("scratchpad_view", {"name": "plan", "mode": "middle"}, "must be one of: head tail lines"),
    ("scratchpad_edit", {"name": "plan", "old_string": "nowhere", "new_string": "x"}, "not found"),
    ("scratchpad_edit", {"name": "plan", "old_string": "x"}, "missing argument 'new_string'"),
    ("scratchpad_edit", {"name": "nope", "content": "x"}, "no entry 'nope'"),
    ("scratchpad_insert", {"name": "plan", "line": -2, "content": "x"}, "between -1 and"),
    ("scratchpad_lease", {"resource": "plan", "holder": "agent-b", "ttl_ms": 1000}, "LEASED held by agent-a"),
    ("scratchpad_lease", {"resource": "plan", "holder": "agent b", "ttl_ms": 1000}, "invalid holder"),
    ("scratchpad_release", {"resource": "plan", "holder": "agent-b", "token": 1}, "not released"),
    ("scratchpad_grep", {"name": "plan", "pattern": "x", "max": 1001}, "between 1 and 1000"),
    ("scratchpad_grep", {"pattern": "x"}, "missing argument 'name'"),
    ("scratchpad_snapshot", {"label": "now"}, "invalid label 'now': labels follow the rule of entry names"),
    ("scratchpad_snapshot", {"label": "a//b"}, "invalid label 'a//b'"),
    ("scratchpad_snapshot", {"label": "s", "fence_resource": "plan", "fence_token": 1}, "FENCED"),
    ("scratchpad_diff", {"from": "nosuch"}, "no such snapshot 'nosuch'"),
    ("scratchpad_diff", {"from": "NOW", "name": "nope"}, "no entry 'nope' in 'NOW' or in 'NOW'"),
    ("scratchpad_diff", {"to": "NOW"}, "missing required argument 'from'"),
    ("scratchpad_restore", {"label": "nosuch"}, "no such snapshot 'nosuch'"),
    ("scratchpad_drop_snapshot", {"label": "nosuch"}, "no snapshot 'nosuch' to drop"),
    ("scratchpad_history", {"name": "nope"}, "no entry 'nope' in the scratchpad"),
    ("scratchpad_read", {"name": "plan", "version": 1}, "no version 1 of entry 'plan' in its history"),
    ("scratchpad_read", {"name": "plan", "version": 1, "regex": "x"}, "argument 'version' does not go with 'regex'"),
    ("scratchpad_revert", {"name": "plan", "version": 1}, "no version 1 of entry 'plan' in its history"),
    ("scratchpad_revert", {"name": "nope", "version": 1}, "no such entry 'nope'"),
    ("scratchpad_revert", {"name": "plan", "version": 0}, "between 1 and"),
    ("scratchpad_metadata", {"name": "plan", "set": {"bad field": "x"}}, "invalid field name 'bad field': field "
     "names are 1 to 64 characters"),
    ("scratchpad_metadata", {"name": "plan", "set": {"a": "x" * 4096}}, "at most 4096 bytes of field names and "
     "values together (got 4097)"),
    ("scratchpad_metadata", {"name": "plan", "set": {"f%d" % i: "x" for i in range(33)}}, "1 to 32 fields (got 33)"),
    ("scratchpad_metadata", {"name": "plan", "set": {"a": 1}}, "the value of 'a' must be a string"),
    ("scratchpad_metadata", {"name": "plan", "remove": ["a"], "set": {"a": "b"}}, "argument 'set' does not go with "
     "'remove'"),
    ("scratchpad_metadata", {"name": "plan", "remove": ["a b"]}, "invalid item 'a b'"),
    ("scratchpad_metadata", {"name": "nope", "clear": True}, "no such entry 'nope'"),
    ("scratchpad_write", {"name": "plan", "content": "x", "metadata": {}}, "1 to 32 fields (got 0)"),
    ("scratchpad_list", {"where": "tool=grep"}, "argument 'where' must be an object"),
]

LABEL_EDGES = ["a", "x" * 255, "NOWX", "NO", "N", "NOW/a", "a/now", ".now", "now.", "nOx", "Now1", "..now", "Kow"]
LABEL_BAD = ["NOW", "now", "NoW", "nOW", "", "x" * 256, "a//b", ".", "..", "my label", "a/"]

NAME_EDGES = ["a", "x" * 255, ".a", "..a", "a.", "a..b", "a/.b/..c", "A-Z_0:9", "a/b/c"]
NAME_BAD = ["", "x" * 256, ".", "..", "a/", "/a", "a//b", "a/./b", "a/../b", "my notes", "é"]


def normalize(text):
    """Times and sequence numbers differ between two namespaces; the words must not."""
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", text)
    text = re.sub(r"\d+ more ms", "N more ms", text)
    return re.sub(r"\d{10,}", "N", text)


def main():
    r = Reporter()
    srv = Server().start()
    s = Session(srv.port)
    try:
        def initialize():
            rep = s.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                           "clientInfo": {"name": "test", "version": "1"}})
            assert rep["result"]["protocolVersion"] == "2025-03-26", rep
            assert rep["result"]["capabilities"]["tools"] == {"listChanged": False}, rep
            assert rep["result"]["serverInfo"]["name"] == "scratchpad-mcp"
            s.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            assert s.request("ping")["result"] == {}
            other = Session(srv.port)
            rep = other.request("initialize", {"protocolVersion": "2099-01-01", "capabilities": {},
                                               "clientInfo": {"name": "t", "version": "1"}})
            other.close()
            assert rep["result"]["protocolVersion"] == "2025-06-18", rep
        r.case("initialize answers the client's protocol version when it is known, else the latest; ping answers {}",
               initialize)

        def files_current():
            for form, path in (("anthropic", "client/tools.json"), ("openai", "client/tools.openai.json"),
                               ("table", "client/python/scratchpad/tools_table.json")):
                with open(os.path.join(TOP, path), encoding="utf-8") as f:
                    assert json.load(f) == generated(form), "%s is not current: run make tools-json" % path
        r.case("client/tools.json, tools.openai.json and tools_table.json are what the table generates now",
               files_current)

        def tools_list():
            tools = s.request("tools/list")["result"]["tools"]
            assert tools == generated("mcp")
            with open(os.path.join(TOP, "client", "tools.json"), encoding="utf-8") as f:
                anth = json.load(f)
            assert [{"name": t["name"], "description": t["description"], "inputSchema": t["input_schema"]}
                     for t in anth] == tools
            assert scratchpad.as_tools("openai") == generated("openai")
            names = {t["name"] for t in tools}
            assert {"scratchpad_write", "scratchpad_read", "scratchpad_edit", "scratchpad_list",
                    "scratchpad_delete", "scratchpad_lease", "scratchpad_release", "scratchpad_changes",
                    "scratchpad_snapshot", "scratchpad_snapshots", "scratchpad_diff", "scratchpad_restore",
                    "scratchpad_drop_snapshot", "scratchpad_history", "scratchpad_revert",
                    "scratchpad_metadata"} <= names
            assert not any("fork" in n for n in names), names  # a fork's destination is another namespace
            props = {t["name"]: t["inputSchema"]["properties"] for t in tools}
            assert set(props["scratchpad_read"]) >= {"name", "offset", "limit", "regex"}
            assert props["scratchpad_read"]["limit"]["default"] == 30000
            assert set(props["scratchpad_edit"]) >= {"name", "content", "old_string", "new_string", "replace_all"}
        r.case("tools/list is the generated table, the Anthropic file and the OpenAI form hold the same tools, "
               "with the parameter names models know", tools_list)

        def session():
            for tool, args, want in SESSION:
                text, err = s.call(tool, args)
                assert not err and want in text, (tool, args, text)
        r.case("a whole session: every tool called with good arguments gives the expected text", session)

        def bad():
            for tool, args, want in BAD:
                text, err = s.call(tool, args)
                assert err and want in text, (tool, args, text)
        r.case("bad arguments and refused calls are isError results that say why (the server's message)", bad)

        def rpc_errors():
            s.send_line("this is not json")
            assert s.recv()["error"]["code"] == -32700
            s.send_line("[]")
            assert s.recv()["error"]["code"] == -32600
            assert s.request("no/such/method")["error"]["code"] == -32601
            assert s.request("tools/call", {"name": "scratchpad_nope", "arguments": {}})["error"]["code"] == -32602
            assert s.request("tools/call", {"arguments": {}})["error"]["code"] == -32602
            assert s.request("ping")["result"] == {}
        r.case("malformed JSON-RPC gets -32700/-32600/-32601/-32602 and the session goes on", rpc_errors)

        def edges():
            c = redis.Redis(port=srv.port)
            c.execute_command("SP.WRITE", NS, "e", "0123456789\n" * 20)
            for name in NAME_EDGES:
                text, err = s.call("scratchpad_write", {"name": name, "content": "x"})
                assert not err, (name, text)
            for name in NAME_BAD:
                text, err = s.call("scratchpad_write", {"name": name, "content": "x"})
                assert err and ("invalid entry name" in text or "characters long" in text), (name, text)
                # and the server agrees that it is invalid
                try:
                    c.execute_command("SP.WRITE", NS, name, "x")
                    raise AssertionError("the server accepted %r" % name)
                except redis.ResponseError as e:
                    assert "invalid entry name" in str(e)
            refused = re.compile(r"syntax error|not an integer|out of range|must not be negative|invalid|must be")
            sent = 0
            for t in generated("mcp"):
                props = t["inputSchema"]["properties"]
                base = {"name": "e", "content": "x", "pattern": "0", "mode": "lines", "line": 1,
                        "resource": "r-" + t["name"], "holder": "h", "ttl_ms": 1000, "token": 1,
                        "label": "edge", "from": "NOW", "version": 1}
                base = {k: v for k, v in base.items() if k in props}
                for arg, p in props.items():
                    if p["type"] != "integer":
                        continue
                    for v in (p["minimum"], p["maximum"]):
                        args = dict(base, **{arg: v})
                        if arg == "fence_token":
                            args["fence_resource"] = "r"
                        if arg == "wait_ms":
                            v = args[arg] = 1
                        if arg == "if_version" and v == 0:
                            continue
                        text, err = s.call(t["name"], args)
                        sent += 1
                        assert not err or not refused.search(text), (t["name"], args, text)
            assert sent > 40, sent
        r.case("every schema's edge values (integer bounds, names of 1 and 255 characters, dots) are accepted "
               "by the server, and the names the schema refuses the server refuses too", edges)

        def labels_and_metadata():
            c = redis.Redis(port=srv.port)
            for label in LABEL_EDGES:
                text, err = s.call("scratchpad_snapshot", {"label": label})
                assert not err, (label, text)
                text, err = s.call("scratchpad_drop_snapshot", {"label": label})
                assert not err, (label, text)
            for label in LABEL_BAD:
                text, err = s.call("scratchpad_snapshot", {"label": label})
                assert err and ("invalid label" in text or "characters long" in text), (label, text)
                try:
                    c.execute_command("SP.SNAPSHOT", NS, label)
                    raise AssertionError("the server accepted label %r" % label)
                except redis.ResponseError as e:
                    assert "invalid snapshot label" in str(e), (label, e)
            full = {"f%02d" % i: "v" for i in range(31)}
            full["x" * 64] = "y" * (4096 - 31 * 4 - 64)  # 32 fields, 4096 bytes, the longest field name
            text, err = s.call("scratchpad_write", {"name": "meta-edge", "content": "x", "metadata": full})
            assert not err, text
            stat = c.execute_command("SP.STAT", NS, "meta-edge")
            assert len(stat[stat.index(b"meta") + 1]) == 64, stat
            for bad, why in (({"x" * 65: "v"}, "invalid field name"), (dict(full, extra="v"), "1 to 32 fields"),
                             (dict(full, f00="vv"), "at most 4096 bytes")):
                text, err = s.call("scratchpad_write", {"name": "meta-edge", "content": "x", "metadata": bad})
                assert err and why in text, text
                argv = [a for k, v in bad.items() for a in ("META", k, v)]
                try:
                    c.execute_command("SP.WRITE", NS, "meta-edge", "x", *argv)
                    raise AssertionError("the server accepted %s" % why)
                except redis.ResponseError as e:
                    assert "metadata" in str(e) or "META" in str(e), e
            text, err = s.call("scratchpad_metadata", {"name": "meta-edge", "remove": list(full)})
            assert not err and "removed 32 metadata fields" in text, text
        r.case("snapshot labels and metadata at their bounds (NOW reserved in any case, 32 fields, 4096 bytes, "
               "64-character field names) are accepted by the schema exactly when the server accepts them",
               labels_and_metadata)

        def same_texts():
            c = redis.Redis(port=srv.port)
            sp = scratchpad.Scratchpad(c, "py-twin")
            s2 = Session(srv.port, "c-twin")
            try:
                for tool, args, _ in SESSION + BAD:
                    ctext, cerr = s2.call(tool, args)
                    try:
                        ptext, perr = sp.call(tool, args), False
                    except scratchpad.ToolError as e:
                        ptext, perr = str(e), True
                    assert (normalize(ctext), cerr) == (normalize(ptext), perr), (tool, args, ctext, ptext)
            finally:
                s2.close()
        r.case("the Python package's call() renders every call of the session exactly as scratchpad-mcp does",
               same_texts)

        def namespace_fixed():
            c = redis.Redis(port=srv.port)
            assert c.execute_command("SP.STAT", NS, "plan") is not None
            assert c.execute_command("SP.STAT", "py-twin", "plan") is not None
            text, err = s.call("scratchpad_write", {"name": "plan", "content": "x", "namespace": "py-twin"})
            assert err and "unknown argument 'namespace'" in text
        r.case("the namespace is the one --namespace gave, never an argument of a tool", namespace_fixed)

        def resources():
            rep = s.request("resources/list")["result"]
            uris = {x["uri"]: x for x in rep["resources"]}
            assert uris["scratchpad://mcp-test/plan"]["mimeType"] == "text/plain", rep
            rep = s.request("resources/read", {"uri": "scratchpad://mcp-test/plan"})["result"]
            assert rep["contents"][0]["text"] == redis.Redis(port=srv.port).execute_command(
                "SP.READ", NS, "plan").decode(), rep
            assert s.request("resources/read", {"uri": "scratchpad://py-twin/plan"})["error"]["code"] == -32002
            assert s.request("resources/read", {"uri": "scratchpad://mcp-test/nope"})["error"]["code"] == -32002
            tmpl = s.request("resources/templates/list")["result"]["resourceTemplates"]
            assert tmpl[0]["uriTemplate"] == "scratchpad://mcp-test/{name}", tmpl
            assert s.request("prompts/list")["result"]["prompts"][0]["name"] == "scratchpad_guidance"
            msg = s.request("prompts/get", {"name": "scratchpad_guidance"})["result"]["messages"][0]
            assert msg["role"] == "user" and "scratchpad_list" in msg["content"]["text"]
            assert "scratchpad_snapshot" in msg["content"]["text"] and "scratchpad_diff" in msg["content"]["text"]
            assert s.request("prompts/get", {"name": "nope"})["error"]["code"] == -32602
        r.case("entries are resources scratchpad://<ns>/<name> (list, read, template) of this namespace only; "
               "the guidance prompt", resources)

        def database():
            s3 = Session(srv.port, "db-three", db=3)
            try:
                text, err = s3.call("scratchpad_write", {"name": "plan", "content": "in db 3"})
                assert not err, text
            finally:
                s3.close()
            assert redis.Redis(port=srv.port, db=3).execute_command("SP.READ", "db-three", "plan") == b"in db 3"
            assert redis.Redis(port=srv.port).execute_command("SP.READ", "db-three", "plan") is None
        r.case("--url redis://host:port/3 works in database 3", database)

        def subscriptions():
            c = redis.Redis(port=srv.port)
            uri = "scratchpad://mcp-test/plan"
            assert s.request("resources/subscribe", {"uri": uri})["result"] == {}
            assert s.request("resources/subscribe", {"uri": "scratchpad://other/plan"})["error"]["code"] == -32002
            c.execute_command("SP.WRITE", NS, "unwatched", "x")
            c.execute_command("SP.APPEND", NS, "plan", "more\n")
            c.execute_command("SP.APPEND", NS, "plan", "more\n")
            note = s.wait_note()
            assert note == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}, note
            while True:  # the two appends may fall in two polls; 'unwatched' never notifies
                more = s.wait_note(0.6)
                if more is None:
                    break
                assert more == note, more
            text, err = s.call("scratchpad_edit", {"name": "plan", "old_string": "more", "new_string": "MORE",
                                                   "replace_all": True})
            assert not err, text
            assert s.wait_note() == note
            assert s.request("resources/unsubscribe", {"uri": uri})["result"] == {}
            s.notes.clear()
            c.execute_command("SP.APPEND", NS, "plan", "after\n")
            assert s.wait_note(0.6) is None, "no notification after unsubscribe"
        r.case("resources/subscribe: a change of the entry (by anyone) is notifications/resources/updated within "
               "a poll; other entries and unsubscribed ones are not", subscriptions)

        def big_read():
            c = redis.Redis(port=srv.port)
            c.execute_command("SP.WRITE", NS, "big", "é" * 100000)
            text, err = s.call("scratchpad_read", {"name": "big"})
            assert not err and text.startswith("é" * 30000) and text.endswith(
                "[truncated: 70000 more characters after this; continue with offset=30000]"), text[-200:]
            c.execute_command("SP.WRITE", NS, "bin", b"\x00\x01\xff")
            text, err = s.call("scratchpad_read", {"name": "bin"})
            assert not err and "[binary entry 'bin': 3 bytes in all" in text, text
            text, err = s.call("scratchpad_read", {"name": "bin", "base64": True})
            assert not err and text.endswith("\nAAH/"), text
            rep = s.request("resources/read", {"uri": "scratchpad://mcp-test/bin"})["result"]
            assert rep["contents"][0]["blob"] == "AAH/", rep
        r.case("a read is 30,000 characters by default and says what remains; binary is described or base64",
               big_read)

        def tool_selection():
            every = generated("mcp")
            want = ["scratchpad_write", "scratchpad_read", "scratchpad_grep"]  # the table's order
            for extra, env in ((["--tools", "read, scratchpad_write,grep"], None),
                               ([], dict(os.environ, SCRATCHPAD_TOOLS="grep,read,write"))):
                part = Session(srv.port, extra=extra, env=env)
                try:
                    tools = part.request("tools/list")["result"]["tools"]
                    assert [t["name"] for t in tools] == want, tools
                    assert tools == [t for t in every if t["name"] in want]
                    text, err = part.call("scratchpad_write", {"name": "sel", "content": "picked"})
                    assert not err, text
                    rep = part.request("tools/call", {"name": "scratchpad_list", "arguments": {}})
                    assert rep["error"]["code"] == -32602 and "Unknown tool" in rep["error"]["message"], rep
                finally:
                    part.close()
            assert [t["function"]["name"] for t in generated("openai", "--tools", "grep,read,write")] == want
            assert generated("anthropic", "--tools", ",".join(t["name"] for t in every)) == generated("anthropic")
            bad = subprocess.run([MCP, "--print-tools", "mcp", "--tools", "read,nosuch"], capture_output=True)
            assert bad.returncode == 2 and b"no tool named 'nosuch'" in bad.stderr and b" read " in bad.stderr, bad
            assert len(json.dumps(generated("mcp", "--tools", "read,write,list,grep"))) < len(json.dumps(every)) / 3
        r.case("--tools (or SCRATCHPAD_TOOLS) offers only the tools named, in the table's order, with or without "
               "their prefix; a tool left out is unknown to tools/call; --print-tools prints the same part; a name "
               "that is no tool exits 2 naming the tools", tool_selection)

        def server_down():
            port = srv.port
            srv.stop()
            text, err = s.call("scratchpad_read", {"name": "plan"})
            assert err and ("unavailable" in text or "was lost" in text), text
            text, err = s.call("scratchpad_read", {"name": "plan"})
            assert err and "the scratchpad server is unavailable" in text, text
            assert s.request("ping")["result"] == {}
            workdir = tempfile.mkdtemp(prefix="sp-mcp-")
            again = subprocess.Popen([server_binary(), "--port", str(port), "--bind", "127.0.0.1"], cwd=workdir,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                c = redis.Redis(port=port)
                deadline = time.time() + 10
                while True:
                    try:
                        c.ping()
                        break
                    except redis.ConnectionError:
                        assert time.time() < deadline, "the server did not start again"
                        time.sleep(0.05)
                c.execute_command("SP.WRITE", NS, "plan", "back")
                text, err = s.call("scratchpad_read", {"name": "plan"})
                assert not err and text == "back", text
            finally:
                os.kill(again.pid, signal.SIGTERM)
                again.wait(10)
                shutil.rmtree(workdir, ignore_errors=True)
        r.case("with the server stopped a tool call is an isError result, and it works again once the server "
               "is back on its port", server_down)
        r.case("at the end of its input scratchpad-mcp exits 0", s.close)
    finally:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait(10)
        srv.stop()
    r.finish()


if __name__ == "__main__":
    main()
