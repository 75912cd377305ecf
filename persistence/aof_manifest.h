/* aof_manifest.h -- the set of files that make up the log, and its changes.
 *
 * Why: a rewrite replaces the whole log while writes go on. As Redis 7's
 * multi-part AOF, the log is a base file (a snapshot written by a rewrite) and
 * the incremental files written after it, named by a small text manifest,
 * `scratchpad.manifest` in the log directory. Replacing the manifest is atomic
 * (temp file, fsync, rename, fsync of the directory), so at every instant the
 * manifest on disk names a complete, loadable set of files:
 *
 *   - a file is named only once it exists durably with its header (created,
 *     written, fsynced, directory fsynced), so a crash never leaves the manifest
 *     naming a missing or headerless file;
 *   - a file the manifest names is only ever appended to (the torn tail of the
 *     last incr file aside), and deleted only after a newer manifest that no
 *     longer names it is durable;
 *   - a rewrite (below) first opens a new incr file and names it after the old
 *     ones: from then on writes go there, and the old manifest plus that file
 *     stay a complete set while the child writes the new base under a temporary
 *     name; the new manifest {new base, new incr...} replaces it only once the
 *     base is complete and durable. A crash before the switch loads the old set,
 *     a crash after it the new one; either holds every write.
 *
 * Manifest text (docs/aof.md): a first line "scratchpad-manifest 1", then one line
 * per file in replay order: "file <name> seq <n> type base|incr". At most one
 * base, first; incr files in increasing seq. '#' lines and blank lines are
 * ignored. Sequence numbers are unique and never reused while the process runs
 * (aof_manifest_alloc_seq), and a start-up moves the counter past every file on
 * disk (aof_dir_clean), so no new file is ever created over an existing one.
 * A file on disk that the manifest does not name is removed only when it cannot
 * hold the only copy of a write (a temporary, or a bare header): anything else
 * stays where it is (aof_dir_clean), and a directory with log files but no
 * manifest is not a fresh one (aof_dir_orphans).
 *
 * Errors: functions return 0 / -1 and write a message into err (errlen bytes,
 * may be NULL). The manifest's memory comes from mem.h. */
#ifndef SP_AOF_MANIFEST_H
#define SP_AOF_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "aof_writer.h"

#define AOF_MANIFEST_NAME "scratchpad.manifest"
#define AOF_MANIFEST_VERSION 1
#define AOF_FILE_PREFIX "scratchpad.aof." /* every file name we create starts so */
#define AOF_NAME_MAX 200                   /* bytes, a file name in the manifest */
#define AOF_PATH_MAX 4096                  /* bytes, dir + '/' + name */

typedef struct aof_mfile {
    char name[AOF_NAME_MAX + 1]; /* file name, relative to the log directory */
    uint64_t seq;
    int kind;                    /* AOF_KIND_BASE or AOF_KIND_INCR */
} aof_mfile;

typedef struct aof_manifest {
    aof_mfile *files;  /* nfiles files in replay order */
    size_t nfiles;
    size_t cap;
    uint64_t next_seq; /* the next number aof_manifest_alloc_seq gives */
} aof_manifest;

/* An empty manifest (no file; next_seq 1). */
void aof_manifest_init(aof_manifest *m);
/* Release m's memory; it is empty again (as after init). */
void aof_manifest_free(aof_manifest *m);
/* Make dst (uninitialised) a deep copy of src; free it with aof_manifest_free. */
void aof_manifest_copy(aof_manifest *dst, const aof_manifest *src);

/* Read dir/scratchpad.manifest into m (replacing its files). Returns 0, 1 if
 * there is no manifest (m left empty), -1 on a read error or invalid text. */
