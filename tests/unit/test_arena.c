/* test_arena.c -- unit tests of the slab allocator (server/core/arena.c).
 *
 * Each case drives an arena alone and checks the objects it returns (size,
 * alignment, no overlap), the page life cycle (reuse, release of empty pages,
 * one spare per class) and that the stats and mem_used() stay exact. */
#include "arena.h"
#include "mem.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_OF(p) ((uintptr_t)(p) & ~(uintptr_t)(ARENA_PAGE_SIZE - 1))

/* Expected class size of a small request, written from the header's wording. */
static size_t expected_class(size_t n)
{
    size_t step = n <= 128 ? 8 : n <= 256 ? 16 : n <= 512 ? 32 : 64;
    return (n + step - 1) / step * step;
}

static void test_class_sizes(void)
{
    CHECK(arena_class_size(1) == 8);
    CHECK(arena_class_size(8) == 8);
    CHECK(arena_class_size(9) == 16);
    CHECK(arena_class_size(128) == 128);
    CHECK(arena_class_size(129) == 144);
    CHECK(arena_class_size(256) == 256);
    CHECK(arena_class_size(257) == 288);
    CHECK(arena_class_size(512) == 512);
    CHECK(arena_class_size(513) == 576);
    CHECK(arena_class_size(ARENA_SMALL_MAX) == ARENA_SMALL_MAX);
    CHECK(arena_class_size(ARENA_SMALL_MAX + 1) == ARENA_SMALL_MAX + 8);
    CHECK(arena_class_size(100001) == 100008);
    for (size_t n = 1; n <= ARENA_SMALL_MAX; n++)
        CHECK(arena_class_size(n) == expected_class(n));
}

static void test_every_size(void)
{
    size_t base = mem_used();
    arena *a = arena_new();
    static void *ptr[ARENA_SMALL_MAX + 1];
    arena_stats st;
    size_t bytes = 0;

    for (size_t n = 1; n <= ARENA_SMALL_MAX; n++) {
        size_t cs = arena_class_size(n);
        ptr[n] = arena_alloc(a, n);
        CHECK(ptr[n] != NULL);
        CHECK(((uintptr_t)ptr[n] & 7) == 0);
        memset(ptr[n], (int)(n & 0xff), cs);
        bytes += cs;
    }
    arena_get_stats(a, &st);
    CHECK(st.live_objects == ARENA_SMALL_MAX);
    CHECK(st.live_bytes == bytes);
    CHECK(st.large_bytes == 0);
    /* One page per class, but the 64 sizes of the 1024 class need two pages of 63. */
    CHECK(st.pages == 41);
    CHECK(st.page_bytes == 41 * (size_t)ARENA_PAGE_SIZE);
    for (size_t n = 1; n <= ARENA_SMALL_MAX; n++) {
        unsigned char *p = ptr[n];
        size_t cs = arena_class_size(n);
        int intact = 1;
        for (size_t i = 0; i < cs; i++)
            intact &= p[i] == (unsigned char)(n & 0xff);
        CHECK(intact);
    }
    for (size_t n = 1; n <= ARENA_SMALL_MAX; n++)
        arena_free(a, ptr[n], n);
    arena_get_stats(a, &st);
    CHECK(st.live_objects == 0);
    CHECK(st.live_bytes == 0);
    /* Each class keeps its one spare page; the second 1024 page was given back. */
    CHECK(st.pages == 40);
    arena_destroy(a);
    CHECK(mem_used() == base);
}

static void test_reuse(void)
{
    arena *a = arena_new();
    void *p = arena_alloc(a, 40);
    void *q;

    arena_free(a, p, 40);
    q = arena_alloc(a, 33);
    CHECK(q == p);
    arena_free(a, q, 40);
    arena_destroy(a);
}

/* Allocate objects of size n until the class holds three full pages plus one
 * object; returns the count, filling ptr. */
