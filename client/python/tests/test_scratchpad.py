"""test_scratchpad.py -- the Python package against a real server (pytest).

Imported by path, on Debian's redis-py: a method per SP command with typed
results (ReadResult, GrepResult, Stat, Entry pages, OffloadResult, Lease,
Change, Snapshot, DiffItem, HistoryItem, metadata), the exceptions of the
error codes (VersionConflict, Fenced, Leased, NotFound), the lease context
manager, the change feed iterator, snapshots, diffs, forks and entry history
(an agent's before/after cycle), as_tools in
both forms, call() with its ToolError, offload_result's large-output rule,
scratchpad.asyncio, and pip install offline. The fixtures (conftest.py) start
one scratchpad-server for the module. Each test's docstring is the sentence
tests/integration/python_pkg.py reports for it in make test.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import scratchpad
from conftest import TOP


def raises(cls, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except cls as e:
        return e
    raise AssertionError("%s not raised" % cls.__name__)


def test_writes_and_reads(sp, c, srv):
    """write, append, read by every window, edit, insert, grep, stat, peek, delete with typed results"""
    assert sp.write("plan", "héllo\nwörld\n") == 1
    assert sp.append("plan", "again\n") == 18
    res = sp.read("plan", offset=1, limit=4)
    assert (res.content, res.truncated, res.next_offset, res.kind) == ("éllo", True, 5, "text"), res
    assert sp.read("plan", lines=(-1, -1)).content == "again\n"
    assert sp.read("plan", head=2).content == "hé" and sp.read("plan", tail=6).content == "again\n"
    assert sp.read("nope") is None and sp.text("plan").startswith("héllo")
    assert sp.edit("plan", "again", "AGAIN") == (1, 3)
    assert sp.insert("plan", 0, "top") == 4
    g = sp.grep("plan", "o", context=0)
    assert g.matched == 2 and g.lines[0] == (1, True, "top"), g
    st = sp.stat("plan")
    assert st.kind == "text" and st.lines == 4 and st.version == 4 and len(st.sha256) == 64, st
    assert sp.peek("plan", head=3, tail=0).startswith("top")
    assert sp.write("bin", b"\x00\xff") == 1 and sp.text("bin") == b"\x00\xff"
    assert sp.delete("bin", "nothing") == 1


def test_errors(sp, c, srv):
    """errors are VersionConflict, NotFound, Leased, Fenced (and ScratchpadError for the rest)"""
    e = raises(scratchpad.VersionConflict, sp.write, "plan", "x", ifversion=1)
    assert "at version 4" in str(e)
    raises(scratchpad.NotFound, sp.edit, "nope", "a", "b")
    raises(scratchpad.ScratchpadError, sp.write, "a//b", "x")
    lease = sp.lease("plan", "a", 60000)
    raises(scratchpad.Leased, sp.lease, "plan", "b", 1000)
    raises(scratchpad.Fenced, sp.write, "plan", "x", fence=("plan", lease.token + 1))
    assert sp.release(lease)


def test_leases_and_feed(sp, c, srv):
    """the lease context manager fences writes and releases; the change feed iterates from a number"""
    since = max(ch.seq for ch in sp.changes())
    with sp.leased("plan", "agent-a", 30000) as fence:
        assert sp.write("plan", "mine", fence=fence) == 5
        assert c.execute_command("SP.LEASES", "py-agent")[0][1] == b"agent-a"
    assert c.execute_command("SP.LEASES", "py-agent") == []
    news = list(sp.changes(since))
    assert [(ch.op, ch.name, ch.version) for ch in news] == [("write", "plan", 5)], news


def test_metadata(sp, c, srv):
    """metadata: written with write and offload, set, deleted and cleared, shown by stat and list, filtered by where"""
    assert sp.write("obs/1", "int main() {}", meta={"source": "src/a.c", "tool": "read_file"}) == 1
    assert sp.stat("obs/1").meta == {"source": "src/a.c", "tool": "read_file"}
    assert sp.stat("plan").meta == {}
    assert sp.meta_set("obs/1", {"step": "4", "tool": "grep"}) == 2
    assert sp.meta_del("obs/1", "step", "nope") == (1, 3)
    off = sp.offload("y" * 100, threshold=10, prefix="obs-off", meta={"tool": "grep", "bin": b"\xff"})
    assert off.stored and sp.stat(off.name).meta == {"tool": "grep", "bin": b"\xff"}
    page = sp.list(where={"tool": "grep"})
    assert [e.name for e in page.entries] == [off.name, "obs/1"], page
    assert page.entries[1].meta == {"source": "src/a.c", "tool": "grep"}
    assert [e.name for e in sp.entries(where={"tool": "grep", "source": "src/a.c"})] == ["obs/1"]
    assert sp.meta_clear("obs/1") == (2, 4) and sp.stat("obs/1").meta == {}
    e = raises(scratchpad.ScratchpadError, sp.meta_set, "obs/1", {"bad field": "x"})
    assert "invalid metadata field name" in str(e)
    raises(scratchpad.NotFound, sp.meta_clear, "nope")
    assert sp.write("plan", sp.text("plan"), meta={"kept": "yes"}) == 6 and sp.append("plan", "") >= 0
    assert sp.stat("plan").meta == {"kept": "yes"}  # an append keeps the metadata


def test_snapshots_and_history(sp, c, srv):
    """an agent's cycle: snapshot, work, diff (entries and one entry's lines), history, an old version read and reverted, restore, fork, drop"""
    sp.write("cycle/plan", "1. read\n2. code\n3. test\n")
    sp.write("cycle/notes", "a\nb\n")
    assert sp.snapshot("before") == len(list(sp.entries()))
    assert [s.label for s in sp.snapshots()] == ["before"] and sp.snapshots()[0].entries > 0
    assert sp.edit("cycle/plan", "2. code", "2. fix") == (1, 2)
    sp.delete("cycle/notes")
    sp.write("cycle/result", "42")
    d = {x.name: x for x in sp.diff("before") if x.name.startswith("cycle/")}
    assert d["cycle/notes"] == scratchpad.DiffItem("removed", "cycle/notes", 1, None, 4, None), d
    assert d["cycle/plan"] == scratchpad.DiffItem("changed", "cycle/plan", 1, 2, 24, 23), d
    assert d["cycle/result"] == scratchpad.DiffItem("added", "cycle/result", None, 1, None, 2), d
    assert sp.diff_entry("cycle/plan", "before") == ("--- cycle/plan@before\n+++ cycle/plan@NOW\n@@ -1,3 +1,3 @@\n"
                                                     " 1. read\n-2. code\n+2. fix\n 3. test\n")
    assert sp.diff_entry("cycle/result", "before", "before") is None
    assert sp.diff("before", "before") == []
    h = sp.history("cycle/plan")
    assert [(x.version, x.op, x.size) for x in h] == [(1, "write", 24), (2, "edit", 23)], h
    assert sp.history("nope") is None
    old = sp.read("cycle/plan", version=1, lines=(2, 2))
    assert (old.content, old.version) == ("2. code\n", 1), old
    e = raises(scratchpad.ScratchpadError, sp.read, "cycle/plan", version=9)
    assert "no version 9" in str(e)
    assert sp.revert("cycle/plan", 1) == 3 and sp.text("cycle/plan") == "1. read\n2. code\n3. test\n"
    assert sp.fork("py-agent-fork", from_label="before") > 0
    fork = scratchpad.Scratchpad(c, "py-agent-fork")
    assert fork.text("cycle/notes") == "a\nb\n" and fork.text("cycle/result") is None
    raises(scratchpad.ScratchpadError, sp.fork, "py-agent-fork")  # the target exists
    assert sp.restore("before") >= 3
    assert sp.text("cycle/notes") == "a\nb\n" and sp.text("cycle/result") is None
    assert sp.stat("cycle/plan").version > 3  # versions keep growing after a restore
    raises(scratchpad.ScratchpadError, sp.snapshot, "NOW")
    assert sp.drop_snapshot("before") and not sp.drop_snapshot("before") and sp.snapshots() == []
    lease = sp.lease("cycle/plan", "a", 60000)
    held = sp.leases()  # read once: a second read may be a millisecond later
    assert held == [scratchpad.HeldLease("cycle/plan", "a", lease.token, held[0].ms_left)], held
    assert 0 < held[0].ms_left <= 60000, held
    raises(scratchpad.Fenced, sp.revert, "cycle/plan", 3, fence=("cycle/plan", lease.token + 1))
    assert sp.release(lease) and sp.leases() == []
    g = sp.grep_entries("^[ab]$", "cycle/*")
    assert (g.lines, g.matched, g.entries) == (["cycle/notes:1:a", "cycle/notes:2:b"], 2, 2), g


def test_pages(sp, c, srv):
    """list pages and the iterator over all of them"""
    for i in range(25):
        sp.write("many/%02d" % i, "x")
    page = sp.list(match="many/*", count=10)
    assert len(page.entries) == 10 and page.cursor != "0"
    names = [e.name for e in sp.entries(match="many/*", count=10)]
    assert names == ["many/%02d" % i for i in range(25)]


def test_tools_and_offload(sp, c, srv):
    """as_tools in both forms and a part of the table (only=), call() and its ToolError, offload_result stores a large output as <tool>_<n> (threshold in characters, or bytes) with the tool and the harness's fields as metadata and gives back a head+tail preview; a binary one, however small, is stored and described, never shown with replacement characters"""
    assert [t["name"] for t in scratchpad.as_tools("anthropic")] == \
        [t["function"]["name"] for t in sp.as_tools("openai")]
    part = sp.as_tools("openai", only=["grep", "scratchpad_read", "write"])
    assert [t["function"]["name"] for t in part] == ["scratchpad_write", "scratchpad_read", "scratchpad_grep"]
    assert part == [t for t in sp.as_tools("openai") if t["function"]["name"] in
                    ("scratchpad_write", "scratchpad_read", "scratchpad_grep")]
    with pytest.raises(ValueError, match="no tool named 'nosuch'"):
        scratchpad.as_tools("anthropic", only=["read", "nosuch"])
    assert {"scratchpad_snapshot", "scratchpad_diff", "scratchpad_history", "scratchpad_revert",
            "scratchpad_metadata"} <= {t["name"] for t in scratchpad.as_tools("anthropic")}
    assert sp.call("scratchpad_metadata", {"name": "plan", "set": {"by": "tool"}}).startswith("OK: set 1 metadata")
    assert sp.call("scratchpad_read", {"name": "plan"}) == "mine"
    e = raises(scratchpad.ToolError, sp.call, "scratchpad_read", {"name": "nope"})
    assert str(e) == "no entry 'nope' in the scratchpad"
    assert sp.offload_result("search", "short") == "short"
    big = "line\n" * 10000
    note = sp.offload_result("search", big, threshold_chars=30000)
    assert note.startswith("[search's output (50000 characters) was stored in the scratchpad as "
                           "'search_1'. Preview, head and tail:]\n" + "line\n" * 100), note[:200]
    assert "\n[... 49000 characters omitted ...]\n" in note and note.count("line") == 200, note
    assert sp.text("search_1") == big and sp.stat("search_1").meta == {"tool": "search"}
    accents = "é" * 20000  # 20,000 characters, 40,000 bytes
    assert sp.offload_result("search", accents) == accents
    note = sp.offload_result("search", accents, threshold_bytes=30000)
    assert "'search_2'" in note and "(20000 characters)" in note, note[:200]
    note = sp.offload_result("fetch", b"\x00\xff" * 20000)
    assert "binary data (40000 bytes)" in note and "[BINARY: 40000 bytes, sha256=" in note, note[:300]
    assert "\ufffd" not in note and "'fetch_1'" in note, note
    note = sp.offload_result("fetch", b"ok \xff\xfe")  # small, but not UTF-8: described, not shown
    assert "\ufffd" not in note and "binary data (5 bytes)" in note and "'fetch_2'" in note, note
    assert sp.read("fetch_2").content == b"ok \xff\xfe"
    assert sp.offload_result("fetch", "ok".encode()) == "ok"
    note = sp.offload_result("mcp tool/x", "y" * 40000, meta={"source": "src/x.py", "step": "3"})
    assert "'mcp_tool_x_1'" in note, note[:200]
    assert sp.stat("mcp_tool_x_1").meta == {"source": "src/x.py", "step": "3", "tool": "mcp tool/x"}
    assert [e.name for e in sp.entries(where={"tool": "fetch"})] == ["fetch_1", "fetch_2"]


