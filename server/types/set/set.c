/* set.c -- the set type: its two encodings behind one API, and its row of the
 * type table (see set.h). The log's rewrite writes a set as SADD records of at
 * most SET_REWRITE_BATCH members or ~64 KB each, then PEXPIREAT for a TTL, so
 * the replay needs no effect of the set's own. */
#include "types/set/set.h"

#include <limits.h>
#include <string.h>

#include "core/ht.h"
#include "core/intset.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"

#define SET_REWRITE_BATCH 256
#define SET_REWRITE_BYTES (64 * 1024)

int set_max_intset_entries = 512;
static uint64_t set_seed;

/* A member of the hash-table encoding: the node, then the member's bytes. */
typedef struct smember {
    ht_node node;
    char data[];
} smember;

typedef struct set_ht {
    ht h;
    size_t bytes;   /* bytes allocated for the members (usable sizes) */
    size_t logical; /* bytes of the members' contents */
} set_ht;

static const char *smember_key(const ht_node *n)
{
    return ((const smember *)n)->data;
}

static void type_free_value(dbent *e);

static uint32_t hash_of(const char *p, size_t n)
{
    return (uint32_t)ht_hash(p, n, set_seed);
}

static set_ht *sht_new(void)
{
    set_ht *s = xmalloc(sizeof(*s));
    ht_init(&s->h, smember_key, set_seed);
    s->bytes = s->logical = 0;
    return s;
}

static int sht_add(set_ht *s, const char *p, size_t n)
{
    uint32_t hv = hash_of(p, n);
    smember *m;

    if (ht_find(&s->h, p, (uint32_t)n, hv))
        return 0;
    m = xmalloc(sizeof(smember) + (n ? n : 1));
    m->node.hash = hv;
    m->node.klen = (uint32_t)n;
    memcpy(m->data, p, n);
    ht_insert(&s->h, &m->node);
    s->bytes += xmalloc_size(m);
    s->logical += n;
    return 1;
}

static int sht_remove(set_ht *s, const char *p, size_t n)
{
    smember *m = (smember *)ht_remove(&s->h, p, (uint32_t)n, hash_of(p, n));

    if (!m)
        return 0;
    s->bytes -= xmalloc_size(m);
    s->logical -= n;
    xfree(m);
    return 1;
}

static void sht_free_member(void *ctx, ht_node *n)
{
    (void)ctx;
    xfree(n);
}

static void sht_free(set_ht *s)
{
    ht_clear(&s->h, sht_free_member, NULL);
    xfree(s);
}

static int int_of(const char *p, size_t n, int64_t *v)
{
    long long ll;

    if (str_to_ll(p, n, &ll) < 0)
        return 0;
    *v = ll;
    return 1;
}

static void elem_int(set_elem *out, int64_t v)
{
    out->len = ll_to_str(out->buf, v);
    out->p = out->buf;
}

static void elem_node(set_elem *out, const ht_node *n)
{
    out->p = ((const smember *)n)->data;
    out->len = n->klen;
}

/* Make e's intset a hash table. */
static void to_ht(dbent *e)
{
    intset *is = dbent_ptr(e);
    set_ht *s = sht_new();
    uint32_t i;

    for (i = 0; i < is_count(is); i++) {
        char buf[24];
        sht_add(s, buf, ll_to_str(buf, is_get(is, i)));
    }
    is_free(is);
    dbent_set_ptr(e, s);
    e->enc = SET_ENC_HT;
}

static dbent *new_entry(db *d, const char *key, size_t klen, int intset_enc)
{
    dbent *e = db_add(d, key, klen, OBJ_SET, sizeof(void *));

    if (intset_enc) {
        dbent_set_ptr(e, is_new());
        e->enc = SET_ENC_INTSET;
    } else {
        dbent_set_ptr(e, sht_new());
        e->enc = SET_ENC_HT;
    }
    return e;
}

dbent *set_create(db *d, const char *key, size_t klen, const char *p, size_t n)
{
    int64_t v;
    return new_entry(d, key, klen, int_of(p, n, &v));
}

dbent *set_create_intset(db *d, const char *key, size_t klen)
{
    return new_entry(d, key, klen, 1);
}

dbent *set_tmp_new(void)
{
    dbent *t = xcalloc(1, sizeof(dbent) + sizeof(void *));

    t->type = OBJ_SET; /* narrow, with no key: room for the pointer, no TTL */
    dbent_set_ptr(t, is_new());
    t->enc = SET_ENC_INTSET;
    return t;
}

