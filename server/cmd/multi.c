/* multi.c -- transactions and WATCH (see multi.h). */
#include "cmd/acl.h"
#include "cmd/multi.h"
#include "cmd/propagate.h"

#include <string.h>

#include "cmd/commands.h"
#include "core/ht.h"
#include "core/mem.h"
#include "net/reply.h"
#include "core/util.h"

typedef struct wkey {
    ht_node node;
    client **clients;
    int nclients, cap;
    char key[];
} wkey;

typedef struct watched_key {
    struct watched_key *next;
    int dbid;
    int expired;          /* the key was logically expired when WATCHed */
    wkey *wk;
} watched_key;

int multi_exec_depth;
static ht *wtabs; /* one per database */

static const char *wkey_keyof(const ht_node *n)
{
    return ((const wkey *)n)->key;
}

void multi_init(void)
{
    int i;
    wtabs = xcalloc((size_t)srv.cfg.databases, sizeof(ht));
    for (i = 0; i < srv.cfg.databases; i++)
        ht_init(&wtabs[i], wkey_keyof, srv.hash_seed ^ 0x77a7c4);
}

static wkey *wkey_find(int dbid, const char *key, size_t klen)
{
    ht *t = &wtabs[dbid];
    return (wkey *)ht_find(t, key, (uint32_t)klen, (uint32_t)ht_hash(key, klen, t->seed));
}

/* ---- queueing ---- */

void multi_queue(client *c, const cmd_def *cmd)
{
    mcmd *m;
    int i;

    if (c->mcount == c->mcap) {
        c->mcap = c->mcap ? c->mcap * 2 : 8;
        c->mqueue = xrealloc(c->mqueue, sizeof(mcmd) * (size_t)c->mcap);
    }
    m = &c->mqueue[c->mcount++];
    m->cmd = cmd;
    m->argc = c->argc;
    m->argv = xmalloc(sizeof(sarg) * (size_t)c->argc);
    for (i = 0; i < c->argc; i++) {
        m->argv[i].p = xstrndup(c->argv[i].p, c->argv[i].len);
        m->argv[i].len = c->argv[i].len;
    }
    reply_raw(c, "+QUEUED\r\n", 9);
}

void multi_flag_error(client *c)
{
    if (c->flags & CLIENT_MULTI)
        c->flags |= CLIENT_DIRTY_EXEC;
}

int multi_has_denyoom(const client *c)
{
    int i;
    for (i = 0; i < c->mcount; i++)
        if (c->mqueue[i].cmd->flags & CMD_DENYOOM)
            return 1;
    return 0;
}

int multi_has_write(const client *c)
{
    int i;
    for (i = 0; i < c->mcount; i++)
        if (c->mqueue[i].cmd->flags & CMD_WRITE)
            return 1;
    return 0;
}

void multi_discard(client *c)
{
    int i, j;
    for (i = 0; i < c->mcount; i++) {
        for (j = 0; j < c->mqueue[i].argc; j++)
            xfree(c->mqueue[i].argv[j].p);
        xfree(c->mqueue[i].argv);
    }
    xfree(c->mqueue);
    c->mqueue = NULL;
    c->mcount = c->mcap = 0;
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
}

void multi_exec_abort(client *c, const char *msg)
{
    reply_errorf(c, "EXECABORT Transaction discarded because of: %s", msg);
    multi_discard(c);
    multi_unwatch_all(c);
}

/* ---- watching ---- */

