"""test_examples.py -- the worked examples of client/python/examples run as programs against a real server.

Each example is a scripted agent (fixed tool calls, no LLM) that checks what
it reads back and exits 1 when something is not as it says.
"""

import os
import subprocess
import sys

from conftest import TOP

EXAMPLES = os.path.join(TOP, "client", "python", "examples")


def run(srv, name):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--port", str(srv.port)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


def test_cycle_before_after(srv):
    """examples/cycle_before_after.py: an agent cycle's before/after from a snapshot and its diff, from the listing and from the change feed agree (an entry added, two changed, one deleted)"""
    out = run(srv, "cycle_before_after.py")
    assert ("after the cycle: added ['decisions/fix']; changed ['findings/repro v1->v2', 'plan v1->v3']; "
            "deleted ['scratch/tmp']") in out, out
    assert "from the feed: 5 changes;" in out and "the listing, the feed and the snapshot agree: yes" in out, out
    assert "4 entries differ from 'before' to 'NOW':\nadded 'decisions/fix' (version 1, " in out, out


def test_offload_flow(srv):
    """examples/offload_flow.py: tool outputs past the threshold stored as <tool>_<n> with a head+tail note, a small one passed through, a binary one described; read back by head, tail, lines, offset/limit and grep"""
    out = run(srv, "offload_flow.py")
    assert "stored in the scratchpad as 'read_file_1'. Preview, head and tail:]" in out, out
    assert "[... 5380 characters omitted ...]" in out and "binary data (1024 bytes)" in out, out
    assert out.count("check: ") == 10 and ": NO" not in out and \
        "offload flow: all checks passed" in out, out
