/* value.c -- string values over three encodings (see value.h).
 *
 * INLINE (up to SV_INLINE_MAX bytes) lives in the entry's room; RAW is a heap
 * buffer with spare capacity for appends; LZ4 is a chunked compressed value
 * (lzval.h) used at or above compress-threshold. A value moves to a larger
 * encoding as it grows; replacing a value picks the encoding afresh.
 *
 * Compression is deferred: a write at or above the threshold stores the bytes
 * RAW (a memcpy, as Redis) and queues the key; sv_compress_step, run from the
 * cron with a time budget, turns queued values into LZ4 (and seals the raw tail
 * of LZ4 values that were appended to). A key is queued at most once at a time
 * (DBENT_F_COMPRESS_PENDING), so a hot key rewritten in a loop costs one
 * compression per pass, not one per write. Queue items name the key, not the
 * entry, so a key deleted, renamed or swapped away meanwhile is simply skipped
 * (its value stays RAW until it is written again).
 *
 * Hot values stay raw: a compressed value read whole (GET) compress-hot-reads
 * times within one second is decoded back to RAW by that read (sv_read_hot),
 * so that further reads are one copy, as a raw value's, instead of one LZ4
 * decoding each (a 4 KB value of log text: ~9,000 instructions against ~2,000
 * for the whole GET of a raw one). It is queued as a hot item: the background
 * pass leaves it raw while it is read, and compresses it again once it has not
 * been read for SV_HOT_IDLE_MS (with an LFU maxmemory-policy: once its LFU
 * counter has decayed to its initial value). The bytes held raw this way are
 * counted (sv_hot_bytes) and bounded by compress-hot-max-memory: a value that
 * would pass the bound stays compressed. They are heap buffers like any RAW
 * value, so used_memory counts them. A change of a hot value is an ordinary
 * write of a RAW value; its queue item keeps its place and the count is given
 * back when the item is taken off the queue (the value compressed again,
 * deleted, or changed to something smaller than the threshold), so the count
 * may run ahead of the bytes, never behind them. */
#include "types/string/value.h"

#include <stdio.h>
#include <string.h>

#include "core/lz/lzidle.h"
#include "core/lz/lzval.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "keyspace/vcomp.h"

#define SV_INLINE_MAX 128

typedef struct cq_item {
    db *d;
    uint32_t klen;
    char *key;
    size_t hot; /* bytes counted in sv_hot_bytes for this item (a hot value kept raw), or 0 */
} cq_item;

long long hll_sparse_max_bytes = 3000;
int sv_hot_reads = 8;
long long sv_hot_max_memory = 64LL << 20;
size_t sv_hot_bytes, sv_hot_values;
unsigned long long sv_hot_decoded, sv_hot_cooled;

#define SV_HOT_IDLE_MS 2000 /* a hot value not read for this long is compressed again */

static cq_item *cq;          /* ring of keys waiting for compression */
static size_t cq_head, cq_len, cq_cap;

static void compress_now(dbent *e);
static int want_lz4(size_t n);

/* Queue e's key for compression (once); hot: the bytes of a hot value kept raw
 * (0 for an ordinary item). When the queue is full the value is compressed at
 * once, so the queue's memory stays bounded. */
static void queue_item(db *d, dbent *e, size_t hot)
{
    cq_item *it;

    if (e->flags & DBENT_F_COMPRESS_PENDING)
        return;
    if (cq_len == cq_cap) {
        if (cq_cap >= (1u << 20)) {
            compress_now(e);
            return;
        }
        {
            size_t ncap = cq_cap ? cq_cap * 2 : 64, i;
            cq_item *n = xmalloc(sizeof(cq_item) * ncap);
            for (i = 0; i < cq_len; i++)
                n[i] = cq[(cq_head + i) % cq_cap];
            xfree(cq);
            cq = n;
            cq_cap = ncap;
            cq_head = 0;
        }
    }
    it = &cq[(cq_head + cq_len) % cq_cap];
    it->d = d;
    it->klen = dbent_klen(e);
    it->key = xstrndup(dbent_key(e), dbent_klen(e));
    it->hot = hot;
    cq_len++;
    e->flags |= DBENT_F_COMPRESS_PENDING;
    if (hot) {
        sv_hot_bytes += hot;
        sv_hot_values++;
    }
}

static void queue_compress(db *d, dbent *e)
{
    queue_item(d, e, 0);
}

/* A hot value is cold once it has not been read for SV_HOT_IDLE_MS (the
 * access clock's LRU reading), or, with an LFU policy, once its counter is
 * back to its initial value. */
