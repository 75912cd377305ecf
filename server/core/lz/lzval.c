/* lzval.c -- a byte string kept as LZ4-compressed chunks (see lzval.h).
 *
 * Modules: this file is the value's layout and every change to it (new, dup
 * and the sharing of chunks, append, setrange, splice, seal, free), its export to and load from the log, and the
 * decoding of one sub-block. Reading (windows, whole chunks, char / byte / line
 * positions) is lzread.c's, the dictionary decision lzdict.c's, the cache of
 * decoded chunks lzcache.c's, the LZ4 frame bytes lzframe.c's; lzval_int.h
 * (internal) shares the layout below between the first three.
 *
 * Layout: chunk i holds the raw bytes [raw_before, raw_before + raw_len), at most
 * chunk_size of them; the chunk holding a byte is found by binary search on
 * raw_before (O(log chunks): ~10 steps for 100 MB in 64 KB chunks). Values built
 * by new and append have every chunk but the last full; a splice (an insertion,
 * deletion or replacement of another length) rebuilds only the chunks it touches,
 * into chunks of any length up to chunk_size, and shifts the index entries after
 * them (raw_before, chars_before, nl_before: O(chunks), no data moved) instead of
 * rebuilding the value because every later byte moved. A chunk is cut in
 * sub-blocks of sub_size raw bytes (8 KB, or chunk_size / 256 for chunks past 2
 * MB, at most chunk_size), each compressed on its own, so a window read decodes at most the two or three sub-blocks it
 * touches, never a whole chunk. A chunk is stored in one of two forms:
 *  - plain: its raw bytes (a chunk none of whose sub-blocks compresses: a full
 *    one, or one a splice built that is not the last);
 *  - frame: an LZ4 frame as lzframe.h describes it (in dictionary mode with the
 *    DictID), one frame block per sub-block, each an LZ4 block or, when
 *    compression saves less than 1/8 or the block is the open tail, raw bytes.
 *    Any LZ4 frame decoder reads it (given the dictionary, `lz4 -d -D
 *    first-sub-block`), which keeps the log's chunk records readable by
 *    standard tools. The bytes of frames and blocks, the encoding and decoding
 *    of one block and the check of a loaded frame are lzframe's; this module
 *    decides what goes in which block and keeps the index over them.
 * In memory each chunk's data block starts with a table of nsub_max entries (one
 * per sub-block: where its frame block starts, its characters, its newlines),
 * followed by the stored bytes. The table makes a sub-block's place O(1) and lets
 * the char and line lookups decode the one sub-block they land in.
 *
 * The raw tail: the last sub-block of the value, while it is incomplete, is kept
 * raw inside the last chunk's frame (its data block grows geometrically, up to the
 * largest frame a chunk can have), so an append is a memcpy plus the counting of
 * its bytes; a sub-block is compressed once, when it becomes complete, and a chunk
 * is shrunk to fit (or turned plain) when it becomes full. Appends cost amortized
 * O(appended bytes): about 1/sub_size of one sub-block compression per byte.
 * lzval_new compresses everything, the incomplete last sub-block included (a
 * value that is never appended to takes no raw bytes); the first append then
 * decodes that one sub-block back into the raw tail (a one-time cost of at most
 * sub_size bytes of decoding). lzval_seal compresses the raw tail again and gives
 * back the spare room. Keeping the tail at sub-block size, not chunk size, bounds
 * the uncompressed bytes a value holds at 8 KB plus room.
 *
 * The dictionary: 8 KB blocks compressed on their own lose what the text repeats
 * from one block to the next (the same timestamps, levels, services, templates).
 * In dictionary mode the value's first sub-block (sub-block 0 of chunk 0) is
 * stored raw and every other sub-block, in every chunk, is compressed with it as
 * LZ4 dictionary (lzf_encode / lzf_decode through lzframe's prefix buffer,
 * keyed by dict_id), so blocks stay independent of each other (a window still
 * decodes only the sub-blocks it touches) while each one can copy from the
 * dictionary. On log text (bench/gen_logs.py) that takes a value from 0.43 of
 * its bytes to 0.33; the dictionary is the value's own text, in place, so it
 * costs only its being stored raw (~4.5 KB more than compressed).
 *  - who: lzdict.c decides whether a dictionary pays, by compressing samples
 *    both ways: lzval_new asks for a value of 48 KB or more (lzv_dict_choose),
 *    and a value growing by appends asks again as it passes 48 KB, twice that,
 *    ... 384 KB (lzv_dict_wanted) and is rebuilt, once, when the answer is yes.
 *    A value loaded from the log keeps the mode its chunks were written in
 *    (older logs: none), unless an append takes it past one of those sizes.
 *    Appends to a value in dictionary mode compress their sub-blocks with the
 *    dictionary, like lzval_new.
 *  - when: the server takes the dictionary off the write path (lzidle.c): it
 *    writes values with lzval_new_nodict and registers them in an lzidle
 *    registry (v->idle), which asks lzdict.c's samples once a value has stayed
 *    unchanged for a while and re-encodes it with its dictionary in the
 *    background (lzv_shell, lzv_put and lzv_take, on the side, then swapped
 *    in). A registered value's appends ask nothing (lzv_dict_wanted is not
 *    called), and each change or free of it reports to the registry
 *    (lzv_idle_changed / lzv_idle_forget).
 *  - changes: a setrange or splice that touches the dictionary first detaches
 *    it (lz_detach): the value keeps the dictionary's bytes, as they were, in
 *    a block of its own (xdict, sub_size bytes, with the checksum of the block
 *    it was copied from; dict_id unchanged, since the bytes are), every block
 *    goes on decoding with them, and the change then costs what any other
 *    does: a setrange rewrites only the sub-blocks it touches, a splice only
 *    the chunks it touches; chunk 0's first sub-block becomes a block like any
 *    other (LZ4 with the detached dictionary). Before, such a change rebuilt
 *    the whole value (one decoding and compression of it: ~200 ms for 100 MB,
 *    bench/sp-edit-large.py). The copy costs sub_size bytes for the value's
 *    life, or until the registry's re-encoding (lzidle.c), which takes a
 *    value with a detached dictionary as a candidate and rebuilds it as an
 *    ordinary dictionary-mode value (its first sub-block the dictionary
 *    again), or a plain one if it has become too small for one. A copy
 *    (lzval_dup) copies the block; a value shared (lzval_share) shares it
 *    with the rest. The log carries it beside the chunks (docs/aof.md, kind 2;
 *    lzval_detached_dict, lzval_from_chunks_dict). Only a change that leaves
 *    the value no longer than a sub-block rebuilds it, without a dictionary.
 *  - frames: every frame of a value in dictionary mode carries the flag (chunk 0
 *    too: its LZ4 blocks use the dictionary, its first block is it), none of a
 *    value without; from_chunks takes the mode from the first frame and refuses
 *    a value whose frames disagree, a dictionary frame with sub-blocks above 8
 *    KB, or a chunk 0 that does not start with a raw full sub-block.
 * Measured through this module, 1 MB values of gen_logs.py text, pinned to one
 * core of the loaded 2-core development VM (ratio = stored / raw; lzval_new
 * speed; appends of 1 KB; a random 2 KB lzval_read without cache; a random
 * line lookup):
 *     8 KB blocks       ratio  new        append     2 KB window  line_start
 *     independent       0.434  ~690 MB/s  ~705 MB/s  1.66 us      2.47 us
 *     8 KB dictionary   0.334  ~445 MB/s  ~455 MB/s  1.81 us      2.55 us
 * Alternatives, measured with the same LZ4 calls outside the module (first 1 MB;
 * 8 KB blocks with an 8 KB dictionary give 0.342 and a 1.3-1.8 us window there):
 * 4 KB blocks with an 8 KB dictionary 0.357 and a 1.0 us window (prefix mode),
 * 8 KB blocks with a 16 KB dictionary 0.325; both need a dictionary spanning
 * two blocks (non-contiguous in a frame, or a block of another size), and 4 KB
 * blocks would change every value's layout, older logs' too, for 7 % more
 * memory. The dictionary's worth by value size: see lzdict.c.
 *
 * Sub-block size, measured (LZ4_compress_default, independent blocks; ratio =
 * stored / raw; decode at ~1.5-2 GB/s on the development machine):
 *     block            2K     4K     8K    16K    32K    64K
 *     test generator 0.480  0.428  0.394  0.371  0.355  0.345
 *     agent JSON log 0.569  0.497  0.447  0.417  0.400  0.389
 *     dpkg/apt logs  0.283  0.253  0.233  0.219  0.210  0.200
 *     C headers      0.454  0.403  0.362  0.330  0.307  0.290
 *     full decode    0.7us  1.9us  4.0us  8.5us   18us   38us  (test generator)
 * 8 KB costs 12-17% more memory than one 64 KB block on log text (16 KB: 6-10%,
 * 4 KB: another 10%). A random 2 KB window in 8 KB sub-blocks decodes ~5 KB on
 * average (partial decoding stops at the window's end) instead of ~33 KB: measured
 * through this module on a loaded 2-core VM, a 2 KB read from 10 MB that misses
 * the cache costs ~6 us with 8 KB sub-blocks, ~10 us with 16 KB and ~40-60 us
 * with whole 64 KB chunks; a line lookup ~9 us, ~19 us and ~75 us. So 8 KB.
 *
 * Invariants:
 *  - no chunk is empty, no sub-block is empty; every chunk has raw_len <=
 *    chunk_size, and those new and append make are full but the last; a chunk a
 *    splice makes has at least chunk_size / 4 (it takes a neighbour in when it
 *    would have less), unless it is the last or the only one; sub-block j of a
 *    chunk covers its raw bytes [j * sub_size, min((j + 1) * sub_size,
 *    raw_len)); only a chunk's last sub-block can be incomplete;
 *  - a frame's blocks follow each other, table[j].off is where block j's 4-byte
 *    header starts, and the 4-byte end mark closes the frame at stored_len - 4;
 *  - a complete sub-block is LZ4 unless that saves less than 1/8; plain form
 *    only for a full chunk with no LZ4 block; a value is never left with a full
 *    chunk still holding spare room;
 *  - dictionary mode (dict): the dictionary of every LZ4 block of the value is
 *    xdict if set (then the value is longer than a sub-block), else sub-block
 *    0 of chunk 0, which is then complete and stored raw (the first block of a
 *    frame, or the start of a plain chunk); every frame's header has the
 *    DictID; dict_id is renewed whenever those bytes change;
 *  - raw_before / chars_before / nl_before of chunk i are the sums over chunks
 *    [0, i) (lz_fix_prefix after any change of a chunk's length or counts);
 *  - uid is unique in the process and renewed on every change of the raw bytes,
 *    so a cache slot keyed by (uid, chunk) only ever holds the bytes it claims;
 *  - a data block whose holder count (lz_refs) is above 0 is never written;
 *  - a change decodes everything it needs (at most two sub-blocks: the partly
 *    overwritten first and last, or the compressed tail an append reopens; all
 *    of them for a rebuild, into a new value swapped in at the end; a splice's
 *    region, into a buffer, before it builds the new chunks) before it
 *    alters anything, so a corrupt sub-block leaves the value as it was.
 *
 * Sharing: a copy (lzval_dup) shares the original's data blocks instead of
 * copying them: each block starts with a count of its holders besides the
 * first (lz_refs, in LZ_BLK_HEAD bytes before the table), and the copy takes
 * the index (the lz_chunk array) and one more hold on every block, O(chunks)
 * and ~70 bytes a chunk, never the stored bytes. A snapshot, fork or history
 * version of a scratchpad entry is such a copy once the live entry changes
 * (sp.c), so an edit of a 100 MB entry under a snapshot costs the chunks it
 * rewrites, not a copy of the ~21 MB of chunks. The rules:
 *  - a block is written in place only by a value that holds it alone: every
 *    writer (lz_put_block, lz_tail_add, lz_pack_tail, lz_open, lz_plain_if_raw,
 *    lz_resize, lzval_debug_corrupt) first calls lz_own, which copies a shared
 *    block (its table and stored bytes, checksums as they are) for the value
 *    and lets go of the shared one; the others keep it unchanged;
 *  - a block replaced (overwrite, splice, reframe, the background's re-encoding
 *    through lzv_take) or a value freed lets go of it (lz_release): the last
 *    holder frees it; lz_fit leaves the spare room of a shared block alone;
 *  - every value has its own uid (lz_alloc), renewed on every change of its
 *    bytes, so the cache (keyed by uid and chunk index) never serves one
 *    value's decoded chunk for another's, however many blocks they share;
 *  - memory: each block is one allocation, so mem_used (INFO used_memory)
 *    counts it once; data_bytes and lzval_stored count every block a value
 *    holds, whoever else holds it; lzval_stored_union counts a set of values'
 *    blocks once each and lzval_stored_beside what one value holds beside
 *    others (SP.INFO's snapshot_bytes);
 *  - the detached dictionary (xdict, one sub-block) is copied, not shared;
 *  - the counts are plain integers: values are changed and freed on one
 *    thread only; a fork rewrite's child reads blocks and writes no count.
 *
 * Scratch memory: each thread keeps three buffers, grown to the largest size it
 * has met and kept for its life: the work area (two decoded sub-blocks and one
 * LZ4 output), the build area (a whole chunk written at once is built there and
 * then copied into a block of its exact size), and the buffer lzval_chunk
 * returns when called without a cache (in lzread.c; lzframe keeps the prefix
 * buffer and two LZ4 streams the same way). They are
 * working memory, like the stack, not dataset memory: they come from plain
 * malloc so that creating and freeing a value always brings mem_used() back to
 * where it was. Everything a value or a cache holds comes from mem.h.
 *
 * Functions also answer -1 (or NULL) to arguments outside their contract (an
 * offset past the end, a chunk index out of range) rather than read out of bounds. */
