"""sp_agent.py -- the SP.* commands driven from redis-py the way an agent harness drives them.

One server of its own (tests/lib/spserver.py); redis-py (Debian's python3-redis,
4.3.4) through execute_command only, since redis-py knows nothing of SP.*. The
steps follow one working session of an agent: it lists its scratchpad at the
start, writes a plan, offloads large tool outputs and keeps only their previews,
greps them, reads windows around what it found, edits the plan while a second
agent edits it too (IFVERSION optimistic concurrency: the loser gets the VERSION
error, re-reads and retries), keeps short-lived notes with per-entry TTLs; then
a second session, on a fresh connection, finds everything again through SP.LIST.

Each step prints "ok - ..." or "not ok - ..."; later steps use what earlier
ones stored, as a session does, so a failure early may cascade. Every socket
has a timeout, so a hang is a failure, not a stall.
"""

import hashlib
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

import redis  # noqa: E402
from redis.exceptions import ResponseError  # noqa: E402

TIMEOUT = 30  # s, per socket operation
NS = "agent:run-42"
PORT = None
STATE = {}    # what the session remembers between steps: names, versions, texts


def client():
    return redis.Redis(host="127.0.0.1", port=PORT, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)


def eq(got, want, what="value"):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def as_map(flat):
    """A RESP2 map (flat [key, value, ...] list) as a dict with str keys."""
    if not isinstance(flat, list) or len(flat) % 2:
        raise AssertionError("not a flat map: %r" % (flat,))
    return {k.decode(): v for k, v in zip(flat[::2], flat[1::2])}


class Scratchpad:
    """The thin layer an agent harness puts over SP.*: one namespace, bytes in
    and out, maps as dicts."""

    def __init__(self, r, ns):
        self.r = r
        self.ns = ns

    def cmd(self, name, *args):
        return self.r.execute_command(name, self.ns, *args)

    def list_all(self, match=None, count=2, withmeta=False):
        """Every entry, following the cursor page by page (small pages on purpose)."""
        out, cursor, pages = [], "0", 0
        while True:
            args = ["CURSOR", cursor, "COUNT", count]
            if match:
                args += ["MATCH", match]
            if withmeta:
                args.append("WITHMETA")
            cursor, items = self.cmd("SP.LIST", *args)
            cursor = cursor.decode()
            out += [as_map(i) for i in items] if withmeta else [i.decode() for i in items]
            pages += 1
            if cursor == "0" or pages > 1000:
                return out

    def read(self, name, *window):
        return self.cmd("SP.READ", name, *window)

    def read_meta(self, name, *window):
        content, meta = self.cmd("SP.READ", name, *window, "WITHMETA")
        return content, as_map(meta)

    def offload(self, content, *opts):
        return as_map(self.cmd("SP.OFFLOAD", content, *opts))

    def grep(self, name, pattern, *opts):
        lines, meta = self.cmd("SP.GREP", name, pattern, *opts, "WITHMETA")
        return [x.decode() for x in lines], as_map(meta)

    def edit_with_retry(self, name, old, new, attempts=20, on_conflict=None):
        """Read the version, edit IFVERSION it; on a VERSION error re-read and
        retry. Returns (replacements, version, conflicts)."""
        conflicts = 0
        for _ in range(attempts):
            _, meta = self.read_meta(name, "HEAD", 0)
            try:
                count, version = self.cmd("SP.EDIT", name, old, new, "IFVERSION", meta["version"])
                return count, version, conflicts
            except ResponseError as e:
                if not str(e).startswith("VERSION "):
                    raise
                conflicts += 1
                if on_conflict:
                    on_conflict(str(e))
        raise AssertionError("no edit after %d attempts" % attempts)


