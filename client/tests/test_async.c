/* test_async.c -- libscratchpad's asynchronous API (hiredis async + libevent)
 * against a real scratchpad-server and a scripted fake one: every command with
 * its typed result, the errors (wrong type, bad name, version conflict, missing
 * entries), commands issued before the connection is up, many in flight,
 * AUTH, connection refused, a server that closes in the middle of a reply,
 * and the lifetime rules of spc_async_disconnect / spc_async_free (also from
 * inside callbacks). Under ASan this also checks that the library frees the
 * context on every path.
 *
 * Every wait runs the event loop with a deadline (a 10 ms ticker keeps
 * EVLOOP_ONCE returning), so a missing callback is a failure, not a hang. */
#include <event2/event.h>

#include "itest.h"
#include "fake_server.h"
#include "scratchpad.h"

static it_server srv;
static struct event_base *base;

/* What a callback saw (copied, since results live only during the callback). */
typedef struct rec {
    int called;
    int status;
    char errstr[512];
    uint64_t version;
    size_t length, count;
    long long ttl;
    int has_content;
    char content[8192];
    size_t content_len;
    int has_meta;
    spc_read_meta meta;
    size_t grep_n, grep_first_line, grep_matched;
    size_t list_n;
    char list_first[64];
    int list_done;
    spc_stat stat;
    spc_info info;
    int off_stored;
    char off_name[64];
    size_t off_content_len;
    spc_lease lease;
    size_t leases_n, changes_n, meta_n, snapshots_n, diff_n, history_n;
    char meta_first[64], op_last[32];
    int diff_first_status;
    uint64_t history_last;
    spc_async *ac;
} rec;

static void on_res(spc_async *ac, const spc_result *r, void *priv)
{
    rec *x = priv;
    x->called++;
    x->ac = ac;
    x->status = r->status;
    snprintf(x->errstr, sizeof(x->errstr), "%s", r->errstr ? r->errstr : "(null)");
    x->version = r->version;
    x->length = r->length;
    x->count = r->count;
    x->ttl = r->ttl;
    if (r->content) {
        x->has_content = 1;
        x->content_len = r->content->len;
        memcpy(x->content, r->content->data, r->content->len < sizeof(x->content) ? r->content->len : 0);
        x->has_meta = r->content->has_meta;
        x->meta = r->content->meta;
    }
    if (r->grep) {
        x->grep_n = r->grep->n;
        x->grep_first_line = r->grep->n ? r->grep->lines[0].lineno : 0;
        x->grep_matched = r->grep->matched;
    }
    if (r->list) {
        x->list_n = r->list->n;
        x->list_done = r->list->done;
        if (r->list->n)
            snprintf(x->list_first, sizeof(x->list_first), "%s", r->list->items[0].name);
    }
    x->stat = r->stat;
    x->info = r->info;
    x->lease = r->lease;
    if (r->leases)
        x->leases_n = r->leases->n;
    if (r->changes) {
        x->changes_n = r->changes->n;
        if (r->changes->n)
            snprintf(x->op_last, sizeof(x->op_last), "%s", r->changes->items[r->changes->n - 1].op);
    }
    if (r->meta) {
        x->meta_n = r->meta->n;
        if (r->meta->n)
            snprintf(x->meta_first, sizeof(x->meta_first), "%s=%.*s", r->meta->fields[0].field,
                     (int)r->meta->fields[0].value_len, r->meta->fields[0].value);
    }
    if (r->snapshots)
        x->snapshots_n = r->snapshots->n;
    if (r->diff) {
        x->diff_n = r->diff->n;
        x->diff_first_status = r->diff->n ? (int)r->diff->items[0].status : 0;
    }
    if (r->history) {
        x->history_n = r->history->n;
        x->history_last = r->history->n ? r->history->items[r->history->n - 1].version : 0;
    }
    if (r->offload) {
        x->off_stored = r->offload->stored;
        if (r->offload->name)
            snprintf(x->off_name, sizeof(x->off_name), "%s", r->offload->name);
        x->off_content_len = r->offload->content_len;
    }
}

