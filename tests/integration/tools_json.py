"""tools_json.py -- client/tools.json, the scratchpad as LLM tool definitions.

Checks that the file loads as it is in an agent harness (a JSON array of
{"name", "description", "input_schema"} objects), that every schema is a
well-formed object schema, that the descriptions tell a model when to reach for
each tool, and that every tool maps to a real SP command: each schema's
"x-command" names the command, the server knows it (COMMAND INFO), and a
reference dispatcher (the mapping a harness implements, below) runs sample
inputs of every tool against a real scratchpad-server, every property of every
tool being exercised at least once, each sample valid for its schema.

Starts its own scratchpad-server (env SERVER, else TOP/build/scratchpad-server)
on a free port of 127.0.0.1 in a temporary directory and stops it by PID.
Prints "ok - <sentence>" or "not ok - <sentence>" per case.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import redis

TIMEOUT = 10
TOP = os.environ.get("TOP") or os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOLS = os.path.join(TOP, "client", "tools.json")
NS = "agent-tools-test"  # the harness, not the model, chooses the namespace
REQUIRED_OPS = {"write": "SP.WRITE", "read": "SP.READ", "list": "SP.LIST", "edit": "SP.EDIT",
                "grep": "SP.GREP", "peek": "SP.PEEK", "delete": "SP.DEL"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """One scratchpad-server on a free port, run in a temporary directory."""

    def __init__(self):
        self.binary = os.environ.get("SERVER") or os.path.join(TOP, "build", "scratchpad-server")
        self.dir = tempfile.mkdtemp(prefix="sp-tools-")
        self.proc = None
        self.port = None
        self.log = os.path.join(self.dir, "server.log")

    def start(self):
        for _ in range(5):
            self.port = free_port()
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1"],
                                             cwd=self.dir, stdout=log, stderr=subprocess.STDOUT)
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
        raise RuntimeError("server did not start")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(TIMEOUT)
        self.proc = None

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# A validator for the part of JSON Schema the tools use (Debian's python3 has
# no jsonschema module): type, properties, required, additionalProperties,
# items, minItems, maxItems, minimum, maximum, minLength, pattern.

SCHEMA_TYPES = {"object": dict, "string": str, "integer": int, "boolean": bool, "array": list}


def validate(value, schema, path="input"):
    """The list of reasons value does not satisfy schema (empty if it does)."""
    errs = []
    t = schema.get("type")
    if t:
        py = SCHEMA_TYPES[t]
        if not isinstance(value, py) or (t == "integer" and isinstance(value, bool)):
            return ["%s: expected %s" % (path, t)]
    if t == "object":
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                errs.append("%s: missing %s" % (path, k))
        for k, v in value.items():
            if k in props:
                errs += validate(v, props[k], path + "." + k)
            elif schema.get("additionalProperties") is False:
                errs.append("%s: unexpected property %s" % (path, k))
    if t == "array":
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1 << 30):
            errs.append("%s: wrong number of items" % path)
        for i, v in enumerate(value):
            errs += validate(v, schema.get("items", {}), "%s[%d]" % (path, i))
    if t == "integer":
        if "minimum" in schema and value < schema["minimum"]:
            errs.append("%s: below minimum" % path)
        if "maximum" in schema and value > schema["maximum"]:
            errs.append("%s: above maximum" % path)
    if t == "string":
        if len(value) < schema.get("minLength", 0):
            errs.append("%s: too short" % path)
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errs.append("%s: does not match %s" % (path, schema["pattern"]))
    return errs


# ---------------------------------------------------------------------------
# The reference dispatcher: a tool call (name, input) -> the SP command's argv.
# The namespace is the harness's (one per agent session).


def dispatch(name, inp, ns=NS):
    n = inp.get("name")
    if name == "scratchpad_list":
        argv = ["SP.LIST", ns, "WITHMETA"]
        if "match" in inp:
            argv += ["MATCH", inp["match"]]
        if "cursor" in inp:
            argv += ["CURSOR", inp["cursor"]]
        return argv
    if name == "scratchpad_write":
        argv = ["SP.WRITE", ns, n, inp["content"]]
        if "if_version" in inp:
            argv += ["IFVERSION", str(inp["if_version"])]
        return argv
    if name == "scratchpad_append":
        return ["SP.APPEND", ns, n, inp["content"]]
    if name == "scratchpad_read":
        argv = ["SP.READ", ns, n]
        if "head" in inp:
            argv += ["HEAD", str(inp["head"])]
        if "tail" in inp:
            argv += ["TAIL", str(inp["tail"])]
        if "offset" in inp or "limit" in inp:
            argv += ["OFFSET", str(inp.get("offset", 0))]
            if "limit" in inp:
                argv += ["LIMIT", str(inp["limit"])]
        if "lines" in inp:
            argv += ["LINES", str(inp["lines"][0]), str(inp["lines"][1])]
        return argv + ["WITHMETA"]
    if name == "scratchpad_peek":
        argv = ["SP.PEEK", ns, n]
        if "head" in inp:
            argv += ["HEAD", str(inp["head"])]
        if "tail" in inp:
            argv += ["TAIL", str(inp["tail"])]
        return argv
    if name == "scratchpad_grep":
        argv = ["SP.GREP", ns, n, inp["pattern"]]
        if "context" in inp:
            argv += ["CONTEXT", str(inp["context"])]
        if "max" in inp:
            argv += ["MAX", str(inp["max"])]
        if inp.get("ignore_case"):
            argv.append("NOCASE")
        if inp.get("literal"):
            argv.append("LITERAL")
        return argv + ["WITHMETA"]
    if name == "scratchpad_edit":
        argv = ["SP.EDIT", ns, n, inp["old_text"], inp["new_text"]]
        if inp.get("replace_all"):
            argv.append("ALL")
        if "if_version" in inp:
            argv += ["IFVERSION", str(inp["if_version"])]
        return argv
    if name == "scratchpad_insert":
        return ["SP.INSERT", ns, n, str(inp["after_line"]), inp["text"]]
    if name == "scratchpad_delete":
        return ["SP.DEL", ns] + list(inp["names"])
    if name == "scratchpad_stat":
        return ["SP.STAT", ns, n]
    if name == "scratchpad_offload":
        argv = ["SP.OFFLOAD", ns, inp["content"]]
        if "prefix" in inp:
            argv += ["PREFIX", inp["prefix"]]
        return argv
    raise KeyError("no mapping for tool " + name)


LOG = "".join("line %d %s\n" % (i, "ERROR disk full" if i % 50 == 0 else "ok") for i in range(1, 400))

# Sample calls, in order, with a check of each reply. Together they use every
# property of every tool.
SAMPLES = [
    ("scratchpad_list", {}, lambda r: r[0] == b"0" and r[1] == []),
    ("scratchpad_write", {"name": "plan", "content": "[ ] 1. read\n[ ] 2. fix\n[ ] 3. test\n"}, lambda r: r == 1),
    ("scratchpad_write", {"name": "plan", "content": "[ ] 1. read\n[ ] 2. fix\n[ ] 3. test\n", "if_version": 1},
     lambda r: r == 2),
    ("scratchpad_write", {"name": "findings/log", "content": LOG}, lambda r: r == 1),
    ("scratchpad_append", {"name": "findings/notes", "content": "the disk fills at line 50\n"},
     lambda r: r == 26),
    ("scratchpad_read", {"name": "plan"}, lambda r: r[0].startswith(b"[ ] 1.")),
    ("scratchpad_read", {"name": "findings/log", "head": 7}, lambda r: r[0] == b"line 1 "),
    ("scratchpad_read", {"name": "findings/log", "tail": 3}, lambda r: r[0] == b"ok\n"),
    ("scratchpad_read", {"name": "findings/log", "offset": 5, "limit": 4}, lambda r: r[0] == b"1 ok"),
    ("scratchpad_read", {"name": "findings/log", "lines": [50, 50]}, lambda r: r[0] == b"line 50 ERROR disk full\n"),
    ("scratchpad_read", {"name": "findings/log", "lines": [-1, -1]}, lambda r: r[0] == b"line 399 ok\n"),
    ("scratchpad_peek", {"name": "findings/log"}, lambda r: b"characters omitted" in r),
    ("scratchpad_peek", {"name": "findings/log", "head": 4, "tail": 3}, lambda r: r.startswith(b"line") and
     r.endswith(b"ok\n")),
    ("scratchpad_grep", {"name": "findings/log", "pattern": "ERROR \\w+ full"},
     lambda r: len(r[0]) == 7 and r[0][0] == b"50:line 50 ERROR disk full"),
    ("scratchpad_grep", {"name": "findings/log", "pattern": "error", "ignore_case": True, "max": 2, "context": 1},
     lambda r: r[0][0] == b"49-line 49 ok" and r[0][1].startswith(b"50:")),
    ("scratchpad_grep", {"name": "findings/log", "pattern": "disk full", "literal": True},
     lambda r: len(r[0]) == 7),
    ("scratchpad_edit", {"name": "plan", "old_text": "[ ] 1.", "new_text": "[x] 1."}, lambda r: r == [1, 3]),
    ("scratchpad_edit", {"name": "plan", "old_text": "[ ]", "new_text": "[-]", "replace_all": True,
                         "if_version": 3}, lambda r: r == [2, 4]),
    ("scratchpad_insert", {"name": "plan", "after_line": 1, "text": "[ ] 1b. read more"}, lambda r: r == 5),
    ("scratchpad_stat", {"name": "plan"}, lambda r: dict(zip(r[::2], r[1::2]))[b"lines"] == 4),
    ("scratchpad_offload", {"content": LOG * 2, "prefix": "tool-out"}, lambda r: r[1] == 1 and r[3] == b"tool-out-1"),
    ("scratchpad_offload", {"content": "short"}, lambda r: r[1] == 0),
    ("scratchpad_list", {"match": "findings/*"}, lambda r: [m[1] for m in r[1]] == [b"findings/log",
                                                                                  b"findings/notes"]),
    ("scratchpad_list", {"cursor": ">findings/notes"}, lambda r: r[1][0][1] == b"plan"),
    ("scratchpad_delete", {"names": ["findings/log", "tool-out-1"]}, lambda r: r == 2),
]


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def case(self, desc, fn):
        try:
            fn()
        except Exception:
            self.failed += 1
            print("not ok - " + desc)
            for line in traceback.format_exc().splitlines():
                print("    " + line, file=sys.stderr)
        else:
            self.passed += 1
            print("ok - " + desc)
        sys.stdout.flush()


def load():
    with open(TOOLS, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def t_valid_json():
    tools = load()
    assert isinstance(tools, list) and tools, "not a non-empty JSON array"
    for t in tools:
        assert isinstance(t, dict) and set(t) == {"name", "description", "input_schema"}, \
            "tool keys are %s" % sorted(t)


def t_names_and_descriptions():
    tools = load()
    names = [t["name"] for t in tools]
    assert len(set(names)) == len(names), "duplicate tool names"
    for t in tools:
        assert re.match(r"^[a-zA-Z0-9_-]{1,64}$", t["name"]), t["name"]
        assert isinstance(t["description"], str) and len(t["description"]) >= 120, t["name"]


def t_schemas():
    for t in load():
        s = t["input_schema"]
        assert s.get("type") == "object", t["name"]
        assert isinstance(s.get("properties"), dict), t["name"]
        assert s.get("additionalProperties") is False, t["name"]
        for k in s.get("required", []):
            assert k in s["properties"], "%s: required %s is not a property" % (t["name"], k)
        for k, p in s["properties"].items():
            assert p.get("type") in SCHEMA_TYPES, "%s.%s has no known type" % (t["name"], k)
            assert len(p.get("description", "")) >= 10, "%s.%s has no description" % (t["name"], k)
            if "pattern" in p:
                re.compile(p["pattern"])


def t_required_ops():
    commands = {t["input_schema"].get("x-command") for t in load()}
    for op, cmd in REQUIRED_OPS.items():
        assert cmd in commands, "no tool for %s (%s)" % (op, cmd)


def t_when_to_use():
    tools = {t["name"]: t["description"].lower() for t in load()}
    assert "start" in tools["scratchpad_list"] and "first" in tools["scratchpad_list"]
    for word in ("plan", "finding", "constraint", "decision"):
        assert word in tools["scratchpad_write"], "scratchpad_write does not mention " + word
    assert "tool output" in tools["scratchpad_offload"]


def t_commands_exist(r):
    # The raw reply (redis-py's parser of COMMAND INFO fails on an unknown name).
    conn = r.connection_pool.get_connection("COMMAND")
    try:
        for t in load():
            cmd = t["input_schema"].get("x-command")
            assert isinstance(cmd, str) and cmd.upper().startswith("SP."), "%s has no x-command" % t["name"]
            conn.send_command("COMMAND", "INFO", cmd)
            info = conn.read_response()
            assert isinstance(info, list) and len(info) == 1 and info[0], "the server does not know %s" % cmd
            assert info[0][0].decode().lower() == cmd.lower(), info[0][0]
        conn.send_command("COMMAND", "INFO", "SP.NOSUCH")
        assert conn.read_response() == [None], "COMMAND INFO does not tell unknown commands apart"
    finally:
        r.connection_pool.release(conn)


def t_dispatch_runs(r):
    tools = {t["name"]: t for t in load()}
    used = {name: set() for name in tools}
    for name, inp, check in SAMPLES:
        schema = tools[name]["input_schema"]
        errs = validate(inp, schema)
        assert not errs, "%s sample %r is not valid: %s" % (name, inp, errs)
        argv = dispatch(name, inp)
        assert argv[0] == schema["x-command"], "%s maps to %s, not its x-command %s" % (name, argv[0],
                                                                                       schema["x-command"])
        reply = r.execute_command(*argv)
        assert check(reply), "%s %r: unexpected reply %r" % (name, inp, reply)
        used[name] |= set(inp)
    for name, t in tools.items():
        missing = set(t["input_schema"]["properties"]) - used[name]
        assert not missing, "%s: properties never exercised: %s" % (name, sorted(missing))


def t_errors_reach_the_model(r):
    """What a model gets wrong comes back as a readable error, not a crash."""
    cases = [
        ("scratchpad_write", {"name": "bad name", "content": "x"}, "invalid entry name"),
        ("scratchpad_edit", {"name": "plan", "old_text": "nowhere", "new_text": "x"}, "not found"),
        ("scratchpad_edit", {"name": "plan", "old_text": "[", "new_text": "x"}, "occurs"),
        ("scratchpad_write", {"name": "plan", "content": "x", "if_version": 1}, "VERSION"),
        ("scratchpad_grep", {"name": "plan", "pattern": "("}, "invalid pattern"),
    ]
    for name, inp, needle in cases:
        try:
            r.execute_command(*dispatch(name, inp))
        except redis.ResponseError as e:
            assert needle in str(e), "%s: error %r does not say %r" % (name, str(e), needle)
        else:
            raise AssertionError("%s %r did not fail" % (name, inp))
    assert r.execute_command(*dispatch("scratchpad_read", {"name": "never-written"})) is None


def t_validator_rejects():
    tools = {t["name"]: t["input_schema"] for t in load()}
    assert validate({}, tools["scratchpad_write"])
    assert validate({"name": "a", "content": "b", "extra": 1}, tools["scratchpad_write"])
    assert validate({"name": "a", "head": "10"}, tools["scratchpad_read"])
    assert validate({"name": "a", "lines": [1]}, tools["scratchpad_read"])
    assert validate({"names": []}, tools["scratchpad_delete"])
    assert validate({"name": "a b", "content": "x"}, tools["scratchpad_write"])
    assert not validate({"name": "a", "lines": [1, -1]}, tools["scratchpad_read"])


def main():
    rep = Report()
    rep.case("client/tools.json is valid JSON: an array of {name, description, input_schema} tool objects",
             t_valid_json)
    rep.case("tool names are unique and valid, and every tool has a real description", t_names_and_descriptions)
    rep.case("every tool has an object input schema whose properties are typed and described", t_schemas)
    rep.case("the tools cover write, read, list, edit, grep, peek and delete", t_required_ops)
    rep.case("the descriptions say when to reach for a tool: list at the start of a session; write for plans, "
             "findings, constraints and decisions; offload for tool outputs", t_when_to_use)
    rep.case("the schema validator used here rejects invalid tool inputs", t_validator_rejects)
    srv = Server()
    try:
        srv.start()
        r = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
        rep.case("every tool's x-command is a command the server knows", lambda: t_commands_exist(r))
        rep.case("every tool maps to its SP command and works against a real server, every property exercised "
                 "with inputs valid for its schema", lambda: t_dispatch_runs(r))
        rep.case("a model's mistakes come back as readable errors and a missing entry as nil",
                 lambda: t_errors_reach_the_model(r))
        r.close()
    except Exception:
        print("not ok - the test server starts")
        traceback.print_exc()
        rep.failed += 1
    finally:
        srv.cleanup()
    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
