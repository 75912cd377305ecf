/* check_aof.c -- scratchpad-check-aof: verify a log, and repair it by truncation.
 *
 *   scratchpad-check-aof [--fix] FILE
 *
 * FILE is a log file (it starts with "SPAOF") or a manifest (scratchpad.manifest:
 * then every file it names, in its directory, is checked in order). Every record
 * is checked as the server's loader checks it: length, CRC32C, payload structure,
 * and each compressed value is rebuilt (every LZ4 chunk decoded once). The tool
 * prints, per file, its counts of records, effects, arguments and bytes, then OK
 * or the first bad record's offset and the reason.
 *
 * --fix truncates the damaged file at its first bad record, after printing how
 * many bytes that drops. In a manifest, the files after a damaged one would
 * replay writes made after the lost ones, so they are removed from the manifest
 * too (left on disk, and listed). A damaged header, or a file of the wrong kind,
 * cannot be repaired by truncation.
 *
 * Exit status: 0 the log is valid (or was repaired); 1 a torn or corrupt record
 * or manifest was found and not repaired; 2 usage error or I/O error. */
#include "aof.h"
#include "aof_manifest.h"
#include "aof_reader.h"
#include "lz/lzval.h"
#include "mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_VALID 0
#define EXIT_BAD 1
#define EXIT_USAGE 2

typedef struct check_result {
    aof_status status;      /* AOF_END when the file is valid */
    int fixable;            /* 1 if truncating at offset repairs it */
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
    printf("%s: %s at offset %" PRIu64 ": %s\n", name, res->status == AOF_TORN ? "TORN" : "CORRUPT",
           res->offset, res->why);
    if (res->fixable)
        printf("%s: the valid prefix is %" PRIu64 " bytes; %" PRIu64
               " bytes from the bad record to the end of the file would be lost by --fix\n",
               name, res->offset, res->dropped);
    else
        printf("%s: cannot be repaired by truncation\n", name);
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

static int check_log(const char *path, int fix)
{
    check_result res;

    check_file(path, AOF_KIND_NONE, 0, 1, &res);
    print_result(path, &res);
    if (res.status == AOF_END)
        return EXIT_VALID;
    if (res.status == AOF_IOERR)
        return EXIT_USAGE;
    if (!fix || !res.fixable)
        return EXIT_BAD;
    return fix_file(path, &res) == 0 ? EXIT_VALID : EXIT_USAGE;
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

static int check_manifest(const char *mpath, int fix)
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
    if (fix && first.fixable) {
        aof_path(path, sizeof(path), dir, m.files[bad].name);
        rc = fix_manifest(dir, &m, bad, path, &first);
    }
done:
    aof_manifest_free(&m);
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
            "usage: scratchpad-check-aof [--fix] FILE\n"
            "  FILE   a log file, or a manifest (scratchpad.manifest) to check every file it names\n"
            "  --fix  truncate at the first bad record (printing how many bytes are lost)\n"
            "exit status: 0 valid (or repaired), 1 torn or corrupt, 2 usage or I/O error\n");
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int fix = 0, i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fix") == 0) {
            fix = 1;
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
    if (!file) {
        usage();
        return EXIT_USAGE;
    }
    return is_manifest(file) ? check_manifest(file, fix) : check_log(file, fix);
}
