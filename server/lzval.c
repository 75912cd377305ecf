/* lzval.c -- a byte string kept as independently LZ4-compressed chunks (see lzval.h).
 *
 * Layout: chunk i holds the raw bytes [i * chunk_size, i * chunk_size + raw_len).
 * Every chunk but the last is full, so the chunk holding a byte is off / chunk_size
 * with no search. Each chunk records its stored form (an LZ4 block, or the raw bytes
 * when compression saves less than 1/8), its character and newline counts, and the
 * counts of all the chunks before it, which the char and line lookups binary-search.
 *
 * Invariants:
 *  - no chunk is empty; chunks [0, nchunks - 1) have raw_len == chunk_size;
 *  - chars_before / nl_before of chunk i are the sums over chunks [0, i);
 *  - uid is unique in the process and renewed on every change, so a cache slot
 *    keyed by (uid, chunk) only ever holds the bytes it claims to hold;
 *  - a change decodes everything it needs (at most two chunks: the partly
 *    overwritten first and last) before it alters anything, so a corrupt chunk
 *    leaves the value as it was.
 *
 * Scratch memory: each thread keeps two buffers, grown to the largest chunk size it
 * has met and kept for its life: the work area (two decoded chunks and one LZ4
 * output, for reads without a cache and for changes) and the buffer lzval_chunk
 * returns when called without a cache. They are working memory, like the stack,
 * not dataset memory: they come from plain malloc so that creating and freeing a
 * value always brings mem_used() back to where it was. Everything a value or a
 * cache holds comes from mem.h.
 *
 * Functions also answer -1 (or NULL) to arguments outside their contract (an
 * offset past the end, a chunk index out of range) rather than read out of bounds. */
#include "lzval.h"
#include "mem.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LZ_CHUNK_MIN 1024u
#define LZ_CHUNK_MAX (1u << 30) /* well below LZ4_MAX_INPUT_SIZE; fits the uint32_t fields */

typedef struct lz_chunk {
    char *data;          /* stored bytes (LZ4 block or raw), exactly stored_len of them */
    size_t chars_before; /* characters in chunks [0, i) */
    size_t nl_before;    /* newlines in chunks [0, i) */
    uint32_t raw_len;    /* bytes, uncompressed */
    uint32_t stored_len; /* bytes, in data */
    uint32_t chars;      /* bytes of this chunk that are not 10xxxxxx */
    uint32_t nl;         /* '\n' bytes of this chunk */
    uint8_t compressed;  /* 1: data is an LZ4 block; 0: data is the raw bytes */
} lz_chunk;

struct lzval {
    uint64_t uid;       /* unique in the process, renewed on every change */
    size_t len;         /* bytes, raw */
    size_t chunk_size;  /* bytes, raw, of every chunk but the last */
    size_t nchunks;
    size_t cap;         /* entries allocated in chunks */
    size_t data_bytes;  /* bytes, usable sizes of all the chunks' data blocks */
    lz_chunk *chunks;
    int bad;            /* from_chunks only: a chunk was rejected */
};

typedef struct lz_slot {
    uint64_t uid;   /* value id of the chunk held; 0 = empty */
    size_t idx;     /* chunk index */
    uint64_t stamp; /* cache clock at last use (LRU) */
    size_t cap;     /* bytes allocated in buf */
    char *buf;      /* the chunk's raw bytes */
} lz_slot;

struct lzcache {
    size_t nslots;
    uint64_t clock; /* ticks once per use */
    lz_slot slots[];
};

typedef struct lz_scratch {
    char *buf;
    size_t cap; /* bytes */
} lz_scratch;

static uint64_t lz_uid_counter;
static _Thread_local lz_scratch lz_work;      /* internal work area */
static _Thread_local lz_scratch lz_chunk_buf; /* lzval_chunk with a NULL cache */

static uint64_t lz_new_uid(void)
{
    return __atomic_add_fetch(&lz_uid_counter, 1, __ATOMIC_RELAXED);
}

/* At least n bytes of s, kept between calls (content not preserved on growth).
 * Aborts on allocation failure, as xmalloc does. */
static char *lz_scratch_get(lz_scratch *s, size_t n)
{
    if (s->cap < n) {
        free(s->buf);
        s->buf = malloc(n);
        if (!s->buf) {
            fprintf(stderr, "scratchpad: out of memory allocating %zu bytes\n", n);
            fflush(stderr);
            abort();
        }
        s->cap = n;
    }
    return s->buf;
}

