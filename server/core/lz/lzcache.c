/* lzcache.c -- the LRU cache of decoded chunks (see lzcache.h).
 *
 * Why a module of its own: lzval.c is the compressed value (layout, index,
 * changes, loading), lzread.c reads it; the cache is neither. It is a plain
 * data structure with a narrow interface (find, claim, changed) that both use,
 * keyed by numbers they give it, so it can be tested alone: LRU order, what a
 * change forgets, what a full cache evicts.
 *
 * Slots are searched linearly: a cache holds a few slots (a handful per
 * connection), so a scan is cheaper than any index. Evicting takes the first
 * empty slot, else the one with the smallest stamp; the clock ticks once per
 * find hit or claim, so stamps are distinct. */
#include "lz/lzcache.h"
#include "mem.h"

#include <string.h>

struct lzcache {
    size_t nslots;
    uint64_t clock; /* ticks once per use */
    lzcache_slot slots[];
};

lzcache *lzcache_new(size_t slots)
{
    lzcache *c;

    if (slots == 0)
        slots = 1;
    c = xcalloc(1, sizeof(*c) + slots * sizeof(lzcache_slot));
    c->nslots = slots;
    return c;
}

void lzcache_free(lzcache *c)
{
    size_t k;

    if (!c)
        return;
    for (k = 0; k < c->nslots; k++)
        xfree(c->slots[k].buf);
    xfree(c);
}

size_t lzcache_bytes(const lzcache *c)
{
    size_t k, n;

    if (!c)
        return 0;
    n = xmalloc_size(c);
    for (k = 0; k < c->nslots; k++)
        if (c->slots[k].buf)
            n += xmalloc_size(c->slots[k].buf);
    return n;
}

lzcache_slot *lzcache_find(lzcache *c, uint64_t uid, size_t idx)
{
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        lzcache_slot *s = &c->slots[k];
        if (s->uid == uid && s->idx == idx) {
            s->stamp = ++c->clock;
            return s;
        }
    }
    return NULL;
}

lzcache_slot *lzcache_claim(lzcache *c, uint64_t uid, size_t idx, size_t bytes, size_t nsub)
{
    lzcache_slot *best = &c->slots[0];
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        lzcache_slot *s = &c->slots[k];
        if (!s->uid) {
            best = s;
            break;
        }
        if (s->stamp < best->stamp)
            best = s;
    }
    if (best->cap < bytes) {
        xfree(best->buf);
        best->buf = xmalloc(bytes);
        best->cap = bytes;
    }
    memset(best->have, 0, nsub * sizeof(best->have[0]));
    best->uid = uid;
    best->idx = idx;
    best->stamp = ++c->clock;
    return best;
}

void lzcache_remap(lzcache *c, uint64_t old_uid, uint64_t new_uid, size_t first, size_t last, long delta)
{
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        lzcache_slot *s = &c->slots[k];
        if (s->uid != old_uid)
            continue;
        if (first <= last && s->idx >= first && s->idx <= last) {
            s->uid = 0;
            s->stamp = 0;
            continue;
        }
        s->uid = new_uid;
        if (first <= last && s->idx > last)
            s->idx = (size_t)((long)s->idx + delta);
    }
}

void lzcache_forget(lzcache *c, uint64_t uid, size_t idx, size_t a, size_t b)
{
    lzcache_slot *s;
    size_t j;

    for (j = 0; j < c->nslots; j++) {
        s = &c->slots[j];
        if (s->uid == uid && s->idx == idx) {
            for (; a <= b && a < LZCACHE_SUB_MAX; a++)
                s->have[a] = 0;
            return;
        }
    }
}