def make_test_log(lines):
    """A pytest-like log with a few failures, multi-byte characters included."""
    out = []
    for i in range(1, lines + 1):
        if i % 541 == 0:
            out.append("tests/test_upload.py::test_retry[%d] FAILED — AssertionError: expected 200, got 503" % i)
        elif i % 97 == 0:
            out.append("tests/test_upload.py::test_chunk[%d] Warning: slow (%.2fs) ✓" % (i, i / 100))
        else:
            out.append("tests/test_upload.py::test_case[%d] PASSED ✓" % i)
    return ("\n".join(out) + "\n").encode()


PLAN = (
    "# Plan: make the upload tests pass\n"
    "- [ ] run the suite and offload the log\n"
    "- [ ] find the failures\n"
    "- [ ] read the retry loop\n"
    "- [ ] fix and re-run\n"
).encode()


# ---- session 1 ----

def s_list_at_start():
    sp = Scratchpad(client(), NS)
    eq(sp.list_all(), [], "entries of a new session")
    eq(sp.r.execute_command("SP.LIST", NS), [b"0", []], "SP.LIST reply")
    eq(sp.r.exists(NS), 0, "the listing created nothing")


def s_write_plan():
    sp = Scratchpad(client(), NS)
    eq(sp.cmd("SP.WRITE", "plan", PLAN, "NX"), 1, "version of the new plan")
    eq(sp.cmd("SP.WRITE", "plan", b"clobber", "NX"), None, "a second NX write")
    eq(sp.read("plan"), PLAN, "the plan read back")
    eq(sp.r.type(NS), b"scratchpad", "TYPE of the session")


def s_offload_large_output():
    sp = Scratchpad(client(), NS)
    log = make_test_log(5000)
    STATE["log"] = log
    reply = sp.offload(log)
    eq(reply["stored"], 1, "stored")
    eq(reply["name"], b"obs-1", "generated name")
    eq(reply["size"], len(log), "size")
    eq(reply["length"], len(log.decode()), "length in characters")
    eq(reply["kind"], b"text", "kind")
    preview = reply["preview"].decode()
    omitted = len(log.decode()) - 1000
    if "[... %d characters omitted ...]" % omitted not in preview:
        raise AssertionError("the preview lacks the exact omitted count: %r" % preview[480:560])
    if len(preview) > 1100:
        raise AssertionError("a preview of %d characters is not what goes in a context" % len(preview))
    eq(preview, sp.cmd("SP.PEEK", "obs-1").decode(), "the preview is SP.PEEK's")
    STATE["log_name"] = reply["name"].decode()


def s_offload_small_output():
    sp = Scratchpad(client(), NS)
    reply = sp.offload(b"2 files changed, 14 insertions(+)")
    eq(reply, {"stored": 0, "content": b"2 files changed, 14 insertions(+)"}, "small output reply")
    eq(sorted(sp.list_all()), ["obs-1", "plan"], "entries after the small output")


def s_grep_output():
    sp = Scratchpad(client(), NS)
    text = STATE["log"].decode()
    lines = text.split("\n")[:-1]
    want = [i + 1 for i, l in enumerate(lines) if re.search(r"(?i)failed — \w+Error", l)]
    got, meta = sp.grep(STATE["log_name"], r"(?i)failed — \w+Error", "MAX", 3)
    eq(meta, {"matched": len(want), "shown": 3, "truncated": 1}, "grep meta")
    eq([int(x.split(":", 1)[0]) for x in got], want[:3], "line numbers of the first 3 failures")
    eq(got[0], "%d:%s" % (want[0], lines[want[0] - 1]), "first reported line")
    got, meta = sp.grep(STATE["log_name"], r"\[\d+\] Warning", "MAX", 1000)
    eq(meta["matched"], sum(1 for l in lines if re.search(r"\[\d+\] Warning", l)), "warnings counted")
    eq(meta["truncated"], 0, "truncated")
    got, _ = sp.grep(STATE["log_name"], "test_retry[541]", "LITERAL", "CONTEXT", 1)
    eq(got, ["540-" + lines[539], "541:" + lines[540], "542-" + lines[541]], "literal grep with context")
    STATE["failures"] = want


