/* test_lzval.c -- the chunked LZ4 value against a plain buffer model.
 *
 * Every case builds the same bytes twice, once in an lzval and once in a plain
 * buffer, and checks that reads, counts and lookups agree. The data comes from a
 * seeded generator: log-like lines (compressible, some with multi-byte UTF-8) and
 * random bytes (incompressible). Small chunk sizes (1024, 4096) put many chunk
 * boundaries under test; 65536 and 20000 (eight, and three uneven, 8 KB
 * sub-blocks per chunk) put sub-block boundaries and the raw tail under test.
 * Stored chunks are also checked against the standard LZ4 frame decoder
 * (lz4frame.h), since the header promises that format. Values with a
 * dictionary are built from service-log text (GEN_SVC, close to
 * bench/gen_logs.py), for which lzval_new chooses one from about 64 KB. */
#include "lz/lzval.h"
#include "lz/lzidle.h"
#include "mem.h"
#include "test.h"
#include "textgen.h"

#define LZ4F_STATIC_LINKING_ONLY /* LZ4F_decompress_usingDict */
#include <lz4frame.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SUB 8192 /* the sub-block size for chunk sizes from 8 KB to 2 MB */

enum { GEN_LOG, GEN_UTF8, GEN_RAND, GEN_SVC };

/* Fill buf[0..n) with log lines (GEN_LOG), log lines with accented words, arrows
 * and emoji (GEN_UTF8), random bytes (GEN_RAND) or service-log lines (GEN_SVC),
 * from seed. */
static void gen(char *buf, size_t n, int kind, uint64_t seed)
{
    static const char *lvl[] = {"INFO", "WARN", "DEBUG", "ERROR"};
    static const char *msg[] = {"request served", "cache miss for key", "retrying upstream call",
                                "tool output truncated", "agent step finished"};
    static const char *uni[] = {"caf\xc3\xa9 ", "\xe2\x86\x92 ", "\xf0\x9f\x98\x80 ", "na\xc3\xafve "};
    char line[256];
    size_t pos = 0;

    rng_seed(seed);
    if (kind == GEN_SVC) {
        gen_svc(buf, n);
        return;
    }
    if (kind == GEN_RAND) {
        for (pos = 0; pos < n; pos++)
            buf[pos] = (char)(rng() >> 24);
        return;
    }
    while (pos < n) {
        int k = snprintf(line, sizeof line, "2024-05-%02u %02u:%02u:%02u.%03u %s worker-%u %s%s id=%llu latency=%ums\n",
                         (unsigned)rng_below(28) + 1, (unsigned)rng_below(24), (unsigned)rng_below(60),
                         (unsigned)rng_below(60), (unsigned)rng_below(1000), lvl[rng_below(4)],
                         (unsigned)rng_below(8), kind == GEN_UTF8 ? uni[rng_below(4)] : "",
                         msg[rng_below(5)], (unsigned long long)rng_below(100000),
                         (unsigned)rng_below(500));
        size_t m = (size_t)k < n - pos ? (size_t)k : n - pos;
        memcpy(buf + pos, line, m);
        pos += m;
    }
}

static char *gen_new(size_t n, int kind, uint64_t seed)
{
    char *p = malloc(n ? n : 1);
    gen(p, n, kind, seed);
    return p;
}

static size_t model_chars(const char *p, size_t n)
{
    size_t i, c = 0;

    for (i = 0; i < n; i++)
        c += ((unsigned char)p[i] & 0xC0) != 0x80;
    return c;
}

static size_t model_newlines(const char *p, size_t n)
{
    size_t i, c = 0;

    for (i = 0; i < n; i++)
        c += p[i] == '\n';
    return c;
}

/* Every chunk of v passes lzval_chunk_verify: the checksums recorded as its
 * stored bytes were written equal a recomputation over the bytes now. Called by
 * same_as_model, so after every operation the cases below make. */
static int sums_ok(const lzval *v)
{
    size_t i, blk;

    for (i = 0; i < lzval_nchunks(v); i++)
        if (lzval_chunk_verify(v, i, &blk) != 0)
            return 0;
    return 1;
}

/* v holds exactly m[0..n): length, bytes, counts, the chunks' checksums and the chunk layout (all chunks
 * full but the last). Returns 1 if all hold. */
static int same_as_model(const lzval *v, const char *m, size_t n, lzcache *c)
{
    size_t cs = lzval_chunk_size(v), i, nch = (n + cs - 1) / cs;
    char *tmp = malloc(n ? n : 1);
    int ok = lzval_len(v) == n && lzval_nchunks(v) == nch;

    ok = ok && lzval_read(v, 0, n, tmp, c) == 0 && memcmp(tmp, m, n) == 0;
    ok = ok && lzval_chars(v) == model_chars(m, n) && lzval_newlines(v) == model_newlines(m, n);
    for (i = 0; ok && i < nch; i++) {
        const char *d;
        size_t stored, raw;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        ok = raw == (i + 1 < nch ? cs : n - i * cs);
    }
    ok = ok && sums_ok(v);
    free(tmp);
    return ok;
}

static void test_roundtrip(void)
{
    static const size_t sizes[] = {0, 1, 1000, 1023, 1024, 1025, 4096, 5000, 65535, 65536, 65537, 300000};
    static const size_t chunks[] = {1024, 4096, 65536};
    size_t si, ci;
    int kind;

    for (kind = GEN_LOG; kind <= GEN_RAND; kind++)
        for (si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
                char *m = gen_new(sizes[si], kind, si * 7 + ci);
                lzval *v = lzval_new(m, sizes[si], chunks[ci]);
                CHECK(lzval_chunk_size(v) == chunks[ci]);
                CHECK(same_as_model(v, m, sizes[si], NULL));
                lzval_free(v);
                free(m);
            }
}

static void test_roundtrip_small_chunk_size_clamped(void)
{
    lzval *v = lzval_new("abc", 3, 10);

    CHECK(lzval_chunk_size(v) == 1024);
    CHECK(lzval_len(v) == 3 && lzval_nchunks(v) == 1);
    lzval_free(v);
    lzval_free(NULL);
    lzcache_free(NULL);
}

/* Compare one window [off, off+n) through the cache c (may be NULL). */
static int window_ok(const lzval *v, const char *m, size_t off, size_t n, lzcache *c)
{
    char *tmp = malloc(n + 16);
    int ok;

    memset(tmp, 0x5A, n + 16);
    ok = lzval_read(v, off, n, tmp, c) == 0 && memcmp(tmp, m + off, n) == 0;
    ok = ok && tmp[n] == 0x5A && tmp[n + 15] == 0x5A;
    free(tmp);
    return ok;
}

static void test_windows(void)
{
    static const size_t chunks[] = {1024, 4096, 65536};
    size_t ci, k, len = 300000;
    int kind;

    for (kind = GEN_LOG; kind <= GEN_RAND; kind++)
        for (ci = 0; ci < 3; ci++) {
            size_t cs = chunks[ci];
            char *m = gen_new(len, kind, 100 + ci);
            lzval *v = lzval_new(m, len, cs);
            lzcache *c = lzcache_new(4);
            int bad = 0;

            for (k = 0; k < 3000; k++) {
                size_t off = rng_below(len + 1), max = len - off, n;
                n = k % 4 == 0 ? rng_below(max + 1) : rng_below((max < 3 * cs ? max : 3 * cs) + 1);
                bad += !window_ok(v, m, off, n, (k & 1) ? c : NULL);
            }
            for (k = 1; k * cs < len; k++) {
                size_t d, off, ns[] = {1, 2, 3, cs - 1, cs, cs + 1, 2 * cs + 5};
                for (d = 0; d < 5; d++) {
                    size_t j;
                    off = k * cs - 2 + d;
                    for (j = 0; j < sizeof ns / sizeof *ns; j++) {
                        if (off + ns[j] > len)
                            continue;
                        bad += !window_ok(v, m, off, ns[j], NULL);
                        bad += !window_ok(v, m, off, ns[j], c);
                    }
                }
            }
            bad += !window_ok(v, m, len, 0, NULL);
            bad += !window_ok(v, m, 0, len, c);
            CHECK(bad == 0);
            CHECK(lzval_read(v, len, 1, m, NULL) == -1);
            CHECK(lzval_read(v, len + 1, 0, m, c) == -1);
            CHECK(lzval_read(v, 10, SIZE_MAX, m, c) == -1);
            lzcache_free(c);
            lzval_free(v);
            free(m);
        }
}

static void test_appends(void)
{
    static const size_t chunks[] = {1024, 4096};
    size_t ci, total = 200000;
    int kind;

    for (kind = GEN_LOG; kind <= GEN_RAND; kind++)
        for (ci = 0; ci < 2; ci++) {
            char *m = gen_new(total, kind, 300 + ci);
            lzval *v = lzval_new(NULL, 0, chunks[ci]);
            lzcache *c = lzcache_new(4);
            size_t len = 0, step = 0;
            int bad = 0;
            char tail[64];

            rng_seed(77 + ci);
            while (len < total) {
                size_t n = step % 17 == 0 ? rng_below(9000) : rng_below(2500);
                if (n > total - len)
                    n = total - len;
                bad += lzval_append(v, m + len, n, (step & 1) ? c : NULL) != 0;
                len += n;
                bad += lzval_len(v) != len;
                if (len >= 64) {
                    bad += lzval_read(v, len - 64, 64, tail, c) != 0;
                    bad += memcmp(tail, m + len - 64, 64) != 0;
                }
                if (step % 40 == 0)
                    bad += !same_as_model(v, m, len, c);
                step++;
            }
            CHECK(bad == 0);
            CHECK(same_as_model(v, m, total, NULL));
            CHECK(same_as_model(v, m, total, c));
            lzcache_free(c);
            lzval_free(v);
            free(m);
        }
}

static void test_appends_exact_boundaries(void)
{
    char *m = gen_new(8192, GEN_LOG, 5);
    lzval *v = lzval_new(m, 1000, 1024);

    CHECK(lzval_append(v, m + 1000, 24, NULL) == 0); /* fills chunk 0 exactly */
    CHECK(lzval_nchunks(v) == 1);
    CHECK(lzval_append(v, m + 1024, 1024, NULL) == 0); /* one whole new chunk */
    CHECK(lzval_nchunks(v) == 2);
    CHECK(lzval_append(v, m + 2048, 1, NULL) == 0);
    CHECK(lzval_append(v, m + 2049, 0, NULL) == 0);
    CHECK(lzval_append(v, m + 2049, 8192 - 2049, NULL) == 0);
    CHECK(same_as_model(v, m, 8192, NULL));
    lzval_free(v);
    free(m);
}

static void test_setrange(void)
{
    size_t cs = 1024, len = 50000, cap = 200000, k;
    char *m = malloc(cap), *src = gen_new(cap, GEN_UTF8, 11), *rnd = gen_new(cap, GEN_RAND, 12);
    lzval *v;
    lzcache *c = lzcache_new(3);
    struct { size_t off, n; } fixed[] = {
        {100, 50},   {2048, 1024}, {1000, 3000}, {3072, 512}, {4000, 96},
        {0, 1024},   {0, 1},       {1023, 2},    {5 * 1024 - 1, 1025}};
    int bad = 0;

    gen(m, len, GEN_LOG, 10);
    v = lzval_new(m, len, cs);
    for (k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        const char *p = (k & 1) ? rnd + k * 1000 : src + k * 1000;
        bad += lzval_setrange(v, fixed[k].off, p, fixed[k].n, (k & 1) ? c : NULL) != 0;
        memcpy(m + fixed[k].off, p, fixed[k].n);
        bad += !same_as_model(v, m, len, c);
    }
    CHECK(bad == 0);
    /* extending: from inside the last chunk, from the exact end, from a boundary */
    CHECK(lzval_setrange(v, len - 10, src, 3000, c) == 0);
    memcpy(m + len - 10, src, 3000);
    len += 2990;
    CHECK(same_as_model(v, m, len, NULL));
    CHECK(lzval_setrange(v, len, src + 5, 777, NULL) == 0);
    memcpy(m + len, src + 5, 777);
    len += 777;
    CHECK(same_as_model(v, m, len, c));
    CHECK(lzval_append(v, src, (cs - len % cs) % cs, c) == 0);
    memcpy(m + len, src, (cs - len % cs) % cs);
    len += (cs - len % cs) % cs;
    CHECK(len % cs == 0);
    CHECK(lzval_setrange(v, len - cs, rnd, 3 * cs, c) == 0);
    memcpy(m + len - cs, rnd, 3 * cs);
    len += 2 * cs;
    CHECK(same_as_model(v, m, len, NULL));
    /* random operations, some extending */
    rng_seed(99);
    for (k = 0; k < 400; k++) {
        size_t off = rng_below(len + 1), n = rng_below(4000);
        const char *p = (k % 3) ? src + rng_below(cap - n) : rnd + rng_below(cap - n);
        if (off + n > cap)
            n = cap - off;
        bad += lzval_setrange(v, off, p, n, (k & 1) ? c : NULL) != 0;
        memcpy(m + off, p, n);
        if (off + n > len)
            len = off + n;
        if (k % 20 == 0)
            bad += !same_as_model(v, m, len, c);
    }
    CHECK(bad == 0);
    CHECK(same_as_model(v, m, len, NULL));
    CHECK(lzval_setrange(v, len + 1, src, 1, c) == -1);
    CHECK(lzval_setrange(v, len, src, 0, c) == 0);
    CHECK(lzval_len(v) == len);
    lzcache_free(c);
    lzval_free(v);
    free(rnd);
    free(src);
    free(m);
}

/* Place a w-byte character (w = 2..4) starting at pos. */
static void put_char(char *m, size_t pos, int w)
{
    static const char *ch[] = {NULL, NULL, "\xc3\xa9", "\xe2\x86\x92", "\xf0\x9f\x98\x80"};
    memcpy(m + pos, ch[w], (size_t)w);
}

/* Text of n bytes, cs-sized chunks, with a multi-byte character cut by every chunk
 * boundary, rotating widths 2..4 and cut points (1..w-1 bytes before the boundary),
 * and a newline on both sides of some boundaries. */
static char *utf8_cut_text(size_t n, size_t cs)
{
    char *m = gen_new(n, GEN_UTF8, 21);
    size_t k, r = 0;

    for (k = 1; k * cs + 4 < n; k++) {
        int w = 2 + (int)(k % 3);
        size_t d = 1 + (r++ % (size_t)(w - 1));
        put_char(m, k * cs - d, w);
        if (k % 4 == 0)
            m[k * cs - d - 1] = '\n';
        if (k % 5 == 0)
            m[k * cs - d + (size_t)w] = '\n';
    }
    return m;
}

static void test_counts_utf8_across_boundaries(void)
{
    size_t cs = 1024, n = 40 * 1024 + 300, k;
    char *m = utf8_cut_text(n, cs);
    lzval *v = lzval_new(m, n, cs), *w = lzval_new(NULL, 0, cs);
    lzcache *c = lzcache_new(4);
    size_t ch;

    CHECK(lzval_chars(v) == model_chars(m, n));
    CHECK(lzval_newlines(v) == model_newlines(m, n));
    CHECK(lzval_chars(v) < n); /* the text really has multi-byte characters */
    for (k = 1; k * cs < n; k++) {
        CHECK(lzval_byte_to_char(v, k * cs, &ch, NULL) == 0 && ch == model_chars(m, k * cs));
        CHECK(lzval_byte_to_char(v, k * cs - 1, &ch, c) == 0 && ch == model_chars(m, k * cs - 1));
    }
    /* the same text built one byte at a time around each boundary */
    for (k = 0; k < n;) {
        size_t step = (k % cs) > cs - 8 || (k % cs) < 4 ? 1 : 61;
        if (step > n - k)
            step = n - k;
        CHECK(lzval_append(w, m + k, step, (k & 1) ? c : NULL) == 0);
        k += step;
        if (k % cs == 0 || k == n) {
            CHECK(lzval_chars(w) == model_chars(m, k));
            CHECK(lzval_newlines(w) == model_newlines(m, k));
        }
    }
    CHECK(same_as_model(w, m, n, c));
    /* a setrange that writes a character across a boundary changes the counts */
    put_char(m, 7 * cs - 2, 4);
    CHECK(lzval_setrange(w, 7 * cs - 2, m + 7 * cs - 2, 4, c) == 0);
    CHECK(same_as_model(w, m, n, NULL));
    lzcache_free(c);
    lzval_free(w);
    lzval_free(v);
    free(m);
}


/* The naive position tables of m[0..n): cpos[k] = byte where character k
 * starts (cpos[chars] = n), lpos[k] = byte where line k+1 starts (lpos[0] = 0),
 * before[i] = characters that start before byte i. *nl gets the newlines;
 * returns the characters. cpos and before need n + 1 slots, lpos n + 2. */