def test_asyncio_twin(sp, c, srv):
    """scratchpad.asyncio: the same methods, results, errors, lease context and iterators on redis.asyncio"""
    import asyncio
    import redis.asyncio
    import scratchpad.asyncio

    async def run():
        ac = redis.asyncio.Redis(port=srv.port)
        a = scratchpad.asyncio.Scratchpad(ac, "py-async")
        try:
            assert await a.write("plan", "one\ntwo\n") == 1
            assert (await a.read("plan", lines=(2, 2))).content == "two\n"
            assert (await a.grep("plan", "o")).matched == 2
            assert (await a.stat("plan")).lines == 2
            try:
                await a.write("plan", "x", ifversion=7)
                raise AssertionError("no VersionConflict")
            except scratchpad.VersionConflict:
                pass
            async with a.leased("plan", "me", 10000) as fence:
                assert await a.edit("plan", "one", "ONE", fence=fence) == (1, 2)
            assert [e.name async for e in a.entries()] == ["plan"]
            assert [ch.op async for ch in a.changes()] == ["write", "edit"]
            assert await a.call("scratchpad_read", {"name": "plan"}) == "ONE\ntwo\n"
            assert await a.snapshot("s") == 1
            assert await a.write("plan", "three\n", meta={"tool": "t"}) == 3
            assert [x.status for x in await a.diff("s")] == ["changed"]
            assert (await a.diff_entry("plan", "s")).endswith("+three\n")
            assert [x.version for x in await a.history("plan")] == [2, 3]
            assert (await a.read("plan", version=2)).content == "ONE\ntwo\n"
            assert await a.revert("plan", 2) == 4 and (await a.stat("plan")).meta == {}
            assert await a.meta_set("plan", {"k": "v"}) == 5 and await a.meta_del("plan", "k") == (1, 6)
            assert [e.name async for e in a.entries(where={"k": "v"})] == []
            assert [s.label for s in await a.snapshots()] == ["s"] and await a.restore("s") == 1
            assert await a.fork("py-async-fork") == 1 and await a.drop_snapshot("s")
            assert (await a.leases()) == [] and await a.meta_clear("plan") == (0, 7)
            note = await a.offload_result("tool", "y" * 40000)
            assert "stored in the scratchpad as 'tool_1'" in note
        finally:
            await ac.aclose() if hasattr(ac, "aclose") else await ac.close()
    asyncio.run(run())


