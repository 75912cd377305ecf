/* check_aof.c -- scratchpad-check-aof: verify a log, and repair it without
 * throwing away intact records unless told to.
 *
 *   scratchpad-check-aof [--fix [--truncate | --skip-record]] FILE
 *
 * FILE is a log file (it starts with "SPAOF") or a manifest (scratchpad.manifest:
 * then every file it names, in its directory, is checked in order). Every record
 * is checked as the server's loader checks it: length, CRC32C, payload structure,
 * and each compressed value is rebuilt (every LZ4 chunk decoded once). The tool
 * prints, per file, its counts of records, effects, arguments and bytes, then OK
 * or the first bad record's offset and the reason.
 *
 * --fix repairs by kind of damage (docs/aof.md §6 has the table of what each
 * keeps and loses):
 *  - a torn tail (a record cut short by the end of the last file): truncated;
 *  - a bad value (an intact record, its CRC good, holding a compressed value
 *    that does not decode): that record alone is dropped (a transaction's
 *    record goes whole: it is one unit of atomicity), the file rewritten
 *    atomically (temporary file, fsync, rename, directory fsync); every other
 *    record is kept;
 *  - a damaged record (bad CRC, impossible length, bad structure), wherever it
 *    is: the tool will not guess. With --truncate it cuts the file there (all
 *    after it is lost, listed: bytes, and in a manifest the files after it,
 *    which are removed from the manifest and left on disk); with --skip-record
 *    it drops only that record, if its length field is plausible and the rest
 *    of the file then checks (else it refuses); with neither it exits 1 naming
 *    the two.
 * A damaged header, or a file of the wrong kind, cannot be repaired.
 *
 * FILE may also be the log directory (its manifest is checked). A directory
 * that holds log files but no manifest is reported with the files found, and
 *
 *   scratchpad-check-aof --rebuild-manifest DIR
 *
 * writes DIR/scratchpad.manifest from the files' own headers (kind and seq),
 * only when it can vouch for the order (rebuild_manifest below: the newest
 * base, the incr file its rewrite created, and every incr after it; any doubt
 * is refused, saying why), then checks the log it names.
 *
 * Exit status: 0 the log is valid (or was repaired); 1 a torn or corrupt record
 * or manifest was found and not repaired, or a manifest is missing or cannot be
 * rebuilt; 2 usage error or I/O error. */
#include "aof.h"
#include "aof_manifest.h"
#include "aof_reader.h"
#include "lz/lzval.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXIT_VALID 0
#define EXIT_BAD 1
#define EXIT_USAGE 2

typedef struct check_result {
    aof_status status;      /* AOF_END when the file is valid */
    int fixable;            /* 1 if truncating at offset repairs it */
    int badvalue;           /* the record at offset is intact but holds a value that does not decode */
    uint64_t reclen;        /* bytes of the record at offset (header included), when known */
    uint64_t offset;        /* bytes, where the bad record starts */
    uint64_t dropped;       /* bytes from offset to the end of the file */
    char why[200];
    uint64_t records, effects, args, lzvals, bytes;
} check_result;

/* Walk every argument of rec, rebuilding compressed values. 0, or -1 with why. */
static int check_record(const aof_record *rec, check_result *res)
{
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;

    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &e)) {
        res->effects++;
        aof_args_begin(&ai, &e);
        while (aof_args_next(&ai, &a)) {
            res->args++;
            if (a.kind == AOF_ARG_LZVAL) {
                lzval *v = aof_arg_lzval(&a);
                if (!v || lzval_len(v) != a.len) {
                    lzval_free(v);
                    snprintf(res->why, sizeof(res->why), "a compressed value does not decode");
                    return -1;
                }
                lzval_free(v);
                res->lzvals++;
            }
        }
    }
    return 0;
}

/* The bytes of the record at off in the file at path (8 + its length field),
 * or 0 if the field is impossible or runs past the end of the file. */
