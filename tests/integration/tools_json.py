"""tools_json.py -- client/tools.json and tools.openai.json, as an agent harness loads them.

The files are generated from client/tools.c (make tools-json; mcp_stdio.py
checks that they are current). Here: they load as the two APIs expect them
(Anthropic: [{name, description, input_schema}]; OpenAI: [{type: "function",
function: {name, description, parameters}}]), every schema is a well-formed
closed object schema, the descriptions tell a model when to reach for each
tool, every command the table sends exists on a real scratchpad-server
(COMMAND INFO), and sample calls exercising every property of every tool run
through the Python package's dispatcher (the generated table) against it.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import TOP, Reporter, Server  # noqa: E402

sys.path.insert(0, os.path.join(TOP, "client", "python"))
import redis  # noqa: E402
import scratchpad  # noqa: E402
from scratchpad import _tools  # noqa: E402


def load(name):
    with open(os.path.join(TOP, "client", name), encoding="utf-8") as f:
        return json.load(f)


def check_schema(s):
    assert s["type"] == "object" and s["additionalProperties"] is False, s
    for name, p in s["properties"].items():
        assert re.fullmatch(r"[a-z_0-9]+", name), name
        assert p["type"] in ("string", "integer", "boolean", "object", "array") and len(p["description"]) > 10, (name, p)
        if p["type"] == "object":  # metadata: named string fields, bounded
            (pat, sub), = p["patternProperties"].items()
            re.compile(pat)
            assert sub == {"type": "string"} and p["additionalProperties"] is False, (name, p)
            assert 1 <= p["minProperties"] <= p["maxProperties"], (name, p)
        if p["type"] == "array":
            assert p["items"]["type"] == "string" and 1 <= p["minItems"] <= p["maxItems"], (name, p)
            re.compile(p["items"]["pattern"])
        if "minimum" in p:
            assert p["minimum"] <= p.get("default", p["minimum"]) <= p["maximum"], (name, p)
        if "pattern" in p:
            re.compile(p["pattern"])
    assert set(s.get("required", [])) <= set(s["properties"]), s


SAMPLES = [
    ("scratchpad_write", {"name": "notes/a", "content": "one\ntwo\nthree\n", "if_version": 0}),
    ("scratchpad_append", {"name": "notes/a", "content": "four\n", "if_version": 1}),
    ("scratchpad_list", {"match": "notes/*"}),
    ("scratchpad_list", {"cursor": "0"}),
    ("scratchpad_read", {"name": "notes/a", "offset": 1, "limit": 3, "base64": False}),
    ("scratchpad_read", {"name": "notes/a", "regex": "o"}),
    ("scratchpad_view", {"name": "notes/a", "mode": "lines", "start": 1, "end": 2, "count": 5, "base64": True}),
    ("scratchpad_peek", {"name": "notes/a", "head": 2, "tail": 2}),
    ("scratchpad_grep", {"name": "notes/a", "pattern": "T", "context": 1, "max": 2, "ignore_case": True,
                         "literal": True}),
    ("scratchpad_grep", {"entries": "notes/*", "pattern": "T", "context": 1, "max": 2, "ignore_case": True,
                         "literal": True}),
    ("scratchpad_lease", {"resource": "notes/a", "holder": "me", "ttl_ms": 60000, "wait_ms": 100}),
    ("scratchpad_edit", {"name": "notes/a", "old_string": "o", "new_string": "0", "replace_all": True,
                         "if_version": 2}),
    ("scratchpad_edit", {"name": "notes/a", "content": "whole\n"}),
    ("scratchpad_insert", {"name": "notes/a", "line": 0, "content": "top", "if_version": 4}),
    ("scratchpad_stat", {"name": "notes/a"}),
    ("scratchpad_changes", {"since": 0, "count": 10, "wait_ms": 10}),
    ("scratchpad_write", {"name": "notes/b", "content": "b\n", "metadata": {"tool": "t", "step": "1"}}),
    ("scratchpad_list", {"where": {"tool": "t"}, "with_metadata": True}),
    ("scratchpad_snapshot", {"label": "s1"}),
    ("scratchpad_metadata", {"name": "notes/b", "set": {"step": "2"}}),
    ("scratchpad_metadata", {"name": "notes/b", "remove": ["step"]}),
    ("scratchpad_metadata", {"name": "notes/b", "clear": True}),
    ("scratchpad_snapshots", {}),
    ("scratchpad_diff", {"from": "s1", "to": "NOW", "name": "notes/b"}),
    ("scratchpad_history", {"name": "notes/b"}),
    ("scratchpad_read", {"name": "notes/b", "version": 3}),
    ("scratchpad_view", {"name": "notes/b", "mode": "head", "version": 3}),
    ("scratchpad_revert", {"name": "notes/b", "version": 3}),
    ("scratchpad_restore", {"label": "s1"}),
    ("scratchpad_drop_snapshot", {"label": "s1"}),
    ("scratchpad_delete", {"name": "notes/a"}),
]


def main():
    r = Reporter()
    anth, oai = load("tools.json"), load("tools.openai.json")

    def shapes():
        assert isinstance(anth, list) and len(anth) >= 10
        for t in anth:
            assert set(t) == {"name", "description", "input_schema"}, t.keys()
            check_schema(t["input_schema"])
        for t, o in zip(anth, oai):
            assert o == {"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                          "parameters": t["input_schema"]}}
        assert len(anth) == len(oai)
    r.case("tools.json is in Anthropic form, tools.openai.json the same tools in OpenAI form, every schema "
           "closed and well-formed", shapes)

    def when_to_use():
        d = {t["name"]: t["description"] for t in anth}
        assert "FIRST" in d["scratchpad_list"]
        for word in ("PLAN", "FINDINGS", "DECISIONS"):
            assert word in d["scratchpad_write"]
        assert "30000" in d["scratchpad_read"] and "offset" in d["scratchpad_read"]
    r.case("the descriptions tell a model when to reach for the scratchpad", when_to_use)

    with Server() as srv:
        c = redis.Redis(port=srv.port)

        def commands_exist():
            for t in _tools.TABLE:
                for v in t["x-scratchpad"]["variants"]:
                    cmd = v["argv"].split()[0]
                    info = c.execute_command("COMMAND", "INFO", cmd)
                    assert info and (cmd.lower() in info if isinstance(info, dict) else info[0]), (cmd, info)
        r.case("every command the table sends exists on the server (COMMAND INFO)", commands_exist)

        def samples():
            sp = scratchpad.Scratchpad(c, "tools-json")
            used = set()
            token = None
            for tool, args in SAMPLES:
                text = sp.call(tool, args)
                used |= {(tool, a) for a in args}
                if tool == "scratchpad_lease":
                    token = int(re.search(r"token (\d+)", text).group(1))
            args = {"resource": "notes/a", "holder": "me", "token": token}
            assert sp.call("scratchpad_release", args) == "Released the lease on 'notes/a'."
            used |= {("scratchpad_release", a) for a in args}
            for t in anth:
                for p in t["input_schema"]["properties"]:
                    if p.startswith("fence_"):
                        continue  # fence_* are exercised by mcp_stdio.py's edge values
                    assert (t["name"], p) in used, (t["name"], p)
        r.case("samples using every property of every tool run without error against the server", samples)
    r.finish()


if __name__ == "__main__":
    main()
