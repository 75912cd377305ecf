/* zsl.c -- the skiplist with spans and a member index (see zsl.h). */
#include "zset/zsl.h"

#include <string.h>

#include "mem.h"

static const char *node_key(const ht_node *h)
{
    return zsl_member((const zsl_node *)h);
}

static zsl_node *node_new(int level, const char *m, size_t len)
{
    zsl_node *n = xmalloc(sizeof(zsl_node) + (size_t)level * sizeof(struct zsl_link) + len);

    n->level = (uint32_t)level;
    n->hn.next = NULL;
    n->hn.klen = (uint32_t)len;
    if (len)
        memcpy((char *)&n->lv[level], m, len);
    return n;
}

zsl *zsl_new(uint64_t seed)
{
    zsl *z = xmalloc(sizeof(zsl));
    int i;

    z->header = node_new(ZSL_MAXLEVEL, NULL, 0);
    for (i = 0; i < ZSL_MAXLEVEL; i++) {
        z->header->lv[i].forward = NULL;
        z->header->lv[i].span = 0;
    }
    z->header->backward = NULL;
    z->header->score = 0;
    z->tail = NULL;
    z->length = 0;
    z->level = 1;
    z->bytes = 0;
    z->rng = seed ? seed : 0x9E3779B97F4A7C15ull;
    ht_init(&z->idx, node_key, seed);
    return z;
}

void zsl_free(zsl *z)
{
    zsl_node *n, *next;

    if (!z)
        return;
    for (n = zsl_first(z); n; n = next) {
        next = n->lv[0].forward;
        xfree(n);
    }
    xfree(z->header);
    ht_release(&z->idx);
    xfree(z);
}

int zsl_free_some(zsl *z, size_t max)
{
    zsl_node *n;

    ht_release(&z->idx); /* one array; the nodes it indexes are the list's */
    while ((n = z->header->lv[0].forward) != NULL) {
        if (max-- == 0)
            return 0;
        z->header->lv[0].forward = n->lv[0].forward;
        xfree(n);
    }
    xfree(z->header);
    xfree(z);
    return 1;
}

size_t zsl_bytes(const zsl *z)
{
    return xmalloc_size(z) + xmalloc_size(z->header) + z->bytes + ht_buckets(&z->idx) * sizeof(void *);
}

static int random_level(zsl *z)
{
    int level = 1;
    uint64_t r;

    z->rng ^= z->rng >> 12;
    z->rng ^= z->rng << 25;
    z->rng ^= z->rng >> 27;
    r = z->rng * 0x2545F4914F6CDD1Dull;
    while ((r & 3) == 0 && level < ZSL_MAXLEVEL) {
        level++;
        r >>= 2;
    }
    return level;
}

/* (s1, m1) before (s2, m2) in the set's order. */
static int before(double s1, const char *m1, size_t l1, double s2, const char *m2, size_t l2)
{
    int c;

    if (s1 != s2)
        return s1 < s2;
    c = memcmp(m1, m2, l1 < l2 ? l1 : l2);
    return c < 0 || (c == 0 && l1 < l2);
}

static int node_before(const zsl_node *a, double s, const char *m, size_t len)
{
    return before(a->score, zsl_member(a), zsl_mlen(a), s, m, len);
}

zsl_node *zsl_find(zsl *z, const char *m, size_t len)
{
    ht_node *h = ht_find(&z->idx, m, (uint32_t)len, (uint32_t)ht_hash(m, len, z->idx.seed));
    return (zsl_node *)h;
}

/* Link n (score set, levels allocated) into the list in its place. */
static void link_node(zsl *z, zsl_node *n)
{
    zsl_node *update[ZSL_MAXLEVEL], *x = z->header;
    size_t rank[ZSL_MAXLEVEL];
    const char *m = zsl_member(n);
    size_t len = zsl_mlen(n);
    int i, level = (int)n->level;

    for (i = z->level - 1; i >= 0; i--) {
        rank[i] = i == z->level - 1 ? 0 : rank[i + 1];
        while (x->lv[i].forward && node_before(x->lv[i].forward, n->score, m, len)) {
            rank[i] += x->lv[i].span;
            x = x->lv[i].forward;
        }
        update[i] = x;
    }
    if (level > z->level) {
        for (i = z->level; i < level; i++) {
            rank[i] = 0;
            update[i] = z->header;
            update[i]->lv[i].span = z->length;
        }
        z->level = level;
    }
    for (i = 0; i < level; i++) {
        n->lv[i].forward = update[i]->lv[i].forward;
        update[i]->lv[i].forward = n;
        n->lv[i].span = update[i]->lv[i].span - (rank[0] - rank[i]);
        update[i]->lv[i].span = rank[0] - rank[i] + 1;
    }
    for (i = level; i < z->level; i++)
        update[i]->lv[i].span++;
    n->backward = update[0] == z->header ? NULL : update[0];
    if (n->lv[0].forward)
        n->lv[0].forward->backward = n;
    else
        z->tail = n;
    z->length++;
}

