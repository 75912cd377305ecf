/* agent.c -- the life of a simulated agent: its connection (hiredis async on
 * its worker's libevent base), the loop of operations with think times, and the
 * accounting of every command and operation. What an operation sends is in
 * ops.c.
 *
 * Life of an agent: CONNECTING -> BUSY (setup operations, not measured, then
 * the mix, one operation after another) <-> THINKING (an optional pause between
 * operations) -> DONE when the run drains or its connection fails. Everything
 * runs on the worker's thread.
 *
 * Accounting. Every command sent is counted in the worker's `calls` whatever
 * the phase (the totals that must equal the server's INFO commandstats); an
 * operation that starts in the measured phase has its commands and itself
 * recorded in the worker's histograms and byte counts, whenever it finishes.
 * Reply sizes are the RESP2 bytes the server sent, recomputed from the parsed
 * reply (exact for RESP2, all this client speaks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <hiredis/adapters/libevent.h>

#include "agent.h"

#define ERRORS_SHOWN_MAX 5 /* error replies printed per thread */

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void op_start(agent *a);
static void on_reply(redisAsyncContext *ac, void *r, void *priv);

void agent_send(agent *a, int cmd)
{
    worker *w = a->w;
    pending *p;

    if (!a->ac || a->npend == PEND_MAX ||
        redisAsyncFormattedCommand(a->ac, on_reply, a, w->fmt, w->fmt_len) != REDIS_OK) {
        a->err = 1;
        return;
    }
    p = &a->pend[(a->phead + a->npend) % PEND_MAX];
    a->npend++;
    p->t0 = bench_now_ns();
    p->sent = w->fmt_len;
    p->cmd = cmd;
    w->calls[cmd]++;
    a->sent += w->fmt_len;
    atomic_fetch_add_explicit(&w->live_sent, w->fmt_len, memory_order_relaxed);
}

/* ---- reply sizes ---- */

