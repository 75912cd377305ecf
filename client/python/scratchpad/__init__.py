"""scratchpad -- Scratchpad's SP.* commands and LLM tools for Python, on redis-py.

    import redis, scratchpad
    sp = scratchpad.Scratchpad(redis.Redis(port=6379), "agent-7")
    sp.write("plan", "- [ ] read the code\n")
    text = sp.call("scratchpad_read", {"name": "plan"})   # what a model's tool call gets

Scratchpad(client, namespace) wraps one scratchpad (one namespace, chosen by
the harness, never by the model) with a method per SP command (entries and
their metadata, windows, search, leases, the change feed, snapshots, diffs,
forks, entry history), typed results (dataclasses) and exceptions per error code (VersionConflict for -VERSION,
Fenced for -FENCED, Leased for -LEASED, NotFound for a missing entry).
as_tools(format) and call(tool, args) are generated from client/tools.c's table
(tools_table.json); offload_result() is the large-tool-output rule a harness
applies to every tool result. The client must not decode responses (the
default of redis.Redis): contents are returned as str for text entries and
bytes for binary ones. scratchpad.asyncio has the same class on redis.asyncio.
"""

import contextlib
import dataclasses
import re
import time
from typing import Iterator, List, Optional, Union

import redis

from . import _tools
from ._tools import ToolError

__all__ = ["Scratchpad", "ScratchpadError", "VersionConflict", "Fenced", "Leased", "NotFound", "PermissionDenied", "ToolError",
           "Stat", "Entry", "ListPage", "ReadResult", "GrepResult", "GrepEntriesResult", "OffloadResult", "Lease",
           "HeldLease", "Change", "Snapshot", "DiffItem", "HistoryItem", "as_tools", "offload_result"]


class ScratchpadError(Exception):
    """An error reply of the server (the message is the server's)."""


class VersionConflict(ScratchpadError):
    """-VERSION: an IFVERSION check failed; nothing changed."""


class Fenced(ScratchpadError):
    """-FENCED: the FENCE token is not the current lease's; nothing changed."""


class Leased(ScratchpadError):
    """-LEASED: another holder has the lease."""


class NotFound(ScratchpadError):
    """The entry does not exist (SP.EDIT / SP.INSERT on a missing entry, a read's nil)."""


class PermissionDenied(ScratchpadError):
    """-NOPERM: the connection's ACL user may not run the command or touch this
    scratchpad (docs/security.md); the message is the server's, NOPERM included."""


def _raise(e):
    msg = str(e)
    if isinstance(e, redis.exceptions.NoPermissionError):  # redis-py drops the code from the text
        raise PermissionDenied(msg if msg.startswith("NOPERM") else "NOPERM " + msg) from None
    for prefix, cls in (("VERSION ", VersionConflict), ("FENCED ", Fenced), ("LEASED ", Leased),
                        ("no such entry", NotFound)):
        if msg.startswith(prefix):
            raise cls(msg) from None
    raise ScratchpadError(msg) from None


def _content(data, kind):
    return data.decode("utf-8") if kind == "text" and isinstance(data, bytes) else data


def _meta(reply):
    """A metadata map: field -> value (str, or bytes for a value that is not UTF-8); {} for none."""
    out = {}
    for k, v in (_tools._map(reply) if reply else {}).items():
        try:
            out[k] = v.decode("utf-8") if isinstance(v, bytes) else v
        except UnicodeDecodeError:
            out[k] = v
    return out


def _meta_args(keyword, fields):
    """keyword field value ... for a dict of metadata fields (META for writes, WHERE for lists)."""
    return [x for k, v in (fields or {}).items() for x in (keyword, k, v)]


@dataclasses.dataclass
class Stat:
    kind: str
    size: int
    length: int
    lines: int
    version: int
    created: int
    updated: int
    ttl: int
    encoding: str
    stored: int
    chunks: int
    sha256: str
    meta: dict = dataclasses.field(default_factory=dict)  # metadata fields


@dataclasses.dataclass
class Entry:
    name: str
    kind: str
    size: int
    length: int
    version: int
    created: int
    updated: int
    ttl: int
    meta: dict = dataclasses.field(default_factory=dict)  # metadata fields


@dataclasses.dataclass
class ListPage:
    entries: List[Entry]
    cursor: str  # "0" when this is the last page


