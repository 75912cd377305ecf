/* cmd_set.c -- the set commands, with Redis 7.0's replies and errors. Members
 * go through the set type's API (set.h), which hides the intset and the hash
 * table. SPOP is random, so it logs what it did (SREM of the members it took,
 * or DEL when it took them all), never itself; every other write is logged as
 * typed (cmd_call), its replay deterministic. */
#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/client.h"
#include "net/reply.h"
#include "types/set/set.h"

#define SREM_BATCH 1024 /* members per SREM effect of SPOP */

/* A growable list of member copies (results that must outlive a change). */
typedef struct mlist {
    char *buf;
    size_t used, cap;
    size_t *off; /* start of member i in buf; member i ends at off[i+1] or used */
    size_t n, ncap;
} mlist;

/* Copy p[0..len) as the next member. The buffer is allocated on the first call
 * even for an empty member, so that l->buf + l->used is never arithmetic on a
 * null pointer (an SSCAN whose first match was "" did that: undefined behaviour
 * that clang's UBSan reports). */
static void ml_add(mlist *l, const char *p, size_t len)
{
    if (!l->buf || l->used + len > l->cap) {
        l->cap = (l->used + len) * 2 + 64;
        l->buf = xrealloc(l->buf, l->cap);
    }
    if (l->n == l->ncap) {
        l->ncap = l->ncap * 2 + 16;
        l->off = xrealloc(l->off, l->ncap * sizeof(size_t));
    }
    memcpy(l->buf + l->used, p, len);
    l->off[l->n++] = l->used;
    l->used += len;
}

static const char *ml_get(const mlist *l, size_t i, size_t *len)
{
    *len = (i + 1 < l->n ? l->off[i + 1] : l->used) - l->off[i];
    return l->buf + l->off[i];
}

static void ml_free(mlist *l)
{
    xfree(l->buf);
    xfree(l->off);
}

/* Look up key as a set: 0 with *ep (NULL if missing), or -1 after replying
 * WRONGTYPE. */
static int lookup_set(client *c, const sarg *key, int write, dbent **ep)
{
    dbent *e = write ? db_lookup_write(c->db, key->p, key->len) : db_lookup(c->db, key->p, key->len);

    if (e && e->type != OBJ_SET) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    *ep = e;
    return 0;
}

static void reply_elem(client *c, const set_elem *m)
{
    reply_bulk(c, m->p, m->len);
}

/* Reply every member of e as a set (RESP3 ~) or an array. */
static void reply_members(client *c, const dbent *e, int as_set)
{
    set_iter it;
    set_elem m;

    if (as_set)
        reply_set(c, (long)set_card(e));
    else
        reply_array(c, (long)set_card(e));
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        reply_elem(c, &m);
}

static void cmd_sadd(client *c)
{
    dbent *e;
    long long added = 0;
    int i;

    if (lookup_set(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e)
        e = set_create(c->db, c->argv[1].p, c->argv[1].len, c->argv[2].p, c->argv[2].len);
    for (i = 2; i < c->argc; i++)
        added += set_add(e, c->argv[i].p, c->argv[i].len);
    if (added) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_SET, "sadd", c->argv[1].p, c->argv[1].len);
    }
    reply_int(c, added);
}

static void cmd_srem(client *c)
{
    dbent *e;
    long long removed = 0;
    int i, emptied = 0;

    if (lookup_set(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    for (i = 2; i < c->argc; i++) {
        removed += set_remove(e, c->argv[i].p, c->argv[i].len);
        if (set_card(e) == 0) {
            db_delete_entry(c->db, e);
            emptied = 1;
            break;
        }
    }
    if (removed) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_SET, "srem", c->argv[1].p, c->argv[1].len);
        if (emptied)
            signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
    }
    reply_int(c, removed);
}

static void cmd_smembers(client *c)
{
    dbent *e;

    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e)
        reply_set(c, 0);
    else
        reply_members(c, e, 1);
}

