/* hash.h -- the hash type: one API over its two encodings.
 *
 * A small hash is a pairlist (core/pairlist.h) kept inside the key's entry
 * (ENC_INLINE, dbent_vlen(e) its bytes): OBJECT ENCODING "listpack". It becomes a
 * field/value hash table (core/fvht.h, behind dbent_ptr, ENC_PTR): "hashtable"
 * once it holds more than hash_max_listpack_entries fields or a field or value
 * longer than hash_max_listpack_value bytes, as Redis converts; never back.
 *
 * Commands never see the encodings: they get, set, delete and iterate through
 * these functions, which return a status and never reply. Functions that may
 * move the entry (a listpack grows inside it) take dbent ** and update it.
 * Pointers to field or value bytes returned here are valid until the next
 * change of the hash.
 *
 * An empty hash is never left in the keyspace: the caller deletes the key when
 * hash_len reaches 0 (hash_del says so). */
#ifndef SP_HASH_H
#define SP_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "keyspace/db.h"

/* The conversion thresholds (hash-max-listpack-entries / -value), set by the
 * configuration. */
extern long long hash_max_listpack_entries;
extern long long hash_max_listpack_value;

/* One field and its value (pointers into the hash). */
typedef struct hash_pair {
    const char *f, *v;
    size_t flen, vlen; /* bytes */
} hash_pair;

/* A new, empty hash at key (which must not exist); add a field before the
 * command ends. */
dbent *hash_create(db *d, const char *key, size_t klen);
/* Fields in the hash. */
size_t hash_len(const dbent *e);
/* 1 if e is in its compact encoding. */
int hash_is_compact(const dbent *e);
/* The value of field f: 1 with *v / *vlen set, or 0. */
int hash_get(const dbent *e, const char *f, size_t flen, const char **v, size_t *vlen);
/* Convert to the hash table now if longest (the longest field or value a
 * command is about to write) exceeds hash_max_listpack_value (Redis checks
 * every argument before writing any). */
void hash_fit(db *d, dbent **ep, size_t longest);
/* Set f to v (converting as the thresholds say): 1 if f is new, 0 if its value
 * was replaced. v must not point into the hash. */
int hash_set(db *d, dbent **ep, const char *f, size_t flen, const char *v, size_t vlen);
/* Remove f: 1 if it was there, else 0. */
int hash_del(db *d, dbent *e, const char *f, size_t flen);
/* After deletions: give back the room a compact hash no longer uses (its
 * bytes live in the entry). Returns e's address, which may have changed. */
dbent *hash_compact(db *d, dbent *e);
/* fn on every pair, in the hash's order (insertion order for the compact
 * encoding), until fn returns non-zero (returned). fn must not change it. */
int hash_foreach(const dbent *e, int (*fn)(void *ctx, const hash_pair *p), void *ctx);
/* One HSCAN step from cursor: fn on the pairs of the step; returns the next
 * cursor (0: done). The compact encoding is returned whole, cursor 0. */
uint64_t hash_scan(dbent *e, uint64_t cursor, void (*fn)(void *ctx, const hash_pair *p), void *ctx);
/* A random pair; rng is the caller's non-zero xorshift64* state. The hash is
 * not empty. */
void hash_random(dbent *e, uint64_t *rng, hash_pair *out);

/* Fill out[0..hash_len) with every pair (hash order). */
void hash_pairs(const dbent *e, hash_pair *out);

/* Register the hash's row in the type table. */
void hash_type_register(void);

#endif
