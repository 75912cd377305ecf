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

#include "net/client.h"

/* What the connection layer calls in the layers above it, which it never
 * includes: set once at start-up (main.c), before the listeners open. */
typedef struct net_hooks {
    void (*dispatch)(client *c);                    /* run the request in c->argv */
    void (*release)(client *c);                     /* c is being freed: drop its MULTI state and watches */
    const char *(*cmd_name)(const cmd_def *cmd);    /* "config|get": CLIENT LIST's cmd= */
    void (*note_error)(client *c, const char *msg); /* an error reply went out (INFO errorstats) */
    int (*acked)(uint64_t need);                    /* 1: a reply depending on log position need may go out */
    const char *(*refusing)(void);                  /* why the log refuses writes now (strerror), or NULL */
    void (*client_init)(client *c);                 /* a new client: its user and whether it is authenticated */
    const char *(*user_name)(const client *c);      /* CLIENT LIST's user= */
    int (*default_open)(void);                      /* 1: the default user needs no password (protected mode) */
} net_hooks;
extern net_hooks net_up;
/* Set by net_flush_pending when it holds a client's replies until the log is
 * written (CLIENT_AOF_HELD); net_release_held puts them back. */
extern int net_holding;
/* After the log's flush: send the held replies net_up.acked now allows. */
void net_release_held(void);
/* Clients whose replies are held (INFO persistence aof_held_clients). */
long long net_held_clients(void);

/* Open the TCP listeners (cfg.bind, cfg.port) and the unix socket. 0 / -1. */
int net_listen(void);
/* Close every listener (and unlink the unix socket); drop the TLS context. */
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
/* Cron work on clients: idle timeouts, soft output limits, buffer shrinking,
 * and replies held for the log longer than aof-hold-timeout: each reply of a
 * write not yet logged is replaced by -IOERR (the write is applied in memory,
 * it is logged once the disk takes it, lost if the server stops before), the
 * other replies go out as they are. */
void net_clients_cron(void);
/* 1 if c may run a protected action whose directive (enable-debug-command,
 * enable-protected-configs) is set to `setting` (CFG_PROTECTED_NO / YES /
 * LOCAL, config.h): yes, or local and c came over the unix socket or from
 * 127.0.0.1 or ::1, as Redis 7 decides. The log's replay and scripts' clients
 * are the server's own. */
int client_protected_allowed(const client *c, int setting);
/* Bytes enough for client_describe of c (including the terminating NUL). */
size_t client_describe_cap(const client *c);
/* Describe c as CLIENT LIST does (one line, no newline) into buf; returns the
 * length written (cut to cap - 1). */
size_t client_describe(const client *c, char *buf, size_t cap);
/* The position of the end of c's output: bytes of replies since the
 * connection opened, written or not. */
static inline uint64_t net_out_position(const client *c)
{
    return c->osent_total + (c->olen - c->osent) + c->olist_bytes;
}
/* A write command of c that started its reply at output position `start`
 * (taken before it ran) logged records up to log position `need`: remember
 * where its reply is, so that net_clients_cron can answer it with -IOERR if
 * the log is not written within aof-hold-timeout. Inside EXEC each write of
 * the transaction is noted (EXEC is not a write): its element of EXEC's array
 * is the one replaced. Cheap: consecutive write replies waiting for the same
 * flush share one mark, and the marks are forgotten once the log is written.
 * A read that logged something (the deletion of an expired key) is not noted:
 * its reply goes out as it is when the hold ends. */
void net_note_logged_reply(client *c, uint64_t start, uint64_t need);
/* While a script runs long (script/script.c): net_busy_begin(caller) once,
 * then net_serve_while_busy as often as the script lets it: it serves every
 * client but the caller once (accept, read, run, write) without waiting;
 * net_busy_end when the script ends. Nothing is freed meanwhile (clients
 * marked to close wait for the loop). */
void net_busy_begin(client *caller);
void net_serve_while_busy(void);
void net_busy_end(void);
/* Process whatever requests are complete in c's query buffer. */
void client_process_input(client *c);

#endif