typedef struct conn_state {
    int connected, conn_status, disconnected, disc_status;
    char conn_err[512], disc_err[512];
} conn_state;

static void on_conn(spc_async *ac, int status, const char *errstr, void *priv)
{
    conn_state *s = priv;
    (void)ac;
    s->connected++;
    s->conn_status = status;
    snprintf(s->conn_err, sizeof(s->conn_err), "%s", errstr ? errstr : "(null)");
}

static void on_disc(spc_async *ac, int status, const char *errstr, void *priv)
{
    conn_state *s = priv;
    (void)ac;
    s->disconnected++;
    s->disc_status = status;
    snprintf(s->disc_err, sizeof(s->disc_err), "%s", errstr ? errstr : "(null)");
}

/* Run the loop until *flag >= want or ms pass. 1 if reached. */
static int wait_for(const int *flag, int want, int ms)
{
    int64_t end = it_now_ms() + ms;
    while (*flag < want && it_now_ms() < end)
        event_base_loop(base, EVLOOP_ONCE);
    return *flag >= want;
}

/* Run the loop for ms (to see that nothing more happens). */
static void spin(int ms)
{
    int never = 0;
    wait_for(&never, 1, ms);
}

static void tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

static spc_async *open_async(int port, const char *password, conn_state *cs)
{
    spc_options o;
    memset(&o, 0, sizeof(o));
    memset(cs, 0, sizeof(*cs));
    o.port = port;
    o.password = password;
    return spc_async_connect(base, &o, on_conn, on_disc, cs);
}

#define WAIT(r) CHECKF(wait_for(&(r).called, 1, 5000), "no callback for %s", #r)
#define RSTATUS(r, want)                                                                                       \
    CHECKF((r).called == 1 && (r).status == (want), "%s: called %d, status %s (%s), expected %s", #r, (r).called, \
           spc_status_name((r).status), (r).errstr, spc_status_name(want))

static void t_connect_and_write(void)
{
    conn_state cs;
    rec w1, w2;
    spc_async *ac = open_async(srv.port, NULL, &cs);

    memset(&w1, 0, sizeof(w1));
    memset(&w2, 0, sizeof(w2));
    CHECK(ac != NULL);
    /* Issued before the connection is up: sent once it is. */
    CHECK(sp_async_write(ac, "as", "plan", "one", 3, NULL, on_res, &w1) == SP_OK);
    CHECK(sp_async_write(ac, "as", "plan", "two", 3, NULL, on_res, &w2) == SP_OK);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_OK);
    WAIT(w2);
    RSTATUS(w1, SP_OK);
    RSTATUS(w2, SP_OK);
    CHECK(w1.version == 1 && w2.version == 2 && w1.ac == ac);
    CHECK(spc_async_redis(ac) != NULL);
    spc_async_disconnect(ac);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.disc_status == SP_OK);
    CHECK(cs.connected == 1);
}

