/* cmd_dump.c -- DUMP and RESTORE: one key's value in Redis 7.0's serialization
 * (its RDB encoding of the value, the RDB version, the CRC64; core/rdbval.h),
 * so that a key moves between redis-server and Scratchpad both ways.
 *
 * DUMP writes what Redis 7.0 writes for a value of the same encoding, byte for
 * byte: a string (integer-encoded or LZF-compressed as Redis decides), a list
 * as a quicklist of listpacks (type 18) cut into nodes where Redis's tail
 * pushes cut them, a compact hash or sorted set as one listpack (16, 17) in
 * its order, an intset (11), and the large encodings as their plain forms
 * (hash 4, set 2, sorted set 5 with binary scores, in descending order as
 * Redis writes them; their element order is the server's own, so those bytes
 * differ from Redis's while meaning the same). A stream is type 19 with its
 * consumer groups (cmd_dump_stream.c). A scratchpad, which no Redis has, is
 * RDB_TYPE_SCRATCHPAD (240): Redis answers "ERR Bad data format" to it.
 *
 * RESTORE reads every type Redis 7.0's RESTORE reads (the older ones too:
 * ziplists, zipmaps, the linked list, text-scored sorted sets, the first
 * stream format) and checks everything as Redis's sanitize-dump-payload yes
 * does: a payload that does not decode, holds duplicates, an empty value or
 * a NaN score is "ERR Bad data format", never a crash. The value is built in
 * a private database first and moved under the key only once it is whole, so
 * a bad payload leaves the key (REPLACE or not) as it was.
 *
 * The log: RESTORE is logged as a RESTORE (the payload is the most compact
 * form of the value), with an absolute TTL (ABSTTL) and REPLACE, so its replay
 * gives the same key whenever it runs; one whose TTL has already passed is
 * logged as the DEL it amounts to (or nothing). IDLETIME and FREQ are not
 * logged: the access clock is not persisted, as for every other key. */
#include <math.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/dump_int.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/dumpfmt.h"
#include "core/mem.h"
#include "core/quicklist.h"
#include "core/rdbval.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "net/reply.h"
#include "types/hash/hash.h"
#include "types/list/list.h"
#include "types/set/set.h"
#include "types/string/value.h"
#include "types/zset/zset.h"

#define ERR_PAYLOAD "ERR DUMP payload version or checksum are wrong"
#define ERR_BADFORMAT "ERR Bad data format"
#define ERR_BUSYKEY "BUSYKEY Target key name already exists."

/* ---- DUMP ---- */

static int dump_string(const dbent *e, rdb_out *o)
{
    size_t n = sv_len(e);
    const char *p = sv_ptr(e);
    char *tmp = NULL;

    if (!p) {
        tmp = xmalloc(n ? n : 1);
        if (sv_read(e, 0, n, tmp) < 0) {
            xfree(tmp);
            return -1;
        }
        p = tmp;
    }
    rdb_put_byte(o, RDB_TYPE_STRING);
    rdb_put_string(o, p, n);
    xfree(tmp);
    return 0;
}

/* The byte limit of a listpack node for list-max-listpack-size fill < 0. */
static size_t fill_bytes(int fill)
{
    static const size_t level[] = {4096, 8192, 16384, 32768, 65536};
    int i = -fill - 1;
    return level[i < 0 ? 0 : i > 4 ? 4 : i];
}

/* A list as Redis 7.0's quicklist after pushes at the tail: an element joins
 * the last node while the node's listpack bytes, the element's length and 8
 * (Redis's estimate of an entry's overhead) stay within the fill's limit. */
static void dump_list(const dbent *e, rdb_out *o)
{
    const quicklist *q = list_ql(e);
    rdb_out nodes = {0}, lp = {0};
    uint64_t nnodes = 0;
    uint32_t count = 0;
    ql_pos pos;
    int more = ql_at(q, 0, &pos) == 0;

    while (more) {
        const char *p;
        size_t n, sz;
        int fits;

        ql_get(&pos, &p, &n);
        sz = lp.len + 1 + n + 8;
        fits = q->fill < 0 ? sz <= fill_bytes(q->fill) : sz <= 8192 && count < (uint32_t)q->fill;
        if (count > 0 && !fits) {
            rdb_lp_end(&lp, count);
            rdb_put_len(&nodes, 2); /* QUICKLIST_NODE_CONTAINER_PACKED */
            rdb_put_string(&nodes, lp.p, lp.len);
            nnodes++;
            count = 0;
        }
        if (count == 0)
            rdb_lp_begin(&lp);
        rdb_lp_str(&lp, p, n);
        count++;
        more = ql_next(&pos) == 0;
    }
    if (count > 0) {
        rdb_lp_end(&lp, count);
        rdb_put_len(&nodes, 2);
        rdb_put_string(&nodes, lp.p, lp.len);
        nnodes++;
    }
    rdb_put_byte(o, RDB_TYPE_LIST_QUICKLIST_2);
    rdb_put_len(o, nnodes);
    rdb_put(o, nodes.p, nodes.len);
    rdb_out_free(&nodes);
    rdb_out_free(&lp);
}