void set_tmp_free(dbent *t)
{
    if (!t)
        return;
    type_free_value(t);
    xfree(t);
}

dbent *set_tmp_store(db *d, const char *key, size_t klen, dbent *t)
{
    dbent *e = db_set_entry(d, key, klen, OBJ_SET, sizeof(void *));

    dbent_set_ptr(e, dbent_ptr(t));
    e->enc = t->enc;
    xfree(t);
    return e;
}

int set_add(dbent *e, const char *p, size_t n)
{
    int64_t v;

    if (e->enc == SET_ENC_INTSET) {
        intset *is = dbent_ptr(e);
        if (int_of(p, n, &v)) {
            if (!is_add(&is, v)) {
                return 0;
            }
            dbent_set_ptr(e, is);
            if (is_count(is) > (uint32_t)set_max_intset_entries)
                to_ht(e);
            return 1;
        }
        to_ht(e);
    }
    return sht_add(dbent_ptr(e), p, n);
}

int set_remove(dbent *e, const char *p, size_t n)
{
    int64_t v;

    if (e->enc == SET_ENC_INTSET) {
        intset *is = dbent_ptr(e);
        if (!int_of(p, n, &v) || !is_remove(&is, v))
            return 0;
        dbent_set_ptr(e, is);
        return 1;
    }
    return sht_remove(dbent_ptr(e), p, n);
}

int set_ismember(const dbent *e, const char *p, size_t n)
{
    int64_t v;

    if (e->enc == SET_ENC_INTSET)
        return int_of(p, n, &v) && is_find(dbent_ptr(e), v, NULL);
    return ht_find(&((set_ht *)dbent_ptr(e))->h, p, (uint32_t)n, hash_of(p, n)) != NULL;
}

uint64_t set_card(const dbent *e)
{
    if (e->enc == SET_ENC_INTSET)
        return is_count(dbent_ptr(e));
    return ht_count(&((set_ht *)dbent_ptr(e))->h);
}

int set_intset_width(const dbent *e)
{
    return e->enc == SET_ENC_INTSET ? (int)((const intset *)dbent_ptr(e))->width : 0;
}

const char *set_encoding(const dbent *e)
{
    return e->enc == SET_ENC_INTSET ? "intset" : "hashtable";
}

void set_iter_init(set_iter *it, const dbent *e)
{
    it->e = e;
    it->i = 0;
    it->tab = 0;
    it->node = NULL;
}

int set_iter_next(set_iter *it, set_elem *out)
{
    const ht *h;

    if (it->e->enc == SET_ENC_INTSET) {
        const intset *is = dbent_ptr(it->e);
        if (it->i >= is_count(is))
            return 0;
        elem_int(out, is_get(is, (uint32_t)it->i++));
        return 1;
    }
    h = &((set_ht *)dbent_ptr(it->e))->h;
    while (!it->node) {
        if (it->i >= h->size[it->tab]) {
            if (it->tab == 1 || !h->tab[1])
                return 0;
            it->tab = 1;
            it->i = 0;
            continue;
        }
        it->node = h->tab[it->tab][it->i++];
    }
    elem_node(out, it->node);
    it->node = ((ht_node *)it->node)->next;
    return 1;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

void set_random(const dbent *e, uint64_t *rng, set_elem *out)
{
    if (e->enc == SET_ENC_INTSET) {
        const intset *is = dbent_ptr(e);
        elem_int(out, is_get(is, (uint32_t)(rng_next(rng) % is_count(is))));
        return;
    }
    elem_node(out, ht_random(&((set_ht *)dbent_ptr(e))->h, rng));
}

typedef struct scan_ctx {
    void (*fn)(void *ctx, const set_elem *m);
    void *ctx;
    long n;
} scan_ctx;

static void scan_one(void *ctx, ht_node *n)
{
    scan_ctx *s = ctx;
    set_elem m;

    elem_node(&m, n);
    s->fn(s->ctx, &m);
    s->n++;
}

uint64_t set_scan(const dbent *e, uint64_t cursor, long count, void (*fn)(void *ctx, const set_elem *m), void *ctx)
{
    scan_ctx s = {fn, ctx, 0};
    long steps = count > LONG_MAX / 10 ? LONG_MAX : count * 10;

    if (e->enc == SET_ENC_INTSET) {
        set_iter it;
        set_elem m;
        set_iter_init(&it, e);
        while (set_iter_next(&it, &m))
            fn(ctx, &m);
        return 0;
    }
    do {
        cursor = ht_scan(&((set_ht *)dbent_ptr(e))->h, cursor, scan_one, &s);
    } while (cursor && --steps > 0 && s.n < count);
    return cursor;
}

void set_reencode_small(dbent *e)
{
    set_ht *s;
    intset *is;
    set_iter it;
    set_elem m;
    int64_t v = 0;

    if (e->enc != SET_ENC_HT || set_card(e) > (uint64_t)set_max_intset_entries)
        return;
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        if (!int_of(m.p, m.len, &v))
            return;
    is = is_new();
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m)) {
        int_of(m.p, m.len, &v);
        is_add(&is, v);
    }
    s = dbent_ptr(e);
    sht_free(s);
    dbent_set_ptr(e, is);
    e->enc = SET_ENC_INTSET;
}