#include "lz/lzval.h"
#include "lz/lzval_int.h"
#include "textcount.h"
#include "lz/lzcache.h"
#include "lz/lzframe.h"
#include "lz/lzidle.h"
#include "mem.h"

#include <isa-l/crc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LZ_CHUNK_MIN 1024u
#define LZ_CHUNK_MAX (1u << 30) /* well below LZ4_MAX_INPUT_SIZE; fits the uint32_t fields */
#define LZ_SUB_MAXN 256u        /* sub-blocks per chunk at most (sub-blocks <= 4 MB) */

_Static_assert(LZ_SUB_MAXN <= LZCACHE_SUB_MAX, "a cache slot has a have[] entry per sub-block");

static uint64_t lz_uid_counter;
static _Thread_local lz_scratch lz_work;      /* internal work area */
static _Thread_local lz_scratch lz_build;     /* a whole chunk being built (lz_chunk_whole) */

uint64_t lzv_new_uid(void)
{
    return __atomic_add_fetch(&lz_uid_counter, 1, __ATOMIC_RELAXED);
}

/* n bytes from plain malloc (working memory, not accounted); aborts on failure,
 * as xmalloc does. */
char *lzv_plain_alloc(size_t n)
{
    char *p = malloc(n ? n : 1);

    if (!p) {
        fprintf(stderr, "scratchpad: out of memory allocating %zu bytes\n", n);
        fflush(stderr);
        abort();
    }
    return p;
}

/* At least n bytes of s, kept between calls (content not preserved on growth). */
char *lzv_scratch_get(lz_scratch *s, size_t n)
{
    if (s->cap < n) {
        free(s->buf);
        s->buf = lzv_plain_alloc(n);
        s->cap = n;
    }
    return s->buf;
}

/* The work area for v: two decode buffers of sub_size bytes at [0, sub) and
 * [sub, 2 sub), then LZ4 output room from 2 sub (lzf_bound(sub) bytes). */
char *lzv_work_area(const lzval *v)
{
    return lzv_scratch_get(&lz_work, 2 * v->sub_size + lzf_bound(v->sub_size));
}

/* Characters (bytes not 10xxxxxx) and '\n' bytes of p[0..n) (textcount.h), in
 * the index's 32-bit fields: n is at most a sub-block. */
void lzv_count(const char *p, size_t n, uint32_t *chars, uint32_t *nl)
{
    size_t c, l;

    tc_count(p, n, &c, &l);
    *chars = (uint32_t)c;
    *nl = (uint32_t)l;
}

/* (lzval_int.h) */
uint32_t lzv_sum(const char *p, size_t n, uint32_t sum)
{
    return crc32_iscsi((unsigned char *)(uintptr_t)p, (int)n, sum);
}

static int lz_overlaps(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;

    return pa < pb + bn && pb < pa + an;
}

/* ---- chunk geometry ---- */

/* Bytes of the frame header of v's chunks. */
static size_t lz_hdr(const lzval *v)
{
    return lzf_header_len(v->dict);
}

/* The largest frame a chunk can need: every block raw. */
static size_t lz_max_stored(const lzval *v)
{
    return lz_hdr(v) + v->nsub_max * LZF_BLK_HDR + v->chunk_size + LZF_END;
}

/* ---- the dictionary ---- */

/* The value whose dictionary v's blocks use: v, or the value a region
 * lz_splice builds belongs to. */
static const lzval *lz_dict_owner(const lzval *v)
{
    return v->dict_src ? v->dict_src : v;
}

/* Whether sub-block j of chunk ck (a chunk of v) may be stored LZ4: in
 * dictionary mode sub-block 0 of chunk 0 is the dictionary and stays raw,
 * unless the dictionary is detached. */
static int lz_may_pack(const lzval *v, const lz_chunk *ck, size_t j)
{
    return !(v->dict && !v->region_mid && !lz_dict_owner(v)->xdict && ck == &v->chunks[0] && j == 0);
}

/* The raw bytes of v's dictionary (v in dictionary mode): the detached copy,
 * or chunk 0's first sub-block, stored raw. */
static const char *lz_dict_bytes(const lzval *v)
{
    const lzval *o = lz_dict_owner(v);
    const lz_chunk *ck;

    if (o->xdict)
        return o->xdict; /* also while the loader has no chunk yet */
    ck = &o->chunks[0];
    return lz_st(v, ck) + (ck->compressed ? lz_tab(ck)[0].off + LZF_BLK_HDR : 0);
}

/* Give v (in dictionary mode, its dictionary still chunk 0's first sub-block)
 * a detached copy of its dictionary, so that a change may rewrite that
 * sub-block while every other block keeps decoding with the same bytes
 * (dict_id stays: the bytes do not change). The copy keeps the block's
 * checksum, after checking it: 0, or -1 if the block fails it (v unchanged). */
static int lz_detach(lzval *v)
{
    const lz_chunk *ck = &v->chunks[0];
    const char *d = lz_dict_bytes(v);
    uint32_t sum = lz_tab(ck)[0].sum;

    if (lzv_sum(d, v->sub_size, LZ_SUM_RAW) != sum)
        return -1;
    v->xdict = xmalloc(v->sub_size);
    memcpy(v->xdict, d, v->sub_size);
    v->xdict_sum = sum;
    return 0;
}

/* Drop v's detached dictionary, if any (its chunks no longer use it). */
static void lz_xdict_free(lzval *v)
{
    xfree(v->xdict);
    v->xdict = NULL;
    v->xdict_sum = 0;
}

/* The thread's prefix buffer holding v's dictionary (v in dictionary mode),
 * copied in from chunk 0 only if it holds another one. */
static char *lz_prefix(const lzval *v)
{
    char *pre = lzf_prefix_get(v->dict_id, v->sub_size);

    return pre ? pre : lzf_prefix_load(v->dict_id, lz_dict_bytes(v), v->sub_size);
}

/* Decode the LZ4 block src[0..size) of v, a sub-block of full raw bytes, into
 * dst: all of it (want == full) or its first want bytes, with the dictionary in
 * dictionary mode. As lzf_decode: 0, or -1 if the block does not give exactly
 * that; never writes past dst + want. */
