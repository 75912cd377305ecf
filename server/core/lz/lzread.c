/* lzread.c -- reading an lzval: windows, whole chunks, and positions (see lzval.h).
 *
 * Why a module of its own: lzval.c builds and changes a value (its chunks,
 * index, raw tail and dictionary) and loads it from the log; this file only
 * reads one, and changes nothing in it. A read finds the sub-blocks a request
 * touches from the index (a byte, a character or a line: binary search on the
 * chunks' raw starts or prefix counts, then the sub-block table) and gets their
 * raw bytes the cheapest way: stored raw, already in a cache slot, decoded
 * straight into the caller's buffer, or decoded into a slot (lzcache.h) or the
 * work area. The boundary is the value's layout, shared through lzval_int.h
 * (internal), with the decoding of one sub-block (lzv_block, lzv_unpack) kept
 * in lzval.c beside the writer of those bytes. The public functions defined
 * here are declared, with their contracts, in lzval.h, the value's manual.
 *
 * Invariants: a cache slot's have[j] counts the bytes of sub-block j decoded in
 * it from the sub-block's start, and is zeroed before a decode into it that
 * fails, so a slot never claims bytes it does not hold; a read writes nothing
 * past the caller's buffer, and answers -1 (or NULL) on a corrupt sub-block or
 * an argument outside its contract.
 *
 * Scratch memory: besides lzval.c's work area, each thread keeps the buffer
 * lzval_chunk returns when called without a cache (plain malloc, grown to the
 * largest chunk met and kept for the thread's life: working memory, not dataset
 * memory, as lzval.c explains). */
#include "lz/lzval.h"
#include "lz/lzval_int.h"
#include "lz/lzcache.h"

#include <string.h>

static _Thread_local lz_scratch lz_chunk_buf; /* lzval_chunk with a NULL cache */

/* Characters (bytes not 10xxxxxx) of p[0..n). */
static size_t lz_count_chars(const char *p, size_t n)
{
    uint32_t c, l;

    lzv_count(p, n, &c, &l);
    return c;
}

/* The first want bytes (0 < want <= its length) of sub-block j of chunk i,
 * contiguous: the stored bytes of a raw sub-block, else a cache slot (c given) or
 * scratch (room for one sub-block). A slot decodes only up to want on its first
 * visit to a sub-block (a random window pays for the prefix it needs) and the
 * whole sub-block on a later one (paging forward pays once). NULL if corrupt. */
static const char *lz_peek(const lzval *v, size_t i, size_t j, size_t want, lzcache *c,
                           char *scratch)
{
    const lz_chunk *ck = &v->chunks[i];
    size_t full = lz_blen(v, ck->raw_len, j), size, get;
    const char *src;
    lzcache_slot *s;
    int kind;

    if (!ck->compressed)
        return lz_st(v, ck) + j * v->sub_size;
    s = c ? lzcache_find(c, v->uid, i) : NULL;
    if (s && s->have[j] >= want)
        return s->buf + j * v->sub_size;
    kind = lzv_block(v, ck, j, &src, &size);
    if (kind < 0)
        return NULL;
    if (kind == 1)
        return src;
    if (!c)
        return lzv_unpack(v, ck, j, scratch, want) < 0 ? NULL : scratch;
    if (!s)
        s = lzcache_claim(c, v->uid, i, v->chunk_size, v->nsub_max);
    get = s->have[j] || want == full ? full : want;
    if (lzv_unpack(v, ck, j, s->buf + j * v->sub_size, get) < 0) {
        s->have[j] = 0;
        return NULL;
    }
    s->have[j] = (uint32_t)get;
    return s->buf + j * v->sub_size;
}

/* A plain chunk is copied whole; in a frame, per touched sub-block: a raw one is
 * copied, a cached one too; one the range covers whole (or, without a cache, from
 * its start) is decoded straight into dst, stopping at the range's end; otherwise
 * through the cache (lz_peek) or the scratch area. */
int lzval_read(const lzval *v, size_t off, size_t n, char *dst, lzcache *c)
{
    size_t sub = v->sub_size, end, i;

    if (off > v->len || n > v->len - off)
        return -1;
    end = off + n;
    i = off < end ? lz_find(v, off) : 0;
    while (off < end) {
        const lz_chunk *ck;
        size_t lo, r, j, blo, a, b, full;
        const char *src;
        lzcache_slot *s = NULL;

        while (off >= v->chunks[i].raw_before + v->chunks[i].raw_len)
            i++;
        ck = &v->chunks[i];
        lo = ck->raw_before;
        r = off - lo;

        if (!ck->compressed) {
            b = end - lo < ck->raw_len ? end - lo : ck->raw_len;
            memcpy(dst, lz_st(v, ck) + r, b - r);
            dst += b - r;
            off = lo + b;
            continue;
        }
        j = r / sub;
        blo = j * sub;
        a = r - blo;
        full = lz_blen(v, ck->raw_len, j);
        b = end - lo - blo < full ? end - lo - blo : full;
        if (c)
            s = lzcache_find(c, v->uid, i);
        if (a == 0 && (b == full || !c) && !(s && s->have[j] >= b)) {
            if (lzv_unpack(v, ck, j, dst, b) < 0)
                return -1;
        } else {
            src = s && s->have[j] >= b ? s->buf + blo : lz_peek(v, i, j, b, c, lzv_work_area(v));
            if (!src)
                return -1;
            memcpy(dst, src + a, b - a);
        }
        dst += b - a;
        off = lo + blo + b;
    }
    return 0;
}

