/* db.c -- the keyspace (see db.h).
 *
 * Entries are arena objects: header, key, then `icap` bytes of room that hold a
 * small value inline or a pointer to an out-of-line one. The expire heap is an
 * array-backed binary min-heap; each entry stores its heap index so that a TTL
 * can be changed or removed in O(log n). */
#include "keyspace/db.h"
#include "keyspace/lazyfree.h"
#include "keyspace/type.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/mem.h"
#include "core/util.h"

#define DBENT_HDR offsetof(dbent, data)

int64_t db_now;
uint8_t db_epoch;
void (*db_on_expired)(db *d, const char *key, size_t klen);
void (*db_on_changed)(db *d, const char *key, size_t klen);
void (*db_on_new)(db *d, const char *key, size_t klen);
void (*db_on_miss)(db *d, const char *key, size_t klen);
void (*db_on_subexpired)(db *d, const char *key, size_t klen);

static const char *dbent_keyof(const ht_node *n)
{
    return ((const dbent *)n)->data;
}

static uint32_t db_hash(const db *d, const char *key, size_t klen)
{
    return (uint32_t)ht_hash(key, klen, d->keys.seed);
}

void db_init(db *d, int id, arena *a, uint64_t seed)
{
    memset(d, 0, sizeof(*d));
    d->id = id;
    d->arena = a;
    ht_init(&d->keys, dbent_keyof, seed);
}

/* ---- expire heaps ----
 *
 * Two heaps share the code below: heap 0 orders keys by their own TTL and keeps
 * the index in the entry (e->xidx); heap 1 orders keys by the earliest expiry of
 * a part of their value and keeps the index inside the value (its type row's subidx). */

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
    return sub ? type_of(e)->subidx(dbent_ptr(e)) : &e->xidx;
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
    uint32_t *pi = idx_of(e, h.sub), i = *pi;
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
    return e->xidx == DB_NOEXPIRE ? -1 : d->heap[e->xidx].when;
}

void db_set_expire(db *d, dbent *e, int64_t when)
{
    heap_put(heap_of(d, 0), e, when);
}

int db_persist(db *d, dbent *e)
{
    if (e->xidx == DB_NOEXPIRE)
        return 0;
    heap_remove(d, e);
    return 1;
}

int db_expiry_paused;
int db_expiry_held;

int db_is_expired(const db *d, const dbent *e)
{
    return !db_expiry_paused && e->xidx != DB_NOEXPIRE && d->heap[e->xidx].when <= db_now;
}

/* ---- entries ---- */

static size_t dbent_size(const dbent *e)
{
    return DBENT_HDR + e->node.klen + e->icap;
}

static dbent *dbent_alloc(db *d, const char *key, size_t klen, size_t room)
{
    size_t want, got;
    dbent *e;

    if (room < sizeof(void *))
        room = sizeof(void *);
    want = DBENT_HDR + klen + room;
    got = arena_class_size(want);
    e = arena_alloc(d->arena, want);
    memset(e, 0, DBENT_HDR);
    e->node.klen = (uint32_t)klen;
    e->icap = (uint32_t)(got - DBENT_HDR - klen);
    e->xidx = DB_NOEXPIRE;
    memcpy(e->data, key, klen);
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
    e->vlen = 0;
}

size_t db_value_stored(const dbent *e)
{
    return e->enc == ENC_INLINE ? 0 : type_of(e)->stored(e);
}

dbent *db_find_raw(db *d, const char *key, size_t klen)
{
    return (dbent *)ht_find(&d->keys, key, (uint32_t)klen, db_hash(d, key, klen));
}

static void db_expire_entry(db *d, dbent *e)
{
    char kbuf[256];
    char *k = e->node.klen <= sizeof(kbuf) ? kbuf : xmalloc(e->node.klen);
    size_t klen = e->node.klen;

    memcpy(k, e->data, klen);
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
    if (e->xidx != DB_NOEXPIRE && d->heap[e->xidx].when <= db_now) {
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

dbent *db_add(db *d, const char *key, size_t klen, int type, size_t room)
{
    dbent *e = dbent_alloc(d, key, klen, room);
    e->node.hash = db_hash(d, key, klen);
    e->type = (uint8_t)type;
    e->lru = clock_init();
    dbent_set_epoch(e, db_epoch);
    ht_insert(&d->keys, &e->node);
    if (db_on_new)
        db_on_new(d, key, klen);
    return e;
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
 * room (the value or its pointer); returns the new address. */
static dbent *relocate(db *d, dbent *e, size_t room, size_t keep)
{
    dbent *n = dbent_alloc(d, e->data, e->node.klen, room);
    uint32_t icap = n->icap;

    memcpy(n, e, DBENT_HDR);
    n->icap = icap;
    memcpy(n->data + n->node.klen, e->data + e->node.klen, keep);
    ht_replace(&d->keys, &e->node, &n->node);
    if (n->xidx != DB_NOEXPIRE)
        d->heap[n->xidx].e = n;
    if (has_subexpiry(n) && *idx_of(n, 1) != DB_NOEXPIRE)
        d->sheap[*idx_of(n, 1)].e = n;
    arena_free(d->arena, e, dbent_size(e));
    return n;
}

dbent *db_resize_entry(db *d, dbent *e, size_t room)
{
    if (room <= e->icap)
        return e;
    return relocate(d, e, room, e->icap);
}

dbent *db_shrink_entry(db *d, dbent *e, size_t room)
{
    if (room < sizeof(void *))
        room = sizeof(void *);
    if (e->icap <= 128 || room > e->icap / 2)
        return e;
    return relocate(d, e, room, room);
}

void db_delete_entry(db *d, dbent *e)
{
    ht_remove(&d->keys, e->data, e->node.klen, e->node.hash);
    heap_remove(d, e);
    db_free_value(d, e);
    arena_free(d->arena, e, dbent_size(e));
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
    size_t room = e->enc == ENC_INLINE ? e->vlen : sizeof(void *);
    dbent *n;

    if (has_subexpiry(e) && *idx_of(e, 1) != DB_NOEXPIRE) {
        swhen = d->sheap[*idx_of(e, 1)].when;
        heap_del(heap_of(d, 1), e);
    }
    n = db_add(dst, newkey, nklen, e->type, room);

    n->enc = e->enc;
    n->vlen = e->vlen;
    memcpy(dbent_room(n), dbent_room(e), room);
    ht_remove(&d->keys, e->data, e->node.klen, e->node.hash);
    heap_remove(d, e);
    arena_free(d->arena, e, dbent_size(e));
    if (when >= 0)
        db_set_expire(dst, n, when);
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
    arena_free(d->arena, e, dbent_size(e));
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