static int lz_decode(const lzval *v, const char *src, size_t size, char *dst, size_t want,
                     size_t full)
{
    return lzf_decode(src, size, dst, want, full, v->dict ? lz_prefix(v) : NULL, v->sub_size);
}

/* Compress raw[0..n) (n <= sub_size), a sub-block of v, into out
 * (lzf_bound(sub_size) bytes), with the dictionary in dictionary mode: as
 * lzf_encode (0: store it raw). raw may point into any chunk of v. */
static size_t lz_compress(const lzval *v, const char *raw, size_t n, char *out)
{
    return lzf_encode(raw, n, out, v->dict ? lz_prefix(v) : NULL, v->sub_size, v->dict ? 1 : v->accel);
}

/* Whether the frame block whose header is at p is stored raw. */
static int lz_blk_raw(const char *p)
{
    size_t size;

    return lzf_block_get(p, &size);
}

/* (lzval_int.h) The header must give the size the table implies, and a raw
 * block must hold exactly its sub-block's length. */
int lzv_block(const lzval *v, const lz_chunk *ck, size_t j, const char **src, size_t *size)
{
    const lz_sub *tab = lz_tab(ck);
    const char *st = lz_st(v, ck);
    size_t off = tab[j].off;
    size_t next = j + 1 < lz_nsub(v, ck->raw_len) ? tab[j + 1].off : ck->stored_len - LZF_END, h;
    int raw = lzf_block_get(st + off, &h);

    *size = next - off - LZF_BLK_HDR;
    *src = st + off + LZF_BLK_HDR;
    if (h != *size)
        return -1;
    if (raw)
        return *size == lz_blen(v, ck->raw_len, j) ? 1 : -1;
    return 0;
}

/* (lzval_int.h) */
int lzv_block_ok(const lzval *v, const lz_chunk *ck, size_t j)
{
    const char *src;
    size_t size;
    int kind;

    if (!ck->compressed)
        return lzv_sum(lz_st(v, ck) + j * v->sub_size, lz_blen(v, ck->raw_len, j), LZ_SUM_RAW) ==
                       lz_tab(ck)[j].sum ? 0 : -1;
    kind = lzv_block(v, ck, j, &src, &size);
    if (kind < 0)
        return -1;
    return lzv_sum(src, size, kind ? LZ_SUM_RAW : LZ_SUM_LZ4) == lz_tab(ck)[j].sum ? 0 : -1;
}

/* (lzval_int.h) A full decode must give exactly the sub-block's length; a
 * partial one stops after want bytes and must reach them. */
int lzv_unpack(const lzval *v, const lz_chunk *ck, size_t j, char *dst, size_t want)
{
    const char *src;
    size_t size;
    int kind;

    if (!ck->compressed) {
        memcpy(dst, lz_st(v, ck) + j * v->sub_size, want);
        return 0;
    }
    kind = lzv_block(v, ck, j, &src, &size);
    if (kind < 0)
        return -1;
    if (kind == 1) {
        memcpy(dst, src, want);
        return 0;
    }
    return lz_decode(v, src, size, dst, want, lz_blen(v, ck->raw_len, j));
}

/* The full raw bytes of sub-block j of chunk i copied into dst, from the cache
 * when it holds them (the cache is not filled: the caller is about to change
 * the sub-block). Its checksum is verified first: the caller is about to store
 * the bytes again under a new checksum. */
int lzv_load(const lzval *v, size_t i, size_t j, char *dst, lzcache *c)
{
    const lz_chunk *ck = &v->chunks[i];
    size_t full = lz_blen(v, ck->raw_len, j);
    lzcache_slot *s = c ? lzcache_find(c, v->uid, i) : NULL;

    if (s && s->have[j] >= full) {
        memcpy(dst, s->buf + j * v->sub_size, full);
        return 0;
    }
    if (lzv_block_ok(v, ck, j) < 0)
        return -1; /* re-encoded, damaged bytes would pass for good ones */
    return lzv_unpack(v, ck, j, dst, full);
}

/* ---- sharing ---- */

/* Let go of a data block v no longer uses (the caller takes it off
 * data_bytes): one holder less, freed by its last one. */
static void lz_release(char *data)
{
    uint32_t *refs = (uint32_t *)(void *)data;

    if (*refs) {
        (*refs)--;
        return;
    }
    xfree(data);
}

/* Make ck's data block v's own before v writes into it: a block other values
 * hold too is copied (table and stored bytes, the checksums as they are, so a
 * damage stays seen) into a block of v alone, and v lets go of the shared one,
 * which its other holders keep as it is. O(1) for a block v holds alone. */
static void lz_own(lzval *v, lz_chunk *ck)
{
    size_t tb = lz_tab_bytes(v);
    char *blk;

    if (*lz_refs(ck) == 0)
        return;
    blk = xmalloc(tb + ck->stored_len);
    memcpy(blk, ck->data, tb + ck->stored_len);
    *(uint32_t *)(void *)blk = 0;
    v->data_bytes -= xmalloc_size(ck->data);
    lz_release(ck->data);
    ck->data = blk;
    ck->room = (uint32_t)(xmalloc_size(blk) - tb);
    v->data_bytes += xmalloc_size(blk);
}

/* ---- building chunks ---- */

static void lz_resize(lzval *v, lz_chunk *ck, size_t room)
{
    lz_own(v, ck);
    v->data_bytes -= xmalloc_size(ck->data);
    ck->data = xrealloc(ck->data, lz_tab_bytes(v) + room);
    v->data_bytes += xmalloc_size(ck->data);
    ck->room = (uint32_t)(xmalloc_size(ck->data) - lz_tab_bytes(v));
}

/* Room for need stored bytes in ck, plus a quarter more (at least half a
 * sub-block), up to the largest frame: geometric, so the bytes a chunk filled by
 * small appends copies on reallocation stay a constant per appended byte, while
 * the spare room stays within a quarter of the chunk's stored bytes. */
static void lz_grow(lzval *v, lz_chunk *ck, size_t need)
{
    size_t room, max = lz_max_stored(v);

    if (need <= ck->room)
        return;
    room = need + (need / 4 > v->sub_size / 2 ? need / 4 : v->sub_size / 2);
    if (room > max)
        room = max;
    lz_resize(v, ck, room);
}

/* Give back the room past stored_len (kept when under 64 bytes: allocator
 * rounding; kept in a shared block, where giving it back would take a copy). */
static void lz_fit(lzval *v, lz_chunk *ck)
{
    if (*lz_refs(ck) == 0 && ck->room >= ck->stored_len + 64)
        lz_resize(v, ck, ck->stored_len);
}

static void lz_chunk_init(lzval *v, lz_chunk *ck, uint32_t room);

/* Give ck a fresh data block with room for room stored bytes (at least an empty
 * frame), a zeroed table and an empty frame. The old data block, if any, is the
 * caller's; chars_before and nl_before are left as they are. */
static void lz_chunk_start(lzval *v, lz_chunk *ck, size_t room)
{
    size_t hl = lz_hdr(v);

    if (room < hl + LZF_END)
        room = hl + LZF_END;
    ck->data = xmalloc(lz_tab_bytes(v) + room);
    v->data_bytes += xmalloc_size(ck->data);
    lz_chunk_init(v, ck, (uint32_t)(xmalloc_size(ck->data) - lz_tab_bytes(v)));
}

/* The zeroed table and the empty frame of ck's data block (ck->data, with
 * room stored bytes after the table). */
static void lz_chunk_init(lzval *v, lz_chunk *ck, uint32_t room)
{
    size_t hl = lz_hdr(v);
    char *st;

    memset(ck->data, 0, lz_tab_bytes(v));
    ck->room = room;
    st = lz_st(v, ck);
    lzf_header_put(st, v->bd, v->dict);
    lzf_end_put(st + hl);
    ck->stored_len = (uint32_t)(hl + LZF_END);
    ck->raw_len = 0;
    ck->chars = 0;
    ck->nl = 0;
    ck->compressed = 1;
}

static void lz_reserve(lzval *v, size_t n)
{
    size_t cap;

    if (n <= v->cap)
        return;
    cap = v->cap ? v->cap * 2 : 4;
    if (cap < n)
        cap = n;
    v->chunks = xrealloc(v->chunks, cap * sizeof(lz_chunk));
    v->cap = cap;
}

/* A new last chunk entry, its data block not set yet. */
static lz_chunk *lz_chunk_next(lzval *v)
{
    lz_chunk *ck;

    lz_reserve(v, v->nchunks + 1);
    ck = &v->chunks[v->nchunks++];
    if (v->nchunks == 1) {
        ck->raw_before = 0;
        ck->chars_before = 0;
        ck->nl_before = 0;
    } else {
        ck->raw_before = ck[-1].raw_before + ck[-1].raw_len;
        ck->chars_before = ck[-1].chars_before + ck[-1].chars;
        ck->nl_before = ck[-1].nl_before + ck[-1].nl;
    }
    return ck;
}

/* A new, empty last chunk, sized for the next want raw bytes. */
static lz_chunk *lz_chunk_add(lzval *v, size_t want)
{
    size_t max = lz_max_stored(v), room;
    lz_chunk *ck = lz_chunk_next(v);

    room = want >= v->chunk_size ? max : lz_hdr(v) + LZF_BLK_HDR + LZF_END + want + v->sub_size / 2;
    lz_chunk_start(v, ck, room < max ? room : max);
    return ck;
}

/* Add raw[0..n) as the next sub-block of frame chunk ck (which ends on a
 * sub-block boundary): compressed through out when pack is set (and lz_may_pack
 * allows it) and that saves 1/8, else stored raw. raw must not point into ck's
 * data block. */
