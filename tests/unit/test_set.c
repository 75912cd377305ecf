/* test_set.c -- unit tests of the set type's API (server/types/set/set.c).
 *
 * The reference model is an array of member strings with linear search, plus
 * the encoding Redis 7.0 would have: an intset while every member is an
 * integer and the count has never passed the limit, a hash table for good
 * after. Thousands of seeded random adds and removes drive a set and the model
 * (with a small set-max-intset-entries, so conversions happen often); after
 * each step the cardinality, the membership of the member touched, the
 * encoding, and (every so often) the whole iteration, a full scan and a copy
 * must agree with the model. Memory returns to where it was at the end. */
#include "arena.h"
#include "keyspace/db.h"
#include "keyspace/lazyfree.h"
#include "keyspace/type.h"
#include "mem.h"
#include "test.h"
#include "types/set/set.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAXM 4000
static char model[MAXM][24];
static int nmodel;
static int model_ht; /* the model's encoding is the hash table */

static int model_find(const char *m)
{
    int i;
    for (i = 0; i < nmodel; i++)
        if (strcmp(model[i], m) == 0)
            return i;
    return -1;
}

static int is_int(const char *m)
{
    long long v;
    return str_to_ll(m, strlen(m), &v) == 0;
}

static void random_member(char *buf)
{
    static const char *const odd[] = {"-0", "007", " 1", "+1", "", "9223372036854775808", "abc", "x y"};
    uint64_t r = rng_below(10);
    if (r < 6)
        snprintf(buf, 24, "%lld", (long long)rng_below(400) - 200);
    else if (r < 7)
        snprintf(buf, 24, "%lld", (long long)(rng() >> (rng_below(64))) * (rng_below(2) ? 1 : -1));
    else if (r < 8)
        snprintf(buf, 24, "%s", odd[rng_below(8)]);
    else
        snprintf(buf, 24, "m%d", (int)rng_below(300));
}

typedef struct seen_ctx {
    int hits[MAXM];
    int strangers;
} seen_ctx;

static void seen_one(void *ctx, const set_elem *m)
{
    seen_ctx *s = ctx;
    char buf[24];
    int i;
    if (m->len >= sizeof(buf)) {
        s->strangers++;
        return;
    }
    memcpy(buf, m->p, m->len);
    buf[m->len] = '\0';
    i = model_find(buf);
    if (i < 0)
        s->strangers++;
    else
        s->hits[i]++;
}

/* Iteration, a full scan and a copy each give exactly the model's members. */
static int whole_matches(dbent *e)
{
    seen_ctx it_seen, scan_seen;
    set_iter it;
    set_elem m;
    uint64_t cur = 0;
    int i, ok = 1;
    dbent *copy = set_tmp_new();

    memset(&it_seen, 0, sizeof(it_seen));
    memset(&scan_seen, 0, sizeof(scan_seen));
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m)) {
        seen_one(&it_seen, &m);
        set_add(copy, m.p, m.len);
    }
    do
        cur = set_scan(e, cur, 3, seen_one, &scan_seen);
    while (cur);
    for (i = 0; i < nmodel; i++)
        if (it_seen.hits[i] != 1 || scan_seen.hits[i] < 1 || !set_ismember(copy, model[i], strlen(model[i])))
            ok = 0;
    if (it_seen.strangers || scan_seen.strangers || set_card(copy) != (uint64_t)nmodel)
        ok = 0;
    set_tmp_free(copy);
    return ok;
}

