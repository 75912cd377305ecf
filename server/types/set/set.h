/* set.h -- the set type's API: members of a key, whatever their encoding.
 *
 * Why: the commands (cmd_set.c), the log's rewrite and replay, COPY and MEMORY
 * USAGE handle sets without knowing how they are stored. As Redis 7.0 does, a
 * set is an intset (core/intset.h: every member an integer in Redis's strict
 * form, at most set_max_intset_entries of them) or a hash table of members
 * (core/ht.h, one allocation per member); it is created an intset if its
 * first member is an integer, and converted to the hash table, once and for
 * good, when a non-integer member arrives or it grows past the limit.
 *
 * Conventions: an entry of type OBJ_SET has enc SET_ENC_INTSET (dbent_ptr is
 * an intset) or SET_ENC_HT (dbent_ptr is a set_ht). The operations return a
 * count or 0 / 1 and never reply; a member is bytes (p, n), binary-safe.
 * Nothing here deletes an empty set's key: the caller does (a collection that
 * becomes empty deletes its key). Randomness comes from the caller's
 * xorshift64* state (non-zero). */
#ifndef SP_SET_H
#define SP_SET_H

#include <stddef.h>
#include <stdint.h>

#include "keyspace/db.h"

#define SET_ENC_INTSET ENC_RAW
#define SET_ENC_HT ENC_PTR

/* set-max-intset-entries (config.c sets it). */
extern int set_max_intset_entries;

/* A member handed out by the set: p points into the set or into buf (an
 * integer's decimal form). Valid until the set changes. */
typedef struct set_elem {
    const char *p;
    size_t len;
    char buf[24];
} set_elem;

/* Register the type row (once, at start-up); seed keys the members' hash. */
void set_type_register(uint64_t seed);

/* A new set entry for key in d (which must not exist), empty, encoded as a
 * set whose first member is (p, n) would be: add that member next. */
dbent *set_create(db *d, const char *key, size_t klen, const char *p, size_t n);
/* A new empty set entry for key, an intset (the STORE commands' destination,
 * as Redis's: every member added then decides). */
dbent *set_create_intset(db *d, const char *key, size_t klen);

/* A detached set (no key, in no database), empty and an intset: a result
 * being built (SUNION, the STORE commands). Every function here takes it as
 * an entry. set_tmp_free frees it; set_tmp_store moves its value to key in d
 * (replacing what key held, TTL included) and frees the shell. */
dbent *set_tmp_new(void);
void set_tmp_free(dbent *t);
dbent *set_tmp_store(db *d, const char *key, size_t klen, dbent *t);

/* Add a member: 1 if added, 0 if present. May convert the encoding. */
int set_add(dbent *e, const char *p, size_t n);
/* Remove a member: 1 if removed, 0 if absent. */
int set_remove(dbent *e, const char *p, size_t n);
int set_ismember(const dbent *e, const char *p, size_t n);
uint64_t set_card(const dbent *e);
/* An intset's bytes per member (2, 4 or 8: the widest it has held, as
 * Redis's, which DUMP writes), or 0 for a hash table. */
int set_intset_width(const dbent *e);
/* "intset" or "hashtable". */
const char *set_encoding(const dbent *e);

/* Iteration: set_iter_init, then set_iter_next until it returns 0. The set
 * must not change meanwhile. */
typedef struct set_iter {
    const dbent *e;
    uint64_t i; /* intset position / bucket */
    int tab;    /* ht: which array */
    void *node; /* ht: next node in the bucket */
} set_iter;
void set_iter_init(set_iter *it, const dbent *e);
int set_iter_next(set_iter *it, set_elem *out);

/* A random member (the set is not empty): uniform for an intset, a random
 * bucket's random member for the hash table (as Redis's dictGetFairRandomKey
 * roughly). */
void set_random(const dbent *e, uint64_t *rng, set_elem *out);

/* SSCAN's step: call fn for the members of the cursor's bucket(s) and return
 * the next cursor (0: done), as ht_scan does; an intset is visited whole at
 * once (returning 0), as Redis does for its compact encodings. count is the
 * number of buckets to visit at most (COUNT). */
uint64_t set_scan(const dbent *e, uint64_t cursor, long count, void (*fn)(void *ctx, const set_elem *m), void *ctx);

/* If e is a hash table of only integer members, no more than the intset
 * limit, make it an intset (SPOP's rebuild of a set it almost emptied, as
 * Redis 7.0 rebuilds one from its first remaining member). */
void set_reencode_small(dbent *e);

#endif
