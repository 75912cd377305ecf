/* test_intset.c -- unit tests of the sorted integer array (server/core/intset.c).
 *
 * The reference model is a plain sorted array of int64_t with linear search:
 * thousands of random adds and removes drive both, and after each step the
 * intset must hold exactly the model's members in order, in the smallest width
 * the largest magnitude ever added needs. Seeded: a failure replays. */
#include "intset.h"
#include "mem.h"
#include "test.h"

#include <stdint.h>
#include <string.h>

#define MAXM 4096
static int64_t model[MAXM];
static uint32_t nmodel;

static int model_find(int64_t v, uint32_t *pos)
{
    uint32_t i;
    for (i = 0; i < nmodel && model[i] < v; i++)
        ;
    *pos = i;
    return i < nmodel && model[i] == v;
}

static int model_add(int64_t v)
{
    uint32_t pos;
    if (model_find(v, &pos))
        return 0;
    memmove(model + pos + 1, model + pos, (nmodel - pos) * sizeof(int64_t));
    model[pos] = v;
    nmodel++;
    return 1;
}

static int model_remove(int64_t v)
{
    uint32_t pos;
    if (!model_find(v, &pos))
        return 0;
    memmove(model + pos, model + pos + 1, (nmodel - pos - 1) * sizeof(int64_t));
    nmodel--;
    return 1;
}

static int64_t random_value(void)
{
    switch (rng_below(4)) {
    case 0:
        return (int64_t)rng_below(200) - 100;
    case 1:
        return (int64_t)rng_below(70000) - 35000;
    case 2:
        return (int64_t)rng_below(1ull << 33) - (1ll << 32);
    default:
        return (int64_t)rng();
    }
}

static uint32_t width_needed(void)
{
    static uint32_t w = 2;
    uint32_t i;
    for (i = 0; i < nmodel; i++) {
        if (model[i] < INT32_MIN || model[i] > INT32_MAX)
            w = 8;
        else if ((model[i] < INT16_MIN || model[i] > INT16_MAX) && w < 4)
            w = 4;
    }
    return w;
}

static int same_as_model(const intset *s)
{
    uint32_t i;
    if (is_count(s) != nmodel)
        return 0;
    for (i = 0; i < nmodel; i++)
        if (is_get(s, i) != model[i])
            return 0;
    return 1;
}

static void test_random_against_model(void)
{
    intset *s = is_new();
    int step, bad = 0;

    rng_seed(13);
    nmodel = 0;
    for (step = 0; step < 20000 && !bad; step++) {
        int64_t v = random_value();
        int op = (int)rng_below(3);
        if (nmodel > 0 && rng_below(2))
            v = model[rng_below(nmodel)]; /* often a member */
        if (op < 2 && nmodel < MAXM) {
            CHECK(is_add(&s, v) == model_add(v));
        } else {
            CHECK(is_remove(&s, v) == model_remove(v));
        }
        CHECK(is_find(s, v, NULL) == (model_find(v, &(uint32_t){0})));
        if (!same_as_model(s) || s->width < width_needed())
            bad = 1;
    }
    CHECK(!bad);
    is_free(s);
}

static void test_width_grows_and_stays(void)
{
    intset *s = is_new();
    CHECK(s->width == 2);
    is_add(&s, 5);
    is_add(&s, -40000);
    CHECK(s->width == 4);
    CHECK(is_get(s, 0) == -40000 && is_get(s, 1) == 5);
    is_add(&s, INT64_MAX);
    CHECK(s->width == 8 && is_get(s, 2) == INT64_MAX);
    is_add(&s, INT64_MIN);
    CHECK(is_get(s, 0) == INT64_MIN);
    CHECK(is_remove(&s, INT64_MAX) == 1 && is_remove(&s, INT64_MIN) == 1);
    CHECK(s->width == 8 && is_count(s) == 2);
    is_free(s);
}

static void test_find_position(void)
{
    intset *s = is_new();
    uint32_t pos;
    is_add(&s, 10);
    is_add(&s, 30);
    CHECK(!is_find(s, 20, &pos) && pos == 1);
    CHECK(is_find(s, 30, &pos) && pos == 1);
    CHECK(!is_find(s, 99, &pos) && pos == 2);
    CHECK(is_remove(&s, 1LL << 40) == 0); /* wider than the set: not a member */
    is_free(s);
}

static void test_dup_independent(void)
{
    intset *s = is_new(), *d;
    is_add(&s, 1);
    is_add(&s, 2);
    d = is_dup(s);
    is_remove(&s, 1);
    CHECK(is_count(d) == 2 && is_get(d, 0) == 1);
    CHECK(is_count(s) == 1);
    is_free(s);
    is_free(d);
}

int main(void)
{
    RUN(test_random_against_model, "20,000 random adds and removes leave the intset equal to a sorted-array model");
    RUN(test_width_grows_and_stays, "the width grows to fit a wider value and stays when it is removed");
    RUN(test_find_position, "is_find reports a member's position or where it would go");
    RUN(test_dup_independent, "a copy does not change with the original");
    return TEST_DONE();
}
