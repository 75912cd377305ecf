/* bad_input.c -- the fault test of the protocol: malformed, oversized, random,
 * truncated and never-read input thrown at a real server over raw sockets.
 *
 * Every protocol error must be answered with Redis 7.0's exact reply ("-ERR
 * Protocol error: ...") and the connection closed; nothing sent after the bad
 * bytes may run. Throughout, a long-lived client connected at the start keeps
 * getting correct answers, and at the end the server is alive, its log shows
 * no crash, and it exits with status 0 on SIGTERM.
 *
 * Three servers: the default configuration; --proto-max-bulk-len 1mb (a 2 MB
 * bulk is refused by its length); --client-query-buffer-limit 1mb with
 * --proto-max-bulk-len 2mb (a 2 MB bulk is accepted by its length but
 * overflows the query buffer, and the client is closed without a reply). */
#include "itest.h"

static it_server server;
static int port;
static it_conn longlived;

/* Send n bytes on a new connection and expect exactly the reply lines of want
 * (each without its CRLF, the list ended by NULL); then, if closes, the server
 * closing the connection with nothing more, else the connection staying open
 * and silent. Sending may fail once the server has closed: not an error here. */
static void expect_lines(const char *what, const char *bytes, size_t n, const char *const *want, int closes)
{
    char line[1024];
    int fd = it_connect(port), i;

    if (fd < 0) {
        CHECKF(0, "%s: cannot connect", what);
        return;
    }
    it_send_all_timeout(fd, bytes, n, 5000);
    for (i = 0; want[i]; i++) {
        ssize_t l = it_read_line(fd, line, sizeof(line), 5000);
        CHECKF(l >= 0 && strcmp(line, want[i]) == 0, "%s: expected \"%s\", got %s\"%s\"", what, want[i],
               l < 0 ? "nothing " : "", l < 0 ? "" : line);
    }
    if (closes) {
        size_t extra = 0;
        char rest[256];
        int closed = it_read_until_close(fd, rest, sizeof(rest), &extra, 5000);
        CHECKF(closed, "%s: the connection stayed open", what);
        CHECKF(extra == 0, "%s: %zu more bytes after the error: %s", what, extra, rest);
    } else {
        CHECKF(!it_wait_readable(fd, 200), "%s: unexpected bytes or close", what);
    }
    close(fd);
}

static void expect_error(const char *what, const char *bytes, size_t n, const char *err)
{
    const char *want[] = {err, NULL};
    expect_lines(what, bytes, n, want, 1);
}

/* The long-lived client still answers correctly. */
static int longlived_ok(void)
{
    it_reply *r = it_conn_cmd(&longlived, "GET bad:longlived");
    int ok = it_reply_is(r, '$', "still here");
    it_reply_free(r);
    r = it_conn_cmd(&longlived, "PING");
    ok = ok && it_reply_is(r, '+', "PONG");
    it_reply_free(r);
    return ok;
}

/* GET key through the long-lived client: 1 if the key is missing. */
static int key_missing(const char *key)
{
    char cmd[256];
    it_reply *r;
    int missing;
    snprintf(cmd, sizeof(cmd), "GET %s", key);
    r = it_conn_cmd(&longlived, cmd);
    missing = r && r->type == '$' && r->is_null;
    it_reply_free(r);
    return missing;
}

/* A SET that must never run: appended after bad bytes. */
#define LEAK "*3\r\n$3\r\nSET\r\n$8\r\nbad:leak\r\n$1\r\n1\r\n"

static void test_bad_multibulk(void)
{
    static const struct {
        const char *bytes, *err;
    } cases[] = {
        {"*abc\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*99999999999999999999\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*+1\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*01\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*1 \r\n", "-ERR Protocol error: invalid multibulk length"},
        {"* 1\r\n", "-ERR Protocol error: invalid multibulk length"},
        {"*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$-0\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$abc\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$ \r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$04\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$+4\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$4 \r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$99999999999\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\n$536870913\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*2\r\n$3\r\nGET\r\n$9223372036854775807\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*2\r\n$3\r\nGET\r\n$9223372036854775808\r\n", "-ERR Protocol error: invalid bulk length"},
        {"*1\r\nPING\r\n", "-ERR Protocol error: expected '$', got 'P'"},
        {"*2\r\n$4\r\nECHO\r\n:5\r\n", "-ERR Protocol error: expected '$', got ':'"},
        {"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n*1\r\n", "-ERR Protocol error: expected '$', got '*'"},
        {"*1\r\n\r\n", "-ERR Protocol error: expected '$', got ' '"},
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[256];
        int n = snprintf(buf, sizeof(buf), "%s%s", cases[i].bytes, LEAK);
        expect_error(cases[i].bytes, buf, (size_t)n, cases[i].err);
    }
    CHECK(key_missing("bad:leak"));
    CHECK(longlived_ok());
}

