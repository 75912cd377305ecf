#!/usr/bin/env python3
"""aof_bench.py -- helpers of bench/aof-vs-redis.sh (the persistence benchmark).

Why a helper: the shell script needs a few things neither redis-benchmark nor
redis-cli gives -- deterministic datasets of realistic values that go to both
servers byte for byte, the instant a restarting server first answers PING (not
-LOADING), and a client that PINGs every millisecond during a rewrite while the
server's and the rewrite child's memory is sampled.

Subcommands (all output on standard output; times are seconds):

  gen-sets OUT N KEYSPACE SIZE [--seed S] [--seq]
      A RESP file for `redis-cli --pipe`: N times SET key:%012d <value>, the key
      drawn uniformly from [0, KEYSPACE) (or 0, 1, 2, ... with --seq), the value
      SIZE bytes of log-like text (a slice of bench/gen_logs.py text at a random
      offset: every value differs, and compresses as logs do, about 3:1). The key
      format is redis-benchmark's (-r), so its SETs overwrite these keys.
      Prints the number of commands.
  gen-big OUT COUNT SIZE [--vary F] [--seed S]
      COUNT times SET big:%04d <log text>, of SIZE * (1 +- F) bytes each (tool
      outputs and logs, the large values an agent keeps). Prints the count.
  waitping PORT [--pid PID] [--timeout T]
      Polls 127.0.0.1:PORT every millisecond until PING answers +PONG (a
      connection refused or -LOADING means not yet); prints the wall-clock time
      (time.time()) of that answer. Exit 2 if PID died first, 3 on timeout.
  probe PORT --pid PID [--before B] [--after A] [--timeout T] [--interval I]
                        [--rss-interval R] [--no-rewrite]
      The rewrite probe. Sends PING every I (0.001) seconds on one connection
      and records each round trip; after B seconds it sends BGREWRITEAOF on a
      second connection (its reply time is recorded: the pause of starting the
      rewrite, fork included), then polls INFO persistence on that connection
      every 100 ms until no rewrite is in progress or scheduled, goes on
      pinging A more seconds (the parent's finishing steps: rename, manifest,
      removal of the old files), and stops. Meanwhile a sampler process (the
      `rss` subcommand) records the memory of the server (PID) and of its
      children every R (0.05) seconds. Prints one JSON object (see summarize()).
      --no-rewrite: only the B seconds of pings (the control run).
  rss PID --out FILE [--interval R]
      The sampler: until SIGTERM, one line per sample to FILE:
        t parent_rss_kb child_pid child_private_kb child_rss_kb
      parent_rss from /proc/PID/status VmRSS (a counter: reading it never walks
      the page tables, so it cannot stall the server); for each child (the
      rewrite child) Private_Clean + Private_Dirty from /proc/CHILD/smaps_rollup
      (a walk of the child's page tables only): the pages the child no longer
      shares with the server (copied on write after the fork, or allocated by the
      child). server RSS + child private = the physical memory of the two, each
      shared page counted once. child_pid 0 when there is no child.
  fsync-lat DIR SECONDS
      The disk's state: appends 4 KB and fdatasyncs in a loop for SECONDS in
      DIR; prints "count p50_ms p99_ms max_ms".
  trace-summary FILE [--pid PID]
      A Markdown table of the output of `perf trace --duration N -p PID -o FILE`:
      per thread, call and file, the count, longest and total ms (waits --
      epoll_wait, futex, sleeps -- left out).
"""

import argparse
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_logs  # noqa: E402

mono = time.monotonic


# ---- datasets ----

def text_pool(size, seed):
    return gen_logs.text(size, seed)


def cmd_gen_sets(a):
    rng = random.Random(a.seed)
    pool = text_pool(8 << 20, a.seed + 17)
    span = len(pool) - a.size
    head = b"*3\r\n$3\r\nSET\r\n$16\r\n"
    tail = b"\r\n$%d\r\n" % a.size
    out = []
    n = 0
    with open(a.out, "wb") as f:
        for i in range(a.n):
            k = i if a.seq else rng.randrange(a.keyspace)
            off = rng.randrange(span)
            out.append(b"%skey:%012d%s%s\r\n" % (head, k, tail, pool[off:off + a.size]))
            if len(out) >= 10000:
                f.write(b"".join(out))
                out = []
            n += 1
        f.write(b"".join(out))
    print(n)


