/* rdbval.h -- Redis 7.0's RDB encodings of one value, as DUMP and RESTORE
 * exchange them: the payload (the value, the 2-byte RDB version, the CRC64),
 * strings as Redis writes them (integer-encoded, LZF-compressed), binary
 * doubles, and the compact containers the value types are made of: listpacks
 * (written and read), ziplists, zipmaps and intsets (read; intsets written).
 *
 * Why here: a key dumped by redis-server must restore into Scratchpad and
 * back, byte for byte where Redis's own encoding is deterministic. These are
 * codecs that know nothing of the server (core/dumpfmt.h has the lengths, the
 * plain strings and the CRC64 they build on); the DUMP and RESTORE commands
 * (cmd/cmd_dump.c) read and build the server's values through the types'
 * APIs.
 *
 * Writing follows Redis's choices exactly, so the bytes are Redis's: a string
 * of at most 11 bytes that is a canonical integer fitting 32 bits is
 * integer-encoded, one longer than 20 bytes is LZF-compressed (Debian's
 * liblzf, the one Debian's redis-server links) when that saves at least 4
 * bytes; a listpack element that is a canonical 64-bit integer is stored as
 * an integer, in the smallest of Redis's integer encodings.
 *
 * Reading checks everything before trusting it: every length against the end
 * of its input, every listpack / ziplist / zipmap entry's encoding, lengths
 * and back-lengths, the element count of the header, intsets' widths, sizes
 * and order. A container that passes rdb_*_open is then walked by rdb_next
 * without further checks. Functions return 0 or -1 (malformed input); no
 * allocation except the rdb_out buffer (mem.h). No globals. */
#ifndef SP_RDBVAL_H
#define SP_RDBVAL_H

#include <stddef.h>
#include <stdint.h>

#define RDB_VERSION 10 /* Redis 7.0's */

/* Redis 7.0's RDB value types (rdb.h), and the one of Scratchpad's own. */
enum {
    RDB_TYPE_STRING = 0,
    RDB_TYPE_LIST = 1,
    RDB_TYPE_SET = 2,
    RDB_TYPE_ZSET = 3,
    RDB_TYPE_HASH = 4,
    RDB_TYPE_ZSET_2 = 5,
    RDB_TYPE_HASH_ZIPMAP = 9,
    RDB_TYPE_LIST_ZIPLIST = 10,
    RDB_TYPE_SET_INTSET = 11,
    RDB_TYPE_ZSET_ZIPLIST = 12,
    RDB_TYPE_HASH_ZIPLIST = 13,
    RDB_TYPE_LIST_QUICKLIST = 14,
    RDB_TYPE_STREAM_LISTPACKS = 15,
    RDB_TYPE_HASH_LISTPACK = 16,
    RDB_TYPE_ZSET_LISTPACK = 17,
    RDB_TYPE_LIST_QUICKLIST_2 = 18,
    RDB_TYPE_STREAM_LISTPACKS_2 = 19,
    /* A scratchpad (Scratchpad's own type). Redis 7.0 knows types 0-7 and
     * 9-19 and answers "Bad data format" to any other; 7.2 and later use up
     * to 21 and modules none above 7, so 240, far above, stays unknown to
     * every Redis (and below the RDB opcodes, 245-255). */
    RDB_TYPE_SCRATCHPAD = 240,
};

/* ---- writing ---- */

/* A growing byte buffer (p xmalloc'd; start zeroed; rdb_out_free releases). */
typedef struct rdb_out {
    unsigned char *p;
    size_t len, cap; /* bytes */
} rdb_out;

void rdb_out_free(rdb_out *o);
void rdb_put(rdb_out *o, const void *p, size_t n);
void rdb_put_byte(rdb_out *o, int b);
/* An RDB length (dumpfmt.h's encoding). */
void rdb_put_len(rdb_out *o, uint64_t len);
/* A string as Redis's rdbSaveRawString writes it (see the file comment). */
void rdb_put_string(rdb_out *o, const void *p, size_t n);
/* A double as 8 little-endian bytes (RDB_TYPE_ZSET_2's scores). */
void rdb_put_double(rdb_out *o, double d);
/* End a payload: the RDB version (2 bytes) and the CRC64 of everything before
 * (8 bytes), both little-endian. */
void rdb_put_trailer(rdb_out *o);

/* A listpack built in lp (an rdb_out of its own): lp_begin, then elements,
 * then lp_end with their count, which writes the header and the end byte. */
void rdb_lp_begin(rdb_out *lp);
void rdb_lp_str(rdb_out *lp, const void *p, size_t n);
void rdb_lp_int(rdb_out *lp, int64_t v);
void rdb_lp_end(rdb_out *lp, uint32_t count);

/* The decimal text of d as Redis 7.0's d2string writes a score into a
 * listpack (an integral value within +-LLONG_MAX/2, -0 too, as an integer, else %.17g,
 * "inf", "-inf", "nan"); returns its length (buf: at least 32 bytes). */
size_t rdb_fmt_score(char *buf, double d);

/* ---- reading ---- */

/* 0 if p[0..n) ends with an RDB version Redis 7.0 reads (<= RDB_VERSION) and
 * the right CRC64; else -1 (RESTORE's "payload version or checksum"). */
int rdb_check_trailer(const unsigned char *p, size_t n);
/* A plain length at *p (not a string's special encodings): 0 and *p moved, or -1. */
int rdb_get_len(const unsigned char **p, const unsigned char *end, uint64_t *len);
/* A binary double (8 bytes LE). */
int rdb_get_double(const unsigned char **p, const unsigned char *end, double *d);
/* A double in RDB_TYPE_ZSET's text form (a length byte, 253 nan, 254 inf,
 * 255 -inf, else that many bytes of text). */
int rdb_get_text_double(const unsigned char **p, const unsigned char *end, double *d);

/* An iterator over a checked container's elements. */
typedef struct rdb_iter {
    int kind;                     /* which container (rdbval.c) */
    const unsigned char *p, *end; /* the next entry, the end of the entries */
    uint64_t left;                /* elements left */
    int width;                    /* an intset's bytes per member */
    char num[24];                 /* an integer element's text */
    int zm_value;                 /* zipmap: the next element is a value */
} rdb_iter;

/* Check the listpack / ziplist / zipmap / intset p[0..n) whole; 0 with the
 * iterator at its first element and *count its elements, or -1. The
 * iterator points into p, which must stay unchanged while it is used. */
int rdb_lp_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count);
int rdb_zl_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count);
int rdb_zm_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count);
int rdb_is_open(rdb_iter *it, const unsigned char *p, size_t n, uint64_t *count);
/* The next element as bytes (an integer as its decimal text, in it->num, valid
 * until the next call; *isint set when isint is not NULL): 1, or 0 at the end. */
int rdb_next(rdb_iter *it, const char **p, size_t *n, int *isint);

#endif