static void test_bulk_without_crlf(void)
{
    /* Redis 7.0 skips the two bytes after a bulk's data unchecked (and would
     * answer +PONG here); Scratchpad refuses them (see server/net/resp.c). */
    static const char bytes[] = "*1\r\n$4\r\nPINGxx*3\r\n$3\r\nSET\r\n$9\r\nbad:leak2\r\n$1\r\n1\r\n";
    expect_error("bulk data without CRLF", bytes, sizeof(bytes) - 1,
                 "-ERR Protocol error: expected '\\r\\n' after bulk data");
    CHECK(key_missing("bad:leak2"));
}

static void test_errors_after_good_commands(void)
{
    static const char a[] = "PING\r\n*abc\r\n" LEAK;
    static const char b[] = "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n*1\r\n$x\r\n" LEAK;
    const char *wa[] = {"+PONG", "-ERR Protocol error: invalid multibulk length", NULL};
    const char *wb[] = {"+PONG", "$2", "hi", "-ERR Protocol error: invalid bulk length", NULL};
    expect_lines("good then bad (inline)", a, sizeof(a) - 1, wa, 1);
    expect_lines("good then bad (multibulk)", b, sizeof(b) - 1, wb, 1);
    CHECK(key_missing("bad:leak"));
}

static void test_empty_requests(void)
{
    static const char a[] = "*0\r\n*-1\r\n*-5\r\n\r\n\n  \r\n*1\r\n$4\r\nPING\r\n";
    static const char b[] = "*1\r\n$0\r\n\r\n";
    const char *wa[] = {"+PONG", NULL};
    const char *wb[] = {"-ERR unknown command '', with args beginning with: ", NULL};
    expect_lines("empty requests", a, sizeof(a) - 1, wa, 0);
    expect_lines("an empty command name", b, sizeof(b) - 1, wb, 0);
}

static void test_unbalanced_quotes(void)
{
    expect_error("double quote", "SET bad:q \"abc\r\n" LEAK, strlen("SET bad:q \"abc\r\n" LEAK),
                 "-ERR Protocol error: unbalanced quotes in request");
    expect_error("single quote", "SET bad:q 'abc\r\n" LEAK, strlen("SET bad:q 'abc\r\n" LEAK),
                 "-ERR Protocol error: unbalanced quotes in request");
    expect_error("text after a closing quote", "ECHO \"a\"b\r\n" LEAK, strlen("ECHO \"a\"b\r\n" LEAK),
                 "-ERR Protocol error: unbalanced quotes in request");
    CHECK(key_missing("bad:q"));
    CHECK(key_missing("bad:leak"));
}

static void test_inline_arguments(void)
{
    static const char a[] = "ECHO hello\r\n";
    static const char b[] = "SET bad:inline \"hello world\"\r\nGET bad:inline\r\n";
    static const char c[] = "ECHO \"\\x41\\x42\\n\" 'it\\'s'\r\n";
    static const char d[] = "ECHO \"\\x41\\x42\"\r\nECHO 'it\\'s'\r\nECHO \"\"\r\n";
    static const char e[] = "SET\tbad:tab   v1\r\nMGET bad:tab bad:inline\n";
    const char *wa[] = {"$5", "hello", NULL};
    const char *wb[] = {"+OK", "$11", "hello world", NULL};
    const char *wc[] = {"-ERR wrong number of arguments for 'echo' command", NULL};
    const char *wd[] = {"$2", "AB", "$4", "it's", "$0", "", NULL};
    const char *we[] = {"+OK", "*2", "$2", "v1", "$11", "hello world", NULL};
    expect_lines("an inline command with one argument", a, sizeof(a) - 1, wa, 0);
    expect_lines("an inline SET with a quoted value", b, sizeof(b) - 1, wb, 0);
    expect_lines("an inline ECHO with two quoted arguments", c, sizeof(c) - 1, wc, 0);
    expect_lines("inline escapes", d, sizeof(d) - 1, wd, 0);
    expect_lines("inline tabs and spaces", e, sizeof(e) - 1, we, 0);
}

