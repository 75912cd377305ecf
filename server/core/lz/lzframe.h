/* lzframe.h -- the LZ4 frame format as lzval stores it, and the codec of one block.
 *
 * Why: lzval (the chunked value) keeps each chunk as an LZ4 frame so that the
 * log's chunk records stay readable by standard tools (`lz4 -d`, with `-D` for a
 * dictionary). Everything about those bytes lives here: the frame header (with or
 * without the Dictionary-ID flag), the 4-byte block headers and end mark, the
 * encoding of one block (LZ4, or stored raw when LZ4 saves less than 1/8), its
 * decoding, whole or a prefix, with bounds checks, and the check a loader makes of
 * a frame it did not write. This module knows nothing of chunks, indexes or
 * caches; lzval knows nothing of LZ4.
 *
 * The frames (lz4frame format, a subset of it): magic 0x184D2204; FLG 0x60
 * (version 1, independent blocks, no checksums, no content size) or 0x61 (the
 * same with a DictID); BD, the block maximum (64 KB, 256 KB, 1 MB or 4 MB, see
 * lzf_bd); with the flag, DictID LZF_DICT_ID; the header checksum. Then one frame
 * block per block of raw bytes, in order, each a 4-byte little-endian size whose
 * top bit says "stored raw" followed by that many bytes (an LZ4 block or the raw
 * bytes), then the end mark (a zero size). Blocks are independent of each other;
 * with a dictionary every LZ4 block may copy from it, and from nothing else.
 *
 * Thread-local memory (working memory from plain malloc, as the stack is: not
 * counted by mem.h, kept for the thread's life, grown to the largest size met):
 *  - the prefix buffer (lzf_prefix_load): one dictionary followed by room for one
 *    block of the same size, keyed by the id its owner gives it;
 *  - two LZ4 streams (16 KB each), for encoding with a dictionary: the prefix
 *    buffer's dictionary loaded once, and the copy of it each block is encoded
 *    on.
 * Allocation failure aborts. Functions returning int give 0, or -1 when the bytes
 * are not what they should be; no function reads or writes outside the buffers
 * its contract names. */
#ifndef SP_LZFRAME_H
#define SP_LZFRAME_H

#include <stddef.h>
#include <stdint.h>

#define LZF_HDR 7u              /* bytes of a frame header: magic, FLG, BD, checksum */
#define LZF_HDR_DICT 11u        /* bytes of a frame header with the DictID */
#define LZF_DICT_ID 0x31445053u /* the DictID written: the bytes "SPD1" */
#define LZF_BLK_HDR 4u          /* bytes of a block header */
#define LZF_END 4u              /* bytes of the end mark */
#define LZF_BLOCK_MAX (4u << 20) /* bytes: the largest block BD can announce */

/* ---- headers ---- */

/* The BD id (0 to 3) of the smallest block maximum, 64 KB << 2 id, that holds
 * blocks of block bytes (block <= LZF_BLOCK_MAX). */
unsigned lzf_bd(size_t block);

/* Bytes of the frame header: LZF_HDR_DICT with a dictionary (dict != 0), else
 * LZF_HDR. */
size_t lzf_header_len(int dict);

/* Write the frame header for block-size id bd (as lzf_bd gives, <= 3), with the
 * DictID flag and LZF_DICT_ID if dict, into dst (lzf_header_len(dict) bytes of
 * room; at most LZF_HDR_DICT). Its checksum is the one `lz4` writes. Returns the
 * bytes written. */
size_t lzf_header_put(char *dst, unsigned bd, int dict);

/* Whether the frame frame[0..n) announces a dictionary: its FLG byte is 0x61 (the
 * whole header is checked by lzf_check). 0 if n is too short to hold FLG. */
int lzf_header_dict(const char *frame, size_t n);

/* Write at p (LZF_BLK_HDR bytes) the header of a block of size stored bytes
 * (size < 2^31), marked stored raw if raw. */
void lzf_block_put(char *p, size_t size, int raw);

/* Read the block header at p (LZF_BLK_HDR bytes): *size gets the stored bytes
 * that follow it. Returns 1 if the block is stored raw, 0 if it is an LZ4 block
 * (or, with *size 0, the end mark). */
int lzf_block_get(const char *p, size_t *size);

/* Write the end mark at p (LZF_END bytes). */
void lzf_end_put(char *p);

/* ---- the codec of one block ---- */

