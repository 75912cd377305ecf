/* test_lzframe.c -- the LZ4 frame format and the codec of one block, alone.
 *
 * Frames are built here from the module's own pieces (header, encoded or raw
 * blocks, end mark), the way lzval builds them, and checked three ways: by the
 * standard LZ4 frame decoder (lz4frame.h), since the header promises that
 * format; by lzf_check, which must accept exactly those; and byte by byte
 * against truncation and corruption. Buffers handed to the decoders are
 * allocated at their exact size, so that under AddressSanitizer (make asan) a
 * read past a block is a failure. The data is log-like text and random bytes
 * from a seeded generator. */
#include "lz/lzframe.h"
#include "test.h"

#define LZ4F_STATIC_LINKING_ONLY /* LZ4F_decompress_usingDict */
#include <lz4.h>
#include <lz4frame.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLK 8192 /* the block size lzval uses for chunks from 8 KB to 2 MB */

/* Log-like lines (compressible, and more so with an earlier block as the
 * dictionary) if text, else random bytes. */
static void gen(char *buf, size_t n, int text)
{
    static const char *w[] = {"INFO ", "WARN ", "order-svc ", "auth-svc ", "GET /api/v1/items ",
                              "status=200 ", "duration=", "user ", "trace_id=", "caf\xc3\xa9 "};
    size_t i = 0;

    while (i < n) {
        if (!text) {
            buf[i++] = (char)rng();
            continue;
        }
        const char *s = w[rng() % 10];
        while (*s && i < n)
            buf[i++] = *s++;
        if (i < n)
            buf[i++] = rng() % 6 ? (char)('0' + rng() % 10) : '\n';
    }
}

/* A frame of raw[0..n) in blocks of blk bytes, as lzval writes one: block j
 * encoded (with the dictionary if dict) unless that saves less than 1/8, in
 * dictionary mode with the frame's own first block raw as the dictionary (own)
 * or the dictionary dict[0..blk) given. Returns a malloc'd frame of exactly
 * *len bytes. */
static char *frame_build(const char *raw, size_t n, size_t blk, int dictmode, const char *dict,
                         uint64_t id, size_t *len)
{
    size_t nblk = (n + blk - 1) / blk, room = LZF_HDR_DICT + nblk * (LZF_BLK_HDR + lzf_bound(blk)) + LZF_END;
    char *f = malloc(room), *out = malloc(lzf_bound(blk)), *exact;
    size_t pos = lzf_header_put(f, lzf_bd(blk), dictmode), j;

    for (j = 0; j < nblk; j++) {
        size_t k = n - j * blk < blk ? n - j * blk : blk, m = 0;
        const char *src = raw + j * blk;
        if (!(dictmode && !dict && j == 0)) {
            char *pre = dictmode ? lzf_prefix_load(id, dict ? dict : raw, blk) : NULL;
            m = lzf_encode(src, k, out, pre, blk, 1);
        }
        lzf_block_put(f + pos, m ? m : k, m == 0);
        memcpy(f + pos + LZF_BLK_HDR, m ? out : src, m ? m : k);
        pos += LZF_BLK_HDR + (m ? m : k);
    }
    lzf_end_put(f + pos);
    pos += LZF_END;
    exact = malloc(pos);
    memcpy(exact, f, pos);
    free(f);
    free(out);
    *len = pos;
    return exact;
}

/* 1 if the standard frame decoder turns f[0..len) into exactly raw[0..n). */
static int lz4f_decodes_to(const char *f, size_t len, const char *raw, size_t n, const char *dict,
                           size_t dn)
{
    LZ4F_dctx *dc = NULL;
    size_t src = len, dst = n + 16, r;
    char *out;
    int ok;

    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return 0;
    out = malloc(n + 16);
    r = LZ4F_decompress_usingDict(dc, out, &dst, f, &src, dict, dn, NULL);
    ok = !LZ4F_isError(r) && r == 0 && src == len && dst == n && memcmp(out, raw, n) == 0;
    free(out);
    LZ4F_freeDecompressionContext(dc);
    return ok;
}

