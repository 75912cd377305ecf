/* db.h -- the keyspace: logical databases of typed entries with expiry.
 *
 * An entry (dbent) is one arena object holding the hash-table node, the key and,
 * for small strings, the value itself: one allocation per key, no pointer chase
 * to read a small value. Larger values live out of line (a heap buffer, a chunked
 * LZ4 value, or a type's own structure) and the entry holds a pointer.
 *
 * Expiry: entries with a TTL sit in a per-database binary min-heap ordered by
 * expiry time (the entry records its heap index), so the active cycle pops
 * exactly the expired keys with no sampling misses, and lookups expire lazily.
 * An expired key is never returned by a lookup.
 *
 * Invariants: an entry's address is stable for the key's lifetime except through
 * db_resize_entry, db_shrink_entry, db_wide_entry and db_set_expire (which
 * return the new address); dbent_xidx(e) == DB_NOEXPIRE iff the key has no TTL
 * (a key with a TTL is a wide entry); db->keys and the heap hold the same
 * entries' addresses. */
#ifndef SP_DB_H
#define SP_DB_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/ht.h"

#define DB_NOEXPIRE UINT32_MAX

/* Type numbers: the rows of the type table (keyspace/type.h). */
enum {
    OBJ_STRING = 0,
    OBJ_SCRATCHPAD = 1,
    OBJ_LIST = 2,   /* types/list/ */
    OBJ_HASH = 3,   /* types/hash/ */
    OBJ_SET = 4,    /* types/set/ */
    OBJ_ZSET = 5,   /* types/zset/ */
    OBJ_STREAM = 6, /* types/stream/ */
    OBJ_NTYPES = 16
};
/* Value encodings: INLINE, bytes in the entry; any other, a value out of line
 * behind dbent_ptr, whose meaning is the type's (strings: RAW a heap buffer,
 * LZ4 an lzval; PTR: a type's own structure). */
enum { ENC_INLINE = 0, ENC_RAW = 1, ENC_LZ4 = 2, ENC_PTR = 3 };

#define DBENT_F_COMPRESS_PENDING 1 /* queued for background compression (value.c) */
/* Bits 1-7 of flags: the entry's rewrite epoch. An incremental log rewrite
 * (server/aof/persist_rewrite.c, "the incremental rewrite") has written an entry's state to the new base, or
 * the entry was created after the rewrite began, iff its epoch equals
 * db_epoch. db_add stamps new entries with db_epoch; moves and resizes keep
 * the stamp with the header. */
#define DBENT_EPOCH_SHIFT 1
#define DBENT_EPOCH_MASK 0x7Fu
extern uint8_t db_epoch; /* 0..DBENT_EPOCH_MASK */

/* An entry has one of two layouts behind the same 16-byte header:
 *   narrow  header, key, room        -- key <= DBENT_NARROW_MAX bytes, room <=
 *           DBENT_NARROW_MAX bytes, no TTL, value length <= DBENT_NARROW_MAX;
 *           the key length and the value length sit in the header, and the
 *           room is what the arena class leaves after the key (arena_small_size);
 *   wide    header, dbent_ext, key, room -- everything else: a long key, a large
 *           room, a RAW value (its length can be any), a TTL (the heap index).
 * A small key without a TTL (most keys) thus costs 16 bytes besides its key and
 * value. db_add picks the layout from the key and the room asked for;
 * db_wide_entry moves an entry to the wide layout (db_set_expire does it). */
#define DBENT_NARROW_MAX 255

typedef struct dbent_ext {
    uint32_t klen;    /* bytes of key */
    uint32_t vlen;    /* bytes of an INLINE or RAW value */
    uint32_t icap;    /* bytes of room after the key (inline value or a pointer) */
    uint32_t xidx;    /* index in the expire heap, DB_NOEXPIRE if none */
} dbent_ext;