def cmd_gen_big(a):
    rng = random.Random(a.seed)
    with open(a.out, "wb") as f:
        for i in range(a.count):
            size = int(a.size * (1 - a.vary + 2 * a.vary * rng.random())) if a.vary else a.size
            v = gen_logs.text(size, gen_logs.entry_seed(a.seed, i))
            k = b"big:%04d" % i
            f.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
    print(a.count)


# ---- waiting for a server ----

def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()[0]
        return st != "Z"
    except OSError:
        return False


def cmd_waitping(a):
    deadline = mono() + a.timeout
    while mono() < deadline:
        if a.pid and not pid_alive(a.pid):
            sys.exit(2)
        s = socket.socket()
        s.settimeout(1.0)
        try:
            s.connect(("127.0.0.1", a.port))
            s.sendall(b"PING\r\n")
            buf = b""
            while not buf.endswith(b"\r\n"):
                d = s.recv(4096)
                if not d:
                    break
                buf += d
            if buf.startswith(b"+PONG"):
                print("%.6f" % time.time())
                return
        except OSError:
            pass
        finally:
            s.close()
        time.sleep(0.001)
    sys.exit(3)


# ---- the rewrite probe ----

def parse_reply(buf):
    """One RESP reply from buf: (value, rest) or None if incomplete."""
    i = buf.find(b"\r\n")
    if i < 0:
        return None
    t, line = buf[:1], buf[1:i]
    if t in (b"+", b"-", b":"):
        return (buf[:i].decode("latin-1"), buf[i + 2:])
    if t == b"$":
        n = int(line)
        if n < 0:
            return (None, buf[i + 2:])
        if len(buf) < i + 2 + n + 2:
            return None
        return (buf[i + 2:i + 2 + n].decode("latin-1"), buf[i + 2 + n + 2:])
    raise ValueError("unexpected reply %r" % buf[:40])


def info_fields(text):
    d = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            d[k] = v.strip()
    return d


def blocking_cmd(s, cmd):
    s.sendall(cmd)
    buf = b""
    while True:
        r = parse_reply(buf)
        if r is not None:
            return r[0]
        d = s.recv(1 << 16)
        if not d:
            raise OSError("connection closed")
        buf += d


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    return sorted_vals[min(len(sorted_vals) - 1, int(p * len(sorted_vals)))]


