/* lzval.h -- a byte string stored as LZ4-compressed chunks of independent blocks.
 *
 * Why: agents park large, repetitive text (logs, tool outputs), append to it, and
 * read back small windows of it. Storing it as chunks of chunk_size raw bytes, each
 * cut in sub-blocks of 8 KB compressed on their own (a sub-block is kept raw when
 * compression saves less than 1/8), cuts memory several-fold while a window read
 * decompresses only the sub-blocks it touches (a 2 KB window: one or two 8 KB
 * sub-blocks, whatever the value's size).
 *
 * The dictionary: a large value whose text repeats itself from block to block
 * (logs) is kept in dictionary mode: its first sub-block is stored raw and is
 * the LZ4 dictionary every other sub-block is compressed with. The blocks stay
 * independent of each other (a window still decodes only its sub-blocks) and
 * log text takes ~0.33 of its bytes instead of ~0.43, for ~35 % slower
 * compression and ~10 % slower window reads. lzval_new chooses the mode for a
 * value of 48 KB or more by compressing a few sample sub-blocks both ways; a
 * value growing by appends asks again as it passes 48 KB, 96 KB, ... 384 KB
 * (and is rebuilt once if the answer is yes). lzval_dict tells the mode.
 *
 * Appends: the value's incomplete last sub-block is kept uncompressed (the raw
 * tail) and compressed once, when it becomes complete, so an append costs amortized
 * O(appended bytes) whatever the value's size. lzval_new compresses everything;
 * the first append after it (or after lzval_seal) decodes the last sub-block back
 * into a raw tail, once.
 *
 * The index: per chunk, its raw length, stored form, and prefix counts of
 * characters and newlines, plus per sub-block counts, so that a byte, a character
 * (UTF-8 code point) or a line is located by binary search plus a walk inside one
 * sub-block. Characters are counted as bytes that are not UTF-8 continuation bytes
 * (10xxxxxx), so a character split across two chunks counts in the chunk holding
 * its lead byte; for valid UTF-8 this is the code-point count.
 *
 * Safety: sub-blocks are only ever decompressed with LZ4_decompress_safe (or
 * LZ4_decompress_safe_partial, for a prefix) into a buffer of the recorded raw
 * size, block headers are checked against the index, and any mismatch is
 * corruption: every reading function then returns -1 and writes nothing past its
 * output.
 *
 * The cache (lzcache) keeps a few recently decompressed chunks so that repeated
 * window reads of the same region (HEAD, TAIL, paging) do not decompress again. It
 * is the caller's object, passed explicitly; it may be NULL (no caching). Each
 * lzval carries a unique id, renewed on every change, so a cache never serves a
 * stale or a freed value's chunk, nor one of a copy sharing its chunks
 * (lzval_dup: a copy has its own id). lzcache.h (included here) declares
 * lzcache_new and lzcache_free.
 *
 * Memory comes from the accounted allocator (mem.h). Allocation failure aborts.
 * Errors: functions returning int give 0 on success, -1 on a corrupt chunk. */
#ifndef SP_LZVAL_H
#define SP_LZVAL_H

#include <stddef.h>
#include <stdint.h>

#include "lz/lzcache.h" /* lzcache_new, lzcache_free: the cache the reads take */

typedef struct lzval lzval;

/* A new value holding a copy of p[0..n), cut in chunks of chunk_size raw bytes
 * (clamped to [1024, 2^30]) and sub-blocks of 8 KB (chunk_size / 256 for chunks
 * above 2 MB, the whole chunk for chunks up to 8 KB). Everything is compressed,
 * the incomplete last sub-block too (the first sub-block stays raw in dictionary
 * mode): a value never appended to holds no raw tail. Dictionary mode is chosen
 * when n >= 48 KB, sub-blocks are at most 8 KB, and samples say it saves
 * memory. Never NULL. Free with lzval_free. */
lzval *lzval_new(const char *p, size_t n, size_t chunk_size);

/* As lzval_new, but never in dictionary mode and without the samples: plain
 * LZ4 sub-blocks, ~690 MB/s instead of ~445 on log text. For a value whose
 * dictionary is left to the background (lzidle.h: register it there with
 * lzidle_adopt), or that should never have one. Never NULL. */
lzval *lzval_new_nodict(const char *p, size_t n, size_t chunk_size);

