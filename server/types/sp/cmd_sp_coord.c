/* cmd_sp_coord.c -- the SP.* commands through which agents sharing a
 * scratchpad coordinate: leases with fencing tokens (SP.LEASE, SP.RELEASE,
 * SP.LEASES) and the change feed (SP.CHANGES).
 *
 * Why here: the writes fence themselves (cmd_sp.c, spc_fence_check) and record
 * their changes (spc_note); this file is the other side, the commands that
 * take turns and the one that reads what changed. The structures are
 * core/sp/spco.h's; the counters, the retention limit and the log records are
 * types/sp/sptype.c's.
 *
 * Waiting: SP.LEASE WAIT and SP.CHANGES BLOCK wait through cmd/block.h
 * (waiters on one scratchpad each wait for something of their own: a waiter
 * that finds nothing keeps its place and the ones behind it still run). A release or any change of the scratchpad wakes them; a lease that
 * expires wakes its waiters from a timer armed at its expiry (wake_at), so
 * they are served within a millisecond of it rather than at the next cron
 * tick. First come, first served: a client that finds a lease free while
 * another client waits for it is refused (or, with WAIT, stands in line
 * behind it), so the line is never jumped. */
#include <event2/event.h>
#include <stdio.h>
#include <string.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/sp/sp.h"
#include "core/sp/spco.h"
#include "core/util.h"
#include "net/reply.h"
#include "server.h"
#include "types/sp/cmd_sp_int.h"
#include "types/sp/sptype.h"

/* ---- waking lease waiters at an expiry ---- */

/* A timer that looks key up at `when` (which reaps the leases due, and so
 * signals their waiters), then serves the clients made ready. Pending ones
 * are listed so that one (database, key, time) is armed once. */
typedef struct wake {
    struct wake *next;
    struct event *ev;
    int dbid;
    int64_t when; /* ms since epoch */
    size_t klen;
    char key[];
} wake;

static wake *wakes;

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
    wake *w = arg, **pp;

    (void)fd;
    (void)what;
    for (pp = &wakes; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    db_now = now_ms();
    if (w->dbid < srv.cfg.databases)
        db_lookup_write(&srv.dbs[w->dbid], w->key, w->klen);
    if (blk_ready_pending)
        blk_handle_ready();
    event_free(w->ev);
    xfree(w);
}

static void wake_at(int dbid, const char *key, size_t klen, int64_t when)
{
    struct timeval tv;
    int64_t left;
    wake *w;

    for (w = wakes; w; w = w->next)
        if (w->dbid == dbid && w->when == when && w->klen == klen && memcmp(w->key, key, klen) == 0)
            return;
    w = xmalloc(sizeof(wake) + klen);
    w->dbid = dbid;
    w->when = when;
    w->klen = klen;
    memcpy(w->key, key, klen);
    w->next = wakes;
    wakes = w;
    left = when - now_ms();
    if (left < 0)
        left = 0;
    tv.tv_sec = (time_t)(left / 1000);
    tv.tv_usec = (suseconds_t)((left % 1000) * 1000);
    w->ev = evtimer_new(srv.base, wake_cb, w);
    evtimer_add(w->ev, &tv);
}

/* ---- SP.LEASE ns resource holder ttl-ms [WAIT ms] ---- */

/* Another waiter's command is SP.LEASE on the same resource (ctx: the sarg). */
static int waits_for_resource(void *ctx, const cmd_def *cmd, int argc, const sarg *argv)
{
    const sarg *res = ctx;
    return cmd->proc == cmd_sp_lease && argc > 2 && argv[2].len == res->len && memcmp(argv[2].p, res->p, res->len) == 0;
}

/* A lease's reply: [token, expires-at-ms]. */
static void reply_grant(client *c, const sp_lease *l)
{
    reply_array(c, 2);
    reply_int(c, (long long)l->token);
    reply_int(c, l->expire);
}