/* Every command through the async API, with its typed result. */
static void t_every_command(void)
{
    conn_state cs;
    rec r[24];
    spc_async *ac = open_async(srv.port, NULL, &cs);
    spc_read_opts ro;
    spc_grep_opts go;
    spc_list_opts lo;
    spc_offload_opts oo;
    spc_peek_opts po;
    const char *names[] = {"gone", "never"};
    char big[6000];
    int i;

    memset(r, 0, sizeof(r));
    memset(big, 'y', sizeof(big));
    memset(&ro, 0, sizeof(ro));
    ro.window = SPC_LINES;
    ro.from = 2;
    ro.to = 2;
    ro.withmeta = 1;
    memset(&go, 0, sizeof(go));
    go.withmeta = 1;
    memset(&lo, 0, sizeof(lo));
    lo.withmeta = 1;
    memset(&oo, 0, sizeof(oo));
    memset(&po, 0, sizeof(po));
    po.head = 2;
    po.tail = SPC_PEEK_NONE;
    CHECK(sp_async_write(ac, "ae", "log", "alpha\nbeta\ngamma\n", 17, NULL, on_res, &r[0]) == SP_OK);
    CHECK(sp_async_append(ac, "ae", "log", "delta\n", 6, NULL, on_res, &r[1]) == SP_OK);
    CHECK(sp_async_read(ac, "ae", "log", &ro, on_res, &r[2]) == SP_OK);
    CHECK(sp_async_range(ac, "ae", "log", -6, SPC_END, NULL, on_res, &r[3]) == SP_OK);
    CHECK(sp_async_grep(ac, "ae", "log", "a$", &go, on_res, &r[4]) == SP_OK);
    CHECK(sp_async_list(ac, "ae", &lo, on_res, &r[5]) == SP_OK);
    CHECK(sp_async_edit(ac, "ae", "log", "beta", 4, "BETA", 4, NULL, on_res, &r[6]) == SP_OK);
    CHECK(sp_async_insert(ac, "ae", "log", 0, "start", 5, NULL, on_res, &r[7]) == SP_OK);
    CHECK(sp_async_write(ac, "ae", "gone", "x", 1, NULL, on_res, &r[8]) == SP_OK);
    CHECK(sp_async_del(ac, "ae", names, 2, on_res, &r[9]) == SP_OK);
    CHECK(sp_async_stat(ac, "ae", "log", on_res, &r[10]) == SP_OK);
    CHECK(sp_async_peek(ac, "ae", "log", &po, on_res, &r[11]) == SP_OK);
    CHECK(sp_async_offload(ac, "ae", big, sizeof(big), &oo, on_res, &r[12]) == SP_OK);
    CHECK(sp_async_offload(ac, "ae", "small", 5, &oo, on_res, &r[13]) == SP_OK);
    CHECK(sp_async_expire(ac, "ae", "log", 100, on_res, &r[14]) == SP_OK);
    CHECK(sp_async_ttl(ac, "ae", "log", on_res, &r[15]) == SP_OK);
    CHECK(sp_async_pexpire(ac, "ae", "log", 50000, on_res, &r[16]) == SP_OK);
    CHECK(sp_async_pttl(ac, "ae", "log", on_res, &r[17]) == SP_OK);
    CHECK(sp_async_persist(ac, "ae", "log", on_res, &r[18]) == SP_OK);
    CHECK(sp_async_info(ac, "ae", on_res, &r[19]) == SP_OK);
    CHECK(sp_async_ttl(ac, "ae", "missing", on_res, &r[20]) == SP_OK);
    CHECK(sp_async_read(ac, "ae", "missing", NULL, on_res, &r[21]) == SP_OK);
    CHECK(sp_async_expire(ac, "ae", "missing", 5, NULL, NULL) == SP_OK); /* result ignored */
    WAIT(r[21]);
    for (i = 0; i < 20; i++)
        RSTATUS(r[i], SP_OK);
    CHECK(r[0].version == 1);
    CHECK(r[1].length == 23);
    CHECK(r[2].has_content && r[2].content_len == 5 && memcmp(r[2].content, "beta\n", 5) == 0);
    CHECK(r[2].has_meta && r[2].meta.lines == 4 && r[2].meta.offset == 2 && r[2].meta.truncated &&
          r[2].meta.next_offset == 3);
    CHECK(r[3].content_len == 6 && memcmp(r[3].content, "delta\n", 6) == 0);
    CHECK(r[4].grep_n == 4 && r[4].grep_first_line == 1 && r[4].grep_matched == 4);
    CHECK(r[5].list_n == 1 && strcmp(r[5].list_first, "log") == 0 && r[5].list_done);
    CHECK(r[6].count == 1 && r[6].version == 3);
    CHECK(r[7].version == 4);
    CHECK(r[9].count == 1);
    CHECK(r[10].stat.version == 4 && r[10].stat.lines == 5 && r[10].stat.kind == SPC_KIND_TEXT &&
          strcmp(r[10].stat.encoding, "raw") == 0 && strlen(r[10].stat.sha256) == 64);
    CHECK(r[11].content_len > 2 && memcmp(r[11].content, "st", 2) == 0);
    CHECK(r[12].off_stored && strcmp(r[12].off_name, "obs-1") == 0);
    CHECK(!r[13].off_stored && r[13].off_content_len == 5);
    CHECK(r[15].ttl == 100);
    CHECK(r[17].ttl > 40000 && r[17].ttl <= 50000);
    CHECK(r[18].count == 1);
    CHECK(r[19].info.entries == 2 && r[19].info.bytes > 0);
    RSTATUS(r[20], SP_ERR_NOTFOUND);
    CHECK(r[20].ttl == -2);
    RSTATUS(r[21], SP_ERR_NOTFOUND);
    CHECK(!r[21].has_content);
    spc_async_disconnect(ac);
    CHECK(wait_for(&cs.disconnected, 1, 5000));
}

