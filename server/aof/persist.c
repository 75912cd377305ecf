/* persist.c -- the server's side of the append-only log (see persist.h):
 * logging helpers, start-up replay, per-iteration flush with held replies, the
 * rewrite (incremental on the loop, or fork()ed) and its automatic trigger,
 * run-time switches, INFO.
 *
 * State: one writer (NULL when the log is off), the manifest that describes the
 * files on disk, and at most one rewrite child. plog points into the writer's
 * buffer whenever the writer exists and the server is not loading. */
#include "aof/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aof_manifest.h"
#include "aof_reader.h"
#include "aof_stream.h"
#include "aof_writer.h"
#include "aof/persist_load.h"
#include "cmd/propagate.h"
#include "keyspace/type.h"
#include "cmd/commands.h"
#include "config.h"
#include "log.h"
#include "core/mem.h"
#include "core/util.h"

#define REWRITE_FLUSH_BYTES (4u << 20) /* bytes a rewrite child buffers before writing */
#define REWRITE_SYNC_BYTES (32u << 20) /* bytes a rewrite child writes between writeback steps */
#define AUTO_REWRITE_MAX_FAILURES 3     /* failed rewrites in a row that stop the automatic trigger */

aof_buf *plog;
uint64_t persist_flushed;
const char *persist_refusing_why; /* log position written (and synced, `always`) */

static struct {
    int started;              /* persist_start ran (apply hooks act only after it) */
    char dir[AOF_PATH_MAX];   /* absolute */
    int lock_fd;              /* flock'ed dir/scratchpad.lock, -1 if none */
    aof_manifest m;
    aof_manifest stale;       /* files of an earlier log, removed after the next rewrite */
    aof_writer *w;
    uint64_t consumed;        /* bytes of buffer written by past flushes */
    int flush_failing;        /* the last flush failed: replies are held */
    uint64_t idle_mark;       /* sink_mark() when the cron last saw it change */
    int64_t idle_since;       /* ms, when it last changed */
    char last_error[128];
    /* Sizes for the automatic rewrite: the base (at load or after a rewrite)
     * and the incr files that precede the current one. */
    uint64_t base_size, older_incr_size;
    /* The rewrite. */
    pid_t child;
    aof_rewrite rw;
    int64_t rewrite_start_ms;
    long long last_rewrite_sec;
    int last_rewrite_ok;
    long long rewrites, rewrite_failures;
    long long fork_usec;
    long long last_cow;       /* bytes, the peak copied-on-write size of the last child */
    /* The last load. */
    persist_load_stats load;
} P = {.lock_fd = -1, .child = -1, .last_rewrite_sec = -1, .last_rewrite_ok = 1};

static void refresh_refusing(void);
static long long cow_stop(void);

/* The incremental rewrite (aof-rewrite-mode incremental), in "the incremental
 * rewrite" below: the state it shares with the flush. */
enum { RWI_IDLE = 0, RWI_SCAN, RWI_FINISHING };
int persist_rewriting;
static struct {
    int state;             /* RWI_* */
    int restart;           /* start again at the next iteration (a FLUSHDB/SWAPDB cut the last one short) */
    aof_stream *st;        /* the new base being written */
    uint64_t seq;          /* its seq */
    char temp[AOF_PATH_MAX]; /* its temporary path */
    uint64_t copied;       /* log position up to which records went into the base too */
    int dbi;               /* the database the scan is in */
    uint64_t cursor;       /* its ht_scan cursor */
    unsigned incomplete;   /* epochs started since every entry last carried db_epoch */
    aof_manifest m;        /* the manifest at the switch, for the finishing thread */
    /* The next incr, created and named in a saved manifest by the stream's
     * thread (aof_rewrite_prepare) while the scan runs, so that the switch on
     * the loop is only a change of file descriptor. */
    int prep;              /* 0 not (yet), 1 done, -1 failed (atomic: set by the thread) */
    aof_manifest mprep;    /* the thread's copy of the manifest */
    aof_manifest next;     /* the manifest it saved */
    aof_rewrite prw;
    char prep_err[256];
    long long scanned, touched; /* keys written by the scan / before a first write */
    char bad[512];         /* a key the scan could not vouch for (rewrite_key), or "" */
} RI;

