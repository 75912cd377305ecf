/* fuzz_lzval.c -- libFuzzer target: the loader of chunked LZ4 values
 * (lzval_from_chunks_*, server/core/lz/) over arbitrary bytes, and what the
 * server then does with a loaded value.
 *
 * The input is a value as the log stores it (docs/aof.md, argument kind 1,
 * without the kind byte): u32 chunk_size | u32 nchunks | per chunk u32 raw_len |
 * u32 stored_len | u8 compressed | stored bytes, little-endian; a stored length
 * past the input's end is cut to what is left. With the top bit of nchunks set,
 * the argument is kind 2: u32 dict_len | the detached dictionary's bytes come
 * before the chunks (lzval_from_chunks_dict). The seeds are values taken from
 * logs the server wrote (plain and dictionary frames, raw chunks), so mutations
 * start from real LZ4 frames.
 *
 * A value the loader accepts is then used as a loaded value is: read whole and
 * in windows, located by character and line, its chunks verified, copied,
 * appended to, overwritten and spliced (an insertion, a deletion, and an edit
 * of the first bytes, which detaches a dictionary); a plain byte array kept alongside must give the
 * same bytes after every change (the read-back oracle). A value the loader
 * refuses must leave nothing behind (the leak checker sees it). */
#include "lz/lzval.h"
#include "aof.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_bytes(const lzval *v, const char *want, size_t n, lzcache *c)
{
    char *got = malloc(n + 1);

    if (!got)
        abort();
    if (lzval_len(v) != n || lzval_read(v, 0, n, got, c) < 0 || memcmp(got, want, n) != 0) {
        fprintf(stdout, "a value does not read back as its model (%zu bytes)\n", n);
        fflush(stdout);
        abort();
    }
    free(got);
}

/* Use a loaded value: windows, positions, a copy, an append, an overwrite and two splices. */
static void exercise(lzval *v, const uint8_t *tail, size_t tn)
{
    lzcache *c = lzcache_new(4);
    size_t n = lzval_len(v), i, pos, blk;
    char *model = malloc(n + 2 * tn + 1), *win;
    lzval *d;

    if (!model)
        abort();
    if (lzval_read(v, 0, n, model, NULL) < 0) {
        /* Loaded values were decoded once by the loader: they must read. */
        fprintf(stdout, "a value the loader accepted does not read\n");
        fflush(stdout);
        abort();
    }
    for (i = 0; i < lzval_nchunks(v); i++)
        if (lzval_chunk_verify(v, i, &blk) < 0)
            abort();
    if (n > 0) {
        size_t off = tn ? tail[0] * n / 256 : 0, len = n - off < 3000 ? n - off : 3000;
        win = malloc(len + 1);
        if (!win || lzval_read(v, off, len, win, c) < 0 || memcmp(win, model + off, len) != 0) {
            fprintf(stdout, "a window [%zu, +%zu) of a %zu-byte value reads other bytes than the whole value\n", off,
                    len, n);
            fflush(stdout);
            abort();
        }
        free(win);
    }
    if (lzval_char_to_byte(v, lzval_chars(v) / 2, &pos, c) < 0 || pos > n)
        abort();
    if (lzval_byte_to_char(v, n / 3, &pos, c) < 0 || pos > lzval_chars(v))
        abort();
    if (lzval_newlines(v) > 0 && (lzval_line_start(v, lzval_newlines(v), &pos, c) < 0 || pos > n))
        abort();
    d = lzval_dup(v);
    check_bytes(d, model, n, c);
    if (lzval_append(d, (const char *)tail, tn, c) < 0)
        abort();
    memcpy(model + n, tail, tn);
    check_bytes(d, model, n + tn, c);
    if (n + tn > 0) {
        size_t off = (n + tn) / 2, len = tn < n + tn - off ? tn : n + tn - off;
        if (lzval_setrange(d, off, (const char *)tail, len, c) < 0)
            abort();
        memcpy(model + off, tail, len);
        check_bytes(d, model, n + tn, c);
        /* a splice: the tail's bytes inserted at a third, then as many deleted at two thirds */
        off = (n + tn) / 3;
        if (lzval_splice(d, off, 0, (const char *)tail, tn, c) < 0)
            abort();
        memmove(model + off + tn, model + off, n + tn - off);
        memcpy(model + off, tail, tn);
        check_bytes(d, model, n + 2 * tn, c);
        off = 2 * (n + 2 * tn) / 3;
        len = tn < n + 2 * tn - off ? tn : n + 2 * tn - off;
        if (lzval_splice(d, off, len, NULL, 0, c) < 0)
            abort();
        memmove(model + off, model + off + len, n + 2 * tn - off - len);
        tn = 2 * tn - len;
        check_bytes(d, model, n + tn, c);
        /* the first bytes (the dictionary, in dictionary mode): one replaced by two */
        off = (n + tn) > 4 ? 3 : 0;
        len = n + tn > off ? 1 : 0;
        if (lzval_splice(d, off, len, "ab", 2, c) < 0)
            abort();
        memmove(model + off + 2, model + off + len, n + tn - off - len);
        memcpy(model + off, "ab", 2);
        tn = tn + 2 - len;
        check_bytes(d, model, n + tn, c);
        for (i = 0; i < lzval_nchunks(d); i++)
            if (lzval_chunk_verify(d, i, &blk) < 0)
                abort();
    }
    lzval_seal(d);
    check_bytes(d, model, n + tn, NULL);
    lzval_free(d);
    lzcache_free(c);
    free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    uint32_t chunk_size, nchunks, i;
    lzval *v;

    if (size < 8)
        return 0;
    chunk_size = aof_get32(p);
    nchunks = aof_get32(p + 4);
    p += 8;
    v = lzval_from_chunks_begin(chunk_size);
    if ((nchunks & 0x80000000u) && end - p >= 4) {
        uint32_t dn = aof_get32(p);
        p += 4;
        if (dn > (size_t)(end - p))
            dn = (uint32_t)(end - p);
        lzval_from_chunks_dict(v, (const char *)p, dn);
        p += dn;
    }
    nchunks &= 0x7FFFFFFFu;
    for (i = 0; i < nchunks && end - p >= 9; i++) {
        uint32_t raw_len = aof_get32(p), stored_len = aof_get32(p + 4);
        int compressed = p[8] != 0;
        p += 9;
        if (stored_len > (size_t)(end - p))
            stored_len = (uint32_t)(end - p);
        lzval_from_chunks_add(v, (const char *)p, stored_len, raw_len, compressed);
        p += stored_len;
    }
    v = lzval_from_chunks_end(v);
    /* Values of chunks up to 16 MB (compress-chunk's maximum: what the server
     * writes) are exercised; larger chunks, which a log may still announce, are
     * only loaded and freed: changing them reallocates megabytes per input. */
    if (v && lzval_chunk_size(v) > (16u << 20)) {
        lzval_free(v);
        v = NULL;
    }
    if (v) {
        exercise(v, p, (size_t)(end - p) < 200 ? (size_t)(end - p) : 200);
        lzval_free(v);
    }
    return 0;
}
