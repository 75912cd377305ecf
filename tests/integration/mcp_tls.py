"""mcp_tls.py -- scratchpad-mcp over stdio against a server's tls-port.

`--url rediss://127.0.0.1:<tls-port>/0` with `--cacert`, `--cert`, `--key`
(certificates made by tests/lib/tlscerts.py with openssl; the server requires a
client certificate): a session writes and reads an entry through the tools,
and the entry is seen by a plain client on the plain port. Without the client
certificate, and with a CA that did not sign the server's certificate, the
tools answer an error (isError) instead of data, and the process still exits
cleanly at the end of its input. The server runs on free ports in a temporary
directory and is stopped by its PID.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import redis  # noqa: E402
import spserver  # noqa: E402
import tlscerts  # noqa: E402

MCP = os.path.join(spserver.TOP, os.environ.get("BUILD", "build"), "scratchpad-mcp")


class Session:
    def __init__(self, *args):
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen([MCP] + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                    "clientInfo": {"name": "test", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        while True:
            line = self.p.stdout.readline()
            assert line, "scratchpad-mcp closed stdout"
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                return reply

    def call(self, name, args):
        res = self.request("tools/call", {"name": name, "arguments": args})["result"]
        return res["content"][0]["text"], res["isError"]

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(10)
        self.err.close()
        assert rc == 0, rc


def session_over_tls(c, srv, tp):
    s = Session("--url", "rediss://127.0.0.1:%d/0" % tp, "--namespace", "mcp-tls", "--cacert", c["ca"],
                "--cert", c["client_crt"], "--key", c["client_key"])
    try:
        text, err = s.call("scratchpad_write", {"name": "plan", "content": "over tls\n"})
        assert not err and "version 1" in text, text
        text, err = s.call("scratchpad_read", {"name": "plan"})
        assert not err and "over tls" in text, text
    finally:
        s.close()
    plain = redis.Redis(host="127.0.0.1", port=srv.port, socket_timeout=10)
    assert plain.execute_command("SP.READ", "mcp-tls", "plan") == b"over tls\n"
    plain.close()


def refused(c, srv, tp):
    for extra in (["--cacert", c["ca"]],  # no client certificate
                  ["--cacert", os.path.join(c["dir"], "rogueca.crt"), "--cert", c["client_crt"], "--key",
                   c["client_key"]]):  # the server's certificate is not the rogue CA's
        s = Session("--url", "rediss://127.0.0.1:%d/0" % tp, "--namespace", "mcp-tls", *extra)
        try:
            text, err = s.call("scratchpad_read", {"name": "plan"})
            assert err and "over tls" not in text, (extra, text)
        finally:
            s.close()


def main():
    rep = spserver.Reporter()
    certdir = tempfile.mkdtemp(prefix="sp-mcp-tls-")
    try:
        c = tlscerts.make_certs(certdir)
        tp = spserver.free_port()
        with spserver.Server(*tlscerts.server_args(c, tp)) as srv:
            rep.case("scratchpad-mcp --url rediss:// with --cacert, --cert and --key writes and reads through the "
                     "tools over TLS", session_over_tls, c, srv, tp)
            rep.case("without a client certificate, or trusting another CA, the tools answer an error and the "
                     "process ends cleanly", refused, c, srv, tp)
    finally:
        shutil.rmtree(certdir, ignore_errors=True)
    rep.finish()


if __name__ == "__main__":
    main()
