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


def definitions(format="anthropic", only=None):
    """The tool definitions: "anthropic" ({name, description, input_schema}),
    "openai" ({type: "function", function: {name, description, parameters}})
    or "mcp" ({name, description, inputSchema}). A new list each call. only:
    the names of the tools to give (the "scratchpad_" prefix optional), in the
    table's order, as scratchpad-mcp --tools; a name that is no tool is a
    ValueError."""
    chosen = None
    if only is not None:
        names = [t["name"] for t in TABLE]
        chosen = set()
        for n in ([only] if isinstance(only, str) else only):
            full = n if n.startswith("scratchpad_") else "scratchpad_" + n
            if full not in names:
                raise ValueError("no tool named %r; the tools are: %s" % (n, ", ".join(x[11:] for x in names)))
            chosen.add(full)
    out = []
    for t in TABLE:
        if chosen is not None and t["name"] not in chosen:
            continue
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
    return {"string": "a string", "integer": "an integer", "boolean": "a boolean", "object": "an object",
            "array": "an array"}[t]


def _pattern_error(tool, name, what, value):
    rule = tool["x-scratchpad"]["rules"].get(name)
    if rule:
        return "invalid %s '%s': %s" % (what, value, rule)
    if name == "name":
        return ("invalid entry name '%s': names are 1 to 255 characters of A-Z a-z 0-9 _ - . : / with no empty, "
                "'.' or '..' path segment" % value)
    return "invalid %s '%s': printable characters without spaces" % (what, value)


def _check_collection(tool, name, p, v):
    """An object of string fields or an array of strings against its schema (tools_call.c's check_collection)."""
    obj = p["type"] == "object"
    lo, hi = (p["minProperties"], p["maxProperties"]) if obj else (p["minItems"], p["maxItems"])
    if not lo <= len(v) <= hi:
        raise ToolError("argument '%s' must have %d to %d %s (got %d)" % (name, lo, hi, "fields" if obj else "items",
                                                                          len(v)))
    pattern = next(iter(p["patternProperties"])) if obj else p["items"]["pattern"]
    size = 0
    for item in v:
        if obj:
            if not isinstance(v[item], str):
                raise ToolError("argument '%s': the value of '%s' must be a string" % (name, item))
            size += len(item.encode("utf-8", "surrogatepass")) + len(v[item].encode("utf-8", "surrogatepass"))
        else:
            if not isinstance(item, str):
                raise ToolError("argument '%s': every item must be a string" % name)
            if "\0" in item:
                raise ToolError("argument '%s': an item holds a NUL character" % name)
        if not re.search(pattern, item):
            raise ToolError("argument '%s': %s" % (name, _pattern_error(tool, name, "field name" if obj else "item",
                                                                        item)))
    limit = tool["x-scratchpad"]["max_bytes"].get(name)
    if obj and limit and size > limit:
        raise ToolError("argument '%s' must hold at most %d bytes of field names and values together (got %d)"
                        % (name, limit, size))


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
              else isinstance(v, dict) if t == "object" else isinstance(v, list) if t == "array"
              else isinstance(v, int) and not isinstance(v, bool))
        if not ok:
            raise ToolError("argument '%s' must be %s" % (name, _type_name(t)))
        if t == "boolean":
            vals[name] = "" if v else None
            continue
        if t in ("object", "array"):
            _check_collection(tool, name, p, v)
            vals[name] = v
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
            raise ToolError(_pattern_error(tool, name, name, v))
        vals[name] = v
    return vals


def _variant(tool, vals, args):
    """The variant for the call; an argument it excludes, given, raises ToolError."""
    variants = tool["x-scratchpad"]["variants"]
    chosen = variants[-1]
    for var in variants[:-1]:
        arg, _, value = var["when"].partition("=")
        if vals.get(arg) is not None and ("=" not in var["when"] or vals[arg] == value):
            chosen = var
            break
    for ex in (chosen.get("excludes") or "").split():
        if (args or {}).get(ex) is not None and vals.get(ex) is not None:
            raise ToolError("argument '%s' does not go with '%s'" % (ex, chosen["when"].partition("=")[0]))
    return chosen