static size_t fill_pages(arena *a, size_t n, void **ptr, size_t max, size_t *per_page)
{
    arena_stats st;
    size_t count = 0;

    *per_page = 0;
    for (;;) {
        ptr[count++] = arena_alloc(a, n);
        arena_get_stats(a, &st);
        if (st.pages == 2 && !*per_page)
            *per_page = count - 1;
        if (st.pages == 4 || count == max)
            return count;
    }
}

static void test_page_release(void)
{
    size_t base = mem_used();
    arena *a = arena_new();
    static void *ptr[1 << 16];
    size_t per_page, count, freed;
    arena_stats st;
    uintptr_t pg0, pg1;

    count = fill_pages(a, 64, ptr, 1 << 16, &per_page);
    CHECK(per_page == (ARENA_PAGE_SIZE - 64) / 64);
    CHECK(count == 3 * per_page + 1);
    arena_get_stats(a, &st);
    CHECK(st.pages == 4);
    CHECK(mem_used() - base >= 4 * (size_t)ARENA_PAGE_SIZE);

    /* Pages are aligned to their size and the first per_page objects share one. */
    pg0 = PAGE_OF(ptr[0]);
    pg1 = PAGE_OF(ptr[per_page]);
    CHECK(pg0 % ARENA_PAGE_SIZE == 0);
    CHECK(pg0 != pg1);
    for (size_t i = 0; i < per_page; i++)
        CHECK(PAGE_OF(ptr[i]) == pg0);

    /* The first page to empty is kept as the class's spare. */
    for (size_t i = 0; i < per_page; i++)
        arena_free(a, ptr[i], 64);
    arena_get_stats(a, &st);
    CHECK(st.pages == 4);

    /* The second one is given back. */
    freed = mem_used();
    for (size_t i = per_page; i < 2 * per_page; i++)
        arena_free(a, ptr[i], 64);
    arena_get_stats(a, &st);
    CHECK(st.pages == 3);
    CHECK(st.page_bytes == 3 * (size_t)ARENA_PAGE_SIZE);
    CHECK(mem_used() < freed);
    CHECK(freed - mem_used() >= ARENA_PAGE_SIZE);

    /* Everything freed: one spare page is left. */
    for (size_t i = 2 * per_page; i < count; i++)
        arena_free(a, ptr[i], 64);
    arena_get_stats(a, &st);
    CHECK(st.pages == 1);
    CHECK(st.live_objects == 0);

    /* The spare is reused before a new page is taken. */
    ptr[0] = arena_alloc(a, 64);
    arena_get_stats(a, &st);
    CHECK(st.pages == 1);
    arena_free(a, ptr[0], 64);
    arena_destroy(a);
    CHECK(mem_used() == base);
}

static void test_large(void)
{
    size_t base = mem_used();
    arena *a = arena_new();
    size_t sizes[] = { ARENA_SMALL_MAX + 1, 5000, 100001, 1 << 20 };
    void *p[4];
    arena_stats st;
    size_t sum = 0;

    for (int i = 0; i < 4; i++) {
        p[i] = arena_alloc(a, sizes[i]);
        CHECK(((uintptr_t)p[i] & 7) == 0);
        memset(p[i], 0xab, arena_class_size(sizes[i]));
        sum += arena_class_size(sizes[i]);
    }
    arena_get_stats(a, &st);
    CHECK(st.large_bytes == sum);
    CHECK(st.live_bytes == sum);
    CHECK(st.live_objects == 4);
    CHECK(st.pages == 0);
    CHECK(mem_used() - base >= sum);
    arena_free(a, p[1], sizes[1]);
    arena_free(a, p[0], sizes[0]);
    arena_get_stats(a, &st);
    CHECK(st.large_bytes == sum - arena_class_size(sizes[0]) - arena_class_size(sizes[1]));
    CHECK(st.live_objects == 2);
    /* arena_destroy releases the large objects still live. */
    arena_destroy(a);
    CHECK(mem_used() == base);
}

