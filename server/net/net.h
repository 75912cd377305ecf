/* net.h -- listeners and client connections on the libevent loop.
 *
 * The connection state machine: a readable socket is read into the client's
 * query buffer; every complete request in it is parsed and run (commands.c);
 * the replies accumulate and the client joins the pending-write list; once per
 * loop iteration net_flush_pending writes each pending client with one writev,
 * arming a write event only when bytes are left over. A client is closed by
 * marking it (client_close_async) and freed by net_free_closed after the
 * callbacks of the iteration have run, never inside its own callback. */
#ifndef SP_NET_H
#define SP_NET_H

#include <stddef.h>

#include "server.h"

/* Open the TCP listeners (cfg.bind, cfg.port) and the unix socket. 0 / -1. */
int net_listen(void);
/* Close every listener (and unlink the unix socket). */
void net_close_listeners(void);

/* Put c on the pending-write list (idempotent). */
void net_mark_pending(client *c);
/* Write every pending client's replies. Called once per loop iteration. */
void net_flush_pending(void);
/* Free the clients marked for closing. */
void net_free_closed(void);

/* Mark c to be freed after the current callbacks, without writing more. */
void client_close_async(client *c);
/* A client not bound to a socket (for replaying commands); free with client_free. */
client *client_new_fake(void);
void client_free(client *c);
/* Log that c passed an output limit. */
void log_client_limit(client *c, const char *which, size_t pending);
/* Cron work on clients: idle timeouts, soft output limits, buffer shrinking. */
void net_clients_cron(void);
/* Bytes enough for client_describe of c (including the terminating NUL). */
size_t client_describe_cap(const client *c);
/* Describe c as CLIENT LIST does (one line, no newline) into buf; returns the
 * length written (cut to cap - 1). */
size_t client_describe(const client *c, char *buf, size_t cap);
/* Process whatever requests are complete in c's query buffer. */
void client_process_input(client *c);

#endif
