/* test_spco.c -- leases, fencing tokens and the change feed of a scratchpad
 * (core/sp/spco.c), alone.
 *
 * Leases are driven through grants, renewals, expiries and releases with an
 * explicit clock, and a random stream is checked against a small model (one
 * holder and token per resource, tokens strictly increasing, a fence check
 * that passes only for the current unexpired token). The feed is checked for
 * order, retention and search after many more changes than it keeps. Memory is
 * checked to come back to its baseline once everything is freed. */
#include "mem.h"
#include "sp/spco.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static size_t mem_base;

static void test_grant_renew_held(void)
{
    spco *co = spco_new(100);
    sp_lease *l, *m;
    const sp_lease *cur;

    CHECK(spco_lease_acquire(co, "r", 1, "a", 1, 1000, 50, &l) == SPCO_GRANTED);
    CHECK(l->token == 101 && l->expire == 1050);
    CHECK(spco_lease_acquire(co, "r", 1, "a", 1, 1020, 50, &m) == SPCO_RENEWED);
    CHECK(m->token == 101 && m->expire == 1070);
    CHECK(spco_lease_acquire(co, "r", 1, "b", 1, 1030, 50, &m) == SPCO_HELD);
    CHECK(m->token == 101 && memcmp(sp_lease_holder(m), "a", 1) == 0);
    CHECK(spco_fence(co, "r", 1, 101, 1069, &cur) == SPCO_FENCE_OK);
    CHECK(spco_fence(co, "r", 1, 101, 1070, &cur) == SPCO_FENCE_NOLEASE);
    CHECK(spco_fence(co, "x", 1, 101, 1000, &cur) == SPCO_FENCE_NOLEASE);
    /* Expired: another holder is granted a new token, the old one is stale. */
    CHECK(spco_lease_acquire(co, "r", 1, "b", 1, 1070, 50, &m) == SPCO_GRANTED);
    CHECK(m->token == 102);
    CHECK(spco_fence(co, "r", 1, 101, 1071, &cur) == SPCO_FENCE_STALE && cur->token == 102);
    CHECK(spco_fence(NULL, "r", 1, 101, 1071, &cur) == SPCO_FENCE_NOLEASE);
    spco_free(co);
}

static void test_leases_sorted_and_expire(void)
{
    spco *co = spco_new(0);
    sp_lease *l;

    spco_lease_acquire(co, "c", 1, "h", 1, 0, 30, &l);
    spco_lease_acquire(co, "a", 1, "h", 1, 0, 10, &l);
    spco_lease_acquire(co, "b", 1, "h", 1, 0, 20, &l);
    CHECK(co->nleases == 3);
    CHECK(co->leases[0]->data[0] == 'a' && co->leases[1]->data[0] == 'b' && co->leases[2]->data[0] == 'c');
    CHECK(co->leases[0]->token == 2 && co->leases[1]->token == 3 && co->leases[2]->token == 1);
    CHECK(spco_lease_next_expire(co) == 10);
    CHECK(spco_lease_expire_due(co, 20) == 2);
    CHECK(co->nleases == 1 && co->leases[0]->data[0] == 'c');
    spco_lease_remove(co, co->leases[0]);
    CHECK(co->nleases == 0 && spco_lease_next_expire(co) == -1);
    /* A token is never reused after removals. */
    spco_lease_acquire(co, "a", 1, "h", 1, 100, 10, &l);
    CHECK(l->token == 4);
    /* The replay's exact state raises the counter, never lowers it. */
    spco_lease_set(co, "z", 1, "q", 1, 50, 999);
    CHECK(co->last_token == 50);
    spco_lease_set(co, "z", 1, "q", 1, 7, 999);
    CHECK(co->last_token == 50 && spco_lease_find(co, "z", 1)->token == 7);
    spco_free(co);
}