@dataclasses.dataclass
class ReadResult:
    content: Union[str, bytes]
    version: int
    size: int
    length: int
    lines: int
    kind: str
    offset: int
    truncated: bool
    next_offset: Optional[int]


@dataclasses.dataclass
class GrepResult:
    lines: List[tuple]  # (line number, is a match, text)
    matched: int
    shown: int
    truncated: bool


@dataclasses.dataclass
class GrepEntriesResult:
    lines: List[str]  # "<entry>:<n>:<text>" (a match) or "<entry>-<n>-<text>" (context), as the server sends
    matched: int
    shown: int
    truncated: bool
    entries: int  # entries searched


@dataclasses.dataclass
class OffloadResult:
    stored: bool
    name: Optional[str] = None
    size: int = 0
    length: int = 0
    kind: str = ""
    preview: str = ""
    content: Optional[Union[str, bytes]] = None  # when not stored


@dataclasses.dataclass
class Lease:
    resource: str
    holder: str
    token: int
    expires_at: int  # ms since the epoch


@dataclasses.dataclass
class HeldLease:
    resource: str
    holder: str
    token: int
    ms_left: int


@dataclasses.dataclass
class Snapshot:
    label: str
    time: int  # ms since the epoch
    entries: int
    bytes: int  # the entries' logical size


@dataclasses.dataclass
class DiffItem:
    status: str  # "added", "removed" or "changed"
    name: str
    old_version: Optional[int]  # None when added
    new_version: Optional[int]  # None when removed
    old_size: Optional[int]
    new_size: Optional[int]


@dataclasses.dataclass
class HistoryItem:
    version: int
    time: int  # ms since the epoch
    op: str  # as in the change feed: write, append, edit, insert, meta, revert, restore, ...
    size: int
    client: str  # the writer's CLIENT SETNAME name, "" when none


@dataclasses.dataclass
class Change:
    seq: int
    time: int
    op: str
    name: str
    version: int
    size: int
    client: str


def as_tools(format="anthropic", only=None):
    """The tool definitions for a model API: "anthropic" or "openai" (or "mcp");
    only: the names of the tools to give (e.g. ["read", "write"]), as
    scratchpad-mcp --tools."""
    return _tools.definitions(format, only)


def _same(r):
    return r


def _parse_offload(reply):
    m = _tools._map(reply)
    if not m["stored"]:
        return OffloadResult(stored=False, content=m["content"])
    return OffloadResult(stored=True, name=_tools._s(m["name"]), size=m["size"], length=m["length"],
                         kind=_tools._s(m["kind"]), preview=_tools._s(m["preview"]))


def _parse_read(reply):
    if reply is None:
        return None
    m = _tools._map(reply[1])
    kind = _tools._s(m["kind"])
    return ReadResult(content=_content(reply[0], kind), version=m["version"], size=m["size"], length=m["length"],
                      lines=m["lines"], kind=kind, offset=m["offset"], truncated=bool(m["truncated"]),
                      next_offset=m["next_offset"])


def _parse_grep(reply):
    if reply is None:
        return None
    out = []
    for raw in reply[0]:
        s = _tools._s(raw)
        i = len(s) - len(s.lstrip("0123456789"))  # "<n>:" a match, "<n>-" a context line
        out.append((int(s[:i]), s[i] == ":", s[i + 1:]))
    m = _tools._map(reply[1])
    return GrepResult(lines=out, matched=m["matched"], shown=m["shown"], truncated=bool(m["truncated"]))


def _strs(m):
    return {k: (_tools._s(v) if isinstance(v, bytes) else v) for k, v in _tools._map(m).items()}


def _parse_stat(reply):
    if reply is None:
        return None
    m = _strs(reply)
    m["meta"] = _meta(m.get("meta"))
    return Stat(**{f.name: m.get(f.name) for f in dataclasses.fields(Stat)})


def _parse_list(reply):
    cur, items = reply
    entries = []
    for it in items:
        m = _strs(it)
        m["meta"] = _meta(m.get("meta"))
        entries.append(Entry(**{f.name: m.get(f.name) for f in dataclasses.fields(Entry)}))
    return ListPage(entries=entries, cursor=_tools._s(cur))


def _parse_grep_entries(reply):
    m = _tools._map(reply[1])
    return GrepEntriesResult(lines=[_tools._s(x) for x in reply[0]], matched=m["matched"], shown=m["shown"],
                             truncated=bool(m["truncated"]), entries=m["entries"])