/* The work area for chunk size cs: two decode buffers of cs bytes at [0, cs) and
 * [cs, 2cs), then LZ4 output room from 2cs (LZ4_compressBound(cs) bytes). */
static char *lz_work_area(size_t cs)
{
    return lz_scratch_get(&lz_work, 2 * cs + (size_t)LZ4_compressBound((int)cs));
}

static void lz_count(const char *p, size_t n, uint32_t *chars, uint32_t *nl)
{
    const unsigned char *s = (const unsigned char *)p;
    uint32_t c = 0, l = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        c += (s[i] & 0xC0) != 0x80;
        l += s[i] == '\n';
    }
    *chars = c;
    *nl = l;
}

static size_t lz_count_chars(const char *p, size_t n)
{
    uint32_t c, l;

    lz_count(p, n, &c, &l);
    return c;
}

/* Decode the first want bytes (0 < want <= raw_len) of chunk ck into dst (room for
 * want bytes). A full decode must give exactly raw_len bytes; a partial one stops
 * after want bytes and must reach them. Returns 0, or -1 if the chunk is corrupt;
 * never writes past dst + want. */
static int lz_decode(const lz_chunk *ck, char *dst, size_t want)
{
    int r;

    if (!ck->compressed) {
        memcpy(dst, ck->data, want);
        return 0;
    }
    if (want == ck->raw_len)
        r = LZ4_decompress_safe(ck->data, dst, (int)ck->stored_len, (int)want);
    else
        r = LZ4_decompress_safe_partial(ck->data, dst, (int)ck->stored_len, (int)want,
                                        (int)want);
    return r >= 0 && (size_t)r == want ? 0 : -1;
}

/* Store raw[0..n) (0 < n <= chunk_size) as ck's content, compressing through out
 * (LZ4_compressBound(chunk_size) bytes of room). ck->data is overwritten, not
 * freed: the caller has released the old block. */
static void lz_pack(lzval *v, lz_chunk *ck, const char *raw, size_t n, char *out)
{
    int m = LZ4_compress_default(raw, out, (int)n, LZ4_compressBound((int)n));
    const char *src = raw;
    size_t stored = n;

    ck->compressed = 0;
    if (m > 0 && (size_t)m <= n - n / 8) {
        src = out;
        stored = (size_t)m;
        ck->compressed = 1;
    }
    ck->data = xmalloc(stored);
    memcpy(ck->data, src, stored);
    ck->stored_len = (uint32_t)stored;
    ck->raw_len = (uint32_t)n;
    v->data_bytes += xmalloc_size(ck->data);
    lz_count(raw, n, &ck->chars, &ck->nl);
}

/* Recompute chars_before / nl_before from chunk i to the end. */
static void lz_fix_prefix(lzval *v, size_t i)
{
    for (; i < v->nchunks; i++) {
        lz_chunk *ck = &v->chunks[i];
        if (i == 0) {
            ck->chars_before = 0;
            ck->nl_before = 0;
        } else {
            ck->chars_before = ck[-1].chars_before + ck[-1].chars;
            ck->nl_before = ck[-1].nl_before + ck[-1].nl;
        }
    }
}

static void lz_reserve(lzval *v, size_t n)
{
    size_t cap;

    if (n <= v->cap)
        return;
    cap = v->cap ? v->cap * 2 : 4;
    if (cap < n)
        cap = n;
    v->chunks = xrealloc(v->chunks, cap * sizeof(lz_chunk));
    v->cap = cap;
}

static int lz_overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;

    return pa < pb + bn && pb < pa + an;
}

/* ---- cache ---- */

static lz_slot *lz_cache_find(lzcache *c, uint64_t uid, size_t idx)
{
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        lz_slot *s = &c->slots[k];
        if (s->uid == uid && s->idx == idx) {
            s->stamp = ++c->clock;
            return s;
        }
    }
    return NULL;
}

/* An empty slot, or the least recently used one emptied, with room for need bytes. */
static lz_slot *lz_cache_claim(lzcache *c, size_t need)
{
    lz_slot *best = &c->slots[0];
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        lz_slot *s = &c->slots[k];
        if (!s->uid) {
            best = s;
            break;
        }
        if (s->stamp < best->stamp)
            best = s;
    }
    best->uid = 0;
    if (best->cap < need) {
        xfree(best->buf);
        best->buf = xmalloc(need);
        best->cap = need;
    }
    return best;
}

