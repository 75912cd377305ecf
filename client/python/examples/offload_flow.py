"""offload_flow.py -- large tool outputs offloaded past a threshold, read back by windows (no LLM).

The flow of seed document 004 as the issue describes it (the seed document
itself is not in the repository): every tool result of the harness goes
through offload_result before it enters the model's context. A result past
the threshold (here 2,000 characters, to keep the example small; the
default is 30,000) is stored as <tool>_<n> and the model gets a note with a
head+tail preview; a small one comes through as it is; bytes that are not
UTF-8 are stored and described, never shown. The model then reads what it
needs by windows: head, tail, a line range, a read with offset/limit that
says where to continue, and a grep. The "model" is a fixed list of tool
calls, so the example runs anywhere a server does:

    /usr/bin/python3 client/python/examples/offload_flow.py --port 6379

It checks what it reads back against the originals (exit status 1 if not).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import redis  # noqa: E402
import scratchpad  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=6379)
ap.add_argument("--namespace", default="example-offload")
opts = ap.parse_args()

sp = scratchpad.Scratchpad(redis.Redis(port=opts.port), opts.namespace)
sp.r.delete(opts.namespace)  # the example starts from an empty scratchpad
THRESHOLD = 2000
failed = []


def check(what, cond):
    print("check: %s: %s" % (what, "yes" if cond else "NO"))
    if not cond:
        failed.append(what)


# The harness's tools return their outputs; each goes through the offload rule.
source = "".join("def f%d(x):\n    return x + %d\n\n" % (i, i) for i in range(200))
outputs = [
    ("read_file", source),                                          # 5,000+ characters: stored
    ("run_tests", "".join("test_%03d ... ok\n" % i for i in range(150)) + "test_150 ... FAILED: KeyError 'id'\n"),
    ("read_file", "README: three lines\nof text\nonly\n"),           # small: passed through
    ("fetch", bytes(range(256)) * 4),                                # binary: described
]
for tool, out in outputs:
    note = sp.offload_result(tool, out, threshold_chars=THRESHOLD)
    print("--- %s's result as the model sees it (%d characters):\n%s" % (tool, len(note), note))

check("the large outputs are read_file_1 and run_tests_1, the binary one fetch_1",
      [e.name for e in sp.entries()] == ["fetch_1", "read_file_1", "run_tests_1"])
check("the small output came through as it is",
      sp.offload_result("read_file", "short", threshold_chars=THRESHOLD) == "short")

# The model reads the stored outputs back by windows.
head = sp.call("scratchpad_view", {"name": "read_file_1", "mode": "head", "count": 40})
print("--- head:\n" + head)
check("head gives the first characters", head.startswith(source[:40]))
tail = sp.call("scratchpad_view", {"name": "read_file_1", "mode": "tail", "count": 40})
print("--- tail:\n" + tail)
check("tail gives the last characters", source[-40:] in tail)
lines = sp.call("scratchpad_view", {"name": "read_file_1", "mode": "lines", "start": 301, "end": 303})
print("--- lines 301-303:\n" + lines)
check("lines 301 to 303 are f100", "def f100(x):" in lines and "return x + 100" in lines)
page = sp.call("scratchpad_read", {"name": "read_file_1", "offset": 0, "limit": 1000})
print("--- read offset=0 limit=1000 (its end):\n" + page[-200:])
check("a read window says how to continue", "offset=1000" in page and page.startswith(source[:1000]))
page2 = sp.call("scratchpad_read", {"name": "read_file_1", "offset": 1000, "limit": 1000})
check("the next window continues where it said", page2.startswith(source[1000:2000]))
grep = sp.call("scratchpad_grep", {"name": "run_tests_1", "pattern": "FAILED"})
print("--- grep FAILED in run_tests_1:\n" + grep)
check("grep finds the failing test in the stored test run", "test_150 ... FAILED: KeyError 'id'" in grep)
binary = sp.call("scratchpad_view", {"name": "fetch_1", "mode": "head", "count": 16})
print("--- fetch_1 head 16:\n" + binary)
check("a binary window is described, never raw", "\ufffd" not in binary and "\x00" not in binary)
b64 = sp.call("scratchpad_view", {"name": "fetch_1", "mode": "head", "count": 16, "base64": True})
check("base64 on request", "AAECAwQFBgcICQoLDA0ODw==" in b64)

print("offload flow:", "all checks passed" if not failed else "FAILED: %s" % failed)
sys.exit(1 if failed else 0)