static void cmd_sismember(client *c)
{
    dbent *e;

    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e && set_ismember(e, c->argv[2].p, c->argv[2].len));
}

static void cmd_smismember(client *c)
{
    dbent *e;
    int i;

    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++)
        reply_int(c, e && set_ismember(e, c->argv[i].p, c->argv[i].len));
}

static void cmd_scard(client *c)
{
    dbent *e;

    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e ? (long long)set_card(e) : 0);
}

/* ---- SPOP and SRANDMEMBER ---- */

/* The SREM effects of the members l holds, in batches. */
static void prop_srem(client *c, const sarg *key, const mlist *l)
{
    size_t i, len;
    const char *p;

    if (!prop_on)
        return;
    for (i = 0; i < l->n; i++) {
        if (i % SREM_BATCH == 0) {
            if (i)
                prop_end();
            prop_begin(c->dbid);
            prop_str("SREM");
            prop_arg(key);
        }
        p = ml_get(l, i, &len);
        prop_bytes(p, len);
    }
    if (l->n)
        prop_end();
}

/* Remove member (p, len) of e (copied first into l) and reply it. */
static void pop_one(client *c, dbent *e, const set_elem *m, mlist *l)
{
    size_t len;
    const char *p;

    ml_add(l, m->p, m->len);
    p = ml_get(l, l->n - 1, &len);
    set_remove(e, p, len);
    reply_bulk(c, p, len);
}

/* Every member of e, in a list (SPOP's and SRANDMEMBER's choices among them). */
static void all_members(const dbent *e, mlist *l)
{
    set_iter it;
    set_elem m;

    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        ml_add(l, m.p, m.len);
}

