/* test_resp.c -- unit tests of the RESP request parser (server/net/resp.c).
 *
 * Most cases drive the parser the way a connection does (sim_feed: append the
 * bytes that arrived, parse every complete request, grow the argument array on
 * RESP_NEED_ARGS, drop consumed bytes) and compare a log of the parsed requests,
 * "argc|len:bytes|len:bytes\n" per request, with the expected one. */
#include "net/resp.h"
#include "test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof(lit) - 1

typedef struct sim {
    resp_parser p;
    char *buf;       /* bytes received and not consumed */
    size_t len, cap; /* bytes */
    char *log;       /* requests parsed so far, serialised */
    size_t loglen, logcap;
    size_t calls;    /* resp_parse calls */
    size_t grows;    /* RESP_NEED_ARGS answered */
    size_t empties;  /* requests with argc 0 */
} sim;

static void buf_append(char **b, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *b = realloc(*b, *cap);
        if (!*b)
            abort();
    }
    memcpy(*b + *len, data, n);
    *len += n;
    (*b)[*len] = '\0';
}

static void sim_init(sim *s, size_t args_cap)
{
    memset(s, 0, sizeof(*s));
    resp_reset(&s->p);
    s->p.args = args_cap ? calloc(args_cap, sizeof(resp_arg)) : NULL;
    s->p.args_cap = args_cap;
    s->p.max_bulk = 512LL * 1024 * 1024;
    s->p.max_args = INT_MAX;
    buf_append(&s->log, &s->loglen, &s->logcap, "", 0);
}

static void sim_free(sim *s)
{
    free(s->p.args);
    free(s->buf);
    free(s->log);
}

static void sim_log(sim *s, const resp_parser *p, const char *buf)
{
    char num[32];
    size_t i;

    snprintf(num, sizeof(num), "%zu", p->argc);
    buf_append(&s->log, &s->loglen, &s->logcap, num, strlen(num));
    for (i = 0; i < p->argc; i++) {
        snprintf(num, sizeof(num), "|%zu:", p->args[i].len);
        buf_append(&s->log, &s->loglen, &s->logcap, num, strlen(num));
        buf_append(&s->log, &s->loglen, &s->logcap, buf + p->args[i].off, p->args[i].len);
    }
    buf_append(&s->log, &s->loglen, &s->logcap, "\n", 1);
}

/* Append n bytes and parse every complete request. Arguments are grown to
 * exactly argc_want, the worst case for resumption. Returns RESP_INCOMPLETE or
 * RESP_ERR. */
static resp_status sim_feed(sim *s, const char *data, size_t n)
{
    buf_append(&s->buf, &s->len, &s->cap, data, n);
    for (;;) {
        size_t used = 0;
        resp_status st;

        s->calls++;
        st = resp_parse(&s->p, s->buf, s->len, &used);
        if (st == RESP_NEED_ARGS) {
            CHECK(s->p.argc_want == s->p.args_cap + 1);
            s->p.args = realloc(s->p.args, s->p.argc_want * sizeof(resp_arg));
            s->p.args_cap = s->p.argc_want;
            s->grows++;
            continue;
        }
        if (st == RESP_INCOMPLETE) {
            CHECK(s->p.need > s->len);
            return st;
        }
        if (st != RESP_OK)
            return st;
        CHECK(used > 0 && used <= s->len);
        if (s->p.argc == 0)
            s->empties++;
        sim_log(s, &s->p, s->buf);
        memmove(s->buf, s->buf + used, s->len - used);
        s->len -= used;
    }
}

static int sim_log_is(const sim *s, const char *want, size_t n)
{
    return s->loglen == n && memcmp(s->log, want, n) == 0;
}

