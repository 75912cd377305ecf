/* test_spmeta.c -- an entry's metadata map (spmeta.c), alone.
 *
 * Random edits (sets, deletes, clears) checked against a small model (an array
 * of fields kept sorted here); the bounds (32 fields, 4096 bytes, field names);
 * copies and equality; and nothing left allocated. */
#include "mem.h"
#include "sp/spmeta.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t base;

/* The model: at most 64 fields of names "f<n>" and values of a few bytes. */
typedef struct model {
    char f[64][8], v[64][16];
    size_t vlen[64];
    int have[64];
} model;

static int model_count(const model *m)
{
    int i, n = 0;
    for (i = 0; i < 64; i++)
        n += m->have[i];
    return n;
}

static void test_random_edits(void)
{
    model m;
    spmeta *cur = NULL;
    int round, i;

    memset(&m, 0, sizeof(m));
    for (i = 0; i < 64; i++)
        snprintf(m.f[i], sizeof(m.f[i]), "f%d", i);
    for (round = 0; round < 3000; round++) {
        spmeta_kv set[4], del[3];
        size_t nset = rng_below(4), ndel = rng_below(3), k;
        int clear = rng_below(20) == 0, rc, n = 0;
        model next = m;
        spmeta *out;

        if (clear)
            memset(next.have, 0, sizeof(next.have));
        for (k = 0; k < ndel; k++) {
            int x = (int)rng_below(40);
            del[k].f = m.f[x];
            del[k].flen = strlen(m.f[x]);
        }
        for (k = 0; k < ndel; k++)
            next.have[atoi(del[k].f + 1)] = 0;
        for (k = 0; k < nset; k++) {
            int x = (int)rng_below(40);
            size_t vl = rng_below(16);
            memset(next.v[x], 'a' + (int)rng_below(26), vl);
            next.vlen[x] = vl;
            next.have[x] = 1;
            set[k].f = m.f[x];
            set[k].flen = strlen(m.f[x]);
            set[k].v = next.v[x];
            set[k].vlen = vl;
        }
        /* set values point into next, which stays alive through the edit */
        rc = spmeta_edit(cur, clear, set, nset, del, ndel, &out);
        /* The edit's order: deletes are applied after the old fields and before the sets win. */
        for (k = 0; k < ndel; k++) {
            size_t j;
            for (j = 0; j < nset; j++)
                if (strcmp(set[j].f, del[k].f) == 0)
                    break;
            if (j < nset)
                next.have[atoi(del[k].f + 1)] = 0; /* del removes it whatever set says */
        }
        n = model_count(&next);
        if (n > SPMETA_MAX_FIELDS) {
            CHECK(rc == SPMETA_TOO_MANY && out == NULL);
            continue;
        }
        CHECK(rc == SPMETA_OK);
        CHECK((int)spmeta_count(out) == n);
        for (i = 0; i < 64; i++) {
            size_t vl;
            const char *v = spmeta_get(out, m.f[i], strlen(m.f[i]), &vl);
            CHECK(!!v == next.have[i]);
            if (v && next.have[i])
                CHECK(vl == next.vlen[i] && memcmp(v, next.v[i], vl) == 0);
        }
        for (k = 1; k < spmeta_count(out); k++) {
            spmeta_kv a, b;
            spmeta_at(out, k - 1, &a);
            spmeta_at(out, k, &b);
            CHECK(strncmp(a.f, b.f, a.flen < b.flen ? a.flen : b.flen) <= 0);
        }
        {
            spmeta *d = spmeta_dup(out);
            CHECK(spmeta_equal(d, out) && spmeta_stored(d) == spmeta_stored(out));
            spmeta_free(d);
        }
        spmeta_free(cur);
        cur = out;
        m = next;
    }
    spmeta_free(cur);
    CHECK(mem_used() == base);
}

static void test_bounds(void)
{
    char names[33][8], big[SPMETA_MAX_BYTES + 1];
    spmeta_kv kv[33];
    spmeta *m = NULL, *m2 = NULL;
    int i;

    for (i = 0; i < 33; i++) {
        snprintf(names[i], sizeof(names[i]), "n%02d", i);
        kv[i].f = names[i];
        kv[i].flen = 3;
        kv[i].v = "";
        kv[i].vlen = 0;
    }
    CHECK(spmeta_edit(NULL, 0, kv, 32, NULL, 0, &m) == SPMETA_OK && spmeta_count(m) == 32);
    CHECK(spmeta_edit(m, 0, kv + 32, 1, NULL, 0, &m2) == SPMETA_TOO_MANY && m2 == NULL);
    CHECK(spmeta_edit(m, 0, kv + 32, 1, kv, 1, &m2) == SPMETA_OK && spmeta_count(m2) == 32);
    spmeta_free(m2);
    spmeta_free(m);
    memset(big, 'x', sizeof(big));
    kv[0].v = big;
    kv[0].vlen = SPMETA_MAX_BYTES - 3;
    CHECK(spmeta_edit(NULL, 0, kv, 1, NULL, 0, &m) == SPMETA_OK && spmeta_bytes(m) == SPMETA_MAX_BYTES);
    kv[1].vlen = 0;
    CHECK(spmeta_edit(m, 0, kv + 1, 1, NULL, 0, &m2) == SPMETA_TOO_BIG && m2 == NULL);
    spmeta_free(m);
    CHECK(spmeta_edit(NULL, 1, NULL, 0, NULL, 0, &m) == SPMETA_OK && m == NULL);
    CHECK(spmeta_count(NULL) == 0 && spmeta_stored(NULL) == 0 && spmeta_equal(NULL, NULL));
    CHECK(spmeta_field_valid("source", 6) && spmeta_field_valid("a/b.c:d-e_f", 11));
    CHECK(!spmeta_field_valid("", 0) && !spmeta_field_valid("a b", 3) && !spmeta_field_valid("\xc3\xa9", 2));
    memset(big, 'f', 65);
    CHECK(spmeta_field_valid(big, 64) && !spmeta_field_valid(big, 65));
    CHECK(mem_used() == base);
}

int main(void)
{
    base = mem_used();
    RUN(test_random_edits,
        "3000 random sets, deletes and clears agree with a model; fields stay sorted; copies are equal");
    RUN(test_bounds, "32 fields and 4096 bytes are the bounds, a refused edit builds nothing, field names are checked");
    return TEST_DONE();
}
