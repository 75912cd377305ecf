/* test_sync.c -- libscratchpad's synchronous API and batches against a real
 * scratchpad-server: every function, its options, its results, and the errors
 * a caller meets (wrong type, bad name, version conflict, NX/XX, edit
 * conflicts, missing entries, connection refused, a server that goes away,
 * AUTH, Unix sockets), and the coordination commands: leases and fenced
 * writes, the change feed, metadata, snapshots, diffs, forks, entry history.
 *
 * The server is started by tests/integration/itest.h on a free port in a
 * temporary directory and stopped by PID. Each case uses its own scratchpad
 * (namespace) so the cases do not depend on each other. */
#include <hiredis/hiredis.h>

#include "itest.h"
#include "scratchpad.h"

static it_server srv;
static spc_ctx *C;

/* Check that expr returns status want, printing the status and message if not. */
#define ST(expr, want)                                                                                   \
    do {                                                                                                 \
        int st_ = (expr);                                                                                \
        if (st_ != (want)) {                                                                             \
            fprintf(stderr, "    %s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, #expr,   \
                    spc_status_name(st_), C ? spc_errstr(C) : "", spc_status_name(want));                \
            it_case_failed = 1;                                                                          \
        }                                                                                                \
    } while (0)

static int content_is(const spc_content *c, const char *s)
{
    return c && c->len == strlen(s) && memcmp(c->data, s, c->len) == 0 && c->data[c->len] == '\0';
}

#define CONTENT(c, s) CHECKF(content_is((c), (s)), "content is [%.*s], expected [%s]", (c) ? (int)(c)->len : 6, \
                             (c) ? (c)->data : "(null)", (s))

static spc_ctx *connect_port(int port)
{
    spc_options o;
    memset(&o, 0, sizeof(o));
    o.port = port;
    o.connect_timeout_ms = 5000;
    o.timeout_ms = 10000;
    return spc_connect_with(&o);
}

/* A raw command to the test server (for things the library does not do). */
static void raw(const char *line)
{
    it_conn rc;
    it_reply *r;
    if (it_conn_open(&rc, srv.port) < 0) {
        it_case_failed = 1;
        return;
    }
    r = it_conn_cmd(&rc, line);
    CHECK(r != NULL);
    it_reply_free(r);
    it_conn_close(&rc);
}

static void t_refused(void)
{
    int port = it_free_port();
    spc_ctx *c = spc_connect("127.0.0.1", port);
    spc_content *out = (spc_content *)1;
    uint64_t v = 7;

    CHECK(c != NULL);
    if (!c)
        return;
    CHECKF(spc_err(c) == SP_ERR_IO, "got %s", spc_status_name(spc_err(c)));
    CHECKF(strlen(spc_errstr(c)) > 0, "no message");
    CHECK(spc_redis(c) == NULL);
    CHECK(sp_read(c, "ns", "x", NULL, &out) == SP_ERR_IO && out == NULL);
    CHECK(sp_write(c, "ns", "x", "a", 1, NULL, &v) == SP_ERR_IO && v == 0);
    CHECK(strstr(spc_errstr(c), "spc_reconnect") != NULL);
    CHECK(spc_batch_begin(c) == SP_ERR_IO);
    CHECK(spc_reconnect(c) == SP_ERR_IO);
    spc_free(c);
    spc_free(NULL);
}

static void t_write(void)
{
    uint64_t v = 0;
    spc_content *out = NULL;

    ST(sp_write(C, "w", "plan", "step 1", 6, NULL, &v), SP_OK);
    CHECK(v == 1);
    CHECK(spc_err(C) == SP_OK && spc_errstr(C)[0] == '\0');
    CHECK(spc_redis(C) != NULL);
    ST(sp_write(C, "w", "plan", "step 2", 6, NULL, &v), SP_OK);
    CHECK(v == 2);
    ST(sp_write(C, "w", "plan", "step 3", 6, NULL, NULL), SP_OK);
    ST(sp_read(C, "w", "plan", NULL, &out), SP_OK);
    CONTENT(out, "step 3");
    spc_content_free(out);
    ST(sp_write(C, "w", "empty", "", 0, NULL, &v), SP_OK);
    ST(sp_write(C, "w", "empty2", NULL, 0, NULL, &v), SP_OK);
    ST(sp_read(C, "w", "empty2", NULL, &out), SP_OK);
    CONTENT(out, "");
    spc_content_free(out);
}

static void t_write_conditions(void)
{
    spc_write_opts nx = {0}, xx = {0};
    uint64_t v = 9;
    spc_content *out = NULL;

    nx.nx = 1;
    xx.xx = 1;
    ST(sp_write(C, "wc", "a", "one", 3, &xx, &v), SP_ERR_CONDITION);
    CHECK(v == 0);
    ST(sp_read(C, "wc", "a", NULL, &out), SP_ERR_NOTFOUND);
    CHECK(out == NULL);
    ST(sp_write(C, "wc", "a", "one", 3, &nx, &v), SP_OK);
    CHECK(v == 1);
    ST(sp_write(C, "wc", "a", "two", 3, &nx, &v), SP_ERR_CONDITION);
    CHECK(strstr(spc_errstr(C), "NX") != NULL);
    ST(sp_write(C, "wc", "a", "three", 5, &xx, &v), SP_OK);
    CHECK(v == 2);
    ST(sp_read(C, "wc", "a", NULL, &out), SP_OK);
    CONTENT(out, "three");
    spc_content_free(out);
}

static void t_write_versions(void)
{
    spc_write_opts o = {0};
    uint64_t v = 0;

    ST(sp_write(C, "wv", "doc", "v1", 2, NULL, &v), SP_OK);
    o.ifversion = 5;
    ST(sp_write(C, "wv", "doc", "v2", 2, &o, &v), SP_ERR_VERSION);
    CHECKF(strcmp(spc_errstr(C), "VERSION entry is at version 1, not 5") == 0, "message [%s]", spc_errstr(C));
    CHECK(v == 0);
    o.ifversion = SPC_MUST_NOT_EXIST;
    ST(sp_write(C, "wv", "doc", "v2", 2, &o, &v), SP_ERR_VERSION);
    ST(sp_write(C, "wv", "new", "n", 1, &o, &v), SP_OK);
    CHECK(v == 1);
    o.ifversion = 1;
    ST(sp_write(C, "wv", "doc", "v2", 2, &o, &v), SP_OK);
    CHECK(v == 2);
    o.ifversion = -7;
    ST(sp_write(C, "wv", "doc", "v3", 2, &o, &v), SP_ERR_ARG);
}

static void t_write_options(void)
{
    spc_write_opts o = {0};
    spc_stat st;
    long long ttl = 0;
    uint64_t v;

    o.kind = SPC_KIND_BINARY;
    ST(sp_write(C, "wo", "bin", "abc", 3, &o, &v), SP_OK);
    ST(sp_stat(C, "wo", "bin", &st), SP_OK);
    CHECK(st.kind == SPC_KIND_BINARY);
    o.kind = SPC_KIND_TEXT;
    ST(sp_write(C, "wo", "bad", "\xff\xfe", 2, &o, &v), SP_ERR_SERVER);
    CHECK(strstr(spc_errstr(C), "UTF-8") != NULL);
    memset(&o, 0, sizeof(o));
    o.ttl_ms = 100000;
    ST(sp_write(C, "wo", "ttl", "x", 1, &o, &v), SP_OK);
    ST(sp_pttl(C, "wo", "ttl", &ttl), SP_OK);
    CHECKF(ttl > 90000 && ttl <= 100000, "pttl %lld", ttl);
    memset(&o, 0, sizeof(o));
    o.keepttl = 1;
    ST(sp_write(C, "wo", "ttl", "y", 1, &o, &v), SP_OK);
    ST(sp_pttl(C, "wo", "ttl", &ttl), SP_OK);
    CHECKF(ttl > 90000, "pttl after KEEPTTL %lld", ttl);
    ST(sp_write(C, "wo", "ttl", "z", 1, NULL, &v), SP_OK);
    ST(sp_ttl(C, "wo", "ttl", &ttl), SP_OK);
    CHECKF(ttl == -1, "ttl after a plain overwrite %lld", ttl);
    /* Options that cannot be sent are refused before sending. */
    o.ttl_ms = 5;
    ST(sp_write(C, "wo", "ttl", "z", 1, &o, &v), SP_ERR_ARG);
    memset(&o, 0, sizeof(o));
    o.nx = o.xx = 1;
    ST(sp_write(C, "wo", "x", "z", 1, &o, &v), SP_ERR_ARG);
    memset(&o, 0, sizeof(o));
    o.ttl_ms = -1;
    ST(sp_write(C, "wo", "x", "z", 1, &o, &v), SP_ERR_ARG);
    memset(&o, 0, sizeof(o));
    o.kind = (spc_kind)42;
    ST(sp_write(C, "wo", "x", "z", 1, &o, &v), SP_ERR_ARG);
    ST(sp_write(C, "wo", "x", NULL, 3, NULL, &v), SP_ERR_ARG);
    ST(sp_write(C, NULL, "x", "z", 1, NULL, &v), SP_ERR_ARG);
    ST(sp_write(C, "wo", NULL, "z", 1, NULL, &v), SP_ERR_ARG);
    /* The context is still fine. */
    ST(spc_ping(C), SP_OK);
}

static void t_binary(void)
{
    static const char data[] = {'a', 0, 'b', (char)0xff, 0, '\n', 'c'};
    spc_content *out = NULL;
    uint64_t v;

    ST(sp_write(C, "bin", "blob", data, sizeof(data), NULL, &v), SP_OK);
    ST(sp_read(C, "bin", "blob", NULL, &out), SP_OK);
    CHECK(out && out->len == sizeof(data) && memcmp(out->data, data, sizeof(data)) == 0);
    spc_content_free(out);
    ST(sp_range(C, "bin", "blob", 1, 4, NULL, &out), SP_OK);
    CHECK(out && out->len == 3 && memcmp(out->data, data + 1, 3) == 0);
    spc_content_free(out);
}

static void t_append(void)
{
    spc_append_opts o = {0};
    size_t len = 0;

    ST(sp_append(C, "ap", "log", "h\xc3\xa9llo", 6, NULL, &len), SP_OK);
    CHECKF(len == 5, "length %zu", len);
    ST(sp_append(C, "ap", "log", " w\xc3\xb6rld", 7, NULL, &len), SP_OK);
    CHECKF(len == 11, "length %zu", len);
    o.ifversion = 1;
    ST(sp_append(C, "ap", "log", "!", 1, &o, &len), SP_ERR_VERSION);
    CHECK(len == 0);
    o.ifversion = 2;
    ST(sp_append(C, "ap", "log", "!", 1, &o, &len), SP_OK);
    CHECK(len == 12);
    ST(sp_append(C, "ap", "log", "\xff", 1, NULL, &len), SP_ERR_SERVER);
    ST(sp_append(C, "ap", "log", "", 0, NULL, NULL), SP_OK);
}

static const char *LINES10 = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

static void t_read_windows(void)
{
    spc_read_opts o;
    spc_content *out = (spc_content *)1;
    uint64_t v;

    ST(sp_read(C, "rw", "nothing", NULL, &out), SP_ERR_NOTFOUND);
    CHECK(out == NULL);
    CHECK(strlen(spc_errstr(C)) > 0);
    ST(sp_write(C, "rw", "t", LINES10, strlen(LINES10), NULL, &v), SP_OK);
    ST(sp_read(C, "rw", "nothing", NULL, &out), SP_ERR_NOTFOUND);

    memset(&o, 0, sizeof(o));
    o.window = SPC_HEAD;
    o.count = 7;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "one\ntwo");
    CHECK(out && !out->has_meta);
    spc_content_free(out);

    o.window = SPC_TAIL;
    o.count = 4;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "ten\n");
    spc_content_free(out);

    memset(&o, 0, sizeof(o));
    o.window = SPC_OFFSET;
    o.offset = 4;
    o.limit = 3;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "two");
    spc_content_free(out);
    o.limit = 0;
    o.offset = 40;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "nine\nten\n");
    spc_content_free(out);
    o.offset = 1000;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "");
    spc_content_free(out);

    memset(&o, 0, sizeof(o));
    o.window = SPC_LINES;
    o.from = 2;
    o.to = 3;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "two\nthree\n");
    spc_content_free(out);
    o.from = -2;
    o.to = -1;
    ST(sp_read(C, "rw", "t", &o, &out), SP_OK);
    CONTENT(out, "nine\nten\n");
    spc_content_free(out);

    memset(&o, 0, sizeof(o));
    o.window = (spc_window)99;
    ST(sp_read(C, "rw", "t", &o, &out), SP_ERR_ARG);
    CHECK(out == NULL);
}