static void test_oversized_lines(void)
{
    size_t n = 70 * 1024;
    char *buf = malloc(n + 16);

    memset(buf, 'A', n);
    expect_error("a 70 KB inline line", buf, n, "-ERR Protocol error: too big inline request");
    buf[0] = '*';
    memset(buf + 1, '1', n - 1);
    expect_error("a 70 KB count", buf, n, "-ERR Protocol error: too big mbulk count string");
    memcpy(buf, "*1\r\n$", 5);
    memset(buf + 5, '1', n - 5);
    expect_error("a 70 KB bulk length", buf, n, "-ERR Protocol error: too big bulk count string");
    /* A long line that fits is fine: ECHO of 60 KB inline. */
    {
        size_t arg = 60 * 1024, len;
        char hdr[32], line[64];
        int fd = it_connect(port);
        memcpy(buf, "ECHO ", 5);
        memset(buf + 5, 'e', arg);
        memcpy(buf + 5 + arg, "\r\n", 2);
        len = 5 + arg + 2;
        snprintf(hdr, sizeof(hdr), "$%zu", arg);
        CHECK(fd >= 0 && it_send_all(fd, buf, len) == 0);
        CHECK(fd >= 0 && it_read_line(fd, line, sizeof(line), 5000) >= 0 && strcmp(line, hdr) == 0);
        if (fd >= 0)
            close(fd);
    }
    free(buf);
    CHECK(longlived_ok());
}

static void test_split_requests(void)
{
    static const char req[] = "*3\r\n$3\r\nSET\r\n$9\r\nbad:split\r\n$5\r\nvalue\r\n";
    char line[64];
    size_t i;
    int fd = it_connect(port);

    CHECK(fd >= 0);
    for (i = 0; fd >= 0 && i < sizeof(req) - 1; i++) {
        CHECK(send(fd, req + i, 1, MSG_NOSIGNAL) == 1);
        if (i % 8 == 0)
            it_sleep_ms(1);
    }
    CHECK(fd >= 0 && it_read_line(fd, line, sizeof(line), 5000) >= 0 && strcmp(line, "+OK") == 0);
    if (fd >= 0)
        close(fd);
}

static void test_truncated_then_closed(void)
{
    static const char req[] = "*3\r\n$3\r\nSET\r\n$9\r\nbad:trunc\r\n$5\r\nhello\r\n";
    size_t cut;
    for (cut = 1; cut < sizeof(req) - 1; cut++) {
        int fd = it_connect(port);
        CHECK(fd >= 0);
        if (fd < 0)
            continue;
        CHECK(it_send_all(fd, req, cut) == 0);
        if (cut % 2)
            it_close_rst(fd);
        else
            close(fd);
    }
    it_sleep_ms(100);
    CHECK(key_missing("bad:trunc"));
    CHECK(longlived_ok());
}

static void test_connect_close(void)
{
    int i, failed = 0;
    for (i = 0; i < 1000; i++) {
        int fd = it_connect(port);
        if (fd < 0) {
            failed++;
            continue;
        }
        if (i % 2)
            it_close_rst(fd);
        else
            close(fd);
    }
    CHECKF(failed == 0, "%d connections refused", failed);
    CHECK(longlived_ok());
}

/* ---- random bytes ---- */

static uint64_t rng_state = 0x5eed5eed5eedULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Fill buf with one fuzz input of at most cap bytes; returns its length. */
static size_t fuzz_input(char *buf, size_t cap)
{
    static const char *const tokens[] = {
        "*", "$", "\r\n", "\r", "\n", "-1", "0", "1", "2", "3", "10", "99999999999", "-", "+", ":",
        "PING", "SET", "GET", "ECHO", "INCR", "\"", "'", " ", "\\x4", "\\", "fz:k", "\t", "*2\r\n",
        "$3\r\n", "$4\r\n", "536870912",
    };
    static const char *const bases[] = {
        "*3\r\n$3\r\nSET\r\n$4\r\nfz:k\r\n$5\r\nvalue\r\n",
        "*2\r\n$3\r\nGET\r\n$4\r\nfz:k\r\n",
        "*2\r\n$4\r\nECHO\r\n$10\r\n0123456789\r\n",
        "*2\r\n$4\r\nINCR\r\n$4\r\nfz:n\r\n",
        "*3\r\n$6\r\nAPPEND\r\n$4\r\nfz:a\r\n$3\r\nabc\r\n",
        "*4\r\n$8\r\nGETRANGE\r\n$4\r\nfz:k\r\n$1\r\n0\r\n$1\r\n3\r\n",
        "SET fz:i \"a b\\x41\" \r\n",
        "ECHO 'x y' z\r\n",
    };
    size_t n = 0, k, i;

    switch (rnd() % 4) {
    case 0: /* random bytes */
        n = 1 + rnd() % 200;
        for (i = 0; i < n; i++)
            buf[i] = (char)rnd();
        break;
    case 1: /* random protocol tokens */
        k = 1 + rnd() % 30;
        for (i = 0; i < k; i++) {
            const char *t = tokens[rnd() % (sizeof(tokens) / sizeof(tokens[0]))];
            size_t l = strlen(t);
            if (n + l > cap)
                break;
            memcpy(buf + n, t, l);
            n += l;
        }
        break;
    default: /* a valid request with flipped bytes, maybe cut short */
        {
            const char *b = bases[rnd() % (sizeof(bases) / sizeof(bases[0]))];
            n = strlen(b);
            memcpy(buf, b, n);
            k = 1 + rnd() % 3;
            for (i = 0; i < k; i++)
                buf[rnd() % n] = (char)rnd();
            if (rnd() % 3 == 0)
                n = 1 + rnd() % n;
        }
        break;
    }
    return n ? n : 1;
}

