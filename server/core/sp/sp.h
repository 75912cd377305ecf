/* sp.h -- a scratchpad: a namespace of named entries, each a versioned,
 * optionally expiring piece of text or binary content.
 *
 * Why: an agent keeps plans, findings and large tool outputs outside its context
 * and reads back only a window of them. A scratchpad is one key of the keyspace
 * whose value is this structure; the SP.* commands (types/sp/cmd_sp*.c) are built on it.
 *
 * Layout: entries sorted by name in an array of pointers (names are unique), so
 * listing in name order and resuming a listing after a given name are O(log n),
 * plus a hash index of the same entries, so finding an entry by name (every SP
 * command does) costs one or two probes rather than a binary search. Content is a heap buffer below the compression threshold and a
 * chunked LZ4 value (lzval.h) at or above it, behind one set of functions, so a
 * window read touches only the chunks it needs.
 *
 * Units: text entries (valid UTF-8) count characters (code points); binary
 * entries count bytes. Lines are split on '\n', 1-based; a final '\n' does not
 * start an extra empty line, so "a\nb\n" and "a\nb" both have 2 lines.
 *
 * Expiry: each entry may carry an absolute expiry (ms). The scratchpad keeps a
 * count of expiring entries and a lower bound of their earliest expiry, so
 * checking "is anything due?" is O(1); sp_expire_due removes what is due.
 *
 * No globals and no server types: thresholds and the decompression cache come in
 * an sp_params. Memory comes from the accounted allocator (mem.h); allocation
 * failure aborts. Functions returning int give 0 on success, -1 on a corrupt
 * compressed chunk (the caller answers an error and changes nothing). */
#ifndef SP_SP_H
#define SP_SP_H

#include <stddef.h>
#include <stdint.h>

#include "lz/lzval.h"

#define SP_NAME_MAX 255
#define SP_SNAP_MAX 1000 /* snapshots per scratchpad */

enum { SP_TEXT = 0, SP_BINARY = 1 };
enum { SP_ENC_RAW = 0, SP_ENC_LZ4 = 1 };

typedef struct sp_params {
    size_t compress_threshold; /* bytes; content at or above it is compressed (0 = never) */
    size_t compress_chunk;     /* raw bytes per compressed chunk */
    lzcache *cache;            /* may be NULL */
    struct lzidle *idle;       /* where compressed content waits for its dictionary
                                  (lzidle.h), or NULL: chosen when it is written */
    int compress_accel;        /* LZ4 acceleration of content written with idle set, which
                                  re-encodes it at 1 once unchanged (0 or 1: none) */
} sp_params;

typedef struct sp_entry {
    uint64_t version;   /* 1 at creation, +1 on every content change */
    int64_t created;    /* ms since epoch */
    int64_t updated;    /* ms since epoch */
    int64_t expire;     /* ms since epoch, -1 if none */
    size_t size;        /* bytes */
    size_t chars;       /* code points (text); equals size for binary */
    size_t newlines;    /* count of '\n' bytes */
    uint8_t kind;       /* SP_TEXT / SP_BINARY */
    uint8_t enc;        /* SP_ENC_RAW / SP_ENC_LZ4 */
    uint8_t has_sha;    /* sha256 below is valid */
    uint8_t nlen;       /* bytes of name */
    uint32_t hash;      /* of the name, for the scratchpad's index */
    uint8_t ends_nl;    /* the content's last byte is '\n' */
    uint32_t shares;    /* holders besides the first: the live scratchpad, its
                           snapshots and forks share an entry until one changes it */
    uint8_t sha[32];    /* cached SHA-256 of the content */
    char *raw;          /* SP_ENC_RAW: content (xmalloc'd, may have spare room) */
    size_t rawcap;      /* bytes usable in raw (xmalloc_size, kept so that a rewrite
                           in place need not read the allocator's header) */
    lzval *lz;          /* SP_ENC_LZ4: content */
    struct spmeta *meta; /* the entry's metadata fields (spmeta.h), NULL if none: part of
                            its state, so a change of them is a new version */
    char name[];        /* nlen bytes, NUL-terminated */
} sp_entry;

/* SP.OFFLOAD's counter of one name prefix. */
typedef struct sp_offseq {
    uint64_t last; /* the last number given under this prefix */
    uint8_t plen;  /* bytes of prefix */
    char prefix[];
} sp_offseq;

