/* cmd_dump_stream.c -- DUMP and RESTORE of streams, and of the types Redis
 * does not have (dump_int.h).
 *
 * Redis 7.0's RDB_TYPE_STREAM_LISTPACKS_2: the radix tree's nodes (a 16-byte
 * big-endian master id, then the node's listpack: core/xstream.h's blocks are
 * cut where Redis cuts its nodes, so each block is one node, deleted entries
 * included), the length, the last id, the first id, the largest deleted id,
 * the entries ever added, then the consumer groups in name order: name, last
 * delivered id, entries read, the PEL (raw 16-byte ids, delivery time in ms as
 * 8 little-endian bytes, delivery count), the consumers in name order (name,
 * seen time, the ids of their PEL). RDB_TYPE_STREAM_LISTPACKS (Redis 5 and 6)
 * is the same without the three 7.0 counters and the groups' entries read,
 * which RESTORE then derives as Redis 7.0 does.
 *
 * RESTORE rebuilds the blocks node for node and checks what Redis's deep
 * sanitization checks: each listpack's master entry and entries (flags, the
 * element count each entry ends with, the node's live and deleted counts),
 * nodes in master id order, each starting at its master id, live ids
 * increasing, the length, the last id not below the last entry,
 * groups and consumers unique, every PEL entry pending once and owned by
 * exactly one consumer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/dump_int.h"
#include "core/dumpfmt.h"
#include "core/lz/lzval.h"
#include "core/mem.h"
#include "core/util.h"
#include "keyspace/type.h"
#include "keyspace/vcomp.h"
#include "types/stream/stream.h"

static void put_id_raw(rdb_out *o, const xs_id *id)
{
    unsigned char b[16];
    int i;
    for (i = 0; i < 8; i++) {
        b[i] = (unsigned char)(id->ms >> (56 - 8 * i));
        b[8 + i] = (unsigned char)(id->seq >> (56 - 8 * i));
    }
    rdb_put(o, b, 16);
}

static void put_ms(rdb_out *o, int64_t ms)
{
    unsigned char b[8];
    int i;
    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)ms >> (8 * i));
    rdb_put(o, b, 8);
}

void dump_stream(const dbent *e, rdb_out *o)
{
    const stream *s = stream_of(e);
    size_t nb = xs_nblocks(s->x), i, j, k;
    rdb_out lp = {0};
    xs_id master, first = stream_first_id(s);

    rdb_put_byte(o, RDB_TYPE_STREAM_LISTPACKS_2);
    rdb_put_len(o, nb);
    for (i = 0; i < nb; i++) {
        rdb_out key = {0};
        xs_block_lp(s->x, i, &lp, &master);
        put_id_raw(&key, &master);
        rdb_put_string(o, key.p, key.len);
        rdb_put_string(o, lp.p, lp.len);
        rdb_out_free(&key);
    }
    rdb_out_free(&lp);
    rdb_put_len(o, xs_len(s->x));
    rdb_put_len(o, s->last_id.ms);
    rdb_put_len(o, s->last_id.seq);
    rdb_put_len(o, first.ms);
    rdb_put_len(o, first.seq);
    rdb_put_len(o, s->max_deleted.ms);
    rdb_put_len(o, s->max_deleted.seq);
    rdb_put_len(o, s->entries_added);
    rdb_put_len(o, s->ngroups);
    for (i = 0; i < s->ngroups; i++) {
        const xgroup *g = s->groups[i];
        rdb_put_string(o, g->name, g->nlen);
        rdb_put_len(o, g->last_id.ms);
        rdb_put_len(o, g->last_id.seq);
        rdb_put_len(o, (uint64_t)g->entries_read);
        rdb_put_len(o, g->pel.n);
        for (j = 0; j < g->pel.n; j++) {
            const xnack *n = pel_at(&g->pel, j);
            put_id_raw(o, &n->id);
            put_ms(o, n->delivery_time);
            rdb_put_len(o, n->delivery_count);
        }
        rdb_put_len(o, g->ncons);
        for (j = 0; j < g->ncons; j++) {
            const xconsumer *c = g->cons[j];
            rdb_put_string(o, c->name, c->nlen);
            put_ms(o, c->seen_time);
            rdb_put_len(o, c->pel.n);
            for (k = 0; k < c->pel.n; k++)
                put_id_raw(o, &pel_at(&c->pel, k)->id);
        }
    }
}

/* ---- RESTORE ---- */