/* As lzval_new_nodict, with LZ4's acceleration accel (> 1: faster, less
 * compressed; 1 is lzval_new_nodict) for its sub-blocks and for those its
 * appends and changes compress later. On the bench's log text, 8 KB blocks:
 * acceleration 1 ~830 MB/s at 0.416 of the bytes, 4 ~900 at 0.479, 8 ~1070
 * at 0.564, 16 ~1350 at 0.692. For a value written on a busy path and
 * registered in an lzidle registry (lzidle_adopt), which re-encodes it at
 * acceleration 1 (with a dictionary if that pays) once it stays unchanged, so
 * that a value that lives pays the ratio, one that dies young the speed. */
lzval *lzval_new_fast(const char *p, size_t n, size_t chunk_size, int accel);

/* As lzval_new_fast, for content the caller has just scanned and found all
 * ASCII (every byte below 0x80), with the newline counts of its sub-blocks, so
 * that they are not counted again. With chunk and sub from lzval_layout,
 * nl[i * ceil(chunk / sub) + j] is the number of '\n' bytes of sub-block j of
 * chunk i: bytes [i * chunk + j * sub, + sub) of p, cut at the chunk's end and
 * at n. The value's full sub-blocks take their counts from it (nl NULL:
 * counted here, which is lzval_new_fast). */
lzval *lzval_new_ascii(const char *p, size_t n, size_t chunk_size, int accel, const uint32_t *nl);

/* The layout of values made with chunk_size: the chunk size they use (clamped
 * to the supported range) and the raw bytes of their sub-blocks. */
void lzval_layout(size_t chunk_size, size_t *chunk, size_t *sub);

/* The acceleration v's sub-blocks are compressed at (1 unless lzval_new_fast
 * made it and no re-encoding has happened since). */
int lzval_accel(const lzval *v);

/* A copy of v that shares v's chunks: the index is copied (~70 bytes a
 * chunk), each chunk's data block (its stored bytes and sub-block table) gains
 * a holder, and the detached dictionary, if any, is copied (a sub-block). The
 * two values are independent: a change of either replaces, in that value
 * only, the data blocks of the chunks it rewrites (a splice, setrange, append
 * to the last chunk, seal, the background re-encoding, lzval_debug_corrupt),
 * and the other keeps the old ones, so memory grows by the chunks changed, not
 * by the value. A block is freed by its last holder. O(chunks); never
 * decodes. A value registered in an lzidle registry gives a copy registered
 * in it too. */
lzval *lzval_dup(const lzval *v);

/* Release v (and take it off its lzidle registry). lzval_free(NULL) does nothing.
 * A value shared by lzval_share is only released by its last holder's call. */
void lzval_free(lzval *v);
/* One more holder of v (a scratchpad's entry, snapshot or fork sharing its
 * content): returns v, which each holder releases with lzval_free. A shared
 * value must not be changed (lzval_holders says so): a holder about to change it
 * takes its own copy (lzval_dup, which shares the chunks: the change then
 * costs the chunks it rewrites) and releases the shared one. */
lzval *lzval_share(lzval *v);
/* How many hold v: 1, or more when shared. */
size_t lzval_holders(const lzval *v);

/* Count one whole read of v at second now_s (the caller's clock) and return
 * the reads counted in that second so far: the counter starts again at each new
 * second. For a caller's policy that keeps values read often uncompressed
 * (types/string/value.c). A copy (lzval_dup) starts at 0. */
uint32_t lzval_note_read(lzval *v, uint32_t now_s);

size_t lzval_len(const lzval *v);      /* bytes, raw */
size_t lzval_chars(const lzval *v);    /* non-continuation bytes (code points if valid UTF-8) */
size_t lzval_newlines(const lzval *v); /* count of '\n' bytes */
size_t lzval_stored(const lzval *v);   /* bytes held: chunks (with the raw tail's spare room),
                                          index and header (usable sizes), the chunks
                                          counted whoever else holds them (lzval_dup) */
/* Bytes of memory the values vals[0..n) hold together (NULL entries and
 * repeats skipped): each value's header, index and detached dictionary, and
 * each data block once, however many of them hold it (lzval_dup). O(B log B)
 * for B chunks in all; working memory from plain malloc. */
size_t lzval_stored_union(const lzval *const *vals, size_t n);
/* Bytes of x that a and b (either may be NULL) do not hold too: 0 if x is
 * one of them; else x's header, index and detached dictionary, and those of
 * its data blocks neither holds. lzval_stored(x) when no block of x is shared
 * (checked in O(chunks)). */