static void test_null_and_destroy_live(void)
{
    size_t base = mem_used();
    arena *a = arena_new();
    arena_stats st;

    arena_free(a, NULL, 10);
    arena_free(a, NULL, 5000);
    arena_get_stats(a, &st);
    CHECK(st.live_objects == 0 && st.pages == 0 && st.live_bytes == 0);
    for (int i = 0; i < 10000; i++)
        arena_alloc(a, (size_t)(i % 1500) + 1);
    arena_destroy(a);
    arena_destroy(NULL);
    CHECK(mem_used() == base);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

struct slot {
    unsigned char *p;
    size_t size;
    unsigned char fill;
};

static int slot_intact(const struct slot *s)
{
    size_t cs = arena_class_size(s->size);
    for (size_t i = 0; i < cs; i++)
        if (s->p[i] != s->fill)
            return 0;
    return 1;
}

static void test_stress_model(void)
{
    enum { NSLOTS = 3000, OPS = 200000 };
    size_t base = mem_used();
    arena *a = arena_new();
    static struct slot slots[NSLOTS];
    size_t model_bytes = 0, model_objects = 0, model_large = 0;
    int bad_stats = 0, bad_data = 0;
    arena_stats st;

    memset(slots, 0, sizeof(slots));
    for (int op = 0; op < OPS; op++) {
        struct slot *s = &slots[rnd() % NSLOTS];
        if (s->p) {
            size_t cs = arena_class_size(s->size);
            if (!slot_intact(s))
                bad_data++;
            arena_free(a, s->p, s->size);
            s->p = NULL;
            model_bytes -= cs;
            model_objects--;
            if (s->size > ARENA_SMALL_MAX)
                model_large -= cs;
        } else {
            uint64_t r = rnd();
            size_t cs;
            if (r % 100 < 2)
                s->size = ARENA_SMALL_MAX + 1 + (size_t)(r >> 8) % 20000;
            else if (r % 100 < 60)
                s->size = 1 + (size_t)(r >> 8) % 64;
            else
                s->size = 1 + (size_t)(r >> 8) % ARENA_SMALL_MAX;
            s->p = arena_alloc(a, s->size);
            if ((uintptr_t)s->p & 7)
                bad_data++;
            s->fill = (unsigned char)(r >> 40);
            cs = arena_class_size(s->size);
            memset(s->p, s->fill, cs);
            model_bytes += cs;
            model_objects++;
            if (s->size > ARENA_SMALL_MAX)
                model_large += cs;
        }
        arena_get_stats(a, &st);
        if (st.live_bytes != model_bytes || st.live_objects != model_objects ||
            st.large_bytes != model_large || st.page_bytes != st.pages * ARENA_PAGE_SIZE)
            bad_stats++;
    }
    CHECK(bad_stats == 0);
    CHECK(bad_data == 0);
    for (int i = 0; i < NSLOTS; i++) {
        if (slots[i].p) {
            CHECK(slot_intact(&slots[i]));
            arena_free(a, slots[i].p, slots[i].size);
        }
    }
    arena_get_stats(a, &st);
    CHECK(st.live_bytes == 0 && st.live_objects == 0 && st.large_bytes == 0);
    CHECK(st.pages <= 40);
    arena_destroy(a);
    CHECK(mem_used() == base);
}

int main(void)
{
    RUN(test_class_sizes, "every size maps to the class the header describes");
    RUN(test_every_size, "objects of every size 1..ARENA_SMALL_MAX are 8-aligned, disjoint and counted");
    RUN(test_reuse, "a freed object is handed out again for the same class");
    RUN(test_page_release, "an emptied page is kept as the one spare, the next is given back, and the spare is reused");
    RUN(test_large, "objects above ARENA_SMALL_MAX come from xmalloc, are counted, and destroy frees them");
    RUN(test_null_and_destroy_live, "freeing NULL does nothing and destroy releases live objects");
    RUN(test_stress_model, "random allocs and frees keep data intact and stats equal to a model");
    return TEST_DONE();
}
