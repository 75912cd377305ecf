/* persist.h -- the server's side of the append-only log: the narrow interface
 * through which the server logs its writes, loads the log at start-up, holds
 * replies until the writes they acknowledge are logged, and compacts the log.
 *
 * Why: the log modules (aof.h, aof_reader.h, aof_writer.h, aof_manifest.h) know
 * nothing of the server; this module joins them to it. It owns the writer, the
 * manifest, the rewrite child and the directory lock, and it is the only place
 * that knows which files make up the log.
 *
 * Logging: a write command logs its *effect* after it ran, in one go, through
 * the plog_* functions below (when plog is not NULL). Commands whose effect is
 * the command as typed (DEL, INCR, MSET, RENAME, ...) do nothing: cmd_call logs
 * their arguments when they changed the dataset. Commands flagged CMD_OWN_EFFECT
 * (SET with an expiry, EXPIRE, INCRBYFLOAT, the SP.* writes, ...) log what they
 * did themselves: absolute times, chosen names, resulting values and the full
 * state of a scratchpad entry. Expiry deletions log a DEL / SP.DEL. EXEC wraps
 * its commands in one record (aof.h nesting), so a transaction is atomic.
 *
 * Internal effects (never accepted from clients; only the loader runs them):
 *   _SETSTR key value expire_ms                    a string, value bytes or compressed
 *   _SPENTRY ns name kind version created updated expire_ms offload_seq content
 *   _SPAPPEND ns name version updated content     append to an existing entry
 *   _SPSPLICE ns name version updated off del content   replace bytes of an entry
 *   _SPEXPIREAT ns name expire_ms                 -1 removes the entry's expiry
 *   _SPOFFSEQ ns prefix last                      SP.OFFLOAD's counter of a prefix
 *   _SPSTATE ns last_token last_seq               a scratchpad's counters (rewrites)
 *   _SPLEASE ns resource holder token expire_ms   a lease granted or renewed
 *   _SPUNLEASE ns resource                        a lease released
 *   _SPCHANGE ns seq time op name version size client   one change of the feed
 * (times in ms since the epoch, expire_ms -1 for none; see docs/aof.md).
 *
 * Acknowledgement: every command that logged something records, on its client,
 * the log position its reply depends on (c->aof_need). Once per loop iteration
 * persist_before_replies() writes the buffered records (and with `always`,
 * fdatasyncs them: one fdatasync for every write of the iteration); a client's
 * replies go out only once the log is written up to its aof_need. When the disk
 * says no, those replies wait (the records stay buffered and are retried from
 * the cron), and new writes are refused with -MISCONF until the log is writable
 * again; reads go on.
 *
 * Start-up: persist_start() locks the log directory, replays the log (the port
 * opens only afterwards), cuts a torn tail or refuses a corrupt log, and opens
 * the writer. Rewrite: by default the loop itself writes a new base in short
 * steps between commands (no fork; persist_rewrite.c "the incremental
 * rewrite"), and then switches the log to a new incr file; with
 * aof-rewrite-mode fork, a fork()ed child writes it while the parent appends to
 * a new incr file (aof_manifest.h). */
#ifndef SP_PERSIST_H
#define SP_PERSIST_H

#include <stddef.h>
#include <stdint.h>

#include "aof.h"
#include "cmd/propagate.h"
#include "server.h"

struct sp;
struct sp_entry;
struct lzval;

/* The log's record buffer while the log is open and not loading, else NULL.
 * Write commands never use it: their effects reach the log through
 * cmd/propagate.h, where the log is a sink while plog is set. */
extern aof_buf *plog;

/* ---- the lifecycle ---- */

/* At start-up, before the listeners open: when appendonly is yes, lock dir,
 * replay the log, open the writer. Returns 0, or -1 after logging why (the
 * server must not start: corrupt log, directory in use, I/O error). */
int persist_start(void);
/* At shut-down: stop a rewrite child, write and sync what is buffered, close. */
void persist_stop(void);
/* Once per loop iteration, before replies are written: write the buffered
 * records under the fsync policy. */
void persist_before_replies(void);
/* 1 if a reply that depends on log position `need` may go out. */
static inline int persist_acked(uint64_t need)
{
    extern uint64_t persist_flushed;
    return need <= persist_flushed;
}
/* persist_acked as a function, for the connection layer's hook (net.h). */
int persist_acked_fn(uint64_t need);
/* persist_refusing as a function, for the connection layer's hook (net.h). */
const char *persist_refusing_fn(void);
/* NULL if writes are accepted, else the reason (strerror of the last failure):
 * the caller answers -MISCONF. Refreshed at every flush and cron tick. */
static inline const char *persist_refusing(void)
{
    extern const char *persist_refusing_why;
    return persist_refusing_why;
}
/* Cron: retry a failed flush (releasing held replies), start due fsyncs, reap
 * the rewrite child, start an automatic rewrite when due. */
void persist_cron(void);
/* The incremental rewrite (aof-rewrite-mode incremental): 1 while it scans,
 * when the log's sink asks to hear of the keys a write command names before it
 * runs (cmd/propagate.h): the state of each goes into the new base first, if it
 * is not there yet (and a command without keys, FLUSHDB / FLUSHALL / SWAPDB,
 * starts the rewrite again). */
extern int persist_rewriting;
/* 1 while a rewrite has steps to run on the loop: the loop must not sleep. */
int persist_busy(void);
/* BGREWRITEAOF: 0, or -1 with *err set to the error reply (without '-'). */
int persist_bgrewrite(const char **err);
/* CONFIG SET hooks: appendonly (switching on writes the whole dataset first,
 * through a rewrite) and appendfsync. 0, or -1 with *err. */
int persist_apply_appendonly(const char **err);
int persist_apply_fsync(const char **err);

/* Bytes allocated for the log buffer (INFO memory mem_aof_buffer): it grows to
 * the largest batch of records of an iteration and is given back by the cron
 * once nothing was logged for a second. 0 when the log is off. */
size_t persist_buffer_bytes(void);

/* ---- INFO persistence (the struct is cmd/propagate.h's) ---- */
void persist_get_info(persist_info *pi);

#endif
