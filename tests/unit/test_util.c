/* test_util.c -- unit tests of the number formatting and parsing helpers (server/core/util.c).
 *
 * ll_to_str and ull_to_str are checked against snprintf on the edges of their
 * ranges and on random values of every magnitude; str_to_ll must read back
 * what ll_to_str wrote, and refuse what Redis's string2ll refuses. */
#include "test.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int same_as_printf_ll(long long v)
{
    char a[32], b[32];
    size_t n = ll_to_str(a, v);
    snprintf(b, sizeof(b), "%lld", v);
    return n == strlen(b) && strcmp(a, b) == 0;
}

static int same_as_printf_ull(unsigned long long v)
{
    char a[32], b[32];
    size_t n = ull_to_str(a, v);
    snprintf(b, sizeof(b), "%llu", v);
    return n == strlen(b) && strcmp(a, b) == 0;
}

static void test_format_edges(void)
{
    long long ll[] = {0, 1, -1, 9, 10, -10, 99, 100, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1, 1000000000000LL};
    unsigned long long ull[] = {0, 1, 9, 10, ULLONG_MAX, ULLONG_MAX - 1, (unsigned long long)LLONG_MAX + 1};
    size_t i;

    for (i = 0; i < sizeof(ll) / sizeof(ll[0]); i++)
        CHECK(same_as_printf_ll(ll[i]));
    for (i = 0; i < sizeof(ull) / sizeof(ull[0]); i++)
        CHECK(same_as_printf_ull(ull[i]));
}

static void test_format_random(void)
{
    int i;

    rng_seed(7);
    for (i = 0; i < 100000; i++) {
        uint64_t r = rng() >> (rng() % 64); /* every magnitude */
        long long v = (long long)r;
        char buf[32];
        long long back;
        CHECK(same_as_printf_ull(r));
        CHECK(same_as_printf_ll(v));
        CHECK(same_as_printf_ll(-v));
        CHECK(str_to_ll(buf, ll_to_str(buf, v), &back) == 0 && back == v);
    }
}

static void test_eq_ci(void)
{
    CHECK(str_eq_ci("FENCE", 5, "fence") == 1);
    CHECK(str_eq_ci("fEnCe", 5, "fence") == 1);
    CHECK(str_eq_ci("", 0, "") == 1);
    CHECK(str_eq_ci("", 0, "a") == 0);
    CHECK(str_eq_ci("fenc", 4, "fence") == 0);
    CHECK(str_eq_ci("fences", 6, "fence") == 0);
    CHECK(str_eq_ci("f\0nce", 5, "fence") == 0);
    CHECK(str_eq_ci("fence\0", 6, "fence") == 0);
    CHECK(str_eq_ci("[", 1, "{") == 0); /* 0x5b and 0x7b differ by the case bit, but are not letters */
    CHECK(str_eq_ci("@", 1, "`") == 0);
    CHECK(str_eq_ci("\xc9", 1, "\xe9") == 0); /* no folding past ASCII */
    CHECK(str_eq_ci("Z", 1, "z") == 1);
}

static void test_parse_refuses(void)
{
    const char *bad[] = {"",
                         "-",
                         "+1",
                         " 1",
                         "1 ",
                         "01",
                         "-0",
                         "9223372036854775808",
                         "-9223372036854775809",
                         "1a",
                         "0x10",
                         "9999999999999999999",
                         "-9999999999999999999",
                         "18446744073709551615",
                         "18446744073709551616",
                         "99999999999999999999",
                         "-1000000000000000000a",
                         "12345678:2345678",
                         "1234567/12345678",
                         "1234567?",
                         "12345678 1234567",
                         "1234567\x80"};
    long long v;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(str_to_ll(bad[i], strlen(bad[i]), &v) == -1);
    CHECK(str_to_ll("-9223372036854775808", 20, &v) == 0 && v == LLONG_MIN);
    CHECK(str_to_ll("0", 1, &v) == 0 && v == 0);
    CHECK(str_to_ll("9223372036854775807", 19, &v) == 0 && v == LLONG_MAX);
    CHECK(str_to_ll("1795686605122001", 16, &v) == 0 && v == 1795686605122001LL);
}

int main(void)
{
    RUN(test_format_edges, "ll_to_str and ull_to_str write what printf writes at the edges of their ranges");
    RUN(test_format_random, "100,000 random values of every magnitude format as printf does and parse back");
    RUN(test_eq_ci, "str_eq_ci folds the case of ASCII letters only and needs the whole word");
    RUN(test_parse_refuses, "str_to_ll refuses signs, spaces, leading zeros, overflow and trailing bytes");
    return TEST_DONE();
}