static void t_read_units_and_meta(void)
{
    const char *s = "\xc3\xa9t\xc3\xa9\n\xe2\x82\xac!\n"; /* "été\n€!\n": 7 chars, 11 bytes */
    spc_read_opts o;
    spc_content *out = NULL;
    uint64_t v;

    ST(sp_write(C, "ru", "u", s, strlen(s), NULL, &v), SP_OK);
    memset(&o, 0, sizeof(o));
    o.window = SPC_HEAD;
    o.count = 2;
    ST(sp_read(C, "ru", "u", &o, &out), SP_OK);
    CONTENT(out, "\xc3\xa9t");
    spc_content_free(out);
    o.bytes = 1;
    ST(sp_read(C, "ru", "u", &o, &out), SP_OK);
    CONTENT(out, "\xc3\xa9");
    spc_content_free(out);

    memset(&o, 0, sizeof(o));
    o.window = SPC_OFFSET;
    o.offset = 1;
    o.limit = 3;
    o.withmeta = 1;
    ST(sp_read(C, "ru", "u", &o, &out), SP_OK);
    CONTENT(out, "t\xc3\xa9\n");
    CHECK(out && out->has_meta);
    if (out) {
        CHECK(out->meta.version == 1);
        CHECK(out->meta.size == 11);
        CHECK(out->meta.length == 7);
        CHECK(out->meta.lines == 2);
        CHECK(out->meta.kind == SPC_KIND_TEXT);
        CHECK(out->meta.offset == 1);
        CHECK(out->meta.truncated == 1);
        CHECK(out->meta.next_offset == 4);
    }
    spc_content_free(out);
    o.limit = 0;
    ST(sp_read(C, "ru", "u", &o, &out), SP_OK);
    CHECK(out && out->meta.truncated == 0 && out->meta.next_offset == -1);
    spc_content_free(out);
}

/* Paging through a large (compressed) entry with WITHMETA gives back every byte. */
static void t_read_paging(void)
{
    size_t n = 300000, i, got = 0;
    char *big = malloc(n), *back = malloc(n);
    spc_read_opts o;
    uint64_t v;
    int pages = 0;

    for (i = 0; i < n; i++)
        big[i] = (i % 61 == 60) ? '\n' : (char)('a' + (i * 7 + i / 61) % 26);
    ST(sp_write(C, "rp", "big", big, n, NULL, &v), SP_OK);
    memset(&o, 0, sizeof(o));
    o.window = SPC_OFFSET;
    o.limit = 65536;
    o.withmeta = 1;
    for (;;) {
        spc_content *out = NULL;
        if (sp_read(C, "rp", "big", &o, &out) != SP_OK || !out || !out->has_meta) {
            it_case_failed = 1;
            spc_content_free(out);
            break;
        }
        if (got + out->len <= n)
            memcpy(back + got, out->data, out->len);
        got += out->len;
        pages++;
        if (!out->meta.truncated) {
            spc_content_free(out);
            break;
        }
        o.offset = (size_t)out->meta.next_offset;
        spc_content_free(out);
        if (pages > 100)
            break;
    }
    CHECKF(got == n && memcmp(big, back, n) == 0, "got %zu of %zu bytes", got, n);
    CHECK(pages == 5);
    free(big);
    free(back);
}

static void t_range(void)
{
    spc_range_opts b = {1};
    spc_content *out = NULL;
    uint64_t v;

    ST(sp_write(C, "rg", "t", "0123456789", 10, NULL, &v), SP_OK);
    ST(sp_range(C, "rg", "t", 2, 5, NULL, &out), SP_OK);
    CONTENT(out, "234");
    spc_content_free(out);
    ST(sp_range(C, "rg", "t", -3, SPC_END, NULL, &out), SP_OK);
    CONTENT(out, "789");
    spc_content_free(out);
    ST(sp_range(C, "rg", "t", 0, -8, NULL, &out), SP_OK);
    CONTENT(out, "01");
    spc_content_free(out);
    ST(sp_range(C, "rg", "t", 6, 2, NULL, &out), SP_OK);
    CONTENT(out, "");
    spc_content_free(out);
    ST(sp_range(C, "rg", "t", 50, 60, NULL, &out), SP_OK);
    CONTENT(out, "");
    spc_content_free(out);
    ST(sp_range(C, "rg", "t", -100, 3, NULL, &out), SP_OK);
    CONTENT(out, "012");
    spc_content_free(out);
    ST(sp_write(C, "rg", "u", "\xc3\xa9\xc3\xa9", 4, NULL, &v), SP_OK);
    ST(sp_range(C, "rg", "u", 1, SPC_END, NULL, &out), SP_OK);
    CONTENT(out, "\xc3\xa9");
    spc_content_free(out);
    ST(sp_range(C, "rg", "u", 1, 2, &b, &out), SP_OK);
    CHECK(out && out->len == 1 && (unsigned char)out->data[0] == 0xa9);
    spc_content_free(out);
    ST(sp_range(C, "rg", "missing", 0, 1, NULL, &out), SP_ERR_NOTFOUND);
    CHECK(out == NULL);
}