typedef struct sp {
    sp_entry **e;        /* sorted by name */
    size_t n, cap;
    sp_entry **idx;      /* hash index of the same entries by name (see sp.c); NULL when empty */
    size_t idxcap;       /* slots of idx: a power of two, at least twice n */
    uint64_t offload_seq; /* the single counter SP.OFFLOAD shared by every prefix before
                            it kept one per prefix (logs of that time): where the
                            counter of a prefix first seen starts */
    sp_offseq **offs;     /* one counter per prefix SP.OFFLOAD used, in no order */
    size_t noffs;
    size_t nexpiring;    /* entries with an expiry */
    int64_t min_expire;  /* ms, a lower bound of the earliest entry expiry (valid if nexpiring) */
    int min_exact;       /* min_expire is exact, not just a lower bound */
    uint32_t subidx;     /* the keyspace's sub-expiry heap index (db.h) */
    size_t bytes;        /* logical bytes of all entries */
    struct spco *co;     /* leases and change feed (spco.h), NULL until first used */
    struct sp_snap **snaps; /* snapshots, in the order they were taken */
    size_t nsnaps;
    uint64_t vdead;        /* the highest version of an entry removed from the live set:
                              a restored entry that is not live gets a version above it */
    struct sp_hist **hist; /* entry history (sphist.c), sorted by name; NULL if none */
    size_t nhist;
} sp;

/* One version of an entry in its history: the entry's state (a share of it)
 * and the change that made it. */
typedef struct sp_histrec {
    sp_entry *e;
    int64_t time; /* ms since epoch, of the change */
    uint8_t op;   /* SPCO_OP_* (spco.h) */
    uint8_t clen; /* bytes of client */
    char *client; /* the writer's CLIENT SETNAME name (xmalloc'd), NULL if none */
} sp_histrec;

/* The history of one entry name: its last versions, oldest first. */
typedef struct sp_hist {
    sp_histrec *rec;
    size_t n;
    uint8_t nlen;
    char name[];
} sp_hist;

/* A snapshot: the entries of a scratchpad at one moment, each shared with the
 * live scratchpad (and other snapshots and forks) until one of them changes it. */
typedef struct sp_snap {
    sp_entry **e; /* sorted by name; each holds one share */
    size_t n;
    int64_t time; /* ms since epoch, when it was taken */
    size_t bytes; /* logical bytes of its entries */
    uint8_t llen; /* bytes of label */
    char label[]; /* llen bytes, NUL-terminated */
} sp_snap;

/* ---- names and text ---- */

/* 1 if name[0..n) is a valid entry name: 1..255 bytes of A-Z a-z 0-9 _ - . : /
 * with no empty, "." or ".." segment between slashes. */
int sp_name_valid(const char *name, size_t n);
/* 1 if p[0..n) is valid UTF-8 (no overlongs, surrogates or values past U+10FFFF). */
int sp_utf8_valid(const char *p, size_t n);
/* Names in the scratchpad's order: bytewise, a prefix first. <0, 0, >0. */
int sp_name_cmp(const char *a, size_t alen, const char *b, size_t blen);
/* SP_TEXT if p[0..n) is valid UTF-8 without NUL bytes, else SP_BINARY. */
int sp_detect_kind(const char *p, size_t n);
/* Number of UTF-8 lead bytes (code points for valid UTF-8) in p[0..n). */
size_t sp_count_chars(const char *p, size_t n);

/* What one pass over content tells (sp_text_scan). */
typedef struct sp_textinfo {
    size_t chars;    /* bytes that are not UTF-8 continuation bytes (code points if valid) */
    size_t newlines; /* '\n' bytes */
    int utf8;        /* 1 if valid UTF-8 (as sp_utf8_valid) */
    int nul;         /* 1 if a NUL byte occurs */
    const uint32_t *sub_nl; /* sp_text_scan_sub on all-ASCII content: the newline counts of
                               its sub-blocks in lzval's layout for chunks of sub_cs bytes
                               (lzval_new_ascii); else NULL */
    size_t sub_cs;
} sp_textinfo;

/* Validate and count p[0..n) in one pass, 8 bytes at a time over ASCII: the
 * write path's single look at the content (kind detection, KIND text check,
 * and the entry's counts). */