static size_t model_positions(const char *m, size_t n, size_t *cpos, size_t *lpos, size_t *before, size_t *nl)
{
    size_t i, ch = 0;

    for (i = 0, *nl = 0, lpos[0] = 0; i < n; i++) {
        before[i] = ch;
        if (((unsigned char)m[i] & 0xC0) != 0x80)
            cpos[ch++] = i;
        if (m[i] == '\n')
            lpos[++*nl] = i + 1;
    }
    before[n] = ch;
    cpos[ch] = n;
    return ch;
}
static void test_lookups_against_naive(void)
{
    size_t cs = 1024, n = 6 * 1024 + 517, i, ch, nl, b;
    char *m = utf8_cut_text(n, cs);
    size_t *cpos = malloc((n + 1) * sizeof(size_t)), *lpos = malloc((n + 2) * sizeof(size_t));
    size_t *before = malloc((n + 1) * sizeof(size_t));
    lzval *v = lzval_new(m, n, cs);
    lzcache *c = lzcache_new(2);
    int bad = 0, pass;

    ch = model_positions(m, n, cpos, lpos, before, &nl);
    CHECK(ch == lzval_chars(v) && nl == lzval_newlines(v));
    for (pass = 0; pass < 2; pass++) {
        lzcache *cc = pass ? c : NULL;
        for (i = 0; i <= ch; i++)
            bad += lzval_char_to_byte(v, i, &b, cc) != 0 || b != cpos[i];
        for (i = 0; i <= n; i++)
            bad += lzval_byte_to_char(v, i, &b, cc) != 0 || b != before[i];
        for (i = 0; i <= nl; i++)
            bad += lzval_line_start(v, i, &b, cc) != 0 || b != lpos[i];
        bad += lzval_char_to_byte(v, ch + 1, &b, cc) != -1;
        bad += lzval_byte_to_char(v, n + 1, &b, cc) != -1;
        bad += lzval_line_start(v, nl + 1, &b, cc) != -1;
    }
    CHECK(bad == 0);
    lzcache_free(c);
    lzval_free(v);
    free(before);
    free(lpos);
    free(cpos);
    free(m);
}

static void test_lookups_empty_value(void)
{
    lzval *v = lzval_new(NULL, 0, 4096);
    size_t b = 99;

    CHECK(lzval_chars(v) == 0 && lzval_newlines(v) == 0 && lzval_nchunks(v) == 0);
    CHECK(lzval_char_to_byte(v, 0, &b, NULL) == 0 && b == 0);
    CHECK(lzval_byte_to_char(v, 0, &b, NULL) == 0 && b == 0);
    CHECK(lzval_line_start(v, 0, &b, NULL) == 0 && b == 0);
    CHECK(lzval_line_start(v, 1, &b, NULL) == -1);
    CHECK(lzval_chunk(v, 0, &b, NULL) == NULL && b == 0);
    lzval_free(v);
}

static void test_stored_forms(void)
{
    size_t n = 1 << 20, i, nch;
    char *log = gen_new(n, GEN_LOG, 31), *rnd = gen_new(n, GEN_RAND, 32);
    lzval *vl = lzval_new(log, n, 65536), *vr = lzval_new(rnd, n, 65536), *mix;
    const char *d;
    size_t stored, raw;
    int comp, bad = 0;

    for (i = 0; i < lzval_nchunks(vl); i++) {
        lzval_chunk_stored(vl, i, &d, &stored, &raw, &comp);
        bad += !comp || stored > raw - raw / 8;
        lzval_chunk_stored(vr, i, &d, &stored, &raw, &comp);
        bad += comp || stored != raw;
    }
    CHECK(bad == 0);
    CHECK(lzval_stored(vl) < n / 2);
    CHECK(lzval_stored(vr) >= n && lzval_stored(vr) < n + n / 50);
    /* a value of log text then random bytes: each chunk picks its own form */
    mix = lzval_new(log, 3 * 4096, 4096);
    CHECK(lzval_append(mix, rnd, 3 * 4096, NULL) == 0);
    nch = lzval_nchunks(mix);
    CHECK(nch == 6);
    for (i = 0; i < nch; i++) {
        lzval_chunk_stored(mix, i, &d, &stored, &raw, &comp);
        CHECK(comp == (i < 3));
    }
    lzval_free(mix);
    lzval_free(vr);
    lzval_free(vl);
    free(rnd);
    free(log);
}

/* Rebuild v from its exported chunks; NULL if rejected. */
/* A loader's rebuild of v from what a writer exports: its detached dictionary,
 * if any (lzval_detached_dict), then its stored chunks. */
static lzval *rebuild(const lzval *v)
{
    lzval *r = lzval_from_chunks_begin(lzval_chunk_size(v));
    size_t i, dn;
    const char *dict = lzval_detached_dict(v, &dn);

    if (dict)
        lzval_from_chunks_dict(r, dict, dn);
    for (i = 0; i < lzval_nchunks(v); i++) {
        const char *d;
        size_t stored, raw;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        lzval_from_chunks_add(r, d, stored, raw, comp);
    }
    return lzval_from_chunks_end(r);
}

static void test_export_rebuild(void)
{
    size_t n = 50 * 4096 + 1234, i;
    char *m = gen_new(n, GEN_UTF8, 41), *rnd = gen_new(20000, GEN_RAND, 42);
    lzval *v, *r, *e;
    const char *d;
    size_t stored, raw, stored2, raw2;
    int comp, comp2, bad = 0;

    memcpy(m + 10000, rnd, 20000); /* some raw chunks among compressed ones */
    v = lzval_new(m, n, 4096);
    r = rebuild(v);
    CHECK(r != NULL);
    CHECK(same_as_model(r, m, n, NULL));
    for (i = 0; i < lzval_nchunks(v); i++) {
        const char *d2;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        lzval_chunk_stored(r, i, &d2, &stored2, &raw2, &comp2);
        bad += stored != stored2 || raw != raw2 || comp != comp2 || memcmp(d, d2, stored) != 0;
    }
    CHECK(bad == 0);
    CHECK(lzval_stored(r) + 1024 >= lzval_stored(v) && lzval_stored(r) <= lzval_stored(v) + 1024);
    CHECK(lzval_append(r, m, 5000, NULL) == 0); /* a rebuilt value is a normal value */
    lzval_free(r);

    e = lzval_new(NULL, 0, 4096);
    r = rebuild(e);
    CHECK(r != NULL && lzval_len(r) == 0);
    lzval_free(r);
    lzval_free(e);
    lzval_free(v);
    free(rnd);
    free(m);
}

static void test_rebuild_rejects_inconsistent_chunks(void)
{
    size_t base = mem_used();
    char *m = gen_new(8192, GEN_LOG, 43);
    lzval *v = lzval_new(m, 8192, 1024), *r;
    const char *d0, *d1;
    size_t s0, r0, s1, r1;
    int c0, c1;

    lzval_chunk_stored(v, 0, &d0, &s0, &r0, &c0);
    lzval_chunk_stored(v, 1, &d1, &s1, &r1, &c1);
    CHECK(c0 && c1);
    /* a short chunk followed by another: chunks of variable length (lzval_splice) load */
    r = lzval_from_chunks_begin(2048);
    CHECK(lzval_from_chunks_add(r, d0, s0, r0, c0) == 0);
    CHECK(lzval_from_chunks_add(r, d1, s1, r1, c1) == 0);
    r = lzval_from_chunks_end(r);
    CHECK(r && lzval_len(r) == 2048 && lzval_nchunks(r) == 2 && sums_ok(r));
    lzval_free(r);
    /* raw length larger than the chunk size, or wrong for the block */
    r = lzval_from_chunks_begin(1024);
    CHECK(lzval_from_chunks_add(r, d0, s0, 1025, c0) == -1);
    CHECK(lzval_from_chunks_end(r) == NULL);
    r = lzval_from_chunks_begin(1024);
    CHECK(lzval_from_chunks_add(r, d0, s0, 1000, c0) == -1);
    CHECK(lzval_from_chunks_add(r, d0, s0, r0, c0) == -1); /* stays rejected */
    CHECK(lzval_from_chunks_end(r) == NULL);
    /* a truncated block, a raw chunk whose stored length differs */
    r = lzval_from_chunks_begin(1024);
    CHECK(lzval_from_chunks_add(r, d0, s0 - 1, r0, c0) == -1);
    CHECK(lzval_from_chunks_end(r) == NULL);
    r = lzval_from_chunks_begin(1024);
    CHECK(lzval_from_chunks_add(r, m, 1000, 1024, 0) == -1);
    CHECK(lzval_from_chunks_end(r) == NULL);
    /* a chunk size out of range */
    r = lzval_from_chunks_begin(100);
    CHECK(lzval_from_chunks_add(r, m, 100, 100, 0) == -1);
    CHECK(lzval_from_chunks_end(r) == NULL);
    lzval_free(v);
    free(m);
    CHECK(mem_used() == base);
}

static void test_corruption(void)
{
    size_t cs = 1024, n = 20 * 1024 + 1000, b, len;
    char *m = gen_new(n, GEN_LOG, 51), *tmp = malloc(n), *mod;
    lzval *v = lzval_new(m, n, cs), *r;
    lzcache *c = lzcache_new(4);
    const char *d;
    size_t stored, raw;
    int comp, pass;

    lzval_chunk_stored(v, 5, &d, &stored, &raw, &comp);
    CHECK(comp);
    CHECK(lzval_read(v, 5 * cs + 10, 100, tmp, c) == 0); /* cached before the corruption */
    CHECK(lzval_debug_corrupt(v, 5) == 0);
    CHECK(lzval_debug_corrupt(v, 21) == -1);
    for (pass = 0; pass < 2; pass++) {
        lzcache *cc = pass ? c : NULL;
        CHECK(lzval_read(v, 5 * cs, 10, tmp, cc) == -1);          /* prefix of the chunk */
        CHECK(lzval_read(v, 5 * cs + 100, 10, tmp, cc) == -1);    /* middle */
        CHECK(lzval_read(v, 5 * cs, cs, tmp, cc) == -1);          /* the whole chunk */
        CHECK(lzval_read(v, 4 * cs + 1000, 3 * cs, tmp, cc) == -1); /* across it */
        CHECK(lzval_read(v, 0, n, tmp, cc) == -1);
        CHECK(lzval_read(v, 4 * cs, cs, tmp, cc) == 0 && memcmp(tmp, m + 4 * cs, cs) == 0);
        CHECK(lzval_read(v, 6 * cs, 2 * cs, tmp, cc) == 0 && memcmp(tmp, m + 6 * cs, 2 * cs) == 0);
        CHECK(lzval_chunk(v, 5, &b, cc) == NULL);
        CHECK(lzval_chunk(v, 4, &b, cc) != NULL);
        CHECK(lzval_char_to_byte(v, model_chars(m, 5 * cs + 7), &b, cc) == -1);
        CHECK(lzval_char_to_byte(v, model_chars(m, 3 * cs + 7), &b, cc) == 0);
        CHECK(lzval_byte_to_char(v, 5 * cs + 7, &b, cc) == -1);
        CHECK(lzval_line_start(v, model_newlines(m, 5 * cs) + 1, &b, cc) == -1);
    }
    /* a change that needs the corrupt bytes fails and leaves the value as it was */
    mod = gen_new(n, GEN_RAND, 52);
    CHECK(lzval_setrange(v, 5 * cs + 10, mod, 10, c) == -1);
    CHECK(lzval_setrange(v, 5 * cs - 10, mod, 20, NULL) == -1);
    CHECK(lzval_len(v) == n);
    CHECK(lzval_read(v, 4 * cs, cs, tmp, NULL) == 0 && memcmp(tmp, m + 4 * cs, cs) == 0);
    CHECK(lzval_read(v, 6 * cs, cs, tmp, NULL) == 0 && memcmp(tmp, m + 6 * cs, cs) == 0);
    /* export then rebuild is refused */
    r = rebuild(v);
    CHECK(r == NULL);
    /* overwriting the whole chunk needs none of its old bytes and repairs it */
    CHECK(lzval_setrange(v, 5 * cs, m + 5 * cs, cs, c) == 0);
    CHECK(same_as_model(v, m, n, c));
    /* corrupt last chunk: append fails, length unchanged */
    lzval_chunk_stored(v, 20, &d, &stored, &raw, &comp);
    CHECK(comp);
    CHECK(lzval_debug_corrupt(v, 20) == 0);
    len = lzval_len(v);
    CHECK(lzval_append(v, m, 10, c) == -1);
    CHECK(lzval_len(v) == len);
    free(mod);
    lzcache_free(c);
    lzval_free(v);
    free(tmp);
    free(m);
}

/* Spoil chunk i's stored bytes behind the value's back (uid unchanged), so that only
 * a read that does not decompress can still succeed. */
static void spoil_behind_back(const lzval *v, size_t i)
{
    const char *d;
    size_t stored, raw;
    int comp;

    lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
    memset((char *)d, 0xFF, stored);
}

static void test_cache_serves_repeated_reads(void)
{
    size_t cs = 1024, n = 10 * 1024, len;
    char *m = gen_new(n, GEN_LOG, 61), tmp[2048];
    lzval *v = lzval_new(m, n, cs);
    lzcache *c = lzcache_new(4), *other = lzcache_new(4);
    const char *p1, *p2;

    CHECK(lzval_read(v, 3 * cs + 100, 200, tmp, c) == 0);
    p1 = lzval_chunk(v, 3, &len, c);
    spoil_behind_back(v, 3);
    CHECK(lzval_read(v, 3 * cs + 100, 200, tmp, c) == 0 && memcmp(tmp, m + 3 * cs + 100, 200) == 0);
    CHECK(lzval_read(v, 3 * cs, cs, tmp, c) == 0 && memcmp(tmp, m + 3 * cs, cs) == 0);
    p2 = lzval_chunk(v, 3, &len, c);
    CHECK(p2 == p1 && len == cs && memcmp(p2, m + 3 * cs, cs) == 0);
    CHECK(lzval_byte_to_char(v, 3 * cs + 9, &len, c) == 0 && len == 3 * cs + 9);
    CHECK(lzval_read(v, 3 * cs + 100, 200, tmp, NULL) == -1);
    CHECK(lzval_read(v, 3 * cs + 100, 200, tmp, other) == -1);
    /* LRU: four more chunks push chunk 3 out */
    CHECK(lzval_read(v, 0, 4, tmp, c) == 0 && lzval_read(v, cs + 1, 4, tmp, c) == 0);
    CHECK(lzval_read(v, 2 * cs + 1, 4, tmp, c) == 0 && lzval_read(v, 4 * cs + 1, 4, tmp, c) == 0);
    CHECK(lzval_read(v, 3 * cs + 100, 200, tmp, c) == -1);
    lzcache_free(other);
    lzcache_free(c);
    lzval_free(v);
    free(m);
}

static void test_cache_never_stale(void)
{
    size_t cs = 1024, n = 8 * 1024 + 100, len;
    char *m = gen_new(n + 4096, GEN_LOG, 71), *alt = gen_new(n, GEN_UTF8, 72), *tmp = malloc(n + 4096);
    lzval *v = lzval_new(m, n, cs), *a, *b, *d;
    lzcache *c = lzcache_new(4), *other = lzcache_new(4);
    const char *p;
    void *addr;

    /* after append: the tail, read before through both caches, is new */
    CHECK(lzval_read(v, n - 50, 50, tmp, c) == 0 && lzval_read(v, n - 50, 50, tmp, other) == 0);
    CHECK(lzval_read(v, 2 * cs + 5, 50, tmp, c) == 0);
    CHECK(lzval_append(v, m + n, 2000, c) == 0);
    CHECK(lzval_read(v, n - 50, 2050, tmp, c) == 0 && memcmp(tmp, m + n - 50, 2050) == 0);
    CHECK(lzval_read(v, n - 50, 2050, tmp, other) == 0 && memcmp(tmp, m + n - 50, 2050) == 0);
    CHECK(lzval_read(v, 2 * cs + 5, 50, tmp, c) == 0 && memcmp(tmp, m + 2 * cs + 5, 50) == 0);
    n += 2000;
    /* after setrange: the overwritten bytes are new in every cache */
    CHECK(lzval_read(v, 4 * cs, cs, tmp, c) == 0 && lzval_chunk(v, 4, &len, other) != NULL);
    CHECK(lzval_setrange(v, 4 * cs + 10, alt, 30, c) == 0);
    memcpy(m + 4 * cs + 10, alt, 30);
    CHECK(lzval_read(v, 4 * cs, cs, tmp, c) == 0 && memcmp(tmp, m + 4 * cs, cs) == 0);
    p = lzval_chunk(v, 4, &len, other);
    CHECK(p && len == cs && memcmp(p, m + 4 * cs, cs) == 0);
    CHECK(lzval_setrange(v, 4 * cs + 10, alt + 100, 30, NULL) == 0);
    memcpy(m + 4 * cs + 10, alt + 100, 30);
    CHECK(same_as_model(v, m, n, c) && same_as_model(v, m, n, other));
    /* after free and new, likely at the same address */
    a = lzval_new(m, 5000, cs);
    CHECK(lzval_read(a, 0, 5000, tmp, c) == 0 && lzval_read(a, 10, 100, tmp, c) == 0);
    addr = a;
    lzval_free(a);
    b = lzval_new(alt, 5000, cs);
    if ((void *)b != addr)
        fprintf(stderr, "    note: the new value did not reuse the freed address\n");
    CHECK(lzval_read(b, 10, 100, tmp, c) == 0 && memcmp(tmp, alt + 10, 100) == 0);
    CHECK(same_as_model(b, alt, 5000, c));
    /* a copy has its own id; changing it leaves the original's cached chunks right */
    d = lzval_dup(b);
    CHECK(lzval_setrange(d, 10, m, 100, c) == 0);
    CHECK(lzval_read(b, 10, 100, tmp, c) == 0 && memcmp(tmp, alt + 10, 100) == 0);
    CHECK(lzval_read(d, 10, 100, tmp, c) == 0 && memcmp(tmp, m, 100) == 0);
    lzval_free(d);
    lzval_free(b);
    lzcache_free(other);
    lzcache_free(c);
    lzval_free(v);
    free(tmp);
    free(alt);
    free(m);
}

