/* ht.c -- intrusive chained hash table with incremental rehashing (see ht.h).
 *
 * Why: the keyspace's index must answer in O(1) and never pause for a whole
 * table rehash, so a resize allocates the new bucket array and then moves one
 * bucket of the old array per operation (or per cron slice) until it is empty.
 *
 * Invariants:
 *   - size[i] is 0 or a power of two; tab[1] != NULL iff rehash_idx != -1;
 *   - while rehashing, buckets [0, rehash_idx) of tab[0] are empty, and new
 *     nodes go to tab[1], so a node is in tab[0] at (hash & mask0) or in tab[1]
 *     at (hash & mask1), never both;
 *   - used[i] counts the nodes linked in tab[i];
 *   - a node's bucket depends only on its stored 32-bit hash, so the table
 *     never calls keyof except to confirm a match (compact nodes: their hash
 *     is asked of hashof, which recomputes it, only when a node moves to
 *     another array or is replaced).
 *
 * SCAN uses the reverse-binary cursor: the cursor's bits are read from the top
 * down, so with a mask m the cursor names bucket (cursor & m) and moving to the
 * next cursor adds one at the highest bit of m. When the table doubles, bucket
 * b splits into b and b | (old size), which come right after b in that order,
 * and when it halves two buckets fold into one already ahead of the cursor;
 * either way the buckets already visited stay behind the cursor. */
#include "ht.h"

#include "mem.h"

#include <string.h>
#include <time.h>
#include <xxhash.h>

#define HT_MAX_SIZE ((uint64_t)1 << 32)

uint64_t ht_hash(const void *key, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(key, len, seed);
}

void ht_init(ht *h, ht_keyfn keyof, uint64_t seed)
{
    h->tab[0] = h->tab[1] = NULL;
    h->size[0] = h->size[1] = 0;
    h->used[0] = h->used[1] = 0;
    h->rehash_idx = -1;
    h->keyof = keyof;
    h->hashof = NULL;
    h->eq = NULL;
    h->seed = seed;
}

void ht_init_compact(ht *h, ht_hashfn hashof, ht_eqfn eq, uint64_t seed)
{
    ht_init(h, NULL, seed);
    h->hashof = hashof;
    h->eq = eq;
}

void ht_release(ht *h)
{
    xfree(h->tab[0]);
    xfree(h->tab[1]);
    h->tab[0] = h->tab[1] = NULL;
    h->size[0] = h->size[1] = 0;
    h->used[0] = h->used[1] = 0;
    h->rehash_idx = -1;
}

/* The node's 32-bit hash: stored, or recomputed for compact nodes. */
static inline uint32_t ht_node_hash(const ht *h, const ht_node *n)
{
    return h->hashof ? h->hashof(n, h->seed) : n->hash;
}

void ht_clear(ht *h, void (*freefn)(void *ctx, ht_node *n), void *ctx)
{
    for (int t = 0; t < 2; t++) {
        for (uint64_t i = 0; i < h->size[t]; i++) {
            ht_node *n = h->tab[t][i];
            while (n) {
                ht_node *next = n->next;
                if (freefn)
                    freefn(ctx, n);
                n = next;
            }
        }
    }
    ht_release(h);
}

int ht_clear_some(ht *h, uint64_t *cursor, size_t max, void (*freefn)(void *ctx, ht_node *n), void *ctx)
{
    size_t empty = max * 10 + 1;

    while (*cursor < h->size[0] + h->size[1]) {
        int t = *cursor < h->size[0] ? 0 : 1;
        ht_node **b = &h->tab[t][t ? *cursor - h->size[0] : *cursor];

        if (!*b) {
            (*cursor)++;
            if (--empty == 0)
                return 0;
            continue;
        }
        while (*b) {
            ht_node *n = *b;
            if (max == 0)
                return 0;
            *b = n->next;
            h->used[t]--;
            if (freefn)
                freefn(ctx, n);
            max--;
        }
        (*cursor)++;
    }
    ht_release(h);
    return 1;
}

/* Smallest power of two >= n, within [HT_MIN_SIZE, HT_MAX_SIZE]. */
static uint64_t ht_pow2_at_least(uint64_t n)
{
    uint64_t s = HT_MIN_SIZE;

    while (s < n && s < HT_MAX_SIZE)
        s <<= 1;
    return s;
}

/* Start moving the nodes to a new array of size buckets; the first array is
 * simply allocated. Called only when not rehashing. */
static void ht_resize_to(ht *h, uint64_t size)
{
    ht_node **tab = xcalloc(size, sizeof(*tab));

    if (!h->tab[0]) {
        h->tab[0] = tab;
        h->size[0] = size;
        return;
    }
    h->tab[1] = tab;
    h->size[1] = size;
    h->used[1] = 0;
    h->rehash_idx = 0;
}

/* Start a resize if the load calls for one: grow when used >= buckets, shrink
 * when used < buckets/8. Called only when not rehashing, after each insert's
 * and remove's change and when a rehash completes (the load may have moved
 * past a threshold while it ran). */
