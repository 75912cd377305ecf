/* tls.c -- TLS for client connections with OpenSSL (see tls.h).
 *
 * One server context (SSL_CTX) built from the tls-* directives; each TLS
 * client holds an SSL on its descriptor. Invariants: a connection holds a
 * reference to the context it started with, so a CONFIG SET that builds a new
 * one never pulls it from under an open connection; after a fatal error
 * (SSL_ERROR_SSL or SSL_ERROR_SYSCALL) nothing more is asked of the SSL but
 * its free (no close_notify on a broken session, OpenSSL's rule). */
#include "net/tls.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "log.h"
#include "server.h"
#include "core/mem.h"

struct tls_conn {
    SSL *ssl;
    int failed;           /* a fatal error: no shutdown, no more I/O */
    int read_wants_write; /* the last tls_read waits for a writable socket */
    char err[256];        /* the last failure, for the log */
};

static SSL_CTX *server_ctx;

/* OpenSSL's queued errors as one line (the oldest first), queue emptied. */
static void take_errors(char *buf, size_t cap)
{
    unsigned long e;
    size_t len = 0;

    buf[0] = '\0';
    while ((e = ERR_get_error()) != 0) {
        if (len + 2 < cap && len > 0) {
            buf[len++] = ' ';
            buf[len] = '\0';
        }
        if (len + 1 < cap) {
            ERR_error_string_n(e, buf + len, cap - len);
            len = strlen(buf);
        }
    }
}

/* tls-protocols: a list of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 words; "" is
 * TLSv1.2 and TLSv1.3. Sets the options that turn off the others; -1 for an
 * unknown word. */
static int set_protocols(SSL_CTX *ctx, const char *list)
{
    static const struct {
        const char *name;
        uint64_t no;
    } protos[] = {{"tlsv1", SSL_OP_NO_TLSv1},
                  {"tlsv1.1", SSL_OP_NO_TLSv1_1},
                  {"tlsv1.2", SSL_OP_NO_TLSv1_2},
                  {"tlsv1.3", SSL_OP_NO_TLSv1_3}};
    uint64_t off = SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_TLSv1_2 | SSL_OP_NO_TLSv1_3;
    char *words[8], buf[256];
    int n, i, j;

    if (!list || !list[0]) {
        SSL_CTX_set_options(ctx, SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1);
        return 0;
    }
    n = cfg_split(list, words, 8, buf, sizeof(buf));
    if (n <= 0)
        return -1;
    for (i = 0; i < n; i++) {
        for (j = 0; j < 4; j++)
            if (strcasecmp(words[i], protos[j].name) == 0)
                break;
        if (j == 4)
            return -1;
        off &= ~protos[j].no;
    }
    SSL_CTX_set_options(ctx, off);
    return 0;
}