static void t_grep(void)
{
    const char *log = "INFO start\nWARN disk 91%\nINFO step 1\nERROR disk full\nINFO step 2\nerror: retry\n";
    spc_grep_opts o;
    spc_grep *g = NULL;
    uint64_t v;

    ST(sp_write(C, "gr", "log", log, strlen(log), NULL, &v), SP_OK);
    ST(sp_grep(C, "gr", "log", "disk \\d+", NULL, &g), SP_OK);
    CHECK(g && g->n == 1 && !g->has_meta);
    if (g && g->n == 1) {
        CHECK(g->lines[0].lineno == 2 && g->lines[0].is_match);
        CHECK(g->lines[0].len == 13 && memcmp(g->lines[0].text, "WARN disk 91%", 13) == 0);
        CHECK(g->lines[0].text[g->lines[0].len] == '\0');
    }
    spc_grep_free(g);

    memset(&o, 0, sizeof(o));
    o.nocase = 1;
    o.withmeta = 1;
    ST(sp_grep(C, "gr", "log", "^error", &o, &g), SP_OK);
    CHECK(g && g->n == 2 && g->has_meta && g->matched == 2 && g->shown == 2 && !g->truncated);
    if (g && g->n == 2)
        CHECK(g->lines[0].lineno == 4 && g->lines[1].lineno == 6);
    spc_grep_free(g);

    memset(&o, 0, sizeof(o));
    o.context = 1;
    ST(sp_grep(C, "gr", "log", "ERROR", &o, &g), SP_OK);
    CHECK(g && g->n == 3);
    if (g && g->n == 3) {
        CHECK(g->lines[0].lineno == 3 && !g->lines[0].is_match);
        CHECK(g->lines[1].lineno == 4 && g->lines[1].is_match);
        CHECK(g->lines[2].lineno == 5 && !g->lines[2].is_match);
        CHECK(g->lines[2].len == 11 && memcmp(g->lines[2].text, "INFO step 2", 11) == 0);
    }
    spc_grep_free(g);

    memset(&o, 0, sizeof(o));
    o.max = 1;
    o.withmeta = 1;
    ST(sp_grep(C, "gr", "log", "INFO", &o, &g), SP_OK);
    CHECK(g && g->n == 1 && g->matched == 3 && g->shown == 1 && g->truncated);
    spc_grep_free(g);

    memset(&o, 0, sizeof(o));
    o.max = SPC_GREP_COUNT_ONLY;
    ST(sp_grep(C, "gr", "log", "INFO", &o, &g), SP_OK);
    CHECK(g && g->n == 0 && g->has_meta && g->matched == 3 && g->truncated);
    spc_grep_free(g);

    memset(&o, 0, sizeof(o));
    o.literal = 1;
    ST(sp_grep(C, "gr", "log", "91%", &o, &g), SP_OK);
    CHECK(g && g->n == 1);
    spc_grep_free(g);
    ST(sp_grep(C, "gr", "log", "(", &o, &g), SP_OK);
    CHECK(g && g->n == 0);
    spc_grep_free(g);

    ST(sp_grep(C, "gr", "log", "(unclosed", NULL, &g), SP_ERR_SERVER);
    CHECKF(strstr(spc_errstr(C), "offset") != NULL, "message [%s]", spc_errstr(C));
    CHECK(g == NULL);
    ST(sp_grep(C, "gr", "nope", "x", NULL, &g), SP_ERR_NOTFOUND);
    CHECK(g == NULL);
    ST(sp_grep(C, "gr", "log", NULL, NULL, &g), SP_ERR_ARG);
    memset(&o, 0, sizeof(o));
    o.context = -1;
    ST(sp_grep(C, "gr", "log", "x", &o, &g), SP_ERR_ARG);
    o.context = 5000;
    ST(sp_grep(C, "gr", "log", "x", &o, &g), SP_ERR_SERVER);
}

static void t_list(void)
{
    spc_list_opts o;
    spc_list *l = NULL;
    char name[32];
    uint64_t v;
    int i;

    ST(sp_list(C, "ls-missing", NULL, &l), SP_OK);
    CHECK(l && l->n == 0 && l->done && strcmp(l->cursor, "0") == 0);
    spc_list_free(l);
    for (i = 0; i < 5; i++) {
        snprintf(name, sizeof(name), "notes/%d", 4 - i);
        ST(sp_write(C, "ls", name, "abc", 3, NULL, &v), SP_OK);
    }
    ST(sp_write(C, "ls", "plan", "p\xc3\xa9", 3, NULL, &v), SP_OK);
    ST(sp_list(C, "ls", NULL, &l), SP_OK);
    CHECK(l && l->n == 6 && l->done && !l->has_meta);
    if (l && l->n == 6) {
        CHECK(strcmp(l->items[0].name, "notes/0") == 0 && l->items[0].name_len == 7);
        CHECK(strcmp(l->items[4].name, "notes/4") == 0);
        CHECK(strcmp(l->items[5].name, "plan") == 0);
    }
    spc_list_free(l);

    memset(&o, 0, sizeof(o));
    o.match = "pl*";
    o.withmeta = 1;
    ST(sp_list(C, "ls", &o, &l), SP_OK);
    CHECK(l && l->n == 1 && l->has_meta);
    if (l && l->n == 1) {
        const spc_list_item *it = &l->items[0];
        CHECK(strcmp(it->name, "plan") == 0);
        CHECK(it->kind == SPC_KIND_TEXT && it->size == 3 && it->length == 2 && it->version == 1);
        CHECK(it->created > 0 && it->updated >= it->created && it->ttl == -1);
    }
    spc_list_free(l);

    memset(&o, 0, sizeof(o));
    o.count = 4;
    ST(sp_list(C, "ls", &o, &l), SP_OK);
    CHECK(l && l->n == 4 && !l->done && strcmp(l->cursor, ">notes/3") == 0);
    if (l) {
        spc_list *l2 = NULL;
        o.cursor = l->cursor;
        ST(sp_list(C, "ls", &o, &l2), SP_OK);
        CHECK(l2 && l2->n == 2 && l2->done);
        spc_list_free(l2);
    }
    spc_list_free(l);
    memset(&o, 0, sizeof(o));
    o.cursor = "bogus";
    ST(sp_list(C, "ls", &o, &l), SP_ERR_SERVER);
    CHECK(l == NULL);
    o.cursor = NULL;
    o.count = -1;
    ST(sp_list(C, "ls", &o, &l), SP_ERR_ARG);
}

/* The iterator visits every entry once across pages, also while entries are
 * added behind it and removed ahead of it. */
static void t_list_iter(void)
{
    spc_list_opts o;
    spc_list_iter *it = NULL;
    const spc_list_item *item;
    char name[32], seen[64];
    int i, n = 0, order_ok = 1;
    uint64_t v;
    size_t del;
    char prev[64] = "";

    for (i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "e%02d", i);
        ST(sp_write(C, "li", name, "x", 1, NULL, &v), SP_OK);
    }
    memset(&o, 0, sizeof(o));
    o.count = 7;
    o.withmeta = 1;
    o.cursor = "ignored";
    ST(spc_list_iter_new(C, "li", &o, &it), SP_OK);
    memset(seen, 0, sizeof(seen));
    while (it && spc_list_iter_next(it, &item) == SP_OK && item) {
        int k = atoi(item->name + 1);
        if (strcmp(prev, item->name) >= 0)
            order_ok = 0;
        snprintf(prev, sizeof(prev), "%s", item->name);
        if (k >= 0 && k < 64)
            seen[k]++;
        CHECK(item->version == 1 && item->size == 1);
        n++;
        if (n == 10) {
            const char *gone[] = {"e20"};
            ST(sp_write(C, "li", "a-before", "x", 1, NULL, &v), SP_OK); /* behind: not seen */
            ST(sp_del(C, "li", gone, 1, &del), SP_OK);                 /* ahead: not seen */
        }
    }
    CHECK(spc_err(C) == SP_OK);
    CHECKF(n == 24, "visited %d entries", n);
    CHECK(order_ok);
    for (i = 0; i < 25; i++)
        CHECK(seen[i] == (i == 20 ? 0 : 1));
    ST(spc_list_iter_next(it, &item), SP_OK);
    CHECK(item == NULL);
    spc_list_iter_free(it);
    ST(spc_list_iter_new(C, "li-missing", NULL, &it), SP_OK);
    ST(spc_list_iter_next(it, &item), SP_OK);
    CHECK(item == NULL);
    spc_list_iter_free(it);
    spc_list_iter_free(NULL);
    ST(spc_list_iter_new(C, NULL, NULL, &it), SP_ERR_ARG);
    CHECK(it == NULL);
}

static void t_edit(void)
{
    const char *plan = "1. read logs\n2. find the bug\n3. fix the bug\n";
    spc_edit_opts o = {0};
    spc_content *out = NULL;
    size_t count = 9;
    uint64_t v = 9;

    ST(sp_write(C, "ed", "plan", plan, strlen(plan), NULL, &v), SP_OK);
    ST(sp_edit(C, "ed", "plan", "read logs", 9, "read the logs", 13, NULL, &count, &v), SP_OK);
    CHECK(count == 1 && v == 2);
    ST(sp_edit(C, "ed", "plan", "the bug", 7, "it", 2, NULL, &count, &v), SP_ERR_AMBIGUOUS);
    CHECKF(strstr(spc_errstr(C), "2 times") && strstr(spc_errstr(C), "lines 2, 3"), "message [%s]", spc_errstr(C));
    CHECK(count == 0 && v == 0);
    ST(sp_edit(C, "ed", "plan", "4. ship", 7, "x", 1, NULL, &count, &v), SP_ERR_NOMATCH);
    CHECK(strstr(spc_errstr(C), "not found") != NULL);
    o.all = 1;
    ST(sp_edit(C, "ed", "plan", "the bug", 7, "it", 2, &o, &count, &v), SP_OK);
    CHECK(count == 2 && v == 3);
    ST(sp_read(C, "ed", "plan", NULL, &out), SP_OK);
    CONTENT(out, "1. read the logs\n2. find it\n3. fix it\n");
    spc_content_free(out);
    o.all = 0;
    o.ifversion = 2;
    ST(sp_edit(C, "ed", "plan", "fix", 3, "patch", 5, &o, &count, &v), SP_ERR_VERSION);
    o.ifversion = 3;
    ST(sp_edit(C, "ed", "plan", "fix", 3, "", 0, &o, NULL, NULL), SP_OK);
    ST(sp_edit(C, "ed", "missing", "a", 1, "b", 1, NULL, &count, &v), SP_ERR_NOTFOUND);
    CHECK(strstr(spc_errstr(C), "no such entry") != NULL);
    ST(sp_edit(C, "ed", "plan", "", 0, "b", 1, NULL, &count, &v), SP_ERR_SERVER);
}

static void t_insert(void)
{
    spc_insert_opts o = {0};
    spc_content *out = NULL;
    uint64_t v = 0;

    ST(sp_write(C, "in", "t", "b\nd\n", 4, NULL, &v), SP_OK);
    ST(sp_insert(C, "in", "t", 0, "a", 1, NULL, &v), SP_OK);
    CHECK(v == 2);
    ST(sp_insert(C, "in", "t", 2, "c\n", 2, NULL, &v), SP_OK);
    ST(sp_insert(C, "in", "t", -1, "e", 1, NULL, &v), SP_OK);
    CHECK(v == 4);
    ST(sp_read(C, "in", "t", NULL, &out), SP_OK);
    CONTENT(out, "a\nb\nc\nd\ne");
    spc_content_free(out);
    o.ifversion = 3;
    ST(sp_insert(C, "in", "t", 0, "z", 1, &o, &v), SP_ERR_VERSION);
    CHECK(v == 0);
    ST(sp_insert(C, "in", "nope", 0, "z", 1, NULL, &v), SP_ERR_NOTFOUND);
    ST(sp_insert(C, "in", "t", -5, "z", 1, NULL, &v), SP_ERR_SERVER);
}