/* Decode compressed chunk i of v into a cache slot. Returns the slot, or NULL if
 * the chunk is corrupt (the slot is then left empty). */
static lz_slot *lz_cache_fill(lzcache *c, const lzval *v, size_t i)
{
    const lz_chunk *ck = &v->chunks[i];
    lz_slot *s = lz_cache_claim(c, ck->raw_len);

    if (lz_decode(ck, s->buf, ck->raw_len) < 0)
        return NULL;
    s->uid = v->uid;
    s->idx = i;
    s->stamp = ++c->clock;
    return s;
}

/* After v changed chunks [first, last] and took new_uid: slots of the old uid
 * holding other, unchanged chunks follow the value; those of changed chunks are
 * dropped. Then the new raw bytes of chunk last go in, unless they live in the
 * slot that would receive them (the caller passed a cache pointer back in). */
static void lz_cache_update(lzcache *c, const lzval *v, uint64_t old_uid, size_t first,
                            size_t last, const char *raw_last)
{
    const lz_chunk *ck = &v->chunks[last];
    lz_slot *s;
    size_t k;

    for (k = 0; k < c->nslots; k++) {
        s = &c->slots[k];
        if (s->uid != old_uid)
            continue;
        if (s->idx < first || (s->idx > last && s->idx < v->nchunks))
            s->uid = v->uid;
        else
            s->uid = 0;
    }
    if (!ck->compressed)
        return;
    for (k = 0; k < c->nslots; k++)
        if (c->slots[k].buf && lz_overlaps(raw_last, ck->raw_len, c->slots[k].buf, c->slots[k].cap))
            return;
    s = lz_cache_claim(c, ck->raw_len);
    memcpy(s->buf, raw_last, ck->raw_len);
    s->uid = v->uid;
    s->idx = last;
    s->stamp = ++c->clock;
}

/* The full raw bytes of chunk i: the stored bytes of a raw chunk, a cache slot if
 * c is given, else decoded into fallback (room for chunk_size bytes). Returns 0 and
 * sets *out, or -1 if the chunk is corrupt. */
static int lz_view(const lzval *v, size_t i, lzcache *c, char *fallback, const char **out)
{
    const lz_chunk *ck = &v->chunks[i];
    lz_slot *s;

    if (!ck->compressed) {
        *out = ck->data;
        return 0;
    }
    if (c) {
        s = lz_cache_find(c, v->uid, i);
        if (!s)
            s = lz_cache_fill(c, v, i);
        if (!s)
            return -1;
        *out = s->buf;
        return 0;
    }
    if (lz_decode(ck, fallback, ck->raw_len) < 0)
        return -1;
    *out = fallback;
    return 0;
}

/* Copy the full raw bytes of chunk i into dst, from the cache when it holds them
 * (the cache is not filled: the caller is about to change the chunk). */
static int lz_load(const lzval *v, size_t i, char *dst, lzcache *c)
{
    const lz_chunk *ck = &v->chunks[i];
    lz_slot *s = c ? lz_cache_find(c, v->uid, i) : NULL;

    if (s) {
        memcpy(dst, s->buf, ck->raw_len);
        return 0;
    }
    return lz_decode(ck, dst, ck->raw_len);
}

/* ---- changes ---- */

/* Write p[0..n) at off (n > 0, off <= len), extending the value if needed. Only
 * chunks [off / cs, (off + n - 1) / cs] are rebuilt; of those only the first and
 * the last can be partly overwritten, and only they are decoded, before anything
 * changes. p may point into v's own raw chunk or into c: an old block p overlaps
 * is freed only once p has been consumed. Returns 0, or -1 on a corrupt chunk
 * (v unchanged). */