static void test_random_against_model(void)
{
    size_t mem0 = mem_used();
    arena *a = arena_new();
    db d;
    dbent *e = NULL;
    int step, bad_card = 0, bad_member = 0, bad_enc = 0, bad_whole = 0;
    uint64_t rs = 7;

    set_type_register(99);
    db_init(&d, 0, a, 42);
    set_max_intset_entries = 16;
    rng_seed(5);
    nmodel = 0;
    for (step = 0; step < 30000; step++) {
        char m[24];
        int i, add = rng_below(3) != 0 || nmodel == 0;

        random_member(m);
        if (!add && rng_below(2))
            memcpy(m, model[rng_below((size_t)nmodel)], 24);
        if (add) {
            i = model_find(m);
            if (!e) {
                e = set_create(&d, "k", 1, m, strlen(m));
                model_ht = !is_int(m);
            }
            if (set_add(e, m, strlen(m)) != (i < 0))
                bad_member++;
            if (i < 0 && nmodel < MAXM) {
                memcpy(model[nmodel++], m, 24);
                if (!is_int(m) || nmodel > set_max_intset_entries)
                    model_ht = 1;
            }
        } else if (e) {
            i = model_find(m);
            if (set_remove(e, m, strlen(m)) != (i >= 0))
                bad_member++;
            if (i >= 0)
                memcpy(model[i], model[--nmodel], 24);
            if (nmodel == 0) {
                db_delete_entry(&d, e);
                e = NULL;
                continue;
            }
        }
        if (!e)
            continue;
        if (set_card(e) != (uint64_t)nmodel)
            bad_card++;
        if (set_ismember(e, m, strlen(m)) != (model_find(m) >= 0))
            bad_member++;
        if (strcmp(set_encoding(e), model_ht ? "hashtable" : "intset") != 0)
            bad_enc++;
        if (step % 97 == 0) {
            set_elem r;
            set_random(e, &rs, &r);
            if (!set_ismember(e, r.p, r.len) || !whole_matches(e))
                bad_whole++;
        }
        if (step % 1000 == 999 && nmodel > 0) {
            /* SPOP's rebuild: the hash table of only integers, within the limit, becomes an intset. */
            int all_int = 1;
            for (i = 0; i < nmodel; i++)
                all_int &= is_int(model[i]);
            set_reencode_small(e);
            if (all_int && nmodel <= set_max_intset_entries)
                model_ht = 0;
            if (strcmp(set_encoding(e), model_ht ? "hashtable" : "intset") != 0 || !whole_matches(e))
                bad_enc++;
        }
    }
    if (bad_card || bad_member || bad_enc || bad_whole)
        fprintf(stderr, "    card %d member %d enc %d whole %d (of %d members at the end)\n", bad_card, bad_member,
                bad_enc, bad_whole, nmodel);
    CHECK(bad_card == 0);
    CHECK(bad_member == 0);
    CHECK(bad_enc == 0);
    CHECK(bad_whole == 0);
    db_release(&d);
    lazyfree_drain(); /* large sets deleted are freed in steps (keyspace/lazyfree.h) */
    arena_destroy(a);
    set_max_intset_entries = 512;
    CHECK(mem_used() == mem0);
}

static void test_store_replaces(void)
{
    size_t mem0 = mem_used();
    arena *a = arena_new();
    db d;
    dbent *e, *t;

    set_type_register(99);
    db_init(&d, 0, a, 42);
    e = set_create(&d, "dst", 3, "x", 1);
    set_add(e, "x", 1);
    e = db_set_expire(&d, e, 1LL << 50);
    t = set_tmp_new();
    set_add(t, "1", 1);
    set_add(t, "2", 1);
    e = set_tmp_store(&d, "dst", 3, t);
    CHECK(set_card(e) == 2 && strcmp(set_encoding(e), "intset") == 0);
    CHECK(db_get_expire(&d, e) == -1);
    CHECK(!set_ismember(e, "x", 1) && set_ismember(e, "2", 1));
    db_release(&d);
    arena_destroy(a);
    CHECK(mem_used() == mem0);
}

int main(void)
{
    RUN(test_random_against_model,
        "30,000 random adds and removes keep a set equal to a model: members, count, encoding and its conversions");
    RUN(test_store_replaces, "a detached result stored over a key replaces its value and its TTL");
    return TEST_DONE();
}
