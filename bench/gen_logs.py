#!/usr/bin/env python3
"""gen_logs.py -- deterministic, log-like text for the scratchpad benchmarks.

Why: the memory and window-read targets of the SP.* commands are stated for
"log-like text", and how well a corpus compresses decides the memory figure.
redis-benchmark's values (one byte repeated) compress absurdly well; random
bytes not at all. Real service logs sit in between: a timestamp that moves a
little each line, a handful of levels and services, a few hundred message
templates, and in each line some high-entropy fields (request ids, trace ids,
session ids, durations) next to low-entropy ones (user ids from a skewed
population, a few dozen paths, status codes), with the occasional multi-line
stack trace. That is what this generator writes; it aims for realism, not for
the best possible compression ratio.

Determinism: the output depends only on the arguments (seed, sizes, names).
Each entry of a corpus is generated from its own seed (seed * 1000003 + index),
so entry i is the same whether one entry or a thousand are generated, and the
same bytes go to every server. Output is ASCII only, so a text entry's
character offsets equal its byte offsets (SP.RANGE and GETRANGE address the
same bytes).

Usage:
  gen_logs.py text SIZE [--seed S]
      SIZE bytes of log text on standard output (the last line is cut to fit).
  gen_logs.py load MODE COUNT SIZE [--seed S] [--ns a,b,c] [--name FMT]
                [--vary F] [--out-sp FILE] [--out-set FILE]
      A RESP stream for `redis-cli --pipe`: COUNT entries of SIZE bytes each,
      or, with --vary F (0 <= F < 1), of a size drawn for each entry between
      SIZE * (1 - F) and SIZE * (1 + F) (tool outputs and logs come in all
      sizes; one fixed size would also land every value at the same spot of an
      allocator's size classes, which favours or penalises a server by luck).
      MODE sp   -> SP.WRITE <ns> <name> <content>   (standard output)
      MODE set  -> SET <ns>:<name> <content>        (standard output)
      MODE both -> both streams at once, the same bytes, appended to the files
                   given by --out-sp and --out-set (generated once: the corpus
                   is the costly part); prints the total content bytes.
      Entry i goes to namespace ns[i % len(ns)] under the name FMT % i (FMT
      without '%' is used as it is; default "log-%04d"; default ns "ns").
  gen_logs.py reads MODE COUNT LENGTH [--window W] [--fixed O] [--seed S]
                 [--ns NS] [--name NAME]
      A RESP stream of COUNT reads of W bytes (default 2048) from a value of
      LENGTH bytes, at offsets drawn uniformly from [0, LENGTH - W] (or all at
      offset O with --fixed), to be written to one connection (rb_pipe in
      sp-vs-redis.sh; redis-cli --pipe works too, but its own reply parsing
      is the bottleneck with 2 KB replies): redis-benchmark cannot vary an
      integer argument (its __rand_int__ is zero-padded, which both servers
      refuse as an integer).
      MODE sp  -> SP.READ <ns> <name> OFFSET o LIMIT W
      MODE set -> GETRANGE <ns>:<name> o o+W-1
  gen_logs.py stats SIZE [--seed S]
      Lines, bytes and distinct-line share of SIZE bytes, for a quick look.
SIZE accepts k, m suffixes (binary: 1m = 1048576).
"""

import random
import sys

LEVELS = ["INFO"] * 70 + ["DEBUG"] * 18 + ["WARN"] * 8 + ["ERROR"] * 4
SERVICES = ["api-gateway", "auth-svc", "order-svc", "payment-svc", "inventory", "search-svc",
            "notifier", "worker-1", "worker-2", "worker-3", "scheduler", "cache-proxy"]
METHODS = ["GET"] * 6 + ["POST"] * 3 + ["PUT", "DELETE"]
ROUTES = ["/v1/users/{u}", "/v1/users/{u}/orders", "/v1/orders/{o}", "/v1/orders/{o}/items",
          "/v1/cart/{u}", "/v1/search", "/v1/products/{p}", "/v1/products/{p}/reviews",
          "/v2/checkout", "/v2/payments/{o}", "/healthz", "/metrics", "/v1/auth/token",
          "/v1/inventory/{p}/stock", "/v1/notifications/{u}", "/static/js/app.{h}.js"]