static int lz_write(lzval *v, size_t off, const char *p, size_t n, lzcache *c)
{
    size_t cs = v->chunk_size, end = off + n;
    size_t newlen = end > v->len ? end : v->len;
    size_t first = off / cs, last = (end - 1) / cs, old_n = v->nchunks, i;
    size_t first_hi = first * cs + cs < newlen ? first * cs + cs : newlen;
    size_t last_hi = last * cs + cs < newlen ? last * cs + cs : newlen;
    int old_first = first < old_n && (off > first * cs || end < first_hi);
    int old_last = last != first && last < old_n && end < last_hi;
    char *work = lz_work_area(cs), *a = work, *b = work + cs, *out = work + 2 * cs;
    const char *raw = NULL;
    void *deferred = NULL;
    uint64_t old_uid = v->uid;

    if (old_first && lz_load(v, first, a, c) < 0)
        return -1;
    if (old_last && lz_load(v, last, b, c) < 0)
        return -1;
    lz_reserve(v, last + 1);
    for (i = first; i <= last; i++) {
        size_t lo = i * cs, hi = lo + cs < newlen ? lo + cs : newlen;
        size_t s = off > lo ? off : lo, e = end < hi ? end : hi;
        lz_chunk *ck = &v->chunks[i];

        if (i == first && old_first) {
            memcpy(a + (s - lo), p + (s - off), e - s);
            raw = a;
        } else if (i == last && old_last) {
            memcpy(b + (s - lo), p + (s - off), e - s);
            raw = b;
        } else {
            raw = p + (lo - off);
        }
        if (i < old_n) {
            v->data_bytes -= xmalloc_size(ck->data);
            if (!deferred && lz_overlaps(p, n, ck->data, ck->stored_len))
                deferred = ck->data;
            else
                xfree(ck->data);
        }
        lz_pack(v, ck, raw, hi - lo, out);
    }
    if (last + 1 > v->nchunks)
        v->nchunks = last + 1;
    v->len = newlen;
    lz_fix_prefix(v, first);
    v->uid = lz_new_uid();
    if (c)
        lz_cache_update(c, v, old_uid, first, last, raw);
    xfree(deferred);
    return 0;
}

/* ---- public ---- */

static lzval *lz_alloc(size_t chunk_size)
{
    lzval *v = xcalloc(1, sizeof(*v));

    v->chunk_size = chunk_size;
    v->uid = lz_new_uid();
    return v;
}

/* chunk_size is clamped to [1024, 2^30]. */
lzval *lzval_new(const char *p, size_t n, size_t chunk_size)
{
    lzval *v;

    if (chunk_size < LZ_CHUNK_MIN)
        chunk_size = LZ_CHUNK_MIN;
    if (chunk_size > LZ_CHUNK_MAX)
        chunk_size = LZ_CHUNK_MAX;
    v = lz_alloc(chunk_size);
    if (n)
        lz_write(v, 0, p, n, NULL);
    return v;
}

lzval *lzval_dup(const lzval *v)
{
    lzval *d = lz_alloc(v->chunk_size);
    size_t i;

    d->len = v->len;
    d->nchunks = v->nchunks;
    lz_reserve(d, v->nchunks);
    for (i = 0; i < v->nchunks; i++) {
        lz_chunk *ck = &d->chunks[i];
        *ck = v->chunks[i];
        ck->data = xmalloc(ck->stored_len);
        memcpy(ck->data, v->chunks[i].data, ck->stored_len);
        d->data_bytes += xmalloc_size(ck->data);
    }
    return d;
}

void lzval_free(lzval *v)
{
    size_t i;

    if (!v)
        return;
    for (i = 0; i < v->nchunks; i++)
        xfree(v->chunks[i].data);
    xfree(v->chunks);
    xfree(v);
}

size_t lzval_len(const lzval *v)
{
    return v->len;
}

size_t lzval_chars(const lzval *v)
{
    const lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;

    return ck ? ck->chars_before + ck->chars : 0;
}

size_t lzval_newlines(const lzval *v)
{
    const lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;

    return ck ? ck->nl_before + ck->nl : 0;
}

size_t lzval_stored(const lzval *v)
{
    return xmalloc_size(v) + xmalloc_size(v->chunks) + v->data_bytes;
}

size_t lzval_nchunks(const lzval *v)
{
    return v->nchunks;
}

size_t lzval_chunk_size(const lzval *v)
{
    return v->chunk_size;
}

/* Per touched chunk: a raw chunk or a cached one is copied; a compressed chunk the
 * range covers whole is decoded straight into dst; a partly covered one goes
 * through the cache if given (later windows will want it), else only its prefix up
 * to the range's end is decoded (LZ4_decompress_safe_partial), into dst itself when
 * the range starts at the chunk's start. */
