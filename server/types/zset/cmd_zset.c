/* cmd_zset.c -- the sorted set commands (all of Redis 7.0's), with Redis
 * 7.0's replies and errors: they parse, call the type's API (zset.h), reply,
 * then signal the change. Every write here is deterministic given the
 * dataset, so its effect is the command as typed (cmd_call propagates it);
 * ZRANDMEMBER only reads. The blocking BZPOPMIN, BZPOPMAX and BZMPOP wait
 * through cmd/block.h as the list's blocking pops do, and log the pop they
 * made as a ZPOPMIN or ZPOPMAX key [count], so the log's replay never blocks.
 *
 * Ranges: every range command turns its range (ranks, scores or members) into
 * ranks [start, end) with two lower-bound searches, then walks an iterator
 * from one end; LIMIT skips along the walk. Scores are replied as Redis 7.0
 * does (reply_double: "%.17g", inf, -inf; RESP3 doubles).
 *
 * The set algebra (ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms),
 * ZRANDMEMBER and ZSCAN are in cmd_zset_ops.c; this file holds the family's
 * command table and the helpers both share (cmd_zset_int.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "server.h"
#include "types/zset/cmd_zset_int.h"
#include "types/zset/zset.h"

#define ERR_MINMAX_FLOAT "ERR min or max is not a float"
#define ERR_MINMAX_LEX "ERR min or max not valid string range item"

/* ---- lookups and small helpers ---- */

/* The sorted set at key for reading or writing: 0 with *out (NULL if absent),
 * or -1 after replying WRONGTYPE. */
int zc_lookup(client *c, const sarg *key, int write, dbent **out)
{
    dbent *e = write ? db_lookup_write(c->db, key->p, key->len) : db_lookup(c->db, key->p, key->len);

    if (e && e->type != OBJ_ZSET) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    *out = e;
    return 0;
}

/* Delete the key of e if its set became empty: 1 if it did. */
static int drop_if_empty(client *c, dbent *e)
{
    if (zs_len(e) != 0)
        return 0;
    db_delete_entry(c->db, e);
    return 1;
}

/* A removal's keyspace events, as Redis: the command's, then del if the set
 * went with it. */
static void removal_events(client *c, const sarg *key, const char *event, int dropped)
{
    signal_event(c->db, NOTIFY_ZSET, event, key->p, key->len);
    if (dropped)
        signal_event(c->db, NOTIFY_GENERIC, "del", key->p, key->len);
}

/* argv[i] as a long (Redis's getLongFromObjectOrReply): msg or ERR_NOTINT. */
int zc_arg_long(client *c, int i, long long *out, const char *msg)
{
    if (str_to_ll(c->argv[i].p, c->argv[i].len, out) < 0) {
        reply_error(c, msg ? msg : ERR_NOTINT);
        return -1;
    }
    return 0;
}

void zc_reply_member(client *c, const char *m, size_t len, double score, int withscores)
{
    if (withscores && c->resp > 2)
        reply_array(c, 2);
    reply_bulk(c, m, len);
    if (withscores)
        reply_double(c, score);
}

void zc_reply_members_len(client *c, long n, int withscores)
{
    reply_array(c, withscores && c->resp == 2 ? n * 2 : n);
}

/* ---- ranges ---- */

typedef struct score_range {
    double min, max;
    int minex, maxex;
} score_range;

typedef struct lex_item {
    const char *p;
    size_t len;
    int inf; /* -1: "-", 1: "+", 0: a member */
    int ex;
} lex_item;

typedef struct lex_range {
    lex_item min, max;
} lex_range;

static int parse_score_item(const sarg *a, double *v, int *ex)
{
    const char *p = a->p;
    char *end;

    *ex = 0;
    if (p[0] == '(') {
        *ex = 1;
        p++;
    }
    *v = strtod(p, &end);
    if (*end != '\0' || isnan(*v))
        return -1;
    return 0;
}

static int parse_score_range(const sarg *min, const sarg *max, score_range *r)
{
    if (parse_score_item(min, &r->min, &r->minex) < 0 || parse_score_item(max, &r->max, &r->maxex) < 0)
        return -1;
    return 0;
}

static int parse_lex_item(const sarg *a, lex_item *it)
{
    it->inf = 0;
    it->ex = 0;
    switch (a->p[0]) {
    case '+':
    case '-':
        if (a->len != 1)
            return -1;
        it->inf = a->p[0] == '+' ? 1 : -1;
        it->ex = 1;
        return 0;
    case '(':
    case '[':
        it->ex = a->p[0] == '(';
        it->p = a->p + 1;
        it->len = a->len - 1;
        return 0;
    default:
        return -1;
    }
}

