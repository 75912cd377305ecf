/* test_textcount.c -- tc_count against a byte-by-byte model: every length up to
 * 600 at every alignment of 0..15, bytes drawn so that newlines and UTF-8
 * continuation bytes (0x80-0xBF) are frequent, and long runs that cross the
 * counters' flush points (255 blocks of 16 and of 8 bytes) with every byte a
 * newline or a continuation byte (a lane overflow would show). */
#include "textcount.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static void model(const unsigned char *p, size_t n, size_t *chars, size_t *nl)
{
    size_t i, cont = 0, lines = 0;
    for (i = 0; i < n; i++) {
        cont += (p[i] & 0xC0) == 0x80;
        lines += p[i] == '\n';
    }
    *chars = n - cont;
    *nl = lines;
}

static int agrees(const unsigned char *p, size_t n)
{
    size_t c1, l1, c2, l2;
    tc_count((const char *)p, n, &c1, &l1);
    model(p, n, &c2, &l2);
    return c1 == c2 && l1 == l2;
}

static void test_every_length_and_alignment(void)
{
    static unsigned char buf[640];
    size_t n, a, bad = 0;
    rng_seed(0x9E3779B97F4A7C15ull);
    for (n = 0; n < sizeof(buf); n++) {
        uint64_t r = rng();
        unsigned v = (unsigned)(r % 8);
        buf[n] = v == 0 ? '\n' : v <= 2 ? (unsigned char)(0x80 + r / 8 % 64) : v == 3 ? 0xE4 : (unsigned char)('a' + r % 26);
    }
    for (a = 0; a < 16; a++)
        for (n = 0; n + a <= 600; n++)
            bad += !agrees(buf + a, n);
    CHECK(bad == 0);
}

static void test_long_runs(void)
{
    size_t n = 16 * 255 * 3 + 8 * 255 + 13, i;
    unsigned char *p = malloc(n);
    size_t c, l;

    memset(p, '\n', n);
    tc_count((const char *)p, n, &c, &l);
    CHECK(l == n && c == n);
    memset(p, 0x80, n);
    tc_count((const char *)p, n, &c, &l);
    CHECK(l == 0 && c == 0);
    for (i = 0; i < n; i++)
        p[i] = i % 3 == 0 ? '\n' : i % 3 == 1 ? 0xBF : 'x';
    CHECK(agrees(p, n) && agrees(p + 1, n - 1) && agrees(p + 7, n - 9));
    tc_count((const char *)p, n, NULL, &l);
    CHECK(l == (n + 2) / 3);
    free(p);
}

int main(void)
{
    RUN(test_every_length_and_alignment, "tc_count agrees with a byte-by-byte count at every length to 600 and every alignment");
    RUN(test_long_runs, "runs past the counters' flush points (all newlines, all continuation bytes, mixed) count exactly");
    return TEST_DONE();
}
