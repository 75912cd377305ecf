"""persist_diskfull.py -- the append-only log when the disk fills up.

For appendfsync always and everysec, the server runs with its log on a small
tmpfs (mounted here, 4 MB, with a 1 MB file `filler` written on it first).

With aof-hold-timeout 0 (hold until written):

1. One client (raw socket, 2 s timeout) SETs distinct 64 KB incompressible
   values until a reply does not come: the flush that hit ENOSPC must hold the
   reply of the write in it. While the disk is full, a second client's write
   gets `-MISCONF Errors writing to the AOF file: No space left on device` and
   is not applied; reads (GET of an acknowledged key, DBSIZE, INFO) are served;
   INFO persistence says aof_last_write_status:err, an aof_last_write_error
   naming "No space left", aof_held_clients:1; the state lasts across cron
   retries.
2. Deleting `filler` frees 1 MB: within a few seconds (the cron retries) the
   held reply arrives on the first client, aof_last_write_status is ok again,
   aof_held_clients 0, new writes are accepted. After a restart (SIGTERM, start
   on the same dir) every acknowledged key is there with its value, the held
   key too, the refused key is not, and DBSIZE is exact.
3. scratchpad-check-aof ($CHECK_AOF) on the manifest exits 0.

With aof-hold-timeout 1000 (the default), the client pipelines `SET k v` and
`GET k` until the SET is answered with an error: it must be
`-IOERR the write was applied in memory ... (No space left on device) ...`,
arrive between 0.9 s and 4 s after the send (the timeout, plus the cron's
period, plus a generous margin), and be followed by the GET's reply, the value
(one reply per command, in order). Then: another client's GET sees the value,
its SET gets -MISCONF, INFO shows aof_unlogged_replies:1 and
aof_held_clients:0; after freeing the filler the log is writable again within a
few seconds and, after a restart, the key answered -IOERR is there with its
value, as are the acknowledged ones.

The server must stay alive throughout and exit 0 on SIGTERM. Needs root (to
mount a tmpfs); otherwise the cases are skipped with the reason. The tmpfs is
unmounted and every directory removed whatever happens.
"""

import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import spserver  # noqa: E402

TOP = os.environ.get("TOP") or spserver.TOP
BUILD = os.environ.get("BUILD") or "build"
CHECK_AOF = os.environ.get("CHECK_AOF") or os.path.join(TOP, BUILD, "scratchpad-check-aof")

VALUE = 64 * 1024
FS_SIZE = "4m"
FILLER = 1024 * 1024
HOLD_TIMEOUT = 2.0      # s without a reply: the write is held
RECOVER_TIMEOUT = 8.0   # s for the server to notice the free space
MAX_FILL = 200          # 12.8 MB of values: far more than the tmpfs holds
MISCONF = b"MISCONF Errors writing to the AOF file: No space left on device"


class Err(Exception):
    """An error reply."""


class Conn:
    """A RESP2 connection on a raw socket: send a command, read one reply."""

    def __init__(self, port, timeout=5.0):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        self.recvd = []

    def close(self):
        self.s.close()

    def send(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, int):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.s.sendall(b"".join(out))

    def _fill(self):
        chunk = self.s.recv(1 << 16)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.recvd.append(chunk)
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self, timeout=None):
        """One reply; an error reply is returned as an Err instance (not raised).
        socket.timeout if it does not come within timeout (the reply, when it
        comes later, is still read whole by the next call: bytes stay in buf)."""
        self.s.settimeout(timeout)
        # On a timeout, put back everything: what was buffered and what came since.
        saved, self.recvd = self.buf, []
        try:
            return self._parse()
        except socket.timeout:
            self.buf = saved + b"".join(self.recvd)
            raise

    def _parse(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest
        if t == b"-":
            return Err(rest)
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._parse() for _ in range(n)]
        raise ValueError("bad reply line %r" % line)

    def cmd(self, *args, timeout=5.0):
        self.send(*args)
        return self.read(timeout)


def ok(reply, what):
    if reply != b"OK":
        raise AssertionError("%s: expected +OK, got %r" % (what, reply))