static void ht_resize_if_needed(ht *h)
{
    uint64_t used = h->used[0], size = h->size[0];

    if (used >= size && size < HT_MAX_SIZE)
        ht_resize_to(h, ht_pow2_at_least(used + 1));
    else if (size > HT_MIN_SIZE && used < size / 8)
        ht_resize_to(h, ht_pow2_at_least(used));
}

/* Move up to n non-empty buckets of tab[0] to tab[1], visiting at most 10*n
 * empty ones, so the work is bounded whatever the table's state. */
int ht_rehash_step(ht *h, int n)
{
    uint64_t empty_visits = (uint64_t)n * 10;
    uint64_t mask1;

    if (h->rehash_idx == -1)
        return 0;
    mask1 = h->size[1] - 1;
    while (n-- > 0 && h->used[0] != 0) {
        ht_node *e;

        while (!h->tab[0][h->rehash_idx]) {
            h->rehash_idx++;
            if (--empty_visits == 0)
                return 1;
        }
        e = h->tab[0][h->rehash_idx];
        while (e) {
            ht_node *next = e->next;
            uint64_t idx = ht_node_hash(h, e) & mask1;
            e->next = h->tab[1][idx];
            h->tab[1][idx] = e;
            h->used[0]--;
            h->used[1]++;
            e = next;
        }
        h->tab[0][h->rehash_idx] = NULL;
        h->rehash_idx++;
    }
    if (h->used[0] != 0)
        return 1;
    xfree(h->tab[0]);
    h->tab[0] = h->tab[1];
    h->size[0] = h->size[1];
    h->used[0] = h->used[1];
    h->tab[1] = NULL;
    h->size[1] = 0;
    h->used[1] = 0;
    h->rehash_idx = -1;
    ht_resize_if_needed(h);
    return h->rehash_idx != -1;
}

int ht_rehash_ms(ht *h, int ms)
{
    struct timespec t0, t;
    int64_t limit_ns = (int64_t)ms * 1000000;
    int steps = 0;

    if (h->rehash_idx == -1)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        steps++;
        if (!ht_rehash_step(h, 100))
            break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((int64_t)(t.tv_sec - t0.tv_sec) * 1000000000 + (t.tv_nsec - t0.tv_nsec) >= limit_ns)
            break;
    }
    return steps;
}

static inline int ht_match(const ht *h, const ht_node *n, const char *key, uint32_t klen,
                           uint32_t hash)
{
    if (h->eq)
        return h->eq(n, key, klen, hash);
    return n->hash == hash && n->klen == klen && memcmp(h->keyof(n), key, klen) == 0;
}

ht_node *ht_find(ht *h, const char *key, uint32_t klen, uint32_t hash)
{
    ht_node *n;

    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    if (h->used[0] + h->used[1] == 0)
        return NULL;
    for (n = h->tab[0][hash & (h->size[0] - 1)]; n; n = n->next)
        if (ht_match(h, n, key, klen, hash))
            return n;
    if (h->rehash_idx == -1)
        return NULL;
    for (n = h->tab[1][hash & (h->size[1] - 1)]; n; n = n->next)
        if (ht_match(h, n, key, klen, hash))
            return n;
    return NULL;
}

void ht_insert(ht *h, ht_node *n)
{
    ht_insert_hashed(h, n, ht_node_hash(h, n));
}

void ht_insert_hashed(ht *h, ht_node *n, uint32_t hash)
{
    int t;
    uint64_t idx;

    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    if (!h->tab[0])
        ht_resize_to(h, HT_MIN_SIZE);
    else if (h->rehash_idx == -1)
        ht_resize_if_needed(h);
    t = h->rehash_idx != -1;
    idx = hash & (h->size[t] - 1);
    n->next = h->tab[t][idx];
    h->tab[t][idx] = n;
    h->used[t]++;
}

/* Pointer to the link that points at the node with this key in array t, or
 * NULL if the key is not there. */
static ht_node **ht_link_of(ht *h, int t, const char *key, uint32_t klen, uint32_t hash)
{
    ht_node **pp = &h->tab[t][hash & (h->size[t] - 1)];

    for (; *pp; pp = &(*pp)->next)
        if (ht_match(h, *pp, key, klen, hash))
            return pp;
    return NULL;
}

ht_node *ht_remove(ht *h, const char *key, uint32_t klen, uint32_t hash)
{
    ht_node **pp = NULL;
    ht_node *n;
    int t;

    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    if (h->used[0] + h->used[1] == 0)
        return NULL;
    for (t = 0; t < 2; t++) {
        pp = ht_link_of(h, t, key, klen, hash);
        if (pp || h->rehash_idx == -1)
            break;
    }
    if (!pp)
        return NULL;
    n = *pp;
    *pp = n->next;
    n->next = NULL;
    h->used[t]--;
    if (h->rehash_idx == -1)
        ht_resize_if_needed(h);
    return n;
}

