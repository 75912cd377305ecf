/* cmd_stream.c -- the stream commands, with Redis 7.0's replies, errors and
 * id rules: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM, XREAD, XREADGROUP,
 * XACK, XPENDING, XCLAIM, XAUTOCLAIM, XSETID, XGROUP and XINFO. They parse,
 * call the type's API (stream.h), reply, then signal the change: as Redis
 * 7.0.15, only a change of the entries (XADD, XDEL, XTRIM) or the key's
 * creation is the key modified (signal_key_changed: WATCH, waiters); a change
 * of groups, consumers, pending entries or XSETID's counters only counts as a
 * write (signal_key_written).
 *
 * Effects (docs/aof.md): XADD logs itself with its id made explicit (and an
 * exact XTRIM key MAXLEN n when it trimmed); XTRIM logs XTRIM key MAXLEN n
 * with the length it left; XREADGROUP, XCLAIM and XAUTOCLAIM log what they
 * did to the group: XGROUP CREATECONSUMER for a consumer created, XCLAIM key
 * group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID per pending entry
 * delivered or claimed, XACK key group id for a pending entry dropped because
 * its entry is gone, XGROUP SETID key group id ENTRIESREAD n when the group's
 * last delivered id moved. So a replay recreates the same ids, pending
 * entries, delivery counts and last delivered ids, and never blocks. The
 * other writes are deterministic and logged as typed.
 *
 * Blocking: XREAD and XREADGROUP with BLOCK wait through cmd/block.h. A `$`
 * is resolved when the client blocks (its copy of the arguments holds the id
 * then), so the re-run after a change reads what came after it; a wait on
 * several streams is served by the one whose change woke it (blk_rerun_key),
 * as Redis 7.0 serves it. A blocked
 * XREADGROUP whose stream goes away gets "-UNBLOCKED the stream key no
 * longer exists", and whose group goes, "-NOGROUP the consumer group this
 * client was blocked on no longer exists", as Redis 7.0. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/block.h"
#include "cmd/commands.h"
#include "cmd/propagate.h"
#include "cmd/signal.h"
#include "core/mem.h"
#include "core/util.h"
#include "net/reply.h"
#include "server.h"
#include "types/stream/stream.h"

#define ERR_BADID "ERR Invalid stream ID specified as stream command argument"
#define XREAD_BLOCKED_DEFAULT_COUNT 1000

static const xs_id ID_MIN = {0, 0};
static const xs_id ID_MAX = {UINT64_MAX, UINT64_MAX};

/* ---- helpers ---- */

static int lookup_stream(client *c, const sarg *key, int write, dbent **out)
{
    dbent *e = write ? db_lookup_write(c->db, key->p, key->len) : db_lookup(c->db, key->p, key->len);

    if (e && e->type != OBJ_STREAM) {
        reply_error(c, ERR_WRONGTYPE);
        return -1;
    }
    *out = e;
    return 0;
}

/* Redis's string2ull: digits, else what strtoull takes whole. */
static int parse_ull(const char *p, size_t n, uint64_t *out)
{
    char buf[128];
    char *end;
    unsigned long long v;

    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (strlen(buf) != n)
        return -1;
    errno = 0;
    v = strtoull(buf, &end, 10);
    if (errno == EINVAL || errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Redis's streamGenericParseIDOrReply: strict refuses "-" and "+"; with
 * seq_given, "ms-*" is accepted. 0, or -1 with the error replied (if c). */
static int parse_id(client *c, const sarg *a, uint64_t missing_seq, int strict, int *seq_given, xs_id *id)
{
    const char *dash;
    size_t n = a->len;

    if (seq_given)
        *seq_given = 1;
    if (n > 127)
        goto invalid;
    if (n == 1 && (a->p[0] == '-' || a->p[0] == '+')) {
        if (strict)
            goto invalid;
        *id = a->p[0] == '-' ? ID_MIN : ID_MAX;
        return 0;
    }
    dash = memchr(a->p, '-', n);
    if (parse_ull(a->p, dash ? (size_t)(dash - a->p) : n, &id->ms) < 0)
        goto invalid;
    if (!dash) {
        id->seq = missing_seq;
        return 0;
    }
    if (seq_given && dash + 2 == a->p + n && dash[1] == '*') {
        id->seq = 0;
        *seq_given = 0;
        return 0;
    }
    if (parse_ull(dash + 1, (size_t)(a->p + n - dash - 1), &id->seq) < 0)
        goto invalid;
    return 0;
invalid:
    if (c)
        reply_error(c, ERR_BADID);
    return -1;
}

/* An interval bound: "(" id exclusive (strict), else "-", "+" or an id. */
static int parse_interval(client *c, const sarg *a, uint64_t missing_seq, int *exclude, xs_id *id)
{
    *exclude = a->len > 1 && a->p[0] == '(';
    if (*exclude) {
        sarg t = {a->p + 1, a->len - 1};
        return parse_id(c, &t, missing_seq, 1, NULL, id);
    }
    return parse_id(c, a, missing_seq, 0, NULL, id);
}

static void reply_id(client *c, const xs_id *id)
{
    char buf[48];
    reply_bulk(c, buf, stream_fmt_id(buf, id));
}

static void prop_id(const xs_id *id)
{
    char buf[48];
    prop_bytes(buf, stream_fmt_id(buf, id));
}

/* Reply the entry the iterator is on: [id, [f, v, ...]]. */
static void reply_entry(client *c, xs_iter *it, const xs_id *id, uint64_t nf)
{
    uint64_t k;

    reply_array(c, 2);
    reply_id(c, id);
    reply_array(c, (long)(2 * nf));
    for (k = 0; k < nf; k++) {
        const char *f, *v;
        size_t fl, vl;
        xs_field(it, &f, &fl, &v, &vl);
        reply_bulk(c, f, fl);
        reply_bulk(c, v, vl);
    }
}

/* Reply entries in [start, end] (count 0: all) as an array; returns how many. */
static size_t reply_range(client *c, const stream *s, const xs_id *start, const xs_id *end, size_t count, int rev)
{
    void *slot = reply_defer(c);
    xs_iter it;
    xs_id id;
    uint64_t nf;
    size_t n = 0;

    xs_iter_init(&it, s->x, start, end, rev);
    while ((!count || n < count) && xs_next(&it, &id, &nf)) {
        reply_entry(c, &it, &id, nf);
        n++;
    }
    reply_defer_array(c, slot, n);
    return n;
}

/* Reply the one entry id ([id, [f, v...]]) if live: 1, else 0 (nothing replied). */
static int reply_one(client *c, const stream *s, const xs_id *id)
{
    xs_iter it;
    xs_id got;
    uint64_t nf;

    xs_iter_init(&it, s->x, id, id, 0);
    if (!xs_next(&it, &got, &nf))
        return 0;
    reply_entry(c, &it, &got, nf);
    return 1;
}

static int entry_exists(const stream *s, const xs_id *id)
{
    xs_iter it;
    xs_id got;
    uint64_t nf;

    xs_iter_init(&it, s->x, id, id, 0);
    return xs_next(&it, &got, &nf);
}

static int arg_is(const sarg *a, const char *w)
{
    return str_eq_ci(a->p, a->len, w);
}

/* 1 if c runs again for another key than key: a wait on several streams is
 * served by the stream that changed, as Redis 7.0 serves it. */
static int not_the_ready_key(const client *c, const sarg *key)
{
    size_t n;
    const char *k = blk_rerun_key(c, &n);
    return k && (n != key->len || memcmp(k, key->p, n) != 0);
}

/* ---- effects ---- */

static void prop_xclaim(client *c, const sarg *key, const xgroup *g, const xnack *n)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XCLAIM");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_bytes(n->consumer->name, n->consumer->nlen);
    prop_str("0");
    prop_id(&n->id);
    prop_str("TIME");
    prop_ll(n->delivery_time);
    prop_str("RETRYCOUNT");
    prop_ll((long long)n->delivery_count);
    prop_str("FORCE");
    prop_str("JUSTID");
    prop_end();
}

static void prop_xack(client *c, const sarg *key, const xgroup *g, const xs_id *id)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XACK");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_id(id);
    prop_end();
}

