/* value.h -- the string value interface: one API over every encoding.
 *
 * Commands never touch an entry's bytes directly: they ask for its length, read a
 * range, replace, append or overwrite, and this layer picks the encoding (inline
 * in the entry, a heap buffer, or chunked LZ4 above compress-threshold) and moves
 * between encodings as a value grows. A window read of a compressed value
 * decompresses only the chunks it touches.
 *
 * Errors: functions returning int give 0 on success, -1 if a compressed chunk is
 * corrupt (the caller answers an error; nothing is written). */
#ifndef SP_VALUE_H
#define SP_VALUE_H

#include <stddef.h>

#include "db.h"

struct lzval;

/* Thresholds, set from the configuration. */
extern size_t sv_compress_threshold; /* bytes; values at or above it are compressed (0 = never) */
extern size_t sv_compress_chunk;     /* raw bytes per chunk */
extern int sv_compress_accel;        /* LZ4 acceleration on the write path while the background
                                        (sv_dict_delay >= 0) re-encodes values once idle */
extern size_t sv_accel_mem_limit;    /* bytes of mem_used() from which values are written at
                                        acceleration 1 all the same (0: none; 3/4 of maxmemory) */

/* The LZ4 acceleration to write a value with now: sv_compress_accel, or 1 past
 * sv_accel_mem_limit (a value written fast takes more memory until it is
 * re-encoded). */
int sv_write_accel(void);

/* The shared cache of decompressed chunks (created on first use). */
struct lzcache *sv_lzcache(void);
/* Free the decoded-chunk cache (made again by the next read that needs it):
 * after FLUSHALL / FLUSHDB it holds chunks of values that are gone, up to 8
 * chunks of sv_compress_chunk bytes. No slot pointer may be held across it. */
void sv_drop_cache(void);
/* Bytes the decoded-chunk cache holds (INFO memory lz4_cache_bytes). */
size_t sv_cache_bytes(void);

/* The background dictionary (lzidle.h): how long, in ms, a compressed value
 * (string or scratchpad entry) must stay unchanged before it is converted to
 * dictionary mode; -1: the dictionary is chosen when the value is compressed,
 * on the write path (values already registered are still converted). Set from
 * compress-dict-delay. */
extern long long sv_dict_delay;
/* The registry compressed values are written into (created on first use), or
 * NULL when sv_dict_delay < 0. */
struct lzidle *sv_lzidle(void);
/* Register v in the registry if it is registered nowhere (values loaded from
 * the log, copies): the dataset scan calls it for every compressed value. */
void sv_dict_adopt(struct lzval *v);
/* Convert for about budget_us microseconds (steps of SV_DICT_STEP raw bytes,
 * whole sub-blocks, ~0.2 ms each). Returns the bytes of work done. */
#define SV_DICT_STEP (64u * 1024)
size_t sv_dict_step(int64_t budget_us);
/* Whether a conversion is due now. */
int sv_dict_due(void);
/* The registry's counters (all 0 before it exists), for INFO. */
struct lzidle_stats;
void sv_dict_stats(struct lzidle_stats *st);

/* Bytes of value. */
size_t sv_len(const dbent *e);
/* Contiguous bytes of the value if it is not compressed, else NULL. */
const char *sv_ptr(const dbent *e);
/* Copy bytes [off, off+n) (off + n <= sv_len) into dst. */
int sv_read(const dbent *e, size_t off, size_t n, char *dst);

/* Set key to a string value (creating it or replacing any value of any type;
 * the TTL is removed unless keepttl). Returns the entry. */
dbent *sv_set(db *d, const char *key, size_t klen, const char *p, size_t n, int keepttl);
/* Set key to the compressed value v, which the entry takes over (the log
 * loader: values are logged in their compressed chunks). The TTL is removed.
 * Returns the entry. */
dbent *sv_set_lzval(db *d, const char *key, size_t klen, struct lzval *v);
/* Replace the value of an existing string entry; returns its (maybe new) address. */
dbent *sv_replace(db *d, dbent *e, const char *p, size_t n);
/* Append; returns the (maybe new) address via *e. */
int sv_append(db *d, dbent **e, const char *p, size_t n);
/* Overwrite from off (zero-padding any gap); returns the (maybe new) address via *e. */
int sv_setrange(db *d, dbent **e, size_t off, const char *p, size_t n);

/* Compress queued values for about budget_us microseconds (cron). Returns the
 * number of values compressed or sealed. */
size_t sv_compress_step(int64_t budget_us);
/* A string value now lives under a new key (RENAME, MOVE, COPY): queue it again
 * if it still waits for compression. */
void sv_note_moved(db *d, dbent *e);
/* Compress e now if it waits for compression (tests, DEBUG). */
void sv_compress_entry(dbent *e);
/* Keys waiting for compression (INFO). */
size_t sv_compress_pending(void);

/* "int", "embstr", "raw" or "lz4", as OBJECT ENCODING reports. */
const char *sv_encoding_name(const dbent *e);

#endif