static void lz_put_block(lzval *v, lz_chunk *ck, const char *raw, size_t n, int pack, char *out)
{
    size_t j = lz_nsub(v, ck->raw_len), pos = ck->stored_len - LZF_END, size = n, m;
    const char *src = raw;
    uint32_t ch, nl;
    lz_sub *tab;
    char *st;

    lz_own(v, ck);
    if (pack && lz_may_pack(v, ck, j) && (m = lz_compress(v, raw, n, out)) > 0) {
        src = out;
        size = m;
    }
    lz_grow(v, ck, ck->stored_len + LZF_BLK_HDR + size);
    st = lz_st(v, ck);
    tab = lz_tab(ck);
    lzf_block_put(st + pos, size, src == raw);
    memcpy(st + pos + LZF_BLK_HDR, src, size);
    ck->stored_len += (uint32_t)(LZF_BLK_HDR + size);
    lzf_end_put(st + ck->stored_len - LZF_END);
    if (v->hint_nl && n == lz_blen(v, v->chunk_size, j)) {
        /* ASCII content counted by the caller's scan: its characters are its bytes. */
        ch = (uint32_t)n;
        nl = v->hint_nl[(size_t)(ck - v->chunks) * v->nsub_max + j];
    } else {
        lzv_count(raw, n, &ch, &nl);
    }
    tab[j].off = (uint32_t)pos;
    tab[j].chars = ch;
    tab[j].nl = nl;
    tab[j].sum = lzv_sum(src, size, src == raw ? LZ_SUM_RAW : LZ_SUM_LZ4);
    ck->chars += ch;
    ck->nl += nl;
    ck->raw_len += (uint32_t)n;
}

/* Copy sub-block j of the chunk o (a chunk of v whose data block is about to be
 * released) as the next sub-block of frame chunk ck, without decoding it. */
static void lz_copy_block(lzval *v, lz_chunk *ck, const lz_chunk *o, size_t j)
{
    const lz_sub *otab = lz_tab(o);
    size_t n = lz_blen(v, o->raw_len, j), jn = lz_nsub(v, ck->raw_len), pos, size, next;
    lz_sub *tab;
    char *st;

    lz_own(v, ck);
    if (!o->compressed) {
        lz_put_block(v, ck, lz_st(v, o) + j * v->sub_size, n, 0, NULL);
        lz_tab(ck)[jn].sum = otab[j].sum; /* the bytes as stored: a damage stays seen */
        return;
    }
    next = j + 1 < lz_nsub(v, o->raw_len) ? otab[j + 1].off : o->stored_len - LZF_END;
    size = next - otab[j].off;
    pos = ck->stored_len - LZF_END;
    lz_grow(v, ck, ck->stored_len + size);
    st = lz_st(v, ck);
    tab = lz_tab(ck);
    memcpy(st + pos, lz_st(v, o) + otab[j].off, size);
    ck->stored_len += (uint32_t)size;
    lzf_end_put(st + ck->stored_len - LZF_END);
    tab[jn].off = (uint32_t)pos;
    tab[jn].sum = otab[j].sum;
    tab[jn].chars = otab[j].chars;
    tab[jn].nl = otab[j].nl;
    ck->chars += otab[j].chars;
    ck->nl += otab[j].nl;
    ck->raw_len += (uint32_t)n;
}

/* Compress the last sub-block of frame chunk ck in place if it is stored raw,
 * lz_may_pack allows it and compression saves 1/8 (out:
 * lzf_bound(sub_size) bytes of room). */
static void lz_pack_tail(lzval *v, lz_chunk *ck, char *out)
{
    size_t j = lz_nsub(v, ck->raw_len) - 1, n = lz_blen(v, ck->raw_len, j), m;
    char *st = lz_st(v, ck), *blk = st + lz_tab(ck)[j].off;

    if (!lz_blk_raw(blk) || !lz_may_pack(v, ck, j))
        return;
    m = lz_compress(v, blk + LZF_BLK_HDR, n, out);
    if (m == 0)
        return;
    lz_own(v, ck);
    st = lz_st(v, ck);
    blk = st + lz_tab(ck)[j].off;
    lzf_block_put(blk, m, 0);
    memcpy(blk + LZF_BLK_HDR, out, m);
    lz_tab(ck)[j].sum = lzv_sum(out, m, LZ_SUM_LZ4);
    ck->stored_len = (uint32_t)(blk + LZF_BLK_HDR + m + LZF_END - st);
    lzf_end_put(st + ck->stored_len - LZF_END);
}

/* Add p[0..k) to the raw last sub-block of frame chunk ck, starting one when ck
 * ends on a sub-block boundary; k fits in the sub-block. The sub-block is packed
 * when this completes it. p must not point into ck's data block. */
static void lz_tail_add(lzval *v, lz_chunk *ck, const char *p, size_t k, char *out)
{
    size_t j = ck->raw_len / v->sub_size, have = ck->raw_len - j * v->sub_size;
    uint32_t ch, nl;
    lz_sub *tab;
    char *st;

    lz_own(v, ck);
    if (have == 0) {
        lz_grow(v, ck, ck->stored_len + LZF_BLK_HDR + k);
        tab = lz_tab(ck);
        tab[j].off = ck->stored_len - LZF_END;
        tab[j].chars = 0;
        tab[j].nl = 0;
        tab[j].sum = LZ_SUM_RAW;
        ck->stored_len += LZF_BLK_HDR;
    } else {
        lz_grow(v, ck, ck->stored_len + k);
    }
    st = lz_st(v, ck);
    tab = lz_tab(ck);
    memcpy(st + ck->stored_len - LZF_END, p, k);
    ck->stored_len += (uint32_t)k;
    lzf_end_put(st + ck->stored_len - LZF_END);
    lzf_block_put(st + tab[j].off, have + k, 1);
    lzv_count(p, k, &ch, &nl);
    tab[j].sum = lzv_sum(p, k, tab[j].sum);
    tab[j].chars += ch;
    tab[j].nl += nl;
    ck->chars += ch;
    ck->nl += nl;
    ck->raw_len += (uint32_t)k;
    if (have + k == lz_blen(v, v->chunk_size, j))
        lz_pack_tail(v, ck, out);
}

/* A full chunk none of whose blocks is LZ4 takes the plain form: the raw bytes
 * slide down over the block headers. */
static void lz_plain_if_raw(lzval *v, lz_chunk *ck)
{
    size_t nsub = lz_nsub(v, ck->raw_len), j, pos = 0;
    lz_sub *tab = lz_tab(ck);
    char *st = lz_st(v, ck);

    for (j = 0; j < nsub; j++)
        if (!lz_blk_raw(st + tab[j].off))
            break;
    if (j == nsub) {
        lz_own(v, ck);
        tab = lz_tab(ck);
        st = lz_st(v, ck);
        for (j = 0; j < nsub; j++) {
            size_t n = lz_blen(v, ck->raw_len, j);
            memmove(st + pos, st + tab[j].off + LZF_BLK_HDR, n);
            tab[j].off = (uint32_t)pos;
            pos += n;
        }
        ck->stored_len = (uint32_t)pos;
        ck->compressed = 0;
    }
}

/* A chunk that just became full: plain if nothing compressed, shrunk to fit. */
static void lz_close(lzval *v, lz_chunk *ck)
{
    lz_plain_if_raw(v, ck);
    lz_fit(v, ck);
}

/* A whole chunk from p[0..chunk_size) as the next chunk of v (whose last chunk,
 * if any, is full; p outside v's data blocks), through out (as lz_put_block).
 * It is built in the thread's build area (room for the largest frame) and then
 * copied into a block of its exact size: one allocation per chunk, instead of
 * one of the largest frame's size and a shrinking realloc (the allocator's
 * work was 5 % of the server's time on agent-mix). */
static void lz_chunk_whole(lzval *v, const char *p, char *out)
{
    size_t tb = lz_tab_bytes(v), max = lz_max_stored(v), j;
    lz_chunk *ck = lz_chunk_next(v);
    char *blk;

    ck->data = lzv_scratch_get(&lz_build, tb + max);
    lz_chunk_init(v, ck, (uint32_t)max);
    for (j = 0; j < lz_nsub(v, v->chunk_size); j++)
        lz_put_block(v, ck, p + j * v->sub_size, lz_blen(v, v->chunk_size, j), 1, out);
    lz_plain_if_raw(v, ck);
    blk = xmalloc(tb + ck->stored_len);
    memcpy(blk, ck->data, tb + ck->stored_len);
    ck->data = blk;
    ck->room = (uint32_t)(xmalloc_size(blk) - tb);
    v->data_bytes += xmalloc_size(blk);
}

/* Turn the plain, not full, chunk ck (only from_chunks makes one) into a frame:
 * its complete sub-blocks compressed, the incomplete one as the raw tail.
 * Returns 0, or -1 if a sub-block fails its checksum (ck unchanged). */
static int lz_reframe(lzval *v, lz_chunk *ck)
{
    lz_chunk old = *ck;
    size_t nsub = lz_nsub(v, old.raw_len), j;
    char *out = lzv_work_area(v) + 2 * v->sub_size;

    for (j = 0; j < nsub; j++)
        if (lzv_block_ok(v, &old, j) < 0)
            return -1;
    lz_chunk_start(v, ck, lz_hdr(v) + nsub * LZF_BLK_HDR + old.raw_len + LZF_END);
    for (j = 0; j < nsub; j++) {
        size_t n = lz_blen(v, old.raw_len, j);
        lz_put_block(v, ck, lz_st(v, &old) + j * v->sub_size, n, n == v->sub_size, out);
    }
    v->data_bytes -= xmalloc_size(old.data);
    lz_release(old.data);
    return 0;
}

/* Make the end of v ready for lz_put: a compressed incomplete last sub-block is
 * decoded back into a raw tail, a plain incomplete last chunk becomes a frame.
 * Returns 0, or -1 if a sub-block it re-stores is corrupt or fails its
 * checksum (v unchanged). */