/* lzf_check's visitor: compares each block with the raw bytes and its offset
 * with the frame's own block headers. */
typedef struct visit_ctx {
    const char *raw;
    const char *frame;
    size_t blk;
    size_t next;   /* block expected next */
    size_t pos;    /* offset of the block expected next */
    int bad;
} visit_ctx;

static void visit(void *arg, size_t j, size_t off, const char *raw, size_t n)
{
    visit_ctx *x = arg;
    size_t size;

    lzf_block_get(x->frame + off, &size);
    if (j != x->next || off != x->pos || memcmp(raw, x->raw + j * x->blk, n) != 0)
        x->bad = 1;
    x->next = j + 1;
    x->pos = off + LZF_BLK_HDR + size;
}

/* 1 if lzf_check accepts f[0..len) as raw[0..n), visiting every block right. */
static int check_ok(const char *f, size_t len, const char *raw, size_t n, size_t blk, const lzf_dict *d)
{
    visit_ctx x = {raw, f, blk, 0, lzf_header_len(d != NULL), 0};
    char *work = malloc(blk);
    int r = lzf_check(f, len, n, blk, lzf_bd(blk), d, work, visit, &x);

    free(work);
    return r == 0 && !x.bad && x.next == (n + blk - 1) / blk;
}

static void test_bd(void)
{
    CHECK(lzf_bd(1) == 0 && lzf_bd(BLK) == 0 && lzf_bd(65536) == 0);
    CHECK(lzf_bd(65537) == 1 && lzf_bd(256 << 10) == 1);
    CHECK(lzf_bd((256 << 10) + 1) == 2 && lzf_bd(1 << 20) == 2);
    CHECK(lzf_bd((1 << 20) + 1) == 3 && lzf_bd(LZF_BLOCK_MAX) == 3);
}

static void test_headers(void)
{
    char h[LZF_HDR_DICT];
    unsigned bd;

    for (bd = 0; bd < 4; bd++) {
        CHECK(lzf_header_put(h, bd, 0) == LZF_HDR && lzf_header_len(0) == LZF_HDR);
        CHECK(memcmp(h, "\x04\x22\x4D\x18\x60", 5) == 0 && (unsigned char)h[5] == 0x40 + 0x10 * bd);
        CHECK(!lzf_header_dict(h, LZF_HDR));
        CHECK(lzf_header_put(h, bd, 1) == LZF_HDR_DICT && lzf_header_len(1) == LZF_HDR_DICT);
        CHECK(memcmp(h, "\x04\x22\x4D\x18\x61", 5) == 0 && memcmp(h + 6, "SPD1", 4) == 0);
        CHECK(lzf_header_dict(h, LZF_HDR_DICT));
        CHECK(!lzf_header_dict(h, 4) && !lzf_header_dict(h, 0));
    }
}

static void test_block_headers(void)
{
    static const size_t sizes[] = {0, 1, 4096, BLK, 65535, LZF_BLOCK_MAX, 0x7FFFFFFF};
    char p[LZF_BLK_HDR];
    size_t k, size;

    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        lzf_block_put(p, sizes[k], 1);
        CHECK(lzf_block_get(p, &size) == 1 && size == sizes[k]);
        lzf_block_put(p, sizes[k], 0);
        CHECK(lzf_block_get(p, &size) == 0 && size == sizes[k]);
    }
    lzf_end_put(p);
    CHECK(lzf_block_get(p, &size) == 0 && size == 0 && memcmp(p, "\0\0\0\0", 4) == 0);
}

