#!/usr/bin/python3
"""protected_mode.py -- protected mode refuses other addresses than loopback.

While the default user has no password, Redis 7.0 answers a TCP client whose
address is not 127.0.0.1 or ::1 with its -DENIED explanation and closes.
Two ways to be such a client here, both without leaving the machine:
- 127.0.0.2 (also loopback to the kernel, not to Redis's test): compared with
  redis-server 7.0, byte for byte, with the same set-up;
- a real non-loopback address: inside a network namespace of its own
  (`unshare -n`, needs root), with 192.0.2.7 (TEST-NET-1) on its loopback
  device, the server bound to 0.0.0.0 and a client from 192.0.2.7. This is
  the address a remote client would have; the namespace keeps the traffic
  off every real network. Skipped with a reason when namespaces cannot be
  made.
Then: a password lifts the refusal (-NOAUTH instead), CONFIG SET
protected-mode no lifts it, the unix socket is never refused, 127.0.0.1 is
never refused, and the start-up warning is in the log.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import difftest  # noqa: E402
import spserver  # noqa: E402

r = spserver.Reporter()
TEST_NET = "192.0.2.7"


def ask(port, src, dst="127.0.0.1", unix=None, request=b"PING\r\n"):
    """Connect from src (or the unix socket), send request, read until the
    server closes or 1 s passes: (bytes, closed)."""
    if unix:
        s = socket.socket(socket.AF_UNIX)
        s.connect(unix)
    else:
        s = socket.socket()
        s.bind((src, 0))
        s.connect((dst, port))
    s.settimeout(1.0)
    s.sendall(request)
    data, closed = b"", False
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
        if data.endswith(b"\r\n") and not data.startswith(b"-DENIED"):
            break
    s.close()
    return data, closed


def loopback_aliases():
    redis = difftest.RedisServer("--bind", "127.0.0.1 127.0.0.2")
    try:
        want, want_closed = ask(redis.port, "127.0.0.2", "127.0.0.2")
    finally:
        redis.stop()
    sockdir = tempfile.mkdtemp(prefix="sp-pm-")
    sock = os.path.join(sockdir, "s.sock")
    with spserver.Server("--appendonly", "no", "--bind", "127.0.0.1 127.0.0.2", "--unixsocket", sock) as srv:
        def denied():
            got, closed = ask(srv.port, "127.0.0.2", "127.0.0.2")
            assert want.startswith(b"-DENIED Redis is running in protected mode") and want_closed, want
            assert got == want and closed, got

        r.case("a client from 127.0.0.2 gets redis-server's -DENIED text, byte for byte, and is disconnected",
               denied)

        def loopback_and_unix():
            assert ask(srv.port, "127.0.0.1", "127.0.0.1")[0] == b"+PONG\r\n"
            assert ask(srv.port, None, unix=sock)[0] == b"+PONG\r\n"

        r.case("127.0.0.1 and the unix socket are served", loopback_and_unix)

        def password_lifts():
            assert spserver.raw_command(srv.port, "CONFIG", "SET", "requirepass", "pw") == b"+OK"
            got, closed = ask(srv.port, "127.0.0.2", "127.0.0.2")
            assert got == b"-NOAUTH Authentication required.\r\n" and not closed, got
            got, _ = ask(srv.port, "127.0.0.2", "127.0.0.2", request=b"AUTH pw\r\nPING\r\n")
            assert got.startswith(b"+OK\r\n"), got
            got, _ = ask(srv.port, "127.0.0.1", request=b"AUTH pw\r\nCONFIG SET requirepass \"\"\r\n")
            assert got == b"+OK\r\n+OK\r\n", got

        r.case("with a password the refusal is lifted (-NOAUTH, then AUTH works)", password_lifts)

        def config_off():
            assert spserver.raw_command(srv.port, "CONFIG", "SET", "protected-mode", "no") == b"+OK"
            assert ask(srv.port, "127.0.0.2", "127.0.0.2")[0] == b"+PONG\r\n"
            assert spserver.raw_command(srv.port, "CONFIG", "SET", "protected-mode", "yes") == b"+OK"
            assert ask(srv.port, "127.0.0.2", "127.0.0.2")[0].startswith(b"-DENIED")

        r.case("CONFIG SET protected-mode no lets 127.0.0.2 in, yes refuses it again", config_off)

        def users_count():
            # a user with a password other than default does not lift it: Redis looks at default only
            assert spserver.raw_command(srv.port, "ACL", "SETUSER", "u", "on", ">x", "+@all", "~*") == b"+OK"
            assert ask(srv.port, "127.0.0.2", "127.0.0.2")[0].startswith(b"-DENIED")

        r.case("another user's password does not lift it: the default user's decides, as Redis", users_count)
    __import__("shutil").rmtree(sockdir, ignore_errors=True)


def in_netns():
    """Run inside `unshare -n`: print ok/not ok lines for a real non-loopback
    address."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", TEST_NET + "/24", "dev", "lo"], check=True)
    srv = spserver.Server("--appendonly", "no", "--bind", "0.0.0.0")
    srv.start()
    try:
        def remote_denied():
            got, closed = ask(srv.port, TEST_NET, TEST_NET)
            assert got.startswith(b"-DENIED Redis is running in protected mode") and closed, got
            assert ask(srv.port, "127.0.0.1", "127.0.0.1")[0] == b"+PONG\r\n"

        r.case("a client from a non-loopback address (%s, in a network namespace) is refused; 127.0.0.1 is "
               "served" % TEST_NET, remote_denied)

        def warned():
            log = open(srv.log_path, "rb").read().decode(errors="replace")
            assert "WARNING: protected mode is on and the default user has no password" in log, log[-2000:]

        r.case("the start-up log warns that non-loopback clients are refused", warned)
    finally:
        srv.stop()


def netns():
    unshare = "/usr/bin/unshare"
    if os.geteuid() != 0 or not os.path.exists(unshare) or not shutil.which("ip"):
        r.skip("a non-loopback address in a network namespace is refused", "needs root, unshare and ip")
        return
    probe = subprocess.run([unshare, "-n", "true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        r.skip("a non-loopback address in a network namespace is refused", "unshare -n is not permitted here")
        return
    p = subprocess.run([unshare, "-n", sys.executable, os.path.abspath(__file__), "--in-netns"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = p.stdout.decode(errors="replace")
    sys.stdout.write(out)
    r.failed += out.count("not ok - ")
    if p.returncode != 0 and "not ok - " not in out:
        r.fail("the network-namespace part ran", out)


if __name__ == "__main__":
    if "--in-netns" in sys.argv:
        in_netns()
        r.finish()
    loopback_aliases()
    netns()
    r.finish()
