/* lzval_int.h -- INTERNAL: the layout of an lzval, shared by lzval.c, lzread.c
 * and lzdict.c.
 *
 * Not for any other module: callers use lzval.h, whose functions are the only
 * way to a value's bytes. This header exists because the value is written by
 * lzval.c (building, changing, loading), read by lzread.c (windows, chunks,
 * positions) and sampled by lzdict.c (the dictionary decision), and they must
 * agree on the chunks, the per-sub-block table and the frame blocks; the layout
 * and its invariants are documented at the top of lzval.c. Everything declared
 * here is defined in lzval.c or lzdict.c (as marked), or is a static inline
 * helper on the layout. Functions returning int give 0, or -1 when the stored
 * bytes are corrupt. */
#ifndef SP_LZVAL_INT_H
#define SP_LZVAL_INT_H

#include "lz/lzval.h"

#include <stddef.h>
#include <stdint.h>

#define LZ_SUB 8192u /* raw bytes per sub-block (up to 2 MB chunks), see lzval.c */

typedef struct lz_sub {
    uint32_t off;   /* frame: bytes from the frame's start to the block header */
    uint32_t chars; /* bytes of the sub-block that are not 10xxxxxx */
    uint32_t nl;    /* '\n' bytes of the sub-block */
    uint32_t sum;   /* the checksum of the block's stored data bytes (lzv_sum), set
                       wherever they are written, never from bytes it should vouch for */
} lz_sub;

typedef struct lz_chunk {
    char *data;          /* the data block: its holder count (LZ_BLK_HEAD bytes), the sub-block
                            table, then stored_len stored bytes; shared by the values a
                            lzval_dup made from each other until one of them changes it */
    size_t raw_before;   /* bytes, raw, in chunks [0, i): where chunk i starts */
    size_t chars_before; /* characters in chunks [0, i) */
    size_t nl_before;    /* newlines in chunks [0, i) */
    uint32_t raw_len;    /* bytes, uncompressed */
    uint32_t stored_len; /* bytes, the frame or the plain bytes */
    uint32_t room;       /* bytes the data block holds after the table */
    uint32_t chars;      /* bytes of this chunk that are not 10xxxxxx */
    uint32_t nl;         /* '\n' bytes of this chunk */
    uint8_t compressed;  /* 1: an LZ4 frame; 0: plain raw bytes */
} lz_chunk;

struct lzval {
    uint64_t uid;       /* unique in the process, renewed on every change */
    size_t len;         /* bytes, raw */
    size_t chunk_size;  /* bytes, raw, of a chunk at most (of every chunk but the last,
                           unless a splice cut them shorter: see lzval.c) */
    size_t sub_size;    /* bytes, raw, of every sub-block but a chunk's last */
    size_t nsub_max;    /* sub-blocks of a full chunk (table entries per chunk) */
    size_t nchunks;
    size_t cap;         /* entries allocated in chunks */
    size_t data_bytes;  /* bytes, usable sizes of all the chunks' data blocks */
    lz_chunk *chunks;
    uint64_t dict_id;   /* dictionary mode: names the dictionary's bytes, renewed when
                           they change (the prefix buffer is keyed by it); else 0 */
    char *xdict;        /* dictionary mode, detached: the dictionary's sub_size raw bytes in
                           a block of their own (mem.h), or NULL when it is chunk 0's first
                           sub-block (see lzval.c, "changes") */
    uint32_t xdict_sum; /* the checksum of xdict's bytes (LZ_SUM_RAW), copied with them */
    uint8_t bd;         /* frame block-size id - 4: sub_size fits 64 KB << 2 * bd */
    uint8_t dict;       /* 1: dictionary mode (see the top comment of lzval.c) */
    int accel;          /* LZ4 acceleration of the sub-blocks it compresses: 1, or more for a
                           value written fast and re-encoded once idle (lzval_new_fast) */
    const uint32_t *hint_nl; /* while lzval_new_ascii builds it: the caller's newline counts of
                                its full sub-blocks (index chunk * nsub_max + sub-block) */
    const lzval *dict_src;   /* a region lz_splice builds: the value whose dictionary its
                              blocks use (NULL: its own) */
    uint8_t region_mid;      /* such a region starts past the value's chunk 0, so its own
                             chunk 0's first sub-block is no dictionary */
    int bad;            /* from_chunks only: a chunk was rejected */
    int framed;         /* from_chunks only: a frame was added, and set dict */
    /* The background dictionary (lzidle.c): */
    struct lzidle *idle;  /* the registry that converts this value once idle, or NULL
                             (then lzval_new and appends choose the dictionary) */
    lzval *idle_prev, *idle_next; /* idle's list of values waiting, oldest change first */
    int64_t idle_since;   /* ms, idle's clock at the value's last change (listed only) */
    size_t idle_len;      /* bytes, raw: the length idle's totals count for it (listed only) */
    size_t dict_no;       /* bytes, raw: the length at which the samples last refused a
                             dictionary, 0 if they never did */
    uint8_t listed;       /* 1: in idle's list */
    uint32_t shares;      /* holders besides the first (lzval_share); lzval_free drops one */
    uint32_t reads;       /* whole reads counted in second read_sec (lzval_note_read) */
    uint32_t read_sec;    /* the caller's clock, s */
};

