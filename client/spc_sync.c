/* spc_sync.c -- the synchronous API: the connection, one call per command,
 * batches and the listing iterator, on a blocking hiredis context.
 *
 * A call builds its command (spc_cmd.c), then either runs it now (send, wait
 * for the reply, convert it with spc_reply.c, write the caller's outputs) or,
 * inside a batch, formats it and remembers where its outputs go;
 * spc_batch_exec sends the whole batch in one write and converts the replies
 * in order.
 *
 * Invariants: ctx->status and ctx->errstr describe the last call. When the
 * connection fails (I/O, timeout, a byte stream that is not RESP) the hiredis
 * context is freed at once and ctx->dead_status is set: from then on every call
 * fails with that status and message, until spc_reconnect. A reply is always
 * either kept by exactly one result object or freed here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "spc_internal.h"

typedef struct spc_pending {
    spc_conv conv;
    int withmeta;
    char *wire;        /* the formatted command (redisFormatCommandArgv) */
    size_t wire_len;
    void *out, *out2;  /* where the result goes, as for the direct call */
} spc_pending;

struct spc_ctx {
    redisContext *rc;          /* NULL while disconnected */
    int status;                /* of the last call */
    char errstr[SPC_ERRSTR_CAP];
    int dead_status;           /* SP_OK, or why the connection is gone */
    char dead_msg[SPC_ERRSTR_CAP];
    /* the options, owned copies */
    char *host, *unix_path, *username, *password;
    int port, connect_timeout_ms, timeout_ms;
    spc_options tls; /* tls and its tls_* fields (owned copies), for reconnecting */
    spc_tls *relay;  /* the TLS relay of rc, NULL for a plain connection */
    /* the open batch */
    int batching;
    spc_pending *pend;
    size_t npend, cappend;
};

struct spc_list_iter {
    spc_ctx *ctx;
    char *ns, *match;
    long count;
    int withmeta;
    spc_list *page;
    size_t pos;
    char *cursor;   /* NULL: the first page */
    int done;
};

/* ---- status and messages ---- */

static int set_err(spc_ctx *ctx, int status, const char *msg)
{
    ctx->status = status;
    spc_set_msg(ctx->errstr, sizeof(ctx->errstr), msg, strlen(msg));
    return status;
}

static int set_ok(spc_ctx *ctx)
{
    ctx->status = SP_OK;
    ctx->errstr[0] = '\0';
    return SP_OK;
}

int spc_err(const spc_ctx *ctx)
{
    return ctx ? ctx->status : SP_ERR_OOM;
}

const char *spc_errstr(const spc_ctx *ctx)
{
    return ctx ? ctx->errstr : "out of memory";
}

struct redisContext *spc_redis(spc_ctx *ctx)
{
    return ctx ? ctx->rc : NULL;
}

/* The connection failed inside hiredis: classify, drop it, make it sticky. */
/* Close the connection (and wait for its TLS relay to end). */
static void close_rc(spc_ctx *ctx)
{
    if (ctx->rc)
        redisFree(ctx->rc);
    ctx->rc = NULL;
    spc_tls_close(ctx->relay);
    ctx->relay = NULL;
}

static int conn_failed(spc_ctx *ctx, const char *when)
{
    redisContext *rc = ctx->rc;
    int st = SP_ERR_IO, saved = errno;
    const char *why = rc ? rc->errstr : "not connected";

    if (rc) {
        switch (rc->err) {
        case REDIS_ERR_PROTOCOL:
            st = SP_ERR_PROTOCOL;
            break;
        case REDIS_ERR_OOM:
            st = SP_ERR_OOM;
            break;
        case REDIS_ERR_IO:
            if (saved == EAGAIN || saved == EWOULDBLOCK || saved == ETIMEDOUT || strstr(why, "timed out") ||
                strstr(why, "temporarily unavailable"))
                st = SP_ERR_TIMEOUT;
            break;
        default:
            break;
        }
    }
    ctx->dead_status = st;
    snprintf(ctx->dead_msg, sizeof(ctx->dead_msg), "%s: %s%s", when, why[0] ? why : "connection error",
             st == SP_ERR_TIMEOUT ? " (timeout)" : "");
    close_rc(ctx);
    return set_err(ctx, st, ctx->dead_msg);
}