int aof_manifest_load(const char *dir, aof_manifest *m, char *err, size_t errlen);
/* Parse manifest text (n bytes). Returns 0 or -1 (err names the line). */
int aof_manifest_parse(const char *text, size_t n, aof_manifest *m, char *err, size_t errlen);
/* The manifest text of m (NUL-terminated, xmalloc'd; the caller frees it). */
char *aof_manifest_format(const aof_manifest *m);
/* Replace dir/scratchpad.manifest with m, atomically and durably (temp file,
 * fsync, rename, directory fsync). On failure the old manifest is unchanged. */
int aof_manifest_save(const char *dir, const aof_manifest *m, char *err, size_t errlen);

/* Append a file entry. -1 if the name is invalid (empty, too long, with '/',
 * a space or a control byte, "." or ".."), a second base, a base after an incr,
 * an incr whose seq is not above the previous incr's, or a seq already used. */
int aof_manifest_add(aof_manifest *m, int kind, uint64_t seq, const char *name, char *err,
                     size_t errlen);
/* A new sequence number, above every one m names or gave before. */
uint64_t aof_manifest_alloc_seq(aof_manifest *m);
/* The base entry, or NULL. The last entry, or NULL. */
const aof_mfile *aof_manifest_base(const aof_manifest *m);
const aof_mfile *aof_manifest_last(const aof_manifest *m);

/* The canonical name of file seq: "scratchpad.aof.<seq>.base" / ".incr". */
void aof_file_name(char *out, size_t cap, uint64_t seq, int kind);
/* dir + "/" + name into out; -1 if it does not fit. */
int aof_path(char *out, size_t cap, const char *dir, const char *name);

/* fsync the directory dir (makes creations, renames and removals durable). */
int aof_dir_fsync(const char *dir);
/* Cut the file at path to size bytes and fsync it (repair of a torn tail). */
int aof_file_truncate(const char *path, uint64_t size, char *err, size_t errlen);

/* ---- Start-up -----------------------------------------------------------------
 *
 * After loading (or with no manifest at all), open the writer the server appends
 * to. With an empty m (no manifest: first start): creates dir if missing, an
 * empty base file, an incr file, and saves the manifest. Otherwise: if the last
 * file is an incr, opens it for appending (truncate a torn tail first); if it is
 * the base, creates a new incr and saves the manifest naming it. Returns the
 * writer, or NULL (err set). Either way m describes the manifest on disk, and the
 * files that manifest names are unchanged (new ones may have been added). */
aof_writer *aof_dir_start(const char *dir, aof_manifest *m, aof_fsync_policy policy,
                          const aof_io *io, char *err, size_t errlen);

/* A file of the log directory that belongs to a log (its name starts with
 * AOF_FILE_PREFIX, or is one of the manifest's temporaries). */
typedef struct aof_dirfile {
    char name[AOF_NAME_MAX + 1];
    uint64_t seq;  /* from a name "scratchpad.aof.<seq>.base|incr[.tmp]"; 0 if none */
    int kind;      /* from that name: AOF_KIND_BASE / AOF_KIND_INCR, else AOF_KIND_NONE */
    int temp;      /* a base's ".tmp" or a manifest temporary: never named by a manifest */
    uint64_t size; /* bytes */
} aof_dirfile;

/* The log's files in dir, sorted by seq then name, into *out (xmalloc'd, the
 * caller frees it; NULL when there are none) and *n. 0, or -1 if dir exists but
 * cannot be read (errno set); a missing dir has no files. */
int aof_dir_list(const char *dir, aof_dirfile **out, size_t *n);

/* Raise m->next_seq above the seq of every file of dir named
 * "scratchpad.aof.<seq>...", named by m or not. */
void aof_dir_seq_past(const char *dir, aof_manifest *m);

/* The files of dir that m does not name and that may hold records (a name
 * starting with AOF_FILE_PREFIX and more than a header's bytes): with no
 * manifest, such a directory is not a fresh one, and the server refuses to
 * start. Lists every unnamed file starting with AOF_FILE_PREFIX, bare headers
 * too, in list ("name (N bytes), ...", cut with "..." past cap; may be NULL).
 * Returns the count of those that may hold records, or -1 if dir cannot be
 * read. */
