/* test_faults.c -- libscratchpad facing a server that misbehaves: it closes in
 * the middle of a reply, sends bytes that are not RESP, sends replies of the
 * wrong shape, never answers, or cuts a batch short. The library must return
 * the documented status with a message, leave outputs empty, never crash, and
 * keep the connection usable exactly when the stream is still in step.
 *
 * The misbehaving server is fake_server.h (a scripted thread on a free port of
 * 127.0.0.1); nothing else is started. */
#include "itest.h"
#include "fake_server.h"
#include "scratchpad.h"

static spc_ctx *C;

#define ST(expr, want)                                                                                   \
    do {                                                                                                 \
        int st_ = (expr);                                                                                \
        if (st_ != (want)) {                                                                             \
            fprintf(stderr, "    %s:%d: %s returned %s (%s), expected %s\n", __FILE__, __LINE__, #expr,   \
                    spc_status_name(st_), C ? spc_errstr(C) : "", spc_status_name(want));                \
            it_case_failed = 1;                                                                          \
        }                                                                                                \
    } while (0)

static spc_ctx *open_fake(fake_server *fs, const char *const *script, int timeout_ms)
{
    spc_options o;
    if (fs_start(fs, script) < 0)
        return NULL;
    memset(&o, 0, sizeof(o));
    o.port = fs->port;
    o.connect_timeout_ms = 5000;
    o.timeout_ms = timeout_ms;
    return spc_connect_with(&o);
}

