/* spc_async.c -- the asynchronous API: SP commands on a hiredis async context
 * driven by libevent, each with a callback receiving a typed result.
 *
 * Why a wrapper around redisAsyncContext: hiredis frees its context by itself
 * when a connection fails or closes, and calls different hooks in different
 * cases (onConnect on a failed connect, onDisconnect only for a context that
 * was connected, the event adapter's cleanup always). The wrapper turns that
 * into two promises: on_connect is called exactly once (after AUTH when a
 * password is set), and on_disconnect exactly once for a connection that was
 * reported ready; the wrapper is freed by the library right after the last of
 * them.
 *
 * Lifetime of a wrapper (w), following hiredis 0.14's __redisAsyncFree:
 * pending callbacks run (with NULL replies), then the adapter's cleanup hook,
 * then onDisconnect if the context was connected, then the context is freed.
 * So w is freed in onDisconnect when the context was connected, otherwise in
 * the cleanup hook (wrapped for this purpose). A failure found while
 * connecting (before any event exists) is reported from a zero-delay timer so
 * that every outcome reaches on_connect from the event loop. */
#include <event2/event.h>
#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spc_internal.h"

enum { DEFER_NONE, DEFER_DISCONNECT, DEFER_FREE };

struct spc_async {
    redisAsyncContext *ac;      /* NULL when connecting failed at once */
    struct event_base *base;
    spc_connect_cb *on_connect;
    spc_disconnect_cb *on_disconnect;
    void *privdata;
    void (*ev_cleanup)(void *); /* the libevent adapter's cleanup hook */
    struct event *fail_ev;      /* reports an immediate connect failure */
    struct event *defer_ev;     /* runs a disconnect/free asked for in on_connect */
    int deferred;               /* DEFER_* */
    int ready;                  /* on_connect(SP_OK) was called */
    int reported;               /* on_connect was called */
    int failed;                 /* on_connect reported a failure: w goes away */
    int closing;                /* disconnect or free asked: no new commands */
    int freeing;                /* spc_async_free asked: on_connect is not called */
    int gone;                   /* on_disconnect is running: w goes away */
    int in_connect_cb;          /* inside the user's on_connect */
    char errstr[SPC_ERRSTR_CAP];
};

/* One command in flight. */
typedef struct spc_acall {
    spc_async *w;
    spc_conv conv;
    int withmeta;
    spc_result_cb *cb;
    void *privdata;
    int internal_auth;          /* the AUTH sent at connect time */
} spc_acall;

static void finalize(spc_async *w)
{
    if (w->fail_ev)
        event_free(w->fail_ev);
    if (w->defer_ev)
        event_free(w->defer_ev);
    free(w);
}

static void report_connect(spc_async *w, int status, const char *msg)
{
    if (w->reported)
        return;
    w->reported = 1;
    if (w->freeing)
        return;
    if (status == SP_OK)
        w->ready = 1;
    else
        w->failed = 1;
    if (w->on_connect) {
        w->in_connect_cb = 1;
        w->on_connect(w, status, msg, w->privdata);
        w->in_connect_cb = 0;
    }
}

/* The status for a connection hiredis dropped: what its error says. */
static int drop_status(const redisAsyncContext *ac)
{
    if (ac->err == REDIS_ERR_PROTOCOL)
        return SP_ERR_PROTOCOL;
    if (ac->err == REDIS_ERR_OOM)
        return SP_ERR_OOM;
    return SP_ERR_IO;
}

/* ---- hiredis hooks ---- */

static void hook_cleanup(void *evdata)
{
    redisLibeventEvents *e = evdata;
    redisAsyncContext *ac = e->context;
    spc_async *w = ac->data;

    w->ev_cleanup(evdata);
    /* No onDisconnect follows for a context that never connected. */
    if (!(ac->c.flags & REDIS_CONNECTED))
        finalize(w);
}

static void hook_connect(const redisAsyncContext *ac, int status)
{
    spc_async *w = ac->data;

    if (status != REDIS_OK) {
        snprintf(w->errstr, sizeof(w->errstr), "connect: %s", ac->errstr ? ac->errstr : "failed");
        report_connect(w, SP_ERR_IO, w->errstr);
    }
    /* Connected: the reply to the first command (AUTH or PING) reports it. */
}

