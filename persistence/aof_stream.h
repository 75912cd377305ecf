/* aof_stream.h -- a log file written by a background thread from buffers the
 * event loop hands over: the file an incremental rewrite builds.
 *
 * Why: an incremental rewrite encodes the dataset on the loop, a few hundred
 * microseconds at a time, but the bytes must reach the disk without the loop
 * ever waiting for it: a write() into a file the kernel is writing back, or a
 * sync_file_range, can block for tens of milliseconds. The loop encodes records
 * into the stream's aof_buf and hands the complete ones over (aof_stream_push);
 * the thread writes them in order, starts the writeback of every
 * AOF_STREAM_SYNC_BYTES and waits for the one before it (so the page cache
 * never holds the whole file, and the final fdatasync is short), and at the end
 * fdatasyncs and closes the file and runs the caller's finishing step (renames,
 * manifest) on the same thread.
 *
 * Threads: every function is called by the loop's thread; only the writing,
 * the fsyncs and the finishing step run on the stream's own thread. Buffers
 * handed over are freed by that thread (mem.h counts them: see
 * mem_thread_register).
 *
 * Errors: a failed write, fsync or finishing step puts the stream in a failed
 * state that aof_stream_poll reports; later pushes are dropped. Functions that
 * can fail return 0 / -1 (err set). */
#ifndef SP_AOF_STREAM_H
#define SP_AOF_STREAM_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "aof.h"

#define AOF_STREAM_SYNC_BYTES (32u << 20) /* bytes written between writeback steps */

typedef struct aof_stream aof_stream;

/* The finishing step, run on the stream's thread after the file is synced and
 * closed: returns 0, or -1 with err filled (the stream then fails). */
typedef int aof_stream_finish_fn(void *ctx, char *err, size_t errlen);

/* Create path (truncated if it exists) with a header of kind and seq
 * (aof_file_create: synced, its directory entry too), and start the thread.
 * Returns the stream, or NULL with err set (nothing is left behind). */
aof_stream *aof_stream_create(const char *path, int kind, uint64_t seq, char *err, size_t errlen);

/* Move the stream's thread to the CPUs of set (pthread_setaffinity_np).
 * 0, or -1 (the thread stays where it is). */
int aof_stream_set_affinity(aof_stream *s, const cpu_set_t *set);

/* The buffer the loop encodes records into (aof.h's encoder). Complete records
 * stay in it until aof_stream_push. Valid until aof_stream_free. */
aof_buf *aof_stream_buf(aof_stream *s);

/* Append n bytes of complete, encoded records (copied from another aof_buf).
 * No record may be open in the stream's buffer (a programming error: aborts
 * with a message). */
void aof_stream_append(aof_stream *s, const void *p, size_t n);

/* Hand the buffer's complete records to the thread (nothing if there are none).
 * Never blocks beyond a mutex the thread holds only to take a buffer. */
void aof_stream_push(aof_stream *s);

/* Run fn(ctx) on the stream's thread, in order with the buffers pushed
 * before and after it (e.g. file work the loop must not wait for). It runs even
 * if a write failed; not if the stream is freed first. */
void aof_stream_call(aof_stream *s, void (*fn)(void *ctx), void *ctx);

/* Bytes handed over and not yet written: the loop's back-pressure figure. */
uint64_t aof_stream_queued(aof_stream *s);

/* Bytes written to the file so far (header included). */
uint64_t aof_stream_written(aof_stream *s);

/* After the last push: the thread writes what is queued, fdatasyncs and closes
 * the file, then calls fn(ctx, ...) (ctx must stay valid until the stream is
 * freed or has finished). No push is accepted afterwards. */
void aof_stream_finish(aof_stream *s, aof_stream_finish_fn *fn, void *ctx);

/* 0 while writing or finishing, 1 once finished (fn returned 0), -1 if it
 * failed; with -1, err (if not NULL) gets the reason. */
int aof_stream_poll(aof_stream *s, char *err, size_t errlen);

/* Stop the thread (a finishing step already running is waited for), close the
 * file and free everything. The file is left where it is: the caller removes
 * it when it abandons the stream. s may be NULL. */
void aof_stream_free(aof_stream *s);

#endif
