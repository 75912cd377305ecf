/* test_quicklist.c -- unit tests of the packed-node list (server/core/quicklist.c).
 *
 * The reference model is an array of owned byte strings; every random step
 * does the same operation on both and compares lengths, elements and the
 * invariants (no empty node, the sums of counts and bytes) after each step. */
#include "mem.h"
#include "quicklist.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

typedef struct melem {
    char *p;
    size_t n;
} melem;

#define MMAX 20000
static melem model[MMAX];
static size_t mlen;

static void m_insert(size_t i, const char *p, size_t n)
{
    memmove(model + i + 1, model + i, (mlen - i) * sizeof(melem));
    model[i].p = malloc(n ? n : 1);
    memcpy(model[i].p, p, n);
    model[i].n = n;
    mlen++;
}

static void m_delete(size_t i)
{
    free(model[i].p);
    memmove(model + i, model + i + 1, (mlen - i - 1) * sizeof(melem));
    mlen--;
}

static void m_clear(void)
{
    while (mlen)
        m_delete(mlen - 1);
}

/* A random element: mostly short, sometimes past the one-byte prefix, rarely
 * larger than a node's cap. */
static int model_compress; /* list-compress-depth of run_model's lists */
static int model_max_lz;   /* the most compressed nodes seen at once */

static int count_lz(const quicklist *q)
{
    const qlnode *n;
    int k = 0;
    for (n = q->head; n; n = n->next)
        k += n->zlen != 0 && !(n->zlen & QL_TRIED);
    return k;
}

static size_t rand_elem(char *buf)
{
    size_t r = rng_below(100), n, k;
    n = r < 70 ? rng_below(20) : r < 97 ? 100 + rng_below(200) : 5000 + rng_below(20000);
    if (model_compress && rng_below(2)) { /* a repeated pattern: nodes that compress */
        char pat = (char)('a' + rng_below(4));
        for (k = 0; k < n; k++)
            buf[k] = (char)(pat + (char)(k % 3));
        return n;
    }
    for (k = 0; k < n; k++)
        buf[k] = (char)('a' + rng_below(26));
    return n;
}

static int same_as_model(const quicklist *q)
{
    const qlnode *node;
    size_t count = 0, i = 0, bytes = 0;
    ql_pos pos;

    if (ql_mem(q) != ql_mem_walk(q)) /* the running count of memory never drifts */
        return 0;
    for (node = q->head; node; node = node->next) {
        if (node->count == 0 || (node->next && node->next->prev != node))
            return 0;
        count += node->count;
    }
    if (count != mlen || q->len != mlen)
        return 0;
    if (mlen == 0)
        return q->head == NULL && q->tail == NULL && q->bytes == 0;
    if (ql_at(q, 0, &pos) < 0)
        return 0;
    do {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        if (i >= mlen || n != model[i].n || memcmp(p, model[i].p, n) != 0)
            return 0;
        bytes += n;
        i++;
    } while (ql_next(&pos) == 0);
    return i == mlen && bytes == q->bytes && ql_mem(q) == ql_mem_walk(q); /* the walk decoded nodes */
}