size_t lzval_stored_beside(const lzval *x, const lzval *a, const lzval *b);
size_t lzval_nchunks(const lzval *v);
size_t lzval_chunk_size(const lzval *v); /* raw bytes of a chunk at most (lzval_splice) */
size_t lzval_dict(const lzval *v);       /* bytes of the dictionary (the value's first
                                          sub-block), 0 without one (see lzval_new) */

/* Copy raw bytes [off, off+n) into dst. Requires off + n <= lzval_len(v).
 * Decompresses only the chunks the range touches (through the cache if given). */
int lzval_read(const lzval *v, size_t off, size_t n, char *dst, lzcache *c);

/* Append p[0..n) (p may point into v, e.g. from lzval_chunk). Amortized
 * O(n): the bytes are copied into the raw tail, whole 8 KB sub-blocks are
 * compressed once as they complete (with the dictionary in dictionary mode).
 * An append that takes a value without a dictionary past 48 KB, 96 KB, 192 KB or
 * 384 KB decides again whether it should have one (a few compressions) and, if
 * so, rebuilds it (once in the value's life: one decoding and compression of its
 * bytes); not a value registered in an lzidle registry, whose registry decides
 * once the value is idle. Fails (-1, v unchanged) only if a sub-block it must decode is corrupt:
 * the last one, stored compressed (after lzval_new, lzval_seal or from_chunks),
 * or, for a rebuild, any. */
int lzval_append(lzval *v, const char *p, size_t n, lzcache *c);

/* Compress the raw tail now and give back the spare room of the last chunk, so
 * that lzval_stored is as low as the bytes allow; for a caller that knows the
 * appends are over (a periodic pass over idle values). The bytes, and cached
 * chunks, are unaffected; a later append decodes the last sub-block again (at
 * most 8 KB of decoding, once). Never fails. */
void lzval_seal(lzval *v);

/* Overwrite bytes from off with p[0..n), extending the value if off + n is past
 * the end (off <= lzval_len(v) required). Re-compresses only the touched
 * sub-blocks (the other sub-blocks of a touched chunk are copied as stored).
 * In dictionary mode a change of the first sub-block (the dictionary) first
 * detaches the dictionary: the value keeps the old dictionary's bytes in a
 * block of its own (sub-block size, counted in lzval_stored, written to the
 * log beside the chunks: lzval_detached_dict), which every block keeps
 * decoding with, so the change still costs only its sub-blocks; the background
 * re-encoding (lzidle) folds such a value back into a plain dictionary-mode
 * one. Only a value left no longer than a sub-block is rebuilt whole (without
 * a dictionary). Fails (-1, v's bytes unchanged) if a sub-block it must decode
 * is corrupt. */
int lzval_setrange(lzval *v, size_t off, const char *p, size_t n, lzcache *c);

/* Replace bytes [off, off + del) with p[0..n) (off + del <= lzval_len(v); p may
 * point into v): an insertion (del == 0), a deletion (n == 0) or a replacement
 * of another length, at the cost of the region it touches, not of the value:
 * the chunks holding [off, off + del) (with a small neighbour, so that chunks
 * stay at least a quarter of chunk_size, the last and a lone one excepted) are
 * rebuilt into chunks of at most chunk_size, and the index of the chunks after
 * them is shifted (O(chunks), no data moved). Chunks therefore need not be full
 * (lzval_chunk_stored gives each one's raw length). del == n is lzval_setrange;
 * an insertion at the end, lzval_append. In dictionary mode a change of the
 * first sub-block (the dictionary) detaches the dictionary first and then costs
 * its region too, as lzval_setrange says. Fails (-1, v's bytes unchanged) if a
 * sub-block it must decode is corrupt or the arguments are out of range. */
