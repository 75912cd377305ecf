/* hash.c -- the hash type's API and its row in the type table; the encodings
 * and the conversion rule are described in hash.h.
 *
 * The log: a hash is rewritten as plain HSET records of at most
 * REWRITE_BATCH_PAIRS pairs or about REWRITE_BATCH_BYTES bytes each (a pause
 * between records, so a huge hash is written in bounded pieces), then
 * PEXPIREAT for its TTL; the replay runs them as commands, so the type has no
 * internal effect of its own. */
#include "types/hash/hash.h"

#include <string.h>

#include "core/fvht.h"
#include "core/mem.h"
#include "core/pairlist.h"
#include "keyspace/type.h"

#define REWRITE_BATCH_PAIRS 256
#define REWRITE_BATCH_BYTES (64 * 1024)

long long hash_max_listpack_entries = 128;
long long hash_max_listpack_value = 64;

static uint64_t hash_seed = 0x9E3779B97F4A7C15ULL;

static char *lp(const dbent *e)
{
    return dbent_room((dbent *)e);
}

static fvht *tab(const dbent *e)
{
    return dbent_ptr(e);
}

dbent *hash_create(db *d, const char *key, size_t klen)
{
    dbent *e = db_add(d, key, klen, OBJ_HASH, 32);
    e->enc = ENC_INLINE;
    dbent_set_vlen(e, pl_init(lp(e)));
    return e;
}

size_t hash_len(const dbent *e)
{
    return e->enc == ENC_INLINE ? pl_count(lp(e)) : fvht_count(tab(e));
}

int hash_is_compact(const dbent *e)
{
    return e->enc == ENC_INLINE;
}

int hash_get(const dbent *e, const char *f, size_t flen, const char **v, size_t *vlen)
{
    if (e->enc == ENC_INLINE) {
        pl_pair p;
        if (!pl_find(lp(e), dbent_vlen(e), f, flen, &p))
            return 0;
        *v = p.v;
        *vlen = p.vlen;
        return 1;
    } else {
        fv_node *n = fvht_find(tab(e), f, flen);
        if (!n)
            return 0;
        *v = fv_value(n);
        *vlen = fv_vlen(n);
        return 1;
    }
}

/* Move a compact hash into a hash table. The entry keeps its room (entries
 * never shrink) and holds the pointer. */
static void convert(dbent *e)
{
    fvht *t = fvht_new(hash_seed);
    const char *b = lp(e);
    size_t off = PL_HDR;
    pl_pair p;

    while (off < dbent_vlen(e)) {
        off = pl_decode(b, off, &p);
        fvht_set(t, p.f, p.flen, p.v, p.vlen);
    }
    e->enc = ENC_PTR;
    dbent_set_vlen(e, 0);
    dbent_set_ptr(e, t);
}

void hash_fit(db *d, dbent **ep, size_t longest)
{
    (void)d;
    if ((*ep)->enc == ENC_INLINE && (long long)longest > hash_max_listpack_value)
        convert(*ep);
}

int hash_set(db *d, dbent **ep, const char *f, size_t flen, const char *v, size_t vlen)
{
    dbent *e = *ep;
    pl_pair p;
    int found;
    size_t nlen;

    hash_fit(d, ep, flen > vlen ? flen : vlen);
    if (e->enc != ENC_INLINE)
        return fvht_set(tab(e), f, flen, v, vlen);
    found = pl_find(lp(e), dbent_vlen(e), f, flen, &p);
    if (!found && pl_count(lp(e)) >= PL_MAX_COUNT) {
        convert(e);
        return fvht_set(tab(e), f, flen, v, vlen);
    }
    nlen = pl_set_len(dbent_vlen(e), found ? &p : NULL, flen, vlen);
    if (nlen > dbent_icap(e))
        *ep = e = db_resize_entry(d, e, nlen + nlen / 4);
    dbent_set_vlen(e, pl_set(lp(e), dbent_vlen(e), found ? &p : NULL, f, flen, v, vlen));
    if ((long long)pl_count(lp(e)) > hash_max_listpack_entries)
        convert(e);
    return !found;
}

int hash_del(db *d, dbent *e, const char *f, size_t flen)
{
    pl_pair p;

    (void)d;
    if (e->enc != ENC_INLINE)
        return fvht_del(tab(e), f, flen);
    if (!pl_find(lp(e), dbent_vlen(e), f, flen, &p))
        return 0;
    dbent_set_vlen(e, pl_del(lp(e), dbent_vlen(e), &p));
    return 1;
}

dbent *hash_compact(db *d, dbent *e)
{
    if (e->enc != ENC_INLINE)
        return e;
    return db_shrink_entry(d, e, dbent_vlen(e) + dbent_vlen(e) / 4);
}

typedef struct each_ctx {
    int (*fn)(void *ctx, const hash_pair *p);
    void *ctx;
} each_ctx;

static int each_node(void *ctx, const fv_node *n)
{
    each_ctx *c = ctx;
    hash_pair hp = {fv_field(n), fv_value(n), fv_flen(n), fv_vlen(n)};
    return c->fn(c->ctx, &hp);
}

