/* rdbval.c -- Redis 7.0's RDB encodings of one value (see rdbval.h).
 *
 * Listpack entries: an encoding byte, then data, then the entry's length
 * (encoding + data) as a back-length of 1 to 5 bytes (7 bits a byte, written
 * so that it reads from its last byte backwards). Encodings: 0xxxxxxx a 7-bit
 * unsigned integer; 10xxxxxx a string of up to 63 bytes; 110xxxxx yyyyyyyy a
 * 13-bit signed integer; 1110xxxx yyyyyyyy a string of up to 4095 bytes;
 * 0xF0 a string with a 32-bit length; 0xF1 / F2 / F3 / F4 a signed integer of
 * 16 / 24 / 32 / 64 bits; 0xFF the end. Integers are little-endian. A listpack
 * starts with its total bytes (32 bits) and element count (16 bits, 65535:
 * "count them").
 *
 * Ziplist entries: the previous entry's length (1 byte, or 0xFE and 32 bits),
 * then 00xxxxxx / 01xxxxxx yyyyyyyy / 0x80 + 32 bits (big-endian) a string's
 * length, or an integer: 0xC0 16 bits, 0xD0 32, 0xE0 64, 0xF0 24, 0xFE 8,
 * 0xF1..0xFD the value 0..12 itself. Header: total bytes, the last entry's
 * offset (32 bits each), the count (16 bits). Zipmaps: a count byte, then
 * (key length, key, value length, free byte, value, free bytes), lengths of 1
 * byte or 0xFE and 32 bits, 0xFF at the end. */
#include "rdbval.h"

#include <limits.h>
#include <lzf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumpfmt.h"
#include "mem.h"
#include "util.h"

enum { IT_LP = 1, IT_ZL, IT_ZM, IT_IS };

/* ---- writing ---- */

void rdb_out_free(rdb_out *o)
{
    xfree(o->p);
    o->p = NULL;
    o->len = o->cap = 0;
}

static void reserve(rdb_out *o, size_t n)
{
    if (o->cap - o->len >= n)
        return;
    o->cap = (o->len + n) * 2 + 64;
    o->p = xrealloc(o->p, o->cap);
}

void rdb_put(rdb_out *o, const void *p, size_t n)
{
    reserve(o, n);
    if (n)
        memcpy(o->p + o->len, p, n);
    o->len += n;
}

void rdb_put_byte(rdb_out *o, int b)
{
    reserve(o, 1);
    o->p[o->len++] = (unsigned char)b;
}

void rdb_put_len(rdb_out *o, uint64_t len)
{
    reserve(o, 9);
    o->len += dump_put_len(o->p + o->len, len);
}

static void put_le(rdb_out *o, uint64_t v, int nbytes)
{
    int i;
    reserve(o, (size_t)nbytes);
    for (i = 0; i < nbytes; i++)
        o->p[o->len++] = (unsigned char)(v >> (8 * i));
}

/* 1 and *v if p[0..n) is the canonical decimal text of a 64-bit integer. */
static int canonical_ll(const void *p, size_t n, long long *v)
{
    char buf[24];
    if (n == 0 || n > 20 || str_to_ll(p, n, v) < 0)
        return 0;
    return ll_to_str(buf, *v) == n && memcmp(buf, p, n) == 0;
}

void rdb_put_string(rdb_out *o, const void *p, size_t n)
{
    long long v;

    if (n <= 11 && canonical_ll(p, n, &v) && v >= INT32_MIN && v <= INT32_MAX) {
        if (v >= -128 && v <= 127) {
            rdb_put_byte(o, 0xC0);
            put_le(o, (uint64_t)v, 1);
        } else if (v >= -32768 && v <= 32767) {
            rdb_put_byte(o, 0xC1);
            put_le(o, (uint64_t)v, 2);
        } else {
            rdb_put_byte(o, 0xC2);
            put_le(o, (uint64_t)v, 4);
        }
        return;
    }
    if (n > 20) {
        unsigned char *z = xmalloc(n - 4 + 1);
        unsigned int zlen = lzf_compress(p, (unsigned int)n, z, (unsigned int)(n - 4));
        if (zlen > 0) {
            rdb_put_byte(o, 0xC3);
            rdb_put_len(o, zlen);
            rdb_put_len(o, n);
            rdb_put(o, z, zlen);
            xfree(z);
            return;
        }
        xfree(z);
    }
    rdb_put_len(o, n);
    rdb_put(o, p, n);
}

