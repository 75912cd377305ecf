/* multi.h -- MULTI/EXEC/DISCARD and WATCH (optimistic locking).
 *
 * Queued commands own copies of their arguments. WATCH keeps, per database, a
 * table from key to the clients watching it; any write to the key (reported by
 * cmd/signal.c through multi_touch_key), its expiry, or a flush/swap of its
 * database marks those clients CLIENT_DIRTY_CAS so that their EXEC answers nil.
 * When no client watches anything, touching a key costs one comparison. */
#ifndef SP_MULTI_H
#define SP_MULTI_H

#include <stddef.h>

#include "server.h"

void multi_init(void);
/* Queue c's current command (reply +QUEUED). */
void multi_queue(client *c, const cmd_def *cmd);
/* Inside MULTI: mark the transaction as failed (EXECABORT at EXEC). */
void multi_flag_error(client *c);
/* 1 if a queued command is flagged denyoom. */
int multi_has_denyoom(const client *c);
/* 1 if a queued command is a write. */
int multi_has_write(const client *c);
/* Abort EXEC with "-EXECABORT Transaction discarded because of: <msg>". */
void multi_exec_abort(client *c, const char *msg);
/* Leave MULTI, dropping the queue (not the watches). */
void multi_discard(client *c);
void multi_unwatch_all(client *c);
/* Non-zero while EXEC runs its queued commands (nothing blocks then). */
extern int multi_exec_depth;
void multi_touch_key(db *d, const char *key, size_t klen);
/* Touch every watched key that exists in d (FLUSHDB), or in a or b (SWAPDB). */
void multi_touch_db(db *d);
void multi_touch_swap(db *a, db *b);

#endif