static void t_coordination(void)
{
    conn_state cs;
    rec r[22];
    spc_async *ac = open_async(srv.port, NULL, &cs);
    spc_write_opts wo;
    spc_changes_opts co;
    spc_meta_field f[1] = {{"tool", "grep", 4}};
    const char *del[] = {"tool"};
    spc_fence stale = {"plan", 1};
    int i;

    memset(r, 0, sizeof(r));
    memset(&wo, 0, sizeof(wo));
    wo.meta = f;
    wo.nmeta = 1;
    memset(&co, 0, sizeof(co));
    CHECK(sp_async_write(ac, "aco", "plan", "one\n", 4, &wo, on_res, &r[0]) == SP_OK);
    CHECK(sp_async_snapshot(ac, "aco", "before", NULL, on_res, &r[1]) == SP_OK);
    CHECK(sp_async_write(ac, "aco", "plan", "two\n", 4, NULL, on_res, &r[2]) == SP_OK);
    CHECK(sp_async_diff(ac, "aco", "before", SPC_NOW, on_res, &r[3]) == SP_OK);
    CHECK(sp_async_diff_entry(ac, "aco", "before", SPC_NOW, "plan", on_res, &r[4]) == SP_OK);
    CHECK(sp_async_history(ac, "aco", "plan", on_res, &r[5]) == SP_OK);
    CHECK(sp_async_revert(ac, "aco", "plan", 1, NULL, on_res, &r[6]) == SP_OK);
    CHECK(sp_async_meta_get(ac, "aco", "plan", on_res, &r[7]) == SP_OK);
    CHECK(sp_async_meta_set(ac, "aco", "plan", f, 1, NULL, on_res, &r[8]) == SP_OK);
    CHECK(sp_async_meta_del(ac, "aco", "plan", del, 1, NULL, on_res, &r[9]) == SP_OK);
    CHECK(sp_async_meta_clear(ac, "aco", "plan", NULL, on_res, &r[10]) == SP_OK);
    CHECK(sp_async_snapshots(ac, "aco", on_res, &r[11]) == SP_OK);
    CHECK(sp_async_lease(ac, "aco", "plan", "a", 60000, 0, on_res, &r[12]) == SP_OK);
    CHECK(sp_async_lease(ac, "aco", "plan", "b", 60000, 0, on_res, &r[13]) == SP_OK);
    CHECK(sp_async_leases(ac, "aco", on_res, &r[14]) == SP_OK);
    CHECK(sp_async_revert(ac, "aco", "plan", 2, &stale, on_res, &r[15]) == SP_OK);
    CHECK(sp_async_changes(ac, "aco", &co, on_res, &r[16]) == SP_OK);
    CHECK(sp_async_fork(ac, "aco", "aco-fork", "before", NULL, on_res, &r[17]) == SP_OK);
    CHECK(sp_async_restore(ac, "aco", "before", NULL, on_res, &r[18]) == SP_OK);
    CHECK(sp_async_dropsnapshot(ac, "aco", "before", NULL, on_res, &r[19]) == SP_OK);
    CHECK(sp_async_history(ac, "aco", "nope", on_res, &r[20]) == SP_OK);
    CHECK(sp_async_diff_entry(ac, "aco", "before", SPC_NOW, NULL, on_res, &r[21]) == SP_ERR_ARG);
    WAIT(r[20]);
    for (i = 0; i < 13; i++)
        RSTATUS(r[i], SP_OK);
    RSTATUS(r[13], SP_ERR_LEASED);
    RSTATUS(r[14], SP_OK);
    RSTATUS(r[15], SP_ERR_FENCED);
    for (i = 16; i < 20; i++)
        RSTATUS(r[i], SP_OK);
    RSTATUS(r[20], SP_ERR_NOTFOUND);
    CHECK(r[1].count == 1 && r[2].version == 2);
    CHECK(r[3].diff_n == 1 && r[3].diff_first_status == SPC_DIFF_CHANGED);
    CHECK(r[4].has_content && strstr(r[4].content, "-one\n+two\n") != NULL);
    CHECK(r[5].history_n == 2 && r[5].history_last == 2);
    CHECK(r[6].version == 3 && r[7].meta_n == 1 && strcmp(r[7].meta_first, "tool=grep") == 0);
    CHECK(r[8].version == 4 && r[9].count == 1 && r[9].version == 5 && r[10].count == 0 && r[10].version == 5);
    CHECK(r[11].snapshots_n == 1 && r[12].lease.token > 0 && r[14].leases_n == 1);
    CHECK(r[16].changes_n == 5 && strcmp(r[16].op_last, "meta") == 0);
    CHECK(r[17].count == 1 && r[18].count == 1 && r[19].count == 1 && !r[21].called);
    CHECK(strstr(r[13].errstr, "LEASED held by a") != NULL);
    spc_async_disconnect(ac);
    CHECK(wait_for(&cs.disconnected, 1, 5000));
}