static uint64_t record_len(const char *path, uint64_t off)
{
    unsigned char h[4];
    FILE *f = fopen(path, "rb");
    uint64_t n = 0, size;

    if (!f)
        return 0;
    if (fseeko(f, 0, SEEK_END) == 0 && (size = (uint64_t)ftello(f)) > off + AOF_REC_HDR &&
        fseeko(f, (off_t)off, SEEK_SET) == 0 && fread(h, 1, 4, f) == 4) {
        n = (uint64_t)h[0] | (uint64_t)h[1] << 8 | (uint64_t)h[2] << 16 | (uint64_t)h[3] << 24;
        n = n >= 1 && n <= AOF_PAYLOAD_MAX && off + AOF_REC_HDR + n <= size ? AOF_REC_HDR + n : 0;
    }
    fclose(f);
    return n;
}

/* Check the log file at path. kind and seq: what a manifest says of it (kind
 * AOF_KIND_NONE: anything goes); last: whether a torn tail is acceptable here. */
static void check_file(const char *path, int kind, uint64_t seq, int last, check_result *res)
{
    aof_reader *r = aof_reader_open(path);
    const aof_header *h;
    aof_record rec;
    aof_status st;

    memset(res, 0, sizeof(*res));
    if (!r) {
        res->status = AOF_IOERR;
        snprintf(res->why, sizeof(res->why), "cannot open: %s", strerror(errno));
        return;
    }
    h = aof_reader_header(r);
    if (h && kind != AOF_KIND_NONE && (int)(h->flags & AOF_KIND_MASK) != kind) {
        res->status = AOF_CORRUPT;
        snprintf(res->why, sizeof(res->why), "file kind mismatch between the header and the manifest");
        goto done;
    }
    if (h && kind != AOF_KIND_NONE && h->seq != 0 && h->seq != seq) {
        res->status = AOF_CORRUPT;
        snprintf(res->why, sizeof(res->why), "the header says seq %" PRIu64 ", the manifest seq %" PRIu64,
                 h->seq, seq);
        goto done;
    }
    if (h)
        res->bytes = AOF_HEADER_SIZE;
    while ((st = aof_reader_next(r, &rec)) == AOF_OK) {
        if (check_record(&rec, res) < 0) {
            res->status = AOF_CORRUPT;
            res->fixable = 1;
            res->badvalue = 1;
            res->reclen = AOF_REC_HDR + (uint64_t)rec.len;
            res->offset = rec.offset;
            res->dropped = aof_reader_size(r) - rec.offset;
            goto done;
        }
        res->records++;
        res->bytes += AOF_REC_HDR + (uint64_t)rec.len;
    }
    res->status = st;
    if (st == AOF_END)
        goto done;
    res->offset = aof_reader_offset(r);
    res->dropped = aof_reader_dropped(r);
    res->fixable = (st == AOF_TORN || st == AOF_CORRUPT) && h != NULL;
    if (st == AOF_CORRUPT && h != NULL)
        res->reclen = record_len(path, res->offset);
    snprintf(res->why, sizeof(res->why), "%s", aof_reader_why(r));
    if (st == AOF_TORN && !last) {
        res->status = AOF_CORRUPT;
        snprintf(res->why, sizeof(res->why), "torn record in a file that is not the last one (%s)",
                 aof_reader_why(r));
    }
done:
    aof_reader_close(r);
}