static int put_pair_lp(void *ctx, const hash_pair *hp)
{
    rdb_lp_str(ctx, hp->f, hp->flen);
    rdb_lp_str(ctx, hp->v, hp->vlen);
    return 0;
}

static int put_pair(void *ctx, const hash_pair *hp)
{
    rdb_put_string(ctx, hp->f, hp->flen);
    rdb_put_string(ctx, hp->v, hp->vlen);
    return 0;
}

static void dump_hash(const dbent *e, rdb_out *o)
{
    if (hash_is_compact(e)) {
        rdb_out lp = {0};
        rdb_lp_begin(&lp);
        hash_foreach(e, put_pair_lp, &lp);
        rdb_lp_end(&lp, (uint32_t)(hash_len(e) * 2));
        rdb_put_byte(o, RDB_TYPE_HASH_LISTPACK);
        rdb_put_string(o, lp.p, lp.len);
        rdb_out_free(&lp);
        return;
    }
    rdb_put_byte(o, RDB_TYPE_HASH);
    rdb_put_len(o, hash_len(e));
    hash_foreach(e, put_pair, o);
}

static void dump_set(const dbent *e, rdb_out *o)
{
    set_iter it;
    set_elem m;

    if (set_intset_width(e)) {
        /* Redis's intset: width and count (32 bits each), then the members
         * ascending, all little-endian, in the widest width it needed so far
         * (an intset never narrows, here as in Redis: the same bytes). */
        uint64_t n = set_card(e), i = 0;
        unsigned char *buf;
        int width = set_intset_width(e), k;
        long long v;

        buf = xmalloc(8 + n * (uint64_t)width);
        for (k = 0; k < 4; k++) {
            buf[k] = (unsigned char)((uint32_t)width >> (8 * k));
            buf[4 + k] = (unsigned char)((uint32_t)n >> (8 * k));
        }
        set_iter_init(&it, e);
        while (set_iter_next(&it, &m)) {
            str_to_ll(m.p, m.len, &v);
            for (k = 0; k < width; k++)
                buf[8 + i * (uint64_t)width + (uint64_t)k] = (unsigned char)((uint64_t)v >> (8 * k));
            i++;
        }
        rdb_put_byte(o, RDB_TYPE_SET_INTSET);
        rdb_put_string(o, buf, 8 + n * (uint64_t)width);
        xfree(buf);
        return;
    }
    rdb_put_byte(o, RDB_TYPE_SET);
    rdb_put_len(o, set_card(e));
    set_iter_init(&it, e);
    while (set_iter_next(&it, &m))
        rdb_put_string(o, m.p, m.len);
}

static void dump_zset(dbent *e, rdb_out *o)
{
    size_t n = zs_len(e), len;
    const char *m;
    double score;
    zs_it it;

    if (strcmp(zs_encoding(e), "listpack") == 0) {
        rdb_out lp = {0};
        char buf[32];
        rdb_lp_begin(&lp);
        for (zs_it_at(&it, e, 0); it.valid; zs_it_next(&it)) {
            m = zs_it_get(&it, &len, &score);
            rdb_lp_str(&lp, m, len);
            rdb_lp_str(&lp, buf, rdb_fmt_score(buf, score));
        }
        rdb_lp_end(&lp, (uint32_t)(n * 2));
        rdb_put_byte(o, RDB_TYPE_ZSET_LISTPACK);
        rdb_put_string(o, lp.p, lp.len);
        rdb_out_free(&lp);
        return;
    }
    rdb_put_byte(o, RDB_TYPE_ZSET_2);
    rdb_put_len(o, n);
    for (zs_it_at(&it, e, n - 1); it.valid; zs_it_prev(&it)) { /* greatest first, as Redis */
        m = zs_it_get(&it, &len, &score);
        rdb_put_string(o, m, len);
        rdb_put_double(o, score);
    }
}

/* The payload of e into o (trailer included): 0, or -1 with *why (a
 * compressed value that does not decode). */
