/* lock_load.c -- redis-py's Lock under contention, as the server sees it.
 *
 * usage: lock_load PORT CLIENTS SECONDS
 *
 * CLIENTS connections (one process, poll()) each loop on what redis-py's
 * Lock("bench:lock", timeout=5).acquire() / release() send, as MONITOR shows
 * them: SET bench:lock <token> PX 5000 NX, and once that answers OK, EVALSHA
 * of redis-py's release script (GET the key, DEL it if it holds the token)
 * with 1 bench:lock <token>. A refused acquire is retried at once (redis-py
 * sleeps `sleep` seconds between tries, 0.1 by default: with it, both servers
 * idle and the figure is the sleep's). Each connection has one request in
 * flight, so the figure is the server's turn-around under contention, not a
 * client's scheduling: about one reply in CLIENTS + 1 completes a pair.
 * Prints "pairs=N seconds=S replies=M pairs_per_sec=R". Built by
 * bench/lock-vs-redis.sh with cc and -lhiredis (its reply reader only); a
 * benchmark, it asserts nothing (exits 1 on an unexpected reply). */
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RELEASE                                                                                    \
    "local token = redis.call('get', KEYS[1]) if not token or token ~= ARGV[1] then return 0 end " \
    "redis.call('del', KEYS[1]) return 1"

typedef struct cl {
    int fd, holding;
    char token[40];
    redisReader *rd;
} cl;

static char sha[41];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        perror("connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            perror("write");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void send_cmd(cl *c)
{
    char *cmd;
    int n = c->holding ? redisFormatCommand(&cmd, "EVALSHA %s 1 bench:lock %s", sha, c->token)
                       : redisFormatCommand(&cmd, "SET bench:lock %s PX 5000 NX", c->token);
    send_all(c->fd, cmd, (size_t)n);
    redisFreeCommand(cmd);
}

/* A reply of c's: returns 1 when it completed a pair. */
static int on_reply(cl *c, redisReply *r)
{
    int pair = 0;
    if (!c->holding && r->type == REDIS_REPLY_STATUS) {
        c->holding = 1;
    } else if (c->holding && r->type == REDIS_REPLY_INTEGER && r->integer == 1) {
        c->holding = 0;
        pair = 1;
    } else if (!(!c->holding && r->type == REDIS_REPLY_NIL)) {
        fprintf(stderr, "unexpected reply (type %d): %s\n", r->type, r->str ? r->str : "");
        exit(1);
    }
    freeReplyObject(r);
    send_cmd(c);
    return pair;
}

int main(int argc, char **argv)
{
    int port, n, i;
    double secs, t0, end;
    long pairs = 0, replies = 0;
    cl *cs;
    struct pollfd *pf;
    redisContext *setup;
    redisReply *r;

    if (argc < 4) {
        fprintf(stderr, "usage: lock_load PORT CLIENTS SECONDS\n");
        return 2;
    }
    port = atoi(argv[1]);
    n = atoi(argv[2]);
    secs = atof(argv[3]);
    setup = redisConnect("127.0.0.1", port);
    if (!setup || setup->err || !(r = redisCommand(setup, "SCRIPT LOAD %s", RELEASE)) ||
        r->type != REDIS_REPLY_STRING) {
        fprintf(stderr, "SCRIPT LOAD failed\n");
        return 1;
    }
    snprintf(sha, sizeof(sha), "%s", r->str);
    freeReplyObject(r);
    freeReplyObject(redisCommand(setup, "DEL bench:lock"));
    redisFree(setup);
    cs = calloc((size_t)n, sizeof(cl));
    pf = calloc((size_t)n, sizeof(struct pollfd));
    for (i = 0; i < n; i++) {
        cs[i].fd = dial(port);
        cs[i].rd = redisReaderCreate();
        snprintf(cs[i].token, sizeof(cs[i].token), "%032x", (unsigned)i + 1);
        pf[i].fd = cs[i].fd;
        pf[i].events = POLLIN;
    }
    t0 = now();
    end = t0 + secs;
    for (i = 0; i < n; i++)
        send_cmd(&cs[i]);
    while (now() < end) {
        if (poll(pf, (nfds_t)n, 100) < 0)
            break;
        for (i = 0; i < n; i++) {
            char buf[4096];
            ssize_t got;
            void *rep;
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            got = read(cs[i].fd, buf, sizeof(buf));
            if (got <= 0) {
                fprintf(stderr, "connection closed\n");
                return 1;
            }
            redisReaderFeed(cs[i].rd, buf, (size_t)got);
            while (redisReaderGetReply(cs[i].rd, &rep) == REDIS_OK && rep)
                pairs += on_reply(&cs[i], rep), replies++;
        }
    }
    secs = now() - t0;
    printf("pairs=%ld seconds=%.3f replies=%ld pairs_per_sec=%.0f\n", pairs, secs, replies, pairs / secs);
    return 0;
}
