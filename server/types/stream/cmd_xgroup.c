/* cmd_xgroup.c -- the consumer-group commands: XACK, XPENDING, XCLAIM,
 * XAUTOCLAIM, XGROUP's subcommands (CREATE, SETID, DESTROY, CREATECONSUMER,
 * DELCONSUMER, HELP) and XINFO's (STREAM, GROUPS, CONSUMERS, HELP).
 *
 * Why a file of its own: these commands work on a stream's groups, consumers
 * and pending entries lists (stream.h's xgroup, xconsumer, xnack): they never
 * change the entries (cmd_stream.c) nor read new ones to a consumer
 * (cmd_xread.c). XINFO is here as most of what it shows is the groups'.
 *
 * Effects (docs/aof.md): XCLAIM and XAUTOCLAIM log what they did, not
 * themselves: XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID
 * per pending entry claimed, XACK key group id per pending entry dropped
 * because its entry is gone, and (XCLAIM's LASTID) XGROUP SETID key group id
 * ENTRIESREAD n when the group's last delivered id moved. The other writes
 * (XACK, XGROUP's) are deterministic and logged as typed. XGROUP DESTROY wakes
 * the clients blocked on the key, which get -NOGROUP. */
#include <limits.h>
#include <stdint.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/stream/cmd_stream_int.h"
#include "types/stream/stream.h"

/* ---- groups ---- */

void cmd_xack(client *c)
{
    xs_id ids[16], *v = ids;
    dbent *e;
    xgroup *g = NULL;
    long long acked = 0;
    int j, n = c->argc - 3;

    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_int(c, 0);
        return;
    }
    if (n > 16)
        v = xmalloc(sizeof(xs_id) * (size_t)n);
    for (j = 0; j < n; j++)
        if (xc_parse_id(c, &c->argv[3 + j], 0, 1, NULL, &v[j]) < 0)
            goto done;
    for (j = 0; j < n; j++) {
        xnack *nk = pel_find(&g->pel, &v[j]);
        if (nk) {
            stream_nack_del(g, nk);
            acked++;
        }
    }
    if (acked)
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, acked);
done:
    if (v != ids)
        xfree(v);
}

void cmd_xpending(client *c)
{
    int justinfo = c->argc == 3, sx = 0, ex = 0;
    const sarg *cname = NULL;
    xs_id start, end;
    long long count = 0, minidle = 0;
    dbent *e;
    xgroup *g;

    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc >= 6) {
        int si = 3;
        if (xc_arg_is(&c->argv[3], "idle")) {
            if (arg_ll(c, 4, &minidle) < 0)
                return;
            if (c->argc < 8) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
            si += 2;
        }
        if (arg_ll(c, si + 2, &count) < 0)
            return;
        if (count < 0)
            count = 0;
        if (xc_parse_interval(c, &c->argv[si], 0, &sx, &start) < 0)
            return;
        if (sx && stream_id_incr(&start) < 0) {
            reply_error(c, "ERR invalid start ID for the interval");
            return;
        }
        if (xc_parse_interval(c, &c->argv[si + 1], UINT64_MAX, &ex, &end) < 0)
            return;
        if (ex && stream_id_decr(&end) < 0) {
            reply_error(c, "ERR invalid end ID for the interval");
            return;
        }
        if (si + 3 < c->argc)
            cname = &c->argv[si + 3];
    }
    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || !(g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len))) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    if (justinfo) {
        size_t k, n = 0;
        void *slot;
        reply_array(c, 4);
        reply_int(c, (long long)g->pel.n);
        if (g->pel.n == 0) {
            reply_null(c);
            reply_null(c);
            reply_null_array(c);
            return;
        }
        xc_reply_id(c, &pel_at(&g->pel, 0)->id);
        xc_reply_id(c, &pel_at(&g->pel, g->pel.n - 1)->id);
        slot = reply_defer(c);
        for (k = 0; k < g->ncons; k++) {
            const xconsumer *cn = g->cons[k];
            if (cn->pel.n == 0)
                continue;
            reply_array(c, 2);
            reply_bulk(c, cn->name, cn->nlen);
            reply_bulk_ll(c, (long long)cn->pel.n);
            n++;
        }
        reply_defer_array(c, slot, (long)n);
        return;
    }
    {
        const xpel *p = &g->pel;
        size_t k, n = 0;
        void *slot;
        if (cname) {
            const xconsumer *cn = stream_consumer_find(g, cname->p, cname->len);
            if (!cn) {
                reply_array(c, 0);
                return;
            }
            p = &cn->pel;
        }
        slot = reply_defer(c);
        for (k = pel_lower(p, &start); count && k < p->n && xs_id_cmp(&pel_at(p, k)->id, &end) <= 0; k++) {
            const xnack *nk = pel_at(p, k);
            int64_t idle = db_now - nk->delivery_time;
            if (minidle && idle < minidle)
                continue;
            n++;
            count--;
            reply_array(c, 4);
            xc_reply_id(c, &nk->id);
            reply_bulk(c, nk->consumer->name, nk->consumer->nlen);
            reply_int(c, idle < 0 ? 0 : idle);
            reply_int(c, (long long)nk->delivery_count);
        }
        reply_defer_array(c, slot, (long)n);
    }
}