static void hook_disconnect(const redisAsyncContext *ac, int status)
{
    spc_async *w = ac->data;

    w->gone = 1;
    if (!w->reported) {
        snprintf(w->errstr, sizeof(w->errstr), "connection closed: %s",
                 ac->err && ac->errstr ? ac->errstr : "before it was ready");
        report_connect(w, drop_status(ac), w->errstr);
    } else if (w->ready && w->on_disconnect) {
        if (status == REDIS_OK)
            w->errstr[0] = '\0';
        else
            snprintf(w->errstr, sizeof(w->errstr), "connection lost: %s", ac->errstr ? ac->errstr : "error");
        w->on_disconnect(w, status == REDIS_OK ? SP_OK : drop_status(ac), w->errstr, w->privdata);
    }
    finalize(w);
}

/* The reply of any command: convert, give it to the callback, free it. */
static void hook_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    spc_acall *call = priv;
    spc_async *w = call->w;
    spc_result res;
    char err[SPC_ERRSTR_CAP];
    int kept = 0;

    if (!reply) {
        memset(&res, 0, sizeof(res));
        res.status = ac->err ? drop_status(ac) : SP_ERR_IO;
        snprintf(err, sizeof(err), "connection closed before the reply%s%s", ac->err && ac->errstr ? ": " : "",
                 ac->err && ac->errstr ? ac->errstr : "");
        res.errstr = err;
    } else {
        spc_convert(reply, call->conv, call->withmeta, 0, &res, &kept, err, sizeof(err));
    }
    if (call->internal_auth) {
        if (res.status == SP_OK) {
            report_connect(w, SP_OK, "");
        } else if (!w->reported) {
            spc_set_msg(w->errstr, sizeof(w->errstr), err, strlen(err));
            report_connect(w, res.status, w->errstr);
            if (reply)
                redisAsyncDisconnect(ac);
        }
    } else if (call->cb) {
        call->cb(w, &res, call->privdata);
    }
    spc_result_release(&res);
    free(call);
}

/* ---- connecting ---- */

static void fire_failure(evutil_socket_t fd, short what, void *arg)
{
    spc_async *w = arg;
    (void)fd;
    (void)what;
    report_connect(w, SP_ERR_IO, w->errstr);
    finalize(w);
}

static void fire_deferred(evutil_socket_t fd, short what, void *arg)
{
    spc_async *w = arg;
    int d = w->deferred;
    (void)fd;
    (void)what;
    w->deferred = DEFER_NONE;
    if (d == DEFER_FREE)
        spc_async_free(w);
    else if (d == DEFER_DISCONNECT)
        spc_async_disconnect(w);
}

static int run_async(spc_async *w, spc_cmd *c, spc_result_cb *cb, void *privdata, int internal_auth)
{
    spc_acall *call;
    int st = c->status;

    if (st != SP_OK)
        goto done;
    if (!w || !w->ac || w->closing || w->failed || w->gone) {
        st = SP_ERR_IO;
        goto done;
    }
    call = calloc(1, sizeof(*call));
    if (!call) {
        st = SP_ERR_OOM;
        goto done;
    }
    call->w = w;
    call->conv = c->conv;
    call->withmeta = c->withmeta;
    call->cb = cb;
    call->privdata = privdata;
    call->internal_auth = internal_auth;
    if (redisAsyncCommandArgv(w->ac, hook_reply, call, c->argc, c->argv, c->lens) != REDIS_OK) {
        free(call);
        st = SP_ERR_IO;
    }
done:
    spc_cmd_free(c);
    return st;
}