static void print_result(const char *name, const check_result *res)
{
    printf("%s: %" PRIu64 " records, %" PRIu64 " effects, %" PRIu64 " arguments (%" PRIu64
           " compressed values), %" PRIu64 " bytes verified\n",
           name, res->records, res->effects, res->args, res->lzvals, res->bytes);
    if (res->status == AOF_END) {
        printf("%s: OK\n", name);
        return;
    }
    if (res->status == AOF_IOERR) {
        printf("%s: I/O error: %s\n", name, res->why);
        return;
    }
    printf("%s: %s at offset %" PRIu64 ": %s\n", name,
           res->badvalue ? "BAD VALUE" : res->status == AOF_TORN ? "TORN" : "CORRUPT", res->offset, res->why);
    if (!res->fixable)
        printf("%s: cannot be repaired\n", name);
    else if (res->badvalue)
        printf("%s: the record (%" PRIu64 " bytes) is intact but holds a value damaged before it was logged; "
               "--fix drops that record alone and keeps every other\n", name, res->reclen);
    else if (res->status == AOF_TORN)
        printf("%s: the valid prefix is %" PRIu64 " bytes; --fix drops the %" PRIu64
               " bytes of the torn record\n", name, res->offset, res->dropped);
    else
        printf("%s: the record's bytes are damaged; --fix --truncate would lose the %" PRIu64
               " bytes from it to the end of the file (and the files after it), --fix --skip-record only its %"
               PRIu64 " bytes%s\n", name, res->dropped, res->reclen,
               res->reclen ? "" : " (not possible: its length field is not plausible)");
}

/* Write the file at path without its bytes [off, off + n) to path.tmp (fsynced).
 * 0, or -1 with a message (nothing left behind). */