static void run_model(int fill, int steps)
{
    static char buf[30000];
    quicklist *q = ql_new(fill);
    int s, ok = 1;

    ql_set_compress(q, model_compress);
    for (s = 0; model_compress && s < 3000; s++) { /* a list long enough to have inner nodes */
        size_t n = (size_t)snprintf(buf, sizeof(buf), "prefilled element %d, compressible", s);
        ql_push(q, 1, buf, n);
        m_insert(mlen, buf, n);
    }

    for (s = 0; s < steps && ok; s++) {
        size_t op = rng_below(11), n;
        ql_pos pos;
        if (model_compress && count_lz(q) > model_max_lz)
            model_max_lz = count_lz(q);
        switch (op) {
        case 0:
        case 1:
            if (mlen >= MMAX - 1)
                break;
            n = rand_elem(buf);
            ql_push(q, (int)op, buf, n);
            m_insert(op ? mlen : 0, buf, n);
            break;
        case 2:
        case 3:
            if (mlen == 0)
                break;
            ok &= ql_at(q, op == 2 ? 0 : -1, &pos) == 0;
            ql_delete(q, &pos, 1);
            m_delete(op == 2 ? 0 : mlen - 1);
            break;
        case 4: { /* index, negative too */
            long long idx = (long long)rng_below(mlen * 2 + 2) - (long long)mlen - 1;
            int want = idx >= -(long long)mlen && idx < (long long)mlen;
            const char *p;
            ok &= (ql_at(q, idx, &pos) == 0) == want;
            if (want) {
                size_t mi = idx < 0 ? (size_t)(idx + (long long)mlen) : (size_t)idx;
                ql_get(&pos, &p, &n);
                ok &= n == model[mi].n && memcmp(p, model[mi].p, n) == 0;
            }
            break;
        }
        case 5: { /* replace */
            size_t i;
            if (mlen == 0)
                break;
            i = rng_below(mlen);
            n = rand_elem(buf);
            ok &= ql_at(q, (long long)i, &pos) == 0;
            ql_replace(q, &pos, buf, n);
            m_delete(i);
            m_insert(i, buf, n);
            break;
        }
        case 6: { /* insert before or after */
            size_t i;
            int after = (int)rng_below(2);
            if (mlen == 0 || mlen >= MMAX - 1)
                break;
            i = rng_below(mlen);
            n = rand_elem(buf);
            ok &= ql_at(q, (long long)i, &pos) == 0;
            ql_insert(q, &pos, after, buf, n);
            m_insert(i + (size_t)after, buf, n);
            break;
        }
        case 7: { /* delete a run going forward or backward from an index */
            size_t i, k, cnt;
            int fwd = (int)rng_below(2);
            if (mlen == 0)
                break;
            i = rng_below(mlen);
            cnt = 1 + rng_below(5);
            ok &= ql_at(q, (long long)i, &pos) == 0;
            for (k = 0; k < cnt; k++) {
                int more = ql_delete(q, &pos, fwd) == 0;
                m_delete(i);
                if (!fwd) {
                    if (i == 0) {
                        ok &= !more;
                        break;
                    }
                    i--;
                }
                ok &= more == (i < mlen);
                if (!more)
                    break;
            }
            break;
        }
        case 8: { /* del range */
            size_t start, cnt;
            if (mlen == 0)
                break;
            start = rng_below(mlen);
            cnt = rng_below(mlen - start + 1);
            if (rng_below(4) == 0 || (model_compress && cnt > 40))
                cnt = rng_below(model_compress ? 40 : 3);
            if (cnt > mlen - start)
                cnt = mlen - start;
            ql_del_range(q, start, cnt);
            while (cnt--)
                m_delete(start);
            break;
        }
        case 9: { /* walk backward over a stretch */
            size_t i, k;
            if (mlen == 0)
                break;
            i = rng_below(mlen);
            ok &= ql_at(q, (long long)i, &pos) == 0;
            for (k = 0; k < 50; k++) {
                const char *p;
                ql_get(&pos, &p, &n);
                ok &= n == model[i].n && memcmp(p, model[i].p, n) == 0;
                if (ql_prev(&pos) < 0) {
                    ok &= i == 0;
                    break;
                }
                i--;
            }
            break;
        }
        case 10:
            if (rng_below(50) == 0) { /* a copy equals the original */
                quicklist *d = ql_dup(q);
                ok &= same_as_model(d);
                ql_free(d);
            }
            break;
        }
        ok &= same_as_model(q);
    }
    CHECK(ok);
    CHECK(same_as_model(q));
    ql_free(q);
    m_clear();
}

/* A 4 KB element gets a buffer of its size, not the next power of two (8 KB:
 * twice Redis's memory for a list of 4 KB elements). */