typedef struct dbent {
    union {
        ht_node node; /* the table's link: the keyspace's table has compact nodes (ht.h),
                         of which it uses only node.next; the rest is the fields below */
        struct {
            void *link_;       /* node.next */
            uint32_t lru : 24; /* access clock (db_touch): LRU s, or LFU minutes << 8 | counter */
            uint32_t type : 4; /* OBJ_* */
            uint32_t enc : 2;  /* ENC_* */
            uint32_t wide : 1; /* 1: a dbent_ext follows the header */
            uint32_t spare_ : 1;
            uint8_t flags; /* DBENT_F_* */
            uint8_t tag;   /* bits 24..31 of the key's 32-bit hash, checked before the key */
            uint8_t klen8; /* narrow: bytes of key */
            uint8_t vlen8; /* narrow: bytes of an INLINE value (0 for others) */
        };
    };
    char data[]; /* narrow: key, then room; wide: dbent_ext, key, then room */
} dbent;

_Static_assert(sizeof(dbent) == 16 && offsetof(dbent, data) == 16, "dbent header is 16 bytes");

typedef struct xitem {
    int64_t when;     /* ms since epoch */
    dbent *e;
} xitem;

typedef struct db {
    int id;
    ht keys;
    xitem *heap;      /* min-heap by when: keys with a TTL */
    uint32_t nheap, heapcap;
    xitem *sheap;     /* min-heap by when: keys whose value has expiring parts */
    uint32_t nsheap, sheapcap;
    arena *arena;     /* shared by all databases */
    size_t nwide;     /* entries in the wide layout (a dbent_ext after the header) */
} db;

static inline unsigned dbent_epoch(const dbent *e) { return (unsigned)(e->flags >> DBENT_EPOCH_SHIFT) & DBENT_EPOCH_MASK; }
static inline void dbent_set_epoch(dbent *e, unsigned ep)
{
    e->flags = (uint8_t)((e->flags & ~(DBENT_EPOCH_MASK << DBENT_EPOCH_SHIFT)) | ((ep & DBENT_EPOCH_MASK) << DBENT_EPOCH_SHIFT));
}
static inline dbent_ext *dbent_ext_of(const dbent *e)
{
    return (dbent_ext *)(uintptr_t)e->data;
}
static inline uint32_t dbent_klen(const dbent *e)
{
    return e->wide ? dbent_ext_of(e)->klen : e->klen8;
}
static inline const char *dbent_key(const dbent *e)
{
    return e->data + (e->wide ? sizeof(dbent_ext) : 0);
}
static inline char *dbent_room(dbent *e)
{
    if (e->wide)
        return (char *)(dbent_ext_of(e) + 1) + dbent_ext_of(e)->klen;
    return e->data + e->klen8;
}
/* Bytes of an INLINE or RAW value (0 for the other encodings). */
static inline uint32_t dbent_vlen(const dbent *e)
{
    return e->wide ? dbent_ext_of(e)->vlen : e->vlen8;
}
/* Set the value length: an INLINE value (which fits the room, so a narrow
 * entry's too), or a RAW value's in a wide entry (db_wide_entry first). */
static inline void dbent_set_vlen(dbent *e, size_t n)
{
    if (e->wide) {
        dbent_ext_of(e)->vlen = (uint32_t)n;
    } else {
        assert(n <= DBENT_NARROW_MAX);
        e->vlen8 = (uint8_t)n;
    }
}
/* Bytes of room after the key. */
static inline uint32_t dbent_icap(const dbent *e)
{
    return e->wide ? dbent_ext_of(e)->icap : (uint32_t)(arena_small_size(e) - sizeof(dbent) - e->klen8);
}
/* Index in the expire heap, DB_NOEXPIRE if the key has no TTL. */
static inline uint32_t dbent_xidx(const dbent *e)
{
    return e->wide ? dbent_ext_of(e)->xidx : DB_NOEXPIRE;
}
/* Bytes of the entry itself (its arena object: header, key and room). */
static inline size_t dbent_size(const dbent *e)
{
    return e->wide ? sizeof(dbent) + sizeof(dbent_ext) + dbent_ext_of(e)->klen + dbent_ext_of(e)->icap
                   : arena_small_size(e);
}
static inline void *dbent_ptr(const dbent *e)
{
    void *p;
    __builtin_memcpy(&p, dbent_room((dbent *)e), sizeof(p));
    return p;
}
static inline void dbent_set_ptr(dbent *e, void *p)
{
    __builtin_memcpy(dbent_room(e), &p, sizeof(p));
}

/* Current time used for expiry decisions during one command (ms). Set by the
 * dispatcher so that a command sees one consistent instant. */
extern int64_t db_now;

