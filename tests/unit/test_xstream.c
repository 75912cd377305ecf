/* test_xstream.c -- the stream's blocks (core/xstream.c) against a plain model:
 * an array of (id, fields, deleted) driven by the same random operations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "xstream.h"

#define MAXE 20000
#define MAXF 4

typedef struct m_ent {
    xs_id id;
    int nf;
    char f[MAXF][16], v[MAXF][40];
    int deleted;
} m_ent;

static m_ent model[MAXE];
static int nmodel;
static uint64_t mlive;

static void gen_fields(m_ent *e)
{
    static const char *names[] = {"a", "b", "field", "x"};
    int shape = (int)rng_below(4), i;

    e->nf = shape == 3 ? 1 + (int)rng_below(MAXF) : 2;
    for (i = 0; i < e->nf; i++) {
        if (shape == 3)
            snprintf(e->f[i], sizeof(e->f[i]), "%s%d", names[rng_below(4)], (int)rng_below(3));
        else
            snprintf(e->f[i], sizeof(e->f[i]), "%s", names[i]);
        if (rng_below(10) == 0) {
            size_t n = rng_below(sizeof(e->v[i]) - 1), k;
            for (k = 0; k < n; k++)
                e->v[i][k] = (char)('a' + rng_below(26));
            e->v[i][n] = '\0';
        } else {
            snprintf(e->v[i], sizeof(e->v[i]), "%llu", (unsigned long long)rng_below(1000));
        }
    }
}

static void do_append(xstream *s, xs_id id, size_t maxb, size_t maxe)
{
    m_ent *e = &model[nmodel++];
    xs_str fv[2 * MAXF];
    int i;

    e->id = id;
    e->deleted = 0;
    gen_fields(e);
    for (i = 0; i < e->nf; i++) {
        fv[2 * i].p = e->f[i];
        fv[2 * i].len = strlen(e->f[i]);
        fv[2 * i + 1].p = e->v[i];
        fv[2 * i + 1].len = strlen(e->v[i]);
    }
    xs_append(s, &id, fv, (size_t)(2 * e->nf), maxb, maxe);
    mlive++;
}

/* The stream's entries in [a, b] (both directions) equal the model's. */
static int same_range(const xstream *s, xs_id a, xs_id b, int rev, size_t count)
{
    xs_iter it;
    xs_id id;
    uint64_t nf;
    int i, step = rev ? -1 : 1, start = rev ? nmodel - 1 : 0;
    size_t seen = 0;

    xs_iter_init(&it, s, &a, &b, rev);
    for (i = start; i >= 0 && i < nmodel && seen < count; i += step) {
        const m_ent *e = &model[i];
        int k;
        if (e->deleted || xs_id_cmp(&e->id, &a) < 0 || xs_id_cmp(&e->id, &b) > 0)
            continue;
        if (!xs_next(&it, &id, &nf) || xs_id_cmp(&id, &e->id) != 0 || (int)nf != e->nf)
            return 0;
        for (k = 0; k < e->nf; k++) {
            const char *f, *v;
            size_t fl, vl;
            xs_field(&it, &f, &fl, &v, &vl);
            if (fl != strlen(e->f[k]) || memcmp(f, e->f[k], fl) || vl != strlen(e->v[k]) || memcmp(v, e->v[k], vl))
                return 0;
        }
        seen++;
    }
    if (seen < count && xs_next(&it, &id, &nf))
        return 0;
    return 1;
}

static xs_id random_id(void)
{
    xs_id id;
    if (nmodel == 0 || rng_below(8) == 0) {
        id.ms = rng_below(1000);
        id.seq = rng_below(4);
        return id;
    }
    id = model[rng_below((size_t)nmodel)].id;
    if (rng_below(3) == 0)
        id.seq += rng_below(3);
    return id;
}

