/* cmd_hash.c -- the hash commands, with Redis 7.0's replies and errors. They
 * parse, call the hash API (hash.h: the encodings stay behind it), reply, and
 * report the change (signal_key_changed); every effect is the command as typed
 * (cmd_call logs it) except HINCRBYFLOAT's, which logs the result as an HSET,
 * as Redis does (float arithmetic is not replayed). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/fvht.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "types/hash/hash.h"

/* Redis's ld2string buffer (MAX_LONG_DOUBLE_CHARS). */
#define LD_BUF 5200

static uint64_t hrng;

static uint64_t rng_next(void)
{
    uint64_t x;
    if (!hrng)
        hrng = (uint64_t)now_us() | 1;
    x = hrng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    hrng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* The hash at key for reading: NULL if missing (*wrong 0) or of another type
 * (*wrong 1, WRONGTYPE replied). */
static dbent *hash_read(client *c, const sarg *key, int *wrong)
{
    dbent *e = db_lookup(c->db, key->p, key->len);
    *wrong = 0;
    if (e && e->type != OBJ_HASH) {
        reply_error(c, ERR_WRONGTYPE);
        *wrong = 1;
        return NULL;
    }
    return e;
}

/* The hash at key for writing, created if missing; NULL after WRONGTYPE. */
static dbent *hash_write_or_create(client *c, const sarg *key)
{
    dbent *e = db_lookup_write(c->db, key->p, key->len);
    if (e && e->type != OBJ_HASH) {
        reply_error(c, ERR_WRONGTYPE);
        return NULL;
    }
    return e ? e : hash_create(c->db, key->p, key->len);
}

/* The longest of argv[from..to] (the conversion check before a write). */
static size_t longest_arg(client *c, int from, int to)
{
    size_t m = 0;
    int i;
    for (i = from; i <= to; i++)
        if (c->argv[i].len > m)
            m = c->argv[i].len;
    return m;
}

static void hset_generic(client *c, int hmset)
{
    const sarg *key = &c->argv[1];
    long long added = 0;
    dbent *e;
    int i;

    if (c->argc % 2 == 1) {
        reply_errorf(c, "ERR wrong number of arguments for '%s' command", hmset ? "hmset" : "hset");
        return;
    }
    if (!(e = hash_write_or_create(c, key)))
        return;
    hash_fit(c->db, &e, longest_arg(c, 2, c->argc - 1));
    for (i = 2; i < c->argc; i += 2)
        added += hash_set(c->db, &e, c->argv[i].p, c->argv[i].len, c->argv[i + 1].p, c->argv[i + 1].len);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_HASH, "hset", key->p, key->len);
    if (hmset)
        reply_ok(c);
    else
        reply_int(c, added);
}

static void cmd_hset(client *c)
{
    hset_generic(c, 0);
}

static void cmd_hmset(client *c)
{
    hset_generic(c, 1);
}

static void cmd_hsetnx(client *c)
{
    const sarg *key = &c->argv[1];
    const char *v;
    size_t vlen;
    dbent *e;

    if (!(e = hash_write_or_create(c, key)))
        return;
    /* As Redis: an existing field leaves the hash as it is (no conversion). */
    if (hash_get(e, c->argv[2].p, c->argv[2].len, &v, &vlen)) {
        reply_int(c, 0);
        return;
    }
    hash_fit(c->db, &e, longest_arg(c, 2, 3));
    hash_set(c->db, &e, c->argv[2].p, c->argv[2].len, c->argv[3].p, c->argv[3].len);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_HASH, "hset", key->p, key->len);
    reply_int(c, 1);
}

static void cmd_hget(client *c)
{
    const char *v;
    size_t vlen;
    int wrong;
    dbent *e = hash_read(c, &c->argv[1], &wrong);

    if (wrong)
        return;
    if (e && hash_get(e, c->argv[2].p, c->argv[2].len, &v, &vlen))
        reply_bulk(c, v, vlen);
    else
        reply_null(c);
}

