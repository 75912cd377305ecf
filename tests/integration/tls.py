"""tls.py -- TLS clients on tls-port beside plain ones on port, with real clients.

Certificates are made by the test with openssl (tests/lib/tlscerts.py) in the
server's temporary directory. Clients: redis-cli --tls and redis-py ssl=True,
with and without a client certificate (tls-auth-clients yes refuses a client
without one, or with one from another CA; optional and no let it in), raw
ssl sockets for what the libraries hide (a reader too slow for a 10 MB
pipeline of replies: partial TLS writes retried; a TLSv1.2-only client when
tls-protocols is TLSv1.3). Blocking pops, pub/sub, MONITOR, CLIENT PAUSE and
the log across a restart work over TLS. A plain client on the TLS port and a
TLS client on the plain port fail cleanly: the connection closes, the server
logs why (verbose) and goes on. CONFIG SET errors of the tls-* directives are
compared with Debian's redis-server 7.0.15 over TLS. Every server runs on free
ports in a temporary directory and is stopped by its PID.
"""
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import shutil

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402
import spserver  # noqa: E402
import tlscerts  # noqa: E402
from difftest import RedisServer  # noqa: E402
from resp_wire import encode  # noqa: E402

TIMEOUT = 10


def tls_client(c, port, cert=True, rogue=False, **kw):
    args = dict(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=c["ca"], socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT)
    if cert:
        args.update(ssl_certfile=c["rogue_crt" if rogue else "client_crt"],
                    ssl_keyfile=c["rogue_key" if rogue else "client_key"])
    args.update(kw)
    return redis.Redis(**args)


def ssl_socket(c, port, cert=True, **ctxopts):
    ctx = ssl.create_default_context(cafile=c["ca"])
    ctx.check_hostname = False
    if cert:
        ctx.load_cert_chain(c["client_crt"], c["client_key"])
    for k, v in ctxopts.items():
        setattr(ctx, k, v)
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    return ctx.wrap_socket(s)


def cli(c, port, *args, cert=True, stdin=None):
    argv = ["redis-cli", "-h", "127.0.0.1", "-p", str(port), "--tls", "--cacert", c["ca"]]
    if cert:
        argv += ["--cert", c["client_crt"], "--key", c["client_key"]]
    if stdin is not None:
        argv.append("-x")
    p = subprocess.run(argv + list(args), input=stdin, capture_output=True, timeout=TIMEOUT)
    return p.stdout.rstrip(b"\n"), p.returncode


def wait_log(srv, text, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in srv.log_tail(400):
            return
        time.sleep(0.05)
    raise AssertionError("%r not in the log:\n%s" % (text, srv.log_tail(20)))


def redis_cli_works(c, srv, tp):
    assert cli(c, tp, "PING") == (b"PONG", 0)
    assert cli(c, tp, "SET", "cli:k", "v")[0] == b"OK"
    big = os.urandom(1 << 20).hex().encode()
    assert cli(c, tp, "SET", "cli:big", stdin=big)[0] == b"OK"
    got, rc = cli(c, tp, "GET", "cli:big")
    assert rc == 0 and got == big, (len(got), rc)
    got, _ = cli(c, tp, "CLIENT", "INFO")
    assert (b"laddr=127.0.0.1:%d " % tp) in got, got


def redis_py_large(c, srv, tp):
    r = tls_client(c, tp)
    big = os.urandom(4 << 20)
    r.set("py:big", big)
    assert r.get("py:big") == big
    val = os.urandom(10000)
    r.set("py:v", val)
    p = r.pipeline(transaction=False)
    for _ in range(2000):
        p.get("py:v")
    assert p.execute() == [val] * 2000
    p = r.pipeline(transaction=False)
    for i in range(3000):
        p.set("py:k%d" % i, i)
    assert all(p.execute())
    assert r.dbsize() >= 3000
    assert r.get("py:k2999") == b"2999"
    r.close()


def plain_and_tls_together(c, srv, tp):
    plain = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT)
    t = tls_client(c, tp)
    plain.set("both", "plain")
    assert t.get("both") == b"plain"
    t.set("both", "tls")
    assert plain.get("both") == b"tls"
    lines = plain.execute_command("CLIENT", "LIST").decode()
    assert (":%d " % tp) in lines and (":%d " % srv.port) in lines, lines
    plain.close()
    t.close()


