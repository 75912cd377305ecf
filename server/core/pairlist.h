/* pairlist.h -- a compact contiguous encoding of (field, value) pairs: the
 * small hash ("listpack" as OBJECT ENCODING names it).
 *
 * Why: a hash of a few small fields in a hash table costs a node, a bucket and
 * an allocation per field; here the whole hash is one run of bytes, which the
 * keyspace keeps inside the key's own entry. Lookups scan it (it is small:
 * hash-max-listpack-entries bounds it), so every operation is O(bytes).
 *
 * Layout: a 2-byte little-endian pair count, then the pairs in insertion
 * order; a pair is varint(flen) field varint(vlen) value, a varint being 7 bits
 * a byte, low bits first, the high bit set on every byte but the last. An
 * updated field keeps its place; a new one goes at the end (as Redis's
 * listpack, so replies list fields in the same order).
 *
 * Memory is the caller's: it owns a buffer of `len` bytes and, before a
 * change, gives it room for the new length (pl_set_len). Offsets stay valid
 * across such a move; the pointers of a decoded pair do not.
 *
 * Invariant: count <= PL_MAX_COUNT (the caller converts to another encoding
 * before). No globals, no allocation. */
#ifndef SP_PAIRLIST_H
#define SP_PAIRLIST_H

#include <stddef.h>
#include <stdint.h>

#define PL_HDR 2
#define PL_MAX_COUNT 65535

/* One decoded pair. f and v point into the buffer; off and size locate it. */
typedef struct pl_pair {
    const char *f, *v;
    size_t flen, vlen; /* bytes */
    size_t off, size;  /* bytes: where the pair starts, its encoded length */
} pl_pair;

/* Write an empty pairlist at buf (PL_HDR bytes); returns PL_HDR. */
size_t pl_init(char *buf);
/* Pairs in the pairlist at buf. */
unsigned pl_count(const char *buf);
/* Encoded bytes of a pair of a flen-byte field and a vlen-byte value. */
size_t pl_pair_size(size_t flen, size_t vlen);
/* Decode the pair at off (PL_HDR <= off < len) into *p; returns the offset of
 * the next pair (len after the last). */
size_t pl_decode(const char *buf, size_t off, pl_pair *p);
/* Find field f: 1 with *p set, or 0. */
int pl_find(const char *buf, size_t len, const char *f, size_t flen, pl_pair *p);
/* The pair of index i (0 <= i < count), by a scan. */
void pl_index(const char *buf, size_t i, pl_pair *p);
/* The length after setting f to a vlen-byte value: old is the pair f has (from
 * pl_find), or NULL when f is new. */
size_t pl_set_len(size_t len, const pl_pair *old, size_t flen, size_t vlen);
/* Set f to v: replace pair old in place (old from pl_find, only off and size
 * used) or, with old NULL, append a new pair. buf holds at least
 * pl_set_len(...) bytes; v must not point into buf. Returns the new length. */
size_t pl_set(char *buf, size_t len, const pl_pair *old, const char *f, size_t flen, const char *v, size_t vlen);
/* Remove pair p (only off and size used); returns the new length. */
size_t pl_del(char *buf, size_t len, const pl_pair *p);

#endif
