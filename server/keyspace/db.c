/* db.c -- the keyspace (see db.h).
 *
 * Entries are arena objects: header, key, then `icap` bytes of room that hold a
 * small value inline or a pointer to an out-of-line one (narrow and wide
 * layouts: db.h). The expire heap is an array-backed binary min-heap; each entry
 * with a TTL stores its heap index (in its dbent_ext) so that a TTL can be
 * changed or removed in O(log n).
 *
 * The table's nodes are compact (ht.h): an entry keeps only 8 bits of its
 * key's hash (tag), so the hash is computed again from the key when the table
 * moves the entry to its other bucket array, replaces it, or unlinks it. */
#include "keyspace/db.h"
#include "keyspace/lazyfree.h"
#include "keyspace/type.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/util.h"

int64_t db_now;
uint8_t db_epoch;
void (*db_on_expired)(db *d, const char *key, size_t klen);
void (*db_on_changed)(db *d, const char *key, size_t klen);
void (*db_on_new)(db *d, const char *key, size_t klen);
void (*db_on_miss)(db *d, const char *key, size_t klen);
void (*db_on_subexpired)(db *d, const char *key, size_t klen);

static uint32_t db_hash(const db *d, const char *key, size_t klen)
{
    return (uint32_t)ht_hash(key, klen, d->keys.seed);
}

/* The entry db_find_raw returned last, and its key's hash: unlinking an entry
 * needs the hash, and the entry unlinked is nearly always the one just looked
 * up (DEL, a lazy expiry, a key overwritten by another type), so the key is not
 * hashed a second time. Reset whenever an entry is freed (entry_free), so that
 * it never names an address reused by another key. */
static const dbent *last_found;
static uint32_t last_hash;

/* The hash of e's key in d. */
static uint32_t entry_hash(const db *d, const dbent *e)
{
    if (e == last_found)
        return last_hash;
    return db_hash(d, dbent_key(e), dbent_klen(e));
}

static void entry_free(db *d, dbent *e)
{
    if (e == last_found)
        last_found = NULL;
    if (e->wide)
        d->nwide--;
    arena_free(d->arena, e, dbent_size(e));
}

static inline uint8_t hash_tag(uint32_t hash)
{
    return (uint8_t)(hash >> 24);
}

static uint32_t dbent_hashof(const ht_node *n, uint64_t seed)
{
    const dbent *e = (const dbent *)n;
    return (uint32_t)ht_hash(dbent_key(e), dbent_klen(e), seed);
}

static inline int dbent_eq(const ht_node *n, const char *key, uint32_t klen, uint32_t hash)
{
    const dbent *e = (const dbent *)n;
    const dbent_ext *x;

    if (e->tag != hash_tag(hash))
        return 0;
    if (!e->wide)
        return e->klen8 == klen && memcmp(e->data, key, klen) == 0;
    x = dbent_ext_of(e);
    return x->klen == klen && memcmp(x + 1, key, klen) == 0;
}

void db_init(db *d, int id, arena *a, uint64_t seed)
{
    memset(d, 0, sizeof(*d));
    d->id = id;
    d->arena = a;
    ht_init_compact(&d->keys, dbent_hashof, dbent_eq, seed);
}

/* ---- expire heaps ----
 *
 * Two heaps share the code below: heap 0 orders keys by their own TTL and keeps
 * the index in the entry (in its dbent_ext: such an entry is wide); heap 1
 * orders keys by the earliest expiry of a part of their value and keeps the
 * index inside the value (its type row's subidx). */

typedef struct xheap_ref {
    xitem **a;
    uint32_t *n, *cap;
    int sub;
} xheap_ref;

static xheap_ref heap_of(db *d, int sub)
{
    xheap_ref h;
    h.a = sub ? &d->sheap : &d->heap;
    h.n = sub ? &d->nsheap : &d->nheap;
    h.cap = sub ? &d->sheapcap : &d->heapcap;
    h.sub = sub;
    return h;
}

static uint32_t *idx_of(dbent *e, int sub)
{
    return sub ? type_of(e)->subidx(dbent_ptr(e)) : &dbent_ext_of(e)->xidx;
}

static void heap_set(xheap_ref h, uint32_t i, xitem it)
{
    (*h.a)[i] = it;
    *idx_of(it.e, h.sub) = i;
}

