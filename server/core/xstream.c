/* xstream.c -- a stream's entries in compact blocks (see xstream.h). */
#include "xstream.h"

#include "rdbval.h"

#include <string.h>

#include "mem.h"

#define XS_F_DELETED 1
#define XS_F_SAME 2
#define XS_MAX_BLOCK_BYTES (1u << 30)

struct xs_block {
    xs_id master;   /* the first entry's id */
    xs_id last;     /* the last entry's id (deleted or not) */
    uint32_t used;  /* bytes of data in use */
    uint32_t cap;   /* bytes of data allocated */
    uint32_t count; /* entries, deleted ones included */
    uint32_t live;  /* entries not deleted */
    uint32_t fend;  /* offset of the first entry (after the master's names) */
    uint32_t nmf;   /* master field names */
    uint64_t lpfix; /* bytes Redis's listpack of these entries takes, but its two counters */
    unsigned char data[];
};

/* ---- Redis's listpack sizes ----
 *
 * Redis starts a new block when the last one's listpack bytes plus the new
 * entry's field and value lengths reach stream-node-max-bytes. Blocks split
 * where Redis's do keep approximate trims (which drop whole blocks) and
 * XINFO's block count the same, whatever the entries' sizes: so each block
 * keeps the size its entries would take as a Redis listpack (lpfix, plus the
 * live and deleted counters, whose encoded sizes change as they count). An
 * element is an integer when its string is one (canonical, 64-bit), else a
 * string; each has a header and a back-length of its own. */

static size_t lp_backlen(uint64_t l)
{
    return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

static size_t lp_int(int64_t v)
{
    size_t e = (v >= 0 && v <= 127)                 ? 1
               : (v >= -4096 && v <= 4095)          ? 2
               : (v >= -32768 && v <= 32767)        ? 3
               : (v >= -8388608 && v <= 8388607)    ? 4
               : (v >= INT32_MIN && v <= INT32_MAX) ? 5
                                                    : 9;
    return e + lp_backlen(e);
}

/* 1 with *v if p[0..n) is an integer as Redis's listpack takes one. */
static int lp_str_int(const char *p, size_t n, int64_t *v)
{
    size_t i = 0;
    uint64_t u;
    int neg = 0;

    if (n == 0 || n >= 21)
        return 0;
    if (n == 1 && p[0] == '0') {
        *v = 0;
        return 1;
    }
    if (p[0] == '-') {
        neg = 1;
        if (++i == n)
            return 0;
    }
    if (p[i] < '1' || p[i] > '9')
        return 0;
    u = (uint64_t)(p[i++] - '0');
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || u > UINT64_MAX / 10 || u * 10 > UINT64_MAX - (uint64_t)(p[i] - '0'))
            return 0;
        u = u * 10 + (uint64_t)(p[i] - '0');
    }
    if (neg) {
        if (u > (uint64_t)INT64_MAX + 1)
            return 0;
        *v = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX)
            return 0;
        *v = (int64_t)u;
    }
    return 1;
}

static size_t lp_str(const char *p, size_t n)
{
    int64_t v;
    size_t e;

    if (lp_str_int(p, n, &v))
        return lp_int(v);
    e = n < 64 ? 1 + n : n < 4096 ? 2 + n : 5 + n;
    return e + lp_backlen(e);
}

/* Bytes Redis's listpack of b takes now. */
static uint64_t lp_bytes(const xs_block *b)
{
    return b->lpfix + lp_int(b->live) + lp_int((int64_t)(b->count - b->live));
}

/* Bytes the entry takes in Redis's listpack (flags, id deltas, fields or
 * values, element count). */
static uint64_t lp_entry(const xs_block *b, const xs_id *id, const xs_str *fv, size_t npairs, int same)
{
    uint64_t n = lp_int(same ? 2 : 0) + lp_int((int64_t)(id->ms - b->master.ms)) +
                 lp_int((int64_t)(id->seq - b->master.seq));
    size_t i;

    if (same) {
        for (i = 0; i < npairs; i++)
            n += lp_str(fv[2 * i + 1].p, fv[2 * i + 1].len);
    } else {
        n += lp_int((int64_t)npairs);
        for (i = 0; i < 2 * npairs; i++)
            n += lp_str(fv[i].p, fv[i].len);
    }
    return n + lp_int((int64_t)(npairs + 3 + (same ? 0 : npairs + 1)));
}