static uint64_t rand64(void)
{
    uint64_t x = srv.rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    srv.rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Shuffle the first k positions of idx[0..n) (a partial Fisher-Yates). */
static void shuffle_prefix(size_t *idx, size_t n, size_t k)
{
    size_t i;

    for (i = 0; i < k && i < n; i++) {
        size_t j = i + (size_t)(rand64() % (n - i)), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

static void spop_count(client *c)
{
    long long count;
    uint64_t size, remaining;
    dbent *e;
    mlist l = {0};
    set_elem m;

    if (str_to_ll(c->argv[2].p, c->argv[2].len, &count) < 0 || count < 0) {
        reply_error(c, "ERR value is out of range, must be positive");
        return;
    }
    if (lookup_set(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e || count == 0) {
        reply_set(c, 0);
        return;
    }
    size = set_card(e);
    if ((uint64_t)count >= size) {
        /* Every member: the key goes. */
        reply_members(c, e, 1);
        db_delete_entry(c->db, e);
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_SET, "spop", c->argv[1].p, c->argv[1].len);
        signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
        if (prop_on) {
            prop_begin(c->dbid);
            prop_str("DEL");
            prop_arg(&c->argv[1]);
            prop_end();
        }
        return;
    }
    remaining = size - (uint64_t)count;
    reply_set(c, count);
    if (remaining * 5 > (uint64_t)count) {
        long long i;
        for (i = 0; i < count; i++) {
            set_random(e, &srv.rng, &m);
            pop_one(c, e, &m, &l);
        }
    } else {
        /* Most of the set goes: choose the few that stay, pop the rest, and
         * rebuild the set from what stays, as Redis 7.0 does (so an intset
         * may come back). The work is bounded by the reply (size < 1.2 count). */
        mlist all = {0};
        size_t *idx, i, len;
        const char *p;

        all_members(e, &all);
        idx = xmalloc(all.n * sizeof(size_t));
        for (i = 0; i < all.n; i++)
            idx[i] = i;
        shuffle_prefix(idx, all.n, (size_t)remaining);
        for (i = (size_t)remaining; i < all.n; i++) {
            p = ml_get(&all, idx[i], &len);
            ml_add(&l, p, len);
            set_remove(e, p, len);
            reply_bulk(c, p, len);
        }
        set_reencode_small(e);
        xfree(idx);
        ml_free(&all);
    }
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_SET, "spop", c->argv[1].p, c->argv[1].len);
    prop_srem(c, &c->argv[1], &l);
    ml_free(&l);
}

static void cmd_spop(client *c)
{
    dbent *e;
    set_elem m;
    mlist l = {0};
    int emptied;

    if (c->argc == 3) {
        spop_count(c);
        return;
    }
    if (c->argc > 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (lookup_set(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_null(c);
        return;
    }
    set_random(e, &srv.rng, &m);
    pop_one(c, e, &m, &l);
    emptied = set_card(e) == 0;
    if (emptied)
        db_delete_entry(c->db, e);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    signal_event(c->db, NOTIFY_SET, "spop", c->argv[1].p, c->argv[1].len);
    if (emptied)
        signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[1].p, c->argv[1].len);
    prop_srem(c, &c->argv[1], &l);
    ml_free(&l);
}

/* A small open-addressing set of 64-bit keys (SRANDMEMBER's distinct picks):
 * 1 if v is new (and now kept), 0 if it was picked before. used[] marks the
 * taken slots, so every value, 0 and UINT64_MAX included, is a key. */
static int pick_once(uint64_t *slots, unsigned char *used, size_t cap, uint64_t v)
{
    size_t i = (size_t)(v * 0x9E3779B97F4A7C15ULL) & (cap - 1);

    while (used[i]) {
        if (slots[i] == v)
            return 0;
        i = (i + 1) & (cap - 1);
    }
    used[i] = 1;
    slots[i] = v;
    return 1;
}

static void srandmember_count(client *c)
{
    long long count;
    uint64_t size;
    dbent *e;
    set_elem m;

    if (arg_ll(c, 2, &count) < 0)
        return;
    if (count < -LLONG_MAX) {
        reply_errorf(c, "ERR value is out of range, value must between %lld and %lld", -LLONG_MAX, LLONG_MAX);
        return;
    }
    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || count == 0) {
        reply_array(c, 0);
        return;
    }
    size = set_card(e);
    if (count < 0) {
        long long i;
        /* A huge count ends when the client passes its output limit (it is
         * then being closed), not after -count members. */
        reply_array(c, -count);
        for (i = 0; i < -count && !(c->flags & CLIENT_CLOSE_ASAP); i++) {
            set_random(e, &srv.rng, &m);
            reply_elem(c, &m);
        }
        return;
    }
    if ((uint64_t)count >= size) {
        reply_members(c, e, 0);
        return;
    }
    reply_array(c, count);
    if ((uint64_t)count * 3 > size) {
        /* Many of them: shuffle the members and take the first count. */
        mlist all = {0};
        size_t *idx, i, len;
        const char *p;

        all_members(e, &all);
        idx = xmalloc(all.n * sizeof(size_t));
        for (i = 0; i < all.n; i++)
            idx[i] = i;
        shuffle_prefix(idx, all.n, (size_t)count);
        for (i = 0; i < (size_t)count; i++) {
            p = ml_get(&all, idx[i], &len);
            reply_bulk(c, p, len);
        }
        xfree(idx);
        ml_free(&all);
    } else {
        /* Few of them: random picks, each kept once (by its address or value). */
        size_t cap = 16, got = 0;
        uint64_t *slots;
        unsigned char *used;

        while (cap < (size_t)count * 2)
            cap *= 2;
        slots = xmalloc(cap * sizeof(uint64_t));
        used = xcalloc(cap, 1);
        while (got < (size_t)count) {
            uint64_t key;
            set_random(e, &srv.rng, &m);
            if (e->enc == SET_ENC_INTSET) {
                long long v;
                str_to_ll(m.p, m.len, &v);
                key = (uint64_t)v;
            } else {
                key = (uint64_t)(uintptr_t)m.p;
            }
            if (!pick_once(slots, used, cap, key))
                continue;
            reply_elem(c, &m);
            got++;
        }
        xfree(used);
        xfree(slots);
    }
}

static void cmd_srandmember(client *c)
{
    dbent *e;
    set_elem m;

    if (c->argc == 3) {
        srandmember_count(c);
        return;
    }
    if (c->argc > 3) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_null(c);
        return;
    }
    set_random(e, &srv.rng, &m);
    reply_elem(c, &m);
}

static void cmd_smove(client *c)
{
    const sarg *src = &c->argv[1], *dst = &c->argv[2], *ele = &c->argv[3];
    dbent *s = db_lookup_write(c->db, src->p, src->len), *d = db_lookup_write(c->db, dst->p, dst->len);

    if (!s) {
        reply_int(c, 0);
        return;
    }
    if (s->type != OBJ_SET || (d && d->type != OBJ_SET)) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    if (s == d) {
        reply_int(c, set_ismember(s, ele->p, ele->len));
        return;
    }
    if (!set_remove(s, ele->p, ele->len)) {
        reply_int(c, 0);
        return;
    }
    signal_event(c->db, NOTIFY_SET, "srem", src->p, src->len);
    if (set_card(s) == 0) {
        db_delete_entry(c->db, s);
        signal_event(c->db, NOTIFY_GENERIC, "del", src->p, src->len);
    }
    if (!d)
        d = set_create(c->db, dst->p, dst->len, ele->p, ele->len);
    signal_key_changed(c->db, src->p, src->len);
    if (set_add(d, ele->p, ele->len)) {
        signal_key_changed(c->db, dst->p, dst->len);
        signal_event(c->db, NOTIFY_SET, "sadd", dst->p, dst->len);
    }
    reply_int(c, 1);
}

/* ---- SINTER, SUNION, SDIFF and their STORE and CARD forms ---- */

/* The sets named by keys[0..n): sets[i] NULL for a missing key. 0, or -1
 * after replying WRONGTYPE (every key is checked, as Redis does). *missing
 * counts the missing ones. */
static int lookup_sets(client *c, const sarg *keys, int n, dbent **sets, int *missing)
{
    int i;

    *missing = 0;
    for (i = 0; i < n; i++) {
        if (lookup_set(c, &keys[i], 0, &sets[i]) < 0)
            return -1;
        *missing += sets[i] == NULL;
    }
    return 0;
}

/* Store result t (freed here) at dst, or delete dst when it is empty; reply
 * the cardinality. */
static void store_result(client *c, const sarg *dst, dbent *t, const char *event)
{
    uint64_t n = set_card(t);

    if (n) {
        set_tmp_store(c->db, dst->p, dst->len, t);
        signal_key_changed(c->db, dst->p, dst->len);
        reply_int(c, (long long)n);
        signal_event(c->db, NOTIFY_SET, event, dst->p, dst->len);
        return;
    }
    set_tmp_free(t);
    reply_int(c, 0);
    if (db_delete(c->db, dst->p, dst->len)) {
        signal_key_changed(c->db, dst->p, dst->len);
        signal_event(c->db, NOTIFY_GENERIC, "del", dst->p, dst->len);
    }
}

static int by_card(const void *a, const void *b)
{
    uint64_t x = set_card(*(dbent *const *)a), y = set_card(*(dbent *const *)b);
    return x < y ? -1 : x > y;
}

enum { INTER_REPLY, INTER_STORE, INTER_CARD };

/* SINTER / SINTERSTORE dst / SINTERCARD with limit (0: none). */
static void inter_generic(client *c, const sarg *keys, int n, const sarg *dst, int mode, long long limit)
{
    dbent **sets = xmalloc((size_t)n * sizeof(dbent *)), *t = NULL;
    int missing, i;
    long long found = 0;
    void *slot = NULL;
    set_iter it;
    set_elem m;

    if (lookup_sets(c, keys, n, sets, &missing) < 0)
        goto done;
    if (missing) {
        if (mode == INTER_STORE) {
            if (db_delete(c->db, dst->p, dst->len)) {
                signal_key_changed(c->db, dst->p, dst->len);
                signal_event(c->db, NOTIFY_GENERIC, "del", dst->p, dst->len);
            }
            reply_int(c, 0);
        } else if (mode == INTER_CARD) {
            reply_int(c, 0);
        } else {
            reply_set(c, 0);
        }
        goto done;
    }
    qsort(sets, (size_t)n, sizeof(dbent *), by_card);
    if (mode == INTER_REPLY)
        slot = reply_defer(c);
    else if (mode == INTER_STORE)
        t = set_tmp_new();
    set_iter_init(&it, sets[0]);
    while (set_iter_next(&it, &m)) {
        for (i = 1; i < n; i++)
            if (sets[i] != sets[0] && !set_ismember(sets[i], m.p, m.len))
                break;
        if (i < n)
            continue;
        found++;
        if (mode == INTER_REPLY)
            reply_elem(c, &m);
        else if (mode == INTER_STORE)
            set_add(t, m.p, m.len);
        else if (limit && found >= limit)
            break;
    }
    if (mode == INTER_REPLY)
        reply_defer_set(c, slot, found);
    else if (mode == INTER_STORE)
        store_result(c, dst, t, "sinterstore");
    else
        reply_int(c, found);
done:
    xfree(sets);
}

static void cmd_sinter(client *c)
{
    inter_generic(c, &c->argv[1], c->argc - 1, NULL, INTER_REPLY, 0);
}

static void cmd_sinterstore(client *c)
{
    inter_generic(c, &c->argv[2], c->argc - 2, &c->argv[1], INTER_STORE, 0);
}

static void cmd_sintercard(client *c)
{
    long long numkeys, limit = 0;
    int i;

    if (str_to_ll(c->argv[1].p, c->argv[1].len, &numkeys) < 0 || numkeys < 1) {
        reply_error(c, "ERR numkeys should be greater than 0");
        return;
    }
    if (numkeys > c->argc - 2) {
        reply_error(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    for (i = 2 + (int)numkeys; i < c->argc; i++) {
        if (str_eq_ci(c->argv[i].p, c->argv[i].len, "limit") && i + 1 < c->argc) {
            if (str_to_ll(c->argv[i + 1].p, c->argv[i + 1].len, &limit) < 0 || limit < 0) {
                reply_error(c, "ERR LIMIT can't be negative");
                return;
            }
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    inter_generic(c, &c->argv[2], (int)numkeys, NULL, INTER_CARD, limit);
}

enum { OP_UNION, OP_DIFF };

/* SUNION / SDIFF (dst NULL) and their STORE forms. */
static void union_diff(client *c, const sarg *keys, int n, const sarg *dst, int op)
{
    dbent **sets = xmalloc((size_t)n * sizeof(dbent *)), *t;
    int missing, i, j;
    set_iter it;
    set_elem m;

    if (lookup_sets(c, keys, n, sets, &missing) < 0)
        goto done;
    t = set_tmp_new();
    if (op == OP_UNION) {
        for (i = 0; i < n; i++) {
            if (!sets[i])
                continue;
            set_iter_init(&it, sets[i]);
            while (set_iter_next(&it, &m))
                set_add(t, m.p, m.len);
        }
    } else if (sets[0]) {
        set_iter_init(&it, sets[0]);
        while (set_iter_next(&it, &m)) {
            /* The first set itself among the others removes everything (and a
             * lookup in the set being iterated could move its rehash along). */
            for (j = 1; j < n; j++)
                if (sets[j] && (sets[j] == sets[0] || set_ismember(sets[j], m.p, m.len)))
                    break;
            if (j == n)
                set_add(t, m.p, m.len);
        }
    }
    if (dst) {
        store_result(c, dst, t, op == OP_UNION ? "sunionstore" : "sdiffstore");
    } else {
        reply_members(c, t, 1);
        set_tmp_free(t);
    }
done:
    xfree(sets);
}

static void cmd_sunion(client *c)
{
    union_diff(c, &c->argv[1], c->argc - 1, NULL, OP_UNION);
}

static void cmd_sunionstore(client *c)
{
    union_diff(c, &c->argv[2], c->argc - 2, &c->argv[1], OP_UNION);
}

static void cmd_sdiff(client *c)
{
    union_diff(c, &c->argv[1], c->argc - 1, NULL, OP_DIFF);
}

static void cmd_sdiffstore(client *c)
{
    union_diff(c, &c->argv[2], c->argc - 2, &c->argv[1], OP_DIFF);
}

/* ---- SSCAN ---- */

/* A cursor as Redis reads it with strtoul (see SCAN in cmd_keys.c). */
static int parse_cursor(client *c, const sarg *a, uint64_t *cursor)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(a->p, &end, 10);
    if (isspace((unsigned char)a->p[0]) || *end != '\0' || errno == ERANGE) {
        reply_error(c, "ERR invalid cursor");
        return -1;
    }
    *cursor = v;
    return 0;
}

typedef struct sscan_ctx {
    mlist l;
    const sarg *pat;
} sscan_ctx;

static void sscan_one(void *ctx, const set_elem *m)
{
    sscan_ctx *s = ctx;

    if (!s->pat || glob_match(s->pat->p, s->pat->len, m->p, m->len, 0))
        ml_add(&s->l, m->p, m->len);
}

static void cmd_sscan(client *c)
{
    uint64_t cursor;
    long long count = 10;
    dbent *e;
    sscan_ctx s = {{0}, NULL};
    char cbuf[24];
    size_t i, len;
    const char *p;
    int a;

    if (parse_cursor(c, &c->argv[2], &cursor) < 0)
        return;
    if (lookup_set(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_array(c, 2);
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    for (a = 3; a < c->argc; a += 2) {
        const sarg *o = &c->argv[a];
        if (a + 1 < c->argc && str_eq_ci(o->p, o->len, "count")) {
            if (arg_ll(c, a + 1, &count) < 0)
                return;
            if (count < 1) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
        } else if (a + 1 < c->argc && str_eq_ci(o->p, o->len, "match")) {
            const sarg *pat = &c->argv[a + 1];
            s.pat = pat->len == 1 && pat->p[0] == '*' ? NULL : pat;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    cursor = set_scan(e, cursor, count > LONG_MAX ? LONG_MAX : (long)count, sscan_one, &s);
    reply_array(c, 2);
    reply_bulk(c, cbuf, (size_t)snprintf(cbuf, sizeof(cbuf), "%llu", (unsigned long long)cursor));
    reply_array(c, (long)s.l.n);
    for (i = 0; i < s.l.n; i++) {
        p = ml_get(&s.l, i, &len);
        reply_bulk(c, p, len);
    }
    ml_free(&s.l);
}

#define W (CMD_WRITE | CMD_DENYOOM)
#define R (CMD_READONLY)

/* clang-format off */
const cmd_def cmd_table_set[] = {
    {.name = "sadd", .proc = cmd_sadd, .arity = -3, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "set",
     .summary = "Add one or more members to a set", .since = "1.0.0",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .acl = "write set fast", .key_specs = "RW insert"},
    {.name = "srem", .proc = cmd_srem, .arity = -3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "set",
     .summary = "Remove one or more members from a set", .since = "1.0.0",
     .complexity = "O(N) where N is the number of members to be removed.", .acl = "write set fast",
     .key_specs = "RW delete"},
    {.name = "smembers", .proc = cmd_smembers, .arity = 2, .flags = R, KEYS(1, 1, 1), .group = "set",
     .summary = "Get all the members in a set", .since = "1.0.0", .complexity = "O(N) where N is the set cardinality.",
     .acl = "read set slow", .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "sismember", .proc = cmd_sismember, .arity = 3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "set",
     .summary = "Determine if a given value is a member of a set", .since = "1.0.0", .complexity = "O(1)",
     .acl = "read set fast", .key_specs = "RO"},
    {.name = "smismember", .proc = cmd_smismember, .arity = -3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "set",
     .summary = "Returns the membership associated with the given elements for a set", .since = "6.2.0",
     .complexity = "O(N) where N is the number of elements being checked for membership", .acl = "read set fast",
     .key_specs = "RO access"},
    {.name = "scard", .proc = cmd_scard, .arity = 2, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "set",
     .summary = "Get the number of members in a set", .since = "1.0.0", .complexity = "O(1)",
     .acl = "read set fast", .key_specs = "RO"},
    {.name = "spop", .proc = cmd_spop, .arity = -2, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "set", .summary = "Remove and return one or multiple random members from a set", .since = "1.0.0",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
     .acl = "write set fast", .tips = "nondeterministic_output", .key_specs = "RW access delete"},
    {.name = "srandmember", .proc = cmd_srandmember, .arity = -2, .flags = R, KEYS(1, 1, 1), .group = "set",
     .summary = "Get one or multiple random members from a set", .since = "1.0.0",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
     .acl = "read set slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "smove", .proc = cmd_smove, .arity = 4, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 2, 1), .group = "set",
     .summary = "Move a member from one set to another", .since = "1.0.0", .complexity = "O(1)",
     .acl = "write set fast", .key_specs = "RW access delete;RW insert"},
    {.name = "sinter", .proc = cmd_sinter, .arity = -2, .flags = R, KEYS(1, -1, 1), .group = "set",
     .summary = "Intersect multiple sets", .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .acl = "read set slow", .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "sintercard", .proc = cmd_sintercard, .arity = -3, .flags = R, .group = "set",
     .summary = "Intersect multiple sets and return the cardinality of the result", .since = "7.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .acl = "read set slow", .key_specs = "RO access@k:1,0,1,1"},
    {.name = "sinterstore", .proc = cmd_sinterstore, .arity = -3, .flags = W, KEYS(1, -1, 1), .group = "set",
     .summary = "Intersect multiple sets and store the resulting set in a key", .since = "1.0.0",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .acl = "write set slow", .key_specs = "RW update@1,0,1;RO access@2,-1,1"},
    {.name = "sunion", .proc = cmd_sunion, .arity = -2, .flags = R, KEYS(1, -1, 1), .group = "set",
     .summary = "Add multiple sets", .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.", .acl = "read set slow",
     .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "sunionstore", .proc = cmd_sunionstore, .arity = -3, .flags = W, KEYS(1, -1, 1), .group = "set",
     .summary = "Add multiple sets and store the resulting set in a key", .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.", .acl = "write set slow",
     .key_specs = "OW update@1,0,1;RO access@2,-1,1"},
    {.name = "sdiff", .proc = cmd_sdiff, .arity = -2, .flags = R, KEYS(1, -1, 1), .group = "set",
     .summary = "Subtract multiple sets", .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.", .acl = "read set slow",
     .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "sdiffstore", .proc = cmd_sdiffstore, .arity = -3, .flags = W, KEYS(1, -1, 1), .group = "set",
     .summary = "Subtract multiple sets and store the resulting set in a key", .since = "1.0.0",
     .complexity = "O(N) where N is the total number of elements in all given sets.", .acl = "write set slow",
     .key_specs = "OW update@1,0,1;RO access@2,-1,1"},
    {.name = "sscan", .proc = cmd_sscan, .arity = -3, .flags = R, KEYS(1, 1, 1), .group = "set",
     .summary = "Incrementally iterate Set elements", .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .acl = "read set slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = NULL},
};
/* clang-format on */
