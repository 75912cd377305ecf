/* aof.h -- the append-only log's format: file header, records, and the codec of
 * a record's payload (encoder into a buffer, validating decoder over bytes).
 *
 * Why: the log is the dataset's only durable copy. Its format is ours (documented
 * byte by byte in docs/aof.md) so that every record is framed by a length and a
 * CRC32C: a crash mid-write leaves a torn tail that is recognised and cut off, and
 * a damaged byte anywhere else is reported as corruption instead of being
 * replayed. Large values are logged in the compressed chunks lzval already holds
 * (no re-compression), and a transaction is one record, atomic under its CRC.
 *
 * A log file:  header (AOF_HEADER_SIZE bytes) then records.
 * A record:    u32 payload length | u32 CRC32C of the payload | payload.
 * A payload:   u8 type; type AOF_REC_EFFECTS: u32 count, then count effects.
 * An effect:   u16 db | u32 argc | argc arguments (a command as it must be
 *              replayed: its effect, not the command as typed).
 * An argument: u8 kind; AOF_ARG_BYTES: u64 length | bytes;
 *              AOF_ARG_LZVAL: u32 chunk_size | u32 nchunks | per chunk
 *              (u32 raw_len | u32 stored_len | u8 compressed | stored bytes);
 *              AOF_ARG_LZVAL_DICT: the same with u32 dict_len | dict bytes (a
 *              detached dictionary, lzval_detached_dict) before the chunks.
 * All integers are little-endian.
 *
 * This module does no I/O and keeps no globals: the encoder appends to an
 * aof_buf (the writer's buffer, or a rewrite child's), the decoder reads bytes
 * it is given. Memory for aof_buf comes from mem.h; allocation failure aborts.
 * A programming error (an argument outside an open effect) aborts with a message.
 *
 * Decoding: aof_payload_check validates a whole payload's structure (every length
 * inside its bounds, known kinds and types, nothing left over) without copying;
 * the iterators below then walk a checked payload and cannot fail. Pointers they
 * hand out point into the payload and are valid as long as it is. */
#ifndef SP_AOF_H
#define SP_AOF_H

#include <stddef.h>
#include <stdint.h>

struct lzval;

#define AOF_MAGIC "SPAOF"          /* 5 bytes at offset 0 of every log file */
#define AOF_VERSION 1              /* the format version this code writes and reads */
#define AOF_HEADER_SIZE 32         /* bytes, the file header */
#define AOF_REC_HDR 8              /* bytes, a record's length and CRC fields */
#define AOF_PAYLOAD_MAX 0xFFFF0000u /* bytes; a longer payload length is impossible */

/* File kinds (bits 0-1 of the header flags). */
#define AOF_KIND_NONE 0 /* a standalone file, not named by a manifest */
#define AOF_KIND_BASE 1 /* a snapshot of the dataset written by a rewrite */
#define AOF_KIND_INCR 2 /* the writes that followed its base */
#define AOF_KIND_MASK 3u

/* Record types (first payload byte). 0 is never valid; unknown types are corrupt. */
#define AOF_REC_EFFECTS 1

/* Argument kinds. */
#define AOF_ARG_BYTES 0
#define AOF_ARG_LZVAL 1
#define AOF_ARG_LZVAL_DICT \
    2 /* kind 1 with a detached dictionary (the decoder reports it as
                                AOF_ARG_LZVAL with aof_arg.dict set) */

/* The file header, decoded. */
typedef struct aof_header {
    uint16_t version;   /* AOF_VERSION */
    uint32_t flags;     /* kind in bits 0-1, other bits 0 */
    int64_t created_ms; /* ms since the epoch, when the file was created */
    uint64_t seq;       /* the file's sequence number in its manifest, 0 if none */
} aof_header;

/* CRC32C (Castagnoli, reflected, init and final xor 0xFFFFFFFF: the iSCSI / ext4
 * CRC), computed by ISA-L. Chainable: aof_crc32c(aof_crc32c(0, a, n), b, m) is
 * the CRC of a followed by b; aof_crc32c(0, "123456789", 9) == 0xE3069283. */
uint32_t aof_crc32c(uint32_t crc, const void *p, size_t n);