static int get_id_raw(const unsigned char **p, const unsigned char *end, xs_id *id)
{
    int i;
    if (end - *p < 16)
        return -1;
    id->ms = id->seq = 0;
    for (i = 0; i < 8; i++) {
        id->ms = (id->ms << 8) | (*p)[i];
        id->seq = (id->seq << 8) | (*p)[8 + i];
    }
    *p += 16;
    return 0;
}

static int get_ms(const unsigned char **p, const unsigned char *end, int64_t *ms)
{
    uint64_t u = 0;
    int i;
    if (end - *p < 8)
        return -1;
    for (i = 0; i < 8; i++)
        u |= (uint64_t)(*p)[i] << (8 * i);
    *ms = (int64_t)u;
    *p += 8;
    return 0;
}

static int get_id_lens(const unsigned char **p, const unsigned char *end, xs_id *id)
{
    return rdb_get_len(p, end, &id->ms) < 0 || rdb_get_len(p, end, &id->seq) < 0 ? -1 : 0;
}

/* The next listpack element as an integer: 0, or -1. */
static int next_int(rdb_iter *it, int64_t *v)
{
    const char *s;
    size_t n;
    int isint;
    long long ll;

    if (!rdb_next(it, &s, &n, &isint) || !isint)
        return -1;
    if (str_to_ll(s, n, &ll) < 0)
        return -1;
    *v = ll;
    return 0;
}

/* The next element copied into the arena buf (an integer's text lives in the
 * iterator and would not survive the next call). */
typedef struct strbuf {
    char *p;
    size_t len, cap;
} strbuf;

static int next_str(rdb_iter *it, strbuf *b, size_t *off, size_t *len)
{
    const char *s;
    size_t n;
    if (!rdb_next(it, &s, &n, NULL))
        return -1;
    if (b->cap - b->len < n + 1) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    *off = b->len;
    *len = n;
    b->len += n;
    return 0;
}

