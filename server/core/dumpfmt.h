/* dumpfmt.h -- the pieces of Redis's RDB serialization that DUMP payloads use:
 * the length encoding, strings (plain, integer-encoded and LZF-compressed),
 * and the CRC64 (Jones polynomial, reflected) that ends a payload.
 *
 * Why here: FUNCTION DUMP / RESTORE exchange payloads with redis-server (a
 * payload Redis made restores here and ours restores there), and the format is
 * a codec that knows nothing of the server. No allocation except the string
 * dump_get_string returns; every length read is checked against the end of
 * the input before it is trusted. */
#ifndef SP_DUMPFMT_H
#define SP_DUMPFMT_H

#include <stddef.h>
#include <stdint.h>

/* CRC64 (Jones) of p[0..n), continuing from crc (0 to start). */
uint64_t crc64_jones(uint64_t crc, const unsigned char *p, size_t n);
/* Write the RDB length encoding of len at out (at most 9 bytes); returns the
 * bytes written. */
size_t dump_put_len(unsigned char *out, uint64_t len);
/* Read one RDB string at *p (before end): plain, integer-encoded (as its
 * decimal text) or LZF-compressed. 0 with *out (xmalloc'd, NUL-terminated,
 * *outlen bytes; the caller frees it) and *p moved past it, or -1 if the
 * bytes are not a well-formed string (nothing allocated). */
int dump_get_string(const unsigned char **p, const unsigned char *end, char **out, size_t *outlen);
/* LZF: decompress in[0..inlen) into exactly outlen bytes at out. 0, or -1 if
 * the input is malformed or does not make exactly outlen bytes. */
int dump_lzf_decode(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen);

#endif
