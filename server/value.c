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
 * (its value stays RAW until it is written again). */
#include "value.h"

#include <string.h>

#include "lzidle.h"
#include "lzval.h"
#include "mem.h"
#include "util.h"

#define SV_INLINE_MAX 128

size_t sv_compress_threshold = 4096;
size_t sv_compress_chunk = 64 * 1024;
int sv_compress_accel = 6;
size_t sv_accel_mem_limit;
long long sv_dict_delay = 5000;
static lzcache *sv_cache;
static lzidle *sv_idle;

typedef struct cq_item {
    db *d;
    uint32_t klen;
    char *key;
} cq_item;

static cq_item *cq;          /* ring of keys waiting for compression */
static size_t cq_head, cq_len, cq_cap;

static void compress_now(dbent *e);
static int want_lz4(size_t n);

int sv_write_accel(void)
{
    return sv_accel_mem_limit && mem_used() >= sv_accel_mem_limit ? 1 : sv_compress_accel;
}

/* Queue e's key for compression (once). When the queue is full the value is
 * compressed at once, so the queue's memory stays bounded. */
static void queue_compress(db *d, dbent *e)
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
    it->klen = e->node.klen;
    it->key = xstrndup(e->data, e->node.klen);
    cq_len++;
    e->flags |= DBENT_F_COMPRESS_PENDING;
}

void sv_note_moved(db *d, dbent *e)
{
    if (e->type == OBJ_STRING && ((e->enc == ENC_RAW && want_lz4(e->vlen)) || e->enc == ENC_LZ4))
        queue_compress(d, e);
}

size_t sv_compress_pending(void)
{
    return cq_len;
}

static lzcache *cache(void)
{
    if (!sv_cache)
        sv_cache = lzcache_new(8);
    return sv_cache;
}

lzcache *sv_lzcache(void)
{
    return cache();
}

void sv_drop_cache(void)
{
    lzcache_free(sv_cache);
    sv_cache = NULL;
}

size_t sv_cache_bytes(void)
{
    return lzcache_bytes(sv_cache);
}

/* ---- the background dictionary ----
 *
 * One registry for strings and scratchpad entries: a value is compressed
 * without a dictionary and registered, and sv_dict_step (the cron, and the
 * server's idle timer) converts the values that stayed unchanged for
 * sv_dict_delay ms. The registry outlives every value (it is never freed); its
 * clock is the monotonic one, in ms. */

static lzidle *idle_reg(void)
{
    if (!sv_idle) {
        sv_idle = lzidle_new();
        lzidle_clock(sv_idle, mono_us() / 1000);
    }
    return sv_idle;
}

lzidle *sv_lzidle(void)
{
    return sv_dict_delay < 0 ? NULL : idle_reg();
}

void sv_dict_adopt(lzval *v)
{
    if (sv_dict_delay >= 0 && !lzidle_registered(v))
        lzidle_adopt(idle_reg(), v);
}

size_t sv_dict_step(int64_t budget_us)
{
    int64_t start = mono_us(), now = start / 1000;
    size_t done = 0, k;

    if (!sv_idle)
        return 0;
    do {
        k = lzidle_step(sv_idle, now, sv_dict_delay, SV_DICT_STEP);
        done += k;
    } while (k > 0 && mono_us() - start < budget_us);
    return done;
}

void sv_dict_stats(lzidle_stats *st)
{
    if (sv_idle)
        lzidle_get_stats(sv_idle, st);
    else
        memset(st, 0, sizeof(*st));
}

int sv_dict_due(void)
{
    int64_t now = mono_us() / 1000, due = sv_idle ? lzidle_next_due(sv_idle, now, sv_dict_delay) : -1;

    return due >= 0 && due <= now;
}

/* A new compressed value for p[0..n): registered, without a dictionary, or,
 * when the dictionary is chosen on the write path, as lzval_new decides. */
static lzval *lz_new(const char *p, size_t n)
{
    lzidle *q = sv_lzidle();
    lzval *v;

    if (!q)
        return lzval_new(p, n, sv_compress_chunk);
    v = lzval_new_fast(p, n, sv_compress_chunk, sv_write_accel());
    lzidle_adopt(q, v);
    return v;
}

static int want_lz4(size_t n)
{
    return sv_compress_threshold > 0 && n >= sv_compress_threshold;
}

size_t sv_len(const dbent *e)
{
    if (e->enc == ENC_LZ4)
        return lzval_len(dbent_ptr(e));
    return e->vlen;
}

const char *sv_ptr(const dbent *e)
{
    switch (e->enc) {
    case ENC_INLINE:
        return e->data + e->node.klen;
    case ENC_RAW:
        return dbent_ptr(e);
    default:
        return NULL;
    }
}

