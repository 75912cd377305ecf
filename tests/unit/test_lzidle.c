/* test_lzidle.c -- the background conversion to dictionary mode (lzidle.h).
 *
 * Values are built from service-log text (textgen.h), for which the samples
 * say a dictionary pays, and random bytes, for which they say no. The
 * registry's clock is the test's own: a "delay" passes by stepping with a
 * later now_ms, so nothing here depends on how fast the machine is. Every case
 * checks the value against the plain buffer it was built from: its bytes by
 * windows and whole, its counts, and its stored chunks rebuilt through
 * lzval_from_chunks_* (what the log's loader does). */
#include "lz/lzidle.h"
#include "lz/lzval.h"
#include "mem.h"
#include "test.h"
#include "textgen.h"

#include <stdlib.h>
#include <string.h>

#define SUB 8192
#define DELAY 5000 /* ms, the registry delay the cases use */

static char *svc_new(size_t n, uint64_t seed)
{
    char *p = malloc(n);
    rng_seed(seed);
    gen_svc(p, n);
    return p;
}

static char *rand_new(size_t n, uint64_t seed)
{
    char *p = malloc(n);
    size_t i;
    rng_seed(seed);
    for (i = 0; i < n; i++)
        p[i] = (char)(rng() >> 24);
    return p;
}

static size_t count_nl(const char *p, size_t n)
{
    size_t i, c = 0;
    for (i = 0; i < n; i++)
        c += p[i] == '\n';
    return c;
}

/* v holds exactly m[0..n): length, newlines, the whole bytes, 300 random
 * windows (through c, which may be NULL), its chunks pass their checksums,
 * and its stored chunks load back (lzval_from_chunks_*) into the same bytes
 * and the same mode. */
static int same(const lzval *v, const char *m, size_t n, lzcache *c)
{
    char *tmp = malloc(n + 1);
    size_t i, k;
    int ok = lzval_len(v) == n && lzval_newlines(v) == count_nl(m, n);
    lzval *w;

    ok = ok && lzval_read(v, 0, n, tmp, c) == 0 && memcmp(tmp, m, n) == 0;
    rng_seed(n);
    for (k = 0; ok && k < 300; k++) {
        size_t off = rng_below(n), len = rng_below(n - off < 3 * SUB ? n - off : 3 * SUB) + 1;
        ok = lzval_read(v, off, len, tmp, c) == 0 && memcmp(tmp, m + off, len) == 0;
    }
    w = lzval_from_chunks_begin(lzval_chunk_size(v));
    if (lzval_detached_dict(v, &k))
        lzval_from_chunks_dict(w, lzval_detached_dict(v, &k), k);
    for (i = 0; ok && i < lzval_nchunks(v); i++) {
        const char *d;
        size_t st, raw, blk;
        int comp;
        ok = lzval_chunk_verify(v, i, &blk) == 0; /* the re-encoding recorded its checksums */
        lzval_chunk_stored(v, i, &d, &st, &raw, &comp);
        ok = lzval_from_chunks_add(w, d, st, raw, comp) == 0;
    }
    w = lzval_from_chunks_end(w);
    ok = ok && w && lzval_dict(w) == lzval_dict(v) && lzval_read(w, 0, n, tmp, NULL) == 0 &&
         memcmp(tmp, m, n) == 0;
    lzval_free(w);
    free(tmp);
    return ok;
}

/* Step q at now until nothing is due; returns the number of steps. */
static size_t drain(lzidle *q, int64_t now)
{
    size_t steps = 0;
    while (lzidle_step(q, now, DELAY, 64 * 1024) > 0)
        steps++;
    return steps;
}

