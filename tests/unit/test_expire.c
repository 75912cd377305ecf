/* test_expire.c -- unit tests of key expiry in the keyspace (server/keyspace/db.c),
 * driven through db.h only: the expire heap's order, lazy expiry on lookup,
 * active expiry within a time budget, setting, replacing and removing TTLs,
 * moving an entry with its TTL, and a long random sequence checked against a
 * reference model.
 *
 * Time is simulated: the tests set db_now (and pass "now" to
 * db_active_expire) rather than sleeping. Every random sequence uses a fixed
 * seed, so a failure replays identically. Each case builds its own databases on
 * its own arena and checks at the end that memory returns to where it was. */
#include "arena.h"
#include "keyspace/db.h"
#include "mem.h"
#include "test.h"
#include "types/string/value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define T0 1700000000000LL /* ms, an arbitrary "now" */

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

/* ---- the expired-key hook records what it is told ---- */

#define MAXLOG 20000
static char exp_keys[MAXLOG][16];
static int exp_count;

static void on_expired(db *d, const char *key, size_t klen)
{
    (void)d;
    if (exp_count < MAXLOG && klen < sizeof(exp_keys[0])) {
        memcpy(exp_keys[exp_count], key, klen);
        exp_keys[exp_count][klen] = '\0';
    }
    exp_count++;
}

/* ---- fixtures ---- */

typedef struct fixture {
    arena *a;
    db d[2];
    size_t mem0; /* bytes in use before the fixture */
} fixture;

static void fx_open(fixture *f)
{
    f->mem0 = mem_used();
    sv_type_register(); /* the string's row of the type table frees its values */
    f->a = arena_new();
    db_init(&f->d[0], 0, f->a, 42);
    db_init(&f->d[1], 1, f->a, 42);
    db_on_expired = on_expired;
    exp_count = 0;
    db_now = T0;
}

/* Release everything; 1 if memory is back to the level before fx_open. */
static int fx_close(fixture *f)
{
    db_release(&f->d[0]);
    db_release(&f->d[1]);
    arena_destroy(f->a);
    db_on_expired = NULL;
    return mem_used() == f->mem0;
}

static void key_of(char *buf, size_t cap, int i)
{
    snprintf(buf, cap, "k%d", i);
}

/* Add key "k<i>" holding a short string value "v<i>". */
static dbent *add_key(db *d, int i)
{
    char k[16], v[16];
    key_of(k, sizeof(k), i);
    snprintf(v, sizeof(v), "v%d", i);
    return sv_set(d, k, strlen(k), v, strlen(v), 0);
}

static dbent *raw_find(db *d, int i)
{
    char k[16];
    key_of(k, sizeof(k), i);
    return db_find_raw(d, k, strlen(k));
}

static dbent *lookup(db *d, int i)
{
    char k[16];
    key_of(k, sizeof(k), i);
    return db_lookup(d, k, strlen(k));
}

/* The heap is a min-heap by time, each item's entry records its index, and the
 * number of items equals db_expires. Returns 1 if so. */
static int heap_ok(const db *d)
{
    uint32_t i;
    for (i = 0; i < d->nheap; i++) {
        if (dbent_xidx(d->heap[i].e) != i)
            return 0;
        if (i > 0 && d->heap[(i - 1) / 2].when > d->heap[i].when)
            return 0;
        if (db_get_expire(d, d->heap[i].e) != d->heap[i].when)
            return 0;
    }
    return d->nheap == db_expires(d);
}

/* ---- cases ---- */

static void test_heap_order(void)
{
    fixture f;
    int64_t prev = -1;
    int i, n = 5000, order_ok = 1;

    fx_open(&f);
    rng_state = 0x1234567;
    for (i = 0; i < n; i++) {
        dbent *e = add_key(&f.d[0], i);
        e = db_set_expire(&f.d[0], e, T0 + 1 + (int64_t)(rnd() % 100000));
    }
    CHECK(heap_ok(&f.d[0]));
    CHECK(db_expires(&f.d[0]) == (uint32_t)n);
    /* Change a third of the TTLs up and down: still a heap. */
    for (i = 0; i < n; i += 3)
        db_set_expire(&f.d[0], raw_find(&f.d[0], i), T0 + 1 + (int64_t)(rnd() % 100000));
    CHECK(heap_ok(&f.d[0]));
    /* Popping everything yields non-decreasing times. */
    while (db_expires(&f.d[0]) > 0) {
        int64_t w = f.d[0].heap[0].when;
        if (w < prev)
            order_ok = 0;
        prev = w;
        CHECK(db_active_expire(&f.d[0], w, 1000000) >= 1);
    }
    CHECK(order_ok);
    CHECK(db_size(&f.d[0]) == 0);
    CHECK(exp_count == n);
    CHECK(fx_close(&f));
}