def _parse_snapshots(reply):
    return [Snapshot(_tools._s(s[0]), s[1], s[2], s[3]) for s in reply]


def _parse_diff(reply):
    return [DiffItem(_tools._s(d[0]), _tools._s(d[1]), *d[2:6]) for d in reply]


def _parse_history(reply):
    if reply is None:
        return None
    return [HistoryItem(h[0], h[1], _tools._s(h[2]), h[3], _tools._s(h[4])) for h in reply]


def _parse_diff_text(reply):
    return None if reply is None else _tools._s(reply)


def _changes_page(reply, since):
    """(changes, done) of one SP.CHANGES reply; a gap raises."""
    if reply is None:
        return [], False
    m = _tools._map(reply)
    if m["gap"]:
        raise ScratchpadError("gap in the change feed after %d: resume from %d" % (since, m["last"]))
    return [Change(c[0], c[1], _tools._s(c[2]), _tools._s(c[3]), c[4], c[5], _tools._s(c[6]))
            for c in m["changes"]], not m["changes"]


class _Commands:
    """The SP commands as (arguments, parser) pairs: each method returns self._run(parse, *args),
    which the sync class runs at once and the asyncio class returns as a coroutine."""

    def __init__(self, client, namespace: str):
        self.r = client
        self.ns = namespace

    @staticmethod
    def _opts(ifversion=None, fence=None):
        out = []
        if ifversion is not None:
            out += ["IFVERSION", ifversion]
        if fence is not None:
            out += ["FENCE", fence[0], fence[1]]
        return out

    # -- writes: fence=(resource, token) from leased() or a Lease
    def write(self, name, content, *, ex=None, px=None, keepttl=False, kind=None, nx=False, xx=False,
              ifversion=None, meta=None, fence=None):
        """SP.WRITE: the new version; None when nx/xx stopped it. meta: a dict of metadata fields that
        becomes the entry's metadata (at most 32 fields, 4096 bytes); None keeps what an overwritten entry has."""
        args = ["SP.WRITE", self.ns, name, content] + _meta_args("META", meta)
        args += ["EX", ex] if ex is not None else []
        args += ["PX", px] if px is not None else []
        args += ["KEEPTTL"] if keepttl else []
        args += ["KIND", kind] if kind else []
        args += ["NX"] if nx else []
        args += ["XX"] if xx else []
        return self._run(_same, *args, *self._opts(ifversion, fence))

    def append(self, name, content, *, ifversion=None, fence=None):
        """SP.APPEND: the new length."""
        return self._run(_same, "SP.APPEND", self.ns, name, content, *self._opts(ifversion, fence))

    def edit(self, name, old, new, *, replace_all=False, ifversion=None, fence=None):
        """SP.EDIT: (replacements, version)."""
        args = ["SP.EDIT", self.ns, name, old, new] + (["ALL"] if replace_all else [])
        return self._run(tuple, *args, *self._opts(ifversion, fence))

    def insert(self, name, line, text, *, ifversion=None, fence=None):
        """SP.INSERT after `line` (0 the top, -1 the end): the new version."""
        return self._run(_same, "SP.INSERT", self.ns, name, line, text, *self._opts(ifversion, fence))

    def delete(self, *names, fence=None):
        """SP.DEL: how many existed."""
        return self._run(_same, "SP.DEL", self.ns, *names, *self._opts(None, fence))

    def offload(self, content, *, threshold=None, chars=False, prefix=None, separator=None, ex=None, kind=None,
                meta=None, fence=None):
        """SP.OFFLOAD: an OffloadResult (stored under <prefix>-<n>, or <prefix>_<n> with separator="_", when
        over the threshold)."""
        args = ["SP.OFFLOAD", self.ns, content]
        args += ["THRESHOLD", threshold] if threshold is not None else []
        args += ["CHARS"] if chars else []
        args += ["PREFIX", prefix] if prefix else []
        args += ["SEPARATOR", separator] if separator else []
        args += ["EX", ex] if ex is not None else []
        args += ["KIND", kind] if kind else []
        args += _meta_args("META", meta)
        return self._run(_parse_offload, *args, *self._opts(None, fence))

    def expire(self, name, seconds, *, fence=None):
        return self._run(bool, "SP.EXPIRE", self.ns, name, seconds, *self._opts(None, fence))

    def persist(self, name, *, fence=None):
        return self._run(bool, "SP.PERSIST", self.ns, name, *self._opts(None, fence))

    def ttl(self, name):
        return self._run(_same, "SP.TTL", self.ns, name)

    # -- reads
    def read(self, name, *, offset=None, limit=None, head=None, tail=None, lines=None, bytes=False, version=None):
        """SP.READ ... WITHMETA with at most one window: offset/limit, head, tail or lines=(from, to); with
        version, that earlier version (one history() lists). A ReadResult; None when the entry does not exist."""
        args = ["SP.READ", self.ns, name] + (["VERSION", version] if version is not None else [])
        args += ["OFFSET", offset] if offset is not None else []
        args += ["LIMIT", limit] if limit is not None else []
        args += ["HEAD", head] if head is not None else []
        args += ["TAIL", tail] if tail is not None else []
        args += ["LINES", lines[0], lines[1]] if lines is not None else []
        args += ["BYTES"] if bytes else []
        return self._run(_parse_read, *args, "WITHMETA")

    def text(self, name):
        """The whole content (str for text, bytes for binary), or None."""
        return self._run(lambda r: None if r is None else _parse_read(r).content, "SP.READ", self.ns, name,
                         "WITHMETA")

    def range(self, name, start, end=None):
        """SP.RANGE, Python-slice semantics; bytes (decode a text entry yourself)."""
        return self._run(_same, "SP.RANGE", self.ns, name, start, *([end] if end is not None else []))

    def peek(self, name, *, head=None, tail=None):
        args = ["SP.PEEK", self.ns, name] + (["HEAD", head] if head is not None else []) + \
            (["TAIL", tail] if tail is not None else [])
        return self._run(lambda r: None if r is None else _tools._s(r), *args)

    def grep(self, name, pattern, *, max=None, context=None, nocase=False, literal=False):
        """SP.GREP ... WITHMETA: a GrepResult, lines as (number, is a match, text); None if missing."""
        args = ["SP.GREP", self.ns, name, pattern]
        args += ["MAX", max] if max is not None else []
        args += ["CONTEXT", context] if context is not None else []
        args += ["NOCASE"] if nocase else []
        args += ["LITERAL"] if literal else []
        return self._run(_parse_grep, *args, "WITHMETA")

    def grep_entries(self, pattern, *globs, max=None, context=None, nocase=False, literal=False):
        """SP.GREP ... ENTRIES glob ... WITHMETA: the lines of every entry whose name matches a glob ("*" when
        none is given), as a GrepEntriesResult."""
        args = ["SP.GREP", self.ns, pattern, "ENTRIES", *(globs or ("*",))]
        args += ["MAX", max] if max is not None else []
        args += ["CONTEXT", context] if context is not None else []
        args += ["NOCASE"] if nocase else []
        args += ["LITERAL"] if literal else []
        return self._run(_parse_grep_entries, *args, "WITHMETA")

    def stat(self, name):
        """SP.STAT: a Stat (its meta: the metadata fields); None when the entry does not exist."""
        return self._run(_parse_stat, "SP.STAT", self.ns, name)

    def list(self, *, match=None, where=None, cursor="0", count=None):
        """One page of SP.LIST ... WITHMETA: a ListPage. where: a dict of metadata fields every entry listed
        has with exactly these values."""
        args = ["SP.LIST", self.ns, "WITHMETA", "CURSOR", cursor] + _meta_args("WHERE", where)
        args += ["MATCH", match] if match else []
        args += ["COUNT", count] if count else []
        return self._run(_parse_list, *args)

    def info(self):
        return self._run(lambda r: None if r is None else _strs(r), "SP.INFO", self.ns)

    # -- leases
    def lease(self, resource, holder, ttl_ms, *, wait_ms=None):
        """SP.LEASE: a Lease, or None when wait_ms passed; Leased when held (without wait_ms)."""
        return self._run(lambda r: None if r is None else Lease(resource, holder, r[0], r[1]), "SP.LEASE",
                         self.ns, resource, holder, ttl_ms, *(["WAIT", wait_ms] if wait_ms is not None else []))

    def release(self, lease: Lease):
        return self._run(bool, "SP.RELEASE", self.ns, lease.resource, lease.holder, lease.token)

    def leases(self):
        """SP.LEASES: the live leases, a list of HeldLease by resource."""
        return self._run(lambda r: [HeldLease(_tools._s(x[0]), _tools._s(x[1]), x[2], x[3]) for x in r],
                         "SP.LEASES", self.ns)

    # -- metadata
    def meta_set(self, name, fields, *, fence=None):
        """SP.META ... SET: set the fields of a dict (others are kept); the new version."""
        args = [x for k, v in fields.items() for x in (k, v)]
        return self._run(_same, "SP.META", self.ns, name, "SET", *args, *self._opts(None, fence))

    def meta_del(self, name, *fields, fence=None):
        """SP.META ... DEL: (fields removed, version); the version is unchanged when none was."""
        return self._run(tuple, "SP.META", self.ns, name, "DEL", *fields, *self._opts(None, fence))

    def meta_clear(self, name, *, fence=None):
        """SP.META ... CLEAR: (fields removed, version)."""
        return self._run(tuple, "SP.META", self.ns, name, "CLEAR", *self._opts(None, fence))

    # -- snapshots, diffs, forks, history
    def snapshot(self, label, *, fence=None):
        """SP.SNAPSHOT: freeze the scratchpad under label; the number of entries."""
        return self._run(_same, "SP.SNAPSHOT", self.ns, label, *self._opts(None, fence))

    def snapshots(self):
        """SP.SNAPSHOTS: a list of Snapshot, oldest first."""
        return self._run(_parse_snapshots, "SP.SNAPSHOTS", self.ns)

    def restore(self, label, *, fence=None):
        """SP.RESTORE: the live entries become the snapshot's (each changed one at a new version); how many
        entries changed."""
        return self._run(_same, "SP.RESTORE", self.ns, label, *self._opts(None, fence))

    def drop_snapshot(self, label, *, fence=None):
        """SP.DROPSNAPSHOT: True if there was one."""
        return self._run(bool, "SP.DROPSNAPSHOT", self.ns, label, *self._opts(None, fence))

    def diff(self, frm, to="NOW"):
        """SP.DIFF from to (labels or "NOW"): the entries that differ, a list of DiffItem in name order."""
        return self._run(_parse_diff, "SP.DIFF", self.ns, frm, to)

    def diff_entry(self, name, frm, to="NOW"):
        """SP.DIFF from to name: the entry's unified line diff (str, "" when equal); None when it is in
        neither state."""
        return self._run(_parse_diff_text, "SP.DIFF", self.ns, frm, to, name)

    def fork(self, dst, *, from_label=None, fence=None):
        """SP.FORK: the scratchpad `dst` (a key that must not exist) becomes a copy of this one (or of its
        snapshot from_label), sharing contents until either side changes; the number of entries. Scratchpad(
        client, dst) then works in the fork."""
        args = ["SP.FORK", self.ns, dst] + (["FROM", from_label] if from_label is not None else [])
        return self._run(_same, *args, *self._opts(None, fence))

    def history(self, name):
        """SP.HISTORY: the versions kept, a list of HistoryItem oldest first (the last is the current one);
        None when the entry does not exist."""
        return self._run(_parse_history, "SP.HISTORY", self.ns, name)

    def revert(self, name, version, *, fence=None):
        """SP.REVERT: write version's content, kind and metadata back as a new version; the new version."""
        return self._run(_same, "SP.REVERT", self.ns, name, version, *self._opts(None, fence))

    def _changes_args(self, since, count, block_ms):
        args = ["SP.CHANGES", self.ns, "SINCE", since]
        args += ["COUNT", count] if count else []
        args += ["BLOCK", block_ms] if block_ms is not None else []
        return args

    # -- the tools
    def as_tools(self, format="anthropic", only=None):
        """The tool definitions: "anthropic" or "openai" (or "mcp"); only: the
        names of the tools to give, as scratchpad-mcp --tools."""
        return _tools.definitions(format, only)