spc_async *spc_async_connect(struct event_base *base, const spc_options *o, spc_connect_cb *on_connect,
                             spc_disconnect_cb *on_disconnect, void *privdata)
{
    spc_options none;
    spc_async *w;
    redisAsyncContext *ac;

    if (!base)
        return NULL;
    if (!o) {
        memset(&none, 0, sizeof(none));
        o = &none;
    }
    w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->base = base;
    w->on_connect = on_connect;
    w->on_disconnect = on_disconnect;
    w->privdata = privdata;
    ac = o->unix_path ? redisAsyncConnectUnix(o->unix_path)
                      : redisAsyncConnect(o->host ? o->host : "127.0.0.1", o->port ? o->port : 6379);
    if (!ac) {
        free(w);
        return NULL;
    }
    if (ac->err || (o->tls && !o->unix_path)) {
        struct timeval now = {0, 0};
        snprintf(w->errstr, sizeof(w->errstr), "connect: %s",
                 ac->err ? (ac->errstr[0] ? ac->errstr : "failed") : "TLS is available to the sync API only");
        redisAsyncFree(ac);
        w->fail_ev = evtimer_new(base, fire_failure, w);
        if (!w->fail_ev || evtimer_add(w->fail_ev, &now) < 0) {
            finalize(w);
            return NULL;
        }
        return w;
    }
    ac->data = w;
    w->ac = ac;
    if (redisLibeventAttach(ac, base) != REDIS_OK) {
        redisAsyncFree(ac);
        free(w);
        return NULL;
    }
    w->ev_cleanup = ac->ev.cleanup;
    ac->ev.cleanup = hook_cleanup;
    redisAsyncSetConnectCallback(ac, hook_connect);
    redisAsyncSetDisconnectCallback(ac, hook_disconnect);
    if (o->password) {
        spc_cmd c;
        spc_build_auth(&c, o->username, o->password);
        if (run_async(w, &c, NULL, NULL, 1) != SP_OK) {
            redisAsyncFree(ac); /* not connected yet: the cleanup hook frees w */
            return NULL;
        }
    } else {
        /* Reported ready as soon as hiredis says the socket is connected. */
        spc_cmd c;
        memset(&c, 0, sizeof(c));
        c.conv = SPC_CV_STATUS;
        c.status = SP_OK;
        c.cap = SPC_INLINE_ARGS;
        c.argv = c.argv_s;
        c.lens = c.lens_s;
        c.argv_s[0] = "PING";
        c.lens_s[0] = 4;
        c.argc = 1;
        if (run_async(w, &c, NULL, NULL, 1) != SP_OK) {
            redisAsyncFree(ac);
            return NULL;
        }
    }
    return w;
}

/* Ask for op later, from the event loop (hiredis cannot free a context from
 * inside its connect handling). */
static void defer(spc_async *w, int op)
{
    struct timeval now = {0, 0};
    if (op > w->deferred)
        w->deferred = op;
    if (!w->defer_ev)
        w->defer_ev = evtimer_new(w->base, fire_deferred, w);
    if (w->defer_ev)
        evtimer_add(w->defer_ev, &now);
}

void spc_async_disconnect(spc_async *w)
{
    if (!w || w->failed || w->gone || w->closing)
        return;
    if (!w->ac) {
        finalize(w);
        return;
    }
    if (w->in_connect_cb) {
        defer(w, DEFER_DISCONNECT);
        return;
    }
    w->closing = 1;
    redisAsyncDisconnect(w->ac);
}

void spc_async_free(spc_async *w)
{
    if (!w || w->failed || w->gone)
        return;
    if (!w->ac) {
        finalize(w);
        return;
    }
    if (w->in_connect_cb) {
        defer(w, DEFER_FREE);
        return;
    }
    w->closing = 1;
    w->freeing = 1;
    redisAsyncFree(w->ac);
}

struct redisAsyncContext *spc_async_redis(spc_async *w)
{
    return w ? w->ac : NULL;
}

/* ---- the commands ---- */