static int dead(spc_ctx *ctx)
{
    char msg[SPC_ERRSTR_CAP];
    snprintf(msg, sizeof(msg), "not connected (%.1900s): call spc_reconnect", ctx->dead_msg);
    return set_err(ctx, ctx->dead_status ? ctx->dead_status : SP_ERR_IO, msg);
}

/* ---- outputs ---- */

/* Write the result of conv into the caller's outputs (zero / NULL ones for a
 * failure, as res is zeroed then); a result object nobody asked for is freed. */
static void deliver(spc_conv conv, spc_result *res, void *out, void *out2)
{
    switch (conv) {
    case SPC_CV_STATUS:
        break;
    case SPC_CV_VERSION:
        if (out)
            *(uint64_t *)out = res->version;
        break;
    case SPC_CV_LENGTH:
        if (out)
            *(size_t *)out = res->length;
        break;
    case SPC_CV_COUNT:
        if (out)
            *(size_t *)out = res->count;
        break;
    case SPC_CV_PERSIST:
        if (out)
            *(int *)out = (int)res->count;
        break;
    case SPC_CV_EXPIRE:
        break;
    case SPC_CV_TTL:
        if (out)
            *(long long *)out = res->status == SP_ERR_NOTFOUND ? -2 : res->ttl;
        break;
    case SPC_CV_EDIT:
        if (out)
            *(size_t *)out = res->count;
        if (out2)
            *(uint64_t *)out2 = res->version;
        break;
    case SPC_CV_STAT:
        if (out)
            *(spc_stat *)out = res->stat;
        break;
    case SPC_CV_INFO:
        if (out)
            *(spc_info *)out = res->info;
        break;
    case SPC_CV_CONTENT:
        if (out)
            *(spc_content **)out = res->content;
        else
            spc_content_free(res->content);
        break;
    case SPC_CV_GREP:
        if (out)
            *(spc_grep **)out = res->grep;
        else
            spc_grep_free(res->grep);
        break;
    case SPC_CV_LIST:
        if (out)
            *(spc_list **)out = res->list;
        else
            spc_list_free(res->list);
        break;
    case SPC_CV_OFFLOAD:
        if (out)
            *(spc_offload **)out = res->offload;
        else
            spc_offload_free(res->offload);
        break;
    case SPC_CV_LEASE:
        if (out)
            *(spc_lease *)out = res->lease;
        break;
#define DELIVER_PTR(cv, type, field, freefn) \
    case cv:                                 \
        if (out)                             \
            *(type **)out = res->field;      \
        else                                 \
            freefn(res->field);              \
        break;
        DELIVER_PTR(SPC_CV_LEASES, spc_leases, leases, spc_leases_free)
        DELIVER_PTR(SPC_CV_CHANGES, spc_changes, changes, spc_changes_free)
        DELIVER_PTR(SPC_CV_META, spc_meta, meta, spc_meta_free)
        DELIVER_PTR(SPC_CV_SNAPSHOTS, spc_snapshots, snapshots, spc_snapshots_free)
        DELIVER_PTR(SPC_CV_DIFF, spc_diff, diff, spc_diff_free)
        DELIVER_PTR(SPC_CV_HISTORY, spc_history, history, spc_history_free)
#undef DELIVER_PTR
    }
}

/* Zero the outputs of a call that failed before any reply. */
static void deliver_nothing(spc_conv conv, int status, void *out, void *out2)
{
    spc_result res;
    memset(&res, 0, sizeof(res));
    res.status = status;
    deliver(conv, &res, out, out2);
}