int lzval_splice(lzval *v, size_t off, size_t del, const char *p, size_t n, lzcache *c);

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
 * re-compression): its stored bytes, their length, the raw length, and its form:
 *  - compressed == 0: the raw bytes themselves (stored_len == raw_len);
 *  - compressed == 1: an LZ4 frame (lz4frame format, readable by `lz4 -d`):
 *    independent blocks, no checksums, no content size, one frame block per
 *    sub-block (see lzval_new; the last may be shorter), each an LZ4 block or
 *    stored raw (the block header's top bit), then the end mark. In dictionary
 *    mode FLG has the Dictionary-ID bit (0x61, not 0x60) and the header carries
 *    DictID 0x31445053 (the bytes "SPD1"): the LZ4 blocks are compressed with
 *    the value's first lzval_dict(v) bytes as dictionary (`lz4 -d -D` them),
 *    which chunk 0 holds raw as its first block. It is not a single LZ4 block:
 *    decode it with an LZ4 frame decoder, or load it with lzval_from_chunks_*.
 *    When the dictionary is detached (lzval_detached_dict), it is those bytes
 *    instead, and chunk 0's first block is like any other (LZ4 or raw).
 * The last chunk may hold the raw tail (its last frame block stored raw); it is a
 * valid stored chunk like any other. The pointer is valid until v changes (an
 * append, setrange, splice, seal or free, or the end of a conversion by lzidle_step). */
void lzval_chunk_stored(const lzval *v, size_t i, const char **data, size_t *stored_len,
                        size_t *raw_len, int *compressed);

/* The detached dictionary of v (see lzval_setrange): its bytes, *n of them (the
 * sub-block size), or NULL (*n 0) when v has none (no dictionary, or chunk 0's
 * first sub-block is it). Valid until v changes. A writer of v's chunks must
 * write these bytes too, and a loader give them to lzval_from_chunks_dict. */
const char *lzval_detached_dict(const lzval *v, size_t *n);

/* Whether the stored bytes of chunk i are the ones this module wrote: every
 * block against the checksum (CRC32C) recorded when its bytes were written
 * (compressed, appended, re-encoded, copied or loaded; a copy keeps the
 * checksum it copies, so a damage is never vouched for), the frame's header
 * and end mark against what they must be. For a writer that is about to copy
 * the bytes somewhere they will be trusted (the log's rewrite). ~20 GB/s.
 * Returns 0, or -1 (and *block the first sub-block found bad) if the bytes
 * changed since, or i is out of range. Changes (append, setrange, the
 * background conversion) refuse to re-store a sub-block that fails its
 * checksum, as they refuse one that does not decode. */
int lzval_chunk_verify(const lzval *v, size_t i, size_t *block);
/* (Chunk 0's verification covers the detached dictionary too: a damage there
 * answers -1 with *block 0.) */

/* Rebuild a value from stored chunks (as lzval_chunk_stored gave them, with the
 * same chunk_size, in order), for the log loader: the stored bytes are kept as
 * given, so an export and a rebuild round-trip exactly. Each chunk is verified by
 * decompressing it once (to rebuild the char and newline counts), dictionary
 * frames with the dictionary chunk 0 holds; a frame must have exactly the layout
 * lzval_chunk_stored describes for its raw length, and all frames of a value the
 * same header (with or without the DictID: frames without it, as older logs
 * hold, load as before). Returns NULL if any chunk is corrupt or the sizes are
 * inconsistent (a dictionary frame whose chunk 0 does not start with a raw
 * full sub-block, for one). Start with lzval_from_chunks_begin, add each chunk,
 * then end. */
lzval *lzval_from_chunks_begin(size_t chunk_size);
/* The detached dictionary p[0..n) (lzval_detached_dict), before the first
 * chunk: the value is in dictionary mode, every frame must have the DictID,
 * and chunk 0 need not start with a raw sub-block. n must be the sub-block
 * size (8 KB at most) and the value must get chunks; otherwise the value is
 * bad (-1, and end returns NULL). */
int lzval_from_chunks_dict(lzval *v, const char *p, size_t n);
int lzval_from_chunks_add(lzval *v, const char *data, size_t stored_len, size_t raw_len, int compressed);
/* Returns v, or NULL (v freed) if the chunks do not form a valid value. */
lzval *lzval_from_chunks_end(lzval *v);

/* Test hook: spoil the stored bytes of chunk i, so tests can check that
 * corruption is detected: every LZ4 sub-block of a frame becomes undecodable, a
 * raw sub-block or a plain chunk gets one bit of its first byte flipped (which
 * no decoder can detect; lzval_chunk_verify does). The checksums are left as
 * they were: this is damage in memory. The dictionary (chunk 0's first
 * sub-block, raw) is left intact; a detached one is not part of chunk 0. Returns -1 if i is out of range. */
int lzval_debug_corrupt(lzval *v, size_t i);

/* Test hook: flip one bit of v's detached dictionary (lzval_detached_dict), its
 * checksum left as it was, so that tests see lzval_chunk_verify catch it.
 * Returns -1 if v has none. */
int lzval_debug_corrupt_dict(lzval *v);

#endif