static void t_errors(void)
{
    conn_state cs;
    rec r[8];
    spc_async *ac = open_async(srv.port, NULL, &cs);
    spc_write_opts wo;
    it_conn rc;
    it_reply *rep;

    memset(r, 0, sizeof(r));
    if (it_conn_open(&rc, srv.port) == 0) {
        rep = it_conn_cmd(&rc, "SET astring v");
        it_reply_free(rep);
        it_conn_close(&rc);
    }
    memset(&wo, 0, sizeof(wo));
    wo.ifversion = 4;
    CHECK(sp_async_write(ac, "astring", "a", "x", 1, NULL, on_res, &r[0]) == SP_OK);
    CHECK(sp_async_write(ac, "aerr", "bad name", "x", 1, NULL, on_res, &r[1]) == SP_OK);
    CHECK(sp_async_write(ac, "aerr", "doc", "x", 1, NULL, on_res, &r[2]) == SP_OK);
    CHECK(sp_async_write(ac, "aerr", "doc", "y", 1, &wo, on_res, &r[3]) == SP_OK);
    CHECK(sp_async_edit(ac, "aerr", "doc", "q", 1, "z", 1, NULL, on_res, &r[4]) == SP_OK);
    CHECK(sp_async_grep(ac, "aerr", "doc", "(", NULL, on_res, &r[5]) == SP_OK);
    CHECK(sp_async_write(ac, NULL, "doc", "y", 1, NULL, on_res, &r[6]) == SP_ERR_ARG);
    wo.ifversion = -9;
    CHECK(sp_async_write(ac, "aerr", "doc", "y", 1, &wo, on_res, &r[6]) == SP_ERR_ARG);
    WAIT(r[5]);
    RSTATUS(r[0], SP_ERR_WRONGTYPE);
    RSTATUS(r[1], SP_ERR_NAME);
    CHECK(strstr(r[1].errstr, "'bad name'") != NULL);
    RSTATUS(r[2], SP_OK);
    RSTATUS(r[3], SP_ERR_VERSION);
    CHECK(strcmp(r[3].errstr, "VERSION entry is at version 1, not 4") == 0);
    RSTATUS(r[4], SP_ERR_NOMATCH);
    RSTATUS(r[5], SP_ERR_SERVER);
    spin(50);
    CHECK(r[6].called == 0);
    spc_async_disconnect(ac);
    CHECK(wait_for(&cs.disconnected, 1, 5000));
}