/* Convert reply r (owned) of a command read as conv/withmeta, deliver it; the
 * message goes to err. Returns the status. */
static int finish(redisReply *r, spc_conv conv, int withmeta, void *out, void *out2, char *err, size_t cap)
{
    spc_result res;
    int kept = 0, st = spc_convert(r, conv, withmeta, 1, &res, &kept, err, cap);
    if (st != SP_OK)
        spc_result_release(&res);
    deliver(conv, &res, out, out2);
    if (!kept)
        freeReplyObject(r);
    return st;
}

/* ---- running one command ---- */

static int queue(spc_ctx *ctx, spc_cmd *c, void *out, void *out2)
{
    spc_pending *p;
    char *wire = NULL;
    int n;

    if (ctx->npend == ctx->cappend) {
        size_t ncap = ctx->cappend ? ctx->cappend * 2 : 16;
        spc_pending *np = realloc(ctx->pend, ncap * sizeof(*np));
        if (!np)
            return set_err(ctx, SP_ERR_OOM, "out of memory queueing a command");
        ctx->pend = np;
        ctx->cappend = ncap;
    }
    n = redisFormatCommandArgv(&wire, c->argc, c->argv, c->lens);
    if (n < 0 || !wire)
        return set_err(ctx, SP_ERR_OOM, "out of memory queueing a command");
    p = &ctx->pend[ctx->npend++];
    p->conv = c->conv;
    p->withmeta = c->withmeta;
    p->wire = wire;
    p->wire_len = (size_t)n;
    p->out = out;
    p->out2 = out2;
    return set_ok(ctx);
}

/* Run (or queue) command c and write its outputs; frees c's arrays. */
static int run(spc_ctx *ctx, spc_cmd *c, void *out, void *out2)
{
    redisReply *r;
    int st;

    if (!ctx) {
        deliver_nothing(c->conv, SP_ERR_ARG, out, out2);
        spc_cmd_free(c);
        return SP_ERR_ARG;
    }
    if (c->status != SP_OK) {
        st = set_err(ctx, c->status, c->why);
        if (!ctx->batching)
            deliver_nothing(c->conv, st, out, out2);
    } else if (ctx->batching) {
        st = queue(ctx, c, out, out2);
    } else if (!ctx->rc) {
        st = dead(ctx);
        deliver_nothing(c->conv, st, out, out2);
    } else {
        r = redisCommandArgv(ctx->rc, c->argc, c->argv, c->lens);
        if (!r) {
            st = conn_failed(ctx, "connection lost");
            deliver_nothing(c->conv, st, out, out2);
        } else {
            st = finish(r, c->conv, c->withmeta, out, out2, ctx->errstr, sizeof(ctx->errstr));
            ctx->status = st;
        }
    }
    spc_cmd_free(c);
    return st;
}

/* ---- the connection ---- */

