/* vcomp.h -- value compression: the settings and registries every type shares.
 *
 * Why: a string and a scratchpad entry above compress-threshold are both stored
 * as chunked LZ4 values (core/lz/lzval.h), written at the same acceleration,
 * cached in one cache of decoded chunks and converted to their dictionary by one
 * background registry. Those belong to no single type: they live here, in the
 * keyspace, so that each type's folder reaches them without reaching another
 * type's. Set from the configuration (config.c); the cron and the idle timer
 * (server.c) run the registry's steps.
 *
 * The cache and the registry are created on first use and live as long as the
 * process. */
#ifndef SP_VCOMP_H
#define SP_VCOMP_H

#include <stddef.h>
#include <stdint.h>

struct lzval;
struct lzcache;
struct lzidle;
struct lzidle_stats;

/* Thresholds, set from the configuration. */
extern size_t vc_threshold; /* bytes; values at or above it are compressed (0 = never) */
extern size_t vc_chunk;     /* raw bytes per chunk */
extern int vc_accel;        /* LZ4 acceleration on the write path while the background
                               (vc_dict_delay >= 0) re-encodes values once idle */
extern size_t vc_accel_mem_limit; /* bytes of mem_used() from which values are written at
                                     acceleration 1 all the same (0: none; 3/4 of maxmemory) */

/* The LZ4 acceleration to write a value with now: vc_accel, or 1 past
 * vc_accel_mem_limit (a value written fast takes more memory until it is
 * re-encoded). */
int vc_write_accel(void);

/* The shared cache of decompressed chunks (created on first use). */
struct lzcache *vc_lzcache(void);
/* Free the decoded-chunk cache (made again by the next read that needs it):
 * after FLUSHALL / FLUSHDB it holds chunks of values that are gone, up to 8
 * chunks of vc_chunk bytes. No slot pointer may be held across it. */
void vc_drop_cache(void);
/* Bytes the decoded-chunk cache holds (INFO memory lz4_cache_bytes). */
size_t vc_cache_bytes(void);

/* The background dictionary (lzidle.h): how long, in ms, a compressed value
 * (string or scratchpad entry) must stay unchanged before it is converted to
 * dictionary mode; -1: the dictionary is chosen when the value is compressed,
 * on the write path (values already registered are still converted). Set from
 * compress-dict-delay. */
extern long long vc_dict_delay;
/* The registry compressed values are written into (created on first use), or
 * NULL when vc_dict_delay < 0. */
struct lzidle *vc_lzidle(void);
/* Register v in the registry if it is registered nowhere (values loaded from
 * the log, copies): the dataset scan calls it for every compressed value. */
void vc_dict_adopt(struct lzval *v);
/* Convert for about budget_us microseconds (steps of VC_DICT_STEP raw bytes,
 * whole sub-blocks, ~0.2 ms each). Returns the bytes of work done. */
#define VC_DICT_STEP (64u * 1024)
size_t vc_dict_step(int64_t budget_us);
/* Whether a conversion is due now. */
int vc_dict_due(void);
/* The registry's counters (all 0 before it exists), for INFO. */
void vc_dict_stats(struct lzidle_stats *st);

#endif