STATUS = [200] * 80 + [201] * 5 + [204] * 3 + [304] * 4 + [400, 401, 403, 404, 404, 409, 429, 500, 502, 503]
TABLES = ["orders", "users", "order_items", "payments", "products", "inventory", "sessions"]
JAVA = ["com.example.orders.OrderService", "com.example.orders.OrderRepository",
        "com.example.payments.StripeClient", "com.example.http.RetryingClient",
        "org.springframework.web.servlet.FrameworkServlet", "org.hibernate.engine.jdbc.spi.SqlExceptionHelper",
        "java.base/java.util.concurrent.ThreadPoolExecutor", "io.netty.channel.nio.NioEventLoop"]
EXC = ["java.net.SocketTimeoutException: Read timed out",
       "org.postgresql.util.PSQLException: ERROR: deadlock detected",
       "java.lang.IllegalStateException: order {o} already settled",
       "java.io.IOException: Connection reset by peer"]
HOSTS = ["db-primary.internal:5432", "db-replica-2.internal:5432", "redis-cache.internal:6379",
         "api.stripe.com:443", "search-0.internal:9200", "kafka-1.internal:9092"]


def parse_size(s):
    s = s.strip().lower()
    mult = 1
    if s.endswith("k"):
        mult, s = 1024, s[:-1]
    elif s.endswith("m"):
        mult, s = 1024 * 1024, s[:-1]
    elif s.endswith("g"):
        mult, s = 1024 * 1024 * 1024, s[:-1]
    return int(s) * mult