static char *dup_or_null(const char *s, int *oom)
{
    char *d;
    if (!s)
        return NULL;
    d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static struct timeval ms_tv(int ms)
{
    struct timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

/* Open ctx->rc from the stored options and AUTH. Status as for spc_connect. */
static int do_connect(spc_ctx *ctx)
{
    redisContext *rc;
    spc_cmd c;
    int st;

    close_rc(ctx);
    ctx->dead_status = SP_OK;
    ctx->dead_msg[0] = '\0';
    if (ctx->tls.tls && !ctx->unix_path) {
        char err[SPC_ERRSTR_CAP];
        int fd = -1;
        ctx->relay = spc_tls_open(ctx->host, ctx->port, &ctx->tls, &fd, err, sizeof(err));
        if (!ctx->relay) {
            ctx->dead_status = SP_ERR_IO;
            spc_set_msg(ctx->dead_msg, sizeof(ctx->dead_msg), err, strlen(err));
            return set_err(ctx, SP_ERR_IO, ctx->dead_msg);
        }
        rc = redisConnectFd(fd);
        if (!rc) {
            close(fd);
            spc_tls_close(ctx->relay);
            ctx->relay = NULL;
        }
    } else if (ctx->unix_path)
        rc = ctx->connect_timeout_ms > 0 ? redisConnectUnixWithTimeout(ctx->unix_path, ms_tv(ctx->connect_timeout_ms))
                                         : redisConnectUnix(ctx->unix_path);
    else
        rc = ctx->connect_timeout_ms > 0
                 ? redisConnectWithTimeout(ctx->host, ctx->port, ms_tv(ctx->connect_timeout_ms))
                 : redisConnect(ctx->host, ctx->port);
    if (!rc) {
        ctx->dead_status = SP_ERR_OOM;
        snprintf(ctx->dead_msg, sizeof(ctx->dead_msg), "out of memory connecting");
        return set_err(ctx, SP_ERR_OOM, ctx->dead_msg);
    }
    ctx->rc = rc;
    if (rc->err)
        return conn_failed(ctx, "connect");
    if (ctx->timeout_ms > 0 && redisSetTimeout(rc, ms_tv(ctx->timeout_ms)) != REDIS_OK)
        return conn_failed(ctx, "setting the timeout");
    if (!ctx->password)
        return set_ok(ctx);
    spc_build_auth(&c, ctx->username, ctx->password);
    st = run(ctx, &c, NULL, NULL);
    if (st != SP_OK && ctx->rc) {
        /* Refused credentials: the context is unusable, and says why. */
        ctx->dead_status = st;
        spc_set_msg(ctx->dead_msg, sizeof(ctx->dead_msg), ctx->errstr, strlen(ctx->errstr));
        close_rc(ctx);
    }
    return st;
}

spc_ctx *spc_connect_with(const spc_options *o)
{
    spc_options none;
    spc_ctx *ctx = calloc(1, sizeof(*ctx));
    int oom = 0;

    if (!ctx)
        return NULL;
    if (!o) {
        memset(&none, 0, sizeof(none));
        o = &none;
    }
    ctx->host = dup_or_null(o->host ? o->host : "127.0.0.1", &oom);
    ctx->unix_path = dup_or_null(o->unix_path, &oom);
    ctx->username = dup_or_null(o->username, &oom);
    ctx->password = dup_or_null(o->password, &oom);
    ctx->port = o->port ? o->port : 6379;
    ctx->tls.tls = o->tls;
    ctx->tls.tls_insecure = o->tls_insecure;
    ctx->tls.connect_timeout_ms = o->connect_timeout_ms;
    ctx->tls.tls_ca_file = dup_or_null(o->tls_ca_file, &oom);
    ctx->tls.tls_cert_file = dup_or_null(o->tls_cert_file, &oom);
    ctx->tls.tls_key_file = dup_or_null(o->tls_key_file, &oom);
    ctx->tls.tls_server_name = dup_or_null(o->tls_server_name, &oom);
    ctx->connect_timeout_ms = o->connect_timeout_ms;
    ctx->timeout_ms = o->timeout_ms;
    if (oom) {
        spc_free(ctx);
        return NULL;
    }
    do_connect(ctx);
    return ctx;
}

spc_ctx *spc_connect(const char *host, int port)
{
    spc_options o;
    memset(&o, 0, sizeof(o));
    o.host = host;
    o.port = port;
    return spc_connect_with(&o);
}

spc_ctx *spc_connect_unix(const char *path)
{
    spc_options o;
    memset(&o, 0, sizeof(o));
    o.unix_path = path;
    return spc_connect_with(&o);
}

int spc_reconnect(spc_ctx *ctx)
{
    if (!ctx)
        return SP_ERR_ARG;
    spc_batch_discard(ctx);
    return do_connect(ctx);
}

void spc_free(spc_ctx *ctx)
{
    if (!ctx)
        return;
    spc_batch_discard(ctx);
    free(ctx->pend);
    close_rc(ctx);
    free(ctx->host);
    free(ctx->unix_path);
    free(ctx->username);
    free(ctx->password);
    free((char *)ctx->tls.tls_ca_file);
    free((char *)ctx->tls.tls_cert_file);
    free((char *)ctx->tls.tls_key_file);
    free((char *)ctx->tls.tls_server_name);
    free(ctx);
}

int spc_ping(spc_ctx *ctx)
{
    spc_cmd c;

    if (!ctx)
        return SP_ERR_ARG;
    if (ctx->batching)
        return set_err(ctx, SP_ERR_ARG, "spc_ping cannot be used in a batch");
    memset(&c, 0, sizeof(c));
    c.conv = SPC_CV_STATUS;
    c.status = SP_OK;
    c.cap = SPC_INLINE_ARGS;
    c.argv = c.argv_s;
    c.lens = c.lens_s;
    c.argv_s[0] = "PING";
    c.lens_s[0] = 4;
    c.argc = 1;
    return run(ctx, &c, NULL, NULL);
}

/* ---- batches ---- */

int spc_batch_begin(spc_ctx *ctx)
{
    if (!ctx)
        return SP_ERR_ARG;
    if (ctx->batching)
        return set_err(ctx, SP_ERR_ARG, "a batch is already open");
    if (!ctx->rc)
        return dead(ctx);
    ctx->batching = 1;
    ctx->npend = 0;
    return set_ok(ctx);
}

size_t spc_batch_count(const spc_ctx *ctx)
{
    return ctx && ctx->batching ? ctx->npend : 0;
}

void spc_batch_discard(spc_ctx *ctx)
{
    size_t i;
    if (!ctx)
        return;
    for (i = 0; i < ctx->npend; i++)
        redisFreeCommand(ctx->pend[i].wire);
    ctx->npend = 0;
    ctx->batching = 0;
}

int spc_batch_exec(spc_ctx *ctx, int *status, size_t nstatus)
{
    char msg[SPC_ERRSTR_CAP];
    int first = SP_OK, broken = SP_OK;
    size_t i, sent = 0;

    if (!ctx)
        return SP_ERR_ARG;
    if (!ctx->batching)
        return set_err(ctx, SP_ERR_ARG, "no batch is open");
    ctx->batching = 0;
    set_ok(ctx);
    if (!ctx->rc) {
        broken = dead(ctx);
    } else {
        for (sent = 0; sent < ctx->npend; sent++)
            if (redisAppendFormattedCommand(ctx->rc, ctx->pend[sent].wire, ctx->pend[sent].wire_len) != REDIS_OK)
                break;
        if (sent < ctx->npend) {
            /* A half-queued pipeline cannot be resynchronised: drop the connection. */
            broken = conn_failed(ctx, "queueing the batch");
        }
    }
    for (i = 0; i < ctx->npend; i++) {
        spc_pending *p = &ctx->pend[i];
        void *reply = NULL;
        int st;

        if (broken == SP_OK && ctx->rc && redisGetReply(ctx->rc, &reply) != REDIS_OK) {
            broken = conn_failed(ctx, "connection lost in a batch");
            reply = NULL;
        }
        if (!reply) {
            st = broken != SP_OK ? broken : SP_ERR_IO;
            deliver_nothing(p->conv, st, p->out, p->out2);
            if (first == SP_OK)
                spc_set_msg(msg, sizeof(msg), ctx->errstr, strlen(ctx->errstr));
        } else {
            st = finish(reply, p->conv, p->withmeta, p->out, p->out2, msg, sizeof(msg));
        }
        if (status && i < nstatus)
            status[i] = st;
        if (st != SP_OK && first == SP_OK) {
            first = st;
            set_err(ctx, st, msg);
        }
        redisFreeCommand(p->wire);
    }
    ctx->npend = 0;
    if (first == SP_OK)
        set_ok(ctx);
    return first;
}

/* ---- the commands ---- */

int sp_write(spc_ctx *ctx, const char *ns, const char *name, const void *data, size_t len,
             const spc_write_opts *o, uint64_t *version)
{
    spc_cmd c;
    spc_build_write(&c, ns, name, data, len, o);
    return run(ctx, &c, version, NULL);
}

int sp_append(spc_ctx *ctx, const char *ns, const char *name, const void *data, size_t len,
              const spc_append_opts *o, size_t *length)
{
    spc_cmd c;
    spc_build_append(&c, ns, name, data, len, o);
    return run(ctx, &c, length, NULL);
}

int sp_read(spc_ctx *ctx, const char *ns, const char *name, const spc_read_opts *o, spc_content **out)
{
    spc_cmd c;
    spc_build_read(&c, ns, name, o);
    return run(ctx, &c, out, NULL);
}

int sp_range(spc_ctx *ctx, const char *ns, const char *name, long long start, long long end,
             const spc_range_opts *o, spc_content **out)
{
    spc_cmd c;
    spc_build_range(&c, ns, name, start, end, o);
    return run(ctx, &c, out, NULL);
}

int sp_grep(spc_ctx *ctx, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o,
            spc_grep **out)
{
    spc_cmd c;
    spc_build_grep(&c, ns, name, pattern, o);
    return run(ctx, &c, out, NULL);
}

int sp_list(spc_ctx *ctx, const char *ns, const spc_list_opts *o, spc_list **out)
{
    spc_cmd c;
    spc_build_list(&c, ns, o);
    return run(ctx, &c, out, NULL);
}

int sp_edit(spc_ctx *ctx, const char *ns, const char *name, const void *old, size_t old_len, const void *new_text,
            size_t new_len, const spc_edit_opts *o, size_t *count, uint64_t *version)
{
    spc_cmd c;
    spc_build_edit(&c, ns, name, old, old_len, new_text, new_len, o);
    return run(ctx, &c, count, version);
}

int sp_insert(spc_ctx *ctx, const char *ns, const char *name, long long line, const void *text, size_t len,
              const spc_insert_opts *o, uint64_t *version)
{
    spc_cmd c;
    spc_build_insert(&c, ns, name, line, text, len, o);
    return run(ctx, &c, version, NULL);
}

int sp_del(spc_ctx *ctx, const char *ns, const char *const *names, size_t n, size_t *deleted)
{
    spc_cmd c;
    spc_build_del(&c, ns, names, n);
    return run(ctx, &c, deleted, NULL);
}

int sp_stat(spc_ctx *ctx, const char *ns, const char *name, spc_stat *out)
{
    spc_cmd c;
    spc_build_stat(&c, ns, name);
    return run(ctx, &c, out, NULL);
}

int sp_peek(spc_ctx *ctx, const char *ns, const char *name, const spc_peek_opts *o, spc_content **out)
{
    spc_cmd c;
    spc_build_peek(&c, ns, name, o);
    return run(ctx, &c, out, NULL);
}

int sp_offload(spc_ctx *ctx, const char *ns, const void *data, size_t len, const spc_offload_opts *o,
               spc_offload **out)
{
    spc_cmd c;
    spc_build_offload(&c, ns, data, len, o);
    return run(ctx, &c, out, NULL);
}

int sp_expire(spc_ctx *ctx, const char *ns, const char *name, long long seconds)
{
    spc_cmd c;
    spc_build_expire(&c, ns, name, seconds, 0);
    return run(ctx, &c, NULL, NULL);
}

int sp_pexpire(spc_ctx *ctx, const char *ns, const char *name, long long ms)
{
    spc_cmd c;
    spc_build_expire(&c, ns, name, ms, 1);
    return run(ctx, &c, NULL, NULL);
}

int sp_ttl(spc_ctx *ctx, const char *ns, const char *name, long long *ttl)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.TTL", SPC_CV_TTL, ns, name);
    return run(ctx, &c, ttl, NULL);
}

int sp_pttl(spc_ctx *ctx, const char *ns, const char *name, long long *ttl_ms)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.PTTL", SPC_CV_TTL, ns, name);
    return run(ctx, &c, ttl_ms, NULL);
}

