/* evict.c -- maxmemory's eviction (see evict.h).
 *
 * Invariants: the pool holds at most EVICT_POOL candidates sorted by score,
 * best (to evict first) last; a candidate is a copy of a key name and its
 * database, checked again before deletion (it may have gone or changed). */
#include "keyspace/evict.h"

#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/lazyfree.h"

int evict_policy = EVICT_NOEVICTION;
int evict_samples = 5;
long long evict_count;
void (*evict_on_evicted)(db *d, const char *key, size_t klen);

typedef struct cand {
    uint64_t score; /* higher goes first: idle ms, 255 - LFU counter */
    int dbid;
    size_t klen;
    char *key; /* owned copy */
} cand;

static cand pool[EVICT_POOL];
static int npool;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static int next_db; /* the random policies take databases in turn, as Redis */
/* Bytes of values evicted that lazyfree.c has not given back yet (an estimate:
 * their stored size less what their deletion freed at once); forgotten once its
 * queue is empty, so memory is not evicted twice for the same value. */
static size_t credit;

static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

void evict_pool_clear(void)
{
    int i;

    for (i = 0; i < npool; i++)
        xfree(pool[i].key);
    npool = 0;
}

static int volatile_only(void)
{
    return evict_policy == EVICT_VOLATILE_LRU || evict_policy == EVICT_VOLATILE_LFU ||
           evict_policy == EVICT_VOLATILE_RANDOM || evict_policy == EVICT_VOLATILE_TTL;
}

static uint64_t score_of(const dbent *e)
{
    if (evict_is_lfu(evict_policy))
        return 255 - db_lfu_freq(e);
    return db_idle_ms(e);
}

/* Insert e of database dbid into the pool if it scores better than the worst
 * candidate of a full pool (and is not there already). */
static void pool_offer(int dbid, const dbent *e)
{
    uint64_t s = score_of(e);
    size_t klen = dbent_klen(e);
    int i, at;

    for (i = 0; i < npool; i++)
        if (pool[i].dbid == dbid && pool[i].klen == klen && memcmp(pool[i].key, dbent_key(e), klen) == 0) {
            pool[i].score = s > pool[i].score ? s : pool[i].score;
            return;
        }
    if (npool == EVICT_POOL) {
        if (s <= pool[0].score)
            return;
        xfree(pool[0].key);
        memmove(pool, pool + 1, sizeof(cand) * (EVICT_POOL - 1));
        npool--;
    }
    for (at = npool; at > 0 && pool[at - 1].score > s; at--)
        ;
    memmove(pool + at + 1, pool + at, sizeof(cand) * (size_t)(npool - at));
    pool[at].score = s;
    pool[at].dbid = dbid;
    pool[at].klen = klen;
    pool[at].key = xmalloc(klen ? klen : 1);
    memcpy(pool[at].key, dbent_key(e), klen);
    npool++;
}

/* A random live entry of d among the candidates of the policy, or NULL. */
static dbent *sample(db *d)
{
    if (volatile_only())
        return d->nheap ? d->heap[rnd() % d->nheap].e : NULL;
    return db_size(d) ? (dbent *)ht_random(&d->keys, &rng) : NULL;
}

/* The next victim: its database in *dbi. NULL if there is none. */
static dbent *pick(db *dbs, int ndbs, int *dbi)
{
    int i, j;
    dbent *e, *best = NULL;

    if (evict_policy == EVICT_VOLATILE_TTL) {
        for (i = 0; i < ndbs; i++)
            if (dbs[i].nheap && (!best || dbs[i].heap[0].when < dbs[*dbi].heap[0].when)) {
                best = dbs[i].heap[0].e;
                *dbi = i;
            }
        return best;
    }
    if (evict_policy == EVICT_ALLKEYS_RANDOM || evict_policy == EVICT_VOLATILE_RANDOM) {
        for (i = 0; i < ndbs; i++) {
            int k = (next_db + i) % ndbs;
            if ((e = sample(&dbs[k])) != NULL) {
                next_db = k + 1;
                *dbi = k;
                return e;
            }
        }
        return NULL;
    }
    for (;;) {
        int any = 0;
        for (i = 0; i < ndbs; i++) {
            for (j = 0; j < evict_samples; j++) {
                if (!(e = sample(&dbs[i])))
                    break;
                any = 1;
                pool_offer(i, e);
            }
        }
        while (npool > 0) {
            cand *c = &pool[npool - 1];
            e = db_find_raw(&dbs[c->dbid], c->key, c->klen);
            *dbi = c->dbid;
            xfree(c->key);
            npool--;
            if (e && (!volatile_only() || dbent_xidx(e) != DB_NOEXPIRE))
                return e;
        }
        if (!any)
            return NULL;
    }
}

int evict_run(db *dbs, int ndbs, size_t limit)
{
    char kbuf[256];

    if (lazyfree_pending() == 0)
        credit = 0;
    if (db_expiry_paused || db_expiry_held)
        return mem_used() <= limit ? 0 : -1;
    while (mem_used() > limit + credit) {
        int dbi = 0;
        dbent *e;
        size_t before, after, est, klen;
        char *k;

        if (evict_policy == EVICT_NOEVICTION || !(e = pick(dbs, ndbs, &dbi)))
            return -1;
        klen = dbent_klen(e);
        k = klen <= sizeof(kbuf) ? kbuf : xmalloc(klen);
        memcpy(k, dbent_key(e), klen);
        est = dbent_size(e) + db_value_stored(e);
        before = mem_used();
        db_delete_entry(&dbs[dbi], e);
        after = mem_used();
        if (after + est > before)
            credit += after + est - before;
        evict_count++;
        if (evict_on_evicted)
            evict_on_evicted(&dbs[dbi], k, klen);
        if (k != kbuf)
            xfree(k);
    }
    return 0;
}