static void cmd_hmget(client *c)
{
    const char *v;
    size_t vlen;
    int wrong, i;
    dbent *e = hash_read(c, &c->argv[1], &wrong);

    if (wrong)
        return;
    reply_array(c, c->argc - 2);
    for (i = 2; i < c->argc; i++) {
        if (e && hash_get(e, c->argv[i].p, c->argv[i].len, &v, &vlen))
            reply_bulk(c, v, vlen);
        else
            reply_null(c);
    }
}

#define GET_FIELDS 1
#define GET_VALUES 2

typedef struct getall_ctx {
    client *c;
    int what;
} getall_ctx;

static int getall_one(void *ctx, const hash_pair *p)
{
    getall_ctx *g = ctx;
    if (g->what & GET_FIELDS)
        reply_bulk(g->c, p->f, p->flen);
    if (g->what & GET_VALUES)
        reply_bulk(g->c, p->v, p->vlen);
    return 0;
}

static void getall_generic(client *c, int what)
{
    getall_ctx g = {c, what};
    int wrong;
    dbent *e = hash_read(c, &c->argv[1], &wrong);
    size_t n;

    if (wrong)
        return;
    n = e ? hash_len(e) : 0;
    if (what == (GET_FIELDS | GET_VALUES))
        reply_map(c, (long)n);
    else
        reply_array(c, (long)n);
    if (e)
        hash_foreach(e, getall_one, &g);
}

static void cmd_hgetall(client *c)
{
    getall_generic(c, GET_FIELDS | GET_VALUES);
}

static void cmd_hkeys(client *c)
{
    getall_generic(c, GET_FIELDS);
}

static void cmd_hvals(client *c)
{
    getall_generic(c, GET_VALUES);
}

static void cmd_hdel(client *c)
{
    const sarg *key = &c->argv[1];
    long long deleted = 0;
    dbent *e = db_lookup_write(c->db, key->p, key->len);
    int i, emptied = 0;

    if (e && e->type != OBJ_HASH) {
        reply_error(c, ERR_WRONGTYPE);
        return;
    }
    if (!e) {
        reply_int(c, 0);
        return;
    }
    for (i = 2; i < c->argc; i++) {
        deleted += hash_del(c->db, e, c->argv[i].p, c->argv[i].len);
        if (hash_len(e) == 0) {
            db_delete_entry(c->db, e);
            emptied = 1;
            break;
        }
    }
    if (!emptied && deleted)
        hash_compact(c->db, e);
    if (deleted) {
        signal_key_changed(c->db, key->p, key->len);
        signal_event(c->db, NOTIFY_HASH, "hdel", key->p, key->len);
        if (emptied)
            signal_event(c->db, NOTIFY_GENERIC, "del", key->p, key->len);
    }
    reply_int(c, deleted);
}

static void cmd_hlen(client *c)
{
    int wrong;
    dbent *e = hash_read(c, &c->argv[1], &wrong);
    if (!wrong)
        reply_int(c, e ? (long long)hash_len(e) : 0);
}

static void cmd_hstrlen(client *c)
{
    const char *v;
    size_t vlen = 0;
    int wrong;
    dbent *e = hash_read(c, &c->argv[1], &wrong);

    if (wrong)
        return;
    if (!e || !hash_get(e, c->argv[2].p, c->argv[2].len, &v, &vlen))
        vlen = 0;
    reply_int(c, (long long)vlen);
}

static void cmd_hexists(client *c)
{
    const char *v;
    size_t vlen;
    int wrong;
    dbent *e = hash_read(c, &c->argv[1], &wrong);

    if (!wrong)
        reply_int(c, e && hash_get(e, c->argv[2].p, c->argv[2].len, &v, &vlen));
}

static void cmd_hincrby(client *c)
{
    const sarg *key = &c->argv[1], *f = &c->argv[2];
    long long incr, v = 0;
    const char *old;
    size_t olen, n;
    char buf[24];
    dbent *e;

    if (arg_ll(c, 3, &incr) < 0)
        return;
    if (!(e = hash_write_or_create(c, key)))
        return;
    if (hash_get(e, f->p, f->len, &old, &olen) && str_to_ll(old, olen, &v) < 0) {
        reply_error(c, "ERR hash value is not an integer");
        return;
    }
    if ((incr < 0 && v < 0 && incr < LLONG_MIN - v) || (incr > 0 && v > 0 && incr > LLONG_MAX - v)) {
        reply_error(c, ERR_OVERFLOW);
        return;
    }
    v += incr;
    n = ll_to_str(buf, v);
    hash_set(c->db, &e, f->p, f->len, buf, n);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_HASH, "hincrby", key->p, key->len);
    reply_int(c, v);
}