int tls_configure(void)
{
    const server_config *cfg = &srv.cfg;
    SSL_CTX *ctx = NULL;
    char err[512];
    int verify;

    ERR_clear_error();
    if (!cfg->tls_cert_file || !cfg->tls_cert_file[0]) {
        log_warning("No tls-cert-file configured!");
        goto err;
    }
    if (!cfg->tls_key_file || !cfg->tls_key_file[0]) {
        log_warning("No tls-key-file configured!");
        goto err;
    }
    if (cfg->tls_auth_clients != 0 && !(cfg->tls_ca_cert_file && cfg->tls_ca_cert_file[0]) &&
        !(cfg->tls_ca_cert_dir && cfg->tls_ca_cert_dir[0])) {
        log_warning("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is enabled!");
        goto err;
    }
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        take_errors(err, sizeof(err));
        log_warning("Failed to create the TLS context: %s", err);
        goto err;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (set_protocols(ctx, cfg->tls_protocols) < 0) {
        log_warning("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and "
                    "'TLSv1.3'.");
        goto err;
    }
    if (cfg->tls_prefer_server_ciphers)
        SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    /* Partial writes report what went out; a retried write may start at
     * another address holding the same bytes (net.c's blocks move when a
     * held reply is answered -IOERR). */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Read ahead: one read() takes what the socket has into OpenSSL's buffer.
     * Without it OpenSSL reads a record's 5-byte header, then its body: two
     * system calls for every request of a client that does not pipeline, a
     * third of the calls a TLS request costs (docs/performance.md). Records
     * read ahead raise no readable event: tls_pending counts them. */
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"scratchpad", 10);
    if (cfg->tls_session_caching) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cfg->tls_session_cache_size);
        SSL_CTX_set_timeout(ctx, cfg->tls_session_cache_timeout);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
        SSL_CTX_set_num_tickets(ctx, 0);
    }
    if (cfg->tls_key_file_pass && cfg->tls_key_file_pass[0])
        SSL_CTX_set_default_passwd_cb_userdata(ctx, cfg->tls_key_file_pass);
    if (SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert_file) <= 0) {
        take_errors(err, sizeof(err));
        log_warning("Failed to load certificate: %s: %s", cfg->tls_cert_file, err);
        goto err;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key_file, SSL_FILETYPE_PEM) <= 0) {
        take_errors(err, sizeof(err));
        log_warning("Failed to load private key: %s: %s", cfg->tls_key_file, err);
        goto err;
    }
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    if (SSL_CTX_check_private_key(ctx) <= 0) {
        take_errors(err, sizeof(err));
        log_warning("Failed to load private key: %s: %s", cfg->tls_key_file, err);
        goto err;
    }
    if (((cfg->tls_ca_cert_file && cfg->tls_ca_cert_file[0]) || (cfg->tls_ca_cert_dir && cfg->tls_ca_cert_dir[0])) &&
        SSL_CTX_load_verify_locations(ctx, cfg->tls_ca_cert_file[0] ? cfg->tls_ca_cert_file : NULL,
                                      cfg->tls_ca_cert_dir[0] ? cfg->tls_ca_cert_dir : NULL) <= 0) {
        take_errors(err, sizeof(err));
        log_warning("Failed to configure CA certificate(s) file/directory: %s", err);
        goto err;
    }
    if (cfg->tls_ciphers && cfg->tls_ciphers[0] && !SSL_CTX_set_cipher_list(ctx, cfg->tls_ciphers)) {
        take_errors(err, sizeof(err));
        log_warning("Failed to configure ciphers: %s", err);
        goto err;
    }
    if (cfg->tls_ciphersuites && cfg->tls_ciphersuites[0] && !SSL_CTX_set_ciphersuites(ctx, cfg->tls_ciphersuites)) {
        take_errors(err, sizeof(err));
        log_warning("Failed to configure ciphersuites: %s", err);
        goto err;
    }
    verify = cfg->tls_auth_clients == 0   ? SSL_VERIFY_NONE
             : cfg->tls_auth_clients == 1 ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                                          : SSL_VERIFY_PEER;
    SSL_CTX_set_verify(ctx, verify, NULL);
    SSL_CTX_free(server_ctx);
    server_ctx = ctx;
    return 0;

err:
    SSL_CTX_free(ctx);
    return -1;
}

int tls_has_context(void)
{
    return server_ctx != NULL;
}

void tls_cleanup(void)
{
    SSL_CTX_free(server_ctx);
    server_ctx = NULL;
}

tls_conn *tls_new(int fd)
{
    tls_conn *t;
    SSL *ssl;

    if (!server_ctx)
        return NULL;
    ssl = SSL_new(server_ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) {
        char err[256];
        take_errors(err, sizeof(err));
        log_warning("Error creating a TLS connection: %s", err);
        SSL_free(ssl);
        return NULL;
    }
    SSL_set_accept_state(ssl);
    t = xcalloc(1, sizeof(*t));
    t->ssl = ssl;
    return t;
}

