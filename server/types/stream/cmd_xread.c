/* cmd_xread.c -- XREAD and XREADGROUP, blocking included.
 *
 * Why a file of its own: the two commands share one parser, one pass over
 * their streams (xread_generic) and the rules of blocking; XREADGROUP also
 * delivers to a consumer of a group: it creates the consumer, adds or moves
 * pending entries and moves the group's last delivered id.
 *
 * Effects (docs/aof.md): XREADGROUP logs what it did to the group, not
 * itself: XGROUP CREATECONSUMER for a consumer created, XCLAIM key group
 * consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID per pending entry delivered,
 * XGROUP SETID key group id ENTRIESREAD n when the group's last delivered id
 * moved. So a replay recreates the same pending entries, delivery counts and
 * last delivered ids, and never blocks.
 *
 * Blocking: XREAD and XREADGROUP with BLOCK wait through cmd/block.h. A `$`
 * is resolved when the client blocks (its copy of the arguments holds the id
 * then), so the re-run after a change reads what came after it; a wait on
 * several streams is served by the one whose change woke it (blk_rerun_key),
 * as Redis 7.0 serves it. A blocked
 * XREADGROUP whose stream goes away gets "-UNBLOCKED the stream key no
 * longer exists", and whose group goes, "-NOGROUP the consumer group this
 * client was blocked on no longer exists", as Redis 7.0. */
#include <stdint.h>
#include <string.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/stream/cmd_stream_int.h"
#include "types/stream/stream.h"

#define XREAD_BLOCKED_DEFAULT_COUNT 1000

/* ---- XREAD, XREADGROUP ---- */

/* 1 if c runs again for another key than key: a wait on several streams is
 * served by the stream that changed, as Redis 7.0 serves it. */
static int not_the_ready_key(const client *c, const sarg *key)
{
    size_t n;
    const char *k = blk_rerun_key(c, &n);
    return k && (n != key->len || memcmp(k, key->p, n) != 0);
}

/* BLOCK's argument: ms as an integer, Redis's errors; *deadline 0 for ever. */
static int parse_block_ms(client *c, int i, int64_t *deadline)
{
    long long ms;
    int64_t now = now_ms();

    if (str_to_ll(c->argv[i].p, c->argv[i].len, &ms) < 0) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return -1;
    }
    if (ms < 0) {
        reply_error(c, "ERR timeout is negative");
        return -1;
    }
    if (ms > 0 && ms > INT64_MAX - now) {
        reply_error(c, "ERR timeout is out of range");
        return -1;
    }
    *deadline = ms > 0 ? now + ms : 0;
    return 0;
}

/* Deliver new entries (> g->last_id) of s to consumer cons of g, replying
 * them (count 0: all); returns how many. */
static size_t deliver_new(client *c, const sarg *key, stream *s, xgroup *g, xconsumer *cons, size_t count, int noack)
{
    void *slot = reply_defer(c);
    xs_iter it;
    xs_id id, start = g->last_id;
    uint64_t nf;
    size_t n = 0;
    int moved = 0;

    stream_id_incr(&start);
    xs_iter_init(&it, s->x, &start, &ID_MAX, 0);
    while ((!count || n < count) && xs_next(&it, &id, &nf)) {
        if (xs_id_cmp(&id, &g->last_id) > 0) {
            if (g->entries_read != XS_INVALID_READ && !stream_range_has_tombstones(s, &id, NULL))
                g->entries_read++;
            else if (s->entries_added)
                g->entries_read = stream_estimate_read(s, &id);
            g->last_id = id;
            moved = 1;
        }
        xc_reply_entry(c, &it, &id, nf);
        if (!noack) {
            xnack *nk = pel_find(&g->pel, &id);
            if (nk) {
                stream_nack_move(nk, cons);
                nk->delivery_time = db_now;
                nk->delivery_count = 1;
            } else {
                nk = stream_nack_add(g, cons, &id, db_now, 1);
            }
            xc_prop_xclaim(c, key, g, nk);
        }
        n++;
    }
    reply_defer_array(c, slot, n);
    if (moved)
        xc_prop_setid(c, key, g);
    return n;
}

