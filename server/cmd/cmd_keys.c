/* cmd_keys.c -- the generic key commands: DEL, UNLINK, EXISTS, TYPE, RENAME,
 * RENAMENX, COPY, MOVE, SWAPDB, TOUCH, RANDOMKEY, KEYS, SCAN, the EXPIRE family,
 * TTL and its relatives, PERSIST and OBJECT, with Redis 7.0's replies and errors.
 *
 * Why here: these commands work on entries whatever their type, through the
 * keyspace API (db.h) only; the string layer is used for nothing but OBJECT
 * ENCODING's name.
 *
 * Invariants: every key a command changes (its value, its name, its TTL, its
 * deletion) is reported with signal_key_changed, once per key, after the change; a
 * command that changes nothing reports nothing. Expired keys are never returned:
 * lookups expire them lazily, KEYS skips them, SCAN filters them. Lookups here
 * also apply a scratchpad's due entry expiries (db_subexpire_due), so one whose
 * entries have all expired counts as missing (KEYS, which cannot change the
 * table while walking it, still lists it until the active cycle reaps it).
 *
 * Access clock: lookups touch the entry's LRU/LFU field (db.h) except where
 * Redis looks without touching (TYPE, EXISTS, the TTL family, OBJECT, SCAN's
 * TYPE filter): key_peek. OBJECT IDLETIME reads the field as seconds, OBJECT
 * FREQ as a decayed LFU counter, each refused under the other kind of policy
 * with Redis's errors. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/signal.h"
#include "keyspace/type.h"
#include "core/mem.h"
#include "cmd/propagate.h"
#include "cmd/multi.h"
#include "net/reply.h"
#include "core/util.h"

#define ERR_SAMEOBJ "ERR source and destination objects are the same"

/* ---- helpers ---- */

/* The name TYPE and SCAN TYPE use for an entry's type ("none" for NULL). */
static const char *type_name(const dbent *e)
{
    if (!e)
        return "none";
    return type_of(e)->name;
}

/* The live entry for key in d, or NULL: db_lookup (read: counts a keyspace hit
 * or miss) or db_lookup_write. Both apply a due sub-expiry, so a scratchpad
 * whose entries have all expired is gone here as it is for the SP.* commands. */
static dbent *key_lookup(db *d, const char *key, size_t klen, int read)
{
    return read ? db_lookup(d, key, klen) : db_lookup_write(d, key, klen);
}

static dbent *key_read(db *d, const char *key, size_t klen)
{
    return key_lookup(d, key, klen, 1);
}

/* As key_read, leaving the entry's access clock as it was. */
static dbent *key_peek(db *d, const char *key, size_t klen)
{
    dbent *e;

    db_touch_off++;
    e = key_lookup(d, key, klen, 1);
    db_touch_off--;
    return e;
}

static dbent *key_write(db *d, const char *key, size_t klen)
{
    return key_lookup(d, key, klen, 0);
}

/* Parse argv[i] as an int as Redis's getIntFromObjectOrReply does: a message of
 * its own for a number outside the int range. msg, if not NULL, replaces both
 * errors (SWAPDB's "invalid first DB index"). 0, or -1 after replying. */
