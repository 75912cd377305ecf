/* test_aof.c -- the append-only log: format, reader, writer, manifest, rewrite.
 *
 * Records come from a seeded generator (record i always has the same effects,
 * databases and arguments: binary strings with every byte value, empty strings,
 * and compressed values built with lzval_new from log-like text or random bytes),
 * so a reader's output is checked against a regenerated model. Faults are
 * injected through the writer's aof_io table: ENOSPC after N bytes, EIO, short
 * writes, failing ftruncate, failing or slow fdatasync. Files live in a fresh
 * temporary directory, removed at the end.
 *
 * Extra modes (not tests):
 *   test_aof --write-fixtures DIR   write the files tests/integration/check_aof.sh
 *                                   checks scratchpad-check-aof against
 *   test_aof --bench DIR            write/read throughput figures */
#include "aof.h"
#include "aof_manifest.h"
#include "aof_reader.h"
#include "aof_writer.h"
#include "lz/lzval.h"
#include "mem.h"
#include "test.h"
#include "testfs.h"
#include "textgen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* ---- Helpers ---- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Log-like text (compressible) or random bytes, n bytes from seed. */
static char *gen_text(size_t n, int random, uint64_t seed)
{
    static const char *msg[] = {"request served", "cache miss for key", "retrying upstream call",
                                "tool output truncated", "agent step finished"};
    char *p = malloc(n ? n : 1), line[160];
    size_t pos = 0;

    rng_seed(seed);
    while (pos < n) {
        size_t k, m;
        if (random) {
            p[pos++] = (char)(rng() >> 24);
            continue;
        }
        k = (size_t)snprintf(line, sizeof(line), "2024-05-%02u %02u:%02u INFO worker-%u %s id=%llu\n",
                             (unsigned)(rng() % 28 + 1), (unsigned)(rng() % 24), (unsigned)(rng() % 60),
                             (unsigned)(rng() % 8), msg[rng() % 5], (unsigned long long)(rng() % 100000));
        m = k < n - pos ? k : n - pos;
        memcpy(p + pos, line, m);
        pos += m;
    }
    return p;
}






/* ---- The record model ---- */

#define NLZ 6
static lzval *lzv[NLZ];
static char *lztext[NLZ];
static size_t lzlen[NLZ];

static void lz_setup(void)
{
    static const size_t len[NLZ] = {0, 700, 5000, 70000, 300001, 20000};
    static const size_t cs[NLZ] = {4096, 1024, 4096, 65536, 65536, 4096};
    int i;

    for (i = 0; i < NLZ; i++) {
        lzlen[i] = len[i];
        lztext[i] = gen_text(len[i], i == 5, 100 + (uint64_t)i);
        lzv[i] = lzval_new(lztext[i], len[i], cs[i]);
    }
}

static void lz_teardown(void)
{
    int i;

    for (i = 0; i < NLZ; i++) {
        lzval_free(lzv[i]);
        free(lztext[i]);
    }
}

/* Record i: 1 to 3 effects; effect j in db (i + j) % 16, with "SET", a key, a
 * binary value of (i * 7 + j) % 300 bytes (every byte value appears), and in
 * every fifth record a compressed value as a fourth argument. */
static size_t model_nargs(int i, int j)
{
    return i % 5 == 0 && j == 0 ? 4 : 3;
}

static int model_neffects(int i)
{
    return i % 3 + 1;
}

static void model_value(int i, int j, char *buf, size_t *n)
{
    size_t k;

    *n = (size_t)(i * 7 + j) % 300;
    rng_seed((uint64_t)i * 31 + (uint64_t)j);
    for (k = 0; k < *n; k++)
        buf[k] = (char)(rng() >> 40);
}

static void gen_record(aof_buf *b, int i)
{
    char key[32], val[300];
    size_t n;
    int j;

    for (j = 0; j < model_neffects(i); j++) {
        if (j == 0)
            aof_rec_begin(b, (i + j) % 16);
        else
            aof_rec_next_effect(b, (i + j) % 16);
        aof_rec_arg_str(b, "SET");
        snprintf(key, sizeof(key), "key:%d:%d", i, j);
        aof_rec_arg_str(b, key);
        model_value(i, j, val, &n);
        aof_rec_arg_bytes(b, val, n);
        if (model_nargs(i, j) == 4)
            aof_rec_arg_lzval(b, lzv[(i / 5) % NLZ]);
    }
    aof_rec_end(b);
}

/* 1 if the compressed argument a rebuilds exactly lzval number k. */
static int lz_matches(const aof_arg *a, int k)
{
    lzval *v = aof_arg_lzval(a);
    char *buf;
    int ok;

    if (!v)
        return 0;
    buf = malloc(lzlen[k] + 1);
    ok = lzval_len(v) == lzlen[k] && a->len == lzlen[k] && lzval_nchunks(v) == lzval_nchunks(lzv[k]) &&
         lzval_read(v, 0, lzlen[k], buf, NULL) == 0 && memcmp(buf, lztext[k], lzlen[k]) == 0;
    free(buf);
    lzval_free(v);
    return ok;
}

/* 1 if rec is record i of the model. */
static int check_model(const aof_record *rec, int i)
{
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    char key[32], val[300];
    size_t n;
    int j = 0;

    if (rec->type != AOF_REC_EFFECTS || rec->neffects != (uint32_t)model_neffects(i))
        return 0;
    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &e)) {
        if (e.db != (i + j) % 16 || e.argc != model_nargs(i, j))
            return 0;
        aof_args_begin(&ai, &e);
        if (!aof_args_next(&ai, &a) || a.kind != AOF_ARG_BYTES || a.len != 3 || memcmp(a.p, "SET", 3))
            return 0;
        snprintf(key, sizeof(key), "key:%d:%d", i, j);
        if (!aof_args_next(&ai, &a) || a.len != strlen(key) || memcmp(a.p, key, a.len))
            return 0;
        model_value(i, j, val, &n);
        if (!aof_args_next(&ai, &a) || a.kind != AOF_ARG_BYTES || a.len != n || (n && memcmp(a.p, val, n)))
            return 0;
        if (model_nargs(i, j) == 4 &&
            (!aof_args_next(&ai, &a) || a.kind != AOF_ARG_LZVAL || !lz_matches(&a, (i / 5) % NLZ)))
            return 0;
        if (aof_args_next(&ai, &a))
            return 0;
        j++;
    }
    return j == model_neffects(i);
}

/* Write records [0, n) to path (a standalone file, policy no). If offs is given,
 * offs[i] gets where record i starts, offs[n] the file's end. */
static void write_model_file(const char *path, int n, uint64_t *offs)
{
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_NO, NULL, err, sizeof(err));
    int i;

    for (i = 0; i < n; i++) {
        if (offs) {
            aof_writer_flush(w);
            offs[i] = (uint64_t)file_size(path);
        }
        gen_record(aof_writer_buf(w), i);
    }
    aof_writer_flush(w);
    if (offs)
        offs[n] = (uint64_t)file_size(path);
    aof_writer_close(w);
}

/* Read path: count the records that match the model in order; *st gets the
 * final verdict. Returns the count, or -1 if one did not match. */
static int read_model_file(const char *path, aof_status *st, uint64_t *offset, uint64_t *dropped)
{
    aof_reader *r = aof_reader_open(path);
    aof_record rec;
    int i = 0;

    if (!r)
        return -1;
    while ((*st = aof_reader_next(r, &rec)) == AOF_OK) {
        if (!check_model(&rec, i)) {
            aof_reader_close(r);
            return -1;
        }
        i++;
    }
    if (offset)
        *offset = aof_reader_offset(r);
    if (dropped)
        *dropped = aof_reader_dropped(r);
    aof_reader_close(r);
    return i;
}

/* ---- Fault injection ---- */

typedef struct fault_io {
    long long space;        /* bytes that may still be written; -1 = unlimited */
    int eio_writes;         /* fail that many next writes with EIO */
    size_t max_chunk;       /* at most that many bytes per write (0 = no limit) */
    int fail_truncate;      /* ftruncate fails */
    int fail_fsyncs;        /* fail that many next fdatasyncs with EIO */
    int fsync_sleep_ms;     /* each fdatasync sleeps that long */
    int writes;             /* write calls */
    int fsyncs;             /* fdatasync calls (atomic: the thread calls it too) */
    int truncates;
} fault_io;

static ssize_t fault_write(void *ctx, int fd, const void *p, size_t n)
{
    fault_io *f = ctx;

    f->writes++;
    if (f->eio_writes > 0) {
        f->eio_writes--;
        errno = EIO;
        return -1;
    }
    if (f->max_chunk && n > f->max_chunk)
        n = f->max_chunk;
    if (f->space >= 0) {
        if (f->space == 0) {
            errno = ENOSPC;
            return -1;
        }
        if ((long long)n > f->space)
            n = (size_t)f->space;
    }
    {
        ssize_t k = write(fd, p, n);
        if (k > 0 && f->space >= 0)
            f->space -= k;
        return k;
    }
}

static int fault_fdatasync(void *ctx, int fd)
{
    fault_io *f = ctx;

    __atomic_add_fetch(&f->fsyncs, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->fsync_sleep_ms, __ATOMIC_SEQ_CST))
        usleep((useconds_t)__atomic_load_n(&f->fsync_sleep_ms, __ATOMIC_SEQ_CST) * 1000);
    if (__atomic_load_n(&f->fail_fsyncs, __ATOMIC_SEQ_CST) > 0) {
        __atomic_sub_fetch(&f->fail_fsyncs, 1, __ATOMIC_SEQ_CST);
        errno = EIO;
        return -1;
    }
    return fdatasync(fd);
}

static int fault_ftruncate(void *ctx, int fd, off_t size)
{
    fault_io *f = ctx;

    f->truncates++;
    if (f->fail_truncate) {
        errno = EIO;
        return -1;
    }
    return ftruncate(fd, size);
}