def auth_clients_yes_refuses(c, srv, tp):
    for kw in ({"cert": False}, {"rogue": True}):
        r = tls_client(c, tp, **kw)
        try:
            r.ping()
        except (redis.exceptions.ConnectionError, ssl.SSLError, OSError):
            pass
        else:
            raise AssertionError("a client %r got in" % kw)
        finally:
            r.close()
    wait_log(srv, "Error accepting a client connection")
    assert tls_client(c, tp).ping()


def auth_clients_optional_and_no(c, srv, tp):
    admin = tls_client(c, tp)
    try:
        assert admin.config_set("tls-auth-clients", "optional")
        assert tls_client(c, tp, cert=False).ping()
        r = tls_client(c, tp, rogue=True)
        try:
            r.ping()
            raise AssertionError("optional let a certificate from another CA in")
        except (redis.exceptions.ConnectionError, ssl.SSLError, OSError):
            pass
        assert admin.config_set("tls-auth-clients", "no")
        assert tls_client(c, tp, cert=False).ping()
        assert tls_client(c, tp, rogue=True).ping()  # not asked for, not checked
    finally:
        admin.config_set("tls-auth-clients", "yes")
    assert admin.ping()  # open connections keep going across the change
    admin.close()


def plain_client_on_tls_port(c, srv, tp):
    s = socket.create_connection(("127.0.0.1", tp), timeout=TIMEOUT)
    s.sendall(b"PING\r\n*1\r\n$4\r\nPING\r\n")
    got = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            break  # closed with our second request unread: a reset
        if not chunk:
            break
        got += chunk
    s.close()
    assert b"PONG" not in got, got
    wait_log(srv, "wrong version number")
    assert redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT).ping()
    assert tls_client(c, tp).ping()


def tls_client_on_plain_port(c, srv, tp):
    try:
        s = ssl_socket(c, srv.port)
        s.close()
        raise AssertionError("a TLS handshake succeeded on the plain port")
    except (ssl.SSLError, OSError):
        pass
    _, rc = cli(c, srv.port, "PING")
    assert rc != 0
    assert redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=TIMEOUT).ping()
    assert tls_client(c, tp).ping()


def slow_reader(c, srv, tp):
    """100 GETs of 100 KB sent at once, nothing read for half a second: the
    server's TLS writes stop part-way (WANT_WRITE) and resume; every byte
    arrives once, in order."""
    r = tls_client(c, tp)
    val = bytes(range(256)) * 400
    r.set("slow:v", val)
    r.close()
    s = ssl_socket(c, tp)
    n = 100
    s.sendall(encode([b"GET", b"slow:v"]) * n)
    time.sleep(0.5)
    one = b"$%d\r\n" % len(val) + val + b"\r\n"
    want = one * n
    got = bytearray()
    while len(got) < len(want):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        got += chunk
    s.close()
    assert bytes(got) == want, (len(got), len(want))


def many_small_records(c, srv, tp):
    """Requests cut into many small TLS records, one byte each at the end of a
    batch: the server reads what OpenSSL holds without a new readable event."""
    s = ssl_socket(c, tp)
    req = encode([b"SET", b"rec:k", b"x" * 5000]) + encode([b"GET", b"rec:k"]) + encode([b"PING"])
    for i in range(0, len(req), 7):
        s.send(req[i:i + 7])
    want = b"+OK\r\n$5000\r\n" + b"x" * 5000 + b"\r\n+PONG\r\n"
    got = b""
    while len(got) < len(want):
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    assert got == want, got[:100]