static void test_chunk_access(void)
{
    size_t cs = 4096, n = 10 * 4096 + 77, i, len;
    char *m = gen_new(n, GEN_LOG, 81);
    lzval *v;
    lzcache *c = lzcache_new(1);
    const char *p;
    int bad = 0;

    gen(m + 2 * 4096, 4096, GEN_RAND, 82); /* chunk 2 stored raw */
    v = lzval_new(m, n, cs);
    for (i = 0; i < lzval_nchunks(v); i++) {
        size_t want = i + 1 < lzval_nchunks(v) ? cs : n - i * cs;
        p = lzval_chunk(v, i, &len, NULL);
        bad += !p || len != want || memcmp(p, m + i * cs, len) != 0;
        p = lzval_chunk(v, i, &len, c);
        bad += !p || len != want || memcmp(p, m + i * cs, len) != 0;
    }
    CHECK(bad == 0);
    CHECK(lzval_chunk(v, lzval_nchunks(v), &len, c) == NULL && len == 0);
    /* appending a chunk's bytes to its own value (aliasing the source) */
    p = lzval_chunk(v, 2, &len, NULL);
    {
        char *m2 = malloc(n + 2 * cs);
        memcpy(m2, m, n);
        memcpy(m2 + n, m + 2 * cs, cs);
        CHECK(lzval_append(v, p, len, c) == 0);
        memcpy(m2 + 2 * cs + 100, m + 2 * cs, cs);
        p = lzval_chunk(v, 2, &len, NULL);
        CHECK(lzval_setrange(v, 2 * cs + 100, p, len, NULL) == 0);
        CHECK(same_as_model(v, m2, n + cs, c));
        free(m2);
    }
    lzcache_free(c);
    lzval_free(v);
    free(m);
}

static void test_changes_touch_only_their_chunks(void)
{
    size_t cs = 4096, n = 100 * 4096 + 1000, i, nch;
    char *m = gen_new(n + 1024, GEN_LOG, 91);
    lzval *v = lzval_new(m, n, cs);
    const char **before;
    const char *d;
    size_t stored, raw;
    int comp, bad = 0;

    nch = lzval_nchunks(v);
    before = malloc(nch * sizeof(*before));
    for (i = 0; i < nch; i++)
        lzval_chunk_stored(v, i, &before[i], &stored, &raw, &comp);
    CHECK(lzval_append(v, m + n, 1024, NULL) == 0);
    CHECK(lzval_nchunks(v) == nch);
    for (i = 0; i + 1 < nch; i++) {
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        bad += d != before[i];
    }
    CHECK(lzval_setrange(v, 50 * cs + 10, "hello", 5, NULL) == 0);
    for (i = 0; i + 1 < nch; i++) {
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        bad += i != 50 && d != before[i];
    }
    CHECK(bad == 0);
    memcpy(m + 50 * cs + 10, "hello", 5);
    CHECK(same_as_model(v, m, n + 1024, NULL));
    free(before);
    lzval_free(v);
    free(m);
}

static void test_dup_is_independent(void)
{
    size_t n = 30000;
    char *m = gen_new(n, GEN_UTF8, 101);
    lzval *v = lzval_new(m, n, 1024), *d = lzval_dup(v);

    CHECK(same_as_model(d, m, n, NULL));
    CHECK(lzval_stored(d) < lzval_stored(v) + lzval_stored(v) / 20);
    CHECK(lzval_stored(v) < lzval_stored(d) + lzval_stored(d) / 20);
    CHECK(lzval_setrange(d, 0, "XYZ", 3, NULL) == 0 && lzval_append(d, "tail", 4, NULL) == 0);
    CHECK(same_as_model(v, m, n, NULL));
    lzval_free(v);
    CHECK(lzval_len(d) == n + 4);
    lzval_free(d);
    free(m);
}

static void test_read_counter_per_second(void)
{
    size_t n = 20000;
    char *m = gen_new(n, GEN_UTF8, 102);
    lzval *v = lzval_new(m, n, 65536), *d;

    CHECK(lzval_note_read(v, 100) == 1);
    CHECK(lzval_note_read(v, 100) == 2);
    CHECK(lzval_note_read(v, 100) == 3);
    CHECK(lzval_note_read(v, 101) == 1); /* a new second starts again */
    CHECK(lzval_note_read(v, 101) == 2);
    d = lzval_dup(v);
    CHECK(lzval_note_read(d, 101) == 1); /* a copy starts at 0 */
    CHECK(lzval_note_read(v, 100) == 1); /* any other second, earlier too */
    CHECK(same_as_model(v, m, n, NULL)); /* counting changes nothing else */
    lzval_free(d);
    lzval_free(v);
    free(m);
}

static void test_memory_returns_to_baseline(void)
{
    size_t base = mem_used(), n = 500000, b;
    char *m = gen_new(n, GEN_UTF8, 111), *tmp = malloc(n);
    lzcache *c = lzcache_new(8);
    lzval *v = lzval_new(m, 200000, 4096), *d, *r;

    CHECK(mem_used() > base);
    CHECK(lzval_append(v, m + 200000, 300000, c) == 0);
    CHECK(lzval_setrange(v, 1000, m, 50000, c) == 0);
    CHECK(lzval_read(v, 12345, 60000, tmp, c) == 0);
    CHECK(lzval_char_to_byte(v, 99999, &b, c) == 0 && lzval_line_start(v, 77, &b, NULL) == 0);
    d = lzval_dup(v);
    r = rebuild(d);
    CHECK(r != NULL);
    CHECK(lzval_debug_corrupt(d, 3) == 0);
    CHECK(rebuild(d) == NULL);
    lzval_free(r);
    lzval_free(d);
    lzval_free(v);
    lzcache_free(c);
    CHECK(mem_used() == base);
    free(tmp);
    free(m);
}

/* ---- sub-blocks, the raw tail, seal, and the frame form ---- */

static uint32_t rd32(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

/* Walk the blocks of a stored frame (as lzval.h describes it; the header is 11
 * bytes with the DictID flag, else 7): *nblocks gets their count; returns 1 if
 * the last block is stored raw, 0 if it is LZ4, -1 if the walk does not end
 * exactly on the end mark. */
static int frame_last_raw(const char *d, size_t stored, size_t *nblocks)
{
    size_t pos = (d[4] & 1) ? 11 : 7, n = 0;
    int last = -1;

    while (pos + 4 <= stored) {
        uint32_t h = rd32(d + pos);
        if (h == 0)
            break;
        last = (int)(h >> 31);
        pos += 4 + (h & 0x7FFFFFFFu);
        n++;
    }
    *nblocks = n;
    return pos + 4 == stored && n > 0 ? last : -1;
}

/* 1 if the stored form of a chunk gives exactly m[0..raw): a plain chunk as is,
 * a frame through the standard LZ4 frame decoder, given dict[0..dn) as the
 * dictionary (dn == 0: none). */
static int stored_decodes_to(const char *d, size_t stored, int comp, const char *m, size_t raw,
                             const char *dict, size_t dn)
{
    LZ4F_dctx *dc = NULL;
    char *out;
    size_t src = stored, dst = raw + 16, r;
    int ok;

    if (!comp)
        return stored == raw && memcmp(d, m, raw) == 0;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)))
        return 0;
    out = malloc(raw + 16);
    r = LZ4F_decompress_usingDict(dc, out, &dst, d, &src, dict, dn, NULL);
    ok = !LZ4F_isError(r) && r == 0 && src == stored && dst == raw && memcmp(out, m, raw) == 0;
    free(out);
    LZ4F_freeDecompressionContext(dc);
    return ok;
}

/* Every stored chunk of v from chunk `from` on decodes to its slice of m, with
 * the first lzval_dict(v) bytes of m as the dictionary. */
/* The bytes v's LZ4 blocks use as dictionary, for a standard decoder: the
 * detached ones, or the value's first lzval_dict(v) bytes, m's. */
static const char *dict_bytes(const lzval *v, const char *m)
{
    size_t dn;
    const char *x = lzval_detached_dict(v, &dn);

    return x ? x : m;
}

static int stored_chunks_ok(const lzval *v, const char *m, size_t from)
{
    size_t cs = lzval_chunk_size(v), i;
    int ok = 1;

    for (i = from; ok && i < lzval_nchunks(v); i++) {
        const char *d;
        size_t stored, raw;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        ok = stored_decodes_to(d, stored, comp, m + i * cs, raw, dict_bytes(v, m), lzval_dict(v));
    }
    return ok;
}

/* 1 if the last chunk of v is a frame whose last block is stored raw. */
static int has_raw_tail(const lzval *v)
{
    const char *d;
    size_t stored, raw, nb;
    int comp;

    if (!lzval_nchunks(v))
        return 0;
    lzval_chunk_stored(v, lzval_nchunks(v) - 1, &d, &stored, &raw, &comp);
    return comp && frame_last_raw(d, stored, &nb) == 1;
}

static void test_appends_raw_tail_every_step(void)
{
    static const size_t chunks[] = {65536, 20000, 4096};
    size_t ci, total = 250000, start = 30000;
    int kind;

    for (kind = GEN_LOG; kind <= GEN_RAND; kind += GEN_RAND - GEN_LOG)
        for (ci = 0; ci < 3; ci++) {
            size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, len = start, step = 0;
            char *m = gen_new(total, kind, 400 + ci);
            lzval *v = lzval_new(m, start, cs);
            lzcache *c = lzcache_new(4);
            int bad = 0, tails = 0;

            CHECK(!has_raw_tail(v) || kind == GEN_RAND); /* lzval_new compresses the tail */
            rng_seed(500 + ci);
            while (len < total) {
                size_t n = step % 23 == 0 ? rng_below(70000) : step % 5 == 0 ? rng_below(9000) : 1 + rng_below(1500);
                size_t nch_before = lzval_nchunks(v);
                if (n > total - len)
                    n = total - len;
                bad += lzval_append(v, m + len, n, (step & 1) ? c : NULL) != 0;
                len += n;
                bad += !same_as_model(v, m, len, step % 3 ? c : NULL);
                bad += !stored_chunks_ok(v, m, nch_before ? nch_before - 1 : 0);
                if (kind == GEN_LOG && (len % cs) % sub != 0) {
                    bad += !has_raw_tail(v);
                    tails++;
                }
                step++;
            }
            CHECK(bad == 0);
            CHECK(kind == GEN_RAND || tails > 50);
            CHECK(stored_chunks_ok(v, m, 0));
            CHECK(same_as_model(v, m, total, NULL));
            lzcache_free(c);
            lzval_free(v);
            free(m);
        }
}

static void test_seal(void)
{
    size_t cs = 65536, n = 300000 + 1234, k, i, nch;
    char *m = gen_new(n + 4096, GEN_UTF8, 601), tmp[4096];
    char *rnd = gen_new(cs + 5000, GEN_RAND, 602);
    lzval *a = lzval_new(m, n, cs), *w = lzval_new(NULL, 0, cs), *e, *r;
    lzcache *c = lzcache_new(4);
    size_t stored_tail, stored_sealed;
    int bad = 0;

    for (k = 0; k < n; k += 1000)
        bad += lzval_append(w, m + k, n - k < 1000 ? n - k : 1000, c) != 0;
    CHECK(bad == 0);
    nch = lzval_nchunks(w);
    CHECK(!has_raw_tail(a) && has_raw_tail(w));
    stored_tail = lzval_stored(w);
    CHECK(stored_tail > lzval_stored(a));
    CHECK(stored_tail <= lzval_stored(a) + 64 * nch + 3 * SUB);
    CHECK(lzval_read(w, n - 3000, 3000, tmp, c) == 0 && memcmp(tmp, m + n - 3000, 3000) == 0);
    lzval_seal(w);
    stored_sealed = lzval_stored(w);
    CHECK(!has_raw_tail(w));
    CHECK(stored_sealed < stored_tail);
    CHECK(stored_sealed <= lzval_stored(a) + 64 * nch && lzval_stored(a) <= stored_sealed + 64 * nch);
    CHECK(same_as_model(w, m, n, c) && same_as_model(w, m, n, NULL));
    /* sealed appends store exactly what lzval_new stores */
    for (i = 0; i < nch; i++) {
        const char *d1, *d2;
        size_t s1, s2, r1, r2;
        int c1, c2;
        lzval_chunk_stored(a, i, &d1, &s1, &r1, &c1);
        lzval_chunk_stored(w, i, &d2, &s2, &r2, &c2);
        bad += s1 != s2 || r1 != r2 || c1 != c2 || memcmp(d1, d2, s1) != 0;
    }
    CHECK(bad == 0);
    lzval_seal(w);
    CHECK(lzval_stored(w) == stored_sealed);
    /* appending after a seal reopens the tail */
    CHECK(lzval_append(w, m + n, 777, c) == 0);
    CHECK(has_raw_tail(w));
    CHECK(same_as_model(w, m, n + 777, c) && stored_chunks_ok(w, m, 0));
    /* an empty value, and a value ending on a full plain chunk: nothing to seal */
    e = lzval_new(NULL, 0, cs);
    lzval_seal(e);
    CHECK(lzval_len(e) == 0 && lzval_nchunks(e) == 0);
    CHECK(lzval_append(e, rnd, cs, NULL) == 0);
    stored_tail = lzval_stored(e);
    lzval_seal(e);
    CHECK(lzval_stored(e) == stored_tail && same_as_model(e, rnd, cs, NULL));
    /* an incompressible tail stays raw through seal, and still round-trips */
    CHECK(lzval_append(e, rnd + cs, 5000, c) == 0);
    lzval_seal(e);
    CHECK(has_raw_tail(e) && same_as_model(e, rnd, cs + 5000, c));
    r = rebuild(e);
    CHECK(r && same_as_model(r, rnd, cs + 5000, NULL));
    lzval_free(r);
    lzval_free(e);
    lzcache_free(c);
    lzval_free(w);
    lzval_free(a);
    free(rnd);
    free(m);
}

/* Rebuild v's chunks into a new value, the last one replaced by last[0..stored). */
static lzval *rebuild_with_last(const lzval *v, const char *last, size_t stored, size_t raw)
{
    lzval *r = lzval_from_chunks_begin(lzval_chunk_size(v));
    size_t i, nch = lzval_nchunks(v), dn;
    const char *dict = lzval_detached_dict(v, &dn);

    if (dict)
        lzval_from_chunks_dict(r, dict, dn);
    for (i = 0; i + 1 < nch; i++) {
        const char *d;
        size_t s, rl;
        int comp;
        lzval_chunk_stored(v, i, &d, &s, &rl, &comp);
        lzval_from_chunks_add(r, d, s, rl, comp);
    }
    lzval_from_chunks_add(r, last, stored, raw, 1);
    return lzval_from_chunks_end(r);
}