static void test_random_bytes(void)
{
    char buf[1024];
    int i, hung = 0, refused = 0, checks_failed = 0;

    for (i = 0; i < 10000; i++) {
        size_t n = fuzz_input(buf, sizeof(buf));
        int fd = it_connect(port);
        if (fd < 0) {
            refused++;
            continue;
        }
        it_send_all_timeout(fd, buf, n, 2000);
        shutdown(fd, SHUT_WR);
        /* The server must close once it has read our end of stream. */
        if (!it_read_until_close(fd, NULL, 0, NULL, 5000))
            hung++;
        it_close_rst(fd);
        if (i % 500 == 499 && (!longlived_ok() || !it_server_alive(&server)))
            checks_failed++;
        if (!it_server_alive(&server))
            break;
    }
    CHECKF(i == 10000, "stopped after %d inputs: the server died", i);
    CHECKF(refused == 0, "%d connections refused", refused);
    CHECKF(hung == 0, "%d connections left open after the client's end of stream", hung);
    CHECKF(checks_failed == 0, "%d periodic checks failed", checks_failed);
    CHECK(longlived_ok());
}

/* ---- a huge pipeline that is never read ---- */

static void test_unread_pipeline(void)
{
    static const char ping[] = "*1\r\n$4\r\nPING\r\n";
    size_t count = 1000000, chunk = 10000, i, sent = 0;
    char *buf = malloc(chunk * (sizeof(ping) - 1));
    int fd = it_connect(port);
    int64_t start, worst = 0;

    CHECK(fd >= 0);
    for (i = 0; i < chunk; i++)
        memcpy(buf + i * (sizeof(ping) - 1), ping, sizeof(ping) - 1);
    for (i = 0; fd >= 0 && i < count / chunk; i++) {
        if (it_send_all_timeout(fd, buf, chunk * (sizeof(ping) - 1), 30000) < 0)
            break;
        sent += chunk;
        if (i % 20 == 0) {
            int64_t t0 = it_now_ms();
            CHECK(longlived_ok());
            if (it_now_ms() - t0 > worst)
                worst = it_now_ms() - t0;
        }
    }
    CHECKF(sent == count, "only %zu of %zu requests could be sent: the server stopped reading", sent, count);
    start = it_now_ms();
    CHECK(longlived_ok());
    CHECKF(worst < 2000 && it_now_ms() - start < 2000, "the other client waited %lld ms", (long long)worst);
    if (fd >= 0)
        it_close_rst(fd);
    free(buf);
    CHECK(longlived_ok());
}

/* ---- limits from the configuration ---- */

static void test_proto_max_bulk_len(void)
{
    static const char req[] = "*3\r\n$3\r\nSET\r\n$7\r\nbad:big\r\n$2097152\r\n";
    static const char ok_req[] = "*3\r\n$3\r\nSET\r\n$7\r\nbad:big\r\n$1048576\r\n";
    size_t n = 1048576;
    char *val = malloc(n + 2), line[64];
    int fd;

    expect_error("a 2 MB bulk over proto-max-bulk-len 1mb", req, sizeof(req) - 1,
                 "-ERR Protocol error: invalid bulk length");
    /* Exactly the limit is accepted. */
    memset(val, 'b', n);
    memcpy(val + n, "\r\n", 2);
    fd = it_connect(port);
    CHECK(fd >= 0 && it_send_all(fd, ok_req, sizeof(ok_req) - 1) == 0 && it_send_all(fd, val, n + 2) == 0);
    CHECK(fd >= 0 && it_read_line(fd, line, sizeof(line), 5000) >= 0 && strcmp(line, "+OK") == 0);
    if (fd >= 0)
        close(fd);
    free(val);
}

