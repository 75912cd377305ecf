/* sp.c -- the scratchpad structure and its entries' content (see sp.h).
 *
 * Counts (characters, newlines, whether the content ends with '\n') are kept in
 * the entry and updated incrementally, so length and line counts are O(1) and an
 * append costs only the appended bytes. Character and line positions inside raw
 * content are found by scanning it (it is below the compression threshold, a few
 * KB by default); inside compressed content lzval's chunk index is used. */
#include "sp/sp.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lz/lzidle.h"
#include "mem.h"
#include "sp/spco.h"
#include "sp/spmeta.h"
#include "textcount.h"

/* Compressed content for p[0..n): without a dictionary, registered in pr->idle
 * which gives it one once idle, or, without a registry, as lzval_new chooses.
 * ti (may be NULL): p's scan, whose sub-block newline counts, if any, spare
 * the compression a count. */
static lzval *lz_content(const char *p, size_t n, const sp_params *pr, const sp_textinfo *ti)
{
    lzval *v;

    if (!pr->idle)
        return lzval_new(p, n, pr->compress_chunk);
    if (ti && ti->sub_nl && ti->sub_cs == pr->compress_chunk)
        v = lzval_new_ascii(p, n, pr->compress_chunk, pr->compress_accel, ti->sub_nl);
    else
        v = lzval_new_fast(p, n, pr->compress_chunk, pr->compress_accel);
    lzidle_adopt(pr->idle, v);
    return v;
}

/* ---- names and text ---- */

static int name_char_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':' || c == '/';
}

int sp_name_valid(const char *name, size_t n)
{
    size_t i, seg = 0;

    if (n == 0 || n > SP_NAME_MAX)
        return 0;
    for (i = 0; i <= n; i++) {
        if (i == n || name[i] == '/') {
            size_t len = i - seg;
            if (len == 0 || (len == 1 && name[seg] == '.') || (len == 2 && name[seg] == '.' && name[seg + 1] == '.'))
                return 0;
            seg = i + 1;
        } else if (!name_char_ok((unsigned char)name[i])) {
            return 0;
        }
    }
    return 1;
}

/* Validate the multi-byte UTF-8 sequence starting at p (a byte >= 0x80) within
 * [p, end): its length (2..4), or 0 if it is invalid (a stray continuation
 * byte, an overlong form, a surrogate, a value past U+10FFFF, or cut short). */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
    unsigned c = *p;

    if (c >= 0xC2 && c <= 0xDF) {
        if (end - p < 2 || (p[1] & 0xC0) != 0x80)
            return 0;
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if (c == 0xE0 && p[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && p[1] > 0x9F)
            return 0; /* surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (end - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
            return 0;
        if (c == 0xF0 && p[1] < 0x90)
            return 0; /* overlong */
        if (c == 0xF4 && p[1] > 0x8F)
            return 0; /* past U+10FFFF */
        return 4;
    }
    return 0;
}

int sp_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;

    while (p < end) {
        size_t k;
        if (*p < 0x80) {
            p++;
            /* Fast path over ASCII runs, 8 bytes at a time. */
            while (end - p >= 8) {
                uint64_t w;
                memcpy(&w, p, 8);
                if (w & 0x8080808080808080ULL)
                    break;
                p += 8;
            }
            continue;
        }
        if ((k = utf8_seq(p, end)) == 0)
            return 0;
        p += k;
    }
    return 1;
}

int sp_detect_kind(const char *p, size_t n)
{
    sp_textinfo ti;
    sp_text_scan(p, n, &ti);
    return sp_kind_of(&ti);
}

/* Number of bytes of m with bit 7 set (m has no other bits): a multiply adds
 * the bytes of m >> 7, each 0 or 1, into the top byte. (No popcount: without
 * -mpopcnt it is a libgcc call.) */
static inline size_t high_bits(uint64_t m)
{
    return (size_t)(((m >> 7) * 0x0101010101010101ULL) >> 56);
}

#define LO7 0x7F7F7F7F7F7F7F7FULL
#define HI1 0x8080808080808080ULL
#define NL8 0x0A0A0A0A0A0A0A0AULL

/* Bit 7 set in each zero byte of x, clear elsewhere: ((x & 0x7f..) + 0x7f..) | x
 * has bit 7 set in every non-zero byte and clear in every zero byte, with no
 * carry between bytes. */
static inline uint64_t zero_bytes(uint64_t x)
{
    return ~((((x & LO7) + LO7) | x) | LO7);
}

