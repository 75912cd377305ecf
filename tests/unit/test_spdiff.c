/* test_spdiff.c -- the unified line diff (spdiff.c), alone.
 *
 * Random texts of lines from a small alphabet (so that lines repeat and the
 * search has choices), with and without a final newline: every diff, applied
 * to the first text by a small patch reader written here, gives the second,
 * and removes plus adds exactly N + M - 2 LCS lines (computed by dynamic
 * programming): the script is a shortest one. Hand-written cases check the
 * format (headers, hunk ranges, context, "\ No newline at end of file") and the
 * bounds. */
#include "mem.h"
#include "sp/spdiff.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t base;

/* Text of n lines from an alphabet of k words; no final newline if cut. */
static char *gen(size_t n, unsigned k, int cut, size_t *len)
{
    char *p = malloc(n * 8 + 1);
    size_t i, o = 0;
    for (i = 0; i < n; i++)
        o += (size_t)sprintf(p + o, "w%u\n", (unsigned)rng_below(k));
    if (cut && o > 0)
        o--;
    *len = o;
    return p;
}

typedef struct lines {
    const char *p[4096];
    size_t n[4096];
    size_t cnt;
} lines;

static void split(const char *p, size_t n, lines *l)
{
    size_t i = 0;
    l->cnt = 0;
    while (i < n) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (p + i)) + 1 : n - i;
        l->p[l->cnt] = p + i;
        l->n[l->cnt++] = len;
        i += len;
    }
}

static size_t lcs(const lines *a, const lines *b)
{
    size_t i, j, *t = calloc((a->cnt + 1) * (b->cnt + 1), sizeof(size_t)), r;
#define T(x, y) t[(x) * (b->cnt + 1) + (y)]
    for (i = 1; i <= a->cnt; i++)
        for (j = 1; j <= b->cnt; j++) {
            if (a->n[i - 1] == b->n[j - 1] && memcmp(a->p[i - 1], b->p[j - 1], a->n[i - 1]) == 0)
                T(i, j) = T(i - 1, j - 1) + 1;
            else
                T(i, j) = T(i - 1, j) > T(i, j - 1) ? T(i - 1, j) : T(i, j - 1);
        }
    r = T(a->cnt, b->cnt);
#undef T
    free(t);
    return r;
}

/* Apply the unified diff d to a; the result in out (malloc'd). -1 if d does
 * not apply (a context or removed line differs). *edits: lines - and +. */
static int apply(const char *a, size_t na, const char *d, char **out, size_t *outlen, size_t *edits)
{
    lines al;
    size_t ai = 0, o = 0;
    char *r = malloc(na + strlen(d) + 1);
    const char *p = d;

    split(a, na, &al);
    *edits = 0;
    p = strchr(p, '\n') + 1; /* --- */
    p = strchr(p, '\n') + 1; /* +++ */
    while (*p) {
        size_t as, alen, bs, blen, k;
        if (sscanf(p, "@@ -%zu,%zu +%zu,%zu @@", &as, &alen, &bs, &blen) != 4)
            goto bad;
        k = alen ? as - 1 : as;
        while (ai < k) {
            memcpy(r + o, al.p[ai], al.n[ai]);
            o += al.n[ai++];
        }
        p = strchr(p, '\n') + 1;
        while (*p == ' ' || *p == '-' || *p == '+') {
            char mark = *p;
            const char *e = strchr(p, '\n');
            size_t len = (size_t)(e - p); /* without the mark, with the '\n' */
            int nonl = strncmp(e + 1, "\\ No newline", 12) == 0;
            size_t body = nonl ? len - 1 : len;
            if (mark != '+') {
                if (ai >= al.cnt || al.n[ai] != body || memcmp(al.p[ai], p + 1, body) != 0)
                    goto bad;
                ai++;
            }
            if (mark != '-') {
                memcpy(r + o, p + 1, body);
                o += body;
            }
            *edits += mark != ' ';
            p = e + 1;
            if (nonl)
                p = strchr(p, '\n') + 1;
        }
    }
    while (ai < al.cnt) {
        memcpy(r + o, al.p[ai], al.n[ai]);
        o += al.n[ai++];
    }
    *out = r;
    *outlen = o;
    return 0;
bad:
    free(r);
    return -1;
}