static int hot_is_cold(const dbent *e)
{
    if (db_lfu)
        return db_lfu_freq(e) <= DB_LFU_INIT;
    return db_idle_ms(e) >= SV_HOT_IDLE_MS;
}

dbent *sv_read_hot(db *d, dbent *e)
{
    lzval *v;
    size_t n;
    char *buf;

    if (e->enc != ENC_LZ4 || sv_hot_reads <= 0 || (e->flags & DBENT_F_COMPRESS_PENDING))
        return e;
    v = dbent_ptr(e);
    if (lzval_note_read(v, (uint32_t)(db_now / 1000)) < (uint32_t)sv_hot_reads || lzval_holders(v) > 1)
        return e;
    n = lzval_len(v);
    if (n > UINT32_MAX || sv_hot_bytes + n > (unsigned long long)sv_hot_max_memory ||
        (vc_accel_mem_limit && mem_used() >= vc_accel_mem_limit))
        return e;
    buf = xmalloc(n ? n : 1);
    if (lzval_read(v, 0, n, buf, NULL) < 0) {
        xfree(buf); /* corrupt: left compressed, the read reports it */
        return e;
    }
    lzval_free(v);
    e = db_wide_entry(d, e); /* a RAW value's length needs the wide layout */
    dbent_set_ptr(e, buf);
    e->enc = ENC_RAW;
    dbent_set_vlen(e, n);
    sv_hot_decoded++;
    queue_item(d, e, n);
    return e;
}

void sv_note_moved(db *d, dbent *e)
{
    if (e->type == OBJ_STRING && ((e->enc == ENC_RAW && want_lz4(dbent_vlen(e))) || e->enc == ENC_LZ4))
        queue_compress(d, e);
}

size_t sv_compress_pending(void)
{
    return cq_len;
}

/* A new compressed value for p[0..n): registered, without a dictionary, or,
 * when the dictionary is chosen on the write path, as lzval_new decides. */
static lzval *lz_new(const char *p, size_t n)
{
    lzidle *q = vc_lzidle();
    lzval *v;

    if (!q)
        return lzval_new(p, n, vc_chunk);
    v = lzval_new_fast(p, n, vc_chunk, vc_write_accel());
    lzidle_adopt(q, v);
    return v;
}

static int want_lz4(size_t n)
{
    return vc_threshold > 0 && n >= vc_threshold;
}

size_t sv_len(const dbent *e)
{
    if (e->enc == ENC_LZ4)
        return lzval_len(dbent_ptr(e));
    return dbent_vlen(e);
}

const char *sv_ptr(const dbent *e)
{
    switch (e->enc) {
    case ENC_INLINE:
        return dbent_room((dbent *)e);
    case ENC_RAW:
        return dbent_ptr(e);
    default:
        return NULL;
    }
}

char *sv_ptr_mut(dbent *e)
{
    return e->enc == ENC_RAW ? dbent_ptr(e) : NULL;
}

int sv_read(const dbent *e, size_t off, size_t n, char *dst)
{
    if (n == 0)
        return 0;
    if (e->enc == ENC_LZ4)
        return lzval_read(dbent_ptr(e), off, n, dst, vc_lzcache());
    memcpy(dst, sv_ptr(e) + off, n);
    return 0;
}

/* Store p[0..n) as e's value, e holding no value (enc INLINE, vlen 0). */
/* A RAW value's entry about to hold n bytes: a narrow entry's length field
 * holds at most DBENT_NARROW_MAX, so past it the entry becomes wide (moved:
 * use the entry returned). RAW entries are made wide (store_fresh), but COPY,
 * RENAME, MOVE and a resize give a RAW value of up to DBENT_NARROW_MAX bytes
 * a narrow entry, and a write may then grow it. */
static dbent *raw_room(db *d, dbent *e, size_t n)
{
    return !e->wide && n > DBENT_NARROW_MAX ? db_wide_entry(d, e) : e;
}

static dbent *store_fresh(db *d, dbent *e, const char *p, size_t n)
{
    if (n <= SV_INLINE_MAX) {
        e = db_resize_entry(d, e, n);
        memcpy(dbent_room(e), p, n);
        e->enc = ENC_INLINE;
        dbent_set_vlen(e, n);
    } else {
        char *buf = xmalloc(n);
        memcpy(buf, p, n);
        e = db_wide_entry(d, e);
        dbent_set_ptr(e, buf);
        e->enc = ENC_RAW;
        dbent_set_vlen(e, n);
        if (want_lz4(n))
            queue_compress(d, e);
    }
    return e;
}