static void rwi_copy(void);
static int rwi_start(const char **errmsg);
static void rwi_abort(int counts, const char *why);
static void rwi_prepare_job(void *ctx);
static void rwi_step(void);

/* ---- logging: the log as a sink of effects (cmd/propagate.h) ---- */

static void sink_begin(int dbid)
{
    aof_rec_begin(plog, dbid);
}

static void sink_arg(const void *p, size_t n)
{
    aof_rec_arg_bytes(plog, p, n);
}

static void sink_lzval(const struct lzval *v)
{
    aof_rec_arg_lzval(plog, v);
}

static void sink_end(void)
{
    if (aof_rec_end(plog) < 0)
        log_warning("A write produced a log record over %u bytes; it was not logged", AOF_PAYLOAD_MAX);
}

/* The log position after everything logged so far (bytes, monotonic). */
static uint64_t sink_mark(void)
{
    return plog ? P.consumed + plog->committed : 0;
}

static const char *sink_refusing(void)
{
    return persist_refusing();
}

static void sink_keyed(int dbid, const char *key, size_t klen);
static void sink_keyless(const char *cmdname);

static const prop_sink aof_sink = {
    .name = "aof",
    .begin = sink_begin,
    .arg = sink_arg,
    .arg_lzval = sink_lzval,
    .end = sink_end,
    .mark = sink_mark,
    .refusing = sink_refusing,
    .wants_keys = &persist_rewriting,
    .keyed = sink_keyed,
    .keyless = sink_keyless,
};

/* The log's buffer: set while the writer is open (the sink attached), NULL
 * while it is closed or the log loads. */
static void set_plog(aof_buf *b)
{
    plog = b;
    if (b)
        prop_attach(&aof_sink);
    else
        prop_detach(&aof_sink);
}


/* ---- small helpers ---- */

static void writer_log(void *ctx, int level, const char *msg)
{
    (void)ctx;
    if (level == 0)
        log_notice("%s", msg);
    else
        log_warning("%s", msg);
}

static aof_fsync_policy policy(void)
{
    return (aof_fsync_policy)srv.cfg.appendfsync;
}

static uint64_t file_size(const char *name)
{
    return persist_file_size(P.dir, name);
}

/* Sizes of the base and of the incr files before the last one. */
static void measure_files(void)
{
    size_t i;
    P.base_size = 0;
    P.older_incr_size = 0;
    for (i = 0; i < P.m.nfiles; i++) {
        const aof_mfile *f = &P.m.files[i];
        if (f->kind == AOF_KIND_BASE)
            P.base_size = file_size(f->name);
        else if (i + 1 < P.m.nfiles)
            P.older_incr_size += file_size(f->name);
    }
}

static uint64_t current_size(void)
{
    aof_writer_stats st;
    if (!P.w)
        return 0;
    aof_writer_get_stats(P.w, &st);
    return P.base_size + P.older_incr_size + st.file_size;
}

