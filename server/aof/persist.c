/* persist.c -- the server's side of the append-only log (see persist.h): the
 * log as the sink of the server's effects, its directory, start and stop, the
 * per-iteration flush that held replies wait for, the cron, the run-time
 * switches and INFO. The rewrite is persist_rewrite.c; the replay at start-up,
 * persist_load.c.
 *
 * State: one writer (NULL when the log is off), the manifest that describes the
 * files on disk, and at most one rewrite child (P, persist_int.h). plog points
 * into the writer's buffer whenever the writer exists and the server is not
 * loading. */
#include "aof/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aof_manifest.h"
#include "aof_writer.h"
#include "aof/persist_int.h"
#include "aof/persist_load.h"
#include "cmd/propagate.h"
#include "config.h"
#include "log.h"
#include "core/util.h"

aof_buf *plog;
uint64_t persist_flushed;
const char *persist_refusing_why; /* log position written (and synced, `always`) */

persist_state P = {.lock_fd = -1, .child = -1, .last_rewrite_sec = -1, .last_rewrite_ok = 1};

static void refresh_refusing(void);

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

static const prop_sink aof_sink = {
    .name = "aof",
    .begin = sink_begin,
    .arg = sink_arg,
    .arg_lzval = sink_lzval,
    .end = sink_end,
    .mark = sink_mark,
    .refusing = sink_refusing,
    .wants_keys = &persist_rewriting,
    .keyed = rwi_keyed,
    .keyless = rwi_keyless,
};

/* The log's buffer: set while the writer is open (the sink attached), NULL
 * while it is closed or the log loads. */
void persist_set_plog(aof_buf *b)
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

aof_fsync_policy persist_policy(void)
{
    return (aof_fsync_policy)srv.cfg.appendfsync;
}

static uint64_t file_size(const char *name)
{
    return persist_file_size(P.dir, name);
}

/* Sizes of the base and of the incr files before the last one. */
void persist_measure_files(void)
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

uint64_t persist_current_size(void)
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

void persist_attach_writer(aof_writer *w)
{
    P.w = w;
    aof_writer_set_log(w, writer_log, NULL);
    aof_writer_start_thread(w); /* not while a rewrite forks (aof_writer.h) */
    persist_set_plog(aof_writer_buf(w));
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
    if (!(w = aof_dir_start(P.dir, &P.m, persist_policy(), NULL, err, sizeof(err)))) {
        log_warning("Cannot open the log in %s: %s", P.dir, err);
        return -1;
    }
    persist_attach_writer(w);
    persist_measure_files();
    return 0;
}

static void close_writer(void)
{
    if (!P.w)
        return;
    P.consumed += plog->len; /* written by the close, or lost with the log switched off */
    if (aof_writer_close(P.w) < 0)
        log_warning("Writing the last records of the log failed: %s", P.last_error);
    P.w = NULL;
    persist_set_plog(NULL);
    persist_refusing_why = NULL;
    persist_flushed = UINT64_MAX; /* no log: nothing to wait for */
}

void persist_stop(void)
{
    rw_stop();
    rw_reap_remove(1); /* a switched manifest is durable before the exit */
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

void persist_flush(void)
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
        persist_flush();
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

/* ---- the cron ---- */

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
            persist_flush();
        else
            aof_writer_flush(P.w); /* starts a due everysec fsync, retries a failed one */
        refresh_refusing();
    }
    if (P.w)
        trim_idle_buffer();
    rw_cron();
}

/* ---- run-time switches ---- */

int persist_apply_appendonly(const char **err)
{
    if (!P.started)
        return 0;
    if (!srv.cfg.appendonly && P.w) {
        rw_stop();
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
        if (rw_start(err) < 0) {
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
        aof_writer_set_policy(P.w, persist_policy());
    return 0;
}

/* ---- INFO ---- */

void persist_get_info(persist_info *pi)
{
    aof_writer_stats st;
    const char *why;

    memset(pi, 0, sizeof(*pi));
    pi->enabled = P.w != NULL;
    pi->rewrite_in_progress = rw_in_progress();
    pi->rewrite_mode = srv.cfg.aof_rewrite_mode ? "fork" : "incremental";
    pi->rewrite_scanned = RI.scanned;
    pi->rewrite_touched = RI.touched;
    pi->last_rewrite_time_sec = P.last_rewrite_sec;
    pi->current_rewrite_time_sec = rw_in_progress() ? (now_ms() - P.rewrite_start_ms) / 1000 : -1;
    pi->last_rewrite_ok = P.last_rewrite_ok;
    pi->rewrites = P.rewrites;
    pi->current_cow_size = P.child > 0 ? rw_cow_current() : 0;
    pi->rewrite_failures_in_a_row = P.rewrite_failures;
    pi->last_cow_size = P.last_cow;
    pi->fork_usec = P.fork_usec;
    pi->load_records = P.load.records;
    pi->load_bytes = P.load.bytes;
    pi->load_ms = P.load.ms;
    pi->load_truncated_bytes = P.load.truncated;
    pi->load_bad_values = P.load.bad_values;
    pi->load_bad_effects = P.load.bad_effects;
    pi->fsync_policy = aof_fsync_policy_name(persist_policy());
    pi->dir = P.dir[0] ? P.dir : (srv.cfg.dir ? srv.cfg.dir : "");
    why = persist_refusing();
    pi->last_write_ok = why == NULL && !P.flush_failing;
    pi->last_write_error = why ? why : "";
    if (P.w) {
        aof_writer_get_stats(P.w, &st);
        pi->current_size = (long long)persist_current_size();
        pi->base_size = (long long)P.base_size;
        pi->buffer_length = (long long)(plog->len);
        pi->fsync_in_progress = st.fsync_in_progress;
        pi->delayed_fsync = (long long)st.delayed_fsync;
    }
}