static void test_query_buffer_limit(void)
{
    static const char req[] = "*3\r\n$3\r\nSET\r\n$7\r\nbad:qbl\r\n$2097152\r\n";
    size_t n = 2097152, got = 0;
    char *val = malloc(n + 2), first[64];
    int fd = it_connect(port), closed;

    memset(val, 'q', n);
    memcpy(val + n, "\r\n", 2);
    CHECK(fd >= 0);
    if (fd >= 0) {
        it_send_all_timeout(fd, req, sizeof(req) - 1, 5000);
        it_send_all_timeout(fd, val, n + 2, 5000);
        closed = it_read_until_close(fd, first, sizeof(first), &got, 5000);
        CHECKF(closed, "a client past client-query-buffer-limit stayed connected");
        CHECKF(got == 0, "it got a reply: %s", first);
        close(fd);
    }
    CHECK(key_missing("bad:qbl"));
    CHECK(it_log_contains(&server, "query buffer"));
    CHECK(longlived_ok());
    free(val);
}

/* ---- driver ---- */

static int start(const char *const *extra)
{
    it_reply *r;
    if (it_server_start(&server, extra) < 0) {
        printf("not ok - the server starts with its options and answers PING\n");
        it_failed++;
        return -1;
    }
    port = server.port;
    if (it_conn_open(&longlived, port) < 0) {
        printf("not ok - a first client connects\n");
        it_failed++;
        it_server_stop(&server);
        return -1;
    }
    it_conn_sendv(&longlived, 3, (const char *const[]){"SET", "bad:longlived", "still here"}, NULL);
    r = it_conn_reply(&longlived, 5000);
    it_reply_free(r);
    return 0;
}

static void finish(void)
{
    {
        int ok = longlived_ok();
        printf("%s - the client connected from the start still gets correct answers\n", ok ? "ok" : "not ok");
        if (ok)
            it_passed++;
        else
            it_failed++;
    }
    it_conn_close(&longlived);
    {
        int ok = it_ping_port(port, 5000);
        printf("%s - a new connection gets PONG after all the bad input\n", ok ? "ok" : "not ok");
        if (ok)
            it_passed++;
        else
            it_failed++;
    }
    it_server_finish(&server);
}

int main(void)
{
    static const char *const bulk_args[] = {"--proto-max-bulk-len", "1mb", NULL};
    static const char *const qbuf_args[] = {"--client-query-buffer-limit", "1mb", "--proto-max-bulk-len", "2mb",
                                            NULL};

    it_init(280);
    if (start(NULL) == 0) {
        RUN(test_bad_multibulk, "malformed multibulk counts and bulk lengths get Redis's exact protocol errors and are closed");
        RUN(test_bulk_without_crlf, "bulk data not followed by CRLF is a protocol error and nothing after it runs");
        RUN(test_errors_after_good_commands, "commands before a protocol error in the same packet are answered first");
        RUN(test_empty_requests, "empty multibulk requests and empty lines are skipped, an empty command name is unknown");
        RUN(test_unbalanced_quotes, "inline requests with unbalanced quotes are protocol errors");
        RUN(test_inline_arguments, "inline commands split arguments, quotes and escapes as Redis does");
        RUN(test_oversized_lines, "an inline line, a count or a bulk length over 64 KB is a protocol error");
        RUN(test_split_requests, "a request sent one byte at a time runs once complete");
        RUN(test_truncated_then_closed, "a request cut at every byte and then closed never runs");
        RUN(test_connect_close, "1,000 clients that connect and close at once leave the server serving");
        RUN(test_random_bytes, "10,000 connections of random and mutated bytes neither crash nor hang the server");
        RUN(test_unread_pipeline, "a client that pipelines 1,000,000 PINGs and never reads does not block the others");
        finish();
    }
    if (start(bulk_args) == 0) {
        RUN(test_proto_max_bulk_len, "with proto-max-bulk-len 1mb a 2 MB bulk is a protocol error and 1 MB is accepted");
        finish();
    }
    if (start(qbuf_args) == 0) {
        RUN(test_query_buffer_limit, "a 2 MB bulk past client-query-buffer-limit 1mb closes that client without running it");
        finish();
    }
    return TEST_DONE();
}
