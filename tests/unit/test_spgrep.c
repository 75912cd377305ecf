/* test_spgrep.c -- line-oriented PCRE2 search (spgrep.c), alone.
 *
 * Each case greps a small buffer and records what was emitted (line number,
 * match or context, the line's bytes) as "N:line" / "N-line" strings joined by
 * '|', the way SP.GREP replies, so an expectation reads like grep's output.
 * Context merging is checked against GNU grep's rules: overlapping windows are
 * printed once, in line order, and after the last reported match the trailing
 * context shows the following lines as they are (a later matching line among them
 * as context). The catastrophic-backtracking case must end by the match limit,
 * well under a second. */
#include "mem.h"
#include "sp/spgrep.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct rec {
    char out[8192];
    size_t len;
    size_t calls;
    size_t last_line; /* lines must come in increasing order */
    int order_ok;
} rec;

static void rec_emit(void *ctx, size_t lineno, const char *p, size_t len, int is_match)
{
    rec *r = ctx;
    int k = snprintf(r->out + r->len, sizeof(r->out) - r->len, "%s%zu%c%.*s", r->calls ? "|" : "", lineno,
                     is_match ? ':' : '-', (int)len, p);
    if (k > 0 && (size_t)k < sizeof(r->out) - r->len)
        r->len += (size_t)k;
    if (lineno <= r->last_line)
        r->order_ok = 0;
    r->last_line = lineno;
    r->calls++;
}

static spgrep_cache *cache;

static spgrep_opts opts(size_t max, size_t context)
{
    spgrep_opts o;
    memset(&o, 0, sizeof(o));
    o.max_matches = max;
    o.context = context;
    o.match_limit = 100000;
    o.depth_limit = 100000;
    return o;
}

/* Grep buf with pat and o; returns the code, fills r and res. */
static int grep(const char *buf, const char *pat, const spgrep_opts *o, rec *r, spgrep_result *res)
{
    char err[256] = "";
    memset(r, 0, sizeof(*r));
    r->order_ok = 1;
    return spgrep_run(cache, buf, strlen(buf), pat, strlen(pat), o, rec_emit, r, res, err, sizeof(err));
}

/* 1 if grepping buf for pat with o emits exactly want (and in order). */
static int grep_is(const char *buf, const char *pat, spgrep_opts o, const char *want)
{
    rec r;
    spgrep_result res;
    int rc = grep(buf, pat, &o, &r, &res);
    if (rc != SPGREP_OK || !r.order_ok || strcmp(r.out, want) != 0) {
        fprintf(stderr, "    grep '%s': got rc %d '%s', want '%s'\n", pat, rc, r.out, want);
        return 0;
    }
    return 1;
}

static const char *ten = "l1\nl2\nl3 hit\nl4\nl5 hit\nl6\nl7\nl8\nl9 hit\nl10\n";

static void test_matches(void)
{
    spgrep_result res;
    rec r;
    spgrep_opts o = opts(100, 0);

    CHECK(grep_is("alpha\nbeta\ngamma\nalphabet\n", "alpha", o, "1:alpha|4:alphabet"));
    CHECK(grep_is("alpha\nbeta\n", "zeta", o, ""));
    CHECK(grep_is("", "x", o, ""));
    /* \d, \w, anchors per line, (?i) inline */
    CHECK(grep_is("id=42\nid=x\nname\n", "id=\\d+$", o, "1:id=42"));
    CHECK(grep_is("foo bar\n  \nbaz\n", "^\\w+$", o, "3:baz"));
    CHECK(grep_is("Error one\nerror two\nok\n", "(?i)^error", o, "1:Error one|2:error two"));
    /* a final newline ends the last line; it does not make an empty one */
    CHECK(grep_is("a\n", "^$", o, ""));
    CHECK(grep_is("a\n\nb", "^$", o, "2:"));
    CHECK(grep_is("a\nb", "b", o, "2:b"));
    /* lines never match across the newline */
    CHECK(grep_is("ab\ncd\n", "b\\s*c", o, ""));
    CHECK(grep(ten, "hit", &o, &r, &res) == SPGREP_OK);
    CHECK(res.matched == 3 && res.shown == 3 && res.lines == 10);
}

