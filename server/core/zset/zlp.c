/* zlp.c -- the compact sorted set (see zlp.h). */
#include "zset/zlp.h"

#include <string.h>

#include "mem.h"

/* Bytes of a length field for a member of len bytes. */
static size_t len_size(size_t len)
{
    return len < 255 ? 1 : 5;
}

static size_t entry_size(size_t len)
{
    return 2 * len_size(len) + len + sizeof(double);
}

/* The member length of the entry at off, and its first member byte. */
static size_t read_len(const zlp *z, size_t off, const char **m)
{
    const unsigned char *p = (const unsigned char *)z->buf + off;
    uint32_t len;

    if (p[0] < 255) {
        *m = (const char *)p + 1;
        return p[0];
    }
    memcpy(&len, p + 1, 4);
    *m = (const char *)p + 5;
    return len;
}

/* The member length of the entry ending at end (exclusive). */
static size_t read_backlen(const zlp *z, size_t end)
{
    const unsigned char *p = (const unsigned char *)z->buf + end;
    uint32_t len;

    if (p[-1] < 255)
        return p[-1];
    memcpy(&len, p - 5, 4);
    return len;
}

static void write_len(char *p, size_t len, int back)
{
    uint32_t l = (uint32_t)len;

    if (len < 255) {
        *p = (char)(unsigned char)len;
    } else if (back) {
        memcpy(p, &l, 4);
        p[4] = (char)0xFF;
    } else {
        p[0] = (char)0xFF;
        memcpy(p + 1, &l, 4);
    }
}

zlp *zlp_new(void)
{
    zlp *z = xmalloc(sizeof(zlp) + 64);

    z->n = 0;
    z->used = 0;
    z->cap = 64;
    return z;
}

void zlp_free(zlp *z)
{
    xfree(z);
}

zlp *zlp_dup(const zlp *z)
{
    zlp *d = xmalloc(sizeof(zlp) + z->cap);

    memcpy(d, z, sizeof(zlp) + z->used);
    return d;
}

size_t zlp_bytes(const zlp *z)
{
    return xmalloc_size(z);
}

size_t zlp_first(const zlp *z)
{
    return z->n ? 0 : ZLP_END;
}

size_t zlp_last(const zlp *z)
{
    if (!z->n)
        return ZLP_END;
    return z->used - entry_size(read_backlen(z, z->used));
}

size_t zlp_next(const zlp *z, size_t off)
{
    const char *m;
    size_t len = read_len(z, off, &m);

    off += entry_size(len);
    return off < z->used ? off : ZLP_END;
}

size_t zlp_prev(const zlp *z, size_t off)
{
    if (off == 0)
        return ZLP_END;
    return off - entry_size(read_backlen(z, off));
}

const char *zlp_get(const zlp *z, size_t off, size_t *len, double *score)
{
    const char *m;

    *len = read_len(z, off, &m);
    memcpy(score, m + *len, sizeof(double));
    return m;
}

size_t zlp_find(const zlp *z, const char *m, size_t len, size_t *rank)
{
    size_t off = 0, r = 0;

    while (off < z->used) {
        const char *em;
        size_t elen = read_len(z, off, &em);
        if (elen == len && memcmp(em, m, len) == 0) {
            if (rank)
                *rank = r;
            return off;
        }
        off += entry_size(elen);
        r++;
    }
    return ZLP_END;
}

size_t zlp_at(const zlp *z, size_t rank)
{
    size_t off = 0;

    while (rank--)
        off = zlp_next(z, off);
    return off;
}

size_t zlp_lower_bound(const zlp *z, zlp_pred pred, void *ctx, size_t *off)
{
    size_t o = 0, r = 0;

    while (o < z->used) {
        size_t len;
        double s;
        const char *m = zlp_get(z, o, &len, &s);
        if (!pred(m, len, s, ctx))
            break;
        o += entry_size(len);
        r++;
    }
    *off = o < z->used ? o : ZLP_END;
    return r;
}

/* (s1, m1) before (s2, m2) in the set's order. */
static int before(double s1, const char *m1, size_t l1, double s2, const char *m2, size_t l2)
{
    int c;

    if (s1 != s2)
        return s1 < s2;
    c = memcmp(m1, m2, l1 < l2 ? l1 : l2);
    return c < 0 || (c == 0 && l1 < l2);
}

zlp *zlp_insert(zlp *z, const char *m, size_t len, double score)
{
    size_t need = entry_size(len), off = 0;
    char *p;

    if ((size_t)z->used + need > z->cap) {
        size_t cap = z->cap * 2;
        if (cap < (size_t)z->used + need)
            cap = (size_t)z->used + need;
        z = xrealloc(z, sizeof(zlp) + cap);
        z->cap = (uint32_t)cap;
    }
    while (off < z->used) {
        size_t elen;
        double s;
        const char *em = zlp_get(z, off, &elen, &s);
        if (before(score, m, len, s, em, elen))
            break;
        off += entry_size(elen);
    }
    p = z->buf + off;
    memmove(p + need, p, z->used - off);
    write_len(p, len, 0);
    p += len_size(len);
    memcpy(p, m, len);
    memcpy(p + len, &score, sizeof(double));
    write_len(p + len + sizeof(double), len, 1);
    z->used += (uint32_t)need;
    z->n++;
    return z;
}

void zlp_delete(zlp *z, size_t off, size_t count)
{
    size_t end = off;

    while (count-- && end < z->used) {
        const char *m;
        end += entry_size(read_len(z, end, &m));
        z->n--;
    }
    memmove(z->buf + off, z->buf + end, z->used - end);
    z->used -= (uint32_t)(end - off);
}

zlp *zlp_shrink(zlp *z)
{
    size_t want = (size_t)z->used + z->used / 4;

    if (want < 64)
        want = 64;
    if (z->cap <= 64 || want > z->cap / 2)
        return z;
    z = xrealloc(z, sizeof(zlp) + want);
    z->cap = (uint32_t)want;
    return z;
}