int sp_persist(spc_ctx *ctx, const char *ns, const char *name, int *removed)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.PERSIST", SPC_CV_PERSIST, ns, name);
    return run(ctx, &c, removed, NULL);
}

int sp_info(spc_ctx *ctx, const char *ns, spc_info *out)
{
    spc_cmd c;
    spc_build_info(&c, ns);
    return run(ctx, &c, out, NULL);
}

int sp_lease(spc_ctx *ctx, const char *ns, const char *resource, const char *holder, long long ttl_ms,
             long long wait_ms, spc_lease *out)
{
    spc_cmd c;
    spc_build_lease(&c, ns, resource, holder, ttl_ms, wait_ms);
    return run(ctx, &c, out, NULL);
}

int sp_release(spc_ctx *ctx, const char *ns, const char *resource, const char *holder, uint64_t token, int *released)
{
    spc_cmd c;
    spc_build_release(&c, ns, resource, holder, token);
    return run(ctx, &c, released, NULL);
}

int sp_leases(spc_ctx *ctx, const char *ns, spc_leases **out)
{
    spc_cmd c;
    spc_build_ns_cmd(&c, "SP.LEASES", SPC_CV_LEASES, ns);
    return run(ctx, &c, out, NULL);
}

int sp_changes(spc_ctx *ctx, const char *ns, const spc_changes_opts *o, spc_changes **out)
{
    spc_cmd c;
    spc_build_changes(&c, ns, o);
    return run(ctx, &c, out, NULL);
}