/* One node: its master id key and listpack, appended to s. 0, or -1. */
static int load_node(stream *s, const char *key, size_t klen, const char *lpb, size_t lplen, xs_id *prev, int *any,
                     xs_id *prev_master, int nth)
{
    rdb_iter it;
    uint64_t count;
    int64_t live, deleted, nmf, v, flags, dms, dseq, npairs, lpcount;
    size_t *offs = NULL, *lens = NULL, names = 0, cap = 0, i, nv;
    strbuf sb = {0};
    xs_str *fv = NULL;
    xs_id master, id;
    const unsigned char *kp = (const unsigned char *)key;
    int64_t seen_live = 0, seen_deleted = 0;
    int first = 1, rc = -1;

    if (klen != 16 || get_id_raw(&kp, kp + 16, &master) < 0 || (nth > 0 && xs_id_cmp(&master, prev_master) <= 0))
        return -1; /* nodes in master id order, as Redis's radix tree keeps them */
    *prev_master = master;
    if (rdb_lp_open(&it, (const unsigned char *)lpb, lplen, &count) < 0)
        return -1;
    if (next_int(&it, &live) < 0 || next_int(&it, &deleted) < 0 || next_int(&it, &nmf) < 0 || live < 0 || deleted < 0 ||
        nmf < 0 || (uint64_t)nmf > count)
        return -1;
    names = (size_t)nmf;
    cap = names * 2 + 16;
    offs = xmalloc(cap * sizeof(size_t));
    lens = xmalloc(cap * sizeof(size_t));
    for (i = 0; i < names; i++)
        if (next_str(&it, &sb, &offs[i], &lens[i]) < 0)
            goto done;
    if (next_int(&it, &v) < 0 || v != 0)
        goto done;
    while (it.left > 0) {
        if (next_int(&it, &flags) < 0 || (flags & ~3) || next_int(&it, &dms) < 0 || next_int(&it, &dseq) < 0)
            goto done;
        if (flags & 2) {
            npairs = nmf;
        } else if (next_int(&it, &npairs) < 0 || npairs < 0 || (uint64_t)npairs > it.left) {
            goto done;
        }
        nv = (flags & 2) ? (size_t)npairs : 2 * (size_t)npairs;
        if (names + nv > cap) {
            cap = (names + nv) * 2;
            offs = xrealloc(offs, cap * sizeof(size_t));
            lens = xrealloc(lens, cap * sizeof(size_t));
        }
        for (i = 0; i < nv; i++)
            if (next_str(&it, &sb, &offs[names + i], &lens[names + i]) < 0)
                goto done;
        if (next_int(&it, &lpcount) < 0 || lpcount != ((flags & 2) ? npairs + 3 : 2 * npairs + 4))
            goto done;
        fv = xrealloc(fv, (2 * (size_t)npairs + 1) * sizeof(xs_str));
        for (i = 0; i < (size_t)npairs; i++) {
            size_t fi = (flags & 2) ? i : names + 2 * i, vi = (flags & 2) ? names + i : names + 2 * i + 1;
            fv[2 * i].p = sb.p + offs[fi];
            fv[2 * i].len = lens[fi];
            fv[2 * i + 1].p = sb.p + offs[vi];
            fv[2 * i + 1].len = lens[vi];
        }
        if (first && (dms != 0 || dseq != 0))
            goto done; /* a node's master id is its first entry's */
        id.ms = master.ms + (uint64_t)dms;
        id.seq = master.seq + (uint64_t)dseq;
        if (!(flags & 1)) {
            if (*any && xs_id_cmp(&id, prev) <= 0)
                goto done;
            *prev = id;
            *any = 1;
            seen_live++;
        } else {
            seen_deleted++;
        }
        xs_append_raw(s->x, &id, fv, 2 * (size_t)npairs, first, (int)(flags & 1));
        first = 0;
        sb.len = names ? offs[names - 1] + lens[names - 1] : 0; /* keep the master's names only */
    }
    rc = first || seen_live != live || seen_deleted != deleted ? -1 : 0;
done:
    xfree(fv);
    xfree(sb.p);
    xfree(offs);
    xfree(lens);
    return rc;
}

typedef struct pending {
    xs_id id;
    int64_t time;
    uint64_t count;
    int owned;
} pending;

static int pending_cmp(const void *a, const void *b)
{
    return xs_id_cmp(&((const pending *)a)->id, &((const pending *)b)->id);
}

static int load_group(stream *s, int type, const unsigned char **p, const unsigned char *end)
{
    char *name = NULL, *cname;
    size_t nlen, cnlen;
    xs_id last, id;
    uint64_t er, np, nc, i, j, cp;
    long long entries_read;
    pending *pel = NULL, key, *hit;
    xgroup *g;
    int rc = -1;

    if (dump_get_string(p, end, &name, &nlen) < 0)
        return -1;
    if (get_id_lens(p, end, &last) < 0)
        goto done;
    if (type == RDB_TYPE_STREAM_LISTPACKS_2) {
        if (rdb_get_len(p, end, &er) < 0)
            goto done;
        entries_read = (long long)er;
    } else {
        entries_read = stream_estimate_read(s, &last);
    }
    g = stream_group_create(s, name, nlen, &last, entries_read);
    if (!g || rdb_get_len(p, end, &np) < 0 || np > (uint64_t)(end - *p) / 17)
        goto done;
    pel = xmalloc((np ? np : 1) * sizeof(pending));
    for (i = 0; i < np; i++) {
        if (get_id_raw(p, end, &pel[i].id) < 0 || get_ms(p, end, &pel[i].time) < 0 ||
            rdb_get_len(p, end, &pel[i].count) < 0)
            goto done;
        pel[i].owned = 0;
    }
    qsort(pel, np, sizeof(pending), pending_cmp);
    for (i = 1; i < np; i++)
        if (xs_id_cmp(&pel[i - 1].id, &pel[i].id) == 0)
            goto done;
    if (rdb_get_len(p, end, &nc) < 0)
        goto done;
    for (i = 0; i < nc; i++) {
        int64_t seen;
        int created = 0;
        xconsumer *c;
        if (dump_get_string(p, end, &cname, &cnlen) < 0)
            goto done;
        if (get_ms(p, end, &seen) < 0) {
            xfree(cname);
            goto done;
        }
        c = stream_consumer_get(g, cname, cnlen, seen, &created);
        xfree(cname);
        if (!created)
            goto done;
        c->seen_time = seen;
        if (rdb_get_len(p, end, &cp) < 0)
            goto done;
        for (j = 0; j < cp; j++) {
            if (get_id_raw(p, end, &id) < 0)
                goto done;
            key.id = id;
            hit = np ? bsearch(&key, pel, np, sizeof(pending), pending_cmp) : NULL;
            if (!hit || hit->owned)
                goto done;
            hit->owned = 1;
            stream_nack_add(g, c, &id, hit->time, hit->count);
        }
    }
    for (i = 0; i < np; i++)
        if (!pel[i].owned)
            goto done;
    rc = 0;
done:
    xfree(pel);
    xfree(name);
    return rc;
}