static aof_io fault_table(fault_io *f)
{
    aof_io io = {fault_write, fault_fdatasync, fault_ftruncate, f};

    memset(f, 0, sizeof(*f));
    f->space = -1;
    return io;
}

static int fsyncs_of(fault_io *f)
{
    return __atomic_load_n(&f->fsyncs, __ATOMIC_SEQ_CST);
}

static char logged[1024];

static void capture_log(void *ctx, int level, const char *msg)
{
    snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%d:%s\n", level, msg);
}

/* ---- Format ---- */

static void test_crc(void)
{
    const char *s = "123456789";

    CHECK(aof_crc32c(0, s, 9) == 0xE3069283u);
    CHECK(aof_crc32c(aof_crc32c(0, s, 4), s + 4, 5) == 0xE3069283u);
    CHECK(aof_crc32c(0, s, 0) == 0);
}

static void test_header(void)
{
    unsigned char h[AOF_HEADER_SIZE], bad[AOF_HEADER_SIZE];
    aof_header in = {AOF_VERSION, AOF_KIND_INCR, 1700000000123LL, 42}, out;
    const char *why;
    size_t i;

    aof_header_encode(&in, h);
    CHECK(memcmp(h, "SPAOF", 5) == 0);
    CHECK(aof_header_decode(h, sizeof(h), &out, &why) == 0);
    CHECK(out.version == 1 && out.flags == AOF_KIND_INCR && out.created_ms == 1700000000123LL && out.seq == 42);
    for (i = 0; i < AOF_HEADER_SIZE; i++) {
        memcpy(bad, h, sizeof(h));
        bad[i] ^= 0x10;
        CHECK(aof_header_decode(bad, sizeof(bad), &out, &why) < 0);
    }
    CHECK(aof_header_decode(h, AOF_HEADER_SIZE - 1, &out, &why) < 0);
    in.version = 2;
    aof_header_encode(&in, bad);
    CHECK(aof_header_decode(bad, sizeof(bad), &out, &why) < 0 && strstr(why, "version"));
    in.version = 1;
    in.flags = 4;
    aof_header_encode(&in, bad);
    CHECK(aof_header_decode(bad, sizeof(bad), &out, &why) < 0 && strstr(why, "flags"));
}

static void test_roundtrip(void)
{
    const char *path = path_in("roundtrip.aof");
    aof_status st;
    int n;

    write_model_file(path, 300, NULL);
    n = read_model_file(path, &st, NULL, NULL);
    CHECK(n == 300);
    CHECK(st == AOF_END);
    unlink(path);
}

static void test_encoder_rules(void)
{
    aof_buf b;
    aof_record rec;
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    const char *why;
    int dbs[8], n = 0;

    aof_buf_init(&b);
    /* EXEC brackets three commands that log themselves; one logs nothing, one
     * cancels, and one in another db logs two effects. */
    aof_rec_begin(&b, 0);
    aof_rec_begin(&b, 0);
    aof_rec_arg_str(&b, "SET");
    aof_rec_arg_str(&b, "a");
    aof_rec_arg_str(&b, "1");
    CHECK(aof_rec_end(&b) == 0);
    CHECK(aof_rec_open(&b) && b.committed == 0);
    aof_rec_begin(&b, 0);
    CHECK(aof_rec_end(&b) == 0);
    aof_rec_begin(&b, 0);
    aof_rec_arg_str(&b, "INCR");
    CHECK(aof_rec_cancel(&b) == 0);
    aof_rec_begin(&b, 3);
    aof_rec_arg_str(&b, "DEL");
    aof_rec_arg_str(&b, "b");
    aof_rec_next_effect(&b, 5);
    aof_rec_arg_str(&b, "PEXPIREAT");
    aof_rec_arg_str(&b, "c");
    aof_rec_arg_ll(&b, 1700000000123LL);
    CHECK(aof_rec_end(&b) == 0);
    CHECK(aof_rec_end(&b) == 0);
    CHECK(!aof_rec_open(&b) && b.records == 1 && b.committed == b.len);
    rec.offset = 0;
    rec.len = aof_get32((unsigned char *)b.p);
    rec.payload = (unsigned char *)b.p + AOF_REC_HDR;
    rec.type = rec.payload[0];
    CHECK(rec.len == b.len - AOF_REC_HDR);
    CHECK(aof_get32((unsigned char *)b.p + 4) == aof_crc32c(0, rec.payload, rec.len));
    CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == 0 && rec.neffects == 3);
    aof_effects_begin(&ei, &rec);
    while (aof_effects_next(&ei, &e) && n < 8)
        dbs[n++] = e.db;
    CHECK(n == 3 && dbs[0] == 0 && dbs[1] == 3 && dbs[2] == 5);
    aof_effects_begin(&ei, &rec);
    aof_effects_next(&ei, &e);
    aof_effects_next(&ei, &e);
    aof_effects_next(&ei, &e);
    aof_args_begin(&ai, &e);
    aof_args_next(&ai, &a);
    aof_args_next(&ai, &a);
    CHECK(aof_args_next(&ai, &a) && a.len == 13 && memcmp(a.p, "1700000000123", 13) == 0);
    /* Integers are written in decimal as %lld writes them, at the edges too. */
    {
        static const long long vals[] = {0, -1, 7, -10, 10, LLONG_MAX, LLONG_MIN};
        char want[32];
        size_t i, wl;
        for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
            aof_buf_consume(&b, b.committed);
            aof_rec_begin(&b, 0);
            aof_rec_arg_ll(&b, vals[i]);
            CHECK(aof_rec_end(&b) == 0);
            rec.len = aof_get32((unsigned char *)b.p);
            rec.payload = (unsigned char *)b.p + AOF_REC_HDR;
            rec.type = rec.payload[0];
            CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == 0);
            aof_effects_begin(&ei, &rec);
            aof_effects_next(&ei, &e);
            aof_args_begin(&ai, &e);
            wl = (size_t)snprintf(want, sizeof(want), "%lld", vals[i]);
            CHECK(aof_args_next(&ai, &a) && a.len == wl && memcmp(a.p, want, wl) == 0);
        }
    }
    /* A record with no effect writes nothing; an empty argument is an argument. */
    aof_rec_begin(&b, 1);
    CHECK(aof_rec_end(&b) == 0);
    CHECK(b.records == 1 && b.committed == b.len);
    aof_rec_begin(&b, 1);
    aof_rec_arg_bytes(&b, "", 0);
    CHECK(aof_rec_end(&b) == 0 && b.records == 2);
    aof_buf_consume(&b, b.committed);
    CHECK(b.len == 0 && b.records == 0);
    aof_buf_free(&b);
}

/* Build one record with a valid CRC around payload p[0..n) into out. */
static size_t frame(unsigned char *out, const unsigned char *p, size_t n)
{
    aof_put32(out, (uint32_t)n);
    aof_put32(out + 4, aof_crc32c(0, p, n));
    memcpy(out + 8, p, n);
    return n + 8;
}

/* A compressed value whose chunks have variable lengths (an SP.EDIT or
 * SP.INSERT of another length splices it: lzval_splice) is a valid argument
 * and rebuilds the same bytes; before splices, a short chunk before another
 * made the record malformed. */
static void test_spliced_value_roundtrip(void)
{
    static const char ins[] = "a line inserted in the middle\n";
    size_t len = lzlen[5], n = len + sizeof(ins) - 1 - 5;
    lzval *v = lzval_dup(lzv[5]), *back;
    char *want = malloc(n), *got = malloc(n);
    aof_buf b;
    aof_record rec;
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    const char *why = "";

    CHECK(lzval_nchunks(v) > 2);
    CHECK(lzval_splice(v, len / 2, 5, ins, sizeof(ins) - 1, NULL) == 0);
    memcpy(want, lztext[5], len / 2);
    memcpy(want + len / 2, ins, sizeof(ins) - 1);
    memcpy(want + len / 2 + sizeof(ins) - 1, lztext[5] + len / 2 + 5, len - len / 2 - 5);
    aof_buf_init(&b);
    aof_rec_begin(&b, 0);
    aof_rec_arg_str(&b, "_SPENTRY");
    aof_rec_arg_lzval(&b, v);
    CHECK(aof_rec_end(&b) == 0);
    rec.len = aof_get32((unsigned char *)b.p);
    rec.payload = (unsigned char *)b.p + AOF_REC_HDR;
    rec.type = rec.payload[0];
    CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == 0);
    aof_effects_begin(&ei, &rec);
    CHECK(aof_effects_next(&ei, &e));
    aof_args_begin(&ai, &e);
    CHECK(aof_args_next(&ai, &a) && aof_args_next(&ai, &a) && a.kind == AOF_ARG_LZVAL);
    back = aof_arg_lzval(&a);
    CHECK(back && lzval_len(back) == n && lzval_nchunks(back) == lzval_nchunks(v));
    CHECK(back && lzval_read(back, 0, n, got, NULL) == 0 && memcmp(got, want, n) == 0);
    lzval_free(back);
    aof_buf_free(&b);
    lzval_free(v);
    free(want);
    free(got);
}

/* A compressed value whose dictionary an edit of its first sub-block detached
 * (lzval_splice) is written as a kind-2 argument, its dictionary before the
 * chunks, and rebuilds the same bytes, dictionary and chunks; a kind-2
 * argument whose dictionary length is 0, above chunk_size or past the payload
 * is malformed. */
