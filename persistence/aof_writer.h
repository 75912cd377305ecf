/* aof_writer.h -- append records to a log file under an fsync policy.
 *
 * Why: a write is acknowledged only once it is in the log (and, with `always`, on
 * disk), yet the loop must not wait on the disk more than once per iteration. So
 * records are encoded during a loop iteration into the writer's buffer
 * (aof_writer_buf + the aof_rec_* functions of aof.h) and written by one write()
 * in aof_writer_flush, which the server calls once per iteration, before it sends
 * the replies the records cover.
 *
 * Policies:
 *   always    flush writes, then fdatasync()s, before returning: one fdatasync
 *             covers every record of the iteration (group commit). A reply may go
 *             out only after flush returned AOF_FLUSH_OK.
 *   everysec  flush writes; a background thread fdatasync()s at most once a
 *             second, so flush never waits on the disk, and a reply covers a
 *             write that is in the kernel (a crash of the process loses
 *             nothing; a power loss up to about 2 s). A write made while that
 *             fsync has run for 2 s or more is counted in delayed_fsync (at most
 *             once per 2 s) with a notice through the log callback, as Redis's
 *             aof_delayed_fsync. Optionally (aof_writer_set_postpone), as Redis
 *             does, the write itself waits in the buffer while an fsync runs, for
 *             at most 2 s (flush returns AOF_FLUSH_POSTPONED): for filesystems on
 *             which write() blocks behind fsync; the price is that a process
 *             crash can then lose those buffered writes too.
 *   no        flush writes; the kernel syncs when it likes.
 *
 * Errors ("the disk says no"): a failed or short write (ENOSPC, EIO) is undone:
 * the file is truncated back to its size before the flush, so it still ends on a
 * whole record, and the bytes stay in the buffer to be written again by the next
 * flush (if the truncation fails too, the bytes that reached the file are kept as
 * written and only the rest is retried: the file then ends in a partial record
 * that the retry completes). A failed fdatasync with `always` is undone the same
 * way (truncate, keep, retry), so an acknowledged write is always one whose bytes
 * were synced; with `everysec` it is retried by the thread a second later. Either
 * way the writer enters an error state (aof_writer_ok() == 0; the operation, errno
 * and start time in the stats) in which the server refuses writes; the state
 * clears by itself when a later write (and, for `always`, its fdatasync; for
 * `everysec`, a background fdatasync) succeeds.
 * Limitation: after a failed fdatasync, Linux may have dropped the dirty pages it
 * could not write; bytes written by earlier flushes with `everysec` could then be
 * missing on disk despite a later successful fsync. A crash would show them as a
 * CRC error (corruption reported at load), never as silently wrong data.
 *
 * I/O goes through an aof_io table (write, fdatasync, ftruncate), so tests can
 * inject ENOSPC after N bytes, EIO, short or slow writes and slow fsyncs. NULL
 * means the real system calls. The fdatasync hook is also called from the
 * background thread.
 *
 * Threads: every function must be called from one thread (the loop); the writer
 * runs its own background thread for `everysec` and for closing switched-out
 * files. After fork() the child must not call any function on a writer of the
 * parent (their thread does not exist in the child); it makes its own.
 *
 * Memory: the buffer comes from mem.h (allocation failure aborts). */
#ifndef SP_AOF_WRITER_H
#define SP_AOF_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "aof.h"

typedef enum aof_fsync_policy {
    AOF_FSYNC_NO = 0,
    AOF_FSYNC_EVERYSEC,
    AOF_FSYNC_ALWAYS
} aof_fsync_policy;

typedef struct aof_io {
    ssize_t (*write)(void *ctx, int fd, const void *p, size_t n);   /* as write(2) */
    int (*fdatasync)(void *ctx, int fd);                            /* as fdatasync(2) */
    int (*ftruncate)(void *ctx, int fd, off_t size);                /* as ftruncate(2) */
    void *ctx;
} aof_io;

/* Messages the writer logs (fsync falling behind, write errors and recovery):
 * level 0 notice, 1 warning. Called from the loop's thread only. */
typedef void aof_log_fn(void *ctx, int level, const char *msg);

/* Which operation put the writer in its error state. */
typedef enum aof_op {
    AOF_OP_NONE = 0,
    AOF_OP_WRITE,
    AOF_OP_FSYNC
} aof_op;

