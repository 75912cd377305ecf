/* aof.c -- the log format: CRC, file header, record encoder and payload decoder
 * (see aof.h and docs/aof.md).
 *
 * Invariants of an aof_buf: p[0..committed) holds complete records only; when a
 * record is open (depth > 0), it starts at rec_start == committed, its length,
 * CRC and effect count fields are placeholders until aof_rec_end, and the open
 * effect (if eff_start != SIZE_MAX) runs from eff_start to len with argc
 * arguments. A closed effect always has at least one argument.
 *
 * The decoder trusts nothing: aof_payload_check bounds every length by the bytes
 * that remain before reading what it describes, and the iterators, meant for
 * checked payloads, still stop (return 0) rather than step past the end. */
#include "aof.h"

#include "lz/lzval.h"
#include "mem.h"

#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AOF_BUF_MIN (16 * 1024)        /* bytes, first allocation */
#define AOF_BUF_KEEP (4 * 1024 * 1024) /* bytes kept allocated once the buffer is empty */
#define AOF_CHUNK_MIN 1024u            /* lzval's chunk size bounds (lzval.h) */
#define AOF_CHUNK_MAX (1u << 30)
#define AOF_EFF_HDR 6                  /* bytes: u16 db, u32 argc */
#define AOF_PAYLOAD_HDR 5              /* bytes: u8 type, u32 count */

uint32_t aof_crc32c(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *s = p;
    unsigned int c = ~crc;

    while (n > 0) {
        int k = n > (1u << 30) ? (1 << 30) : (int)n;
        c = crc32_iscsi((unsigned char *)s, k, c);
        s += k;
        n -= (size_t)k;
    }
    return ~c;
}

/* Header layout: "SPAOF" | u8 0 | u16 version | u32 flags | u64 created_ms |
 * u64 seq | u32 CRC32C of the 28 bytes before it. */
void aof_header_encode(const aof_header *h, unsigned char out[AOF_HEADER_SIZE])
{
    memset(out, 0, AOF_HEADER_SIZE);
    memcpy(out, AOF_MAGIC, 5);
    aof_put16(out + 6, h->version);
    aof_put32(out + 8, h->flags);
    aof_put64(out + 12, (uint64_t)h->created_ms);
    aof_put64(out + 20, h->seq);
    aof_put32(out + 28, aof_crc32c(0, out, 28));
}

int aof_header_decode(const unsigned char *in, size_t n, aof_header *h, const char **why)
{
    if (n < AOF_HEADER_SIZE) {
        *why = "file shorter than the 32-byte header";
        return -1;
    }
    if (memcmp(in, AOF_MAGIC, 5) != 0) {
        *why = "bad magic: not a scratchpad log file";
        return -1;
    }
    if (aof_get32(in + 28) != aof_crc32c(0, in, 28)) {
        *why = "header CRC mismatch";
        return -1;
    }
    h->version = aof_get16(in + 6);
    h->flags = aof_get32(in + 8);
    h->created_ms = (int64_t)aof_get64(in + 12);
    h->seq = aof_get64(in + 20);
    if (in[5] != 0 || h->version != AOF_VERSION) {
        *why = "unsupported format version";
        return -1;
    }
    if ((h->flags & ~AOF_KIND_MASK) != 0 || (h->flags & AOF_KIND_MASK) == AOF_KIND_MASK) {
        *why = "unknown header flags";
        return -1;
    }
    return 0;
}

/* ---- Encoding ---- */

static void aof_bug(const char *msg)
{
    fprintf(stderr, "scratchpad: aof encoder misuse: %s\n", msg);
    fflush(stderr);
    abort();
}

void aof_buf_init(aof_buf *b)
{
    memset(b, 0, sizeof(*b));
    b->eff_start = SIZE_MAX;
}

void aof_buf_free(aof_buf *b)
{
    xfree(b->p);
    aof_buf_init(b);
}

