/* lzframe.c -- the LZ4 frame format as lzval stores it, and the codec of one
 * block (see lzframe.h).
 *
 * Why a frame and not bare LZ4 blocks: the append-only log writes a chunk's
 * stored bytes as they are, and a frame is what `lz4 -d` (and any LZ4 frame
 * decoder) reads; the frame's block headers also give each block's stored size,
 * which a bare block does not. Only the subset this module writes is accepted
 * back (lzf_check): independent blocks, no checksums, no content size, the one
 * DictID LZF_DICT_ID, blocks of the caller's block size in order.
 *
 * The block rule: a block is stored LZ4 only if that saves at least 1/8 of its
 * bytes; otherwise raw (the block header's top bit), which costs 4 bytes and no
 * decoding. Blocks are always decoded with the *_safe decoders into room for
 * exactly the bytes asked for, so a corrupt block is an error, never a read or a
 * write out of bounds.
 *
 * The dictionary: blocks of 8 KB compressed on their own lose what the text
 * repeats from one block to the next; with a dictionary (lzval uses the value's
 * first block) each block may copy from it while staying independent of the
 * others (LZ4_compress_fast_continue on a stream holding the dictionary to
 * encode, the *_safe_usingDict decoders to decode). Both go through the
 * thread's prefix buffer, the dictionary and then one block, contiguous, since
 * LZ4 works faster with the dictionary right before the data: ~20 % when
 * encoding, about twice as fast when decoding. The buffer is keyed by the id the
 * dictionary's owner gives it, so a run of blocks of one value copies the
 * dictionary in once.
 *
 * The loaded dictionary: LZ4_loadDict clears LZ4's 16 KB table and hashes the
 * whole dictionary, a third of the cost of encoding an 8 KB block after it. So
 * from a dictionary's second block on (a value being re-encoded, not a lone
 * block appended) it is loaded once into the dictionary stream and each block
 * starts from a copy of that stream (the way lz4.h describes besides the
 * static-only LZ4_attach_dictionary, which Debian's shared liblz4 1.9.4 does
 * not export): the copy is the stream LZ4_loadDict would have made, so the
 * blocks are byte for byte the same.
 *
 * Invariants: the prefix buffer holds 2 * its dictionary's size bytes at least,
 * and pre_id names the bytes at its start (0: none); the dictionary stream,
 * when dstream_id is nonzero, is LZ4_loadDict of the dstream_dn bytes at the
 * prefix buffer's start while pre_id == dstream_id (a new allocation of the
 * buffer zeroes dstream_id and once_id); the header table below holds the
 * checksums of the eight headers this module writes. */
#include "lz/lzframe.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LZF_RAW_BLOCK 0x80000000u /* block header: stored raw */
#define LZF_FLG 0x60              /* version 1, independent blocks */
#define LZF_FLG_DICT 0x61         /* the same, with a DictID */

static _Thread_local char *lzf_pre;          /* the prefix buffer */
static _Thread_local size_t lzf_pre_cap;     /* bytes allocated in lzf_pre */
static _Thread_local uint64_t lzf_pre_id;    /* id of the dictionary in lzf_pre; 0: none */
static _Thread_local LZ4_stream_t *lzf_stream;  /* encoding with a dictionary: one block */
static _Thread_local LZ4_stream_t *lzf_dstream; /* the prefix buffer's dictionary, loaded */
static _Thread_local uint64_t lzf_dstream_id;   /* pre_id it was loaded for; 0: none */
static _Thread_local size_t lzf_dstream_dn;     /* bytes of dictionary it was loaded with */
static _Thread_local uint64_t lzf_once_id;      /* pre_id of the last block loaded alone */
static _Thread_local size_t lzf_once_dn;        /* its bytes of dictionary */
static _Thread_local uint64_t lzf_dict_loads;   /* LZ4_loadDict calls, for the tests */

static void lzf_oom(const char *what)
{
    fprintf(stderr, "scratchpad: out of memory allocating %s\n", what);
    fflush(stderr);
    abort();
}

static uint32_t lzf_get32(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;

    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}

static void lzf_put32(char *p, uint32_t x)
{
    p[0] = (char)(x & 0xFF);
    p[1] = (char)(x >> 8 & 0xFF);
    p[2] = (char)(x >> 16 & 0xFF);
    p[3] = (char)(x >> 24);
}

/* ---- headers ---- */

unsigned lzf_bd(size_t block)
{
    unsigned bd = 0;

    while ((size_t)65536 << (2 * bd) < block)
        bd++;
    return bd;
}

size_t lzf_header_len(int dict)
{
    return dict ? LZF_HDR_DICT : LZF_HDR;
}