dbent *sv_replace(db *d, dbent *e, const char *p, size_t n)
{
    if (e->enc == ENC_INLINE && e->type == OBJ_STRING && n <= SV_INLINE_MAX) {
        if (!e->wide && n <= arena_small_size(e) - sizeof(dbent) - e->klen8) {
            memmove(e->data + e->klen8, p, n); /* narrow: dbent_room and dbent_set_vlen, unrolled */
            e->vlen8 = (uint8_t)n;
            return e;
        }
        if (e->wide && n <= dbent_ext_of(e)->icap) {
            dbent_ext *x = dbent_ext_of(e);
            memmove((char *)(x + 1) + x->klen, p, n);
            x->vlen = (uint32_t)n;
            return e;
        }
    }
    if (e->enc == ENC_RAW && n > SV_INLINE_MAX) {
        e = raw_room(d, e, n);
        char *buf = dbent_ptr(e);
        size_t cap = xmalloc_size(buf);
        if (cap < n || cap > 2 * n + 64) {
            xfree(buf);
            buf = xmalloc(n);
            dbent_set_ptr(e, buf);
        }
        memcpy(buf, p, n);
        dbent_set_vlen(e, n);
        if (want_lz4(n))
            queue_compress(d, e);
        return e;
    }
    db_free_value(d, e);
    e->type = OBJ_STRING;
    return store_fresh(d, e, p, n);
}

dbent *sv_set(db *d, const char *key, size_t klen, const char *p, size_t n, int flags)
{
    dbent *e = db_lookup_write(d, key, klen);

    if (!e) {
        size_t room = n <= SV_INLINE_MAX ? n : sizeof(void *);
        e = (flags & SV_TTL) ? db_add_wide(d, key, klen, OBJ_STRING, room) : db_add(d, key, klen, OBJ_STRING, room);
        return store_fresh(d, e, p, n);
    }
    if (!(flags & SV_KEEPTTL))
        db_persist(d, e);
    if (e->type != OBJ_STRING) {
        db_free_value(d, e);
        e->type = OBJ_STRING;
    }
    return sv_replace(d, e, p, n);
}

dbent *sv_set_lzval(db *d, const char *key, size_t klen, lzval *v)
{
    dbent *e = db_lookup_write(d, key, klen);

    if (!e) {
        e = db_add(d, key, klen, OBJ_STRING, sizeof(void *));
    } else {
        db_persist(d, e);
        db_free_value(d, e);
        e->type = OBJ_STRING;
        e = db_resize_entry(d, e, sizeof(void *));
    }
    dbent_set_ptr(e, v);
    e->enc = ENC_LZ4;
    dbent_set_vlen(e, 0);
    vc_dict_adopt(v);
    return e;
}

/* Growth policy for RAW buffers: double up to 1 MB, then add 1 MB. */
static size_t grow_cap(size_t need)
{
    return need < 1024 * 1024 ? need * 2 : need + 1024 * 1024;
}

/* Make e a RAW value with capacity for at least need bytes; keeps the bytes. */
static dbent *to_raw(db *d, dbent *e, size_t need)
{
    if (e->enc == ENC_RAW) {
        char *buf = dbent_ptr(e);
        e = raw_room(d, e, need);
        if (xmalloc_size(buf) < need)
            dbent_set_ptr(e, xrealloc(buf, grow_cap(need)));
        return e;
    }
    /* INLINE -> RAW */
    {
        char *buf = xmalloc(grow_cap(need));
        memcpy(buf, dbent_room(e), dbent_vlen(e));
        e = db_wide_entry(d, db_resize_entry(d, e, sizeof(void *)));
        dbent_set_ptr(e, buf);
        e->enc = ENC_RAW;
    }
    return e;
}

/* Make e (RAW or INLINE with bytes at sv_ptr) an LZ4 value holding its bytes,
 * unless compression does not shrink them (random bytes, already compressed
 * data): the value then stays as it is, since its frame, index and header would
 * take more memory than the bytes (a 4 KB value of redis-benchmark's random
 * payload: 4704 bytes as LZ4 against 4176 raw, MEMORY USAGE) and every read
 * would pay for the frame. A later write tries again. */