static void test_detached_dict_roundtrip(void)
{
    size_t n = 0, cap = 400000, i, dn, dn2;
    char *text = malloc(cap + 200), *got = malloc(cap + 200);
    lzval *v, *back;
    aof_buf b;
    aof_record rec;
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    const char *why = "", *d1, *d2;
    unsigned char *arg;
    uint32_t keep;
    int same = 1;

    n = cap;
    gen_svc(text, n);
    v = lzval_new(text, n, 65536);
    CHECK(lzval_dict(v) > 0 && lzval_detached_dict(v, &dn) == NULL);
    CHECK(lzval_splice(v, 10, 5, "EDITED", 6, NULL) == 0);
    memmove(text + 16, text + 15, n - 15);
    memcpy(text + 10, "EDITED", 6);
    n++;
    CHECK(lzval_detached_dict(v, &dn) != NULL && dn == 8192);
    aof_buf_init(&b);
    aof_rec_begin(&b, 0);
    aof_rec_arg_str(&b, "_SPENTRY");
    aof_rec_arg_lzval(&b, v);
    CHECK(aof_rec_end(&b) == 0);
    rec.len = aof_get32((unsigned char *)b.p);
    rec.payload = (unsigned char *)b.p + AOF_REC_HDR;
    rec.type = rec.payload[0];
    CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == 0);
    aof_effects_begin(&ei, &rec);
    CHECK(aof_effects_next(&ei, &e));
    aof_args_begin(&ai, &e);
    CHECK(aof_args_next(&ai, &a));
    arg = (unsigned char *)ai.p;
    CHECK(arg[0] == AOF_ARG_LZVAL_DICT);
    CHECK(aof_args_next(&ai, &a) && a.kind == AOF_ARG_LZVAL && a.dict && a.dict_len == dn && a.len == n);
    back = aof_arg_lzval(&a);
    CHECK(back && lzval_len(back) == n && lzval_read(back, 0, n, got, NULL) == 0 && memcmp(got, text, n) == 0);
    d1 = lzval_detached_dict(v, &dn);
    d2 = back ? lzval_detached_dict(back, &dn2) : NULL;
    CHECK(d2 && dn2 == dn && memcmp(d1, d2, dn) == 0 && lzval_nchunks(back) == lzval_nchunks(v));
    for (i = 0; back && i < lzval_nchunks(v); i++) {
        const char *s1, *s2;
        size_t st1, st2, r1, r2;
        int c1, c2;
        lzval_chunk_stored(v, i, &s1, &st1, &r1, &c1);
        lzval_chunk_stored(back, i, &s2, &st2, &r2, &c2);
        same = same && st1 == st2 && r1 == r2 && c1 == c2 && memcmp(s1, s2, st1) == 0;
    }
    CHECK(same);
    lzval_free(back);
    /* the dictionary's length: 0, above chunk_size, past the payload */
    keep = aof_get32(arg + 9);
    aof_put32(arg + 9, 0);
    CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == -1 && strstr(why, "dictionary"));
    aof_put32(arg + 9, 65537);
    CHECK(aof_payload_check(rec.payload, rec.len, &rec.neffects, &why) == -1 && strstr(why, "dictionary"));
    aof_put32(arg + 9, keep);
    CHECK(aof_payload_check(rec.payload, (size_t)(arg + 13 + 100 - rec.payload), &rec.neffects, &why) == -1);
    aof_buf_free(&b);
    lzval_free(v);
    free(text);
    free(got);
}

static void test_malformed_payloads(void)
{
    static const struct {
        const char *bytes;
        size_t n;
        const char *why;
    } cases[] = {
        {"\x02\x01\x00\x00\x00", 5, "unknown record type"},
        {"\x00", 1, "unknown record type"},
        {"\x01\x01\x00", 3, "too short"},
        {"\x01\x00\x00\x00\x00", 5, "no effect"},
        {"\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 11, "no argument"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00x", 21, "longer than"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x07", 12, "unknown argument kind"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00xy", 22, "left over"},
        {"\x01\x02\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 20, "effect past"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x01\x00\x00\x00\x00\x00\x00", 20, "chunk size"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x04\x00\x00\x01\x00\x00\x00"
         "\x05\x00\x00\x00\x04\x00\x00\x00\x00" "abcd", 33, "inconsistent"},
        {"\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x04\x00\x00\x01\x00\x00\x00"
         "\x05\x00\x00\x00\x09\x00\x00\x00\x01" "abcd", 33, "longer than"},
    };
    const char *path = path_in("malformed.aof");
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char file[256];
        aof_header h = {AOF_VERSION, 0, 0, 0};
        aof_reader *r;
        aof_record rec;
        const char *why = "";
        uint32_t ne;
        size_t n;
        int rc = aof_payload_check((const unsigned char *)cases[i].bytes, cases[i].n, &ne, &why);
        CHECK(rc < 0);
        if (rc == 0 || !strstr(why, cases[i].why))
            fprintf(stderr, "    case %zu: '%s'\n", i, rc < 0 ? why : "accepted");
        /* The same payload, with a good CRC, as the last record of a file:
         * CORRUPT, not TORN (the bytes are what was written). */
        aof_header_encode(&h, file);
        n = AOF_HEADER_SIZE + frame(file + AOF_HEADER_SIZE, (const unsigned char *)cases[i].bytes, cases[i].n);
        write_file(path, file, n);
        r = aof_reader_open(path);
        CHECK(aof_reader_next(r, &rec) == AOF_CORRUPT);
        CHECK(aof_reader_offset(r) == AOF_HEADER_SIZE);
        CHECK(strstr(aof_reader_why(r), "malformed") != NULL);
        aof_reader_close(r);
    }
    unlink(path);
}

/* ---- Reader verdicts ---- */

static void test_torn_tail_every_offset(void)
{
    const char *path = path_in("torn_src.aof"), *cut = path_in("torn_cut.aof");
    uint64_t offs[41], off, dropped;
    unsigned char *all;
    size_t n, at;
    aof_status st;
    int bad = 0, got;

    write_model_file(path, 40, offs);
    all = read_file(path, &n);
    CHECK(n == offs[40]);
    /* The last record (39) runs from offs[39] to offs[40]; cut at every byte of
     * it, and at its very start (a clean end after record 38). */
    for (at = offs[39]; at < offs[40]; at++) {
        write_file(cut, all, at);
        got = read_model_file(cut, &st, &off, &dropped);
        if (at == offs[39]) {
            bad += got != 39 || st != AOF_END;
            continue;
        }
        if (got != 39 || st != AOF_TORN || off != offs[39] || dropped != at - offs[39]) {
            if (bad++ < 3)
                fprintf(stderr, "    cut at %zu: %d records, %s, offset %" PRIu64 ", dropped %" PRIu64 "\n",
                        at, got, aof_status_name(st), off, dropped);
        }
    }
    CHECK(bad == 0);
    /* A tail of zeros (file extended, never written: a power loss) is torn. */
    {
        unsigned char *z = calloc(1, offs[40] + 9000);
        memcpy(z, all, offs[40]);
        write_file(cut, z, offs[40] + 9000);
        got = read_model_file(cut, &st, &off, &dropped);
        CHECK(got == 40 && st == AOF_TORN && off == offs[40] && dropped == 9000);
        free(z);
    }
    free(all);
    unlink(path);
    unlink(cut);
}

/* Issue 19: a complete last record whose CRC fails was taken for a torn write
 * and truncated away. Its whole length is there, so it is damage. */
static void test_last_record_bit_flips_are_corrupt(void)
{
    const char *path = path_in("flip_src.aof"), *bad = path_in("flip_bad.aof");
    uint64_t offs[41], off, dropped;
    unsigned char *all;
    size_t n, k;
    aof_status st;
    int got, fails = 0, torn = 0, b;

    write_model_file(path, 40, offs);
    all = read_file(path, &n);
    /* Every single-bit flip in the last record's CRC and payload: CORRUPT at
     * the record's start, every record before it read. */
    for (k = offs[39] + 4; k < offs[40]; k++)
        for (b = 0; b < 8; b++) {
            all[k] ^= (unsigned char)(1u << b);
            write_file(bad, all, n);
            got = read_model_file(bad, &st, &off, &dropped);
            all[k] ^= (unsigned char)(1u << b);
            if (got != 39 || st != AOF_CORRUPT || off != offs[39] || dropped != offs[40] - offs[39]) {
                if (fails++ < 3)
                    fprintf(stderr, "    flip byte %zu bit %d: %d records, %s, offset %" PRIu64 "\n", k, b,
                            got, aof_status_name(st), off);
            }
        }
    /* Every flip in its length field: CORRUPT, except a length grown past the
     * end of the file, which cannot be told from a torn write (aof_reader.h). */
    for (k = offs[39]; k < offs[39] + 4; k++)
        for (b = 0; b < 8; b++) {
            uint32_t len;
            all[k] ^= (unsigned char)(1u << b);
            len = aof_get32(all + offs[39]);
            write_file(bad, all, n);
            got = read_model_file(bad, &st, &off, &dropped);
            all[k] ^= (unsigned char)(1u << b);
            if ((uint64_t)len + 8 > offs[40] - offs[39] && len <= AOF_PAYLOAD_MAX) {
                torn++;
                fails += got != 39 || st != AOF_TORN || off != offs[39];
            } else {
                fails += got != 39 || st != AOF_CORRUPT || off != offs[39];
            }
        }
    CHECK(fails == 0);
    CHECK(torn > 0 && torn < 32);
    /* The same flip with zeros after the record (a file extended past it): still
     * CORRUPT, the record is whole. */
    {
        unsigned char *z = calloc(1, offs[40] + 9000);
        memcpy(z, all, offs[40]);
        z[offs[40] - 1] ^= 0x55;
        write_file(bad, z, offs[40] + 9000);
        got = read_model_file(bad, &st, &off, &dropped);
        CHECK(got == 39 && st == AOF_CORRUPT && off == offs[39] && dropped == offs[40] - offs[39] + 9000);
        /* ... and so is a last record whose payload was zeroed from byte 20 on. */
        memcpy(z, all, offs[40]);
        memset(z + offs[39] + 20, 0, offs[40] - offs[39] - 20);
        write_file(bad, z, offs[40] + 9000);
        got = read_model_file(bad, &st, &off, &dropped);
        CHECK(got == 39 && st == AOF_CORRUPT && off == offs[39]);
        free(z);
    }
    free(all);
    unlink(path);
    unlink(bad);
}