/* A pipeline of every well-formed kind of request, and its log. */
static const char pipeline[] =
    "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"
    "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n"
    "PING\r\n"
    "\r\n"
    "*0\r\n"
    "set \"a\\x41\\n\" 'it\\'s' plain\n"
    "*-1\r\n"
    "*1\r\n$0\r\n\r\n"
    "*2\r\n$4\r\nECHO\r\n$6\r\na\0\r\nb\r\r\n"
    "   \t  \r\n"
    "*12\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$1\r\ne\r\n$1\r\nf\r\n"
    "$1\r\ng\r\n$1\r\nh\r\n$1\r\ni\r\n$1\r\nj\r\n$1\r\nk\r\n$2\r\nlm\r\n"
    "*1\r\n$10\r\n0123456789\r\n"
    "ECHO \"\\t\\r\\b\\a\\\\\\\"\"\r\n";

static const char pipeline_log[] =
    "3|3:SET|3:key|5:value\n"
    "2|3:GET|3:key\n"
    "1|4:PING\n"
    "0\n"
    "0\n"
    "4|3:set|3:aA\n|4:it's|5:plain\n"
    "0\n"
    "1|0:\n"
    "2|4:ECHO|6:a\0\r\nb\r\n"
    "0\n"
    "12|1:a|1:b|1:c|1:d|1:e|1:f|1:g|1:h|1:i|1:j|1:k|2:lm\n"
    "1|10:0123456789\n"
    "2|4:ECHO|6:\t\r\b\a\\\"\n";

static void test_single_multibulk(void)
{
    sim s;
    size_t used = 0;
    char req[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\n";

    sim_init(&s, 8);
    CHECK(resp_parse(&s.p, req, sizeof(req) - 1, &used) == RESP_OK);
    CHECK(used == sizeof(req) - 1);
    CHECK(s.p.argc == 3);
    CHECK(s.p.args[0].off == 8 && s.p.args[0].len == 3);
    CHECK(memcmp(req + s.p.args[1].off, "k", 1) == 0 && s.p.args[1].len == 1);
    CHECK(memcmp(req + s.p.args[2].off, "vv", 2) == 0 && s.p.args[2].len == 2);
    CHECK(strcmp(req, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\n") == 0);
    CHECK(resp_parse(&s.p, req + used, 0, &used) == RESP_INCOMPLETE && s.p.need == 1);
    sim_free(&s);
}

static void test_pipelined(void)
{
    sim s;

    sim_init(&s, 16);
    CHECK(sim_feed(&s, pipeline, sizeof(pipeline) - 1) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, pipeline_log, sizeof(pipeline_log) - 1));
    CHECK(s.len == 0);
    CHECK(s.empties == 4);
    sim_free(&s);
}

static void test_split_everywhere(void)
{
    size_t n = sizeof(pipeline) - 1, i, cap;

    for (cap = 0; cap <= 16; cap += 16) {
        size_t bad = 0;
        for (i = 0; i <= n; i++) {
            sim s;
            sim_init(&s, cap);
            bad += sim_feed(&s, pipeline, i) != RESP_INCOMPLETE;
            bad += sim_feed(&s, pipeline + i, n - i) != RESP_INCOMPLETE;
            bad += !sim_log_is(&s, pipeline_log, sizeof(pipeline_log) - 1) || s.len != 0;
            sim_free(&s);
        }
        CHECK(bad == 0);
    }
}

static void test_byte_at_a_time(void)
{
    size_t n = sizeof(pipeline) - 1, i, cap;

    for (cap = 0; cap <= 16; cap += 16) {
        sim s;
        sim_init(&s, cap);
        for (i = 0; i < n; i++)
            CHECK(sim_feed(&s, pipeline + i, 1) == RESP_INCOMPLETE);
        CHECK(sim_log_is(&s, pipeline_log, sizeof(pipeline_log) - 1));
        CHECK(s.len == 0);
        sim_free(&s);
    }
}

/* Calling again only once p->need bytes are buffered changes nothing. */
static void test_need_is_a_lower_bound(void)
{
    size_t n = sizeof(pipeline) - 1, i = 0;
    sim s;

    sim_init(&s, 4);
    s.p.need = 1;
    while (i < n) {
        size_t want = s.p.need > s.len ? s.p.need - s.len : 1;
        size_t take = want < n - i ? want : n - i;
        sim_feed(&s, pipeline + i, take);
        i += take;
    }
    CHECK(sim_log_is(&s, pipeline_log, sizeof(pipeline_log) - 1));
    CHECK(s.calls < n);
    sim_free(&s);
}

static void test_binary_bulks(void)
{
    sim s;
    static const char req[] = "*3\r\n$3\r\nSET\r\n$4\r\n\r\n\0\n\r\n$6\r\n\0\0\r\n\r\n\r\n";
    static const char log[] = "3|3:SET|4:\r\n\0\n|6:\0\0\r\n\r\n\n";

    sim_init(&s, 8);
    CHECK(sim_feed(&s, req, sizeof(req) - 1) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, log, sizeof(log) - 1));
    sim_free(&s);
}

static void test_empty_bulk(void)
{
    sim s;

    sim_init(&s, 8);
    CHECK(sim_feed(&s, S("*3\r\n$0\r\n\r\n$3\r\nGET\r\n$0\r\n\r\n")) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, S("3|0:|3:GET|0:\n")));
    sim_free(&s);
}