static int to_lz4(dbent *e)
{
    const char *p = sv_ptr(e);
    size_t n = dbent_vlen(e);
    lzval *v = lz_new(p, n);

    if (lzval_stored(v) >= n) {
        lzval_free(v);
        return 0;
    }
    if (e->enc == ENC_RAW)
        xfree(dbent_ptr(e));
    dbent_set_ptr(e, v);
    e->enc = ENC_LZ4;
    dbent_set_vlen(e, 0);
    return 0;
}

int sv_append(db *d, dbent **ep, const char *p, size_t n)
{
    dbent *e = *ep;
    size_t len = sv_len(e), newlen = len + n;

    if (n == 0)
        return 0;
    if (e->enc == ENC_LZ4) {
        queue_compress(d, e); /* to seal the raw tail once appends stop */
        return lzval_append(dbent_ptr(e), p, n, vc_lzcache());
    }
    if (e->enc == ENC_INLINE && newlen <= SV_INLINE_MAX) {
        e = db_resize_entry(d, e, newlen);
        memcpy(dbent_room(e) + len, p, n);
        dbent_set_vlen(e, newlen);
        *ep = e;
        return 0;
    }
    e = to_raw(d, e, newlen);
    memcpy((char *)dbent_ptr(e) + len, p, n);
    dbent_set_vlen(e, newlen);
    if (want_lz4(newlen))
        queue_compress(d, e);
    *ep = e;
    return 0;
}

int sv_setrange(db *d, dbent **ep, size_t off, const char *p, size_t n)
{
    dbent *e = *ep;
    size_t len = sv_len(e), end = off + n, newlen = end > len ? end : len;

    if (n == 0)
        return 0;
    if (e->enc == ENC_LZ4) {
        lzval *v = dbent_ptr(e);
        if (off > len) {
            char zero[4096];
            size_t gap = off - len;
            memset(zero, 0, sizeof(zero));
            while (gap > 0) {
                size_t k = gap < sizeof(zero) ? gap : sizeof(zero);
                if (lzval_append(v, zero, k, vc_lzcache()) < 0)
                    return -1;
                gap -= k;
            }
        }
        return lzval_setrange(v, off, p, n, vc_lzcache());
    }
    if (e->enc == ENC_INLINE && newlen <= SV_INLINE_MAX) {
        e = db_resize_entry(d, e, newlen);
    } else {
        e = to_raw(d, e, newlen);
    }
    {
        char *buf = e->enc == ENC_INLINE ? dbent_room(e) : dbent_ptr(e);
        if (off > len)
            memset(buf + len, 0, off - len);
        memcpy(buf + off, p, n);
    }
    dbent_set_vlen(e, newlen);
    if (e->enc == ENC_RAW && want_lz4(newlen))
        queue_compress(d, e);
    *ep = e;
    return 0;
}

static void compress_now(dbent *e)
{
    if (e->enc == ENC_RAW && want_lz4(dbent_vlen(e)))
        to_lz4(e);
    else if (e->enc == ENC_LZ4)
        lzval_seal(dbent_ptr(e));
}

void sv_compress_entry(dbent *e)
{
    compress_now(e);
}

size_t sv_compress_step(int64_t budget_us)
{
    int64_t start = mono_us();
    size_t done = 0, visits = cq_len; /* each item at most once: hot ones go back */

    while (cq_len > 0 && visits-- > 0) {
        cq_item it = cq[cq_head];
        dbent *e;

        cq_head = (cq_head + 1) % cq_cap;
        cq_len--;
        e = db_find_raw(it.d, it.key, it.klen);
        if (it.hot) {
            if (e && e->type == OBJ_STRING && (e->flags & DBENT_F_COMPRESS_PENDING) && e->enc == ENC_RAW &&
                want_lz4(dbent_vlen(e)) && !hot_is_cold(e)) {
                cq[(cq_head + cq_len) % cq_cap] = it; /* still read: stays raw, queued */
                cq_len++;
                if (mono_us() - start >= budget_us)
                    break;
                continue;
            }
            sv_hot_bytes -= it.hot;
            sv_hot_values--;
            sv_hot_cooled++;
        }
        if (e && e->type == OBJ_STRING && (e->flags & DBENT_F_COMPRESS_PENDING)) {
            e->flags &= (uint8_t)~DBENT_F_COMPRESS_PENDING;
            compress_now(e);
            done++;
        }
        xfree(it.key);
        if (mono_us() - start >= budget_us)
            break;
    }
    if (cq_len == 0 && cq_cap > 1024) {
        xfree(cq);
        cq = NULL;
        cq_cap = cq_head = 0;
    }
    return done;
}

