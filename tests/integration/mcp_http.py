"""mcp_http.py -- scratchpad-mcp over Streamable HTTP (--http), against a real server.

Sessions by Mcp-Session-Id (given by initialize; 400 without it, 404 unknown or
ended by DELETE), each in a namespace of its own that the other cannot see;
notifications answered 202; long calls (a lease's wait, a blocking read of the
change feed) that hold only their own session and end at once when cancelled
(notifications/cancelled); the same tools/list as the generated table; GET
405, a foreign Origin 403, an unknown MCP-Protocol-Version 400, a body that is
not JSON 400 with -32700 (and the session goes on); the scratchpad server
stopped and started again underneath; SIGTERM ends the process with status 0.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from spserver import TOP, Reporter, Server, free_port, server_binary  # noqa: E402

import redis  # noqa: E402

MCP = os.path.join(TOP, os.environ.get("BUILD", "build"), "scratchpad-mcp")


def post(url, body, session=None, headers=None, method="POST", timeout=10):
    """(status, headers, parsed JSON body or None)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        h["Mcp-Session-Id"] = session
    h.update(headers or {})
    req = urllib.request.Request(url, data=data, headers=h, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            if resp.headers.get("Content-Type") == "text/event-stream":
                return resp.status, resp.headers, None  # a stream opened: only its status matters here
            raw = resp.read()
            return resp.status, resp.headers, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        return e.code, e.headers, json.loads(raw) if raw else None


class Client:
    def __init__(self, url):
        self.url = url
        self.n = 0
        status, headers, body = post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert status == 200 and body["result"]["protocolVersion"] == "2025-06-18", (status, body)
        self.session = headers["Mcp-Session-Id"]
        assert len(self.session) == 32, self.session
        status, _, body = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.session,
                               {"MCP-Protocol-Version": "2025-06-18"})
        assert status == 202 and body is None, (status, body)

    def request(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        status, _, body = post(self.url, msg, self.session, {"MCP-Protocol-Version": "2025-06-18"})
        assert status == 200 and body["id"] == self.n, (status, body)
        return body

    def call(self, name, args):
        res = self.request("tools/call", {"name": name, "arguments": args})["result"]
        return res["content"][0]["text"], res["isError"]


def main():
    r = Reporter()
    srv = Server().start()
    port = free_port()
    url = "http://127.0.0.1:%d/mcp" % port
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([MCP, "--http", "127.0.0.1:%d" % port, "--url", "redis://127.0.0.1:%d" % srv.port],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.time() < deadline and proc.poll() is None, "scratchpad-mcp did not listen"
                time.sleep(0.05)
        a = b = None

        def sessions():
            nonlocal a, b
            a, b = Client(url), Client(url)
            assert a.session != b.session
            text, e = a.call("scratchpad_write", {"name": "plan", "content": "A's plan"})
            assert not e, text
            text, e = b.call("scratchpad_read", {"name": "plan"})
            assert e and "no entry 'plan'" in text, text
            text, e = a.call("scratchpad_read", {"name": "plan"})
            assert not e and text == "A's plan", text
            c = redis.Redis(port=srv.port)
            assert c.execute_command("SP.READ", "mcp:" + a.session, "plan") == b"A's plan"
        r.case("initialize opens a session with an Mcp-Session-Id; two sessions have namespaces of their own",
               sessions)

        def tools_list():
            tools = a.request("tools/list")["result"]["tools"]
            gen = json.loads(subprocess.run([MCP, "--print-tools", "mcp"], capture_output=True, check=True).stdout)
            assert tools == gen
            assert a.request("ping")["result"] == {}
        r.case("tools/list is the generated table; ping answers", tools_list)

        def http_errors():
            msg = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            assert post(url, msg)[0] == 400
            assert post(url, msg, "0" * 32)[0] == 404
            assert post(url, None, a.session, method="GET", headers={"Accept": "application/json"})[0] == 406
            assert post(url, None, "0" * 32, method="GET", headers={"Accept": "text/event-stream"})[0] == 404
            assert post(url, None, a.session, method="PUT")[0] == 405
            assert post(url, msg, a.session, {"Origin": "http://evil.example"})[0] == 403
            assert post(url, msg, a.session, {"Origin": "http://localhost:3000"})[0] == 200
            assert post(url, msg, a.session, {"MCP-Protocol-Version": "1999-01-01"})[0] == 400
            status, _, body = post(url, b"{not json", a.session)
            assert status == 400 and body["error"]["code"] == -32700, body
            assert post(url.replace("/mcp", "/other"), msg, a.session)[0] == 404
            assert a.request("no/such")["error"]["code"] == -32601
            assert a.request("ping")["result"] == {}
        r.case("no session 400, unknown 404, GET without text/event-stream 406, PUT 405, foreign Origin 403, unknown protocol version 400, "
               "unparsable body 400 with -32700, and the session goes on", http_errors)

        def stream():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": a.session})
            resp = conn.getresponse()
            assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream", resp.status
            uri = "scratchpad://mcp%%3A%s/plan" % a.session
            assert a.request("resources/subscribe", {"uri": uri})["result"] == {}
            assert post(url, None, a.session, method="GET", headers={"Accept": "text/event-stream"})[0] == 409
            redis.Redis(port=srv.port).execute_command("SP.APPEND", "mcp:" + a.session, "plan", " changed")
            lines = []
            while not lines or lines[-1] != "":
                line = resp.fp.readline().decode()
                assert line, "the stream ended"
                if line.startswith(("event:", "data:")) or (lines and line.strip() == ""):
                    lines.append(line.rstrip("\r\n"))
            assert lines[0] == "event: message", lines
            note = json.loads(lines[1][len("data: "):])
            assert note == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}
            conn.close()
            deadline = time.time() + 5
            while post(url, None, a.session, method="GET", headers={"Accept": "text/event-stream"},
                       timeout=0.5)[0] != 200:  # the stream is forgotten once its client has gone
                assert time.time() < deadline, "the closed stream was not forgotten"
                time.sleep(0.1)
        r.case("GET opens the session's SSE stream: a subscribed entry's change arrives as "
               "notifications/resources/updated; a second stream is 409 while the first is open", stream)

        def long_calls():
            # A lease held by someone else: session a's call waits for it (wait_ms 20 s).
            c = redis.Redis(port=srv.port)
            c.execute_command("SP.LEASE", "mcp:" + a.session, "plan", "other", 60000)
            results = {}
            feed = c.execute_command("SP.CHANGES", "mcp:" + a.session, "SINCE", 0, "COUNT", 1)
            last = dict(zip(feed[::2], feed[1::2]))[b"last"]

            def waiting_call(key, name, args):
                a.n += 1
                results[key + "_id"] = a.n
                msg = {"jsonrpc": "2.0", "id": a.n, "method": "tools/call", "params": {"name": name, "arguments": args}}
                t0 = time.time()
                results[key] = post(url, msg, a.session, {"MCP-Protocol-Version": "2025-06-18"}, timeout=30)
                results[key + "_s"] = time.time() - t0

            for key, name, args in (("lease", "scratchpad_lease",
                                     {"resource": "plan", "holder": "me", "ttl_ms": 5000, "wait_ms": 20000}),
                                    ("feed", "scratchpad_changes", {"since": last, "wait_ms": 20000})):
                th = threading.Thread(target=waiting_call, args=(key, name, args))
                th.start()
                time.sleep(0.3)
                t0 = time.time()
                other = Client(url)  # a new session, and an existing one, are served meanwhile
                text, e = other.call("scratchpad_write", {"name": "x", "content": "y"})
                assert not e, text
                assert b.request("ping")["result"] == {}
                assert a.request("ping")["result"] == {}  # the waiting session's own ping too
                assert time.time() - t0 < 2, "other sessions were held %.1f s" % (time.time() - t0)
                assert th.is_alive(), ("the call did not wait", key, results)
                status, _, body = post(url, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                             "params": {"requestId": results[key + "_id"], "reason": "test"}},
                                       a.session, {"MCP-Protocol-Version": "2025-06-18"})
                assert status == 202 and body is None, (status, body)
                th.join(10)
                assert not th.is_alive(), "the cancelled call did not end"
                status, headers, body = results[key]
                assert status == 200 and body is None and headers["Content-Type"] == "text/event-stream", results[key]
                assert results[key + "_s"] < 3, results[key + "_s"]
                post(url, None, other.session, method="DELETE")
            for _ in range(2):  # the cancelled call's connection was shut: the next call reconnects
                text, e = a.call("scratchpad_stat", {"name": "plan"})
                if not e:
                    break
            assert not e, text
            assert a.request("ping")["result"] == {}
            # a call that finishes is answered as usual, however long it waited
            c.execute_command("SP.LEASE", "mcp:" + a.session, "plan", "other", 300)
            text, e = a.call("scratchpad_lease", {"resource": "plan", "holder": "me", "ttl_ms": 5000, "wait_ms": 20000})
            assert not e and "token" in text, text
        r.case("a lease call with wait_ms and a blocking read of the change feed hold only their session (a new "
               "session, another one and their own ping are served meanwhile); notifications/cancelled ends each at once "
               "with no JSON-RPC response, and the session goes on", long_calls)

        def delete():
            assert post(url, None, b.session, method="DELETE")[0] == 200
            assert post(url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, b.session)[0] == 404
            assert post(url, None, b.session, method="DELETE")[0] == 404
        r.case("DELETE ends a session: its id is then unknown (404)", delete)

        def restart():
            sport = srv.port
            srv.stop()
            text, e = a.call("scratchpad_read", {"name": "plan"})
            assert e and ("unavailable" in text or "lost" in text), text
            workdir = tempfile.mkdtemp(prefix="sp-mcp-http-")
            again = subprocess.Popen([server_binary(), "--port", str(sport), "--bind", "127.0.0.1"], cwd=workdir,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                c = redis.Redis(port=sport)
                deadline = time.time() + 10
                while True:
                    try:
                        c.ping()
                        break
                    except redis.ConnectionError:
                        assert time.time() < deadline
                        time.sleep(0.05)
                for _ in range(2):  # the first call may still meet the broken connection
                    text, e = a.call("scratchpad_write", {"name": "plan", "content": "again"})
                    if not e:
                        break
                assert not e, text
                assert c.execute_command("SP.READ", "mcp:" + a.session, "plan") == b"again"
            finally:
                os.kill(again.pid, signal.SIGTERM)
                again.wait(10)
                shutil.rmtree(workdir, ignore_errors=True)
        r.case("the scratchpad server stopped underneath: tool errors, then service again once it is back", restart)

        def sigterm():
            os.kill(proc.pid, signal.SIGTERM)
            rc = proc.wait(10)
            err.seek(0)
            assert rc == 0, "exit %d: %s" % (rc, err.read().decode(errors="replace")[-3000:])
        r.case("SIGTERM ends scratchpad-mcp --http with status 0 (under ASan: nothing leaked)", sigterm)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        srv.stop()
    r.finish()


if __name__ == "__main__":
    main()
