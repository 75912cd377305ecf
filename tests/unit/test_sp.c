/* test_sp.c -- the scratchpad structure and its entries' content (sp.c), alone.
 *
 * Names, UTF-8 and kind detection are checked rule by rule against hand-written
 * vectors. Entries' content is driven through small compression thresholds and
 * chunk sizes (threshold 64, chunks of 1024, 4096 and 20000 bytes) so that raw
 * and multi-chunk compressed storage, and the move from one to the other in the
 * middle of an append, are all exercised; every count, window and position
 * lookup is compared with a plain buffer and naive functions over it, for text
 * whose multi-byte characters straddle chunk boundaries on purpose. Memory is
 * checked to come back to its baseline once everything is freed. */
#include "lz/lzval.h"
#include "mem.h"
#include "sp/sp.h"
#include "test.h"

#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model: a growable plain buffer and naive lookups over it ---- */

typedef struct mbuf {
    char *p;
    size_t n, cap;
} mbuf;

static void mbuf_add(mbuf *m, const char *p, size_t n)
{
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2 + 16;
        m->p = realloc(m->p, m->cap);
    }
    memcpy(m->p + m->n, p, n);
    m->n += n;
}

static void mbuf_set(mbuf *m, const char *p, size_t n)
{
    m->n = 0;
    mbuf_add(m, p, n);
}

static int is_lead(unsigned char c)
{
    return (c & 0xC0) != 0x80;
}

static size_t naive_chars(const char *p, size_t n)
{
    size_t i, c = 0;
    for (i = 0; i < n; i++)
        c += is_lead((unsigned char)p[i]);
    return c;
}

static size_t naive_newlines(const char *p, size_t n)
{
    size_t i, c = 0;
    for (i = 0; i < n; i++)
        c += p[i] == '\n';
    return c;
}

static size_t naive_lines(const char *p, size_t n)
{
    return naive_newlines(p, n) + (n > 0 && p[n - 1] != '\n');
}

static size_t naive_char_to_byte(const char *p, size_t n, size_t ch)
{
    size_t i, seen = 0;
    for (i = 0; i < n; i++)
        if (is_lead((unsigned char)p[i]) && seen++ == ch)
            return i;
    return n;
}

static size_t naive_line_start(const char *p, size_t n, size_t line)
{
    size_t i, passed = 0;
    if (line <= 1)
        return 0;
    for (i = 0; i < n; i++)
        if (p[i] == '\n' && ++passed == line - 1)
            return i + 1;
    return n;
}

