"""persist_rewrite.py -- what a log rewrite leaves behind, and where its child runs.

A rewrite's child writes the new base, renames it, fsyncs the directory and
prepares the new manifest; the server switches to it with a rename and fsyncs
the directory and removes the old files off its loop. These cases check the
outcome through the server: the files on disk afterwards are exactly the ones
the manifest names, a restart holds the same data, INFO reports the child's
copy-on-write (which the child now measures itself and sends over a pipe), and
aof-rewrite-cpulist moves the child to the CPUs it names.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import Server, Reporter  # noqa: E402

import redis  # noqa: E402

KEYS = 20000
VALUE = b"x" * 1000


def wait_rewrite(r, timeout=30):
    deadline = time.monotonic() + timeout
    while r.info("persistence")["aof_rewrite_in_progress"]:
        if time.monotonic() > deadline:
            raise AssertionError("the rewrite did not finish within %d s" % timeout)
        time.sleep(0.01)


def fill(r):
    p = r.pipeline(transaction=False)
    for i in range(KEYS):
        p.set("k:%d" % i, VALUE + b"%d" % i)
        if i % 1000 == 999:
            p.execute()
    p.execute()


def manifest_names(datadir):
    names = []
    with open(os.path.join(datadir, "scratchpad.manifest")) as f:
        for line in f:
            for word in line.split():
                if word.startswith("scratchpad.aof."):
                    names.append(word)
    return names


def t_files_after_rewrite(srv, r, mode):
    fill(r)
    stop = threading.Event()

    def writer():
        w = redis.Redis(port=srv.port)
        i = 0
        while not stop.is_set():
            w.set("k:%d" % (i % KEYS), b"y" * 900)
            i += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        r.bgrewriteaof()
        wait_rewrite(r)
    finally:
        stop.set()
        t.join()
    info = r.info("persistence")
    if info["aof_last_bgrewrite_status"] != "ok":
        raise AssertionError("rewrite status %r" % info["aof_last_bgrewrite_status"])
    if info["aof_rewrite_mode"] != mode:
        raise AssertionError("aof_rewrite_mode %r, started with %r" % (info["aof_rewrite_mode"], mode))
    if mode == "fork" and info["aof_last_cow_size"] <= 0:
        raise AssertionError("aof_last_cow_size %r: the child's reports did not arrive" % info["aof_last_cow_size"])
    if mode == "incremental" and info["aof_last_cow_size"] != 0:
        raise AssertionError("aof_last_cow_size %r without a child" % info["aof_last_cow_size"])
    datadir = os.path.join(srv.dir, "data")
    want = set(manifest_names(datadir)) | {"scratchpad.manifest", "scratchpad.lock"}
    deadline = time.monotonic() + 10
    while True:
        have = set(os.listdir(datadir))
        if have == want:
            break
        if time.monotonic() > deadline:
            raise AssertionError("files %s, the manifest names %s" % (sorted(have), sorted(want)))
        time.sleep(0.02)


def t_restart_after_rewrite(srv, r):
    before = {k: r.get(k) for k in r.scan_iter(count=1000)}
    srv.restart()
    r2 = redis.Redis(port=srv.port)
    after = {k: r2.get(k) for k in r2.scan_iter(count=1000)}
    if before != after:
        missing = set(before) - set(after)
        raise AssertionError("%d keys before, %d after, %d missing" % (len(before), len(after), len(missing)))


def child_pids(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def cpus_allowed(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("Cpus_allowed_list:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def t_child_cpulist(cpu):
    with Server("--appendonly", "yes", "--aof-rewrite-mode", "fork", "--aof-rewrite-cpulist", str(cpu)) as srv:
        r = redis.Redis(port=srv.port)
        fill(r)
        seen = []
        for _ in range(10):
            r.bgrewriteaof()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                kids = child_pids(srv.proc.pid)
                for k in kids:
                    c = cpus_allowed(k)
                    if c is not None:
                        seen.append(c)
                if str(cpu) in seen or (not kids and not r.info("persistence")["aof_rewrite_in_progress"]):
                    break
                time.sleep(0.0005)
            wait_rewrite(r)
            if str(cpu) in seen:
                return
        raise AssertionError("the child's Cpus_allowed_list never became %d (seen: %s)" % (cpu, sorted(set(seen))))


def main():
    rep = Reporter()
    for mode in ("incremental", "fork"):
        with Server("--appendonly", "yes", "--aof-rewrite-mode", mode) as srv:
            r = redis.Redis(port=srv.port)
            what = "the child's copy-on-write" if mode == "fork" else "no copy-on-write (no child)"
            rep.case("%s rewrite: after a rewrite under writes the log directory holds exactly the files the "
                     "manifest names, and INFO has %s" % (mode, what), t_files_after_rewrite, srv, r, mode)
            rep.case("%s rewrite: a restart after the rewrite holds the same keys and values" % mode,
                     t_restart_after_rewrite, srv, r)
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        rep.skip("aof-rewrite-cpulist moves the rewrite child", "one CPU: nothing to move to")
    else:
        rep.case("aof-rewrite-cpulist %d moves the rewrite child to that CPU" % cpus[-1], t_child_cpulist, cpus[-1])
    rep.finish()


if __name__ == "__main__":
    main()