#define M 16 /* the damaged record: two effects, no compressed value */
static void test_corruption_in_the_middle(void)
{
    const char *path = path_in("mid_src.aof"), *bad = path_in("mid_bad.aof");
    uint64_t offs[31], off, dropped;
    unsigned char *all;
    size_t n, k;
    aof_status st;
    int got, fails = 0;

    write_model_file(path, 30, offs);
    all = read_file(path, &n);
    /* Every byte of record M's payload and CRC, flipped: CORRUPT at its start. */
    for (k = offs[M] + 4; k < offs[M + 1]; k++) {
        all[k] ^= 0x01;
        write_file(bad, all, n);
        got = read_model_file(bad, &st, &off, &dropped);
        all[k] ^= 0x01;
        if (got != M || st != AOF_CORRUPT || off != offs[M] || dropped != n - offs[M])
            fails++;
    }
    CHECK(fails == 0);
    /* An impossible length (0xFFFFFFFF, 0) in the middle: CORRUPT. */
    memcpy(all + offs[M], "\xff\xff\xff\xff", 4);
    write_file(bad, all, n);
    got = read_model_file(bad, &st, &off, &dropped);
    CHECK(got == M && st == AOF_CORRUPT && off == offs[M]);
    memcpy(all + offs[M], "\x00\x00\x00\x00", 4);
    write_file(bad, all, n);
    got = read_model_file(bad, &st, &off, &dropped);
    CHECK(got == M && st == AOF_CORRUPT && off == offs[M]);
    /* A length shortened by one: CRC mismatch, CORRUPT. */
    aof_put32(all + offs[M], (uint32_t)(offs[M + 1] - offs[M] - 9));
    write_file(bad, all, n);
    got = read_model_file(bad, &st, &off, &dropped);
    CHECK(got == M && st == AOF_CORRUPT && off == offs[M]);
    /* A length pointing past the end of the file cannot be told from a torn
     * write: TORN, with dropped saying how much a truncation would cut. */
    aof_put32(all + offs[M], 0x7fffffffu);
    write_file(bad, all, n);
    got = read_model_file(bad, &st, &off, &dropped);
    CHECK(got == M && st == AOF_TORN && off == offs[M] && dropped == n - offs[M]);
    free(all);
    unlink(path);
    unlink(bad);
}
#undef M

static void test_bad_header(void)
{
    const char *path = path_in("hdr.aof");
    aof_header h = {AOF_VERSION, 0, 0, 0};
    unsigned char file[64];
    aof_reader *r;
    aof_record rec;

    write_file(path, "SPAO", 4);
    r = aof_reader_open(path);
    CHECK(r && aof_reader_next(r, &rec) == AOF_CORRUPT && aof_reader_offset(r) == 0);
    CHECK(aof_reader_header(r) == NULL && strstr(aof_reader_why(r), "header"));
    CHECK(aof_reader_next(r, &rec) == AOF_CORRUPT);
    aof_reader_close(r);
    aof_header_encode(&h, file);
    file[3] = 'X';
    write_file(path, file, AOF_HEADER_SIZE);
    r = aof_reader_open(path);
    CHECK(aof_reader_next(r, &rec) == AOF_CORRUPT && strstr(aof_reader_why(r), "magic"));
    aof_reader_close(r);
    aof_header_encode(&h, file);
    file[20] ^= 1;
    write_file(path, file, AOF_HEADER_SIZE);
    r = aof_reader_open(path);
    CHECK(aof_reader_next(r, &rec) == AOF_CORRUPT && strstr(aof_reader_why(r), "CRC"));
    aof_reader_close(r);
    aof_header_encode(&h, file);
    write_file(path, file, AOF_HEADER_SIZE);
    r = aof_reader_open(path);
    CHECK(aof_reader_header(r) != NULL && aof_reader_next(r, &rec) == AOF_END);
    CHECK(aof_reader_offset(r) == AOF_HEADER_SIZE);
    aof_reader_close(r);
    CHECK(aof_reader_open(path_in("missing.aof")) == NULL && errno == ENOENT);
    unlink(path);
}

static void test_large_record(void)
{
    const char *path = path_in("large.aof");
    char err[256];
    size_t n = 9u * 1024 * 1024, i;
    char *big = gen_text(n, 1, 7);
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_NO, NULL, err, sizeof(err));
    aof_buf *b = aof_writer_buf(w);
    aof_reader *r;
    aof_record rec;
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    int ok = 1;

    /* Records larger than the reader's 4 MB block, between small ones. */
    for (i = 0; i < 3; i++) {
        aof_rec_begin(b, 0);
        aof_rec_arg_str(b, "SET");
        aof_rec_arg_bytes(b, big, n - i);
        aof_rec_end(b);
        aof_rec_begin(b, 0);
        aof_rec_arg_str(b, "PING");
        aof_rec_end(b);
    }
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    aof_writer_close(w);
    r = aof_reader_open(path);
    for (i = 0; i < 6; i++) {
        if (aof_reader_next(r, &rec) != AOF_OK) {
            ok = 0;
            break;
        }
        aof_effects_begin(&ei, &rec);
        aof_effects_next(&ei, &e);
        aof_args_begin(&ai, &e);
        aof_args_next(&ai, &a);
        if (i % 2 == 0) {
            aof_args_next(&ai, &a);
            ok &= a.len == n - i / 2 && memcmp(a.p, big, a.len) == 0;
        } else {
            ok &= a.len == 4 && memcmp(a.p, "PING", 4) == 0;
        }
    }
    CHECK(ok && aof_reader_next(r, &rec) == AOF_END);
    aof_reader_close(r);
    free(big);
    unlink(path);
}

/* ---- Writer ---- */

/* Put n model records starting at record first into w's buffer. */
static void add_records(aof_writer *w, int first, int n)
{
    int i;

    for (i = first; i < first + n; i++)
        gen_record(aof_writer_buf(w), i);
}

static void test_writer_always_group_commit(void)
{
    const char *path = path_in("always.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_ALWAYS, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    int w0 = f.writes, s0 = fsyncs_of(&f), i;

    for (i = 0; i < 5; i++) {
        add_records(w, i * 200, 200);
        CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
        CHECK(f.writes == w0 + i + 1 && fsyncs_of(&f) == s0 + i + 1);
    }
    /* Nothing buffered: no write, no fsync. */
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    CHECK(f.writes == w0 + 5 && fsyncs_of(&f) == s0 + 5);
    aof_writer_get_stats(w, &st);
    CHECK(st.ok && st.records_written == 1000 && st.buffered == 0 && st.writes == 5);
    CHECK(st.file_size == (uint64_t)file_size(path));
    aof_writer_close(w);
    CHECK(read_model_file(path, &s, NULL, NULL) == 1000 && s == AOF_END);
    unlink(path);
}

/* The writer reserves the file's next blocks from its thread (fallocate with
 * KEEP_SIZE), so the file's size stays what was written and it loads as before. */
static void test_writer_reserves_blocks_ahead(void)
{
    const char *path = path_in("reserve.aof");
    char err[256];
    aof_writer *w;
    aof_writer_stats st;
    aof_status s;
    struct stat sb;
    char probe[512];
    int fd, i, reserved = 0;

    snprintf(probe, sizeof(probe), "%s/reserve.probe", tmpdir);
    fd = open(probe, O_CREAT | O_RDWR, 0644);
    if (fd < 0 || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) < 0) {
        if (fd >= 0)
            close(fd);
        unlink(probe);
        printf("    (this file system has no fallocate: nothing to check)\n");
        return;
    }
    close(fd);
    unlink(probe);
    w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_EVERYSEC, NULL, err, sizeof(err));
    CHECK(w != NULL && aof_writer_start_thread(w) == 0);
    add_records(w, 0, 100);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    for (i = 0; i < 200 && !reserved; i++) {
        CHECK(stat(path, &sb) == 0);
        reserved = (uint64_t)sb.st_blocks * 512 >= (uint64_t)sb.st_size + (2u << 20);
        if (!reserved)
            usleep(10 * 1000);
    }
    CHECK(reserved);
    aof_writer_get_stats(w, &st);
    CHECK(st.file_size == (uint64_t)sb.st_size);
    add_records(w, 100, 100);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    aof_writer_close(w);
    CHECK(read_model_file(path, &s, NULL, NULL) == 200 && s == AOF_END);
    unlink(path);
}

/* Blocks reserved past the end of a file are given back when the writer is done
 * with it: a switch to a new file (on the thread, with the old file's close) and
 * a close. Without that, every incr file a rewrite leaves behind held a step of
 * unused space, and a disk that filled up once stayed full after space was
 * freed (persist_rewrite_diskfull.py under ASan). */
static void test_writer_gives_reserved_blocks_back(void)
{
    const char *path = path_in("giveback.aof"), *next = path_in("giveback2.aof");
    char err[256];
    aof_writer *w;
    struct stat sb;
    int fd, i, reserved = 0, released = 0;

    fd = open(next, O_CREAT | O_RDWR, 0644);
    if (fd < 0 || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) < 0) {
        if (fd >= 0)
            close(fd);
        unlink(next);
        printf("    (this file system has no fallocate: nothing to check)\n");
        return;
    }
    close(fd);
    unlink(next);
    w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_EVERYSEC, NULL, err, sizeof(err));
    CHECK(w != NULL && aof_writer_start_thread(w) == 0);
    add_records(w, 0, 100);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    for (i = 0; i < 200 && !reserved; i++) {
        CHECK(stat(path, &sb) == 0);
        reserved = (uint64_t)sb.st_blocks * 512 >= (uint64_t)sb.st_size + (2u << 20);
        if (!reserved)
            usleep(10 * 1000);
    }
    CHECK(reserved);
    CHECK(aof_file_create(next, AOF_KIND_NONE, 0, NULL, err, sizeof(err)) == 0);
    CHECK(aof_writer_switch(w, next, err, sizeof(err)) == 0);
    for (i = 0; i < 200 && !released; i++) {
        CHECK(stat(path, &sb) == 0);
        released = (uint64_t)sb.st_blocks * 512 < (uint64_t)sb.st_size + (1u << 20);
        if (!released)
            usleep(10 * 1000);
    }
    CHECK(released); /* the old file, after the switch */
    add_records(w, 100, 100);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    for (i = 0, reserved = 0; i < 200 && !reserved; i++) {
        CHECK(stat(next, &sb) == 0);
        reserved = (uint64_t)sb.st_blocks * 512 >= (uint64_t)sb.st_size + (2u << 20);
        if (!reserved)
            usleep(10 * 1000);
    }
    CHECK(reserved);
    aof_writer_close(w);
    CHECK(stat(next, &sb) == 0);
    CHECK((uint64_t)sb.st_blocks * 512 < (uint64_t)sb.st_size + (1u << 20)); /* the last file, after the close */
    unlink(path);
    unlink(next);
}