static void test_export_rebuild_raw_tail(void)
{
    size_t base = mem_used(), cs = 65536, n = 4 * cs + 3 * SUB + 1500, k, i, nb, stored, raw;
    char *m = gen_new(n + 10000, GEN_LOG, 701), *rnd = gen_new(cs, GEN_RAND, 702), *bufc;
    lzval *v = lzval_new(NULL, 0, cs), *r;
    const char *d;
    int comp, bad = 0;

    memcpy(m + cs, rnd, cs); /* chunk 1 is plain */
    for (k = 0; k < n; k += 1500)
        CHECK(lzval_append(v, m + k, n - k < 1500 ? n - k : 1500, NULL) == 0);
    CHECK(has_raw_tail(v));
    CHECK(stored_chunks_ok(v, m, 0));
    lzval_chunk_stored(v, 1, &d, &stored, &raw, &comp);
    CHECK(!comp && stored == cs);
    lzval_chunk_stored(v, 4, &d, &stored, &raw, &comp);
    CHECK(comp && raw == 3 * SUB + 1500 && frame_last_raw(d, stored, &nb) == 1 && nb == 4);
    r = rebuild(v);
    CHECK(r != NULL);
    CHECK(same_as_model(r, m, n, NULL));
    for (i = 0; i < lzval_nchunks(v); i++) {
        const char *d2;
        size_t stored2, raw2;
        int comp2;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        lzval_chunk_stored(r, i, &d2, &stored2, &raw2, &comp2);
        bad += stored != stored2 || raw != raw2 || comp != comp2 || memcmp(d, d2, stored) != 0;
    }
    CHECK(bad == 0);
    /* both go on as normal values, and agree again */
    CHECK(lzval_append(v, m + n, 10000, NULL) == 0 && lzval_append(r, m + n, 10000, NULL) == 0);
    CHECK(same_as_model(v, m, n + 10000, NULL) && same_as_model(r, m, n + 10000, NULL));
    lzval_free(r);
    lzval_free(v);

    /* a frame that is not exactly the layout for its raw length is refused */
    v = lzval_new(NULL, 0, cs);
    CHECK(lzval_append(v, m, n, NULL) == 0);
    lzval_chunk_stored(v, 4, &d, &stored, &raw, &comp);
    bufc = malloc(stored + 8);
    memcpy(bufc, d, stored);
    r = rebuild_with_last(v, bufc, stored, raw);
    CHECK(r != NULL && same_as_model(r, m, n, NULL)); /* the copy itself is fine */
    lzval_free(r);
    CHECK(rebuild_with_last(v, bufc, stored, raw - 1) == NULL);  /* raw tail longer than said */
    CHECK(rebuild_with_last(v, bufc, stored, raw + 1) == NULL);
    CHECK(rebuild_with_last(v, bufc, stored - 4, raw) == NULL);  /* no end mark */
    bufc[stored] = 0;
    CHECK(rebuild_with_last(v, bufc, stored + 1, raw) == NULL);  /* a byte past the end mark */
    bufc[5] ^= 0x10;                                             /* block maximum in the header */
    CHECK(rebuild_with_last(v, bufc, stored, raw) == NULL);
    bufc[5] ^= 0x10;
    bufc[10] ^= (char)0x80; /* the first block, LZ4, claims to be raw */
    CHECK(rebuild_with_last(v, bufc, stored, raw) == NULL);
    bufc[10] ^= (char)0x80;
    r = rebuild_with_last(v, bufc, stored, raw);
    CHECK(r != NULL);
    lzval_free(r);
    free(bufc);
    lzval_free(v);
    /* a plain incomplete last chunk (raw bytes, as a log writer may store them)
     * is accepted, and an append turns it into a frame with a raw tail */
    v = lzval_from_chunks_begin(cs);
    CHECK(lzval_from_chunks_add(v, m + 2 * cs, cs, cs, 0) == 0);
    CHECK(lzval_from_chunks_add(v, m + 3 * cs, 2 * SUB + 100, 2 * SUB + 100, 0) == 0);
    v = lzval_from_chunks_end(v);
    CHECK(v != NULL && same_as_model(v, m + 2 * cs, cs + 2 * SUB + 100, NULL));
    CHECK(lzval_append(v, m + 3 * cs + 2 * SUB + 100, 30000, NULL) == 0);
    CHECK(has_raw_tail(v));
    CHECK(same_as_model(v, m + 2 * cs, cs + 2 * SUB + 30100, NULL) && stored_chunks_ok(v, m + 2 * cs, 0));
    lzval_chunk_stored(v, 1, &d, &stored, &raw, &comp);
    CHECK(comp && frame_last_raw(d, stored, &nb) == 1 && nb == 6);
    CHECK(stored < raw / 2); /* the complete sub-blocks got compressed */
    lzval_free(v);
    free(rnd);
    free(m);
    CHECK(mem_used() == base);
}

/* For a value of chunks of cs bytes (8 sub-blocks each) and content m whose
 * chunk 2 the test hook spoiled: every read touching chunk 2 fails through cc
 * (NULL, or a cache that held its decoded bytes before), a byte lookup in it
 * fails, and its neighbours read right. Returns 1 if all of that holds. */
static int chunk2_corrupt_reads_fail(lzval *v, const char *m, size_t cs, char *tmp, lzcache *cc)
{
    size_t j, b;
    int bad = 0;

    for (j = 0; j < 8; j++) {
        bad += lzval_read(v, 2 * cs + j * SUB, 10, tmp, cc) != -1;
        bad += lzval_read(v, 2 * cs + j * SUB + 100, 50, tmp, cc) != -1;
        bad += lzval_read(v, 2 * cs + j * SUB, SUB, tmp, cc) != -1;
    }
    bad += lzval_read(v, cs, cs, tmp, cc) != 0 || memcmp(tmp, m + cs, cs) != 0;
    bad += lzval_read(v, 3 * cs, cs, tmp, cc) != 0 || memcmp(tmp, m + 3 * cs, cs) != 0;
    bad += lzval_chunk(v, 2, &b, cc) != NULL;
    bad += lzval_byte_to_char(v, 2 * cs + 5 * SUB + 9, &b, cc) != -1;
    return bad == 0;
}

static void test_corruption_sub_blocks(void)
{
    size_t cs = 65536, n = 5 * cs + 20000, j, b, len;
    char *m = gen_new(n, GEN_LOG, 801), *tmp = malloc(2 * cs), *mod = gen_new(SUB, GEN_RAND, 802);
    lzval *v = lzval_new(m, n, cs), *w;
    lzcache *c = lzcache_new(4);
    int pass;

    CHECK(lzval_read(v, 2 * cs + 3 * SUB + 5, 100, tmp, c) == 0); /* cached before */
    CHECK(lzval_debug_corrupt(v, 2) == 0);
    for (pass = 0; pass < 2; pass++) {
        lzcache *cc = pass ? c : NULL;
        CHECK(chunk2_corrupt_reads_fail(v, m, cs, tmp, cc));
        CHECK(lzval_read(v, 2 * cs - 10, 20, tmp, cc) == -1);
        CHECK(lzval_char_to_byte(v, model_chars(m, 2 * cs + 6 * SUB + 3), &b, cc) == -1);
        CHECK(lzval_line_start(v, model_newlines(m, 2 * cs + 7 * SUB) + 1, &b, cc) == -1);
        CHECK(lzval_line_start(v, model_newlines(m, 3 * cs) + 1, &b, cc) == 0);
    }
    CHECK(rebuild(v) == NULL);
    /* a partial overwrite of a corrupt sub-block fails and changes nothing */
    CHECK(lzval_setrange(v, 2 * cs + SUB + 10, mod, 10, c) == -1);
    CHECK(lzval_setrange(v, 2 * cs - 100, mod, 200, NULL) == -1);
    CHECK(lzval_len(v) == n);
    CHECK(lzval_read(v, cs, cs, tmp, NULL) == 0 && memcmp(tmp, m + cs, cs) == 0);
    /* overwriting one whole sub-block needs none of its bytes: it alone is repaired */
    CHECK(lzval_setrange(v, 2 * cs + SUB, m + 2 * cs + SUB, SUB, c) == 0);
    CHECK(lzval_read(v, 2 * cs + SUB, SUB, tmp, NULL) == 0 && memcmp(tmp, m + 2 * cs + SUB, SUB) == 0);
    CHECK(lzval_read(v, 2 * cs + SUB + 100, 50, tmp, c) == 0 && memcmp(tmp, m + 2 * cs + SUB + 100, 50) == 0);
    CHECK(lzval_read(v, 2 * cs + 100, 50, tmp, c) == -1);
    CHECK(lzval_read(v, 2 * cs + 2 * SUB + 100, 50, tmp, NULL) == -1);
    CHECK(lzval_setrange(v, 2 * cs, m + 2 * cs, cs, NULL) == 0);
    CHECK(same_as_model(v, m, n, c) && stored_chunks_ok(v, m, 0));
    /* a corrupt compressed tail: the append that must reopen it fails, v unchanged */
    CHECK(lzval_debug_corrupt(v, 5) == 0);
    CHECK(lzval_append(v, "more", 4, c) == -1);
    CHECK(lzval_len(v) == n && lzval_nchunks(v) == 6);
    CHECK(lzval_read(v, 4 * cs, cs, tmp, c) == 0 && memcmp(tmp, m + 4 * cs, cs) == 0);
    /* a frame spoiled whole (headers too) is refused, never read out of bounds */
    w = lzval_new(m, 3 * cs, cs);
    spoil_behind_back(w, 1);
    for (j = 0; j < 8; j++)
        CHECK(lzval_read(w, cs + j * SUB + 7, 100, tmp, NULL) == -1);
    CHECK(lzval_read(w, 0, cs, tmp, NULL) == 0 && memcmp(tmp, m, cs) == 0);
    CHECK(lzval_read(w, 2 * cs, cs, tmp, c) == 0 && memcmp(tmp, m + 2 * cs, cs) == 0);
    CHECK(lzval_chunk(w, 1, &len, c) == NULL);
    CHECK(rebuild(w) == NULL);
    lzval_free(w);
    lzcache_free(c);
    lzval_free(v);
    free(mod);
    free(tmp);
    free(m);
}

static void test_cache_serves_only_decoded_bytes(void)
{
    size_t cs = 65536;
    char *m = gen_new(3 * cs, GEN_LOG, 901), tmp[512];
    lzval *v = lzval_new(m, 3 * cs, cs);
    lzcache *c = lzcache_new(4);

    CHECK(lzval_read(v, cs + 100, 200, tmp, c) == 0);
    spoil_behind_back(v, 1);
    CHECK(lzval_read(v, cs + 100, 200, tmp, c) == 0 && memcmp(tmp, m + cs + 100, 200) == 0);
    CHECK(lzval_read(v, cs + 50, 100, tmp, c) == 0 && memcmp(tmp, m + cs + 50, 100) == 0);
    CHECK(lzval_read(v, cs + 250, 100, tmp, c) == -1); /* past what was decoded */
    CHECK(lzval_read(v, cs + SUB + 5, 10, tmp, c) == -1); /* another sub-block */
    lzcache_free(c);
    lzval_free(v);
    free(m);
}

static void test_lookups_sub_blocks(void)
{
    static const size_t chunks[] = {65536, 20000};
    size_t ci;

    for (ci = 0; ci < 2; ci++) {
        size_t cs = chunks[ci], n = 3 * cs + 5000, i, ch, nl, b, k;
        char *m = utf8_cut_text(n, SUB); /* characters cut at every sub-block boundary */
        size_t *cpos = malloc((n + 1) * sizeof(size_t)), *lpos = malloc((n + 2) * sizeof(size_t));
        size_t *before = malloc((n + 1) * sizeof(size_t));
        lzval *v = lzval_new(m, 2 * cs + 100, cs);
        lzcache *c = lzcache_new(3);
        int bad = 0, pass;

        for (k = 2 * cs + 100; k < n; k += 3333) /* the rest by appends: a raw tail */
            bad += lzval_append(v, m + k, n - k < 3333 ? n - k : 3333, c) != 0;
        ch = model_positions(m, n, cpos, lpos, before, &nl);
        CHECK(has_raw_tail(v));
        CHECK(ch == lzval_chars(v) && nl == lzval_newlines(v) && ch < n);
        for (pass = 0; pass < 2; pass++) {
            lzcache *cc = pass ? c : NULL;
            size_t step = pass ? 7 : 211;
            for (i = 0; i <= ch; i += (i % SUB < 8 || i + 8 > ch) ? 1 : step)
                bad += lzval_char_to_byte(v, i, &b, cc) != 0 || b != cpos[i];
            for (i = 0; i <= n; i += (i % SUB < 8 || i % SUB > SUB - 8 || i + 8 > n) ? 1 : step)
                bad += lzval_byte_to_char(v, i, &b, cc) != 0 || b != before[i];
            for (i = 0; i <= nl; i++)
                bad += lzval_line_start(v, i, &b, cc) != 0 || b != lpos[i];
        }
        CHECK(bad == 0);
        lzcache_free(c);
        lzval_free(v);
        free(before);
        free(lpos);
        free(cpos);
        free(m);
    }
}

static void test_setrange_sub_blocks(void)
{
    static const size_t chunks[] = {65536, 20000};
    size_t ci, k;

    for (ci = 0; ci < 2; ci++) {
        size_t cs = chunks[ci], len = 2 * cs + 3 * SUB + 77, cap = 6 * cs;
        char *m = malloc(cap), *src = gen_new(cap, GEN_UTF8, 1001 + ci), *rnd = gen_new(cap, GEN_RAND, 1003);
        lzval *v;
        lzcache *c = lzcache_new(3);
        int bad = 0;

        gen(m, len, GEN_LOG, 1005 + ci);
        v = lzval_new(m, len, cs);
        /* extending from a compressed tail, then from a raw one */
        CHECK(lzval_setrange(v, len - 10, src, 500, c) == 0);
        memcpy(m + len - 10, src, 500);
        len += 490;
        CHECK(has_raw_tail(v) && same_as_model(v, m, len, NULL));
        CHECK(lzval_setrange(v, len - 3, src + 900, 2 * SUB, NULL) == 0);
        memcpy(m + len - 3, src + 900, 2 * SUB);
        len += 2 * SUB - 3;
        CHECK(same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0));
        rng_seed(1007 + ci);
        for (k = 0; k < 300; k++) {
            size_t off = rng_below(len + 1), n = k % 10 == 0 ? rng_below(3 * SUB) : rng_below(300);
            const char *p = (k % 3) ? src + rng_below(cap - n) : rnd + rng_below(cap - n);
            if (off + n > cap)
                n = cap - off;
            bad += lzval_setrange(v, off, p, n, (k & 1) ? c : NULL) != 0;
            memcpy(m + off, p, n);
            if (off + n > len)
                len = off + n;
            if (k % 10 == 0)
                bad += !same_as_model(v, m, len, c) || !stored_chunks_ok(v, m, 0);
        }
        CHECK(bad == 0);
        CHECK(same_as_model(v, m, len, NULL) && stored_chunks_ok(v, m, 0));
        lzcache_free(c);
        lzval_free(v);
        free(rnd);
        free(src);
        free(m);
    }
}

static void test_memory_baseline_raw_tail(void)
{
    size_t base = mem_used(), cs = 65536, n = 400000, k;
    char *m = gen_new(n, GEN_LOG, 1101), tmp[3000];
    lzcache *c = lzcache_new(4);
    lzval *v = lzval_new(m, 70000, cs), *d, *r;

    for (k = 70000; k + 1200 <= 300000; k += 1200)
        CHECK(lzval_append(v, m + k, 1200, c) == 0);
    CHECK(lzval_read(v, 123456, 3000, tmp, c) == 0 && lzval_read(v, 5, 3000, tmp, NULL) == 0);
    d = lzval_dup(v); /* a copy of a value with a raw tail */
    CHECK(lzval_append(d, m, 5000, NULL) == 0);
    lzval_seal(v);
    CHECK(lzval_append(v, m + 300000, 4321, c) == 0);
    CHECK(lzval_setrange(v, 100000, m, 20000, c) == 0);
    r = rebuild(d);
    CHECK(r != NULL);
    CHECK(lzval_debug_corrupt(r, lzval_nchunks(r) - 2) == 0);
    CHECK(lzval_setrange(r, (lzval_nchunks(r) - 2) * cs + 9, "x", 1, c) == -1);
    lzval_free(r);
    lzval_free(d);
    lzval_free(v);
    lzcache_free(c);
    CHECK(mem_used() == base);
    free(m);
}

static void test_cache_forgets_rewritten_sub_blocks(void)
{
    size_t cs = 65536, n = 3 * cs + 5000, j, len;
    char *m = gen_new(n + 20000, GEN_LOG, 951), *alt = gen_new(4 * SUB, GEN_UTF8, 952), tmp[600];
    lzval *v = lzval_new(m, n, cs);
    lzcache *c = lzcache_new(8);
    int bad = 0, k;

    /* every sub-block decoded in the cache: windows twice, and whole chunks */
    for (j = 0; j * SUB < n; j++)
        for (k = 0; k < 2; k++)
            bad += lzval_read(v, j * SUB + 10 + 100 * (size_t)k, 50, tmp, c) != 0;
    CHECK(lzval_chunk(v, 1, &len, c) != NULL && lzval_chunk(v, 3, &len, c) != NULL);
    CHECK(bad == 0);
    /* inside a compressed sub-block, across two, and over a whole one */
    CHECK(lzval_setrange(v, cs + SUB + 100, alt, 50, c) == 0);
    memcpy(m + cs + SUB + 100, alt, 50);
    CHECK(lzval_setrange(v, 2 * SUB - 30, alt + 100, 60, c) == 0);
    memcpy(m + 2 * SUB - 30, alt + 100, 60);
    CHECK(lzval_setrange(v, 2 * cs + 3 * SUB, alt + 200, SUB, c) == 0);
    memcpy(m + 2 * cs + 3 * SUB, alt + 200, SUB);
    for (j = 0; j * SUB < n; j++)
        for (k = 0; k < 2; k++) {
            size_t off = j * SUB + 10 + 100 * (size_t)k;
            bad += lzval_read(v, off, 500, tmp, c) != 0 || memcmp(tmp, m + off, 500) != 0;
        }
    bad += lzval_read(v, cs + SUB + 90, 70, tmp, c) != 0 || memcmp(tmp, m + cs + SUB + 90, 70) != 0;
    bad += lzval_read(v, 2 * SUB - 40, 80, tmp, c) != 0 || memcmp(tmp, m + 2 * SUB - 40, 80) != 0;
    CHECK(bad == 0);
    /* the raw tail, copied into the cache by lzval_chunk, then appended and overwritten */
    CHECK(lzval_append(v, m + n, 3000, c) == 0);
    n += 3000;
    CHECK(lzval_chunk(v, 3, &len, c) != NULL && len == n - 3 * cs);
    CHECK(lzval_setrange(v, n - 50, alt + 300, 20, c) == 0);
    memcpy(m + n - 50, alt + 300, 20);
    CHECK(lzval_read(v, n - 60, 40, tmp, c) == 0 && memcmp(tmp, m + n - 60, 40) == 0);
    CHECK(lzval_append(v, m + n, 9000, c) == 0);
    n += 9000;
    CHECK(lzval_read(v, n - 9100, 200, tmp, c) == 0 && memcmp(tmp, m + n - 9100, 200) == 0);
    CHECK(same_as_model(v, m, n, c));
    lzcache_free(c);
    lzval_free(v);
    free(alt);
    free(m);
}