static void test_context_merging(void)
{
    /* windows 1-5 and 3-7 overlap: each line once, in order */
    CHECK(grep_is(ten, "hit", opts(100, 2), "1-l1|2-l2|3:l3 hit|4-l4|5:l5 hit|6-l6|7-l7|8-l8|9:l9 hit|10-l10"));
    CHECK(grep_is(ten, "hit", opts(100, 1), "2-l2|3:l3 hit|4-l4|5:l5 hit|6-l6|8-l8|9:l9 hit|10-l10"));
    /* adjacent windows (4 is after-context of 3 and nothing more) */
    CHECK(grep_is("a\nx\nb\nx\nc\n", "x", opts(100, 1), "1-a|2:x|3-b|4:x|5-c"));
    /* context larger than the buffer */
    CHECK(grep_is("a\nx\nb\n", "x", opts(100, 50), "1-a|2:x|3-b"));
    /* consecutive matching lines are all matches, not context */
    CHECK(grep_is("x1\nx2\nx3\ny\n", "x", opts(100, 1), "1:x1|2:x2|3:x3|4-y"));
}

static void test_max_with_trailing_context(void)
{
    spgrep_result res;
    rec r;
    spgrep_opts o = opts(1, 1);

    CHECK(grep_is(ten, "hit", opts(1, 1), "2-l2|3:l3 hit|4-l4"));
    CHECK(grep_is(ten, "hit", opts(2, 0), "3:l3 hit|5:l5 hit"));
    CHECK(grep_is(ten, "hit", opts(0, 3), ""));
    CHECK(grep(ten, "hit", &o, &r, &res) == SPGREP_OK && res.shown == 1);
}

/* After MAX matches, the trailing context is the lines that follow, whatever
 * they are, as GNU grep prints them (grep -m1 -A1 on "x a a b" prints "2:a 3-a"):
 * a matching line among them is shown as context, and no line past the window
 * is shown. */
static void test_trailing_context_after_max_is_contiguous(void)
{
    CHECK(grep_is("x\na\na\nb\nc\n", "a", opts(1, 1), "1-x|2:a|3-a"));
    CHECK(grep_is("x\na\na\nb\nc\n", "a", opts(1, 2), "1-x|2:a|3-a|4-b"));
    CHECK(grep_is("a\na\na\na\nz\n", "a", opts(2, 1), "1:a|2:a|3-a"));
}

static void test_count_all(void)
{
    spgrep_result res;
    rec r;
    spgrep_opts o = opts(1, 0);

    o.count_all = 1;
    CHECK(grep(ten, "hit", &o, &r, &res) == SPGREP_OK);
    CHECK(res.matched == 3 && res.shown == 1 && r.calls == 1 && res.lines == 10);
    CHECK(strcmp(r.out, "3:l3 hit") == 0);
    o.count_all = 0;
    CHECK(grep(ten, "hit", &o, &r, &res) == SPGREP_OK);
    CHECK(res.shown == 1 && res.matched >= 1 && res.matched <= 3);
}

static void test_literal(void)
{
    spgrep_opts o = opts(100, 0);
    const char *buf = "a.b(c)*[d]\naxb(c)*[d]\naxbccd\n$^\\d\n";

    o.literal = 1;
    CHECK(grep_is(buf, "a.b(c)*[d]", o, "1:a.b(c)*[d]"));
    CHECK(grep_is(buf, "$^\\d", o, "4:$^\\d"));
    CHECK(grep_is(buf, "(", o, "1:a.b(c)*[d]|2:axb(c)*[d]"));
    /* in UTF mode too (SP.GREP uses it for text entries), caseless or not */
    o.utf = 1;
    CHECK(grep_is(buf, "a.b(c)*[d]", o, "1:a.b(c)*[d]"));
    CHECK(grep_is("caf\xc3\xa9 (x)\nabc\n", "\xc3\xa9 (x", o, "1:caf\xc3\xa9 (x)"));
    o.nocase = 1;
    CHECK(grep_is("CAF\xc3\x89 (X)\nabc\n", "caf\xc3\xa9 (x", o, "1:CAF\xc3\x89 (X)"));
    o.nocase = 0;
    o.utf = 0;
    o.literal = 0;
    /* the same pattern as a regex matches differently: a, any byte, b, c*, d */
    CHECK(grep_is(buf, "a.b(c)*[d]", o, "3:axbccd"));
}

