/* lzidle.h -- the LZ4 dictionary and full compression off the write path: values
 * are converted to dictionary mode, or re-encoded at LZ4's default acceleration,
 * in the background, in bounded steps, once they stay unchanged.
 *
 * Why: dictionary mode (lzval.h) keeps log text in ~0.33 of its bytes instead
 * of ~0.43, but compresses at ~445 MB/s instead of ~690 and asks two sample
 * compressions per value first. Large tool outputs are often deleted or
 * overwritten within seconds of being written; paying for the dictionary on
 * the write path costs the server a third more CPU per compressed byte for
 * memory it soon gives back. So a value is written without a dictionary
 * (lzval_new_nodict) and registered here (lzidle_adopt); once it has stayed
 * unchanged for delay_ms, lzidle_step asks the samples, exactly as lzval_new
 * would have, and if the dictionary pays re-encodes the value with it, a few
 * sub-blocks per step. A value deleted or changed before then never pays.
 * The same goes for compression itself: a value written with a higher LZ4
 * acceleration (lzval_new_fast: ~1070 MB/s at 0.56 of the bytes instead of
 * ~830 at 0.42 on log text) is re-encoded at acceleration 1 once idle, with the
 * dictionary if the samples say it pays, else without (counted as
 * recompressed).
 *
 * Consistency: a value is never half converted. The dictionary-mode chunks are
 * built on the side, into a private value, and swapped in by the step that
 * completes them; until then every reader (windows, grep, the log's export of
 * the stored chunks, MEMORY USAGE) sees the old chunks, afterwards the new
 * ones: the same raw bytes under the same uid, so decoded chunks in any
 * lzcache stay right, unless splices had left chunks of other lengths than the
 * full ones the conversion writes: the value then takes a new uid, since a
 * cache keys a decoded chunk by its index. A change of the value (append, setrange) or its free
 * drops the conversion in progress (the private copy is freed) and the value
 * waits delay_ms again from that change. The private copy costs up to the
 * value's stored size in memory while it is built, for one value at a time.
 *
 * Which values wait (the list, oldest change first): those registered here,
 * not in dictionary mode, of 48 KB or more with sub-blocks of at most 8 KB, and
 * not refused by the samples at a length they have not since doubled (so a
 * value is asked at most a few times in its life: at its first idle time, and
 * again only if appends take it past 96 KB, 192 KB or 384 KB); and those
 * compressed at an acceleration above 1, whatever their size; and those whose
 * dictionary a change detached (lzval_setrange), which the re-encoding folds
 * back into their first sub-block (without a dictionary if they have fallen
 * under 48 KB), giving back the detached copy (unless another value shares
 * its chunks, lzval_dup: the re-encoding would then copy them all to save the
 * sub-block, so the value is taken off the list until its next change). A registered
 * value that does not qualify stays registered, off the list, and is listed by
 * the change that makes it qualify. Each listed value carries the registry's
 * clock at its last change: the now_ms of the last lzidle_step or lzidle_clock
 * (changes do not read a clock; the caller steps often enough, e.g. from a
 * cron, that the stamp is at most a tick old).
 *
 * Cost, measured through lzidle_step on gen_logs.py text (see lzidle.c):
 * 2.8 - 3.4 ms per MB converted (one decoding of the value and one
 * compression with the dictionary; ~60 us of samples per value), in steps of
 * the caller's size: 64 KB steps take 0.21 ms on average, 0.28 ms at most.
 *
 * No globals; memory from mem.h; allocation failure aborts. One thread: the
 * registry, its values and every change to them. */
#ifndef SP_LZIDLE_H
#define SP_LZIDLE_H

#include <stddef.h>
#include <stdint.h>

#include "lz/lzval.h"

typedef struct lzidle lzidle;

typedef struct lzidle_stats {
    size_t registered;           /* values registered */
    size_t pending_values;       /* values listed, plus the one being converted */
    size_t pending_bytes;        /* bytes, raw, of those values */
    uint64_t converted_values;   /* conversions completed */
    uint64_t converted_bytes;    /* bytes, raw, of the values converted */
    uint64_t recompressed_values; /* values written fast re-encoded at acceleration 1 without a
                                     dictionary (the samples refused one, or too short for one) */
    uint64_t recompressed_bytes; /* bytes, raw, of those values */
    uint64_t saved_bytes;        /* bytes, stored: before minus after, summed over both kinds */
    uint64_t refused_values;     /* values the samples said no to (or that were corrupt) */
    uint64_t dropped;            /* conversions dropped by a change or free of their value */
} lzidle_stats;

/* A new, empty registry. Never NULL. Free with lzidle_free. */
lzidle *lzidle_new(void);

/* Release q, which must have no value registered (free them first: each
 * lzval_free takes its value off). lzidle_free(NULL) does nothing. Returns 0,
 * or -1 (q not freed) if a value is still registered. */
int lzidle_free(lzidle *q);

/* Register v (registered nowhere) in q: from now on v's changes and its free
 * report to q, its appends no longer choose a dictionary themselves, and q
 * converts it once idle if it qualifies (listed now, stamped with q's clock).
 * v stays the caller's. */
void lzidle_adopt(lzidle *q, lzval *v);

/* Whether v is registered in some registry. */
int lzidle_registered(const lzval *v);

/* Set q's clock (ms; any monotonic or wall clock, the same for every call). */
void lzidle_clock(lzidle *q, int64_t now_ms);

/* Do up to about max_bytes of work (raw bytes decoded and re-encoded; the
 * samples of a value count as four sub-blocks) on the conversions that are due
 * at now_ms (which also sets q's clock): the one in progress, else the value
 * that has been unchanged the longest, if for delay_ms or more (delay_ms <= 0:
 * any listed value). Works in whole sub-blocks, so it may do up to one
 * sub-block more than max_bytes; the step that puts the last sub-block in also
 * seals the new chunks and swaps them in. Returns the work done in bytes, 0 if
 * nothing was due. A sub-block that does not decode ends the value's
 * conversion, which counts as refused (the value is left as it is: its reads
 * report the corruption). */
size_t lzidle_step(lzidle *q, int64_t now_ms, int64_t delay_ms, size_t max_bytes);

/* When work is next due (ms on q's clock): now_ms if a conversion is in
 * progress, the oldest listed value's stamp plus delay_ms, or -1 if nothing
 * waits. */
int64_t lzidle_next_due(const lzidle *q, int64_t now_ms, int64_t delay_ms);

/* q's counters. */
void lzidle_get_stats(const lzidle *q, lzidle_stats *st);

#endif
