/* tracking.h -- client-side caching: CLIENT TRACKING and its invalidations.
 *
 * Why: an agent that caches a teammate's plan must learn at once that it
 * changed. A tracking client's reads are remembered (the keys of every
 * read-only command it runs; with OPTIN only after CLIENT CACHING YES, with
 * OPTOUT unless CLIENT CACHING NO); when one of those keys changes
 * (signal_key_changed, an expiry), the client gets, once, an invalidation:
 * a RESP3 push ["invalidate", [key]], or, redirected (REDIRECT id) to a RESP2
 * client subscribed to something, the message ["message",
 * "__redis__:invalidate", [key]]. In BCAST mode nothing is remembered: every
 * key changed under one of the client's prefixes is sent, the keys of a loop
 * iteration together, sorted, per prefix (tracking_broadcast, called by the
 * loop). A flush sends every tracking client a null invalidation. As in Redis
 * 7.0: keys are remembered by name across databases; the invalidation of a
 * key the client changed itself comes after its reply (NOLOOP: not at all);
 * a client that turns tracking off or goes away is forgotten lazily. */
#ifndef SP_TRACKING_H
#define SP_TRACKING_H

#include <stddef.h>

#include "net/client.h"

/* c ran the read-only command cmd (cmd_call): remember its keys if c tracks. */
void tracking_after_read(client *c, const cmd_def *cmd);
/* A top-level command of c ended: send c the invalidations of keys it changed
 * itself (they wait for its reply), and drop CLIENT CACHING's one-command flag
 * unless the command was a CLIENT subcommand or c is in MULTI. */
void tracking_after_command(client *c, const cmd_def *cmd);
/* key changed (modifier: the client that changed it, NULL for an expiry). */
void tracking_invalidate(const char *key, size_t klen, client *modifier);
/* Every key is gone (FLUSHALL, FLUSHDB): a null invalidation to every
 * tracking client, the table forgotten. */
void tracking_flush(void);
/* Once per loop iteration: send BCAST clients the keys changed under their
 * prefixes. */
void tracking_broadcast(void);
/* c is being freed or RESET: tracking off. */
void tracking_client_release(client *c);
/* INFO stats: keys remembered, (key, client) items, BCAST prefixes. */
void tracking_stats(long long *keys, long long *items, long long *prefixes);

/* CLIENT TRACKING, CACHING, TRACKINGINFO, GETREDIR (cmd_conn.c's rows). */
void client_tracking(client *c);
void client_caching(client *c);
void client_trackinginfo(client *c);
void client_getredir(client *c);

/* Tracking clients now (one test on the hot paths when none). */
extern int tracking_clients;

#endif