static void test_converted_once_idle(void)
{
    size_t base = mem_used(), n = (1 << 20) + 777, before;
    char *m = svc_new(n, 1);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536), *u;
    lzidle_stats st;

    lzidle_clock(q, 1000);
    lzidle_adopt(q, v);
    before = lzval_stored(v);
    CHECK(lzval_dict(v) == 0 && lzidle_registered(v));
    lzidle_get_stats(q, &st);
    CHECK(st.registered == 1 && st.pending_values == 1 && st.pending_bytes == n);
    /* not idle long enough: nothing happens */
    CHECK(lzidle_step(q, 1000 + DELAY - 1, DELAY, 1 << 30) == 0);
    CHECK(lzidle_next_due(q, 1000, DELAY) == 1000 + DELAY);
    CHECK(lzval_dict(v) == 0);
    /* idle: converted in steps of about 64 KB, one value's worth */
    CHECK(drain(q, 1000 + DELAY) >= n / (64 * 1024));
    CHECK(lzval_dict(v) == SUB);
    /* exactly the chunks lzval_new would have written with the dictionary */
    u = lzval_new(m, n, 65536);
    CHECK(lzval_dict(u) == SUB && lzval_stored(v) == lzval_stored(u) && lzval_stored(v) < before * 9 / 10);
    lzval_free(u);
    CHECK(same(v, m, n, NULL));
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 0 && st.pending_bytes == 0 && st.converted_values == 1 && st.converted_bytes == n);
    CHECK(st.saved_bytes == before - lzval_stored(v) && st.refused_values == 0 && st.dropped == 0);
    CHECK(lzidle_next_due(q, 1000 + DELAY, DELAY) == -1);
    /* converted values are left alone */
    CHECK(lzidle_step(q, 1000000, DELAY, 1 << 30) == 0);
    CHECK(lzidle_free(q) == -1); /* v is still registered */
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

static void test_reads_during_conversion(void)
{
    size_t base = mem_used(), n = 700000 + 13, step, stored;
    char *m = svc_new(n, 2);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536);
    lzcache *c = lzcache_new(4);
    int half = 0;

    lzidle_adopt(q, v);
    /* the cache holds decoded chunks of the value from before the conversion */
    CHECK(same(v, m, n, c));
    stored = lzval_stored(v);
    for (step = 0; lzidle_step(q, DELAY, DELAY, 16 * 1024) > 0; step++) {
        if (lzval_dict(v) == 0) {
            /* half converted: reads, counts, the stored chunks (what the log
             * exports) and the stored size are the value's as it was */
            half++;
            if (step % 5 == 2) {
                CHECK(same(v, m, n, step % 2 ? c : NULL));
                CHECK(lzval_stored(v) == stored);
            }
        }
    }
    CHECK(half > 20);
    CHECK(lzval_dict(v) == SUB && lzval_stored(v) < stored);
    /* after the swap, through the cache filled before and during it, and without */
    CHECK(same(v, m, n, c));
    CHECK(same(v, m, n, NULL));
    lzcache_free(c);
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

/* Convert v part way: a few steps of 16 KB. */
static void part_way(lzidle *q, int64_t now)
{
    int i;
    for (i = 0; i < 6; i++)
        lzidle_step(q, now, DELAY, 16 * 1024);
}

static void test_change_drops_conversion(void)
{
    size_t base = mem_used(), n = 400000, k;
    char *m = svc_new(n + 50000, 3);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536);
    lzidle_stats st;
    int64_t t = 0;

    lzidle_adopt(q, v);
    /* an append during the conversion */
    t += DELAY;
    part_way(q, t);
    CHECK(lzval_dict(v) == 0);
    CHECK(lzval_append(v, m + n, 30000, NULL) == 0);
    lzidle_get_stats(q, &st);
    CHECK(st.dropped == 1 && st.pending_values == 1 && st.pending_bytes == n + 30000);
    /* it waits the delay again, from the change */
    CHECK(lzidle_step(q, t + DELAY - 1, DELAY, 1 << 30) == 0);
    t += DELAY;
    /* a setrange during the next one */
    part_way(q, t);
    CHECK(lzval_setrange(v, 100000, "xyz", 3, NULL) == 0);
    memcpy(m + 100000, "xyz", 3);
    lzidle_get_stats(q, &st);
    CHECK(st.dropped == 2 && st.pending_values == 1 && lzval_dict(v) == 0);
    CHECK(same(v, m, n + 30000, NULL));
    t += DELAY;
    drain(q, t);
    CHECK(lzval_dict(v) == SUB && same(v, m, n + 30000, NULL));
    /* appends to a value in dictionary mode keep it there */
    for (k = 0; k < 20000; k += 1000)
        CHECK(lzval_append(v, m + n + 30000 + k, 1000, NULL) == 0);
    CHECK(lzval_dict(v) == SUB && same(v, m, n + 50000, NULL));
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 0 && st.converted_values == 1);
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