static void cmd_hincrbyfloat(client *c)
{
    const sarg *key = &c->argv[1], *f = &c->argv[2];
    long double incr, v = 0;
    const char *old;
    size_t olen, n;
    char *buf;
    dbent *e;

    if (str_to_ld(c->argv[3].p, c->argv[3].len, &incr) < 0) {
        reply_error(c, ERR_NOTFLOAT);
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        reply_error(c, "ERR value is NaN or Infinity");
        return;
    }
    if (!(e = hash_write_or_create(c, key)))
        return;
    if (hash_get(e, f->p, f->len, &old, &olen) && str_to_ld(old, olen, &v) < 0) {
        reply_error(c, "ERR hash value is not a float");
        return;
    }
    v += incr;
    if (isnan(v) || isinf(v)) {
        reply_error(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    buf = xmalloc(LD_BUF);
    n = ld_to_str(buf, LD_BUF, v);
    hash_set(c->db, &e, f->p, f->len, buf, n);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_HASH, "hincrbyfloat", key->p, key->len);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("HSET");
        prop_arg(key);
        prop_arg(f);
        prop_bytes(buf, n);
        prop_end();
    }
    reply_bulk(c, buf, n);
    xfree(buf);
}

/* ---- HRANDFIELD ---- */

static void reply_pair(client *c, const hash_pair *p, int withvalues)
{
    if (withvalues && c->resp == 3)
        reply_array(c, 2);
    reply_bulk(c, p->f, p->flen);
    if (withvalues)
        reply_bulk(c, p->v, p->vlen);
}

/* count distinct fields (count < len): a partial shuffle of every pair when
 * count is a large part of the hash, else random draws with duplicates
 * dropped (a scratch table of the fields drawn), so the work follows count. */
static void randfield_distinct(client *c, dbent *e, size_t count, int withvalues)
{
    size_t len = hash_len(e), i;

    if (count * 3 > len) {
        hash_pair *all = xmalloc(sizeof(hash_pair) * len);
        hash_pairs(e, all);
        for (i = 0; i < count; i++) {
            size_t j = i + rng_next() % (len - i);
            hash_pair t = all[i];
            all[i] = all[j];
            all[j] = t;
            reply_pair(c, &all[i], withvalues);
        }
        xfree(all);
    } else {
        fvht *seen = fvht_new(1);
        i = 0;
        while (i < count) {
            hash_pair p;
            hash_random(e, &hrng, &p);
            if (!fvht_set(seen, p.f, p.flen, "", 0))
                continue;
            reply_pair(c, &p, withvalues);
            i++;
        }
        fvht_free(seen);
    }
}

