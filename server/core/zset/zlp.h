/* zlp.h -- a compact sorted set: (member, score) pairs in one contiguous buffer,
 * ordered by score, then by member bytes.
 *
 * Why: most sorted sets are small (a queue's few due tasks, a leaderboard's top
 * ten), and for them a skiplist's nodes and hash index cost several times the
 * data. Here a pair is its member, its score and two length bytes, with no
 * pointer; every operation scans, which for the sizes this encoding is kept to
 * (zset-max-listpack-entries, 128 by default) is faster than chasing pointers.
 *
 * An entry is [len][member bytes][score: 8 bytes, a double][len]: the length
 * written before and after the member (one byte below 255, else 0xFF and four
 * bytes), so the buffer can be walked both ways. Positions are byte offsets of
 * entries; ZLP_END is "no entry". Any insert or delete invalidates positions
 * after it, and an insert may move the whole buffer (it returns the new one).
 *
 * Invariants: entries are sorted by (score, member) with no two equal members;
 * no score is NaN; n is the number of entries, used the bytes they take. */
#ifndef SP_ZLP_H
#define SP_ZLP_H

#include <stddef.h>
#include <stdint.h>

#define ZLP_END ((size_t)-1)

typedef struct zlp {
    uint32_t n;    /* entries */
    uint32_t used; /* bytes of buf in use */
    uint32_t cap;  /* bytes of buf */
    char buf[];
} zlp;

/* A predicate over entries that is true on a prefix of the order (score < x,
 * member < y): lower-bound searches return the first entry where it is false. */
typedef int (*zlp_pred)(const char *m, size_t len, double score, void *ctx);

/* An empty set; free with zlp_free (NULL does nothing). */
zlp *zlp_new(void);
void zlp_free(zlp *z);
/* An independent copy. */
zlp *zlp_dup(const zlp *z);
static inline size_t zlp_count(const zlp *z)
{
    return z->n;
}
/* Bytes of memory the set holds. */
size_t zlp_bytes(const zlp *z);

/* Walking: the first / last entry, the one after / before off (ZLP_END past the ends). */
size_t zlp_first(const zlp *z);
size_t zlp_last(const zlp *z);
size_t zlp_next(const zlp *z, size_t off);
size_t zlp_prev(const zlp *z, size_t off);
/* The entry at off: its member (len bytes, in the buffer: valid until the next
 * change) and its score. */
const char *zlp_get(const zlp *z, size_t off, size_t *len, double *score);

/* The entry of member m, or ZLP_END; with rank, also its 0-based rank. */
size_t zlp_find(const zlp *z, const char *m, size_t len, size_t *rank);
/* The entry of rank (0-based, < count). */
size_t zlp_at(const zlp *z, size_t rank);
/* The rank of the first entry where pred is false (count if none), and its
 * position in *off (ZLP_END if none). */
size_t zlp_lower_bound(const zlp *z, zlp_pred pred, void *ctx, size_t *off);

/* Insert member m (not present) with score (not NaN) in its place; returns the
 * set, maybe moved. */
zlp *zlp_insert(zlp *z, const char *m, size_t len, double score);
/* Delete count entries from off (count may go past the end: stops there). */
void zlp_delete(zlp *z, size_t off, size_t count);
/* Give back the buffer z no longer uses: when its capacity is over 64 bytes
 * and more than twice what it holds, shrink it. Returns z's new address. */
zlp *zlp_shrink(zlp *z);

#endif