static void test_frames_standard(void)
{
    static const size_t blks[] = {BLK, 65537, 300000, 2u << 20};
    char *raw = malloc(5u << 20);
    size_t k;

    rng_seed(1);
    for (k = 0; k < sizeof blks / sizeof blks[0]; k++) {
        size_t blk = blks[k], n = 2 * blk + blk / 3, len;
        char *f;
        gen(raw, n, 1);
        f = frame_build(raw, n, blk, 0, NULL, 0, &len);
        CHECK(len < n && lz4f_decodes_to(f, len, raw, n, NULL, 0));
        free(f);
        if (blk > BLK)
            continue;
        f = frame_build(raw, n, blk, 1, NULL, 100 + k, &len);
        CHECK(lz4f_decodes_to(f, len, raw, n, raw, blk));
        CHECK(!lz4f_decodes_to(f, len, raw, n, NULL, 0));
        free(f);
    }
    free(raw);
}

static void test_encode_rule(void)
{
    char raw[BLK], *out = malloc(lzf_bound(BLK));
    size_t m;

    rng_seed(2);
    gen(raw, BLK, 0);
    CHECK(lzf_encode(raw, BLK, out, NULL, 0, 1) == 0);
    gen(raw, BLK, 1);
    m = lzf_encode(raw, BLK, out, NULL, 0, 1);
    CHECK(m > 0 && m <= BLK - BLK / 8);
    CHECK(lzf_encode(raw, 1, out, NULL, 0, 1) == 0); /* one literal costs a token */
    gen(raw, 64, 0);
    CHECK(lzf_encode(raw, 64, out, NULL, 0, 1) == 0);
    free(out);
}

/* One block, encoded, then decoded whole and at every prefix length. */
static void roundtrip_every_length(const char *raw, size_t n, char *pre, size_t dn)
{
    char *out = malloc(lzf_bound(n)), *blk, *dst;
    size_t m = lzf_encode(raw, n, out, pre, dn, 1), want;
    int ok = 1;

    CHECK(m > 0);
    blk = malloc(m);
    memcpy(blk, out, m);
    for (want = 1; want <= n && ok; want++) {
        dst = malloc(want);
        ok = lzf_decode(blk, m, dst, want, n, pre, dn) == 0 && memcmp(dst, raw, want) == 0;
        free(dst);
    }
    CHECK(ok);
    free(blk);
    free(out);
}

static void test_block_roundtrip(void)
{
    char *raw = malloc(3 * BLK), *pre;

    rng_seed(3);
    gen(raw, 3 * BLK, 1);
    roundtrip_every_length(raw + BLK, BLK, NULL, 0);
    roundtrip_every_length(raw + BLK, 1000, NULL, 0);
    pre = lzf_prefix_load(7, raw, BLK);
    roundtrip_every_length(raw + BLK, BLK, pre, BLK);
    roundtrip_every_length(raw + 2 * BLK, 3000, pre, BLK);
    free(raw);
}

static void test_block_refused(void)
{
    char *raw = malloc(2 * BLK), *out = malloc(lzf_bound(BLK)), *pre, dst[BLK];
    size_t m, k, cut;
    int ok = 1, d;

    rng_seed(4);
    gen(raw, 2 * BLK, 1);
    pre = lzf_prefix_load(8, raw, BLK);
    for (d = 0; d < 2; d++) {
        char *p = d ? pre : NULL;
        m = lzf_encode(raw + BLK, BLK, out, p, BLK, 1);
        CHECK(m > 0);
        for (cut = 0; cut < m; cut++) {
            char *blk = malloc(cut ? cut : 1);
            memcpy(blk, out, cut);
            ok &= lzf_decode(blk, cut, dst, BLK, BLK, p, BLK) == -1;
            free(blk);
        }
        CHECK(ok);
        CHECK(lzf_decode(out, m, dst, BLK - 1, BLK - 1, p, BLK) == -1); /* longer than said */
        CHECK(lzf_decode(out, m, dst, BLK, BLK, p, BLK) == 0);
        for (k = 0; k < m; k++) { /* a flipped byte: refused, or exactly BLK bytes, never more */
            char *blk = malloc(m);
            memcpy(blk, out, m);
            blk[k] ^= (char)(1 + rng() % 255);
            lzf_decode(blk, m, dst, BLK, BLK, p, BLK);
            lzf_decode(blk, m, dst, 100, BLK, p, BLK);
            free(blk);
        }
        memset(out, 0xFF, m);
        CHECK(lzf_decode(out, m, dst, BLK, BLK, p, BLK) == -1);
        CHECK(lzf_decode(out, m, dst, 10, BLK, p, BLK) == -1);
    }
    free(out);
    free(raw);
}

