"""The scratchpad as LLM tools: the generated table, interpreted.

tools_table.json is generated from client/tools.c (`make tools-json`); it holds
every tool's schema and how a call becomes an SP command (argv templates with
[optional groups], variants chosen by a condition) and which result format
renders the reply. This module applies those rules exactly as
client/tools_call.c does and renders the same texts, so a harness in Python
and scratchpad-mcp show a model the same tools and the same results.
"""

import base64
import copy
import json
import os
import re
import time

import redis

_TABLE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools_table.json")
with open(_TABLE_PATH, encoding="utf-8") as _f:
    TABLE = json.load(_f)
_BY_NAME = {t["name"]: t for t in TABLE}
LINES_CAP = 100000


class ToolError(Exception):
    """A tool call failed; str(e) is the text to show the model as an error result."""


def definitions(format="anthropic"):
    """The tool definitions: "anthropic" ({name, description, input_schema}),
    "openai" ({type: "function", function: {name, description, parameters}})
    or "mcp" ({name, description, inputSchema}). A new list each call."""
    out = []
    for t in TABLE:
        schema = copy.deepcopy(t["input_schema"])
        if format == "anthropic":
            out.append({"name": t["name"], "description": t["description"], "input_schema": schema})
        elif format == "openai":
            out.append({"type": "function",
                        "function": {"name": t["name"], "description": t["description"], "parameters": schema}})
        elif format == "mcp":
            out.append({"name": t["name"], "description": t["description"], "inputSchema": schema})
        else:
            raise ValueError("format must be anthropic, openai or mcp")
    return out


def _type_name(t):
    return {"string": "a string", "integer": "an integer", "boolean": "a boolean"}[t]


def _check(tool, args):
    """The values to send by argument name (None: not given); raises ToolError."""
    props = tool["input_schema"]["properties"]
    required = tool["input_schema"].get("required", [])
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolError("arguments must be an object")
    for key in args:
        if key not in props:
            raise ToolError("unknown argument '%s' (%s takes: %s)" % (key, tool["name"], " ".join(props)))
    vals = {}
    for name, p in props.items():
        v = args.get(name)
        if v is None:
            if name in required:
                raise ToolError("missing required argument '%s'" % name)
            vals[name] = str(p["default"]) if "default" in p else None
            continue
        t = p["type"]
        ok = (isinstance(v, str) if t == "string" else isinstance(v, bool) if t == "boolean"
              else isinstance(v, int) and not isinstance(v, bool))
        if not ok:
            raise ToolError("argument '%s' must be %s" % (name, _type_name(t)))
        if t == "boolean":
            vals[name] = "" if v else None
            continue
        if t == "integer":
            if "minimum" in p and not p["minimum"] <= v <= p["maximum"]:
                raise ToolError("argument '%s' must be between %d and %d (got %d)" % (name, p["minimum"],
                                                                                       p["maximum"], v))
            vals[name] = str(v)
            continue
        if len(v) < p.get("minLength", 0) or len(v) > p.get("maxLength", 1 << 62):
            raise ToolError("argument '%s' must be %d to %d characters long (got %d)" % (
                name, p.get("minLength", 0), p.get("maxLength", 1 << 31), len(v)))
        if "enum" in p and v not in p["enum"]:
            raise ToolError("argument '%s' must be one of: %s" % (name, " ".join(p["enum"])))
        if "pattern" in p and ("\0" in v or not re.search(p["pattern"], v)):
            if name == "name":
                raise ToolError("invalid entry name '%s': names are 1 to 255 characters of A-Z a-z 0-9 _ - . : / "
                                "with no empty, '.' or '..' path segment" % v)
            raise ToolError("invalid %s '%s': printable characters without spaces" % (name, v))
        vals[name] = v
    return vals


def _variant(tool, vals):
    variants = tool["x-scratchpad"]["variants"]
    for var in variants[:-1]:
        arg, _, value = var["when"].partition("=")
        if vals.get(arg) is not None and ("=" not in var["when"] or vals[arg] == value):
            return var
    return variants[-1]


