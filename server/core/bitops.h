/* bitops.h -- bit counting, bit search and bit fields over a byte buffer.
 *
 * Why: the bitmap commands (types/string/cmd_bitmap.c) read a string value in
 * windows (a compressed value is read a window at a time, never whole), so the
 * bit arithmetic works on one buffer at a time and knows nothing of values.
 * Bit numbering is Redis's: bit 0 is the most significant bit of byte 0, and a
 * field of `bits` bits at bit offset `off` is read most significant bit first.
 *
 * Conventions: pure functions, no allocation, no globals. */
#ifndef SP_BITOPS_H
#define SP_BITOPS_H

#include <stddef.h>
#include <stdint.h>

/* Number of set bits in p[0..n). */
uint64_t bit_popcount(const unsigned char *p, size_t n);

/* Position (bit index from p's first bit) of the first bit equal to bit (0 or
 * 1) in p[0..n), or -1 if there is none. */
int64_t bit_find(const unsigned char *p, size_t n, int bit);

/* The unsigned field of bits (1..64) bits at bit offset off of p; the buffer
 * must hold bit off + bits - 1. */
uint64_t bit_field_get(const unsigned char *p, uint64_t off, int bits);
/* The same field read as a two's complement signed integer. */
int64_t bit_field_get_signed(const unsigned char *p, uint64_t off, int bits);
/* Store the low bits of v in the field of bits bits at bit offset off. */
void bit_field_set(unsigned char *p, uint64_t off, int bits, uint64_t v);

/* What BITFIELD does when a result leaves the field's range. */
enum { BIT_OVF_WRAP = 0, BIT_OVF_SAT, BIT_OVF_FAIL };

/* The value a field of bits bits (signed if sign) takes for the exact result
 * r (any integer: an increment's sum, or a value to store): *out gets r itself
 * if it fits, else what the overflow mode gives (WRAP: r's low bits, sign
 * extended for a signed field; SAT: the nearest bound). Returns 1 if r did not
 * fit (the caller refuses the write under BIT_OVF_FAIL), else 0. Redis's rule
 * for SET on an unsigned field is that the value is taken as its 64-bit
 * unsigned pattern: pass (unsigned __int128)(uint64_t)v for it. */
int bit_field_fit(__int128 r, int bits, int sign, int mode, int64_t *out);

#endif
