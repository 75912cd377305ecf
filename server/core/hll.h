/* hll.h -- HyperLogLog in Redis's representation, byte for byte.
 *
 * Why: an HLL is a string value; a user copies it with GET and SET between
 * Redis and Scratchpad and expects the same count, and the differential tests
 * compare GET of an HLL byte for byte. So this module follows the documented
 * format exactly: a 16-byte header ("HYLL", the encoding byte 0 dense / 1
 * sparse, three unused bytes, the cached cardinality as 8 little-endian bytes
 * whose top bit set means "stale"), then 16384 registers of 6 bits: dense,
 * packed least significant bit first (12288 bytes), or sparse, as the opcodes
 * ZERO (00xxxxxx: 1..64 zero registers), XZERO (01xxxxxx yyyyyyyy: 1..16384 zero
 * registers) and VAL (1vvvvvxx: 1..4 registers of value 1..32). An element is
 * hashed with MurmurHash64A (seed 0xadc83b19); its low 14 bits pick the
 * register, and the register takes the position of the first set bit of the
 * other 50 (1..51). The count is Ertl's improved estimator, as Redis 7.0's.
 * Updates of a sparse HLL rewrite the opcode they touch in the same canonical
 * way Redis does (split into at most five opcodes, then adjacent equal VALs
 * merged), and it turns dense when a register exceeds 32 or the value would
 * pass the sparse size limit (hll-sparse-max-bytes).
 *
 * Conventions: an HLL being changed is an hll_buf the caller owns (a copy of the
 * value: bytes plus one 0 byte past the end, as a C string's, which a truncated
 * XZERO at the end reads as Redis's does); functions return 1 (changed), 0
 * (unchanged) or -1 (the sparse opcodes do not describe exactly 16384
 * registers: corrupt). No globals. */
#ifndef SP_HLL_H
#define SP_HLL_H

#include <stddef.h>
#include <stdint.h>

#define HLL_REGISTERS 16384
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + HLL_REGISTERS * 6 / 8)
#define HLL_ENC_DENSE 0
#define HLL_ENC_SPARSE 1

typedef struct hll_buf {
    unsigned char *p; /* the value's bytes, then a 0 byte */
    size_t len;       /* bytes, without the 0 */
    size_t cap;       /* bytes allocated (mem.h) */
} hll_buf;

/* MurmurHash64A of p[0..n) with Redis's seed. */
uint64_t hll_hash(const void *p, size_t n);

/* 1 if p[0..n) is an HLL as Redis checks it: at least a header, the magic,
 * encoding 0 or 1, and a dense one exactly HLL_DENSE_SIZE bytes. Reads only
 * the header (p may hold just its 16 bytes, n being the value's length). */
int hll_valid(const unsigned char *p, size_t n);

/* b becomes a copy of p[0..n) (b->p allocated; free with hll_buf_free). */
void hll_buf_load(hll_buf *b, const unsigned char *p, size_t n);
/* b becomes a new empty sparse HLL (18 bytes). */
void hll_buf_new(hll_buf *b);
void hll_buf_free(hll_buf *b);

/* Add an element: 1 if a register changed, 0 if not, -1 if corrupt. A change
 * of a sparse HLL marks the cached cardinality stale, as Redis's does (which
 * shows when a later element meets a damage); of a dense one, not: the caller
 * calls hll_invalidate after its changes. */
int hll_add(hll_buf *b, const void *ele, size_t n, size_t sparse_max);
/* Add an element to the dense HLL at p (HLL_DENSE_SIZE bytes, changed in
 * place: PFADD needs no copy of the 12 KB): 1 if a register changed, else 0.
 * The cached cardinality is left as it is (the caller invalidates it). */
int hll_dense_add(unsigned char *p, const void *ele, size_t n);
/* Raise register i to at least v (1..63, PFMERGE): as hll_add. */
int hll_set_register(hll_buf *b, uint32_t i, int v, size_t sparse_max);
/* Make b dense (nothing if it is): 0, or -1 if corrupt (b unchanged). */
int hll_to_dense(hll_buf *b);

/* Mark the cached cardinality of the HLL at p stale. */
void hll_invalidate(unsigned char *p);
/* 1 and *card if the cached cardinality of p is valid, else 0. */
int hll_cached(const unsigned char *p, uint64_t *card);
/* Store card as p's cached cardinality (valid). */
void hll_set_cache(unsigned char *p, uint64_t card);

/* Raise max[i] to register i of the HLL p[0..n) (valid per hll_valid), for
 * every i: 0, or -1 if corrupt. */
int hll_merge(uint8_t max[HLL_REGISTERS], const unsigned char *p, size_t n);
/* The estimate of the HLL p[0..n): 0, or -1 if corrupt. */
int hll_count(const unsigned char *p, size_t n, uint64_t *card);
/* The estimate of registers given one per byte (PFCOUNT of several keys). */
uint64_t hll_count_registers(const uint8_t regs[HLL_REGISTERS]);

#endif