int lzval_read(const lzval *v, size_t off, size_t n, char *dst, lzcache *c)
{
    size_t cs = v->chunk_size, end;
    lz_slot *s;

    if (off > v->len || n > v->len - off)
        return -1;
    end = off + n;
    while (off < end) {
        size_t i = off / cs, lo = i * cs;
        const lz_chunk *ck = &v->chunks[i];
        size_t a = off - lo, b = end - lo < ck->raw_len ? end - lo : ck->raw_len;
        const char *src;

        if (!ck->compressed) {
            src = ck->data;
        } else if (c && (s = lz_cache_find(c, v->uid, i))) {
            src = s->buf;
        } else if (a == 0 && (b == ck->raw_len || !c)) {
            if (lz_decode(ck, dst, b) < 0)
                return -1;
            src = NULL;
        } else if (c) {
            s = lz_cache_fill(c, v, i);
            if (!s)
                return -1;
            src = s->buf;
        } else {
            char *w = lz_work_area(cs);
            if (lz_decode(ck, w, b) < 0)
                return -1;
            src = w;
        }
        if (src)
            memcpy(dst, src + a, b - a);
        dst += b - a;
        off = lo + b;
    }
    return 0;
}

int lzval_append(lzval *v, const char *p, size_t n, lzcache *c)
{
    return n ? lz_write(v, v->len, p, n, c) : 0;
}

int lzval_setrange(lzval *v, size_t off, const char *p, size_t n, lzcache *c)
{
    if (off > v->len || n > SIZE_MAX - off)
        return -1;
    return n ? lz_write(v, off, p, n, c) : 0;
}

/* The chunk is the first whose characters end past ch (binary search on the
 * prefix counts); the walk then finds its (ch - chars_before)-th lead byte. */
int lzval_char_to_byte(const lzval *v, size_t ch, size_t *byte, lzcache *c)
{
    size_t total = lzval_chars(v), lo = 0, hi, need, k;
    const unsigned char *s;
    const char *raw;
    const lz_chunk *ck;

    if (ch > total)
        return -1;
    if (ch == total) {
        *byte = v->len;
        return 0;
    }
    hi = v->nchunks - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->chunks[mid].chars_before + v->chunks[mid].chars > ch)
            hi = mid;
        else
            lo = mid + 1;
    }
    ck = &v->chunks[lo];
    if (lz_view(v, lo, c, lz_work_area(v->chunk_size), &raw) < 0)
        return -1;
    s = (const unsigned char *)raw;
    need = ch - ck->chars_before;
    for (k = 0; k < ck->raw_len; k++) {
        if ((s[k] & 0xC0) == 0x80)
            continue;
        if (need == 0) {
            *byte = lo * v->chunk_size + k;
            return 0;
        }
        need--;
    }
    return -1;
}

int lzval_byte_to_char(const lzval *v, size_t off, size_t *ch, lzcache *c)
{
    size_t i, r;
    const lz_chunk *ck;
    const char *raw;
    char *w;

    if (off > v->len)
        return -1;
    if (off == v->len) {
        *ch = lzval_chars(v);
        return 0;
    }
    i = off / v->chunk_size;
    r = off - i * v->chunk_size;
    ck = &v->chunks[i];
    if (r == 0) {
        *ch = ck->chars_before;
        return 0;
    }
    if (!ck->compressed || c) {
        if (lz_view(v, i, c, NULL, &raw) < 0)
            return -1;
    } else {
        w = lz_work_area(v->chunk_size);
        if (lz_decode(ck, w, r) < 0)
            return -1;
        raw = w;
    }
    *ch = ck->chars_before + lz_count_chars(raw, r);
    return 0;
}

int lzval_line_start(const lzval *v, size_t n, size_t *byte, lzcache *c)
{
    size_t lo = 0, hi, need;
    const lz_chunk *ck;
    const char *raw, *q, *stop;

    if (n == 0) {
        *byte = 0;
        return 0;
    }
    if (n > lzval_newlines(v))
        return -1;
    hi = v->nchunks - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->chunks[mid].nl_before + v->chunks[mid].nl >= n)
            hi = mid;
        else
            lo = mid + 1;
    }
    ck = &v->chunks[lo];
    if (lz_view(v, lo, c, lz_work_area(v->chunk_size), &raw) < 0)
        return -1;
    need = n - ck->nl_before;
    q = raw;
    stop = raw + ck->raw_len;
    while (q < stop) {
        q = memchr(q, '\n', (size_t)(stop - q));
        if (!q)
            break;
        q++;
        if (--need == 0) {
            *byte = lo * v->chunk_size + (size_t)(q - raw);
            return 0;
        }
    }
    return -1;
}

