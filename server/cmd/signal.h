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

/* Keyspace notification classes (notify-keyspace-events): Redis's letters,
 * plus p for the scratchpads' own events. */
#define NOTIFY_KEYSPACE (1 << 0)    /* K: __keyspace@<db>__:<key> gets the event */
#define NOTIFY_KEYEVENT (1 << 1)    /* E: __keyevent@<db>__:<event> gets the key */
#define NOTIFY_GENERIC (1 << 2)     /* g: del, expire, rename_*, copy_to, move_*, persist, ... */
#define NOTIFY_STRING (1 << 3)      /* $ */
#define NOTIFY_LIST (1 << 4)        /* l */
#define NOTIFY_SET (1 << 5)         /* s */
#define NOTIFY_HASH (1 << 6)        /* h */
#define NOTIFY_ZSET (1 << 7)        /* z */
#define NOTIFY_EXPIRED (1 << 8)     /* x: expired */
#define NOTIFY_EVICTED (1 << 9)     /* e: evicted (keyspace/evict.c) */
#define NOTIFY_STREAM (1 << 10)     /* t */
#define NOTIFY_KEY_MISS (1 << 11)   /* m: keymiss (not in A) */
#define NOTIFY_MODULE (1 << 12)     /* d: accepted, no modules here */
#define NOTIFY_NEW (1 << 13)        /* n: new, a key created (not in A) */
#define NOTIFY_SCRATCHPAD (1 << 14) /* p: sp.write, sp.append, ... (not in A) */
#define NOTIFY_ALL                                                                                            \
    (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | \
     NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE) /* A */

/* Keyspace notification: event (Redis's name, "set", "lpush", ...) of class
 * cls happened to key in d. Published on __keyspace@<db>__:<key> (message:
 * the event) if K is configured and on __keyevent@<db>__:<event> (message:
 * the key) if E is, when cls is configured; costs one test otherwise. Called
 * by the command after its change, beside signal_key_changed (a command may
 * fire several events for one change, or one for several). */
void signal_event(db *d, int cls, const char *event, const char *key, size_t klen);
/* A key was created in d (keyspace/db.c's hook): the "new" event. */
void signal_key_new(db *d, const char *key, size_t klen);
/* A read found no key (keyspace/db.c's hook): the "keymiss" event. */
void signal_key_miss(db *d, const char *key, size_t klen);
/* Entries of the value at key expired on their own (keyspace/db.c's hook: a
 * scratchpad's, the "sp.expired" event of class p). */
void signal_entries_expired(db *d, const char *key, size_t klen);
/* notify-keyspace-events: parse Redis's letters (0, or -1 on an unknown
 * letter), and print flags as Redis does (A for the whole of NOTIFY_ALL, then
 * p, then K, E and m) into buf of at least 32 bytes. */
int notify_flags_parse(const char *s, int *flags);
void notify_flags_format(int flags, char *buf);
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