static int dump_value(dbent *e, rdb_out *o, const char **why)
{
    switch (e->type) {
    case OBJ_STRING:
        if (dump_string(e, o) < 0) {
            *why = "ERR value is corrupt: a compressed chunk failed to decompress";
            return -1;
        }
        break;
    case OBJ_LIST:
        dump_list(e, o);
        break;
    case OBJ_HASH:
        dump_hash(e, o);
        break;
    case OBJ_SET:
        dump_set(e, o);
        break;
    case OBJ_ZSET:
        dump_zset(e, o);
        break;
    case OBJ_STREAM:
        dump_stream(e, o);
        break;
    default:
        if (dump_own(e, o, why) < 0)
            return -1;
        break;
    }
    rdb_put_trailer(o);
    return 0;
}

static void cmd_dump(client *c)
{
    dbent *e = db_lookup(c->db, c->argv[1].p, c->argv[1].len);
    rdb_out o = {0};
    const char *why = NULL;

    if (!e) {
        reply_null(c);
        return;
    }
    if (dump_value(e, &o, &why) < 0)
        reply_error(c, why);
    else
        reply_bulk(c, (const char *)o.p, o.len);
    rdb_out_free(&o);
}

/* ---- RESTORE ---- */

/* A string at *p into a new buffer (*s, *n; the caller frees *s): 0 or -1. */
static int get_str(const unsigned char **p, const unsigned char *end, char **s, size_t *n)
{
    return dump_get_string(p, end, s, n);
}

/* Add the elements of a checked container to the list e. */
static void push_all(dbent *e, rdb_iter *it)
{
    const char *p;
    size_t n;
    while (rdb_next(it, &p, &n, NULL))
        ql_push(list_ql(e), 1, p, n);
}

/* Open a container blob as an iterator: kind 'l' listpack, 'z' ziplist, 'm'
 * zipmap, else intset. */
static int open_blob(int kind, const char *b, size_t n, rdb_iter *it, uint64_t *count)
{
    const unsigned char *u = (const unsigned char *)b;
    switch (kind) {
    case 'l':
        return rdb_lp_open(it, u, n, count);
    case 'z':
        return rdb_zl_open(it, u, n, count);
    case 'm':
        return rdb_zm_open(it, u, n, count);
    default:
        return rdb_is_open(it, u, n, count);
    }
}

static int load_list(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end)
{
    dbent *e = list_create(d, key->p, key->len);
    uint64_t n, i, count, container;
    rdb_iter it;
    char *s;
    size_t sl;

    if (type == RDB_TYPE_LIST_ZIPLIST) {
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (open_blob('z', s, sl, &it, &count) < 0) {
            xfree(s);
            return -1;
        }
        push_all(e, &it);
        xfree(s);
        return ql_len(list_ql(e)) > 0 ? 0 : -1;
    }
    if (rdb_get_len(p, end, &n) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        container = 2;
        if (type == RDB_TYPE_LIST_QUICKLIST_2 &&
            (rdb_get_len(p, end, &container) < 0 || container < 1 || container > 2))
            return -1;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (type == RDB_TYPE_LIST || container == 1) {
            ql_push(list_ql(e), 1, s, sl);
        } else {
            if (open_blob(type == RDB_TYPE_LIST_QUICKLIST ? 'z' : 'l', s, sl, &it, &count) < 0) {
                xfree(s);
                return -1;
            }
            push_all(e, &it);
        }
        xfree(s);
    }
    return ql_len(list_ql(e)) > 0 ? 0 : -1;
}

static int load_set(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end)
{
    dbent *e = NULL;
    uint64_t n, i;
    char *s;
    size_t sl;

    if (type == RDB_TYPE_SET_INTSET) {
        rdb_iter it;
        const char *m;
        size_t ml;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (open_blob('i', s, sl, &it, &n) < 0) {
            xfree(s);
            return -1;
        }
        e = set_create_intset(d, key->p, key->len);
        if (it.width > 2) {
            /* The payload's width, which Redis keeps: an intset widens for
             * a member that needs it and never narrows back. */
            const char *wide = it.width == 4 ? "-2147483648" : "-9223372036854775808";
            set_add(e, wide, strlen(wide));
            set_remove(e, wide, strlen(wide));
        }
        while (rdb_next(&it, &m, &ml, NULL))
            set_add(e, m, ml);
        xfree(s);
        return 0;
    }
    if (rdb_get_len(p, end, &n) < 0 || n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        int added;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (!e)
            e = set_create(d, key->p, key->len, s, sl);
        added = set_add(e, s, sl);
        xfree(s);
        if (!added)
            return -1; /* a duplicate member */
    }
    return 0;
}

/* A score's text (a listpack's or ziplist's element): 0, or -1. */
static int parse_score(const char *p, size_t n, double *d)
{
    return zs_parse_score(p, n, d) < 0 || isnan(*d) ? -1 : 0;
}