/* Unlink n from the list (not the index). */
static void unlink_node(zsl *z, zsl_node *n)
{
    zsl_node *update[ZSL_MAXLEVEL], *x = z->header;
    const char *m = zsl_member(n);
    size_t len = zsl_mlen(n);
    int i;

    for (i = z->level - 1; i >= 0; i--) {
        while (x->lv[i].forward && x->lv[i].forward != n && node_before(x->lv[i].forward, n->score, m, len))
            x = x->lv[i].forward;
        update[i] = x;
    }
    for (i = 0; i < z->level; i++) {
        if (update[i]->lv[i].forward == n) {
            update[i]->lv[i].span += n->lv[i].span - 1;
            update[i]->lv[i].forward = n->lv[i].forward;
        } else {
            update[i]->lv[i].span--;
        }
    }
    if (n->lv[0].forward)
        n->lv[0].forward->backward = n->backward;
    else
        z->tail = n->backward;
    while (z->level > 1 && z->header->lv[z->level - 1].forward == NULL)
        z->level--;
    z->length--;
}

zsl_node *zsl_insert(zsl *z, const char *m, size_t len, double score)
{
    zsl_node *n = node_new(random_level(z), m, len);

    n->score = score;
    n->hn.hash = (uint32_t)ht_hash(m, len, z->idx.seed);
    link_node(z, n);
    ht_insert(&z->idx, &n->hn);
    z->bytes += xmalloc_size(n);
    return n;
}

void zsl_delete(zsl *z, zsl_node *n)
{
    unlink_node(z, n);
    ht_remove(&z->idx, zsl_member(n), n->hn.klen, n->hn.hash);
    z->bytes -= xmalloc_size(n);
    xfree(n);
}

void zsl_rescore(zsl *z, zsl_node *n, double score)
{
    /* In place when the node keeps its neighbours' order. */
    if ((!n->backward || n->backward->score < score) && (!n->lv[0].forward || n->lv[0].forward->score > score)) {
        n->score = score;
        return;
    }
    unlink_node(z, n);
    n->score = score;
    link_node(z, n);
}

zsl_node *zsl_at(const zsl *z, size_t rank)
{
    zsl_node *x = z->header;
    size_t traversed = 0, target = rank + 1;
    int i;

    for (i = z->level - 1; i >= 0; i--) {
        while (x->lv[i].forward && traversed + x->lv[i].span <= target) {
            traversed += x->lv[i].span;
            x = x->lv[i].forward;
        }
        if (traversed == target)
            return x;
    }
    return NULL;
}

size_t zsl_rank(const zsl *z, const zsl_node *n)
{
    zsl_node *x = z->header;
    const char *m = zsl_member(n);
    size_t len = zsl_mlen(n), rank = 0;
    int i;

    for (i = z->level - 1; i >= 0; i--) {
        while (x->lv[i].forward && (x->lv[i].forward == n || node_before(x->lv[i].forward, n->score, m, len))) {
            rank += x->lv[i].span;
            x = x->lv[i].forward;
        }
        if (x == n)
            return rank - 1;
    }
    return rank - 1;
}

size_t zsl_lower_bound(const zsl *z, zsl_pred pred, void *ctx, zsl_node **out)
{
    zsl_node *x = z->header;
    size_t rank = 0;
    int i;

    for (i = z->level - 1; i >= 0; i--) {
        while (x->lv[i].forward) {
            zsl_node *f = x->lv[i].forward;
            if (!pred(zsl_member(f), zsl_mlen(f), f->score, ctx))
                break;
            rank += x->lv[i].span;
            x = f;
        }
    }
    *out = x->lv[0].forward;
    return rank;
}