/* A thousand commands in flight, writes and reads of the same entries
 * interleaved: every callback runs once, in order, and succeeds. */
static int seq_ok = 1, seq_next = 0;
static void on_seq(spc_async *ac, const spc_result *r, void *priv)
{
    (void)ac;
    if ((int)(intptr_t)priv != seq_next++ || r->status != SP_OK)
        seq_ok = 0;
}

static void t_many_in_order(void)
{
    conn_state cs;
    spc_async *ac = open_async(srv.port, NULL, &cs);
    char name[32];
    int i;

    seq_ok = 1;
    seq_next = 0;
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "k%d", i / 2);
        if (i % 2)
            sp_async_read(ac, "ao", name, NULL, on_seq, (void *)(intptr_t)i);
        else
            sp_async_write(ac, "ao", name, name, strlen(name), NULL, on_seq, (void *)(intptr_t)i);
    }
    CHECK(wait_for(&seq_next, 1000, 10000));
    CHECK(seq_ok);
    spc_async_disconnect(ac);
    CHECK(wait_for(&cs.disconnected, 1, 5000));
}

static void t_refused(void)
{
    conn_state cs;
    rec r;
    spc_async *ac = open_async(it_free_port(), NULL, &cs);
    spc_options o;

    memset(&r, 0, sizeof(r));
    CHECK(ac != NULL);
    CHECK(sp_async_write(ac, "ar", "a", "x", 1, NULL, on_res, &r) == SP_OK ||
          1); /* may be refused at once or later */
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_ERR_IO);
    CHECK(strlen(cs.conn_err) > 0);
    spin(50);
    CHECK(cs.disconnected == 0);
    CHECK(r.called == 0 || r.status == SP_ERR_IO);
    /* A missing Unix socket fails at once; it is still reported from the loop. */
    memset(&o, 0, sizeof(o));
    memset(&cs, 0, sizeof(cs));
    o.unix_path = "/nonexistent/dir/sp.sock";
    ac = spc_async_connect(base, &o, on_conn, on_disc, &cs);
    CHECK(ac != NULL);
    CHECK(cs.connected == 0);
    CHECK(sp_async_write(ac, "ar", "a", "x", 1, NULL, on_res, &r) == SP_ERR_IO);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_ERR_IO);
    /* Freed before the report: nothing is called. */
    memset(&cs, 0, sizeof(cs));
    ac = spc_async_connect(base, &o, on_conn, on_disc, &cs);
    spc_async_free(ac);
    spin(50);
    CHECK(cs.connected == 0);
    CHECK(spc_async_connect(NULL, &o, on_conn, on_disc, &cs) == NULL);
}

static void t_auth(void)
{
    it_server as;
    const char *extra[] = {"--requirepass", "pw1", NULL};
    conn_state cs;
    rec r;
    spc_async *ac;

    if (it_server_start(&as, extra) < 0) {
        it_case_failed = 1;
        return;
    }
    memset(&r, 0, sizeof(r));
    ac = open_async(as.port, "wrong", &cs);
    sp_async_write(ac, "au", "a", "x", 1, NULL, on_res, &r);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_ERR_AUTH);
    CHECK(strstr(cs.conn_err, "WRONGPASS") != NULL);
    WAIT(r);
    CHECK(r.status == SP_ERR_AUTH);
    spin(50);
    CHECK(cs.disconnected == 0);

    ac = open_async(as.port, NULL, &cs);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_ERR_AUTH);

    memset(&r, 0, sizeof(r));
    ac = open_async(as.port, "pw1", &cs);
    sp_async_write(ac, "au", "a", "x", 1, NULL, on_res, &r);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_OK);
    WAIT(r);
    RSTATUS(r, SP_OK);
    spc_async_free(ac);
    CHECK(cs.disconnected == 1 && cs.disc_status == SP_OK);
    it_server_stop(&as);
}

