/* lazyfree.h -- large values freed in bounded steps from the event loop.
 *
 * Why: freeing a collection of a million elements is a million free() calls,
 * 0.3-0.5 s during which no client is answered. Redis hands such values to a
 * background thread; this server has one thread, so the keyspace detaches a
 * large value from its key at once (DEL, UNLINK, an overwrite, an expiry,
 * RENAME over it, FLUSHDB/FLUSHALL: every road goes through db_free_value) and
 * queues it here, and the loop frees a bounded amount of it per iteration
 * (lazyfree_step) until the queue is empty. The key is gone for every client
 * the moment the command runs; only the memory comes back over the following
 * iterations, and used_memory counts it until it does.
 *
 * Which values: those whose type row has free_some and whose free_effort (about
 * the allocations freeing them takes) is above LAZYFREE_THRESHOLD, as Redis's
 * lazy free decides. One allocation (an intset, a listpack) is freed at once:
 * its cost does not grow with its elements. While the log is replayed at
 * start-up (db_expiry_paused), values are freed at once: no client waits.
 *
 * Order: first queued, first freed. No globals beyond the queue itself. */
#ifndef SP_LAZYFREE_H
#define SP_LAZYFREE_H

#include <stddef.h>
#include <stdint.h>

struct type_def;

#define LAZYFREE_THRESHOLD 64 /* allocations: values costing more are freed in steps */

/* Queue value v (encoding enc) of type t, detached from its entry, to be freed
 * by t->free_some in steps. The queue owns v from now on. */
void lazyfree_push(const struct type_def *t, void *v, uint8_t enc);
/* Free queued values for about budget_us microseconds (in batches of
 * LAZYFREE_BATCH elements, so at least one batch). Returns the values still
 * pending. */
size_t lazyfree_step(int64_t budget_us);
/* Values queued and not yet wholly freed (INFO's lazyfree_pending_objects). */
size_t lazyfree_pending(void);
/* Values wholly freed by the queue since start-up (INFO's lazyfreed_objects). */
unsigned long long lazyfree_freed(void);
/* Free everything queued now (shut-down). */
void lazyfree_drain(void);

#endif
