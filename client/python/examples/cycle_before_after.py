"""cycle_before_after.py -- an agent cycle with a before/after view of its scratchpad (no LLM).

The flow of seed document 003 as the issue describes it (the seed document
itself is not in the repository): before a cycle the harness takes the
scratchpad's "before": a snapshot (SP.SNAPSHOT), and for comparison every
entry with its version and the change feed's latest sequence number; the
model works through tool calls; after the cycle the harness reports what the
cycle did: the entries added, changed and deleted, from SP.DIFF against the
snapshot (what the model is shown with scratchpad_diff, with the plan's line
diff), from the two listings, and from the change feed (SP.CHANGES since the
"before" number, what scratchpad_changes shows). The three must agree. The
"model" is a fixed list of tool calls, so the example runs anywhere a server
does:

    /usr/bin/python3 client/python/examples/cycle_before_after.py --port 6379

It checks its own report (exit status 1 if the two views disagree).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import redis  # noqa: E402
import scratchpad  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=6379)
ap.add_argument("--namespace", default="example-cycle")
opts = ap.parse_args()

sp = scratchpad.Scratchpad(redis.Redis(port=opts.port), opts.namespace)
sp.r.delete(opts.namespace)  # the example starts from an empty scratchpad


def before_after():
    """The harness's view: {name: version} and the feed's latest sequence number."""
    versions = {e.name: e.version for e in sp.entries()}
    last = max((ch.seq for ch in sp.changes()), default=0)
    return versions, last


# An earlier cycle left a plan, a scratch note and a finding.
sp.call("scratchpad_write", {"name": "plan", "content": "- [ ] reproduce the bug\n- [ ] find the cause\n- [ ] fix\n"})
sp.call("scratchpad_write", {"name": "scratch/tmp", "content": "try the old build\n"})
sp.call("scratchpad_write", {"name": "findings/repro", "content": "fails on empty input\n"})

before, since = before_after()
print("before the cycle:", ", ".join("%s v%d" % kv for kv in sorted(before.items())), "| feed at", since)
print(sp.call("scratchpad_snapshot", {"label": "before"}))

# The cycle: the model's tool calls.
for name, args in [
    ("scratchpad_list", {}),
    ("scratchpad_read", {"name": "plan"}),
    ("scratchpad_edit", {"name": "plan", "old_string": "[ ] reproduce the bug", "new_string": "[x] reproduce the bug"}),
    ("scratchpad_append", {"name": "findings/repro", "content": "the parser reads past the end\n"}),
    ("scratchpad_write", {"name": "decisions/fix", "content": "check the length before reading\n"}),
    ("scratchpad_delete", {"name": "scratch/tmp"}),
    ("scratchpad_edit", {"name": "plan", "old_string": "[ ] find the cause", "new_string": "[x] find the cause"}),
]:
    print("> %s %s\n%s" % (name, args, sp.call(name, args)))

after, _ = before_after()
added = sorted(set(after) - set(before))
deleted = sorted(set(before) - set(after))
changed = sorted(n for n in set(before) & set(after) if before[n] != after[n])
print("after the cycle: added %s; changed %s; deleted %s" % (
    added, ["%s v%d->v%d" % (n, before[n], after[n]) for n in changed], deleted))

# The same from the change feed, as the model reads it.
feed_text = sp.call("scratchpad_changes", {"since": since})
print("what the model is shown (scratchpad_changes since=%d):\n%s" % (since, feed_text))
feed = list(sp.changes(since))
touched = {}
for ch in feed:
    touched.setdefault(ch.name, []).append(ch.op)
feed_added = sorted(n for n, ops in touched.items() if n not in before and n in after)
feed_deleted = sorted(n for n, ops in touched.items() if ops[-1] == "del")
feed_changed = sorted(n for n in touched if n in before and n in after)
print("from the feed: %d changes; added %s; changed %s; deleted %s" % (len(feed), feed_added, feed_changed,
                                                                        feed_deleted))

# The same from the snapshot: what the model is shown with scratchpad_diff, and the typed diff.
print("what the model is shown (scratchpad_diff from=before):\n%s" % sp.call("scratchpad_diff", {"from": "before"}))
print("and for the plan:\n%s" % sp.call("scratchpad_diff", {"from": "before", "name": "plan"}))
diff = sp.diff("before")
snap = tuple(sorted(d.name for d in diff if d.status == status) for status in ("added", "changed", "removed"))
print("from the snapshot: added %s; changed %s; deleted %s" % snap)
ok = (added, changed, deleted) == (feed_added, feed_changed, feed_deleted) == snap == (
    ["decisions/fix"], ["findings/repro", "plan"], ["scratch/tmp"])
ok = ok and "+- [x] find the cause" in sp.diff_entry("plan", "before")
sp.drop_snapshot("before")
print("the listing, the feed and the snapshot agree:", "yes" if ok else "NO")
sys.exit(0 if ok else 1)
