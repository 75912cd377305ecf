/* block.c -- clients waiting for keys (see block.h).
 *
 * State: a table from (database, key) to the line of clients waiting on it
 * (oldest first); each blocked client holds its own copy of its command's
 * arguments (its query buffer moves on), the keys it waits on and a timer.
 * Ready keys are noted in a list (each at most once) and served after the
 * command or EXEC that made them ready; woken clients are listed for
 * blk_resume, which runs their pipelined requests from the loop, outside any
 * other client's command. Work per change of a key nobody waits on: one
 * counter test (blk_key_ready returns at once while no client is blocked). */
#include "cmd/block.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <event2/event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/multi.h"
#include "core/ht.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/net.h"
#include "net/reply.h"

/* The line of clients waiting on one key of one database. */
typedef struct blk_key {
    ht_node node;          /* key bytes: the database id (4 bytes), then the key */
    client **w;            /* waiting clients, oldest first */
    int nw, cap;
    int ready;             /* on the ready list */
    int dbid;
    size_t klen;           /* bytes of the key alone */
    char kbuf[];           /* 4 bytes of dbid, then klen bytes of key */
} blk_key;

/* A blocked client's wait. */
typedef struct blk_state {
    const cmd_def *cmd;
    int argc;
    sarg *argv;            /* owned copies */
    int64_t deadline;      /* ms since the epoch, 0: none */
    struct event *timer;   /* NULL without a deadline */
    blk_key **keys;        /* the lines it stands in */
    int nkeys;
    int rerun;             /* its command runs again now */
    int stay;              /* the re-run found nothing: keep waiting */
    int type;              /* OBJ_* of the values it waits for; -1: any */
    int64_t usec;          /* us its runs took so far (INFO commandstats) */
} blk_state;

static ht table;
static int table_ready;
static long long nblocked;
static blk_key **readyq;
static int nready, capready;
static client **resumeq;
static int nresume, capresume;
int blk_ready_pending;
static blk_key *serving_key; /* the ready key whose clients are being served */

static const char *bk_keyof(const ht_node *n)
{
    return ((const blk_key *)n)->kbuf;
}

static uint32_t bk_hash(const char *kb, size_t n)
{
    return (uint32_t)ht_hash(kb, n, table.seed);
}

/* The key bytes of (dbid, key) into buf (at least 4 + klen bytes). */
static size_t bk_bytes(char *buf, int dbid, const char *key, size_t klen)
{
    uint32_t id = (uint32_t)dbid;
    memcpy(buf, &id, 4);
    memcpy(buf + 4, key, klen);
    return 4 + klen;
}

static blk_key *bk_find(int dbid, const char *key, size_t klen)
{
    char stackbuf[256], *buf = klen + 4 <= sizeof(stackbuf) ? stackbuf : xmalloc(klen + 4);
    size_t n = bk_bytes(buf, dbid, key, klen);
    blk_key *bk = NULL;

    if (table_ready)
        bk = (blk_key *)ht_find(&table, buf, (uint32_t)n, bk_hash(buf, n));
    if (buf != stackbuf)
        xfree(buf);
    return bk;
}

static blk_key *bk_get(int dbid, const char *key, size_t klen)
{
    blk_key *bk = bk_find(dbid, key, klen);

    if (bk)
        return bk;
    if (!table_ready) {
        ht_init(&table, bk_keyof, 0x6b1c5eedULL);
        table_ready = 1;
    }
    bk = xcalloc(1, sizeof(blk_key) + 4 + klen);
    bk->dbid = dbid;
    bk->klen = klen;
    bk->node.klen = (uint32_t)bk_bytes(bk->kbuf, dbid, key, klen);
    bk->node.hash = bk_hash(bk->kbuf, bk->node.klen);
    ht_insert(&table, &bk->node);
    return bk;
}

