/* test_aof_stream.c -- the threaded log-file writer of an incremental rewrite
 * (aof_stream), the rewrite switch for a base that already exists
 * (aof_rewrite_prepare / aof_rewrite_commit), and the memory counter shared with other threads
 * (mem_thread_register).
 *
 * Records come from a seeded model (record i always encodes to the same bytes:
 * 1 to 3 effects in several databases, binary values of every byte value, some
 * of them large), so a file's contents are checked byte for byte against the
 * same records encoded into a shadow buffer, and records read back are checked
 * against the model. A write failure is provoked with RLIMIT_FSIZE (EFBIG past
 * the limit, SIGXFSZ ignored), which needs no privilege and no special mount.
 * Files live in a fresh temporary directory, removed at the end. */
#include "aof.h"
#include "aof_manifest.h"
#include "aof_reader.h"
#include "aof_stream.h"
#include "aof_writer.h"
#include "mem.h"
#include "test.h"
#include "testfs.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* ---- Helpers ---- */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}






/* Poll s until it leaves 0 or ms pass; returns the last poll. */
static int wait_poll(aof_stream *s, char *err, size_t errlen, int ms)
{
    int64_t end = mono_ms() + ms;
    int st;

    while ((st = aof_stream_poll(s, err, errlen)) == 0 && mono_ms() < end)
        sleep_ms(1);
    return st;
}

/* Wait until nothing is queued (or ms pass); returns what is queued. */
static uint64_t wait_drained(aof_stream *s, int ms)
{
    int64_t end = mono_ms() + ms;
    uint64_t q;

    while ((q = aof_stream_queued(s)) != 0 && mono_ms() < end)
        sleep_ms(1);
    return q;
}

/* ---- The record model ---- */

/* Record i: i % 3 + 1 effects; effect j in db (i + j) % 16 is "SET r:<i>:<j>
 * <value>", the value model_len(i, j) seeded bytes (every byte value appears;
 * every 97th record carries a value of about 1 MB). */
static size_t model_len(int i, int j)
{
    if (i % 97 == 50 && j == 0)
        return (1u << 20) + (size_t)i;
    return (size_t)(i * 13 + j) % 400;
}

static char *model_value(int i, int j, size_t *n)
{
    char *v;
    size_t k;

    *n = model_len(i, j);
    v = malloc(*n ? *n : 1);
    rng_seed((uint64_t)i * 131 + (uint64_t)j);
    for (k = 0; k < *n; k++)
        v[k] = (char)(rng() >> 40);
    return v;
}

static void gen_args(aof_buf *b, int i, int j)
{
    char key[32], *v;
    size_t n;

    aof_rec_arg_str(b, "SET");
    snprintf(key, sizeof(key), "r:%d:%d", i, j);
    aof_rec_arg_str(b, key);
    v = model_value(i, j, &n);
    aof_rec_arg_bytes(b, v, n);
    free(v);
}

static void gen_record(aof_buf *b, int i)
{
    int j;

    for (j = 0; j < i % 3 + 1; j++) {
        if (j == 0)
            aof_rec_begin(b, (i + j) % 16);
        else
            aof_rec_next_effect(b, (i + j) % 16);
        gen_args(b, i, j);
    }
    aof_rec_end(b);
}

/* The model number of rec (from its first key), or -1 if rec is not exactly
 * that record of the model. */
static int model_id(const aof_record *rec)
{
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    char key[32], *v;
    size_t n;
    int i = -1, j = 0, ok;

    if (rec->type != AOF_REC_EFFECTS)
        return -1;
    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &e)) {
        aof_args_begin(&ai, &e);
        if (e.argc != 3 || !aof_args_next(&ai, &a) || a.len != 3 || memcmp(a.p, "SET", 3) != 0)
            return -1;
        if (!aof_args_next(&ai, &a) || a.len >= sizeof(key))
            return -1;
        if (j == 0) {
            if (a.len < 5 || memcmp(a.p, "r:", 2) != 0)
                return -1;
            i = atoi(a.p + 2);
        }
        snprintf(key, sizeof(key), "r:%d:%d", i, j);
        if (a.len != strlen(key) || memcmp(a.p, key, a.len) != 0 || e.db != (i + j) % 16)
            return -1;
        if (!aof_args_next(&ai, &a) || a.kind != AOF_ARG_BYTES)
            return -1;
        v = model_value(i, j, &n);
        ok = a.len == n && (n == 0 || memcmp(a.p, v, n) == 0);
        free(v);
        if (!ok)
            return -1;
        j++;
    }
    return i >= 0 && j == i % 3 + 1 && rec->neffects == (uint32_t)j ? i : -1;
}

/* Read path with the per-file reader: *hdr gets its header, ids[] the model
 * numbers of its records in order (up to max). Returns the count, or -1 if a
 * record is not of the model or the file does not end cleanly. */