static void test_writer_no_and_everysec(void)
{
    const char *path = path_in("policies.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_NO, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    int s0 = fsyncs_of(&f), i;
    int64_t t0;

    for (i = 0; i < 10; i++) {
        add_records(w, i * 10, 10);
        CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    }
    CHECK(fsyncs_of(&f) == s0);
    /* everysec: the first flush after a second asks the thread for one fsync; the
     * flushes right after it ask for none. */
    aof_writer_set_policy(w, AOF_FSYNC_EVERYSEC);
    usleep(1100 * 1000);
    for (i = 10; i < 20; i++) {
        add_records(w, i * 10, 10);
        CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    }
    t0 = mono_ms();
    do {
        usleep(1000);
        aof_writer_get_stats(w, &st);
    } while (st.fsyncs == 0 && mono_ms() - t0 < 2000);
    CHECK(fsyncs_of(&f) == s0 + 1);
    CHECK(st.ok && st.fsyncs == 1 && st.last_fsync_ms > 0);
    /* A write within the second after that fsync waits for the next period;
     * then a flush with nothing new starts the fsync that is due. */
    add_records(w, 200, 1);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    CHECK(fsyncs_of(&f) == s0 + 1);
    usleep(1100 * 1000);
    CHECK(fsyncs_of(&f) == s0 + 1);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    t0 = mono_ms();
    while (fsyncs_of(&f) < s0 + 2 && mono_ms() - t0 < 2000)
        usleep(1000);
    CHECK(fsyncs_of(&f) >= s0 + 2);
    CHECK(aof_writer_close(w) == 0);
    CHECK(read_model_file(path, &s, NULL, NULL) == 201 && s == AOF_END);
    unlink(path);
}

/* A 3 s fsync on the background thread; flush is called every 100 ms for 2.5 s. */
static void everysec_slow_fsync(int postpone)
{
    const char *path = path_in("slow.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_EVERYSEC, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    int64_t t0, longest = 0, t;
    int i, rc, postponed = 0, written = 0;
    long long size0;

    aof_writer_set_log(w, capture_log, NULL);
    aof_writer_set_postpone(w, postpone);
    logged[0] = '\0';
    f.fsync_sleep_ms = 3000;
    usleep(1100 * 1000);
    add_records(w, 0, 10);
    t0 = mono_ms();
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);       /* writes, starts the 3 s fsync */
    longest = mono_ms() - t0;
    /* The thread takes the job up within a moment (polled: a loaded machine
     * may take more than a fixed 50 ms). */
    for (i = 0; i < 100; i++) {
        usleep(10 * 1000);
        aof_writer_get_stats(w, &st);
        if (st.fsync_in_progress == 1)
            break;
    }
    CHECK(st.fsync_in_progress == 1);
    for (i = 1; i < 26; i++) {
        add_records(w, i * 10, 10);
        size0 = file_size(path);
        t = mono_ms();
        rc = aof_writer_flush(w);
        t = mono_ms() - t;
        longest = t > longest ? t : longest;
        postponed += rc == AOF_FLUSH_POSTPONED;
        written += rc == AOF_FLUSH_OK && file_size(path) > size0;
        usleep(100 * 1000);
    }
    CHECK(longest < 100);
    if (postpone)
        CHECK(postponed >= 19); /* the writes wait in the buffer for 2 s */
    else
        CHECK(postponed == 0 && written == 25); /* every write reaches the kernel at once */
    aof_writer_get_stats(w, &st);
    CHECK(st.delayed_fsync == 1);
    CHECK(strstr(logged, "fsync is taking too long") != NULL);
    __atomic_store_n(&f.fsync_sleep_ms, 0, __ATOMIC_SEQ_CST);
    CHECK(aof_writer_close(w) == 0);
    CHECK(read_model_file(path, &s, NULL, NULL) == 260 && s == AOF_END);
    unlink(path);
}

static void test_writer_everysec_never_blocks(void)
{
    everysec_slow_fsync(0);
}

static void test_writer_everysec_postpone(void)
{
    everysec_slow_fsync(1);
}

static void test_writer_enospc(void)
{
    const char *path = path_in("enospc.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_ALWAYS, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    long long before;
    int i;

    add_records(w, 0, 50);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    before = file_size(path);
    /* The disk fills up 1000 bytes into the next flush. */
    f.space = 1000;
    add_records(w, 50, 50);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_ERR);
    aof_writer_get_stats(w, &st);
    CHECK(!st.ok && st.err_op == AOF_OP_WRITE && st.err_no == ENOSPC && st.err_since_ms > 0);
    CHECK(!aof_writer_ok(w));
    CHECK(file_size(path) == before && st.file_size == (uint64_t)before);
    CHECK(st.buffered > 1000 && f.truncates == 1);
    CHECK(read_model_file(path, &s, NULL, NULL) == 50 && s == AOF_END);
    /* Still full: the retry fails the same way, more records wait. */
    f.space = 10;
    add_records(w, 100, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_ERR);
    CHECK(file_size(path) == before);
    /* Space comes back: everything is written once, in order, the state clears. */
    f.space = -1;
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    aof_writer_get_stats(w, &st);
    CHECK(st.ok && st.err_op == AOF_OP_NONE && st.err_no == 0 && st.err_since_ms == 0 && st.buffered == 0);
    CHECK(aof_writer_ok(w));
    for (i = 0; i < 3; i++) {
        add_records(w, 110 + i, 1);
        CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    }
    aof_writer_close(w);
    CHECK(read_model_file(path, &s, NULL, NULL) == 113 && s == AOF_END);
    unlink(path);
}

static void test_writer_eio_short_writes_and_failed_undo(void)
{
    const char *path = path_in("eio.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_NO, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    int w0;

    /* EIO: nothing written, error state, retried by the next flush. */
    add_records(w, 0, 10);
    f.eio_writes = 1;
    CHECK(aof_writer_flush(w) == AOF_FLUSH_ERR);
    aof_writer_get_stats(w, &st);
    CHECK(st.err_op == AOF_OP_WRITE && st.err_no == EIO && st.write_errors == 1);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK && aof_writer_ok(w));
    /* Short writes of 7 bytes are resumed until the buffer is out. */
    f.max_chunk = 7;
    w0 = f.writes;
    add_records(w, 10, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    CHECK(f.writes - w0 > 100);
    f.max_chunk = 0;
    /* A partial write whose undo fails: the prefix stays as written, the rest is
     * written by the retry, and the file is whole again. */
    f.fail_truncate = 1;
    f.space = 100;
    add_records(w, 20, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_ERR);
    CHECK(read_model_file(path, &s, NULL, NULL) == 20 && s == AOF_TORN);
    f.space = -1;
    f.fail_truncate = 0;
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    aof_writer_close(w);
    CHECK(read_model_file(path, &s, NULL, NULL) == 30 && s == AOF_END);
    unlink(path);
}

static void test_writer_always_failed_fsync(void)
{
    const char *path = path_in("fsyncfail.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_ALWAYS, &io, err, sizeof(err));
    aof_writer_stats st;
    aof_status s;
    long long before;

    add_records(w, 0, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    before = file_size(path);
    /* The fsync fails: the records are not acknowledged, the file is cut back,
     * and they are written and synced again by the next flush. */
    f.fail_fsyncs = 1;
    add_records(w, 10, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_ERR);
    aof_writer_get_stats(w, &st);
    CHECK(st.err_op == AOF_OP_FSYNC && st.err_no == EIO && st.buffered > 0);
    CHECK(file_size(path) == before);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK && aof_writer_ok(w));
    aof_writer_close(w);
    CHECK(read_model_file(path, &s, NULL, NULL) == 20 && s == AOF_END);
    unlink(path);
}

static void test_writer_everysec_failed_fsync(void)
{
    const char *path = path_in("bgfail.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(path, AOF_KIND_NONE, 0, AOF_FSYNC_EVERYSEC, &io, err, sizeof(err));
    int64_t t0;

    f.fail_fsyncs = 1;
    usleep(1100 * 1000);
    add_records(w, 0, 10);
    CHECK(aof_writer_flush(w) == AOF_FLUSH_OK);
    t0 = mono_ms();
    while (aof_writer_ok(w) && mono_ms() - t0 < 2000)
        usleep(1000);
    CHECK(!aof_writer_ok(w));
    /* The thread retries a second later; its success clears the state. */
    t0 = mono_ms();
    while (!aof_writer_ok(w) && mono_ms() - t0 < 4000) {
        aof_writer_flush(w);
        usleep(10 * 1000);
    }
    CHECK(aof_writer_ok(w));
    CHECK(fsyncs_of(&f) >= 2);
    aof_writer_close(w);
    unlink(path);
}

static void test_writer_switch(void)
{
    const char *a = path_in("switch_a.aof"), *b = path_in("switch_b.aof");
    fault_io f;
    aof_io io = fault_table(&f);
    char err[256];
    aof_writer *w = aof_writer_create(a, AOF_KIND_INCR, 1, AOF_FSYNC_EVERYSEC, &io, err, sizeof(err));
    aof_reader *r;
    aof_record rec;
    aof_status s;
    int n = 0;

    add_records(w, 0, 30);
    CHECK(aof_file_create(b, AOF_KIND_INCR, 2, &io, err, sizeof(err)) == 0);
    CHECK(aof_writer_switch(w, b, err, sizeof(err)) == 0);
    CHECK(strcmp(aof_writer_path(w), b) == 0);
    add_records(w, 0, 5);
    CHECK(aof_writer_flush(w) != AOF_FLUSH_ERR);
    CHECK(aof_writer_close(w) == 0);
    CHECK(read_model_file(a, &s, NULL, NULL) == 30 && s == AOF_END);
    CHECK(read_model_file(b, &s, NULL, NULL) == 5 && s == AOF_END);
    r = aof_reader_open(b);
    CHECK(aof_reader_header(r)->seq == 2 && aof_reader_header(r)->flags == AOF_KIND_INCR);
    while (aof_reader_next(r, &rec) == AOF_OK)
        n++;
    aof_reader_close(r);
    CHECK(n == 5);
    CHECK(fsyncs_of(&f) >= 3); /* two headers, the old file before its close */
    unlink(a);
    unlink(b);
}

/* ---- Manifest and rewrite ---- */

static void test_manifest_text(void)
{
    static const char *bad[] = {
        "",
        "file a seq 1 type base\n",
        "scratchpad-manifest 2\nfile a seq 1 type base\n",
        "scratchpad-manifest 1\n",
        "scratchpad-manifest 1\nfile a seq 1 type base\nfile b seq 2 type base\n",
        "scratchpad-manifest 1\nfile b seq 2 type incr\nfile a seq 1 type base\n",
        "scratchpad-manifest 1\nfile a seq 3 type incr\nfile b seq 2 type incr\n",
        "scratchpad-manifest 1\nfile a seq 1 type base\nfile a seq 2 type incr\n",
        "scratchpad-manifest 1\nfile ../a seq 1 type base\n",
        "scratchpad-manifest 1\nfile a seq 01 type base\n",
        "scratchpad-manifest 1\nfile a seq 0 type base\n",
        "scratchpad-manifest 1\nfile a seq 1 type snapshot\n",
        "scratchpad-manifest 1\nfile a seq 1 type base extra\n",
        "scratchpad-manifest 1\nfile a seq 99999999999999999999 type base\n",
    };
    const char *good = "# made by hand\nscratchpad-manifest 1\n\nfile scratchpad.aof.1.base seq 1 type base\n"
                       "file scratchpad.aof.2.incr seq 2 type incr\r\nfile x seq 7 type incr";
    aof_manifest m;
    char err[256], *text;
    size_t i;

    aof_manifest_init(&m);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = aof_manifest_parse(bad[i], strlen(bad[i]), &m, err, sizeof(err));
        CHECK(rc < 0);
        if (rc == 0)
            fprintf(stderr, "    accepted: %s\n", bad[i]);
    }
    CHECK(aof_manifest_parse(good, strlen(good), &m, err, sizeof(err)) == 0);
    CHECK(m.nfiles == 3 && m.files[0].kind == AOF_KIND_BASE && m.files[2].seq == 7);
    CHECK(strcmp(m.files[1].name, "scratchpad.aof.2.incr") == 0);
    CHECK(aof_manifest_alloc_seq(&m) == 8);
    text = aof_manifest_format(&m);
    CHECK(strcmp(text, "scratchpad-manifest 1\nfile scratchpad.aof.1.base seq 1 type base\n"
                       "file scratchpad.aof.2.incr seq 2 type incr\nfile x seq 7 type incr\n") == 0);
    xfree(text);
    aof_manifest_free(&m);
}

static void test_manifest_save_load(void)
{
    aof_manifest m, l;
    char err[256], name[64];

    aof_manifest_init(&m);
    aof_manifest_init(&l);
    CHECK(aof_manifest_load(tmpdir, &l, err, sizeof(err)) == 1 && l.nfiles == 0);
    aof_file_name(name, sizeof(name), 1, AOF_KIND_BASE);
    CHECK(strcmp(name, "scratchpad.aof.1.base") == 0);
    CHECK(aof_manifest_add(&m, AOF_KIND_BASE, 1, name, err, sizeof(err)) == 0);
    aof_file_name(name, sizeof(name), 2, AOF_KIND_INCR);
    CHECK(aof_manifest_add(&m, AOF_KIND_INCR, 2, name, err, sizeof(err)) == 0);
    CHECK(aof_manifest_save(tmpdir, &m, err, sizeof(err)) == 0);
    CHECK(!file_exists(path_in("scratchpad.manifest.tmp")));
    CHECK(aof_manifest_load(tmpdir, &l, err, sizeof(err)) == 0);
    CHECK(l.nfiles == 2 && strcmp(l.files[1].name, "scratchpad.aof.2.incr") == 0 && l.next_seq == 3);
    write_file(path_in("scratchpad.manifest"), "garbage\n", 8);
    CHECK(aof_manifest_load(tmpdir, &l, err, sizeof(err)) < 0 && strstr(err, "line 1"));
    unlink(path_in("scratchpad.manifest"));
    aof_manifest_free(&m);
    aof_manifest_free(&l);
}

/* The dataset of the rewrite test: key i holds value v[i]; the model record
 * "SET k<i> <v>" and the base holds one per key. */
#define NKEYS 64
static int dataset[NKEYS];

static void log_set(aof_buf *b, int k, int v)
{
    char key[16];

    snprintf(key, sizeof(key), "k%d", k);
    aof_rec_begin(b, 0);
    aof_rec_arg_str(b, "SET");
    aof_rec_arg_str(b, key);
    aof_rec_arg_ll(b, v);
    aof_rec_end(b);
}

static int replay_set(void *ctx, const aof_mfile *f, const aof_record *rec, char *why, size_t whylen)
{
    int *d = ctx;
    aof_iter ei, ai;
    aof_effect e;
    aof_arg a;
    char num[24];

    aof_effects_begin(&ei, rec);
    while (aof_effects_next(&ei, &e)) {
        int k;
        aof_args_begin(&ai, &e);
        aof_args_next(&ai, &a);
        aof_args_next(&ai, &a);
        k = atoi(a.p + 1);
        aof_args_next(&ai, &a);
        if (k < 0 || k >= NKEYS || a.len >= sizeof(num)) {
            snprintf(why, whylen, "bad key");
            return -1;
        }
        memcpy(num, a.p, a.len);
        num[a.len] = '\0';
        d[k] = atoi(num);
    }
    return 0;
}

/* 1 if loading the manifest now on disk gives exactly the dataset. */
static int disk_matches(const char *dir)
{
    aof_manifest m;
    aof_load_result res;
    char err[256];
    int got[NKEYS] = {0}, ok;

    aof_manifest_init(&m);
    if (aof_manifest_load(dir, &m, err, sizeof(err)) != 0)
        return 0;
    aof_load(dir, &m, replay_set, got, &res);
    ok = res.status == AOF_END && memcmp(got, dataset, sizeof(got)) == 0;
    if (!ok)
        fprintf(stderr, "    load: %s %s at %" PRIu64 ": %s\n", aof_status_name(res.status), res.file,
                res.offset, res.why);
    aof_manifest_free(&m);
    return ok;
}

static void do_writes(aof_writer *w, int n, int salt)
{
    int i;

    for (i = 0; i < n; i++) {
        int k = (i * 7 + salt) % NKEYS;
        dataset[k] = salt * 1000 + i;
        log_set(aof_writer_buf(w), k, dataset[k]);
    }
    aof_writer_flush(w);
}

static void test_rewrite_protocol(void)
{
    char dir[512], err[256], path[600];
    aof_manifest m, old;
    aof_rewrite rw;
    aof_writer *w, *bw;
    int snapshot[NKEYS], k, removed, held;

    snprintf(dir, sizeof(dir), "%s/data/sub", tmpdir);
    memset(dataset, 0, sizeof(dataset));
    aof_manifest_init(&m);
    /* First start: dir created, empty base, incr, manifest. */
    w = aof_dir_start(dir, &m, AOF_FSYNC_ALWAYS, NULL, err, sizeof(err));
    CHECK(w != NULL);
    CHECK(m.nfiles == 2 && m.files[0].kind == AOF_KIND_BASE && m.files[1].kind == AOF_KIND_INCR);
    CHECK(disk_matches(dir));
    do_writes(w, 100, 1);
    CHECK(disk_matches(dir));
    /* Rewrite start: the manifest gains a new incr, which receives the writes. */
    CHECK(aof_rewrite_start(dir, &m, &w, AOF_FSYNC_ALWAYS, NULL, &rw, err, sizeof(err)) == 0);
    CHECK(m.nfiles == 3 && m.files[2].seq == rw.incr_seq && rw.base_seq > rw.incr_seq);
    CHECK(disk_matches(dir));
    memcpy(snapshot, dataset, sizeof(snapshot));
    /* The "child" writes the snapshot while the parent goes on writing. */
    bw = aof_rewrite_base_create(&rw, err, sizeof(err));
    CHECK(bw != NULL);
    for (k = 0; k < NKEYS; k++)
        if (snapshot[k])
            log_set(aof_writer_buf(bw), k, snapshot[k]);
    do_writes(w, 50, 2);
    CHECK(disk_matches(dir));
    CHECK(aof_writer_sync(bw) == 0 && aof_writer_close(bw) == 0);
    CHECK(disk_matches(dir)); /* a finished temp base changes nothing yet */
    /* The child's last step: the base under its name, the manifest prepared;
     * the manifest in force still names the old, complete set. */
    CHECK(aof_rewrite_child_finish(&m, &rw, err, sizeof(err)) == 0);
    CHECK(file_exists(rw.base_path) && file_exists(rw.manifest_temp) && !file_exists(rw.temp_path));
    CHECK(disk_matches(dir));
    do_writes(w, 10, 3);
    /* Finish: {new base, new incr}; the old files are obsolete. */
    CHECK(aof_rewrite_finish(dir, &m, &rw, &old, &held, err, sizeof(err)) == 0);
    CHECK(held >= 0 && close(held) == 0);
    CHECK(aof_dir_fsync(dir) == 0);
    CHECK(m.nfiles == 2 && m.files[0].seq == rw.base_seq && m.files[1].seq == rw.incr_seq);
    CHECK(old.nfiles == 2 && old.files[0].kind == AOF_KIND_BASE);
    CHECK(!file_exists(rw.temp_path) && !file_exists(rw.manifest_temp));
    CHECK(disk_matches(dir));
    CHECK(aof_dir_remove(dir, &old) == 0);
    aof_path(path, sizeof(path), dir, old.files[1].name);
    CHECK(!file_exists(path));
    CHECK(disk_matches(dir));
    do_writes(w, 10, 4);
    CHECK(disk_matches(dir));
    aof_manifest_free(&old);
    /* A failed rewrite: the temp base goes, the log stays complete. */
    CHECK(aof_rewrite_start(dir, &m, &w, AOF_FSYNC_ALWAYS, NULL, &rw, err, sizeof(err)) == 0);
    bw = aof_rewrite_base_create(&rw, err, sizeof(err));
    log_set(aof_writer_buf(bw), 0, 12345);
    aof_writer_flush(bw);
    aof_writer_close(bw);
    CHECK(aof_rewrite_child_finish(&m, &rw, err, sizeof(err)) == 0);
    aof_rewrite_abort(&rw);
    CHECK(!file_exists(rw.temp_path) && !file_exists(rw.base_path) && !file_exists(rw.manifest_temp));
    do_writes(w, 10, 5);
    CHECK(m.nfiles == 3 && disk_matches(dir));
    /* Restart: reload, open the last incr, go on. Leftovers are cleaned. */
    aof_writer_close(w);
    aof_path(path, sizeof(path), dir, "scratchpad.aof.999.incr");
    write_file(path, "x", 1);
    aof_manifest_free(&m);
    CHECK(aof_manifest_load(dir, &m, err, sizeof(err)) == 0);
    removed = aof_dir_clean(dir, &m, NULL, NULL, 0);
    CHECK(removed == 1 && !file_exists(path));
    CHECK(m.next_seq == 1000);
    w = aof_dir_start(dir, &m, AOF_FSYNC_EVERYSEC, NULL, err, sizeof(err));
    CHECK(w != NULL && m.nfiles == 3);
    do_writes(w, 10, 6);
    aof_writer_close(w);
    CHECK(disk_matches(dir));
    aof_manifest_free(&m);
}

static void test_rewrite_turning_the_log_on(void)
{
    char dir[512], err[256];
    aof_manifest m, old;
    aof_rewrite rw;
    aof_writer *w = NULL, *bw;
    int k, held;

    snprintf(dir, sizeof(dir), "%s/on", tmpdir);
    memset(dataset, 0, sizeof(dataset));
    for (k = 0; k < NKEYS; k++)
        dataset[k] = k + 1;
    aof_manifest_init(&m);
    CHECK(aof_rewrite_start(dir, &m, &w, AOF_FSYNC_ALWAYS, NULL, &rw, err, sizeof(err)) == 0);
    CHECK(w != NULL);
    /* Until the base exists, no manifest names a log missing the dataset. */
    CHECK(!file_exists(path_in("on/scratchpad.manifest")));
    bw = aof_rewrite_base_create(&rw, err, sizeof(err));
    for (k = 0; k < NKEYS; k++)
        log_set(aof_writer_buf(bw), k, k + 1);
    do_writes(w, 20, 7);
    CHECK(aof_writer_sync(bw) == 0 && aof_writer_close(bw) == 0);
    CHECK(aof_rewrite_child_finish(&m, &rw, err, sizeof(err)) == 0);
    /* The child saw m at the fork; a manifest that changed since (by hand
     * here) is not the child's: the parent writes the right one itself. */
    write_file(rw.manifest_temp, "stale", 5);
    CHECK(aof_rewrite_finish(dir, &m, &rw, &old, &held, err, sizeof(err)) == 0);
    CHECK(held == -1 && !file_exists(rw.manifest_temp));
    CHECK(old.nfiles == 0 && m.nfiles == 2);
    CHECK(disk_matches(dir));
    aof_writer_close(w);
    aof_manifest_free(&m);
    aof_manifest_free(&old);
}

static void test_load_rules(void)
{
    char dir[512], err[256], path[600];
    aof_manifest m;
    aof_load_result res;
    aof_writer *w;
    int got[NKEYS];
    long long sz;
    uint64_t cut;

    snprintf(dir, sizeof(dir), "%s/load", tmpdir);
    memset(dataset, 0, sizeof(dataset));
    aof_manifest_init(&m);
    w = aof_dir_start(dir, &m, AOF_FSYNC_NO, NULL, err, sizeof(err));
    do_writes(w, 30, 8);
    aof_writer_close(w);
    /* A torn tail in the last file: TORN with the file and offset; truncating
     * there loads everything before it. */
    aof_path(path, sizeof(path), dir, m.files[1].name);
    sz = file_size(path);
    CHECK(truncate(path, sz - 3) == 0);
    aof_load(dir, &m, replay_set, got, &res);
    CHECK(res.status == AOF_TORN && strcmp(res.file, m.files[1].name) == 0 && res.records == 29);
    CHECK(res.dropped == (uint64_t)(sz - 3) - res.offset);
    cut = res.offset;
    CHECK(aof_file_truncate(path, cut, err, sizeof(err)) == 0);
    aof_load(dir, &m, replay_set, got, &res);
    CHECK(res.status == AOF_END && res.records == 29);
    /* The same tear in a file followed only by an empty one (an incremental
     * rewrite names its next incr before the log switches to it): still the
     * log's torn tail. Once a later file holds a record: CORRUPT. */
    {
        char name[64], later[600];
        aof_writer *lw;
        aof_file_name(name, sizeof(name), 3, AOF_KIND_INCR);
        aof_path(later, sizeof(later), dir, name);
        CHECK(aof_file_create(later, AOF_KIND_INCR, 3, NULL, err, sizeof(err)) == 0);
        CHECK(aof_manifest_add(&m, AOF_KIND_INCR, 3, name, err, sizeof(err)) == 0);
        aof_path(path, sizeof(path), dir, m.files[1].name);
        CHECK(truncate(path, (off_t)cut - 2) == 0);
        CHECK(aof_rest_empty(dir, &m, 2) == 1 && aof_rest_empty(dir, &m, 3) == 1);
        aof_load(dir, &m, replay_set, got, &res);
        CHECK(res.status == AOF_TORN && strcmp(res.file, m.files[1].name) == 0 && res.records == 28);
        CHECK((lw = aof_writer_open(later, AOF_FSYNC_NO, NULL, err, sizeof(err))) != NULL);
        do_writes(lw, 1, 9);
        aof_writer_close(lw);
        CHECK(aof_rest_empty(dir, &m, 2) == 0);
        aof_load(dir, &m, replay_set, got, &res);
        CHECK(res.status == AOF_CORRUPT && strstr(res.why, "not the last"));
    }
    /* A file whose header kind differs from the manifest's: CORRUPT. */
    m.files[0].kind = AOF_KIND_INCR;
    aof_load(dir, &m, replay_set, got, &res);
    CHECK(res.status == AOF_CORRUPT && strstr(res.why, "kind") && res.offset == 0);
    m.files[0].kind = AOF_KIND_BASE;
    /* A missing file: IOERR. */
    aof_path(path, sizeof(path), dir, m.files[0].name);
    unlink(path);
    aof_load(dir, &m, replay_set, got, &res);
    CHECK(res.status == AOF_IOERR);
    aof_manifest_free(&m);
}

static void test_memory_baseline(void)
{
    size_t base = mem_used();
    const char *path = path_in("mem.aof");
    aof_status s;

    write_model_file(path, 100, NULL);
    CHECK(read_model_file(path, &s, NULL, NULL) == 100);
    CHECK(mem_used() == base);
    unlink(path);
}

/* ---- Fixtures for tests/integration/check_aof.sh ---- */

static int write_fixtures(const char *dir)
{
    char p[1024], err[256], name[64];
    uint64_t offs[101];
    unsigned char *all;
    size_t n;
    FILE *ex;
    aof_manifest m;
    aof_writer *w;
    lzval *bad;

    snprintf(tmpdir, sizeof(tmpdir), "%s", dir);
    lz_setup();
    write_model_file(path_in("good.aof"), 100, offs);
    all = read_file(path_in("good.aof"), &n);
    write_file(path_in("torn.aof"), all, offs[100] - 5);
    all[(offs[50] + offs[51]) / 2] ^= 0x20;
    write_file(path_in("corrupt.aof"), all, n);
    all[(offs[50] + offs[51]) / 2] ^= 0x20;
    all[1] = 'X';
    write_file(path_in("badheader.aof"), all, n);
    all[1] = 'P';
    /* A compressed value with an undecodable LZ4 block under a good CRC. */
    w = aof_writer_create(path_in("badlz.aof"), AOF_KIND_NONE, 0, AOF_FSYNC_NO, NULL, err, sizeof(err));
    bad = lzval_dup(lzv[3]);
    lzval_debug_corrupt(bad, 0);
    gen_record(aof_writer_buf(w), 1);
    aof_rec_begin(aof_writer_buf(w), 0);
    aof_rec_arg_str(aof_writer_buf(w), "SET");
    aof_rec_arg_str(aof_writer_buf(w), "k");
    aof_rec_arg_lzval(aof_writer_buf(w), bad);
    aof_rec_end(aof_writer_buf(w));
    gen_record(aof_writer_buf(w), 2);
    aof_writer_close(w);
    lzval_free(bad);
    /* A manifest of three files, the middle one damaged. */
    snprintf(p, sizeof(p), "%s/set", dir);
    aof_manifest_init(&m);
    w = aof_dir_start(p, &m, AOF_FSYNC_NO, NULL, err, sizeof(err));
    add_records(w, 0, 20);
    aof_writer_close(w);
    aof_file_name(name, sizeof(name), 3, AOF_KIND_INCR);
    snprintf(p, sizeof(p), "%s/set/%s", dir, name);
    w = aof_writer_create(p, AOF_KIND_INCR, 3, AOF_FSYNC_NO, NULL, err, sizeof(err));
    add_records(w, 20, 5);
    aof_writer_close(w);
    aof_manifest_add(&m, AOF_KIND_INCR, 3, name, err, sizeof(err));
    snprintf(p, sizeof(p), "%s/set", dir);
    aof_manifest_save(p, &m, err, sizeof(err));
    snprintf(p, sizeof(p), "%s/expect.sh", dir);
    ex = fopen(p, "w");
    fprintf(ex, "good_records=100\ngood_size=%" PRIu64 "\ntorn_offset=%" PRIu64 "\n", offs[100], offs[99]);
    fprintf(ex, "torn_dropped=%" PRIu64 "\ncorrupt_offset=%" PRIu64 "\ncorrupt_records=50\n",
            offs[100] - 5 - offs[99], offs[50]);
    fprintf(ex, "set_incr=%s\nset_last=%s\n", m.files[1].name, name);
    fprintf(ex, "set_records=25\n");
    fclose(ex);
    free(all);
    aof_manifest_free(&m);
    lz_teardown();
    return 0;
}

/* ---- Throughput ---- */

static void bench_write(const char *dir, aof_fsync_policy p, int per_flush, double seconds)
{
    char path[1024], err[256], key[32], val[100];
    aof_writer *w;
    aof_writer_stats st;
    double t0, t;
    long long recs = 0;
    int i;

    snprintf(path, sizeof(path), "%s/bench-%s-%d.aof", dir, aof_fsync_policy_name(p), per_flush);
    memset(val, 'v', sizeof(val));
    w = aof_writer_create(path, AOF_KIND_INCR, 1, p, NULL, err, sizeof(err));
    if (!w) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    t0 = now_s();
    do {
        for (i = 0; i < per_flush; i++, recs++) {
            aof_buf *b = aof_writer_buf(w);
            snprintf(key, sizeof(key), "key:%012lld", recs % 100000);
            aof_rec_begin(b, 0);
            aof_rec_arg_bytes(b, "SET", 3);
            aof_rec_arg_str(b, key);
            aof_rec_arg_bytes(b, val, sizeof(val));
            aof_rec_end(b);
        }
        aof_writer_flush(w);
    } while ((t = now_s() - t0) < seconds);
    aof_writer_get_stats(w, &st);
    printf("write %-8s %5d records/flush: %10.0f records/s  %8.1f MB/s  (%llu fsyncs, %.0f flushes/s)\n",
           aof_fsync_policy_name(p), per_flush, recs / t, st.bytes_written / t / 1e6,
           (unsigned long long)st.fsyncs, recs / per_flush / t);
    aof_writer_close(w);
    if (p != AOF_FSYNC_NO)
        unlink(path);
}

static void bench_read(const char *path, int decode)
{
    aof_reader *r = aof_reader_open(path);
    aof_record rec;
    aof_iter ei, ai, ci;
    aof_effect e;
    aof_arg a;
    aof_chunk c;
    double t0 = now_s(), t;
    long long recs = 0, args = 0;

    if (!r)
        return;
    while (aof_reader_next(r, &rec) == AOF_OK) {
        recs++;
        if (!decode)
            continue;
        aof_effects_begin(&ei, &rec);
        while (aof_effects_next(&ei, &e)) {
            aof_args_begin(&ai, &e);
            while (aof_args_next(&ai, &a)) {
                args++;
                if (a.kind == AOF_ARG_LZVAL && decode == 2) {
                    lzval *v = aof_arg_lzval(&a);
                    lzval_free(v);
                } else if (a.kind == AOF_ARG_LZVAL) {
                    aof_chunks_begin(&ci, &a);
                    while (aof_chunks_next(&ci, &c))
                        args++;
                }
            }
        }
    }
    t = now_s() - t0;
    printf("read  %s: %lld records in %.2f s: %8.1f MB/s, %10.0f records/s%s\n", strrchr(path, '/') + 1,
           recs, t, aof_reader_size(r) / t / 1e6, recs / t,
           decode == 2 ? " (values rebuilt: LZ4 decoded)" : decode ? " (arguments walked)" : "");
    aof_reader_close(r);
}

static int bench(const char *dir)
{
    char path[1024], err[256];
    aof_writer *w;
    char *text = gen_text(1 << 20, 0, 5);
    lzval *v = lzval_new(text, 1 << 20, 65536);
    int i;

    bench_write(dir, AOF_FSYNC_NO, 100, 3);
    bench_write(dir, AOF_FSYNC_NO, 1, 2);
    bench_write(dir, AOF_FSYNC_EVERYSEC, 100, 3);
    bench_write(dir, AOF_FSYNC_ALWAYS, 100, 3);
    bench_write(dir, AOF_FSYNC_ALWAYS, 1000, 3);
    bench_write(dir, AOF_FSYNC_ALWAYS, 1, 3);
    snprintf(path, sizeof(path), "%s/bench-no-100.aof", dir);
    bench_read(path, 0);
    bench_read(path, 1);
    /* Large compressed values: 1 MB of log text each, 300 of them. */
    snprintf(path, sizeof(path), "%s/bench-lz.aof", dir);
    w = aof_writer_create(path, AOF_KIND_INCR, 1, AOF_FSYNC_NO, NULL, err, sizeof(err));
    for (i = 0; i < 300; i++) {
        aof_buf *b = aof_writer_buf(w);
        aof_rec_begin(b, 0);
        aof_rec_arg_str(b, "SET");
        aof_rec_arg_ll(b, i);
        aof_rec_arg_lzval(b, v);
        aof_rec_end(b);
        aof_writer_flush(w);
    }
    aof_writer_close(w);
    bench_read(path, 1);
    bench_read(path, 2);
    printf("(compressed values: %zu raw bytes stored in %zu)\n", lzval_len(v), lzval_stored(v));
    lzval_free(v);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    int rc;

    if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0)
        return write_fixtures(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--bench") == 0)
        return bench(argv[2]);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_aof.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    lz_setup();
    RUN(test_crc, "CRC32C of \"123456789\" is the standard check value 0xE3069283, and chains");
    RUN(test_header, "the file header round-trips, and any damaged byte, version or flag is refused");
    RUN(test_roundtrip, "records with binary and compressed arguments in many databases read back exactly");
    RUN(test_encoder_rules, "a transaction is one record whose nested commands are its effects, empty effects vanish");
    RUN(test_spliced_value_roundtrip,
        "a compressed value with chunks of variable length (after a splice) is a valid argument and rebuilds the same bytes");
    RUN(test_detached_dict_roundtrip,
        "a compressed value with a detached dictionary is a kind-2 argument that rebuilds the same bytes, dictionary and chunks, and a bad dictionary length is malformed");
    RUN(test_malformed_payloads, "a payload with a good CRC but a bad structure is corrupt, never torn");
    RUN(test_torn_tail_every_offset, "a log cut at every byte of its last record gives every earlier record, then TORN with the bytes to drop");
    RUN(test_last_record_bit_flips_are_corrupt, "every single-bit flip in the last record is CORRUPT at its offset, zeros after it or not (a length grown past the end aside)");
    RUN(test_corruption_in_the_middle, "a damaged byte in a middle record is CORRUPT at that record's offset");
    RUN(test_bad_header, "a short, foreign or damaged header is CORRUPT at offset 0");
    RUN(test_large_record, "records larger than the read block read back whole");
    RUN(test_writer_always_group_commit, "with always, each flush is one write and one fdatasync however many records it holds");
    RUN(test_writer_reserves_blocks_ahead, "the writer reserves the file's next blocks ahead of its writes without changing its size");
    RUN(test_writer_gives_reserved_blocks_back, "a writer gives back the blocks reserved past a file's end when it switches to a new file and when it closes");
    RUN(test_writer_no_and_everysec, "with no there is no fsync, with everysec at most one a second, from the thread");
    RUN(test_writer_everysec_never_blocks, "with everysec, a 3 s fsync never blocks flush, writes go on, and the stall counts as a delayed fsync");
    RUN(test_writer_everysec_postpone, "with everysec and postpone, writes wait in the buffer up to 2 s behind a slow fsync, never blocking flush");
    RUN(test_writer_enospc, "ENOSPC mid-write cuts the file back to whole records, sets the error state, and a later flush writes everything once");
    RUN(test_writer_eio_short_writes_and_failed_undo, "EIO is retried, short writes are resumed, a partial write that cannot be undone is completed");
    RUN(test_writer_always_failed_fsync, "with always, a failed fdatasync leaves the records unacknowledged and writes them again");
    RUN(test_writer_everysec_failed_fsync, "with everysec, a failed background fsync sets the error state until a retry succeeds");
    RUN(test_writer_switch, "a writer switched to a new file leaves the old one complete and synced");
    RUN(test_manifest_text, "the manifest parser accepts the documented form and refuses every malformed one");
    RUN(test_manifest_save_load, "a saved manifest loads back equal and leaves no temp file");
    RUN(test_rewrite_protocol, "at every step of a rewrite the manifest on disk loads the whole dataset");
    RUN(test_rewrite_turning_the_log_on, "switching the log on names no file until the base is complete");
    RUN(test_load_rules, "a torn tail is accepted only in the last file, and files must match the manifest");
    RUN(test_memory_baseline, "writing and reading a log returns mem_used to its baseline");
    lz_teardown();
    rc = TEST_DONE();
    rm_dir_files(tmpdir);
    rmdir(tmpdir);
    return rc;
}