static void test_free_drops_conversion(void)
{
    size_t base = mem_used(), n = 500000;
    char *m = svc_new(n, 4);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536), *w = lzval_new_nodict(m, n / 2, 65536);
    lzidle_stats st;

    lzidle_adopt(q, v);
    lzidle_adopt(q, w);
    part_way(q, DELAY);
    lzval_free(v); /* deleted, expired or overwritten in the middle */
    lzidle_get_stats(q, &st);
    CHECK(st.dropped == 1 && st.registered == 1 && st.pending_values == 1 && st.pending_bytes == n / 2);
    drain(q, DELAY);
    CHECK(lzval_dict(w) == SUB && same(w, m, n / 2, NULL));
    lzval_free(w);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

static void test_refused_not_retried(void)
{
    size_t base = mem_used(), n = 100000;
    char *r = rand_new(400000, 5), *m = svc_new(60000, 6);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(r, n, 65536), *small = lzval_new_nodict(m, 40000, 65536);
    lzidle_stats st;
    int64_t t = DELAY;

    lzidle_adopt(q, v);
    lzidle_adopt(q, small);
    lzidle_get_stats(q, &st);
    CHECK(st.registered == 2 && st.pending_values == 1); /* 40 KB: below 48 KB, never listed */
    CHECK(drain(q, t) == 1);
    lzidle_get_stats(q, &st);
    CHECK(st.refused_values == 1 && st.pending_values == 0 && lzval_dict(v) == 0);
    /* a change does not list it again until it has doubled past the next size */
    CHECK(lzval_append(v, r + n, 50000, NULL) == 0);
    CHECK(lzval_setrange(v, 10, "ab", 2, NULL) == 0);
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 0);
    t += 10 * DELAY;
    CHECK(drain(q, t) == 0);
    CHECK(lzval_append(v, r + 150000, 50000, NULL) == 0); /* 200,000 bytes: past 192 KB */
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 1);
    t += DELAY;
    CHECK(drain(q, t) == 1);
    lzidle_get_stats(q, &st);
    CHECK(st.refused_values == 2 && st.pending_values == 0);
    /* past 384 KB, the last size at which a value is asked again */
    CHECK(lzval_append(v, r + 200000, 200000, NULL) == 0);
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 1);
    t += DELAY;
    drain(q, t);
    lzidle_get_stats(q, &st);
    CHECK(st.refused_values == 3 && st.pending_values == 0 && st.converted_values == 0);
    /* the small value, grown past 48 KB by an append, is listed */
    CHECK(lzval_append(small, m + 40000, 20000, NULL) == 0);
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 1 && lzval_dict(small) == 0);
    t += DELAY;
    drain(q, t);
    lzidle_get_stats(q, &st);
    CHECK(st.converted_values + st.refused_values == 4 && st.pending_values == 0);
    CHECK(same(small, m, 60000, NULL));
    lzval_free(v);
    lzval_free(small);
    CHECK(lzidle_free(q) == 0);
    free(r);
    free(m);
    CHECK(mem_used() == base);
}