/* Resolve cfg.dir to an absolute path in P.dir, create it and lock it. */
static int open_dir(void)
{
    char lock[AOF_PATH_MAX];
    const char *d = srv.cfg.dir && srv.cfg.dir[0] ? srv.cfg.dir : ".";
    char *abs;

    if (P.lock_fd >= 0)
        return 0;
    if (mkdir(d, 0755) < 0 && errno != EEXIST) {
        log_warning("Cannot create the log directory %s: %s", d, strerror(errno));
        return -1;
    }
    if (!(abs = realpath(d, NULL))) {
        log_warning("Cannot resolve the log directory %s: %s", d, strerror(errno));
        return -1;
    }
    snprintf(P.dir, sizeof(P.dir), "%s", abs);
    free(abs);
    if (aof_path(lock, sizeof(lock), P.dir, "scratchpad.lock") < 0 ||
        (P.lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        log_warning("Cannot open the lock file in %s: %s", P.dir, strerror(errno));
        return -1;
    }
    if (flock(P.lock_fd, LOCK_EX | LOCK_NB) < 0) {
        log_warning("The log directory %s is in use by another scratchpad-server (%s); "
                    "give each server its own 'dir'",
                    P.dir, strerror(errno));
        close(P.lock_fd);
        P.lock_fd = -1;
        return -1;
    }
    return 0;
}

static void attach_writer(aof_writer *w)
{
    P.w = w;
    aof_writer_set_log(w, writer_log, NULL);
    aof_writer_start_thread(w); /* not while a rewrite forks (aof_writer.h) */
    set_plog(aof_writer_buf(w));
    persist_flushed = P.consumed; /* positions stay monotonic across writers */
    P.flush_failing = 0;
}

/* ---- start and stop ---- */

/* No manifest: a fresh directory, unless it holds log files with records (a
 * manifest lost or not restored). Starting empty there would hide them, and
 * the first rewrite would make the empty dataset the log: refuse, and say how
 * to rebuild the manifest. 0, or -1 (refused; nothing was changed). */
static int refuse_orphans(void)
{
    char list[1024];
    int n = aof_dir_orphans(P.dir, &P.m, list, sizeof(list));

    if (n < 0) {
        log_warning("Cannot read the log directory %s: %s", P.dir, strerror(errno));
        return -1;
    }
    if (n == 0)
        return 0;
    log_warning("The log directory %s holds log files (%d with records) but no " AOF_MANIFEST_NAME ": %s. Scratchpad "
                "refuses to start rather than start empty beside them; nothing was changed. If the "
                "manifest was lost, rebuild it from the files' headers with "
                "'scratchpad-check-aof --rebuild-manifest %s' and start again; if the files are not "
                "wanted, move them out of the directory",
                P.dir, n, list, P.dir);
    return -1;
}

/* Start-up clean-up (aof_dir_clean): log the files it leaves in place. */
static void clean_dir(void)
{
    char kept[1024];
    size_t nkept;
    int removed = aof_dir_clean(P.dir, &P.m, &nkept, kept, sizeof(kept));

    if (removed > 0)
        log_notice("Removed %d temporary or empty file%s left by an interrupted step in %s", removed,
                   removed == 1 ? "" : "s", P.dir);
    if (nkept)
        log_warning("%zu file%s in %s not named by the manifest, left in place: %s. The log loaded "
                    "without them; they may be an older log's files (a crash before their removal) or "
                    "a base a rewrite never switched to. Remove them once you are sure they are not needed",
                    nkept, nkept == 1 ? "" : "s", P.dir, kept);
}

int persist_start(void)
{
    char err[512];
    aof_writer *w;
    int rc;

    P.started = 1;
    prop_admin.bgrewrite = persist_bgrewrite;
    prop_admin.get_info = persist_get_info;
    prop_admin.buffer_bytes = persist_buffer_bytes;
    aof_manifest_init(&P.m);
    aof_manifest_init(&P.stale);
    if (!srv.cfg.appendonly)
        return 0;
    if (open_dir() < 0)
        return -1;
    rc = aof_manifest_load(P.dir, &P.m, err, sizeof(err));
    if (rc < 0) {
        log_warning("Cannot read %s/" AOF_MANIFEST_NAME ": %s", P.dir, err);
        return -1;
    }
    if (rc == 1 && refuse_orphans() < 0)
        return -1;
    if (rc == 0 && persist_load(P.dir, &P.m, &P.load) < 0)
        return -1;
    if (rc == 1)
        log_notice("No log in %s yet: starting with an empty dataset", P.dir);
    clean_dir();
    if (!(w = aof_dir_start(P.dir, &P.m, policy(), NULL, err, sizeof(err)))) {
        log_warning("Cannot open the log in %s: %s", P.dir, err);
        return -1;
    }
    attach_writer(w);
    measure_files();
    return 0;
}

static void stop_child(void)
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

static void close_writer(void)
{
    if (!P.w)
        return;
    P.consumed += plog->len; /* written by the close, or lost with the log switched off */
    if (aof_writer_close(P.w) < 0)
        log_warning("Writing the last records of the log failed: %s", P.last_error);
    P.w = NULL;
    set_plog(NULL);
    persist_refusing_why = NULL;
    persist_flushed = UINT64_MAX; /* no log: nothing to wait for */
}

static void reap_remove(int wait);

void persist_stop(void)
{
    stop_child();
    reap_remove(1); /* a switched manifest is durable before the exit */
    if (P.w) {
        log_notice("Writing and syncing the log before exiting");
        aof_writer_flush(P.w);
        close_writer();
    }
    aof_manifest_free(&P.m);
    aof_manifest_free(&P.stale);
    if (P.lock_fd >= 0) {
        close(P.lock_fd);
        P.lock_fd = -1;
    }
}

/* ---- per iteration ---- */

int persist_acked_fn(uint64_t need)
{
    return persist_acked(need);
}

const char *persist_refusing_fn(void)
{
    return persist_refusing();
}

static void do_flush(void)
{
    size_t before;
    int rc;

    rwi_copy(); /* the records go into a new base being written too */
    before = plog->committed;
    rc = aof_writer_flush(P.w);

    P.consumed += before - plog->committed;
    refresh_refusing();
    if (rc == AOF_FLUSH_OK) {
        persist_flushed = P.consumed + plog->committed;
        if (P.flush_failing) {
            P.flush_failing = 0;
            log_notice("The log is writable again: held replies go out, writes are accepted");
        }
    } else if (rc == AOF_FLUSH_ERR && !P.flush_failing) {
        P.flush_failing = 1;
        log_warning("Writing the log failed (%s): replies to the writes it holds wait, new writes are refused "
                    "with -MISCONF, and the write is retried",
                    persist_refusing() ? persist_refusing() : "unknown error");
    }
}

void persist_before_replies(void)
{
    if (RI.state == RWI_SCAN) {
        rwi_step();
    } else if (RI.restart && RI.state == RWI_IDLE) {
        const char *err;
        RI.restart = 0;
        if (P.w && rwi_start(&err) < 0)
            P.rewrite_failures++;
    }
    if (P.w && (plog->committed > 0 || P.flush_failing))
        do_flush();
}

/* Refresh persist_refusing_why from the writer's state, which changes only
 * in a flush or when the fsync thread reports (collected by the writer's calls
 * made here): so write commands read a variable, not the writer's lock. */
static void refresh_refusing(void)
{
    aof_writer_stats st;
    if (!P.w || aof_writer_ok(P.w)) {
        persist_refusing_why = NULL;
        return;
    }
    aof_writer_get_stats(P.w, &st);
    snprintf(P.last_error, sizeof(P.last_error), "%s", strerror(st.err_no));
    persist_refusing_why = P.last_error;
}

/* ---- rewrite ---- */

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

static long long cow_current(void)
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
    for (i = 0; i < srv.cfg.databases && !x.failed; i++) {
        uint64_t cursor = 0;
        x.dbid = i;
        do
            cursor = ht_scan(&srv.dbs[i].keys, cursor, rewrite_visit, &x);
        while (cursor != 0 && !x.failed);
    }
    if (x.failed || aof_writer_sync(x.bw) < 0 || aof_writer_close(x.bw) < 0)
        _exit(1);
    if (cow_fd >= 0)
        cow_report(cow_fd);
    if (aof_rewrite_child_finish(&P.m, &P.rw, err, sizeof(err)) < 0) {
        fprintf(stderr, "log rewrite: %s\n", err);
        _exit(1);
    }
    _exit(0);
}