int sp_meta_get(spc_ctx *ctx, const char *ns, const char *name, spc_meta **out)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.STAT", SPC_CV_META, ns, name);
    return run(ctx, &c, out, NULL);
}

int sp_meta_set(spc_ctx *ctx, const char *ns, const char *name, const spc_meta_field *fields, size_t n,
                const spc_fence *fence, uint64_t *version)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'S', fields, NULL, n, fence);
    return run(ctx, &c, version, NULL);
}

int sp_meta_del(spc_ctx *ctx, const char *ns, const char *name, const char *const *fields, size_t n,
                const spc_fence *fence, size_t *removed, uint64_t *version)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'D', NULL, fields, n, fence);
    return run(ctx, &c, removed, version);
}

int sp_meta_clear(spc_ctx *ctx, const char *ns, const char *name, const spc_fence *fence, size_t *removed,
                  uint64_t *version)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'C', NULL, NULL, 0, fence);
    return run(ctx, &c, removed, version);
}

int sp_snapshot(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, size_t *entries)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.SNAPSHOT", SPC_CV_COUNT, ns, label, fence);
    return run(ctx, &c, entries, NULL);
}

int sp_snapshots(spc_ctx *ctx, const char *ns, spc_snapshots **out)
{
    spc_cmd c;
    spc_build_ns_cmd(&c, "SP.SNAPSHOTS", SPC_CV_SNAPSHOTS, ns);
    return run(ctx, &c, out, NULL);
}

