/* cmd_list.c -- the list commands, blocking ones included, with Redis 7.0's
 * replies and errors (arguments are checked in Redis's order: some commands
 * parse their numbers before looking the key up, others after).
 *
 * Effects: the pushes, LSET, LINSERT, LREM, LTRIM, LPOP/RPOP, RPOPLPUSH and
 * LMOVE are deterministic and logged as typed. LMPOP and the blocking commands
 * log what they did (CMD_OWN_EFFECT): an LPOP/RPOP (with the count popped for
 * the *MPOP), an LMOVE or RPOPLPUSH, so the log's replay never blocks. A
 * blocking command that finds no data waits through cmd/block.h and runs
 * again when a key it waits on changes. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/list/list.h"

#define LIST_HEAD 0
#define LIST_TAIL 1

/* ---- helpers ---- */

/* Look key up (for writing if write); *out is the list entry or NULL when the
 * key is missing. -1 with WRONGTYPE replied for a key of another type. */
static int lookup_list(client *c, const sarg *key, int write, dbent **out)
{
    dbent *e = write ? db_lookup_write(c->db, key->p, key->len) : db_lookup(c->db, key->p, key->len);

    if (e && e->type != OBJ_LIST) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    *out = e;
    return 0;
}

/* argv[i] as a long (Redis's getLongFromObject): -1 with ERR_NOTINT replied. */
static int arg_long(client *c, int i, long long *out)
{
    return arg_ll(c, i, out);
}

/* argv[i] as an integer in [min, max]; on failure replies msg (or Redis's
 * default messages when msg is NULL) and returns -1. */
static int arg_range(client *c, int i, long long min, long long max, const char *msg, long long *out)
{
    if (str_to_ll(c->argv[i].p, c->argv[i].len, out) < 0) {
        reply_error(c, msg ? msg : ERR_NOTINT);
        return -1;
    }
    if (*out < min || *out > max) {
        if (msg)
            reply_error(c, msg);
        else
            reply_errorf(c, "ERR value is out of range, value must between %lld and %lld", min, max);
        return -1;
    }
    return 0;
}

/* LEFT / RIGHT: 0 with *where, or -1 with a syntax error replied. */
static int arg_where(client *c, int i, int *where)
{
    if (str_eq_ci(c->argv[i].p, c->argv[i].len, "left"))
        *where = LIST_HEAD;
    else if (str_eq_ci(c->argv[i].p, c->argv[i].len, "right"))
        *where = LIST_TAIL;
    else {
        reply_error(c, ERR_SYNTAX);
        return -1;
    }
    return 0;
}

static void reply_pos(client *c, const ql_pos *pos)
{
    const char *p;
    size_t n;

    ql_get(pos, &p, &n);
    reply_bulk(c, p, n);
}

/* Pop up to count elements from the where end of list e (key), replying each
 * as a bulk string; deletes the key when it empties. Returns how many. */
static int popped_last; /* the last pop_reply emptied (and deleted) its list */

static long long pop_reply(client *c, dbent *e, int where, long long count)
{
    quicklist *q = list_ql(e);
    long long done = 0;
    ql_pos pos;

    while (done < count && ql_at(q, where == LIST_HEAD ? 0 : -1, &pos) == 0) {
        reply_pos(c, &pos);
        ql_delete(q, &pos, 1);
        done++;
    }
    popped_last = list_drop_if_empty(c->db, e);
    return done;
}

/* A pop's keyspace events, as Redis: lpop/rpop, then del if it emptied the list. */
static void pop_events(client *c, const sarg *key, int where, int dropped)
{
    signal_event(c->db, NOTIFY_LIST, where == LIST_HEAD ? "lpop" : "rpop", key->p, key->len);
    if (dropped)
        signal_event(c->db, NOTIFY_GENERIC, "del", key->p, key->len);
}

/* The effect "LPOP key [count]" / "RPOP key [count]" (count < 0: none). */
static void prop_pop(client *c, const sarg *key, int where, long long count)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str(where == LIST_HEAD ? "LPOP" : "RPOP");
    prop_arg(key);
    if (count >= 0)
        prop_ll(count);
    prop_end();
}


