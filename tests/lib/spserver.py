"""spserver.py -- start and stop a scratchpad-server for a test, and report cases.

Integration tests written in Python import this module (stdlib only) to run a
server of their own: it picks a free port on 127.0.0.1, starts the binary named
by $SERVER (else <repo>/build/scratchpad-server) in a fresh temporary directory
with its output in server.log there, waits until PING answers (PONG, or
NOAUTH when a password is required), and stops it by
its PID (SIGTERM, then SIGKILL after a timeout). Nothing else is ever killed.

Reporter prints one line per case, "ok - <sentence>" or "not ok - <sentence>"
followed by the exception indented, and Reporter.finish() exits non-zero if any
case failed.

Invariants: a Server is stopped and its directory removed when its `with`
block ends, whether the block raised or not; every wait is bounded.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def server_binary():
    """The server to test: $SERVER if set, else <repo>/build/scratchpad-server."""
    return os.environ.get("SERVER") or os.path.join(TOP, "build", "scratchpad-server")


def tmpfs_mount(size, prefix):
    """A tmpfs of `size` (mount's syntax, e.g. "4m") mounted at <tmpdir>/mnt:
    returns (top, mnt), or (None, why) if it cannot be mounted (not root, no
    tmpfs). Undo with tmpfs_unmount(top, mnt) whatever happens."""
    top = tempfile.mkdtemp(prefix=prefix)
    mnt = os.path.join(top, "mnt")
    os.mkdir(mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", mnt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if m.returncode != 0:
        shutil.rmtree(top, ignore_errors=True)
        return None, "cannot mount a tmpfs: " + m.stdout.decode(errors="replace").strip()
    return top, mnt


def tmpfs_unmount(top, mnt):
    """Unmount what tmpfs_mount mounted (lazily if it is busy) and remove its
    directory (kept with KEEP_TEST_DIRS set)."""
    u = subprocess.run(["umount", mnt], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if u.returncode != 0:
        subprocess.run(["umount", "-l", mnt], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.environ.get("KEEP_TEST_DIRS"):
        shutil.rmtree(top, ignore_errors=True)


def check_aof_binary():
    """The scratchpad-check-aof to test: $CHECK_AOF, else the build's."""
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    return os.environ.get("CHECK_AOF") or os.path.join(top, os.environ.get("BUILD", "build"), "scratchpad-check-aof")


def run_check_aof(*args):
    """Run scratchpad-check-aof with args: (exit status, its output)."""
    p = subprocess.run([check_aof_binary()] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=30)
    return p.returncode, p.stdout.decode(errors="replace")


def gen_log_text(size, seed):
    """size bytes of log-like text from bench/gen_logs.py (the same for the same seed)."""
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    return subprocess.run([sys.executable, os.path.join(top, "bench", "gen_logs.py"), "text", str(size),
                           "--seed", str(seed)], check=True, stdout=subprocess.PIPE).stdout


def assert_same_bytes(got, want, what):
    """got == want, or an AssertionError naming what and, for bytes, the first difference."""
    if got != want:
        if isinstance(got, bytes) and isinstance(want, bytes):
            i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
            raise AssertionError("%s: %d bytes, want %d; first difference at %d: %r / %r" % (
                what, len(got), len(want), i, got[max(0, i - 20):i + 20], want[max(0, i - 20):i + 20]))
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def lz4_dict_info(r):
    """INFO memory's lz4_dict_* fields of redis-py client r, without the prefix, as integers."""
    info = r.info("memory")
    return {k[len("lz4_dict_"):]: int(v) for k, v in info.items() if k.startswith("lz4_dict_")}


def wait_lz4_dict(r, pred, what, timeout=60.0):
    """Poll lz4_dict_info(r) until pred holds of it (returned), at most timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        d = lz4_dict_info(r)
        if pred(d):
            return d
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s; INFO: %r" % (what, d))
        time.sleep(0.05)


def assert_log_clean(workdir, when):
    """scratchpad-check-aof finds the log of the server run in workdir clean
    (AssertionError naming when otherwise)."""
    status, out = run_check_aof(os.path.join(workdir, "data", "scratchpad.manifest"))
    if status != 0:
        raise AssertionError("scratchpad-check-aof %s: status %d: %s" % (when, status, out[-500:]))


def rewrite_log(r, mode, timeout=60.0):
    """BGREWRITEAOF on redis-py client r with aof-rewrite-mode mode ("fork" or
    "incremental"), waited for (at most timeout seconds): its status must be ok."""
    r.config_set("aof-rewrite-mode", mode)
    before = r.info("persistence")["aof_rewrites"]
    r.bgrewriteaof()
    deadline = time.monotonic() + timeout
    while True:
        p = r.info("persistence")
        if not p["aof_rewrite_in_progress"] and not p["aof_rewrite_scheduled"] and p["aof_rewrites"] > before:
            break
        if time.monotonic() > deadline:
            raise AssertionError("the %s rewrite did not finish in %.0f s" % (mode, timeout))
        time.sleep(0.05)
    status = r.info("persistence")["aof_last_bgrewrite_status"]
    if status != "ok":
        raise AssertionError("the %s rewrite's status: %r" % (mode, status))


def run_expecting_refusal(workdir, *args, timeout=10.0):
    """Start a server in workdir that should refuse to start (a damaged log, a
    missing manifest), with the extra arguments args. Returns (status, log):
    status is its exit code, or "started" if it answered PING (it is then
    stopped by its PID), or "hung" if it neither exited nor answered within
    timeout; log is what it wrote to workdir/server.log in this run."""
    port = free_port()
    logp = os.path.join(workdir, "server.log")
    pos = os.path.getsize(logp) if os.path.exists(logp) else 0
    with open(logp, "ab") as logf:
        p = subprocess.Popen([server_binary(), "--port", str(port), "--bind", "127.0.0.1"] + list(args),
                             cwd=workdir, stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
    status = "hung"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if p.poll() is not None:
            status = p.returncode
            break
        try:
            if raw_command(port, "PING", timeout=0.5) == b"+PONG":
                status = "started"
                break
        except OSError:
            pass
        time.sleep(0.02)
    if p.poll() is None:
        os.kill(p.pid, signal.SIGTERM)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait(timeout=timeout)
    with open(logp, "rb") as f:
        f.seek(pos)
        return status, f.read().decode(errors="replace")


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raw_command(port, *args, timeout=2.0):
    """Send one command as RESP on a new connection; return the first reply line
    (bytes, without CRLF). Raises OSError on connection trouble."""
    out = b"*%d\r\n" % len(args)
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(out)
        buf = b""
        while b"\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    return buf.split(b"\r\n", 1)[0]


_DEBUG_SUPPORT = {}


def debug_args(binary):
    """["--enable-debug-command", "yes"] for a server binary that knows the
    directive (DEBUG is closed by default, as in Redis 7, and the tests use
    it), [] for an older build (tests/tools/compare_servers.py runs those)."""
    if binary not in _DEBUG_SUPPORT:
        try:
            with open(binary, "rb") as f:
                _DEBUG_SUPPORT[binary] = b"enable-debug-command" in f.read()
        except OSError:
            _DEBUG_SUPPORT[binary] = True
    return ["--enable-debug-command", "yes"] if _DEBUG_SUPPORT[binary] else []


class Server:
    """A scratchpad-server on a free port in a temporary directory.

    Use as a context manager: `with Server("--databases", "4") as srv: ...`;
    srv.port and srv.dir are set once it answers PING. binary= names another
    server executable than server_binary() (e.g. two builds side by side). start() raises
    RuntimeError (with the end of the log) if the server exits or does not
    answer within start_timeout seconds. DEBUG is enabled (debug_args); a test
    of the default passes "--enable-debug-command", "no" (the last word wins)."""

    def __init__(self, *extra_args, start_timeout=10.0, stop_timeout=10.0, workdir=None, binary=None):
        self.binary = binary
        self.extra_args = [str(a) for a in extra_args]
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.proc = None
        self.port = None
        self.dir = workdir
        self.own_dir = workdir is None
        self.log_path = None
        self._log = None

    def start(self):
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="sp-test-")
        self.log_path = os.path.join(self.dir, "server.log")
        self._log = open(self.log_path, "ab")
        for attempt in range(3):
            self.port = free_port()
            binary = self.binary or server_binary()
            argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1"] + debug_args(binary) + self.extra_args
            self.proc = subprocess.Popen(argv, cwd=self.dir, stdin=subprocess.DEVNULL,
                                         stdout=self._log, stderr=subprocess.STDOUT)
            if self._wait_ready():
                return self
            self._kill()
            if attempt == 2 or "in use" not in self.log_tail():
                break
        tail = self.log_tail()
        if self._log:
            self._log.close()
            self._log = None
        if self.own_dir and not os.environ.get("KEEP_TEST_DIRS"):
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        raise RuntimeError("server did not answer PING on port %s; log:\n%s" % (self.port, tail))

    def _wait_ready(self):
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                reply = raw_command(self.port, "PING", timeout=1.0)
                if reply == b"+PONG" or reply.startswith(b"-NOAUTH"):
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def log_tail(self, n=40):
        """The last n lines of the server's log (for error messages)."""
        try:
            with open(self.log_path, "rb") as f:
                return b"".join(f.readlines()[-n:]).decode(errors="replace")
        except OSError:
            return ""

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _kill(self):
        """SIGTERM by PID, SIGKILL if it has not exited after stop_timeout.
        Returns the exit status (None if it had to be killed)."""
        if self.proc is None:
            return None
        status = self.proc.poll()
        if status is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
                status = self.proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=self.stop_timeout)
                status = None
            except ProcessLookupError:
                status = self.proc.wait(timeout=self.stop_timeout)
        self.proc = None
        return status

    def stop(self):
        """Stop the server, close its log and remove its directory (kept when
        $KEEP_TEST_DIRS is set, or when the caller gave it as workdir).
        Returns the exit status, None if killed."""
        status = self._kill()
        if self._log:
            self._log.close()
            self._log = None
        if self.dir and self.own_dir and not os.environ.get("KEEP_TEST_DIRS"):
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        return status

    def restart(self, *extra_args):
        """Stop the process (SIGTERM: an orderly shut-down) and start a new one
        in the same directory, so it loads the same log (./data there). New
        extra_args replace the old ones when given. Returns self."""
        self._kill()
        if self._log:
            self._log.close()
            self._log = None
        if extra_args:
            self.extra_args = [str(a) for a in extra_args]
        return self.start()

    def kill9(self):
        """SIGKILL the process by its PID (a crash), and wait for it."""
        if self.proc is not None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=self.stop_timeout)
            self.proc = None
        if self._log:
            self._log.close()
            self._log = None

    def try_start(self):
        """Start in the same directory without raising: returns (True, "") once
        PING answers, or (False, log tail) if the server exited or did not answer
        (e.g. it refused a corrupt log)."""
        try:
            self.start()
            return True, ""
        except RuntimeError as e:
            return False, str(e)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


class Reporter:
    """Runs and reports test cases, one line each.

    r.case("a sentence", fn, *args) runs fn(*args) and prints "ok - a sentence",
    or "not ok - a sentence" and the exception indented. r.skip(sentence, why)
    prints "ok - sentence # SKIP why". r.finish() exits 1 if any case failed."""

    def __init__(self):
        self.failed = 0
        self.passed = 0

    def case(self, sentence, fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 -- every failure is a reported case
            self.failed += 1
            print("not ok - " + sentence)
            for line in traceback.format_exc().rstrip().splitlines():
                print("    " + line)
            sys.stdout.flush()
            return False
        self.passed += 1
        print("ok - " + sentence)
        sys.stdout.flush()
        return True

    def fail(self, sentence, text):
        """Report a failure that happened outside of a case (e.g. set-up)."""
        self.failed += 1
        print("not ok - " + sentence)
        for line in str(text).rstrip().splitlines():
            print("    " + line)
        sys.stdout.flush()

    def skip(self, sentence, why):
        print("ok - %s # SKIP %s" % (sentence, why))
        sys.stdout.flush()

    def finish(self):
        sys.stdout.flush()
        sys.exit(1 if self.failed else 0)
