/* zset.c -- the sorted set type over its two encodings (see zset.h).
 *
 * An entry holds a pointer to its value: enc ENC_RAW marks the compact buffer
 * (zlp), ENC_PTR the skiplist (zsl). Only this file looks at either. */
#include "types/zset/zset.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/util.h"
#include "core/zset/zlp.h"
#include "core/zset/zsl.h"
#include "keyspace/type.h"

#define ZENC_LP ENC_RAW
#define ZENC_SL ENC_PTR

long long zs_max_entries = 128, zs_max_value = 64;
static uint64_t zs_seed = 0x5DEECE66Dull;

/* Insert into the compact encoding, which keeps a zero score as 0 (Redis's
 * listpack stores "-0" as the integer 0, so ZSCORE answers 0 there and -0 in
 * a skiplist). */
static zlp *lp_insert(zlp *z, const char *m, size_t len, double score)
{
    return zlp_insert(z, m, len, score == 0 ? 0.0 : score);
}

static int is_lp(const dbent *e)
{
    return e->enc == ZENC_LP;
}

static uint64_t next_seed(void)
{
    zs_seed ^= zs_seed << 13;
    zs_seed ^= zs_seed >> 7;
    zs_seed ^= zs_seed << 17;
    return zs_seed;
}

dbent *zs_create(db *d, const char *key, size_t klen)
{
    dbent *e = db_add(d, key, klen, OBJ_ZSET, sizeof(void *));

    e->enc = ZENC_LP;
    dbent_set_ptr(e, zlp_new());
    return e;
}

size_t zs_len(const dbent *e)
{
    return is_lp(e) ? zlp_count(dbent_ptr(e)) : zsl_count(dbent_ptr(e));
}

/* The compact buffer becomes a skiplist. */
static void to_skiplist(dbent *e)
{
    zlp *z = dbent_ptr(e);
    zsl *s = zsl_new(next_seed());
    size_t off;

    for (off = zlp_first(z); off != ZLP_END; off = zlp_next(z, off)) {
        size_t len;
        double sc;
        const char *m = zlp_get(z, off, &len, &sc);
        zsl_insert(s, m, len, sc);
    }
    zlp_free(z);
    dbent_set_ptr(e, s);
    e->enc = ZENC_SL;
}

void zs_shrink_if_fits(dbent *e)
{
    zsl *s;
    zsl_node *n;
    zlp *z;

    if (is_lp(e))
        return;
    s = dbent_ptr(e);
    if ((long long)zsl_count(s) > zs_max_entries)
        return;
    for (n = zsl_first(s); n; n = zsl_next(n))
        if ((long long)zsl_mlen(n) > zs_max_value)
            return;
    z = zlp_new();
    for (n = zsl_last(s); n; n = zsl_prev(n))
        z = lp_insert(z, zsl_member(n), zsl_mlen(n), n->score);
    zsl_free(s);
    dbent_set_ptr(e, z);
    e->enc = ZENC_LP;
}

int zs_score(dbent *e, const char *m, size_t len, double *score)
{
    if (is_lp(e)) {
        zlp *z = dbent_ptr(e);
        size_t off = zlp_find(z, m, len, NULL), l;
        if (off == ZLP_END)
            return 0;
        zlp_get(z, off, &l, score);
        return 1;
    } else {
        zsl_node *n = zsl_find(dbent_ptr(e), m, len);
        if (!n)
            return 0;
        *score = n->score;
        return 1;
    }
}

int zs_add(dbent *e, const char *m, size_t len, double score, int flags, double *newscore)
{
    double cur;

    if (zs_score(e, m, len, &cur)) {
        if (flags & ZS_NX)
            return ZS_NOP;
        if (flags & ZS_INCR) {
            score += cur;
            if (isnan(score))
                return ZS_NAN;
        }
        if (((flags & ZS_LT) && score >= cur) || ((flags & ZS_GT) && score <= cur))
            return ZS_NOP;
        *newscore = score;
        if (score == cur)
            return ZS_SAME;
        if (is_lp(e)) {
            zlp *z = dbent_ptr(e);
            zlp_delete(z, zlp_find(z, m, len, NULL), 1);
            dbent_set_ptr(e, lp_insert(z, m, len, score));
        } else {
            zsl *s = dbent_ptr(e);
            zsl_rescore(s, zsl_find(s, m, len), score);
        }
        return ZS_UPDATED;
    }
    if (flags & ZS_XX)
        return ZS_NOP;
    if (is_lp(e) && ((long long)zlp_count(dbent_ptr(e)) + 1 > zs_max_entries || (long long)len > zs_max_value))
        to_skiplist(e);
    if (is_lp(e))
        dbent_set_ptr(e, lp_insert(dbent_ptr(e), m, len, score));
    else
        zsl_insert(dbent_ptr(e), m, len, score);
    *newscore = score;
    return ZS_ADDED;
}