static int lz_open(lzval *v)
{
    lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;
    size_t j, have, size, pos;
    const char *src;
    char *w, *st;
    int kind;

    if (!ck || ck->raw_len == v->chunk_size)
        return 0;
    if (!ck->compressed)
        return lz_reframe(v, ck);
    j = ck->raw_len / v->sub_size;
    have = ck->raw_len - j * v->sub_size;
    if (have == 0)
        return 0;
    kind = lzv_block(v, ck, j, &src, &size);
    if (kind < 0)
        return -1;
    if (kind == 1)
        return 0; /* the raw tail already: its sum goes on with the appends */
    w = lzv_work_area(v);
    if (lzv_block_ok(v, ck, j) < 0 || lz_decode(v, src, size, w, have, have) < 0)
        return -1;
    lz_own(v, ck);
    pos = lz_tab(ck)[j].off;
    lz_grow(v, ck, pos + LZF_BLK_HDR + have + LZF_END);
    st = lz_st(v, ck);
    lzf_block_put(st + pos, have, 1);
    memcpy(st + pos + LZF_BLK_HDR, w, have);
    lz_tab(ck)[j].sum = lzv_sum(w, have, LZ_SUM_RAW);
    ck->stored_len = (uint32_t)(pos + LZF_BLK_HDR + have + LZF_END);
    lzf_end_put(st + ck->stored_len - LZF_END);
    return 0;
}

/* Add p[0..n) at the end of v, which lz_open made ready: whole sub-blocks are
 * compressed straight from p, the rest goes through the raw tail. p must not
 * point into the last chunk's data block. */
static void lz_put(lzval *v, const char *p, size_t n)
{
    size_t cs = v->chunk_size;
    char *out = lzv_work_area(v) + 2 * v->sub_size;

    while (n > 0) {
        lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;
        size_t j, have, full, k;

        if ((!ck || ck->raw_len == cs) && n >= cs) {
            lz_chunk_whole(v, p, out);
            p += cs;
            n -= cs;
            v->len += cs;
            continue;
        }
        if (!ck || ck->raw_len == cs)
            ck = lz_chunk_add(v, n);
        j = ck->raw_len / v->sub_size;
        have = ck->raw_len - j * v->sub_size;
        full = lz_blen(v, cs, j);
        if (have == 0 && n >= full) {
            k = full;
            lz_put_block(v, ck, p, k, 1, out);
        } else {
            k = n < full - have ? n : full - have;
            lz_tail_add(v, ck, p, k, out);
        }
        if (ck->raw_len == cs)
            lz_close(v, ck);
        p += k;
        n -= k;
        v->len += k;
    }
}

/* (lzval_int.h) */
void lzv_put(lzval *w, const char *p, size_t n)
{
    lz_put(w, p, n);
}

/* Recompute raw_before / chars_before / nl_before from chunk i to the end. */
static void lz_fix_prefix(lzval *v, size_t i)
{
    for (; i < v->nchunks; i++) {
        lz_chunk *ck = &v->chunks[i];
        if (i == 0) {
            ck->raw_before = 0;
            ck->chars_before = 0;
            ck->nl_before = 0;
        } else {
            ck->raw_before = ck[-1].raw_before + ck[-1].raw_len;
            ck->chars_before = ck[-1].chars_before + ck[-1].chars;
            ck->nl_before = ck[-1].nl_before + ck[-1].nl;
        }
    }
}

/* v's raw bytes [lo, hi) changed where they were (every chunk keeps its place
 * and its index) and v took a new uid: c's slots of old_uid follow it,
 * forgetting the sub-blocks the change touched. */
static void lz_cache_changed(const lzval *v, lzcache *c, uint64_t old_uid, size_t lo, size_t hi)
{
    size_t i;

    if (!c)
        return;
    lzcache_remap(c, old_uid, v->uid, 1, 0, 0);
    if (lo >= hi)
        return;
    for (i = lz_find(v, lo); i < v->nchunks && v->chunks[i].raw_before < hi; i++) {
        const lz_chunk *ck = &v->chunks[i];
        size_t a = lo > ck->raw_before ? lo - ck->raw_before : 0;
        size_t b = (hi < ck->raw_before + ck->raw_len ? hi : ck->raw_before + ck->raw_len) - ck->raw_before;
        lzcache_forget(c, v->uid, i, a / v->sub_size, (b - 1) / v->sub_size);
    }
}

/* Overwrite [off, off + n) (n > 0, off + n <= len) with p[0..n), p pointing into
 * none of v's data blocks. Each touched chunk gets a new data block in which the
 * untouched sub-blocks are copied as stored and the touched ones rebuilt; only
 * the first and the last touched sub-block can be partly overwritten, and they
 * are decoded before anything changes. Returns 0, or -1 on a corrupt sub-block
 * (v unchanged). */
static int lz_overwrite(lzval *v, size_t off, const char *p, size_t n, lzcache *c)
{
    size_t cs = v->chunk_size, sub = v->sub_size, end = off + n, i;
    size_t fi = lz_find(v, off), fj = (off - v->chunks[fi].raw_before) / sub;
    size_t li = lz_find(v, end - 1), lj = (end - 1 - v->chunks[li].raw_before) / sub;
    size_t f_lo = v->chunks[fi].raw_before + fj * sub, f_hi = f_lo + lz_blen(v, v->chunks[fi].raw_len, fj);
    size_t l_lo = v->chunks[li].raw_before + lj * sub, l_hi = l_lo + lz_blen(v, v->chunks[li].raw_len, lj);
    int need_f = off > f_lo || end < f_hi;
    int need_l = (li != fi || lj != fj) && end < l_hi;
    char *w = lzv_work_area(v), *a = w, *b = w + sub, *out = w + 2 * sub;
    uint64_t old_uid = v->uid;

    if (need_f && lzv_load(v, fi, fj, a, c) < 0)
        return -1;
    if (need_l && lzv_load(v, li, lj, b, c) < 0)
        return -1;
    if (need_f)
        memcpy(a + (off - f_lo), p, (end < f_hi ? end : f_hi) - off);
    if (need_l)
        memcpy(b, p + (l_lo - off), end - l_lo);
    for (i = fi; i <= li; i++) {
        lz_chunk old = v->chunks[i], *ck = &v->chunks[i];
        size_t lo = old.raw_before, nsub = lz_nsub(v, old.raw_len), j;
        int mid = i + 1 < v->nchunks; /* a chunk before the last: its last sub-block is packed */

        lz_chunk_start(v, ck, lz_max_stored(v));
        for (j = 0; j < nsub; j++) {
            size_t blo = lo + j * sub, bn = lz_blen(v, old.raw_len, j);
            const char *raw;
            if (blo + bn <= off || blo >= end) {
                lz_copy_block(v, ck, &old, j);
                continue;
            }
            if (i == fi && j == fj && need_f)
                raw = a;
            else if (i == li && j == lj && need_l)
                raw = b;
            else
                raw = p + (blo - off);
            lz_put_block(v, ck, raw, bn, mid || bn == lz_blen(v, cs, j), out);
        }
        if (ck->raw_len == cs || mid)
            lz_close(v, ck);
        else
            lz_fit(v, ck);
        v->data_bytes -= xmalloc_size(old.data);
        lz_release(old.data);
    }
    lz_fix_prefix(v, fi);
    v->uid = lzv_new_uid();
    lz_cache_changed(v, c, old_uid, off, end);
    return 0;
}

/* (lzval_int.h) The geometry and uid are v's; nothing else is. */
lzval *lzv_shell(const lzval *v, int dict)
{
    lzval *w = xcalloc(1, sizeof(*w));

    w->uid = v->uid;
    w->chunk_size = v->chunk_size;
    w->sub_size = v->sub_size;
    w->nsub_max = v->nsub_max;
    w->bd = v->bd;
    w->dict = dict != 0;
    w->dict_id = dict ? lzv_new_uid() : 0;
    w->accel = 1;
    return w;
}

/* Copy v's raw bytes [a, b) (a <= b <= len) into dst, sub-block by sub-block,
 * each one's checksum verified first (lzv_load: the caller is about to store the
 * bytes again under a new one); through the cache when it holds them. A
 * sub-block only partly wanted goes through the work area's second buffer.
 * Returns 0, or -1 if a sub-block is corrupt. */
static int lz_read_checked(const lzval *v, size_t a, size_t b, char *dst, lzcache *c)
{
    char *part = lzv_work_area(v) + v->sub_size;

    while (a < b) {
        size_t i = lz_find(v, a);
        const lz_chunk *ck = &v->chunks[i];
        size_t r = a - ck->raw_before, j = r / v->sub_size, lo = j * v->sub_size;
        size_t bn = lz_blen(v, ck->raw_len, j), e = b - ck->raw_before < lo + bn ? b - ck->raw_before : lo + bn;

        if (r == lo && e == lo + bn) {
            if (lzv_load(v, i, j, dst, c) < 0)
                return -1;
        } else {
            if (lzv_load(v, i, j, part, c) < 0)
                return -1;
            memcpy(dst, part + (r - lo), e - r);
        }
        dst += e - r;
        a = ck->raw_before + e;
    }
    return 0;
}

/* Put v's raw bytes [a, b) at the end of w (lz_put), at most a sub-block at a
 * time through the work area's first buffer, each checked (lz_read_checked).
 * 0, or -1 if a sub-block is corrupt. */
static int lz_put_from(lzval *w, const lzval *v, size_t a, size_t b, lzcache *c)
{
    char *raw = lzv_work_area(v);

    while (a < b) {
        const lz_chunk *ck = &v->chunks[lz_find(v, a)];
        size_t r = a - ck->raw_before, hi = (r / v->sub_size) * v->sub_size + lz_blen(v, ck->raw_len, r / v->sub_size);
        size_t e = b - ck->raw_before < hi ? b : ck->raw_before + hi;

        if (lz_read_checked(v, a, e, raw, c) < 0)
            return -1;
        lz_put(w, raw, e - a);
        a = e;
    }
    return 0;
}

/* A new value holding v's bytes with [off, off + del) replaced by p[0..n) (off +
 * del <= len; p in none of v's data blocks), in dictionary mode if dict (then
 * the result must be longer than a sub-block): every sub-block kept is decoded
 * (through the cache if it holds it) and put into the new value, which
 * compresses them (with its own dictionary, its first sub-block, if dict), in
 * chunks of chunk_size. Costs one decoding and one compression of the whole
 * value. Its last sub-block is left as a raw tail. Returns NULL if a sub-block
 * it needs is corrupt; v is not changed. */
