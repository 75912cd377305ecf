"""resp_wire.py -- RESP on the wire for the tests' own tools: encode a request,
parse one RESP2/RESP3 reply from a buffer, and a connection that sends raw
bytes and reads whole replies (their exact bytes and their parsed form).

Shared by tests/tools/compare_servers.py (Scratchpad against Scratchpad) and
tests/lib/difftest.py (Scratchpad against redis-server): both compare replies
byte for byte, so they must read them the same way.
"""
import socket
import time


def encode(args):
    """RESP array of bulk strings for args (bytes)."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Incomplete(Exception):
    pass


def parse(buf, i):
    """One RESP2/RESP3 reply at buf[i:]: (node, next index); raises Incomplete.
    A node is (type char, bytes | None | [nodes]); maps and attributes hold
    their keys and values flat."""
    j = buf.find(b"\r\n", i)
    if j < 0:
        raise Incomplete()
    t = chr(buf[i])
    line = bytes(buf[i + 1:j])
    i = j + 2
    if t in "+-:_,#(":
        return (t, line), i
    if t in "$=!":
        n = int(line)
        if n < 0:
            return (t, None), i
        if len(buf) < i + n + 2:
            raise Incomplete()
        return (t, bytes(buf[i:i + n])), i + n + 2
    if t in "*~>%|":
        n = int(line)
        if n < 0:
            return (t, None), i
        if t in "%|":
            n *= 2
        items = []
        for _ in range(n):
            node, i = parse(buf, i)
            items.append(node)
        if t == "|":
            node, i = parse(buf, i)
            items.append(node)
        return (t, items), i
    raise ValueError("not a RESP reply type: %r" % t)


class Conn:
    """One connection to one server: raw bytes out, whole replies in."""

    def __init__(self, port, read_timeout=15.0):
        self.read_timeout = read_timeout
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
        self.buf = bytearray()
        self.closed = False
        self.id = None
        self.addr = "%s:%d" % self.sock.getsockname()

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True

    def read_reply(self):
        """(raw bytes, node); ("EOF", leftover) if the server closed, ("TIMEOUT",
        leftover) if nothing complete came within read_timeout."""
        deadline = time.monotonic() + self.read_timeout
        while True:
            if self.buf:
                try:
                    node, end = parse(self.buf, 0)
                    raw = bytes(self.buf[:end])
                    del self.buf[:end]
                    return raw, node
                except Incomplete:
                    pass
            left = deadline - time.monotonic()
            if left <= 0:
                rest = bytes(self.buf)
                self.buf.clear()
                return b"<timeout>" + rest, ("TIMEOUT", rest)
            try:
                self.sock.settimeout(left)
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                rest = bytes(self.buf)
                self.buf.clear()
                return b"<closed>" + rest, ("EOF", rest)
            self.buf += chunk

    def read_to_eof(self, timeout=3.0):
        """What comes until the server closes (the node says if it did)."""
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            try:
                self.sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                break
            self.buf += chunk
        rest = bytes(self.buf)
        self.buf.clear()
        return rest, ("EOF" if self.closed else "OPEN", rest)

    def call(self, *args):
        self.send(encode([a if isinstance(a, bytes) else str(a).encode() for a in args]))
        return self.read_reply()[1]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed = True


# ---------------------------------------------------------------- the stream
