/* net.c -- listeners and client connections (see net.h). */
#include "net/net.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "core/mem.h"
#include "net/reply.h"
#include "net/tls.h"
#include "core/util.h"

#define IOBUF_LEN (16 * 1024)       /* bytes read per call in the common case */
#define QBUF_WHOLE_MAX (4 * 1024 * 1024) /* bytes: a request up to this long gets its whole buffer at once */
#define MAX_ACCEPTS_PER_CALL 1000
#define QBUF_SHRINK_OVER (64 * 1024) /* bytes: an idle query buffer larger than this is shrunk */

/* What a listener accepts (its event's argument). */
enum { LISTEN_TCP, LISTEN_UNIX, LISTEN_TLS };

static void read_cb(evutil_socket_t fd, short what, void *arg);
static void read_again(client *c);
static struct event *accept_resume_ev; /* re-enables accepting after a descriptor shortage */
static void write_cb(evutil_socket_t fd, short what, void *arg);

/* ---- listeners ---- */

static int listen_fd_ready(int fd)
{
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    return evutil_make_socket_nonblocking(fd);
}

/* Protected mode (as Redis 7.0): while the default user needs no password, a
 * TCP client whose address is not 127.0.0.1 or ::1 is told why (when say: on
 * the TLS port there is no session yet to say it through) and disconnected;
 * 1 if fd was refused (and closed). */
static int protected_refuse(int fd, const struct sockaddr_storage *sa, int say)
{
    static const char msg[] =
        "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for "
        "the default user. In this mode connections are only accepted from the loopback interface. If you want to "
        "connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable "
        "protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting "
        "to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from "
        "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just "
        "disable the protected mode by editing the Redis configuration file, and setting the protected mode option "
        "to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart "
        "it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. "
        "NOTE: You only need to do one of the above things in order for the server to start accepting connections "
        "from the outside.\r\n";
    static const uint8_t loop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    ssize_t w;

    if (!srv.cfg.protected_mode || !net_up.default_open || !net_up.default_open())
        return 0;
    if (sa->ss_family == AF_INET && ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_LOOPBACK))
        return 0;
    if (sa->ss_family == AF_INET6 && memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, loop6, 16) == 0)
        return 0;
    if (say) {
        w = write(fd, msg, sizeof(msg) - 1);
        (void)w;
    }
    srv.stat_rejected_conns++;
    close(fd);
    return 1;
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg);

static int add_listener(int fd, int kind)
{
    struct event *ev = event_new(srv.base, fd, EV_READ | EV_PERSIST, accept_cb, (void *)(intptr_t)kind);
    if (!ev || event_add(ev, NULL) < 0)
        return -1;
    srv.listen_ev[srv.nlisten++] = ev;
    return 0;
}