static int parse_lex_range(const sarg *min, const sarg *max, lex_range *r)
{
    if (parse_lex_item(min, &r->min) < 0 || parse_lex_item(max, &r->max) < 0)
        return -1;
    return 0;
}

static int memcmp_len(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static int below_min_score(const char *m, size_t len, double s, void *ctx)
{
    const score_range *r = ctx;
    (void)m;
    (void)len;
    return r->minex ? s <= r->min : s < r->min;
}

static int within_max_score(const char *m, size_t len, double s, void *ctx)
{
    const score_range *r = ctx;
    (void)m;
    (void)len;
    return r->maxex ? s < r->max : s <= r->max;
}

static int below_min_lex(const char *m, size_t len, double s, void *ctx)
{
    const lex_item *it = &((const lex_range *)ctx)->min;
    int c;
    (void)s;
    if (it->inf)
        return it->inf > 0;
    c = memcmp_len(m, len, it->p, it->len);
    return it->ex ? c <= 0 : c < 0;
}

static int within_max_lex(const char *m, size_t len, double s, void *ctx)
{
    const lex_item *it = &((const lex_range *)ctx)->max;
    int c;
    (void)s;
    if (it->inf)
        return it->inf > 0;
    c = memcmp_len(m, len, it->p, it->len);
    return it->ex ? c < 0 : c <= 0;
}

enum { RANGE_RANK, RANGE_SCORE, RANGE_LEX };

/* The ranks [*start, *end) of a score or lex range in e (empty: start >= end). */
static void range_ranks(dbent *e, int type, void *spec, size_t *start, size_t *end)
{
    if (type == RANGE_SCORE) {
        *start = zs_lower_bound(e, below_min_score, spec);
        *end = zs_lower_bound(e, within_max_score, spec);
    } else {
        *start = zs_lower_bound(e, below_min_lex, spec);
        *end = zs_lower_bound(e, within_max_lex, spec);
    }
    if (*end < *start)
        *end = *start;
}

/* Sanitize rank arguments as Redis does (index_range): 0 with [*from, *to]
 * inclusive, or -1 if the range is empty. */
static int rank_range(long long start, long long end, size_t len, size_t *from, size_t *to)
{
    long long s, e;

    if (index_range((long long)len, start, end, &s, &e) < 0)
        return -1;
    *from = (size_t)s;
    *to = (size_t)e;
    return 0;
}

/* ---- ZADD, ZINCRBY ---- */

static void zadd_generic(client *c, int flags)
{
    int idx = 2, ch = 0, i, elements, added = 0, updated = 0, processed = 0, created = 0;
    double *scores = NULL, score = 0;
    dbent *e;

    for (; idx < c->argc; idx++) {
        const sarg *a = &c->argv[idx];
        if (str_eq_ci(a->p, a->len, "nx"))
            flags |= ZS_NX;
        else if (str_eq_ci(a->p, a->len, "xx"))
            flags |= ZS_XX;
        else if (str_eq_ci(a->p, a->len, "ch"))
            ch = 1;
        else if (str_eq_ci(a->p, a->len, "incr"))
            flags |= ZS_INCR;
        else if (str_eq_ci(a->p, a->len, "gt"))
            flags |= ZS_GT;
        else if (str_eq_ci(a->p, a->len, "lt"))
            flags |= ZS_LT;
        else
            break;
    }
    elements = c->argc - idx;
    if (elements % 2 || !elements) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    elements /= 2;
    if ((flags & ZS_NX) && (flags & ZS_XX)) {
        reply_error(c, "ERR XX and NX options at the same time are not compatible");
        return;
    }
    if (((flags & ZS_GT) && (flags & ZS_NX)) || ((flags & ZS_LT) && (flags & ZS_NX)) ||
        ((flags & ZS_GT) && (flags & ZS_LT))) {
        reply_error(c, "ERR GT, LT, and/or NX options at the same time are not compatible");
        return;
    }
    if ((flags & ZS_INCR) && elements > 1) {
        reply_error(c, "ERR INCR option supports a single increment-element pair");
        return;
    }
    scores = xmalloc(sizeof(double) * (size_t)elements);
    for (i = 0; i < elements; i++) {
        const sarg *a = &c->argv[idx + 2 * i];
        if (zs_parse_score(a->p, a->len, &scores[i]) < 0) {
            reply_error(c, ERR_NOTFLOAT);
            goto done;
        }
    }
    if (zc_lookup(c, &c->argv[1], 1, &e) < 0)
        goto done;
    if (!e) {
        if (flags & ZS_XX)
            goto reply;
        e = zs_create(c->db, c->argv[1].p, c->argv[1].len);
        created = 1;
    }
    for (i = 0; i < elements; i++) {
        const sarg *m = &c->argv[idx + 2 * i + 1];
        double ns = 0;
        int r = zs_add(e, m->p, m->len, scores[i], flags, &ns);
        if (r == ZS_NAN) {
            reply_error(c, "ERR resulting score is not a number (NaN)");
            if (created)
                drop_if_empty(c, e);
            goto done;
        }
        added += r == ZS_ADDED;
        updated += r == ZS_UPDATED;
        if (r != ZS_NOP) {
            processed++;
            score = ns;
        }
    }
    if (added || updated) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_ZSET, (flags & ZS_INCR) ? "zincr" : "zadd", c->argv[1].p, c->argv[1].len);
    }
    drop_if_empty(c, e);