static void watch_key(client *c, const char *key, size_t klen)
{
    watched_key *w;
    wkey *wk;
    dbent *e;

    for (w = c->watched; w; w = w->next)
        if (w->dbid == c->dbid && w->wk->node.klen == klen && memcmp(w->wk->key, key, klen) == 0)
            return;
    wk = wkey_find(c->dbid, key, klen);
    if (!wk) {
        ht *t = &wtabs[c->dbid];
        wk = xcalloc(1, sizeof(wkey) + klen);
        memcpy(wk->key, key, klen);
        wk->node.klen = (uint32_t)klen;
        wk->node.hash = (uint32_t)ht_hash(key, klen, t->seed);
        ht_insert(t, &wk->node);
    }
    if (wk->nclients == wk->cap) {
        wk->cap = wk->cap ? wk->cap * 2 : 4;
        wk->clients = xrealloc(wk->clients, sizeof(client *) * (size_t)wk->cap);
    }
    wk->clients[wk->nclients++] = c;
    w = xmalloc(sizeof(*w));
    w->dbid = c->dbid;
    w->wk = wk;
    e = db_find_raw(c->db, key, klen);
    w->expired = e && db_is_expired(c->db, e);
    if (!c->watched)
        srv.watching_clients++;
    w->next = c->watched;
    c->watched = w;
}

void multi_unwatch_all(client *c)
{
    watched_key *w = c->watched;

    if (w)
        srv.watching_clients--;
    while (w) {
        watched_key *next = w->next;
        wkey *wk = w->wk;
        int i;
        for (i = 0; i < wk->nclients; i++) {
            if (wk->clients[i] == c) {
                wk->clients[i] = wk->clients[--wk->nclients];
                break;
            }
        }
        if (wk->nclients == 0) {
            ht_remove(&wtabs[w->dbid], wk->key, wk->node.klen, wk->node.hash);
            xfree(wk->clients);
            xfree(wk);
        }
        xfree(w);
        w = next;
    }
    c->watched = NULL;
}

static void touch_wkey(wkey *wk)
{
    int i;
    for (i = 0; i < wk->nclients; i++)
        wk->clients[i]->flags |= CLIENT_DIRTY_CAS;
}

void multi_touch_key(db *d, const char *key, size_t klen)
{
    wkey *wk;
    if (srv.watching_clients == 0)
        return;
    wk = wkey_find(d->id, key, klen);
    if (wk)
        touch_wkey(wk);
}

typedef struct touch_ctx {
    db *a, *b;
} touch_ctx;

static int touch_if_exists(void *ctx, ht_node *n)
{
    touch_ctx *t = ctx;
    wkey *wk = (wkey *)n;
    if (db_find_raw(t->a, wk->key, wk->node.klen) || (t->b && db_find_raw(t->b, wk->key, wk->node.klen)))
        touch_wkey(wk);
    return 0;
}

void multi_touch_db(db *d)
{
    touch_ctx t = {d, NULL};
    if (srv.watching_clients == 0)
        return;
    ht_foreach(&wtabs[d->id], touch_if_exists, &t);
}

void multi_touch_swap(db *a, db *b)
{
    touch_ctx t1 = {a, b}, t2 = {b, a};
    if (srv.watching_clients == 0)
        return;
    ht_foreach(&wtabs[a->id], touch_if_exists, &t1);
    ht_foreach(&wtabs[b->id], touch_if_exists, &t2);
}

/* A watched key that was alive at WATCH and has expired since, even if nobody
 * touched it yet, makes EXEC fail (as Redis 7). */
static int watched_expired(client *c)
{
    watched_key *w;
    for (w = c->watched; w; w = w->next) {
        db *d = &srv.dbs[w->dbid];
        dbent *e;
        if (w->expired)
            continue;
        e = db_find_raw(d, w->wk->key, w->wk->node.klen);
        if (e && db_is_expired(d, e))
            return 1;
    }
    return 0;
}

/* ---- commands ---- */