/* Reply consumer cons's pending entries from start (count 0: all), missing
 * entries as [id, nil]; each delivered again (time, count). */
static void deliver_history(client *c, const sarg *key, stream *s, xgroup *g, xconsumer *cons, const xs_id *start,
                            size_t count)
{
    size_t i = pel_lower(&cons->pel, start), n = 0;
    void *slot = reply_defer(c);

    for (; i < cons->pel.n && (!count || n < count); i++, n++) {
        xnack *nk = pel_at(&cons->pel, i);
        if (!xc_reply_one(c, s, &nk->id)) {
            reply_array(c, 2);
            xc_reply_id(c, &nk->id);
            reply_null_array(c);
            continue;
        }
        nk->delivery_time = db_now;
        nk->delivery_count++;
        xc_prop_xclaim(c, key, g, nk);
    }
    reply_defer_array(c, slot, n);
}

static void xread_generic(client *c, int group_mode)
{
    long long count = 0;
    int64_t deadline = 0;
    int blocking = 0, noack = 0, streams_arg = 0, nstreams = 0, i, served = 0, changed = 0;
    const sarg *gname = NULL, *cname = NULL;
    xs_id idbuf[16], *ids = idbuf;
    xgroup **groups = NULL, *gbuf[16];
    void *slot = NULL;

    for (i = 1; i < c->argc; i++) {
        int more = c->argc - i - 1;
        const sarg *o = &c->argv[i];
        if (xc_arg_is(o, "block") && more) {
            i++;
            if (parse_block_ms(c, i, &deadline) < 0)
                return;
            blocking = 1;
        } else if (xc_arg_is(o, "count") && more) {
            i++;
            if (arg_ll(c, i, &count) < 0)
                return;
            if (count < 0)
                count = 0;
        } else if (xc_arg_is(o, "streams") && more) {
            streams_arg = i + 1;
            nstreams = c->argc - streams_arg;
            if (nstreams % 2 != 0) {
                /* Redis 7.0 names XREAD and '$' for both commands. */
                reply_error(c, "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
                               "specified.");
                return;
            }
            nstreams /= 2;
            break;
        } else if (xc_arg_is(o, "group") && more >= 2) {
            if (!group_mode) {
                reply_error(c, "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            gname = &c->argv[i + 1];
            cname = &c->argv[i + 2];
            i += 2;
        } else if (xc_arg_is(o, "noack")) {
            if (!group_mode) {
                reply_error(c, "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            noack = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (streams_arg == 0) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (group_mode && !gname) {
        reply_error(c, "ERR Missing GROUP option for XREADGROUP");
        return;
    }
    if (nstreams > 16) {
        ids = xmalloc(sizeof(xs_id) * (size_t)nstreams);
        groups = xmalloc(sizeof(xgroup *) * (size_t)nstreams);
    } else {
        groups = gbuf;
    }
    for (i = 0; i < nstreams; i++) {
        const sarg *key = &c->argv[streams_arg + i], *ida = &c->argv[streams_arg + nstreams + i];
        dbent *e = db_lookup(c->db, key->p, key->len);
        xgroup *g = NULL;
        if (not_the_ready_key(c, key)) {
            ids[i] = ID_MAX; /* not served in this re-run */
            continue;
        }
        if (e && e->type != OBJ_STREAM) {
            if (blk_rerunning(c)) {
                if (group_mode)
                    reply_error(c, "UNBLOCKED the stream key no longer exists");
                else
                    blk_block(c, streams_arg, nstreams, deadline);
                goto done;
            }
            reply_error(c, ERR_WRONGTYPE);
            goto done;
        }
        if (gname) {
            if (!e || !(g = stream_group_find(stream_of(e), gname->p, gname->len))) {
                if (blk_rerunning(c) && !e)
                    reply_error(c, "UNBLOCKED the stream key no longer exists");
                else if (blk_rerunning(c))
                    reply_error(c, "NOGROUP the consumer group this client was blocked on no longer exists");
                else
                    reply_errorf(c,
                                 "NOGROUP No such key '%.*s' or consumer group '%.*s' in XREADGROUP with GROUP option",
                                 (int)key->len, key->p, (int)gname->len, gname->p);
                goto done;
            }
            groups[i] = g;
        }
        if (ida->len == 1 && ida->p[0] == '$') {
            if (group_mode) {
                reply_error(c, "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                               "history of this consumer by specifying a proper ID, or use the > ID to get new "
                               "messages. The $ ID would just return an empty result set.");
                goto done;
            }
            ids[i] = e ? stream_of(e)->last_id : ID_MIN;
            continue;
        }
        if (ida->len == 1 && ida->p[0] == '>') {
            if (!group_mode) {
                reply_error(c, "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                               "<group> <consumer> option.");
                goto done;
            }
            ids[i] = ID_MAX;
            continue;
        }
        if (xc_parse_id(c, ida, 0, 1, NULL, &ids[i]) < 0)
            goto done;
    }
    if (count == 0 && blk_rerunning(c))
        count = XREAD_BLOCKED_DEFAULT_COUNT;
    for (i = 0; i < nstreams; i++) {
        const sarg *key = &c->argv[streams_arg + i];
        dbent *e = db_lookup(c->db, key->p, key->len);
        stream *s;
        xs_id gt = ids[i], top;
        int now_serve = 0, history = 0;
        if (!e || not_the_ready_key(c, key))
            continue;
        s = stream_of(e);
        if (gname) {
            if (xs_id_cmp(&gt, &ID_MAX) != 0) {
                now_serve = history = 1;
            } else if (xs_len(s->x) && xs_last(s->x, &top) == 0 && xs_id_cmp(&top, &groups[i]->last_id) > 0) {
                now_serve = 1;
            }
        } else if (xs_len(s->x) && xs_last(s->x, &top) == 0 && xs_id_cmp(&top, &gt) > 0) {
            now_serve = 1;
        }
        if (!now_serve)
            continue;
        if (++served == 1)
            slot = reply_defer(c);
        if (c->resp == 2)
            reply_array(c, 2);
        reply_bulk(c, key->p, key->len);
        if (gname) {
            int created;
            xconsumer *cons = stream_consumer_get(groups[i], cname->p, cname->len, db_now, &created);
            cons->seen_time = db_now;
            if (created) {
                xc_prop_createconsumer(c, key, groups[i], cons);
                signal_event(c->db, NOTIFY_STREAM, "xgroup-createconsumer", key->p, key->len);
            }
            if (history) {
                xs_id start = gt;
                stream_id_incr(&start);
                deliver_history(c, key, s, groups[i], cons, &start, (size_t)count);
            } else {
                deliver_new(c, key, s, groups[i], cons, (size_t)count, noack);
            }
            changed = 1;
            signal_key_written(c->db, key->p, key->len);
        } else {
            xs_id start = gt;
            stream_id_incr(&start);
            xc_reply_range(c, s, &start, &ID_MAX, (size_t)count, 0);
        }
    }
    if (served) {
        if (c->resp == 2)
            reply_defer_array(c, slot, served);
        else
            reply_defer_map(c, slot, served);
        goto done;
    }
    (void)changed;
    if (blocking) {
        /* "$" becomes the id it stands for now: the wait reads what comes after. */
        sarg *saved = c->argv, *copy = xmalloc(sizeof(sarg) * (size_t)c->argc);
        char(*idtext)[48] = xmalloc(48 * (size_t)nstreams);
        memcpy(copy, c->argv, sizeof(sarg) * (size_t)c->argc);
        for (i = 0; i < nstreams; i++) {
            sarg *a = &copy[streams_arg + nstreams + i];
            if (!group_mode && a->len == 1 && a->p[0] == '$') {
                a->len = stream_fmt_id(idtext[i], &ids[i]);
                a->p = idtext[i];
            }
        }
        c->argv = copy;
        blk_block(c, streams_arg, nstreams, deadline);
        c->argv = saved;
        xfree(idtext);
        xfree(copy);
        goto done;
    }
    reply_null_array(c);
done:
    if (ids != idbuf)
        xfree(ids);
    if (groups && groups != gbuf)
        xfree(groups);
}

void cmd_xread(client *c)
{
    xread_generic(c, 0);
}

void cmd_xreadgroup(client *c)
{
    xread_generic(c, 1);
}