static void test_registered_appends_leave_dictionary(void)
{
    size_t base = mem_used(), n = 400000, k, stored;
    char *m = svc_new(n, 7);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, 20000, 65536), *u = lzval_new(m, 20000, 65536);

    lzidle_adopt(q, v);
    for (k = 20000; k < n; k += 1000) {
        CHECK(lzval_append(v, m + k, 1000, NULL) == 0);
        CHECK(lzval_append(u, m + k, 1000, NULL) == 0);
    }
    /* the unregistered value took its dictionary on the way; the registered one did not */
    CHECK(lzval_dict(u) == SUB);
    CHECK(lzval_dict(v) == 0 && same(v, m, n, NULL));
    drain(q, DELAY);
    CHECK(lzval_dict(v) == SUB && same(v, m, n, NULL));
    /* a setrange touching the dictionary detaches it (the value keeps its
     * dictionary and its other chunks), and the value waits to fold it back */
    stored = lzval_stored(v);
    CHECK(lzval_setrange(v, 100, "0123456789", 10, NULL) == 0);
    memcpy(m + 100, "0123456789", 10);
    CHECK(lzval_dict(v) == SUB && lzval_detached_dict(v, &k) != NULL && k == SUB && same(v, m, n, NULL));
    CHECK(lzval_stored(v) < stored + SUB); /* the copy, less what its old place now saves */
    CHECK(drain(q, DELAY) == 0);
    drain(q, 2 * DELAY);
    CHECK(lzval_dict(v) == SUB && lzval_detached_dict(v, &k) == NULL && same(v, m, n, NULL));
    CHECK(lzval_stored(v) < stored + SUB);
    lzval_free(v);
    lzval_free(u);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

/* A value with a detached dictionary whose chunks a copy shares is left as
 * it is (re-encoding it would copy every shared chunk to save one sub-block);
 * once the copy is gone, its next change lists it again and it is folded back.
 * A copy that is still fast-written (acceleration above 1) is re-encoded,
 * sharing or not, and the original keeps its chunks. */
static void test_shared_detached_dict_waits(void)
{
    size_t base = mem_used(), n = 400000, k, stored;
    char *m = svc_new(n, 9);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536), *d, *f;

    lzidle_adopt(q, v);
    drain(q, DELAY);
    CHECK(lzval_dict(v) == SUB);
    d = lzval_dup(v);
    CHECK(lzval_setrange(v, 100, "0123456789", 10, NULL) == 0);
    memcpy(m + 100, "0123456789", 10);
    CHECK(lzval_detached_dict(v, &k) != NULL);
    stored = lzval_stored_union((const lzval *const[]){v, d}, 2);
    drain(q, 2 * DELAY);
    CHECK(lzval_detached_dict(v, &k) != NULL && same(v, m, n, NULL));
    CHECK(lzval_stored_union((const lzval *const[]){v, d}, 2) == stored);
    lzval_free(d);
    CHECK(lzval_setrange(v, 200, "abcdefghij", 10, NULL) == 0);
    memcpy(m + 200, "abcdefghij", 10);
    drain(q, 4 * DELAY);
    CHECK(lzval_detached_dict(v, &k) == NULL && lzval_dict(v) == SUB && same(v, m, n, NULL));
    /* a fast-written copy is re-encoded; the original keeps its bytes */
    f = lzval_new_fast(m, n, 65536, 8);
    lzidle_adopt(q, f);
    d = lzval_dup(f);
    drain(q, 6 * DELAY);
    CHECK(lzval_accel(f) == 1 && lzval_accel(d) == 1 && same(f, m, n, NULL) && same(d, m, n, NULL));
    lzval_free(f);
    lzval_free(d);
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

/* A value whose chunks splices left at other lengths than full (an insertion
 * at the top splits chunk 0), read through a cache, then converted (the
 * conversion writes full chunks): reads through the same cache give the new
 * chunks' bytes, not the slots the cache holds for the old ones (the value took
 * a new uid); the same with a detached dictionary folded back. */