static lzval *lz_rebuild(const lzval *v, size_t off, size_t del, const char *p, size_t n, lzcache *c, int dict)
{
    lzval *w = lzv_shell(v, dict);

    if (lz_put_from(w, v, 0, off, c) < 0)
        goto err;
    lz_put(w, p, n);
    if (lz_put_from(w, v, off + del, v->len, c) < 0)
        goto err;
    return w;
err:
    lzval_free(w);
    return NULL;
}

/* Whether v's last sub-block is incomplete and stored raw: a raw tail (or an
 * incompressible sealed one). */
static int lz_raw_tail(const lzval *v)
{
    const lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;
    size_t j;

    if (!ck || !ck->compressed || ck->raw_len == v->chunk_size || ck->raw_len % v->sub_size == 0)
        return 0;
    j = lz_nsub(v, ck->raw_len) - 1;
    return lz_blk_raw(lz_st(v, ck) + lz_tab(ck)[j].off);
}

/* (lzval_int.h) */
void lzv_take(lzval *v, lzval *w)
{
    size_t i;

    for (i = 0; i < v->nchunks; i++)
        lz_release(v->chunks[i].data);
    xfree(v->chunks);
    v->chunks = w->chunks;
    v->nchunks = w->nchunks;
    v->cap = w->cap;
    v->len = w->len;
    v->data_bytes = w->data_bytes;
    v->dict = w->dict;
    v->dict_id = w->dict_id;
    v->accel = w->accel;
    lz_xdict_free(v);
    v->xdict = w->xdict;
    v->xdict_sum = w->xdict_sum;
    xfree(w);
}

/* The change of [off, off + del) (inside v) into p[0..n) when it touches the
 * dictionary (v in dictionary mode, off < sub_size) and lz_keep_dict refused
 * to detach it (the value is left no longer than a sub-block, or the
 * dictionary's block fails its checksum): the whole value is rebuilt
 * (lz_rebuild), with the new dictionary, or, for a value an lzidle registry
 * converts (v->idle) or one left no longer than a sub-block, without one, which
 * is faster and leaves the dictionary to the registry once the value is idle
 * again; its last sub-block is sealed again if it was. The cache forgets v.
 * Returns 0, or -1 if a sub-block is corrupt (v unchanged). */
static int lz_redict(lzval *v, size_t off, size_t del, const char *p, size_t n, lzcache *c)
{
    uint64_t old_uid = v->uid;
    int tail = lz_raw_tail(v);
    lzval *w = lz_rebuild(v, off, del, p, n, c, v->idle == NULL && v->len - del + n > v->sub_size);

    if (!w)
        return -1;
    if (!tail)
        lzval_seal(w);
    lzv_take(v, w);
    v->uid = lzv_new_uid();
    if (c)
        lzcache_remap(c, old_uid, v->uid, 0, SIZE_MAX, 0);
    return 0;
}

/* The change of [off, off + del) into p[0..n) (p in none of v's data blocks;
 * del != n; in dictionary mode off >= sub_size or the dictionary detached, so
 * the dictionary stays), at
 * the cost of the chunks it touches: the region of the chunks holding [off, off
 * + del) (the one holding off for an insertion), widened by a neighbour while
 * its new length would be under a quarter of chunk_size (so small chunks do not
 * accumulate), is read (checked) into one buffer with the change made, cut into
 * the fewest chunks of at most chunk_size (of equal sizes, rounded up to whole
 * sub-blocks when the last one still gets a quarter of chunk_size), compressed into a region value w (lz_put: the same blocks as
 * any chunk of v, with v's dictionary) and swapped in for the old chunks; the
 * chunks after it only have their raw_before / chars_before / nl_before
 * shifted. Costs O(region + chunks). Returns 0, or -1 if a sub-block it reads
 * is corrupt (v unchanged). */
static int lz_splice(lzval *v, size_t off, size_t del, const char *p, size_t n, lzcache *c)
{
    size_t cs = v->chunk_size, sub = v->sub_size, fi, li, rlo, rhi, total, k, target, whole, i, freed = 0, m, wn;
    uint64_t old_uid = v->uid;
    char *buf;
    lzval *w;

    fi = lz_find(v, off);
    li = del ? lz_find(v, off + del - 1) : fi;
    rlo = v->chunks[fi].raw_before;
    rhi = v->chunks[li].raw_before + v->chunks[li].raw_len;
    total = rhi - rlo - del + n;
    while (total < cs / 4 && (li + 1 < v->nchunks || fi > 0)) {
        if (li + 1 < v->nchunks) {
            li++;
            total += v->chunks[li].raw_len;
            rhi += v->chunks[li].raw_len;
        } else {
            fi--;
            total += v->chunks[fi].raw_len;
            rlo = v->chunks[fi].raw_before;
        }
    }
    buf = lzv_plain_alloc(total);
    if (lz_read_checked(v, rlo, off, buf, c) < 0 || lz_read_checked(v, off + del, rhi, buf + (off - rlo) + n, c) < 0) {
        free(buf);
        return -1;
    }
    if (n)
        memcpy(buf + (off - rlo), p, n);
    k = (total + cs - 1) / cs;
    target = k ? (total + k - 1) / k : cs;
    whole = (target + sub - 1) / sub * sub;
    if (k > 1 && whole <= cs && (k - 1) * whole < total && total - (k - 1) * whole >= cs / 4)
        target = whole; /* whole sub-blocks, the last chunk still large */
    w = lzv_shell(v, 0);
    w->dict = v->dict;
    w->dict_id = v->dict_id;
    w->dict_src = v;
    w->region_mid = fi > 0;
    w->accel = v->accel;
    w->chunk_size = target;
    lz_put(w, buf, total);
    lzval_seal(w);
    free(buf);
    m = li - fi + 1;
    wn = w->nchunks;
    for (i = fi; i <= li; i++) {
        freed += xmalloc_size(v->chunks[i].data);
        lz_release(v->chunks[i].data);
    }
    lz_reserve(v, v->nchunks - m + wn);
    memmove(&v->chunks[fi + wn], &v->chunks[li + 1], (v->nchunks - li - 1) * sizeof(lz_chunk));
    if (wn)
        memcpy(&v->chunks[fi], w->chunks, wn * sizeof(lz_chunk));
    v->nchunks = v->nchunks - m + wn;
    v->data_bytes = v->data_bytes - freed + w->data_bytes;
    v->len = v->len - del + n;
    lz_fix_prefix(v, fi);
    xfree(w->chunks);
    xfree(w);
    v->uid = lzv_new_uid();
    if (c)
        lzcache_remap(c, old_uid, v->uid, fi, li, (long)wn - (long)m);
    return 0;
}

/* A plain-malloc copy of p[0..n) (the caller frees it), for a source that
 * points into a data block the change may move or free. */
static char *lz_copy_source(const char *p, size_t n)
{
    char *q = lzv_plain_alloc(n);

    memcpy(q, p, n);
    return q;
}

/* ---- public ---- */

void lzval_layout(size_t chunk_size, size_t *chunk, size_t *sub)
{
    size_t s = LZ_SUB;

    if (chunk_size < LZ_CHUNK_MIN)
        chunk_size = LZ_CHUNK_MIN;
    if (chunk_size > LZ_CHUNK_MAX)
        chunk_size = LZ_CHUNK_MAX;
    if ((chunk_size + LZ_SUB_MAXN - 1) / LZ_SUB_MAXN > s)
        s = (chunk_size + LZ_SUB_MAXN - 1) / LZ_SUB_MAXN;
    if (s > chunk_size)
        s = chunk_size;
    *chunk = chunk_size;
    *sub = s;
}

/* chunk_size is clamped to [1024, 2^30] (lzval_layout). */
static lzval *lz_alloc(size_t chunk_size)
{
    lzval *v = xcalloc(1, sizeof(*v));
    size_t sub;

    lzval_layout(chunk_size, &chunk_size, &sub);
    v->chunk_size = chunk_size;
    v->sub_size = sub;
    v->nsub_max = (chunk_size + sub - 1) / sub;
    v->bd = (uint8_t)lzf_bd(sub);
    v->accel = 1;
    v->uid = lzv_new_uid();
    return v;
}

lzval *lzval_new(const char *p, size_t n, size_t chunk_size)
{
    lzval *v = lz_alloc(chunk_size);

    if (lzv_dict_choose(v, p, n)) {
        v->dict = 1;
        v->dict_id = lzv_new_uid();
    }
    lz_put(v, p, n);
    lzval_seal(v);
    return v;
}

lzval *lzval_new_nodict(const char *p, size_t n, size_t chunk_size)
{
    return lzval_new_fast(p, n, chunk_size, 1);
}

lzval *lzval_new_fast(const char *p, size_t n, size_t chunk_size, int accel)
{
    return lzval_new_ascii(p, n, chunk_size, accel, NULL);
}

/* nl NULL: every sub-block is counted here (lzval_new_fast). */
lzval *lzval_new_ascii(const char *p, size_t n, size_t chunk_size, int accel, const uint32_t *nl)
{
    lzval *v = lz_alloc(chunk_size);

    v->accel = accel > 1 ? accel : 1;
    v->hint_nl = nl;
    lz_put(v, p, n);
    v->hint_nl = NULL;
    lzval_seal(v);
    return v;
}

int lzval_accel(const lzval *v)
{
    return v->accel;
}

lzval *lzval_dup(const lzval *v)
{
    lzval *d = lz_alloc(v->chunk_size);
    size_t i;

    d->len = v->len;
    d->dict = v->dict;
    d->accel = v->accel;
    d->dict_id = v->dict ? lzv_new_uid() : 0;
    d->nchunks = v->nchunks;
    lz_reserve(d, v->nchunks);
    if (v->nchunks)
        memcpy(d->chunks, v->chunks, v->nchunks * sizeof(lz_chunk));
    for (i = 0; i < v->nchunks; i++)
        (*lz_refs(&d->chunks[i]))++;
    d->data_bytes = v->data_bytes;
    if (v->xdict) {
        d->xdict = xmalloc(v->sub_size);
        memcpy(d->xdict, v->xdict, v->sub_size);
        d->xdict_sum = v->xdict_sum;
    }
    d->dict_no = v->dict_no;
    if (v->idle)
        lzidle_adopt(v->idle, d);
    return d;
}