static int listen_tcp(const char *addr, int optional, int portnum, int kind)
{
    struct addrinfo hints, *res = NULL, *ai;
    char port[16];
    int rc, fd = -1;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    snprintf(port, sizeof(port), "%d", portnum);
    if (strcmp(addr, "*") == 0)
        addr = "0.0.0.0";
    rc = getaddrinfo(addr, port, &hints, &res);
    if (rc != 0) {
        log_warning("Could not resolve bind address %s: %s", addr, gai_strerror(rc));
        return optional ? 0 : -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (ai->ai_family == AF_INET6) {
            int one = 1;
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        }
        if (listen_fd_ready(fd) == 0 && bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
            listen(fd, srv.cfg.tcp_backlog) == 0)
            break;
        log_warning("Warning: Could not create server TCP listening socket %s:%d: %s", addr, portnum, strerror(errno));
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return optional ? 0 : -1;
    srv.tcp_fds[srv.tcp_nfds++] = fd;
    return add_listener(fd, kind);
}

/* Listen on every bind address at portnum; kind LISTEN_TCP or LISTEN_TLS. */
static int listen_port(int portnum, int kind)
{
    char *words[16], buf[512];
    int n = cfg_split(srv.cfg.bind, words, 16, buf, sizeof(buf)), i, before = srv.tcp_nfds;

    if (n <= 0) {
        log_warning("bind: no address given");
        return -1;
    }
    for (i = 0; i < n; i++) {
        int optional = words[i][0] == '-';
        if (listen_tcp(words[i] + optional, optional, portnum, kind) < 0)
            return -1;
    }
    if (srv.tcp_nfds == before) {
        log_warning("Failed listening on port %d (%s), aborting.", portnum, kind == LISTEN_TLS ? "tls" : "tcp");
        return -1;
    }
    return 0;
}

int net_listen(void)
{
    srv.unix_fd = -1;
    if (srv.cfg.port > 0 && listen_port(srv.cfg.port, LISTEN_TCP) < 0)
        return -1;
    if (srv.cfg.tls_port > 0) {
        if (tls_configure() < 0) {
            log_warning("Failed to configure TLS. Check logs for more info.");
            return -1;
        }
        if (listen_port(srv.cfg.tls_port, LISTEN_TLS) < 0)
            return -1;
    }
    if (srv.cfg.unixsocket && srv.cfg.unixsocket[0]) {
        struct sockaddr_un sa;
        int fd;
        if (strlen(srv.cfg.unixsocket) >= sizeof(sa.sun_path)) {
            log_warning("unixsocket path too long: %s", srv.cfg.unixsocket);
            return -1;
        }
        memset(&sa, 0, sizeof(sa));
        sa.sun_family = AF_UNIX;
        strcpy(sa.sun_path, srv.cfg.unixsocket);
        unlink(srv.cfg.unixsocket);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || listen_fd_ready(fd) < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            listen(fd, srv.cfg.tcp_backlog) < 0) {
            log_warning("Failed opening Unix socket %s: %s", srv.cfg.unixsocket, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        if (srv.cfg.unixsocketperm)
            chmod(srv.cfg.unixsocket, (mode_t)srv.cfg.unixsocketperm);
        srv.unix_fd = fd;
        if (add_listener(fd, LISTEN_UNIX) < 0)
            return -1;
    }
    if (srv.tcp_nfds == 0 && srv.unix_fd < 0) {
        log_warning("Configured to not listen anywhere, exiting.");
        return -1;
    }
    return 0;
}

void net_close_listeners(void)
{
    int i;
    if (accept_resume_ev) {
        event_free(accept_resume_ev);
        accept_resume_ev = NULL;
    }
    for (i = 0; i < srv.nlisten; i++)
        event_free(srv.listen_ev[i]);
    srv.nlisten = 0;
    for (i = 0; i < srv.tcp_nfds; i++)
        close(srv.tcp_fds[i]);
    srv.tcp_nfds = 0;
    if (srv.unix_fd >= 0) {
        close(srv.unix_fd);
        unlink(srv.cfg.unixsocket);
        srv.unix_fd = -1;
    }
    tls_cleanup(); /* the TLS clients still open hold the context until freed */
}

/* ---- clients ---- */

static void addr_to_str(const struct sockaddr_storage *sa, int is_unix, const char *upath, char *out, size_t cap)
{
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;

    if (is_unix) {
        snprintf(out, cap, "%s:0", upath ? upath : "");
        return;
    }
    if (sa->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
        evutil_inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
        port = ntohs(s->sin_port);
        snprintf(out, cap, "%s:%d", host, port);
    } else if (sa->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
        evutil_inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
        port = ntohs(s->sin6_port);
        snprintf(out, cap, "%s:%d", host, port);
    } else {
        snprintf(out, cap, "?:0");
    }
}

static client *client_alloc(void)
{
    client *c = xcalloc(1, sizeof(*c));
    c->id = ++srv.next_client_id;
    c->fd = -1;
    c->resp = 2;
    c->db = &srv.dbs[0];
    c->dbid = 0;
    c->parser.args_cap = 16;
    c->parser.args = xmalloc(sizeof(resp_arg) * c->parser.args_cap);
    c->ctime = c->last_interaction = now_ms();
    resp_reset(&c->parser);
    if (net_up.client_init)
        net_up.client_init(c);
    else
        c->flags |= CLIENT_AUTHENTICATED;
    return c;
}

client *client_new_fake(void)
{
    client *c = client_alloc();
    c->flags |= CLIENT_FAKE | CLIENT_AUTHENTICATED;
    return c;
}

static void client_link(client *c)
{
    c->next = srv.clients;
    if (srv.clients)
        srv.clients->prev = c;
    srv.clients = c;
    srv.nclients++;
}

static void client_new_conn(int fd, int kind, const struct sockaddr_storage *sa)
{
    struct sockaddr_storage la;
    socklen_t ll = sizeof(la);
    int is_unix = kind == LISTEN_UNIX;
    tls_conn *t = NULL;
    client *c;

    if (kind == LISTEN_TLS && !(t = tls_new(fd))) {
        close(fd);
        return;
    }
    c = client_alloc();
    c->fd = fd;
    c->tls = t;
    if (is_unix)
        c->flags |= CLIENT_UNIX;
    else {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (srv.cfg.tcp_keepalive > 0) {
            int idle = srv.cfg.tcp_keepalive, intvl = idle / 3 ? idle / 3 : 1, cnt = 3;
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
        }
    }
    addr_to_str(sa, is_unix, srv.cfg.unixsocket, c->addr, sizeof(c->addr));
    if (getsockname(fd, (struct sockaddr *)&la, &ll) == 0)
        addr_to_str(&la, is_unix, srv.cfg.unixsocket, c->laddr, sizeof(c->laddr));
    c->rev = event_new(srv.base, fd, EV_READ | EV_PERSIST, read_cb, c);
    c->wev = event_new(srv.base, fd, EV_WRITE | EV_PERSIST, write_cb, c);
    if (!c->rev || !c->wev || event_add(c->rev, NULL) < 0) {
        log_warning("Error registering fd event for the new client: %s", strerror(errno));
        client_link(c);
        client_close_async(c);
        return;
    }
    client_link(c);
    srv.stat_conns++;
}

static void accept_resume_cb(evutil_socket_t fd, short what, void *arg)
{
    int i;
    (void)fd;
    (void)what;
    (void)arg;
    for (i = 0; i < srv.nlisten; i++)
        event_add(srv.listen_ev[i], NULL);
}

/* Out of descriptors: stop accepting for 100 ms instead of spinning on a
 * listener that stays readable, and say so at most once a second. */
static void accept_backoff(void)
{
    static int64_t last_log;
    struct timeval tv = {0, 100000};
    int64_t now = now_ms();
    int i;

    if (now - last_log >= 1000) {
        log_warning("Accepting client connection: %s (pausing accepts for 100 ms)", strerror(errno));
        last_log = now;
    }
    for (i = 0; i < srv.nlisten; i++)
        event_del(srv.listen_ev[i]);
    if (!accept_resume_ev)
        accept_resume_ev = evtimer_new(srv.base, accept_resume_cb, NULL);
    evtimer_add(accept_resume_ev, &tv);
}

static void accept_cb(evutil_socket_t lfd, short what, void *arg)
{
    int kind = (int)(intptr_t)arg, i;
    (void)what;

    for (i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof(sa);
        int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                accept_backoff();
            else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                log_warning("Accepting client connection: %s", strerror(errno));
            return;
        }
        if (srv.nclients >= srv.cfg.maxclients) {
            static const char msg[] = "-ERR max number of clients reached\r\n";
            if (kind != LISTEN_TLS) { /* no session yet to say it through */
                ssize_t w = write(fd, msg, sizeof(msg) - 1);
                (void)w;
            }
            srv.stat_rejected_conns++;
            close(fd);
            continue;
        }
        if (kind != LISTEN_UNIX && protected_refuse(fd, &sa, kind == LISTEN_TCP))
            continue;
        client_new_conn(fd, kind, &sa);
    }
}

void client_close_async(client *c)
{
    if (c->flags & CLIENT_CLOSE_ASAP)
        return;
    c->flags |= CLIENT_CLOSE_ASAP;
    if (srv.nto_free == srv.cap_free) {
        srv.cap_free = srv.cap_free ? srv.cap_free * 2 : 16;
        srv.to_free = xrealloc(srv.to_free, sizeof(client *) * (size_t)srv.cap_free);
    }
    srv.to_free[srv.nto_free++] = c;
}

static void free_blocks(client *c)
{
    oblock *b = c->ohead;
    while (b) {
        oblock *n = b->next;
        oblock_free(b);
        b = n;
    }
    c->ohead = c->otail = NULL;
    c->olist_bytes = 0;
    c->ohead_sent = 0;
}

void client_free(client *c)
{
    int i;

    if (srv.current == c)
        srv.current = NULL;
    if (net_up.release)
        net_up.release(c);
    if (c->flags & CLIENT_PENDING_WRITE) {
        client **pp = &srv.pending_writes;
        while (*pp && *pp != c)
            pp = &(*pp)->pw_next;
        if (*pp)
            *pp = c->pw_next;
    }
    if (c->rev)
        event_free(c->rev);
    if (c->wev)
        event_free(c->wev);
    tls_free(c->tls);
    if (c->fd >= 0)
        close(c->fd);
    if (!(c->flags & CLIENT_FAKE) || c->prev || c->next || srv.clients == c) {
        if (c->prev)
            c->prev->next = c->next;
        else if (srv.clients == c)
            srv.clients = c->next;
        if (c->next)
            c->next->prev = c->prev;
        if (!(c->flags & CLIENT_FAKE))
            srv.nclients--;
    }
    for (i = 0; i < srv.nto_free; i++)
        if (srv.to_free[i] == c)
            srv.to_free[i] = NULL;
    free_blocks(c);
    xfree(c->omarks);
    xfree(c->qbuf);
    xfree(c->parser.args);
    xfree(c->argv);
    xfree(c->name);
    xfree(c->lib_name);
    xfree(c->lib_ver);
    xfree(c);
}

void net_free_closed(void)
{
    while (srv.nto_free > 0) {
        client *c = srv.to_free[--srv.nto_free];
        if (c)
            client_free(c);
    }
}

void log_client_limit(client *c, const char *which, size_t pending)
{
    char desc[1024];
    client_describe(c, desc, sizeof(desc));
    log_warning("Client %s scheduled to be closed ASAP for overcoming of output buffer limits (%s limit, %zu bytes).",
                desc, which, pending);
}

/* ---- input ---- */

static void grow_args(client *c)
{
    size_t want = c->parser.argc_want;
    size_t cap = c->parser.args_cap * 2;
    if (cap < want)
        cap = want;
    c->parser.args = xrealloc(c->parser.args, sizeof(resp_arg) * cap);
    c->parser.args_cap = cap;
}

/* The request of `consumed` bytes at c->qpos was postponed (CLIENT PAUSE): put
 * it back as it came so that it parses again. A multibulk request had the
 * '\r' after each argument replaced by a NUL: it is restored. An inline one may
 * have been rewritten in place (quotes): it is replaced by its multibulk form. */
static void requeue_request(client *c, size_t consumed)
{
    size_t i, need, rest;
    char *nb, *p;

    if (c->qbuf[c->qpos] == '*') {
        for (i = 0; i < (size_t)c->argc; i++)
            c->argv[i].p[c->argv[i].len] = '\r';
        return;
    }
    need = 32;
    for (i = 0; i < (size_t)c->argc; i++)
        need += c->argv[i].len + 32;
    rest = c->qlen - c->qpos - consumed;
    nb = xmalloc(need + rest + 1);
    p = nb + sprintf(nb, "*%d\r\n", c->argc);
    for (i = 0; i < (size_t)c->argc; i++) {
        p += sprintf(p, "$%zu\r\n", c->argv[i].len);
        memcpy(p, c->argv[i].p, c->argv[i].len);
        p += c->argv[i].len;
        *p++ = '\r';
        *p++ = '\n';
    }
    memcpy(p, c->qbuf + c->qpos + consumed, rest);
    p += rest;
    xfree(c->qbuf);
    c->qbuf = nb;
    c->qcap = need + rest;
    c->qlen = (size_t)(p - nb);
    c->qpos = 0;
}

void client_process_input(client *c)
{
    /* One clock reading per batch: every command of a pipeline sees the same
     * instant for expiry decisions (reading the clock per command cost more than
     * a GET). */
    db_now = now_ms();
    while (c->qpos < c->qlen &&
           !(c->flags & (CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY | CLIENT_BLOCKED | CLIENT_POSTPONED))) {
        size_t consumed = 0, i;
        resp_status st;

        c->parser.unauth = !(c->flags & CLIENT_AUTHENTICATED);
        c->parser.max_bulk = srv.cfg.proto_max_bulk_len;
        c->parser.max_args = 1024 * 1024;
        st = resp_parse(&c->parser, c->qbuf + c->qpos, c->qlen - c->qpos, &consumed);
        if (st == RESP_NEED_ARGS) {
            grow_args(c);
            continue;
        }
        if (st == RESP_INCOMPLETE)
            break;
        if (st == RESP_ERR) {
            char desc[512];
            srv.stat_proto_errors++;
            reply_errorf(c, "ERR Protocol error: %s", c->parser.err);
            client_describe(c, desc, sizeof(desc));
            log_verbose("Protocol error (%s) from client: %s", c->parser.err, desc);
            c->flags |= CLIENT_CLOSE_AFTER_REPLY;
            c->qpos = c->qlen;
            break;
        }
        if (c->parser.argc > 0) {
            if (c->argv_cap < c->parser.argc) {
                c->argv_cap = c->parser.argc < 16 ? 16 : c->parser.argc;
                xfree(c->argv);
                c->argv = xmalloc(sizeof(sarg) * c->argv_cap);
            }
            for (i = 0; i < c->parser.argc; i++) {
                c->argv[i].p = c->qbuf + c->qpos + c->parser.args[i].off;
                c->argv[i].len = c->parser.args[i].len;
                c->argv[i].p[c->argv[i].len] = '\0';
            }
            c->argc = (int)c->parser.argc;
            net_up.dispatch(c);
            if (c->flags & CLIENT_POSTPONED) {
                requeue_request(c, consumed); /* parsed again when the pause ends */
                c->argc = 0;
                break;
            }
            c->argc = 0;
        }
        c->qpos += consumed;
    }
    if (c->qpos == c->qlen) {
        c->qpos = c->qlen = 0;
    } else if (c->qpos > 0) {
        memmove(c->qbuf, c->qbuf + c->qpos, c->qlen - c->qpos);
        c->qlen -= c->qpos;
        c->qpos = 0;
    }
    /* A buffer grown for a big request goes as soon as it is empty (the cron
     * would take it later, but 200 agents' tool outputs held meanwhile are tens
     * of MB); the next big request allocates its own at its announced length. */
    if (c->qlen == 0 && c->qcap > QBUF_SHRINK_OVER) {
        xfree(c->qbuf);
        c->qbuf = NULL;
        c->qcap = 0;
    }
}

/* Make room for len more bytes in c's query buffer (+1 for a NUL). */
static void qbuf_room(client *c, size_t len)
{
    size_t cap;

    if (c->qcap - c->qlen >= len)
        return;
    cap = c->qlen + len;
    if (cap < 2 * c->qcap && c->qcap < 1024 * 1024)
        cap = 2 * c->qcap;
    c->qbuf = xrealloc(c->qbuf, cap + 1);
    c->qcap = cap;
}

/* A read failed: say why at verbose level, as Redis does (a TLS handshake
 * that fails, a plain client on the TLS port among them). */
static void log_read_error(client *c)
{
    if (!c->tls)
        log_verbose("Reading from client: %s", strerror(errno));
    else if (!tls_established(c->tls))
        log_verbose("Error accepting a client connection: %s (addr=%s laddr=%s)", tls_error(c->tls), c->addr, c->laddr);
    else
        log_verbose("Error reading from client: %s", tls_error(c->tls));
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    client *c = arg;
    size_t readlen = IOBUF_LEN, more;
    ssize_t n, got;
    (void)what;

    if (c->flags & CLIENT_CLOSE_ASAP)
        return;
    /* A big bulk argument in progress: read towards its end. Up to
     * QBUF_WHOLE_MAX the buffer takes the announced length at once (a tool
     * output of a few hundred KB then costs one allocation and no copy of what
     * arrived, instead of a copy at every doubling: 4 % of the server's time on
     * agent-mix); past it the buffer grows no faster than the bytes actually
     * arrive (doubling), so a client that announces 500 MB and sends nothing
     * costs nothing. */
    if (c->parser.need > c->qlen && c->parser.need - c->qlen > readlen) {
        size_t want = c->parser.need - c->qlen;
        size_t step = c->qlen > readlen ? c->qlen : readlen;
        readlen = c->parser.need <= QBUF_WHOLE_MAX || want < step ? want : step;
    }
    qbuf_room(c, readlen);
    /* Fill the room the buffer already has: a pipeline of 4 KB SETs (66 KB
     * per batch of 16) then takes 4 reads instead of 5, as Redis's. */
    if (!c->tls && c->qcap - c->qlen > readlen)
        readlen = c->qcap - c->qlen;
    n = c->tls ? tls_read(c->tls, c->qbuf + c->qlen, readlen) : read(fd, c->qbuf + c->qlen, readlen);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (c->tls && tls_read_wants_write(c->tls) && !(c->flags & CLIENT_PROTECTED_WRITE)) {
                event_add(c->wev, NULL); /* write_cb reads again */
                c->flags |= CLIENT_PROTECTED_WRITE;
            }
            return;
        }
        if (n < 0)
            log_read_error(c);
        client_close_async(c);
        return;
    }
    c->qlen += (size_t)n;
    got = n;
    /* Bytes OpenSSL holds (the rest of a record, records read ahead) raise no
     * event: take up to readlen of them now, and have this callback run again
     * for the rest, so that one client's long pipeline waits its turn. */
    while (c->tls && (more = tls_pending(c->tls)) > 0 && (long long)c->qlen <= srv.cfg.client_query_buffer_limit) {
        if ((size_t)got >= readlen) {
            read_again(c);
            break;
        }
        if (more > readlen - (size_t)got)
            more = readlen - (size_t)got;
        qbuf_room(c, more);
        n = tls_read(c->tls, c->qbuf + c->qlen, more);
        if (n <= 0)
            break; /* a failure shows again at the next read; EAGAIN: a part of a record, the rest raises an event */
        c->qlen += (size_t)n;
        got += n;
    }
    srv.stat_net_in += got;
    c->last_interaction = now_ms();
    if ((long long)c->qlen > srv.cfg.client_query_buffer_limit) {
        char desc[512];
        client_describe(c, desc, sizeof(desc));
        log_warning("Closing client that reached max query buffer length: %s", desc);
        client_close_async(c);
        return;
    }
    c->flags |= CLIENT_EXECUTING;
    client_process_input(c);
    c->flags &= ~CLIENT_EXECUTING;
}

