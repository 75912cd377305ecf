/* aof_reader.c -- sequential, verifying reader of log files, and the manifest
 * loader (see aof_reader.h).
 *
 * Invariants: buf[pos..end) holds the file's bytes from offset off on (buf[0] is
 * file offset buf_off); records are checked in place and never copied; the
 * buffer grows only for a record larger than it, and only after the record's
 * length was checked against the file's size, so a damaged length never makes
 * the reader allocate more than the file holds. status is AOF_OK until the first
 * other verdict, which then sticks. */
#include "aof_reader.h"

#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AOF_READ_BLOCK (4u * 1024 * 1024) /* bytes, the read buffer's usual size */
#define AOF_READ_MIN (64u * 1024)         /* bytes, the smallest read buffer */

struct aof_reader {
    int fd;
    uint64_t size;       /* bytes, the file's size at open */
    unsigned char *buf;
    size_t cap;          /* bytes allocated */
    size_t pos, end;     /* buf[pos..end) are valid, buf[pos] is file offset off */
    uint64_t off;        /* bytes, the next record's offset (or the bad one's) */
    aof_header hdr;
    int hdr_ok;
    aof_status status;   /* sticky verdict */
    uint64_t dropped;    /* bytes, from off to the end, once TORN or CORRUPT */
    const char *why;
    char whybuf[160];
};

const char *aof_status_name(aof_status s)
{
    switch (s) {
    case AOF_OK: return "ok";
    case AOF_END: return "end";
    case AOF_TORN: return "torn";
    case AOF_CORRUPT: return "corrupt";
    default: return "io-error";
    }
}

/* Stick on verdict st for the record at r->off, with a formatted reason. */
static aof_status aof_verdict(aof_reader *r, aof_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static aof_status aof_verdict(aof_reader *r, aof_status st, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->whybuf, sizeof(r->whybuf), fmt, ap);
    va_end(ap);
    r->why = r->whybuf;
    r->status = st;
    r->dropped = r->size - r->off;
    return st;
}

/* Make at least need bytes from r->off available in buf[pos..end), reading in
 * large blocks. The caller checked that the file holds them. Returns 0, or -1
 * on a read error or if the file ended early (r->status set). */
static int aof_fill(aof_reader *r, size_t need)
{
    if (r->end - r->pos >= need)
        return 0;
    if (r->cap - r->pos < need) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
        if (r->cap < need) {
            r->cap = need + AOF_READ_BLOCK;
            r->buf = xrealloc(r->buf, r->cap);
        } else if (r->cap > 2 * AOF_READ_BLOCK && need <= AOF_READ_BLOCK && r->end <= AOF_READ_BLOCK) {
            r->cap = AOF_READ_BLOCK; /* back to the usual size after a large record */
            r->buf = xrealloc(r->buf, r->cap);
        }
    }
    while (r->end - r->pos < need) {
        ssize_t k = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            aof_verdict(r, AOF_IOERR, "read error: %s", strerror(errno));
            return -1;
        }
        if (k == 0) {
            aof_verdict(r, AOF_TORN, "the file shrank while being read");
            return -1;
        }
        r->end += (size_t)k;
    }
    return 0;
}

/* 1 if every byte of the file from offset from to its end is zero. */
static int aof_zero_tail(aof_reader *r, uint64_t from)
{
    unsigned char tmp[4096];

    while (from < r->size) {
        size_t n = r->size - from < sizeof(tmp) ? (size_t)(r->size - from) : sizeof(tmp), i;
        ssize_t k = pread(r->fd, tmp, n, (off_t)from);
        if (k <= 0)
            return 0;
        for (i = 0; i < (size_t)k; i++)
            if (tmp[i])
                return 0;
        from += (uint64_t)k;
    }
    return 1;
}