static void test_zero_and_negative_count(void)
{
    sim s;

    sim_init(&s, 8);
    CHECK(sim_feed(&s, S("*0\r\n*-1\r\n*-5\r\n*1\r\n$1\r\nx\r\n")) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, S("0\n0\n0\n1|1:x\n")));
    CHECK(s.empties == 3);
    sim_free(&s);
}

static void test_inline_quotes_and_escapes(void)
{
    sim s;
    static const char in[] =
        "SET k \"\\n\\r\\t\\b\\a\\\\\\\"\\x41\\x7a\\xFf\\q\\x4\\xzz\"\r\n"
        "SET 'a\\'b\\n\"c' \"it's\"\n"
        "a\"b c\" 'x' y\n"
        "\"\" '' \"\\\\\"\n"
        "  lead\ttab\vvt\f  \r\r\n"
        "x \"quoted\"\t'single'\r\n"
        "a\0b\n";
    static const char log[] =
        "3|3:SET|1:k|16:\n\r\t\b\a\\\"Az\xff" "qx4xzz\n"
        "3|3:SET|7:a'b\\n\"c|4:it's\n"
        "3|4:ab c|1:x|1:y\n"
        "3|0:|0:|1:\\\n"
        "2|4:lead|7:tab\vvt\f\n"
        "3|1:x|6:quoted|6:single\n"
        "1|3:a\0b\n";

    sim_init(&s, 8);
    CHECK(sim_feed(&s, in, sizeof(in) - 1) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, log, sizeof(log) - 1));
    if (!sim_log_is(&s, log, sizeof(log) - 1))
        fwrite(s.log, 1, s.loglen, stderr);
    sim_free(&s);
}

/* Regression: inline arguments were unescaped back to back, so the NUL the
 * connection writes after each argument overwrote the next one's first byte. */
static void test_inline_args_keep_a_free_byte(void)
{
    char buf[] = "SET \"a\\x41b\" 'c d'  plain\r\n";
    resp_arg args[8];
    resp_parser p;
    size_t consumed = 0, i;

    memset(&p, 0, sizeof(p));
    p.args = args;
    p.args_cap = 8;
    p.max_bulk = 1 << 20;
    p.max_args = 1024;
    resp_reset(&p);
    CHECK(resp_parse(&p, buf, sizeof(buf) - 1, &consumed) == RESP_OK);
    CHECK(p.argc == 4);
    for (i = 0; i < p.argc; i++) {
        CHECK(args[i].off + args[i].len < consumed);
        buf[args[i].off + args[i].len] = '\0';
    }
    CHECK(strcmp(buf + args[0].off, "SET") == 0);
    CHECK(strcmp(buf + args[1].off, "aAb") == 0);
    CHECK(strcmp(buf + args[2].off, "c d") == 0);
    CHECK(strcmp(buf + args[3].off, "plain") == 0);
}

static void test_blank_lines(void)
{
    sim s;

    sim_init(&s, 8);
    CHECK(sim_feed(&s, S("\n\r\n \t \n\r\r\nPING\n")) == RESP_INCOMPLETE);
    CHECK(sim_log_is(&s, S("0\n0\n0\n0\n1|4:PING\n")));
    sim_free(&s);
}