static void cmd_hrandfield(client *c)
{
    long long l = 0;
    int withvalues = 0, wrong;
    size_t count, i, len;
    dbent *e;

    if (c->argc >= 3) {
        if (arg_ll(c, 2, &l) < 0)
            return;
        if (l < -LLONG_MAX) {
            reply_error(c,
                        "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
            return;
        }
        if (c->argc > 4 || (c->argc == 4 && !str_eq_ci(c->argv[3].p, c->argv[3].len, "withvalues"))) {
            reply_error(c, ERR_SYNTAX);
            return;
        }
        if (c->argc == 4) {
            withvalues = 1;
            if (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2) {
                reply_error(c, "ERR value is out of range");
                return;
            }
        }
    }
    e = hash_read(c, &c->argv[1], &wrong);
    if (wrong)
        return;
    if (c->argc == 2) {
        hash_pair p;
        if (!e) {
            reply_null(c);
            return;
        }
        if (!hrng)
            rng_next();
        hash_random(e, &hrng, &p);
        reply_bulk(c, p.f, p.flen);
        return;
    }
    if (!e || l == 0) {
        reply_array(c, 0);
        return;
    }
    if (!hrng)
        rng_next();
    len = hash_len(e);
    if (l < 0 || l == 1) {
        count = l < 0 ? (size_t)-l : 1;
        reply_array(c, (long)(withvalues && c->resp == 2 ? count * 2 : count));
        if (hash_is_compact(e)) {
            /* One pass to index the pairs, then each draw is O(1). */
            hash_pair *all = xmalloc(sizeof(hash_pair) * len);
            hash_pairs(e, all);
            /* A huge count ends when the client passes its output limit (it is
             * then being closed), not after -count draws, as in SRANDMEMBER
             * and ZRANDMEMBER (HRANDFIELD h -4611686018427387903 held the
             * server for ever; found by tests/fuzz/cmdfuzz.py). */
            for (i = 0; i < count && !(c->flags & CLIENT_CLOSE_ASAP); i++)
                reply_pair(c, &all[rng_next() % len], withvalues);
            xfree(all);
        } else {
            for (i = 0; i < count && !(c->flags & CLIENT_CLOSE_ASAP); i++) {
                hash_pair p;
                hash_random(e, &hrng, &p);
                reply_pair(c, &p, withvalues);
            }
        }
        return;
    }
    count = (size_t)l;
    if (count >= len) {
        hash_pair *all = xmalloc(sizeof(hash_pair) * len);
        hash_pairs(e, all);
        reply_array(c, (long)(withvalues && c->resp == 2 ? len * 2 : len));
        for (i = 0; i < len; i++)
            reply_pair(c, &all[i], withvalues);
        xfree(all);
        return;
    }
    reply_array(c, (long)(withvalues && c->resp == 2 ? count * 2 : count));
    randfield_distinct(c, e, count, withvalues);
}

/* ---- HSCAN ---- */

typedef struct scan_acc {
    hash_pair *v;
    size_t n, cap;
} scan_acc;

static void scan_add(void *ctx, const hash_pair *p)
{
    scan_acc *a = ctx;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->v = xrealloc(a->v, sizeof(hash_pair) * a->cap);
    }
    a->v[a->n++] = *p;
}

/* Parse a SCAN cursor as Redis does with strtoul (as SCAN's own parser). */
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

/* HSCAN key cursor [MATCH pattern] [COUNT n]: a compact hash is returned
 * whole with cursor 0; a table is walked as SCAN walks the keyspace (until
 * count strings, a field and a value counting two as in Redis, or 10 * count
 * buckets), then filtered by the pattern. */