static int rewrite_start(const char **errmsg)
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
        do_flush();
    if (P.w && P.flush_failing) {
        *errmsg = "ERR Background append only file rewriting is not possible while the log cannot be written";
        return -1;
    }
    if (aof_rewrite_start(P.dir, &P.m, &P.w, policy(), NULL, &P.rw, err, sizeof(err)) < 0) {
        snprintf(msg, sizeof(msg), "ERR Can't start the log rewrite: %s", err);
        log_warning("%s", msg + 4);
        *errmsg = msg;
        return -1;
    }
    if (!plog)
        attach_writer(P.w);
    else
        set_plog(aof_writer_buf(P.w));
    measure_files();
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
static void reap_remove(int wait)
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
            reap_remove(1); /* the previous rewrite's, long finished */
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
    measure_files();
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
 *     yet written (persist_rewrite_touch, from cmd_call before the command
 *     runs: its keys from the command table), which stamps it too;
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
static void rwi_copy(void)
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

static int rwi_start(const char **errmsg)
{
    static char msg[600];
    char err[512];

    if (P.w && plog->committed > 0)
        do_flush();
    if (P.w && P.flush_failing) {
        *errmsg = "ERR Background append only file rewriting is not possible while the log cannot be written";
        return -1;
    }
    if (!P.w) {
        /* appendonly switched on: log from now on into a new incr, which no
         * manifest names until the base is complete. */
        aof_rewrite rw;
        if (aof_rewrite_start(P.dir, &P.m, &P.w, policy(), NULL, &rw, err, sizeof(err)) < 0)
            goto fail;
        attach_writer(P.w);
        measure_files();
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
            measure_files();
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
        do_flush();
    if (P.flush_failing)
        return;
    aof_stream_push(RI.st);
    P.rw = RI.prw;
    RI.prep = 0;
    aof_manifest_free(&RI.mprep);
    if (aof_rewrite_commit(&P.m, &RI.next, &P.w, policy(), NULL, &P.rw, err, sizeof(err)) < 0) {
        measure_files();
        rwi_abort(1, err);
        return;
    }
    set_plog(aof_writer_buf(P.w));
    measure_files();
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
static void rwi_step(void)
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
static void sink_keyed(int dbid, const char *key, size_t klen)
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
static void sink_keyless(const char *cmdname)
{
    rwi_abort(0, cmdname);
    RI.restart = 1;
}

int persist_busy(void)
{
    return RI.state == RWI_SCAN || RI.restart;
}

static int rewriting(void)
{
    return P.child > 0 || RI.state != RWI_IDLE || RI.restart;
}

int persist_bgrewrite(const char **err)
{
    if (rewriting()) {
        *err = "ERR Background append only file rewriting already in progress";
        return -1;
    }
    if (!P.w) {
        *err = "ERR Background append only file rewriting is not possible: appendonly is no";
        return -1;
    }
    return rewrite_start(err);
}

/* Give back the log buffer's memory once nothing was logged for a second: it
 * grows to the largest batch of records (4 MB and more after large writes) and
 * would otherwise stay that size on an idle or emptied server. Under load it is
 * kept, so a busy server does not allocate it again every iteration. */
static void trim_idle_buffer(void)
{
    uint64_t mark = sink_mark();
    int64_t now = now_ms();

    if (mark != P.idle_mark || P.idle_since == 0) {
        P.idle_mark = mark;
        P.idle_since = now;
    } else if (now - P.idle_since >= 1000 && plog->cap > 0) {
        aof_buf_trim(plog);
    }
}

size_t persist_buffer_bytes(void)
{
    return P.w && plog ? plog->cap : 0;
}

void persist_cron(void)
{
    if (P.w) {
        if (plog->committed > 0 || P.flush_failing)
            do_flush();
        else
            aof_writer_flush(P.w); /* starts a due everysec fsync, retries a failed one */
        refresh_refusing();
    }
    if (P.w)
        trim_idle_buffer();
    cow_poll();
    reap_child();
    rwi_reap();
    reap_remove(0);
    if (!P.w || rewriting())
        return;
    /* The automatic trigger; after AUTO_REWRITE_MAX_FAILURES failures in a row
     * it waits for a BGREWRITEAOF that succeeds. */
    if (srv.cfg.auto_aof_rewrite_percentage > 0 && P.rewrite_failures < AUTO_REWRITE_MAX_FAILURES) {
        uint64_t cur = current_size(), base = P.base_size ? P.base_size : 1;
        uint64_t growth = cur > base ? (cur - base) * 100 / base : 0;
        if (cur >= (uint64_t)srv.cfg.auto_aof_rewrite_min_size &&
            growth >= (uint64_t)srv.cfg.auto_aof_rewrite_percentage) {
            const char *err;
            log_notice("Starting automatic rewriting of AOF on %llu%% growth", (unsigned long long)growth);
            rewrite_start(&err);
        }
    }
}

/* ---- run-time switches ---- */

int persist_apply_appendonly(const char **err)
{
    if (!P.started)
        return 0;
    if (!srv.cfg.appendonly && P.w) {
        stop_child();
        aof_writer_flush(P.w);
        close_writer();
        log_notice("The log is off (appendonly no)");
        return 0;
    }
    if (srv.cfg.appendonly && !P.w) {
        uint64_t next = P.m.next_seq;
        if (open_dir() < 0) {
            *err = "cannot use the log directory (see the server log)";
            srv.cfg.appendonly = 0;
            return -1;
        }
        /* The files of an earlier log do not hold the writes made while it was
         * off: the new log starts from a new base of the whole dataset, and no
         * manifest names the new files until that base is complete. */
        aof_manifest_free(&P.m);
        aof_manifest_init(&P.m);
        P.m.next_seq = next > 1 ? next : 1;
        /* The files of the earlier log are removed once the new manifest is
         * saved (rewrite_done); until then they stay the log on disk. */
        aof_manifest_free(&P.stale);
        aof_manifest_init(&P.stale);
        if (aof_manifest_load(P.dir, &P.stale, NULL, 0) == 0) {
            size_t i;
            for (i = 0; i < P.stale.nfiles; i++)
                if (P.stale.files[i].seq >= P.m.next_seq)
                    P.m.next_seq = P.stale.files[i].seq + 1;
        } else {
            aof_manifest_free(&P.stale);
            aof_manifest_init(&P.stale);
        }
        /* Nor over a file no manifest names. */
        aof_dir_seq_past(P.dir, &P.m);
        if (rewrite_start(err) < 0) {
            srv.cfg.appendonly = 0;
            return -1;
        }
        log_notice("The log is on (appendonly yes): writing the dataset to a new base");
    }
    return 0;
}

int persist_apply_fsync(const char **err)
{
    (void)err;
    if (P.w)
        aof_writer_set_policy(P.w, policy());
    return 0;
}

/* ---- INFO ---- */

void persist_get_info(persist_info *pi)
{
    aof_writer_stats st;
    const char *why;

    memset(pi, 0, sizeof(*pi));
    pi->enabled = P.w != NULL;
    pi->rewrite_in_progress = rewriting();
    pi->rewrite_mode = srv.cfg.aof_rewrite_mode ? "fork" : "incremental";
    pi->rewrite_scanned = RI.scanned;
    pi->rewrite_touched = RI.touched;
    pi->last_rewrite_time_sec = P.last_rewrite_sec;
    pi->current_rewrite_time_sec = rewriting() ? (now_ms() - P.rewrite_start_ms) / 1000 : -1;
    pi->last_rewrite_ok = P.last_rewrite_ok;
    pi->rewrites = P.rewrites;
    pi->current_cow_size = P.child > 0 ? cow_current() : 0;
    pi->rewrite_failures_in_a_row = P.rewrite_failures;
    pi->last_cow_size = P.last_cow;
    pi->fork_usec = P.fork_usec;
    pi->load_records = P.load.records;
    pi->load_bytes = P.load.bytes;
    pi->load_ms = P.load.ms;
    pi->load_truncated_bytes = P.load.truncated;
    pi->load_bad_values = P.load.bad_values;
    pi->load_bad_effects = P.load.bad_effects;
    pi->fsync_policy = aof_fsync_policy_name(policy());
    pi->dir = P.dir[0] ? P.dir : (srv.cfg.dir ? srv.cfg.dir : "");
    why = persist_refusing();
    pi->last_write_ok = why == NULL && !P.flush_failing;
    pi->last_write_error = why ? why : "";
    if (P.w) {
        aof_writer_get_stats(P.w, &st);
        pi->current_size = (long long)current_size();
        pi->base_size = (long long)P.base_size;
        pi->buffer_length = (long long)(plog->len);
        pi->fsync_in_progress = st.fsync_in_progress;
        pi->delayed_fsync = (long long)st.delayed_fsync;
    }
}