void sp_text_scan(const char *p, size_t n, sp_textinfo *ti);
/* The kind content with these counts is detected as: text when valid UTF-8
 * without NUL bytes, binary otherwise. */
static inline int sp_kind_of(const sp_textinfo *ti) { return ti->utf8 && !ti->nul ? SP_TEXT : SP_BINARY; }
/* sp_text_scan for content about to be compressed in chunks of chunk_size:
 * scanned a sub-block at a time, so that all-ASCII content (logs, most tool
 * output) also gets the newline count of each sub-block (ti->sub_nl, in a
 * buffer of the thread's, valid until the next call), which the compression
 * then takes instead of counting the bytes again. Content with a byte of 0x80
 * or more is scanned again whole, and empty content is scanned as
 * sp_text_scan does (ti->sub_nl NULL for both). */
void sp_text_scan_sub(const char *p, size_t n, size_t chunk_size, sp_textinfo *ti);

/* ---- the scratchpad ---- */

sp *sp_new(void);
/* Free s, every entry and its leases, feed and snapshots (entries and content
 * still shared with others stay for them). sp_free(NULL) does nothing. */
void sp_free(sp *s);
/* A copy of the live entries, sharing them with s (O(entries), no content is
 * copied: either side copies an entry when it changes it); the copy has no
 * leases, no feed and no snapshots. */
sp *sp_dup(const sp *s);
/* As sp_dup, from the entries of snapshot sn. */
sp *sp_dup_snap(const sp_snap *sn);
/* Bytes of memory held by s: its live entries, leases, feed, and what its
 * snapshots and histories hold beside the live entries (an entry or content
 * they share with the live one, or with the same name's entry in the previous
 * snapshot or the next version, counts once). A fork or COPY counts the
 * entries it shares with its source as its own. */
size_t sp_stored(const sp *s);
/* The part of sp_stored that s's snapshots hold beside the live entries. */
size_t sp_snaps_stored(const sp *s);

/* ---- sharing ---- */

/* One more holder of e: returns e, released with sp_entry_release. */
sp_entry *sp_entry_share(sp_entry *e);
/* Release one holder's share of e: the last frees it and its content. */
void sp_entry_release(sp_entry *e);
/* A new entry with e's state held once (the caller's): compressed content
 * shared, raw content (below the compression threshold) copied. */
sp_entry *sp_entry_clone(const sp_entry *e);
/* Link e (the caller's share passes to s) under its name, replacing (and
 * releasing) the live entry of that name if any; s's counts follow. */
void sp_put(sp *s, sp_entry *e);

/* e, private to s, for changing it: e itself if no one else holds it, else a
 * copy that replaces e in s (the copy shares compressed content, copies raw
 * content, which is below the compression threshold) while the others keep e.
 * Every change of a live entry goes through it (or sp_find_own). */
sp_entry *sp_own(sp *s, sp_entry *e);
/* sp_find then sp_own: the entry named name, private, or NULL. */
sp_entry *sp_find_own(sp *s, const char *name, size_t nlen);
/* Whether a and b hold the same state: the same entry, or equal kind, version,
 * creation time, size and bytes. 1 or 0; -1 if a chunk is corrupt. */
int sp_entry_same(const sp_entry *a, const sp_entry *b, const sp_params *pr);

/* ---- snapshots ---- */

/* Freeze the live entries under label[0..llen) (1..255 bytes, not already
 * used) at time now: O(entries), each entry shared. Returns the snapshot (owned
 * by s). */
sp_snap *sp_snap_take(sp *s, const char *label, size_t llen, int64_t now);
/* The snapshot labelled label, or NULL. */
sp_snap *sp_snap_find(const sp *s, const char *label, size_t llen);
/* The entry of sn named name, or NULL. */
sp_entry *sp_snap_get(const sp_snap *sn, const char *name, size_t nlen);
/* Put e (the caller's share passes to sn) in sn under its name, replacing
 * (releasing) the entry of that name if any (the log's loader). */
void sp_snap_put(sp_snap *sn, sp_entry *e);
/* Remove the entry named name from sn, if there. */
void sp_snap_remove(sp_snap *sn, const char *name, size_t nlen);
/* Drop snapshot sn of s (its entries released). */
void sp_snap_drop(sp *s, sp_snap *sn);
/* Called by sp_restore for each live entry it changes: name[0..nlen), e the
 * new state or NULL when the entry was removed. */