static unsigned digits(unsigned long long v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* The size of r as the server sent it in RESP2. */
static uint64_t wire_size(const redisReply *r)
{
    uint64_t n;
    size_t i;

    switch (r->type) {
    case REDIS_REPLY_STRING:
        return 1 + digits(r->len) + 2 + r->len + 2;
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
        return 1 + r->len + 2;
    case REDIS_REPLY_INTEGER:
        return 1 + (r->integer < 0) +
               digits(r->integer < 0 ? -(unsigned long long)r->integer : (unsigned long long)r->integer) + 2;
    case REDIS_REPLY_NIL:
        return 5;
    case REDIS_REPLY_ARRAY:
        n = 1 + digits(r->elements) + 2;
        for (i = 0; i < r->elements; i++)
            n += wire_size(r->element[i]);
        return n;
    default:
        return 0;
    }
}

/* ---- the agent's life ---- */

/* Count the agent as past its setup (once): it finished it, or it stopped. */
static void setup_mark(agent *a)
{
    if (a->setup_counted)
        return;
    a->setup_counted = 1;
    atomic_fetch_add(&a->w->sh->setup_done, 1);
}

static void agent_stop(agent *a)
{
    worker *w = a->w;

    if (a->state == AG_DONE)
        return;
    if (a->state == AG_THINKING)
        event_del(a->think);
    setup_mark(a);
    a->state = AG_DONE;
    if (--w->active == 0)
        event_base_loopbreak(w->base);
}

static void on_think(evutil_socket_t fd, short what, void *arg)
{
    agent *a = arg;
    (void)fd;
    (void)what;
    if (a->state == AG_THINKING)
        op_start(a);
}

/* The operation's last reply is in: record it, then think or go on. */
static void op_finish(agent *a)
{
    worker *w = a->w;
    const bench_opts *o = w->o;
    uint64_t now = bench_now_ns();

    if (a->measured) {
        stat_slot *s = &w->op[a->op];
        hist_record(&s->lat, now - a->t0);
        s->bytes_sent += a->sent;
        s->bytes_recv += a->recv;
        s->errors += (uint64_t)a->err;
        w->last_done_ns = now;
    }
    atomic_fetch_add_explicit(&w->live_ops, 1, memory_order_relaxed);
    if (a->err)
        atomic_fetch_add_explicit(&w->live_errors, 1, memory_order_relaxed);
    if (a->is_setup)
        a->setup_pos++;
    if (!a->ac) {
        agent_stop(a);
        return;
    }
    if (o->think_ms > 0 && !a->is_setup) {
        struct timeval tv;
        double ms = rng_exp(&a->r, o->think_ms);
        tv.tv_sec = (time_t)(ms / 1000);
        tv.tv_usec = (suseconds_t)((ms - (double)tv.tv_sec * 1000) * 1000);
        a->state = AG_THINKING;
        event_add(a->think, &tv);
        return;
    }
    op_start(a);
}

/* Start the next operation (setup, then the mix), or stop if the run is over.
 * In the measured phase with --requests, an operation starts only if it gets
 * one of the n slots. */
static void op_start(agent *a)
{
    worker *w = a->w;
    const bench_opts *o = w->o;
    int phase = atomic_load(&w->sh->phase), op;

    if (phase == PHASE_DRAIN || !a->ac) {
        agent_stop(a);
        return;
    }
    a->is_setup = a->setup_pos < a->nsetup;
    a->measured = 0;
    if (a->is_setup) {
        op = a->setup[a->setup_pos];
    } else {
        setup_mark(a);
        if (phase == PHASE_MEASURE) {
            if (o->requests && atomic_fetch_add(&w->sh->measure_started, 1) >= o->requests) {
                agent_stop(a);
                return;
            }
            a->measured = 1;
        }
        op = ops_next(a);
    }
    a->state = AG_BUSY;
    a->err = 0;
    a->sent = a->recv = 0;
    a->t0 = bench_now_ns();
    ops_begin(a, op);
    if (a->npend == 0) {
        /* nothing could be sent: the connection is going */
        a->err = 1;
        agent_stop(a);
    }
}

static void on_reply(redisAsyncContext *ac, void *r, void *priv)
{
    agent *a = priv;
    worker *w = a->w;
    redisReply *rep = r;
    pending p;
    uint64_t now, recv;
    int iserr;

    (void)ac;
    if (!rep || a->npend == 0) {
        /* the connection is closing: hiredis fails what is pending */
        a->npend = 0;
        return;
    }
    p = a->pend[a->phead];
    a->phead = (a->phead + 1) % PEND_MAX;
    a->npend--;
    now = bench_now_ns();
    recv = wire_size(rep);
    iserr = rep->type == REDIS_REPLY_ERROR;
    a->recv += recv;
    atomic_fetch_add_explicit(&w->live_recv, recv, memory_order_relaxed);
    if (iserr) {
        w->call_errors[p.cmd]++;
        if (w->errors_shown++ < ERRORS_SHOWN_MAX)
            fprintf(stderr, "scratchpad-bench: agent %u, %s: %.*s\n", a->id, bench_cmd_names[p.cmd],
                    (int)(rep->len > 200 ? 200 : rep->len), rep->str);
        a->err = 1;
    }
    if (a->measured) {
        stat_slot *s = &w->cmd[p.cmd];
        hist_record(&s->lat, now - p.t0);
        s->bytes_sent += p.sent;
        s->bytes_recv += recv;
        s->errors += (uint64_t)iserr;
    }
    if (a->state != AG_BUSY)
        return;
    if (iserr)
        ops_failed(a);
    else
        ops_reply(a, rep);
    if (a->npend == 0)
        op_finish(a);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    agent *a = ac->data;

    if (status != REDIS_OK) {
        if (a->w->connect_failed++ == 0)
            fprintf(stderr, "scratchpad-bench: connect to %s:%d: %s\n", a->w->o->host, a->w->o->port,
                    ac->errstr);
        a->ac = NULL; /* hiredis frees it */
        agent_stop(a);
        return;
    }
    a->state = AG_BUSY;
    op_start(a);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    agent *a = ac->data;

    a->ac = NULL; /* hiredis frees it */
    if (a->state == AG_DONE)
        return;
    if (a->w->conn_lost++ == 0)
        fprintf(stderr, "scratchpad-bench: agent %u lost its connection: %s\n", a->id,
                status == REDIS_OK ? "closed" : ac->errstr);
    agent_stop(a);
}

/* ---- the worker's side ---- */

int agents_create(worker *w, int first, int step, int count)
{
    const bench_opts *o = w->o;
    int i, made = 0;

    ops_worker_init(w);
    w->agents = calloc((size_t)count, sizeof(*w->agents));
    if (!w->agents)
        return -1;
    w->nagents = count;
    w->active = count;
    for (i = 0; i < count; i++) {
        agent *a = calloc(1, sizeof(*a));
        if (!a) {
            /* the agents never made count as failed and past their setup */
            w->connect_failed += (uint64_t)(count - i);
            atomic_fetch_add(&w->sh->setup_done, count - i);
            w->nagents = i;
            w->active -= count - i;
            break;
        }
        w->agents[i] = a;
        a->w = w;
        a->id = (unsigned)(first + i * step);
        a->state = AG_CONNECTING;
        rng_seed(&a->r, o->seed, a->id);
        loggen_init(&a->lg, &a->r);
        a->nslen = (size_t)snprintf(a->ns, sizeof(a->ns), "%s:%u", o->prefix, a->id);
        ops_plan_setup(a);
        a->think = evtimer_new(w->base, on_think, a);
        a->ac = redisAsyncConnect(o->host, o->port);
        if (!a->think || !a->ac || a->ac->err) {
            if (w->connect_failed++ == 0)
                fprintf(stderr, "scratchpad-bench: connect to %s:%d: %s\n", o->host, o->port,
                        a->ac ? a->ac->errstr : strerror(errno));
            if (a->ac)
                redisAsyncFree(a->ac);
            a->ac = NULL;
            agent_stop(a);
            continue;
        }
        a->ac->data = a;
        redisLibeventAttach(a->ac, w->base);
        redisAsyncSetConnectCallback(a->ac, on_connect);
        redisAsyncSetDisconnectCallback(a->ac, on_disconnect);
        made++;
    }
    return made ? 0 : -1;
}

void agents_tick(worker *w)
{
    int i;

    if (atomic_load(&w->sh->phase) != PHASE_DRAIN)
        return;
    for (i = 0; i < w->nagents; i++)
        if (w->agents[i]->state == AG_THINKING)
            agent_stop(w->agents[i]);
}

void agents_destroy(worker *w)
{
    int i;

    for (i = 0; i < w->nagents; i++) {
        agent *a = w->agents[i];
        a->state = AG_DONE;
        if (a->ac)
            redisAsyncFree(a->ac);
        if (a->think)
            event_free(a->think);
        free(a);
    }
    free(w->agents);
    w->agents = NULL;
    w->nagents = 0;
    ops_worker_free(w);
}
