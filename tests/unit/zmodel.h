/* zmodel.h -- the reference model the sorted-set structures are tested
 * against: an array of (member, score) kept sorted by plain insertion, every
 * operation written the obvious way. Members are short strings "m<number>" or
 * long ones (the number repeated), so both length forms of zlp meet. */
#ifndef SP_ZMODEL_H
#define SP_ZMODEL_H

#include <stdio.h>
#include <string.h>

#define ZM_MAX 4096

typedef struct zm_item {
    char m[512];
    size_t len;
    double score;
} zm_item;

static zm_item zm[ZM_MAX];
static size_t zm_n;

static int zm_before(double s1, const char *m1, size_t l1, double s2, const char *m2, size_t l2)
{
    int c;
    if (s1 != s2)
        return s1 < s2;
    c = memcmp(m1, m2, l1 < l2 ? l1 : l2);
    return c < 0 || (c == 0 && l1 < l2);
}

static long zm_find(const char *m, size_t len)
{
    size_t i;
    for (i = 0; i < zm_n; i++)
        if (zm[i].len == len && memcmp(zm[i].m, m, len) == 0)
            return (long)i;
    return -1;
}

static void zm_del(size_t i)
{
    memmove(&zm[i], &zm[i + 1], (zm_n - i - 1) * sizeof(zm_item));
    zm_n--;
}

static void zm_add(const char *m, size_t len, double score)
{
    size_t i = 0;
    while (i < zm_n && zm_before(zm[i].score, zm[i].m, zm[i].len, score, m, len))
        i++;
    memmove(&zm[i + 1], &zm[i], (zm_n - i) * sizeof(zm_item));
    memcpy(zm[i].m, m, len);
    zm[i].len = len;
    zm[i].score = score;
    zm_n++;
}

/* A random member of at most about 300 bytes: from a pool of 'pool' names. */
static size_t zm_member(char *buf, uint64_t pool)
{
    uint64_t k = rng_below(pool);
    size_t n = (size_t)snprintf(buf, 32, "m%llu", (unsigned long long)k);
    if (k % 17 == 0) {
        size_t reps = 70, i;
        for (i = 1; i < reps; i++)
            memcpy(buf + i * n, buf, n);
        n *= reps;
    }
    return n;
}

/* A score from a small set, so that ties (ordered by member) are common. */
static double zm_score(void)
{
    static const double pick[] = {0, -0.0, 1, -1, 2.5, 1e300, -1e300, 3, 7};
    if (rng_below(2))
        return pick[rng_below(9)];
    return (double)((int64_t)rng_below(200) - 100) / 4;
}

/* Predicate for lower bounds: score < x. */
static int zm_pred_score(const char *m, size_t len, double score, void *ctx)
{
    (void)m;
    (void)len;
    return score < *(double *)ctx;
}

#endif