static void test_check_accepts(void)
{
    static const size_t lens[] = {1, 100, BLK, BLK + 1, 3 * BLK, 7 * BLK + 5};
    char *raw = malloc(8 * BLK), *f;
    lzf_dict own = {20, NULL}, given;
    size_t k, len;

    rng_seed(5);
    for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        gen(raw, 8 * BLK, k % 2 == 0);
        f = frame_build(raw, n, BLK, 0, NULL, 0, &len);
        CHECK(check_ok(f, len, raw, n, BLK, NULL));
        CHECK(!check_ok(f, len, raw, n, BLK, &own));
        free(f);
        if (n < BLK)
            continue;
        own.id++;
        f = frame_build(raw, n, BLK, 1, NULL, own.id, &len);
        CHECK(check_ok(f, len, raw, n, BLK, &own));
        CHECK(!check_ok(f, len, raw, n, BLK, NULL));
        free(f);
        given.id = own.id + 1000;
        given.bytes = raw + 7 * BLK;
        f = frame_build(raw, n, BLK, 1, given.bytes, given.id, &len);
        CHECK(check_ok(f, len, raw, n, BLK, &given));
        free(f);
    }
    free(raw);
}

static void test_check_refuses(void)
{
    char *raw = malloc(4 * BLK), *f, *g, *work = malloc(BLK);
    lzf_dict own = {40, NULL};
    size_t len, cut, n = 3 * BLK + 500, pos, size;
    int ok = 1, d;

    rng_seed(6);
    gen(raw, 4 * BLK, 1);
    for (d = 0; d < 2; d++) {
        const lzf_dict *dp = d ? &own : NULL;
        f = frame_build(raw, n, BLK, d, NULL, own.id, &len);
        for (cut = 0; cut < len; cut++) {
            g = malloc(cut ? cut : 1);
            memcpy(g, f, cut);
            ok &= lzf_check(g, cut, n, BLK, 0, dp, work, NULL, NULL) == -1;
            free(g);
        }
        CHECK(ok);
        CHECK(lzf_check(f, len, n, BLK, 0, dp, work, NULL, NULL) == 0);
        CHECK(lzf_check(f, len, n - 1, BLK, 0, dp, work, NULL, NULL) == -1);
        CHECK(lzf_check(f, len, n + 1, BLK, 0, dp, work, NULL, NULL) == -1);
        CHECK(lzf_check(f, len, n, BLK, 1, dp, work, NULL, NULL) == -1); /* another BD */
        g = malloc(len + 4);
        memcpy(g, f, len);
        memset(g + len, 0, 4);
        CHECK(lzf_check(g, len + 4, n, BLK, 0, dp, work, NULL, NULL) == -1); /* bytes after the end */
        memcpy(g, f, len);
        g[len - 1] = 1;
        CHECK(lzf_check(g, len, n, BLK, 0, dp, work, NULL, NULL) == -1); /* no end mark */
        memcpy(g, f, len);
        g[lzf_header_len(d) - 1] ^= 1;
        CHECK(lzf_check(g, len, n, BLK, 0, dp, work, NULL, NULL) == -1); /* header checksum */
        memcpy(g, f, len);
        pos = lzf_header_len(d);
        lzf_block_get(g + pos, &size);
        pos += LZF_BLK_HDR + size;
        CHECK(lzf_block_get(g + pos, &size) == 0); /* the second block is LZ4 */
        memset(g + pos + LZF_BLK_HDR, 0xFF, size);
        CHECK(lzf_check(g, len, n, BLK, 0, dp, work, NULL, NULL) == -1); /* a corrupt LZ4 block */
        free(g);
        free(f);
        own.id++;
    }
    f = frame_build(raw, BLK / 2, BLK, 1, NULL, 50, &len); /* own dictionary shorter than a block */
    CHECK(lzf_check(f, len, BLK / 2, BLK, 0, &own, work, NULL, NULL) == -1);
    free(f);
    f = frame_build(raw, n, BLK, 1, raw + 3 * BLK, 51, &len); /* first block LZ4: no own dictionary */
    CHECK(lzf_check(f, len, n, BLK, 0, &own, work, NULL, NULL) == -1);
    free(f);
    free(work);
    free(raw);
}

