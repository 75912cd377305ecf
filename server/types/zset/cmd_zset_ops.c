/* cmd_zset_ops.c -- the sorted set commands that combine or sample sets:
 * ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD (Redis 7.0's
 * zunionInterDiffGenericCommand: keys looked up first, then the options; a
 * plain set is an input of scores 1, read through its type row's elems),
 * ZRANDMEMBER and ZSCAN. The command table and the rest of the family are in
 * cmd_zset.c; the helpers they share in cmd_zset_int.h. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "net/reply.h"
#include "server.h"
#include "types/zset/cmd_zset_int.h"
#include "types/zset/zset.h"

/* ---- ZRANDMEMBER ---- */

static uint64_t rnd(void)
{
    uint64_t x = srv.rng ? srv.rng : 88172645463325252ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    srv.rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void reply_rank(client *c, dbent *e, size_t rank, int withscores)
{
    zs_it it;
    size_t len;
    double s;
    const char *m;

    zs_it_at(&it, e, rank);
    m = zs_it_get(&it, &len, &s);
    zc_reply_member(c, m, len, s, withscores);
}

/* A set of ranks: open addressing, SIZE_MAX free. */
typedef struct rank_set {
    size_t *slot;
    size_t mask;
} rank_set;

/* Add r: 1 if it was new. */
static int rank_set_add(rank_set *rs, size_t r)
{
    size_t i = (r * 0x9E3779B97F4A7C15ull) & rs->mask;

    while (rs->slot[i] != SIZE_MAX) {
        if (rs->slot[i] == r)
            return 0;
        i = (i + 1) & rs->mask;
    }
    rs->slot[i] = r;
    return 1;
}

static int rank_set_has(const rank_set *rs, size_t r)
{
    size_t i = (r * 0x9E3779B97F4A7C15ull) & rs->mask;

    while (rs->slot[i] != SIZE_MAX) {
        if (rs->slot[i] == r)
            return 1;
        i = (i + 1) & rs->mask;
    }
    return 0;
}

/* count (< size) distinct random members of e. When more than half are
 * wanted, the ones left out are drawn instead and the rest replied in order,
 * so the draws stay few; the work is O(count), as the reply. */
static void rand_distinct(client *c, dbent *e, size_t size, size_t count, int withscores)
{
    int exclude = count > size / 2;
    size_t want = exclude ? size - count : count, cap = 4, got = 0, i, *order;
    rank_set rs;

    while (cap < want * 2 + 1)
        cap *= 2;
    rs.slot = xmalloc(sizeof(size_t) * cap);
    rs.mask = cap - 1;
    for (i = 0; i < cap; i++)
        rs.slot[i] = SIZE_MAX;
    order = xmalloc(sizeof(size_t) * (want ? want : 1));
    while (got < want) {
        size_t r = rnd() % size;
        if (rank_set_add(&rs, r))
            order[got++] = r;
    }
    zc_reply_members_len(c, (long)count, withscores);
    if (exclude) {
        zs_it it;
        size_t r = 0;
        for (zs_it_at(&it, e, 0); it.valid; zs_it_next(&it), r++) {
            size_t len;
            double s;
            const char *m;
            if (rank_set_has(&rs, r))
                continue;
            m = zs_it_get(&it, &len, &s);
            zc_reply_member(c, m, len, s, withscores);
        }
    } else {
        for (i = 0; i < count; i++)
            reply_rank(c, e, order[i], withscores);
    }
    xfree(order);
    xfree(rs.slot);
}

void cmd_zrandmember(client *c)
{
    long long l;
    int withscores = 0;
    dbent *e;
    size_t size, count, i;

    if (c->argc == 2) {
        if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
            return;
        if (!e)
            reply_null(c);
        else
            reply_rank(c, e, rnd() % zs_len(e), 0);
        return;
    }
    if (zc_arg_long(c, 2, &l, NULL) < 0)
        return;
    if (l == LLONG_MIN) {
        reply_error(c, "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        return;
    }
    if (c->argc > 4 || (c->argc == 4 && !str_eq_ci(c->argv[3].p, c->argv[3].len, "withscores"))) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc == 4) {
        withscores = 1;
        if (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2) {
            reply_error(c, "ERR value is out of range");
            return;
        }
    }
    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || l == 0) {
        reply_array(c, 0);
        return;
    }
    size = zs_len(e);
    if (l < 0 || l == 1) {
        /* With repetitions (or one member). */
        count = (size_t)(l < 0 ? -l : l);
        zc_reply_members_len(c, (long)count, withscores);
        /* A huge count ends when the output limit closes the client. */
        for (i = 0; i < count && !(c->flags & CLIENT_CLOSE_ASAP); i++)
            reply_rank(c, e, rnd() % size, withscores);
        return;
    }
    count = (size_t)l;
    if (count >= size) {
        zs_it it;
        zc_reply_members_len(c, (long)size, withscores);
        for (zs_it_at(&it, e, 0); it.valid; zs_it_next(&it)) {
            size_t len;
            double s;
            const char *m = zs_it_get(&it, &len, &s);
            zc_reply_member(c, m, len, s, withscores);
        }
        return;
    }
    rand_distinct(c, e, size, count, withscores);
}