/* Take c out of bk's line; free the line when it is empty and not ready. */
static void bk_leave(blk_key *bk, client *c)
{
    int i;

    for (i = 0; i < bk->nw; i++)
        if (bk->w[i] == c)
            break;
    if (i == bk->nw)
        return;
    memmove(bk->w + i, bk->w + i + 1, sizeof(client *) * (size_t)(bk->nw - i - 1));
    bk->nw--;
    if (bk->nw == 0 && !bk->ready) {
        ht_remove(&table, bk->kbuf, bk->node.klen, bk->node.hash);
        xfree(bk->w);
        xfree(bk);
    }
}

int blk_parse_timeout(client *c, int i, int64_t *deadline)
{
    const sarg *a = &c->argv[i];
    long double v;
    char *end;
    long long ms;

    errno = 0;
    v = a->len ? strtold(a->p, &end) : 0;
    if (a->len == 0 || a->len > 5 * 1024 || isspace((unsigned char)a->p[0]) || end != a->p + a->len ||
        (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0)) || isnan(v)) {
        reply_error(c, "ERR timeout is not a float or out of range");
        return -1;
    }
    v *= 1000.0L;
    /* Out of a long long's range: Redis's conversion gives LLONG_MIN. */
    ms = (v < 9.2233720368547758e18L && v > -9.2233720368547758e18L) ? (long long)v : LLONG_MIN;
    if (ms < 0) {
        reply_error(c, "ERR timeout is negative");
        return -1;
    }
    if (ms == 0)
        *deadline = 0;
    else
        *deadline = ms > INT64_MAX - now_ms() ? INT64_MAX : now_ms() + ms;
    return 0;
}

int blk_rerunning(const client *c)
{
    return c->blk && c->blk->rerun;
}

const char *blk_rerun_key(const client *c, size_t *klen)
{
    if (!blk_rerunning(c) || !serving_key)
        return NULL;
    *klen = serving_key->klen;
    return serving_key->kbuf + 4;
}

static void resume_later(client *c)
{
    if (nresume == capresume) {
        capresume = capresume ? capresume * 2 : 16;
        resumeq = xrealloc(resumeq, sizeof(client *) * (size_t)capresume);
    }
    resumeq[nresume++] = c;
}

void blk_resume_later(client *c)
{
    resume_later(c);
}

/* End c's wait: leave every line, drop the timer and the arguments. */
static void unblock(client *c)
{
    blk_state *b = c->blk;
    int i, j;

    for (i = 0; i < b->nkeys; i++)
        bk_leave(b->keys[i], c);
    if (b->timer)
        event_free(b->timer);
    for (j = 0; j < b->argc; j++)
        xfree(b->argv[j].p);
    xfree(b->argv);
    xfree(b->keys);
    xfree(b);
    c->blk = NULL;
    c->flags &= ~CLIENT_BLOCKED;
    nblocked--;
}

/* Reply what a wait that timed out replies. */
static void reply_timeout(client *c)
{
    reply_null_array(c);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    client *c = arg;

    (void)fd;
    (void)what;
    reply_timeout(c);
    cmd_count_call(c, c->blk->cmd, 1, c->blk->usec, 0);
    unblock(c);
    resume_later(c);
}

/* The type of value c's command waits for: its group's (a list, a sorted set). */
static int wait_type(const cmd_def *cmd)
{
    if (cmd->group && strcmp(cmd->group, "list") == 0)
        return OBJ_LIST;
    if (cmd->group && strcmp(cmd->group, "sorted-set") == 0)
        return OBJ_ZSET;
    return -1;
}

int blk_not_serving(const client *c, const char *key, size_t klen)
{
    if (!c->blk || !c->blk->rerun || !serving_key)
        return 0;
    return klen != serving_key->klen || memcmp(key, serving_key->kbuf + 4, klen) != 0;
}

int blk_call_waits(client *c, int64_t dur)
{
    blk_state *b = c->blk;

    if (!b || (b->rerun && !b->stay))
        return 0;
    b->usec += dur;
    return 1;
}

int blk_can_block(const client *c)
{
    return !(multi_exec_depth > 0 || (c->flags & CLIENT_FAKE) || c->fd < 0);
}

