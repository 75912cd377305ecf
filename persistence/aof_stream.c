/* aof_stream.c -- a log file written by a background thread (see aof_stream.h).
 *
 * The loop and the thread share a FIFO of buffers under one mutex; the thread
 * sleeps on a condition variable when the FIFO is empty. The loop's aof_buf is
 * never shared: a push moves its complete bytes into a new queue item. */
#include "aof_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aof_writer.h"
#include "mem.h"

typedef struct stream_item {
    struct stream_item *next;
    char *p;  /* xmalloc'd, freed by the thread */
    size_t n; /* bytes */
    void (*fn)(void *ctx); /* a call instead of bytes (aof_stream_call) */
    void *ctx;
} stream_item;

struct aof_stream {
    aof_buf buf;                /* the loop's: records being encoded */
    int fd;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* Under lock. */
    stream_item *head, *tail;
    uint64_t queued;            /* bytes in the FIFO */
    int finishing;              /* aof_stream_finish was called */
    int stop;                   /* aof_stream_free: leave as soon as possible */
    int state;                  /* 0 running, 1 finished, -1 failed */
    char err[256];
    aof_stream_finish_fn *fn;
    void *ctx;
    /* The thread's. */
    uint64_t written;           /* bytes in the file (atomic reads from the loop) */
    uint64_t synced;            /* bytes whose writeback was started */
    uint64_t waited;            /* bytes whose writeback was waited for */
};

static void stream_fail(aof_stream *s, const char *what, int e)
{
    pthread_mutex_lock(&s->lock);
    if (s->state == 0) {
        s->state = -1;
        snprintf(s->err, sizeof(s->err), "%s: %s", what, strerror(e));
    }
    pthread_mutex_unlock(&s->lock);
}

/* Write n bytes at p; 0, or -1 after stream_fail. */
static int stream_write(aof_stream *s, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(s->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            stream_fail(s, "write", k < 0 ? errno : ENOSPC);
            return -1;
        }
        p += k;
        n -= (size_t)k;
        __atomic_add_fetch(&s->written, (uint64_t)k, __ATOMIC_RELAXED);
    }
    return 0;
}

/* Keep the page cache from holding the whole file: start the writeback of what
 * was written since the last step, and wait for the step before it. */
static void stream_writeback(aof_stream *s)
{
    uint64_t size = __atomic_load_n(&s->written, __ATOMIC_RELAXED);

    if (size - s->synced < AOF_STREAM_SYNC_BYTES)
        return;
    if (s->synced > s->waited)
        sync_file_range(s->fd, (off_t)s->waited, (off_t)(s->synced - s->waited),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    s->waited = s->synced;
    sync_file_range(s->fd, (off_t)s->synced, (off_t)(size - s->synced), SYNC_FILE_RANGE_WRITE);
    s->synced = size;
}

static void stream_finish_io(aof_stream *s)
{
    char err[256];
    int fd = s->fd;

    if (fdatasync(fd) < 0) {
        stream_fail(s, "fdatasync", errno);
        return;
    }
    s->fd = -1;
    if (close(fd) < 0) {
        stream_fail(s, "close", errno);
        return;
    }
    err[0] = '\0';
    if (s->fn && s->fn(s->ctx, err, sizeof(err)) < 0) {
        pthread_mutex_lock(&s->lock);
        if (s->state == 0) {
            s->state = -1;
            snprintf(s->err, sizeof(s->err), "%s", err[0] ? err : "the finishing step failed");
        }
        pthread_mutex_unlock(&s->lock);
        return;
    }
    pthread_mutex_lock(&s->lock);
    if (s->state == 0)
        s->state = 1;
    pthread_mutex_unlock(&s->lock);
}

static void *stream_thread(void *arg)
{
    aof_stream *s = arg;

    mem_thread_register();
    for (;;) {
        stream_item *it;
        int failed;

        pthread_mutex_lock(&s->lock);
        while (!s->head && !s->finishing && !s->stop)
            pthread_cond_wait(&s->wake, &s->lock);
        if (s->stop) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        it = s->head;
        if (it) {
            s->head = it->next;
            if (!s->head)
                s->tail = NULL;
        }
        failed = s->state < 0;
        pthread_mutex_unlock(&s->lock);
        if (!it) { /* finishing, and everything is written */
            if (!failed)
                stream_finish_io(s);
            break;
        }
        if (it->fn)
            it->fn(it->ctx);
        else if (!failed && stream_write(s, it->p, it->n) == 0)
            stream_writeback(s);
        pthread_mutex_lock(&s->lock);
        s->queued -= it->n;
        pthread_mutex_unlock(&s->lock);
        xfree(it->p);
        xfree(it);
    }
    return NULL;
}

aof_stream *aof_stream_create(const char *path, int kind, uint64_t seq, char *err, size_t errlen)
{
    aof_stream *s;
    int fd;

    if (aof_file_create(path, kind, seq, NULL, err, errlen) < 0)
        return NULL;
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        unlink(path);
        return NULL;
    }
    s = xcalloc(1, sizeof(*s));
    aof_buf_init(&s->buf);
    s->fd = fd;
    s->written = AOF_HEADER_SIZE;
    s->synced = s->waited = 0;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    if (pthread_create(&s->thread, NULL, stream_thread, s) != 0) {
        snprintf(err, errlen, "cannot start the rewrite's writer thread");
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        close(fd);
        unlink(path);
        xfree(s);
        return NULL;
    }
    return s;
}

