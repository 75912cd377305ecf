/* test_rdbval.c -- Redis 7.0's RDB value encodings (core/rdbval.c), alone.
 *
 * Listpacks: a list of redis-server's DUMP decoded to its elements and written
 * back to the same bytes; integers at every encoding boundary and strings at
 * every length boundary round-trip; damaged listpacks (a wrong back-length, a
 * wrong count, a cut) are refused. Strings as rdbSaveRawString writes them
 * (integer-encoded, LZF). Ziplists (with a 254-byte entry, whose successor's
 * previous length takes 5 bytes), zipmaps and intsets read, their damages
 * refused. A payload's trailer checked. Scores formatted as Redis's d2string. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "dumpfmt.h"
#include "mem.h"
#include "rdbval.h"
#include "test.h"

/* redis-server 7.0.15: RPUSH l a 1 -5 100000 x*30, DUMP l: the node's listpack
 * (after its LZF), as Redis wrote it. */
static const char *list_elems[] = {"a", "1", "-5", "100000", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};

static void a_listpack_round_trips_to_the_same_bytes(void)
{
    rdb_out lp = {0}, again = {0};
    rdb_iter it;
    uint64_t count, i;
    const char *p;
    size_t n;

    rdb_lp_begin(&lp);
    for (i = 0; i < 5; i++)
        rdb_lp_str(&lp, list_elems[i], strlen(list_elems[i]));
    rdb_lp_end(&lp, 5);
    /* header 6, "a" 3, 1 as 7-bit 2, -5 as 13-bit 3, 100000 as 24-bit 5, 30 bytes 32, end 1 */
    CHECK(lp.len == 6 + 3 + 2 + 3 + 5 + 32 + 1);
    CHECK(lp.p[6] == 0x81 && lp.p[9] == 0x01 && lp.p[11] == 0xDF && lp.p[12] == 0xFB && lp.p[14] == 0xF2);
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) == 0 && count == 5);
    rdb_lp_begin(&again);
    for (i = 0; rdb_next(&it, &p, &n, NULL); i++) {
        CHECK(n == strlen(list_elems[i]) && memcmp(p, list_elems[i], n) == 0);
        rdb_lp_str(&again, p, n);
    }
    CHECK(i == 5);
    rdb_lp_end(&again, 5);
    CHECK(again.len == lp.len && memcmp(again.p, lp.p, lp.len) == 0);
    rdb_out_free(&lp);
    rdb_out_free(&again);
}

static void integers_and_lengths_at_every_boundary_round_trip(void)
{
    static const long long ints[] = {0,
                                     127,
                                     128,
                                     -1,
                                     -4096,
                                     4095,
                                     4096,
                                     -4097,
                                     32767,
                                     -32768,
                                     32768,
                                     8388607,
                                     -8388608,
                                     8388608,
                                     2147483647,
                                     -2147483648LL,
                                     2147483648LL,
                                     9223372036854775807LL,
                                     -9223372036854775807LL - 1};
    static const size_t lens[] = {0, 63, 64, 100, 4095, 4096, 20000};
    rdb_out lp = {0};
    rdb_iter it;
    uint64_t count;
    const char *p;
    size_t n, i;
    char buf[32];
    char *s = xmalloc(20000);
    int isint;

    memset(s, 'q', 20000);
    rdb_lp_begin(&lp);
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        rdb_lp_int(&lp, ints[i]);
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        rdb_lp_str(&lp, s, lens[i]);
    rdb_lp_str(&lp, "007", 3); /* not canonical: a string */
    rdb_lp_end(&lp, 0);        /* a wrong count is refused... */
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) < 0);
    lp.p[4] = 0xff; /* ...65535 means "count them" */
    lp.p[5] = 0xff;
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) == 0);
    CHECK(count == sizeof(ints) / sizeof(ints[0]) + sizeof(lens) / sizeof(lens[0]) + 1);
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        CHECK(rdb_next(&it, &p, &n, &isint) == 1 && isint);
        snprintf(buf, sizeof(buf), "%lld", ints[i]);
        CHECK(n == strlen(buf) && memcmp(p, buf, n) == 0);
    }
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        CHECK(rdb_next(&it, &p, &n, &isint) == 1 && !isint && n == lens[i]);
    CHECK(rdb_next(&it, &p, &n, &isint) == 1 && !isint && n == 3 && memcmp(p, "007", 3) == 0);
    CHECK(rdb_next(&it, &p, &n, &isint) == 0);
    rdb_out_free(&lp);
    xfree(s);
}