int aof_dir_orphans(const char *dir, const aof_manifest *m, char *list, size_t cap);

/* Start-up clean-up. The rule (docs/aof.md §1): no file that may hold the only
 * copy of a write is removed. Of the files in dir that m does not name, this
 * removes only
 *   - the manifest's temporaries (never put in place);
 *   - a base's temporary "scratchpad.aof.<n>.base.tmp", when m names a file: a
 *     rewrite that never switched the log, whose records are copies of the
 *     named files' state;
 *   - a file of at most a header (AOF_HEADER_SIZE bytes): it holds no record.
 * Every other unnamed file starting with AOF_FILE_PREFIX (an older log's files
 * left by a crash before their removal, a base renamed by a rewrite that never
 * switched, a file an operator put there) stays, and is listed in kept ("name
 * (N bytes), ...", cut with "..." past keptcap; may be NULL) for the caller to
 * log; *nkept gets their count (may be NULL). m->next_seq is raised past every
 * file on disk (aof_dir_seq_past). Call only when no rewrite is running (its
 * temp base would go too). Returns the number of files removed. */
int aof_dir_clean(const char *dir, aof_manifest *m, size_t *nkept, char *kept, size_t keptcap);
/* Unlink every file of files (e.g. the obsolete set from aof_rewrite_finish) from
 * dir, then fsync dir. Returns the number of failures. A large file is shrunk
 * 32 MB at a time with a 10 ms pause between steps before its unlink (about
 * 0.35 s per GB), so that freeing it does not occupy the disk: a server runs
 * this on a background thread (it touches no shared state but its arguments). */
int aof_dir_remove(const char *dir, const aof_manifest *files);

/* ---- Rewrite ------------------------------------------------------------------
 *
 *   parent:  aof_rewrite_start(dir, &m, &w, ...)   then fork()
 *   child:   bw = aof_rewrite_base_create(&rw, ...); for each key: encode records
 *            into aof_writer_buf(bw), aof_writer_flush(bw) when the buffer passes
 *            a few MB; then aof_writer_sync(bw) == 0 && aof_writer_close(bw) == 0
 *            and aof_rewrite_child_finish(&m, &rw, ...) == 0 → _exit(0), else
 *            _exit(1). The child never touches the parent's writer w (its
 *            background thread does not exist in the child).
 *   parent, child exited 0:  aof_rewrite_finish(dir, &m, &rw, &old, &fd, ...),
 *            then aof_dir_fsync(dir), close(fd) and aof_dir_remove(dir, &old)
 *            (now or on a background thread).
 *   parent, child failed:    aof_rewrite_abort(&rw); the log stays as it is (the
 *            new incr is already part of it); a later rewrite starts again. */
typedef struct aof_rewrite {
    uint64_t incr_seq;             /* the incr opened at the start: it and later ones stay */
    uint64_t base_seq;             /* the seq of the new base */
    char dir[AOF_PATH_MAX];
    char temp_path[AOF_PATH_MAX];  /* where the child writes the base */
    char base_path[AOF_PATH_MAX];  /* the base's final name, given by the child */
    char manifest_temp[AOF_PATH_MAX]; /* the manifest the child prepares */
    char incr_path[AOF_PATH_MAX];  /* the incr opened at the start */
    int saved;                     /* the manifest naming it was saved */
} aof_rewrite;

/* Parent, before fork: flush *w and switch it to a new incr file that m names
 * after its current files; save the manifest if m has a base (if it has none,
 * the log is being switched on at run time and no manifest is saved until the
 * base exists). With *w == NULL (switching the log on), a writer on the new incr
 * is created into *w with policy and io. Fills rw. Returns 0, or -1 with nothing
 * changed on disk that the manifest names (err set). */