static void cmd_multi(client *c)
{
    if (c->flags & CLIENT_MULTI) {
        reply_error(c, "ERR MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    reply_ok(c);
}

static void cmd_discard(client *c)
{
    if (!(c->flags & CLIENT_MULTI)) {
        reply_error(c, "ERR DISCARD without MULTI");
        return;
    }
    multi_discard(c);
    multi_unwatch_all(c);
    reply_ok(c);
}

static void cmd_exec(client *c)
{
    int saved_argc = c->argc, i, n;
    sarg *saved_argv = c->argv;
    const cmd_def *saved_cmd = c->cmd;
    int rec;
    unsigned gen;
    mcmd *queue;

    if (!(c->flags & CLIENT_MULTI)) {
        reply_error(c, "ERR EXEC without MULTI");
        return;
    }
    if (c->flags & CLIENT_DIRTY_EXEC) {
        reply_error(c, "EXECABORT Transaction discarded because of previous errors.");
        multi_discard(c);
        multi_unwatch_all(c);
        return;
    }
    if ((c->flags & CLIENT_DIRTY_CAS) || watched_expired(c)) {
        reply_null_array(c);
        multi_discard(c);
        multi_unwatch_all(c);
        return;
    }
    multi_unwatch_all(c);
    queue = c->mqueue;
    n = c->mcount;
    c->mqueue = NULL;
    c->mcount = c->mcap = 0;
    c->flags &= ~CLIENT_MULTI;
    reply_array(c, n);
    /* One log record for the whole transaction: the effects of its commands
     * nest inside it, so a crash keeps all of them or none. */
    rec = prop_on;
    gen = prop_gen;
    if (rec)
        prop_begin(c->dbid);
    multi_exec_depth++;
    for (i = 0; i < n; i++) {
        c->argc = queue[i].argc;
        c->argv = queue[i].argv;
        /* Permissions may have changed since the command was queued. */
        if (c->user && !c->user->allow_all && acl_check_exec(c, queue[i].cmd) < 0)
            continue;
        db_now = now_ms();
        cmd_call(c, queue[i].cmd);
    }
    multi_exec_depth--;
    if (rec && prop_on && prop_gen == gen)
        prop_end();
    c->argc = saved_argc;
    c->argv = saved_argv;
    c->cmd = saved_cmd;
    for (i = 0; i < n; i++) {
        int j;
        for (j = 0; j < queue[i].argc; j++)
            xfree(queue[i].argv[j].p);
        xfree(queue[i].argv);
    }
    xfree(queue);
}

static void cmd_watch(client *c)
{
    int i;
    if (c->flags & CLIENT_MULTI) {
        reply_error(c, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    for (i = 1; i < c->argc; i++)
        watch_key(c, c->argv[i].p, c->argv[i].len);
    reply_ok(c);
}

static void cmd_unwatch(client *c)
{
    multi_unwatch_all(c);
    c->flags &= ~CLIENT_DIRTY_CAS;
    reply_ok(c);
}

/* clang-format off */
const cmd_def cmd_table_multi[] = {
    {.name = "multi", .proc = cmd_multi, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .group = "transactions",
     .summary = "Starts a transaction.", .since = "1.2.0", .complexity = "O(1)", .acl = "fast transaction"},
    {.name = "exec", .proc = cmd_exec, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG, .group = "transactions",
     .summary = "Executes all commands in a transaction.", .since = "1.2.0",
     .complexity = "Depends on commands in the transaction", .acl = "slow transaction"},
    {.name = "discard", .proc = cmd_discard, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .group = "transactions",
     .summary = "Discards a transaction.", .since = "2.0.0",
     .complexity = "O(N) when N is the number of queued commands", .acl = "fast transaction"},
    {.name = "watch", .proc = cmd_watch, .arity = -2,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, KEYS(1, -1, 1),
     .group = "transactions", .summary = "Monitors changes to keys to determine the execution of a transaction.",
     .since = "2.2.0", .complexity = "O(1) for every key.", .acl = "fast transaction", .key_specs = "RO"},
    {.name = "unwatch", .proc = cmd_unwatch, .arity = 1,
     .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .group = "transactions",
     .summary = "Forgets about watched keys of a transaction.", .since = "2.2.0", .complexity = "O(1)",
     .acl = "fast transaction"},
    {0},
};
/* clang-format on */