/* Encode h into out (AOF_HEADER_SIZE bytes), CRC included. */
void aof_header_encode(const aof_header *h, unsigned char out[AOF_HEADER_SIZE]);

/* Decode and validate the n bytes at in. Returns 0, or -1 with *why set to a
 * static message (short file, bad magic, bad CRC, unsupported version, unknown
 * flags). */
int aof_header_decode(const unsigned char *in, size_t n, aof_header *h, const char **why);

/* ---- Encoding ----------------------------------------------------------------
 *
 * An aof_buf accumulates complete records (the first `committed` bytes) and at
 * most one record being built after them. A record is built with:
 *
 *   aof_rec_begin(b, db);              opens a record and its first effect
 *   aof_rec_arg_bytes(b, "SET", 3);    arguments of the current effect
 *   ...
 *   aof_rec_next_effect(b, db2);       (optional) closes it, opens another one
 *   ...
 *   aof_rec_end(b);                    closes the record: length, count, CRC
 *
 * Nesting: aof_rec_begin inside an open record does not open a second record; it
 * opens a new effect of the open one, and the matching aof_rec_end closes only
 * that effect. So a command that logs itself with begin/args/end becomes one
 * effect of a transaction when EXEC brackets the commands with its own begin/end:
 * the whole MULTI/EXEC is one record, and so atomic. A nested begin closes the
 * effect being built, and after a nested end no effect is open (arguments then
 * need aof_rec_next_effect first): log each effect in one go, after the command
 * ran, never around code that may log (a lazy expiry's DEL).
 *
 * An effect with no argument is dropped; a record with no effect writes nothing.
 * Effects are logged as commands to replay, each in its database (db is per
 * effect, so SELECT inside a transaction is expressed without a SELECT effect). */
typedef struct aof_buf {
    char *p;            /* bytes, xmalloc'd */
    size_t len;         /* bytes used */
    size_t cap;         /* bytes allocated */
    size_t committed;   /* bytes of complete records at the start of p */
    uint64_t records;   /* complete records in the committed bytes */
    /* The record being built (private). */
    size_t rec_start;   /* offset of its length field */
    size_t eff_start;   /* offset of the open effect's db field; SIZE_MAX if none */
    uint32_t neffects;  /* effects closed so far */
    uint32_t argc;      /* arguments in the open effect */
    int depth;          /* aof_rec_begin nesting; 0 = no open record */
} aof_buf;

/* An empty buffer. Free with aof_buf_free. */
void aof_buf_init(aof_buf *b);
/* Give back the memory of a buffer that holds nothing (len 0, no open record):
 * it is allocated again by the next record. Does nothing otherwise. */
void aof_buf_trim(aof_buf *b);
/* Release the bytes; b may be initialised again. */
void aof_buf_free(aof_buf *b);
/* Append n bytes of complete, encoded records (copied from another aof_buf's
 * committed bytes) as committed bytes. No record may be open (a programming
 * error: aborts). The record counter is not advanced (it counts records encoded
 * here). */
void aof_buf_append_records(aof_buf *b, const void *p, size_t n);
/* Remove the first n committed bytes (n <= committed), keeping what follows.
 * Gives memory back when a large buffer has become small. The record counter
 * goes to 0 when the committed bytes are all consumed. */
void aof_buf_consume(aof_buf *b, size_t n);

/* Open a record (or, inside one, a new effect) whose first effect runs in db. */
void aof_rec_begin(aof_buf *b, int db);
/* Close the current effect and open another one in db (the current one is kept
 * if it has arguments, reused if it has none). */
void aof_rec_next_effect(aof_buf *b, int db);
/* Append an argument to the current effect: n bytes from p (n may be 0). */
void aof_rec_arg_bytes(aof_buf *b, const void *p, size_t n);
/* The same with a NUL-terminated string. */
void aof_rec_arg_str(aof_buf *b, const char *s);
/* The same with the decimal form of v ("PEXPIREAT" times, counters). */
void aof_rec_arg_ll(aof_buf *b, long long v);
/* Append v as a kind-1 argument: its stored chunks as lzval_chunk_stored gives
 * them, copied without re-compression; a kind-2 argument when v has a detached
 * dictionary (lzval_detached_dict), its bytes before the chunks. v is not kept. */