static int zadd_new(dbent *e, const char *m, size_t ml, double score)
{
    double now;
    return zs_add(e, m, ml, score, 0, &now) == ZS_ADDED ? 0 : -1;
}

static int load_zset(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end)
{
    dbent *e = zs_create(d, key->p, key->len);
    uint64_t n, i;
    char *s;
    size_t sl;

    if (type == RDB_TYPE_ZSET_ZIPLIST || type == RDB_TYPE_ZSET_LISTPACK) {
        rdb_iter it;
        const char *m, *sc;
        size_t ml, scl;
        char *mcopy;
        double score;
        int bad = 0;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (open_blob(type == RDB_TYPE_ZSET_ZIPLIST ? 'z' : 'l', s, sl, &it, &n) < 0 || n == 0 || n % 2) {
            xfree(s);
            return -1;
        }
        while (!bad && rdb_next(&it, &m, &ml, NULL)) {
            mcopy = xmalloc(ml + 1); /* the score's text may reuse the iterator's number buffer */
            memcpy(mcopy, m, ml);
            rdb_next(&it, &sc, &scl, NULL);
            bad = parse_score(sc, scl, &score) < 0 || zadd_new(e, mcopy, ml, score) < 0;
            xfree(mcopy);
        }
        xfree(s);
        return bad ? -1 : 0;
    }
    if (rdb_get_len(p, end, &n) < 0 || n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        double score;
        int bad;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        bad = (type == RDB_TYPE_ZSET ? rdb_get_text_double(p, end, &score) : rdb_get_double(p, end, &score)) < 0 ||
              isnan(score) || zadd_new(e, s, sl, score) < 0;
        xfree(s);
        if (bad)
            return -1;
    }
    return 0;
}

static int load_hash(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end)
{
    dbent *e = hash_create(d, key->p, key->len);
    uint64_t n, i;
    char *f, *v;
    size_t fl, vl;

    if (type != RDB_TYPE_HASH) {
        rdb_iter it;
        const char *a, *b;
        size_t al, bl;
        char *s;
        size_t sl;
        int bad = 0;
        if (get_str(p, end, &s, &sl) < 0)
            return -1;
        if (open_blob(type == RDB_TYPE_HASH_ZIPMAP    ? 'm'
                      : type == RDB_TYPE_HASH_ZIPLIST ? 'z'
                                                      : 'l',
                      s, sl, &it, &n) < 0 ||
            n == 0 || n % 2) {
            xfree(s);
            return -1;
        }
        while (!bad && rdb_next(&it, &a, &al, NULL)) {
            f = xmalloc(al + 1); /* the value may reuse the iterator's number buffer */
            memcpy(f, a, al);
            rdb_next(&it, &b, &bl, NULL);
            hash_fit(d, &e, al > bl ? al : bl);
            bad = hash_set(d, &e, f, al, b, bl) != 1;
            xfree(f);
        }
        xfree(s);
        return bad ? -1 : 0;
    }
    if (rdb_get_len(p, end, &n) < 0 || n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        int added;
        if (get_str(p, end, &f, &fl) < 0)
            return -1;
        if (get_str(p, end, &v, &vl) < 0) {
            xfree(f);
            return -1;
        }
        hash_fit(d, &e, fl > vl ? fl : vl);
        added = hash_set(d, &e, f, fl, v, vl);
        xfree(f);
        xfree(v);
        if (added != 1)
            return -1;
    }
    return 0;
}

/* Build the value of type at p under key in d (a private database): 0, or -1
 * if the payload does not describe one (what was built stays in d for the
 * caller to delete). */
static int load_value(db *d, const sarg *key, const unsigned char *p, const unsigned char *end)
{
    int type;

    if (p >= end)
        return -1;
    type = *p++;
    switch (type) {
    case RDB_TYPE_STRING: {
        char *s;
        size_t n;
        if (get_str(&p, end, &s, &n) < 0)
            return -1;
        sv_set(d, key->p, key->len, s, n, 0);
        xfree(s);
        return 0;
    }
    case RDB_TYPE_LIST:
    case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return load_list(d, key, type, &p, end);
    case RDB_TYPE_SET:
    case RDB_TYPE_SET_INTSET:
        return load_set(d, key, type, &p, end);
    case RDB_TYPE_ZSET:
    case RDB_TYPE_ZSET_2:
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK:
        return load_zset(d, key, type, &p, end);
    case RDB_TYPE_HASH:
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return load_hash(d, key, type, &p, end);
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
        return load_stream(d, key, type, &p, end);
    case RDB_TYPE_SCRATCHPAD:
        return load_own(d, key, &p, end);
    default:
        return -1;
    }
}