/* Drop from the model the first n live entries (what a trim removed). */
static void model_drop_head(uint64_t n)
{
    int i;
    for (i = 0; i < nmodel && n > 0; i++)
        if (!model[i].deleted) {
            model[i].deleted = 1;
            mlive--;
            n--;
        }
}

static void random_run(uint64_t seed, size_t maxb, size_t maxe, int ops)
{
    xstream *s = xs_new();
    xs_id last = {1, 0};
    int op, ok = 1;

    rng_seed(seed);
    nmodel = 0;
    mlive = 0;
    for (op = 0; op < ops && ok && nmodel < MAXE; op++) {
        int r = (int)rng_below(100);
        if (r < 55) {
            if (rng_below(3) == 0) {
                last.ms += 1 + rng_below(300);
                last.seq = rng_below(2);
            } else {
                last.seq++;
            }
            do_append(s, last, maxb, maxe);
        } else if (r < 70) {
            xs_id id = random_id();
            int i, want = 0;
            for (i = 0; i < nmodel; i++)
                if (!model[i].deleted && xs_id_cmp(&model[i].id, &id) == 0) {
                    model[i].deleted = 1;
                    mlive--;
                    want = 1;
                }
            ok &= xs_delete(s, &id) == want;
        } else if (r < 75) {
            /* MAXLEN, exact or approximate, with or without a limit. */
            uint64_t maxlen = rng_below(mlive + 5), got;
            int approx = (int)rng_below(2);
            uint64_t limit = approx && rng_below(2) ? rng_below(300) : 0;
            got = xs_trim_maxlen(s, maxlen, approx, limit);
            if (!approx)
                ok &= got == (mlive > maxlen ? mlive - maxlen : 0);
            else
                ok &= got <= (mlive > maxlen ? mlive - maxlen : 0) && (!limit || got <= limit);
            model_drop_head(got);
        } else if (r < 80) {
            xs_id minid = random_id();
            uint64_t want = 0, got;
            int i, approx = (int)rng_below(2);
            for (i = 0; i < nmodel; i++)
                want += !model[i].deleted && xs_id_cmp(&model[i].id, &minid) < 0;
            got = xs_trim_minid(s, &minid, approx, 0);
            ok &= approx ? got <= want : got == want;
            model_drop_head(got);
        } else {
            xs_id a = random_id(), b = random_id();
            if (rng_below(10) == 0)
                a.ms = a.seq = 0;
            if (rng_below(10) == 0)
                b.ms = b.seq = UINT64_MAX;
            ok &= same_range(s, a, b, (int)rng_below(2), rng_below(3) ? (size_t)-1 : rng_below(20));
        }
        ok &= xs_len(s) == mlive;
    }
    {
        xs_id a = {0, 0}, b = {UINT64_MAX, UINT64_MAX};
        ok &= same_range(s, a, b, 0, (size_t)-1) && same_range(s, a, b, 1, (size_t)-1);
    }
    if (!ok)
        fprintf(stderr, "    seed %llu: mismatch at op %d\n", (unsigned long long)seed, op);
    CHECK(ok);
    xs_free(s);
}

static void test_random_small_blocks(void)
{
    uint64_t seed;
    for (seed = 1; seed <= 6; seed++)
        random_run(seed, 4096, 10, 4000);
}

static void test_random_default_blocks(void)
{
    uint64_t seed;
    for (seed = 100; seed <= 103; seed++)
        random_run(seed, 4096, 100, 8000);
}

static void test_random_byte_bound_blocks(void)
{
    uint64_t seed;
    for (seed = 200; seed <= 203; seed++)
        random_run(seed, 200, 0, 4000);
}