typedef void sp_restore_fn(void *ctx, const char *name, size_t nlen, const sp_entry *e);
/* Make the live entries those of sn: an entry absent from sn is removed; an
 * entry of sn that is not live, or whose live state differs, becomes live with
 * sn's content, kind, expiry and creation time, updated at now, and a version
 * above both its live one and any removed one (s->vdead), so no version is
 * reused; an entry whose state is the same is left as it is. fn (may be NULL)
 * hears each change, in name order. Returns the number of changes. */
size_t sp_restore(sp *s, const sp_snap *sn, int64_t now, sp_restore_fn *fn, void *ctx);
/* Called by sp_diff for each entry that differs: a its state in the first set
 * (NULL: added), b in the second (NULL: removed). Returns 0, or -1 to stop. */
typedef int sp_diff_fn(void *ctx, const sp_entry *a, const sp_entry *b);
/* Compare two sets of entries sorted by name (a snapshot's or the live one's),
 * in name order. 0, or -1 if a chunk is corrupt or fn stopped. */
int sp_diff(sp_entry *const *a, size_t na, sp_entry *const *b, size_t nb, sp_diff_fn *fn, void *ctx,
            const sp_params *pr);

/* The entry named name, or NULL (expiry is not checked: call sp_expire_due first). */
sp_entry *sp_find(const sp *s, const char *name, size_t nlen);
/* Index of the first entry whose name is > name (strictly greater), for resuming
 * a listing after the entry name. */
size_t sp_upper_bound(const sp *s, const char *name, size_t nlen);
/* A new, empty entry (version 0, kind text, no expiry) linked under name, which
 * must be valid and absent. */
sp_entry *sp_add(sp *s, const char *name, size_t nlen, int64_t now);
/* Unlink and free e. */
void sp_remove(sp *s, sp_entry *e);

/* Set e's expiry (ms, -1 for none), keeping the scratchpad's counters. */
void sp_set_expire(sp *s, sp_entry *e, int64_t when);
/* Remove the entries due by now. Returns the number removed. */
size_t sp_expire_due(sp *s, int64_t now);
/* The earliest expiry of an entry (exact), or -1 if none expires. O(n) when the
 * cached bound is stale; cheap otherwise. */
int64_t sp_next_expire(sp *s);

/* The counter of SP.OFFLOAD's names under prefix[0..plen) (1..255 bytes),
 * created at s->offload_seq when first asked for. Valid until s changes. */
uint64_t *sp_offload_counter(sp *s, const char *prefix, size_t plen);

/* ---- content ---- */

/* Replace e's content with p[0..n) of the given kind (counts recomputed,
 * encoding chosen by size, sha cache dropped). Does not touch version/times. */
void sp_entry_set(sp *s, sp_entry *e, const char *p, size_t n, int kind, const sp_params *pr);
/* sp_entry_set with the counts of p[0..n) already known (ti from sp_text_scan
 * of the same bytes), so the content is not scanned again; ti may be NULL. */
void sp_entry_set_info(sp *s, sp_entry *e, const char *p, size_t n, int kind, const sp_textinfo *ti,
                       const sp_params *pr);
/* Replace e's content with the compressed value v, which e takes over (the log
 * loader). Counts come from v. */
void sp_entry_set_lz(sp *s, sp_entry *e, lzval *v, int kind);
/* Append p[0..n) (the caller checked UTF-8 validity for text). */
int sp_entry_append(sp *s, sp_entry *e, const char *p, size_t n, const sp_params *pr);
/* sp_entry_append with p[0..n)'s counts already known (ti may be NULL). */
int sp_entry_append_info(sp *s, sp_entry *e, const char *p, size_t n, const sp_textinfo *ti,
                         const sp_params *pr);
/* Overwrite bytes [off, off+n) of e with p[0..n) (off + n <= size; the size
 * does not change; the caller checked that text stays valid UTF-8). A
 * compressed entry recompresses only the sub-blocks the bytes touch
 * (lzval_setrange; its own copy first if the content is shared, which shares
 * the chunks and replaces only the touched ones), so the cost is
 * that of the region, not of the entry. Counts follow, the sha cache is
 * dropped. 0, or -1 if a chunk it must read is corrupt (e unchanged). */