/* ---- output ---- */

void net_mark_pending(client *c)
{
    if (c->flags & (CLIENT_PENDING_WRITE | CLIENT_FAKE))
        return;
    c->flags |= CLIENT_PENDING_WRITE;
    c->pw_next = srv.pending_writes;
    srv.pending_writes = c;
}

/* Write as much as the socket takes with one writev. 0 if all written or more
 * remains, -1 if the connection failed (the client is then marked to close). */
static int client_write(client *c)
{
    struct iovec iov[64];
    int n = 0;
    oblock *b;
    ssize_t w;
    size_t left;

    if (c->olen > c->osent) {
        iov[n].iov_base = c->obuf + c->osent;
        iov[n].iov_len = c->olen - c->osent;
        n++;
    }
    for (b = c->ohead; b && n < 64; b = b->next) {
        size_t off = b == c->ohead ? c->ohead_sent : 0;
        if (b->len > off) {
            iov[n].iov_base = (char *)oblock_data(b) + off;
            iov[n].iov_len = b->len - off;
            n++;
        }
    }
    if (n == 0)
        return 0;
    /* One piece (every unpipelined reply) goes by write: the kernel's writev
     * copies and checks the iovec array first. */
    if (c->tls)
        w = tls_writev(c->tls, iov, n);
    else if (n == 1)
        w = write(c->fd, iov[0].iov_base, iov[0].iov_len);
    else
        w = writev(c->fd, iov, n);
    if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        log_verbose("Error writing to client: %s", c->tls ? tls_error(c->tls) : strerror(errno));
        client_close_async(c);
        return -1;
    }
    srv.stat_net_out += w;
    c->osent_total += (uint64_t)w;
    left = (size_t)w;
    if (c->olen > c->osent) {
        size_t k = c->olen - c->osent;
        if (left >= k) {
            left -= k;
            c->olen = c->osent = 0;
        } else {
            c->osent += left;
            left = 0;
        }
    }
    while (left > 0 && c->ohead) {
        oblock *h = c->ohead;
        size_t k = h->len - c->ohead_sent;
        if (left >= k) {
            left -= k;
            c->olist_bytes -= h->len;
            c->ohead = h->next;
            if (!c->ohead)
                c->otail = NULL;
            c->ohead_sent = 0;
            oblock_free(h);
        } else {
            c->ohead_sent += left;
            left = 0;
        }
    }
    /* Drop fully-sent empty blocks at the head. */
    while (c->ohead && c->ohead->len == c->ohead_sent && c->ohead->cap != 0) {
        oblock *h = c->ohead;
        c->olist_bytes -= h->len;
        c->ohead = h->next;
        if (!c->ohead)
            c->otail = NULL;
        c->ohead_sent = 0;
        oblock_free(h);
    }
    if (c->olen == c->osent)
        c->olen = c->osent = 0;
    return 0;
}

