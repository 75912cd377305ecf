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
 * Exit status: 0 the log is valid (or was repaired); 1 a torn or corrupt record
 * or manifest was found and not repaired; 2 usage error or I/O error. */
#include "aof.h"
#include "aof_manifest.h"
#include "aof_reader.h"
#include "lzval.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
            "  FILE   a log file, or a manifest (scratchpad.manifest) to check every file it names\n"
            "  --fix  repair: cut a torn tail; drop a record holding a value that does not decode;\n"
            "         a damaged record only with one of:\n"
            "  --truncate     cut the file at the damaged record (everything after it is lost)\n"
            "  --skip-record  drop only the damaged record, if the next one parses\n"
            "exit status: 0 valid (or repaired), 1 torn or corrupt, 2 usage or I/O error\n");
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int fix = 0, mode = FIX_NONE, i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fix") == 0) {
            fix = 1;
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
    if (!file || (mode != FIX_NONE && !fix)) {
        usage();
        return EXIT_USAGE;
    }
    return is_manifest(file) ? check_manifest(file, fix, mode) : check_log(file, fix, mode);
}
