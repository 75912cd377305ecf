/* ht.h -- an intrusive chained hash table with incremental rehashing.
 *
 * Why: the keyspace must never stop for a whole-table rehash. The table keeps
 * two bucket arrays while it resizes and moves a few buckets on every insert,
 * find and remove (and on ht_rehash_ms from the server's cron), so no single
 * operation does work proportional to the table.
 *
 * Intrusive: callers embed an ht_node at the start of their objects and own
 * their memory; the table only links them. The node carries the low 32 bits of
 * the key's 64-bit hash and the key's length; the key bytes live wherever the
 * caller keeps them, found through the keyof callback given to ht_init. Keys are
 * binary-safe.
 *
 * Compact nodes (ht_init_compact): a caller whose objects are too small to
 * spare the node's hash and klen (the keyspace's entries) uses only node.next
 * and keeps the rest of the 16 bytes for itself; the table then asks its
 * callbacks for a node's hash (recomputed on rehash and on ht_replace) and
 * whether a node holds a key, and never reads node.hash or node.klen.
 *
 * Resizing: grows (x2) when used >= buckets; shrinks to the smallest power of two
 * >= used when used < buckets/8 (never below HT_MIN_SIZE). Hash values are 32
 * bits, so the bucket count is capped at 2^32.
 *
 * SCAN: ht_scan visits buckets in reverse-binary cursor order over both arrays,
 * so every node present for the whole iteration is visited at least once even
 * if the table grows or shrinks between calls (nodes may be visited twice).
 *
 * No globals. Bucket arrays come from the accounted allocator (mem.h). */
#ifndef SP_HT_H
#define SP_HT_H

#include <stddef.h>
#include <stdint.h>

#define HT_MIN_SIZE 4

typedef struct ht_node {
    struct ht_node *next; /* next node in the same bucket */
    uint32_t hash;        /* low 32 bits of ht_hash(key) */
    uint32_t klen;        /* bytes of key */
} ht_node;

/* Return a pointer to the node's key bytes (klen of them). */
typedef const char *(*ht_keyfn)(const ht_node *n);
/* Compact nodes: the low 32 bits of ht_hash(key of n, seed). */
typedef uint32_t (*ht_hashfn)(const ht_node *n, uint64_t seed);
/* Compact nodes: 1 if n holds key[0..klen), whose hash is hash, else 0. */
typedef int (*ht_eqfn)(const ht_node *n, const char *key, uint32_t klen, uint32_t hash);

typedef struct ht {
    ht_node **tab[2];   /* tab[1] is non-NULL only while rehashing */
    uint64_t size[2];   /* buckets of each array (power of two, 0 if none) */
    uint64_t used[2];   /* nodes in each array */
    int64_t rehash_idx; /* next bucket of tab[0] to move; -1 when not rehashing */
    ht_keyfn keyof;     /* NULL for compact nodes */
    ht_hashfn hashof;   /* compact nodes only, else NULL */
    ht_eqfn eq;         /* compact nodes only, else NULL */
    uint64_t seed;      /* hash seed of this table */
} ht;

/* 64-bit hash of len bytes at key with seed (XXH3 from libxxhash). */
uint64_t ht_hash(const void *key, size_t len, uint64_t seed);

/* Initialise an empty table (allocates nothing until the first insert). */
void ht_init(ht *h, ht_keyfn keyof, uint64_t seed);

/* Initialise an empty table of compact nodes (see the top of the file). */
void ht_init_compact(ht *h, ht_hashfn hashof, ht_eqfn eq, uint64_t seed);

/* Free the bucket arrays (not the nodes) and make the table empty. Callers that
 * own nodes remove or free them first (see ht_clear). */
void ht_release(ht *h);

/* Unlink every node, calling freefn(ctx, node) on each (freefn may free it),
 * then release the bucket arrays. O(size): used for FLUSHDB and shutdown. */
void ht_clear(ht *h, void (*freefn)(void *ctx, ht_node *n), void *ctx);

/* ht_clear in bounded steps, for a table nobody uses any more (a large value
 * being freed from the event loop): unlink up to max nodes (max >= 1), calling
 * freefn(ctx, node) on each, and visit at most 10*max + 1 empty buckets,
 * resuming at *cursor (0 on the first call; the table must not change between
 * calls). Returns 1 when every node is gone and the bucket arrays are released
 * (as ht_clear), else 0: call again. */
