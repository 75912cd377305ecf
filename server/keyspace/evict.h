/* evict.h -- maxmemory's eviction: which keys go when memory is over the limit.
 *
 * Why: with a maxmemory-policy other than noeviction, a write that finds
 * memory over maxmemory first deletes keys chosen by the policy, as Redis 7.0
 * does, so that a cache-like dataset stays under its limit instead of refusing
 * writes. Choices are Redis's sampled approximations: each call samples
 * evict_samples keys per database (every key for allkeys-*, keys with a TTL
 * for volatile-*), scores them (idle time for LRU, 255 minus the decayed
 * counter for LFU) and keeps the best candidates in a pool of EVICT_POOL
 * across calls; the best still present goes first. The random policies take
 * a random key; volatile-ttl takes the key of nearest expiry exactly (the
 * expiry heap's top), where Redis samples.
 *
 * Contract: evict_run deletes through the keyspace (db_delete_entry: a large
 * value is freed in steps by lazyfree.c) and reports each key to
 * evict_on_evicted (the server's: count it, log a DEL, tell WATCH) after the
 * deletion. No key is evicted while the log is replayed or expiry is held
 * (CLIENT PAUSE). */
#ifndef SP_EVICT_H
#define SP_EVICT_H

#include <stddef.h>

#include "keyspace/db.h"

/* maxmemory-policy values, in the order config.c names them (Redis's, as its
 * CONFIG SET error lists them). */
enum {
    EVICT_VOLATILE_LRU = 0,
    EVICT_VOLATILE_LFU,
    EVICT_VOLATILE_RANDOM,
    EVICT_VOLATILE_TTL,
    EVICT_ALLKEYS_LRU,
    EVICT_ALLKEYS_LFU,
    EVICT_ALLKEYS_RANDOM,
    EVICT_NOEVICTION
};

#define EVICT_POOL 16 /* candidates kept between calls, as Redis's pool */

extern int evict_policy;      /* EVICT_*: set by maxmemory-policy (apply_policy) */
extern int evict_samples;     /* maxmemory-samples: keys sampled per database per pick */
extern long long evict_count; /* keys evicted since start-up (INFO's evicted_keys) */
extern void (*evict_on_evicted)(db *d, const char *key, size_t klen);

/* 1 if policy p reads the access clock as LFU. */
static inline int evict_is_lfu(int p)
{
    return p == EVICT_ALLKEYS_LFU || p == EVICT_VOLATILE_LFU;
}

/* Delete keys of dbs[0..ndbs) chosen by evict_policy until memory (mem_used(),
 * less the estimated size of values evicted that are still being freed in
 * steps) is at most limit bytes. Returns 0 when it is, -1 when it is not and
 * nothing more can be evicted (noeviction, no candidate left). */
int evict_run(db *dbs, int ndbs, size_t limit);
/* Forget the pool (FLUSHALL, a database emptied or swapped: its candidates'
 * names may now be other keys, which is harmless but wasteful). */
void evict_pool_clear(void);

#endif