static void test_random_against_model(void)
{
    enum { R = 4, H = 3 };
    struct {
        int holder; /* -1 none */
        uint64_t token;
        int64_t expire;
    } m[R];
    spco *co = spco_new(1000);
    uint64_t last = 1000;
    int64_t now = 0;
    int i, ok = 1;

    memset(m, 0, sizeof(m));
    for (i = 0; i < R; i++)
        m[i].holder = -1;
    rng_seed(7);
    for (i = 0; i < 20000 && ok; i++) {
        int r = (int)rng_below(R), h = (int)rng_below(H), act = (int)rng_below(4);
        char rn = (char)('a' + r), hn = (char)('0' + h);
        int live;
        now += (int64_t)rng_below(7);
        live = m[r].holder >= 0 && m[r].expire > now;
        if (act <= 1) {
            sp_lease *l;
            int64_t ttl = 1 + (int64_t)rng_below(20);
            int res = spco_lease_acquire(co, &rn, 1, &hn, 1, now, ttl, &l);
            if (live && m[r].holder != h) {
                ok &= res == SPCO_HELD && l->token == m[r].token;
            } else if (live) {
                ok &= res == SPCO_RENEWED && l->token == m[r].token;
                m[r].expire = now + ttl;
            } else {
                ok &= res == SPCO_GRANTED && l->token == ++last;
                m[r].holder = h;
                m[r].token = last;
                m[r].expire = now + ttl;
            }
        } else if (act == 2) {
            const sp_lease *cur;
            uint64_t t = m[r].token - (rng_below(3) == 0 ? 1 : 0);
            int want = live && t == m[r].token ? SPCO_FENCE_OK : live ? SPCO_FENCE_STALE : SPCO_FENCE_NOLEASE;
            ok &= spco_fence(co, &rn, 1, t, now, &cur) == want;
        } else {
            spco_lease_expire_due(co, now);
            if (!live)
                m[r].holder = -1;
        }
    }
    CHECK(ok);
    CHECK(co->last_token == last);
    spco_free(co);
}

static void test_feed_retention_and_search(void)
{
    spco *co = spco_new(500);
    size_t i;
    int ok = 1;

    for (i = 0; i < 1000; i++) {
        char name[16];
        int n = snprintf(name, sizeof(name), "e%zu", i);
        uint64_t seq = spco_change_add(co, 0, (int64_t)i, (int)(i % SPCO_OP_COUNT), name, (size_t)n, i + 1, i * 2,
                                       "agent", 5, 100);
        ok &= seq == 501 + i;
    }
    CHECK(ok);
    CHECK(co->nchanges == 100 && co->last_seq == 1500);
    CHECK(spco_change_at(co, 0)->seq == 1401 && spco_change_at(co, 99)->seq == 1500);
    CHECK(memcmp(spco_change_at(co, 99)->data, "e999", 4) == 0);
    CHECK(memcmp(sp_change_client(spco_change_at(co, 99)), "agent", 5) == 0);
    CHECK(spco_change_after(co, 0) == 0);
    CHECK(spco_change_after(co, 1400) == 0);
    CHECK(spco_change_after(co, 1401) == 1);
    CHECK(spco_change_after(co, 1499) == 99);
    CHECK(spco_change_after(co, 1500) == 100);
    /* A smaller limit drops the oldest; 0 keeps none but the number counts on. */
    spco_change_add(co, 0, 0, SPCO_OP_DEL, "x", 1, 0, 0, NULL, 0, 10);
    CHECK(co->nchanges == 10 && spco_change_at(co, 0)->seq == 1492);
    spco_change_add(co, 0, 0, SPCO_OP_DEL, "x", 1, 0, 0, NULL, 0, 0);
    CHECK(co->nchanges == 0 && co->last_seq == 1502);
    /* A caller-chosen number (the replay's) is kept when above the last. */
    CHECK(spco_change_add(co, 2000, 5, SPCO_OP_WRITE, "y", 1, 1, 1, NULL, 0, 10) == 2000);
    CHECK(co->last_seq == 2000 && spco_change_after(co, 1999) == 0);
    /* Below last_seq (the rewrite's counters come first): kept, last_seq stays. */
    spco_change_clear(co);
    CHECK(spco_change_add(co, 1990, 5, SPCO_OP_WRITE, "y", 1, 1, 1, NULL, 0, 10) == 1990);
    CHECK(co->last_seq == 2000 && co->nchanges == 1);
    spco_free(co);
}

static void test_op_names(void)
{
    int i, ok = 1;
    for (i = 0; i < SPCO_OP_COUNT; i++) {
        const char *n = spco_op_name(i);
        ok &= spco_op_parse(n, strlen(n)) == i;
    }
    CHECK(ok);
    CHECK(spco_op_parse("nope", 4) == -1 && strcmp(spco_op_name(99), "?") == 0);
}

static void test_memory_back(void)
{
    CHECK(mem_used() == mem_base);
}

int main(void)
{
    mem_base = mem_used();
    RUN(test_grant_renew_held, "a grant gets a new token, a renewal keeps it, another holder is refused until expiry");
    RUN(test_leases_sorted_and_expire, "leases are kept by resource, expire by time, and tokens are never reused");
    RUN(test_random_against_model, "a random stream of grants, fences and expiries agrees with a model");
    RUN(test_feed_retention_and_search, "the feed keeps the last changes in order and finds the first after a number");
    RUN(test_op_names, "every operation's name parses back to it");
    RUN(test_memory_back, "freeing everything gives back its accounted memory");
    return TEST_DONE();
}
