/* persist_rewrite.c -- the log's rewrite: a new base that holds the dataset,
 * written beside the log while it goes on, then switched to (aof_manifest.h's
 * steps). Two kinds: incremental (the default; the loop writes the base in short
 * steps, "the incremental rewrite" below) or a fork()ed child (the fork
 * rewrite: the child, its copy-on-write reports and CPUs, its reaping). Both
 * write a key's records through its type's row (rewrite_key), end in
 * rewrite_done or rewrite_failed, and leave the removal of the replaced files
 * to a thread. Also BGREWRITEAOF and the automatic trigger.
 *
 * Why a file of its own: the rewrite is the largest job of the server's side of
 * the log, and the only one with a child process and threads; the lifecycle and
 * the flush (persist.c) see it through persist_int.h. Invariant: at most one
 * rewrite of either kind at a time (rw_in_progress), and a crash at any point
 * leaves a manifest whose files hold every write. */
#include "aof/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aof_manifest.h"
#include "aof_stream.h"
#include "aof_writer.h"
#include "aof/persist_int.h"
#include "keyspace/type.h"
#include "cmd/commands.h"
#include "config.h"
#include "log.h"
#include "core/mem.h"
#include "core/util.h"

#define REWRITE_FLUSH_BYTES (4u << 20) /* bytes a rewrite child buffers before writing */
#define REWRITE_SYNC_BYTES (32u << 20) /* bytes a rewrite child writes between writeback steps */
#define AUTO_REWRITE_MAX_FAILURES 3     /* failed rewrites in a row that stop the automatic trigger */

int persist_rewriting;
rwi_state RI;

static void rwi_abort(int counts, const char *why);
static void rwi_prepare_job(void *ctx);

/* ---- the records of a key (both kinds), the fork rewrite ---- */

/* Copy-on-write, measured by the child itself (as Redis's child reports it):
 * its Private_Dirty, the pages it no longer shares with the server, from
 * /proc/self/smaps_rollup, sent over a pipe about once a second. Reading that
 * file walks the child's page tables (50 ms for 1 GB here): done by the child,
 * on the child's CPU, it takes nothing from the server's. */
#define COW_REPORT_MS 1000

static struct {
    int fd;             /* the pipe's read end while a child runs, else -1 */
    long long cur, peak; /* bytes, of the running or last child */
} cow = {-1, 0, 0};

/* In the child: Private_Dirty bytes of this process; -1 if unreadable. */
static long long self_private_bytes(void)
{
    char line[256];
    long long kb = -1, v;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "Private_Dirty: %lld kB", &v) == 1)
            kb = v;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* In the child: send a report (8 bytes: atomic on a pipe); a full pipe drops it. */
static void cow_report(int fd)
{
    long long b = self_private_bytes();
    ssize_t k;

    if (b >= 0)
        k = write(fd, &b, sizeof(b));
    (void)k;
}

/* In the parent: take in the reports that have arrived. */
static void cow_poll(void)
{
    long long b[64];
    ssize_t k;
    size_t i;

    while (cow.fd >= 0 && (k = read(cow.fd, b, sizeof(b))) >= (ssize_t)sizeof(b[0]))
        for (i = 0; i < (size_t)k / sizeof(b[0]); i++) {
            cow.cur = b[i];
            if (b[i] > cow.peak)
                cow.peak = b[i];
        }
}

/* End the measurement (the child has exited); returns the peak (bytes). */
static long long cow_stop(void)
{
    cow_poll();
    if (cow.fd >= 0)
        close(cow.fd);
    cow.fd = -1;
    return cow.peak;
}

long long rw_cow_current(void)
{
    cow_poll();
    return cow.cur;
}

typedef struct rewrite_ctx {
    aof_writer *bw;
    int dbid;
    int64_t now;
    int cow_fd;          /* where copy-on-write reports go, -1 if nowhere */
    unsigned visits;     /* keys seen, to look at the clock every so often */
    int64_t reported_us; /* monotonic, the last report */
    uint64_t synced;     /* bytes of the base whose writeback was started */
    uint64_t waited;     /* bytes of the base whose writeback was waited for */
    int failed;
} rewrite_ctx;