/* Bytes of output room lzf_encode may need for n raw bytes (n <= LZF_BLOCK_MAX). */
size_t lzf_bound(size_t n);

/* Encode raw[0..n) (0 < n) as one LZ4 block into out (lzf_bound(n) bytes of
 * room): on its own if pre is NULL, else with the dictionary pre[0..dn) held by
 * the thread's prefix buffer (pre as lzf_prefix_load returned it, n <= dn); raw
 * is then copied after the dictionary first, so it may point anywhere but into
 * the prefix buffer. accel is LZ4's acceleration (1: the default; higher is
 * faster and compresses less; only without a dictionary). Returns the LZ4
 * block's size, or 0 if it would not save at least 1/8 of n (the block is then
 * to be stored raw; out holds garbage). The same bytes, dictionary and
 * acceleration always give the same block. With a dictionary, LZ4's hash of it
 * is made for a lone block, then once more and kept for the following blocks
 * with the same dictionary (id, size), each of which starts from a copy: a run
 * of blocks of one value pays for it twice, not once per block. */
size_t lzf_encode(const char *raw, size_t n, char *out, char *pre, size_t dn, int accel);

/* Decode the LZ4 block src[0..size), whose raw bytes are full bytes long, into
 * dst: all of it (want == full) or its first want bytes (0 < want < full); with
 * the dictionary pre[0..dn) of the prefix buffer if pre is not NULL (want <= dn;
 * decoded right after the dictionary, then copied to dst). Returns 0, or -1 if
 * the block does not give exactly that (corrupt); never reads past src + size
 * nor writes past dst + want. */
int lzf_decode(const char *src, size_t size, char *dst, size_t want, size_t full, char *pre,
               size_t dn);

/* ---- the prefix buffer ---- */

/* The thread's prefix buffer if it holds the dictionary named id with room for
 * dn bytes after it (2 dn in all), else NULL. */
char *lzf_prefix_get(uint64_t id, size_t dn);

/* The thread's prefix buffer holding the dn-byte dictionary named id: dict[0..dn)
 * is copied in unless it already holds id (dict may then be anything), after the
 * buffer grows to 2 dn bytes if it must (which forgets what it held). id must be
 * nonzero and name those bytes only: its owner takes a new id whenever they
 * change, or for bytes it will not name again. The pointer stays valid, holding
 * that dictionary, until the next lzf_prefix_load or lzf_check on the thread
 * with another id or a larger dn; the dn bytes after the dictionary are
 * lzf_encode's and lzf_decode's scratch. Encoding or decoding
 * right after the dictionary (LZ4's prefix mode) runs ~20 % faster than with the
 * dictionary elsewhere (encoding) and about twice as fast (decoding). */
char *lzf_prefix_load(uint64_t id, const char *dict, size_t dn);

/* How many times the thread has hashed a dictionary for lzf_encode (for the
 * tests: at most twice per dictionary held in the prefix buffer, not once per
 * block). */
uint64_t lzf_dict_loads_count(void);

/* ---- checking a frame ---- */

/* The dictionary of the frames lzf_check reads: its id (as for lzf_prefix_load)
 * and its block bytes, or NULL for "the frame's own first block". */
typedef struct lzf_dict {
    uint64_t id;
    const char *bytes;
} lzf_dict;

/* Called by lzf_check for block j of a frame (in order, from 0), which starts at
 * off bytes from the frame's start (its block header) and holds raw[0..n) (raw is
 * valid during the call only). */
typedef void lzf_visit(void *arg, size_t j, size_t off, const char *raw, size_t n);

/* Check that frame[0..n) is exactly the frame this module's writer makes for
 * raw_len raw bytes cut in blocks of block bytes (the last may be shorter):
 * the header lzf_header_put(bd, d != NULL) writes; one frame block per block,
 * nonempty, either stored raw with exactly its length or an LZ4 block that
 * decodes to exactly its length (with the dictionary d if given) and names no
 * match at offset 0 (which liblz4 decodes differently whole and in part); the end mark;
 * nothing after. When d->bytes is NULL the dictionary is the frame's own first
 * block, which must then be stored raw and block bytes long. visit (may be NULL)
 * sees each block's raw bytes as it is checked: on failure it may have seen
 * some. work: block bytes of room, for decoding. Loads d into the prefix
 * buffer. Returns 0, or -1. */
int lzf_check(const char *frame, size_t n, size_t raw_len, size_t block, unsigned bd,
              const lzf_dict *d, char *work, lzf_visit *visit, void *arg);

#endif