int sp_restore(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, size_t *changed)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.RESTORE", SPC_CV_COUNT, ns, label, fence);
    return run(ctx, &c, changed, NULL);
}

int sp_dropsnapshot(spc_ctx *ctx, const char *ns, const char *label, const spc_fence *fence, int *dropped)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.DROPSNAPSHOT", SPC_CV_PERSIST, ns, label, fence);
    return run(ctx, &c, dropped, NULL);
}

int sp_diff(spc_ctx *ctx, const char *ns, const char *from, const char *to, spc_diff **out)
{
    spc_cmd c;
    spc_build_diff(&c, ns, from, to, NULL);
    return run(ctx, &c, out, NULL);
}

int sp_diff_entry(spc_ctx *ctx, const char *ns, const char *from, const char *to, const char *name, spc_content **out)
{
    spc_cmd c;
    if (!name && out)
        *out = NULL;
    if (!name)
        return ctx ? set_err(ctx, SP_ERR_ARG, "the entry name is NULL") : SP_ERR_ARG;
    spc_build_diff(&c, ns, from, to, name);
    return run(ctx, &c, out, NULL);
}

int sp_fork(spc_ctx *ctx, const char *src, const char *dst, const char *from_label, const spc_fence *fence,
            size_t *entries)
{
    spc_cmd c;
    spc_build_fork(&c, src, dst, from_label, fence);
    return run(ctx, &c, entries, NULL);
}