static void t_del(void)
{
    const char *names[] = {"a", "b", "zz"};
    spc_info info;
    size_t n = 9;
    uint64_t v;

    ST(sp_write(C, "dl", "a", "1", 1, NULL, &v), SP_OK);
    ST(sp_write(C, "dl", "b", "2", 1, NULL, &v), SP_OK);
    ST(sp_write(C, "dl", "c", "3", 1, NULL, &v), SP_OK);
    ST(sp_del(C, "dl", names, 3, &n), SP_OK);
    CHECK(n == 2);
    ST(sp_del(C, "dl", names, 1, &n), SP_OK);
    CHECK(n == 0);
    ST(sp_info(C, "dl", &info), SP_OK);
    CHECK(info.entries == 1);
    names[0] = "c";
    ST(sp_del(C, "dl", names, 1, NULL), SP_OK);
    ST(sp_info(C, "dl", &info), SP_ERR_NOTFOUND);
    CHECK(info.entries == 0);
    ST(sp_del(C, "dl", names, 0, &n), SP_ERR_ARG);
    ST(sp_del(C, "dl", NULL, 1, &n), SP_ERR_ARG);
}

static void t_stat(void)
{
    spc_stat st;
    uint64_t v;
    size_t n = 200000, i;
    char *big = malloc(n);

    ST(sp_write(C, "st", "abc", "abc", 3, NULL, &v), SP_OK);
    ST(sp_stat(C, "st", "abc", &st), SP_OK);
    CHECK(st.kind == SPC_KIND_TEXT && st.size == 3 && st.length == 3 && st.lines == 1 && st.version == 1);
    CHECK(st.created > 0 && st.updated > 0 && st.ttl == -1);
    CHECK(strcmp(st.encoding, "raw") == 0 && st.chunks == 0 && st.stored > 0);
    CHECK(strcmp(st.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    for (i = 0; i < n; i++)
        big[i] = (i % 80 == 79) ? '\n' : (char)('a' + i % 13);
    ST(sp_write(C, "st", "big", big, n, NULL, &v), SP_OK);
    ST(sp_stat(C, "st", "big", &st), SP_OK);
    CHECK(strcmp(st.encoding, "lz4") == 0 && st.chunks >= 3 && st.stored < n / 2 && st.lines == n / 80);
    ST(sp_stat(C, "st", "missing", &st), SP_ERR_NOTFOUND);
    CHECK(st.size == 0 && st.encoding[0] == '\0');
    free(big);
}

static void t_peek(void)
{
    spc_peek_opts o = {0};
    spc_content *out = NULL;
    char big[2000];
    uint64_t v;
    size_t i;

    ST(sp_write(C, "pk", "short", "hello", 5, NULL, &v), SP_OK);
    ST(sp_peek(C, "pk", "short", NULL, &out), SP_OK);
    CONTENT(out, "hello");
    spc_content_free(out);
    for (i = 0; i < sizeof(big); i++)
        big[i] = (char)('a' + i % 26);
    ST(sp_write(C, "pk", "long", big, sizeof(big), NULL, &v), SP_OK);
    ST(sp_peek(C, "pk", "long", NULL, &out), SP_OK);
    CHECK(out && strstr(out->data, "[... 1000 characters omitted ...]") != NULL);
    CHECK(out && memcmp(out->data, big, 500) == 0);
    spc_content_free(out);
    o.head = 3;
    o.tail = SPC_PEEK_NONE;
    ST(sp_peek(C, "pk", "long", &o, &out), SP_OK);
    CONTENT(out, "abc\n[... 1997 characters omitted ...]\n");
    spc_content_free(out);
    o.head = SPC_PEEK_NONE;
    o.tail = 2;
    ST(sp_peek(C, "pk", "long", &o, &out), SP_OK);
    CHECK(out && out->len > 2 && memcmp(out->data + out->len - 2, big + sizeof(big) - 2, 2) == 0);
    spc_content_free(out);
    ST(sp_write(C, "pk", "bin", "\x00\x01\x02", 3, NULL, &v), SP_OK);
    ST(sp_peek(C, "pk", "bin", NULL, &out), SP_OK);
    CHECK(out && strncmp(out->data, "[BINARY: 3 bytes, sha256=", 25) == 0);
    spc_content_free(out);
    ST(sp_peek(C, "pk", "missing", NULL, &out), SP_ERR_NOTFOUND);
    CHECK(out == NULL);
    o.head = -5;
    ST(sp_peek(C, "pk", "long", &o, &out), SP_ERR_ARG);
}

static void t_offload(void)
{
    spc_offload_opts o = {0};
    spc_offload *r = NULL;
    spc_content *out = NULL;
    size_t n = 10000, i;
    char *big = malloc(n);

    for (i = 0; i < n; i++)
        big[i] = (i % 50 == 49) ? '\n' : 'x';
    ST(sp_offload(C, "of", "small output", 12, NULL, &r), SP_OK);
    CHECK(r && !r->stored && r->content_len == 12 && memcmp(r->content, "small output", 12) == 0 && !r->name);
    spc_offload_free(r);
    ST(sp_offload(C, "of", big, n, NULL, &r), SP_OK);
    CHECK(r && r->stored && r->name && strcmp(r->name, "obs-1") == 0 && r->name_len == 5);
    CHECK(r && r->size == n && r->length == n && r->kind == SPC_KIND_TEXT && !r->content);
    CHECK(r && r->preview && strstr(r->preview, "characters omitted") != NULL);
    if (r && r->stored) {
        ST(sp_read(C, "of", r->name, NULL, &out), SP_OK);
        CHECK(out && out->len == n && memcmp(out->data, big, n) == 0);
        spc_content_free(out);
    }
    spc_offload_free(r);
    o.threshold = SPC_OFFLOAD_ALWAYS;
    o.prefix = "tool/grep";
    o.ttl_ms = 60000;
    ST(sp_offload(C, "of", "tiny", 4, &o, &r), SP_OK);
    CHECK(r && r->stored && strcmp(r->name, "tool/grep-1") == 0); /* one counter per prefix */
    spc_offload_free(r);
    o.separator = '_';
    ST(sp_offload(C, "of", "tiny", 4, &o, &r), SP_OK);
    CHECK(r && r->stored && strcmp(r->name, "tool/grep_1") == 0); /* <prefix>_<n>: a counter of its own */
    spc_offload_free(r);
    o.separator = '.';
    ST(sp_offload(C, "of", "tiny", 4, &o, &r), SP_ERR_ARG);
    CHECK(r == NULL);
    memset(&o, 0, sizeof(o));
    o.threshold = 3;
    ST(sp_offload(C, "of", "four", 4, &o, &r), SP_OK);
    CHECK(r && r->stored);
    spc_offload_free(r);
    o.prefix = "bad prefix";
    ST(sp_offload(C, "of", big, n, &o, &r), SP_ERR_NAME);
    CHECK(r == NULL);
    spc_offload_free(NULL);
    free(big);
}

static void t_lifetimes(void)
{
    long long ttl = 0;
    int removed = 9;
    uint64_t v;
    spc_content *out = NULL;

    ST(sp_write(C, "lt", "e", "x", 1, NULL, &v), SP_OK);
    ST(sp_ttl(C, "lt", "e", &ttl), SP_OK);
    CHECK(ttl == -1);
    ST(sp_expire(C, "lt", "e", 100), SP_OK);
    ST(sp_ttl(C, "lt", "e", &ttl), SP_OK);
    CHECKF(ttl == 100, "ttl %lld", ttl);
    ST(sp_pexpire(C, "lt", "e", 50000), SP_OK);
    ST(sp_pttl(C, "lt", "e", &ttl), SP_OK);
    CHECKF(ttl > 40000 && ttl <= 50000, "pttl %lld", ttl);
    ST(sp_persist(C, "lt", "e", &removed), SP_OK);
    CHECK(removed == 1);
    ST(sp_persist(C, "lt", "e", &removed), SP_OK);
    CHECK(removed == 0);
    ST(sp_persist(C, "lt", "missing", &removed), SP_OK);
    CHECK(removed == 0);
    ST(sp_ttl(C, "lt", "missing", &ttl), SP_ERR_NOTFOUND);
    CHECK(ttl == -2);
    ST(sp_pttl(C, "lt", "missing", &ttl), SP_ERR_NOTFOUND);
    CHECK(ttl == -2);
    ST(sp_expire(C, "lt", "missing", 10), SP_ERR_NOTFOUND);
    ST(sp_pexpire(C, "lt", "missing", 10), SP_ERR_NOTFOUND);
    ST(sp_write(C, "lt", "short", "x", 1, NULL, &v), SP_OK);
    ST(sp_pexpire(C, "lt", "short", 30), SP_OK);
    it_sleep_ms(120);
    ST(sp_read(C, "lt", "short", NULL, &out), SP_ERR_NOTFOUND);
    ST(sp_expire(C, "lt", "e", 0), SP_OK);
    ST(sp_read(C, "lt", "e", NULL, &out), SP_ERR_NOTFOUND);
}

static void t_info(void)
{
    spc_info in;
    uint64_t v;

    ST(sp_info(C, "if-missing", &in), SP_ERR_NOTFOUND);
    ST(sp_write(C, "if", "a", "hello", 5, NULL, &v), SP_OK);
    ST(sp_write(C, "if", "b", "world!", 6, NULL, &v), SP_OK);
    ST(sp_info(C, "if", &in), SP_OK);
    CHECK(in.entries == 2 && in.bytes == 11 && in.stored_bytes > 0);
    CHECK(in.compression_ratio > 0.0);
    CHECK(in.oldest_update > 0 && in.newest_update >= in.oldest_update);
}

static void t_wrongtype(void)
{
    spc_content *out = NULL;
    spc_grep *g = NULL;
    spc_list *l = NULL;
    spc_offload *of = NULL;
    spc_stat st;
    spc_info in;
    const char *names[] = {"a"};
    uint64_t v;
    size_t n;
    long long ttl;
    int rm;

    raw("SET plainstring value");
    ST(sp_write(C, "plainstring", "a", "x", 1, NULL, &v), SP_ERR_WRONGTYPE);
    CHECK(strncmp(spc_errstr(C), "WRONGTYPE", 9) == 0);
    ST(sp_append(C, "plainstring", "a", "x", 1, NULL, &n), SP_ERR_WRONGTYPE);
    ST(sp_read(C, "plainstring", "a", NULL, &out), SP_ERR_WRONGTYPE);
    CHECK(out == NULL);
    ST(sp_range(C, "plainstring", "a", 0, 1, NULL, &out), SP_ERR_WRONGTYPE);
    ST(sp_grep(C, "plainstring", "a", "x", NULL, &g), SP_ERR_WRONGTYPE);
    ST(sp_list(C, "plainstring", NULL, &l), SP_ERR_WRONGTYPE);
    CHECK(l == NULL);
    ST(sp_edit(C, "plainstring", "a", "x", 1, "y", 1, NULL, &n, &v), SP_ERR_WRONGTYPE);
    ST(sp_insert(C, "plainstring", "a", 0, "x", 1, NULL, &v), SP_ERR_WRONGTYPE);
    ST(sp_del(C, "plainstring", names, 1, &n), SP_ERR_WRONGTYPE);
    ST(sp_stat(C, "plainstring", "a", &st), SP_ERR_WRONGTYPE);
    ST(sp_peek(C, "plainstring", "a", NULL, &out), SP_ERR_WRONGTYPE);
    ST(sp_offload(C, "plainstring", "x", 1, NULL, &of), SP_ERR_WRONGTYPE);
    ST(sp_expire(C, "plainstring", "a", 5), SP_ERR_WRONGTYPE);
    ST(sp_ttl(C, "plainstring", "a", &ttl), SP_ERR_WRONGTYPE);
    ST(sp_persist(C, "plainstring", "a", &rm), SP_ERR_WRONGTYPE);
    ST(sp_info(C, "plainstring", &in), SP_ERR_WRONGTYPE);
    ST(spc_ping(C), SP_OK);
}

static void t_bad_names(void)
{
    static const char *bad[] = {"", "a b", "../x", "a//b", "./a", "x/..", "caf\xc3\xa9", NULL};
    spc_content *out = NULL;
    uint64_t v;
    int i;

    for (i = 0; bad[i]; i++) {
        ST(sp_write(C, "bn", bad[i], "x", 1, NULL, &v), SP_ERR_NAME);
        CHECKF(strstr(spc_errstr(C), "invalid entry name") != NULL, "message [%s]", spc_errstr(C));
        ST(sp_read(C, "bn", bad[i], NULL, &out), SP_ERR_NAME);
    }
    ST(sp_write(C, "bn", "a b", "x", 1, NULL, &v), SP_ERR_NAME);
    CHECK(strstr(spc_errstr(C), "'a b'") != NULL);
    ST(sp_write(C, "bn", "ok.name:with/parts-1_2", "x", 1, NULL, &v), SP_OK);
}

static void t_batch(void)
{
    uint64_t v1 = 0, v2 = 0;
    size_t len = 0, deleted = 9;
    spc_content *head = NULL, *missing = (spc_content *)1;
    spc_grep *g = NULL;
    spc_stat st;
    spc_list *l = NULL;
    int status[8], i;
    spc_read_opts ro;
    const char *names[] = {"tmp"};

    memset(&ro, 0, sizeof(ro));
    ro.window = SPC_HEAD;
    ro.count = 5;
    ST(spc_batch_begin(C), SP_OK);
    ST(spc_batch_begin(C), SP_ERR_ARG);
    ST(sp_write(C, "bt", "plan", "alpha\nbeta\n", 11, NULL, &v1), SP_OK);
    ST(sp_append(C, "bt", "plan", "gamma\n", 6, NULL, &len), SP_OK);
    ST(sp_read(C, "bt", "plan", &ro, &head), SP_OK);
    ST(sp_read(C, "bt", "nothing", NULL, &missing), SP_OK);
    ST(sp_grep(C, "bt", "plan", "a$", NULL, &g), SP_OK);
    ST(sp_write(C, "bt", "tmp", "x", 1, NULL, &v2), SP_OK);
    ST(sp_del(C, "bt", names, 1, &deleted), SP_OK);
    ST(sp_stat(C, "bt", "plan", &st), SP_OK);
    ST(sp_write(C, "bt", NULL, "x", 1, NULL, &v2), SP_ERR_ARG); /* not queued */
    CHECK(spc_batch_count(C) == 8);
    CHECK(v1 == 0 && head == NULL && missing == (spc_content *)1); /* nothing filled yet */
    ST(spc_batch_exec(C, status, 8), SP_ERR_NOTFOUND);
    CHECK(strlen(spc_errstr(C)) > 0);
    for (i = 0; i < 8; i++)
        CHECKF(status[i] == (i == 3 ? SP_ERR_NOTFOUND : SP_OK), "status[%d] = %s", i, spc_status_name(status[i]));
    CHECK(v1 == 1 && len == 17 && v2 == 1 && deleted == 1);
    CONTENT(head, "alpha");
    CHECK(missing == NULL);
    CHECK(g && g->n == 3 && g->lines[0].lineno == 1 && g->lines[2].lineno == 3);
    CHECK(st.version == 2 && st.lines == 3);
    spc_content_free(head);
    spc_grep_free(g);
    CHECK(spc_batch_count(C) == 0);
    ST(spc_batch_exec(C, NULL, 0), SP_ERR_ARG);

    /* An empty batch, a discarded batch, and what cannot be batched. */
    ST(spc_batch_begin(C), SP_OK);
    ST(spc_batch_exec(C, NULL, 0), SP_OK);
    ST(spc_batch_begin(C), SP_OK);
    ST(sp_write(C, "bt", "discarded", "x", 1, NULL, &v1), SP_OK);
    ST(spc_ping(C), SP_ERR_ARG);
    {
        spc_list_iter *it = NULL;
        ST(spc_list_iter_new(C, "bt", NULL, &it), SP_ERR_ARG);
    }
    spc_batch_discard(C);
    ST(sp_list(C, "bt", NULL, &l), SP_OK);
    CHECK(l && l->n == 1);
    spc_list_free(l);
}

/* A thousand writes and reads in one batch: one round trip, all in order. */
static void t_batch_large(void)
{
    enum { N = 1000 };
    static uint64_t vers[N];
    static spc_content *outs[N];
    static int status[2 * N];
    static char name[N][24], val[N][24];
    int i, ok = 1;

    ST(spc_batch_begin(C), SP_OK);
    for (i = 0; i < N; i++) {
        snprintf(name[i], sizeof(name[i]), "k%04d", i);
        snprintf(val[i], sizeof(val[i]), "value %d", i);
        sp_write(C, "bl", name[i], val[i], strlen(val[i]), NULL, &vers[i]);
        sp_read(C, "bl", name[i], NULL, &outs[i]);
    }
    ST(spc_batch_exec(C, status, 2 * N), SP_OK);
    for (i = 0; i < N; i++) {
        if (status[2 * i] != SP_OK || status[2 * i + 1] != SP_OK || vers[i] != 1 || !content_is(outs[i], val[i]))
            ok = 0;
        spc_content_free(outs[i]);
    }
    CHECK(ok);
}

static int str_is(const char *p, size_t len, const char *s)
{
    return p && len == strlen(s) && memcmp(p, s, len) == 0;
}

static void t_leases(void)
{
    spc_lease l1, l2, l3;
    spc_leases *ls = NULL;
    spc_write_opts wo;
    spc_append_opts ao;
    spc_edit_opts eo;
    spc_insert_opts io;
    spc_offload_opts oo;
    spc_offload *off = NULL;
    uint64_t v = 0;
    size_t len = 0;
    int released = -1;

    ST(sp_lease(C, "lz", "plan", "agent-a", 60000, 0, &l1), SP_OK);
    CHECK(l1.token > 0 && l1.expires_at > 0);
    ST(sp_lease(C, "lz", "plan", "agent-a", 90000, 0, &l2), SP_OK);
    CHECK(l2.token == l1.token && l2.expires_at > l1.expires_at);
    ST(sp_lease(C, "lz", "plan", "agent-b", 1000, 0, &l3), SP_ERR_LEASED);
    CHECKF(strstr(spc_errstr(C), "LEASED held by agent-a") != NULL, "message: %s", spc_errstr(C));
    CHECK(l3.token == 0);
    ST(sp_lease(C, "lz", "plan", "agent-b", 1000, 50, &l3), SP_ERR_LEASED); /* the wait ends */
    ST(sp_lease(C, "lz", "plan", "agent-b", 1000, -2, &l3), SP_ERR_ARG);
    ST(sp_leases(C, "lz", &ls), SP_OK);
    CHECK(ls && ls->n == 1 && str_is(ls->items[0].resource, ls->items[0].resource_len, "plan") &&
          str_is(ls->items[0].holder, ls->items[0].holder_len, "agent-a") && ls->items[0].token == l1.token &&
          ls->items[0].ms_left > 0);
    spc_leases_free(ls);

    memset(&wo, 0, sizeof(wo));
    wo.fence.resource = "plan";
    wo.fence.token = l1.token;
    ST(sp_write(C, "lz", "plan", "mine", 4, &wo, &v), SP_OK);
    CHECK(v == 1);
    wo.fence.token = l1.token + 1;
    ST(sp_write(C, "lz", "plan", "stale", 5, &wo, &v), SP_ERR_FENCED);
    CHECKF(strstr(spc_errstr(C), "FENCED") != NULL, "message: %s", spc_errstr(C));
    memset(&ao, 0, sizeof(ao));
    ao.fence = wo.fence;
    ST(sp_append(C, "lz", "plan", "x", 1, &ao, &len), SP_ERR_FENCED);
    memset(&eo, 0, sizeof(eo));
    eo.fence = wo.fence;
    ST(sp_edit(C, "lz", "plan", "mine", 4, "x", 1, &eo, NULL, NULL), SP_ERR_FENCED);
    memset(&io, 0, sizeof(io));
    io.fence = wo.fence;
    ST(sp_insert(C, "lz", "plan", 0, "x", 1, &io, NULL), SP_ERR_FENCED);
    memset(&oo, 0, sizeof(oo));
    oo.fence = wo.fence;
    ST(sp_offload(C, "lz", "x", 1, &oo, &off), SP_ERR_FENCED);
    CHECK(off == NULL);
    ao.fence.token = l1.token;
    ST(sp_append(C, "lz", "plan", "!", 1, &ao, &len), SP_OK);
    CHECK(len == 5);
    wo.fence.token = 0;
    ST(sp_write(C, "lz", "plan", "x", 1, &wo, &v), SP_ERR_ARG); /* a token is positive */

    ST(sp_release(C, "lz", "plan", "agent-b", l1.token, &released), SP_OK);
    CHECK(released == 0);
    ST(sp_release(C, "lz", "plan", "agent-a", l1.token, &released), SP_OK);
    CHECK(released == 1);
    ST(sp_leases(C, "lz", &ls), SP_OK);
    CHECK(ls && ls->n == 0);
    spc_leases_free(ls);
    ST(sp_lease(C, "lz", "plan", "agent-b", 1000, 0, &l3), SP_OK);
    CHECK(l3.token > l1.token);
}

static void t_changes(void)
{
    spc_changes *ch = NULL;
    spc_changes_opts o;
    const char *names[] = {"b"};
    redisReply *r = redisCommand(spc_redis(C), "CLIENT SETNAME feed-writer");

    CHECK(r && r->type == REDIS_REPLY_STATUS);
    freeReplyObject(r);
    ST(sp_write(C, "chg", "a", "one", 3, NULL, NULL), SP_OK);
    ST(sp_write(C, "chg", "b", "two", 3, NULL, NULL), SP_OK);
    ST(sp_append(C, "chg", "a", "!", 1, NULL, NULL), SP_OK);
    ST(sp_del(C, "chg", names, 1, NULL), SP_OK);
    ST(sp_changes(C, "chg", NULL, &ch), SP_OK);
    CHECK(ch && ch->n == 4 && !ch->gap && !ch->timed_out && ch->first == ch->items[0].seq &&
          ch->last == ch->items[3].seq);
    if (ch && ch->n == 4) {
        CHECK(strcmp(ch->items[0].op, "write") == 0 && str_is(ch->items[0].name, ch->items[0].name_len, "a") &&
              ch->items[0].version == 1 && ch->items[0].size == 3 &&
              str_is(ch->items[0].client, ch->items[0].client_len, "feed-writer"));
        CHECK(strcmp(ch->items[2].op, "append") == 0 && ch->items[2].version == 2 && ch->items[2].size == 4);
        CHECK(strcmp(ch->items[3].op, "del") == 0 && ch->items[3].version == 0);
        CHECK(ch->items[1].seq == ch->items[0].seq + 1);
    }
    memset(&o, 0, sizeof(o));
    o.since = ch ? ch->items[0].seq : 0;
    o.count = 2;
    spc_changes_free(ch);
    ch = NULL;
    ST(sp_changes(C, "chg", &o, &ch), SP_OK);
    CHECK(ch && ch->n == 2 && ch->items[0].seq == o.since + 1);
    o.since = ch ? ch->last : 0;
    spc_changes_free(ch);
    ch = NULL;
    o.block_ms = 50;
    ST(sp_changes(C, "chg", &o, &ch), SP_OK);
    CHECK(ch && ch->timed_out && ch->n == 0);
    spc_changes_free(ch);
    ch = NULL;
    o.block_ms = 0;
    o.since = 1;
    ST(sp_changes(C, "chg", &o, &ch), SP_OK);
    CHECK(ch && ch->gap && ch->n == 0 && ch->last > 0);
    spc_changes_free(ch);
    o.block_ms = -5;
    ST(sp_changes(C, "chg", &o, &ch), SP_ERR_ARG);
    CHECK(ch == NULL);
    r = redisCommand(spc_redis(C), "CLIENT SETNAME %s", "");
    freeReplyObject(r);
}

static void t_metadata(void)
{
    spc_meta_field f[2] = {{"source", "src/a.c", 7}, {"raw", "a\0b", 3}};
    spc_meta_field set[1] = {{"step", "4", 1}};
    spc_meta_field where[1] = {{"source", "src/a.c", 7}};
    spc_meta_field bad[1] = {{"bad field", "x", 1}};
    const char *del[] = {"step", "nope"};
    spc_write_opts wo;
    spc_list_opts lo;
    spc_offload_opts oo;
    spc_offload *off = NULL;
    spc_list *l = NULL;
    spc_meta *m = NULL;
    uint64_t v = 0;
    size_t removed = 9;

    memset(&wo, 0, sizeof(wo));
    wo.meta = f;
    wo.nmeta = 2;
    ST(sp_write(C, "md", "obs-1", "int main() {}", 13, &wo, &v), SP_OK);
    ST(sp_write(C, "md", "obs-2", "other", 5, NULL, &v), SP_OK);
    ST(sp_meta_get(C, "md", "obs-1", &m), SP_OK);
    CHECK(m && m->n == 2 && strcmp(m->fields[0].field, "raw") == 0 && m->fields[0].value_len == 3 &&
          memcmp(m->fields[0].value, "a\0b", 3) == 0 && strcmp(m->fields[1].field, "source") == 0 &&
          str_is(m->fields[1].value, m->fields[1].value_len, "src/a.c"));
    spc_meta_free(m);
    ST(sp_meta_get(C, "md", "obs-2", &m), SP_OK);
    CHECK(m && m->n == 0);
    spc_meta_free(m);
    ST(sp_meta_get(C, "md", "nope", &m), SP_ERR_NOTFOUND);
    CHECK(m == NULL);
    ST(sp_meta_set(C, "md", "obs-1", set, 1, NULL, &v), SP_OK);
    CHECK(v == 2);
    ST(sp_meta_set(C, "md", "obs-1", bad, 1, NULL, &v), SP_ERR_SERVER);
    CHECKF(strstr(spc_errstr(C), "invalid metadata field name") != NULL, "message: %s", spc_errstr(C));
    ST(sp_meta_set(C, "md", "nope", set, 1, NULL, &v), SP_ERR_NOTFOUND);
    ST(sp_meta_set(C, "md", "obs-1", NULL, 0, NULL, &v), SP_ERR_ARG);

    memset(&lo, 0, sizeof(lo));
    lo.withmeta = 1;
    lo.where = where;
    lo.nwhere = 1;
    ST(sp_list(C, "md", &lo, &l), SP_OK);
    CHECK(l && l->n == 1 && str_is(l->items[0].name, l->items[0].name_len, "obs-1") && l->items[0].nmeta == 3 &&
          strcmp(l->items[0].meta[2].field, "step") == 0);
    spc_list_free(l);
    lo.where = NULL;
    lo.nwhere = 0;
    ST(sp_list(C, "md", &lo, &l), SP_OK);
    CHECK(l && l->n == 2 && l->items[1].nmeta == 0 && l->items[1].meta == NULL);
    spc_list_free(l);

    ST(sp_meta_del(C, "md", "obs-1", del, 2, NULL, &removed, &v), SP_OK);
    CHECK(removed == 1 && v == 3);
    ST(sp_meta_clear(C, "md", "obs-1", NULL, &removed, &v), SP_OK);
    CHECK(removed == 2 && v == 4);
    ST(sp_meta_clear(C, "md", "obs-1", NULL, &removed, &v), SP_OK);
    CHECK(removed == 0 && v == 4);

    memset(&oo, 0, sizeof(oo));
    oo.threshold = SPC_OFFLOAD_ALWAYS;
    oo.meta = set;
    oo.nmeta = 1;
    ST(sp_offload(C, "md", "output", 6, &oo, &off), SP_OK);
    CHECK(off && off->stored);
    if (off && off->stored) {
        ST(sp_meta_get(C, "md", off->name, &m), SP_OK);
        CHECK(m && m->n == 1 && strcmp(m->fields[0].field, "step") == 0);
        spc_meta_free(m);
    }
    spc_offload_free(off);
}

static void t_snapshots(void)
{
    spc_snapshots *ss = NULL;
    spc_diff *d = NULL;
    spc_content *txt = NULL;
    spc_read_opts ro;
    const char *names[] = {"notes"};
    size_t n = 0;
    int dropped = -1, status[3];
    uint64_t v = 0;

    ST(sp_snapshot(C, "snap", "before", NULL, &n), SP_ERR_SERVER); /* no such scratchpad */
    ST(sp_write(C, "snap", "plan", "1. read\n2. code\n3. test\n", 24, NULL, NULL), SP_OK);
    ST(sp_write(C, "snap", "notes", "a\nb\n", 4, NULL, NULL), SP_OK);
    ST(sp_snapshot(C, "snap", "before", NULL, &n), SP_OK);
    CHECK(n == 2);
    ST(sp_snapshot(C, "snap", "NOW", NULL, &n), SP_ERR_SERVER);
    CHECKF(strstr(spc_errstr(C), "NOW is reserved") != NULL, "message: %s", spc_errstr(C));
    ST(sp_snapshots(C, "snap", &ss), SP_OK);
    CHECK(ss && ss->n == 1 && str_is(ss->items[0].label, ss->items[0].label_len, "before") &&
          ss->items[0].entries == 2 && ss->items[0].bytes == 28 && ss->items[0].time > 0);
    spc_snapshots_free(ss);

    ST(sp_edit(C, "snap", "plan", "code", 4, "fix", 3, NULL, NULL, NULL), SP_OK);
    ST(sp_del(C, "snap", names, 1, NULL), SP_OK);
    ST(sp_write(C, "snap", "result", "42", 2, NULL, NULL), SP_OK);
    ST(sp_diff(C, "snap", "before", SPC_NOW, &d), SP_OK);
    CHECK(d && d->n == 3);
    if (d && d->n == 3) {
        CHECK(d->items[0].status == SPC_DIFF_REMOVED && str_is(d->items[0].name, d->items[0].name_len, "notes") &&
              d->items[0].old_version == 1 && d->items[0].new_version == 0 && d->items[0].old_size == 4);
        CHECK(d->items[1].status == SPC_DIFF_CHANGED && d->items[1].old_version == 1 && d->items[1].new_version == 2 &&
              d->items[1].old_size == 24 && d->items[1].new_size == 23);
        CHECK(d->items[2].status == SPC_DIFF_ADDED && d->items[2].new_version == 1 && d->items[2].new_size == 2);
    }
    spc_diff_free(d);
    ST(sp_diff_entry(C, "snap", "before", SPC_NOW, "plan", &txt), SP_OK);
    CONTENT(txt, "--- plan@before\n+++ plan@NOW\n@@ -1,3 +1,3 @@\n 1. read\n-2. code\n+2. fix\n 3. test\n");
    spc_content_free(txt);
    ST(sp_diff_entry(C, "snap", "before", "before", "plan", &txt), SP_OK);
    CONTENT(txt, "");
    spc_content_free(txt);
    ST(sp_diff_entry(C, "snap", "before", SPC_NOW, "nope", &txt), SP_ERR_NOTFOUND);
    CHECK(txt == NULL);
    ST(sp_diff(C, "snap", "nosuch", SPC_NOW, &d), SP_ERR_SERVER);
    CHECK(d == NULL && strstr(spc_errstr(C), "no such snapshot") != NULL);

    ST(sp_fork(C, "snap", "snap-fork", "before", NULL, &n), SP_OK);
    CHECK(n == 2);
    memset(&ro, 0, sizeof(ro));
    ST(sp_read(C, "snap-fork", "notes", &ro, &txt), SP_OK);
    CONTENT(txt, "a\nb\n");
    spc_content_free(txt);
    ST(sp_fork(C, "snap", "snap-fork", NULL, NULL, &n), SP_ERR_SERVER); /* the target exists */

    ST(sp_restore(C, "snap", "before", NULL, &n), SP_OK);
    CHECK(n == 3);
    ST(sp_read(C, "snap", "notes", NULL, &txt), SP_OK);
    CONTENT(txt, "a\nb\n");
    spc_content_free(txt);

    /* in a batch, the new commands fill their outputs as the direct calls do */
    ST(spc_batch_begin(C), SP_OK);
    sp_snapshot(C, "snap", "after", NULL, &n);
    sp_snapshots(C, "snap", &ss);
    sp_revert(C, "snap", "plan", 1, NULL, &v);
    ST(spc_batch_exec(C, status, 3), SP_ERR_SERVER); /* the revert: version 1 is no longer kept */
    CHECK(status[0] == SP_OK && status[1] == SP_OK && status[2] == SP_ERR_SERVER && n == 2 && ss && ss->n == 2);
    spc_snapshots_free(ss);

    ST(sp_dropsnapshot(C, "snap", "before", NULL, &dropped), SP_OK);
    CHECK(dropped == 1);
    ST(sp_dropsnapshot(C, "snap", "before", NULL, &dropped), SP_OK);
    CHECK(dropped == 0);
}

static void t_history(void)
{
    spc_history *h = NULL;
    spc_content *txt = NULL;
    spc_read_opts ro;
    spc_lease l;
    spc_fence fence;
    uint64_t v = 0;
    redisReply *r = redisCommand(spc_redis(C), "CLIENT SETNAME historian");

    freeReplyObject(r);
    ST(sp_write(C, "hist", "plan", "1. read\n2. code\n", 16, NULL, NULL), SP_OK);
    ST(sp_edit(C, "hist", "plan", "code", 4, "fix", 3, NULL, NULL, NULL), SP_OK);
    ST(sp_history(C, "hist", "plan", &h), SP_OK);
    CHECK(h && h->n == 2);
    if (h && h->n == 2) {
        CHECK(h->items[0].version == 1 && strcmp(h->items[0].op, "write") == 0 && h->items[0].size == 16 &&
              str_is(h->items[0].client, h->items[0].client_len, "historian") && h->items[0].time > 0);
        CHECK(h->items[1].version == 2 && strcmp(h->items[1].op, "edit") == 0 && h->items[1].size == 15);
    }
    spc_history_free(h);
    ST(sp_history(C, "hist", "nope", &h), SP_ERR_NOTFOUND);
    CHECK(h == NULL);

    memset(&ro, 0, sizeof(ro));
    ro.window = SPC_LINES;
    ro.from = 2;
    ro.to = 2;
    ro.withmeta = 1;
    ro.version = 1;
    ST(sp_read(C, "hist", "plan", &ro, &txt), SP_OK);
    CONTENT(txt, "2. code\n");
    CHECK(txt && txt->has_meta && txt->meta.version == 1);
    spc_content_free(txt);
    ro.version = 9;
    ST(sp_read(C, "hist", "plan", &ro, &txt), SP_ERR_SERVER);
    CHECK(txt == NULL && strstr(spc_errstr(C), "no version 9") != NULL);

    ST(sp_lease(C, "hist", "plan", "me", 60000, 0, &l), SP_OK);
    fence.resource = "plan";
    fence.token = l.token + 1;
    ST(sp_revert(C, "hist", "plan", 1, &fence, &v), SP_ERR_FENCED);
    fence.token = l.token;
    ST(sp_revert(C, "hist", "plan", 1, &fence, &v), SP_OK);
    CHECK(v == 3);
    ST(sp_read(C, "hist", "plan", NULL, &txt), SP_OK);
    CONTENT(txt, "1. read\n2. code\n");
    spc_content_free(txt);
    ST(sp_revert(C, "hist", "nope", 1, NULL, &v), SP_ERR_NOTFOUND);
    CHECK(v == 0);
    r = redisCommand(spc_redis(C), "CLIENT SETNAME %s", "");
    freeReplyObject(r);
}

static void t_status_names(void)
{
    CHECK(strcmp(spc_status_name(SP_OK), "SP_OK") == 0);
    CHECK(strcmp(spc_status_name(SP_ERR_IO), "SP_ERR_IO") == 0);
    CHECK(strcmp(spc_status_name(SP_ERR_OOM), "SP_ERR_OOM") == 0);
    CHECK(strcmp(spc_status_name(SP_ERR_AMBIGUOUS), "SP_ERR_AMBIGUOUS") == 0);
    CHECK(strcmp(spc_status_name(SP_ERR_LEASED), "SP_ERR_LEASED") == 0);
    CHECK(strcmp(spc_status_name(SP_ERR_FENCED), "SP_ERR_FENCED") == 0);
    CHECK(strcmp(spc_status_name(-1), "SP_ERR_UNKNOWN") == 0);
    CHECK(strcmp(spc_status_name(99), "SP_ERR_UNKNOWN") == 0);
    CHECK(spc_err(NULL) == SP_ERR_OOM && spc_errstr(NULL)[0]);
    CHECK(sp_write(NULL, "a", "b", "c", 1, NULL, NULL) == SP_ERR_ARG);
}

static void t_unix_socket(void)
{
    it_server us;
    char path[512], arg[520];
    const char *extra[3];
    spc_ctx *c;
    uint64_t v = 0;

    snprintf(path, sizeof(path), "%s/spc-test-%d.sock", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    snprintf(arg, sizeof(arg), "%s", path);
    extra[0] = "--unixsocket";
    extra[1] = arg;
    extra[2] = NULL;
    if (it_server_start(&us, extra) < 0) {
        it_case_failed = 1;
        return;
    }
    c = spc_connect_unix(path);
    CHECK(c && spc_err(c) == SP_OK);
    ST(sp_write(c, "ux", "a", "x", 1, NULL, &v), SP_OK);
    CHECK(v == 1);
    spc_free(c);
    c = spc_connect_unix("/nonexistent/spc.sock");
    CHECK(c && spc_err(c) == SP_ERR_IO);
    spc_free(c);
    it_server_stop(&us);
    unlink(path);
}

static void t_auth(void)
{
    it_server as;
    const char *extra[] = {"--requirepass", "s3cret", NULL};
    spc_options o;
    spc_ctx *c;
    uint64_t v;

    if (it_server_start(&as, extra) < 0) {
        it_case_failed = 1;
        return;
    }
    memset(&o, 0, sizeof(o));
    o.port = as.port;
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_OK);
    if (c) {
        int st = sp_write(c, "au", "a", "x", 1, NULL, &v);
        CHECKF(st == SP_ERR_AUTH, "got %s", spc_status_name(st));
        CHECK(strncmp(spc_errstr(c), "NOAUTH", 6) == 0);
    }
    spc_free(c);
    o.password = "wrong";
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_ERR_AUTH && strstr(spc_errstr(c), "WRONGPASS"));
    if (c)
        CHECK(sp_write(c, "au", "a", "x", 1, NULL, &v) == SP_ERR_AUTH);
    spc_free(c);
    o.password = "s3cret";
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_OK);
    if (c) {
        CHECK(sp_write(c, "au", "a", "x", 1, NULL, &v) == SP_OK && v == 1);
        /* Reconnecting authenticates again. */
        CHECK(spc_reconnect(c) == SP_OK);
        CHECK(sp_write(c, "au", "a", "y", 1, NULL, &v) == SP_OK && v == 2);
    }
    spc_free(c);
    o.username = "default";
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_OK);
    spc_free(c);
    it_server_stop(&as);
}

