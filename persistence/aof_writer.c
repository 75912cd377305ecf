/* aof_writer.c -- buffered appends, fsync policies, the background fsync thread
 * and the error state (see aof_writer.h).
 *
 * Invariants:
 *   - the file always ends on a whole record, except after a failed write whose
 *     undo (ftruncate) failed too: then it ends in the prefix of a record whose
 *     rest is at the front of the buffer, and the next write completes it;
 *   - size is the file's length as this writer made it; bytes leave the buffer
 *     only once they are in the file (and, with `always`, synced);
 *   - the background thread owns nothing but the jobs it is given: it touches a
 *     file descriptor only through a job, and the loop closes a descriptor
 *     itself only when no job can name it (policy `no`, or after the thread has
 *     stopped). Jobs run in FIFO order, so a switched-out file is synced and
 *     closed before any later fsync of its successor;
 *   - the thread never allocates (mem.h's counter is not thread-safe) and never
 *     logs; it leaves results under the lock for the loop to collect.
 *   - unsynced: bytes were written that no fdatasync started after them covers.
 */
#include "aof_writer.h"

#include "aof_manifest.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AOF_JOBS 16                 /* queued background jobs at most */
#define AOF_FSYNC_PERIOD_MS 1000    /* everysec: at most one fsync per period */
#define AOF_POSTPONE_MAX_MS 2000    /* everysec: longest a write waits for a running fsync */
#define AOF_PREALLOC_MIN (4u << 20)   /* bytes reserved ahead of the writes at a time: */
#define AOF_PREALLOC_MAX (64u << 20)  /* a quarter of the file, within these bounds */

enum { AOF_JOB_FSYNC, AOF_JOB_CLOSE, AOF_JOB_PREALLOC };

typedef struct aof_job {
    int op;     /* AOF_JOB_FSYNC, AOF_JOB_CLOSE: fdatasync if sync, then close
                 * (AOF_JOB_CLOSE first gives back the blocks reserved past
                 * off, the file's final size, when len is not 0);
                 * AOF_JOB_PREALLOC: reserve [off, off + len) past the end */
    int fd;
    int sync;
    uint64_t off, len;
} aof_job;

struct aof_writer {
    int fd;
    char *path;                 /* xmalloc'd */
    aof_fsync_policy policy;
    aof_io io;
    aof_buf buf;
    uint64_t size;              /* bytes in the file */
    uint64_t prealloc_end;      /* blocks are reserved up to here (asked of the thread) */
    int prealloc_off;           /* the file system refused a reservation: stop asking */
    aof_log_fn *log;
    void *log_ctx;

    /* Error state. */
    aof_op err_op;
    int err_no;
    int64_t err_since_ms;       /* wall clock */
    int64_t last_ok_ms;         /* wall clock, last successful write */

    /* Counters (loop side). */
    uint64_t writes, fsyncs, bytes_written, records_written, delayed_fsync;
    uint64_t write_errors, fsync_errors;
    int64_t last_fsync_ms;      /* wall clock */

    /* everysec (loop side). */
    int unsynced;
    int64_t fsync_start_mono;   /* ms, when the last background fsync was asked for */
    int64_t postponed_mono;     /* ms, when the current postponement began; 0 if none */
    int64_t delay_mark_mono;    /* ms, last delayed_fsync count for the running fsync; 0 if none */
    int postpone;               /* wait for a running fsync before writing (Redis's way) */

    /* Background thread; fields below the lock are shared. */
    int thread_started;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;        /* jobs were queued, or stop was set */
    pthread_cond_t room;        /* a job left the queue */
    aof_job jobs[AOF_JOBS];
    int jhead, jcount;
    int stop;
    int fsync_queued;           /* an FSYNC job is queued or running */
    int fsync_running;          /* the thread is inside fdatasync for an FSYNC job */
    uint64_t bg_done;           /* sync jobs finished */
    int bg_prealloc_failed;     /* a PREALLOC job failed */
    int bg_last_err;            /* errno of the last finished sync job, 0 if it succeeded */
    int bg_fail_err;            /* errno of the last sync job that failed */
    uint64_t bg_ok, bg_failed;  /* sync jobs that succeeded / failed */
    int64_t bg_last_ok_ms;      /* wall clock */
    uint64_t bg_seen;           /* bg_done when the loop last collected */
    uint64_t bg_failed_seen;    /* bg_failed when the loop last collected */
};