class Scratchpad(_Commands):
    """One scratchpad (namespace) on a redis-py client (redis.Redis)."""

    def _run(self, parse, *args):
        try:
            reply = self.r.execute_command(*args)
        except redis.ResponseError as e:
            _raise(e)
        return parse(reply)

    def entries(self, *, match=None, where=None, count=None) -> Iterator[Entry]:
        """Every entry, through all pages."""
        cursor = "0"
        while True:
            page = self.list(match=match, where=where, cursor=cursor, count=count)
            yield from page.entries
            cursor = page.cursor
            if cursor == "0":
                return

    @contextlib.contextmanager
    def leased(self, resource, holder, ttl_ms, *, wait_ms=None):
        """with sp.leased("plan", "agent-a", 30000) as fence: sp.write("plan", text, fence=fence)
        Takes the lease (Leased, or TimeoutError after wait_ms), yields (resource, token), releases it."""
        lease = self.lease(resource, holder, ttl_ms, wait_ms=wait_ms)
        if lease is None:
            raise TimeoutError("lease on %r still held after %s ms" % (resource, wait_ms))
        try:
            yield (lease.resource, lease.token)
        finally:
            self.release(lease)

    def changes(self, since=0, *, count=None, block_ms=1000, follow=False) -> Iterator[Change]:
        """The changes after `since`, oldest first, until none is left; with follow, for ever (waiting
        block_ms at a time). A gap (changes no longer kept) raises ScratchpadError."""
        while True:
            page, empty = _changes_page(self._run(_same, *self._changes_args(since, count,
                                                                             block_ms if follow else None)), since)
            for ch in page:
                since = ch.seq
                yield ch
            if empty and not follow:
                return

    def call(self, tool_name, args) -> str:
        """Run a model's tool call: the text for the model. Raises ToolError (its str: the error text)."""
        return _tools.call(self.r, self.ns, tool_name, args)

    call_tool = call

    def offload_result(self, tool_name, text, *, threshold_chars=30000, threshold_bytes=None, ex=None,
                       meta=None) -> str:
        """See offload_result()."""
        return offload_result(self, tool_name, text, threshold_chars=threshold_chars,
                              threshold_bytes=threshold_bytes, ex=ex, meta=meta)