/* The header checksum is (XXH32(FLG BD [DictID]) >> 8) & 0xFF, as lz4 -BI writes
 * it; there are only eight headers, so it is a table: per BD id, the BD byte, the
 * checksum without the DictID, the checksum with it. */
size_t lzf_header_put(char *dst, unsigned bd, int dict)
{
    static const unsigned char bd_hc[4][3] = {
        {0x40, 0x82, 0x6F}, {0x50, 0xFB, 0xE9}, {0x60, 0x51, 0x60}, {0x70, 0x73, 0x60}};

    dst[0] = 0x04;
    dst[1] = 0x22;
    dst[2] = 0x4D;
    dst[3] = 0x18;
    dst[4] = dict ? LZF_FLG_DICT : LZF_FLG;
    dst[5] = (char)bd_hc[bd][0];
    if (dict) {
        lzf_put32(dst + 6, LZF_DICT_ID);
        dst[10] = (char)bd_hc[bd][2];
    } else {
        dst[6] = (char)bd_hc[bd][1];
    }
    return lzf_header_len(dict);
}

int lzf_header_dict(const char *frame, size_t n)
{
    return n > 4 && (unsigned char)frame[4] == LZF_FLG_DICT;
}

void lzf_block_put(char *p, size_t size, int raw)
{
    lzf_put32(p, (raw ? LZF_RAW_BLOCK : 0) | (uint32_t)size);
}

int lzf_block_get(const char *p, size_t *size)
{
    uint32_t h = lzf_get32(p);

    *size = h & ~LZF_RAW_BLOCK;
    return (h & LZF_RAW_BLOCK) != 0;
}

void lzf_end_put(char *p)
{
    lzf_put32(p, 0);
}

/* ---- the codec of one block ---- */

size_t lzf_bound(size_t n)
{
    return (size_t)LZ4_compressBound((int)n);
}

/* Whether the stream loaded for (id, dn) holds the dictionary pre[0..dn). */
static int lzf_holds(uint64_t id, size_t loaded_dn, const char *pre, size_t dn)
{
    return id != 0 && id == lzf_pre_id && loaded_dn == dn && pre == lzf_pre;
}

/* Make lzf_stream ready to encode one block right after the dictionary
 * pre[0..dn) (the prefix buffer's): the first block of a dictionary gets it
 * loaded into lzf_stream itself, as a lone block (an append to a value) needs;
 * the second loads it into lzf_dstream, kept; from then on each block starts
 * from a copy of lzf_dstream. */
static void lzf_dict_stream(const char *pre, size_t dn)
{
    if (!lzf_stream && (!(lzf_stream = LZ4_createStream()) || !(lzf_dstream = LZ4_createStream())))
        lzf_oom("an LZ4 stream");
    if (lzf_holds(lzf_dstream_id, lzf_dstream_dn, pre, dn)) {
        memcpy(lzf_stream, lzf_dstream, sizeof *lzf_stream);
        return;
    }
    lzf_dict_loads++;
    if (lzf_holds(lzf_once_id, lzf_once_dn, pre, dn)) {
        LZ4_loadDict(lzf_dstream, pre, (int)dn);
        lzf_dstream_id = lzf_pre_id;
        lzf_dstream_dn = dn;
        memcpy(lzf_stream, lzf_dstream, sizeof *lzf_stream);
        return;
    }
    LZ4_loadDict(lzf_stream, pre, (int)dn);
    lzf_once_id = pre == lzf_pre ? lzf_pre_id : 0;
    lzf_once_dn = dn;
}

size_t lzf_encode(const char *raw, size_t n, char *out, char *pre, size_t dn, int accel)
{
    int bound = LZ4_compressBound((int)n), m;

    if (!pre) {
        m = accel > 1 ? LZ4_compress_fast(raw, out, (int)n, bound, accel)
                      : LZ4_compress_default(raw, out, (int)n, bound);
    } else {
        memcpy(pre + dn, raw, n);
        lzf_dict_stream(pre, dn);
        m = LZ4_compress_fast_continue(lzf_stream, pre + dn, out, (int)n, bound, 1);
    }
    return m > 0 && (size_t)m <= n - n / 8 ? (size_t)m : 0;
}

int lzf_decode(const char *src, size_t size, char *dst, size_t want, size_t full, char *pre,
               size_t dn)
{
    int r;

    if (!pre) {
        if (want == full)
            r = LZ4_decompress_safe(src, dst, (int)size, (int)want);
        else
            r = LZ4_decompress_safe_partial(src, dst, (int)size, (int)want, (int)want);
        return r >= 0 && (size_t)r == want ? 0 : -1;
    }
    if (want == full)
        r = LZ4_decompress_safe_usingDict(src, pre + dn, (int)size, (int)want, pre, (int)dn);
    else
        r = LZ4_decompress_safe_partial_usingDict(src, pre + dn, (int)size, (int)want, (int)want,
                                                  pre, (int)dn);
    if (r < 0 || (size_t)r != want)
        return -1;
    memcpy(dst, pre + dn, want);
    return 0;
}

