/* test_db.c -- unit tests of the keyspace's entries (server/keyspace/db.c): the
 * narrow and wide layouts of a dbent (db.h), what each costs, and the moves
 * between them (a TTL set, a value that grows past the narrow limits), driven
 * through db.h and the string type's API.
 *
 * Each case builds its own database on its own arena and checks at the end
 * that memory returns to where it was. */
#include "arena.h"
#include "keyspace/db.h"
#include "mem.h"
#include "test.h"
#include "types/string/value.h"

#include <stdio.h>
#include <string.h>

#define T0 1700000000000LL /* ms, an arbitrary "now" */

typedef struct fixture {
    arena *a;
    db d;
    size_t mem0; /* bytes in use before the fixture */
} fixture;

static void fx_open(fixture *f)
{
    f->mem0 = mem_used();
    sv_type_register();
    f->a = arena_new();
    db_init(&f->d, 0, f->a, 42);
    db_now = T0;
}

/* Release everything; 1 if memory is back to the level before fx_open. */
static int fx_close(fixture *f)
{
    db_release(&f->d);
    arena_destroy(f->a);
    return mem_used() == f->mem0;
}

static size_t live_bytes(const fixture *f)
{
    arena_stats st;
    arena_get_stats(f->a, &st);
    return st.live_bytes;
}

/* 1 if e is key k holding the string v. */
static int holds(const dbent *e, const char *k, size_t klen, const char *v, size_t vlen)
{
    char buf[2048];

    if (!e || dbent_klen(e) != klen || memcmp(dbent_key(e), k, klen) != 0 || sv_len(e) != vlen || vlen > sizeof(buf) ||
        sv_read(e, 0, vlen, buf) != 0)
        return 0;
    return memcmp(buf, v, vlen) == 0;
}

static void test_small_key_size(void)
{
    fixture f;
    dbent *e;

    fx_open(&f);
    /* redis-benchmark's keys and -d 16 values (bench/vs-redis.sh's memory test) */
    e = sv_set(&f.d, "key:000000000042", 16, "xxxxxxxxxxxxxxxx", 16, 0);
    CHECK(!e->wide);
    CHECK(dbent_klen(e) == 16 && dbent_vlen(e) == 16 && dbent_icap(e) == 16);
    CHECK(dbent_size(e) == 48 && live_bytes(&f) == 48);
    CHECK(dbent_xidx(e) == DB_NOEXPIRE && db_get_expire(&f.d, e) == -1);
    CHECK(holds(db_lookup(&f.d, "key:000000000042", 16), "key:000000000042", 16, "xxxxxxxxxxxxxxxx", 16));
    CHECK(db_delete(&f.d, "key:000000000042", 16) == 1 && live_bytes(&f) == 0);
    CHECK(fx_close(&f));
}

static void test_ttl_makes_wide(void)
{
    fixture f;
    dbent *e, *w;

    fx_open(&f);
    e = sv_set(&f.d, "session:1", 9, "token", 5, 0);
    CHECK(!e->wide);
    e->lru = 12345;
    dbent_set_epoch(e, 3);
    w = db_set_expire(&f.d, e, T0 + 1000);
    CHECK(w->wide && db_find_raw(&f.d, "session:1", 9) == w);
    CHECK(holds(w, "session:1", 9, "token", 5));
    CHECK(w->lru == 12345 && dbent_epoch(w) == 3 && w->type == OBJ_STRING && w->enc == ENC_INLINE);
    CHECK(db_get_expire(&f.d, w) == T0 + 1000 && db_expires(&f.d) == 1);
    CHECK(dbent_size(w) == arena_class_size(sizeof(dbent) + sizeof(dbent_ext) + 9 + sizeof(void *)));
    CHECK(live_bytes(&f) == dbent_size(w));
    /* a second TTL keeps the address */
    CHECK(db_set_expire(&f.d, w, T0 + 2000) == w && db_get_expire(&f.d, w) == T0 + 2000);
    /* a longer value moves it again, with its TTL */
    e = sv_set(&f.d, "session:1", 9, "a token of forty bytes, or thereabouts..", 40, 1);
    CHECK(e->wide && db_get_expire(&f.d, e) == T0 + 2000 && f.d.heap[0].e == e);
    CHECK(holds(e, "session:1", 9, "a token of forty bytes, or thereabouts..", 40));
    CHECK(db_persist(&f.d, e) == 1 && db_get_expire(&f.d, e) == -1 && db_expires(&f.d) == 0);
    db_now = T0 + 5000;
    CHECK(db_lookup(&f.d, "session:1", 9) == e);
    CHECK(fx_close(&f));
}