/* ---- pushes ---- */

static void push_generic(client *c, int where, int only_existing)
{
    dbent *e;
    int i;

    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        if (only_existing) {
            reply_int(c, 0);
            return;
        }
        e = list_create(c->db, c->argv[1].p, c->argv[1].len);
    }
    ql_set_fill(list_ql(e), list_fill);
    ql_set_compress(list_ql(e), list_compress_depth);
    for (i = 2; i < c->argc; i++)
        ql_push(list_ql(e), where, c->argv[i].p, c->argv[i].len);
    reply_int(c, (long long)ql_len(list_ql(e)));
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_LIST, where == LIST_HEAD ? "lpush" : "rpush", c->argv[1].p, c->argv[1].len);
}

static void cmd_lpush(client *c)
{
    push_generic(c, LIST_HEAD, 0);
}

static void cmd_rpush(client *c)
{
    push_generic(c, LIST_TAIL, 0);
}

static void cmd_lpushx(client *c)
{
    push_generic(c, LIST_HEAD, 1);
}

static void cmd_rpushx(client *c)
{
    push_generic(c, LIST_TAIL, 1);
}

/* ---- pops ---- */

static void pop_generic(client *c, int where)
{
    long long count = -1;
    dbent *e;

    if (c->argc > 3) {
        reply_arity_error(c);
        return;
    }
    if (c->argc == 3 && arg_range(c, 2, 0, LLONG_MAX, "ERR value is out of range, must be positive", &count) < 0)
        return;
    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        if (count >= 0)
            reply_null_array(c);
        else
            reply_null(c);
        return;
    }
    if (count == 0) {
        reply_array(c, 0);
        return;
    }
    if (count < 0) {
        pop_reply(c, e, where, 1);
    } else {
        long long n = (long long)ql_len(list_ql(e));
        reply_array(c, count < n ? count : n);
        pop_reply(c, e, where, count);
    }
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    pop_events(c, &c->argv[1], where, popped_last);
}

static void cmd_lpop(client *c)
{
    pop_generic(c, LIST_HEAD);
}

static void cmd_rpop(client *c)
{
    pop_generic(c, LIST_TAIL);
}

/* ---- reads ---- */

