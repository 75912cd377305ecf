/* fvht.c -- field/value hash table on ht.c; see fvht.h. */
#include "fvht.h"

#include <string.h>

#include "mem.h"

static const char *fv_keyof(const ht_node *n)
{
    return ((const fv_node *)n)->data;
}

static fv_node *node_new(const char *f, size_t flen, const char *v, size_t vlen, uint32_t hash)
{
    fv_node *n = xmalloc(sizeof(fv_node) + flen + vlen);
    n->node.next = NULL;
    n->node.hash = hash;
    n->node.klen = (uint32_t)flen;
    n->vlen = (uint32_t)vlen;
    memcpy(n->data, f, flen);
    memcpy(n->data + flen, v, vlen);
    return n;
}

fvht *fvht_new(uint64_t seed)
{
    fvht *t = xmalloc(sizeof(*t));
    ht_init(&t->h, fv_keyof, seed);
    t->bytes = 0;
    t->logical = 0;
    return t;
}

static void free_node(void *ctx, ht_node *n)
{
    (void)ctx;
    xfree(n);
}

void fvht_free(fvht *t)
{
    if (!t)
        return;
    ht_clear(&t->h, free_node, NULL);
    xfree(t);
}

int fvht_free_some(fvht *t, uint64_t *cursor, size_t max)
{
    if (!ht_clear_some(&t->h, cursor, max, free_node, NULL))
        return 0;
    xfree(t);
    return 1;
}

static int dup_one(void *ctx, ht_node *hn)
{
    fvht *d = ctx;
    const fv_node *n = (const fv_node *)hn;
    fv_node *c = node_new(fv_field(n), fv_flen(n), fv_value(n), fv_vlen(n), n->node.hash);
    ht_insert(&d->h, &c->node);
    d->bytes += xmalloc_size(c);
    d->logical += fv_flen(c) + fv_vlen(c);
    return 0;
}

fvht *fvht_dup(const fvht *t)
{
    fvht *d = fvht_new(t->h.seed);
    ht_foreach(&t->h, dup_one, d);
    return d;
}

static uint32_t hash_of(const fvht *t, const char *f, size_t flen)
{
    return (uint32_t)ht_hash(f, flen, t->h.seed);
}

fv_node *fvht_find(fvht *t, const char *f, size_t flen)
{
    return (fv_node *)ht_find(&t->h, f, (uint32_t)flen, hash_of(t, f, flen));
}

int fvht_set(fvht *t, const char *f, size_t flen, const char *v, size_t vlen)
{
    uint32_t h = hash_of(t, f, flen);
    fv_node *n = (fv_node *)ht_find(&t->h, f, (uint32_t)flen, h), *c;

    if (n)
        t->logical -= n->vlen;
    else
        t->logical += flen;
    t->logical += vlen;
    if (n && xmalloc_size(n) >= sizeof(fv_node) + flen + vlen) {
        memcpy(n->data + flen, v, vlen);
        n->vlen = (uint32_t)vlen;
        return 0;
    }
    c = node_new(f, flen, v, vlen, h);
    t->bytes += xmalloc_size(c);
    if (n) {
        ht_replace(&t->h, &n->node, &c->node);
        t->bytes -= xmalloc_size(n);
        xfree(n);
        return 0;
    }
    ht_insert(&t->h, &c->node);
    return 1;
}

int fvht_del(fvht *t, const char *f, size_t flen)
{
    ht_node *n = ht_remove(&t->h, f, (uint32_t)flen, hash_of(t, f, flen));
    if (!n)
        return 0;
    t->bytes -= xmalloc_size(n);
    t->logical -= n->klen + ((fv_node *)n)->vlen;
    xfree(n);
    return 1;
}

fv_node *fvht_random(fvht *t, uint64_t *rng)
{
    return (fv_node *)ht_random(&t->h, rng);
}

typedef struct scan_ctx {
    void (*fn)(void *ctx, const fv_node *n);
    void *ctx;
} scan_ctx;

static void scan_one(void *ctx, ht_node *n)
{
    scan_ctx *s = ctx;
    s->fn(s->ctx, (const fv_node *)n);
}

uint64_t fvht_scan(fvht *t, uint64_t cursor, void (*fn)(void *ctx, const fv_node *n), void *ctx)
{
    scan_ctx s = {fn, ctx};
    return ht_scan(&t->h, cursor, scan_one, &s);
}

typedef struct each_ctx {
    int (*fn)(void *ctx, const fv_node *n);
    void *ctx;
} each_ctx;

static int each_one(void *ctx, ht_node *n)
{
    each_ctx *s = ctx;
    return s->fn(s->ctx, (const fv_node *)n);
}

int fvht_foreach(const fvht *t, int (*fn)(void *ctx, const fv_node *n), void *ctx)
{
    each_ctx s = {fn, ctx};
    return ht_foreach(&t->h, each_one, &s);
}

size_t fvht_mem(const fvht *t)
{
    return xmalloc_size(t) + ht_buckets(&t->h) * sizeof(ht_node *) + t->bytes;
}
