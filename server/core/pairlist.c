/* pairlist.c -- the compact (field, value) encoding of small hashes; the
 * layout and its invariants are in pairlist.h. */
#include "pairlist.h"

#include <string.h>

static size_t varint_len(size_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t varint_put(char *p, size_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (char)(0x80 | (v & 0x7F));
        v >>= 7;
    }
    p[n++] = (char)v;
    return n;
}

static size_t varint_get(const char *p, size_t *v)
{
    size_t n = 0, r = 0;
    unsigned shift = 0;
    unsigned char b;
    do {
        b = (unsigned char)p[n++];
        r |= (size_t)(b & 0x7F) << shift;
        shift += 7;
    } while (b & 0x80);
    *v = r;
    return n;
}

static void set_count(char *buf, unsigned n)
{
    buf[0] = (char)(n & 0xFF);
    buf[1] = (char)(n >> 8);
}

size_t pl_init(char *buf)
{
    set_count(buf, 0);
    return PL_HDR;
}

unsigned pl_count(const char *buf)
{
    return (unsigned)(unsigned char)buf[0] | (unsigned)(unsigned char)buf[1] << 8;
}

size_t pl_pair_size(size_t flen, size_t vlen)
{
    return varint_len(flen) + flen + varint_len(vlen) + vlen;
}

size_t pl_decode(const char *buf, size_t off, pl_pair *p)
{
    size_t o = off;
    o += varint_get(buf + o, &p->flen);
    p->f = buf + o;
    o += p->flen;
    o += varint_get(buf + o, &p->vlen);
    p->v = buf + o;
    o += p->vlen;
    p->off = off;
    p->size = o - off;
    return o;
}

int pl_find(const char *buf, size_t len, const char *f, size_t flen, pl_pair *p)
{
    size_t off = PL_HDR;
    while (off < len) {
        off = pl_decode(buf, off, p);
        if (p->flen == flen && memcmp(p->f, f, flen) == 0)
            return 1;
    }
    return 0;
}

void pl_index(const char *buf, size_t i, pl_pair *p)
{
    size_t off = PL_HDR;
    for (;;) {
        off = pl_decode(buf, off, p);
        if (i-- == 0)
            return;
    }
}

size_t pl_set_len(size_t len, const pl_pair *old, size_t flen, size_t vlen)
{
    return len - (old ? old->size : 0) + pl_pair_size(flen, vlen);
}

size_t pl_set(char *buf, size_t len, const pl_pair *old, const char *f, size_t flen, const char *v, size_t vlen)
{
    size_t ns = pl_pair_size(flen, vlen), off, o;

    if (old) {
        off = old->off;
        memmove(buf + off + ns, buf + off + old->size, len - off - old->size);
        len = len - old->size + ns;
    } else {
        off = len;
        len += ns;
        set_count(buf, pl_count(buf) + 1);
    }
    o = off + varint_put(buf + off, flen);
    memmove(buf + o, f, flen); /* f may be the old pair's own field */
    o += flen;
    o += varint_put(buf + o, vlen);
    memcpy(buf + o, v, vlen);
    return len;
}

size_t pl_del(char *buf, size_t len, const pl_pair *p)
{
    memmove(buf + p->off, buf + p->off + p->size, len - p->off - p->size);
    set_count(buf, pl_count(buf) - 1);
    return len - p->size;
}