void rdb_put_double(rdb_out *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_le(o, u, 8);
}

void rdb_put_trailer(rdb_out *o)
{
    uint64_t crc;
    put_le(o, RDB_VERSION, 2);
    crc = crc64_jones(0, o->p, o->len);
    put_le(o, crc, 8);
}

/* The back-length of an entry of l bytes into buf; returns its bytes. */
static size_t lp_backlen(unsigned char *buf, uint64_t l)
{
    size_t n = l < 128 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5, i;
    for (i = 0; i < n; i++) /* buf[n-1] holds the low 7 bits; all but buf[0] flagged */
        buf[n - 1 - i] = (unsigned char)(((l >> (7 * i)) & 127) | (i + 1 < n ? 128 : 0));
    return n;
}

void rdb_lp_begin(rdb_out *lp)
{
    lp->len = 0;
    reserve(lp, 6);
    memset(lp->p, 0, 6);
    lp->len = 6;
}

static void lp_entry_end(rdb_out *lp, size_t start)
{
    unsigned char b[5];
    size_t n = lp_backlen(b, lp->len - start);
    rdb_put(lp, b, n);
}

void rdb_lp_int(rdb_out *lp, int64_t v)
{
    size_t start = lp->len;
    uint64_t u = (uint64_t)v;

    if (v >= 0 && v <= 127) {
        rdb_put_byte(lp, (int)v);
    } else if (v >= -4096 && v <= 4095) {
        uint64_t w = v < 0 ? (uint64_t)(v + 8192) : u;
        rdb_put_byte(lp, (int)(0xC0 | (w >> 8)));
        rdb_put_byte(lp, (int)(w & 0xff));
    } else if (v >= -32768 && v <= 32767) {
        rdb_put_byte(lp, 0xF1);
        put_le(lp, u, 2);
    } else if (v >= -8388608 && v <= 8388607) {
        rdb_put_byte(lp, 0xF2);
        put_le(lp, u, 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        rdb_put_byte(lp, 0xF3);
        put_le(lp, u, 4);
    } else {
        rdb_put_byte(lp, 0xF4);
        put_le(lp, u, 8);
    }
    lp_entry_end(lp, start);
}

void rdb_lp_str(rdb_out *lp, const void *p, size_t n)
{
    size_t start = lp->len;
    long long v;

    if (canonical_ll(p, n, &v)) {
        rdb_lp_int(lp, v);
        return;
    }
    if (n < 64) {
        rdb_put_byte(lp, (int)(0x80 | n));
    } else if (n < 4096) {
        rdb_put_byte(lp, (int)(0xE0 | (n >> 8)));
        rdb_put_byte(lp, (int)(n & 0xff));
    } else {
        rdb_put_byte(lp, 0xF0);
        put_le(lp, n, 4);
    }
    rdb_put(lp, p, n);
    lp_entry_end(lp, start);
}

void rdb_lp_end(rdb_out *lp, uint32_t count)
{
    size_t i;
    rdb_put_byte(lp, 0xFF);
    for (i = 0; i < 4; i++)
        lp->p[i] = (unsigned char)(lp->len >> (8 * i));
    if (count > 65535)
        count = 65535;
    lp->p[4] = (unsigned char)(count & 0xff);
    lp->p[5] = (unsigned char)(count >> 8);
}

size_t rdb_fmt_score(char *buf, double d)
{
    if (isnan(d))
        return (size_t)sprintf(buf, "nan");
    if (isinf(d))
        return (size_t)sprintf(buf, d < 0 ? "-inf" : "inf");
    if (d >= (double)(-LLONG_MAX / 2) && d <= (double)(LLONG_MAX / 2) && d == (double)(long long)d)
        return ll_to_str(buf, (long long)d);
    return (size_t)sprintf(buf, "%.17g", d);
}

/* ---- reading ---- */

static uint64_t get_le(const unsigned char *p, int nbytes)
{
    uint64_t v = 0;
    int i;
    for (i = 0; i < nbytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int rdb_check_trailer(const unsigned char *p, size_t n)
{
    if (n < 10)
        return -1;
    if (get_le(p + n - 10, 2) > RDB_VERSION)
        return -1;
    return crc64_jones(0, p, n - 8) == get_le(p + n - 8, 8) ? 0 : -1;
}

int rdb_get_len(const unsigned char **p, const unsigned char *end, uint64_t *len)
{
    const unsigned char *q = *p;
    int i;

    if (q >= end)
        return -1;
    switch (q[0] >> 6) {
    case 0:
        *len = q[0] & 0x3f;
        *p = q + 1;
        return 0;
    case 1:
        if (end - q < 2)
            return -1;
        *len = ((uint64_t)(q[0] & 0x3f) << 8) | q[1];
        *p = q + 2;
        return 0;
    case 2:
        if (q[0] != 0x80 && q[0] != 0x81)
            return -1;
        i = q[0] == 0x80 ? 4 : 8;
        if (end - q < 1 + i)
            return -1;
        *len = 0;
        for (int k = 0; k < i; k++)
            *len = (*len << 8) | q[1 + k];
        *p = q + 1 + i;
        return 0;
    default:
        return -1;
    }
}

int rdb_get_double(const unsigned char **p, const unsigned char *end, double *d)
{
    uint64_t u;
    if (end - *p < 8)
        return -1;
    u = get_le(*p, 8);
    memcpy(d, &u, 8);
    *p += 8;
    return 0;
}

int rdb_get_text_double(const unsigned char **p, const unsigned char *end, double *d)
{
    const unsigned char *q = *p;
    char buf[256], *e;
    unsigned n;

    if (q >= end)
        return -1;
    n = *q++;
    if (n == 253 || n == 254 || n == 255) {
        *d = n == 253 ? NAN : n == 254 ? INFINITY : -INFINITY;
        *p = q;
        return 0;
    }
    if ((size_t)(end - q) < n)
        return -1;
    memcpy(buf, q, n);
    buf[n] = '\0';
    *d = strtod(buf, &e);
    if (n == 0 || e != buf + n)
        return -1;
    *p = q + n;
    return 0;
}

/* The listpack entry at p (before end): its total bytes (back-length
 * included) into *size, the element into *s / *slen or *v (*isint): 0, or
 * -1 if it does not fit or its back-length is wrong. */
static int lp_entry(const unsigned char *p, const unsigned char *end, size_t *size, const unsigned char **s,
                    size_t *slen, int64_t *v, int *isint)
{
    size_t avail = (size_t)(end - p), hdr, data = 0, body, bl, i;
    unsigned b;
    uint64_t l = 0;

    if (avail < 2)
        return -1;
    b = p[0];
    *isint = 1;
    if (b < 0x80) {
        hdr = 1;
        *v = b;
    } else if ((b & 0xC0) == 0x80) {
        hdr = 1;
        data = b & 0x3f;
        *isint = 0;
    } else if ((b & 0xE0) == 0xC0) {
        uint64_t w = ((uint64_t)(b & 0x1f) << 8) | p[1];
        hdr = 2;
        *v = w >= 4096 ? (int64_t)w - 8192 : (int64_t)w;
    } else if ((b & 0xF0) == 0xE0) {
        hdr = 2;
        data = ((size_t)(b & 0x0f) << 8) | p[1];
        *isint = 0;
    } else if (b == 0xF0) {
        if (avail < 5)
            return -1;
        hdr = 5;
        data = (size_t)get_le(p + 1, 4);
        *isint = 0;
    } else if (b >= 0xF1 && b <= 0xF4) {
        static const int width[] = {2, 3, 4, 8};
        int w = width[b - 0xF1];
        uint64_t u;
        if (avail < (size_t)(1 + w))
            return -1;
        hdr = 1 + (size_t)w;
        u = get_le(p + 1, w);
        if (w < 8 && (u >> (8 * w - 1)))
            u |= ~(uint64_t)0 << (8 * w); /* sign-extend */
        *v = (int64_t)u;
    } else {
        return -1;
    }
    if (data > avail || hdr > avail - data)
        return -1;
    body = hdr + data;
    bl = body < 128 ? 1 : body < 16383 ? 2 : body < 2097151 ? 3 : body < 268435455 ? 4 : 5;
    if (bl > avail - body)
        return -1;
    for (i = 0; i < bl; i++) /* read it as Redis does, from its last byte */
        l |= (uint64_t)(p[body + bl - 1 - i] & 127) << (7 * i);
    if (l != body)
        return -1;
    *s = p + hdr;
    *slen = data;
    *size = body + bl;
    return 0;
}

int rdb_lp_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count)
{
    const unsigned char *q, *end, *s;
    uint64_t hdrcount, seen = 0;
    size_t size, slen;
    int64_t v;
    int isint;

    if (n < 7 || get_le(p, 4) != n || p[n - 1] != 0xFF)
        return -1;
    hdrcount = get_le(p + 4, 2);
    end = p + n - 1;
    for (q = p + 6; q < end; q += size, seen++)
        if (lp_entry(q, end, &size, &s, &slen, &v, &isint) < 0)
            return -1;
    if (hdrcount != 65535 && hdrcount != seen)
        return -1;
    memset(it, 0, sizeof(*it));
    it->kind = IT_LP;
    it->p = p + 6;
    it->end = end;
    it->left = seen;
    *count = seen;
    return 0;
}

/* The ziplist entry at p: as lp_entry, with *prevlen the length it records
 * for the previous entry. */
static int zl_entry(const unsigned char *p, const unsigned char *end, size_t *size, size_t *prevlen,
                    const unsigned char **s, size_t *slen, int64_t *v, int *isint)
{
    size_t avail = (size_t)(end - p), pl, hdr, data = 0;
    unsigned b;

    if (avail < 2)
        return -1;
    if (p[0] < 254) {
        *prevlen = p[0];
        pl = 1;
    } else if (p[0] == 254) {
        if (avail < 6)
            return -1;
        *prevlen = (size_t)get_le(p + 1, 4);
        pl = 5;
    } else {
        return -1;
    }
    b = p[pl];
    *isint = 0;
    if ((b >> 6) == 0) {
        hdr = 1;
        data = b & 0x3f;
    } else if ((b >> 6) == 1) {
        if (avail < pl + 2)
            return -1;
        hdr = 2;
        data = ((size_t)(b & 0x3f) << 8) | p[pl + 1];
    } else if (b == 0x80) {
        if (avail < pl + 5)
            return -1;
        hdr = 5;
        data = ((size_t)p[pl + 1] << 24) | ((size_t)p[pl + 2] << 16) | ((size_t)p[pl + 3] << 8) | p[pl + 4];
    } else if (b == 0xC0 || b == 0xD0 || b == 0xE0 || b == 0xF0 || b == 0xFE) {
        int w = b == 0xC0 ? 2 : b == 0xD0 ? 4 : b == 0xE0 ? 8 : b == 0xF0 ? 3 : 1;
        uint64_t u;
        if (avail < pl + 1 + (size_t)w)
            return -1;
        u = get_le(p + pl + 1, w);
        if (w < 8 && (u >> (8 * w - 1)))
            u |= ~(uint64_t)0 << (8 * w);
        *v = (int64_t)u;
        *isint = 1;
        hdr = 1 + (size_t)w;
    } else if (b >= 0xF1 && b <= 0xFD) {
        *v = (int64_t)(b & 0x0f) - 1;
        *isint = 1;
        hdr = 1;
    } else {
        return -1;
    }
    if (pl + hdr > avail || data > avail - pl - hdr)
        return -1;
    *s = p + pl + hdr;
    *slen = data;
    *size = pl + hdr + data;
    return 0;
}

int rdb_zl_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count)
{
    const unsigned char *q, *end, *s, *last = NULL;
    size_t size, prevlen, slen, prevsize = 0;
    uint64_t hdrcount, seen = 0;
    int64_t v;
    int isint;

    if (n < 11 || get_le(p, 4) != n || p[n - 1] != 0xFF)
        return -1;
    hdrcount = get_le(p + 8, 2);
    end = p + n - 1;
    for (q = p + 10; q < end; q += size, seen++) {
        if (zl_entry(q, end, &size, &prevlen, &s, &slen, &v, &isint) < 0 || prevlen != prevsize)
            return -1;
        prevsize = size;
        last = q;
    }
    if ((hdrcount != 65535 && hdrcount != seen) || get_le(p + 4, 4) != (uint64_t)((last ? last : end) - p))
        return -1;
    memset(it, 0, sizeof(*it));
    it->kind = IT_ZL;
    it->p = p + 10;
    it->end = end;
    it->left = seen;
    *count = seen;
    return 0;
}

/* A zipmap length at *q: 0, or -1. */
static int zm_len(const unsigned char **q, const unsigned char *end, size_t *len)
{
    if (*q >= end)
        return -1;
    if (**q < 254) {
        *len = **q;
        (*q)++;
        return 0;
    }
    if (**q != 254 || end - *q < 5)
        return -1;
    *len = (size_t)get_le(*q + 1, 4);
    *q += 5;
    return 0;
}

int rdb_zm_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count)
{
    const unsigned char *q = p + 1, *end = p + n - 1;
    uint64_t seen = 0;
    size_t klen, vlen;

    if (n < 2 || p[n - 1] != 0xFF)
        return -1;
    while (q < end) {
        if (zm_len(&q, end, &klen) < 0 || (size_t)(end - q) < klen)
            return -1;
        q += klen;
        if (zm_len(&q, end, &vlen) < 0 || q >= end)
            return -1;
        { /* the free byte, then the value and its free bytes */
            size_t fr = *q++;
            if ((size_t)(end - q) < vlen || (size_t)(end - q) - vlen < fr)
                return -1;
            q += vlen + fr;
        }
        seen += 2;
    }
    if (p[0] < 254 && (uint64_t)p[0] * 2 != seen)
        return -1;
    memset(it, 0, sizeof(*it));
    it->kind = IT_ZM;
    it->p = p + 1;
    it->end = end;
    it->left = seen;
    *count = seen;
    return 0;
}