int aof_stream_set_affinity(aof_stream *s, const cpu_set_t *set)
{
    return pthread_setaffinity_np(s->thread, sizeof(*set), set) == 0 ? 0 : -1;
}

aof_buf *aof_stream_buf(aof_stream *s)
{
    return &s->buf;
}

void aof_stream_append(aof_stream *s, const void *p, size_t n)
{
    aof_buf_append_records(&s->buf, p, n);
}

/* Put it at the end of the FIFO and wake the thread; 0, or -1 if the stream
 * takes nothing more (finishing, or failed: then the item is the caller's). */
static int stream_enqueue(aof_stream *s, stream_item *it, int refuse_when_done)
{
    pthread_mutex_lock(&s->lock);
    if (refuse_when_done && (s->finishing || s->state != 0)) {
        pthread_mutex_unlock(&s->lock);
        return -1;
    }
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
    s->queued += it->n;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

void aof_stream_push(aof_stream *s)
{
    aof_buf *b = &s->buf;
    stream_item *it;

    if (b->committed == 0)
        return;
    it = xcalloc(1, sizeof(*it));
    it->n = b->committed;
    if (b->committed == b->len && !aof_rec_open(b)) {
        it->p = b->p; /* take the whole buffer */
        aof_buf_init(b);
    } else {
        it->p = xmalloc(b->committed);
        memcpy(it->p, b->p, b->committed);
        aof_buf_consume(b, b->committed);
    }
    if (stream_enqueue(s, it, 1) < 0) {
        xfree(it->p);
        xfree(it);
    }
}

void aof_stream_call(aof_stream *s, void (*fn)(void *ctx), void *ctx)
{
    stream_item *it = xcalloc(1, sizeof(*it));

    it->fn = fn;
    it->ctx = ctx;
    stream_enqueue(s, it, 0);
}

uint64_t aof_stream_queued(aof_stream *s)
{
    uint64_t q;
    pthread_mutex_lock(&s->lock);
    q = s->queued;
    pthread_mutex_unlock(&s->lock);
    return q;
}

uint64_t aof_stream_written(aof_stream *s)
{
    return __atomic_load_n(&s->written, __ATOMIC_RELAXED);
}

void aof_stream_finish(aof_stream *s, aof_stream_finish_fn *fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    s->fn = fn;
    s->ctx = ctx;
    s->finishing = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

int aof_stream_poll(aof_stream *s, char *err, size_t errlen)
{
    int st;
    pthread_mutex_lock(&s->lock);
    st = s->state;
    if (st < 0 && err)
        snprintf(err, errlen, "%s", s->err);
    pthread_mutex_unlock(&s->lock);
    return st;
}

void aof_stream_free(aof_stream *s)
{
    stream_item *it;

    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    while ((it = s->head) != NULL) {
        s->head = it->next;
        xfree(it->p);
        xfree(it);
    }
    if (s->fd >= 0)
        close(s->fd);
    aof_buf_free(&s->buf);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    xfree(s);
}