static void test_random_shortest_and_applies(void)
{
    int round;

    rng_seed(16);
    for (round = 0; round < 400; round++) {
        size_t na, nb, n, edits = 0, got = 0;
        char *a = gen(rng_below(60), 2 + (unsigned)rng_below(6), (int)rng_below(4) == 0, &na);
        char *b, *d, *res = NULL;
        lines al, bl;
        int rc;
        /* b: a with some lines changed, or unrelated */
        if (rng_below(3) == 0) {
            b = gen(rng_below(60), 2 + (unsigned)rng_below(6), (int)rng_below(4) == 0, &nb);
        } else {
            b = malloc(na + 400);
            memcpy(b, a, na);
            nb = na;
            for (n = rng_below(4); n > 0; n--) {
                size_t at = nb ? rng_below(nb) : 0;
                char ins[8];
                int k = sprintf(ins, "x%u\n", (unsigned)rng_below(3));
                memmove(b + at + k, b + at, nb - at);
                memcpy(b + at, ins, (size_t)k);
                nb += (size_t)k;
            }
        }
        rc = spdiff_unified(a, na, b, nb, "a", "b", &d, &n);
        CHECK(rc == SPDIFF_OK);
        if (rc != SPDIFF_OK) {
            free(a);
            free(b);
            continue;
        }
        split(a, na, &al);
        split(b, nb, &bl);
        if (n == 0) {
            CHECK(na == nb && memcmp(a, b, na) == 0);
        } else {
            CHECK(strncmp(d, "--- a\n+++ b\n@@ -", 16) == 0);
            CHECK(apply(a, na, d, &res, &got, &edits) == 0);
            CHECK(got == nb && memcmp(res, b, nb) == 0);
            CHECK(edits == al.cnt + bl.cnt - 2 * lcs(&al, &bl));
            if (got != nb || memcmp(res, b, nb) != 0)
                fprintf(stderr, "round %d:\n%s\n", round, d);
            free(res);
        }
        xfree(d);
        free(a);
        free(b);
    }
    CHECK(mem_used() == base);
}

static void test_format(void)
{
    const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
    const char *b = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20";
    char *d;
    size_t n;

    CHECK(spdiff_unified(a, strlen(a), b, strlen(b), "ns/x@s1", "ns/x@NOW", &d, &n) == SPDIFF_OK);
    CHECK(d && strcmp(d, "--- ns/x@s1\n+++ ns/x@NOW\n"
                         "@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n"
                         "@@ -17,4 +17,4 @@\n 17\n 18\n 19\n-20\n+20\n\\ No newline at end of file\n") == 0);
    xfree(d);
    /* Equal texts: an empty diff. */
    CHECK(spdiff_unified(a, strlen(a), a, strlen(a), "x", "y", &d, &n) == SPDIFF_OK && n == 0 && d && d[0] == 0);
    xfree(d);
    /* From nothing: every line added, the range -0,0. */
    CHECK(spdiff_unified("", 0, "a\nb\n", 4, "x", "y", &d, &n) == SPDIFF_OK);
    CHECK(d && strcmp(d, "--- x\n+++ y\n@@ -0,0 +1,2 @@\n+a\n+b\n") == 0);
    xfree(d);
    CHECK(mem_used() == base);
}

static void test_bounds(void)
{
    size_t i, na, nb, n;
    char *a = malloc(SPDIFF_MAX_EDITS * 16 * 2), *b = malloc(SPDIFF_MAX_EDITS * 16 * 2), *d;

    /* More edits than the bound: refused, nothing allocated left. */
    for (i = 0, na = 0, nb = 0; i < SPDIFF_MAX_EDITS; i++) {
        na += (size_t)sprintf(a + na, "a%zu\n", i);
        nb += (size_t)sprintf(b + nb, "b%zu\n", i);
    }
    CHECK(spdiff_unified(a, na, b, nb, "x", "y", &d, &n) == SPDIFF_TOO_MANY_EDITS && d == NULL);
    free(a);
    free(b);
    /* More lines than the bound (after trimming). */
    a = malloc((SPDIFF_MAX_LINES + 10) * 2);
    for (i = 0; i < (SPDIFF_MAX_LINES + 10) * 2; i += 2) {
        a[i] = 'z';
        a[i + 1] = '\n';
    }
    CHECK(spdiff_unified(a, (SPDIFF_MAX_LINES + 10) * 2, "q\n", 2, "x", "y", &d, &n) == SPDIFF_TOO_MANY_LINES);
    free(a);
    CHECK(mem_used() == base);
}

int main(void)
{
    base = mem_used();
    RUN(test_random_shortest_and_applies,
        "400 random diffs apply back to the second text and are shortest (removed + added = N + M - 2 LCS)");
    RUN(test_format, "hunks carry 3 lines of context, ranges as diff -u, and the missing final newline is marked");
    RUN(test_bounds, "more edits or lines than the bounds are refused, leaving nothing allocated");
    return TEST_DONE();
}
