/* test_zsl.c -- the skiplist with spans and its member index against the
 * reference model. */
#include <string.h>

#include "mem.h"
#include "test.h"
#include "zmodel.h"
#include "zset/zsl.h"

/* Every node of z, walked both ways, equals the model's, with ranks both ways. */
static int same_as_model(zsl *z, int ranks)
{
    zsl_node *n;
    size_t i = 0;

    if (zsl_count(z) != zm_n || ht_count(&z->idx) != zm_n)
        return 0;
    for (n = zsl_first(z); n; n = zsl_next(n), i++) {
        if (i >= zm_n || zsl_mlen(n) != zm[i].len || memcmp(zsl_member(n), zm[i].m, zm[i].len) != 0 ||
            memcmp(&n->score, &zm[i].score, 8) != 0)
            return 0;
        if (ranks && (zsl_at(z, i) != n || zsl_rank(z, n) != i))
            return 0;
        if (zsl_find(z, zm[i].m, zm[i].len) != n)
            return 0;
    }
    if (i != zm_n)
        return 0;
    for (n = zsl_last(z); n; n = zsl_prev(n)) {
        i--;
        if (zsl_mlen(n) != zm[i].len || memcmp(zsl_member(n), zm[i].m, zm[i].len) != 0)
            return 0;
    }
    return i == 0;
}

static void test_random_ops(void)
{
    zsl *z = zsl_new(42);
    char buf[512];
    int step, ok = 1;

    rng_seed(2);
    zm_n = 0;
    for (step = 0; step < 30000 && ok; step++) {
        size_t len = zm_member(buf, 2000);
        long mi = zm_find(buf, len);
        zsl_node *n = zsl_find(z, buf, len);
        int op = (int)rng_below(10);

        if ((mi < 0) != (n == NULL) || (n && zsl_rank(z, n) != (size_t)mi)) {
            ok = 0;
            break;
        }
        if (op < 5) {
            double s = zm_score();
            if (n) {
                zsl_rescore(z, n, s);
                zm_del((size_t)mi);
            } else {
                zsl_insert(z, buf, len, s);
            }
            zm_add(buf, len, s);
        } else if (op < 7 && n) {
            zsl_delete(z, n);
            zm_del((size_t)mi);
        } else if (op == 7 && zm_n) {
            size_t a = rng_below(zm_n);
            zsl_node *x = zsl_at(z, a);
            if (!x || zsl_mlen(x) != zm[a].len || memcmp(zsl_member(x), zm[a].m, zm[a].len) != 0)
                ok = 0;
        } else {
            double x = zm_score();
            zsl_node *o;
            size_t r = zsl_lower_bound(z, zm_pred_score, &x, &o), i = 0;
            while (i < zm_n && zm[i].score < x)
                i++;
            if (r != i || (i == zm_n) != (o == NULL) || (o && o != zsl_at(z, i)))
                ok = 0;
        }
        if (step % 1009 == 0 && !same_as_model(z, 1))
            ok = 0;
    }
    CHECK(ok);
    CHECK(same_as_model(z, 1));
    zsl_free(z);
}

static void test_memory_returns(void)
{
    size_t before = mem_used(), i;
    zsl *z = zsl_new(7);
    char buf[32];

    for (i = 0; i < 5000; i++) {
        size_t n = (size_t)snprintf(buf, sizeof(buf), "member:%zu", i);
        zsl_insert(z, buf, n, (double)(i % 100));
    }
    CHECK(zsl_bytes(z) > 5000 * 40);
    for (i = 0; i < 2500; i++)
        zsl_delete(z, zsl_first(z));
    CHECK(zsl_count(z) == 2500 && zsl_rank(z, zsl_last(z)) == 2499);
    zsl_free(z);
    CHECK(mem_used() == before);
}

static void test_free_in_steps(void)
{
    size_t before = mem_used(), last, i;
    zsl *z = zsl_new(9);
    char buf[32];
    int steps = 0, ok = 1;

    for (i = 0; i < 5000; i++) {
        size_t n = (size_t)snprintf(buf, sizeof(buf), "member:%zu", i);
        zsl_insert(z, buf, n, (double)(i % 100));
    }
    last = mem_used();
    while (!zsl_free_some(z, 100)) {
        if (mem_used() >= last)
            ok = 0;
        last = mem_used();
        steps++;
    }
    CHECK(ok);
    CHECK(steps == 49); /* 50 steps of 100 nodes: the last one also frees the set */
    CHECK(mem_used() == before);
}

int main(void)
{
    RUN(test_random_ops,
        "30,000 random inserts, rescores, deletes, rank lookups and lower bounds agree with the model, ranks and the index included");
    RUN(test_memory_returns,
        "5,000 members inserted and freed give back every byte, and ranks stay right after deleting the first half");
    RUN(test_free_in_steps,
        "freeing 5,000 members 100 at a time takes 50 steps, each giving memory back, then every byte");
    return TEST_DONE();
}