static int64_t aof_mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t aof_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t aof_sys_write(void *ctx, int fd, const void *p, size_t n)
{
    return write(fd, p, n);
}

static int aof_sys_fdatasync(void *ctx, int fd)
{
    return fdatasync(fd);
}

static int aof_sys_ftruncate(void *ctx, int fd, off_t size)
{
    return ftruncate(fd, size);
}

static const aof_io aof_sys_io = {aof_sys_write, aof_sys_fdatasync, aof_sys_ftruncate, NULL};

const char *aof_fsync_policy_name(aof_fsync_policy p)
{
    return p == AOF_FSYNC_ALWAYS ? "always" : p == AOF_FSYNC_EVERYSEC ? "everysec" : "no";
}

static void aof_log(aof_writer *w, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void aof_log(aof_writer *w, int level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (!w->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    w->log(w->log_ctx, level, msg);
}

static void aof_set_errbuf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void aof_set_errbuf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Enter (or stay in) the error state for op, errno e. Logs once per episode. */
static void aof_enter_error(aof_writer *w, aof_op op, int e)
{
    if (w->err_op == AOF_OP_NONE) {
        w->err_since_ms = aof_wall_ms();
        aof_log(w, 1, "Error %s the append-only file %s: %s (writes are refused until it works again)",
                op == AOF_OP_WRITE ? "writing to" : "syncing", w->path, strerror(e));
    }
    w->err_op = op;
    w->err_no = e;
}

/* Leave the error state if it was caused by op. */
static void aof_leave_error(aof_writer *w, aof_op op)
{
    if (w->err_op == AOF_OP_NONE || w->err_op != op)
        return;
    w->err_op = AOF_OP_NONE;
    w->err_no = 0;
    w->err_since_ms = 0;
    aof_log(w, 0, "Append-only file write error looks solved, the server can write again.");
}

/* Write n bytes from p through the io table, resuming after short writes. Returns
 * 0, or -1 with *done bytes written and *e the errno (ENOSPC for a write that
 * wrote nothing without an error). */
static int aof_write_all(const aof_io *io, int fd, const char *p, size_t n, size_t *done, int *e)
{
    *done = 0;
    while (*done < n) {
        ssize_t k = io->write(io->ctx, fd, p + *done, n - *done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            *e = k < 0 ? errno : ENOSPC;
            return -1;
        }
        *done += (size_t)k;
    }
    return 0;
}

/* Give back the blocks reserved past the end of a file the writer is done with
 * (fallocate KEEP_SIZE reservations outlive the descriptor: closed incr files
 * would otherwise hold up to a step of unused space each, and a disk that filled
 * up once could stay full after space was freed). A truncation to the file's
 * own size frees what lies past it (ext4, XFS, tmpfs; hole punching past the end
 * does nothing on ext4) and changes no byte. Best effort, only when something
 * was reserved (reserved_end > size). */
static void aof_release_reserved(int fd, uint64_t size, uint64_t reserved_end)
{
    struct stat st;

    if (reserved_end > size && fstat(fd, &st) == 0)
        (void)ftruncate(fd, st.st_size);
}

/* ---- Background thread ---- */

static void *aof_thread_main(void *arg)
{
    aof_writer *w = arg;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        aof_job job;
        int rc = 0, e = 0, prealloc_failed = 0;
        while (w->jcount == 0 && !w->stop)
            pthread_cond_wait(&w->cond, &w->lock);
        if (w->jcount == 0)
            break;
        job = w->jobs[w->jhead];
        w->jhead = (w->jhead + 1) % AOF_JOBS;
        w->jcount--;
        pthread_cond_signal(&w->room);
        if (job.op == AOF_JOB_FSYNC)
            w->fsync_running = 1;
        pthread_mutex_unlock(&w->lock);
        if (job.sync) {
            rc = w->io.fdatasync(w->io.ctx, job.fd);
            e = rc < 0 ? errno : 0;
        }
        if (job.op == AOF_JOB_CLOSE) {
            if (job.len)
                aof_release_reserved(job.fd, job.off, job.off + job.len);
            close(job.fd);
        }
        if (job.op == AOF_JOB_PREALLOC &&
            fallocate(job.fd, FALLOC_FL_KEEP_SIZE, (off_t)job.off, (off_t)job.len) < 0)
            prealloc_failed = 1;
        pthread_mutex_lock(&w->lock);
        if (prealloc_failed)
            w->bg_prealloc_failed = 1;
        if (job.op == AOF_JOB_FSYNC) {
            w->fsync_running = 0;
            w->fsync_queued = 0;
        }
        if (job.sync) {
            w->bg_done++;
            w->bg_last_err = e;
            if (rc == 0) {
                w->bg_ok++;
                w->bg_last_ok_ms = aof_wall_ms();
            } else {
                w->bg_failed++;
                w->bg_fail_err = e;
            }
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Start the thread if needed. Returns 0, or -1 if it cannot be started. */
static int aof_thread_start(aof_writer *w);

int aof_writer_start_thread(aof_writer *w)
{
    return aof_thread_start(w);
}

static int aof_thread_start(aof_writer *w)
{
    if (w->thread_started)
        return 0;
    if (pthread_create(&w->thread, NULL, aof_thread_main, w) != 0) {
        aof_log(w, 1, "Cannot start the append-only file fsync thread: syncing inline");
        return -1;
    }
    w->thread_started = 1;
    return 0;
}

/* Queue a job. Returns 0, or -1 if there is no thread, or no room for an FSYNC
 * job (the caller then does the work inline). A CLOSE job waits for room: its
 * descriptor may be named by a queued job, so it must not be closed inline. */
static int aof_submit_range(aof_writer *w, int op, int fd, int sync, uint64_t off, uint64_t len)
{
    int rc = -1;

    if (aof_thread_start(w) < 0)
        return -1;
    pthread_mutex_lock(&w->lock);
    while (op == AOF_JOB_CLOSE && w->jcount == AOF_JOBS)
        pthread_cond_wait(&w->room, &w->lock);
    if (w->jcount < AOF_JOBS) {
        aof_job *j = &w->jobs[(w->jhead + w->jcount) % AOF_JOBS];
        j->op = op;
        j->fd = fd;
        j->sync = sync;
        j->off = off;
        j->len = len;
        w->jcount++;
        if (op == AOF_JOB_FSYNC)
            w->fsync_queued = 1;
        pthread_cond_signal(&w->cond);
        rc = 0;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static int aof_submit(aof_writer *w, int op, int fd, int sync)
{
    return aof_submit_range(w, op, fd, sync, 0, 0);
}

/* Reserve the file's next blocks ahead of the writes, on the thread: with the
 * blocks already allocated, neither write() nor the background fdatasync has
 * to allocate them (ext4's delayed allocation does that inside fdatasync while
 * holding the lock a concurrent write() needs: the loop's write() then waits
 * for the disk, measured at 10 - 30 ms several times a minute under load).
 * Stops for this file at the first refusal (no space, or no support). The step
 * grows with the file, so that a small log does not hold 64 MB of disk. */
static void aof_prealloc_ahead(aof_writer *w)
{
    uint64_t step = w->size / 4;
    aof_job *j;

    step = step < AOF_PREALLOC_MIN ? AOF_PREALLOC_MIN : step > AOF_PREALLOC_MAX ? AOF_PREALLOC_MAX : step;
    if (w->prealloc_off || !w->thread_started || w->size + step / 2 < w->prealloc_end)
        return;
    pthread_mutex_lock(&w->lock);
    if (w->jcount < AOF_JOBS) {
        j = &w->jobs[(w->jhead + w->jcount) % AOF_JOBS];
        j->op = AOF_JOB_PREALLOC;
        j->fd = w->fd;
        j->sync = 0;
        j->off = w->prealloc_end > w->size ? w->prealloc_end : w->size;
        j->len = step;
        w->prealloc_end = j->off + j->len;
        w->jcount++;
        pthread_cond_signal(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
}

static int aof_fsync_queued(aof_writer *w)
{
    int q;

    if (!w->thread_started)
        return 0;
    pthread_mutex_lock(&w->lock);
    q = w->fsync_queued;
    pthread_mutex_unlock(&w->lock);
    return q;
}

/* Take in the results of background syncs finished since the last call: a
 * failure enters the error state (and asks for another fsync), a success
 * leaves an fsync error state. */
static void aof_collect(aof_writer *w)
{
    uint64_t done, failed;
    int err, fail_err;

    if (!w->thread_started)
        return;
    pthread_mutex_lock(&w->lock);
    if (w->bg_prealloc_failed)
        w->prealloc_off = 1;
    w->bg_prealloc_failed = 0;
    done = w->bg_done;
    failed = w->bg_failed;
    err = w->bg_last_err;
    fail_err = w->bg_fail_err;
    if (w->bg_last_ok_ms > w->last_fsync_ms)
        w->last_fsync_ms = w->bg_last_ok_ms;
    pthread_mutex_unlock(&w->lock);
    if (done == w->bg_seen)
        return;
    w->bg_seen = done;
    if (failed != w->bg_failed_seen) {
        w->bg_failed_seen = failed;
        w->unsynced = 1;
        aof_enter_error(w, AOF_OP_FSYNC, fail_err);
    }
    if (!err)
        aof_leave_error(w, AOF_OP_FSYNC);
}

/* Stop the thread after the jobs queued so far. */
static void aof_thread_stop(aof_writer *w)
{
    if (!w->thread_started)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->thread_started = 0;
    w->stop = 0;
    aof_collect(w);
}

/* everysec: ask for a background fsync if bytes await one, none is queued, and
 * the last one was asked for at least a period ago. */
static void aof_maybe_fsync(aof_writer *w, int64_t now)
{
    if (!w->unsynced || now - w->fsync_start_mono < AOF_FSYNC_PERIOD_MS || aof_fsync_queued(w))
        return;
    w->fsync_start_mono = now;
    w->unsynced = 0;
    if (aof_submit(w, AOF_JOB_FSYNC, w->fd, 1) == 0)
        return;
    if (w->io.fdatasync(w->io.ctx, w->fd) < 0) {
        w->fsync_errors++;
        w->unsynced = 1;
        aof_enter_error(w, AOF_OP_FSYNC, errno);
    } else {
        w->fsyncs++;
        w->last_fsync_ms = aof_wall_ms();
        aof_leave_error(w, AOF_OP_FSYNC);
    }
}

/* ---- Files ---- */

int aof_file_create(const char *path, int kind, uint64_t seq, const aof_io *io, char *err,
                    size_t errlen)
{
    unsigned char hdr[AOF_HEADER_SIZE];
    aof_header h = {AOF_VERSION, (uint32_t)kind, aof_wall_ms(), seq};
    char dir[AOF_PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t done;
    int fd, e = 0;

    if (!io)
        io = &aof_sys_io;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        aof_set_errbuf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    aof_header_encode(&h, hdr);
    if (aof_write_all(io, fd, (const char *)hdr, sizeof(hdr), &done, &e) < 0)
        goto fail;
    if (io->fdatasync(io->ctx, fd) < 0) {
        e = errno;
        goto fail;
    }
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (aof_dir_fsync(dir[0] ? dir : "/") < 0) {
        e = errno;
        goto fail;
    }
    if (close(fd) < 0) {
        e = errno;
        fd = -1;
        goto fail;
    }
    return 0;
fail:
    aof_set_errbuf(err, errlen, "cannot create %s: %s", path, strerror(e));
    if (fd >= 0)
        close(fd);
    unlink(path);
    return -1;
}

static aof_writer *aof_writer_new(int fd, const char *path, uint64_t size, aof_fsync_policy policy,
                                  const aof_io *io)
{
    aof_writer *w = xcalloc(1, sizeof(*w));

    w->fd = fd;
    w->path = xstrdup(path);
    w->size = size;
    w->policy = policy;
    w->io = io ? *io : aof_sys_io;
    aof_buf_init(&w->buf);
    w->fsync_start_mono = aof_mono_ms();
    w->last_ok_ms = aof_wall_ms();
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    pthread_cond_init(&w->room, NULL);
    return w;
}

aof_writer *aof_writer_create(const char *path, int kind, uint64_t seq, aof_fsync_policy policy,
                              const aof_io *io, char *err, size_t errlen)
{
    if (aof_file_create(path, kind, seq, io, err, errlen) < 0)
        return NULL;
    return aof_writer_open(path, policy, io, err, errlen);
}

/* Open path for appending and check its header. Returns the descriptor with
 * *size set, or -1 (err set). */
static int aof_open_append(const char *path, uint64_t *size, char *err, size_t errlen)
{
    unsigned char hdr[AOF_HEADER_SIZE];
    struct stat st;
    aof_header h;
    const char *why = NULL;
    int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);

    if (fd < 0) {
        aof_set_errbuf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    if (fstat(fd, &st) < 0 || pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
        aof_header_decode(hdr, sizeof(hdr), &h, &why) < 0) {
        aof_set_errbuf(err, errlen, "cannot append to %s: %s", path,
                       why ? why : errno ? strerror(errno) : "short header");
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

aof_writer *aof_writer_open(const char *path, aof_fsync_policy policy, const aof_io *io, char *err,
                            size_t errlen)
{
    uint64_t size;
    int fd = aof_open_append(path, &size, err, errlen);

    return fd < 0 ? NULL : aof_writer_new(fd, path, size, policy, io);
}

aof_buf *aof_writer_buf(aof_writer *w)
{
    return &w->buf;
}

/* After a failed write or sync of the n bytes that ended the file at `before`
 * plus done bytes: cut the file back to before, so it ends on a whole record and
 * the buffer keeps everything. If that fails, the done bytes stay as written. */
static void aof_undo(aof_writer *w, uint64_t before, size_t done)
{
    if (done == 0)
        return;
    if (w->io.ftruncate(w->io.ctx, w->fd, (off_t)before) == 0) {
        w->size = before;
        return;
    }
    aof_log(w, 1, "Could not remove the partial record from %s (ftruncate: %s); it will be completed by the next write",
            w->path, strerror(errno));
    w->size = before + done;
    w->unsynced = 1;
    aof_buf_consume(&w->buf, done);
}

/* Write the committed bytes now; with sync (or policy always) fdatasync them
 * before they leave the buffer. Returns AOF_FLUSH_OK or AOF_FLUSH_ERR. */
static int aof_write_now(aof_writer *w, int sync)
{
    size_t n = w->buf.committed, done = 0;
    uint64_t before = w->size, records = w->buf.records;
    int e = 0;

    if (n > 0) {
        if (aof_write_all(&w->io, w->fd, w->buf.p, n, &done, &e) < 0) {
            w->write_errors++;
            aof_undo(w, before, done);
            aof_enter_error(w, AOF_OP_WRITE, e);
            return AOF_FLUSH_ERR;
        }
        w->size = before + n;
        w->unsynced = 1;
    }
    if ((sync || w->policy == AOF_FSYNC_ALWAYS) && w->unsynced) {
        if (w->io.fdatasync(w->io.ctx, w->fd) < 0) {
            e = errno;
            w->fsync_errors++;
            aof_undo(w, before, n);
            aof_enter_error(w, AOF_OP_FSYNC, e);
            return AOF_FLUSH_ERR;
        }
        w->fsyncs++;
        w->unsynced = 0;
        w->last_fsync_ms = aof_wall_ms();
        aof_leave_error(w, AOF_OP_FSYNC);
    }
    if (n > 0) {
        w->writes++;
        w->bytes_written += n;
        w->records_written += records;
        w->last_ok_ms = aof_wall_ms();
        aof_buf_consume(&w->buf, n);
        aof_leave_error(w, AOF_OP_WRITE);
        if (w->policy == AOF_FSYNC_NO)
            aof_leave_error(w, AOF_OP_FSYNC);
    }
    return AOF_FLUSH_OK;
}

/* everysec: count (and log) a write made while the background fsync has run for
 * AOF_POSTPONE_MAX_MS or more, at most once per such period. */
static void aof_count_delayed(aof_writer *w, int64_t now)
{
    int64_t mark = w->delay_mark_mono > w->fsync_start_mono ? w->delay_mark_mono : w->fsync_start_mono;

    if (now - mark < AOF_POSTPONE_MAX_MS)
        return;
    w->delay_mark_mono = now;
    w->delayed_fsync++;
    aof_log(w, 0, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down the server.");
}

int aof_writer_flush(aof_writer *w)
{
    int64_t now = aof_mono_ms();

    aof_collect(w);
    if (w->buf.committed > 0 && w->policy == AOF_FSYNC_EVERYSEC && aof_fsync_queued(w)) {
        if (!w->postpone) {
            aof_count_delayed(w, now);
        } else {
            if (w->postponed_mono == 0)
                w->postponed_mono = now;
            if (now - w->postponed_mono < AOF_POSTPONE_MAX_MS)
                return w->err_op == AOF_OP_NONE ? AOF_FLUSH_POSTPONED : AOF_FLUSH_ERR;
            w->delay_mark_mono = now;
            w->delayed_fsync++;
            aof_log(w, 0, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down the server.");
        }
    }
    w->postponed_mono = 0;
    if (aof_write_now(w, 0) < 0)
        return AOF_FLUSH_ERR;
    aof_prealloc_ahead(w);
    if (w->policy == AOF_FSYNC_EVERYSEC)
        aof_maybe_fsync(w, now);
    return w->err_op == AOF_OP_NONE ? AOF_FLUSH_OK : AOF_FLUSH_ERR;
}

int aof_writer_sync(aof_writer *w)
{
    aof_collect(w);
    w->postponed_mono = 0;
    w->unsynced = 1;
    if (aof_write_now(w, 1) < 0)
        return -1;
    return 0;
}

int aof_writer_switch(aof_writer *w, const char *path, char *err, size_t errlen)
{
    uint64_t size, reserved;
    int fd, old = w->fd;

    aof_collect(w);
    w->postponed_mono = 0;
    if (aof_write_now(w, 0) < 0) {
        aof_set_errbuf(err, errlen, "cannot write the buffer to %s: %s", w->path, strerror(w->err_no));
        return -1;
    }
    if ((fd = aof_open_append(path, &size, err, errlen)) < 0)
        return -1;
    /* The old file is synced (unless the policy is no), given back the blocks
     * reserved past its end, and closed: on the thread, after the jobs queued
     * for it, else here. */
    reserved = w->prealloc_end > w->size ? w->prealloc_end - w->size : 0;
    if (aof_submit_range(w, AOF_JOB_CLOSE, old, w->policy != AOF_FSYNC_NO, w->size, reserved) < 0) {
        if (w->policy != AOF_FSYNC_NO && w->io.fdatasync(w->io.ctx, old) < 0)
            aof_enter_error(w, AOF_OP_FSYNC, errno);
        aof_release_reserved(old, w->size, w->prealloc_end);
        close(old);
    }
    w->fd = fd;
    xfree(w->path);
    w->path = xstrdup(path);
    w->size = size;
    w->prealloc_end = 0;
    w->prealloc_off = 0;
    w->unsynced = 0;
    return 0;
}

void aof_writer_set_policy(aof_writer *w, aof_fsync_policy policy)
{
    w->policy = policy;
}

void aof_writer_set_postpone(aof_writer *w, int on)
{
    w->postpone = on != 0;
    w->postponed_mono = 0;
}

aof_fsync_policy aof_writer_policy(const aof_writer *w)
{
    return w->policy;
}

void aof_writer_set_log(aof_writer *w, aof_log_fn *fn, void *ctx)
{
    w->log = fn;
    w->log_ctx = ctx;
}

int aof_writer_ok(aof_writer *w)
{
    aof_collect(w);
    return w->err_op == AOF_OP_NONE;
}

void aof_writer_get_stats(aof_writer *w, aof_writer_stats *st)
{
    memset(st, 0, sizeof(*st));
    aof_collect(w);
    st->ok = w->err_op == AOF_OP_NONE;
    st->err_op = w->err_op;
    st->err_no = w->err_no;
    st->err_since_ms = w->err_since_ms;
    st->last_ok_ms = w->last_ok_ms;
    st->file_size = w->size;
    st->buffered = w->buf.committed;
    st->writes = w->writes;
    st->fsyncs = w->fsyncs;
    st->bytes_written = w->bytes_written;
    st->records_written = w->records_written;
    st->delayed_fsync = w->delayed_fsync;
    st->write_errors = w->write_errors;
    st->fsync_errors = w->fsync_errors;
    st->last_fsync_ms = w->last_fsync_ms;
    if (w->thread_started) {
        pthread_mutex_lock(&w->lock);
        st->fsyncs += w->bg_ok;
        st->fsync_errors += w->bg_failed;
        st->fsync_in_progress = w->fsync_running;
        pthread_mutex_unlock(&w->lock);
    }
}

const char *aof_writer_path(const aof_writer *w)
{
    return w->path;
}

int aof_writer_fd(const aof_writer *w)
{
    return w->fd;
}

int aof_writer_close(aof_writer *w)
{
    int rc = 0;

    if (!w)
        return 0;
    aof_thread_stop(w);
    if (aof_write_now(w, w->policy != AOF_FSYNC_NO) < 0 || w->buf.len > 0)
        rc = -1;
    aof_release_reserved(w->fd, w->size, w->prealloc_end);
    close(w->fd);
    pthread_cond_destroy(&w->room);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    aof_buf_free(&w->buf);
    xfree(w->path);
    xfree(w);
    return rc;
}