/* Parse in as a fresh request with the given limits, whole and one byte at a
 * time; both must fail with the same text, which is returned (or NULL). */
static const char *parse_err(const char *in, size_t n, long long max_bulk, long long max_args,
                             int unauth)
{
    static char whole[128];
    int pass;

    whole[0] = '\0';
    for (pass = 0; pass < 2; pass++) {
        sim s;
        resp_status st = RESP_INCOMPLETE;
        size_t i;

        sim_init(&s, 4);
        s.p.max_bulk = max_bulk;
        s.p.max_args = max_args;
        s.p.unauth = unauth;
        if (pass == 0) {
            st = sim_feed(&s, in, n);
        } else {
            for (i = 0; i < n && st != RESP_ERR; i++)
                st = sim_feed(&s, in + i, 1);
        }
        if (st != RESP_ERR) {
            sim_free(&s);
            return NULL;
        }
        CHECK(s.p.err != NULL);
        if (pass == 0) {
            size_t used;
            snprintf(whole, sizeof(whole), "%s", s.p.err);
            CHECK(resp_parse(&s.p, s.buf, s.len, &used) == RESP_ERR);
            CHECK(strcmp(s.p.err, whole) == 0);
        } else {
            CHECK(strcmp(s.p.err, whole) == 0);
        }
        sim_free(&s);
    }
    return whole;
}

static int err_is(const char *in, size_t n, const char *want)
{
    const char *got = parse_err(in, n, 512LL * 1024 * 1024, INT_MAX, 0);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "    got %s%s%s, want \"%s\"\n", got ? "\"" : "", got ? got : "no error",
                got ? "\"" : "", want);
        return 0;
    }
    return 1;
}