int aof_rewrite_start(const char *dir, aof_manifest *m, aof_writer **w,
                      aof_fsync_policy policy, const aof_io *io, aof_rewrite *rw, char *err,
                      size_t errlen);
/* Child: create the temporary base file (header: kind base, seq rw->base_seq),
 * with a writer of policy no. NULL on failure (err set). */
aof_writer *aof_rewrite_base_create(const aof_rewrite *rw, char *err, size_t errlen);
/* aof_rewrite_start in two halves, so that the I/O (a new file with its header
 * and fsyncs, a manifest save: several fsyncs) can run on another thread ahead
 * of the switch itself. An incremental rewrite (persist_rewrite.c) writes its
 * base while the log goes on in the current incr, and switches the log to a new
 * incr at the instant the base is complete; its base was created at
 * aof_rewrite_temp_path(dir, base_seq) with a seq from aof_manifest_alloc_seq
 * (base_seq 0: allocate one, as aof_rewrite_start). The rest of the protocol is
 * the child's and the parent's above (aof_rewrite_child_finish may run on any
 * thread, with a copy of m).
 *   aof_rewrite_prepare: create the next incr, fill rw, and save a manifest
 *     naming it after m's files (if m has a base: rw->saved). m is only read
 *     (pass a copy if the loop may change it meanwhile), no writer is touched.
 *     *next (uninitialised) gets the manifest now on disk. 0, or -1 (err set,
 *     nothing left behind, *next untouched).
 *   aof_rewrite_commit (the writer's thread): switch *w (or open one) to the
 *     prepared incr and make m describe *next, which is consumed. 0, or -1 (the
 *     writer stays where it was; m takes *next anyway if it was saved).
 * Between the two, the log may go on in its current incr: a manifest naming an
 * empty incr after it is complete and ordered. */
int aof_rewrite_prepare(const char *dir, const aof_manifest *m, const aof_io *io, uint64_t base_seq,
                        aof_rewrite *rw, aof_manifest *next, char *err, size_t errlen);
int aof_rewrite_commit(aof_manifest *m, aof_manifest *next, aof_writer **w, aof_fsync_policy policy,
                       const aof_io *io, const aof_rewrite *rw, char *err, size_t errlen);
/* The temporary name of the base numbered seq in dir (as aof_rewrite_start
 * names it). 0, or -1 if the path is too long. */
int aof_rewrite_temp_path(char *out, size_t cap, const char *dir, uint64_t seq);
/* Child, after the base is synced and closed: rename the temp base to its final
 * name, fsync dir, and write and fsync the manifest {new base, the incr files
 * from rw->incr_seq on} (m as it was at the fork) under a temporary name. No file
 * the current manifest names is touched: a crash leaves the old log whole. The
 * child does these fsyncs so that the server's loop does not wait for them.
 * Returns 0, or -1 (err set). */
int aof_rewrite_child_finish(const aof_manifest *m, const aof_rewrite *rw, char *err, size_t errlen);
/* Parent, after the child succeeded: switch to the child's manifest (a rename;
 * if m changed since the fork, the right manifest is written and saved here)
 * and make m describe it. The directory is not fsynced: the caller fsyncs it
 * (off the loop) before it removes anything; until then a crash may bring back
 * the old manifest, whose files are all still there. The files no longer named
 * are moved into *obsolete (initialised here) for the caller to remove after
 * that fsync. *held_fd is a descriptor of the replaced manifest (or -1) for the
 * caller to close off the loop too. Returns 0, or -1 (err set; m unchanged;
 * the new base may be left behind, named by nothing: the next start leaves it
 * in place and logs it, aof_dir_clean). */
int aof_rewrite_finish(const char *dir, aof_manifest *m, const aof_rewrite *rw,
                       aof_manifest *obsolete, int *held_fd, char *err, size_t errlen);
/* Parent, after the child failed: remove the files the rewrite made. */
void aof_rewrite_abort(const aof_rewrite *rw);

#endif