int ht_clear_some(ht *h, uint64_t *cursor, size_t max, void (*freefn)(void *ctx, ht_node *n), void *ctx);

/* Number of nodes. */
static inline uint64_t ht_count(const ht *h) { return h->used[0] + h->used[1]; }

/* Total buckets of both arrays (for INFO and tests). */
static inline uint64_t ht_buckets(const ht *h) { return h->size[0] + h->size[1]; }

static inline int ht_is_rehashing(const ht *h) { return h->rehash_idx != -1; }

/* The node whose key equals key[0..klen), or NULL. hash is the low 32 bits of
 * ht_hash(key, klen, h->seed). Performs one rehash step if rehashing. */
ht_node *ht_find(ht *h, const char *key, uint32_t klen, uint32_t hash);

/* Link node n, whose hash and klen are set and whose key is not in the table
 * (the caller checked with ht_find). May start a resize. */
void ht_insert(ht *h, ht_node *n);
/* As ht_insert, with the node's hash given (compact nodes). */
void ht_insert_hashed(ht *h, ht_node *n, uint32_t hash);

/* Unlink and return the node with this key, or NULL if absent. The node's memory
 * is still the caller's. May start a shrink. */
ht_node *ht_remove(ht *h, const char *key, uint32_t klen, uint32_t hash);

/* Unlink node n, which is linked and whose hash is hash (found by address:
 * no key comparison). May start a shrink. */
void ht_remove_node(ht *h, ht_node *n, uint32_t hash);

/* Put node repl (same key, same hash and klen) in the place of node old, which is
 * linked; old is unlinked. For callers that reallocate an object. */
void ht_replace(ht *h, ht_node *old, ht_node *repl);
/* As ht_replace, with the node's hash given (compact nodes). */
void ht_replace_hashed(ht *h, ht_node *old, ht_node *repl, uint32_t hash);

/* Move up to n buckets of the rehash (visiting at most 10*n empty buckets).
 * Returns 1 if rehashing is still in progress, 0 if done. */
int ht_rehash_step(ht *h, int n);

/* Rehash in steps of 100 buckets for about ms milliseconds. Returns the number of
 * steps done. */
int ht_rehash_ms(ht *h, int ms);

/* ht_find for compact nodes with the caller's eq (normally a constant, so that
 * the compiler inlines it and a lookup makes no call per node): the same steps
 * as ht_find (one rehash step if rehashing, then both arrays). */
static inline __attribute__((always_inline)) ht_node *ht_find_eq(ht *h, const char *key, uint32_t klen, uint32_t hash,
                                                                 ht_eqfn eq)
{
    ht_node *n;

    if (h->rehash_idx != -1)
        ht_rehash_step(h, 1);
    if (h->used[0] + h->used[1] == 0)
        return NULL;
    for (n = h->tab[0][hash & (h->size[0] - 1)]; n; n = n->next)
        if (eq(n, key, klen, hash))
            return n;
    if (h->rehash_idx == -1)
        return NULL;
    for (n = h->tab[1][hash & (h->size[1] - 1)]; n; n = n->next)
        if (eq(n, key, klen, hash))
            return n;
    return NULL;
}

/* One SCAN step: call fn(ctx, node) for each node of the bucket(s) the cursor
 * names (in both arrays while rehashing) and return the next cursor, 0 when the
 * iteration is complete. Start with cursor 0. fn must not modify the table. */
uint64_t ht_scan(ht *h, uint64_t cursor, void (*fn)(void *ctx, ht_node *n), void *ctx);

/* A uniformly chosen bucket's random node (fair enough for RANDOMKEY), or NULL if
 * the table is empty. rng is the caller's xorshift64* state (non-zero). */
ht_node *ht_random(ht *h, uint64_t *rng);

/* Call fn(ctx, node) for every node; stops early if fn returns non-zero, and
 * returns that value (0 if it visited everything). fn must not modify the table. */
int ht_foreach(const ht *h, int (*fn)(void *ctx, ht_node *n), void *ctx);

#endif