static void heap_up(xheap_ref h, uint32_t i)
{
    xitem it = (*h.a)[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if ((*h.a)[parent].when <= it.when)
            break;
        heap_set(h, i, (*h.a)[parent]);
        i = parent;
    }
    heap_set(h, i, it);
}

static void heap_down(xheap_ref h, uint32_t i)
{
    xitem it = (*h.a)[i];
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m;
        if (l >= *h.n)
            break;
        m = (r < *h.n && (*h.a)[r].when < (*h.a)[l].when) ? r : l;
        if ((*h.a)[m].when >= it.when)
            break;
        heap_set(h, i, (*h.a)[m]);
        i = m;
    }
    heap_set(h, i, it);
}

static void heap_del(xheap_ref h, dbent *e)
{
    uint32_t *pi, i;
    if (!h.sub && !e->wide)
        return;
    pi = idx_of(e, h.sub);
    i = *pi;
    if (i == DB_NOEXPIRE)
        return;
    *pi = DB_NOEXPIRE;
    (*h.n)--;
    if (i != *h.n) {
        dbent *moved = (*h.a)[*h.n].e;
        heap_set(h, i, (*h.a)[*h.n]);
        heap_up(h, i);
        heap_down(h, *idx_of(moved, h.sub));
    }
    if (*h.cap > 64 && *h.n < *h.cap / 4) {
        *h.cap /= 2;
        *h.a = xrealloc(*h.a, sizeof(xitem) * *h.cap);
    }
}

static void heap_put(xheap_ref h, dbent *e, int64_t when)
{
    uint32_t *pi = idx_of(e, h.sub);
    if (*pi != DB_NOEXPIRE) {
        uint32_t i = *pi;
        (*h.a)[i].when = when;
        heap_up(h, i);
        heap_down(h, *pi);
        return;
    }
    if (*h.n == *h.cap) {
        *h.cap = *h.cap ? *h.cap * 2 : 16;
        *h.a = xrealloc(*h.a, sizeof(xitem) * *h.cap);
    }
    (*h.a)[*h.n].when = when;
    (*h.a)[*h.n].e = e;
    *pi = (*h.n)++;
    heap_up(h, *pi);
}

static int has_subexpiry(const dbent *e)
{
    return e->enc == ENC_PTR && type_of(e)->subidx != NULL;
}

static void heap_remove(db *d, dbent *e)
{
    heap_del(heap_of(d, 0), e);
}

void db_set_subexpire(db *d, dbent *e, int64_t when)
{
    if (!has_subexpiry(e))
        return;
    if (when < 0)
        heap_del(heap_of(d, 1), e);
    else
        heap_put(heap_of(d, 1), e, when);
}

int64_t db_get_expire(const db *d, const dbent *e)
{
    uint32_t i = dbent_xidx(e);
    return i == DB_NOEXPIRE ? -1 : d->heap[i].when;
}

dbent *db_set_expire(db *d, dbent *e, int64_t when)
{
    if (!e->wide)
        e = db_wide_entry(d, e);
    heap_put(heap_of(d, 0), e, when);
    return e;
}

int db_persist(db *d, dbent *e)
{
    if (dbent_xidx(e) == DB_NOEXPIRE)
        return 0;
    heap_remove(d, e);
    return 1;
}

int db_expiry_paused;
int db_expiry_held;

int db_is_expired(const db *d, const dbent *e)
{
    uint32_t i = dbent_xidx(e);
    return !db_expiry_paused && i != DB_NOEXPIRE && d->heap[i].when <= db_now;
}

/* ---- entries ---- */

/* A new entry for key with at least room bytes of room: narrow if the key and
 * the room the arena class gives fit it and wide is 0, else wide. Only the key
 * and the layout's lengths are set; the rest of the header is zero. */