void blk_block(client *c, int first, int nkeys, int64_t deadline)
{
    blk_state *b;
    int i;

    if (c->blk && c->blk->rerun) {
        c->blk->stay = 1;
        return;
    }
    if (!blk_can_block(c)) {
        reply_timeout(c);
        return;
    }
    b = xcalloc(1, sizeof(blk_state));
    b->cmd = c->cmd;
    b->argc = c->argc;
    b->argv = xmalloc(sizeof(sarg) * (size_t)c->argc);
    for (i = 0; i < c->argc; i++) {
        b->argv[i].p = xstrndup(c->argv[i].p, c->argv[i].len);
        b->argv[i].len = c->argv[i].len;
    }
    b->deadline = deadline;
    b->type = wait_type(c->cmd);
    b->keys = xmalloc(sizeof(blk_key *) * (size_t)nkeys);
    for (i = 0; i < nkeys; i++) {
        const sarg *k = &c->argv[first + i];
        blk_key *bk = bk_get(c->dbid, k->p, k->len);
        int j, dup = 0;
        for (j = 0; j < bk->nw; j++)
            dup |= bk->w[j] == c;
        if (dup)
            continue; /* the same key named twice: one place in line */
        if (bk->nw == bk->cap) {
            bk->cap = bk->cap ? bk->cap * 2 : 4;
            bk->w = xrealloc(bk->w, sizeof(client *) * (size_t)bk->cap);
        }
        bk->w[bk->nw++] = c;
        b->keys[b->nkeys++] = bk;
    }
    if (deadline > 0) {
        int64_t left = deadline - now_ms();
        struct timeval tv;
        if (left < 0)
            left = 0;
        tv.tv_sec = (time_t)(left / 1000);
        tv.tv_usec = (suseconds_t)((left % 1000) * 1000);
        b->timer = evtimer_new(srv.base, timer_cb, c);
        evtimer_add(b->timer, &tv);
    }
    c->blk = b;
    c->flags |= CLIENT_BLOCKED;
    nblocked++;
}

int blk_waiting_for(const client *c, const char *key, size_t klen,
                    int (*fn)(void *ctx, const cmd_def *cmd, int argc, const sarg *argv), void *ctx)
{
    blk_key *bk;
    int i;

    if (nblocked == 0 || !(bk = bk_find(c->dbid, key, klen)))
        return 0;
    for (i = 0; i < bk->nw; i++) {
        const blk_state *b = bk->w[i]->blk;
        if (bk->w[i] != c && fn(ctx, b->cmd, b->argc, b->argv))
            return 1;
    }
    return 0;
}

static void note_ready(blk_key *bk)
{
    bk->ready = 1;
    if (nready == capready) {
        capready = capready ? capready * 2 : 16;
        readyq = xrealloc(readyq, sizeof(blk_key *) * (size_t)capready);
    }
    readyq[nready++] = bk;
    blk_ready_pending = 1;
}

/* 1 if bk's key in d concerns one of its clients: it holds a value of the
 * type the client waits for, or the client waits for any change of the key
 * (type -1: a stream's group read, a lease, the change feed, for which a
 * deletion matters too). */
static int waited_value(const blk_key *bk, db *d)
{
    const dbent *e = db_find_raw(d, bk->kbuf + 4, bk->klen);
    int i;

    for (i = 0; i < bk->nw; i++) {
        int t = bk->w[i]->blk->type;
        if (t < 0 || (e && t == e->type))
            return 1;
    }
    return 0;
}

void blk_key_ready(db *d, const char *key, size_t klen)
{
    blk_key *bk;

    if (nblocked == 0)
        return;
    bk = bk_find(d->id, key, klen);
    if (!bk || bk->ready || !waited_value(bk, d))
        return;
    note_ready(bk);
}

typedef struct swap_ctx {
    int a, b;
} swap_ctx;