def test_example(sp, c, srv):
    """the worked example runs its scripted agent session to the end"""
    out = subprocess.run([sys.executable, os.path.join(TOP, "client", "python", "examples", "agent_loop.py"),
                          "--port", str(srv.port)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "plan after the session:" in out.stdout and "[x] read the log" in out.stdout, out.stdout


def test_pip_install():
    """pip install ./client/python works offline and the installed package loads its tool table

    pip install of a copy (the build leaves files where it runs), offline, in a venv that sees
    Debian's redis-py; then imported from there, outside the tree."""
    top = tempfile.mkdtemp(prefix="sp-pip-")
    try:
        src = os.path.join(top, "src")
        shutil.copytree(os.path.join(TOP, "client", "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        venv = os.path.join(top, "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], check=True,
                       capture_output=True, timeout=120)
        py = os.path.join(venv, "bin", "python")
        out = subprocess.run([py, "-m", "pip", "install", "--no-index", "--no-build-isolation", src],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        out = subprocess.run([py, "-c", "import scratchpad; print(scratchpad.__file__, "
                              "len(scratchpad.as_tools('openai')))"], capture_output=True, text=True, cwd=top,
                             timeout=60)
        assert out.returncode == 0 and out.stdout.startswith(venv), out.stdout + out.stderr
    finally:
        shutil.rmtree(top, ignore_errors=True)