def _elements(v, elem):
    """An object's fields as field, value pairs, or an array's items: all (elem None) or the elem-th."""
    items = [[k, x] for k, x in v.items()] if isinstance(v, dict) else [[x] for x in v]
    return [x for i, pair in enumerate(items) if elem is None or i == elem for x in pair]


def _expand(tool, template, ns, vals):
    """argv for a template (tools.h's rules); raises ToolError."""
    props = tool["input_schema"]["properties"]
    argv = []
    for m in re.finditer(r"\[([^\]]*)\](\*?)|(\S+)", template):
        group = m.group(1) is not None
        tokens = (m.group(1) if group else m.group(3)).split()
        if group and m.group(2):  # once per element of the group's object or array argument
            coll = next(vals[t[1:-1]] for t in tokens if t.startswith("{") and t[1:-1] in props and
                        props[t[1:-1]]["type"] in ("object", "array"))
            for elem in range(len(coll or ())):
                for tok in tokens:
                    argv.extend(_elements(coll, elem) if tok.startswith("{") else [tok])
            continue
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
                    if props[name]["type"] in ("object", "array"):
                        out.extend(_elements(vals[name], None))
                    elif props[name]["type"] != "boolean":
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


def _fmt_read(reply, name, by_lines, want_b64, version=None):
    more = ", version=%s" % version if version else ""  # a read of an earlier version continues with it
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
                "\n[cut after %d lines (%d bytes): ask for fewer lines; continue with start=%d%s]" % (
                    shown, cut, off + shown, more))
    else:
        out = c.decode("utf-8", "replace")
    if not truncated:
        return out
    if by_lines:
        return out + "\n[%d more lines after this; continue with start=%d%s]" % (lines - nxt + 1, nxt, more)
    return out + "\n[truncated: %d more %s after this; continue with offset=%d%s]" % (length - nxt, unit, nxt, more)


def _fmt_grep(reply, where):
    lines, m = reply[0], _map(reply[1])
    matched = m.get("matched", 0)
    if matched == 0:
        return "No line of %s matches." % where
    out = "%d matching line%s in %s" % (matched, "" if matched == 1 else "s", where)
    if m.get("truncated"):
        out += " (the first %d shown)" % m.get("shown", 0)
    return out + ":" + "".join("\n" + _s(x) for x in lines)


def _fmt_meta(m):
    """A metadata map as compact JSON, fields in the server's order (as jansson writes it)."""
    text = json.dumps({_s(k): _s(v) for k, v in _map(m).items()}, ensure_ascii=False, separators=(",", ":"))
    return re.sub(r"\\u00([0-9a-f]{2})", lambda x: "\\u00" + x.group(1).upper(), text)


def _fmt_list(reply, with_meta=False):
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
        row += ")"
        if with_meta and e.get("meta") is not None:
            row += " " + _fmt_meta(e["meta"])
        rows.append(row)
    out = "\n".join(rows) if rows else "No entries."
    if _s(reply[0]) != "0":
        out += "\n[more entries: call again with cursor=\"%s\"]" % _s(reply[0])
    return out


def _fmt_map(reply):
    rows = []
    for k, v in _map(reply).items():
        rows.append("%s: %s" % (k, "(none)" if v is None else v if isinstance(v, int) else
                                _fmt_meta(v) if isinstance(v, (list, dict)) else _s(v)))
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


def _plural(n, one, many):
    return one if n == 1 else many


def _fmt_snapshots(reply):
    return "\n".join("'%s': taken %s, %d %s, %d bytes" % (_s(s[0]), _iso(s[1]), s[2], _plural(s[2], "entry", "entries"),
                                                          s[3]) for s in reply) or "No snapshots."


def _fmt_diff(reply, frm, to):
    if not reply:
        return "No entry differs between '%s' and '%s'." % (frm, to)
    out = "%d %s from '%s' to '%s':" % (len(reply), _plural(len(reply), "entry differs", "entries differ"), frm, to)
    for status, name, ov, nv, osz, nsz in reply:
        status, name = _s(status), _s(name)
        if status == "added":
            out += "\nadded '%s' (version %d, %d bytes)" % (name, nv, nsz)
        elif status == "removed":
            out += "\nremoved '%s' (was version %d, %d bytes)" % (name, ov, osz)
        else:
            out += "\n%s '%s' (version %d -> %d, %d -> %d bytes)" % (status, name, ov, nv, osz, nsz)
    return out