void ht_remove_node(ht *h, ht_node *n, uint32_t hash)
{
    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    for (int t = 0; t < 2 && h->size[t]; t++) {
        ht_node **pp = &h->tab[t][hash & (h->size[t] - 1)];
        for (; *pp; pp = &(*pp)->next) {
            if (*pp == n) {
                *pp = n->next;
                n->next = NULL;
                h->used[t]--;
                if (h->rehash_idx == -1)
                    ht_resize_if_needed(h);
                return;
            }
        }
    }
}

void ht_replace(ht *h, ht_node *old, ht_node *repl)
{
    ht_replace_hashed(h, old, repl, ht_node_hash(h, old));
}

void ht_replace_hashed(ht *h, ht_node *old, ht_node *repl, uint32_t hash)
{
    for (int t = 0; t < 2 && h->size[t]; t++) {
        ht_node **pp = &h->tab[t][hash & (h->size[t] - 1)];
        for (; *pp; pp = &(*pp)->next) {
            if (*pp == old) {
                repl->next = old->next;
                *pp = repl;
                old->next = NULL;
                return;
            }
        }
    }
}

static inline uint64_t ht_rev64(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(v);
}

/* The cursor after v for a table of mask m: set the bits above m so that the
 * carry of the reversed increment runs through them, add one to the reversed
 * value, and reverse back. The result is 0 after the last bucket. */
static inline uint64_t ht_cursor_next(uint64_t v, uint64_t m)
{
    v |= ~m;
    return ht_rev64(ht_rev64(v) + 1);
}

static inline void ht_scan_bucket(ht_node *n, void (*fn)(void *ctx, ht_node *n), void *ctx)
{
    while (n) {
        ht_node *next = n->next;
        fn(ctx, n);
        n = next;
    }
}

/* One SCAN step. Not rehashing: visit bucket (cursor & mask). Rehashing: visit
 * the smaller array's bucket (cursor & m_small), then every bucket of the larger
 * array whose low bits equal it -- the cursors that differ from this one only in
 * the bits of (m_large ^ m_small) -- and return the cursor after the last one,
 * which has moved on to the next bucket of the smaller array. */
uint64_t ht_scan(ht *h, uint64_t cursor, void (*fn)(void *ctx, ht_node *n), void *ctx)
{
    uint64_t m0, m1;
    int small, large;

    if (h->used[0] + h->used[1] == 0)
        return 0;
    if (h->rehash_idx == -1) {
        m0 = h->size[0] - 1;
        ht_scan_bucket(h->tab[0][cursor & m0], fn, ctx);
        return ht_cursor_next(cursor, m0);
    }
    small = h->size[0] > h->size[1];
    large = !small;
    m0 = h->size[small] - 1;
    m1 = h->size[large] - 1;
    ht_scan_bucket(h->tab[small][cursor & m0], fn, ctx);
    do {
        ht_scan_bucket(h->tab[large][cursor & m1], fn, ctx);
        cursor = ht_cursor_next(cursor, m1);
    } while (cursor & (m0 ^ m1));
    return cursor;
}

static inline uint64_t ht_rng_next(uint64_t *rng)
{
    uint64_t x = *rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Bucket number i of the two arrays seen end to end. */
static inline ht_node *ht_bucket_at(const ht *h, uint64_t i)
{
    return i < h->size[0] ? h->tab[0][i] : h->tab[1][i - h->size[0]];
}

/* Probes random buckets (skipping the already moved part of tab[0]); after 64
 * empty probes it walks on from a random bucket instead, so a table left sparse
 * by deletions during a shrink cannot make it spin. */
ht_node *ht_random(ht *h, uint64_t *rng)
{
    uint64_t first, span, i;
    ht_node *bucket = NULL, *n;
    uint64_t len = 0;

    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    if (h->used[0] + h->used[1] == 0)
        return NULL;
    first = h->rehash_idx == -1 ? 0 : (uint64_t)h->rehash_idx;
    span = h->size[0] + h->size[1] - first;
    for (int tries = 0; tries < 64 && !bucket; tries++)
        bucket = ht_bucket_at(h, first + ht_rng_next(rng) % span);
    if (!bucket) {
        i = ht_rng_next(rng) % span;
        while (!(bucket = ht_bucket_at(h, first + i)))
            i = i + 1 == span ? 0 : i + 1;
    }
    for (n = bucket; n; n = n->next)
        len++;
    for (i = ht_rng_next(rng) % len, n = bucket; i; i--)
        n = n->next;
    return n;
}

int ht_foreach(const ht *h, int (*fn)(void *ctx, ht_node *n), void *ctx)
{
    for (int t = 0; t < 2; t++) {
        for (uint64_t i = 0; i < h->size[t]; i++) {
            ht_node *n = h->tab[t][i];
            while (n) {
                ht_node *next = n->next;
                int rc = fn(ctx, n);
                if (rc)
                    return rc;
                n = next;
            }
        }
    }
    return 0;
}