static void test_large_elements_exact(void)
{
    static char big[4096];
    quicklist *q = ql_new(-2);
    int i;

    memset(big, 'x', sizeof(big));
    for (i = 0; i < 100; i++)
        ql_push(q, i & 1, big, sizeof(big));
    CHECK(ql_mem(q) == ql_mem_walk(q));
    CHECK(ql_mem(q) < 100 * 4096 + 100 * 4096 / 8);
    ql_free(q);
}

static void test_model_bytes(void)
{
    rng_seed(1);
    run_model(-2, 6000);
    rng_seed(2);
    run_model(-1, 6000);
}

static void test_model_count(void)
{
    rng_seed(3);
    run_model(4, 6000);
    rng_seed(4);
    run_model(1, 3000);
}

static void test_nodes_bounded(void)
{
    quicklist *q = ql_new(-2);
    const qlnode *node;
    int i, ok = 1;

    for (i = 0; i < 100000; i++)
        ql_push(q, i & 1, "0123456789", 10);
    for (node = q->head; node; node = node->next)
        ok &= node->used <= 8192;
    CHECK(ok);
    CHECK(q->nodes < 100000 * 11 / 8192 + 2 + 100000 * 11 / 8192 / 2 + 2);
    for (i = 0; i < 100000; i++) {
        ql_pos pos;
        ok &= ql_at(q, i & 1 ? -1 : 0, &pos) == 0;
        ql_delete(q, &pos, 1);
    }
    CHECK(ok);
    CHECK(q->len == 0 && q->nodes == 0 && q->head == NULL);
    ql_free(q);
}

static void test_memory_released(void)
{
    size_t base = mem_used();
    quicklist *q = ql_new(-2), *d;
    int i;

    for (i = 0; i < 1000; i++)
        ql_push(q, 1, "element", 7);
    d = ql_dup(q);
    CHECK(ql_mem(q) > 7000);
    ql_free(q);
    ql_free(d);
    CHECK(mem_used() == base);
}

static void test_merge_after_deletes(void)
{
    size_t base = mem_used(), i, left = 0;
    quicklist *q = ql_new(-2); /* 8 KB nodes */
    ql_pos pos;
    char buf[32];
    int ok = 1, k = 0;

    for (i = 0; i < 20000; i++) {
        snprintf(buf, sizeof(buf), "element-%011zu", i); /* 20 bytes: 21 with its prefix */
        ql_push(q, 1, buf, 20);
    }
    CHECK(q->nodes >= 50);
    /* LREM-like: keep one element of ten, walking forward. */
    ql_at(q, 0, &pos);
    for (i = 0; i < 20000; i++) {
        if (i % 10 == 0) {
            left++;
            if (ql_next(&pos) < 0)
                break;
        } else if (ql_delete(q, &pos, 1) < 0) {
            break;
        }
    }
    CHECK(ql_len(q) == left && left == 2000);
    /* 42,000 bytes: nodes at least a quarter full (2 KB) would be 21 or fewer. */
    CHECK(q->nodes <= 22);
    ql_at(q, 0, &pos);
    do {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        snprintf(buf, sizeof(buf), "element-%011d", k * 10);
        if (n != 20 || memcmp(p, buf, 20) != 0)
            ok = 0;
        k++;
    } while (ql_next(&pos) == 0);
    CHECK(ok && k == 2000);
    /* LTRIM-like: a range from the middle. */
    ql_del_range(q, 100, 1800);
    CHECK(ql_len(q) == 200 && q->nodes <= 2);
    ql_free(q);
    CHECK(mem_used() == base);
}

static void test_compress_model(void)
{
    size_t base = mem_used();
    model_compress = 1;
    rng_seed(71);
    run_model(-2, 12000);
    model_compress = 2;
    rng_seed(72);
    run_model(4, 9000);
    model_compress = 0;
    CHECK(model_max_lz >= 20); /* the operations ran on compressed nodes */
    CHECK(mem_used() == base);
}