int zs_del(dbent *e, const char *m, size_t len)
{
    if (is_lp(e)) {
        zlp *z = dbent_ptr(e);
        size_t off = zlp_find(z, m, len, NULL);
        if (off == ZLP_END)
            return 0;
        zlp_delete(z, off, 1);
        dbent_set_ptr(e, zlp_shrink(z));
    } else {
        zsl *s = dbent_ptr(e);
        zsl_node *n = zsl_find(s, m, len);
        if (!n)
            return 0;
        zsl_delete(s, n);
    }
    return 1;
}

int zs_rank(dbent *e, const char *m, size_t len, size_t *rank, double *score)
{
    if (is_lp(e)) {
        zlp *z = dbent_ptr(e);
        size_t off = zlp_find(z, m, len, rank), l;
        if (off == ZLP_END)
            return 0;
        zlp_get(z, off, &l, score);
    } else {
        zsl *s = dbent_ptr(e);
        zsl_node *n = zsl_find(s, m, len);
        if (!n)
            return 0;
        *rank = zsl_rank(s, n);
        *score = n->score;
    }
    return 1;
}

size_t zs_lower_bound(dbent *e, zs_pred pred, void *ctx)
{
    if (is_lp(e)) {
        size_t off;
        return zlp_lower_bound(dbent_ptr(e), pred, ctx, &off);
    } else {
        zsl_node *n;
        return zsl_lower_bound(dbent_ptr(e), pred, ctx, &n);
    }
}

void zs_delete_range(dbent *e, size_t start, size_t end)
{
    if (start >= end)
        return;
    if (is_lp(e)) {
        zlp *z = dbent_ptr(e);
        zlp_delete(z, zlp_at(z, start), end - start);
        dbent_set_ptr(e, zlp_shrink(z));
    } else {
        zsl *s = dbent_ptr(e);
        zsl_node *n = zsl_at(s, start), *next;
        size_t k;
        for (k = start; k < end && n; k++, n = next) {
            next = zsl_next(n);
            zsl_delete(s, n);
        }
    }
}

const char *zs_encoding(const dbent *e)
{
    return is_lp(e) ? "listpack" : "skiplist";
}

void zs_it_at(zs_it *it, dbent *e, size_t rank)
{
    it->v = dbent_ptr(e);
    it->lp = is_lp(e);
    it->valid = rank < zs_len(e);
    if (!it->valid)
        return;
    if (it->lp)
        it->off = zlp_at(dbent_ptr(e), rank);
    else
        it->node = zsl_at(dbent_ptr(e), rank);
}

void zs_it_next(zs_it *it)
{
    if (it->lp) {
        it->off = zlp_next(it->v, it->off);
        it->valid = it->off != ZLP_END;
    } else {
        it->node = zsl_next(it->node);
        it->valid = it->node != NULL;
    }
}

void zs_it_prev(zs_it *it)
{
    if (it->lp) {
        it->off = zlp_prev(it->v, it->off);
        it->valid = it->off != ZLP_END;
    } else {
        it->node = zsl_prev(it->node);
        it->valid = it->node != NULL;
    }
}

const char *zs_it_get(const zs_it *it, size_t *len, double *score)
{
    if (it->lp)
        return zlp_get(it->v, it->off, len, score);
    *len = zsl_mlen(it->node);
    *score = ((zsl_node *)it->node)->score;
    return zsl_member(it->node);
}

/* ---- accumulators: a zsl ---- */

struct zs_acc {
    zsl *s;
};