static void test_conversion_after_splices_and_cache(void)
{
    size_t base = mem_used(), n = 600000, len, dn;
    char *m = svc_new(n + 200, 9), *tmp = malloc(n + 200);
    lzidle *q = lzidle_new();
    lzcache *c = lzcache_new(64);
    lzval *v = lzval_new_fast(m, n, 65536, 6);
    int pass;

    lzidle_adopt(q, v);
    len = n;
    for (pass = 0; pass < 2; pass++) {
        /* an insertion at the top: chunk 0 becomes two, every later chunk moves one index up */
        CHECK(lzval_splice(v, 5, 0, "0123456789", 10, c) == 0);
        memmove(m + 15, m + 5, len - 5);
        memcpy(m + 5, "0123456789", 10);
        len += 10;
        CHECK(lzval_nchunks(v) == (len + 65535) / 65536 + 1);
        CHECK(pass == 0 ? lzval_dict(v) == 0 : lzval_detached_dict(v, &dn) != NULL);
        CHECK(lzval_read(v, 0, len, tmp, c) == 0 && memcmp(tmp, m, len) == 0); /* every chunk cached */
        drain(q, (pass + 1) * 2 * DELAY);
        CHECK(lzval_dict(v) == SUB && lzval_detached_dict(v, &dn) == NULL);
        CHECK(lzval_nchunks(v) == (len + 65535) / 65536);
        CHECK(same(v, m, len, c) && same(v, m, len, NULL));
    }
    lzval_free(v);
    lzcache_free(c);
    CHECK(lzidle_free(q) == 0);
    free(tmp);
    free(m);
    CHECK(mem_used() == base);
}