/* In the child: write the buffer, and push the base to the disk as it grows:
 * start the writeback of each REWRITE_SYNC_BYTES written and wait for the one
 * before it (as Redis's aof-rewrite-incremental-fsync). Unbounded, the page
 * cache held the whole base until the final fdatasync, which then took ~0.6 s
 * for 1.1 GB while the server's own fsyncs queued behind it on the same disk. */
static void rewrite_flush(rewrite_ctx *x)
{
    aof_writer_stats st;
    uint64_t size;
    int fd = aof_writer_fd(x->bw);

    if (aof_writer_flush(x->bw) != AOF_FLUSH_OK) {
        x->failed = 1;
        return;
    }
    aof_writer_get_stats(x->bw, &st);
    size = st.file_size;
    if (size - x->synced < REWRITE_SYNC_BYTES)
        return;
    if (x->synced > x->waited)
        sync_file_range(fd, (off_t)x->waited, (off_t)(x->synced - x->waited),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    x->waited = x->synced;
    sync_file_range(fd, (off_t)x->synced, (off_t)(size - x->synced), SYNC_FILE_RANGE_WRITE);
    x->synced = size;
}

/* A rewrite's records go into an aof_buf through the type rows' effect writer;
 * a type's pause between the records of one key offers the buffer to flush
 * (may be NULL) once it holds REWRITE_FLUSH_BYTES. */
typedef struct buf_out {
    aof_buf *b;
    void (*flush)(void *ctx);
    void *ctx;
} buf_out;

static void bo_begin(void *ctx, int dbid)
{
    aof_rec_begin(((buf_out *)ctx)->b, dbid);
}

static void bo_arg(void *ctx, const void *p, size_t n)
{
    aof_rec_arg_bytes(((buf_out *)ctx)->b, p, n);
}

static void bo_lzval(void *ctx, const struct lzval *v)
{
    aof_rec_arg_lzval(((buf_out *)ctx)->b, v);
}

static void bo_end(void *ctx)
{
    aof_rec_end(((buf_out *)ctx)->b);
}

static void bo_pause(void *ctx)
{
    buf_out *x = ctx;
    if (x->flush && x->b->len >= REWRITE_FLUSH_BYTES)
        x->flush(x->ctx);
}

/* The records that rebuild key e of database dbid as it is now (nothing if it
 * has expired by now), from its type's row: shared by the fork child and the
 * incremental rewrite. Returns 0, or -1 (nothing written, why set) if a
 * compressed value of the key fails its checksums (type_verify_lz): the
 * rewrite must then fail. */
static int rewrite_key(aof_buf *b, int dbid, const dbent *e, int64_t now, void (*flush)(void *ctx), void *ctx,
                       char *why, size_t whylen)
{
    int64_t expire = db_get_expire(&srv.dbs[dbid], e);
    buf_out bo = {b, flush, ctx};
    effect_out o = {.begin = bo_begin, .arg = bo_arg, .arg_lzval = bo_lzval, .end = bo_end, .ctx = &bo,
                    .pause = bo_pause};

    if (expire >= 0 && expire <= now)
        return 0;
    return type_of(e)->rewrite(&o, dbid, e, expire, now, why, whylen);
}

static void rewrite_flush_cb(void *ctx)
{
    rewrite_flush(ctx);
}

/* The state that is not in keys (prop_rewrite_state: the libraries of
 * functions), first in a new base. */
static void rewrite_state(aof_buf *b, void (*flush)(void *ctx), void *ctx)
{
    buf_out bo = {b, flush, ctx};
    effect_out o = {
        .begin = bo_begin, .arg = bo_arg, .arg_lzval = bo_lzval, .end = bo_end, .ctx = &bo, .pause = bo_pause};

    if (prop_rewrite_state)
        prop_rewrite_state(&o);
}

static void rewrite_visit(void *ctx, ht_node *n)
{
    rewrite_ctx *x = ctx;
    aof_buf *b = aof_writer_buf(x->bw);

    if (x->cow_fd >= 0 && (++x->visits & 1023) == 0 && mono_us() - x->reported_us >= COW_REPORT_MS * 1000) {
        cow_report(x->cow_fd);
        x->reported_us = mono_us();
    }
    char why[512];

    if (x->failed)
        return;
    if (rewrite_key(b, x->dbid, (const dbent *)n, x->now, rewrite_flush_cb, x, why, sizeof(why)) < 0) {
        log_warning("Log rewrite: %s", why);
        x->failed = 1;
        return;
    }
    if (b->len >= REWRITE_FLUSH_BYTES)
        rewrite_flush(x);
}

/* In the child: let go of what belongs to the server (so that a server
 * restarted after a crash can bind its port and lock its directory while this
 * child still runs), and die with the server. */
static void child_detach(pid_t parent)
{
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    server_close_sockets();
    if (P.lock_fd >= 0)
        close(P.lock_fd);
}

/* In the child: move to the CPUs of aof-rewrite-cpulist (as Redis's setting of
 * that name). A child that inherits a server pinned to one CPU takes half of
 * that CPU from the server for the whole rewrite: measured, the server's
 * commands fell from ~37k/s to ~5k/s and pings waited 10 - 40 ms for their turn,
 * redis-server alike. The list was checked at start-up; a CPU that is not
 * there only makes sched_setaffinity fail, and the child then stays put. */
/* The CPUs of aof-rewrite-cpulist in *set; 0, or -1 if none is set. */
static int rewrite_cpus(cpu_set_t *set)
{
    uint64_t mask[CPULIST_WORDS];
    int i;

    if (!srv.cfg.aof_rewrite_cpulist || !srv.cfg.aof_rewrite_cpulist[0] ||
        cpulist_parse(srv.cfg.aof_rewrite_cpulist, mask, CPULIST_WORDS) < 0)
        return -1;
    CPU_ZERO(set);
    for (i = 0; i < CPULIST_WORDS * 64 && i < CPU_SETSIZE; i++)
        if (mask[i / 64] >> (i % 64) & 1)
            CPU_SET(i, set);
    return 0;
}

static void child_affinity(void)
{
    cpu_set_t set;

    if (rewrite_cpus(&set) < 0)
        return;
    if (sched_setaffinity(0, sizeof(set), &set) < 0)
        fprintf(stderr, "log rewrite: aof-rewrite-cpulist %s: %s\n", srv.cfg.aof_rewrite_cpulist, strerror(errno));
}

/* In the child: write the dataset into the temporary base. Never returns. */
static void rewrite_child(pid_t parent, int cow_fd)
{
    char err[256];
    rewrite_ctx x;
    int i;

    child_detach(parent);
    child_affinity();
    memset(&x, 0, sizeof(x));
    x.now = db_now; /* the parent's commands see keys expire by this clock */
    x.cow_fd = cow_fd;
    x.reported_us = mono_us();
    if (cow_fd >= 0)
        cow_report(cow_fd);
    if (!(x.bw = aof_rewrite_base_create(&P.rw, err, sizeof(err)))) {
        fprintf(stderr, "log rewrite: %s\n", err);
        _exit(1);
    }
    rewrite_state(aof_writer_buf(x.bw), rewrite_flush_cb, &x);
    for (i = 0; i < srv.cfg.databases && !x.failed; i++) {
        uint64_t cursor = 0;
        x.dbid = i;
        do
            cursor = ht_scan(&srv.dbs[i].keys, cursor, rewrite_visit, &x);
        while (cursor != 0 && !x.failed);
    }
    if (x.failed || aof_writer_sync(x.bw) < 0) {
        aof_writer_stats ws;
        aof_writer_get_stats(x.bw, &ws);
        fprintf(stderr, "log rewrite: %s the new base: %s\n", x.failed ? "writing" : "syncing",
                ws.err_no ? strerror(ws.err_no) : "failed");
        _exit(1);
    }
    if (aof_writer_close(x.bw) < 0) {
        fprintf(stderr, "log rewrite: closing the new base: %s\n", strerror(errno));
        _exit(1);
    }
    if (cow_fd >= 0)
        cow_report(cow_fd);
    if (aof_rewrite_child_finish(&P.m, &P.rw, err, sizeof(err)) < 0) {
        fprintf(stderr, "log rewrite: %s\n", err);
        _exit(1);
    }
    _exit(0);
}

int rw_start(const char **errmsg)
{
    static char msg[600];
    char err[512];
    int64_t t0;
    pid_t pid, parent;
    int cow_pipe[2];

    if (srv.cfg.aof_rewrite_mode == 0)
        return rwi_start(errmsg);
    /* Write what this iteration logged through do_flush first, so that the
     * log positions replies wait for advance (aof_rewrite_start would write
     * it too, behind the counters' back, and those replies would wait forever). */
    if (P.w && plog->committed > 0)
        persist_flush();
    if (P.w && P.flush_failing) {
        *errmsg = "ERR Background append only file rewriting is not possible while the log cannot be written";
        return -1;
    }
    if (aof_rewrite_start(P.dir, &P.m, &P.w, persist_policy(), NULL, &P.rw, err, sizeof(err)) < 0) {
        snprintf(msg, sizeof(msg), "ERR Can't start the log rewrite: %s", err);
        log_warning("%s", msg + 4);
        *errmsg = msg;
        return -1;
    }
    if (!plog)
        persist_attach_writer(P.w);
    else
        persist_set_plog(aof_writer_buf(P.w));
    persist_measure_files();
    if (pipe2(cow_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        cow_pipe[0] = cow_pipe[1] = -1; /* the rewrite goes on unmeasured */
    t0 = mono_us();
    parent = getpid();
    pid = fork();
    if (pid == 0) {
        if (cow_pipe[0] >= 0)
            close(cow_pipe[0]);
        rewrite_child(parent, cow_pipe[1]);
    }
    P.fork_usec = mono_us() - t0;
    if (cow_pipe[1] >= 0)
        close(cow_pipe[1]);
    cow.fd = cow_pipe[0];
    cow.cur = cow.peak = 0;
    if (pid < 0) {
        snprintf(msg, sizeof(msg), "ERR Can't rewrite the log in the background: fork: %s", strerror(errno));
        log_warning("%s", msg + 4);
        aof_rewrite_abort(&P.rw);
        cow_stop();
        *errmsg = msg;
        return -1;
    }
    P.child = pid;
    P.rewrite_start_ms = now_ms();
    log_notice("Background append only file rewriting started by pid %d (fork took %lld us)", (int)pid,
               P.fork_usec);
    return 0;
}

typedef struct remove_job {
    char dir[AOF_PATH_MAX];
    int held_fd;          /* the replaced manifest, or -1 */
    aof_manifest files;   /* the files the rewrite replaced */
    aof_manifest stale;   /* the files of a log that was switched off, then on */
    pthread_t thread;
    int done;             /* set by the thread (atomic) when it has finished */
} remove_job;

static remove_job *rm_job; /* the removal running or finished but not reaped */

/* After a rewrite's switch, off the loop: make the new manifest's name durable
 * (an fsync of the directory: 1 - 30 ms measured on the loop before), then
 * remove what it no longer names. If that fsync fails, nothing is removed: a
 * crash could still bring the old manifest back, and its files must be there. */
static void *remove_thread(void *arg)
{
    remove_job *j = arg;
    int synced = aof_dir_fsync(j->dir) == 0;

    if (j->held_fd >= 0)
        close(j->held_fd);
    if (synced) {
        aof_dir_remove(j->dir, &j->files);
        aof_dir_remove(j->dir, &j->stale);
    }
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Collect a finished removal (with wait, wait for a running one): the loop
 * frees the job, since mem.h's counter belongs to the loop's thread. */
void rw_reap_remove(int wait)
{
    if (!rm_job || (!wait && !__atomic_load_n(&rm_job->done, __ATOMIC_ACQUIRE)))
        return;
    pthread_join(rm_job->thread, NULL);
    aof_manifest_free(&rm_job->files);
    aof_manifest_free(&rm_job->stale);
    xfree(rm_job);
    rm_job = NULL;
}

/* A rewrite (either kind) ended without a new base: INFO and the automatic
 * trigger's count of failures in a row. why (may be NULL) goes to the log. */
static void rewrite_failed(const char *why)
{
    P.last_rewrite_sec = (now_ms() - P.rewrite_start_ms + 500) / 1000;
    P.last_rewrite_ok = 0;
    P.rewrite_failures++;
    log_warning("Background AOF rewrite failed%s%s%s; the log stays as it was and a later rewrite starts again",
                why ? " (" : "", why ? why : "", why ? ")" : "");
}

static void rewrite_done(int ok)
{
    char err[512];
    remove_job *j;

    P.last_rewrite_sec = (now_ms() - P.rewrite_start_ms + 500) / 1000;
    P.child = -1;
    P.last_cow = cow_stop();
    if (ok) {
        j = xcalloc(1, sizeof(*j));
        if (aof_rewrite_finish(P.dir, &P.m, &P.rw, &j->files, &j->held_fd, err, sizeof(err)) < 0) {
            log_warning("Finishing the log rewrite failed: %s", err);
            xfree(j);
            ok = 0;
        } else {
            snprintf(j->dir, sizeof(j->dir), "%s", P.dir);
            j->stale = P.stale; /* moved: P.stale is empty again */
            aof_manifest_init(&P.stale);
            rw_reap_remove(1); /* the previous rewrite's, long finished */
            if (pthread_create(&j->thread, NULL, remove_thread, j) != 0) {
                remove_thread(j);
                aof_manifest_free(&j->files);
                aof_manifest_free(&j->stale);
                xfree(j);
            } else {
                rm_job = j;
            }
        }
    } else {
        aof_rewrite_abort(&P.rw);
    }
    if (!ok) {
        rewrite_failed(NULL);
        return;
    }
    P.last_rewrite_ok = 1;
    P.rewrites++;
    P.rewrite_failures = 0;
    persist_measure_files();
    log_notice("Background AOF rewrite finished successfully: base %.1f MB", (double)P.base_size / 1e6);
}

static void reap_child(void)
{
    int status;
    pid_t r;

    if (P.child <= 0)
        return;
    r = waitpid(P.child, &status, WNOHANG);
    if (r == 0)
        return;
    if (r < 0) {
        log_warning("waitpid on the rewrite child: %s", strerror(errno));
        rewrite_done(0);
        return;
    }
    if (WIFSIGNALED(status))
        log_warning("The log rewrite child was killed by signal %d", WTERMSIG(status));
    rewrite_done(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- the incremental rewrite ----
 *
 * aof-rewrite-mode incremental (the default): no fork. The new base is written
 * by the loop itself, in steps of aof-rewrite-step-us (1 ms by default), while the log goes on in
 * the current incr file; a thread (aof_stream.h) takes the bytes to the disk.
 *
 * What the base holds: not a snapshot of one instant but the dataset as it is
 * when the scan ends. Each entry carries a rewrite epoch (db.h); at the start
 * db_epoch moves on, so every entry is "not yet written". The base receives, in
 * order:
 *   - the state of each entry the scan meets (ht_scan over every database),
 *     which stamps it with db_epoch;
 *   - the state of an entry a write command is about to change, if it is not
 *     yet written (rwi_keyed, the log sink's keyed hook, from cmd_call before
 *     the command runs: its keys from the command table), which stamps it too;
 *   - a copy of every log record from the start on (rwi_copy), placed after
 *     the states written before it.
 * So every record that reaches the base applies to a key whose state the base
 * already holds (or that did not exist at the start: new entries are stamped by
 * db_add), and replaying the base gives the dataset as it is when the scan
 * ends. Records that touch a key without a command (expiry deletions: DEL,
 * SP.DEL) need no state first: a delete of what the base does not hold yet is a
 * no-op, and the scan later writes what is left. Commands without keys that
 * rewrite whole databases (FLUSHDB, FLUSHALL, SWAPDB) start the rewrite again
 * at the next iteration: cheap, since it starts from what is left.
 *
 * At the end of the scan the loop writes the iteration's records and switches
 * the log to the new incr file the stream's thread made at the start
 * (aof_rewrite_prepare / aof_rewrite_commit: the manifest names it after the
 * current one), and the stream's thread syncs the base, renames it and writes
 * the next manifest (aof_rewrite_child_finish, as a fork child would); the
 * cron then switches the manifest (rewrite_done). A crash at any point before
 * that switch leaves the old manifest, whose files hold every write.
 *
 * Pauses: a step, plus the state of one entry written before its first write
 * (its stored bytes: ~1 ms per 5 MB). Memory: the stream's buffers, at most
 * RWI_QUEUE_MAX queued for the thread before the scan waits. */

#define RWI_PUSH_BYTES (1u << 20) /* bytes of base handed to the thread at a time */
#define RWI_QUEUE_MAX (16u << 20) /* bytes queued for the thread above which the scan waits */

/* Copy the records logged since the last copy into the base. */
void rwi_copy(void)
{
    uint64_t end;

    if (RI.state != RWI_SCAN || !plog)
        return;
    end = P.consumed + plog->committed;
    if (end > RI.copied) {
        aof_stream_append(RI.st, plog->p + (RI.copied - P.consumed), (size_t)(end - RI.copied));
        RI.copied = end;
    }
}

static void rwi_push_cb(void *ctx)
{
    (void)ctx;
    aof_stream_push(RI.st);
}

/* Write entry e's state into the base and stamp it. Returns 0, or -1 (RI.bad
 * set: the caller aborts the rewrite) if a value of it fails its checksums. */
static int rwi_write(int dbid, dbent *e)
{
    if (rewrite_key(aof_stream_buf(RI.st), dbid, e, db_now, rwi_push_cb, NULL, RI.bad, sizeof(RI.bad)) < 0)
        return -1;
    dbent_set_epoch(e, db_epoch);
    return 0;
}

static void rwi_visit(void *ctx, ht_node *n)
{
    dbent *e = (dbent *)n;

    (void)ctx;
    if (dbent_epoch(e) == db_epoch || RI.bad[0])
        return;
    if (rwi_write(RI.dbi, e) == 0)
        RI.scanned++;
}

static int rwi_stamp_all(void *ctx, ht_node *n)
{
    (void)ctx;
    dbent_set_epoch((dbent *)n, db_epoch);
    return 0;
}

/* A new epoch: every entry becomes "not yet written". Epochs are 7 bits: after
 * DBENT_EPOCH_MASK starts in a row that did not complete, an entry could still
 * carry the epoch about to be reused, so every entry is stamped first (a walk
 * of the keyspace; in practice never). */
static void rwi_new_epoch(void)
{
    int i;

    if (RI.incomplete >= DBENT_EPOCH_MASK) {
        for (i = 0; i < srv.cfg.databases; i++)
            ht_foreach(&srv.dbs[i].keys, rwi_stamp_all, NULL);
        RI.incomplete = 0;
    }
    db_epoch = (uint8_t)((db_epoch + 1) & DBENT_EPOCH_MASK);
    RI.incomplete++;
}

int rwi_start(const char **errmsg)
{
    static char msg[600];
    char err[512];

    if (P.w && plog->committed > 0)
        persist_flush();
    if (P.w && P.flush_failing) {
        *errmsg = "ERR Background append only file rewriting is not possible while the log cannot be written";
        return -1;
    }
    if (!P.w) {
        /* appendonly switched on: log from now on into a new incr, which no
         * manifest names until the base is complete. */
        aof_rewrite rw;
        if (aof_rewrite_start(P.dir, &P.m, &P.w, persist_policy(), NULL, &rw, err, sizeof(err)) < 0)
            goto fail;
        persist_attach_writer(P.w);
        persist_measure_files();
    }
    RI.seq = aof_manifest_alloc_seq(&P.m);
    if (aof_rewrite_temp_path(RI.temp, sizeof(RI.temp), P.dir, RI.seq) < 0) {
        snprintf(err, sizeof(err), "log directory path too long");
        goto fail;
    }
    if (!(RI.st = aof_stream_create(RI.temp, AOF_KIND_BASE, RI.seq, err, sizeof(err))))
        goto fail;
    aof_manifest_copy(&RI.mprep, &P.m);
    RI.prep = 0;
    aof_stream_call(RI.st, rwi_prepare_job, NULL);
    {
        /* The thread that writes the base runs where a child would. */
        cpu_set_t set;
        if (rewrite_cpus(&set) == 0 && aof_stream_set_affinity(RI.st, &set) < 0)
            log_warning("aof-rewrite-cpulist %s: cannot move the rewrite's writer thread there",
                        srv.cfg.aof_rewrite_cpulist);
    }
    rwi_new_epoch();
    rewrite_state(aof_stream_buf(RI.st), rwi_push_cb, NULL);
    RI.copied = P.consumed + plog->committed;
    RI.dbi = 0;
    RI.cursor = 0;
    RI.scanned = RI.touched = 0;
    RI.bad[0] = 0;
    RI.state = RWI_SCAN;
    persist_rewriting = 1;
    P.rewrite_start_ms = now_ms();
    log_notice("Background append only file rewriting started (incremental, on the event loop)");
    return 0;
fail:
    snprintf(msg, sizeof(msg), "ERR Can't start the log rewrite: %s", err);
    log_warning("%s", msg + 4);
    *errmsg = msg;
    return -1;
}

/* On the stream's thread: the next incr and the manifest that names it. */
static void rwi_prepare_job(void *ctx)
{
    int rc;

    (void)ctx;
    rc = aof_rewrite_prepare(P.dir, &RI.mprep, NULL, RI.seq, &RI.prw, &RI.next, RI.prep_err, sizeof(RI.prep_err));
    __atomic_store_n(&RI.prep, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
}

/* The stream's thread is gone: forget a prepared incr the log will not switch
 * to. If its manifest was saved, that is the log on disk now (the current incr
 * then an empty one), and P.m must say so. */
static void rwi_drop_prepared(void)
{
    if (RI.prep == 1) {
        if (RI.prw.saved) {
            aof_manifest_free(&P.m);
            P.m = RI.next;
            aof_manifest_init(&RI.next);
            persist_measure_files();
        } else {
            unlink(RI.prw.incr_path);
            if (RI.next.next_seq > P.m.next_seq)
                P.m.next_seq = RI.next.next_seq;
            aof_manifest_free(&RI.next);
        }
    }
    RI.prep = 0;
    aof_manifest_free(&RI.mprep);
}

/* Abandon the rewrite: the log stays as it is (the files the rewrite made are
 * removed). counts: the attempt failed (else it is only cut short). */
static void rwi_abort(int counts, const char *why)
{
    if (RI.state == RWI_IDLE)
        return;
    aof_stream_free(RI.st); /* waits for a finishing step that runs */
    RI.st = NULL;
    if (RI.state == RWI_SCAN) {
        unlink(RI.temp);
        rwi_drop_prepared();
    } else {
        aof_rewrite_abort(&P.rw);
        aof_manifest_free(&RI.m);
    }
    RI.state = RWI_IDLE;
    persist_rewriting = 0;
    if (counts) {
        rewrite_failed(why);
    } else {
        log_notice("Background AOF rewrite stopped (%s)", why);
    }
}

static int rwi_finish_step(void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    return aof_rewrite_child_finish(&RI.m, &P.rw, err, errlen);
}

/* The scan is complete: switch the log to a new incr and let the thread finish
 * the base. If the log cannot be written now, the next iteration tries again. */
static void rwi_finish(void)
{
    char err[512];
    int prep = __atomic_load_n(&RI.prep, __ATOMIC_ACQUIRE);

    if (prep == 0)
        return; /* the thread has not made the next incr yet */
    if (prep < 0) {
        snprintf(err, sizeof(err), "%s", RI.prep_err);
        rwi_abort(1, err);
        return;
    }
    if (plog->committed > 0)
        persist_flush();
    if (P.flush_failing)
        return;
    aof_stream_push(RI.st);
    P.rw = RI.prw;
    RI.prep = 0;
    aof_manifest_free(&RI.mprep);
    if (aof_rewrite_commit(&P.m, &RI.next, &P.w, persist_policy(), NULL, &P.rw, err, sizeof(err)) < 0) {
        persist_measure_files();
        rwi_abort(1, err);
        return;
    }
    persist_set_plog(aof_writer_buf(P.w));
    persist_measure_files();
    RI.state = RWI_FINISHING;
    persist_rewriting = 0;
    RI.incomplete = 0; /* the scan stamped every entry */
    aof_manifest_copy(&RI.m, &P.m);
    aof_stream_finish(RI.st, rwi_finish_step, NULL);
    log_notice("Background AOF rewrite: the base holds the dataset (%lld keys by the scan, %lld before a write); "
               "syncing it", RI.scanned, RI.touched);
}

/* One step on the loop: copy the iteration's records, scan for at most
 * aof-rewrite-step-us (unless the thread is behind), hand the bytes over. */
void rwi_step(void)
{
    int64_t t0 = mono_us();
    aof_buf *b = aof_stream_buf(RI.st);
    char err[256];

    if (aof_stream_poll(RI.st, err, sizeof(err)) < 0) {
        rwi_abort(1, err);
        return;
    }
    rwi_copy();
    if (aof_stream_queued(RI.st) < RWI_QUEUE_MAX) {
        while (RI.dbi < srv.cfg.databases) {
            RI.cursor = ht_scan(&srv.dbs[RI.dbi].keys, RI.cursor, rwi_visit, NULL);
            if (RI.bad[0]) {
                rwi_abort(1, RI.bad);
                return;
            }
            if (RI.cursor == 0)
                RI.dbi++;
            if (b->committed >= RWI_PUSH_BYTES)
                aof_stream_push(RI.st);
            if (mono_us() - t0 >= srv.cfg.aof_rewrite_step_us)
                break;
        }
    }
    if (b->committed >= RWI_PUSH_BYTES)
        aof_stream_push(RI.st);
    if (RI.dbi >= srv.cfg.databases)
        rwi_finish();
}

/* The finishing thread is done: switch the manifest, or give up. */
static void rwi_reap(void)
{
    char err[256];
    int st;

    if (RI.state != RWI_FINISHING || (st = aof_stream_poll(RI.st, err, sizeof(err))) == 0)
        return;
    if (st < 0)
        log_warning("Finishing the log rewrite's base failed: %s", err);
    aof_stream_free(RI.st);
    RI.st = NULL;
    aof_manifest_free(&RI.m);
    RI.state = RWI_IDLE;
    rewrite_done(st > 0);
}

/* The sink's "a write is about to change key": its state goes into the base
 * first if the scan has not written it yet. */
void rwi_keyed(int dbid, const char *key, size_t klen)
{
    dbent *e = db_find_raw(&srv.dbs[dbid], key, klen);

    if (e && dbent_epoch(e) != db_epoch) {
        rwi_copy(); /* what was logged before goes in before this state */
        if (rwi_write(dbid, e) < 0) {
            rwi_abort(1, RI.bad); /* persist_rewriting is 0 now: no more keys come */
            return;
        }
        RI.touched++;
    }
}

/* FLUSHDB, FLUSHALL, SWAPDB: whole databases change under the scan. */
void rwi_keyless(const char *cmdname)
{
    rwi_abort(0, cmdname);
    RI.restart = 1;
}

int persist_busy(void)
{
    return RI.state == RWI_SCAN || RI.restart;
}

/* ---- either kind: stop, BGREWRITEAOF, the cron ---- */

int rw_in_progress(void)
{
    return P.child > 0 || RI.state != RWI_IDLE || RI.restart;
}

void rw_stop(void)
{
    int status;

    RI.restart = 0;
    rwi_abort(0, "the log is closing");
    if (P.child <= 0)
        return;
    kill(P.child, SIGKILL);
    while (waitpid(P.child, &status, 0) < 0 && errno == EINTR)
        ;
    aof_rewrite_abort(&P.rw);
    P.child = -1;
    P.last_cow = cow_stop();
    log_notice("Killed the log rewrite child");
}

int persist_bgrewrite(const char **err)
{
    if (rw_in_progress()) {
        *err = "ERR Background append only file rewriting already in progress";
        return -1;
    }
    if (!P.w) {
        *err = "ERR Background append only file rewriting is not possible: appendonly is no";
        return -1;
    }
    return rw_start(err);
}

/* The cron's part (persist_cron): collect what ended, then the automatic trigger. */
void rw_cron(void)
{
    cow_poll();
    reap_child();
    rwi_reap();
    rw_reap_remove(0);
    if (!P.w || rw_in_progress())
        return;
    /* The automatic trigger; after AUTO_REWRITE_MAX_FAILURES failures in a row
     * it waits for a BGREWRITEAOF that succeeds. */
    if (srv.cfg.auto_aof_rewrite_percentage > 0 && P.rewrite_failures < AUTO_REWRITE_MAX_FAILURES) {
        uint64_t cur = persist_current_size(), base = P.base_size ? P.base_size : 1;
        uint64_t growth = cur > base ? (cur - base) * 100 / base : 0;
        if (cur >= (uint64_t)srv.cfg.auto_aof_rewrite_min_size &&
            growth >= (uint64_t)srv.cfg.auto_aof_rewrite_percentage) {
            const char *err;
            log_notice("Starting automatic rewriting of AOF on %llu%% growth", (unsigned long long)growth);
            rw_start(&err);
        }
    }
}