size_t sp_count_chars(const char *s, size_t n)
{
    size_t chars;
    tc_count(s, n, &chars, NULL);
    return chars;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* The ASCII run at the start of p[0..n), 16 bytes at a time (SSE2 is part of
 * x86-64): returns how many bytes it covered (a multiple of 16, stopping before
 * the first 16-byte block holding a byte >= 0x80), adds their newlines to *nl
 * and sets *nul if one of them is NUL. Newlines are summed per byte lane and
 * folded with psadbw every 255 blocks, before a lane can overflow. */
static size_t ascii_run16(const unsigned char *p, size_t n, size_t *nl, uint64_t *nul)
{
    const __m128i vnl = _mm_set1_epi8('\n'), vz = _mm_setzero_si128();
    __m128i acc = vz, zs = vz, tot = vz;
    size_t i = 0;
    unsigned k = 0;

    while (n - i >= 16) {
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        if (_mm_movemask_epi8(w))
            break;
        acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(w, vnl));
        zs = _mm_or_si128(zs, _mm_cmpeq_epi8(w, vz));
        i += 16;
        if (++k == 255) {
            tot = _mm_add_epi64(tot, _mm_sad_epu8(acc, vz));
            acc = vz;
            k = 0;
        }
    }
    tot = _mm_add_epi64(tot, _mm_sad_epu8(acc, vz));
    *nl += (size_t)_mm_cvtsi128_si64(tot) + (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(tot, tot));
    *nul |= (uint64_t)_mm_movemask_epi8(zs);
    return i;
}
#endif

void sp_text_scan(const char *s, size_t n, sp_textinfo *ti)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    size_t cont = 0, nl = 0;
    uint64_t nul = 0;
    int valid = 1;

    while (p < end) {
        size_t k;
        /* ASCII words: no continuation bytes; count newlines, note NULs. */
#ifdef __SSE2__
        p += ascii_run16(p, (size_t)(end - p), &nl, &nul);
#endif
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w & HI1)
                break;
            nl += high_bits(zero_bytes(w ^ NL8));
            nul |= zero_bytes(w);
            p += 8;
        }
        if (p == end)
            break;
        if (*p < 0x80) {
            nl += *p == '\n';
            nul |= *p == 0;
            p++;
            continue;
        }
        if ((k = utf8_seq(p, end)) == 0) {
            /* Invalid: the rest is only counted (binary content still needs
             * its counts), with the word-at-a-time counters. */
            size_t rest = (size_t)(end - p);
            valid = 0;
            size_t c, l;
            tc_count((const char *)p, rest, &c, &l);
            cont += rest - c;
            nl += l;
            nul |= memchr(p, 0, rest) != NULL;
            break;
        }
        cont += k - 1;
        p += k;
    }
    ti->chars = n - cont;
    ti->newlines = nl;
    ti->utf8 = valid;
    ti->nul = nul != 0;
    ti->sub_nl = NULL;
    ti->sub_cs = 0;
}

void sp_text_scan_sub(const char *p, size_t n, size_t chunk_size, sp_textinfo *ti)
{
    static _Thread_local uint32_t *nlbuf; /* working memory, as lzval's scratch: plain malloc */
    static _Thread_local size_t nlcap;
    size_t cs, sub, nsub, nch, i, j, newlines = 0;
    int nul = 0;

    if (n == 0) {
        sp_text_scan(p, n, ti);
        return;
    }
    lzval_layout(chunk_size, &cs, &sub);
    nsub = (cs + sub - 1) / sub;
    nch = (n + cs - 1) / cs;
    if (nch * nsub > nlcap) {
        free(nlbuf);
        nlcap = nch * nsub;
        if (!(nlbuf = malloc(nlcap * sizeof(uint32_t)))) {
            fprintf(stderr, "scratchpad: out of memory allocating %zu bytes\n", nlcap * sizeof(uint32_t));
            abort();
        }
    }
    for (i = 0; i < nch; i++) {
        size_t lo = i * cs, len = n - lo < cs ? n - lo : cs;
        for (j = 0; j * sub < len; j++) {
            size_t bl = len - j * sub < sub ? len - j * sub : sub;
            sp_textinfo t;
            sp_text_scan(p + lo + j * sub, bl, &t);
            if (t.chars != bl || !t.utf8) {
                /* Not all ASCII: validated and counted whole (a sequence may
                 * cross a sub-block's end). */
                sp_text_scan(p, n, ti);
                return;
            }
            nlbuf[i * nsub + j] = (uint32_t)t.newlines;
            newlines += t.newlines;
            nul |= t.nul;
        }
    }
    ti->chars = n;
    ti->newlines = newlines;
    ti->utf8 = 1;
    ti->nul = nul;
    ti->sub_nl = nlbuf;
    ti->sub_cs = chunk_size;
}

