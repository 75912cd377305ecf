/* intset.h -- a sorted array of distinct 64-bit integers in the smallest width.
 *
 * Why: a small set whose members are all integers (the common "set of ids")
 * needs no hash table: a sorted array of 2-, 4- or 8-byte integers takes a
 * tenth of the memory and finds a member by binary search. This is the
 * encoding Redis 7.0 calls "intset"; the set type (types/set/) converts it to
 * a hash table past set-max-intset-entries or at the first non-integer member.
 *
 * Layout: one allocation (the accounted allocator, mem.h): a header with the
 * width and count, then count integers of that width in ascending order, in
 * the machine's byte order. The width only grows (a value that does not fit
 * re-encodes the whole array, once per width); removing the wide values keeps
 * it, as Redis's does.
 *
 * Conventions: functions that may reallocate take the set by address and
 * update it; an intset is never NULL (an empty one is a header). No globals. */
#ifndef SP_INTSET_H
#define SP_INTSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct intset {
    uint32_t width; /* bytes per member: 2, 4 or 8 */
    uint32_t count; /* members */
    char data[];    /* count members of width bytes, ascending */
} intset;

/* A new empty intset (width 2). Free it with is_free. */
intset *is_new(void);
void is_free(intset *s);
/* An independent copy of s. */
intset *is_dup(const intset *s);

static inline uint32_t is_count(const intset *s)
{
    return s->count;
}
/* The member at position i (0 <= i < count), in ascending order. */
int64_t is_get(const intset *s, uint32_t i);
/* 1 if v is a member (binary search), else 0. With pos, *pos is v's position,
 * or where it would be inserted. */
int is_find(const intset *s, int64_t v, uint32_t *pos);
/* Add v: 1 if added, 0 if it was a member already. May reallocate *sp. */
int is_add(intset **sp, int64_t v);
/* Remove v: 1 if removed, 0 if it was not a member. Shrinks the allocation. */
int is_remove(intset **sp, int64_t v);
/* Remove the member at position i (0 <= i < count). */
void is_remove_at(intset **sp, uint32_t i);
/* Bytes of memory the intset holds (its allocation). */
size_t is_bytes(const intset *s);

#endif