def cmd_probe(a):
    c1 = socket.create_connection(("127.0.0.1", a.port))
    c2 = socket.create_connection(("127.0.0.1", a.port))
    for c in (c1, c2):
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    info0 = info_fields(blocking_cmd(c2, b"INFO\r\n"))
    tsv = a.rss_out or "/tmp/aof-probe-rss-%d.tsv" % os.getpid()
    sampler = subprocess.Popen([sys.executable, os.path.abspath(__file__), "rss", str(a.pid), "--out", tsv,
                                "--interval", str(a.rss_interval)])
    c2.setblocking(False)
    c1.setblocking(False)

    pings = []          # (start, latency)
    cmds_bg = cmds_done = held_done = None
    t_cmds_bg = None
    t0 = mono()
    t_bg_send = t_bg_reply = t_done = None
    bg_reply = None
    phase = "before"
    ping_out = None
    next_ping = t0
    buf1 = b""
    buf2 = b""
    pending2 = None     # "bg" | "info"
    next_info = 0.0
    infos = 0
    error = None
    while True:
        now = mono()
        if now - t0 > a.timeout:
            error = "timeout: the rewrite did not finish within %g s" % a.timeout
            break
        if phase == "before" and now - t0 >= a.before and a.no_rewrite:
            break
        if phase == "before" and now - t0 >= a.before and pending2 is None:
            # The write rate of the control: commands processed so far.
            c2.setblocking(True)
            cmds_bg = info_fields(blocking_cmd(c2, b"INFO stats\r\n")).get("total_commands_processed")
            t_cmds_bg = mono()
            c2.setblocking(False)
            c2.sendall(b"BGREWRITEAOF\r\n")
            t_bg_send = mono()
            pending2 = "bg"
            phase = "rewrite"
        elif phase == "rewrite" and pending2 is None and now >= next_info:
            c2.sendall(b"INFO\r\n")
            pending2 = "info"
            next_info = now + 0.1
        elif phase == "after" and now - t_done >= a.after:
            break
        if ping_out is None and now >= next_ping:
            c1.sendall(b"PING\r\n")
            ping_out = mono()
        if ping_out is None:
            tmo = max(0.0, next_ping - mono())
        else:
            tmo = 0.05
        if phase == "rewrite" and pending2 is None:
            tmo = min(tmo, max(0.0, next_info - mono()))
        r, _, _ = select.select([c1, c2], [], [], tmo)
        if c1 in r:
            d = c1.recv(4096)
            if not d:
                error = "the server closed the connection"
                break
            buf1 += d
            if buf1.endswith(b"\r\n"):
                t = mono()
                if not buf1.startswith(b"+PONG"):
                    error = "PING answered %r" % buf1[:60]
                    break
                pings.append((ping_out, t - ping_out))
                next_ping = max(ping_out + a.interval, t)
                ping_out = None
                buf1 = b""
        if c2 in r:
            d = c2.recv(1 << 16)
            if not d:
                error = "the server closed the connection"
                break
            buf2 += d
            rep = parse_reply(buf2)
            if rep is not None:
                val, buf2 = rep
                if pending2 == "bg":
                    t_bg_reply = mono()
                    bg_reply = val
                    if val is None or val.startswith("-"):
                        error = "BGREWRITEAOF answered %r" % val
                        break
                elif pending2 == "info":
                    infos += 1
                    f = info_fields(val)
                    if f.get("aof_rewrite_in_progress") == "0" and f.get("aof_rewrite_scheduled", "0") == "0":
                        t_done = mono()
                        cmds_done = f.get("total_commands_processed")
                        held_done = f.get("aof_held_clients")
                        phase = "after"
                pending2 = None
    c1.setblocking(True)
    c2.setblocking(True)
    # Drain what is in flight, then read the final figures.
    try:
        if pending2 is not None:
            while parse_reply(buf2) is None:
                buf2 += c2.recv(1 << 16)
            buf2 = b""
        info1 = info_fields(blocking_cmd(c2, b"INFO\r\n"))
    except OSError as e:
        info1 = {}
        error = error or "final INFO: %s" % e
    t_end = mono()
    sampler.send_signal(signal.SIGTERM)
    try:
        sampler.wait(timeout=10)
    except subprocess.TimeoutExpired:
        sampler.kill()
        sampler.wait()
    rss = []
    try:
        with open(tsv) as f:
            for line in f:
                p = line.split()
                if len(p) == 5:
                    rss.append((float(p[0]), int(p[1]), int(p[2]), int(p[3]), int(p[4])))
        if not a.rss_out:
            os.unlink(tsv)
    except OSError:
        pass
    res = summarize(a, pings, rss, info0, info1, t0, t_bg_send, t_bg_reply, t_done, t_end, bg_reply, infos, error)
    # Commands per second (the background load, plus the probe's own) in the
    # control and while the child ran: a drop means writers were stalled.
    try:
        res["cmds_per_sec_control"] = round((int(cmds_bg) - int(info0["total_commands_processed"])) /
                                            (t_cmds_bg - t0))
        res["cmds_per_sec_rewrite"] = round((int(cmds_done) - int(cmds_bg)) / (t_done - t_cmds_bg))
    except (TypeError, KeyError, ValueError, ZeroDivisionError):
        pass
    res["held_clients_at_end_of_rewrite"] = held_done
    print(json.dumps(res, sort_keys=True))