/* A raw chunk is returned as its stored bytes (valid while v is unchanged). */
const char *lzval_chunk(const lzval *v, size_t i, size_t *len, lzcache *c)
{
    const char *raw;
    char *fallback = NULL;

    *len = 0;
    if (i >= v->nchunks)
        return NULL;
    if (v->chunks[i].compressed && !c)
        fallback = lz_scratch_get(&lz_chunk_buf, v->chunk_size);
    if (lz_view(v, i, c, fallback, &raw) < 0)
        return NULL;
    *len = v->chunks[i].raw_len;
    return raw;
}

void lzval_chunk_stored(const lzval *v, size_t i, const char **data, size_t *stored_len,
                        size_t *raw_len, int *compressed)
{
    const lz_chunk *ck = i < v->nchunks ? &v->chunks[i] : NULL;

    *data = ck ? ck->data : NULL;
    *stored_len = ck ? ck->stored_len : 0;
    *raw_len = ck ? ck->raw_len : 0;
    *compressed = ck ? ck->compressed : 0;
}

/* A chunk_size out of [1024, 2^30] makes the value bad: every add fails, end
 * returns NULL. */
lzval *lzval_from_chunks_begin(size_t chunk_size)
{
    int bad = chunk_size < LZ_CHUNK_MIN || chunk_size > LZ_CHUNK_MAX;
    lzval *v = lz_alloc(bad ? LZ_CHUNK_MIN : chunk_size);

    v->bad = bad;
    return v;
}

/* Accepted when: the previous chunk is full, 0 < raw_len <= chunk_size, a raw
 * chunk's stored_len equals raw_len, and a compressed one decodes to exactly
 * raw_len bytes. A rejected chunk makes v bad for good. */
int lzval_from_chunks_add(lzval *v, const char *data, size_t stored_len, size_t raw_len,
                          int compressed)
{
    size_t cs = v->chunk_size;
    const char *raw = data;
    lz_chunk *ck;
    char *w;

    if (v->bad || raw_len == 0 || raw_len > cs || stored_len == 0)
        goto bad;
    if (v->nchunks && v->chunks[v->nchunks - 1].raw_len != cs)
        goto bad;
    if (!compressed && stored_len != raw_len)
        goto bad;
    if (compressed) {
        if (stored_len > (size_t)LZ4_compressBound((int)cs))
            goto bad;
        w = lz_work_area(cs);
        if (LZ4_decompress_safe(data, w, (int)stored_len, (int)raw_len) != (int)raw_len)
            goto bad;
        raw = w;
    }
    lz_reserve(v, v->nchunks + 1);
    ck = &v->chunks[v->nchunks++];
    ck->data = xmalloc(stored_len);
    memcpy(ck->data, data, stored_len);
    ck->stored_len = (uint32_t)stored_len;
    ck->raw_len = (uint32_t)raw_len;
    ck->compressed = compressed != 0;
    lz_count(raw, raw_len, &ck->chars, &ck->nl);
    v->data_bytes += xmalloc_size(ck->data);
    v->len += raw_len;
    lz_fix_prefix(v, v->nchunks - 1);
    return 0;
bad:
    v->bad = 1;
    return -1;
}

lzval *lzval_from_chunks_end(lzval *v)
{
    if (v->bad) {
        lzval_free(v);
        return NULL;
    }
    v->uid = lz_new_uid();
    return v;
}

/* A compressed chunk has every stored byte set to 0xFF: its first token then
 * announces a literal run longer than the block, which LZ4_decompress_safe always
 * rejects (a random bit flip might decode, silently, into other bytes: LZ4 blocks
 * carry no checksum). A raw chunk has one bit of its first byte flipped, which
 * nothing can detect. Either way the value takes a new uid, so no cache keeps a
 * clean copy. */
int lzval_debug_corrupt(lzval *v, size_t i)
{
    lz_chunk *ck;

    if (i >= v->nchunks)
        return -1;
    ck = &v->chunks[i];
    if (ck->compressed)
        memset(ck->data, 0xFF, ck->stored_len);
    else
        ck->data[0] ^= 0x01;
    v->uid = lz_new_uid();
    return 0;
}

/* slots is raised to 1 if 0: lzval_chunk needs a slot to return. */
lzcache *lzcache_new(size_t slots)
{
    lzcache *c;

    if (slots == 0)
        slots = 1;
    c = xcalloc(1, sizeof(*c) + slots * sizeof(lz_slot));
    c->nslots = slots;
    return c;
}

void lzcache_free(lzcache *c)
{
    size_t k;

    if (!c)
        return;
    for (k = 0; k < c->nslots; k++)
        xfree(c->slots[k].buf);
    xfree(c);
}