/* ---- the dictionary ---- */

/* Service-log text of n bytes with a multi-byte character (widths 2..4) cut by
 * every multiple of step1 and of step2 (sub-block and chunk boundaries). */
static char *svc_cut_text(size_t n, size_t step1, size_t step2, uint64_t seed)
{
    char *m = gen_new(n, GEN_SVC, seed);
    size_t steps[2] = {step1, step2}, k, i, r = 0;

    for (i = 0; i < 2; i++)
        for (k = 1; k * steps[i] + 4 < n; k++) {
            int w = 2 + (int)(r % 3);
            size_t d = 1 + (r % (size_t)(w - 1));
            put_char(m, k * steps[i] - d, w);
            r++;
        }
    return m;
}

/* Rebuild v and check that every stored chunk is byte for byte v's. */
static int rebuilds_exactly(const lzval *v)
{
    lzval *r = rebuild(v);
    size_t i;
    int ok = r != NULL && lzval_len(r) == lzval_len(v) && lzval_dict(r) == lzval_dict(v);

    for (i = 0; ok && i < lzval_nchunks(v); i++) {
        const char *d1, *d2;
        size_t s1, s2, r1, r2;
        int c1, c2;
        lzval_chunk_stored(v, i, &d1, &s1, &r1, &c1);
        lzval_chunk_stored(r, i, &d2, &s2, &r2, &c2);
        ok = s1 == s2 && r1 == r2 && c1 == c2 && memcmp(d1, d2, s1) == 0;
    }
    lzval_free(r);
    return ok;
}

/* 1 if v and w hold byte-identical stored chunks. */
static int same_stored(const lzval *v, const lzval *w)
{
    size_t i;
    int ok = lzval_nchunks(v) == lzval_nchunks(w);

    for (i = 0; ok && i < lzval_nchunks(v); i++) {
        const char *d1, *d2;
        size_t s1, s2, r1, r2;
        int c1, c2;
        lzval_chunk_stored(v, i, &d1, &s1, &r1, &c1);
        lzval_chunk_stored(w, i, &d2, &s2, &r2, &c2);
        ok = s1 == s2 && r1 == r2 && c1 == c2 && memcmp(d1, d2, s1) == 0;
    }
    return ok;
}

static void test_dict_reads_every_window(void)
{
    static const size_t chunks[] = {65536, 20000, 4096, 1024};
    size_t ci;

    for (ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
        size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, n = 300000 + 777, i, ch, nl, b, k, len;
        char *m = svc_cut_text(n, sub, cs, 1200 + ci), *tmp = malloc(4 * SUB + 64);
        size_t *cpos = malloc((n + 1) * sizeof(size_t)), *lpos = malloc((n + 2) * sizeof(size_t));
        size_t *before = malloc((n + 1) * sizeof(size_t));
        lzval *v = lzval_new(m, n, cs);
        lzcache *c = lzcache_new(3);
        int bad = 0, pass;

        CHECK(lzval_dict(v) == sub);
        CHECK(lzval_chars(v) == model_chars(m, n) && lzval_chars(v) < n);
        CHECK(stored_chunks_ok(v, m, 0));
        /* windows at every offset around the dictionary's end, and around every
         * sub-block boundary, of lengths from 1 byte to more than a chunk */
        for (pass = 0; pass < 2; pass++) {
            lzcache *cc = pass ? c : NULL;
            size_t ns[] = {1, 2, 5, 100, sub - 1, sub, sub + 1, 2 * sub + 3};
            for (i = sub - 40; i < sub + 40; i++)
                for (k = 0; k < sizeof ns / sizeof *ns; k++)
                    bad += !window_ok(v, m, i, ns[k], cc);
            for (b = sub; b < n; b += sub)
                for (i = b - 3; i <= b + 3 && i < n; i++)
                    for (k = 0; k < sizeof ns / sizeof *ns; k += 3)
                        if (i + ns[k] <= n)
                            bad += !window_ok(v, m, i, ns[k], cc);
            rng_seed(1210 + ci);
            for (k = 0; k < 2000; k++) {
                size_t off = rng_below(n + 1), w = rng_below((n - off < 4 * SUB ? n - off : 4 * SUB) + 1);
                bad += !window_ok(v, m, off, w, cc);
            }
            for (i = 0; i < lzval_nchunks(v); i++) {
                const char *p = lzval_chunk(v, i, &len, cc);
                bad += !p || len != (i + 1 < lzval_nchunks(v) ? cs : n - i * cs) || memcmp(p, m + i * cs, len) != 0;
            }
        }
        CHECK(bad == 0);
        /* characters, bytes and lines against a naive scan */
        ch = model_positions(m, n, cpos, lpos, before, &nl);
        CHECK(nl == lzval_newlines(v));
        for (pass = 0; pass < 2; pass++) {
            lzcache *cc = pass ? c : NULL;
            for (i = 0; i <= ch; i += (i % sub < 8 || i + 8 > ch) ? 1 : 97)
                bad += lzval_char_to_byte(v, i, &b, cc) != 0 || b != cpos[i];
            for (i = 0; i <= n; i += (i % sub < 8 || i % sub > sub - 8 || i + 8 > n) ? 1 : 89)
                bad += lzval_byte_to_char(v, i, &b, cc) != 0 || b != before[i];
            for (i = 0; i <= nl; i += pass ? 1 : 7)
                bad += lzval_line_start(v, i, &b, cc) != 0 || b != lpos[i];
        }
        CHECK(bad == 0);
        CHECK(same_as_model(v, m, n, c));
        lzcache_free(c);
        lzval_free(v);
        free(before);
        free(lpos);
        free(cpos);
        free(tmp);
        free(m);
    }
}

static void test_dict_appends(void)
{
    static const size_t chunks[] = {65536, 20000, 4096};
    size_t ci;

    for (ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
        size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, total = 600000, len = 200000, step = 0;
        char *m = svc_cut_text(total, sub, cs, 1300 + ci);
        lzval *v = lzval_new(m, len, cs), *whole;
        lzcache *c = lzcache_new(4);
        int bad = 0, tails = 0;

        CHECK(lzval_dict(v) == sub);
        rng_seed(1310 + ci);
        while (len < total) {
            size_t n = step % 13 == 0 ? rng_below(40000) : 1 + rng_below(3000), nch = lzval_nchunks(v);
            if (n > total - len)
                n = total - len;
            bad += lzval_append(v, m + len, n, (step & 1) ? c : NULL) != 0;
            len += n;
            bad += lzval_dict(v) != sub;
            bad += !stored_chunks_ok(v, m, nch ? nch - 1 : 0);
            if (step % 5 == 0)
                bad += !same_as_model(v, m, len, (step & 2) ? c : NULL);
            if (len % cs % sub != 0 && len % cs != 0) {
                bad += !has_raw_tail(v);
                tails++;
            }
            step++;
        }
        CHECK(bad == 0 && tails > 20);
        CHECK(same_as_model(v, m, total, c) && stored_chunks_ok(v, m, 0));
        /* sealed, the appended value stores exactly what lzval_new stores */
        lzval_seal(v);
        whole = lzval_new(m, total, cs);
        CHECK(lzval_dict(whole) == sub && same_stored(v, whole));
        lzval_free(whole);
        lzcache_free(c);
        lzval_free(v);
        free(m);
    }
}

static void test_dict_taken_by_appends(void)
{
    size_t cs = 65536, total = 700000, len = 0, at = 0, k;
    char *m = gen_new(total, GEN_SVC, 1401), *rnd = gen_new(total, GEN_RAND, 1402);
    lzval *v = lzval_new(NULL, 0, cs), *w, *r;
    lzcache *c = lzcache_new(4);
    int bad = 0;

    /* service logs appended 1000 bytes at a time from nothing */
    for (k = 0; len < total; k++) {
        size_t n = total - len < 1000 ? total - len : 1000;
        bad += lzval_append(v, m + len, n, (k & 1) ? c : NULL) != 0;
        len += n;
        if (!at && lzval_dict(v))
            at = len;
        if (k % 50 == 0)
            bad += !same_as_model(v, m, len, c) || !stored_chunks_ok(v, m, 0);
    }
    CHECK(bad == 0);
    CHECK(lzval_dict(v) == SUB && at >= 49152 && at <= 8 * 49152 + 1000);
    CHECK(same_as_model(v, m, total, c) && stored_chunks_ok(v, m, 0) && has_raw_tail(v));
    lzval_seal(v);
    w = lzval_new(m, total, cs);
    CHECK(same_stored(v, w));
    lzval_free(w);
    lzval_free(v);
    /* one append of everything at once */
    v = lzval_new(m, 10000, cs);
    CHECK(lzval_dict(v) == 0);
    CHECK(lzval_append(v, m + 10000, total - 10000, c) == 0);
    CHECK(lzval_dict(v) == SUB && same_as_model(v, m, total, c) && stored_chunks_ok(v, m, 0));
    lzval_free(v);
    /* random bytes gain nothing from a dictionary: none is taken */
    v = lzval_new(NULL, 0, cs);
    for (len = 0; len < 500000; len += 5000)
        CHECK(lzval_append(v, rnd + len, 5000, c) == 0);
    CHECK(lzval_dict(v) == 0 && same_as_model(v, rnd, 500000, NULL));
    lzval_free(v);
    /* a value past the last size at which appends ask keeps independent blocks */
    v = lzval_new(rnd, 400000, cs);
    CHECK(lzval_append(v, m, 300000, c) == 0);
    CHECK(lzval_dict(v) == 0);
    r = rebuild(v);
    CHECK(r && lzval_dict(r) == 0);
    lzval_free(r);
    lzval_free(v);
    lzcache_free(c);
    free(rnd);
    free(m);
}

static void test_dict_setrange(void)
{
    static const size_t chunks[] = {65536, 4096};
    size_t ci, k;

    for (ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
        size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, len = 400000 + 123, cap = len + 100000, nch, i;
        char *m = malloc(cap), *alt = gen_new(cap, GEN_UTF8, 1501), *rnd = gen_new(cap, GEN_RAND, 1502);
        char tmp[600];
        const char **before, *d;
        size_t stored, raw;
        lzval *v;
        lzcache *c = lzcache_new(4);
        int comp, bad = 0;

        gen(m, cap, GEN_SVC, 1503 + ci);
        v = lzval_new(m, len, cs);
        CHECK(lzval_dict(v) == sub && !has_raw_tail(v));
        /* windows cached before the changes are not served stale after them */
        for (k = 0; k < 6; k++)
            bad += lzval_read(v, k * (len / 6) + 17, 500, tmp, c) != 0;
        CHECK(bad == 0);
        /* inside the dictionary, across its end, over it whole (random bytes) */
        CHECK(lzval_setrange(v, 100, alt, 50, c) == 0);
        memcpy(m + 100, alt, 50);
        CHECK(same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0) && lzval_dict(v) == sub);
        CHECK(lzval_setrange(v, sub - 20, alt + 100, 40, NULL) == 0);
        memcpy(m + sub - 20, alt + 100, 40);
        CHECK(same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0));
        CHECK(lzval_setrange(v, 0, rnd, sub + 100, c) == 0);
        memcpy(m, rnd, sub + 100);
        CHECK(same_as_model(v, m, len, NULL) && stored_chunks_ok(v, m, 0) && lzval_dict(v) == sub);
        for (k = 0; k < 6; k++) {
            size_t off = k * (len / 6) + 17;
            bad += lzval_read(v, off, 500, tmp, c) != 0 || memcmp(tmp, m + off, 500) != 0;
        }
        CHECK(bad == 0);
        CHECK(!has_raw_tail(v)); /* sealed before, sealed after */
        CHECK(rebuilds_exactly(v));
        /* with a raw tail, a dictionary change keeps it */
        CHECK(lzval_append(v, m + len, 3001, c) == 0);
        len += 3001;
        CHECK(has_raw_tail(v));
        CHECK(lzval_setrange(v, 7, alt + 300, 9, c) == 0);
        memcpy(m + 7, alt + 300, 9);
        CHECK(has_raw_tail(v) && same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0));
        /* elsewhere, only the touched chunk is rewritten */
        nch = lzval_nchunks(v);
        before = malloc(nch * sizeof(*before));
        for (i = 0; i < nch; i++)
            lzval_chunk_stored(v, i, &before[i], &stored, &raw, &comp);
        CHECK(lzval_setrange(v, 3 * cs + 10, alt + 500, 20, c) == 0);
        memcpy(m + 3 * cs + 10, alt + 500, 20);
        for (i = 0; i + 1 < nch; i++) {
            lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
            bad += i != 3 && d != before[i];
        }
        CHECK(bad == 0);
        CHECK(same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0));
        free(before);
        /* random changes, some in the dictionary, some extending the value */
        rng_seed(1505 + ci);
        for (k = 0; k < 120; k++) {
            size_t off = k % 4 == 0 ? rng_below(sub) : rng_below(len + 1), n = rng_below(k % 7 == 0 ? 3 * SUB : 300);
            const char *p = (k % 3) ? alt + rng_below(cap - n) : rnd + rng_below(cap - n);
            if (off + n > cap)
                n = cap - off;
            bad += lzval_setrange(v, off, p, n, (k & 1) ? c : NULL) != 0;
            memcpy(m + off, p, n);
            if (off + n > len)
                len = off + n;
            if (k % 10 == 0)
                bad += !same_as_model(v, m, len, c) || !stored_chunks_ok(v, m, 0) || lzval_dict(v) != sub;
        }
        CHECK(bad == 0);
        CHECK(same_as_model(v, m, len, NULL) && stored_chunks_ok(v, m, 0) && rebuilds_exactly(v));
        lzcache_free(c);
        lzval_free(v);
        free(rnd);
        free(alt);
        free(m);
    }
}

static void test_dict_export_rebuild(void)
{
    static const size_t chunks[] = {65536, 20000, 4096};
    size_t ci, i;

    for (ci = 0; ci < sizeof chunks / sizeof *chunks; ci++) {
        size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, n = 300000 + 777, stored, raw;
        char *m = gen_new(n + 50000, GEN_SVC, 1601 + ci);
        lzval *v = lzval_new(m, n, cs), *r;
        const char *d;
        int comp, bad = 0, frames = 0;

        CHECK(lzval_dict(v) == sub);
        for (i = 0; i < lzval_nchunks(v); i++) {
            lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
            if (!comp)
                continue;
            frames++;
            bad += (unsigned char)d[4] != 0x61 || memcmp(d + 6, "SPD1", 4) != 0;
            if (i == 0) /* the dictionary: the first block, raw and full */
                bad += rd32(d + 11) != (0x80000000u | (uint32_t)sub) || memcmp(d + 15, m, sub) != 0;
        }
        CHECK(bad == 0 && frames > 0);
        if (cs < SUB) { /* chunk 0 is the dictionary alone, a plain chunk */
            lzval_chunk_stored(v, 0, &d, &stored, &raw, &comp);
            CHECK(!comp && stored == cs);
        }
        CHECK(rebuilds_exactly(v));
        r = rebuild(v);
        CHECK(r && same_as_model(r, m, n, NULL) && stored_chunks_ok(r, m, 0));
        /* both go on with the dictionary and agree, a raw tail included */
        CHECK(lzval_append(v, m + n, 30001, NULL) == 0 && lzval_append(r, m + n, 30001, NULL) == 0);
        CHECK(same_stored(v, r) && lzval_dict(r) == sub && has_raw_tail(r));
        CHECK(rebuilds_exactly(v));
        lzval_free(r);
        lzval_free(v);
        free(m);
    }
}