reply:
    if (flags & ZS_INCR) {
        if (processed)
            reply_double(c, score);
        else
            reply_null(c);
    } else {
        reply_int(c, ch ? added + updated : added);
    }
done:
    xfree(scores);
}

static void cmd_zadd(client *c)
{
    zadd_generic(c, 0);
}

static void cmd_zincrby(client *c)
{
    zadd_generic(c, ZS_INCR);
}

/* ---- ZREM, ZCARD, ZSCORE, ZMSCORE, ZRANK ---- */

static void cmd_zrem(client *c)
{
    dbent *e;
    long long deleted = 0;
    int i;

    if (zc_lookup(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    for (i = 2; i < c->argc && zs_len(e); i++)
        deleted += zs_del(e, c->argv[i].p, c->argv[i].len);
    if (deleted) {
        int dropped = drop_if_empty(c, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        removal_events(c, &c->argv[1], "zrem", dropped);
    }
    reply_int(c, deleted);
}

static void cmd_zcard(client *c)
{
    dbent *e;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e ? (long long)zs_len(e) : 0);
}

static void cmd_zscore(client *c)
{
    dbent *e;
    double s;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e && zs_score(e, c->argv[2].p, c->argv[2].len, &s))
        reply_double(c, s);
    else
        reply_null(c);
}

static void cmd_zmscore(client *c)
{
    dbent *e;
    int i;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++) {
        double s;
        if (e && zs_score(e, c->argv[i].p, c->argv[i].len, &s))
            reply_double(c, s);
        else
            reply_null(c);
    }
}

static void zrank_generic(client *c, int rev)
{
    dbent *e;
    size_t rank;
    double s;

    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e && zs_rank(e, c->argv[2].p, c->argv[2].len, &rank, &s))
        reply_int(c, rev ? (long long)(zs_len(e) - 1 - rank) : (long long)rank);
    else
        reply_null(c);
}

static void cmd_zrank(client *c)
{
    zrank_generic(c, 0);
}

static void cmd_zrevrank(client *c)
{
    zrank_generic(c, 1);
}

/* ---- ZCOUNT, ZLEXCOUNT ---- */

static void cmd_zcount(client *c)
{
    score_range r;
    dbent *e;
    size_t start, end;

    if (parse_score_range(&c->argv[2], &c->argv[3], &r) < 0) {
        reply_error(c, ERR_MINMAX_FLOAT);
        return;
    }
    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    range_ranks(e, RANGE_SCORE, &r, &start, &end);
    reply_int(c, (long long)(end - start));
}

static void cmd_zlexcount(client *c)
{
    lex_range r;
    dbent *e;
    size_t start, end;

    if (parse_lex_range(&c->argv[2], &c->argv[3], &r) < 0) {
        reply_error(c, ERR_MINMAX_LEX);
        return;
    }
    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    range_ranks(e, RANGE_LEX, &r, &start, &end);
    reply_int(c, (long long)(end - start));
}

/* ---- the ZRANGE family ---- */

/* Where a range goes: the client (with or without scores) or an accumulator. */
typedef struct range_out {
    client *c;
    int withscores;
    zs_acc *acc; /* non-NULL: ZRANGESTORE */
    /* ZRANGESTORE builds its destination as Redis 7.0 does, member by member
     * in the order of the range, compact (a -0 score becomes 0) until a
     * member past the thresholds, a skiplist from the start when the range
     * is known to be longer than zset-max-listpack-entries. */
    int lp;      /* 1: still in the compact phase */
    long long n; /* members added */
} range_out;