static void test_bad_count(void)
{
    CHECK(err_is(S("*abc\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*1x\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*01\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*+1\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("* 1\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*-0\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*1 \r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*2147483648\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*99999999999999999999\r\n"), "invalid multibulk length"));
    CHECK(err_is(S("*1\rX"), "invalid multibulk length"));
    CHECK(parse_err(S("*1\n"), 1024, INT_MAX, 0) == NULL);
    CHECK(parse_err(S("*5\r\n"), 1024, 4, 0) != NULL);
    CHECK(strcmp(parse_err(S("*5\r\n"), 1024, 4, 0), "invalid multibulk length") == 0);
    CHECK(parse_err(S("*4\r\n"), 1024, 4, 0) == NULL);
    CHECK(parse_err(S("*2147483647\r\n"), 1024, LLONG_MAX, 0) == NULL);
}

static void test_bad_bulk_length(void)
{
    CHECK(err_is(S("*1\r\n$-1\r\n"), "invalid bulk length"));
    CHECK(err_is(S("*1\r\n$\r\n"), "invalid bulk length"));
    CHECK(err_is(S("*1\r\n$x\r\n"), "invalid bulk length"));
    CHECK(err_is(S("*1\r\n$03\r\n"), "invalid bulk length"));
    CHECK(err_is(S("*1\r\n$3\rX"), "invalid bulk length"));
    CHECK(err_is(S("*1\r\n$9223372036854775808\r\n"), "invalid bulk length"));
    CHECK(strcmp(parse_err(S("*1\r\n$101\r\n"), 100, INT_MAX, 0), "invalid bulk length") == 0);
    CHECK(parse_err(S("*1\r\n$100\r\n"), 100, INT_MAX, 0) == NULL);
}

static void test_missing_crlf_after_data(void)
{
    CHECK(err_is(S("*1\r\n$3\r\nfooXY"), "expected '\\r\\n' after bulk data"));
    CHECK(err_is(S("*1\r\n$3\r\nfoo\rX"), "expected '\\r\\n' after bulk data"));
    CHECK(err_is(S("*1\r\n$3\r\nfoo\n\r"), "expected '\\r\\n' after bulk data"));
    CHECK(err_is(S("*2\r\n$3\r\nfoo\r\n$0\r\nab"), "expected '\\r\\n' after bulk data"));
}

static void test_wrong_type_byte(void)
{
    CHECK(err_is(S("*1\r\n:3\r\n"), "expected '$', got ':'"));
    CHECK(err_is(S("*2\r\n$1\r\na\r\n*1\r\n"), "expected '$', got '*'"));
    CHECK(err_is(S("*1\r\n\r\n"), "expected '$', got ' '"));
    CHECK(err_is(S("*1\r\nfoo\r\n"), "expected '$', got 'f'"));
}

static void test_too_big_lines(void)
{
    size_t n = RESP_INLINE_MAX + 8;
    char *b = malloc(n + 1);
    sim s;

    /* Count line: the line may hold RESP_INLINE_MAX bytes with no '\r'. */
    memset(b, '1', n);
    b[0] = '*';
    CHECK(parse_err(b, RESP_INLINE_MAX, 1024, INT_MAX, 0) == NULL);
    CHECK(err_is(b, RESP_INLINE_MAX + 1, "too big mbulk count string"));
    b[RESP_INLINE_MAX] = '\r';
    b[RESP_INLINE_MAX + 1] = '\n';
    CHECK(err_is(b, RESP_INLINE_MAX + 2, "invalid multibulk length"));

    /* Bulk length line, counted from its '$'. */
    memset(b, '1', n);
    memcpy(b, "*1\r\n$", 5);
    CHECK(parse_err(b, 4 + RESP_INLINE_MAX, 1024, INT_MAX, 0) == NULL);
    CHECK(err_is(b, 4 + RESP_INLINE_MAX + 1, "too big bulk count string"));

    /* Inline: RESP_INLINE_MAX bytes then '\n' is one request. */
    memset(b, 'a', n);
    CHECK(parse_err(b, RESP_INLINE_MAX, 1024, INT_MAX, 0) == NULL);
    CHECK(err_is(b, RESP_INLINE_MAX + 1, "too big inline request"));
    b[RESP_INLINE_MAX] = '\n';
    sim_init(&s, 4);
    CHECK(sim_feed(&s, b, RESP_INLINE_MAX + 1) == RESP_INCOMPLETE);
    CHECK(s.p.argc == 1 && s.p.args[0].len == RESP_INLINE_MAX);
    sim_free(&s);
    free(b);
}

static void test_unbalanced_quotes(void)
{
    CHECK(err_is(S("SET \"foo\r\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("SET 'foo\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("SET \"foo\\\"\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("SET \"foo\\\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("\"\n"), "unbalanced quotes in request"));
}

static void test_quote_then_non_space(void)
{
    CHECK(err_is(S("SET \"foo\"bar\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("SET 'foo'bar\n"), "unbalanced quotes in request"));
    CHECK(err_is(S("SET \"a\"\"b\"\n"), "unbalanced quotes in request"));
    CHECK(parse_err(S("SET \"foo\" bar\n"), 1024, INT_MAX, 0) == NULL);
}

static void test_unauthenticated_limits(void)
{
    const long long mb = 512LL * 1024 * 1024;

    CHECK(strcmp(parse_err(S("*11\r\n"), mb, INT_MAX, 1), "unauthenticated multibulk length") == 0);
    CHECK(parse_err(S("*10\r\n"), mb, INT_MAX, 1) == NULL);
    CHECK(parse_err(S("*11\r\n"), mb, INT_MAX, 0) == NULL);
    CHECK(strcmp(parse_err(S("*11\r\n"), mb, 5, 1), "invalid multibulk length") == 0);
    CHECK(strcmp(parse_err(S("*1\r\n$16385\r\n"), mb, INT_MAX, 1), "unauthenticated bulk length") == 0);
    CHECK(parse_err(S("*1\r\n$16384\r\n"), mb, INT_MAX, 1) == NULL);
    CHECK(parse_err(S("*1\r\n$16385\r\n"), mb, INT_MAX, 0) == NULL);
    CHECK(strcmp(parse_err(S("*1\r\n$16385\r\n"), 1000, INT_MAX, 1), "invalid bulk length") == 0);
    CHECK(strcmp(parse_err(S("*1\r\n$9223372036854775807\r\n"), mb, INT_MAX, 1),
                 "invalid bulk length") == 0);
}

static void test_need_args_growth(void)
{
    sim s;
    char req[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\n";
    size_t used;

    /* By hand: the parser asks for one slot more each time and keeps the others. */
    sim_init(&s, 0);
    CHECK(resp_parse(&s.p, req, sizeof(req) - 1, &used) == RESP_NEED_ARGS);
    CHECK(s.p.argc_want == 1);
    s.p.args = realloc(s.p.args, 1 * sizeof(resp_arg));
    s.p.args_cap = 1;
    CHECK(resp_parse(&s.p, req, sizeof(req) - 1, &used) == RESP_NEED_ARGS);
    CHECK(s.p.argc_want == 2);
    s.p.args = realloc(s.p.args, 4 * sizeof(resp_arg));
    s.p.args_cap = 4;
    CHECK(resp_parse(&s.p, req, sizeof(req) - 1, &used) == RESP_OK);
    CHECK(used == sizeof(req) - 1 && s.p.argc == 3);
    CHECK(s.p.args[0].len == 3 && memcmp(req + s.p.args[0].off, "SET", 3) == 0);
    CHECK(s.p.args[2].len == 2 && memcmp(req + s.p.args[2].off, "vv", 2) == 0);
    sim_free(&s);

    /* A huge claimed count asks for nothing until arguments arrive. */
    sim_init(&s, 0);
    CHECK(sim_feed(&s, S("*1000000\r\n")) == RESP_INCOMPLETE);
    CHECK(s.grows == 0);
    CHECK(sim_feed(&s, S("$1\r\na\r\n$1\r\nb\r\n")) == RESP_INCOMPLETE);
    CHECK(s.grows == 2 && s.p.args_cap == 2);
    sim_free(&s);

    /* Inline: resumes mid-line without unescaping anything twice. */
    sim_init(&s, 0);
    CHECK(sim_feed(&s, S("SET \"a\\x41\\n\" 'b\\'c' d\r\n")) == RESP_INCOMPLETE);
    CHECK(s.grows == 4);
    CHECK(sim_log_is(&s, S("4|3:SET|3:aA\n|3:b'c|1:d\n")));
    sim_free(&s);

    /* Many arguments, grown one slot at a time. */
    sim_init(&s, 0);
    {
        char *big = NULL;
        size_t blen = 0, bcap = 0, i;
        buf_append(&big, &blen, &bcap, S("*300\r\n"));
        for (i = 0; i < 300; i++)
            buf_append(&big, &blen, &bcap, S("$3\r\nabc\r\n"));
        CHECK(sim_feed(&s, big, blen) == RESP_INCOMPLETE);
        CHECK(s.grows == 300 && s.loglen > 0 && s.log[0] == '3');
        free(big);
    }
    sim_free(&s);
}

static void test_large_bulk_linear(void)
{
    const size_t data = 10 * 1024 * 1024, piece = 16 * 1024;
    static const char head[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10485760\r\n";
    size_t hlen = sizeof(head) - 1, total = hlen + data + 2, arrived = 0, calls = 0, used = 0;
    char *b = malloc(total);
    resp_parser p;
    resp_arg args[4];
    resp_status st = RESP_INCOMPLETE;
    size_t need_seen = 0;

    memcpy(b, head, hlen);
    memset(b + hlen, 'x', data);
    memcpy(b + hlen + data, "\r\n", 2);
    memset(&p, 0, sizeof(p));
    resp_reset(&p);
    p.args = args;
    p.args_cap = 4;
    p.max_bulk = 512LL * 1024 * 1024;
    p.max_args = INT_MAX;
    p.need = 1;

    /* The caller reads 16 KB at a time and calls only once need is reached. */
    while (st == RESP_INCOMPLETE && arrived < total) {
        arrived = arrived + piece < total ? arrived + piece : total;
        if (arrived < p.need)
            continue;
        calls++;
        st = resp_parse(&p, b, arrived, &used);
        if (st == RESP_INCOMPLETE && !need_seen)
            need_seen = p.need;
    }
    CHECK(st == RESP_OK);
    CHECK(calls == 2);
    CHECK(need_seen == total);
    CHECK(used == total && p.argc == 3);
    CHECK(p.args[2].off == hlen && p.args[2].len == data);

    /* A caller that ignores need still gets the same answer every piece. */
    resp_reset(&p);
    calls = 0;
    st = RESP_INCOMPLETE;
    for (arrived = piece; st == RESP_INCOMPLETE; arrived += piece) {
        if (arrived > total)
            arrived = total;
        calls++;
        st = resp_parse(&p, b, arrived, &used);
        if (st == RESP_INCOMPLETE)
            CHECK(arrived < hlen || p.need == total);
    }
    CHECK(st == RESP_OK && used == total && calls == (total + piece - 1) / piece);
    free(b);
}

static void test_reset_and_zeroed_parser(void)
{
    resp_parser p;
    resp_arg args[2];
    char req[] = "*1\r\n$4\r\nPING\r\n";
    size_t used;

    memset(&p, 0, sizeof(p));
    p.args = args;
    p.args_cap = 2;
    p.max_bulk = 100;
    p.max_args = 100;
    CHECK(resp_parse(&p, req, 6, &used) == RESP_INCOMPLETE);
    resp_reset(&p);
    CHECK(p.args == args && p.args_cap == 2 && p.max_bulk == 100);
    CHECK(resp_parse(&p, req, sizeof(req) - 1, &used) == RESP_OK);
    CHECK(used == sizeof(req) - 1 && p.argc == 1 && p.args[0].len == 4);
}

int main(void)
{
    RUN(test_inline_args_keep_a_free_byte,
        "inline arguments leave a byte after each one, so NUL-terminating them corrupts nothing");
    RUN(test_single_multibulk, "a single multibulk command parses into offsets of buf, which stays unchanged");
    RUN(test_pipelined, "many pipelined commands in one buffer parse one after the other");
    RUN(test_split_everywhere, "a pipelined stream split at every byte position parses to the same commands");
    RUN(test_byte_at_a_time, "a pipelined stream fed one byte at a time parses to the same commands");
    RUN(test_need_is_a_lower_bound, "feeding exactly up to p->need each time parses the same with fewer calls");
    RUN(test_binary_bulks, "bulk arguments are binary safe: NUL and CRLF inside are data");
    RUN(test_empty_bulk, "an empty bulk is an argument of length 0");
    RUN(test_zero_and_negative_count, "'*0' and '*-1' are requests with no arguments");
    RUN(test_inline_quotes_and_escapes, "inline requests unquote and unescape as sdssplitargs does");
    RUN(test_blank_lines, "blank inline lines are requests with no arguments");
    RUN(test_bad_count, "a malformed or oversized multibulk count is 'invalid multibulk length'");
    RUN(test_bad_bulk_length, "a negative, malformed or over-max_bulk length is 'invalid bulk length'");
    RUN(test_missing_crlf_after_data, "bulk data not followed by CRLF is an error");
    RUN(test_wrong_type_byte, "an argument not starting with '$' is \"expected '$', got 'c'\"");
    RUN(test_too_big_lines, "count, length and inline lines over 64 KB are 'too big' errors, at the exact boundary");
    RUN(test_unbalanced_quotes, "an unterminated quote is 'unbalanced quotes in request'");
    RUN(test_quote_then_non_space, "a closing quote followed by a non-space is 'unbalanced quotes in request'");
    RUN(test_unauthenticated_limits, "before AUTH, more than 10 arguments or bulks over 16 KB are refused");
    RUN(test_need_args_growth, "RESP_NEED_ARGS asks one more slot and the parse resumes where it stopped");
    RUN(test_large_bulk_linear, "a 10 MB bulk in 16 KB pieces needs two calls when the caller honours need");
    RUN(test_reset_and_zeroed_parser, "a zeroed parser is ready and resp_reset keeps the caller's fields");
    return TEST_DONE();
}
