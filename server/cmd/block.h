/* block.h -- clients waiting for keys: the one blocking mechanism of the commands.
 *
 * Why: BLPOP, BRPOP, BRPOPLPUSH, BLMOVE and BLMPOP (lists), BZPOPMIN, BZPOPMAX
 * and BZMPOP (sorted sets), XREAD and XREADGROUP with BLOCK (streams) all wait the same way: for data
 * under one or more keys, with a timeout. A command that finds nothing calls
 * blk_block; this module keeps the client, stops its connection from running
 * more requests (pipelined ones wait in its query buffer), and wakes it:
 *
 * - When a waited key changes to hold a value of the type a client waits for
 *   (signal_key_changed calls blk_key_ready), the key is noted ready; once the
 *   command or EXEC that changed it has ended, blk_handle_ready serves the
 *   ready keys in the order they became ready, and re-runs the command of each
 *   client waiting on a key, first come first served, looking at that key only
 *   (blk_not_serving). A re-run that finds data does what the command
 *   does without blocking (pops, replies, propagates the effect it had: an LPOP,
 *   never a BLPOP, so the log's replay never blocks); one that finds none calls
 *   blk_block again, which leaves the client where it was in line.
 * - When its timeout passes (a libevent timer, ms precision), or CLIENT UNBLOCK
 *   names it: it gets a null array (RESP3 null), or with CLIENT UNBLOCK ERROR
 *   "-UNBLOCKED client unblocked via CLIENT UNBLOCK".
 * - A client that disconnects while blocked is forgotten (blk_client_release).
 *
 * After a wake-up the requests that waited in the client's query buffer run
 * from blk_resume (the loop calls it every iteration, before the log's flush).
 * Inside MULTI/EXEC, and for the log's replay, nothing blocks: blk_block
 * replies as a timeout at once.
 *
 * Timeouts are parsed as Redis parses them (blk_parse_timeout): seconds as a
 * float, 0 for ever. */
#ifndef SP_BLOCK_H
#define SP_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "net/client.h"

/* Parse argv[i] as a timeout in seconds into *deadline (ms since the epoch,
 * 0: no timeout). On error replies Redis's error ("ERR timeout is not a float
 * or out of range", "ERR timeout is negative", "ERR timeout is out of range")
 * and returns -1; else 0. */
int blk_parse_timeout(client *c, int i, int64_t *deadline);

/* c's command found no data under its keys argv[first .. first+nkeys) and
 * wants to wait until deadline (0: no timeout). Inside EXEC or for a client
 * without a connection, replies as a timed-out wait does (a null array) and
 * returns. During a re-run (blk_rerunning), keeps c blocked where it was. The
 * command must have replied nothing. */
void blk_block(client *c, int first, int nkeys, int64_t deadline);
/* Whether a client other than c, blocked on key of c's database, runs a
 * command for which fn(ctx, its command, argc, argv) returns non-zero. */
int blk_waiting_for(const client *c, const char *key, size_t klen,
                    int (*fn)(void *ctx, const cmd_def *cmd, int argc, const sarg *argv), void *ctx);
/* 0 if c may not block now (inside EXEC, the log's replay): the command then
 * answers as its wait would time out; 1 otherwise. */
int blk_can_block(const client *c);
/* 1 while c's command runs again because a key it waits on changed: a key of
 * another type is then not an error (the client keeps waiting, as Redis 7.0's). */
int blk_rerunning(const client *c);
/* During a re-run, the key whose change runs it (klen bytes), else NULL: a
 * command waiting on several keys serves that one (XREAD, as Redis 7.0). */
const char *blk_rerun_key(const client *c, size_t *klen);

/* 1 during a re-run if key (klen bytes) is not the ready key being served: a
 * command waiting on several keys looks only at the key that became ready, as
 * Redis 7.0 serves a client from that key (BLPOP a b, woken by a push to b,
 * pops from b even if a got data meanwhile too). 0 otherwise. */
int blk_not_serving(const client *c, const char *key, size_t klen);
/* cmd_call's question once c's command has run for dur us: 1 if the call
 * ended in a wait (the command blocked, or its re-run found nothing). Such a
 * call is not counted in INFO commandstats: the command is counted once, when
 * its wait ends (served, timed out, or CLIENT UNBLOCK: then also a failed
 * call), with the durations of its runs, as Redis 7.0 counts it. */
int blk_call_waits(client *c, int64_t dur);

/* A key of d changed: note it ready if clients wait on it and it now holds a
 * value of the type one of them waits for (Redis 7.0 signals a key when a
 * list, sorted set, ... is added under it; cheap when nobody waits). Ready
 * keys are served in the order they became ready, each key's clients first
 * come first served. */
void blk_key_ready(db *d, const char *key, size_t klen);
/* Every key of d is about to go (FLUSHDB, FLUSHALL): every waited key of d
 * is ready (a blocked XREADGROUP then learns its stream is gone, as Redis's). */
void blk_db_flushed(db *d);
/* Databases a and b were swapped (SWAPDB): every waited key of either is
 * ready, as in Redis (the clients blocked there see the other contents). */
void blk_db_swapped(db *a, db *b);
/* Non-zero when keys are ready and blk_handle_ready has work. */
extern int blk_ready_pending;
/* Serve the clients waiting on ready keys (after a command or EXEC). */
void blk_handle_ready(void);
/* Run the requests waiting in the query buffers of clients woken since the
 * last call (the loop, once per iteration). */
void blk_resume(void);
/* Have blk_resume run what waits in c's query buffer (a pause ended). */
void blk_resume_later(client *c);

/* CLIENT UNBLOCK: wake c as a timeout (error 0) or with the UNBLOCKED error.
 * 1 if c was blocked, else 0. */
int blk_unblock(client *c, int error);
/* c is being freed: forget it. */
void blk_client_release(client *c);
/* Clients blocked now (INFO blocked_clients). */
long long blk_count(void);

#endif