def records_read_ahead(c, srv, tp):
    """Sent while the server sleeps: a SET of 16,100 bytes in one TLS record,
    then 10 INCRs in a record each, all within the 16,709 bytes OpenSSL reads
    ahead at once. Past one read's worth (16 KB) the server stops, with the
    last INCR inside OpenSSL and the socket empty (no readable event to come):
    it runs its read callback again for it, and every request is answered."""
    sleeper = tls_client(c, tp)
    s = ssl_socket(c, tp)
    s.sendall(encode([b"PING"]))
    assert s.recv(100) == b"+PONG\r\n"  # the handshake is over on both sides
    t = threading.Thread(target=lambda: sleeper.execute_command("DEBUG", "SLEEP", "0.5"))
    t.start()
    time.sleep(0.1)
    big = encode([b"SET", b"ahead:big", b"v" * 16062])
    assert len(big) == 16100, len(big)
    s.send(big)
    n = 10
    for _ in range(n):
        s.send(encode([b"INCR", b"ahead:counter"]))
    want = b"+OK\r\n" + b"".join(b":%d\r\n" % (i + 1) for i in range(n))
    got = b""
    while len(got) < len(want):
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    t.join(5)
    s.close()
    sleeper.close()
    assert got == want, got


def blocking_pop(c, srv, tp):
    a, b = tls_client(c, tp), tls_client(c, tp)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("v", a.blpop("blk:l", timeout=5)))
    t.start()
    time.sleep(0.3)
    b.lpush("blk:l", "hello")
    t.join(6)
    assert out.get("v") == (b"blk:l", b"hello"), out
    a.close()
    b.close()


def pubsub_and_monitor(c, srv, tp):
    sub, pub, mon = tls_client(c, tp), tls_client(c, tp), tls_client(c, tp)
    ps = sub.pubsub()
    ps.subscribe("tls:chan")
    assert ps.get_message(timeout=5)["type"] == "subscribe"
    with mon.monitor() as m:
        pub.publish("tls:chan", "msg")
        msg = None
        deadline = time.monotonic() + 5
        while msg is None and time.monotonic() < deadline:
            msg = ps.get_message(timeout=1)
        assert msg and msg["data"] == b"msg", msg
        seen = m.next_command()
        assert "publish" in seen["command"].lower(), seen
    ps.close()
    for r in (sub, pub, mon):
        r.close()


def client_pause(c, srv, tp):
    a, b = tls_client(c, tp), tls_client(c, tp)
    a.execute_command("CLIENT", "PAUSE", "400", "WRITE")
    t0 = time.monotonic()
    b.set("pause:k", "v")
    assert time.monotonic() - t0 >= 0.3
    assert a.get("pause:k") == b"v"
    a.close()
    b.close()


def log_across_restart(c, srv, tp):
    r = tls_client(c, tp)
    r.set("persist:k", "kept")
    r.rpush("persist:l", "a", "b")
    r.close()
    srv.restart()
    r = tls_client(c, tp)
    assert r.get("persist:k") == b"kept"
    assert r.lrange("persist:l", 0, -1) == [b"a", b"b"]
    r.close()


def config_set_like_redis(c, srv, tp, redis_port, redis_tls_port):
    mine, theirs = tls_client(c, tp), tls_client(c, redis_tls_port)
    for args in (("tls-cert-file", "/nonexistent/cert.pem"), ("tls-protocols", "TLSv9"),
                 ("tls-ciphers", "NO-SUCH-CIPHER"), ("tls-auth-clients", "maybe")):
        errs = []
        for r in (mine, theirs):
            try:
                r.config_set(*args)
                errs.append(None)
            except redis.exceptions.ResponseError as e:
                errs.append(str(e))
        assert errs[0] == errs[1] and errs[0], (args, errs)
    assert mine.config_get("tls-cert-file")["tls-cert-file"] == c["server_crt"]
    assert tls_client(c, tp).ping()  # the old context still serves new clients
    for name in ("tls-port", "tls-auth-clients", "tls-session-caching", "tls-session-cache-size",
                 "tls-session-cache-timeout", "tls-prefer-server-ciphers", "tls-protocols", "tls-ciphers",
                 "tls-ciphersuites", "tls-key-file-pass", "tls-ca-cert-dir"):
        a, b = mine.config_get(name), theirs.config_get(name)
        if name == "tls-port":
            a, b = list(a), list(b)
        assert a == b or name == "tls-port", (name, a, b)
    mine.close()
    theirs.close()


