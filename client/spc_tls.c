/* spc_tls.c -- TLS for the synchronous client: a relay thread per connection.
 *
 * Why a relay: Debian 12's hiredis (0.14) has no TLS (hiredis_ssl came with
 * 1.0) and no hook for its reads and writes, and the library hands its
 * redisContext to callers (spc_redis: the tools and the MCP server call
 * hiredis on it directly). So a TLS connection is made here with OpenSSL, and
 * hiredis gets one end of a socketpair: a thread moves the plain bytes between
 * that pair and the TLS session, both ways, buffering what the other side does
 * not take yet (never blocking one direction on the other, so a long pipeline
 * cannot deadlock). Everything above sees a plain socket: timeouts, closing
 * the descriptor (the thread sees the end of file and closes the session), and
 * a server that closes (the thread closes the pair).
 *
 * Invariants: the thread owns the TLS descriptor, the SSL, its context and
 * its end of the pair, and frees them when either side is done; the caller
 * owns the returned descriptor and joins the thread (spc_tls_close) once it
 * has closed it, so nothing is left running when a context is freed. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spc_internal.h"

typedef struct relay_buf {
    char *p;
    size_t len, cap; /* bytes held, bytes allocated */
} relay_buf;

typedef struct relay {
    SSL_CTX *ctx;
    SSL *ssl;
    int net_fd;     /* the TLS socket */
    int app_fd;     /* our end of the pair */
    relay_buf up;   /* from the application, to the server */
    relay_buf down; /* from the server, to the application */
} relay;

static void ssl_errstr(char *err, size_t cap, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256];

    if (e)
        ERR_error_string_n(e, buf, sizeof(buf));
    else
        snprintf(buf, sizeof(buf), "%s", errno ? strerror(errno) : "connection closed");
    snprintf(err, cap, "TLS %s: %s", what, buf);
    ERR_clear_error();
}