static void damaged_listpacks_are_refused(void)
{
    rdb_out lp = {0};
    rdb_iter it;
    uint64_t count;
    size_t cut;

    rdb_lp_begin(&lp);
    rdb_lp_str(&lp, "hello", 5);
    rdb_lp_int(&lp, 1000);
    rdb_lp_end(&lp, 2);
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) == 0);
    for (cut = 0; cut < lp.len; cut++) /* every cut (its total fixed or not) */
        CHECK(rdb_lp_open(&it, lp.p, cut, &count) < 0);
    lp.p[6 + 6] ^= 1; /* "hello"'s back-length */
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) < 0);
    lp.p[6 + 6] ^= 1;
    lp.p[6] = 0xF7; /* no such encoding */
    CHECK(rdb_lp_open(&it, lp.p, lp.len, &count) < 0);
    rdb_out_free(&lp);
}

static void strings_are_written_as_redis_writes_them(void)
{
    rdb_out o = {0};
    char big[100];

    rdb_put_string(&o, "12", 2);
    CHECK(o.len == 2 && o.p[0] == 0xC0 && o.p[1] == 12);
    o.len = 0;
    rdb_put_string(&o, "-1234", 5);
    CHECK(o.len == 3 && o.p[0] == 0xC1);
    o.len = 0;
    rdb_put_string(&o, "123456789", 9);
    CHECK(o.len == 5 && o.p[0] == 0xC2);
    o.len = 0;
    rdb_put_string(&o, "012", 3); /* not canonical */
    CHECK(o.len == 4 && o.p[0] == 3);
    o.len = 0;
    rdb_put_string(&o, "12345678901", 11); /* past 32 bits */
    CHECK(o.len == 12 && o.p[0] == 11);
    o.len = 0;
    memset(big, 'a', sizeof(big));
    rdb_put_string(&o, big, sizeof(big)); /* LZF, and back */
    CHECK(o.p[0] == 0xC3 && o.len < 20);
    {
        const unsigned char *p = o.p;
        char *out;
        size_t n;
        CHECK(dump_get_string(&p, o.p + o.len, &out, &n) == 0 && n == 100 && memcmp(out, big, 100) == 0);
        xfree(out);
    }
    rdb_out_free(&o);
}

/* A ziplist of strings, each entry's previous length as Redis writes it. */
static size_t make_ziplist(unsigned char *z, const size_t *lens, int n)
{
    size_t off = 10, prev = 0, last = 10;
    int i;
    for (i = 0; i < n; i++) {
        size_t start = off;
        last = off;
        if (prev < 254) {
            z[off++] = (unsigned char)prev;
        } else {
            z[off++] = 254;
            z[off++] = (unsigned char)prev;
            z[off++] = (unsigned char)(prev >> 8);
            z[off++] = 0;
            z[off++] = 0;
        }
        if (lens[i] < 64) {
            z[off++] = (unsigned char)lens[i];
        } else {
            z[off++] = (unsigned char)(0x40 | (lens[i] >> 8));
            z[off++] = (unsigned char)(lens[i] & 0xff);
        }
        memset(z + off, 'z', lens[i]);
        off += lens[i];
        prev = off - start;
    }
    z[off++] = 0xff;
    z[0] = (unsigned char)off;
    z[1] = (unsigned char)(off >> 8);
    z[2] = z[3] = 0;
    z[4] = (unsigned char)last;
    z[5] = (unsigned char)(last >> 8);
    z[6] = z[7] = 0;
    z[8] = (unsigned char)n;
    z[9] = 0;
    return off;
}

