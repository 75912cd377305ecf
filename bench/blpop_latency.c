/* blpop_latency.c -- the round trip of a blocking pop: push on one client, pop on another.
 *
 * Usage: blpop-latency PORT [N] [feed]   (N round trips, default 20000)
 *
 * Two connections to 127.0.0.1:PORT (hiredis, synchronous, one thread). Each
 * round: the popper sends BLPOP blpop-latency 0; the pusher sends PING and
 * waits for PONG (the server answers PING only after the iteration that read
 * the BLPOP written before it, so the popper is blocked by then); then the
 * clock starts, the pusher sends RPUSH blpop-latency x, and the clock stops when
 * the popper's reply has arrived. What is timed is what a waiting consumer
 * sees: a push arriving, the wake-up, the pop, the reply. Prints one line:
 * "n=N p50=.. p99=.. max=.. mean=.. (us)". A benchmark, not a test.
 *
 * With "feed" (scratchpad-server only), the same round trip for the change
 * feed: the waiter sends SP.CHANGES blpop-latency SINCE <last seen> BLOCK 0,
 * the pusher SP.WRITE blpop-latency e x, and the clock stops when the waiter
 * has the change (its `last` is the next round's SINCE). */
#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Read one reply from c and check its type: 0, or -1 with a message. */
static int expect(redisContext *c, int type, const char *what)
{
    redisReply *r = NULL;

    if (redisGetReply(c, (void **)&r) != REDIS_OK || !r || r->type != type) {
        fprintf(stderr, "blpop-latency: unexpected reply to %s%s%s\n", what, c->err ? ": " : "",
                c->err ? c->errstr : "");
        if (r)
            freeReplyObject(r);
        return -1;
    }
    freeReplyObject(r);
    return 0;
}

/* Read SP.CHANGES's reply (RESP2: first, n, last, n, gap, n, changes, [...])
 * from c into *last: 0, or -1 with a message. */
static int expect_changes(redisContext *c, long long *last)
{
    redisReply *r = NULL;
    int ok;

    ok = redisGetReply(c, (void **)&r) == REDIS_OK && r && r->type == REDIS_REPLY_ARRAY && r->elements == 8 &&
         r->element[3]->type == REDIS_REPLY_INTEGER && r->element[7]->type == REDIS_REPLY_ARRAY &&
         r->element[7]->elements >= 1;
    if (ok)
        *last = r->element[3]->integer;
    else
        fprintf(stderr, "blpop-latency: unexpected reply to SP.CHANGES%s%s\n", c->err ? ": " : "",
                c->err ? c->errstr : "");
    if (r)
        freeReplyObject(r);
    return ok ? 0 : -1;
}

/* Send what c has buffered. 0, or -1. */
static int flush(redisContext *c)
{
    int done = 0;

    while (!done)
        if (redisBufferWrite(c, &done) != REDIS_OK)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int port, n, i, rc = 1, feed;
    redisContext *pop = NULL, *push = NULL;
    int64_t *lat = NULL, sum = 0;
    long long last = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: blpop-latency PORT [N] [feed]\n");
        return 2;
    }
    port = atoi(argv[1]);
    n = argc > 2 ? atoi(argv[2]) : 20000;
    if (n < 1)
        n = 1;
    feed = argc > 3 && !strcmp(argv[3], "feed");
    lat = malloc(sizeof(*lat) * (size_t)n);
    pop = redisConnect("127.0.0.1", port);
    push = redisConnect("127.0.0.1", port);
    if (!lat || !pop || pop->err || !push || push->err) {
        fprintf(stderr, "blpop-latency: cannot connect to 127.0.0.1:%d\n", port);
        goto done;
    }
    redisAppendCommand(push, "DEL blpop-latency");
    if (flush(push) < 0 || expect(push, REDIS_REPLY_INTEGER, "DEL") < 0)
        goto done;
    if (feed) { /* the scratchpad and its first change: the number to wait after */
        redisAppendCommand(push, "SP.WRITE blpop-latency e x");
        redisAppendCommand(push, "SP.CHANGES blpop-latency");
        if (flush(push) < 0 || expect(push, REDIS_REPLY_INTEGER, "SP.WRITE") < 0 || expect_changes(push, &last) < 0)
            goto done;
    }
    for (i = 0; i < n; i++) {
        int64_t t0;

        if (feed)
            redisAppendCommand(pop, "SP.CHANGES blpop-latency SINCE %lld BLOCK 0", last);
        else
            redisAppendCommand(pop, "BLPOP blpop-latency 0");
        if (flush(pop) < 0)
            goto done;
        redisAppendCommand(push, "PING");
        if (flush(push) < 0 || expect(push, REDIS_REPLY_STATUS, "PING") < 0)
            goto done;
        t0 = now_ns();
        redisAppendCommand(push, feed ? "SP.WRITE blpop-latency e x" : "RPUSH blpop-latency x");
        if (flush(push) < 0 || (feed ? expect_changes(pop, &last) : expect(pop, REDIS_REPLY_ARRAY, "BLPOP")) < 0)
            goto done;
        lat[i] = now_ns() - t0;
        sum += lat[i];
        if (expect(push, REDIS_REPLY_INTEGER, feed ? "SP.WRITE" : "RPUSH") < 0)
            goto done;
    }
    qsort(lat, (size_t)n, sizeof(*lat), cmp_i64);
    printf("n=%d p50=%.1f p99=%.1f max=%.1f mean=%.1f (us)\n", n, lat[n / 2] / 1e3, lat[(size_t)n * 99 / 100] / 1e3,
           lat[n - 1] / 1e3, (double)sum / n / 1e3);
    rc = 0;
done:
    if (push)
        redisFree(push);
    if (pop)
        redisFree(pop);
    free(lat);
    return rc;
}