def protocols(c, srv, tp):
    admin = tls_client(c, tp)
    try:
        assert admin.config_set("tls-protocols", "TLSv1.3")
        try:
            s = ssl_socket(c, tp, maximum_version=ssl.TLSVersion.TLSv1_2)
            s.sendall(b"PING\r\n")
            s.recv(10)
            raise AssertionError("a TLSv1.2 client got in with tls-protocols TLSv1.3")
        except (ssl.SSLError, OSError):
            pass
        s = ssl_socket(c, tp, minimum_version=ssl.TLSVersion.TLSv1_3)
        s.sendall(b"PING\r\n")
        assert s.recv(10) == b"+PONG\r\n"
        assert s.version() == "TLSv1.3"
        s.close()
        assert admin.config_set("tls-protocols", "TLSv1.2")
        s = ssl_socket(c, tp)
        assert s.version() == "TLSv1.2"
        s.close()
    finally:
        admin.config_set("tls-protocols", "")


def session_caching(c, srv, tp):
    ctx = ssl.create_default_context(cafile=c["ca"])
    ctx.check_hostname = False
    ctx.load_cert_chain(c["client_crt"], c["client_key"])

    def resumed(session=None):
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", tp), timeout=TIMEOUT), session=session)
        s.sendall(b"PING\r\n")
        assert s.recv(10) == b"+PONG\r\n"  # TLSv1.3 tickets come after the handshake
        out = (s.session, s.session_reused)
        s.close()
        return out

    sess, reused = resumed()
    assert not reused
    assert resumed(sess)[1], "tls-session-caching yes: the session is not resumed"
    admin = tls_client(c, tp)
    try:
        assert admin.config_set("tls-session-caching", "no")
        sess, _ = resumed()
        assert not resumed(sess)[1], "tls-session-caching no: the session was resumed"
    finally:
        admin.config_set("tls-session-caching", "yes")
        admin.close()


def encrypted_key(c):
    tp = spserver.free_port()
    args = ["--tls-port", tp, "--tls-cert-file", c["server_crt"], "--tls-key-file", c["server_enc_key"],
            "--tls-key-file-pass", "secret", "--tls-ca-cert-file", c["ca"], "--appendonly", "no"]
    with spserver.Server(*args) as srv:
        assert tls_client(c, tp).ping()
        assert "secret" not in srv.log_tail(200)