/* Block checksums: CRC32C (ISA-L's crc32_iscsi, ~20 GB/s here) of a block's
 * stored data bytes, its 4-byte frame header excluded (the header is checked
 * against the table instead), started from LZ_SUM_RAW for a block stored raw
 * (a plain chunk's sub-blocks too) and LZ_SUM_LZ4 for an LZ4 block, so that
 * the block's kind is covered as well. The running value is kept (no final
 * xor), so that a raw tail's sum is extended by each append. */
#define LZ_SUM_RAW 0xFFFFFFFFu
#define LZ_SUM_LZ4 0xFFFFFFFEu

/* A thread's working buffer (plain malloc, not accounted; see lzval.c). */
typedef struct lz_scratch {
    char *buf;
    size_t cap; /* bytes */
} lz_scratch;

/* ---- chunk geometry ---- */

/* Bytes at the start of a data block before its table: the block's count of
 * holders besides the first (lz_refs), padded to keep the table aligned. */
#define LZ_BLK_HEAD 8u

/* Bytes of a chunk's data block before its stored bytes: the holder count and
 * the sub-block table. */
static inline size_t lz_tab_bytes(const lzval *v)
{
    return LZ_BLK_HEAD + v->nsub_max * sizeof(lz_sub);
}

static inline lz_sub *lz_tab(const lz_chunk *ck)
{
    return (lz_sub *)(void *)(ck->data + LZ_BLK_HEAD);
}

/* The count of values holding ck's data block besides the first (0: only
 * one holds it, which may change it in place). A block is shared by lzval_dup
 * and written by no holder while the count is above 0 (lzval.c, "sharing"). */
static inline uint32_t *lz_refs(const lz_chunk *ck)
{
    return (uint32_t *)(void *)ck->data;
}

/* The stored bytes of chunk ck (a chunk of v): after its table. */
static inline char *lz_st(const lzval *v, const lz_chunk *ck)
{
    return ck->data + lz_tab_bytes(v);
}

/* Sub-blocks of a chunk holding raw bytes. */
static inline size_t lz_nsub(const lzval *v, size_t raw)
{
    return (raw + v->sub_size - 1) / v->sub_size;
}

/* Raw length of sub-block j of a chunk holding raw bytes (j < lz_nsub(raw)). */
static inline size_t lz_blen(const lzval *v, size_t raw, size_t j)
{
    size_t lo = j * v->sub_size;

    return raw - lo < v->sub_size ? raw - lo : v->sub_size;
}

/* The chunk of v holding byte off (off < v->len): binary search on the chunks'
 * raw starts, O(log chunks). */