/* While non-zero (the log is being replayed), nothing expires: lookups return
 * keys and entries whose time has passed, db_is_expired answers 0 and the active
 * cycle does nothing. The log holds a DEL for every expiry that happened, so
 * the replay must not expire anything on its own. */
extern int db_expiry_paused;
/* While non-zero (CLIENT PAUSE, cmd/pause.h), nothing is deleted for its time:
 * lookups answer a key whose time has passed as missing but leave it, the
 * active cycle does nothing, and a scratchpad's due entries stay until the
 * pause ends (Redis 7.0 holds expiry the same way during a pause). */
extern int db_expiry_held;

/* The access clock of each entry (Redis's LRU/LFU field, 24 bits): with an LRU
 * (or no) policy, the seconds of the last access modulo 2^24; with an LFU
 * policy (db_lfu set), the minutes of the last decrement modulo 2^16 above an
 * 8-bit logarithmic counter, which starts at DB_LFU_INIT, grows with accesses
 * as 1 / ((counter - DB_LFU_INIT) * db_lfu_log_factor + 1) and loses one per
 * db_lfu_decay_time minutes unaccessed. Lookups (db_lookup, db_lookup_write)
 * touch the entry unless db_touch_off is set (TYPE, EXISTS, TTL, OBJECT, SCAN
 * look without touching, as Redis's LOOKUP_NOTOUCH). Switching between LRU
 * and LFU reinterprets the field: the values settle as keys are accessed. */
#define DB_LFU_INIT 5
extern int db_lfu;            /* 1: an LFU maxmemory-policy is selected */
extern int db_lfu_log_factor; /* lfu-log-factor */
extern int db_lfu_decay_time; /* lfu-decay-time, minutes */
extern int db_touch_off;      /* while non-zero, lookups leave the clock alone */
/* Record an access to e (and, with LFU, decay then maybe increment its counter). */
void db_touch(dbent *e);
/* Milliseconds since e's last access (LRU reading of the field, Redis's
 * estimate: resolution one second). */
uint64_t db_idle_ms(const dbent *e);
/* e's LFU counter decayed to now, without recording an access (OBJECT FREQ). */
unsigned db_lfu_freq(const dbent *e);

/* Set e's access clock as RESTORE's IDLETIME / FREQ do (Redis's
 * objectSetLRUOrLFU): with an LFU policy freq (0..255) if >= 0, else, with an
 * LRU one, idle_s seconds ago if >= 0; otherwise the clock is left. */
void db_set_clock(dbent *e, long long idle_s, int freq);

/* Keyspace hits and misses counted by db_lookup (INFO stats). */
extern long long db_stat_hits, db_stat_misses;

void db_init(db *d, int id, arena *a, uint64_t seed);
/* Free every entry (and its value) and the tables. */
void db_release(db *d);
/* Remove every key. Returns the number removed. */
long long db_flush(db *d);
/* Exchange the contents of two databases (SWAPDB). */
void db_swap(db *a, db *b);

static inline uint64_t db_size(const db *d) { return ht_count(&d->keys); }
static inline uint32_t db_expires(const db *d) { return d->nheap; }

/* The live entry for key, or NULL. An expired entry found is deleted first.
 * db_lookup counts keyspace hits/misses (for reads); db_lookup_write does not. */
dbent *db_lookup(db *d, const char *key, size_t klen);
dbent *db_lookup_write(db *d, const char *key, size_t klen);
/* As db_lookup_write but never expires (for the active cycle and tests). */
dbent *db_find_raw(db *d, const char *key, size_t klen);

/* Create and link a new entry for key (which must not exist) of the given type
 * with at least room bytes of room after the key; dbent_vlen(e) is 0, enc INLINE. */
dbent *db_add(db *d, const char *key, size_t klen, int type, size_t room);
/* As db_add, in the wide layout (dbent): for a key about to get a TTL. */
dbent *db_add_wide(db *d, const char *key, size_t klen, int type, size_t room);
/* Give key a new value of type, as Redis's setKey: a missing key is added
 * (db_add, so the "new" event), an existing one keeps its entry and loses its
 * value and TTL. Returns the entry (type set, ENC_INLINE, vlen 0) with at
 * least room bytes of value space; the caller stores the value. */
dbent *db_set_entry(db *d, const char *key, size_t klen, int type, size_t room);