static void test_order_and_copies(void)
{
    size_t base = mem_used(), n = 200000;
    char *m = svc_new(n, 8);
    lzidle *q = lzidle_new();
    lzval *a = lzval_new_nodict(m, n, 65536), *b = lzval_new_nodict(m, n, 20000), *d;
    lzidle_stats st;

    lzidle_clock(q, 0);
    lzidle_adopt(q, a);
    lzidle_clock(q, 1000);
    lzidle_adopt(q, b);
    /* a copy is registered too, stamped with the clock it is made at */
    lzidle_clock(q, 2000);
    d = lzval_dup(a);
    CHECK(lzidle_registered(d));
    lzidle_get_stats(q, &st);
    CHECK(st.registered == 3 && st.pending_values == 3);
    /* at 5500 only a has been unchanged for the delay */
    drain(q, 5500);
    CHECK(lzval_dict(a) == SUB && lzval_dict(b) == 0 && lzval_dict(d) == 0);
    drain(q, 6000);
    CHECK(lzval_dict(b) == SUB && lzval_dict(d) == 0);
    /* a change moves a value to the end of the line */
    lzidle_clock(q, 6500);
    CHECK(lzval_append(d, "x", 1, NULL) == 0);
    drain(q, 7000);
    CHECK(lzval_dict(d) == 0);
    drain(q, 11500);
    CHECK(lzval_dict(d) == SUB);
    CHECK(same(a, m, n, NULL) && same(b, m, n, NULL));
    lzval_free(d);
    lzval_free(b);
    lzval_free(a);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

static void test_zero_delay_and_corrupt(void)
{
    size_t base = mem_used(), n = 300000;
    char *m = svc_new(n, 9);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_nodict(m, n, 65536);
    lzidle_stats st;

    lzidle_adopt(q, v);
    CHECK(lzval_debug_corrupt(v, 2) == 0);
    /* delay 0: due at once; the corrupt sub-block ends the conversion, counted as refused */
    while (lzidle_step(q, 0, 0, 64 * 1024) > 0)
        ;
    lzidle_get_stats(q, &st);
    CHECK(st.refused_values == 1 && st.converted_values == 0 && st.pending_values == 0);
    CHECK(lzval_dict(v) == 0);
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

/* Whether a and b store the same chunks, byte for byte. */
static int same_chunks(const lzval *a, const lzval *b)
{
    size_t i;
    int ok = lzval_nchunks(a) == lzval_nchunks(b) && lzval_dict(a) == lzval_dict(b);

    for (i = 0; ok && i < lzval_nchunks(a); i++) {
        const char *da, *db;
        size_t sa, sb, ra, rb;
        int ca, cb;
        lzval_chunk_stored(a, i, &da, &sa, &ra, &ca);
        lzval_chunk_stored(b, i, &db, &sb, &rb, &cb);
        ok = sa == sb && ra == rb && ca == cb && memcmp(da, db, sa) == 0;
    }
    return ok;
}

static void test_fast_values(void)
{
    size_t base = mem_used(), big = (1 << 20) + 333, small = 30000 + 7, rnd = 200000, more = 20000;
    size_t before_small, before_big;
    char *mb = svc_new(big, 21), *ms = svc_new(small + more, 22), *mr = rand_new(rnd, 23);
    lzidle *q = lzidle_new();
    lzval *vb = lzval_new_fast(mb, big, 65536, 8), *vs = lzval_new_fast(ms, small, 65536, 8);
    lzval *vr = lzval_new_fast(mr, rnd, 65536, 8), *u;
    lzidle_stats st;

    /* written fast: larger than at acceleration 1, and whole */
    u = lzval_new_nodict(mb, big, 65536);
    CHECK(lzval_accel(vb) == 8 && lzval_accel(u) == 1 && lzval_stored(vb) > lzval_stored(u) * 11 / 10);
    lzval_free(u);
    CHECK(same(vb, mb, big, NULL) && same(vs, ms, small, NULL) && same(vr, mr, rnd, NULL));
    lzidle_clock(q, 0);
    lzidle_adopt(q, vb);
    lzidle_adopt(q, vs);
    lzidle_adopt(q, vr);
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 3); /* all of them: 30 KB is too short for a dictionary, but fast */
    /* an append before the delay is compressed fast too, and the value waits again */
    CHECK(lzval_append(vs, ms + small, more, NULL) == 0);
    CHECK(lzval_accel(vs) == 8 && same(vs, ms, small + more, NULL));
    before_small = lzval_stored(vs);
    before_big = lzval_stored(vb);
    CHECK(drain(q, DELAY) > 0);
    /* the log text takes its dictionary: lzval_new's chunks exactly */
    u = lzval_new(mb, big, 65536);
    CHECK(lzval_dict(vb) == SUB && lzval_accel(vb) == 1 && same_chunks(vb, u) && same(vb, mb, big, NULL));
    lzval_free(u);
    /* the value appended to (now 50 KB, past the 48 KB a dictionary needs)
     * takes one if its samples say so, else none: either way it is re-encoded
     * at acceleration 1, as lzval_new or lzval_new_nodict would write it */
    u = lzval_dict(vs) ? lzval_new(ms, small + more, 65536) : lzval_new_nodict(ms, small + more, 65536);
    CHECK(lzval_accel(vs) == 1 && same_chunks(vs, u) && same(vs, ms, small + more, NULL));
    CHECK(lzval_stored(vs) < before_small);
    lzval_free(u);
    /* random bytes: the samples refuse a dictionary, and the re-encoding at
     * acceleration 1 stores them as lzval_new_nodict does */
    u = lzval_new_nodict(mr, rnd, 65536);
    CHECK(lzval_dict(vr) == 0 && lzval_accel(vr) == 1 && same_chunks(vr, u) && same(vr, mr, rnd, NULL));
    lzval_free(u);
    lzidle_get_stats(q, &st);
    CHECK(st.pending_values == 0 && st.refused_values == 1u + (lzval_dict(vs) == 0));
    CHECK(st.converted_values + st.recompressed_values == 3 && st.recompressed_values >= 1);
    CHECK(st.converted_bytes + st.recompressed_bytes == big + small + more + rnd);
    CHECK(st.saved_bytes > before_big - lzval_stored(vb));
    /* re-encoded values are left alone */
    CHECK(lzidle_step(q, 1000000, DELAY, 1 << 30) == 0);
    lzval_free(vb);
    lzval_free(vs);
    lzval_free(vr);
    CHECK(lzidle_free(q) == 0);
    free(mb);
    free(ms);
    free(mr);
    CHECK(mem_used() == base);
}

static void test_fast_short_recompressed(void)
{
    size_t base = mem_used(), n = 40000, before;
    char *m = svc_new(n, 31);
    lzidle *q = lzidle_new();
    lzval *v = lzval_new_fast(m, n, 65536, 16), *u = lzval_new_nodict(m, n, 65536);
    lzidle_stats st;

    lzidle_adopt(q, v);
    before = lzval_stored(v);
    CHECK(before > lzval_stored(u));
    CHECK(lzidle_step(q, DELAY - 1, DELAY, 1 << 30) == 0);
    CHECK(drain(q, DELAY) > 0);
    CHECK(lzval_dict(v) == 0 && lzval_accel(v) == 1 && same_chunks(v, u) && same(v, m, n, NULL));
    lzidle_get_stats(q, &st);
    CHECK(st.recompressed_values == 1 && st.recompressed_bytes == n && st.converted_values == 0);
    CHECK(st.refused_values == 0 && st.saved_bytes == before - lzval_stored(v));
    lzval_free(u);
    lzval_free(v);
    CHECK(lzidle_free(q) == 0);
    free(m);
    CHECK(mem_used() == base);
}

int main(void)
{
    RUN(test_converted_once_idle,
        "a value left unchanged for the delay is converted to dictionary mode, smaller, and reads back byte-identical");
    RUN(test_reads_during_conversion,
        "while a value is half converted its windows, counts, stored chunks and size are the old ones, and a cache "
        "filled before the swap stays right after it");
    RUN(test_change_drops_conversion,
        "an append or setrange during a conversion drops it, and the value is converted once idle again");
    RUN(test_free_drops_conversion,
        "freeing a value during its conversion drops it and the next value is converted; no memory is left behind");
    RUN(test_refused_not_retried,
        "a value the samples refuse is asked again only when it passes 96, 192 or 384 KB; values below 48 KB wait "
        "only once they grow past it");
    RUN(test_registered_appends_leave_dictionary,
        "appends to a registered value do not choose a dictionary, and a setrange on the dictionary detaches it "
        "(8 KB more) until the value is idle again and re-encoded without the copy");
    RUN(test_shared_detached_dict_waits,
        "a value with a detached dictionary whose chunks a copy shares is not re-encoded until the copy is gone "
        "and it changes again; a fast-written copy is re-encoded and the original keeps its bytes");
    RUN(test_conversion_after_splices_and_cache,
        "a value converted after splices left chunks of other lengths reads right through a cache that held its old chunks, "
        "and a detached dictionary is folded back");
    RUN(test_order_and_copies,
        "values are converted in the order of their last change, and a copy of a registered value is registered");
    RUN(test_zero_delay_and_corrupt,
        "with a delay of 0 a value is due at once, and a corrupt sub-block ends its conversion as refused");
    RUN(test_fast_short_recompressed,
        "a 40 KB value written at acceleration 16 is re-encoded once idle into exactly lzval_new_nodict's chunks");
    RUN(test_fast_values,
        "values written fast (and appended to fast) are re-encoded at acceleration 1 once idle: with the "
        "dictionary when it pays, else without, byte for byte what lzval_new or lzval_new_nodict would write");
    return TEST_DONE();
}