void aof_buf_trim(aof_buf *b)
{
    if (b->len != 0 || b->depth != 0)
        return;
    xfree(b->p);
    b->p = NULL;
    b->cap = 0;
}

/* Make room for n more bytes. */
static void aof_reserve(aof_buf *b, size_t n)
{
    size_t cap;

    if (b->cap - b->len >= n)
        return;
    cap = b->cap ? b->cap : AOF_BUF_MIN;
    while (cap - b->len < n)
        cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

static unsigned char *aof_grow(aof_buf *b, size_t n)
{
    unsigned char *w;

    aof_reserve(b, n);
    w = (unsigned char *)b->p + b->len;
    b->len += n;
    return w;
}

void aof_buf_append_records(aof_buf *b, const void *p, size_t n)
{
    if (b->depth > 0)
        aof_bug("records appended while a record is open");
    if (n == 0)
        return;
    memcpy(aof_grow(b, n), p, n);
    b->committed += n;
}

void aof_buf_consume(aof_buf *b, size_t n)
{
    if (n > b->committed)
        aof_bug("consume past the committed bytes");
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
    b->committed -= n;
    if (b->depth > 0)
        b->rec_start -= n;
    if (b->eff_start != SIZE_MAX)
        b->eff_start -= n;
    if (b->committed == 0)
        b->records = 0;
    if (b->len == 0 && b->cap > AOF_BUF_KEEP) {
        xfree(b->p);
        b->p = NULL;
        b->cap = 0;
    }
}

static void aof_open_effect(aof_buf *b, int db)
{
    unsigned char *w;

    if (db < 0 || db > UINT16_MAX)
        aof_bug("database number out of range");
    b->eff_start = b->len;
    w = aof_grow(b, AOF_EFF_HDR);
    aof_put16(w, (uint16_t)db);
    aof_put32(w + 2, 0);
    b->argc = 0;
}

/* Close the open effect: kept (argc patched) if it has arguments, else removed. */
static void aof_close_effect(aof_buf *b)
{
    if (b->eff_start == SIZE_MAX)
        return;
    if (b->argc == 0) {
        b->len = b->eff_start;
    } else {
        if (b->neffects == UINT32_MAX)
            aof_bug("too many effects in one record");
        aof_put32((unsigned char *)b->p + b->eff_start + 2, b->argc);
        b->neffects++;
    }
    b->eff_start = SIZE_MAX;
    b->argc = 0;
}

void aof_rec_begin(aof_buf *b, int db)
{
    if (b->depth == 0) {
        unsigned char *w;
        b->rec_start = b->len;
        w = aof_grow(b, AOF_REC_HDR + AOF_PAYLOAD_HDR);
        memset(w, 0, AOF_REC_HDR + AOF_PAYLOAD_HDR);
        w[AOF_REC_HDR] = AOF_REC_EFFECTS;
        b->neffects = 0;
    } else {
        aof_close_effect(b);
    }
    aof_open_effect(b, db);
    b->depth++;
}

void aof_rec_next_effect(aof_buf *b, int db)
{
    if (b->depth == 0)
        aof_bug("aof_rec_next_effect outside a record");
    aof_close_effect(b);
    aof_open_effect(b, db);
}

/* Count one more argument of the open effect. */
static void aof_count_arg(aof_buf *b)
{
    if (b->eff_start == SIZE_MAX)
        aof_bug("argument outside an effect");
    if (b->argc == UINT32_MAX)
        aof_bug("too many arguments in one effect");
    b->argc++;
}

void aof_rec_arg_bytes(aof_buf *b, const void *p, size_t n)
{
    unsigned char *w;

    aof_count_arg(b);
    w = aof_grow(b, 9 + n);
    w[0] = AOF_ARG_BYTES;
    aof_put64(w + 1, n);
    if (n)
        memcpy(w + 9, p, n);
}

void aof_rec_arg_str(aof_buf *b, const char *s)
{
    aof_rec_arg_bytes(b, s, strlen(s));
}

/* Decimal, without snprintf: a rewrite formats one expiry per key, and
 * snprintf took ~9 % of the rewrite child's time. */
void aof_rec_arg_ll(aof_buf *b, long long v)
{
    char tmp[24], *p = tmp + sizeof(tmp);
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    aof_rec_arg_bytes(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Kind 1, or kind 2 when v's dictionary is detached (its bytes after the
 * header, before the chunks). */
void aof_rec_arg_lzval(aof_buf *b, const lzval *v)
{
    size_t n = lzval_nchunks(v), i, dn;
    const char *dict = lzval_detached_dict(v, &dn);
    unsigned char *w;

    aof_count_arg(b);
    if (n > UINT32_MAX)
        aof_bug("lzval with too many chunks");
    w = aof_grow(b, 9);
    w[0] = dict ? AOF_ARG_LZVAL_DICT : AOF_ARG_LZVAL;
    aof_put32(w + 1, (uint32_t)lzval_chunk_size(v));
    aof_put32(w + 5, (uint32_t)n);
    if (dict) {
        w = aof_grow(b, 4 + dn);
        aof_put32(w, (uint32_t)dn);
        memcpy(w + 4, dict, dn);
    }
    for (i = 0; i < n; i++) {
        const char *data;
        size_t stored, raw;
        int compressed;
        lzval_chunk_stored(v, i, &data, &stored, &raw, &compressed);
        w = aof_grow(b, 9 + stored);
        aof_put32(w, (uint32_t)raw);
        aof_put32(w + 4, (uint32_t)stored);
        w[8] = compressed ? 1 : 0;
        memcpy(w + 9, data, stored);
    }
}

int aof_rec_end(aof_buf *b)
{
    unsigned char *r;
    size_t plen;

    if (b->depth == 0)
        aof_bug("aof_rec_end outside a record");
    aof_close_effect(b);
    if (--b->depth > 0)
        return 0;
    if (b->neffects == 0) {
        b->len = b->rec_start;
        return 0;
    }
    plen = b->len - b->rec_start - AOF_REC_HDR;
    if (plen > AOF_PAYLOAD_MAX) {
        b->len = b->rec_start;
        return -1;
    }
    r = (unsigned char *)b->p + b->rec_start;
    aof_put32(r + AOF_REC_HDR + 1, b->neffects);
    aof_put32(r, (uint32_t)plen);
    aof_put32(r + 4, aof_crc32c(0, r + AOF_REC_HDR, plen));
    b->committed = b->len;
    b->records++;
    return 0;
}

int aof_rec_cancel(aof_buf *b)
{
    if (b->depth == 0)
        aof_bug("aof_rec_cancel outside a record");
    if (b->eff_start != SIZE_MAX) {
        b->len = b->eff_start + AOF_EFF_HDR;
        b->argc = 0;
    }
    return aof_rec_end(b);
}

int aof_rec_open(const aof_buf *b)
{
    return b->depth > 0;
}

/* ---- Decoding ---- */

/* Check the argument at *q (before end) and move *q past it. */
static int aof_check_arg(const unsigned char **q, const unsigned char *end, const char **why)
{
    const unsigned char *s = *q;
    uint32_t cs, n, i;

    if (s >= end) {
        *why = "argument past the end of the payload";
        return -1;
    }
    if (*s == AOF_ARG_BYTES) {
        uint64_t len;
        if (end - s < 9) {
            *why = "argument length past the end of the payload";
            return -1;
        }
        len = aof_get64(s + 1);
        if (len > (uint64_t)(end - s - 9)) {
            *why = "argument longer than the rest of the payload";
            return -1;
        }
        *q = s + 9 + len;
        return 0;
    }
    if (*s != AOF_ARG_LZVAL && *s != AOF_ARG_LZVAL_DICT) {
        *why = "unknown argument kind";
        return -1;
    }
    if (end - s < (*s == AOF_ARG_LZVAL_DICT ? 13 : 9)) {
        *why = "compressed value header past the end of the payload";
        return -1;
    }
    cs = aof_get32(s + 1);
    n = aof_get32(s + 5);
    if (cs < AOF_CHUNK_MIN || cs > AOF_CHUNK_MAX) {
        *why = "compressed value with an invalid chunk size";
        return -1;
    }
    if (*s == AOF_ARG_LZVAL_DICT) {
        uint32_t dn = aof_get32(s + 9);
        if (dn == 0 || dn > cs || n == 0) {
            *why = "compressed value with an invalid dictionary";
            return -1;
        }
        if (dn > (uint64_t)(end - s - 13)) {
            *why = "dictionary longer than the rest of the payload";
            return -1;
        }
        s += 13 + dn;
    } else {
        s += 9;
    }
    for (i = 0; i < n; i++) {
        uint32_t raw, stored;
        if (end - s < 9) {
            *why = "chunk header past the end of the payload";
            return -1;
        }
        raw = aof_get32(s);
        stored = aof_get32(s + 4);
        if (raw == 0 || raw > cs || stored == 0 || s[8] > 1 || (s[8] == 0 && stored != raw)) {
            *why = "chunk with inconsistent lengths";
            return -1;
        }
        if (stored > (uint64_t)(end - s - 9)) {
            *why = "chunk longer than the rest of the payload";
            return -1;
        }
        s += 9 + stored;
    }
    *q = s;
    return 0;
}

int aof_payload_check(const unsigned char *p, size_t n, uint32_t *neffects, const char **why)
{
    const unsigned char *q = p + AOF_PAYLOAD_HDR, *end = p + n;
    uint32_t count, i, j;

    if (n < 1) {
        *why = "empty payload";
        return -1;
    }
    if (p[0] != AOF_REC_EFFECTS) {
        *why = "unknown record type";
        return -1;
    }
    if (n < AOF_PAYLOAD_HDR) {
        *why = "payload too short for its effect count";
        return -1;
    }
    count = aof_get32(p + 1);
    if (count == 0) {
        *why = "record with no effect";
        return -1;
    }
    for (i = 0; i < count; i++) {
        uint32_t argc;
        if (end - q < AOF_EFF_HDR) {
            *why = "effect past the end of the payload";
            return -1;
        }
        argc = aof_get32(q + 2);
        q += AOF_EFF_HDR;
        if (argc == 0) {
            *why = "effect with no argument";
            return -1;
        }
        for (j = 0; j < argc; j++) {
            if (end - q >= 9 && q[0] == AOF_ARG_BYTES && aof_get64(q + 1) <= (uint64_t)(end - q - 9)) {
                q += 9 + aof_get64(q + 1);
                continue;
            }
            if (aof_check_arg(&q, end, why) < 0)
                return -1;
        }
    }
    if (q != end) {
        *why = "bytes left over after the last effect";
        return -1;
    }
    *neffects = count;
    return 0;
}

/* The end of the argument at s (before end), or NULL if it does not fit. The
 * common case, a byte string, takes a few instructions. */
static inline const unsigned char *aof_skip_arg(const unsigned char *s, const unsigned char *end)
{
    const char *why;

    if (end - s >= 9 && s[0] == AOF_ARG_BYTES) {
        uint64_t len = aof_get64(s + 1);
        return len <= (uint64_t)(end - s - 9) ? s + 9 + len : NULL;
    }
    return aof_check_arg(&s, end, &why) < 0 ? NULL : s;
}

void aof_effects_begin(aof_iter *it, const aof_record *rec)
{
    int ok = rec->len >= AOF_PAYLOAD_HDR && rec->payload[0] == AOF_REC_EFFECTS;

    it->p = rec->payload + (ok ? AOF_PAYLOAD_HDR : 0);
    it->end = rec->payload + rec->len;
    it->left = ok ? aof_get32(rec->payload + 1) : 0;
}

int aof_effects_next(aof_iter *it, aof_effect *e)
{
    const unsigned char *q;
    uint32_t i;

    if (it->left == 0 || it->end - it->p < AOF_EFF_HDR)
        return 0;
    e->db = aof_get16(it->p);
    e->argc = aof_get32(it->p + 2);
    q = e->args = it->p + AOF_EFF_HDR;
    for (i = 0; i < e->argc && q; i++)
        q = aof_skip_arg(q, it->end);
    if (!q) {
        it->left = 0;
        return 0;
    }
    e->end = it->p = q;
    it->left--;
    return 1;
}

void aof_args_begin(aof_iter *it, const aof_effect *e)
{
    it->p = e->args;
    it->end = e->end;
    it->left = e->argc;
}

int aof_args_next(aof_iter *it, aof_arg *a)
{
    const unsigned char *s = it->p, *q;

    if (it->left == 0 || !(q = aof_skip_arg(s, it->end)))
        return 0;
    a->kind = s[0];
    a->end = q;
    if (a->kind == AOF_ARG_BYTES) {
        a->p = (const char *)s + 9;
        a->len = aof_get64(s + 1);
        a->chunk_size = a->nchunks = 0;
        a->dict = NULL;
        a->dict_len = 0;
        a->chunks = NULL;
    } else {
        const unsigned char *c;
        uint32_t i;
        a->p = NULL;
        a->len = 0;
        a->chunk_size = aof_get32(s + 1);
        a->nchunks = aof_get32(s + 5);
        a->dict = NULL;
        a->dict_len = 0;
        c = s + 9;
        if (a->kind == AOF_ARG_LZVAL_DICT) {
            a->kind = AOF_ARG_LZVAL;
            a->dict_len = aof_get32(s + 9);
            a->dict = (const char *)s + 13;
            c = s + 13 + a->dict_len;
        }
        a->chunks = c;
        for (i = 0; i < a->nchunks; i++) {
            a->len += aof_get32(c);
            c += 9 + aof_get32(c + 4);
        }
    }
    it->p = q;
    it->left--;
    return 1;
}

void aof_chunks_begin(aof_iter *it, const aof_arg *a)
{
    it->p = a->chunks;
    it->end = a->end;
    it->left = a->kind == AOF_ARG_LZVAL ? a->nchunks : 0;
}

int aof_chunks_next(aof_iter *it, aof_chunk *c)
{
    if (it->left == 0 || it->end - it->p < 9)
        return 0;
    c->raw_len = aof_get32(it->p);
    c->stored_len = aof_get32(it->p + 4);
    c->compressed = it->p[8];
    c->data = (const char *)it->p + 9;
    if (c->stored_len > (uint64_t)(it->end - it->p - 9)) {
        it->left = 0;
        return 0;
    }
    it->p += 9 + c->stored_len;
    it->left--;
    return 1;
}

lzval *aof_arg_lzval(const aof_arg *a)
{
    aof_iter it;
    aof_chunk c;
    lzval *v;
    uint32_t got = 0;

    if (a->kind != AOF_ARG_LZVAL)
        return NULL;
    v = lzval_from_chunks_begin(a->chunk_size);
    if (a->dict)
        lzval_from_chunks_dict(v, a->dict, a->dict_len); /* a refusal makes v bad: NULL below */
    aof_chunks_begin(&it, a);
    while (aof_chunks_next(&it, &c)) {
        if (lzval_from_chunks_add(v, c.data, c.stored_len, c.raw_len, c.compressed) < 0)
            break;
        got++;
    }
    if (got != a->nchunks) {
        lzval_free(v);
        return NULL;
    }
    return lzval_from_chunks_end(v);
}