/* A frame of one LZ4 block made by hand: 12 literals, a 4-byte match at
 * offset off, 12 literals (28 raw bytes). */
static size_t offset_frame(char *f, unsigned off)
{
    static const char lit[] = "abcdefghijklmnopqrstuvwx";
    unsigned char b[64];
    size_t n = 0, hl;

    b[n++] = 0xC0; /* 12 literals, match length 4 */
    memcpy(b + n, lit, 12);
    n += 12;
    b[n++] = (unsigned char)off;
    b[n++] = (unsigned char)(off >> 8);
    b[n++] = 0xC0; /* the last sequence: 12 literals */
    memcpy(b + n, lit + 12, 12);
    n += 12;
    hl = lzf_header_put(f, lzf_bd(28), 0);
    lzf_block_put(f + hl, n, 0);
    memcpy(f + hl + LZF_BLK_HDR, b, n);
    lzf_end_put(f + hl + LZF_BLK_HDR + n);
    return hl + LZF_BLK_HDR + n + LZF_END;
}

static void test_check_refuses_offset_zero(void)
{
    char f[128], work[28];
    size_t n;

    n = offset_frame(f, 1);
    CHECK(lzf_check(f, n, 28, 28, lzf_bd(28), NULL, work, NULL, NULL) == 0);
    CHECK(memcmp(work + 12, "llll", 4) == 0);
    n = offset_frame(f, 0);
    CHECK(lzf_check(f, n, 28, 28, lzf_bd(28), NULL, work, NULL, NULL) == -1);
}

static void test_prefix_buffer(void)
{
    char a[BLK], b[BLK], *p;

    memset(a, 'a', BLK);
    memset(b, 'b', BLK);
    p = lzf_prefix_load(900, a, BLK);
    CHECK(memcmp(p, a, BLK) == 0 && lzf_prefix_get(900, BLK) == p);
    CHECK(lzf_prefix_get(901, BLK) == NULL && lzf_prefix_get(900, 2 * BLK) == NULL);
    CHECK(lzf_prefix_load(900, b, BLK) == p && memcmp(p, a, BLK) == 0); /* same id: no copy */
    p = lzf_prefix_load(901, b, BLK);
    CHECK(memcmp(p, b, BLK) == 0 && lzf_prefix_get(900, BLK) == NULL);
}

/* The LZ4 block LZ4_loadDict + LZ4_compress_fast_continue make for blk[0..n)
 * with the dictionary dict[0..dn), the two contiguous in a buffer of the test's
 * own (the way lzframe encoded every block before it kept the loaded
 * dictionary): its size, the block in out. */
static size_t encode_loaded(const char *dict, size_t dn, const char *blk, size_t n, char *out)
{
    LZ4_stream_t *st = LZ4_createStream();
    char *buf = malloc(dn + n);
    int m;

    memcpy(buf, dict, dn);
    memcpy(buf + dn, blk, n);
    LZ4_loadDict(st, buf, (int)dn);
    m = LZ4_compress_fast_continue(st, buf + dn, out, (int)n, LZ4_compressBound((int)n), 1);
    LZ4_freeStream(st);
    free(buf);
    return m > 0 ? (size_t)m : 0;
}

/* Blocks of values a, b (dictionary: each one's first BLK bytes), encoded in
 * turn, the buffer grown in between, each against encode_loaded. */