int load_stream(db *d, const sarg *key, int type, const unsigned char **p, const unsigned char *end)
{
    stream *s = stream_of(stream_create(d, key->p, key->len));
    uint64_t nodes, i, length, ngroups;
    xs_id prev = {0, 0}, last, first, maxdel = {0, 0}, prev_master = {0, 0};
    int any = 0;

    if (rdb_get_len(p, end, &nodes) < 0)
        return -1;
    for (i = 0; i < nodes; i++) {
        char *k, *lp;
        size_t kl, ll;
        int bad;
        if (dump_get_string(p, end, &k, &kl) < 0)
            return -1;
        if (dump_get_string(p, end, &lp, &ll) < 0) {
            xfree(k);
            return -1;
        }
        bad = load_node(s, k, kl, lp, ll, &prev, &any, &prev_master, (int)(i > 0));
        xfree(k);
        xfree(lp);
        if (bad)
            return -1;
    }
    if (rdb_get_len(p, end, &length) < 0 || length != xs_len(s->x) || get_id_lens(p, end, &last) < 0 ||
        (any && xs_id_cmp(&last, &prev) < 0))
        return -1;
    s->last_id = last;
    s->entries_added = length;
    if (type == RDB_TYPE_STREAM_LISTPACKS_2) {
        if (get_id_lens(p, end, &first) < 0 || get_id_lens(p, end, &maxdel) < 0 ||
            rdb_get_len(p, end, &s->entries_added) < 0)
            return -1;
    }
    s->max_deleted = maxdel;
    if (rdb_get_len(p, end, &ngroups) < 0)
        return -1;
    for (i = 0; i < ngroups; i++)
        if (load_group(s, type, p, end) < 0)
            return -1;
    return 0;
}

/* ---- a type Redis does not have (a scratchpad) ----
 *
 * RDB_TYPE_SCRATCHPAD's body is the type's own log records for the key (its
 * row's rewrite, docs/aof.md): the number of records, then per record its
 * argument count and arguments as RDB strings, the key left out (every record
 * of a key names it second; RESTORE puts the new key there). Compressed
 * contents are written decompressed: the restored value compresses them
 * again by its own settings. RESTORE applies the records through the row's
 * effects table (only its internal effects, no command), in a private
 * database, as the log's replay does. */

typedef struct own_out {
    const dbent *e;
    rdb_out body;   /* the records written so far */
    rdb_out rec;    /* the record being collected: its arguments */
    uint64_t nargs; /* in rec */
    uint64_t nrecs; /* in body */
    int bad;        /* a record not naming the key second, or a bad chunk */
} own_out;

static void own_begin(void *ctx, int dbid)
{
    own_out *w = ctx;
    w->rec.len = 0;
    w->nargs = 0;
}

static void own_arg(void *ctx, const void *p, size_t n)
{
    own_out *w = ctx;
    if (w->nargs++ == 1) { /* the key */
        if (n != dbent_klen(w->e) || memcmp(p, dbent_key(w->e), n) != 0)
            w->bad = 1;
        return;
    }
    rdb_put_string(&w->rec, p, n);
}

