/* pubsub_load.c -- PUBLISH fan-out load: messages delivered per second.
 *
 * One process, one thread: S subscriber connections SUBSCRIBE to one channel,
 * one publisher connection sends PUBLISH in pipelines of P, and a poll loop
 * reads every socket, counting the messages the subscribers receive (by the
 * bytes of one encoded message, which all have the same size). It stops after
 * N publishes are answered and every subscriber has its N messages, and prints
 * one line: "subscribers=S publishes=N delivered=D seconds=T delivered_per_sec=R".
 *
 * Usage: pubsub_load port subscribers publishes pipeline payload_bytes
 * A benchmark tool, not a test: it asserts nothing beyond the counts. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int conn(int port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(0x7f000001);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        perror("connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            perror("write");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv)
{
    int port, nsubs, pipeline, payload, i;
    long long npub, sent = 0, answered = 0, msglen, want;
    long long *got;
    char *cmd, *batch, buf[1 << 16], hdr[64];
    struct pollfd *pf;
    size_t cmdlen;
    double t0, t1;
    long long delivered = 0;
    const char *chan = "bench-channel";

    if (argc != 6) {
        fprintf(stderr, "usage: %s port subscribers publishes pipeline payload_bytes\n", argv[0]);
        return 2;
    }
    port = atoi(argv[1]);
    nsubs = atoi(argv[2]);
    npub = atoll(argv[3]);
    pipeline = atoi(argv[4]);
    payload = atoi(argv[5]);
    pf = calloc((size_t)nsubs + 1, sizeof(*pf));
    got = calloc((size_t)nsubs, sizeof(*got));
    /* Subscribe everyone and read the confirmations. */
    for (i = 0; i < nsubs; i++) {
        char sub[128];
        int n = snprintf(sub, sizeof(sub), "*2\r\n$9\r\nSUBSCRIBE\r\n$%zu\r\n%s\r\n", strlen(chan), chan);
        size_t want_conf = (size_t)snprintf(buf, sizeof(buf), "*3\r\n$9\r\nsubscribe\r\n$%zu\r\n%s\r\n:1\r\n",
                                            strlen(chan), chan),
               have = 0;
        pf[i].fd = conn(port);
        pf[i].events = POLLIN;
        send_all(pf[i].fd, sub, (size_t)n);
        while (have < want_conf) {
            ssize_t r = read(pf[i].fd, buf, want_conf - have);
            if (r <= 0) {
                perror("read");
                return 1;
            }
            have += (size_t)r;
        }
    }
    pf[nsubs].fd = conn(port);
    pf[nsubs].events = POLLIN;
    /* One PUBLISH, and a pipeline of them. */
    cmd = malloc((size_t)payload + 128);
    cmdlen = (size_t)sprintf(cmd, "*3\r\n$7\r\nPUBLISH\r\n$%zu\r\n%s\r\n$%d\r\n", strlen(chan), chan, payload);
    memset(cmd + cmdlen, 'x', (size_t)payload);
    cmdlen += (size_t)payload;
    memcpy(cmd + cmdlen, "\r\n", 2);
    cmdlen += 2;
    batch = malloc(cmdlen * (size_t)pipeline);
    for (i = 0; i < pipeline; i++)
        memcpy(batch + cmdlen * (size_t)i, cmd, cmdlen);
    msglen = snprintf(hdr, sizeof(hdr), "*3\r\n$7\r\nmessage\r\n$%zu\r\n%s\r\n$%d\r\n", strlen(chan), chan, payload) +
             payload + 2;
    want = npub * msglen;
    t0 = now();
    while (answered < npub || delivered < npub * nsubs) {
        if (sent == answered && sent < npub) {
            long long k = npub - sent < pipeline ? npub - sent : pipeline;
            send_all(pf[nsubs].fd, batch, cmdlen * (size_t)k);
            sent += k;
        }
        if (poll(pf, (nfds_t)nsubs + 1, 10000) <= 0) {
            fprintf(stderr, "stalled: answered %lld of %lld, delivered %lld\n", answered, npub, delivered);
            return 1;
        }
        for (i = 0; i <= nsubs; i++) {
            ssize_t r;
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            r = read(pf[i].fd, buf, sizeof(buf));
            if (r <= 0) {
                fprintf(stderr, "connection %d closed\n", i);
                return 1;
            }
            if (i == nsubs) {
                ssize_t j;
                for (j = 0; j < r; j++)
                    answered += buf[j] == '\n';
            } else {
                got[i] += r;
                if (got[i] > want) {
                    fprintf(stderr, "subscriber %d got too much\n", i);
                    return 1;
                }
            }
        }
        delivered = 0;
        for (i = 0; i < nsubs; i++)
            delivered += got[i] / msglen;
    }
    t1 = now();
    printf("subscribers=%d publishes=%lld delivered=%lld seconds=%.3f delivered_per_sec=%.0f\n", nsubs, npub, delivered,
           t1 - t0, (double)delivered / (t1 - t0));
    return 0;
}