def _offload_args(tool_name, text, threshold_chars, threshold_bytes, ex, meta=None):
    """The SP.OFFLOAD options of offload_result: <tool>_<n> names (a tool name's characters that no entry
    name may hold become "_"), the metadata (tool: the tool's name, then the harness's fields), the
    threshold in characters or bytes, and bytes that are not UTF-8 always stored as binary, so that they
    are described and never shown with replacement characters."""
    prefix = re.sub(r"[^A-Za-z0-9_.:-]", "_", tool_name)[:200].strip(".") or "tool"
    kw = dict(prefix=prefix, separator="_", ex=ex, meta=dict({"tool": tool_name}, **(meta or {})))
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text)
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            return text, dict(kw, threshold=0, kind="binary")
    if threshold_bytes is not None:
        return text, dict(kw, threshold=threshold_bytes)
    return text, dict(kw, threshold=threshold_chars, chars=True)


def _offload_note(tool_name, r):
    if not r.stored:
        return r.content.decode("utf-8") if isinstance(r.content, bytes) else r.content
    if r.kind == "binary":
        return ("[%s's output is binary data (%d bytes), stored in the scratchpad as '%s': %s. Read it with "
                "scratchpad_read name=\"%s\" base64=true if you need its bytes.]"
                % (tool_name, r.length, r.name, r.preview, r.name))
    return ("[%s's output (%d characters) was stored in the scratchpad as '%s'. Preview, head and tail:]\n%s\n"
            "[Read it with scratchpad_read name=\"%s\" (offset, limit, regex), scratchpad_view or scratchpad_grep.]"
            % (tool_name, r.length, r.name, r.preview, r.name))


def offload_result(sp: Scratchpad, tool_name: str, text: Union[str, bytes], *, threshold_chars=30000,
                   threshold_bytes=None, ex=None, meta=None) -> str:
    """The large-output rule a harness applies to every tool result before it
    enters the context: a result of more than threshold_chars characters, or
    of more than threshold_bytes bytes when that is given, is stored in the
    scratchpad as <tool_name>_<n> (n counts per tool, from 1; ex: its lifetime
    in seconds) and replaced by a note with its name, length and a head+tail
    preview (the first and last 500 characters); a smaller one is returned as
    it is. Bytes that are not valid UTF-8, however few, are binary: always
    stored, and described by their size and SHA-256, never passed through. A stored output's metadata
    is {"tool": tool_name} and the fields of meta (its source path, the step: what the harness keeps
    beside each observation), so that sp.list(where={"tool": ...}) finds a tool's outputs."""
    text, kw = _offload_args(tool_name, text, threshold_chars, threshold_bytes, ex, meta)
    return _offload_note(tool_name, sp.offload(text, **kw))
