/* test_bitops.c -- core/bitops: counting, search and fields over a buffer. */
#include <string.h>

#include "bitops.h"
#include "test.h"

static void popcount_counts_every_length(void)
{
    unsigned char b[37];
    size_t n;

    memset(b, 0xff, sizeof(b));
    for (n = 0; n <= sizeof(b); n++)
        CHECK(bit_popcount(b, n) == n * 8);
    b[3] = 0x01;
    CHECK(bit_popcount(b, 37) == 37 * 8 - 7);
}

/* Random bytes at every offset and length up to 200 (the 32-byte steps, the
 * 8-byte steps and the tail), against a count bit by bit. */
static void popcount_matches_a_bit_by_bit_count(void)
{
    unsigned char b[256];
    uint32_t x = 12345;
    size_t i, off, n;

    for (i = 0; i < sizeof(b); i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (unsigned char)(x >> 16);
    }
    for (off = 0; off < 8; off++)
        for (n = 0; n <= 200; n++) {
            uint64_t want = 0;
            for (i = 0; i < n * 8; i++)
                want += (uint64_t)((b[off + i / 8] >> (i % 8)) & 1);
            CHECK(bit_popcount(b + off, n) == want);
        }
}

static void find_gives_the_first_matching_bit_msb_first(void)
{
    unsigned char b[20] = {0};

    CHECK(bit_find(b, 20, 1) == -1);
    CHECK(bit_find(b, 20, 0) == 0);
    b[17] = 0x10;
    CHECK(bit_find(b, 20, 1) == 17 * 8 + 3);
    memset(b, 0xff, sizeof(b));
    CHECK(bit_find(b, 20, 0) == -1);
    b[9] = 0xfe;
    CHECK(bit_find(b, 20, 0) == 9 * 8 + 7);
}

static void fields_round_trip_at_any_offset_and_width(void)
{
    unsigned char b[16];
    int bits;
    uint64_t off;

    for (bits = 1; bits <= 64; bits++)
        for (off = 0; off < 40; off += 3) {
            uint64_t v = 0xa5c3e1f00f1e3c5aULL & (bits == 64 ? UINT64_MAX : ((1ULL << bits) - 1));
            memset(b, 0x33, sizeof(b));
            bit_field_set(b, off, bits, v);
            CHECK(bit_field_get(b, off, bits) == v);
            if (off > 0)
                CHECK(bit_field_get(b, 0, 1) == 0); /* the bits before are kept */
        }
    memset(b, 0, sizeof(b));
    bit_field_set(b, 4, 8, 0xff);
    CHECK(b[0] == 0x0f && b[1] == 0xf0);
    CHECK(bit_field_get_signed(b, 4, 8) == -1);
    CHECK(bit_field_get_signed(b, 4, 9) == -2);
}

static void overflow_wraps_saturates_or_fails(void)
{
    int64_t out;

    CHECK(bit_field_fit(100, 8, 0, BIT_OVF_WRAP, &out) == 0 && out == 100);
    CHECK(bit_field_fit(256 + 7, 8, 0, BIT_OVF_WRAP, &out) == 1 && out == 7);
    CHECK(bit_field_fit(-1, 8, 0, BIT_OVF_SAT, &out) == 1 && out == 0);
    CHECK(bit_field_fit(300, 8, 0, BIT_OVF_SAT, &out) == 1 && out == 255);
    CHECK(bit_field_fit(128, 8, 1, BIT_OVF_WRAP, &out) == 1 && out == -128);
    CHECK(bit_field_fit(-129, 8, 1, BIT_OVF_SAT, &out) == 1 && out == -128);
    CHECK(bit_field_fit((__int128)INT64_MAX + 1, 64, 1, BIT_OVF_WRAP, &out) == 1 && out == INT64_MIN);
    CHECK(bit_field_fit((__int128)(uint64_t)-1, 8, 0, BIT_OVF_SAT, &out) == 1 && out == 255);
}

int main(void)
{
    RUN(popcount_counts_every_length, "a popcount counts every byte of a buffer of any length");
    RUN(popcount_matches_a_bit_by_bit_count,
        "a popcount of random bytes at every offset and length up to 200 equals a count bit by bit");
    RUN(find_gives_the_first_matching_bit_msb_first,
        "a search finds the first bit equal to 0 or 1, most significant first");
    RUN(fields_round_trip_at_any_offset_and_width, "a field of any width stored at any bit offset reads back the same");
    RUN(overflow_wraps_saturates_or_fails, "a result out of a field's range wraps, saturates or is refused");
    return TEST_DONE();
}