/* The server closes in the middle of a reply: pending callbacks get SP_ERR_IO
 * and on_disconnect reports SP_ERR_IO. */
static void t_closed_mid_reply(void)
{
    static const char *const script[] = {"+PONG\r\n", ":1\r\n", FS_CLOSE "$50\r\nonly part", NULL};
    fake_server fs;
    conn_state cs;
    rec r[3];
    spc_async *ac;

    memset(r, 0, sizeof(r));
    /* The first request is the library's readiness PING. */
    CHECK(fs_start(&fs, script) == 0);
    ac = open_async(fs.port, NULL, &cs);
    sp_async_write(ac, "ns", "a", "x", 1, NULL, on_res, &r[0]);
    sp_async_read(ac, "ns", "a", NULL, on_res, &r[1]);
    sp_async_read(ac, "ns", "a", NULL, on_res, &r[2]);
    WAIT(r[2]);
    CHECK(cs.connected == 1 && cs.conn_status == SP_OK);
    RSTATUS(r[0], SP_OK);
    RSTATUS(r[1], SP_ERR_IO);
    RSTATUS(r[2], SP_ERR_IO);
    CHECK(strlen(r[1].errstr) > 0);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.disc_status == SP_ERR_IO);
    fs_stop(&fs);
}

static void t_garbage(void)
{
    static const char *const script[] = {"+PONG\r\n", "!!garbage\r\n", NULL};
    fake_server fs;
    conn_state cs;
    rec r;
    spc_async *ac;

    memset(&r, 0, sizeof(r));
    CHECK(fs_start(&fs, script) == 0);
    ac = open_async(fs.port, NULL, &cs);
    sp_async_stat(ac, "ns", "a", on_res, &r);
    WAIT(r);
    RSTATUS(r, SP_ERR_PROTOCOL);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.disc_status == SP_ERR_PROTOCOL);
    fs_stop(&fs);
}

static void t_free_with_pending(void)
{
    conn_state cs;
    rec r[3];
    spc_async *ac = open_async(srv.port, NULL, &cs);

    memset(r, 0, sizeof(r));
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_OK);
    sp_async_write(ac, "af", "a", "x", 1, NULL, on_res, &r[0]);
    sp_async_write(ac, "af", "b", "x", 1, NULL, on_res, &r[1]);
    spc_async_free(ac);
    CHECK(r[0].called == 1 && r[0].status == SP_ERR_IO);
    CHECK(r[1].called == 1 && r[1].status == SP_ERR_IO);
    CHECK(cs.disconnected == 1 && cs.disc_status == SP_OK);
    spc_async_free(NULL);
    spc_async_disconnect(NULL);
}

static void on_res_then_free(spc_async *ac, const spc_result *r, void *priv)
{
    on_res(ac, r, priv);
    spc_async_free(ac);
}

static void t_free_in_callback(void)
{
    conn_state cs;
    rec r[3];
    spc_async *ac = open_async(srv.port, NULL, &cs);

    memset(r, 0, sizeof(r));
    sp_async_write(ac, "ai", "a", "x", 1, NULL, on_res_then_free, &r[0]);
    sp_async_write(ac, "ai", "b", "x", 1, NULL, on_res, &r[1]);
    WAIT(r[1]);
    CHECK(r[0].called == 1 && r[0].status == SP_OK);
    CHECK(r[1].called == 1 && r[1].status == SP_ERR_IO);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.disc_status == SP_OK);
}

static void on_conn_disconnect(spc_async *ac, int status, const char *errstr, void *priv)
{
    on_conn(ac, status, errstr, priv);
    spc_async_disconnect(ac);
    spc_async_disconnect(ac);
}

static void on_conn_free(spc_async *ac, int status, const char *errstr, void *priv)
{
    on_conn(ac, status, errstr, priv);
    spc_async_free(ac);
}