static void after_write(client *c)
{
    if (c->flags & CLIENT_CLOSE_ASAP)
        return;
    if (reply_pending(c) == 0) {
        if ((c->flags & CLIENT_PROTECTED_WRITE) && !(c->tls && tls_read_wants_write(c->tls))) {
            event_del(c->wev);
            c->flags &= ~CLIENT_PROTECTED_WRITE;
        }
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY)
            client_close_async(c);
        return;
    }
    if (!(c->flags & CLIENT_PROTECTED_WRITE)) {
        event_add(c->wev, NULL);
        c->flags |= CLIENT_PROTECTED_WRITE;
    }
}

static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    client *c = arg;
    (void)fd;
    (void)what;
    if (c->flags & CLIENT_CLOSE_ASAP)
        return;
    if (c->tls && tls_read_wants_write(c->tls)) {
        /* A TLS read waited for the socket to take bytes (the handshake, a
         * key update): read again, then write what is pending. */
        read_cb(fd, EV_READ, c);
        if ((c->flags & CLIENT_CLOSE_ASAP) || tls_read_wants_write(c->tls))
            return;
        if (reply_pending(c) == 0) {
            event_del(c->wev);
            c->flags &= ~CLIENT_PROTECTED_WRITE;
            return;
        }
    }
    if (!net_up.acked(c->aof_need)) {
        /* Replies to writes not yet logged: net_flush_pending sends them after
         * the iteration's log flush. */
        event_del(c->wev);
        c->flags &= ~CLIENT_PROTECTED_WRITE;
        net_mark_pending(c);
        return;
    }
    if (client_write(c) == 0)
        after_write(c);
}