/* Emit the members of ranks [from, to] (inclusive) of e, walking down if rev. */
static void emit_ranks(range_out *o, dbent *e, size_t from, size_t to, int rev, long n)
{
    zs_it it;

    if (!o->acc)
        zc_reply_members_len(o->c, n, o->withscores);
    if (n == 0)
        return;
    zs_it_at(&it, e, rev ? to : from);
    while (n-- > 0 && it.valid) {
        size_t len;
        double s;
        const char *m = zs_it_get(&it, &len, &s);
        if (o->acc) {
            if (o->lp && (o->n + 1 > zs_max_entries || (long long)len > zs_max_value))
                o->lp = 0;
            zs_acc_add(o->acc, m, len, o->lp && s == 0 ? 0.0 : s, ZS_AGG_SUM);
            o->n++;
        } else

            zc_reply_member(o->c, m, len, s, o->withscores);
        if (rev)
            zs_it_prev(&it);
        else
            zs_it_next(&it);
    }
}

/* Store acc (taken) under dst, replacing what dst held, and reply its size;
 * an empty result deletes dst and replies 0 (as Redis's STORE commands). */
void zc_store_result(client *c, const sarg *dst, zs_acc *acc, const char *event)
{
    if (zs_acc_len(acc)) {
        size_t n = zs_acc_len(acc);
        zs_store(c->db, dst->p, dst->len, acc);
        signal_key_changed(c->db, dst->p, dst->len);
        reply_int(c, (long long)n);
        signal_event(c->db, NOTIFY_ZSET, event, dst->p, dst->len);
        return;
    }
    zs_acc_free(acc);
    reply_int(c, 0);
    if (db_delete(c->db, dst->p, dst->len)) {
        signal_key_changed(c->db, dst->p, dst->len);
        signal_event(c->db, NOTIFY_GENERIC, "del", dst->p, dst->len);
    }
}

/* Z[REV]RANGE[BYSCORE|BYLEX] and ZRANGESTORE: argv[first] is the source key,
 * then min and max, then options (as Redis 7.0's zrangeGenericCommand). */