static void test_lazy_expiry(void)
{
    fixture f;
    dbent *e;

    fx_open(&f);
    e = add_key(&f.d[0], 1);
    e = db_set_expire(&f.d[0], e, T0 + 100);
    add_key(&f.d[0], 2);

    db_now = T0 + 99;
    CHECK(lookup(&f.d[0], 1) != NULL);
    CHECK(!db_is_expired(&f.d[0], raw_find(&f.d[0], 1)));
    db_now = T0 + 100; /* expired at exactly its time */
    CHECK(db_is_expired(&f.d[0], raw_find(&f.d[0], 1)));
    CHECK(raw_find(&f.d[0], 1) != NULL); /* the raw lookup does not expire */
    CHECK(exp_count == 0);
    CHECK(lookup(&f.d[0], 1) == NULL);
    CHECK(exp_count == 1 && strcmp(exp_keys[0], "k1") == 0);
    CHECK(raw_find(&f.d[0], 1) == NULL);
    CHECK(db_size(&f.d[0]) == 1 && db_expires(&f.d[0]) == 0);
    CHECK(lookup(&f.d[0], 2) != NULL); /* a key without TTL never expires */

    /* A write lookup expires too, and db_delete counts an expired key as absent. */
    e = add_key(&f.d[0], 3);
    e = db_set_expire(&f.d[0], e, T0 + 50);
    CHECK(db_lookup_write(&f.d[0], "k3", 2) == NULL);
    e = add_key(&f.d[0], 4);
    e = db_set_expire(&f.d[0], e, T0 + 50);
    CHECK(db_delete(&f.d[0], "k4", 2) == 0);
    CHECK(raw_find(&f.d[0], 4) == NULL);
    CHECK(exp_count == 3);
    CHECK(heap_ok(&f.d[0]));
    CHECK(fx_close(&f));
}

static void test_active_expiry(void)
{
    fixture f;
    int i, n = 10000, live = 0, i_ok = 1;
    long long total = 0, got;

    fx_open(&f);
    /* Even keys expire at T0+1..T0+n/2, odd keys an hour later. */
    for (i = 0; i < n; i++) {
        dbent *e = add_key(&f.d[0], i);
        e = db_set_expire(&f.d[0], e, i % 2 ? T0 + 3600000 : T0 + 1 + i / 2);
    }
    /* Nothing is due yet. */
    CHECK(db_active_expire(&f.d[0], T0, 1000000) == 0);
    /* With no budget at all, a call still makes progress but stops early. */
    got = db_active_expire(&f.d[0], T0 + n, 0);
    CHECK(got >= 1 && got < n / 2);
    total += got;
    /* The earliest keys went first. */
    for (i = 0; i < got && i < MAXLOG; i++) {
        char k[16];
        key_of(k, sizeof(k), 2 * i);
        if (strcmp(exp_keys[i], k) != 0)
            i_ok = 0;
    }
    CHECK(i_ok);
    while ((got = db_active_expire(&f.d[0], T0 + n, 0)) > 0)
        total += got;
    CHECK(total == n / 2);
    CHECK(exp_count == n / 2);
    for (i = 0; i < n; i++)
        live += raw_find(&f.d[0], i) != NULL;
    CHECK(live == n / 2);
    CHECK(raw_find(&f.d[0], 1) != NULL && raw_find(&f.d[0], 0) == NULL);
    CHECK(db_expires(&f.d[0]) == (uint32_t)(n / 2));
    CHECK(heap_ok(&f.d[0]));
    /* db_active_expire leaves the command clock as it was. */
    CHECK(db_now == T0);
    CHECK(fx_close(&f));
}