def _expand(tool, template, ns, vals):
    """argv for a template (tools.h's rules); raises ToolError."""
    props = tool["input_schema"]["properties"]
    argv = []
    for m in re.finditer(r"\[([^\]]*)\]|(\S+)", template):
        group = m.group(1) is not None
        tokens = (m.group(1) if group else m.group(2)).split()
        out, given, missing = [], 0, None
        for tok in tokens:
            if tok.startswith("{"):
                name = tok[1:-1]
                if name == "ns":
                    out.append(ns)
                elif vals.get(name) is None:
                    missing = name
                else:
                    given += 1
                    if props[name]["type"] != "boolean":
                        out.append(vals[name])
            else:
                out.append(tok)
        if missing is not None and (not group or given):
            msg = "missing argument '%s'" % missing
            if group:
                msg += " (it goes with the others of: %s)" % m.group(1)
            raise ToolError(msg)
        if missing is None:
            argv.extend(out)
    return argv


def _s(x):
    return x.decode("utf-8", "replace") if isinstance(x, bytes) else ("" if x is None else str(x))


def _map(reply):
    if isinstance(reply, dict):
        return {_s(k): v for k, v in reply.items()}
    return {_s(reply[i]): reply[i + 1] for i in range(0, len(reply) - 1, 2)}


def _iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))


def _b(x):
    return x if isinstance(x, bytes) else str(x).encode("utf-8")


def _fmt_read(reply, name, by_lines, want_b64):
    c, m = _b(reply[0]), _map(reply[1])
    length, lines, off = m.get("length", 0), m.get("lines", 0), m.get("offset", 0)
    nxt = m.get("next_offset") or 0
    truncated, binary = bool(m.get("truncated")), _s(m.get("kind")) == "binary"
    unit = "bytes" if binary else "characters"
    if binary:
        if want_b64:
            out = "[binary entry '%s', %d bytes; %d bytes from byte %d in base64:]\n" % (name, length, len(c), off)
            out += base64.b64encode(c).decode("ascii")
        else:
            out = ("[binary entry '%s': %d bytes in all; this window is %d bytes from byte %d. Pass base64: true "
                   "to get them in base64, or use scratchpad_peek for a summary.]" % (name, length, len(c), off))
    elif len(c) == 0:
        if length == 0:
            return "[the entry '%s' is empty]" % name
        return "[nothing there: '%s' has %d characters in %d lines]" % (name, length, lines)
    elif by_lines and len(c) > LINES_CAP:
        cut = c.rfind(b"\n", 0, LINES_CAP) + 1 or LINES_CAP
        shown = c[:cut].count(b"\n")
        return (c[:cut].decode("utf-8", "replace") +
                "\n[cut after %d lines (%d bytes): ask for fewer lines; continue with start=%d]" % (shown, cut,
                                                                                                     off + shown))
    else:
        out = c.decode("utf-8", "replace")
    if not truncated:
        return out
    if by_lines:
        return out + "\n[%d more lines after this; continue with start=%d]" % (lines - nxt + 1, nxt)
    return out + "\n[truncated: %d more %s after this; continue with offset=%d]" % (length - nxt, unit, nxt)


def _fmt_grep(reply, where):
    lines, m = reply[0], _map(reply[1])
    matched = m.get("matched", 0)
    if matched == 0:
        return "No line of %s matches." % where
    out = "%d matching line%s in %s" % (matched, "" if matched == 1 else "s", where)
    if m.get("truncated"):
        out += " (the first %d shown)" % m.get("shown", 0)
    return out + ":" + "".join("\n" + _s(x) for x in lines)


