/* test_lzcache.c -- the LRU cache of decoded chunks, driven alone.
 *
 * The cache only keeps slots keyed by (value id, chunk index) and their have[]
 * counts; lzval fills them. These cases drive it with made-up ids and sizes, as
 * lzval would: find, claim after a miss, fill have[], change, evict. */
#include "lz/lzcache.h"
#include "mem.h"
#include "test.h"

#include <string.h>

#define CS 65536u /* chunk size used by the cases */
#define SUB 8192u /* sub-block size used by the cases */
#define NSUB (CS / SUB)

/* Claim chunk idx of value uid and mark every sub-block decoded. */
static lzcache_slot *fill(lzcache *c, uint64_t uid, size_t idx)
{
    lzcache_slot *s = lzcache_claim(c, uid, idx, CS, NSUB);
    size_t j;

    for (j = 0; j < NSUB; j++)
        s->have[j] = SUB;
    return s;
}

static void t_empty_misses(void)
{
    lzcache *c = lzcache_new(4);

    CHECK(lzcache_find(c, 1, 0) == NULL);
    CHECK(lzcache_find(c, 7, 3) == NULL);
    lzcache_free(c);
}

static void t_claim_then_find(void)
{
    lzcache *c = lzcache_new(4);
    lzcache_slot *s = lzcache_claim(c, 5, 2, CS, NSUB);
    size_t j;

    CHECK(s && s->buf && s->cap >= CS);
    for (j = 0; j < NSUB; j++)
        CHECK(s->have[j] == 0);
    s->have[1] = SUB;
    memset(s->buf + SUB, 'x', SUB);
    CHECK(lzcache_find(c, 5, 2) == s);
    CHECK(lzcache_find(c, 5, 2)->have[1] == SUB);
    CHECK(lzcache_find(c, 5, 3) == NULL);
    CHECK(lzcache_find(c, 6, 2) == NULL);
    lzcache_free(c);
}

static void t_zero_slots_is_one(void)
{
    lzcache *c = lzcache_new(0);
    lzcache_slot *a = fill(c, 1, 0), *b;

    CHECK(lzcache_find(c, 1, 0) == a);
    b = fill(c, 2, 0);
    CHECK(b == a);
    CHECK(lzcache_find(c, 1, 0) == NULL);
    CHECK(lzcache_find(c, 2, 0) == b);
    lzcache_free(c);
}

static void t_full_evicts_lru(void)
{
    lzcache *c = lzcache_new(3);
    lzcache_slot *a = fill(c, 1, 0), *b = fill(c, 1, 1), *d;

    fill(c, 1, 2);
    CHECK(lzcache_find(c, 1, 0) == a); /* chunk 1 is now the least recently used */
    d = fill(c, 1, 3);
    CHECK(d == b);
    CHECK(lzcache_find(c, 1, 1) == NULL);
    CHECK(lzcache_find(c, 1, 0) == a);
    CHECK(lzcache_find(c, 1, 2) != NULL);
    CHECK(lzcache_find(c, 1, 3) == d);
    lzcache_free(c);
}

static void t_lru_order(void)
{
    lzcache *c = lzcache_new(2);
    lzcache_slot *a = fill(c, 1, 0), *b = fill(c, 2, 0);

    CHECK(lzcache_find(c, 1, 0) == a);
    CHECK(fill(c, 3, 0) == b); /* 2 was used last longest ago */
    CHECK(lzcache_find(c, 1, 0) == a);
    CHECK(fill(c, 4, 0) != a); /* 1 was just found: 3 goes */
    CHECK(lzcache_find(c, 3, 0) == NULL);
    CHECK(lzcache_find(c, 1, 0) == a);
    lzcache_free(c);
}