void cmd_xclaim(client *c)
{
    dbent *e;
    xgroup *g = NULL;
    stream *s;
    long long minidle, retry = -1, dtime = -1;
    int force = 0, justid = 0, j, last_arg, moved = 0;
    xs_id lastid = {0, 0}, *ids = NULL;
    xconsumer *cons = NULL;
    void *slot;
    size_t n = 0;
    int64_t now = db_now;

    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    s = stream_of(e);
    if (str_to_ll(c->argv[4].p, c->argv[4].len, &minidle) < 0) {
        reply_error(c, "ERR Invalid min-idle-time argument for XCLAIM");
        return;
    }
    if (minidle < 0)
        minidle = 0;
    ids = xmalloc(sizeof(xs_id) * (size_t)c->argc);
    for (j = 5; j < c->argc; j++)
        if (xc_parse_id(NULL, &c->argv[j], 0, 1, NULL, &ids[j - 5]) < 0)
            break;
    last_arg = j - 1;
    for (; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const sarg *o = &c->argv[j];
        if (xc_arg_is(o, "force")) {
            force = 1;
        } else if (xc_arg_is(o, "justid")) {
            justid = 1;
        } else if (xc_arg_is(o, "idle") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &dtime) < 0) {
                reply_error(c, "ERR Invalid IDLE option argument for XCLAIM");
                goto done;
            }
            dtime = now - dtime;
        } else if (xc_arg_is(o, "time") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &dtime) < 0) {
                reply_error(c, "ERR Invalid TIME option argument for XCLAIM");
                goto done;
            }
        } else if (xc_arg_is(o, "retrycount") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &retry) < 0) {
                reply_error(c, "ERR Invalid RETRYCOUNT option argument for XCLAIM");
                goto done;
            }
        } else if (xc_arg_is(o, "lastid") && more) {
            j++;
            if (xc_parse_id(c, &c->argv[j], 0, 1, NULL, &lastid) < 0)
                goto done;
        } else {
            reply_errorf(c, "ERR Unrecognized XCLAIM option '%.*s'", (int)o->len, o->p);
            goto done;
        }
    }
    if (xs_id_cmp(&lastid, &g->last_id) > 0) {
        g->last_id = lastid;
        moved = 1;
    }
    if (dtime != -1) {
        if (dtime < 0 || dtime > now)
            dtime = now;
    } else {
        dtime = now;
    }
    slot = reply_defer(c);
    for (j = 5; j <= last_arg; j++) {
        xs_id id = ids[j - 5];
        xnack *nk = pel_find(&g->pel, &id);
        int fresh = 0;
        if (!xc_entry_exists(s, &id)) {
            if (nk) {
                stream_nack_del(g, nk);
                xc_prop_xack(c, &c->argv[1], g, &id);
                signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
            }
            continue;
        }
        if (force && !nk)
            fresh = 1;
        if (!nk && !fresh)
            continue;
        if (!fresh && minidle && now - nk->delivery_time < minidle)
            continue;
        if (!cons) {
            int created;
            cons = stream_consumer_get(g, c->argv[3].p, c->argv[3].len, now, &created);
            cons->seen_time = now;
            if (created)
                signal_event(c->db, NOTIFY_STREAM, "xgroup-createconsumer", c->argv[1].p, c->argv[1].len);
        }
        if (fresh)
            nk = stream_nack_add(g, cons, &id, now, 1);
        else
            stream_nack_move(nk, cons);
        nk->delivery_time = dtime;
        if (retry >= 0)
            nk->delivery_count = (uint64_t)retry;
        else if (!justid)
            nk->delivery_count++;
        if (justid)
            xc_reply_id(c, &id);
        else if (!xc_reply_one(c, s, &id))
            reply_null(c);
        n++;
        xc_prop_xclaim(c, &c->argv[1], g, nk);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    }
    if (moved) {
        xc_prop_setid(c, &c->argv[1], g);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    }
    reply_defer_array(c, slot, (long)n);