def info(port):
    """INFO persistence as a dict of str -> str."""
    c = Conn(port)
    try:
        r = c.cmd("INFO", "persistence")
    finally:
        c.close()
    if not isinstance(r, bytes):
        raise AssertionError("INFO persistence: got %r" % (r,))
    out = {}
    for line in r.decode(errors="replace").splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def value_for(policy, i):
    """An incompressible 64 KB value, different for every key (kept to compare)."""
    return os.urandom(VALUE - 16) + (b"%s:%010d" % (policy.encode()[:5], i)).ljust(16, b".")


def run_policy(r, policy):
    tag = "appendfsync %s" % policy
    top, mnt = spserver.tmpfs_mount(FS_SIZE, "sp-diskfull-")
    if top is None:
        why = mnt
        for s in ("filling the disk holds the reply of the write that hit ENOSPC",
                  "freeing space releases the held reply, nothing acknowledged is lost"):
            r.skip("%s: %s" % (tag, s), why)
        return
    srv = None
    conns = []
    try:
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\xa5" * FILLER)
        data = os.path.join(mnt, "data")
        srv = spserver.Server("--dir", data, "--appendonly", "yes", "--appendfsync", policy,
                              "--aof-hold-timeout", "0", workdir=top)
        srv.start()
        st = {"acked": {}, "held": None, "alive": True}
        procs = [srv.proc]

        def alive(where):
            if not srv.alive():
                st["alive"] = False
                raise AssertionError("the server died (%s); log:\n%s" % (where, srv.log_tail()))

        a = Conn(srv.port)
        b = Conn(srv.port)
        conns += [a, b]

        def fill():
            for i in range(MAX_FILL):
                key = "df:%s:%d" % (policy, i)
                val = value_for(policy, i)
                a.send("SET", key, val)
                try:
                    rep = a.read(HOLD_TIMEOUT)
                except socket.timeout:
                    st["held"] = (key, val)
                    return
                if isinstance(rep, Err):
                    alive("fill")
                    raise AssertionError(
                        "SET #%d was answered %r without any earlier reply being held (%d acknowledged): "
                        "the write that hit ENOSPC should have had its reply held" % (i, rep, len(st["acked"])))
                ok(rep, "SET #%d" % i)
                st["acked"][key] = val
            raise AssertionError("%d SETs of 64 KB were all acknowledged on a %s tmpfs" % (MAX_FILL, FS_SIZE))

        r.case("%s: filling the disk with 64 KB SETs holds the reply of the write that hit ENOSPC "
               "(no reply within %.0f s)" % (tag, HOLD_TIMEOUT), fill)

        def need_held():
            if st["held"] is None:
                raise AssertionError("no write is held (the fill case failed)")

        def refused():
            need_held()
            alive("before the refused write")
            rep = b.cmd("SET", "df:refused", "x", timeout=5.0)
            if not (isinstance(rep, Err) and rep.args[0] == MISCONF):
                raise AssertionError("SET while the disk is full: expected -%s, got %r" % (MISCONF.decode(), rep))
            rep = b.cmd("INCR", "df:counter", timeout=5.0)
            if not (isinstance(rep, Err) and rep.args[0].startswith(b"MISCONF ")):
                raise AssertionError("INCR while the disk is full: expected -MISCONF, got %r" % (rep,))
            for k in ("df:refused", "df:counter"):
                if b.cmd("EXISTS", k) != 0:
                    raise AssertionError("the refused write to %s was applied" % k)

        r.case("%s: while the disk is full, writes of another client get '-%s' and are not applied"
               % (tag, MISCONF.decode()), refused)

        def reads():
            need_held()
            alive("reads")
            if st["acked"]:
                k = next(iter(st["acked"]))
                got = b.cmd("GET", k)
                if got != st["acked"][k]:
                    raise AssertionError("GET %s of an acknowledged key: wrong value (%r...)" % (k, (got or b"")[:20]))
                k = list(st["acked"])[-1]
                if b.cmd("GET", k) != st["acked"][k]:
                    raise AssertionError("GET %s (last acknowledged key): wrong value" % k)
            n = b.cmd("DBSIZE")
            # The held write ran (its reply waits for the log), so it counts.
            if n != len(st["acked"]) + 1:
                raise AssertionError("DBSIZE: expected %d (acknowledged + the held write), got %r"
                                     % (len(st["acked"]) + 1, n))
            if b.cmd("PING") != b"PONG":
                raise AssertionError("PING not answered")

        r.case("%s: while the disk is full, reads are served (GET of acknowledged keys, DBSIZE, PING)" % tag, reads)

        def info_err():
            need_held()
            alive("info")
            # Let the cron retry the flush a few times: the state must persist.
            deadline = time.monotonic() + 1.2
            while time.monotonic() < deadline:
                i = info(srv.port)
                if i.get("aof_last_write_status") != "err":
                    raise AssertionError("aof_last_write_status is %r while the disk is full; INFO: %r"
                                         % (i.get("aof_last_write_status"), i))
                time.sleep(0.2)
            if "No space left" not in i.get("aof_last_write_error", ""):
                raise AssertionError("aof_last_write_error is %r, expected it to name 'No space left'"
                                     % i.get("aof_last_write_error"))
            if i.get("aof_held_clients") != "1":
                raise AssertionError("aof_held_clients is %r, expected 1" % i.get("aof_held_clients"))
            if i.get("aof_enabled") != "1":
                raise AssertionError("aof_enabled is %r" % i.get("aof_enabled"))
            rep = b.cmd("SET", "df:refused", "y")
            if not (isinstance(rep, Err) and rep.args[0] == MISCONF):
                raise AssertionError("after cron retries, SET: expected -MISCONF, got %r" % (rep,))
            alive("after cron retries")

        r.case("%s: INFO persistence shows aof_last_write_status:err, aof_last_write_error 'No space left', "
               "aof_held_clients:1, across cron retries" % tag, info_err)

        def recover():
            need_held()
            os.unlink(os.path.join(mnt, "filler"))
            t0 = time.monotonic()
            try:
                rep = a.read(RECOVER_TIMEOUT)
            except socket.timeout:
                alive("recovery")
                raise AssertionError("the held reply did not arrive within %.0f s of freeing 1 MB; INFO: %r"
                                     % (RECOVER_TIMEOUT, info(srv.port)))
            ok(rep, "the held SET %s" % st["held"][0])
            waited = time.monotonic() - t0
            k, v = st["held"]
            st["acked"][k] = v
            st["held_key"] = k
            i = info(srv.port)
            if i.get("aof_last_write_status") != "ok" or i.get("aof_held_clients") != "0":
                raise AssertionError("after the held reply: aof_last_write_status %r, aof_held_clients %r"
                                     % (i.get("aof_last_write_status"), i.get("aof_held_clients")))
            ok(b.cmd("SET", "df:after", "z"), "SET from the second client after recovery")
            st["acked"]["df:after"] = b"z"
            for j in range(3):
                key = "df:%s:post%d" % (policy, j)
                val = value_for(policy, 1000 + j)
                ok(a.cmd("SET", key, val, timeout=5.0), "SET %s after recovery" % key)
                st["acked"][key] = val
            if b.cmd("DBSIZE") != len(st["acked"]):
                raise AssertionError("DBSIZE after recovery: expected %d" % len(st["acked"]))
            alive("after recovery")
            sys.stdout.write("# %s: %d writes acknowledged before the disk filled, the held reply came %.2f s "
                             "after freeing space\n" % (tag, len(st["acked"]) - 5, waited))

        r.case("%s: deleting a 1 MB file releases the held reply within %.0f s; status ok, writes accepted"
               % (tag, RECOVER_TIMEOUT), recover)

        def restart():
            if "held_key" not in st:
                raise AssertionError("recovery failed: nothing to check")
            for c in conns:
                c.close()
            conns.clear()
            alive("before restart")
            old = srv.proc
            srv.restart()
            procs.append(srv.proc)
            if old.returncode != 0:
                raise AssertionError("the server exited with %r on SIGTERM (None: killed after a timeout)"
                                     % old.returncode)
            c = Conn(srv.port)
            conns.append(c)
            missing, wrong = [], []
            for k, v in st["acked"].items():
                got = c.cmd("GET", k)
                if got is None:
                    missing.append(k)
                elif got != v:
                    wrong.append(k)
            if missing or wrong:
                raise AssertionError("after restart: %d acknowledged keys missing %r, %d with a wrong value %r"
                                     % (len(missing), missing[:5], len(wrong), wrong[:5]))
            if c.cmd("EXISTS", "df:refused", "df:counter") != 0:
                raise AssertionError("a refused write is in the dataset after restart")
            n = c.cmd("DBSIZE")
            if n != len(st["acked"]):
                raise AssertionError("DBSIZE after restart: expected %d, got %r" % (len(st["acked"]), n))
            i = info(srv.port)
            if i.get("aof_last_load_truncated_bytes", "0") != "0":
                raise AssertionError("the log had a torn tail at restart: aof_last_load_truncated_bytes %r"
                                     % i.get("aof_last_load_truncated_bytes"))

        r.case("%s: after a restart every acknowledged key (and the held one) has its value, "
               "refused writes are absent" % tag, restart)

        def check():
            for c in conns:
                c.close()
            conns.clear()
            last = srv.proc
            if srv.alive():
                srv._kill()
            if last is not None and last.returncode != 0:
                raise AssertionError("the server exited with %r on SIGTERM" % last.returncode)
            p = subprocess.run([CHECK_AOF, os.path.join(data, "scratchpad.manifest")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            if p.returncode != 0:
                raise AssertionError("%s exited %d:\n%s" % (CHECK_AOF, p.returncode,
                                                           p.stdout.decode(errors="replace")))

        r.case("%s: the log files are whole after the episode (scratchpad-check-aof exits 0)" % tag, check)

        def never_crashed():
            if not st["alive"]:
                raise AssertionError("the server died during the test")
            for p in procs:
                if p.returncode not in (0, None) or (p.returncode is None and p.poll() is not None):
                    raise AssertionError("a server process exited with %r" % p.returncode)
            with open(srv.log_path, "rb") as f:
                log = f.read().decode(errors="replace")
            for bad in ("Sanitizer", "crashed", "Assertion", "Segmentation"):
                if bad in log:
                    raise AssertionError("server log mentions %r:\n%s" % (bad, srv.log_tail()))
            if "No space left" not in log:
                raise AssertionError("the server log does not mention the failed write (No space left)")

        r.case("%s: the server stayed alive throughout and logged the failure" % tag, never_crashed)
    except Exception as e:  # noqa: BLE001 -- set-up failure
        r.fail("%s: set-up" % tag, "%r\n%s" % (e, srv.log_tail() if srv else ""))
    finally:
        for c in conns:
            try:
                c.close()
            except OSError:
                pass
        if srv is not None:
            srv.stop()  # workdir given: stops the process, keeps the directory
        spserver.tmpfs_unmount(top, mnt)


HOLD_MS = 1000
IOERR_HEAD = b"IOERR the write was applied in memory but is not in the AOF file yet (No space left on device)"


def run_hold_timeout(r, policy):
    tag = "appendfsync %s, aof-hold-timeout %d" % (policy, HOLD_MS)
    top, mnt = spserver.tmpfs_mount(FS_SIZE, "sp-diskfull-")
    if top is None:
        r.skip("%s: a write the full disk cannot log is answered -IOERR after the timeout" % tag, mnt)
        return
    srv = None
    conns = []
    try:
        with open(os.path.join(mnt, "filler"), "wb") as f:
            f.write(b"\xa5" * FILLER)
        data = os.path.join(mnt, "data")
        srv = spserver.Server("--dir", data, "--appendonly", "yes", "--appendfsync", policy,
                              "--aof-hold-timeout", str(HOLD_MS), workdir=top)
        srv.start()
        a = Conn(srv.port, timeout=10.0)
        b = Conn(srv.port)
        conns += [a, b]
        st = {"acked": {}, "failed": None}

        def fill():
            for i in range(MAX_FILL):
                key = "ht:%s:%d" % (policy, i)
                val = value_for(policy, i)
                t0 = time.monotonic()
                a.send("SET", key, val)
                a.send("GET", key)
                try:
                    rep = a.read(HOLD_MS / 1000.0 + 6.0)
                except socket.timeout:
                    raise AssertionError("SET #%d got no reply within %.0f s (aof_held_clients:%s)"
                                         % (i, HOLD_MS / 1000.0 + 6.0, info(srv.port).get("aof_held_clients")))
                waited = time.monotonic() - t0
                got = a.read(5.0)
                if got != val:
                    raise AssertionError("the GET pipelined after SET #%d: wrong value (%r...)" % (i, (got or b"")[:20]))
                if rep == b"OK":
                    st["acked"][key] = val
                    continue
                if not (isinstance(rep, Err) and rep.args[0].startswith(IOERR_HEAD)):
                    raise AssertionError("SET #%d: expected +OK or -%s..., got %r" % (i, IOERR_HEAD.decode(), rep))
                if not HOLD_MS / 1000.0 * 0.9 <= waited <= HOLD_MS / 1000.0 + 3.0:
                    raise AssertionError("the -IOERR came %.2f s after the SET, expected %.1f - %.1f s"
                                         % (waited, HOLD_MS / 1000.0 * 0.9, HOLD_MS / 1000.0 + 3.0))
                if b"lost if the server stops" not in rep.args[0]:
                    raise AssertionError("the -IOERR does not say what happens to the write: %r" % rep.args[0])
                st["failed"] = (key, val)
                sys.stdout.write("# %s: -IOERR after %.2f s, %d writes acknowledged before\n"
                                 % (tag, waited, len(st["acked"])))
                return
            raise AssertionError("%d SETs of 64 KB were all acknowledged on a %s tmpfs" % (MAX_FILL, FS_SIZE))

        r.case("%s: the write that hit ENOSPC is answered '-%s ...' within the timeout plus 3 s, "
               "and the GET pipelined after it gets its value" % (tag, IOERR_HEAD.decode()), fill)

        def after_error():
            if st["failed"] is None:
                raise AssertionError("no write was answered -IOERR (the fill case failed)")
            k, v = st["failed"]
            if b.cmd("GET", k) != v:
                raise AssertionError("GET %s from another client: the write answered -IOERR is not in memory" % k)
            rep = b.cmd("SET", "ht:refused", "x")
            if not (isinstance(rep, Err) and rep.args[0] == MISCONF):
                raise AssertionError("SET while the disk is full: expected -%s, got %r" % (MISCONF.decode(), rep))
            i = info(srv.port)
            for f, want in (("aof_unlogged_replies", "1"), ("aof_held_clients", "0"),
                            ("aof_last_write_status", "err")):
                if i.get(f) != want:
                    raise AssertionError("INFO persistence %s:%r, expected %s" % (f, i.get(f), want))
            if a.cmd("PING") != b"PONG":
                raise AssertionError("the client answered -IOERR is not served any more")

        r.case("%s: after the -IOERR the value is in memory, new writes get -MISCONF, INFO shows "
               "aof_unlogged_replies:1 and aof_held_clients:0" % tag, after_error)

        def recover_restart():
            if st["failed"] is None:
                raise AssertionError("no write was answered -IOERR (the fill case failed)")
            os.unlink(os.path.join(mnt, "filler"))
            deadline = time.monotonic() + RECOVER_TIMEOUT
            while info(srv.port).get("aof_last_write_status") != "ok":
                if time.monotonic() > deadline:
                    raise AssertionError("the log was not writable again %.0f s after freeing 1 MB" % RECOVER_TIMEOUT)
                time.sleep(0.1)
            ok(b.cmd("SET", "ht:after", "z"), "SET after recovery")
            for c in conns:
                c.close()
            conns.clear()
            old = srv.proc
            srv.restart()
            if old.returncode != 0:
                raise AssertionError("the server exited with %r on SIGTERM" % old.returncode)
            c = Conn(srv.port)
            conns.append(c)
            k, v = st["failed"]
            if c.cmd("GET", k) != v:
                raise AssertionError("after restart the write answered -IOERR (%s) is not there" % k)
            bad = [key for key, val in st["acked"].items() if c.cmd("GET", key) != val]
            if bad or c.cmd("GET", "ht:after") != b"z":
                raise AssertionError("after restart: acknowledged keys missing or wrong: %r" % bad[:5])
            if c.cmd("DBSIZE") != len(st["acked"]) + 2:
                raise AssertionError("DBSIZE after restart: expected %d" % (len(st["acked"]) + 2))

        r.case("%s: once space is freed the write answered -IOERR is logged and is there after a restart"
               % tag, recover_restart)
    except Exception as e:  # noqa: BLE001 -- set-up failure
        r.fail("%s: set-up" % tag, "%r\n%s" % (e, srv.log_tail() if srv else ""))
    finally:
        for c in conns:
            try:
                c.close()
            except OSError:
                pass
        if srv is not None:
            srv.stop()
        spserver.tmpfs_unmount(top, mnt)


def main():
    r = spserver.Reporter()
    if os.geteuid() != 0:
        for p in ("always", "everysec"):
            r.skip("appendfsync %s: disk-full behaviour of the log" % p, "not root: cannot mount a tmpfs")
        r.finish()
    for p in ("always", "everysec"):
        run_policy(r, p)
        run_hold_timeout(r, p)
    r.finish()


if __name__ == "__main__":
    main()