/* ---- the scratchpad ---- */

sp *sp_new(void)
{
    sp *s = xcalloc(1, sizeof(*s));
    s->subidx = UINT32_MAX;
    return s;
}

static void content_free(sp_entry *e)
{
    xfree(e->raw);
    lzval_free(e->lz);
    e->raw = NULL;
    e->rawcap = 0;
    e->lz = NULL;
}

void sp_entry_release(sp_entry *e)
{
    if (e->shares) {
        e->shares--;
        return;
    }
    content_free(e);
    spmeta_free(e->meta);
    xfree(e);
}

sp_entry *sp_entry_share(sp_entry *e)
{
    e->shares++;
    return e;
}

sp_entry *sp_entry_clone(const sp_entry *src)
{
    sp_entry *e = xmalloc(sizeof(sp_entry) + src->nlen + 1);

    memcpy(e, src, sizeof(sp_entry) + src->nlen + 1);
    e->shares = 0;
    if (src->raw) {
        e->raw = xmalloc(src->size ? src->size : 1);
        e->rawcap = xmalloc_size(e->raw);
        memcpy(e->raw, src->raw, src->size);
    }
    if (src->lz)
        e->lz = lzval_share(src->lz);
    e->meta = spmeta_dup(src->meta);
    return e;
}

static void snap_free(sp_snap *sn)
{
    size_t i;

    for (i = 0; i < sn->n; i++)
        sp_entry_release(sn->e[i]);
    xfree(sn->e);
    xfree(sn);
}

/* ---- the name index ----
 *
 * Open addressing with linear probing over a power-of-two table kept at most
 * half full, holding the entry pointers; each entry caches its name's hash, so a
 * probe compares the hash before touching the name. The sorted array stays the
 * order for listing; the table only answers "which entry has this name". */

#define IDX_MIN 8

static uint32_t name_hash(const char *name, size_t nlen)
{
    return (uint32_t)XXH3_64bits(name, nlen);
}

static void idx_put(sp_entry **tab, size_t mask, sp_entry *e)
{
    size_t i = e->hash & mask;
    while (tab[i])
        i = (i + 1) & mask;
    tab[i] = e;
}

/* Rebuild the index of s->e[0..n) with cap slots (a power of two > n). */
static void idx_rebuild(sp *s, size_t cap)
{
    size_t i;

    xfree(s->idx);
    s->idx = NULL;
    s->idxcap = 0;
    if (s->n == 0)
        return;
    while (cap < IDX_MIN || cap < s->n * 2)
        cap = cap < IDX_MIN ? IDX_MIN : cap * 2;
    s->idx = xcalloc(cap, sizeof(sp_entry *));
    s->idxcap = cap;
    for (i = 0; i < s->n; i++)
        idx_put(s->idx, cap - 1, s->e[i]);
}

/* Index e, which s->e already holds (s->n counts it). */
static void idx_add(sp *s, sp_entry *e)
{
    if (s->n * 2 > s->idxcap)
        idx_rebuild(s, s->idxcap * 2);
    else
        idx_put(s->idx, s->idxcap - 1, e);
}

/* Unindex e (backward-shift deletion: each later entry of the probe run that
 * may move into the hole does, so no tombstones are left). */