static int arg_int(client *c, int i, const char *msg, int *out)
{
    long long v;

    if (str_to_ll(c->argv[i].p, c->argv[i].len, &v) < 0) {
        reply_error(c, msg ? msg : ERR_NOTINT);
        return -1;
    }
    if (v < INT_MIN || v > INT_MAX) {
        if (msg)
            reply_error(c, msg);
        else
            reply_errorf(c, "ERR value is out of range, value must between %d and %d", INT_MIN, INT_MAX);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The database numbered by argv[i], or NULL after replying (not a number, or
 * out of range). */
static db *arg_db(client *c, int i)
{
    int id;

    if (arg_int(c, i, NULL, &id) < 0)
        return NULL;
    if (id < 0 || id >= srv.cfg.databases) {
        reply_error(c, ERR_DBINDEX);
        return NULL;
    }
    return &srv.dbs[id];
}

static int same_bytes(const sarg *a, const sarg *b)
{
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* 1 if e's value can be duplicated: inline bytes always; an out-of-line value
 * if its type has a dup_value. */
static int value_copyable(const dbent *e)
{
    return e->enc == ENC_INLINE || type_of(e)->dup_value != NULL;
}

/* The type's moved hook, if it has one, for e now at a new key or database. */
static void note_moved(db *d, dbent *e)
{
    if (type_of(e)->moved)
        type_of(e)->moved(d, e);
}

/* Add key to dst as an independent copy of e's value (same type and encoding,
 * no TTL) and return the new entry. e must stay linked in its database; key must
 * not exist in dst. The caller checked that e's value can be copied
 * (value_copyable). Inline bytes are copied into the new entry; an out-of-line
 * value goes through its type's dup_value (a compressed string is copied chunk
 * by chunk without recompressing it). */
static dbent *value_copy(const dbent *e, db *dst, const char *key, size_t klen)
{
    size_t room = e->enc == ENC_INLINE ? dbent_vlen(e) : sizeof(void *);
    dbent *n = db_add(dst, key, klen, e->type, room);

    if (e->enc == ENC_INLINE)
        memcpy(dbent_room(n), dbent_room((dbent *)e), dbent_vlen(e));
    else
        dbent_set_ptr(n, type_of(e)->dup_value(e));
    if (dbent_vlen(e) > DBENT_NARROW_MAX)
        n = db_wide_entry(dst, n);
    n->enc = e->enc;
    dbent_set_vlen(n, dbent_vlen(e));
    note_moved(dst, n);
    return n;
}

/* ---- DEL, UNLINK, EXISTS, TOUCH, TYPE ---- */

/* DEL and UNLINK: both free the values at once (there is no background freeing
 * thread); UNLINK exists for compatibility. */
static void cmd_del(client *c)
{
    long long n = 0;
    int i;

    for (i = 1; i < c->argc; i++) {
        dbent *e = key_write(c->db, c->argv[i].p, c->argv[i].len);
        if (e) {
            db_delete_entry(c->db, e);
            signal_key_changed(c->db, c->argv[i].p, c->argv[i].len);
            signal_event(c->db, NOTIFY_GENERIC, "del", c->argv[i].p, c->argv[i].len);
            n++;
        }
    }
    reply_int(c, n);
}

/* EXISTS and TOUCH: the count of arguments naming a live key (a key named
 * twice counts twice). */
static void cmd_exists(client *c)
{
    long long n = 0;
    int i;

    int touch = str_eq_ci(c->argv[0].p, c->argv[0].len, "touch");

    for (i = 1; i < c->argc; i++)
        if ((touch ? key_read : key_peek)(c->db, c->argv[i].p, c->argv[i].len))
            n++;
    reply_int(c, n);
}

static void cmd_type(client *c)
{
    reply_status(c, type_name(key_peek(c->db, c->argv[1].p, c->argv[1].len)));
}

/* ---- RENAME, RENAMENX, MOVE, COPY, SWAPDB ---- */

static void rename_generic(client *c, int nx)
{
    const sarg *src = &c->argv[1], *dst = &c->argv[2];
    dbent *e = key_write(c->db, src->p, src->len), *old;

    if (!e) {
        reply_error(c, ERR_NOKEY);
        return;
    }
    if (same_bytes(src, dst)) {
        if (nx)
            reply_int(c, 0);
        else
            reply_ok(c);
        return;
    }
    old = key_write(c->db, dst->p, dst->len);
    if (old) {
        if (nx) {
            reply_int(c, 0);
            return;
        }
        db_delete_entry(c->db, old);
    }
    note_moved(c->db, db_move_entry(c->db, e, c->db, dst->p, dst->len));
    signal_key_changed(c->db, src->p, src->len);
    signal_key_changed(c->db, dst->p, dst->len);
    signal_event(c->db, NOTIFY_GENERIC, "rename_from", src->p, src->len);
    signal_event(c->db, NOTIFY_GENERIC, "rename_to", dst->p, dst->len);
    if (nx)
        reply_int(c, 1);
    else
        reply_ok(c);
}

static void cmd_rename(client *c)
{
    rename_generic(c, 0);
}

static void cmd_renamenx(client *c)
{
    rename_generic(c, 1);
}

static void cmd_move(client *c)
{
    const sarg *key = &c->argv[1];
    db *dst = arg_db(c, 2);
    dbent *e;

    if (!dst)
        return;
    if (dst == c->db) {
        reply_error(c, ERR_SAMEOBJ);
        return;
    }
    e = key_write(c->db, key->p, key->len);
    if (!e || key_write(dst, key->p, key->len)) {
        reply_int(c, 0);
        return;
    }
    note_moved(dst, db_move_entry(c->db, e, dst, key->p, key->len));
    signal_key_changed(c->db, key->p, key->len);
    signal_key_changed(dst, key->p, key->len);
    signal_event(c->db, NOTIFY_GENERIC, "move_from", key->p, key->len);
    signal_event(dst, NOTIFY_GENERIC, "move_to", key->p, key->len);
    reply_int(c, 1);
}

/* COPY source destination [DB n] [REPLACE]. Only the destination changes, so
 * only it is reported as modified (as Redis: a WATCH on the source survives). */
static void cmd_copy(client *c)
{
    const sarg *src = &c->argv[1], *dstkey = &c->argv[2];
    db *dst = c->db;
    int replace = 0, i;
    int64_t when, swhen;
    dbent *e, *old, *n;

    for (i = 3; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (str_eq_ci(a->p, a->len, "replace")) {
            replace = 1;
        } else if (str_eq_ci(a->p, a->len, "db") && i + 1 < c->argc) {
            dst = arg_db(c, i + 1);
            if (!dst)
                return;
            i++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (dst == c->db && same_bytes(src, dstkey)) {
        reply_error(c, ERR_SAMEOBJ);
        return;
    }
    e = key_read(c->db, src->p, src->len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    old = key_write(dst, dstkey->p, dstkey->len);
    if (old && !replace) {
        reply_int(c, 0);
        return;
    }
    if (!value_copyable(e)) {
        reply_error(c, "ERR not supported for this key type");
        return;
    }
    when = db_get_expire(c->db, e);
    swhen = db_get_subexpire(c->db, e);
    if (old)
        db_delete_entry(dst, old);
    n = value_copy(e, dst, dstkey->p, dstkey->len);
    if (when >= 0)
        n = db_set_expire(dst, n, when);
    if (swhen >= 0)
        db_set_subexpire(dst, n, swhen);
    signal_key_changed(dst, dstkey->p, dstkey->len);
    signal_event(dst, NOTIFY_GENERIC, "copy_to", dstkey->p, dstkey->len);
    reply_int(c, 1);
}

/* SWAPDB a b: the contents of the two databases are exchanged; clients keep
 * their database number (c->db points at the slot &srv.dbs[n], whose id db_swap
 * keeps), so a client selected on a now sees what was in b. */
static void cmd_swapdb(client *c)
{
    int a, b;

    if (arg_int(c, 1, "ERR invalid first DB index", &a) < 0 ||
        arg_int(c, 2, "ERR invalid second DB index", &b) < 0)
        return;
    if (a < 0 || a >= srv.cfg.databases || b < 0 || b >= srv.cfg.databases) {
        reply_error(c, ERR_DBINDEX);
        return;
    }
    if (a != b) {
        db_swap(&srv.dbs[a], &srv.dbs[b]);
        signal_db_swapped(&srv.dbs[a], &srv.dbs[b]);
    }
    srv.dirty++;
    reply_ok(c);
}

/* ---- RANDOMKEY, KEYS, SCAN ---- */

/* A random live key. Expired keys drawn are deleted (as Redis does), so every
 * miss shrinks the table and the loop ends; after a run of misses the expired
 * keys are swept in expiry order (db_active_expire), so a table made mostly of
 * expired keys costs one sweep rather than a long series of unlucky draws. */
static void cmd_randomkey(client *c)
{
    db *d = c->db;
    int misses = 0;

    for (;;) {
        dbent *e = (dbent *)ht_random(&d->keys, &srv.rng);
        if (!e) {
            reply_null(c);
            return;
        }
        if (!db_is_expired(d, e)) {
            if (!db_subexpire_due(d, e)) {
                reply_bulk(c, dbent_key(e), dbent_klen(e));
                return;
            }
        } else {
            /* Expire it the usual way (stats, WATCH); the key is read before e is freed. */
            db_lookup_write(d, dbent_key(e), dbent_klen(e));
        }
        if (++misses % 16 == 0)
            db_active_expire(d, db_now, 10000);
    }
}

typedef struct keys_ctx {
    client *c;
    db *d;
    const sarg *pat;
    int all;       /* the pattern is "*" */
    long n;        /* keys replied */
} keys_ctx;

static int keys_visit(void *ctx, ht_node *node)
{
    keys_ctx *k = ctx;
    dbent *e = (dbent *)node;

    if (db_is_expired(k->d, e))
        return 0;
    if (k->all || glob_match(k->pat->p, k->pat->len, dbent_key(e), dbent_klen(e), 0)) {
        reply_bulk(k->c, dbent_key(e), dbent_klen(e));
        k->n++;
    }
    return 0;
}

/* KEYS pattern: every live matching key. Expired keys are skipped, not deleted
 * (the table cannot change while it is walked); active expiry removes them. */
static void cmd_keys(client *c)
{
    keys_ctx k = {c, c->db, &c->argv[1], 0, 0};
    void *slot = reply_defer(c);

    k.all = k.pat->len == 1 && k.pat->p[0] == '*';
    ht_foreach(&c->db->keys, keys_visit, &k);
    reply_defer_array(c, slot, k.n);
}

/* Keys gathered by one SCAN call, copied out of the table: filtering may expire
 * (delete) entries, so nothing may point into them. The buffer is reused by
 * every call and trimmed after a large one. */
typedef struct scan_key {
    size_t off, len;      /* bytes: where the key starts in scan_buf.bytes, its length */
} scan_key;

typedef struct scan_buf {
    char *bytes;
    size_t used, cap;     /* bytes */
    scan_key *keys;
    size_t n, ncap;       /* keys */
} scan_buf;

static scan_buf scanbuf;

static void scan_collect(void *ctx, ht_node *node)
{
    scan_buf *b = ctx;
    dbent *e = (dbent *)node;
    size_t klen = dbent_klen(e);

    if (b->n == b->ncap) {
        b->ncap = b->ncap ? b->ncap * 2 : 64;
        b->keys = xrealloc(b->keys, sizeof(scan_key) * b->ncap);
    }
    if (b->used + klen > b->cap) {
        b->cap = (b->used + klen) * 2;
        b->bytes = xrealloc(b->bytes, b->cap);
    }
    memcpy(b->bytes + b->used, dbent_key(e), klen);
    b->keys[b->n].off = b->used;
    b->keys[b->n].len = klen;
    b->n++;
    b->used += klen;
}

static void scan_buf_reset(scan_buf *b)
{
    if (b->cap > 1024 * 1024 || b->ncap > 64 * 1024) {
        xfree(b->bytes);
        xfree(b->keys);
        memset(b, 0, sizeof(*b));
    }
    b->used = b->n = 0;
}

/* Parse a SCAN cursor as Redis does with strtoul: decimal, no leading space,
 * nothing after it, no overflow ("-1" wraps, "" is 0). 0, or -1 after replying. */
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

/* SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]. ht_scan's reverse-binary
 * cursor returns every key present for the whole iteration at least once, even
 * across resizes. Each call visits buckets until it has count keys or has made
 * 10 * count steps, then filters by pattern, type and expiry (expired keys are
 * deleted, as Redis's expireIfNeeded does). */
static void cmd_scan(client *c)
{
    scan_buf *b = &scanbuf;
    uint64_t cursor;
    long long count = 10, steps;
    const sarg *pat = NULL, *type = NULL;
    char cbuf[24];
    size_t i, kept = 0;
    int j;

    if (parse_cursor(c, &c->argv[1], &cursor) < 0)
        return;
    for (j = 2; j < c->argc; j += 2) {
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
        } else if (has_value && str_eq_ci(a->p, a->len, "type")) {
            type = &c->argv[j + 1];
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (pat && pat->len == 1 && pat->p[0] == '*')
        pat = NULL;

    steps = count > LLONG_MAX / 10 ? LLONG_MAX : count * 10;
    scan_buf_reset(b);
    do {
        cursor = ht_scan(&c->db->keys, cursor, scan_collect, b);
    } while (cursor && steps-- && (long long)b->n < count);

    /* Filter in place: the keys kept move down to indexes [0, kept). */
    for (i = 0; i < b->n; i++) {
        scan_key k = b->keys[i];
        const char *p = b->bytes + k.off;
        dbent *e;

        if (pat && !glob_match(pat->p, pat->len, p, k.len, 0))
            continue;
        e = type ? key_peek(c->db, p, k.len) : key_write(c->db, p, k.len);
        if (!e || (type && !str_eq_ci(type->p, type->len, type_name(e))))
            continue;
        b->keys[kept++] = k;
    }
    reply_array(c, 2);
    reply_bulk(c, cbuf, (size_t)snprintf(cbuf, sizeof(cbuf), "%llu", (unsigned long long)cursor));
    reply_array(c, (long)kept);
    for (i = 0; i < kept; i++)
        reply_bulk(c, b->bytes + b->keys[i].off, b->keys[i].len);
    scan_buf_reset(b);
}

/* ---- EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT ---- */

#define EXP_NX (1 << 0)
#define EXP_XX (1 << 1)
#define EXP_GT (1 << 2)
#define EXP_LT (1 << 3)

/* Parse the NX|XX|GT|LT options from argv[3]. 0, or -1 after replying. */
static int parse_expire_flags(client *c, int *flags)
{
    int i;

    *flags = 0;
    for (i = 3; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        if (str_eq_ci(a->p, a->len, "nx"))
            *flags |= EXP_NX;
        else if (str_eq_ci(a->p, a->len, "xx"))
            *flags |= EXP_XX;
        else if (str_eq_ci(a->p, a->len, "gt"))
            *flags |= EXP_GT;
        else if (str_eq_ci(a->p, a->len, "lt"))
            *flags |= EXP_LT;
        else {
            reply_errorf(c, "ERR Unsupported option %s", a->p);
            return -1;
        }
    }
    if ((*flags & EXP_NX) && (*flags & (EXP_XX | EXP_GT | EXP_LT))) {
        reply_error(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((*flags & EXP_GT) && (*flags & EXP_LT)) {
        reply_error(c, "ERR GT and LT options at the same time are not compatible");
        return -1;
    }
    return 0;
}

/* The four EXPIRE commands. basetime is db_now for the relative ones and 0 for
 * the absolute ones; seconds says the argument's unit. Negative times are
 * allowed; only an overflow of the unit conversion or of the addition is an
 * error. A time not in the future deletes the key (and answers 1). A key
 * without a TTL counts as an infinite TTL for GT and LT. */
static void expire_generic(client *c, int64_t basetime, int seconds)
{
    const sarg *key = &c->argv[1];
    int64_t when;
    long long cur;
    int flags;
    dbent *e;

    if (parse_expire_flags(c, &flags) < 0 || arg_expire(c, 2, seconds, basetime, 0, &when) < 0)
        return;

    e = key_write(c->db, key->p, key->len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    cur = db_get_expire(c->db, e);
    if (((flags & EXP_NX) && cur != -1) || ((flags & EXP_XX) && cur == -1) ||
        ((flags & EXP_GT) && (cur == -1 || when <= cur)) || ((flags & EXP_LT) && cur != -1 && when >= cur)) {
        reply_int(c, 0);
        return;
    }
    /* While the log is replayed a past time only sets the expiry: the key
     * expired later than that replay's clock says, and the log holds its DEL. */
    if (when <= db_now && !db_expiry_paused)
        db_delete_entry(c->db, e);
    else
        e = db_set_expire(c->db, e, when);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_GENERIC, when <= db_now && !db_expiry_paused ? "del" : "expire", key->p, key->len);
    if (prop_on) {
        prop_begin(c->dbid);
        if (when <= db_now && !db_expiry_paused) {
            prop_str("DEL");
            prop_arg(key);
        } else {
            prop_str("PEXPIREAT");
            prop_arg(key);
            prop_ll(when);
        }
        prop_end();
    }
    reply_int(c, 1);
}

static void cmd_expire(client *c)
{
    expire_generic(c, db_now, 1);
}

static void cmd_pexpire(client *c)
{
    expire_generic(c, db_now, 0);
}

static void cmd_expireat(client *c)
{
    expire_generic(c, 0, 1);
}

static void cmd_pexpireat(client *c)
{
    expire_generic(c, 0, 0);
}

/* ---- TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST ---- */

/* -2 if the key is missing, -1 if it has no TTL, else the remaining time
 * (absolute: the expiry time) in ms or in seconds rounded half up. */
static void ttl_generic(client *c, int ms, int absolute)
{
    dbent *e = key_peek(c->db, c->argv[1].p, c->argv[1].len);
    long long t;

    if (!e) {
        reply_int(c, -2);
        return;
    }
    t = db_get_expire(c->db, e);
    if (t == -1) {
        reply_int(c, -1);
        return;
    }
    if (!absolute)
        t -= db_now;
    if (t < 0)
        t = 0;
    reply_int(c, ms ? t : t / 1000 + (t % 1000 + 500) / 1000);
}

static void cmd_ttl(client *c)
{
    ttl_generic(c, 0, 0);
}

static void cmd_pttl(client *c)
{
    ttl_generic(c, 1, 0);
}

static void cmd_expiretime(client *c)
{
    ttl_generic(c, 0, 1);
}

static void cmd_pexpiretime(client *c)
{
    ttl_generic(c, 1, 1);
}

static void cmd_persist(client *c)
{
    const sarg *key = &c->argv[1];
    dbent *e = key_write(c->db, key->p, key->len);

    if (e && db_persist(c->db, e)) {
        signal_key_changed(c->db, key->p, key->len);
        signal_event(c->db, NOTIFY_GENERIC, "persist", key->p, key->len);
        reply_int(c, 1);
        return;
    }
    reply_int(c, 0);
}

/* ---- OBJECT ---- */

/* The entry for OBJECT's key argument, or NULL after replying nil. */
static dbent *object_lookup(client *c)
{
    dbent *e = key_peek(c->db, c->argv[2].p, c->argv[2].len);
    if (!e)
        reply_null(c);
    return e;
}

/* The type names its encoding: strings as Redis does (plus "lz4"); a
 * scratchpad is an array of entries sorted by name (sp.h), "sortedarray". */
static void object_encoding(client *c)
{
    dbent *e = object_lookup(c);
    if (!e)
        return;
    reply_bulk_cstr(c, type_of(e)->encoding(e));
}

static void object_freq(client *c)
{
    dbent *e = object_lookup(c);

    if (!e)
        return;
    if (!db_lfu) {
        reply_error(c, "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
                       "that when switching between policies at runtime LRU and LFU data will take some time to "
                       "adjust.");
        return;
    }
    reply_int(c, db_lfu_freq(e));
}

static void object_idletime(client *c)
{
    dbent *e = object_lookup(c);

    if (!e)
        return;
    if (db_lfu) {
        reply_error(c, "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
                       "switching between policies at runtime LRU and LFU data will take some time to adjust.");
        return;
    }
    reply_int(c, (long long)(db_idle_ms(e) / 1000));
}

/* Values are never shared between keys, so the count is always 1. */
static void object_refcount(client *c)
{
    if (object_lookup(c))
        reply_int(c, 1);
}

static void object_help(client *c)
{
    static const char *const lines[] = {
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        NULL,
    };
    reply_help(c, lines);
}

#define RO_SLOW "keyspace read slow"
/* clang-format off */
static const cmd_def object_subcommands[] = {
    {.name = "encoding", .proc = object_encoding, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1),
     .group = "generic", .summary = "Inspect the internal encoding of a Redis object", .since = "2.2.3",
     .complexity = "O(1)", .acl = RO_SLOW, .tips = "nondeterministic_output", .key_specs = "RO"},
    {.name = "freq", .proc = object_freq, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "generic",
     .summary = "Get the logarithmic access frequency counter of a Redis object", .since = "4.0.0",
     .complexity = "O(1)", .acl = RO_SLOW, .tips = "nondeterministic_output", .key_specs = "RO"},
    {.name = "idletime", .proc = object_idletime, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1),
     .group = "generic", .summary = "Get the time since a Redis object was last accessed", .since = "2.2.3",
     .complexity = "O(1)", .acl = RO_SLOW, .tips = "nondeterministic_output", .key_specs = "RO"},
    {.name = "refcount", .proc = object_refcount, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1),
     .group = "generic", .summary = "Get the number of references to the value of the key", .since = "2.2.3",
     .complexity = "O(1)", .acl = RO_SLOW, .tips = "nondeterministic_output", .key_specs = "RO"},
    {.name = "help", .proc = object_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "generic",
     .summary = "Show helpful text about the different subcommands", .since = "6.2.0", .complexity = "O(1)",
     .acl = "keyspace slow"},
    {0},
};
/* clang-format on */

#define WF (CMD_WRITE | CMD_FAST)
#define RF (CMD_READONLY | CMD_FAST)
#define W_FAST "keyspace write fast"
#define R_FAST "keyspace read fast"
/* clang-format off */
const cmd_def cmd_table_keys[] = {
    {.name = "del", .proc = cmd_del, .arity = -2, .flags = CMD_WRITE, KEYS(1, -1, 1), .group = "generic",
     .summary = "Delete a key", .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
     .acl = "keyspace write slow", .tips = "request_policy:multi_shard response_policy:agg_sum",
     .key_specs = "RM delete"},
    {.name = "unlink", .proc = cmd_del, .arity = -2, .flags = WF, KEYS(1, -1, 1), .group = "generic",
     .summary = "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
     .since = "4.0.0",
     .complexity = "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
     .acl = W_FAST, .tips = "request_policy:multi_shard response_policy:agg_sum", .key_specs = "RM delete"},
    {.name = "exists", .proc = cmd_exists, .arity = -2, .flags = RF, KEYS(1, -1, 1), .group = "generic",
     .summary = "Determine if a key exists", .since = "1.0.0",
     .complexity = "O(N) where N is the number of keys to check.", .acl = R_FAST,
     .tips = "request_policy:multi_shard response_policy:agg_sum", .key_specs = "RO"},
    {.name = "type", .proc = cmd_type, .arity = 2, .flags = RF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Determine the type stored at key", .since = "1.0.0", .complexity = "O(1)", .acl = R_FAST,
     .key_specs = "RO"},
    {.name = "rename", .proc = cmd_rename, .arity = 3, .flags = CMD_WRITE, KEYS(1, 2, 1), .group = "generic",
     .summary = "Rename a key", .since = "1.0.0", .complexity = "O(1)", .acl = "keyspace write slow",
     .key_specs = "RW access delete;OW update"},
    {.name = "renamenx", .proc = cmd_renamenx, .arity = 3, .flags = WF, KEYS(1, 2, 1), .group = "generic",
     .summary = "Rename a key, only if the new key does not exist", .since = "1.0.0", .complexity = "O(1)",
     .acl = W_FAST, .key_specs = "RW access delete;OW insert"},
    {.name = "copy", .proc = cmd_copy, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(1, 2, 1),
     .group = "generic", .summary = "Copy a key", .since = "6.2.0",
     .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
     .acl = "keyspace write slow", .key_specs = "RO access;OW update"},
    {.name = "move", .proc = cmd_move, .arity = 3, .flags = WF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Move a key to another database", .since = "1.0.0", .complexity = "O(1)", .acl = W_FAST,
     .key_specs = "RW access update"},
    {.name = "swapdb", .proc = cmd_swapdb, .arity = 3, .flags = WF, .group = "server",
     .summary = "Swaps two Redis databases", .since = "4.0.0",
     .complexity = "O(N) where N is the count of clients watching or blocking on keys from both databases.",
     .acl = "keyspace write fast dangerous"},
    {.name = "touch", .proc = cmd_exists, .arity = -2, .flags = RF, KEYS(1, -1, 1), .group = "generic",
     .summary = "Alters the last access time of a key(s). Returns the number of existing keys specified.",
     .since = "3.2.1", .complexity = "O(N) where N is the number of keys that will be touched.", .acl = R_FAST,
     .tips = "request_policy:multi_shard response_policy:agg_sum", .key_specs = "RO"},
    {.name = "randomkey", .proc = cmd_randomkey, .arity = 1, .flags = CMD_READONLY, .group = "generic",
     .summary = "Return a random key from the keyspace", .since = "1.0.0", .complexity = "O(1)",
     .acl = "keyspace read slow", .tips = "request_policy:all_shards nondeterministic_output"},
    {.name = "keys", .proc = cmd_keys, .arity = 2, .flags = CMD_READONLY, .group = "generic",
     .summary = "Find all keys matching the given pattern", .since = "1.0.0",
     .complexity = "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
     .acl = "keyspace read slow dangerous", .tips = "request_policy:all_shards nondeterministic_output_order"},
    {.name = "scan", .proc = cmd_scan, .arity = -2, .flags = CMD_READONLY, .group = "generic",
     .summary = "Incrementally iterate the keys space", .since = "2.8.0",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
     .acl = "keyspace read slow", .tips = "nondeterministic_output request_policy:special"},
    {.name = "expire", .proc = cmd_expire, .arity = -3, .flags = WF | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "generic", .summary = "Set a key's time to live in seconds", .since = "1.0.0", .complexity = "O(1)",
     .acl = W_FAST, .key_specs = "RW update"},
    {.name = "pexpire", .proc = cmd_pexpire, .arity = -3, .flags = WF | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "generic", .summary = "Set a key's time to live in milliseconds", .since = "2.6.0",
     .complexity = "O(1)", .acl = W_FAST, .key_specs = "RW update"},
    {.name = "expireat", .proc = cmd_expireat, .arity = -3, .flags = WF | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "generic", .summary = "Set the expiration for a key as a UNIX timestamp", .since = "1.2.0",
     .complexity = "O(1)", .acl = W_FAST, .key_specs = "RW update"},
    {.name = "pexpireat", .proc = cmd_pexpireat, .arity = -3, .flags = WF | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "generic", .summary = "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
     .since = "2.6.0", .complexity = "O(1)", .acl = W_FAST, .key_specs = "RW update"},
    {.name = "ttl", .proc = cmd_ttl, .arity = 2, .flags = RF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Get the time to live for a key in seconds", .since = "1.0.0", .complexity = "O(1)", .acl = R_FAST,
     .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "pttl", .proc = cmd_pttl, .arity = 2, .flags = RF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Get the time to live for a key in milliseconds", .since = "2.6.0", .complexity = "O(1)",
     .acl = R_FAST, .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "expiretime", .proc = cmd_expiretime, .arity = 2, .flags = RF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Get the expiration Unix timestamp for a key", .since = "7.0.0", .complexity = "O(1)", .acl = R_FAST,
     .key_specs = "RO access"},
    {.name = "pexpiretime", .proc = cmd_pexpiretime, .arity = 2, .flags = RF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Get the expiration Unix timestamp for a key in milliseconds", .since = "7.0.0",
     .complexity = "O(1)", .acl = R_FAST, .key_specs = "RO access"},
    {.name = "persist", .proc = cmd_persist, .arity = 2, .flags = WF, KEYS(1, 1, 1), .group = "generic",
     .summary = "Remove the expiration from a key", .since = "2.2.0", .complexity = "O(1)", .acl = W_FAST,
     .key_specs = "RW update"},
    {.name = "object", .proc = cmd_container, .arity = -2, .flags = 0, .group = "generic",
     .summary = "A container for object introspection commands", .since = "2.2.3",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = object_subcommands},
    {0},
};
/* clang-format on */