aof_reader *aof_reader_open(const char *path)
{
    aof_reader *r;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    const char *why;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    r = xcalloc(1, sizeof(*r));
    r->fd = fd;
    r->size = (uint64_t)st.st_size;
    r->cap = r->size < AOF_READ_MIN ? AOF_READ_MIN : r->size > AOF_READ_BLOCK ? AOF_READ_BLOCK : (size_t)r->size;
    r->buf = xmalloc(r->cap);
    r->why = "";
    r->status = AOF_OK;
    if (r->size < AOF_HEADER_SIZE) {
        aof_verdict(r, AOF_CORRUPT, "file shorter than the %d-byte header", AOF_HEADER_SIZE);
        return r;
    }
    if (aof_fill(r, AOF_HEADER_SIZE) < 0)
        return r;
    if (aof_header_decode(r->buf + r->pos, AOF_HEADER_SIZE, &r->hdr, &why) < 0) {
        aof_verdict(r, AOF_CORRUPT, "bad header: %s", why);
        return r;
    }
    r->hdr_ok = 1;
    r->pos += AOF_HEADER_SIZE;
    r->off = AOF_HEADER_SIZE;
    return r;
}

aof_status aof_reader_next(aof_reader *r, aof_record *rec)
{
    uint64_t left;
    uint32_t len, crc;
    const unsigned char *p;
    const char *why;

    if (r->status != AOF_OK)
        return r->status;
    left = r->size - r->off;
    if (left == 0) {
        r->status = AOF_END;
        return AOF_END;
    }
    if (left < AOF_REC_HDR)
        return aof_verdict(r, AOF_TORN, "record header cut short (%llu bytes left)",
                           (unsigned long long)left);
    if (aof_fill(r, AOF_REC_HDR) < 0)
        return r->status;
    p = r->buf + r->pos;
    len = aof_get32(p);
    crc = aof_get32(p + 4);
    if (len == 0 || len > AOF_PAYLOAD_MAX) {
        if (aof_zero_tail(r, r->off))
            return aof_verdict(r, AOF_TORN, "zero bytes up to the end of the file");
        return aof_verdict(r, AOF_CORRUPT, "impossible record length %u", len);
    }
    if ((uint64_t)len > left - AOF_REC_HDR)
        return aof_verdict(r, AOF_TORN, "record of %u bytes runs past the end of the file (%llu bytes left)",
                           len, (unsigned long long)(left - AOF_REC_HDR));
    if (aof_fill(r, AOF_REC_HDR + (size_t)len) < 0)
        return r->status;
    p = r->buf + r->pos;
    /* The record is whole in length: a bad CRC is damage, not a torn write,
     * even in the last record and even with zeros after it. Taking it for a
     * tear would truncate an acknowledged write away (a flipped bit). */
    if (aof_crc32c(0, p + AOF_REC_HDR, len) != crc)
        return aof_verdict(r, AOF_CORRUPT, "CRC mismatch in a complete record of %u bytes", len);
    if (aof_payload_check(p + AOF_REC_HDR, len, &rec->neffects, &why) < 0)
        return aof_verdict(r, AOF_CORRUPT, "malformed record: %s", why);
    rec->offset = r->off;
    rec->len = len;
    rec->payload = p + AOF_REC_HDR;
    rec->type = p[AOF_REC_HDR];
    r->pos += AOF_REC_HDR + (size_t)len;
    r->off += AOF_REC_HDR + (uint64_t)len;
    return AOF_OK;
}

const aof_header *aof_reader_header(const aof_reader *r)
{
    return r->hdr_ok ? &r->hdr : NULL;
}

uint64_t aof_reader_offset(const aof_reader *r)
{
    return r->off;
}

uint64_t aof_reader_dropped(const aof_reader *r)
{
    return r->status == AOF_TORN || r->status == AOF_CORRUPT ? r->dropped : 0;
}

uint64_t aof_reader_size(const aof_reader *r)
{
    return r->size;
}

const char *aof_reader_why(const aof_reader *r)
{
    return r->why;
}

void aof_reader_close(aof_reader *r)
{
    if (!r)
        return;
    close(r->fd);
    xfree(r->buf);
    xfree(r);
}

/* ---- Loading a manifest ---- */

static const char *aof_kind_name(int kind)
{
    return kind == AOF_KIND_BASE ? "base" : kind == AOF_KIND_INCR ? "incr" : "none";
}