static void ziplists_zipmaps_and_intsets_read_and_damage_is_refused(void)
{
    static const size_t lens[] = {3, 300, 5};
    unsigned char z[1024];
    static const unsigned char zm[] = {2, 1, 'a', 1, 0, 'b', 2, 'c', 'd', 3, 1, 'x', 'y', 'z', 0, 0xff};
    static const unsigned char is[] = {2, 0, 0, 0, 3, 0, 0, 0, 0xfd, 0xff, 1, 0, 2, 0};
    unsigned char bad[sizeof(is)];
    rdb_iter it;
    uint64_t count;
    const char *p;
    size_t n, zl = make_ziplist(z, lens, 3);

    CHECK(rdb_zl_open(&it, z, zl, &count) == 0 && count == 3);
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 3);
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 300);
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 5);
    z[10 + 1 + 1 + 3 + 5 + 2 + 300] ^= 1; /* the third entry's previous length */
    CHECK(rdb_zl_open(&it, z, zl, &count) < 0);
    CHECK(rdb_zm_open(&it, zm, sizeof(zm), &count) == 0 && count == 4);
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 1 && p[0] == 'a');
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 1 && p[0] == 'b');
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 2 && p[0] == 'c');
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 3 && p[2] == 'z'); /* the free byte skipped */
    CHECK(rdb_zm_open(&it, zm, sizeof(zm) - 2, &count) < 0);
    CHECK(rdb_is_open(&it, is, sizeof(is), &count) == 0 && count == 3);
    CHECK(rdb_next(&it, &p, &n, NULL) && n == 2 && memcmp(p, "-3", 2) == 0);
    memcpy(bad, is, sizeof(is));
    bad[12] = 0; /* 2 becomes 0: not ascending */
    CHECK(rdb_is_open(&it, bad, sizeof(bad), &count) < 0);
    bad[0] = 3; /* no such width */
    CHECK(rdb_is_open(&it, bad, sizeof(bad), &count) < 0);
    CHECK(rdb_is_open(&it, is, sizeof(is) - 1, &count) < 0);
}

static void trailers_and_scores(void)
{
    rdb_out o = {0};
    char buf[32];

    rdb_put_byte(&o, 0);
    rdb_put_string(&o, "v", 1);
    rdb_put_trailer(&o);
    CHECK(o.len == 3 + 10 && rdb_check_trailer(o.p, o.len) == 0);
    o.p[1] ^= 1;
    CHECK(rdb_check_trailer(o.p, o.len) < 0);
    CHECK(rdb_check_trailer(o.p, 9) < 0);
    rdb_out_free(&o);
    CHECK(rdb_fmt_score(buf, 3.0) == 1 && strcmp(buf, "3") == 0);
    CHECK(rdb_fmt_score(buf, -0.0) == 1 && strcmp(buf, "0") == 0);
    CHECK(strcmp((rdb_fmt_score(buf, 0.1), buf), "0.10000000000000001") == 0);
    CHECK(strcmp((rdb_fmt_score(buf, 1152921504606846976.0), buf), "1152921504606846976") == 0);
    CHECK(strcmp((rdb_fmt_score(buf, 1e300), buf), "1.0000000000000001e+300") == 0);
    CHECK(strcmp((rdb_fmt_score(buf, -1.0 / 0.0), buf), "-inf") == 0);
}

static void an_lzf_string_claiming_4_gb_is_refused(void)
{
    /* 0xC3, compressed length 2, raw length 2^32 - 1: refused before its
     * buffer is allocated (RESTORE's payloads are a client's bytes). */
    static const unsigned char s[] = {0xC3, 0x02, 0x80, 0xff, 0xff, 0xff, 0xff, 0x00, 'a'};
    const unsigned char *p = s;
    char *out = NULL;
    size_t n;
#ifndef __SANITIZE_ADDRESS__
    /* A 1 GB address space: a 4 GB allocation would abort the test (xmalloc). */
    struct rlimit old, lim;
    getrlimit(RLIMIT_AS, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)1 << 30;
    setrlimit(RLIMIT_AS, &lim);
#endif
    CHECK(dump_get_string(&p, s + sizeof(s), &out, &n) < 0 && out == NULL && p == s);
#ifndef __SANITIZE_ADDRESS__
    setrlimit(RLIMIT_AS, &old);
#endif
}

int main(void)
{
    RUN(a_listpack_round_trips_to_the_same_bytes, "a list's listpack is written as redis-server's and reads back");
    RUN(integers_and_lengths_at_every_boundary_round_trip,
        "integers and strings at every listpack encoding boundary round-trip; a wrong count is refused");
    RUN(damaged_listpacks_are_refused, "every cut, a wrong back-length and an unknown encoding are refused");
    RUN(strings_are_written_as_redis_writes_them, "strings are integer-encoded, plain or LZF as Redis decides");
    RUN(ziplists_zipmaps_and_intsets_read_and_damage_is_refused,
        "ziplists, zipmaps and intsets read; a wrong previous length, a cut, disorder and a bad width are refused");
    RUN(an_lzf_string_claiming_4_gb_is_refused,
        "an LZF string claiming 4 GB from 2 bytes is refused, nothing allocated");
    RUN(trailers_and_scores, "a payload's trailer is checked, and scores print as Redis 7.0's d2string");
    return TEST_DONE();
}