static void t_half_bulk(void)
{
    static const char *const script[] = {FS_CLOSE "$100\r\nhalf of the content", NULL};
    fake_server fs;
    spc_content *out = (spc_content *)1;
    uint64_t v = 3;

    C = open_fake(&fs, script, 5000);
    CHECK(C && spc_err(C) == SP_OK);
    ST(sp_read(C, "ns", "log", NULL, &out), SP_ERR_IO);
    CHECK(out == NULL);
    CHECKF(strstr(spc_errstr(C), "closed") != NULL, "message [%s]", spc_errstr(C));
    ST(sp_write(C, "ns", "log", "x", 1, NULL, &v), SP_ERR_IO);
    CHECK(v == 0);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_half_array(void)
{
    static const char *const script[] = {FS_CLOSE "*2\r\n$3\r\nabc\r\n*16\r\n$7\r\nversion\r\n:1\r\n$4\r\nsi", NULL};
    fake_server fs;
    spc_read_opts o;
    spc_content *out = (spc_content *)1;

    memset(&o, 0, sizeof(o));
    o.withmeta = 1;
    C = open_fake(&fs, script, 5000);
    ST(sp_read(C, "ns", "log", &o, &out), SP_ERR_IO);
    CHECK(out == NULL);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_close_before_reply(void)
{
    static const char *const script[] = {FS_CLOSE "", NULL};
    fake_server fs;
    spc_grep *g = (spc_grep *)1;

    C = open_fake(&fs, script, 5000);
    ST(sp_grep(C, "ns", "log", "x", NULL, &g), SP_ERR_IO);
    CHECK(g == NULL);
    ST(spc_ping(C), SP_ERR_IO);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_garbage(void)
{
    static const char *const script[] = {"!!! this is not RESP\r\n", NULL};
    fake_server fs;
    spc_list *l = (spc_list *)1;

    C = open_fake(&fs, script, 5000);
    ST(sp_list(C, "ns", NULL, &l), SP_ERR_PROTOCOL);
    CHECK(l == NULL);
    CHECK(strlen(spc_errstr(C)) > 0);
    ST(sp_list(C, "ns", NULL, &l), SP_ERR_PROTOCOL); /* the stream is lost: sticky */
    CHECK(strstr(spc_errstr(C), "spc_reconnect") != NULL);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

/* Replies of the wrong shape are SP_ERR_PROTOCOL with empty outputs, and the
 * connection stays usable; unknown map keys and any key order are accepted. */
static void t_wrong_shapes(void)
{
    static const char *const script[] = {
        "+OK\r\n",                                     /* SP.WRITE */
        ":7\r\n",                                      /* SP.WRITE */
        ":1\r\n",                                      /* SP.READ */
        "$3\r\nabc\r\n",                               /* SP.READ WITHMETA */
        "*2\r\n$3\r\nabc\r\n:5\r\n",                   /* SP.READ WITHMETA */
        "*1\r\n$4\r\noops\r\n",                        /* SP.GREP */
        "*2\r\n*1\r\n$3\r\n1:a\r\n*1\r\n$1\r\nx\r\n",  /* SP.GREP WITHMETA */
        "*1\r\n$1\r\n0\r\n",                           /* SP.LIST */
        "*2\r\n$1\r\n0\r\n*1\r\n$4\r\nname\r\n",       /* SP.LIST WITHMETA */
        "*1\r\n:1\r\n",                                /* SP.EDIT */
        ":1\r\n",                                      /* SP.STAT */
        "*3\r\n$4\r\nkind\r\n$4\r\ntext\r\n$4\r\nsize\r\n", /* SP.STAT */
        "*2\r\n$4\r\nname\r\n$1\r\nx\r\n",             /* SP.OFFLOAD */
        "*2\r\n$6\r\nstored\r\n:1\r\n",                /* SP.OFFLOAD */
        "$1\r\n1\r\n",                                 /* SP.EXPIRE */
        "+OK\r\n",                                     /* SP.INFO */
        ":-3\r\n",                                     /* SP.APPEND */
        "*8\r\n$5\r\nextra\r\n$3\r\nnew\r\n$6\r\nsha256\r\n$-1\r\n$7\r\nversion\r\n:9\r\n$4\r\nkind\r\n$6\r\nbinary\r\n",
        "*4\r\n$7\r\nentries\r\n:2\r\n$17\r\ncompression_ratio\r\n$3\r\n2.5\r\n", /* SP.INFO */
        "+PONG\r\n",
        NULL};
    fake_server fs;
    spc_read_opts meta;
    spc_grep_opts gmeta;
    spc_list_opts lmeta;
    spc_content *out = (spc_content *)1;
    spc_grep *g = (spc_grep *)1;
    spc_list *l = (spc_list *)1;
    spc_offload *of = (spc_offload *)1;
    spc_stat st;
    spc_info in;
    uint64_t v = 1;
    size_t n = 1, len = 1;

    memset(&meta, 0, sizeof(meta));
    meta.withmeta = 1;
    memset(&gmeta, 0, sizeof(gmeta));
    gmeta.withmeta = 1;
    memset(&lmeta, 0, sizeof(lmeta));
    lmeta.withmeta = 1;
    C = open_fake(&fs, script, 5000);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_PROTOCOL);
    CHECK(v == 0);
    CHECK(strstr(spc_errstr(C), "unexpected reply") != NULL);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_OK);
    CHECK(v == 7);
    ST(sp_read(C, "ns", "a", NULL, &out), SP_ERR_PROTOCOL);
    CHECK(out == NULL);
    ST(sp_read(C, "ns", "a", &meta, &out), SP_ERR_PROTOCOL);
    ST(sp_read(C, "ns", "a", &meta, &out), SP_ERR_PROTOCOL);
    CHECK(out == NULL);
    ST(sp_grep(C, "ns", "a", "x", NULL, &g), SP_ERR_PROTOCOL);
    CHECK(g == NULL);
    ST(sp_grep(C, "ns", "a", "x", &gmeta, &g), SP_ERR_PROTOCOL);
    ST(sp_list(C, "ns", NULL, &l), SP_ERR_PROTOCOL);
    CHECK(l == NULL);
    ST(sp_list(C, "ns", &lmeta, &l), SP_ERR_PROTOCOL);
    ST(sp_edit(C, "ns", "a", "x", 1, "y", 1, NULL, &n, &v), SP_ERR_PROTOCOL);
    CHECK(n == 0 && v == 0);
    ST(sp_stat(C, "ns", "a", &st), SP_ERR_PROTOCOL);
    ST(sp_stat(C, "ns", "a", &st), SP_ERR_PROTOCOL);
    ST(sp_offload(C, "ns", "x", 1, NULL, &of), SP_ERR_PROTOCOL);
    CHECK(of == NULL);
    ST(sp_offload(C, "ns", "x", 1, NULL, &of), SP_ERR_PROTOCOL);
    ST(sp_expire(C, "ns", "a", 5), SP_ERR_PROTOCOL);
    ST(sp_info(C, "ns", &in), SP_ERR_PROTOCOL);
    ST(sp_append(C, "ns", "a", "x", 1, NULL, &len), SP_OK);
    CHECK(len == 0); /* a negative length is clamped, never wrapped */
    ST(sp_stat(C, "ns", "a", &st), SP_OK);
    CHECK(st.version == 9 && st.kind == SPC_KIND_BINARY && st.sha256[0] == '\0' && st.ttl == -1);
    ST(sp_info(C, "ns", &in), SP_OK);
    CHECK(in.entries == 2 && in.compression_ratio > 2.49 && in.compression_ratio < 2.51);
    ST(spc_ping(C), SP_OK);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_error_replies(void)
{
    static char long_err[4000];
    static const char *script[] = {
        "-ERR something odd\r\n",
        "-NOAUTH Authentication required.\r\n",
        "-OOM command not allowed when used memory > 'maxmemory'.\r\n",
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        "*2\r\n$3\r\n1:a\r\n-ERR pattern exceeded the match limit at line 2\r\n",
        "*2\r\n-ERR entry is corrupt: a compressed chunk failed to decompress\r\n*0\r\n",
        long_err,
        "+PONG\r\n",
        NULL};
    fake_server fs;
    spc_grep *g = (spc_grep *)1;
    spc_content *out = (spc_content *)1;
    spc_read_opts meta;
    uint64_t v;

    long_err[0] = '-';
    memset(long_err + 1, 'E', sizeof(long_err) - 4);
    memcpy(long_err + sizeof(long_err) - 3, "\r\n", 3);
    memset(&meta, 0, sizeof(meta));
    meta.withmeta = 1;
    C = open_fake(&fs, script, 5000);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_SERVER);
    CHECK(strcmp(spc_errstr(C), "ERR something odd") == 0);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_AUTH);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_SERVER);
    CHECK(strncmp(spc_errstr(C), "OOM", 3) == 0);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_WRONGTYPE);
    ST(sp_grep(C, "ns", "a", "(a+)+$", NULL, &g), SP_ERR_SERVER);
    CHECK(g == NULL && strstr(spc_errstr(C), "match limit") != NULL);
    ST(sp_read(C, "ns", "a", &meta, &out), SP_ERR_SERVER);
    CHECK(out == NULL && strstr(spc_errstr(C), "corrupt") != NULL);
    ST(sp_write(C, "ns", "a", "x", 1, NULL, &v), SP_ERR_SERVER);
    CHECK(strlen(spc_errstr(C)) > 1000 && strlen(spc_errstr(C)) < 4000);
    ST(spc_ping(C), SP_OK);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_timeout(void)
{
    static const char *const script[] = {FS_HANG, NULL};
    fake_server fs;
    spc_content *out = (spc_content *)1;
    int64_t t0;

    C = open_fake(&fs, script, 300);
    t0 = it_now_ms();
    ST(sp_read(C, "ns", "a", NULL, &out), SP_ERR_TIMEOUT);
    CHECKF(it_now_ms() - t0 < 3000, "took %lld ms", (long long)(it_now_ms() - t0));
    CHECK(out == NULL);
    t0 = it_now_ms();
    ST(sp_read(C, "ns", "a", NULL, &out), SP_ERR_TIMEOUT);
    CHECK(it_now_ms() - t0 < 100);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

/* The server answers two of four batched commands, then closes mid-reply. */
static void t_batch_cut(void)
{
    static const char *const script[] = {":1\r\n", ":12\r\n", FS_CLOSE "$10\r\nabc", ":3\r\n", NULL};
    fake_server fs;
    uint64_t v1 = 0, v4 = 9;
    size_t len = 0;
    spc_content *out = (spc_content *)1;
    int status[4] = {-1, -1, -1, -1};

    C = open_fake(&fs, script, 5000);
    ST(spc_batch_begin(C), SP_OK);
    sp_write(C, "ns", "a", "x", 1, NULL, &v1);
    sp_append(C, "ns", "a", "yy", 2, NULL, &len);
    sp_read(C, "ns", "a", NULL, &out);
    sp_write(C, "ns", "b", "z", 1, NULL, &v4);
    ST(spc_batch_exec(C, status, 4), SP_ERR_IO);
    CHECK(status[0] == SP_OK && status[1] == SP_OK && status[2] == SP_ERR_IO && status[3] == SP_ERR_IO);
    CHECK(v1 == 1 && len == 12 && out == NULL && v4 == 0);
    CHECK(strlen(spc_errstr(C)) > 0);
    ST(spc_batch_begin(C), SP_ERR_IO);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_batch_wrong_shape(void)
{
    static const char *const script[] = {":1\r\n", "+OK\r\n", ":2\r\n", NULL};
    fake_server fs;
    uint64_t v[3] = {0, 0, 0};
    int status[3];

    C = open_fake(&fs, script, 5000);
    ST(spc_batch_begin(C), SP_OK);
    sp_write(C, "ns", "a", "x", 1, NULL, &v[0]);
    sp_write(C, "ns", "a", "x", 1, NULL, &v[1]);
    sp_write(C, "ns", "a", "x", 1, NULL, &v[2]);
    ST(spc_batch_exec(C, status, 3), SP_ERR_PROTOCOL);
    CHECK(status[0] == SP_OK && status[1] == SP_ERR_PROTOCOL && status[2] == SP_OK);
    CHECK(v[0] == 1 && v[1] == 0 && v[2] == 2);
    spc_free(C);
    C = NULL;
    fs_stop(&fs);
}

static void t_auth_faults(void)
{
    static const char *const refuse[] = {"-WRONGPASS invalid username-password pair\r\n", NULL};
    static const char *const cut[] = {FS_CLOSE "+O", NULL};
    fake_server fs;
    spc_options o;
    spc_ctx *c;

    memset(&o, 0, sizeof(o));
    o.password = "pw";
    CHECK(fs_start(&fs, refuse) == 0);
    o.port = fs.port;
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_ERR_AUTH && strstr(spc_errstr(c), "WRONGPASS"));
    CHECK(c && spc_ping(c) == SP_ERR_AUTH);
    spc_free(c);
    fs_stop(&fs);
    CHECK(fs_start(&fs, cut) == 0);
    o.port = fs.port;
    c = spc_connect_with(&o);
    CHECK(c && spc_err(c) == SP_ERR_IO);
    spc_free(c);
    fs_stop(&fs);
}

int main(void)
{
    it_init(120);
    RUN(t_half_bulk, "a server that closes in the middle of a bulk reply gives SP_ERR_IO, a NULL result and a "
                     "message, and later calls fail at once");
    RUN(t_half_array, "a server that closes in the middle of an SP.READ WITHMETA array gives SP_ERR_IO");
    RUN(t_close_before_reply, "a server that closes before replying gives SP_ERR_IO");
    RUN(t_garbage, "bytes that are not RESP give SP_ERR_PROTOCOL and the connection is dropped");
    RUN(t_wrong_shapes, "a reply of the wrong shape for each command gives SP_ERR_PROTOCOL with empty outputs "
                        "and the connection stays usable; map keys are read by name in any order");
    RUN(t_error_replies, "error replies map to their codes, an error inside an aggregate is reported, and a "
                         "very long message is truncated safely");
    RUN(t_timeout, "a server that never answers gives SP_ERR_TIMEOUT after timeout_ms, and later calls fail at "
                   "once");
    RUN(t_batch_cut, "a batch cut short by the server gives the replies that arrived and SP_ERR_IO with empty "
                     "outputs for the rest");
    RUN(t_batch_wrong_shape, "a wrong-shaped reply in a batch fails only its own command");
    RUN(t_auth_faults, "a refused AUTH gives SP_ERR_AUTH and a connection cut during AUTH gives SP_ERR_IO");
    return TEST_DONE();
}