class LogStream:
    """An endless, deterministic sequence of log lines from one seed."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        r = self.r
        # A session starts at some time in 2024 and moves forward a few ms a line.
        self.t = 1704067200000 + r.randrange(360 * 86400) * 1000
        self.ips = ["10.%d.%d.%d" % (r.randrange(8), r.randrange(32), r.randrange(256)) for _ in range(40)]
        self.pods = ["%s-%s-%05x" % (s, "%08x" % r.getrandbits(32), r.getrandbits(20)) for s in SERVICES]
        self.job = r.randrange(100000, 900000)
        self.gen = r.randrange(1, 50)

    def _user(self):
        # A skewed population: some users are far more active than others.
        return 1000 + int(self.r.paretovariate(1.2) * 37) % 90000

    def _ts(self):
        self.t += int(self.r.expovariate(1 / 6.0))
        t = self.t
        secs, ms = divmod(t, 1000)
        days, secs = divmod(secs, 86400)
        # Days since 2024-01-01 to month/day, without datetime (speed); a 360-day year
        # of 30-day months is good enough for text that only has to look like a log.
        day0 = days - 19723
        month, day = divmod(day0 % 360, 30)
        h, rem = divmod(secs, 3600)
        m, s = divmod(rem, 60)
        return "2024-%02d-%02dT%02d:%02d:%02d.%03dZ" % (month + 1, day + 1, h, m, s, ms)

    def _route(self):
        r = self.r
        route = r.choice(ROUTES)
        return route.replace("{u}", str(self._user())).replace("{o}", str(r.randrange(10**6, 10**7))) \
            .replace("{p}", "sku-%05d" % int(r.paretovariate(1.1) * 11 % 20000)).replace("{h}", "%08x" % self.gen)

    def lines(self):
        """Generator of log lines (each ends with '\\n')."""
        r = self.r
        while True:
            lvl = r.choice(LEVELS)
            svc_i = r.randrange(len(SERVICES))
            svc = SERVICES[svc_i]
            head = "%s %-5s [%s] %s " % (self._ts(), lvl, svc, self.pods[svc_i])
            req = "%016x" % r.getrandbits(64)
            k = r.random()
            if lvl == "ERROR" and k < 0.5:
                o = r.randrange(10**6, 10**7)
                yield head + "req=%s unhandled exception in %s: %s\n" % (
                    req, r.choice(JAVA), r.choice(EXC).replace("{o}", str(o)))
                frames = r.sample(JAVA, r.randrange(3, 7))
                for f in frames:
                    meth = r.choice(["handle", "process", "execute", "call", "doFilter", "run", "invoke"])
                    yield "    at %s.%s(%s.java:%d)\n" % (f, meth, f.rsplit(".", 1)[1], r.randrange(40, 900))
                yield "    ... %d more\n" % r.randrange(8, 60)
            elif k < 0.45:
                st = r.choice(STATUS)
                dur = int(r.lognormvariate(3.0, 1.0))
                yield head + "req=%s %s %s status=%d dur_ms=%d bytes=%d ip=%s ua=\"%s\"\n" % (
                    req, r.choice(METHODS), self._route(), st, dur, r.randrange(120, 48000),
                    r.choice(self.ips), r.choice(["okhttp/4.12.0", "Mozilla/5.0", "python-requests/2.31.0",
                                                    "curl/8.5.0", "Go-http-client/2.0"]))
            elif k < 0.60:
                t = r.choice(TABLES)
                yield head + "req=%s sql=\"SELECT id, status, updated_at FROM %s WHERE user_id = $1 " \
                    "ORDER BY updated_at DESC LIMIT %d\" rows=%d took=%.1fms\n" % (
                        req, t, r.choice([10, 20, 50, 100]), r.randrange(0, 100), r.lognormvariate(1.0, 0.8))
            elif k < 0.70:
                u = self._user()
                yield head + "cache %s key=user:%d:%s ttl=%d\n" % (
                    r.choice(["hit", "hit", "hit", "miss"]), u, r.choice(["profile", "cart", "prefs", "orders"]),
                    r.choice([60, 300, 900, 3600]))
            elif k < 0.78:
                self.job += r.randrange(1, 4)
                yield head + "job %d %s queue=%s attempt=%d/5 elapsed=%dms\n" % (
                    self.job, r.choice(["started", "completed", "completed", "retrying"]),
                    r.choice(["emails", "invoices", "thumbnails", "reindex"]), r.randrange(1, 4),
                    r.randrange(2, 9000))
            elif k < 0.84:
                yield head + "upstream %s latency p50=%.1fms p99=%.1fms pool=%d/%d\n" % (
                    r.choice(HOSTS), r.lognormvariate(1.5, 0.4), r.lognormvariate(3.0, 0.6),
                    r.randrange(0, 64), 64)
            elif k < 0.89:
                yield head + "reading /var/data/%s/%s/part-%05d.parquet (%d rows, %d bytes)\n" % (
                    r.choice(["events", "orders", "clicks"]), self._ts()[:10], r.randrange(0, 200),
                    r.randrange(1000, 500000), r.randrange(10**5, 10**8))
            elif k < 0.93:
                yield head + "GC pause (G1 Evacuation Pause) young %dM->%dM(%dM) %.3fms\n" % (
                    r.randrange(400, 900), r.randrange(100, 400), 2048, r.lognormvariate(2.0, 0.5))
            elif k < 0.97:
                yield head + "user %d action=%s session=%s trace_id=%032x\n" % (
                    self._user(), r.choice(["login", "logout", "add_to_cart", "checkout", "view_item"]),
                    "%012x" % r.getrandbits(48), r.getrandbits(128))
            else:
                yield head + "config reloaded from /etc/%s/config.yaml: %d keys, %d changed\n" % (
                    svc, r.randrange(40, 200), r.randrange(0, 5))


def text(size, seed):
    """Exactly size bytes of log text (bytes, ASCII)."""
    parts = []
    n = 0
    for line in LogStream(seed).lines():
        parts.append(line)
        n += len(line)
        if n >= size:
            break
    return "".join(parts).encode("ascii")[:size]


def entry_seed(seed, i):
    return seed * 1000003 + i


def bulk(b):
    return b"$%d\r\n%s\r\n" % (len(b), b)


def cmd_load(args, seed, opts):
    mode, count, size = args[0], int(args[1]), parse_size(args[2])
    if mode not in ("sp", "set", "both"):
        sys.exit("gen_logs: MODE is sp, set or both")
    nss = opts.get("ns", "ns").split(",")
    fmt = opts.get("name", "log-%04d")
    vary = float(opts.get("vary", "0"))
    if not 0 <= vary < 1:
        sys.exit("gen_logs: --vary is in [0, 1)")
    total = 0
    if mode == "both":
        if "out-sp" not in opts or "out-set" not in opts:
            sys.exit("gen_logs: MODE both needs --out-sp FILE and --out-set FILE")
        out_sp = open(opts["out-sp"], "ab")
        out_set = open(opts["out-set"], "ab")
    else:
        out_sp = out_set = sys.stdout.buffer
    for i in range(count):
        ns = nss[i % len(nss)].encode()
        name = (fmt % i if "%" in fmt else fmt).encode()
        n = size
        if vary:
            n = int(size * (1 - vary + 2 * vary * random.Random(entry_seed(seed, i) ^ 0x5A5A).random()))
        content = text(n, entry_seed(seed, i))
        total += len(content)
        if mode in ("sp", "both"):
            out_sp.write(b"*4\r\n" + bulk(b"SP.WRITE") + bulk(ns) + bulk(name) + bulk(content))
        if mode in ("set", "both"):
            out_set.write(b"*3\r\n" + bulk(b"SET") + bulk(ns + b":" + name) + bulk(content))
    out_sp.flush()
    out_set.flush()
    if mode == "both":
        print(total)


def cmd_reads(args, seed, opts):
    mode, count, length = args[0], int(args[1]), parse_size(args[2])
    if mode not in ("sp", "set"):
        sys.exit("gen_logs: MODE is sp or set")
    w = parse_size(opts.get("window", "2048"))
    if w > length:
        sys.exit("gen_logs: the window is longer than the value")
    ns = opts.get("ns", "ns").encode()
    name = opts.get("name", "big").encode()
    fixed = int(opts["fixed"]) if "fixed" in opts else None
    r = random.Random(entry_seed(seed, 0))
    out = sys.stdout.buffer
    buf = []
    for _ in range(count):
        o = fixed if fixed is not None else r.randrange(length - w + 1)
        if mode == "sp":
            buf.append(b"*7\r\n" + bulk(b"SP.READ") + bulk(ns) + bulk(name) + bulk(b"OFFSET") +
                       bulk(b"%d" % o) + bulk(b"LIMIT") + bulk(b"%d" % w))
        else:
            buf.append(b"*4\r\n" + bulk(b"GETRANGE") + bulk(ns + b":" + name) + bulk(b"%d" % o) +
                       bulk(b"%d" % (o + w - 1)))
        if len(buf) >= 4096:
            out.write(b"".join(buf))
            buf = []
    out.write(b"".join(buf))
    out.flush()


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    seed = 1
    opts = {}
    args = []
    i = 2
    while i < len(argv):
        a = argv[i]
        if a in ("--seed", "--ns", "--name", "--vary", "--out-sp", "--out-set", "--window", "--fixed") and i + 1 < len(argv):
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        args.append(a)
        i += 1
    if "seed" in opts:
        seed = int(opts["seed"])
    cmd = argv[1]
    if cmd == "text" and len(args) == 1:
        sys.stdout.buffer.write(text(parse_size(args[0]), entry_seed(seed, 0)))
    elif cmd == "load" and len(args) == 3:
        cmd_load(args, seed, opts)
    elif cmd == "reads" and len(args) == 3:
        cmd_reads(args, seed, opts)
    elif cmd == "stats" and len(args) == 1:
        lines = text(parse_size(args[0]), entry_seed(seed, 0)).split(b"\n")
        print("bytes %d, lines %d, distinct lines %.1f%%" % (
            sum(len(x) + 1 for x in lines) - 1, len(lines), 100.0 * len(set(lines)) / max(1, len(lines))))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