static void prop_setid(client *c, const sarg *key, const xgroup *g)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XGROUP");
    prop_str("SETID");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_id(&g->last_id);
    prop_str("ENTRIESREAD");
    prop_ll(g->entries_read);
    prop_end();
}

static void prop_createconsumer(client *c, const sarg *key, const xgroup *g, const xconsumer *cons)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XGROUP");
    prop_str("CREATECONSUMER");
    prop_arg(key);
    prop_bytes(g->name, g->nlen);
    prop_bytes(cons->name, cons->nlen);
    prop_end();
}

static void prop_trim_to(client *c, const sarg *key, const stream *s)
{
    if (!prop_on)
        return;
    prop_begin(c->dbid);
    prop_str("XTRIM");
    prop_arg(key);
    prop_str("MAXLEN");
    prop_ll((long long)xs_len(s->x));
    prop_end();
}

/* ---- XADD, XTRIM ---- */

enum { TRIM_NONE, TRIM_MAXLEN, TRIM_MINID };

typedef struct trim_args {
    int strategy;
    int approx;
    long long maxlen;
    xs_id minid;
    long long limit;
    int nomkstream;
    int id_given, seq_given;
    xs_id id;
} trim_args;

/* Redis's streamParseAddOrTrimArgsOrReply: the index where XADD's id is, or
 * -1 with the error replied. */
