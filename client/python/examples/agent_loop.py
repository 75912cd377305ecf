"""agent_loop.py -- a scripted agent session through the scratchpad tools (no LLM).

What a harness does on each turn: show the model the tools (as_tools), run the
tool calls it makes (call), and pass every other tool's output through the
offload rule (offload_result) before it enters the context. The "model" here
is a fixed list of tool calls, so the example runs anywhere a server does:

    /usr/bin/python3 client/python/examples/agent_loop.py --port 6379
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import redis  # noqa: E402
import scratchpad  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=6379)
ap.add_argument("--namespace", default="example-agent")
opts = ap.parse_args()

sp = scratchpad.Scratchpad(redis.Redis(port=opts.port), opts.namespace)
tools = sp.as_tools("anthropic")  # what the model is shown
print("tools shown to the model:", ", ".join(t["name"] for t in tools))

# Turn 1: the model saves its plan.
print(sp.call("scratchpad_write", {"name": "plan", "content": "- [ ] read the log\n- [ ] fix the bug\n"}))
# A tool of the harness returns a large output: it is offloaded, the model sees a note.
log = "".join("12:00:%02d request ok\n" % (i % 60) for i in range(5000)) + "12:01:00 ERROR disk full\n"
print(sp.offload_result("read_log", log)[:300])
# Turn 2: the model searches the stored output instead of reading it all.
print(sp.call("scratchpad_grep", {"name": "read_log_1", "pattern": "ERROR"}))
# Turn 3: it ticks its plan and records the finding.
print(sp.call("scratchpad_edit", {"name": "plan", "old_string": "[ ] read the log", "new_string": "[x] read the log"}))
print(sp.call("scratchpad_write", {"name": "findings/log", "content": "disk full at 12:01:00\n"}))
# A new session (the context is gone): the model lists and reads back.
print(sp.call("scratchpad_list", {}))
print("plan after the session:\n" + sp.call("scratchpad_read", {"name": "plan"}))
