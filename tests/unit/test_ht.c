/* test_ht.c -- unit tests of the incremental hash table (server/core/ht.c).
 *
 * Items embed an ht_node and carry a binary key (with NUL bytes) derived from
 * their id, plus flags the tests use as the reference model: whether the item
 * is in the table, and marks left by foreach/scan callbacks. Every random
 * sequence is driven by a fixed seed, so a failure replays identically. */
#include "arena.h"
#include "ht.h"
#include "mem.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
    ht_node node;     /* first: the table links items through it */
    uint32_t id;
    int in;           /* model: the item is linked in the table */
    uint64_t mark;    /* stamp of the last foreach visit */
    int seen;         /* visited by the current scan */
    char key[12];
} item;

#define MAXN 20000
static item items[MAXN];
static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static const char *item_key(const ht_node *n)
{
    return ((const item *)n)->key;
}

/* Key of id: a NUL, 'k', the id's four bytes (often NULs), then 0..2 NUL bytes
 * of padding, so keys differ in length and contain NULs everywhere. */
static void item_setup(ht *h, item *it, uint32_t id)
{
    memset(it, 0, sizeof(*it));
    it->id = id;
    it->key[0] = '\0';
    it->key[1] = 'k';
    memcpy(it->key + 2, &id, 4);
    it->node.klen = 6 + id % 3;
    it->node.hash = (uint32_t)ht_hash(it->key, it->node.klen, h->seed);
}

static void items_setup(ht *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        item_setup(h, &items[i], i);
}

static ht_node *find_item(ht *h, const item *it)
{
    return ht_find(h, it->key, it->node.klen, it->node.hash);
}

static void insert_item(ht *h, item *it)
{
    ht_insert(h, &it->node);
    it->in = 1;
}

static ht_node *remove_item(ht *h, item *it)
{
    ht_node *n = ht_remove(h, it->key, it->node.klen, it->node.hash);
    if (n)
        ((item *)n)->in = 0;
    return n;
}

