/* test_hll.c -- core/hll: Redis's HyperLogLog representation and estimate.
 * The expected bytes and counts are redis-server 7.0.15's for the same
 * elements (PFADD then GET / PFCOUNT). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hll.h"
#include "test.h"

static uint64_t count_of(int n, int *dense)
{
    hll_buf b;
    char e[16];
    uint64_t card = 0;
    int i;

    hll_buf_new(&b);
    for (i = 0; i < n; i++) {
        int len = snprintf(e, sizeof(e), "%d", i);
        if (hll_add(&b, e, (size_t)len, 3000) < 0)
            CHECK(0);
    }
    hll_invalidate(b.p);
    CHECK(hll_count(b.p, b.len, &card) == 0);
    *dense = b.p[4] == HLL_ENC_DENSE;
    CHECK(!*dense || b.len == HLL_DENSE_SIZE);
    hll_buf_free(&b);
    return card;
}

static void a_new_hll_is_one_xzero(void)
{
    static const unsigned char want[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff";
    hll_buf b;
    uint64_t card = 1;

    hll_buf_new(&b);
    CHECK(b.len == 18 && memcmp(b.p, want, 18) == 0);
    CHECK(hll_valid(b.p, b.len));
    CHECK(hll_cached(b.p, &card) && card == 0);
    hll_buf_free(&b);
}

static void three_elements_give_redis_bytes(void)
{
    static const unsigned char want[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80`\xf3\x80P\xb1\x84K\xfb\x80"
                                        "BZ";
    hll_buf b;
    uint64_t card;

    hll_buf_new(&b);
    CHECK(hll_add(&b, "a", 1, 3000) == 1);
    CHECK(hll_add(&b, "b", 1, 3000) == 1);
    CHECK(hll_add(&b, "c", 1, 3000) == 1);
    CHECK(hll_add(&b, "c", 1, 3000) == 0);
    CHECK(b.len == sizeof(want) - 1 && memcmp(b.p, want, b.len) == 0);
    CHECK(!hll_cached(b.p, &card));
    CHECK(hll_count(b.p, b.len, &card) == 0 && card == 3);
    hll_buf_free(&b);
}

static void counts_match_redis(void)
{
    int dense;

    CHECK(count_of(20, &dense) == 20 && !dense);
    CHECK(count_of(1000, &dense) == 1001);
    CHECK(count_of(100000, &dense) == 99565 && dense);
}

static void damage_is_detected(void)
{
    static const unsigned char over[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff\x80";
    static const unsigned char shrt[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xfe";
    uint8_t max[HLL_REGISTERS] = {0};
    uint64_t card;
    hll_buf b;

    CHECK(hll_count(over, sizeof(over) - 1, &card) < 0);
    CHECK(hll_merge(max, over, sizeof(over) - 1) < 0);
    CHECK(hll_count(shrt, sizeof(shrt) - 1, &card) < 0);
    hll_buf_load(&b, shrt, sizeof(shrt) - 1);
    CHECK(hll_to_dense(&b) < 0 && b.len == sizeof(shrt) - 1);
    hll_buf_free(&b);
    CHECK(!hll_valid((const unsigned char *)"HYLL", 4));
    CHECK(!hll_valid((const unsigned char *)"HYLL\x02\0\0\0\0\0\0\0\0\0\0\0", 16));
    CHECK(!hll_valid((const unsigned char *)"HYLL\x00\0\0\0\0\0\0\0\0\0\0\0", 16));
}

static void merge_and_raw_count_agree(void)
{
    uint8_t max[HLL_REGISTERS] = {0};
    hll_buf b;
    uint64_t one, all;
    char e[16];
    int i;

    hll_buf_new(&b);
    for (i = 0; i < 5000; i++)
        hll_add(&b, e, (size_t)snprintf(e, sizeof(e), "x%d", i), 3000);
    CHECK(hll_count(b.p, b.len, &one) == 0);
    CHECK(hll_merge(max, b.p, b.len) == 0);
    all = hll_count_registers(max);
    CHECK(one == all);
    hll_buf_free(&b);
}

static void dense_add_in_place_matches_the_copy(void)
{
    hll_buf a;
    unsigned char *raw;
    char ele[32];
    int i, ra, rb;

    hll_buf_new(&a);
    CHECK(hll_to_dense(&a) == 0 && a.len == HLL_DENSE_SIZE);
    raw = malloc(HLL_DENSE_SIZE);
    memcpy(raw, a.p, HLL_DENSE_SIZE);
    for (i = 0; i < 20000; i++) {
        int n = snprintf(ele, sizeof(ele), "e%d", i % 15000); /* repeats: some adds change nothing */
        ra = hll_add(&a, ele, (size_t)n, 3000);
        rb = hll_dense_add(raw, ele, (size_t)n);
        CHECK(ra == rb);
    }
    CHECK(memcmp(a.p, raw, HLL_DENSE_SIZE) == 0);
    hll_buf_free(&a);
    free(raw);
}

int main(void)
{
    RUN(a_new_hll_is_one_xzero, "a new HLL is the 16-byte header and one XZERO of 16384 registers, cache valid at 0");
    RUN(three_elements_give_redis_bytes, "PFADD a b c gives redis-server's bytes, with the cache marked stale");
    RUN(counts_match_redis, "the estimate of 20, 1000 and 100000 elements is redis-server's (sparse, then dense)");
    RUN(damage_is_detected, "opcodes covering more or fewer than 16384 registers, and bad headers, are refused");
    RUN(dense_add_in_place_matches_the_copy,
        "adding to a dense HLL in place (PFADD's path) gives the bytes and the answers of the copy's");
    RUN(merge_and_raw_count_agree, "counting merged registers gives the same estimate as counting the HLL");
    return TEST_DONE();
}
