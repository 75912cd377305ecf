/* zsl.h -- a large sorted set: a skiplist ordered by (score, member) whose
 * links carry spans, plus a hash index from member to node.
 *
 * Why: a sorted set past a few hundred members needs every operation in
 * O(log n): insert, delete and rescore a member, find the rank of a member and
 * the member of a rank (the spans: each link counts the nodes it skips), and
 * find the first member of a score or lexicographic range. The index answers
 * "the score of this member" in O(1), and a node is both the list's node and
 * the index's entry (ht.h is intrusive), with the member's bytes inside it: one
 * allocation per member.
 *
 * Levels are drawn with p = 1/4 up to ZSL_MAXLEVEL, from the set's own
 * xorshift state. Nodes are stable: a rescore moves a node within the list
 * without reallocating it. Ranks are 0-based.
 *
 * Invariants: nodes sorted by (score, member bytes), no two equal members, no
 * NaN score; the index holds exactly the list's nodes; length is their number. */
#ifndef SP_ZSL_H
#define SP_ZSL_H

#include <stddef.h>
#include <stdint.h>

#include "ht.h"

#define ZSL_MAXLEVEL 32

typedef struct zsl_node {
    ht_node hn; /* the index's link; hn.klen is the member's length */
    double score;
    struct zsl_node *backward; /* NULL for the first node */
    uint32_t level;            /* links in lv */
    struct zsl_link {
        struct zsl_node *forward;
        size_t span; /* nodes from this one to forward (to the end if NULL) */
    } lv[];          /* then the member's bytes */
} zsl_node;

typedef struct zsl {
    zsl_node *header; /* ZSL_MAXLEVEL links, no member */
    zsl_node *tail;
    size_t length; /* nodes */
    int level;     /* highest level in use */
    size_t bytes;  /* bytes of the nodes (usable sizes) */
    uint64_t rng;  /* xorshift64* state */
    ht idx;        /* member -> node */
} zsl;

typedef int (*zsl_pred)(const char *m, size_t len, double score, void *ctx);

static inline const char *zsl_member(const zsl_node *n)
{
    return (const char *)&n->lv[n->level];
}
static inline size_t zsl_mlen(const zsl_node *n)
{
    return n->hn.klen;
}
static inline zsl_node *zsl_first(const zsl *z)
{
    return z->header->lv[0].forward;
}
static inline zsl_node *zsl_last(const zsl *z)
{
    return z->tail;
}
static inline zsl_node *zsl_next(const zsl_node *n)
{
    return n->lv[0].forward;
}
static inline zsl_node *zsl_prev(const zsl_node *n)
{
    return n->backward;
}
static inline size_t zsl_count(const zsl *z)
{
    return z->length;
}

/* An empty set (seed: the index's hash seed and the level draws). Free with
 * zsl_free (NULL does nothing): O(n). */
zsl *zsl_new(uint64_t seed);
void zsl_free(zsl *z);
/* zsl_free in bounded steps (a large sorted set freed from the event loop):
 * free up to max nodes (max >= 1) from the front; z must not be used otherwise
 * from the first call on (its index is released at once). Returns 1 when z is
 * freed, else 0: call again. */
int zsl_free_some(zsl *z, size_t max);
/* Bytes of memory the set holds (nodes, index, header). */
size_t zsl_bytes(const zsl *z);

/* The node of member m, or NULL. */
zsl_node *zsl_find(zsl *z, const char *m, size_t len);
/* Insert member m (not present) with score (not NaN); returns its node. */
zsl_node *zsl_insert(zsl *z, const char *m, size_t len, double score);
/* Remove n from the set and free it. */
void zsl_delete(zsl *z, zsl_node *n);
/* Give n a new score (not NaN), moving it to its place. */
void zsl_rescore(zsl *z, zsl_node *n, double score);
/* The node of rank (< length). */
zsl_node *zsl_at(const zsl *z, size_t rank);
/* The rank of node n. */
size_t zsl_rank(const zsl *z, const zsl_node *n);
/* The rank of the first node where pred (true on a prefix of the order) is
 * false (length if none), and the node in *out (NULL if none). */
size_t zsl_lower_bound(const zsl *z, zsl_pred pred, void *ctx, zsl_node **out);

#endif
