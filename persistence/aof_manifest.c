/* aof_manifest.c -- the manifest (parse, format, atomic save), file names, and
 * the directory-level steps: start-up, rewrite start / finish, clean-up (see
 * aof_manifest.h for the crash-safety argument).
 *
 * Invariant kept by every step that changes the manifest on disk: the new text
 * is complete in a synced temp file before rename() puts it in place, every file
 * it names already exists durably with its header, and the directory is fsynced
 * after the rename; on any failure the previous manifest stays, and the in-memory
 * manifest is changed only after the save succeeded. */
#include "aof_manifest.h"

#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AOF_MANIFEST_TMP AOF_MANIFEST_NAME ".tmp"
#define AOF_MANIFEST_REWRITE_TMP AOF_MANIFEST_NAME ".rewrite" /* written by a rewrite child */
#define AOF_MANIFEST_MAX (1024 * 1024) /* bytes; a longer manifest is refused */
#define AOF_REMOVE_STEP (32u << 20)     /* bytes freed at a time when removing old files */
#define AOF_REMOVE_PAUSE_MS 10          /* between two such steps */
#define AOF_MANIFEST_HEAD "scratchpad-manifest"

static void aof_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void aof_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || !errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void aof_manifest_init(aof_manifest *m)
{
    m->files = NULL;
    m->nfiles = m->cap = 0;
    m->next_seq = 1;
}

void aof_manifest_free(aof_manifest *m)
{
    xfree(m->files);
    aof_manifest_init(m);
}

/* A deep copy of src into dst (initialised here). */
void aof_manifest_copy(aof_manifest *dst, const aof_manifest *src)
{
    aof_manifest_init(dst);
    dst->next_seq = src->next_seq;
    if (src->nfiles == 0)
        return;
    dst->files = xmalloc(src->nfiles * sizeof(*dst->files));
    memcpy(dst->files, src->files, src->nfiles * sizeof(*dst->files));
    dst->nfiles = dst->cap = src->nfiles;
}