def summarize(a, pings, rss, info0, info1, t0, t_bg_send, t_bg_reply, t_done, t_end, bg_reply, infos, error):
    ms = 1000.0
    res = {"error": error, "bgrewriteaof_reply": bg_reply, "pings": len(pings), "info_polls": infos}
    lats = sorted(l for _, l in pings)
    res["ping_p50_ms"] = round(pct(lats, 0.50) * ms, 3) if lats else None
    res["ping_p99_ms"] = round(pct(lats, 0.99) * ms, 3) if lats else None
    res["ping_p999_ms"] = round(pct(lats, 0.999) * ms, 3) if lats else None
    res["ping_max_ms"] = round(lats[-1] * ms, 3) if lats else None
    # The control: pings answered before BGREWRITEAOF was sent.
    base = [l for s, l in pings if t_bg_send is None or s + l < t_bg_send]
    res["baseline_ping_max_ms"] = round(max(base) * ms, 3) if base else None
    res["baseline_ping_p99_ms"] = round(pct(sorted(base), 0.99) * ms, 3) if base else None
    res["baseline_over_10ms"] = sum(1 for l in base if l > 0.010)
    res["baseline_seconds"] = round(a.before, 3)
    if t_bg_send is not None and t_bg_reply is not None:
        res["bgrewriteaof_latency_ms"] = round((t_bg_reply - t_bg_send) * ms, 3)
        # The fork window: pings in flight while BGREWRITEAOF ran (the start of
        # the rewrite, fork included).
        in_fork = lambda s, l: s < t_bg_reply and s + l > t_bg_send
        fork_p = [l for s, l in pings if in_fork(s, l)]
        # Besides the fork: every other ping from BGREWRITEAOF to the end.
        other = [(s, l) for s, l in pings if s + l >= t_bg_send and not in_fork(s, l)]
        res["fork_window_ping_max_ms"] = round(max(fork_p) * ms, 3) if fork_p else None
        res["other_ping_max_ms"] = round(max(l for _, l in other) * ms, 3) if other else None
        over = sorted(((l, s) for s, l in other if l > 0.010), reverse=True)
        res["other_pauses_over_10ms"] = len(over)
        # [seconds after BGREWRITEAOF was sent, ms]
        res["other_pauses_top"] = [[round((s - t_bg_send), 3), round(l * ms, 2)] for l, s in over[:10]]
        top = sorted(((l, s) for s, l in pings), reverse=True)[:10]
        res["top_pauses"] = [[round((s - t_bg_send), 3), round(l * ms, 2)] for l, s in top]
    if t_bg_send is not None and t_done is not None:
        res["rewrite_seconds"] = round(t_done - t_bg_send, 3)
        # The parent's finishing steps (after the child exited).
        fin = [l for s, l in pings if s + l >= t_done - 0.1]
        res["after_child_ping_max_ms"] = round(max(fin) * ms, 3) if fin else None
    # Writes per second during the probe (the background load).
    try:
        cmds = int(info1["total_commands_processed"]) - int(info0["total_commands_processed"])
        res["server_cmds_per_sec"] = round(cmds / (t_end - t0))
    except (KeyError, ValueError):
        pass
    # Memory.
    if rss:
        steady = sorted(p for t, p, c, cp, cr in rss if t_bg_send is None or t < t_bg_send)
        res["rss_samples"] = len(rss)
        res["steady_rss_kb"] = steady[len(steady) // 2] if steady else None
        best = max(rss, key=lambda x: x[1] + x[3])
        res["peak_total_kb"] = best[1] + best[3]
        res["peak_at_s"] = round(best[0] - t_bg_send, 3) if t_bg_send else None
        res["peak_parent_rss_kb"] = max(x[1] for x in rss)
        res["peak_child_private_kb"] = max(x[3] for x in rss)
        res["peak_child_rss_kb"] = max(x[4] for x in rss)
        res["child_seen"] = any(x[2] for x in rss)
        if res["steady_rss_kb"]:
            res["peak_ratio"] = round(res["peak_total_kb"] / res["steady_rss_kb"], 3)
    keep = ("used_memory", "used_memory_rss", "aof_last_fork_usec", "latest_fork_usec", "aof_last_cow_size",
            "aof_last_rewrite_time_sec", "aof_base_size", "aof_current_size", "aof_last_bgrewrite_status",
            "aof_rewrites", "aof_delayed_fsync", "aof_held_clients", "connected_clients", "mem_fragmentation_ratio",
            "db0")
    res["info_before"] = {k: info0[k] for k in keep if k in info0}
    res["info_after"] = {k: info1[k] for k in keep if k in info1}
    fu = info1.get("aof_last_fork_usec") or info1.get("latest_fork_usec")
    res["fork_usec"] = int(fu) if fu and fu.lstrip("-").isdigit() else None
    return res


# ---- the memory sampler ----

def status_kb(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    kids = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    kids += [int(x) for x in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return kids


def private_kb(pid):
    tot = 0
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Private_Clean:") or line.startswith("Private_Dirty:"):
                    tot += int(line.split()[1])
    except OSError:
        return 0
    return tot


def cmd_rss(a):
    # The probe may run under a real-time policy (chrt, so that its own
    # wake-ups are never late); the sampler must not.
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except (AttributeError, OSError):
        pass
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(a.out, "w") as f:
        while not stop:
            t = mono()
            prss = status_kb(a.pid, "VmRSS")
            kids = children(a.pid)
            if kids:
                for c in kids:
                    f.write("%.4f %d %d %d %d\n" % (t, prss, c, private_kb(c), status_kb(c, "VmRSS")))
            else:
                f.write("%.4f %d 0 0 0\n" % (t, prss))
            if not prss:
                break
            time.sleep(max(0.0, a.interval - (mono() - t)))


def cmd_trace_summary(a):
    """Summarize `perf trace --duration N -p PID` output: per thread and call,
    count, max and total ms of the calls (epoll_wait left out), with the file
    the longest one worked on."""
    import re
    pat = re.compile(r"^\s*([0-9.]+) \(\s*([0-9.]+) ms\): (\S+)/(\d+) (\w+)\((.*)")
    agg = {}
    for line in open(a.file, errors="replace"):
        m = pat.match(line)
        if not m:
            continue
        t, dur, comm, tid, call, rest = m.groups()
        if call in ("epoll_wait", "epoll_pwait", "futex", "nanosleep", "clock_nanosleep", "select", "poll"):
            continue
        dur = float(dur)
        fm = re.search(r"fd: \d+<([^>]*)>", rest)
        what = fm.group(1) if fm else ""
        what = re.sub(r"/proc/\d+/", "/proc/<child>/", what)
        what = re.sub(r"\.\d+\.(base|incr)", r".<n>.\1", what)
        what = re.sub(r"^.*/", "", what) if not what.startswith("/proc") else what
        key = (tid, call, what)
        c = agg.setdefault(key, [0, 0.0, 0.0])
        c[0] += 1
        c[1] = max(c[1], dur)
        c[2] += dur
    if not agg:
        print("(no system call of the server lasted that long)")
        return
    print("| thread | call | on | count | max ms | total ms |")
    print("|---|---|---|---:|---:|---:|")
    for (tid, call, what), (n, mx, tot) in sorted(agg.items(), key=lambda kv: -kv[1][1]):
        who = tid
        if a.pid:
            who = "main (%s)" % tid if int(tid) == a.pid else "other thread (%s)" % tid
        print("| %s | %s | %s | %d | %.1f | %.1f |" % (who, call, what or "-", n, mx, tot))


def cmd_fsync_lat(a):
    """fdatasync latency of this filesystem now: append 4 KB, fdatasync, for
    SECONDS; prints 'n p50 p99 max' (ms)."""
    path = os.path.join(a.dir, "fsync-lat.%d" % os.getpid())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    lat = []
    buf = b"x" * 4096
    try:
        end = mono() + a.seconds
        while mono() < end:
            os.write(fd, buf)
            t = mono()
            os.fdatasync(fd)
            lat.append(mono() - t)
    finally:
        os.close(fd)
        os.unlink(path)
    lat.sort()
    print("%d %.3f %.3f %.3f" % (len(lat), pct(lat, 0.5) * 1e3, pct(lat, 0.99) * 1e3, lat[-1] * 1e3))


def main():
    ap = argparse.ArgumentParser(description="helpers of bench/aof-vs-redis.sh")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("gen-sets")
    p.add_argument("out")
    p.add_argument("n", type=int)
    p.add_argument("keyspace", type=int)
    p.add_argument("size", type=int)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seq", action="store_true")
    p = sub.add_parser("gen-big")
    p.add_argument("out")
    p.add_argument("count", type=int)
    p.add_argument("size", type=gen_logs.parse_size)
    p.add_argument("--vary", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=2)
    p = sub.add_parser("waitping")
    p.add_argument("port", type=int)
    p.add_argument("--pid", type=int, default=0)
    p.add_argument("--timeout", type=float, default=120)
    p = sub.add_parser("probe")
    p.add_argument("port", type=int)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--before", type=float, default=2.0)
    p.add_argument("--after", type=float, default=2.0)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--interval", type=float, default=0.001)
    p.add_argument("--rss-interval", type=float, default=0.05)
    p.add_argument("--rss-out", default="")
    p.add_argument("--no-rewrite", action="store_true",
                   help="only ping for --before seconds (the control: pauses without a rewrite)")
    p = sub.add_parser("rss")
    p.add_argument("pid", type=int)
    p.add_argument("--out", required=True)
    p.add_argument("--interval", type=float, default=0.05)
    p = sub.add_parser("fsync-lat")
    p.add_argument("dir")
    p.add_argument("seconds", type=float)
    p = sub.add_parser("trace-summary")
    p.add_argument("file")
    p.add_argument("--pid", type=int, default=0, help="the server's PID (= its main thread)")
    a = ap.parse_args()
    {"gen-sets": cmd_gen_sets, "gen-big": cmd_gen_big, "waitping": cmd_waitping, "probe": cmd_probe,
     "rss": cmd_rss, "trace-summary": cmd_trace_summary, "fsync-lat": cmd_fsync_lat}[a.cmd](a)


if __name__ == "__main__":
    main()