def tls_only(c):
    """port 0: no plain listener, TLS clients served."""
    tp = spserver.free_port()
    d = tempfile.mkdtemp(prefix="sp-tls-only-")
    log = open(os.path.join(d, "server.log"), "wb")
    p = subprocess.Popen([spserver.server_binary(), "--port", "0", "--bind", "127.0.0.1", "--appendonly", "no"] +
                         tlscerts.server_args(c, tp), cwd=d, stdin=subprocess.DEVNULL, stdout=log,
                         stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                assert tls_client(c, tp).ping()
                break
            except (redis.exceptions.ConnectionError, OSError):
                assert p.poll() is None and time.monotonic() < deadline, "no TLS answer"
                time.sleep(0.05)
        with open(os.path.join(d, "server.log"), "rb") as f:
            text = f.read()
        assert b"Ready to accept connections tls" in text and b"connections tcp" not in text, text
    finally:
        p.terminate()
        p.wait(TIMEOUT)
        log.close()
        shutil.rmtree(d, ignore_errors=True)


def refuses_to_start_without_cert(c):
    tp = spserver.free_port()
    srv = spserver.Server("--tls-port", tp, "--appendonly", "no", start_timeout=5)
    ok, tail = srv.try_start()
    srv.stop()
    assert not ok and "No tls-cert-file configured!" in tail and "Failed to configure TLS" in tail, tail


def main():
    rep = spserver.Reporter()
    certdir = tempfile.mkdtemp(prefix="sp-tls-certs-")
    try:
        c = tlscerts.make_certs(certdir)
        tp = spserver.free_port()
        with spserver.Server(*tlscerts.server_args(c, tp, "--loglevel", "verbose")) as srv:
            rep.case("redis-cli --tls with a client certificate: PING, SET, a 2 MB value through -x and back, "
                     "CLIENT INFO on the TLS port", redis_cli_works, c, srv, tp)
            rep.case("redis-py ssl=True: a 4 MB value, 2000 pipelined GETs of 10 KB, 3000 pipelined SETs",
                     redis_py_large, c, srv, tp)
            rep.case("plain and TLS clients at once see the same data; CLIENT LIST shows both ports",
                     plain_and_tls_together, c, srv, tp)
            rep.case("tls-auth-clients yes refuses a client without a certificate and one from another CA, "
                     "logged; others go on", auth_clients_yes_refuses, c, srv, tp)
            rep.case("CONFIG SET tls-auth-clients optional / no lets certificate-less clients in (new "
                     "connections only)", auth_clients_optional_and_no, c, srv, tp)
            rep.case("a plain client on the TLS port gets no reply and is closed; the server logs it and goes on",
                     plain_client_on_tls_port, c, srv, tp)
            rep.case("a TLS client on the plain port fails its handshake; the server goes on",
                     tls_client_on_plain_port, c, srv, tp)
            rep.case("a reader too slow for 10 MB of pipelined replies gets every byte once, in order",
                     slow_reader, c, srv, tp)
            rep.case("a request sent in 7-byte TLS records is read whole", many_small_records, c, srv, tp)
            rep.case("a 16 KB request and 10 small ones in their own TLS records, read ahead at once while the "
                     "server sleeps, are all answered", records_read_ahead, c, srv, tp)
            rep.case("BLPOP over TLS is woken by an LPUSH over TLS", blocking_pop, c, srv, tp)
            rep.case("pub/sub and MONITOR over TLS", pubsub_and_monitor, c, srv, tp)
            rep.case("CLIENT PAUSE WRITE holds a TLS client's write until the pause ends", client_pause, c, srv, tp)
            rep.case("tls-protocols TLSv1.3 refuses a TLSv1.2 client; TLSv1.2 gives one", protocols, c, srv, tp)
            rep.case("tls-session-caching yes resumes a session on reconnection; no does not",
                     session_caching, c, srv, tp)
            redis_srv = None
            try:
                rtp = spserver.free_port()
                redis_srv = RedisServer(*tlscerts.server_args(c, rtp))
                rep.case("CONFIG SET of bad tls-* values fails as redis-server's, keeping the old context; "
                         "CONFIG GET tls-* as redis-server's", config_set_like_redis, c, srv, tp, redis_srv.port,
                         rtp)
            finally:
                if redis_srv:
                    redis_srv.stop()
            rep.case("keys written over TLS are in the log across a restart", log_across_restart, c, srv, tp)
        rep.case("tls-key-file-pass opens an encrypted key, and is not logged", encrypted_key, c)
        rep.case("port 0 and tls-port: TLS clients only", tls_only, c)
        rep.case("tls-port without tls-cert-file stops the start with Redis's messages",
                 refuses_to_start_without_cert, c)
    finally:
        shutil.rmtree(certdir, ignore_errors=True)
    rep.finish()


if __name__ == "__main__":
    main()
