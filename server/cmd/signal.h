/* signal.h -- "a key changed": the one road every change of the keyspace takes.
 *
 * Why: several things must hear of every change, whoever made it: the dirty
 * counter, WATCH (a transaction watching the key fails), and, as they come,
 * keyspace notifications, clients blocked on the key, client-side caching. A
 * command, an expiry, a flush and a swap each report here, once, and this
 * module tells each of them; a new listener is one line here, not a call added
 * to every command family and to the expiry path.
 *
 * What is not here: the effect of the change (what the log and replicas get)
 * goes through cmd/propagate.h, which the command (or the expiry) calls on its
 * own: a change and its effect are reported together, but one effect (EXEC's
 * record, an SP.DEL of several expired entries) may cover many changes. */
#ifndef SP_SIGNAL_H
#define SP_SIGNAL_H

#include <stddef.h>

#include "keyspace/db.h"

/* A command changed key in d (written, deleted, renamed away or to). */
void signal_key_changed(db *d, const char *key, size_t klen);
/* A command wrote key in d in a way Redis 7.0 does not report as the key
 * modified (a stream's groups, consumers, pending entries or counters): the
 * write counts (dirty: it is logged and saved), WATCH and the key's waiters
 * are not told. */
void signal_key_written(db *d, const char *key, size_t klen);
/* Key in d expired and was deleted (lazily or by the active cycle); its DEL is
 * propagated here too. */
void signal_key_expired(db *d, const char *key, size_t klen);
/* Key was evicted by maxmemory's policy (keyspace/evict.h): WATCH and the log
 * (a DEL) are told, as for an expiry. */
void signal_key_evicted(db *d, const char *key, size_t klen);
/* Every key of d changes at once (FLUSHDB, FLUSHALL: before the flush). */
void signal_db_flushed(db *d);
/* The contents of a and b were exchanged (SWAPDB: after the swap). */
void signal_db_swapped(db *a, db *b);

#endif