/* An ACL user: the connection authenticates as it (AUTH user password), its
 * own scratchpads work, another agent's are refused with SP_ERR_NOPERM. */
static void t_acl_user(void)
{
    it_server as;
    const char *extra[] = {"--user", "agent-a", "on", ">pw-a", "~agent-a:*", "+@all", "-@dangerous", NULL};
    spc_options o;
    spc_ctx *c;
    uint64_t v;

    if (it_server_start(&as, extra) < 0) {
        it_case_failed = 1;
        return;
    }
    memset(&o, 0, sizeof(o));
    o.port = as.port;
    o.username = "agent-a";
    o.password = "wrong";
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_ERR_AUTH && strstr(spc_errstr(c), "WRONGPASS"));
    spc_free(c);
    o.password = "pw-a";
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_OK);
    if (c) {
        CHECK(sp_write(c, "agent-a:notes", "a", "x", 1, NULL, &v) == SP_OK && v == 1);
        CHECK(sp_write(c, "agent-b:notes", "a", "x", 1, NULL, &v) == SP_ERR_NOPERM);
        CHECK(strcmp(spc_errstr(c), "NOPERM this user has no permissions to access one of the keys used as "
                                    "arguments") == 0);
        CHECK(strcmp(spc_status_name(SP_ERR_NOPERM), "SP_ERR_NOPERM") == 0);
        /* not sticky: the connection goes on */
        CHECK(sp_write(c, "agent-a:notes", "a", "y", 1, NULL, &v) == SP_OK && v == 2);
    }
    spc_free(c);
    it_server_stop(&as);
}

