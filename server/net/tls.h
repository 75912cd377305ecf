/* tls.h -- TLS for client connections, with OpenSSL, under the connection layer.
 *
 * Why here: net.c reads and writes a client through tls_read / tls_writev when
 * the connection came in on the TLS port (c->tls non-NULL) and through read /
 * writev otherwise; nothing above net/ knows which. There are no bufferevents
 * in the server: OpenSSL works on the client's own descriptor, driven from the
 * same read and write callbacks, non-blocking (docs/architecture.md).
 *
 * Contracts:
 * - The handshake is not a step of its own: the first tls_read calls drive it
 *   (SSL_read does the handshake of a server-side SSL), and the call that
 *   completes it goes on to read the first request if it has arrived.
 * - tls_read and tls_writev return bytes (> 0), 0 when the peer closed, or -1
 *   with errno EAGAIN when OpenSSL waits for the socket (tls_read_wants_write
 *   says whether a read waits for it to become writable), or -1 with another
 *   errno when the connection failed: tls_error then says why, for the log.
 * - Bytes kept inside OpenSSL (decrypted, or records read ahead of the one a
 *   read returned) raise no readable event: the reader asks tls_pending after a
 *   read and reads again while it is not 0, or has the read callback run again.
 * - A write that could not go out is retried by the next tls_writev with the
 *   same bytes at the head (net.c never changes queued bytes that a write has
 *   tried) and at least as many of them: OpenSSL's rule for a retried
 *   SSL_write (the buffer may move: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
 * - tls_configure returns 0, or -1 after logging why. */
#ifndef SP_TLS_H
#define SP_TLS_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef struct tls_conn tls_conn;

/* Build a new server context from the tls-* directives (srv.cfg) and make it
 * the one new connections take; connections already open keep theirs. 0, or
 * -1 after logging why (the previous context, if any, stays). */
int tls_configure(void);
/* 1 once tls_configure has built a context (tls-port is set). */
int tls_has_context(void);
/* Drop the server's reference to the context (at shut-down): connections
 * still open hold theirs until tls_free. */
void tls_cleanup(void);
/* A server-side TLS connection on the accepted descriptor fd, or NULL if there
 * is no context or OpenSSL refuses (logged). The caller keeps owning fd:
 * tls_free does not close it. */
tls_conn *tls_new(int fd);
/* Send close_notify if the session is sound (never waits), then free.
 * tls_free(NULL) does nothing. */
void tls_free(tls_conn *t);
ssize_t tls_read(tls_conn *t, void *buf, size_t len);
ssize_t tls_writev(tls_conn *t, const struct iovec *iov, int n);
/* Bytes waiting inside OpenSSL: decrypted ones, else at most a record's worth
 * (SSL3_RT_MAX_PLAIN_LENGTH) when records were read ahead; 0 if none. */
size_t tls_pending(const tls_conn *t);
/* 1 if the last tls_read returned -1 / EAGAIN waiting for the socket to be
 * writable (the handshake or a key update has bytes to send). */
int tls_read_wants_write(const tls_conn *t);
/* 1 once the handshake is done. */
int tls_established(const tls_conn *t);
/* Why the last call failed (OpenSSL's error text), valid until the next call. */
const char *tls_error(const tls_conn *t);

#endif