void cmd_sp_lease(client *c)
{
    const sarg *res = &c->argv[2], *holder = &c->argv[3];
    long long ttl, wait = -1;
    int64_t deadline = 0;
    int replied, r;
    sp_lease *l;
    dbent *ke;
    sp *s;

    if (c->argc == 7 && spc_arg_is(&c->argv[5], "wait")) {
        if (spc_arg_nonneg(c, 6, "WAIT", &wait) < 0)
            return;
    } else if (c->argc != 5) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (spc_check_lease_name(c, res, "resource") < 0 || spc_check_lease_name(c, holder, "holder") < 0)
        return;
    if (arg_ll(c, 4, &ttl) < 0)
        return;
    if (ttl < 1 || ttl > 100LL * 365 * 24 * 3600 * 1000) {
        reply_error(c, "ERR ttl-ms must be between 1 and 3153600000000 (100 years)");
        return;
    }
    if (wait > 0)
        deadline = wait > INT64_MAX - now_ms() ? INT64_MAX : now_ms() + wait;
    s = spc_ns_write(c, &ke, &replied);
    if (replied)
        return;
    l = s && s->co ? spco_lease_find(s->co, res->p, res->len) : NULL;
    if ((!l || l->expire <= db_now) && !blk_rerunning(c) &&
        blk_waiting_for(c, c->argv[1].p, c->argv[1].len, waits_for_resource, (void *)res)) {
        /* Free, but promised to a client already waiting for it. */
        if (wait >= 0)
            blk_block(c, 1, 1, deadline);
        else
            reply_error(c, "LEASED free, but other clients wait for it first (use WAIT to stand in line)");
        return;
    }
    if (!s)
        s = sp_key_create(c->db, c->argv[1].p, c->argv[1].len, &ke);
    r = spco_lease_acquire(sp_co(s), res->p, res->len, holder->p, holder->len, db_now, ttl, &l);
    if (r == SPCO_HELD) {
        if (wait >= 0) {
            wake_at(c->dbid, c->argv[1].p, c->argv[1].len, l->expire);
            blk_block(c, 1, 1, deadline);
        } else {
            reply_errorf(c, "LEASED held by %.*s for %lld more ms", (int)l->hlen, sp_lease_holder(l),
                         (long long)(l->expire - db_now));
        }
        return;
    }
    sp_counter_seen(l->token);
    if (prop_on)
        sp_lease_effect(&prop_effects, c->dbid, c->argv[1].p, c->argv[1].len, l);
    reply_grant(c, l);
    sp_key_settle(c->db, ke, s);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
}

/* ---- SP.RELEASE ns resource holder token ---- */

void cmd_sp_release(client *c)
{
    const sarg *res = &c->argv[2], *holder = &c->argv[3];
    long long token;
    int replied;
    sp_lease *l;
    dbent *ke;
    sp *s;

    if (spc_check_lease_name(c, res, "resource") < 0 || spc_check_lease_name(c, holder, "holder") < 0)
        return;
    if (arg_ll(c, 4, &token) < 0)
        return;
    s = spc_ns_write(c, &ke, &replied);
    if (replied)
        return;
    l = s && s->co ? spco_lease_find(s->co, res->p, res->len) : NULL;
    if (!l || l->expire <= db_now || l->token != (uint64_t)token || l->hlen != holder->len ||
        memcmp(sp_lease_holder(l), holder->p, holder->len) != 0) {
        reply_int(c, 0);
        return;
    }
    spco_lease_remove(s->co, l);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("_SPUNLEASE");
        prop_arg(&c->argv[1]);
        prop_arg(res);
        prop_end();
    }
    sp_key_settle(c->db, ke, s);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, 1);
}

/* ---- SP.LEASES ns ---- */

