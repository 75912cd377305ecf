/* fuzz_dump.c -- libFuzzer target: the RDB string decoder of DUMP payloads
 * (server/core/dumpfmt.c: dump_get_string, and through it the length encoding
 * and the LZF decoder), which FUNCTION RESTORE runs on payloads a client sends.
 *
 * The input is read as a sequence of RDB strings, each decoded in turn until one
 * is not well formed (plain, integer-encoded, LZF-compressed). Beyond the
 * sanitizers' checks: a decoded string never moves the position past the end,
 * its bytes are NUL-terminated, and an integer-encoded one is the decimal text
 * of a number; and a plain string re-encoded with dump_put_len decodes back to
 * the same bytes. */
#include "dumpfmt.h"
#include "mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what)
{
    fprintf(stdout, "%s\n", what);
    fflush(stdout);
    abort();
}

/* dump_put_len(n) + s decodes back to s. */
static void round_trip(const char *s, size_t n)
{
    unsigned char *enc = malloc(n + 9);
    const unsigned char *p = enc;
    size_t h;
    char *out;
    size_t outlen;

    if (!enc)
        abort();
    h = dump_put_len(enc, n);
    memcpy(enc + h, s, n);
    if (dump_get_string(&p, enc + h + n, &out, &outlen) < 0)
        fail("a re-encoded string does not decode");
    if (outlen != n || memcmp(out, s, n) != 0 || p != enc + h + n)
        fail("a re-encoded string decodes to other bytes");
    xfree(out);
    free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned char *p = data, *end = data + size;
    int k;

    for (k = 0; k < 64 && p < end; k++) {
        const unsigned char *before = p;
        char *s;
        size_t n;
        if (dump_get_string(&p, end, &s, &n) < 0) {
            if (p != before)
                fail("a failed decode moved the position");
            break;
        }
        if (p <= before || p > end || s[n] != '\0')
            fail("a decoded string is out of bounds or not terminated");
        if ((*before >> 6) == 3 && (*before & 0x3f) <= 2 && (n == 0 || strtoll(s, NULL, 10) == 0) && strcmp(s, "0"))
            fail("an integer-encoded string is not a number's text");
        round_trip(s, n);
        xfree(s);
    }
    return 0;
}