static int parse_add_trim(client *c, trim_args *t, int xadd)
{
    int i = 2, limit_given = 0;

    memset(t, 0, sizeof(*t));
    for (; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const sarg *o = &c->argv[i];
        if (xadd && o->len == 1 && o->p[0] == '*') {
            break;
        } else if ((arg_is(o, "maxlen") || arg_is(o, "minid")) && more) {
            int maxlen = arg_is(o, "maxlen");
            const sarg *next = &c->argv[i + 1];
            if (t->strategy != TRIM_NONE) {
                reply_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
                return -1;
            }
            t->approx = 0;
            if (more >= 2 && next->len == 1 && next->p[0] == '~') {
                t->approx = 1;
                i++;
            } else if (more >= 2 && next->len == 1 && next->p[0] == '=') {
                i++;
            }
            if (maxlen) {
                if (arg_ll(c, i + 1, &t->maxlen) < 0)
                    return -1;
                if (t->maxlen < 0) {
                    reply_error(c, "ERR The MAXLEN argument must be >= 0.");
                    return -1;
                }
            } else if (parse_id(c, &c->argv[i + 1], 0, 1, NULL, &t->minid) < 0) {
                return -1;
            }
            i++;
            t->strategy = maxlen ? TRIM_MAXLEN : TRIM_MINID;
        } else if (arg_is(o, "limit") && more) {
            if (arg_ll(c, i + 1, &t->limit) < 0)
                return -1;
            if (t->limit < 0) {
                reply_error(c, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && arg_is(o, "nomkstream")) {
            t->nomkstream = 1;
        } else if (xadd) {
            if (parse_id(c, o, 0, 1, &t->seq_given, &t->id) < 0)
                return -1;
            t->id_given = 1;
            break;
        } else {
            reply_error(c, ERR_SYNTAX);
            return -1;
        }
    }
    if (t->limit && t->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return -1;
    }
    if (!xadd && t->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (c->flags & CLIENT_FAKE) {
        t->limit = 0; /* the log's replay: trim as the command says */
    } else if (limit_given) {
        if (!t->approx) {
            reply_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else if (t->approx) {
        /* Redis's default: 100 blocks' worth, 10000 without a block bound,
         * at most a million. */
        if (stream_node_max_entries <= 0)
            t->limit = 10000;
        else if (stream_node_max_entries > 10000)
            t->limit = 1000000;
        else
            t->limit = 100LL * stream_node_max_entries;
    } else {
        t->limit = 0;
    }
    return i;
}

static uint64_t do_trim(stream *s, const trim_args *t)
{
    if (t->strategy == TRIM_NONE)
        return 0;
    return stream_trim(s, (uint64_t)t->maxlen, t->strategy == TRIM_MINID ? &t->minid : NULL, t->approx,
                       (uint64_t)t->limit);
}

static void cmd_xadd(client *c)
{
    trim_args t;
    int idpos = parse_add_trim(c, &t, 1), fpos, i;
    dbent *e;
    stream *s;
    xs_id id;
    xs_str fvs[32], *fv = fvs;
    uint64_t trimmed;

    if (idpos < 0)
        return;
    fpos = idpos + 1;
    if (c->argc - fpos < 2 || (c->argc - fpos) % 2 == 1) {
        reply_arity_error(c);
        return;
    }
    if (t.id_given && t.seq_given && t.id.ms == 0 && t.id.seq == 0) {
        reply_error(c, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    if (lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        if (t.nomkstream) {
            reply_null(c);
            return;
        }
        e = stream_create(c->db, c->argv[1].p, c->argv[1].len);
    }
    s = stream_of(e);
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        reply_error(c, "ERR The stream has exhausted the last possible ID, unable to add more items");
        goto drop_if_new;
    }
    if (t.id_given) {
        id = t.id;
        if (!t.seq_given && s->last_id.ms == t.id.ms) {
            if (s->last_id.seq == UINT64_MAX) {
                reply_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item");
                goto drop_if_new;
            }
            id = s->last_id;
            id.seq++;
        }
    } else {
        uint64_t ms = (uint64_t)now_ms();
        if (ms > s->last_id.ms) {
            id.ms = ms;
            id.seq = 0;
        } else {
            id = s->last_id;
            stream_id_incr(&id);
        }
    }
    if (xs_id_cmp(&id, &s->last_id) <= 0) {
        reply_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item");
        goto drop_if_new;
    }
    {
        uint64_t raw = 0;
        for (i = fpos; i < c->argc; i++)
            raw += c->argv[i].len;
        if (raw > (1ULL << 30)) {
            reply_error(c, "ERR Elements are too large to be stored");
            goto drop_if_new;
        }
    }
    if (c->argc - fpos > 32)
        fv = xmalloc(sizeof(xs_str) * (size_t)(c->argc - fpos));
    for (i = fpos; i < c->argc; i++) {
        fv[i - fpos].p = c->argv[i].p;
        fv[i - fpos].len = c->argv[i].len;
    }
    stream_append(s, &id, fv, (size_t)(c->argc - fpos));
    if (fv != fvs)
        xfree(fv);
    reply_id(c, &id);
    trimmed = do_trim(s, &t);
    signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    if (prop_on) {
        prop_begin(c->dbid);
        prop_str("XADD");
        prop_arg(&c->argv[1]);
        prop_id(&id);
        for (i = fpos; i < c->argc; i++)
            prop_arg(&c->argv[i]);
        prop_end();
        if (trimmed)
            prop_trim_to(c, &c->argv[1], s);
    }
    return;
drop_if_new:
    if (xs_len(s->x) == 0 && s->entries_added == 0 && s->ngroups == 0 && s->last_id.ms == 0 && s->last_id.seq == 0)
        db_delete_entry(c->db, e);
}

static void cmd_xtrim(client *c)
{
    trim_args t;
    dbent *e;
    uint64_t n;

    if (parse_add_trim(c, &t, 0) < 0)
        return;
    if (lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    n = do_trim(stream_of(e), &t);
    if (n) {
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
        prop_trim_to(c, &c->argv[1], stream_of(e));
    }
    reply_int(c, (long long)n);
}

/* ---- reads ---- */

static void cmd_xlen(client *c)
{
    dbent *e;

    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    reply_int(c, e ? (long long)xs_len(stream_of(e)->x) : 0);
}

static void range_generic(client *c, int rev)
{
    const sarg *sa = rev ? &c->argv[3] : &c->argv[2], *ea = rev ? &c->argv[2] : &c->argv[3];
    xs_id start, end;
    int sx, ex, j;
    long long count = -1;
    dbent *e;

    if (parse_interval(c, sa, 0, &sx, &start) < 0)
        return;
    if (sx && stream_id_incr(&start) < 0) {
        reply_error(c, "ERR invalid start ID for the interval");
        return;
    }
    if (parse_interval(c, ea, UINT64_MAX, &ex, &end) < 0)
        return;
    if (ex && stream_id_decr(&end) < 0) {
        reply_error(c, "ERR invalid end ID for the interval");
        return;
    }
    for (j = 4; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "count") && c->argc - j - 1 >= 1) {
            if (arg_ll(c, j + 1, &count) < 0)
                return;
            if (count < 0)
                count = 0;
            j++;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e) {
        reply_array(c, 0);
        return;
    }
    if (count == 0) {
        reply_null_array(c);
        return;
    }
    reply_range(c, stream_of(e), &start, &end, count < 0 ? 0 : (size_t)count, rev);
}

static void cmd_xrange(client *c)
{
    range_generic(c, 0);
}

static void cmd_xrevrange(client *c)
{
    range_generic(c, 1);
}

static void cmd_xdel(client *c)
{
    xs_id ids[16], *v = ids;
    dbent *e;
    long long deleted = 0;
    int j, n = c->argc - 2;

    if (lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    if (n > 16)
        v = xmalloc(sizeof(xs_id) * (size_t)n);
    for (j = 0; j < n; j++)
        if (parse_id(c, &c->argv[2 + j], 0, 1, NULL, &v[j]) < 0)
            goto done;
    for (j = 0; j < n; j++)
        deleted += stream_delete(stream_of(e), &v[j]);
    if (deleted)
        signal_key_changed(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, deleted);
done:
    if (v != ids)
        xfree(v);
}

static void cmd_xsetid(client *c)
{
    xs_id id, maxdel = {0, 0};
    long long added = -1;
    int i = 3;
    dbent *e;
    stream *s;

    if (parse_id(c, &c->argv[2], 0, 1, NULL, &id) < 0)
        return;
    while (i < c->argc) {
        int more = c->argc - 1 - i;
        if (arg_is(&c->argv[i], "entriesadded") && more) {
            if (arg_ll(c, i + 1, &added) < 0)
                return;
            if (added < 0) {
                reply_error(c, "ERR entries_added must be positive");
                return;
            }
            i += 2;
        } else if (arg_is(&c->argv[i], "maxdeletedid") && more) {
            if (parse_id(c, &c->argv[i + 1], 0, 1, NULL, &maxdel) < 0)
                return;
            if (xs_id_cmp(&id, &maxdel) < 0) {
                reply_error(c, "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return;
            }
            i += 2;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (lookup_stream(c, &c->argv[1], 1, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    s = stream_of(e);
    if (xs_len(s->x) > 0) {
        xs_id top;
        xs_last(s->x, &top);
        if (xs_id_cmp(&id, &top) < 0) {
            reply_error(c, "ERR The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (added != -1 && xs_len(s->x) > (uint64_t)added) {
            reply_error(c, "ERR The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (added != -1)
        s->entries_added = (uint64_t)added;
    if (maxdel.ms || maxdel.seq)
        s->max_deleted = maxdel;
    reply_ok(c);
    signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
}

/* ---- XREAD, XREADGROUP ---- */

/* BLOCK's argument: ms as an integer, Redis's errors; *deadline 0 for ever. */
static int parse_block_ms(client *c, int i, int64_t *deadline)
{
    long long ms;
    int64_t now = now_ms();

    if (str_to_ll(c->argv[i].p, c->argv[i].len, &ms) < 0) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return -1;
    }
    if (ms < 0) {
        reply_error(c, "ERR timeout is negative");
        return -1;
    }
    if (ms > 0 && ms > INT64_MAX - now) {
        reply_error(c, "ERR timeout is out of range");
        return -1;
    }
    *deadline = ms > 0 ? now + ms : 0;
    return 0;
}

/* Deliver new entries (> g->last_id) of s to consumer cons of g, replying
 * them (count 0: all); returns how many. */
static size_t deliver_new(client *c, const sarg *key, stream *s, xgroup *g, xconsumer *cons, size_t count, int noack)
{
    void *slot = reply_defer(c);
    xs_iter it;
    xs_id id, start = g->last_id;
    uint64_t nf;
    size_t n = 0;
    int moved = 0;

    stream_id_incr(&start);
    xs_iter_init(&it, s->x, &start, &ID_MAX, 0);
    while ((!count || n < count) && xs_next(&it, &id, &nf)) {
        if (xs_id_cmp(&id, &g->last_id) > 0) {
            if (g->entries_read != XS_INVALID_READ && !stream_range_has_tombstones(s, &id, NULL))
                g->entries_read++;
            else if (s->entries_added)
                g->entries_read = stream_estimate_read(s, &id);
            g->last_id = id;
            moved = 1;
        }
        reply_entry(c, &it, &id, nf);
        if (!noack) {
            xnack *nk = pel_find(&g->pel, &id);
            if (nk) {
                stream_nack_move(nk, cons);
                nk->delivery_time = db_now;
                nk->delivery_count = 1;
            } else {
                nk = stream_nack_add(g, cons, &id, db_now, 1);
            }
            prop_xclaim(c, key, g, nk);
        }
        n++;
    }
    reply_defer_array(c, slot, n);
    if (moved)
        prop_setid(c, key, g);
    return n;
}

/* Reply consumer cons's pending entries from start (count 0: all), missing
 * entries as [id, nil]; each delivered again (time, count). */
static void deliver_history(client *c, const sarg *key, stream *s, xgroup *g, xconsumer *cons, const xs_id *start,
                            size_t count)
{
    size_t i = pel_lower(&cons->pel, start), n = 0;
    void *slot = reply_defer(c);

    for (; i < cons->pel.n && (!count || n < count); i++, n++) {
        xnack *nk = pel_at(&cons->pel, i);
        if (!reply_one(c, s, &nk->id)) {
            reply_array(c, 2);
            reply_id(c, &nk->id);
            reply_null_array(c);
            continue;
        }
        nk->delivery_time = db_now;
        nk->delivery_count++;
        prop_xclaim(c, key, g, nk);
    }
    reply_defer_array(c, slot, n);
}

static void xread_generic(client *c, int group_mode)
{
    long long count = 0;
    int64_t deadline = 0;
    int blocking = 0, noack = 0, streams_arg = 0, nstreams = 0, i, served = 0, changed = 0;
    const sarg *gname = NULL, *cname = NULL;
    xs_id idbuf[16], *ids = idbuf;
    xgroup **groups = NULL, *gbuf[16];
    void *slot = NULL;

    for (i = 1; i < c->argc; i++) {
        int more = c->argc - i - 1;
        const sarg *o = &c->argv[i];
        if (arg_is(o, "block") && more) {
            i++;
            if (parse_block_ms(c, i, &deadline) < 0)
                return;
            blocking = 1;
        } else if (arg_is(o, "count") && more) {
            i++;
            if (arg_ll(c, i, &count) < 0)
                return;
            if (count < 0)
                count = 0;
        } else if (arg_is(o, "streams") && more) {
            streams_arg = i + 1;
            nstreams = c->argc - streams_arg;
            if (nstreams % 2 != 0) {
                /* Redis 7.0 names XREAD and '$' for both commands. */
                reply_error(c, "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
                               "specified.");
                return;
            }
            nstreams /= 2;
            break;
        } else if (arg_is(o, "group") && more >= 2) {
            if (!group_mode) {
                reply_error(c, "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            gname = &c->argv[i + 1];
            cname = &c->argv[i + 2];
            i += 2;
        } else if (arg_is(o, "noack")) {
            if (!group_mode) {
                reply_error(c, "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return;
            }
            noack = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (streams_arg == 0) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (group_mode && !gname) {
        reply_error(c, "ERR Missing GROUP option for XREADGROUP");
        return;
    }
    if (nstreams > 16) {
        ids = xmalloc(sizeof(xs_id) * (size_t)nstreams);
        groups = xmalloc(sizeof(xgroup *) * (size_t)nstreams);
    } else {
        groups = gbuf;
    }
    for (i = 0; i < nstreams; i++) {
        const sarg *key = &c->argv[streams_arg + i], *ida = &c->argv[streams_arg + nstreams + i];
        dbent *e = db_lookup(c->db, key->p, key->len);
        xgroup *g = NULL;
        if (not_the_ready_key(c, key)) {
            ids[i] = ID_MAX; /* not served in this re-run */
            continue;
        }
        if (e && e->type != OBJ_STREAM) {
            if (blk_rerunning(c)) {
                if (group_mode)
                    reply_error(c, "UNBLOCKED the stream key no longer exists");
                else
                    blk_block(c, streams_arg, nstreams, deadline);
                goto done;
            }
            reply_error(c, ERR_WRONGTYPE);
            goto done;
        }
        if (gname) {
            if (!e || !(g = stream_group_find(stream_of(e), gname->p, gname->len))) {
                if (blk_rerunning(c) && !e)
                    reply_error(c, "UNBLOCKED the stream key no longer exists");
                else if (blk_rerunning(c))
                    reply_error(c, "NOGROUP the consumer group this client was blocked on no longer exists");
                else
                    reply_errorf(c,
                                 "NOGROUP No such key '%.*s' or consumer group '%.*s' in XREADGROUP with GROUP option",
                                 (int)key->len, key->p, (int)gname->len, gname->p);
                goto done;
            }
            groups[i] = g;
        }
        if (ida->len == 1 && ida->p[0] == '$') {
            if (group_mode) {
                reply_error(c, "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                               "history of this consumer by specifying a proper ID, or use the > ID to get new "
                               "messages. The $ ID would just return an empty result set.");
                goto done;
            }
            ids[i] = e ? stream_of(e)->last_id : ID_MIN;
            continue;
        }
        if (ida->len == 1 && ida->p[0] == '>') {
            if (!group_mode) {
                reply_error(c, "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                               "<group> <consumer> option.");
                goto done;
            }
            ids[i] = ID_MAX;
            continue;
        }
        if (parse_id(c, ida, 0, 1, NULL, &ids[i]) < 0)
            goto done;
    }
    if (count == 0 && blk_rerunning(c))
        count = XREAD_BLOCKED_DEFAULT_COUNT;
    for (i = 0; i < nstreams; i++) {
        const sarg *key = &c->argv[streams_arg + i];
        dbent *e = db_lookup(c->db, key->p, key->len);
        stream *s;
        xs_id gt = ids[i], top;
        int now_serve = 0, history = 0;
        if (!e || not_the_ready_key(c, key))
            continue;
        s = stream_of(e);
        if (gname) {
            if (xs_id_cmp(&gt, &ID_MAX) != 0) {
                now_serve = history = 1;
            } else if (xs_len(s->x) && xs_last(s->x, &top) == 0 && xs_id_cmp(&top, &groups[i]->last_id) > 0) {
                now_serve = 1;
            }
        } else if (xs_len(s->x) && xs_last(s->x, &top) == 0 && xs_id_cmp(&top, &gt) > 0) {
            now_serve = 1;
        }
        if (!now_serve)
            continue;
        if (++served == 1)
            slot = reply_defer(c);
        if (c->resp == 2)
            reply_array(c, 2);
        reply_bulk(c, key->p, key->len);
        if (gname) {
            int created;
            xconsumer *cons = stream_consumer_get(groups[i], cname->p, cname->len, db_now, &created);
            cons->seen_time = db_now;
            if (created)
                prop_createconsumer(c, key, groups[i], cons);
            if (history) {
                xs_id start = gt;
                stream_id_incr(&start);
                deliver_history(c, key, s, groups[i], cons, &start, (size_t)count);
            } else {
                deliver_new(c, key, s, groups[i], cons, (size_t)count, noack);
            }
            changed = 1;
            signal_key_written(c->db, key->p, key->len);
        } else {
            xs_id start = gt;
            stream_id_incr(&start);
            reply_range(c, s, &start, &ID_MAX, (size_t)count, 0);
        }
    }
    if (served) {
        if (c->resp == 2)
            reply_defer_array(c, slot, served);
        else
            reply_defer_map(c, slot, served);
        goto done;
    }
    (void)changed;
    if (blocking) {
        /* "$" becomes the id it stands for now: the wait reads what comes after. */
        sarg *saved = c->argv, *copy = xmalloc(sizeof(sarg) * (size_t)c->argc);
        char(*idtext)[48] = xmalloc(48 * (size_t)nstreams);
        memcpy(copy, c->argv, sizeof(sarg) * (size_t)c->argc);
        for (i = 0; i < nstreams; i++) {
            sarg *a = &copy[streams_arg + nstreams + i];
            if (!group_mode && a->len == 1 && a->p[0] == '$') {
                a->len = stream_fmt_id(idtext[i], &ids[i]);
                a->p = idtext[i];
            }
        }
        c->argv = copy;
        blk_block(c, streams_arg, nstreams, deadline);
        c->argv = saved;
        xfree(idtext);
        xfree(copy);
        goto done;
    }
    reply_null_array(c);
done:
    if (ids != idbuf)
        xfree(ids);
    if (groups && groups != gbuf)
        xfree(groups);
}

static void cmd_xread(client *c)
{
    xread_generic(c, 0);
}

static void cmd_xreadgroup(client *c)
{
    xread_generic(c, 1);
}

/* ---- groups ---- */

static void cmd_xack(client *c)
{
    xs_id ids[16], *v = ids;
    dbent *e;
    xgroup *g = NULL;
    long long acked = 0;
    int j, n = c->argc - 3;

    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_int(c, 0);
        return;
    }
    if (n > 16)
        v = xmalloc(sizeof(xs_id) * (size_t)n);
    for (j = 0; j < n; j++)
        if (parse_id(c, &c->argv[3 + j], 0, 1, NULL, &v[j]) < 0)
            goto done;
    for (j = 0; j < n; j++) {
        xnack *nk = pel_find(&g->pel, &v[j]);
        if (nk) {
            stream_nack_del(g, nk);
            acked++;
        }
    }
    if (acked)
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    reply_int(c, acked);
done:
    if (v != ids)
        xfree(v);
}

static void cmd_xpending(client *c)
{
    int justinfo = c->argc == 3, sx = 0, ex = 0;
    const sarg *cname = NULL;
    xs_id start, end;
    long long count = 0, minidle = 0;
    dbent *e;
    xgroup *g;

    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        reply_error(c, ERR_SYNTAX);
        return;
    }
    if (c->argc >= 6) {
        int si = 3;
        if (arg_is(&c->argv[3], "idle")) {
            if (arg_ll(c, 4, &minidle) < 0)
                return;
            if (c->argc < 8) {
                reply_error(c, ERR_SYNTAX);
                return;
            }
            si += 2;
        }
        if (arg_ll(c, si + 2, &count) < 0)
            return;
        if (count < 0)
            count = 0;
        if (parse_interval(c, &c->argv[si], 0, &sx, &start) < 0)
            return;
        if (sx && stream_id_incr(&start) < 0) {
            reply_error(c, "ERR invalid start ID for the interval");
            return;
        }
        if (parse_interval(c, &c->argv[si + 1], UINT64_MAX, &ex, &end) < 0)
            return;
        if (ex && stream_id_decr(&end) < 0) {
            reply_error(c, "ERR invalid end ID for the interval");
            return;
        }
        if (si + 3 < c->argc)
            cname = &c->argv[si + 3];
    }
    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (!e || !(g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len))) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    if (justinfo) {
        size_t k, n = 0;
        void *slot;
        reply_array(c, 4);
        reply_int(c, (long long)g->pel.n);
        if (g->pel.n == 0) {
            reply_null(c);
            reply_null(c);
            reply_null_array(c);
            return;
        }
        reply_id(c, &pel_at(&g->pel, 0)->id);
        reply_id(c, &pel_at(&g->pel, g->pel.n - 1)->id);
        slot = reply_defer(c);
        for (k = 0; k < g->ncons; k++) {
            const xconsumer *cn = g->cons[k];
            if (cn->pel.n == 0)
                continue;
            reply_array(c, 2);
            reply_bulk(c, cn->name, cn->nlen);
            reply_bulk_ll(c, (long long)cn->pel.n);
            n++;
        }
        reply_defer_array(c, slot, (long)n);
        return;
    }
    {
        const xpel *p = &g->pel;
        size_t k, n = 0;
        void *slot;
        if (cname) {
            const xconsumer *cn = stream_consumer_find(g, cname->p, cname->len);
            if (!cn) {
                reply_array(c, 0);
                return;
            }
            p = &cn->pel;
        }
        slot = reply_defer(c);
        for (k = pel_lower(p, &start); count && k < p->n && xs_id_cmp(&pel_at(p, k)->id, &end) <= 0; k++) {
            const xnack *nk = pel_at(p, k);
            int64_t idle = db_now - nk->delivery_time;
            if (minidle && idle < minidle)
                continue;
            n++;
            count--;
            reply_array(c, 4);
            reply_id(c, &nk->id);
            reply_bulk(c, nk->consumer->name, nk->consumer->nlen);
            reply_int(c, idle < 0 ? 0 : idle);
            reply_int(c, (long long)nk->delivery_count);
        }
        reply_defer_array(c, slot, (long)n);
    }
}

static void cmd_xclaim(client *c)
{
    dbent *e;
    xgroup *g = NULL;
    stream *s;
    long long minidle, retry = -1, dtime = -1;
    int force = 0, justid = 0, j, last_arg, moved = 0;
    xs_id lastid = {0, 0}, *ids = NULL;
    xconsumer *cons = NULL;
    void *slot;
    size_t n = 0;
    int64_t now = db_now;

    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    s = stream_of(e);
    if (str_to_ll(c->argv[4].p, c->argv[4].len, &minidle) < 0) {
        reply_error(c, "ERR Invalid min-idle-time argument for XCLAIM");
        return;
    }
    if (minidle < 0)
        minidle = 0;
    ids = xmalloc(sizeof(xs_id) * (size_t)c->argc);
    for (j = 5; j < c->argc; j++)
        if (parse_id(NULL, &c->argv[j], 0, 1, NULL, &ids[j - 5]) < 0)
            break;
    last_arg = j - 1;
    for (; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const sarg *o = &c->argv[j];
        if (arg_is(o, "force")) {
            force = 1;
        } else if (arg_is(o, "justid")) {
            justid = 1;
        } else if (arg_is(o, "idle") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &dtime) < 0) {
                reply_error(c, "ERR Invalid IDLE option argument for XCLAIM");
                goto done;
            }
            dtime = now - dtime;
        } else if (arg_is(o, "time") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &dtime) < 0) {
                reply_error(c, "ERR Invalid TIME option argument for XCLAIM");
                goto done;
            }
        } else if (arg_is(o, "retrycount") && more) {
            j++;
            if (str_to_ll(c->argv[j].p, c->argv[j].len, &retry) < 0) {
                reply_error(c, "ERR Invalid RETRYCOUNT option argument for XCLAIM");
                goto done;
            }
        } else if (arg_is(o, "lastid") && more) {
            j++;
            if (parse_id(c, &c->argv[j], 0, 1, NULL, &lastid) < 0)
                goto done;
        } else {
            reply_errorf(c, "ERR Unrecognized XCLAIM option '%.*s'", (int)o->len, o->p);
            goto done;
        }
    }
    if (xs_id_cmp(&lastid, &g->last_id) > 0) {
        g->last_id = lastid;
        moved = 1;
    }
    if (dtime != -1) {
        if (dtime < 0 || dtime > now)
            dtime = now;
    } else {
        dtime = now;
    }
    slot = reply_defer(c);
    for (j = 5; j <= last_arg; j++) {
        xs_id id = ids[j - 5];
        xnack *nk = pel_find(&g->pel, &id);
        int fresh = 0;
        if (!entry_exists(s, &id)) {
            if (nk) {
                stream_nack_del(g, nk);
                prop_xack(c, &c->argv[1], g, &id);
                signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
            }
            continue;
        }
        if (force && !nk)
            fresh = 1;
        if (!nk && !fresh)
            continue;
        if (!fresh && minidle && now - nk->delivery_time < minidle)
            continue;
        if (!cons) {
            cons = stream_consumer_get(g, c->argv[3].p, c->argv[3].len, now, NULL);
            cons->seen_time = now;
        }
        if (fresh)
            nk = stream_nack_add(g, cons, &id, now, 1);
        else
            stream_nack_move(nk, cons);
        nk->delivery_time = dtime;
        if (retry >= 0)
            nk->delivery_count = (uint64_t)retry;
        else if (!justid)
            nk->delivery_count++;
        if (justid)
            reply_id(c, &id);
        else if (!reply_one(c, s, &id))
            reply_null(c);
        n++;
        prop_xclaim(c, &c->argv[1], g, nk);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    }
    if (moved) {
        prop_setid(c, &c->argv[1], g);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
    }
    reply_defer_array(c, slot, (long)n);
done:
    xfree(ids);
}

static void cmd_xautoclaim(client *c)
{
    dbent *e;
    xgroup *g = NULL;
    stream *s;
    long long minidle, count = 100, attempts;
    xs_id start, endid = {0, 0}, *deleted, *claimed;
    int sx, j, justid = 0;
    size_t k, n = 0, ndel = 0;
    xconsumer *cons = NULL;
    int64_t now = db_now;

    if (str_to_ll(c->argv[4].p, c->argv[4].len, &minidle) < 0) {
        reply_error(c, "ERR Invalid min-idle-time argument for XAUTOCLAIM");
        return;
    }
    if (minidle < 0)
        minidle = 0;
    if (parse_interval(c, &c->argv[5], 0, &sx, &start) < 0)
        return;
    if (sx && stream_id_incr(&start) < 0) {
        reply_error(c, "ERR invalid start ID for the interval");
        return;
    }
    for (j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (arg_is(&c->argv[j], "count") && more) {
            long long maxc = LONG_MAX / 16;
            if (str_to_ll(c->argv[j + 1].p, c->argv[j + 1].len, &count) < 0 || count < 1 || count > maxc) {
                reply_error(c, "ERR COUNT must be > 0");
                return;
            }
            j++;
        } else if (arg_is(&c->argv[j], "justid")) {
            justid = 1;
        } else {
            reply_error(c, ERR_SYNTAX);
            return;
        }
    }
    if (lookup_stream(c, &c->argv[1], 0, &e) < 0)
        return;
    if (e)
        g = stream_group_find(stream_of(e), c->argv[2].p, c->argv[2].len);
    if (!g) {
        reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'", (int)c->argv[1].len, c->argv[1].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    s = stream_of(e);
    attempts = count * 10;
    claimed = xmalloc(sizeof(xs_id) * 64);
    deleted = xmalloc(sizeof(xs_id) * 64);
    k = pel_lower(&g->pel, &start);
    while (attempts-- && count && k < g->pel.n) {
        xnack *nk = pel_at(&g->pel, k);
        xs_id id = nk->id;
        if (!entry_exists(s, &id)) {
            stream_nack_del(g, nk);
            prop_xack(c, &c->argv[1], g, &id);
            signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
            if (ndel % 64 == 0 && ndel)
                deleted = xrealloc(deleted, sizeof(xs_id) * (ndel + 64));
            deleted[ndel++] = id;
            count--;
            continue; /* k now names the next one */
        }
        if (minidle && now - nk->delivery_time < minidle) {
            k++;
            continue;
        }
        if (!cons) {
            cons = stream_consumer_get(g, c->argv[3].p, c->argv[3].len, now, NULL);
            cons->seen_time = now;
        }
        stream_nack_move(nk, cons);
        nk->delivery_time = now;
        if (!justid)
            nk->delivery_count++;
        if (n % 64 == 0 && n)
            claimed = xrealloc(claimed, sizeof(xs_id) * (n + 64));
        claimed[n++] = id;
        count--;
        prop_xclaim(c, &c->argv[1], g, nk);
        signal_key_written(c->db, c->argv[1].p, c->argv[1].len);
        k++;
    }
    if (k < g->pel.n)
        endid = pel_at(&g->pel, k)->id;
    reply_array(c, 3);
    reply_id(c, &endid);
    reply_array(c, (long)n);
    for (k = 0; k < n; k++) {
        if (justid)
            reply_id(c, &claimed[k]);
        else if (!reply_one(c, s, &claimed[k]))
            reply_null(c);
    }
    reply_array(c, (long)ndel);
    for (k = 0; k < ndel; k++)
        reply_id(c, &deleted[k]);
    xfree(claimed);
    xfree(deleted);
}

/* ---- XGROUP ---- */

/* The stream and group XGROUP's subcommands name, with Redis's errors: 0, or
 * -1 replied. need_group: SETID, CREATECONSUMER, DELCONSUMER. */
static int xgroup_target(client *c, int mkstream, int need_group, dbent **e, xgroup **g)
{
    *g = NULL;
    if (lookup_stream(c, &c->argv[2], 1, e) < 0)
        return -1;
    if (!mkstream) {
        if (!*e) {
            reply_error(c, "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
                           "want to use the MKSTREAM option to create an empty stream automatically.");
            return -1;
        }
        *g = stream_group_find(stream_of(*e), c->argv[3].p, c->argv[3].len);
        if (!*g && need_group) {
            reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", (int)c->argv[3].len,
                         c->argv[3].p, (int)c->argv[2].len, c->argv[2].p);
            return -1;
        }
    } else if (*e) {
        *g = stream_group_find(stream_of(*e), c->argv[3].p, c->argv[3].len);
    }
    return 0;
}

static void xgroup_create(client *c)
{
    int mkstream = 0, i = 5;
    long long rd = XS_INVALID_READ;
    dbent *e;
    xgroup *g;
    xs_id id;

    while (i < c->argc) {
        if (arg_is(&c->argv[i], "mkstream")) {
            mkstream = 1;
            i++;
        } else if (arg_is(&c->argv[i], "entriesread") && i + 1 < c->argc) {
            if (arg_ll(c, i + 1, &rd) < 0)
                return;
            if (rd < 0 && rd != XS_INVALID_READ) {
                reply_error(c, "ERR value for ENTRIESREAD must be positive or -1");
                return;
            }
            i += 2;
        } else {
            reply_subcommand_syntax(c);
            return;
        }
    }
    if (xgroup_target(c, mkstream, 0, &e, &g) < 0)
        return;
    if (c->argc > 8) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$')
        id = e ? stream_of(e)->last_id : ID_MIN;
    else if (parse_id(c, &c->argv[4], 0, 1, NULL, &id) < 0)
        return;
    if (!e) {
        e = stream_create(c->db, c->argv[2].p, c->argv[2].len);
        signal_key_changed(c->db, c->argv[2].p, c->argv[2].len); /* a new key: as Redis, the one reported */
    }
    if (!stream_group_create(stream_of(e), c->argv[3].p, c->argv[3].len, &id, rd)) {
        reply_error(c, "BUSYGROUP Consumer Group name already exists");
        return;
    }
    reply_ok(c);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
}

static void xgroup_setid(client *c)
{
    dbent *e;
    xgroup *g;
    xs_id id;
    long long rd = XS_INVALID_READ;

    if (c->argc == 7) {
        if (!arg_is(&c->argv[5], "entriesread")) {
            reply_error(c, ERR_SYNTAX);
            return;
        }
        if (arg_ll(c, 6, &rd) < 0)
            return;
        if (rd < 0 && rd != XS_INVALID_READ) {
            reply_error(c, "ERR value for ENTRIESREAD must be positive or -1");
            return;
        }
    }
    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    if (c->argc != 5 && c->argc != 7) {
        reply_subcommand_syntax(c);
        return;
    }
    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$')
        id = stream_of(e)->last_id;
    else if (parse_id(c, &c->argv[4], 0, 0, NULL, &id) < 0)
        return;
    g->last_id = id;
    g->entries_read = rd;
    reply_ok(c);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
}

static void xgroup_destroy(client *c)
{
    dbent *e;
    xgroup *g;

    if (xgroup_target(c, 0, 0, &e, &g) < 0)
        return;
    if (!g) {
        reply_int(c, 0);
        return;
    }
    stream_group_destroy(stream_of(e), c->argv[3].p, c->argv[3].len);
    reply_int(c, 1);
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
    blk_key_ready(c->db, c->argv[2].p, c->argv[2].len); /* its blocked readers get -NOGROUP */
}

static void xgroup_createconsumer(client *c)
{
    dbent *e;
    xgroup *g;
    int created;

    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    stream_consumer_get(g, c->argv[4].p, c->argv[4].len, db_now, &created);
    reply_int(c, created);
    if (created)
        signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
}

static void xgroup_delconsumer(client *c)
{
    dbent *e;
    xgroup *g;
    xconsumer *cn;

    if (xgroup_target(c, 0, 1, &e, &g) < 0)
        return;
    cn = stream_consumer_find(g, c->argv[4].p, c->argv[4].len);
    if (!cn) {
        reply_int(c, 0);
        return;
    }
    reply_int(c, (long long)stream_consumer_delete(g, cn));
    signal_key_written(c->db, c->argv[2].p, c->argv[2].len);
}

static void xgroup_help(client *c)
{
    static const char *const lines[] = {
        "CREATE <key> <groupname> <id|$> [option]",
        "    Create a new consumer group. Options are:",
        "    * MKSTREAM",
        "      Create the empty stream if it does not exist.",
        "    * ENTRIESREAD entries_read",
        "      Set the group's entries_read counter (internal use).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Create a new consumer in the specified group.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove the specified consumer.",
        "DESTROY <key> <groupname>",
        "    Remove the specified group.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Set the current group ID and entries_read counter.",
        NULL,
    };
    reply_help(c, lines);
}

/* ---- XINFO ---- */

static void reply_lag(client *c, const stream *s, const xgroup *g)
{
    long long lag;
    if (stream_group_lag(s, g, &lag) < 0)
        reply_null(c);
    else
        reply_int(c, lag);
}

static void reply_entries_read(client *c, const xgroup *g)
{
    if (g->entries_read != XS_INVALID_READ)
        reply_int(c, g->entries_read);
    else
        reply_null(c);
}

static void xinfo_stream(client *c)
{
    long long count = 10;
    int full = 0;
    dbent *e;
    const stream *s;
    xs_id first, last;
    size_t i, j, k;

    if (lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (c->argc > 3) {
        if (!arg_is(&c->argv[3], "full")) {
            reply_subcommand_syntax(c);
            return;
        }
        if (c->argc == 6) {
            if (!arg_is(&c->argv[4], "count")) {
                reply_subcommand_syntax(c);
                return;
            }
            if (arg_ll(c, 5, &count) < 0)
                return;
            if (count < 0)
                count = 10;
        } else if (c->argc != 4) {
            reply_subcommand_syntax(c);
            return;
        }
        full = 1;
    }
    s = stream_of(e);
    reply_map(c, full ? 9 : 10);
    reply_bulk_cstr(c, "length");
    reply_int(c, (long long)xs_len(s->x));
    reply_bulk_cstr(c, "radix-tree-keys");
    reply_int(c, (long long)xs_nblocks(s->x));
    reply_bulk_cstr(c, "radix-tree-nodes");
    reply_int(c, (long long)xs_nblocks(s->x) + 1);
    reply_bulk_cstr(c, "last-generated-id");
    reply_id(c, &s->last_id);
    reply_bulk_cstr(c, "max-deleted-entry-id");
    reply_id(c, &s->max_deleted);
    reply_bulk_cstr(c, "entries-added");
    reply_int(c, (long long)s->entries_added);
    reply_bulk_cstr(c, "recorded-first-entry-id");
    first = stream_first_id(s);
    reply_id(c, &first);
    if (!full) {
        reply_bulk_cstr(c, "groups");
        reply_int(c, (long long)s->ngroups);
        reply_bulk_cstr(c, "first-entry");
        if (xs_first(s->x, &first) < 0 || !reply_one(c, s, &first))
            reply_null(c);
        reply_bulk_cstr(c, "last-entry");
        if (xs_last(s->x, &last) < 0 || !reply_one(c, s, &last))
            reply_null(c);
        return;
    }
    reply_bulk_cstr(c, "entries");
    reply_range(c, s, &ID_MIN, &ID_MAX, (size_t)count, 0);
    reply_bulk_cstr(c, "groups");
    reply_array(c, (long)s->ngroups);
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        size_t lim = count ? (size_t)count : SIZE_MAX;
        reply_map(c, 7);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, g->name, g->nlen);
        reply_bulk_cstr(c, "last-delivered-id");
        reply_id(c, &g->last_id);
        reply_bulk_cstr(c, "entries-read");
        reply_entries_read(c, g);
        reply_bulk_cstr(c, "lag");
        reply_lag(c, s, g);
        reply_bulk_cstr(c, "pel-count");
        reply_int(c, (long long)g->pel.n);
        reply_bulk_cstr(c, "pending");
        reply_array(c, (long)(g->pel.n < lim ? g->pel.n : lim));
        for (k = 0; k < g->pel.n && k < lim; k++) {
            const xnack *nk = pel_at(&g->pel, k);
            reply_array(c, 4);
            reply_id(c, &nk->id);
            reply_bulk(c, nk->consumer->name, nk->consumer->nlen);
            reply_int(c, nk->delivery_time);
            reply_int(c, (long long)nk->delivery_count);
        }
        reply_bulk_cstr(c, "consumers");
        reply_array(c, (long)g->ncons);
        for (j = 0; j < g->ncons; j++) {
            const xconsumer *cn = g->cons[j];
            reply_map(c, 4);
            reply_bulk_cstr(c, "name");
            reply_bulk(c, cn->name, cn->nlen);
            reply_bulk_cstr(c, "seen-time");
            reply_int(c, cn->seen_time);
            reply_bulk_cstr(c, "pel-count");
            reply_int(c, (long long)cn->pel.n);
            reply_bulk_cstr(c, "pending");
            reply_array(c, (long)(cn->pel.n < lim ? cn->pel.n : lim));
            for (k = 0; k < cn->pel.n && k < lim; k++) {
                const xnack *nk = pel_at(&cn->pel, k);
                reply_array(c, 3);
                reply_id(c, &nk->id);
                reply_int(c, nk->delivery_time);
                reply_int(c, (long long)nk->delivery_count);
            }
        }
    }
}

static void xinfo_groups(client *c)
{
    dbent *e;
    const stream *s;
    size_t i;

    if (lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    s = stream_of(e);
    reply_array(c, (long)s->ngroups);
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        reply_map(c, 6);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, g->name, g->nlen);
        reply_bulk_cstr(c, "consumers");
        reply_int(c, (long long)g->ncons);
        reply_bulk_cstr(c, "pending");
        reply_int(c, (long long)g->pel.n);
        reply_bulk_cstr(c, "last-delivered-id");
        reply_id(c, &g->last_id);
        reply_bulk_cstr(c, "entries-read");
        reply_entries_read(c, g);
        reply_bulk_cstr(c, "lag");
        reply_lag(c, s, g);
    }
}

static void xinfo_consumers(client *c)
{
    dbent *e;
    const xgroup *g;
    size_t i;

    if (lookup_stream(c, &c->argv[2], 0, &e) < 0)
        return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (!(g = stream_group_find(stream_of(e), c->argv[3].p, c->argv[3].len))) {
        reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", (int)c->argv[3].len, c->argv[3].p,
                     (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    reply_array(c, (long)g->ncons);
    for (i = 0; i < g->ncons; i++) {
        const xconsumer *cn = g->cons[i];
        int64_t idle = db_now - cn->seen_time;
        reply_map(c, 3);
        reply_bulk_cstr(c, "name");
        reply_bulk(c, cn->name, cn->nlen);
        reply_bulk_cstr(c, "pending");
        reply_int(c, (long long)cn->pel.n);
        reply_bulk_cstr(c, "idle");
        reply_int(c, idle < 0 ? 0 : idle);
    }
}

static void xinfo_help(client *c)
{
    static const char *const lines[] = {
        "CONSUMERS <key> <groupname>",
        "    Show consumers of <groupname>.",
        "GROUPS <key>",
        "    Show the stream consumer groups.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    Show information about the stream.",
        NULL,
    };
    reply_help(c, lines);
}

#define WS "write stream"
#define RS "read stream"
/* clang-format off */
static const cmd_def xgroup_subcommands[] = {
    {.name = "create", .proc = xgroup_create, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, KEYS(2, 2, 1),
     .group = "stream", .summary = "Create a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .acl = WS " slow", .key_specs = "RW insert"},
    {.name = "help", .proc = xgroup_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "stream",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "stream slow"},
    {.name = "destroy", .proc = xgroup_destroy, .arity = 4, .flags = CMD_WRITE, KEYS(2, 2, 1), .group = "stream",
     .summary = "Destroy a consumer group.", .since = "5.0.0",
     .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .acl = WS " slow", .key_specs = "RW delete"},
    {.name = "createconsumer", .proc = xgroup_createconsumer, .arity = 5, .flags = CMD_WRITE | CMD_DENYOOM,
     KEYS(2, 2, 1), .group = "stream", .summary = "Create a consumer in a consumer group.", .since = "6.2.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW insert"},
    {.name = "delconsumer", .proc = xgroup_delconsumer, .arity = 5, .flags = CMD_WRITE, KEYS(2, 2, 1),
     .group = "stream", .summary = "Delete a consumer from a consumer group.", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW delete"},
    {.name = "setid", .proc = xgroup_setid, .arity = -5, .flags = CMD_WRITE, KEYS(2, 2, 1), .group = "stream",
     .summary = "Set a consumer group to an arbitrary last delivered ID value.", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " slow", .key_specs = "RW update"},
    {0},
};

static const cmd_def xinfo_subcommands[] = {
    {.name = "stream", .proc = xinfo_stream, .arity = -3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "stream",
     .summary = "Get information about a stream", .since = "5.0.0", .complexity = "O(1)", .acl = RS " slow",
     .key_specs = "RO access"},
    {.name = "help", .proc = xinfo_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .group = "stream",
     .summary = "Show helpful text about the different subcommands", .since = "5.0.0", .complexity = "O(1)",
     .acl = "stream slow"},
    {.name = "consumers", .proc = xinfo_consumers, .arity = 4, .flags = CMD_READONLY, KEYS(2, 2, 1),
     .group = "stream", .summary = "List the consumers in a consumer group", .since = "5.0.0",
     .complexity = "O(1)", .acl = RS " slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "groups", .proc = xinfo_groups, .arity = 3, .flags = CMD_READONLY, KEYS(2, 2, 1), .group = "stream",
     .summary = "List the consumer groups of a stream", .since = "5.0.0", .complexity = "O(1)", .acl = RS " slow",
     .key_specs = "RO access"},
    {0},
};

const cmd_def cmd_table_stream[] = {
    {.name = "xadd", .proc = cmd_xadd, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream", .summary = "Appends a new entry to a stream", .since = "5.0.0",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .acl = WS " fast", .tips = "nondeterministic_output",
     .key_specs = "RW update#UPDATE instead of INSERT because of the optional trimming feature"},
    {.name = "xlen", .proc = cmd_xlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, KEYS(1, 1, 1),
     .group = "stream", .summary = "Return the number of entries in a stream", .since = "5.0.0",
     .complexity = "O(1)", .acl = RS " fast", .key_specs = "RO"},
    {.name = "xrange", .proc = cmd_xrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1), .group = "stream",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .acl = RS " slow", .key_specs = "RO access"},
    {.name = "xrevrange", .proc = cmd_xrevrange, .arity = -4, .flags = CMD_READONLY, KEYS(1, 1, 1),
     .group = "stream",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .acl = RS " slow", .key_specs = "RO access"},
    {.name = "xdel", .proc = cmd_xdel, .arity = -3, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "stream",
     .summary = "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
     .since = "5.0.0", .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .acl = WS " fast", .key_specs = "RW delete"},
    {.name = "xtrim", .proc = cmd_xtrim, .arity = -4, .flags = CMD_WRITE | CMD_OWN_EFFECT, KEYS(1, 1, 1),
     .group = "stream", .summary = "Trims the stream to (approximately if '~' is passed) a certain size",
     .since = "5.0.0",
     .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
     .acl = WS " slow", .tips = "nondeterministic_output", .key_specs = "RW delete"},
    {.name = "xread", .proc = cmd_xread, .arity = -4, .flags = CMD_READONLY | CMD_BLOCKING, KEYS(0, 0, 0),
     .group = "stream",
     .summary = "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
     .since = "5.0.0",
     .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
     .acl = RS " slow blocking", .key_specs = "RO access@w:STREAMS,1,-1,1,2"},
    {.name = "xreadgroup", .proc = cmd_xreadgroup, .arity = -7, .flags = CMD_WRITE | CMD_BLOCKING | CMD_OWN_EFFECT,
     KEYS(0, 0, 0), .group = "stream",
     .summary = "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
     .since = "5.0.0",
     .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
     .acl = WS " slow blocking", .key_specs = "RO access@w:STREAMS,4,-1,1,2"},
    {.name = "xack", .proc = cmd_xack, .arity = -4, .flags = CMD_WRITE | CMD_FAST, KEYS(1, 1, 1), .group = "stream",
     .summary = "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
     .since = "5.0.0", .complexity = "O(1) for each message ID processed.", .acl = WS " fast",
     .key_specs = "RW update"},
    {.name = "xpending", .proc = cmd_xpending, .arity = -3, .flags = CMD_READONLY, KEYS(1, 1, 1),
     .group = "stream",
     .summary = "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
     .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
     .acl = RS " slow", .tips = "nondeterministic_output", .key_specs = "RO access"},
    {.name = "xclaim", .proc = cmd_xclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream",
     .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
     .since = "5.0.0", .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .acl = WS " fast", .tips = "nondeterministic_output", .key_specs = "RW update"},
    {.name = "xautoclaim", .proc = cmd_xautoclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST | CMD_OWN_EFFECT,
     KEYS(1, 1, 1), .group = "stream",
     .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
     .since = "6.2.0", .complexity = "O(1) if COUNT is small.", .acl = WS " fast",
     .tips = "nondeterministic_output", .key_specs = "RW delete"},
    {.name = "xsetid", .proc = cmd_xsetid, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, KEYS(1, 1, 1),
     .group = "stream", .summary = "An internal command for replicating stream values", .since = "5.0.0",
     .complexity = "O(1)", .acl = WS " fast", .key_specs = "RW update"},
    {.name = "xgroup", .proc = cmd_container, .arity = -2, .flags = 0, .group = "stream",
     .summary = "A container for consumer groups commands", .since = "5.0.0", .complexity = "Depends on subcommand.",
     .acl = "slow", .subcommands = xgroup_subcommands},
    {.name = "xinfo", .proc = cmd_container, .arity = -2, .flags = 0, .group = "stream",
     .summary = "A container for stream introspection commands", .since = "5.0.0",
     .complexity = "Depends on subcommand.", .acl = "slow", .subcommands = xinfo_subcommands},
    {0},
};
/* clang-format on */