static void zrange_generic(client *c, int first, int store, int type, int rev)
{
    int minidx = first + 1, maxidx = first + 2, j, withscores = 0, auto_type = type < 0, auto_dir = rev < 0;
    long long start = 0, end = 0, offset = 0, limit = -1;
    score_range sr;
    lex_range lr;
    range_out o = {c, 0, NULL, 1, 0};
    dbent *e;

    if (auto_dir)
        rev = 0;
    for (j = first + 3; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        int left = c->argc - j - 1;
        if (!store && str_eq_ci(a->p, a->len, "withscores")) {
            withscores = 1;
        } else if (str_eq_ci(a->p, a->len, "limit") && left >= 2) {
            if (zc_arg_long(c, j + 1, &offset, NULL) < 0 || zc_arg_long(c, j + 2, &limit, NULL) < 0)
                return;
            j += 2;
        } else if (auto_dir && str_eq_ci(a->p, a->len, "rev")) {
            rev = 1;
            auto_dir = 0;
        } else if (auto_type && type < 0 && str_eq_ci(a->p, a->len, "bylex")) {
            type = RANGE_LEX;
        } else if (auto_type && type < 0 && str_eq_ci(a->p, a->len, "byscore")) {
            type = RANGE_SCORE;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (type < 0)
        type = RANGE_RANK;
    if (limit != -1 && type == RANGE_RANK) {
        reply_error(c, "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && type == RANGE_LEX) {
        reply_error(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    if (rev && type != RANGE_RANK) {
        int t = minidx;
        minidx = maxidx;
        maxidx = t;
    }
    if (type == RANGE_RANK) {
        if (zc_arg_long(c, minidx, &start, NULL) < 0 || zc_arg_long(c, maxidx, &end, NULL) < 0)
            return;
    } else if (type == RANGE_SCORE) {
        if (parse_score_range(&c->argv[minidx], &c->argv[maxidx], &sr) < 0) {
            reply_error(c, ERR_MINMAX_FLOAT);
            return;
        }
    } else if (parse_lex_range(&c->argv[minidx], &c->argv[maxidx], &lr) < 0) {
        reply_error(c, ERR_MINMAX_LEX);
        return;
    }
    o.withscores = withscores;
    if (zc_lookup(c, &c->argv[first], 0, &e) < 0)
        return;
    if (store)
        o.acc = zs_acc_new();
    if (!e) {
        if (store)
            zc_store_result(c, &c->argv[1], o.acc, "zrangestore");
        else
            reply_array(c, 0);
        return;
    }
    if (type == RANGE_RANK) {
        size_t from, to, len = zs_len(e);
        if (rank_range(start, end, len, &from, &to) < 0) {
            emit_ranks(&o, e, 0, 0, 0, 0);
        } else {
            o.lp = (long long)(to - from + 1) <= zs_max_entries;
            if (rev)
                emit_ranks(&o, e, len - 1 - to, len - 1 - from, 1, (long)(to - from + 1));
            else
                emit_ranks(&o, e, from, to, 0, (long)(to - from + 1));
        }
    } else {
        size_t rs, re, n;
        range_ranks(e, type, type == RANGE_SCORE ? (void *)&sr : (void *)&lr, &rs, &re);
        n = re - rs;
        if (offset < 0 || (unsigned long long)offset >= n) {
            n = 0;
        } else {
            n -= (size_t)offset;
            if (limit >= 0 && (unsigned long long)limit < n)
                n = (size_t)limit;
        }
        if (n == 0)
            emit_ranks(&o, e, 0, 0, 0, 0);
        else if (rev)
            emit_ranks(&o, e, re - (size_t)offset - n, re - 1 - (size_t)offset, 1, (long)n);
        else
            emit_ranks(&o, e, rs + (size_t)offset, rs + (size_t)offset + n - 1, 0, (long)n);
    }
    if (store)
        zc_store_result(c, &c->argv[1], o.acc, "zrangestore");
}

static void cmd_zrange(client *c)
{
    zrange_generic(c, 1, 0, -1, -1);
}

static void cmd_zrangestore(client *c)
{
    zrange_generic(c, 2, 1, -1, -1);
}

static void cmd_zrevrange(client *c)
{
    zrange_generic(c, 1, 0, RANGE_RANK, 1);
}

static void cmd_zrangebyscore(client *c)
{
    zrange_generic(c, 1, 0, RANGE_SCORE, 0);
}

static void cmd_zrevrangebyscore(client *c)
{
    zrange_generic(c, 1, 0, RANGE_SCORE, 1);
}

static void cmd_zrangebylex(client *c)
{
    zrange_generic(c, 1, 0, RANGE_LEX, 0);
}

static void cmd_zrevrangebylex(client *c)
{
    zrange_generic(c, 1, 0, RANGE_LEX, 1);
}

/* ---- ZREMRANGEBY* ---- */

static void zremrange_generic(client *c, int type)
{
    long long start = 0, end = 0;
    score_range sr;
    lex_range lr;
    size_t from, to;
    dbent *e;

    if (type == RANGE_RANK) {
        if (zc_arg_long(c, 2, &start, NULL) < 0 || zc_arg_long(c, 3, &end, NULL) < 0)
            return;
    } else if (type == RANGE_SCORE) {
        if (parse_score_range(&c->argv[2], &c->argv[3], &sr) < 0) {
            reply_error(c, ERR_MINMAX_FLOAT);
            return;
        }
    } else if (parse_lex_range(&c->argv[2], &c->argv[3], &lr) < 0) {
        reply_error(c, ERR_MINMAX_LEX);
        return;
    }
    if (zc_lookup(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (type == RANGE_RANK) {
        if (rank_range(start, end, zs_len(e), &from, &to) < 0) {
            reply_int(c, 0);
            return;
        }
        to++;
    } else {
        range_ranks(e, type, type == RANGE_SCORE ? (void *)&sr : (void *)&lr, &from, &to);
    }
    zs_delete_range(e, from, to);
    if (to > from) {
        int dropped = drop_if_empty(c, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        removal_events(c, &c->argv[1],
                       type == RANGE_RANK    ? "zremrangebyrank"
                       : type == RANGE_SCORE ? "zremrangebyscore"
                                             : "zremrangebylex",
                       dropped);
    }
    reply_int(c, (long long)(to - from));
}

static void cmd_zremrangebyrank(client *c)
{
    zremrange_generic(c, RANGE_RANK);
}

static void cmd_zremrangebyscore(client *c)
{
    zremrange_generic(c, RANGE_SCORE);
}

static void cmd_zremrangebylex(client *c)
{
    zremrange_generic(c, RANGE_LEX);
}

/* ---- ZPOPMIN, ZPOPMAX, ZMPOP and their blocking forms ---- */

/* How a pop replies and logs (Redis 7.0's genericZpopCommand's cases). */
typedef struct {
    int max;            /* pop the highest scores */
    int emitkey;        /* the reply names the key: BZPOPMIN, ZMPOP */
    int nested;         /* [member, score] pairs in their own arrays */
    int nil_when_empty; /* no set: a null array, not an empty one */
    int blocking;       /* B*: wrong types skipped on a re-run; log the pop */
} zpop_how;

/* Pop up to count (-1: one, flat reply) members from the first existing set
 * of keys[0..nkeys). 1 if it replied (members or an error), 0 if no set was
 * found and how->blocking (nothing replied: the caller blocks). A blocking
 * pop logs what it did as ZPOPMIN or ZPOPMAX key [count]. */
static int zpop_generic(client *c, const sarg *keys, int nkeys, const zpop_how *how, long long count)
{
    dbent *e = NULL;
    const sarg *key = NULL;
    long long n;
    int i, dropped;

    for (i = 0; i < nkeys; i++) {
        if (blk_not_serving(c, keys[i].p, keys[i].len))
            continue; /* woken: served from the key that became ready */
        e = db_lookup_write(c->db, keys[i].p, keys[i].len);
        if (e && e->type != OBJ_ZSET) {
            e = NULL;
            if (how->blocking && blk_rerunning(c))
                continue; /* Redis 7.0 serves only a sorted set: keep waiting */
            reply_error(c, ERR_WRONGTYPE);
            return 1;
        }
        if (e) {
            key = &keys[i];
            break;
        }
    }
    if (!e) {
        if (how->blocking)
            return 0;
        if (how->nil_when_empty)
            reply_null_array(c);
        else
            reply_array(c, 0);
        return 1;
    }
    if (count == 0) {
        reply_array(c, 0);
        return 1;
    }
    n = count == -1 ? 1 : count;
    if (n > (long long)zs_len(e))
        n = (long long)zs_len(e);
    if (!how->nested && !how->emitkey) {
        reply_array(c, n * 2);
    } else if (how->nested && !how->emitkey) {
        reply_array(c, n);
    } else if (!how->nested) {
        reply_array(c, 3);
        reply_bulk(c, key->p, key->len);
    } else {
        reply_array(c, 2);
        reply_bulk(c, key->p, key->len);
        reply_array(c, n);
    }
    for (i = 0; i < n; i++) {
        zs_it it;
        size_t len, at = how->max ? zs_len(e) - 1 : 0;
        double s;
        const char *m;
        zs_it_at(&it, e, at);
        m = zs_it_get(&it, &len, &s);
        if (how->nested)
            reply_array(c, 2);
        reply_bulk(c, m, len);
        reply_double(c, s);
        zs_delete_range(e, at, at + 1);
    }
    dropped = drop_if_empty(c, e);
    signal_key_changed(c->db, key->p, key->len);
    removal_events(c, key, how->max ? "zpopmax" : "zpopmin", dropped);
    if (how->blocking && prop_on) {
        prop_begin(c->dbid);
        prop_str(how->max ? "ZPOPMAX" : "ZPOPMIN");
        prop_arg(key);
        if (count != -1)
            prop_ll(n);
        prop_end();
    }
    return 1;
}

static void zpop_minmax(client *c, int max)
{
    zpop_how how = {max, 0, 0, 0, 0};
    long long count = -1;

    if (c->argc > 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc == 3) {
        if (zc_arg_long(c, 2, &count, "ERR value is out of range, must be positive") < 0)
            return;
        if (count < 0) {
            reply_error(c, "ERR value is out of range, must be positive");
            return;
        }
    }
    how.nested = c->resp > 2 && count != -1;
    zpop_generic(c, &c->argv[1], 1, &how, count);
}

static void cmd_zpopmin(client *c)
{
    zpop_minmax(c, 0);
}

static void cmd_zpopmax(client *c)
{
    zpop_minmax(c, 1);
}

/* BZPOPMIN key [key ...] timeout, BZPOPMAX: the timeout parsed first, as
 * Redis's. */
static void bzpop_minmax(client *c, int max)
{
    zpop_how how = {max, 1, 0, 0, 1};
    int64_t deadline;

    if (blk_parse_timeout(c, c->argc - 1, &deadline) < 0)
        return;
    if (zpop_generic(c, &c->argv[1], c->argc - 2, &how, -1))
        return;
    blk_block(c, 1, c->argc - 2, deadline);
}

static void cmd_bzpopmin(client *c)
{
    bzpop_minmax(c, 0);
}

static void cmd_bzpopmax(client *c)
{
    bzpop_minmax(c, 1);
}

/* ZMPOP numkeys key [key ...] MIN|MAX [COUNT count], and BZMPOP timeout
 * numkeys ... (numkeys_idx 2, its timeout parsed after the rest): Redis's
 * order of checks. */
static void zmpop_generic(client *c, int numkeys_idx, int blocking)
{
    zpop_how how = {0, 1, 1, 1, blocking};
    long long numkeys, count = -1, where_idx;
    int64_t deadline = 0;
    int j;

    if (zc_arg_long(c, numkeys_idx, &numkeys, "ERR numkeys should be greater than 0") < 0)
        return;
    if (numkeys < 1) {
        reply_error(c, "ERR numkeys should be greater than 0");
        return;
    }
    if (numkeys >= c->argc) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    where_idx = numkeys_idx + numkeys + 1;
    if (where_idx >= c->argc) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (str_eq_ci(c->argv[where_idx].p, c->argv[where_idx].len, "min")) {
        how.max = 0;
    } else if (str_eq_ci(c->argv[where_idx].p, c->argv[where_idx].len, "max")) {
        how.max = 1;
    } else {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    for (j = (int)where_idx + 1; j < c->argc; j++) {
        const sarg *a = &c->argv[j];
        if (count == -1 && str_eq_ci(a->p, a->len, "count") && j + 1 < c->argc) {
            j++;
            if (zc_arg_long(c, j, &count, "ERR count should be greater than 0") < 0)
                return;
            if (count < 1) {
                reply_error(c, "ERR count should be greater than 0");
                return;
            }
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (count == -1)
        count = 1;
    if (blocking && blk_parse_timeout(c, 1, &deadline) < 0)
        return;
    if (zpop_generic(c, &c->argv[numkeys_idx + 1], (int)numkeys, &how, count))
        return;
    blk_block(c, numkeys_idx + 1, (int)numkeys, deadline);
}

static void cmd_zmpop(client *c)
{
    zmpop_generic(c, 1, 0);
}

static void cmd_bzmpop(client *c)
{
    zmpop_generic(c, 2, 1);
}

/* clang-format off */
const cmd_def cmd_table_zset[] = {
    {.name = "zadd", .proc = cmd_zadd, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Add one or more members to a sorted set, or update its score if it already exists", .since = "1.2.0",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .acl = "write sortedset fast", .key_specs = "RW update"},
    {.name = "zincrby", .proc = cmd_zincrby, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Increment the score of a member in a sorted set", .since = "1.2.0",
     .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
     .acl = "write sortedset fast", .key_specs = "RW access update"},
    {.name = "zrem", .proc = cmd_zrem, .arity = -3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove one or more members from a sorted set", .since = "1.2.0",
     .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
     .acl = "write sortedset fast", .key_specs = "RW delete"},
    {.name = "zcard", .proc = cmd_zcard, .arity = 2, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Get the number of members in a sorted set", .since = "1.2.0",
     .complexity = "O(1)",
     .acl = "read sortedset fast", .key_specs = "RO"},
    {.name = "zcount", .proc = cmd_zcount, .arity = 4, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Count the members in a sorted set with scores within the given values", .since = "2.0.0",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zlexcount", .proc = cmd_zlexcount, .arity = 4, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Count the number of members in a sorted set between a given lexicographical range", .since = "2.8.9",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zscore", .proc = cmd_zscore, .arity = 3, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Get the score associated with the given member in a sorted set", .since = "1.2.0",
     .complexity = "O(1)",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zmscore", .proc = cmd_zmscore, .arity = -3, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Get the score associated with the given members in a sorted set", .since = "6.2.0",
     .complexity = "O(N) where N is the number of members being requested.",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zrank", .proc = cmd_zrank, .arity = 3, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Determine the index of a member in a sorted set", .since = "2.0.0",
     .complexity = "O(log(N))",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zrevrank", .proc = cmd_zrevrank, .arity = 3, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Determine the index of a member in a sorted set, with scores ordered from high to low", .since = "2.0.0",
     .complexity = "O(log(N))",
     .acl = "read sortedset fast", .key_specs = "RO access"},
    {.name = "zrange", .proc = cmd_zrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zrangestore", .proc = cmd_zrangestore, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 2, 1), .group = "sorted-set",
     .summary = "Store a range of members from sorted set into another key", .since = "6.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
     .acl = "write sortedset slow", .key_specs = "OW update;RO access"},
    {.name = "zrangebyscore", .proc = cmd_zrangebyscore, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set, by score", .since = "1.0.5",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zrevrangebyscore", .proc = cmd_zrevrangebyscore, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set, by score, with scores ordered from high to low", .since = "2.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zrangebylex", .proc = cmd_zrangebylex, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set, by lexicographical range", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zrevrangebylex", .proc = cmd_zrevrangebylex, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zrevrange", .proc = cmd_zrevrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Return a range of members in a sorted set, by index, with scores ordered from high to low", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
     .acl = "read sortedset slow", .key_specs = "RO access"},
    {.name = "zremrangebyrank", .proc = cmd_zremrangebyrank, .arity = 4, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove all members in a sorted set within the given indexes", .since = "2.0.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .acl = "write sortedset slow", .key_specs = "RW delete"},
    {.name = "zremrangebyscore", .proc = cmd_zremrangebyscore, .arity = 4, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove all members in a sorted set within the given scores", .since = "1.2.0",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .acl = "write sortedset slow", .key_specs = "RW delete"},
    {.name = "zremrangebylex", .proc = cmd_zremrangebylex, .arity = 4, .flags = CMD_WRITE, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove all members in a sorted set between the given lexicographical range", .since = "2.8.9",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .acl = "write sortedset slow", .key_specs = "RW delete"},
    {.name = "zpopmin", .proc = cmd_zpopmin, .arity = -2, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove and return members with the lowest scores in a sorted set", .since = "5.0.0",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
     .acl = "write sortedset fast", .key_specs = "RW access delete"},
    {.name = "zpopmax", .proc = cmd_zpopmax, .arity = -2, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Remove and return members with the highest scores in a sorted set", .since = "5.0.0",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
     .acl = "write sortedset fast", .key_specs = "RW access delete"},
    {.name = "zmpop", .proc = cmd_zmpop, .arity = -4, .flags = CMD_WRITE, KEYS(0, 0, 0), .group = "sorted-set",
     .summary = "Remove and return members with scores in a sorted set", .since = "7.0.0",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
     .acl = "write sortedset slow", .key_specs = "RW access delete@k:1,0,1,1"},
    {.name = "bzpopmin", .proc = cmd_bzpopmin, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, -2, 1), .group = "sorted-set",
     .summary = "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available",
     .since = "5.0.0", .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .acl = "write sortedset fast blocking", .key_specs = "RW access delete"},
    {.name = "bzpopmax", .proc = cmd_bzpopmax, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, -2, 1), .group = "sorted-set",
     .summary = "Remove and return the member with the highest score from one or more sorted sets, or block until one is available",
     .since = "5.0.0", .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .acl = "write sortedset fast blocking", .key_specs = "RW access delete"},
    {.name = "bzmpop", .proc = cmd_bzmpop, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING | CMD_OWN_EFFECT,
     .group = "sorted-set",
     .summary = "Remove and return members with scores in a sorted set or block until one is available", .since = "7.0.0",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
     .acl = "write sortedset slow blocking", .key_specs = "RW access delete@k:2,0,1,1"},
    {.name = "zrandmember", .proc = cmd_zrandmember, .arity = -2, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Get one or multiple random elements from a sorted set", .since = "6.2.0",
     .complexity = "O(N) where N is the number of elements returned",
     .acl = "read sortedset slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "zunion", .proc = cmd_zunion, .arity = -3, .flags = CMD_READONLY, KEYS(0, 0, 0), .group = "sorted-set",
     .summary = "Add multiple sorted sets", .since = "6.2.0",
     .complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
     .acl = "read sortedset slow", .key_specs = "RO access@k:1,0,1,1"},
    {.name = "zinter", .proc = cmd_zinter, .arity = -3, .flags = CMD_READONLY, KEYS(0, 0, 0), .group = "sorted-set",
     .summary = "Intersect multiple sorted sets", .since = "6.2.0",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
     .acl = "read sortedset slow", .key_specs = "RO access@k:1,0,1,1"},
    {.name = "zdiff", .proc = cmd_zdiff, .arity = -3, .flags = CMD_READONLY, KEYS(0, 0, 0), .group = "sorted-set",
     .summary = "Subtract multiple sorted sets", .since = "6.2.0",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
     .acl = "read sortedset slow", .key_specs = "RO access@k:1,0,1,1"},
    {.name = "zunionstore", .proc = cmd_zunionstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Add multiple sorted sets and store the resulting sorted set in a new key", .since = "2.0.0",
     .complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
     .acl = "write sortedset slow", .key_specs = "OW update;RO access@k:2,0,1,1"},
    {.name = "zinterstore", .proc = cmd_zinterstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Intersect multiple sorted sets and store the resulting sorted set in a new key", .since = "2.0.0",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
     .acl = "write sortedset slow", .key_specs = "OW update;RO access@k:2,0,1,1"},
    {.name = "zdiffstore", .proc = cmd_zdiffstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Subtract multiple sorted sets and store the resulting sorted set in a new key", .since = "6.2.0",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
     .acl = "write sortedset slow", .key_specs = "OW update;RO access@k:2,0,1,1"},
    {.name = "zintercard", .proc = cmd_zintercard, .arity = -3, .flags = CMD_READONLY, KEYS(0, 0, 0), .group = "sorted-set",
     .summary = "Intersect multiple sorted sets and return the cardinality of the result", .since = "7.0.0",
     .complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
     .acl = "read sortedset slow", .key_specs = "RO access@k:1,0,1,1"},
    {.name = "zscan", .proc = cmd_zscan, .arity = -3, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "sorted-set",
     .summary = "Incrementally iterate sorted sets elements and associated scores", .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .acl = "read sortedset slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {0},
};
/* clang-format on */