int hash_foreach(const dbent *e, int (*fn)(void *ctx, const hash_pair *p), void *ctx)
{
    if (e->enc == ENC_INLINE) {
        const char *b = lp(e);
        size_t off = PL_HDR;
        pl_pair p;
        int r;

        while (off < dbent_vlen(e)) {
            hash_pair hp;
            off = pl_decode(b, off, &p);
            hp.f = p.f;
            hp.flen = p.flen;
            hp.v = p.v;
            hp.vlen = p.vlen;
            if ((r = fn(ctx, &hp)) != 0)
                return r;
        }
        return 0;
    } else {
        each_ctx c = {fn, ctx};
        return fvht_foreach(tab(e), each_node, &c);
    }
}

typedef struct scan_ctx {
    void (*fn)(void *ctx, const hash_pair *p);
    void *ctx;
} scan_ctx;

static int scan_all(void *ctx, const hash_pair *p)
{
    scan_ctx *s = ctx;
    s->fn(s->ctx, p);
    return 0;
}

static void scan_node(void *ctx, const fv_node *n)
{
    scan_ctx *s = ctx;
    hash_pair hp = {fv_field(n), fv_value(n), fv_flen(n), fv_vlen(n)};
    s->fn(s->ctx, &hp);
}

uint64_t hash_scan(dbent *e, uint64_t cursor, void (*fn)(void *ctx, const hash_pair *p), void *ctx)
{
    scan_ctx s = {fn, ctx};

    if (e->enc == ENC_INLINE) {
        hash_foreach(e, scan_all, &s);
        return 0;
    }
    return fvht_scan(tab(e), cursor, scan_node, &s);
}

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

void hash_random(dbent *e, uint64_t *rng, hash_pair *out)
{
    if (e->enc == ENC_INLINE) {
        pl_pair p;
        pl_index(lp(e), rnd(rng) % pl_count(lp(e)), &p);
        out->f = p.f;
        out->flen = p.flen;
        out->v = p.v;
        out->vlen = p.vlen;
    } else {
        fv_node *n = fvht_random(tab(e), rng);
        out->f = fv_field(n);
        out->flen = fv_flen(n);
        out->v = fv_value(n);
        out->vlen = fv_vlen(n);
    }
}

static int collect(void *ctx, const hash_pair *p)
{
    hash_pair **o = ctx;
    *(*o)++ = *p;
    return 0;
}

void hash_pairs(const dbent *e, hash_pair *out)
{
    hash_foreach(e, collect, &out);
}

/* ---- the hash as a keyspace type ---- */

static const char *type_encoding(const dbent *e)
{
    return e->enc == ENC_INLINE ? "listpack" : "hashtable";
}

static void type_free_value(dbent *e)
{
    fvht_free(tab(e));
}

static size_t type_free_effort(const dbent *e)
{
    return fvht_count(tab(e));
}

static int type_free_some(void *v, uint8_t enc, uint64_t *cursor, size_t max)
{
    (void)enc;
    return fvht_free_some(v, cursor, max);
}

static void *type_dup_value(const dbent *e)
{
    return fvht_dup(tab(e));
}

static size_t type_stored(const dbent *e)
{
    return e->enc == ENC_INLINE ? 0 : fvht_mem(tab(e));
}

static size_t type_logical(const dbent *e)
{
    if (e->enc == ENC_INLINE)
        return dbent_vlen(e);
    return tab(e)->logical; /* O(1): the dataset scan of the cron asks for every key */
}

typedef struct rw_ctx {
    const effect_out *o;
    int dbid;
    const dbent *e;
    size_t pairs, bytes; /* in the open record */
} rw_ctx;

static int rw_pair(void *ctx, const hash_pair *p)
{
    rw_ctx *r = ctx;

    if (r->pairs && (r->pairs >= REWRITE_BATCH_PAIRS || r->bytes >= REWRITE_BATCH_BYTES)) {
        eo_end(r->o);
        eo_pause(r->o);
        r->pairs = r->bytes = 0;
    }
    if (r->pairs == 0) {
        eo_begin(r->o, r->dbid);
        eo_str(r->o, "HSET");
        eo_bytes(r->o, dbent_key(r->e), dbent_klen(r->e));
    }
    eo_bytes(r->o, p->f, p->flen);
    eo_bytes(r->o, p->v, p->vlen);
    r->pairs++;
    r->bytes += p->flen + p->vlen;
    return 0;
}

/* HSET key f v ... in batches, then PEXPIREAT key expire. */
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    rw_ctx r = {o, dbid, e, 0, 0};

    (void)now;
    (void)why;
    (void)whylen;
    hash_foreach(e, rw_pair, &r);
    if (r.pairs)
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

static const type_effect hash_effects[] = {
    {NULL, NULL},
};

static int type_debug_lz(dbent *e, const char *part, size_t plen, struct lzval **out)
{
    (void)e;
    (void)part;
    (void)plen;
    (void)out;
    return -1;
}

static const type_def hash_type = {
    .name = "hash",
    .encoding = type_encoding,
    .free_value = type_free_value,
    .free_effort = type_free_effort,
    .free_some = type_free_some,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .rewrite = type_rewrite,
    .effects = hash_effects,
    .debug_lz = type_debug_lz,
};

void hash_type_register(void)
{
    type_register(OBJ_HASH, &hash_type);
}