static void test_dict_older_frames_load(void)
{
    size_t base = mem_used(), cs = 32768, nch = 24, n = nch * cs, i, stored, raw;
    char *m = gen_new(n + 100000, GEN_SVC, 1701);
    lzval *r = lzval_from_chunks_begin(cs), *p;
    const char *d;
    int comp, bad = 0;

    /* each chunk compressed on its own, as an older log holds a value */
    for (i = 0; i < nch; i++) {
        p = lzval_new(m + i * cs, cs, cs);
        bad += lzval_dict(p) != 0;
        lzval_chunk_stored(p, 0, &d, &stored, &raw, &comp);
        bad += !comp || (unsigned char)d[4] != 0x60;
        bad += lzval_from_chunks_add(r, d, stored, raw, comp) != 0;
        lzval_free(p);
    }
    CHECK(bad == 0);
    r = lzval_from_chunks_end(r);
    CHECK(r && lzval_dict(r) == 0 && same_as_model(r, m, n, NULL) && stored_chunks_ok(r, m, 0));
    CHECK(rebuilds_exactly(r));
    /* appends and changes keep its independent blocks (it is past 384 KB) */
    CHECK(lzval_append(r, m + n, 100000, NULL) == 0);
    CHECK(lzval_setrange(r, 10, m + 5, 100, NULL) == 0);
    memmove(m + 10, m + 5, 100);
    CHECK(lzval_dict(r) == 0 && same_as_model(r, m, n + 100000, NULL) && stored_chunks_ok(r, m, 0));
    for (i = 0; i < lzval_nchunks(r); i++) {
        lzval_chunk_stored(r, i, &d, &stored, &raw, &comp);
        bad += comp && (unsigned char)d[4] != 0x60;
    }
    CHECK(bad == 0);
    lzval_free(r);
    free(m);
    CHECK(mem_used() == base);
}

static void wr32(char *p, uint32_t x)
{
    p[0] = (char)(x & 0xFF);
    p[1] = (char)(x >> 8 & 0xFF);
    p[2] = (char)(x >> 16 & 0xFF);
    p[3] = (char)(x >> 24);
}

/* Rebuild from n frames d[i][0..st[i]) of rl[i] raw bytes, chunk size cs. */
static lzval *rebuild_from(size_t cs, size_t n, const char **d, const size_t *st, const size_t *rl)
{
    lzval *r = lzval_from_chunks_begin(cs);
    size_t i;

    for (i = 0; i < n; i++)
        lzval_from_chunks_add(r, d[i], st[i], rl[i], 1);
    return lzval_from_chunks_end(r);
}

static void test_dict_rebuild_refuses(void)
{
    size_t base = mem_used(), cs = 65536, n = 300000, st[3], rl[3], s0, r0, s1, r1, so, ro, k;
    char *m = gen_new(n, GEN_SVC, 1801), *log = gen_new(cs, GEN_LOG, 1802), *buf = malloc(2 * cs);
    lzval *v = lzval_new(m, n, cs), *old = lzval_new(log, cs, cs), *r;
    const char *d0, *d1, *dold, *d[3];
    int comp;

    lzval_chunk_stored(v, 0, &d0, &s0, &r0, &comp);
    lzval_chunk_stored(v, 1, &d1, &s1, &r1, &comp);
    lzval_chunk_stored(old, 0, &dold, &so, &ro, &comp);
    CHECK(lzval_dict(v) == SUB && lzval_dict(old) == 0 && comp && ro == cs);
    /* the two good chunks rebuild */
    d[0] = d0, st[0] = s0, rl[0] = r0, d[1] = d1, st[1] = s1, rl[1] = r1;
    r = rebuild_from(cs, 2, d, st, rl);
    CHECK(r != NULL && lzval_dict(r) == SUB && same_as_model(r, m, 2 * cs, NULL));
    lzval_free(r);
    /* no dictionary: a dictionary frame first, whose first block is LZ4 */
    d[0] = d1, st[0] = s1, rl[0] = r1;
    CHECK(rebuild_from(cs, 1, d, st, rl) == NULL);
    /* a short dictionary: a dictionary frame whose raw first block is 5000 bytes */
    memcpy(buf, d0, 11);
    wr32(buf + 11, 0x80000000u | 5000);
    memcpy(buf + 15, m, 5000);
    wr32(buf + 15 + 5000, 0);
    d[0] = buf, st[0] = 15 + 5000 + 4, rl[0] = 5000;
    CHECK(rebuild_from(cs, 1, d, st, rl) == NULL);
    /* mixed: an independent frame then a dictionary one, and the reverse */
    d[0] = dold, st[0] = so, rl[0] = ro, d[1] = d1, st[1] = s1, rl[1] = r1;
    CHECK(rebuild_from(cs, 2, d, st, rl) == NULL);
    d[0] = d0, st[0] = s0, rl[0] = r0, d[1] = dold, st[1] = so, rl[1] = ro;
    CHECK(rebuild_from(cs, 2, d, st, rl) == NULL);
    /* a dictionary frame relabelled as independent: its blocks need the dictionary */
    memcpy(buf, dold, 7);
    memcpy(buf + 7, d0 + 11, s0 - 11);
    d[0] = buf, st[0] = s0 - 4, rl[0] = r0;
    CHECK(rebuild_from(cs, 1, d, st, rl) == NULL);
    /* another DictID, or a broken header checksum */
    for (k = 6; k <= 10; k += 4) {
        memcpy(buf, d0, s0);
        buf[k] ^= 0x20;
        d[0] = buf, st[0] = s0, rl[0] = r0;
        CHECK(rebuild_from(cs, 1, d, st, rl) == NULL);
    }
    /* sub-blocks above 8 KB (16 KB in chunks of 4 MB) never have a dictionary:
     * a well-formed frame of two raw blocks, the first 16 KB, is refused */
    memcpy(buf, d0, 11);
    wr32(buf + 11, 0x80000000u | 16384);
    memcpy(buf + 15, m, 16384);
    wr32(buf + 15 + 16384, 0x80000000u | 5000);
    memcpy(buf + 19 + 16384, m + 16384, 5000);
    wr32(buf + 19 + 16384 + 5000, 0);
    d[0] = buf, st[0] = 23 + 16384 + 5000, rl[0] = 16384 + 5000;
    CHECK(rebuild_from(4u << 20, 1, d, st, rl) == NULL);
    buf[4] = 0x60; /* the same blocks in a frame without the DictID load */
    buf[6] = (char)0x82;
    memmove(buf + 7, buf + 11, st[0] - 11);
    st[0] -= 4;
    r = rebuild_from(4u << 20, 1, d, st, rl);
    CHECK(r != NULL && same_as_model(r, m, 16384 + 5000, NULL));
    lzval_free(r);
    lzval_free(old);
    lzval_free(v);
    free(buf);
    free(log);
    free(m);
    CHECK(mem_used() == base);
}

static void test_dict_corruption(void)
{
    size_t cs = 65536, n = 5 * cs + 20000, j, b, len;
    char *m = gen_new(n, GEN_SVC, 1901), *tmp = malloc(2 * cs), *mod = gen_new(SUB, GEN_RAND, 1902);
    lzval *v = lzval_new(m, n, cs), *w = lzval_dup(v);
    lzcache *c = lzcache_new(4);
    int pass;

    CHECK(lzval_dict(v) == SUB);
    CHECK(lzval_read(v, 2 * cs + 3 * SUB + 5, 100, tmp, c) == 0); /* cached before */
    CHECK(lzval_debug_corrupt(v, 2) == 0);
    for (pass = 0; pass < 2; pass++) {
        lzcache *cc = pass ? c : NULL;
        CHECK(chunk2_corrupt_reads_fail(v, m, cs, tmp, cc));
        CHECK(lzval_line_start(v, model_newlines(m, 2 * cs + 7 * SUB) + 1, &b, cc) == -1);
    }
    CHECK(rebuild(v) == NULL);
    /* a change of the dictionary costs its region (the dictionary is detached
     * first), so chunk 2's damage does not stop it; chunk 2 stays damaged */
    memcpy(tmp + cs, m, cs);
    CHECK(lzval_setrange(v, 10, mod, 10, c) == 0);
    CHECK(lzval_setrange(v, 0, mod, SUB, NULL) == 0);
    memcpy(tmp + cs, mod, SUB);
    CHECK(lzval_len(v) == n && lzval_dict(v) == SUB);
    CHECK(lzval_read(v, 0, cs, tmp, c) == 0 && memcmp(tmp, tmp + cs, cs) == 0);
    CHECK(lzval_read(v, cs, cs, tmp, c) == 0 && memcmp(tmp, m + cs, cs) == 0);
    CHECK(chunk2_corrupt_reads_fail(v, m, cs, tmp, NULL) && rebuild(v) == NULL);
    /* chunk 0: its LZ4 blocks fail, the dictionary and every other chunk read right */
    CHECK(lzval_debug_corrupt(w, 0) == 0);
    for (pass = 0; pass < 2; pass++) {
        lzcache *cc = pass ? c : NULL;
        int bad = 0;
        bad += lzval_read(w, 0, SUB, tmp, cc) != 0 || memcmp(tmp, m, SUB) != 0;
        for (j = 1; j < 8; j++)
            bad += lzval_read(w, j * SUB + 7, 30, tmp, cc) != -1;
        bad += lzval_read(w, SUB - 5, 10, tmp, cc) != -1;
        for (j = 1; j < 6; j++)
            bad += lzval_read(w, j * cs, j < 5 ? cs : 20000, tmp, cc) != 0 ||
                   memcmp(tmp, m + j * cs, j < 5 ? cs : 20000) != 0;
        CHECK(bad == 0);
        CHECK(lzval_chunk(w, 0, &len, cc) == NULL);
    }
    CHECK(lzval_setrange(w, SUB + 10, mod, 10, c) == -1);
    CHECK(lzval_setrange(w, 5, mod, 10, c) == 0); /* the dictionary's block is intact */
    memcpy(m + 5, mod, 10);
    CHECK(lzval_setrange(w, 3 * cs + 5, mod, 10, c) == 0);
    memcpy(m + 3 * cs + 5, mod, 10);
    CHECK(lzval_read(w, 3 * cs, cs, tmp, c) == 0 && memcmp(tmp, m + 3 * cs, cs) == 0);
    CHECK(rebuild(w) == NULL);
    /* rewriting chunk 0 past the dictionary needs none of its old bytes: repaired */
    CHECK(lzval_setrange(w, SUB, m + SUB, cs - SUB, c) == 0);
    CHECK(same_as_model(w, m, n, c) && stored_chunks_ok(w, m, 0) && rebuilds_exactly(w));
    lzval_free(w);
    lzcache_free(c);
    lzval_free(v);
    free(mod);
    free(tmp);
    free(m);
}

/* ---- splices: insertions, deletions and replacements of another length ---- */

/* v holds exactly m[0..n) whatever its chunk layout: every chunk 0 < raw <= cs
 * and, but the last, at least cs / 4 (lzval_splice merges smaller ones); the
 * bytes read whole, chunk by chunk (lzval_chunk) and as standard LZ4 frames
 * (each against its place in m); the counts; every checksum; 40 random
 * windows and 20 character, byte and line lookups against m. */
static int splice_model_ok(const lzval *v, const char *m, size_t n, lzcache *c)
{
    size_t cs = lzval_chunk_size(v), nch = lzval_nchunks(v), i, pos = 0, k;
    char *tmp = malloc(n ? n : 1);
    int ok = lzval_len(v) == n && lzval_chars(v) == model_chars(m, n) && lzval_newlines(v) == model_newlines(m, n);

    ok = ok && lzval_read(v, 0, n, tmp, c) == 0 && memcmp(tmp, m, n) == 0 && sums_ok(v);
    for (i = 0; ok && i < nch; i++) {
        const char *d, *b;
        size_t stored, raw, blen;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        ok = raw > 0 && raw <= cs && (i + 1 == nch || raw >= cs / 4) && pos + raw <= n;
        ok = ok && stored_decodes_to(d, stored, comp, m + pos, raw, dict_bytes(v, m), lzval_dict(v));
        b = ok ? lzval_chunk(v, i, &blen, (i & 1) ? c : NULL) : NULL;
        ok = ok && b && blen == raw && memcmp(b, m + pos, raw) == 0;
        pos += raw;
    }
    ok = ok && pos == n;
    for (k = 0; ok && n && k < 40; k++) {
        size_t off = rng_below(n), len = rng_below(n - off < 30000 ? n - off : 30000) + 1;
        ok = lzval_read(v, off, len, tmp, (k & 1) ? c : NULL) == 0 && memcmp(tmp, m + off, len) == 0;
    }
    for (k = 0; ok && n && k < 20; k++) {
        size_t off = rng_below(n + 1), ch, byte, nl = model_newlines(m, off), want;
        ok = lzval_byte_to_char(v, off, &ch, c) == 0 && ch == model_chars(m, off);
        ok = ok && lzval_char_to_byte(v, ch, &byte, (k & 1) ? c : NULL) == 0;
        for (want = off; want < n && ((unsigned char)m[want] & 0xC0) == 0x80; want++)
            ;
        ok = ok && byte == want;
        for (want = off; nl && want > 0 && m[want - 1] != '\n'; want--)
            ;
        ok = ok && lzval_line_start(v, nl, &byte, c) == 0 && byte == (nl ? want : 0);
    }
    free(tmp);
    return ok;
}

/* The frames of v, loaded again (the log's loader), hold m[0..n) in v's mode. */
static int splice_reloads(const lzval *v, const char *m, size_t n)
{
    lzval *r = rebuild(v);
    int ok = r && lzval_dict(r) == lzval_dict(v) && splice_model_ok(r, m, n, NULL);

    lzval_free(r);
    return ok;
}

/* Random splices (small, of about a chunk, of several chunks; at the top, in
 * the dictionary, at the end) on a value and a plain buffer, with a cache on
 * every other step, checked after each; a copy taken midway stays as it was;
 * every 40 steps the value reloads from its frames, and the reload goes on
 * taking splices and appends. */
static void test_splice_model(void)
{
    static const size_t chunks[] = {65536, 20000, 4096, 1024};
    static const int kinds[] = {GEN_UTF8, GEN_SVC, GEN_RAND};
    size_t base = mem_used(), ci, ki;
    int bad = 0, steps = getenv("SPLICE_STEPS") ? atoi(getenv("SPLICE_STEPS")) : 120;

    for (ki = 0; ki < 3; ki++)
        for (ci = 0; ci < 4; ci++) {
            size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, len = 250000 + 77 * ci, cap = 8 * len, pool = 200000;
            char *m = malloc(cap), *src = gen_new(pool, kinds[ki] == GEN_SVC ? GEN_UTF8 : kinds[ki], 2600 + ci);
            char *copy_m = NULL;
            size_t copy_len = 0;
            lzval *v, *copy = NULL;
            lzcache *c = lzcache_new(4);
            int step;

            gen(m, len, kinds[ki], 2700 + ci * 3 + ki);
            v = lzval_new(m, len, cs);
            if (kinds[ki] == GEN_SVC && cs >= 4096 && !lzval_dict(v))
                bad++; /* the dictionary cases must have one */
            rng_seed(2800 + ci * 3 + ki);
            for (step = 0; step < steps && !bad; step++) {
                size_t r = rng_below(10), off, del, n, s0;
                size_t scale = r < 5 ? 200 : r < 8 ? cs : 3 * cs;
                off = step % 9 == 0    ? rng_below(sub + 10 < len ? sub + 10 : len + 1)
                      : step % 11 == 0 ? len - rng_below(len < 50 ? len + 1 : 50)
                                       : rng_below(len + 1);
                del = rng_below((len - off < scale ? len - off : scale) + 1);
                n = rng_below(scale + 1);
                if (step % 7 == 3)
                    n = 0; /* a deletion */
                if (step % 7 == 5)
                    del = 0; /* an insertion */
                if (len - del + n > cap)
                    n = 0;
                s0 = rng_below(pool - n);
                if (step == steps / 2) {
                    copy = lzval_dup(v);
                    copy_m = malloc(len ? len : 1);
                    memcpy(copy_m, m, len);
                    copy_len = len;
                }
                if (lzval_splice(v, off, del, src + s0, n, (step & 1) ? c : NULL) != 0) {
                    bad++;
                    break;
                }
                memmove(m + off + n, m + off + del, len - off - del);
                memcpy(m + off, src + s0, n);
                len = len - del + n;
                if (!splice_model_ok(v, m, len, c))
                    bad++;
                if (step % 40 == 39) {
                    lzval *rl = rebuild(v);
                    if (!rl || !splice_reloads(v, m, len))
                        bad++;
                    lzval_free(v);
                    v = rl;
                    if (v && len + 5000 <= cap && lzval_append(v, src, 5000, c) == 0) {
                        memcpy(m + len, src, 5000);
                        len += 5000;
                    }
                    if (!v || !splice_model_ok(v, m, len, c))
                        bad++;
                }
            }
            if (copy && !splice_model_ok(copy, copy_m, copy_len, c))
                bad++;
            if (v && !splice_reloads(v, m, len))
                bad++;
            /* out of range */
            if (v && (lzval_splice(v, len + 1, 0, "x", 1, c) != -1 || lzval_splice(v, len, 1, "x", 1, c) != -1))
                bad++;
            if (bad)
                fprintf(stderr, "    splice model: chunk size %zu, kind %d, step %d\n", cs, kinds[ki], step);
            lzval_free(copy);
            free(copy_m);
            lzval_free(v);
            lzcache_free(c);
            free(src);
            free(m);
            if (bad)
                goto done;
        }
done:
    CHECK(bad == 0);
    CHECK(mem_used() == base);
}

/* How many of before[0..nb) (stored bytes of chunks, lzval_chunk_stored) are
 * still the stored bytes of a chunk of v: chunks no change rebuilt. */