static void finish_rehash(ht *h)
{
    while (ht_rehash_step(h, 1000))
        ;
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

struct verify_ctx {
    uint64_t stamp;
    uint64_t visited;
    int bad;
};

static int verify_cb(void *ctx, ht_node *n)
{
    struct verify_ctx *v = ctx;
    item *it = (item *)n;

    if (!it->in || it->mark == v->stamp)
        v->bad++;
    it->mark = v->stamp;
    v->visited++;
    return 0;
}

/* The table holds exactly the items the model says, each once, and its
 * counters and arrays are consistent. Returns 1 if so. */
static int table_matches_model(const ht *h, uint64_t model_count, uint64_t stamp)
{
    struct verify_ctx v = { stamp, 0, 0 };

    ht_foreach(h, verify_cb, &v);
    if (v.bad || v.visited != model_count || ht_count(h) != model_count)
        return 0;
    if (h->tab[0] && (!is_pow2(h->size[0]) || h->size[0] < HT_MIN_SIZE))
        return 0;
    if (ht_is_rehashing(h) != (h->tab[1] != NULL))
        return 0;
    if (ht_is_rehashing(h) && !is_pow2(h->size[1]))
        return 0;
    return 1;
}

static void test_basic(void)
{
    ht h;

    ht_init(&h, item_key, 1);
    items_setup(&h, 100);
    CHECK(ht_count(&h) == 0);
    CHECK(ht_buckets(&h) == 0);
    CHECK(find_item(&h, &items[0]) == NULL);
    CHECK(remove_item(&h, &items[0]) == NULL);
    for (int i = 0; i < 100; i++) {
        CHECK(find_item(&h, &items[i]) == NULL);
        insert_item(&h, &items[i]);
        CHECK(find_item(&h, &items[i]) == &items[i].node);
    }
    CHECK(ht_count(&h) == 100);
    for (int i = 0; i < 100; i += 2)
        CHECK(remove_item(&h, &items[i]) == &items[i].node);
    for (int i = 0; i < 100; i++)
        CHECK(find_item(&h, &items[i]) == (i % 2 ? &items[i].node : NULL));
    CHECK(remove_item(&h, &items[0]) == NULL);
    CHECK(ht_count(&h) == 50);
    ht_release(&h);
    CHECK(ht_count(&h) == 0 && ht_buckets(&h) == 0 && !ht_is_rehashing(&h));
}

struct bkey {
    ht_node node;
    char key[8];
};

static const char *bkey_key(const ht_node *n)
{
    return ((const struct bkey *)n)->key;
}

static void test_binary_keys(void)
{
    static const char *keys[] = { "a", "a\0", "a\0b", "a\0c", "\0", "\0\0", "", "b\0a" };
    static const uint32_t lens[] = { 1, 2, 3, 3, 1, 2, 0, 3 };
    struct bkey k[8];
    ht h;

    ht_init(&h, bkey_key, 7);
    for (int i = 0; i < 8; i++) {
        memcpy(k[i].key, keys[i], lens[i]);
        k[i].node.klen = lens[i];
        k[i].node.hash = (uint32_t)ht_hash(keys[i], lens[i], h.seed);
        CHECK(ht_find(&h, keys[i], lens[i], k[i].node.hash) == NULL);
        ht_insert(&h, &k[i].node);
    }
    for (int i = 0; i < 8; i++)
        CHECK(ht_find(&h, keys[i], lens[i], k[i].node.hash) == &k[i].node);
    CHECK(ht_remove(&h, "a\0b", 3, k[2].node.hash) == &k[2].node);
    CHECK(ht_find(&h, "a\0c", 3, k[3].node.hash) == &k[3].node);
    CHECK(ht_find(&h, "a\0b", 3, k[2].node.hash) == NULL);
    ht_release(&h);

    /* Every key forced to the same hash: the chain is told apart by length
     * and bytes alone. */
    ht_init(&h, bkey_key, 7);
    for (int i = 0; i < 8; i++) {
        k[i].node.hash = 42;
        ht_insert(&h, &k[i].node);
    }
    for (int i = 0; i < 8; i++)
        CHECK(ht_find(&h, keys[i], lens[i], 42) == &k[i].node);
    CHECK(ht_remove(&h, "\0", 1, 42) == &k[4].node);
    CHECK(ht_remove(&h, "\0", 1, 42) == NULL);
    for (int i = 0; i < 8; i++)
        CHECK(ht_find(&h, keys[i], lens[i], 42) == (i == 4 ? NULL : &k[i].node));
    CHECK(ht_count(&h) == 7);
    ht_release(&h);
}

static void test_model(void)
{
    enum { N = 1500, OPS = 48000 };
    ht h;
    uint64_t model_count = 0, max_buckets = 0, grows = 0, shrinks = 0, rehash_checks = 0;
    int mismatches = 0, bad_results = 0;

    rng_state = 0x1234567887654321ULL;
    ht_init(&h, item_key, 0xfeedULL);
    items_setup(&h, N);
    for (int op = 0; op < OPS; op++) {
        item *it = &items[rnd() % N];
        uint64_t r = rnd() % 100;
        /* Phases alternate between mostly inserting and mostly deleting. */
        int insert_pct = (op / 8000) % 2 ? 3 : 70;
        uint64_t buckets_before = h.size[0];

        if (r < 25) {
            if (find_item(&h, it) != (it->in ? &it->node : NULL))
                bad_results++;
        } else if (r < 25 + (uint64_t)insert_pct * 75 / 100) {
            if (find_item(&h, it) != (it->in ? &it->node : NULL))
                bad_results++;
            if (!it->in) {
                insert_item(&h, it);
                model_count++;
            }
        } else {
            ht_node *expected = it->in ? &it->node : NULL;
            ht_node *n = remove_item(&h, it);
            if (n != expected)
                bad_results++;
            if (n)
                model_count--;
        }
        if (!table_matches_model(&h, model_count, (uint64_t)op + 1))
            mismatches++;
        if (ht_is_rehashing(&h)) {
            rehash_checks++;
            if (h.size[1] > h.size[0] && buckets_before == h.size[0] && h.rehash_idx == 0)
                grows++;
            if (h.size[1] < h.size[0] && buckets_before == h.size[0] && h.rehash_idx == 0)
                shrinks++;
        }
        if (ht_buckets(&h) > max_buckets)
            max_buckets = ht_buckets(&h);
    }
    CHECK(mismatches == 0);
    CHECK(bad_results == 0);
    CHECK(max_buckets >= 1024);
    CHECK(grows >= 8);
    CHECK(shrinks >= 2);
    CHECK(rehash_checks > 0);
    for (int i = 0; i < N; i++)
        if (items[i].in)
            CHECK(remove_item(&h, &items[i]) == &items[i].node);
    CHECK(ht_count(&h) == 0);
    finish_rehash(&h);
    CHECK(h.size[0] == HT_MIN_SIZE);
    ht_release(&h);
}

static uint64_t longest_chain(const ht *h, int t)
{
    uint64_t best = 0;

    for (uint64_t i = 0; i < h->size[t]; i++) {
        uint64_t len = 0;
        for (ht_node *n = h->tab[t][i]; n; n = n->next)
            len++;
        if (len > best)
            best = len;
    }
    return best;
}

static void test_incremental_grow(void)
{
    ht h;
    uint64_t chain, used0, ops = 0;
    int64_t idx;
    item probe;
    int bounded = 1;

    ht_init(&h, item_key, 3);
    items_setup(&h, 1025);
    item_setup(&h, &probe, 999999);
    for (int i = 0; i < 1024; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    CHECK(!ht_is_rehashing(&h));
    CHECK(h.size[0] == 1024);

    insert_item(&h, &items[1024]);
    CHECK(ht_is_rehashing(&h));
    CHECK(h.size[0] == 1024 && h.size[1] == 2048);
    CHECK(h.used[1] == 1);
    CHECK(h.used[0] == 1024);

    /* Each operation moves at most one bucket and skips at most 10 empty ones. */
    while (ht_is_rehashing(&h)) {
        chain = longest_chain(&h, 0);
        used0 = h.used[0];
        idx = h.rehash_idx;
        CHECK(find_item(&h, &probe) == NULL);
        ops++;
        if (!ht_is_rehashing(&h))
            break;
        if (h.rehash_idx - idx < 1 || h.rehash_idx - idx > 10 || used0 - h.used[0] > chain)
            bounded = 0;
        if (ops == 1)
            CHECK(h.used[0] < used0 || h.rehash_idx - idx == 10);
    }
    CHECK(bounded);
    CHECK(ops >= 1024 / 10);
    CHECK(ht_count(&h) == 1025);
    CHECK(h.size[0] == 2048 && h.tab[1] == NULL);
    for (int i = 0; i < 1025; i++)
        CHECK(find_item(&h, &items[i]) == &items[i].node);
    ht_release(&h);
}

static void test_incremental_shrink(void)
{
    ht h;
    int i, started = -1;

    ht_init(&h, item_key, 4);
    items_setup(&h, 2048);
    for (i = 0; i < 2048; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    CHECK(h.size[0] == 2048);
    for (i = 0; i < 2048; i++) {
        remove_item(&h, &items[i]);
        if (ht_is_rehashing(&h)) {
            started = i;
            break;
        }
    }
    /* Shrinks when used < 2048/8, to the smallest power of two >= used. */
    CHECK(started == 2048 - 255 - 1);
    CHECK(ht_count(&h) == 255);
    CHECK(h.size[0] == 2048 && h.size[1] == 256);
    CHECK(h.rehash_idx == 0);
    /* Finds during the shrink see nodes in either array. */
    for (i = started + 1; i < started + 21; i++)
        CHECK(find_item(&h, &items[i]) == &items[i].node);
    CHECK(ht_is_rehashing(&h));
    CHECK(h.used[0] > 0 && h.used[1] > 0);
    CHECK(ht_rehash_ms(&h, 100) >= 1);
    CHECK(!ht_is_rehashing(&h));
    CHECK(h.size[0] == 256);
    for (i = started + 1; i < 2048; i++)
        CHECK(find_item(&h, &items[i]) == &items[i].node);
    for (i = started + 1; i < 2048; i++)
        CHECK(remove_item(&h, &items[i]) == &items[i].node);
    finish_rehash(&h);
    CHECK(h.size[0] == HT_MIN_SIZE);
    CHECK(ht_count(&h) == 0);
    ht_release(&h);
}

static void scan_cb(void *ctx, ht_node *n)
{
    uint64_t *visits = ctx;
    ((item *)n)->seen++;
    (*visits)++;
}

static void clear_seen(uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        items[i].seen = 0;
}

static void test_scan_stable(void)
{
    ht h;
    uint64_t cursor = 0, visits = 0, calls = 0;
    int exactly_once = 1;

    ht_init(&h, item_key, 5);
    items_setup(&h, 1000);
    CHECK(ht_scan(&h, 0, scan_cb, &visits) == 0);
    for (int i = 0; i < 1000; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    do {
        cursor = ht_scan(&h, cursor, scan_cb, &visits);
        calls++;
    } while (cursor);
    for (int i = 0; i < 1000; i++)
        exactly_once &= items[i].seen == 1;
    CHECK(exactly_once);
    CHECK(visits == 1000);
    CHECK(calls == h.size[0]);
    ht_release(&h);
}

/* Scan a table holding items [0, orig) while, between scan calls, the table
 * grows by inserting items [orig, total). Returns 1 if every original was
 * seen; counts the calls made while rehashing in *rehashing_calls. */
static int scan_across_grow(uint32_t orig, uint32_t total, uint32_t batch, uint64_t *rehashing_calls)
{
    ht h;
    uint64_t cursor = 0, visits = 0;
    uint32_t next = orig;
    int all = 1;

    ht_init(&h, item_key, 6);
    items_setup(&h, total);
    for (uint32_t i = 0; i < orig; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    clear_seen(total);
    *rehashing_calls = 0;
    do {
        if (ht_is_rehashing(&h))
            (*rehashing_calls)++;
        cursor = ht_scan(&h, cursor, scan_cb, &visits);
        for (uint32_t b = 0; b < batch && next < total; b++)
            insert_item(&h, &items[next++]);
    } while (cursor);
    for (uint32_t i = 0; i < orig; i++)
        all &= items[i].seen >= 1;
    ht_release(&h);
    return all;
}

static void test_scan_grow(void)
{
    uint64_t rehashing_calls;

    CHECK(scan_across_grow(500, 20000, 300, &rehashing_calls));
    CHECK(rehashing_calls > 0);
    CHECK(scan_across_grow(4, 20000, 7, &rehashing_calls));
    CHECK(scan_across_grow(1000, 8000, 1, &rehashing_calls));
    CHECK(rehashing_calls > 0);
}

/* Scan a table of total items whose originals are every step-th one, while
 * the others are deleted in batches between calls, shrinking the table (one
 * rehash step per call stands for the server's cron). Reports the calls made
 * while rehashing and the smallest table seen. */
static int scan_across_shrink(uint32_t total, uint32_t step, uint32_t batch, uint64_t *rehashing_calls,
                              uint64_t *min_size)
{
    ht h;
    uint64_t cursor = 0, visits = 0;
    uint32_t next = 0;
    int all = 1;

    ht_init(&h, item_key, 8);
    items_setup(&h, total);
    for (uint32_t i = 0; i < total; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    clear_seen(total);
    *rehashing_calls = 0;
    *min_size = h.size[0];
    do {
        if (ht_is_rehashing(&h))
            (*rehashing_calls)++;
        if (h.size[0] < *min_size)
            *min_size = h.size[0];
        cursor = ht_scan(&h, cursor, scan_cb, &visits);
        for (uint32_t b = 0; b < batch && next < total; next++) {
            if (next % step) {
                remove_item(&h, &items[next]);
                b++;
            }
        }
        ht_rehash_step(&h, 1);
    } while (cursor);
    for (uint32_t i = 0; i < total; i += step)
        all &= items[i].seen >= 1;
    ht_release(&h);
    return all;
}

static void test_scan_shrink(void)
{
    uint64_t rehashing_calls, min_size;

    CHECK(scan_across_shrink(16384, 64, 200, &rehashing_calls, &min_size));
    CHECK(rehashing_calls > 0);
    CHECK(min_size < 16384);
    /* 17 originals left: a shrink to 2048, then (when it completes) one to 32
     * begins; the scan runs through both. */
    CHECK(scan_across_shrink(16384, 1000, 1000, &rehashing_calls, &min_size));
    CHECK(rehashing_calls > 0);
    CHECK(min_size <= 2048);
    CHECK(scan_across_shrink(4096, 16, 3, &rehashing_calls, &min_size));
    CHECK(rehashing_calls > 0);
}

/* Random inserts and removes of non-original items between scan calls, with
 * phases that grow and shrink the table, and random extra rehash steps. */
static void test_scan_random(void)
{
    enum { TOTAL = 6000, ORIG = 200 };
    int failures = 0;
    uint64_t resized = 0;

    for (uint64_t seed = 1; seed <= 40; seed++) {
        ht h;
        uint64_t cursor = 0, visits = 0, first_size;
        int calls = 0;

        rng_state = seed * 0x9e3779b97f4a7c15ULL;
        ht_init(&h, item_key, seed);
        items_setup(&h, TOTAL);
        for (uint32_t i = 0; i < ORIG; i++)
            insert_item(&h, &items[i]);
        for (uint32_t i = ORIG; i < TOTAL; i++)
            if (rnd() % 4 == 0)
                insert_item(&h, &items[i]);
        if (seed % 2)
            finish_rehash(&h);
        first_size = ht_buckets(&h);
        do {
            int grow = (calls / 16) % 2 == (int)(seed % 2);
            int ops = (int)(rnd() % 200);
            cursor = ht_scan(&h, cursor, scan_cb, &visits);
            calls++;
            for (int k = 0; k < ops; k++) {
                item *it = &items[ORIG + rnd() % (TOTAL - ORIG)];
                if (grow && !it->in)
                    insert_item(&h, it);
                else if (!grow && it->in)
                    remove_item(&h, it);
            }
            if (rnd() % 4 == 0)
                ht_rehash_step(&h, (int)(rnd() % 50));
            if (ht_buckets(&h) != first_size)
                resized++;
        } while (cursor);
        for (uint32_t i = 0; i < ORIG; i++)
            if (!items[i].seen)
                failures++;
        ht_release(&h);
    }
    CHECK(failures == 0);
    CHECK(resized > 0);
}

static void test_random(void)
{
    ht h;
    uint64_t rng = 0x853c49e6748fea9bULL;
    int absent = 0, missing = 0;

    ht_init(&h, item_key, 9);
    CHECK(ht_random(&h, &rng) == NULL);
    items_setup(&h, 200);
    for (int i = 0; i < 100; i++)
        insert_item(&h, &items[i]);
    clear_seen(200);
    for (int k = 0; k < 20000; k++) {
        item *it = (item *)ht_random(&h, &rng);
        if (!it || !it->in)
            absent++;
        else
            it->seen++;
    }
    for (int i = 0; i < 100; i++)
        missing += items[i].seen == 0;
    CHECK(absent == 0);
    CHECK(missing == 0);

    /* While the table is growing, nodes come from both arrays. */
    for (int i = 100; i < 200 && !ht_is_rehashing(&h); i++)
        insert_item(&h, &items[i]);
    CHECK(ht_is_rehashing(&h));
    for (int k = 0; k < 50; k++) {
        item *it = (item *)ht_random(&h, &rng);
        if (!it || !it->in)
            absent++;
    }
    CHECK(absent == 0);

    /* A sparse table left by deletions still answers, and an emptied one
     * answers NULL. */
    for (int i = 0; i < 200; i++)
        if (items[i].in && i != 77)
            remove_item(&h, &items[i]);
    CHECK(ht_random(&h, &rng) == &items[77].node);
    remove_item(&h, &items[77]);
    CHECK(ht_buckets(&h) > 0);
    CHECK(ht_random(&h, &rng) == NULL);
    ht_release(&h);
}

struct stop_ctx {
    int visits;
};

static int stop_at_ten(void *ctx, ht_node *n)
{
    struct stop_ctx *s = ctx;
    (void)n;
    return ++s->visits == 10 ? 7 : 0;
}

static void test_foreach_stop(void)
{
    ht h;
    struct stop_ctx s = { 0 };

    ht_init(&h, item_key, 10);
    items_setup(&h, 50);
    for (int i = 0; i < 50; i++)
        insert_item(&h, &items[i]);
    CHECK(ht_foreach(&h, stop_at_ten, &s) == 7);
    CHECK(s.visits == 10);
    ht_release(&h);
}

static void test_replace(void)
{
    static item copies[1100];
    ht h;
    struct verify_ctx v = { 12345, 0, 0 };
    int i;

    ht_init(&h, item_key, 11);
    items_setup(&h, 1100);
    for (i = 0; i < 1024; i++)
        insert_item(&h, &items[i]);
    finish_rehash(&h);
    insert_item(&h, &items[1024]);
    CHECK(ht_is_rehashing(&h));
    ht_rehash_step(&h, 100);
    CHECK(ht_is_rehashing(&h));
    /* Replace every node, some still in the old array and some in the new. */
    for (i = 0; i <= 1024; i++) {
        copies[i] = items[i];
        items[i].in = 0;
        ht_replace(&h, &items[i].node, &copies[i].node);
    }
    for (i = 0; i <= 1024; i++)
        CHECK(ht_find(&h, copies[i].key, copies[i].node.klen, copies[i].node.hash) == &copies[i].node);
    CHECK(ht_count(&h) == 1025);
    ht_foreach(&h, verify_cb, &v);
    CHECK(v.bad == 0 && v.visited == 1025);
    ht_release(&h);
}

struct clear_ctx {
    arena *a;
    uint64_t freed;
};

static void free_item(void *ctx, ht_node *n)
{
    struct clear_ctx *c = ctx;
    arena_free(c->a, n, sizeof(item));
    c->freed++;
}

static void test_clear(void)
{
    size_t base = mem_used();
    struct clear_ctx c = { arena_new(), 0 };
    arena_stats st;
    ht h;
    item *its[5000];
    uint64_t linked = 0;

    ht_init(&h, item_key, 12);
    for (uint32_t i = 0; i < 5000; i++) {
        its[i] = arena_alloc(c.a, sizeof(item));
        item_setup(&h, its[i], i);
        insert_item(&h, its[i]);
        linked++;
        /* Stop in the middle of a grow so both arrays hold nodes. */
        if (i > 4000 && ht_is_rehashing(&h) && h.used[1] > 10)
            break;
    }
    CHECK(ht_is_rehashing(&h));
    ht_clear(&h, free_item, &c);
    CHECK(c.freed == linked);
    CHECK(ht_count(&h) == 0 && ht_buckets(&h) == 0 && !ht_is_rehashing(&h));
    arena_get_stats(c.a, &st);
    CHECK(st.live_objects == 0 && st.live_bytes == 0);

    /* The cleared table is usable again. */
    items_setup(&h, 10);
    for (int i = 0; i < 10; i++)
        insert_item(&h, &items[i]);
    CHECK(find_item(&h, &items[3]) == &items[3].node);
    ht_clear(&h, NULL, NULL);
    arena_destroy(c.a);
    CHECK(mem_used() == base);
}

static void test_clear_some(void)
{
    struct clear_ctx c = {arena_new(), 0};
    arena_stats st;
    ht h;
    item *its[5000];
    uint64_t linked = 0, cursor = 0, before;
    int ok = 1, steps = 0;

    ht_init(&h, item_key, 13);
    for (uint32_t i = 0; i < 5000; i++) {
        its[i] = arena_alloc(c.a, sizeof(item));
        item_setup(&h, its[i], i);
        insert_item(&h, its[i]);
        linked++;
        if (i > 4000 && ht_is_rehashing(&h) && h.used[1] > 10)
            break;
    }
    CHECK(ht_is_rehashing(&h));
    before = c.freed;
    while (!ht_clear_some(&h, &cursor, 50, free_item, &c)) {
        if (c.freed - before > 50 || ht_count(&h) != linked - c.freed)
            ok = 0;
        before = c.freed;
        steps++;
    }
    CHECK(ok);
    CHECK(c.freed == linked && steps >= (int)(linked / 50));
    CHECK(ht_count(&h) == 0 && ht_buckets(&h) == 0 && !ht_is_rehashing(&h));
    arena_get_stats(c.a, &st);
    CHECK(st.live_objects == 0);
    arena_destroy(c.a);
}

/* ---- compact nodes: the table must never read node.hash or node.klen ---- */

static uint32_t compact_klen(const item *it)
{
    return 6 + it->id % 3;
}

static uint32_t compact_hashof(const ht_node *n, uint64_t seed)
{
    const item *it = (const item *)n;
    return (uint32_t)ht_hash(it->key, compact_klen(it), seed);
}

static int compact_eq(const ht_node *n, const char *key, uint32_t klen, uint32_t hash)
{
    const item *it = (const item *)n;
    (void)hash;
    return compact_klen(it) == klen && memcmp(it->key, key, klen) == 0;
}

static void test_compact(void)
{
    ht h;
    item copy;
    uint32_t i, n = MAXN, hv[MAXN];
    int ok = 1;

    ht_init_compact(&h, compact_hashof, compact_eq, 7);
    items_setup(&h, n);
    for (i = 0; i < n; i++) {
        hv[i] = items[i].node.hash;
        items[i].node.hash = 0xDEADBEEF; /* the caller's bytes: garbage to the table */
        items[i].node.klen = 0xFFFFFFFF;
        ht_insert_hashed(&h, &items[i].node, hv[i]);
        items[i].in = 1;
        /* every item so far is found, also in the middle of a rehash */
        if (i % 997 == 0)
            for (uint32_t j = 0; j <= i; j++)
                ok &= ht_find_eq(&h, items[j].key, compact_klen(&items[j]), hv[j], compact_eq) == &items[j].node;
    }
    CHECK(ok && ht_count(&h) == n);
    for (i = 0; i < n; i++)
        ok &= ht_find(&h, items[i].key, compact_klen(&items[i]), hv[i]) == &items[i].node;
    CHECK(ok);
    for (i = 0; i < n; i += 2) {
        if (i % 4)
            ok &= ht_remove(&h, items[i].key, compact_klen(&items[i]), hv[i]) == &items[i].node;
        else
            ht_remove_node(&h, &items[i].node, hv[i]);
    }
    CHECK(ok && ht_count(&h) == n / 2);
    copy = items[1];
    ht_replace(&h, &items[1].node, &copy.node);
    CHECK(ht_find(&h, copy.key, compact_klen(&copy), hv[1]) == &copy.node);
    for (i = 3; i < n; i += 2)
        ok &= ht_find(&h, items[i].key, compact_klen(&items[i]), hv[i]) == &items[i].node;
    for (i = 0; i < n; i += 2)
        ok &= ht_find(&h, items[i].key, compact_klen(&items[i]), hv[i]) == NULL;
    CHECK(ok);
    while (ht_rehash_step(&h, 100))
        ;
    CHECK(ht_buckets(&h) == 32768 && ht_count(&h) == n / 2);
    ht_release(&h);
}

int main(void)
{
    RUN(test_basic, "inserted nodes are found, removed ones are not, and counts follow");
    RUN(test_compact, "compact nodes are found, moved, replaced and removed (by key or by address), hash never read");
    RUN(test_binary_keys, "keys with NUL bytes and equal hashes are told apart by length and bytes");
    RUN(test_model, "48000 random finds, inserts and removes match a reference model after every step");
    RUN(test_incremental_grow, "a grow starts on the insert that fills the table and each op moves a bounded amount");
    RUN(test_incremental_shrink, "a shrink starts when used < buckets/8, to the smallest power of two >= used");
    RUN(test_scan_stable, "a scan of a table that does not change returns every node exactly once");
    RUN(test_scan_grow, "a scan returns every original node although the table grows between calls");
    RUN(test_scan_shrink, "a scan returns every original node although the table shrinks between calls");
    RUN(test_scan_random, "a scan returns every original node under random growing and shrinking");
    RUN(test_random, "ht_random returns only present nodes and, over many calls, all of them");
    RUN(test_foreach_stop, "ht_foreach stops at the first non-zero return and returns it");
    RUN(test_replace, "ht_replace swaps a node in either array while rehashing");
    RUN(test_clear, "ht_clear hands every node to freefn and memory returns to the baseline");
    RUN(test_clear_some,
        "ht_clear_some frees at most max nodes a step, in both arrays of a rehash, then releases the table");
    return TEST_DONE();
}
