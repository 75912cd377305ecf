/* lzcache.h -- a small LRU cache of decoded chunks, for lzval.
 *
 * Why: repeated window reads of the same region of a compressed value (HEAD,
 * TAIL, paging, a line lookup after a window read) should not decompress the
 * same sub-blocks again. The cache is the caller's object (a connection or a
 * command family keeps one), passed explicitly to lzval's functions; NULL means
 * no caching.
 *
 * What it is: a fixed array of slots, each holding the raw bytes of one chunk of
 * one value, keyed by (value id, chunk index), with a per-sub-block count of the
 * bytes decoded so far (have[j]: bytes of sub-block j valid in buf, from its
 * start). This module only keeps, finds, hands out and forgets slots; the caller
 * (lzval) decodes into them and sets have[]. It knows nothing of LZ4 or of a
 * value's layout beyond the numbers it is given.
 *
 * Invariants: a slot with uid 0 is empty; no two slots hold the same (uid, idx)
 * (the caller claims only after a find missed); a slot's stamp is the cache's
 * clock at its last find or claim, every stamp distinct, so the least recently
 * used slot is the one with the smallest stamp. The caller's side: a value's id
 * is unique in the process and renewed whenever its raw bytes change, so a slot
 * keyed by an id only ever holds bytes that id had (see lzcache_remap).
 *
 * Memory comes from the accounted allocator (mem.h); allocation failure aborts.
 * No globals. */
#ifndef SP_LZCACHE_H
#define SP_LZCACHE_H

#include <stddef.h>
#include <stdint.h>

#define LZCACHE_SUB_MAX 256u /* sub-blocks per chunk at most */

typedef struct lzcache lzcache;

typedef struct lzcache_slot {
    uint64_t uid;   /* value id of the chunk held; 0 = empty */
    size_t idx;     /* chunk index */
    uint64_t stamp; /* cache clock at last use (LRU) */
    size_t cap;     /* bytes allocated in buf */
    char *buf;      /* the chunk's raw bytes, sub-block j at j * sub-block size */
    uint32_t have[LZCACHE_SUB_MAX]; /* bytes of sub-block j decoded in buf, from its start */
} lzcache_slot;

/* A cache of up to slots decompressed chunks (LRU), each filled sub-block by
 * sub-block as reads need them (a first read of a sub-block decodes only up to
 * the end of its window, a later one the whole sub-block). slots is raised to 1
 * if 0 (lzval_chunk needs a slot to return). Never NULL. Free with
 * lzcache_free. */
lzcache *lzcache_new(size_t slots);

/* Release c and every slot's buffer. lzcache_free(NULL) does nothing. */
void lzcache_free(lzcache *c);
/* Bytes c holds: the slots' buffers and the cache itself (as allocated). 0 for
 * NULL. */
size_t lzcache_bytes(const lzcache *c);

/* The slot holding chunk idx of the value uid, marked as just used, or NULL.
 * The slot stays c's: valid until c is freed, its contents until the next
 * lzcache_claim on c (which may hand it to another chunk). */
lzcache_slot *lzcache_find(lzcache *c, uint64_t uid, size_t idx);

/* A slot for chunk idx of the value uid (uid != 0; call only after
 * lzcache_find missed): the first empty slot, else the least recently used
 * one, whose old contents are dropped. Its buf gets at least bytes of room (it
 * grows, never shrinks), have[0..nsub) is zeroed (nsub <= LZCACHE_SUB_MAX:
 * nothing decoded yet) and it is marked as just used. Lifetime as for
 * lzcache_find. */
lzcache_slot *lzcache_claim(lzcache *c, uint64_t uid, size_t idx, size_t bytes, size_t nsub);

/* After the value old_uid changed and took the id new_uid: every slot of
 * old_uid is given to new_uid, except those of chunks [first, last] (first >
 * last: none), which are emptied (the change rebuilt those chunks); the index
 * of a slot past last moves by delta (chunks the change inserted, or removed
 * when negative). What the slots kept hold is still right. Keeps the LRU
 * order. */
void lzcache_remap(lzcache *c, uint64_t old_uid, uint64_t new_uid, size_t first, size_t last, long delta);

/* The slot of chunk idx of the value uid, if any, forgets sub-blocks [a, b]
 * (a change rewrote them in place). */
void lzcache_forget(lzcache *c, uint64_t uid, size_t idx, size_t a, size_t b);

#endif