void tls_free(tls_conn *t)
{
    if (!t)
        return;
    if (!t->failed && SSL_is_init_finished(t->ssl))
        SSL_shutdown(t->ssl); /* one close_notify, no wait for the peer's */
    ERR_clear_error();
    SSL_free(t->ssl);
    xfree(t);
}

/* Empty the thread's error queue before an SSL call, as SSL_get_error needs.
 * ERR_clear_error walks all 16 slots of the queue: checking for an error
 * first costs a TLS request some 600 fewer instructions (the queue is nearly
 * always empty: every failure takes its errors). */
static void clear_errors(void)
{
    if (ERR_peek_error() != 0)
        ERR_clear_error();
}

/* The outcome of an SSL call that returned r <= 0: -1 with errno EAGAIN when
 * OpenSSL waits for the socket, 0 for the peer's orderly close, -1 with errno
 * EIO (or the system's) and t->err set for a failure. */
static ssize_t outcome(tls_conn *t, int r, int reading)
{
    int e = SSL_get_error(t->ssl, r), saved = errno;

    switch (e) {
    case SSL_ERROR_WANT_READ:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_WANT_WRITE:
        if (reading)
            t->read_wants_write = 1;
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        t->failed = 1;
        take_errors(t->err, sizeof(t->err));
        if (!t->err[0])
            snprintf(t->err, sizeof(t->err), "%s", saved ? strerror(saved) : "connection closed");
        errno = saved ? saved : EIO;
        return saved ? -1 : 0;
    default:
        t->failed = 1;
        take_errors(t->err, sizeof(t->err));
        if (!t->err[0])
            snprintf(t->err, sizeof(t->err), "TLS error %d", e);
        errno = EIO;
        return -1;
    }
}

/* One SSL_read: at most one record's bytes. What else OpenSSL holds (the rest
 * of a record longer than len, records read ahead with it) tls_pending sees;
 * a record still in the socket raises the next readable event. */
ssize_t tls_read(tls_conn *t, void *buf, size_t len)
{
    int r;

    t->read_wants_write = 0;
    if (t->failed) {
        errno = EIO;
        return -1;
    }
    clear_errors();
    r = SSL_read(t->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    return r > 0 ? (ssize_t)r : outcome(t, r, 1);
}

ssize_t tls_writev(tls_conn *t, const struct iovec *iov, int n)
{
    size_t total = 0;
    int i;

    if (t->failed) {
        errno = EIO;
        return -1;
    }
    for (i = 0; i < n; i++) {
        size_t off = 0;
        while (off < iov[i].iov_len) {
            size_t left = iov[i].iov_len - off;
            int r;
            clear_errors();
            r = SSL_write(t->ssl, (const char *)iov[i].iov_base + off, left > INT_MAX ? INT_MAX : (int)left);
            if (r > 0) {
                off += (size_t)r;
                total += (size_t)r;
                continue;
            }
            if (total > 0) {
                ERR_clear_error();
                return (ssize_t)total; /* the rest is retried from here */
            }
            r = (int)outcome(t, r, 0);
            if (r == 0) { /* the peer closed while we write */
                errno = EPIPE;
                snprintf(t->err, sizeof(t->err), "connection closed by the peer");
            }
            return -1;
        }
    }
    return (ssize_t)total;
}

size_t tls_pending(const tls_conn *t)
{
    int p;

    if (t->failed)
        return 0;
    p = SSL_pending(t->ssl);
    if (p > 0)
        return (size_t)p;
    /* Records read ahead, not decrypted yet: at most a record's worth. (Only
     * part of a record may be there: reading it then waits for the socket.) */
    return SSL_has_pending(t->ssl) ? SSL3_RT_MAX_PLAIN_LENGTH : 0;
}

int tls_read_wants_write(const tls_conn *t)
{
    return t->read_wants_write;
}

int tls_established(const tls_conn *t)
{
    return SSL_is_init_finished(t->ssl);
}

const char *tls_error(const tls_conn *t)
{
    return t->err[0] ? t->err : "unknown error";
}