int sp_history(spc_ctx *ctx, const char *ns, const char *name, spc_history **out)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.HISTORY", SPC_CV_HISTORY, ns, name);
    return run(ctx, &c, out, NULL);
}

int sp_revert(spc_ctx *ctx, const char *ns, const char *name, uint64_t version, const spc_fence *fence,
              uint64_t *new_version)
{
    spc_cmd c;
    spc_build_revert(&c, ns, name, version, fence);
    return run(ctx, &c, new_version, NULL);
}

/* ---- the listing iterator ---- */

int spc_list_iter_new(spc_ctx *ctx, const char *ns, const spc_list_opts *o, spc_list_iter **out)
{
    spc_list_iter *it;
    int oom = 0;

    if (out)
        *out = NULL;
    if (!ctx || !ns || !out)
        return ctx ? set_err(ctx, SP_ERR_ARG, "spc_list_iter_new needs a scratchpad name and an output") : SP_ERR_ARG;
    if (ctx->batching)
        return set_err(ctx, SP_ERR_ARG, "the listing iterator cannot be used in a batch");
    if (o && o->count < 0)
        return set_err(ctx, SP_ERR_ARG, "count must not be negative");
    it = calloc(1, sizeof(*it));
    if (!it)
        return set_err(ctx, SP_ERR_OOM, "out of memory");
    it->ctx = ctx;
    it->ns = dup_or_null(ns, &oom);
    it->match = o ? dup_or_null(o->match, &oom) : NULL;
    it->count = o ? o->count : 0;
    it->withmeta = o ? o->withmeta : 0;
    if (oom) {
        spc_list_iter_free(it);
        return set_err(ctx, SP_ERR_OOM, "out of memory");
    }
    *out = it;
    return set_ok(ctx);
}

int spc_list_iter_next(spc_list_iter *it, const spc_list_item **item)
{
    if (!it || !item)
        return SP_ERR_ARG;
    *item = NULL;
    if (it->ctx->batching)
        return set_err(it->ctx, SP_ERR_ARG, "the listing iterator cannot be used in a batch");
    for (;;) {
        spc_list_opts o;
        int st;

        if (it->page && it->pos < it->page->n) {
            *item = &it->page->items[it->pos++];
            return set_ok(it->ctx);
        }
        if (it->done)
            return set_ok(it->ctx);
        spc_list_free(it->page);
        it->page = NULL;
        it->pos = 0;
        memset(&o, 0, sizeof(o));
        o.match = it->match;
        o.cursor = it->cursor;
        o.count = it->count;
        o.withmeta = it->withmeta;
        st = sp_list(it->ctx, it->ns, &o, &it->page);
        if (st != SP_OK)
            return st;
        free(it->cursor);
        it->cursor = NULL;
        if (it->page->done) {
            it->done = 1;
        } else if (!(it->cursor = strdup(it->page->cursor))) {
            return set_err(it->ctx, SP_ERR_OOM, "out of memory");
        }
    }
}

void spc_list_iter_free(spc_list_iter *it)
{
    if (!it)
        return;
    spc_list_free(it->page);
    free(it->cursor);
    free(it->ns);
    free(it->match);
    free(it);
}