/* Append to m one random piece of text: ASCII words, é, 中, 😀 and newlines. */
static void gen_text(mbuf *m, size_t n)
{
    static const char *pieces[] = {"a", "word ", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\n", "x=1;"};
    size_t start = m->n;
    while (m->n - start < n) {
        const char *s = pieces[rng_below(7)];
        mbuf_add(m, s, strlen(s));
    }
}

/* ---- names ---- */

static void test_names_valid(void)
{
    static const char *ok[] = {"a", "notes", "plan/step-1", "a.b", "a:b", "A_Z-09", "...", "a..", "..a", ".hidden",
                               "a/.b/c", "x/y/z", "log:2024-05-01", "-", "_", ":"};
    size_t i;
    char name[300];

    for (i = 0; i < sizeof ok / sizeof *ok; i++)
        CHECK(sp_name_valid(ok[i], strlen(ok[i])) == 1);
    memset(name, 'n', sizeof(name));
    CHECK(sp_name_valid(name, 255) == 1);
    CHECK(sp_name_valid(name, 256) == 0);
    CHECK(sp_name_valid(name, 1) == 1);
    /* 255 bytes made of segments stays valid; the limit is on bytes, not segments */
    for (i = 0; i < 255; i++)
        name[i] = (i % 2) ? '/' : 'q';
    CHECK(sp_name_valid(name, 255) == 1);
}

static void test_names_invalid(void)
{
    static const char *bad[] = {"", ".", "..", "/", "//", "/a", "a/", "a//b", "a/./b", "a/../b", "./a", "../a", "a/.",
                                "a/..", "a b", "a*b", "a?", "a\tb", "caf\xc3\xa9", "a\\b", "a,b", "a+b", "~a", "a\"b"};
    size_t i;
    char c, one[1];

    for (i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(sp_name_valid(bad[i], strlen(bad[i])) == 0);
    CHECK(sp_name_valid("a\0b", 3) == 0);
    CHECK(sp_name_valid("ab", 0) == 0);
    /* every byte outside the allowed set is refused on its own */
    for (i = 0; i < 256; i++) {
        int allowed;
        c = (char)i;
        one[0] = c;
        allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '-' || c == ':';
        /* "." and "/" alone are invalid as segments, not as characters */
        if (c == '.' || c == '/')
            allowed = 0;
        CHECK(sp_name_valid(one, 1) == allowed);
    }
}

/* ---- UTF-8 and kind ---- */

typedef struct vec {
    const char *s;
    size_t n;
} vec;

#define V(s) {s, sizeof(s) - 1}

static void test_utf8_valid(void)
{
    static const vec ok[] = {
        V(""),
        V("plain ascii"),
        V("\xc2\x80"),                 /* U+0080, smallest 2-byte */
        V("\xdf\xbf"),                 /* U+07FF */
        V("\xe0\xa0\x80"),             /* U+0800, smallest 3-byte */
        V("\xed\x9f\xbf"),             /* U+D7FF, just below the surrogates */
        V("\xee\x80\x80"),             /* U+E000, just above them */
        V("\xef\xbf\xbf"),             /* U+FFFF */
        V("\xf0\x90\x80\x80"),         /* U+10000, smallest 4-byte */
        V("\xf4\x8f\xbf\xbf"),         /* U+10FFFF, the largest */
        V("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
        V("0123456789abcdef\xc3\xa9"), /* a multi-byte char after the 8-byte fast path */
        V("a\0b"),                     /* NUL is valid UTF-8 */
    };
    size_t i;

    for (i = 0; i < sizeof ok / sizeof *ok; i++)
        CHECK(sp_utf8_valid(ok[i].s, ok[i].n) == 1);
}

static void test_utf8_invalid(void)
{
    static const vec bad[] = {
        V("\x80"),                     /* lone continuation */
        V("\xbf"),
        V("\xc0\x80"),                 /* overlong NUL */
        V("\xc1\xbf"),                 /* overlong 2-byte */
        V("\xe0\x80\x80"),             /* overlong 3-byte */
        V("\xe0\x9f\xbf"),
        V("\xf0\x80\x80\x80"),         /* overlong 4-byte */
        V("\xf0\x8f\xbf\xbf"),
        V("\xed\xa0\x80"),             /* U+D800 */
        V("\xed\xbf\xbf"),             /* U+DFFF */
        V("\xf4\x90\x80\x80"),         /* U+110000 */
        V("\xf5\x80\x80\x80"),
        V("\xf7\xbf\xbf\xbf"),
        V("\xf8\x88\x80\x80\x80"),     /* 5-byte form */
        V("\xfe"),
        V("\xff"),
        V("\xc3"),                     /* truncated 2-byte */
        V("\xe4\xb8"),                 /* truncated 3-byte */
        V("\xf0\x9f\x98"),             /* truncated 4-byte */
        V("\xc3\x41"),                 /* bad continuation */
        V("\xe4\x41\xad"),
        V("\xf0\x9f\x41\x80"),
        V("\xe4\xb8\xc3\xa9"),
        V("abcdefghijklmnop\x80"),     /* invalid right after an ASCII run */
        V("abcdefgh\xff" "abcdefgh"),
        V("abcdefghijklmno\xe4\xb8"),  /* truncated at the very end after a run */
    };
    size_t i;

    for (i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(sp_utf8_valid(bad[i].s, bad[i].n) == 0);
    /* a valid sequence cut by the length given is invalid */
    CHECK(sp_utf8_valid("\xf0\x9f\x98\x80", 3) == 0);
    CHECK(sp_utf8_valid("\xf0\x9f\x98\x80", 4) == 1);
}

static void test_detect_kind(void)
{
    CHECK(sp_detect_kind("", 0) == SP_TEXT);
    CHECK(sp_detect_kind("hello\nworld\n", 12) == SP_TEXT);
    CHECK(sp_detect_kind("caf\xc3\xa9 \xf0\x9f\x98\x80", 10) == SP_TEXT);
    CHECK(sp_detect_kind("a\0b", 3) == SP_BINARY);
    CHECK(sp_detect_kind("\0", 1) == SP_BINARY);
    CHECK(sp_detect_kind("\xff\xfe", 2) == SP_BINARY);
    CHECK(sp_detect_kind("ok \xed\xa0\x80", 6) == SP_BINARY);
    CHECK(sp_detect_kind("abc\xc3", 4) == SP_BINARY);
    CHECK(sp_count_chars("caf\xc3\xa9 \xe4\xb8\xad\xf0\x9f\x98\x80", 12) == 7);
    CHECK(sp_count_chars("", 0) == 0);
}

/* The word-at-a-time character and newline counts agree with a byte-by-byte
 * count on random bytes of every length and alignment. */
static void test_counts_against_bytewise(void)
{
    static const unsigned char pool[] = {'a', '\n', 0xC3, 0xA9, 0xE4, 0xB8, 0xAD, 0xF0, 0x9F, 0x80, 0x00, 0xFF};
    sp_params pr = {0, 1024, NULL, NULL, 1};
    unsigned char buf[80];
    uint32_t rng = 12345;
    int round;

    for (round = 0; round < 4000; round++) {
        size_t n = (size_t)(round % 72), off = (size_t)(round / 72) % 8, i, cont = 0, nl = 0;
        sp *s = sp_new();
        sp_entry *e;
        for (i = 0; i < n; i++) {
            rng = rng * 1103515245u + 12345u;
            buf[off + i] = pool[(rng >> 16) % sizeof(pool)];
            cont += (buf[off + i] & 0xC0) == 0x80;
            nl += buf[off + i] == '\n';
        }
        CHECK(sp_count_chars((const char *)buf + off, n) == n - cont);
        e = sp_add(s, "x", 1, 0);
        sp_entry_set(s, e, (const char *)buf + off, n, SP_BINARY, &pr);
        CHECK(e->newlines == nl);
        sp_free(s);
    }
}

/* One pass of sp_text_scan tells what the separate functions tell: validity as
 * sp_utf8_valid, characters as sp_count_chars, newlines and NULs as a byte
 * count, at every length and alignment, valid text and broken sequences alike. */
static void test_text_scan_against_separate(void)
{
    static const char *pieces[] = {"a", "\n", "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "xyzw1234",
                                   "\x00", "\xff", "\xc3", "\x80", "\xed\xa0\x80", "\xe0\x80\x80"};
    static const size_t plen[] = {1, 1, 2, 3, 4, 8, 1, 1, 1, 1, 3, 3};
    char buf[200];
    int round;

    rng_seed(11);
    for (round = 0; round < 20000; round++) {
        size_t off = (size_t)(round % 8), n = 0, i, nl = 0, cont = 0;
        int nul = 0, bad_ok = round % 3 == 0; /* a third of the rounds may break UTF-8 */
        sp_textinfo ti;
        while (n < 150) {
            size_t k = rng_below(bad_ok ? 12 : 6);
            if (rng_below(9) == 0)
                break;
            memcpy(buf + off + n, pieces[k], plen[k]);
            n += plen[k];
        }
        for (i = 0; i < n; i++) {
            unsigned char ch = (unsigned char)buf[off + i];
            nl += ch == '\n';
            nul |= ch == 0;
            cont += (ch & 0xC0) == 0x80;
        }
        sp_text_scan(buf + off, n, &ti);
        CHECK(ti.utf8 == sp_utf8_valid(buf + off, n));
        CHECK(ti.chars == n - cont && ti.chars == sp_count_chars(buf + off, n));
        CHECK(ti.newlines == nl);
        CHECK(ti.nul == nul);
        CHECK(sp_detect_kind(buf + off, n) == (ti.utf8 && !nul ? SP_TEXT : SP_BINARY));
    }
    /* Long ASCII runs (past the 255 blocks of 16 bytes a byte lane can count),
     * with one multi-byte character or one NUL placed anywhere. */
    for (round = 0; round < 60; round++) {
        size_t n = 9000 + rng_below(9000), i, nl = 0, at = rng_below(n - 4);
        char *big = malloc(n);
        sp_textinfo ti;
        for (i = 0; i < n; i++) {
            big[i] = rng_below(40) == 0 ? '\n' : (char)('a' + rng_below(26));
        }
        if (round % 3 == 1)
            memcpy(big + at, "\xe4\xb8\xad", 3);
        else if (round % 3 == 2)
            big[at] = 0;
        for (i = 0; i < n; i++)
            nl += big[i] == '\n';
        sp_text_scan(big, n, &ti);
        CHECK(ti.newlines == nl && ti.utf8 == 1 && ti.nul == (round % 3 == 2));
        CHECK(ti.chars == n - (round % 3 == 1 ? 2 : 0));
        free(big);
    }
}

/* ---- the sorted array ---- */

static int names_sorted(const sp *s)
{
    size_t i;
    for (i = 1; i < s->n; i++) {
        const sp_entry *a = s->e[i - 1], *b = s->e[i];
        size_t m = a->nlen < b->nlen ? a->nlen : b->nlen;
        int r = memcmp(a->name, b->name, m);
        if (r > 0 || (r == 0 && a->nlen >= b->nlen))
            return 0;
    }
    return 1;
}

static void test_sorted_insert_find_remove(void)
{
    static const char *names[] = {"b", "a", "a/b", "ab", "a-", "a.", "a:", "A", "Z", "_", "0", "9", "a/a", "aa",
                                  "b/c/d", "-", "zz", "a0", "abc", "ab/"};
    /* "ab/" is invalid, it is filtered below; the rest are inserted in this order */
    sp *s = sp_new();
    size_t i, k, inserted = 0;

    for (i = 0; i < sizeof names / sizeof *names; i++) {
        if (!sp_name_valid(names[i], strlen(names[i])))
            continue;
        CHECK(sp_find(s, names[i], strlen(names[i])) == NULL);
        sp_add(s, names[i], strlen(names[i]), 1000 + (int64_t)i);
        inserted++;
        CHECK(names_sorted(s));
    }
    CHECK(s->n == inserted);
    for (i = 0; i < sizeof names / sizeof *names; i++) {
        sp_entry *e;
        if (!sp_name_valid(names[i], strlen(names[i])))
            continue;
        e = sp_find(s, names[i], strlen(names[i]));
        CHECK(e != NULL && e->nlen == strlen(names[i]) && memcmp(e->name, names[i], e->nlen) == 0);
        CHECK(e != NULL && e->name[e->nlen] == '\0');
        CHECK(e != NULL && e->version == 0 && e->kind == SP_TEXT && e->expire == -1 && e->created == e->updated);
    }
    CHECK(sp_find(s, "a/", 2) == NULL);
    CHECK(sp_find(s, "abcd", 4) == NULL);
    CHECK(sp_find(s, "", 0) == NULL);
    /* "a" is a prefix of "a-", "a.", "a/a", "a/b", "a0", "a:", "aa", "ab", "abc":
     * the shorter name sorts first, and bytes compare unsigned */
    k = 0;
    while (k < s->n && strcmp(s->e[k]->name, "a") != 0)
        k++;
    CHECK(k < s->n && k + 1 < s->n && strcmp(s->e[k + 1]->name, "a-") == 0);
    /* upper bound: strictly greater, whether or not the name is present */
    for (k = 0; k < s->n; k++) {
        CHECK(sp_upper_bound(s, s->e[k]->name, s->e[k]->nlen) == k + 1);
    }
    CHECK(sp_upper_bound(s, "", 0) == 0);
    CHECK(sp_upper_bound(s, "zzz", 3) == s->n);
    {
        /* "a/" is absent: its upper bound is the first name above it, "a/a" */
        size_t ub = sp_upper_bound(s, "a/", 2);
        CHECK(ub < s->n && strcmp(s->e[ub]->name, "a/a") == 0);
        ub = sp_upper_bound(s, "ab0", 3);
        CHECK(ub < s->n && strcmp(s->e[ub]->name, "abc") == 0);
    }
    /* remove every other entry, then the rest; the order holds throughout */
    for (k = 0; k < s->n; k++)
        sp_remove(s, s->e[k]);
    CHECK(names_sorted(s));
    for (k = 0; k < s->n; k++)
        CHECK(sp_find(s, s->e[k]->name, s->e[k]->nlen) == s->e[k]);
    while (s->n) {
        sp_entry *e = s->e[rng_below(s->n)];
        char keep[SP_NAME_MAX + 1];
        size_t kl = e->nlen;
        memcpy(keep, e->name, kl);
        sp_remove(s, e);
        CHECK(sp_find(s, keep, kl) == NULL);
        CHECK(names_sorted(s));
    }
    CHECK(s->n == 0 && s->bytes == 0);
    sp_free(s);
    sp_free(NULL);
}

static void test_sorted_many_random(void)
{
    sp *s = sp_new();
    char name[32];
    size_t i, present = 0;
    unsigned char *in = calloc(2000, 1);

    rng_seed(7);
    for (i = 0; i < 6000; i++) {
        size_t k = rng_below(2000);
        size_t nl = (size_t)snprintf(name, sizeof name, "n/%zu", k);
        sp_entry *e = sp_find(s, name, nl);
        CHECK((e != NULL) == (in[k] != 0));
        if (e) {
            sp_remove(s, e);
            in[k] = 0;
            present--;
        } else {
            sp_add(s, name, nl, 0);
            in[k] = 1;
            present++;
        }
    }
    CHECK(s->n == present);
    CHECK(names_sorted(s));
    CHECK(s->cap >= s->n && (s->cap <= 16 || s->n >= s->cap / 4));
    sp_free(s);
    free(in);
}

/* Every entry the sorted array holds is found by name through the hash index,
 * and no other name is, through adds, removes, expiry and a copy; the index
 * stays at most half full and shrinks when the scratchpad empties. */
static int index_agrees(const sp *s, const unsigned char *in, size_t universe)
{
    char name[32];
    size_t k, i, found = 0;

    for (k = 0; k < universe; k++) {
        size_t nl = (size_t)snprintf(name, sizeof name, "idx/%zu", k);
        sp_entry *e = sp_find(s, name, nl);
        if ((e != NULL) != (in[k] != 0))
            return 0;
        if (e && (e->nlen != nl || memcmp(e->name, name, nl) != 0))
            return 0;
        found += e != NULL;
    }
    for (i = 0; i < s->n; i++)
        if (sp_find(s, s->e[i]->name, s->e[i]->nlen) != s->e[i])
            return 0;
    return found == s->n && (s->n == 0 ? s->idx == NULL : s->idxcap >= 2 * s->n);
}

static void test_name_index(void)
{
    enum { U = 3000 };
    sp *s = sp_new(), *d;
    unsigned char *in = calloc(U, 1);
    char name[32];
    size_t i;

    rng_seed(19);
    for (i = 0; i < 20000; i++) {
        size_t k = rng_below(i < 10000 ? U : 300);
        size_t nl = (size_t)snprintf(name, sizeof name, "idx/%zu", k);
        sp_entry *e = sp_find(s, name, nl);
        if (e) {
            sp_remove(s, e);
            in[k] = 0;
        } else {
            e = sp_add(s, name, nl, 0);
            if (rng_below(4) == 0)
                sp_set_expire(s, e, (int64_t)rng_below(100));
            in[k] = 1;
        }
        if (i % 997 == 0)
            CHECK(index_agrees(s, in, U));
    }
    CHECK(index_agrees(s, in, U));
    d = sp_dup(s);
    CHECK(d->idx != s->idx && index_agrees(d, in, U));
    sp_expire_due(s, 1000);
    for (i = 0; i < U; i++) {
        size_t nl = (size_t)snprintf(name, sizeof name, "idx/%zu", i);
        sp_entry *e = sp_find(d, name, nl);
        if (e && e->expire >= 0)
            in[i] = 0;
    }
    CHECK(index_agrees(s, in, U));
    while (s->n)
        sp_remove(s, s->e[rng_below(s->n)]);
    memset(in, 0, U);
    CHECK(index_agrees(s, in, U) && s->idx == NULL && s->idxcap == 0);
    sp_free(s);
    sp_free(d);
    free(in);
}

/* ---- expiry ---- */

static int64_t brute_next(const sp *s)
{
    size_t i;
    int64_t m = -1;
    for (i = 0; i < s->n; i++)
        if (s->e[i]->expire >= 0 && (m < 0 || s->e[i]->expire < m))
            m = s->e[i]->expire;
    return m;
}

static size_t brute_count(const sp *s)
{
    size_t i, c = 0;
    for (i = 0; i < s->n; i++)
        c += s->e[i]->expire >= 0;
    return c;
}

static void test_expire_bookkeeping(void)
{
    sp *s = sp_new();
    sp_params pr = {0, 1024, NULL, NULL, 1};
    sp_entry *a, *b, *c, *d;

    CHECK(sp_next_expire(s) == -1);
    CHECK(sp_expire_due(s, 1LL << 40) == 0);
    a = sp_add(s, "a", 1, 0);
    b = sp_add(s, "b", 1, 0);
    c = sp_add(s, "c", 1, 0);
    d = sp_add(s, "d", 1, 0);
    sp_entry_set(s, a, "aaaa", 4, SP_TEXT, &pr);
    sp_entry_set(s, b, "bb", 2, SP_TEXT, &pr);
    CHECK(s->bytes == 6);
    sp_set_expire(s, a, 300);
    sp_set_expire(s, b, 100);
    sp_set_expire(s, c, 200);
    CHECK(s->nexpiring == 3);
    CHECK(sp_next_expire(s) == 100);
    /* removing the earliest makes the next one exact, not the stale bound */
    sp_remove(s, b);
    CHECK(s->nexpiring == 2);
    CHECK(sp_next_expire(s) == 200);
    /* moving the earliest later */
    sp_set_expire(s, c, 500);
    CHECK(sp_next_expire(s) == 300);
    /* moving one earlier than the minimum */
    sp_set_expire(s, d, 50);
    CHECK(sp_next_expire(s) == 50);
    /* persisting the earliest */
    sp_set_expire(s, d, -1);
    CHECK(s->nexpiring == 2 && d->expire == -1);
    CHECK(sp_next_expire(s) == 300);
    /* setting the same expiry twice counts once */
    sp_set_expire(s, a, 300);
    sp_set_expire(s, a, 300);
    CHECK(s->nexpiring == 2);
    CHECK(sp_next_expire(s) == 300);
    /* nothing due before 300; exactly at 300 a goes (bytes too) */
    CHECK(sp_expire_due(s, 299) == 0);
    CHECK(s->n == 4 - 1);
    CHECK(sp_expire_due(s, 300) == 1);
    CHECK(sp_find(s, "a", 1) == NULL && s->bytes == 0);
    CHECK(s->nexpiring == 1 && sp_next_expire(s) == 500);
    CHECK(sp_expire_due(s, 10000) == 1);
    CHECK(s->n == 1 && sp_find(s, "d", 1) == d);
    CHECK(s->nexpiring == 0 && sp_next_expire(s) == -1);
    sp_free(s);
}

static void test_expire_random_against_brute_force(void)
{
    sp *s = sp_new();
    char name[16];
    size_t i;
    int64_t now = 0;
    int bad = 0;

    rng_seed(11);
    for (i = 0; i < 200; i++) {
        size_t nl = (size_t)snprintf(name, sizeof name, "e%zu", i);
        sp_add(s, name, nl, 0);
    }
    for (i = 0; i < 20000; i++) {
        size_t op = rng_below(10);
        if (s->n == 0)
            break;
        if (op < 5) {
            sp_entry *e = s->e[rng_below(s->n)];
            sp_set_expire(s, e, rng_below(4) == 0 ? -1 : now + 1 + (int64_t)rng_below(5000));
        } else if (op < 7) {
            size_t before = s->n, gone = 0, k;
            for (k = 0; k < s->n; k++)
                gone += s->e[k]->expire >= 0 && s->e[k]->expire <= now;
            bad += sp_expire_due(s, now) != gone;
            bad += s->n != before - gone;
        } else if (op < 8 && s->n > 20) {
            sp_remove(s, s->e[rng_below(s->n)]);
        } else {
            now += (int64_t)rng_below(40);
        }
        bad += s->nexpiring != brute_count(s);
        bad += sp_next_expire(s) != brute_next(s);
    }
    CHECK(bad == 0);
    sp_free(s);
}

/* ---- content ---- */

/* Positions worth checking in a value of n bytes: all of them when it is small,
 * else every position within 8 bytes of a multiple of 1024 (chunk and sub-block
 * boundaries for every chunk size used here) plus random ones. */
static int pos_wanted(size_t i, size_t n)
{
    size_t r = i % 1024;
    return n <= 8192 || r < 8 || r > 1024 - 8 || i == n || rng_below(16) == 0;
}

/* e holds exactly m: size, counts, bytes, and the position lookups (characters,
 * bytes, lines; see pos_wanted) against tables built once from m. */
static int entry_matches(const sp_entry *e, const mbuf *m, int kind, const sp_params *pr)
{
    size_t i, lines = naive_lines(m->p, m->n), chars = naive_chars(m->p, m->n), c, l;
    size_t *char_at = malloc(sizeof(size_t) * (m->n + 2));   /* char index -> byte */
    size_t *before = malloc(sizeof(size_t) * (m->n + 1));    /* byte -> chars before it */
    size_t *line_at = malloc(sizeof(size_t) * (lines + 3));  /* line -> byte it starts at */
    char *copy = NULL;
    int ok = 1;

    ok = ok && e->size == m->n && e->kind == kind;
    ok = ok && sp_entry_length(e) == (kind == SP_TEXT ? chars : m->n);
    ok = ok && e->newlines == naive_newlines(m->p, m->n) && sp_entry_lines(e) == lines;
    ok = ok && sp_entry_copy(e, &copy, pr) == 0 && memcmp(copy, m->p, m->n) == 0 && copy[m->n] == '\0';
    xfree(copy);
    for (i = 0, c = 0, l = 1, line_at[0] = line_at[1] = 0; i < m->n; i++) {
        before[i] = c;
        if (is_lead((unsigned char)m->p[i]))
            char_at[c++] = i;
        if (m->p[i] == '\n')
            line_at[++l] = i + 1;
    }
    before[m->n] = c;
    while (l < lines + 2)
        line_at[++l] = m->n;
    char_at[c] = m->n;
    /* the tables against the naive scans, where that is cheap */
    for (i = 0; m->n <= 2048 && i <= chars; i++)
        ok = ok && char_at[i] == naive_char_to_byte(m->p, m->n, i);
    for (i = 1; m->n <= 2048 && i <= lines + 2; i++)
        ok = ok && line_at[i] == naive_line_start(m->p, m->n, i);
    if (kind == SP_TEXT) {
        for (i = 0; i <= chars && ok; i++) {
            size_t b = (size_t)-1;
            if (!pos_wanted(char_at[i], m->n))
                continue;
            ok = sp_entry_char_to_byte(e, i, &b, pr) == 0 && b == char_at[i];
        }
    }
    for (i = 0; i <= m->n && ok; i++) {
        size_t ch = (size_t)-1;
        if (!pos_wanted(i, m->n))
            continue;
        ok = sp_entry_byte_to_char(e, i, &ch, pr) == 0 && ch == (kind == SP_TEXT ? before[i] : i);
    }
    for (i = 1; i <= lines + 2 && ok; i++) {
        size_t b = (size_t)-1;
        ok = sp_entry_line_start(e, i, &b, pr) == 0 && b == line_at[i];
    }
    for (i = 0; i < 200 && ok; i++) {
        size_t off = rng_below(m->n + 1), n = rng_below(m->n - off + 1);
        char *w = malloc(n + 8);
        memset(w, 0x5A, n + 8);
        ok = sp_entry_read(e, off, n, w, pr) == 0 && memcmp(w, m->p + off, n) == 0 && w[n] == 0x5A;
        free(w);
    }
    free(char_at);
    free(before);
    free(line_at);
    return ok;
}

static void test_content_across_threshold(void)
{
    static const size_t chunks[] = {1024, 4096, 20000};
    size_t ci;
    int kind;

    for (kind = SP_TEXT; kind <= SP_BINARY; kind++)
        for (ci = 0; ci < 3; ci++) {
            lzcache *cache = lzcache_new(4);
            sp_params pr = {64, chunks[ci], NULL, NULL, 1};
            sp *s = sp_new();
            sp_entry *e = sp_add(s, "doc", 3, 0);
            mbuf m = {0};
            size_t step;

            pr.cache = ci == 1 ? NULL : cache;
            rng_seed(100 + ci + 10 * (size_t)kind);
            /* below the threshold: raw */
            mbuf_set(&m, "hi \xc3\xa9\n", kind == SP_TEXT ? 6 : 6);
            if (kind == SP_BINARY)
                m.p[1] = '\0';
            sp_entry_set(s, e, m.p, m.n, kind, &pr);
            CHECK(e->enc == SP_ENC_RAW && sp_entry_chunks(e) == 0);
            CHECK(entry_matches(e, &m, kind, &pr));
            /* grow by appends of every size, through the threshold and many chunks */
            for (step = 0; step < 40; step++) {
                mbuf piece = {0};
                size_t want = step < 10 ? 1 + rng_below(20) : rng_below(3 * chunks[ci] / 2);
                size_t before = e->size;
                if (kind == SP_TEXT) {
                    gen_text(&piece, want);
                } else {
                    size_t k;
                    for (k = 0; k < want; k++) {
                        char b = (char)rng();
                        mbuf_add(&piece, &b, 1);
                    }
                }
                CHECK(sp_entry_append(s, e, piece.p, piece.n, &pr) == 0);
                mbuf_add(&m, piece.p, piece.n);
                free(piece.p);
                CHECK(e->enc == (m.n >= 64 ? SP_ENC_LZ4 : SP_ENC_RAW));
                CHECK(s->bytes == m.n && e->size == before + (m.n - before));
                if (step % 8 == 0 || step == 39)
                    CHECK(entry_matches(e, &m, kind, &pr));
            }
            CHECK(sp_entry_chunks(e) == (m.n + chunks[ci] - 1) / chunks[ci]);
            CHECK(sp_entry_chunks(e) > 2);
            /* a whole set above the threshold is compressed at once */
            sp_entry_set(s, e, m.p, m.n, kind, &pr);
            CHECK(e->enc == SP_ENC_LZ4 && entry_matches(e, &m, kind, &pr));
            /* and one below goes back to raw */
            sp_entry_set(s, e, m.p, 63, SP_BINARY, &pr);
            m.n = 63;
            CHECK(e->enc == SP_ENC_RAW && entry_matches(e, &m, SP_BINARY, &pr));
            CHECK(s->bytes == 63);
            /* appending nothing changes nothing */
            CHECK(sp_entry_append(s, e, "", 0, &pr) == 0 && e->size == 63);
            free(m.p);
            sp_free(s);
            lzcache_free(cache);
        }
}

/* Random splices (sp_entry_splice) of whole lines in a text entry and of any
 * bytes in a binary one, raw (threshold out of reach) and compressed, agree
 * with a plain buffer: bytes, counts, lines, final newline, reads, the
 * scratchpad's byte total; the encoding stays; a splice past the end fails. */
static void test_splice_matches_model(void)
{
    static const size_t thresholds[] = {1u << 30, 64};
    size_t ti;
    int kind, bad = 0;

    for (kind = SP_TEXT; kind <= SP_BINARY; kind++)
        for (ti = 0; ti < 2; ti++) {
            sp_params pr = {thresholds[ti], 1024, NULL, NULL, 1};
            sp *s = sp_new();
            sp_entry *e = sp_add(s, "doc", 3, 0);
            mbuf m = {0};
            int step, enc;

            rng_seed(700 + ti + 10 * (size_t)kind);
            for (step = 0; step < 300; step++) {
                char line[64];
                int k = snprintf(line, sizeof line, "line %d caf\xc3\xa9 %u\n", step, (unsigned)rng_below(1000));
                mbuf_add(&m, line, (size_t)k);
            }
            sp_entry_set(s, e, m.p, m.n, kind, &pr);
            enc = e->enc;
            for (step = 0; step < 150 && !bad; step++) {
                char ins[200];
                size_t off = rng_below(m.n + 1), end = off + rng_below(m.n - off < 3000 ? m.n - off + 1 : 3000);
                size_t n = 0, k;
                if (kind == SP_TEXT) { /* whole lines: from a line start to a line start */
                    while (off > 0 && m.p[off - 1] != '\n')
                        off--;
                    if (end < off)
                        end = off;
                    while (end > off && end < m.n && m.p[end - 1] != '\n')
                        end++;
                    n = (size_t)snprintf(ins, sizeof ins, "%s", step % 3 ? "an inserted line \xe2\x9c\x93\n" : "");
                } else {
                    for (n = rng_below(sizeof ins), k = 0; k < n; k++)
                        ins[k] = (char)rng();
                }
                bad += sp_entry_splice(s, e, off, end - off, ins, n, &pr) != 0;
                if (m.n + n > m.cap) {
                    m.cap = m.n + n;
                    m.p = realloc(m.p, m.cap);
                }
                memmove(m.p + off + n, m.p + off + (end - off), m.n - end);
                m.n = m.n - (end - off) + n;
                memcpy(m.p + off, ins, n);
                bad += !entry_matches(e, &m, kind, &pr) || e->enc != enc || s->bytes != m.n;
            }
            bad += sp_entry_splice(s, e, m.n, 1, "x", 1, &pr) != -1 || e->size != m.n;
            free(m.p);
            sp_free(s);
        }
    CHECK(bad == 0);
}

/* Characters of 2, 3 and 4 bytes cut by a chunk boundary at every possible
 * place: each lookup still lands on lead bytes only. */
static void test_multibyte_across_chunk_boundaries(void)
{
    static const char *chs[] = {"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80"};
    static const size_t chunks[] = {1024, 4096};
    size_t ci, w, cut;
    int bad = 0;

    for (ci = 0; ci < 2; ci++)
        for (w = 0; w < 3; w++)
            for (cut = 1; cut < strlen(chs[w]); cut++) {
                size_t cs = chunks[ci], k;
                lzcache *cache = lzcache_new(2);
                sp_params pr = {64, cs, cache, NULL, 1};
                sp *s = sp_new();
                sp_entry *e = sp_add(s, "t", 1, 0), *f = sp_add(s, "u", 1, 0);
                mbuf m = {0};

                /* fill so that chs[w] starts cut bytes before every chunk boundary */
                for (k = 1; k <= 3; k++) {
                    while (m.n < k * cs - cut)
                        mbuf_add(&m, (m.n % 50 == 49) ? "\n" : "a", 1);
                    mbuf_add(&m, chs[w], strlen(chs[w]));
                }
                mbuf_add(&m, "\nend", 4);
                sp_entry_set(s, e, m.p, m.n, SP_TEXT, &pr);
                bad += !entry_matches(e, &m, SP_TEXT, &pr);
                /* the same bytes built by appends of 1..7 bytes, cut inside characters
                 * (the first piece is ASCII, so it is text on its own) */
                for (k = 0; k < m.n;) {
                    size_t n = 1 + rng_below(7);
                    if (n > m.n - k)
                        n = m.n - k;
                    if (k == 0)
                        sp_entry_set(s, f, m.p, n, SP_TEXT, &pr);
                    else
                        bad += sp_entry_append(s, f, m.p + k, n, &pr) != 0;
                    k += n;
                }
                bad += !entry_matches(f, &m, SP_TEXT, &pr);
                free(m.p);
                sp_free(s);
                lzcache_free(cache);
            }
    CHECK(bad == 0);
}

static void test_random_text_against_model(void)
{
    lzcache *cache = lzcache_new(3);
    sp_params pr = {64, 1024, cache, NULL, 1};
    sp *s = sp_new();
    sp_entry *e = sp_add(s, "r", 1, 0);
    mbuf m = {0};
    size_t round;
    int bad = 0;

    rng_seed(4242);
    for (round = 0; round < 30; round++) {
        mbuf piece = {0};
        gen_text(&piece, rng_below(round % 5 == 0 ? 5000 : 300));
        if (round % 7 == 0) {
            sp_entry_set(s, e, piece.p, piece.n, SP_TEXT, &pr);
            mbuf_set(&m, piece.p, piece.n);
        } else {
            bad += sp_entry_append(s, e, piece.p, piece.n, &pr) != 0;
            mbuf_add(&m, piece.p, piece.n);
        }
        free(piece.p);
        bad += !entry_matches(e, &m, SP_TEXT, &pr);
    }
    CHECK(bad == 0);
    free(m.p);
    sp_free(s);
    lzcache_free(cache);
}

static void test_append_to_fresh_entry(void)
{
    sp_params pr = {64, 1024, NULL, NULL, 1};
    sp *s = sp_new();
    sp_entry *a = sp_add(s, "a", 1, 0), *b = sp_add(s, "b", 1, 0);
    mbuf m = {0};
    char *copy = NULL;

    CHECK(a->size == 0 && sp_entry_lines(a) == 0 && sp_entry_copy(a, &copy, &pr) == 0 && copy[0] == '\0');
    xfree(copy);
    CHECK(sp_entry_append(s, a, "x\n", 2, &pr) == 0);
    mbuf_set(&m, "x\n", 2);
    CHECK(a->enc == SP_ENC_RAW && entry_matches(a, &m, SP_TEXT, &pr));
    rng_seed(77);
    m.n = 0;
    gen_text(&m, 3000);
    CHECK(sp_entry_append(s, b, m.p, m.n, &pr) == 0);
    CHECK(b->enc == SP_ENC_LZ4 && entry_matches(b, &m, SP_TEXT, &pr));
    CHECK(s->bytes == 2 + m.n);
    free(m.p);
    sp_free(s);
}

static void hex32(const uint8_t *d, char *out)
{
    int k;
    for (k = 0; k < 32; k++)
        snprintf(out + 2 * k, 3, "%02x", d[k]);
}

static void test_sha256(void)
{
    sp_params pr = {64, 1024, NULL, NULL, 1};
    sp *s = sp_new();
    sp_entry *e = sp_add(s, "h", 1, 0);
    uint8_t d[32], d2[32];
    char hex[65];
    mbuf m = {0};
    struct sha256_ctx ctx;

    sp_entry_set(s, e, "abc", 3, SP_TEXT, &pr);
    CHECK(sp_entry_sha256(e, d, &pr) == 0);
    hex32(d, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    CHECK(e->has_sha == 1);
    sp_entry_set(s, e, "", 0, SP_TEXT, &pr);
    CHECK(e->has_sha == 0);
    CHECK(sp_entry_sha256(e, d, &pr) == 0);
    hex32(d, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    /* compressed, several chunks: the digest of the bytes, dropped on append */
    rng_seed(5);
    gen_text(&m, 5000);
    sp_entry_set(s, e, m.p, m.n, SP_TEXT, &pr);
    CHECK(e->enc == SP_ENC_LZ4 && sp_entry_chunks(e) >= 5);
    CHECK(sp_entry_sha256(e, d, &pr) == 0);
    sha256_init(&ctx);
    sha256_update(&ctx, m.n, (const uint8_t *)m.p);
    sha256_digest(&ctx, 32, d2);
    CHECK(memcmp(d, d2, 32) == 0);
    CHECK(sp_entry_append(s, e, "more", 4, &pr) == 0);
    CHECK(e->has_sha == 0);
    mbuf_add(&m, "more", 4);
    CHECK(sp_entry_sha256(e, d, &pr) == 0);
    sha256_init(&ctx);
    sha256_update(&ctx, m.n, (const uint8_t *)m.p);
    sha256_digest(&ctx, 32, d2);
    CHECK(memcmp(d, d2, 32) == 0);
    free(m.p);
    sp_free(s);
}

static void test_dup_independent(void)
{
    sp_params pr = {64, 1024, NULL, NULL, 1};
    sp *s = sp_new(), *d;
    sp_entry *a = sp_add(s, "a", 1, 5), *b = sp_add(s, "b", 1, 6), *x;
    mbuf big = {0};
    char *copy;

    rng_seed(9);
    gen_text(&big, 3000);
    sp_entry_set(s, a, "small raw", 9, SP_TEXT, &pr);
    sp_entry_set(s, b, big.p, big.n, SP_TEXT, &pr);
    a->version = 3;
    sp_set_expire(s, a, 777);
    d = sp_dup(s);
    CHECK(d->n == 2 && d->bytes == s->bytes && d->nexpiring == 1 && sp_next_expire(d) == 777);
    /* change the original every way (through sp_own: the copy shares the entries) */
    CHECK(a->shares == 1 && b->shares == 1);
    a = sp_own(s, a);
    b = sp_own(s, b);
    CHECK(sp_entry_append(s, a, "!", 1, &pr) == 0);
    CHECK(sp_entry_append(s, b, "tail", 4, &pr) == 0);
    sp_add(s, "c", 1, 7);
    sp_remove(s, sp_find(s, "a", 1));
    /* the copy is as it was */
    x = sp_find(d, "a", 1);
    CHECK(x && x->size == 9 && x->version == 3 && x->expire == 777);
    CHECK(x && sp_entry_copy(x, &copy, &pr) == 0 && memcmp(copy, "small raw", 9) == 0);
    xfree(copy);
    CHECK(sp_find(d, "c", 1) == NULL);
    sp_free(s);
    x = sp_find(d, "b", 1);
    CHECK(x && x->size == big.n && x->enc == SP_ENC_LZ4);
    CHECK(x && sp_entry_copy(x, &copy, &pr) == 0 && memcmp(copy, big.p, big.n) == 0);
    xfree(copy);
    /* the copy can be changed on its own */
    sp_add(d, "z", 1, 8);
    x = sp_own(d, x);
    CHECK(sp_entry_append(d, x, "x", 1, &pr) == 0 && x->size == big.n + 1);
    CHECK(names_sorted(d) && d->n == 3);
    sp_free(d);
    /* an empty scratchpad duplicates to an empty one */
    s = sp_new();
    d = sp_dup(s);
    CHECK(d->n == 0);
    sp_add(d, "q", 1, 0);
    CHECK(d->n == 1 && s->n == 0);
    sp_free(s);
    sp_free(d);
    free(big.p);
}

static void test_memory_back_to_baseline(void)
{
    size_t base = mem_used();
    lzcache *cache = lzcache_new(4);
    sp_params pr = {64, 1024, cache, NULL, 1};
    sp *s = sp_new(), *d;
    mbuf m = {0};
    uint8_t h[32];
    char name[16];
    size_t i, k;

    rng_seed(33);
    for (i = 0; i < 50; i++) {
        size_t nl = (size_t)snprintf(name, sizeof name, "m%zu", i);
        sp_entry *e = sp_add(s, name, nl, 0);
        m.n = 0;
        gen_text(&m, rng_below(4000));
        sp_entry_set(s, e, m.p, m.n, SP_TEXT, &pr);
        for (k = 0; k < 5; k++)
            CHECK(sp_entry_append(s, e, m.p, m.n < 500 ? m.n : 500, &pr) == 0);
        CHECK(sp_entry_sha256(e, h, &pr) == 0);
        if (i % 3 == 0)
            sp_set_expire(s, e, 100 + (int64_t)i);
    }
    CHECK(sp_stored(s) > 0 && sp_stored(s) <= mem_used() - base);
    d = sp_dup(s);
    for (i = 0; i < 10; i++)
        sp_remove(s, s->e[0]);
    sp_expire_due(s, 120);
    sp_free(s);
    sp_free(d);
    lzcache_free(cache);
    free(m.p);
    CHECK(mem_used() == base);
}

/* sp_text_scan_sub gives what sp_text_scan gives for the whole content, and for
 * all-ASCII content the newline count of each sub-block of lzval's layout
 * (lzval_layout); content with one byte of 0x80 or more anywhere (valid UTF-8
 * with sequences across sub-block ends, or not) has no sub-block counts. */
static void test_text_scan_sub(void)
{
    size_t chunks[] = {1024, 10000, 65536};
    size_t sizes[] = {0, 1, 8191, 8192, 8193, 20000, 65536, 131075};
    uint32_t rng = 777;
    size_t ci, si, i, j;
    int variant;

    for (ci = 0; ci < 3; ci++)
        for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (variant = 0; variant < 4; variant++) {
                size_t n = sizes[si], cs, sub, nsub;
                unsigned char *p = malloc(n + 4);
                sp_textinfo a, b;
                int ascii = 1;
                for (i = 0; i < n; i++) {
                    rng = rng * 1103515245u + 12345u;
                    p[i] = (rng >> 16) % 9 == 0 ? '\n' : (rng >> 16) % 300 == 1 ? 0 : 'a' + (rng >> 20) % 26;
                }
                if (variant == 1 && n >= 8194) { /* an e-acute across the first sub-block's end */
                    p[8191] = 0xC3;
                    p[8192] = 0xA9;
                    ascii = 0;
                } else if (variant == 2 && n > 0) { /* an invalid byte at the end */
                    p[n - 1] = 0xFF;
                    ascii = 0;
                } else if (variant == 3 && n >= 3) { /* a 3-byte sequence at the start */
                    p[0] = 0xE4;
                    p[1] = 0xB8;
                    p[2] = 0xAD;
                    ascii = 0;
                }
                sp_text_scan((const char *)p, n, &a);
                sp_text_scan_sub((const char *)p, n, chunks[ci], &b);
                CHECK(a.chars == b.chars && a.newlines == b.newlines && a.utf8 == b.utf8 && a.nul == b.nul);
                if ((b.sub_nl != NULL) != (ascii && n > 0))
                    fprintf(stderr, "    chunk %zu, %zu bytes, variant %d\n", chunks[ci], n, variant);
                CHECK((b.sub_nl != NULL) == (ascii && n > 0) && a.sub_nl == NULL);
                if (!b.sub_nl)
                    goto next;
                CHECK(b.sub_cs == chunks[ci]);
                lzval_layout(chunks[ci], &cs, &sub);
                nsub = (cs + sub - 1) / sub;
                for (i = 0; i * cs < n; i++)
                    for (j = 0; j < nsub && i * cs + j * sub < n; j++) {
                        size_t lo = i * cs + j * sub, hi = lo + sub, k, c = 0;
                        if (hi > (i + 1) * cs)
                            hi = (i + 1) * cs;
                        if (hi > n)
                            hi = n;
                        for (k = lo; k < hi; k++)
                            c += p[k] == '\n';
                        CHECK(b.sub_nl[i * nsub + j] == c);
                    }
            next:
                free(p);
            }
}

static void test_offload_counters(void)
{
    sp *s = sp_new(), *d;
    uint64_t *a, *b;
    size_t before;

    a = sp_offload_counter(s, "read_file", 9);
    CHECK(*a == 0);
    (*a)++;
    b = sp_offload_counter(s, "grep", 4);
    CHECK(*b == 0);
    (*b) += 5;
    CHECK(*sp_offload_counter(s, "read_file", 9) == 1 && *sp_offload_counter(s, "grep", 4) == 5);
    CHECK(s->noffs == 2);
    /* A prefix first seen on a scratchpad of an older log starts at its single counter. */
    s->offload_seq = 7;
    CHECK(*sp_offload_counter(s, "bash", 4) == 7);
    before = sp_stored(s);
    d = sp_dup(s);
    CHECK(d->noffs == 3 && *sp_offload_counter(d, "grep", 4) == 5 && d->co == NULL);
    (*sp_offload_counter(d, "grep", 4))++;
    CHECK(*sp_offload_counter(s, "grep", 4) == 5);
    CHECK(sp_stored(d) == before);
    sp_free(d);
    sp_free(s);
}

int main(void)
{
    RUN(test_splice_matches_model,
        "splices of whole lines of text and of any bytes, raw and compressed, agree with a plain buffer and keep the encoding");
    RUN(test_names_valid, "names of 1 to 255 allowed bytes, dots inside segments included, are valid");
    RUN(test_names_invalid, "empty, 256-byte, '.', '..' or empty-segment names and any other byte are refused");
    RUN(test_utf8_valid, "UTF-8 from U+0000 to U+10FFFF, boundaries included, is valid");
    RUN(test_counts_against_bytewise, "character and newline counts taken 8 bytes at a time match a byte-by-byte count at every length and alignment");
    RUN(test_utf8_invalid, "overlongs, surrogates, values past U+10FFFF, bad and truncated sequences are invalid");
    RUN(test_text_scan_against_separate, "one scan gives the validity, characters, newlines and NULs that the "
                                         "separate functions give, at every length and alignment");
    RUN(test_text_scan_sub, "the scan by sub-blocks gives the whole scan's answer, and for ASCII content each "
                            "sub-block's newlines in lzval's layout; a byte of 0x80 or more anywhere gives none");
    RUN(test_name_index, "the hash index finds exactly the entries present by name through adds, removes, "
                         "expiry and a copy, and empties with the scratchpad");
    RUN(test_detect_kind, "content is text when valid UTF-8 without NUL, binary otherwise");
    RUN(test_sorted_insert_find_remove, "entries stay sorted by name bytes through inserts and removals, with "
                                        "find and upper_bound exact");
    RUN(test_sorted_many_random, "thousands of random adds and removes keep the array sorted and sized");
    RUN(test_expire_bookkeeping, "expiry counters and the next expiry stay exact through sets, removals and expiry");
    RUN(test_expire_random_against_brute_force, "random expiry changes agree with a brute-force scan every step");
    RUN(test_content_across_threshold, "appends across the compression threshold and many chunks keep every "
                                       "count, window and lookup equal to a plain buffer");
    RUN(test_multibyte_across_chunk_boundaries, "characters cut by a chunk boundary at every place map between "
                                                "characters, bytes and lines exactly");
    RUN(test_random_text_against_model, "random text writes and appends agree with a naive model");
    RUN(test_append_to_fresh_entry, "an entry fresh from sp_add takes appends, also straight past the threshold");
    RUN(test_sha256, "sha256 is the standard digest (abc, empty, multi-chunk) and is dropped on change");
    RUN(test_dup_independent, "a duplicated scratchpad is independent of its original");
    RUN(test_offload_counters,
        "SP.OFFLOAD keeps one counter per prefix, copied by a duplicate, which has no leases or feed");
    RUN(test_memory_back_to_baseline, "memory comes back to its baseline once the scratchpads and cache are freed");
    return TEST_DONE();
}
