/* textcount.c -- characters and newlines, eight bytes at a time (see textcount.h).
 *
 * Per 64-bit word, a continuation byte (10xxxxxx) is bit 7 set and bit 6
 * clear, and a '\n' is a zero byte of the word xor "\n\n\n\n\n\n\n\n"; each test
 * leaves a 0/1 flag in bit 0 of every byte lane. Flags are added lane-wise for
 * at most 255 words (a lane cannot overflow) and the lanes are then summed with
 * two multiplies, so the loop has no popcount (a libgcc call without -mpopcnt)
 * and no branch per byte. */
#include "textcount.h"

#include <stdint.h>
#include <string.h>

/* Sum of the eight byte lanes of x (each at most 255). */
static size_t lane_sum(uint64_t x)
{
    x = (x & 0x00FF00FF00FF00FFull) + (x >> 8 & 0x00FF00FF00FF00FFull);
    return (size_t)((x * 0x0001000100010001ull) >> 48);
}

void tc_count(const char *p, size_t n, size_t *chars, size_t *nl)
{
    const uint64_t lo7 = 0x7F7F7F7F7F7F7F7Full, hi = 0x8080808080808080ull;
    const uint64_t nlb = 0x0A0A0A0A0A0A0A0Aull;
    const unsigned char *s = (const unsigned char *)p;
    size_t i = 0, cont = 0, lines = 0;

    while (n - i >= 8) {
        size_t stop = n - i >= 8 * 255 ? i + 8 * 255 : n - 7;
        uint64_t ac = 0, al = 0;
        for (; i < stop; i += 8) {
            uint64_t x, t;
            memcpy(&x, s + i, 8);
            ac += (x & ~(x << 1) & hi) >> 7;
            t = x ^ nlb;
            al += (~(((t & lo7) + lo7) | t) & hi) >> 7;
        }
        cont += lane_sum(ac);
        lines += lane_sum(al);
    }
    for (; i < n; i++) {
        cont += (s[i] & 0xC0) == 0x80;
        lines += s[i] == '\n';
    }
    if (chars)
        *chars = n - cont;
    if (nl)
        *nl = lines;
}