static void test_nocase(void)
{
    spgrep_opts o = opts(100, 0);

    o.nocase = 1;
    CHECK(grep_is("ERROR x\nerror y\nErRoR z\nok\n", "error", o, "1:ERROR x|2:error y|3:ErRoR z"));
    o.literal = 1;
    CHECK(grep_is("A.B\na.b\naxb\n", "a.b", o, "1:A.B|2:a.b"));
    o.literal = 0;
    o.utf = 1;
    /* caseless in UTF mode folds beyond ASCII */
    CHECK(grep_is("CAF\xc3\x89\ncaf\xc3\xa9\n", "caf\xc3\xa9", o, "1:CAF\xc3\x89|2:caf\xc3\xa9"));
}

static void test_utf(void)
{
    spgrep_opts o = opts(100, 0);
    const char *buf = "\xe4\xb8\xad\nab\n\xf0\x9f\x98\x80!\ncaf\xc3\xa9 ok\n";

    o.utf = 1;
    /* '.' is one code point in UTF mode */
    CHECK(grep_is(buf, "^.$", o, "1:\xe4\xb8\xad"));
    CHECK(grep_is(buf, "^.!$", o, "3:\xf0\x9f\x98\x80!"));
    CHECK(grep_is(buf, "\xc3\xa9 o", o, "4:caf\xc3\xa9 ok"));
    CHECK(grep_is(buf, "[\xe4\xb8\xad\xc3\xa9]", o, "1:\xe4\xb8\xad|4:caf\xc3\xa9 ok"));
    o.utf = 0;
    /* byte mode: '.' is one byte, so a 3-byte character is not "^.$" */
    CHECK(grep_is(buf, "^.$", o, ""));
    CHECK(grep_is(buf, "^...$", o, "1:\xe4\xb8\xad"));
}