int sp_async_write(spc_async *ac, const char *ns, const char *name, const void *data, size_t len,
                   const spc_write_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_write(&c, ns, name, data, len, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_append(spc_async *ac, const char *ns, const char *name, const void *data, size_t len,
                    const spc_append_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_append(&c, ns, name, data, len, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_read(spc_async *ac, const char *ns, const char *name, const spc_read_opts *o, spc_result_cb *cb,
                  void *privdata)
{
    spc_cmd c;
    spc_build_read(&c, ns, name, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_range(spc_async *ac, const char *ns, const char *name, long long start, long long end,
                   const spc_range_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_range(&c, ns, name, start, end, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_grep(spc_async *ac, const char *ns, const char *name, const char *pattern, const spc_grep_opts *o,
                  spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_grep(&c, ns, name, pattern, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_list(spc_async *ac, const char *ns, const spc_list_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_list(&c, ns, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_edit(spc_async *ac, const char *ns, const char *name, const void *old, size_t old_len,
                  const void *new_text, size_t new_len, const spc_edit_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_edit(&c, ns, name, old, old_len, new_text, new_len, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_insert(spc_async *ac, const char *ns, const char *name, long long line, const void *text, size_t len,
                    const spc_insert_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_insert(&c, ns, name, line, text, len, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_del(spc_async *ac, const char *ns, const char *const *names, size_t n, spc_result_cb *cb,
                 void *privdata)
{
    spc_cmd c;
    spc_build_del(&c, ns, names, n);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_stat(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_stat(&c, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_peek(spc_async *ac, const char *ns, const char *name, const spc_peek_opts *o, spc_result_cb *cb,
                  void *privdata)
{
    spc_cmd c;
    spc_build_peek(&c, ns, name, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_offload(spc_async *ac, const char *ns, const void *data, size_t len, const spc_offload_opts *o,
                     spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_offload(&c, ns, data, len, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_expire(spc_async *ac, const char *ns, const char *name, long long seconds, spc_result_cb *cb,
                    void *privdata)
{
    spc_cmd c;
    spc_build_expire(&c, ns, name, seconds, 0);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_pexpire(spc_async *ac, const char *ns, const char *name, long long ms, spc_result_cb *cb,
                     void *privdata)
{
    spc_cmd c;
    spc_build_expire(&c, ns, name, ms, 1);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_ttl(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.TTL", SPC_CV_TTL, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_pttl(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.PTTL", SPC_CV_TTL, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_persist(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.PERSIST", SPC_CV_PERSIST, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_info(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_info(&c, ns);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_lease(spc_async *ac, const char *ns, const char *resource, const char *holder, long long ttl_ms,
                   long long wait_ms, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_lease(&c, ns, resource, holder, ttl_ms, wait_ms);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_release(spc_async *ac, const char *ns, const char *resource, const char *holder, uint64_t token,
                     spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_release(&c, ns, resource, holder, token);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_leases(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_ns_cmd(&c, "SP.LEASES", SPC_CV_LEASES, ns);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_changes(spc_async *ac, const char *ns, const spc_changes_opts *o, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_changes(&c, ns, o);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_meta_get(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.STAT", SPC_CV_META, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_meta_set(spc_async *ac, const char *ns, const char *name, const spc_meta_field *fields, size_t n,
                      const spc_fence *fence, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'S', fields, NULL, n, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_meta_del(spc_async *ac, const char *ns, const char *name, const char *const *fields, size_t n,
                      const spc_fence *fence, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'D', NULL, fields, n, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_meta_clear(spc_async *ac, const char *ns, const char *name, const spc_fence *fence, spc_result_cb *cb,
                        void *privdata)
{
    spc_cmd c;
    spc_build_meta(&c, ns, name, 'C', NULL, NULL, 0, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_snapshot(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                      void *privdata)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.SNAPSHOT", SPC_CV_COUNT, ns, label, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_snapshots(spc_async *ac, const char *ns, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_ns_cmd(&c, "SP.SNAPSHOTS", SPC_CV_SNAPSHOTS, ns);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_restore(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                     void *privdata)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.RESTORE", SPC_CV_COUNT, ns, label, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_dropsnapshot(spc_async *ac, const char *ns, const char *label, const spc_fence *fence, spc_result_cb *cb,
                          void *privdata)
{
    spc_cmd c;
    spc_build_label_cmd(&c, "SP.DROPSNAPSHOT", SPC_CV_PERSIST, ns, label, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_diff(spc_async *ac, const char *ns, const char *from, const char *to, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_diff(&c, ns, from, to, NULL);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_diff_entry(spc_async *ac, const char *ns, const char *from, const char *to, const char *name,
                        spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    if (!name)
        return SP_ERR_ARG;
    spc_build_diff(&c, ns, from, to, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_fork(spc_async *ac, const char *src, const char *dst, const char *from_label, const spc_fence *fence,
                  spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_fork(&c, src, dst, from_label, fence);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_history(spc_async *ac, const char *ns, const char *name, spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_entry_cmd(&c, "SP.HISTORY", SPC_CV_HISTORY, ns, name);
    return run_async(ac, &c, cb, privdata, 0);
}

int sp_async_revert(spc_async *ac, const char *ns, const char *name, uint64_t version, const spc_fence *fence,
                    spc_result_cb *cb, void *privdata)
{
    spc_cmd c;
    spc_build_revert(&c, ns, name, version, fence);
    return run_async(ac, &c, cb, privdata, 0);
}