net_hooks net_up;
int net_holding;

void net_release_held(void)
{
    client *c;

    net_holding = 0;
    for (c = srv.clients; c; c = c->next)
        if (c->flags & CLIENT_AOF_HELD) {
            if (net_up.acked(c->aof_need)) {
                c->flags &= ~CLIENT_AOF_HELD;
                net_mark_pending(c);
            } else {
                net_holding = 1;
            }
        }
}

long long net_held_clients(void)
{
    long long n = 0;
    client *c;

    for (c = srv.clients; c; c = c->next)
        n += (c->flags & CLIENT_AOF_HELD) != 0;
    return n;
}

void net_flush_pending(void)
{
    while (srv.pending_writes) {
        client *c = srv.pending_writes;
        srv.pending_writes = c->pw_next;
        c->pw_next = NULL;
        c->flags &= ~CLIENT_PENDING_WRITE;
        if (c->flags & CLIENT_CLOSE_ASAP)
            continue;
        if (c->flags & CLIENT_PROTECTED_WRITE)
            continue; /* the write event will carry on */
        if (!net_up.acked(c->aof_need)) {
            if (!(c->flags & CLIENT_AOF_HELD))
                c->held_since = now_ms();
            c->flags |= CLIENT_AOF_HELD; /* released by net_release_held once the log is written */
            net_holding = 1;
            continue;
        }
        if (client_write(c) == 0)
            after_write(c);
    }
}