static void own_arg_lzval(void *ctx, const struct lzval *v)
{
    own_out *w = ctx;
    size_t n = lzval_len(v);
    char *tmp = xmalloc(n ? n : 1);
    if (lzval_read(v, 0, n, tmp, vc_lzcache()) < 0)
        w->bad = 1;
    else
        own_arg(ctx, tmp, n);
    xfree(tmp);
}

static void own_end(void *ctx)
{
    own_out *w = ctx;
    if (w->nargs < 2)
        w->bad = 1;
    rdb_put_len(&w->body, w->nargs - 1);
    rdb_put(&w->body, w->rec.p, w->rec.len);
    w->nrecs++;
}

int dump_own(const dbent *e, rdb_out *o, const char **why)
{
    const type_def *t = type_of(e);
    own_out w = {.e = e};
    effect_out eo = {.begin = own_begin, .arg = own_arg, .arg_lzval = own_arg_lzval, .end = own_end, .ctx = &w};
    char msg[256];
    int rc = -1;

    *why = "ERR value is corrupt: a compressed chunk failed to decompress";
    if (!t->rewrite || !t->effects || t->rewrite(&eo, 0, e, -1, db_now, msg, sizeof(msg)) < 0 || w.bad)
        goto done;
    rdb_put_byte(o, RDB_TYPE_SCRATCHPAD);
    rdb_put_len(o, w.nrecs);
    rdb_put(o, w.body.p, w.body.len);
    rc = 0;
done:
    rdb_out_free(&w.body);
    rdb_out_free(&w.rec);
    return rc;
}

static struct lzval *own_take_lzval(effect_replay *r, const effect_arg *a)
{
    return NULL; /* the payload holds no compressed argument */
}

static int own_bad_value(effect_replay *r, int dbid, const effect_arg *key, const effect_arg *part, char *why,
                         size_t whylen)
{
    snprintf(why, whylen, "bad value");
    return -1;
}

static int own_left_out(effect_replay *r, int dbid, const effect_arg *key, const effect_arg *part, int forget)
{
    return 0;
}

static void own_skipped(effect_replay *r, int dbid, const effect_arg *name, const effect_arg *key,
                        const effect_arg *part)
{
}

int load_own(db *d, const sarg *key, const unsigned char **p, const unsigned char *end)
{
    const type_def *t = type_table[OBJ_SCRATCHPAD];
    effect_replay r = {
        .take_lzval = own_take_lzval, .bad_value = own_bad_value, .left_out = own_left_out, .skipped = own_skipped};
    uint64_t nrecs, i, argc, j;
    effect_arg *a = NULL;
    char **bufs = NULL, why[256];
    const type_effect *te;
    dbent *e;
    int rc = -1;

    if (!t || !t->effects || rdb_get_len(p, end, &nrecs) < 0 || nrecs == 0)
        return -1;
    for (i = 0; i < nrecs; i++) {
        if (rdb_get_len(p, end, &argc) < 0 || argc == 0 || argc > (uint64_t)(end - *p))
            goto done;
        a = xcalloc(argc + 1, sizeof(effect_arg));
        bufs = xcalloc(argc + 1, sizeof(char *));
        for (j = 0; j <= argc; j++) {
            size_t n;
            if (j == 1) {
                a[1].p = key->p;
                a[1].len = key->len;
                continue;
            }
            if (dump_get_string(p, end, &bufs[j], &n) < 0)
                goto done;
            a[j].p = bufs[j];
            a[j].len = n;
        }
        for (te = t->effects; te->name; te++)
            if (strlen(te->name) == a[0].len && memcmp(te->name, a[0].p, a[0].len) == 0)
                break;
        if (!te->name || te->apply(&r, d, 0, a, (int)argc + 1, why, sizeof(why)) < 0)
            goto done;
        for (j = 0; j <= argc; j++)
            xfree(bufs[j]);
        xfree(bufs);
        xfree(a);
        bufs = NULL;
        a = NULL;
    }
    e = db_find_raw(d, key->p, key->len);
    rc = e && e->type == OBJ_SCRATCHPAD ? 0 : -1;
done:
    if (bufs)
        for (j = 0; j <= argc; j++)
            xfree(bufs[j]);
    xfree(bufs);
    xfree(a);
    return rc;
}
