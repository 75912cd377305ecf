/* pubsub.h -- channels, patterns and shard channels: who listens, and the
 * delivery of a published message to each listener.
 *
 * Why a module: PUBLISH, SPUBLISH, keyspace notifications (cmd/signal.c) and
 * client-side caching's invalidations all deliver messages the same way; the
 * commands (cmd_pubsub.c) only parse and reply.
 *
 * The tables: one per kind (channels, patterns, shard channels), from a name
 * to its subscribers in subscription order; each client keeps its own table of
 * its subscriptions (c->ps), also in subscription order, and its counts in
 * c->nsub, c->npsub, c->nssub (what CLIENT LIST shows). A client with at least
 * one subscription carries CLIENT_PUBSUB: in RESP2 it may then only send the
 * (un)subscribe family, PING, QUIT and RESET (the dispatcher asks
 * ps_allowed_in_context), and its output is held to the pubsub class of
 * client-output-buffer-limit (net/reply.c).
 *
 * Delivery encodes a message once per publish (and once per matching pattern)
 * and appends those bytes to each receiver's output; a RESP3 receiver gets the
 * same bytes with the push type byte. A message of 16 KB or more for several
 * receivers is not copied into each output: one reference-counted copy per
 * protocol, which every receiver's output references (net/reply.h). A
 * receiver past its output limit is closed by the reply layer; the publisher
 * and the other receivers go on. */
#ifndef SP_PUBSUB_H
#define SP_PUBSUB_H

#include <stddef.h>

#include "net/client.h"

enum { PS_CHANNEL = 0, PS_PATTERN = 1, PS_SHARD = 2 };

/* Subscribe c to name (a channel, a pattern or a shard channel by kind) and
 * reply the confirmation push (Redis's "subscribe"/"psubscribe"/"ssubscribe",
 * the name, c's count). Subscribing twice replies again and changes nothing. */
void ps_subscribe(client *c, int kind, const char *name, size_t len);
/* Unsubscribe c from name and reply the confirmation push (also when c was
 * not subscribed to it). */
void ps_unsubscribe(client *c, int kind, const char *name, size_t len);
/* Unsubscribe c from every name of kind, oldest first; with notify, reply a
 * confirmation push for each (one with a null name if there was none). */
void ps_unsubscribe_all(client *c, int kind, int notify);
/* Deliver msg on channel (PS_CHANNEL: to its subscribers, then to the
 * subscribers of every matching pattern; PS_SHARD: to the shard channel's
 * subscribers). Returns the number of receivers. */
long long ps_publish(int kind, const char *chan, size_t clen, const char *msg, size_t mlen);
/* 1 if a command may run on c in RESP2 subscribed mode. */
int ps_allowed_in_context(const client *c, const cmd_def *cmd);
/* c is being freed or RESET: drop every subscription, without replies. */
void ps_client_release(client *c);

/* 1 as soon as fn returns non-zero for one of c's subscriptions of kind
 * (oldest first), else 0 (ACL: does c still have the right to each?). */
int ps_client_any(const client *c, int kind, int (*fn)(void *ctx, const char *name, size_t len), void *ctx);

/* Counts for PUBSUB NUMPAT and INFO stats. */
long long ps_count(int kind);
/* Subscribers of name (PUBSUB NUMSUB, SHARDNUMSUB). */
long long ps_subscribers(int kind, const char *name, size_t len);
/* Visit the names of kind with at least one subscriber. */
void ps_foreach(int kind, void (*fn)(void *ctx, const char *name, size_t len), void *ctx);

/* 1 if anyone is subscribed to anything of kind PS_CHANNEL or PS_PATTERN
 * (keyspace notifications skip their formatting otherwise). */
int ps_any_listener(void);

#endif