/* ---- replies of writes the log has not taken ---- */

void net_note_logged_reply(client *c, uint64_t start, uint64_t need)
{
    uint64_t end = net_out_position(c);
    omark *m;

    if (end == start)
        return; /* no reply (CLIENT REPLY OFF, a fake client): nothing to answer */
    if (c->nomarks > 0 && net_up.acked(c->omarks[c->nomarks - 1].need))
        c->nomarks = 0; /* the positions only grow: every mark is logged */
    if (c->nomarks > 0) {
        /* Records not written yet are written by one flush, all or none, so
         * adjacent replies waiting for it share a mark. */
        m = &c->omarks[c->nomarks - 1];
        if (m->end == start) {
            m->end = end;
            m->need = need;
            m->count++;
            return;
        }
    }
    if (c->nomarks == c->omarks_cap) {
        c->omarks_cap = c->omarks_cap ? c->omarks_cap * 2 : 4;
        c->omarks = xrealloc(c->omarks, (size_t)c->omarks_cap * sizeof(*c->omarks));
    }
    m = &c->omarks[c->nomarks++];
    m->start = start;
    m->end = end;
    m->need = need;
    m->count = 1;
}

/* Copy the unsent bytes of c's output at stream positions [from, to) into dst. */
static void copy_out(const client *c, uint64_t from, uint64_t to, char *dst)
{
    uint64_t pos = c->osent_total;
    const oblock *b;
    size_t n;

    n = c->olen - c->osent;
    if (n > 0) {
        if (from < pos + n && to > pos) {
            uint64_t a = from > pos ? from : pos, z = to < pos + n ? to : pos + n;
            memcpy(dst + (a - from), c->obuf + c->osent + (a - pos), (size_t)(z - a));
        }
        pos += n;
    }
    for (b = c->ohead; b; b = b->next) {
        size_t off = b == c->ohead ? c->ohead_sent : 0;
        n = b->len - off;
        if (from < pos + n && to > pos) {
            uint64_t a = from > pos ? from : pos, z = to < pos + n ? to : pos + n;
            memcpy(dst + (a - from), oblock_data(b) + off + (a - pos), (size_t)(z - a));
        }
        pos += n;
    }
}