static int note_swapped(void *ctx, ht_node *n)
{
    const swap_ctx *s = ctx;
    blk_key *bk = (blk_key *)n;

    if ((bk->dbid == s->a || bk->dbid == s->b) && !bk->ready && waited_value(bk, &srv.dbs[bk->dbid]))
        note_ready(bk);
    return 0;
}

void blk_db_flushed(db *d)
{
    swap_ctx s = {d->id, d->id};

    if (nblocked > 0 && table_ready)
        ht_foreach(&table, note_swapped, &s);
}

void blk_db_swapped(db *a, db *b)
{
    swap_ctx s = {a->id, b->id};

    if (nblocked > 0 && table_ready)
        ht_foreach(&table, note_swapped, &s);
}

/* Run c's command again; 1 if it is done waiting, 0 if it waits on. */
static int rerun(client *c)
{
    blk_state *b = c->blk;
    int argc = c->argc;
    sarg *argv = c->argv;
    const cmd_def *cmd = c->cmd;
    client *current = srv.current;

    c->argc = b->argc;
    c->argv = b->argv;
    b->rerun = 1;
    b->stay = 0;
    db_now = now_ms();
    cmd_call(c, b->cmd);
    b->rerun = 0;
    c->argc = argc;
    c->argv = argv;
    c->cmd = cmd;
    srv.current = current;
    if (b->stay)
        return 0;
    cmd_count_call(c, b->cmd, 0, b->usec, 0); /* the runs that waited; cmd_call counted this one */
    unblock(c);
    resume_later(c);
    return 1;
}

void blk_handle_ready(void)
{
    static int serving;
    int i, gone;

    if (serving)
        return;
    serving = 1;
    while (nready > 0) {
        blk_key *bk = readyq[0];
        memmove(readyq, readyq + 1, sizeof(blk_key *) * (size_t)(nready - 1));
        nready--;
        /* Each waiter in line, oldest first, from this key only; one that
         * finds nothing (it waits for another type, or for something of its
         * own: a lease, a later change) keeps its place. Once the key is gone
         * (emptied) only the waiters of any change run (a blocked XREADGROUP
         * learns of the deletion; a lease waiter may take a freed lease). */
        serving_key = bk;
        i = 0;
        gone = !db_find_raw(&srv.dbs[bk->dbid], bk->kbuf + 4, bk->klen);
        while (i < bk->nw) {
            if (gone && bk->w[i]->blk->type >= 0)
                i++;
            else if (rerun(bk->w[i]))
                gone = !db_find_raw(&srv.dbs[bk->dbid], bk->kbuf + 4, bk->klen);
            else
                i++;
        }
        serving_key = NULL;
        bk->ready = 0;
        if (bk->nw == 0) {
            ht_remove(&table, bk->kbuf, bk->node.klen, bk->node.hash);
            xfree(bk->w);
            xfree(bk);
        }
    }
    blk_ready_pending = 0;
    serving = 0;
}

void blk_resume(void)
{
    while (nresume > 0) {
        client *c = resumeq[0];
        memmove(resumeq, resumeq + 1, sizeof(client *) * (size_t)(nresume - 1));
        nresume--;
        if (c->qpos < c->qlen && !(c->flags & (CLIENT_BLOCKED | CLIENT_POSTPONED | CLIENT_CLOSE_ASAP)))
            client_process_input(c);
    }
}

int blk_unblock(client *c, int error)
{
    if (!(c->flags & CLIENT_BLOCKED) || !c->blk)
        return 0;
    if (error)
        reply_error(c, "UNBLOCKED client unblocked via CLIENT UNBLOCK"); /* a failed call of c's command */
    else
        reply_timeout(c);
    cmd_count_call(c, c->blk->cmd, 1, c->blk->usec, !error); /* Redis 7.0: failed either way */
    unblock(c);
    resume_later(c);
    return 1;
}

void blk_client_release(client *c)
{
    int i;

    if (c->blk)
        unblock(c);
    for (i = 0; i < nresume; i++)
        if (resumeq[i] == c)
            resumeq[i--] = resumeq[--nresume];
}

long long blk_count(void)
{
    return nblocked;
}