static int read_ids(const char *path, aof_header *hdr, int *ids, int max)
{
    aof_reader *r = aof_reader_open(path);
    aof_record rec;
    aof_status st;
    int n = 0;

    if (!r)
        return -1;
    if (aof_reader_header(r))
        *hdr = *aof_reader_header(r);
    while ((st = aof_reader_next(r, &rec)) == AOF_OK) {
        int id = model_id(&rec);
        if (id < 0 || n >= max) {
            n = -1;
            break;
        }
        ids[n++] = id;
    }
    if (n >= 0 && (st != AOF_END || aof_reader_offset(r) != aof_reader_size(r)))
        n = -1;
    aof_reader_close(r);
    return n;
}

/* ---- aof_stream: contents ---- */

typedef struct finish_probe {
    aof_stream *s;
    const char *path;
    pthread_t thread;     /* the thread the step ran on */
    int calls;            /* atomic */
    long long size;       /* bytes, the file's size when the step ran */
    uint64_t written;     /* aof_stream_written when the step ran */
    int go;               /* atomic: the step may return */
    int result;           /* what the step returns */
    const char *msg;      /* its message when it fails ("" for none) */
    int sleep_ms;         /* it sleeps that long first */
    int done;             /* atomic: the step returned */
} finish_probe;

static int probe_step(void *ctx, char *err, size_t errlen)
{
    finish_probe *p = ctx;
    int64_t end = mono_ms() + 10000;

    __atomic_add_fetch(&p->calls, 1, __ATOMIC_SEQ_CST);
    p->thread = pthread_self();
    p->size = file_size(p->path);
    p->written = aof_stream_written(p->s);
    while (!__atomic_load_n(&p->go, __ATOMIC_SEQ_CST) && mono_ms() < end)
        sleep_ms(1);
    if (p->sleep_ms)
        sleep_ms(p->sleep_ms);
    if (p->result < 0)
        snprintf(err, errlen, "%s", p->msg);
    __atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
    return p->result;
}

#define NREC 3000