zs_acc *zs_acc_new(void)
{
    zs_acc *a = xmalloc(sizeof(zs_acc));
    a->s = zsl_new(next_seed());
    return a;
}

void zs_acc_free(zs_acc *a)
{
    if (!a)
        return;
    zsl_free(a->s);
    xfree(a);
}

size_t zs_acc_len(const zs_acc *a)
{
    return zsl_count(a->s);
}

void zs_acc_add(zs_acc *a, const char *m, size_t len, double score, int agg)
{
    zsl_node *n = zsl_find(a->s, m, len);
    double v;

    if (!n) {
        zsl_insert(a->s, m, len, score);
        return;
    }
    v = n->score;
    if (agg == ZS_AGG_SUM) {
        v += score;
        if (isnan(v))
            v = 0;
    } else if (agg == ZS_AGG_MIN) {
        v = score < v ? score : v;
    } else {
        v = score > v ? score : v;
    }
    zsl_rescore(a->s, n, v);
}

int zs_acc_score(zs_acc *a, const char *m, size_t len, double *score)
{
    zsl_node *n = zsl_find(a->s, m, len);
    if (!n)
        return 0;
    *score = n->score;
    return 1;
}

void zs_acc_it(zs_it *it, zs_acc *a)
{
    it->v = a->s;
    it->lp = 0;
    it->node = zsl_first(a->s);
    it->valid = it->node != NULL;
}

dbent *zs_store(db *d, const char *key, size_t klen, zs_acc *a)
{
    dbent *e = db_set_entry(d, key, klen, OBJ_ZSET, sizeof(void *));

    e->enc = ZENC_SL;
    dbent_set_ptr(e, a->s);
    xfree(a);
    zs_shrink_if_fits(e);
    return e;
}

typedef struct scan_ctx {
    void (*fn)(void *ctx, const char *m, size_t len, double score);
    void *ctx;
    size_t seen;
} scan_ctx;

static void scan_node(void *ctx, ht_node *h)
{
    scan_ctx *sc = ctx;
    zsl_node *n = (zsl_node *)h;

    sc->fn(sc->ctx, zsl_member(n), zsl_mlen(n), n->score);
    sc->seen++;
}

uint64_t zs_scan(dbent *e, uint64_t cursor, long long count,
                 void (*fn)(void *ctx, const char *m, size_t len, double score), void *ctx)
{
    scan_ctx sc = {fn, ctx, 0};
    long long steps;

    if (is_lp(e)) {
        zs_it it;
        for (zs_it_at(&it, e, 0); it.valid; zs_it_next(&it)) {
            size_t len;
            double s;
            const char *m = zs_it_get(&it, &len, &s);
            fn(ctx, m, len, s);
        }
        return 0;
    }
    steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = ht_scan(&((zsl *)dbent_ptr(e))->idx, cursor, scan_node, &sc);
    } while (cursor && steps-- && (long long)sc.seen < count);
    return cursor;
}

int zs_parse_score(const char *p, size_t n, double *out)
{
    char buf[128], *end;
    double v;

    if (n == 0 || n >= sizeof(buf) || isspace((unsigned char)p[0]) || memchr(p, 0, n))
        return -1;
    memcpy(buf, p, n);
    buf[n] = 0;
    errno = 0;
    v = strtod(buf, &end);
    if ((size_t)(end - buf) != n || (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) || isnan(v))
        return -1;
    *out = v;
    return 0;
}

/* ---- the type's row ---- */

static void type_free_value(dbent *e)
{
    if (is_lp(e))
        zlp_free(dbent_ptr(e));
    else
        zsl_free(dbent_ptr(e));
}

static size_t type_free_effort(const dbent *e)
{
    return is_lp(e) ? 1 : zsl_count(dbent_ptr(e));
}

static int type_free_some(void *v, uint8_t enc, uint64_t *cursor, size_t max)
{
    (void)cursor;
    if (enc == ZENC_LP) {
        zlp_free(v);
        return 1;
    }
    return zsl_free_some(v, max);
}