/* c's replies waited for the log longer than aof-hold-timeout: rebuild its
 * unsent output with each reply of a write not yet logged replaced by the
 * -IOERR error, and let it go out. Only unsent bytes are touched: nothing of
 * c's output is written while a mark waits (its aof_need is past the log). */
static void answer_unlogged(client *c)
{
    char err[512];
    const char *why = net_up.refusing ? net_up.refusing() : NULL;
    uint64_t from = c->osent_total, to = net_out_position(c), prev = from;
    size_t elen, cap = 0, len = 0;
    uint64_t k, replaced = 0;
    oblock *b;
    char *old;
    int i;

    elen = (size_t)snprintf(err, sizeof(err), "-%s (%s)%s\r\n", ERR_AOF_UNLOGGED_HEAD,
                            why ? why : "the write has not completed", ERR_AOF_UNLOGGED_TAIL);
    if (elen >= sizeof(err))
        elen = sizeof(err) - 1;
    for (i = 0; i < c->nomarks; i++)
        if (!net_up.acked(c->omarks[i].need) && c->omarks[i].start >= from)
            cap += elen * c->omarks[i].count;
    cap += (size_t)(to - from);
    old = xmalloc((size_t)(to - from) + 1);
    copy_out(c, from, to, old);
    b = xmalloc(sizeof(oblock) + cap);
    b->shared = NULL;
    for (i = 0; i < c->nomarks; i++) {
        omark *m = &c->omarks[i];
        if (net_up.acked(m->need) || m->start < from)
            continue;
        memcpy(b->buf + len, old + (prev - from), (size_t)(m->start - prev));
        len += (size_t)(m->start - prev);
        for (k = 0; k < m->count; k++) {
            memcpy(b->buf + len, err, elen);
            len += elen;
        }
        replaced += m->count;
        prev = m->end;
    }
    memcpy(b->buf + len, old + (prev - from), (size_t)(to - prev));
    len += (size_t)(to - prev);
    xfree(old);

    free_blocks(c);
    c->olen = c->osent = 0;
    b->next = NULL;
    b->len = b->cap = len;
    c->ohead = c->otail = b;
    c->olist_bytes = len;
    c->nomarks = 0;
    c->aof_need = 0;
    c->flags &= ~CLIENT_AOF_HELD;
    srv.stat_aof_unlogged_replies += (long long)replaced;
    log_warning("A client's replies waited %d ms for the log: %llu write(s) answered -IOERR "
                "(applied in memory, not logged yet)",
                srv.cfg.aof_hold_timeout, (unsigned long long)replaced);
    net_mark_pending(c);
}

/* ---- cron and introspection ---- */

void net_clients_cron(void)
{
    int64_t now = now_ms();
    client *c;

    for (c = srv.clients; c; c = c->next) {
        if (c->flags & CLIENT_CLOSE_ASAP)
            continue;
        if (srv.cfg.timeout > 0 && !(c->flags & (CLIENT_FAKE | CLIENT_BLOCKED | CLIENT_POSTPONED)) &&
            now - c->last_interaction > (int64_t)srv.cfg.timeout * 1000 && reply_pending(c) == 0) {
            log_verbose("Closing idle client");
            client_close_async(c);
            continue;
        }
        if ((c->flags & CLIENT_AOF_HELD) && srv.cfg.aof_hold_timeout > 0 &&
            now - c->held_since >= srv.cfg.aof_hold_timeout && !net_up.acked(c->aof_need))
            answer_unlogged(c);
        if (c->nomarks == 0 && c->omarks_cap > 64) {
            xfree(c->omarks); /* a long pipeline of writes grew it */
            c->omarks = NULL;
            c->omarks_cap = 0;
        }
        if (c->soft_limit_since)
            reply_check_limits(c);
        if (c->qlen == 0 && c->qcap > QBUF_SHRINK_OVER && !(c->flags & CLIENT_EXECUTING)) {
            xfree(c->qbuf);
            c->qbuf = NULL;
            c->qcap = 0;
        }
    }
    reply_pool_cron();
}

int client_protected_allowed(const client *c, int setting)
{
    const char *colon;
    size_t hl;

    if (setting == CFG_PROTECTED_YES || (c->flags & (CLIENT_FAKE | CLIENT_SCRIPT)))
        return 1;
    if (setting != CFG_PROTECTED_LOCAL)
        return 0;
    if (c->flags & CLIENT_UNIX)
        return 1;
    colon = strrchr(c->addr, ':');
    hl = colon ? (size_t)(colon - c->addr) : strlen(c->addr);
    return (hl == 9 && memcmp(c->addr, "127.0.0.1", 9) == 0) || (hl == 3 && memcmp(c->addr, "::1", 3) == 0);
}

size_t client_describe_cap(const client *c)
{
    return 1024 + (c->name ? strlen(c->name) : 0) + (c->lib_name ? strlen(c->lib_name) : 0) +
           (c->lib_ver ? strlen(c->lib_ver) : 0);
}

