/* xstream.h -- the entries of a stream: an append-mostly log of (id, fields)
 * records, stored compactly in blocks kept in id order.
 *
 * Why: a stream is written at its tail (XADD), read in id ranges both ways
 * (XRANGE, XREVRANGE, XREAD) and cut at its head (XTRIM, MAXLEN). Its entries
 * usually share one shape (the same field names, in the same order) and come
 * in bursts of close ids, so storing each one as separate strings wastes most
 * of the memory. Here entries live in blocks of a bounded number of bytes and
 * entries (the stream-node-max-bytes / stream-node-max-entries settings,
 * applied as Redis applies them: the bytes are those of Redis's listpack of
 * the same entries, so blocks split where Redis's do and approximate trims,
 * which drop whole blocks, remove the same entries). A
 * block keeps its first entry's id (the master id) and field names; each
 * entry holds its id as a delta from the master id and, when its fields are
 * the master's, only its values.
 *
 * The index of blocks is a sorted array of pointers with a head offset: the
 * blocks never overlap in ids, so a binary search over their master ids finds
 * where a range starts (O(log blocks)); an append goes to the last block or a
 * new one at the tail (O(1) amortised); a trim drops blocks at the head by
 * moving the offset (O(1) per block); a range read walks consecutive blocks of
 * one array. A radix tree or a B-tree would also make removing a block in the
 * middle O(log n); here that costs a memmove of the pointers after it, which
 * only an XDEL emptying a whole block pays.
 *
 * A block's bytes: the master's field names [count][len name]..., then each
 * entry: [flags][ms delta][seq][fields or values][backlen]. Numbers are
 * LEB128 varints; seq is a delta from the master's seq when ms equals the
 * master's, else the seq itself; flags say "deleted" and "same fields as the
 * master" (then only [len value] per master field, else [count] and
 * [len field][len value] pairs); backlen is the entry's length written so that
 * it can be read from its last byte, which lets iteration go backwards.
 * Deleting an entry sets its flag (the bytes stay, as in Redis); a block
 * whose entries an XDEL leaves all deleted is removed (one emptied by an
 * exact MINID trim stays, as Redis keeps its node).
 *
 * Invariants: appended ids strictly increase across the whole stream (blocks
 * in order, entries in order inside a block) except after a deleted entry
 * whose id the caller's last id went below (Redis's XSETID allows it): so, as
 * Redis's iterator, lookups skip deleted entries before comparing ids; len is
 * the number of live entries.
 *
 * Errors and ownership: functions that can fail return 0 / -1; the stream
 * owns its blocks; pointers an iterator gives into a block stay valid until
 * the stream next changes. */
#ifndef SP_XSTREAM_H
#define SP_XSTREAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct xs_id {
    uint64_t ms;  /* ms part */
    uint64_t seq; /* sequence part */
} xs_id;

static inline int xs_id_cmp(const xs_id *a, const xs_id *b)
{
    if (a->ms != b->ms)
        return a->ms < b->ms ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

/* One block of entries (the layout is xstream.c's). */
typedef struct xs_block xs_block;

typedef struct xstream {
    xs_block **blk; /* blk[head .. head + nblk): blocks in id order */
    size_t head, nblk, cap;
    uint64_t len; /* live entries */
    size_t bytes; /* bytes allocated for blocks and the index */
} xstream;

/* A byte string given to xs_append. */
typedef struct xs_str {
    const char *p;
    size_t len;
} xs_str;

/* An empty stream; free with xs_free (NULL does nothing). */
xstream *xs_new(void);
void xs_free(xstream *s);
/* An independent copy. */
xstream *xs_dup(const xstream *s);
/* Bytes of memory the stream holds (its struct included). */
size_t xs_mem(const xstream *s);
static inline uint64_t xs_len(const xstream *s)
{
    return s->len;
}
static inline size_t xs_nblocks(const xstream *s)
{
    return s->nblk;
}

/* Append the entry id with nfv/2 (field, value) pairs fv[0..nfv) at the tail;
 * id must be greater than every id the stream has held in a block still
 * present (the caller keeps the stream's last id, xs_last_any tells the rest).
 * A new block starts when the last one's bytes as a Redis listpack plus the
 * raw lengths in fv reach max_bytes (0: no limit but 1 GB), or when it holds
 * max_entries entries, deleted ones counted (0: no limit). */
void xs_append(xstream *s, const xs_id *id, const xs_str *fv, size_t nfv, size_t max_bytes, size_t max_entries);

/* Append as a stream's serialized form says (RESTORE): to the last block, or
 * (new_block, or no block yet) a new one whatever its size, then marked
 * deleted if asked (the ids' order is the caller's to check). */
void xs_append_raw(xstream *s, const xs_id *id, const xs_str *fv, size_t nfv, int new_block, int deleted);
/* Block bi (0 .. xs_nblocks - 1) as Redis's stream listpack, into lp
 * (rdbval.h: rewound first), its master id into *master (DUMP): the master
 * entry (live and deleted counts, the field names, 0), then every entry,
 * deleted ones included (flags, id deltas, fields or values, element count). */
struct rdb_out;
void xs_block_lp(const xstream *s, size_t bi, struct rdb_out *lp, xs_id *master);

/* Mark entry id deleted: 1 if a live entry was, 0 if none. */
int xs_delete(xstream *s, const xs_id *id);

/* The first / last live entry's id: 0, or -1 if the stream is empty. */
int xs_first(const xstream *s, xs_id *out);
int xs_last(const xstream *s, xs_id *out);

/* Trim the head as XTRIM does (Redis 7.0's rules): MAXLEN keeps at most
 * maxlen live entries, MINID drops entries below minid. Whole blocks go first;
 * with approx, trimming stops at the first block that cannot go whole, else
 * that block's entries are marked deleted one by one. With limit > 0 (approx
 * only), no block goes whose live entries would bring the total past limit.
 * Returns the live entries removed. */
uint64_t xs_trim_maxlen(xstream *s, uint64_t maxlen, int approx, uint64_t limit);
uint64_t xs_trim_minid(xstream *s, const xs_id *minid, int approx, uint64_t limit);

/* Iteration over the live entries with start <= id <= end, forward or
 * backward (rev). xs_next returns 1 with the entry's id and field count (nf
 * pairs, read in order with xs_field), or 0 when done. */
typedef struct xs_iter {
    const xstream *s;
    xs_id start, end;
    int rev;
    int done;
    size_t bi;    /* block index (from head) */
    uint32_t off; /* forward: next entry's offset; backward: end of the next */
    const xs_block *b;
    /* the current entry */
    xs_id id;
    uint64_t nf;               /* field pairs */
    uint64_t left;             /* pairs not read yet */
    int same;                  /* values only: names from the master */
    const unsigned char *cur;  /* next pair (or value) */
    const unsigned char *mcur; /* next master field name */
} xs_iter;

void xs_iter_init(xs_iter *it, const xstream *s, const xs_id *start, const xs_id *end, int rev);
int xs_next(xs_iter *it, xs_id *id, uint64_t *nf);
/* The next (field, value) pair of the current entry (pointers into the block). */
void xs_field(xs_iter *it, const char **f, size_t *flen, const char **v, size_t *vlen);

#endif