done:
    xfree(ids);
}

void cmd_xautoclaim(client *c)
{
    dbent *e;
    xgroup *g = NULL;
    stream *s;
    long long minidle, count = 100, attempts;
    xs_id start, endid = {0, 0}, *deleted, *claimed;
    int sx, j, justid = 0;
    size_t k, n = 0, ndel = 0;
    xconsumer *cons = NULL;
    int64_t now = db_now;

    if (str_to_ll(c->argv[4].p, c->argv[4].len, &minidle) < 0) {
        reply_error(c, "ERR Invalid min-idle-time argument for XAUTOCLAIM");
        return;
    }
    if (minidle < 0)
        minidle = 0;
    if (xc_parse_interval(c, &c->argv[5], 0, &sx, &start) < 0)
        return;
    if (sx && stream_id_incr(&start) < 0) {
        reply_error(c, "ERR invalid start ID for the interval");
        return;
    }
    for (j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (xc_arg_is(&c->argv[j], "count") && more) {
            long long maxc = LONG_MAX / 16;
            if (str_to_ll(c->argv[j + 1].p, c->argv[j + 1].len, &count) < 0 || count < 1 || count > maxc) {
                reply_error(c, "ERR COUNT must be > 0");
                return;
            }
            j++;
        } else if (xc_arg_is(&c->argv[j], "justid")) {
            justid = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (xc_lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    s = stream_of(e);
    attempts = count * 10;
    claimed = xmalloc(sizeof(xs_id) * 64);
    deleted = xmalloc(sizeof(xs_id) * 64);
    k = pel_lower(&g->pel, &start);
    while (attempts-- && count && k < g->pel.n) {
        xnack *nk = pel_at(&g->pel, k);
        xs_id id = nk->id;
        if (!xc_entry_exists(s, &id)) {
            stream_nack_del(g, nk);
            xc_prop_xack(c, &c->argv[1], g, &id);
            signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
            if (ndel % 64 == 0 && ndel)
                deleted = xrealloc(deleted, sizeof(xs_id) * (ndel + 64));
            deleted[ndel++] = id;
            count--;
            continue; /* k now names the next one */
        }
        if (minidle && now - nk->delivery_time < minidle) {
            k++;
            continue;
        }
        if (!cons) {
            int created;
            cons = stream_consumer_get(g, c->argv[3].p, c->argv[3].len, now, &created);
            cons->seen_time = now;
            if (created)
                signal_event(c->db, NOTIFY_STREAM, "xgroup-createconsumer", c->argv[1].p, c->argv[1].len);
        }
        stream_nack_move(nk, cons);
        nk->delivery_time = now;
        if (!justid)
            nk->delivery_count++;
        if (n % 64 == 0 && n)
            claimed = xrealloc(claimed, sizeof(xs_id) * (n + 64));
        claimed[n++] = id;
        count--;
        xc_prop_xclaim(c, &c->argv[1], g, nk);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
        k++;
    }
    if (k < g->pel.n)
        endid = pel_at(&g->pel, k)->id;
    reply_array(c, 3);
    xc_reply_id(c, &endid);
    reply_array(c, (long)n);
    for (k = 0; k < n; k++) {
        if (justid)
            xc_reply_id(c, &claimed[k]);
        else if (!xc_reply_one(c, s, &claimed[k]))
            reply_null(c);
    }
    reply_array(c, (long)ndel);
    for (k = 0; k < ndel; k++)
        xc_reply_id(c, &deleted[k]);
    xfree(claimed);
    xfree(deleted);
}

/* ---- XGROUP ---- */

/* The stream and group XGROUP's subcommands name, with Redis's errors: 0, or
 * -1 replied. need_group: SETID, CREATECONSUMER, DELCONSUMER. */
static int xgroup_target(client *c, int mkstream, int need_group, dbent **e, xgroup **g)
{
    *g = NULL;
    if (xc_lookup_stream(c, &c->argv[2], 1, e) < 0)
        return -1;
    if (!mkstream) {
        if (!*e) {
            reply_error(c, "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
                           "want to use the MKSTREAM option to create an empty stream automatically.");
            return -1;
        }
        *g = stream_group_find(stream_of(*e), c->argv[3].p, c->argv[3].len);
        if (!*g && need_group) {
            reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", (int)c->argv[3].len,
                         c->argv[3].p, (int)c->argv[2].len, c->argv[2].p);
            return -1;
        }
    } else if (*e) {
        *g = stream_group_find(stream_of(*e), c->argv[3].p, c->argv[3].len);
    }
    return 0;
}

void cmd_xgroup_create(client *c)
{
    int mkstream = 0, i = 5;
    long long rd = XS_INVALID_READ;
    dbent *e;
    xgroup *g;
    xs_id id;

    while (i < c->argc) {
        if (xc_arg_is(&c->argv[i], "mkstream")) {
            mkstream = 1;
            i++;
        } else if (xc_arg_is(&c->argv[i], "entriesread") && i + 1 < c->argc) {
            if (arg_ll(c, i + 1, &rd) < 0)
                return;
            if (rd < 0 && rd != XS_INVALID_READ) {
                reply_error(c, "ERR value for ENTRIESREAD must be positive or -1");
                return;
            }
            i += 2;
        } else {
            reply_subcommand_syntax(c);
            return;
        }
    }
    if (xgroup_target(c, mkstream, 0, &e, &g) < 0)
        return;
    if (c->argc > 8) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$')
        id = e ? stream_of(e)->last_id : ID_MIN;
    else if (xc_parse_id(c, &c->argv[4], 0, 1, NULL, &id) < 0)
        return;
    if (!e) {
        e = stream_create(c->db, c->argv[2].p, c->argv[2].len);
        signal_key_changed(c->db, c->argv[2].p, c->argv[2].len); /* a new key: as Redis, the one reported */
    }
    if (!stream_group_create(stream_of(e), c->argv[3].p, c->argv[3].len, &id, rd)) {
        reply_error(c, "BUSYGROUP Consumer Group name already exists");
        return;
    }
    reply_ok(c);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
    signal_event(c->db, NOTIFY_STREAM, "xgroup-create", c->argv[2].p, c->argv[2].len);
}

void cmd_xgroup_setid(client *c)
{
    dbent *e;
    xgroup *g;
    xs_id id;
    long long rd = XS_INVALID_READ;

    if (c->argc == 7) {
        if (!xc_arg_is(&c->argv[5], "entriesread")) {
            reply_error(c, ERR_SYNTAX);
            return;
        }
        if (arg_ll(c, 6, &rd) < 0)
            return;
        if (rd < 0 && rd != XS_INVALID_READ) {
            reply_error(c, "ERR value for ENTRIESREAD must be positive or -1");
            return;
        }
    }
    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    if (c->argc != 5 && c->argc != 7) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$')
        id = stream_of(e)->last_id;
    else if (xc_parse_id(c, &c->argv[4], 0, 0, NULL, &id) < 0)
        return;
    g->last_id = id;
    g->entries_read = rd;
    reply_ok(c);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
    signal_event(c->db, NOTIFY_STREAM, "xgroup-setid", c->argv[2].p, c->argv[2].len);
}

void cmd_xgroup_destroy(client *c)
{
    dbent *e;
    xgroup *g;

    if (xgroup_target(c, 0, 0, &e, &g) < 0)
        return;
    if (!g) {
        reply_int(c, 0);
        return;
    }
    stream_group_destroy(stream_of(e), c->argv[3].p, c->argv[3].len);
    reply_int(c, 1);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
    signal_event(c->db, NOTIFY_STREAM, "xgroup-destroy", c->argv[2].p, c->argv[2].len);
    blk_key_ready(c->db, c->argv[2].p, c->argv[2].len); /* its blocked readers get -NOGROUP */
}

void cmd_xgroup_createconsumer(client *c)
{
    dbent *e;
    xgroup *g;
    int created;

    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    stream_consumer_get(g, c->argv[4].p, c->argv[4].len, db_now, &created);
    reply_int(c, created);
    if (created) {
        signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
        signal_event(c->db, NOTIFY_STREAM, "xgroup-createconsumer", c->argv[2].p, c->argv[2].len);
    }
}

void cmd_xgroup_delconsumer(client *c)
{
    dbent *e;
    xgroup *g;
    xconsumer *cn;

    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    cn = stream_consumer_find(g, c->argv[4].p, c->argv[4].len);
    if (!cn) {
        reply_int(c, 0);
        return;
    }
    reply_int(c, (long long)stream_consumer_delete(g, cn));
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
    signal_event(c->db, NOTIFY_STREAM, "xgroup-delconsumer", c->argv[2].p, c->argv[2].len);
}

void cmd_xgroup_help(client *c)
{
    static const char *const lines[] = {
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- XINFO ---- */

static void reply_lag(client *c, const stream *s, const xgroup *g)
{
    long long lag;
    if (stream_group_lag(s, g, &lag) < 0)
        reply_null(c);
    else
        reply_int(c, lag);
}

static void reply_entries_read(client *c, const xgroup *g)
{
    if (g->entries_read != XS_INVALID_READ)
        reply_int(c, g->entries_read);
    else
        reply_null(c);
}

void cmd_xinfo_stream(client *c)
{
    long long count = 10;
    int full = 0;
    dbent *e;
    const stream *s;
    xs_id first, last;
    size_t i, j, k;

    if (xc_lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (c->argc > 3) {
        if (!xc_arg_is(&c->argv[3], "full")) {
            reply_subcommand_syntax(c);
            return;
        }
        if (c->argc == 6) {
            if (!xc_arg_is(&c->argv[4], "count")) {
                reply_subcommand_syntax(c);
                return;
            }
            if (arg_ll(c, 5, &count) < 0)
                return;
            if (count < 0)
                count = 10;
        } else if (c->argc != 4) {
            reply_subcommand_syntax(c);
            return;
        }
        full = 1;
    }
    s = stream_of(e);
    reply_map(c, full ? 9 : 10);
    reply_bulk_cstr(c, "length");
    reply_int(c, (long long)xs_len(s->x));
    reply_bulk_cstr(c, "radix-tree-keys");
    reply_int(c, (long long)xs_nblocks(s->x));
    reply_bulk_cstr(c, "radix-tree-nodes");
    reply_int(c, (long long)xs_nblocks(s->x) + 1);
    reply_bulk_cstr(c, "last-generated-id");
    xc_reply_id(c, &s->last_id);
    reply_bulk_cstr(c, "max-deleted-entry-id");
    xc_reply_id(c, &s->max_deleted);
    reply_bulk_cstr(c, "entries-added");
    reply_int(c, (long long)s->entries_added);
    reply_bulk_cstr(c, "recorded-first-entry-id");
    first = stream_first_id(s);
    xc_reply_id(c, &first);
    if (!full) {
        reply_bulk_cstr(c, "groups");
        reply_int(c, (long long)s->ngroups);
        reply_bulk_cstr(c, "first-entry");
        if (xs_first(s->x, &first) < 0 || !xc_reply_one(c, s, &first))
            reply_null(c);
        reply_bulk_cstr(c, "last-entry");
        if (xs_last(s->x, &last) < 0 || !xc_reply_one(c, s, &last))
            reply_null(c);
        return;
    }
    reply_bulk_cstr(c, "entries");
    xc_reply_range(c, s, &ID_MIN, &ID_MAX, (size_t)count, 0);
    reply_bulk_cstr(c, "groups");
    reply_array(c, (long)s->ngroups);
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        size_t lim = count ? (size_t)count : SIZE_MAX;
        reply_map(c, 7);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, g->name, g->nlen);
        reply_bulk_cstr(c, "last-delivered-id");
        xc_reply_id(c, &g->last_id);
        reply_bulk_cstr(c, "entries-read");
        reply_entries_read(c, g);
        reply_bulk_cstr(c, "lag");
        reply_lag(c, s, g);
        reply_bulk_cstr(c, "pel-count");
        reply_int(c, (long long)g->pel.n);
        reply_bulk_cstr(c, "pending");
        reply_array(c, (long)(g->pel.n < lim ? g->pel.n : lim));
        for (k = 0; k < g->pel.n && k < lim; k++) {
            const xnack *nk = pel_at(&g->pel, k);
            reply_array(c, 4);
            xc_reply_id(c, &nk->id);
            reply_bulk(c, nk->consumer->name, nk->consumer->nlen);
            reply_int(c, nk->delivery_time);
            reply_int(c, (long long)nk->delivery_count);
        }
        reply_bulk_cstr(c, "consumers");
        reply_array(c, (long)g->ncons);
        for (j = 0; j < g->ncons; j++) {
            const xconsumer *cn = g->cons[j];
            reply_map(c, 4);
            reply_bulk_cstr(c, "name");
            reply_bulk(c, cn->name, cn->nlen);
            reply_bulk_cstr(c, "seen-time");
            reply_int(c, cn->seen_time);
            reply_bulk_cstr(c, "pel-count");
            reply_int(c, (long long)cn->pel.n);
            reply_bulk_cstr(c, "pending");
            reply_array(c, (long)(cn->pel.n < lim ? cn->pel.n : lim));
            for (k = 0; k < cn->pel.n && k < lim; k++) {
                const xnack *nk = pel_at(&cn->pel, k);
                reply_array(c, 3);
                xc_reply_id(c, &nk->id);
                reply_int(c, nk->delivery_time);
                reply_int(c, (long long)nk->delivery_count);
            }
        }
    }
}

void cmd_xinfo_groups(client *c)
{
    dbent *e;
    const stream *s;
    size_t i;

    if (xc_lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    s = stream_of(e);
    reply_array(c, (long)s->ngroups);
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        reply_map(c, 6);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, g->name, g->nlen);
        reply_bulk_cstr(c, "consumers");
        reply_int(c, (long long)g->ncons);
        reply_bulk_cstr(c, "pending");
        reply_int(c, (long long)g->pel.n);
        reply_bulk_cstr(c, "last-delivered-id");
        xc_reply_id(c, &g->last_id);
        reply_bulk_cstr(c, "entries-read");
        reply_entries_read(c, g);
        reply_bulk_cstr(c, "lag");
        reply_lag(c, s, g);
    }
}

void cmd_xinfo_consumers(client *c)
{
    dbent *e;
    const xgroup *g;
    size_t i;

    if (xc_lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (!(g = stream_group_find(stream_of(e), c->argv[3].p, c->argv[3].len))) {
        reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", (int)c->argv[3].len, c->argv[3].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    reply_array(c, (long)g->ncons);
    for (i = 0; i < g->ncons; i++) {
        const xconsumer *cn = g->cons[i];
        int64_t idle = db_now - cn->seen_time;
        reply_map(c, 3);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, cn->name, cn->nlen);
        reply_bulk_cstr(c, "pending");
        reply_int(c, (long long)cn->pel.n);
        reply_bulk_cstr(c, "idle");
        reply_int(c, idle < 0 ? 0 : idle);
    }
}

void cmd_xinfo_help(client *c)
{
    static const char *const lines[] = {
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        NULL,
    };
    reply_help(c, lines);
}