static dbent *dbent_alloc(db *d, const char *key, size_t klen, size_t room, int wide)
{
    size_t got;
    dbent *e;
    dbent_ext *x;

    if (room < sizeof(void *))
        room = sizeof(void *);
    if (!wide && klen <= DBENT_NARROW_MAX) {
        got = arena_class_size(sizeof(dbent) + klen + room);
        if (got - sizeof(dbent) - klen <= DBENT_NARROW_MAX) {
            e = arena_alloc(d->arena, got);
            memset(e, 0, sizeof(dbent));
            e->klen8 = (uint8_t)klen;
            memcpy(e->data, key, klen);
            return e;
        }
    }
    got = arena_class_size(sizeof(dbent) + sizeof(dbent_ext) + klen + room);
    e = arena_alloc(d->arena, got);
    memset(e, 0, sizeof(dbent));
    e->wide = 1;
    d->nwide++;
    x = dbent_ext_of(e);
    x->klen = (uint32_t)klen;
    x->vlen = 0;
    x->icap = (uint32_t)(got - sizeof(dbent) - sizeof(dbent_ext) - klen);
    x->xidx = DB_NOEXPIRE;
    memcpy(x + 1, key, klen);
    return e;
}

void db_free_value(db *d, dbent *e)
{
    if (has_subexpiry(e))
        heap_del(heap_of(d, 1), e);
    if (e->enc != ENC_INLINE) {
        const type_def *t = type_of(e);
        /* Not while the log is replayed: no client waits then, and a log
         * that builds and deletes large values must not pile them up. */
        if (t->free_some && !db_expiry_paused && t->free_effort(e) > LAZYFREE_THRESHOLD)
            lazyfree_push(t, dbent_ptr(e), e->enc);
        else
            t->free_value(e);
    }
    e->enc = ENC_INLINE;
    dbent_set_vlen(e, 0);
}

size_t db_value_stored(const dbent *e)
{
    return e->enc == ENC_INLINE ? 0 : type_of(e)->stored(e);
}

dbent *db_find_raw(db *d, const char *key, size_t klen)
{
    uint32_t hash = db_hash(d, key, klen);
    dbent *e = (dbent *)ht_find_eq(&d->keys, key, (uint32_t)klen, hash, dbent_eq);

    last_found = e;
    last_hash = hash;
    return e;
}

static void db_expire_entry(db *d, dbent *e)
{
    char kbuf[256];
    size_t klen = dbent_klen(e);
    char *k = klen <= sizeof(kbuf) ? kbuf : xmalloc(klen);

    memcpy(k, dbent_key(e), klen);
    db_delete_entry(d, e);
    if (db_on_expired)
        db_on_expired(d, k, klen);
    if (k != kbuf)
        xfree(k);
}

dbent *db_lookup_write(db *d, const char *key, size_t klen)
{
    dbent *e = db_find_raw(d, key, klen);
    if (!e)
        return NULL;
    if (db_expiry_paused)
        return e;
    if (e->wide && dbent_ext_of(e)->xidx != DB_NOEXPIRE && d->heap[dbent_ext_of(e)->xidx].when <= db_now) {
        if (db_expiry_held)
            return NULL;
        db_expire_entry(d, e);
        return NULL;
    }
    if (has_subexpiry(e) && db_subexpire_due(d, e))
        return NULL;
    if (!db_touch_off)
        db_touch(e);
    return e;
}

long long db_stat_hits, db_stat_misses;

/* ---- the access clock (LRU / LFU) ---- */

#define LRU_MAX ((1u << 24) - 1)
int db_lfu;
int db_lfu_log_factor = 10;
int db_lfu_decay_time = 1;
int db_touch_off;

static uint32_t lru_clock(void)
{
    return (uint32_t)(db_now / 1000) & LRU_MAX;
}

static uint32_t lfu_minutes(void)
{
    return (uint32_t)(db_now / 60000) & 0xFFFF;
}

/* The field a new or rewritten entry starts with. */
static uint32_t clock_init(void)
{
    return db_lfu ? (lfu_minutes() << 8) | DB_LFU_INIT : lru_clock();
}

uint64_t db_idle_ms(const dbent *e)
{
    uint32_t now = lru_clock(), t = e->lru;
    return (uint64_t)(now >= t ? now - t : LRU_MAX - t + now) * 1000;
}

unsigned db_lfu_freq(const dbent *e)
{
    uint32_t now = lfu_minutes(), ldt = e->lru >> 8, counter = e->lru & 255, elapsed, periods;

    elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
    periods = db_lfu_decay_time ? elapsed / (uint32_t)db_lfu_decay_time : 0;
    return periods > counter ? 0 : counter - periods;
}

void db_set_clock(dbent *e, long long idle_s, int freq)
{
    if (db_lfu) {
        if (freq >= 0)
            e->lru = (lfu_minutes() << 8) | (uint32_t)freq;
    } else if (idle_s >= 0) {
        long long t = (long long)lru_clock() - idle_s;
        if (t < 0)
            t += LRU_MAX;
        e->lru = (uint32_t)t & LRU_MAX;
    }
}