static void cmd_hscan(client *c)
{
    uint64_t cursor;
    long long count = 10, steps;
    const sarg *pat = NULL;
    scan_acc acc = {NULL, 0, 0};
    char cbuf[24];
    size_t i, kept = 0;
    int j, wrong;
    dbent *e;

    if (parse_cursor(c, &c->argv[2], &cursor) < 0)
        return;
    e = hash_read(c, &c->argv[1], &wrong);
    if (wrong)
        return;
    if (!e) {
        reply_array(c, 2);
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    for (j = 3; j < c->argc; j += 2) {
        const sarg *a = &c->argv[j];
        int has_value = j + 1 < c->argc;
        if (has_value && str_eq_ci(a->p, a->len, "count")) {
            if (arg_ll(c, j + 1, &count) < 0)
                return;
            if (count < 1) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
        } else if (has_value && str_eq_ci(a->p, a->len, "match")) {
            pat = &c->argv[j + 1];
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (pat && pat->len == 1 && pat->p[0] == '*')
        pat = NULL;
    steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    do {
        cursor = hash_scan(e, cursor, scan_add, &acc);
    } while (cursor && steps-- && (long long)acc.n * 2 < count);
    for (i = 0; i < acc.n; i++)
        if (!pat || glob_match(pat->p, pat->len, acc.v[i].f, acc.v[i].flen, 0))
            acc.v[kept++] = acc.v[i];
    reply_array(c, 2);
    reply_bulk(c, cbuf, (size_t)snprintf(cbuf, sizeof(cbuf), "%llu", (unsigned long long)cursor));
    reply_array(c, (long)kept * 2);
    for (i = 0; i < kept; i++) {
        reply_bulk(c, acc.v[i].f, acc.v[i].flen);
        reply_bulk(c, acc.v[i].v, acc.v[i].vlen);
    }
    xfree(acc.v);
}

#define W (CMD_WRITE | CMD_DENYOOM)
#define R (CMD_READONLY)
/* clang-format off */
const cmd_def cmd_table_hash[] = {
    {.name = "hset", .proc = cmd_hset, .arity = -4, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Set the string value of a hash field", .since = "2.0.0",
     .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
     .acl = "write hash fast", .key_specs = "RW update"},
    {.name = "hsetnx", .proc = cmd_hsetnx, .arity = 4, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Set the value of a hash field, only if the field does not exist", .since = "2.0.0",
     .complexity = "O(1)", .acl = "write hash fast", .key_specs = "RW insert"},
    {.name = "hmset", .proc = cmd_hmset, .arity = -4, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Set multiple hash fields to multiple values", .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields being set.", .acl = "write hash fast",
     .key_specs = "RW update"},
    {.name = "hget", .proc = cmd_hget, .arity = 3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get the value of a hash field", .since = "2.0.0", .complexity = "O(1)",
     .acl = "read hash fast", .key_specs = "RO access"},
    {.name = "hmget", .proc = cmd_hmget, .arity = -3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get the values of all the given hash fields", .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields being requested.", .acl = "read hash fast",
     .key_specs = "RO access"},
    {.name = "hgetall", .proc = cmd_hgetall, .arity = 2, .flags = R, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get all the fields and values in a hash", .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.", .acl = "read hash slow",
     .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "hdel", .proc = cmd_hdel, .arity = -3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Delete one or more hash fields", .since = "2.0.0",
     .complexity = "O(N) where N is the number of fields to be removed.", .acl = "write hash fast",
     .key_specs = "RW delete"},
    {.name = "hlen", .proc = cmd_hlen, .arity = 2, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get the number of fields in a hash", .since = "2.0.0", .complexity = "O(1)",
     .acl = "read hash fast", .key_specs = "RO"},
    {.name = "hstrlen", .proc = cmd_hstrlen, .arity = 3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get the length of the value of a hash field", .since = "3.2.0", .complexity = "O(1)",
     .acl = "read hash fast", .key_specs = "RO"},
    {.name = "hexists", .proc = cmd_hexists, .arity = 3, .flags = R | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Determine if a hash field exists", .since = "2.0.0", .complexity = "O(1)",
     .acl = "read hash fast", .key_specs = "RO"},
    {.name = "hkeys", .proc = cmd_hkeys, .arity = 2, .flags = R, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get all the fields in a hash", .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.", .acl = "read hash slow",
     .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "hvals", .proc = cmd_hvals, .arity = 2, .flags = R, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get all the values in a hash", .since = "2.0.0",
     .complexity = "O(N) where N is the size of the hash.", .acl = "read hash slow",
     .tips = "nondeterministic_output_order", .key_specs = "RO access"},
    {.name = "hincrby", .proc = cmd_hincrby, .arity = 4, .flags = W | CMD_FAST, KEYS(1, 1, 1), .group = "hash",
     .summary = "Increment the integer value of a hash field by the given number", .since = "2.0.0",
     .complexity = "O(1)", .acl = "write hash fast", .key_specs = "RW access update"},
    {.name = "hincrbyfloat", .proc = cmd_hincrbyfloat, .arity = 4, .flags = W | CMD_OWN_EFFECT | CMD_FAST,
     KEYS(1, 1, 1), .group = "hash", .summary = "Increment the float value of a hash field by the given amount",
     .since = "2.6.0", .complexity = "O(1)", .acl = "write hash fast", .key_specs = "RW access update"},
    {.name = "hrandfield", .proc = cmd_hrandfield, .arity = -2, .flags = R, KEYS(1, 1, 1), .group = "hash",
     .summary = "Get one or multiple random fields from a hash", .since = "6.2.0",
     .complexity = "O(N) where N is the number of fields returned", .acl = "read hash slow",
     .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "hscan", .proc = cmd_hscan, .arity = -3, .flags = R, KEYS(1, 1, 1), .group = "hash",
     .summary = "Incrementally iterate hash fields and associated values", .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .acl = "read hash slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {0},
};
/* clang-format on */
