/* test_zlp.c -- the compact sorted set against the reference model. */
#include <string.h>

#include "test.h"
#include "zmodel.h"
#include "zset/zlp.h"

/* Every entry of z, walked both ways, equals the model's, and ranks agree. */
static int same_as_model(const zlp *z)
{
    size_t off, i = 0;

    if (zlp_count(z) != zm_n)
        return 0;
    for (off = zlp_first(z); off != ZLP_END; off = zlp_next(z, off), i++) {
        size_t len;
        double s;
        const char *m = zlp_get(z, off, &len, &s);
        if (i >= zm_n || len != zm[i].len || memcmp(m, zm[i].m, len) != 0 || memcmp(&s, &zm[i].score, 8) != 0)
            return 0;
        if (zlp_at(z, i) != off)
            return 0;
    }
    if (i != zm_n)
        return 0;
    for (off = zlp_last(z); off != ZLP_END; off = zlp_prev(z, off)) {
        size_t len;
        double s;
        const char *m = zlp_get(z, off, &len, &s);
        i--;
        if (len != zm[i].len || memcmp(m, zm[i].m, len) != 0)
            return 0;
    }
    return i == 0;
}

static void test_random_ops(void)
{
    zlp *z = zlp_new();
    char buf[512];
    int step, ok = 1;

    rng_seed(1);
    zm_n = 0;
    for (step = 0; step < 20000 && ok; step++) {
        size_t len = zm_member(buf, 300);
        long mi = zm_find(buf, len);
        size_t rank = 0, off = zlp_find(z, buf, len, &rank);
        int op = (int)rng_below(10);

        if ((mi < 0) != (off == ZLP_END) || (mi >= 0 && rank != (size_t)mi)) {
            ok = 0;
            break;
        }
        if (op < 5) { /* add or rescore (delete then insert, as the type does) */
            double s = zm_score();
            if (mi >= 0) {
                zlp_delete(z, off, 1);
                zm_del((size_t)mi);
            }
            z = zlp_insert(z, buf, len, s);
            zm_add(buf, len, s);
        } else if (op < 7 && mi >= 0) {
            zlp_delete(z, off, 1);
            zm_del((size_t)mi);
        } else if (op == 7 && zm_n) { /* delete a range of ranks */
            size_t a = rng_below(zm_n), cnt = rng_below(4);
            size_t k = cnt;
            zlp_delete(z, zlp_at(z, a), cnt);
            while (k-- && a < zm_n)
                zm_del(a);
        } else { /* lower bound on a score */
            double x = zm_score(), dummy;
            size_t o2, r = zlp_lower_bound(z, zm_pred_score, &x, &o2), i = 0;
            (void)dummy;
            while (i < zm_n && zm[i].score < x)
                i++;
            if (r != i || (i == zm_n) != (o2 == ZLP_END) || (o2 != ZLP_END && o2 != zlp_at(z, i)))
                ok = 0;
        }
        if (step % 97 == 0 && !same_as_model(z))
            ok = 0;
    }
    CHECK(ok);
    CHECK(same_as_model(z));
    zlp_free(z);
}

static void test_dup(void)
{
    zlp *z = zlp_new(), *d;
    size_t len;
    double s;

    z = zlp_insert(z, "b", 1, 2);
    z = zlp_insert(z, "a", 1, 2);
    z = zlp_insert(z, "c", 1, 1);
    d = zlp_dup(z);
    zlp_delete(z, 0, 3);
    CHECK(zlp_count(z) == 0 && zlp_first(z) == ZLP_END && zlp_last(z) == ZLP_END);
    CHECK(zlp_count(d) == 3);
    CHECK(memcmp(zlp_get(d, zlp_first(d), &len, &s), "c", 1) == 0 && s == 1);
    CHECK(memcmp(zlp_get(d, zlp_at(d, 1), &len, &s), "a", 1) == 0 && s == 2);
    zlp_free(z);
    zlp_free(d);
}

static void test_shrink(void)
{
    zlp *z = zlp_new();
    char buf[32];
    size_t i, len, big;
    double sc;

    for (i = 0; i < 200; i++) {
        int n = snprintf(buf, sizeof(buf), "member-%03zu", i);
        z = zlp_insert(z, buf, (size_t)n, (double)i);
    }
    big = z->cap;
    z = zlp_shrink(z);
    CHECK(z->cap == big); /* full enough: kept */
    zlp_delete(z, zlp_at(z, 0), 190);
    z = zlp_shrink(z);
    CHECK(z->cap < big / 4 && z->cap >= z->used);
    CHECK(zlp_count(z) == 10 && memcmp(zlp_get(z, zlp_first(z), &len, &sc), "member-190", 10) == 0 && sc == 190);
    zlp_delete(z, 0, 10);
    z = zlp_shrink(z);
    CHECK(z->cap == 64 && zlp_count(z) == 0);
    zlp_free(z);
}

int main(void)
{
    RUN(test_random_ops,
        "20,000 random inserts, rescores, deletes, range deletes and lower bounds agree with the model, walked both ways");
    RUN(test_dup, "equal scores order by member bytes, and a copy is independent of its original");
    RUN(test_shrink,
        "a set left holding under half its buffer shrinks to what it holds (64 bytes at least), members intact");
    return TEST_DONE();
}