static size_t chunks_kept(const lzval *v, const char **before, size_t nb)
{
    size_t i, k, kept = 0;

    for (k = 0; k < nb; k++)
        for (i = 0; i < lzval_nchunks(v); i++) {
            const char *d;
            size_t stored, raw;
            int comp;
            lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
            if (d == before[k]) {
                kept++;
                break;
            }
        }
    return kept;
}

/* before[i] = the stored bytes of chunk i of v; returns the chunks. */
static size_t chunks_note(const lzval *v, const char **before)
{
    size_t i, stored, raw;
    int comp;

    for (i = 0; i < lzval_nchunks(v); i++)
        lzval_chunk_stored(v, i, &before[i], &stored, &raw, &comp);
    return lzval_nchunks(v);
}

/* A change of the first sub-block of a value in dictionary mode (same length
 * and not) detaches the dictionary and rewrites only the chunk(s) it touches:
 * every other chunk keeps its stored bytes; then random setranges, splices and
 * appends, half of them in the first sub-block, on a plain buffer alongside:
 * bytes, counts, every chunk's checksums (the detached dictionary's too), the
 * frames with the detached bytes as dictionary, memory (mem_used grows by
 * lzval_stored exactly), copies (independent, the dictionary copied), reloads
 * (with lzval_from_chunks_dict: byte for byte the same chunks). */
static void test_detached_dict_model(void)
{
    static const size_t chunks[] = {65536, 4096};
    size_t base = mem_used(), ci, blk;
    int steps = getenv("SPLICE_STEPS") ? atoi(getenv("SPLICE_STEPS")) : 80;

    for (ci = 0; ci < 2; ci++) {
        size_t cs = chunks[ci], sub = cs < SUB ? cs : SUB, len = 600000, cap = 2 * len, pool = 100000, nch, dn;
        char *m = malloc(cap), *src = gen_new(pool, GEN_SVC, 3100 + ci);
        const char **before;
        lzval *v, *d;
        lzcache *c = lzcache_new(4);
        int step, bad = 0;

        gen(m, len, GEN_SVC, 3000 + ci);
        v = lzval_new(m, len, cs);
        CHECK(lzval_dict(v) == sub && lzval_detached_dict(v, &dn) == NULL && dn == 0);
        CHECK(lzval_debug_corrupt_dict(v) == -1);
        CHECK(mem_used() - base == lzval_stored(v) + lzcache_bytes(c));
        before = malloc((lzval_nchunks(v) + 8) * sizeof(*before));
        nch = chunks_note(v, before);
        /* same length, in the dictionary: only chunk 0 is rewritten */
        CHECK(lzval_setrange(v, 100, src, 50, c) == 0);
        memcpy(m + 100, src, 50);
        CHECK(lzval_detached_dict(v, &dn) != NULL && dn == sub && lzval_dict(v) == sub);
        CHECK(chunks_kept(v, before, nch) == nch - 1);
        CHECK(same_as_model(v, m, len, c) && stored_chunks_ok(v, m, 0) && rebuilds_exactly(v));
        CHECK(mem_used() - base == lzval_stored(v) + lzcache_bytes(c));
        /* an insertion at the very top: chunk 0 (with a neighbour for small chunks) */
        nch = chunks_note(v, before);
        CHECK(lzval_splice(v, 0, 0, src + 60, 300, c) == 0);
        memmove(m + 300, m, len);
        memcpy(m, src + 60, 300);
        len += 300;
        CHECK(chunks_kept(v, before, nch) >= nch - 2 && splice_model_ok(v, m, len, c));
        CHECK(splice_reloads(v, m, len) && rebuilds_exactly(v));
        free(before);
        rng_seed(3200 + ci);
        for (step = 0; step < steps && !bad; step++) {
            size_t r = rng_below(10), off = rng_below(2) ? rng_below(sub) : rng_below(len + 1), del, n, s0;
            if (off > len)
                off = len;
            del = rng_below((len - off < 2 * sub ? len - off : 2 * sub) + 1);
            n = rng_below(2 * sub + 1);
            if (len - del + n > cap)
                n = 0;
            s0 = rng_below(pool - n);
            if (r < 4) { /* same length: setrange, perhaps extending */
                n = off + n > cap ? cap - off : n;
                bad += lzval_setrange(v, off, src + s0, n, (step & 1) ? c : NULL) != 0;
                memcpy(m + off, src + s0, n);
                if (off + n > len)
                    len = off + n;
            } else if (r < 9) {
                bad += lzval_splice(v, off, del, src + s0, n, (step & 1) ? c : NULL) != 0;
                memmove(m + off + n, m + off + del, len - off - del);
                memcpy(m + off, src + s0, n);
                len = len - del + n;
            } else if (len + 3000 <= cap) {
                bad += lzval_append(v, src + s0 % (pool - 3000), 3000, c) != 0;
                memcpy(m + len, src + s0 % (pool - 3000), 3000);
                len += 3000;
            }
            bad += !splice_model_ok(v, m, len, c) || lzval_dict(v) != sub;
            bad += mem_used() - base != lzval_stored(v) + lzcache_bytes(c);
            if (step % 20 == 19) {
                d = lzval_dup(v);
                bad += !splice_model_ok(d, m, len, NULL) || !same_stored(d, v) || !splice_reloads(v, m, len);
                bad += lzval_splice(d, 0, 10, NULL, 0, NULL) != 0 || !splice_model_ok(v, m, len, NULL);
                lzval_free(d);
            }
        }
        if (bad)
            fprintf(stderr, "    detached dictionary model: chunk size %zu, step %d\n", cs, step);
        CHECK(bad == 0);
        /* the checksums cover the detached dictionary */
        CHECK(lzval_detached_dict(v, &dn) != NULL);
        CHECK(lzval_chunk_verify(v, 0, &blk) == 0 && lzval_debug_corrupt_dict(v) == 0);
        CHECK(lzval_chunk_verify(v, 0, &blk) == -1 && blk == 0);
        CHECK(lzval_nchunks(v) < 2 || lzval_chunk_verify(v, 1, &blk) == 0);
        lzval_free(v);
        lzcache_free(c);
        free(src);
        free(m);
    }
    CHECK(mem_used() == base);
}

/* The loader's detached dictionary: only the sub-block size, only before the
 * chunks, only with chunks, and only for frames that carry the DictID; each
 * refusal makes the value bad (end gives NULL) and leaves no memory behind. */
static void test_detached_dict_load_refuses(void)
{
    size_t base = mem_used(), n = 300000, cs = 65536, i, dn;
    char *m = gen_new(n, GEN_SVC, 3300);
    lzval *v = lzval_new(m, n, cs), *plain = lzval_new_nodict(m, n, cs), *r;
    const char *dict, *d;
    size_t stored, raw;
    int comp;

    CHECK(lzval_setrange(v, 5, "abc", 3, NULL) == 0);
    memcpy(m + 5, "abc", 3);
    dict = lzval_detached_dict(v, &dn);
    CHECK(dict != NULL && dn == SUB && lzval_detached_dict(plain, &dn) == NULL);
    dict = lzval_detached_dict(v, &dn);
    /* the wrong size */
    r = lzval_from_chunks_begin(cs);
    CHECK(lzval_from_chunks_dict(r, dict, dn - 1) == -1);
    CHECK(lzval_from_chunks_end(r) == NULL);
    /* after a chunk; and v's chunk 0 cannot load without it (its first block is
     * LZ4 with the detached dictionary) */
    r = lzval_from_chunks_begin(cs);
    lzval_chunk_stored(v, 0, &d, &stored, &raw, &comp);
    CHECK(lzval_from_chunks_add(r, d, stored, raw, comp) == -1 && lzval_from_chunks_end(r) == NULL);
    r = lzval_from_chunks_begin(cs);
    lzval_chunk_stored(plain, 0, &d, &stored, &raw, &comp);
    CHECK(lzval_from_chunks_add(r, d, stored, raw, comp) == 0);
    CHECK(lzval_from_chunks_dict(r, dict, dn) == -1 && lzval_from_chunks_end(r) == NULL);
    /* without chunks */
    r = lzval_from_chunks_begin(cs);
    CHECK(lzval_from_chunks_dict(r, dict, dn) == 0 && lzval_from_chunks_end(r) == NULL);
    /* frames without the DictID */
    r = lzval_from_chunks_begin(cs);
    CHECK(lzval_from_chunks_dict(r, dict, dn) == 0);
    for (i = 0; i < lzval_nchunks(plain); i++) {
        lzval_chunk_stored(plain, i, &d, &stored, &raw, &comp);
        lzval_from_chunks_add(r, d, stored, raw, comp);
    }
    CHECK(lzval_from_chunks_end(r) == NULL);
    /* and the right one loads */
    r = rebuild(v);
    CHECK(r != NULL && same_stored(r, v) && splice_model_ok(r, m, n, NULL));
    lzval_free(r);
    lzval_free(plain);
    lzval_free(v);
    free(m);
    CHECK(mem_used() == base);
}

/* A splice in the middle of a large value rewrites only the chunk around it
 * (into two: it no longer fits in one): the chunks before and after keep their
 * stored bytes (the same pointers, those after one index later); a
 * deletion of everything and a splice into an empty value work too. */
static void test_splice_local(void)
{
    size_t cs = 65536, len = 2000000, i, nch, same_before = 0, same_after = 0, fi;
    char *m = gen_new(len + 10000, GEN_SVC, 2900);
    lzval *v = lzval_new(m, len, cs);
    const char **before;
    const char *d;
    size_t stored, raw;
    int comp;

    nch = lzval_nchunks(v);
    before = malloc(nch * sizeof(*before));
    for (i = 0; i < nch; i++)
        lzval_chunk_stored(v, i, &before[i], &stored, &raw, &comp);
    fi = 1000000 / cs;
    CHECK(lzval_splice(v, 1000000, 3, "inserted text\n", 14, NULL) == 0);
    memmove(m + 1000014, m + 1000003, len - 1000003);
    memcpy(m + 1000000, "inserted text\n", 14);
    len += 11;
    CHECK(lzval_nchunks(v) == nch + 1); /* the full chunk, 11 bytes longer, is cut in two */
    for (i = 0; i < nch + 1; i++) {
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        same_before += i < fi && d == before[i];
        same_after += i > fi + 1 && d == before[i - 1];
    }
    CHECK(same_before == fi && same_after == nch - fi - 1);
    CHECK(splice_model_ok(v, m, len, NULL) && lzval_dict(v) == SUB);
    CHECK(lzval_splice(v, 0, len, NULL, 0, NULL) == 0);
    CHECK(lzval_len(v) == 0 && lzval_nchunks(v) == 0 && lzval_chars(v) == 0 && lzval_newlines(v) == 0);
    CHECK(lzval_splice(v, 0, 0, "abc\n", 4, NULL) == 0);
    CHECK(splice_model_ok(v, "abc\n", 4, NULL));
    free(before);
    lzval_free(v);
    free(m);
}

/* The stored bytes of chunk i of v (where its data block keeps them). */
static const char *chunk_bytes(const lzval *v, size_t i)
{
    const char *d;
    size_t stored, raw;
    int comp;

    lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
    return d;
}

/* The largest stored chunk of v, in bytes. */
static size_t max_chunk_stored(const lzval *v)
{
    size_t i, most = 0;

    for (i = 0; i < lzval_nchunks(v); i++) {
        const char *d;
        size_t stored, raw;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        most = stored > most ? stored : most;
    }
    return most;
}

/* A copy of a 2 MB value shares its chunks: it costs its index, and each
 * change of the copy (an overwrite, an insertion, a deletion, an append, a
 * seal) costs the chunks it rewrites, while the original keeps its bytes and
 * its chunks. Memory comes back to the baseline once both are freed in
 * either order. */
static void test_dup_shares_chunks(void)
{
    size_t n = 2 * 1024 * 1024 + 3000, cs = 65536, base, idx, grow, big, order;
    char *m = gen_new(n, GEN_SVC, 4242), *md = malloc(n + 20000);
    lzcache *c = lzcache_new(4);

    for (order = 0; order < 2; order++) {
        size_t start = mem_used() - lzcache_bytes(c), len = n, nch;
        lzval *v = lzval_new(m, n, cs), *d;
        const char *c5;

        nch = lzval_nchunks(v);
        big = max_chunk_stored(v);
        CHECK(lzval_dict(v) > 0);
        base = mem_used() - lzcache_bytes(c);
        d = lzval_dup(v);
        idx = mem_used() - lzcache_bytes(c) - base;
        CHECK(idx < nch * 100 + 1024);
        CHECK(lzval_stored_beside(d, v, NULL) < 100 * nch + 1024);
        CHECK(lzval_stored_union((const lzval *const[]){v, d, v, NULL}, 4) + lzcache_bytes(c) == mem_used() - start);
        memcpy(md, m, n);
        c5 = chunk_bytes(v, 5);
        CHECK(lzval_read(v, 5 * cs, 4000, md + n, c) == 0); /* v's chunk 5 in the cache */
        /* an overwrite in chunk 5 */
        CHECK(lzval_setrange(d, 5 * cs + 100, "EDITED", 6, c) == 0);
        memcpy(md + 5 * cs + 100, "EDITED", 6);
        grow = mem_used() - lzcache_bytes(c) - base - idx;
        CHECK(grow <= big + 64);
        CHECK(chunk_bytes(v, 5) == c5 && chunk_bytes(d, 5) != c5 && chunk_bytes(d, 6) == chunk_bytes(v, 6));
        /* an insertion and a deletion in chunk 20 */
        CHECK(lzval_splice(d, 20 * cs + 7, 0, "INSERTED\n", 9, c) == 0);
        memmove(md + 20 * cs + 16, md + 20 * cs + 7, len - 20 * cs - 7);
        memcpy(md + 20 * cs + 7, "INSERTED\n", 9);
        len += 9;
        CHECK(lzval_splice(d, 20 * cs + 500, 300, NULL, 0, c) == 0);
        memmove(md + 20 * cs + 500, md + 20 * cs + 800, len - 20 * cs - 800);
        len -= 300;
        /* an append and a seal, in the last chunk */
        CHECK(lzval_append(d, "appended line\n", 14, c) == 0);
        memcpy(md + len, "appended line\n", 14);
        len += 14;
        lzval_seal(d);
        grow = mem_used() - lzcache_bytes(c) - base - idx;
        CHECK(grow <= 5 * big + 1024); /* chunks 5, 20 (and a neighbour), the last */
        CHECK(splice_model_ok(d, md, len, c));
        CHECK(splice_model_ok(v, m, n, c));
        CHECK(lzval_stored_union((const lzval *const[]){v, d}, 2) + lzcache_bytes(c) == mem_used() - start);
        CHECK(lzval_stored_beside(d, v, NULL) + lzcache_bytes(c) == mem_used() - start - lzval_stored(v));
        if (order) {
            lzval_free(d);
            CHECK(splice_model_ok(v, m, n, c));
            lzval_free(v);
        } else {
            lzval_free(v);
            CHECK(splice_model_ok(d, md, len, c));
            lzval_free(d);
        }
        CHECK(mem_used() - lzcache_bytes(c) == start);
    }
    lzcache_free(c);
    free(md);
    free(m);
}

/* Several values sharing chunks through lzval_dup, each changed at random
 * (splices, overwrites, appends, seals, the background re-encoding of lzidle,
 * frees) against its own model, through one cache: every value holds its
 * model's bytes, counts and checksums after each step, and the memory held is
 * exactly the values' headers and indexes plus each distinct data block once
 * (lzval_stored_union). SHARE_STEPS sets the length. */