static int aof_name_ok(const char *name)
{
    size_t n = strlen(name), i;

    if (n == 0 || n > AOF_NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    for (i = 0; i < n; i++)
        if (name[i] == '/' || (unsigned char)name[i] <= ' ' || name[i] == 0x7f)
            return 0;
    return 1;
}

int aof_manifest_add(aof_manifest *m, int kind, uint64_t seq, const char *name, char *err,
                     size_t errlen)
{
    size_t i;

    if (!aof_name_ok(name)) {
        aof_errf(err, errlen, "invalid file name '%s'", name);
        return -1;
    }
    if (kind != AOF_KIND_BASE && kind != AOF_KIND_INCR) {
        aof_errf(err, errlen, "invalid file type");
        return -1;
    }
    if (kind == AOF_KIND_BASE && m->nfiles > 0) {
        aof_errf(err, errlen, "a base file must be the first and only base");
        return -1;
    }
    if (kind == AOF_KIND_INCR && m->nfiles > 0 && m->files[m->nfiles - 1].kind == AOF_KIND_INCR &&
        m->files[m->nfiles - 1].seq >= seq) {
        aof_errf(err, errlen, "incr file seq %" PRIu64 " does not follow %" PRIu64, seq,
                 m->files[m->nfiles - 1].seq);
        return -1;
    }
    for (i = 0; i < m->nfiles; i++)
        if (m->files[i].seq == seq || strcmp(m->files[i].name, name) == 0) {
            aof_errf(err, errlen, "seq %" PRIu64 " or name '%s' named twice", seq, name);
            return -1;
        }
    if (m->nfiles == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 4;
        m->files = xrealloc(m->files, m->cap * sizeof(*m->files));
    }
    snprintf(m->files[m->nfiles].name, sizeof(m->files[m->nfiles].name), "%s", name);
    m->files[m->nfiles].seq = seq;
    m->files[m->nfiles].kind = kind;
    m->nfiles++;
    if (seq >= m->next_seq)
        m->next_seq = seq + 1;
    return 0;
}

uint64_t aof_manifest_alloc_seq(aof_manifest *m)
{
    return m->next_seq++;
}

const aof_mfile *aof_manifest_base(const aof_manifest *m)
{
    return m->nfiles && m->files[0].kind == AOF_KIND_BASE ? &m->files[0] : NULL;
}

const aof_mfile *aof_manifest_last(const aof_manifest *m)
{
    return m->nfiles ? &m->files[m->nfiles - 1] : NULL;
}

void aof_file_name(char *out, size_t cap, uint64_t seq, int kind)
{
    snprintf(out, cap, AOF_FILE_PREFIX "%" PRIu64 ".%s", seq, kind == AOF_KIND_BASE ? "base" : "incr");
}

int aof_path(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);

    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Split line (n bytes, no newline) into at most max words separated by spaces
 * or tabs, NUL-terminating them in place. Returns the count, max + 1 if there are
 * more. */
static int aof_words(char *line, char **words, int max)
{
    int count = 0;
    char *p = line;

    for (;;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            return count;
        if (count == max)
            return max + 1;
        words[count++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
}

/* Parse a decimal u64 with no sign, no leading zero (except "0"), no overflow. */
static int aof_parse_u64(const char *s, uint64_t *v)
{
    uint64_t x = 0;

    if (!*s || (s[0] == '0' && s[1]))
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 0;
}

int aof_manifest_parse(const char *text, size_t n, aof_manifest *m, char *err, size_t errlen)
{
    aof_manifest t;
    char *copy = xstrndup(text, n), *line = copy, *next, *w[8], msg[160];
    int lineno = 0, seen_head = 0, rc = -1;

    aof_manifest_init(&t);
    if (memchr(text, '\0', n)) {
        aof_errf(err, errlen, "manifest holds a NUL byte");
        goto done;
    }
    for (; line && *line; line = next) {
        int nw;
        uint64_t seq;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (line[0] && line[strlen(line) - 1] == '\r')
            line[strlen(line) - 1] = '\0';
        if (line[0] == '#')
            continue;
        nw = aof_words(line, w, 7);
        if (nw == 0)
            continue;
        if (!seen_head) {
            if (nw != 2 || strcmp(w[0], AOF_MANIFEST_HEAD) != 0) {
                aof_errf(err, errlen, "line %d: expected '" AOF_MANIFEST_HEAD " %d'", lineno,
                         AOF_MANIFEST_VERSION);
                goto done;
            }
            if (strcmp(w[1], "1") != 0) {
                aof_errf(err, errlen, "line %d: unsupported manifest version %s", lineno, w[1]);
                goto done;
            }
            seen_head = 1;
            continue;
        }
        if (nw != 6 || strcmp(w[0], "file") != 0 || strcmp(w[2], "seq") != 0 ||
            strcmp(w[4], "type") != 0 || aof_parse_u64(w[3], &seq) < 0 || seq == 0 ||
            (strcmp(w[5], "base") != 0 && strcmp(w[5], "incr") != 0)) {
            aof_errf(err, errlen, "line %d: expected 'file <name> seq <n> type base|incr'", lineno);
            goto done;
        }
        if (aof_manifest_add(&t, strcmp(w[5], "base") == 0 ? AOF_KIND_BASE : AOF_KIND_INCR, seq,
                             w[1], msg, sizeof(msg)) < 0) {
            aof_errf(err, errlen, "line %d: %s", lineno, msg);
            goto done;
        }
    }
    if (!seen_head) {
        aof_errf(err, errlen, "empty manifest");
        goto done;
    }
    if (t.nfiles == 0) {
        aof_errf(err, errlen, "manifest names no file");
        goto done;
    }
    aof_manifest_free(m);
    *m = t;
    aof_manifest_init(&t);
    rc = 0;
done:
    aof_manifest_free(&t);
    xfree(copy);
    return rc;
}

int aof_manifest_load(const char *dir, aof_manifest *m, char *err, size_t errlen)
{
    char path[AOF_PATH_MAX], *text = NULL;
    struct stat st;
    size_t got = 0;
    int fd, rc = -1;

    if (aof_path(path, sizeof(path), dir, AOF_MANIFEST_NAME) < 0) {
        aof_errf(err, errlen, "log directory path too long");
        return -1;
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        if (errno == ENOENT) {
            aof_manifest_free(m);
            return 1;
        }
        aof_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) < 0 || st.st_size > AOF_MANIFEST_MAX) {
        aof_errf(err, errlen, "%s: %s", path, st.st_size > AOF_MANIFEST_MAX ? "too large" : strerror(errno));
        goto done;
    }
    text = xmalloc((size_t)st.st_size + 1);
    while (got < (size_t)st.st_size) {
        ssize_t k = read(fd, text + got, (size_t)st.st_size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            aof_errf(err, errlen, "cannot read %s: %s", path, k < 0 ? strerror(errno) : "short read");
            goto done;
        }
        got += (size_t)k;
    }
    if (aof_manifest_parse(text, got, m, err, errlen) == 0) {
        rc = 0;
    } else if (err && errlen) {
        char msg[256];
        snprintf(msg, sizeof(msg), "%s", err);
        aof_errf(err, errlen, "%s: %s", path, msg);
    }
done:
    xfree(text);
    close(fd);
    return rc;
}

char *aof_manifest_format(const aof_manifest *m)
{
    size_t cap = 64 + m->nfiles * (AOF_NAME_MAX + 64), len, i;
    char *out = xmalloc(cap);

    len = (size_t)snprintf(out, cap, AOF_MANIFEST_HEAD " %d\n", AOF_MANIFEST_VERSION);
    for (i = 0; i < m->nfiles; i++)
        len += (size_t)snprintf(out + len, cap - len, "file %s seq %" PRIu64 " type %s\n",
                                m->files[i].name, m->files[i].seq,
                                m->files[i].kind == AOF_KIND_BASE ? "base" : "incr");
    return out;
}

int aof_dir_fsync(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc, e;

    if (fd < 0)
        return -1;
    rc = fsync(fd);
    e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* Write m's text to tmp and fsync it. 0, or -1 (err set, tmp removed). */
static int aof_manifest_write_temp(const char *tmp, const aof_manifest *m, char *err, size_t errlen)
{
    char *text = aof_manifest_format(m);
    size_t len = strlen(text), done = 0;
    int fd, rc = -1;

    if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        aof_errf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    while (done < len) {
        ssize_t k = write(fd, text + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            aof_errf(err, errlen, "cannot write %s: %s", tmp, k < 0 ? strerror(errno) : "no space");
            goto fail;
        }
        done += (size_t)k;
    }
    if (fsync(fd) < 0) {
        aof_errf(err, errlen, "cannot fsync %s: %s", tmp, strerror(errno));
        goto fail;
    }
    if (close(fd) < 0) {
        fd = -1;
        aof_errf(err, errlen, "cannot close %s: %s", tmp, strerror(errno));
        goto fail;
    }
    rc = 0;
    goto done;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
done:
    xfree(text);
    return rc;
}

int aof_manifest_save(const char *dir, const aof_manifest *m, char *err, size_t errlen)
{
    char tmp[AOF_PATH_MAX], path[AOF_PATH_MAX];

    if (aof_path(tmp, sizeof(tmp), dir, AOF_MANIFEST_TMP) < 0 ||
        aof_path(path, sizeof(path), dir, AOF_MANIFEST_NAME) < 0) {
        aof_errf(err, errlen, "log directory path too long");
        return -1;
    }
    if (aof_manifest_write_temp(tmp, m, err, errlen) < 0)
        return -1;
    if (rename(tmp, path) < 0) {
        aof_errf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (aof_dir_fsync(dir) < 0) {
        aof_errf(err, errlen, "cannot fsync directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int aof_file_truncate(const char *path, uint64_t size, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC), rc = -1;

    if (fd < 0) {
        aof_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size) < 0 || fsync(fd) < 0)
        aof_errf(err, errlen, "cannot truncate %s: %s", path, strerror(errno));
    else
        rc = 0;
    close(fd);
    return rc;
}

/* mkdir -p dir (mode 0755). */
static int aof_mkdirs(const char *dir)
{
    char p[AOF_PATH_MAX];
    size_t i, n = strlen(dir);

    if (n == 0 || n >= sizeof(p))
        return -1;
    memcpy(p, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return -1;
        p[i] = dir[i];
    }
    return 0;
}

/* Create file seq of kind in dir and add it to m. 0 or -1 (err set). */
static int aof_new_file(const char *dir, aof_manifest *m, int kind, const aof_io *io,
                        char *path, size_t pathcap, char *err, size_t errlen)
{
    uint64_t seq = aof_manifest_alloc_seq(m);
    char name[AOF_NAME_MAX + 1];

    aof_file_name(name, sizeof(name), seq, kind);
    if (aof_path(path, pathcap, dir, name) < 0) {
        aof_errf(err, errlen, "log directory path too long");
        return -1;
    }
    if (aof_file_create(path, kind, seq, io, err, errlen) < 0)
        return -1;
    if (aof_manifest_add(m, kind, seq, name, err, errlen) < 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

aof_writer *aof_dir_start(const char *dir, aof_manifest *m, aof_fsync_policy policy,
                          const aof_io *io, char *err, size_t errlen)
{
    char path[AOF_PATH_MAX], base[AOF_PATH_MAX] = "";
    const aof_mfile *last = aof_manifest_last(m);
    aof_manifest t;

    if (last && last->kind == AOF_KIND_INCR) {
        if (aof_path(path, sizeof(path), dir, last->name) < 0) {
            aof_errf(err, errlen, "log directory path too long");
            return NULL;
        }
        return aof_writer_open(path, policy, io, err, errlen);
    }
    aof_manifest_copy(&t, m);
    if (!last) {
        if (aof_mkdirs(dir) < 0) {
            aof_errf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
            goto done;
        }
        if (aof_new_file(dir, &t, AOF_KIND_BASE, io, base, sizeof(base), err, errlen) < 0)
            goto done;
    }
    if (aof_new_file(dir, &t, AOF_KIND_INCR, io, path, sizeof(path), err, errlen) < 0)
        goto fail;
    if (aof_manifest_save(dir, &t, err, errlen) < 0) {
        unlink(path);
        goto fail;
    }
    aof_manifest_free(m);
    *m = t;
    return aof_writer_open(path, policy, io, err, errlen);
fail:
    if (base[0])
        unlink(base);
done:
    m->next_seq = t.next_seq;
    aof_manifest_free(&t);
    return NULL;
}

static int aof_manifest_names(const aof_manifest *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i].name, name) == 0)
            return 1;
    return 0;
}

/* Parse "<digits>.base|incr[.tmp]" (the rest of a log file's name after
 * AOF_FILE_PREFIX) into f. Anything else leaves f's seq 0 and kind NONE. */
static void aof_dirfile_parse(const char *rest, aof_dirfile *f)
{
    uint64_t seq = 0;
    const char *p = rest;

    f->seq = 0;
    f->kind = AOF_KIND_NONE;
    f->temp = 0;
    if (*p < '1' || *p > '9')
        return;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (seq > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return;
        seq = seq * 10 + (uint64_t)(*p - '0');
    }
    if (strncmp(p, ".base", 5) == 0)
        f->kind = AOF_KIND_BASE;
    else if (strncmp(p, ".incr", 5) == 0)
        f->kind = AOF_KIND_INCR;
    else
        return;
    p += 5;
    if (f->kind == AOF_KIND_BASE && strcmp(p, ".tmp") == 0)
        f->temp = 1;
    else if (*p) {
        f->kind = AOF_KIND_NONE;
        return;
    }
    f->seq = seq;
}

static int aof_dirfile_cmp(const void *a, const void *b)
{
    const aof_dirfile *x = a, *y = b;

    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return strcmp(x->name, y->name);
}

int aof_dir_list(const char *dir, aof_dirfile **out, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[AOF_PATH_MAX];
    size_t cap = 0;
    struct stat st;

    *out = NULL;
    *n = 0;
    if (!d)
        return errno == ENOENT ? 0 : -1;
    while ((de = readdir(d)) != NULL) {
        aof_dirfile *f;
        int ours = strncmp(de->d_name, AOF_FILE_PREFIX, strlen(AOF_FILE_PREFIX)) == 0;
        int mtemp = strcmp(de->d_name, AOF_MANIFEST_TMP) == 0 || strcmp(de->d_name, AOF_MANIFEST_REWRITE_TMP) == 0;
        if ((!ours && !mtemp) || strlen(de->d_name) > AOF_NAME_MAX)
            continue;
        if (aof_path(path, sizeof(path), dir, de->d_name) < 0 || lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *out = xrealloc(*out, cap * sizeof(**out));
        }
        f = &(*out)[(*n)++];
        memcpy(f->name, de->d_name, strlen(de->d_name) + 1); /* at most AOF_NAME_MAX bytes: checked above */
        f->size = (uint64_t)st.st_size;
        if (ours)
            aof_dirfile_parse(de->d_name + strlen(AOF_FILE_PREFIX), f);
        else {
            f->seq = 0;
            f->kind = AOF_KIND_NONE;
            f->temp = 1;
        }
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof(**out), aof_dirfile_cmp);
    return 0;
}

void aof_dir_seq_past(const char *dir, aof_manifest *m)
{
    aof_dirfile *fs;
    size_t n, i;

    if (aof_dir_list(dir, &fs, &n) < 0)
        return;
    for (i = 0; i < n; i++)
        if (fs[i].seq >= m->next_seq && fs[i].seq < UINT64_MAX)
            m->next_seq = fs[i].seq + 1;
    xfree(fs);
}

/* Append "name (N bytes)" to list (cap bytes, NUL-terminated), ending it with
 * "..." once it is full. */
static void aof_list_add(char *list, size_t cap, const aof_dirfile *f)
{
    size_t used;

    if (!list || cap < 4)
        return;
    used = strlen(list);
    if (used >= 3 && strcmp(list + used - 3, "...") == 0)
        return;
    if (snprintf(list + used, cap - used, "%s%s (%" PRIu64 " bytes)", used ? ", " : "", f->name, f->size) >=
        (int)(cap - used))
        memcpy(list + cap - 4, "...", 4);
}

int aof_dir_orphans(const char *dir, const aof_manifest *m, char *list, size_t cap)
{
    aof_dirfile *fs;
    size_t n, i;
    int count = 0;

    if (list && cap)
        list[0] = '\0';
    if (aof_dir_list(dir, &fs, &n) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        if (strncmp(fs[i].name, AOF_FILE_PREFIX, strlen(AOF_FILE_PREFIX)) != 0 ||
            aof_manifest_names(m, fs[i].name))
            continue;
        aof_list_add(list, cap, &fs[i]);
        count += fs[i].size > AOF_HEADER_SIZE;
    }
    xfree(fs);
    return count;
}

int aof_dir_clean(const char *dir, aof_manifest *m, size_t *nkept, char *kept, size_t keptcap)
{
    char path[AOF_PATH_MAX];
    aof_dirfile *fs;
    size_t n, i, k = 0;
    int removed = 0;

    if (kept && keptcap)
        kept[0] = '\0';
    if (nkept)
        *nkept = 0;
    if (aof_dir_list(dir, &fs, &n) < 0)
        return 0;
    for (i = 0; i < n; i++) {
        const aof_dirfile *f = &fs[i];
        int ours = strncmp(f->name, AOF_FILE_PREFIX, strlen(AOF_FILE_PREFIX)) == 0;
        int garbage = !ours || f->size <= AOF_HEADER_SIZE || (f->temp && m->nfiles > 0);
        if (f->seq >= m->next_seq && f->seq < UINT64_MAX)
            m->next_seq = f->seq + 1;
        if (aof_manifest_names(m, f->name))
            continue;
        if (!garbage) {
            aof_list_add(kept, keptcap, f);
            k++;
            continue;
        }
        if (aof_path(path, sizeof(path), dir, f->name) == 0 && unlink(path) == 0)
            removed++;
    }
    xfree(fs);
    if (removed)
        aof_dir_fsync(dir);
    if (nkept)
        *nkept = k;
    return removed;
}

/* Remove a file, a large one gradually: cut AOF_REMOVE_STEP bytes off its end
 * at a time, pausing between cuts, then unlink it. Freeing a whole 1 GB base
 * at once (with a synchronous discard on some disks) occupies the disk that
 * the server's own log writes and fsyncs need; in steps, they get their turn. */
static int aof_remove_gently(const char *path)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (fstat(fd, &st) == 0) {
            off_t size = st.st_size;
            while (size > (off_t)AOF_REMOVE_STEP) {
                struct timespec pause = {0, AOF_REMOVE_PAUSE_MS * 1000000L};
                size -= (off_t)AOF_REMOVE_STEP;
                if (ftruncate(fd, size) < 0)
                    break;
                nanosleep(&pause, NULL);
            }
        }
        close(fd);
    }
    return unlink(path);
}

int aof_dir_remove(const char *dir, const aof_manifest *files)
{
    char path[AOF_PATH_MAX];
    size_t i;
    int failed = 0;

    for (i = 0; i < files->nfiles; i++)
        if (aof_path(path, sizeof(path), dir, files->files[i].name) < 0 ||
            (aof_remove_gently(path) < 0 && errno != ENOENT))
            failed++;
    if (files->nfiles)
        aof_dir_fsync(dir);
    return failed;
}

/* ---- Rewrite ---- */

int aof_rewrite_temp_path(char *out, size_t cap, const char *dir, uint64_t seq)
{
    char name[AOF_NAME_MAX + 1];

    aof_file_name(name, sizeof(name), seq, AOF_KIND_BASE);
    return snprintf(out, cap, "%s/%s.tmp", dir, name) >= (int)cap ? -1 : 0;
}

int aof_rewrite_prepare(const char *dir, const aof_manifest *m, const aof_io *io, uint64_t base_seq,
                        aof_rewrite *rw, aof_manifest *next, char *err, size_t errlen)
{
    char name[AOF_NAME_MAX + 1];
    aof_manifest t;

    memset(rw, 0, sizeof(*rw));
    if (snprintf(rw->dir, sizeof(rw->dir), "%s", dir) >= (int)sizeof(rw->dir)) {
        aof_errf(err, errlen, "log directory path too long");
        return -1;
    }
    if (aof_mkdirs(dir) < 0) {
        aof_errf(err, errlen, "cannot create directory %s: %s", dir, strerror(errno));
        return -1;
    }
    aof_manifest_copy(&t, m);
    if (aof_new_file(dir, &t, AOF_KIND_INCR, io, rw->incr_path, sizeof(rw->incr_path), err, errlen) < 0)
        goto fail;
    rw->incr_seq = aof_manifest_last(&t)->seq;
    rw->base_seq = base_seq ? base_seq : aof_manifest_alloc_seq(&t);
    aof_file_name(name, sizeof(name), rw->base_seq, AOF_KIND_BASE);
    if (aof_rewrite_temp_path(rw->temp_path, sizeof(rw->temp_path), dir, rw->base_seq) < 0 ||
        aof_path(rw->base_path, sizeof(rw->base_path), dir, name) < 0 ||
        aof_path(rw->manifest_temp, sizeof(rw->manifest_temp), dir, AOF_MANIFEST_REWRITE_TMP) < 0) {
        aof_errf(err, errlen, "log directory path too long");
        unlink(rw->incr_path);
        goto fail;
    }
    if (aof_manifest_base(&t)) {
        if (aof_manifest_save(dir, &t, err, errlen) < 0) {
            unlink(rw->incr_path);
            goto fail;
        }
        rw->saved = 1;
    }
    *next = t;
    return 0;
fail:
    aof_manifest_free(&t);
    return -1;
}

int aof_rewrite_commit(aof_manifest *m, aof_manifest *next, aof_writer **w, aof_fsync_policy policy,
                       const aof_io *io, const aof_rewrite *rw, char *err, size_t errlen)
{
    int rc = -1;

    if (*w ? aof_writer_switch(*w, rw->incr_path, err, errlen) == 0
           : (*w = aof_writer_open(rw->incr_path, policy, io, err, errlen)) != NULL)
        rc = 0;
    /* If the switch failed after the save, the manifest names the new, empty incr
     * after the file still written to: a complete, correctly ordered set, which m
     * must now describe. No rewrite may finish from there: rc stays -1. */
    if (rc == 0 || rw->saved) {
        aof_manifest_free(m);
        *m = *next;
        aof_manifest_init(next);
    } else {
        if (next->next_seq > m->next_seq)
            m->next_seq = next->next_seq;
        aof_manifest_free(next);
    }
    return rc;
}

int aof_rewrite_start(const char *dir, aof_manifest *m, aof_writer **w,
                      aof_fsync_policy policy, const aof_io *io, aof_rewrite *rw, char *err,
                      size_t errlen)
{
    aof_manifest next;

    if (*w && aof_writer_flush(*w) == AOF_FLUSH_ERR) {
        aof_writer_stats st;
        aof_writer_get_stats(*w, &st);
        memset(rw, 0, sizeof(*rw));
        aof_errf(err, errlen, "the log cannot be written: %s", strerror(st.err_no));
        return -1;
    }
    if (aof_rewrite_prepare(dir, m, io, 0, rw, &next, err, errlen) < 0)
        return -1;
    return aof_rewrite_commit(m, &next, w, policy, io, rw, err, errlen);
}

aof_writer *aof_rewrite_base_create(const aof_rewrite *rw, char *err, size_t errlen)
{
    return aof_writer_create(rw->temp_path, AOF_KIND_BASE, rw->base_seq, AOF_FSYNC_NO, NULL, err,
                             errlen);
}

/* The manifest a finished rewrite switches to: the new base, then the incr
 * files from the one opened at its start on. The files left out go to *old
 * (may be NULL). 0, or -1 (err set). */
static int aof_rewrite_manifest(const aof_manifest *m, const aof_rewrite *rw, aof_manifest *t,
                                aof_manifest *old, char *err, size_t errlen)
{
    char name[AOF_NAME_MAX + 1];
    size_t i;

    aof_manifest_init(t);
    t->next_seq = m->next_seq;
    aof_file_name(name, sizeof(name), rw->base_seq, AOF_KIND_BASE);
    if (aof_manifest_add(t, AOF_KIND_BASE, rw->base_seq, name, err, errlen) < 0)
        goto fail;
    for (i = 0; i < m->nfiles; i++) {
        const aof_mfile *f = &m->files[i];
        int keep = f->kind == AOF_KIND_INCR && f->seq >= rw->incr_seq;
        if (!keep && !old)
            continue;
        if (aof_manifest_add(keep ? t : old, f->kind, f->seq, f->name, err, errlen) < 0)
            goto fail;
    }
    return 0;
fail:
    aof_manifest_free(t);
    return -1;
}

int aof_rewrite_child_finish(const aof_manifest *m, const aof_rewrite *rw, char *err, size_t errlen)
{
    aof_manifest t;
    int rc;

    if (rename(rw->temp_path, rw->base_path) < 0) {
        aof_errf(err, errlen, "cannot rename %s to %s: %s", rw->temp_path, rw->base_path, strerror(errno));
        return -1;
    }
    if (aof_dir_fsync(rw->dir) < 0) {
        aof_errf(err, errlen, "cannot fsync directory %s: %s", rw->dir, strerror(errno));
        return -1;
    }
    if (aof_rewrite_manifest(m, rw, &t, NULL, err, errlen) < 0)
        return -1;
    rc = aof_manifest_write_temp(rw->manifest_temp, &t, err, errlen);
    aof_manifest_free(&t);
    return rc;
}

/* 1 if path holds exactly text. */
static int aof_file_is(const char *path, const char *text)
{
    size_t len = strlen(text);
    char *buf = xmalloc(len + 1);
    int fd = open(path, O_RDONLY | O_CLOEXEC), same = 0;
    ssize_t k = -1;

    if (fd >= 0) {
        k = pread(fd, buf, len + 1, 0);
        close(fd);
    }
    same = k == (ssize_t)len && memcmp(buf, text, len) == 0;
    xfree(buf);
    return same;
}

int aof_rewrite_finish(const char *dir, aof_manifest *m, const aof_rewrite *rw,
                       aof_manifest *obsolete, int *held_fd, char *err, size_t errlen)
{
    char path[AOF_PATH_MAX], *text;
    aof_manifest t, old;
    int same;

    *held_fd = -1;
    aof_manifest_init(obsolete);
    aof_manifest_init(&old);
    if (aof_path(path, sizeof(path), dir, AOF_MANIFEST_NAME) < 0) {
        aof_errf(err, errlen, "log directory path too long");
        aof_rewrite_abort(rw);
        return -1;
    }
    if (aof_rewrite_manifest(m, rw, &t, &old, err, errlen) < 0) {
        aof_manifest_free(&old);
        aof_rewrite_abort(rw);
        return -1;
    }
    /* The child wrote the manifest from m as it was at the fork. m does not
     * change while a child runs, but if it ever did, the child's file would
     * name the wrong set: then write the right one here, as before the fork. */
    text = aof_manifest_format(&t);
    same = aof_file_is(rw->manifest_temp, text);
    xfree(text);
    if (same) {
        /* Replacing the old manifest frees its blocks when its last reference
         * goes, with a synchronous discard on some disks: keep a reference for
         * the caller to drop off the loop. */
        *held_fd = open(path, O_RDONLY | O_CLOEXEC);
        if (rename(rw->manifest_temp, path) < 0) {
            aof_errf(err, errlen, "cannot rename %s to %s: %s", rw->manifest_temp, path, strerror(errno));
            goto fail;
        }
    } else {
        unlink(rw->manifest_temp);
        if (aof_manifest_save(dir, &t, err, errlen) < 0)
            goto fail;
    }
    aof_manifest_free(m);
    *m = t;
    *obsolete = old;
    return 0;
fail:
    /* The base stays: if a failed save got as far as its rename, the manifest
     * on disk names it. Otherwise nothing names it, and the next start leaves
     * it in place and logs it (aof_dir_clean: a complete base). */
    if (*held_fd >= 0)
        close(*held_fd);
    *held_fd = -1;
    unlink(rw->manifest_temp);
    aof_manifest_free(&t);
    aof_manifest_free(&old);
    return -1;
}

void aof_rewrite_abort(const aof_rewrite *rw)
{
    if (rw->temp_path[0])
        unlink(rw->temp_path);
    if (rw->base_path[0])
        unlink(rw->base_path);
    if (rw->manifest_temp[0])
        unlink(rw->manifest_temp);
}