/* The server goes away: calls fail with SP_ERR_IO and keep failing, then
 * spc_reconnect to a new server on the same port works again. */
static void t_server_gone(void)
{
    it_server gs, gs2;
    spc_ctx *c;
    uint64_t v;
    spc_content *out = (spc_content *)1;
    int port;

    if (it_server_start(&gs, NULL) < 0) {
        it_case_failed = 1;
        return;
    }
    port = gs.port;
    c = connect_port(port);
    CHECK(c && spc_err(c) == SP_OK);
    ST(sp_write(c, "g", "a", "x", 1, NULL, &v), SP_OK);
    it_server_stop(&gs);
    CHECK(sp_read(c, "g", "a", NULL, &out) == SP_ERR_IO && out == NULL);
    CHECK(strlen(spc_errstr(c)) > 0);
    CHECK(sp_write(c, "g", "a", "x", 1, NULL, &v) == SP_ERR_IO);
    CHECK(spc_reconnect(c) == SP_ERR_IO);
    if (it_server_start_on(&gs2, port, NULL) == 0) {
        CHECK(spc_reconnect(c) == SP_OK);
        CHECK(sp_write(c, "g", "a", "x", 1, NULL, &v) == SP_OK && v == 1);
        it_server_stop(&gs2);
    } else {
        fprintf(stderr, "    (could not restart on port %d; skipped the reconnect check)\n", port);
    }
    spc_free(c);
}