/* ---- ZUNION, ZINTER, ZDIFF, their STORE forms, ZINTERCARD ---- */

enum { OP_UNION, OP_INTER, OP_DIFF };

/* An input: a sorted set, or (as in Redis) a plain set, seen through its type
 * row's elems as a sorted set whose scores are all 1. */
typedef struct zsrc {
    dbent *e;              /* NULL: an empty set */
    const type_elems *set; /* non-NULL: e is a plain set */
    double weight;
    size_t len;
} zsrc;

static int cmp_src(const void *a, const void *b)
{
    const zsrc *x = a, *y = b;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* A stable sort by size (insertion: few keys). */
static void sort_srcs(zsrc *s, long n)
{
    long i, j;

    for (i = 1; i < n; i++) {
        zsrc t = s[i];
        for (j = i; j > 0 && cmp_src(&s[j - 1], &t) > 0; j--)
            s[j] = s[j - 1];
        s[j] = t;
    }
}

/* The input at argv[j]: 0 with *s filled, or -1 after replying WRONGTYPE
 * (neither a sorted set nor a type with elems). A read lookup for the STORE
 * forms too, as Redis 7.0 (a missing input counts a miss and fires keymiss). */
static int src_lookup(client *c, int j, zsrc *s)
{
    const sarg *key = &c->argv[j];
    dbent *e = db_lookup(c->db, key->p, key->len);

    s->e = e;
    s->set = NULL;
    s->weight = 1.0;
    s->len = 0;
    if (!e)
        return 0;
    if (e->type != OBJ_ZSET) {
        s->set = type_of(e)->elems;
        if (!s->set) {
            reply_error(c, ERR_WRONGTYPE);
            return -1;
        }
        s->len = (size_t)s->set->count(e);
        return 0;
    }
    s->len = zs_len(e);
    return 0;
}

/* 1 with the unweighted score of m in s, or 0 if absent. */
static int src_has(const zsrc *s, const char *m, size_t len, double *out)
{
    if (!s->e)
        return 0;
    if (s->set) {
        *out = 1.0;
        return s->set->has(s->e, m, len);
    }
    return zs_score(s->e, m, len, out);
}

/* 1 with the weighted score of m in src (a NaN product, inf * 0, is left to
 * the aggregation: a sum with it is 0, MIN and MAX ignore it, as Redis), or 0
 * if absent. */
static int src_score(const zsrc *s, const char *m, size_t len, double *out)
{
    double v;

    if (!src_has(s, m, len, &v))
        return 0;
    *out = v * s->weight;
    return 1;
}

/* What a walk over one input does with each member (m, len) of score s:
 * non-zero stops the walk. */
typedef int member_fn(void *ctx, const char *m, size_t len, double s);

typedef struct set_walk {
    member_fn *fn;
    void *ctx;
} set_walk;

static int set_walk_one(void *ctx, const char *p, size_t n)
{
    set_walk *w = ctx;
    return w->fn(w->ctx, p, n, 1.0);
}

/* Call fn on the members of s with their (unweighted) scores until it
 * returns non-zero. */
static void src_walk(const zsrc *s, member_fn *fn, void *ctx)
{
    zs_it it;

    if (!s->len)
        return;
    if (s->set) {
        set_walk w = {fn, ctx};
        s->set->visit(s->e, set_walk_one, &w);
        return;
    }
    for (zs_it_at(&it, s->e, 0); it.valid; zs_it_next(&it)) {
        size_t len;
        double sc;
        const char *m = zs_it_get(&it, &len, &sc);
        if (fn(ctx, m, len, sc))
            break;
    }
}

static double agg2(double a, double b, int agg)
{
    if (agg == ZS_AGG_SUM) {
        a += b;
        return isnan(a) ? 0 : a;
    }
    if (agg == ZS_AGG_MIN)
        return b < a ? b : a;
    return b > a ? b : a;
}

/* The state of a combination: the inputs and where the result goes. */
typedef struct zop {
    zsrc *src;
    long long setnum;
    int agg;
    zs_acc *acc;     /* the result (NULL for ZINTERCARD) */
    long long card;  /* ZINTERCARD: members counted so far */
    long long limit; /* ZINTERCARD: 0, or where counting stops */
    long long i;     /* OP_UNION: the input walked */
} zop;

static int union_one(void *ctx, const char *m, size_t len, double s)
{
    zop *o = ctx;

    s *= o->src[o->i].weight;
    zs_acc_add(o->acc, m, len, isnan(s) ? 0 : s, o->agg);
    return 0;
}

/* m of the first (smallest) input is in every other one: 1 with its
 * aggregated score, else 0. */
static int inter_score(zop *o, const char *m, size_t len, double s0, double *out)
{
    double score = s0 * o->src[0].weight, v;
    long long i;

    if (isnan(score))
        score = 0;
    for (i = 1; i < o->setnum; i++) {
        if (o->src[i].e == o->src[0].e)
            score = agg2(score, s0 * o->src[i].weight, o->agg);
        else if (src_score(&o->src[i], m, len, &v))
            score = agg2(score, v, o->agg);
        else
            return 0;
    }
    *out = score;
    return 1;
}

/* OP_INTER, and ZINTERCARD (no acc: counts, and stops at the limit). */
static int inter_one(void *ctx, const char *m, size_t len, double s)
{
    zop *o = ctx;
    double score;

    if (!o->acc) {
        o->card += inter_score(o, m, len, s, &score);
        return o->limit && o->card >= o->limit;
    }
    if (inter_score(o, m, len, s, &score))
        zs_acc_add(o->acc, m, len, score, o->agg);
    return 0;
}

static int diff_one(void *ctx, const char *m, size_t len, double s)
{
    zop *o = ctx;
    double v;
    long long i;

    for (i = 1; i < o->setnum; i++)
        if (src_has(&o->src[i], m, len, &v))
            return 0;
    zs_acc_add(o->acc, m, len, s, o->agg);
    return 0;
}

/* Z{UNION,INTER,DIFF}[STORE] and ZINTERCARD, as Redis 7.0's
 * zunionInterDiffGenericCommand: the keys are looked up (WRONGTYPE first; a
 * plain set is an input of scores 1), then the options parsed, then the sets
 * combined (UNION and INTER take the sets from the smallest, as Redis, so
 * sums add up in its order). */
static void zsetop_generic(client *c, const sarg *dst, int numkeys_idx, int op, int card_only)
{
    long long setnum, limit = 0, i;
    int j, agg = ZS_AGG_SUM, withscores = 0;
    zsrc *src = NULL;
    zs_acc *acc = NULL;
    zop o;

    if (zc_arg_long(c, numkeys_idx, &setnum, NULL) < 0)
        return;
    if (setnum < 1) {
        reply_errorf(c, "ERR at least 1 input key is needed for '%s' command", cmd_fullname(c->cmd));
        return;
    }
    if (setnum > c->argc - (numkeys_idx + 1)) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    src = xcalloc((size_t)setnum, sizeof(zsrc));
    for (i = 0, j = numkeys_idx + 1; i < setnum; i++, j++)
        if (src_lookup(c, j, &src[i]) < 0)
            goto done;
    while (j < c->argc) {
        const sarg *a = &c->argv[j];
        int remaining = c->argc - j;
        if (op != OP_DIFF && !card_only && remaining >= setnum + 1 && str_eq_ci(a->p, a->len, "weights")) {
            j++;
            for (i = 0; i < setnum; i++, j++) {
                if (zs_parse_score(c->argv[j].p, c->argv[j].len, &src[i].weight) < 0) {
                    reply_error(c, "ERR weight value is not a float");
                    goto done;
                }
            }
        } else if (op != OP_DIFF && !card_only && remaining >= 2 && str_eq_ci(a->p, a->len, "aggregate")) {
            const sarg *v = &c->argv[j + 1];
            if (str_eq_ci(v->p, v->len, "sum")) {
                agg = ZS_AGG_SUM;
            } else if (str_eq_ci(v->p, v->len, "min")) {
                agg = ZS_AGG_MIN;
            } else if (str_eq_ci(v->p, v->len, "max")) {
                agg = ZS_AGG_MAX;
            } else {
                reply_error(c, ERR_SYNTAX);
                goto done;
            }
            j += 2;
        } else if (!dst && !card_only && str_eq_ci(a->p, a->len, "withscores")) {
            withscores = 1;
            j++;
        } else if (card_only && remaining >= 2 && str_eq_ci(a->p, a->len, "limit")) {
            if (zc_arg_long(c, j + 1, &limit, "ERR LIMIT can't be negative") < 0)
                goto done;
            if (limit < 0) {
                reply_error(c, "ERR LIMIT can't be negative");
                goto done;
            }
            j += 2;
        } else {
            reply_error(c, ERR_SYNTAX);
            goto done;
        }
    }
    if (op != OP_DIFF)
        sort_srcs(src, (long)setnum);

    o = (zop){.src = src, .setnum = setnum, .agg = agg, .limit = limit};
    if (card_only) {
        src_walk(&src[0], inter_one, &o);
        reply_int(c, o.card);
        goto done;
    }
    acc = o.acc = zs_acc_new();
    if (op == OP_UNION) {
        for (o.i = 0; o.i < setnum; o.i++)
            src_walk(&src[o.i], union_one, &o);
    } else {
        src_walk(&src[0], op == OP_INTER ? inter_one : diff_one, &o);
    }

    if (dst) {
        zc_store_result(c, dst, acc, op == OP_UNION ? "zunionstore" : op == OP_INTER ? "zinterstore" : "zdiffstore");
        acc = NULL;
    } else {
        zs_it it;
        zc_reply_members_len(c, (long)zs_acc_len(acc), withscores);
        for (zs_acc_it(&it, acc); it.valid; zs_it_next(&it)) {
            size_t len;
            double s;
            const char *m = zs_it_get(&it, &len, &s);
            zc_reply_member(c, m, len, s, withscores);
        }
    }
done:
    zs_acc_free(acc);
    xfree(src);
}

void cmd_zunion(client *c)
{
    zsetop_generic(c, NULL, 1, OP_UNION, 0);
}

void cmd_zinter(client *c)
{
    zsetop_generic(c, NULL, 1, OP_INTER, 0);
}

void cmd_zdiff(client *c)
{
    zsetop_generic(c, NULL, 1, OP_DIFF, 0);
}

void cmd_zunionstore(client *c)
{
    zsetop_generic(c, &c->argv[1], 2, OP_UNION, 0);
}

void cmd_zinterstore(client *c)
{
    zsetop_generic(c, &c->argv[1], 2, OP_INTER, 0);
}

void cmd_zdiffstore(client *c)
{
    zsetop_generic(c, &c->argv[1], 2, OP_DIFF, 0);
}

void cmd_zintercard(client *c)
{
    zsetop_generic(c, NULL, 1, OP_INTER, 1);
}

/* ---- ZSCAN ---- */

typedef struct zscan_buf {
    client *c;
    const sarg *pat;
    char *bytes;
    size_t used, cap;
    long n;
} zscan_buf;

/* Collect a matching member and its score ("%.17g") as two strings. */
static void zscan_collect(void *ctx, const char *m, size_t len, double score)
{
    zscan_buf *b = ctx;
    char sbuf[64];
    size_t sl;

    if (b->pat && !glob_match(b->pat->p, b->pat->len, m, len, 0))
        return;
    sl = d_to_str(sbuf, sizeof(sbuf), score);
    if (b->used + len + sl + 16 > b->cap) {
        b->cap = (b->used + len + sl + 16) * 2;
        b->bytes = xrealloc(b->bytes, b->cap);
    }
    memcpy(b->bytes + b->used, &len, sizeof(size_t));
    memcpy(b->bytes + b->used + sizeof(size_t), m, len);
    b->used += sizeof(size_t) + len;
    memcpy(b->bytes + b->used, &sl, sizeof(size_t));
    memcpy(b->bytes + b->used + sizeof(size_t), sbuf, sl);
    b->used += sizeof(size_t) + sl;
    b->n++;
}

/* ZSCAN key cursor [MATCH pattern] [COUNT count]: a compact set whole in one
 * call (cursor 0), a skiplist by its index's buckets (the reverse-binary
 * cursor of ht.h: members present for the whole iteration come at least once). */
void cmd_zscan(client *c)
{
    zscan_buf b = {c, NULL, NULL, 0, 0, 0};
    unsigned long long cursor;
    long long count = 10;
    char *end, cbuf[24];
    dbent *e;
    size_t off = 0;
    int j;

    errno = 0;
    cursor = strtoull(c->argv[2].p, &end, 10);
    if (isspace((unsigned char)c->argv[2].p[0]) || *end != '\0' || errno == ERANGE) {
        reply_error(c, "ERR invalid cursor");
        return;
    }
    if (zc_lookup(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_array(c, 2);
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    for (j = 3; j < c->argc; j += 2) {
        const sarg *a = &c->argv[j];
        int has_value = j + 1 < c->argc;
        if (has_value && str_eq_ci(a->p, a->len, "count")) {
            if (zc_arg_long(c, j + 1, &count, NULL) < 0)
                return;
            if (count < 1) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
        } else if (has_value && str_eq_ci(a->p, a->len, "match")) {
            b.pat = &c->argv[j + 1];
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (b.pat && b.pat->len == 1 && b.pat->p[0] == '*')
        b.pat = NULL;
    cursor = zs_scan(e, cursor, count, zscan_collect, &b);
    reply_array(c, 2);
    reply_bulk(c, cbuf, (size_t)snprintf(cbuf, sizeof(cbuf), "%llu", cursor));
    reply_array(c, b.n * 2);
    while (off < b.used) {
        size_t len;
        memcpy(&len, b.bytes + off, sizeof(size_t));
        reply_bulk(c, b.bytes + off + sizeof(size_t), len);
        off += sizeof(size_t) + len;
    }
    xfree(b.bytes);
}