static void test_wide_lengths(void)
{
    fixture f;
    char key[300], val[1000];
    dbent *e;

    fx_open(&f);
    memset(key, 'k', sizeof(key));
    memset(val, 'v', sizeof(val));
    /* a key of 300 bytes */
    e = sv_set(&f.d, key, sizeof(key), "1", 1, 0);
    CHECK(e->wide && dbent_klen(e) == 300 && holds(e, key, 300, "1", 1));
    /* a room over 255 bytes */
    e = db_add(&f.d, "big", 3, OBJ_STRING, 400);
    CHECK(e->wide && dbent_icap(e) >= 400 && dbent_size(e) == arena_class_size(sizeof(dbent) + 16 + 3 + 400));
    CHECK(db_delete(&f.d, "big", 3) == 1);
    /* a RAW value (over 128 bytes): its length is kept whole */
    e = sv_set(&f.d, "raw", 3, val, sizeof(val), 0);
    CHECK(e->wide && e->enc == ENC_RAW && dbent_vlen(e) == 1000 && holds(e, "raw", 3, val, 1000));
    /* an inline value appended to past the inline limit turns RAW and wide */
    e = sv_set(&f.d, "grow", 4, val, 100, 0);
    CHECK(!e->wide && e->enc == ENC_INLINE);
    CHECK(sv_append(&f.d, &e, val, 200) == 0);
    CHECK(e->wide && e->enc == ENC_RAW && db_find_raw(&f.d, "grow", 4) == e && holds(e, "grow", 4, val, 300));
    /* a short value written over a wide entry fits its room and stays there */
    CHECK(db_set_expire(&f.d, e, T0 + 10) == e);
    e = sv_set(&f.d, "grow", 4, "x", 1, 0);
    CHECK(holds(e, "grow", 4, "x", 1) && db_get_expire(&f.d, e) == -1);
    CHECK(fx_close(&f));
}

static void test_move_keeps_layout_needs(void)
{
    fixture f;
    char val[600];
    dbent *e, *n;

    fx_open(&f);
    memset(val, 'z', sizeof(val));
    e = sv_set(&f.d, "a", 1, val, sizeof(val), 0);
    n = db_move_entry(&f.d, e, &f.d, "b", 1);
    CHECK(n->wide && db_find_raw(&f.d, "a", 1) == NULL && db_find_raw(&f.d, "b", 1) == n);
    CHECK(holds(n, "b", 1, val, sizeof(val)));
    e = sv_set(&f.d, "c", 1, "small", 5, 0);
    e = db_set_expire(&f.d, e, T0 + 100);
    n = db_move_entry(&f.d, e, &f.d, "d", 1);
    CHECK(n->wide && db_get_expire(&f.d, n) == T0 + 100 && holds(n, "d", 1, "small", 5));
    e = sv_set(&f.d, "e", 1, "small", 5, 0);
    n = db_move_entry(&f.d, e, &f.d, "f", 1);
    CHECK(!n->wide && holds(n, "f", 1, "small", 5));
    CHECK(fx_close(&f));
}

static void test_many_keys(void)
{
    fixture f;
    char k[32], v[32];
    int i, ok = 1;
    const int n = 50000;

    fx_open(&f);
    for (i = 0; i < n; i++) {
        snprintf(k, sizeof(k), "key:%012d", i);
        snprintf(v, sizeof(v), "value-%d", i);
        sv_set(&f.d, k, strlen(k), v, strlen(v), 0);
        if (i % 3 == 0)
            db_set_expire(&f.d, db_find_raw(&f.d, k, strlen(k)), T0 + 1000 + i);
    }
    CHECK(db_size(&f.d) == (uint64_t)n && db_expires(&f.d) == (uint32_t)((n + 2) / 3));
    for (i = 0; i < n && ok; i++) {
        snprintf(k, sizeof(k), "key:%012d", i);
        snprintf(v, sizeof(v), "value-%d", i);
        ok = holds(db_find_raw(&f.d, k, strlen(k)), k, strlen(k), v, strlen(v));
    }
    CHECK(ok);
    CHECK(db_find_raw(&f.d, "key:", 4) == NULL);
    for (i = 0; i < n; i += 2) {
        snprintf(k, sizeof(k), "key:%012d", i);
        ok &= db_delete(&f.d, k, strlen(k)) == 1;
    }
    CHECK(ok && db_size(&f.d) == (uint64_t)(n / 2));
    for (i = 1; i < n && ok; i += 2) {
        snprintf(k, sizeof(k), "key:%012d", i);
        ok = db_find_raw(&f.d, k, strlen(k)) != NULL;
    }
    CHECK(ok);
    CHECK(fx_close(&f));
}

int main(void)
{
    RUN(test_small_key_size,
        "a 16-byte key with a 16-byte value and no TTL is one 48-byte object: 16-byte header, key, value");
    RUN(test_ttl_makes_wide, "a TTL moves a narrow entry to the wide layout with its key, value, clock and epoch");
    RUN(test_wide_lengths, "a long key, a room over 255 bytes and a RAW value are wide and keep their exact lengths");
    RUN(test_move_keeps_layout_needs, "moving an entry keeps a long value and a TTL in the wide layout, else narrow");
    RUN(test_many_keys, "50000 keys, a third with TTLs, are found, deleted by half and found again across resizes");
    return TEST_DONE();
}