const char *sv_encoding_name(const dbent *e)
{
    long long v;

    if (e->enc == ENC_LZ4)
        return "lz4";
    if (dbent_vlen(e) <= 20 && str_to_ll(sv_ptr(e), dbent_vlen(e), &v) == 0)
        return "int";
    if (dbent_vlen(e) <= 44 && e->enc == ENC_INLINE)
        return "embstr";
    return "raw";
}

/* ---- the string as a keyspace type ---- */

static void type_free_value(dbent *e)
{
    if (e->enc == ENC_LZ4)
        lzval_free(dbent_ptr(e));
    else
        xfree(dbent_ptr(e));
}

static void *type_dup_value(const dbent *e)
{
    void *p;

    if (e->enc == ENC_LZ4)
        return lzval_dup(dbent_ptr(e));
    p = xmalloc(dbent_vlen(e));
    memcpy(p, dbent_ptr(e), dbent_vlen(e));
    return p;
}

static size_t type_stored(const dbent *e)
{
    if (e->enc == ENC_LZ4)
        return lzval_stored(dbent_ptr(e));
    return e->enc == ENC_RAW ? xmalloc_size(dbent_ptr(e)) : 0;
}

static size_t type_logical(const dbent *e)
{
    return sv_len(e);
}

static void type_visit_lz(const dbent *e, void (*fn)(lzval *v, void *ctx), void *ctx)
{
    if (e->enc == ENC_LZ4)
        fn(dbent_ptr(e), ctx);
}

/* _SETSTR key value expire_ms: the whole string, its value bytes or stored chunks. */
static int type_rewrite(const effect_out *o, int dbid, const dbent *e, int64_t expire, int64_t now, char *why,
                        size_t whylen)
{
    (void)now;
    if (e->enc == ENC_LZ4 && type_verify_lz(dbent_ptr(e), dbid, e, NULL, 0, why, whylen) < 0)
        return -1;
    eo_begin(o, dbid);
    eo_str(o, "_SETSTR");
    eo_bytes(o, dbent_key(e), dbent_klen(e));
    if (e->enc == ENC_LZ4)
        eo_lzval(o, dbent_ptr(e));
    else
        eo_bytes(o, sv_ptr(e), sv_len(e));
    eo_ll(o, expire);
    eo_end(o);
    return 0;
}

static int replay_fail(char *why, size_t whylen, const char *msg)
{
    snprintf(why, whylen, "%s (effect _SETSTR)", msg);
    return -1;
}

/* _SETSTR key value expire_ms (the replay of type_rewrite's effect). */
static int apply_setstr(effect_replay *r, db *d, int dbid, const effect_arg *a, int argc, char *why, size_t whylen)
{
    long long expire;
    dbent *e;

    if (argc != 4 || a[1].lz || a[3].lz || str_to_ll(a[3].p, a[3].len, &expire) < 0)
        return replay_fail(why, whylen, "malformed arguments");
    r->left_out(r, dbid, &a[1], NULL, 1); /* a whole new value: the key is back */
    if (a[2].lz) {
        lzval *v = r->take_lzval(r, &a[2]);
        if (!v) {
            db_delete(d, a[1].p, a[1].len);
            return r->bad_value(r, dbid, &a[1], NULL, why, whylen);
        }
        e = sv_set_lzval(d, a[1].p, a[1].len, v);
    } else {
        e = sv_set(d, a[1].p, a[1].len, a[2].p, a[2].len, expire >= 0 ? SV_TTL : 0);
    }
    if (expire >= 0)
        e = db_set_expire(d, e, expire);
    return 0;
}

static const type_effect string_effects[] = {
    {"_SETSTR", apply_setstr},
    {NULL, NULL},
};

/* DEBUG LZ4-CORRUPT key chunk: the whole value only. */
static int type_debug_lz(dbent *e, const char *part, size_t plen, lzval **out)
{
    (void)plen;
    if (part)
        return -1;
    sv_compress_entry(e);
    *out = e->enc == ENC_LZ4 ? dbent_ptr(e) : NULL;
    return 0;
}

static const type_def string_type = {
    .name = "string",
    .encoding = sv_encoding_name,
    .free_value = type_free_value,
    .dup_value = type_dup_value,
    .stored = type_stored,
    .logical = type_logical,
    .visit_lz = type_visit_lz,
    .moved = sv_note_moved,
    .rewrite = type_rewrite,
    .effects = string_effects,
    .debug_lz = type_debug_lz,
};

void sv_type_register(void)
{
    type_register(OBJ_STRING, &string_type);
}