/* ---- varints ---- */

static size_t uv_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static unsigned char *uv_put(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static const unsigned char *uv_get(const unsigned char *p, uint64_t *v)
{
    uint64_t r = 0;
    int shift = 0;
    while (*p & 0x80) {
        r |= (uint64_t)(*p++ & 0x7f) << shift;
        shift += 7;
    }
    r |= (uint64_t)*p++ << shift;
    *v = r;
    return p;
}

/* The length L written to be read from its last byte: the 7-bit groups from
 * the most significant, every byte but the first with its high bit set. */
static unsigned char *bl_put(unsigned char *p, uint64_t v)
{
    unsigned char tmp[10];
    size_t n = 0, i;
    do {
        tmp[n++] = (unsigned char)(v & 0x7f);
        v >>= 7;
    } while (v);
    for (i = n; i-- > 0;)
        *p++ = (unsigned char)(tmp[i] | (i + 1 < n ? 0x80 : 0));
    return p;
}

/* Read the backlen ending just before end; *start is its first byte. */
static uint64_t bl_get(const unsigned char *end, const unsigned char **start)
{
    uint64_t v = 0;
    int shift = 0;
    const unsigned char *p = end - 1;
    for (;;) {
        v |= (uint64_t)(*p & 0x7f) << shift;
        shift += 7;
        if (!(*p & 0x80))
            break;
        p--;
    }
    *start = p;
    return v;
}

/* ---- the index ---- */

static size_t index_bytes(const xstream *s)
{
    return s->cap * sizeof(xs_block *);
}

static inline xs_block *blk_at(const xstream *s, size_t i)
{
    return s->blk[s->head + i];
}

static void index_push(xstream *s, xs_block *b)
{
    if (s->head + s->nblk == s->cap) {
        if (s->head > 0 && s->head >= s->nblk) {
            memmove(s->blk, s->blk + s->head, s->nblk * sizeof(xs_block *));
            s->head = 0;
        } else {
            s->bytes -= index_bytes(s);
            s->cap = s->cap ? s->cap * 2 : 4;
            s->blk = xrealloc(s->blk, s->cap * sizeof(xs_block *));
            s->bytes += index_bytes(s);
        }
    }
    s->blk[s->head + s->nblk++] = b;
}

static void block_free(xstream *s, xs_block *b)
{
    s->bytes -= sizeof(xs_block) + b->cap;
    xfree(b);
}

/* Remove block i from the index and free it. */
static void index_remove(xstream *s, size_t i)
{
    block_free(s, blk_at(s, i));
    if (i == 0) {
        s->head++;
    } else {
        memmove(s->blk + s->head + i, s->blk + s->head + i + 1, (s->nblk - i - 1) * sizeof(xs_block *));
    }
    s->nblk--;
    if (s->nblk == 0)
        s->head = 0;
}

xstream *xs_new(void)
{
    xstream *s = xcalloc(1, sizeof(xstream));
    s->bytes = 0;
    return s;
}

void xs_free(xstream *s)
{
    size_t i;
    if (!s)
        return;
    for (i = 0; i < s->nblk; i++)
        xfree(blk_at(s, i));
    xfree(s->blk);
    xfree(s);
}

xstream *xs_dup(const xstream *s)
{
    xstream *d = xcalloc(1, sizeof(xstream));
    size_t i;

    d->cap = s->nblk ? s->nblk : 0;
    d->blk = d->cap ? xmalloc(d->cap * sizeof(xs_block *)) : NULL;
    d->bytes = index_bytes(d);
    for (i = 0; i < s->nblk; i++) {
        const xs_block *b = blk_at(s, i);
        xs_block *c = xmalloc(sizeof(xs_block) + b->used);
        memcpy(c, b, sizeof(xs_block) + b->used);
        c->cap = b->used;
        d->blk[i] = c;
        d->bytes += sizeof(xs_block) + c->cap;
    }
    d->nblk = s->nblk;
    d->len = s->len;
    return d;
}

size_t xs_mem(const xstream *s)
{
    return sizeof(xstream) + s->bytes;
}

/* ---- appending ---- */

/* 1 if fv's field names are b's master names, in order. */
static int same_fields(const xs_block *b, const xs_str *fv, size_t npairs)
{
    const unsigned char *p = b->data;
    uint64_t n, len;
    size_t i;

    p = uv_get(p, &n);
    if (n != npairs)
        return 0;
    for (i = 0; i < npairs; i++) {
        p = uv_get(p, &len);
        if (len != fv[2 * i].len || memcmp(p, fv[2 * i].p, len) != 0)
            return 0;
        p += len;
    }
    return 1;
}

static xs_block *block_new(xstream *s, const xs_id *id, const xs_str *fv, size_t npairs, size_t room)
{
    size_t names = uv_len(npairs), i, cap;
    xs_block *b;
    unsigned char *p;

    for (i = 0; i < npairs; i++)
        names += uv_len(fv[2 * i].len) + fv[2 * i].len;
    cap = names + room;
    b = xmalloc(sizeof(xs_block) + cap);
    b->master = *id;
    b->last = *id;
    b->used = (uint32_t)names;
    b->cap = (uint32_t)cap;
    b->count = 0;
    b->live = 0;
    b->fend = (uint32_t)names;
    b->nmf = (uint32_t)npairs;
    /* header and end (7), the field count, the names, the master's 0 */
    b->lpfix = 7 + lp_int((int64_t)npairs) + lp_int(0);
    for (i = 0; i < npairs; i++)
        b->lpfix += lp_str(fv[2 * i].p, fv[2 * i].len);
    p = uv_put(b->data, npairs);
    for (i = 0; i < npairs; i++) {
        p = uv_put(p, fv[2 * i].len);
        memcpy(p, fv[2 * i].p, fv[2 * i].len);
        p += fv[2 * i].len;
    }
    s->bytes += sizeof(xs_block) + cap;
    index_push(s, b);
    return b;
}

/* The bytes of an entry before its backlen. */
static size_t entry_body_len(const xs_block *b, const xs_id *id, const xs_str *fv, size_t npairs, int same)
{
    size_t n = 1, i;
    uint64_t dms = id->ms - b->master.ms;

    n += uv_len(dms);
    n += uv_len(dms == 0 ? id->seq - b->master.seq : id->seq);
    if (same) {
        for (i = 0; i < npairs; i++)
            n += uv_len(fv[2 * i + 1].len) + fv[2 * i + 1].len;
    } else {
        n += uv_len(npairs);
        for (i = 0; i < 2 * npairs; i++)
            n += uv_len(fv[i].len) + fv[i].len;
    }
    return n;
}

static const unsigned char *entry_head(const xs_block *b, uint32_t off, int *flags, xs_id *id);
static uint32_t entry_end(const xs_block *b, uint32_t off);
static uint32_t entry_start(const xs_block *b, uint32_t end);

/* xs_append, and xs_append_raw's forced new block (fresh). */
static void append(xstream *s, const xs_id *id, const xs_str *fv, size_t nfv, size_t max_bytes, size_t max_entries,
                   int fresh)
{
    size_t npairs = nfv / 2, body = 0, total = 0, i;
    xs_block *b = s->nblk && !fresh ? blk_at(s, s->nblk - 1) : NULL;
    int same = 1;
    unsigned char *p;
    uint64_t dms;

    if (max_bytes == 0 || max_bytes > XS_MAX_BLOCK_BYTES)
        max_bytes = XS_MAX_BLOCK_BYTES;
    if (b) {
        uint64_t raw = 0;
        for (i = 0; i < nfv; i++)
            raw += fv[i].len;
        same = same_fields(b, fv, npairs);
        body = entry_body_len(b, id, fv, npairs, same);
        total = body + uv_len(body);
        /* Redis's rule (its listpack's bytes plus the raw lengths), and our
         * own bound on a block's offsets. */
        if (lp_bytes(b) + raw >= max_bytes || (max_entries && b->count >= max_entries) ||
            (uint64_t)b->used + total > 2 * (uint64_t)XS_MAX_BLOCK_BYTES) {
            /* The block is complete: give back its slack. */
            if (b->cap > b->used) {
                s->bytes -= b->cap;
                b = xrealloc(b, sizeof(xs_block) + b->used);
                b->cap = b->used;
                s->bytes += b->cap;
                s->blk[s->head + s->nblk - 1] = b;
            }
            b = NULL;
        }
    }
    if (!b) {
        /* Room for this entry and, when entries are small, a few more. */
        size_t guess;
        xs_block tmp;
        tmp.master = *id;
        body = entry_body_len(&tmp, id, fv, npairs, 1);
        total = body + uv_len(body);
        guess = total * 4;
        b = block_new(s, id, fv, npairs, guess < max_bytes ? guess : total);
        same = 1;
    }
    if (b->used + total > b->cap) {
        /* Grow by an eighth (at least 64 bytes): little slack, few copies. */
        size_t want = b->used + total, cap = b->cap + b->cap / 8;
        if (cap < b->cap + 64)
            cap = b->cap + 64;
        if (cap < want)
            cap = want;
        s->bytes -= b->cap;
        b = xrealloc(b, sizeof(xs_block) + cap);
        b->cap = (uint32_t)cap;
        s->bytes += cap;
        s->blk[s->head + s->nblk - 1] = b;
    }
    p = b->data + b->used;
    *p++ = same ? XS_F_SAME : 0;
    dms = id->ms - b->master.ms;
    p = uv_put(p, dms);
    p = uv_put(p, dms == 0 ? id->seq - b->master.seq : id->seq);
    if (same) {
        for (i = 0; i < npairs; i++) {
            p = uv_put(p, fv[2 * i + 1].len);
            memcpy(p, fv[2 * i + 1].p, fv[2 * i + 1].len);
            p += fv[2 * i + 1].len;
        }
    } else {
        p = uv_put(p, npairs);
        for (i = 0; i < 2 * npairs; i++) {
            p = uv_put(p, fv[i].len);
            memcpy(p, fv[i].p, fv[i].len);
            p += fv[i].len;
        }
    }
    p = bl_put(p, body);
    b->lpfix += lp_entry(b, id, fv, npairs, same);
    b->used = (uint32_t)(p - b->data);
    b->count++;
    b->live++;
    b->last = *id;
    s->len++;
}

void xs_append(xstream *s, const xs_id *id, const xs_str *fv, size_t nfv, size_t max_bytes, size_t max_entries)
{
    append(s, id, fv, nfv, max_bytes, max_entries, 0);
}

void xs_append_raw(xstream *s, const xs_id *id, const xs_str *fv, size_t nfv, int new_block, int deleted)
{
    xs_block *b;
    uint32_t off;

    append(s, id, fv, nfv, 0, 0, new_block || s->nblk == 0);
    if (!deleted)
        return;
    b = blk_at(s, s->nblk - 1);
    off = entry_start(b, b->used);
    b->data[off] |= XS_F_DELETED;
    b->live--;
    s->len--;
}

void xs_block_lp(const xstream *s, size_t bi, rdb_out *lp, xs_id *master)
{
    const xs_block *b = blk_at(s, bi);
    const unsigned char *p;
    uint64_t n, len, elems = 0, i;
    uint32_t off;

    *master = b->master;
    rdb_lp_begin(lp);
    rdb_lp_int(lp, b->live);
    rdb_lp_int(lp, (int64_t)(b->count - b->live));
    rdb_lp_int(lp, b->nmf);
    p = uv_get(b->data, &n);
    for (i = 0; i < n; i++) {
        p = uv_get(p, &len);
        rdb_lp_str(lp, p, len);
        p += len;
    }
    rdb_lp_int(lp, 0);
    elems += 4 + n;
    for (off = b->fend; off < b->used; off = entry_end(b, off)) {
        int flags;
        xs_id id;
        uint64_t pairs, vals;
        p = entry_head(b, off, &flags, &id);
        rdb_lp_int(lp, flags & (XS_F_DELETED | XS_F_SAME));
        rdb_lp_int(lp, (int64_t)(id.ms - b->master.ms));
        rdb_lp_int(lp, (int64_t)(id.seq - b->master.seq));
        if (flags & XS_F_SAME) {
            pairs = b->nmf;
            vals = pairs;
        } else {
            p = uv_get(p, &pairs);
            rdb_lp_int(lp, (int64_t)pairs);
            vals = 2 * pairs;
        }
        for (i = 0; i < vals; i++) {
            p = uv_get(p, &len);
            rdb_lp_str(lp, p, len);
            p += len;
        }
        /* Redis's lp-count: the entry's elements but itself */
        n = flags & XS_F_SAME ? pairs + 3 : 2 * pairs + 4;
        rdb_lp_int(lp, (int64_t)n);
        elems += n + 1;
    }
    rdb_lp_end(lp, (uint32_t)(elems > 65535 ? 65535 : elems));
}

/* ---- reading entries ---- */

/* Decode the header of the entry at off of b: flags, id; *body is past the id. */
static const unsigned char *entry_head(const xs_block *b, uint32_t off, int *flags, xs_id *id)
{
    const unsigned char *p = b->data + off;
    uint64_t dms, sq;

    *flags = *p++;
    p = uv_get(p, &dms);
    p = uv_get(p, &sq);
    id->ms = b->master.ms + dms;
    id->seq = dms == 0 ? b->master.seq + sq : sq;
    return p;
}

/* The offset just past the entry at off (its backlen included). */
static uint32_t entry_end(const xs_block *b, uint32_t off)
{
    const unsigned char *p = b->data + off, *q;
    uint64_t dms, sq, n, len, i;
    int flags = *p++;

    p = uv_get(p, &dms);
    p = uv_get(p, &sq);
    if (flags & XS_F_SAME) {
        n = b->nmf;
    } else {
        p = uv_get(p, &n);
        n *= 2;
    }
    for (i = 0; i < n; i++) {
        p = uv_get(p, &len);
        p += len;
    }
    q = p;
    len = (uint64_t)(q - (b->data + off));
    p += uv_len(len);
    return (uint32_t)(p - b->data);
}

/* The offset of the entry ending at end (its backlen's last byte is end - 1). */
static uint32_t entry_start(const xs_block *b, uint32_t end)
{
    const unsigned char *blstart;
    uint64_t body = bl_get(b->data + end, &blstart);
    return (uint32_t)((blstart - b->data) - body);
}

/* Find the block holding id's place: the last block whose master id <= id
 * (0 if id precedes them all). */
static size_t find_block(const xstream *s, const xs_id *id)
{
    size_t lo = 0, hi = s->nblk;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (xs_id_cmp(&blk_at(s, mid)->master, id) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int xs_delete(xstream *s, const xs_id *id)
{
    size_t bi;
    xs_block *b;
    uint32_t off;

    if (s->nblk == 0)
        return 0;
    bi = find_block(s, id);
    b = blk_at(s, bi);
    if (xs_id_cmp(id, &b->master) < 0 || xs_id_cmp(id, &b->last) > 0)
        return 0;
    for (off = b->fend; off < b->used; off = entry_end(b, off)) {
        int flags;
        xs_id cur;
        int c;
        entry_head(b, off, &flags, &cur);
        if (flags & XS_F_DELETED)
            continue;
        c = xs_id_cmp(&cur, id);
        if (c > 0)
            return 0;
        if (c < 0)
            continue;
        b->data[off] = (unsigned char)(flags | XS_F_DELETED);
        b->live--;
        s->len--;
        if (b->live == 0)
            index_remove(s, bi);
        return 1;
    }
    return 0;
}

int xs_first(const xstream *s, xs_id *out)
{
    xs_iter it;
    xs_id lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
    uint64_t nf;
    xs_iter_init(&it, s, &lo, &hi, 0);
    return xs_next(&it, out, &nf) ? 0 : -1;
}

int xs_last(const xstream *s, xs_id *out)
{
    xs_iter it;
    xs_id lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
    uint64_t nf;
    xs_iter_init(&it, s, &lo, &hi, 1);
    return xs_next(&it, out, &nf) ? 0 : -1;
}

/* ---- trimming ---- */

/* Mark deleted, from the start of the first block, live entries while keep_going
 * says so; returns how many. The first block is never emptied by the callers. */
static uint64_t trim_inside(xstream *s, uint64_t maxlen, const xs_id *minid)
{
    xs_block *b = blk_at(s, 0);
    uint32_t off;
    uint64_t n = 0;

    for (off = b->fend; off < b->used; off = entry_end(b, off)) {
        int flags;
        xs_id cur;
        entry_head(b, off, &flags, &cur);
        if (minid ? xs_id_cmp(&cur, minid) >= 0 : s->len <= maxlen)
            break;
        if (flags & XS_F_DELETED)
            continue;
        b->data[off] = (unsigned char)(flags | XS_F_DELETED);
        b->live--;
        s->len--;
        n++;
    }
    /* A block emptied here stays, as Redis keeps its node: later appends and
     * approximate trims see the same blocks. */
    return n;
}

static uint64_t trim(xstream *s, uint64_t maxlen, const xs_id *minid, int approx, uint64_t limit)
{
    uint64_t deleted = 0;

    while (s->nblk > 0) {
        xs_block *b = blk_at(s, 0);
        int whole;
        if (!minid && s->len <= maxlen)
            break;
        if (limit && deleted + b->live > limit)
            break;
        whole = minid ? xs_id_cmp(&b->last, minid) < 0 : s->len - b->live >= maxlen;
        if (whole) {
            deleted += b->live;
            s->len -= b->live;
            index_remove(s, 0);
            continue;
        }
        if (approx)
            break;
        deleted += trim_inside(s, maxlen, minid);
        break;
    }
    return deleted;
}

uint64_t xs_trim_maxlen(xstream *s, uint64_t maxlen, int approx, uint64_t limit)
{
    return trim(s, maxlen, NULL, approx, limit);
}

uint64_t xs_trim_minid(xstream *s, const xs_id *minid, int approx, uint64_t limit)
{
    return trim(s, 0, minid, approx, limit);
}

/* ---- iteration ---- */

void xs_iter_init(xs_iter *it, const xstream *s, const xs_id *start, const xs_id *end, int rev)
{
    memset(it, 0, sizeof(*it));
    it->s = s;
    it->start = *start;
    it->end = *end;
    it->rev = rev;
    if (s->nblk == 0 || xs_id_cmp(start, end) > 0) {
        it->done = 1;
        return;
    }
    it->bi = find_block(s, rev ? end : start);
    it->b = blk_at(s, it->bi);
    it->off = rev ? it->b->used : it->b->fend;
}

int xs_next(xs_iter *it, xs_id *id, uint64_t *nf)
{
    while (!it->done) {
        const xs_block *b = it->b;
        const unsigned char *p;
        int flags;
        xs_id cur;
        uint32_t at;

        if (it->rev ? it->off <= b->fend : it->off >= b->used) {
            if (it->rev ? it->bi == 0 : it->bi + 1 >= it->s->nblk) {
                it->done = 1;
                break;
            }
            it->bi += it->rev ? (size_t)-1 : 1;
            it->b = blk_at(it->s, it->bi);
            it->off = it->rev ? it->b->used : it->b->fend;
            continue;
        }
        if (it->rev) {
            at = entry_start(b, it->off);
            it->off = at;
        } else {
            at = it->off;
            it->off = entry_end(b, at);
        }
        p = entry_head(b, at, &flags, &cur);
        /* Deleted entries are skipped before the range test, as Redis's
         * iterator does: one may hold an id above later ones (XSETID). */
        if (flags & XS_F_DELETED)
            continue;
        if (it->rev) {
            if (xs_id_cmp(&cur, &it->start) < 0) {
                it->done = 1;
                break;
            }
            if (xs_id_cmp(&cur, &it->end) > 0)
                continue;
        } else {
            if (xs_id_cmp(&cur, &it->end) > 0) {
                it->done = 1;
                break;
            }
            if (xs_id_cmp(&cur, &it->start) < 0)
                continue;
        }
        it->id = cur;
        it->same = (flags & XS_F_SAME) != 0;
        if (it->same) {
            uint64_t n;
            it->nf = b->nmf;
            it->mcur = uv_get(b->data, &n);
        } else {
            p = uv_get(p, &it->nf);
        }
        it->cur = p;
        it->left = it->nf;
        *id = cur;
        *nf = it->nf;
        return 1;
    }
    return 0;
}

void xs_field(xs_iter *it, const char **f, size_t *flen, const char **v, size_t *vlen)
{
    uint64_t len;

    if (it->left == 0) {
        *f = *v = "";
        *flen = *vlen = 0;
        return;
    }
    it->left--;
    if (it->same) {
        it->mcur = uv_get(it->mcur, &len);
        *f = (const char *)it->mcur;
        *flen = len;
        it->mcur += len;
    } else {
        it->cur = uv_get(it->cur, &len);
        *f = (const char *)it->cur;
        *flen = len;
        it->cur += len;
    }
    it->cur = uv_get(it->cur, &len);
    *v = (const char *)it->cur;
    *vlen = len;
    it->cur += len;
}