void db_touch(dbent *e)
{
    unsigned counter;

    if (!db_lfu) {
        e->lru = lru_clock();
        return;
    }
    counter = db_lfu_freq(e);
    if (counter < 255) {
        double base = counter > DB_LFU_INIT ? counter - DB_LFU_INIT : 0;
        double r = (double)rand() / RAND_MAX;
        if (r < 1.0 / (base * db_lfu_log_factor + 1))
            counter++;
    }
    e->lru = (lfu_minutes() << 8) | counter;
}

dbent *db_lookup(db *d, const char *key, size_t klen)
{
    dbent *e = db_lookup_write(d, key, klen);
    if (e)
        db_stat_hits++;
    else {
        db_stat_misses++;
        if (db_on_miss)
            db_on_miss(d, key, klen);
    }
    return e;
}

static dbent *add_entry(db *d, const char *key, size_t klen, int type, size_t room, int wide)
{
    uint32_t hash = db_hash(d, key, klen);
    dbent *e = dbent_alloc(d, key, klen, room, wide);
    e->tag = hash_tag(hash);
    e->type = (uint8_t)type;
    e->lru = clock_init();
    dbent_set_epoch(e, db_epoch);
    ht_insert_hashed(&d->keys, &e->node, hash);
    if (db_on_new)
        db_on_new(d, key, klen);
    return e;
}

dbent *db_add(db *d, const char *key, size_t klen, int type, size_t room)
{
    return add_entry(d, key, klen, type, room, 0);
}

dbent *db_add_wide(db *d, const char *key, size_t klen, int type, size_t room)
{
    return add_entry(d, key, klen, type, room, 1);
}

dbent *db_set_entry(db *d, const char *key, size_t klen, int type, size_t room)
{
    dbent *e = db_lookup_write(d, key, klen);

    if (!e)
        return db_add(d, key, klen, type, room);
    db_persist(d, e);
    db_free_value(d, e);
    e->type = (uint8_t)type;
    return db_resize_entry(d, e, room);
}

/* Move e to a new entry of room bytes of room, keeping its first keep bytes of
 * room (the value or its pointer), wide if wide is set or e needs it (a TTL, a
 * long value); returns the new address. */
static dbent *relocate(db *d, dbent *e, size_t room, size_t keep, int wide)
{
    uint32_t xidx = dbent_xidx(e), vlen = dbent_vlen(e);
    dbent *n = dbent_alloc(d, dbent_key(e), dbent_klen(e), room,
                           wide || xidx != DB_NOEXPIRE || vlen > DBENT_NARROW_MAX);

    n->lru = e->lru;
    n->type = e->type;
    n->enc = e->enc;
    n->flags = e->flags;
    n->tag = e->tag;
    dbent_set_vlen(n, vlen);
    if (n->wide)
        dbent_ext_of(n)->xidx = xidx;
    memcpy(dbent_room(n), dbent_room(e), keep);
    ht_replace_hashed(&d->keys, &e->node, &n->node, entry_hash(d, e));
    if (xidx != DB_NOEXPIRE)
        d->heap[xidx].e = n;
    if (has_subexpiry(n) && *idx_of(n, 1) != DB_NOEXPIRE)
        d->sheap[*idx_of(n, 1)].e = n;
    entry_free(d, e);
    return n;
}

dbent *db_resize_entry(db *d, dbent *e, size_t room)
{
    uint32_t icap = dbent_icap(e);

    if (room <= icap)
        return e;
    return relocate(d, e, room, icap, 0);
}

dbent *db_wide_entry(db *d, dbent *e)
{
    uint32_t icap;

    if (e->wide)
        return e;
    icap = dbent_icap(e);
    return relocate(d, e, icap, icap, 1);
}

dbent *db_shrink_entry(db *d, dbent *e, size_t room)
{
    uint32_t icap = dbent_icap(e);

    if (room < sizeof(void *))
        room = sizeof(void *);
    if (icap <= 128 || room > icap / 2)
        return e;
    return relocate(d, e, room, room, 0);
}

void db_delete_entry(db *d, dbent *e)
{
    ht_remove_node(&d->keys, &e->node, entry_hash(d, e));
    heap_remove(d, e);
    db_free_value(d, e);
    entry_free(d, e);
}