static void test_stream_contents(void)
{
    const char *path = path_in("contents.base");
    char err[256] = "";
    aof_stream *s;
    aof_buf shadow, side;
    finish_probe probe;
    aof_header hdr;
    unsigned char *data;
    size_t n, maxitem = 0;
    uint64_t pushed = 0, before;
    int *ids = malloc(sizeof(int) * (NREC + 10)), i, got, order_ok = 1, inv_ok = 1;

    memset(&probe, 0, sizeof(probe));
    memset(&hdr, 0, sizeof(hdr));
    aof_buf_init(&shadow);
    aof_buf_init(&side);
    s = aof_stream_create(path, AOF_KIND_BASE, 42, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        goto done;
    CHECK(aof_stream_written(s) == AOF_HEADER_SIZE && aof_stream_queued(s) == 0);
    CHECK(file_size(path) == AOF_HEADER_SIZE);
    CHECK(aof_stream_poll(s, err, sizeof(err)) == 0);
    /* A push with nothing complete hands nothing over. */
    aof_stream_push(s);
    CHECK(aof_stream_queued(s) == 0 && aof_stream_written(s) == AOF_HEADER_SIZE);
    for (i = 0; i < NREC; i++) {
        gen_record(&shadow, i);
        if (i % 4 == 1 || i % 97 == 50) {
            /* Copied from another buffer, as the loop copies its log records. */
            size_t c = aof_stream_buf(s)->committed;
            gen_record(&side, i);
            aof_stream_append(s, side.p, side.committed);
            if (aof_stream_buf(s)->committed != c + side.committed)
                inv_ok = 0;
            aof_buf_consume(&side, side.committed);
        } else if (i % 50 == 7) {
            /* Pushed while this record is half built: only the complete ones
             * go, the open one stays and is completed afterwards. */
            aof_buf *b = aof_stream_buf(s);
            size_t c = b->committed;
            aof_rec_begin(b, i % 16);
            gen_args(b, i, 0);
            aof_stream_push(s);
            pushed += c;
            if (c > maxitem)
                maxitem = c;
            if (!aof_rec_open(b) || b->committed != 0 || b->len == 0)
                inv_ok = 0;
            for (n = 1; n < (size_t)(i % 3 + 1); n++) {
                aof_rec_next_effect(b, (i + (int)n) % 16);
                gen_args(b, i, (int)n);
            }
            aof_rec_end(b);
        } else {
            gen_record(aof_stream_buf(s), i);
        }
        if (i % 37 == 36 || i % 97 == 50) {
            size_t c = aof_stream_buf(s)->committed;
            uint64_t q, w1, w2;
            aof_stream_push(s);
            pushed += c;
            if (c > maxitem)
                maxitem = c;
            if (aof_stream_buf(s)->committed != 0 || aof_stream_buf(s)->len != 0)
                inv_ok = 0; /* no record open: the push took everything */
            /* Every byte handed over is either queued or written (a buffer
             * being written is in both, so: written before the queue figure
             * plus it is at most pushed + one buffer, and it plus written
             * after it at least pushed). */
            w1 = aof_stream_written(s) - AOF_HEADER_SIZE;
            q = aof_stream_queued(s);
            w2 = aof_stream_written(s) - AOF_HEADER_SIZE;
            if (q + w2 < pushed || q + w1 > pushed + maxitem)
                inv_ok = 0;
        }
    }
    CHECK(inv_ok);
    pushed += aof_stream_buf(s)->committed;
    aof_stream_push(s);
    CHECK(shadow.committed == pushed);
    CHECK(shadow.committed > AOF_STREAM_SYNC_BYTES); /* the writeback steps ran */
    CHECK(aof_stream_poll(s, err, sizeof(err)) == 0);
    probe.s = s;
    probe.path = path;
    /* Finished at once, with buffers likely still queued: the step runs after
     * they are all written. It waits for probe.go: until then the stream is
     * finishing, not finished. */
    aof_stream_finish(s, probe_step, &probe);
    {
        int64_t end = mono_ms() + 30000;
        while (__atomic_load_n(&probe.calls, __ATOMIC_SEQ_CST) == 0 && mono_ms() < end)
            sleep_ms(1);
    }
    CHECK(aof_stream_poll(s, err, sizeof(err)) == 0);
    before = aof_stream_written(s);
    aof_stream_push(s); /* nothing pending: no effect either way */
    __atomic_store_n(&probe.go, 1, __ATOMIC_SEQ_CST);
    CHECK(wait_poll(s, err, sizeof(err), 30000) == 1);
    CHECK(probe.calls == 1);
    CHECK(!pthread_equal(probe.thread, pthread_self()));
    CHECK(probe.size == (long long)(AOF_HEADER_SIZE + pushed));
    CHECK(probe.written == AOF_HEADER_SIZE + pushed);
    CHECK(aof_stream_written(s) == before && before == AOF_HEADER_SIZE + pushed);
    CHECK(aof_stream_queued(s) == 0);
    CHECK(file_size(path) == (long long)aof_stream_written(s));
    /* The bytes after the header are exactly the records, in order. */
    data = read_file(path, &n);
    CHECK(data && n == AOF_HEADER_SIZE + shadow.committed &&
          memcmp(data + AOF_HEADER_SIZE, shadow.p, shadow.committed) == 0);
    free(data);
    /* And they read back as those records, under a base header with seq 42. */
    got = read_ids(path, &hdr, ids, NREC + 10);
    CHECK(got == NREC);
    for (i = 0; i < got; i++)
        if (ids[i] != i)
            order_ok = 0;
    CHECK(order_ok);
    CHECK((hdr.flags & AOF_KIND_MASK) == AOF_KIND_BASE && hdr.seq == 42 && hdr.version == AOF_VERSION);
    /* Still 1, and the step is not run again. */
    CHECK(aof_stream_poll(s, err, sizeof(err)) == 1 && probe.calls == 1);
    aof_stream_free(s);
done:
    aof_buf_free(&shadow);
    aof_buf_free(&side);
    free(ids);
    unlink(path);
}

/* ---- aof_stream: finishing and failing ---- */

static void test_stream_finish_fails(void)
{
    const char *path = path_in("fails.base");
    char err[256];
    aof_stream *s;
    finish_probe probe;
    aof_header hdr;
    int ids[8], i;

    memset(&probe, 0, sizeof(probe));
    s = aof_stream_create(path, AOF_KIND_BASE, 7, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    for (i = 0; i < 5; i++)
        gen_record(aof_stream_buf(s), i);
    aof_stream_push(s);
    probe.s = s;
    probe.path = path;
    probe.go = 1;
    probe.result = -1;
    probe.msg = "cannot rename the base: no such thing";
    aof_stream_finish(s, probe_step, &probe);
    strcpy(err, "unchanged");
    CHECK(wait_poll(s, err, sizeof(err), 30000) == -1);
    CHECK(strcmp(err, "cannot rename the base: no such thing") == 0);
    CHECK(probe.calls == 1 && probe.size == (long long)aof_stream_written(s));
    /* poll with no buffer is fine, and the state stays failed. */
    CHECK(aof_stream_poll(s, NULL, 0) == -1);
    /* A push after the finish is dropped: nothing more reaches the file. */
    gen_record(aof_stream_buf(s), 5);
    aof_stream_push(s);
    CHECK(aof_stream_queued(s) == 0);
    sleep_ms(20);
    CHECK(file_size(path) == (long long)aof_stream_written(s));
    CHECK(read_ids(path, &hdr, ids, 8) == 5 && hdr.seq == 7);
    aof_stream_free(s);
    CHECK(probe.calls == 1);

    /* A step that fails without a message gets a generic one. */
    memset(&probe, 0, sizeof(probe));
    s = aof_stream_create(path, AOF_KIND_BASE, 8, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    probe.s = s;
    probe.path = path;
    probe.go = 1;
    probe.result = -1;
    probe.msg = "";
    aof_stream_finish(s, probe_step, &probe);
    err[0] = '\0';
    CHECK(wait_poll(s, err, sizeof(err), 30000) == -1);
    CHECK(err[0] != '\0');
    CHECK(probe.calls == 1 && probe.size == AOF_HEADER_SIZE);
    aof_stream_free(s);

    /* With no step at all, the stream finishes once the file is synced. */
    s = aof_stream_create(path, AOF_KIND_BASE, 9, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    gen_record(aof_stream_buf(s), 0);
    aof_stream_push(s);
    aof_stream_finish(s, NULL, NULL);
    CHECK(wait_poll(s, err, sizeof(err), 30000) == 1);
    CHECK(file_size(path) == (long long)aof_stream_written(s) && aof_stream_written(s) > AOF_HEADER_SIZE);
    aof_stream_free(s);
    unlink(path);
}

static void test_stream_write_error(void)
{
    const char *path = path_in("efbig.base");
    const rlim_t limit = 64 * 1024;
    char err[256];
    struct rlimit old, lim;
    aof_stream *s;
    finish_probe probe;
    uint64_t w;
    int i, st;

    memset(&probe, 0, sizeof(probe));
    s = aof_stream_create(path, AOF_KIND_BASE, 3, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    /* Writes past 64 KB fail with EFBIG from here on (a partial write first). */
    fflush(stdout);
    fflush(stderr);
    signal(SIGXFSZ, SIG_IGN);
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = limit;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    for (i = 0; i < 2000; i++) {
        gen_record(aof_stream_buf(s), i % 97 == 50 ? i + 1 : i); /* no 1 MB records */
        if (i % 100 == 99)
            aof_stream_push(s);
    }
    aof_stream_push(s);
    strcpy(err, "unchanged");
    st = wait_poll(s, err, sizeof(err), 30000);
    CHECK(wait_drained(s, 30000) == 0);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    CHECK(st == -1);
    CHECK(strncmp(err, "write: ", 7) == 0 && strstr(err, strerror(EFBIG)) != NULL);
    /* The file holds what was written before the failure, no more. */
    w = aof_stream_written(s);
    CHECK(w == limit && file_size(path) == (long long)limit);
    /* Later pushes are dropped, and the finishing step does not run. */
    gen_record(aof_stream_buf(s), 0);
    aof_stream_push(s);
    CHECK(aof_stream_queued(s) == 0);
    probe.s = s;
    probe.path = path;
    probe.go = 1;
    aof_stream_finish(s, probe_step, &probe);
    sleep_ms(50);
    CHECK(aof_stream_poll(s, err, sizeof(err)) == -1 && strncmp(err, "write: ", 7) == 0);
    CHECK(probe.calls == 0);
    CHECK(aof_stream_written(s) == w && file_size(path) == (long long)limit);
    aof_stream_free(s);
    CHECK(probe.calls == 0);
    unlink(path);
}

static void test_stream_create(void)
{
    const char *path = path_in("missing/dir/x.base");
    const char *old = path_in("existing.base");
    char err[256] = "";
    size_t base = mem_used();
    aof_stream *s;
    aof_header hdr;
    int ids[4];

    s = aof_stream_create(path, AOF_KIND_BASE, 1, err, sizeof(err));
    CHECK(s == NULL);
    CHECK(err[0] != '\0' && strstr(err, "x.base") != NULL && strstr(err, strerror(ENOENT)) != NULL);
    CHECK(!file_exists(path) && !file_exists(path_in("missing")));
    CHECK(mem_used() == base);
    /* An existing file is truncated to a fresh header, synced before create
     * returns. */
    write_file(old, "not a log file, and longer than a header: 0123456789012345678901234567890123456789", 83);
    s = aof_stream_create(old, AOF_KIND_INCR, 77, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(file_size(old) == AOF_HEADER_SIZE && aof_stream_written(s) == AOF_HEADER_SIZE);
    memset(&hdr, 0, sizeof(hdr));
    CHECK(read_ids(old, &hdr, ids, 4) == 0);
    CHECK((hdr.flags & AOF_KIND_MASK) == AOF_KIND_INCR && hdr.seq == 77);
    aof_stream_free(s);
    /* Freed without finishing: the file stays, as it was. */
    CHECK(file_size(old) == AOF_HEADER_SIZE);
    CHECK(mem_used() == base);
    unlink(old);
}

static void test_stream_free(void)
{
    const char *path = path_in("free.base");
    char err[256];
    size_t base = mem_used();
    aof_stream *s;
    finish_probe probe;
    uint64_t pushed = 0, queued;
    int64_t t0;
    int i;

    aof_stream_free(NULL);
    /* 128 MB handed over in 1 MB pushes (copies of one record, so the loop
     * outpaces the disk), freed at once: free drops the queue instead of
     * writing it out. */
    s = aof_stream_create(path, AOF_KIND_BASE, 5, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    {
        aof_buf rec;
        char *v = malloc(1u << 20);
        memset(v, 'v', 1u << 20);
        aof_buf_init(&rec);
        aof_rec_begin(&rec, 0);
        aof_rec_arg_str(&rec, "SET");
        aof_rec_arg_str(&rec, "big");
        aof_rec_arg_bytes(&rec, v, 1u << 20);
        aof_rec_end(&rec);
        free(v);
        for (i = 0; i < 128; i++) {
            aof_stream_append(s, rec.p, rec.committed);
            aof_stream_push(s);
            pushed += rec.committed;
        }
        aof_buf_free(&rec);
    }
    /* A record left half built in the buffer is freed too. */
    aof_rec_begin(aof_stream_buf(s), 0);
    aof_rec_arg_str(aof_stream_buf(s), "SET");
    queued = aof_stream_queued(s);
    t0 = mono_ms();
    aof_stream_free(s);
    CHECK(mono_ms() - t0 < 5000);
    CHECK(mem_used() == base);
    /* What was still queued (tens of MB, unless the disk kept up with the
     * copies) did not reach the file, give or take what the thread wrote
     * before it saw the stop (8 MB of slack). */
    CHECK(file_size(path) >= AOF_HEADER_SIZE);
    if (queued >= (16u << 20))
        CHECK(file_size(path) + (long long)queued - (8ll << 20) <= AOF_HEADER_SIZE + (long long)pushed);
    else
        fprintf(stderr, "    (only %llu bytes were queued at the free)\n", (unsigned long long)queued);

    /* Freed after finish but with the step running: free waits for it. */
    memset(&probe, 0, sizeof(probe));
    s = aof_stream_create(path, AOF_KIND_BASE, 6, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    gen_record(aof_stream_buf(s), 1);
    aof_stream_push(s);
    probe.s = s;
    probe.path = path;
    probe.go = 1;
    probe.sleep_ms = 200;
    aof_stream_finish(s, probe_step, &probe);
    {
        int64_t end = mono_ms() + 30000;
        while (__atomic_load_n(&probe.calls, __ATOMIC_SEQ_CST) == 0 && mono_ms() < end)
            sleep_ms(1);
    }
    CHECK(probe.calls == 1 && !__atomic_load_n(&probe.done, __ATOMIC_SEQ_CST));
    aof_stream_free(s);
    CHECK(__atomic_load_n(&probe.done, __ATOMIC_SEQ_CST) == 1);
    CHECK(mem_used() == base);

    /* Freed right after finish: no hang, whether the step ran or not. */
    memset(&probe, 0, sizeof(probe));
    s = aof_stream_create(path, AOF_KIND_BASE, 7, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    gen_record(aof_stream_buf(s), 2);
    aof_stream_push(s);
    probe.s = s;
    probe.path = path;
    probe.go = 1;
    aof_stream_finish(s, probe_step, &probe);
    t0 = mono_ms();
    aof_stream_free(s);
    CHECK(mono_ms() - t0 < 5000);
    CHECK(probe.calls <= 1 && probe.calls == probe.done);
    CHECK(mem_used() == base);
    unlink(path);
}

/* ---- mem_thread_register ---- */

#define MEM_BLOCKS 64
#define MEM_ROUNDS 200000

typedef struct mem_job {
    void *blocks[MEM_BLOCKS]; /* left allocated for the caller to free */
    size_t bytes;             /* their usable size */
    int churn;                /* allocate and free that many blocks first */
} mem_job;

static void *mem_thread(void *arg)
{
    mem_job *j = arg;
    int i;

    mem_thread_register();
    for (i = 0; i < j->churn; i++) {
        void *p = xmalloc((size_t)(i % 200) + 1);
        p = xrealloc(p, (size_t)(i % 300) + 1);
        xfree(p);
    }
    for (i = 0; i < MEM_BLOCKS; i++) {
        j->blocks[i] = xmalloc((size_t)i * 100 + 1);
        j->bytes += xmalloc_size(j->blocks[i]);
    }
    return NULL;
}

static void test_mem_other_thread(void)
{
    size_t base = mem_used();
    mem_job j;
    pthread_t t;
    int i;

    /* Blocks a registered thread allocates count, and return to the baseline
     * when the loop's thread frees them. */
    memset(&j, 0, sizeof(j));
    CHECK(pthread_create(&t, NULL, mem_thread, &j) == 0);
    pthread_join(t, NULL);
    CHECK(j.bytes > 0 && mem_used() == base + j.bytes);
    for (i = 0; i < MEM_BLOCKS; i++)
        xfree(j.blocks[i]);
    CHECK(mem_used() == base);

    /* The same with both threads allocating and freeing at once: no update is
     * lost (a racy counter would drift). */
    memset(&j, 0, sizeof(j));
    j.churn = MEM_ROUNDS;
    CHECK(pthread_create(&t, NULL, mem_thread, &j) == 0);
    for (i = 0; i < MEM_ROUNDS; i++) {
        void *p = xmalloc((size_t)(i % 250) + 1);
        p = xrealloc(p, (size_t)(i % 170) + 1);
        xfree(p);
    }
    pthread_join(t, NULL);
    CHECK(mem_used() == base + j.bytes);
    for (i = 0; i < MEM_BLOCKS; i++)
        xfree(j.blocks[i]);
    CHECK(mem_used() == base);
}

static void test_stream_memory(void)
{
    const char *path = path_in("mem.base");
    char err[256];
    size_t base = mem_used();
    aof_stream *s;
    int i;

    /* Buffers the loop hands over are freed by the stream's thread. */
    s = aof_stream_create(path, AOF_KIND_BASE, 11, err, sizeof(err));
    CHECK(s != NULL);
    if (!s)
        return;
    for (i = 0; i < 500; i++) {
        gen_record(aof_stream_buf(s), i % 97 == 50 ? 0 : i);
        if (i % 10 == 9)
            aof_stream_push(s);
    }
    aof_stream_push(s);
    CHECK(wait_drained(s, 30000) == 0);
    aof_stream_finish(s, NULL, NULL);
    CHECK(wait_poll(s, err, sizeof(err), 30000) == 1);
    aof_stream_free(s);
    CHECK(mem_used() == base);
    unlink(path);
}

/* ---- aof_rewrite_temp_path, aof_manifest_copy ---- */

static void test_manifest_copy_and_temp_path(void)
{
    char err[256], out[AOF_PATH_MAX], big[AOF_PATH_MAX];
    aof_manifest m, c;

    CHECK(aof_rewrite_temp_path(out, sizeof(out), "/some/dir", 12) == 0);
    CHECK(strcmp(out, "/some/dir/scratchpad.aof.12.base.tmp") == 0);
    CHECK(aof_rewrite_temp_path(out, 20, "/some/dir", 12) == -1);
    memset(big, 'd', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK(aof_rewrite_temp_path(out, sizeof(out), big, 1) == -1);

    aof_manifest_init(&m);
    aof_manifest_copy(&c, &m);
    CHECK(c.nfiles == 0 && c.next_seq == 1);
    aof_manifest_free(&c);
    CHECK(aof_manifest_add(&m, AOF_KIND_BASE, 1, "scratchpad.aof.1.base", err, sizeof(err)) == 0);
    CHECK(aof_manifest_add(&m, AOF_KIND_INCR, 2, "scratchpad.aof.2.incr", err, sizeof(err)) == 0);
    m.next_seq = 9;
    aof_manifest_copy(&c, &m);
    CHECK(c.nfiles == 2 && c.next_seq == 9 && c.files != m.files);
    CHECK(c.nfiles == 2 && strcmp(c.files[1].name, "scratchpad.aof.2.incr") == 0 && c.files[1].seq == 2 &&
          c.files[0].kind == AOF_KIND_BASE);
    /* The copy is independent of its source. */
    CHECK(aof_manifest_add(&c, AOF_KIND_INCR, 10, "scratchpad.aof.10.incr", err, sizeof(err)) == 0);
    CHECK(aof_manifest_alloc_seq(&c) == 11);
    CHECK(m.nfiles == 2 && m.next_seq == 9);
    aof_manifest_free(&m);
    CHECK(c.nfiles == 3 && strcmp(c.files[0].name, "scratchpad.aof.1.base") == 0);
    aof_manifest_free(&c);
}

/* ---- The incremental rewrite's file protocol ---- */

typedef struct loaded {
    int ids[4096];
    int kinds[4096]; /* the kind of the file each record came from */
    int n;
    int bad;         /* a record not of the model */
} loaded;

static int collect(void *ctx, const aof_mfile *f, const aof_record *rec, char *why, size_t whylen)
{
    loaded *l = ctx;
    int id = model_id(rec);

    if (id < 0 || l->n >= 4096) {
        l->bad = 1;
        snprintf(why, whylen, "not a record of the model");
        return -1;
    }
    l->kinds[l->n] = f->kind;
    l->ids[l->n++] = id;
    return 0;
}

/* 1 if the manifest on disk in dir loads exactly the model records want[0..n),
 * in order; with nbase >= 0, the first nbase from the base and the rest from
 * incr files. */
static int disk_loads(const char *dir, const int *want, int n, int nbase)
{
    static loaded l;
    aof_manifest m;
    aof_load_result res;
    char err[256];
    int i, ok;

    memset(&l, 0, sizeof(l));
    aof_manifest_init(&m);
    if (aof_manifest_load(dir, &m, err, sizeof(err)) != 0) {
        fprintf(stderr, "    manifest: %s\n", err);
        return 0;
    }
    aof_load(dir, &m, collect, &l, &res);
    ok = res.status == AOF_END && !l.bad && l.n == n;
    for (i = 0; ok && i < n; i++)
        ok = l.ids[i] == want[i] && (nbase < 0 || l.kinds[i] == (i < nbase ? AOF_KIND_BASE : AOF_KIND_INCR));
    if (!ok)
        fprintf(stderr, "    load: %s %s at %llu: %s (%d records, %d wanted)\n", aof_status_name(res.status),
                res.file, (unsigned long long)res.offset, res.why, l.n, n);
    aof_manifest_free(&m);
    return ok;
}

typedef struct switch_finish {
    aof_manifest m;   /* the copy of the manifest taken at the switch */
    aof_rewrite *rw;
    int calls;
    pthread_t thread;
    int base_named;   /* the final base existed when the step returned */
} switch_finish;

static int switch_step(void *ctx, char *err, size_t errlen)
{
    switch_finish *f = ctx;
    int rc;

    f->calls++;
    f->thread = pthread_self();
    rc = aof_rewrite_child_finish(&f->m, f->rw, err, errlen);
    f->base_named = file_exists(f->rw->base_path) && !file_exists(f->rw->temp_path);
    return rc;
}

static void test_rewrite_switch_protocol(void)
{
    char dir[512], err[256], temp[AOF_PATH_MAX], path[AOF_PATH_MAX];
    static int want[4096];
    aof_manifest m, old;
    aof_rewrite rw;
    aof_writer *w;
    aof_stream *s;
    switch_finish fin;
    uint64_t seq, old_base_seq, old_incr_seq;
    int nwant = 0, nbase, i, held = -1;

    snprintf(dir, sizeof(dir), "%s/rw", tmpdir);
    memset(&fin, 0, sizeof(fin));
    aof_manifest_init(&m);
    /* The log: {base, incr}, records 0..99 in the incr. */
    w = aof_dir_start(dir, &m, AOF_FSYNC_ALWAYS, NULL, err, sizeof(err));
    CHECK(w != NULL);
    if (!w)
        return;
    CHECK(m.nfiles == 2 && m.files[0].kind == AOF_KIND_BASE && m.files[1].kind == AOF_KIND_INCR);
    old_base_seq = m.files[0].seq;
    old_incr_seq = m.files[1].seq;
    for (i = 0; i < 100; i++) {
        gen_record(aof_writer_buf(w), i);
        want[nwant++] = i;
    }
    CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    CHECK(disk_loads(dir, want, nwant, 0));

    /* The rewrite starts: a seq for its base, the stream at its temp name. */
    seq = aof_manifest_alloc_seq(&m);
    CHECK(seq > old_incr_seq);
    CHECK(aof_rewrite_temp_path(temp, sizeof(temp), dir, seq) == 0);
    s = aof_stream_create(temp, AOF_KIND_BASE, seq, err, sizeof(err));
    CHECK(s != NULL);
    if (!s) {
        aof_writer_close(w);
        aof_manifest_free(&m);
        return;
    }
    /* The base: a snapshot of 0..99 (records 1000..1099 stand for the keys'
     * state), plus copies of what the log receives meanwhile (200..249, written
     * to the incr and appended to the stream as the loop copies them). */
    for (i = 1000; i < 1100; i++) {
        gen_record(aof_stream_buf(s), i);
        if (i % 25 == 0)
            aof_stream_push(s);
    }
    for (i = 200; i < 250; i++) {
        gen_record(aof_writer_buf(w), i);
        want[nwant++] = i;
    }
    aof_stream_append(s, aof_writer_buf(w)->p, 0); /* nothing */
    aof_stream_append(s, aof_writer_buf(w)->p, aof_writer_buf(w)->committed);
    CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    aof_stream_push(s);
    /* Until the switch, the manifest is the old set and loads everything. */
    CHECK(m.nfiles == 2 && disk_loads(dir, want, nwant, 0));
    CHECK(file_exists(temp));

    /* The scan is complete: switch the log to a new incr. */
    {
        /* As the server does it: the next incr and its manifest first (on
         * the stream's thread there), then the switch of the writer. */
        aof_manifest next;
        CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
        CHECK(aof_rewrite_prepare(dir, &m, NULL, seq, &rw, &next, err, sizeof(err)) == 0);
        CHECK(aof_rewrite_commit(&m, &next, &w, AOF_FSYNC_ALWAYS, NULL, &rw, err, sizeof(err)) == 0);
    }
    CHECK(rw.base_seq == seq && strcmp(rw.temp_path, temp) == 0);
    CHECK(rw.incr_seq > seq);
    CHECK(m.nfiles == 3 && m.files[0].seq == old_base_seq && m.files[1].seq == old_incr_seq &&
          m.files[2].seq == rw.incr_seq && m.files[2].kind == AOF_KIND_INCR);
    CHECK(disk_loads(dir, want, nwant, 0)); /* the new incr, empty, is named */
    aof_manifest_copy(&fin.m, &m);
    fin.rw = &rw;
    aof_stream_finish(s, switch_step, &fin);
    /* Writes go on into the new incr while the thread finishes. */
    for (i = 300; i < 340; i++)
        gen_record(aof_writer_buf(w), i);
    CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    CHECK(wait_poll(s, err, sizeof(err), 30000) == 1);
    CHECK(fin.calls == 1 && fin.base_named && !pthread_equal(fin.thread, pthread_self()));
    CHECK(file_exists(rw.manifest_temp) && !file_exists(temp));
    aof_stream_free(s);
    /* The old set is still the manifest in force, and still whole. */
    for (i = 300; i < 340; i++)
        want[nwant++] = i;
    CHECK(disk_loads(dir, want, nwant, 0));

    /* The loop switches the manifest: {the stream's base, the new incr}. */
    CHECK(aof_rewrite_finish(dir, &m, &rw, &old, &held, err, sizeof(err)) == 0);
    if (held >= 0)
        close(held);
    CHECK(aof_dir_fsync(dir) == 0);
    CHECK(m.nfiles == 2 && m.files[0].kind == AOF_KIND_BASE && m.files[0].seq == seq &&
          m.files[1].kind == AOF_KIND_INCR && m.files[1].seq == rw.incr_seq);
    CHECK(old.nfiles == 2 && old.files[0].seq == old_base_seq && old.files[1].seq == old_incr_seq);
    CHECK(!file_exists(temp) && !file_exists(rw.manifest_temp) && file_exists(rw.base_path));
    /* Then a few more writes, and the old files go. */
    for (i = 400; i < 410; i++)
        gen_record(aof_writer_buf(w), i);
    CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    CHECK(aof_dir_remove(dir, &old) == 0);
    for (i = 0; i < (int)old.nfiles; i++) {
        aof_path(path, sizeof(path), dir, old.files[i].name);
        CHECK(!file_exists(path));
    }
    aof_writer_close(w);
    /* Loading: the base's records, then those written after the switch. */
    nwant = 0;
    for (i = 1000; i < 1100; i++)
        want[nwant++] = i;
    for (i = 200; i < 250; i++)
        want[nwant++] = i;
    nbase = nwant;
    for (i = 300; i < 340; i++)
        want[nwant++] = i;
    for (i = 400; i < 410; i++)
        want[nwant++] = i;
    CHECK(disk_loads(dir, want, nwant, nbase));
    /* The manifest on disk is the one m describes. */
    {
        aof_manifest d;
        aof_manifest_init(&d);
        CHECK(aof_manifest_load(dir, &d, err, sizeof(err)) == 0);
        CHECK(d.nfiles == 2 && d.files[0].seq == seq && d.files[1].seq == rw.incr_seq &&
              strcmp(d.files[0].name, m.files[0].name) == 0 && strcmp(d.files[1].name, m.files[1].name) == 0);
        aof_manifest_free(&d);
    }
    aof_manifest_free(&fin.m);
    aof_manifest_free(&old);
    aof_manifest_free(&m);
}

int main(void)
{
    int rc;

    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_aof_stream.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_stream_contents, "records encoded in the stream's buffer and appended, pushed in pieces, reach the file in order after a base header");
    RUN(test_stream_finish_fails, "a finishing step that fails makes poll -1 with its message, and later pushes are dropped");
    RUN(test_stream_write_error, "a write past the file-size limit fails the stream: poll -1, nothing more written, no finishing step");
    RUN(test_stream_create, "a stream in a missing directory fails and leaves nothing; an existing file is truncated to a header");
    RUN(test_stream_free, "free with tens of MB queued, during a finishing step or right after finish returns promptly, drops the queue and frees everything");
    RUN(test_mem_other_thread, "a registered thread's allocations count, and the loop freeing them brings mem_used back");
    RUN(test_stream_memory, "buffers handed to the stream's thread and freed there bring mem_used back to its baseline");
    RUN(test_manifest_copy_and_temp_path, "the rewrite's temp path is the base name plus .tmp, and a manifest copy is deep");
    RUN(test_rewrite_switch_protocol, "an incremental rewrite switched with aof_rewrite_prepare and aof_rewrite_commit ends as {the stream's base, the new incr}, loading every record");
    rc = TEST_DONE();
    rm_dir_files(tmpdir);
    rmdir(tmpdir);
    return rc;
}