/* The private database values are built in (made at the first RESTORE). */
static db *scratch_db(db *like)
{
    static db s;
    static int ready;

    if (!ready) {
        db_init(&s, -1, like->arena, 0x5eed);
        ready = 1;
    }
    return &s;
}

static void cmd_restore(client *c)
{
    const sarg *key = &c->argv[1], *payload = &c->argv[3];
    long long ttl, idle = -1, freq = -1;
    int replace = 0, absttl = 0, i, deleted = 0, built;
    void (*on_new)(db *, const char *, size_t);
    db *s;
    dbent *e, *n;
    const type_def *t;

    for (i = 4; i < c->argc; i++) {
        const sarg *a = &c->argv[i];
        int more = i + 1 < c->argc;
        if (str_eq_ci(a->p, a->len, "replace")) {
            replace = 1;
        } else if (str_eq_ci(a->p, a->len, "absttl")) {
            absttl = 1;
        } else if (str_eq_ci(a->p, a->len, "idletime") && more && freq == -1) {
            if (arg_ll(c, ++i, &idle) < 0)
                return;
            if (idle < 0) {
                reply_error(c, "ERR Invalid IDLETIME value, must be >= 0");
                return;
            }
        } else if (str_eq_ci(a->p, a->len, "freq") && more && idle == -1) {
            if (arg_ll(c, ++i, &freq) < 0)
                return;
            if (freq < 0 || freq > 255) {
                reply_error(c, "ERR Invalid FREQ value, must be >= 0 and <= 255");
                return;
            }
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (!replace && db_lookup_write(c->db, key->p, key->len)) {
        reply_error(c, ERR_BUSYKEY);
        return;
    }
    if (arg_ll(c, 2, &ttl) < 0)
        return;
    if (ttl < 0) {
        reply_error(c, "ERR Invalid TTL value, must be >= 0");
        return;
    }
    if (rdb_check_trailer((const unsigned char *)payload->p, payload->len) < 0) {
        reply_error(c, ERR_PAYLOAD);
        return;
    }
    s = scratch_db(c->db);
    on_new = db_on_new; /* the key is not in the keyspace yet: no "new" event */
    db_on_new = NULL;
    /* As Redis, the value is read from the whole payload, trailer included: a
     * value cut short reads into the version and CRC bytes. */
    built = load_value(s, key, (const unsigned char *)payload->p, (const unsigned char *)payload->p + payload->len) ==
            0;
    db_on_new = on_new;
    e = db_find_raw(s, key->p, key->len);
    if (!built || !e) {
        if (e)
            db_delete_entry(s, e);
        reply_error(c, ERR_BADFORMAT);
        return;
    }
    if (replace)
        deleted = db_delete(c->db, key->p, key->len);
    if (ttl && !absttl)
        ttl += db_now;
    if (ttl && ttl <= db_now && !db_expiry_paused) {
        /* Already expired: nothing is created, and a replaced key is gone. */
        db_delete_entry(s, e);
        if (deleted) {
            signal_key_changed(c->db, key->p, key->len);
            signal_event(c->db, NOTIFY_GENERIC, "del", key->p, key->len);
            if (prop_on) {
                prop_begin(c->dbid);
                prop_str("DEL");
                prop_arg(key);
                prop_end();
            }
        }
        reply_ok(c);
        return;
    }
    n = db_move_entry(s, e, c->db, key->p, key->len);
    t = type_of(n);
    if (t->moved)
        t->moved(c->db, n);
    if (ttl)
        n = db_set_expire(c->db, n, ttl);
    db_set_clock(n, idle, (int)freq);
    signal_key_changed(c->db, key->p, key->len);
    signal_event(c->db, NOTIFY_GENERIC, "restore", key->p, key->len);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("RESTORE");
        prop_arg(key);
        prop_ll(ttl);
        prop_arg(payload);
        prop_str("REPLACE");
        if (ttl)
            prop_str("ABSTTL");
        prop_end();
    }
    reply_ok(c);
}

/* clang-format off */
const cmd_def cmd_table_dump[] = {
    {.name = "dump", .proc = cmd_dump, .arity = 2, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "generic",
     .summary = "Return a serialized version of the value stored at the specified key.", .since = "2.6.0",
     .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
     .acl = "keyspace read slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "restore", .proc = cmd_restore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "generic",
     .summary = "Create a key using the provided serialized value, previously obtained using DUMP.", .since = "2.6.0",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
     .acl = "keyspace write slow dangerous", .key_specs = "OW update"},
    {0},
};
/* clang-format on */