static void test_dict_loaded_once(void)
{
    size_t vn = 6 * BLK, j, m, r, loads;
    char *a = malloc(vn), *b = malloc(2 * vn), *out = malloc(lzf_bound(2 * BLK)), *ref = malloc(lzf_bound(2 * BLK)),
         *pre;
    int same = 1;

    rng_seed(9);
    gen(a, vn, 1);
    gen(b, 2 * vn, 1);
    loads = lzf_dict_loads_count();
    pre = lzf_prefix_load(1001, a, BLK);
    for (j = 1; j < 6; j++) {
        m = lzf_encode(a + j * BLK, j < 5 ? BLK : 1000, out, pre, BLK, 1);
        r = encode_loaded(a, BLK, a + j * BLK, j < 5 ? BLK : 1000, ref);
        same &= m > 0 && m == r && memcmp(out, ref, m) == 0;
    }
    CHECK(same);
    CHECK(lzf_dict_loads_count() == loads + 2); /* the first block alone, then kept */
    pre = lzf_prefix_load(1002, b, BLK);
    m = lzf_encode(b + BLK, BLK, out, pre, BLK, 1);
    r = encode_loaded(b, BLK, b + BLK, BLK, ref);
    CHECK(m > 0 && m == r && memcmp(out, ref, m) == 0);
    pre = lzf_prefix_load(1001, a, BLK); /* back to a, at the same address */
    m = lzf_encode(a + BLK, BLK, out, pre, BLK, 1);
    r = encode_loaded(a, BLK, a + BLK, BLK, ref);
    CHECK(m > 0 && m == r && memcmp(out, ref, m) == 0);
    CHECK(lzf_dict_loads_count() == loads + 3); /* a was still held */
    pre = lzf_prefix_load(1003, b, 2 * BLK);    /* the buffer grows: loaded again */
    m = lzf_encode(b + 2 * BLK, 2 * BLK, out, pre, 2 * BLK, 1);
    r = encode_loaded(b, 2 * BLK, b + 2 * BLK, 2 * BLK, ref);
    CHECK(m > 0 && m == r && memcmp(out, ref, m) == 0);
    pre = lzf_prefix_load(1003, b, BLK); /* the same id, a shorter dictionary */
    m = lzf_encode(b + BLK, BLK, out, pre, BLK, 1);
    r = encode_loaded(b, BLK, b + BLK, BLK, ref);
    CHECK(m > 0 && m == r && memcmp(out, ref, m) == 0);
    CHECK(lzf_dict_loads_count() == loads + 5);
    free(ref);
    free(out);
    free(b);
    free(a);
}

int main(void)
{
    RUN(test_bd, "the BD id is the smallest block maximum that holds the block size");
    RUN(test_headers, "a header with and without the dictionary flag has the lz4 bytes and reads back its flag");
    RUN(test_block_headers, "a block header written raw or LZ4 reads back its kind and size, and the end mark is four zeros");
    RUN(test_frames_standard, "frames for every BD, with and without a dictionary, are decoded by the standard LZ4 frame decoder");
    RUN(test_encode_rule, "a block is encoded only when that saves 1/8 of its bytes");
    RUN(test_block_roundtrip, "a block encoded then decoded at every partial length round-trips, with or without a dictionary");
    RUN(test_block_refused, "a truncated or corrupt block is refused, or decodes exactly, without reading or writing past its buffers");
    RUN(test_check_accepts, "lzf_check accepts the frames the writer makes and visits each block's bytes at its offset");
    RUN(test_check_refuses, "lzf_check refuses a frame truncated at every length, mislabelled, with trailing bytes or a corrupt block");
    RUN(test_check_refuses_offset_zero,
        "lzf_check refuses an LZ4 block with a match at offset 0, which liblz4 decodes differently whole and in part");
    RUN(test_prefix_buffer, "the prefix buffer copies a dictionary once per id and forgets it for another");
    RUN(test_dict_loaded_once,
        "a dictionary is hashed once per dictionary held, and every block encoded with it is byte for byte what LZ4_loadDict before each block gives");
    return TEST_DONE();
}