static void *type_dup_value(const dbent *e)
{
    zsl *s, *d;
    zsl_node *n;

    if (is_lp(e))
        return zlp_dup(dbent_ptr(e));
    s = dbent_ptr(e);
    d = zsl_new(next_seed());
    for (n = zsl_first(s); n; n = zsl_next(n))
        zsl_insert(d, zsl_member(n), zsl_mlen(n), n->score);
    return d;
}

static size_t type_stored(const dbent *e)
{
    return is_lp(e) ? zlp_bytes(dbent_ptr(e)) : zsl_bytes(dbent_ptr(e));
}

/* Members' bytes plus 8 per score, in O(1): exact for a compact set of short
 * members; for a skiplist, the nodes' bytes less their fixed parts (the links
 * above the first level and the allocator's rounding count as data). */
static size_t type_logical(const dbent *e)
{
    if (is_lp(e)) {
        const zlp *z = dbent_ptr(e);
        return z->used - 2 * (size_t)z->n;
    } else {
        const zsl *s = dbent_ptr(e);
        size_t fixed = s->length * (sizeof(zsl_node) + sizeof(struct zsl_link) - sizeof(double));
        return s->bytes > fixed ? s->bytes - fixed : 0;
    }
}

/* The records that recreate the set: for a skiplist, first _ZSKIPLIST key
 * (the replay creates it empty in that encoding, so that the ZADDs keep a -0
 * score as -0 and a small skiplist stays one, as before the restart); then
 * ZADD key score member ... with at most ZS_REWRITE_BATCH members or about 64
 * KB each, a pause between records, then PEXPIREAT. Scores as %.17g, which
 * reads back as the same double. */
#define ZS_REWRITE_BATCH 128
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    zs_it it;
    size_t inrec = 0, bytes = 0;

    (void)now;
    (void)why;
    (void)whylen;
    if (!is_lp(e)) {
        eo_begin(o, dbid);
        eo_str(o, "_ZSKIPLIST");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        eo_end(o);
    }
    for (zs_it_at(&it, (dbent *)e, 0); it.valid; zs_it_next(&it)) {
        size_t len, n;
        double sc;
        const char *m = zs_it_get(&it, &len, &sc);
        char buf[64];
        if (inrec == 0) {
            eo_begin(o, dbid);
            eo_str(o, "ZADD");
            eo_bytes(o, dbent_key(e), dbent_klen(e));
        }
        n = d_to_str(buf, sizeof(buf), sc);
        eo_bytes(o, buf, n);
        eo_bytes(o, m, len);
        inrec++;
        bytes += len + n;
        if (inrec == ZS_REWRITE_BATCH || bytes >= 65536) {
            eo_end(o);
            eo_pause(o);
            inrec = 0;
            bytes = 0;
        }
    }
    if (inrec)
        eo_end(o);
    if (expire >= 0) {
        eo_begin(o, dbid);
        eo_str(o, "PEXPIREAT");
        eo_bytes(o, dbent_key(e), dbent_klen(e));
        eo_ll(o, expire);
        eo_end(o);
    }
    return 0;
}

/* _ZSKIPLIST key: key becomes an empty sorted set in the skiplist encoding
 * (whatever it held is replaced); the ZADD records that follow fill it. */
static int apply_zskiplist(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    dbent *e;

    if (argc != 2 || a[1].lz) {
        snprintf(why, whylen, "malformed arguments (effect _ZSKIPLIST)");
        return -1;
    }
    r->left_out(r, dbid, &a[1], NULL, 1); /* a whole new value: the key is back */
    db_delete(d, a[1].p, a[1].len);
    e = db_add(d, a[1].p, a[1].len, OBJ_ZSET, sizeof(void *));
    e->enc = ZENC_SL;
    dbent_set_ptr(e, zsl_new(next_seed()));
    return 0;
}

static const type_effect zset_effects[] = {
    {"_ZSKIPLIST", apply_zskiplist},
    {NULL, NULL},
};

static const type_def zset_type = {
    .name = "zset",
    .encoding = zs_encoding,
    .free_value = type_free_value,
    .free_effort = type_free_effort,
    .free_some = type_free_some,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .rewrite = type_rewrite,
    .effects = zset_effects,
};

void zs_type_register(void)
{
    type_register(OBJ_ZSET, &zset_type);
}
