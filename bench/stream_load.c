/* stream_load.c -- consumer-group throughput: one producer, N consumers.
 *
 * usage: stream_load PORT CONSUMERS ENTRIES [COUNT]
 *
 * A producer thread XADDs ENTRIES entries (one 16-byte field) to stream
 * "bench:s", pipelining 100 at a time; CONSUMERS threads, each on a connection
 * of its own in group "g", loop on XREADGROUP COUNT COUNT BLOCK 100 ... > and
 * acknowledge what they got with one XACK. The clock runs from the first XADD
 * to the acknowledgement of the last entry. Prints one line:
 * "acked=N seconds=S acked_per_sec=R". Built by bench/stream-vs-redis.sh with
 * cc and -lhiredis; a benchmark, it asserts nothing (but exits 1 if a reply
 * is an error or the run does not finish within 120 s). */
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int port, consumers, count = 10;
static long entries;
static atomic_long acked;
static atomic_int failed;
static double t_start, t_end;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static redisContext *conn(void)
{
    redisContext *c = redisConnect("127.0.0.1", port);
    if (!c || c->err) {
        fprintf(stderr, "connect: %s\n", c ? c->errstr : "out of memory");
        exit(1);
    }
    return c;
}

static int bad(redisReply *r, const char *what)
{
    if (r && r->type != REDIS_REPLY_ERROR)
        return 0;
    fprintf(stderr, "%s: %s\n", what, r ? r->str : "connection lost");
    atomic_store(&failed, 1);
    return 1;
}

static void *producer(void *arg)
{
    redisContext *c = conn();
    long sent = 0;
    (void)arg;
    while (sent < entries && !atomic_load(&failed)) {
        long n = entries - sent < 100 ? entries - sent : 100, i;
        for (i = 0; i < n; i++)
            redisAppendCommand(c, "XADD bench:s * f 0123456789abcdef");
        for (i = 0; i < n; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || bad(r, "XADD"))
                return NULL;
            freeReplyObject(r);
        }
        sent += n;
    }
    redisFree(c);
    return NULL;
}

static void *consumer(void *arg)
{
    redisContext *c = conn();
    char name[32];
    snprintf(name, sizeof(name), "c%ld", (long)(size_t)arg);
    while (atomic_load(&acked) < entries && !atomic_load(&failed) && now() - t_start < 120) {
        redisReply *r = redisCommand(c, "XREADGROUP GROUP g %s COUNT %d BLOCK 100 STREAMS bench:s >", name, count);
        redisReply *msgs;
        const char **argv;
        size_t *lens, i, n;
        if (bad(r, "XREADGROUP"))
            break;
        if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) { /* timed out */
            freeReplyObject(r);
            continue;
        }
        msgs = r->element[0]->element[1];
        n = msgs->elements;
        argv = malloc((n + 3) * sizeof(char *));
        lens = malloc((n + 3) * sizeof(size_t));
        argv[0] = "XACK", argv[1] = "bench:s", argv[2] = "g";
        for (i = 0; i < 3; i++)
            lens[i] = strlen(argv[i]);
        for (i = 0; i < n; i++) {
            argv[i + 3] = msgs->element[i]->element[0]->str;
            lens[i + 3] = msgs->element[i]->element[0]->len;
        }
        redisReply *a = redisCommandArgv(c, (int)(n + 3), argv, lens);
        free(argv);
        free(lens);
        freeReplyObject(r);
        if (bad(a, "XACK"))
            break;
        if (atomic_fetch_add(&acked, a->integer) + a->integer >= entries)
            t_end = now();
        freeReplyObject(a);
    }
    redisFree(c);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t *t;
    redisContext *c;
    long i;

    if (argc < 4) {
        fprintf(stderr, "usage: stream_load PORT CONSUMERS ENTRIES [COUNT]\n");
        return 2;
    }
    port = atoi(argv[1]);
    consumers = atoi(argv[2]);
    entries = atol(argv[3]);
    if (argc > 4)
        count = atoi(argv[4]);
    c = conn();
    freeReplyObject(redisCommand(c, "DEL bench:s"));
    if (bad(redisCommand(c, "XGROUP CREATE bench:s g $ MKSTREAM"), "XGROUP CREATE"))
        return 1;
    t = calloc((size_t)consumers + 1, sizeof(pthread_t));
    t_start = now();
    for (i = 0; i < consumers; i++)
        pthread_create(&t[i + 1], NULL, consumer, (void *)(size_t)i);
    pthread_create(&t[0], NULL, producer, NULL);
    for (i = 0; i <= consumers; i++)
        pthread_join(t[i], NULL);
    redisFree(c);
    if (atomic_load(&failed) || atomic_load(&acked) < entries) {
        fprintf(stderr, "acked %ld of %ld\n", (long)atomic_load(&acked), entries);
        return 1;
    }
    printf("acked=%ld seconds=%.3f acked_per_sec=%.0f\n", entries, t_end - t_start, entries / (t_end - t_start));
    free(t);
    return 0;
}
