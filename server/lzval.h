/* lzval.h -- a byte string stored as independently LZ4-compressed chunks.
 *
 * Why: agents park large, repetitive text (logs, tool outputs) and read back small
 * windows of it. Storing it as chunks of chunk_size raw bytes, each compressed on
 * its own (LZ4_compress_default; kept raw when compression saves less than 1/8),
 * cuts memory several-fold while a window read decompresses only the chunks it
 * touches, and an append re-compresses only the last chunk.
 *
 * The index: per chunk, its raw byte offset, raw length, stored length, whether it
 * is compressed, and prefix counts of characters and newlines, so that a byte, a
 * character (UTF-8 code point) or a line is located by binary search plus a walk
 * inside one chunk. Characters are counted as bytes that are not UTF-8
 * continuation bytes (10xxxxxx), so a character split across two chunks counts in
 * the chunk holding its lead byte; for valid UTF-8 this is the code-point count.
 *
 * Safety: chunks are only ever decompressed with LZ4_decompress_safe into a buffer
 * of the chunk's recorded raw size, and a result of another size is corruption:
 * every reading function then returns -1 and writes nothing past its output.
 *
 * The cache (lzcache) keeps a few recently decompressed chunks so that repeated
 * window reads of the same region (HEAD, TAIL, paging) do not decompress again. It
 * is the caller's object, passed explicitly; it may be NULL (no caching). Each
 * lzval carries a unique id, renewed on every change, so a cache never serves a
 * stale or a freed value's chunk.
 *
 * Memory comes from the accounted allocator (mem.h). Allocation failure aborts.
 * Errors: functions returning int give 0 on success, -1 on a corrupt chunk. */
#ifndef SP_LZVAL_H
#define SP_LZVAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct lzval lzval;
typedef struct lzcache lzcache;

/* A new value holding a copy of p[0..n), cut in chunks of chunk_size raw bytes
 * (chunk_size >= 1024). Never NULL. Free with lzval_free. */
lzval *lzval_new(const char *p, size_t n, size_t chunk_size);

/* A deep copy of v (compressed chunks are copied, not recompressed). */
lzval *lzval_dup(const lzval *v);

/* Release v. lzval_free(NULL) does nothing. */
void lzval_free(lzval *v);

size_t lzval_len(const lzval *v);      /* bytes, raw */
size_t lzval_chars(const lzval *v);    /* non-continuation bytes (code points if valid UTF-8) */
size_t lzval_newlines(const lzval *v); /* count of '\n' bytes */
size_t lzval_stored(const lzval *v);   /* bytes held: chunks, index and header (usable sizes) */
size_t lzval_nchunks(const lzval *v);
size_t lzval_chunk_size(const lzval *v); /* raw bytes per full chunk */

/* Copy raw bytes [off, off+n) into dst. Requires off + n <= lzval_len(v).
 * Decompresses only the chunks the range touches (through the cache if given). */
int lzval_read(const lzval *v, size_t off, size_t n, char *dst, lzcache *c);

/* Append p[0..n): fills the last chunk (re-compressing only it) and adds chunks. */
int lzval_append(lzval *v, const char *p, size_t n, lzcache *c);

/* Overwrite bytes from off with p[0..n), extending the value if off + n is past
 * the end (off <= lzval_len(v) required). Re-compresses only the touched chunks. */
int lzval_setrange(lzval *v, size_t off, const char *p, size_t n, lzcache *c);

/* Byte offset at which character ch (0-based) starts; ch == lzval_chars(v) gives
 * lzval_len(v). Requires ch <= lzval_chars(v). */
int lzval_char_to_byte(const lzval *v, size_t ch, size_t *byte, lzcache *c);

/* Number of characters that start before byte offset off (off <= len). */
int lzval_byte_to_char(const lzval *v, size_t off, size_t *ch, lzcache *c);

/* Byte offset at which the n-th newline ends, that is, where line n+1 starts
 * (n >= 1, n <= lzval_newlines(v)); n == 0 gives 0. */
int lzval_line_start(const lzval *v, size_t n, size_t *byte, lzcache *c);

/* Raw bytes of chunk i (i < lzval_nchunks(v)), decompressed if needed, for
 * sequential scans (grep, hashing). *len gets its length. The pointer is valid
 * until the next call on the same cache, or, with c == NULL, until the next call
 * with NULL cache on any value (a static scratch buffer is used). NULL if corrupt. */
const char *lzval_chunk(const lzval *v, size_t i, size_t *len, lzcache *c);

/* The stored form of chunk i, for the append-only log (written without
 * re-compression): its stored bytes, their length, the raw length, and whether
 * they are LZ4-compressed. */
void lzval_chunk_stored(const lzval *v, size_t i, const char **data, size_t *stored_len,
                        size_t *raw_len, int *compressed);

/* Rebuild a value from stored chunks (as lzval_chunk_stored gave them), for the
 * log loader. Each chunk is verified by decompressing it once (to rebuild the
 * char and newline counts). Returns NULL if any chunk is corrupt or the sizes are
 * inconsistent. Start with lzval_from_chunks_begin, add each chunk, then end. */
lzval *lzval_from_chunks_begin(size_t chunk_size);
int lzval_from_chunks_add(lzval *v, const char *data, size_t stored_len, size_t raw_len, int compressed);
/* Returns v, or NULL (v freed) if the chunks do not form a valid value. */
lzval *lzval_from_chunks_end(lzval *v);

/* Test hook: flip bits in the stored bytes of chunk i, so tests can check that
 * corruption is detected. Returns -1 if i is out of range. */
int lzval_debug_corrupt(lzval *v, size_t i);

/* A cache of up to slots decompressed chunks (LRU). Free with lzcache_free. */
lzcache *lzcache_new(size_t slots);
void lzcache_free(lzcache *c);

#endif