size_t client_describe(const client *c, char *buf, size_t cap)
{
    char flags[16];
    size_t f = 0;
    int64_t now = now_ms();
    int n;
    const char *cmdname = c->lastcmd ? net_up.cmd_name(c->lastcmd) : "NULL";

    if (c->flags & CLIENT_MONITOR)
        flags[f++] = 'O';
    if (c->flags & CLIENT_PUBSUB)
        flags[f++] = 'P';
    if (c->flags & CLIENT_MULTI)
        flags[f++] = 'x';
    if (c->flags & (CLIENT_BLOCKED | CLIENT_POSTPONED))
        flags[f++] = 'b';
    if (c->flags & CLIENT_TRACKING)
        flags[f++] = 't';
    if (c->flags & CLIENT_TRACKING_BROKEN)
        flags[f++] = 'R';
    if (c->flags & CLIENT_TRACKING_BCAST)
        flags[f++] = 'B';
    if (c->flags & CLIENT_DIRTY_CAS)
        flags[f++] = 'd';
    if (c->flags & CLIENT_CLOSE_ASAP)
        flags[f++] = 'A';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY)
        flags[f++] = 'c';
    if (c->flags & CLIENT_UNIX)
        flags[f++] = 'U';
    if (c->flags & CLIENT_NO_EVICT)
        flags[f++] = 'e';
    if (f == 0)
        flags[f++] = 'N';
    flags[f] = '\0';
    n = snprintf(buf, cap,
                 "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%d psub=%d ssub=%d "
                 "multi=%d qbuf=%zu qbuf-free=%zu argv-mem=%zu multi-mem=0 rbs=%zu rbp=%zu obl=%zu oll=%zu "
                 "omem=%zu tot-mem=%zu events=%s%s cmd=%s user=%s redir=%lld resp=%d lib-name=%s lib-ver=%s",
                 (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? c->name : "",
                 (long long)(now - c->ctime) / 1000, (long long)(now - c->last_interaction) / 1000, flags, c->dbid,
                 c->nsub, c->npsub, c->nssub, (c->flags & CLIENT_MULTI) ? c->mcount : -1, c->qlen - c->qpos,
                 c->qcap - c->qlen, (size_t)0, c->qcap, c->qlen, c->olen - c->osent, (size_t)0, c->olist_bytes,
                 sizeof(*c) + c->qcap + c->olist_bytes, c->rev ? "r" : "",
                 (c->flags & CLIENT_PROTECTED_WRITE) ? "w" : "", cmdname,
                 net_up.user_name ? net_up.user_name(c) : "default", (c->flags & CLIENT_TRACKING) ? c->trk_redir : -1LL,
                 c->resp, c->lib_name ? c->lib_name : "", c->lib_ver ? c->lib_ver : "");
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* ---- a busy script (script/script.c) ----
 * The loop's base is running (the script runs inside a client's read
 * callback) and libevent runs one loop per base at a time, so the other
 * clients and the listeners get read events on a base of their own for the
 * time the script is busy; writes need no event (net_flush_pending). */

typedef struct busy_slot {
    struct event *ev;
    client *c;
} busy_slot;

static struct event_base *busy_base;
static busy_slot *busy_slots; /* by descriptor */
static int busy_nslots;
static struct event *busy_listen[33];
static client *busy_caller;

void net_busy_begin(client *caller)
{
    int i;

    busy_caller = caller;
    if (!busy_base)
        busy_base = event_base_new();
    for (i = 0; i < srv.nlisten; i++) {
        struct event *l = srv.listen_ev[i];
        busy_listen[i] = event_new(busy_base, event_get_fd(l), EV_READ | EV_PERSIST, accept_cb,
                                   event_get_callback_arg(l));
        event_add(busy_listen[i], NULL);
    }
}

/* Run c's read callback again soon without a readable event (its TLS
 * session holds bytes read ahead): on the loop, and on the busy loop too
 * while a script runs long (which ever comes first reads them; the other
 * finds nothing). */
static void read_again(client *c)
{
    event_active(c->rev, EV_READ, 0);
    if (busy_caller && c->fd < busy_nslots && busy_slots[c->fd].c == c && busy_slots[c->fd].ev)
        event_active(busy_slots[c->fd].ev, EV_READ, 0);
}

void net_serve_while_busy(void)
{
    client *c;

    for (c = srv.clients; c; c = c->next) {
        busy_slot *s;
        if (c == busy_caller || c->fd < 0 || (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY)))
            continue;
        if (c->fd >= busy_nslots) {
            int n = c->fd * 2 + 16;
            busy_slots = xrealloc(busy_slots, sizeof(busy_slot) * (size_t)n);
            memset(busy_slots + busy_nslots, 0, sizeof(busy_slot) * (size_t)(n - busy_nslots));
            busy_nslots = n;
        }
        s = &busy_slots[c->fd];
        if (s->ev && s->c == c)
            continue;
        if (s->ev)
            event_free(s->ev);
        s->c = c;
        s->ev = event_new(busy_base, c->fd, EV_READ | EV_PERSIST, read_cb, c);
        event_add(s->ev, NULL);
    }
    event_base_loop(busy_base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    net_flush_pending();
}

void net_busy_end(void)
{
    int i;

    for (i = 0; i < busy_nslots; i++)
        if (busy_slots[i].ev) {
            event_free(busy_slots[i].ev);
            busy_slots[i].ev = NULL;
            busy_slots[i].c = NULL;
        }
    for (i = 0; i < srv.nlisten; i++)
        if (busy_listen[i]) {
            event_free(busy_listen[i]);
            busy_listen[i] = NULL;
        }
    busy_caller = NULL;
}