void aof_rec_arg_lzval(aof_buf *b, const struct lzval *v);
/* Close the current effect; at the outermost level, close the record. Returns
 * 0, or -1 if the record is longer than AOF_PAYLOAD_MAX (it is discarded: the
 * caller must not acknowledge the write). */
int aof_rec_end(aof_buf *b);
/* Like aof_rec_end, but the current effect is discarded first (a command that
 * failed after it began logging). */
int aof_rec_cancel(aof_buf *b);
/* 1 if a record is open. */
int aof_rec_open(const aof_buf *b);

/* ---- Decoding ---------------------------------------------------------------- */

/* A record as the reader returns it. */
typedef struct aof_record {
    uint64_t offset;              /* bytes, where the record starts in its file */
    uint32_t len;                 /* bytes of payload */
    const unsigned char *payload; /* len bytes; payload[0] is the type */
    uint8_t type;                 /* AOF_REC_EFFECTS */
    uint32_t neffects;            /* effects in it */
} aof_record;

typedef struct aof_effect {
    uint16_t db;
    uint32_t argc;                /* >= 1 */
    const unsigned char *args;    /* its encoded arguments (walk with aof_args_*) */
    const unsigned char *end;
} aof_effect;

typedef struct aof_arg {
    int kind;                     /* AOF_ARG_BYTES or AOF_ARG_LZVAL */
    const char *p;                /* BYTES: the bytes (not NUL-terminated) */
    uint64_t len;                 /* bytes: BYTES its length, LZVAL the value's raw length */
    uint32_t chunk_size;          /* LZVAL: raw bytes per full chunk */
    uint32_t nchunks;             /* LZVAL */
    const unsigned char *chunks;  /* LZVAL: the encoded chunk list (walk with aof_chunks_*) */
    const char *dict;             /* LZVAL: the detached dictionary (kind 2), or NULL */
    uint32_t dict_len;            /* bytes of dict */
    const unsigned char *end;
} aof_arg;

typedef struct aof_chunk {
    const char *data;             /* stored bytes */
    uint32_t stored_len;          /* bytes */
    uint32_t raw_len;             /* bytes, decompressed */
    int compressed;               /* 0: data is raw bytes; 1: an LZ4 frame (see lzval.h) */
} aof_chunk;

/* Iterators: a position and the number of items left. */
typedef struct aof_iter {
    const unsigned char *p, *end;
    uint32_t left;
} aof_iter;

/* Validate the payload p[0..n) of a record: a known type and every count and
 * length consistent with n (LZ4 frames are not decoded: lzval_from_chunks_*
 * verifies them). Returns 0 with *neffects set, or -1 with *why set to a static
 * message. */
int aof_payload_check(const unsigned char *p, size_t n, uint32_t *neffects, const char **why);

/* Walk the effects of a checked record. next returns 1 with *e filled, 0 at the end. */
void aof_effects_begin(aof_iter *it, const aof_record *rec);
int aof_effects_next(aof_iter *it, aof_effect *e);
/* Walk the arguments of an effect. */
void aof_args_begin(aof_iter *it, const aof_effect *e);
int aof_args_next(aof_iter *it, aof_arg *a);
/* Walk the chunks of a kind-1 argument. */
void aof_chunks_begin(aof_iter *it, const aof_arg *a);
int aof_chunks_next(aof_iter *it, aof_chunk *c);

/* Rebuild the value of a kind-1 argument (lzval_from_chunks_*, which decodes
 * each chunk once to verify it). Returns a new lzval the caller frees, or NULL
 * if a chunk is corrupt (the record passed its CRC, so the writer logged a bad
 * value, or the format is misused). */
struct lzval *aof_arg_lzval(const aof_arg *a);

/* Little-endian helpers, shared by the persistence modules. */
static inline uint16_t aof_get16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t aof_get32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t aof_get64(const unsigned char *p)
{
    return (uint64_t)aof_get32(p) | ((uint64_t)aof_get32(p + 4) << 32);
}
static inline void aof_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void aof_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}
static inline void aof_put64(unsigned char *p, uint64_t v)
{
    aof_put32(p, (uint32_t)v);
    aof_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