static void test_set_replace_persist(void)
{
    fixture f;
    dbent *e;

    fx_open(&f);
    e = add_key(&f.d[0], 1);
    CHECK(db_get_expire(&f.d[0], e) == -1);
    CHECK(dbent_xidx(e) == DB_NOEXPIRE);
    CHECK(db_persist(&f.d[0], e) == 0);
    e = db_set_expire(&f.d[0], e, T0 + 500);
    CHECK(db_get_expire(&f.d[0], e) == T0 + 500);
    CHECK(db_expires(&f.d[0]) == 1);
    e = db_set_expire(&f.d[0], e, T0 + 100); /* replace, earlier */
    CHECK(db_get_expire(&f.d[0], e) == T0 + 100);
    e = db_set_expire(&f.d[0], e, T0 + 900); /* replace, later */
    CHECK(db_get_expire(&f.d[0], e) == T0 + 900);
    CHECK(db_expires(&f.d[0]) == 1);
    CHECK(db_persist(&f.d[0], e) == 1);
    CHECK(db_get_expire(&f.d[0], e) == -1);
    CHECK(db_expires(&f.d[0]) == 0);
    CHECK(db_persist(&f.d[0], e) == 0);
    /* A persisted key survives a sweep past its old time. */
    CHECK(db_active_expire(&f.d[0], T0 + 10000, 1000000) == 0);
    CHECK(raw_find(&f.d[0], 1) != NULL);

    /* Overwriting a value keeps its TTL only with keepttl. */
    e = db_set_expire(&f.d[0], e, T0 + 700);
    e = sv_set(&f.d[0], "k1", 2, "new", 3, 1);
    CHECK(db_get_expire(&f.d[0], e) == T0 + 700);
    e = sv_set(&f.d[0], "k1", 2, "newer", 5, 0);
    CHECK(db_get_expire(&f.d[0], e) == -1);

    /* Growing an entry (it may move) keeps its heap slot pointing at it. */
    e = db_set_expire(&f.d[0], e, T0 + 800);
    e = sv_set(&f.d[0], "k1", 2, "a value long enough to need a larger entry, over forty bytes", 60, 1);
    CHECK(db_get_expire(&f.d[0], e) == T0 + 800);
    CHECK(heap_ok(&f.d[0]));

    /* Deleting a key with a TTL removes it from the heap. */
    db_delete_entry(&f.d[0], e);
    CHECK(db_expires(&f.d[0]) == 0 && db_size(&f.d[0]) == 0);
    CHECK(fx_close(&f));
}

static void test_move_entry(void)
{
    fixture f;
    dbent *e, *n;
    int i;

    fx_open(&f);
    for (i = 0; i < 100; i++) {
        e = add_key(&f.d[0], i);
        e = db_set_expire(&f.d[0], e, T0 + 1000 + i);
    }
    e = raw_find(&f.d[0], 50);
    n = db_move_entry(&f.d[0], e, &f.d[1], "k50", 3);
    CHECK(raw_find(&f.d[0], 50) == NULL);
    CHECK(db_find_raw(&f.d[1], "k50", 3) == n);
    CHECK(db_get_expire(&f.d[1], n) == T0 + 1050);
    CHECK(db_expires(&f.d[0]) == 99 && db_expires(&f.d[1]) == 1);
    CHECK(sv_len(n) == 3 && memcmp(sv_ptr(n), "v50", 3) == 0);
    CHECK(heap_ok(&f.d[0]) && heap_ok(&f.d[1]));

    /* A rename inside one database keeps the TTL too. */
    e = raw_find(&f.d[0], 7);
    n = db_move_entry(&f.d[0], e, &f.d[0], "renamed", 7);
    CHECK(raw_find(&f.d[0], 7) == NULL);
    CHECK(db_get_expire(&f.d[0], n) == T0 + 1007);
    CHECK(memcmp(sv_ptr(n), "v7", 2) == 0);
    CHECK(heap_ok(&f.d[0]));

    /* A key without TTL stays without one. */
    e = add_key(&f.d[0], 500);
    n = db_move_entry(&f.d[0], e, &f.d[1], "k500", 4);
    CHECK(db_get_expire(&f.d[1], n) == -1);

    /* Moved and renamed keys expire at their old times in their new places. */
    db_now = T0 + 1006;
    CHECK(db_lookup(&f.d[0], "renamed", 7) != NULL);
    db_now = T0 + 1050;
    CHECK(db_lookup(&f.d[1], "k50", 3) == NULL);
    CHECK(db_lookup(&f.d[0], "renamed", 7) == NULL);
    CHECK(db_active_expire(&f.d[0], T0 + 1100, 1000000) == 98);
    CHECK(db_size(&f.d[0]) == 0 && db_size(&f.d[1]) == 1);
    CHECK(fx_close(&f));
}

static void test_swap_keeps_ttls(void)
{
    fixture f;
    dbent *e;

    fx_open(&f);
    e = add_key(&f.d[0], 1);
    e = db_set_expire(&f.d[0], e, T0 + 100);
    add_key(&f.d[1], 2);
    db_swap(&f.d[0], &f.d[1]);
    CHECK(f.d[0].id == 0 && f.d[1].id == 1);
    CHECK(raw_find(&f.d[0], 2) != NULL && raw_find(&f.d[0], 1) == NULL);
    CHECK(db_get_expire(&f.d[1], raw_find(&f.d[1], 1)) == T0 + 100);
    CHECK(db_active_expire(&f.d[1], T0 + 100, 1000000) == 1);
    CHECK(db_size(&f.d[1]) == 0 && db_size(&f.d[0]) == 1);
    CHECK(fx_close(&f));
}

/* ---- the random model ---- */

#define NKEYS 2000
typedef struct mkey {
    int present;
    int64_t when; /* ms, -1 if no TTL */
} mkey;