static void cmd_llen(client *c)
{
    dbent *e;

    if (lookup_list(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e ? (long long)ql_len(list_ql(e)) : 0);
}

static void cmd_lindex(client *c)
{
    long long idx;
    dbent *e;
    ql_pos pos;

    if (lookup_list(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_null(c);
        return;
    }
    if (arg_long(c, 2, &idx) < 0)
        return;
    if (ql_at(list_ql(e), idx, &pos) < 0)
        reply_null(c);
    else
        reply_pos(c, &pos);
}

static void cmd_lrange(client *c)
{
    long long start, end, s, t, i;
    dbent *e;
    ql_pos pos;

    if (arg_long(c, 2, &start) < 0 || arg_long(c, 3, &end) < 0)
        return;
    if (lookup_list(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || index_range((long long)ql_len(list_ql(e)), start, end, &s, &t) < 0) {
        reply_array(c, 0);
        return;
    }
    reply_array(c, t - s + 1);
    ql_at(list_ql(e), s, &pos);
    for (i = s; i <= t; i++) {
        reply_pos(c, &pos);
        ql_next_settle(list_ql(e), &pos); /* the reply holds a copy of every element */
    }
}

/* LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] */
static void cmd_lpos(client *c)
{
    long long rank = 1, count = -1, maxlen = 0, matches = 0, idx, scanned = 0, len;
    const sarg *el = &c->argv[2];
    void *slot = NULL;
    dbent *e;
    ql_pos pos;
    int j, more, rank_min = 0;

    for (j = 3; j < c->argc; j++) {
        const sarg *o = &c->argv[j];
        int moreargs = c->argc - 1 - j;
        if (str_eq_ci(o->p, o->len, "rank") && moreargs) {
            j++;
            if (arg_long(c, j, &rank) < 0)
                return;
            rank_min = rank == LLONG_MIN;
            if (rank_min)
                rank = -1; /* Redis 7.0 negates it into itself: every match from the tail counts */
            if (rank == 0) {
                reply_error(c, "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                               "or use negative to start from the end of the list");
                return;
            }
        } else if (str_eq_ci(o->p, o->len, "count") && moreargs) {
            j++;
            if (arg_range(c, j, 0, LLONG_MAX, "ERR COUNT can't be negative", &count) < 0)
                return;
        } else if (str_eq_ci(o->p, o->len, "maxlen") && moreargs) {
            j++;
            if (arg_range(c, j, 0, LLONG_MAX, "ERR MAXLEN can't be negative", &maxlen) < 0)
                return;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (rank_min && count > 0)
        count = 0; /* ... and its count test overflows: COUNT never stops it */
    if (lookup_list(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        if (count >= 0)
            reply_array(c, 0);
        else
            reply_null(c);
        return;
    }
    len = (long long)ql_len(list_ql(e));
    if (count >= 0)
        slot = reply_defer(c);
    more = ql_at(list_ql(e), rank > 0 ? 0 : -1, &pos) == 0;
    idx = rank > 0 ? 0 : len - 1;
    while (more && (maxlen == 0 || scanned < maxlen)) {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        if (n == el->len && memcmp(p, el->p, n) == 0) {
            if (rank == 1 || rank == -1) {
                if (count < 0) {
                    reply_int(c, idx);
                    return;
                }
                reply_int(c, idx);
                matches++;
                if (count > 0 && matches == count)
                    break;
            } else {
                rank += rank > 0 ? -1 : 1;
            }
        }
        scanned++;
        more = (rank > 0 ? ql_next(&pos) : ql_prev(&pos)) == 0;
        idx += rank > 0 ? 1 : -1;
    }
    if (count >= 0)
        reply_defer_array(c, slot, matches);
    else
        reply_null(c);
}

/* ---- in-place changes ---- */

static void cmd_lset(client *c)
{
    long long idx;
    dbent *e;
    ql_pos pos;

    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_error(c, ERR_NOKEY);
        return;
    }
    if (arg_long(c, 2, &idx) < 0)
        return;
    if (ql_at(list_ql(e), idx, &pos) < 0) {
        reply_error(c, "ERR index out of range");
        return;
    }
    ql_set_fill(list_ql(e), list_fill);
    ql_set_compress(list_ql(e), list_compress_depth);
    ql_replace(list_ql(e), &pos, c->argv[3].p, c->argv[3].len);
    reply_ok(c);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_LIST, "lset", c->argv[1].p, c->argv[1].len);
}

static void cmd_linsert(client *c)
{
    int after;
    dbent *e;
    ql_pos pos;
    int more;

    if (str_eq_ci(c->argv[2].p, c->argv[2].len, "after"))
        after = 1;
    else if (str_eq_ci(c->argv[2].p, c->argv[2].len, "before"))
        after = 0;
    else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    more = ql_at(list_ql(e), 0, &pos) == 0;
    while (more) {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        if (n == c->argv[3].len && memcmp(p, c->argv[3].p, n) == 0) {
            ql_set_fill(list_ql(e), list_fill);
            ql_set_compress(list_ql(e), list_compress_depth);
            ql_insert(list_ql(e), &pos, after, c->argv[4].p, c->argv[4].len);
            reply_int(c, (long long)ql_len(list_ql(e)));
            signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
            signal_event(c->db, NOTIFY_LIST, "linsert", c->argv[1].p, c->argv[1].len);
            return;
        }
        more = ql_next(&pos) == 0;
    }
    reply_int(c, -1);
}

static void cmd_lrem(client *c)
{
    long long toremove, removed = 0;
    const sarg *el = &c->argv[3];
    int fwd, more;
    dbent *e;
    ql_pos pos;

    if (arg_long(c, 2, &toremove) < 0)
        return;
    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    fwd = toremove >= 0;
    if (toremove < 0)
        toremove = toremove == LLONG_MIN ? LLONG_MAX : -toremove;
    more = ql_at(list_ql(e), fwd ? 0 : -1, &pos) == 0;
    while (more) {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        if (n == el->len && memcmp(p, el->p, n) == 0) {
            more = ql_delete(list_ql(e), &pos, fwd) == 0;
            removed++;
            if (toremove && removed == toremove)
                break;
            continue;
        }
        more = (fwd ? ql_next(&pos) : ql_prev(&pos)) == 0;
    }
    reply_int(c, removed);
    if (removed) {
        int dropped = list_drop_if_empty(c->db, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_LIST, "lrem", c->argv[1].p, c->argv[1].len);
        if (dropped)
            signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
    }
}

static void cmd_ltrim(client *c)
{
    long long start, end, s, t, len;
    dbent *e;

    if (arg_long(c, 2, &start) < 0 || arg_long(c, 3, &end) < 0)
        return;
    if (lookup_list(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_ok(c);
        return;
    }
    len = (long long)ql_len(list_ql(e));
    if (index_range(len, start, end, &s, &t) < 0) {
        s = len; /* everything goes */
        t = len - 1;
        ql_del_range(list_ql(e), 0, (size_t)len);
    } else {
        ql_del_range(list_ql(e), (size_t)t + 1, (size_t)(len - t - 1));
        ql_del_range(list_ql(e), 0, (size_t)s);
    }
    reply_ok(c);
    if ((long long)ql_len(list_ql(e)) != len) {
        int dropped = list_drop_if_empty(c->db, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_LIST, "ltrim", c->argv[1].p, c->argv[1].len);
        if (dropped)
            signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
    } else {
        /* Redis fires ltrim on an existing list even when nothing went. */
        signal_event(c->db, NOTIFY_LIST, "ltrim", c->argv[1].p, c->argv[1].len);
    }
}

/* ---- moves ---- */

/* Move one element from the wherefrom end of src (a non-empty list, key skey)
 * to the whereto end of dkey (checked to be a list or missing); replies it. */
static void move_one(client *c, dbent *src, const sarg *skey, const sarg *dkey, int wherefrom, int whereto)
{
    quicklist *q = list_ql(src);
    dbent *dst;
    ql_pos pos;
    const char *p;
    size_t n;
    char *copy;
    int dropped;

    ql_at(q, wherefrom == LIST_HEAD ? 0 : -1, &pos);
    ql_get(&pos, &p, &n);
    copy = xmalloc(n ? n : 1);
    memcpy(copy, p, n);
    ql_delete(q, &pos, 1);
    dst = db_lookup_write(c->db, dkey->p, dkey->len);
    if (!dst)
        dst = list_create(c->db, dkey->p, dkey->len);
    ql_set_fill(list_ql(dst), list_fill);
    ql_set_compress(list_ql(dst), list_compress_depth);
    ql_push(list_ql(dst), whereto, copy, n);
    signal_event(c->db, NOTIFY_LIST, whereto == LIST_HEAD ? "lpush" : "rpush", dkey->p, dkey->len);
    dropped = dst != src && list_drop_if_empty(c->db, src);
    reply_bulk(c, copy, n);
    xfree(copy);
    signal_key_changed(c->db, skey->p, skey->len);
    signal_key_changed(c->db, dkey->p, dkey->len);
    pop_events(c, skey, wherefrom, dropped);
}

/* The common part of RPOPLPUSH, LMOVE, BRPOPLPUSH and BLMOVE once the
 * arguments are parsed: 1 if an element moved (or an error was replied), 0
 * if src is missing (nothing replied). own: log the effect as LMOVE (the
 * blocking forms; rpoplpush: as RPOPLPUSH). */
static int move_generic(client *c, int wherefrom, int whereto, int own, int rpoplpush)
{
    const sarg *skey = &c->argv[1], *dkey = &c->argv[2];
    dbent *src, *dst;

    if (lookup_list(c, skey, 1, &src) < 0)
        return 1;
    if (!src)
        return 0;
    dst = db_lookup_write(c->db, dkey->p, dkey->len);
    if (dst && dst->type != OBJ_LIST) {
        reply_error(c, ERR_WRONGTYPE);
        return 1;
    }
    move_one(c, src, skey, dkey, wherefrom, whereto);
    if (own && prop_on) {
        prop_begin(c->dbid);
        if (rpoplpush) {
            prop_str("RPOPLPUSH");
            prop_arg(skey);
            prop_arg(dkey);
        } else {
            prop_str("LMOVE");
            prop_arg(skey);
            prop_arg(dkey);
            prop_str(wherefrom == LIST_HEAD ? "LEFT" : "RIGHT");
            prop_str(whereto == LIST_HEAD ? "LEFT" : "RIGHT");
        }
        prop_end();
    }
    return 1;
}

static void cmd_rpoplpush(client *c)
{
    if (!move_generic(c, LIST_TAIL, LIST_HEAD, 0, 1))
        reply_null(c);
}

static void cmd_lmove(client *c)
{
    int from, to;

    if (arg_where(c, 3, &from) < 0 || arg_where(c, 4, &to) < 0)
        return;
    if (!move_generic(c, from, to, 0, 0))
        reply_null(c);
}

static void blmove_generic(client *c, int from, int to, int timeout_idx, int rpoplpush)
{
    int64_t deadline;
    dbent *src;

    if (blk_parse_timeout(c, timeout_idx, &deadline) < 0)
        return;
    src = db_lookup_write(c->db, c->argv[1].p, c->argv[1].len);
    if (src && src->type != OBJ_LIST && blk_rerunning(c)) {
        blk_block(c, 1, 1, deadline); /* Redis 7.0 serves only a list: keep waiting */
        return;
    }
    if (move_generic(c, from, to, 1, rpoplpush))
        return;
    if (!blk_can_block(c)) {
        reply_null(c);
        return;
    }
    blk_block(c, 1, 1, deadline);
}

static void cmd_brpoplpush(client *c)
{
    blmove_generic(c, LIST_TAIL, LIST_HEAD, 3, 1);
}

static void cmd_blmove(client *c)
{
    int from, to;

    if (arg_where(c, 3, &from) < 0 || arg_where(c, 4, &to) < 0)
        return;
    blmove_generic(c, from, to, 5, 0);
}

/* ---- multi-key pops ---- */

/* Pop from the first non-empty list of keys argv[first .. first+nkeys):
 * count < 0 (BLPOP, BRPOP) replies [key, element] and logs [LR]POP key;
 * count > 0 (LMPOP, BLMPOP) replies [key, [elements]] and logs [LR]POP key n.
 * 1 if it popped or replied an error, 0 if every list was missing. */
static int pop_first(client *c, int first, int nkeys, int where, long long count)
{
    int j;

    for (j = first; j < first + nkeys; j++) {
        const sarg *key = &c->argv[j];
        dbent *e;
        long long n;
        if (blk_not_serving(c, key->p, key->len))
            continue; /* woken: served from the key that became ready */
        e = db_lookup_write(c->db, key->p, key->len);
        if (!e)
            continue;
        if (e->type != OBJ_LIST) {
            if (blk_rerunning(c))
                continue; /* Redis 7.0 serves only a list: keep waiting */
            reply_error(c, ERR_WRONGTYPE);
            return 1;
        }
        reply_array(c, 2);
        reply_bulk(c, key->p, key->len);
        if (count < 0) {
            pop_reply(c, e, where, 1);
        } else {
            n = (long long)ql_len(list_ql(e));
            if (n > count)
                n = count;
            reply_array(c, n);
            pop_reply(c, e, where, n);
            count = n;
        }
        signal_key_changed(c->db, key->p, key->len);
        pop_events(c, key, where, popped_last);
        prop_pop(c, key, where, count);
        return 1;
    }
    return 0;
}

static void bpop_generic(client *c, int where)
{
    int64_t deadline;

    if (blk_parse_timeout(c, c->argc - 1, &deadline) < 0)
        return;
    if (pop_first(c, 1, c->argc - 2, where, -1))
        return;
    blk_block(c, 1, c->argc - 2, deadline);
}

static void cmd_blpop(client *c)
{
    bpop_generic(c, LIST_HEAD);
}

static void cmd_brpop(client *c)
{
    bpop_generic(c, LIST_TAIL);
}

/* LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count], and BLMPOP timeout
 * numkeys ... (numkeys_idx 2): Redis's order of checks. */
static void mpop_generic(client *c, int numkeys_idx, int blocking)
{
    long long numkeys, count = -1;
    int where, where_idx, j;
    int64_t deadline = 0;

    if (arg_range(c, numkeys_idx, 1, LLONG_MAX, "ERR numkeys should be greater than 0", &numkeys) < 0)
        return;
    if (numkeys >= c->argc) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    where_idx = numkeys_idx + (int)numkeys + 1;
    if (where_idx >= c->argc) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (arg_where(c, where_idx, &where) < 0)
        return;
    for (j = where_idx + 1; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (count == -1 && str_eq_ci(c->argv[j].p, c->argv[j].len, "count") && moreargs) {
            j++;
            if (arg_range(c, j, 1, LLONG_MAX, "ERR count should be greater than 0", &count) < 0)
                return;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (count == -1)
        count = 1;
    if (blocking && blk_parse_timeout(c, 1, &deadline) < 0)
        return;
    if (pop_first(c, numkeys_idx + 1, (int)numkeys, where, count))
        return;
    if (!blocking) {
        reply_null_array(c);
        return;
    }
    blk_block(c, numkeys_idx + 1, (int)numkeys, deadline);
}

static void cmd_lmpop(client *c)
{
    mpop_generic(c, 1, 0);
}

static void cmd_blmpop(client *c)
{
    mpop_generic(c, 2, 1);
}

#define W (CMD_WRITE | CMD_DENYOOM)
#define R (CMD_READONLY)
/* clang-format off */
const cmd_def cmd_table_list[] = {
    {.name = "lpush", .proc = cmd_lpush, .arity = -3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Prepends one or more elements to a list. Creates the key if it doesn't exist.", .since = "1.0.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .acl = "write list fast", .key_specs = "RW insert"},
    {.name = "rpush", .proc = cmd_rpush, .arity = -3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Appends one or more elements to a list. Creates the key if it doesn't exist.", .since = "1.0.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .acl = "write list fast", .key_specs = "RW insert"},
    {.name = "lpushx", .proc = cmd_lpushx, .arity = -3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Prepends one or more elements to a list only when the list exists.", .since = "2.2.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .acl = "write list fast", .key_specs = "RW insert"},
    {.name = "rpushx", .proc = cmd_rpushx, .arity = -3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Appends an element to a list only when the list exists.", .since = "2.2.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .acl = "write list fast", .key_specs = "RW insert"},
    {.name = "lpop", .proc = cmd_lpop, .arity = -2, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.",
     .since = "1.0.0", .complexity = "O(N) where N is the number of elements returned", .acl = "write list fast",
     .key_specs = "RW access delete"},
    {.name = "rpop", .proc = cmd_rpop, .arity = -2, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns and removes the last elements of a list. Deletes the list if the last element was popped.",
     .since = "1.0.0", .complexity = "O(N) where N is the number of elements returned", .acl = "write list fast",
     .key_specs = "RW access delete"},
    {.name = "llen", .proc = cmd_llen, .arity = 2, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns the length of a list.", .since = "1.0.0", .complexity = "O(1)", .acl = "read list fast",
     .key_specs = "RO"},
    {.name = "lrange", .proc = cmd_lrange, .arity = 4, .flags = R, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns a range of elements from a list.", .since = "1.0.0",
     .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
     .acl = "read list slow", .key_specs = "RO access"},
    {.name = "lindex", .proc = cmd_lindex, .arity = 3, .flags = R, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns an element from a list by its index.", .since = "1.0.0",
     .complexity = "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
     .acl = "read list slow", .key_specs = "RO access"},
    {.name = "lset", .proc = cmd_lset, .arity = 4, .flags = W, KEYS(1, 1, 1), .group = "list",
     .summary = "Sets the value of an element in a list by its index.", .since = "1.0.0",
     .complexity = "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
     .acl = "write list slow", .key_specs = "RW update"},
    {.name = "linsert", .proc = cmd_linsert, .arity = 5, .flags = W, KEYS(1, 1, 1), .group = "list",
     .summary = "Inserts an element before or after another element in a list.", .since = "2.2.0",
     .complexity = "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
     .acl = "write list slow", .key_specs = "RW insert"},
    {.name = "lrem", .proc = cmd_lrem, .arity = 4, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "list",
     .summary = "Removes elements from a list. Deletes the list if the last element was removed.", .since = "1.0.0",
     .complexity = "O(N+M) where N is the length of the list and M is the number of elements removed.",
     .acl = "write list slow", .key_specs = "RW delete"},
    {.name = "ltrim", .proc = cmd_ltrim, .arity = 4, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "list",
     .summary = "Removes elements from both ends a list. Deletes the list if all elements were trimmed.",
     .since = "1.0.0", .complexity = "O(N) where N is the number of elements to be removed by the operation.",
     .acl = "write list slow", .key_specs = "RW delete"},
    {.name = "lpos", .proc = cmd_lpos, .arity = -3, .flags = R, KEYS(1, 1, 1), .group = "list",
     .summary = "Returns the index of matching elements in a list.", .since = "6.0.6",
     .complexity = "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
     .acl = "read list slow", .key_specs = "RO access"},
    {.name = "rpoplpush", .proc = cmd_rpoplpush, .arity = 3, .flags = W, KEYS(1, 2, 1), .group = "list",
     .summary = "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.",
     .since = "1.2.0", .complexity = "O(1)", .acl = "write list slow",
     .key_specs = "RW access delete;RW insert"},
    {.name = "lmove", .proc = cmd_lmove, .arity = 5, .flags = W, KEYS(1, 2, 1), .group = "list",
     .summary = "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.",
     .since = "6.2.0", .complexity = "O(1)", .acl = "write list slow", .key_specs = "RW access delete;RW insert"},
    {.name = "lmpop", .proc = cmd_lmpop, .arity = -4, .flags = CMD_WRITE | CMD_OWN_EFFECT,
     .group = "list",
     .summary = "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.",
     .since = "7.0.0", .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .acl = "write list slow", .key_specs = "RW access delete@k:1,0,1,1"},
    {.name = "blpop", .proc = cmd_blpop, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_OWN_EFFECT,
     KEYS(1, -2, 1), .group = "list",
     .summary = "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
     .since = "2.0.0", .complexity = "O(N) where N is the number of provided keys.", .acl = "write list slow blocking",
     .key_specs = "RW access delete"},
    {.name = "brpop", .proc = cmd_brpop, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_OWN_EFFECT,
     KEYS(1, -2, 1), .group = "list",
     .summary = "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
     .since = "2.0.0", .complexity = "O(N) where N is the number of provided keys.", .acl = "write list slow blocking",
     .key_specs = "RW access delete"},
    {.name = "brpoplpush", .proc = cmd_brpoplpush, .arity = 4,
     .flags = W | CMD_NOSCRIPT | CMD_BLOCKING | CMD_OWN_EFFECT, KEYS(1, 2, 1), .group = "list",
     .summary = "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.",
     .since = "2.2.0", .complexity = "O(1)", .acl = "write list slow blocking",
     .key_specs = "RW access delete;RW insert"},
    {.name = "blmove", .proc = cmd_blmove, .arity = 6, .flags = W | CMD_NOSCRIPT | CMD_BLOCKING | CMD_OWN_EFFECT,
     KEYS(1, 2, 1), .group = "list",
     .summary = "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.",
     .since = "6.2.0", .complexity = "O(1)", .acl = "write list slow blocking",
     .key_specs = "RW access delete;RW insert"},
    {.name = "blmpop", .proc = cmd_blmpop, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING | CMD_OWN_EFFECT,
     .group = "list",
     .summary = "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.",
     .since = "7.0.0", .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .acl = "write list slow blocking", .key_specs = "RW access delete@k:2,0,1,1"},
    {0},
};
/* clang-format on */
