/* dumpfmt.c -- RDB strings, lengths and CRC64 for DUMP payloads (see dumpfmt.h). */
#include "dumpfmt.h"

#include <stdio.h>
#include <string.h>

#include "mem.h"

/* LZF makes at most 88 bytes per byte it reads (a 3-byte back reference copies
 * 264), so a raw length above 88 times the compressed one cannot be right and
 * is refused before its buffer is allocated: 10 bytes of a payload would
 * otherwise allocate 4 GB. */
#define LZF_MAX_RATIO 88

#define CRC64_POLY_REFLECTED 0x95AC9329AC4BC9B5ULL /* 0xad93d23594c935a9, bits reversed */

uint64_t crc64_jones(uint64_t crc, const unsigned char *p, size_t n)
{
    static uint64_t table[256];
    static int ready;
    size_t i;

    if (!ready) {
        for (i = 0; i < 256; i++) {
            uint64_t c = i;
            int k;
            for (k = 0; k < 8; k++)
                c = (c & 1) ? (c >> 1) ^ CRC64_POLY_REFLECTED : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    for (i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

size_t dump_put_len(unsigned char *out, uint64_t len)
{
    int i;
    if (len < 64) {
        out[0] = (unsigned char)len;
        return 1;
    }
    if (len < 16384) {
        out[0] = (unsigned char)(0x40 | (len >> 8));
        out[1] = (unsigned char)(len & 0xff);
        return 2;
    }
    if (len <= 0xffffffffULL) {
        out[0] = 0x80;
        for (i = 0; i < 4; i++)
            out[1 + i] = (unsigned char)(len >> (24 - 8 * i));
        return 5;
    }
    out[0] = 0x81;
    for (i = 0; i < 8; i++)
        out[1 + i] = (unsigned char)(len >> (56 - 8 * i));
    return 9;
}

/* A length at *p: 0 with *len (and *special for the 0xC0.. encodings), or -1. */
static int get_len(const unsigned char **p, const unsigned char *end, uint64_t *len, int *special)
{
    const unsigned char *q = *p;
    int type, i;

    if (q >= end)
        return -1;
    type = q[0] >> 6;
    *special = -1;
    if (type == 0) {
        *len = q[0] & 0x3f;
        *p = q + 1;
    } else if (type == 1) {
        if (end - q < 2)
            return -1;
        *len = ((uint64_t)(q[0] & 0x3f) << 8) | q[1];
        *p = q + 2;
    } else if (type == 3) {
        *special = q[0] & 0x3f;
        *len = 0;
        *p = q + 1;
    } else if (q[0] == 0x80) {
        if (end - q < 5)
            return -1;
        *len = 0;
        for (i = 0; i < 4; i++)
            *len = (*len << 8) | q[1 + i];
        *p = q + 5;
    } else if (q[0] == 0x81) {
        if (end - q < 9)
            return -1;
        *len = 0;
        for (i = 0; i < 8; i++)
            *len = (*len << 8) | q[1 + i];
        *p = q + 9;
    } else {
        return -1;
    }
    return 0;
}

int dump_lzf_decode(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen)
{
    const unsigned char *ie = in + inlen;
    size_t o = 0;

    while (in < ie) {
        unsigned ctrl = *in++;
        if (ctrl < 32) { /* a literal run of ctrl + 1 bytes */
            size_t n = ctrl + 1;
            if ((size_t)(ie - in) < n || outlen - o < n)
                return -1;
            memcpy(out + o, in, n);
            in += n;
            o += n;
        } else { /* a back reference: length (ctrl >> 5) + 2, offset from the low bits */
            size_t n = ctrl >> 5, back;
            if (n == 7) {
                if (in >= ie)
                    return -1;
                n += *in++;
            }
            n += 2;
            if (in >= ie)
                return -1;
            back = ((size_t)(ctrl & 0x1f) << 8) + *in++ + 1;
            if (back > o || outlen - o < n)
                return -1;
            while (n--) { /* byte by byte: the reference may overlap what it makes */
                out[o] = out[o - back];
                o++;
            }
        }
    }
    return o == outlen ? 0 : -1;
}

int dump_get_string(const unsigned char **p, const unsigned char *end, char **out, size_t *outlen)
{
    const unsigned char *q = *p;
    uint64_t len;
    int special;
    char *s;

    if (get_len(&q, end, &len, &special) < 0)
        return -1;
    if (special < 0) {
        if ((uint64_t)(end - q) < len)
            return -1;
        s = xmalloc((size_t)len + 1);
        memcpy(s, q, (size_t)len);
        s[len] = '\0';
        *p = q + len;
        *out = s;
        *outlen = (size_t)len;
        return 0;
    }
    if (special <= 2) { /* an integer of 1, 2 or 4 bytes, little-endian */
        int nb = 1 << special, i;
        long long v;
        uint64_t u = 0;
        char tmp[32];
        if (end - q < nb)
            return -1;
        for (i = 0; i < nb; i++)
            u |= (uint64_t)q[i] << (8 * i);
        v = nb == 1 ? (int8_t)u : nb == 2 ? (int16_t)u : (int32_t)u;
        *outlen = (size_t)snprintf(tmp, sizeof(tmp), "%lld", v);
        *out = xmalloc(*outlen + 1);
        memcpy(*out, tmp, *outlen + 1);
        *p = q + nb;
        return 0;
    }
    if (special == 3) { /* LZF: compressed length, raw length, the bytes */
        uint64_t clen, rlen;
        int sp2;
        if (get_len(&q, end, &clen, &sp2) < 0 || sp2 >= 0 || get_len(&q, end, &rlen, &sp2) < 0 || sp2 >= 0 ||
            (uint64_t)(end - q) < clen || rlen > ((uint64_t)1 << 32) || rlen > clen * LZF_MAX_RATIO)
            return -1;
        s = xmalloc((size_t)rlen + 1);
        if (dump_lzf_decode(q, (size_t)clen, (unsigned char *)s, (size_t)rlen) < 0) {
            xfree(s);
            return -1;
        }
        s[rlen] = '\0';
        *p = q + clen;
        *out = s;
        *outlen = (size_t)rlen;
        return 0;
    }
    return -1;
}