static int buf_add(relay_buf *b, const char *p, size_t n)
{
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap * 2 : 16384;
        char *np;
        while (cap - b->len < n)
            cap *= 2;
        np = realloc(b->p, cap);
        if (!np)
            return -1;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static void buf_drop(relay_buf *b, size_t n)
{
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void relay_free(relay *r)
{
    if (r->ssl)
        SSL_free(r->ssl);
    if (r->ctx)
        SSL_CTX_free(r->ctx);
    if (r->net_fd >= 0)
        close(r->net_fd);
    if (r->app_fd >= 0)
        close(r->app_fd);
    free(r->up.p);
    free(r->down.p);
    free(r);
}

/* The relay's loop. Ends when the application closes its end (a close_notify
 * is sent), or when the server's side ends or fails (what it sent before is
 * still given to the application, then its end is closed). */
static void *relay_main(void *arg)
{
    relay *r = arg;
    char tmp[16384];
    int ssl_wants_write = 0, server_done = 0, app_done = 0;

    while (!app_done && !(server_done && r->down.len == 0)) {
        struct pollfd pf[2];
        int n, timeout = SSL_pending(r->ssl) > 0 ? 0 : -1;

        pf[0].fd = r->app_fd;
        pf[0].events = (short)(POLLIN | (r->down.len ? POLLOUT : 0));
        pf[1].fd = r->net_fd;
        pf[1].events = (short)((server_done ? 0 : POLLIN) | (r->up.len || ssl_wants_write ? POLLOUT : 0));
        pf[0].revents = pf[1].revents = 0;
        n = poll(pf, 2, timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t k = read(r->app_fd, tmp, sizeof(tmp));
            if (k > 0) {
                if (buf_add(&r->up, tmp, (size_t)k) < 0)
                    break;
            } else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
                app_done = 1;
            }
        }
        if (!server_done && (r->up.len || ssl_wants_write) && (pf[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            int w;
            ERR_clear_error();
            w = SSL_write(r->ssl, r->up.p, (int)(r->up.len > 1 << 30 ? 1 << 30 : r->up.len));
            ssl_wants_write = 0;
            if (w > 0)
                buf_drop(&r->up, (size_t)w);
            else if (SSL_get_error(r->ssl, w) == SSL_ERROR_WANT_WRITE ||
                     SSL_get_error(r->ssl, w) == SSL_ERROR_WANT_READ)
                ssl_wants_write = 1;
            else
                server_done = 1;
        }
        while (!server_done && ((pf[1].revents & (POLLIN | POLLHUP | POLLERR)) || SSL_pending(r->ssl) > 0)) {
            int k;
            ERR_clear_error();
            k = SSL_read(r->ssl, tmp, sizeof(tmp));
            if (k > 0) {
                if (buf_add(&r->down, tmp, (size_t)k) < 0)
                    server_done = 1;
                pf[1].revents = 0; /* read again only what OpenSSL holds */
                continue;
            }
            if (SSL_get_error(r->ssl, k) != SSL_ERROR_WANT_READ && SSL_get_error(r->ssl, k) != SSL_ERROR_WANT_WRITE)
                server_done = 1;
            break;
        }
        if (r->down.len) { /* non-blocking: EAGAIN waits for POLLOUT */
            ssize_t k = write(r->app_fd, r->down.p, r->down.len);
            if (k > 0)
                buf_drop(&r->down, (size_t)k);
            else if (k < 0 && errno != EAGAIN && errno != EINTR)
                app_done = 1;
        }
    }
    if (app_done && !server_done)
        SSL_shutdown(r->ssl);
    ERR_clear_error();
    relay_free(r);
    OPENSSL_thread_stop(); /* this thread's error queue and caches */
    return NULL;
}

/* Connect a TCP socket to host:port within timeout_ms (0: the system's). */
static int tcp_connect(const char *host, int port, int timeout_ms, char *err, size_t cap)
{
    struct addrinfo hints, *res = NULL, *ai;
    char portstr[16];
    int fd = -1, rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(portstr, sizeof(portstr), "%d", port);
    rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        snprintf(err, cap, "%s", gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        struct pollfd pf;
        int soerr = 0, one = 1;
        socklen_t sl = sizeof(soerr);

        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0)
            continue;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        if (errno == EINPROGRESS) {
            pf.fd = fd;
            pf.events = POLLOUT;
            if (poll(&pf, 1, timeout_ms > 0 ? timeout_ms : -1) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
                break;
            errno = soerr ? soerr : ETIMEDOUT;
        }
        snprintf(err, cap, "%s", strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* The handshake on the non-blocking fd within timeout_ms (0: no bound). */
static int handshake(SSL *ssl, int fd, int timeout_ms, char *err, size_t cap)
{
    for (;;) {
        struct pollfd pf;
        int r, e;
        ERR_clear_error();
        r = SSL_connect(ssl);
        if (r == 1)
            return 0;
        e = SSL_get_error(ssl, r);
        if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
            long v = SSL_get_verify_result(ssl);
            if (v != X509_V_OK)
                snprintf(err, cap, "TLS handshake: certificate verify failed: %s", X509_verify_cert_error_string(v));
            else
                ssl_errstr(err, cap, "handshake");
            return -1;
        }
        pf.fd = fd;
        pf.events = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        if (poll(&pf, 1, timeout_ms > 0 ? timeout_ms : -1) != 1) {
            snprintf(err, cap, "TLS handshake: timed out");
            return -1;
        }
    }
}

struct spc_tls {
    pthread_t thread;
};

void spc_tls_close(spc_tls *t)
{
    if (!t)
        return;
    pthread_join(t->thread, NULL);
    free(t);
}

spc_tls *spc_tls_open(const char *host, int port, const spc_options *o, int *fd, char *err, size_t cap)
{
    relay *r = calloc(1, sizeof(*r));
    spc_tls *t = malloc(sizeof(*t));
    struct in6_addr a6;
    struct in_addr a4;
    const char *name;
    int pair[2] = {-1, -1};

    if (!r || !t) {
        snprintf(err, cap, "out of memory");
        free(r);
        free(t);
        return NULL;
    }
    r->net_fd = r->app_fd = -1;
    r->ctx = SSL_CTX_new(TLS_client_method());
    if (!r->ctx) {
        ssl_errstr(err, cap, "context");
        goto err;
    }
    SSL_CTX_set_min_proto_version(r->ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(r->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (o->tls_ca_file ? SSL_CTX_load_verify_locations(r->ctx, o->tls_ca_file, NULL) != 1
                       : SSL_CTX_set_default_verify_paths(r->ctx) != 1) {
        ssl_errstr(err, cap, "CA certificates");
        goto err;
    }
    if (o->tls_cert_file && (SSL_CTX_use_certificate_chain_file(r->ctx, o->tls_cert_file) != 1 ||
                             SSL_CTX_use_PrivateKey_file(r->ctx, o->tls_key_file ? o->tls_key_file : o->tls_cert_file,
                                                         SSL_FILETYPE_PEM) != 1)) {
        ssl_errstr(err, cap, "client certificate");
        goto err;
    }
    SSL_CTX_set_verify(r->ctx, o->tls_insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
    r->net_fd = tcp_connect(host, port, o->connect_timeout_ms, err, cap);
    if (r->net_fd < 0)
        goto err;
    r->ssl = SSL_new(r->ctx);
    if (!r->ssl || SSL_set_fd(r->ssl, r->net_fd) != 1) {
        ssl_errstr(err, cap, "connection");
        goto err;
    }
    name = o->tls_server_name ? o->tls_server_name : host;
    if (inet_pton(AF_INET, name, &a4) == 1 || inet_pton(AF_INET6, name, &a6) == 1) {
        if (!o->tls_insecure && X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(r->ssl), name) != 1) {
            ssl_errstr(err, cap, "server address");
            goto err;
        }
    } else {
        SSL_set_tlsext_host_name(r->ssl, name);
        if (!o->tls_insecure && SSL_set1_host(r->ssl, name) != 1) {
            ssl_errstr(err, cap, "server name");
            goto err;
        }
    }
    if (handshake(r->ssl, r->net_fd, o->connect_timeout_ms, err, cap) < 0)
        goto err;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
        snprintf(err, cap, "socketpair: %s", strerror(errno));
        goto err;
    }
    r->app_fd = pair[1];
    fcntl(r->app_fd, F_SETFL, fcntl(r->app_fd, F_GETFL) | O_NONBLOCK);
    if (pthread_create(&t->thread, NULL, relay_main, r) != 0) {
        snprintf(err, cap, "cannot start the TLS thread");
        close(pair[0]);
        goto err;
    }
    *fd = pair[0];
    return t;

err:
    relay_free(r);
    free(t);
    return NULL;
}