def s_read_around():
    sp = Scratchpad(client(), NS)
    lines = STATE["log"].decode().split("\n")
    n = STATE["failures"][1]
    want = "".join(l + "\n" for l in lines[n - 3:n + 2]).encode()
    eq(sp.read(STATE["log_name"], "LINES", n - 2, n + 2), want, "LINES around a failure")
    text = STATE["log"].decode()
    eq(sp.cmd("SP.RANGE", STATE["log_name"], 4000, 6000).decode(), text[4000:6000], "characters 4000 to 6000")
    eq(sp.read(STATE["log_name"], "TAIL", 300).decode(), text[-300:], "the tail")
    eq(sp.cmd("SP.RANGE", STATE["log_name"], -2000).decode(), text[-2000:], "the last 2000 characters")


def s_page_by_next_offset():
    sp = Scratchpad(client(), NS)
    text = STATE["log"].decode()
    parts, offset, pages = [], 0, 0
    while offset is not None:
        content, meta = sp.read_meta(STATE["log_name"], "OFFSET", offset, "LIMIT", 16000)
        eq(meta["offset"], offset, "offset of page %d" % pages)
        eq(meta["truncated"], 1 if meta["next_offset"] is not None else 0, "truncated flag")
        parts.append(content.decode())
        offset = meta["next_offset"]
        pages += 1
        if pages > 100:
            raise AssertionError("paging does not end")
    eq("".join(parts), text, "the pages rebuild the log")
    eq(pages, -(-len(text) // 16000), "number of pages")


def s_two_agents_ifversion():
    a = Scratchpad(client(), NS)
    b = Scratchpad(client(), NS)
    _, meta_a = a.read_meta("plan", "HEAD", 0)
    _, meta_b = b.read_meta("plan", "HEAD", 0)
    v = meta_a["version"]
    eq(meta_b["version"], v, "both agents saw the same version")
    eq(a.cmd("SP.EDIT", "plan", "- [ ] run the suite", "- [x] run the suite", "IFVERSION", v), [1, v + 1],
       "agent A's edit")
    try:
        b.cmd("SP.EDIT", "plan", "- [ ] find the failures", "- [x] find the failures", "IFVERSION", v)
        raise AssertionError("agent B's stale edit was accepted")
    except ResponseError as e:
        eq(str(e), "VERSION entry is at version %d, not %d" % (v + 1, v), "agent B's error")
    count, version, conflicts = b.edit_with_retry("plan", "- [ ] find the failures", "- [x] find the failures")
    eq((count, version, conflicts), (1, v + 2, 0), "agent B's retried edit")
    plan = b.read("plan").decode()
    if "- [x] run the suite" not in plan or "- [x] find the failures" not in plan:
        raise AssertionError("an edit was lost: %r" % plan)


def s_many_agents_append_findings():
    """Four agents add findings to one entry with read-modify-write under
    IFVERSION; every finding survives."""
    errors = []
    seed = Scratchpad(client(), NS)
    eq(seed.cmd("SP.WRITE", "findings", b"# Findings\n", "IFVERSION", 0), 1, "findings created")

    def agent(k):
        sp = Scratchpad(client(), NS)
        try:
            for i in range(25):
                while True:
                    content, meta = sp.read_meta("findings")
                    new = content + ("agent %d finding %d\n" % (k, i)).encode()
                    try:
                        sp.cmd("SP.WRITE", "findings", new, "IFVERSION", meta["version"])
                        break
                    except ResponseError as e:
                        if not str(e).startswith("VERSION "):
                            raise
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(repr(e))
        finally:
            sp.r.close()

    threads = [threading.Thread(target=agent, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    eq(errors, [], "agent errors")
    lines = seed.read("findings").decode().split("\n")
    eq(sorted(lines[1:-1]), sorted("agent %d finding %d" % (k, i) for k in range(4) for i in range(25)),
       "every finding")
    _, meta = seed.read_meta("findings", "HEAD", 0)
    eq(meta["version"], 101, "one version per successful write")


def s_scratch_notes_ttl():
    sp = Scratchpad(client(), NS)
    eq(sp.cmd("SP.WRITE", "scratch/hypothesis", b"timeout is 5s, not 30s?", "PX", 300), 1, "note written")
    eq(sp.cmd("SP.APPEND", "scratch/todo", b"check CI env"), 12, "second note")
    eq(sp.cmd("SP.PEXPIRE", "scratch/todo", 300), 1, "second note's TTL")
    ttl = sp.cmd("SP.PTTL", "scratch/hypothesis")
    if not 0 < ttl <= 300:
        raise AssertionError("PTTL %r" % ttl)
    eq(sorted(sp.list_all(match="scratch/*")), ["scratch/hypothesis", "scratch/todo"], "notes listed")
    time.sleep(0.45)
    eq(sp.list_all(match="scratch/*"), [], "notes after their TTL")
    eq(sp.read("scratch/hypothesis"), None, "reading an expired note")
    eq(sp.cmd("SP.TTL", "scratch/todo"), -2, "TTL of an expired note")
    eq(sp.cmd("SP.TTL", "plan"), -1, "the plan has no TTL")


def s_binary_artifact():
    sp = Scratchpad(client(), NS)
    blob = bytes(range(256)) * 40
    eq(sp.cmd("SP.WRITE", "artifacts/core.bin", blob), 1, "artifact written")
    st = as_map(sp.cmd("SP.STAT", "artifacts/core.bin"))
    eq((st["kind"], st["size"], st["length"]), (b"binary", len(blob), len(blob)), "artifact kind and units")
    eq(st["sha256"].decode(), hashlib.sha256(blob).hexdigest(), "artifact sha256")
    eq(sp.cmd("SP.PEEK", "artifacts/core.bin"),
       ("[BINARY: %d bytes, sha256=%s]" % (len(blob), hashlib.sha256(blob).hexdigest())).encode(), "peek")


def s_stat_and_info():
    sp = Scratchpad(client(), NS)
    st = as_map(sp.cmd("SP.STAT", STATE["log_name"]))
    eq(st["encoding"], b"lz4", "the log is stored compressed")
    eq(st["sha256"].decode(), hashlib.sha256(STATE["log"]).hexdigest(), "sha256 of the log")
    if not 0 < st["stored"] < st["size"] // 2:
        raise AssertionError("stored %r for size %r" % (st["stored"], st["size"]))
    info = as_map(sp.cmd("SP.INFO"))
    eq(info["entries"], 4, "entries (plan, obs-1, findings, artifact)")
    if float(info["compression_ratio"]) <= 1.0:
        raise AssertionError("compression ratio %r" % info["compression_ratio"])


def s_catastrophic_pattern_raises():
    """A harness must see a runaway pattern as an exception, not as a list with
    an error object inside."""
    sp = Scratchpad(client(), NS)
    sp.cmd("SP.WRITE", "scratch/aaa", b"a" * 5000 + b"!\n")
    t0 = time.monotonic()
    try:
        reply = sp.cmd("SP.GREP", "scratch/aaa", "(a+)+$")
        raise AssertionError("no exception; the reply was %r" % (reply,))
    except ResponseError as e:
        if "match limit" not in str(e):
            raise
    finally:
        sp.cmd("SP.DEL", "scratch/aaa")
    if time.monotonic() - t0 > 2:
        raise AssertionError("the grep took %.1f s" % (time.monotonic() - t0))


# ---- session 2 ----

def s2_resume():
    sp = Scratchpad(client(), NS)
    names = sp.list_all()
    eq(names, ["artifacts/core.bin", "findings", "obs-1", "plan"], "entries found by the next session")
    metas = {m["name"].decode(): m for m in sp.list_all(withmeta=True)}
    eq(set(metas["plan"]) >= {"name", "size", "length", "kind", "created", "updated", "ttl", "version"}, True,
       "WITHMETA fields")
    eq(metas["obs-1"]["size"], len(STATE["log"]), "size of the offloaded log")
    eq(metas["artifacts/core.bin"]["kind"], b"binary", "kind of the artifact")
    eq(metas["plan"]["version"], 3, "the plan's version after two edits")
    eq(sp.list_all(match="obs-*"), ["obs-1"], "MATCH obs-*")


def s2_work_on():
    sp = Scratchpad(client(), NS)
    plan = sp.read("plan").decode()
    if "- [x] find the failures" not in plan:
        raise AssertionError("the plan lost session 1's edits")
    got, meta = sp.grep("obs-1", "FAILED")
    eq(meta["matched"], len(STATE["failures"]), "failures found again")
    eq(sp.cmd("SP.INSERT", "plan", -1, b"- [ ] session 2: write the fix"), 4, "version after INSERT")
    eq(sp.read("plan", "LINES", -1, -1), b"- [ ] session 2: write the fix", "last line")
    reply = sp.offload(make_test_log(200), "PREFIX", "rerun", "EX", 3600)
    eq(reply["name"], b"rerun-1", "the prefix's own counter starts at 1")
    ttl = sp.cmd("SP.TTL", "rerun-1")
    if not 3590 <= ttl <= 3600:
        raise AssertionError("TTL %r" % ttl)


def s2_end_session():
    sp = Scratchpad(client(), NS)
    eq(sp.r.delete(NS), 1, "DEL of the session")
    eq(sp.list_all(), [], "entries after the end")
    eq(sp.read("plan"), None, "the plan after the end")


def main():
    global PORT
    rep = spserver.Reporter()
    try:
        srv = spserver.Server().start()
    except Exception as e:  # noqa: BLE001
        rep.fail("the server starts and answers PING", e)
        rep.finish()
    try:
        PORT = srv.port
        rep.case("session start: SP.LIST of a new scratchpad finds nothing and creates nothing", s_list_at_start)
        rep.case("the agent writes its plan with NX and reads it back", s_write_plan)
        rep.case("a 200 KB test log is offloaded: only a preview with the exact omitted count comes back",
                 s_offload_large_output)
        rep.case("a small tool output is returned as is and not stored", s_offload_small_output)
        rep.case("the agent greps the log (\\w, \\d, (?i), LITERAL, CONTEXT, MAX) and WITHMETA counts all matches",
                 s_grep_output)
        rep.case("the agent reads the lines around a failure, characters 4000 to 6000 and the tail",
                 s_read_around)
        rep.case("the agent pages through the log by next_offset until it is nil", s_page_by_next_offset)
        rep.case("two agents edit the plan with IFVERSION: the loser gets the VERSION error, re-reads and retries",
                 s_two_agents_ifversion)
        rep.case("four agents append findings by read-modify-write with IFVERSION and none is lost",
                 s_many_agents_append_findings)
        rep.case("scratch notes with a per-entry TTL vanish from SP.LIST and SP.READ on their own",
                 s_scratch_notes_ttl)
        rep.case("a binary artifact is stored as binary, counted in bytes, peeked as a summary with its sha256",
                 s_binary_artifact)
        rep.case("SP.STAT shows the log compressed with the right sha256; SP.INFO sums up the session",
                 s_stat_and_info)
        rep.case("a catastrophic pattern raises ResponseError at once instead of hiding in a list",
                 s_catastrophic_pattern_raises)
        rep.case("a second session lists everything (paged, WITHMETA) on a fresh connection", s2_resume)
        rep.case("the second session reads, greps, inserts into the plan and offloads with PREFIX and EX",
                 s2_work_on)
        rep.case("DEL of the scratchpad ends the session with everything in it", s2_end_session)
        if not srv.alive():
            rep.fail("the server is still running at the end", srv.log_tail())
    finally:
        status = srv.stop()
    if status != 0:
        rep.fail("the server exits with status 0 on SIGTERM", "status %r" % (status,))
    else:
        print("ok - the server exits with status 0 on SIGTERM")
    rep.finish()


if __name__ == "__main__":
    main()