static void t_close_in_on_connect(void)
{
    conn_state cs;
    spc_options o;
    spc_async *ac;
    rec r;

    memset(&o, 0, sizeof(o));
    o.port = srv.port;
    memset(&cs, 0, sizeof(cs));
    memset(&r, 0, sizeof(r));
    ac = spc_async_connect(base, &o, on_conn_disconnect, on_disc, &cs);
    sp_async_write(ac, "ac", "a", "x", 1, NULL, on_res, &r);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.connected == 1 && cs.disc_status == SP_OK);
    RSTATUS(r, SP_OK);

    memset(&cs, 0, sizeof(cs));
    ac = spc_async_connect(base, &o, on_conn_free, on_disc, &cs);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.connected == 1 && cs.disc_status == SP_OK);
    /* And from a failed connect's callback: the library frees it anyway. */
    memset(&cs, 0, sizeof(cs));
    o.port = it_free_port();
    ac = spc_async_connect(base, &o, on_conn_free, on_disc, &cs);
    CHECK(wait_for(&cs.connected, 1, 5000) && cs.conn_status == SP_ERR_IO);
    spin(30);
    CHECK(cs.disconnected == 0);
}

static void t_commands_after_disconnect(void)
{
    conn_state cs;
    rec r;
    spc_async *ac = open_async(srv.port, NULL, &cs);

    memset(&r, 0, sizeof(r));
    CHECK(wait_for(&cs.connected, 1, 5000));
    sp_async_write(ac, "ad", "a", "x", 1, NULL, on_res, &r);
    spc_async_disconnect(ac);
    CHECK(sp_async_write(ac, "ad", "b", "x", 1, NULL, on_res, &r) == SP_ERR_IO);
    WAIT(r);
    RSTATUS(r, SP_OK);
    CHECK(wait_for(&cs.disconnected, 1, 5000) && cs.disc_status == SP_OK);
}

int main(void)
{
    struct event *ticker;
    struct timeval ten = {0, 10000};

    it_init(180);
    base = event_base_new();
    ticker = event_new(base, -1, EV_PERSIST, tick, NULL);
    event_add(ticker, &ten);
    if (it_server_start(&srv, NULL) < 0) {
        printf("not ok - the test server starts\n");
        return 1;
    }
    RUN(t_connect_and_write, "an async connection reports ready, sends commands issued before it was up, and "
                             "spc_async_disconnect reports SP_OK after the replies");
    RUN(t_every_command, "every async command gives its callback the typed result the sync API returns");
    RUN(t_coordination, "the async snapshot, diff, history, revert, metadata, lease, leases, changes, fork, "
                        "restore and dropsnapshot commands give their callbacks typed results, LEASED and FENCED "
                        "as codes");
    RUN(t_errors, "async errors arrive as codes with the server's message: wrong type, bad name, version "
                  "conflict, no match, bad pattern; invalid arguments are refused without a callback");
    RUN(t_many_in_order, "a thousand async writes and reads in flight get their callbacks once each, in order, "
                         "all successful");
    RUN(t_refused, "a refused or impossible async connection is reported to on_connect from the loop and "
                   "freed by the library, and freeing it first calls nothing");
    RUN(t_auth, "async AUTH: a wrong or missing password is SP_ERR_AUTH at connect, the right one works");
    RUN(t_closed_mid_reply, "a server closing in the middle of a reply fails the pending callbacks with "
                            "SP_ERR_IO and reports SP_ERR_IO to on_disconnect");
    RUN(t_garbage, "bytes that are not RESP fail the pending callbacks and the connection with SP_ERR_PROTOCOL");
    RUN(t_free_with_pending, "spc_async_free runs pending callbacks with SP_ERR_IO, then on_disconnect");
    RUN(t_free_in_callback, "spc_async_free inside a command callback closes after that callback");
    RUN(t_close_in_on_connect, "spc_async_disconnect and spc_async_free inside on_connect are safe");
    RUN(t_commands_after_disconnect, "after spc_async_disconnect new commands are refused and pending ones "
                                     "complete");
    event_free(ticker);
    event_base_free(base);
    it_server_finish(&srv);
    return TEST_DONE();
}
