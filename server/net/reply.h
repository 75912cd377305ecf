/* reply.h -- encoding replies into a client's output buffer, in RESP2 or RESP3
 * according to the client's protocol (c->resp).
 *
 * Replies are appended to the client's static buffer and then to a list of
 * blocks; nothing is written to the socket here (net.c writes once per loop
 * iteration). Appending enforces client-output-buffer-limit: past the hard limit,
 * or past the soft limit for longer than its seconds, the client is closed and
 * further replies are dropped. Clients with CLIENT REPLY OFF/SKIP, fake clients
 * and clients being closed get nothing appended.
 *
 * Errors are given with their code: reply_error(c, "ERR syntax error"). */
#ifndef SP_REPLY_H
#define SP_REPLY_H

#include <stddef.h>

#include "net/client.h"

void reply_raw(client *c, const char *p, size_t n);
void reply_ok(client *c);
void reply_status(client *c, const char *s);
void reply_error(client *c, const char *msg);
void reply_errorf(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error reply that INFO errorstats does not count: a script's error that
 * repeats one a command of the script already replied (and counted). */
void reply_error_uncounted(client *c, const char *msg);
void reply_int(client *c, long long v);
void reply_bulk(client *c, const char *p, size_t n);
void reply_bulk_cstr(client *c, const char *s);
void reply_bulk_ll(client *c, long long v);
/* Write a bulk header for n bytes and return where the caller writes them; the
 * trailing CRLF is already in place. NULL if the reply is dropped. */
char *reply_bulk_reserve(client *c, size_t n);
/* A place in c's output (reply_tell), to take back everything appended after
 * it (reply_rollback): for a reply whose bytes are produced in place after
 * reply_bulk_reserve and may fail half-way (a compressed value found corrupt
 * while it is decoded into the output). Valid during one command: the output
 * is not written to the socket while a command runs. */
typedef struct reply_place {
    size_t olen;        /* bytes used in the static buffer */
    size_t olist_bytes; /* bytes in the block list */
    oblock *tail;       /* the last block, NULL if none */
    size_t tail_len;    /* bytes used in it */
} reply_place;
void reply_tell(const client *c, reply_place *pos);
/* Take back every reply byte appended since reply_tell gave pos (blocks added
 * since are freed). Nothing to do for a client whose replies are dropped. */
void reply_rollback(client *c, const reply_place *pos);
void reply_null(client *c);          /* RESP2 $-1, RESP3 _ */
void reply_null_array(client *c);    /* RESP2 *-1, RESP3 _ */
void reply_array(client *c, long n);
void reply_map(client *c, long n);   /* RESP3 %n, RESP2 *2n */
void reply_set(client *c, long n);   /* RESP3 ~n, RESP2 *n */
void reply_push(client *c, long n);  /* RESP3 >n, RESP2 *n */
void reply_double(client *c, double d);
void reply_bool(client *c, int b);   /* RESP3 #t/#f, RESP2 :1/:0 */
/* A verbatim string (RESP3 "=...txt:"), a bulk string in RESP2. */
void reply_verbatim(client *c, const char *p, size_t n);
/* A bulk string of a glued message (for INFO-like text). */
void reply_bulk_fmt(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Deferred aggregate length: reserve a place, emit the elements, then fill it. */
void *reply_defer(client *c);
void reply_defer_array(client *c, void *slot, long n);
void reply_defer_map(client *c, void *slot, long n);
void reply_defer_set(client *c, void *slot, long n);

/* Shared reply bytes, for one message sent to many clients: reply_shared_new
 * copies p[0..n) once (the caller holds one reference, dropped with
 * reply_shared_release); reply_shared appends them to c's output as a block
 * that references them (no copy), subject to the output limits like any
 * reply. oblock_free frees a block, dropping its reference. */
oshared *reply_shared_new(const char *p, size_t n);
void reply_shared(client *c, oshared *s);
void reply_shared_release(oshared *s);
void oblock_free(oblock *b);
/* Written blocks of the standard size wait in a pool (at most 4 MB, counted in
 * used_memory) for the next reply. reply_pool_cron, called once per cron
 * period, frees the blocks that stayed in the pool through the whole period
 * since the previous call; reply_pool_blocks says how many are pooled now. */
void reply_pool_cron(void);
size_t reply_pool_blocks(void);
/* A script's client (CLIENT_SCRIPT): its replies so far as one contiguous
 * buffer of *len bytes, valid until reply_discard, which drops them. */
char *reply_flatten(client *c, size_t *len);
void reply_discard(client *c);

/* Bytes of replies waiting to be written. */
size_t reply_pending(const client *c);
/* Check the output limits now (also run from the cron for the soft limit). */
void reply_check_limits(client *c);

/* Standard errors. */
#define ERR_SYNTAX "ERR syntax error"
#define ERR_NOTINT "ERR value is not an integer or out of range"
#define ERR_NOTFLOAT "ERR value is not a valid float"
/* A write's reply that waited aof-hold-timeout for a failing log: the head and
 * tail around "(<strerror>)". */
#define ERR_AOF_UNLOGGED_HEAD "IOERR the write was applied in memory but is not in the AOF file yet"
#define ERR_AOF_UNLOGGED_TAIL                                                                              \
    ": it is written there when the disk accepts writes again, and lost if the server stops before then"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_NOKEY "ERR no such key"
#define ERR_OVERFLOW "ERR increment or decrement would overflow"
#define ERR_DBINDEX "ERR DB index is out of range"

#endif
