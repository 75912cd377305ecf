/* stream.h -- the stream type: entries (core/xstream.h), the stream's counters
 * and its consumer groups, and its row in the type table.
 *
 * A stream value (ENC_PTR, OBJECT ENCODING "stream") holds its entries in
 * blocks, the ids Redis 7.0 keeps beside them (last id, max deleted id,
 * entries added) and its consumer groups. A group has its last delivered id,
 * its entries-read counter and a pending entries list (PEL): the entries
 * delivered and not acknowledged yet, each with its consumer, its last
 * delivery time and its delivery count. A consumer holds its own PEL of the
 * same entries (pointers to the group's). PELs are arrays sorted by id with a
 * head offset: deliveries append at the tail, acknowledgements in delivery
 * order drop at the head, and ranges (XPENDING, XAUTOCLAIM) binary search; an
 * acknowledgement out of order moves the pointers after it.
 *
 * Groups and consumers are kept sorted by name bytes (XINFO lists them in
 * that order, as Redis's radix trees do). Nothing here replies: the commands
 * (cmd_stream.c, cmd_xread.c, cmd_xgroup.c) parse, call, reply, signal and
 * propagate. */
#ifndef SP_STREAM_H
#define SP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/xstream.h"
#include "keyspace/db.h"

/* stream-node-max-bytes / stream-node-max-entries (config.c). */
extern long long stream_node_max_bytes;
extern long long stream_node_max_entries;

#define XS_INVALID_READ (-1LL) /* an unknown entries-read counter */

typedef struct xconsumer xconsumer;

typedef struct xnack {
    xs_id id;
    int64_t delivery_time; /* ms since the epoch */
    uint64_t delivery_count;
    xconsumer *consumer;
} xnack;

/* A pending entries list: the nacks in id order, in chunks of at most
 * PEL_CHUNK pointers (none empty), so that acknowledging in any order costs a
 * move inside one chunk, not of the whole list, while a lookup stays a binary
 * search (over the chunks' first ids, then inside one) and reading in order
 * stays a walk along arrays. pel_at(p, i) reads the i-th nack: in O(1) when i
 * is in or next to the chunk of the last call (walking in order, as every
 * caller does), else by counting along the chunks. */
#define PEL_CHUNK 128
#define PEL_NOWHERE ((size_t)-1) /* at_c when the cursor is stale */

typedef struct pel_chunk {
    uint32_t n, cap;
    xnack *a[]; /* a[0 .. n): sorted by id */
} pel_chunk;

typedef struct xpel {
    pel_chunk **c; /* c[0 .. nc): in id order */
    size_t nc, ccap;
    size_t n;             /* nacks */
    size_t at_c, at_base; /* pel_at's cursor (a cache): chunk at_c holds index at_base on */
} xpel;

struct xconsumer {
    char *name;
    size_t nlen;
    int64_t seen_time; /* ms since the epoch */
    xpel pel;          /* pointers to the group's nacks (not owned) */
};

typedef struct xgroup {
    char *name;
    size_t nlen;
    xs_id last_id;          /* last delivered id */
    long long entries_read; /* XS_INVALID_READ if unknown */
    xpel pel;               /* owns the nacks */
    xconsumer **cons;       /* sorted by name */
    size_t ncons;
} xgroup;

typedef struct stream {
    xstream *x;
    xs_id last_id;          /* the top item's id (XADD's floor) */
    xs_id max_deleted;      /* the largest id deleted (0-0 if none) */
    uint64_t entries_added; /* entries ever added */
    xgroup **groups;        /* sorted by name */
    size_t ngroups;
} stream;

static inline stream *stream_of(const dbent *e)
{
    return dbent_ptr(e);
}

/* A new empty stream under key (which must not exist in d); returns its entry. */
dbent *stream_create(db *d, const char *key, size_t klen);

/* Parse "ms-seq", "ms" (seq missing_seq), "-" / "+" (when edges) into *id;
 * with seq_given non-NULL, "ms-*" is accepted and *seq_given set to 0 (else 1).
 * 0, or -1 if malformed. */
int stream_parse_id(const char *p, size_t n, uint64_t missing_seq, int edges, xs_id *id, int *seq_given);
/* "ms-seq" into buf (at least 42 bytes); returns its length. */
size_t stream_fmt_id(char *buf, const xs_id *id);
/* id + 1 / id - 1: 0, or -1 on overflow / underflow. */
int stream_id_incr(xs_id *id);
int stream_id_decr(xs_id *id);

/* The first live entry's id, or 0-0 when empty (Redis's first_id). */
xs_id stream_first_id(const stream *s);
/* Append an entry with id (> s->last_id, checked by the caller). */
void stream_append(stream *s, const xs_id *id, const xs_str *fv, size_t nfv);
/* XDEL one id: 1 if it was live. */
int stream_delete(stream *s, const xs_id *id);
/* XTRIM: maxlen (minid NULL) or minid; limit as xs_trim_*. Entries removed. */
uint64_t stream_trim(stream *s, uint64_t maxlen, const xs_id *minid, int approx, uint64_t limit);

/* Redis 7.0's entries-read estimate for id (XS_INVALID_READ if unknown). */
long long stream_estimate_read(const stream *s, const xs_id *id);
/* 1 if a deleted entry may lie in [start, end] (end NULL: to the end). */
int stream_range_has_tombstones(const stream *s, const xs_id *start, const xs_id *end);
/* The lag of g into *lag (negative when the counters disagree, as Redis's):
 * 0, or -1 if it cannot be known (XINFO's null). */
int stream_group_lag(const stream *s, const xgroup *g, long long *lag);

/* Groups and consumers. */
xgroup *stream_group_find(const stream *s, const char *name, size_t n);
/* NULL if a group of that name exists. */
xgroup *stream_group_create(stream *s, const char *name, size_t n, const xs_id *last_id, long long entries_read);
/* Destroy group name: 1 if it existed. */
int stream_group_destroy(stream *s, const char *name, size_t n);
xconsumer *stream_consumer_find(const xgroup *g, const char *name, size_t n);
/* The consumer, created if missing (*created set to 1 then) with seen_time now. */
xconsumer *stream_consumer_get(xgroup *g, const char *name, size_t n, int64_t now, int *created);
/* Delete consumer c of g and its pending entries: returns how many it had. */
uint64_t stream_consumer_delete(xgroup *g, xconsumer *c);

/* PELs. */
xnack *pel_find(const xpel *p, const xs_id *id);
/* Index (from head) of the first nack with id >= id. */
size_t pel_lower(const xpel *p, const xs_id *id);
/* The cursor moved to the chunk holding index i (< p->n). */
void pel_seek(const xpel *p, size_t i);
static inline xnack *pel_at(const xpel *p, size_t i)
{
    if (p->at_c >= p->nc || i < p->at_base || i - p->at_base >= p->c[p->at_c]->n)
        pel_seek(p, i);
    return p->c[p->at_c]->a[i - p->at_base];
}
/* Bytes the list's chunks and their index take (not the nacks). */
size_t pel_bytes(const xpel *p);
/* A new nack in g's PEL for id (not pending yet), owned by c. */
xnack *stream_nack_add(xgroup *g, xconsumer *c, const xs_id *id, int64_t time, uint64_t count);
/* Move n to consumer c. */
void stream_nack_move(xnack *n, xconsumer *c);
/* Remove n from g and its consumer, and free it. */
void stream_nack_del(xgroup *g, xnack *n);

/* Register the stream's row in the type table (keyspace/type.h). */
void stream_type_register(void);

#endif