static inline size_t lz_find(const lzval *v, size_t off)
{
    size_t lo = 0, hi = v->nchunks - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (v->chunks[mid].raw_before <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- defined in lzval.c ---- */

/* At least n bytes of s, kept between calls (content not preserved on growth;
 * aborts on allocation failure). */
char *lzv_scratch_get(lz_scratch *s, size_t n);

/* The thread's work area for v: two decode buffers of sub_size bytes at
 * [0, sub) and [sub, 2 sub), then LZ4 output room from 2 sub. Valid until the
 * next lzv_work_area call on the thread with a larger need. */
char *lzv_work_area(const lzval *v);

/* A new id, unique in the process (never 0): for a value's uid and dict_id,
 * and for the prefix buffer's dictionaries. */
uint64_t lzv_new_uid(void);

/* n bytes from plain malloc (working memory, not accounted; the caller frees
 * them with free); aborts on failure, as xmalloc does. */
char *lzv_plain_alloc(size_t n);

/* The checksum sum extended by p[0..n) (start from LZ_SUM_RAW / LZ_SUM_LZ4). */
uint32_t lzv_sum(const char *p, size_t n, uint32_t sum);

/* Whether block j of chunk ck holds the bytes its checksum was taken of: 0,
 * or -1 if not (or if its frame header disagrees with the table). */
int lzv_block_ok(const lzval *v, const lz_chunk *ck, size_t j);

/* Characters (bytes not 10xxxxxx) and '\n' bytes of p[0..n). */
void lzv_count(const char *p, size_t n, uint32_t *chars, uint32_t *nl);

/* Block j of frame chunk ck: sets *src to its stored bytes and *size to their
 * count. Returns 1 if it is stored raw, 0 if it is an LZ4 block, -1 if its header
 * disagrees with the table (the stored bytes are corrupt). */
int lzv_block(const lzval *v, const lz_chunk *ck, size_t j, const char **src, size_t *size);

/* Decode the first want bytes (0 < want <= its length) of sub-block j of chunk ck
 * into dst (room for want bytes). Returns 0, or -1 if the sub-block is corrupt;
 * never writes past dst + want. */
int lzv_unpack(const lzval *v, const lz_chunk *ck, size_t j, char *dst, size_t want);

/* The raw bytes of sub-block j of chunk i copied into dst, from the cache
 * when it holds them (the cache is not filled). 0, or -1 if corrupt. */
int lzv_load(const lzval *v, size_t i, size_t j, char *dst, lzcache *c);

/* An empty value with v's geometry, in dictionary mode (a new dict_id) if dict,
 * registered nowhere. */
lzval *lzv_shell(const lzval *v, int dict);

/* Add p[0..n) at the end of w, a value built by lzv_shell and lzv_put only (p
 * must not point into w): complete sub-blocks are compressed (with the
 * dictionary in dictionary mode, whose first sub-block stays raw), an
 * incomplete last one is left as the raw tail. */
void lzv_put(lzval *w, const char *p, size_t n);

/* v takes w's chunks, length and mode, and w is freed. v's uid, registration
 * and dict_no are kept: the caller says whether the raw bytes changed. */
void lzv_take(lzval *v, lzval *w);

/* Whether some chunk of v has a data block another value holds too
 * (lzval_dup): O(chunks). */
int lzv_shares_chunks(const lzval *v);

/* ---- defined in lzidle.c ---- */

/* v (v->idle set) changed: its bytes or its length. Moves it to the end of the
 * list with the current clock if it is a candidate for the dictionary (else
 * takes it off the list), and drops a conversion of it in progress. */
void lzv_idle_changed(lzval *v);

/* v (v->idle set) is being freed: off the list, and a conversion of it in
 * progress dropped. */
void lzv_idle_forget(lzval *v);

/* ---- defined in lzdict.c ---- */

/* Whether v (empty, its geometry set) should take a dictionary for p[0..n),
 * the bytes lzval_new is about to put in it: 1 or 0. A few sub-block
 * compressions when n >= 48 KB and sub-blocks are at most LZ_SUB, else none. */
int lzv_dict_choose(const lzval *v, const char *p, size_t n);

/* Whether v, not in dictionary mode, should take one as the append of p[0..n)
 * grows it past 48 KB, 96 KB, ... 384 KB: 1 or 0, or -1 if a sub-block of v it
 * reads is corrupt. */
int lzv_dict_wanted(const lzval *v, const char *p, size_t n);

/* Whether v's geometry and length allow a dictionary at all (lzv_dict_pays
 * decides): at least 48 KB and sub-blocks of at most LZ_SUB. */
int lzv_dict_fits(const lzval *v);

/* Whether v, not in dictionary mode, should take one now, for the bytes it
 * holds (read back from v, the same samples as lzv_dict_choose): 1 or 0, or -1
 * if a sub-block it reads is corrupt. A few sub-block compressions. */
int lzv_dict_pays(const lzval *v);

/* Whether v (not in dictionary mode, lzv_dict_fits) may be asked again after
 * the samples refused it at dict_no bytes: once it has doubled since, as an
 * append asks again (up to 384 KB). */
int lzv_dict_retry(const lzval *v);

#endif