/* The chunk is the first whose characters end past ch (binary search on the
 * prefix counts), the sub-block the first in it whose characters do (the table);
 * the walk then finds the lead byte in that one sub-block. */
int lzval_char_to_byte(const lzval *v, size_t ch, size_t *byte, lzcache *c)
{
    size_t total = lzval_chars(v), lo = 0, hi, need, j, n, k;
    const unsigned char *s;
    const lz_chunk *ck;
    const lz_sub *tab;

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
    tab = lz_tab(ck);
    need = ch - ck->chars_before;
    for (j = 0; j + 1 < lz_nsub(v, ck->raw_len) && need >= tab[j].chars; j++)
        need -= tab[j].chars;
    n = lz_blen(v, ck->raw_len, j);
    s = (const unsigned char *)lz_peek(v, lo, j, n, c, lzv_work_area(v));
    if (!s)
        return -1;
    for (k = 0; k < n; k++) {
        if ((s[k] & 0xC0) == 0x80)
            continue;
        if (need == 0) {
            *byte = ck->raw_before + j * v->sub_size + k;
            return 0;
        }
        need--;
    }
    return -1;
}

int lzval_byte_to_char(const lzval *v, size_t off, size_t *ch, lzcache *c)
{
    size_t i, r, j, rr, k, acc;
    const lz_chunk *ck;
    const lz_sub *tab;
    const char *raw;

    if (off > v->len)
        return -1;
    if (off == v->len) {
        *ch = lzval_chars(v);
        return 0;
    }
    i = lz_find(v, off);
    r = off - v->chunks[i].raw_before;
    j = r / v->sub_size;
    rr = r - j * v->sub_size;
    ck = &v->chunks[i];
    tab = lz_tab(ck);
    acc = ck->chars_before;
    for (k = 0; k < j; k++)
        acc += tab[k].chars;
    if (rr) {
        raw = lz_peek(v, i, j, rr, c, lzv_work_area(v));
        if (!raw)
            return -1;
        acc += lz_count_chars(raw, rr);
    }
    *ch = acc;
    return 0;
}

int lzval_line_start(const lzval *v, size_t n, size_t *byte, lzcache *c)
{
    size_t lo = 0, hi, need, j, len;
    const lz_chunk *ck;
    const lz_sub *tab;
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
    tab = lz_tab(ck);
    need = n - ck->nl_before;
    for (j = 0; j + 1 < lz_nsub(v, ck->raw_len) && need > tab[j].nl; j++)
        need -= tab[j].nl;
    len = lz_blen(v, ck->raw_len, j);
    raw = lz_peek(v, lo, j, len, c, lzv_work_area(v));
    if (!raw)
        return -1;
    q = raw;
    stop = raw + len;
    while (q < stop) {
        q = memchr(q, '\n', (size_t)(stop - q));
        if (!q)
            break;
        q++;
        if (--need == 0) {
            *byte = ck->raw_before + j * v->sub_size + (size_t)(q - raw);
            return 0;
        }
    }
    return -1;
}

/* A plain chunk is returned as its stored bytes (valid while v is unchanged);
 * a frame is assembled sub-block by sub-block in a cache slot or the scratch. */
const char *lzval_chunk(const lzval *v, size_t i, size_t *len, lzcache *c)
{
    const lz_chunk *ck;
    size_t nsub, j;
    lzcache_slot *s = NULL;
    char *buf;

    *len = 0;
    if (i >= v->nchunks)
        return NULL;
    ck = &v->chunks[i];
    if (!ck->compressed) {
        *len = ck->raw_len;
        return lz_st(v, ck);
    }
    nsub = lz_nsub(v, ck->raw_len);
    if (c) {
        s = lzcache_find(c, v->uid, i);
        if (!s)
            s = lzcache_claim(c, v->uid, i, v->chunk_size, v->nsub_max);
        buf = s->buf;
    } else {
        buf = lzv_scratch_get(&lz_chunk_buf, v->chunk_size);
    }
    for (j = 0; j < nsub; j++) {
        size_t full = lz_blen(v, ck->raw_len, j);
        if (s && s->have[j] >= full)
            continue;
        if (lzv_unpack(v, ck, j, buf + j * v->sub_size, full) < 0) {
            if (s)
                s->have[j] = 0;
            return NULL;
        }
        if (s)
            s->have[j] = (uint32_t)full;
    }
    *len = ck->raw_len;
    return buf;
}