static void t_changed_drops_touched(void)
{
    lzcache *c = lzcache_new(4);
    lzcache_slot *s0 = fill(c, 1, 0), *s1 = fill(c, 1, 1), *other = fill(c, 2, 0);
    size_t j;

    /* bytes [CS - 10, CS + SUB + 1) changed: chunk 0's last sub-block, chunk 1's first two */
    lzcache_remap(c, 1, 9, 1, 0, 0);
    lzcache_forget(c, 9, 0, NSUB - 1, NSUB - 1);
    lzcache_forget(c, 9, 1, 0, 1);
    CHECK(lzcache_find(c, 1, 0) == NULL);
    CHECK(lzcache_find(c, 9, 0) == s0);
    CHECK(lzcache_find(c, 9, 1) == s1);
    for (j = 0; j < NSUB; j++) {
        CHECK(s0->have[j] == (j == NSUB - 1 ? 0 : SUB));
        CHECK(s1->have[j] == (j <= 1 ? 0 : SUB));
    }
    CHECK(lzcache_find(c, 2, 0) == other);
    for (j = 0; j < NSUB; j++)
        CHECK(other->have[j] == SUB);
    lzcache_free(c);
}

static void t_changed_elsewhere_keeps(void)
{
    lzcache *c = lzcache_new(2);
    lzcache_slot *s = fill(c, 1, 0);
    size_t j;

    lzcache_remap(c, 1, 2, 1, 0, 0);
    lzcache_forget(c, 2, 3, 0, 0);
    CHECK(lzcache_find(c, 2, 0) == s);
    for (j = 0; j < NSUB; j++)
        CHECK(s->have[j] == SUB);
    lzcache_free(c);
}

static void t_remap_drops_and_shifts(void)
{
    lzcache *c = lzcache_new(4);
    lzcache_slot *s0 = fill(c, 1, 0), *s2 = fill(c, 1, 2), *s5 = fill(c, 1, 5);

    /* chunks 1 to 2 rebuilt into one: chunk 2's slot goes, chunk 5 is now chunk 4 */
    lzcache_remap(c, 1, 7, 1, 2, -1);
    CHECK(lzcache_find(c, 7, 0) == s0);
    CHECK(lzcache_find(c, 7, 2) == NULL);
    CHECK(lzcache_find(c, 7, 4) == s5);
    CHECK(s2->uid == 0);
    CHECK(lzcache_find(c, 1, 5) == NULL);
    CHECK(fill(c, 8, 0) == s2); /* the emptied slot is taken first */
    lzcache_free(c);
}

static void t_claim_grows_buffer(void)
{
    lzcache *c = lzcache_new(1);
    lzcache_slot *s = lzcache_claim(c, 1, 0, 1024, 1);

    CHECK(s->cap >= 1024);
    s = lzcache_claim(c, 2, 0, CS, NSUB);
    CHECK(s->cap >= CS);
    memset(s->buf, 'y', CS);
    s = lzcache_claim(c, 3, 0, 1024, 1);
    CHECK(s->cap >= CS);
    lzcache_free(c);
}

static void t_free_returns_memory(void)
{
    size_t before = mem_used();
    lzcache *c = lzcache_new(3);

    fill(c, 1, 0);
    fill(c, 1, 1);
    lzcache_free(c);
    lzcache_free(NULL);
    CHECK(mem_used() == before);
}

int main(void)
{
    RUN(t_empty_misses, "an empty cache finds nothing");
    RUN(t_claim_then_find, "a claimed slot starts with nothing decoded and is found by its value id and chunk index only");
    RUN(t_zero_slots_is_one, "a cache asked for 0 slots has one, which each claim takes over");
    RUN(t_full_evicts_lru, "a full cache gives a new chunk the least recently used slot");
    RUN(t_lru_order, "a find counts as a use, so the slot found is evicted last");
    RUN(t_changed_drops_touched, "a changed value's slots follow its new id and forget only the sub-blocks the change touched");
    RUN(t_changed_elsewhere_keeps, "a change outside a cached chunk keeps all it holds under the new id");
    RUN(t_remap_drops_and_shifts,
        "a value whose chunks were rebuilt loses those chunks' slots and the later ones follow their new index");
    RUN(t_claim_grows_buffer, "a slot's buffer grows to the room a claim asks for and never shrinks");
    RUN(t_free_returns_memory, "freeing a cache gives back every byte it took, and freeing NULL does nothing");
    return TEST_DONE();
}