int main(void)
{
    it_init(240);
    if (it_server_start(&srv, NULL) < 0) {
        printf("not ok - the test server starts\n");
        return 1;
    }
    C = connect_port(srv.port);
    if (!C || spc_err(C) != SP_OK) {
        printf("not ok - the library connects to the test server\n");
        return 1;
    }
    RUN(t_refused, "connecting where nothing listens gives SP_ERR_IO with a message, and every call on that "
                   "context fails the same way without crashing");
    RUN(t_write, "sp_write creates an entry at version 1, overwrites it at version 2, and accepts empty content");
    RUN(t_write_conditions, "sp_write with NX or XX reports SP_ERR_CONDITION when unmet and writes nothing");
    RUN(t_write_versions, "sp_write with IFVERSION reports SP_ERR_VERSION with the server's message on a stale "
                          "version, and SPC_MUST_NOT_EXIST means IFVERSION 0");
    RUN(t_write_options, "sp_write's KIND, PX and KEEPTTL reach the server, and conflicting or invalid options are "
                         "refused with SP_ERR_ARG before anything is sent");
    RUN(t_binary, "binary content with NUL bytes round-trips through sp_write, sp_read and sp_range");
    RUN(t_append, "sp_append creates the entry, returns the length in characters, honours IFVERSION and "
                  "refuses invalid UTF-8 on a text entry");
    RUN(t_read_windows, "sp_read returns the whole entry or its HEAD, TAIL, OFFSET/LIMIT and LINES windows, and a "
                        "missing entry is SP_ERR_NOTFOUND with a NULL result");
    RUN(t_read_units_and_meta, "sp_read addresses text in characters (in bytes with BYTES) and WITHMETA fills "
                               "version, size, length, lines, kind, offset, truncated and next_offset");
    RUN(t_read_paging, "paging a 300 KB compressed entry with WITHMETA and next_offset returns every byte");
    RUN(t_range, "sp_range follows Python slicing: negative indexes, SPC_END, reversed and out-of-range ranges "
                 "give the right (possibly empty) content");
    RUN(t_grep, "sp_grep returns numbered matching and context lines, NOCASE, LITERAL, MAX and the WITHMETA "
                "counts, and a bad pattern is SP_ERR_SERVER naming the offset");
    RUN(t_list, "sp_list returns sorted names, MATCH, WITHMETA metadata and cursor pages, and a missing "
                "scratchpad lists nothing");
    RUN(t_list_iter, "the listing iterator visits every entry once, in order, across pages, while entries are "
                     "added and removed");
    RUN(t_edit, "sp_edit replaces a unique string, reports SP_ERR_NOMATCH, SP_ERR_AMBIGUOUS with the line "
                "numbers, SP_ERR_VERSION and SP_ERR_NOTFOUND, and replaces every occurrence with ALL");
    RUN(t_insert, "sp_insert adds whole lines at the top, in the middle and at the end, with IFVERSION and "
                  "SP_ERR_NOTFOUND for a missing entry");
    RUN(t_del, "sp_del counts the entries it deleted and deleting the last entry deletes the scratchpad");
    RUN(t_stat, "sp_stat fills every metadata field, including lz4 chunks for a large entry and the sha256");
    RUN(t_peek, "sp_peek gives the content, or head + omitted marker + tail, honours HEAD/TAIL and "
                "SPC_PEEK_NONE, and summarises binary entries");
    RUN(t_offload, "sp_offload returns small content as is and stores large content under a generated name "
                   "with a preview, honouring THRESHOLD, PREFIX, SEPARATOR and PX");
    RUN(t_lifetimes, "sp_expire, sp_pexpire, sp_ttl, sp_pttl and sp_persist manage per-entry lifetimes, and a "
                     "missing entry is SP_ERR_NOTFOUND (TTL -2)");
    RUN(t_info, "sp_info reports entries, bytes, stored bytes, compression ratio and update times");
    RUN(t_wrongtype, "every command on a key of another type returns SP_ERR_WRONGTYPE and leaves the connection "
                     "usable");
    RUN(t_bad_names, "invalid entry names return SP_ERR_NAME with the server's message showing the name");
    RUN(t_batch, "a batch queues commands, fills every output and per-command status in one round trip, "
                 "returns the first failure, and can be empty or discarded");
    RUN(t_batch_large, "a batch of 2000 commands returns every result in order");
    RUN(t_leases, "sp_lease grants, renews with the same token, is SP_ERR_LEASED for another holder (also when a "
                  "wait ends); sp_leases lists it; a fence with a stale token is SP_ERR_FENCED on every write; "
                  "sp_release releases only the holder's lease");
    RUN(t_changes, "sp_changes gives each change's number, time, op, entry, version, size and writer, pages with "
                   "SINCE and COUNT, reports a BLOCK that timed out and a gap");
    RUN(t_metadata, "metadata: written by sp_write and sp_offload (binary-safe values), read by sp_meta_get and "
                    "listed by sp_list WITHMETA, filtered by WHERE, changed by sp_meta_set, sp_meta_del and "
                    "sp_meta_clear");
    RUN(t_snapshots, "sp_snapshot, sp_snapshots, sp_diff (entries) and sp_diff_entry (a unified diff), sp_fork "
                     "from a snapshot, sp_restore and sp_dropsnapshot, also in a batch, with the server's errors");
    RUN(t_history, "sp_history lists the versions kept with op and writer, sp_read reads an earlier version by "
                   "window, sp_revert writes it back (fenced), and missing entries are SP_ERR_NOTFOUND");
    RUN(t_status_names, "status codes have names, and a NULL context is refused without crashing");
    RUN(t_unix_socket, "the library connects over a Unix socket, and a missing socket path gives SP_ERR_IO");
    RUN(t_acl_user, "an ACL user (username and password) reaches its own scratchpads; another agent's are "
                    "SP_ERR_NOPERM with the server's message, and the connection goes on");
    RUN(t_auth, "with requirepass, a missing password gives SP_ERR_AUTH, a wrong one fails the connect with "
                "SP_ERR_AUTH, and the right one (with or without a username) works, also after spc_reconnect");
    RUN(t_server_gone, "when the server goes away calls return SP_ERR_IO and keep failing until spc_reconnect "
                       "reaches a new server");
    spc_free(C);
    it_server_finish(&srv);
    return TEST_DONE();
}
