/* zset.h -- the sorted set type: one API over its two encodings.
 *
 * A sorted set holds members (binary strings) each with a score (a double,
 * never NaN), ordered by score, then by member bytes. Small sets are a compact
 * buffer (core/zset/zlp.h, OBJECT ENCODING "listpack"); a set grows into a
 * skiplist with spans and a member index (core/zset/zsl.h, "skiplist") when it
 * passes zset-max-listpack-entries members or gets a member longer than
 * zset-max-listpack-value bytes, as Redis 7.0 converts. It never goes back on
 * its own; zs_shrink_if_fits makes a freshly built result compact again (the
 * STORE commands, as Redis).
 *
 * Positions are ranks (0-based). An iterator stands on one member and walks
 * either way; it stays valid until the set changes.
 *
 * Nothing here replies or logs: the commands (cmd_zset.c) do. A set that
 * becomes empty is left empty: the caller deletes the key. */
#ifndef SP_ZSET_H
#define SP_ZSET_H

#include <stddef.h>

#include "keyspace/db.h"

/* The conversion thresholds (config: zset-max-listpack-entries / -value). */
extern long long zs_max_entries, zs_max_value;

/* ZADD's flags and outcomes. */
#define ZS_NX 1
#define ZS_XX 2
#define ZS_GT 4
#define ZS_LT 8
#define ZS_INCR 16
enum { ZS_NOP = 0, ZS_ADDED, ZS_UPDATED, ZS_SAME, ZS_NAN };

/* A predicate true on a prefix of the order (see zlp.h). */
typedef int (*zs_pred)(const char *m, size_t len, double score, void *ctx);

typedef struct zs_it {
    void *v;    /* the value */
    int lp;     /* 1: the compact encoding */
    size_t off; /* compact: the entry's offset */
    void *node; /* skiplist: the node */
    int valid;
} zs_it;

/* An accumulator: a detached sorted set that set operations (ZUNION, ZINTER,
 * ZDIFF) and ZRANGESTORE build their results in before replying or storing. */
typedef struct zs_acc zs_acc;
enum { ZS_AGG_SUM = 0, ZS_AGG_MIN, ZS_AGG_MAX };

/* A new empty sorted set under key (which must not exist). */
dbent *zs_create(db *d, const char *key, size_t klen);
size_t zs_len(const dbent *e);
/* 1 and *score if member m is in e, else 0. */
int zs_score(dbent *e, const char *m, size_t len, double *score);
/* ZADD's step for one member: flags ZS_*; returns ZS_ADDED, ZS_UPDATED,
 * ZS_SAME (present, score unchanged), ZS_NOP (left alone by NX/XX/GT/LT) or
 * ZS_NAN (INCR gave NaN: nothing changed); *newscore is the member's score
 * after (for ADDED / UPDATED / SAME). */
int zs_add(dbent *e, const char *m, size_t len, double score, int flags, double *newscore);
/* Remove member m: 1 if it was there. */
int zs_del(dbent *e, const char *m, size_t len);
/* 1 with the rank and score of member m, 0 if absent. */
int zs_rank(dbent *e, const char *m, size_t len, size_t *rank, double *score);
/* The rank of the first member where pred is false (zs_len if none). */
size_t zs_lower_bound(dbent *e, zs_pred pred, void *ctx);
/* Delete the members of ranks [start, end). */
void zs_delete_range(dbent *e, size_t start, size_t end);
/* Make a skiplist compact again if it is within both thresholds. */
void zs_shrink_if_fits(dbent *e);
/* "listpack" or "skiplist". */
const char *zs_encoding(const dbent *e);

/* Iterators: stand on rank (an invalid iterator past the end). */
void zs_it_at(zs_it *it, dbent *e, size_t rank);
void zs_it_next(zs_it *it);
void zs_it_prev(zs_it *it);
/* The member (bytes in the set: valid until it changes) and score of it. */
const char *zs_it_get(const zs_it *it, size_t *len, double *score);

/* A new empty accumulator; free with zs_acc_free (NULL does nothing), unless
 * zs_store took it. */
zs_acc *zs_acc_new(void);
void zs_acc_free(zs_acc *a);
size_t zs_acc_len(const zs_acc *a);
/* Add m with score; if present, aggregate the scores (agg ZS_AGG_*; a NaN
 * sum is 0, as Redis). */
void zs_acc_add(zs_acc *a, const char *m, size_t len, double score, int agg);
/* 1 and *score if m is in a. */
int zs_acc_score(zs_acc *a, const char *m, size_t len, double *score);
/* Stand on a's first member. */
void zs_acc_it(zs_it *it, zs_acc *a);
/* Store a (non-empty) under key, as Redis's setKey (an existing key keeps its
 * entry and loses its value and TTL); the key takes a over, compact if it fits
 * the thresholds. Returns the entry. */
dbent *zs_store(db *d, const char *key, size_t klen, zs_acc *a);

/* ZSCAN's step: call fn on the members of the bucket(s) the cursor names (a
 * compact set: all of them, and the next cursor is 0); returns the next
 * cursor. count: the members wanted (a hint: whole buckets are visited). */
uint64_t zs_scan(dbent *e, uint64_t cursor, long long count,
                 void (*fn)(void *ctx, const char *m, size_t len, double score), void *ctx);

/* Score parsing as Redis: a whole string strtod takes, not NaN, not out of
 * range (0 / -1). */
int zs_parse_score(const char *p, size_t n, double *out);

/* Register the type's row (keyspace/type.h). */
void zs_type_register(void);

#endif