/* Record verdict st about file f at offset into res. */
static aof_status aof_load_fail(aof_load_result *res, const aof_mfile *f, aof_status st,
                                uint64_t offset, uint64_t dropped, const char *why)
{
    res->status = st;
    snprintf(res->file, sizeof(res->file), "%s", f->name);
    res->offset = offset;
    res->dropped = dropped;
    snprintf(res->why, sizeof(res->why), "%s", why);
    return st;
}

int aof_rest_empty(const char *dir, const aof_manifest *m, size_t i)
{
    char path[AOF_PATH_MAX];
    struct stat st;

    for (; i < m->nfiles; i++)
        if (aof_path(path, sizeof(path), dir, m->files[i].name) < 0 || stat(path, &st) < 0 ||
            st.st_size > AOF_HEADER_SIZE)
            return 0;
    return 1;
}

/* Replay file i of m; returns AOF_END when it was read to its end. */
static aof_status aof_load_file(const char *dir, const aof_manifest *m, size_t i,
                                aof_record_fn *fn, void *ctx, aof_load_result *res)
{
    const aof_mfile *f = &m->files[i];
    char path[AOF_PATH_MAX], why[160];
    const aof_header *h;
    aof_reader *r;
    aof_record rec;
    aof_status st;

    if (aof_path(path, sizeof(path), dir, f->name) < 0)
        return aof_load_fail(res, f, AOF_IOERR, 0, 0, "path too long");
    if (!(r = aof_reader_open(path))) {
        snprintf(why, sizeof(why), "cannot open: %s", strerror(errno));
        return aof_load_fail(res, f, AOF_IOERR, 0, 0, why);
    }
    res->files++;
    h = aof_reader_header(r);
    if (h && (int)(h->flags & AOF_KIND_MASK) != f->kind) {
        snprintf(why, sizeof(why), "file kind mismatch: the header says %s, the manifest %s",
                 aof_kind_name((int)(h->flags & AOF_KIND_MASK)), aof_kind_name(f->kind));
        st = aof_load_fail(res, f, AOF_CORRUPT, 0, aof_reader_size(r), why);
        goto done;
    }
    if (h && h->seq != 0 && h->seq != f->seq) {
        snprintf(why, sizeof(why), "the header says seq %llu, the manifest seq %llu",
                 (unsigned long long)h->seq, (unsigned long long)f->seq);
        st = aof_load_fail(res, f, AOF_CORRUPT, 0, aof_reader_size(r), why);
        goto done;
    }
    if (h)
        res->bytes += AOF_HEADER_SIZE;
    while ((st = aof_reader_next(r, &rec)) == AOF_OK) {
        why[0] = '\0';
        if (fn && fn(ctx, f, &rec, why, sizeof(why)) < 0) {
            st = aof_load_fail(res, f, AOF_CORRUPT, rec.offset, aof_reader_size(r) - rec.offset,
                               why[0] ? why : "record rejected by the loader");
            goto done;
        }
        res->records++;
        res->effects += rec.neffects;
        res->bytes += AOF_REC_HDR + (uint64_t)rec.len;
    }
    if (st == AOF_TORN && i + 1 < m->nfiles && !aof_rest_empty(dir, m, i + 1)) {
        snprintf(why, sizeof(why), "torn record in a file that is not the last one (%s)",
                 aof_reader_why(r));
        st = aof_load_fail(res, f, AOF_CORRUPT, aof_reader_offset(r), aof_reader_dropped(r), why);
    } else if (st != AOF_END) {
        aof_load_fail(res, f, st, aof_reader_offset(r), aof_reader_dropped(r), aof_reader_why(r));
    }
done:
    aof_reader_close(r);
    return st;
}

aof_status aof_load(const char *dir, const aof_manifest *m, aof_record_fn *fn, void *ctx,
                    aof_load_result *res)
{
    size_t i;

    memset(res, 0, sizeof(*res));
    res->status = AOF_END;
    for (i = 0; i < m->nfiles; i++)
        if (aof_load_file(dir, m, i, fn, ctx, res) != AOF_END)
            return res->status;
    return res->status;
}