void lzval_free(lzval *v)
{
    size_t i;

    if (!v)
        return;
    if (v->shares) {
        v->shares--;
        return;
    }
    if (v->idle)
        lzv_idle_forget(v);
    for (i = 0; i < v->nchunks; i++)
        lz_release(v->chunks[i].data);
    xfree(v->chunks);
    xfree(v->xdict);
    xfree(v);
}

lzval *lzval_share(lzval *v)
{
    v->shares++;
    return v;
}

size_t lzval_holders(const lzval *v)
{
    return (size_t)v->shares + 1;
}

uint32_t lzval_note_read(lzval *v, uint32_t now_s)
{
    if (v->read_sec != now_s) {
        v->read_sec = now_s;
        v->reads = 0;
    }
    if (v->reads < UINT32_MAX)
        v->reads++;
    return v->reads;
}

size_t lzval_len(const lzval *v)
{
    return v->len;
}

size_t lzval_chars(const lzval *v)
{
    const lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;

    return ck ? ck->chars_before + ck->chars : 0;
}

size_t lzval_newlines(const lzval *v)
{
    const lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;

    return ck ? ck->nl_before + ck->nl : 0;
}

size_t lzval_stored(const lzval *v)
{
    return xmalloc_size(v) + xmalloc_size(v->chunks) + v->data_bytes + (v->xdict ? xmalloc_size(v->xdict) : 0);
}

static int lz_ptr_cmp(const void *a, const void *b)
{
    const char *const *pa = a, *const *pb = b;
    uintptr_t x = (uintptr_t)pa[0], y = (uintptr_t)pb[0];

    return x < y ? -1 : x > y;
}

/* The data blocks of the distinct values are gathered (plain malloc, working
 * memory), sorted, and each counted once: O(B log B) for B blocks in all. */
size_t lzval_stored_union(const lzval *const *vals, size_t n)
{
    size_t i, k, nb = 0, total = 0;
    char **blk;

    for (i = 0; i < n; i++) {
        const lzval *v = vals[i];
        int seen = v == NULL;
        for (k = 0; k < i && !seen; k++)
            seen = vals[k] == v;
        if (seen)
            continue;
        total += xmalloc_size(v) + xmalloc_size(v->chunks) + (v->xdict ? xmalloc_size(v->xdict) : 0);
        nb += v->nchunks;
    }
    blk = (char **)(void *)lzv_plain_alloc(nb * sizeof(char *));
    nb = 0;
    for (i = 0; i < n; i++) {
        const lzval *v = vals[i];
        int seen = v == NULL;
        for (k = 0; k < i && !seen; k++)
            seen = vals[k] == v;
        for (k = 0; !seen && k < v->nchunks; k++)
            blk[nb++] = v->chunks[k].data;
    }
    qsort(blk, nb, sizeof(char *), lz_ptr_cmp);
    for (i = 0; i < nb; i++)
        if (i == 0 || blk[i] != blk[i - 1])
            total += xmalloc_size(blk[i]);
    free(blk);
    return total;
}

/* (lzval_int.h) */
int lzv_shares_chunks(const lzval *v)
{
    size_t i;

    for (i = 0; i < v->nchunks; i++)
        if (*lz_refs(&v->chunks[i]))
            return 1;
    return 0;
}

/* A value none of whose blocks is shared holds lzval_stored beside anyone. */
size_t lzval_stored_beside(const lzval *x, const lzval *a, const lzval *b)
{
    const lzval *all[3] = {x, a, b};

    if (x == a || x == b)
        return 0;
    if (!lzv_shares_chunks(x) || (!a && !b))
        return lzval_stored(x);
    return lzval_stored_union(all, 3) - lzval_stored_union(all + 1, 2);
}

size_t lzval_nchunks(const lzval *v)
{
    return v->nchunks;
}

size_t lzval_chunk_size(const lzval *v)
{
    return v->chunk_size;
}

size_t lzval_dict(const lzval *v)
{
    return v->dict ? v->sub_size : 0;
}

int lzval_append(lzval *v, const char *p, size_t n, lzcache *c)
{
    const lz_chunk *last = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;
    size_t old_len = v->len;
    uint64_t old_uid = v->uid;
    char *copy = NULL;
    int want;

    if (n == 0)
        return 0;
    if (n > SIZE_MAX - v->len)
        return -1;
    if (last && lz_overlaps(p, n, last->data, xmalloc_size(last->data)))
        p = copy = lz_copy_source(p, n);
    want = v->idle ? 0 : lzv_dict_wanted(v, p, n);
    if (want < 0) {
        free(copy);
        return -1;
    }
    if (want) {
        lzval *w = lz_rebuild(v, 0, 0, NULL, 0, c, 1);
        if (!w) {
            free(copy);
            return -1;
        }
        lz_put(w, p, n);
        lzv_take(v, w);
    } else {
        if (lz_open(v) < 0) {
            free(copy);
            return -1;
        }
        lz_put(v, p, n);
    }
    v->uid = lzv_new_uid();
    if (c && want)
        lzcache_remap(c, old_uid, v->uid, 0, SIZE_MAX, 0);
    else
        lz_cache_changed(v, c, old_uid, old_len, v->len);
    if (v->idle)
        lzv_idle_changed(v);
    free(copy);
    return 0;
}

/* Whether a change of [off, off + del) into n bytes that reaches v's
 * dictionary (v in dictionary mode, off < sub_size) may keep it, detached, and
 * cost only the chunks it touches: when the value stays longer than a
 * sub-block; the dictionary is then detached if it is not yet (*fresh set).
 * 0, or -1 for a rebuild (lz_redict). */
static int lz_keep_dict(lzval *v, size_t del, size_t n, int *fresh)
{
    if (v->len - del + n <= v->sub_size)
        return -1;
    if (v->xdict)
        return 0;
    if (lz_detach(v) < 0)
        return -1; /* the rebuild reads the same block and fails too */
    *fresh = 1;
    return 0;
}

/* The part inside the value is overwritten first; it covers the last byte, so
 * the append of the rest finds a raw tail or a sub-block boundary and cannot
 * fail. A source pointing into any chunk the change may replace is copied. A
 * change of the dictionary's sub-block detaches the dictionary (lz_keep_dict),
 * which a failed change takes back. */
int lzval_setrange(lzval *v, size_t off, const char *p, size_t n, lzcache *c)
{
    size_t inside, i;
    char *copy = NULL;
    int r = 0, fresh = 0;

    if (off > v->len || n > SIZE_MAX - off)
        return -1;
    if (n == 0)
        return 0;
    for (i = off < v->len ? lz_find(v, off) : v->nchunks; i < v->nchunks && !copy; i++)
        if (lz_overlaps(p, n, v->chunks[i].data, xmalloc_size(v->chunks[i].data)))
            p = copy = lz_copy_source(p, n);
    inside = v->len - off < n ? v->len - off : n;
    if (inside && v->dict && off < v->sub_size && lz_keep_dict(v, inside, inside, &fresh) < 0)
        r = lz_redict(v, off, inside, p, inside, c);
    else if (inside && (r = lz_overwrite(v, off, p, inside, c)) < 0 && fresh)
        lz_xdict_free(v);
    if (r == 0 && inside < n)
        r = lzval_append(v, p + inside, n - inside, c);
    if (r == 0 && v->idle)
        lzv_idle_changed(v);
    free(copy);
    return r;
}

/* The same-length case is setrange's (in place), an insertion at the end an
 * append; otherwise lz_splice, the dictionary detached first when the change
 * reaches it (lz_keep_dict), or lz_redict when the value would be left no
 * longer than a sub-block. A source pointing into any of v's chunks is copied
 * first. */
int lzval_splice(lzval *v, size_t off, size_t del, const char *p, size_t n, lzcache *c)
{
    char *copy = NULL;
    size_t i;
    int r, fresh = 0;

    if (off > v->len || del > v->len - off || n > SIZE_MAX - (v->len - del))
        return -1;
    if (del == n)
        return n ? lzval_setrange(v, off, p, n, c) : 0;
    if (off == v->len)
        return lzval_append(v, p, n, c);
    for (i = 0; i < v->nchunks && n && !copy; i++)
        if (lz_overlaps(p, n, v->chunks[i].data, xmalloc_size(v->chunks[i].data)))
            p = copy = lz_copy_source(p, n);
    if (v->dict && off < v->sub_size && lz_keep_dict(v, del, n, &fresh) < 0)
        r = lz_redict(v, off, del, p, n, c);
    else if ((r = lz_splice(v, off, del, p, n, c)) < 0 && fresh)
        lz_xdict_free(v);
    if (r == 0 && v->idle)
        lzv_idle_changed(v);
    free(copy);
    return r;
}

/* Compresses the incomplete last sub-block if it is raw and that saves 1/8, and
 * shrinks the last chunk to fit. The raw bytes do not change: uid stays. */
void lzval_seal(lzval *v)
{
    lz_chunk *ck = v->nchunks ? &v->chunks[v->nchunks - 1] : NULL;

    if (!ck || !ck->compressed)
        return;
    if (ck->raw_len % v->sub_size)
        lz_pack_tail(v, ck, lzv_work_area(v) + 2 * v->sub_size);
    lz_fit(v, ck);
}

void lzval_chunk_stored(const lzval *v, size_t i, const char **data, size_t *stored_len,
                        size_t *raw_len, int *compressed)
{
    const lz_chunk *ck = i < v->nchunks ? &v->chunks[i] : NULL;

    *data = ck ? lz_st(v, ck) : NULL;
    *stored_len = ck ? ck->stored_len : 0;
    *raw_len = ck ? ck->raw_len : 0;
    *compressed = ck ? ck->compressed : 0;
}

