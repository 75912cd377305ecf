/* mcp_run.c -- a session's queue of messages, tool calls in a thread (see mcp_run.h).
 *
 * At most one thread per session, running mcp_handle on one tools/call; the
 * loop never touches the session while it runs (ping is answered without it;
 * a cancellation goes through mcp_session_cancel, which is made for another
 * thread: under the session's lock, it shuts down the socket the call
 * published, or stops a call that has not sent its command yet).
 */
#include "mcp_run.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct item {
    json_t *msg;
    void *tag;
    struct item *next;
} item;

struct mcp_run {
    struct event_base *base;
    mcp_session *s;
    mcp_run_done done;
    void *arg;
    item *head, *tail; /* waiting, in order */
    item *cur;         /* the call its thread runs, or NULL */
    pthread_t thread;  /* valid while cur */
    json_t *result;    /* the thread's reply, read after the join */
    int cancelled;     /* cur was cancelled: its reply is dropped */
    int wake[2];       /* the thread writes a byte to wake[1] when done */
    struct event *woken;
};

static const char *method_of(json_t *msg)
{
    return json_string_value(json_object_get(msg, "method"));
}

static int is_call(json_t *msg)
{
    const char *m = method_of(msg);
    return mcp_is_request(msg) && m && strcmp(m, "tools/call") == 0;
}

static void *run_call(void *arg)
{
    mcp_run *r = arg;
    r->result = mcp_handle(r->s, r->cur->msg);
    ssize_t n;
    do
        n = write(r->wake[1], "x", 1);
    while (n < 0);
    return NULL;
}

static void finish(mcp_run *r, item *it, json_t *reply, mcp_run_end how)
{
    json_decref(it->msg);
    void *tag = it->tag;
    free(it);
    r->done(tag, reply, how, r->arg);
}

/* Answer what waits, in order, until a call is started in a thread. */
static void drain(mcp_run *r)
{
    while (!r->cur && r->head) {
        item *it = r->head;
        r->head = it->next;
        if (!r->head)
            r->tail = NULL;
        if (is_call(it->msg)) {
            r->cur = it;
            r->cancelled = 0;
            r->result = NULL;
            mcp_session_arm(r->s);
            if (pthread_create(&r->thread, NULL, run_call, r) == 0)
                return;
            r->cur = NULL; /* no thread: run it here, as a stdio server without threads would */
        }
        finish(r, it, mcp_handle(r->s, it->msg), MCP_RUN_ANSWERED);
    }
}

static void on_woken(evutil_socket_t fd, short what, void *arg)
{
    mcp_run *r = arg;
    char b;
    (void)what;
    if (read(fd, &b, 1) != 1 || !r->cur)
        return;
    pthread_join(r->thread, NULL);
    item *it = r->cur;
    r->cur = NULL;
    json_t *reply = r->result;
    r->result = NULL;
    if (r->cancelled) {
        json_decref(reply);
        finish(r, it, NULL, MCP_RUN_CANCELLED);
    } else {
        finish(r, it, reply, MCP_RUN_ANSWERED);
    }
    drain(r);
}

/* Stop the running call: it does not send its command, or its blocked command returns at once. */
static void stop_current(mcp_run *r)
{
    r->cancelled = 1;
    mcp_session_cancel(r->s);
}

/* notifications/cancelled {requestId}: a request still waiting is dropped, the running one stopped. */
static void cancel(mcp_run *r, json_t *params)
{
    json_t *rid = json_object_get(params, "requestId");
    if (!rid)
        return;
    if (r->cur && json_equal(json_object_get(r->cur->msg, "id"), rid)) {
        stop_current(r);
        return;
    }
    for (item **pp = &r->head; *pp; pp = &(*pp)->next) {
        item *it = *pp;
        if (!mcp_is_request(it->msg) || !json_equal(json_object_get(it->msg, "id"), rid))
            continue;
        const char *m = method_of(it->msg);
        if (strcmp(m, "initialize") == 0)
            return; /* the specification: initialize is never cancelled */
        *pp = it->next;
        if (r->tail == it) {
            r->tail = NULL;
            for (item *t = r->head; t; t = t->next)
                r->tail = t;
        }
        finish(r, it, NULL, MCP_RUN_CANCELLED);
        return;
    }
}

mcp_run *mcp_run_new(struct event_base *base, mcp_session *s, mcp_run_done done, void *arg)
{
    mcp_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->base = base;
    r->s = s;
    r->done = done;
    r->arg = arg;
    r->wake[0] = r->wake[1] = -1;
    if (pipe(r->wake) < 0)
        goto err;
    r->woken = event_new(base, r->wake[0], EV_READ | EV_PERSIST, on_woken, r);
    if (!r->woken || event_add(r->woken, NULL) < 0)
        goto err;
    return r;
err:
    mcp_run_free(r);
    return NULL;
}

int mcp_run_submit(mcp_run *r, json_t *msg, void *tag)
{
    const char *m = json_is_object(msg) ? method_of(msg) : NULL;
    if (m && !json_object_get(msg, "id") && strcmp(m, "notifications/cancelled") == 0) {
        cancel(r, json_object_get(msg, "params"));
        r->done(tag, NULL, MCP_RUN_ANSWERED, r->arg);
        return 0;
    }
    if (m && mcp_is_request(msg) && strcmp(m, "ping") == 0 && (r->cur || r->head)) {
        json_t *id = json_object_get(msg, "id");
        if (json_is_string(id) || json_is_integer(id)) {
            r->done(tag, json_pack("{s:s,s:O,s:{}}", "jsonrpc", "2.0", "id", id, "result"), MCP_RUN_ANSWERED, r->arg);
            return 0;
        }
    }
    item *it = calloc(1, sizeof *it);
    if (!it)
        return -1;
    it->msg = json_incref(msg);
    it->tag = tag;
    if (r->tail)
        r->tail->next = it;
    else
        r->head = it;
    r->tail = it;
    drain(r);
    return 0;
}

int mcp_run_busy(const mcp_run *r)
{
    return r->cur || r->head;
}

void mcp_run_free(mcp_run *r)
{
    if (!r)
        return;
    if (r->cur) {
        stop_current(r);
        pthread_join(r->thread, NULL);
        json_decref(r->result);
        item *it = r->cur;
        r->cur = NULL;
        finish(r, it, NULL, MCP_RUN_GONE);
    }
    while (r->head) {
        item *it = r->head;
        r->head = it->next;
        finish(r, it, NULL, MCP_RUN_GONE);
    }
    if (r->woken)
        event_free(r->woken);
    if (r->wake[0] >= 0)
        close(r->wake[0]);
    if (r->wake[1] >= 0)
        close(r->wake[1]);
    free(r);
}
