/* test_dumpfmt.c -- the RDB pieces of DUMP payloads (core/dumpfmt.c), alone.
 *
 * CRC64 against Redis's published check value, lengths at every encoding
 * boundary written and read back, an LZF string made by hand (literals and an
 * overlapping back reference), integer-encoded strings, and every truncation
 * of a valid string refused without reading past the end. */
#include <stdlib.h>
#include <string.h>

#include "dumpfmt.h"
#include "mem.h"
#include "test.h"

static void test_crc64_check_value(void)
{
    CHECK(crc64_jones(0, (const unsigned char *)"123456789", 9) == 0xe9c6d914c4b8d9caULL);
    CHECK(crc64_jones(crc64_jones(0, (const unsigned char *)"1234", 4), (const unsigned char *)"56789", 5) ==
          0xe9c6d914c4b8d9caULL);
    CHECK(crc64_jones(0, (const unsigned char *)"", 0) == 0);
}

static void test_lengths_round_trip(void)
{
    static const uint64_t lens[] = {0, 1, 63, 64, 16383, 16384, 70000};
    size_t i;
    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        size_t n = (size_t)lens[i], hdr;
        unsigned char *buf = xmalloc(n + 16);
        const unsigned char *p = buf;
        char *out = NULL;
        size_t outlen = 0;
        hdr = dump_put_len(buf, n);
        CHECK(hdr == (n < 64 ? 1 : n < 16384 ? 2 : 5));
        memset(buf + hdr, 'a' + (int)(i % 26), n);
        CHECK(dump_get_string(&p, buf + hdr + n, &out, &outlen) == 0);
        CHECK(outlen == n && p == buf + hdr + n);
        CHECK(n == 0 || (out[0] == 'a' + (int)(i % 26) && out[n - 1] == out[0]));
        xfree(out);
        xfree(buf);
    }
}

static void test_lzf_string(void)
{
    /* "abcabcabcX": literals "abc", a back reference of 6 bytes to 3 back
     * (overlapping what it makes), a literal "X". */
    static const unsigned char body[] = {0x02, 'a', 'b', 'c', (4 << 5) | 0, 2, 0x00, 'X'};
    unsigned char buf[32];
    const unsigned char *p = buf;
    char *out = NULL;
    size_t outlen = 0, n = 0;

    buf[n++] = 0xC3;
    buf[n++] = sizeof(body);
    buf[n++] = 10;
    memcpy(buf + n, body, sizeof(body));
    n += sizeof(body);
    CHECK(dump_get_string(&p, buf + n, &out, &outlen) == 0);
    CHECK(outlen == 10 && memcmp(out, "abcabcabcX", 10) == 0);
    xfree(out);
    buf[2] = 11; /* a wrong raw length is refused */
    p = buf;
    CHECK(dump_get_string(&p, buf + n, &out, &outlen) < 0);
}

static void test_int_strings(void)
{
    static const unsigned char i8[] = {0xC0, 0xFB}, i16[] = {0xC1, 0x39, 0x30}, i32[] = {0xC2, 0x15, 0xCD, 0x5B, 0x07};
    const unsigned char *p;
    char *out;
    size_t n;

    p = i8;
    CHECK(dump_get_string(&p, i8 + sizeof(i8), &out, &n) == 0 && strcmp(out, "-5") == 0);
    xfree(out);
    p = i16;
    CHECK(dump_get_string(&p, i16 + sizeof(i16), &out, &n) == 0 && strcmp(out, "12345") == 0);
    xfree(out);
    p = i32;
    CHECK(dump_get_string(&p, i32 + sizeof(i32), &out, &n) == 0 && strcmp(out, "123456789") == 0);
    xfree(out);
}

static void test_truncations_refused(void)
{
    unsigned char buf[64];
    size_t hdr = dump_put_len(buf, 40), cut;
    memset(buf + hdr, 'z', 40);
    for (cut = 0; cut < hdr + 40; cut++) {
        const unsigned char *p = buf;
        char *out = NULL;
        size_t n;
        CHECK(dump_get_string(&p, buf + cut, &out, &n) < 0);
        CHECK(out == NULL);
    }
}

int main(void)
{
    RUN(test_crc64_check_value, "CRC64 gives Redis's check value for \"123456789\", in one call or two");
    RUN(test_lengths_round_trip, "strings of 0 to 70,000 bytes are written and read back at every length encoding");
    RUN(test_lzf_string, "an LZF string with an overlapping back reference decodes, and a wrong length is refused");
    RUN(test_int_strings, "integer-encoded strings of 1, 2 and 4 bytes read as their decimal text");
    RUN(test_truncations_refused, "every truncation of a string is refused without reading past the end");
    return TEST_DONE();
}