static void test_shared_chunks_model(void)
{
    enum { K = 6 };
    static const size_t chunks[] = {20000, 4096, 65536};
    int bad = 0, steps = getenv("SHARE_STEPS") ? atoi(getenv("SHARE_STEPS")) : 150, step;
    size_t ci;

    for (ci = 0; ci < 3 && !bad; ci++) {
        size_t cs = chunks[ci], pool = 400000, cap = 900000, len[K] = {0}, k;
        char *src = gen_new(pool, GEN_UTF8, 5100 + ci), *m[K];
        lzval *v[K] = {NULL};
        lzidle *q = lzidle_new();
        size_t base = mem_used();
        lzcache *c = lzcache_new(4);
        int64_t now = 0;

        for (k = 0; k < K; k++)
            m[k] = malloc(cap);
        len[0] = 300000;
        gen(m[0], len[0], GEN_SVC, 5200 + ci);
        v[0] = lzval_new_fast(m[0], len[0], cs, 4);
        lzidle_adopt(q, v[0]);
        rng_seed(5300 + ci);
        for (step = 0; step < steps && !bad; step++) {
            size_t r = rng_below(100), a = rng_below(K), t, off, del, n, s0;
            lzcache *cc = (step & 1) ? c : NULL;
            for (t = 0; t < K && !v[a]; t++)
                a = (a + 1) % K;
            if (!v[a]) { /* all freed: start again from a copy of the model */
                len[a] = 200000;
                gen(m[a], len[a], GEN_SVC, 5400 + step);
                v[a] = lzval_new(m[a], len[a], cs);
            }
            n = rng_below(r < 50 ? 300 : 3 * cs);
            s0 = rng_below(pool - n);
            if (r < 20) { /* a copy into a free slot (or over one freed first) */
                t = rng_below(K);
                if (t == a)
                    t = (t + 1) % K;
                lzval_free(v[t]);
                v[t] = lzval_dup(v[a]);
                memcpy(m[t], m[a], len[a]);
                len[t] = len[a];
                a = t;
            } else if (r < 45) {
                off = step % 9 == 0 ? rng_below(len[a] < 9000 ? len[a] + 1 : 9000) : rng_below(len[a] + 1);
                del = rng_below((len[a] - off < 2 * cs ? len[a] - off : 2 * cs) + 1);
                if (len[a] - del + n > cap)
                    n = 0;
                if (lzval_splice(v[a], off, del, src + s0, n, cc) != 0)
                    bad++;
                memmove(m[a] + off + n, m[a] + off + del, len[a] - off - del);
                memcpy(m[a] + off, src + s0, n);
                len[a] = len[a] - del + n;
            } else if (r < 65) {
                off = rng_below(len[a] + 1);
                if (off + n > cap)
                    n = 0;
                if (lzval_setrange(v[a], off, src + s0, n, cc) != 0)
                    bad++;
                memcpy(m[a] + off, src + s0, n);
                len[a] = off + n > len[a] ? off + n : len[a];
            } else if (r < 80) {
                if (len[a] + n > cap)
                    n = 0;
                if (lzval_append(v[a], src + s0, n, cc) != 0)
                    bad++;
                memcpy(m[a] + len[a], src + s0, n);
                len[a] += n;
            } else if (r < 85) {
                lzval_seal(v[a]);
            } else if (r < 93) {
                now += 1000000;
                lzidle_step(q, now, 0, SIZE_MAX);
            } else {
                lzval_free(v[a]);
                v[a] = NULL;
            }
            for (k = 0; k < K && !bad; k++)
                if (v[k] && (k == a || step % 10 == 0) && !splice_model_ok(v[k], m[k], len[k], c)) {
                    fprintf(stderr, "    value %zu (op %zu) differs from its model\n", k, r);
                    bad++;
                }
            if (!bad && step % 5 == 0) {
                size_t held = lzval_stored_union((const lzval *const *)v, K) + lzcache_bytes(c);
                if (held != mem_used() - base) {
                    fprintf(stderr, "    op %zu: memory %zu, values and cache hold %zu\n", r, mem_used() - base, held);
                    bad++;
                }
            }
        }
        if (bad)
            fprintf(stderr, "    shared chunks model: chunk size %zu, step %d\n", cs, step);
        for (k = 0; k < K; k++) {
            lzval_free(v[(k * 5 + ci) % K]);
            v[(k * 5 + ci) % K] = NULL;
        }
        lzcache_free(c);
        if (mem_used() != base)
            bad++;
        lzidle_free(q);
        for (k = 0; k < K; k++)
            free(m[k]);
        free(src);
    }
    CHECK(bad == 0);
}

static void test_dict_memory(void)
{
    size_t base = mem_used(), n = 1 << 20, slice = 32768, k, indep = 0, stored, raw;
    char *m = gen_new(n, GEN_SVC, 2001);
    lzval *v = lzval_new(m, n, 65536), *d, *w;
    const char *p;
    int comp;

    /* the same text in independent blocks: 32 KB values, too short for a dictionary */
    for (k = 0; k < n; k += slice) {
        w = lzval_new(m + k, slice, 65536);
        lzval_chunk_stored(w, 0, &p, &stored, &raw, &comp);
        indep += stored;
        lzval_free(w);
    }
    CHECK(lzval_dict(v) == SUB);
    CHECK(lzval_stored(v) < n * 36 / 100);
    CHECK(indep > n * 36 / 100);
    CHECK(lzval_stored(v) < indep * 9 / 10);
    /* a copy stores the same bytes, and is independent of the original */
    d = lzval_dup(v);
    CHECK(same_stored(d, v) && lzval_dict(d) == SUB);
    CHECK(lzval_setrange(d, 0, "X", 1, NULL) == 0 && lzval_append(d, m, 5000, NULL) == 0);
    CHECK(same_as_model(v, m, n, NULL) && stored_chunks_ok(v, m, 0));
    lzval_free(d);
    lzval_free(v);
    free(m);
    CHECK(mem_used() == base);
}

/* lzval_new_ascii with the newline counts of its sub-blocks (counted here, byte
 * by byte, over lzval_layout's geometry) builds exactly the value
 * lzval_new_fast builds: the same stored chunks, counts and line lookups. */
static void test_new_ascii_counts(void)
{
    size_t base = mem_used();
    size_t chunks[] = {1024, 10000, 65536, 3u << 20};
    size_t sizes[] = {0, 1, 1023, 1024, 8191, 8192, 8193, 65536, 65537, 300001, (3u << 20) + 12345};
    size_t ci, si;

    for (ci = 0; ci < sizeof(chunks) / sizeof(chunks[0]); ci++) {
        for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t n = sizes[si], cs, sub, nsub, nch, i, j, k, q, line, b1, b2;
            char *m = gen_new(n ? n : 1, GEN_LOG, 4000 + si);
            uint32_t *nl;
            lzval *a, *b;
            int ok = 1;

            lzval_layout(chunks[ci], &cs, &sub);
            nsub = (cs + sub - 1) / sub;
            nch = (n + cs - 1) / cs;
            nl = calloc(nch * nsub + 1, sizeof(uint32_t));
            for (i = 0; i < nch; i++)
                for (j = 0; j * sub < cs && i * cs + j * sub < n; j++)
                    for (k = i * cs + j * sub; k < n && k < i * cs + (j + 1) * sub && k < (i + 1) * cs; k++)
                        nl[i * nsub + j] += m[k] == '\n';
            a = lzval_new_ascii(m, n, chunks[ci], 6, nl);
            b = lzval_new_fast(m, n, chunks[ci], 6);
            ok = lzval_len(a) == n && lzval_newlines(a) == lzval_newlines(b) && lzval_chars(a) == n &&
                 lzval_chars(b) == n && lzval_nchunks(a) == lzval_nchunks(b) && lzval_accel(a) == 6;
            for (k = 0; ok && k < lzval_nchunks(a); k++) {
                const char *da, *db;
                size_t sa, sb, ra, rb;
                int ca, cb;
                lzval_chunk_stored(a, k, &da, &sa, &ra, &ca);
                lzval_chunk_stored(b, k, &db, &sb, &rb, &cb);
                ok = sa == sb && ra == rb && ca == cb && memcmp(da, db, sa) == 0;
            }
            /* line lookups use the per-sub-block counts */
            for (line = 0, q = 0; ok && line <= lzval_newlines(b) && q < 200; line += 1 + line / 3, q++) {
                ok = lzval_line_start(a, line, &b1, NULL) == lzval_line_start(b, line, &b2, NULL) && b1 == b2;
            }
            if (!ok)
                fprintf(stderr, "    chunk %zu, %zu bytes\n", chunks[ci], n);
            CHECK(ok);
            lzval_free(a);
            lzval_free(b);
            free(nl);
            free(m);
        }
    }
    CHECK(mem_used() == base);
}

/* Flip one bit of byte k of chunk i's stored bytes behind the value's back. */
static void flip_stored(const lzval *v, size_t i, size_t k)
{
    const char *d;
    size_t stored, raw;
    int comp;

    lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
    ((char *)d)[k < stored ? k : stored - 1] ^= 0x10;
}

static void test_checksums(void)
{
    size_t cs = 65536, n = 5 * cs + 3000, blk, i, k;
    char *m = gen_new(n, GEN_LOG, 41), *r = gen_new(2 * cs, GEN_RAND, 42), *tmp = malloc(2 * cs);
    lzval *v = lzval_new(m, n, cs), *w, *p;

    /* DEBUG LZ4-CORRUPT's damage: found in that chunk only, at its first LZ4 block. */
    CHECK(sums_ok(v));
    CHECK(lzval_debug_corrupt(v, 2) == 0);
    for (i = 0; i < lzval_nchunks(v); i++)
        CHECK((lzval_chunk_verify(v, i, &blk) == 0) == (i != 2));
    CHECK(lzval_chunk_verify(v, 2, &blk) == -1 && blk == 0);
    CHECK(lzval_chunk_verify(v, 99, &blk) == -1);
    /* A copy keeps the checksums it copies: it does not vouch for the damage. */
    w = lzval_dup(v);
    CHECK(lzval_chunk_verify(w, 2, &blk) == -1 && lzval_chunk_verify(w, 1, &blk) == 0);
    lzval_free(w);
    lzval_free(v);

    /* A plain chunk (random bytes): a flipped bit no decoder sees. Reads go on
     * as before; the checksum sees it; a change that must re-store the
     * sub-block refuses, leaving the value as it was; one elsewhere keeps it seen. */
    p = lzval_new(r, 2 * cs, cs);
    CHECK(lzval_debug_corrupt(p, 1) == 0);
    CHECK(lzval_read(p, cs, cs, tmp, NULL) == 0 && memcmp(tmp + 1, r + cs + 1, cs - 1) == 0);
    CHECK(lzval_chunk_verify(p, 1, &blk) == -1 && blk == 0 && lzval_chunk_verify(p, 0, &blk) == 0);
    CHECK(lzval_setrange(p, cs + 10, "xy", 2, NULL) == -1);
    CHECK(lzval_setrange(p, cs + 3 * SUB + 5, "xy", 2, NULL) == 0);
    CHECK(lzval_chunk_verify(p, 1, &blk) == -1 && blk == 0);
    lzval_free(p);

    /* Every byte of a frame (header, block headers, data, end mark) is covered,
     * in a full chunk and in the raw tail an append keeps. */
    v = lzval_new(m, n, cs);
    CHECK(lzval_append(v, m, 1000, NULL) == 0 && lzval_append(v, m + 1000, 700, NULL) == 0);
    CHECK(sums_ok(v));
    for (i = 0; i < lzval_nchunks(v); i += lzval_nchunks(v) - 1) {
        const char *d;
        size_t stored, raw;
        int comp;
        lzval_chunk_stored(v, i, &d, &stored, &raw, &comp);
        for (k = 0; k < stored; k += 1 + stored / 97) {
            flip_stored(v, i, k);
            CHECK(lzval_chunk_verify(v, i, &blk) == -1);
            flip_stored(v, i, k);
            CHECK(lzval_chunk_verify(v, i, &blk) == 0);
        }
    }
    /* A damaged raw tail stays seen as appends extend its checksum. */
    flip_stored(v, lzval_nchunks(v) - 1, 20);
    CHECK(lzval_append(v, m, 50, NULL) == 0);
    CHECK(lzval_chunk_verify(v, lzval_nchunks(v) - 1, &blk) == -1);
    lzval_free(v);
    free(tmp);
    free(r);
    free(m);
}

int main(void)
{
    RUN(test_roundtrip, "a value round-trips at sizes below, at and above one chunk, for several chunk sizes");
    RUN(test_new_ascii_counts, "a value built with the caller's sub-block newline counts is the one built counting "
        "them itself: same chunks, counts and line lookups, for odd chunk sizes and lengths");
    RUN(test_roundtrip_small_chunk_size_clamped, "a chunk size below 1024 is raised to 1024");
    RUN(test_windows, "every window read equals the same slice of the model, across chunk boundaries");
    RUN(test_appends, "appends in pieces of every size equal the model, with or without a cache");
    RUN(test_appends_exact_boundaries, "appends that end exactly on a chunk boundary keep all chunks but the last full");
    RUN(test_setrange, "setrange inside a chunk, across chunks and past the end equals the model");
    RUN(test_counts_utf8_across_boundaries, "char and newline counts match the model with characters cut by chunk boundaries");
    RUN(test_lookups_against_naive, "char_to_byte, byte_to_char and line_start agree with a naive scan everywhere");
    RUN(test_lookups_empty_value, "lookups on an empty value give 0 and reject anything past it");
    RUN(test_stored_forms, "random chunks are stored raw and log text compressed well below its length");
    RUN(test_export_rebuild, "exported stored chunks rebuild an equal value through from_chunks");
    RUN(test_checksums, "every stored byte of a chunk is covered by its checksums: DEBUG LZ4-CORRUPT's damage and any "
        "flipped bit are found in that chunk only, a copy and a raw tail's appends keep them found, and a change "
        "refuses to re-store a damaged sub-block");
    RUN(test_rebuild_rejects_inconsistent_chunks,
        "from_chunks takes a short chunk before another (chunks of variable length) and rejects oversized, truncated and mislabelled chunks");
    RUN(test_corruption, "a corrupted chunk makes read, chunk, lookups, changes and from_chunks fail");
    RUN(test_cache_serves_repeated_reads, "the cache serves repeated reads without decompressing again");
    RUN(test_cache_never_stale, "the cache never returns stale bytes after append, setrange, free or dup");
    RUN(test_chunk_access, "lzval_chunk gives each chunk's bytes, and they can be written back into the value");
    RUN(test_changes_touch_only_their_chunks, "an append or a setrange rewrites only the chunks it touches");
    RUN(test_dup_is_independent, "a copy is independent of its original");
    RUN(test_read_counter_per_second,
        "lzval_note_read counts the reads of the current second and starts again at another");
    RUN(test_memory_returns_to_baseline, "mem_used returns to its baseline once values and caches are freed");
    RUN(test_appends_raw_tail_every_step, "appends across many chunk and sub-block boundaries keep a raw tail and equal the model after every step");
    RUN(test_seal, "seal compresses the raw tail and gives back its room, and appending after it reopens the tail");
    RUN(test_export_rebuild_raw_tail, "stored chunks with a raw tail are standard LZ4 frames that rebuild exactly, and malformed frames are refused");
    RUN(test_corruption_sub_blocks, "a corrupted sub-block fails every read that needs it, and a change that needs it leaves the value as it was");
    RUN(test_cache_serves_only_decoded_bytes, "the cache serves the part of a sub-block it decoded and decodes the rest only when asked");
    RUN(test_cache_forgets_rewritten_sub_blocks, "the cache never serves a sub-block that a setrange or an append rewrote");
    RUN(test_lookups_sub_blocks, "char and line lookups agree with a naive scan across sub-block boundaries and in the raw tail");
    RUN(test_setrange_sub_blocks, "setrange across sub-blocks, past a compressed or a raw tail, equals the model");
    RUN(test_memory_baseline_raw_tail, "mem_used returns to its baseline after raw tails, seals, copies and rebuilds");
    RUN(test_dict_reads_every_window, "a value with a dictionary reads every window, chunk, character and line as a plain copy, with characters cut by sub-block and chunk boundaries");
    RUN(test_dict_appends, "appends onto a value with a dictionary compress with it, keep a raw tail, and store what lzval_new stores");
    RUN(test_dict_taken_by_appends, "a value grown by appends takes a dictionary once it pays, random bytes and long values keep independent blocks");
    RUN(test_dict_setrange,
        "setrange in the dictionary detaches it and keeps it, elsewhere it rewrites only its chunk");
    RUN(test_dict_export_rebuild, "frames of a value with a dictionary carry the DictID, rebuild byte-exactly and go on as the original");
    RUN(test_dict_older_frames_load, "frames without the DictID, as older logs hold them, load as before and keep independent blocks");
    RUN(test_dict_rebuild_refuses, "a dictionary frame without a raw full first block, mixed with independent frames, relabelled or mislabelled is refused");
    RUN(test_dict_corruption,
        "a corrupted chunk of a value with a dictionary fails every read that needs its LZ4 blocks, a change that needs it leaves the value as it was, and a change of the dictionary needs only its region");
    RUN(test_splice_model,
        "random insertions, deletions and replacements of other lengths, with and without a dictionary, equal a plain buffer in bytes, counts, checksums, frames, windows and lookups, keep chunks between a quarter and a whole chunk_size, reload from their frames and leave a copy as it was");
    RUN(test_detached_dict_model,
        "a change of the first sub-block of a value with a dictionary detaches it and rewrites only the chunks it touches, and random changes there and elsewhere equal a plain buffer in bytes, counts, checksums (the detached dictionary's too), frames, memory, copies and reloads");
    RUN(test_detached_dict_load_refuses,
        "the loader takes a detached dictionary only of the sub-block size, before chunks that follow it, whose frames carry the DictID");
    RUN(test_splice_local,
        "a splice in the middle of a large value rewrites only the chunk it touches, and a value can be emptied and refilled");
    RUN(test_dup_shares_chunks,
        "a copy of a 2 MB value shares its chunks: it costs its index, each change of the copy costs the chunks it "
        "rewrites, the original keeps its bytes, and memory returns to its baseline whichever is freed first");
    RUN(test_shared_chunks_model,
        "values sharing chunks through copies, changed at random (splices, overwrites, appends, seals, background "
        "re-encodings, frees), each equal its own model, and memory is exactly each shared chunk once");
    RUN(test_dict_memory, "a 1 MB value of service logs takes less than 0.36 of its bytes, 10 % less than independent blocks");
    return TEST_DONE();
}
