/* persist_int.h -- what the two halves of the server's side of the log share:
 * persist.c (the sink, the flush, start and stop, the cron, switches, INFO) and
 * persist_rewrite.c (the fork and incremental rewrites). Not for other modules:
 * they use persist.h.
 *
 * Why: one state, two jobs. The rewrite swaps the writer and the manifest the
 * flush uses, and the flush copies every record into a base being written, so
 * both files read and write the same two structs. They stay plain globals here,
 * owned by the loop's thread (the exceptions are marked atomic), as they were
 * file-statics before the split. */
#ifndef SP_PERSIST_INT_H
#define SP_PERSIST_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "aof.h"
#include "aof_manifest.h"
#include "aof_stream.h"
#include "aof_writer.h"
#include "aof/persist_load.h"

/* The log: one writer (NULL when the log is off), the manifest that describes
 * the files on disk, and at most one rewrite. Defined in persist.c. */
typedef struct persist_state {
    int started;              /* persist_start ran (apply hooks act only after it) */
    char dir[AOF_PATH_MAX];   /* absolute */
    int lock_fd;              /* flock'ed dir/scratchpad.lock, -1 if none */
    aof_manifest m;
    aof_manifest stale;       /* files of an earlier log, removed after the next rewrite */
    aof_writer *w;
    uint64_t consumed;        /* bytes of buffer written by past flushes */
    int flush_failing;        /* the last flush failed: replies are held */
    uint64_t idle_mark;       /* sink_mark() when the cron last saw it change */
    int64_t idle_since;       /* ms, when it last changed */
    char last_error[128];
    /* Sizes for the automatic rewrite: the base (at load or after a rewrite)
     * and the incr files that precede the current one. */
    uint64_t base_size, older_incr_size;
    /* The rewrite. */
    pid_t child;
    aof_rewrite rw;
    int64_t rewrite_start_ms;
    long long last_rewrite_sec;
    int last_rewrite_ok;
    long long rewrites, rewrite_failures;
    long long fork_usec;
    long long last_cow;       /* bytes, the peak copied-on-write size of the last child */
    /* The last load. */
    persist_load_stats load;
} persist_state;
extern persist_state P;

/* The incremental rewrite (persist_rewrite.c, "the incremental rewrite"): the
 * state the flush and the loop's hooks look at. Defined in persist_rewrite.c. */
enum { RWI_IDLE = 0, RWI_SCAN, RWI_FINISHING };
typedef struct rwi_state {
    int state;             /* RWI_* */
    int restart;           /* start again at the next iteration (a FLUSHDB/SWAPDB cut the last one short) */
    aof_stream *st;        /* the new base being written */
    uint64_t seq;          /* its seq */
    char temp[AOF_PATH_MAX]; /* its temporary path */
    uint64_t copied;       /* log position up to which records went into the base too */
    int dbi;               /* the database the scan is in */
    uint64_t cursor;       /* its ht_scan cursor */
    unsigned incomplete;   /* epochs started since every entry last carried db_epoch */
    aof_manifest m;        /* the manifest at the switch, for the finishing thread */
    /* The next incr, created and named in a saved manifest by the stream's
     * thread (aof_rewrite_prepare) while the scan runs, so that the switch on
     * the loop is only a change of file descriptor. */
    int prep;              /* 0 not (yet), 1 done, -1 failed (atomic: set by the thread) */
    aof_manifest mprep;    /* the thread's copy of the manifest */
    aof_manifest next;     /* the manifest it saved */
    aof_rewrite prw;
    char prep_err[256];
    long long scanned, touched; /* keys written by the scan / before a first write */
    char bad[512];         /* a key the scan could not vouch for (rewrite_key), or "" */
} rwi_state;
extern rwi_state RI;

/* ---- persist.c, for the rewrite ---- */

/* Set plog to b (the writer's buffer) and attach the log's sink, or with NULL
 * detach it. b belongs to the writer. */
void persist_set_plog(aof_buf *b);
/* Take w (owned from now on, in P.w) as the log's writer: its thread started,
 * plog set, positions carried on from the last writer. */
void persist_attach_writer(aof_writer *w);
/* Write the buffered records (copying them into a base being written first),
 * advance persist_flushed, and hold or release replies on the outcome. P.w set. */
void persist_flush(void);
/* The fsync policy of appendfsync. */
aof_fsync_policy persist_policy(void);
/* Measure the base and the incr files before the current one into P (after
 * every change of P.m). */
void persist_measure_files(void);
/* Bytes of the whole log (base, older incrs, the current incr); 0 if it is off. */
uint64_t persist_current_size(void);

/* ---- persist_rewrite.c, for the lifecycle, the flush and INFO ---- */

/* Start a rewrite of the mode aof-rewrite-mode (with the log off: a new log
 * whose base is the dataset). 0, or -1 with *errmsg the error reply (without
 * '-'; static storage). */
int rw_start(const char **errmsg);
/* Stop any rewrite now: abandon an incremental one, kill and reap a child; the
 * log stays as it was. */
void rw_stop(void);
/* 1 while a rewrite of either kind runs or is due to start again. */
int rw_in_progress(void);
/* Collect the thread that removes a replaced log's files if it has finished;
 * with wait, wait for it. */
void rw_reap_remove(int wait);
/* Bytes the running child has copied on write (its last report). */
long long rw_cow_current(void);
/* The cron's part of the rewrite: collect a child's or a thread's end, and
 * start an automatic rewrite when the log has grown enough. */
void rw_cron(void);
/* Copy the records logged since the last copy into the base being written
 * (nothing unless an incremental rewrite scans). */
void rwi_copy(void);
/* Start an incremental rewrite. 0, or -1 with *errmsg as rw_start. */
int rwi_start(const char **errmsg);
/* One step of the incremental rewrite's scan, on the loop (RI.state RWI_SCAN). */
void rwi_step(void);
/* The log's sink hooks (prop_sink keyed / keyless) while an incremental rewrite
 * scans: a key a write command is about to change goes into the base first; a
 * command that changes whole databases starts the rewrite again. */
void rwi_keyed(int dbid, const char *key, size_t klen);
void rwi_keyless(const char *cmdname);

#endif