/* Give e at least room bytes of room, moving it if needed; returns its address
 * (the old one is invalid if different). The value bytes/pointer are kept. */
dbent *db_resize_entry(db *d, dbent *e, size_t room);
/* e in the wide layout (see dbent): returns it, moved if it was narrow (the
 * old address is then invalid). Needed before a RAW value's length is set. */
dbent *db_wide_entry(db *d, dbent *e);
/* Give memory back: move e to an entry of about room bytes of room (keeping
 * the first room bytes) when its room is more than twice that and over 128
 * bytes; returns its address (the old one is invalid if different). For a
 * value kept in the entry that shrank (a compact hash after HDEL). */
dbent *db_shrink_entry(db *d, dbent *e, size_t room);

/* Unlink e, free its value and the entry. */
void db_delete_entry(db *d, dbent *e);
/* Delete key if present (expired keys count as absent). Returns 1 / 0. */
int db_delete(db *d, const char *key, size_t klen);

/* Unlink e without freeing its value; returns a new entry for newkey in dst
 * holding the same value, type and TTL. dst may be d. newkey must not exist in dst. */
dbent *db_move_entry(db *d, dbent *e, db *dst, const char *newkey, size_t nklen);

/* TTL: absolute expiry in ms, or -1 if none. */
int64_t db_get_expire(const db *d, const dbent *e);
/* Set e's TTL; returns e's address, which changes if e was narrow. */
dbent *db_set_expire(db *d, dbent *e, int64_t when);
/* Returns 1 if a TTL was removed. */
int db_persist(db *d, dbent *e);
/* 1 if the entry's TTL has passed at db_now. */
int db_is_expired(const db *d, const dbent *e);

/* Active expiry: delete expired keys until none is left or budget_us passes.
 * Returns the number deleted. */
long long db_active_expire(db *d, int64_t now, int64_t budget_us);

/* Free the value held by e (not the entry); leaves e as an empty INLINE value.
 * A large value is detached and freed in steps from the loop (lazyfree.h). */
void db_free_value(db *d, dbent *e);

/* Bytes of memory held by e's out-of-line value (0 for inline). */
size_t db_value_stored(const dbent *e);

/* Called when a key expires (lazily or actively), after its deletion: set at
 * start-up to cmd/signal.c's signal_key_expired. */
extern void (*db_on_expired)(db *d, const char *key, size_t klen);
/* Called by a type when a part of key expired by itself and others may be
 * waiting for that (a scratchpad's lease or entry: its waiters and feed
 * readers): set at start-up to cmd/signal.c's signal_key_changed. */
extern void (*db_on_changed)(db *d, const char *key, size_t klen);
/* Called by db_add for every key created (Redis's dbAdd: the "new" keyspace
 * event), NULL for none; set at start-up to cmd/signal.c's signal_key_new. */
extern void (*db_on_new)(db *d, const char *key, size_t klen);
/* Called by db_lookup when the key is missing (the "keymiss" event), NULL for none. */
extern void (*db_on_miss)(db *d, const char *key, size_t klen);
/* Called when a value's own entries expired (a scratchpad's: the "sp.expired"
 * event), before the key goes if they were its last; NULL for none. */
extern void (*db_on_subexpired)(db *d, const char *key, size_t klen);
/* Sub-expiry: a type whose values hold parts with lifetimes of their own (the
 * entries of a scratchpad) keeps, per key, the earliest time one of them is due
 * in the database's second heap, so the active cycle reclaims them without
 * anyone touching the key. The type's row (type.h: subidx, subexpire) says where
 * its value keeps its heap index (initialised to DB_NOEXPIRE) and how to expire
 * the parts due by now: subexpire returns the next due time, -1 if none is
 * left, or -2 if the value is now empty and the key must go. */
/* Set (when >= 0) or clear (when < 0) the sub-expiry time of key e. */
void db_set_subexpire(db *d, dbent *e, int64_t when);
/* The sub-expiry time of key e, or -1. */
int64_t db_get_subexpire(const db *d, const dbent *e);
/* Apply the sub-expiry of e now if due (lazy path; db_lookup does it too).
 * Returns 1 if the key was deleted (reported like an expired key). */
int db_subexpire_due(db *d, dbent *e);

#endif