static void test_blocks_follow_redis_rules(void)
{
    xstream *s = xs_new();
    xs_str fv[2] = {{"f", 1}, {"v", 1}};
    xs_id id = {5, 0}, first, lastid;
    int i;

    for (i = 0; i < 250; i++) {
        id.seq = (uint64_t)i;
        xs_append(s, &id, fv, 2, 4096, 100);
    }
    CHECK(xs_nblocks(s) == 3);
    /* An approximate MAXLEN removes whole blocks only. */
    CHECK(xs_trim_maxlen(s, 120, 1, 0) == 100);
    CHECK(xs_len(s) == 150);
    CHECK(xs_trim_maxlen(s, 120, 0, 0) == 30);
    CHECK(xs_first(s, &first) == 0 && first.seq == 130);
    CHECK(xs_last(s, &lastid) == 0 && lastid.seq == 249);
    /* Deleting every live entry of a block removes it. */
    for (i = 200; i < 250; i++) {
        id.seq = (uint64_t)i;
        CHECK(xs_delete(s, &id) == 1);
    }
    CHECK(xs_nblocks(s) == 1);
    CHECK(xs_delete(s, &id) == 0);
    xs_free(s);
}

/* The block counts redis-server 7.0.15 reports (XINFO STREAM's
 * radix-tree-keys) for these entries with stream-node-max-bytes 100 and no
 * entry bound: blocks split where Redis's listpacks reach the bytes. */
static void test_blocks_split_at_redis_listpack_bytes(void)
{
    xstream *s = xs_new(), *t = xs_new();
    xs_str fv[2] = {{"f", 1}, {"v", 1}};
    char val[32];
    xs_id id = {5, 0};
    int i;

    for (i = 1; i <= 20; i++) {
        id.seq = (uint64_t)i;
        xs_append(s, &id, fv, 2, 100, 0);
    }
    CHECK(xs_nblocks(s) == 3);
    for (i = 1; i <= 20; i++) {
        xs_str g[4] = {{"name", 4}, {val, 0}, {"n", 1}, {"300", 3}};
        g[1].len = (size_t)snprintf(val, sizeof(val), "value-%d", i);
        id.ms = (uint64_t)i;
        id.seq = 1;
        xs_append(t, &id, g, 4, 100, 0);
    }
    CHECK(xs_nblocks(t) == 6);
    xs_free(s);
    xs_free(t);
}

static void test_dup_is_independent(void)
{
    xstream *s = xs_new(), *d;
    xs_str fv[4] = {{"name", 4}, {"ann", 3}, {"age", 3}, {"7", 1}};
    xs_id id = {1, 1}, lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX}, got;
    xs_iter it;
    uint64_t nf;
    const char *f, *v;
    size_t fl, vl;

    xs_append(s, &id, fv, 4, 4096, 100);
    d = xs_dup(s);
    CHECK(xs_delete(s, &id) == 1);
    CHECK(xs_len(s) == 0 && xs_len(d) == 1);
    xs_iter_init(&it, d, &lo, &hi, 1);
    CHECK(xs_next(&it, &got, &nf) == 1 && nf == 2 && got.ms == 1 && got.seq == 1);
    xs_field(&it, &f, &fl, &v, &vl);
    CHECK(fl == 4 && memcmp(f, "name", 4) == 0 && vl == 3 && memcmp(v, "ann", 3) == 0);
    CHECK(xs_mem(d) > 0);
    xs_free(s);
    xs_free(d);
}

int main(void)
{
    RUN(test_random_small_blocks,
        "appends, deletes, exact and approximate trims and ranges both ways match a model (10-entry blocks)");
    RUN(test_random_default_blocks, "the same random operations match the model with 100-entry blocks");
    RUN(test_random_byte_bound_blocks, "the same random operations match the model with blocks bounded by 200 bytes");
    RUN(test_blocks_follow_redis_rules,
        "blocks split at max entries, approximate trims drop whole blocks, an XDEL-emptied block goes");
    RUN(test_blocks_split_at_redis_listpack_bytes,
        "blocks split where Redis's listpacks reach stream-node-max-bytes (its block counts for two streams)");
    RUN(test_dup_is_independent, "a copy keeps its entries when the original changes");
    return TEST_DONE();
}