int db_delete(db *d, const char *key, size_t klen)
{
    dbent *e = db_lookup_write(d, key, klen);
    if (!e)
        return 0;
    db_delete_entry(d, e);
    return 1;
}

dbent *db_move_entry(db *d, dbent *e, db *dst, const char *newkey, size_t nklen)
{
    int64_t when = db_get_expire(d, e);
    int64_t swhen = -1;
    size_t room = e->enc == ENC_INLINE ? dbent_vlen(e) : sizeof(void *);
    dbent *n;

    if (has_subexpiry(e) && *idx_of(e, 1) != DB_NOEXPIRE) {
        swhen = d->sheap[*idx_of(e, 1)].when;
        heap_del(heap_of(d, 1), e);
    }
    n = db_add(dst, newkey, nklen, e->type, room);

    if (when >= 0 || dbent_vlen(e) > DBENT_NARROW_MAX)
        n = db_wide_entry(dst, n);
    n->enc = e->enc;
    dbent_set_vlen(n, dbent_vlen(e));
    memcpy(dbent_room(n), dbent_room(e), room);
    ht_remove_node(&d->keys, &e->node, entry_hash(d, e));
    heap_remove(d, e);
    entry_free(d, e);
    if (when >= 0)
        n = db_set_expire(dst, n, when);
    if (swhen >= 0)
        db_set_subexpire(dst, n, swhen);
    return n;
}

/* ---- whole databases ---- */

static void db_free_node(void *ctx, ht_node *n)
{
    db *d = ctx;
    dbent *e = (dbent *)n;
    db_free_value(d, e);
    entry_free(d, e);
}

long long db_flush(db *d)
{
    long long n = (long long)db_size(d);
    ht_clear(&d->keys, db_free_node, d);
    xfree(d->heap);
    d->heap = NULL;
    d->nheap = d->heapcap = 0;
    xfree(d->sheap);
    d->sheap = NULL;
    d->nsheap = d->sheapcap = 0;
    return n;
}

void db_release(db *d)
{
    db_flush(d);
    ht_release(&d->keys);
}

void db_swap(db *a, db *b)
{
    db t = *a;
    int aid = a->id, bid = b->id;
    *a = *b;
    *b = t;
    a->id = aid;
    b->id = bid;
}

long long db_active_expire(db *d, int64_t now, int64_t budget_us)
{
    int64_t start = mono_us();
    long long n = 0;
    int64_t saved = db_now;

    if (db_expiry_paused || db_expiry_held)
        return 0;
    db_now = now;
    while (d->nheap > 0 && d->heap[0].when <= now) {
        db_expire_entry(d, d->heap[0].e);
        n++;
        if ((n & 31) == 0 && mono_us() - start > budget_us)
            break;
    }
    {
        long long steps = 0;
        while (d->nsheap > 0 && d->sheap[0].when <= now) {
            dbent *e = d->sheap[0].e;
            int64_t next = type_of(e)->subexpire(d, e, now);
            if (db_on_subexpired)
                db_on_subexpired(d, dbent_key(e), dbent_klen(e));
            if (next == -2) {
                db_expire_entry(d, e);
                n++;
            } else {
                db_set_subexpire(d, e, next);
            }
            if ((++steps & 31) == 0 && mono_us() - start > budget_us)
                break;
        }
    }
    db_now = saved;
    return n;
}

int64_t db_get_subexpire(const db *d, const dbent *e)
{
    uint32_t i;
    if (!has_subexpiry(e) || (i = *idx_of((dbent *)e, 1)) == DB_NOEXPIRE)
        return -1;
    return d->sheap[i].when;
}

int db_subexpire_due(db *d, dbent *e)
{
    uint32_t i;
    int64_t next;

    if (db_expiry_paused || db_expiry_held || !has_subexpiry(e) || (i = *idx_of(e, 1)) == DB_NOEXPIRE ||
        d->sheap[i].when > db_now)
        return 0;
    next = type_of(e)->subexpire(d, e, db_now);
    if (db_on_subexpired)
        db_on_subexpired(d, dbent_key(e), dbent_klen(e));
    if (next == -2) {
        db_expire_entry(d, e);
        return 1;
    }
    db_set_subexpire(d, e, next);
    return 0;
}
