/* fvht.h -- a hash table of (field, value) pairs: the large hash
 * ("hashtable" as OBJECT ENCODING names it).
 *
 * Why: past the compact encoding's limits a hash needs O(1) lookups. This is
 * ht.c (intrusive, incremental rehashing, reverse-binary SCAN) with a node that
 * holds the field and the value in one allocation: one malloc per field, no
 * separate strings.
 *
 * Ownership: the table owns its nodes; a node pointer is valid until the next
 * change of the table. Allocation goes through mem.h (aborts on failure).
 * No globals. */
#ifndef SP_FVHT_H
#define SP_FVHT_H

#include <stddef.h>
#include <stdint.h>

#include "ht.h"

typedef struct fv_node {
    ht_node node;  /* node.klen: bytes of the field */
    uint32_t vlen; /* bytes of the value */
    char data[];   /* the field, then the value */
} fv_node;

typedef struct fvht {
    ht h;
    size_t bytes;   /* usable bytes of the nodes */
    size_t logical; /* bytes of the fields and values (INFO's dataset figures, in O(1)) */
} fvht;

static inline const char *fv_field(const fv_node *n)
{
    return n->data;
}
static inline size_t fv_flen(const fv_node *n)
{
    return n->node.klen;
}
static inline const char *fv_value(const fv_node *n)
{
    return n->data + n->node.klen;
}
static inline size_t fv_vlen(const fv_node *n)
{
    return n->vlen;
}

/* An empty table (free with fvht_free). */
fvht *fvht_new(uint64_t seed);
/* Free the table and every node. fvht_free(NULL) does nothing. O(count). */
void fvht_free(fvht *t);
/* fvht_free in bounded steps (a large hash freed from the event loop): free up
 * to max nodes (max >= 1), resuming at *cursor (0 on the first call; t must not
 * be used otherwise meanwhile). Returns 1 when t is freed, else 0. */
int fvht_free_some(fvht *t, uint64_t *cursor, size_t max);
/* An independent copy of t. */
fvht *fvht_dup(const fvht *t);
static inline uint64_t fvht_count(const fvht *t)
{
    return ht_count(&t->h);
}
/* The node of field f, or NULL. */
fv_node *fvht_find(fvht *t, const char *f, size_t flen);
/* Set f to v: 1 if f was added, 0 if its value was replaced. */
int fvht_set(fvht *t, const char *f, size_t flen, const char *v, size_t vlen);
/* Remove f: 1 if it was there, else 0. */
int fvht_del(fvht *t, const char *f, size_t flen);
/* A random node (uniform bucket, then uniform in its chain), NULL if empty;
 * rng is the caller's non-zero xorshift64* state. */
fv_node *fvht_random(fvht *t, uint64_t *rng);
/* One SCAN step (ht_scan): fn on each node of the cursor's bucket(s); returns
 * the next cursor, 0 at the end. */
uint64_t fvht_scan(fvht *t, uint64_t cursor, void (*fn)(void *ctx, const fv_node *n), void *ctx);
/* fn on every node until it returns non-zero (returned); fn must not change t. */
int fvht_foreach(const fvht *t, int (*fn)(void *ctx, const fv_node *n), void *ctx);
/* Bytes of memory held (buckets, nodes, the table). O(1). */
size_t fvht_mem(const fvht *t);

#endif