/* ---- the prefix buffer ---- */

char *lzf_prefix_get(uint64_t id, size_t dn)
{
    return lzf_pre_id == id && lzf_pre_cap >= 2 * dn ? lzf_pre : NULL;
}

/* Growing forgets the dictionary held (the new block is not a copy). */
char *lzf_prefix_load(uint64_t id, const char *dict, size_t dn)
{
    if (lzf_pre_cap < 2 * dn) {
        free(lzf_pre);
        lzf_pre = malloc(2 * dn);
        if (!lzf_pre)
            lzf_oom("the prefix buffer");
        lzf_pre_cap = 2 * dn;
        lzf_pre_id = 0;
        lzf_dstream_id = 0;
        lzf_once_id = 0;
    }
    if (lzf_pre_id != id) {
        memcpy(lzf_pre, dict, dn);
        lzf_pre_id = id;
    }
    return lzf_pre;
}

uint64_t lzf_dict_loads_count(void)
{
    return lzf_dict_loads;
}

/* ---- checking a frame ---- */

/* Block by block, each header is checked against the room left before the end
 * mark before its bytes are touched; the dictionary is loaded at the first LZ4
 * block that needs it (the frame's own first block has been seen by then). */
/* Whether the LZ4 block src[0..size) names no match at offset 0. The format
 * forbids that offset, but liblz4 (1.9.4) decodes it without an error, to bytes
 * that differ between a whole and a partial decoding of the block: a value
 * loaded with such a block would read differently by window. So the loader's
 * check walks the sequences (token, literal length, literals, offset, match
 * length; nothing is decoded) and refuses the offset; any other malformation is
 * left to the decoder. 0, or -1. */
static int lzf_offsets_ok(const unsigned char *src, size_t size)
{
    size_t i = 0;

    while (i < size) {
        unsigned token = src[i++], x;
        size_t lit = token >> 4;
        if (lit == 15) {
            do {
                if (i >= size)
                    return -1;
                x = src[i++];
                lit += x;
            } while (x == 255);
        }
        if (lit > size - i)
            return -1;
        i += lit;
        if (i == size) /* the last sequence: literals only */
            return 0;
        if (size - i < 2)
            return -1;
        if (src[i] == 0 && src[i + 1] == 0)
            return -1;
        i += 2;
        if ((token & 15) == 15) {
            do {
                if (i >= size)
                    return -1;
                x = src[i++];
            } while (x == 255);
        }
    }
    return 0;
}

int lzf_check(const char *frame, size_t n, size_t raw_len, size_t block, unsigned bd,
              const lzf_dict *d, char *work, lzf_visit *visit, void *arg)
{
    size_t nblk = (raw_len + block - 1) / block, hl = lzf_header_len(d != NULL), pos = hl, j;
    const char *dict = d ? d->bytes : NULL;
    int own = d && !d->bytes;
    char hdr[LZF_HDR_DICT];

    lzf_header_put(hdr, bd, d != NULL);
    if (n < hl + LZF_END || memcmp(frame, hdr, hl) != 0)
        return -1;
    for (j = 0; j < nblk; j++) {
        size_t len = raw_len - j * block < block ? raw_len - j * block : block, size;
        const char *raw = work;
        int kind;
        if (n - LZF_END - pos < LZF_BLK_HDR)
            return -1;
        kind = lzf_block_get(frame + pos, &size);
        if (size == 0 || size > n - LZF_END - pos - LZF_BLK_HDR)
            return -1;
        if (kind == 1) {
            if (size != len)
                return -1;
            raw = frame + pos + LZF_BLK_HDR;
        } else if (own && j == 0) {
            return -1;
        } else if (lzf_offsets_ok((const unsigned char *)frame + pos + LZF_BLK_HDR, size) < 0 ||
                   lzf_decode(frame + pos + LZF_BLK_HDR, size, work, len, len,
                              d ? lzf_prefix_load(d->id, dict, block) : NULL, block) < 0) {
            return -1;
        }
        if (own && j == 0) {
            if (len != block)
                return -1;
            dict = raw;
        }
        if (visit)
            visit(arg, j, pos, raw, len);
        pos += LZF_BLK_HDR + size;
    }
    return pos == n - LZF_END && lzf_get32(frame + pos) == 0 ? 0 : -1;
}
