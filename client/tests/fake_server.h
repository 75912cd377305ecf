/* fake_server.h -- a scripted RESP server on a thread, for the library's fault
 * tests: it answers each complete request with the next reply of its script,
 * byte for byte, so a test can send half a reply and close, send bytes that are
 * not RESP, send a reply of the wrong shape, or never answer.
 *
 * Script steps (one per request, in order):
 *   "...bytes..."             sent as they are
 *   FS_CLOSE "...bytes..."    sent, then the connection is closed
 *   FS_HANG                   nothing is sent; the server waits until the
 *                             client closes (at most 10 s), then stops
 * After the last step the connection is closed. One connection per server;
 * 127.0.0.1 on a free port. fs_stop joins the thread (bounded by the waits
 * above) and closes everything. Header-only: each test includes it once. */
#ifndef SPC_FAKE_SERVER_H
#define SPC_FAKE_SERVER_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FS_CLOSE "\x01"
#define FS_HANG "\x02"

typedef struct fake_server {
    int lfd, port;
    pthread_t th;
    const char *const *script;  /* NULL-terminated */
    int requests;               /* complete requests seen */
    int started;
} fake_server;

/* Bytes of buf[0..n) that form complete RESP multibulk requests: the number
 * of requests in *count, the bytes they use returned. */
static size_t fs_complete(const char *buf, size_t n, int *count)
{
    size_t pos = 0;
    *count = 0;
    for (;;) {
        size_t p = pos;
        long args, i;
        char *end;
        if (p >= n || buf[p] != '*')
            return pos;
        args = strtol(buf + p + 1, &end, 10);
        if (!memchr(buf + p, '\n', n - p))
            return pos;
        p = (size_t)((const char *)memchr(buf + p, '\n', n - p) - buf) + 1;
        for (i = 0; i < args; i++) {
            long len;
            const char *nl;
            if (p >= n || buf[p] != '$' || !(nl = memchr(buf + p, '\n', n - p)))
                return pos;
            len = strtol(buf + p + 1, &end, 10);
            p = (size_t)(nl - buf) + 1;
            if (p + (size_t)len + 2 > n)
                return pos;
            p += (size_t)len + 2;
        }
        pos = p;
        (*count)++;
    }
}

static int fs_wait(int fd, int ms)
{
    struct pollfd pf = {fd, POLLIN, 0};
    int r;
    do
        r = poll(&pf, 1, ms);
    while (r < 0 && errno == EINTR);
    return r > 0;
}

static void *fs_main(void *arg)
{
    fake_server *fs = arg;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd, step = 0;

    if (!fs_wait(fs->lfd, 10000))
        return NULL;
    fd = accept(fs->lfd, NULL, NULL);
    if (fd < 0)
        return NULL;
    while (fs->script[step]) {
        int count;
        size_t used;
        ssize_t r;
        if (cap - len < 65536) {
            cap = cap ? cap * 2 : 131072;
            buf = realloc(buf, cap);
        }
        if (!fs_wait(fd, 10000))
            break;
        r = recv(fd, buf + len, cap - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
        used = fs_complete(buf, len, &count);
        memmove(buf, buf + used, len - used);
        len -= used;
        while (count-- > 0 && fs->script[step]) {
            const char *s = fs->script[step++];
            fs->requests++;
            if (s[0] == FS_HANG[0]) {
                char tmp[4096];
                while (fs_wait(fd, 10000) && recv(fd, tmp, sizeof(tmp), 0) > 0)
                    ;
                goto done;
            }
            if (s[0] == FS_CLOSE[0]) {
                ssize_t w = send(fd, s + 1, strlen(s + 1), MSG_NOSIGNAL);
                (void)w;
                goto done;
            }
            if (send(fd, s, strlen(s), MSG_NOSIGNAL) < 0)
                goto done;
        }
    }
done:
    close(fd);
    free(buf);
    return NULL;
}

/* Listen on a free port of 127.0.0.1 and serve script on a thread. 0 / -1. */
static int fs_start(fake_server *fs, const char *const *script)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    int one = 1;

    memset(fs, 0, sizeof(*fs));
    fs->script = script;
    fs->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fs->lfd < 0)
        return -1;
    setsockopt(fs->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fs->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fs->lfd, 4) < 0 ||
        getsockname(fs->lfd, (struct sockaddr *)&sa, &sl) < 0) {
        close(fs->lfd);
        return -1;
    }
    fs->port = ntohs(sa.sin_port);
    if (pthread_create(&fs->th, NULL, fs_main, fs) != 0) {
        close(fs->lfd);
        return -1;
    }
    fs->started = 1;
    return 0;
}

static void fs_stop(fake_server *fs)
{
    if (fs->started)
        pthread_join(fs->th, NULL);
    fs->started = 0;
    close(fs->lfd);
}

#endif
