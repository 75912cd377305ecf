/* test_pairlist.c -- unit tests of the compact (field, value) encoding
 * (server/core/pairlist.c), driven against a reference model: an array of
 * pairs in insertion order, with updates in place and deletions closing the
 * gap, as the encoding promises. Seeded, so a failure replays. */
#include "pairlist.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

#define NF 40
#define CAP (1 << 20)

typedef struct mpair {
    char f[300], v[300];
    size_t flen, vlen;
} mpair;

static mpair model[NF];
static size_t nmodel;
static char buf[CAP];
static size_t blen;

/* A field id's bytes: NULs and lengths that cross the one-byte varint (127). */
static size_t field_of(unsigned id, char *out)
{
    size_t n = id % 5 == 0 ? 130 + id : id % 7;
    memset(out, 'a' + id % 26, n);
    if (n > 2)
        out[1] = '\0';
    memcpy(out, &id, n < sizeof(id) ? n : sizeof(id));
    return n ? n : 0;
}

static long model_find(const char *f, size_t flen)
{
    for (size_t i = 0; i < nmodel; i++)
        if (model[i].flen == flen && memcmp(model[i].f, f, flen) == 0)
            return (long)i;
    return -1;
}

/* The buffer decodes to exactly the model, in order. */
static int agrees(void)
{
    size_t off = PL_HDR, i = 0;
    pl_pair p;

    if (pl_count(buf) != nmodel)
        return 0;
    while (off < blen) {
        off = pl_decode(buf, off, &p);
        if (i >= nmodel || p.flen != model[i].flen || p.vlen != model[i].vlen || memcmp(p.f, model[i].f, p.flen) != 0 ||
            memcmp(p.v, model[i].v, p.vlen) != 0)
            return 0;
        i++;
    }
    return off == blen && i == nmodel;
}

static void test_random_against_model(void)
{
    int ok = 1;
    rng_seed(7);
    blen = pl_init(buf);
    nmodel = 0;
    for (int step = 0; step < 20000 && ok; step++) {
        char f[300], v[300];
        unsigned id = (unsigned)rng_below(NF);
        size_t flen = field_of(id, f), vlen = rng_below(4) == 0 ? 128 + rng_below(100) : rng_below(20);
        long at = model_find(f, flen);
        pl_pair p;
        int found = pl_find(buf, blen, f, flen, &p);

        for (size_t i = 0; i < vlen; i++)
            v[i] = (char)rng();
        if (found != (at >= 0)) {
            ok = 0;
            break;
        }
        if (found && (p.vlen != model[at].vlen || memcmp(p.v, model[at].v, p.vlen) != 0))
            ok = 0;
        if (rng_below(3) == 0) {
            if (found) {
                blen = pl_del(buf, blen, &p);
                memmove(&model[at], &model[at + 1], (nmodel - (size_t)at - 1) * sizeof(mpair));
                nmodel--;
            }
        } else {
            size_t want = pl_set_len(blen, found ? &p : NULL, flen, vlen);
            blen = pl_set(buf, blen, found ? &p : NULL, f, flen, v, vlen);
            if (want != blen)
                ok = 0;
            if (at < 0)
                at = (long)nmodel++;
            memcpy(model[at].f, f, flen);
            model[at].flen = flen;
            memcpy(model[at].v, v, vlen);
            model[at].vlen = vlen;
        }
        if (!agrees())
            ok = 0;
    }
    CHECK(ok);
}

static void test_index_and_sizes(void)
{
    pl_pair p;
    blen = pl_init(buf);
    CHECK(blen == PL_HDR && pl_count(buf) == 0);
    CHECK(pl_pair_size(1, 1) == 4);
    CHECK(pl_pair_size(127, 0) == 129);
    CHECK(pl_pair_size(128, 0) == 131);
    CHECK(pl_pair_size(16384, 0) == 16388);
    blen = pl_set(buf, blen, NULL, "a", 1, "1", 1);
    blen = pl_set(buf, blen, NULL, "b", 1, "22", 2);
    blen = pl_set(buf, blen, NULL, "c", 1, "", 0);
    pl_index(buf, 1, &p);
    CHECK(p.flen == 1 && p.f[0] == 'b' && p.vlen == 2);
    pl_index(buf, 2, &p);
    CHECK(p.flen == 1 && p.f[0] == 'c' && p.vlen == 0);
    CHECK(pl_find(buf, blen, "a", 1, &p) && p.off == PL_HDR);
    blen = pl_set(buf, blen, &p, "a", 1, "a longer value", 14); /* keeps its place */
    pl_index(buf, 0, &p);
    CHECK(p.flen == 1 && p.f[0] == 'a' && p.vlen == 14);
    CHECK(!pl_find(buf, blen, "d", 1, &p) && !pl_find(buf, blen, "", 0, &p));
}

int main(void)
{
    RUN(test_random_against_model,
        "20,000 random sets and deletes (fields with NULs, lengths across the 1-byte varint) decode to the model, in insertion order");
    RUN(test_index_and_sizes, "pair sizes, lookup by index, and an updated field keeps its place");
    return TEST_DONE();
}