static void idx_del(sp *s, sp_entry *e)
{
    size_t mask = s->idxcap - 1, i, j;

    if (!s->idx)
        return;
    for (i = e->hash & mask; s->idx[i] != e; i = (i + 1) & mask)
        if (!s->idx[i])
            return;
    for (j = i;;) {
        size_t home;
        j = (j + 1) & mask;
        if (!s->idx[j])
            break;
        home = s->idx[j]->hash & mask;
        /* The entry at j may fill the hole at i unless its home lies in (i, j]. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            s->idx[i] = s->idx[j];
            i = j;
        }
    }
    s->idx[i] = NULL;
}

void sp_free(sp *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->n; i++)
        sp_entry_release(s->e[i]);
    for (i = 0; i < s->noffs; i++)
        xfree(s->offs[i]);
    xfree(s->offs);
    xfree(s->e);
    xfree(s->idx);
    spco_free(s->co);
    for (i = 0; i < s->nsnaps; i++)
        snap_free(s->snaps[i]);
    xfree(s->snaps);
    sp_hist_free_all(s);
    xfree(s);
}

sp *sp_dup(const sp *s)
{
    sp *d = sp_new();
    size_t i;

    *d = *s;
    d->subidx = UINT32_MAX;
    d->co = NULL;
    d->snaps = NULL;
    d->nsnaps = 0;
    d->hist = NULL;
    d->nhist = 0;
    d->cap = s->n ? s->n : 0;
    d->e = s->n ? xmalloc(sizeof(sp_entry *) * s->n) : NULL;
    for (i = 0; i < s->n; i++)
        d->e[i] = sp_entry_share(s->e[i]);
    d->idx = NULL;
    idx_rebuild(d, s->idxcap);
    d->offs = s->noffs ? xmalloc(sizeof(sp_offseq *) * s->noffs) : NULL;
    for (i = 0; i < s->noffs; i++) {
        size_t n = sizeof(sp_offseq) + s->offs[i]->plen;
        d->offs[i] = xmalloc(n);
        memcpy(d->offs[i], s->offs[i], n);
    }
    return d;
}

size_t sp_entry_stored(const sp_entry *e)
{
    return xmalloc_size(e) + e->rawcap + (e->lz ? lzval_stored(e->lz) : 0) + spmeta_stored(e->meta);
}

size_t sp_entry_stored_beside(const sp_entry *x, const sp_entry *a, const sp_entry *b)
{
    if (x == a || x == b)
        return 0;
    return xmalloc_size(x) + x->rawcap + spmeta_stored(x->meta) +
           (x->lz ? lzval_stored_beside(x->lz, a ? a->lz : NULL, b ? b->lz : NULL) : 0);
}

size_t sp_entry_chunks(const sp_entry *e)
{
    return e->lz ? lzval_nchunks(e->lz) : 0;
}

size_t sp_stored(const sp *s)
{
    size_t i, total = xmalloc_size(s) + xmalloc_size(s->e) + xmalloc_size(s->idx) + spco_stored(s->co) +
                      xmalloc_size(s->offs);
    for (i = 0; i < s->noffs; i++)
        total += xmalloc_size(s->offs[i]);
    for (i = 0; i < s->n; i++)
        total += sp_entry_stored(s->e[i]);
    return total + sp_snaps_stored(s) + sp_hist_stored(s);
}

size_t sp_snaps_stored(const sp *s)
{
    size_t i, total = xmalloc_size(s->snaps);

    for (i = 0; i < s->nsnaps; i++) {
        const sp_snap *sn = s->snaps[i], *prev = i ? s->snaps[i - 1] : NULL;
        size_t j;
        total += xmalloc_size(sn) + xmalloc_size(sn->e);
        for (j = 0; j < sn->n; j++) {
            const sp_entry *x = sn->e[j];
            total += sp_entry_stored_beside(x, sp_find(s, x->name, x->nlen),
                                            prev ? sp_snap_get(prev, x->name, x->nlen) : NULL);
        }
    }
    return total;
}

int sp_name_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t m = alen < blen ? alen : blen;
    int r = memcmp(a, b, m);
    if (r)
        return r;
    return alen < blen ? -1 : alen > blen;
}

static int name_cmp(const sp_entry *e, const char *name, size_t nlen)
{
    return sp_name_cmp(e->name, e->nlen, name, nlen);
}

/* Index of the first entry with name >= name. */
static size_t lower_bound(const sp *s, const char *name, size_t nlen)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (name_cmp(s->e[mid], name, nlen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

sp_entry *sp_find(const sp *s, const char *name, size_t nlen)
{
    uint32_t h;
    size_t i, mask;
    sp_entry *x;

    if (!s->idx)
        return NULL;
    h = name_hash(name, nlen);
    mask = s->idxcap - 1;
    for (i = h & mask; (x = s->idx[i]) != NULL; i = (i + 1) & mask)
        if (x->hash == h && x->nlen == nlen && memcmp(x->name, name, nlen) == 0)
            return x;
    return NULL;
}

size_t sp_upper_bound(const sp *s, const char *name, size_t nlen)
{
    size_t i = lower_bound(s, name, nlen);
    if (i < s->n && name_cmp(s->e[i], name, nlen) == 0)
        i++;
    return i;
}

sp_entry *sp_add(sp *s, const char *name, size_t nlen, int64_t now)
{
    size_t i = lower_bound(s, name, nlen);
    sp_entry *e = xcalloc(1, sizeof(sp_entry) + nlen + 1);

    memcpy(e->name, name, nlen);
    e->nlen = (uint8_t)nlen;
    e->hash = name_hash(name, nlen);
    e->kind = SP_TEXT;
    e->expire = -1;
    e->created = e->updated = now;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->e = xrealloc(s->e, sizeof(sp_entry *) * s->cap);
    }
    memmove(&s->e[i + 1], &s->e[i], sizeof(sp_entry *) * (s->n - i));
    s->e[i] = e;
    s->n++;
    idx_add(s, e);
    return e;
}

void sp_remove(sp *s, sp_entry *e)
{
    size_t i = lower_bound(s, e->name, e->nlen);
    if (i >= s->n || s->e[i] != e)
        return;
    if (e->expire >= 0) {
        /* As sp_set_expire(-1), without changing e, which a snapshot may hold. */
        s->nexpiring--;
        if (e->expire == s->min_expire)
            s->min_exact = 0;
    }
    if (e->version > s->vdead)
        s->vdead = e->version;
    s->bytes -= e->size;
    idx_del(s, e);
    memmove(&s->e[i], &s->e[i + 1], sizeof(sp_entry *) * (s->n - i - 1));
    s->n--;
    sp_entry_release(e);
    if (s->cap > 16 && s->n < s->cap / 4) {
        s->cap /= 2;
        s->e = xrealloc(s->e, sizeof(sp_entry *) * s->cap);
    }
    if (s->n == 0 || (s->idxcap > IDX_MIN && s->n * 8 < s->idxcap))
        idx_rebuild(s, s->idxcap / 2);
}

/* ---- expiry ---- */

void sp_set_expire(sp *s, sp_entry *e, int64_t when)
{
    if (e->expire >= 0) {
        s->nexpiring--;
        if (e->expire == s->min_expire)
            s->min_exact = 0;
    }
    e->expire = when < 0 ? -1 : when;
    if (when < 0)
        return;
    if (s->nexpiring == 0) {
        s->min_expire = when;
        s->min_exact = 1;
    } else if (when < s->min_expire) {
        s->min_expire = when;
    }
    s->nexpiring++;
}

uint64_t *sp_offload_counter(sp *s, const char *prefix, size_t plen)
{
    sp_offseq *o;
    size_t i;

    for (i = 0; i < s->noffs; i++)
        if (s->offs[i]->plen == plen && memcmp(s->offs[i]->prefix, prefix, plen) == 0)
            return &s->offs[i]->last;
    o = xmalloc(sizeof(sp_offseq) + plen);
    o->last = s->offload_seq;
    o->plen = (uint8_t)plen;
    memcpy(o->prefix, prefix, plen);
    s->offs = xrealloc(s->offs, sizeof(sp_offseq *) * (s->noffs + 1));
    s->offs[s->noffs++] = o;
    return &o->last;
}

int64_t sp_next_expire(sp *s)
{
    size_t i;
    int64_t m = -1;

    if (s->nexpiring == 0)
        return -1;
    if (s->min_exact)
        return s->min_expire;
    for (i = 0; i < s->n; i++)
        if (s->e[i]->expire >= 0 && (m < 0 || s->e[i]->expire < m))
            m = s->e[i]->expire;
    s->min_expire = m;
    s->min_exact = 1;
    return m;
}

size_t sp_expire_due(sp *s, int64_t now)
{
    size_t i, j, removed = 0;

    if (s->nexpiring == 0 || s->min_expire > now)
        return 0;
    for (i = 0, j = 0; i < s->n; i++) {
        sp_entry *e = s->e[i];
        if (e->expire >= 0 && e->expire <= now) {
            s->nexpiring--;
            s->bytes -= e->size;
            if (e->version > s->vdead)
                s->vdead = e->version;
            sp_entry_release(e);
            removed++;
        } else {
            s->e[j++] = e;
        }
    }
    s->n = j;
    s->min_exact = 0;
    if (removed)
        idx_rebuild(s, s->idxcap);
    sp_next_expire(s);
    return removed;
}

/* ---- content ---- */

void sp_entry_set(sp *s, sp_entry *e, const char *p, size_t n, int kind, const sp_params *pr)
{
    sp_entry_set_info(s, e, p, n, kind, NULL, pr);
}

void sp_entry_set_info(sp *s, sp_entry *e, const char *p, size_t n, int kind, const sp_textinfo *ti,
                       const sp_params *pr)
{
    sp_textinfo own;
    int ends_nl = n > 0 && p[n - 1] == '\n';
    size_t room;

    s->bytes -= e->size;
    if (pr->compress_threshold > 0 && n >= pr->compress_threshold) {
        content_free(e);
        e->lz = lz_content(p, n, pr, ti);
        e->enc = SP_ENC_LZ4;
    } else if (e->raw && (room = e->rawcap) >= n && room <= 2 * n + 64) {
        /* Overwriting small content with content of about its size (the common
         * rewrite of a plan or a note): the buffer is reused, no free + malloc.
         * p may point into it (memmove). */
        memmove(e->raw, p, n);
    } else {
        content_free(e);
        e->raw = xmalloc(n ? n : 1);
        e->rawcap = xmalloc_size(e->raw);
        memcpy(e->raw, p, n);
        e->enc = SP_ENC_RAW;
    }
    if (!ti && e->enc == SP_ENC_LZ4) {
        /* lzval counted both while compressing. */
        own.chars = lzval_chars(e->lz);
        own.newlines = lzval_newlines(e->lz);
        ti = &own;
    } else if (!ti) {
        sp_text_scan(e->raw, n, &own);
        ti = &own;
    }
    e->kind = (uint8_t)kind;
    e->size = n;
    e->chars = kind == SP_TEXT ? ti->chars : n;
    e->newlines = ti->newlines;
    e->ends_nl = (uint8_t)ends_nl;
    e->has_sha = 0;
    s->bytes += n;
}

void sp_entry_set_lz(sp *s, sp_entry *e, lzval *v, int kind)
{
    size_t n = lzval_len(v);
    char last = 0;

    s->bytes -= e->size;
    content_free(e);
    if (n > 0)
        lzval_read(v, n - 1, 1, &last, NULL);
    e->lz = v;
    e->enc = SP_ENC_LZ4;
    e->kind = (uint8_t)kind;
    e->size = n;
    e->chars = kind == SP_TEXT ? lzval_chars(v) : n;
    e->newlines = lzval_newlines(v);
    e->ends_nl = last == '\n';
    e->has_sha = 0;
    s->bytes += n;
}

int sp_entry_append(sp *s, sp_entry *e, const char *p, size_t n, const sp_params *pr)
{
    return sp_entry_append_info(s, e, p, n, NULL, pr);
}

int sp_entry_append_info(sp *s, sp_entry *e, const char *p, size_t n, const sp_textinfo *ti,
                         const sp_params *pr)
{
    size_t newsize = e->size + n;
    sp_textinfo own;

    if (n == 0)
        return 0;
    if (e->enc == SP_ENC_LZ4) {
        if (lzval_holders(e->lz) > 1) {
            /* Shared with a snapshot, a fork or a version: this entry takes
             * its own copy, which shares the chunks (lzval_dup: the index is
             * copied; the append replaces only the last chunk). */
            lzval *mine = lzval_dup(e->lz);
            lzval_free(e->lz);
            e->lz = mine;
        }
        if (lzval_append(e->lz, p, n, pr->cache) < 0)
            return -1;
    } else if (pr->compress_threshold > 0 && newsize >= pr->compress_threshold) {
        lzval *v = lz_content(e->raw, e->size, pr, NULL);
        if (lzval_append(v, p, n, pr->cache) < 0) {
            lzval_free(v);
            return -1;
        }
        xfree(e->raw);
        e->raw = NULL;
        e->rawcap = 0;
        e->lz = v;
        e->enc = SP_ENC_LZ4;
    } else {
        if (e->rawcap < newsize) {
            e->raw = xrealloc(e->raw, newsize < 1024 * 1024 ? newsize * 2 : newsize + 1024 * 1024);
            e->rawcap = xmalloc_size(e->raw);
        }
        memcpy(e->raw + e->size, p, n);
    }
    if (!ti) {
        sp_text_scan(p, n, &own);
        ti = &own;
    }
    e->size = newsize;
    e->chars += e->kind == SP_TEXT ? ti->chars : n;
    e->newlines += ti->newlines;
    e->ends_nl = p[n - 1] == '\n';
    e->has_sha = 0;
    s->bytes += n;
    return 0;
}

int sp_entry_overwrite(sp_entry *e, size_t off, const char *p, size_t n, const sp_params *pr)
{
    sp_textinfo was, now;
    char small[256], *old = n <= sizeof(small) ? small : xmalloc(n);
    int rc = -1;

    if (n == 0)
        rc = 0;
    if (n == 0 || off > e->size || n > e->size - off || sp_entry_read(e, off, n, old, pr) < 0)
        goto done;
    if (e->enc == SP_ENC_LZ4) {
        if (lzval_holders(e->lz) > 1) {
            lzval *mine = lzval_dup(e->lz);
            lzval_free(e->lz);
            e->lz = mine;
        }
        if (lzval_setrange(e->lz, off, p, n, pr->cache) < 0)
            goto done;
    } else {
        memcpy(e->raw + off, p, n);
    }
    sp_text_scan(old, n, &was);
    sp_text_scan(p, n, &now);
    if (e->kind == SP_TEXT)
        e->chars = e->chars - was.chars + now.chars;
    e->newlines = e->newlines - was.newlines + now.newlines;
    if (off + n == e->size)
        e->ends_nl = p[n - 1] == '\n';
    e->has_sha = 0;
    rc = 0;
done:
    if (old != small)
        xfree(old);
    return rc;
}

int sp_entry_splice(sp *s, sp_entry *e, size_t off, size_t del, const char *p, size_t n, const sp_params *pr)
{
    sp_textinfo was, now;
    char small[256], *old = NULL, last = 0;
    size_t newsize;
    int rc = -1;

    if (off > e->size || del > e->size - off)
        return -1;
    old = del <= sizeof(small) ? small : xmalloc(del);
    if (sp_entry_read(e, off, del, old, pr) < 0)
        goto done;
    newsize = e->size - del + n;
    if (e->enc == SP_ENC_LZ4) {
        if (lzval_holders(e->lz) > 1) {
            lzval *mine = lzval_dup(e->lz);
            lzval_free(e->lz);
            e->lz = mine;
        }
        if (lzval_splice(e->lz, off, del, p, n, pr->cache) < 0)
            goto done;
    } else {
        if (e->rawcap < newsize) {
            e->raw = xrealloc(e->raw, newsize ? newsize : 1);
            e->rawcap = xmalloc_size(e->raw);
        }
        memmove(e->raw + off + n, e->raw + off + del, e->size - off - del);
        memcpy(e->raw + off, p, n);
    }
    sp_text_scan(old, del, &was);
    sp_text_scan(p, n, &now);
    if (e->kind == SP_TEXT)
        e->chars = e->chars - was.chars + now.chars;
    else
        e->chars = newsize;
    e->newlines = e->newlines - was.newlines + now.newlines;
    if (off + del == e->size) {
        if (n)
            last = p[n - 1];
        else if (off)
            sp_entry_read(e, off - 1, 1, &last, pr); /* the new last byte, read back */
        e->ends_nl = last == '\n';
    }
    s->bytes = s->bytes - e->size + newsize;
    e->size = newsize;
    e->has_sha = 0;
    rc = 0;
done:
    if (old != small)
        xfree(old);
    return rc;
}

int sp_entry_read(const sp_entry *e, size_t off, size_t n, char *dst, const sp_params *pr)
{
    if (n == 0)
        return 0;
    if (off > e->size || n > e->size - off)
        return -1;
    if (e->enc == SP_ENC_LZ4)
        return lzval_read(e->lz, off, n, dst, pr->cache);
    memcpy(dst, e->raw + off, n);
    return 0;
}

int sp_entry_copy(const sp_entry *e, char **out, const sp_params *pr)
{
    char *buf = xmalloc(e->size + 1);
    if (sp_entry_read(e, 0, e->size, buf, pr) < 0) {
        xfree(buf);
        *out = NULL;
        return -1;
    }
    buf[e->size] = '\0';
    *out = buf;
    return 0;
}

int sp_entry_char_to_byte(const sp_entry *e, size_t ch, size_t *byte, const sp_params *pr)
{
    const unsigned char *p;
    size_t i, seen = 0;

    if (ch >= e->chars) {
        *byte = e->size;
        return 0;
    }
    if (e->kind != SP_TEXT || e->chars == e->size) {
        *byte = ch;
        return 0;
    }
    if (e->enc == SP_ENC_LZ4)
        return lzval_char_to_byte(e->lz, ch, byte, pr->cache);
    p = (const unsigned char *)e->raw;
    for (i = 0; i < e->size; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            if (seen == ch) {
                *byte = i;
                return 0;
            }
            seen++;
        }
    }
    *byte = e->size;
    return 0;
}

int sp_entry_byte_to_char(const sp_entry *e, size_t b, size_t *ch, const sp_params *pr)
{
    if (b >= e->size) {
        *ch = e->chars;
        return 0;
    }
    if (e->kind != SP_TEXT || e->chars == e->size) {
        *ch = b;
        return 0;
    }
    if (e->enc == SP_ENC_LZ4)
        return lzval_byte_to_char(e->lz, b, ch, pr->cache);
    *ch = sp_count_chars(e->raw, b);
    return 0;
}

size_t sp_entry_lines(const sp_entry *e)
{
    return e->newlines + (e->size > 0 && !e->ends_nl);
}

int sp_entry_line_start(const sp_entry *e, size_t line, size_t *byte, const sp_params *pr)
{
    size_t k, i;
    const char *p;

    if (line <= 1) {
        *byte = 0;
        return 0;
    }
    k = line - 1; /* newlines to pass */
    if (k > e->newlines) {
        *byte = e->size;
        return 0;
    }
    if (e->enc == SP_ENC_LZ4)
        return lzval_line_start(e->lz, k, byte, pr->cache);
    p = e->raw;
    for (i = 0; i < k; i++) {
        const char *nl = memchr(p, '\n', e->size - (size_t)(p - e->raw));
        if (!nl) {
            *byte = e->size;
            return 0;
        }
        p = nl + 1;
    }
    *byte = (size_t)(p - e->raw);
    return 0;
}

int sp_entry_sha256(sp_entry *e, uint8_t out[32], const sp_params *pr)
{
    struct sha256_ctx ctx;

    if (e->has_sha) {
        memcpy(out, e->sha, 32);
        return 0;
    }
    sha256_init(&ctx);
    if (e->enc == SP_ENC_LZ4) {
        size_t i, n = lzval_nchunks(e->lz);
        for (i = 0; i < n; i++) {
            size_t len;
            const char *c = lzval_chunk(e->lz, i, &len, pr->cache);
            if (!c)
                return -1;
            sha256_update(&ctx, len, (const uint8_t *)c);
        }
    } else if (e->size) {
        sha256_update(&ctx, e->size, (const uint8_t *)e->raw);
    }
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, e->sha);
    e->has_sha = 1;
    memcpy(out, e->sha, 32);
    return 0;
}

/* ---- sharing ---- */

/* Where the index holds e (which it does). */
static size_t idx_slot(const sp *s, const sp_entry *e)
{
    size_t mask = s->idxcap - 1, i;

    for (i = e->hash & mask; s->idx[i] != e; i = (i + 1) & mask)
        ;
    return i;
}

sp_entry *sp_own(sp *s, sp_entry *e)
{
    sp_entry *mine;
    size_t i;

    if (!e || e->shares == 0)
        return e;
    mine = sp_entry_clone(e);
    i = lower_bound(s, e->name, e->nlen);
    s->e[i] = mine;
    s->idx[idx_slot(s, e)] = mine;
    sp_entry_release(e);
    return mine;
}

sp_entry *sp_find_own(sp *s, const char *name, size_t nlen)
{
    return sp_own(s, sp_find(s, name, nlen));
}

sp *sp_dup_snap(const sp_snap *sn)
{
    sp *d = sp_new();
    size_t i;

    d->cap = sn->n;
    d->e = sn->n ? xmalloc(sizeof(sp_entry *) * sn->n) : NULL;
    for (i = 0; i < sn->n; i++) {
        sp_entry *e = sn->e[i];
        d->e[d->n++] = sp_entry_share(e);
        d->bytes += e->size;
        if (e->expire >= 0) {
            if (d->nexpiring == 0 || e->expire < d->min_expire)
                d->min_expire = e->expire;
            d->nexpiring++;
        }
    }
    d->min_exact = 1;
    idx_rebuild(d, 0);
    return d;
}

void sp_put(sp *s, sp_entry *e)
{
    size_t i = lower_bound(s, e->name, e->nlen);

    if (i < s->n && name_cmp(s->e[i], e->name, e->nlen) == 0)
        sp_remove(s, s->e[i]);
    i = lower_bound(s, e->name, e->nlen);
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->e = xrealloc(s->e, sizeof(sp_entry *) * s->cap);
    }
    memmove(&s->e[i + 1], &s->e[i], sizeof(sp_entry *) * (s->n - i));
    s->e[i] = e;
    s->n++;
    if (!s->idx)
        idx_rebuild(s, 0);
    else
        idx_add(s, e);
    s->bytes += e->size;
    if (e->expire >= 0) {
        int64_t when = e->expire;
        if (s->nexpiring == 0) {
            s->min_expire = when;
            s->min_exact = 1;
        } else if (when < s->min_expire) {
            s->min_expire = when;
        }
        s->nexpiring++;
    }
}