def _fmt_list(reply):
    items = reply[1]
    rows = []
    for e in items:
        e = _map(e)
        binary = _s(e.get("kind")) == "binary"
        row = "%s (%s, %d %s, version %d, updated %s" % (
            _s(e["name"]), "binary" if binary else "text", e.get("length", 0), "bytes" if binary else "characters",
            e.get("version", 0), _iso(e.get("updated", 0)))
        if e.get("ttl", -1) >= 0:
            row += ", expires in %d s" % ((e["ttl"] + 999) // 1000)
        rows.append(row + ")")
    out = "\n".join(rows) if rows else "No entries."
    if _s(reply[0]) != "0":
        out += "\n[more entries: call again with cursor=\"%s\"]" % _s(reply[0])
    return out


def _fmt_map(reply):
    rows = []
    for k, v in _map(reply).items():
        rows.append("%s: %s" % (k, "(none)" if v is None else v if isinstance(v, int) else _s(v)))
    return "\n".join(rows)


def _fmt_changes(reply, since):
    m = _map(reply)
    last = m.get("last", 0)
    if m.get("gap"):
        return ("[gap: the changes after %s are no longer all kept; re-read what you need. Latest sequence "
                "number: %d]" % (since or "0", last))
    ch = m.get("changes") or []
    if not ch:
        return "No change since %s. Latest sequence number: %d." % (since or "0", last)
    out = ""
    for c in ch:
        out += "%d %s %s '%s' version %d, %d bytes, by %s\n" % (c[0], _iso(c[1]), _s(c[2]), _s(c[3]), c[4], c[5],
                                                                _s(c[6]) or "(unnamed)")
    return out + "Latest sequence number: %d; pass since=%d next time." % (ch[-1][0], ch[-1][0])


def _render(fmt, reply, tool, vals):
    name = vals.get("name") or ""
    if reply is None or (isinstance(reply, list) and not reply and fmt != "list"):
        if fmt == "lease":
            raise ToolError("the lease is still held by another agent: waited %s ms" % (vals.get("wait_ms") or "0"))
        if fmt == "changes":
            return "No change in %s ms." % (vals.get("wait_ms") or "0")
        raise ToolError("no entry '%s' in the scratchpad" % name)
    if fmt == "version":
        return "OK: '%s' is at version %d." % (name, reply)
    if fmt == "length":
        return "OK: '%s' is now %d long." % (name, reply)
    if fmt in ("read", "lines"):
        return _fmt_read(reply, name, fmt == "lines", vals.get("base64") is not None)
    if fmt == "grep":
        return _fmt_grep(reply, "'%s'" % name)
    if fmt == "grep_entries":
        return _fmt_grep(reply, "the entries matching '%s'" % (vals.get("entries") or ""))
    if fmt == "list":
        return _fmt_list(reply)
    if fmt == "text":
        return _s(reply)
    if fmt == "map":
        return _fmt_map(reply)
    if fmt == "edit":
        return "OK: %d replacement%s in '%s', now at version %d." % (reply[0], "" if reply[0] == 1 else "s", name,
                                                                      reply[1])
    if fmt == "deleted":
        return ("Deleted '%s'." if reply else "No entry '%s': nothing deleted.") % name
    if fmt == "lease":
        return ("You hold the lease on '%s' until %s with token %d: pass fence_resource=\"%s\" and fence_token=%d "
                "with your writes, and release it when done." % (vals["resource"], _iso(reply[1]), reply[0],
                                                                 vals["resource"], reply[0]))
    if fmt == "released":
        if not reply:
            raise ToolError("not released: '%s' did not hold the lease on '%s' with token %s (it may have expired)"
                            % (vals["holder"], vals["resource"], vals["token"]))
        return "Released the lease on '%s'." % vals["resource"]
    if fmt == "changes":
        return _fmt_changes(reply, vals.get("since"))
    raise ToolError("unexpected reply from the server for %s" % tool["name"])


def prepare(ns, name, args):
    """(argv, render) for a tool call: the command to send and a function of its reply that gives
    the model's text (or raises ToolError). Raises ToolError for bad arguments."""
    tool = _BY_NAME.get(name)
    if tool is None:
        raise ToolError("unknown tool '%s'" % name)
    vals = _check(tool, args)
    var = _variant(tool, vals)
    return _expand(tool, var["argv"], ns, vals), lambda reply: _render(var["result"], reply, tool, vals)


def call(client, ns, name, args):
    """Run tool `name` with `args` (a dict) in namespace ns on a redis-py client
    (decode_responses off). Returns the text for the model; raises ToolError
    with the text of a failed call (bad arguments, the server's error, the
    server unavailable)."""
    argv, render = prepare(ns, name, args)
    try:
        reply = client.execute_command(*argv)
    except redis.ResponseError as e:
        raise ToolError(str(e)) from None
    except (redis.ConnectionError, redis.TimeoutError) as e:
        raise ToolError("the scratchpad server is unavailable: %s" % e) from None
    return render(reply)


async def call_async(client, ns, name, args):
    """call() on a redis.asyncio client."""
    argv, render = prepare(ns, name, args)
    try:
        reply = await client.execute_command(*argv)
    except redis.ResponseError as e:
        raise ToolError(str(e)) from None
    except (redis.ConnectionError, redis.TimeoutError) as e:
        raise ToolError("the scratchpad server is unavailable: %s" % e) from None
    return render(reply)