static mkey model[NKEYS];

/* The model's view of key i at db_now: present and not expired. */
static int model_live(int i)
{
    return model[i].present && (model[i].when < 0 || model[i].when > db_now);
}

static void model_forget_expired(void)
{
    int i;
    for (i = 0; i < NKEYS; i++)
        if (model[i].present && model[i].when >= 0 && model[i].when <= db_now)
            model[i].present = 0;
}

static void test_random_model(void)
{
    fixture f;
    db *d;
    int step, i, bad = 0;
    long long expired_seen = 0, model_expired = 0;

    fx_open(&f);
    d = &f.d[0];
    memset(model, 0, sizeof(model));
    rng_state = 0xfeedface;
    for (step = 0; step < 200000; step++) {
        int k = (int)(rnd() % NKEYS);
        unsigned op = (unsigned)(rnd() % 100);
        dbent *e;

        if (op < 30) { /* lookup: agrees with the model, expiring if due */
            int live = model_live(k);
            if (model[k].present && !live) {
                model[k].present = 0;
                model_expired++;
            }
            e = lookup(d, k);
            if ((e != NULL) != live)
                bad++;
        } else if (op < 50) { /* set, dropping any TTL */
            if (model[k].present && !model_live(k))
                model_expired++;
            add_key(d, k);
            model[k].present = 1;
            model[k].when = -1;
        } else if (op < 70) { /* set a TTL on a live key */
            char kb[16];
            key_of(kb, sizeof(kb), k);
            if (model[k].present && !model_live(k)) {
                model[k].present = 0;
                model_expired++;
            }
            e = db_lookup_write(d, kb, strlen(kb));
            if ((e != NULL) != model[k].present) {
                bad++;
            } else if (e) {
                model[k].when = db_now + 1 + (int64_t)(rnd() % 5000);
                e = db_set_expire(d, e, model[k].when);
            }
        } else if (op < 78) { /* persist */
            char kb[16];
            key_of(kb, sizeof(kb), k);
            if (model[k].present && !model_live(k)) {
                model[k].present = 0;
                model_expired++;
            }
            e = db_lookup_write(d, kb, strlen(kb));
            if (e) {
                if (db_persist(d, e) != (model[k].when >= 0))
                    bad++;
                model[k].when = -1;
            }
        } else if (op < 88) { /* delete */
            char kb[16];
            int live = model_live(k);
            key_of(kb, sizeof(kb), k);
            if (model[k].present && !live)
                model_expired++;
            if (db_delete(d, kb, strlen(kb)) != live)
                bad++;
            model[k].present = 0;
        } else if (op < 97) { /* time passes */
            db_now += (int64_t)(rnd() % 200);
        } else { /* the cron's sweep */
            for (i = 0; i < NKEYS; i++)
                if (model[i].present && !model_live(i))
                    model_expired++;
            db_active_expire(d, db_now, 1000000);
            model_forget_expired();
        }
        if (step % 10000 == 0 && !heap_ok(d))
            bad++;
    }
    /* Final agreement, key by key, on presence and TTL. */
    db_active_expire(d, db_now, 1000000);
    for (i = 0; i < NKEYS; i++)
        if (model[i].present && !model_live(i))
            model_expired++;
    model_forget_expired();
    {
        uint64_t live = 0;
        uint32_t with_ttl = 0;
        for (i = 0; i < NKEYS; i++) {
            dbent *e = raw_find(d, i);
            if ((e != NULL) != model[i].present) {
                bad++;
                continue;
            }
            if (!e)
                continue;
            live++;
            if (db_get_expire(d, e) != model[i].when)
                bad++;
            with_ttl += model[i].when >= 0;
        }
        CHECK(db_size(d) == live);
        CHECK(db_expires(d) == with_ttl);
    }
    expired_seen = exp_count;
    CHECK(expired_seen == model_expired);
    CHECK(heap_ok(d));
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "    %d disagreements with the model\n", bad);
    CHECK(fx_close(&f));
}

int main(void)
{
    RUN(test_heap_order, "the expire heap stays ordered through inserts and changes and pops keys in time order");
    RUN(test_lazy_expiry, "a lookup at or after a key's time deletes it and reports it, a raw lookup does not");
    RUN(test_active_expiry, "active expiry deletes only due keys, earliest first, and resumes after its budget");
    RUN(test_set_replace_persist, "a TTL can be set, moved earlier or later, removed, and follows a moved entry");
    RUN(test_move_entry, "moving or renaming an entry keeps its value and its TTL in the new place");
    RUN(test_swap_keeps_ttls, "swapping two databases swaps their TTLs with their keys");
    RUN(test_random_model, "200000 random sets, TTL changes, lookups, deletes and sweeps agree with a model");
    return TEST_DONE();
}