static int write_without(const char *path, const char *tmp, uint64_t off, uint64_t n)
{
    FILE *in = fopen(path, "rb");
    int fd = -1, rc = -1;
    char buf[65536];
    uint64_t pos = 0;
    size_t k;

    if (!in || (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        goto done;
    while ((k = fread(buf, 1, sizeof(buf), in)) > 0) {
        size_t a = 0, b = k; /* the part of buf[0..k) outside [off, off + n) is written */
        if (pos + k > off && pos < off + n) {
            a = off > pos ? (size_t)(off - pos) : 0;
            b = off + n < pos + k ? (size_t)(off + n - pos) : k;
            if (a > 0 && write(fd, buf, a) != (ssize_t)a)
                goto done;
            if (b < k && write(fd, buf + b, k - b) != (ssize_t)(k - b))
                goto done;
        } else if (write(fd, buf, k) != (ssize_t)k) {
            goto done;
        }
        pos += k;
    }
    if (ferror(in) || fsync(fd) < 0)
        goto done;
    rc = 0;
done:
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (in)
        fclose(in);
    if (rc < 0)
        unlink(tmp);
    return rc;
}

/* Rename tmp over path and fsync the directory. 0 or -1. */
static int replace_file(const char *tmp, const char *path)
{
    char dir[AOF_PATH_MAX];
    const char *slash = strrchr(path, '/');
    int fd;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (rename(tmp, path) < 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if ((fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY)) >= 0) {
        fsync(fd);
        close(fd);
    }
    return 0;
}

/* Drop the record at res->offset (res->reclen bytes) from the file at path,
 * atomically. For a damaged record (not a bad value) the rest must then check
 * from there (its next record parses), else nothing changes. kind, seq, last:
 * as check_file. 0 dropped, 1 refused, -1 I/O error. */
static int drop_record(const char *path, const check_result *res, int kind, uint64_t seq, int last)
{
    char tmp[AOF_PATH_MAX + 8];
    check_result after;

    if (res->reclen == 0) {
        printf("%s: --skip-record refused: the length field at offset %" PRIu64 " is not plausible\n", path,
               res->offset);
        return 1;
    }
    snprintf(tmp, sizeof(tmp), "%s.fixtmp", path);
    if (write_without(path, tmp, res->offset, res->reclen) < 0)
        return -1;
    if (!res->badvalue) {
        check_file(tmp, kind, seq, last, &after);
        if (after.status != AOF_END && !after.badvalue && after.offset == res->offset) {
            printf("%s: --skip-record refused: the record after the damaged one does not parse either (%s); "
                   "only --truncate can repair this file\n", path, after.why);
            unlink(tmp);
            return 1;
        }
    }
    if (replace_file(tmp, path) < 0)
        return -1;
    printf("%s: dropped the record at offset %" PRIu64 " (%" PRIu64 " bytes); every other record kept\n", path,
           res->offset, res->reclen);
    return 0;
}

enum { FIX_NONE = 0, FIX_TRUNCATE, FIX_SKIP }; /* what --fix may do to a damaged record */

/* The repair --fix makes for res (file at path): FIX_DROP (drop_record made it,
 * check again), FIX_CUT (truncate at res->offset: the caller does it, with the
 * manifest), FIX_REFUSED (printed why), or -1 (I/O error). */
enum { FIX_DROP, FIX_CUT, FIX_REFUSED };
static int fix_choice(const char *path, const check_result *res, int mode, int kind, uint64_t seq, int last)
{
    int r;

    if (!res->fixable)
        return FIX_REFUSED;
    if (res->status == AOF_TORN)
        return FIX_CUT;
    if (res->badvalue || mode == FIX_SKIP) {
        r = drop_record(path, res, kind, seq, last);
        return r < 0 ? -1 : r == 0 ? FIX_DROP : FIX_REFUSED;
    }
    if (mode == FIX_TRUNCATE)
        return FIX_CUT;
    printf("%s: --fix will not guess for a damaged record: add --truncate (cut the file at offset %" PRIu64
           ", losing everything after it) or --skip-record (drop only that record, if the next one parses)\n",
           path, res->offset);
    return FIX_REFUSED;
}

/* Truncate path at res->offset, saying what is lost. 0 or -1. */
static int fix_file(const char *path, const check_result *res)
{
    char err[256];

    printf("%s: truncating at offset %" PRIu64 ": %" PRIu64 " bytes will be lost\n", path, res->offset,
           res->dropped);
    if (aof_file_truncate(path, res->offset, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    printf("%s: truncated, now %" PRIu64 " bytes\n", path, res->offset);
    return 0;
}

static int check_log(const char *path, int fix, int mode)
{
    check_result res;
    int c;

    for (;;) {
        check_file(path, AOF_KIND_NONE, 0, 1, &res);
        print_result(path, &res);
        if (res.status == AOF_END)
            return EXIT_VALID;
        if (res.status == AOF_IOERR)
            return EXIT_USAGE;
        if (!fix)
            return EXIT_BAD;
        c = fix_choice(path, &res, mode, AOF_KIND_NONE, 0, 1);
        if (c < 0)
            return EXIT_USAGE;
        if (c == FIX_REFUSED)
            return EXIT_BAD;
        if (c == FIX_CUT)
            return fix_file(path, &res) == 0 ? EXIT_VALID : EXIT_USAGE;
    }
}

/* Repair file i of m (in dir) and drop the files after it from the manifest. */
static int fix_manifest(const char *dir, aof_manifest *m, size_t i, const char *path,
                        const check_result *res)
{
    char err[256];
    size_t j;

    if (fix_file(path, res) < 0)
        return EXIT_USAGE;
    if (i + 1 == m->nfiles)
        return EXIT_VALID;
    for (j = i + 1; j < m->nfiles; j++)
        printf("%s: no longer named by the manifest (it follows the lost records); kept on disk\n",
               m->files[j].name);
    m->nfiles = i + 1;
    if (aof_manifest_save(dir, m, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    printf("%s/%s: rewritten\n", dir, AOF_MANIFEST_NAME);
    return EXIT_VALID;
}

/* One pass over the manifest at mpath; *again set when --fix dropped a record
 * (the caller checks everything again). */
static int check_manifest_pass(const char *mpath, int fix, int mode, int *again)
{
    char dir[AOF_PATH_MAX], path[AOF_PATH_MAX], err[256];
    const char *slash = strrchr(mpath, '/');
    FILE *f = fopen(mpath, "rb");
    char *text = NULL;
    size_t len = 0, i, bad = SIZE_MAX;
    aof_manifest m;
    check_result res, first = {0};
    uint64_t records = 0, bytes = 0;
    int rc = EXIT_VALID;

    aof_manifest_init(&m);
    if (!f) {
        fprintf(stderr, "%s: %s\n", mpath, strerror(errno));
        return EXIT_USAGE;
    }
    text = xmalloc(1024 * 1024 + 1);
    len = fread(text, 1, 1024 * 1024 + 1, f);
    fclose(f);
    if (len > 1024 * 1024) {
        fprintf(stderr, "%s: larger than 1 MB\n", mpath);
        xfree(text);
        return EXIT_USAGE;
    }
    if (aof_manifest_parse(text, len, &m, err, sizeof(err)) < 0) {
        printf("%s: invalid manifest: %s\n", mpath, err);
        xfree(text);
        return EXIT_BAD;
    }
    xfree(text);
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - mpath) : 1, slash ? mpath : ".");
    if (!dir[0])
        snprintf(dir, sizeof(dir), "/");
    for (i = 0; i < m.nfiles; i++) {
        if (aof_path(path, sizeof(path), dir, m.files[i].name) < 0) {
            fprintf(stderr, "%s: path too long\n", m.files[i].name);
            rc = EXIT_USAGE;
            goto done;
        }
        check_file(path, m.files[i].kind, m.files[i].seq, aof_rest_empty(dir, &m, i + 1), &res);
        print_result(path, &res);
        records += res.records;
        bytes += res.bytes;
        if (res.status == AOF_IOERR) {
            rc = EXIT_USAGE;
            goto done;
        }
        if (res.status != AOF_END && bad == SIZE_MAX) {
            bad = i;
            first = res;
        }
    }
    printf("%s: %zu files, %" PRIu64 " records, %" PRIu64 " bytes verified: %s\n", mpath, m.nfiles,
           records, bytes, bad == SIZE_MAX ? "OK" : "DAMAGED");
    if (bad == SIZE_MAX)
        goto done;
    rc = EXIT_BAD;
    if (fix) {
        int c;
        aof_path(path, sizeof(path), dir, m.files[bad].name);
        c = fix_choice(path, &first, mode, m.files[bad].kind, m.files[bad].seq, aof_rest_empty(dir, &m, bad + 1));
        if (c < 0)
            rc = EXIT_USAGE;
        else if (c == FIX_DROP)
            *again = 1;
        else if (c == FIX_CUT)
            rc = fix_manifest(dir, &m, bad, path, &first);
    }
done:
    aof_manifest_free(&m);
    return rc;
}

/* ---- A missing manifest ---- */

/* A log file found in the directory, its header checked against its name. */
typedef struct found_file {
    const aof_dirfile *f;
} found_file;

/* Print the log files of dir (the manifest is missing). Returns how many there
 * are (names "scratchpad.aof.<seq>.base|incr"), or -1 if dir cannot be read. */
static int list_log_files(const char *dir)
{
    aof_dirfile *fs;
    size_t n, i;
    int count = 0;

    if (aof_dir_list(dir, &fs, &n) < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (i = 0; i < n; i++) {
        printf("  %s (%" PRIu64 " bytes)%s\n", fs[i].name, fs[i].size,
               fs[i].temp ? ": a temporary file, never part of a log" : "");
        count += fs[i].kind != AOF_KIND_NONE && !fs[i].temp;
    }
    xfree(fs);
    return count;
}

static int check_manifest(const char *mpath, int fix, int mode);

/* Check dir/scratchpad.manifest when it exists; else say it is missing, list
 * the log files and suggest the rebuild. */
static int check_dir(const char *dir, int fix, int mode)
{
    char mpath[AOF_PATH_MAX];
    struct stat st;
    int n;

    if (aof_path(mpath, sizeof(mpath), dir, AOF_MANIFEST_NAME) < 0) {
        fprintf(stderr, "%s: path too long\n", dir);
        return EXIT_USAGE;
    }
    if (stat(mpath, &st) == 0 || errno != ENOENT)
        return check_manifest(mpath, fix, mode);
    printf("%s: no manifest (%s is missing)\n", dir, AOF_MANIFEST_NAME);
    if ((n = list_log_files(dir)) < 0)
        return EXIT_USAGE;
    if (n == 0) {
        printf("%s: no log file either: nothing to check\n", dir);
        return EXIT_USAGE;
    }
    printf("%s: %d log file%s but no manifest: the server refuses to start. To rebuild the manifest from "
           "the files' headers, run: scratchpad-check-aof --rebuild-manifest %s\n",
           dir, n, n == 1 ? "" : "s", dir);
    return EXIT_BAD;
}

/* Print the manifest text of m, indented. */
static void print_manifest(const aof_manifest *m)
{
    char *text = aof_manifest_format(m), *line, *save = NULL;

    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        printf("    %s\n", line);
    xfree(text);
}

/* The index in fl (n files, sorted by seq) of the incr with seq, or -1. */
static long find_incr(const found_file *fl, size_t n, uint64_t seq)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (fl[i].f->kind == AOF_KIND_INCR && fl[i].f->seq == seq)
            return (long)i;
    return -1;
}

/* Rebuild dir's manifest from the files' headers. The order follows from how
 * the files are made (docs/aof.md §5): every seq comes from one counter that
 * only grows, and
 *   - a fork rewrite creates its incr n, then numbers its base n + 1: the log
 *     it leaves is {base n+1, incr n, later incr files};
 *   - an incremental rewrite numbers its base m, then creates its incr m + 1,
 *     and a first start creates base 1 and incr 2: {base m, incr m+1, ...};
 *   - the files of the log a rewrite replaced have smaller seqs than both, and
 *     every incr created after the base has a larger one.
 * So the log is the newest base B (a base is renamed to its name only once it
 * is complete and synced), the incr B-1 or B+1 that its rewrite created, and
 * every incr above B; older files are ones the base replaced. Refused: no base;
 * a header that is bad or disagrees with the file's name; both B-1 and B+1
 * present (a fork rewrite's incr followed by the next rewrite's, or an older
 * incr beside an incremental rewrite's: the files cannot say which); neither
 * present; a gap of more than one number between two files of the log (a
 * failed rewrite leaves one, its base; more may be a lost incr file). */
static int rebuild_manifest(const char *dir)
{
    char mpath[AOF_PATH_MAX], path[AOF_PATH_MAX], err[256];
    aof_dirfile *fs = NULL;
    found_file *fl = NULL;
    size_t n = 0, nf = 0, i;
    long base = -1, prev, next;
    aof_manifest m;
    struct stat st;
    uint64_t B, last;
    int lock_fd = -1, rc = EXIT_BAD;

    aof_manifest_init(&m);
    if (aof_path(mpath, sizeof(mpath), dir, AOF_MANIFEST_NAME) < 0 ||
        aof_path(path, sizeof(path), dir, "scratchpad.lock") < 0) {
        fprintf(stderr, "%s: path too long\n", dir);
        return EXIT_USAGE;
    }
    /* The server's lock: no server may run on the directory meanwhile. */
    if ((lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "%s: cannot lock the directory (%s): is a scratchpad-server running on it?\n", dir,
                strerror(errno));
        rc = EXIT_USAGE;
        goto done;
    }
    if (stat(mpath, &st) == 0) {
        printf("%s: the directory has a manifest; check it with 'scratchpad-check-aof %s'. To rebuild it "
               "anyway, move it out of the directory first\n", mpath, mpath);
        rc = EXIT_USAGE;
        goto done;
    }
    if (aof_dir_list(dir, &fs, &n) < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        rc = EXIT_USAGE;
        goto done;
    }
    printf("%s: rebuilding %s from the headers of the log files:\n", dir, AOF_MANIFEST_NAME);
    fl = xcalloc(n ? n : 1, sizeof(*fl));
    for (i = 0; i < n; i++) {
        const aof_dirfile *f = &fs[i];
        const aof_header *h;
        aof_reader *r;
        if (f->temp || f->kind == AOF_KIND_NONE) {
            printf("  %s: %s, left out\n", f->name,
                   f->temp ? "a temporary file, never part of a log" : "not a log file's name");
            continue;
        }
        if (aof_path(path, sizeof(path), dir, f->name) < 0 || !(r = aof_reader_open(path))) {
            printf("  %s: cannot open: %s\n", f->name, strerror(errno));
            rc = EXIT_USAGE;
            goto done;
        }
        h = aof_reader_header(r);
        if (!h || (int)(h->flags & AOF_KIND_MASK) != f->kind || h->seq != f->seq) {
            printf("  %s: %s\n", f->name,
                   !h ? "a bad header" : "the header's kind or seq differs from the file's name");
            printf("%s: cannot vouch for the order of the files: refused (nothing written)\n", dir);
            aof_reader_close(r);
            goto done;
        }
        fl[nf].f = f;
        aof_reader_close(r);
        printf("  %s: %s, seq %" PRIu64 ", %" PRIu64 " bytes\n", f->name,
               f->kind == AOF_KIND_BASE ? "base" : "incr", f->seq, f->size);
        if (f->kind == AOF_KIND_BASE)
            base = (long)nf;
        nf++;
    }
    if (base < 0) {
        printf("%s: no base file: the incr files hold only the writes made after a base, so no log can be "
               "made of them: refused (nothing written)\n", dir);
        goto done;
    }
    B = fl[base].f->seq;
    prev = B > 1 ? find_incr(fl, nf, B - 1) : -1;
    next = find_incr(fl, nf, B + 1);
    if (prev >= 0 && next >= 0) {
        printf("%s: ambiguous: both %s and %s are there. A fork rewrite numbers its incr just below its base "
               "(the log is then the base, %s, %s and later incr files); an incremental rewrite numbers it "
               "just above (the log is the base, %s and later ones, and %s is an older file the base "
               "replaced). The files cannot say which: refused (nothing written). Write the manifest by "
               "hand (docs/aof.md §1) from what you know of aof-rewrite-mode\n",
               dir, fl[prev].f->name, fl[next].f->name, fl[prev].f->name, fl[next].f->name, fl[next].f->name,
               fl[prev].f->name);
        goto done;
    }
    if (prev < 0 && next < 0) {
        printf("%s: the incr file created with %s is missing (seq %" PRIu64 " after a fork rewrite, %" PRIu64
               " after an incremental one or a first start): the writes made after the base may be lost. "
               "Refused (nothing written)\n",
               dir, fl[base].f->name, B - 1, B + 1);
        goto done;
    }
    aof_manifest_add(&m, AOF_KIND_BASE, B, fl[base].f->name, err, sizeof(err));
    last = B;
    if (prev >= 0) {
        aof_manifest_add(&m, AOF_KIND_INCR, B - 1, fl[prev].f->name, err, sizeof(err));
        printf("%s: the newest base is %s, and %s is the incr its fork rewrite created\n", dir,
               fl[base].f->name, fl[prev].f->name);
    } else {
        printf("%s: the newest base is %s, and %s is the incr its rewrite (or the first start) created\n",
               dir, fl[base].f->name, fl[next].f->name);
    }
    for (i = 0; i < nf; i++) {
        const aof_dirfile *f = fl[i].f;
        if (f->kind == AOF_KIND_BASE && (long)i != base) {
            printf("  %s: an older base, replaced by %s: left out\n", f->name, fl[base].f->name);
            continue;
        }
        if (f->kind != AOF_KIND_INCR || (long)i == prev)
            continue;
        if (f->seq < B) {
            printf("  %s: older than the base, which holds its writes: left out\n", f->name);
            continue;
        }
        if (f->seq - last > 2) {
            printf("%s: no file numbered %" PRIu64 " to %" PRIu64 " between %s and the next file of the log, "
                   "%s: a failed rewrite leaves one number unused (its base), more may be a lost incr "
                   "file. Refused (nothing written)\n",
                   dir, last + 1, f->seq - 1, last == B ? fl[base].f->name : m.files[m.nfiles - 1].name,
                   f->name);
            goto done;
        }
        if (aof_manifest_add(&m, AOF_KIND_INCR, f->seq, f->name, err, sizeof(err)) < 0) {
            printf("%s: %s: refused (nothing written)\n", dir, err);
            goto done;
        }
        last = f->seq;
    }
    if (aof_manifest_save(dir, &m, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    printf("%s: written:\n", mpath);
    print_manifest(&m);
    close(lock_fd);
    lock_fd = -1;
    printf("%s: checking the log it names\n", mpath);
    rc = check_manifest(mpath, 0, FIX_NONE);
done:
    if (lock_fd >= 0)
        close(lock_fd);
    aof_manifest_free(&m);
    xfree(fl);
    xfree(fs);
    return rc;
}

static int check_manifest(const char *mpath, int fix, int mode)
{
    int again, rc;

    do {
        again = 0;
        rc = check_manifest_pass(mpath, fix, mode, &again);
    } while (again);
    return rc;
}

/* 1 if path holds a manifest (it starts with its first line or a comment);
 * anything else is checked as a log file. */
static int is_manifest(const char *path)
{
    static const char head[] = "scratchpad-manifest";
    char start[sizeof(head) - 1];
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return 0;
    n = fread(start, 1, sizeof(start), f);
    fclose(f);
    return (n >= 1 && start[0] == '#') || (n == sizeof(start) && memcmp(start, head, n) == 0);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: scratchpad-check-aof [--fix [--truncate | --skip-record]] FILE\n"
            "       scratchpad-check-aof --rebuild-manifest DIR\n"
            "  FILE   a log file, or a manifest (scratchpad.manifest) to check every file it names,\n"
            "         or the log directory (its manifest)\n"
            "  --fix  repair: cut a torn tail; drop a record holding a value that does not decode;\n"
            "         a damaged record only with one of:\n"
            "  --truncate     cut the file at the damaged record (everything after it is lost)\n"
            "  --skip-record  drop only the damaged record, if the next one parses\n"
            "  --rebuild-manifest DIR\n"
            "         write DIR/scratchpad.manifest, lost or missing, from the log files' headers,\n"
            "         when their order is certain (else say why not), then check the log\n"
            "exit status: 0 valid (or repaired, or rebuilt), 1 torn or corrupt, manifest missing\n"
            "or not rebuilt, 2 usage or I/O error\n");
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int fix = 0, rebuild = 0, mode = FIX_NONE, i;
    struct stat st;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fix") == 0) {
            fix = 1;
        } else if (strcmp(argv[i], "--rebuild-manifest") == 0) {
            rebuild = 1;
        } else if (strcmp(argv[i], "--truncate") == 0 && mode == FIX_NONE) {
            mode = FIX_TRUNCATE;
        } else if (strcmp(argv[i], "--skip-record") == 0 && mode == FIX_NONE) {
            mode = FIX_SKIP;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage();
            return EXIT_USAGE;
        } else if (!file && argv[i][0] != '-') {
            file = argv[i];
        } else {
            usage();
            return EXIT_USAGE;
        }
    }
    if (!file || (rebuild && fix) || (mode != FIX_NONE && !fix)) {
        usage();
        return EXIT_USAGE;
    }
    if (rebuild)
        return rebuild_manifest(file);
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode))
        return check_dir(file, fix, mode);
    if (errno == ENOENT && strcmp(strrchr(file, '/') ? strrchr(file, '/') + 1 : file, AOF_MANIFEST_NAME) == 0) {
        /* DIR/scratchpad.manifest, missing: say what the directory holds. */
        char dir[AOF_PATH_MAX];
        const char *slash = strrchr(file, '/');
        snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
        return check_dir(dir[0] ? dir : "/", fix, mode);
    }
    return is_manifest(file) ? check_manifest(file, fix, mode) : check_log(file, fix, mode);
}