/* A chunk_size out of [1024, 2^30] makes the value bad: every add fails, end
 * returns NULL. */
lzval *lzval_from_chunks_begin(size_t chunk_size)
{
    int bad = chunk_size < LZ_CHUNK_MIN || chunk_size > LZ_CHUNK_MAX;
    lzval *v = lz_alloc(bad ? LZ_CHUNK_MIN : chunk_size);

    v->bad = bad;
    return v;
}

/* lzf_check's visitor for lz_check_frame: block j's place and counts. */
static void lz_check_visit(void *arg, size_t j, size_t off, const char *raw, size_t n)
{
    lz_sub *tab = arg;

    tab[j].off = (uint32_t)off;
    lzv_count(raw, n, &tab[j].chars, &tab[j].nl);
}

/* Check the frame data[0..stored_len) against the canonical layout for raw_len
 * bytes with v's header and sub-blocks (lzf_check), filling tab. In dictionary
 * mode the LZ4 blocks are decoded with the dictionary: chunk 0's, or, when this
 * is chunk 0, its own first block, which must then be stored raw and be a full
 * sub-block. Returns 0, or -1 if it does not hold exactly those bytes in that
 * layout. */
static int lz_check_frame(const lzval *v, const char *data, size_t stored_len, size_t raw_len,
                          lz_sub *tab)
{
    lzf_dict d = {v->dict_id, v->dict && (v->nchunks || v->xdict) ? lz_dict_bytes(v) : NULL};

    return lzf_check(data, stored_len, raw_len, v->sub_size, v->bd, v->dict ? &d : NULL,
                     lzv_work_area(v), lz_check_visit, tab);
}

/* The checksums of the blocks of a chunk just loaded and checked (tab's
 * offsets set): the bytes as the log gave them. */
static void lz_sum_loaded(const lzval *v, lz_sub *tab, const char *data, size_t stored_len,
                          size_t raw_len, int compressed)
{
    size_t nsub = lz_nsub(v, raw_len), j, size;

    for (j = 0; j < nsub; j++) {
        if (!compressed) {
            tab[j].sum = lzv_sum(data + tab[j].off, lz_blen(v, raw_len, j), LZ_SUM_RAW);
            continue;
        }
        size = (j + 1 < nsub ? tab[j + 1].off : stored_len - LZF_END) - tab[j].off - LZF_BLK_HDR;
        tab[j].sum = lzv_sum(data + tab[j].off + LZF_BLK_HDR, size,
                             lz_blk_raw(data + tab[j].off) ? LZ_SUM_RAW : LZ_SUM_LZ4);
    }
}

/* Accepted when: the previous chunk is full, 0 < raw_len <= chunk_size, and either
 * a plain chunk with stored_len == raw_len, or a frame exactly as this module
 * writes them for raw_len bytes (lz_check_frame). The first frame sets the mode:
 * with the DictID flag (FLG 0x61), v is in dictionary mode, which needs
 * sub-blocks of at most LZ_SUB (the writer's rule) and a dictionary (a plain
 * chunk 0, full since a chunk follows it, or this frame's raw first block);
 * every later frame must have the same header. A rejected chunk makes v bad for
 * good. */
int lzval_from_chunks_add(lzval *v, const char *data, size_t stored_len, size_t raw_len,
                          int compressed)
{
    size_t cs = v->chunk_size, tb = lz_tab_bytes(v), j;
    lz_chunk *ck;
    lz_sub *tab;
    char *blk;

    if (v->bad || raw_len == 0 || raw_len > cs || stored_len == 0)
        goto bad;
    if (!compressed && stored_len != raw_len)
        goto bad;
    if (compressed && !v->framed) {
        v->framed = 1;
        if (lzf_header_dict(data, stored_len) && !v->xdict) {
            if (v->sub_size > LZ_SUB || (v->nchunks && v->chunks[0].raw_len < v->sub_size))
                goto bad;
            v->dict = 1;
            v->dict_id = lzv_new_uid();
        }
    }
    if (compressed && stored_len > lz_max_stored(v))
        goto bad;
    blk = xmalloc(tb + stored_len);
    memset(blk, 0, tb);
    tab = (lz_sub *)(void *)(blk + LZ_BLK_HEAD);
    if (compressed && lz_check_frame(v, data, stored_len, raw_len, tab) < 0) {
        xfree(blk);
        goto bad;
    }
    if (!compressed)
        for (j = 0; j < lz_nsub(v, raw_len); j++) {
            tab[j].off = (uint32_t)(j * v->sub_size);
            lzv_count(data + j * v->sub_size, lz_blen(v, raw_len, j), &tab[j].chars, &tab[j].nl);
        }
    lz_sum_loaded(v, tab, data, stored_len, raw_len, compressed);
    memcpy(blk + tb, data, stored_len);
    lz_reserve(v, v->nchunks + 1);
    ck = &v->chunks[v->nchunks++];
    memset(ck, 0, sizeof(*ck));
    ck->data = blk;
    ck->room = (uint32_t)(xmalloc_size(blk) - tb);
    ck->stored_len = (uint32_t)stored_len;
    ck->raw_len = (uint32_t)raw_len;
    ck->compressed = compressed != 0;
    for (j = 0; j < lz_nsub(v, raw_len); j++) {
        ck->chars += tab[j].chars;
        ck->nl += tab[j].nl;
    }
    v->data_bytes += xmalloc_size(blk);
    v->len += raw_len;
    lz_fix_prefix(v, v->nchunks - 1);
    return 0;
bad:
    v->bad = 1;
    return -1;
}

/* Only before the first chunk, and only sub_size bytes: the value is then in
 * dictionary mode whatever its frames, and every frame must say so. */
int lzval_from_chunks_dict(lzval *v, const char *p, size_t n)
{
    if (v->bad || v->nchunks || v->xdict || n != v->sub_size || v->sub_size > LZ_SUB) {
        v->bad = 1;
        return -1;
    }
    v->dict = 1;
    v->dict_id = lzv_new_uid();
    v->xdict = xmalloc(n);
    memcpy(v->xdict, p, n);
    v->xdict_sum = lzv_sum(p, n, LZ_SUM_RAW);
    return 0;
}

const char *lzval_detached_dict(const lzval *v, size_t *n)
{
    *n = v->xdict ? v->sub_size : 0;
    return v->xdict;
}

lzval *lzval_from_chunks_end(lzval *v)
{
    if (v->xdict && v->nchunks == 0)
        v->bad = 1; /* a detached dictionary is only written with chunks */
    if (v->bad) {
        lzval_free(v);
        return NULL;
    }
    v->uid = lzv_new_uid();
    return v;
}

/* Each block's checksum, then the bytes around the blocks that no checksum
 * covers: a frame's header (the one this value writes) and its end mark. */
int lzval_chunk_verify(const lzval *v, size_t i, size_t *block)
{
    const lz_chunk *ck;
    char hdr[LZF_HDR_DICT + LZF_END];
    size_t j, hl;

    *block = 0;
    if (i >= v->nchunks)
        return -1;
    if (i == 0 && v->xdict && lzv_sum(v->xdict, v->sub_size, LZ_SUM_RAW) != v->xdict_sum)
        return -1;
    ck = &v->chunks[i];
    for (j = 0; j < lz_nsub(v, ck->raw_len); j++) {
        *block = j;
        if (lzv_block_ok(v, ck, j) < 0)
            return -1;
    }
    if (!ck->compressed)
        return 0;
    hl = lzf_header_put(hdr, v->bd, v->dict);
    lzf_end_put(hdr + hl);
    *block = 0;
    if (memcmp(lz_st(v, ck), hdr, hl) != 0)
        return -1;
    *block = j ? j - 1 : 0;
    return memcmp(lz_st(v, ck) + ck->stored_len - LZF_END, hdr + hl, LZF_END) == 0 ? 0 : -1;
}

/* In a frame, every LZ4 block has all its bytes set to 0xFF (its first token then
 * announces a literal run whose length never ends inside the block, which both
 * LZ4_decompress_safe and the partial decoder reject, with or without a
 * dictionary: a random bit flip might decode, silently, into other bytes, as LZ4
 * blocks carry no checksum) and every raw block one bit of its first byte
 * flipped; the block headers are kept. A plain chunk has one bit of its first
 * byte flipped, which nothing can detect. The dictionary is left intact (in a
 * plain chunk 0, the byte flipped is the one after it): a flipped bit there would
 * change, undetectably, the blocks of every chunk that copy it, which tests no
 * detection. Either way the value takes a new uid, so no cache keeps a clean
 * copy. */
int lzval_debug_corrupt(lzval *v, size_t i)
{
    lz_chunk *ck;
    size_t j, keep;

    if (i >= v->nchunks)
        return -1;
    ck = &v->chunks[i];
    lz_own(v, ck); /* damage in this value's memory, not in the values sharing the block */
    keep = v->dict && !v->xdict && i == 0 ? 1 : 0; /* sub-blocks left intact: the dictionary */
    if (!ck->compressed) {
        if (keep * v->sub_size < ck->raw_len)
            lz_st(v, ck)[keep * v->sub_size] ^= 0x01;
    } else {
        for (j = keep; j < lz_nsub(v, ck->raw_len); j++) {
            const char *src;
            size_t size;
            char *p;
            int kind = lzv_block(v, ck, j, &src, &size);
            p = lz_st(v, ck) + lz_tab(ck)[j].off + LZF_BLK_HDR;
            if (kind == 0)
                memset(p, 0xFF, size);
            else if (kind == 1)
                p[0] ^= 0x01;
        }
    }
    v->uid = lzv_new_uid();
    if (v->idle)
        lzv_idle_changed(v);
    return 0;
}

int lzval_debug_corrupt_dict(lzval *v)
{
    if (!v->xdict)
        return -1;
    v->xdict[v->sub_size / 2] ^= 0x01;
    return 0;
}
