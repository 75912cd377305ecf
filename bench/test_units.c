/* test_units.c -- unit tests of the benchmark's histogram (hist.c) and text
 * generator (loggen.c), built as $(BUILD)/tests/extra/bench_units.
 *
 * The histogram's percentiles are checked against the exact percentiles of the
 * same values sorted; the generator against what the benchmark relies on: the
 * same seed gives the same bytes, slices are line-aligned and of the asked size,
 * the text compresses like a log and not like a repeated byte, and every grep
 * pattern compiles and matches some lines. Prints one "ok - " / "not ok - "
 * line per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "hist.h"
#include "loggen.h"

static int failures;

static void check(int cond, const char *sentence)
{
    printf("%s - %s\n", cond ? "ok" : "not ok", sentence);
    if (!cond)
        failures++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_hist(void)
{
    static hist h, h1, h2;
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof(*v));
    double ps[] = {50, 95, 99, 99.9, 100};
    int i, ok = 1, slots_ok = 1, merge_ok = 1;
    unsigned s;
    rng r;

    rng_seed(&r, 7, 0);
    hist_init(&h);
    hist_init(&h1);
    hist_init(&h2);
    for (i = 0; i < N; i++) {
        /* latencies from 1 us to 1 s, log-uniform, as a mixed workload gives */
        v[i] = rng_logu(&r, 1000, 1000000000);
        hist_record(&h, v[i]);
        hist_record(i % 2 ? &h1 : &h2, v[i]);
    }
    qsort(v, N, sizeof(*v), cmp_u64);
    for (i = 0; i < 5; i++) {
        size_t rank = (size_t)((ps[i] / 100.0) * N + 0.999999);
        uint64_t exact = v[(rank ? rank : 1) - 1], got = hist_percentile(&h, ps[i]);
        if (got < exact || (double)(got - exact) > (double)exact / 128.0 + 1)
            ok = 0;
    }
    check(ok, "every percentile is within 1/128 above the exact one");
    check(hist_percentile(&h, 100) == v[N - 1] && h.max == v[N - 1] && h.min == v[0],
          "the maximum and minimum are exact");
    hist_merge(&h1, &h2);
    for (s = 0; s < HIST_SLOTS; s++)
        merge_ok &= h1.slot[s] == h.slot[s];
    check(merge_ok && h1.count == h.count && h1.max == h.max, "two halves merged equal the whole");
    for (s = 0; s + 1 < HIST_SLOTS; s++) {
        if (hist_slot_of(hist_slot_low(s)) != s || hist_slot_of(hist_slot_high(s)) != s ||
            hist_slot_high(s) + 1 != hist_slot_low(s + 1))
            slots_ok = 0;
    }
    check(slots_ok, "the slots tile the value range without gap or overlap");
    check(hist_slot_of(UINT64_MAX) == HIST_SLOTS - 1, "a value past the range lands in the last slot");
    hist_init(&h2);
    check(hist_percentile(&h2, 99) == 0 && hist_mean(&h2) == 0, "an empty histogram answers 0");
    hist_record(&h2, 5);
    check(hist_percentile(&h2, 50) == 5 && hist_percentile(&h2, 99.9) == 5, "small values are exact");
    free(v);
}

static void test_corpus(void)
{
    corpus a, b;
    size_t off, len, lines, i;
    int aligned = 1, sized = 1, counted = 1;
    rng r;

    check(corpus_build(&a, 42, 4u << 20) == 0 && corpus_build(&b, 42, 4u << 20) == 0, "a corpus builds");
    check(a.len == b.len && memcmp(a.text, b.text, a.len) == 0, "the same seed gives the same corpus");
    corpus_free(&b);
    check(corpus_build(&b, 43, 1u << 20) == 0 && memcmp(a.text, b.text, 4096) != 0,
          "another seed gives other text");
    corpus_free(&b);
    check(a.len >= (4u << 20) && a.text[a.len - 1] == '\n' && a.line[a.nlines] == a.len,
          "the corpus ends on a full line and its line index covers it");
    rng_seed(&r, 1, 1);
    for (i = 0; i < 2000; i++) {
        size_t want = (size_t)rng_logu(&r, 30 * 1024, 1024 * 1024), k, nl = 0;
        lines = corpus_slice(&a, &r, want, &off, &len);
        if ((off && a.text[off - 1] != '\n') || a.text[off + len - 1] != '\n')
            aligned = 0;
        if (len < want || len > want + 1024 || off + len > a.len)
            sized = 0;
        if (i < 50) {
            for (k = 0; k < len; k++)
                nl += a.text[off + k] == '\n';
            if (nl != lines)
                counted = 0;
        }
    }
    check(aligned, "slices start and end on line boundaries");
    check(sized, "slices are at least the size asked and at most one line more");
    check(counted, "a slice's line count is its number of newlines");
    {
        int bound = LZ4_compressBound(65536), n;
        char *dst = malloc((size_t)bound);
        n = LZ4_compress_default(a.text, dst, 65536, bound);
        printf("# lz4 on 64 KB of corpus: %d bytes (%.0f%%)\n", n, 100.0 * n / 65536);
        check(n > 65536 / 8 && n < 65536 / 2, "LZ4 saves between half and seven eighths, as on real logs");
        free(dst);
    }
    {
        int all = 1, k;
        for (k = 0; k < loggen_npatterns; k++) {
            int errc;
            PCRE2_SIZE eoff;
            pcre2_code *c = pcre2_compile((PCRE2_SPTR)loggen_patterns[k], PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errc,
                                          &eoff, NULL);
            pcre2_match_data *md = c ? pcre2_match_data_create_from_pattern(c, NULL) : NULL;
            if (!c || !md || pcre2_match(c, (PCRE2_SPTR)a.text, 256 * 1024, 0, 0, md, NULL) < 0)
                all = 0;
            pcre2_match_data_free(md);
            pcre2_code_free(c);
        }
        check(all, "every grep pattern compiles and matches in the first 256 KB");
    }
    {
        int ascii = 1;
        for (i = 0; i < a.len; i++)
            if ((unsigned char)a.text[i] >= 0x80 || (a.text[i] < 0x20 && a.text[i] != '\n'))
                ascii = 0;
        check(ascii, "the text is printable ASCII, so characters and bytes coincide");
    }
    corpus_free(&a);
}

static void test_plan(void)
{
    char buf[8192];
    int steps, k, unique = 1;
    size_t n;
    rng r;

    rng_seed(&r, 3, 0);
    n = loggen_plan(&r, 1500, buf, sizeof(buf), &steps);
    check(n >= 1500 && n < 1500 + 200 && steps > 5 && steps <= 63, "a plan has the size asked and its steps");
    for (k = 1; k <= steps; k++) {
        char m[32];
        const char *p;
        sprintf(m, "- [ ] step %d:", k);
        p = strstr(buf, m);
        if (!p || strstr(p + 1, m))
            unique = 0;
    }
    check(unique, "each step's marker occurs exactly once, so an edit of it is unambiguous");
}

int main(void)
{
    test_hist();
    test_corpus();
    test_plan();
    return failures ? 1 : 0;
}