int rdb_is_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count)
{
    uint64_t w, len, i;
    int64_t prev = 0, cur;

    if (n < 8)
        return -1;
    w = get_le(p, 4);
    len = get_le(p + 4, 4);
    if ((w != 2 && w != 4 && w != 8) || len == 0 || (n - 8) / w != len || (n - 8) % w != 0)
        return -1;
    for (i = 0; i < len; i++) { /* strictly ascending */
        uint64_t u = get_le(p + 8 + i * w, (int)w);
        if (w < 8 && (u >> (8 * w - 1)))
            u |= ~(uint64_t)0 << (8 * w);
        cur = (int64_t)u;
        if (i > 0 && cur <= prev)
            return -1;
        prev = cur;
    }
    memset(it, 0, sizeof(*it));
    it->kind = IT_IS;
    it->p = p + 8;
    it->end = p + n;
    it->left = len;
    it->width = (int)w;
    *count = len;
    return 0;
}

int rdb_next(rdb_iter *it, const char **p, size_t *n, int *isint)
{
    const unsigned char *s = NULL;
    size_t size = 0, slen = 0, prevlen, klen, vlen;
    int64_t v = 0;
    int ii = 0;

    if (it->left == 0)
        return 0;
    switch (it->kind) {
    case IT_LP:
        lp_entry(it->p, it->end, &size, &s, &slen, &v, &ii);
        it->p += size;
        break;
    case IT_ZL:
        zl_entry(it->p, it->end, &size, &prevlen, &s, &slen, &v, &ii);
        it->p += size;
        break;
    case IT_ZM:
        if (!it->zm_value) {
            zm_len(&it->p, it->end, &klen);
            s = it->p;
            slen = klen;
            it->p += klen;
        } else {
            size_t fr;
            zm_len(&it->p, it->end, &vlen);
            fr = *it->p++;
            s = it->p;
            slen = vlen;
            it->p += vlen + fr;
        }
        it->zm_value = !it->zm_value;
        break;
    default: {
        uint64_t u = get_le(it->p, it->width);
        if (it->width < 8 && (u >> (8 * it->width - 1)))
            u |= ~(uint64_t)0 << (8 * it->width);
        v = (int64_t)u;
        ii = 1;
        it->p += it->width;
    }
    }
    it->left--;
    if (ii) {
        *n = ll_to_str(it->num, v);
        *p = it->num;
    } else {
        *p = (const char *)s;
        *n = slen;
    }
    if (isint)
        *isint = ii;
    return 1;
}