int sp_entry_overwrite(sp_entry *e, size_t off, const char *p, size_t n, const sp_params *pr);
/* Replace bytes [off, off+del) of e, an entry of s, with p[0..n) (off + del <=
 * size; the size changes by n - del; the encoding stays; the caller checked
 * that text stays valid UTF-8). A compressed entry rebuilds only the chunks the
 * change touches (lzval_splice; its own copy first if the content is shared,
 * which shares the chunks and replaces only the touched ones), so the cost is that of the region, not of the entry. Counts follow, the sha
 * cache is dropped. 0, or -1 if a chunk it must read is corrupt (e unchanged). */
int sp_entry_splice(sp *s, sp_entry *e, size_t off, size_t del, const char *p, size_t n, const sp_params *pr);
/* Copy bytes [off, off+n) into dst (off + n <= size). */
int sp_entry_read(const sp_entry *e, size_t off, size_t n, char *dst, const sp_params *pr);
/* A new xmalloc'd buffer with the whole content (+ a NUL); the caller frees it. */
int sp_entry_copy(const sp_entry *e, char **out, const sp_params *pr);
/* Byte offset where character ch starts (ch <= chars); identity for binary. */
int sp_entry_char_to_byte(const sp_entry *e, size_t ch, size_t *byte, const sp_params *pr);
/* Number of characters before byte offset b (b <= size); identity for binary. */
int sp_entry_byte_to_char(const sp_entry *e, size_t b, size_t *ch, const sp_params *pr);
/* Number of lines (see the file comment). */
size_t sp_entry_lines(const sp_entry *e);
/* Byte offset where line `line` (1-based, 1 <= line <= lines+1) starts; line
 * lines+1 gives size. */
int sp_entry_line_start(const sp_entry *e, size_t line, size_t *byte, const sp_params *pr);
/* The entry's length in its own unit (chars for text, bytes for binary). */
static inline size_t sp_entry_length(const sp_entry *e) { return e->kind == SP_TEXT ? e->chars : e->size; }
/* SHA-256 of the content (computed once, cached until the next change). */
int sp_entry_sha256(sp_entry *e, uint8_t out[32], const sp_params *pr);
/* Bytes of memory the entry holds (its struct and content, whoever shares
 * them: every chunk of its compressed content counted, lzval_stored). */
size_t sp_entry_stored(const sp_entry *e);
/* The bytes of x that a and b (may be NULL: the same name's entry in the live
 * scratchpad, a neighbouring snapshot or version) do not hold already: 0 if x
 * is one of them, its struct and raw content if it only shares their
 * compressed content, plus its compressed chunks that neither holds (when
 * its content is a copy sharing chunks with theirs, lzval_stored_beside). */
size_t sp_entry_stored_beside(const sp_entry *x, const sp_entry *a, const sp_entry *b);
/* Number of compressed chunks (0 for raw). */
size_t sp_entry_chunks(const sp_entry *e);

/* ---- entry history (sphist.c) ---- */

/* Record that entry e of s (live, its new state) was changed at time by op
 * (client[0..clen), may be empty): a share of e joins its name's history, which
 * keeps the last depth + 1 versions (the live one and depth before it); older
 * ones are released. A version not above the newest kept is ignored (the log's
 * replay sees some changes twice). depth 0 keeps nothing (and drops the name's
 * history). */
void sp_hist_note(sp *s, sp_entry *e, int64_t time, int op, const char *client, size_t clen, size_t depth);
/* Drop the history of name[0..nlen) (the entry was deleted). */
void sp_hist_drop(sp *s, const char *name, size_t nlen);
/* The history of name, or NULL. */
sp_hist *sp_hist_find(const sp *s, const char *name, size_t nlen);
/* The record of version v in h, or NULL. */
sp_histrec *sp_hist_version(const sp_hist *h, uint64_t v);
/* Put a record at the end of name's history (the loader: versions given in
 * order), e's share passing to it. */
void sp_hist_push(sp *s, sp_entry *e, int64_t time, int op, const char *client, size_t clen);
/* Free every history of s. */
void sp_hist_free_all(sp *s);
/* Bytes of memory the histories hold beside the live entries (as sp_stored). */
size_t sp_hist_stored(const sp *s);

#endif