int sv_read(const dbent *e, size_t off, size_t n, char *dst)
{
    if (n == 0)
        return 0;
    if (e->enc == ENC_LZ4)
        return lzval_read(dbent_ptr(e), off, n, dst, cache());
    memcpy(dst, sv_ptr(e) + off, n);
    return 0;
}

/* Store p[0..n) as e's value, e holding no value (enc INLINE, vlen 0). */
static dbent *store_fresh(db *d, dbent *e, const char *p, size_t n)
{
    if (n <= SV_INLINE_MAX) {
        e = db_resize_entry(d, e, n);
        memcpy(dbent_room(e), p, n);
        e->enc = ENC_INLINE;
        e->vlen = (uint32_t)n;
    } else {
        char *buf = xmalloc(n);
        memcpy(buf, p, n);
        dbent_set_ptr(e, buf);
        e->enc = ENC_RAW;
        e->vlen = (uint32_t)n;
        if (want_lz4(n))
            queue_compress(d, e);
    }
    return e;
}

dbent *sv_replace(db *d, dbent *e, const char *p, size_t n)
{
    if (e->enc == ENC_INLINE && e->type == OBJ_STRING && n <= e->icap && n <= SV_INLINE_MAX) {
        memmove(dbent_room(e), p, n);
        e->vlen = (uint32_t)n;
        return e;
    }
    if (e->enc == ENC_RAW && n > SV_INLINE_MAX) {
        char *buf = dbent_ptr(e);
        size_t cap = xmalloc_size(buf);
        if (cap < n || cap > 2 * n + 64) {
            xfree(buf);
            buf = xmalloc(n);
            dbent_set_ptr(e, buf);
        }
        memcpy(buf, p, n);
        e->vlen = (uint32_t)n;
        if (want_lz4(n))
            queue_compress(d, e);
        return e;
    }
    db_free_value(d, e);
    e->type = OBJ_STRING;
    return store_fresh(d, e, p, n);
}

dbent *sv_set(db *d, const char *key, size_t klen, const char *p, size_t n, int keepttl)
{
    dbent *e = db_lookup_write(d, key, klen);

    if (!e) {
        e = db_add(d, key, klen, OBJ_STRING, n <= SV_INLINE_MAX ? n : sizeof(void *));
        return store_fresh(d, e, p, n);
    }
    if (!keepttl)
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
    e->vlen = 0;
    sv_dict_adopt(v);
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
        if (xmalloc_size(buf) < need)
            dbent_set_ptr(e, xrealloc(buf, grow_cap(need)));
        return e;
    }
    /* INLINE -> RAW */
    {
        char *buf = xmalloc(grow_cap(need));
        memcpy(buf, dbent_room(e), e->vlen);
        e = db_resize_entry(d, e, sizeof(void *));
        dbent_set_ptr(e, buf);
        e->enc = ENC_RAW;
    }
    return e;
}

/* Make e (RAW or INLINE with bytes at sv_ptr) an LZ4 value holding its bytes. */
static int to_lz4(dbent *e)
{
    const char *p = sv_ptr(e);
    size_t n = e->vlen;
    lzval *v = lz_new(p, n);

    if (e->enc == ENC_RAW)
        xfree(dbent_ptr(e));
    dbent_set_ptr(e, v);
    e->enc = ENC_LZ4;
    e->vlen = 0;
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
        return lzval_append(dbent_ptr(e), p, n, cache());
    }
    if (e->enc == ENC_INLINE && newlen <= SV_INLINE_MAX) {
        e = db_resize_entry(d, e, newlen);
        memcpy(dbent_room(e) + len, p, n);
        e->vlen = (uint32_t)newlen;
        *ep = e;
        return 0;
    }
    e = to_raw(d, e, newlen);
    memcpy((char *)dbent_ptr(e) + len, p, n);
    e->vlen = (uint32_t)newlen;
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
                if (lzval_append(v, zero, k, cache()) < 0)
                    return -1;
                gap -= k;
            }
        }
        return lzval_setrange(v, off, p, n, cache());
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
    e->vlen = (uint32_t)newlen;
    if (e->enc == ENC_RAW && want_lz4(newlen))
        queue_compress(d, e);
    *ep = e;
    return 0;
}

static void compress_now(dbent *e)
{
    if (e->enc == ENC_RAW && want_lz4(e->vlen))
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
    size_t done = 0;

    while (cq_len > 0) {
        cq_item it = cq[cq_head];
        dbent *e;

        cq_head = (cq_head + 1) % cq_cap;
        cq_len--;
        e = db_find_raw(it.d, it.key, it.klen);
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
    if (e->vlen <= 20 && str_to_ll(sv_ptr(e), e->vlen, &v) == 0)
        return "int";
    if (e->vlen <= 44 && e->enc == ENC_INLINE)
        return "embstr";
    return "raw";
}