void cmd_sp_leases(client *c)
{
    int replied;
    size_t i, live = 0;
    sp *s = spc_ns_read(c, NULL, &replied);

    if (replied)
        return;
    if (s && s->co)
        for (i = 0; i < s->co->nleases; i++)
            live += s->co->leases[i]->expire > db_now;
    reply_array(c, (long)live);
    for (i = 0; live && i < s->co->nleases; i++) {
        const sp_lease *l = s->co->leases[i];
        if (l->expire <= db_now)
            continue;
        reply_array(c, 4);
        reply_bulk(c, l->data, l->rlen);
        reply_bulk(c, sp_lease_holder(l), l->hlen);
        reply_int(c, (long long)l->token);
        reply_int(c, (long long)(l->expire - db_now));
    }
}

/* ---- SP.CHANGES ns [SINCE seq] [COUNT n] [BLOCK ms] ---- */

/* The reply: where the feed stands (first retained and last numbers), whether
 * changes after since were lost (gap: then none are listed, the reader
 * re-reads the scratchpad and resumes from last), and the changes after since,
 * at most count (-1: all). */
static void reply_changes(client *c, const spco *co, uint64_t since, long long count, int gap)
{
    size_t i = co ? spco_change_after(co, since) : 0, n = co && !gap ? co->nchanges - i : 0;

    if (count >= 0 && (size_t)count < n)
        n = (size_t)count;
    reply_map(c, 4);
    reply_bulk_cstr(c, "first");
    reply_int(c, co && co->nchanges ? (long long)spco_change_at(co, 0)->seq : 0);
    reply_bulk_cstr(c, "last");
    reply_int(c, co ? (long long)co->last_seq : 0);
    reply_bulk_cstr(c, "gap");
    reply_int(c, gap);
    reply_bulk_cstr(c, "changes");
    reply_array(c, (long)n);
    for (; n > 0; n--, i++) {
        const sp_change *ch = spco_change_at(co, i);
        reply_array(c, 7);
        reply_int(c, (long long)ch->seq);
        reply_int(c, ch->time);
        reply_bulk_cstr(c, spco_op_name(ch->op));
        reply_bulk(c, ch->data, ch->nlen);
        reply_int(c, (long long)ch->version);
        reply_int(c, (long long)ch->size);
        reply_bulk(c, sp_change_client(ch), ch->clen);
    }
}

void cmd_sp_changes(client *c)
{
    long long since = 0, count = -1, block = -1;
    int64_t deadline = 0;
    int i, replied, gap = 0;
    const spco *co;
    sp *s;

    for (i = 2; i < c->argc; i++) {
        int more = i + 1 < c->argc;
        if (spc_arg_is(&c->argv[i], "since") && more) {
            if (spc_arg_nonneg(c, ++i, "SINCE", &since) < 0)
                return;
        } else if (spc_arg_is(&c->argv[i], "count") && more) {
            if (spc_arg_nonneg(c, ++i, "COUNT", &count) < 0)
                return;
        } else if (spc_arg_is(&c->argv[i], "block") && more) {
            if (spc_arg_nonneg(c, ++i, "BLOCK", &block) < 0)
                return;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    s = spc_ns_read(c, NULL, &replied);
    if (replied)
        return;
    co = s ? s->co : NULL;
    if (since > 0) {
        /* Changes after since that are not all retained: the scratchpad is
         * gone or new, or since is older than the oldest change kept. */
        uint64_t last = co ? co->last_seq : 0, first = co && co->nchanges ? spco_change_at(co, 0)->seq : 0;
        gap = !co || (uint64_t)since > last || (co->nchanges ? (uint64_t)since + 1 < first : (uint64_t)since < last);
    }
    if (!gap && block >= 0 && (!co || spco_change_after(co, (uint64_t)since) == co->nchanges) && count != 0) {
        if (block > 0)
            deadline = block > INT64_MAX - now_ms() ? INT64_MAX : now_ms() + block;
        blk_block(c, 1, 1, deadline);
        return;
    }
    reply_changes(c, co, (uint64_t)since, count, gap);
}