static void test_bad_pattern(void)
{
    spgrep_opts o = opts(100, 0);
    spgrep_result res;
    char err[256] = "";
    rec r;
    int rc;

    memset(&r, 0, sizeof(r));
    rc = spgrep_run(cache, "abc\n", 4, "a(b", 3, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_BADPATTERN);
    CHECK(res.err_offset == 3);
    CHECK(strstr(err, "parenthesis") != NULL);
    CHECK(r.calls == 0);
    rc = spgrep_run(cache, "abc\n", 4, "ab[c", 4, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_BADPATTERN && res.err_offset == 4 && err[0] != '\0');
    rc = spgrep_run(cache, "abc\n", 4, "x{2,1}", 6, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_BADPATTERN && res.err_offset > 0 && res.err_offset <= 6);
    /* a literal is never a bad pattern */
    o.literal = 1;
    rc = spgrep_run(cache, "a(b\n", 4, "a(b", 3, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_OK && res.matched == 1);
    /* in UTF mode a pattern that is not UTF-8 is refused, not matched blindly */
    o.literal = 0;
    o.utf = 1;
    rc = spgrep_run(cache, "abc\n", 4, "a\xff", 2, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_BADPATTERN);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_catastrophic_pattern_hits_limit(void)
{
    spgrep_opts o = opts(100, 0);
    spgrep_result res;
    char err[256] = "";
    size_t n = 2 + 5000 + 2, i;
    char *buf = malloc(n + 1);
    rec r;
    double t;
    int rc;

    /* line 1 "a", line 2: 5000 'a's then '!', so "(a+)+$" must fail after
     * trying every way to split the a's */
    memcpy(buf, "a\n", 2);
    for (i = 2; i < n - 2; i++)
        buf[i] = 'a';
    buf[n - 2] = '!';
    buf[n - 1] = '\n';
    buf[n] = '\0';
    memset(&r, 0, sizeof(r));
    t = now_s();
    rc = spgrep_run(cache, buf, n, "(a+)+$", 6, &o, rec_emit, &r, &res, err, sizeof(err));
    t = now_s() - t;
    CHECK(rc == SPGREP_LIMIT);
    CHECK(res.err_line == 2);
    CHECK(t < 1.0);
    CHECK(strstr(err, "limit") != NULL);
    /* the line before the limit was hit stays reported */
    CHECK(r.calls == 1 && res.matched == 1);
    free(buf);
}

/* A buffer of many ordinary lines, each cheap, under a time budget of 1 ms: the
 * call stops with SPGREP_LIMIT soon after the budget, whatever the buffer's size. */
static void test_time_budget(void)
{
    spgrep_opts o = opts(100, 0);
    spgrep_result res;
    char err[256] = "";
    size_t lines = 400000, i, n = 0;
    char *buf = malloc(lines * 41 + 1);
    rec r;
    double t;
    int rc;

    for (i = 0; i < lines; i++) {
        memcpy(buf + n, "abababababababababababababababababababa\n", 40);
        n += 40;
    }
    o.max_us = 1000;
    memset(&r, 0, sizeof(r));
    t = now_s();
    rc = spgrep_run(cache, buf, n, "(a|b)*c", 7, &o, rec_emit, &r, &res, err, sizeof(err));
    t = now_s() - t;
    CHECK(rc == SPGREP_LIMIT);
    CHECK(t < 0.1);
    CHECK(res.err_line > 0 && res.err_line < lines);
    CHECK(strstr(err, "time budget") != NULL);
    /* without a budget the same search completes */
    o.max_us = 0;
    rc = spgrep_run(cache, buf, n, "(a|b)*c", 7, &o, rec_emit, &r, &res, err, sizeof(err));
    CHECK(rc == SPGREP_OK && res.matched == 0 && res.lines == lines);
    free(buf);
}

static void test_cache_reuse(void)
{
    spgrep_cache *small = spgrep_cache_new(2);
    spgrep_opts o = opts(100, 0);
    spgrep_result res;
    char err[256];
    rec r;
    int k, bad = 0;
    const char *pats[] = {"a", "b", "c", "a", "(?i)A", "b"};

    for (k = 0; k < 60; k++) {
        const char *p = pats[k % 6];
        memset(&r, 0, sizeof(r));
        bad += spgrep_run(small, "a\nb\nc\n", 6, p, strlen(p), &o, rec_emit, &r, &res, err, sizeof(err)) != 0;
        bad += res.matched != 1;
        /* the same text with other flags is another entry */
        o.nocase = k & 1;
    }
    CHECK(bad == 0);
    spgrep_cache_free(small);
    spgrep_cache_free(NULL);
}

static size_t mem_base;

static void test_memory_back(void)
{
    spgrep_cache_free(cache);
    cache = NULL;
    CHECK(mem_used() == mem_base);
}

int main(void)
{
    mem_base = mem_used();
    cache = spgrep_cache_new(8);
    RUN(test_matches, "matching lines are reported with their numbers, per line, in order");
    RUN(test_context_merging, "overlapping context windows are emitted once, in line order");
    RUN(test_max_with_trailing_context, "MAX stops after its matches, with their trailing context");
    RUN(test_trailing_context_after_max_is_contiguous,
        "the trailing context after the last reported match is the next lines, a matching one shown as context");
    RUN(test_count_all, "count_all counts every match while reporting only MAX");
    RUN(test_literal, "a LITERAL pattern matches regex metacharacters as themselves, in byte and UTF mode");
    RUN(test_nocase, "NOCASE matches regardless of case, literal and UTF included");
    RUN(test_utf, "UTF mode matches code points, byte mode bytes");
    RUN(test_bad_pattern, "a pattern that does not compile is refused with PCRE2's message and offset");
    RUN(test_catastrophic_pattern_hits_limit, "(a+)+$ on a long line of a's stops at the match limit quickly");
    RUN(test_time_budget, "a time budget stops a long search soon after it is spent");
    RUN(test_cache_reuse, "a small pattern cache serves patterns and flags in turn correctly");
    RUN(test_memory_back, "freeing the pattern cache gives back its accounted memory");
    return TEST_DONE();
}