static void test_compress_depth(void)
{
    size_t base = mem_used(), raw, i;
    quicklist *q = ql_new(-2), *d;
    ql_pos pos;
    char buf[32];
    int ok = 1, lz;

    ql_set_compress(q, 1);
    for (i = 0; i < 100000; i++) {
        snprintf(buf, sizeof(buf), "element:%09zu", i); /* 17 bytes */
        ql_push(q, 1, buf, 17);
    }
    raw = q->nodes * 8192;
    lz = count_lz(q);
    CHECK(lz == (int)q->nodes - 2); /* every node but the head and the tail */
    CHECK(q->head->zlen == 0 && q->tail->zlen == 0);
    CHECK(ql_mem(q) < raw / 2);
    d = ql_dup(q);
    CHECK(count_lz(d) == lz);
    /* Read every element (each node decompressed on the way), then in the middle. */
    ql_at(q, 0, &pos);
    i = 0;
    do {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        snprintf(buf, sizeof(buf), "element:%09zu", i++);
        if (n != 17 || memcmp(p, buf, 17) != 0)
            ok = 0;
    } while (ql_next(&pos) == 0);
    CHECK(ok && i == 100000);
    CHECK(count_lz(q) == 0);
    /* A reader that holds nothing else (LRANGE) leaves the nodes compressed. */
    ql_at(q, 0, &pos);
    while (ql_next_settle(q, &pos) == 0)
        ;
    CHECK(count_lz(q) == lz);
    ql_at(q, 0, &pos);
    while (ql_next(&pos) == 0)
        ;
    /* Changes sweep the nodes read back into compression, two a change. */
    for (i = 0; i < q->nodes; i++) {
        ql_push(q, 0, "x", 1);
        ql_at(q, 0, &pos);
        ql_delete(q, &pos, 1);
    }
    CHECK(count_lz(q) == (int)q->nodes - 2);
    /* The copy is independent and reads the same. */
    ok = ql_at(d, 50000, &pos) == 0;
    {
        const char *p;
        size_t n;
        ql_get(&pos, &p, &n);
        ok &= n == 17 && memcmp(p, "element:000050000", 17) == 0;
    }
    CHECK(ok);
    ql_del_range(d, 10, 99980);
    CHECK(ql_len(d) == 20);
    ql_free(d);
    ql_free(q);
    CHECK(mem_used() == base);
}

static void test_free_in_steps(void)
{
    size_t base = mem_used(), nodes;
    quicklist *q = ql_new(16); /* 16 elements a node */
    int i, steps = 0, ok = 1;

    for (i = 0; i < 16000; i++)
        ql_push(q, 1, "element", 7);
    nodes = q->nodes;
    CHECK(nodes == 1000);
    while (!ql_free_some(q, 3)) {
        if (nodes - q->nodes != 3)
            ok = 0;
        nodes = q->nodes;
        steps++;
    }
    CHECK(ok);
    CHECK(steps == 333);
    CHECK(mem_used() == base);
}

int main(void)
{
    RUN(test_large_elements_exact,
        "100 elements of 4 KB take under 4.5 KB each, and the running count of memory equals a walk");
    RUN(test_model_bytes, "12000 random pushes, pops, inserts, replaces, deletes and walks under byte fills match a model");
    RUN(test_model_count, "9000 random operations under count fills (4 and 1 element per node) match a model");
    RUN(test_nodes_bounded, "100000 pushes at both ends keep every node within 8 KB, and popping them all frees every node");
    RUN(test_memory_released, "a list and its copy release every byte they held");
    RUN(test_merge_after_deletes,
        "deleting 9 elements of 10 across a list, then a range, leaves nodes at least a quarter full (merged), in order");
    RUN(test_compress_model, "21000 random operations with list-compress-depth 1 and 2 match a model");
    RUN(test_compress_depth,
        "with depth 1, 100000 pushes leave every node but the ends compressed (under half the raw bytes); reads decompress, "
        "later changes recompress, a copy stays compressed");
    RUN(test_free_in_steps, "freeing a list of 1,000 nodes 3 nodes at a time takes 334 steps, then every byte is back");
    return TEST_DONE();
}