/* ---- the set as a keyspace type ---- */

static void type_free_value(dbent *e)
{
    if (e->enc == SET_ENC_INTSET)
        is_free(dbent_ptr(e));
    else
        sht_free(dbent_ptr(e));
}

static size_t type_free_effort(const dbent *e)
{
    return e->enc == SET_ENC_INTSET ? 1 : ht_count(&((set_ht *)dbent_ptr(e))->h);
}

static int type_free_some(void *v, uint8_t enc, uint64_t *cursor, size_t max)
{
    if (enc == SET_ENC_INTSET) {
        is_free(v);
        return 1;
    }
    if (!ht_clear_some(&((set_ht *)v)->h, cursor, max, sht_free_member, NULL))
        return 0;
    xfree(v);
    return 1;
}

static void *type_dup_value(const dbent *e)
{
    set_ht *s;
    set_iter it;
    set_elem m;

    if (e->enc == SET_ENC_INTSET)
        return is_dup(dbent_ptr(e));
    s = sht_new();
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        sht_add(s, m.p, m.len);
    return s;
}

static size_t type_stored(const dbent *e)
{
    const set_ht *s;

    if (e->enc == SET_ENC_INTSET)
        return is_bytes(dbent_ptr(e));
    s = dbent_ptr(e);
    return xmalloc_size(s) + s->bytes + ht_buckets(&s->h) * sizeof(ht_node *);
}

static size_t type_logical(const dbent *e)
{
    set_iter it;
    set_elem m;
    size_t n = 0;

    if (e->enc == SET_ENC_HT)
        return ((const set_ht *)dbent_ptr(e))->logical;
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        n += m.len;
    return n;
}

/* SADD key members... in records of at most SET_REWRITE_BATCH members or
 * about SET_REWRITE_BYTES, with a pause between them; PEXPIREAT for a TTL. */
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    set_iter it;
    set_elem m;
    int open = 0, n = 0;
    size_t bytes = 0;

    (void)now, (void)why, (void)whylen;
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m)) {
        if (!open) {
            eo_begin(o, dbid);
            eo_str(o, "SADD");
            eo_bytes(o, dbent_key(e), dbent_klen(e));
            open = 1;
        }
        eo_bytes(o, m.p, m.len);
        bytes += m.len;
        if (++n == SET_REWRITE_BATCH || bytes >= SET_REWRITE_BYTES) {
            eo_end(o);
            eo_pause(o);
            open = n = 0;
            bytes = 0;
        }
    }
    if (open)
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

static const type_effect set_effects[] = {
    {NULL, NULL},
};

static void set_visit(const dbent *e, int (*fn)(void *ctx, const char *p, size_t n), void *ctx)
{
    set_iter it;
    set_elem m;

    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        if (fn(ctx, m.p, m.len))
            break;
}

static const type_elems set_elems = {
    .count = set_card,
    .has = set_ismember,
    .visit = set_visit,
};

static const type_def set_type = {
    .name = "set",
    .encoding = set_encoding,
    .free_value = type_free_value,
    .free_effort = type_free_effort,
    .free_some = type_free_some,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .rewrite = type_rewrite,
    .effects = set_effects,
    .elems = &set_elems,
};

void set_type_register(uint64_t seed)
{
    set_seed = seed;
    type_register(OBJ_SET, &set_type);
}
