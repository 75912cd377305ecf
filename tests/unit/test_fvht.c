/* test_fvht.c -- unit tests of the field/value hash table (server/core/fvht.c)
 * against a reference model (an array indexed by field id), through random
 * sets, replacements with longer and shorter values, deletions, a full SCAN
 * and a copy. Seeded, so a failure replays. */
#include "fvht.h"
#include "mem.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define NF 3000

static struct {
    int in;
    size_t vlen;
    char v[80];
} model[NF];
static int seen[NF];

static size_t field_of(unsigned id, char *out)
{
    size_t n = 4 + id % 3;
    memset(out, 0, n);
    memcpy(out, &id, sizeof(id));
    return n;
}

static unsigned id_of(const fv_node *n)
{
    unsigned id;
    memcpy(&id, fv_field(n), sizeof(id));
    return id;
}

static int check_one(void *ctx, const fv_node *n)
{
    unsigned id = id_of(n);
    (void)ctx;
    if (id >= NF || !model[id].in || fv_vlen(n) != model[id].vlen || memcmp(fv_value(n), model[id].v, fv_vlen(n)) != 0)
        return 1;
    return 0;
}

static void mark(void *ctx, const fv_node *n)
{
    (void)ctx;
    seen[id_of(n)] = 1;
}

static void test_random_against_model(void)
{
    fvht *t = fvht_new(42), *d;
    size_t count = 0, logical = 0;
    uint64_t cur = 0, r = 99;
    int ok = 1;

    rng_seed(11);
    memset(model, 0, sizeof(model));
    for (int step = 0; step < 60000; step++) {
        char f[8], v[80];
        unsigned id = (unsigned)rng_below(NF);
        size_t flen = field_of(id, f), vlen = rng_below(80);
        for (size_t i = 0; i < vlen; i++)
            v[i] = (char)rng();
        if (model[id].in)
            logical -= flen + model[id].vlen;
        if (rng_below(3) == 0) {
            if (fvht_del(t, f, flen) != model[id].in)
                ok = 0;
            count -= (size_t)model[id].in;
            model[id].in = 0;
        } else {
            if (fvht_set(t, f, flen, v, vlen) != !model[id].in)
                ok = 0;
            count += (size_t)!model[id].in;
            model[id].in = 1;
            model[id].vlen = vlen;
            memcpy(model[id].v, v, vlen);
        }
        if (model[id].in)
            logical += flen + model[id].vlen;
        if (fvht_count(t) != count || t->logical != logical)
            ok = 0;
    }
    CHECK(ok);
    CHECK(fvht_foreach(t, check_one, NULL) == 0);
    for (unsigned id = 0; id < NF; id++) {
        char f[8];
        size_t flen = field_of(id, f);
        fv_node *n = fvht_find(t, f, flen);
        if ((n != NULL) != model[id].in)
            ok = 0;
    }
    CHECK(ok);
    memset(seen, 0, sizeof(seen));
    do
        cur = fvht_scan(t, cur, mark, NULL);
    while (cur);
    for (unsigned id = 0; id < NF; id++)
        if (model[id].in && !seen[id])
            ok = 0;
    CHECK(ok);
    CHECK(count == 0 || model[id_of(fvht_random(t, &r))].in);
    d = fvht_dup(t);
    CHECK(fvht_count(d) == count && fvht_foreach(d, check_one, NULL) == 0 && d->logical == logical);
    CHECK(fvht_mem(d) >= count * (sizeof(fv_node) + 4));
    fvht_free(d);
    fvht_free(t);
}

static void test_free_returns_memory(void)
{
    size_t before = mem_used();
    fvht *t = fvht_new(1);
    for (unsigned i = 0; i < 1000; i++) {
        char f[8];
        fvht_set(t, f, field_of(i, f), "value", 5);
    }
    CHECK(mem_used() > before);
    fvht_free(t);
    fvht_free(NULL);
    CHECK(mem_used() == before);
}

static void test_free_in_steps(void)
{
    size_t before = mem_used(), last;
    fvht *t = fvht_new(3);
    uint64_t cursor = 0, left = 5000;
    int steps = 0, ok = 1;

    for (unsigned i = 0; i < 5000; i++) {
        char f[8];
        fvht_set(t, f, field_of(i, f), "value", 5);
    }
    last = mem_used();
    while (!fvht_free_some(t, &cursor, 64)) {
        uint64_t now = fvht_count(t);
        if (now > left || left - now > 64 || mem_used() > last)
            ok = 0;
        left = now;
        last = mem_used();
        steps++;
    }
    CHECK(ok);
    CHECK(steps >= 5000 / 64 && steps < 5000);
    CHECK(mem_used() == before);
}

int main(void)
{
    RUN(test_random_against_model,
        "60,000 random sets, replacements and deletes agree with the model (find, foreach, a full SCAN, random, a copy, the logical bytes)");
    RUN(test_free_returns_memory, "freeing a table gives back every byte it held");
    RUN(test_free_in_steps, "freeing 5,000 fields 64 at a time frees at most 64 per step, then every byte");
    return TEST_DONE();
}