typedef struct aof_writer_stats {
    int ok;                  /* 1: no error state, writes may be accepted */
    aof_op err_op;           /* the failing operation (AOF_OP_NONE if ok) */
    int err_no;              /* its errno (0 if ok) */
    int64_t err_since_ms;    /* ms since the epoch, when the error state began (0 if ok) */
    int64_t last_ok_ms;      /* ms since the epoch, the last successful write */
    uint64_t file_size;      /* bytes in the current file (header included) */
    uint64_t buffered;       /* bytes waiting in the buffer (complete records) */
    uint64_t writes;         /* write() calls that wrote everything they were given */
    uint64_t fsyncs;         /* fdatasync() calls that succeeded (all policies) */
    uint64_t bytes_written;  /* bytes, total */
    uint64_t records_written;
    uint64_t delayed_fsync;  /* writes done while a background fsync ran for 2 s or more */
    uint64_t write_errors;   /* failed or short flushes */
    uint64_t fsync_errors;   /* failed fdatasync calls */
    int fsync_in_progress;   /* 1 while the background thread is in fdatasync */
    int64_t last_fsync_ms;   /* ms since the epoch, the last successful fdatasync, 0 if none */
} aof_writer_stats;

typedef struct aof_writer aof_writer;

/* Return values of aof_writer_flush. */
#define AOF_FLUSH_OK 0          /* everything buffered is written (and synced, `always`) */
#define AOF_FLUSH_POSTPONED 1   /* `everysec` with postpone: kept in the buffer while an fsync runs */
#define AOF_FLUSH_ERR (-1)      /* the writer is in its error state (see above) */

/* Create path (truncating any leftover of that name, which no manifest names),
 * write the header (kind, seq, created now), fdatasync it and fsync its
 * directory, then close it: the file exists durably before anything names it.
 * io may be NULL. Returns 0, or -1 with err set (the partial file is removed). */
int aof_file_create(const char *path, int kind, uint64_t seq, const aof_io *io, char *err,
                    size_t errlen);

/* aof_file_create, then aof_writer_open on it. NULL on failure, err set. */
aof_writer *aof_writer_create(const char *path, int kind, uint64_t seq, aof_fsync_policy policy,
                              const aof_io *io, char *err, size_t errlen);

/* Open an existing log file for appending. Its header is checked; its records
 * are not (load it first, and truncate a torn tail). NULL on failure, err set. */
aof_writer *aof_writer_open(const char *path, aof_fsync_policy policy, const aof_io *io, char *err,
                            size_t errlen);

/* The buffer records are encoded into (aof_rec_* in aof.h). Valid until close. */
aof_buf *aof_writer_buf(aof_writer *w);

/* Write the buffer's complete records (an open record stays in the buffer) with
 * one write() where the kernel allows, and apply the policy: see above. Called
 * with nothing buffered, it still starts an `everysec` fsync that is due and
 * retries after an error, so the server calls it every iteration and from a timer
 * (a few times a second) when idle. Returns AOF_FLUSH_OK, AOF_FLUSH_POSTPONED or
 * AOF_FLUSH_ERR. */
int aof_writer_flush(aof_writer *w);

/* Write everything buffered and fdatasync now, whatever the policy, waiting for
 * the disk (shutdown, the end of a rewrite child, tests). 0 or -1. */
int aof_writer_sync(aof_writer *w);

/* Write the buffer to the current file (not waiting for a running fsync), then
 * append to path, an existing log file (made by aof_file_create), from now on.
 * The old file is fdatasync'ed (unless the policy is `no`) and closed on the
 * background thread, before any later fsync of the new one. 0, or -1 with err
 * set (the writer still appends to the old file). */
int aof_writer_switch(aof_writer *w, const char *path, char *err, size_t errlen);

/* Start the background thread now rather than at its first job (a server that
 * fork()s: a thread being born at the moment of a fork can hold allocator locks
 * that the child then never sees released). 0, or -1 if it cannot start (jobs
 * then run inline). */
int aof_writer_start_thread(aof_writer *w);

/* Change the policy (CONFIG SET appendfsync). */
void aof_writer_set_policy(aof_writer *w, aof_fsync_policy policy);
aof_fsync_policy aof_writer_policy(const aof_writer *w);
/* everysec: 1 makes a write wait (up to 2 s) for a running fsync, 0 (the
 * default) writes at once. */
void aof_writer_set_postpone(aof_writer *w, int on);
/* Set the log callback (NULL: silent). */
void aof_writer_set_log(aof_writer *w, aof_log_fn *fn, void *ctx);

/* 1 unless the writer is in its error state. */
int aof_writer_ok(aof_writer *w);
/* Fill st. */
void aof_writer_get_stats(aof_writer *w, aof_writer_stats *st);
/* The path of the current file (valid until the next switch or close). */
const char *aof_writer_path(const aof_writer *w);
/* The file descriptor of the current file (e.g. for a child to close). */
int aof_writer_fd(const aof_writer *w);

/* Stop the background thread (waiting for its work), write what is buffered,
 * fdatasync unless the policy is `no`, close and free. Returns 0, or -1 if
 * buffered bytes could not be written or a sync failed. aof_writer_close(NULL)
 * does nothing and returns 0. */
int aof_writer_close(aof_writer *w);

/* "always", "everysec", "no". */
const char *aof_fsync_policy_name(aof_fsync_policy p);

#endif