def _fmt_diff_entry(reply, name, frm, to):
    c = _b(reply)
    if not c:
        return "'%s' is the same in '%s' and '%s'." % (name, frm, to)
    if len(c) <= LINES_CAP:
        return c.decode("utf-8", "replace")
    cut = c.rfind(b"\n", 0, LINES_CAP) + 1 or LINES_CAP
    return c[:cut].decode("utf-8", "replace") + (
        "[diff cut after %d of its %d bytes: read the entry around the later changes instead]" % (cut, len(c)))


def _fmt_history(reply, name):
    if not reply:
        return "No version of '%s' is kept: the server keeps no history (sp-history-depth 0)." % name
    out = "Versions of '%s' kept, oldest first:" % name
    for i, (version, when, op, size, client) in enumerate(reply):
        out += "\nversion %d%s: %s, %s, %d bytes, by %s" % (version, " (current)" if i == len(reply) - 1 else "",
                                                            _iso(when), _s(op), size, _s(client) or "(unnamed)")
    return out


def _render(fmt, reply, tool, vals):
    name = vals.get("name") or ""
    if reply is None or (isinstance(reply, list) and not reply and
                         fmt not in ("list", "snapshots", "diff", "history")):
        if fmt == "diff_entry":
            raise ToolError("no entry '%s' in '%s' or in '%s'" % (name, vals["from"], vals["to"]))
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
        return _fmt_read(reply, name, fmt == "lines", vals.get("base64") is not None, vals.get("version"))
    if fmt == "grep":
        return _fmt_grep(reply, "'%s'" % name)
    if fmt == "grep_entries":
        return _fmt_grep(reply, "the entries matching '%s'" % (vals.get("entries") or ""))
    if fmt == "list":
        return _fmt_list(reply, vals.get("with_metadata") is not None)
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
    label = vals.get("label")
    if fmt == "snapshot":
        return ("Snapshot '%s' taken: %d %s. scratchpad_diff from=\"%s\" shows what changes after it; "
                "scratchpad_restore label=\"%s\" goes back to it." % (label, reply, _plural(reply, "entry", "entries"),
                                                                      label, label))
    if fmt == "snapshots":
        return _fmt_snapshots(reply)
    if fmt == "diff":
        return _fmt_diff(reply, vals["from"], vals["to"])
    if fmt == "diff_entry":
        return _fmt_diff_entry(reply, name, vals["from"], vals["to"])
    if fmt == "restored":
        return "Restored snapshot '%s': %d %s changed, each at a new version." % (label, reply,
                                                                                _plural(reply, "entry", "entries"))
    if fmt == "dropped":
        if not reply:
            raise ToolError("no snapshot '%s' to drop" % label)
        return "Dropped snapshot '%s'." % label
    if fmt == "history":
        return _fmt_history(reply, name)
    if fmt == "reverted":
        return "OK: '%s' has the content of version %s again, as version %d." % (name, vals["version"], reply)
    if fmt == "meta" and isinstance(reply, int):
        n = len(vals.get("set") or {})
        return "OK: set %d metadata %s of '%s', now at version %d." % (n, _plural(n, "field", "fields"), name, reply)
    if fmt == "meta":
        if reply[0] == 0:
            return "No metadata field removed: '%s' stays at version %d." % (name, reply[1])
        return "OK: removed %d metadata %s of '%s', now at version %d." % (reply[0], _plural(reply[0], "field",
                                                                                              "fields"), name, reply[1])
    raise ToolError("unexpected reply from the server for %s" % tool["name"])


def prepare(ns, name, args):
    """(argv, render) for a tool call: the command to send and a function of its reply that gives
    the model's text (or raises ToolError). Raises ToolError for bad arguments."""
    tool = _BY_NAME.get(name)
    if tool is None:
        raise ToolError("unknown tool '%s'" % name)
    vals = _check(tool, args)
    var = _variant(tool, vals, args)
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
